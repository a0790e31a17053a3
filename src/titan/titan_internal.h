/*
 * src/titan/titan_internal.h - the NIMP instance Titan works on (a snapshot
 * of the cluster and the job's collective), shared by the files of
 * src/titan/. See titan.c for the readings of the paper.
 */
#ifndef NS_TITAN_INTERNAL_H
#define NS_TITAN_INTERNAL_H

#include <stdint.h>

#include "core/collective.h"
#include "core/internal.h"

/* Slack of the bandwidth comparisons (weights are in port units). */
#define TN_EPS 1e-9

typedef double (*tn_pair_fn)(int server_a, int server_b, void *user);

struct ns_titan_opts {
  uint64_t seed;
  tn_pair_fn pair_fn; /* P_{s,s'} in Gbps, or NULL: from the cluster */
  void *pair_user;
  double budget_ms;   /* per-phase time budget; 0 = the phase's largest flow at line rate */
};

/* One incident flow of a worker, laid out for the greedy's hot loop: the
   peer, the merged phase and direction, the weight - contiguous per worker,
   so a try reads one cache line per flow instead of five scattered arrays
   (fsrc, fdst, fph, fw: 65,536 halving-doubling workers have 2M flows). */
typedef struct tn_inc {
  int peer;
  int ph_out; /* merged phase << 1 | 1 if the worker sends it */
  double w;
} tn_inc;

/* One NIMP instance (Eq. 1). Flows are stored per merged phase with a
   weight in port units: C / (what one link_gbps port moves in the phase's
   time budget tau_t; see titan.c). The bandwidth constraint compares these
   weights with NIC ports and uplink shares (default P) or with
   P_{s,s'} / link_gbps (pair_fn). */
typedef struct tn_prob {
  int W, M, G, L, spl;   /* workers, machines, GPUs per machine, leaves, machines per leaf */
  int *R;                /* usable free GPUs per machine (R_s) */
  unsigned char *idle;   /* 1 if s is an idle machine (S_n) */
  double *up;            /* per leaf: uplink ports the job may use */
  int P;                 /* merged phases */
  int *pstart;           /* P + 1 offsets into the flow arrays */
  int *fsrc, *fdst;      /* flow endpoints (workers) */
  double *fw;            /* flow weight in port units (C^t / B_t without a budget) */
  double *fbytes;        /* flow bytes, summed over the phases merged into it */
  int *fph;              /* merged phase of each flow */
  int *istart, *iflow;   /* per worker: W + 1 offsets, incident flows (sent or received) */
  tn_inc *inc;           /* the same incident flows, as (peer, phase/direction, weight) */
  int *astart, *apeer;   /* affinity CSR: W + 1 offsets, peers */
  double *abytes;        /* bytes exchanged with the peer over all phases (both ways) */
  int *order;            /* traffic-aware worker order (nsi_coll_order) */
  uint64_t *tie;         /* per machine: seeded tie-break key */
  /* scratch for the feasibility check */
  double *mout, *min, *lout, *lin;
  int *touched;
  int bw_limited;        /* set by tn_greedy when bandwidth shrank a feasible set */
  tn_pair_fn pair_fn;    /* P_{s,s'} callback (opts), or NULL */
  void *pair_user;
  double link_gbps;      /* one port's rate: the unit of fw */
  int cb_err;            /* NS_EINVAL once pair_fn returned a bad value ... */
  int cb_a, cb_b;        /* ... for these servers */
  double cb_val;
} tn_prob;

/* An assignment of workers to machines and its objectives. */
typedef struct tn_asg {
  int *mach;     /* per worker: machine or -1 */
  int *cnt;      /* per machine: workers placed */
  int used;      /* O2: machines used */
  int idle_used; /* O1: idle machines used */
  double cross;  /* bytes sent between workers on different machines, all phases */
} tn_asg;

int tn_prob_init(tn_prob *p, const ns_cluster *c, const ns_job *job, const ns_titan_opts *o);
/* Capacity, in port units, of the directed machine pair a -> b in one
   phase: P_{a,b} / link_gbps from pair_fn. NS_EINVAL (message recorded,
   p->cb_err set) if pair_fn returned NaN or a negative value. */
int tn_pair_cap(tn_prob *p, int a, int b, double *cap);
/* Records the NS_EINVAL message for the bad value p->cb_val again. */
int tn_pair_fail(const tn_prob *p);
void tn_prob_free(tn_prob *p);

int tn_asg_init(tn_asg *a, const tn_prob *p);
void tn_asg_free(tn_asg *a);
void tn_asg_reset(tn_asg *a, const tn_prob *p);
int tn_asg_copy(tn_asg *dst, const tn_asg *src, const tn_prob *p);
/* Recomputes used / idle_used / cross from mach[]. */
void tn_asg_score(tn_asg *a, const tn_prob *p);
/* <0 if a is lexicographically better than b in (O1, O2, cross). */
int tn_asg_cmp(const tn_asg *a, const tn_asg *b);

/* 1 if the placed workers of `a` satisfy every phase's bandwidth
   constraint (Eq. 1 third line / Eq. 5), else 0. */
int tn_feasible(tn_prob *p, const tn_asg *a);

/* Alg. 2 with Alg. 1's feasible sets over the machines with allow[s] != 0.
   nonidle_first: rank non-idle machines before idle ones (Alg. 3 step 1).
   Returns 1 if every worker was placed, 0 if not, <0 on error. */
int tn_greedy(tn_prob *p, const unsigned char *allow, int nonidle_first, tn_asg *a);

/* Traffic refinement (ours): exact DP over contiguous blocks of the worker
   order on a bounded machine pool built around `best`; replaces `best` if
   it finds a feasible, lexicographically better assignment. */
int tn_refine(tn_prob *p, tn_asg *best);

#endif /* NS_TITAN_INTERNAL_H */
