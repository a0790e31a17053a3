/*
 * tests/unit/test_titan.c - Titan placement (src/titan/): the paper's
 * Fig. 1 example, the bandwidth model, bad input, and random small
 * instances against an exhaustive optimum.
 *
 * The checker and the oracle below are written from the documented model
 * (include/netsched/titan.h) using only public calls, not from the
 * implementation: per phase t, with B_t the phase's largest flow, every
 * machine sends and receives at most R_s * B_t bytes to/from other
 * machines, and every leaf at most U_l * B_t across leaves, U_l = its
 * unreserved uplinks * free GPUs on the leaf / GPUs on the leaf.
 * With a pair bandwidth P (Gbps) the model is Eq. 1 alone: per phase and
 * directed machine pair, bytes <= P * tau_t, tau_t = the phase budget (or
 * B_t at line rate without one); a budget scales the default model the
 * same way (R_s ports * link rate * budget).
 */
#include "helpers/ns_test.h"

#include <stdlib.h>

#include "core/internal.h" /* nsi_placement_add_link: reserve uplinks as vClos does */

#define MAXW 32
#define MAXM 64

typedef struct inst {
  ns_cluster *c;
  ns_job *job;
  int W, M, G, spl, L, T;
  int R[MAXM], idle[MAXM];
  double up[MAXM];
  uint64_t *tr; /* tr[(t * W + a) * W + b] */
  double *bt;   /* per phase largest flow */
  const double *pair; /* NULL or M x M Gbps (P_{a,b}) */
  double budget_ms;   /* 0: tau_t = B_t at line rate */
} inst;

/* Bytes one port (link_gbps) moves in phase t's time budget. */
static double port_bytes(const inst *in, int t) {
  return in->budget_ms > 0 ? ns_cluster_link_gbps(in->c) * in->budget_ms * 1.25e5 : in->bt[t];
}

/* Eq. 1 with P_{a,b}: per phase, bytes from machine a to b <= P x tau_t. */
static int feasible_pairs(const inst *in, const int *mach) {
  for (int t = 0; t < in->T; t++) {
    double load[MAXM][MAXM] = {{0}};
    for (int a = 0; a < in->W; a++)
      for (int b = 0; b < in->W; b++)
        if (mach[a] != mach[b])
          load[mach[a]][mach[b]] += (double)in->tr[((size_t)t * in->W + a) * in->W + b];
    double unit = port_bytes(in, t) / ns_cluster_link_gbps(in->c); /* bytes per Gbps */
    for (int a = 0; a < in->M; a++)
      for (int b = 0; b < in->M; b++)
        if (load[a][b] > 0 && load[a][b] > in->pair[a * in->M + b] * unit * (1 + 1e-9) + 1e-9)
          return 0;
  }
  return 1;
}

static void inst_load(inst *in, ns_cluster *c, ns_job *job) {
  in->pair = NULL;
  in->budget_ms = 0;
  in->c = c;
  in->job = job;
  in->W = ns_job_gpus(job);
  in->M = ns_cluster_server_count(c);
  in->G = ns_cluster_gpus_per_server(c);
  in->spl = ns_cluster_servers_per_leaf(c);
  in->L = ns_cluster_leaf_count(c);
  assert_true(in->W <= MAXW && in->M <= MAXM);
  for (int s = 0; s < in->M; s++) {
    in->R[s] = ns_cluster_free_gpus_on_server(c, s);
    in->idle[s] = in->R[s] == in->G;
  }
  for (int l = 0; l < in->L; l++) {
    int links = 0;
    for (int sp = 0; sp < ns_cluster_spine_count(c); sp++)
      links += ns_cluster_free_links_between(c, l, sp);
    in->up[l] = (double)links * ns_cluster_free_gpus_on_leaf(c, l) / (in->spl * in->G);
  }
  ns_collective coll = (ns_collective)ns_job_collective(job);
  in->T = ns_collective_phase_count(coll, in->W);
  size_t n = (size_t)(in->T > 0 ? in->T : 1) * in->W * in->W;
  in->tr = calloc(n, sizeof *in->tr);
  in->bt = calloc((size_t)(in->T > 0 ? in->T : 1), sizeof *in->bt);
  for (int t = 0; t < in->T; t++)
    for (int a = 0; a < in->W; a++)
      for (int b = 0; b < in->W; b++) {
        uint64_t *x = &in->tr[((size_t)t * in->W + a) * in->W + b];
        assert_int_equal(ns_collective_traffic(coll, in->W, ns_job_model_bytes(job), t, a, b, x),
                         NS_OK);
        if ((double)*x > in->bt[t])
          in->bt[t] = (double)*x;
      }
}

static void inst_free(inst *in) {
  free(in->tr);
  free(in->bt);
}

/* Bandwidth constraint of the documented model for worker -> machine. */
static int feasible(const inst *in, const int *mach) {
  if (in->pair != NULL)
    return feasible_pairs(in, mach);
  for (int t = 0; t < in->T; t++) {
    double mo[MAXM] = {0}, mi[MAXM] = {0}, lo[MAXM] = {0}, li[MAXM] = {0};
    for (int a = 0; a < in->W; a++)
      for (int b = 0; b < in->W; b++) {
        double x = (double)in->tr[((size_t)t * in->W + a) * in->W + b];
        int sa = mach[a], sb = mach[b];
        if (x == 0 || sa == sb)
          continue;
        mo[sa] += x;
        mi[sb] += x;
        if (sa / in->spl != sb / in->spl) {
          lo[sa / in->spl] += x;
          li[sb / in->spl] += x;
        }
      }
    double u = port_bytes(in, t), tol = 1e-9 * u + 1e-9;
    for (int s = 0; s < in->M; s++)
      if (mo[s] > in->R[s] * u + tol || mi[s] > in->R[s] * u + tol)
        return 0;
    for (int l = 0; l < in->L; l++)
      if (lo[l] > in->up[l] * u + tol || li[l] > in->up[l] * u + tol)
        return 0;
  }
  return 1;
}

typedef struct obj {
  int idle_used, used;
  uint64_t cross; /* directed bytes between machines */
} obj;

static obj objective(const inst *in, const int *mach) {
  obj o = {0, 0, 0};
  int seen[MAXM] = {0};
  for (int w = 0; w < in->W; w++)
    if (!seen[mach[w]]++) {
      o.used++;
      o.idle_used += in->idle[mach[w]];
    }
  for (int t = 0; t < in->T; t++)
    for (int a = 0; a < in->W; a++)
      for (int b = 0; b < in->W; b++)
        if (mach[a] != mach[b])
          o.cross += in->tr[((size_t)t * in->W + a) * in->W + b];
  return o;
}

static int obj_less(obj a, obj b) {
  if (a.idle_used != b.idle_used)
    return a.idle_used < b.idle_used;
  if (a.used != b.used)
    return a.used < b.used;
  return a.cross < b.cross;
}

/* Validates Titan's output: W distinct free GPUs, bandwidth feasible.
   Returns the worker -> machine map in mach. */
static void check_placement(const inst *in, const ns_placement *p, int *mach) {
  assert_int_equal(ns_placement_gpu_count(p), (size_t)in->W);
  int cnt[MAXM] = {0};
  for (int w = 0; w < in->W; w++) {
    int g = ns_placement_gpu(p, (size_t)w);
    assert_true(g >= 0 && g < ns_cluster_gpu_count(in->c));
    assert_int_equal(ns_cluster_gpu_is_free(in->c, g), 1);
    for (int v = 0; v < w; v++)
      assert_int_not_equal(ns_placement_gpu(p, (size_t)v), g);
    mach[w] = ns_cluster_server_of_gpu(in->c, g);
    cnt[mach[w]]++;
  }
  for (int s = 0; s < in->M; s++)
    assert_true(cnt[s] <= in->R[s]);
  assert_true(feasible(in, mach));
}

/* Exhaustive optimum over every worker -> machine map; 0 if none. */
static int exhaustive(const inst *in, int w, int *mach, int *cnt, obj *best, int found) {
  if (w == in->W) {
    if (!feasible(in, mach))
      return found;
    obj o = objective(in, mach);
    if (!found || obj_less(o, *best))
      *best = o;
    return 1;
  }
  for (int s = 0; s < in->M; s++) {
    if (cnt[s] >= in->R[s])
      continue;
    mach[w] = s;
    cnt[s]++;
    found = exhaustive(in, w + 1, mach, cnt, best, found);
    cnt[s]--;
  }
  return found;
}

/* ---- Fig. 1 ----------------------------------------------------------------- */

/* 4 machines x 4 GPUs with 4, 3, 2, 1 idle GPUs, 100 Gbps; a 4-worker HD
   job of K bytes. */
static ns_cluster *fig1_cluster(void) {
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 4, 4, 0, 100);
  const int busy[] = {4, 8, 9, 12, 13, 14};
  assert_int_equal(ns_cluster_occupy(c, busy, 6), NS_OK);
  return c;
}

static ns_job *hd_job(int workers, uint64_t k) {
  ns_job *j = ns_job_new("hd", workers);
  ns_job_set_collective(j, NS_COLL_HALVING_DOUBLING);
  ns_job_set_model_bytes(j, k);
  return j;
}

static uint64_t paper_cross(const ns_job *j, const ns_placement *p) {
  uint64_t b = 0;
  assert_int_equal(ns_collective_cross_machine_bytes(j, p, &b), NS_OK);
  return b / 2; /* the paper counts each exchange once */
}

static void test_fig1_titan(void **state) {
  (void)state;
  const uint64_t K = 1 << 20;
  ns_cluster *c = fig1_cluster();
  ns_job *j = hd_job(4, K);
  ns_titan_opts *o = ns_titan_opts_new();
  ns_placement *p = ns_placement_new();
  int free_before = ns_cluster_free_gpu_count(c);
  assert_int_equal(ns_titan_place(c, j, o, p), NS_OK);
  assert_int_equal(ns_cluster_free_gpu_count(c), free_before); /* cluster untouched */
  int srv[4];
  for (int w = 0; w < 4; w++)
    srv[w] = ns_cluster_server_of_gpu(c, ns_placement_gpu(p, (size_t)w));
  /* Titan: {W1, W3} on machine 2, {W2, W4} on machine 3 */
  assert_int_equal(srv[0], 1);
  assert_int_equal(srv[2], 1);
  assert_int_equal(srv[1], 2);
  assert_int_equal(srv[3], 2);
  assert_int_equal(ns_placement_server_count(p), 2);
  assert_int_equal(paper_cross(j, p), K); /* (K/4 + K/4) * 2 */
  assert_int_equal(ns_cluster_commit(c, j, p), NS_OK);
  ns_placement_free(p);
  ns_titan_opts_free(o);
  ns_job_free(j);
  ns_cluster_free(c);
}

/* The two baselines of Fig. 1(b)-(c), built as the paper describes them:
   consolidation (Elasticflow: the server whose idle GPUs are closest to
   the demand) and HiveD (fragments first: fill the most-fragmented
   servers, here W1-W3 on machine 2 and W4 on machine 4). */
static void test_fig1_baselines(void **state) {
  (void)state;
  const uint64_t K = 1 << 20;
  ns_cluster *c = fig1_cluster();
  ns_job *j = hd_job(4, K);
  ns_placement *p = ns_placement_new();
  ns_placement_bind(p, c);
  int best = -1;
  for (int s = 0; s < 4; s++) {
    int f = ns_cluster_free_gpus_on_server(c, s);
    if (f >= 4 && (best < 0 || f < ns_cluster_free_gpus_on_server(c, best)))
      best = s;
  }
  assert_int_equal(best, 0); /* machine 1, the idle one */
  for (int g = 0; g < 4; g++)
    ns_placement_add_gpu(p, best * 4 + g);
  assert_int_equal(paper_cross(j, p), 0);

  ns_placement_clear(p);
  const int hived[4] = {5, 6, 7, 15};
  for (int w = 0; w < 4; w++)
    ns_placement_add_gpu(p, hived[w]);
  assert_int_equal(paper_cross(j, p), 3 * K / 2); /* (K/2 + K/4) * 2 */
  ns_placement_free(p);
  ns_job_free(j);
  ns_cluster_free(c);
}

/* ---- model and edge cases --------------------------------------------------- */

static void test_prefers_non_idle_then_fewest_machines(void **state) {
  (void)state;
  /* 8 machines x 8 GPUs: 10-worker ring. Non-idle free: 7 and 1 (8 < 10),
     so one idle machine is unavoidable; the optimum then adds the 7-GPU
     machine only (2 machines), not both fragments (Alg. 3 step 2). */
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 8, 8, 0, 100);
  int busy[64], nb = 0;
  busy[nb++] = 0; /* machine 0: 7 free */
  for (int g = 8; g < 15; g++)
    busy[nb++] = g; /* machine 1: 1 free */
  for (int s = 2; s < 7; s++)
    for (int g = 0; g < 8; g++)
      busy[nb++] = s * 8 + g; /* machines 2..6 full; machine 7 idle */
  assert_int_equal(ns_cluster_occupy(c, busy, (size_t)nb), NS_OK);
  ns_job *j = ns_job_new("ring", 10);
  ns_job_set_model_bytes(j, 1000);
  ns_titan_opts *o = ns_titan_opts_new();
  ns_placement *p = ns_placement_new();
  assert_int_equal(ns_titan_place(c, j, o, p), NS_OK);
  int on[8] = {0};
  for (int w = 0; w < 10; w++)
    on[ns_cluster_server_of_gpu(c, ns_placement_gpu(p, (size_t)w))]++;
  assert_int_equal(on[7], 8);
  assert_int_equal(on[0], 2);
  assert_int_equal(on[1], 0);
  ns_placement_free(p);
  ns_titan_opts_free(o);
  ns_job_free(j);
  ns_cluster_free(c);
}

/* Zero cross-leaf bandwidth (no spines): a job may not span leaves. */
static void test_zero_bandwidth_between_leaves(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(2, 0, 2, 2, 0, 100);
  ns_titan_opts *o = ns_titan_opts_new();
  ns_placement *p = ns_placement_new();
  ns_job *j4 = hd_job(4, 1000), *j6 = hd_job(6, 1000);
  assert_int_equal(ns_titan_place(c, j4, o, p), NS_OK);
  assert_int_equal(ns_placement_tier(p), NS_TIER_RACK);
  ns_placement_clear(p);
  ns_placement_add_gpu(p, 7); /* a failed call leaves out as it was */
  assert_fails_with(ns_titan_place(c, j6, o, p), NS_ENOSPACE, "bandwidth");
  assert_int_equal(ns_placement_gpu_count(p), 1);
  assert_int_equal(ns_placement_gpu(p, 0), 7);
  /* with spines the same job spans both leaves */
  ns_cluster *c2 = ns_cluster_new_leaf_spine(2, 2, 2, 2, 1, 100);
  assert_int_equal(ns_titan_place(c2, j6, o, p), NS_OK);
  assert_int_equal(ns_placement_tier(p), NS_TIER_NETWORK);
  ns_cluster_free(c2);
  ns_job_free(j4);
  ns_job_free(j6);
  ns_placement_free(p);
  ns_titan_opts_free(o);
  ns_cluster_free(c);
}

/* Tree broadcast: a parent sends K to both children in one phase, which
   takes two NIC ports; a machine with one free GPU has one. */
static void test_tree_nic_ports_bind(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 3, 1, 0, 100);
  ns_job *j = ns_job_new("tree", 3);
  ns_job_set_collective(j, NS_COLL_TREE);
  ns_job_set_model_bytes(j, 1000);
  ns_titan_opts *o = ns_titan_opts_new();
  ns_placement *p = ns_placement_new();
  assert_fails_with(ns_titan_place(c, j, o, p), NS_ENOSPACE, "bandwidth");
  /* a ring of 3 sends one flow per worker per phase: fits */
  ns_job_set_collective(j, NS_COLL_RING);
  assert_int_equal(ns_titan_place(c, j, o, p), NS_OK);
  ns_placement_free(p);
  ns_titan_opts_free(o);
  ns_job_free(j);
  ns_cluster_free(c);
}

static void test_oversubscribed_uplinks_bind(void **state) {
  (void)state;
  /* 2 leaves x 1 server x 4 GPUs, 1 spine x 1 link: one uplink per leaf.
     An 8-worker HD must span both leaves; its subcube split puts 4 flows
     across the leaves in some phase, more than one uplink carries. */
  ns_cluster *c = ns_cluster_new_leaf_spine(2, 1, 1, 4, 1, 100);
  ns_job *j = hd_job(8, 1 << 16);
  ns_titan_opts *o = ns_titan_opts_new();
  ns_placement *p = ns_placement_new();
  assert_fails_with(ns_titan_place(c, j, o, p), NS_ENOSPACE, "bandwidth");
  ns_cluster *c4 = ns_cluster_new_leaf_spine(2, 1, 1, 4, 4, 100); /* 4 uplinks */
  assert_int_equal(ns_titan_place(c4, j, o, p), NS_OK);
  ns_cluster_free(c4);
  ns_placement_free(p);
  ns_titan_opts_free(o);
  ns_job_free(j);
  ns_cluster_free(c);
}

static void test_bad_input(void **state) {
  (void)state;
  ns_cluster *c = fig1_cluster();
  ns_job *j = hd_job(4, 1000), *big = hd_job(11, 1000);
  ns_titan_opts *o = ns_titan_opts_new();
  ns_placement *p = ns_placement_new();
  assert_fails_with(ns_titan_place(NULL, j, o, p), NS_EINVAL, "c ");
  assert_fails_with(ns_titan_place(c, NULL, o, p), NS_EINVAL, "job");
  assert_fails_with(ns_titan_place(c, j, NULL, p), NS_EINVAL, "o ");
  assert_fails_with(ns_titan_place(c, j, o, NULL), NS_EINVAL, "out");
  assert_fails_with(ns_titan_place(c, big, o, p), NS_ENOSPACE, "10 free");
  assert_fails_with(ns_titan_opts_set_seed(NULL, 1), NS_EINVAL, "o ");
  /* memory the GPUs do not have */
  ns_job_set_gpu_memory_mb(j, 1e6);
  assert_fails_with(ns_titan_place(c, j, o, p), NS_EINVAL, "MB per GPU"); /* never fits */
  ns_titan_opts_free(NULL);
  ns_placement_free(p);
  ns_titan_opts_free(o);
  ns_job_free(j);
  ns_job_free(big);
  ns_cluster_free(c);
}

static void test_non_power_of_two_hd(void **state) {
  (void)state;
  ns_cluster *c = fig1_cluster();
  ns_job *j = hd_job(6, 6000);
  ns_titan_opts *o = ns_titan_opts_new();
  ns_placement *p = ns_placement_new();
  assert_int_equal(ns_titan_place(c, j, o, p), NS_OK);
  inst in;
  inst_load(&in, c, j);
  int mach[MAXW];
  check_placement(&in, p, mach);
  obj got = objective(&in, mach);
  assert_int_equal(got.idle_used, 0); /* non-idle machines hold 3+2+1 = 6 */
  assert_int_equal(got.used, 3);
  inst_free(&in);
  ns_placement_free(p);
  ns_titan_opts_free(o);
  ns_job_free(j);
  ns_cluster_free(c);
}

/* Uplinks reserved by a committed job (vClos) are not the job's to use:
   with all of leaf 0's uplinks taken, a job may not leave leaf 0. */
static void test_reserved_uplinks_are_zero_bandwidth(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(2, 1, 2, 4, 8, 100);
  ns_job *other = ns_job_new("vclos-job", 1), *j = hd_job(8, 1 << 20);
  ns_titan_opts *o = ns_titan_opts_new();
  ns_placement *p = ns_placement_new();
  /* 2 GPUs busy on each server of leaf 0: the job must span leaves */
  const int busy[] = {0, 1, 4, 5};
  assert_int_equal(ns_cluster_occupy(c, busy, 4), NS_OK);
  assert_int_equal(ns_titan_place(c, j, o, p), NS_OK);
  assert_int_equal(ns_placement_tier(p), NS_TIER_NETWORK);
  ns_placement *r = ns_placement_new();
  ns_placement_bind(r, c);
  ns_placement_add_gpu(r, 15);
  for (int k = 0; k < 8; k++)
    assert_int_equal(nsi_placement_add_link(r, 0, 0, k), NS_OK);
  assert_int_equal(ns_cluster_commit(c, other, r), NS_OK);
  /* leaf 1 alone has 7 free GPUs: no room without crossing */
  assert_fails_with(ns_titan_place(c, j, o, p), NS_ENOSPACE, "bandwidth");
  ns_job *j4 = hd_job(4, 1 << 20); /* fits inside leaf 0 */
  assert_int_equal(ns_titan_place(c, j4, o, p), NS_OK);
  assert_int_equal(ns_placement_tier(p), NS_TIER_RACK);
  ns_job_free(j4);
  ns_placement_free(r);
  ns_placement_free(p);
  ns_titan_opts_free(o);
  ns_job_free(j);
  ns_job_free(other);
  ns_cluster_free(c);
}

/* Four identical idle machines and a 2-worker job: every machine is as
   good, so the seed picks one (the paper's random initial distribution);
   the choice is a function of the seed alone. */
static void test_seed_breaks_ties(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 4, 4, 0, 100);
  ns_job *j = hd_job(2, 1000);
  ns_titan_opts *o = ns_titan_opts_new();
  ns_placement *p = ns_placement_new();
  int seen[4] = {0};
  for (uint64_t seed = 0; seed < 32; seed++) {
    ns_titan_opts_set_seed(o, seed);
    assert_int_equal(ns_titan_place(c, j, o, p), NS_OK);
    int s0 = ns_cluster_server_of_gpu(c, ns_placement_gpu(p, 0));
    assert_int_equal(ns_cluster_server_of_gpu(c, ns_placement_gpu(p, 1)), s0);
    seen[s0] = 1;
    assert_int_equal(ns_titan_place(c, j, o, p), NS_OK);
    assert_int_equal(ns_cluster_server_of_gpu(c, ns_placement_gpu(p, 0)), s0);
  }
  assert_true(seen[0] + seen[1] + seen[2] + seen[3] >= 3);
  ns_placement_free(p);
  ns_titan_opts_free(o);
  ns_job_free(j);
  ns_cluster_free(c);
}

/* ---- random instances --------------------------------------------------------- */

static uint64_t rng_state;
static uint32_t rnd(uint32_t n) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(rng_state >> 33) % n;
}

/* A random small instance: up to 6 machines, random background load. */
static ns_cluster *random_cluster(int *single_leaf) {
  int leaves = 1 + (int)rnd(2), spl = 2 + (int)rnd(2), gps = 2 + (int)rnd(3);
  if (leaves * spl > 6)
    spl = 3;
  int spines = leaves > 1 ? (int)rnd(3) : 0;
  ns_cluster *c = ns_cluster_new_leaf_spine(leaves, spines, spl, gps, 1, 100);
  int busy[64], nb = 0;
  for (int g = 0; g < ns_cluster_gpu_count(c); g++)
    if (rnd(10) < 4)
      busy[nb++] = g;
  assert_int_equal(ns_cluster_occupy(c, busy, (size_t)nb), NS_OK);
  *single_leaf = leaves == 1;
  return c;
}

/* How Titan fared against the exhaustive oracle over random instances. */
typedef struct tally {
  int instances, solved, missed, exact;
} tally;

/* Runs Titan on (c, j) with o (freed here) and holds the result against
   the oracle: `found` says whether a feasible placement exists and `opt`
   is the best one. A placement must satisfy every constraint
   (check_placement) and can never beat opt; NS_ENOSPACE is the only other
   answer, and counts as missed when a placement exists. *got receives the
   placement's objective on NS_OK. */
static int vs_oracle(ns_cluster *c, ns_job *j, ns_titan_opts *o, const inst *in, int *mach,
                     int found, obj opt, tally *t, obj *got) {
  ns_placement *p = ns_placement_new();
  int rc = ns_titan_place(c, j, o, p);
  t->instances++;
  if (rc == NS_OK) {
    assert_true(found); /* never returns an infeasible placement */
    check_placement(in, p, mach);
    *got = objective(in, mach);
    assert_false(obj_less(*got, opt));
    t->exact += got->idle_used == opt.idle_used && got->used == opt.used;
    t->solved++;
  } else {
    assert_int_equal(rc, NS_ENOSPACE);
    t->missed += found;
  }
  ns_placement_free(p);
  ns_titan_opts_free(o);
  return rc;
}

/* Theorems 4-5 in the remaining-machines form of Eq. 3 (C_max =
   max(|S|, |N|)): greedy >= (1 - 1/e) optimum. When the bandwidth
   constraint cannot bind (one leaf, one flow per worker per phase) the
   greedy is exact in (O1, O2): non-idle capacity is used first and
   largest-first covers a demand with the fewest machines. */
static void test_random_vs_exhaustive(void **state) {
  (void)state;
  rng_state = 42;
  const double bound = 1 - exp(-1);
  tally t = {0, 0, 0, 0};
  for (int it = 0; it < 60; it++) {
    int single;
    ns_cluster *c = random_cluster(&single);
    int fr = ns_cluster_free_gpu_count(c);
    if (fr < 2) {
      ns_cluster_free(c);
      continue;
    }
    int w = 2 + (int)rnd((uint32_t)(fr < 6 ? fr - 1 : 5));
    ns_collective coll = (ns_collective)rnd(4);
    ns_job *j = ns_job_new("r", w);
    ns_job_set_collective(j, coll);
    ns_job_set_model_bytes(j, 1 << 20);
    inst in;
    inst_load(&in, c, j);
    int mach[MAXW], cnt[MAXM] = {0};
    obj opt = {0, 0, 0};
    int found = exhaustive(&in, 0, mach, cnt, &opt, 0);
    ns_titan_opts *o = ns_titan_opts_new();
    ns_titan_opts_set_seed(o, (uint64_t)it);
    obj got;
    if (vs_oracle(c, j, o, &in, mach, found, opt, &t, &got) == NS_OK) {
      double cmax = in.M > w ? in.M : w;
      assert_true(cmax - got.idle_used >= bound * (cmax - opt.idle_used) - 1e-9);
      assert_true(cmax - got.used >= bound * (cmax - opt.used) - 1e-9);
      int nobind = single && coll != NS_COLL_TREE;
      if (nobind) {
        assert_int_equal(got.idle_used, opt.idle_used);
        assert_int_equal(got.used, opt.used);
      }
    }
    inst_free(&in);
    ns_job_free(j);
    ns_cluster_free(c);
  }
  printf("    titan vs exhaustive: %d instances, %d placed, %d exact in (O1,O2), "
         "%d feasible but not found\n", t.instances, t.solved, t.exact, t.missed);
  assert_true(t.instances >= 40);
  assert_int_equal(t.missed, 0);
}

/* ---- pair bandwidth P_{s,s'} and the phase budget (issue 17) --------------- */

typedef struct pair_tab {
  int M;
  double gbps[MAXM * MAXM];
} pair_tab;

static double pair_lookup(int a, int b, void *user) {
  const pair_tab *t = user;
  return t->gbps[a * t->M + b];
}

static void pair_fill(pair_tab *t, int M, double gbps) {
  t->M = M;
  for (int i = 0; i < M * M; i++)
    t->gbps[i] = gbps;
}

/* Servers (sorted, distinct) that host the placement's workers. */
static int servers_of(const ns_cluster *c, const ns_placement *p, int *srv) {
  int n = 0;
  for (size_t i = 0; i < ns_placement_gpu_count(p); i++) {
    int s = ns_cluster_server_of_gpu(c, ns_placement_gpu(p, i)), seen = 0;
    for (int k = 0; k < n; k++)
      seen |= srv[k] == s;
    if (!seen)
      srv[n++] = s;
  }
  for (int i = 1; i < n; i++) /* insertion sort */
    for (int k = i; k > 0 && srv[k - 1] > srv[k]; k--) {
      int t = srv[k];
      srv[k] = srv[k - 1], srv[k - 1] = t;
    }
  return n;
}

/* Fig. 1 with ample P (every pair INFINITY) is Fig. 1: {W1,W3} on machine
   2, {W2,W4} on machine 3, cross traffic K. P(2,3) = 0 (servers 1 and 2
   here) forbids that split: the non-idle machines left that hold 4
   workers are servers 1 and 3 (3 + 1 free GPUs), so O1 stays 0. P = 0
   everywhere forbids any split: the idle machine takes the whole job.
   Restoring the default (NULL) gives Fig. 1 again. */
static void test_pair_bandwidth_fig1(void **state) {
  (void)state;
  const uint64_t K = 1 << 20;
  ns_cluster *c = fig1_cluster();
  ns_job *j = hd_job(4, K);
  ns_titan_opts *o = ns_titan_opts_new();
  ns_placement *p = ns_placement_new();
  static pair_tab tab;
  int srv[4];
  pair_fill(&tab, 4, INFINITY);
  assert_int_equal(ns_titan_opts_set_pair_bandwidth_fn(o, pair_lookup, &tab), NS_OK);
  assert_int_equal(ns_titan_place(c, j, o, p), NS_OK);
  assert_int_equal(ns_cluster_server_of_gpu(c, ns_placement_gpu(p, 0)), 1);
  assert_int_equal(ns_cluster_server_of_gpu(c, ns_placement_gpu(p, 2)), 1);
  assert_int_equal(ns_cluster_server_of_gpu(c, ns_placement_gpu(p, 1)), 2);
  assert_int_equal(ns_cluster_server_of_gpu(c, ns_placement_gpu(p, 3)), 2);
  assert_int_equal(paper_cross(j, p), K);

  tab.gbps[1 * 4 + 2] = tab.gbps[2 * 4 + 1] = 0;
  assert_int_equal(ns_titan_place(c, j, o, p), NS_OK);
  assert_int_equal(servers_of(c, p, srv), 2);
  assert_int_equal(srv[0], 1);
  assert_int_equal(srv[1], 3);

  pair_fill(&tab, 4, 0);
  assert_int_equal(ns_titan_place(c, j, o, p), NS_OK);
  assert_int_equal(servers_of(c, p, srv), 1);
  assert_int_equal(srv[0], 0);

  assert_int_equal(ns_titan_opts_set_pair_bandwidth_fn(o, NULL, NULL), NS_OK);
  assert_int_equal(ns_titan_place(c, j, o, p), NS_OK);
  assert_int_equal(paper_cross(j, p), K);
  assert_int_equal(servers_of(c, p, srv), 2);
  ns_placement_free(p);
  ns_titan_opts_free(o);
  ns_job_free(j);
  ns_cluster_free(c);
}

/* Places j on c with a 1 ms phase budget; returns the status and the
   servers used (count in *n). */
static int place_budget(ns_cluster *c, ns_job *j, const pair_tab *tab, int *srv, int *n) {
  ns_titan_opts *o = ns_titan_opts_new();
  ns_placement *p = ns_placement_new();
  assert_int_equal(ns_titan_opts_set_phase_budget_ms(o, 1.0), NS_OK);
  if (tab)
    assert_int_equal(ns_titan_opts_set_pair_bandwidth_fn(o, pair_lookup, (void *)tab), NS_OK);
  int rc = ns_titan_place(c, j, o, p);
  *n = rc == NS_OK ? servers_of(c, p, srv) : 0;
  ns_placement_free(p);
  ns_titan_opts_free(o);
  return rc;
}

/* K and the link rate decide, with a 1 ms phase budget (by hand). Fig. 1's
   cluster: servers 0..3 with 4, 3, 2, 1 free GPUs. One port moves
   link_gbps x 1 ms = 12.5 MB at 100 Gbps, 6.25 MB at 50 Gbps. A 4-worker
   HD sends K/2, K/4, K/4, K/2 to partners n^2, n^1, n^1, n^2. Titan's
   split {W1,W3}|{W2,W4} on servers 1|2 keeps phases 0 and 3 inside
   servers; in phases 1-2 server 2 (2 ports) sends two K/4 flows.
   - K = 40 MB, 100 Gbps: 20 MB <= 25 MB: spread, servers {1, 2}.
   - K = 60 MB, 100 Gbps: 30 MB > 25 MB; a 3+1 split makes a lone worker
     send K/2 = 30 MB through at most 3 ports... of server 3 (1 port) or
     server 2 (2 ports): > 12.5 / 25 MB. No split of the non-idle servers
     fits: consolidated on the idle server 0.
   - K = 40 MB, 50 Gbps: 20 MB > 12.5 MB: consolidated on server 0.
   - K = 100 MB with server 0 busy too (3 free GPUs on servers 0 and 1):
     a pair of workers sends 2 x 25 MB > 3 ports x 12.5 MB, a lone worker
     K/2 = 50 MB > 37.5 MB: no placement, NS_ENOSPACE (wait); without a
     budget the same job is placed.
   - With P_{a,b} = 100 Gbps for every pair and K = 60 MB: servers 1 and
     2 exchange 2 x 15 MB = 30 MB per direction in phase 1 > 12.5 MB:
     consolidated on server 0; K = 20 MB: 10 MB <= 12.5 MB: spread. */
static void test_budget_model_and_link_rate(void **state) {
  (void)state;
  int srv[4], n;
  static const int busy[] = {4, 8, 9, 12, 13, 14};
  ns_cluster *fast = fig1_cluster();
  ns_cluster *slow = ns_cluster_new_leaf_spine(1, 0, 4, 4, 0, 50);
  assert_int_equal(ns_cluster_occupy(slow, busy, 6), NS_OK);
  ns_job *k40 = hd_job(4, 40000000), *k60 = hd_job(4, 60000000);
  ns_job *k100 = hd_job(4, 100000000), *k20 = hd_job(4, 20000000);

  assert_int_equal(place_budget(fast, k40, NULL, srv, &n), NS_OK);
  assert_int_equal(n, 2);
  assert_int_equal(srv[0], 1);
  assert_int_equal(srv[1], 2);
  assert_int_equal(place_budget(fast, k60, NULL, srv, &n), NS_OK);
  assert_int_equal(n, 1);
  assert_int_equal(srv[0], 0);
  assert_int_equal(place_budget(slow, k40, NULL, srv, &n), NS_OK);
  assert_int_equal(n, 1);
  assert_int_equal(srv[0], 0);

  static pair_tab tab;
  pair_fill(&tab, 4, 100);
  assert_int_equal(place_budget(fast, k60, &tab, srv, &n), NS_OK);
  assert_int_equal(n, 1);
  assert_int_equal(srv[0], 0);
  assert_int_equal(place_budget(fast, k20, &tab, srv, &n), NS_OK);
  assert_int_equal(n, 2);

  int g0 = 0;
  assert_int_equal(ns_cluster_occupy(fast, &g0, 1), NS_OK);
  assert_fails_with(place_budget(fast, k100, NULL, srv, &n), NS_ENOSPACE, "bandwidth");
  ns_titan_opts *o = ns_titan_opts_new();
  ns_placement *p = ns_placement_new();
  assert_int_equal(ns_titan_place(fast, k100, o, p), NS_OK); /* no budget: K does not matter */
  ns_placement_free(p);
  ns_titan_opts_free(o);
  ns_job_free(k20);
  ns_job_free(k40);
  ns_job_free(k60);
  ns_job_free(k100);
  ns_cluster_free(fast);
  ns_cluster_free(slow);
}

static double pair_nan(int a, int b, void *user) {
  (void)a, (void)b, (void)user;
  return NAN;
}

static void test_pair_budget_bad_input(void **state) {
  (void)state;
  ns_titan_opts *o = ns_titan_opts_new();
  assert_fails_with(ns_titan_opts_set_phase_budget_ms(o, 0), NS_EINVAL, "ms");
  assert_fails_with(ns_titan_opts_set_phase_budget_ms(o, -1), NS_EINVAL, "ms");
  assert_fails_with(ns_titan_opts_set_phase_budget_ms(o, NAN), NS_EINVAL, "ms");
  assert_fails_with(ns_titan_opts_set_phase_budget_ms(o, INFINITY), NS_EINVAL, "ms");
  assert_fails_with(ns_titan_opts_set_phase_budget_ms(NULL, 1), NS_EINVAL, "o");
  assert_fails_with(ns_titan_opts_set_pair_bandwidth_fn(NULL, pair_nan, NULL), NS_EINVAL, "o");
  /* a callback answering NaN is bad input: NS_EINVAL, out untouched */
  ns_cluster *c = fig1_cluster();
  ns_job *j = hd_job(4, 1 << 20);
  ns_placement *p = ns_placement_new();
  ns_placement_add_gpu(p, 7);
  assert_int_equal(ns_titan_opts_set_pair_bandwidth_fn(o, pair_nan, NULL), NS_OK);
  assert_fails_with(ns_titan_place(c, j, o, p), NS_EINVAL, "pair bandwidth fn returned nan");
  assert_int_equal(ns_placement_gpu_count(p), 1);
  assert_int_equal(ns_placement_gpu(p, 0), 7);
  ns_placement_free(p);
  ns_job_free(j);
  ns_cluster_free(c);
  ns_titan_opts_free(o);
}

/* Random small instances with random P_{a,b} in {0, 10, 50, 100, inf}
   Gbps and a random budget (none, or 0.05-1 ms): Titan's placement always
   satisfies Eq. 1 as checked by the oracle, is never better than the
   exhaustive optimum, and P(a, b) = 0 never separates two workers that
   exchange data (the oracle's check). */
static void test_pair_random_vs_exhaustive(void **state) {
  (void)state;
  rng_state = 4242;
  static const double rates[] = {0, 10, 50, 100, INFINITY};
  tally t = {0, 0, 0, 0};
  static pair_tab tab;
  for (int it = 0; it < 60; it++) {
    int single;
    ns_cluster *c = random_cluster(&single);
    int fr = ns_cluster_free_gpu_count(c);
    if (fr < 2) {
      ns_cluster_free(c);
      continue;
    }
    int M = ns_cluster_server_count(c);
    tab.M = M;
    for (int a = 0; a < M; a++)
      for (int b = 0; b < M; b++)
        tab.gbps[a * M + b] = rates[rnd(5)];
    int w = 2 + (int)rnd((uint32_t)(fr < 6 ? fr - 1 : 5));
    ns_job *j = ns_job_new("r", w);
    ns_job_set_collective(j, (ns_collective)rnd(4));
    ns_job_set_model_bytes(j, 1u << (18 + rnd(8)));
    inst in;
    inst_load(&in, c, j);
    in.pair = tab.gbps;
    in.budget_ms = rnd(2) ? 0.05 * (1 + rnd(20)) : 0;
    int mach[MAXW], cnt[MAXM] = {0};
    obj opt = {0, 0, 0};
    int found = exhaustive(&in, 0, mach, cnt, &opt, 0);
    ns_titan_opts *o = ns_titan_opts_new();
    ns_titan_opts_set_seed(o, (uint64_t)it);
    assert_int_equal(ns_titan_opts_set_pair_bandwidth_fn(o, pair_lookup, &tab), NS_OK);
    if (in.budget_ms > 0)
      assert_int_equal(ns_titan_opts_set_phase_budget_ms(o, in.budget_ms), NS_OK);
    obj got;
    vs_oracle(c, j, o, &in, mach, found, opt, &t, &got);
    inst_free(&in);
    ns_job_free(j);
    ns_cluster_free(c);
  }
  printf("    titan with P_{a,b} vs exhaustive: %d instances, %d placed, %d exact in (O1,O2), "
         "%d feasible but not found\n", t.instances, t.solved, t.exact, t.missed);
  assert_true(t.instances >= 40 && t.solved >= 10);
  assert_int_equal(t.missed, 0);
}

/* Same seed, same placement; the cluster is never modified. */
static void test_deterministic_for_seed(void **state) {
  (void)state;
  rng_state = 7;
  for (int it = 0; it < 20; it++) {
    int single;
    ns_cluster *c = random_cluster(&single);
    int fr = ns_cluster_free_gpu_count(c);
    if (fr < 1) {
      ns_cluster_free(c);
      continue;
    }
    ns_job *j = hd_job(1 + (int)rnd((uint32_t)fr), 4096);
    ns_titan_opts *o = ns_titan_opts_new();
    ns_titan_opts_set_seed(o, 99);
    ns_placement *a = ns_placement_new(), *b = ns_placement_new();
    int ra = ns_titan_place(c, j, o, a), rb = ns_titan_place(c, j, o, b);
    assert_int_equal(ra, rb);
    assert_int_equal(ns_cluster_free_gpu_count(c), fr);
    assert_int_equal(ns_placement_gpu_count(a), ns_placement_gpu_count(b));
    for (size_t i = 0; i < ns_placement_gpu_count(a); i++)
      assert_int_equal(ns_placement_gpu(a, i), ns_placement_gpu(b, i));
    if (ra == NS_OK)
      assert_int_equal(ns_cluster_commit(c, j, a), NS_OK);
    ns_placement_free(a);
    ns_placement_free(b);
    ns_titan_opts_free(o);
    ns_job_free(j);
    ns_cluster_free(c);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fig1_titan),
      cmocka_unit_test(test_fig1_baselines),
      cmocka_unit_test(test_prefers_non_idle_then_fewest_machines),
      cmocka_unit_test(test_zero_bandwidth_between_leaves),
      cmocka_unit_test(test_tree_nic_ports_bind),
      cmocka_unit_test(test_oversubscribed_uplinks_bind),
      cmocka_unit_test(test_reserved_uplinks_are_zero_bandwidth),
      cmocka_unit_test(test_seed_breaks_ties),
      cmocka_unit_test(test_bad_input),
      cmocka_unit_test(test_non_power_of_two_hd),
      cmocka_unit_test(test_random_vs_exhaustive),
      cmocka_unit_test(test_deterministic_for_seed),
      cmocka_unit_test(test_pair_bandwidth_fig1),
      cmocka_unit_test(test_budget_model_and_link_rate),
      cmocka_unit_test(test_pair_budget_bad_input),
      cmocka_unit_test(test_pair_random_vs_exhaustive),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
