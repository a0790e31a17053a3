/*
 * tests/unit/test_policy_preempt.c - the policy object's preemption
 * decision (netsched/policy.h, PREEMPTION; src/policy/las.c): running jobs
 * in the queue with their attained service, suspends of running jobs
 * displaced by higher-priority waiting ones, starts placed on the GPUs the
 * suspended jobs release, the queue state kept per id across decisions,
 * and bad input refused naming the argument. Expected decisions are worked
 * by hand in the comments; the last tests replay the simulator's 2D-LAS /
 * 2D-Gittins runs through a standalone policy driven by a small event loop
 * and require the same starts, finishes and preemptions, job by job.
 */
#include "helpers/ns_test.h"
#include "helpers/ns_replay.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One server of 4 GPUs (GPUs 0-3). */
static ns_cluster *cluster4(void) {
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 1, 4, 0, 10.0);
  assert_non_null(c);
  return c;
}

static ns_job *job(const char *name, int gpus) {
  ns_job *j = ns_job_new(name, gpus);
  assert_non_null(j);
  return j;
}

static void commit_first(ns_cluster *c, ns_job *j, int first) {
  ns_placement *p = ns_placement_new();
  for (int k = 0; k < ns_job_gpus(j); k++)
    assert_int_equal(ns_placement_add_gpu(p, first + k), NS_OK);
  assert_int_equal(ns_cluster_commit(c, j, p), NS_OK);
  ns_placement_free(p);
}

/* L (4 GPUs) runs on GPUs 0-3 with `attained_gpu_s`, N (4 GPUs) arrives
   at 1000 s; the decision of `preset` at 1000 s. */
static void full_cluster_case(const char *preset, double attained_gpu_s, ns_decision *d,
                              ns_policy **pp, ns_cluster **cp, ns_queue **qp, ns_job **lj,
                              ns_job **nj) {
  *cp = cluster4();
  *lj = job("L", 4), *nj = job("N", 4);
  commit_first(*cp, *lj, 0);
  *qp = ns_queue_new();
  *pp = ns_policy_new(preset);
  assert_non_null(*pp);
  assert_int_equal(ns_queue_add_running(*qp, *lj, 1, 0.0), 0);
  assert_int_equal(ns_queue_set_attained_ms(*qp, 0, attained_gpu_s * 1e3), NS_OK);
  assert_int_equal(ns_queue_add(*qp, *nj, 2, 1000e3), 1);
  assert_int_equal(ns_policy_decide(*pp, *cp, *qp, 1000e3, d), NS_OK);
}

static void free_case(ns_policy *p, ns_cluster *c, ns_queue *q, ns_job *a, ns_job *b) {
  ns_policy_free(p);
  ns_queue_free(q);
  ns_cluster_free(c);
  ns_job_free(a), ns_job_free(b);
}

/* The end of both cases below: N finished (released, absent from the
   queue); at 1200 s L (4000 GPU-s attained, demoted at 1000 s) waits alone
   and starts, still in Q1 running: next check 1200 + floor(floor(7200 -
   1000) / 4) = 1200 + 1550 s. */
static void l_resumes_alone(ns_policy *p, ns_cluster *c, ns_queue *q, ns_job *L, ns_job *N,
                            ns_decision *d) {
  assert_int_equal(ns_cluster_release(c, N), NS_OK);
  ns_queue_clear(q);
  assert_int_equal(ns_queue_add(q, L, 1, 0.0), 0);
  assert_int_equal(ns_queue_set_attained_ms(q, 0, 4000e3), NS_OK);
  assert_int_equal(ns_policy_decide(p, c, q, 1200e3, d), NS_OK);
  assert_int_equal(ns_decision_start_count(d), 1);
  assert_int_equal(ns_decision_start_job(d, 0), 0);
  assert_near(ns_decision_next_ms(d), 2750e3, 1e-6);
}

/* 2d-las, L attained 4 GPUs x 1000 s = 4000 GPU-s >= the first threshold
   3250 GPU-s: both first seen now enter Q0 (L, then N by arrival); L runs
   and has reached the threshold, so it moves to Q1. Counting 4 GPUs: Q0 =
   [N] granted (4 left -> 0); Q1 = [L] not granted -> suspended. N is
   placed with L's GPUs released: first-fit GPUs 0-3. The cluster still
   holds L on 0-3 afterwards (decide proposes only). Next check: N runs in
   Q0 with 0 executed: now + 1 s x floor(3250 / 4) = 1000 + 812 s. */
static void test_las_suspends_long_job_for_new_one(void **state) {
  (void)state;
  ns_decision *d = ns_decision_new();
  ns_policy *p;
  ns_cluster *c;
  ns_queue *q;
  ns_job *L, *N;
  full_cluster_case("2d-las", 4000, d, &p, &c, &q, &L, &N);
  assert_int_equal(ns_decision_suspend_count(d), 1);
  assert_int_equal(ns_decision_suspend_job(d, 0), 0);
  assert_int_equal(ns_decision_suspend_job(d, 1), SIZE_MAX);
  assert_int_equal(ns_decision_start_count(d), 1);
  assert_int_equal(ns_decision_start_job(d, 0), 1);
  const ns_placement *pl = ns_decision_placement(d, 0);
  assert_int_equal(ns_placement_gpu_count(pl), 4);
  for (int g = 0; g < 4; g++)
    assert_int_equal(ns_placement_gpu(pl, (size_t)g), g);
  assert_int_equal(ns_decision_status(d, 0), NS_ENOSPACE); /* suspended */
  assert_int_equal(ns_decision_status(d, 1), NS_OK);
  assert_near(ns_decision_next_ms(d), 1812e3, 1e-6);
  assert_int_equal(ns_cluster_is_committed(c, L), 1);
  assert_int_equal(ns_cluster_is_committed(c, N), 0);
  assert_int_equal(ns_cluster_free_gpu_count(c), 0);

  /* The caller applies it: release L, commit N. 100 s later N (attained
     4 x 100 = 400 GPU-s) stays in Q0 and keeps its GPUs; L waits in Q1. */
  assert_int_equal(ns_cluster_release(c, L), NS_OK);
  assert_int_equal(ns_cluster_commit(c, N, pl), NS_OK);
  ns_queue_clear(q);
  assert_int_equal(ns_queue_add(q, L, 1, 0.0), 0);
  assert_int_equal(ns_queue_set_attained_ms(q, 0, 4000e3), NS_OK);
  assert_int_equal(ns_queue_add_running(q, N, 2, 1000e3), 1);
  assert_int_equal(ns_queue_set_attained_ms(q, 1, 400e3), NS_OK);
  assert_int_equal(ns_policy_decide(p, c, q, 1100e3, d), NS_OK);
  assert_int_equal(ns_decision_suspend_count(d), 0);
  assert_int_equal(ns_decision_start_count(d), 0);
  assert_int_equal(ns_decision_status(d, 0), NS_ENOSPACE);
  assert_int_equal(ns_decision_status(d, 1), NS_OK);
  /* N: executed 100 s, 4 GPUs: 1100 + floor(floor(3250 - 100) / 4) = 1100 + 787 s */
  assert_near(ns_decision_next_ms(d), 1887e3, 1e-6);

  /* N finished (absent from the queue: forgotten); L alone resumes on 0-3. */
  l_resumes_alone(p, c, q, L, N, d);
  ns_decision_free(d);
  free_case(p, c, q, L, N);
}


/* A decision that fails after the ranking (a running job to suspend is not
   committed) leaves the policy's records as they were, the record of a job
   absent from that queue included, although a job first seen there took
   its place. 2d-las as above: at 1000 s L (4000 GPU-s) is demoted to Q1
   and suspended, N starts. At 1100 s the queue is N running (400 GPU-s),
   M new and waiting, X new and "running" but not committed: L is absent
   (its record freed, M takes it), Q0 = [N, M, X] grants N its 4 GPUs and
   suspends X, which is refused. At 1200 s (N finished) L waits alone and
   starts, still in Q1: next check 1200 + floor(floor(7200 - 1000) / 4) =
   2750 s (from M's record, Q0, it would be 1200 + floor(2250 / 4) s). */
static void test_failed_decision_keeps_an_absent_jobs_record(void **state) {
  (void)state;
  ns_decision *d = ns_decision_new();
  ns_policy *p;
  ns_cluster *c;
  ns_queue *q;
  ns_job *L, *N, *M = job("M", 4), *X = job("X", 4);
  full_cluster_case("2d-las", 4000, d, &p, &c, &q, &L, &N);
  assert_int_equal(ns_decision_suspend_count(d), 1);
  assert_int_equal(ns_decision_start_count(d), 1);
  assert_int_equal(ns_cluster_release(c, L), NS_OK);
  assert_int_equal(ns_cluster_commit(c, N, ns_decision_placement(d, 0)), NS_OK);
  ns_queue_clear(q);
  assert_int_equal(ns_queue_add_running(q, N, 2, 1000e3), 0);
  assert_int_equal(ns_queue_set_attained_ms(q, 0, 400e3), NS_OK);
  assert_int_equal(ns_queue_add(q, M, 3, 1050e3), 1);
  assert_int_equal(ns_queue_add_running(q, X, 4, 1060e3), 2);
  assert_fails_with(ns_policy_decide(p, c, q, 1100e3, d), NS_EINVAL, "not committed");
  l_resumes_alone(p, c, q, L, N, d);
  ns_decision_free(d);
  ns_job_free(M), ns_job_free(X);
  free_case(p, c, q, L, N);
}


/* GPUs held by a job NOT in the queue (a job the caller does not let the
   policy preempt, or a down node modelled as held) are nobody's to grant.
   Two servers of 4 GPUs: O holds 4-7 outside the queue, L (4 GPUs, 4000
   GPU-s: demoted to Q1) runs on 0-3, N (4 GPUs) arrives. Grantable = 0
   free + L's 4 = 4: Q0 = [N] granted (4 -> 0), Q1 = [L] not granted ->
   suspended, N placed on L's GPUs 0-3. Counting the whole cluster (8)
   would grant both and suspend nothing, and N would find no room. */
static void test_las_grants_only_queued_gpus(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 2, 4, 0, 10.0);
  assert_non_null(c);
  ns_job *O = job("O", 4), *L = job("L", 4), *N = job("N", 4);
  commit_first(c, L, 0);
  commit_first(c, O, 4);
  ns_queue *q = ns_queue_new();
  ns_policy *p = ns_policy_new("2d-las");
  ns_decision *d = ns_decision_new();
  assert_int_equal(ns_queue_add_running(q, L, 1, 0.0), 0);
  assert_int_equal(ns_queue_set_attained_ms(q, 0, 4000e3), NS_OK);
  assert_int_equal(ns_queue_add(q, N, 2, 1000e3), 1);
  assert_int_equal(ns_policy_decide(p, c, q, 1000e3, d), NS_OK);
  assert_int_equal(ns_decision_suspend_count(d), 1);
  assert_int_equal(ns_decision_suspend_job(d, 0), 0);
  assert_int_equal(ns_decision_start_count(d), 1);
  assert_int_equal(ns_decision_start_job(d, 0), 1);
  const ns_placement *pl = ns_decision_placement(d, 0);
  assert_non_null(pl);
  assert_int_equal(ns_placement_gpu_count(pl), 4);
  for (int k = 0; k < 4; k++)
    assert_int_equal(ns_placement_gpu(pl, k), k);
  ns_decision_free(d);
  ns_policy_free(p);
  ns_queue_free(q);
  ns_cluster_free(c);
  ns_job_free(O), ns_job_free(L), ns_job_free(N);
}

/* Below the threshold (L: 4 x 500 = 2000 GPU-s < 3250): L stays in Q0
   ahead of N and keeps the 4 GPUs; N is not granted (waits). Next check:
   L's demotion, 1000 + floor(floor(3250 - 500) / 4) = 1000 + 687 s. */
static void test_las_below_threshold_keeps_running_job(void **state) {
  (void)state;
  ns_decision *d = ns_decision_new();
  ns_policy *p;
  ns_cluster *c;
  ns_queue *q;
  ns_job *L, *N;
  full_cluster_case("2d-las", 2000, d, &p, &c, &q, &L, &N);
  assert_int_equal(ns_decision_suspend_count(d), 0);
  assert_int_equal(ns_decision_start_count(d), 0);
  assert_int_equal(ns_decision_status(d, 0), NS_OK);
  assert_int_equal(ns_decision_status(d, 1), NS_ENOSPACE);
  assert_near(ns_decision_next_ms(d), 1687e3, 1e-6);
  ns_decision_free(d);
  free_case(p, c, q, L, N);
}

/* Non-preemptive presets never suspend: with L at 4000 GPU-s, "ff" and
   "cassini-ff" leave L running and N waits for lack of free GPUs. */
static void test_non_preemptive_presets_never_suspend(void **state) {
  (void)state;
  const char *presets[] = {"ff", "fifo", "srsf-ff", "tiresias", "lwf-1", "dally"};
  for (size_t k = 0; k < sizeof presets / sizeof *presets; k++) {
    ns_decision *d = ns_decision_new();
    ns_policy *p;
    ns_cluster *c;
    ns_queue *q;
    ns_job *L, *N;
    full_cluster_case(presets[k], 4000, d, &p, &c, &q, &L, &N);
    if (ns_decision_suspend_count(d) != 0 || ns_decision_start_count(d) != 0)
      fail_msg("%s: %zu suspends, %zu starts", presets[k], ns_decision_suspend_count(d),
               ns_decision_start_count(d));
    assert_int_equal(ns_decision_status(d, 0), NS_OK); /* keeps running */
    assert_int_equal(ns_decision_status(d, 1), NS_ENOSPACE);
    /* a running job is never placed */
    assert_fails_with(ns_policy_place(p, c, q, 0, 1000e3, d), NS_EINVAL, "running job");
    ns_decision_free(d);
    free_case(p, c, q, L, N);
  }
}

/* 2d-gittins with the distribution {10, 20, 40} GPU-s and a first
   threshold (delta) of 3250 GPU-s: a' = d_i - 1 for the first sample above
   a; at a' = 9 (a = 0): i = 0, a' + delta beyond the largest -> m = n - 1 =
   2, P = round(2 / 3, 5) = 0.66667, E = floor((10 + 20 + 3250 x 1) / 3) =
   1093, index = round(0.66667e6 / 1093, 4) = 609.9451; at a' = 19 (a in
   [10, 20)): i = 1, m = 2, P = 0.5, E = floor((20 + 3250) / 2) = 1635,
   index = 305.8104. Two 2-GPU jobs run on 4 GPUs, A attained 12 GPU-s
   (executed 6 s: floor(6) x 2 = 12 -> index 305.8104), B 0 GPU-s (index
   609.9451); the 4-GPU job C (0 GPU-s, 609.9451, arrived last) waits. All
   in Q0, sorted by index then arrival: B, C, A. Counting: B (2 of 4),
   C (needs 4 > 2: not granted), A (2 of 2) -> nothing changes. With C at 2
   GPUs instead: B, C granted, A suspended and C placed on A's GPUs. */
static void test_gittins_orders_by_index(void **state) {
  (void)state;
  double samples[] = {40e3, 10e3, 20e3};
  for (int cgpus = 4; cgpus >= 2; cgpus -= 2) {
    ns_cluster *c = cluster4();
    ns_job *A = job("A", 2), *B = job("B", 2), *C = job("C", cgpus);
    commit_first(c, A, 0);
    commit_first(c, B, 2);
    ns_policy *p = ns_policy_new("2d-gittins");
    assert_int_equal(ns_policy_set_gittins_samples(p, samples, 3), NS_OK);
    ns_queue *q = ns_queue_new();
    ns_decision *d = ns_decision_new();
    assert_int_equal(ns_queue_add_running(q, A, 10, 0.0), 0);
    assert_int_equal(ns_queue_set_attained_ms(q, 0, 12e3), NS_OK);
    assert_int_equal(ns_queue_add_running(q, B, 11, 1.0), 1);
    assert_int_equal(ns_queue_add(q, C, 12, 2.0), 2);
    assert_int_equal(ns_policy_decide(p, c, q, 10e3, d), NS_OK);
    if (cgpus == 4) {
      assert_int_equal(ns_decision_suspend_count(d), 0);
      assert_int_equal(ns_decision_start_count(d), 0);
    } else {
      assert_int_equal(ns_decision_suspend_count(d), 1);
      assert_int_equal(ns_decision_suspend_job(d, 0), 0);
      assert_int_equal(ns_decision_start_count(d), 1);
      assert_int_equal(ns_decision_start_job(d, 0), 2);
      assert_int_equal(ns_placement_gpu(ns_decision_placement(d, 0), 0), 0);
      assert_int_equal(ns_placement_gpu(ns_decision_placement(d, 0), 1), 1);
    }
    /* 2d-las on the same queue ranks by arrival in Q0: A, B run, C waits */
    ns_policy *l = ns_policy_new("2d-las");
    assert_int_equal(ns_policy_decide(l, c, q, 10e3, d), NS_OK);
    assert_int_equal(ns_decision_suspend_count(d), 0);
    assert_int_equal(ns_decision_start_count(d), 0);
    ns_policy_free(l);
    ns_policy_free(p);
    ns_queue_free(q);
    ns_decision_free(d);
    ns_cluster_free(c);
    ns_job_free(A), ns_job_free(B), ns_job_free(C);
  }
}

static void test_bad_input_names_the_argument(void **state) {
  (void)state;
  ns_queue *q = ns_queue_new();
  ns_job *a = job("a", 4), *b = job("b", 4);
  assert_fails_with(ns_queue_add_running(q, a, 1, NAN), NS_EINVAL, "arrival_ms nan");
  assert_fails_with(ns_queue_add_running(NULL, a, 1, 0.0), NS_EINVAL, "q");
  assert_fails_with(ns_queue_add_running(q, NULL, 1, 0.0), NS_EINVAL, "job");
  assert_int_equal(ns_queue_count(q), 0);
  assert_int_equal(ns_queue_add_running(q, a, 1, 0.0), 0);
  assert_int_equal(ns_queue_is_running(q, 0), 1);
  assert_fails_with(ns_queue_set_attained_ms(q, 0, -1.0), NS_EINVAL, "gpu_ms");
  assert_fails_with(ns_queue_set_attained_ms(q, 0, NAN), NS_EINVAL, "gpu_ms");
  assert_non_null(strstr(ns_last_error(), "nan"));
  assert_fails_with(ns_queue_set_attained_ms(q, 3, 1.0), NS_EINVAL, "i 3");
  assert_fails_with(ns_queue_set_running(q, 0, 2), NS_EINVAL, "running");
  assert_fails_with(ns_queue_is_running(q, 9), NS_EINVAL, "i 9");
  assert_int_equal(ns_queue_is_running(q, 0), 1); /* failed setters changed nothing */
  ns_policy *p = ns_policy_new("2d-las");
  double bad[] = {5.0, 4.0};
  assert_fails_with(ns_policy_set_las_queues(p, 3, bad), NS_EINVAL, "thresholds_gpu_ms[1]");
  assert_fails_with(ns_policy_set_las_queues(p, 9, bad), NS_EINVAL, "queues");
  assert_fails_with(ns_policy_set_starvation(p, -1.0), NS_EINVAL, "knob");
  double inf[] = {INFINITY};
  assert_fails_with(ns_policy_set_gittins_samples(p, inf, 1), NS_EINVAL, "gpu_time_samples[0]");
  assert_non_null(strstr(ns_last_error(), "inf"));
  assert_string_equal(ns_policy_name(p), "2d-las");
  ns_cluster *c = cluster4();
  ns_decision *d = ns_decision_new();
  /* running but not committed: refused when it is to be suspended, and the
     policy's queue state is left as it was (the next decision is as if
     the failed one never happened) */
  assert_int_equal(ns_queue_set_attained_ms(q, 0, 4000e3), NS_OK);
  assert_int_equal(ns_queue_add(q, b, 2, 1000e3), 1);
  assert_fails_with(ns_policy_decide(p, c, q, 1000e3, d), NS_EINVAL, "not committed");
  assert_int_equal(ns_decision_start_count(d), 0);
  assert_int_equal(ns_cluster_free_gpu_count(c), 4);
  /* repeated ids */
  assert_int_equal(ns_queue_add(q, b, 1, 1000e3), 2);
  assert_fails_with(ns_policy_decide(p, c, q, 1000e3, d), NS_EINVAL, "ids must be distinct");
  assert_int_equal(ns_queue_truncate(q, 2), NS_OK);
  commit_first(c, a, 0);
  assert_int_equal(ns_policy_decide(p, c, q, 1000e3, d), NS_OK);
  assert_int_equal(ns_decision_suspend_count(d), 1); /* as in the first test */
  assert_int_equal(ns_decision_start_count(d), 1);
  assert_near(ns_decision_next_ms(d), 1812e3, 1e-6);
  assert_int_equal(ns_decision_suspend_count(NULL), 0);
  assert_int_equal(ns_decision_suspend_job(NULL, 0), SIZE_MAX);
  /* options are fixed after the first decision */
  assert_fails_with(ns_policy_set_starvation(p, 1.0), NS_ESTATE, "already decided");
  ns_decision_free(d);
  ns_cluster_free(c);
  ns_policy_free(p);
  ns_queue_free(q);
  ns_job_free(a), ns_job_free(b);
}

/* ---- replay of the simulator ------------------------------------------- */

/* 8 GPUs (2 servers of 4), thresholds 60 and 200 GPU-s, a mix of long and
   short jobs so that demotions, suspensions and resumptions happen.
   Arrivals avoid coinciding with finishes. */
static const ns_replay_spec WL[] = {
    {"long8", 0.5, 8, 400}, {"a2", 3.25, 2, 30},   {"b4", 7.125, 4, 90},  {"c1", 11.3, 1, 200},
    {"d8", 40.7, 8, 25},    {"e2", 55.1, 2, 160},  {"f4", 61.9, 4, 45},   {"g1", 90.45, 1, 15},
    {"h2", 130.2, 2, 70},   {"i4", 150.35, 4, 300}, {"j1", 171.6, 1, 5},   {"k8", 230.15, 8, 12},
};
#define NWL (sizeof WL / sizeof WL[0])

/* mode 0: the queue lists jobs in index order, ids = indices. mode 1: the
   same jobs, each decision's queue in another order (rotated by the
   decision's number, reversed every other one), job 0's id UINT64_MAX
   (the one id the policy cannot keep in its map), and before each decision
   a failed one (the queue with the first job's id repeated at its end: the
   policy has matched, created and dropped records by then and must undo
   it all). The policy's decisions do not depend on the queue's order and
   a failed decision changes nothing, so both modes must equal the
   simulator. r->user points at the mode. */
static uint64_t replay_id(int mode, size_t i) { return mode == 1 && i == 0 ? UINT64_MAX : i; }

static size_t fill_las(ns_replay *r, ns_queue *q, size_t *ids, int step, double now) {
  (void)now;
  int mode = *(const int *)r->user;
  size_t n = 0, order[NWL];
  for (size_t i = 0; i < r->n; i++)
    if (r->J[i].state == 1 || r->J[i].state == 2)
      order[n++] = i;
  for (size_t k = 0; mode == 1 && n > 0 && k < (size_t)step % n; k++) { /* rotate */
    size_t first = order[0];
    memmove(order, order + 1, (n - 1) * sizeof *order);
    order[n - 1] = first;
  }
  for (size_t a = 0; mode == 1 && step % 2 == 1 && a < n / 2; a++) { /* reverse */
    size_t t = order[a];
    order[a] = order[n - 1 - a], order[n - 1 - a] = t;
  }
  for (size_t k = 0; k < n; k++) {
    const ns_replay_job *x = &r->J[order[k]];
    int at = x->state == 2 ? ns_queue_add_running(q, x->job, replay_id(mode, order[k]), x->arrival)
                           : ns_queue_add(q, x->job, replay_id(mode, order[k]), x->arrival);
    assert_int_equal(at, (int)k);
    assert_int_equal(ns_queue_set_attained_ms(q, k, x->served * x->gpus), NS_OK);
    ids[k] = order[k];
  }
  return n;
}

/* mode 1: the failed decision before each real one (queue index 0's job
   again, its id repeated at the end), then the queue as it was. */
static void fail_first(ns_replay *r, ns_policy *p, ns_cluster *c, ns_queue *q, ns_decision *d,
                       size_t n, const size_t *ids, double now) {
  int mode = *(const int *)r->user;
  if (mode != 1 || n == 0)
    return;
  assert_int_equal(ns_queue_add(q, r->J[ids[0]].job, replay_id(mode, ids[0]), now), (int)n);
  assert_fails_with(ns_policy_decide(p, c, q, now, d), NS_EINVAL, "ids must be distinct");
  assert_int_equal(ns_queue_truncate(q, n), NS_OK);
}

static void replay(const char *preset, int mode) {
  double limits[2] = {60e3, 200e3};
  /* the simulator */
  ns_sim_opts *o = ns_sim_opts_new();
  assert_int_equal(ns_sim_opts_set_policy_name(o, preset), NS_OK);
  assert_int_equal(ns_sim_opts_set_network(o, NS_SIM_NET_IDEAL), NS_OK);
  assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, 2, 4, 0, 10.0), NS_OK);
  assert_int_equal(ns_sim_opts_set_las_queues(o, 3, limits), NS_OK);
  ns_sim *s = ns_replay_sim(o, WL, NWL);

  /* the policy, driven by the replay's event loop of the same model */
  ns_policy *p = ns_policy_new(preset);
  assert_int_equal(ns_policy_set_las_queues(p, 3, limits), NS_OK);
  double samples[NWL]; /* the simulator's default distribution: GPUs x lone run */
  for (size_t i = 0; i < NWL; i++)
    samples[i] = WL[i].gpus * WL[i].seconds * 1e3;
  assert_int_equal(ns_policy_set_gittins_samples(p, samples, NWL), NS_OK);
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 2, 4, 0, 10.0);
  ns_replay_job J[NWL];
  ns_replay r = {0};
  ns_replay_init(&r, J, WL, NWL);
  r.fill = fill_las, r.before = fail_first, r.user = &mode;
  ns_replay_run(&r, p, c, s, preset);
  assert_true(r.preempted > 0); /* the scenario exercises preemption */
  ns_replay_free(&r);
  ns_cluster_free(c);
  ns_policy_free(p);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

static void test_replay_equals_simulator_2d_las(void **state) {
  (void)state;
  replay("2d-las", 0);
}

static void test_replay_equals_simulator_2d_gittins(void **state) {
  (void)state;
  replay("2d-gittins", 0);
}

static void test_replay_any_queue_order_and_failed_decisions(void **state) {
  (void)state;
  replay("2d-las", 1);
  replay("2d-gittins", 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_las_suspends_long_job_for_new_one),
      cmocka_unit_test(test_las_below_threshold_keeps_running_job),
      cmocka_unit_test(test_failed_decision_keeps_an_absent_jobs_record),
      cmocka_unit_test(test_las_grants_only_queued_gpus),
      cmocka_unit_test(test_non_preemptive_presets_never_suspend),
      cmocka_unit_test(test_gittins_orders_by_index),
      cmocka_unit_test(test_bad_input_names_the_argument),
      cmocka_unit_test(test_replay_equals_simulator_2d_las),
      cmocka_unit_test(test_replay_equals_simulator_2d_gittins),
      cmocka_unit_test(test_replay_any_queue_order_and_failed_decisions),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
