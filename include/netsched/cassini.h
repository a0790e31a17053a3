/*
 * netsched/cassini.h - CASSINI (NSDI'24): unified-circle compatibility score, Affinity-graph time-shifts, candidate ranking.
 * Included by <netsched.h>; do not include directly.
 *
 * CASSINI places each job's periodic network demand (its phases, see
 * ns_job_add_phase) on a "unified circle" whose perimeter is the LCM of the
 * iteration times of the jobs sharing a link, rotates the circles to
 * interleave Up and Down phases (Table 1), turns rotations into time-shifts
 * (Eq. 5), makes them unique per job across links with a BFS over the
 * bipartite Affinity graph (Algorithm 1), and ranks candidate placements by
 * their mean link compatibility (Algorithm 2).
 *
 * Readings of the paper where it is ambiguous (details in the src/cassini/ sources):
 *  - Perimeter: iterations are rounded to the time quantum (default 1 ms) and
 *    p is their LCM, capped at 16 x the longest iteration; over the cap the
 *    quantum is coarsened (q, 2q, 3q, ...) up to 10 % of the shortest
 *    iteration, else NS_ERANGE. A rounded job's phases are stretched to its
 *    rounded period. ns_cassini_link_perimeter reports p and the quantum used.
 *  - Bins keep per-iteration precision: |A| = ceil((360/step) x p / longest
 *    iteration), tiling p exactly; a job's demand in a bin is its exact mean.
 *  - The first job on a link stays at rotation 0; the others try every whole
 *    bin in [0, 2 pi / r_j) (Eq. 4). Exhaustive (exact) search for up to 3
 *    jobs, and for more when cheap; otherwise a deterministic greedy +
 *    coordinate-descent heuristic (gap measured in bench/RESULTS.md).
 *  - Eq. 5: t_j = (rotation in ms) mod iteration_j. A shift t delays the job's
 *    start by t ms.
 *  - Algorithm 1's reference job is the first job added to each connected
 *    component, not a random one; ranking ties go to the lowest index.
 *  - A link with one job scores 1.0 if its demand fits under the capacity,
 *    else 1 - its own excess / (|A| C).
 *  - Candidates from the cluster (ns_cassini_candidate_from_cluster): the
 *    links are the cluster's NIC ports (core.h "Port model": per GPU by
 *    default, per server in the simulator) and ECMP-routed leaf-spine links
 *    (vClos-reserved links are never shared); re-adjustment on drift
 *    (ns_cassini_readjust) re-optimises with the measured iterations, §5.7's
 *    5 % threshold by default.
 */
#ifndef NETSCHED_CASSINI_H
#define NETSCHED_CASSINI_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ns_cassini_opts ns_cassini_opts;
typedef struct ns_affinity ns_affinity;
typedef struct ns_candidate ns_candidate;

/* ---- options ----------------------------------------------------------- */

/* Options with the paper's defaults: angle step 5 degrees, time quantum 1 ms,
   1 thread. NULL (NS_ENOMEM) on allocation failure. */
NS_API ns_cassini_opts *ns_cassini_opts_new(void);
/* NULL is a no-op. */
NS_API void ns_cassini_opts_free(ns_cassini_opts *o);
/* Discretization precision of the unified circle, 0 < deg <= 180, per longest
   iteration (|A| = 360/deg bins when every job has the same iteration). */
NS_API int ns_cassini_opts_set_angle_step_deg(ns_cassini_opts *o, double deg);
/* Rounding step of iteration times for the perimeter LCM, ms > 0 (finite). */
NS_API int ns_cassini_opts_set_time_quantum_ms(ns_cassini_opts *o, double ms);
/* Threads used by ns_cassini_rank, 1..256 (1 = the caller's thread only).
   Results are identical for every thread count. */
NS_API int ns_cassini_opts_set_threads(ns_cassini_opts *o, int threads);
/* Current values; NAN (or NS_EINVAL for the int) when o is NULL. */
NS_API double ns_cassini_opts_angle_step_deg(const ns_cassini_opts *o);
NS_API double ns_cassini_opts_time_quantum_ms(const ns_cassini_opts *o);
NS_API int ns_cassini_opts_threads(const ns_cassini_opts *o);
/* Extension: the drift that triggers ns_cassini_readjust, as a fraction of
   a job's iteration time, 0 < fraction < 1 (default 0.05: §5.7's "more than
   five percent of the ideal iteration time"). NS_EINVAL otherwise. */
NS_API int ns_cassini_opts_set_drift_fraction(ns_cassini_opts *o, double fraction);
/* NAN for a NULL o. */
NS_API double ns_cassini_opts_drift_fraction(const ns_cassini_opts *o);

/* ---- one link ---------------------------------------------------------- */

/* Table 1 optimisation for the jobs on one link. shifts_ms[i] is t_j^l (Eq. 5)
   for the i-th job added to the link; nshifts must be >= job count.
   *score is Eq. 2 on the bins (1 = fully compatible; may be negative).
   Every job needs an iteration time and phases that tile it.
   Errors: NS_EINVAL (NULL argument, no job on the link, phases that do not
   tile, nshifts too small), NS_ERANGE (perimeter over the cap for every
   allowed quantum; angle step too fine), NS_ENOMEM. Outputs are written only
   on success. Safe to call concurrently on the same link and options. */
/* Cost: O(jobs x bins) per evaluated rotation set, bins = perimeter /
   angle step: exhaustive search while it stays within 2^22 bin-sums, else
   greedy + coordinate descent (bench/RESULTS.md "CASSINI"). */
NS_API int ns_cassini_score(const ns_link *link, const ns_cassini_opts *o,
                            double *score, double *shifts_ms, size_t nshifts);

/* Eq. 2 evaluated exactly in continuous time (no bins) when the i-th job of
   the link is delayed by shifts_ms[i] (any finite value; taken modulo the
   job's period). Use it to check shifts from ns_affinity_solve on a link.
   Errors as ns_cassini_score, plus NS_EINVAL for a non-finite shift. */
NS_API int ns_cassini_score_at(const ns_link *link, const ns_cassini_opts *o,
                               const double *shifts_ms, size_t nshifts, double *score);

/* The unified-circle perimeter p^l of the link's jobs and the effective time
   quantum after coarsening (see the header comment). NS_ERANGE if no quantum
   within 10 % of the shortest iteration keeps p under the cap. */
NS_API int ns_cassini_link_perimeter(const ns_link *link, const ns_cassini_opts *o,
                                     double *perimeter_ms, double *quantum_ms);

/* ---- Affinity graph (§4.1, Algorithm 1) --------------------------------- */

/* An empty bipartite graph of jobs and links. NULL on ENOMEM. */
NS_API ns_affinity *ns_affinity_new(void);
/* NULL is a no-op. Jobs and links are borrowed, never freed. */
NS_API void ns_affinity_free(ns_affinity *g);
/* Adds the edge (job, link) with w_e = t_j^l = shift_ms (finite, >= 0),
   reduced modulo the job's iteration (t_j^l is a phase, Eq. 5). The job
   needs an iteration time. The same edge twice is NS_EINVAL. Adding an
   edge discards earlier ns_affinity_solve results. */
NS_API int ns_affinity_add_edge(ns_affinity *g, const ns_job *job, const ns_link *link,
                                double shift_ms);
/* 1 if some connected component has a cycle, 0 if not, < 0 on error. */
NS_API int ns_affinity_has_loop(const ns_affinity *g);
/* Algorithm 1: a unique time-shift per job, in [0, iteration). The first job
   added to each connected component is its reference (t = 0). NS_ELOOP on a
   cycle (the message names an edge on it); the graph is unchanged then. */
NS_API int ns_affinity_solve(ns_affinity *g);
/* The job's shift from the last ns_affinity_solve. NS_ENOTFOUND if the job
   is not in the graph, NS_ESTATE if the graph is unsolved or changed since. */
NS_API int ns_affinity_shift_ms(const ns_affinity *g, const ns_job *job, double *shift_ms);

/* ---- candidate placements (§4.2, Algorithm 2) --------------------------- */

/* One candidate placement: the (job, link) pairs it would create. The jobs
   on a link in a candidate are exactly those added with it here; the link
   handle lends only its capacity. NULL on ENOMEM. */
NS_API ns_candidate *ns_candidate_new(void);
/* NULL is a no-op. */
NS_API void ns_candidate_free(ns_candidate *c);
/* Records that the job traverses the link in this candidate (each pair at
   most once, else NS_EINVAL). Discards earlier ranking shifts. */
NS_API int ns_candidate_add(ns_candidate *c, const ns_job *job, const ns_link *link);
/* Algorithm 2: score every candidate (loop => score NAN, excluded), pick the
   best by mean link score, solve its time-shifts.
   Links carrying one job of a candidate are not scored; a candidate without
   shared links scores 1.0. Ties go to the lowest index. *best receives the
   index; scores (n entries, may be NULL) the candidate scores. The best
   candidate then answers ns_candidate_shift_ms; the others answer NS_ESTATE.
   cands must hold n >= 1 distinct non-NULL candidates. Candidates are scored
   on ns_cassini_opts_set_threads threads with identical results.
   Errors: NS_EINVAL (arguments; a job whose phases do not tile), NS_ERANGE
   (a link's perimeter over the cap), NS_ELOOP (every candidate has a loop;
   scores are then all NAN), NS_ENOMEM. Other failures leave every candidate
   and *best unchanged. */
/* Cost: n x (shared links x one ns_cassini_score) on the option's
   threads (10 candidates x 512 two-job links: bench/RESULTS.md). */
NS_API int ns_cassini_rank(ns_candidate *const *cands, size_t n, const ns_cassini_opts *o,
                           size_t *best, double *scores);
/* The job's unique time-shift (ms, in [0, iteration)) in the candidate chosen
   by the last ns_cassini_rank; 0 for a job that shares no link. NS_ENOTFOUND
   if the job is not in the candidate, NS_ESTATE if the candidate was not the
   best (or changed since). */
NS_API int ns_candidate_shift_ms(const ns_candidate *c, const ns_job *job, double *shift_ms);

/* Extension: builds `cand` (its earlier pairs, links and shifts dropped) from
   the cluster, so that a cluster manager need not describe links by hand:
   the links placement `p` of `job` would share with the jobs committed on
   `c`, each with the (job, link) pairs of every job on it. Model (details
   in src/cassini/cluster.c): the job's collective over p's first
   ns_job_gpus GPUs (worker i on GPU i); a flow between servers uses the
   sender GPU's NIC port and the receiver's, in the cluster's port model
   (core.h "Port model": one link_gbps port per GPU by default, one shared
   port per server with ns_cluster_set_nic_ports(c, 1, gbps), as the
   simulator sets); across leaves a placement with reserved links (vClos)
   uses only those, which nobody shares, and any other is routed by ECMP (a
   fixed hash of the sender and receiver port pair picks spine and parallel
   link, the simulator's choice too) over an uplink and a downlink.
   A link is kept when `job` and at least one committed job with a phase
   profile use it; links carrying the same jobs are kept once. Committed
   jobs are added before `job` (in commit order), so the reference job of
   ns_cassini_rank's shifts (t = 0) is a committed one when there is one. The
   candidate owns these links (named "nic-tx:gpu3" -- "nic-tx:server3.0"
   when ports are not per GPU --, "up:leaf0-spine1.0", ...; capacity the
   port rate for NIC ports, link_gbps for leaf-spine links, the smaller
   when links carrying the same jobs are merged; freed with it) and is ready for
   ns_cassini_rank; `job` itself, if committed, is not counted twice. A job
   without phases shares nothing (empty candidate, score 1.0).
   Errors (cand unchanged): NS_EINVAL (NULL arguments, p holding fewer GPUs
   than the job's workers or GPUs outside the cluster), NS_EUNSUPPORTED (a
   job with phases x workers > 2^26), NS_ENOMEM. */
NS_API int ns_cassini_candidate_from_cluster(ns_candidate *cand, const ns_cluster *c,
                                             const ns_job *job, const ns_placement *p);

/* Extension, the re-adjustment of §4.2/§5.7: `cand` is the candidate the
   last ns_cassini_rank chose (it holds shifts). measured_iteration_ms[i] is
   the iteration time measured for jobs[i], a job of cand. A job drifts when
   |measured - ns_job_iteration_ms| > drift fraction (opts; 5 %) x its
   iteration. No drift: *readjusted = 0 and the shifts stand. Otherwise the
   candidate's links are re-optimised with each drifted job's phases
   stretched to its measured iteration, Algorithm 1 gives new unique shifts
   (ns_candidate_shift_ms answers them; the reference job of each component
   is again at 0) and *readjusted = the number of drifted jobs. The jobs are
   not modified: update their profiles with ns_job_* to make the drift
   permanent. Errors (cand unchanged): NS_EINVAL (NULL arguments, a
   measurement not finite and > 0, a job without iteration time),
   NS_ENOTFOUND (a job not in cand), NS_ESTATE (cand holds no shifts),
   NS_ERANGE / NS_ELOOP / NS_ENOMEM as ns_cassini_rank. */
NS_API int ns_cassini_readjust(ns_candidate *cand, const ns_cassini_opts *o,
                               const ns_job *const *jobs, const double *measured_iteration_ms,
                               size_t n, size_t *readjusted);

#ifdef __cplusplus
}
#endif

#endif
