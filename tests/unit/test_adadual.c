/*
 * tests/unit/test_adadual.c - Eq. 5, Table I, Algorithm 2 (AdaDUAL),
 * Theorems 1-2 against an event simulation, and the (a, b, eta) fit.
 *
 * Paper: Wang, Shi, Wang, Chu, "Communication Contention Aware Scheduling of
 * Multiple Deep Learning Training Jobs" (seed adadual-lwf-kappa.md).
 */
#include "helpers/ns_test.h"

#include <stdlib.h>

#define MIB 1048576.0
/* The authors' published 10 GbE fit (ALGORITHMS.md), per byte. */
#define B_PUB (0.856 / MIB)
#define ETA_PUB (0.235 / MIB)

/* ---- Eq. 5 and Eq. 2 ------------------------------------------------------ */

static void test_comm_time_eq5(void **state) {
  (void)state;
  /* Fig. 2(a): a = 6.69e-4 s, b = 8.53e-10 s/byte -> ms and ms/byte. */
  double a = 0.669, b = 8.53e-7;
  uint64_t m = 104857600; /* the 100 MB of Fig. 2(b) */
  /* hand-computed: 0.669 + 8.53e-7 * 104857600 = 90.112533 */
  assert_near(ns_comm_time_ms(a, b, 0, 1, m), 90.1125328, 1e-6);
  /* k = 1: the eta term vanishes and Eq. 5 is Eq. 2 */
  assert_near(ns_comm_time_ms(a, b, 5e-7, 1, m), a + b * (double)m, 1e-9);
  /* k = 4, eta = 2e-7: 0.669 + 4*89.4435328 + 3*20.97152 = 421.3576912 */
  assert_near(ns_comm_time_ms(a, b, 2e-7, 4, m), 421.3576912, 1e-6);
  /* Published fit, 10 MiB, two-way contention: (2b + eta) M = 19.47 ms */
  assert_near(ns_comm_time_ms(0, B_PUB, ETA_PUB, 2, 10485760), 19.47, 1e-9);
  assert_near(ns_comm_time_ms(3, 0, 0, 7, 0), 3, 0);
}

static void test_comm_time_bad_input(void **state) {
  (void)state;
  assert_true(isnan(ns_comm_time_ms(NAN, 1, 1, 1, 1)));
  assert_non_null(strstr(ns_last_error(), "a_ms"));
  assert_true(isnan(ns_comm_time_ms(0, -1, 1, 1, 1)));
  assert_non_null(strstr(ns_last_error(), "b_ms_per_byte"));
  assert_true(isnan(ns_comm_time_ms(0, 1, INFINITY, 1, 1)));
  assert_non_null(strstr(ns_last_error(), "eta_ms_per_byte"));
  assert_true(isnan(ns_comm_time_ms(0, 1, 1, 0, 1)));
  assert_non_null(strstr(ns_last_error(), "k must be >= 1 (got 0)"));
  assert_true(isnan(ns_comm_time_ms(0, 1e300, 1e300, 1000, UINT64_MAX)));
  assert_non_null(strstr(ns_last_error(), "overflows"));
}

/* ---- Table I -------------------------------------------------------------- */

static void test_allreduce_cost_table1(void **state) {
  (void)state;
  double alpha = 0.5, beta = 1e-3, gamma = 2e-4, a, b;
  /* N = 8, log2 N = 3; values worked by hand from Table I */
  assert_int_equal(ns_allreduce_algo_cost(NS_AR_BINARY_TREE, 8, alpha, beta, gamma, &a, &b), 0);
  assert_near(a, 3.0, 1e-12);    /* 2 alpha log N */
  assert_near(b, 6.6e-3, 1e-15); /* (2 beta + gamma) log N */
  assert_int_equal(ns_allreduce_algo_cost(NS_AR_RECURSIVE_DOUBLING, 8, alpha, beta, gamma, &a, &b),
                   0);
  assert_near(a, 1.5, 1e-12);    /* alpha log N */
  assert_near(b, 3.6e-3, 1e-15); /* (beta + gamma) log N */
  assert_int_equal(ns_allreduce_algo_cost(NS_AR_HALVING_DOUBLING, 8, alpha, beta, gamma, &a, &b),
                   0);
  assert_near(a, 3.0, 1e-12);      /* 2 alpha log N */
  assert_near(b, 1.925e-3, 1e-15); /* 2 beta - (2 beta + gamma)/N + gamma */
  assert_int_equal(ns_allreduce_algo_cost(NS_AR_RING, 8, alpha, beta, gamma, &a, &b), 0);
  assert_near(a, 7.0, 1e-12);      /* 2 (N-1) alpha */
  assert_near(b, 1.925e-3, 1e-15); /* 2(N-1)/N beta + (N-1)/N gamma */
  /* ring accepts any N: N = 6 -> a = 10 alpha, b = 10/6 beta + 5/6 gamma */
  assert_int_equal(ns_allreduce_algo_cost(NS_AR_RING, 6, alpha, beta, gamma, &a, &b), 0);
  assert_near(a, 5.0, 1e-12);
  assert_near(b, 10.0 / 6 * beta + 5.0 / 6 * gamma, 1e-15);
  /* one node: nothing to reduce over the network */
  for (int algo = NS_AR_BINARY_TREE; algo <= NS_AR_RING; algo++) {
    assert_int_equal(ns_allreduce_algo_cost((ns_allreduce_algo)algo, 1, alpha, beta, gamma, &a, &b),
                     0);
    assert_near(a, 0, 1e-15);
    assert_near(b, 0, 1e-15);
  }
}

static void test_allreduce_cost_collective_mapping(void **state) {
  (void)state;
  const struct {
    ns_collective c;
    ns_allreduce_algo algo;
  } map[] = {{NS_COLL_TREE, NS_AR_BINARY_TREE},
             {NS_COLL_HALVING_DOUBLING, NS_AR_HALVING_DOUBLING},
             {NS_COLL_RING, NS_AR_RING}};
  for (size_t i = 0; i < sizeof map / sizeof *map; i++) {
    double a1, b1, a2, b2;
    assert_int_equal(ns_allreduce_cost(map[i].c, 16, 0.1, 2e-6, 1e-7, &a1, &b1), 0);
    assert_int_equal(ns_allreduce_algo_cost(map[i].algo, 16, 0.1, 2e-6, 1e-7, &a2, &b2), 0);
    assert_near(a1, a2, 0);
    assert_near(b1, b2, 0);
  }
  double a = -1, b = -1;
  assert_fails_with(ns_allreduce_cost(NS_COLL_ALL_TO_ALL, 4, 1, 1, 1, &a, &b), NS_EUNSUPPORTED,
                    "all-to-all");
  assert_fails_with(ns_allreduce_cost((ns_collective)42, 4, 1, 1, 1, &a, &b), NS_EINVAL, "c must");
  assert_fails_with(ns_allreduce_cost(NS_COLL_TREE, 6, 1, 1, 1, &a, &b), NS_EINVAL,
                    "nodes must be a power of two");
  assert_fails_with(ns_allreduce_cost(NS_COLL_RING, 0, 1, 1, 1, &a, &b), NS_EINVAL, "nodes");
  assert_fails_with(ns_allreduce_cost(NS_COLL_RING, 4, NAN, 1, 1, &a, &b), NS_EINVAL, "alpha_ms");
  assert_fails_with(ns_allreduce_cost(NS_COLL_RING, 4, 1, -1, 1, &a, &b), NS_EINVAL,
                    "beta_ms_per_byte");
  assert_fails_with(ns_allreduce_cost(NS_COLL_RING, 4, 1, 1, INFINITY, &a, &b), NS_EINVAL,
                    "gamma_ms_per_byte");
  assert_fails_with(ns_allreduce_cost(NS_COLL_RING, 4, 1, 1, 1, NULL, &b), NS_EINVAL, "a_ms");
  assert_fails_with(ns_allreduce_algo_cost((ns_allreduce_algo)4, 4, 1, 1, 1, &a, &b), NS_EINVAL,
                    "algo");
  assert_near(a, -1, 0); /* outputs untouched on error */
  assert_near(b, -1, 0);
}

/* ---- Theorems 1-2 against a two-task event simulation ---------------------- */

/* Fluid model behind Eq. 10-12 (a neglected, as in Problem P1): a task
   alone moves 1/b bytes per ms; while both run, each moves 1/(2b + eta)
   (k = 2 in Eq. 5 spreads 2M bytes over (2b + eta) M ms). Task i has `m[i]`
   bytes and starts at `start[i]`; returns finish times in fin[]. */
static void simulate_two(double b, double eta, const double m[2], const double start[2],
                         double fin[2]) {
  double left[2] = {m[0], m[1]}, now = 0;
  int done[2] = {0, 0};
  while (!done[0] || !done[1]) {
    int active[2], nact = 0;
    for (int i = 0; i < 2; i++) {
      active[i] = !done[i] && start[i] <= now;
      nact += active[i];
    }
    double per_byte = nact == 2 ? 2 * b + eta : b, next = INFINITY;
    for (int i = 0; i < 2; i++) {
      if (active[i])
        next = fmin(next, now + left[i] * per_byte);
      else if (!done[i])
        next = fmin(next, start[i]);
    }
    for (int i = 0; i < 2; i++) {
      if (!active[i])
        continue;
      left[i] -= (next - now) / per_byte;
      if (left[i] <= 1e-9 * m[i]) {
        done[i] = 1;
        fin[i] = next;
      }
    }
    now = next;
  }
}

static double sim_mean(double b, double eta, double m0, double s0, double m1, double s1) {
  double m[2] = {m0, m1}, st[2] = {s0, s1}, fin[2];
  simulate_two(b, eta, m, st, fin);
  return (fin[0] + fin[1]) / 2;
}

static void test_theorems_vs_simulation(void **state) {
  (void)state;
  const double b = B_PUB, eta = ETA_PUB, m2 = 100 * MIB, thr = b / (2 * (b + eta));
  for (int step = 1; step <= 40; step++) {
    double m1 = m2 * step / 40.0, t1 = b * m1, t2 = b * m2; /* M1 <= M2 */
    double c1_best = INFINITY, c2_best = INFINITY, c2_arg = -1;
    for (int s = 0; s <= 200; s++) {
      /* C1: c1 at 0, c2 at t in [0, t1]; Eq. 10c */
      double t = t1 * s / 200.0, sim = sim_mean(b, eta, m1, 0, m2, t);
      assert_near(sim, (-(1 + 2 * eta / b) * t + (3 * b + 2 * eta) * m1 + b * m2) / 2,
                  1e-9 * sim);
      c1_best = fmin(c1_best, sim);
      /* C2: c2 at 0, c1 at t in [0, t2]; Eq. 11c / 12c */
      t = t2 * s / 200.0;
      sim = sim_mean(b, eta, m2, 0, m1, t);
      double closed = t <= b * (m2 - m1)
                          ? (t + (3 * b + 2 * eta) * m1 + b * m2) / 2
                          : (-(1 + 2 * eta / b) * t + (3 * b + 2 * eta) * m2 + b * m1) / 2;
      assert_near(sim, closed, 1e-9 * sim);
      if (sim < c2_best) {
        c2_best = sim;
        c2_arg = t;
      }
    }
    double e14a = (2 * b * m1 + b * m2) / 2, e14b = ((3 * b + 2 * eta) * m1 + b * m2) / 2,
           e14c = (b * m1 + 2 * b * m2) / 2;
    assert_near(c1_best, e14a, 1e-9 * e14a);           /* Theorem 1: t = t1 */
    assert_near(c2_best, fmin(e14b, e14c), 1e-9 * e14a); /* Theorem 2 */
    if (fabs(m1 / m2 - thr) > 1e-6)                     /* off the tie */
      assert_near(c2_arg, m1 / m2 < thr ? 0 : t2, 1e-9 * t2);
    assert_true(e14a <= e14b && e14a <= e14c + 1e-9 * e14c); /* Eq. 14: C1 is best */
  }
}

/* AdaDUAL's choice equals the better of "start now" and "wait for the old
   task", both simulated, for new/old ratios from 0.01 to 3. */
static void test_decide_matches_simulation(void **state) {
  (void)state;
  const double b = B_PUB, eta = ETA_PUB, thr = b / (2 * (b + eta));
  const uint64_t m_old = 50000000;
  int starts = 0, waits = 0;
  for (int pct = 1; pct <= 300; pct++) {
    uint64_t m_new = m_old / 100 * (uint64_t)pct;
    if (fabs((double)m_new / (double)m_old - thr) < 1e-9)
      continue;
    double now = sim_mean(b, eta, (double)m_old, 0, (double)m_new, 0);
    double wait = sim_mean(b, eta, (double)m_old, 0, (double)m_new, b * (double)m_old);
    int tasks[3] = {0, 1, 0}, start = -1;
    uint64_t rem[3] = {0, m_old, 0};
    assert_int_equal(ns_adadual_decide(b, eta, m_new, tasks, rem, 3, &start), NS_OK);
    assert_int_equal(start, now < wait);
    starts += start;
    waits += !start;
  }
  /* both answers occur: neither always-avoid nor always-accept is optimal */
  assert_int_equal(starts, 39); /* 1..39 % < 39.23 % */
  assert_int_equal(waits, 261);
}

/* ---- Algorithm 2 ------------------------------------------------------------ */

static void test_threshold_published(void **state) {
  (void)state;
  /* b/(2(b+eta)) = 0.856 / 2.182 */
  assert_near(ns_adadual_threshold(B_PUB, ETA_PUB), 0.3923, 5e-5);
  assert_near(ns_adadual_threshold(0.856, 0.235), 0.39230064, 1e-8);
  assert_near(ns_adadual_threshold(1, 0), 0.5, 0); /* no penalty: start iff M_new < M_old/2 */
  assert_true(isnan(ns_adadual_threshold(0, 1)));
  assert_non_null(strstr(ns_last_error(), "b_ms_per_byte"));
  assert_true(isnan(ns_adadual_threshold(1, -0.1)));
  assert_non_null(strstr(ns_last_error(), "eta_ms_per_byte"));
}

static int decide1(double b, double eta, uint64_t m_new, uint64_t m_old) {
  int tasks[2] = {1, 1}, start = -1;
  uint64_t rem[2] = {m_old, m_old};
  assert_int_equal(ns_adadual_decide(b, eta, m_new, tasks, rem, 2, &start), NS_OK);
  return start;
}

static void test_decide_flips_at_threshold(void **state) {
  (void)state;
  /* published fit, 100 MiB left on the old task: 104857600 * 0.856 / 2.182 = 41135703.76 B */
  uint64_t m_old = 104857600;
  uint64_t edge = (uint64_t)floor(0.856 / 2.182 * (double)m_old);
  assert_int_equal(edge, 41135703);
  assert_int_equal(decide1(B_PUB, ETA_PUB, edge, m_old), 1);
  assert_int_equal(decide1(B_PUB, ETA_PUB, edge + 1, m_old), 0);
  assert_int_equal(decide1(B_PUB, ETA_PUB, 1, m_old), 1);
  assert_int_equal(decide1(B_PUB, ETA_PUB, m_old, m_old), 0);     /* Theorem 1 */
  assert_int_equal(decide1(B_PUB, ETA_PUB, 3 * m_old, m_old), 0); /* larger new: wait */
  /* exact tie: b = eta -> threshold 1/4; 100/400 ties and waits (strict <) */
  assert_int_equal(decide1(1e-6, 1e-6, 100, 400), 0);
  assert_int_equal(decide1(1e-6, 1e-6, 99, 400), 1);
  assert_int_equal(decide1(1e-6, 1e-6, 0, 400), 1); /* empty message: start */
}

static void test_decide_branches(void **state) {
  (void)state;
  int start = -1;
  /* Alg. 2 lines 8-10: no running task on any server -> start */
  int idle[3] = {0, 0, 0};
  assert_int_equal(ns_adadual_decide(B_PUB, ETA_PUB, 1u << 30, idle, NULL, 3, &start), NS_OK);
  assert_int_equal(start, 1);
  /* lines 19-21: two tasks on one server -> wait, however small the new task */
  int busy[3] = {0, 2, 1};
  uint64_t rem[3] = {0, 0, 1000000000};
  assert_int_equal(ns_adadual_decide(B_PUB, ETA_PUB, 1, busy, rem, 3, &start), NS_OK);
  assert_int_equal(start, 0);
  /* M_old rule: different single tasks of 1000 MB and 300 MB -> compare with 300 */
  int one[2] = {1, 1};
  uint64_t rem2[2] = {1000000000, 300000000};
  assert_int_equal(ns_adadual_decide(B_PUB, ETA_PUB, 150000000, one, rem2, 2, &start), NS_OK);
  assert_int_equal(start, 0); /* 0.15 vs 1000 MB would start; 0.5 vs 300 MB waits */
  assert_int_equal(ns_adadual_decide(B_PUB, ETA_PUB, 100000000, one, rem2, 2, &start), NS_OK);
  assert_int_equal(start, 1); /* 0.333 < 0.3923 against both */
  /* a server with one task next to idle ones */
  int mixed[4] = {0, 0, 1, 0};
  uint64_t rem3[4] = {0, 0, 1000, 0};
  assert_int_equal(ns_adadual_decide(B_PUB, ETA_PUB, 392, mixed, rem3, 4, &start), NS_OK);
  assert_int_equal(start, 1);
  assert_int_equal(ns_adadual_decide(B_PUB, ETA_PUB, 393, mixed, rem3, 4, &start), NS_OK);
  assert_int_equal(start, 0);
}

static void test_decide_bad_input(void **state) {
  (void)state;
  int start = 7, t1[2] = {1, 0}, neg[2] = {0, -1};
  uint64_t r1[2] = {100, 0}, r_bad0[2] = {100, 5}, r_zero[2] = {0, 0};
  assert_fails_with(ns_adadual_decide(0, ETA_PUB, 1, t1, r1, 2, &start), NS_EINVAL,
                    "b_ms_per_byte");
  assert_fails_with(ns_adadual_decide(NAN, ETA_PUB, 1, t1, r1, 2, &start), NS_EINVAL,
                    "b_ms_per_byte");
  assert_fails_with(ns_adadual_decide(B_PUB, -1e-9, 1, t1, r1, 2, &start), NS_EINVAL,
                    "eta_ms_per_byte");
  assert_fails_with(ns_adadual_decide(B_PUB, ETA_PUB, 1, NULL, r1, 2, &start), NS_EINVAL,
                    "tasks_per_server");
  assert_fails_with(ns_adadual_decide(B_PUB, ETA_PUB, 1, t1, r1, 2, NULL), NS_EINVAL, "start");
  assert_fails_with(ns_adadual_decide(B_PUB, ETA_PUB, 1, t1, r1, 0, &start), NS_EINVAL,
                    "nservers");
  assert_fails_with(ns_adadual_decide(B_PUB, ETA_PUB, 1, neg, r_zero, 2, &start), NS_EINVAL,
                    "tasks_per_server[1]");
  assert_fails_with(ns_adadual_decide(B_PUB, ETA_PUB, 1, t1, NULL, 2, &start), NS_EINVAL,
                    "remaining_bytes");
  assert_fails_with(ns_adadual_decide(B_PUB, ETA_PUB, 1, t1, r_bad0, 2, &start), NS_EINVAL,
                    "remaining_bytes[1]");
  assert_fails_with(ns_adadual_decide(B_PUB, ETA_PUB, 1, t1, r_zero, 2, &start), NS_EINVAL,
                    "remaining_bytes[0] must be > 0");
  assert_int_equal(start, 7); /* untouched by every failed call */
}

/* ---- least-squares fit ------------------------------------------------------ */

static void fill_model(double a, double b, double eta, int n, int *k, uint64_t *m, double *t) {
  static const uint64_t sizes[4] = {10485760, 20971520, 41943040, 104857600};
  for (int i = 0; i < n; i++) {
    k[i] = 1 + i % 8;
    m[i] = sizes[(i / 8) % 4];
    t[i] = a + k[i] * b * (double)m[i] + (k[i] - 1) * eta * (double)m[i];
  }
}

static void test_fit_recovers_parameters(void **state) {
  (void)state;
  int k[32];
  uint64_t m[32];
  double t[32], a, b, eta, rms;
  fill_model(0.669, 8.53e-7, 2.24e-7, 32, k, m, t); /* Fig. 2(a) a, b; eta of 0.235 ms/MB */
  assert_int_equal(ns_contention_fit(k, m, t, 32, &a, &b, &eta, &rms), NS_OK);
  assert_near(a, 0.669, 1e-7);
  assert_near(b, 8.53e-7, 1e-15);
  assert_near(eta, 2.24e-7, 1e-15);
  assert_near(rms, 0, 1e-7);
}

/* With noise, the fit is the least-squares optimum: the residual is
   orthogonal to every column with a positive coefficient (normal
   equations), and no nearby feasible point does better. */
static void test_fit_normal_equations(void **state) {
  (void)state;
  int k[32];
  uint64_t m[32];
  double t[32], a, b, eta, rms;
  fill_model(20, 1e-5, 3e-6, 32, k, m, t);
  for (int i = 0; i < 32; i++)
    t[i] *= 1 + 0.05 * sin(1.7 * i); /* deterministic 5 % noise */
  assert_int_equal(ns_contention_fit(k, m, t, 32, &a, &b, &eta, &rms), NS_OK);
  assert_true(a > 0 && b > 0 && eta > 0);
  double g[3] = {0, 0, 0}, norm[3] = {0, 0, 0}, ss = 0, yn = 0;
  for (int i = 0; i < 32; i++) {
    double x[3] = {1, k[i] * (double)m[i], (k[i] - 1) * (double)m[i]};
    double r = t[i] - (a * x[0] + b * x[1] + eta * x[2]);
    ss += r * r;
    yn += t[i] * t[i];
    for (int j = 0; j < 3; j++) {
      g[j] += x[j] * r;
      norm[j] += x[j] * x[j];
    }
  }
  for (int j = 0; j < 3; j++) /* |X_j' r| <= 1e-9 |X_j| |y| */
    assert_true(fabs(g[j]) <= 1e-9 * sqrt(norm[j]) * sqrt(yn));
  assert_near(rms, sqrt(ss / 32), 1e-9 * rms);
  assert_true(rms > 1); /* the noise is really there */
}

static double sse_at(const int *k, const uint64_t *m, const double *t, int n, double a, double b,
                     double eta) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double r = t[i] - (a + k[i] * b * (double)m[i] + (k[i] - 1) * eta * (double)m[i]);
    s += r * r;
  }
  return s;
}

/* Data whose unconstrained optimum has eta < 0 (contention that helps):
   the fit pins eta at 0 and is the best feasible point nearby. */
static void test_fit_nonnegative(void **state) {
  (void)state;
  int k[32];
  uint64_t m[32];
  double t[32], a, b, eta, rms;
  fill_model(5, 1e-5, 0, 32, k, m, t);
  for (int i = 0; i < 32; i++)
    t[i] -= (k[i] - 1) * 1e-6 * (double)m[i]; /* slope below k*b: eta would be -1e-6 */
  assert_int_equal(ns_contention_fit(k, m, t, 32, &a, &b, &eta, &rms), NS_OK);
  assert_near(eta, 0, 0);
  assert_true(a >= 0 && b > 0);
  double best = sse_at(k, m, t, 32, a, b, eta);
  assert_near(rms, sqrt(best / 32), 1e-9 * rms);
  for (int da = -1; da <= 1; da++)
    for (int db = -1; db <= 1; db++)
      for (int de = 0; de <= 1; de++) {
        double a2 = a * (1 + 1e-4 * da) + 1e-4 * (da > 0), b2 = b * (1 + 1e-4 * db),
               e2 = 1e-10 * de;
        if (a2 >= 0)
          assert_true(sse_at(k, m, t, 32, a2, b2, e2) >= best * (1 - 1e-12));
      }
}

static void test_fit_bad_input(void **state) {
  (void)state;
  int k[4] = {1, 1, 1, 1}, k2[4] = {2, 2, 2, 2}, k3[4] = {1, 2, 3, 4}, kbad[4] = {1, 0, 1, 2};
  uint64_t m[4] = {10, 20, 30, 40}, m1[4] = {10, 10, 10, 10};
  double t[4] = {1, 2, 3, 4}, tbad[4] = {1, NAN, 3, 4}, a = -1, b = -1, eta = -1, rms = -1;
  assert_fails_with(ns_contention_fit(k, m, t, 4, &a, &b, &eta, &rms), NS_EINVAL, "one line");
  assert_fails_with(ns_contention_fit(k2, m, t, 4, &a, &b, &eta, &rms), NS_EINVAL, "one line");
  assert_fails_with(ns_contention_fit(k3, m1, t, 4, &a, &b, &eta, &rms), NS_EINVAL, "one line");
  assert_fails_with(ns_contention_fit(k3, m, t, 2, &a, &b, &eta, &rms), NS_EINVAL, "n must");
  assert_fails_with(ns_contention_fit(kbad, m, t, 4, &a, &b, &eta, &rms), NS_EINVAL, "k[1]");
  assert_fails_with(ns_contention_fit(k3, m, tbad, 4, &a, &b, &eta, &rms), NS_EINVAL,
                    "time_ms[1]");
  assert_fails_with(ns_contention_fit(NULL, m, t, 4, &a, &b, &eta, &rms), NS_EINVAL, "k");
  assert_fails_with(ns_contention_fit(k3, NULL, t, 4, &a, &b, &eta, &rms), NS_EINVAL, "bytes");
  assert_fails_with(ns_contention_fit(k3, m, t, 4, &a, &b, &eta, NULL), NS_EINVAL,
                    "rms_residual_ms");
  assert_near(a + b + eta + rms, -4, 0); /* outputs untouched */
}

/* ---- real measurements (HKBU-HPML/dl-scheduling, 10 GbE) ---------------------- */

typedef struct samples {
  int k[64];
  uint64_t m[64];
  double t[64];
  int n;
} samples;

/* job_num,msg_size(bytes),avg_latency(us) rows with job_num <= kmax. */
static int read_samples(const char *path, int kmax, samples *s) {
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return -1;
  char header[128];
  if (fgets(header, sizeof header, f) == NULL) {
    fclose(f);
    return -1;
  }
  int k;
  unsigned long long m;
  double us;
  s->n = 0;
  while (s->n < 64 && fscanf(f, "%d,%llu,%lf", &k, &m, &us) == 3) {
    if (k > kmax)
      continue;
    s->k[s->n] = k;
    s->m[s->n] = m;
    s->t[s->n++] = us / 1000.0; /* latency is in microseconds */
  }
  fclose(f);
  return 0;
}

/* Expected values: exact rational least squares over the 8 supports,
   computed independently with Python's fractions module. */
static void test_fit_measured_contention(void **state) {
  (void)state;
  const char *path = ns_test_data_path("contention/allreduce-latency-vs-concurrency.csv");
  if (path == NULL)
    skip();
  static const struct {
    int kmax, n;
    double a, b, eta, rms;
    const char *what;
  } cases[] = {
      {2, 6, 10.59737596, 9.912224945e-06, 6.450263963e-06, 19.21792223, "k <= 2 (AdaDUAL)"},
      {8, 24, 127.4161821, 1.091135369e-05, 9.951244626e-07, 174.9808394, "k <= 8 (Fig. 2b)"},
      {16, 48, 0, 0, 1.992875334e-05, 651.5230083, "k <= 16 (all rows)"},
  };
  samples s;
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    assert_int_equal(read_samples(path, cases[c].kmax, &s), 0);
    assert_int_equal(s.n, cases[c].n);
    double a, b, eta, rms;
    assert_int_equal(ns_contention_fit(s.k, s.m, s.t, (size_t)s.n, &a, &b, &eta, &rms), NS_OK);
    printf("[   INFO   ] fit %-20s a = %8.3f ms  b = %7.4f ms/MiB  eta = %7.4f ms/MiB  "
           "threshold %.4f  rms residual %.1f ms\n",
           cases[c].what, a, b * MIB, eta * MIB,
           b > 0 ? ns_adadual_threshold(b, eta) : NAN, rms);
    assert_near(a, cases[c].a, 1e-6 * fmax(1, cases[c].a));
    assert_near(b, cases[c].b, 1e-6 * cases[c].b + 1e-15);
    assert_near(eta, cases[c].eta, 1e-6 * cases[c].eta + 1e-15);
    assert_near(rms, cases[c].rms, 1e-6 * cases[c].rms);
  }
  /* the measured 10 MiB all-reduce: 144.8 ms alone, 253.0 ms with k = 2 */
  assert_int_equal(read_samples(path, 2, &s), 0);
  assert_int_equal(s.k[0], 1);
  assert_int_equal(s.m[0], 10485760);
  assert_near(s.t[0], 144.8, 0.05);
  assert_near(s.t[1], 253.0, 0.05);
  double a, b, eta, rms;
  assert_int_equal(ns_contention_fit(s.k, s.m, s.t, (size_t)s.n, &a, &b, &eta, &rms), NS_OK);
  printf("[   INFO   ] 10 MiB: measured 144.8 / 253.0 ms, k <= 2 fit predicts %.1f / %.1f ms\n",
         ns_comm_time_ms(a, b, eta, 1, 10485760), ns_comm_time_ms(a, b, eta, 2, 10485760));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_comm_time_eq5),
      cmocka_unit_test(test_comm_time_bad_input),
      cmocka_unit_test(test_allreduce_cost_table1),
      cmocka_unit_test(test_allreduce_cost_collective_mapping),
      cmocka_unit_test(test_theorems_vs_simulation),
      cmocka_unit_test(test_decide_matches_simulation),
      cmocka_unit_test(test_threshold_published),
      cmocka_unit_test(test_decide_flips_at_threshold),
      cmocka_unit_test(test_decide_branches),
      cmocka_unit_test(test_decide_bad_input),
      cmocka_unit_test(test_fit_recovers_parameters),
      cmocka_unit_test(test_fit_normal_equations),
      cmocka_unit_test(test_fit_nonnegative),
      cmocka_unit_test(test_fit_bad_input),
      cmocka_unit_test(test_fit_measured_contention),
  };
  return cmocka_run_group_tests_name("adadual", tests, NULL, NULL);
}
