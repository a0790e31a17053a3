/*
 * src/cassini/opts.c - the CASSINI options handle: angle step (the paper's
 * discretization precision, 5 degrees by default per §5.7), time quantum of
 * the unified-circle perimeter, the opt-in thread count of ns_cassini_rank
 * and the drift threshold of ns_cassini_readjust (§5.7: 5 %). Setters validate before they write.
 */
#include <math.h>
#include <stdlib.h>

#include "cassini/cassini_internal.h"

ns_cassini_opts *ns_cassini_opts_new(void) {
  ns_cassini_opts *o = malloc(sizeof *o);
  if (o == NULL) {
    nsi_fail(NS_ENOMEM, "ns_cassini_opts_new: out of memory");
    return NULL;
  }
  o->step_deg = NSC_DEFAULT_STEP_DEG;
  o->quantum_ms = NSC_DEFAULT_QUANTUM_MS;
  o->threads = 1;
  o->drift = NSC_DEFAULT_DRIFT;
  return o;
}

void ns_cassini_opts_free(ns_cassini_opts *o) { free(o); }

int ns_cassini_opts_set_angle_step_deg(ns_cassini_opts *o, double deg) {
  static const char fn[] = "ns_cassini_opts_set_angle_step_deg";
  NSI_TRY(nsi_check_ptr(o, fn, "o"));
  NSI_TRY(nsi_check_finite_gt0(deg, fn, "deg"));
  if (deg > 180)
    return nsi_fail(NS_EINVAL, "%s: deg must be in (0, 180] (got %s)", fn, NSI_REAL_STR(deg));
  o->step_deg = deg;
  return NS_OK;
}

int ns_cassini_opts_set_time_quantum_ms(ns_cassini_opts *o, double ms) {
  static const char fn[] = "ns_cassini_opts_set_time_quantum_ms";
  NSI_TRY(nsi_check_ptr(o, fn, "o"));
  NSI_TRY(nsi_check_finite_gt0(ms, fn, "ms"));
  o->quantum_ms = ms;
  return NS_OK;
}

int ns_cassini_opts_set_threads(ns_cassini_opts *o, int threads) {
  static const char fn[] = "ns_cassini_opts_set_threads";
  NSI_TRY(nsi_check_ptr(o, fn, "o"));
  NSI_TRY(nsi_check_int(threads, 1, NSC_MAX_THREADS, fn, "threads"));
  o->threads = threads;
  return NS_OK;
}

double ns_cassini_opts_angle_step_deg(const ns_cassini_opts *o) {
  if (nsi_check_ptr(o, "ns_cassini_opts_angle_step_deg", "o") < 0)
    return NAN;
  return o->step_deg;
}

double ns_cassini_opts_time_quantum_ms(const ns_cassini_opts *o) {
  if (nsi_check_ptr(o, "ns_cassini_opts_time_quantum_ms", "o") < 0)
    return NAN;
  return o->quantum_ms;
}

int ns_cassini_opts_threads(const ns_cassini_opts *o) {
  NSI_TRY(nsi_check_ptr(o, "ns_cassini_opts_threads", "o"));
  return o->threads;
}

int ns_cassini_opts_set_drift_fraction(ns_cassini_opts *o, double fraction) {
  static const char fn[] = "ns_cassini_opts_set_drift_fraction";
  NSI_TRY(nsi_check_ptr(o, fn, "o"));
  NSI_TRY(nsi_check_finite_gt0(fraction, fn, "fraction"));
  if (fraction >= 1)
    return nsi_fail(NS_EINVAL, "%s: fraction must be in (0, 1) (got %g)", fn, fraction);
  o->drift = fraction;
  return NS_OK;
}

double ns_cassini_opts_drift_fraction(const ns_cassini_opts *o) {
  if (nsi_check_ptr(o, "ns_cassini_opts_drift_fraction", "o") < 0)
    return NAN;
  return o->drift;
}
