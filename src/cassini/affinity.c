/*
 * src/cassini/affinity.c - CASSINI §4.1: the bipartite Affinity graph
 * G = (U jobs, V links, E) with w(j, l) = t_j^l, cycle detection, and
 * Algorithm 1 (BFS that turns per-link shifts into one shift per job).
 *
 * Readings:
 *  - Alg. 1 line 7 picks the reference job at random; we take the first job
 *    added to each connected component (deterministic, as ALGORITHMS.md asks).
 *    Components are visited in the order their first job was added.
 *  - Neighbours are visited in edge-insertion order.
 *  - A cycle exists iff some component has edges >= vertices; we find it with
 *    union-find (an edge joining two already-connected vertices closes one).
 *  - Line 23 vs Appendix A: read literally, line 23 reduces t_k modulo
 *    iter_k before it is used further down the BFS, while Eq. 9 applies one
 *    modulo to the whole path sum. With different iteration times the two
 *    give different (both valid: they differ by translating a subtree by a
 *    whole iteration of its root) shifts. We follow Eq. 8-9: the BFS carries
 *    the unreduced path sum t_j - w(j,l) + w(l,k) and each job's result is
 *    that sum modulo its own iteration (the mathematical modulo, in
 *    [0, iter_k)). With equal iteration times this is line 23 verbatim.
 *  - A link may have a single edge in the graph (a leaf); it constrains
 *    nothing. Adding the same (job, link) edge twice is NS_EINVAL.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cassini/cassini_internal.h"

#define NSC_MAX_VERTICES ((size_t)1 << 31)

ns_affinity *ns_affinity_new(void) {
  ns_affinity *g = calloc(1, sizeof *g);
  if (g == NULL)
    nsi_fail(NS_ENOMEM, "ns_affinity_new: out of memory");
  return g;
}

void nsc_affinity_clear(ns_affinity *g) {
  free(g->jobs);
  free(g->links);
  free(g->edges);
  free(g->shift);
  nsi_ptrmap_free(&g->job_ix);
  nsi_ptrmap_free(&g->link_ix);
  nsi_ptrmap_free(&g->edge_ix);
  memset(g, 0, sizeof *g);
}

void ns_affinity_free(ns_affinity *g) {
  if (g == NULL)
    return;
  nsc_affinity_clear(g);
  free(g);
}

/* Room for one more job, link and edge, so the inserts below cannot fail. */
static int reserve_one(ns_affinity *g) {
  NSI_TRY(nsi_reserve(&g->jobs, &g->cap_jobs, g->njobs + 1, sizeof *g->jobs));
  NSI_TRY(nsi_reserve(&g->links, &g->cap_links, g->nlinks + 1, sizeof *g->links));
  NSI_TRY(nsi_reserve(&g->edges, &g->cap_edges, g->nedges + 1, sizeof *g->edges));
  if (nsi_ptrmap_reserve(&g->job_ix, 1) || nsi_ptrmap_reserve(&g->link_ix, 1) ||
      nsi_ptrmap_reserve(&g->edge_ix, 1))
    return NS_ENOMEM;
  return NS_OK;
}

int nsc_affinity_add(ns_affinity *g, const ns_job *job, const ns_link *link, double w,
                     const char *fn) {
  size_t j = nsi_ptrmap_get(&g->job_ix, nsi_key_ptr(job));
  size_t l = nsi_ptrmap_get(&g->link_ix, nsi_key_ptr(link));
  if (j != SIZE_MAX && l != SIZE_MAX && nsi_ptrmap_get(&g->edge_ix, nsc_key_pair(j, l)) != SIZE_MAX)
    return nsi_fail(NS_EINVAL, "%s: job '%s' is already on link '%s' in this graph", fn,
                    job->name, link->name);
  if (g->njobs + 1 >= NSC_MAX_VERTICES || g->nlinks + 1 >= NSC_MAX_VERTICES)
    return nsi_fail(NS_ERANGE, "%s: graph too large", fn);
  if (reserve_one(g) != NS_OK)
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  if (j == SIZE_MAX) {
    j = g->njobs++;
    g->jobs[j] = job;
    nsi_ptrmap_put(&g->job_ix, nsi_key_ptr(job), j);
  }
  if (l == SIZE_MAX) {
    l = g->nlinks++;
    g->links[l] = link;
    nsi_ptrmap_put(&g->link_ix, nsi_key_ptr(link), l);
  }
  nsi_ptrmap_put(&g->edge_ix, nsc_key_pair(j, l), g->nedges);
  g->edges[g->nedges++] = (nsc_edge){j, l, w};
  g->solved = 0;
  return NS_OK;
}

int ns_affinity_add_edge(ns_affinity *g, const ns_job *job, const ns_link *link,
                         double shift_ms) {
  static const char fn[] = "ns_affinity_add_edge";
  NSI_TRY(nsi_check_ptr(g, fn, "g"));
  NSI_TRY(nsi_check_ptr(job, fn, "job"));
  NSI_TRY(nsi_check_ptr(link, fn, "link"));
  NSI_TRY(nsi_check_finite_ge0(shift_ms, fn, "shift_ms"));
  if (job->iteration_ms <= 0) /* Alg. 1 line 23 reduces modulo it */
    return nsi_fail(NS_EINVAL, "%s: job '%s' has no iteration time (ns_job_set_iteration_ms)",
                    fn, job->name);
  /* w_e = t_j^l is a phase of job j's iteration (Eq. 5 reduces it modulo
     iter_j); reducing here keeps a huge weight from swamping the others in
     Algorithm 1's path sums. fmod is exact. */
  return nsc_affinity_add(g, job, link, fmod(shift_ms, job->iteration_ms), fn);
}

/* ---- cycles ------------------------------------------------------------------ */

static size_t uf_find(size_t *parent, size_t x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]]; /* path halving */
    x = parent[x];
  }
  return x;
}

/* Index of the first edge that closes a cycle, or SIZE_MAX; SIZE_MAX - 1 on
   ENOMEM. Vertices: jobs 0..J-1, links J..J+L-1. */
static size_t closing_edge(const ns_affinity *g) {
  size_t nv = g->njobs + g->nlinks, found = SIZE_MAX;
  size_t *parent = malloc((nv ? nv : 1) * sizeof *parent);
  if (parent == NULL)
    return SIZE_MAX - 1;
  for (size_t v = 0; v < nv; v++)
    parent[v] = v;
  for (size_t e = 0; e < g->nedges && found == SIZE_MAX; e++) {
    size_t a = uf_find(parent, g->edges[e].job), b = uf_find(parent, g->njobs + g->edges[e].link);
    if (a == b)
      found = e;
    else
      parent[a] = b;
  }
  free(parent);
  return found;
}

int nsc_affinity_loop(const ns_affinity *g) {
  size_t e = closing_edge(g);
  if (e == SIZE_MAX - 1)
    return NS_ENOMEM;
  return e != SIZE_MAX;
}

int ns_affinity_has_loop(const ns_affinity *g) {
  NSI_TRY(nsi_check_ptr(g, "ns_affinity_has_loop", "g"));
  int rc = nsc_affinity_loop(g);
  if (rc < 0)
    return nsi_fail(rc, "ns_affinity_has_loop: out of memory");
  return rc;
}

/* ---- Algorithm 1 ---------------------------------------------------------------- */

/* CSR adjacency: for vertex v, its edges are idx[start[v] .. start[v+1]). */
typedef struct adjacency {
  size_t *start, *idx;
} adjacency;

static int adjacency_build(adjacency *a, const ns_affinity *g, int by_link) {
  size_t nv = by_link ? g->nlinks : g->njobs;
  a->start = calloc(nv + 1, sizeof *a->start);
  a->idx = malloc((g->nedges ? g->nedges : 1) * sizeof *a->idx);
  if (a->start == NULL || a->idx == NULL)
    return NS_ENOMEM;
  for (size_t e = 0; e < g->nedges; e++)
    a->start[(by_link ? g->edges[e].link : g->edges[e].job) + 1]++;
  for (size_t v = 0; v < nv; v++)
    a->start[v + 1] += a->start[v];
  size_t *fill = calloc(nv + 1, sizeof *fill);
  if (fill == NULL)
    return NS_ENOMEM;
  for (size_t e = 0; e < g->nedges; e++) { /* stable: insertion order */
    size_t v = by_link ? g->edges[e].link : g->edges[e].job;
    a->idx[a->start[v] + fill[v]++] = e;
  }
  free(fill);
  return NS_OK;
}

static double mod_pos(double x, double m) {
  double y = fmod(x, m);
  if (y < 0)
    y += m;
  return y >= m ? 0 : y;
}

/* BFS of one component from job `ref` (Alg. 1 lines 6-24). */
static void bfs_component(const ns_affinity *g, const adjacency *by_job,
                          const adjacency *by_link, size_t ref, unsigned char *seen,
                          size_t *queue, double *t, double *raw) {
  size_t head = 0, tail = 0;
  raw[ref] = t[ref] = 0; /* line 8: the reference job */
  seen[ref] = 1;
  queue[tail++] = ref;
  while (head < tail) {
    size_t j = queue[head++];
    for (size_t x = by_job->start[j]; x < by_job->start[j + 1]; x++) {
      const nsc_edge *e1 = &g->edges[by_job->idx[x]]; /* line 19: (j, l) */
      size_t l = e1->link;
      for (size_t y = by_link->start[l]; y < by_link->start[l + 1]; y++) {
        const nsc_edge *e2 = &g->edges[by_link->idx[y]]; /* line 21: (l, k) */
        size_t k = e2->job;
        if (seen[k])
          continue;
        seen[k] = 1;
        queue[tail++] = k;
        /* line 23 / Eq. 9: t_k = (t_j - w_e1 + w_e2) % iter_time_k, with
           t_j the unreduced path sum */
        raw[k] = raw[j] - e1->w + e2->w;
        t[k] = mod_pos(raw[k], g->jobs[k]->iteration_ms);
      }
    }
  }
}

int nsc_affinity_bfs(const ns_affinity *g, double *out, const char *fn) {
  size_t e = closing_edge(g);
  if (e == SIZE_MAX - 1)
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  if (e != SIZE_MAX)
    return nsi_fail(NS_ELOOP,
                    "%s: the Affinity graph has a loop (edge job '%s' - link '%s' closes it); "
                    "Theorem 1 needs a loop-free graph",
                    fn, g->jobs[g->edges[e].job]->name, g->links[g->edges[e].link]->name);
  adjacency by_job = {0}, by_link = {0};
  unsigned char *seen = calloc(g->njobs ? g->njobs : 1, 1);
  size_t *queue = malloc((g->njobs ? g->njobs : 1) * sizeof *queue);
  double *raw = malloc((g->njobs ? g->njobs : 1) * sizeof *raw);
  int rc = NS_ENOMEM;
  if (seen && queue && raw && adjacency_build(&by_job, g, 0) == NS_OK &&
      adjacency_build(&by_link, g, 1) == NS_OK) {
    for (size_t j = 0; j < g->njobs; j++) /* line 3: each connected subgraph */
      if (!seen[j])
        bfs_component(g, &by_job, &by_link, j, seen, queue, out, raw);
    rc = NS_OK;
  }
  free(seen);
  free(queue);
  free(raw);
  free(by_job.start);
  free(by_job.idx);
  free(by_link.start);
  free(by_link.idx);
  return rc == NS_OK ? NS_OK : nsi_fail(rc, "%s: out of memory", fn);
}

int ns_affinity_solve(ns_affinity *g) {
  static const char fn[] = "ns_affinity_solve";
  NSI_TRY(nsi_check_ptr(g, fn, "g"));
  double *t = malloc((g->njobs ? g->njobs : 1) * sizeof *t);
  if (t == NULL)
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  int rc = nsc_affinity_bfs(g, t, fn);
  if (rc != NS_OK) {
    free(t);
    return rc;
  }
  free(g->shift);
  g->shift = t;
  g->solved = 1;
  return NS_OK;
}

int ns_affinity_shift_ms(const ns_affinity *g, const ns_job *job, double *shift_ms) {
  static const char fn[] = "ns_affinity_shift_ms";
  NSI_TRY(nsi_check_ptr(g, fn, "g"));
  NSI_TRY(nsi_check_ptr(job, fn, "job"));
  NSI_TRY(nsi_check_ptr(shift_ms, fn, "shift_ms"));
  size_t j = nsi_ptrmap_get(&g->job_ix, nsi_key_ptr(job));
  if (j == SIZE_MAX)
    return nsi_fail(NS_ENOTFOUND, "%s: job '%s' is not in the graph", fn, job->name);
  if (!g->solved)
    return nsi_fail(NS_ESTATE, "%s: graph changed or not solved yet (ns_affinity_solve)", fn);
  *shift_ms = g->shift[j];
  return NS_OK;
}
