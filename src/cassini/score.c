/*
 * src/cassini/score.c - CASSINI's link-level entry points: ns_cassini_score
 * (unified circles, Table 1 optimizer, Eq. 5 shifts), ns_cassini_score_at
 * (exact Eq. 2 for given shifts) and ns_cassini_link_perimeter. The readings
 * of the paper they follow are recorded in circle.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cassini/cassini_internal.h"

#define NSC_MAX_SEGMENTS ((size_t)1 << 24) /* exact score: phase boundaries */

/* ---- link-level optimisation -------------------------------------------------- */

int nsc_link_score(const ns_job *const *jobs, size_t n, double cap, const ns_cassini_opts *o,
                   const char *fn, double *score, double *shifts_ms) {
  nsc_circle c;
  NSI_TRY(nsc_circle_build(&c, jobs, n, cap, o, fn));
  size_t *rot = calloc(n, sizeof *rot);
  double excess = 0;
  int rc = rot ? nsc_optimize(&c, NSC_AUTO, fn, rot, &excess, NULL)
               : nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  if (rc == NS_OK && !isfinite(nsc_score_of(&c, excess)))
    rc = nsi_fail(NS_ERANGE, "%s: score overflows: demands of %g+ Gbps against a %g Gbps link",
                  fn, excess / (double)c.nbins, cap); /* never report NaN/inf */
  if (rc == NS_OK) {
    *score = nsc_score_of(&c, excess);
    for (size_t j = 0; j < n; j++) /* Eq. 5: (Delta/2pi * p) mod iter_j */
      shifts_ms[j] = fmod((double)rot[j] * c.bin_ms, jobs[j]->iteration_ms);
  }
  free(rot);
  nsc_circle_free(&c);
  return rc;
}

/* ---- public entry points --------------------------------------------------- */

static int check_link(const ns_link *link, const ns_cassini_opts *o, const char *fn) {
  NSI_TRY(nsi_check_ptr(link, fn, "link"));
  NSI_TRY(nsi_check_ptr(o, fn, "o"));
  NSI_TRY(nsi_check_finite_gt0(link->capacity_gbps, fn, "link capacity"));
  if (link->njobs == 0)
    return nsi_fail(NS_EINVAL, "%s: link '%s' carries no jobs (ns_link_add_job)", fn,
                    link->name);
  return NS_OK;
}

/* The caller's shift array must hold one entry per job of the link. */
static int check_nshifts(const ns_link *link, size_t nshifts, const char *fn) {
  if (nshifts < link->njobs)
    return nsi_fail(NS_EINVAL, "%s: nshifts (%zu) must be >= the link's job count (%zu)", fn,
                    nshifts, link->njobs);
  return NS_OK;
}

int ns_cassini_score(const ns_link *link, const ns_cassini_opts *o, double *score,
                     double *shifts_ms, size_t nshifts) {
  static const char fn[] = "ns_cassini_score";
  NSI_TRY(check_link(link, o, fn));
  NSI_TRY(nsi_check_ptr(score, fn, "score"));
  NSI_TRY(nsi_check_ptr(shifts_ms, fn, "shifts_ms"));
  NSI_TRY(check_nshifts(link, nshifts, fn));
  double *tmp = malloc(link->njobs * sizeof *tmp), s = 0;
  if (tmp == NULL)
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  int rc = nsc_link_score(link->jobs, link->njobs, link->capacity_gbps, o, fn, &s, tmp);
  if (rc == NS_OK) {
    *score = s;
    memcpy(shifts_ms, tmp, link->njobs * sizeof *tmp);
  }
  free(tmp);
  return rc;
}

int ns_cassini_score_at(const ns_link *link, const ns_cassini_opts *o, const double *shifts_ms,
                        size_t nshifts, double *score) {
  static const char fn[] = "ns_cassini_score_at";
  NSI_TRY(check_link(link, o, fn));
  NSI_TRY(nsi_check_ptr(shifts_ms, fn, "shifts_ms"));
  NSI_TRY(nsi_check_ptr(score, fn, "score"));
  NSI_TRY(check_nshifts(link, nshifts, fn));
  for (size_t j = 0; j < link->njobs; j++)
    if (!isfinite(shifts_ms[j]))
      return nsi_fail(NS_EINVAL, "%s: shifts_ms[%zu] must be finite (got %s)", fn, j,
                      NSI_REAL_STR(shifts_ms[j]));
  nsc_circle c;
  NSI_TRY(nsc_circle_build(&c, link->jobs, link->njobs, link->capacity_gbps, o, fn));
  double segs = 2; /* double: r_j x phases may exceed size_t */
  for (size_t j = 0; j < c.njobs; j++)
    segs += (double)c.r[j] * (double)link->jobs[j]->nphases;
  int rc = NS_OK;
  double s = NAN;
  if (segs > (double)NSC_MAX_SEGMENTS)
    rc = nsi_fail(NS_ERANGE, "%s: %.0f phase boundaries on the circle (max %zu)", fn, segs,
                  NSC_MAX_SEGMENTS);
  else if (nsc_exact_score(&c, link->jobs, shifts_ms, &s) != NS_OK)
    rc = nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  else if (!isfinite(s))
    rc = nsi_fail(NS_ERANGE, "%s: score overflows (demands too large for the capacity)", fn);
  if (rc == NS_OK)
    *score = s;
  nsc_circle_free(&c);
  return rc;
}

int ns_cassini_link_perimeter(const ns_link *link, const ns_cassini_opts *o,
                              double *perimeter_ms, double *quantum_ms) {
  static const char fn[] = "ns_cassini_link_perimeter";
  NSI_TRY(check_link(link, o, fn));
  NSI_TRY(nsi_check_ptr(perimeter_ms, fn, "perimeter_ms"));
  NSI_TRY(nsi_check_ptr(quantum_ms, fn, "quantum_ms"));
  double q = 0;
  uint64_t lcm = 0;
  NSI_TRY(nsc_perimeter(link->jobs, link->njobs, o->quantum_ms, fn, NULL, &q, &lcm));
  *perimeter_ms = (double)lcm * q;
  *quantum_ms = q;
  return NS_OK;
}
