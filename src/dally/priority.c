/*
 * src/dally/priority.c - Dally's network-sensitive priority (§4.3.1):
 *   W_compl = I_compl / I_total-expected,  T_norm = T_run / T_total-ideal-run,
 *   Nw_sens = W_compl / T_norm,
 * where T_total-ideal-run = compute time per iteration x expected
 * iterations. A lower Nw_sens means the job endured more network-induced
 * slowdown; resource offers go in increasing Nw_sens.
 */
#include <math.h>
#include <stdlib.h>

#include "dally/dally_internal.h"

static double fail_nan(int status, const char *fmt, const char *fn, double v) {
  nsi_fail(status, fmt, fn, v);
  return NAN;
}

double ns_dally_priority(uint64_t iters_done, uint64_t iters_total, double run_ms,
                         double ideal_run_ms) {
  static const char *fn = "ns_dally_priority";
  if (iters_total == 0)
    return fail_nan(NS_EINVAL, "%s: iters_total must be >= 1 (got %g)", fn, 0.0);
  if (iters_done > iters_total) {
    nsi_fail(NS_EINVAL, "%s: iters_done (%llu) exceeds iters_total (%llu)", fn,
             (unsigned long long)iters_done, (unsigned long long)iters_total);
    return NAN;
  }
  if (nsi_check_real_ge0(run_ms, fn, "run_ms") < 0 ||
      nsi_check_real_gt0(ideal_run_ms, fn, "ideal_run_ms") < 0)
    return NAN;
  if (run_ms == 0) {
    /* Not run yet: no slowdown endured, the ideal ratio (reading 9). */
    if (iters_done == 0)
      return 1.0;
    return fail_nan(NS_EINVAL, "%s: run_ms is %g but iters_done > 0", fn, run_ms);
  }
  double w = (double)iters_done / (double)iters_total;
  double nw = w * (ideal_run_ms / run_ms); /* W_compl / T_norm */
  if (!isfinite(nw))
    return fail_nan(NS_ERANGE, "%s: Nw_sens overflows a double (run_ms %g)", fn, run_ms);
  return nw;
}

double ns_dally_job_priority(const ns_job *job, double run_ms) {
  static const char *fn = "ns_dally_job_priority";
  if (nsi_check_ptr(job, fn, "job") < 0)
    return NAN;
  double per_iter = job->forward_ms + job->backward_ms;
  if (per_iter <= 0)
    return fail_nan(NS_EINVAL,
                    "%s: job has no compute time per iteration (got %g ms; "
                    "ns_job_set_compute_ms)",
                    fn, per_iter);
  double ideal = per_iter * (double)job->iters_total;
  if (!isfinite(ideal))
    return fail_nan(NS_ERANGE, "%s: ideal run time overflows (%g ms per iteration)", fn,
                    per_iter);
  return ns_dally_priority(job->iters_done, job->iters_total, run_ms, ideal);
}

typedef struct keyed {
  double key;
  size_t i;
} keyed;

static int cmp_keyed(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return (x->i > y->i) - (x->i < y->i); /* ties: earlier first (stable) */
}

int ns_dally_offer_order(const double *nw_sens, size_t n, size_t *order) {
  static const char *fn = "ns_dally_offer_order";
  if (n == 0)
    return NS_OK;
  NSI_TRY(nsi_check_ptr(nw_sens, fn, "nw_sens"));
  NSI_TRY(nsi_check_ptr(order, fn, "order"));
  for (size_t i = 0; i < n; i++)
    if (isnan(nw_sens[i]) || nw_sens[i] < 0)
      return nsi_fail(NS_EINVAL, "%s: nw_sens[%zu] must be >= 0 and not NaN (got %s)", fn, i,
                      NSI_REAL_STR(nw_sens[i]));
  if (n > SIZE_MAX / sizeof(keyed))
    return nsi_fail(NS_ENOMEM, "%s: n (%zu) too large", fn, n);
  keyed *k = malloc(n * sizeof *k);
  if (k == NULL)
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  for (size_t i = 0; i < n; i++)
    k[i] = (keyed){nw_sens[i], i};
  qsort(k, n, sizeof *k, cmp_keyed); /* §4.3.1: increasing Nw_sens */
  for (size_t i = 0; i < n; i++)
    order[i] = k[i].i;
  free(k);
  return NS_OK;
}
