/*
 * src/lwf/order.h - the least-workload GPU order and selection shared by
 * LWF-kappa (lwf.c) and its baselines (baselines.c). Private to src/lwf.
 */
#ifndef NS_LWF_ORDER_H
#define NS_LWF_ORDER_H

/* Orders GPUs by (workload, id): the "least workload" order of LS and
   Alg. 1 lines 5 and 14, with ties broken by the lowest GPU id. */
static inline int lwfi_before(const double *w, int a, int b) {
  return w[a] < w[b] || (w[a] == w[b] && a < b);
}

/* Selects the n (<= m) GPUs of cand[0..m) that come first in lwfi_before
   order and writes them, in that order, to out[0..n). heap has room for n
   ints. O(m log n). */
void lwfi_select_least(const double *w, const int *cand, int m, int n, int *heap, int *out);

#endif
