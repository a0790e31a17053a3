/*
 * tests/unit/test_lwf.c - LWF-kappa (Algorithm 1) on hand-worked clusters for
 * kappa = 1, 2, 4 and both branches, a brute-force oracle on random states,
 * the workload bookkeeping of commit/release, and the FF / LS / RAND
 * baselines (seed adadual-lwf-kappa.md Sec. IV-A).
 */
#include "helpers/ns_test.h"

#include <stdlib.h>

/* Hand-worked cluster: one switch, 4 servers x 4 GPUs (the paper's 4-GPU
   servers). Remaining workloads L_g (ms) and server totals L_S:
     server 0: GPUs 0-3   = 5 1 7 3   L_S = 16
     server 1: GPUs 4-7   = 2 2 9 0   L_S = 13
     server 2: GPUs 8-11  = 4 4 4 4   L_S = 16  (ties server 0: id breaks it)
     server 3: GPUs 12-15 = 8 0 6 1   L_S = 15
   Least-workload order of GPUs (ties by id): 7 13 | 1 15 | 4 5 | 3 | 8 9 10 11 | ...
   Server order: 1 (13), 3 (15), 0 (16), 2 (16). */
static const double HAND_LOAD[16] = {5, 1, 7, 3, 2, 2, 9, 0, 4, 4, 4, 4, 8, 0, 6, 1};

typedef struct fixture {
  ns_cluster *c;
  ns_placement *p;
} fixture;

static int setup_hand(void **state) {
  fixture *f = calloc(1, sizeof *f);
  f->c = ns_cluster_new_leaf_spine(1, 0, 4, 4, 0, 10.0);
  f->p = ns_placement_new();
  for (int g = 0; g < 16; g++)
    ns_cluster_set_gpu_workload_ms(f->c, g, HAND_LOAD[g]);
  *state = f;
  return f->c && f->p ? 0 : -1;
}

static int teardown(void **state) {
  fixture *f = *state;
  ns_cluster_free(f->c);
  ns_placement_free(f->p);
  free(f);
  return 0;
}

/* out holds exactly want[0..n) in this order */
static void assert_gpus(const ns_placement *p, const int *want, size_t n) {
  if (ns_placement_gpu_count(p) != n)
    fail_msg("placement has %zu GPUs, expected %zu", ns_placement_gpu_count(p), n);
  for (size_t i = 0; i < n; i++)
    if (ns_placement_gpu(p, i) != want[i])
      fail_msg("GPU %zu is %d, expected %d", i, ns_placement_gpu(p, i), want[i]);
}

static void place(fixture *f, int gpus, int kappa, double mem_mb) {
  ns_job *j = ns_job_new("j", gpus);
  ns_job_set_gpu_memory_mb(j, mem_mb);
  assert_int_equal(ns_lwf_place(f->c, j, kappa, f->p), NS_OK);
  ns_job_free(j);
}

#define EXPECT(f, gpus, kappa, ...)                                  \
  do {                                                               \
    static const int want_[] = {__VA_ARGS__};                        \
    place((f), (gpus), (kappa), 0);                                  \
    assert_gpus((f)->p, want_, sizeof want_ / sizeof *want_);        \
  } while (0)

/* Alg. 1 lines 2-9 (|G| <= kappa): LS over the whole cluster. */
static void test_hand_least_loaded_branch(void **state) {
  fixture *f = *state;
  EXPECT(f, 1, 1, 7);            /* 7 and 13 both 0: lower id */
  EXPECT(f, 1, 4, 7);
  EXPECT(f, 2, 2, 7, 13);        /* spread over two servers */
  EXPECT(f, 2, 4, 7, 13);
  EXPECT(f, 4, 4, 7, 13, 1, 15); /* four servers */
}

/* Alg. 1 lines 10-21 (|G| > kappa): least-loaded servers first. */
static void test_hand_server_branch(void **state) {
  fixture *f = *state;
  EXPECT(f, 2, 1, 7, 4);                      /* server 1 alone */
  EXPECT(f, 4, 1, 7, 4, 5, 6);                /* all of server 1 */
  EXPECT(f, 4, 2, 7, 4, 5, 6);
  EXPECT(f, 6, 4, 7, 4, 5, 6, 13, 15);        /* then server 3's least loaded */
  EXPECT(f, 9, 1, 7, 4, 5, 6, 13, 15, 14, 12, 1); /* server 0 wins the tie with 2 */
  EXPECT(f, 13, 2, 7, 4, 5, 6, 13, 15, 14, 12, 1, 3, 0, 2, 8);
  ns_placement *p = f->p;
  assert_int_equal(ns_placement_server_count(p), 4);
  place(f, 8, 4, 0);
  assert_int_equal(ns_placement_server_count(p), 2); /* consolidated */
  assert_int_equal(ns_placement_tier(p), NS_TIER_RACK);
}

/* Busy GPUs are skipped (lines 3 and 14); the walk continues past the
   ceil(|G|/N_g) servers of line 11 when those cannot host the job. */
static void test_hand_busy_gpus(void **state) {
  fixture *f = *state;
  int busy[2] = {7, 13};
  assert_int_equal(ns_cluster_occupy(f->c, busy, 2), NS_OK);
  EXPECT(f, 2, 2, 1, 15);
  EXPECT(f, 2, 1, 4, 5);
  EXPECT(f, 4, 1, 4, 5, 6, 15); /* server 1 has 3 free GPUs; then server 3 */
  EXPECT(f, 14, 1, 4, 5, 6, 15, 14, 12, 1, 3, 0, 2, 8, 9, 10, 11);
}

static void test_no_space(void **state) {
  fixture *f = *state;
  ns_job *big = ns_job_new("big", 17), *all = ns_job_new("all", 16);
  ns_placement_add_gpu(f->p, 3); /* stale content must be cleared */
  assert_fails_with(ns_lwf_place(f->c, big, 1, f->p), NS_EINVAL, "needs 17 GPUs");
  assert_int_equal(ns_placement_gpu_count(f->p), 0);
  int busy = 0;
  ns_cluster_occupy(f->c, &busy, 1);
  for (int kappa = 1; kappa <= 16; kappa *= 4) { /* both branches */
    ns_placement_add_gpu(f->p, 3);
    assert_fails_with(ns_lwf_place(f->c, all, kappa, f->p), NS_ENOSPACE, "15 of the cluster's 16");
    assert_int_equal(ns_placement_gpu_count(f->p), 0);
  }
  ns_job *fat = ns_job_new("fat", 1);
  ns_job_set_gpu_memory_mb(fat, 20000);
  assert_fails_with(ns_lwf_place(f->c, fat, 1, f->p), NS_EINVAL, "MB per GPU");
  ns_job_free(big);
  ns_job_free(all);
  ns_job_free(fat);
}

static void test_bad_input(void **state) {
  fixture *f = *state;
  ns_job *j = ns_job_new("j", 2);
  ns_placement_add_gpu(f->p, 5);
  assert_fails_with(ns_lwf_place(NULL, j, 1, f->p), NS_EINVAL, "c is NULL");
  assert_fails_with(ns_lwf_place(f->c, NULL, 1, f->p), NS_EINVAL, "job is NULL");
  assert_fails_with(ns_lwf_place(f->c, j, 1, NULL), NS_EINVAL, "out is NULL");
  assert_fails_with(ns_lwf_place(f->c, j, 0, f->p), NS_EINVAL, "kappa must be >= 1 (got 0)");
  assert_fails_with(ns_lwf_place(f->c, j, -3, f->p), NS_EINVAL, "kappa");
  const int five[] = {5};
  assert_gpus(f->p, five, 1); /* untouched by invalid calls */
  ns_job_free(j);
}

/* ---- workload bookkeeping (commit adds L_J, release takes it back) ------- */

static void test_commit_release_workload(void **state) {
  fixture *f = *state;
  ns_job *j = ns_job_new("resnet", 2);
  ns_job_set_compute_ms(j, 10, 20);
  ns_job_set_iterations(j, 100, 40); /* C_J = 30 ms x 60 iterations (Eq. 7) */
  assert_int_equal(ns_lwf_place(f->c, j, 2, f->p), NS_OK);
  const int want[] = {7, 13};
  assert_gpus(f->p, want, 2);
  for (int g = 0; g < 16; g++) /* deciding does not mutate */
    assert_near(ns_cluster_gpu_workload_ms(f->c, g), HAND_LOAD[g], 0);
  assert_int_equal(ns_cluster_commit(f->c, j, f->p), NS_OK);
  /* Alg. 1 lines 1 and 6: L_J = C_J x |G| = 1800 x 2 added to each GPU */
  assert_near(ns_cluster_gpu_workload_ms(f->c, 7), 3600, 1e-9);
  assert_near(ns_cluster_gpu_workload_ms(f->c, 13), 3600, 1e-9);
  assert_near(ns_cluster_gpu_workload_ms(f->c, 1), 1, 0);
  /* the next 2-GPU job now avoids them */
  ns_job *k = ns_job_new("next", 2);
  assert_int_equal(ns_lwf_place(f->c, k, 2, f->p), NS_OK);
  const int next[] = {1, 15};
  assert_gpus(f->p, next, 2);
  assert_int_equal(ns_cluster_release(f->c, j), NS_OK);
  assert_near(ns_cluster_gpu_workload_ms(f->c, 7), 0, 1e-9);
  assert_near(ns_cluster_gpu_workload_ms(f->c, 13), 0, 1e-9);
  ns_job_free(j);
  ns_job_free(k);
}

/* Sharing mode (the paper's model): GPUs are shared while memory fits. */
static void test_sharing_memory(void **state) {
  fixture *f = *state;
  assert_int_equal(ns_cluster_set_gpu_sharing(f->c, 1), NS_OK);
  ns_job *a = ns_job_new("a", 2), *b = ns_job_new("b", 2), *s = ns_job_new("s", 1);
  ns_job_set_gpu_memory_mb(a, 10000);
  ns_job_set_gpu_memory_mb(b, 10000);
  ns_job_set_gpu_memory_mb(s, 4000);
  ns_job_set_compute_ms(a, 1, 1);
  ns_job_set_iterations(a, 1, 0); /* L_a = 2 ms x 2 GPUs = 4 ms per GPU */
  assert_int_equal(ns_lwf_place(f->c, a, 2, f->p), NS_OK);
  assert_int_equal(ns_cluster_commit(f->c, a, f->p), NS_OK);
  assert_near(ns_cluster_gpu_workload_ms(f->c, 7), 4, 0);
  /* b does not fit next to a (20000 > 16384 MB): 7 and 13 are skipped */
  assert_int_equal(ns_lwf_place(f->c, b, 2, f->p), NS_OK);
  const int wb[] = {1, 15};
  assert_gpus(f->p, wb, 2);
  /* a small job fits on 13 but LWF sees its workload (4) */
  ns_cluster_set_gpu_workload_ms(f->c, 13, 0.5);
  assert_int_equal(ns_lwf_place(f->c, s, 1, f->p), NS_OK);
  const int ws[] = {13};
  assert_gpus(f->p, ws, 1);
  ns_job_free(a);
  ns_job_free(b);
  ns_job_free(s);
}

/* ---- brute-force oracle on random states ---------------------------------- */

typedef struct key {
  double w;
  int id;
} key;

static int cmp_key(const void *pa, const void *pb) {
  const key *a = pa, *b = pb;
  if (a->w != b->w)
    return a->w < b->w ? -1 : 1;
  return a->id - b->id;
}

/* The paper's "enough rest memory" through the public API: background
   load (a free GPU with no job) never hosts; exclusive mode needs a free GPU. */
static int hostable(const ns_cluster *c, int g, double mem) {
  int background = ns_cluster_gpu_job_count(c, g) == 0 && !ns_cluster_gpu_is_free(c, g);
  if (background || (!ns_cluster_gpu_sharing(c) && !ns_cluster_gpu_is_free(c, g)))
    return 0;
  return ns_cluster_gpu_free_memory_mb(c, g) >= mem;
}

/* Algorithm 1 by full sorts, read straight off the pseudo-code. Returns
   the number of GPUs written to want (0 = empty set). */
static int oracle(const ns_cluster *c, int n, int kappa, double mem, int *want) {
  int ng = ns_cluster_gpu_count(c), ns = ns_cluster_server_count(c), per = ng / ns, m = 0;
  key *k = malloc((size_t)ng * sizeof *k);
  if (n <= kappa) {
    for (int g = 0; g < ng; g++)
      if (hostable(c, g, mem))
        k[m++] = (key){ns_cluster_gpu_workload_ms(c, g), g};
    qsort(k, (size_t)m, sizeof *k, cmp_key);
  } else {
    key *srv = malloc((size_t)ns * sizeof *srv);
    for (int s = 0; s < ns; s++) {
      srv[s] = (key){0, s};
      for (int j = 0; j < per; j++)
        srv[s].w += ns_cluster_gpu_workload_ms(c, s * per + j);
    }
    qsort(srv, (size_t)ns, sizeof *srv, cmp_key);
    for (int s = 0; s < ns; s++) {
      int first = m;
      for (int j = 0; j < per; j++) {
        int g = srv[s].id * per + j;
        if (hostable(c, g, mem))
          k[m++] = (key){ns_cluster_gpu_workload_ms(c, g), g};
      }
      qsort(k + first, (size_t)(m - first), sizeof *k, cmp_key);
    }
    free(srv);
  }
  int got = m >= n ? n : 0;
  for (int i = 0; i < got; i++)
    want[i] = k[i].id;
  free(k);
  return got;
}

static void test_random_states_vs_oracle(void **state) {
  (void)state;
  srand(12345);
  int want[64];
  for (int trial = 0; trial < 200; trial++) {
    int sharing = trial % 2;
    ns_cluster *c = ns_cluster_new_leaf_spine(2, 0, 3, 4, 0, 10.0); /* 24 GPUs */
    ns_cluster_set_gpu_sharing(c, sharing);
    for (int g = 0; g < 24; g++) {
      ns_cluster_set_gpu_workload_ms(c, g, rand() % 4); /* many ties */
      if (rand() % 5 == 0)
        ns_cluster_occupy(c, &g, 1);
    }
    ns_job *bg = ns_job_new("bg", 3);
    ns_job_set_gpu_memory_mb(bg, 9000);
    if (sharing) { /* memory already used on three GPUs of one server */
      ns_placement *p = ns_placement_new();
      int base = (rand() % 6) * 4;
      for (int i = 0; i < 3; i++)
        ns_placement_add_gpu(p, base + i);
      (void)ns_cluster_commit(c, bg, p); /* NS_ENOSPACE on background GPUs: state differs */
      ns_placement_free(p);
    }
    ns_placement *out = ns_placement_new();
    for (int n = 1; n <= 25; n++) {
      for (int kappa = 1; kappa <= 4; kappa *= 2) {
        ns_job *j = ns_job_new("j", n);
        double mem = sharing ? 8000 : 0;
        ns_job_set_gpu_memory_mb(j, mem);
        int got = oracle(c, n, kappa, mem, want);
        int rc = ns_lwf_place(c, j, kappa, out);
        if (n > 24) { /* more GPUs than the cluster: never fits (core.h) */
          assert_int_equal(rc, NS_EINVAL);
          assert_int_equal(ns_placement_gpu_count(out), 0);
        } else if (got == 0) {
          assert_int_equal(rc, NS_ENOSPACE);
          assert_int_equal(ns_placement_gpu_count(out), 0);
        } else {
          assert_int_equal(rc, NS_OK);
          assert_gpus(out, want, (size_t)got);
        }
        ns_job_free(j);
      }
    }
    ns_placement_free(out);
    ns_cluster_free(c);
    ns_job_free(bg);
  }
}

/* With every GPU free, |G| > kappa uses the fewest servers: ceil(|G|/N_g). */
static void test_consolidation_invariant(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 16, 4, 0, 10.0);
  ns_placement *p = ns_placement_new();
  srand(7);
  for (int g = 0; g < 64; g++)
    ns_cluster_set_gpu_workload_ms(c, g, (double)(rand() % 1000));
  for (int n = 2; n <= 64; n++) {
    ns_job *j = ns_job_new("j", n);
    assert_int_equal(ns_lwf_place(c, j, 1, p), NS_OK);
    assert_int_equal(ns_placement_server_count(p), (n + 3) / 4);
    ns_job_free(j);
  }
  ns_placement_free(p);
  ns_cluster_free(c);
}

/* ---- baselines ------------------------------------------------------------ */

static void test_first_fit(void **state) {
  fixture *f = *state;
  int busy[2] = {0, 2};
  ns_cluster_occupy(f->c, busy, 2);
  ns_job *j = ns_job_new("j", 3);
  assert_int_equal(ns_place_first_fit(f->c, j, f->p), NS_OK);
  const int want[] = {1, 3, 4}; /* workloads ignored */
  assert_gpus(f->p, want, 3);
  ns_job *big = ns_job_new("big", 15);
  assert_fails_with(ns_place_first_fit(f->c, big, f->p), NS_ENOSPACE, "14 of the cluster's 16");
  assert_int_equal(ns_placement_gpu_count(f->p), 0);
  assert_fails_with(ns_place_first_fit(f->c, NULL, f->p), NS_EINVAL, "job");
  ns_job_free(j);
  ns_job_free(big);
}

static void test_list_scheduling(void **state) {
  fixture *f = *state;
  ns_job *j = ns_job_new("j", 6);
  assert_int_equal(ns_place_list_scheduling(f->c, j, f->p), NS_OK);
  const int want[] = {7, 13, 1, 15, 4, 5}; /* least workload, ties by id */
  assert_gpus(f->p, want, 6);
  /* LS is LWF-kappa's first branch for any kappa >= |G| */
  assert_int_equal(ns_lwf_place(f->c, j, 6, f->p), NS_OK);
  assert_gpus(f->p, want, 6);
  ns_job *big = ns_job_new("big", 99);
  assert_fails_with(ns_place_list_scheduling(f->c, big, f->p), NS_EINVAL, "needs 99");
  assert_fails_with(ns_place_list_scheduling(NULL, j, f->p), NS_EINVAL, "c is NULL");
  ns_job_free(j);
  ns_job_free(big);
}

static void test_random_baseline(void **state) {
  fixture *f = *state;
  int busy[3] = {2, 9, 14};
  ns_cluster_occupy(f->c, busy, 3);
  ns_job *j = ns_job_new("j", 5);
  ns_placement *q = ns_placement_new();
  int differs = 0;
  for (uint64_t seed = 0; seed < 50; seed++) {
    assert_int_equal(ns_place_random(f->c, j, seed, f->p), NS_OK);
    assert_int_equal(ns_place_random(f->c, j, seed, q), NS_OK); /* deterministic */
    int seen[16] = {0};
    for (size_t i = 0; i < 5; i++) {
      int g = ns_placement_gpu(f->p, i);
      assert_int_equal(ns_placement_gpu(q, i), g);
      assert_true(ns_cluster_gpu_is_free(f->c, g));
      assert_int_equal(seen[g]++, 0); /* distinct */
    }
    assert_int_equal(ns_place_random(f->c, j, seed + 1000, q), NS_OK);
    for (size_t i = 0; i < 5; i++)
      differs += ns_placement_gpu(q, i) != ns_placement_gpu(f->p, i);
  }
  assert_true(differs > 0);
  ns_job *big = ns_job_new("big", 14);
  assert_fails_with(ns_place_random(f->c, big, 1, f->p), NS_ENOSPACE, "13 of the cluster's 16");
  ns_job_free(j);
  ns_job_free(big);
  ns_placement_free(q);
}

/* Each of the 13 free GPUs is drawn with probability 1/13: counts over
   13000 seeds within 5 standard deviations (sd = sqrt(13000/13*12/13)). */
static void test_random_uniform(void **state) {
  fixture *f = *state;
  int busy[3] = {2, 9, 14}, count[16] = {0};
  ns_cluster_occupy(f->c, busy, 3);
  ns_job *j = ns_job_new("j", 1);
  for (uint64_t seed = 0; seed < 13000; seed++) {
    assert_int_equal(ns_place_random(f->c, j, seed, f->p), NS_OK);
    count[ns_placement_gpu(f->p, 0)]++;
  }
  double sd = sqrt(13000.0 / 13 * 12 / 13);
  for (int g = 0; g < 16; g++) {
    if (g == 2 || g == 9 || g == 14)
      assert_int_equal(count[g], 0);
    else
      assert_true(fabs(count[g] - 1000.0) < 5 * sd);
  }
  ns_job_free(j);
}

#define HAND(t) cmocka_unit_test_setup_teardown(t, setup_hand, teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      HAND(test_hand_least_loaded_branch),
      HAND(test_hand_server_branch),
      HAND(test_hand_busy_gpus),
      HAND(test_no_space),
      HAND(test_bad_input),
      HAND(test_commit_release_workload),
      HAND(test_sharing_memory),
      cmocka_unit_test(test_random_states_vs_oracle),
      cmocka_unit_test(test_consolidation_invariant),
      HAND(test_first_fit),
      HAND(test_list_scheduling),
      HAND(test_random_baseline),
      HAND(test_random_uniform),
  };
  return cmocka_run_group_tests_name("lwf", tests, NULL, NULL);
}
