/*
 * src/lwf/order.c - the "least workload" order of LS and Alg. 1 (lines 5
 * and 14): picks the n least-loaded GPUs of a candidate list with a
 * bounded max-heap.
 */
#include "lwf/order.h"

/* Max-heap on lwfi_before: the root is the worst GPU kept so far. */
static void sift_down(const double *w, int *h, int size, int i) {
  for (;;) {
    int l = 2 * i + 1, r = l + 1, worst = i;
    if (l < size && lwfi_before(w, h[worst], h[l]))
      worst = l;
    if (r < size && lwfi_before(w, h[worst], h[r]))
      worst = r;
    if (worst == i)
      return;
    int t = h[i];
    h[i] = h[worst];
    h[worst] = t;
    i = worst;
  }
}

static void sift_up(const double *w, int *h, int i) {
  while (i > 0) {
    int p = (i - 1) / 2;
    if (!lwfi_before(w, h[p], h[i]))
      return;
    int t = h[i];
    h[i] = h[p];
    h[p] = t;
    i = p;
  }
}

void lwfi_select_least(const double *w, const int *cand, int m, int n, int *heap, int *out) {
  int size = 0;
  for (int i = 0; i < m && n > 0; i++) {
    if (size < n) {
      heap[size] = cand[i];
      sift_up(w, heap, size++);
    } else if (lwfi_before(w, cand[i], heap[0])) {
      heap[0] = cand[i];
      sift_down(w, heap, size, 0);
    }
  }
  for (int k = size - 1; k >= 0; k--) { /* pop the worst to the back: ascending order */
    out[k] = heap[0];
    heap[0] = heap[k];
    sift_down(w, heap, k, 0);
  }
}
