/*
 * tests/unit/test_vclos.c - vClos / OCS-vClos (src/vclos, src/solver):
 * hand-built fabric states for every stage, the N_new rounding rule, the
 * exact search and the CBC ILP against a brute-force oracle and each
 * other on random fabric states, random commit/release sequences checked
 * independently for link reuse, and Lemma 5.1 (no link carries two flows
 * in any phase of ring, halving-doubling and pair-wise all-to-all).
 */
#include "helpers/ns_test.h"

#include <stdlib.h>

#include "core/collective.h"
#include "core/internal.h"
#include "vclos/internal.h"

/* ---- helpers ---------------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s) { /* splitmix64: fixed seeds, any platform */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static int rng_int(uint64_t *s, int lo, int hi) { /* inclusive */
  return lo + (int)(rng_next(s) % (uint64_t)(hi - lo + 1));
}

/* Occupies GPUs [first, first + n) as background load. */
static void occupy_range(ns_cluster *c, int first, int n) {
  for (int g = first; g < first + n; g++)
    assert_int_equal(ns_cluster_occupy(c, &g, 1), NS_OK);
}

/* Commits a blocker job holding `gpu` and the given (leaf, spine) links. */
static ns_job *block_links(ns_cluster *c, int gpu, const int (*ls)[2], int n) {
  ns_job *j = ns_job_new("blocker", 1);
  ns_placement *p = ns_placement_new();
  assert_int_equal(ns_placement_add_gpu(p, gpu), NS_OK);
  for (int i = 0; i < n; i++)
    assert_int_equal(nsi_placement_add_link(p, ls[i][0], ls[i][1], 0), NS_OK);
  assert_int_equal(ns_cluster_commit(c, j, p), NS_OK);
  ns_placement_free(p);
  return j;
}

static int has_link(const ns_placement *p, int leaf, int spine) {
  for (int i = 0; i < ns_placement_link_count(p); i++) {
    int l, s;
    assert_int_equal(ns_placement_link(p, (size_t)i, &l, &s), NS_OK);
    if (l == leaf && s == spine)
      return 1;
  }
  return 0;
}

/* Objective (6) of a committed-style placement, computed from the
   pre-decision cluster state with public calls only. */
static int64_t objective_of(const ns_cluster *c, const ns_placement *p) {
  int L = ns_cluster_leaf_count(c), S = ns_cluster_spine_count(c);
  int T = ns_cluster_gpus_per_server(c);
  int64_t cost = 0;
  unsigned char *leaf_used = calloc((size_t)L, 1), *spine_used = calloc((size_t)S, 1);
  for (int i = 0; i < ns_placement_link_count(p); i++) {
    int l, s;
    ns_placement_link(p, (size_t)i, &l, &s);
    leaf_used[l] = spine_used[s] = 1;
  }
  for (int n = 0; n < L; n++)
    if (leaf_used[n])
      cost += (int64_t)ns_cluster_idle_servers_on_leaf(c, n) * T;
  for (int m = 0; m < S; m++)
    if (spine_used[m])
      for (int n = 0; n < L; n++)
        cost += ns_cluster_free_links_between(c, n, m);
  free(leaf_used);
  free(spine_used);
  return cost;
}

/* ---- the N_new / shape rule ------------------------------------------------- */

static void test_shape_rule(void **state) {
  (void)state;
  /* l0 = max(1, 2^floor(log2 N) / S) */
  assert_int_equal(vc_first_l(2048, 32), 64);
  assert_int_equal(vc_first_l(1000, 32), 16); /* 512 / 32 */
  assert_int_equal(vc_first_l(24, 32), 1);    /* 16 / 32 = 0 -> 1 */
  assert_int_equal(vc_first_l(100, 8), 8);    /* 64 / 8 */
  /* power-of-two rule: s = smallest T * 2^j with l * s >= N; N_new = l * s */
  assert_int_equal(vc_spines_for(1000, 32, 8, VC_SIZE_POW2), 32); /* N_new = 1024 */
  assert_int_equal(vc_spines_for(24, 2, 8, VC_SIZE_POW2), 16);    /* N_new = 32 */
  assert_int_equal(vc_spines_for(48, 2, 8, VC_SIZE_POW2), 32);    /* not 24: N_new = 64 */
  assert_int_equal(vc_spines_for(48, 4, 8, VC_SIZE_POW2), 16);    /* N_new = 64 */
  assert_int_equal(vc_spines_for(12, 2, 4, VC_SIZE_POW2), 8);     /* N_new = 16 */
  assert_int_equal(vc_spines_for(16, 4, 4, VC_SIZE_POW2), 4);     /* exact */
  assert_int_equal(vc_spines_for(16, 4, 6, VC_SIZE_POW2), 6);     /* T = 6: s = 6, N_new = 24 */
  assert_int_equal(vc_spines_for(30, 2, 6, VC_SIZE_POW2), 24);    /* 6 -> 12 -> 24 */
  /* the paper's rule: s = T * ceil(N / (l T)) */
  assert_int_equal(vc_spines_for(1000, 32, 8, VC_SIZE_PAPER), 32); /* ceil(31.25 / 8) = 4 */
  assert_int_equal(vc_spines_for(24, 2, 8, VC_SIZE_PAPER), 16);    /* 12 -> 16 */
  assert_int_equal(vc_spines_for(48, 2, 8, VC_SIZE_PAPER), 24);    /* exact: 2 x 24 */
  assert_int_equal(vc_spines_for(24, 2, 4, VC_SIZE_PAPER), 12);    /* exact: 2 x 12 */
  assert_int_equal(vc_spines_for(20, 2, 4, VC_SIZE_PAPER), 12);    /* 10 -> 12: N_new = 24 */
  assert_int_equal(vc_spines_for(30, 2, 6, VC_SIZE_PAPER), 18);    /* 15 -> 18: N_new = 36 */
  assert_int_equal(vc_spines_for(24, 5, 4, VC_SIZE_PAPER_POW2_L), 8); /* ceil(4.8) = 5 -> 8 */
}

/* The shape sequence: l0 doubled up to L, then every other l ascending. */
static void test_shape_sequence(void **state) {
  (void)state;
  /* 6 leaves x 4 spines x 1 server x 4 GPUs; N = 24: l0 = 16 / 4 = 4,
     doubling gives 4 (s = 8 > 4 spines: skipped); then l = 2, 3, 5, 6 of
     which only l = 6 (s = 4) is admissible. */
  ns_cluster *c = ns_cluster_new_leaf_spine(6, 4, 1, 4, 1, 100);
  vc_shapes it;
  int l, s;
  vc_shapes_begin(&it, c, 24, VC_SIZE_PAPER);
  assert_true(vc_shapes_next(&it, &l, &s));
  assert_int_equal(l, 6);
  assert_int_equal(s, 4);
  assert_false(vc_shapes_next(&it, &l, &s));
  /* power-of-two rule and power-of-two l: nothing */
  vc_shapes_begin(&it, c, 24, VC_SIZE_POW2);
  assert_false(vc_shapes_next(&it, &l, &s));
  vc_shapes_begin(&it, c, 24, VC_SIZE_PAPER_POW2_L);
  assert_false(vc_shapes_next(&it, &l, &s));
  ns_cluster_free(c);
  /* 8 leaves x 16 spines x 4 servers x 4 GPUs, N = 20: l0 = 16/16 = 1 is
     Stage 1's, then 2 (s = 12), 4 (s = 8), 8 (s = 4), then 3 (s = 8),
     5 (s = 4), 6 (s = 4), 7 (s = 4) */
  c = ns_cluster_new_leaf_spine(8, 16, 4, 4, 1, 100);
  static const int want[][2] = {{2, 12}, {4, 8}, {8, 4}, {3, 8}, {5, 4}, {6, 4}, {7, 4}};
  vc_shapes_begin(&it, c, 20, VC_SIZE_PAPER);
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    assert_true(vc_shapes_next(&it, &l, &s));
    assert_int_equal(l, want[i][0]);
    assert_int_equal(s, want[i][1]);
  }
  assert_false(vc_shapes_next(&it, &l, &s));
  ns_cluster_free(c);
}

static void test_rounding_through_place(void **state) {
  (void)state;
  /* 8 leaves x 8 spines, 2 servers of 4 GPUs per leaf: a 12-GPU job needs 3
     servers, more than a leaf has, so Stage 2: l0 = max(1, 8/8) = 1 is Stage
     1's case, l = 2 gives s = 4 * ceil(12 / 8) = 8, N_new = 16. */
  ns_cluster *c = ns_cluster_new_leaf_spine(8, 8, 2, 4, 1, 100);
  ns_job *j = ns_job_new("j12", 12);
  ns_vclos_opts *o = ns_vclos_opts_new();
  ns_placement *p = ns_placement_new();
  int stage = -1;
  assert_int_equal(ns_vclos_place_ex(c, j, o, p, &stage), NS_OK);
  assert_int_equal(stage, 2);
  assert_int_equal(ns_placement_gpu_count(p), 16);
  assert_int_equal(ns_placement_virtual_leaves(p), 2);
  assert_int_equal(ns_placement_virtual_spines(p), 8);
  assert_int_equal(ns_placement_link_count(p), 16);
  assert_int_equal(ns_cluster_commit(c, j, p), NS_OK);
  /* a 5-GPU job fits one leaf (2 servers): Stage 1, no rounding, no links */
  ns_job *k = ns_job_new("j5", 5);
  assert_int_equal(ns_vclos_place_ex(c, k, o, p, &stage), NS_OK);
  assert_int_equal(stage, 1);
  assert_int_equal(ns_placement_gpu_count(p), 5);
  assert_int_equal(ns_placement_link_count(p), 0);
  ns_placement_free(p);
  ns_vclos_opts_free(o);
  ns_job_free(j);
  ns_job_free(k);
  ns_cluster_free(c);
}

/* ---- Stage 0 and Stage 1 ---------------------------------------------------- */

static void test_stage0_best_fit(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(2, 2, 2, 4, 1, 100); /* servers 0-3 */
  occupy_range(c, 0, 2); /* server 0: 2 free */
  occupy_range(c, 8, 1); /* server 2: 3 free */
  ns_vclos_opts *o = ns_vclos_opts_new();
  ns_placement *p = ns_placement_new();
  ns_job *two = ns_job_new("two", 2), *three = ns_job_new("three", 3);
  int stage = -1;
  assert_int_equal(ns_vclos_place_ex(c, two, o, p, &stage), NS_OK);
  assert_int_equal(stage, 0);
  assert_int_equal(ns_placement_gpu_count(p), 2); /* server 0, the fullest that fits */
  assert_int_equal(ns_placement_gpu(p, 0), 2);
  assert_int_equal(ns_placement_gpu(p, 1), 3);
  assert_int_equal(ns_placement_link_count(p), 0);
  assert_int_equal(ns_vclos_place_ex(c, three, o, p, &stage), NS_OK);
  assert_int_equal(ns_placement_gpu(p, 0), 9); /* server 2 (3 free) beats 1 and 3 (4) */
  assert_int_equal(ns_placement_gpu(p, 2), 11);
  ns_placement_free(p);
  ns_vclos_opts_free(o);
  ns_job_free(two);
  ns_job_free(three);
  ns_cluster_free(c);
}

static void test_stage1_fewest_idle_leaf(void **state) {
  (void)state;
  /* 3 leaves x 4 servers x 2 GPUs: leaf 0 has 4 idle servers, leaf 1 two,
     leaf 2 three. */
  ns_cluster *c = ns_cluster_new_leaf_spine(3, 2, 4, 2, 1, 100);
  occupy_range(c, 8, 1);  /* leaf 1 server 4 */
  occupy_range(c, 10, 1); /* leaf 1 server 5 */
  occupy_range(c, 16, 1); /* leaf 2 server 8 */
  ns_vclos_opts *o = ns_vclos_opts_new();
  ns_placement *p = ns_placement_new();
  ns_job *four = ns_job_new("four", 4), *six = ns_job_new("six", 6);
  int stage = -1;
  assert_int_equal(ns_vclos_place_ex(c, four, o, p, &stage), NS_OK);
  assert_int_equal(stage, 1);
  int expect4[] = {12, 13, 14, 15}; /* leaf 1's idle servers 6 and 7 */
  assert_int_equal(ns_placement_gpu_count(p), 4);
  for (int i = 0; i < 4; i++)
    assert_int_equal(ns_placement_gpu(p, (size_t)i), expect4[i]);
  assert_int_equal(ns_placement_virtual_leaves(p), 1);
  assert_int_equal(ns_placement_virtual_spines(p), 0);
  assert_int_equal(ns_vclos_place_ex(c, six, o, p, &stage), NS_OK);
  int expect6[] = {18, 19, 20, 21, 22, 23}; /* leaf 2 (3 idle) beats leaf 0 (4) */
  for (int i = 0; i < 6; i++)
    assert_int_equal(ns_placement_gpu(p, (size_t)i), expect6[i]);
  ns_placement_free(p);
  ns_vclos_opts_free(o);
  ns_job_free(four);
  ns_job_free(six);
  ns_cluster_free(c);
}

/* ---- Stage 2 ---------------------------------------------------------------- */

/* 4 leaves x 4 spines x 2 servers x 2 GPUs; every leaf keeps one idle server
   (RSN = 1, cost 2 each); links (0,0) and (0,1) are taken, so RPN = 3, 3, 4, 4
   and leaf 0 reaches only spines 2, 3. A 4-GPU job is l = 2 x s = 2:
   {leaf 0 + any, spines 2,3} costs 2 + 2 + 4 + 4 = 12; two other leaves on
   spines 0,1 cost 2 + 2 + 3 + 3 = 10, the optimum. */
static ns_cluster *stage2_state(ns_job **blocker) {
  ns_cluster *c = ns_cluster_new_leaf_spine(4, 4, 2, 2, 1, 100);
  static const int taken[2][2] = {{0, 0}, {0, 1}};
  *blocker = block_links(c, 0, taken, 2);
  occupy_range(c, 4, 1);  /* leaf 1 server 2 */
  occupy_range(c, 8, 1);  /* leaf 2 server 4 */
  occupy_range(c, 12, 1); /* leaf 3 server 6 */
  return c;
}

static void check_stage2_state(int use_milp) {
  ns_job *blocker;
  ns_cluster *c = stage2_state(&blocker);
  ns_vclos_opts *o = ns_vclos_opts_new();
  assert_int_equal(ns_vclos_opts_set_solver(o, use_milp), NS_OK);
  ns_placement *p = ns_placement_new();
  ns_job *j = ns_job_new("j4", 4);
  int stage = -1;
  assert_int_equal(ns_vclos_place_ex(c, j, o, p, &stage), NS_OK);
  assert_int_equal(stage, 2);
  assert_int_equal(ns_placement_virtual_leaves(p), 2);
  assert_int_equal(ns_placement_virtual_spines(p), 2);
  assert_int_equal(ns_placement_link_count(p), 4);
  assert_int_equal(objective_of(c, p), 10);
  assert_false(has_link(p, 0, 2) || has_link(p, 0, 3));
  for (int leaf = 1; leaf < 4; leaf++) /* both spines are 0 and 1 */
    assert_int_equal(has_link(p, leaf, 0), has_link(p, leaf, 1));
  if (!use_milp) { /* the search keeps the first optimum: leaves 1, 2 */
    assert_true(has_link(p, 1, 0) && has_link(p, 2, 1));
    int expect[] = {6, 7, 10, 11};
    for (int i = 0; i < 4; i++)
      assert_int_equal(ns_placement_gpu(p, (size_t)i), expect[i]);
  }
  assert_int_equal(ns_cluster_commit(c, j, p), NS_OK);
  assert_int_equal(ns_cluster_free_links_between(c, 0, 0), 0);
  ns_placement_free(p);
  ns_vclos_opts_free(o);
  ns_job_free(j);
  ns_job_free(blocker);
  ns_cluster_free(c);
}

static void test_stage2_exact(void **state) {
  (void)state;
  check_stage2_state(0);
}

static void test_stage2_ilp(void **state) {
  (void)state;
  check_stage2_state(1);
}

/* With every leaf down to one idle server a 2-server job cannot be l = 1;
   l = 2 (s = 2) works only if two leaves share two spines, and so does
   l = 4 (s = T = 2, N_new = 8). Take away all but one link of every leaf:
   the job must wait (NS_ENOSPACE) and `out` is untouched. */
static void test_stage2_waits(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(4, 4, 2, 2, 1, 100);
  static const int taken[12][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 0}, {1, 2}, {1, 3},
                                   {2, 0}, {2, 1}, {2, 3}, {3, 0}, {3, 1}, {3, 2}};
  ns_job *blocker = block_links(c, 0, taken, 12);
  occupy_range(c, 4, 1);
  occupy_range(c, 8, 1);
  occupy_range(c, 12, 1);
  ns_vclos_opts *o = ns_vclos_opts_new();
  ns_placement *p = ns_placement_new();
  assert_int_equal(ns_placement_add_gpu(p, 99), NS_OK); /* must survive failure */
  ns_job *j = ns_job_new("j4", 4);
  for (int milp = 0; milp <= 1; milp++) {
    ns_vclos_opts_set_solver(o, milp);
    assert_fails_with(ns_vclos_place(c, j, o, p), NS_ENOSPACE, "ns_vclos_place");
    assert_int_equal(ns_placement_gpu_count(p), 1);
    assert_int_equal(ns_placement_gpu(p, 0), 99);
  }
  ns_placement_free(p);
  ns_vclos_opts_free(o);
  ns_job_free(j);
  ns_job_free(blocker);
  ns_cluster_free(c);
}

/* Fewer spines than GPUs per server (issue 28): 4 leaves x 1 spine x 4
   servers x 4 GPUs has no Stage-2 shape at all (s is a multiple of T = 4 >
   S = 1), so an 8-GPU job runs only on one leaf with 2 idle servers. With
   every leaf down to one idle server it must wait (NS_ENOSPACE, the Stage-1
   reason), not be refused for good; once a leaf has 2 idle servers it is
   placed there. A 20-GPU job (more than one leaf's 16) never fits:
   NS_EINVAL. With an OCS layer the same, and Stage 2's single spine counts:
   links_per_pair 8 gives the spine 32 circuits, so 8 GPUs over two leaves'
   lone idle servers fit now; with 1 link the spine has 4 and a 1-server
   leaf fabric (P = 1) can never hold 8 GPUs: NS_EINVAL. */
static void test_few_spines_wait_not_never(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(4, 1, 4, 4, 1, 100);
  ns_job *one[16];
  ns_placement *p = ns_placement_new();
  for (int sv = 0; sv < 16; sv++) { /* one 4-GPU job per server */
    one[sv] = ns_job_new("one", 4);
    ns_placement_clear(p);
    for (int g = 0; g < 4; g++)
      assert_int_equal(ns_placement_add_gpu(p, sv * 4 + g), NS_OK);
    assert_int_equal(ns_cluster_commit(c, one[sv], p), NS_OK);
  }
  for (int leaf = 0; leaf < 4; leaf++) /* the first job of every leaf ends */
    assert_int_equal(ns_cluster_release(c, one[leaf * 4]), NS_OK);
  ns_vclos_opts *o = ns_vclos_opts_new();
  ns_job *j8 = ns_job_new("j8", 8), *j20 = ns_job_new("j20", 20);
  ns_placement_clear(p);
  for (int milp = 0; milp <= 1; milp++) {
    ns_vclos_opts_set_solver(o, milp);
    assert_fails_with(ns_vclos_place(c, j8, o, p), NS_ENOSPACE, "no leaf has 2 idle servers");
    assert_int_equal(ns_placement_gpu_count(p), 0);
  }
  assert_fails_with(ns_vclos_place(c, j20, o, p), NS_EINVAL, "fits no");
  assert_int_equal(ns_cluster_release(c, one[9]), NS_OK); /* leaf 2: servers 8, 9 idle */
  int stage = -1;
  assert_int_equal(ns_vclos_place_ex(c, j8, o, p, &stage), NS_OK);
  assert_int_equal(stage, 1);
  assert_int_equal((int)ns_placement_gpu_count(p), 8);
  for (int k = 0; k < 8; k++) /* GPUs 32..39: servers 8 and 9 */
    assert_int_equal(ns_placement_gpu(p, (size_t)k), 32 + k);
  for (int sv = 0; sv < 16; sv++)
    ns_job_free(one[sv]);
  ns_cluster_free(c);
  /* OCS: 4 leaves x 1 spine x 1 server x 4 GPUs, one OCS. */
  for (int links = 1; links <= 8; links += 7) {
    c = ns_cluster_new_leaf_spine(4, 1, 1, 4, links, 100);
    assert_int_equal(ns_cluster_enable_ocs(c, 1), NS_OK);
    occupy_range(c, 0, 1); /* leaves 0 and 1 busy: one idle server left */
    occupy_range(c, 4, 1);
    occupy_range(c, 8, 1);
    ns_placement_clear(p);
    if (links == 1) {
      assert_fails_with(ns_vclos_place(c, j8, o, p), NS_EINVAL, "fits no");
    } else {
      assert_fails_with(ns_vclos_place(c, j8, o, p), NS_ENOSPACE, "now");
      int g = 8;
      assert_int_equal(ns_cluster_vacate(c, &g, 1), NS_OK); /* leaves 2, 3 idle */
      assert_int_equal(ns_vclos_place_ex(c, j8, o, p, &stage), NS_OK);
      assert_int_equal(stage, 2);
      assert_int_equal((int)ns_placement_gpu_count(p), 8);
    }
    ns_cluster_free(c);
  }
  ns_placement_free(p);
  ns_vclos_opts_free(o);
  ns_job_free(j8);
  ns_job_free(j20);
}

/* ---- exact search vs ILP vs brute force on random fabric states ------------- */

static void random_fabric(vc_fabric *f, uint64_t *rng, int L, int S, int T, int P) {
  *f = (vc_fabric){L, S, T, P, 1, (S + 63) / 64, NULL, NULL, NULL};
  f->idle = calloc((size_t)L, sizeof *f->idle);
  f->rpn = calloc((size_t)S, sizeof *f->rpn);
  f->bits = calloc((size_t)L * (size_t)f->words, sizeof *f->bits);
  int density = rng_int(rng, 40, 95);
  for (int n = 0; n < L; n++) {
    f->idle[n] = rng_int(rng, 0, P);
    for (int m = 0; m < S; m++)
      if (rng_int(rng, 1, 100) <= density)
        f->bits[(size_t)n * f->words + (size_t)(m >> 6)] |= (uint64_t)1 << (m & 63);
  }
  for (int m = 0; m < S; m++)
    f->rpn[m] = rng_int(rng, 0, 3 * L); /* objective weights: any non-negative values */
}

/* Brute force over all leaf subsets (L <= 12): INT64_MAX if infeasible. */
static int64_t brute_force(const vc_fabric *f, int l, int s) {
  int64_t best = INT64_MAX;
  for (unsigned mask = 0; mask < (1u << f->L); mask++) {
    if (__builtin_popcount(mask) != l)
      continue;
    int64_t cost = 0;
    uint64_t inter = ~(uint64_t)0;
    int ok = 1;
    for (int n = 0; n < f->L && ok; n++)
      if (mask & (1u << n)) {
        ok = (int64_t)f->idle[n] * f->T >= s;
        inter &= f->bits[(size_t)n * f->words];
        cost += (int64_t)f->idle[n] * f->T;
      }
    if (!ok || __builtin_popcountll(inter) < s)
      continue;
    unsigned char used[64] = {0};
    for (int k = 0; k < s; k++) { /* s cheapest spines of the intersection */
      int pick = -1;
      for (int m = 0; m < f->S; m++)
        if (((inter >> m) & 1u) && !used[m] && (pick < 0 || f->rpn[m] < f->rpn[pick]))
          pick = m;
      used[pick] = 1;
      cost += f->rpn[pick];
    }
    if (cost < best)
      best = cost;
  }
  return best;
}

/* The solution really is a virtual Clos of this fabric with this cost. */
static void check_choice(const vc_fabric *f, int l, int s, const vc_choice *ch) {
  for (int i = 0; i < l; i++) {
    assert_true((int64_t)f->idle[ch->leaves[i]] * f->T >= s);
    if (i)
      assert_true(ch->leaves[i] > ch->leaves[i - 1]);
    for (int j = 0; j < s; j++)
      assert_true(vc_bit(f->bits + (size_t)ch->leaves[i] * f->words, ch->spines[j]));
  }
  for (int j = 1; j < s; j++)
    assert_true(ch->spines[j] > ch->spines[j - 1]);
  assert_int_equal(vc_cost(f, ch->leaves, l, ch->spines, s), ch->cost);
}

static void compare_on(const vc_fabric *f, int l, int s, int with_brute, int *feasible) {
  int lb[64], sb[64], li[64], si[64];
  vc_choice a = {lb, sb, 0}, b = {li, si, 0};
  int ra = vc_search(f, l, s, &a, "t"), rb = vc_ilp(f, l, s, 30.0, &b, "t");
  assert_int_equal(ra, rb);
  if (with_brute)
    assert_int_equal(ra == NS_OK, brute_force(f, l, s) != INT64_MAX);
  if (ra != NS_OK) {
    assert_int_equal(ra, NS_ENOSPACE);
    return;
  }
  ++*feasible;
  check_choice(f, l, s, &a);
  check_choice(f, l, s, &b);
  assert_int_equal(a.cost, b.cost); /* same objective (6) */
  if (with_brute)
    assert_int_equal(a.cost, brute_force(f, l, s));
}

static void test_search_vs_ilp_small(void **state) {
  (void)state;
  uint64_t rng = 20240601;
  int feasible = 0, compared = 0;
  while (compared < 220) {
    int L = rng_int(&rng, 2, 10), S = rng_int(&rng, 2, 12), T = 1 << rng_int(&rng, 0, 2);
    int P = rng_int(&rng, 1, 4);
    vc_fabric f;
    random_fabric(&f, &rng, L, S, T, P);
    int l = rng_int(&rng, 2, L < 5 ? L : 5), smax = S < P * T ? S : P * T;
    int s = T * rng_int(&rng, 1, smax / T > 0 ? smax / T : 1);
    if (s <= S) {
      compare_on(&f, l, s, 1, &feasible);
      compared++;
    }
    vc_fabric_free(&f);
  }
  assert_true(feasible >= 50); /* the random states are not all trivially infeasible */
}

/* Larger fabrics, no brute force: l in {2, 4} keeps CBC within seconds. */
static void test_search_vs_ilp_medium(void **state) {
  (void)state;
  uint64_t rng = 77;
  int feasible = 0;
  for (int it = 0; it < 30; it++) {
    int L = rng_int(&rng, 16, 40), S = rng_int(&rng, 8, 24), T = 4, P = 8;
    vc_fabric f;
    random_fabric(&f, &rng, L, S, T, P);
    int l = 1 << rng_int(&rng, 1, 2), s = T * rng_int(&rng, 1, S / T < 4 ? S / T : 4);
    compare_on(&f, l, s, 0, &feasible);
    vc_fabric_free(&f);
  }
  assert_true(feasible >= 10);
}

/* ---- random commit sequences: isolation, Lemma 5.1 -------------------------- */

/* Per-phase flows of a collective over N workers (worker r = the r-th GPU of
   the placement), from the shared definitions in src/core/collective.c:
   ring, halving-doubling (with the pre/post step when N is not a power of
   two) and pair-wise all-to-all. Returns the number of flows of `phase`,
   -1 past the last phase. */
static int flows(ns_collective coll, int N, int phase, int *src, int *dst) {
  if (N < 2 || phase >= nsi_coll_phases(coll, N))
    return -1;
  int n = 0;
  for (int from = 0; from < N; from++) {
    nsi_flow out[NSI_COLL_MAX_SENDS];
    int k = nsi_coll_sends(coll, N, (uint64_t)N << 20, phase, from, out);
    for (int i = 0; i < k; i++)
      src[n] = from, dst[n++] = out[i].to;
  }
  return n;
}

/* Lemma 5.1 for one committed job: every cross-leaf flow takes one of the
   job's own links up and down through the same spine, and no directed link
   carries two flows in one phase. Checked collectives: ring always, plus
   the job's own (halving-doubling or pair-wise all-to-all; a ring job gets
   all-to-all too: both run on the leaf-by-leaf layout), or all three when
   `all3` (the power-of-two rule, where every layout is leaf by leaf). */
static void check_lemma_colls(const ns_cluster *c, const ns_job *job, int all3) {
  ns_placement *p = ns_placement_new();
  assert_int_equal(ns_cluster_job_placement(c, job, p), NS_OK);
  int N = (int)ns_placement_gpu_count(p), nl = ns_placement_link_count(p);
  size_t cap = (size_t)N * NSI_COLL_MAX_SENDS + 1;
  int *src = malloc(cap * sizeof *src), *dst = malloc(cap * sizeof *dst);
  int *use = malloc((size_t)(nl ? nl : 1) * 2 * sizeof *use);
  int per_leaf = ns_cluster_servers_per_leaf(c) * ns_cluster_gpus_per_server(c);
  int hd = ns_job_collective(job) == NS_COLL_HALVING_DOUBLING;
  ns_collective colls[3] = {NS_COLL_RING, hd ? NS_COLL_HALVING_DOUBLING : NS_COLL_ALL_TO_ALL,
                            hd ? NS_COLL_ALL_TO_ALL : NS_COLL_HALVING_DOUBLING};
  for (int ci = 0; ci < (all3 ? 3 : 2); ci++)
    for (int ph = 0;; ph++) {
      int nf = flows(colls[ci], N, ph, src, dst);
      if (nf < 0)
        break;
      memset(use, 0, (size_t)(nl ? nl : 1) * 2 * sizeof *use);
      for (int f = 0; f < nf; f++) {
        int gs = ns_placement_gpu(p, (size_t)src[f]), gd = ns_placement_gpu(p, (size_t)dst[f]);
        int spine, up, down, ls, ms, ld, md;
        assert_int_equal(ns_vclos_route_links(c, gs, gd, &spine, &up, &down), NS_OK);
        if (gs / per_leaf == gd / per_leaf) {
          assert_int_equal(spine, -1);
          continue;
        }
        assert_true(up >= 0 && up < nl && down >= 0 && down < nl);
        ns_placement_link(p, (size_t)up, &ls, &ms);
        ns_placement_link(p, (size_t)down, &ld, &md);
        assert_int_equal(ls, gs / per_leaf);
        assert_int_equal(ld, gd / per_leaf);
        assert_int_equal(ms, spine);
        assert_int_equal(md, spine);
        int plain;
        assert_int_equal(ns_vclos_route(c, gs, gd, &plain), NS_OK);
        assert_int_equal(plain, spine);
        if (++use[2 * up] > 1 || ++use[2 * down + 1] > 1)
          fail_msg("job %s (%d GPUs, %d x %d): collective %d phase %d: link %d carries two "
                   "flows", ns_job_name(job), N, ns_placement_virtual_leaves(p),
                   ns_placement_virtual_spines(p), (int)colls[ci], ph,
                   use[2 * up] > 1 ? up : down);
      }
    }
  free(src);
  free(dst);
  free(use);
  ns_placement_free(p);
}

static void check_lemma(const ns_cluster *c, const ns_job *job) { check_lemma_colls(c, job, 0); }

/* Independent bookkeeping: every committed job's links, counted per
   (leaf, spine) pair, never exceed links_per_pair, and the cluster's own
   free-link counts agree. GPUs are never shared either. */
static void check_isolation(const ns_cluster *c, ns_job **jobs, const int *live, int nj) {
  int L = ns_cluster_leaf_count(c), S = ns_cluster_spine_count(c);
  int K = ns_cluster_links_per_pair(c), G = ns_cluster_gpu_count(c);
  int *count = calloc((size_t)L * (size_t)S, sizeof *count);
  unsigned char *gpu = calloc((size_t)G, 1);
  ns_placement *p = ns_placement_new();
  for (int j = 0; j < nj; j++) {
    if (!live[j])
      continue;
    assert_int_equal(ns_cluster_job_placement(c, jobs[j], p), NS_OK);
    for (size_t i = 0; i < ns_placement_gpu_count(p); i++) {
      int g = ns_placement_gpu(p, i);
      assert_false(gpu[g]);
      gpu[g] = 1;
    }
    for (int i = 0; i < ns_placement_link_count(p); i++) {
      int l, s;
      ns_placement_link(p, (size_t)i, &l, &s);
      count[l * S + s]++;
    }
  }
  for (int l = 0; l < L; l++)
    for (int s = 0; s < S; s++) {
      assert_true(count[l * S + s] <= K);
      assert_int_equal(ns_cluster_free_links_between(c, l, s), K - count[l * S + s]);
    }
  free(count);
  free(gpu);
  ns_placement_free(p);
}

/* The decision is a proper virtual Clos: l leaves x s spines, a complete
   bipartite set of links, s GPUs (s/T whole servers) per virtual leaf. */
static void check_shape(const ns_cluster *c, const ns_placement *p, int stage) {
  int l = ns_placement_virtual_leaves(p), s = ns_placement_virtual_spines(p);
  int nl = ns_placement_link_count(p);
  if (stage < 2) {
    assert_int_equal(nl, 0);
    return;
  }
  assert_int_equal((int)ns_placement_gpu_count(p), l * s);
  assert_int_equal(nl, l * s);
  if (ns_cluster_ocs_count(c) == 0) /* one link per (chosen leaf, chosen spine) */
    for (int i = 0; i < nl; i++) {
      int li, si;
      ns_placement_link(p, (size_t)i, &li, &si);
      for (int j = 0; j < i; j++) {
        int lj, sj;
        ns_placement_link(p, (size_t)j, &lj, &sj);
        assert_false(li == lj && si == sj);
      }
    }
}

/* One step of a random sequence: release the job if it runs, else place it
   (deciding must not mutate the cluster), check the placement's shape and
   commit it; NS_ENOSPACE is the only acceptable failure. */
static void toggle_job(ns_cluster *c, const ns_vclos_opts *o, ns_placement *p, ns_job *job,
                       int *live, int *stages) {
  if (*live) {
    assert_int_equal(ns_cluster_release(c, job), NS_OK);
    *live = 0;
    return;
  }
  int stage = -1, before = ns_cluster_free_gpu_count(c);
  int rc = ns_vclos_place_ex(c, job, o, p, &stage);
  assert_int_equal(ns_cluster_free_gpu_count(c), before); /* deciding never mutates */
  if (rc != NS_OK) {
    assert_int_equal(rc, NS_ENOSPACE);
    return;
  }
  check_shape(c, p, stage);
  stages[stage]++;
  assert_int_equal(ns_cluster_commit(c, job, p), NS_OK);
  *live = 1;
}

/* Invariant checked after every step of a random sequence. */
typedef void (*state_check)(const ns_cluster *c, ns_job **jobs, const int *live, int nj);

/* `steps` random place/commit or release steps over nj (<= 64) jobs of 1..max_gpus
   GPUs (collectives ring, halving-doubling, all-to-all in turn), `check`
   after each, then Lemma 5.1 for every live job. */
static void random_sequence_rule(ns_cluster *c, uint64_t seed, int nj, int steps, int max_gpus,
                                 int use_milp, int pow2, state_check check, int *stages_seen) {
  static const ns_collective colls[] = {NS_COLL_RING, NS_COLL_HALVING_DOUBLING,
                                        NS_COLL_ALL_TO_ALL};
  ns_job *jobs[64];
  int live[64] = {0};
  assert_true(nj <= 64);
  char name[16];
  uint64_t rng = seed;
  ns_vclos_opts *o = ns_vclos_opts_new();
  ns_vclos_opts_set_solver(o, use_milp);
  assert_int_equal(ns_vclos_opts_set_power_of_two(o, pow2), NS_OK);
  ns_placement *p = ns_placement_new();
  for (int j = 0; j < nj; j++) {
    snprintf(name, sizeof name, "job%d", j);
    jobs[j] = ns_job_new(name, rng_int(&rng, 1, max_gpus));
    assert_int_equal(ns_job_set_collective(jobs[j], colls[j % 3]), NS_OK);
  }
  for (int step = 0; step < steps; step++) {
    int j = rng_int(&rng, 0, nj - 1);
    toggle_job(c, o, p, jobs[j], &live[j], stages_seen);
    check(c, jobs, live, nj);
  }
  for (int j = 0; j < nj; j++)
    if (live[j])
      check_lemma_colls(c, jobs[j], pow2);
  for (int j = 0; j < nj; j++)
    ns_job_free(jobs[j]);
  ns_placement_free(p);
  ns_vclos_opts_free(o);
}

static void random_sequence(ns_cluster *c, uint64_t seed, int nj, int steps, int max_gpus,
                            int use_milp, state_check check, int *stages_seen) {
  random_sequence_rule(c, seed, nj, steps, max_gpus, use_milp, 0, check, stages_seen);
}

static void test_random_commits_exact(void **state) {
  (void)state;
  int stages[4] = {0};
  for (uint64_t seed = 1; seed <= 6; seed++) {
    /* 16 leaves x 8 spines x 2 servers x 4 GPUs = 128 GPUs, 1 or 2 links per pair */
    ns_cluster *c = ns_cluster_new_leaf_spine(16, 8, 2, 4, 1 + (int)(seed % 2), 100);
    random_sequence(c, seed, 64, 150, 40, 0, check_isolation, stages);
    ns_cluster_free(c);
    c = ns_cluster_new_leaf_spine(16, 8, 2, 4, 1, 100); /* the power-of-two rule */
    random_sequence_rule(c, seed + 100, 64, 150, 40, 0, 1, check_isolation, stages);
    ns_cluster_free(c);
  }
  assert_true(stages[0] > 0 && stages[1] > 0 && stages[2] > 20);
}

static void test_random_commits_ilp(void **state) {
  (void)state;
  int stages[4] = {0};
  ns_cluster *c = ns_cluster_new_leaf_spine(8, 8, 2, 4, 1, 100);
  random_sequence(c, 99, 64, 60, 24, 1, check_isolation, stages);
  ns_cluster_free(c);
  assert_true(stages[2] > 3);
}

/* Places and commits one job of n GPUs with collective `coll` (pow2: the
   power-of-two rule) on cluster c; returns the job (caller frees). */
static ns_job *place_one(ns_cluster *c, int n, ns_collective coll, int pow2, int *stage) {
  ns_job *j = ns_job_new("big", n);
  assert_int_equal(ns_job_set_collective(j, coll), NS_OK);
  ns_vclos_opts *o = ns_vclos_opts_new();
  assert_int_equal(ns_vclos_opts_set_power_of_two(o, pow2), NS_OK);
  ns_placement *p = ns_placement_new();
  assert_int_equal(ns_vclos_place_ex(c, j, o, p, stage), NS_OK);
  check_shape(c, p, *stage);
  assert_int_equal(ns_cluster_commit(c, j, p), NS_OK);
  ns_placement_free(p);
  ns_vclos_opts_free(o);
  return j;
}

/* Lemma 5.1 on shapes with s not a power of two (s = 24, 40, 12, ...),
   with N_new > N, under both sizing rules and for jobs of each collective,
   on a fabric with 32 GPUs per leaf. */
static void test_lemma_sizes(void **state) {
  (void)state;
  static const int sizes[] = {48, 96, 40, 120, 250, 64, 36, 100, 28, 200};
  static const ns_collective colls[] = {NS_COLL_RING, NS_COLL_HALVING_DOUBLING,
                                        NS_COLL_ALL_TO_ALL};
  for (int pow2 = 0; pow2 <= 1; pow2++)
    for (int ci = 0; ci < 3; ci++)
      for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        ns_cluster *c = ns_cluster_new_leaf_spine(16, 32, 4, 8, 1, 100);
        for (int leaf = 0; leaf < 16; leaf++) /* force Stage 2: one busy GPU per leaf */
          occupy_range(c, leaf * 32, 1);
        int stage = -1;
        ns_job *j = place_one(c, sizes[i], colls[ci], pow2, &stage);
        assert_int_equal(stage, 2);
        check_lemma_colls(c, j, pow2);
        ns_job_free(j);
        ns_cluster_free(c);
      }
}

/* Issue 17's worked case: 8 leaves x 16 spines x 4 servers x 4 GPUs (16
   GPUs per leaf, so N > 16 needs Stage 2), empty fabric. By hand
   (l0 = max(1, 2^floor(log2 N) / 16), s = 4 * ceil(N / 4l), s <= 16 and
   s / 4 <= 4 servers):
     N = 24: l0 = 1 -> l = 2, s = 12: 24      (power-of-two rule: s = 16, 32)
     N = 48: l0 = 2, s = 24 > 16 -> l = 4, s = 12: 48   (pow2: 4 x 16 = 64)
     N = 96: l0 = 4, s = 24 -> l = 8, s = 12: 96        (pow2: 8 x 16 = 128)
     N = 20: l0 = 1 -> l = 2, s = 4 * ceil(10 / 4) = 12: 24   (pow2: 32)
     N = 64: l0 = 4, s = 16: 64                         (pow2: 64)
   The same for halving-doubling jobs (every l here is a power of two),
   and each placement is contention-free (Lemma 5.1). */
static void test_paper_sizes(void **state) {
  (void)state;
  static const int asked[] = {24, 48, 96, 20, 64};
  static const int paper[][3] = {{24, 2, 12}, {48, 4, 12}, {96, 8, 12}, {24, 2, 12}, {64, 4, 16}};
  static const int pow2[] = {32, 64, 128, 32, 64};
  static const ns_collective colls[] = {NS_COLL_RING, NS_COLL_HALVING_DOUBLING,
                                        NS_COLL_ALL_TO_ALL};
  for (int ci = 0; ci < 3; ci++)
    for (int rule = 0; rule <= 1; rule++)
      for (size_t i = 0; i < sizeof asked / sizeof *asked; i++) {
        ns_cluster *c = ns_cluster_new_leaf_spine(8, 16, 4, 4, 1, 100);
        int stage = -1;
        ns_job *j = place_one(c, asked[i], colls[ci], rule, &stage);
        assert_int_equal(stage, 2);
        ns_placement *p = ns_placement_new();
        assert_int_equal(ns_cluster_job_placement(c, j, p), NS_OK);
        if (rule == 0) {
          assert_int_equal((int)ns_placement_gpu_count(p), paper[i][0]);
          assert_int_equal(ns_placement_virtual_leaves(p), paper[i][1]);
          assert_int_equal(ns_placement_virtual_spines(p), paper[i][2]);
        } else {
          assert_int_equal((int)ns_placement_gpu_count(p), pow2[i]);
        }
        check_lemma_colls(c, j, rule);
        ns_placement_free(p);
        ns_job_free(j);
        ns_cluster_free(c);
      }
}

/* A fabric whose leaf count is not a power of two: 6 leaves x 4 spines x
   1 server x 4 GPUs. N = 24 fits only as 6 x 4 (test_shape_sequence): the
   paper's sizing places it (contention-free for ring and all-to-all), the
   power-of-two rule and a halving-doubling job (whose layout needs
   l = 2^a) cannot: NS_EINVAL, the "never fits" status (core.h). */
static void test_non_pow2_leaf_count(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(6, 4, 1, 4, 1, 100);
  int stage = -1;
  ns_job *j = place_one(c, 24, NS_COLL_ALL_TO_ALL, 0, &stage);
  assert_int_equal(stage, 2);
  check_lemma(c, j);
  assert_int_equal(ns_cluster_free_gpu_count(c), 0);
  assert_int_equal(ns_cluster_release(c, j), NS_OK);
  ns_vclos_opts *o = ns_vclos_opts_new();
  ns_placement *p = ns_placement_new();
  assert_int_equal(ns_job_set_collective(j, NS_COLL_HALVING_DOUBLING), NS_OK);
  assert_fails_with(ns_vclos_place(c, j, o, p), NS_EINVAL, "fits no");
  assert_int_equal(ns_job_set_collective(j, NS_COLL_RING), NS_OK);
  assert_int_equal(ns_vclos_opts_set_power_of_two(o, 1), NS_OK);
  assert_fails_with(ns_vclos_place(c, j, o, p), NS_EINVAL, "fits no");
  assert_int_equal(ns_placement_gpu_count(p), 0);
  ns_placement_free(p);
  ns_vclos_opts_free(o);
  ns_job_free(j);
  ns_cluster_free(c);
}

/* Oracle: on an empty fabric a job is placed iff it fits one server
   (N <= T), one leaf (N <= P T), or some admissible virtual Clos l x s
   (2 <= l <= L, s = T ceil(N / (l T)) <= S and s / T <= P; halving-doubling
   jobs: l a power of two), whatever L, S, P, T: "any job that fits some
   l x s is placed" (issue 17). Placed jobs get l * s GPUs with that s;
   refused ones get NS_EINVAL (never fits), and every Stage-2 placement is
   contention-free (check_lemma: ring plus the job's own collective, with
   l = 3, 5 and s not a power of two among them). Every small fabric up to 5
   leaves x 6 spines x 3 servers x 4 GPUs (T = 1, 2, 4), every N. */
static void test_sizing_oracle_small_fabrics(void **state) {
  (void)state;
  static const int Ts[] = {1, 2, 4};
  ns_vclos_opts *o = ns_vclos_opts_new();
  ns_placement *p = ns_placement_new();
  int checked = 0, stage2 = 0;
  for (int L = 1; L <= 5; L++)
    for (int S = 1; S <= 6; S++)
      for (int P = 1; P <= 3; P++)
        for (size_t ti = 0; ti < sizeof Ts / sizeof *Ts; ti++) {
          int T = Ts[ti];
          ns_cluster *c = ns_cluster_new_leaf_spine(L, S, P, T, 1, 100);
          for (int hd = 0; hd <= 1; hd++)
            for (int N = 1; N <= L * P * T; N++) {
              int fits = N <= P * T;
              for (int l = 2; l <= L && !fits; l++) {
                int sv = T * ((N + l * T - 1) / (l * T));
                fits = sv <= S && sv / T <= P && (!hd || (l & (l - 1)) == 0);
              }
              ns_job *j = ns_job_new("o", N);
              ns_job_set_collective(j, hd ? NS_COLL_HALVING_DOUBLING : NS_COLL_RING);
              int stage = -1, rc = ns_vclos_place_ex(c, j, o, p, &stage);
              if (!fits) {
                if (rc != NS_EINVAL)
                  fail_msg("L%d S%d P%d T%d N%d hd%d: expected NS_EINVAL, got %d", L, S, P, T,
                           N, hd, rc);
              } else {
                if (rc != NS_OK)
                  fail_msg("L%d S%d P%d T%d N%d hd%d: fits but got %d (%s)", L, S, P, T, N, hd,
                           rc, ns_last_error());
                if (stage == 2) {
                  int l = ns_placement_virtual_leaves(p), sv = ns_placement_virtual_spines(p);
                  assert_int_equal(sv, T * ((N + l * T - 1) / (l * T)));
                  assert_int_equal((int)ns_placement_gpu_count(p), l * sv);
                  assert_int_equal(ns_cluster_commit(c, j, p), NS_OK); /* Lemma 5.1 too */
                  check_lemma(c, j);
                  assert_int_equal(ns_cluster_release(c, j), NS_OK);
                  stage2++;
                } else {
                  assert_int_equal((int)ns_placement_gpu_count(p), N);
                }
              }
              checked++;
              ns_job_free(j);
            }
          ns_cluster_free(c);
        }
  assert_true(checked > 3000 && stage2 > 300);
  ns_placement_free(p);
  ns_vclos_opts_free(o);
}

/* ---- OCS-vClos ---------------------------------------------------------------- */

/* 4 leaves x 4 spines x 2 servers x 2 GPUs, 2 OCSes: each leaf has 2 ports on
   each OCS (port p of leaf n on OCS (n + p) mod 2), each spine 2 on each. */
static ns_cluster *ocs_cluster(void) {
  ns_cluster *c = ns_cluster_new_leaf_spine(4, 4, 2, 2, 1, 100);
  assert_int_equal(ns_cluster_enable_ocs(c, 2), NS_OK);
  for (int leaf = 0; leaf < 4; leaf++) /* one idle server per leaf: no Stage 1 */
    occupy_range(c, leaf * 4, 1);
  return c;
}

static void test_ocs_stage2_single_spine(void **state) {
  (void)state;
  ns_cluster *c = ocs_cluster();
  ns_vclos_opts *o = ns_vclos_opts_new();
  ns_placement *p = ns_placement_new();
  ns_job *j = ns_job_new("j4", 4);
  int stage = -1;
  assert_int_equal(ns_vclos_place_ex(c, j, o, p, &stage), NS_OK);
  /* Every spine has 4 free ports >= N = 4: the lowest (spine 0) takes all
     four circuits; leaves 0 and 1 (equal idle counts, lowest ids) give one
     server each. Leaf 0's circuits go through OCS 0 (ports 0, 2), which
     then has no spine-0 port left, so leaf 1 uses OCS 1 (its ports 0, 2). */
  assert_int_equal(stage, 2);
  assert_int_equal(ns_placement_virtual_spines(p), 1);
  assert_int_equal(ns_placement_virtual_leaves(p), 4);
  int expect_gpu[] = {2, 3, 6, 7};
  for (int i = 0; i < 4; i++)
    assert_int_equal(ns_placement_gpu(p, (size_t)i), expect_gpu[i]);
  int expect_leaf[] = {0, 0, 1, 1}, expect_port[] = {0, 2, 0, 2};
  for (int i = 0; i < 4; i++) {
    int l, s;
    assert_int_equal(ns_placement_link(p, (size_t)i, &l, &s), NS_OK);
    assert_int_equal(l, expect_leaf[i]);
    assert_int_equal(s, 0);
    assert_int_equal(p->links[i].k, expect_port[i]);
  }
  assert_int_equal(ns_cluster_commit(c, j, p), NS_OK);
  assert_int_equal(ns_cluster_ocs_free_spine_ports(c, 0, 0), 0);
  assert_int_equal(ns_cluster_ocs_free_spine_ports(c, 0, 1), 0);
  assert_int_equal(ns_cluster_ocs_free_leaf_ports(c, 0, 0), 0);
  assert_int_equal(ns_cluster_ocs_free_leaf_ports(c, 0, 1), 2);
  assert_int_equal(ns_cluster_ocs_free_leaf_ports(c, 1, 1), 0);
  check_lemma(c, j);
  assert_int_equal(ns_cluster_release(c, j), NS_OK); /* release frees every port */
  for (int o2 = 0; o2 < 2; o2++)
    assert_int_equal(ns_cluster_ocs_free_spine_ports(c, 0, o2), 2);
  ns_placement_free(p);
  ns_vclos_opts_free(o);
  ns_job_free(j);
  ns_cluster_free(c);
}

static void test_ocs_stage3_ilp(void **state) {
  (void)state;
  ns_cluster *c = ocs_cluster();
  /* Leaf 3 wires one port to every spine: each spine is left with 3 < 4
     free ports, so no single spine fits a 4-GPU job (Stage 2 fails). */
  ns_job *blocker = ns_job_new("blocker", 1);
  ns_placement *b = ns_placement_new();
  assert_int_equal(ns_placement_add_gpu(b, 14), NS_OK);
  for (int m = 0; m < 4; m++)
    assert_int_equal(nsi_placement_add_link(b, 3, m, m), NS_OK);
  assert_int_equal(ns_cluster_commit(c, blocker, b), NS_OK);
  ns_vclos_opts *o = ns_vclos_opts_new();
  ns_placement *p = ns_placement_new();
  ns_job *j = ns_job_new("j4", 4);
  int stage = -1;
  assert_int_equal(ns_vclos_place_ex(c, j, o, p, &stage), NS_OK);
  /* l = 2 x s = 2 over leaves 0-2 (leaf 3 has no port left); objective
     (12) = 2 spines x RPN 3 + 2 leaves x RSN 1 x T 2 = 10 for any choice. */
  assert_int_equal(stage, 3);
  assert_int_equal(ns_placement_virtual_leaves(p), 2);
  assert_int_equal(ns_placement_virtual_spines(p), 2);
  assert_int_equal(ns_placement_gpu_count(p), 4);
  assert_int_equal(ns_placement_link_count(p), 4);
  int leaves[4], spines[4];
  for (int i = 0; i < 4; i++)
    ns_placement_link(p, (size_t)i, &leaves[i], &spines[i]);
  assert_true(leaves[0] == leaves[1] && leaves[2] == leaves[3] && leaves[0] != leaves[2]);
  assert_true(leaves[0] < 3 && leaves[2] < 3);
  assert_true(spines[0] == spines[2] && spines[1] == spines[3] && spines[0] != spines[1]);
  assert_int_equal(ns_cluster_commit(c, j, p), NS_OK);
  check_lemma(c, j);
  ns_placement_free(p);
  ns_placement_free(b);
  ns_vclos_opts_free(o);
  ns_job_free(j);
  ns_job_free(blocker);
  ns_cluster_free(c);
}

/* Several virtual leaves on one leaf (Stage 3's v_n = 2): 4 leaves x 2
   spines, 4 one-GPU servers per leaf, 2 links per pair, one OCS. Leaf 3 is
   busy and wires one circuit to each spine, leaving each spine 7 < 8 free
   ports. N = 8: no leaf has 8 servers and no spine 8 ports, so Stage 3 with
   l0 = 8 / 2 = 4 and s = 2. Leaves 1 and 2 keep 2 idle servers (room for one
   virtual leaf each, cost RSN*T = 2), leaf 0 has 4 (two virtual leaves, cost
   4 each): the optimum is v = (2, 1, 1, 0), objective 2*4 + 2 + 2 + 7 + 7. */
static void test_ocs_stage3_two_virtual_leaves(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(4, 2, 4, 1, 2, 100);
  assert_int_equal(ns_cluster_enable_ocs(c, 1), NS_OK);
  occupy_range(c, 4, 2);  /* leaf 1 servers 4, 5 */
  occupy_range(c, 8, 2);  /* leaf 2 servers 8, 9 */
  occupy_range(c, 13, 3); /* leaf 3: the blocker holds server 12 */
  ns_job *blocker = ns_job_new("blocker", 1);
  ns_placement *b = ns_placement_new();
  assert_int_equal(ns_placement_add_gpu(b, 12), NS_OK);
  assert_int_equal(nsi_placement_add_link(b, 3, 0, 0), NS_OK);
  assert_int_equal(nsi_placement_add_link(b, 3, 1, 1), NS_OK);
  assert_int_equal(ns_cluster_commit(c, blocker, b), NS_OK);
  ns_vclos_opts *o = ns_vclos_opts_new();
  ns_placement *p = ns_placement_new();
  ns_job *j = ns_job_new("j8", 8);
  int stage = -1;
  assert_int_equal(ns_vclos_place_ex(c, j, o, p, &stage), NS_OK);
  assert_int_equal(stage, 3);
  assert_int_equal(ns_placement_virtual_leaves(p), 4);
  assert_int_equal(ns_placement_virtual_spines(p), 2);
  int expect_gpu[] = {0, 1, 2, 3, 6, 7, 10, 11};
  for (int i = 0; i < 8; i++)
    assert_int_equal(ns_placement_gpu(p, (size_t)i), expect_gpu[i]);
  int per_leaf[3] = {0}, per_spine[2] = {0};
  for (int i = 0; i < 8; i++) {
    int l, sp;
    ns_placement_link(p, (size_t)i, &l, &sp);
    per_leaf[l]++, per_spine[sp]++;
  }
  assert_int_equal(per_leaf[0], 4); /* two virtual leaves x two spines */
  assert_int_equal(per_leaf[1], 2);
  assert_int_equal(per_spine[0], 4);
  assert_int_equal(ns_cluster_commit(c, j, p), NS_OK);
  assert_int_equal(ns_cluster_ocs_free_spine_ports(c, 0, 0), 3); /* 8 - 1 - 4 */
  assert_int_equal(ns_cluster_ocs_free_leaf_ports(c, 0, 0), 0);
  check_lemma(c, j);
  ns_placement_free(p);
  ns_placement_free(b);
  ns_vclos_opts_free(o);
  ns_job_free(j);
  ns_job_free(blocker);
  ns_cluster_free(c);
}

/* Stage 3 tries shapes in vc_shapes order and a shape whose leaves cannot
   host l virtual leaves (sum_n min(idle_n * T / s, l) < l) is passed over
   for the next one. 4 leaves x 4 spines x 4 one-GPU servers, 1 link per
   pair, one OCS: every spine has 4 ports, so no single spine holds N = 6
   (Stage 2), and no leaf has 6 servers (Stage 1). N = 6 shapes, in order:
   l0 = 2^floor(log2 6) / 4 = 1 (skipped), so (l, s) = (2, 3), (4, 2), then
   (3, 2).
   a) 2 idle servers per leaf: (2, 3) needs 3 idle servers on 2 leaves -
      none; (4, 2) puts one virtual leaf of 2 servers on every leaf: 8 GPUs
      (N_new = 4 x 2), the two lowest of each leaf.
   b) leaf 3 down to 1 idle server: 1 + 1 + 1 + 0 < 4 virtual leaves for
      (4, 2); (3, 2) fits exactly (3 = 3) on leaves 0-2: 6 GPUs.
   c) leaf 2 down to 1 as well: 2 < 3 for (3, 2); nothing fits: wait. */
static void test_ocs_stage3_shape_order(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(4, 4, 4, 1, 1, 100);
  assert_int_equal(ns_cluster_enable_ocs(c, 1), NS_OK);
  for (int n = 0; n < 4; n++)
    occupy_range(c, 4 * n + 2, 2);
  ns_vclos_opts *o = ns_vclos_opts_new();
  ns_placement *p = ns_placement_new();
  ns_job *j = ns_job_new("j6", 6);
  int stage = -1;
  assert_int_equal(ns_vclos_place_ex(c, j, o, p, &stage), NS_OK); /* a */
  assert_int_equal(stage, 3);
  assert_int_equal(ns_placement_virtual_leaves(p), 4);
  assert_int_equal(ns_placement_virtual_spines(p), 2);
  int expect_a[] = {0, 1, 4, 5, 8, 9, 12, 13};
  assert_int_equal(ns_placement_gpu_count(p), 8);
  for (int i = 0; i < 8; i++)
    assert_int_equal(ns_placement_gpu(p, (size_t)i), expect_a[i]);
  occupy_range(c, 13, 1); /* b */
  assert_int_equal(ns_vclos_place_ex(c, j, o, p, &stage), NS_OK);
  assert_int_equal(stage, 3);
  assert_int_equal(ns_placement_virtual_leaves(p), 3);
  assert_int_equal(ns_placement_virtual_spines(p), 2);
  int expect_b[] = {0, 1, 4, 5, 8, 9};
  assert_int_equal(ns_placement_gpu_count(p), 6);
  for (int i = 0; i < 6; i++)
    assert_int_equal(ns_placement_gpu(p, (size_t)i), expect_b[i]);
  assert_int_equal(ns_cluster_commit(c, j, p), NS_OK);
  check_lemma(c, j);
  assert_int_equal(ns_cluster_release(c, j), NS_OK);
  occupy_range(c, 9, 1); /* c */
  assert_fails_with(ns_vclos_place(c, j, o, p), NS_ENOSPACE, "no leaf, single spine");
  ns_placement_free(p);
  ns_vclos_opts_free(o);
  ns_job_free(j);
  ns_cluster_free(c);
}

/* Random OCS sequences: no leaf port is used twice, no (spine, OCS) exceeds
   its ports, the cluster's free-port counts agree, Lemma 5.1 holds. */
static void check_ocs_ports(const ns_cluster *c, ns_job **jobs, const int *live, int nj) {
  int L = ns_cluster_leaf_count(c), S = ns_cluster_spine_count(c), O = ns_cluster_ocs_count(c);
  int U = S * ns_cluster_links_per_pair(c);
  unsigned char *port = calloc((size_t)L * (size_t)U, 1);
  int *spine_use = calloc((size_t)S * (size_t)O, sizeof *spine_use);
  int *leaf_use = calloc((size_t)L * (size_t)O, sizeof *leaf_use);
  ns_placement *p = ns_placement_new();
  for (int j = 0; j < nj; j++) {
    if (!live[j])
      continue;
    assert_int_equal(ns_cluster_job_placement(c, jobs[j], p), NS_OK);
    for (size_t i = 0; i < p->nlinks; i++) {
      const nsi_uplink *u = &p->links[i];
      assert_false(port[u->leaf * U + u->k]);
      port[u->leaf * U + u->k] = 1;
      int ocs = (u->leaf * ns_cluster_links_per_pair(c) + u->k) % O; /* core/ocs.c wiring */
      spine_use[u->spine * O + ocs]++;
      leaf_use[u->leaf * O + ocs]++;
    }
  }
  for (int m = 0; m < S; m++)
    for (int o = 0; o < O; o++) {
      assert_true(spine_use[m * O + o] <= L * ns_cluster_links_per_pair(c) / O);
      assert_int_equal(ns_cluster_ocs_free_spine_ports(c, m, o),
                       L * ns_cluster_links_per_pair(c) / O - spine_use[m * O + o]);
    }
  for (int n = 0; n < L; n++)
    for (int o = 0; o < O; o++)
      assert_int_equal(ns_cluster_ocs_free_leaf_ports(c, n, o), U / O - leaf_use[n * O + o]);
  free(port);
  free(spine_use);
  free(leaf_use);
  ns_placement_free(p);
}

static void test_ocs_random_commits(void **state) {
  (void)state;
  int stages[4] = {0};
  for (uint64_t seed = 11; seed <= 13; seed++) {
    ns_cluster *c = ns_cluster_new_leaf_spine(8, 4, 2, 4, 1, 100); /* 64 GPUs */
    assert_int_equal(ns_cluster_enable_ocs(c, 2), NS_OK);
    random_sequence(c, seed, 24, 60, 20, 0, check_ocs_ports, stages);
    ns_cluster_free(c);
  }
  assert_true(stages[2] + stages[3] > 5);
}

/* ---- bad input: clear status, cluster untouched ----------------------------- */

static void test_bad_input(void **state) {
  (void)state;
  ns_vclos_opts *o = ns_vclos_opts_new();
  ns_placement *p = ns_placement_new();
  /* a cluster without spines asked for Stage 2 */
  ns_cluster *flat = ns_cluster_new_leaf_spine(4, 0, 2, 4, 0, 100);
  ns_job *j16 = ns_job_new("j16", 16), *j8 = ns_job_new("j8", 8);
  assert_fails_with(ns_vclos_place(flat, j16, o, p), NS_EUNSUPPORTED, "no spines");
  for (int leaf = 0; leaf < 4; leaf++)
    occupy_range(flat, leaf * 8, 1);
  assert_fails_with(ns_vclos_place(flat, j8, o, p), NS_ENOSPACE, "idle servers");
  assert_int_equal(ns_cluster_free_gpu_count(flat), 28);
  int spine;
  assert_fails_with(ns_vclos_route(flat, 0, 31, &spine), NS_EUNSUPPORTED, "no spines");
  assert_int_equal(ns_vclos_route(flat, 0, 7, &spine), NS_OK);
  assert_int_equal(spine, -1);
  /* a job larger than the fabric */
  ns_job *huge = ns_job_new("huge", 33);
  assert_fails_with(ns_vclos_place(flat, huge, o, p), NS_EINVAL, "needs 33 GPUs");
  /* a job that no l x s shape of the fabric can hold, even empty:
     2 leaves x 2 spines x 4 servers x 2 GPUs, 16 GPUs: l0 = 8 / 2 = 4 > L */
  ns_cluster *small = ns_cluster_new_leaf_spine(2, 2, 4, 2, 1, 100);
  ns_job *all = ns_job_new("all", 16);
  assert_fails_with(ns_vclos_place(small, all, o, p), NS_EINVAL, "fits no");
  /* OCS counts that don't divide the ports */
  ns_cluster *four = ns_cluster_new_leaf_spine(2, 4, 1, 4, 1, 100); /* 4 uplinks per leaf */
  assert_fails_with(ns_cluster_enable_ocs(four, 3), NS_EINVAL, "must divide");
  assert_int_equal(ns_cluster_ocs_count(four), 0);
  ns_cluster_free(four);
  assert_fails_with(ns_cluster_ocs_free_leaf_ports(small, 0, 0), NS_ESTATE, "OCS");
  /* NULL handles and out-of-range arguments */
  assert_fails_with(ns_vclos_place(NULL, j8, o, p), NS_EINVAL, "c");
  assert_fails_with(ns_vclos_place(small, NULL, o, p), NS_EINVAL, "job");
  assert_fails_with(ns_vclos_place(small, j8, NULL, p), NS_EINVAL, "o");
  assert_fails_with(ns_vclos_place(small, j8, o, NULL), NS_EINVAL, "out");
  assert_fails_with(ns_vclos_opts_set_solver(o, 2), NS_EINVAL, "use_milp");
  assert_fails_with(ns_vclos_opts_set_power_of_two(o, 2), NS_EINVAL, "enabled");
  assert_fails_with(ns_vclos_opts_set_power_of_two(NULL, 1), NS_EINVAL, "o");
  assert_fails_with(ns_vclos_opts_set_time_limit_ms(o, NAN), NS_EINVAL, "ms");
  assert_fails_with(ns_vclos_opts_set_time_limit_ms(o, -1), NS_EINVAL, "ms");
  assert_fails_with(ns_vclos_route(small, -1, 0, &spine), NS_EINVAL, "src_gpu");
  assert_fails_with(ns_vclos_route(small, 0, 16, &spine), NS_EINVAL, "dst_gpu");
  assert_fails_with(ns_vclos_route(small, 0, 1, NULL), NS_EINVAL, "spine");
  assert_int_equal(ns_placement_gpu_count(p), 0);
  ns_job_free(j16);
  ns_job_free(j8);
  ns_job_free(huge);
  ns_job_free(all);
  ns_cluster_free(flat);
  ns_cluster_free(small);
  ns_placement_free(p);
  ns_vclos_opts_free(o);
}

/* A CBC time-out is NS_ESOLVER with CBC's status in the message; the
   cluster and `out` are untouched. */
static void test_cbc_timeout(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(64, 32, 4, 8, 1, 100);
  uint64_t rng = 5;
  for (int leaf = 0; leaf < 64; leaf++) { /* one busy GPU per leaf, random links gone */
    occupy_range(c, leaf * 32, 1);
  }
  ns_job *blk = ns_job_new("blk", 1);
  ns_placement *b = ns_placement_new();
  ns_placement_add_gpu(b, 1);
  for (int leaf = 0; leaf < 64; leaf++)
    for (int m = 0; m < 32; m++)
      if (rng_int(&rng, 0, 99) < 35)
        nsi_placement_add_link(b, leaf, m, 0);
  assert_int_equal(ns_cluster_commit(c, blk, b), NS_OK);
  ns_vclos_opts *o = ns_vclos_opts_new();
  ns_vclos_opts_set_solver(o, 1);
  assert_int_equal(ns_vclos_opts_set_time_limit_ms(o, 1e-3), NS_OK);
  ns_placement *p = ns_placement_new();
  ns_job *j = ns_job_new("big", 256);
  int before = ns_cluster_free_gpu_count(c), links = ns_cluster_free_links_between(c, 5, 5);
  assert_fails_with(ns_vclos_place(c, j, o, p), NS_ESOLVER, "time limit");
  assert_non_null(strstr(ns_last_error(), "status"));
  assert_int_equal(ns_cluster_free_gpu_count(c), before);
  assert_int_equal(ns_cluster_free_links_between(c, 5, 5), links);
  assert_int_equal(ns_placement_gpu_count(p), 0);
  ns_job_free(j);
  ns_job_free(blk);
  ns_placement_free(p);
  ns_placement_free(b);
  ns_vclos_opts_free(o);
  ns_cluster_free(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_shape_rule),
      cmocka_unit_test(test_shape_sequence),
      cmocka_unit_test(test_paper_sizes),
      cmocka_unit_test(test_non_pow2_leaf_count),
      cmocka_unit_test(test_sizing_oracle_small_fabrics),
      cmocka_unit_test(test_rounding_through_place),
      cmocka_unit_test(test_stage0_best_fit),
      cmocka_unit_test(test_stage1_fewest_idle_leaf),
      cmocka_unit_test(test_stage2_exact),
      cmocka_unit_test(test_stage2_ilp),
      cmocka_unit_test(test_stage2_waits),
      cmocka_unit_test(test_few_spines_wait_not_never),
      cmocka_unit_test(test_search_vs_ilp_small),
      cmocka_unit_test(test_search_vs_ilp_medium),
      cmocka_unit_test(test_random_commits_exact),
      cmocka_unit_test(test_random_commits_ilp),
      cmocka_unit_test(test_lemma_sizes),
      cmocka_unit_test(test_ocs_stage2_single_spine),
      cmocka_unit_test(test_ocs_stage3_ilp),
      cmocka_unit_test(test_ocs_stage3_two_virtual_leaves),
      cmocka_unit_test(test_ocs_stage3_shape_order),
      cmocka_unit_test(test_ocs_random_commits),
      cmocka_unit_test(test_bad_input),
      cmocka_unit_test(test_cbc_timeout),
  };
  return cmocka_run_group_tests_name("vclos", tests, NULL, NULL);
}
