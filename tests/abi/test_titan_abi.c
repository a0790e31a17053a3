/*
 * tests/abi/test_titan_abi.c - misuse of every Titan / collective-traffic
 * function returns the documented status with a message naming the
 * argument, never crashes (Check, fork mode).
 */
#include <stdint.h>

#include "abi_test.h"

START_TEST(test_opts) {
  ns_titan_opts_free(NULL);
  ck_assert_fails(ns_titan_opts_set_seed(NULL, 0), NS_EINVAL, "o");
  ns_titan_opts *o = ns_titan_opts_new();
  ck_assert_ptr_nonnull(o);
  ck_assert_int_eq(ns_titan_opts_set_seed(o, UINT64_MAX), NS_OK);
  ns_titan_opts_free(o);
}
END_TEST

START_TEST(test_place_null_and_space) {
  ns_cluster *c = ns_cluster_new_leaf_spine(2, 1, 2, 4, 1, 100);
  ns_job *j = ns_job_new("j", 4);
  ns_titan_opts *o = ns_titan_opts_new();
  ns_placement *p = ns_placement_new();
  ck_assert_fails(ns_titan_place(NULL, j, o, p), NS_EINVAL, "c");
  ck_assert_fails(ns_titan_place(c, NULL, o, p), NS_EINVAL, "job");
  ck_assert_fails(ns_titan_place(c, j, NULL, p), NS_EINVAL, "o");
  ck_assert_fails(ns_titan_place(c, j, o, NULL), NS_EINVAL, "out");
  ns_job *big = ns_job_new("big", 17);
  ck_assert_fails(ns_titan_place(c, big, o, p), NS_EINVAL, "17 GPUs");
  ck_assert_int_eq(ns_placement_gpu_count(p), 0);
  ns_job *huge = ns_job_new("huge", 1 << 20);
  ck_assert_fails(ns_titan_place(c, huge, o, p), NS_EINVAL, "GPUs");
  for (int coll = 0; coll < 4; coll++) { /* every collective, model 0 and max */
    ns_job_set_collective(j, (ns_collective)coll);
    ns_job_set_model_bytes(j, coll % 2 ? UINT64_MAX : 0);
    ck_assert_int_eq(ns_titan_place(c, j, o, p), NS_OK);
    ck_assert_int_eq(ns_placement_gpu_count(p), 4);
  }
  ns_job_free(huge);
  ns_job_free(big);
  ns_placement_free(p);
  ns_titan_opts_free(o);
  ns_job_free(j);
  ns_cluster_free(c);
}
END_TEST

/* Jobs beyond the documented work limits fail cleanly. */
START_TEST(test_place_work_limits) {
  /* 8192 GPUs, full bisection: 512 uplinks for 512 GPU ports per leaf */
  ns_cluster *c = ns_cluster_new_leaf_spine(16, 8, 64, 8, 64, 100);
  ns_titan_opts *o = ns_titan_opts_new();
  ns_placement *p = ns_placement_new();
  ns_job *ring = ns_job_new("ring", 8192);
  ck_assert_fails(ns_titan_place(c, ring, o, p), NS_EUNSUPPORTED, "phases");
  ns_job *a2a = ns_job_new("a2a", 4096);
  ns_job_set_collective(a2a, NS_COLL_ALL_TO_ALL);
  ns_job_set_model_bytes(a2a, 1 << 30);
  ck_assert_fails(ns_titan_place(c, a2a, o, p), NS_EUNSUPPORTED, "flows");
  ns_job *hd = ns_job_new("hd", 8192);
  ns_job_set_collective(hd, NS_COLL_HALVING_DOUBLING);
  ns_job_set_model_bytes(hd, 1 << 30);
  ck_assert_int_eq(ns_titan_place(c, hd, o, p), NS_OK);
  ck_assert_int_eq(ns_placement_gpu_count(p), 8192);
  ns_job_free(hd);
  ns_job_free(a2a);
  ns_job_free(ring);
  ns_placement_free(p);
  ns_titan_opts_free(o);
  ns_cluster_free(c);
}
END_TEST

START_TEST(test_traffic_bad_args) {
  uint64_t b;
  ck_assert_fails(ns_collective_traffic((ns_collective)4, 4, 1, 0, 0, 1, &b), NS_EINVAL, "c");
  ck_assert_fails(ns_collective_traffic((ns_collective)-1, 4, 1, 0, 0, 1, &b), NS_EINVAL, "c");
  ck_assert_fails(ns_collective_traffic(NS_COLL_RING, 0, 1, 0, 0, 0, &b), NS_EINVAL, "workers");
  ck_assert_fails(ns_collective_traffic(NS_COLL_RING, -5, 1, 0, 0, 0, &b), NS_EINVAL, "workers");
  ck_assert_fails(ns_collective_traffic(NS_COLL_RING, INT32_MAX, 1, 0, 0, 0, &b), NS_EINVAL,
                  "workers");
  ck_assert_fails(ns_collective_traffic(NS_COLL_TREE, 4, 1, INT32_MAX, 0, 0, &b), NS_EINVAL,
                  "phase");
  ck_assert_fails(ns_collective_traffic(NS_COLL_TREE, 4, 1, INT32_MIN, 0, 0, &b), NS_EINVAL,
                  "phase");
  ck_assert_fails(ns_collective_traffic(NS_COLL_ALL_TO_ALL, 4, 1, 0, INT32_MIN, 0, &b),
                  NS_EINVAL, "from");
  ck_assert_fails(ns_collective_traffic(NS_COLL_ALL_TO_ALL, 4, 1, 0, 0, 4, &b), NS_EINVAL, "to");
  ck_assert_fails(ns_collective_traffic(NS_COLL_HALVING_DOUBLING, 4, 1, 0, 0, 1, NULL),
                  NS_EINVAL, "out_bytes");
  ck_assert_fails(ns_collective_phase_count((ns_collective)99, 4), NS_EINVAL, "c");
  ck_assert_fails(ns_collective_phase_count(NS_COLL_RING, 0), NS_EINVAL, "workers");
  ck_assert_fails(ns_collective_phase_count(NS_COLL_RING, (1 << 22) + 1), NS_EINVAL, "workers");
  /* the largest accepted sizes and byte counts neither overflow nor crash */
  const int n = 1 << 22;
  for (int coll = 0; coll < 4; coll++) {
    int t = ns_collective_phase_count((ns_collective)coll, n);
    ck_assert_int_gt(t, 0);
    ck_assert_int_eq(ns_collective_traffic((ns_collective)coll, n, UINT64_MAX, t - 1, n - 1, 0,
                                           &b), NS_OK);
    ck_assert(b <= UINT64_MAX / 2 + 1);
  }
}
END_TEST

START_TEST(test_traffic_fuzz) {
  uint64_t s = 12345, b;
  for (int i = 0; i < 20000; i++) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    int c = (int)(s >> 60) - 4, w = (int)((s >> 40) & 0xff) - 8;
    int t = (int)((s >> 30) & 0x3ff) - 16, f = (int)((s >> 20) & 0xff) - 8;
    int to = (int)((s >> 10) & 0xff) - 8;
    int rc = ns_collective_traffic((ns_collective)c, w, s, t, f, to, &b);
    ck_assert(rc == NS_OK || rc == NS_EINVAL);
    if (rc == NS_EINVAL)
      ck_assert(ns_last_error()[0] != '\0');
  }
}
END_TEST

START_TEST(test_cross_bytes_bad_args) {
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 2, 2, 0, 100);
  ns_job *j = ns_job_new("j", 3);
  ns_placement *p = ns_placement_new();
  uint64_t b;
  ck_assert_fails(ns_collective_cross_machine_bytes(NULL, p, &b), NS_EINVAL, "job");
  ck_assert_fails(ns_collective_cross_machine_bytes(j, NULL, &b), NS_EINVAL, "p");
  ck_assert_fails(ns_collective_cross_machine_bytes(j, p, NULL), NS_EINVAL, "out_bytes");
  ck_assert_fails(ns_collective_cross_machine_bytes(j, p, &b), NS_ESTATE, "p");
  ns_placement_bind(p, c);
  ns_placement_add_gpu(p, 0);
  ck_assert_fails(ns_collective_cross_machine_bytes(j, p, &b), NS_EINVAL, "p");
  ns_placement_add_gpu(p, 1);
  ns_placement_add_gpu(p, 2);
  ck_assert_int_eq(ns_collective_cross_machine_bytes(j, p, &b), NS_OK);
  ns_placement_free(p);
  ns_job_free(j);
  ns_cluster_free(c);
}
END_TEST

static Suite *titan_suite(void) {
  Suite *s = suite_create("titan");
  TCase *tc = tcase_create("misuse");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_opts);
  tcase_add_test(tc, test_place_null_and_space);
  tcase_add_test(tc, test_place_work_limits);
  tcase_add_test(tc, test_traffic_bad_args);
  tcase_add_test(tc, test_traffic_fuzz);
  tcase_add_test(tc, test_cross_bytes_bad_args);
  suite_add_tcase(s, tc);
  return s;
}

NS_ABI_MAIN(titan_suite)
