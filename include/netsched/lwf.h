/*
 * netsched/lwf.h - LWF-kappa: least-workload-first GPU placement with consolidation threshold kappa.
 * Included by <netsched.h>; do not include directly.
 */
#ifndef NETSCHED_LWF_H
#define NETSCHED_LWF_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Remaining workload L_g of one GPU in ms (finite, >= 0). Implemented in
   the core: ns_cluster_commit adds the job's L_J to each of its GPUs and
   ns_cluster_release takes it back (clamped at 0). */
NS_API int ns_cluster_set_gpu_workload_ms(ns_cluster *c, int gpu, double ms);
/* NAN on error. */
NS_API double ns_cluster_gpu_workload_ms(const ns_cluster *c, int gpu);
/* Algorithm 1. Fills `out`; never mutates the cluster. NS_ENOSPACE if no
   feasible placement now. */
NS_API int ns_lwf_place(const ns_cluster *c, const ns_job *job, int kappa, ns_placement *out);

#ifdef __cplusplus
}
#endif

#endif
