/*
 * src/core/error.c - status strings, the per-thread last-error message and
 * the argument checks every entry point shares (libgit2's model: negative
 * status codes plus a thread-local message that is never NULL).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

static _Thread_local char last_error[512];

const char *ns_strerror(int status) {
  switch (status) {
  case NS_OK: return "success";
  case NS_EINVAL: return "invalid argument";
  case NS_ENOMEM: return "out of memory";
  case NS_ENOTFOUND: return "not found";
  case NS_ENOSPACE: return "no feasible placement now";
  case NS_ESTATE: return "object in the wrong state";
  case NS_ELOOP: return "affinity graph has a loop";
  case NS_ERANGE: return "numeric limit exceeded";
  case NS_ESOLVER: return "MILP solver failed or is unavailable";
  case NS_EUNSUPPORTED: return "operation not supported";
  case NS_ECANCELED: return "cancelled on request";
  default: return "unknown status";
  }
}

const char *ns_last_error(void) { return last_error; }

int nsi_fail(int status, const char *fmt, ...) {
  /* Format into a local buffer first, so that callers can re-word an inner
     failure by passing ns_last_error() itself as an argument. */
  char msg[sizeof last_error];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  memcpy(last_error, msg, sizeof msg);
  return status;
}

int nsi_null_arg(const char *fn, const char *arg) {
  return nsi_fail(NS_EINVAL, "%s: %s is NULL", fn, arg);
}

int nsi_check_int(long long v, long long lo, long long hi, const char *fn, const char *arg) {
  if (v < lo || v > hi)
    return nsi_fail(NS_EINVAL, "%s: %s must be in [%lld, %lld] (got %lld)", fn, arg, lo, hi, v);
  return NS_OK;
}

int nsi_check_product(const long long *factors, int n, long long limit, const char *fn,
                      const char *what, long long *out) {
  long long prod = 1;
  int over = 0;
  for (int i = 0; i < n; i++) {
    long long f = factors[i];
    if (f < 0)
      return nsi_fail(NS_EINVAL, "%s: %s has a negative factor (%lld)", fn, what, f);
    if (f == 0) {
      prod = 0, over = 0;
      break;
    }
    if (!over && prod > limit / f) /* prod * f > limit, tested without multiplying */
      over = 1;
    else if (!over)
      prod *= f;
  }
  if (over) {
    char list[128];
    size_t at = 0;
    list[0] = '\0';
    for (int i = 0; i < n && at < sizeof list; i++)
      at += (size_t)snprintf(list + at, sizeof list - at, "%s%lld", i ? "*" : "", factors[i]);
    return nsi_fail(NS_EINVAL, "%s: %s (%s) exceeds %lld", fn, what, list, limit);
  }
  *out = prod;
  return NS_OK;
}

const char *nsi_fmt_real(double v, char *buf, size_t len) {
  /* The shortest %g form that reads back as v: 0.1, 1e+300, 123456789 -
     what the caller most likely wrote, not 0.10000000000000001. */
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, len, "%.*g", prec, v);
    if (!isfinite(v) || strtod(buf, NULL) == v)
      break;
  }
  return buf;
}

/* One message for every range check of a real argument. */
static int real_out_of_range(double v, const char *fn, const char *arg, const char *rule) {
  char got[32];
  return nsi_fail(NS_EINVAL, "%s: %s must be %s (got %s)", fn, arg, rule,
                  nsi_fmt_real(v, got, sizeof got));
}

int nsi_bad_finite_ge0(double v, const char *fn, const char *arg) {
  return real_out_of_range(v, fn, arg, "finite, in [0, 1e+15]");
}

int nsi_check_finite_gt0(double v, const char *fn, const char *arg) {
  if (!isfinite(v) || v <= 0 || v > NSI_REAL_MAX)
    return real_out_of_range(v, fn, arg, "finite, > 0 and <= 1e+15");
  return NS_OK;
}

int nsi_check_real_ge0(double v, const char *fn, const char *arg) {
  if (!isfinite(v) || v < 0)
    return real_out_of_range(v, fn, arg, "finite and >= 0");
  return NS_OK;
}

int nsi_check_real_gt0(double v, const char *fn, const char *arg) {
  if (!isfinite(v) || v <= 0)
    return real_out_of_range(v, fn, arg, "finite and > 0");
  return NS_OK;
}
