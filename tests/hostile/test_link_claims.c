/*
 * tests/hostile/test_link_claims.c - commits that list fabric links badly:
 * a link twice after many good ones, a reserved link at the very end, OCS
 * circuits that run a spine out of ports. ns_cluster_commit checks and
 * claims links in one linear pass (no quadratic duplicate search); these
 * tests pin its all-or-nothing contract: a failed commit leaves every link
 * as it was. The invariant oracle is a full count of free links / ports.
 */
#include "unit/helpers/ns_test.h"

#include "core/internal.h"

/* 8 leaves x 8 spines x 2 links per pair: 128 static links. */
#define L 8
#define S 8
#define K 2

static ns_cluster *fabric(void) {
  ns_cluster *c = ns_cluster_new_leaf_spine(L, S, 2, 4, K, 100.0);
  assert_non_null(c);
  return c;
}

static int free_uplinks(const ns_cluster *c) {
  int n = 0;
  for (int leaf = 0; leaf < L; leaf++)
    n += nsi_leaf_free_uplinks(c, leaf);
  return n;
}

static int spine_ports_used(const ns_cluster *c) {
  int n = 0;
  for (int i = 0; i < S * c->ocs_count; i++)
    n += c->ocs_spine_used[i];
  return n;
}

/* GPUs 0..3 and every static link of the fabric, in index order. */
static ns_placement *all_links(void) {
  ns_placement *p = ns_placement_new();
  for (int g = 0; g < 4; g++)
    assert_int_equal(ns_placement_add_gpu(p, g), NS_OK);
  for (int n = 0; n < L; n++)
    for (int m = 0; m < S; m++)
      for (int k = 0; k < K; k++)
        assert_int_equal(nsi_placement_add_link(p, n, m, k), NS_OK);
  return p;
}

static void test_commit_lists_a_link_twice_after_127_good_ones(void **state) {
  (void)state;
  ns_cluster *c = fabric();
  ns_job *j = ns_job_new("j", 4);
  ns_placement *p = all_links();
  assert_int_equal(nsi_placement_add_link(p, 0, 0, 0), NS_OK); /* the 129th: a repeat */
  assert_fails_with(ns_cluster_commit(c, j, p), NS_EINVAL, "(leaf 0, spine 0, #0) twice");
  assert_int_equal(free_uplinks(c), L * S * K); /* the 128 claims were undone */
  assert_int_equal(ns_cluster_is_committed(c, j), 0);
  assert_int_equal(ns_cluster_free_gpu_count(c), L * 2 * 4);
  /* without the repeat it commits, and release frees every link */
  p->nlinks--;
  assert_int_equal(ns_cluster_commit(c, j, p), NS_OK);
  assert_int_equal(free_uplinks(c), 0);
  assert_int_equal(ns_cluster_release(c, j), NS_OK);
  assert_int_equal(free_uplinks(c), L * S * K);
  ns_placement_free(p);
  ns_job_free(j);
  ns_cluster_free(c);
}

static void test_commit_meets_a_reserved_link_last(void **state) {
  (void)state;
  ns_cluster *c = fabric();
  ns_job *a = ns_job_new("a", 1), *b = ns_job_new("b", 4);
  ns_placement *pa = ns_placement_new();
  assert_int_equal(ns_placement_add_gpu(pa, 60), NS_OK);
  assert_int_equal(nsi_placement_add_link(pa, L - 1, S - 1, K - 1), NS_OK); /* the last link */
  assert_int_equal(ns_cluster_commit(c, a, pa), NS_OK);
  ns_placement *pb = all_links();
  assert_fails_with(ns_cluster_commit(c, b, pb), NS_ENOSPACE, "already reserved");
  assert_int_equal(free_uplinks(c), L * S * K - 1); /* only a's link is taken */
  assert_int_equal(ns_cluster_link_is_reserved(c, L - 1, S - 1, K - 1), 1);
  assert_int_equal(ns_cluster_link_is_reserved(c, 0, 0, 0), 0);
  /* a link out of range at the end: NS_EINVAL, and again nothing claimed */
  ns_placement *pc = all_links();
  pc->links[pc->nlinks - 1].k = K;
  assert_fails_with(ns_cluster_commit(c, b, pc), NS_EINVAL, "not in the cluster");
  assert_int_equal(free_uplinks(c), L * S * K - 1);
  ns_placement_free(pa), ns_placement_free(pb), ns_placement_free(pc);
  ns_job_free(a), ns_job_free(b);
  ns_cluster_free(c);
}

/* OCS: 2 OCSes; circuit (leaf, spine, port p), p < S*K. The static wiring
   (spine = p / K) uses every port exactly at capacity. */
static ns_placement *all_circuits(int to_spine0) {
  ns_placement *p = ns_placement_new();
  for (int g = 0; g < 4; g++)
    assert_int_equal(ns_placement_add_gpu(p, g), NS_OK);
  for (int n = 0; n < L; n++)
    for (int q = 0; q < S * K; q++)
      assert_int_equal(nsi_placement_add_link(p, n, to_spine0 ? 0 : q / K, q), NS_OK);
  return p;
}

static void test_ocs_commit_uses_a_leaf_port_twice_at_the_end(void **state) {
  (void)state;
  ns_cluster *c = fabric();
  assert_int_equal(ns_cluster_enable_ocs(c, 2), NS_OK);
  ns_job *j = ns_job_new("j", 4);
  ns_placement *p = all_circuits(0);
  assert_int_equal(nsi_placement_add_link(p, 3, 1, 2), NS_OK); /* port 2 of leaf 3 again */
  assert_fails_with(ns_cluster_commit(c, j, p), NS_EINVAL, "port 2 of leaf 3 twice");
  assert_int_equal(free_uplinks(c), L * S * K);
  assert_int_equal(spine_ports_used(c), 0);
  p->nlinks--;
  assert_int_equal(ns_cluster_commit(c, j, p), NS_OK);
  assert_int_equal(free_uplinks(c), 0);
  assert_int_equal(spine_ports_used(c), L * S * K);
  assert_int_equal(ns_cluster_release(c, j), NS_OK);
  assert_int_equal(free_uplinks(c), L * S * K);
  assert_int_equal(spine_ports_used(c), 0);
  ns_placement_free(p);
  ns_job_free(j);
  ns_cluster_free(c);
}

static void test_ocs_commit_runs_a_spine_out_of_ports(void **state) {
  (void)state;
  ns_cluster *c = fabric();
  assert_int_equal(ns_cluster_enable_ocs(c, 2), NS_OK);
  ns_job *j = ns_job_new("j", 4);
  /* Every leaf port to spine 0, which has L*K = 16 ports (8 per OCS): the
     17th circuit on one OCS fails, after 16 were claimed. */
  ns_placement *p = all_circuits(1);
  assert_fails_with(ns_cluster_commit(c, j, p), NS_ENOSPACE, "spine 0 has no free port");
  assert_int_equal(free_uplinks(c), L * S * K);
  assert_int_equal(spine_ports_used(c), 0);
  ns_placement_free(p);
  ns_job_free(j);
  ns_cluster_free(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_commit_lists_a_link_twice_after_127_good_ones),
      cmocka_unit_test(test_commit_meets_a_reserved_link_last),
      cmocka_unit_test(test_ocs_commit_uses_a_leaf_port_twice_at_the_end),
      cmocka_unit_test(test_ocs_commit_runs_a_spine_out_of_ports),
  };
  return cmocka_run_group_tests_name("hostile: link claims at commit", tests, NULL, NULL);
}
