/*
 * netsched/dally.h - Dally: delay scheduling with auto-tuned timers and network-sensitive priority.
 * Included by <netsched.h>; do not include directly.
 *
 * Sharma et al., "GPU Cluster Scheduling for Network-Sensitive Deep
 * Learning" (Dally), §4.3 and Algorithms 1-2. A job waiting for GPUs is
 * offered the cluster's free GPUs; it accepts them at once if they hold it
 * on one machine, otherwise it declines until its machine timer has
 * elapsed, then accepts a single rack until its rack timer has elapsed,
 * then accepts GPUs across the network. The timers tune themselves from the
 * waits of earlier jobs (the delay tuner). Jobs are offered GPUs in
 * increasing network-sensitive priority Nw_sens.
 *
 * Typical loop (the caller keeps, per waiting job, when it was last
 * assigned GPUs, i.e. when it entered the wait queue):
 *
 *   ns_delay_tuner *t = ns_delay_tuner_new(7 * 24 * 3600e3, 12 * 3600e3, 12 * 3600e3);
 *   // at each scheduling instant now_ms, for jobs in increasing Nw_sens:
 *   int ok;
 *   if (ns_dally_offer(t, c, job, now_ms - waiting_since_ms, now_ms, p, &ok) == NS_OK && ok)
 *     ns_cluster_commit(c, job, p);
 *
 * How the paper was read where it leaves room (details in src/dally/dally.c):
 *  - The history limit is an age: a wait recorded more than
 *    history_limit_ms before now_ms no longer counts (Algorithm 2).
 *  - Timer = mean + 2 x sample standard deviation (n - 1) of the live waits
 *    of its (tier, GPU demand) list; fewer than 2 live waits -> its default.
 *  - The rack timer is a total starvation threshold (Algorithm 1 line 18).
 *    Its default is counted after the machine timer: machine timer +
 *    default_rack_ms ("another 12 hours (or 24 hours in total)", §4.3.2).
 *  - Zero-timer rules by capacity: a job with more GPUs than one machine has
 *    gets machine timer 0; more than one rack has, both timers 0.
 *  - An accept records the starvation once, in the accepted tier's list
 *    (machine: line 7; rack: line 15); a network accept records nothing.
 *  - GPUs within the accepted tier are chosen best-fit (see ns_dally_offer).
 *
 * Time: the tuner's clock is the largest now_ms passed to a successful
 * ns_delay_tuner_record or ns_dally_offer (0 at creation). Every call that
 * takes now_ms rejects one before the clock with NS_EINVAL ("time must not
 * go back"); equal times are fine.
 */
#ifndef NETSCHED_DALLY_H
#define NETSCHED_DALLY_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Delay tuner (§4.3.3, Algorithm 2)                                   */
/* ------------------------------------------------------------------ */

typedef struct ns_delay_tuner ns_delay_tuner;

/* A tuner with no recorded waits. history_limit_ms: finite, > 0 (a limit of
   0 would forget every wait at once; NS_EINVAL). default_machine_ms and
   default_rack_ms: the timers used while a list has fewer than two waits
   (the paper: 12 h = 43200000 ms each), finite, in [0, 1e15]. Returns NULL
   on error (see ns_last_error()). Free with ns_delay_tuner_free. */
NS_API ns_delay_tuner *ns_delay_tuner_new(double history_limit_ms, double default_machine_ms,
                                          double default_rack_ms);
/* NULL is a no-op. */
NS_API void ns_delay_tuner_free(ns_delay_tuner *t);

/* Adds one starvation time to the (tier, gpus) list, stamped now_ms, and
   drops that list's expired waits. For callers that run Algorithm 1
   themselves; ns_dally_offer records its own accepts. tier: NS_TIER_MACHINE
   or NS_TIER_RACK (the tiers with a timer; NETWORK is NS_EINVAL). gpus in
   [1, 1<<20]. waited_ms finite, in [0, 1e15] (negative is NS_EINVAL).
   now_ms finite, >= 0, not before the clock. NS_ENOMEM leaves the tuner as
   it was. */
NS_API int ns_delay_tuner_record(ns_delay_tuner *t, ns_tier tier, int gpus, double waited_ms,
                                 double now_ms);

/* Algorithm 2 for a job of `gpus` GPUs at now_ms: *machine_ms = mean + 2 sd
   of the live machine waits (default_machine_ms with fewer than two), and
   *rack_ms = the same over the rack waits (with fewer than two: *machine_ms
   + default_rack_ms). In manual mode both are the defaults. The zero-timer
   rules need the cluster, so ns_dally_offer applies them, not this call.
   Does not change the tuner (const: expired waits are skipped, not
   removed). Errors: NS_EINVAL for NULL t/outputs, gpus out of [1, 1<<20],
   now_ms not finite, negative or before the clock. */
NS_API int ns_delay_tuner_timers(const ns_delay_tuner *t, int gpus, double now_ms,
                                 double *machine_ms, double *rack_ms);

/* Extension (Dally-manual, §5.1.3): manual = 1 fixes the timers to the
   defaults, never tuned; waits are still recorded, so manual = 0 later
   resumes tuning with the history. manual must be 0 or 1. */
NS_API int ns_delay_tuner_set_manual(ns_delay_tuner *t, int manual);

/* Extension: number of live (unexpired at now_ms) waits in the (tier, gpus)
   list, for inspection. Same argument rules as ns_delay_tuner_record. */
NS_API int ns_delay_tuner_sample_count(const ns_delay_tuner *t, ns_tier tier, int gpus,
                                       double now_ms, size_t *count);

/* Extension: undoing what a tuner recorded, for a caller whose larger step
   failed after the tuner recorded a wait (ns_policy_decide leaves its tuner
   as it was). ns_delay_tuner_checkpoint opens a checkpoint (committing an
   open one); ns_delay_tuner_rollback brings the tuner back to it - the
   waits recorded (ns_delay_tuner_record, ns_dally_offer's accepts) and the
   clock advanced since are undone - and ns_delay_tuner_commit keeps them;
   either closes it. rollback without an open checkpoint is NS_ESTATE;
   commit without one does nothing. While a checkpoint is open, expired
   waits are kept in memory (still not counted). */
NS_API int ns_delay_tuner_checkpoint(ns_delay_tuner *t);
NS_API int ns_delay_tuner_rollback(ns_delay_tuner *t);
NS_API int ns_delay_tuner_commit(ns_delay_tuner *t);

/* Extension: exchanges everything a and b hold (waits, clock, defaults,
   manual flag, checkpoint); both handles stay valid, so a caller holding a
   pointer keeps it (ns_policy_load replaces its tuner's contents this way). */
NS_API int ns_delay_tuner_swap(ns_delay_tuner *a, ns_delay_tuner *b);

/* ------------------------------------------------------------------ */
/* Resource offers (§4.3.2, Algorithm 1)                               */
/* ------------------------------------------------------------------ */

/* Algorithm 1 on a resource offer = the cluster's GPUs that can host the
   job now (free; in sharing mode, with room for its memory).
   starvation_ms: how long the job has waited since its last assignment
   (lines 1-2; finite, in [0, 1e15]). now_ms: the caller's clock, for the
   tuner (not before its clock).
   Lines 5-22: if one machine holds the job, accept there; else decline
   while starvation_ms < machine timer; else if one rack holds it, accept
   there; else decline while starvation_ms < rack timer; else accept across
   the network. An offer with fewer GPUs than the job needs is declined.
   Timers come from the tuner with the zero-timer rules applied.
   GPUs are chosen best-fit and deterministically: machine tier - the
   server with the fewest hostable GPUs that still holds the job (ties:
   lowest id); rack tier - likewise the rack, then in it the fewest servers
   and, among those, the fewest hostable GPUs left idle on them (ties: the
   smaller servers, keeping large ones whole; then the lowest ids); only one
   server is used partly. Network tier - the fewest racks chosen the same
   way, then the fewest servers in each. Within a server, its
   lowest-numbered GPUs. (Exact up to ~4M word operations of search; larger
   choices fall back to a greedy that keeps the fewest servers/racks.)
   On accept: *accepted = 1, `out` (cleared and bound to c) holds the GPUs
   in ascending order, and a machine or rack accept records starvation_ms
   once in that tier's list. On decline: *accepted = 0 and `out` is empty
   (bound to c). Both are NS_OK. The cluster is never changed: commit with
   ns_cluster_commit.
   Errors (nothing changed): NS_EINVAL for NULL arguments, bad starvation_ms
   or now_ms (including time going back), a job demanding more GPUs than
   the cluster has or more memory than a GPU has; NS_ENOMEM. */
/* Cost: O(GPUs + servers + the tuner's samples) time and O(GPUs) memory
   per offer (131,072 GPUs: a 65,536-GPU offer in ~50 ms). */
NS_API int ns_dally_offer(ns_delay_tuner *t, const ns_cluster *c, const ns_job *job,
                          double starvation_ms, double now_ms, ns_placement *out,
                          int *accepted);

/* Extension: the timers ns_dally_offer would use now for a job of `gpus`
   GPUs on cluster c: ns_delay_tuner_timers plus the zero-timer rules (more
   GPUs than a machine of c has: machine 0 and, untuned, rack =
   default_rack_ms; more than a rack has: both 0). Const; same errors as
   ns_delay_tuner_timers, plus NS_EINVAL for a NULL c. */
NS_API int ns_dally_timers(const ns_delay_tuner *t, const ns_cluster *c, int gpus,
                           double now_ms, double *machine_ms, double *rack_ms);

/* ------------------------------------------------------------------ */
/* Baselines the Dally paper compares against (§5.1.3)                 */
/* ------------------------------------------------------------------ */

/* Baselines the Dally paper compares against, used by the simulator.
   Best-fit consolidation: the fewest servers possible, preferring servers
   whose free GPUs leave the fewest idle after placement (ties: lowest id);
   NS_ENOSPACE if the job cannot be placed now.
   Tiresias-style: a skewed model (model bytes >= skew_threshold_bytes) must
   be consolidated on the fewest servers possible (NS_ENOSPACE = wait); any
   other job takes free GPUs first-fit.
   Details: "free" = can host the job now, as for ns_dally_offer. Best-fit
   is network-agnostic (racks ignored): the fewest servers the current free
   GPUs allow, with the fewest GPUs left idle on them, chosen as in
   ns_dally_offer's rack tier.
   Tiresias' "fewest servers possible" is ceil(gpus / GPUs per server), the
   minimum for the demand: if the free GPUs cannot achieve it, NS_ENOSPACE.
   First-fit: the lowest-numbered hostable GPUs. Both fill `out` (cleared,
   bound to c, ascending GPU ids) and never change the cluster; on any
   error `out` is unchanged. NS_EINVAL for NULL arguments or a job larger
   than the cluster (GPUs or per-GPU memory). */
/* Cost (best-fit and Tiresias-style): O(GPUs + servers) time (counting
   sort of servers by free GPUs), O(GPUs) memory. */
NS_API int ns_place_best_fit(const ns_cluster *c, const ns_job *job, ns_placement *out);
NS_API int ns_place_tiresias(const ns_cluster *c, const ns_job *job,
                             uint64_t skew_threshold_bytes, ns_placement *out);

/* ------------------------------------------------------------------ */
/* Network-sensitive priority (§4.3.1)                                 */
/* ------------------------------------------------------------------ */

/* Nw_sens = (iters_done / iters_total) / (run_ms / ideal_run_ms): work done
   over normalised running time, where run_ms is the time spent running and
   ideal_run_ms the compute time per iteration x iters_total (no
   communication). Lower = more network-induced slowdown = offered GPUs
   first. A job that has not run (run_ms = 0, iters_done = 0) gets 1.
   Returns NAN on error (see ns_last_error()): iters_total = 0, iters_done >
   iters_total, run_ms negative or not finite, ideal_run_ms not finite or
   <= 0, run_ms = 0 with iters_done > 0, or a ratio that overflows a
   double. */
NS_API double ns_dally_priority(uint64_t iters_done, uint64_t iters_total, double run_ms,
                                double ideal_run_ms);

/* Extension: Nw_sens of a job from its handle: iterations from
   ns_job_set_iterations and ideal_run_ms = (forward_ms + backward_ms) x
   total iterations (ns_job_set_compute_ms; NAN if they are 0). */
NS_API double ns_dally_job_priority(const ns_job *job, double run_ms);

/* Extension: the order in which jobs get resource offers, §4.3.1:
   increasing Nw_sens, ties in input order. order[k] = index of the k-th
   job. nw_sens[i] must be >= 0 and not NaN (+inf allowed). n = 0 is a
   no-op (pointers may then be NULL). NS_EINVAL / NS_ENOMEM. */
NS_API int ns_dally_offer_order(const double *nw_sens, size_t n, size_t *order);

#ifdef __cplusplus
}
#endif

#endif
