/*
 * src/lwf/select.c - argument checks, hostable-GPU scan, least-workload
 * selection and result emission shared by LWF-kappa and its baselines.
 */
#include <string.h>

#include "lwf/lwf_internal.h"

int lwfi_check_args(const ns_cluster *c, const ns_job *job, const ns_placement *out,
                    const char *fn) {
  NSI_TRY(nsi_check_ptr(c, fn, "c"));
  NSI_TRY(nsi_check_ptr(job, fn, "job"));
  NSI_TRY(nsi_check_ptr(out, fn, "out"));
  return NS_OK;
}

int lwfi_hostable_gpus(const ns_cluster *c, const ns_job *job, int *ids) {
  int m = 0;
  for (int g = 0; g < c->ngpus; g++)
    if (nsi_gpu_can_host(c, g, job->mem_mb)) /* Alg. 1 lines 3 and 14: enough memory */
      ids[m++] = g;
  return m;
}

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

int lwfi_emit(const ns_cluster *c, ns_placement *out, const int *gpus, int n) {
  NSI_TRY(nsi_reserve(&out->gpus, &out->cap_gpus, (size_t)n, sizeof *out->gpus));
  ns_placement_clear(out);
  NSI_TRY(ns_placement_bind(out, c));
  memcpy(out->gpus, gpus, (size_t)n * sizeof *gpus);
  out->ngpus = (size_t)n;
  return NS_OK;
}

int lwfi_no_space(const ns_cluster *c, ns_placement *out, const ns_job *job, int hostable,
                  const char *fn) {
  ns_placement_clear(out);
  ns_placement_bind(out, c);
  NSI_TRY(nsi_check_job_fits(c, job, fn)); /* never fits: NS_EINVAL (core.h) */
  return nsi_fail(NS_ENOSPACE, "%s: job '%s' needs %d GPUs; %d of the cluster's %d can host it now",
                  fn, job->name, job->gpus, hostable, c->ngpus);
}
