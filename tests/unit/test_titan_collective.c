/*
 * tests/unit/test_titan_collective.c - collective traffic C^t_{n,n'}
 * (src/core/collective.c): the paper's halving-doubling phases for N = 4
 * (Fig. 1(a)), ALGORITHMS.md's definitions, and byte totals against the
 * textbook volumes.
 */
#include "helpers/ns_test.h"

static uint64_t traffic(ns_collective c, int n, uint64_t k, int t, int from, int to) {
  uint64_t b = 12345;
  assert_int_equal(ns_collective_traffic(c, n, k, t, from, to, &b), NS_OK);
  return b;
}

/* Fig. 1(a): 4 stages; pairs exchange K/2, K/4, K/4, K/2. Stage 1 pairs
   W1-W3 and W2-W4 (n XOR 2), stage 2 W1-W2 and W3-W4 (n XOR 1). */
static void test_hd_n4_matches_fig1(void **state) {
  (void)state;
  const uint64_t K = 1000;
  assert_int_equal(ns_collective_phase_count(NS_COLL_HALVING_DOUBLING, 4), 4);
  const int xor_of[4] = {2, 1, 1, 2};
  const uint64_t bytes_of[4] = {K / 2, K / 4, K / 4, K / 2};
  for (int t = 0; t < 4; t++)
    for (int n = 0; n < 4; n++)
      for (int m = 0; m < 4; m++)
        assert_int_equal(traffic(NS_COLL_HALVING_DOUBLING, 4, K, t, n, m),
                         m == (n ^ xor_of[t]) ? bytes_of[t] : 0);
}

/* ALGORITHMS.md: phase t < k partner n XOR (N >> (t+1)) with K/2^(t+1);
   phase k+j mirrors phase k-1-j. */
static void test_hd_power_of_two_definition(void **state) {
  (void)state;
  const uint64_t K = 1 << 20;
  for (int k = 1; k <= 5; k++) {
    int n = 1 << k;
    assert_int_equal(ns_collective_phase_count(NS_COLL_HALVING_DOUBLING, n), 2 * k);
    for (int t = 0; t < 2 * k; t++) {
      int tt = t < k ? t : 2 * k - 1 - t;
      for (int w = 0; w < n; w++) {
        int partner = w ^ (n >> (tt + 1));
        for (int m = 0; m < n; m++)
          assert_int_equal(traffic(NS_COLL_HALVING_DOUBLING, n, K, t, w, m),
                           m == partner ? K >> (tt + 1) : 0);
      }
    }
  }
}

static void test_ring_definition(void **state) {
  (void)state;
  const int n = 5;
  const uint64_t K = 500;
  assert_int_equal(ns_collective_phase_count(NS_COLL_RING, n), 2 * (n - 1));
  for (int t = 0; t < 2 * (n - 1); t++)
    for (int a = 0; a < n; a++)
      for (int b = 0; b < n; b++)
        assert_int_equal(traffic(NS_COLL_RING, n, K, t, a, b), b == (a + 1) % n ? K / n : 0);
}

static void test_all_to_all_definition(void **state) {
  (void)state;
  const int n = 6;
  const uint64_t K = 600;
  assert_int_equal(ns_collective_phase_count(NS_COLL_ALL_TO_ALL, n), n - 1);
  for (int t = 0; t < n - 1; t++)
    for (int a = 0; a < n; a++)
      for (int b = 0; b < n; b++)
        assert_int_equal(traffic(NS_COLL_ALL_TO_ALL, n, K, t, a, b),
                         b == (a + t + 1) % n ? K / n : 0);
}

/* Binary tree of 7 (heap-numbered): reduce 3,4,5,6 -> parents, then
   1,2 -> 0; broadcast back down. */
static void test_tree_definition(void **state) {
  (void)state;
  const uint64_t K = 70;
  assert_int_equal(ns_collective_phase_count(NS_COLL_TREE, 7), 4);
  assert_int_equal(ns_collective_phase_count(NS_COLL_TREE, 8), 6);
  assert_int_equal(traffic(NS_COLL_TREE, 7, K, 0, 5, 2), K);
  assert_int_equal(traffic(NS_COLL_TREE, 7, K, 0, 1, 0), 0);
  assert_int_equal(traffic(NS_COLL_TREE, 7, K, 1, 1, 0), K);
  assert_int_equal(traffic(NS_COLL_TREE, 7, K, 1, 2, 0), K);
  assert_int_equal(traffic(NS_COLL_TREE, 7, K, 2, 0, 1), K);
  assert_int_equal(traffic(NS_COLL_TREE, 7, K, 2, 0, 2), K);
  assert_int_equal(traffic(NS_COLL_TREE, 7, K, 3, 2, 6), K);
  assert_int_equal(traffic(NS_COLL_TREE, 7, K, 3, 6, 2), 0);
}

/* Non-power-of-two HD (documented fallback): N = 6, P = 4, r = 2. Phase 0
   folds 0 -> 1 and 2 -> 3 with all of K; the last phase hands it back. */
static void test_hd_non_power_of_two_fallback(void **state) {
  (void)state;
  const uint64_t K = 800;
  assert_int_equal(ns_collective_phase_count(NS_COLL_HALVING_DOUBLING, 6), 2 * 2 + 2);
  assert_int_equal(traffic(NS_COLL_HALVING_DOUBLING, 6, K, 0, 0, 1), K);
  assert_int_equal(traffic(NS_COLL_HALVING_DOUBLING, 6, K, 0, 2, 3), K);
  assert_int_equal(traffic(NS_COLL_HALVING_DOUBLING, 6, K, 0, 4, 5), 0);
  assert_int_equal(traffic(NS_COLL_HALVING_DOUBLING, 6, K, 5, 1, 0), K);
  assert_int_equal(traffic(NS_COLL_HALVING_DOUBLING, 6, K, 5, 3, 2), K);
  /* core phase 0 on virtual ranks {1, 3, 4, 5}: v0=1 <-> v2=4 with K/2 */
  assert_int_equal(traffic(NS_COLL_HALVING_DOUBLING, 6, K, 1, 1, 4), K / 2);
  assert_int_equal(traffic(NS_COLL_HALVING_DOUBLING, 6, K, 1, 3, 5), K / 2);
  for (int t = 1; t < 5; t++) /* folded workers sit out the core */
    for (int m = 0; m < 6; m++)
      assert_int_equal(traffic(NS_COLL_HALVING_DOUBLING, 6, K, t, 0, m), 0);
}

/* Totals over every phase and pair, and per worker. */
static uint64_t total_bytes(ns_collective c, int n, uint64_t k, uint64_t *per_worker) {
  uint64_t sum = 0;
  int T = ns_collective_phase_count(c, n);
  for (int a = 0; a < n; a++) {
    per_worker[a] = 0;
    for (int t = 0; t < T; t++)
      for (int b = 0; b < n; b++)
        per_worker[a] += traffic(c, n, k, t, a, b);
    sum += per_worker[a];
  }
  return sum;
}

/* Textbook volumes: ring and HD all-reduce move 2(N-1)K/N per worker, the
   binary tree 2(N-1)K in all, pair-wise all-to-all (N-1)/N of each buffer;
   exact even when K is not divisible by N. */
static void test_totals_match_textbook(void **state) {
  (void)state;
  uint64_t per[40];
  const uint64_t ks[] = {0, 1, 97, 1 << 12, 1000003};
  for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
    uint64_t K = ks[ki];
    for (int n = 1; n <= 17; n++) {
      int p = 1;
      while (p * 2 <= n)
        p *= 2;
      uint64_t r = (uint64_t)(n - p);
      assert_int_equal(total_bytes(NS_COLL_RING, n, K, per), 2 * (uint64_t)(n - 1) * K);
      assert_int_equal(total_bytes(NS_COLL_HALVING_DOUBLING, n, K, per),
                       2 * (uint64_t)(p - 1) * K + 2 * r * K);
      assert_int_equal(total_bytes(NS_COLL_TREE, n, K, per), 2 * (uint64_t)(n - 1) * K);
      assert_int_equal(total_bytes(NS_COLL_ALL_TO_ALL, n, K, per), (uint64_t)(n - 1) * K);
      if (K % (uint64_t)n == 0) {
        total_bytes(NS_COLL_RING, n, K, per);
        for (int w = 0; w < n; w++)
          assert_int_equal(per[w], 2 * (uint64_t)(n - 1) * K / (uint64_t)n);
        total_bytes(NS_COLL_ALL_TO_ALL, n, K, per);
        for (int w = 0; w < n; w++)
          assert_int_equal(per[w], (uint64_t)(n - 1) * K / (uint64_t)n);
      }
      if (p == n) {
        total_bytes(NS_COLL_HALVING_DOUBLING, n, K, per);
        for (int w = 0; w < n && K % (uint64_t)n == 0; w++)
          assert_int_equal(per[w], 2 * (uint64_t)(n - 1) * K / (uint64_t)n);
      }
    }
  }
}

/* Every worker of a non-power-of-two HD receives exactly the bytes it lacks:
   a reduction simulation on block ownership for N = 2^k (each worker ends
   holding a contribution count of N for every block). */
static void test_hd_simulated_reduction(void **state) {
  (void)state;
  enum { N = 8 };
  /* have[w][b] = number of workers' contributions worker w holds for block b */
  int have[N][N];
  for (int w = 0; w < N; w++)
    for (int b = 0; b < N; b++)
      have[w][b] = 1;
  const uint64_t K = N * 10; /* 10 bytes per block */
  int T = ns_collective_phase_count(NS_COLL_HALVING_DOUBLING, N);
  for (int t = 0; t < T; t++) {
    int next[N][N];
    memcpy(next, have, sizeof next);
    for (int a = 0; a < N; a++)
      for (int b = 0; b < N; b++) {
        uint64_t bytes = traffic(NS_COLL_HALVING_DOUBLING, N, K, t, a, b);
        if (bytes == 0)
          continue;
        /* a sends the blocks it is responsible for that b keeps (reduce),
           or its fully reduced blocks (gather); model: b gains a's
           counts on bytes/10 blocks it does not own fully */
        int moved = 0;
        for (int blk = 0; blk < N && moved < (int)(bytes / 10); blk++) {
          int keep = t < T / 2 ? ((blk >> (2 - t)) == (b >> (2 - t))) : have[a][blk] == N;
          if (keep && (t < T / 2 || have[b][blk] < N)) {
            next[b][blk] = t < T / 2 ? have[b][blk] + have[a][blk] : N;
            moved++;
          }
        }
        assert_int_equal(moved, (int)(bytes / 10));
      }
    memcpy(have, next, sizeof have);
  }
  for (int w = 0; w < N; w++)
    for (int b = 0; b < N; b++)
      assert_int_equal(have[w][b], N);
}

static void test_collective_bad_input(void **state) {
  (void)state;
  uint64_t b;
  assert_fails_with(ns_collective_traffic((ns_collective)9, 4, 1, 0, 0, 1, &b), NS_EINVAL, "c ");
  assert_fails_with(ns_collective_traffic(NS_COLL_RING, 0, 1, 0, 0, 1, &b), NS_EINVAL, "workers");
  assert_fails_with(ns_collective_traffic(NS_COLL_RING, 4, 1, 6, 0, 1, &b), NS_EINVAL, "phase");
  assert_fails_with(ns_collective_traffic(NS_COLL_RING, 4, 1, -1, 0, 1, &b), NS_EINVAL, "phase");
  assert_fails_with(ns_collective_traffic(NS_COLL_RING, 1, 1, 0, 0, 0, &b), NS_EINVAL, "phase");
  assert_fails_with(ns_collective_traffic(NS_COLL_RING, 4, 1, 0, 4, 1, &b), NS_EINVAL, "from");
  assert_fails_with(ns_collective_traffic(NS_COLL_RING, 4, 1, 0, 0, -1, &b), NS_EINVAL, "to");
  assert_fails_with(ns_collective_traffic(NS_COLL_RING, 4, 1, 0, 0, 1, NULL), NS_EINVAL,
                    "out_bytes");
  assert_fails_with(ns_collective_phase_count(NS_COLL_TREE, 0), NS_EINVAL, "workers");
  assert_fails_with(ns_collective_phase_count((ns_collective)-1, 3), NS_EINVAL, "c ");
  for (int c = 0; c < 4; c++)
    assert_int_equal(ns_collective_phase_count((ns_collective)c, 1), 0);
}

/* Fig. 1: cross-machine traffic of the three placements (each exchange
   counted once = half the directed bytes). */
static void test_cross_machine_bytes_fig1(void **state) {
  (void)state;
  const uint64_t K = 4000;
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 4, 4, 0, 100);
  ns_job *j = ns_job_new("hd4", 4);
  ns_job_set_collective(j, NS_COLL_HALVING_DOUBLING);
  ns_job_set_model_bytes(j, K);
  const int elastic[4] = {0, 1, 2, 3};   /* machine 1 */
  const int hived[4] = {5, 6, 7, 15};    /* W1-W3 machine 2, W4 machine 4 */
  const int titan[4] = {6, 10, 7, 11};   /* {W1,W3} machine 2, {W2,W4} machine 3 */
  const int *pl[3] = {elastic, hived, titan};
  const uint64_t expect[3] = {0, 3 * K / 2, K};
  ns_placement *p = ns_placement_new();
  uint64_t b;
  assert_fails_with(ns_collective_cross_machine_bytes(j, p, &b), NS_ESTATE, "bound");
  ns_placement_bind(p, c);
  assert_fails_with(ns_collective_cross_machine_bytes(j, p, &b), NS_EINVAL, "workers");
  for (int i = 0; i < 3; i++) {
    ns_placement_clear(p);
    for (int w = 0; w < 4; w++)
      ns_placement_add_gpu(p, pl[i][w]);
    assert_int_equal(ns_collective_cross_machine_bytes(j, p, &b), NS_OK);
    assert_int_equal(b / 2, expect[i]);
  }
  assert_fails_with(ns_collective_cross_machine_bytes(NULL, p, &b), NS_EINVAL, "job");
  assert_fails_with(ns_collective_cross_machine_bytes(j, p, NULL), NS_EINVAL, "out_bytes");
  ns_placement_free(p);
  ns_job_free(j);
  ns_cluster_free(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hd_n4_matches_fig1),
      cmocka_unit_test(test_hd_power_of_two_definition),
      cmocka_unit_test(test_ring_definition),
      cmocka_unit_test(test_all_to_all_definition),
      cmocka_unit_test(test_tree_definition),
      cmocka_unit_test(test_hd_non_power_of_two_fallback),
      cmocka_unit_test(test_totals_match_textbook),
      cmocka_unit_test(test_hd_simulated_reduction),
      cmocka_unit_test(test_collective_bad_input),
      cmocka_unit_test(test_cross_machine_bytes_fig1),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
