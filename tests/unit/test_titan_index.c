/*
 * tests/unit/test_titan_index.c - Titan's candidate index (src/titan/rank.c)
 * against the reference scan it replaced (every machine ranked again every
 * round, ns_titan_opts.scan = 1), on random clusters.
 *
 * The index must yield the machines of each round in exactly the scan's
 * order, so every decision is identical: the same GPUs in the same worker
 * order, or the same error. Instances mix partly busy servers (many R_s
 * values, so the rem-crossing rebuild runs), reserved uplinks, every
 * collective, phase budgets and pair bandwidth functions (so bandwidth
 * binds and the rounds walk past the top candidate), and leaves of one
 * server to many. The scan also never takes the no-flow shortcut
 * (problem.c cannot_bind), so instances where it applies compare the
 * shortcut with the full bandwidth checks. The coverage counts at the end make sure each of those
 * paths was taken, so the comparison cannot pass vacuously.
 */
#include "helpers/ns_test.h"

#include <stdlib.h>

#include "titan/tn_internal.h"

typedef struct rng {
  uint64_t s;
} rng;

static int rnd(rng *r, int n) { return (int)(nsi_splitmix64(&r->s) % (uint64_t)n); }

typedef struct pair_tab {
  int M;
  double *gbps;
} pair_tab;

static double pair_lookup(int a, int b, void *user) {
  const pair_tab *t = user;
  return t->gbps[a * t->M + b];
}

typedef struct cover {
  int placed, nospace, bw_limited, bw_free, pair, multi_leaf;
} cover;

/* Background load: per server, all, none or a random part of its GPUs. */
static void load_random(rng *r, ns_cluster *c) {
  int S = ns_cluster_server_count(c), G = ns_cluster_gpus_per_server(c), n = 0;
  int *busy = malloc((size_t)S * G * sizeof *busy);
  int mode = rnd(r, 4);
  for (int s = 0; s < S; s++) {
    int k = mode == 0 ? 0 : rnd(r, 3) == 0 ? G : rnd(r, 2) ? rnd(r, G + 1) : 0;
    for (int g = 0; g < k; g++)
      busy[n++] = s * G + g;
  }
  assert_int_equal(ns_cluster_occupy(c, busy, (size_t)n), NS_OK);
  free(busy);
}

/* A committed 1-GPU job holding random uplinks (as vClos would). */
static void reserve_uplinks(rng *r, ns_cluster *c, ns_job *holder) {
  int spines = ns_cluster_spine_count(c), lpp = ns_cluster_links_per_pair(c), g = -1;
  for (int i = 0; i < ns_cluster_gpu_count(c) && g < 0; i++)
    g = ns_cluster_gpu_is_free(c, i) ? i : -1;
  if (spines == 0 || g < 0)
    return;
  ns_placement *p = ns_placement_new();
  ns_placement_bind(p, c);
  ns_placement_add_gpu(p, g);
  for (int l = 0; l < ns_cluster_leaf_count(c); l++)
    for (int s = 0; s < spines; s++)
      for (int k = 0; k < lpp; k++)
        if (rnd(r, 3) == 0)
          assert_int_equal(nsi_placement_add_link(p, l, s, k), NS_OK);
  assert_int_equal(ns_cluster_commit(c, holder, p), NS_OK);
  ns_placement_free(p);
}

/* tn_greedy over [lo, hi) by the index and by the scan: same assignment. */
static void greedy_both(tn_prob *p, const unsigned char *allow, int lo, int hi, int nonidle,
                        cover *cv) {
  tn_asg a = {0}, b = {0};
  assert_int_equal(tn_asg_init(&a, p), NS_OK);
  assert_int_equal(tn_asg_init(&b, p), NS_OK);
  p->scan = 0;
  p->bw_limited = 0;
  int ra = tn_greedy(p, allow, lo, hi, nonidle, &a), lim = p->bw_limited;
  p->scan = 1;
  p->bw_limited = 0;
  int rb = tn_greedy(p, allow, lo, hi, nonidle, &b);
  assert_int_equal(ra, rb);
  assert_int_equal(lim, p->bw_limited);
  cv->bw_limited += lim;
  for (int w = 0; w < p->W; w++)
    assert_int_equal(a.mach[w], b.mach[w]);
  assert_int_equal(a.used, b.used);
  assert_int_equal(a.idle_used, b.idle_used);
  tn_asg_free(&a);
  tn_asg_free(&b);
}

/* Both greedy orders over all machines, over one leaf, and over a random
   subset (Alg. 3 step 2's S_f u Phi_n has this shape). */
static void compare_greedy(rng *r, const ns_cluster *c, const ns_job *j, const ns_titan_opts *o,
                           cover *cv) {
  tn_prob p;
  assert_int_equal(tn_prob_init(&p, c, j, o), NS_OK);
  cv->bw_free += p.bw_free;
  unsigned char *allow = malloc((size_t)p.M);
  for (int s = 0; s < p.M; s++)
    allow[s] = (unsigned char)(rnd(r, 3) != 0);
  for (int nonidle = 0; nonidle < 2; nonidle++) {
    greedy_both(&p, NULL, 0, p.M, nonidle, cv);
    greedy_both(&p, allow, 0, p.M, nonidle, cv);
    int l = rnd(r, p.L);
    greedy_both(&p, NULL, l * p.spl, (l + 1) * p.spl, nonidle, cv);
  }
  free(allow);
  tn_prob_free(&p);
}

/* ns_titan_place by the index and by the scan: the same decision. */
static int compare_place(const ns_cluster *c, const ns_job *j, ns_titan_opts *o) {
  ns_placement *a = ns_placement_new(), *b = ns_placement_new();
  o->scan = 0;
  int ra = ns_titan_place(c, j, o, a);
  char ea[256];
  snprintf(ea, sizeof ea, "%s", ra == NS_OK ? "" : ns_last_error());
  o->scan = 1;
  int rb = ns_titan_place(c, j, o, b);
  o->scan = 0;
  assert_int_equal(ra, rb);
  if (ra != NS_OK)
    assert_string_equal(ea, ns_last_error());
  assert_int_equal(ns_placement_gpu_count(a), ns_placement_gpu_count(b));
  for (size_t i = 0; i < ns_placement_gpu_count(a); i++)
    assert_int_equal(ns_placement_gpu(a, i), ns_placement_gpu(b, i));
  ns_placement_free(a);
  ns_placement_free(b);
  return ra;
}

static ns_job *random_job(rng *r, int free_gpus) {
  int w = 1 + rnd(r, free_gpus < 40 ? free_gpus : 40);
  ns_job *j = ns_job_new("j", w);
  ns_job_set_collective(j, (ns_collective)rnd(r, 4));
  ns_job_set_model_bytes(j, 1000ull << rnd(r, 17));
  return j;
}

/* One random cluster; `cv` counts what the instance exercised. */
static void one_instance(rng *r, cover *cv) {
  int L = 1 + rnd(r, 5), spl = 1 + rnd(r, 6), G = 1 + rnd(r, 8), spines = rnd(r, 4);
  int lpp = spines ? 1 + rnd(r, 3) : 0;
  if (rnd(r, 4) == 0) /* an uplink per GPU, as on the 2^22-GPU fabric */
    spines = spl * G, lpp = 1;
  ns_cluster *c = ns_cluster_new_leaf_spine(L, spines, spl, G, lpp, 100.0);
  ns_job *holder = ns_job_new("holder", 1);
  load_random(r, c);
  if (rnd(r, 3) == 0)
    reserve_uplinks(r, c, holder);
  int fr = ns_cluster_free_gpu_count(c);
  if (fr == 0) {
    ns_job_free(holder);
    ns_cluster_free(c);
    return;
  }
  ns_job *j = random_job(r, fr);
  ns_titan_opts *o = ns_titan_opts_new();
  ns_titan_opts_set_seed(o, nsi_splitmix64(&r->s));
  if (rnd(r, 3) == 0)
    ns_titan_opts_set_phase_budget_ms(o, 0.001 * (1 + rnd(r, 1000)));
  int M = L * spl;
  pair_tab tab = {M, malloc((size_t)M * M * sizeof *tab.gbps)};
  if (rnd(r, 4) == 0) {
    for (int i = 0; i < M * M; i++)
      tab.gbps[i] = rnd(r, 4) == 0 ? 0 : rnd(r, 4) == 0 ? INFINITY : 10.0 * (1 + rnd(r, 40));
    ns_titan_opts_set_pair_bandwidth_fn(o, pair_lookup, &tab);
    cv->pair++;
  }
  compare_greedy(r, c, j, o, cv);
  int rc = compare_place(c, j, o);
  cv->placed += rc == NS_OK;
  cv->nospace += rc == NS_ENOSPACE;
  cv->multi_leaf += L > 1 && spl > 1;
  free(tab.gbps);
  ns_titan_opts_free(o);
  ns_job_free(j);
  if (ns_cluster_is_committed(c, holder) == 1)
    ns_cluster_release(c, holder);
  ns_job_free(holder);
  ns_cluster_free(c);
}

static void test_index_matches_scan_random(void **state) {
  (void)state;
  rng r = {20261126};
  cover cv = {0};
  const int N = 600;
  for (int i = 0; i < N; i++)
    one_instance(&r, &cv);
  printf("# %d placed, %d no space, %d greedy runs bandwidth-limited, %d without flow "
         "checks, %d with a pair function\n", cv.placed, cv.nospace, cv.bw_limited, cv.bw_free,
         cv.pair);
  /* Each path was exercised, not just the trivial one. */
  assert_true(cv.placed >= N / 4);
  assert_true(cv.nospace >= 10);
  assert_true(cv.bw_limited >= 50); /* greedy runs that walked past the top */
  assert_true(cv.bw_free >= N / 10); /* placed without adding flows, vs the scan's checks */
  assert_true(cv.bw_free <= N - N / 4); /* ... and with them */

  assert_true(cv.pair >= N / 8);
  assert_true(cv.multi_leaf >= N / 4);
}

/* A larger cluster with a stream of jobs placed and committed in turn: many
   rounds, leaves filling up, servers with every R_s from 1 to 8, so the
   rem-crossing rebuilds and the leaf updates run thousands of times. */
static void test_index_matches_scan_stream(void **state) {
  (void)state;
  rng r = {7};
  ns_cluster *c = ns_cluster_new_leaf_spine(12, 4, 24, 8, 2, 100.0);
  load_random(&r, c);
  ns_job *jobs[40];
  int n = 0, placed = 0;
  for (int i = 0; i < 40; i++) {
    int fr = ns_cluster_free_gpu_count(c);
    if (fr == 0)
      break;
    int w = 1 + rnd(&r, fr < 300 ? fr : 300);
    ns_job *j = jobs[n++] = ns_job_new("s", w);
    ns_job_set_collective(j, (ns_collective)rnd(&r, 3));
    ns_job_set_model_bytes(j, 1ull << (10 + rnd(&r, 20)));
    ns_titan_opts *o = ns_titan_opts_new();
    ns_titan_opts_set_seed(o, (uint64_t)i);
    if (i % 3 == 1)
      ns_titan_opts_set_phase_budget_ms(o, 0.01 * (1 + rnd(&r, 100)));
    cover cv = {0};
    compare_greedy(&r, c, j, o, &cv);
    if (compare_place(c, j, o) == NS_OK) {
      ns_placement *p = ns_placement_new();
      assert_int_equal(ns_titan_place(c, j, o, p), NS_OK);
      assert_int_equal(ns_cluster_commit(c, j, p), NS_OK);
      ns_placement_free(p);
      placed++;
    }
    ns_titan_opts_free(o);
  }
  assert_true(placed >= 10);
  for (int i = 0; i < n; i++) {
    if (ns_cluster_is_committed(c, jobs[i]) == 1)
      ns_cluster_release(c, jobs[i]);
    ns_job_free(jobs[i]);
  }
  ns_cluster_free(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_index_matches_scan_random),
      cmocka_unit_test(test_index_matches_scan_stream),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
