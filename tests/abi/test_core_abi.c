/*
 * tests/abi/test_core_abi.c - misuse of every core function (version,
 * errors, jobs, links, cluster, placements, workloads, placement link
 * accessors): NULL handles, out-of-range ints, NaN/inf/negative doubles.
 * Each must return its documented status with a message naming the
 * argument, never crash, and leave the handle as it was.
 */
#include <limits.h>

#include "abi_test.h"

static const double bad_doubles[] = {NAN, INFINITY, -INFINITY, -1.0};
#define NBAD (sizeof bad_doubles / sizeof bad_doubles[0])

START_TEST(test_version_and_errors) {
  ck_assert_str_eq(ns_version(), NS_VERSION_STRING);
  ck_assert_int_eq(ns_version_number(), NS_VERSION_NUMBER);
  ck_assert_ptr_nonnull(ns_last_error());
  ck_assert_str_eq(ns_strerror(-100), "unknown status");
  ck_assert_str_eq(ns_strerror(1), "unknown status");
  for (int s = NS_EUNSUPPORTED; s <= NS_OK; s++)
    ck_assert_ptr_nonnull(ns_strerror(s));
  /* "did you mean": bad lists are NS_EINVAL naming the argument */
  static const char *const names[] = {"ring", NULL};
  ck_assert_fails(ns_closest_name(NULL, names, 1), NS_EINVAL, "name");
  ck_assert_fails(ns_closest_name("rnig", NULL, 1), NS_EINVAL, "names");
  ck_assert_fails(ns_closest_name("rnig", names, -1), NS_EINVAL, "n");
  ck_assert_fails(ns_closest_name("rnig", names, INT_MAX), NS_EINVAL, "n");
  ck_assert_fails(ns_closest_name("rnig", names, 2), NS_EINVAL, "names[1]");
  ck_assert_int_eq(ns_closest_name("rnig", names, 1), 0);
}
END_TEST

START_TEST(test_job_new_bad) {
  ck_assert_null_names(ns_job_new(NULL, 1), "name");
  ck_assert_null_names(ns_job_new("j", 0), "gpus");
  ck_assert_null_names(ns_job_new("j", -5), "gpus");
  ck_assert_null_names(ns_job_new("j", (1 << 20) + 1), "gpus");
  char longname[300];
  memset(longname, 'x', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  ck_assert_null_names(ns_job_new(longname, 1), "name");
  ns_job_free(NULL);
}
END_TEST

START_TEST(test_job_null_handle) {
  ck_assert_fails(ns_job_gpus(NULL), NS_EINVAL, "job");
  ck_assert_fails(ns_job_set_iteration_ms(NULL, 1), NS_EINVAL, "job");
  ck_assert_fails(ns_job_add_phase(NULL, 1, 1), NS_EINVAL, "job");
  ck_assert_fails(ns_job_clear_phases(NULL), NS_EINVAL, "job");
  ck_assert_fails(ns_job_set_compute_ms(NULL, 1, 1), NS_EINVAL, "job");
  ck_assert_fails(ns_job_set_model_bytes(NULL, 1), NS_EINVAL, "job");
  ck_assert_fails(ns_job_set_collective(NULL, NS_COLL_RING), NS_EINVAL, "job");
  ck_assert_fails(ns_job_set_iterations(NULL, 1, 0), NS_EINVAL, "job");
  ck_assert_fails(ns_job_set_gpu_memory_mb(NULL, 1), NS_EINVAL, "job");
  ck_assert_fails(ns_job_collective(NULL), NS_EINVAL, "job");
  double a, b;
  uint64_t t, d;
  ck_assert_fails(ns_job_phase(NULL, 0, &a, &b), NS_EINVAL, "job");
  ck_assert_fails(ns_job_compute_ms(NULL, &a, &b), NS_EINVAL, "job");
  ck_assert_fails(ns_job_iterations(NULL, &t, &d), NS_EINVAL, "job");
  ck_assert_str_eq(ns_job_name(NULL), "");
  ck_assert(isnan(ns_job_iteration_ms(NULL)));
  ck_assert(isnan(ns_job_gpu_memory_mb(NULL)));
  ck_assert_uint_eq(ns_job_phase_count(NULL), 0);
  ck_assert_uint_eq(ns_job_model_bytes(NULL), 0);
}
END_TEST

START_TEST(test_job_bad_values_leave_job_unchanged) {
  ns_job *j = ns_job_new("j", 2);
  ns_job_set_iteration_ms(j, 100);
  ns_job_set_compute_ms(j, 10, 20);
  ns_job_set_gpu_memory_mb(j, 500);
  for (size_t i = 0; i < NBAD; i++) {
    double v = bad_doubles[i];
    ck_assert_fails(ns_job_set_iteration_ms(j, v), NS_EINVAL, "iteration_ms");
    ck_assert_fails(ns_job_add_phase(j, v, 1), NS_EINVAL, "duration_ms");
    ck_assert_fails(ns_job_add_phase(j, 1, v), NS_EINVAL, "gbps");
    ck_assert_fails(ns_job_set_compute_ms(j, v, 1), NS_EINVAL, "forward_ms");
    ck_assert_fails(ns_job_set_compute_ms(j, 1, v), NS_EINVAL, "backward_ms");
    ck_assert_fails(ns_job_set_gpu_memory_mb(j, v), NS_EINVAL, "mb");
  }
  ck_assert_fails(ns_job_set_iteration_ms(j, 0), NS_EINVAL, "iteration_ms");
  ck_assert_fails(ns_job_add_phase(j, 0, 1), NS_EINVAL, "duration_ms");
  ck_assert_fails(ns_job_set_collective(j, (ns_collective)-1), NS_EINVAL, "c");
  ck_assert_fails(ns_job_set_collective(j, (ns_collective)4), NS_EINVAL, "c");
  ck_assert_fails(ns_job_set_iterations(j, 0, 0), NS_EINVAL, "total");
  ck_assert_fails(ns_job_set_iterations(j, 3, 4), NS_EINVAL, "completed");
  double a, b;
  ck_assert_fails(ns_job_phase(j, 0, &a, &b), NS_EINVAL, "i");
  ck_assert_fails(ns_job_phase(j, 0, NULL, &b), NS_EINVAL, "duration_ms");
  ck_assert_fails(ns_job_compute_ms(j, &a, NULL), NS_EINVAL, "backward_ms");
  ck_assert_fails(ns_job_iterations(j, NULL, NULL), NS_EINVAL, "total");
  /* unchanged */
  ck_assert_double_eq(ns_job_iteration_ms(j), 100);
  ck_assert_uint_eq(ns_job_phase_count(j), 0);
  ck_assert_int_eq(ns_job_compute_ms(j, &a, &b), NS_OK);
  ck_assert_double_eq(a, 10);
  ck_assert_double_eq(b, 20);
  ck_assert_double_eq(ns_job_gpu_memory_mb(j), 500);
  ck_assert_int_eq(ns_job_collective(j), NS_COLL_RING);
  ns_job_free(j);
}
END_TEST

START_TEST(test_link_bad) {
  for (size_t i = 0; i < NBAD; i++)
    ck_assert_null_names(ns_link_new("l", bad_doubles[i]), "capacity_gbps");
  ck_assert_null_names(ns_link_new("l", 0), "capacity_gbps");
  ns_link_free(NULL);
  ns_link *l = ns_link_new(NULL, 10);
  ck_assert_ptr_nonnull(l);
  ck_assert_str_eq(ns_link_name(l), "");
  ns_job *j = ns_job_new("j", 1);
  ck_assert_fails(ns_link_add_job(NULL, j), NS_EINVAL, "link");
  ck_assert_fails(ns_link_add_job(l, NULL), NS_EINVAL, "job");
  ck_assert_int_eq(ns_link_add_job(l, j), NS_OK);
  ck_assert_fails(ns_link_add_job(l, j), NS_EINVAL, "already");
  ck_assert_uint_eq(ns_link_job_count(l), 1);
  ck_assert_uint_eq(ns_link_job_count(NULL), 0);
  ck_assert(isnan(ns_link_capacity_gbps(NULL)));
  ck_assert_str_eq(ns_link_name(NULL), "");
  ck_assert_ptr_null(ns_link_job(NULL, 0));
  ck_assert_ptr_null(ns_link_job(l, 1));
  ns_link_free(l);
  ns_job_free(j);
}
END_TEST

START_TEST(test_cluster_new_bad) {
  ck_assert_null_names(ns_cluster_new_leaf_spine(0, 1, 1, 1, 1, 1), "leaves");
  ck_assert_null_names(ns_cluster_new_leaf_spine(-1, 1, 1, 1, 1, 1), "leaves");
  ck_assert_null_names(ns_cluster_new_leaf_spine(1, -1, 1, 1, 1, 1), "spines");
  ck_assert_null_names(ns_cluster_new_leaf_spine(1, 1, 0, 1, 1, 1), "servers_per_leaf");
  ck_assert_null_names(ns_cluster_new_leaf_spine(1, 1, 1, 0, 1, 1), "gpus_per_server");
  ck_assert_null_names(ns_cluster_new_leaf_spine(1, 1, 1, 1, 0, 1), "links_per_pair");
  ck_assert_null_names(ns_cluster_new_leaf_spine(1, 0, 1, 1, -1, 1), "links_per_pair");
  for (size_t i = 0; i < NBAD; i++)
    ck_assert_null_names(ns_cluster_new_leaf_spine(1, 1, 1, 1, 1, bad_doubles[i]), "link_gbps");
  ck_assert_null_names(ns_cluster_new_leaf_spine(1 << 20, 0, 1 << 20, 1 << 20, 0, 1), "exceeds");
  ck_assert_null_names(ns_cluster_new_leaf_spine(4096, 4096, 1, 1, 4096, 1), "exceeds");
  ns_cluster_free(NULL);
}
END_TEST

START_TEST(test_cluster_null_handle) {
  int g = 0;
  ck_assert_fails(ns_cluster_enable_ocs(NULL, 1), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_gpu_count(NULL), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_server_count(NULL), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_server_of_gpu(NULL, 0), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_leaf_of_server(NULL, 0), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_free_gpus_on_server(NULL, 0), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_occupy(NULL, &g, 1), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_vacate(NULL, &g, 1), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_set_gpu_memory_mb(NULL, 1), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_set_gpu_sharing(NULL, 0), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_leaf_count(NULL), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_spine_count(NULL), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_servers_per_leaf(NULL), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_gpus_per_server(NULL), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_links_per_pair(NULL), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_ocs_count(NULL), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_gpu_sharing(NULL), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_free_gpu_count(NULL), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_free_gpus_on_leaf(NULL, 0), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_idle_servers_on_leaf(NULL, 0), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_gpu_is_free(NULL, 0), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_gpu_job_count(NULL, 0), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_free_links_between(NULL, 0, 0), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_link_is_reserved(NULL, 0, 0, 0), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_job_count(NULL), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_set_gpu_workload_ms(NULL, 0, 1), NS_EINVAL, "c");
  ck_assert(isnan(ns_cluster_link_gbps(NULL)));
  ck_assert(isnan(ns_cluster_gpu_memory_mb(NULL)));
  ck_assert(isnan(ns_cluster_gpu_free_memory_mb(NULL, 0)));
  ck_assert(isnan(ns_cluster_gpu_workload_ms(NULL, 0)));
}
END_TEST

START_TEST(test_cluster_out_of_range) {
  ns_cluster *c = ns_cluster_new_leaf_spine(2, 2, 2, 2, 1, 10); /* 8 GPUs, 4 servers */
  ck_assert_fails(ns_cluster_server_of_gpu(c, -1), NS_EINVAL, "gpu");
  ck_assert_fails(ns_cluster_server_of_gpu(c, 8), NS_EINVAL, "gpu");
  ck_assert_fails(ns_cluster_leaf_of_server(c, 4), NS_EINVAL, "server");
  ck_assert_fails(ns_cluster_free_gpus_on_server(c, -1), NS_EINVAL, "server");
  ck_assert_fails(ns_cluster_free_gpus_on_leaf(c, 2), NS_EINVAL, "leaf");
  ck_assert_fails(ns_cluster_idle_servers_on_leaf(c, -1), NS_EINVAL, "leaf");
  ck_assert_fails(ns_cluster_gpu_is_free(c, 8), NS_EINVAL, "gpu");
  ck_assert_fails(ns_cluster_gpu_job_count(c, -1), NS_EINVAL, "gpu");
  ck_assert(isnan(ns_cluster_gpu_free_memory_mb(c, 99)));
  ck_assert(isnan(ns_cluster_gpu_workload_ms(c, 99)));
  ck_assert_fails(ns_cluster_free_links_between(c, 2, 0), NS_EINVAL, "leaf");
  ck_assert_fails(ns_cluster_free_links_between(c, 0, 2), NS_EINVAL, "spine");
  ck_assert_fails(ns_cluster_link_is_reserved(c, 0, 0, 1), NS_EINVAL, "k");
  ck_assert_fails(ns_cluster_enable_ocs(c, 0), NS_EINVAL, "ocs_count");
  ck_assert_fails(ns_cluster_enable_ocs(c, 3), NS_EINVAL, "ocs_count");
  ck_assert_fails(ns_cluster_set_gpu_sharing(c, 2), NS_EINVAL, "shared");
  ck_assert_fails(ns_cluster_set_gpu_sharing(c, -1), NS_EINVAL, "shared");
  for (size_t i = 0; i < NBAD; i++) {
    ck_assert_fails(ns_cluster_set_gpu_memory_mb(c, bad_doubles[i]), NS_EINVAL, "mb");
    ck_assert_fails(ns_cluster_set_gpu_workload_ms(c, 0, bad_doubles[i]), NS_EINVAL, "ms");
  }
  ck_assert_fails(ns_cluster_set_gpu_memory_mb(c, 0), NS_EINVAL, "mb");
  ck_assert_fails(ns_cluster_set_gpu_workload_ms(c, 8, 1), NS_EINVAL, "gpu");
  int bad_ids[] = {0, 9};
  ck_assert_fails(ns_cluster_occupy(c, bad_ids, 2), NS_EINVAL, "gpus[1]");
  ck_assert_fails(ns_cluster_occupy(c, NULL, 1), NS_EINVAL, "gpus");
  int dup[] = {3, 3};
  ck_assert_fails(ns_cluster_occupy(c, dup, 2), NS_EINVAL, "twice");
  ck_assert_fails(ns_cluster_vacate(c, dup, 1), NS_ESTATE, "GPU 3");
  ck_assert_int_eq(ns_cluster_occupy(c, NULL, 0), NS_OK);
  /* unchanged */
  ck_assert_int_eq(ns_cluster_free_gpu_count(c), 8);
  ck_assert_double_eq(ns_cluster_gpu_memory_mb(c), 16384);
  ck_assert_int_eq(ns_cluster_gpu_sharing(c), 0);
  ck_assert_int_eq(ns_cluster_ocs_count(c), 0);
  ns_cluster_free(c);
}
END_TEST

START_TEST(test_placement_bad) {
  ns_placement_free(NULL);
  ns_placement_clear(NULL);
  ck_assert_uint_eq(ns_placement_gpu_count(NULL), 0);
  ck_assert_fails(ns_placement_add_gpu(NULL, 0), NS_EINVAL, "p");
  ck_assert_fails(ns_placement_gpu(NULL, 0), NS_EINVAL, "p");
  ck_assert_fails(ns_placement_server_count(NULL), NS_EINVAL, "p");
  ck_assert_int_eq((int)ns_placement_tier(NULL), NS_EINVAL);
  ck_assert_fails(ns_placement_bind(NULL, NULL), NS_EINVAL, "p");
  ck_assert_fails(ns_placement_virtual_leaves(NULL), NS_EINVAL, "p");
  ck_assert_fails(ns_placement_virtual_spines(NULL), NS_EINVAL, "p");
  ck_assert_fails(ns_placement_link_count(NULL), NS_EINVAL, "p");
  int leaf, spine;
  ck_assert_fails(ns_placement_link(NULL, 0, &leaf, &spine), NS_EINVAL, "p");
  ns_placement *p = ns_placement_new();
  ck_assert_fails(ns_placement_bind(p, NULL), NS_EINVAL, "c");
  ck_assert_fails(ns_placement_add_gpu(p, -1), NS_EINVAL, "gpu");
  ck_assert_fails(ns_placement_gpu(p, 0), NS_EINVAL, "i");
  ck_assert_fails(ns_placement_server_count(p), NS_ESTATE, "p");
  ck_assert_int_eq((int)ns_placement_tier(p), NS_ESTATE);
  ck_assert_fails(ns_placement_link(p, 0, &leaf, &spine), NS_EINVAL, "i");
  ck_assert_fails(ns_placement_link(p, 0, NULL, &spine), NS_EINVAL, "leaf");
  ck_assert_int_eq(ns_placement_link_count(p), 0);
  ck_assert_uint_eq(ns_placement_gpu_count(p), 0);
  ns_placement_free(p);
}
END_TEST

START_TEST(test_commit_release_misuse) {
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 2, 2, 0, 10);
  ns_cluster *other = ns_cluster_new_leaf_spine(1, 0, 1, 4, 0, 10);
  ns_job *j = ns_job_new("j", 2);
  ns_placement *p = ns_placement_new(), *empty = ns_placement_new(), *out = ns_placement_new();
  ns_placement_add_gpu(p, 0);
  ns_placement_add_gpu(p, 1);
  ck_assert_fails(ns_cluster_commit(NULL, j, p), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_commit(c, NULL, p), NS_EINVAL, "job");
  ck_assert_fails(ns_cluster_commit(c, j, NULL), NS_EINVAL, "p");
  ck_assert_fails(ns_cluster_commit(c, j, empty), NS_EINVAL, "no GPUs");
  ns_placement_bind(p, other);
  ck_assert_fails(ns_cluster_commit(c, j, p), NS_EINVAL, "geometry");
  ns_placement_bind(p, c);
  ns_job *big = ns_job_new("big", 3);
  ck_assert_fails(ns_cluster_commit(c, big, p), NS_EINVAL, "needs 3");
  ck_assert_fails(ns_cluster_release(NULL, j), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_release(c, NULL), NS_EINVAL, "job");
  ck_assert_fails(ns_cluster_release(c, j), NS_ENOTFOUND, "not committed");
  ck_assert_fails(ns_cluster_is_committed(NULL, j), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_is_committed(c, NULL), NS_EINVAL, "job");
  ck_assert_fails(ns_cluster_job_placement(NULL, j, out), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_job_placement(c, NULL, out), NS_EINVAL, "job");
  ck_assert_fails(ns_cluster_job_placement(c, j, NULL), NS_EINVAL, "out");
  ck_assert_fails(ns_cluster_job_placement(c, j, out), NS_ENOTFOUND, "not committed");
  ck_assert_int_eq(ns_cluster_job_count(c), 0);
  ck_assert_int_eq(ns_cluster_commit(c, j, p), NS_OK);
  ck_assert_fails(ns_cluster_commit(c, j, p), NS_ESTATE, "already committed");
  ck_assert_fails(ns_cluster_set_gpu_memory_mb(c, 1), NS_ESTATE, "committed");
  ck_assert_int_eq(ns_cluster_release(c, j), NS_OK);
  ck_assert_fails(ns_cluster_release(c, j), NS_ENOTFOUND, "not committed");
  ck_assert_int_eq(ns_cluster_free_gpu_count(c), 4);
  ns_placement_free(p);
  ns_placement_free(empty);
  ns_placement_free(out);
  ns_job_free(j);
  ns_job_free(big);
  ns_cluster_free(c);
  ns_cluster_free(other);
}
END_TEST

static Suite *core_suite(void) {
  Suite *s = suite_create("core-abi");
  TCase *tc = tcase_create("misuse");
  tcase_add_test(tc, test_version_and_errors);
  tcase_add_test(tc, test_job_new_bad);
  tcase_add_test(tc, test_job_null_handle);
  tcase_add_test(tc, test_job_bad_values_leave_job_unchanged);
  tcase_add_test(tc, test_link_bad);
  tcase_add_test(tc, test_cluster_new_bad);
  tcase_add_test(tc, test_cluster_null_handle);
  tcase_add_test(tc, test_cluster_out_of_range);
  tcase_add_test(tc, test_placement_bad);
  tcase_add_test(tc, test_commit_release_misuse);
  suite_add_tcase(s, tc);
  return s;
}

NS_ABI_MAIN(core_suite)
