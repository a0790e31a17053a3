/*
 * src/cassini/optimize.c - CASSINI Table 1: choose a rotation (in whole bins)
 * for every job on a link to minimise sum_alpha Excess(demand_alpha) (Eq. 1-4).
 *
 * Job 0 stays at rotation 0: rotating every circle together changes nothing,
 * so fixing one job removes only duplicate solutions.
 *
 * Exhaustive search: a depth-first walk over the rotations of jobs 1..n-1
 * (ordered by increasing number of rotations, so the job with the most is
 * scanned last) with incremental partial sums and a branch-and-bound cut,
 * seeded with the heuristic's result as the incumbent. The last job's
 * rotations are all scored at once with run/prefix sums (scan_rotations).
 * The cut is exact: excess never decreases when a job is added, and the
 * jobs still to place carry a fixed energy E_rest (rotation-invariant) that
 * can only go into the headroom H = sum max(0, C - S_alpha) or become
 * excess, so
 *     final excess >= excess(S) + max(0, E_rest - H).
 * For the same reason no placement beats max(0, E_total - |A| C), nor the
 * best excess of any two of the jobs alone (over all relative rotations):
 * once the incumbent reaches that floor it is optimal and the search stops. For two
 * jobs the greedy step already tries every rotation of job 1, so it is the
 * exhaustive search. Among equal optima the first one met in the search
 * order is kept (deterministic). Used when its work (|A| x prod positions)
 * is within NSC_EXACT_BUDGET_SMALL for <= 3 jobs, or NSC_EXACT_BUDGET_LARGE
 * for more.
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

double nsc_exact_work(const nsc_circle *c) {
  double w = (double)c->nbins;
  for (size_t j = 1; j < c->njobs; j++)
    w *= (double)c->positions[j];
  return w;
}

/* Scratch for scan_rotations. */
typedef struct scan_buf {
  double *prefix; /* per long-run value: prefix sums over 2|A| bins */
  double *out;    /* excess per rotation */
} scan_buf;

static int scan_buf_init(scan_buf *b, const nsc_circle *c) {
  size_t maxv = 1, maxpos = c->nbins; /* pair bounds scan every rotation */
  for (size_t j = 0; j < c->njobs; j++) {
    size_t v = c->lval_off[j + 1] - c->lval_off[j];
    maxv = v > maxv ? v : maxv;
  }
  b->prefix = malloc(maxv * (2 * c->nbins + 1) * sizeof *b->prefix);
  b->out = malloc(maxpos * sizeof *b->out);
  return b->prefix && b->out ? NS_OK : NS_ENOMEM;
}

static void scan_buf_free(scan_buf *b) {
  free(b->prefix);
  free(b->out);
}

/* out[k] = sum_alpha Excess(S_alpha + job j rotated by k) for every k < its
   positions. Incremental sums: job j's demand is a few runs of equal bins
   (one per phase and repetition, plus boundary bins), and for a run of value
   v the excess over any window is a difference of prefix sums of
   max(0, S + v - C). Cost O(values x |A| + positions x runs) instead of
   O(positions x |A|). */
static void scan_rotations(const nsc_circle *c, size_t j, const double *S, size_t npos,
                           scan_buf *b) {
  size_t n = c->nbins, nv = c->lval_off[j + 1] - c->lval_off[j];
  /* windows start below n + npos and are at most n long */
  size_t span = n + npos < 2 * n ? n + npos : 2 * n;
  for (size_t v = 0; v < nv; v++) {
    double val = c->lvals[c->lval_off[j] + v] - c->capacity, *P = b->prefix + v * (2 * n + 1);
    P[0] = 0;
    for (size_t i = 0; i < span; i++) {
      double x = S[i < n ? i : i - n] + val;
      P[i + 1] = P[i] + (x > 0 ? x : 0);
    }
  }
  const nsc_run *runs = c->runs + c->run_off[j];
  size_t nr = c->run_off[j + 1] - c->run_off[j];
  for (size_t k = 0; k < npos; k++) {
    double e = 0;
    for (size_t r = 0; r < nr; r++) {
      size_t st = runs[r].start + k; /* rotation by k delays the run by k bins */
      st = st >= n ? st - n : st;
      if (runs[r].vi != SIZE_MAX) {
        const double *P = b->prefix + runs[r].vi * (2 * n + 1);
        e += P[st + runs[r].len] - P[st];
        continue;
      }
      for (size_t i = 0; i < runs[r].len; i++) {
        size_t a = st + i < n ? st + i : st + i - n;
        double x = S[a] + runs[r].v - c->capacity;
        e += x > 0 ? x : 0;
      }
    }
    b->out[k] = e;
  }
}

/* ---- exhaustive search ----------------------------------------------------- */

typedef struct search {
  const nsc_circle *c;
  double *sums; /* level j: sum of jobs 0..j-1 at their current rotations */
  double *rest; /* rest[j]: energy of jobs j..n-1 */
  size_t *cur, *best_rot;
  size_t *order; /* job placed at each level: job 0, then by positions */
  double best;
  double floor; /* energy lower bound: reaching it ends the search */
  int found;    /* best was reached by the search (not just the incumbent) */
  scan_buf buf;
} search;

static int done(const search *s) { return s->found && s->best <= s->floor; }

/* Accepts the first rotation vector that reaches the incumbent, then only
   strict improvements. */
static void leaf(search *s, size_t level) {
  const nsc_circle *c = s->c;
  size_t j = s->order[level];
  scan_rotations(c, j, s->sums + level * c->nbins, c->positions[j], &s->buf);
  for (size_t k = 0; k < c->positions[j] && !done(s); k++) {
    double e = s->buf.out[k];
    if (e < s->best || (!s->found && e <= s->best)) {
      s->best = e;
      s->found = 1;
      s->cur[j] = k;
      memcpy(s->best_rot, s->cur, c->njobs * sizeof *s->cur);
    }
  }
}

static void descend(search *s, size_t level) {
  const nsc_circle *c = s->c;
  if (level == c->njobs - 1) {
    leaf(s, level);
    return;
  }
  size_t j = s->order[level];
  const double *S = s->sums + level * c->nbins;
  double *N = s->sums + (level + 1) * c->nbins;
  for (size_t k = 0; k < c->positions[j] && !done(s); k++) {
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
    double rest = s->rest[level + 1];
    double bound = excess + (rest > head ? rest - head : 0);
    if (bound > s->best)
      continue; /* no completion can reach the incumbent */
    s->cur[j] = k;
    descend(s, level + 1);
  }
}

static int optimize_heuristic(const nsc_circle *c, size_t *rot, double *excess);

/* Levels: job 0 (fixed), then the others by increasing positions (ties by
   index), so the job with the most rotations is the one scanned at the leaf. */
static void level_order(const nsc_circle *c, size_t *order) {
  for (size_t i = 0; i < c->njobs; i++)
    order[i] = i;
  for (size_t i = 2; i < c->njobs; i++)
    for (size_t k = i; k > 1 && c->positions[order[k]] < c->positions[order[k - 1]]; k--) {
      size_t t = order[k];
      order[k] = order[k - 1];
      order[k - 1] = t;
    }
}

/* A lower bound on the optimal excess: never below max(0, total energy -
   |A| C), and never below the best any two of the jobs can do alone at any
   relative rotation (adding demand never lowers excess). Stops early once
   it reaches `enough`. */
static double lower_bound(const nsc_circle *c, scan_buf *b, double enough) {
  double e = -(double)c->nbins * c->capacity, lb;
  for (size_t j = 0; j < c->njobs; j++)
    e += c->energy[j];
  lb = e > 0 ? e : 0;
  for (size_t i = 0; i < c->njobs && lb < enough; i++)
    for (size_t j = i + 1; j < c->njobs && lb < enough; j++) {
      scan_rotations(c, j, nsc_rotated(c, i, 0), c->nbins, b);
      double m = b->out[0];
      for (size_t k = 1; k < c->nbins; k++)
        m = b->out[k] < m ? b->out[k] : m;
      lb = m > lb ? m : lb;
    }
  return lb;
}

static int optimize_exact(const nsc_circle *c, size_t *rot, double *excess) {
  size_t n = c->njobs;
  double incumbent = 0, tol = 1e-9 * (1 + (double)c->nbins * c->capacity);
  NSI_TRY(optimize_heuristic(c, rot, &incumbent)); /* a good bound from the start */
  *excess = incumbent;
  if (n == 2) /* greedy tried every rotation of job 1: exhaustive */
    return NS_OK;
  search s = {c, malloc(n * c->nbins * sizeof(double)), malloc((n + 1) * sizeof(double)),
              calloc(n, sizeof(size_t)), calloc(n, sizeof(size_t)), malloc(n * sizeof(size_t)),
              incumbent + tol, 0, 0, {NULL, NULL}};
  int rc = s.sums && s.rest && s.cur && s.best_rot && s.order ? scan_buf_init(&s.buf, c)
                                                               : NS_ENOMEM;
  /* If the heuristic already meets the lower bound it is optimal. */
  if (rc == NS_OK && (s.floor = lower_bound(c, &s.buf, s.best - tol) + tol) < s.best) {
    level_order(c, s.order);
    s.rest[n] = 0;
    for (size_t l = n; l-- > 0;)
      s.rest[l] = s.rest[l + 1] + c->energy[s.order[l]];
    memcpy(s.sums + c->nbins, nsc_rotated(c, 0, 0), c->nbins * sizeof(double)); /* level 1 */
    descend(&s, 1);
    if (s.found) { /* else rounding kept every leaf above the incumbent */
      memcpy(rot, s.best_rot, n * sizeof *rot);
      *excess = s.best;
    }
  }
  free(s.sums);
  free(s.rest);
  free(s.cur);
  free(s.best_rot);
  free(s.order);
  scan_buf_free(&s.buf);
  return rc;
}

/* ---- heuristic ---------------------------------------------------------------- */

/* Best rotation of job j over `others` (the sum of every other job). */
static size_t best_rotation(const nsc_circle *c, size_t j, const double *others, scan_buf *b,
                            double *e_out) {
  size_t best_k = 0;
  scan_rotations(c, j, others, c->positions[j], b);
  for (size_t k = 1; k < c->positions[j]; k++)
    if (b->out[k] < b->out[best_k])
      best_k = k;
  *e_out = b->out[best_k];
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
                    scan_buf *b, double *cur) {
  for (int sweep = 0; sweep < NSC_MAX_SWEEPS; sweep++) {
    int improved = 0;
    for (size_t j = 1; j < c->njobs; j++) {
      sum_except(c, rot, placed, j, others);
      double e;
      size_t k = best_rotation(c, j, others, b, &e);
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
  scan_buf b = {NULL, NULL};
  int rc = NS_ENOMEM;
  if (ord && placed && others && scan_buf_init(&b, c) == NS_OK) {
    memset(rot, 0, c->njobs * sizeof *rot);
    placed[0] = 1;
    double e = 0;
    for (size_t i = 1; i < c->njobs; i++) { /* greedy placement */
      sum_except(c, rot, placed, SIZE_MAX, others);
      rot[ord[i]] = best_rotation(c, ord[i], others, &b, &e);
      placed[ord[i]] = 1;
    }
    descent(c, rot, placed, others, &b, &e);
    sum_except(c, rot, placed, SIZE_MAX, others);
    *excess = nsc_excess(others, c->nbins, c->capacity);
    rc = NS_OK;
  }
  free(ord);
  free(placed);
  free(others);
  scan_buf_free(&b);
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
