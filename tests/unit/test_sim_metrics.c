/*
 * tests/unit/test_sim_metrics.c - the papers' metrics (issue 27): time in
 * the wait queue with the waits after preemptions (Dally), machines used
 * sampled at job arrivals (Titan), per-job mean iteration time (CASSINI),
 * and the nearest-rank rule of medians and percentiles (sim.h METRICS).
 *
 * Every case uses jobs of 1 s iterations (compute 1000 ms, no model bytes:
 * no all-reduce) on the IDEAL network unless it says otherwise, so a job of
 * D iterations runs D seconds; expected values are derived in the comments.
 */
#include "helpers/ns_test.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

static ns_sim_opts *opts(const char *policy, int servers, int gpus) {
  ns_sim_opts *o = ns_sim_opts_new();
  assert_non_null(o);
  assert_int_equal(ns_sim_opts_set_policy_name(o, policy), NS_OK);
  assert_int_equal(ns_sim_opts_set_network(o, NS_SIM_NET_IDEAL), NS_OK);
  assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, servers, gpus, 0, 10.0), NS_OK);
  return o;
}

static void add(ns_sim *s, const char *name, double arrival_s, int gpus, uint64_t seconds) {
  assert_true(ns_sim_add_job(s, name, arrival_s * 1e3, gpus, seconds, 1000.0, 0, 0) >= 0);
}

static double wait_ms(const ns_sim *s, int job) {
  double w = -1;
  assert_int_equal(ns_sim_job_wait_iter(s, job, &w, NULL), NS_OK);
  return w;
}

static double iter_ms(const ns_sim *s, int job) {
  double it = -1;
  assert_int_equal(ns_sim_job_wait_iter(s, job, NULL, &it), NS_OK);
  return it;
}

/* 2D-LAS on one 4-GPU server, two queues split at 100 GPU-s, a 5 s restore
   overhead. L: 4 GPUs at 0 s, 1000 s of work; S: 4 GPUs at 100 s, 10 s
   (40 GPU-s: it stays in Q0).
   - t=0 L starts; at 25 s its 4 x 25 = 100 GPU-s demote it to Q1.
   - t=100 S arrives in Q0 ahead of L: L is suspended (100 s done) and
     rejoins the queue, S starts at once. S ends at 110.
   - t=110 L restarts, restores until 115, runs its last 900 s: ends 1015.
   Queueing delay (first start - arrival): L 0, S 0 -> avg 0, p95 0.
   Wait time: L 0 + (110 - 100) = 10 s, S 0 -> avg 5 s; p95 of 2 values is
   the ceil(0.95 x 2) = 2nd smallest: 10 s.
   Iteration time: L ran 100 + (1015 - 115) = 1000 s (the 5 s restore and
   the 10 s wait are out) over 1000 iterations = 1000 ms; S 10 s / 10 =
   1000 ms. Holding time / iterations would give L 1005 ms. */
static void test_wait_after_preemption(void **state) {
  (void)state;
  ns_sim_opts *o = opts("2d-las", 1, 4);
  double lim = 100e3;
  assert_int_equal(ns_sim_opts_set_las_queues(o, 2, &lim), NS_OK);
  assert_int_equal(ns_sim_opts_set_preemption_overhead(o, 5000.0), NS_OK);
  ns_sim *s = ns_sim_new(o);
  add(s, "L", 0, 4, 1000), add(s, "S", 100, 4, 10);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_int_equal(ns_sim_job_preemptions(s, 0), 1);
  assert_near(ns_test_jct_ms(s, 0), 1015e3, 1e-6);
  assert_near(ns_test_jct_ms(s, 1), 10e3, 1e-6);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_AVG_QUEUE_MS), 0.0, 1e-9);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_P95_QUEUE_MS), 0.0, 1e-9);
  assert_near(wait_ms(s, 0), 10e3, 1e-6);
  assert_near(wait_ms(s, 1), 0.0, 1e-9);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_AVG_WAIT_MS), 5e3, 1e-6);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_P95_WAIT_MS), 10e3, 1e-6);
  assert_near(iter_ms(s, 0), 1000.0, 1e-6);
  assert_near(iter_ms(s, 1), 1000.0, 1e-6);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_AVG_ITER_MS), 1000.0, 1e-6);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_P99_ITER_MS), 1000.0, 1e-6);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* Waits add up over preemptions: the same L (10000 s) with S at 100 s and
   S2 at 200 s (1 GPU, 10 s each; test_sim_preempt's derivation): L is
   suspended 100-110 and 200-210 and restores 110-115 and 210-215, ending at
   10030 s. Wait: L 20 s, S 0, S2 0 -> avg 20/3 s, p95 (3rd of 3) 20 s;
   queueing delay stays 0. Iteration time of L: (10030 - 20 - 10) s over
   10000 iterations = 1000 ms. */
static void test_waits_add_up(void **state) {
  (void)state;
  ns_sim_opts *o = opts("2d-las", 1, 4);
  double lim = 100e3;
  assert_int_equal(ns_sim_opts_set_las_queues(o, 2, &lim), NS_OK);
  assert_int_equal(ns_sim_opts_set_preemption_overhead(o, 5000.0), NS_OK);
  ns_sim *s = ns_sim_new(o);
  add(s, "L", 0, 4, 10000), add(s, "S", 100, 1, 10), add(s, "S2", 200, 1, 10);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_int_equal(ns_sim_job_preemptions(s, 0), 2);
  assert_near(wait_ms(s, 0), 20e3, 1e-6);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_AVG_QUEUE_MS), 0.0, 1e-9);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_AVG_WAIT_MS), 20e3 / 3, 1e-6);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_P95_WAIT_MS), 20e3, 1e-6);
  assert_near(iter_ms(s, 0), 1000.0, 1e-6);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* Dally's own preemptions (policy.c's preempt and lease hooks, the same
   suspension in engine.c): test_sim_dally's A/B/C case, whose timeline is
   derived there. 4 racks x 1 server x 2 GPUs, 10 Gbps, 5 s restore; A (220
   ms iterations, 1000) and B (1001.2 ms, 100) start at 0; C (340 ms, 100)
   arrives at 10 s; B is the victim.
   - Pass by pass: B suspended at 10 s, C starts at once and ends at 44 s,
     B restarts at 44 (restores to 49) and ends at 139.12 s. Waits: A 0,
     B 34 s, C 0 -> avg 34/3 s, p95 34 s; queueing delay all 0.
   - Leases of 30 s: C waits until 30 s, when B is suspended; C ends at 64
     s, B restarts there and ends at 139.12 s. Waits: A 0, B 34 s, C 20 s ->
     avg 18 s; queueing delay: C 20 s -> avg 20/3 s.
   Iteration times either way: A 220 ms, C 340 ms, B its 100.12 s of run
   (10 + 90.12 s, or 30 + 70.12 s; restore and waits out) / 100 = 1001.2 ms
   -> avg 520.4 ms, p99 (3rd of 3) 1001.2 ms. */
static void test_dally_waits(void **state) {
  (void)state;
  const double lease_ms[2] = {0, 30000.0}, avg_wait[2] = {34e3 / 3, 18e3},
               avg_queue[2] = {0, 20e3 / 3}, c_wait[2] = {0, 20e3};
  for (int k = 0; k < 2; k++) {
    ns_sim_opts *o = ns_sim_opts_new();
    assert_int_equal(ns_sim_opts_set_policy_name(o, "dally"), NS_OK);
    assert_int_equal(ns_sim_opts_set_cluster(o, 4, 1, 1, 2, 1, 10.0), NS_OK);
    assert_int_equal(ns_sim_opts_set_preemption_overhead(o, 5000.0), NS_OK);
    assert_int_equal(ns_sim_opts_set_dally_lease(o, lease_ms[k]), NS_OK);
    /* C preempts B through its profile estimate (test_sim_dally.c) */
    assert_int_equal(ns_sim_opts_set_dally_new_jobs(o, NS_SIM_DALLY_NEW_PROFILE), NS_OK);
    ns_sim *s = ns_sim_new(o);
    assert_int_equal(ns_sim_add_job(s, "A", 0, 4, 1000, 100.0, 100000000ull, 0), 0);
    assert_int_equal(ns_sim_add_job(s, "B", 0, 4, 100, 1000.0, 1000000ull, 0), 1);
    assert_int_equal(ns_sim_add_job(s, "C", 10000, 4, 100, 100.0, 200000000ull, 0), 2);
    assert_int_equal(ns_sim_run(s), NS_OK);
    assert_int_equal(ns_sim_job_preemptions(s, 1), 1);
    assert_near(ns_test_jct_ms(s, 1), 139120.0, 1e-6);
    assert_near(wait_ms(s, 1), 34e3, 1e-6);
    assert_near(wait_ms(s, 2), c_wait[k], 1e-6);
    assert_near(ns_test_metric(s, NS_SIM_METRIC_AVG_WAIT_MS), avg_wait[k], 1e-6);
    assert_near(ns_test_metric(s, NS_SIM_METRIC_P95_WAIT_MS), 34e3, 1e-6);
    assert_near(ns_test_metric(s, NS_SIM_METRIC_AVG_QUEUE_MS), avg_queue[k], 1e-6);
    assert_near(iter_ms(s, 1), 1001.2, 1e-6);
    assert_near(ns_test_metric(s, NS_SIM_METRIC_AVG_ITER_MS), (220 + 1001.2 + 340) / 3, 1e-6);
    assert_near(ns_test_metric(s, NS_SIM_METRIC_P99_ITER_MS), 1001.2, 1e-6);
    ns_sim_free(s);
    ns_sim_opts_free(o);
  }
}

/* Without preemption the wait is the queueing delay, and waiting is not in
   the iteration time. FIFO on one 4-GPU server: A (4 GPUs, 0 s, 10 s), B
   (4 GPUs, 2 s, 5 s) waits for A: starts at 10, ends at 15.
   Queue = wait: A 0, B 8 s -> avg 4 s, p95 8 s. Iteration time: 1000 ms
   for both (B's 8 s wait is out: JCT / iterations would be 2600 ms). */
static void test_wait_is_queue_without_preemption(void **state) {
  (void)state;
  ns_sim_opts *o = opts("ff", 1, 4);
  ns_sim *s = ns_sim_new(o);
  add(s, "A", 0, 4, 10), add(s, "B", 2, 4, 5);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(ns_test_jct_ms(s, 1), 13e3, 1e-6);
  assert_near(wait_ms(s, 1), 8e3, 1e-6);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_AVG_QUEUE_MS), 4e3, 1e-6);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_AVG_WAIT_MS), 4e3, 1e-6);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_P95_WAIT_MS), 8e3, 1e-6);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_AVG_ITER_MS), 1000.0, 1e-6);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_P99_ITER_MS), 1000.0, 1e-6);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* Three arrivals on 4 servers x 2 GPUs (first fit):
   - A (2 GPUs, 100 s) at 0: placed on server 0 -> sample 1 (taken after
     the pass that placed it; before it, 0 servers were in use).
   - B (4 GPUs, 100 s) at 10: two more servers -> sample 3.
   - C (1 GPU, 10 s) at 110, the instant B finishes (A finished at 100):
     B is gone, C placed -> sample 1.
   Mean over arrivals (1 + 3 + 1) / 3 = 5/3. The time average differs:
   servers in use 1 on [0,10), 3 on [10,100), 2 on [100,110), 1 on
   [110,120): 10 + 270 + 20 + 10 = 310 server-s over the 120 s makespan. */
static void test_machines_at_arrival(void **state) {
  (void)state;
  ns_sim_opts *o = opts("ff", 4, 2);
  ns_sim *s = ns_sim_new(o);
  add(s, "A", 0, 2, 100), add(s, "B", 10, 4, 100), add(s, "C", 110, 1, 10);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_MAKESPAN_MS), 120e3, 1e-6);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_MACHINES_AT_ARRIVAL), 5.0 / 3.0, 1e-12);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_MACHINES_USED), 310.0 / 120.0, 1e-9);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* Jobs arriving at the same instant each count once: A and B (2 GPUs each)
   at 0 on 4 servers x 2 GPUs take two servers -> two samples of 2; C at 5
   (2 GPUs) a third -> 3. Mean (2 + 2 + 3) / 3 = 7/3. */
static void test_simultaneous_arrivals(void **state) {
  (void)state;
  ns_sim_opts *o = opts("ff", 4, 2);
  ns_sim *s = ns_sim_new(o);
  add(s, "A", 0, 2, 100), add(s, "B", 0, 2, 100), add(s, "C", 5, 2, 100);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_MACHINES_AT_ARRIVAL), 7.0 / 3.0, 1e-12);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* Iteration time with communication (test_sim's two-job case): 1 leaf, 2
   servers x 2 GPUs, 10 Gbps, each 2-GPU job spread one GPU per server, 125
   MB models (100 ms all-reduce alone), 100 ms compute; A 100 iterations, B
   50, both at 0, max-min fluid network. Together: 5 Gbps each, 300 ms
   iterations; B ends at 15 s; A's last 50 alone at 200 ms: ends at 25 s.
   Per-job mean iteration time: A 25 s / 100 = 250 ms, B 15 s / 50 = 300
   ms -> avg 275 ms; p99 of 2 values (the 2nd) 300 ms. */
static void test_iteration_time_with_network(void **state) {
  (void)state;
  ns_sim_opts *o = ns_sim_opts_new();
  assert_int_equal(ns_sim_opts_set_place_fn(o, ns_test_place_spread, NULL), NS_OK);
  assert_int_equal(ns_sim_opts_set_network(o, NS_SIM_NET_MAXMIN), NS_OK);
  assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, 2, 2, 0, 10.0), NS_OK);
  ns_sim *s = ns_sim_new(o);
  assert_int_equal(ns_sim_add_job(s, "A", 0, 2, 100, 100.0, 125000000ull, 0), 0);
  assert_int_equal(ns_sim_add_job(s, "B", 0, 2, 50, 100.0, 125000000ull, 0), 1);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(iter_ms(s, 0), 250.0, 1e-6);
  assert_near(iter_ms(s, 1), 300.0, 1e-6);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_AVG_ITER_MS), 275.0, 1e-6);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_P99_ITER_MS), 300.0, 1e-6);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* Nearest rank, never interpolated: four 1-GPU jobs of 1, 2, 3 and 4 s at
   0 on one 4-GPU server. Median of the JCTs 1, 2, 3, 4 s: the ceil(0.5 x 4)
   = 2nd smallest, 2 s (interpolation would give 2.5 s); p95 and p99: the
   4th, 4 s; p99 iteration time: all are 1000 ms. */
static void test_nearest_rank(void **state) {
  (void)state;
  ns_sim_opts *o = opts("ff", 1, 4);
  ns_sim *s = ns_sim_new(o);
  add(s, "a", 0, 1, 1), add(s, "b", 0, 1, 2), add(s, "c", 0, 1, 3), add(s, "d", 0, 1, 4);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_MEDIAN_JCT_MS), 2e3, 1e-6);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_P95_JCT_MS), 4e3, 1e-6);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_P99_JCT_MS), 4e3, 1e-6);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_AVG_JCT_MS), 2.5e3, 1e-6);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

static int place_never(const ns_cluster *c, const ns_job *job, ns_placement *out, void *user) {
  (void)c, (void)job, (void)out, (void)user;
  return NS_ENOSPACE;
}

/* A job that never runs: NAN per job, metrics over no finished job 0, and
   its arrival still samples the (empty) cluster. Bad calls name the
   argument and leave the outputs as they were. */
static void test_job_wait_iter_accessor(void **state) {
  (void)state;
  ns_sim_opts *o = ns_sim_opts_new();
  assert_int_equal(ns_sim_opts_set_place_fn(o, place_never, NULL), NS_OK);
  ns_sim *s = ns_sim_new(o);
  add(s, "never", 0, 1, 1);
  double w = 7, it = 7;
  assert_fails_with(ns_sim_job_wait_iter(s, 0, &w, &it), NS_ESTATE, "ns_sim_run");
  assert_true(w == 7 && it == 7);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_fails_with(ns_sim_job_wait_iter(s, 1, &w, &it), NS_EINVAL, "job");
  assert_fails_with(ns_sim_job_wait_iter(s, -1, &w, &it), NS_EINVAL, "job");
  assert_fails_with(ns_sim_job_wait_iter(NULL, 0, &w, &it), NS_EINVAL, "s");
  assert_true(w == 7 && it == 7);
  assert_int_equal(ns_sim_job_wait_iter(s, 0, &w, &it), NS_OK);
  assert_true(isnan(w) && isnan(it));
  assert_int_equal(ns_sim_job_wait_iter(s, 0, NULL, NULL), NS_OK);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_UNFINISHED), 1, 0);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_AVG_WAIT_MS), 0, 0);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_P95_WAIT_MS), 0, 0);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_AVG_ITER_MS), 0, 0);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_MACHINES_AT_ARRIVAL), 0, 0);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* Appended names, never renumbered (the ABI). */
static void test_metric_names(void **state) {
  (void)state;
  assert_int_equal(NS_SIM_METRIC_PREEMPTIONS, 16);
  assert_string_equal(ns_sim_metric_name(NS_SIM_METRIC_PREEMPTIONS), "preemptions");
  assert_string_equal(ns_sim_metric_name(NS_SIM_METRIC_AVG_WAIT_MS), "avg_wait_ms");
  assert_string_equal(ns_sim_metric_name(NS_SIM_METRIC_P95_WAIT_MS), "p95_wait_ms");
  assert_string_equal(ns_sim_metric_name(NS_SIM_METRIC_MACHINES_AT_ARRIVAL), "machines_at_arrival");
  assert_string_equal(ns_sim_metric_name(NS_SIM_METRIC_AVG_ITER_MS), "avg_iter_ms");
  assert_string_equal(ns_sim_metric_name(NS_SIM_METRIC_P99_ITER_MS), "p99_iter_ms");
  assert_int_equal(NS_SIM_METRIC_P99_ITER_MS, NS_SIM_METRIC_COUNT - 1);
  assert_string_equal(ns_sim_metric_name(NS_SIM_METRIC_COUNT), "");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_wait_after_preemption),
      cmocka_unit_test(test_waits_add_up),
      cmocka_unit_test(test_dally_waits),
      cmocka_unit_test(test_wait_is_queue_without_preemption),
      cmocka_unit_test(test_machines_at_arrival),
      cmocka_unit_test(test_simultaneous_arrivals),
      cmocka_unit_test(test_iteration_time_with_network),
      cmocka_unit_test(test_nearest_rank),
      cmocka_unit_test(test_job_wait_iter_accessor),
      cmocka_unit_test(test_metric_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
