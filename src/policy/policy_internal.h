/*
 * src/policy/policy_internal.h - private structures of the policy object
 * (netsched/policy.h). Only src/policy includes it.
 */
#ifndef NS_POLICY_INTERNAL_H
#define NS_POLICY_INTERNAL_H

#include "core/internal.h"

#define NSP_MAX_CANDIDATES 10
#define NSP_LAS_MAX_QUEUES 8 /* the preemptive orders' queues, at most */
/* Dally's lease reading (lease.c, policy.c's decide_lease): default lease
   (20 min) and shortest one; per re-offer, expired jobs taken per waiter
   and offers with GPUs taken from expired jobs (the simulator's bounds,
   moved with the decision in issue 28) */
#define NSP_DALLY_LEASE_MS (20 * 60e3)
#define NSP_DALLY_MIN_LEASE_MS 1000.0
#define NSP_DALLY_MAX_VICTIMS 16
#define NSP_DALLY_LEASE_TRIES 64
/* Dally's pass-by-pass preemption (ns_policy_preempt): a victim's Nw_sens
   must exceed the waiter's by this fraction; offers tried per now_ms */
#define NSP_DALLY_MARGIN 0.05
#define NSP_DALLY_TRIES 8

typedef struct nsp_preset {
  const char *name, *desc;
  ns_policy_order order;
  ns_policy_placement placement;
  int kappa;
  ns_policy_admission admission;
  int n, cassini;
  int strict; /* 1: no backfilling (head-of-line blocking) */
} nsp_preset;

const nsp_preset *nsp_preset_at(int i);
/* Index of the preset, or NS_EINVAL naming fn and listing the valid names. */
int nsp_preset_find(const char *name, const char *fn);

/* One waiting job as the caller describes it (ns_queue_add and setters);
   struct ns_queue is in core/internal.h (the simulator's fill, nsi_queue_put). */
typedef nsi_qentry nsp_entry;

typedef struct nsp_wait {
  int tier, gpus;
  double waited_ms, now_ms;
} nsp_wait;

/* A job the caller reported back about (ns_policy_started ...). */
typedef struct nsp_known {
  const ns_job *job;
  double nw;    /* measured Nw_sens (NAN: none yet) */
  double since; /* suspended at (NAN: never) */
  int running;
} nsp_known;

struct ns_policy {
  int preset; /* index, -1 = custom */
  ns_policy_order order;
  ns_policy_placement placement;
  int kappa;
  ns_policy_admission admission;
  int admit_n, cassini, max_candidates, backfill;
  uint64_t seed, skew_bytes;
  double history_ms, machine_ms, rack_ms, drift;
  double lease_ms; /* Dally's lease reading (lease.c): > 0 with order NW_SENS; 0 off */
  ns_policy_place_fn place_fn;
  void *place_user;
  /* preemptive orders (las.c): K queues, K-1 thresholds (GPU-ms), the
     starvation knob, 2D-Gittins's samples (GPU-ms, owned) */
  int las_queues;
  double las_limit[NSP_LAS_MAX_QUEUES - 1];
  double starvation;
  double *git_samples;
  size_t git_nsamples;
  /* state, built at the first decision (ready) */
  int ready;
  ns_titan_opts *titan;
  ns_vclos_opts *vclos;
  ns_delay_tuner *tuner;
  ns_cassini_opts *cassini_opts;
  struct nsp_las *las; /* 2D-LAS / 2D-Gittins queues and service (las.c) */
  struct nsp_lease *lease; /* Dally's leases per job id (lease.c) */
  ns_placement *cand[NSP_MAX_CANDIDATES];
  int *occ; /* candidate search: GPUs hidden */
  size_t capocc;
  nsp_known *known;
  size_t nknown, capknown;
  /* Dally: every wait its tuner recorded (accepts on one machine or one
     rack), for ns_policy_save; entries older than the history are dropped */
  nsp_wait *waits;
  size_t nwaits, capwaits;
  double clock; /* the largest now_ms a decision used */
  /* now_ms of the latest successful decision (place, decide, preempt) or
     report (started, finished, suspended, progress); -INFINITY before the
     first: an earlier now_ms is refused (NS_EINVAL, nsp_check_time) */
  double last_now;
  /* Dally's pass-by-pass preemption (ns_policy_preempt): offers tried at
     pass_at, out of NSP_DALLY_TRIES per now_ms */
  double pass_at;
  int pass_budget;
  /* CASSINI's drift re-adjustment (drift.c): the rule, the count, and per
     job its reported iteration and ideal schedule (schedule.c) */
  int drift_rule; /* ns_policy_drift_rule */
  uint64_t readjusts;
  struct nsp_sched *sched;
  size_t nsched, capsched;
  nsi_ptrmap sched_ix; /* job handle -> index into sched */
};

/* One job's CASSINI schedule (drift.c): its iteration by its schedule
   (compute then its all-reduce alone, per = compute + comm), the compute
   start of its ideal schedule (slot, NAN: none), and its re-adjustment gap
   (no re-adjustment before `until`; n so far). */
typedef struct nsp_sched {
  const ns_job *job;
  double compute, comm, per, slot, until;
  int n;
} nsp_sched;

/* The table of schedules (schedule.c), keyed by job handle: the record of
   job or NULL; a fresh record for job (reset if it had one; NULL +
   NS_ENOMEM message with fn's name); forgetting it; freeing the table. */
nsp_sched *nsp_sched_find(const ns_policy *p, const ns_job *job);
nsp_sched *nsp_sched_reset(ns_policy *p, const ns_job *job, const char *fn);
void nsp_sched_forget(ns_policy *p, const ns_job *job);
void nsp_sched_free(ns_policy *p);

/* Records a wait the tuner recorded (NS_ENOMEM, with fn's name). */
/* NS_EINVAL naming fn's now_ms if it is before p->last_now. */
int nsp_check_time(const ns_policy *p, double now_ms, const char *fn);
int nsp_log_wait(ns_policy *p, int tier, int gpus, double waited_ms, double now_ms, const char *fn);
/* Builds p's state from its parts once (its first decision); NS_OK or
   the failure with fn's name. */
int nsp_ready(ns_policy *p, const char *fn);
/* Drops what nsp_ready built (p as before it: its options settable again);
   only for a call that built it and fails before any state was kept. */
void nsp_unready(ns_policy *p);
/* The tuner of p's parts, fresh (NULL: out of memory, message set). */
ns_delay_tuner *nsp_new_tuner(const ns_policy *p);

/* The preemptive orders (las.c). nsp_las_new builds p->las (NS_ENOMEM);
   nsp_las_rank accounts the queue's jobs at now and lists, in queue order,
   the waiting jobs to start (go) and the running ones to suspend (stop) as
   queue indices (each array holds q's count); NS_EINVAL for repeated ids.
   After it, policy.c either calls nsp_las_settle with every queue index's
   status (NS_OK: runs after the decision) - it returns the time to ask
   again (INFINITY if none) - or nsp_las_restore to undo the rank. */
typedef struct nsp_las nsp_las;
int nsp_las_new(ns_policy *p);
void nsp_las_free(nsp_las *L);
int nsp_las_rank(ns_policy *p, const ns_queue *q, double now, long total_gpus, size_t *go,
                 size_t *ngo, size_t *stop, size_t *nstop, const char *fn);
double nsp_las_settle(ns_policy *p, const int *status, double now);
void nsp_las_restore(nsp_las *L);

/* Dally's leases (lease.c). nsp_lease_new builds p->lease (NS_ENOMEM);
   nsp_lease_of: the lease held for id (NS_ENOTFOUND: none);
   nsp_lease_check_ids refuses a queue with two jobs of one id (NS_EINVAL;
   NS_ENOMEM), changing nothing the leases hold;
   nsp_lease_expired lists the running queue indices whose lease ended at
   or before now (exp holds q's count); nsp_lease_reserve makes room for n
   new leases so that nsp_lease_settle cannot fail; nsp_lease_settle
   records decision d (assumed applied) at now and returns the earliest
   lease end after now (INFINITY if none). */
typedef struct nsp_lease nsp_lease;
int nsp_lease_new(ns_policy *p);
void nsp_lease_free(nsp_lease *L);
int nsp_lease_of(const ns_policy *p, uint64_t id, double *from, double *end);
int nsp_lease_check_ids(ns_policy *p, const ns_queue *q, const char *fn);
int nsp_lease_expired(const ns_policy *p, const ns_queue *q, double now, size_t *exp,
                      size_t *nexp);
int nsp_lease_reserve(ns_policy *p, size_t n, const char *fn);
double nsp_lease_settle(ns_policy *p, const ns_queue *q, const ns_decision *d, double now);

typedef struct nsp_start {
  size_t qi;
  ns_placement *pl;  /* owned, reused across decisions */
  ns_candidate *cand; /* CASSINI's ranked winner (its shifts), or NULL */
} nsp_start;

struct ns_decision {
  nsp_start *s;
  size_t ns, caps;
  int *status;
  double *retry;
  size_t nq, capq;
  double next;
  size_t *susp; /* queue indices of running jobs to suspend */
  nsi_commit *held; /* their commit records, detached while the starts are placed */
  size_t nsusp, capsusp;
  size_t *renew; /* queue indices of running jobs whose lease was renewed */
  size_t nrenew, caprenew;
  ns_candidate *readj; /* a CASSINI re-adjustment's ranked links (drift.c), or NULL */
};

/* Empties d for a queue of nq jobs (policy.c): nobody offered yet, no
   re-adjustment. NS_ENOMEM with fn's name. */
int nsp_decision_reset(ns_decision *d, size_t nq, const char *fn);

#endif
