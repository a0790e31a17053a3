/*
 * src/adadual/fit.c - least-squares fit of Eq. 5's (a, b, eta) from measured
 * all-reduce times (the paper fits Eq. 2 to Fig. 2(a) and eta to Fig. 2(b)).
 *
 * Model: time_i = a*1 + b*(k_i*M_i) + eta*((k_i-1)*M_i), linear in (a, b, eta).
 * The columns differ by ~10 orders of magnitude (1 vs bytes), so forming the
 * normal equations X'X would square an already large condition number. We
 * scale every column to unit 2-norm and solve by Householder QR instead,
 * which satisfies the normal equations X'r = 0 to working precision without
 * forming them (the unit tests check X'r = 0 directly).
 *
 * Extreme but valid inputs (issue 18): the times are scaled by their
 * largest magnitude before the solve (times near 1e300 or 1e-300 neither
 * overflow nor underflow in the QR), each column is scaled by its largest
 * entry before its 2-norm is taken, and on every support that has the
 * intercept the other columns and the times are centred (the intercept is
 * recovered as mean(y) - sum coef_j * mean(x_j)), which removes the
 * collinearity of a large common message size with the constant column.
 * Zero coefficients are returned as +0, never -0.
 *
 * Reading: the parameters are physical times, so the fit is constrained to
 * a, b, eta >= 0. With three unknowns, exact non-negative least squares is a
 * search over the 2^3 supports: the NNLS optimum is the unconstrained
 * optimum on its own support, so the best feasible support solution is it.
 * A dedicated library (LAPACK dgels, GSL multifit) would add a link
 * dependency for a 3-column problem; this file is the whole of it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

#define NP 3              /* parameters: a, b, eta */
#define RANK_TOL 1e-9     /* |R_jj| below this (unit-norm columns) = dependent */

typedef struct fit_data {
  size_t n;
  double *x;     /* n x NP, column-major, columns scaled to unit 2-norm */
  double scale[NP];
  double *y;     /* times / yscale */
  double yscale; /* largest |time| (1 if all are 0) */
} fit_data;

static double column_value(int col, int k, uint64_t bytes) {
  double m = (double)bytes;
  return col == 0 ? 1.0 : col == 1 ? (double)k * m : (double)(k - 1) * m;
}

static double max_abs(const double *v, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; i++)
    m = fmax(m, fabs(v[i]));
  return m;
}

/* Scales v (n entries) to unit 2-norm: first by its largest entry, so that
   the sum of squares can neither overflow nor underflow. Returns the
   factor (1 for a zero vector). */
static double normalise(double *v, size_t n) {
  double m = max_abs(v, n), ss = 0;
  if (m == 0)
    return 1.0;
  for (size_t i = 0; i < n; i++)
    v[i] /= m, ss += v[i] * v[i];
  double norm = sqrt(ss);
  for (size_t i = 0; i < n; i++)
    v[i] /= norm;
  return m * norm;
}

static void build_columns(fit_data *d, const int *k, const uint64_t *bytes, const double *t) {
  for (int j = 0; j < NP; j++) {
    double *col = d->x + (size_t)j * d->n;
    for (size_t i = 0; i < d->n; i++)
      col[i] = column_value(j, k[i], bytes[i]);
    d->scale[j] = normalise(col, d->n);
  }
  double m = max_abs(t, d->n);
  d->yscale = m > 0 ? m : 1.0;
  for (size_t i = 0; i < d->n; i++)
    d->y[i] = t[i] / d->yscale;
}

static double mean(const double *v, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i++)
    s += v[i];
  return s / (double)n;
}

/* One Householder reflection: zeroes v[c+1..n) and applies the same
   reflection to the q - c - 1 columns after v and to the right-hand side r.
   Returns R_cc, or 0 if the column is (numerically) dependent on the
   previous ones. */
static double reflect(double *v, size_t n, int c, double *next_cols, int nnext, double *r) {
  double norm = 0;
  for (size_t i = (size_t)c; i < n; i++)
    norm += v[i] * v[i];
  norm = sqrt(norm);
  if (norm <= RANK_TOL) /* columns have unit norm: this is a relative test */
    return 0;
  double alpha = v[c] > 0 ? -norm : norm; /* avoids cancellation in v[c] - alpha */
  v[c] -= alpha;
  double vv = 0;
  for (size_t i = (size_t)c; i < n; i++)
    vv += v[i] * v[i];
  for (int k = 0; k <= nnext; k++) { /* k == nnext is the right-hand side */
    double *w = k < nnext ? next_cols + (size_t)k * n : r, dot = 0;
    for (size_t i = (size_t)c; i < n; i++)
      dot += v[i] * w[i];
    double f = 2.0 * dot / vv;
    for (size_t i = (size_t)c; i < n; i++)
      w[i] -= f * v[i];
  }
  return alpha;
}

/* Least squares on the columns in `mask` by Householder QR (work: n x NP
   + n doubles); writes the scaled coefficients of those columns into coef
   (others 0). NS_EINVAL if the chosen columns are linearly dependent. */
static int solve_support(const fit_data *d, unsigned mask, double *work, double coef[NP]) {
  size_t n = d->n;
  /* With the intercept (column 0, a constant) and other columns: centre
     those and y, solve without the intercept, recover it from the means. */
  int centre = (mask & 1u) && (mask & 6u);
  int cols[NP], q = 0;
  for (int j = centre ? 1 : 0; j < NP; j++)
    if (mask & (1u << j))
      cols[q++] = j;
  double *a = work, *r = work + (size_t)NP * n, diag[NP], z[NP] = {0}, mx[NP] = {0}, cs[NP];
  double my = centre ? mean(d->y, n) : 0;
  for (int c = 0; c < q; c++) {
    double *col = a + (size_t)c * n;
    memcpy(col, d->x + (size_t)cols[c] * n, n * sizeof *a);
    cs[c] = 1.0;
    if (centre) {
      mx[c] = mean(col, n);
      for (size_t i = 0; i < n; i++)
        col[i] -= mx[c];
      /* the column had unit norm: what is left after centring is its part
         independent of the constant column */
      if (max_abs(col, n) <= RANK_TOL)
        return NS_EINVAL;
      cs[c] = normalise(col, n);
    }
  }
  for (size_t i = 0; i < n; i++)
    r[i] = d->y[i] - my;
  for (int c = 0; c < q; c++)
    if ((diag[c] = reflect(a + (size_t)c * n, n, c, a + (size_t)(c + 1) * n, q - c - 1, r)) == 0)
      return NS_EINVAL;
  for (int c = q - 1; c >= 0; c--) { /* back substitution R z = Q'y */
    double s = r[c];
    for (int c2 = c + 1; c2 < q; c2++)
      s -= a[(size_t)c2 * n + (size_t)c] * z[c2];
    z[c] = s / diag[c];
  }
  for (int j = 0; j < NP; j++)
    coef[j] = 0;
  double intercept = my;
  for (int c = 0; c < q; c++) {
    coef[cols[c]] = z[c] / cs[c];
    intercept -= coef[cols[c]] * mx[c];
  }
  if (centre) /* column 0 holds 1/sqrt(n) after scaling: y = coef0 / sqrt(n) + ... */
    coef[0] = intercept * sqrt((double)n);
  return NS_OK;
}

static double sse(const fit_data *d, const double coef[NP]) {
  double s = 0;
  for (size_t i = 0; i < d->n; i++) {
    double e = d->y[i];
    for (int j = 0; j < NP; j++)
      e -= d->x[(size_t)j * d->n + i] * coef[j];
    s += e * e;
  }
  return s;
}

/* Exact NNLS: best non-negative support solution (see header comment). */
static int nnls(const fit_data *d, double *work, double best[NP]) {
  double coef[NP];
  if (solve_support(d, 7u, work, coef) < 0)
    return nsi_fail(NS_EINVAL,
                    "ns_contention_fit: k and bytes do not determine (a, b, eta): the points "
                    "(bytes, (k-1)*bytes) lie on one line (need two message sizes and two "
                    "values of k)");
  double best_sse = INFINITY;
  for (unsigned mask = 7u;; mask--) {
    if (solve_support(d, mask, work, coef) == NS_OK &&
        coef[0] >= 0 && coef[1] >= 0 && coef[2] >= 0) {
      double s = sse(d, coef);
      if (s < best_sse) {
        best_sse = s;
        memcpy(best, coef, sizeof coef);
      }
    }
    if (mask == 0)
      break;
  }
  return NS_OK;
}

static int check_samples(const int *k, const double *t, size_t n) {
  static const char *fn = "ns_contention_fit";
  if (n < NP)
    return nsi_fail(NS_EINVAL, "%s: n must be >= 3 samples (got %zu)", fn, n);
  if (n > SIZE_MAX / ((NP + 1) * 2 * sizeof(double)))
    return nsi_fail(NS_EINVAL, "%s: n too large (%zu)", fn, n);
  for (size_t i = 0; i < n; i++) {
    if (k[i] < 1)
      return nsi_fail(NS_EINVAL, "%s: k[%zu] must be >= 1 (got %d)", fn, i, k[i]);
    if (!isfinite(t[i]) || t[i] < 0)
      return nsi_fail(NS_EINVAL, "%s: time_ms[%zu] must be finite and >= 0 (got %s)", fn, i,
                      NSI_REAL_STR(t[i]));
  }
  return NS_OK;
}

int ns_contention_fit(const int *k, const uint64_t *bytes, const double *time_ms, size_t n,
                      double *a_ms, double *b_ms_per_byte, double *eta_ms_per_byte,
                      double *rms_residual_ms) {
  static const char *fn = "ns_contention_fit";
  NSI_TRY(nsi_check_ptr(k, fn, "k"));
  NSI_TRY(nsi_check_ptr(bytes, fn, "bytes"));
  NSI_TRY(nsi_check_ptr(time_ms, fn, "time_ms"));
  NSI_TRY(nsi_check_ptr(a_ms, fn, "a_ms"));
  NSI_TRY(nsi_check_ptr(b_ms_per_byte, fn, "b_ms_per_byte"));
  NSI_TRY(nsi_check_ptr(eta_ms_per_byte, fn, "eta_ms_per_byte"));
  NSI_TRY(nsi_check_ptr(rms_residual_ms, fn, "rms_residual_ms"));
  NSI_TRY(check_samples(k, time_ms, n));
  /* x (NP columns) + QR work copy (NP columns + right-hand side) + y */
  double *mem = malloc((size_t)(2 * NP + 2) * n * sizeof *mem);
  if (mem == NULL)
    return nsi_fail(NS_ENOMEM, "%s: out of memory for %zu samples", fn, n);
  fit_data d = {.n = n, .x = mem, .y = mem + (size_t)(2 * NP + 1) * n};
  build_columns(&d, k, bytes, time_ms);
  double coef[NP];
  int rc = nnls(&d, mem + (size_t)NP * n, coef);
  if (rc == NS_OK) {
    double rms = sqrt(sse(&d, coef) / (double)n) * d.yscale;
    /* + 0.0 turns a -0 (a zero coefficient times a negative) into +0 */
    *a_ms = coef[0] / d.scale[0] * d.yscale + 0.0;
    *b_ms_per_byte = coef[1] / d.scale[1] * d.yscale + 0.0;
    *eta_ms_per_byte = coef[2] / d.scale[2] * d.yscale + 0.0;
    *rms_residual_ms = rms + 0.0;
  }
  free(mem);
  return rc;
}
