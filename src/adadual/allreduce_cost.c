/*
 * src/adadual/allreduce_cost.c - Table I: the (a, b) of T = a + b*M (Eq. 2)
 * for the four all-reduce algorithms, from the alpha-beta-gamma model
 * (alpha latency, beta per-byte transfer, gamma per-byte reduction).
 *
 * Reading: "log N" is log2 N and N is a power of two for the three
 * logarithmic algorithms, as Sec. II-B assumes; ring is valid for any N.
 * Halving-doubling's b, 2*beta - (2*beta + gamma)/N + gamma, is kept in the
 * paper's form; it equals (N-1)/N * (2*beta + gamma), the same as ring's b.
 */
#include <math.h>

#include "core/internal.h"

#define NS_AR_MAX_NODES (1 << 30)

static int is_pow2(int n) { return n > 0 && (n & (n - 1)) == 0; }

static double log2_int(int n) {
  int l = 0;
  while ((1 << l) < n)
    l++;
  return (double)l;
}

static int check_args(ns_allreduce_algo algo, int nodes, double alpha, double beta, double gamma,
                      const double *a, const double *b, const char *fn) {
  static const char *names[] = {"binary tree", "recursive doubling", "halving-doubling"};
  NSI_TRY(nsi_check_int(nodes, 1, NS_AR_MAX_NODES, fn, "nodes"));
  if (algo != NS_AR_RING && !is_pow2(nodes))
    return nsi_fail(NS_EINVAL, "%s: nodes must be a power of two for %s (got %d)", fn,
                    names[algo], nodes);
  NSI_TRY(nsi_check_real_ge0(alpha, fn, "alpha_ms"));
  NSI_TRY(nsi_check_real_ge0(beta, fn, "beta_ms_per_byte"));
  NSI_TRY(nsi_check_real_ge0(gamma, fn, "gamma_ms_per_byte"));
  NSI_TRY(nsi_check_ptr(a, fn, "a_ms"));
  NSI_TRY(nsi_check_ptr(b, fn, "b_ms_per_byte"));
  return NS_OK;
}

/* One row of Table I; arguments already validated. */
static void table1(ns_allreduce_algo algo, int nodes, double alpha, double beta, double gamma,
                   double *a, double *b) {
  double n = (double)nodes, lg = log2_int(nodes);
  switch (algo) {
  case NS_AR_BINARY_TREE:
    *a = 2.0 * alpha * lg;
    *b = (2.0 * beta + gamma) * lg;
    break;
  case NS_AR_RECURSIVE_DOUBLING:
    *a = alpha * lg;
    *b = (beta + gamma) * lg;
    break;
  case NS_AR_HALVING_DOUBLING:
    *a = 2.0 * alpha * lg;
    *b = 2.0 * beta - (2.0 * beta + gamma) / n + gamma;
    break;
  case NS_AR_RING:
    *a = 2.0 * (n - 1.0) * alpha;
    *b = 2.0 * (n - 1.0) / n * beta + (n - 1.0) / n * gamma;
    break;
  }
}

static int cost(ns_allreduce_algo algo, int nodes, double alpha, double beta, double gamma,
                double *a_ms, double *b_ms_per_byte, const char *fn) {
  NSI_TRY(check_args(algo, nodes, alpha, beta, gamma, a_ms, b_ms_per_byte, fn));
  double a, b;
  table1(algo, nodes, alpha, beta, gamma, &a, &b);
  if (!isfinite(a) || !isfinite(b))
    return nsi_fail(NS_ERANGE, "%s: cost overflows for nodes = %d", fn, nodes);
  *a_ms = a;
  *b_ms_per_byte = b;
  return NS_OK;
}

int ns_allreduce_algo_cost(ns_allreduce_algo algo, int nodes, double alpha_ms,
                           double beta_ms_per_byte, double gamma_ms_per_byte, double *a_ms,
                           double *b_ms_per_byte) {
  static const char *fn = "ns_allreduce_algo_cost";
  if ((int)algo < NS_AR_BINARY_TREE || (int)algo > NS_AR_RING)
    return nsi_fail(NS_EINVAL, "%s: algo must be in [0, 3] (got %d)", fn, (int)algo);
  return cost(algo, nodes, alpha_ms, beta_ms_per_byte, gamma_ms_per_byte, a_ms, b_ms_per_byte,
              fn);
}

int ns_allreduce_cost(ns_collective c, int nodes, double alpha_ms, double beta_ms_per_byte,
                      double gamma_ms_per_byte, double *a_ms, double *b_ms_per_byte) {
  static const char *fn = "ns_allreduce_cost";
  ns_allreduce_algo algo;
  switch ((int)c) {
  case NS_COLL_TREE:
    algo = NS_AR_BINARY_TREE;
    break;
  case NS_COLL_HALVING_DOUBLING:
    algo = NS_AR_HALVING_DOUBLING;
    break;
  case NS_COLL_RING:
    algo = NS_AR_RING;
    break;
  case NS_COLL_ALL_TO_ALL:
    return nsi_fail(NS_EUNSUPPORTED, "%s: c = all-to-all is not an all-reduce (Table I)", fn);
  default:
    return nsi_fail(NS_EINVAL, "%s: c must be an ns_collective value (got %d)", fn, (int)c);
  }
  return cost(algo, nodes, alpha_ms, beta_ms_per_byte, gamma_ms_per_byte, a_ms, b_ms_per_byte,
              fn);
}
