/*
 * src/lwf/lwf_internal.h - helpers shared by LWF-kappa (lwf.c) and the
 * baseline placements it is compared with (baselines.c). Private to src/lwf.
 */
#ifndef NS_LWF_INTERNAL_H
#define NS_LWF_INTERNAL_H

#include "core/internal.h"

/* Validates the (c, job, out) triple every placement entry point takes. */
int lwfi_check_args(const ns_cluster *c, const ns_job *job, const ns_placement *out,
                    const char *fn);

/* Writes into ids[] (capacity c->ngpus) the GPUs that can host `job` now,
   in increasing id order, and returns how many. */
int lwfi_hostable_gpus(const ns_cluster *c, const ns_job *job, int *ids);

/* Orders GPUs by (workload, id): the "least workload" order of LS and
   Alg. 1 lines 5 and 14, with ties broken by the lowest GPU id. */
static inline int lwfi_before(const double *w, int a, int b) {
  return w[a] < w[b] || (w[a] == w[b] && a < b);
}

/* Selects the n (<= m) GPUs of cand[0..m) that come first in lwfi_before
   order and writes them, in that order, to out[0..n). heap has room for n
   ints. O(m log n). */
void lwfi_select_least(const double *w, const int *cand, int m, int n, int *heap, int *out);

/* Success: replaces `out` with gpus[0..n) bound to c. NS_ENOMEM leaves it
   as it was. */
int lwfi_emit(const ns_cluster *c, ns_placement *out, const int *gpus, int n);

/* Infeasible now: leaves `out` empty (bound to c) and records why. */
int lwfi_no_space(const ns_cluster *c, ns_placement *out, const ns_job *job, int hostable,
                  const char *fn);

#endif
