/*
 * tests/unit/test_policy.c - the policy object (netsched/policy.h): the
 * preset table is the simulator's, decide() walks the queue in the policy's
 * order with backfilling or head-of-line blocking and leaves the cluster as
 * it was, Dally's decline comes with its timer as retry time, CASSINI's
 * start comes with its shifts, the report-back calls change what the
 * policy reads, and bad input is refused naming the argument. Expected
 * placements are worked by hand in the comments.
 */
#include "helpers/ns_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define H (3600e3)

/* 2 leaves x 2 servers x 4 GPUs: server s holds GPUs 4s..4s+3. */
static ns_cluster *cluster16(void) {
  ns_cluster *c = ns_cluster_new_leaf_spine(2, 2, 2, 4, 1, 10.0);
  assert_non_null(c);
  return c;
}

static ns_job *job(const char *name, int gpus) {
  ns_job *j = ns_job_new(name, gpus);
  assert_non_null(j);
  return j;
}

static void assert_start(const ns_decision *d, size_t k, size_t qi, int first, int n) {
  assert_int_equal(ns_decision_start_job(d, k), qi);
  const ns_placement *p = ns_decision_placement(d, k);
  assert_non_null(p);
  assert_int_equal(ns_placement_gpu_count(p), (size_t)n);
  for (int g = 0; g < n; g++)
    if (ns_placement_gpu(p, (size_t)g) != first + g)
      fail_msg("start %zu gpu[%d] = %d, expected %d", k, g, ns_placement_gpu(p, (size_t)g),
               first + g);
}

static void test_preset_table_is_the_simulators(void **state) {
  (void)state;
  assert_int_equal(ns_policy_preset_count(), 21);
  assert_int_equal(ns_policy_preset_count(), ns_sim_policy_count());
  for (int i = 0; i < ns_policy_preset_count(); i++) {
    assert_string_equal(ns_policy_preset_name(i), ns_sim_policy_name(i));
    assert_string_equal(ns_policy_preset_description(i), ns_sim_policy_description(i));
    assert_int_equal(ns_policy_preset_find(ns_policy_preset_name(i)), i);
    ns_policy *p = ns_policy_new(ns_policy_preset_name(i));
    assert_non_null(p);
    assert_string_equal(ns_policy_name(p), ns_policy_preset_name(i));
    ns_policy_free(p);
  }
  ns_policy_order o;
  ns_policy_placement pl;
  int kappa = 0, cassini = -1, backfill = -1, n = 0;
  ns_policy_admission a;
  /* "fifo": strict first-fit; "cassini-lwf-1": LWF-1 + CASSINI; "srsf-2": SRSF(2) */
  assert_int_equal(ns_policy_preset_parts(ns_policy_preset_find("fifo"), &o, &pl, &kappa, &a, &n,
                                          &cassini, &backfill), NS_OK);
  assert_int_equal(o, NS_POLICY_ORDER_FIFO);
  assert_int_equal(pl, NS_POLICY_PLACE_FIRST_FIT);
  assert_int_equal(backfill, 0);
  assert_int_equal(cassini, 0);
  assert_int_equal(ns_policy_preset_parts(ns_policy_preset_find("cassini-lwf-1"), &o, &pl, &kappa,
                                          NULL, NULL, &cassini, &backfill), NS_OK);
  assert_int_equal(pl, NS_POLICY_PLACE_LWF);
  assert_int_equal(kappa, 1);
  assert_int_equal(cassini, 1);
  assert_int_equal(backfill, 1);
  assert_int_equal(ns_policy_preset_parts(ns_policy_preset_find("srsf-2"), &o, NULL, NULL, &a, &n,
                                          NULL, NULL), NS_OK);
  assert_int_equal(o, NS_POLICY_ORDER_SRSF);
  assert_int_equal(a, NS_POLICY_ADMIT_SRSF);
  assert_int_equal(n, 2);
  /* the simulator applies the same parts */
  ns_sim_opts *so = ns_sim_opts_new();
  assert_int_equal(ns_sim_opts_set_policy_name(so, "srsf-2"), NS_OK);
  assert_string_equal(ns_sim_opts_policy_name(so), "srsf-2");
  ns_sim_opts_free(so);
}

/* An unknown preset name: the message keeps its prefix (function, argument,
   the value quoted), suggests the closest preset when one is within a third
   of the name's length (ns_closest_name's rule), and lists the valid names
   from the table; a far name gets no suggestion. */
static void test_unknown_preset_says_did_you_mean(void **state) {
  (void)state;
  char valid[512] = "", want[700];
  size_t at = 0;
  for (int i = 0; i < ns_policy_preset_count(); i++)
    at += (size_t)snprintf(valid + at, sizeof valid - at, "%s%s", i ? ", " : "",
                           ns_policy_preset_name(i));
  assert_int_equal(ns_policy_preset_find("2d-gitins"), NS_EINVAL);
  snprintf(want, sizeof want,
           "ns_policy_preset_find: preset '2d-gitins' is not a policy; did you mean "
           "'2d-gittins'? (valid: %s)", valid);
  assert_string_equal(ns_last_error(), want);
  assert_int_equal(ns_policy_preset_find("nonsense"), NS_EINVAL);
  snprintf(want, sizeof want, "ns_policy_preset_find: preset 'nonsense' is not a policy (valid: %s)",
           valid);
  assert_string_equal(ns_last_error(), want);
  assert_fails_with(ns_policy_preset_find("fff"), NS_EINVAL,
                    "preset 'fff' is not a policy; did you mean 'ff'? (valid: ff, ");
  /* every entry point that takes a preset name, under its own name */
  assert_null(ns_policy_new("lwf1"));
  assert_non_null(strstr(ns_last_error(),
                         "ns_policy_new: preset 'lwf1' is not a policy; did you mean 'lwf-1'?"));
  ns_policy *p = ns_policy_new("ff");
  assert_fails_with(ns_policy_set_preset(p, "vclso"), NS_EINVAL,
                    "ns_policy_set_preset: preset 'vclso' is not a policy; did you mean 'vclos'?");
  assert_string_equal(ns_policy_name(p), "ff");
  ns_policy_free(p);
  ns_sim_opts *o = ns_sim_opts_new();
  assert_fails_with(ns_sim_opts_set_policy_name(o, "dally-manul"), NS_EINVAL,
                    "ns_sim_opts_set_policy_name: name 'dally-manul' is not a policy; did you mean "
                    "'dally-manual'? (valid: ff, ");
  assert_fails_with(ns_sim_opts_set_policy_name(o, "xyz"), NS_EINVAL, "name 'xyz' is not a policy (valid: ");
  assert_null(strstr(ns_last_error(), "did you mean"));
  ns_sim_opts_free(o);
}

static void test_bad_input_names_the_argument(void **state) {
  (void)state;
  assert_null(ns_policy_new("bogus"));
  assert_non_null(strstr(ns_last_error(), "'bogus'"));
  assert_non_null(strstr(ns_last_error(), "cassini-lwf-1"));
  assert_null(ns_policy_new(NULL));
  assert_fails_with(ns_policy_preset_find("nope"), NS_EINVAL, "'nope'");
  assert_fails_with(ns_policy_preset_parts(21, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                    NS_EINVAL, "i");
  ns_policy *p = ns_policy_new("ff");
  ns_queue *q = ns_queue_new();
  ns_decision *d = ns_decision_new();
  ns_job *j = job("a", 1);
  assert_fails_with(ns_queue_add(q, j, 1, NAN), NS_EINVAL, "arrival_ms");
  /* the running variant's checks name it (one body with ns_queue_add) */
  assert_fails_with(ns_queue_add_running(q, j, 1, -INFINITY), NS_EINVAL,
                    "ns_queue_add_running: arrival_ms -inf");
  assert_fails_with(ns_queue_add_running(q, NULL, 1, 0.0), NS_EINVAL, "ns_queue_add_running");
  assert_fails_with(ns_queue_add_running(NULL, j, 1, 0.0), NS_EINVAL, "ns_queue_add_running");
  assert_int_equal(ns_queue_count(q), 0);
  assert_int_equal(ns_queue_add(q, j, 1, 0.0), 0);
  assert_fails_with(ns_queue_set_ideal_ms(q, 0, -1.0), NS_EINVAL, "ideal_run_ms");
  assert_fails_with(ns_queue_set_nw_sens(q, 3, 1.0), NS_EINVAL, "i 3");
  assert_fails_with(ns_queue_set_waiting_since(q, 0, INFINITY), NS_EINVAL, "ms");
  assert_fails_with(ns_policy_set_kappa(p, 0), NS_EINVAL, "kappa");
  assert_fails_with(ns_policy_set_cassini(p, 1, 11), NS_EINVAL, "max_candidates");
  assert_fails_with(ns_policy_set_cassini_drift(p, 1.5), NS_EINVAL, "fraction");
  assert_string_equal(ns_policy_name(p), "ff"); /* failed setters changed nothing */
  ns_cluster *c = cluster16();
  assert_fails_with(ns_policy_decide(p, c, q, NAN, d), NS_EINVAL, "now_ms");
  assert_fails_with(ns_policy_place(p, c, q, 1, 0.0, d), NS_EINVAL, "i 1");
  assert_fails_with(ns_decision_status(d, 5), NS_EINVAL, "i 5");
  /* after a decision, the parts are fixed */
  assert_int_equal(ns_policy_decide(p, c, q, 0.0, d), NS_OK);
  assert_fails_with(ns_policy_set_order(p, NS_POLICY_ORDER_SJF), NS_ESTATE, "already decided");
  /* a custom placement without a callback cannot decide */
  ns_policy *cu = ns_policy_new("ff");
  assert_int_equal(ns_policy_set_placement(cu, NS_POLICY_PLACE_CUSTOM), NS_OK);
  assert_string_equal(ns_policy_name(cu), "custom");
  assert_fails_with(ns_policy_decide(cu, c, q, 0.0, d), NS_ESTATE, "ns_policy_set_place_fn");
  /* CASSINI over Dally is refused at the first decision */
  ns_policy *cd = ns_policy_new("dally");
  assert_int_equal(ns_policy_set_cassini(cd, 1, 4), NS_OK);
  assert_fails_with(ns_policy_decide(cd, c, q, 0.0, d), NS_EINVAL, "CASSINI cannot augment");
  ns_policy_free(cd);
  ns_policy_free(cu);
  ns_policy_free(NULL);
  ns_queue_free(NULL);
  ns_decision_free(NULL);
  ns_cluster_free(c);
  ns_job_free(j);
  ns_decision_free(d);
  ns_queue_free(q);
  ns_policy_free(p);
}

/* Queue (index: GPUs, arrival): 0: 4 @ 0, 1: 8 @ 1, 2: 8 @ 2, 3: 1 @ 3,
   added out of arrival order. First-fit on the empty 16-GPU cluster:
   job 0 -> GPUs 0-3, job 1 -> 4-11, job 2 (8) does not fit the 4 left and
   waits; "ff" backfills job 3 -> GPU 12; "fifo" stops at job 2 and never
   offers job 3. The cluster is left as it was. */
static void test_decide_backfill_and_head_of_line(void **state) {
  (void)state;
  ns_cluster *c = cluster16();
  ns_job *j[4] = {job("a", 4), job("b", 8), job("c", 8), job("d", 1)};
  ns_queue *q = ns_queue_new();
  ns_decision *d = ns_decision_new();
  const double arr[4] = {0, 1, 2, 3};
  const int add[4] = {2, 0, 3, 1}; /* queue order of adding: any order */
  size_t idx[4];
  for (int k = 0; k < 4; k++)
    idx[add[k]] = (size_t)ns_queue_add(q, j[add[k]], (uint64_t)(10 + add[k]), arr[add[k]]);
  assert_int_equal(ns_queue_count(q), 4);
  ns_policy *ff = ns_policy_new("ff"), *fifo = ns_policy_new("fifo");
  assert_int_equal(ns_policy_decide(ff, c, q, 5.0, d), NS_OK);
  assert_int_equal(ns_decision_start_count(d), 3);
  assert_start(d, 0, idx[0], 0, 4);
  assert_start(d, 1, idx[1], 4, 8);
  assert_start(d, 2, idx[3], 12, 1);
  assert_int_equal(ns_decision_status(d, idx[2]), NS_ENOSPACE);
  /* no delay tuner: no retry time for the declined job (policy.h's
     contract, on which the simulator skips reading them) */
  assert_null(ns_policy_tuner(ff));
  assert_true(isinf(ns_decision_retry_ms(d, idx[2])));
  assert_int_equal(ns_decision_has_shifts(d, 0), 0);
  assert_true(isinf(ns_decision_next_ms(d)));
  assert_int_equal(ns_cluster_free_gpu_count(c), 16);
  assert_int_equal(ns_cluster_job_count(c), 0);

  assert_int_equal(ns_policy_decide(fifo, c, q, 5.0, d), NS_OK);
  assert_int_equal(ns_decision_start_count(d), 2);
  assert_int_equal(ns_decision_status(d, idx[2]), NS_ENOSPACE);
  assert_int_equal(ns_decision_status(d, idx[3]), NS_ENOTFOUND);
  assert_int_equal(ns_cluster_free_gpu_count(c), 16);

  /* one job alone: job 2 on the empty cluster -> GPUs 0-7 */
  assert_int_equal(ns_policy_place(ff, c, q, idx[2], 5.0, d), NS_OK);
  assert_int_equal(ns_decision_start_count(d), 1);
  assert_start(d, 0, idx[2], 0, 8);
  assert_int_equal(ns_decision_status(d, idx[0]), NS_ENOTFOUND);
  ns_policy_free(ff), ns_policy_free(fifo);
  ns_decision_free(d);
  ns_queue_free(q);
  for (int k = 0; k < 4; k++)
    ns_job_free(j[k]);
  ns_cluster_free(c);
}

/* SRSF: key = GPUs x ideal run. Job A (8 GPUs, arrival 0, ideal 100 ms:
   key 800) and B (4 GPUs, arrival 1, ideal 150: key 600): B first (GPUs
   0-3), then A (4-11). SJF: A (100) before B (150): A 0-7, B 8-11. An
   unknown estimate sorts after both. */
static void test_srsf_and_sjf_keys(void **state) {
  (void)state;
  ns_cluster *c = cluster16();
  ns_job *a = job("A", 8), *b = job("B", 4), *u = job("U", 1);
  ns_queue *q = ns_queue_new();
  ns_decision *d = ns_decision_new();
  int ia = ns_queue_add(q, a, 1, 0.0), ib = ns_queue_add(q, b, 2, 1.0);
  int iu = ns_queue_add(q, u, 3, -5.0); /* earliest arrival, no estimate */
  assert_int_equal(ns_queue_set_ideal_ms(q, (size_t)ia, 100.0), NS_OK);
  assert_int_equal(ns_queue_set_ideal_ms(q, (size_t)ib, 150.0), NS_OK);
  ns_policy *srsf = ns_policy_new("srsf-ff"), *sjf = ns_policy_new("sjf-ff");
  double key = 0;
  assert_int_equal(ns_policy_order_key(srsf, q, (size_t)ia, &key), NS_OK);
  assert_near(key, 800.0, 1e-9);
  assert_int_equal(ns_policy_order_key(srsf, q, (size_t)iu, &key), NS_OK);
  assert_true(isinf(key));
  assert_int_equal(ns_policy_decide(srsf, c, q, 0.0, d), NS_OK);
  assert_int_equal(ns_decision_start_count(d), 3);
  assert_start(d, 0, (size_t)ib, 0, 4);
  assert_start(d, 1, (size_t)ia, 4, 8);
  assert_start(d, 2, (size_t)iu, 12, 1);
  assert_int_equal(ns_policy_decide(sjf, c, q, 0.0, d), NS_OK);
  assert_start(d, 0, (size_t)ia, 0, 8);
  assert_start(d, 1, (size_t)ib, 8, 4);
  ns_policy_free(srsf), ns_policy_free(sjf);
  ns_decision_free(d);
  ns_queue_free(q);
  ns_job_free(a), ns_job_free(b), ns_job_free(u);
  ns_cluster_free(c);
}

/* Dally: every server has 1 free GPU (GPUs 3, 7, 11, 15); a 2-GPU job that
   arrived at 0 is offered them at 1000 ms: no machine holds it, its machine
   timer (12 h default, no samples) has not expired -> declined; it wants to
   be asked again when that timer expires: 0 + 12 h = 43,200,000 ms (the
   rack timer, a total, is 24 h). Waiting since 1 h instead (asked at 1 h
   + 2 s): 13 h. At 12 h +
   1 ms (since 0) it accepts one rack: GPUs 3 and 7 (leaf 0's). */
static void test_dally_decline_retry_and_accept(void **state) {
  (void)state;
  ns_cluster *c = cluster16();
  int busy[12], nb = 0;
  for (int g = 0; g < 16; g++)
    if (g % 4 != 3)
      busy[nb++] = g;
  assert_int_equal(ns_cluster_occupy(c, busy, (size_t)nb), NS_OK);
  ns_job *j = job("two", 2);
  ns_queue *q = ns_queue_new();
  ns_decision *d = ns_decision_new();
  assert_int_equal(ns_queue_add(q, j, 7, 0.0), 0);
  ns_policy *p = ns_policy_new("dally");
  assert_non_null(ns_policy_tuner(p));
  assert_int_equal(ns_policy_decide(p, c, q, 1000.0, d), NS_OK);
  assert_int_equal(ns_decision_start_count(d), 0);
  assert_int_equal(ns_decision_status(d, 0), NS_ENOSPACE);
  assert_near(ns_decision_retry_ms(d, 0), 12 * H, 1e-6);
  assert_near(ns_decision_next_ms(d), 12 * H, 1e-6);
  assert_int_equal(ns_queue_set_waiting_since(q, 0, 1 * H), NS_OK);
  assert_int_equal(ns_policy_decide(p, c, q, 1 * H + 2000.0, d), NS_OK);
  assert_near(ns_decision_retry_ms(d, 0), 13 * H, 1e-6);
  /* reported suspension counts when the queue does not say */
  ns_queue_clear(q);
  assert_int_equal(ns_queue_add(q, j, 7, 0.0), 0);
  assert_int_equal(ns_policy_suspended(p, j, 2 * H), NS_OK);
  assert_int_equal(ns_policy_decide(p, c, q, 2 * H, d), NS_OK);
  assert_near(ns_decision_retry_ms(d, 0), 14 * H, 1e-6);
  assert_int_equal(ns_policy_finished(p, j, 2 * H), NS_OK); /* forgotten: since = arrival */
  assert_int_equal(ns_policy_decide(p, c, q, 12 * H + 1, d), NS_OK);
  assert_int_equal(ns_decision_start_count(d), 1);
  assert_int_equal(ns_placement_gpu_count(ns_decision_placement(d, 0)), 2);
  assert_int_equal(ns_placement_gpu(ns_decision_placement(d, 0), 0), 3);
  assert_int_equal(ns_placement_gpu(ns_decision_placement(d, 0), 1), 7);
  assert_int_equal(ns_placement_tier(ns_decision_placement(d, 0)), NS_TIER_RACK);
  ns_policy_free(p);
  ns_decision_free(d);
  ns_queue_free(q);
  ns_job_free(j);
  ns_cluster_free(c);
}

/* Dally's order: Nw_sens, unset = 1. A arrived first; B reported progress
   of 10 iterations of 100 ms compute (fwd 40 + bwd 60) in 2000 ms ->
   Nw_sens 1000 / 2000 = 0.5 -> B is offered first (8 GPUs each on 16: both
   start, B on 0-7). A value set in the queue wins over the report. */
static void test_reported_progress_orders_dally(void **state) {
  (void)state;
  ns_cluster *c = cluster16();
  ns_job *a = job("A", 8), *b = job("B", 8);
  assert_int_equal(ns_job_set_compute_ms(b, 40.0, 60.0), NS_OK);
  ns_queue *q = ns_queue_new();
  ns_decision *d = ns_decision_new();
  int ia = ns_queue_add(q, a, 1, 0.0), ib = ns_queue_add(q, b, 2, 1.0);
  ns_policy *p = ns_policy_new("dally");
  double ka = 0, kb = 0;
  assert_int_equal(ns_policy_order_key(p, q, (size_t)ib, &kb), NS_OK);
  assert_near(kb, 1.0, 0);
  assert_int_equal(ns_policy_started(p, b, 1.0), NS_OK);
  assert_int_equal(ns_policy_progress(p, b, 10.0, 2000.0, 2001.0), NS_OK);
  assert_int_equal(ns_policy_suspended(p, b, 2001.0), NS_OK);
  assert_int_equal(ns_policy_order_key(p, q, (size_t)ib, &kb), NS_OK);
  assert_near(kb, 0.5, 1e-12);
  assert_int_equal(ns_policy_decide(p, c, q, 3000.0, d), NS_OK);
  assert_int_equal(ns_decision_start_count(d), 2);
  assert_start(d, 0, (size_t)ib, 0, 8);
  assert_start(d, 1, (size_t)ia, 8, 8);
  assert_int_equal(ns_queue_set_nw_sens(q, (size_t)ia, 0.25), NS_OK);
  assert_int_equal(ns_policy_order_key(p, q, (size_t)ia, &ka), NS_OK);
  assert_near(ka, 0.25, 1e-12);
  assert_fails_with(ns_policy_progress(p, b, -1.0, 1.0, 3000.0), NS_EINVAL, "iters_done");
  ns_policy_free(p);
  ns_decision_free(d);
  ns_queue_free(q);
  ns_job_free(a), ns_job_free(b);
  ns_cluster_free(c);
}

/* A job with a compute phase and an all-reduce at 10 Gbps. */
static ns_job *profiled(const char *name, int gpus, double compute, double comm) {
  ns_job *j = job(name, gpus);
  assert_int_equal(ns_job_set_iteration_ms(j, compute + comm), NS_OK);
  assert_int_equal(ns_job_add_phase(j, compute, 0.0), NS_OK);
  assert_int_equal(ns_job_add_phase(j, comm, 10.0), NS_OK);
  return j;
}

/* CASSINI over first-fit, one NIC per server: a running 8-GPU job R holds
   GPUs 0,1,4,5 (servers 0, 1) and 8-11 (server 2). A new 4-GPU job N:
   candidate 1 = first-fit's 2,3,6,7 (servers 0 and 1: their NIC ports are
   R's too); with server 0's free GPUs hidden, candidate 2 = 6,7,12,13
   (server 1's port shared); with server 1's hidden too, candidate 3 =
   12-15, one server, no link at all: fully compatible, it wins at once,
   no shifts. With server 3 busy, the only candidate is 2,3,6,7 (hiding
   server 0 leaves 2 free GPUs: NS_ENOSPACE ends the list); it shares R's
   ports, so it is ranked and comes with time-shifts for N and for R. */
static void test_cassini_candidates_and_shifts(void **state) {
  (void)state;
  ns_cluster *c = cluster16();
  assert_int_equal(ns_cluster_set_nic_ports(c, 1, 10.0), NS_OK);
  ns_job *r = profiled("R", 8, 60.0, 40.0), *n = profiled("N", 4, 50.0, 50.0);
  ns_placement *pr = ns_placement_new();
  const int rg[8] = {0, 1, 4, 5, 8, 9, 10, 11};
  for (int i = 0; i < 8; i++)
    assert_int_equal(ns_placement_add_gpu(pr, rg[i]), NS_OK);
  assert_int_equal(ns_cluster_commit(c, r, pr), NS_OK);
  ns_queue *q = ns_queue_new();
  ns_decision *d = ns_decision_new();
  assert_int_equal(ns_queue_add(q, n, 1, 0.0), 0);
  ns_policy *p = ns_policy_new("cassini-ff");
  assert_non_null(ns_policy_cassini_opts(p));
  assert_int_equal(ns_policy_decide(p, c, q, 0.0, d), NS_OK);
  assert_int_equal(ns_decision_start_count(d), 1);
  assert_start(d, 0, 0, 12, 4);
  assert_int_equal(ns_decision_has_shifts(d, 0), 0);
  double sh = -1;
  assert_int_equal(ns_decision_shift_ms(d, 0, n, &sh), NS_ENOTFOUND);
  /* server 3 busy: candidates 2,3,6,7 ... all share R's links */
  int busy[4] = {12, 13, 14, 15};
  assert_int_equal(ns_cluster_occupy(c, busy, 4), NS_OK);
  assert_int_equal(ns_policy_decide(p, c, q, 0.0, d), NS_OK);
  assert_int_equal(ns_decision_start_count(d), 1);
  const int want[4] = {2, 3, 6, 7};
  for (int i = 0; i < 4; i++)
    assert_int_equal(ns_placement_gpu(ns_decision_placement(d, 0), (size_t)i), want[i]);
  assert_int_equal(ns_decision_has_shifts(d, 0), 1);
  assert_int_equal(ns_decision_shift_ms(d, 0, n, &sh), NS_OK);
  assert_true(sh >= 0 && sh < 100.0); /* within one iteration of the unified circle */
  assert_int_equal(ns_decision_shift_ms(d, 0, r, &sh), NS_OK);
  assert_true(sh >= 0 && sh < 100.0);
  assert_int_equal(ns_cluster_free_gpu_count(c), 4); /* 16 - R's 8 - server 3 */
  ns_policy_free(p);
  ns_decision_free(d);
  ns_queue_free(q);
  ns_placement_free(pr);
  ns_cluster_release(c, r);
  ns_job_free(r), ns_job_free(n);
  ns_cluster_free(c);
}

/* Dally's state outlives the process: two machine accepts of a 2-GPU job
   (waited 5,000 ms at 5,000 and 7,000 ms at 9,000) are saved and loaded into
   a fresh "dally": its machine timer for 2 GPUs is then mean + 2 sample sd =
   6,000 + 2 x 1,414.2136 = 8,828.4271 ms, where a fresh tuner says 12 h. */
static void test_save_load_dally_state(void **state) {
  (void)state;
  ns_cluster *c = cluster16();
  ns_job *a = job("a", 2), *b = job("b", 2);
  ns_queue *q = ns_queue_new();
  ns_decision *d = ns_decision_new();
  ns_policy *p = ns_policy_new("dally");
  assert_int_equal(ns_queue_add(q, a, 1, 0.0), 0);
  assert_int_equal(ns_policy_decide(p, c, q, 5000.0, d), NS_OK);
  assert_int_equal(ns_decision_start_count(d), 1);
  ns_queue_clear(q);
  assert_int_equal(ns_queue_add(q, b, 2, 2000.0), 0);
  assert_int_equal(ns_policy_decide(p, c, q, 9000.0, d), NS_OK);
  char buf[512];
  size_t need = 0;
  assert_int_equal(ns_policy_save(p, NULL, 0, &need), NS_ERANGE);
  assert_int_equal(ns_policy_save(p, buf, sizeof buf, &need), NS_OK);
  assert_string_equal(buf, "ns_policy 1\npolicy dally\nwait 0 2 5000 5000\nwait 0 2 7000 9000\n");
  assert_int_equal(need, strlen(buf) + 1);
  assert_fails_with(ns_policy_save(p, buf, need - 1, &need), NS_ERANGE, "needs");

  ns_policy *r = ns_policy_new("dally");
  double m = 0, k = 0;
  assert_int_equal(ns_delay_tuner_timers(ns_policy_tuner(r), 2, 9000.0, &m, &k), NS_OK);
  assert_near(m, 12 * H, 1e-6);
  assert_int_equal(ns_policy_save(p, buf, sizeof buf, &need), NS_OK);
  assert_int_equal(ns_policy_load(r, buf, strlen(buf)), NS_OK);
  assert_int_equal(ns_delay_tuner_timers(ns_policy_tuner(r), 2, 9000.0, &m, &k), NS_OK);
  assert_near(m, 8828.42712, 1e-4);
  /* refused blobs leave it as it was */
  assert_fails_with(ns_policy_load(r, "hello\n", 6), NS_EINVAL, "line 1");
  const char *bad = "ns_policy 1\npolicy dally\nwait 0 2 5000\n";
  assert_fails_with(ns_policy_load(r, bad, strlen(bad)), NS_EINVAL, "line 3");
  const char *other = "ns_policy 1\npolicy dally-manual\n";
  assert_fails_with(ns_policy_load(r, other, strlen(other)), NS_EINVAL, "'dally-manual'");
  assert_fails_with(ns_policy_load(r, "ns_policy 1\n", 12), NS_EINVAL, "truncated");
  assert_int_equal(ns_delay_tuner_timers(ns_policy_tuner(r), 2, 9000.0, &m, &k), NS_OK);
  assert_near(m, 8828.42712, 1e-4);
  /* a policy without state saves its header; a wait line is refused */
  ns_policy *ff = ns_policy_new("ff");
  assert_int_equal(ns_policy_save(ff, buf, sizeof buf, &need), NS_OK);
  assert_string_equal(buf, "ns_policy 1\npolicy ff\n");
  assert_int_equal(ns_policy_load(ff, buf, strlen(buf)), NS_OK);
  const char *w = "ns_policy 1\npolicy ff\nwait 0 2 1 1\n";
  assert_fails_with(ns_policy_load(ff, w, strlen(w)), NS_EINVAL, "keeps no waits");
  ns_policy_free(ff);
  ns_policy_free(r);
  ns_policy_free(p);
  ns_decision_free(d);
  ns_queue_free(q);
  ns_job_free(a), ns_job_free(b);
  ns_cluster_free(c);
}

/* Time going back is refused: a decision (place, decide, preempt) or a
   report (started, finished, suspended, progress) with now_ms before the
   policy's latest one fails with NS_EINVAL naming now_ms and quoting both
   times, and changes nothing. Equal times are fine. 2D-LAS accounts each
   running job's service as now_ms minus its last check, so a decision at
   500 ms after one at 1000 would take 500 ms of service off job a; a twin
   policy that never saw the refused calls must decide the same at 2000. */
static void test_time_must_not_go_back(void **state) {
  (void)state;
  ns_cluster *c = cluster16();
  ns_job *a = job("a", 8), *b = job("b", 8);
  ns_queue *q = ns_queue_new();
  ns_decision *d = ns_decision_new(), *e = ns_decision_new();
  ns_policy *p = ns_policy_new("2d-las"), *twin = ns_policy_new("2d-las");
  assert_int_equal(ns_queue_add(q, a, 1, 0.0), 0);
  assert_int_equal(ns_policy_decide(p, c, q, 1000.0, d), NS_OK);
  assert_int_equal(ns_policy_decide(twin, c, q, 1000.0, e), NS_OK);
  assert_int_equal(ns_decision_start_count(d), 1); /* a on GPUs 0-7 */
  assert_int_equal(ns_cluster_commit(c, a, ns_decision_placement(d, 0)), NS_OK);
  ns_queue_clear(q);
  assert_int_equal(ns_queue_add_running(q, a, 1, 0.0), 0);
  assert_int_equal(ns_queue_add(q, b, 2, 600.0), 1);
  assert_fails_with(ns_policy_decide(p, c, q, 500.0, d), NS_EINVAL, "ns_policy_decide: now_ms");
  assert_non_null(strstr(ns_last_error(), "before 1e+03")); /* nsi_fmt_real's shortest form */
  assert_non_null(strstr(ns_last_error(), "(got 5e+02)"));
  assert_non_null(strstr(ns_last_error(), "time must not go back"));
  assert_int_equal(ns_decision_start_count(d), 1); /* refused before deciding: d as it was */
  assert_fails_with(ns_policy_place(p, c, q, 1, 999.0, d), NS_EINVAL, "(got 999)");
  assert_fails_with(ns_policy_started(p, a, 999.5), NS_EINVAL, "(got 999.5)");
  assert_fails_with(ns_policy_finished(p, b, 0.0), NS_EINVAL, "(got 0)");
  assert_fails_with(ns_policy_suspended(p, a, -1.0), NS_EINVAL, "(got -1)");
  assert_fails_with(ns_policy_progress(p, a, 1, 1, 10.0), NS_EINVAL, "(got 1e+01)");
  /* the same time again is allowed, and decides as the twin does */
  assert_int_equal(ns_policy_started(p, a, 1000.0), NS_OK);
  assert_int_equal(ns_policy_started(twin, a, 1000.0), NS_OK);
  assert_int_equal(ns_policy_decide(p, c, q, 2000.0, d), NS_OK);
  assert_int_equal(ns_policy_decide(twin, c, q, 2000.0, e), NS_OK);
  assert_int_equal(ns_decision_start_count(d), ns_decision_start_count(e));
  assert_int_equal(ns_decision_start_count(d), 1); /* b on the free GPUs 8-15 */
  assert_start(d, 0, 1, 8, 8);
  assert_int_equal(ns_decision_status(d, 0), ns_decision_status(e, 0));
  assert_true(ns_decision_next_ms(d) == ns_decision_next_ms(e));
  /* and now 2000 is the floor: a report at 1999 is refused */
  assert_fails_with(ns_policy_started(p, b, 1999.0), NS_EINVAL, "before 2e+03");
  ns_policy_free(p), ns_policy_free(twin);
  ns_decision_free(d), ns_decision_free(e);
  ns_queue_free(q);
  ns_job_free(a), ns_job_free(b);
  ns_cluster_free(c);
}

/* A decision that fails leaves the Dally tuner as it was, though an offer
   made before the failure recorded a wait in it. dally, queue: a (2 GPUs,
   arrival 0) waiting, b (2 GPUs, arrival 1) waiting but already committed
   on c (a hostile caller). Both have Nw_sens 1.0 (unmeasured), so a is
   offered first: it fits on one machine and is accepted at the machine
   tier - the tuner records a wait of 5000 ms at 5000 ms - then b is
   accepted elsewhere and its commit fails (NS_ESTATE: committed already),
   so the decision fails. Afterwards: no machine wait for 2 GPUs, the
   saved state is the header alone, and the tuner's clock is back at 0 (a
   query at 4000 ms is allowed). A decision that succeeds keeps its wait. */
static void test_failed_decision_leaves_the_tuner(void **state) {
  (void)state;
  ns_cluster *c = cluster16();
  ns_job *a = job("a", 2), *b = job("b", 2);
  int gb[] = {14, 15};
  ns_placement *pb = ns_placement_new();
  for (int g = 0; g < 2; g++)
    assert_int_equal(ns_placement_add_gpu(pb, gb[g]), NS_OK);
  assert_int_equal(ns_cluster_commit(c, b, pb), NS_OK);
  ns_queue *q = ns_queue_new();
  ns_decision *d = ns_decision_new();
  ns_policy *p = ns_policy_new("dally");
  assert_int_equal(ns_queue_add(q, a, 1, 0.0), 0);
  assert_int_equal(ns_queue_add(q, b, 2, 1.0), 1);
  ns_delay_tuner *t = ns_policy_tuner(p);
  assert_non_null(t);
  char before[256], after[256];
  size_t need = 0, n = 9;
  assert_int_equal(ns_policy_save(p, before, sizeof before, &need), NS_OK);
  int rc = ns_policy_decide(p, c, q, 5000.0, d);
  assert_true(rc < 0);
  assert_non_null(strstr(ns_last_error(), "'b'"));
  assert_int_equal(ns_delay_tuner_sample_count(t, NS_TIER_MACHINE, 2, 5000.0, &n), NS_OK);
  assert_int_equal(n, 0);
  assert_int_equal(ns_policy_save(p, after, sizeof after, &need), NS_OK);
  assert_string_equal(after, before);
  assert_string_equal(after, "ns_policy 1\npolicy dally\n");
  assert_int_equal(ns_delay_tuner_sample_count(t, NS_TIER_MACHINE, 2, 4000.0, &n), NS_OK);
  assert_int_equal(ns_cluster_job_count(c), 1); /* c as it was: b alone */
  /* without b the same decision succeeds and keeps a's wait */
  assert_int_equal(ns_queue_truncate(q, 1), NS_OK);
  assert_int_equal(ns_policy_decide(p, c, q, 5000.0, d), NS_OK);
  assert_int_equal(ns_decision_start_count(d), 1);
  assert_int_equal(ns_delay_tuner_sample_count(t, NS_TIER_MACHINE, 2, 5000.0, &n), NS_OK);
  assert_int_equal(n, 1);
  assert_int_equal(ns_policy_save(p, after, sizeof after, &need), NS_OK);
  assert_string_equal(after, "ns_policy 1\npolicy dally\nwait 0 2 5000 5000\n");
  ns_policy_free(p);
  ns_decision_free(d);
  ns_queue_free(q);
  ns_placement_free(pb);
  ns_job_free(a), ns_job_free(b);
  ns_cluster_free(c);
}

/* The tuner handle outlives ns_policy_load: a caller holding
   ns_policy_tuner(p) from before reads the loaded waits through it (before,
   load freed it: a use after free under valgrind/ASan). */
static void test_tuner_handle_survives_load(void **state) {
  (void)state;
  ns_policy *p = ns_policy_new("dally");
  ns_delay_tuner *t = ns_policy_tuner(p);
  assert_non_null(t);
  size_t n = 9;
  assert_int_equal(ns_delay_tuner_sample_count(t, NS_TIER_RACK, 4, 9000.0, &n), NS_OK);
  assert_int_equal(n, 0);
  static const char blob[] = "ns_policy 1\npolicy dally\nwait 1 4 1500 8000\nwait 1 4 2500 9000\n";
  assert_int_equal(ns_policy_load(p, blob, sizeof blob - 1), NS_OK);
  assert_ptr_equal(ns_policy_tuner(p), t);
  assert_int_equal(ns_delay_tuner_sample_count(t, NS_TIER_RACK, 4, 9000.0, &n), NS_OK);
  assert_int_equal(n, 2);
  /* rack timer = mean + 2 sd of {1500, 2500} = 2000 + 2 x 707.107 */
  double m = 0, r = 0;
  assert_int_equal(ns_delay_tuner_timers(t, 4, 9000.0, &m, &r), NS_OK);
  assert_near(r, 2000 + 2 * sqrt(500000.0), 1e-6);
  assert_fails_with(ns_policy_load(p, "ns_policy 1\n", 12), NS_EINVAL, "truncated");
  assert_ptr_equal(ns_policy_tuner(p), t);
  assert_int_equal(ns_delay_tuner_sample_count(t, NS_TIER_RACK, 4, 9000.0, &n), NS_OK);
  assert_int_equal(n, 2);
  ns_policy_free(p);
}

/* ns_policy_clone copies the parts and options, not the state: a clone of
   a policy that has decided can still be set; ns_policy_set_preset applies
   a preset's parts over the options. ns_sim_opts holds its parts in one
   ns_policy: its setters forward and keep their messages. */
static void test_clone_and_set_preset(void **state) {
  (void)state;
  ns_policy *p = ns_policy_new("srsf-2");
  assert_int_equal(ns_policy_set_kappa(p, 3), NS_OK);
  assert_int_equal(ns_policy_set_seed(p, 7), NS_OK);
  ns_cluster *c = cluster16();
  ns_queue *q = ns_queue_new();
  ns_decision *d = ns_decision_new();
  assert_int_equal(ns_policy_decide(p, c, q, 0.0, d), NS_OK);
  ns_policy *k = ns_policy_clone(p);
  assert_non_null(k);
  assert_string_equal(ns_policy_name(k), "custom");
  assert_int_equal(ns_policy_kappa_of(k), 3);
  assert_int_equal(ns_policy_order_of(k), NS_POLICY_ORDER_SRSF);
  int n = 0;
  assert_int_equal(ns_policy_admission_of(k, &n), NS_POLICY_ADMIT_SRSF);
  assert_int_equal(n, 2);
  assert_int_equal(ns_policy_set_order(k, NS_POLICY_ORDER_FIFO), NS_OK); /* not yet decided */
  assert_fails_with(ns_policy_set_order(p, NS_POLICY_ORDER_FIFO), NS_ESTATE, "already decided");
  /* a preset over the options: parts replaced, kappa the preset's, name the preset's */
  assert_int_equal(ns_policy_set_preset(k, "cassini-lwf-1"), NS_OK);
  assert_string_equal(ns_policy_name(k), "cassini-lwf-1");
  assert_int_equal(ns_policy_kappa_of(k), 1);
  assert_int_equal(ns_policy_uses_cassini(k), 1);
  assert_int_equal(ns_policy_placement_of(k), NS_POLICY_PLACE_LWF);
  assert_fails_with(ns_policy_set_preset(k, "nope"), NS_EINVAL, "'nope'");
  assert_string_equal(ns_policy_name(k), "cassini-lwf-1");
  assert_null(ns_policy_clone(NULL));
  assert_non_null(strstr(ns_last_error(), "p is NULL"));
  /* the simulator's options: forwards, with their own function names */
  ns_sim_opts *o = ns_sim_opts_new();
  assert_fails_with(ns_sim_opts_set_kappa(o, 0), NS_EINVAL, "ns_sim_opts_set_kappa: kappa");
  assert_fails_with(ns_sim_opts_set_cassini(o, 1, 11), NS_EINVAL,
                    "ns_sim_opts_set_cassini: max_candidates");
  assert_fails_with(ns_sim_opts_set_admission(o, NS_SIM_ADMIT_SRSF, 65), NS_EINVAL,
                    "ns_sim_opts_set_admission: n");
  assert_fails_with(ns_sim_opts_set_order(o, (ns_sim_order)9), NS_EINVAL,
                    "ns_sim_opts_set_order: order");
  assert_string_equal(ns_sim_opts_policy_name(o), "ff");
  assert_int_equal(ns_sim_opts_set_policy_name(o, "2d-gittins"), NS_OK);
  assert_string_equal(ns_sim_opts_policy_name(o), "2d-gittins");
  assert_int_equal(ns_sim_opts_set_backfill(o, 0), NS_OK);
  assert_string_equal(ns_sim_opts_policy_name(o), "custom");
  assert_int_equal(ns_sim_opts_set_policy(o, NS_SIM_POLICY_FF), NS_OK);
  assert_string_equal(ns_sim_opts_policy_name(o), "ff");
  ns_sim_opts_free(o);
  ns_policy_free(k);
  ns_policy_free(p);
  ns_decision_free(d);
  ns_queue_free(q);
  ns_cluster_free(c);
}

/* ns_policy_admit by hand: SRSF(1) starts only with no other all-reduce on
   any of its links ({0, 0} yes, {0, 1} no); SRSF(2) with fewer than 2 on
   each ({1, 1} yes, {2, 0} no); AdaDUAL with b = 1, eta = 0 has threshold
   b / (2 (b + eta)) = 0.5: no task on its servers -> start; one task with
   300 bytes left and 100 new bytes (1/3 < 0.5) -> start, 200 new bytes
   (2/3) -> wait; two tasks on a server -> wait. "ff" admits everything. */
static void test_admission(void **state) {
  (void)state;
  ns_policy *ff = ns_policy_new("ff"), *s1 = ns_policy_new("srsf-1");
  ns_policy *s2 = ns_policy_new("srsf-2"), *ad = ns_policy_new("ada-srsf");
  int st = -1;
  const int zero[] = {0, 0}, one[] = {0, 1}, ones[] = {1, 1}, two[] = {2, 0};
  assert_int_equal(ns_policy_admit(s1, 100, zero, 2, NULL, NULL, 0, 1, 0, &st), NS_OK);
  assert_int_equal(st, 1);
  assert_int_equal(ns_policy_admit(s1, 100, one, 2, NULL, NULL, 0, 1, 0, &st), NS_OK);
  assert_int_equal(st, 0);
  assert_int_equal(ns_policy_admit(s2, 100, ones, 2, NULL, NULL, 0, 1, 0, &st), NS_OK);
  assert_int_equal(st, 1);
  assert_int_equal(ns_policy_admit(s2, 100, two, 2, NULL, NULL, 0, 1, 0, &st), NS_OK);
  assert_int_equal(st, 0);
  assert_int_equal(ns_policy_admit(ff, 100, two, 2, NULL, NULL, 0, 1, 0, &st), NS_OK);
  assert_int_equal(st, 1);
  const int t0[] = {0, 0}, t1[] = {1, 0}, t2[] = {2, 0};
  const uint64_t r0[] = {0, 0}, r1[] = {300, 0};
  assert_int_equal(ns_policy_admit(ad, 100, NULL, 0, t0, r0, 2, 1, 0, &st), NS_OK);
  assert_int_equal(st, 1);
  assert_int_equal(ns_policy_admit(ad, 100, NULL, 0, t1, r1, 2, 1, 0, &st), NS_OK);
  assert_int_equal(st, 1);
  assert_int_equal(ns_policy_admit(ad, 200, NULL, 0, t1, r1, 2, 1, 0, &st), NS_OK);
  assert_int_equal(st, 0);
  assert_int_equal(ns_policy_admit(ad, 100, NULL, 0, t2, r0, 2, 1, 0, &st), NS_OK);
  assert_int_equal(st, 0);
  /* bad input names the argument; *start untouched */
  const int neg[] = {0, -1};
  st = 7;
  assert_fails_with(ns_policy_admit(s1, 100, neg, 2, NULL, NULL, 0, 1, 0, &st), NS_EINVAL,
                    "others_per_link[1]");
  assert_fails_with(ns_policy_admit(s1, 100, NULL, 2, NULL, NULL, 0, 1, 0, &st), NS_EINVAL,
                    "others_per_link");
  assert_fails_with(ns_policy_admit(ad, 100, NULL, 0, t1, r1, 2, -1, 0, &st), NS_EINVAL,
                    "ns_policy_admit");
  assert_int_equal(st, 7);
  assert_fails_with(ns_policy_admit(s1, 100, zero, 2, NULL, NULL, 0, 1, 0, NULL), NS_EINVAL,
                    "start");
  ns_policy_free(ff), ns_policy_free(s1), ns_policy_free(s2), ns_policy_free(ad);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_preset_table_is_the_simulators),
      cmocka_unit_test(test_bad_input_names_the_argument),
      cmocka_unit_test(test_unknown_preset_says_did_you_mean),
      cmocka_unit_test(test_decide_backfill_and_head_of_line),
      cmocka_unit_test(test_srsf_and_sjf_keys),
      cmocka_unit_test(test_dally_decline_retry_and_accept),
      cmocka_unit_test(test_reported_progress_orders_dally),
      cmocka_unit_test(test_cassini_candidates_and_shifts),
      cmocka_unit_test(test_save_load_dally_state),
      cmocka_unit_test(test_clone_and_set_preset),
      cmocka_unit_test(test_admission),
      cmocka_unit_test(test_time_must_not_go_back),
      cmocka_unit_test(test_failed_decision_leaves_the_tuner),
      cmocka_unit_test(test_tuner_handle_survives_load),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
