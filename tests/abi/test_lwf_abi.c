/*
 * tests/abi/test_lwf_abi.c - misuse of every LWF-kappa and baseline
 * placement function (include/netsched/lwf.h) returns the documented status
 * with a message naming the offending argument, and never crashes.
 */
#include "abi_test.h"

static ns_cluster *cluster(void) { return ns_cluster_new_leaf_spine(1, 0, 2, 4, 0, 10.0); }

START_TEST(test_gpu_workload_setter) {
  ns_cluster *c = cluster();
  ck_assert_fails(ns_cluster_set_gpu_workload_ms(NULL, 0, 1), NS_EINVAL, "c is NULL");
  ck_assert_fails(ns_cluster_set_gpu_workload_ms(c, -1, 1), NS_EINVAL, "gpu");
  ck_assert_fails(ns_cluster_set_gpu_workload_ms(c, 8, 1), NS_EINVAL, "gpu");
  ck_assert_fails(ns_cluster_set_gpu_workload_ms(c, 0, NAN), NS_EINVAL, "ms");
  ck_assert_fails(ns_cluster_set_gpu_workload_ms(c, 0, INFINITY), NS_EINVAL, "ms");
  ck_assert_fails(ns_cluster_set_gpu_workload_ms(c, 0, -1), NS_EINVAL, "ms");
  ck_assert(ns_cluster_gpu_workload_ms(c, 0) == 0); /* unchanged */
  ns_cluster_free(c);
}
END_TEST

START_TEST(test_gpu_workload_getter) {
  ns_cluster *c = cluster();
  ck_assert(isnan(ns_cluster_gpu_workload_ms(NULL, 0)));
  ck_assert_ptr_nonnull(strstr(ns_last_error(), "c is NULL"));
  ck_assert(isnan(ns_cluster_gpu_workload_ms(c, 8)));
  ck_assert_ptr_nonnull(strstr(ns_last_error(), "gpu"));
  ck_assert(isnan(ns_cluster_gpu_workload_ms(c, -1)));
  ck_assert_ptr_nonnull(strstr(ns_last_error(), "gpu"));
  ns_cluster_free(c);
}
END_TEST

/* The (c, job, out) checks every placement entry point shares. */
#define PLACEMENT_MISUSE(call3)                                                  \
  do {                                                                           \
    ns_cluster *c = cluster();                                                   \
    ns_job *j = ns_job_new("j", 2), *big = ns_job_new("big", 1 << 20);           \
    ns_placement *p = ns_placement_new();                                        \
    ck_assert_fails(call3(NULL, j, p), NS_EINVAL, "c is NULL");                          \
    ck_assert_fails(call3(c, NULL, p), NS_EINVAL, "job is NULL");                        \
    ck_assert_fails(call3(c, j, NULL), NS_EINVAL, "out is NULL");                        \
    ck_assert_fails(call3(c, big, p), NS_EINVAL, "needs 1048576 GPUs");          \
    ck_assert_int_eq((int)ns_placement_gpu_count(p), 0);                         \
    ck_assert_int_eq(call3(c, j, p), NS_OK);                                     \
    ck_assert_int_eq((int)ns_placement_gpu_count(p), 2);                         \
    ns_placement_free(p);                                                        \
    ns_job_free(j);                                                              \
    ns_job_free(big);                                                            \
    ns_cluster_free(c);                                                          \
  } while (0)

static int lwf1(const ns_cluster *c, const ns_job *j, ns_placement *p) {
  return ns_lwf_place(c, j, 1, p);
}
static int rand7(const ns_cluster *c, const ns_job *j, ns_placement *p) {
  return ns_place_random(c, j, 7, p);
}

START_TEST(test_lwf_place) {
  PLACEMENT_MISUSE(lwf1);
  ns_cluster *c = cluster();
  ns_job *j = ns_job_new("j", 2);
  ns_placement *p = ns_placement_new();
  ck_assert_fails(ns_lwf_place(c, j, 0, p), NS_EINVAL, "kappa");
  ck_assert_fails(ns_lwf_place(c, j, -1, p), NS_EINVAL, "kappa");
  ck_assert_fails(ns_lwf_place(c, j, INT32_MIN, p), NS_EINVAL, "kappa");
  ck_assert_int_eq(ns_lwf_place(c, j, INT32_MAX, p), NS_OK);
  ns_placement_free(p);
  ns_job_free(j);
  ns_cluster_free(c);
}
END_TEST

START_TEST(test_first_fit) { PLACEMENT_MISUSE(ns_place_first_fit); }
END_TEST

START_TEST(test_list_scheduling) { PLACEMENT_MISUSE(ns_place_list_scheduling); }
END_TEST

START_TEST(test_random) {
  PLACEMENT_MISUSE(rand7);
  ns_cluster *c = cluster();
  ns_job *j = ns_job_new("j", 8);
  ns_placement *p = ns_placement_new();
  ck_assert_int_eq(ns_place_random(c, j, UINT64_MAX, p), NS_OK); /* any seed is valid */
  ck_assert_int_eq((int)ns_placement_gpu_count(p), 8);
  ns_placement_free(p);
  ns_job_free(j);
  ns_cluster_free(c);
}
END_TEST

static Suite *lwf_suite(void) {
  Suite *s = suite_create("lwf-abi");
  TCase *tc = tcase_create("misuse");
  tcase_add_test(tc, test_gpu_workload_setter);
  tcase_add_test(tc, test_gpu_workload_getter);
  tcase_add_test(tc, test_lwf_place);
  tcase_add_test(tc, test_first_fit);
  tcase_add_test(tc, test_list_scheduling);
  tcase_add_test(tc, test_random);
  suite_add_tcase(s, tc);
  return s;
}

NS_ABI_MAIN(lwf_suite)
