/*
 * tests/abi/test_sim_abi.c - misuse of every ns_sim_* function: NULL
 * handles, out-of-range enums and ints, NaN/inf/negative doubles, bad
 * paths. Each returns its documented status with a message naming the
 * argument, never crashes, and leaves the handle usable.
 */
#include "abi_test.h"

static const double bad_doubles[] = {NAN, INFINITY, -INFINITY, -1.0};
#define NBAD (sizeof bad_doubles / sizeof bad_doubles[0])

static int dummy_place(const ns_cluster *c, const ns_job *j, ns_placement *out, void *u) {
  (void)c, (void)j, (void)out, (void)u;
  return NS_ENOSPACE;
}

START_TEST(test_opts_null) {
  ns_sim_opts_free(NULL);
  ck_assert_fails(ns_sim_opts_set_policy(NULL, NS_SIM_POLICY_FF), NS_EINVAL, "o");
  ck_assert_fails(ns_sim_opts_set_policy_name(NULL, "ff"), NS_EINVAL, "o");
  ck_assert_fails(ns_sim_opts_set_order(NULL, NS_SIM_ORDER_FIFO), NS_EINVAL, "o");
  ck_assert_fails(ns_sim_opts_set_placement(NULL, NS_SIM_PLACE_FIRST_FIT), NS_EINVAL, "o");
  ck_assert_fails(ns_sim_opts_set_kappa(NULL, 1), NS_EINVAL, "o");
  ck_assert_fails(ns_sim_opts_set_admission(NULL, NS_SIM_ADMIT_ALL, 1), NS_EINVAL, "o");
  ck_assert_fails(ns_sim_opts_set_cassini(NULL, 1, 10), NS_EINVAL, "o");
  ck_assert_fails(ns_sim_opts_set_network(NULL, NS_SIM_NET_MAXMIN), NS_EINVAL, "o");
  ck_assert_fails(ns_sim_opts_set_cluster(NULL, 1, 0, 1, 1, 0, 10), NS_EINVAL, "o");
  ck_assert_fails(ns_sim_opts_set_bandwidth(NULL, 10, 10), NS_EINVAL, "o");
  ck_assert_fails(ns_sim_opts_set_contention(NULL, 0, 0, 0), NS_EINVAL, "o");
  ck_assert_fails(ns_sim_opts_set_seed(NULL, 1), NS_EINVAL, "o");
  ck_assert_fails(ns_sim_opts_set_dally(NULL, 1, 1, 1), NS_EINVAL, "o");
  ck_assert_fails(ns_sim_opts_set_skew_threshold(NULL, 1), NS_EINVAL, "o");
  ck_assert_fails(ns_sim_opts_set_place_fn(NULL, dummy_place, NULL), NS_EINVAL, "o");
  ck_assert_fails(ns_sim_opts_set_gpu_sharing(NULL, 1), NS_EINVAL, "o");
  ck_assert_str_eq(ns_sim_opts_policy_name(NULL), "");
}
END_TEST

START_TEST(test_opts_out_of_range) {
  ns_sim_opts *o = ns_sim_opts_new();
  ck_assert_ptr_nonnull(o);
  ck_assert_fails(ns_sim_opts_set_policy(o, (ns_sim_policy)-1), NS_EINVAL, "policy");
  ck_assert_fails(ns_sim_opts_set_policy(o, (ns_sim_policy)ns_sim_policy_count()), NS_EINVAL, "policy");
  ck_assert_fails(ns_sim_opts_set_policy_name(o, NULL), NS_EINVAL, "name");
  ck_assert_fails(ns_sim_opts_set_policy_name(o, "nope"), NS_EINVAL, "name");
  ck_assert_fails(ns_sim_opts_set_order(o, (ns_sim_order)6), NS_EINVAL, "order");
  ck_assert_fails(ns_sim_opts_set_order(o, (ns_sim_order)-1), NS_EINVAL, "order");
  ck_assert_fails(ns_sim_opts_set_placement(o, (ns_sim_placement)12), NS_EINVAL, "placement");
  ck_assert_fails(ns_sim_opts_set_placement(o, NS_SIM_PLACE_CUSTOM), NS_EINVAL, "placement");
  ck_assert_fails(ns_sim_opts_set_kappa(o, 0), NS_EINVAL, "kappa");
  ck_assert_fails(ns_sim_opts_set_admission(o, (ns_sim_admission)3, 1), NS_EINVAL, "admission");
  ck_assert_fails(ns_sim_opts_set_admission(o, NS_SIM_ADMIT_SRSF, 65), NS_EINVAL, "n");
  ck_assert_fails(ns_sim_opts_set_cassini(o, 2, 10), NS_EINVAL, "enabled");
  ck_assert_fails(ns_sim_opts_set_cassini(o, 1, 0), NS_EINVAL, "max_candidates");
  ck_assert_fails(ns_sim_opts_set_network(o, (ns_sim_network)64), NS_EINVAL, "model");
  ck_assert_fails(ns_sim_opts_set_network(o, (ns_sim_network)-1), NS_EINVAL, "model");
  ck_assert_fails(ns_sim_opts_set_phase_window(o, -1), NS_EINVAL, "iterations");
  ck_assert_fails(ns_sim_opts_set_cassini_drift(o, NAN), NS_EINVAL, "fraction");
  ck_assert_fails(ns_sim_opts_set_cassini_drift(o, 0.75), NS_EINVAL, "0.75");
  ck_assert_fails(ns_sim_opts_set_cluster(o, 0, 0, 1, 1, 0, 10), NS_EINVAL, "leaves");
  ck_assert_fails(ns_sim_opts_set_cluster(o, 1, 0, 0, 1, 0, 10), NS_EINVAL, "servers_per_leaf");
  ck_assert_fails(ns_sim_opts_set_cluster(o, 1, 0, 1, 0, 0, 10), NS_EINVAL, "gpus_per_server");
  ck_assert_fails(ns_sim_opts_set_place_fn(o, NULL, NULL), NS_EINVAL, "fn");
  ck_assert_fails(ns_sim_opts_set_gpu_sharing(o, 2), NS_EINVAL, "shared");
  ck_assert_fails(ns_sim_opts_set_gpu_sharing(o, -1), NS_EINVAL, "shared");
  for (size_t i = 0; i < NBAD; i++) {
    double d = bad_doubles[i];
    ck_assert_fails(ns_sim_opts_set_cluster(o, 1, 0, 1, 1, 0, d), NS_EINVAL, "link_gbps");
    ck_assert_fails(ns_sim_opts_set_bandwidth(o, d, 10), NS_EINVAL, "nic_gbps");
    ck_assert_fails(ns_sim_opts_set_bandwidth(o, 10, d), NS_EINVAL, "intra_gbps");
    ck_assert_fails(ns_sim_opts_set_contention(o, d, 0, 0), NS_EINVAL, "a_ms");
    ck_assert_fails(ns_sim_opts_set_contention(o, 0, d, 0), NS_EINVAL, "b_ms_per_byte");
    ck_assert_fails(ns_sim_opts_set_contention(o, 0, 0, d), NS_EINVAL, "eta_ms_per_byte");
    ck_assert_fails(ns_sim_opts_set_dally(o, d, 1, 1), NS_EINVAL, "machine_ms");
    ck_assert_fails(ns_sim_opts_set_dally(o, 1, d, 1), NS_EINVAL, "rack_ms");
    ck_assert_fails(ns_sim_opts_set_dally(o, 1, 1, d), NS_EINVAL, "history_ms");
  }
  ck_assert_fails(ns_sim_opts_set_dally(o, 1, 1, 0), NS_EINVAL, "history_ms");
  ck_assert_str_eq(ns_sim_opts_policy_name(o), "ff"); /* failures changed nothing */
  ns_sim_opts_free(o);
}
END_TEST

START_TEST(test_sim_null) {
  ns_sim_free(NULL);
  ck_assert_null_names(ns_sim_new(NULL), "o");
  double v;
  ck_assert_fails(ns_sim_add_job(NULL, "j", 0, 1, 1, 1, 0, 0), NS_EINVAL, "s");
  ck_assert_fails(ns_sim_add_model_job(NULL, "j", 0, 1, 1, NS_SIM_MODEL_VGG16), NS_EINVAL, "s");
  ck_assert_fails(ns_sim_load_default_workload(NULL), NS_EINVAL, "s");
  ck_assert_fails(ns_sim_load_trace(NULL, "x.csv", NS_SIM_TRACE_PHILLY), NS_EINVAL, "s");
  ck_assert_fails(ns_sim_set_progress(NULL, NULL, NULL), NS_EINVAL, "s");
  ck_assert_fails(ns_sim_run(NULL), NS_EINVAL, "s");
  ck_assert_fails(ns_sim_metric(NULL, NS_SIM_METRIC_AVG_JCT_MS, &v), NS_EINVAL, "s");
  ck_assert_fails(ns_sim_job_count(NULL), NS_EINVAL, "s");
  ck_assert_fails(ns_sim_skipped_count(NULL), NS_EINVAL, "s");
  ck_assert_fails(ns_sim_job_result(NULL, 0, &v, &v, &v, NULL), NS_EINVAL, "s");
  ck_assert_fails(ns_sim_job_gpus(NULL, 0), NS_EINVAL, "s");
  ck_assert_fails(ns_sim_write_jobs_csv(NULL, "/tmp/x.csv"), NS_EINVAL, "s");
  ck_assert_str_eq(ns_sim_job_name(NULL, 0), "");
  ck_assert_str_eq(ns_sim_metric_name(-1), "");
  ck_assert_str_eq(ns_sim_metric_name(NS_SIM_METRIC_COUNT), "");
  ck_assert_str_eq(ns_sim_policy_name(-1), "");
  ck_assert_str_eq(ns_sim_policy_description(99), "");
}
END_TEST

START_TEST(test_sim_bad_args) {
  ns_sim_opts *o = ns_sim_opts_new();
  ns_sim *s = ns_sim_new(o);
  ck_assert_ptr_nonnull(s);
  for (size_t i = 0; i < NBAD; i++) {
    double d = bad_doubles[i];
    ck_assert_fails(ns_sim_add_job(s, "j", d, 1, 1, 1, 0, 0), NS_EINVAL, "arrival_ms");
    ck_assert_fails(ns_sim_add_job(s, "j", 0, 1, 1, d, 0, 0), NS_EINVAL, "compute_ms");
    ck_assert_fails(ns_sim_add_job(s, "j", 0, 1, 1, 1, 0, d), NS_EINVAL, "mem_mb");
    ck_assert_fails(ns_sim_add_model_job(s, "j", d, 1, 1, NS_SIM_MODEL_VGG16), NS_EINVAL, "arrival_ms");
    ck_assert_fails(ns_sim_scale_arrivals(s, d), NS_EINVAL, "factor");
  }
  ck_assert_fails(ns_sim_scale_arrivals(s, 0), NS_EINVAL, "factor");
  ck_assert_fails(ns_sim_scale_arrivals(NULL, 2), NS_EINVAL, "s");
  ck_assert_fails(ns_sim_add_job(s, "j", 0, 1, 1, 0, 0, 0), NS_EINVAL, "compute_ms");
  ck_assert_fails(ns_sim_add_job(s, NULL, 0, 1, 1, 1, 0, 0), NS_EINVAL, "name");
  ck_assert_fails(ns_sim_add_job(s, "j", 0, -1, 1, 1, 0, 0), NS_EINVAL, "gpus");
  ck_assert_fails(ns_sim_add_job(s, "j", 0, 1, 0, 1, 0, 0), NS_EINVAL, "iterations");
  ck_assert_fails(ns_sim_add_model_job(s, "j", 0, 1, 1, (ns_sim_model)-1), NS_EINVAL, "model");
  ck_assert_fails(ns_sim_add_model_job(s, "j", 0, 1, 1, (ns_sim_model)4), NS_EINVAL, "model");
  ck_assert_fails(ns_sim_add_job(s, "big", 0, 65, 1, 1, 0, 0), NS_ENOSPACE, "big");
  ck_assert_fails(ns_sim_load_trace(s, NULL, NS_SIM_TRACE_PHILLY), NS_EINVAL, "path");
  ck_assert_fails(ns_sim_load_trace(s, "/nonexistent/x.csv", (ns_sim_trace_format)3), NS_EINVAL, "format"); /* 2 = AUTO */
  ck_assert_fails(ns_sim_add_model_profile(s, "m", 1, 1, 0, -1), NS_EINVAL, "mem_mb");
  ck_assert_fails(ns_sim_add_model_profile(NULL, "m", 1, 1, 0, 0), NS_EINVAL, "s");
  ck_assert_str_eq(ns_sim_job_model(NULL, 0), "");
  ck_assert_fails(ns_sim_load_trace(s, "/nonexistent/x.csv", NS_SIM_TRACE_PHILLY), NS_EINVAL, "path");
  ck_assert_fails(ns_sim_run(s), NS_EINVAL, "s"); /* no jobs */
  double v;
  ck_assert_int_eq(ns_sim_add_job(s, "j", 0, 1, 1, 1, 0, 0), 0);
  ck_assert_fails(ns_sim_metric(s, NS_SIM_METRIC_AVG_JCT_MS, &v), NS_ESTATE, "ns_sim_run");
  ck_assert_fails(ns_sim_metric(s, (ns_sim_metric_id)-1, &v), NS_EINVAL, "metric");
  ck_assert_fails(ns_sim_metric(s, (ns_sim_metric_id)NS_SIM_METRIC_COUNT, &v), NS_EINVAL, "metric");
  ck_assert_fails(ns_sim_metric(s, NS_SIM_METRIC_AVG_JCT_MS, NULL), NS_EINVAL, "value");
  ck_assert_fails(ns_sim_job_result(s, 1, &v, &v, &v, NULL), NS_EINVAL, "job");
  ck_assert_fails(ns_sim_job_result(s, -1, &v, &v, &v, NULL), NS_EINVAL, "job");
  ck_assert_fails(ns_sim_job_result(s, 0, &v, &v, &v, NULL), NS_ESTATE, "ns_sim_run");
  ck_assert_fails(ns_sim_job_gpus(s, 1), NS_EINVAL, "job");
  ck_assert_fails(ns_sim_write_jobs_csv(s, NULL), NS_EINVAL, "path");
  ck_assert_fails(ns_sim_write_jobs_csv(s, "/tmp/x.csv"), NS_ESTATE, "ns_sim_run");
  ck_assert_str_eq(ns_sim_job_name(s, 5), "");
  ck_assert_str_eq(ns_sim_job_name(s, 0), "j");
  ck_assert_int_eq(ns_sim_job_count(s), 1);
  ck_assert_int_eq(ns_sim_skipped_count(s), 1);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}
END_TEST

/* A policy whose module is missing, or a placement that never succeeds,
   ends cleanly: EUNSUPPORTED naming the policy, or unfinished jobs. */
START_TEST(test_sim_never_placed) {
  ns_sim_opts *o = ns_sim_opts_new();
  ck_assert_int_eq(ns_sim_opts_set_place_fn(o, dummy_place, NULL), NS_OK);
  ns_sim *s = ns_sim_new(o);
  ck_assert_int_eq(ns_sim_add_job(s, "j", 0, 1, 1, 1, 0, 0), 0);
  ck_assert_int_eq(ns_sim_run(s), NS_OK);
  double v;
  ck_assert_int_eq(ns_sim_metric(s, NS_SIM_METRIC_UNFINISHED, &v), NS_OK);
  ck_assert(v == 1.0);
  ck_assert_int_eq(ns_sim_metric(s, NS_SIM_METRIC_AVG_JCT_MS, &v), NS_OK);
  ck_assert(v == 0.0); /* no finished job: 0, never NaN */
  ns_sim_free(s);
  ns_sim_opts_free(o);
}
END_TEST

static Suite *sim_suite(void) {
  Suite *s = suite_create("sim_abi");
  TCase *tc = tcase_create("misuse");
  tcase_add_test(tc, test_opts_null);
  tcase_add_test(tc, test_opts_out_of_range);
  tcase_add_test(tc, test_sim_null);
  tcase_add_test(tc, test_sim_bad_args);
  tcase_add_test(tc, test_sim_never_placed);
  suite_add_tcase(s, tc);
  return s;
}

NS_ABI_MAIN(sim_suite)
