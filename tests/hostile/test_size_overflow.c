/*
 * tests/hostile/test_size_overflow.c - cluster shapes whose size products
 * pass 2^63 (or wrap an int): every product the library multiplies (GPUs,
 * uplinks, OCS port cells) must be refused with NS_EINVAL naming the
 * product, its factors and the limit, never computed in a wrapping integer
 * and used to size a table.
 *
 * Issue 31: leaves*spines*links_per_pair = 2^16 * 2^24 * 2^24 = 2^64 wrapped
 * a long long to 0, the cluster was built with an empty link table and
 * ns_cluster_free_links_between(c, 5000, 77) then read far past it.
 */
#include "unit/helpers/ns_test.h"

/* The reproducer: 2^16 * 2^24 * 2^24 = 2^64 ≡ 0 (mod 2^64). */
static void test_link_product_past_2_63_is_refused(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(1 << 16, 1 << 24, 1, 1, 1 << 24, 100);
  assert_null(c);
  assert_string_equal(ns_last_error(),
                      "ns_cluster_new_leaf_spine: leaves*spines*links_per_pair "
                      "(65536*16777216*16777216) exceeds 16777216");
}

/* 2^22 * 2^22 * 2^22 = 2^66: the GPU product wrapped too (to 0 mod 2^64). */
static void test_gpu_product_past_2_63_is_refused(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(1 << 22, 0, 1 << 22, 1 << 22, 0, 100);
  assert_null(c);
  assert_string_equal(ns_last_error(),
                      "ns_cluster_new_leaf_spine: leaves*servers_per_leaf*gpus_per_server "
                      "(4194304*4194304*4194304) exceeds 4194304");
}

/* Products that do not overflow but pass the limit by one, and the limit
   itself (accepted): the check is exact, not approximate. */
static void test_products_at_and_one_past_the_limit(void **state) {
  (void)state;
  /* 2^11 * 2^11 * 1 = 2^22 GPUs: accepted */
  ns_cluster *c = ns_cluster_new_leaf_spine(1 << 11, 0, 1 << 11, 1, 0, 10);
  assert_non_null(c);
  assert_int_equal(ns_cluster_gpu_count(c), 1 << 22);
  ns_cluster_free(c);
  /* (2^22 + 1) GPUs: 4097 * 1024 = 4,195,328 > 4,194,304 */
  assert_null(ns_cluster_new_leaf_spine(4097, 0, 1024, 1, 0, 10));
  assert_non_null(strstr(ns_last_error(), "(4097*1024*1) exceeds 4194304"));
  /* 2^24 uplinks: 16 * 1024 * 1024 accepted, 16 * 1024 * 1025 refused */
  c = ns_cluster_new_leaf_spine(16, 1024, 1, 1, 1024, 10);
  assert_non_null(c);
  assert_int_equal(ns_cluster_spine_count(c), 1024);
  ns_cluster_free(c);
  assert_null(ns_cluster_new_leaf_spine(16, 1024, 1, 1, 1025, 10));
  assert_non_null(strstr(ns_last_error(), "leaves*spines*links_per_pair (16*1024*1025) "
                                          "exceeds 16777216"));
}

/* A refused shape through the simulator's options: the same message, and
   the options keep the cluster they had (default 4 x 4 x 4 = 64 GPUs). */
static void test_sim_cluster_overflow_leaves_opts_unchanged(void **state) {
  (void)state;
  ns_sim_opts *o = ns_sim_opts_new();
  assert_non_null(o);
  assert_fails_with(ns_sim_opts_set_cluster(o, 1 << 16, 1 << 24, 1, 1, 1 << 24, 100), NS_EINVAL,
                    "leaves*spines*links_per_pair (65536*16777216*16777216) exceeds 16777216");
  ns_sim *s = ns_sim_new(o);
  assert_non_null(s);
  assert_int_equal(ns_sim_load_default_workload(s), 160); /* its job count */
  assert_int_equal(ns_sim_run(s), NS_OK); /* the default cluster runs the default workload */
  double done = 0;
  assert_int_equal(ns_sim_metric(s, NS_SIM_METRIC_JOBS_DONE, &done), NS_OK);
  assert_near(done, 160, 0);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* OCS: spines*links_per_pair uplinks per leaf used to be an int product
   (2^24 * 2^24 wrapped to 0: "ocs_count must be in [1, 0]"); now the
   constructor bounds it, and spines*ocs_count port cells are bounded too:
   1 leaf, 4096 spines, 4096 links = 2^24 uplinks, ocs_count 2^24 would
   need 2^36 cells. */
static void test_ocs_cells_past_the_limit_are_refused(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 4096, 1, 1, 4096, 10);
  assert_non_null(c);
  assert_fails_with(ns_cluster_enable_ocs(c, 1 << 24), NS_EINVAL,
                    "ns_cluster_enable_ocs: spines*ocs_count (4096*16777216) exceeds 16777216");
  assert_int_equal(ns_cluster_ocs_count(c), 0); /* unchanged */
  /* 4096 * 4096 = 2^24 cells: at the limit, accepted */
  assert_int_equal(ns_cluster_enable_ocs(c, 4096), NS_OK);
  assert_int_equal(ns_cluster_ocs_count(c), 4096);
  ns_cluster_free(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_link_product_past_2_63_is_refused),
      cmocka_unit_test(test_gpu_product_past_2_63_is_refused),
      cmocka_unit_test(test_products_at_and_one_past_the_limit),
      cmocka_unit_test(test_sim_cluster_overflow_leaves_opts_unchanged),
      cmocka_unit_test(test_ocs_cells_past_the_limit_are_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
