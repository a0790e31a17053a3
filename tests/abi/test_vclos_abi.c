/*
 * tests/abi/test_vclos_abi.c - every public vClos function under misuse:
 * NULL handles, out-of-range ints, NaN/inf/negative doubles return the
 * documented status with a message naming the argument, and never crash
 * (Check, fork mode).
 */
#include "abi_test.h"

typedef struct fixture {
  ns_cluster *c, *ocs, *flat;
  ns_job *job;
  ns_vclos_opts *o;
  ns_placement *p;
} fixture;

static fixture make(void) {
  fixture f;
  f.c = ns_cluster_new_leaf_spine(4, 4, 2, 2, 1, 100);
  f.ocs = ns_cluster_new_leaf_spine(4, 4, 2, 2, 1, 100);
  ns_cluster_enable_ocs(f.ocs, 2);
  f.flat = ns_cluster_new_leaf_spine(2, 0, 2, 2, 0, 100);
  f.job = ns_job_new("j", 4);
  f.o = ns_vclos_opts_new();
  f.p = ns_placement_new();
  ck_assert_ptr_nonnull(f.c);
  ck_assert_ptr_nonnull(f.o);
  return f;
}

static void unmake(fixture *f) {
  ns_cluster_free(f->c);
  ns_cluster_free(f->ocs);
  ns_cluster_free(f->flat);
  ns_job_free(f->job);
  ns_vclos_opts_free(f->o);
  ns_placement_free(f->p);
}

START_TEST(test_opts) {
  ns_vclos_opts_free(NULL); /* no-op */
  ns_vclos_opts *o = ns_vclos_opts_new();
  ck_assert_fails(ns_vclos_opts_set_solver(NULL, 1), NS_EINVAL, "o");
  ck_assert_fails(ns_vclos_opts_set_solver(o, -1), NS_EINVAL, "use_milp");
  ck_assert_fails(ns_vclos_opts_set_solver(o, 2), NS_EINVAL, "use_milp");
  ck_assert_fails(ns_vclos_opts_set_solver(o, -2147483647 - 1), NS_EINVAL, "use_milp");
  ck_assert_int_eq(ns_vclos_opts_set_solver(o, 1), NS_OK);
  ck_assert_fails(ns_vclos_opts_set_time_limit_ms(NULL, 5), NS_EINVAL, "o");
  ck_assert_fails(ns_vclos_opts_set_time_limit_ms(o, NAN), NS_EINVAL, "ms");
  ck_assert_fails(ns_vclos_opts_set_time_limit_ms(o, INFINITY), NS_EINVAL, "ms");
  ck_assert_fails(ns_vclos_opts_set_time_limit_ms(o, -INFINITY), NS_EINVAL, "ms");
  ck_assert_fails(ns_vclos_opts_set_time_limit_ms(o, -1), NS_EINVAL, "ms");
  ck_assert_fails(ns_vclos_opts_set_time_limit_ms(o, 0), NS_EINVAL, "ms");
  ck_assert_int_eq(ns_vclos_opts_set_time_limit_ms(o, 250), NS_OK);
  ns_vclos_opts_free(o);
}
END_TEST

START_TEST(test_place) {
  fixture f = make();
  int stage = -1;
  ck_assert_fails(ns_vclos_place(NULL, f.job, f.o, f.p), NS_EINVAL, "c");
  ck_assert_fails(ns_vclos_place(f.c, NULL, f.o, f.p), NS_EINVAL, "job");
  ck_assert_fails(ns_vclos_place(f.c, f.job, NULL, f.p), NS_EINVAL, "o");
  ck_assert_fails(ns_vclos_place(f.c, f.job, f.o, NULL), NS_EINVAL, "out");
  ck_assert_fails(ns_vclos_place_ex(NULL, f.job, f.o, f.p, &stage), NS_EINVAL, "c");
  ck_assert_fails(ns_vclos_place_ex(f.c, NULL, f.o, f.p, &stage), NS_EINVAL, "job");
  ck_assert_fails(ns_vclos_place_ex(f.c, f.job, NULL, f.p, &stage), NS_EINVAL, "o");
  ck_assert_fails(ns_vclos_place_ex(f.c, f.job, f.o, NULL, &stage), NS_EINVAL, "out");
  ck_assert_int_eq(stage, -1);
  ck_assert_int_eq(ns_vclos_place_ex(f.c, f.job, f.o, f.p, NULL), NS_OK); /* stage optional */
  ns_job *huge = ns_job_new("huge", 17);
  ck_assert_fails(ns_vclos_place(f.c, huge, f.o, f.p), NS_EINVAL, "needs 17 GPUs");
  ns_job *wide = ns_job_new("wide", 6);
  ck_assert_fails(ns_vclos_place(f.flat, wide, f.o, f.p), NS_EUNSUPPORTED, "no spines");
  ck_assert_int_eq(ns_vclos_place(f.ocs, f.job, f.o, f.p), NS_OK);
  ns_job_free(huge);
  ns_job_free(wide);
  unmake(&f);
}
END_TEST

START_TEST(test_placement_accessors) {
  fixture f = make();
  int leaf, spine;
  ck_assert_fails(ns_placement_virtual_leaves(NULL), NS_EINVAL, "p");
  ck_assert_fails(ns_placement_virtual_spines(NULL), NS_EINVAL, "p");
  ck_assert_fails(ns_placement_link_count(NULL), NS_EINVAL, "p");
  ck_assert_fails(ns_placement_link(NULL, 0, &leaf, &spine), NS_EINVAL, "p");
  ck_assert_fails(ns_placement_link(f.p, 0, NULL, &spine), NS_EINVAL, "leaf");
  ck_assert_fails(ns_placement_link(f.p, 0, &leaf, NULL), NS_EINVAL, "spine");
  ck_assert_fails(ns_placement_link(f.p, 0, &leaf, &spine), NS_EINVAL, "i");
  ck_assert_fails(ns_placement_link(f.p, (size_t)-1, &leaf, &spine), NS_EINVAL, "i");
  unmake(&f);
}
END_TEST

START_TEST(test_route) {
  fixture f = make();
  int spine, up, down;
  ck_assert_fails(ns_vclos_route(NULL, 0, 1, &spine), NS_EINVAL, "c");
  ck_assert_fails(ns_vclos_route(f.c, -1, 1, &spine), NS_EINVAL, "src_gpu");
  ck_assert_fails(ns_vclos_route(f.c, 16, 1, &spine), NS_EINVAL, "src_gpu");
  ck_assert_fails(ns_vclos_route(f.c, 0, -2147483647 - 1, &spine), NS_EINVAL, "dst_gpu");
  ck_assert_fails(ns_vclos_route(f.c, 0, 16, &spine), NS_EINVAL, "dst_gpu");
  ck_assert_fails(ns_vclos_route(f.c, 0, 1, NULL), NS_EINVAL, "spine");
  ck_assert_fails(ns_vclos_route(f.flat, 0, 7, &spine), NS_EUNSUPPORTED, "no spines");
  ck_assert_fails(ns_vclos_route_links(NULL, 0, 1, &spine, &up, &down), NS_EINVAL, "c");
  ck_assert_fails(ns_vclos_route_links(f.c, 99, 1, &spine, &up, &down), NS_EINVAL, "src_gpu");
  ck_assert_fails(ns_vclos_route_links(f.c, 0, 99, &spine, &up, &down), NS_EINVAL, "dst_gpu");
  ck_assert_fails(ns_vclos_route_links(f.c, 0, 1, NULL, &up, &down), NS_EINVAL, "spine");
  ck_assert_fails(ns_vclos_route_links(f.c, 0, 1, &spine, NULL, &down), NS_EINVAL, "up_link");
  ck_assert_fails(ns_vclos_route_links(f.c, 0, 1, &spine, &up, NULL), NS_EINVAL, "down_link");
  ck_assert_int_eq(ns_vclos_route_links(f.c, 0, 15, &spine, &up, &down), NS_OK);
  ck_assert_int_eq(up, -1); /* no job: the physical mapping, no job links */
  ck_assert_int_eq(spine, 0);
  unmake(&f);
}
END_TEST

START_TEST(test_ocs_ports) {
  fixture f = make();
  ck_assert_fails(ns_cluster_ocs_free_leaf_ports(NULL, 0, 0), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_ocs_free_leaf_ports(f.c, 0, 0), NS_ESTATE, "OCS");
  ck_assert_fails(ns_cluster_ocs_free_leaf_ports(f.ocs, -1, 0), NS_EINVAL, "leaf");
  ck_assert_fails(ns_cluster_ocs_free_leaf_ports(f.ocs, 4, 0), NS_EINVAL, "leaf");
  ck_assert_fails(ns_cluster_ocs_free_leaf_ports(f.ocs, 0, 2), NS_EINVAL, "ocs");
  ck_assert_fails(ns_cluster_ocs_free_leaf_ports(f.ocs, 0, -1), NS_EINVAL, "ocs");
  ck_assert_fails(ns_cluster_ocs_free_spine_ports(NULL, 0, 0), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_ocs_free_spine_ports(f.c, 0, 0), NS_ESTATE, "OCS");
  ck_assert_fails(ns_cluster_ocs_free_spine_ports(f.ocs, 4, 0), NS_EINVAL, "spine");
  ck_assert_fails(ns_cluster_ocs_free_spine_ports(f.ocs, 0, 7), NS_EINVAL, "ocs");
  ck_assert_int_eq(ns_cluster_ocs_free_leaf_ports(f.ocs, 0, 1), 2);
  ck_assert_int_eq(ns_cluster_ocs_free_spine_ports(f.ocs, 3, 1), 2);
  ck_assert_fails(ns_cluster_enable_ocs(f.c, 3), NS_EINVAL, "ocs_count");
  unmake(&f);
}
END_TEST

static Suite *vclos_suite(void) {
  Suite *s = suite_create("vclos_abi");
  TCase *tc = tcase_create("misuse");
  tcase_add_test(tc, test_opts);
  tcase_add_test(tc, test_place);
  tcase_add_test(tc, test_placement_accessors);
  tcase_add_test(tc, test_route);
  tcase_add_test(tc, test_ocs_ports);
  suite_add_tcase(s, tc);
  return s;
}

NS_ABI_MAIN(vclos_suite)
