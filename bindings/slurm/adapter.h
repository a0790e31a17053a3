/*
 * bindings/slurm/adapter.h - netsched-slurm's pieces and the plain data they
 * pass: a snapshot of the cluster (nodes, leaves, jobs) read from Slurm, and
 * one decision per opted-in job.
 *
 *   slurm_io.c  libslurm only: snapshot in, decisions out (release, comment)
 *   comment.c   a job's comment: the user's part, hints, our wait section
 *   decide.c    libnetsched only: snapshot -> cluster -> policy -> decisions
 *   policies.c  the presets (the library's ns_policy objects), orders, models
 *   state.c     the --state file (Dally's delay tuner, requeue history)
 *   history.c   --preempt requeue: attained service of requeued jobs' runs
 *   main.c      options, --once / --interval, lock, signals
 *
 * decide.c never sees libslurm, so the benchmark and any other caller can
 * feed it a synthetic snapshot. Only the public header <netsched.h> is used.
 */
#ifndef NETSCHED_SLURM_ADAPTER_H
#define NETSCHED_SLURM_ADAPTER_H

#include <stddef.h>
#include <stdint.h>

#include <netsched.h>

/* The marker that opts a job in through its comment. */
#define NSS_MARKER "netsched"
/* What the adapter appends to a waiting job's comment, after the marker part. */
#define NSS_WAIT_TAG " waits: "
#define NSS_MAX_REASON 200
/* Slurm's limit on a comment (slurmctld refuses longer ones on submit and
   update: "strlen(comment) too big", Slurm 22.05), and the longest comment
   the adapter reads at all (a job_submit plugin may set longer ones). */
#define NSS_SLURM_COMMENT_MAX 1024
#define NSS_COMMENT_READ_MAX 65536

typedef struct nss_node {
  char *name;
  int gpus;    /* configured GPUs (Gres=gpu:N) */
  int leaf;    /* index into the snapshot's leaves */
  int usable;  /* 0: down, drained, failing, reserved, not responding */
  uint32_t state; /* Slurm's node_state, for --verbose */
} nss_node;

typedef enum nss_job_kind {
  NSS_JOB_RUNNING = 0, /* holds GPUs: committed where it runs */
  NSS_JOB_INFLIGHT = 1,/* released by us, not started yet: committed on its req_nodes */
  NSS_JOB_HELD = 2     /* opted in and held: ours to place */
} nss_job_kind;

typedef struct nss_job {
  uint32_t id;
  nss_job_kind kind;
  int gpus;           /* total GPU demand */
  int nodes;          /* node count asked (-N), 0 if free */
  int per_node;       /* --gpus-per-node G (then gpus = nodes * G), 0 for --gpus */
  double submit_ms;   /* submission time, ms since the epoch */
  double limit_ms;    /* time limit in ms (0 if none) */
  char *comment;      /* as in Slurm (NULL if none) */
  char *hints;        /* the marker part of the comment, without our wait reason */
  int model;          /* index into the model table, -1 if none given */
  uint64_t iters;     /* iterations hint (0 if none) */
  int requeue;        /* released by us onto a node that became unusable */
  int preemptible;    /* hint "preemptible": may be requeued under --preempt requeue */
  int completing;     /* RUNNING but ending (COMPLETING) or suspended by Slurm: never requeued */
  uint32_t restarts;  /* Slurm's restart count (requeues so far) */
  double run_ms;      /* RUNNING: ms run in this run (Slurm's start time, suspended time excluded) */
  double eligible_ms; /* HELD: Slurm's earliest start (begin time), 0 if none */
  /* Filled by the caller before nss_decide (main.c: from the --state file):
     the arrival the policy sees (the first submission: Slurm resets the
     submit time on a requeue; 0 = submit_ms) and the attained service in
     GPU x ms over every run (earlier runs' from the state file + this run's
     gpus x run_ms). */
  double arrival_ms;
  double attained_ms;
  char hint_error[NSS_MAX_REASON + 1]; /* non-empty: why the comment is refused (the job waits) */
  /* RUNNING / INFLIGHT: where. gpu_idx[k] = -1 when the index is unknown. */
  int nplaced;
  int *node_of;       /* node index per held GPU (slurm_split: per listed node) */
  int *gpu_idx;       /* GPU index inside that node, or -1 */
  /* 1: a --gpus=T job released onto node_of[0..nplaced) (one entry per
     listed node) that Slurm has not started: its T GPUs are spread the way
     Slurm's cons_tres does when it starts it (measured, tests/slurm
     case_inflight_split): one GPU on every listed node, then the rest
     filling the nodes' free GPUs in node-table order. */
  int slurm_split;
} nss_job;

/* The arrival the policy sees: the first submission (arrival_ms, kept
   across requeues), else Slurm's submit time. */
static inline double nss_job_arrival_ms(const nss_job *j) {
  return j->arrival_ms > 0 ? j->arrival_ms : j->submit_ms;
}

typedef struct nss_snapshot {
  nss_node *nodes;
  int nnodes;
  char **leaves;      /* leaf switch names (topology/tree level 0) */
  int nleaves;
  int spines;         /* switches above the leaves (0: single leaf) */
  nss_job *jobs;
  int njobs;
  double now_ms;
  /* > 0: this many nodes have not registered since the controller started
     (state UNKNOWN, e.g. seconds after a restart) and the controller is
     younger than its SlurmdTimeout (at most NSS_SETTLE_MAX_S): the view is
     incomplete, so the cycle decides nothing (main.c). Past that, UNKNOWN
     nodes are simply unusable. */
  int unsettled;
  char unsettled_why[160];
} nss_snapshot;
#define NSS_SETTLE_MAX_S 300

void nss_snapshot_free(nss_snapshot *s);

/* ---- the comment (comment.c) -------------------------------------------- */

/* Fills job->hints (the user's part of the comment: all of it but our wait
   section), model and iters from job->comment. 0; -1 with msg set when the
   hints are malformed or the comment is longer than NSS_COMMENT_READ_MAX
   (the job waits with msg as its reason); -2 out of memory. */
int nss_parse_hints(nss_job *job, char *msg, size_t msglen);
/* Length of the user's part: up to the last NSS_WAIT_TAG, else all. */
size_t nss_comment_user_len(const char *comment);
/* The comment to write: the user's part of `comment` unchanged (the marker
   if it is empty), then, unless placed, NSS_WAIT_TAG and the reason
   shortened to Slurm's limit (or left out). malloc'd; NULL if no memory. */
char *nss_comment_compose(const char *comment, int placed, const char *reason);
/* src[0..len) for a message: at most 40 characters, control characters as
   \xNN, so it stays on one line. */
void nss_quote(char *dst, size_t n, const char *src, size_t len);
/* A reason for the output and the comment: control characters as blanks,
   no NSS_WAIT_TAG inside. */
void nss_clean_reason(char *dst, size_t n, const char *src);

/* ---- policies (policies.c) --------------------------------------------- */

typedef struct nss_policy nss_policy;
typedef struct nss_order nss_order;

const nss_policy *nss_policy_find(const char *name);
const char *nss_policy_name(const nss_policy *p);
const char *nss_policy_desc(const nss_policy *p);
int nss_policy_count(void);
const nss_policy *nss_policy_at(int i);
const nss_order *nss_policy_default_order(const nss_policy *p);
int nss_policy_uses_tuner(const nss_policy *p);
int nss_policy_wants_ocs(const nss_policy *p);
int nss_policy_strict(const nss_policy *p);
const nss_order *nss_order_find(const char *name);
const char *nss_order_name(const nss_order *o);
const char *nss_order_names(void); /* "fifo|srsf|..." for messages */
typedef struct nss_ctx nss_ctx;
/* Sort key of a held job, the policy object's (smaller first; ties: arrival
   time, then id). */
double nss_order_key(nss_ctx *x, const nss_job *j);
/* Ideal run time of a held job from its hints (SRSF / SJF), NAN if unknown. */
double nss_job_ideal_ms(const nss_job *j);
/* Model profiles (the simulator's four, sim.h). -1 if unknown. */
int nss_model_find(const char *name);
const char *nss_model_names(void);
void nss_model_apply(int model, uint64_t iters, double gbps, ns_job *job);

/* Everything a placement call may need, kept across cycles. */
struct nss_ctx {
  const nss_policy *policy;
  const nss_order *order;
  int spines, links_per_pair;
  double link_gbps, nic_gbps;
  uint64_t seed;
  ns_policy *pol;        /* the library's policy object: the decisions */
  ns_queue *q;           /* scratch: the held job it is asked about */
  ns_decision *d;        /* scratch: its answer */
  ns_delay_tuner *tuner; /* Dally: the policy's own tuner (borrowed); persisted by state.c */
  double now_ms;         /* this cycle's clock (wall ms, never before the tuner's) */
  /* Every wait the tuner recorded (for the state file): */
  struct nss_rec { int tier, gpus; double waited_ms, now_ms; } *recs;
  size_t nrecs, caprecs;
  /* --preempt requeue: preemptible running jobs are offered to the policy,
     whose suspends become requeues (decide.c, main.c). */
  int preempt;
  /* Per job the adapter requeued: the GPU x ms of its finished runs and its
     first arrival (the state file's "job" lines), and the jobs whose
     requeue Slurm refused (treated as not preemptible from then on). */
  struct nss_hist { uint32_t id; double gpu_ms, arrival_ms; } *hist;
  size_t nhist, caphist;
  uint32_t *refused;
  size_t nrefused, caprefused;
};

int nss_ctx_init(nss_ctx *x, const nss_policy *p, char *msg, size_t msglen);
/* A fresh policy object for x's preset, --order and --seed (NULL: see
   ns_last_error()). */
ns_policy *nss_policy_new(const nss_ctx *x);
void nss_ctx_free(nss_ctx *x);
/* Asks the policy for `job` on `c` into `out`. Returns the library status;
   for Dally a decline is NS_ENOSPACE with its reason in msg. */
int nss_policy_place(nss_ctx *x, ns_cluster *c, const ns_job *job, const nss_job *sj,
                     ns_placement *out, char *msg, size_t msglen);

/* ---- decisions (decide.c) ----------------------------------------------- */

typedef struct nss_decision {
  uint32_t id;
  int placed;          /* 1: nodelist holds the chosen nodes; 0: reason says why it waits */
  char *nodelist;      /* "n1,n5" */
  char reason[NSS_MAX_REASON + 1];
} nss_decision;

/* A running job the policy suspends (--preempt requeue): requeue it. */
typedef struct nss_suspend {
  uint32_t id;
  int gpus;
  double attained_ms;  /* its attained service when decided (GPU x ms) */
  double run_ms;       /* of it, this run's (gpus x run_ms) is added to its history */
} nss_suspend;

typedef struct nss_plan {
  nss_decision *d;
  int n;
  nss_suspend *s;      /* to requeue before the placed jobs are released */
  int ns;
  char note[512];      /* a cycle-level warning (e.g. running jobs that did not fit) */
} nss_plan;

/* One decision per HELD job of s, in the order they were offered. 0, or -1
   with msg set (then plan is empty). */
int nss_decide(nss_ctx *x, const nss_snapshot *s, nss_plan *plan, char *msg, size_t msglen);
void nss_plan_free(nss_plan *plan);

/* ---- state file (state.c) ----------------------------------------------- */

/* Loads FILE into x's tuner and requeue history. 0 = loaded or absent; -1 =
   ignored (msg says why: corrupt, foreign, other policy); x is then
   unchanged. */
int nss_state_load(nss_ctx *x, const char *path, char *msg, size_t msglen);
/* Writes x's tuner records and requeue history to path atomically (temp
   file + rename). */
int nss_state_save(const nss_ctx *x, const char *path, char *msg, size_t msglen);
/* Records one wait into the tuner and keeps it for saving (state replay). */
int nss_ctx_record(nss_ctx *x, int tier, int gpus, double waited_ms, double now_ms);
/* Keeps a wait the tuner already recorded itself (an accepted offer). */
int nss_ctx_log(nss_ctx *x, int tier, int gpus, double waited_ms, double now_ms);

/* ---- history of requeued jobs (history.c) ------------------------------- */

/* Adds gpu_ms to job id's finished runs (a new entry keeps arrival_ms). */
int nss_hist_add(nss_ctx *x, uint32_t id, double gpu_ms, double arrival_ms);
/* 1 and its history if id has one, else 0. */
int nss_hist_get(const nss_ctx *x, uint32_t id, double *gpu_ms, double *arrival_ms);
/* Drops the history of jobs s does not list; fills every job's arrival_ms
   and attained_ms, and clears preemptible for the jobs Slurm refused. */
void nss_hist_apply(nss_ctx *x, nss_snapshot *s);
/* Slurm refused to requeue job id: never offered as preemptible again. */
int nss_refused_add(nss_ctx *x, uint32_t id);
int nss_refused(const nss_ctx *x, uint32_t id);

/* ---- Slurm (slurm_io.c) ------------------------------------------------- */

typedef struct nss_select {
  const char *partition; /* jobs held in this partition are opted in too (NULL: none) */
} nss_select;

/* 0, or -1 with msg set (controller unreachable ...). */
int nss_slurm_snapshot(const nss_select *sel, nss_snapshot *s, char *msg, size_t msglen);
/* Acts on one decision: release on its nodes or write the wait reason. 0,
   or -1 with msg set (e.g. the job finished meanwhile). */
int nss_slurm_apply(const nss_job *job, const nss_decision *d, char *msg, size_t msglen);
/* Requeues a running job, held (slurm_requeue with JOB_REQUEUE_HOLD, only
   if it still runs): it is pending, held, ours to place again. 0 done; 1
   the job is not running any more (finished, cancelled, gone: its GPUs are
   free anyway); -1 Slurm refused (msg says why, e.g. --no-requeue). */
int nss_slurm_requeue(uint32_t id, char *msg, size_t msglen);

#endif
