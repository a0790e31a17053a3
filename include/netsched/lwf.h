/*
 * netsched/lwf.h - LWF-kappa: least-workload-first GPU placement with consolidation threshold kappa.
 * Included by <netsched.h>; do not include directly.
 *
 * Paper: Q. Wang, S. Shi, C. Wang, X. Chu, "Communication Contention Aware
 * Scheduling of Multiple Deep Learning Training Jobs" (HKBU), Sec. IV-A,
 * Algorithm 1, Eq. 7-8.
 *
 * Readings of ambiguous passages (also in src/lwf/lwf.c):
 *  - L_J = C_J * |G(J)| (Algorithm 1 line 1), not (C_J + E_J) * |G(J)| as
 *    the text says: E_J depends on the placement being decided and the
 *    paper sets it to 0 before allocation. ns_cluster_commit adds L_J to
 *    every chosen GPU (lines 6, 18); deciding never mutates the cluster.
 *  - |G| > kappa: servers are walked in increasing total workload L_S over
 *    *all* servers (line 13 loops over S), taking each server's hostable
 *    GPUs in increasing workload, until |G| GPUs are collected. When the
 *    first ceil(|G|/N_g) servers (line 11's S_chosen) can host the job on
 *    all their GPUs this is exactly S_chosen; otherwise it continues instead
 *    of failing.
 *  - Ties: equal workloads go to the lower server id, then the lower GPU id.
 *  - Output order: least-workload first for |G| <= kappa; server by server
 *    (each server least-workload first) for |G| > kappa.
 *  - "Enough rest memory" (lines 3, 14) is the cluster's hosting rule: a
 *    free GPU in exclusive mode; with ns_cluster_set_gpu_sharing(c, 1) any
 *    GPU without background load whose free memory fits the job's
 *    ns_job_set_gpu_memory_mb.
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
/* Algorithm 1. Fills `out` (cleared and bound to c) with job's GPU demand
   |G| GPUs; never mutates the cluster. kappa >= 1 (the paper's best is 1).
   NS_ENOSPACE if fewer than |G| GPUs can host the job now (out left empty);
   NS_EINVAL for NULL handles or kappa < 1 (out untouched), and for a job
   that can never fit (more GPUs than the cluster, or more memory per GPU
   than a GPU has; out left empty; core.h). */
/* Cost: O(GPUs + servers log servers) time, O(GPUs) memory (131,072
   GPUs: ~1 ms; bench/RESULTS.md "Hyperscale"). */
NS_API int ns_lwf_place(const ns_cluster *c, const ns_job *job, int kappa, ns_placement *out);

/* Baselines the LWF-kappa paper compares against (Section V), used by the
   simulator. Each fills `out` with job->gpus GPUs that can host the job now
   (free, or in sharing mode with enough free memory), never mutates the
   cluster, and returns NS_ENOSPACE when too few GPUs can host it now,
   NS_EINVAL when it can never fit (core.h).
   FF: the lowest-numbered GPUs. LS (list scheduling): the GPUs with least
   workload (ties: lowest id), in that order. RAND: uniformly random GPUs
   drawn with a deterministic generator seeded by `seed` (xoshiro256**
   seeded by splitmix64, a partial Fisher-Yates shuffle of the hostable GPUs
   in id order, Lemire's unbiased bounded integers): the same seed and
   cluster state give the same GPUs on every platform. Any seed is valid. */
/* Cost: first fit O(GPUs); list scheduling O(GPUs log N) (a heap of the
   N least-loaded); random O(GPUs + N). O(GPUs) memory at most. */
NS_API int ns_place_first_fit(const ns_cluster *c, const ns_job *job, ns_placement *out);
NS_API int ns_place_list_scheduling(const ns_cluster *c, const ns_job *job, ns_placement *out);
NS_API int ns_place_random(const ns_cluster *c, const ns_job *job, uint64_t seed,
                           ns_placement *out);

#ifdef __cplusplus
}
#endif

#endif
