/*
 * netsched/titan.h - Titan: non-idle-machine-aware submodular worker placement and collective traffic.
 * Included by <netsched.h>; do not include directly.
 *
 * Titan (Fang et al., USTC; seed titan-nonidle-placement.md) places a job's
 * workers on the free GPUs of a leaf-spine cluster that may carry
 * background load. It minimises, in this order: idle machines used (a
 * machine = a server; idle = all its GPUs free), machines used, and (our
 * tie-break, §II-C / Fig. 1) bytes sent between machines; subject to one
 * worker per free GPU and, in every phase of the job's collective, no
 * congestion: the flows a machine sends and receives fit its free GPUs' NIC
 * ports, and the flows leaving and entering a leaf fit its share of the
 * unreserved leaf-spine uplinks (proportional to its free GPUs), each
 * port carrying the phase's largest flow. spines = 0 means no cross-leaf
 * bandwidth. The greedy is Algorithms 1-3 of the paper (details and every
 * reading of the garbled pseudo-code in src/titan/titan.c).
 *
 * Collective traffic C^t_{n,n'} (shared with vClos and the simulator; the
 * exact definitions are in src/core/collective.c): ring 2(N-1) phases of
 * K/N to (n+1) mod N; halving-doubling 2 log2 N phases, partner
 * n XOR (N >> (t+1)) with K/2^(t+1) then mirrored, and for N not a power of
 * two Rabenseifner's fallback (fold the extra workers in a first phase,
 * hand the result back in a last one: 2 floor(log2 N) + 2 phases); binary
 * tree (heap-numbered) reduce then broadcast of K, 2 floor(log2 N) phases;
 * pair-wise all-to-all, N-1 phases, n -> (n+t+1) mod N, K/N each. K is cut
 * into exact byte blocks so totals equal the textbook volumes.
 */
#ifndef NETSCHED_TITAN_H
#define NETSCHED_TITAN_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ns_titan_opts ns_titan_opts;

/* Options with the defaults: seed 0. NULL on allocation failure. */
NS_API ns_titan_opts *ns_titan_opts_new(void);
/* No-op for NULL. */
NS_API void ns_titan_opts_free(ns_titan_opts *o);
/* Seed of the tie-break among equally good machines (the paper's random
   initial distribution): the placement is a function of (cluster, job,
   seed). Any value. */
NS_API int ns_titan_opts_set_seed(ns_titan_opts *o, uint64_t seed);
/* The paper's P_{s,s'}: fn(a, b, user) is the bandwidth, in Gbps, that
   servers a and b (ns_cluster_server_of_gpu ids) have for this job from a
   to b (called for both directions; 0 = none; INFINITY = unlimited; NaN
   or negative makes ns_titan_place fail with NS_EINVAL). The constraint
   is then the paper's Eq. 1 alone: in every phase, the bytes a sends to b
   fit P_{a,b} within the phase's time budget; so P(a, b) = 0 keeps any two
   workers that exchange data in some phase off a and b. Without fn
   (NULL, the default, or to restore it) P comes from the cluster: NIC
   ports of a server's free GPUs at link_gbps, and each leaf's uplinks not
   reserved by vClos jobs shared in proportion to its free GPUs -- the link
   rates minus what committed jobs hold -- as shared limits on what a
   server (leaf) sends and receives. fn is called from ns_titan_place only,
   on the calling thread; `user` is passed through. NS_EINVAL for NULL o. */
NS_API int ns_titan_opts_set_pair_bandwidth_fn(ns_titan_opts *o,
                                               double (*fn)(int server_a, int server_b,
                                                            void *user),
                                               void *user);
/* Time budget of each collective phase, ms (finite, > 0; NS_EINVAL
   otherwise, o unchanged): a phase moving C bytes from s to s' must fit
   the budget at P_{s,s'} (C <= P x ms), so the model size K and the link
   rate decide feasibility (a larger model or a slower link can turn a
   spread placement into a consolidated one, or into NS_ENOSPACE). Without
   a budget (default) each phase's budget is its largest flow at line rate
   (link_gbps): no phase may be slowed by congestion, whatever K. */
NS_API int ns_titan_opts_set_phase_budget_ms(ns_titan_opts *o, double ms);
/* Places `job` (ns_job_gpus workers, its collective and model bytes) on `c`
   without changing `c`. On success `out` is cleared, bound to `c` and holds
   one GPU per worker: the i-th GPU hosts worker (rank) i. Errors, with
   `out` untouched: NS_EINVAL for NULL arguments or a job that can never
   fit (more GPUs than the cluster, more memory per GPU than a GPU has;
   core.h); NS_ENOSPACE if fewer free
   GPUs than workers (with the job's memory) or no placement meets the
   bandwidth constraint (the job should wait); NS_EUNSUPPORTED for jobs
   beyond the work limits (phases x workers > 2^26, or more than 2^22
   communicating worker pairs, e.g. all-to-all beyond ~2900 workers);
   NS_ENOMEM. */
/* Cost: O(F) memory for the job's F flows (halving-doubling: W log2 W);
   time O(G + F + M + rounds x log M) for G GPUs, M machines and rounds <= W
   (each round merges a feasible run onto one machine; candidate machines
   come from an index, not a scan), times a log factor where bandwidth
   binds (binary search of the run, and a walk down the ranking) and up to
   L more greedy runs (one per leaf) in that case. A 65,536-worker
   halving-doubling job on 2^22 GPUs (524,288 machines): ~0.2-0.3 s of CPU
   and ~125 MB (bench/RESULTS.md). */
NS_API int ns_titan_place(const ns_cluster *c, const ns_job *job, const ns_titan_opts *o,
                          ns_placement *out);
/* The per-phase pair traffic C^t_{n,n'} of a collective, for inspection/tests:
   bytes worker `from` sends to worker `to` in `phase` (0 if none) for a
   model of `bytes`. NS_EINVAL for an unknown collective, workers outside
   [1, 2^22], phase outside [0, ns_collective_phase_count), from/to outside
   [0, workers) or a NULL out_bytes. */
NS_API int ns_collective_traffic(ns_collective c, int workers, uint64_t bytes, int phase,
                                 int from, int to, uint64_t *out_bytes);
/* Number of phases T of the collective on `workers` workers (0 for one
   worker), or NS_EINVAL. */
NS_API int ns_collective_phase_count(ns_collective c, int workers);
/* Extension: bytes the job's collective (one all-reduce / exchange of its
   model bytes) sends between workers on different servers, summed over all
   phases and both directions, with worker i on p's i-th GPU (as
   ns_titan_place fills it; GPUs past the job's size are ignored). The
   paper's Fig. 1 counts each exchanging pair once: for halving-doubling
   that is half of this. NS_EINVAL for NULL arguments or fewer GPUs than
   workers, NS_ESTATE if p is unbound, NS_EUNSUPPORTED beyond
   phases x workers = 2^26. */
NS_API int ns_collective_cross_machine_bytes(const ns_job *job, const ns_placement *p,
                                             uint64_t *out_bytes);

#ifdef __cplusplus
}
#endif

#endif
