/*
 * src/cassini/rank.c - CASSINI §4.2, Algorithm 2: score candidate placements
 * and solve the unique time-shifts of the best one, with an opt-in thread
 * pool (ns_cassini_opts_set_threads).
 *
 * Readings:
 *  - A candidate is self-contained: the jobs on link l in candidate c are
 *    exactly the jobs added with l to c (ns_candidate_add); the link handle
 *    lends its capacity only. A caller that wants already-running jobs
 *    counted adds their (job, link) pairs to every candidate.
 *  - Lines 3-11: U_c = jobs on some link that carries > 1 job of c, V_c =
 *    those links, E_c = their (job, link) pairs. Links carrying one job are
 *    not scored; a candidate with no shared link scores 1.0 (nothing competes).
 *  - Lines 13-15: a loop in G_c gives the candidate score NAN and excludes it.
 *    If every candidate has a loop the call fails with NS_ELOOP (scores are
 *    still written, all NAN).
 *  - Line 24: candidate score = mean of its link scores (the paper's
 *    default; footnote 1 allows others). Best = highest score, ties to the
 *    lowest index.
 *  - Line 26: Algorithm 1 on the best candidate with w(j,l) = its per-link
 *    Eq. 5 shifts. Jobs of the best candidate outside U_c get shift 0 (they
 *    may send at any time, §5.7). Only the best candidate holds shifts after
 *    the call; the others report NS_ESTATE.
 *  - Lines 2 and 17 run on threads: every (candidate, shared link) pair is an
 *    independent work item taken from a shared counter by up to `threads`
 *    threads (the caller's thread included), so the results do not depend on
 *    the thread count. An item's failure (e.g. phases that do not tile, a
 *    perimeter over the cap) fails the whole call with the status and message
 *    of the first failing item in candidate/link order.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cassini/cassini_internal.h"

/* ---- per-call plan ------------------------------------------------------------ */

typedef struct item { /* one shared link of one candidate */
  const ns_link *link;
  const ns_job **jobs; /* in G_c edge order */
  size_t *edge;        /* G_c edge of each job */
  size_t njobs;
  double score, *shifts;
  int status;
  char msg[256];
} item;

typedef struct plan { /* one candidate */
  ns_affinity g;      /* G_c: shared links only */
  int loop;
  size_t first, count; /* its items */
} plan;

typedef struct rank_ctx {
  plan *plans;
  size_t nplans;
  item *items;
  size_t nitems;
  const ns_cassini_opts *o;
  atomic_size_t next;
} rank_ctx;

static void ctx_free(rank_ctx *x) {
  for (size_t i = 0; i < x->nitems; i++) {
    free(x->items[i].jobs);
    free(x->items[i].edge);
    free(x->items[i].shifts);
  }
  for (size_t p = 0; p < x->nplans; p++)
    nsc_affinity_clear(&x->plans[p].g);
  free(x->items);
  free(x->plans);
}

/* Lines 3-11: G_c from the candidate's pairs whose link carries > 1 job. */
static int build_graph(plan *p, const ns_candidate *c, const char *fn) {
  const ns_affinity *all = &c->pairs;
  size_t *deg = calloc(all->nlinks ? all->nlinks : 1, sizeof *deg);
  if (deg == NULL)
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  for (size_t e = 0; e < all->nedges; e++)
    deg[all->edges[e].link]++;
  int rc = NS_OK;
  for (size_t e = 0; e < all->nedges && rc == NS_OK; e++)
    if (deg[all->edges[e].link] > 1)
      rc = nsc_affinity_add(&p->g, all->jobs[all->edges[e].job], all->links[all->edges[e].link],
                            0, fn);
  free(deg);
  if (rc == NS_OK && (p->loop = nsc_affinity_loop(&p->g)) < 0)
    rc = nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  return rc;
}

/* Lines 17-20: one item per link of G_c with its jobs J^l. */
static int build_items(rank_ctx *x, size_t ci) {
  plan *p = &x->plans[ci];
  p->first = x->nitems;
  p->count = p->loop ? 0 : p->g.nlinks;
  for (size_t l = 0; l < p->count; l++) {
    item *it = &x->items[p->first + l];
    memset(it, 0, sizeof *it);
    it->link = p->g.links[l];
  }
  x->nitems += p->count;
  for (size_t e = 0; e < p->g.nedges && p->count; e++)
    x->items[p->first + p->g.edges[e].link].njobs++;
  for (size_t l = 0; l < p->count; l++) {
    item *it = &x->items[p->first + l];
    it->jobs = malloc(it->njobs * sizeof *it->jobs);
    it->edge = malloc(it->njobs * sizeof *it->edge);
    it->shifts = malloc(it->njobs * sizeof *it->shifts);
    if (!it->jobs || !it->edge || !it->shifts)
      return NS_ENOMEM;
    it->njobs = 0;
  }
  for (size_t e = 0; e < p->g.nedges && p->count; e++) {
    item *it = &x->items[p->first + p->g.edges[e].link];
    it->edge[it->njobs] = e;
    it->jobs[it->njobs++] = p->g.jobs[p->g.edges[e].job];
  }
  return NS_OK;
}

static int build_plan(rank_ctx *x, ns_candidate *const *cands, size_t n, const char *fn) {
  size_t total = 0;
  x->plans = calloc(n, sizeof *x->plans);
  if (x->plans == NULL)
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  x->nplans = n;
  for (size_t i = 0; i < n; i++) {
    NSI_TRY(build_graph(&x->plans[i], cands[i], fn));
    total += x->plans[i].loop ? 0 : x->plans[i].g.nlinks;
  }
  x->items = calloc(total ? total : 1, sizeof *x->items);
  if (x->items == NULL)
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  for (size_t i = 0; i < n; i++)
    if (build_items(x, i) != NS_OK)
      return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  return NS_OK;
}

/* ---- scoring on threads ---------------------------------------------------------- */

static void score_item(item *it, const ns_cassini_opts *o) {
  it->status = nsc_link_score(it->jobs, it->njobs, it->link->capacity_gbps, o,
                              "ns_cassini_rank", &it->score, it->shifts);
  if (it->status != NS_OK) { /* the message is thread-local: keep a copy */
    strncpy(it->msg, ns_last_error(), sizeof it->msg - 1);
    it->msg[sizeof it->msg - 1] = '\0';
  }
}

static void *worker(void *arg) {
  rank_ctx *x = arg;
  for (;;) {
    size_t i = atomic_fetch_add(&x->next, 1);
    if (i >= x->nitems)
      return NULL;
    score_item(&x->items[i], x->o);
  }
}

static void score_all(rank_ctx *x) {
  size_t want = (size_t)x->o->threads, started = 0;
  if (want > x->nitems)
    want = x->nitems;
  pthread_t tid[NSC_MAX_THREADS];
  atomic_init(&x->next, 0);
  /* A thread that cannot be created only means fewer workers. */
  for (size_t t = 1; t < want && pthread_create(&tid[started], NULL, worker, x) == 0; t++)
    started++;
  worker(x);
  for (size_t t = 0; t < started; t++)
    pthread_join(tid[t], NULL);
}

/* ---- choosing and solving ---------------------------------------------------------- */

static int first_failure(const rank_ctx *x) {
  for (size_t i = 0; i < x->nitems; i++)
    if (x->items[i].status != NS_OK)
      return nsi_fail(x->items[i].status, "%s", x->items[i].msg);
  return NS_OK;
}

/* Line 24: mean of the link scores; NAN for a loop; 1.0 with no shared link. */
static double candidate_score(const rank_ctx *x, size_t ci) {
  const plan *p = &x->plans[ci];
  if (p->loop)
    return NAN;
  if (p->count == 0)
    return 1.0;
  double sum = 0;
  for (size_t l = 0; l < p->count; l++)
    sum += x->items[p->first + l].score;
  return sum / (double)p->count;
}

/* Line 26: Alg. 1 on G_best with the per-link shifts, mapped onto every job
   of the candidate (0 for jobs that share no link). */
static int solve_best(rank_ctx *x, size_t best, const ns_candidate *c, double **out,
                      const char *fn) {
  plan *p = &x->plans[best];
  for (size_t l = 0; l < p->count; l++) {
    const item *it = &x->items[p->first + l];
    for (size_t k = 0; k < it->njobs; k++)
      p->g.edges[it->edge[k]].w = it->shifts[k];
  }
  double *t = malloc((p->g.njobs ? p->g.njobs : 1) * sizeof *t);
  double *shift = calloc(c->pairs.njobs ? c->pairs.njobs : 1, sizeof *shift);
  int rc = t && shift ? nsc_affinity_bfs(&p->g, t, fn) : nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  for (size_t j = 0; rc == NS_OK && j < p->g.njobs; j++)
    shift[nsi_ptrmap_get(&c->pairs.job_ix, nsi_key_ptr(p->g.jobs[j]))] = t[j];
  free(t);
  if (rc != NS_OK) {
    free(shift);
    return rc;
  }
  *out = shift;
  return NS_OK;
}

static int check_rank_args(ns_candidate *const *cands, size_t n, const ns_cassini_opts *o,
                           size_t *best, const char *fn) {
  NSI_TRY(nsi_check_ptr(cands, fn, "cands"));
  NSI_TRY(nsi_check_ptr(o, fn, "o"));
  NSI_TRY(nsi_check_ptr(best, fn, "best"));
  if (n == 0)
    return nsi_fail(NS_EINVAL, "%s: n must be >= 1 (got 0)", fn);
  for (size_t i = 0; i < n; i++)
    if (cands[i] == NULL)
      return nsi_fail(NS_EINVAL, "%s: cands[%zu] is NULL", fn, i);
  nsi_ptrmap seen = {0};
  int rc = NS_OK;
  for (size_t i = 0; i < n && rc == NS_OK; i++) {
    if (nsi_ptrmap_get(&seen, nsi_key_ptr(cands[i])) != SIZE_MAX)
      rc = nsi_fail(NS_EINVAL, "%s: cands[%zu] repeats cands[%zu]", fn, i,
                    nsi_ptrmap_get(&seen, nsi_key_ptr(cands[i])));
    else if (nsi_ptrmap_put(&seen, nsi_key_ptr(cands[i]), i) != NS_OK)
      rc = nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  }
  nsi_ptrmap_free(&seen);
  return rc;
}

static int rank_run(rank_ctx *x, ns_candidate *const *cands, size_t n, size_t *best,
                    double *scores, double **shift, const char *fn) {
  NSI_TRY(build_plan(x, cands, n, fn));
  score_all(x);
  NSI_TRY(first_failure(x));
  size_t b = SIZE_MAX;
  for (size_t i = 0; i < n; i++) {
    double s = candidate_score(x, i);
    if (scores)
      scores[i] = s;
    if (!isnan(s) && (b == SIZE_MAX || s > candidate_score(x, b)))
      b = i; /* strict: ties keep the lowest index */
  }
  if (b == SIZE_MAX)
    return nsi_fail(NS_ELOOP, "%s: every candidate's Affinity graph has a loop", fn);
  NSI_TRY(solve_best(x, b, cands[b], shift, fn));
  *best = b;
  return NS_OK;
}

int ns_cassini_rank(ns_candidate *const *cands, size_t n, const ns_cassini_opts *o,
                    size_t *best, double *scores) {
  static const char fn[] = "ns_cassini_rank";
  NSI_TRY(check_rank_args(cands, n, o, best, fn));
  rank_ctx x = {0};
  x.o = o;
  double *shift = NULL;
  int rc = rank_run(&x, cands, n, best, scores, &shift, fn);
  ctx_free(&x);
  if (rc != NS_OK)
    return rc;
  for (size_t i = 0; i < n; i++) /* commit: only the best holds shifts */
    cands[i]->solved = 0;
  free(cands[*best]->shift);
  cands[*best]->shift = shift;
  cands[*best]->solved = 1;
  return NS_OK;
}
