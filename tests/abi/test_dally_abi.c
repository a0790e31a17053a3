/*
 * tests/abi/test_dally_abi.c - every public Dally function under misuse:
 * NULL handles, out-of-range ints, NaN / inf / negative doubles, time going
 * back, jobs larger than the cluster. Each must return its documented
 * status and name the offending argument, never crash (fork mode).
 */
#include "abi_test.h"

#define H (3600e3)

/* A double-returning call gave NAN and named `arg`. */
#define ck_assert_nan_names(expr, arg)                                                    \
  do {                                                                                    \
    double abi_d_ = (expr);                                                               \
    ck_assert_msg(isnan(abi_d_), "%s returned %g, expected NAN", #expr, abi_d_);          \
    ck_assert_msg(strstr(ns_last_error(), (arg)) != NULL,                                 \
                  "%s: last error '%s' does not name '%s'", #expr, ns_last_error(), (arg)); \
  } while (0)

static ns_delay_tuner *t;
static ns_cluster *c;
static ns_job *job;
static ns_placement *p;

static void setup(void) {
  t = ns_delay_tuner_new(24 * H, 12 * H, 12 * H);
  c = ns_cluster_new_leaf_spine(2, 1, 2, 4, 1, 100);
  job = ns_job_new("j", 2);
  p = ns_placement_new();
  ck_assert(t && c && job && p);
}

static void teardown(void) {
  ns_placement_free(p);
  ns_job_free(job);
  ns_cluster_free(c);
  ns_delay_tuner_free(t);
}

START_TEST(test_tuner_new_rejects) {
  ck_assert_null_names(ns_delay_tuner_new(0, 1, 1), "history_limit_ms");
  ck_assert_null_names(ns_delay_tuner_new(-5, 1, 1), "history_limit_ms");
  ck_assert_null_names(ns_delay_tuner_new(NAN, 1, 1), "history_limit_ms");
  ck_assert_null_names(ns_delay_tuner_new(INFINITY, 1, 1), "history_limit_ms");
  ck_assert_null_names(ns_delay_tuner_new(1, -1, 1), "default_machine_ms");
  ck_assert_null_names(ns_delay_tuner_new(1, NAN, 1), "default_machine_ms");
  ck_assert_null_names(ns_delay_tuner_new(1, 1e16, 1), "default_machine_ms");
  ck_assert_null_names(ns_delay_tuner_new(1, 1, -INFINITY), "default_rack_ms");
  ns_delay_tuner_free(NULL);
}
END_TEST

START_TEST(test_record_rejects) {
  ck_assert_fails(ns_delay_tuner_record(NULL, NS_TIER_MACHINE, 1, 1, 0), NS_EINVAL, "t");
  ck_assert_fails(ns_delay_tuner_record(t, (ns_tier)-1, 1, 1, 0), NS_EINVAL, "tier");
  ck_assert_fails(ns_delay_tuner_record(t, NS_TIER_NETWORK, 1, 1, 0), NS_EINVAL, "tier");
  ck_assert_fails(ns_delay_tuner_record(t, (ns_tier)99, 1, 1, 0), NS_EINVAL, "tier");
  ck_assert_fails(ns_delay_tuner_record(t, NS_TIER_RACK, 0, 1, 0), NS_EINVAL, "gpus");
  ck_assert_fails(ns_delay_tuner_record(t, NS_TIER_RACK, -3, 1, 0), NS_EINVAL, "gpus");
  ck_assert_fails(ns_delay_tuner_record(t, NS_TIER_RACK, (1 << 20) + 1, 1, 0), NS_EINVAL,
                  "gpus");
  ck_assert_fails(ns_delay_tuner_record(t, NS_TIER_RACK, 1, -1, 0), NS_EINVAL, "waited_ms");
  ck_assert_fails(ns_delay_tuner_record(t, NS_TIER_RACK, 1, NAN, 0), NS_EINVAL, "waited_ms");
  ck_assert_fails(ns_delay_tuner_record(t, NS_TIER_RACK, 1, INFINITY, 0), NS_EINVAL,
                  "waited_ms");
  ck_assert_fails(ns_delay_tuner_record(t, NS_TIER_RACK, 1, 1, NAN), NS_EINVAL, "now_ms");
  ck_assert_fails(ns_delay_tuner_record(t, NS_TIER_RACK, 1, 1, -1), NS_EINVAL, "now_ms");
  ck_assert_fails(ns_delay_tuner_record(t, NS_TIER_RACK, 1, 1, INFINITY), NS_EINVAL, "now_ms");
  ck_assert_int_eq(ns_delay_tuner_record(t, NS_TIER_RACK, 1, 1, 1000), NS_OK);
  ck_assert_fails(ns_delay_tuner_record(t, NS_TIER_RACK, 1, 1, 999), NS_EINVAL, "now_ms");
}
END_TEST

START_TEST(test_timers_and_count_reject) {
  double mc, rk;
  size_t n;
  ck_assert_fails(ns_delay_tuner_timers(NULL, 1, 0, &mc, &rk), NS_EINVAL, "t");
  ck_assert_fails(ns_delay_tuner_timers(t, 0, 0, &mc, &rk), NS_EINVAL, "gpus");
  ck_assert_fails(ns_delay_tuner_timers(t, 1, NAN, &mc, &rk), NS_EINVAL, "now_ms");
  ck_assert_fails(ns_delay_tuner_timers(t, 1, -INFINITY, &mc, &rk), NS_EINVAL, "now_ms");
  ck_assert_fails(ns_delay_tuner_timers(t, 1, 0, NULL, &rk), NS_EINVAL, "machine_ms");
  ck_assert_fails(ns_delay_tuner_timers(t, 1, 0, &mc, NULL), NS_EINVAL, "rack_ms");
  ck_assert_fails(ns_delay_tuner_sample_count(NULL, NS_TIER_RACK, 1, 0, &n), NS_EINVAL, "t");
  ck_assert_fails(ns_delay_tuner_sample_count(t, NS_TIER_NETWORK, 1, 0, &n), NS_EINVAL, "tier");
  ck_assert_fails(ns_delay_tuner_sample_count(t, NS_TIER_RACK, 0, 0, &n), NS_EINVAL, "gpus");
  ck_assert_fails(ns_delay_tuner_sample_count(t, NS_TIER_RACK, 1, NAN, &n), NS_EINVAL, "now_ms");
  ck_assert_fails(ns_delay_tuner_sample_count(t, NS_TIER_RACK, 1, 0, NULL), NS_EINVAL, "count");
  ck_assert_fails(ns_dally_timers(NULL, c, 1, 0, &mc, &rk), NS_EINVAL, "t");
  ck_assert_fails(ns_dally_timers(t, NULL, 1, 0, &mc, &rk), NS_EINVAL, "c");
  ck_assert_fails(ns_dally_timers(t, c, 0, 0, &mc, &rk), NS_EINVAL, "gpus");
  ck_assert_fails(ns_dally_timers(t, c, 1, -1, &mc, &rk), NS_EINVAL, "now_ms");
  ck_assert_fails(ns_dally_timers(t, c, 1, 0, NULL, &rk), NS_EINVAL, "machine_ms");
  ck_assert_fails(ns_dally_timers(t, c, 1, 0, &mc, NULL), NS_EINVAL, "rack_ms");
  ck_assert_fails(ns_delay_tuner_set_manual(NULL, 1), NS_EINVAL, "t");
  ck_assert_fails(ns_delay_tuner_set_manual(t, -1), NS_EINVAL, "manual");
  ck_assert_fails(ns_delay_tuner_set_manual(t, 2), NS_EINVAL, "manual");
  ck_assert_int_eq(ns_delay_tuner_timers(t, 1, 0, &mc, &rk), NS_OK);
  ck_assert(mc == 12 * H && rk == 24 * H);
}
END_TEST

START_TEST(test_offer_rejects) {
  int acc = 7;
  ck_assert_fails(ns_dally_offer(NULL, c, job, 0, 0, p, &acc), NS_EINVAL, "t");
  ck_assert_fails(ns_dally_offer(t, NULL, job, 0, 0, p, &acc), NS_EINVAL, "c");
  ck_assert_fails(ns_dally_offer(t, c, NULL, 0, 0, p, &acc), NS_EINVAL, "job");
  ck_assert_fails(ns_dally_offer(t, c, job, -1, 0, p, &acc), NS_EINVAL, "starvation_ms");
  ck_assert_fails(ns_dally_offer(t, c, job, NAN, 0, p, &acc), NS_EINVAL, "starvation_ms");
  ck_assert_fails(ns_dally_offer(t, c, job, INFINITY, 0, p, &acc), NS_EINVAL, "starvation_ms");
  ck_assert_fails(ns_dally_offer(t, c, job, 1e300, 0, p, &acc), NS_EINVAL, "starvation_ms");
  ck_assert_fails(ns_dally_offer(t, c, job, 0, NAN, p, &acc), NS_EINVAL, "now_ms");
  ck_assert_fails(ns_dally_offer(t, c, job, 0, -1, p, &acc), NS_EINVAL, "now_ms");
  ck_assert_fails(ns_dally_offer(t, c, job, 0, 0, NULL, &acc), NS_EINVAL, "out");
  ck_assert_fails(ns_dally_offer(t, c, job, 0, 0, p, NULL), NS_EINVAL, "accepted");
  ck_assert_int_eq(acc, 7);
  ns_job *big = ns_job_new("big", 17);
  ck_assert_fails(ns_dally_offer(t, c, big, 0, 0, p, &acc), NS_EINVAL, "job");
  ns_job_free(big);
  ck_assert_int_eq(ns_dally_offer(t, c, job, 0, 500, p, &acc), NS_OK);
  ck_assert_int_eq(acc, 1);
  ck_assert_fails(ns_dally_offer(t, c, job, 0, 499, p, &acc), NS_EINVAL, "now_ms");
}
END_TEST

START_TEST(test_baselines_reject) {
  ck_assert_fails(ns_place_best_fit(NULL, job, p), NS_EINVAL, "c");
  ck_assert_fails(ns_place_best_fit(c, NULL, p), NS_EINVAL, "job");
  ck_assert_fails(ns_place_best_fit(c, job, NULL), NS_EINVAL, "out");
  ck_assert_fails(ns_place_tiresias(NULL, job, 0, p), NS_EINVAL, "c");
  ck_assert_fails(ns_place_tiresias(c, NULL, 0, p), NS_EINVAL, "job");
  ck_assert_fails(ns_place_tiresias(c, job, 0, NULL), NS_EINVAL, "out");
  ns_job *big = ns_job_new("big", 1 << 20);
  ck_assert_fails(ns_place_best_fit(c, big, p), NS_EINVAL, "job");
  ck_assert_fails(ns_place_tiresias(c, big, UINT64_MAX, p), NS_EINVAL, "job");
  ns_job_free(big);
  /* A full cluster: wait. */
  int all[16];
  for (int g = 0; g < 16; g++)
    all[g] = g;
  ns_cluster_occupy(c, all, 16);
  ck_assert_fails(ns_place_best_fit(c, job, p), NS_ENOSPACE, "ns_place_best_fit");
  ck_assert_fails(ns_place_tiresias(c, job, 0, p), NS_ENOSPACE, "ns_place_tiresias");
}
END_TEST

START_TEST(test_priority_rejects) {
  ck_assert_nan_names(ns_dally_priority(0, 0, 1, 1), "iters_total");
  ck_assert_nan_names(ns_dally_priority(5, 4, 1, 1), "iters_done");
  ck_assert_nan_names(ns_dally_priority(1, 4, NAN, 1), "run_ms");
  ck_assert_nan_names(ns_dally_priority(1, 4, -1, 1), "run_ms");
  ck_assert_nan_names(ns_dally_priority(1, 4, INFINITY, 1), "run_ms");
  ck_assert_nan_names(ns_dally_priority(1, 4, 1, 0), "ideal_run_ms");
  ck_assert_nan_names(ns_dally_priority(1, 4, 1, NAN), "ideal_run_ms");
  ck_assert_nan_names(ns_dally_priority(1, 4, 1, -INFINITY), "ideal_run_ms");
  ck_assert_nan_names(ns_dally_priority(1, 4, 0, 1), "run_ms");
  ck_assert_nan_names(ns_dally_job_priority(NULL, 1), "job");
  ck_assert_nan_names(ns_dally_job_priority(job, 1), "compute");
  ns_job_set_compute_ms(job, 1, 1);
  ck_assert_nan_names(ns_dally_job_priority(job, -1), "run_ms");
  ck_assert_nan_names(ns_dally_job_priority(job, NAN), "run_ms");
  double nw[2] = {1, 2};
  size_t order[2];
  ck_assert_fails(ns_dally_offer_order(NULL, 2, order), NS_EINVAL, "nw_sens");
  ck_assert_fails(ns_dally_offer_order(nw, 2, NULL), NS_EINVAL, "order");
  nw[0] = NAN;
  ck_assert_fails(ns_dally_offer_order(nw, 2, order), NS_EINVAL, "nw_sens[0]");
  nw[0] = -1;
  ck_assert_fails(ns_dally_offer_order(nw, 2, order), NS_EINVAL, "nw_sens[0]");
}
END_TEST

static Suite *dally_suite(void) {
  Suite *s = suite_create("dally_abi");
  TCase *tc = tcase_create("misuse");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_tuner_new_rejects);
  tcase_add_test(tc, test_record_rejects);
  tcase_add_test(tc, test_timers_and_count_reject);
  tcase_add_test(tc, test_offer_rejects);
  tcase_add_test(tc, test_baselines_reject);
  tcase_add_test(tc, test_priority_rejects);
  suite_add_tcase(s, tc);
  return s;
}

NS_ABI_MAIN(dally_suite)
