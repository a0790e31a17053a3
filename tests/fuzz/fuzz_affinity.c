/*
 * tests/fuzz/fuzz_affinity.c - the CASSINI Affinity graph (§4.1,
 * Algorithm 1) on random bipartite job/link edges.
 *
 * fuzz-requires: ns_affinity_add_edge ns_affinity_has_loop ns_affinity_solve ns_affinity_shift_ms
 * fuzz-requires: ns_cassini_score_at ns_cassini_link_perimeter
 *
 * Oracles and invariants (include/netsched/cassini.h, ALGORITHMS.md):
 *  - ns_affinity_has_loop agrees with an independent union-find over the
 *    accepted edges (an edge whose ends are already connected closes a
 *    cycle); a repeated (job, link) edge, a NaN/inf/negative weight and a
 *    job without iteration time are NS_EINVAL and add nothing;
 *  - before a solve, shifts are NS_ESTATE; a solve on a cycle is NS_ELOOP
 *    and leaves the graph unsolved;
 *  - after a successful solve every job's shift is finite, in
 *    [0, iteration); the first job added to each connected component has
 *    shift 0; and on each link the unique shifts are the link's own shifts
 *    moved by one common offset, modulo each job's period (Alg. 1 line 23);
 *  - Theorem 1 (when weights are per-link optimal shifts, mode 1): on every
 *    shared link the exact score with the unique shifts equals the score
 *    with the link's own shifts.
 */
#include "fuzz_util.h"

enum { NJ = 8, NL = 6, MAXE = 32 };

typedef struct edge {
  int j, l;
  double w;
} edge;

static int uf_find(int *parent, int x) {
  while (parent[x] != x)
    x = parent[x] = parent[parent[x]];
  return x;
}

/* Circular distance of a and b modulo m. */
static double mod_dist(double a, double b, double m) {
  double d = fmod(fabs(a - b), m);
  return fmin(d, m - d);
}

static ns_job *make_job(fz *f, double *iter) {
  ns_job *j = ns_job_new("aff", 1);
  *iter = (double)fz_range(f, 2, 300);
  if (fz_range(f, 0, 15) == 0) {
    *iter = 0; /* no iteration time: edges must be rejected */
    return j;
  }
  int up = (int)fz_range(f, 1, (long long)*iter);
  ns_job_set_iteration_ms(j, *iter);
  ns_job_add_phase(j, up, 10 + (double)fz_range(f, 0, 90));
  if (up < *iter)
    ns_job_add_phase(j, *iter - up, (double)fz_range(f, 0, 20));
  return j;
}

static long long gcd_ll(long long a, long long b) {
  while (b != 0) {
    long long r = a % b;
    a = b;
    b = r;
  }
  return a;
}

/* Alg. 1 on one link: the unique shifts are the link's own shifts w moved by
   one common offset D, each modulo its job's period: t_k = w_k + D (mod
   iter_k) for every job k on the link. (Propagating the reduced t_j or the
   unreduced path sum of Eq. 9 both give such a D.) With integer periods a D
   exists iff every pair agrees modulo gcd(iter_a, iter_b) (Chinese
   remainder theorem). */
static void check_link_relation(const edge *e, int ne, int l, const double *t,
                                const double *iter) {
  for (int a = 0; a < ne; a++)
    for (int b = 0; b < a; b++) {
      if (e[a].l != l || e[b].l != l)
        continue;
      double d = (t[e[a].j] - e[a].w) - (t[e[b].j] - e[b].w);
      double g = (double)gcd_ll((long long)iter[e[a].j], (long long)iter[e[b].j]);
      FZ_CHECK(mod_dist(d, 0, g) <= 1e-6 * fmax(1, fabs(d)),
               "link %d: jobs %d and %d are not moved by a common offset (Alg. 1): "
               "t %.17g, %.17g; w %.17g, %.17g; gcd of periods %g",
               l, e[a].j, e[b].j, t[e[a].j], t[e[b].j], e[a].w, e[b].w, g);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz f = {data, size};
  ns_job *jobs[NJ];
  ns_link *links[NL];
  double iter[NJ];
  int nj = (int)fz_range(&f, 1, NJ), nl = (int)fz_range(&f, 1, NL);
  int theorem_mode = (int)fz_range(&f, 0, 1);
  for (int i = 0; i < nj; i++)
    jobs[i] = make_job(&f, &iter[i]);
  for (int i = 0; i < nl; i++)
    links[i] = ns_link_new("l", 10 + (double)fz_range(&f, 0, 90));

  /* Decode the candidate edges first: mode 1 needs each link's job list. */
  edge cand[MAXE];
  int ncand = (int)fz_range(&f, 0, MAXE);
  for (int i = 0; i < ncand; i++) {
    cand[i].j = (int)fz_range(&f, 0, nj - 1);
    cand[i].l = (int)fz_range(&f, 0, nl - 1);
    cand[i].w = fz_range(&f, 0, 7) ? (iter[cand[i].j] > 0 ? iter[cand[i].j] : 10) *
                                         (double)fz_u8(&f) / 256.0
                                   : fz_double(&f, 0, 1000);
    if (ns_link_add_job(links[cand[i].l], jobs[cand[i].j]) != NS_OK)
      continue; /* repeated pair: the affinity graph must reject it too */
  }
  if (theorem_mode) { /* weights = each link's own optimal shifts */
    ns_cassini_opts *o = ns_cassini_opts_new();
    for (int l = 0; l < nl; l++) {
      size_t n = ns_link_job_count(links[l]);
      double score, sh[MAXE];
      if (n == 0 || ns_cassini_score(links[l], o, &score, sh, n) != NS_OK)
        continue;
      for (int i = 0; i < ncand; i++)
        for (size_t k = 0; k < n; k++)
          if (cand[i].l == l && ns_link_job(links[l], k) == jobs[cand[i].j])
            cand[i].w = sh[k];
    }
    ns_cassini_opts_free(o);
  }

  ns_affinity *g = ns_affinity_new();
  int parent[NJ + NL], loop = 0, first_job[NJ + NL];
  edge acc[MAXE];
  int na = 0;
  for (int i = 0; i < NJ + NL; i++)
    parent[i] = i, first_job[i] = -1;
  for (int i = 0; i < ncand; i++) {
    const edge *e = &cand[i];
    int dup = 0;
    for (int k = 0; k < na; k++)
      dup |= acc[k].j == e->j && acc[k].l == e->l;
    int valid = !dup && iter[e->j] > 0 && isfinite(e->w) && e->w >= 0 && e->w <= 1e15;
    int rc = ns_affinity_add_edge(g, jobs[e->j], links[e->l], e->w);
    if (!valid) {
      FZ_CHECK(rc == NS_EINVAL, "edge (%d,%d,%g) dup %d iter %g accepted: %d", e->j, e->l, e->w,
               dup, iter[e->j], rc);
      FZ_CHECK_FAILURE(rc, "ns_affinity_add_edge");
      continue;
    }
    FZ_CHECK(rc == NS_OK, "edge (%d,%d,%g) rejected: %d", e->j, e->l, e->w, rc);
    acc[na++] = *e;
    int a = uf_find(parent, e->j), b = uf_find(parent, NJ + e->l);
    if (a == b)
      loop = 1;
    else
      parent[b] = a;
  }
  /* Each component's reference: the job of its earliest accepted edge. */
  for (int k = 0; k < na; k++) {
    int root = uf_find(parent, acc[k].j);
    if (first_job[root] < 0)
      first_job[root] = acc[k].j;
  }
  FZ_CHECK(ns_affinity_has_loop(g) == loop, "has_loop %d, union-find %d", ns_affinity_has_loop(g),
           loop);
  double t[NJ];
  if (na > 0)
    FZ_CHECK(ns_affinity_shift_ms(g, jobs[acc[0].j], &t[0]) == NS_ESTATE, "unsolved shift");

  int rc = ns_affinity_solve(g);
  if (loop) {
    FZ_CHECK(rc == NS_ELOOP, "solve on a cycle returned %d", rc);
    FZ_CHECK_FAILURE(rc, "ns_affinity_solve");
    if (na > 0)
      FZ_CHECK(ns_affinity_shift_ms(g, jobs[acc[0].j], &t[0]) == NS_ESTATE, "shift after ELOOP");
  } else {
    FZ_CHECK(rc == NS_OK, "solve on a forest returned %d", rc);
    for (int j = 0; j < nj; j++) {
      int in_graph = 0;
      for (int k = 0; k < na; k++)
        in_graph |= acc[k].j == j;
      int q = ns_affinity_shift_ms(g, jobs[j], &t[j]);
      if (!in_graph) {
        FZ_CHECK(q == NS_ENOTFOUND, "job %d not in graph: %d", j, q);
        continue;
      }
      FZ_CHECK(q == NS_OK && isfinite(t[j]) && t[j] >= 0 && t[j] < iter[j],
               "job %d shift %.17g (iteration %g)", j, t[j], iter[j]);
    }
    for (int v = 0; v < NJ + NL; v++)
      if (uf_find(parent, v) == v && first_job[v] >= 0)
        FZ_CHECK(t[first_job[v]] == 0, "reference job %d has shift %g", first_job[v],
                 t[first_job[v]]);
    for (int l = 0; l < nl; l++)
      check_link_relation(acc, na, l, t, iter);
  }
  if (theorem_mode && !loop && na == ncand) { /* every candidate edge accepted */
    ns_cassini_opts *o = ns_cassini_opts_new();
    for (int l = 0; l < nl; l++) {
      size_t n = ns_link_job_count(links[l]);
      double own[MAXE], uni[MAXE], s_own, s_uni, score, perimeter, quantum;
      if (n < 2 || ns_cassini_score(links[l], o, &score, own, n) != NS_OK)
        continue;
      /* A uniform time translation keeps the score only over the true
         common period: skip links whose perimeter was coarsened. */
      if (ns_cassini_link_perimeter(links[l], o, &perimeter, &quantum) != NS_OK || quantum != 1)
        continue;
      for (size_t k = 0; k < n; k++)
        for (int j = 0; j < nj; j++)
          if (ns_link_job(links[l], k) == jobs[j])
            uni[k] = t[j];
      FZ_CHECK(ns_cassini_score_at(links[l], o, own, n, &s_own) == NS_OK &&
                   ns_cassini_score_at(links[l], o, uni, n, &s_uni) == NS_OK,
               "score_at");
      FZ_CHECK(fabs(s_own - s_uni) <= 1e-6, "Theorem 1: link %d own %.12g unique %.12g", l,
               s_own, s_uni);
    }
    ns_cassini_opts_free(o);
  }
  ns_affinity_free(g);
  for (int i = 0; i < nl; i++)
    ns_link_free(links[i]);
  for (int i = 0; i < nj; i++)
    ns_job_free(jobs[i]);
  return 0;
}
