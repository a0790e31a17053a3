/*
 * src/cassini/circle.c - CASSINI (NSDI'24) §3: unified circles of the jobs
 * sharing one link, their discretization and their Eq. 1-2 excess and exact
 * score. The link-level entry points that use them (ns_cassini_score,
 * ns_cassini_score_at, ns_cassini_link_perimeter) are in score.c.
 *
 * Readings of ambiguous passages (ALGORITHMS.md "cassini" is binding):
 *  - Perimeter. Each iteration is rounded to a whole number of quanta
 *    (default 1 ms); p = LCM of the rounded iterations. Real profiles give huge
 *    LCMs (255 vs 177 ms -> 15045 ms), so p is capped at 16 x the longest
 *    rounded iteration: while the cap is exceeded the quantum is coarsened to
 *    q0*k, k = 2, 3, ... (k advances by k/64 once past 64, so the search stays
 *    short for tiny quanta), up to 10 % of the shortest iteration. The
 *    caller's own quantum is always tried first. If no quantum fits, or a
 *    quantum rounds an iteration to 0, the call fails with NS_ERANGE.
 *    ns_cassini_link_perimeter reports p and the effective quantum.
 *  - Rounding an iteration changes its length: a job's phases are stretched
 *    by (rounded / real iteration) so that they tile its rounded period on the
 *    circle. Time on the circle is not scaled: a rotation of x ms is a delay of
 *    x ms. Eq. 5 then reduces the delay modulo the real iteration, verbatim.
 *  - Discretization. Bins keep the paper's per-iteration precision: nominal
 *    width (step/360) x longest iteration, |A| = ceil((360/step) x p/max_iter).
 *    The bins tile the circle exactly (width p/|A|, which equals the nominal
 *    width whenever 360/step is an integer). A job's demand in a bin is the
 *    exact mean of its piecewise-constant profile over the bin.
 *  - Eq. 4 in whole bins: job j is tried at rotations 0 .. ceil(|A|/r_j)-1;
 *    the first job stays at 0 because rotating every job together changes
 *    nothing (optimize.c).
 *  - The score ns_cassini_score reports is Eq. 2 on the bins at the optimum
 *    (the paper's objective). ns_cassini_score_at evaluates Eq. 2 exactly in
 *    continuous time (|A| -> infinity) for shifts the caller chooses; the
 *    tests check the two against a 0.1 ms brute-force oracle.
 *  - A link with one job is not an error: it scores 1.0 if its demand fits
 *    under C everywhere, else 1 - its own excess / (|A| C), with shift 0.
 *    A link with no job is NS_EINVAL.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cassini/cassini_internal.h"

#define NSC_MAX_QUANTA (1ULL << 50) /* an iteration in quanta, before LCMs */
#define NSC_MAX_BINS ((size_t)1 << 22)

/* ---- perimeter ------------------------------------------------------------ */

static uint64_t gcd_u64(uint64_t a, uint64_t b) {
  while (b != 0) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* 1: fits the cap, 0: over the cap, <0: error (quantum too coarse/fine). */
static int try_quantum(const ns_job *const *jobs, size_t n, double q, const char *fn,
                       uint64_t *qiter, uint64_t *lcm) {
  uint64_t maxq = 0;
  for (size_t j = 0; j < n; j++) {
    double x = jobs[j]->iteration_ms / q;
    if (x >= (double)NSC_MAX_QUANTA)
      return nsi_fail(NS_ERANGE, "%s: time quantum %g ms is too fine for job '%s' (%g ms)", fn,
                      q, jobs[j]->name, jobs[j]->iteration_ms);
    uint64_t qi = (uint64_t)llround(x);
    if (qi == 0)
      return nsi_fail(NS_ERANGE,
                      "%s: time quantum %g ms rounds the %g ms iteration of job '%s' to 0", fn, q,
                      jobs[j]->iteration_ms, jobs[j]->name);
    qiter[j] = qi;
    if (qi > maxq)
      maxq = qi;
  }
  uint64_t l = 1, cap = maxq * NSC_PERIMETER_CAP;
  for (size_t j = 0; j < n; j++) {
    uint64_t step = l / gcd_u64(l, qiter[j]);
    if (step > cap / qiter[j])
      return 0; /* LCM only grows: already over the cap */
    l = step * qiter[j];
  }
  *lcm = l;
  return 1;
}

int nsc_perimeter(const ns_job *const *jobs, size_t n, double quantum_ms, const char *fn,
                  uint64_t *qiter, double *eff_quantum_ms, uint64_t *lcm_quanta) {
  double min_iter = INFINITY;
  for (size_t j = 0; j < n; j++) {
    NSI_TRY(nsi_job_check_phases(jobs[j], fn));
    if (jobs[j]->iteration_ms < min_iter)
      min_iter = jobs[j]->iteration_ms;
  }
  uint64_t *qi = qiter ? qiter : malloc(n * sizeof *qi);
  if (qi == NULL)
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  int rc = 0;
  double q = quantum_ms;
  uint64_t lcm = 0;
  /* The caller's quantum first, then coarser ones up to 10 % of min_iter. */
  for (uint64_t k = 1; k == 1 || q <= 0.1 * min_iter; k += (k < 64 ? 1 : k / 64)) {
    q = quantum_ms * (double)k;
    rc = try_quantum(jobs, n, q, fn, qi, &lcm);
    if (rc != 0)
      break;
  }
  if (qi != qiter)
    free(qi);
  if (rc < 0)
    return rc;
  if (rc == 0)
    return nsi_fail(NS_ERANGE,
                    "%s: unified-circle perimeter exceeds %d x the longest iteration for every "
                    "time quantum from %g ms to %g ms (10%% of the shortest iteration)",
                    fn, NSC_PERIMETER_CAP, quantum_ms, 0.1 * min_iter);
  *eff_quantum_ms = q;
  *lcm_quanta = lcm;
  return NS_OK;
}

/* ---- a job's profile on its rounded period ---------------------------------- */

/* Integral of the job's demand over [0, t) on the circle, t >= 0, with the
   phases stretched to `period` (see the header comment). */
static double profile_integral(const ns_job *job, double period, double t) {
  double scale = period / job->iteration_ms, per_iter = 0;
  for (size_t i = 0; i < job->nphases; i++)
    per_iter += job->phases[i].duration_ms * scale * job->phases[i].gbps;
  double whole = floor(t / period), rem = t - whole * period, acc = whole * per_iter;
  for (size_t i = 0; i < job->nphases && rem > 0; i++) {
    double d = job->phases[i].duration_ms * scale;
    acc += (rem < d ? rem : d) * job->phases[i].gbps;
    rem -= d;
  }
  return acc;
}

/* Demand of the job at time t (any real) on its circle of `period`. */
static double profile_at(const ns_job *job, double period, double t) {
  double scale = period / job->iteration_ms, x = fmod(t, period);
  if (x < 0)
    x += period;
  for (size_t i = 0; i < job->nphases; i++) {
    x -= job->phases[i].duration_ms * scale;
    if (x < 0)
      return job->phases[i].gbps;
  }
  return job->phases[job->nphases - 1].gbps; /* x rounded onto the period's end */
}

/* ---- circle build ----------------------------------------------------------- */

void nsc_circle_free(nsc_circle *c) {
  free(c->runs);
  free(c->run_off);
  free(c->lvals);
  free(c->lval_off);
  free(c->qiter);
  free(c->r);
  free(c->positions);
  free(c->demand);
  free(c->energy);
  memset(c, 0, sizeof *c);
}

static int circle_alloc(nsc_circle *c, size_t n, size_t nbins) {
  c->qiter = calloc(n, sizeof *c->qiter);
  c->r = calloc(n, sizeof *c->r);
  c->positions = calloc(n, sizeof *c->positions);
  c->energy = calloc(n, sizeof *c->energy);
  c->demand = nbins ? calloc(n * 2 * nbins, sizeof *c->demand) : NULL;
  if (!c->qiter || !c->r || !c->positions || !c->energy || (nbins && !c->demand)) {
    nsc_circle_free(c);
    return NS_ENOMEM;
  }
  return NS_OK;
}

/* Mean demand per bin (exact integral), stored twice so that a rotation by
   k bins is the contiguous window starting at nbins - k. */
static void fill_demand(nsc_circle *c, size_t j, const ns_job *job) {
  double period = (double)c->qiter[j] * c->quantum_ms, *d = c->demand + j * 2 * c->nbins;
  double prev = 0, sum = 0;
  for (size_t a = 0; a < c->nbins; a++) {
    double next = profile_integral(job, period, (double)(a + 1) * c->bin_ms);
    double v = (next - prev) / c->bin_ms;
    /* A bin inside one phase gets that phase's rate exactly (not the
       rounded integral difference), so equal bins form runs (optimize.c). */
    double mid = profile_at(job, period, ((double)a + 0.5) * c->bin_ms);
    if (fabs(v - mid) <= 1e-9 * (mid > 1 ? mid : 1))
      v = mid;
    d[a] = d[a + c->nbins] = v > 0 ? v : 0;
    sum += d[a];
    prev = next;
  }
  c->energy[j] = sum;
}

/* Runs of equal bins of job j (cyclic: a run may wrap past the last bin)
   into c->runs from *nr on, and the distinct values of its long runs. */
static void find_runs(nsc_circle *c, size_t j, size_t *nr, size_t *nv) {
  const double *d = c->demand + j * 2 * c->nbins;
  size_t n = c->nbins, a0 = 0;
  while (a0 < n && d[a0] == d[(a0 + n - 1) % n])
    a0++;
  if (a0 == n) /* constant: one run */
    a0 = 0;
  c->run_off[j] = *nr;
  c->lval_off[j] = *nv;
  for (size_t i = 0; i < n;) {
    size_t st = (a0 + i) % n, len = 1;
    while (i + len < n && d[(a0 + i + len) % n] == d[st])
      len++;
    nsc_run *r = &c->runs[(*nr)++];
    *r = (nsc_run){st, len, d[st], SIZE_MAX};
    if (len >= NSC_LONG_RUN) {
      size_t k = c->lval_off[j];
      while (k < *nv && c->lvals[k] != r->v)
        k++;
      if (k == *nv)
        c->lvals[(*nv)++] = r->v;
      r->vi = k - c->lval_off[j];
    }
    i += len;
  }
  c->run_off[j + 1] = *nr;
  c->lval_off[j + 1] = *nv;
}

static int build_runs(nsc_circle *c) {
  size_t n = c->njobs * c->nbins; /* at most one run per bin */
  c->runs = malloc(n * sizeof *c->runs);
  c->lvals = malloc(n * sizeof *c->lvals);
  c->run_off = calloc(c->njobs + 1, sizeof *c->run_off);
  c->lval_off = calloc(c->njobs + 1, sizeof *c->lval_off);
  if (!c->runs || !c->lvals || !c->run_off || !c->lval_off)
    return NS_ENOMEM;
  size_t nr = 0, nv = 0;
  for (size_t j = 0; j < c->njobs; j++)
    find_runs(c, j, &nr, &nv);
  return NS_OK;
}

/* The perimeter (in quanta of *q) and |A|: per-iteration precision, 360/step
   bins per longest iteration. NS_ERANGE past NSC_MAX_BINS. */
static int circle_size(const ns_job *const *jobs, size_t n, const ns_cassini_opts *o,
                       const char *fn, uint64_t *qiter, double *q, uint64_t *lcm,
                       size_t *nbins) {
  NSI_TRY(nsc_perimeter(jobs, n, o->quantum_ms, fn, qiter, q, lcm));
  uint64_t maxq = 0;
  for (size_t j = 0; j < n; j++)
    maxq = qiter[j] > maxq ? qiter[j] : maxq;
  double bins = ceil(360.0 / o->step_deg * (double)(*lcm / maxq) - 1e-9);
  if (bins > (double)NSC_MAX_BINS)
    return nsi_fail(NS_ERANGE, "%s: angle step %g deg needs %.0f bins on this circle (max %zu)",
                    fn, o->step_deg, bins, NSC_MAX_BINS);
  *nbins = (size_t)bins;
  return NS_OK;
}

/* Per job: r_j, the Eq. 4 rotations to try, and its bin means. */
static int circle_fill(nsc_circle *c, const ns_job *const *jobs, uint64_t lcm, const char *fn) {
  for (size_t j = 0; j < c->njobs; j++) {
    double period = (double)c->qiter[j] * c->quantum_ms;
    double total = profile_integral(jobs[j], period, c->perimeter_ms);
    if (!isfinite(total) || !isfinite(total / c->bin_ms)) /* bins would be inf - inf */
      return nsi_fail(NS_ERANGE, "%s: the demand of job '%s' overflows a double", fn,
                      jobs[j]->name);
    c->r[j] = lcm / c->qiter[j];
    /* Eq. 4: Delta_j in [0, 2 pi / r_j) */
    double pos = ceil((double)c->nbins / (double)c->r[j] - 1e-9);
    c->positions[j] = j == 0 || pos < 1 ? 1 : (size_t)pos;
    fill_demand(c, j, jobs[j]);
  }
  return NS_OK;
}

int nsc_circle_build(nsc_circle *c, const ns_job *const *jobs, size_t n, double cap,
                     const ns_cassini_opts *o, const char *fn) {
  memset(c, 0, sizeof *c);
  uint64_t *qiter = malloc(n * sizeof *qiter), lcm = 0;
  size_t nbins = 0;
  double q = 0;
  if (qiter == NULL)
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  int rc = circle_size(jobs, n, o, fn, qiter, &q, &lcm, &nbins);
  if (rc == NS_OK && circle_alloc(c, n, nbins) != NS_OK)
    rc = nsi_fail(NS_ENOMEM, "%s: out of memory for %zu bins", fn, nbins);
  if (rc == NS_OK) {
    memcpy(c->qiter, qiter, n * sizeof *qiter);
    c->njobs = n;
    c->capacity = cap;
    c->quantum_ms = q;
    c->perimeter_ms = (double)lcm * q;
    c->nbins = nbins;
    c->bin_ms = c->perimeter_ms / (double)nbins;
    rc = circle_fill(c, jobs, lcm, fn);
  }
  if (rc == NS_OK && build_runs(c) != NS_OK)
    rc = nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  free(qiter);
  if (rc != NS_OK)
    nsc_circle_free(c);
  return rc;
}

double nsc_excess(const double *s, size_t nbins, double cap) {
  double e = 0;
  for (size_t a = 0; a < nbins; a++)
    e += s[a] > cap ? s[a] - cap : 0; /* Eq. 1 */
  return e;
}

/* ---- exact (continuous-time) score ------------------------------------------- */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double wrap(double x, double p) {
  double y = fmod(x, p);
  return y < 0 ? y + p : y;
}

/* Sorted phase boundaries of every job on the circle, 0 and p included. */
static double *boundaries(const nsc_circle *c, const ns_job *const *jobs, const double *shifts,
                          size_t *count) {
  size_t n = 2;
  for (size_t j = 0; j < c->njobs; j++)
    n += (size_t)c->r[j] * jobs[j]->nphases;
  double *b = malloc(n * sizeof *b);
  if (b == NULL)
    return NULL;
  size_t k = 0;
  b[k++] = 0;
  b[k++] = c->perimeter_ms;
  for (size_t j = 0; j < c->njobs; j++) {
    double period = (double)c->qiter[j] * c->quantum_ms, scale = period / jobs[j]->iteration_ms;
    for (uint64_t rep = 0; rep < c->r[j]; rep++) {
      double t = (double)rep * period + shifts[j];
      for (size_t i = 0; i < jobs[j]->nphases; i++) {
        b[k++] = wrap(t, c->perimeter_ms);
        t += jobs[j]->phases[i].duration_ms * scale;
      }
    }
  }
  qsort(b, k, sizeof *b, cmp_double);
  *count = k;
  return b;
}

int nsc_exact_score(const nsc_circle *c, const ns_job *const *jobs, const double *shifts_ms,
                    double *score) {
  size_t n = 0;
  double *b = boundaries(c, jobs, shifts_ms, &n);
  if (b == NULL)
    return NS_ENOMEM;
  double excess = 0;
  for (size_t s = 0; s + 1 < n; s++) {
    double len = b[s + 1] - b[s], mid = 0.5 * (b[s] + b[s + 1]), d = 0;
    if (len <= 0)
      continue;
    for (size_t j = 0; j < c->njobs; j++)
      d += profile_at(jobs[j], (double)c->qiter[j] * c->quantum_ms, mid - shifts_ms[j]);
    excess += d > c->capacity ? (d - c->capacity) * len : 0;
  }
  free(b);
  *score = 1.0 - excess / (c->perimeter_ms * c->capacity); /* Eq. 2, |A| -> inf */
  return NS_OK;
}
