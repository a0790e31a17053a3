/*
 * src/vclos/ocs.c - OCS-vClos Stages 2 and 3 (§7.2, §7.3, Algorithm 2/4,
 * Appendix A.3) over the OCS port model of src/core/ocs.c: an OCS is a
 * crossbar joining any of its free leaf ports to any of its free spine
 * ports; only idle ports are (re)wired.
 *
 * Stage 2 (§7.2, Alg. 2 lines 13-22): the job goes under a single spine.
 *   Readings: the spine with the fewest free ports among those with at
 *   least N ("freePort > N" read as >= N: N circuits suffice); each GPU
 *   gets its own circuit to that spine (a 1-spine virtual Clos: l = N
 *   virtual leaves of one port, s = 1). Servers are taken whole and idle,
 *   leaves with the fewest idle servers first (objective (6)'s
 *   preference), each circuit through the first OCS where the leaf and the
 *   spine both have a free port. The paper gives no procedure for "choose
 *   the servers"; this greedy may miss a feasible assignment, in which case
 *   the next spine is tried and then Stage 3. The two-leaf special case of
 *   Fig. 3 (leaf-to-leaf circuits without a spine) is not modelled: the
 *   core OCS model wires leaves to spines only.
 * Stage 3 (§7.3, Alg. 4, ILP (7)-(12)): an l x s virtual Clos where a leaf
 *   may host several virtual leaves. Readings, since (7)-(12) are garbled
 *   in places: s_m is binary (with (9) min{L_{n,a}, s_m} <= 1 and (10),
 *   sum_m s_m = s forces it); virtual leaves of one leaf are
 *   interchangeable, so they are aggregated into an integer v_n (the
 *   paper's l_n = sum_a L_{n,a}); (8) is read as v_n * s = T * r_n with
 *   r_n <= R_n; (11) keeps its two port-capacity rows (per leaf and OCS,
 *   per spine and OCS) - its first row is implied by them. The product
 *   v_n * s_m of "each virtual leaf links once to each chosen spine" is
 *   linearised with big-M = max v_n. Objective (12) = (6). This stage is
 *   always solved by CBC (the OCS assignment is a 3-index transportation
 *   problem; no exact combinatorial search is offered for it). Shapes
 *   l x s follow the vClos rule (vclos.c).
 */
#include <stdlib.h>
#include <string.h>

#include "solver/milp.h"
#include "vclos/internal.h"

/* Free OCS ports: fl[n*O + o] of leaf n, fs[m*O + o] of spine m. */
typedef struct vc_ocs_state {
  int L, S, O, T, U;
  int *fl, *fs, *idle;
  int64_t *rpn; /* RPN(S_m) = free ports of spine m */
} vc_ocs_state;

static void ocs_state_free(vc_ocs_state *st) {
  free(st->fl);
  free(st->fs);
  free(st->idle);
  free(st->rpn);
}

static int ocs_state_build(const ns_cluster *c, vc_ocs_state *st, const char *fn) {
  *st = (vc_ocs_state){c->leaves, c->spines, c->ocs_count, c->gpus_per_server,
                       c->spines * c->links_per_pair, NULL, NULL, NULL, NULL};
  st->fl = calloc((size_t)st->L * (size_t)st->O, sizeof *st->fl);
  st->fs = calloc((size_t)st->S * (size_t)st->O, sizeof *st->fs);
  st->idle = calloc((size_t)st->L, sizeof *st->idle);
  st->rpn = calloc((size_t)st->S, sizeof *st->rpn);
  if (!st->fl || !st->fs || !st->idle || !st->rpn) {
    ocs_state_free(st);
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  }
  for (int n = 0; n < st->L; n++) {
    st->idle[n] = nsi_idle_servers_on_leaf(c, n);
    for (int p = 0; p < st->U; p++)
      if (c->ocs_leaf_port[(size_t)n * (size_t)st->U + (size_t)p] == NULL)
        st->fl[(size_t)n * st->O + nsi_ocs_of_leaf_port(c, n, p)]++;
  }
  for (int m = 0; m < st->S; m++)
    for (int o = 0; o < st->O; o++) {
      int f = nsi_ocs_spine_ports(c, m, o) - c->ocs_spine_used[(size_t)m * st->O + o];
      st->fs[(size_t)m * st->O + o] = f;
      st->rpn[m] += f;
    }
  return NS_OK;
}

/* Lowest free port of `leaf` on OCS `o` not yet taken by p. */
static int free_leaf_port(const ns_cluster *c, const ns_placement *p, int leaf, int o) {
  int U = c->spines * c->links_per_pair;
  for (int port = 0; port < U; port++) {
    if (nsi_ocs_of_leaf_port(c, leaf, port) != o ||
        c->ocs_leaf_port[(size_t)leaf * (size_t)U + (size_t)port] != NULL)
      continue;
    int taken = 0;
    for (size_t i = 0; i < p->nlinks && !taken; i++)
      taken = p->links[i].leaf == leaf && p->links[i].k == port;
    if (!taken)
      return port;
  }
  return -1;
}

/* ---- Stage 2: one spine ----------------------------------------------------- */

/* Leaves by (idle servers, id): objective (6) prefers the fullest. */
static void leaves_by_idle(const vc_ocs_state *st, int *order) {
  for (int i = 0; i < st->L; i++)
    order[i] = i;
  for (int i = 1; i < st->L; i++) { /* insertion sort: stable, L is small */
    int x = order[i], j = i;
    while (j > 0 && st->idle[order[j - 1]] > st->idle[x])
      order[j] = order[j - 1], j--;
    order[j] = x;
  }
}

/* Takes `g` circuits from leaf n to spine m out of the local free-port
   copies (fl row of n, fs row of m), recording the chosen OCS of each
   into ocs_out. 0 if impossible (copies untouched). */
static int take_circuits(const vc_ocs_state *st, int *fl, int *fs, int g, int *ocs_out) {
  int avail = 0;
  for (int o = 0; o < st->O; o++)
    avail += fl[o] < fs[o] ? fl[o] : fs[o];
  if (avail < g)
    return 0;
  for (int i = 0, o = 0; i < g; i++) {
    while (fl[o] == 0 || fs[o] == 0)
      o++;
    fl[o]--, fs[o]--;
    ocs_out[i] = o;
  }
  return 1;
}

/* Greedy server choice under spine m; fills p on success. */
static int single_spine(const ns_cluster *c, const vc_ocs_state *st, int m, int n_gpus,
                        const int *order, int *fl, int *fs, int *ocs_of, ns_placement *p) {
  memcpy(fl, st->fl, (size_t)st->L * (size_t)st->O * sizeof *fl);
  memcpy(fs, st->fs + (size_t)m * st->O, (size_t)st->O * sizeof *fs);
  ns_placement_clear(p);
  int left = n_gpus;
  for (int i = 0; i < st->L && left > 0; i++) {
    int n = order[i];
    for (int sv = n * c->servers_per_leaf; sv < (n + 1) * c->servers_per_leaf && left > 0; sv++) {
      int g = left < st->T ? left : st->T;
      if (nsi_free_gpus_on_server(c, sv) != st->T ||
          !take_circuits(st, fl + (size_t)n * st->O, fs, g, ocs_of))
        continue;
      for (int k = 0; k < g; k++)
        NSI_TRY(ns_placement_add_gpu(p, sv * st->T + k));
      for (int k = 0; k < g; k++) {
        int port = free_leaf_port(c, p, n, ocs_of[k]);
        if (port < 0)
          return nsi_fail(NS_ESOLVER, "ns_vclos_place: internal: leaf %d lost a port", n);
        NSI_TRY(nsi_placement_add_link(p, n, m, port));
      }
      left -= g;
    }
  }
  return left == 0 ? NS_OK : NS_ENOSPACE;
}

/* Alg. 2 lines 13-22: spines with >= N free ports, fewest first. */
static int stage2_ocs(const ns_cluster *c, const vc_ocs_state *st, int n_gpus, ns_placement *p,
                      const char *fn) {
  int *order = malloc((size_t)st->L * sizeof *order);
  int *fl = malloc((size_t)st->L * (size_t)st->O * sizeof *fl);
  int *fs = malloc((size_t)st->O * sizeof *fs), *ocs_of = malloc((size_t)st->T * sizeof *ocs_of);
  unsigned char *tried = calloc((size_t)st->S, 1);
  int rc = (order && fl && fs && ocs_of && tried) ? NS_ENOSPACE
                                                   : nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  if (rc == NS_ENOSPACE)
    leaves_by_idle(st, order);
  while (rc == NS_ENOSPACE) {
    int best = -1;
    for (int m = 0; m < st->S; m++)
      if (!tried[m] && st->rpn[m] >= n_gpus && (best < 0 || st->rpn[m] < st->rpn[best]))
        best = m;
    if (best < 0)
      break;
    tried[best] = 1;
    rc = single_spine(c, st, best, n_gpus, order, fl, fs, ocs_of, p);
  }
  if (rc == NS_OK)
    p->virtual_leaves = n_gpus, p->virtual_spines = 1;
  else if (rc == NS_ENOSPACE)
    ns_placement_clear(p);
  free(order);
  free(fl);
  free(fs);
  free(ocs_of);
  free(tried);
  return rc;
}

/* 1 if Stage 2's greedy would hold n_gpus under some spine of c's empty
   fabric (every server idle, every port free): the same walk as
   single_spine on counts only. -1 if out of memory. */
static int stage2_fits_empty(const ns_cluster *c, const vc_ocs_state *st, int n_gpus) {
  int *fl = calloc((size_t)st->L * (size_t)st->O, sizeof *fl);
  int *fs = calloc((size_t)st->O, sizeof *fs), *ocs_of = malloc((size_t)st->T * sizeof *ocs_of);
  int fits = fl && fs && ocs_of ? 0 : -1;
  for (int m = 0; m < st->S && fits == 0; m++) {
    long long ports = 0;
    for (int o = 0; o < st->O; o++)
      ports += fs[o] = nsi_ocs_spine_ports(c, m, o);
    if (ports < n_gpus)
      continue;
    memset(fl, 0, (size_t)st->L * (size_t)st->O * sizeof *fl);
    for (int n = 0; n < st->L; n++)
      for (int port = 0; port < st->U; port++)
        fl[(size_t)n * st->O + nsi_ocs_of_leaf_port(c, n, port)]++;
    int left = n_gpus;
    for (int n = 0; n < st->L && left > 0; n++)
      for (int sv = 0; sv < c->servers_per_leaf && left > 0; sv++) {
        int g = left < st->T ? left : st->T;
        if (take_circuits(st, fl + (size_t)n * st->O, fs, g, ocs_of))
          left -= g;
      }
    fits = left == 0;
  }
  free(fl);
  free(fs);
  free(ocs_of);
  return fits;
}

/* ---- Stage 3: the OCS-vClos ILP --------------------------------------------- */

typedef struct vc_ocs_ilp {
  int *v;  /* L: virtual leaves of leaf n, or -1 */
  int *y;  /* S: s_m */
  int *x;  /* L*S*O: circuits (n, m, o), or -1 */
  int *vmax;
} vc_ocs_ilp;

static size_t xi(const vc_ocs_state *st, int n, int m, int o) {
  return ((size_t)n * (size_t)st->S + (size_t)m) * (size_t)st->O + (size_t)o;
}

static void ocs_vars(nsi_milp *mp, const vc_ocs_state *st, int l, int s, vc_ocs_ilp *v) {
  for (int n = 0; n < st->L; n++) { /* (8): v_n * s = T * r_n <= T * R_n */
    long long cap = (long long)st->idle[n] * st->T / s;
    v->vmax[n] = (int)(cap < l ? cap : l);
    v->v[n] = nsi_milp_add_col(mp, 0, v->vmax[n], (double)st->idle[n] * st->T, 1);
  }
  for (int m = 0; m < st->S; m++)
    v->y[m] = nsi_milp_add_col(mp, 0, 1, (double)st->rpn[m], 1);
  for (int n = 0; n < st->L; n++)
    for (int m = 0; m < st->S; m++)
      for (int o = 0; o < st->O; o++) {
        int a = st->fl[(size_t)n * st->O + o], b = st->fs[(size_t)m * st->O + o];
        int ub = a < b ? a : b;
        ub = ub < v->vmax[n] ? ub : v->vmax[n];
        v->x[xi(st, n, m, o)] = ub > 0 ? nsi_milp_add_col(mp, 0, ub, 0, 1) : -1;
      }
}

/* Appends the x columns of (n, m, *) to cols/coefs with coefficient 1. */
static int pair_terms(const vc_ocs_state *st, const vc_ocs_ilp *v, int n, int m, int *cols,
                      double *coefs, int nz) {
  for (int o = 0; o < st->O; o++)
    if (v->x[xi(st, n, m, o)] >= 0)
      cols[nz] = v->x[xi(st, n, m, o)], coefs[nz++] = 1;
  return nz;
}

/* sum_o x_{n,m,o} = v_n * s_m, linearised (big-M = vmax_n). */
static void pair_rows(nsi_milp *mp, const vc_ocs_state *st, const vc_ocs_ilp *v, int *cols,
                      double *coefs) {
  for (int n = 0; n < st->L; n++)
    for (int m = 0; m < st->S; m++) {
      int nz = pair_terms(st, v, n, m, cols, coefs, 0), M = v->vmax[n];
      cols[nz] = v->y[m], coefs[nz] = -M;
      nsi_milp_add_row(mp, nz + 1, cols, coefs, 'L', 0); /* <= M s_m */
      cols[nz] = v->v[n], coefs[nz] = -1;
      nsi_milp_add_row(mp, nz + 1, cols, coefs, 'L', 0); /* <= v_n */
      cols[nz + 1] = v->y[m], coefs[nz + 1] = -M;
      nsi_milp_add_row(mp, nz + 2, cols, coefs, 'G', -M); /* >= v_n - M (1 - s_m) */
    }
}

static void ocs_rows(nsi_milp *mp, const vc_ocs_state *st, int l, int s, const vc_ocs_ilp *v,
                     int *cols, double *coefs) {
  for (int n = 0; n < st->L; n++)
    cols[n] = v->v[n], coefs[n] = 1;
  nsi_milp_add_row(mp, st->L, cols, coefs, 'E', l); /* (7) */
  for (int m = 0; m < st->S; m++)
    cols[m] = v->y[m], coefs[m] = 1;
  nsi_milp_add_row(mp, st->S, cols, coefs, 'E', s); /* (7) */
  pair_rows(mp, st, v, cols, coefs);
  for (int n = 0; n < st->L; n++) { /* (10) leaf side: s uplinks per virtual leaf */
    int nz = 0;
    for (int m = 0; m < st->S; m++)
      nz = pair_terms(st, v, n, m, cols, coefs, nz);
    cols[nz] = v->v[n], coefs[nz] = -s;
    nsi_milp_add_row(mp, nz + 1, cols, coefs, 'E', 0);
  }
  for (int m = 0; m < st->S; m++) { /* (10) spine side: l downlinks per chosen spine */
    int nz = 0;
    for (int n = 0; n < st->L; n++)
      nz = pair_terms(st, v, n, m, cols, coefs, nz);
    cols[nz] = v->y[m], coefs[nz] = -l;
    nsi_milp_add_row(mp, nz + 1, cols, coefs, 'E', 0);
  }
  for (int o = 0; o < st->O; o++) { /* (11): free ports per leaf/OCS and spine/OCS */
    for (int n = 0; n < st->L; n++) {
      int nz = 0;
      for (int m = 0; m < st->S; m++)
        if (v->x[xi(st, n, m, o)] >= 0)
          cols[nz] = v->x[xi(st, n, m, o)], coefs[nz++] = 1;
      if (nz)
        nsi_milp_add_row(mp, nz, cols, coefs, 'L', st->fl[(size_t)n * st->O + o]);
    }
    for (int m = 0; m < st->S; m++) {
      int nz = 0;
      for (int n = 0; n < st->L; n++)
        if (v->x[xi(st, n, m, o)] >= 0)
          cols[nz] = v->x[xi(st, n, m, o)], coefs[nz++] = 1;
      if (nz)
        nsi_milp_add_row(mp, nz, cols, coefs, 'L', st->fs[(size_t)m * st->O + o]);
    }
  }
}

/* Alg. 4 lines 5-7: GPUs and circuits from the ILP solution. Virtual leaf
   a of leaf n gets s GPUs and one circuit to each chosen spine, in spine
   order (the layout route.c relies on). */
static int build_ocs(const ns_cluster *c, const vc_ocs_state *st, const vc_ocs_ilp *v,
                     const double *sol, int s, int *left, ns_placement *p) {
  for (size_t i = 0; i < (size_t)st->L * st->S * st->O; i++)
    left[i] = v->x[i] >= 0 ? (int)(sol[v->x[i]] + 0.5) : 0;
  for (int n = 0; n < st->L; n++) {
    int vn = (int)(sol[v->v[n]] + 0.5);
    if (vn == 0)
      continue;
    NSI_TRY(vc_take_idle_servers(c, n, vn * s / st->T, vn * s, p));
    for (int a = 0; a < vn; a++)
      for (int m = 0; m < st->S; m++) {
        if (sol[v->y[m]] < 0.5)
          continue;
        int o = 0;
        while (o < st->O && left[xi(st, n, m, o)] == 0)
          o++;
        int port = o < st->O ? free_leaf_port(c, p, n, o) : -1;
        if (port < 0)
          return nsi_fail(NS_ESOLVER, "ns_vclos_place: CBC returned an inconsistent OCS-vClos "
                                      "solution (leaf %d, spine %d)", n, m);
        left[xi(st, n, m, o)]--;
        NSI_TRY(nsi_placement_add_link(p, n, m, port));
      }
  }
  return NS_OK;
}

static int ocs_ilp(const ns_cluster *c, const vc_ocs_state *st, const ns_vclos_opts *o, int l,
                   int s, ns_placement *p, const char *fn) {
  size_t LSO = (size_t)st->L * (size_t)st->S * (size_t)st->O;
  size_t wide = (size_t)st->L * (size_t)st->O + (size_t)st->S * (size_t)st->O + 4;
  if ((size_t)st->L + st->S + 4 > wide)
    wide = (size_t)st->L + st->S + 4;
  vc_ocs_ilp v = {malloc((size_t)st->L * sizeof(int)), malloc((size_t)st->S * sizeof(int)),
                  malloc(LSO * sizeof(int)), malloc((size_t)st->L * sizeof(int))};
  int *cols = malloc(wide * sizeof *cols), *left = malloc(LSO * sizeof *left);
  double *coefs = malloc(wide * sizeof *coefs), *sol = NULL, obj = 0;
  nsi_milp *mp = nsi_milp_new();
  int rc = NS_OK;
  if (!v.v || !v.y || !v.x || !v.vmax || !cols || !left || !coefs || !mp)
    rc = nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  if (rc == NS_OK) {
    ocs_vars(mp, st, l, s, &v);
    ocs_rows(mp, st, l, s, &v, cols, coefs);
    sol = malloc((size_t)nsi_milp_col_count(mp) * sizeof *sol);
    rc = sol ? nsi_milp_solve(mp, o->time_limit_s, sol, &obj, fn)
             : nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  }
  if (rc == NS_OK) {
    p->virtual_leaves = l, p->virtual_spines = s;
    rc = build_ocs(c, st, &v, sol, s, left, p);
  }
  nsi_milp_free(mp);
  free(v.v), free(v.y), free(v.x), free(v.vmax);
  free(cols), free(left), free(coefs), free(sol);
  return rc;
}

/* The ILP's own bounds v_n <= min(idle_n * T / s, l) (ocs_vars) already
   make (7) sum_n v_n = l unsatisfiable: infeasible without asking CBC.
   Under load most shapes end here (a 1,000-job Slurm cycle on 32 leaves
   built ~1,250 such models at ~1.7 ms each). */
static int ocs_leaves_short(const vc_ocs_state *st, int l, int s) {
  long long room = 0;
  for (int n = 0; n < st->L && room < l; n++) {
    long long cap = (long long)st->idle[n] * st->T / s;
    room += cap < l ? cap : l;
  }
  return room < l;
}

/* Alg. 4: shapes as in vClos (vc_shapes). Stage 3 lays virtual leaves out
   contiguously (route.c), which keeps halving-doubling contention-free only
   for s = T * 2^j: halving-doubling jobs keep the power-of-two rule here. */
static int stage3_ocs(const ns_cluster *c, const vc_ocs_state *st, const ns_job *job,
                      const ns_vclos_opts *o, ns_placement *p, const char *fn) {
  int rc = NS_ENOSPACE, shapes = 0, n = job->gpus, l, s;
  /* Building the model alone is unbounded by CBC's time limit (64 leaves x
     2,048 spines x 64 OCSes: 8.4M columns, > 6 min and > 1.3 GB before the
     solve): beyond the cap, say so at once (vclos.h). */
  double cols = (double)st->L * (double)st->S * (double)st->O;
  if (cols > NS_VCLOS_OCS_ILP_MAX_VARS)
    return nsi_fail(NS_EUNSUPPORTED, "%s: job '%s' (%d GPUs) needs OCS-vClos Stage 3, whose ILP "
                                     "would have %d leaves x %d spines x %d OCSes = %.0f circuit "
                                     "variables (limit %d)", fn, job->name, n, st->L, st->S,
                    st->O, cols, NS_VCLOS_OCS_ILP_MAX_VARS);
  vc_size_rule rule = vc_rule_for(job, o);
  vc_shapes it;
  vc_shapes_begin(&it, c, n, rule == VC_SIZE_PAPER ? VC_SIZE_PAPER : VC_SIZE_POW2);
  while (rc == NS_ENOSPACE && vc_shapes_next(&it, &l, &s)) {
    shapes++;
    if (ocs_leaves_short(st, l, s))
      continue; /* rc stays NS_ENOSPACE: the next shape */
    ns_placement_clear(p);
    rc = ocs_ilp(c, st, o, l, s, p, fn);
  }
  if (rc == NS_ENOSPACE && shapes == 0) { /* never fits, unless Stage 1 or 2 would when empty */
    int later = vc_fits_one_leaf(c, n) ? 1 : stage2_fits_empty(c, st, n);
    if (later < 0)
      return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
    if (!later)
      return nsi_fail(NS_EINVAL, "%s: job '%s' (%d GPUs) fits no l x s virtual Clos of this "
                                 "fabric (%d leaves x %d spines, %d servers of %d GPUs per leaf)",
                      fn, job->name, n, st->L, st->S, c->servers_per_leaf, st->T);
  }
  if (rc == NS_ENOSPACE)
    return nsi_fail(NS_ENOSPACE, "%s: no leaf, single spine or OCS-vClos has room for %d GPUs "
                                 "now", fn, n);
  return rc;
}

int vc_place_ocs(const ns_cluster *c, const ns_job *job, const ns_vclos_opts *o, ns_placement *p,
                 int *stage, const char *fn) {
  vc_ocs_state st;
  NSI_TRY(ocs_state_build(c, &st, fn));
  *stage = 2;
  int rc = stage2_ocs(c, &st, job->gpus, p, fn);
  if (rc == NS_ENOSPACE) {
    *stage = 3;
    rc = stage3_ocs(c, &st, job, o, p, fn);
  }
  ocs_state_free(&st);
  return rc;
}

/* ---- OCS port queries --------------------------------------------------------- */

static int check_ocs_query(const ns_cluster *c, int idx, int count, const char *what, int ocs,
                           const char *fn) {
  NSI_TRY(nsi_check_ptr(c, fn, "c"));
  if (c->ocs_count == 0)
    return nsi_fail(NS_ESTATE, "%s: c has no OCS layer (ns_cluster_enable_ocs)", fn);
  NSI_TRY(nsi_check_int(idx, 0, count - 1, fn, what));
  return nsi_check_int(ocs, 0, c->ocs_count - 1, fn, "ocs");
}

int ns_cluster_ocs_free_leaf_ports(const ns_cluster *c, int leaf, int ocs) {
  static const char *fn = "ns_cluster_ocs_free_leaf_ports";
  NSI_TRY(check_ocs_query(c, leaf, c ? c->leaves : 0, "leaf", ocs, fn));
  int U = c->spines * c->links_per_pair, n = 0;
  for (int p = 0; p < U; p++)
    n += nsi_ocs_of_leaf_port(c, leaf, p) == ocs &&
         c->ocs_leaf_port[(size_t)leaf * (size_t)U + (size_t)p] == NULL;
  return n;
}

int ns_cluster_ocs_free_spine_ports(const ns_cluster *c, int spine, int ocs) {
  static const char *fn = "ns_cluster_ocs_free_spine_ports";
  NSI_TRY(check_ocs_query(c, spine, c ? c->spines : 0, "spine", ocs, fn));
  return nsi_ocs_spine_ports(c, spine, ocs) -
         c->ocs_spine_used[(size_t)spine * (size_t)c->ocs_count + (size_t)ocs];
}
