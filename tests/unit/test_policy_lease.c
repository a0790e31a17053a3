/*
 * tests/unit/test_policy_lease.c - Dally's lease reading behind the policy
 * object (netsched/policy.h, LEASES; src/policy/lease.c and policy.c's
 * decide_nw_sens): leases granted per id, an expired job renewed when no
 * one before it in increasing Nw_sens takes its GPUs, suspended when a
 * waiting job with a lower Nw_sens does, ns_decision_next_ms at the
 * earliest lease end, and bad input refused naming the argument. Expected
 * decisions are worked by hand in the comments (first-fit placement, so
 * that the placements are plain: the lease rule does not depend on it; the
 * replay uses the same). The last test replays a simulator run with leases
 * through a standalone policy driven by a small event loop and requires
 * the same starts, finishes and preemptions, job by job.
 */
#include "helpers/ns_test.h"
#include "helpers/ns_replay.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static ns_job *job(const char *name, int gpus) {
  ns_job *j = ns_job_new(name, gpus);
  assert_non_null(j);
  return j;
}

static void commit_at(ns_cluster *c, ns_job *j, int first) {
  ns_placement *p = ns_placement_new();
  for (int k = 0; k < ns_job_gpus(j); k++)
    assert_int_equal(ns_placement_add_gpu(p, first + k), NS_OK);
  assert_int_equal(ns_cluster_commit(c, j, p), NS_OK);
  ns_placement_free(p);
}

/* Measured-Nw_sens order, first-fit, leases of 60 s. */
static ns_policy *lease_policy(void) {
  ns_policy *p = ns_policy_new("ff");
  assert_non_null(p);
  assert_int_equal(ns_policy_set_order(p, NS_POLICY_ORDER_NW_SENS), NS_OK);
  assert_int_equal(ns_policy_set_dally_lease(p, 60e3), NS_OK);
  return p;
}

/* One server of 4 GPUs. R (4 GPUs, id 1) runs on 0-3; first seen at t = 0
   it gets a lease [0, 60 s): next_ms 60 s. At 60 s its lease ended; R
   measured Nw_sens 0.5, W (4 GPUs, id 2) waits with none measured (1.0).
   Increasing Nw_sens: R (0.5), W (1.0). No one before R took its GPUs: R
   is renewed, [60, 120 s); W, after the last expired job with no GPU free,
   is not offered (NS_ENOTFOUND). Nothing to suspend or start; next_ms is
   R's new lease end, 120 s. */
static void test_expired_lease_nobody_takes_is_renewed(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 1, 4, 0, 10.0);
  ns_job *R = job("R", 4), *W = job("W", 4);
  commit_at(c, R, 0);
  ns_policy *p = lease_policy();
  ns_queue *q = ns_queue_new();
  ns_decision *d = ns_decision_new();
  double from = -1, end = -1;
  assert_int_equal(ns_policy_lease_ms(p, 1, &from, &end), NS_ENOTFOUND); /* no decision yet */
  assert_int_equal(ns_queue_add_running(q, R, 1, 0.0), 0);
  assert_int_equal(ns_policy_decide(p, c, q, 0.0, d), NS_OK);
  assert_int_equal(ns_decision_renew_count(d), 0);
  assert_int_equal(ns_decision_status(d, 0), NS_OK);
  assert_near(ns_decision_next_ms(d), 60e3, 1e-9);
  assert_int_equal(ns_policy_lease_ms(p, 1, &from, &end), NS_OK);
  assert_near(from, 0.0, 1e-9);
  assert_near(end, 60e3, 1e-9);

  ns_queue_clear(q);
  assert_int_equal(ns_queue_add_running(q, R, 1, 0.0), 0);
  assert_int_equal(ns_queue_set_nw_sens(q, 0, 0.5), NS_OK);
  assert_int_equal(ns_queue_add(q, W, 2, 10e3), 1);
  assert_int_equal(ns_policy_decide(p, c, q, 60e3, d), NS_OK);
  assert_int_equal(ns_decision_renew_count(d), 1);
  assert_int_equal(ns_decision_renew_job(d, 0), 0);
  assert_int_equal(ns_decision_renew_job(d, 1), SIZE_MAX);
  assert_int_equal(ns_decision_suspend_count(d), 0);
  assert_int_equal(ns_decision_start_count(d), 0);
  assert_int_equal(ns_decision_status(d, 0), NS_OK);
  assert_int_equal(ns_decision_status(d, 1), NS_ENOTFOUND);
  assert_near(ns_decision_next_ms(d), 120e3, 1e-9);
  assert_int_equal(ns_policy_lease_ms(p, 1, &from, &end), NS_OK);
  assert_near(from, 60e3, 1e-9);
  assert_near(end, 120e3, 1e-9);
  assert_int_equal(ns_policy_lease_ms(p, 2, NULL, NULL), NS_ENOTFOUND); /* W waits */
  ns_decision_free(d);
  ns_queue_free(q);
  ns_policy_free(p);
  ns_cluster_free(c);
  ns_job_free(R), ns_job_free(W);
}

/* Two servers of 4 GPUs (0-3, 4-7). O holds 6-7 outside the queue; R1 (2
   GPUs, id 1) runs on 0-1, R2 (2 GPUs, id 2) on 2-3, both first seen at 0
   (leases end at 60 s); GPUs 4-5 are free. At 60 s: R1 measured 0.9, R2
   0.95, W (4 GPUs, id 3, a job suspended before: 0.5) waits. Order: W
   (0.5), R1 (0.9), R2 (0.95). W: 2 free < 4; free 2 + expired after it 4
   >= 4, so the latest expired job, R2, is taken: 4 free (2-5), first-fit
   places W on 2, 3, 4, 5 - accepted. R1: no one before it took its GPUs:
   renewed. R2 lost its GPUs: suspended, offered what is free: none (0 <
   2). Decision: renew [R1], suspend [R2], start [W on 2-5]; the cluster is
   left exactly as it was. next_ms: R1's and W's new leases both end at 120
   s (R2 holds none). */
static void test_expired_lease_taken_by_lower_nw_sens_is_suspended(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 2, 4, 0, 10.0);
  ns_job *O = job("O", 2), *R1 = job("R1", 2), *R2 = job("R2", 2), *W = job("W", 4);
  commit_at(c, R1, 0);
  commit_at(c, R2, 2);
  commit_at(c, O, 6);
  ns_policy *p = lease_policy();
  ns_queue *q = ns_queue_new();
  ns_decision *d = ns_decision_new();
  assert_int_equal(ns_queue_add_running(q, R1, 1, 0.0), 0);
  assert_int_equal(ns_queue_add_running(q, R2, 2, 0.0), 1);
  assert_int_equal(ns_policy_decide(p, c, q, 0.0, d), NS_OK);
  assert_near(ns_decision_next_ms(d), 60e3, 1e-9);

  ns_queue_clear(q);
  assert_int_equal(ns_queue_add_running(q, R1, 1, 0.0), 0);
  assert_int_equal(ns_queue_set_nw_sens(q, 0, 0.9), NS_OK);
  assert_int_equal(ns_queue_add_running(q, R2, 2, 0.0), 1);
  assert_int_equal(ns_queue_set_nw_sens(q, 1, 0.95), NS_OK);
  assert_int_equal(ns_queue_add(q, W, 3, 5e3), 2);
  assert_int_equal(ns_queue_set_nw_sens(q, 2, 0.5), NS_OK);
  assert_int_equal(ns_policy_decide(p, c, q, 60e3, d), NS_OK);
  assert_int_equal(ns_decision_renew_count(d), 1);
  assert_int_equal(ns_decision_renew_job(d, 0), 0);
  assert_int_equal(ns_decision_suspend_count(d), 1);
  assert_int_equal(ns_decision_suspend_job(d, 0), 1);
  assert_int_equal(ns_decision_start_count(d), 1);
  assert_int_equal(ns_decision_start_job(d, 0), 2);
  const ns_placement *pl = ns_decision_placement(d, 0);
  assert_int_equal(ns_placement_gpu_count(pl), 4);
  for (int g = 0; g < 4; g++)
    assert_int_equal(ns_placement_gpu(pl, (size_t)g), 2 + g);
  assert_int_equal(ns_decision_status(d, 0), NS_OK);
  assert_int_equal(ns_decision_status(d, 1), NS_ENOSPACE);
  assert_int_equal(ns_decision_status(d, 2), NS_OK);
  assert_near(ns_decision_next_ms(d), 120e3, 1e-9);
  /* decide proposes only: R2 still on 2-3, W not committed, 4-5 free */
  assert_int_equal(ns_cluster_is_committed(c, R2), 1);
  assert_int_equal(ns_cluster_is_committed(c, W), 0);
  assert_int_equal(ns_cluster_free_gpu_count(c), 2);
  assert_int_equal(ns_cluster_gpu_is_free(c, 4), 1);
  double from = 0, end = 0;
  assert_int_equal(ns_policy_lease_ms(p, 2, &from, &end), NS_ENOTFOUND); /* suspended */
  assert_int_equal(ns_policy_lease_ms(p, 3, &from, &end), NS_OK);        /* started */
  assert_near(from, 60e3, 1e-9);
  assert_near(end, 120e3, 1e-9);
  ns_decision_free(d);
  ns_queue_free(q);
  ns_policy_free(p);
  ns_cluster_free(c);
  ns_job_free(O), ns_job_free(R1), ns_job_free(R2), ns_job_free(W);
}

/* next_ms is the earliest lease end. One server of 4 GPUs: A (2 GPUs, id
   1) runs on 0-1, first seen at 0: lease [0, 60 s). At 10 s B (2 GPUs, id
   2) waits: placed on 2-3, a lease [10, 70 s) once started: next_ms =
   min(60, 70) = 60 s. At 20 s A has finished (absent): its lease end still
   wakes (60 s), B's is 70 s: next_ms 60 s. At 60 s nothing expired (A
   left): next_ms 70 s. At 70 s B's lease ended, no one waits: renewed to
   130 s. */
static void test_next_wakeup_is_the_earliest_lease_end(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 1, 4, 0, 10.0);
  ns_job *A = job("A", 2), *B = job("B", 2);
  commit_at(c, A, 0);
  ns_policy *p = lease_policy();
  ns_queue *q = ns_queue_new();
  ns_decision *d = ns_decision_new();
  assert_int_equal(ns_queue_add_running(q, A, 1, 0.0), 0);
  assert_int_equal(ns_policy_decide(p, c, q, 0.0, d), NS_OK);
  assert_near(ns_decision_next_ms(d), 60e3, 1e-9);
  assert_int_equal(ns_queue_add(q, B, 2, 10e3), 1);
  assert_int_equal(ns_policy_decide(p, c, q, 10e3, d), NS_OK);
  assert_int_equal(ns_decision_start_count(d), 1);
  assert_int_equal(ns_decision_start_job(d, 0), 1);
  assert_near(ns_decision_next_ms(d), 60e3, 1e-9);
  assert_int_equal(ns_cluster_commit(c, B, ns_decision_placement(d, 0)), NS_OK);
  assert_int_equal(ns_cluster_release(c, A), NS_OK);
  ns_queue_clear(q);
  assert_int_equal(ns_queue_add_running(q, B, 2, 10e3), 0);
  assert_int_equal(ns_policy_decide(p, c, q, 20e3, d), NS_OK);
  assert_near(ns_decision_next_ms(d), 60e3, 1e-9);
  assert_int_equal(ns_policy_lease_ms(p, 1, NULL, NULL), NS_ENOTFOUND); /* A left */
  assert_int_equal(ns_policy_decide(p, c, q, 60e3, d), NS_OK);
  assert_int_equal(ns_decision_renew_count(d), 0);
  assert_near(ns_decision_next_ms(d), 70e3, 1e-9);
  assert_int_equal(ns_policy_decide(p, c, q, 70e3, d), NS_OK);
  assert_int_equal(ns_decision_renew_count(d), 1);
  assert_near(ns_decision_next_ms(d), 130e3, 1e-9);
  ns_decision_free(d);
  ns_queue_free(q);
  ns_policy_free(p);
  ns_cluster_free(c);
  ns_job_free(A), ns_job_free(B);
}

/* Leases off (lease 0) or another order: running jobs keep their GPUs for
   ever, no lease is held, nothing renewed. */
static void test_no_leases_without_lease_or_order(void **state) {
  (void)state;
  const char *presets[] = {"dally", "ff"};
  for (int k = 0; k < 2; k++) {
    ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 1, 4, 0, 10.0);
    ns_job *R = job("R", 4), *W = job("W", 4);
    commit_at(c, R, 0);
    ns_policy *p = ns_policy_new(presets[k]);
    if (k == 0)
      assert_int_equal(ns_policy_set_dally_lease(p, 0.0), NS_OK);
    ns_queue *q = ns_queue_new();
    ns_decision *d = ns_decision_new();
    assert_int_equal(ns_queue_add_running(q, R, 1, 0.0), 0);
    assert_int_equal(ns_queue_add(q, W, 2, 0.0), 1);
    assert_int_equal(ns_queue_set_nw_sens(q, 1, 0.1), NS_OK);
    for (int t = 0; t < 3; t++) {
      assert_int_equal(ns_policy_decide(p, c, q, t * 3600e3, d), NS_OK);
      assert_int_equal(ns_decision_renew_count(d), 0);
      assert_int_equal(ns_decision_suspend_count(d), 0);
      assert_int_equal(ns_decision_status(d, 0), NS_OK);
      assert_int_equal(ns_policy_lease_ms(p, 1, NULL, NULL), NS_ENOTFOUND);
    }
    ns_decision_free(d);
    ns_queue_free(q);
    ns_policy_free(p);
    ns_cluster_free(c);
    ns_job_free(R), ns_job_free(W);
  }
}

static void test_lease_bad_input_names_the_argument(void **state) {
  (void)state;
  ns_policy *p = lease_policy();
  assert_near(ns_policy_dally_lease_of(p), 60e3, 1e-9);
  assert_fails_with(ns_policy_set_dally_lease(p, -1.0), NS_EINVAL, "lease_ms");
  assert_non_null(strstr(ns_last_error(), "-1"));
  assert_fails_with(ns_policy_set_dally_lease(p, 999.0), NS_EINVAL, "999");
  assert_fails_with(ns_policy_set_dally_lease(p, NAN), NS_EINVAL, "nan");
  assert_fails_with(ns_policy_set_dally_lease(p, INFINITY), NS_EINVAL, "inf");
  assert_fails_with(ns_policy_set_dally_lease(NULL, 1000.0), NS_EINVAL, "p");
  assert_near(ns_policy_dally_lease_of(p), 60e3, 1e-9); /* failed setters changed nothing */
  assert_true(isnan(ns_policy_dally_lease_of(NULL)));
  assert_fails_with(ns_policy_lease_ms(NULL, 1, NULL, NULL), NS_EINVAL, "p");
  assert_int_equal(ns_decision_renew_count(NULL), 0);
  assert_int_equal(ns_decision_renew_job(NULL, 0), SIZE_MAX);
  /* the default: 20 min, kept by a clone and by a preset's parts */
  ns_policy *q0 = ns_policy_new("dally");
  assert_near(ns_policy_dally_lease_of(q0), 1200e3, 1e-9);
  ns_policy *cl = ns_policy_clone(p);
  assert_near(ns_policy_dally_lease_of(cl), 60e3, 1e-9);
  assert_int_equal(ns_policy_set_preset(cl, "dally-manual"), NS_OK);
  assert_near(ns_policy_dally_lease_of(cl), 60e3, 1e-9);
  ns_policy_free(cl);
  ns_policy_free(q0);

  /* an expired running job not committed on c: refused naming it, and the
     leases are left as they were (the next decision is as if the failed
     one never happened) */
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 1, 4, 0, 10.0);
  ns_job *R = job("R", 4);
  ns_queue *q = ns_queue_new();
  ns_decision *d = ns_decision_new();
  commit_at(c, R, 0);
  assert_int_equal(ns_queue_add_running(q, R, 1, 0.0), 0);
  assert_int_equal(ns_policy_decide(p, c, q, 0.0, d), NS_OK);
  assert_int_equal(ns_cluster_release(c, R), NS_OK);
  assert_fails_with(ns_policy_decide(p, c, q, 60e3, d), NS_EINVAL, "not committed");
  assert_int_equal(ns_decision_renew_count(d), 0);
  double from = 0, end = 0;
  assert_int_equal(ns_policy_lease_ms(p, 1, &from, &end), NS_OK);
  assert_near(end, 60e3, 1e-9);
  commit_at(c, R, 0);
  assert_int_equal(ns_policy_decide(p, c, q, 60e3, d), NS_OK);
  assert_int_equal(ns_decision_renew_count(d), 1);
  assert_near(ns_decision_next_ms(d), 120e3, 1e-9);
  /* options are fixed after the first decision */
  assert_fails_with(ns_policy_set_dally_lease(p, 2000.0), NS_ESTATE, "already decided");
  ns_decision_free(d);
  ns_queue_free(q);
  ns_cluster_free(c);
  ns_job_free(R);
  ns_policy_free(p);
}

/* ---- pass-by-pass preemption (ns_policy_preempt) ----------------------- */

/* Two servers of 4 GPUs. V1 (4 GPUs, id 1, Nw_sens 0.9) runs on 0-3, V2 (2
   GPUs, id 2, 0.99) on 4-5, 6-7 free; W (4 GPUs, id 3, 0.5) waits: its bar
   is 0.5 x 1.05 = 0.525, both run above it, highest first: V2, V1; 2 free
   + 2 + 4 >= 4. V2 taken off: 4 free (4-7) >= 4, first-fit places W on
   4-7 - accepted. Decision: start W on 4-7, suspend V2; V1 keeps running;
   next_ms = now (ask again). Applied, and asked again at the same time
   without W (started now: no victim): V2 waits at 0.99 (bar 1.0395), V1
   runs at 0.9 - below it: nothing. A waiter at 0.88 (bar 0.924) does not
   preempt V1 at 0.9 either (the 5 % margin). */
static void test_pass_preempt_takes_the_least_sensitive(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 2, 4, 0, 10.0);
  ns_job *V1 = job("V1", 4), *V2 = job("V2", 2), *W = job("W", 4);
  commit_at(c, V1, 0);
  commit_at(c, V2, 4);
  ns_policy *p = lease_policy();
  ns_queue *q = ns_queue_new();
  ns_decision *d = ns_decision_new();
  assert_int_equal(ns_queue_add(q, W, 3, 5e3), 0);
  assert_int_equal(ns_queue_set_nw_sens(q, 0, 0.5), NS_OK);
  assert_int_equal(ns_queue_add_running(q, V1, 1, 0.0), 1);
  assert_int_equal(ns_queue_set_nw_sens(q, 1, 0.9), NS_OK);
  assert_int_equal(ns_queue_add_running(q, V2, 2, 1e3), 2);
  assert_int_equal(ns_queue_set_nw_sens(q, 2, 0.99), NS_OK);
  assert_int_equal(ns_policy_preempt(p, c, q, 30e3, d), NS_OK);
  assert_int_equal(ns_decision_start_count(d), 1);
  assert_int_equal(ns_decision_start_job(d, 0), 0);
  const ns_placement *pl = ns_decision_placement(d, 0);
  assert_int_equal(ns_placement_gpu_count(pl), 4);
  for (int g = 0; g < 4; g++)
    assert_int_equal(ns_placement_gpu(pl, (size_t)g), 4 + g);
  assert_int_equal(ns_decision_suspend_count(d), 1);
  assert_int_equal(ns_decision_suspend_job(d, 0), 2);
  assert_int_equal(ns_decision_status(d, 0), NS_OK);
  assert_int_equal(ns_decision_status(d, 1), NS_OK);
  assert_int_equal(ns_decision_status(d, 2), NS_ENOSPACE);
  assert_near(ns_decision_next_ms(d), 30e3, 1e-9);
  assert_int_equal(ns_cluster_is_committed(c, V2), 1); /* proposes only */
  assert_int_equal(ns_cluster_free_gpu_count(c), 2);

  assert_int_equal(ns_cluster_release(c, V2), NS_OK);
  assert_int_equal(ns_cluster_commit(c, W, pl), NS_OK);
  ns_queue_clear(q);
  assert_int_equal(ns_queue_add(q, V2, 2, 1e3), 0);
  assert_int_equal(ns_queue_set_nw_sens(q, 0, 0.99), NS_OK);
  assert_int_equal(ns_queue_add_running(q, V1, 1, 0.0), 1);
  assert_int_equal(ns_queue_set_nw_sens(q, 1, 0.9), NS_OK);
  assert_int_equal(ns_policy_preempt(p, c, q, 30e3, d), NS_OK);
  assert_int_equal(ns_decision_start_count(d), 0);
  assert_int_equal(ns_decision_suspend_count(d), 0);
  assert_true(isinf(ns_decision_next_ms(d)));
  assert_int_equal(ns_queue_set_nw_sens(q, 0, 0.88), NS_OK);
  assert_int_equal(ns_policy_preempt(p, c, q, 30e3, d), NS_OK);
  assert_int_equal(ns_decision_suspend_count(d), 0);
  assert_int_equal(ns_queue_set_nw_sens(q, 0, 0.85), NS_OK); /* bar 0.8925 < 0.9: takes V1 */
  assert_int_equal(ns_policy_preempt(p, c, q, 30e3, d), NS_OK);
  assert_int_equal(ns_decision_suspend_count(d), 1);
  assert_int_equal(ns_decision_suspend_job(d, 0), 1);
  assert_int_equal(ns_decision_start_count(d), 1);
  assert_int_equal(ns_placement_gpu(ns_decision_placement(d, 0), 0), 0); /* V1's 0-1 */
  ns_decision_free(d);
  ns_queue_free(q);
  ns_policy_free(p);
  ns_cluster_free(c);
  ns_job_free(V1), ns_job_free(V2), ns_job_free(W);
}

/* A placement that declines every offer, counting them. */
static int declines;
static int decline_all(const ns_cluster *c, const ns_job *j, ns_placement *out, void *user) {
  (void)c, (void)j, (void)out, (void)user;
  declines++;
  return NS_ENOSPACE;
}

/* At most 8 offers per time: one running job V (4 GPUs, 0.9) and ten
   waiting 4-GPU jobs at 0.5 - each would take V's GPUs, the placement
   declines each: 8 offers at 10 s, then none more at 10 s, 8 again at 11 s.
   Nothing is suspended (no offer accepted); c as it was. */
static void test_pass_preempt_offers_per_time_are_bounded(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 1, 4, 0, 10.0);
  ns_job *V = job("V", 4), *Wj[10];
  commit_at(c, V, 0);
  ns_policy *p = lease_policy();
  assert_int_equal(ns_policy_set_place_fn(p, decline_all, NULL), NS_OK);
  assert_int_equal(ns_policy_set_placement(p, NS_POLICY_PLACE_CUSTOM), NS_OK);
  ns_queue *q = ns_queue_new();
  ns_decision *d = ns_decision_new();
  for (int k = 0; k < 10; k++) {
    Wj[k] = job("W", 4);
    assert_int_equal(ns_queue_add(q, Wj[k], (uint64_t)(10 + k), k * 1e3), k);
    assert_int_equal(ns_queue_set_nw_sens(q, (size_t)k, 0.5), NS_OK);
  }
  assert_int_equal(ns_queue_add_running(q, V, 1, 0.0), 10);
  assert_int_equal(ns_queue_set_nw_sens(q, 10, 0.9), NS_OK);
  declines = 0;
  assert_int_equal(ns_policy_preempt(p, c, q, 10e3, d), NS_OK);
  assert_int_equal(declines, 8);
  assert_int_equal(ns_decision_suspend_count(d), 0);
  assert_int_equal(ns_decision_start_count(d), 0);
  assert_int_equal(ns_cluster_is_committed(c, V), 1);
  assert_int_equal(ns_cluster_free_gpu_count(c), 0);
  assert_int_equal(ns_policy_preempt(p, c, q, 10e3, d), NS_OK);
  assert_int_equal(declines, 8);
  assert_int_equal(ns_policy_preempt(p, c, q, 11e3, d), NS_OK);
  assert_int_equal(declines, 16);
  for (int k = 0; k < 10; k++)
    ns_job_free(Wj[k]);
  ns_decision_free(d);
  ns_queue_free(q);
  ns_policy_free(p);
  ns_cluster_free(c);
  ns_job_free(V);
}

static void test_pass_preempt_bad_input(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 1, 4, 0, 10.0);
  ns_job *V = job("V", 4), *W = job("W", 4);
  ns_policy *p = lease_policy(), *ff = ns_policy_new("ff");
  ns_queue *q = ns_queue_new();
  ns_decision *d = ns_decision_new();
  assert_int_equal(ns_queue_add(q, W, 2, 0.0), 0);
  assert_int_equal(ns_queue_set_nw_sens(q, 0, 0.5), NS_OK);
  assert_int_equal(ns_queue_add_running(q, V, 1, 0.0), 1);
  assert_int_equal(ns_queue_set_nw_sens(q, 1, 0.9), NS_OK);
  assert_fails_with(ns_policy_preempt(ff, c, q, 0.0, d), NS_EINVAL, "policy 'ff'");
  assert_fails_with(ns_policy_preempt(NULL, c, q, 0.0, d), NS_EINVAL, "p");
  assert_fails_with(ns_policy_preempt(p, NULL, q, 0.0, d), NS_EINVAL, "c");
  assert_fails_with(ns_policy_preempt(p, c, NULL, 0.0, d), NS_EINVAL, "q");
  assert_fails_with(ns_policy_preempt(p, c, q, 0.0, NULL), NS_EINVAL, "d");
  assert_fails_with(ns_policy_preempt(p, c, q, NAN, d), NS_EINVAL, "now_ms nan");
  /* V running but not committed: refused naming it, c unchanged, no offer
     spent (the next call at that time still has all 8) */
  assert_fails_with(ns_policy_preempt(p, c, q, 0.0, d), NS_EINVAL, "not committed");
  assert_int_equal(ns_decision_start_count(d), 0);
  assert_int_equal(ns_cluster_free_gpu_count(c), 4);
  commit_at(c, V, 0);
  assert_int_equal(ns_policy_preempt(p, c, q, 0.0, d), NS_OK);
  assert_int_equal(ns_decision_start_count(d), 1);
  assert_int_equal(ns_decision_suspend_count(d), 1);
  ns_decision_free(d);
  ns_queue_free(q);
  ns_policy_free(p), ns_policy_free(ff);
  ns_cluster_free(c);
  ns_job_free(V), ns_job_free(W);
}

/* ---- replay of the simulator ------------------------------------------- */

/* 8 GPUs (2 servers of 4), leases of 47.3 s, IDEAL network (every measured
   Nw_sens is 1: the order is by arrival). Z holds the cluster until 10.1
   s; then A (4) starts, B (6) does not fit, C (4) backfills: A's and C's
   leases end at 57.4 s. A finishes at 30.1 s (4 free, B still does not
   fit). At 57.4 s B (arrived before C) takes the 4 free GPUs and C's: C
   is suspended, resumes when B ends. D and E add renewals and a later
   expiry with nothing to take. */
static const ns_replay_spec WL[] = {
    {"Z", 0.1, 8, 10}, {"A", 0.5, 4, 20},   {"B", 1.0, 6, 60},
    {"C", 2.0, 4, 300}, {"D", 140.3, 2, 90}, {"E", 141.7, 2, 33},
};
#define NWL (sizeof WL / sizeof WL[0])
#define LEASE_MS 47300.0

/* The live jobs in index order, ids = indices, Nw_sens 1 (IDEAL: no slowdown). */
static size_t fill_by_index(ns_replay *r, ns_queue *q, size_t *ids, int step, double now) {
  (void)step, (void)now;
  size_t n = 0;
  for (size_t i = 0; i < r->n; i++) {
    const ns_replay_job *x = &r->J[i];
    if (x->state != 1 && x->state != 2)
      continue;
    int k = x->state == 2 ? ns_queue_add_running(q, x->job, i, x->arrival)
                          : ns_queue_add(q, x->job, i, x->arrival);
    assert_int_equal(k, (int)n);
    assert_int_equal(ns_queue_set_nw_sens(q, n, 1.0), NS_OK);
    ids[n++] = i;
  }
  return n;
}

static void test_replay_equals_simulator_leases(void **state) {
  (void)state;
  /* the simulator: measured-Nw_sens order, first-fit, leases */
  ns_sim_opts *o = ns_sim_opts_new();
  assert_int_equal(ns_sim_opts_set_order(o, NS_SIM_ORDER_NW_SENS), NS_OK);
  assert_int_equal(ns_sim_opts_set_placement(o, NS_SIM_PLACE_FIRST_FIT), NS_OK);
  assert_int_equal(ns_sim_opts_set_network(o, NS_SIM_NET_IDEAL), NS_OK);
  assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, 2, 4, 0, 10.0), NS_OK);
  assert_int_equal(ns_sim_opts_set_dally_lease(o, LEASE_MS), NS_OK);
  ns_sim *s = ns_replay_sim(o, WL, NWL);

  /* the policy, driven by the replay's event loop of the same model */
  ns_policy *p = ns_policy_new("ff");
  assert_int_equal(ns_policy_set_order(p, NS_POLICY_ORDER_NW_SENS), NS_OK);
  assert_int_equal(ns_policy_set_dally_lease(p, LEASE_MS), NS_OK);
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 2, 4, 0, 10.0);
  ns_replay_job J[NWL];
  ns_replay r = {0};
  ns_replay_init(&r, J, WL, NWL);
  r.fill = fill_by_index;
  ns_replay_run(&r, p, c, s, "leases");
  /* the scenario as worked out above: C suspended once at 57.4 s for B,
     resumed when B ends (117.4 s), finishing 300 - 47.3 s later */
  assert_int_equal(J[3].preemptions, 1);
  assert_near(J[2].start, 57.4e3, 1e-6);
  assert_near(J[3].finish, 117.4e3 + 252.7e3, 1e-6);
  assert_true(r.renewals > 0);
  ns_replay_free(&r);
  ns_cluster_free(c);
  ns_policy_free(p);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_expired_lease_nobody_takes_is_renewed),
      cmocka_unit_test(test_expired_lease_taken_by_lower_nw_sens_is_suspended),
      cmocka_unit_test(test_next_wakeup_is_the_earliest_lease_end),
      cmocka_unit_test(test_no_leases_without_lease_or_order),
      cmocka_unit_test(test_lease_bad_input_names_the_argument),
      cmocka_unit_test(test_pass_preempt_takes_the_least_sensitive),
      cmocka_unit_test(test_pass_preempt_offers_per_time_are_bounded),
      cmocka_unit_test(test_pass_preempt_bad_input),
      cmocka_unit_test(test_replay_equals_simulator_leases),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
