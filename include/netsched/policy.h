/*
 * netsched/policy.h - one policy object for every caller: the presets the
 * simulator measures (netsched-sim --list), as one handle a cluster manager
 * runs. Included by <netsched.h>; do not include directly.
 *
 * A policy is an order (which waiting job is offered GPUs first), a
 * placement (a public ns_*_place entry point), CASSINI's candidate search,
 * ranking and time-shifts on top of it, backfilling, and the state that
 * lives across decisions (Dally's delay tuner; Titan's, vClos's and
 * CASSINI's options). The simulator (ns_sim), netsched-slurm and Python's
 * netsched.Policy all run this object, so a cluster manager gets the
 * decisions the simulator measured.
 *
 *   ns_policy *p = ns_policy_new("cassini-lwf-1");
 *   ns_queue *q = ns_queue_new();
 *   ns_decision *d = ns_decision_new();
 *   // each scheduling instant: c has every running job committed where it runs
 *   ns_queue_clear(q);
 *   for each waiting job J: i = ns_queue_add(q, J, id, arrival_ms); (and what else you know)
 *   ns_policy_decide(p, c, q, now_ms, d);
 *   for (k = 0; k < ns_decision_start_count(d); k++) {
 *     size_t i = ns_decision_start_job(d, k);       // index into q
 *     ns_cluster_commit(c, job_i, ns_decision_placement(d, k));
 *     // CASSINI: ns_decision_shift_ms(d, k, job, &ms) for the new job and
 *     // every running job; NS_OK: delay its next compute phase by ms
 *     ns_policy_started(p, ...);                    // the report-back contract
 *   }
 *   // ask again at the next event, or at ns_decision_next_ms(d) at the latest
 *
 * REPORT-BACK CONTRACT (what the caller tells the policy). The policy never
 * commits, releases or suspends anything: it proposes, the caller acts (a
 * cluster manager may fail to start what was decided). What the policy needs
 * to know comes in two ways:
 *  - through the queue at each decision: per waiting job its handle (GPU
 *    demand, profile), a stable id, its arrival, and when known its ideal
 *    run time (SRSF / SJF keys), its measured Nw_sens (Dally's order: compute
 *    x iterations done / ms run; unset = 1.0, "no slowdown endured") and since
 *    when it waits (Dally's starvation: arrival, or its latest suspension);
 *  - through the cluster: running jobs committed on their GPUs, and for
 *    LWF-kappa / list scheduling each GPU's remaining work
 *    (ns_cluster_set_gpu_workload_ms).
 * The calls ns_policy_started / ns_policy_finished / ns_policy_suspended /
 * ns_policy_progress report what happened; they validate their arguments and
 * are cheap (finished and suspended also forget the job's CASSINI schedule).
 * Under CASSINI a caller that can shift a running job's phases also reports
 * iterations, applied shifts and all-reduce starts ("CASSINI's drift
 * re-adjustment" below). Of today's presets none keeps other state from
 * them (Dally's tuner records its waits when it accepts an offer, inside the
 * decision; the preemptive orders' queues and Dally's leases are kept per
 * queue id from the decisions themselves, assumed applied: PREEMPTION,
 * LEASES); callers should make them all the same, as the stable contract.
 *
 * Determinism: the same policy state, cluster, queue (in any order) and
 * now_ms give the same decision. Ties of the order key go to the earlier
 * arrival, then the smaller id.
 *
 * ADDITIONS (issue 28; API.md-style notes, names fixed from here on):
 *   ns_policy_new(preset) / ns_policy_free / ns_policy_name
 *   ns_policy_preset_count / _name / _description / _find / _parts: the
 *     preset table, the one ns_sim_policy_name and netsched-sim --list read
 *   ns_policy_set_order / _placement / _kappa / _admission / _cassini /
 *     _backfill / _seed / _skew_bytes / _dally_timers / _cassini_drift /
 *     _place_fn: a policy from parts (before its first decision)
 *   ns_policy_order_key, ns_policy_place (one job), ns_policy_decide (a queue)
 *   ns_policy_started / _finished / _suspended / _progress: report back
 *   ns_policy_tuner, ns_policy_cassini_opts: the state it owns, for
 *     persistence (netsched-slurm's state file) and CASSINI's re-adjustment
 *   ns_policy_save / ns_policy_load: that state as versioned bytes
 *   ns_queue_*: what the caller knows of the waiting jobs
 *   ns_decision_*: the decision (starts, placements, shifts, waits, next_ms)
 *   (issue 28, preemption) ns_queue_add_running / _set_running /
 *     _is_running / _set_attained_ms: running jobs and attained service;
 *     ns_decision_suspend_count / _suspend_job: running jobs to suspend;
 *     ns_policy_set_las_queues / _set_starvation / _set_gittins_samples:
 *     the preemptive orders' options (as ns_sim_opts_set_* of those names)
 *   ns_policy_clone / ns_policy_set_preset / ns_policy_kappa_of: a copy of
 *     the parts and options, a preset's parts over the options (ns_sim_opts
 *     holds its policy parts in one)
 *   ns_policy_admit: communication admission of one all-reduce (SRSF(n),
 *     AdaDUAL) from what the caller sees in flight around it
 *   (issue 28, Dally's leases) ns_policy_set_dally_lease / _dally_lease_of:
 *     the lease; ns_policy_lease_ms: the lease held for a running job id;
 *     ns_decision_renew_count / _renew_job: running jobs whose expired
 *     lease was renewed; ns_decision_next_ms also covers lease ends
 *     (section LEASES below)
 *   (issue 28, CASSINI's drift re-adjustment) ns_policy_report_iteration /
 *     _report_shifted / _report_allreduce: report each job's iteration at
 *     its start, each applied shift's slot, each all-reduce start; the
 *     answer (ns_policy_drift: nothing, new shifts, a hold, a dropped
 *     schedule), ns_decision_readjust_shift_ms its shifts,
 *     ns_policy_set_cassini_drift_rule, ns_policy_readjust_count (section
 *     "CASSINI's drift re-adjustment" below)
 *   (issue 28, Dally's pass-by-pass preemption) ns_policy_preempt: after a
 *     decision, the running jobs one waiting job takes (lease-0 reading)
 * The simulator enforces admission per
 * all-reduce through ns_policy_admit and CASSINI's re-adjustment through
 * the report calls (it measures what is in flight and when each all-reduce
 * starts; a batch cluster manager can enforce neither).
 *
 * PREEMPTION (orders NS_POLICY_ORDER_2D_LAS / _2D_GITTINS: presets "2d-las",
 * "2d-gittins"; src/policy/las.c). The queue then holds the waiting AND the
 * running jobs (ns_queue_add_running; each committed on c where it runs),
 * each with a stable id and its attained service in GPU-ms (GPUs x ms run
 * so far, ns_queue_set_attained_ms; 0 unless set). The policy keeps, per
 * id, Tiresias's discretised queue: new ids enter the first queue; a
 * running job whose GPUs x executed time since its last promotion reaches
 * its queue's threshold moves to the end of the next (default thresholds
 * 3250 and 7200 GPU-s, ns_policy_set_las_queues); a waiting job that waited
 * starvation-knob x its executed time returns to the first (default off,
 * ns_policy_set_starvation); 2D-Gittins orders each queue by the Gittins
 * index of the job's attained service over ns_policy_set_gittins_samples's
 * distribution (none set: every index 0, i.e. arrival order). decide()
 * walks the queues in order and grants each job its GPUs while as many of
 * the grantable GPUs are uncounted (the free GPUs plus those of the running
 * jobs in the queue: GPUs held by jobs not in the queue are not granted); a running job not granted is suspended
 * (ns_decision_suspend_job; status NS_ENOSPACE), a waiting job granted is
 * placed by the placement part assuming every suspended job's GPUs are
 * released (status NS_OK and a start; NS_ENOSPACE if the placement finds no
 * room). A running job kept has status NS_OK. The caller RELEASES THE
 * SUSPENDED JOBS FIRST (ns_cluster_release), then commits the starts in
 * order. A job the policy knew that is absent from a decision's queue has
 * left (finished or cancelled) and is forgotten; ids must be distinct
 * within a queue (NS_EINVAL). ns_decision_next_ms is the next demotion or
 * promotion check (ask again then even if nothing else happens). The
 * non-preemptive orders never suspend: their running entries keep their
 * GPUs (status NS_OK) and are not offered anything. The queue state is not
 * part of ns_policy_save (a restarted caller's jobs re-enter the first
 * queue and fall back by their attained service, one queue per decision).
 *
 * LEASES (Dally's lease reading: order NS_POLICY_ORDER_NW_SENS, presets
 * "dally", "dally-manual", with ns_policy_set_dally_lease > 0, default
 * 20 min; not with CASSINI nor on a GPU-sharing cluster; src/policy/lease.c
 * and policy.c's decide_nw_sens). Dally's simulator is built on Themis,
 * whose arbiter grants GPUs for a lease and re-offers them when it
 * expires, "in increasing order of Nw_sens" (Dally §4.2.1, §4.3.1). The
 * queue holds the waiting jobs and the running ones (ns_queue_add_running,
 * each committed on c where it runs, same id at every decision), a running
 * job's Nw_sens measured now (ns_queue_set_nw_sens: compute x iterations
 * done / ms run; at least for the jobs whose lease ended, see
 * ns_policy_lease_ms). The policy keeps per id (distinct within a queue,
 * NS_EINVAL otherwise) a lease [from, end): granted from now_ms for
 * lease_ms when it decides a start, renewed from now_ms at
 * expiry when the job keeps its GPUs, and granted from now_ms to a running
 * job first seen without one (started outside a decision). With no lease
 * ended (end <= now_ms) decide() is the plain queue: the waiting jobs
 * offered the free GPUs, running jobs keep theirs (status NS_OK). When
 * leases ended, the waiting jobs and the expired ones are offered, in
 * increasing Nw_sens (the NW_SENS key; ties by arrival, then id), the free
 * GPUs and the expired jobs' GPUs:
 *  - an expired job whose GPUs no one before it took keeps them: RENEWED
 *    (ns_decision_renew_job; status NS_OK, nothing for the caller to do);
 *  - a waiting job is offered the free GPUs, then those of the expired
 *    jobs after it in the order, taken one by one from the latest (highest
 *    Nw_sens) until its placement accepts (at most 16 jobs per waiter, 64
 *    such offers per decision; else they are put back): a start;
 *  - an expired job whose GPUs were taken is SUSPENDED
 *    (ns_decision_suspend_job, status NS_ENOSPACE) and offered what is
 *    still free (Dally's Algorithm 1 starving since its lease began): if
 *    it accepts it is also a start (it MOVES: release it, then commit it
 *    where started; status NS_OK).
 * Without backfilling a waiting job not placed stops the waiting jobs
 * after it. The caller releases the suspended jobs first, then commits the
 * starts in order (as for the preemptive orders). ns_decision_next_ms is
 * then the earliest of the Dally retry times and the lease ends after
 * now_ms - including the end of a lease whose job has since left (asking
 * then finds nothing expired: the plain decision); ask again then even if
 * nothing else happens. The policy assumes its decision applied: a job it
 * started that is waiting again at the next decision, or absent, holds no
 * lease. The leases are not part of ns_policy_save (after a restart every
 * running job gets a fresh lease at the first decision).
 */
#ifndef NETSCHED_POLICY_H
#define NETSCHED_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "cassini.h"
#include "dally.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ns_policy ns_policy;
typedef struct ns_queue ns_queue;
typedef struct ns_decision ns_decision;

/* The queue order. Keys are fixed while a job waits: FIFO = arrival; SRSF =
   GPUs x ideal run ms; SJF = ideal run ms (unknown: after every known one);
   NW_SENS = the job's Nw_sens to 1e-9 (unset: 1.0); the preemptive orders'
   key here is the arrival (decide() ranks them by their queues: PREEMPTION).
   Values equal ns_sim_order's. */
typedef enum ns_policy_order {
  NS_POLICY_ORDER_FIFO = 0,
  NS_POLICY_ORDER_SRSF = 1,
  NS_POLICY_ORDER_SJF = 2,
  NS_POLICY_ORDER_NW_SENS = 3,
  NS_POLICY_ORDER_2D_LAS = 4,
  NS_POLICY_ORDER_2D_GITTINS = 5
} ns_policy_order;

/* The base placement: one public entry point. Values equal ns_sim_placement's. */
typedef enum ns_policy_placement {
  NS_POLICY_PLACE_FIRST_FIT = 0,       /* ns_place_first_fit */
  NS_POLICY_PLACE_LIST_SCHEDULING = 1, /* ns_place_list_scheduling */
  NS_POLICY_PLACE_RANDOM = 2,          /* ns_place_random, seed x golden ratio + job id */
  NS_POLICY_PLACE_BEST_FIT = 3,        /* ns_place_best_fit */
  NS_POLICY_PLACE_TIRESIAS = 4,        /* ns_place_tiresias (skew threshold) */
  NS_POLICY_PLACE_LWF = 5,             /* ns_lwf_place (kappa) */
  NS_POLICY_PLACE_TITAN = 6,           /* ns_titan_place (seeded) */
  NS_POLICY_PLACE_VCLOS = 7,           /* ns_vclos_place */
  NS_POLICY_PLACE_OCS_VCLOS = 8,       /* ns_vclos_place; the caller enables the OCS layer */
  NS_POLICY_PLACE_DALLY = 9,           /* ns_dally_offer, auto-tuned timers */
  NS_POLICY_PLACE_DALLY_MANUAL = 10,   /* ns_dally_offer, fixed timers */
  NS_POLICY_PLACE_CUSTOM = 11          /* ns_policy_set_place_fn's callback */
} ns_policy_placement;

/* Communication admission (ns_policy_admit; enforced per all-reduce by the simulator). */
typedef enum ns_policy_admission {
  NS_POLICY_ADMIT_ALL = 0,
  NS_POLICY_ADMIT_SRSF = 1,   /* SRSF(n) */
  NS_POLICY_ADMIT_ADADUAL = 2 /* AdaDUAL */
} ns_policy_admission;

/* A custom placement: fill out (>= the job's GPUs) and return NS_OK, or
   NS_ENOSPACE (wait), or another negative status. Same type as ns_sim_place_fn. */
typedef int (*ns_policy_place_fn)(const ns_cluster *c, const ns_job *job, ns_placement *out,
                                  void *user);

/* ---- the preset table ---------------------------------------------------- */

/* Number of presets (21); name and one-line description of preset i ("" if
   out of range). The same table as ns_sim_policy_count / _name. */
NS_API int ns_policy_preset_count(void);
NS_API const char *ns_policy_preset_name(int i);
NS_API const char *ns_policy_preset_description(int i);
/* Index of a preset by name; NS_EINVAL whose message lists the valid names. */
NS_API int ns_policy_preset_find(const char *name);
/* The parts of preset i; any output may be NULL. backfill: 0 for "fifo". */
NS_API int ns_policy_preset_parts(int i, ns_policy_order *order, ns_policy_placement *placement,
                                  int *kappa, ns_policy_admission *admission, int *admit_n,
                                  int *cassini, int *backfill);

/* ---- the object ----------------------------------------------------------- */

/* A policy from a preset name (netsched-sim --list). NULL + ns_last_error()
   on an unknown name (the message lists the valid ones) or out of memory.
   Defaults of its options as in the simulator: seed 1, skew threshold 200 MB,
   10 CASSINI candidates, Dally timers 12 h / 12 h / history 7 days, Dally
   lease 20 min, CASSINI drift 5 %. */
NS_API ns_policy *ns_policy_new(const char *preset);
NS_API void ns_policy_free(ns_policy *p);
/* A new policy with p's parts and options (and name), but none of its state:
   it has not decided, so its parts can still be set. NULL + ns_last_error()
   if p is NULL or out of memory. */
NS_API ns_policy *ns_policy_clone(const ns_policy *p);
/* Applies a preset's parts (order, placement, kappa, admission, CASSINI,
   backfilling) to p, keeping its options (seed, skew threshold, Dally timers
   and lease, CASSINI drift, callback, preemptive orders' options); p then has the
   preset's name. NS_EINVAL listing the valid names (p unchanged); NS_ESTATE
   after p's first decision. */
NS_API int ns_policy_set_preset(ns_policy *p, const char *preset);
/* The preset's name, or "custom" once a part was changed. */
NS_API const char *ns_policy_name(const ns_policy *p);

/* Parts and options. Each validates its value; NS_ESTATE once the policy has
   made a decision (its state is built then). A part's setter makes the
   policy "custom". */
NS_API int ns_policy_set_order(ns_policy *p, ns_policy_order order);
NS_API int ns_policy_set_placement(ns_policy *p, ns_policy_placement placement);
NS_API int ns_policy_set_kappa(ns_policy *p, int kappa);                /* >= 1 */
NS_API int ns_policy_set_admission(ns_policy *p, ns_policy_admission a, int n); /* n >= 1 */
NS_API int ns_policy_set_cassini(ns_policy *p, int enabled, int max_candidates); /* 1..10 */
NS_API int ns_policy_set_backfill(ns_policy *p, int enabled);
NS_API int ns_policy_set_seed(ns_policy *p, uint64_t seed);
NS_API int ns_policy_set_skew_bytes(ns_policy *p, uint64_t bytes);
NS_API int ns_policy_set_dally_timers(ns_policy *p, double history_ms, double machine_ms,
                                      double rack_ms);
NS_API int ns_policy_set_cassini_drift(ns_policy *p, double fraction); /* [0, 1); 0: never */
NS_API int ns_policy_set_place_fn(ns_policy *p, ns_policy_place_fn fn, void *user);
/* Dally's lease (LEASES above) in ms: 0 (no leases: running jobs keep their
   GPUs, as the non-preemptive orders) or in [1000, 1e15] (default 20
   min); NS_EINVAL naming lease_ms and quoting it. Read back with
   ns_policy_dally_lease_of (NAN and a message if p is NULL). */
NS_API int ns_policy_set_dally_lease(ns_policy *p, double lease_ms);
NS_API double ns_policy_dally_lease_of(const ns_policy *p);
/* The lease the policy holds for the running job of id `id` (LEASES):
   NS_OK with its start and end in ms (either pointer may be NULL), or
   NS_ENOTFOUND (no lease: not running as the policy knows it, or no
   leases). A caller for whom measuring Nw_sens is costly measures only the
   running jobs whose lease ended (end <= now) before a decision. */
NS_API int ns_policy_lease_ms(const ns_policy *p, uint64_t id, double *from_ms, double *end_ms);
/* The preemptive orders' options (PREEMPTION above; the same rules and
   defaults as ns_sim_opts_set_las_queues / _set_starvation /
   _set_gittins_samples): 1 <= queues <= 8 with queues - 1 thresholds in
   GPU-ms, finite, > 0, strictly ascending (NULL allowed for 1 queue);
   knob finite >= 0 (0: no promotion); n samples of GPU time in GPU-ms,
   each finite, in (0, 1e18] (copied; n = 0: none). */
NS_API int ns_policy_set_las_queues(ns_policy *p, int queues, const double *thresholds_gpu_ms);
NS_API int ns_policy_set_starvation(ns_policy *p, double knob);
NS_API int ns_policy_set_gittins_samples(ns_policy *p, const double *gpu_time_samples, size_t n);

/* Read back. ns_policy_order / _placement / _admission return the enum value
   (< 0 and a message if p is NULL). */
NS_API int ns_policy_order_of(const ns_policy *p);
NS_API int ns_policy_kappa_of(const ns_policy *p);
NS_API int ns_policy_placement_of(const ns_policy *p);
NS_API int ns_policy_admission_of(const ns_policy *p, int *n);
NS_API int ns_policy_uses_cassini(const ns_policy *p);
NS_API int ns_policy_backfills(const ns_policy *p);

/* The state it owns (NULL when the policy has none of that kind, or before
   its first decision for the CASSINI options). Borrowed: valid until
   ns_policy_free. The tuner is the same handle for the policy's life: a
   successful ns_policy_load replaces its contents, not the handle (a
   refused load changes neither). A decision that fails leaves the tuner
   as it was, though the decision's offers may have recorded waits in it
   before failing (ns_delay_tuner_checkpoint / _rollback). The tuner may be
   fed recorded waits (ns_delay_tuner_record) to restore it across
   processes. */
NS_API ns_delay_tuner *ns_policy_tuner(ns_policy *p);
NS_API const ns_cassini_opts *ns_policy_cassini_opts(ns_policy *p);

/* The policy's own state as bytes, to outlive a process (a cluster manager
   restarting): format "ns_policy 1" (src/policy/state.c): a header, the
   policy's name, then Dally's recorded waits (the only state of today's
   presets; other presets save the header alone). ns_policy_save writes a
   NUL-terminated text into buf[0..len) and *needed = its size with the NUL;
   NS_ERANGE if len is smaller (call with buf NULL, len 0 to size it).
   ns_policy_load replays a saved state into a fresh tuner and replaces p's;
   a blob with another header, another policy's name or a malformed line is
   refused with NS_EINVAL naming the line, p left as it was. Loading fixes
   the parts as a decision does. */
NS_API int ns_policy_save(const ns_policy *p, char *buf, size_t len, size_t *needed);
NS_API int ns_policy_load(ns_policy *p, const char *buf, size_t len);

/* ---- what the caller knows: the queue ------------------------------------ */

NS_API ns_queue *ns_queue_new(void);
NS_API void ns_queue_free(ns_queue *q);
/* Empties the queue (keeps its memory). */
NS_API void ns_queue_clear(ns_queue *q);
NS_API size_t ns_queue_count(const ns_queue *q);
/* Keeps the first n jobs (n <= count; NS_EINVAL otherwise). */
NS_API int ns_queue_truncate(ns_queue *q, size_t n);
/* Adds a waiting job (borrowed: it must outlive the decisions that use it):
   its caller-chosen id (stable across decisions; RANDOM placement seeds with
   it; ties of the order go to the smaller id), its arrival (finite). Returns
   its index (>= 0) or a negative status. Waiting since = arrival, ideal run
   and Nw_sens unknown until set. */
NS_API int ns_queue_add(ns_queue *q, const ns_job *job, uint64_t id, double arrival_ms);
/* Ideal run time in ms (SRSF, SJF): finite and >= 0, or NAN for unknown. */
NS_API int ns_queue_set_ideal_ms(ns_queue *q, size_t i, double ideal_run_ms);
/* Measured Nw_sens (Dally): finite and >= 0, or NAN for unknown (1.0). */
NS_API int ns_queue_set_nw_sens(ns_queue *q, size_t i, double nw_sens);
/* Dally's starvation start: arrival, or the latest suspension (finite). */
NS_API int ns_queue_set_waiting_since(ns_queue *q, size_t i, double ms);
/* Adds a RUNNING job: as ns_queue_add (same arguments, same return), the
   job committed on the cluster passed to decide where it runs. The
   preemptive orders may suspend it; the others leave it running. */
NS_API int ns_queue_add_running(ns_queue *q, const ns_job *job, uint64_t id, double arrival_ms);
/* Attained service of job i, waiting or running: GPUs x ms it has run so
   far (finite, >= 0; default 0). The 2D-LAS key; 2D-Gittins's index too. */
NS_API int ns_queue_set_attained_ms(ns_queue *q, size_t i, double gpu_ms);
/* Marks job i running (1) or waiting (0); ns_queue_is_running reads it
   (1 / 0, < 0 on a bad index). */
NS_API int ns_queue_set_running(ns_queue *q, size_t i, int running);
NS_API int ns_queue_is_running(const ns_queue *q, size_t i);

/* ---- the decision --------------------------------------------------------- */

NS_API ns_decision *ns_decision_new(void);
NS_API void ns_decision_free(ns_decision *d);
/* Queue size the decision covers (the statuses ns_decision_status has). */
NS_API size_t ns_decision_job_count(const ns_decision *d);
/* Jobs to start, in the order decided (later ones were placed with the
   earlier ones committed). */
NS_API size_t ns_decision_start_count(const ns_decision *d);
/* Queue index of start k (SIZE_MAX if out of range). */
NS_API size_t ns_decision_start_job(const ns_decision *d, size_t k);
/* Placement of start k (NULL if out of range); borrowed until the next
   decision into d. Commit it as is (vClos placements carry their links). */
NS_API const ns_placement *ns_decision_placement(const ns_decision *d, size_t k);
/* Copies the placement of start k (GPUs, and a vClos placement's links and
   virtual sizes) into out, a placement the caller owns. */
NS_API int ns_decision_copy_placement(const ns_decision *d, size_t k, ns_placement *out);
/* CASSINI time-shift of `job` (the started job, or a running job on its
   shared links) decided with start k: NS_OK with *shift_ms, NS_ENOTFOUND if
   the start shifts no one or not this job. */
NS_API int ns_decision_shift_ms(const ns_decision *d, size_t k, const ns_job *job,
                                double *shift_ms);
/* 1 if start k comes with time-shifts (CASSINI ranked it), else 0. */
NS_API int ns_decision_has_shifts(const ns_decision *d, size_t k);
/* Running jobs to suspend (preemptive orders only; release them before
   committing the starts): their count, and the queue index of suspend k
   (SIZE_MAX if out of range), in the order decided. */
NS_API size_t ns_decision_suspend_count(const ns_decision *d);
NS_API size_t ns_decision_suspend_job(const ns_decision *d, size_t k);
/* Running jobs whose expired lease was renewed (LEASES: they keep their
   GPUs; nothing to do): their count, and the queue index of renewal k
   (SIZE_MAX if out of range), in the order decided. */
NS_API size_t ns_decision_renew_count(const ns_decision *d);
NS_API size_t ns_decision_renew_job(const ns_decision *d, size_t k);
/* What was decided for queue index i: NS_OK (started; a running job: keeps
   running), NS_ENOSPACE (waits: no room now, or Dally declined, or not
   granted GPUs by a preemptive order's queues; a running job: suspended),
   NS_EINVAL (never fits: no placement of
   this policy could hold it even on an empty cluster), NS_ENOTFOUND (not
   offered: behind a blocked head without backfilling, or too few free GPUs). */
NS_API int ns_decision_status(const ns_decision *d, size_t i);
/* The earliest time a waiting job wants to be offered again even if nothing
   else happens (Dally: its machine or rack timer expires, or a lease ends -
   LEASES; the preemptive orders: the next demotion or promotion check),
   INFINITY if none;
   per job: ns_decision_retry_ms (INFINITY if none; finite only for a
   declined job of a policy with a delay tuner, ns_policy_tuner non-NULL:
   a caller may skip reading them otherwise). */
NS_API double ns_decision_next_ms(const ns_decision *d);
NS_API double ns_decision_retry_ms(const ns_decision *d, size_t i);

/* ---- deciding ------------------------------------------------------------- */

/* The order key of queue index i (smaller first; ties: arrival, then id). */
NS_API int ns_policy_order_key(const ns_policy *p, const ns_queue *q, size_t i, double *key);

/* One waiting job (queue index i) offered the cluster's free GPUs now: d is
   reset and then holds one start (NS_OK) or its status. The cluster is left
   as it was (CASSINI hides GPUs during its candidate search and gives them
   back). Returns NS_OK once decided, < 0 on a failure of the placement (its
   message), d then empty. now_ms must not go back: see TIME below. */
NS_API int ns_policy_place(ns_policy *p, ns_cluster *c, const ns_queue *q, size_t i,
                           double now_ms, ns_decision *d);

/* The whole queue: in the policy's order, each job with at most as many GPUs
   as are free (any, under GPU sharing) is placed (ns_policy_place), each start
   committed before the next job is asked; without backfilling the first job
   that waits stops the queue. Every tentative commit is released before
   returning: c is left as it was. d holds every start and every job's status. */
NS_API int ns_policy_decide(ns_policy *p, ns_cluster *c, const ns_queue *q, double now_ms,
                            ns_decision *d);

/* Dally's pass-by-pass preemption (the simulator's lease-0 reading; order
   NS_POLICY_ORDER_NW_SENS, else NS_EINVAL): asked after the caller applied
   a decision, while jobs still wait. q holds the waiting jobs with their
   Nw_sens (ns_queue_set_nw_sens; unset 1.0) and, as running, the jobs that
   may be preempted, each with its Nw_sens measured now and committed on c
   where it runs (leave out those it must not preempt, e.g. started at
   now_ms). The waiting jobs in the policy's order each may take the GPUs
   of running jobs whose Nw_sens exceeds its own by more than 5 %, highest
   first, taken off one by one (at most 16) until its placement accepts the
   GPUs so freed; the first waiting job that accepts wins. d then holds that
   start and its suspends (release them, then commit the start) and
   ns_decision_next_ms = now_ms: ask again at once (another job may
   preempt) until d holds no start. At most 8 offers per now_ms over the
   calls at that time. c is left as it was. */
NS_API int ns_policy_preempt(ns_policy *p, ns_cluster *c, const ns_queue *q, double now_ms,
                             ns_decision *d);

/* Communication admission of one all-reduce of a job about to start, by
   the policy's admission part, from what the caller sees in flight now:
   per link of the job, the number of OTHER all-reduces in flight on it
   (SRSF(n): it starts iff every count is below n); per server of the job,
   the all-reduces in flight there and the bytes the one in flight still
   has (AdaDUAL Algorithm 2: ns_adadual_decide with Eq. 5's b and eta, and
   the job's model_bytes, 0 counted as 1). *start = 1 (start now) or 0
   (wait); NS_POLICY_ADMIT_ALL: always 1. The arrays may be NULL when their
   count is 0; a negative count is NS_EINVAL naming it. Only a simulator or
   an agent inside the training job can enforce this. */
NS_API int ns_policy_admit(const ns_policy *p, uint64_t model_bytes, const int *others_per_link,
                           size_t nlinks, const int *tasks_per_server,
                           const uint64_t *remaining_bytes, size_t nservers, double b_ms_per_byte,
                           double eta_ms_per_byte, int *start);

/* Report back (the contract above). job: the caller's handle; times finite and
   not before the job's arrival as the caller knows it.

   TIME. A policy's clock only moves forward: ns_policy_place,
   ns_policy_decide, ns_policy_preempt and the four reports below refuse a
   now_ms before the now_ms of the policy's latest successful one of them
   with NS_EINVAL, "<function>: now_ms must not be before <latest>, the
   now_ms of this policy's latest decision or report: time must not go back
   (got <now_ms>)", and change nothing (d included). The same now_ms again
   is fine. (Dally's tuner, 2D-LAS's attained service, the leases and the
   pass budget are all kept against now_ms: a step back would corrupt them.)
   ns_policy_clone starts with no clock; ns_policy_load keeps p's. */
NS_API int ns_policy_started(ns_policy *p, const ns_job *job, double now_ms);
NS_API int ns_policy_finished(ns_policy *p, const ns_job *job, double now_ms);
NS_API int ns_policy_suspended(ns_policy *p, const ns_job *job, double now_ms);
/* Measured progress of a running job: iterations done and ms run so far
   (Dally's Nw_sens inputs; both finite, >= 0). */
NS_API int ns_policy_progress(ns_policy *p, const ns_job *job, double iters_done, double run_ms,
                              double now_ms);

/* ---- CASSINI's drift re-adjustment (§4.2, §5.7) ---------------------------- */

/* A shifted job keeps an ideal schedule: its compute starts at the slot the
   caller applied its shift to (ns_policy_report_shifted) and every iteration
   after, each iteration compute_ms then its all-reduce alone (as reported by
   ns_policy_report_iteration). When one of its all-reduces starts more than
   drift x its iteration off that schedule (ns_policy_set_cassini_drift;
   default 5 %, the paper's), the policy re-ranks the links it shares from the
   cluster (ns_cassini_candidate_from_cluster and ns_cassini_rank; then
   ns_cassini_readjust with every partner's reported iteration, which
   re-optimises when one differs from its profile by more than the drift)
   and answers one of these. Rule (ns_policy_set_cassini_drift_rule, values
   equal ns_sim_drift_rule's): READJUST (default) applies the ranked shifts
   again from now, and after its n-th re-adjustment a job is not re-adjusted
   again for 10 x 2^n (n capped at 20) of its iterations (re-ranking at every
   drifted all-reduce made cassini-ff 13x slower on Philly; the paper reports
   re-adjustments as rare); WAIT re-shifts only when ns_cassini_readjust
   finds a measured drift, otherwise the job waits for its next ideal slot.
   The schedules are not part of ns_policy_save: after a restart the caller
   reports its running jobs' iterations and slots again. Cost: the report
   calls find a job's record in O(1); a drift reads the cluster (O(jobs
   committed)) and ranks the job's links once. */
typedef enum ns_policy_drift_rule {
  NS_POLICY_DRIFT_RULE_READJUST = 0,
  NS_POLICY_DRIFT_RULE_WAIT = 1
} ns_policy_drift_rule;

/* ns_policy_report_allreduce's answer. */
typedef enum ns_policy_drift {
  NS_POLICY_DRIFT_NONE = 0,    /* nothing to do: on schedule, no schedule, or re-adjusted lately */
  NS_POLICY_DRIFT_SHIFTS = 1,  /* re-adjusted: apply d's shifts (ns_decision_readjust_shift_ms) to
                                  the job and its link partners as at a placement, then report
                                  each new slot (ns_policy_report_shifted) */
  NS_POLICY_DRIFT_HOLD = 2,    /* rule WAIT: hold the job's next compute until *hold_until_ms, its
                                  next ideal slot after this all-reduce alone */
  NS_POLICY_DRIFT_DROPPED = 3  /* drifted, but its links share nothing now or have no loop-free
                                  shifts: its schedule is dropped, nothing to apply */
} ns_policy_drift;

/* The rule above; NS_EINVAL quoting any other value, NS_ESTATE after the
   first decision (as every option). */
NS_API int ns_policy_set_cassini_drift_rule(ns_policy *p, ns_policy_drift_rule rule);

/* Report back: job (re)started on its placement, where by its schedule an
   iteration is compute_ms of compute then its all-reduce alone, allreduce_ms
   (both finite, >= 0; a cluster manager measures them, the simulator derives
   them from the placement's links). Begins a new record for the job: any
   schedule and re-adjustment history it had are dropped. Call it at every
   start and resume, for every job (a job's reported iteration is what
   ns_cassini_readjust gets for it as a link partner). */
NS_API int ns_policy_report_iteration(ns_policy *p, const ns_job *job, double compute_ms,
                                      double allreduce_ms);
/* Report back: the caller applied the job's time-shift (from a decision or a
   re-adjustment): its next compute starts at slot_ms (finite, >= 0), which
   sets its ideal schedule. NS_ENOTFOUND naming the job if no iteration was
   reported for it. */
NS_API int ns_policy_report_shifted(ns_policy *p, const ns_job *job, double slot_ms);
/* Report back, at every all-reduce start of a running job: job (committed on
   c where it runs) starts an all-reduce at start_ms (finite, >= 0). Returns
   an ns_policy_drift (>= 0) or a negative status; d is reset and holds the
   re-adjusted shifts (NS_POLICY_DRIFT_SHIFTS), *hold_until_ms the hold
   (NS_POLICY_DRIFT_HOLD; NAN otherwise). c is left as it was. A policy
   without CASSINI answers NS_POLICY_DRIFT_NONE. Errors (p, c, d and *hold
   untouched): NS_EINVAL (NULL argument, a time not finite or negative, job
   not committed on c when it drifted: c is read only then), NS_ENOTFOUND (no iteration reported for job),
   NS_ENOMEM; a failure of the CASSINI library with its message. */
NS_API int ns_policy_report_allreduce(ns_policy *p, ns_cluster *c, const ns_job *job,
                                      double start_ms, ns_decision *d, double *hold_until_ms);
/* The re-adjusted time-shift of `job` (the drifted job or a partner on its
   links) held by d after NS_POLICY_DRIFT_SHIFTS: NS_OK with *shift_ms in
   [0, its iteration), NS_ENOTFOUND if d holds no re-adjustment or it does
   not shift this job. The caller re-aligns them as at a placement. */
NS_API int ns_decision_readjust_shift_ms(const ns_decision *d, const ns_job *job,
                                         double *shift_ms);
/* How many all-reduces drifted past the threshold and were acted on
   (SHIFTS, HOLD or DROPPED) since the policy was made; 0 for NULL. */
NS_API uint64_t ns_policy_readjust_count(const ns_policy *p);

#ifdef __cplusplus
}
#endif

#endif /* NETSCHED_POLICY_H */
