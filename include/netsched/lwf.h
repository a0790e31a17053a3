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

/* Baselines the LWF-kappa paper compares against (Section V), used by the
   simulator. Each fills `out` with job->gpus GPUs that can host the job now
   (free, or in sharing mode with enough free memory), never mutates the
   cluster, and returns NS_ENOSPACE when too few GPUs can host it.
   FF: the lowest-numbered GPUs. LS (list scheduling): the GPUs with least
   workload (ties: lowest id). RAND: uniformly random GPUs drawn with a
   deterministic generator seeded by `seed`. */
NS_API int ns_place_first_fit(const ns_cluster *c, const ns_job *job, ns_placement *out);
NS_API int ns_place_list_scheduling(const ns_cluster *c, const ns_job *job, ns_placement *out);
NS_API int ns_place_random(const ns_cluster *c, const ns_job *job, uint64_t seed,
                           ns_placement *out);

#ifdef __cplusplus
}
#endif

#endif
