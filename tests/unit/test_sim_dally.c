/*
 * tests/unit/test_sim_dally.c - Dally in the simulator (issue 15): the
 * per-job Nw_sens the network model measures (Dally §4.3.1) and Dally's
 * network-sensitive preemption (policy.c's preempt hook). Expected values
 * are derived by hand in the comments.
 *
 * Units: a ring all-reduce of N GPUs over a model of M bytes moves
 * 2 (N - 1) / N x M per GPU; at B Gbps that takes 2 (N-1)/N x M x 8 /
 * (B x 1e6) ms. Nw_sens = (done / I) / (run / (compute x I)) = compute x
 * done / run, so a lone job (the phase model's analytic case: iteration =
 * compute + its all-reduce alone) has Nw_sens = compute / (compute + comm).
 */
#include "helpers/ns_test.h"

#include <string.h>

static double nw(const ns_sim *s, int job) {
  double v = -1;
  assert_int_equal(ns_sim_job_nw_sens(s, job, &v), NS_OK);
  return v;
}

/* Nw_sens of a communication-heavy and a compute-heavy job across racks,
   and of the communication-heavy one inside one server.
   Across racks: 2 leaves x 1 server x 4 GPUs, 1 spine x 1 link, 10 Gbps
   links and NICs; both jobs take 8 GPUs = both servers, one leaf each, so
   they run one after the other, alone (Dally accepts the network tier at
   once: a job larger than a rack has both timers 0). Each flow of the
   2-server ring crosses one NIC tx, one NIC rx, one uplink and one
   downlink, each once: the all-reduce runs at 10 Gbps.
   - heavy H: compute 100 ms, M = 1e8 B: 1.75 x 8e8 / 1e7 = 140 ms;
     Nw_sens = 100 / 240 = 0.416667.
   - light L: compute 1000 ms, M = 1e6 B: 1.4 ms; Nw_sens = 1000 / 1001.4.
   Inside one server (1 leaf x 1 server x 8 GPUs, 100 Gbps intra-server
   fabric): H's all-reduce takes 14 ms: Nw_sens = 100 / 114.
   The constant priority this replaces gave every job 1. Both the phase
   model and the fluid max-min model measure the same for a lone job. */
static void test_nw_sens_measured(void **state) {
  (void)state;
  const ns_sim_network nets[2] = {NS_SIM_NET_PHASE, NS_SIM_NET_MAXMIN};
  for (int k = 0; k < 2; k++) {
    ns_sim_opts *o = ns_sim_opts_new();
    assert_int_equal(ns_sim_opts_set_policy_name(o, "dally"), NS_OK);
    assert_int_equal(ns_sim_opts_set_network(o, nets[k]), NS_OK);
    assert_int_equal(ns_sim_opts_set_cluster(o, 2, 1, 1, 4, 1, 10.0), NS_OK);
    ns_sim *s = ns_sim_new(o);
    assert_int_equal(ns_sim_add_job(s, "H", 0, 8, 10, 100.0, 100000000ull, 0), 0);
    assert_int_equal(ns_sim_add_job(s, "L", 0, 8, 10, 1000.0, 1000000ull, 0), 1);
    assert_int_equal(ns_sim_run(s), NS_OK);
    assert_near(nw(s, 0), 100.0 / 240.0, 1e-9);
    assert_near(nw(s, 1), 1000.0 / 1001.4, 1e-9);
    /* H (lower initial Nw_sens, the same tier estimate) goes first:
       10 x 240 ms, then L 10 x 1001.4 ms */
    assert_near(ns_test_jct_ms(s, 0), 2400.0, 1e-6);
    assert_near(ns_test_jct_ms(s, 1), 2400.0 + 10014.0, 1e-6);
    ns_sim_free(s);
    ns_sim_opts_free(o);
  }
  ns_sim_opts *o = ns_sim_opts_new();
  assert_int_equal(ns_sim_opts_set_policy_name(o, "dally"), NS_OK);
  assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, 1, 8, 0, 10.0), NS_OK);
  ns_sim *s = ns_sim_new(o);
  assert_int_equal(ns_sim_add_job(s, "H", 0, 8, 10, 100.0, 100000000ull, 0), 0);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(nw(s, 0), 100.0 / 114.0, 1e-9);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* The three jobs of test_preempts_less_sensitive: A (communication-heavy)
   and B (compute-heavy) at 0, C arriving at 10 s with forward ms c_fwd and
   model bytes c_bytes; each 4 GPUs. */
/* The options of the A/B/C cases: `policy` on 4 leaves x 1 server x 2
   GPUs, 10 Gbps, a 5 s restore overhead, leases of `lease_ms` (0: pass by
   pass). */
static ns_sim_opts *opts_abc(const char *policy, double lease_ms) {
  ns_sim_opts *o = ns_sim_opts_new();
  assert_non_null(o);
  assert_int_equal(ns_sim_opts_set_policy_name(o, policy), NS_OK);
  assert_int_equal(ns_sim_opts_set_cluster(o, 4, 1, 1, 2, 1, 10.0), NS_OK);
  assert_int_equal(ns_sim_opts_set_preemption_overhead(o, 5000.0), NS_OK);
  assert_int_equal(ns_sim_opts_set_dally_lease(o, lease_ms), NS_OK);
  /* C's rank below comes from the profile estimate; with the default
     reading (1.0) a new job never preempts: test_new_job_never_preempts */
  assert_int_equal(ns_sim_opts_set_dally_new_jobs(o, NS_SIM_DALLY_NEW_PROFILE), NS_OK);
  return o;
}

static ns_sim *sim_abc(const ns_sim_opts *o, double c_fwd, uint64_t c_bytes) {
  ns_sim *s = ns_sim_new(o);
  assert_non_null(s);
  assert_int_equal(ns_sim_add_job(s, "A", 0, 4, 1000, 100.0, 100000000ull, 0), 0);
  assert_int_equal(ns_sim_add_job(s, "B", 0, 4, 100, 1000.0, 1000000ull, 0), 1);
  assert_int_equal(ns_sim_add_job(s, "C", 10000, 4, 100, c_fwd, c_bytes, 0), 2);
  return s;
}

/* Runs the communication-heavy A/B/C case and checks that B, and only B,
   was suspended, once. */
static ns_sim *run_b_suspended(const ns_sim_opts *o) {
  ns_sim *s = sim_abc(o, 100.0, 200000000ull);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_int_equal(ns_sim_job_preemptions(s, 0), 0);
  assert_int_equal(ns_sim_job_preemptions(s, 1), 1);
  assert_int_equal(ns_sim_job_preemptions(s, 2), 0);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_PREEMPTIONS), 1, 0);
  return s;
}

/* Dally suspends the less network-sensitive of two running jobs.
   4 leaves x 1 server x 2 GPUs, 1 spine x 1 link, 10 Gbps; every job
   takes 4 GPUs = 2 servers in 2 racks (timers 0: larger than a rack);
   disjoint servers mean disjoint links, so every job runs alone at 10 Gbps
   and its all-reduce takes 1.5 x M x 8 / 1e7 ms.
   - A: compute 100 ms, M = 1e8 B: 120 ms; 1000 iterations of 220 ms;
     Nw_sens 100 / 220 = 0.4545.
   - B: compute 1000 ms, M = 1e6 B: 1.2 ms; 100 iterations of 1001.2 ms;
     Nw_sens 1000 / 1001.2 = 0.9988.
   Both start at 0 and fill the cluster. C arrives at 10 s: compute 100 ms,
   M = 2e8 B: its initial estimate (lone across racks) is 100 / 340 =
   0.294, below both by more than the 5 % margin. Both are victims; Dally
   takes the highest Nw_sens first: B is suspended (10 s done: 10000 /
   1001.2 iterations), C starts at once on its GPUs and runs 100 x 340 ms:
   ends at 44 s (JCT 34 s). B resumes there, restores 5 s and runs its
   remaining 100 x 1001.2 - 10000 = 90120 ms: ends at 139.12 s; its Nw_sens
   over both runs (restore excluded) is still 1000 / 1001.2. A never stops:
   220 s. Inverted (the more sensitive A suspended), A would count the
   preemption and B would end at 100.12 s.
   With a compute-heavy C (same as B: 0.9988, not below anyone by the
   margin) nothing is preempted: C waits for B to end at 100.12 s.
   dally-manual keeps the same priority and preemption. */
static void test_preempts_less_sensitive(void **state) {
  (void)state;
  const char *pol[2] = {"dally", "dally-manual"};
  for (int k = 0; k < 2; k++) {
    ns_sim_opts *o = opts_abc(pol[k], 0); /* pass by pass */
    ns_sim *s = run_b_suspended(o);
    assert_near(ns_test_jct_ms(s, 2), 34000.0, 1e-6);
    assert_near(ns_test_jct_ms(s, 1), 139120.0, 1e-6);
    assert_near(ns_test_jct_ms(s, 0), 220000.0, 1e-6);
    assert_near(nw(s, 0), 100.0 / 220.0, 1e-9);
    assert_near(nw(s, 1), 1000.0 / 1001.2, 1e-9);
    assert_near(nw(s, 2), 100.0 / 340.0, 1e-9);
    ns_sim_free(s);

    s = sim_abc(o, 1000.0, 1000000ull);
    assert_int_equal(ns_sim_run(s), NS_OK);
    assert_near(ns_test_metric(s, NS_SIM_METRIC_PREEMPTIONS), 0, 0);
    assert_near(ns_test_jct_ms(s, 2), 100120.0 - 10000.0 + 100120.0, 1e-6);
    ns_sim_free(s);

    /* preemption off: the first case's C waits for B (ends 100.12 s) and
       runs 34 s: JCT 100.12 - 10 + 34 = 124.12 s; nobody suspended */
    assert_int_equal(ns_sim_opts_set_dally_preemption(o, 0), NS_OK);
    s = sim_abc(o, 100.0, 200000000ull);
    assert_int_equal(ns_sim_run(s), NS_OK);
    assert_near(ns_test_metric(s, NS_SIM_METRIC_PREEMPTIONS), 0, 0);
    assert_near(ns_test_jct_ms(s, 2), 124120.0, 1e-6);
    assert_near(ns_test_jct_ms(s, 1), 100120.0, 1e-6);
    ns_sim_free(s);
    ns_sim_opts_free(o);
  }
}

/* The lease reading (ns_sim_opts_set_dally_lease): a waiting job takes
   GPUs only when a lease expires. sim_abc's cluster and jobs (see
   test_preempts_less_sensitive for the numbers), leases of 30 s, restore
   overhead 5 s.
   - 0 s: A (GPUs of servers 0-1) and B (servers 2-3) start, leases to 30 s.
   - 10 s: C arrives (Nw_sens 0.294, below both); no GPU is free and no
     lease has expired: C waits (the pass-by-pass reading would suspend B
     now and C would end at 44 s).
   - 30 s: both leases expire; the re-offer goes C (0.294), A (0.4545),
     B (0.9988). C is offered the free GPUs (none), then those of the
     expired jobs after it, latest first: B's 4 GPUs are enough and C
     accepts (timers 0). A's GPUs are untouched when its turn comes: it
     keeps them, lease renewed to 60 s, no suspension. B lost its GPUs:
     suspended with 30000 ms of its 100120 done. C runs 100 x 340 ms:
     ends at 64 s, JCT 54 s.
   - 60 s: A's and C's leases expire; B waits at 0.9988, after both: they
     keep their GPUs, B stays queued (nothing is free).
   - 64 s: C ends; B resumes on its 4 GPUs (timers 0), restores 5 s, runs
     its remaining 70120 ms: ends at 139.12 s. A never stops: 220 s.
   One preemption (B). Without leases (0) the same run is the pass-by-pass
   reading (C's JCT 34 s); with the preemption off C waits for B: 124.12 s.
   A lease longer than the run gives the run without preemption. */
/* Runs the A/B/C case and returns C's JCT; checks the run's preemption
   count when `preemptions` >= 0. */
static double c_jct(const ns_sim_opts *o, double c_fwd, uint64_t c_bytes, double preemptions) {
  ns_sim *s = sim_abc(o, c_fwd, c_bytes);
  assert_int_equal(ns_sim_run(s), NS_OK);
  if (preemptions >= 0)
    assert_near(ns_test_metric(s, NS_SIM_METRIC_PREEMPTIONS), preemptions, 0);
  double jct = ns_test_jct_ms(s, 2);
  ns_sim_free(s);
  return jct;
}

static void test_lease_reoffer(void **state) {
  (void)state;
  const char *pol[2] = {"dally", "dally-manual"};
  for (int k = 0; k < 2; k++) {
    ns_sim_opts *o = opts_abc(pol[k], 30000.0);
    ns_sim *s = run_b_suspended(o);
    double start = 0;
    assert_int_equal(ns_sim_job_result(s, 2, NULL, &start, NULL, NULL), NS_OK);
    assert_near(start, 30000.0, 1e-6);
    assert_near(ns_test_jct_ms(s, 2), 54000.0, 1e-6);
    assert_near(ns_test_jct_ms(s, 1), 139120.0, 1e-6);
    assert_near(ns_test_jct_ms(s, 0), 220000.0, 1e-6);
    assert_near(nw(s, 1), 1000.0 / 1001.2, 1e-9);
    ns_sim_free(s);

    /* A compute-heavy C (a never-ran job is ranked by its profile's
       estimate: 1000 / 1001.2, B's measured value): at 30 s the order is
       A, then B (tie, earlier arrival), then C; A and B keep their GPUs,
       C waits for B's end at 100.12 s and runs 100.12 s: JCT 190.24 s.
       Were a never-ran job ranked first (Nw_sens 0), C would take B's
       GPUs at 30 s. */
    assert_near(c_jct(o, 1000.0, 1000000ull, 0), 190240.0, 1e-6);

    /* no leases: the pass-by-pass reading (test_preempts_less_sensitive) */
    assert_int_equal(ns_sim_opts_set_dally_lease(o, 0), NS_OK);
    assert_near(c_jct(o, 100.0, 200000000ull, -1), 34000.0, 1e-6);

    /* a lease longer than the run: nobody is re-offered, C waits for B */
    assert_int_equal(ns_sim_opts_set_dally_lease(o, 1e9), NS_OK);
    assert_near(c_jct(o, 100.0, 200000000ull, 0), 124120.0, 1e-6);

    /* the preemption off wins over leases */
    assert_int_equal(ns_sim_opts_set_dally_lease(o, 30000.0), NS_OK);
    assert_int_equal(ns_sim_opts_set_dally_preemption(o, 0), NS_OK);
    assert_near(c_jct(o, 100.0, 200000000ull, 0), 124120.0, 1e-6);
    ns_sim_opts_free(o);
  }
}

/* ns_sim_opts_set_dally_lease's bad input: o unchanged on error. */
static void test_dally_lease_option(void **state) {
  (void)state;
  ns_sim_opts *o = ns_sim_opts_new();
  assert_int_equal(ns_sim_opts_set_dally_lease(o, -1.0), NS_EINVAL);
  assert_non_null(strstr(ns_last_error(), "lease_ms"));
  assert_int_equal(ns_sim_opts_set_dally_lease(o, 999.0), NS_EINVAL);
  assert_non_null(strstr(ns_last_error(), "999"));
  assert_int_equal(ns_sim_opts_set_dally_lease(o, NAN), NS_EINVAL);
  assert_int_equal(ns_sim_opts_set_dally_lease(o, INFINITY), NS_EINVAL);
  assert_int_equal(ns_sim_opts_set_dally_lease(NULL, 1000.0), NS_EINVAL);
  assert_int_equal(ns_sim_opts_set_dally_lease(o, 1000.0), NS_OK);
  assert_int_equal(ns_sim_opts_set_dally_lease(o, 0.0), NS_OK);
  ns_sim_opts_free(o);
}

/* ns_sim_opts_set_dally_preemption's bad input. */
static void test_dally_preemption_option(void **state) {
  (void)state;
  ns_sim_opts *o = ns_sim_opts_new();
  assert_int_equal(ns_sim_opts_set_dally_preemption(o, 2), NS_EINVAL);
  assert_non_null(strstr(ns_last_error(), "enabled"));
  assert_int_equal(ns_sim_opts_set_dally_preemption(o, -1), NS_EINVAL);
  assert_int_equal(ns_sim_opts_set_dally_preemption(NULL, 1), NS_EINVAL);
  assert_int_equal(ns_sim_opts_set_dally_preemption(o, 1), NS_OK);
  ns_sim_opts_free(o);
}

/* ns_sim_job_nw_sens's bad input: before a run, job out of range, NULL. */
static void test_nw_sens_bad_input(void **state) {
  (void)state;
  ns_sim_opts *o = ns_sim_opts_new();
  ns_sim *s = ns_sim_new(o);
  assert_int_equal(ns_sim_add_job(s, "J", 0, 1, 10, 10.0, 0, 0), 0);
  double v = 42;
  assert_int_equal(ns_sim_job_nw_sens(s, 0, &v), NS_ESTATE);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_int_equal(ns_sim_job_nw_sens(s, 1, &v), NS_EINVAL);
  assert_non_null(strstr(ns_last_error(), "job"));
  assert_int_equal(ns_sim_job_nw_sens(s, -1, &v), NS_EINVAL);
  assert_int_equal(ns_sim_job_nw_sens(s, 0, NULL), NS_EINVAL);
  assert_int_equal(ns_sim_job_nw_sens(NULL, 0, &v), NS_EINVAL);
  assert_near(v, 42, 0); /* unchanged by the failed calls */
  assert_int_equal(ns_sim_job_nw_sens(s, 0, &v), NS_OK);
  assert_near(v, 1.0, 1e-12); /* one GPU: no all-reduce, ideal */
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* The default reading of a new job's Nw_sens (1.0, the library's
   ns_dally_priority): in the communication-heavy A/B/C case C ranks after
   A (0.4545) and B (0.9988), so nobody is suspended, pass by pass or by
   leases: C waits for B's end at 100 x 1001.2 = 100.12 s, runs
   100 x 340 ms = 34 s -> finishes at 134.12 s, JCT 124.12 s; A 220 s. */
static void test_new_job_never_preempts(void **state) {
  (void)state;
  const double leases[2] = {0, 20 * 60e3};
  for (int k = 0; k < 2; k++) {
    ns_sim_opts *o = opts_abc("dally", leases[k]);
    assert_int_equal(ns_sim_opts_set_dally_new_jobs(o, NS_SIM_DALLY_NEW_ONE), NS_OK);
    ns_sim *s = sim_abc(o, 100.0, 200000000ull);
    assert_int_equal(ns_sim_run(s), NS_OK);
    assert_near(ns_test_metric(s, NS_SIM_METRIC_PREEMPTIONS), 0, 0);
    assert_near(ns_test_jct_ms(s, 2), 124120.0, 1e-6);
    assert_near(ns_test_jct_ms(s, 1), 100120.0, 1e-6);
    assert_near(ns_test_jct_ms(s, 0), 220000.0, 1e-6);
    ns_sim_free(s);
    ns_sim_opts_free(o);
  }
  ns_sim_opts *o = ns_sim_opts_new();
  assert_int_equal(ns_sim_opts_set_dally_new_jobs(o, (ns_sim_dally_new)2), NS_EINVAL);
  assert_non_null(strstr(ns_last_error(), "reading"));
  ns_sim_opts_free(o);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_nw_sens_measured),
      cmocka_unit_test(test_preempts_less_sensitive),
      cmocka_unit_test(test_nw_sens_bad_input),
      cmocka_unit_test(test_dally_preemption_option),
      cmocka_unit_test(test_lease_reoffer),
      cmocka_unit_test(test_new_job_never_preempts),
      cmocka_unit_test(test_dally_lease_option),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
