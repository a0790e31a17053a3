/*
 * tests/unit/test_cassini.c - CASSINI (src/cassini): the worked examples of
 * ALGORITHMS.md, a brute-force time-domain oracle at 0.1 ms resolution with
 * randomized comparisons, Theorem 1 on random loop-free Affinity graphs,
 * Appendix A's chain (Eq. 9), Algorithm 2 ranking and its thread pool, and
 * the bad inputs of issue 3.
 */
#include "helpers/ns_test.h"

#include <stdlib.h>

#include "cassini/cassini_internal.h"

/* ---- fixtures ----------------------------------------------------------- */

/* A job from (duration, Gbps) pairs; the iteration is their sum. */
static ns_job *job_of(const char *name, size_t nph, const double *ph) {
  ns_job *j = ns_job_new(name, 1);
  double it = 0;
  for (size_t i = 0; i < nph; i++) {
    assert_int_equal(ns_job_add_phase(j, ph[2 * i], ph[2 * i + 1]), NS_OK);
    it += ph[2 * i];
  }
  assert_int_equal(ns_job_set_iteration_ms(j, it), NS_OK);
  return j;
}

/* Up `up_ms` at `gbps` first, then Down (0 Gbps) for the rest. */
static ns_job *up_down(const char *name, double iter, double up_ms, double gbps) {
  double ph[] = {up_ms, gbps, iter - up_ms, 0};
  return job_of(name, 2, ph);
}

static ns_link *link_of(double cap, size_t n, ns_job *const *jobs) {
  ns_link *l = ns_link_new("l", cap);
  assert_non_null(l);
  for (size_t i = 0; i < n; i++)
    assert_int_equal(ns_link_add_job(l, jobs[i]), NS_OK);
  return l;
}

static uint64_t rng_next(uint64_t *s) { /* xorshift64*: fixed seeds, portable */
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717ULL;
}
static int rng_int(uint64_t *s, int lo, int hi) { /* [lo, hi] */
  return lo + (int)(rng_next(s) % (uint64_t)(hi - lo + 1));
}

/* A random profile of 1-3 phases with integer durations tiling `iter` and
   Gbps in multiples of 5 up to `cap`. */
static ns_job *random_job(uint64_t *s, const char *name, int iter, double cap) {
  int nph = rng_int(s, 1, 3), left = iter;
  double ph[6];
  for (int i = 0; i < nph; i++) {
    int d = i == nph - 1 ? left : rng_int(s, 1, left - (nph - 1 - i));
    left -= d;
    ph[2 * i] = d;
    ph[2 * i + 1] = 5.0 * rng_int(s, 0, (int)(cap / 5));
  }
  return job_of(name, (size_t)nph, ph);
}

/* ---- brute-force time-domain oracle (0.1 ms resolution) ------------------- */

#define ORACLE_RES_MS 0.1

typedef struct oracle {
  size_t n, period;   /* samples on the LCM circle */
  size_t len[4];      /* samples per iteration */
  double *v[4];       /* each job's demand at sample midpoints of one iteration */
  double cap;
} oracle;

static size_t gcd_sz(size_t a, size_t b) { return b ? gcd_sz(b, a % b) : a; }

static double phase_gbps(const ns_job *j, double t) {
  double d, g, acc = 0;
  for (size_t i = 0; i < ns_job_phase_count(j); i++) {
    ns_job_phase(j, i, &d, &g);
    acc += d;
    if (t < acc)
      return g;
  }
  return g;
}

static void oracle_init(oracle *o, ns_job *const *jobs, size_t n, double cap) {
  assert_true(n >= 1 && n <= 4);
  o->n = n;
  o->cap = cap;
  o->period = 1;
  for (size_t j = 0; j < n; j++) {
    o->len[j] = (size_t)llround(ns_job_iteration_ms(jobs[j]) / ORACLE_RES_MS);
    o->v[j] = malloc(o->len[j] * sizeof(double));
    for (size_t i = 0; i < o->len[j]; i++)
      o->v[j][i] = phase_gbps(jobs[j], ((double)i + 0.5) * ORACLE_RES_MS);
    o->period = o->period / gcd_sz(o->period, o->len[j]) * o->len[j];
  }
}

static void oracle_free(oracle *o) {
  for (size_t j = 0; j < o->n; j++)
    free(o->v[j]);
}

/* Eq. 2 in the time domain with job j delayed by s[j] samples. */
static double oracle_eval_samples(const oracle *o, const size_t *s) {
  double excess = 0;
  for (size_t i = 0; i < o->period; i++) {
    double d = 0;
    for (size_t j = 0; j < o->n; j++)
      d += o->v[j][(i + o->len[j] - s[j] % o->len[j]) % o->len[j]];
    excess += d > o->cap ? d - o->cap : 0;
  }
  return 1.0 - excess / ((double)o->period * o->cap);
}

static double oracle_eval_ms(const oracle *o, const double *shifts_ms) {
  size_t s[4];
  for (size_t j = 0; j < o->n; j++)
    s[j] = (size_t)llround(shifts_ms[j] / ORACLE_RES_MS);
  return oracle_eval_samples(o, s);
}

/* Best score over every shift of jobs 1.. (job 0 fixed). */
static double oracle_best(const oracle *o) {
  size_t s[4] = {0}, total = 1;
  for (size_t j = 1; j < o->n; j++)
    total *= o->len[j];
  double best = -INFINITY;
  for (size_t c = 0; c < total; c++) {
    size_t x = c;
    for (size_t j = 1; j < o->n; j++) {
      s[j] = x % o->len[j];
      x /= o->len[j];
    }
    double v = oracle_eval_samples(o, s);
    if (v > best)
      best = v;
  }
  return best;
}

/* ---- options ------------------------------------------------------------- */

static void test_opts_defaults_and_validation(void **state) {
  (void)state;
  ns_cassini_opts *o = ns_cassini_opts_new();
  assert_non_null(o);
  assert_near(ns_cassini_opts_angle_step_deg(o), 5.0, 0);
  assert_near(ns_cassini_opts_time_quantum_ms(o), 1.0, 0);
  assert_int_equal(ns_cassini_opts_threads(o), 1);
  assert_fails_with(ns_cassini_opts_set_angle_step_deg(o, 0), NS_EINVAL, "deg");
  assert_fails_with(ns_cassini_opts_set_angle_step_deg(o, -5), NS_EINVAL, "deg");
  assert_fails_with(ns_cassini_opts_set_angle_step_deg(o, 180.001), NS_EINVAL, "(0, 180]");
  assert_fails_with(ns_cassini_opts_set_angle_step_deg(o, NAN), NS_EINVAL, "deg");
  assert_fails_with(ns_cassini_opts_set_angle_step_deg(o, INFINITY), NS_EINVAL, "deg");
  assert_near(ns_cassini_opts_angle_step_deg(o), 5.0, 0); /* unchanged */
  assert_int_equal(ns_cassini_opts_set_angle_step_deg(o, 180), NS_OK);
  assert_fails_with(ns_cassini_opts_set_time_quantum_ms(o, 0), NS_EINVAL, "ms");
  assert_fails_with(ns_cassini_opts_set_time_quantum_ms(o, -1), NS_EINVAL, "ms");
  assert_fails_with(ns_cassini_opts_set_time_quantum_ms(o, NAN), NS_EINVAL, "ms");
  assert_int_equal(ns_cassini_opts_set_time_quantum_ms(o, 0.5), NS_OK);
  assert_fails_with(ns_cassini_opts_set_threads(o, 0), NS_EINVAL, "threads");
  assert_fails_with(ns_cassini_opts_set_threads(o, 257), NS_EINVAL, "threads");
  assert_int_equal(ns_cassini_opts_set_threads(o, 256), NS_OK);
  assert_int_equal(ns_cassini_opts_threads(o), 256);
  ns_cassini_opts_free(o);
  ns_cassini_opts_free(NULL);
}

/* ---- worked examples (ALGORITHMS.md) --------------------------------------- */

/* (1) Two jobs, 100 ms, Up 50 ms at C then Down: unrotated 0.5, optimum 1.0
   with the second job shifted 50 ms. */
static void test_example1_half_and_half(void **state) {
  (void)state;
  ns_job *j[2] = {up_down("a", 100, 50, 50), up_down("b", 100, 50, 50)};
  ns_link *l = link_of(50, 2, j);
  ns_cassini_opts *o = ns_cassini_opts_new();
  double zero[2] = {0, 0}, s = 0, sh[2] = {-1, -1};
  assert_int_equal(ns_cassini_score_at(l, o, zero, 2, &s), NS_OK);
  assert_near(s, 0.5, 1e-12);
  assert_int_equal(ns_cassini_score(l, o, &s, sh, 2), NS_OK);
  assert_near(s, 1.0, 1e-12);
  assert_near(sh[0], 0, 0);
  assert_near(sh[1], 50, 1e-9);
  ns_link_free(l);
  ns_job_free(j[0]);
  ns_job_free(j[1]);
  ns_cassini_opts_free(o);
}

/* (2) Two VGG16-like jobs: 255 ms, Down 141 ms (~200 deg) then Up 114 ms at
   C: 228 ms of Up fits in 255, score 1.0. At 5 deg the bin is 255/72 ms and
   job 1's Up covers bins 39.81..72; job 2 fits iff its rotation k puts its Up
   into bins 0..39.81, i.e. 33 <= k <= 39; the first is 33 bins = 116.875 ms. */
static void test_example2_vgg16(void **state) {
  (void)state;
  double ph[] = {141, 0, 114, 50};
  ns_job *j[2] = {job_of("vgg16-a", 2, ph), job_of("vgg16-b", 2, ph)};
  ns_link *l = link_of(50, 2, j);
  ns_cassini_opts *o = ns_cassini_opts_new();
  double s = 0, sh[2], exact = 0;
  assert_int_equal(ns_cassini_score(l, o, &s, sh, 2), NS_OK);
  assert_near(s, 1.0, 1e-12);
  assert_near(sh[1], 33 * 255.0 / 72, 1e-9);
  assert_int_equal(ns_cassini_score_at(l, o, sh, 2, &exact), NS_OK);
  assert_near(exact, 1.0, 1e-12);
  double zero[2] = {0, 0};
  assert_int_equal(ns_cassini_score_at(l, o, zero, 2, &exact), NS_OK);
  assert_near(exact, 1.0 - 114.0 / 255, 1e-12); /* both Ups overlap fully */
  ns_link_free(l);
  ns_job_free(j[0]);
  ns_job_free(j[1]);
  ns_cassini_opts_free(o);
}

/* (3) Three identical jobs, Up 40 % of the iteration at C: total Up is 120 %
   of the circle, so at least 20 % is excess: best score 0.8. */
static void test_example3_three_jobs(void **state) {
  (void)state;
  ns_job *j[3] = {up_down("a", 100, 40, 50), up_down("b", 100, 40, 50),
                  up_down("c", 100, 40, 50)};
  ns_link *l = link_of(50, 3, j);
  ns_cassini_opts *o = ns_cassini_opts_new();
  double s = 0, sh[3], exact = 0;
  assert_int_equal(ns_cassini_score(l, o, &s, sh, 3), NS_OK);
  assert_near(s, 0.8, 1e-12);
  /* In continuous time the bins can hide a sliver of overlap: within the
     oracle tolerance, and never above the 0.8 energy bound. */
  assert_int_equal(ns_cassini_score_at(l, o, sh, 3, &exact), NS_OK);
  assert_true(exact <= 0.8 + 1e-12 && exact >= 0.8 - 0.02);
  ns_link_free(l);
  for (int i = 0; i < 3; i++)
    ns_job_free(j[i]);
  ns_cassini_opts_free(o);
}

/* (4) Jobs of 40 ms and 60 ms: perimeter LCM = 120, r = 3 and 2 (Fig. 5);
   at 5 deg per 60 ms iteration: |A| = 72 x 2 = 144 bins, job 1 tries
   144/3 = 48 rotations. */
static void test_example4_unified_circle(void **state) {
  (void)state;
  ns_job *j[2] = {up_down("j1", 40, 10, 50), up_down("j2", 60, 10, 50)};
  ns_link *l = link_of(50, 2, j);
  ns_cassini_opts *o = ns_cassini_opts_new();
  double p = 0, q = 0;
  assert_int_equal(ns_cassini_link_perimeter(l, o, &p, &q), NS_OK);
  assert_near(p, 120, 0);
  assert_near(q, 1, 0);
  nsc_circle c;
  assert_int_equal(nsc_circle_build(&c, (const ns_job *const *)j, 2, 50, o, "t"), NS_OK);
  assert_int_equal(c.r[0], 3);
  assert_int_equal(c.r[1], 2);
  assert_int_equal(c.nbins, 144);
  assert_int_equal(c.positions[1], 72);
  /* job 1's 10 ms Up covers 12 bins of 120/144 ms, three times */
  assert_near(c.energy[0], 3 * 12 * 50.0, 1e-9);
  nsc_circle_free(&c);
  /* j1's Ups fill bins [0,12) [48,60) [96,108); j2's two 12-bin Ups are 72
     bins apart and first fit at rotation 12 ([12,24) and [84,96)): 10 ms. */
  double s = 0, sh[2], exact = 0;
  assert_int_equal(ns_cassini_score(l, o, &s, sh, 2), NS_OK);
  assert_near(s, 1.0, 1e-12);
  assert_near(sh[1], 10, 1e-9);
  assert_int_equal(ns_cassini_score_at(l, o, sh, 2, &exact), NS_OK);
  assert_near(exact, 1.0, 1e-12);
  ns_link_free(l);
  ns_job_free(j[0]);
  ns_job_free(j[1]);
  ns_cassini_opts_free(o);
}

/* (5) A job whose demand never exceeds C alone and a tiny job: 1.0 at any
   rotation (Table 2 snapshot 2, ResNet50). */
static void test_example5_always_fits(void **state) {
  (void)state;
  double resnet[] = {80, 30, 100, 12}, tiny[] = {5, 8, 15, 0};
  ns_job *j[2] = {job_of("resnet50", 2, resnet), job_of("tiny", 2, tiny)};
  ns_link *l = link_of(50, 2, j);
  ns_cassini_opts *o = ns_cassini_opts_new();
  double s = 0, sh[2];
  assert_int_equal(ns_cassini_score(l, o, &s, sh, 2), NS_OK);
  assert_near(s, 1.0, 1e-12);
  uint64_t seed = 5;
  for (int i = 0; i < 20; i++) {
    double at[2] = {rng_int(&seed, 0, 179), rng_int(&seed, 0, 19) + 0.37}, e = 0;
    assert_int_equal(ns_cassini_score_at(l, o, at, 2, &e), NS_OK);
    assert_near(e, 1.0, 1e-12);
  }
  ns_link_free(l);
  ns_job_free(j[0]);
  ns_job_free(j[1]);
  ns_cassini_opts_free(o);
}

/* ---- perimeter cap ------------------------------------------------------------ */

/* 255 vs 177 ms: LCM 15045 > 16 x 255. By hand: q = 2 gives 128, 89
   (LCM 11392 > 2048); q = 3 gives 85, 59 (5015 > 1360); q = 4 gives 64, 44,
   LCM 704 <= 16 x 64: p = 704 x 4 = 2816 ms. */
static void test_perimeter_coarsening(void **state) {
  (void)state;
  double a[] = {141, 0, 114, 50}, b[] = {100, 0, 77, 40};
  ns_job *j[2] = {job_of("vgg16", 2, a), job_of("other", 2, b)};
  ns_link *l = link_of(50, 2, j);
  ns_cassini_opts *o = ns_cassini_opts_new();
  double p = 0, q = 0, s = 0, sh[2];
  assert_int_equal(ns_cassini_link_perimeter(l, o, &p, &q), NS_OK);
  assert_near(q, 4, 0);
  assert_near(p, 2816, 0);
  assert_int_equal(ns_cassini_score(l, o, &s, sh, 2), NS_OK);
  assert_true(isfinite(s) && s <= 1.0);
  assert_true(sh[1] >= 0 && sh[1] < 177);
  ns_link_free(l);
  ns_job_free(j[0]);
  ns_job_free(j[1]);
  ns_cassini_opts_free(o);
}

/* 7, 11, 13 ms: LCM 1001 > 16 x 13 with q = 1, and the next quantum (2 ms)
   is over 10 % of 7 ms: NS_ERANGE. */
static void test_perimeter_over_cap(void **state) {
  (void)state;
  ns_job *j[3] = {up_down("a", 7, 3, 10), up_down("b", 11, 3, 10), up_down("c", 13, 3, 10)};
  ns_link *l = link_of(50, 3, j);
  ns_cassini_opts *o = ns_cassini_opts_new();
  double p = 0, q = 0, s = -7, sh[3] = {-7, -7, -7};
  assert_fails_with(ns_cassini_link_perimeter(l, o, &p, &q), NS_ERANGE, "perimeter");
  assert_fails_with(ns_cassini_score(l, o, &s, sh, 3), NS_ERANGE, "ns_cassini_score");
  assert_near(s, -7, 0); /* outputs untouched */
  assert_near(sh[0], -7, 0);
  /* a coarser caller quantum is honoured even above 10 %: 7, 11, 13 -> 2, 3, 3 quanta */
  assert_int_equal(ns_cassini_opts_set_time_quantum_ms(o, 4), NS_OK);
  assert_int_equal(ns_cassini_link_perimeter(l, o, &p, &q), NS_OK);
  assert_near(p, 24, 0);
  /* a quantum that rounds an iteration to 0 */
  assert_int_equal(ns_cassini_opts_set_time_quantum_ms(o, 15), NS_OK);
  assert_fails_with(ns_cassini_score(l, o, &s, sh, 3), NS_ERANGE, "rounds");
  ns_link_free(l);
  for (int i = 0; i < 3; i++)
    ns_job_free(j[i]);
  ns_cassini_opts_free(o);
}

/* ---- bad input ----------------------------------------------------------------- */

static void test_bad_input(void **state) {
  (void)state;
  ns_cassini_opts *o = ns_cassini_opts_new();
  double s = 0, sh[4];
  /* zero capacity is refused when the link is made */
  assert_null(ns_link_new("l", 0));
  assert_non_null(strstr(ns_last_error(), "capacity_gbps"));
  /* a link with no job */
  ns_link *empty = ns_link_new("empty", 50);
  assert_fails_with(ns_cassini_score(empty, o, &s, sh, 4), NS_EINVAL, "carries no jobs");
  /* phases that do not tile the iteration */
  ns_job *bad = ns_job_new("bad", 1);
  ns_job_set_iteration_ms(bad, 100);
  ns_job_add_phase(bad, 60, 10);
  ns_job *good = up_down("good", 100, 50, 10);
  ns_job *pair[2] = {good, bad};
  ns_link *l = link_of(50, 2, pair);
  assert_fails_with(ns_cassini_score(l, o, &s, sh, 2), NS_EINVAL, "off by -40 ms");
  ns_job_add_phase(bad, 40, 0);
  assert_int_equal(ns_cassini_score(l, o, &s, sh, 2), NS_OK);
  assert_fails_with(ns_cassini_score(l, o, &s, sh, 1), NS_EINVAL, "nshifts");
  assert_fails_with(ns_cassini_score(NULL, o, &s, sh, 2), NS_EINVAL, "link");
  assert_fails_with(ns_cassini_score(l, NULL, &s, sh, 2), NS_EINVAL, "o");
  assert_fails_with(ns_cassini_score(l, o, NULL, sh, 2), NS_EINVAL, "score");
  assert_fails_with(ns_cassini_score(l, o, &s, NULL, 2), NS_EINVAL, "shifts_ms");
  double nan_shift[2] = {0, NAN};
  assert_fails_with(ns_cassini_score_at(l, o, nan_shift, 2, &s), NS_EINVAL, "shifts_ms[1]");
  ns_link_free(l);
  ns_link_free(empty);
  ns_job_free(bad);
  ns_job_free(good);
  ns_cassini_opts_free(o);
}

/* A link with one job: 1.0 if it fits; else its own excess. 100 Gbps for half
   the iteration on a 50 Gbps link: excess 50 on half the circle -> 0.5. */
static void test_single_job_link(void **state) {
  (void)state;
  ns_cassini_opts *o = ns_cassini_opts_new();
  ns_job *fits = up_down("fits", 100, 50, 40), *over = up_down("over", 100, 50, 100);
  ns_link *a = link_of(50, 1, &fits), *b = link_of(50, 1, &over);
  double s = 0, sh[1] = {-1};
  assert_int_equal(ns_cassini_score(a, o, &s, sh, 1), NS_OK);
  assert_near(s, 1.0, 0);
  assert_near(sh[0], 0, 0);
  assert_int_equal(ns_cassini_score(b, o, &s, sh, 1), NS_OK);
  assert_near(s, 0.5, 1e-12);
  ns_link_free(a);
  ns_link_free(b);
  ns_job_free(fits);
  ns_job_free(over);
  ns_cassini_opts_free(o);
}

/* ---- oracle comparisons ----------------------------------------------------------- */

/* Defaults: score within 0.02 of the oracle's optimum, and the returned
   shifts score within 0.02 of it in the oracle's own evaluation. */
static void check_against_oracle(ns_job *const *jobs, size_t n, double cap) {
  ns_link *l = link_of(cap, n, jobs);
  ns_cassini_opts *o = ns_cassini_opts_new();
  double s = 0, sh[4];
  assert_int_equal(ns_cassini_score(l, o, &s, sh, n), NS_OK);
  oracle orc;
  oracle_init(&orc, jobs, n, cap);
  double best = oracle_best(&orc), mine = oracle_eval_ms(&orc, sh);
  if (fabs(s - best) > 0.02 || fabs(mine - best) > 0.02)
    fail_msg("n=%zu: score %.4f, oracle best %.4f, oracle at our shifts %.4f", n, s, best,
             mine);
  assert_true(mine <= best + 1e-12); /* the oracle is an upper bound on the grid */
  oracle_free(&orc);
  ns_link_free(l);
  ns_cassini_opts_free(o);
}

static void test_oracle_two_jobs_random(void **state) {
  (void)state;
  static const int iters[] = {20, 30, 40, 60};
  uint64_t seed = 0x2a;
  for (int trial = 0; trial < 24; trial++) {
    ns_job *j[2];
    for (int k = 0; k < 2; k++)
      j[k] = random_job(&seed, k ? "b" : "a", iters[rng_int(&seed, 0, 3)], 50);
    check_against_oracle(j, 2, 50);
    ns_job_free(j[0]);
    ns_job_free(j[1]);
  }
}

static void test_oracle_three_jobs_random(void **state) {
  (void)state;
  static const int iters[] = {10, 20};
  uint64_t seed = 0x3b;
  for (int trial = 0; trial < 6; trial++) {
    ns_job *j[3];
    for (int k = 0; k < 3; k++)
      j[k] = random_job(&seed, "x", iters[rng_int(&seed, 0, 1)], 50);
    check_against_oracle(j, 3, 50);
    for (int k = 0; k < 3; k++)
      ns_job_free(j[k]);
  }
}

/* The exact continuous-time score equals the oracle's at 0.1 ms shifts when
   phase boundaries sit on the 0.1 ms grid. */
static void test_score_at_matches_oracle(void **state) {
  (void)state;
  uint64_t seed = 0x77;
  ns_cassini_opts *o = ns_cassini_opts_new();
  for (int trial = 0; trial < 20; trial++) {
    ns_job *j[3] = {random_job(&seed, "a", 20, 50), random_job(&seed, "b", 40, 50),
                    random_job(&seed, "c", 30, 50)};
    ns_link *l = link_of(50, 3, j);
    double sh[3] = {0.1 * rng_int(&seed, 0, 199), 0.1 * rng_int(&seed, 0, 399),
                    0.1 * rng_int(&seed, 0, 299)},
           s = 0;
    oracle orc;
    oracle_init(&orc, j, 3, 50);
    assert_int_equal(ns_cassini_score_at(l, o, sh, 3, &s), NS_OK);
    assert_near(s, oracle_eval_ms(&orc, sh), 1e-9);
    oracle_free(&orc);
    ns_link_free(l);
    for (int k = 0; k < 3; k++)
      ns_job_free(j[k]);
  }
  ns_cassini_opts_free(o);
}

/* ---- real profiles (../shared/data) -------------------------------------------- */

/* Up to `max` multi-node rows (placement of >= 2 nodes) of an adaptdl
   profile as jobs: compute (step - sync) at 0 Gbps, then the all-reduce
   (sync) at 25 Gbps. Returns the count; 0 if the file is absent. */
static size_t load_profile_jobs(const char *rel, ns_job **out, size_t max) {
  const char *path = ns_test_data_path(rel);
  if (path == NULL)
    return 0;
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char line[256], placement[64];
  size_t n = 0;
  int bsz;
  double step, sync;
  while (n < max && fgets(line, sizeof line, f))
    if (sscanf(line, "%63[0-9],%d,%lf,%lf", placement, &bsz, &step, &sync) == 4 &&
        strlen(placement) >= 2 && sync > 0 && sync < step) {
      double ph[] = {(step - sync) * 1e3, 0, sync * 1e3, 25};
      out[n++] = job_of(rel, 2, ph);
    }
  fclose(f);
  return n;
}

/* Real iteration times (e.g. 287.3 vs 455.3 ms) have huge LCMs: the cap
   policy must coarsen the quantum (within 10 % of the shortest iteration)
   or say NS_ERANGE; a score is finite, <= 1, and the binned score agrees
   with the exact score at its own shifts. */
static void test_real_profiles(void **state) {
  (void)state;
  ns_job *a[24], *b[24];
  size_t na = load_profile_jobs("profiles/imagenet-placements.csv", a, 24);
  size_t nb = load_profile_jobs("profiles/bert-placements.csv", b, 24);
  if (na == 0 || nb == 0) {
    for (size_t i = 0; i < na; i++)
      ns_job_free(a[i]);
    for (size_t i = 0; i < nb; i++)
      ns_job_free(b[i]);
    skip();
  }
  ns_cassini_opts *o = ns_cassini_opts_new();
  size_t scored = 0;
  for (size_t i = 0; i < na; i++)
    for (size_t k = 0; k < nb; k += 3) {
      ns_job *pair[2] = {a[i], b[k]};
      ns_link *l = link_of(50, 2, pair);
      double p, q, s, sh[2], exact;
      int rc = ns_cassini_link_perimeter(l, o, &p, &q);
      double shortest = fmin(ns_job_iteration_ms(a[i]), ns_job_iteration_ms(b[k]));
      double longest = fmax(ns_job_iteration_ms(a[i]), ns_job_iteration_ms(b[k]));
      if (rc == NS_ERANGE) {
        assert_fails_with(ns_cassini_score(l, o, &s, sh, 2), NS_ERANGE, "perimeter");
      } else {
        assert_int_equal(rc, NS_OK);
        assert_true(q == 1.0 || q <= 0.1 * shortest);
        assert_true(p <= 16 * (longest + q / 2) + 1e-9);
        assert_int_equal(ns_cassini_score(l, o, &s, sh, 2), NS_OK);
        assert_true(isfinite(s) && s <= 1.0);
        assert_true(sh[1] >= 0 && sh[1] < ns_job_iteration_ms(b[k]));
        assert_int_equal(ns_cassini_score_at(l, o, sh, 2, &exact), NS_OK);
        assert_near(exact, s, 0.02);
        scored++;
      }
      ns_link_free(l);
    }
  assert_true(scored > 0);
  for (size_t i = 0; i < na; i++)
    ns_job_free(a[i]);
  for (size_t i = 0; i < nb; i++)
    ns_job_free(b[i]);
  ns_cassini_opts_free(o);
}

/* ---- optimizer internals ------------------------------------------------------------ */

/* Plain enumeration of every rotation vector (no pruning): the
   branch-and-bound must find the same minimum excess, and the heuristic can
   never beat it. */
static double enumerate_min_excess(const nsc_circle *c) {
  size_t rot[8] = {0}, total = 1;
  for (size_t j = 1; j < c->njobs; j++)
    total *= c->positions[j];
  double best = INFINITY, *s = malloc(c->nbins * sizeof *s);
  for (size_t x = 0; x < total; x++) {
    size_t y = x;
    for (size_t j = 1; j < c->njobs; j++) {
      rot[j] = y % c->positions[j];
      y /= c->positions[j];
    }
    memset(s, 0, c->nbins * sizeof *s);
    for (size_t j = 0; j < c->njobs; j++)
      for (size_t a = 0; a < c->nbins; a++)
        s[a] += nsc_rotated(c, j, rot[j])[a];
    double e = nsc_excess(s, c->nbins, c->capacity);
    best = e < best ? e : best;
  }
  free(s);
  return best;
}

static void test_branch_and_bound_exact(void **state) {
  (void)state;
  uint64_t seed = 0x99;
  ns_cassini_opts *o = ns_cassini_opts_new();
  ns_cassini_opts_set_angle_step_deg(o, 20); /* 18 bins: enumeration stays small */
  for (int trial = 0; trial < 30; trial++) {
    size_t n = (size_t)rng_int(&seed, 2, 5);
    ns_job *j[5];
    for (size_t k = 0; k < n; k++)
      j[k] = random_job(&seed, "r", rng_int(&seed, 0, 1) ? 40 : 20, 50);
    nsc_circle c;
    assert_int_equal(nsc_circle_build(&c, (const ns_job *const *)j, n, 50, o, "t"), NS_OK);
    size_t rot[5], rot2[5];
    double ex = 0, heur = 0;
    enum nsc_method used;
    assert_int_equal(nsc_optimize(&c, NSC_EXACT, "t", rot, &ex, &used), NS_OK);
    assert_int_equal(used, NSC_EXACT);
    assert_int_equal(rot[0], 0);
    assert_near(ex, enumerate_min_excess(&c), 1e-9);
    assert_int_equal(nsc_optimize(&c, NSC_HEURISTIC, "t", rot2, &heur, &used), NS_OK);
    assert_int_equal(used, NSC_HEURISTIC);
    assert_int_equal(rot2[0], 0);
    assert_true(heur >= ex - 1e-9);
    nsc_circle_free(&c);
    for (size_t k = 0; k < n; k++)
      ns_job_free(j[k]);
  }
  ns_cassini_opts_free(o);
}

/* Per-bin demand is the exact mean: a 10 ms Up at 50 Gbps starting at 0 on
   a 100 ms circle with 72 bins of 100/72 ms covers 7.2 bins: bins 0-6 at 50,
   bin 7 at 0.2 x 50 = 10, the rest 0. */
static void test_bin_means(void **state) {
  (void)state;
  ns_job *j = up_down("a", 100, 10, 50);
  ns_cassini_opts *o = ns_cassini_opts_new();
  nsc_circle c;
  assert_int_equal(nsc_circle_build(&c, (const ns_job *const *)&j, 1, 50, o, "t"), NS_OK);
  assert_int_equal(c.nbins, 72);
  const double *d = nsc_rotated(&c, 0, 0);
  for (int a = 0; a < 7; a++)
    assert_near(d[a], 50, 1e-9);
  assert_near(d[7], 10, 1e-9);
  assert_near(d[8], 0, 1e-12);
  assert_near(nsc_rotated(&c, 0, 3)[10], 10, 1e-9); /* rotation by 3 bins delays */
  nsc_circle_free(&c);
  ns_job_free(j);
  ns_cassini_opts_free(o);
}

/* ---- Affinity graph ----------------------------------------------------------------- */

/* Appendix A, Eq. 7-9 on j1 - l1 - j2 - l2 - j3 (Fig. 8(b)). */
static void test_appendix_a_chain(void **state) {
  (void)state;
  ns_job *j1 = up_down("j1", 100, 10, 1), *j2 = up_down("j2", 100, 10, 1),
         *j3 = up_down("j3", 80, 10, 1);
  ns_link *l1 = ns_link_new("l1", 50), *l2 = ns_link_new("l2", 50);
  double a = 30, b = 10, c = 5, d = 10; /* t_j1^l1, t_j2^l1, t_j2^l2, t_j3^l2 */
  ns_affinity *g = ns_affinity_new();
  assert_int_equal(ns_affinity_add_edge(g, j1, l1, a), NS_OK);
  assert_int_equal(ns_affinity_add_edge(g, j2, l1, b), NS_OK);
  assert_int_equal(ns_affinity_add_edge(g, j2, l2, c), NS_OK);
  assert_int_equal(ns_affinity_add_edge(g, j3, l2, d), NS_OK);
  assert_int_equal(ns_affinity_has_loop(g), 0);
  double t = -1;
  assert_fails_with(ns_affinity_shift_ms(g, j1, &t), NS_ESTATE, "not solved");
  assert_int_equal(ns_affinity_solve(g), NS_OK);
  assert_int_equal(ns_affinity_shift_ms(g, j1, &t), NS_OK);
  assert_near(t, 0, 0); /* Eq. 7: reference */
  assert_int_equal(ns_affinity_shift_ms(g, j2, &t), NS_OK);
  assert_near(t, 80, 1e-12); /* Eq. 8: (-30 + 10) mod 100 */
  assert_int_equal(ns_affinity_shift_ms(g, j3, &t), NS_OK);
  assert_near(t, 65, 1e-12); /* Eq. 9: (-30 + 10 - 5 + 10) mod 80 */
  ns_affinity_free(g);
  ns_link_free(l1);
  ns_link_free(l2);
  ns_job_free(j1);
  ns_job_free(j2);
  ns_job_free(j3);
}

/* w_e is a phase (Eq. 5): weights a whole number of iterations apart are the
   same edge, and a huge one must not swamp the others (fuzz finding). */
static void test_affinity_weights_reduced_modulo_iteration(void **state) {
  (void)state;
  ns_job *j1 = up_down("j1", 100, 10, 1), *j2 = up_down("j2", 100, 10, 1),
         *j3 = up_down("j3", 80, 10, 1);
  ns_link *l1 = ns_link_new("l1", 50), *l2 = ns_link_new("l2", 50);
  ns_affinity *g = ns_affinity_new();
  assert_int_equal(ns_affinity_add_edge(g, j1, l1, 30 + 7 * 100.0), NS_OK);
  assert_int_equal(ns_affinity_add_edge(g, j2, l1, 10 + 1e6 * 100.0), NS_OK);
  assert_int_equal(ns_affinity_add_edge(g, j2, l2, 5), NS_OK);
  assert_int_equal(ns_affinity_add_edge(g, j3, l2, 10 + 3 * 80.0), NS_OK);
  assert_int_equal(ns_affinity_solve(g), NS_OK);
  double t = -1;
  assert_int_equal(ns_affinity_shift_ms(g, j2, &t), NS_OK);
  assert_near(t, 80, 1e-9); /* as Eq. 8 with the reduced weights */
  assert_int_equal(ns_affinity_shift_ms(g, j3, &t), NS_OK);
  assert_near(t, 65, 1e-9); /* as Eq. 9 */
  ns_affinity_free(g);
  ns_link_free(l1);
  ns_link_free(l2);
  ns_job_free(j1);
  ns_job_free(j2);
  ns_job_free(j3);
}

static void test_affinity_loop_and_errors(void **state) {
  (void)state;
  ns_job *j1 = up_down("j1", 100, 10, 1), *j2 = up_down("j2", 100, 10, 1);
  ns_job *noiter = ns_job_new("noiter", 1);
  ns_link *l1 = ns_link_new("l1", 50), *l2 = ns_link_new("l2", 50);
  ns_affinity *g = ns_affinity_new();
  assert_int_equal(ns_affinity_add_edge(g, j1, l1, 0), NS_OK);
  assert_int_equal(ns_affinity_add_edge(g, j2, l1, 20), NS_OK);
  assert_fails_with(ns_affinity_add_edge(g, j2, l1, 5), NS_EINVAL, "already on link 'l1'");
  assert_fails_with(ns_affinity_add_edge(g, noiter, l1, 5), NS_EINVAL, "no iteration time");
  assert_fails_with(ns_affinity_add_edge(g, j1, l2, -1), NS_EINVAL, "shift_ms");
  assert_fails_with(ns_affinity_add_edge(g, j1, l2, NAN), NS_EINVAL, "shift_ms");
  assert_int_equal(ns_affinity_solve(g), NS_OK);
  double t = 0;
  assert_fails_with(ns_affinity_shift_ms(g, noiter, &t), NS_ENOTFOUND, "not in the graph");
  /* j1 and j2 share l1 and l2: a cycle j1 - l1 - j2 - l2 - j1 */
  assert_int_equal(ns_affinity_add_edge(g, j1, l2, 0), NS_OK);
  assert_int_equal(ns_affinity_has_loop(g), 0);
  assert_int_equal(ns_affinity_add_edge(g, j2, l2, 0), NS_OK);
  assert_int_equal(ns_affinity_has_loop(g), 1);
  assert_fails_with(ns_affinity_solve(g), NS_ELOOP, "link 'l2'");
  assert_fails_with(ns_affinity_shift_ms(g, j1, &t), NS_ESTATE, "not solved");
  ns_affinity_free(g);
  ns_affinity_free(NULL);
  ns_link_free(l1);
  ns_link_free(l2);
  ns_job_free(j1);
  ns_job_free(j2);
  ns_job_free(noiter);
}

/* Two components; each one's reference is its first-added job, even when
   that job is not the first on its link. */
static void test_affinity_components_reference(void **state) {
  (void)state;
  ns_job *a = up_down("a", 100, 10, 1), *b = up_down("b", 100, 10, 1),
         *c = up_down("c", 50, 10, 1), *d = up_down("d", 50, 10, 1);
  ns_link *l1 = ns_link_new("l1", 50), *l2 = ns_link_new("l2", 50);
  ns_affinity *g = ns_affinity_new();
  ns_affinity_add_edge(g, b, l1, 70); /* b first: the reference of {a, b} */
  ns_affinity_add_edge(g, c, l2, 5);  /* c: the reference of {c, d} */
  ns_affinity_add_edge(g, a, l1, 20);
  ns_affinity_add_edge(g, d, l2, 45);
  assert_int_equal(ns_affinity_solve(g), NS_OK);
  double t = -1;
  ns_affinity_shift_ms(g, b, &t);
  assert_near(t, 0, 0);
  ns_affinity_shift_ms(g, a, &t);
  assert_near(t, 50, 1e-12); /* (0 - 70 + 20) mod 100 */
  ns_affinity_shift_ms(g, c, &t);
  assert_near(t, 0, 0);
  ns_affinity_shift_ms(g, d, &t);
  assert_near(t, 40, 1e-12); /* (0 - 5 + 45) mod 50 */
  ns_affinity_free(g);
  ns_link_free(l1);
  ns_link_free(l2);
  ns_job_free(a);
  ns_job_free(b);
  ns_job_free(c);
  ns_job_free(d);
}

/* Theorem 1: on random loop-free graphs every link's score with the unique
   shifts equals its score with its own per-link shifts. */
#define T1_MAX_JOBS 12
#define T1_MAX_LINKS 8

static void theorem1_trial(uint64_t *seed, const ns_cassini_opts *o) {
  ns_job *jobs[T1_MAX_JOBS];
  ns_link *links[T1_MAX_LINKS];
  size_t nj = 1, nl = 0;
  jobs[0] = random_job(seed, "j", rng_int(seed, 1, 2) * 20, 50);
  /* Grow a forest: each link joins one existing job (or starts a new
     component) with 1-2 brand-new jobs, so no cycle can form. */
  while (nl < T1_MAX_LINKS && nj + 3 <= T1_MAX_JOBS) { /* anchor + 2 fresh */
    ns_link *l = links[nl++] = ns_link_new("l", 50);
    size_t fresh = (size_t)rng_int(seed, 1, 2);
    int new_comp = rng_int(seed, 0, 4) == 0;
    ns_job *anchor = new_comp ? (jobs[nj++] = random_job(seed, "j", 20, 50))
                              : jobs[rng_int(seed, 0, (int)nj - 1)];
    ns_job *on[3] = {anchor};
    for (size_t k = 0; k < fresh; k++)
      on[k + 1] = jobs[nj++] = random_job(seed, "j", rng_int(seed, 1, 2) * 20, 50);
    for (size_t k = 0, first = (size_t)rng_int(seed, 0, (int)fresh); k <= fresh; k++)
      assert_int_equal(ns_link_add_job(l, on[(first + k) % (fresh + 1)]), NS_OK);
  }
  /* per-link optimum shifts, then the graph (edges in link order) */
  double per[T1_MAX_LINKS][3], s;
  ns_affinity *g = ns_affinity_new();
  for (size_t i = 0; i < nl; i++) {
    assert_int_equal(ns_cassini_score(links[i], o, &s, per[i], 3), NS_OK);
    for (size_t k = 0; k < ns_link_job_count(links[i]); k++)
      assert_int_equal(ns_affinity_add_edge(g, ns_link_job(links[i], k), links[i], per[i][k]),
                       NS_OK);
  }
  assert_int_equal(ns_affinity_has_loop(g), 0);
  assert_int_equal(ns_affinity_solve(g), NS_OK);
  for (size_t i = 0; i < nl; i++) {
    double uniq[3], with_own = 0, with_uniq = 0;
    for (size_t k = 0; k < ns_link_job_count(links[i]); k++) {
      assert_int_equal(ns_affinity_shift_ms(g, ns_link_job(links[i], k), &uniq[k]), NS_OK);
      assert_true(uniq[k] >= 0 && uniq[k] < ns_job_iteration_ms(ns_link_job(links[i], k)));
    }
    assert_int_equal(ns_cassini_score_at(links[i], o, per[i], 3, &with_own), NS_OK);
    assert_int_equal(ns_cassini_score_at(links[i], o, uniq, 3, &with_uniq), NS_OK);
    assert_near(with_uniq, with_own, 1e-9);
  }
  ns_affinity_free(g);
  for (size_t i = 0; i < nl; i++)
    ns_link_free(links[i]);
  for (size_t k = 0; k < nj; k++)
    ns_job_free(jobs[k]);
}

static void test_theorem1_property(void **state) {
  (void)state;
  ns_cassini_opts *o = ns_cassini_opts_new();
  uint64_t seed = 0x7e1;
  for (int trial = 0; trial < 25; trial++)
    theorem1_trial(&seed, o);
  ns_cassini_opts_free(o);
}

/* ---- Algorithm 2 ---------------------------------------------------------------------- */

typedef struct rank_fixture {
  ns_job *up60[2], *up30[2], *solo;
  ns_link *l1, *l2, *l3;
  ns_cassini_opts *o;
} rank_fixture;

static void rank_setup(rank_fixture *f) {
  for (int i = 0; i < 2; i++) {
    f->up60[i] = up_down(i ? "u60b" : "u60a", 100, 60, 50);
    f->up30[i] = up_down(i ? "u30b" : "u30a", 100, 30, 50);
  }
  f->solo = up_down("solo", 100, 90, 50);
  f->l1 = ns_link_new("l1", 50);
  f->l2 = ns_link_new("l2", 50);
  f->l3 = ns_link_new("l3", 50);
  f->o = ns_cassini_opts_new();
}

static void rank_teardown(rank_fixture *f) {
  for (int i = 0; i < 2; i++) {
    ns_job_free(f->up60[i]);
    ns_job_free(f->up30[i]);
  }
  ns_job_free(f->solo);
  ns_link_free(f->l1);
  ns_link_free(f->l2);
  ns_link_free(f->l3);
  ns_cassini_opts_free(f->o);
}

/* Candidate 0 puts the two Up-60 % jobs together (120 % of Up: every bin
   covered, excess 20 %, best 0.8) and the Up-30 % jobs together (1.0); mean
   0.9. Candidate 1 pairs each Up-60 % job with an Up-30 % job on its own
   link: both 1.0, mean 1.0. Candidate 2 has a loop and would otherwise be
   perfect. */
static void test_rank_picks_best(void **state) {
  (void)state;
  rank_fixture f;
  rank_setup(&f);
  ns_candidate *c[3] = {ns_candidate_new(), ns_candidate_new(), ns_candidate_new()};
  ns_candidate_add(c[0], f.up60[0], f.l1);
  ns_candidate_add(c[0], f.up60[1], f.l1);
  ns_candidate_add(c[0], f.up30[0], f.l2);
  ns_candidate_add(c[0], f.up30[1], f.l2);
  ns_candidate_add(c[0], f.solo, f.l3); /* alone on l3: not scored */
  ns_candidate_add(c[1], f.up60[0], f.l1);
  ns_candidate_add(c[1], f.up30[0], f.l1);
  ns_candidate_add(c[1], f.up60[1], f.l2);
  ns_candidate_add(c[1], f.up30[1], f.l2);
  ns_candidate_add(c[1], f.solo, f.l3);
  ns_candidate_add(c[2], f.up30[0], f.l1);
  ns_candidate_add(c[2], f.up30[1], f.l1);
  ns_candidate_add(c[2], f.up30[0], f.l2);
  ns_candidate_add(c[2], f.up30[1], f.l2);
  size_t best = 99;
  double scores[3];
  assert_int_equal(ns_cassini_rank(c, 3, f.o, &best, scores), NS_OK);
  assert_int_equal(best, 1);
  assert_near(scores[0], 0.9, 1e-12);
  assert_near(scores[1], 1.0, 1e-12);
  assert_true(isnan(scores[2]));
  double t = -1;
  assert_int_equal(ns_candidate_shift_ms(c[1], f.solo, &t), NS_OK);
  assert_near(t, 0, 0); /* shares no link */
  assert_int_equal(ns_candidate_shift_ms(c[1], f.up60[0], &t), NS_OK);
  assert_near(t, 0, 0); /* first job of its component */
  assert_int_equal(ns_candidate_shift_ms(c[1], f.up30[0], &t), NS_OK);
  /* Job 1's Up ends 60 ms = 43.2 bins of 100/72 ms into the circle; the
     first rotation that keeps the 30 % job out of bin 43 is 44 bins. */
  assert_near(t, 44 * 100.0 / 72, 1e-9);
  assert_fails_with(ns_candidate_shift_ms(c[0], f.solo, &t), NS_ESTATE, "not the best");
  ns_job *stranger = up_down("stranger", 10, 1, 1);
  assert_fails_with(ns_candidate_shift_ms(c[1], stranger, &t), NS_ENOTFOUND, "stranger");
  ns_job_free(stranger);
  for (int i = 0; i < 3; i++)
    ns_candidate_free(c[i]);
  rank_teardown(&f);
}

static void test_rank_ties_loops_and_empty(void **state) {
  (void)state;
  rank_fixture f;
  rank_setup(&f);
  ns_candidate *c[3] = {ns_candidate_new(), ns_candidate_new(), ns_candidate_new()};
  for (int i = 0; i < 2; i++) { /* identical candidates 0 and 1 */
    ns_candidate_add(c[i], f.up60[0], f.l1);
    ns_candidate_add(c[i], f.up60[1], f.l1);
  }
  size_t best = 99;
  double scores[3];
  assert_int_equal(ns_cassini_rank(c, 2, f.o, &best, scores), NS_OK);
  assert_int_equal(best, 0);
  assert_near(scores[0], scores[1], 0);
  /* an empty candidate has no shared link: 1.0, and wins */
  assert_int_equal(ns_cassini_rank(c, 3, f.o, &best, scores), NS_OK);
  assert_int_equal(best, 2);
  assert_near(scores[2], 1.0, 0);
  /* only loops: NS_ELOOP, scores NAN, *best untouched */
  ns_candidate *loops[1] = {ns_candidate_new()};
  ns_candidate_add(loops[0], f.up30[0], f.l1);
  ns_candidate_add(loops[0], f.up30[1], f.l1);
  ns_candidate_add(loops[0], f.up30[0], f.l2);
  ns_candidate_add(loops[0], f.up30[1], f.l2);
  best = 42;
  assert_fails_with(ns_cassini_rank(loops, 1, f.o, &best, scores), NS_ELOOP, "loop");
  assert_int_equal(best, 42);
  assert_true(isnan(scores[0]));
  ns_candidate_free(loops[0]);
  for (int i = 0; i < 3; i++)
    ns_candidate_free(c[i]);
  rank_teardown(&f);
}

/* A failing candidate (phases that do not tile) fails the call and leaves
   the earlier ranking's shifts in place. */
static void test_rank_failure_leaves_state(void **state) {
  (void)state;
  rank_fixture f;
  rank_setup(&f);
  ns_candidate *c[2] = {ns_candidate_new(), ns_candidate_new()};
  ns_candidate_add(c[0], f.up60[0], f.l1);
  ns_candidate_add(c[0], f.up30[0], f.l1);
  size_t best = 99;
  assert_int_equal(ns_cassini_rank(c, 1, f.o, &best, NULL), NS_OK);
  double before = -1, after = -2;
  assert_int_equal(ns_candidate_shift_ms(c[0], f.up30[0], &before), NS_OK);
  ns_job *bad = ns_job_new("bad", 1);
  ns_job_set_iteration_ms(bad, 100);
  ns_job_add_phase(bad, 30, 5);
  ns_candidate_add(c[1], bad, f.l2);
  ns_candidate_add(c[1], f.up60[1], f.l2);
  assert_fails_with(ns_cassini_rank(c, 2, f.o, &best, NULL), NS_EINVAL, "'bad'");
  assert_int_equal(best, 0);
  /* the message raised on a worker thread reaches the caller's thread */
  ns_cassini_opts_set_threads(f.o, 4);
  assert_fails_with(ns_cassini_rank(c, 2, f.o, &best, NULL), NS_EINVAL, "off by -70 ms");
  assert_int_equal(best, 0);
  assert_int_equal(ns_candidate_shift_ms(c[0], f.up30[0], &after), NS_OK);
  assert_near(after, before, 0);
  ns_candidate *dup[2] = {c[0], c[0]};
  assert_fails_with(ns_cassini_rank(dup, 2, f.o, &best, NULL), NS_EINVAL, "repeats");
  assert_fails_with(ns_cassini_rank(c, 0, f.o, &best, NULL), NS_EINVAL, "n must be");
  ns_candidate *hole[2] = {c[0], NULL};
  assert_fails_with(ns_cassini_rank(hole, 2, f.o, &best, NULL), NS_EINVAL, "cands[1]");
  assert_fails_with(ns_candidate_add(c[0], f.up60[0], f.l1), NS_EINVAL, "already");
  ns_job_free(bad);
  ns_candidate_free(c[0]);
  ns_candidate_free(c[1]);
  ns_candidate_free(NULL);
  rank_teardown(&f);
}

/* The chosen candidate's shifts are Algorithm 1 on its per-link optima, so
   they agree with ns_affinity fed the same per-link shifts. */
static void test_rank_shifts_match_affinity(void **state) {
  (void)state;
  rank_fixture f;
  rank_setup(&f);
  ns_candidate *c = ns_candidate_new();
  ns_candidate_add(c, f.up60[0], f.l1); /* chain u60a - l1 - u30a - l2 - u30b */
  ns_candidate_add(c, f.up30[0], f.l1);
  ns_candidate_add(c, f.up30[0], f.l2);
  ns_candidate_add(c, f.up30[1], f.l2);
  size_t best;
  assert_int_equal(ns_cassini_rank(&c, 1, f.o, &best, NULL), NS_OK);
  ns_link *a = ns_link_new("a", 50), *b = ns_link_new("b", 50);
  ns_link_add_job(a, f.up60[0]);
  ns_link_add_job(a, f.up30[0]);
  ns_link_add_job(b, f.up30[0]);
  ns_link_add_job(b, f.up30[1]);
  double s, sa[2], sb[2];
  ns_cassini_score(a, f.o, &s, sa, 2);
  ns_cassini_score(b, f.o, &s, sb, 2);
  ns_affinity *g = ns_affinity_new();
  ns_affinity_add_edge(g, f.up60[0], a, sa[0]);
  ns_affinity_add_edge(g, f.up30[0], a, sa[1]);
  ns_affinity_add_edge(g, f.up30[0], b, sb[0]);
  ns_affinity_add_edge(g, f.up30[1], b, sb[1]);
  assert_int_equal(ns_affinity_solve(g), NS_OK);
  ns_job *all[3] = {f.up60[0], f.up30[0], f.up30[1]};
  for (int i = 0; i < 3; i++) {
    double x = -1, y = -2;
    assert_int_equal(ns_candidate_shift_ms(c, all[i], &x), NS_OK);
    assert_int_equal(ns_affinity_shift_ms(g, all[i], &y), NS_OK);
    assert_near(x, y, 0);
  }
  ns_affinity_free(g);
  ns_link_free(a);
  ns_link_free(b);
  ns_candidate_free(c);
  rank_teardown(&f);
}

/* Thread counts 1, 2 and 4 give bit-identical scores, best and shifts. */
#define TH_CANDS 10
#define TH_JOBS 12
#define TH_LINKS 6

static void rank_with_threads(ns_candidate **c, int threads, size_t *best, double *scores,
                              double *shifts, ns_job **jobs) {
  ns_cassini_opts *o = ns_cassini_opts_new();
  assert_int_equal(ns_cassini_opts_set_threads(o, threads), NS_OK);
  assert_int_equal(ns_cassini_rank(c, TH_CANDS, o, best, scores), NS_OK);
  for (int j = 0; j < TH_JOBS; j++)
    if (ns_candidate_shift_ms(c[*best], jobs[j], &shifts[j]) != NS_OK)
      shifts[j] = -1; /* not in the best candidate */
  ns_cassini_opts_free(o);
}

static void test_rank_threads_identical(void **state) {
  (void)state;
  uint64_t seed = 0x1234;
  ns_job *jobs[TH_JOBS];
  ns_link *links[TH_LINKS];
  ns_candidate *c[TH_CANDS];
  for (int j = 0; j < TH_JOBS; j++)
    jobs[j] = random_job(&seed, "j", rng_int(&seed, 1, 3) * 20, 50);
  for (int l = 0; l < TH_LINKS; l++)
    links[l] = ns_link_new("l", 50);
  for (int i = 0; i < TH_CANDS; i++) { /* each job on one random link: no loops */
    c[i] = ns_candidate_new();
    for (int j = 0; j < TH_JOBS; j++)
      ns_candidate_add(c[i], jobs[j], links[rng_int(&seed, 0, TH_LINKS - 1)]);
  }
  size_t b1, b2, b4, bmax;
  double s1[TH_CANDS], s2[TH_CANDS], s4[TH_CANDS], smax[TH_CANDS];
  double t1[TH_JOBS], t2[TH_JOBS], t4[TH_JOBS], tmax[TH_JOBS];
  rank_with_threads(c, 1, &b1, s1, t1, jobs);
  rank_with_threads(c, 2, &b2, s2, t2, jobs);
  rank_with_threads(c, 4, &b4, s4, t4, jobs);
  rank_with_threads(c, 256, &bmax, smax, tmax, jobs); /* more threads than work items */
  assert_int_equal(b1, b2);
  assert_int_equal(b1, b4);
  assert_int_equal(b1, bmax);
  assert_memory_equal(s1, s2, sizeof s1);
  assert_memory_equal(s1, s4, sizeof s1);
  assert_memory_equal(s1, smax, sizeof s1);
  assert_memory_equal(t1, t2, sizeof t1);
  assert_memory_equal(t1, t4, sizeof t1);
  assert_memory_equal(t1, tmax, sizeof t1);
  for (int i = 0; i < TH_CANDS; i++)
    assert_true(s1[b1] >= s1[i]);
  for (int i = 0; i < TH_CANDS; i++)
    ns_candidate_free(c[i]);
  for (int l = 0; l < TH_LINKS; l++)
    ns_link_free(links[l]);
  for (int j = 0; j < TH_JOBS; j++)
    ns_job_free(jobs[j]);
}

/* ---- candidates from the cluster, re-adjustment (issue 17) ---------------- */

/* A `gpus`-worker job: Up `up_ms` at `gbps`, then Down, `iter` ms. */
static ns_job *prof_job(const char *name, int gpus, double iter, double up_ms, double gbps) {
  ns_job *j = ns_job_new(name, gpus);
  assert_int_equal(ns_job_add_phase(j, up_ms, gbps), NS_OK);
  assert_int_equal(ns_job_add_phase(j, iter - up_ms, 0), NS_OK);
  assert_int_equal(ns_job_set_iteration_ms(j, iter), NS_OK);
  return j;
}

static ns_placement *placement_on(const int *gpus, int n) {
  ns_placement *p = ns_placement_new();
  for (int i = 0; i < n; i++)
    assert_int_equal(ns_placement_add_gpu(p, gpus[i]), NS_OK);
  return p;
}

static void commit_on(ns_cluster *c, const ns_job *j, const int *gpus, int n) {
  ns_placement *p = placement_on(gpus, n);
  assert_int_equal(ns_cluster_commit(c, j, p), NS_OK);
  ns_placement_free(p);
}

/* Builds the candidate of `job` on gpus[] from the cluster. */
static ns_candidate *cand_on(const ns_cluster *c, const ns_job *job, const int *gpus, int n) {
  ns_candidate *cd = ns_candidate_new();
  ns_placement *p = placement_on(gpus, n);
  assert_int_equal(ns_cassini_candidate_from_cluster(cd, c, job, p), NS_OK);
  ns_placement_free(p);
  return cd;
}

/* Link i of the candidate carries exactly the jobs want[0..n) (any order). */
static void assert_link_jobs(const ns_candidate *cd, size_t i, const char *name,
                             ns_job *const *want, size_t n) {
  const ns_link *l = cd->pairs.links[i];
  assert_string_equal(ns_link_name(l), name);
  assert_int_equal(ns_link_job_count(l), n);
  for (size_t k = 0; k < n; k++) {
    int found = 0;
    for (size_t m = 0; m < n; m++)
      found |= ns_link_job(l, m) == want[k];
    assert_true(found);
  }
}

/* 2 leaves x 1 spine x 2 servers x 2 GPUs, 100 Gbps: servers 0-1 (GPUs 0-3)
   under leaf 0, servers 2-3 (GPUs 4-7) under leaf 1. Ring jobs of 2 workers
   (one flow each way), 100 ms iterations, Up 60 ms at 100 Gbps.
   - A runs on GPUs {0, 4}: flows 0 -> 4 and 4 -> 0 cross the leaves (one
     spine, one link per pair: up leaf0, down leaf1, up leaf1, down leaf0).
   - B on {1, 5} uses the same four leaf-spine links and its own NIC ports
     (GPUs 1, 5): four links, each carrying {A}: one constraint, named after
     the first (the uplink of leaf 0). Its score is that of a hand-built
     100 Gbps link carrying A and B (peer: ns_cassini_score).
   - B on {1, 3} (servers 0 and 1, one leaf) and on {2, 3} (one server)
     share nothing: empty candidates, score 1.0; Algorithm 2 picks {1, 3}.
   - A job committed without a profile is left out. */
static void test_candidate_from_cluster_links(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(2, 1, 2, 2, 1, 100);
  ns_job *a = prof_job("A", 2, 100, 60, 100), *b = prof_job("B", 2, 100, 60, 100);
  ns_job *mute = ns_job_new("mute", 2); /* no phases */
  const int ga[] = {0, 4}, gm[] = {2, 6}, gb_cross[] = {1, 5}, gb_leaf[] = {1, 3},
            gb_srv[] = {2, 3};
  commit_on(c, a, ga, 2);
  ns_candidate *cross = cand_on(c, b, gb_cross, 2);
  assert_int_equal(cross->pairs.nlinks, 1);
  ns_job *ab[] = {b, a};
  assert_link_jobs(cross, 0, "up:leaf0-spine0.0", ab, 2);
  ns_candidate *leaf = cand_on(c, b, gb_leaf, 2);
  assert_int_equal(leaf->pairs.nlinks, 0);
  ns_candidate *srv = cand_on(c, b, gb_srv, 2);
  assert_int_equal(srv->pairs.nlinks, 0);

  ns_cassini_opts *o = ns_cassini_opts_new();
  ns_candidate *cands[] = {cross, leaf};
  size_t best = 9;
  double scores[2], peer = 0, sh[2];
  assert_int_equal(ns_cassini_rank(cands, 2, o, &best, scores), NS_OK);
  ns_job *jobs[] = {a, b};
  ns_link *l = link_of(100, 2, jobs);
  assert_int_equal(ns_cassini_score(l, o, &peer, sh, 2), NS_OK);
  assert_near(scores[0], peer, 1e-12);
  assert_true(peer < 1.0); /* two 60 % Up jobs at capacity cannot interleave fully */
  assert_near(scores[1], 1.0, 0);
  assert_int_equal(best, 1);

  /* a profile-less job on the same links changes nothing */
  commit_on(c, mute, gm, 2);
  ns_candidate *again = cand_on(c, b, gb_cross, 2);
  assert_int_equal(again->pairs.nlinks, 1);
  assert_link_jobs(again, 0, "up:leaf0-spine0.0", ab, 2);
  /* rebuilding replaces the old pairs (and links) */
  ns_placement *pl = placement_on(gb_leaf, 2);
  assert_int_equal(ns_cassini_candidate_from_cluster(again, c, b, pl), NS_OK);
  assert_int_equal(again->pairs.nlinks, 0);
  ns_placement_free(pl);

  ns_link_free(l);
  ns_cassini_opts_free(o);
  ns_candidate_free(cross);
  ns_candidate_free(leaf);
  ns_candidate_free(srv);
  ns_candidate_free(again);
  ns_job_free(a);
  ns_job_free(b);
  ns_job_free(mute);
  ns_cluster_free(c);
}

/* GPU-sharing mode, one leaf (no spines): A on GPUs {0, 4}, C on {2, 6}
   (1 leaf x 4 servers x 2 GPUs: GPU g on server g / 2). B on {0, 2} shares
   GPU 0's ports with A (A sends 0 -> 4 on tx0, receives 4 -> 0 on rx0; B
   sends 0 -> 2 and receives 2 -> 0 there) and GPU 2's with C: two links,
   {B, A} named nic-tx:gpu0 and {B, C} named nic-tx:gpu2. Exclusive GPUs
   elsewhere: B on {1, 3} shares no port. */
static void test_candidate_from_cluster_nic_ports(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 4, 2, 0, 100);
  assert_int_equal(ns_cluster_set_gpu_sharing(c, 1), NS_OK);
  ns_job *a = prof_job("A", 2, 100, 30, 50), *cc = prof_job("C", 2, 100, 30, 50);
  ns_job *b = prof_job("B", 2, 100, 30, 50);
  const int ga[] = {0, 4}, gc[] = {2, 6}, gb[] = {0, 2}, gb2[] = {1, 3};
  commit_on(c, a, ga, 2);
  commit_on(c, cc, gc, 2);
  ns_candidate *cd = cand_on(c, b, gb, 2);
  assert_int_equal(cd->pairs.nlinks, 2);
  ns_job *ba[] = {b, a}, *bc[] = {b, cc};
  assert_link_jobs(cd, 0, "nic-tx:gpu0", ba, 2);
  assert_link_jobs(cd, 1, "nic-tx:gpu2", bc, 2);
  ns_candidate *none = cand_on(c, b, gb2, 2);
  assert_int_equal(none->pairs.nlinks, 0);
  /* bad input leaves the candidate as it was */
  ns_placement *p = placement_on(gb, 1), *q = placement_on((const int[]){0, 99}, 2);
  assert_fails_with(ns_cassini_candidate_from_cluster(cd, c, b, p), NS_EINVAL, "workers");
  assert_fails_with(ns_cassini_candidate_from_cluster(cd, c, b, q), NS_EINVAL, "99");
  assert_fails_with(ns_cassini_candidate_from_cluster(NULL, c, b, q), NS_EINVAL, "cand");
  assert_fails_with(ns_cassini_candidate_from_cluster(cd, NULL, b, q), NS_EINVAL, "c ");
  assert_fails_with(ns_cassini_candidate_from_cluster(cd, c, NULL, q), NS_EINVAL, "job");
  assert_fails_with(ns_cassini_candidate_from_cluster(cd, c, b, NULL), NS_EINVAL, "p ");
  assert_int_equal(cd->pairs.nlinks, 2);
  ns_placement_free(p);
  ns_placement_free(q);
  ns_candidate_free(cd);
  ns_candidate_free(none);
  ns_job_free(a);
  ns_job_free(b);
  ns_job_free(cc);
  ns_cluster_free(c);
}

/* A vClos job's cross-leaf traffic stays on its reserved links: a job
   routed by ECMP across the same leaves shares nothing with it. 2 leaves x
   2 spines x 2 servers x 2 GPUs with GPUs 2 and 6 busy: A (4 GPUs) gets a
   2 x 2 virtual Clos on servers 0 and 2; B on GPUs {3, 7} crosses leaves. */
static void test_candidate_from_cluster_vclos_isolated(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(2, 2, 2, 2, 1, 100);
  const int busy[] = {2, 6}, gb[] = {3, 7};
  assert_int_equal(ns_cluster_occupy(c, busy, 2), NS_OK);
  ns_job *a = prof_job("A", 4, 100, 60, 100), *b = prof_job("B", 2, 100, 60, 100);
  ns_vclos_opts *vo = ns_vclos_opts_new();
  ns_placement *p = ns_placement_new();
  int stage = -1;
  assert_int_equal(ns_vclos_place_ex(c, a, vo, p, &stage), NS_OK);
  assert_int_equal(stage, 2);
  assert_int_equal(ns_cluster_commit(c, a, p), NS_OK);
  ns_candidate *cd = cand_on(c, b, gb, 2);
  assert_int_equal(cd->pairs.nlinks, 0);
  ns_candidate_free(cd);
  ns_placement_free(p);
  ns_vclos_opts_free(vo);
  ns_job_free(a);
  ns_job_free(b);
  ns_cluster_free(c);
}

/* The port model (core.h): 1 leaf, no spines, 2 servers x 4 GPUs, exclusive
   GPUs. A (committed) on GPUs {0, 4} sends 0 -> 4 and 4 -> 0; B asks for
   {1, 5} or {2, 6}.
   - Default (one port per GPU): B's ports are GPU 1's and 5's, A's 0's and
     4's: nothing shared.
   - One 40 Gbps port per server: A and B both use tx/rx of servers 0 and 1:
     four links carrying {A, B}, one constraint named after the smallest id,
     "nic-tx:server0.0", of 40 Gbps; its score is a hand-built 40 Gbps link's
     (ns_cassini_score), and A, committed, is the reference (shift 0).
   - Two 25 Gbps ports per server: local GPUs 0-1 on port 0, 2-3 on port 1;
     B on {1, 5} shares port 0 of both servers with A, on {2, 6} nothing.
   - 2 leaves x 1 spine x 1 link per pair, one port per server: A on {0, 8}
     and B on {1, 9} share NICs and the leaf-spine links; merged into one
     constraint at the smaller capacity (NIC 40 < link 100; NIC 400 > 100). */
static void test_candidate_from_cluster_server_nics(void **state) {
  (void)state;
  ns_job *a = prof_job("A", 2, 100, 60, 40), *b = prof_job("B", 2, 100, 60, 40);
  const int ga[] = {0, 4}, gb[] = {1, 5}, gb2[] = {2, 6};
  ns_job *ab[] = {a, b};
  ns_cluster *dflt = ns_cluster_new_leaf_spine(1, 0, 2, 4, 0, 100);
  commit_on(dflt, a, ga, 2);
  ns_candidate *cd = cand_on(dflt, b, gb, 2);
  assert_int_equal(cd->pairs.nlinks, 0);
  ns_candidate_free(cd);
  ns_cluster_free(dflt);

  ns_cluster *one = ns_cluster_new_leaf_spine(1, 0, 2, 4, 0, 100);
  assert_int_equal(ns_cluster_set_nic_ports(one, 1, 40), NS_OK);
  commit_on(one, a, ga, 2);
  /* committed: the port model is fixed; the failure changes nothing */
  assert_fails_with(ns_cluster_set_nic_ports(one, 4, 100), NS_ESTATE, "committed");
  cd = cand_on(one, b, gb, 2);
  assert_int_equal(cd->pairs.nlinks, 1);
  assert_link_jobs(cd, 0, "nic-tx:server0.0", ab, 2);
  assert_near(ns_link_capacity_gbps(cd->pairs.links[0]), 40, 0);
  assert_ptr_equal(ns_link_job(cd->pairs.links[0], 0), a); /* committed jobs first */
  ns_cassini_opts *o = ns_cassini_opts_new();
  size_t best = 9;
  double score = NAN, peer = NAN, sh[2], t = -1;
  assert_int_equal(ns_cassini_rank(&cd, 1, o, &best, &score), NS_OK);
  ns_link *l = link_of(40, 2, ab);
  assert_int_equal(ns_cassini_score(l, o, &peer, sh, 2), NS_OK);
  assert_near(score, peer, 1e-12);
  assert_true(peer < 1.0);
  assert_int_equal(ns_candidate_shift_ms(cd, a, &t), NS_OK);
  assert_near(t, 0, 0);
  ns_link_free(l);
  ns_candidate_free(cd);
  ns_cluster_free(one);

  ns_cluster *two = ns_cluster_new_leaf_spine(1, 0, 2, 4, 0, 100);
  assert_int_equal(ns_cluster_set_nic_ports(two, 2, 25), NS_OK);
  commit_on(two, a, ga, 2);
  cd = cand_on(two, b, gb, 2);
  assert_int_equal(cd->pairs.nlinks, 1);
  assert_link_jobs(cd, 0, "nic-tx:server0.0", ab, 2);
  assert_near(ns_link_capacity_gbps(cd->pairs.links[0]), 25, 0);
  ns_candidate_free(cd);
  cd = cand_on(two, b, gb2, 2);
  assert_int_equal(cd->pairs.nlinks, 0);
  ns_candidate_free(cd);
  ns_cluster_free(two);

  const double nic[] = {40, 400}, want[] = {40, 100};
  for (int i = 0; i < 2; i++) {
    ns_cluster *x = ns_cluster_new_leaf_spine(2, 1, 1, 4, 1, 100);
    assert_int_equal(ns_cluster_set_nic_ports(x, 1, nic[i]), NS_OK);
    commit_on(x, a, (const int[]){0, 4}, 2);
    cd = cand_on(x, b, (const int[]){1, 5}, 2);
    assert_int_equal(cd->pairs.nlinks, 1);
    assert_link_jobs(cd, 0, "nic-tx:server0.0", ab, 2);
    assert_near(ns_link_capacity_gbps(cd->pairs.links[0]), want[i], 0);
    ns_candidate_free(cd);
    ns_cluster_free(x);
  }

  /* bad input: status, the argument and its value named, cluster unchanged */
  ns_cluster *bad = ns_cluster_new_leaf_spine(1, 0, 2, 4, 0, 100);
  assert_fails_with(ns_cluster_set_nic_ports(NULL, 1, 10), NS_EINVAL, "c");
  assert_fails_with(ns_cluster_set_nic_ports(bad, 0, 10), NS_EINVAL, "ports_per_server");
  assert_fails_with(ns_cluster_set_nic_ports(bad, 5, 10), NS_EINVAL, "(got 5)");
  assert_fails_with(ns_cluster_set_nic_ports(bad, 1, 0), NS_EINVAL, "port_gbps");
  assert_fails_with(ns_cluster_set_nic_ports(bad, 1, -0.5), NS_EINVAL, "-0.5");
  assert_fails_with(ns_cluster_set_nic_ports(bad, 1, NAN), NS_EINVAL, "nan");
  assert_fails_with(ns_cluster_set_nic_ports(bad, 1, INFINITY), NS_EINVAL, "port_gbps");
  commit_on(bad, a, ga, 2);
  cd = cand_on(bad, b, gb, 2); /* still one port per GPU */
  assert_int_equal(cd->pairs.nlinks, 0);
  ns_candidate_free(cd);
  ns_cluster_free(bad);
  ns_cassini_opts_free(o);
  ns_job_free(a);
  ns_job_free(b);
}

/* Re-adjustment (§5.7). Worked example (1): a and b, 100 ms, Up 50 ms at
   50 Gbps on a 50 Gbps link: shifts 0 and 50. a measured at 103 ms (3 %)
   is within 5 %: nothing changes. At 120 ms (20 %) a drifted: the link is
   re-optimised with a stretched to 120 ms (Up 60 ms); the new shifts equal
   ns_cassini_score's on a hand-built link with that 120 ms job (a is the
   reference, t = 0; b gets the link's shift). With the threshold at 25 %
   the same measurement is not a drift. */
static void test_readjust_on_drift(void **state) {
  (void)state;
  ns_job *a = up_down("a", 100, 50, 50), *b = up_down("b", 100, 50, 50);
  ns_link *l = link_of(50, 0, NULL);
  ns_candidate *cd = ns_candidate_new();
  ns_cassini_opts *o = ns_cassini_opts_new();
  assert_near(ns_cassini_opts_drift_fraction(o), 0.05, 0);
  const ns_job *listed[] = {a};
  double m103[] = {103}, m120[] = {120}, t = -1;
  size_t n = 9, best = 9;
  assert_fails_with(ns_cassini_readjust(cd, o, listed, m103, 1, &n), NS_ESTATE, "shifts");
  assert_int_equal(ns_candidate_add(cd, a, l), NS_OK);
  assert_int_equal(ns_candidate_add(cd, b, l), NS_OK);
  assert_int_equal(ns_cassini_rank(&cd, 1, o, &best, NULL), NS_OK);
  assert_int_equal(ns_candidate_shift_ms(cd, b, &t), NS_OK);
  assert_near(t, 50, 1e-9);

  assert_int_equal(ns_cassini_readjust(cd, o, listed, m103, 1, &n), NS_OK);
  assert_int_equal(n, 0);
  assert_int_equal(ns_candidate_shift_ms(cd, b, &t), NS_OK);
  assert_near(t, 50, 1e-9);

  ns_job *a120 = up_down("a120", 120, 60, 50);
  ns_job *peer_jobs[] = {a120, b};
  ns_link *pl = link_of(50, 2, peer_jobs);
  double peer_score, peer_sh[2];
  assert_int_equal(ns_cassini_score(pl, o, &peer_score, peer_sh, 2), NS_OK);
  assert_int_equal(ns_cassini_readjust(cd, o, listed, m120, 1, &n), NS_OK);
  assert_int_equal(n, 1);
  assert_int_equal(ns_candidate_shift_ms(cd, a, &t), NS_OK);
  assert_near(t, 0, 0);
  assert_int_equal(ns_candidate_shift_ms(cd, b, &t), NS_OK);
  assert_near(t, fmod(peer_sh[1] - peer_sh[0] + 100, 100), 1e-9);
  assert_near(ns_job_iteration_ms(a), 100, 0); /* the job itself is not modified */

  assert_int_equal(ns_cassini_opts_set_drift_fraction(o, 0.25), NS_OK);
  assert_int_equal(ns_cassini_readjust(cd, o, listed, m120, 1, &n), NS_OK);
  assert_int_equal(n, 0);

  /* bad input */
  ns_job *stranger = up_down("x", 100, 50, 50);
  const ns_job *bad[] = {stranger}, *nul[] = {NULL};
  double nan1[] = {NAN};
  assert_fails_with(ns_cassini_readjust(cd, o, bad, m120, 1, &n), NS_ENOTFOUND, "not in");
  assert_fails_with(ns_cassini_readjust(cd, o, listed, nan1, 1, &n), NS_EINVAL,
                    "measured_iteration_ms[0]");
  assert_fails_with(ns_cassini_readjust(cd, o, nul, m120, 1, &n), NS_EINVAL, "jobs[0]");
  assert_fails_with(ns_cassini_readjust(cd, o, listed, m120, 1, NULL), NS_EINVAL, "readjusted");
  assert_fails_with(ns_cassini_readjust(NULL, o, listed, m120, 1, &n), NS_EINVAL, "cand");
  assert_fails_with(ns_cassini_opts_set_drift_fraction(o, 0), NS_EINVAL, "fraction");
  assert_fails_with(ns_cassini_opts_set_drift_fraction(o, 1), NS_EINVAL, "fraction");
  assert_fails_with(ns_cassini_opts_set_drift_fraction(o, NAN), NS_EINVAL, "fraction");
  assert_true(isnan(ns_cassini_opts_drift_fraction(NULL)));

  ns_job_free(stranger);
  ns_link_free(pl);
  ns_job_free(a120);
  ns_candidate_free(cd);
  ns_cassini_opts_free(o);
  ns_link_free(l);
  ns_job_free(a);
  ns_job_free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_opts_defaults_and_validation),
      cmocka_unit_test(test_example1_half_and_half),
      cmocka_unit_test(test_example2_vgg16),
      cmocka_unit_test(test_example3_three_jobs),
      cmocka_unit_test(test_example4_unified_circle),
      cmocka_unit_test(test_example5_always_fits),
      cmocka_unit_test(test_perimeter_coarsening),
      cmocka_unit_test(test_perimeter_over_cap),
      cmocka_unit_test(test_bad_input),
      cmocka_unit_test(test_single_job_link),
      cmocka_unit_test(test_oracle_two_jobs_random),
      cmocka_unit_test(test_oracle_three_jobs_random),
      cmocka_unit_test(test_score_at_matches_oracle),
      cmocka_unit_test(test_real_profiles),
      cmocka_unit_test(test_branch_and_bound_exact),
      cmocka_unit_test(test_bin_means),
      cmocka_unit_test(test_appendix_a_chain),
      cmocka_unit_test(test_affinity_weights_reduced_modulo_iteration),
      cmocka_unit_test(test_affinity_loop_and_errors),
      cmocka_unit_test(test_affinity_components_reference),
      cmocka_unit_test(test_theorem1_property),
      cmocka_unit_test(test_rank_picks_best),
      cmocka_unit_test(test_rank_ties_loops_and_empty),
      cmocka_unit_test(test_rank_failure_leaves_state),
      cmocka_unit_test(test_rank_shifts_match_affinity),
      cmocka_unit_test(test_rank_threads_identical),
      cmocka_unit_test(test_candidate_from_cluster_links),
      cmocka_unit_test(test_candidate_from_cluster_nic_ports),
      cmocka_unit_test(test_candidate_from_cluster_vclos_isolated),
      cmocka_unit_test(test_candidate_from_cluster_server_nics),
      cmocka_unit_test(test_readjust_on_drift),
  };
  return cmocka_run_group_tests_name("cassini", tests, NULL, NULL);
}
