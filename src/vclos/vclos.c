/*
 * src/vclos/vclos.c - vClos (§6, Algorithm 1/3) and the entry point that
 * dispatches to OCS-vClos (§7, Algorithm 2/4) when the cluster has an OCS
 * layer.
 *
 * Stage 0 (N <= T): one server, best fit: the server with the fewest free
 *   GPUs that still has N (§6 "least remaining number of GPUs"); ties go
 *   to the lowest server id; the lowest free GPU ids are used.
 * Stage 1 (N > T): one leaf with >= ceil(N/T) idle servers, the one with
 *   fewest idle servers (Alg. 1 lines 4-11). Reading: "more than N_i/T
 *   idle servers" means at least ceil(N/T) (ALGORITHMS.md). The job gets
 *   exactly N GPUs, filling the lowest idle servers in order.
 * Stage 2: a virtual Clos of l leaves x s spines (Alg. 3). Readings:
 *   - l starts at max(1, 2^floor(log2 N) / S) (integer division) and
 *     doubles while l <= L (Alg. 4 line 3); then every other l in 2..L
 *     (ascending) is tried, so that a fabric whose leaf count is not a
 *     power of two still places jobs that fit (6 leaves: l = 3, 5, 6). l = 1
 *     is Stage 1's single leaf (the paper's "s = (l = 1) ? 0"): skipped.
 *   - N_new: the paper's "N must be prime" is garbled; a virtual leaf takes
 *     s/T whole idle servers, so N must factor as l * s with s a multiple
 *     of T; otherwise s = T * ceil(N / (l T)) and the job gets
 *     N_new = l * s GPUs (commit accepts a placement larger than the job).
 *     Appendix A.2's "as large as possible to a power of 2" concerns the
 *     leaf ports' neatness, not the size; halving-doubling on N not a
 *     power of two is the pre-step scheme (collective.c), made
 *     contention-free by the interleaved worker order of
 *     hd_leaf_of_worker (with the leaf-by-leaf order of the paper's proof,
 *     s = 12 on 4 leaves puts two flows on one downlink, found by
 *     tests/unit/test_vclos.c), which needs l = 2^a: halving-doubling
 *     jobs try only power-of-two l. Option power_of_two keeps the former
 *     rule s = T * 2^j, l doubled only.
 *   - a shape is tried only if s <= S (one virtual spine per spine) and
 *     s / T <= servers per leaf. The first l whose ILP/search is feasible
 *     wins (Alg. 3 line 5), even if a later l would cost less.
 *   - NS_EINVAL ("never fits") only when no stage could hold the job on
 *     the empty fabric: no Stage-2 shape, more than one leaf's servers
 *     (and, with an OCS layer, no single spine with N circuits). A job
 *     with no Stage-2 shape that one leaf could hold (fewer spines than
 *     GPUs per server) gets NS_ENOSPACE: it waits for a leaf (issue 28).
 *   - Eq. 2-5 with binary l_n, s_m: at most one virtual leaf per leaf and
 *     one virtual spine per spine, one link per (leaf, spine) pair (A.2
 *     "at most one virtual leaf/virtual spine ... for one training task");
 *     (5)'s r_n is s/T whole idle servers, so leaves with fewer are out.
 *   - objective (6) uses RPN = free leaf links of a spine and RSN = idle
 *     servers of a leaf, both before the decision. Ties: the exact search
 *     keeps the first optimum (cheapest, then lowest ids); CBC breaks ties
 *     its own way, so the two may differ in links but not in objective.
 * Chosen leaves contribute their lowest idle servers; each (chosen leaf,
 * chosen spine) pair reserves its lowest free parallel link. Port i of a
 * virtual leaf (the i-th GPU of the job on that leaf, placement order) is
 * routed through the i-th chosen spine (route.c, §5.2; outside vClos jobs
 * f_m(i) = i mod S).
 * OCS-vClos readings (details in ocs.c and src/core/ocs.c): an OCS is a
 * crossbar of leaf and spine ports; static link (n, m, k) sits on OCS
 * (n*K + m*K + k) mod O; only idle ports are wired; Stage 2 = the spine
 * with the fewest free ports >= N, one circuit per GPU, servers chosen
 * greedily (the paper gives no procedure; the two-leaf spineless case of
 * Fig. 3 is not modelled); Stage 3 = ILP (7)-(12) with binary s_m and
 * aggregated virtual leaves per leaf, always solved by CBC.
 */
#include <stdlib.h>

#include "vclos/internal.h"

/* ---- stage 0 and 1 ---------------------------------------------------------- */

/* §6 Stage 0 / §7.1: best fit on one server. */
static int stage0(const ns_cluster *c, int n, ns_placement *p) {
  int best = -1, best_free = 0;
  for (int sv = 0; sv < c->nservers; sv++) {
    int fr = nsi_free_gpus_on_server(c, sv);
    if (fr >= n && (best < 0 || fr < best_free))
      best = sv, best_free = fr;
  }
  if (best < 0)
    return NS_ENOSPACE;
  return vc_take_gpus(c, best, n, p) < 0 ? NS_ENOMEM : NS_OK;
}

/* Alg. 1 lines 1-11: the leaf with the fewest idle servers among those
   with ceil(N/T) of them. */
static int stage1(const ns_cluster *c, int n, ns_placement *p) {
  int need = (n + c->gpus_per_server - 1) / c->gpus_per_server;
  int best = -1, best_idle = 0;
  for (int leaf = 0; leaf < c->leaves; leaf++) {
    int idle = nsi_idle_servers_on_leaf(c, leaf);
    if (idle >= need && (best < 0 || idle < best_idle))
      best = leaf, best_idle = idle;
  }
  if (best < 0)
    return NS_ENOSPACE;
  p->virtual_leaves = 1;
  return vc_take_idle_servers(c, best, need, n, p);
}

/* ---- stage 2 ---------------------------------------------------------------- */

static int first_free_k(const ns_cluster *c, int leaf, int spine) {
  for (int k = 0; k < c->links_per_pair; k++)
    if (c->link_owner[nsi_link_index(c, leaf, spine, k)] == NULL)
      return k;
  return -1;
}

/* Virtual leaf (0..l-1) of worker w in the halving-doubling layout of an
   N = l * s job, l = 2^a: the pre-step folds worker 2i into 2i+1 (i < r,
   r = N - 2^floor(log2 N), src/core/collective.c), the core runs on
   virtual ranks v (2i+1 -> i, w >= 2r -> w - r), and v's low a bits name
   the leaf. Every core exchange v <-> v ^ 2^t then either stays in a leaf
   or pairs the whole of one leaf with the whole of another at equal
   in-leaf rank, a leaf-wise permutation (Lemma 5.1); a folded worker sits
   on its partner's leaf. Each leaf gets 2^floor(log2 s) core ranks and
   s - 2^floor(log2 s) folded ones: s workers. */
static int hd_leaf_of_worker(int w, int l, int n) {
  int pow2 = 1;
  while (pow2 <= n / 2)
    pow2 *= 2;
  int r = n - pow2, v = w < 2 * r ? w / 2 : w - r;
  return v % l;
}

/* Fills p from a Stage-2 choice (Alg. 3 lines 6-8). GPU order (= worker
   rank): leaf by leaf, except for halving-doubling jobs under the paper's
   sizing, which get the interleaved layout of hd_leaf_of_worker. */
static int build_vclos(const ns_cluster *c, const vc_choice *ch, int l, int s, int hd_layout,
                       ns_placement *p) {
  p->virtual_leaves = l;
  p->virtual_spines = s;
  ns_placement per_leaf = {0};
  int rc = NS_OK;
  for (int i = 0; i < l && rc == NS_OK; i++) {
    rc = vc_take_idle_servers(c, ch->leaves[i], s / c->gpus_per_server, s,
                              hd_layout ? &per_leaf : p);
    for (int j = 0; j < s && rc == NS_OK; j++) {
      int k = first_free_k(c, ch->leaves[i], ch->spines[j]);
      if (k < 0) /* the solvers only pick pairs with a free link */
        rc = nsi_fail(NS_ESOLVER, "ns_vclos_place: internal: no free link (leaf %d, spine %d)",
                      ch->leaves[i], ch->spines[j]);
      else
        rc = nsi_placement_add_link(p, ch->leaves[i], ch->spines[j], k);
    }
  }
  if (rc == NS_OK && hd_layout) { /* per_leaf holds leaf i's s GPUs at [i*s, i*s + s) */
    int *next = calloc((size_t)l, sizeof *next);
    if (next == NULL)
      rc = nsi_fail(NS_ENOMEM, "ns_vclos_place: out of memory");
    for (int w = 0; w < l * s && rc == NS_OK; w++) {
      int a = hd_leaf_of_worker(w, l, l * s);
      if (ns_placement_add_gpu(p, per_leaf.gpus[(size_t)a * (size_t)s + (size_t)next[a]++]) < 0)
        rc = nsi_fail(NS_ENOMEM, "ns_vclos_place: out of memory");
    }
    free(next);
  }
  free(per_leaf.gpus);
  free(per_leaf.links);
  return rc;
}

static int solve_shape(const vc_fabric *f, const ns_vclos_opts *o, int l, int s, vc_choice *ch,
                       const char *fn) {
  return o->use_milp ? vc_ilp(f, l, s, o->time_limit_s, ch, fn) : vc_search(f, l, s, ch, fn);
}

/* Alg. 3: try l = l0, 2 l0, ... <= L. NS_OK, NS_ENOSPACE (wait), NS_EINVAL
   (no shape fits this fabric at all) or a solver error. */
static int stage2(const ns_cluster *c, const ns_job *job, const ns_vclos_opts *o,
                  ns_placement *p, const char *fn) {
  const int n = job->gpus, T = c->gpus_per_server;
  vc_fabric f;
  NSI_TRY(vc_fabric_build(&f, c, fn));
  int *buf = malloc(((size_t)c->leaves + (size_t)c->spines) * sizeof *buf);
  int rc = buf ? NS_ENOSPACE : nsi_fail(NS_ENOMEM, "%s: out of memory", fn), shapes = 0, l, s;
  vc_size_rule rule = vc_rule_for(job, o);
  vc_shapes it;
  vc_shapes_begin(&it, c, n, rule);
  while (buf && rc == NS_ENOSPACE && vc_shapes_next(&it, &l, &s)) {
    shapes++;
    vc_choice ch = {buf, buf + c->leaves, 0};
    rc = solve_shape(&f, o, l, s, &ch, fn);
    if (rc == NS_OK)
      rc = build_vclos(c, &ch, l, s, rule == VC_SIZE_PAPER_POW2_L, p);
  }
  if (rc == NS_ENOSPACE && shapes == 0 && !vc_fits_one_leaf(c, n))
    rc = nsi_fail(NS_EINVAL, "%s: job '%s' (%d GPUs) fits no l x s virtual Clos of this fabric "
                             "(%d leaves x %d spines, %d servers of %d GPUs per leaf)", fn,
                  job->name, n, c->leaves, c->spines, c->servers_per_leaf, T);
  else if (rc == NS_ENOSPACE && shapes == 0) /* Stage 1 holds it once a leaf has room */
    rc = nsi_fail(NS_ENOSPACE, "%s: no leaf has %d idle servers now (no l x s virtual Clos of "
                               "this fabric fits %d GPUs: %d spines, %d GPUs per server)", fn,
                  (n + T - 1) / T, n, c->spines, T);
  else if (rc == NS_ENOSPACE)
    rc = nsi_fail(NS_ENOSPACE, "%s: no leaf has %d idle servers and no virtual Clos for %d GPUs "
                               "is free now", fn, (n + T - 1) / T, n);
  free(buf);
  vc_fabric_free(&f);
  return rc;
}

/* ---- entry point ------------------------------------------------------------ */

static int check_args(const ns_cluster *c, const ns_job *job, const ns_vclos_opts *o,
                      const ns_placement *out, const char *fn) {
  NSI_TRY(nsi_check_ptr(c, fn, "c"));
  NSI_TRY(nsi_check_ptr(job, fn, "job"));
  NSI_TRY(nsi_check_ptr(o, fn, "o"));
  NSI_TRY(nsi_check_ptr(out, fn, "out"));
  return nsi_check_job_fits(c, job, fn); /* never fits: NS_EINVAL (core.h) */
}

/* Stages 0-1, then vClos Stage 2 or OCS-vClos Stages 2-3, into the empty
   placement p; *stage set on success. */
static int place_vclos(const ns_cluster *c, const ns_job *job, const ns_vclos_opts *o,
                       ns_placement *p, int *stage, const char *fn) {
  const int n = job->gpus, T = c->gpus_per_server;
  if (n <= T) {
    *stage = 0;
    int rc = stage0(c, n, p);
    if (rc == NS_ENOSPACE)
      return nsi_fail(NS_ENOSPACE, "%s: no server has %d free GPUs now", fn, n);
    return rc == NS_ENOMEM ? nsi_fail(NS_ENOMEM, "%s: out of memory", fn) : rc;
  }
  *stage = 1;
  int rc = stage1(c, n, p);
  if (rc != NS_ENOSPACE)
    return rc == NS_ENOMEM ? nsi_fail(NS_ENOMEM, "%s: out of memory", fn) : rc;
  if (c->spines == 0) {
    if (n > c->servers_per_leaf * T)
      return nsi_fail(NS_EUNSUPPORTED, "%s: job '%s' (%d GPUs) needs Stage 2 (a virtual Clos "
                                       "across leaves) but the cluster has no spines", fn,
                      job->name, n);
    return nsi_fail(NS_ENOSPACE, "%s: no leaf has %d idle servers now (no spines for Stage 2)",
                    fn, (n + T - 1) / T);
  }
  ns_placement_clear(p);
  if (c->ocs_count > 0) /* §7: OCS-vClos Stages 2-3 */
    return vc_place_ocs(c, job, o, p, stage, fn);
  *stage = 2;
  return stage2(c, job, o, p, fn);
}

int ns_vclos_place_ex(const ns_cluster *c, const ns_job *job, const ns_vclos_opts *o,
                      ns_placement *out, int *stage) {
  static const char *fn = "ns_vclos_place";
  NSI_TRY(check_args(c, job, o, out, fn));
  ns_placement tmp = {0};
  int st = -1, rc = place_vclos(c, job, o, &tmp, &st, fn);
  if (rc == NS_OK) {
    tmp.bound = 1;
    tmp.servers_per_leaf = c->servers_per_leaf;
    tmp.gpus_per_server = c->gpus_per_server;
    rc = nsi_placement_copy(out, &tmp); /* out changes only on success */
    if (rc == NS_OK && stage)
      *stage = st;
  }
  free(tmp.gpus);
  free(tmp.links);
  return rc;
}

int ns_vclos_place(const ns_cluster *c, const ns_job *job, const ns_vclos_opts *o,
                   ns_placement *out) {
  return ns_vclos_place_ex(c, job, o, out, NULL);
}
