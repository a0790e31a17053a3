/*
 * src/cassini/optimize.c - CASSINI Table 1: choose a rotation (in whole bins)
 * for every job on a link to minimise sum_alpha Excess(demand_alpha) (Eq. 1-4).
 *
 * Job 0 stays at rotation 0: rotating every circle together changes nothing,
 * so fixing one job removes only duplicate solutions.
 *
 * Exhaustive search: a depth-first walk over the rotations of jobs 1..n-1 with
 * incremental partial sums and a branch-and-bound cut. The cut is exact:
 * excess never decreases when a job is added, and the jobs still to place
 * carry a fixed energy E_rest (rotation-invariant) that can only go into the
 * headroom H = sum max(0, C - S_alpha) or become excess, so
 *     final excess >= excess(S) + max(0, E_rest - H).
 * Only strict improvements replace the incumbent, so the result is the
 * lexicographically first optimal rotation vector. Used when its work
 * (|A| x prod positions) is within NSC_EXACT_BUDGET_SMALL for <= 3 jobs, or
 * NSC_EXACT_BUDGET_LARGE for more.
 *
 * Heuristic (more jobs, or finer steps than the exact budget allows): place
 * the jobs greedily, heaviest first (job 0 fixed at 0), each at its best
 * rotation given the jobs already placed; then coordinate descent: re-place
 * each job at its best rotation given all the others until a sweep improves
 * nothing (at most NSC_MAX_SWEEPS sweeps). Deterministic; ties go to the
 * lowest rotation. Its gap to exhaustive search is measured by
 * bench/bench_cassini.c and recorded in bench/RESULTS.md.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cassini/cassini_internal.h"

#define NSC_MAX_SWEEPS 64
#define NSC_BLOCK 32 /* bins between early-exit checks in the leaf loop */

double nsc_exact_work(const nsc_circle *c) {
  double w = (double)c->nbins;
  for (size_t j = 1; j < c->njobs; j++)
    w *= (double)c->positions[j];
  return w;
}

/* Excess of S + rotated d, giving up (returning >= limit) once it reaches
   `limit`. */
static double excess_sum(const double *s, const double *d, size_t nbins, double cap,
                         double limit) {
  double e = 0;
  for (size_t a0 = 0; a0 < nbins; a0 += NSC_BLOCK) {
    size_t a1 = a0 + NSC_BLOCK < nbins ? a0 + NSC_BLOCK : nbins;
    for (size_t a = a0; a < a1; a++) {
      double v = s[a] + d[a] - cap;
      e += v > 0 ? v : 0;
    }
    if (e >= limit)
      return e;
  }
  return e;
}

/* ---- exhaustive search ----------------------------------------------------- */

typedef struct search {
  const nsc_circle *c;
  double *sums; /* level j: sum of jobs 0..j-1 at their current rotations */
  double *rest; /* rest[j]: energy of jobs j..n-1 */
  size_t *cur, *best_rot;
  double best;
} search;

static void leaf(search *s, size_t j) {
  const nsc_circle *c = s->c;
  const double *S = s->sums + j * c->nbins;
  for (size_t k = 0; k < c->positions[j] && s->best > 0; k++) {
    double e = excess_sum(S, nsc_rotated(c, j, k), c->nbins, c->capacity, s->best);
    if (e < s->best) {
      s->best = e;
      s->cur[j] = k;
      memcpy(s->best_rot, s->cur, c->njobs * sizeof *s->cur);
    }
  }
}

static void descend(search *s, size_t j) {
  const nsc_circle *c = s->c;
  if (j == c->njobs - 1) {
    leaf(s, j);
    return;
  }
  const double *S = s->sums + j * c->nbins;
  double *N = s->sums + (j + 1) * c->nbins;
  for (size_t k = 0; k < c->positions[j] && s->best > 0; k++) {
    const double *d = nsc_rotated(c, j, k);
    double excess = 0, head = 0;
    for (size_t a = 0; a < c->nbins; a++) {
      double v = S[a] + d[a];
      N[a] = v;
      if (v > c->capacity)
        excess += v - c->capacity;
      else
        head += c->capacity - v;
    }
    double bound = excess + (s->rest[j + 1] > head ? s->rest[j + 1] - head : 0);
    if (bound >= s->best)
      continue; /* no completion can strictly improve */
    s->cur[j] = k;
    descend(s, j + 1);
  }
}

static int optimize_exact(const nsc_circle *c, size_t *rot, double *excess) {
  size_t n = c->njobs;
  search s = {c, malloc(n * c->nbins * sizeof(double)), malloc((n + 1) * sizeof(double)),
              calloc(n, sizeof(size_t)), calloc(n, sizeof(size_t)), INFINITY};
  int rc = NS_ENOMEM;
  if (s.sums && s.rest && s.cur && s.best_rot) {
    s.rest[n] = 0;
    for (size_t j = n; j-- > 0;)
      s.rest[j] = s.rest[j + 1] + c->energy[j];
    memcpy(s.sums + c->nbins, nsc_rotated(c, 0, 0), c->nbins * sizeof(double)); /* level 1 */
    descend(&s, 1);
    memcpy(rot, s.best_rot, n * sizeof *rot);
    *excess = s.best;
    rc = NS_OK;
  }
  free(s.sums);
  free(s.rest);
  free(s.cur);
  free(s.best_rot);
  return rc;
}

/* ---- heuristic ---------------------------------------------------------------- */

/* Best rotation of job j over `others` (the sum of every other job). */
static size_t best_rotation(const nsc_circle *c, size_t j, const double *others, double *e_out) {
  size_t best_k = 0;
  double best = INFINITY;
  for (size_t k = 0; k < c->positions[j]; k++) {
    double e = excess_sum(others, nsc_rotated(c, j, k), c->nbins, c->capacity, best);
    if (e < best) {
      best = e;
      best_k = k;
    }
  }
  *e_out = best;
  return best_k;
}

/* others = sum of every placed job except `skip` (SIZE_MAX: none). */
static void sum_except(const nsc_circle *c, const size_t *rot, const unsigned char *placed,
                       size_t skip, double *others) {
  memset(others, 0, c->nbins * sizeof *others);
  for (size_t i = 0; i < c->njobs; i++) {
    if (i == skip || !placed[i])
      continue;
    const double *d = nsc_rotated(c, i, rot[i]);
    for (size_t a = 0; a < c->nbins; a++)
      others[a] += d[a];
  }
}

/* Heavier first; ties by index (deterministic). */
static size_t *greedy_order(const nsc_circle *c) {
  size_t *ord = malloc(c->njobs * sizeof *ord);
  if (ord == NULL)
    return NULL;
  for (size_t i = 0; i < c->njobs; i++)
    ord[i] = i;
  for (size_t i = 2; i < c->njobs; i++) /* insertion sort of 1..n-1; job 0 stays first */
    for (size_t k = i; k > 1 && c->energy[ord[k]] > c->energy[ord[k - 1]]; k--) {
      size_t t = ord[k];
      ord[k] = ord[k - 1];
      ord[k - 1] = t;
    }
  return ord;
}

static void descent(const nsc_circle *c, size_t *rot, unsigned char *placed, double *others,
                    double *cur) {
  for (int sweep = 0; sweep < NSC_MAX_SWEEPS; sweep++) {
    int improved = 0;
    for (size_t j = 1; j < c->njobs; j++) {
      sum_except(c, rot, placed, j, others);
      double e;
      size_t k = best_rotation(c, j, others, &e);
      if (e < *cur - 1e-12 * (double)c->nbins * c->capacity) {
        rot[j] = k;
        *cur = e;
        improved = 1;
      }
    }
    if (!improved)
      return;
  }
}

static int optimize_heuristic(const nsc_circle *c, size_t *rot, double *excess) {
  size_t *ord = greedy_order(c);
  unsigned char *placed = calloc(c->njobs, 1);
  double *others = malloc(c->nbins * sizeof *others);
  int rc = NS_ENOMEM;
  if (ord && placed && others) {
    memset(rot, 0, c->njobs * sizeof *rot);
    placed[0] = 1;
    double e = 0;
    for (size_t i = 1; i < c->njobs; i++) { /* greedy placement */
      sum_except(c, rot, placed, SIZE_MAX, others);
      rot[ord[i]] = best_rotation(c, ord[i], others, &e);
      placed[ord[i]] = 1;
    }
    descent(c, rot, placed, others, &e);
    sum_except(c, rot, placed, SIZE_MAX, others);
    *excess = nsc_excess(others, c->nbins, c->capacity);
    rc = NS_OK;
  }
  free(ord);
  free(placed);
  free(others);
  return rc;
}

/* ---- dispatch --------------------------------------------------------------- */

int nsc_optimize(const nsc_circle *c, enum nsc_method m, const char *fn, size_t *rot,
                 double *excess, enum nsc_method *used) {
  if (c->njobs == 1) { /* nothing to rotate: the job's own excess */
    rot[0] = 0;
    *excess = nsc_excess(nsc_rotated(c, 0, 0), c->nbins, c->capacity);
    if (used)
      *used = NSC_EXACT;
    return NS_OK;
  }
  double work = nsc_exact_work(c);
  double budget = (double)(c->njobs <= 3 ? NSC_EXACT_BUDGET_SMALL : NSC_EXACT_BUDGET_LARGE);
  if (m == NSC_AUTO)
    m = work <= budget ? NSC_EXACT : NSC_HEURISTIC;
  double sweep = 0;
  for (size_t j = 1; j < c->njobs; j++)
    sweep += (double)c->positions[j] * (double)c->nbins;
  if (m == NSC_HEURISTIC && sweep > (double)NSC_HEURISTIC_BUDGET)
    return nsi_fail(NS_ERANGE,
                    "%s: angle step too fine for %zu jobs: %zu bins x %.0f rotations per sweep",
                    fn, c->njobs, c->nbins, sweep / (double)c->nbins);
  if (used)
    *used = m;
  int rc = m == NSC_EXACT ? optimize_exact(c, rot, excess) : optimize_heuristic(c, rot, excess);
  if (rc != NS_OK)
    return nsi_fail(rc, "%s: out of memory in the Table 1 optimizer", fn);
  return NS_OK;
}
