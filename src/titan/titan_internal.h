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

/* Slack of the bandwidth comparisons (weights are in units of B_t). */
#define TN_EPS 1e-9

struct ns_titan_opts {
  uint64_t seed;
};

/* One NIMP instance (Eq. 1). Flows are stored per merged phase with weight
   C / B_t, B_t being the phase's largest flow: the bandwidth constraint
   compares these weights with NIC ports and uplink shares (see titan.c). */
typedef struct tn_prob {
  int W, M, G, L, spl;   /* workers, machines, GPUs per machine, leaves, machines per leaf */
  int *R;                /* usable free GPUs per machine (R_s) */
  unsigned char *idle;   /* 1 if s is an idle machine (S_n) */
  double *up;            /* per leaf: uplink ports the job may use */
  int P;                 /* merged phases */
  int *pstart;           /* P + 1 offsets into the flow arrays */
  int *fsrc, *fdst;      /* flow endpoints (workers) */
  double *fw;            /* flow weight C^t / B_t in (0, 1] */
  double *fbytes;        /* flow bytes, summed over the phases merged into it */
  int *fph;              /* merged phase of each flow */
  int *istart, *iflow;   /* per worker: W + 1 offsets, incident flows (sent or received) */
  int *astart, *apeer;   /* affinity CSR: W + 1 offsets, peers */
  double *abytes;        /* bytes exchanged with the peer over all phases (both ways) */
  int *order;            /* traffic-aware worker order (nsi_coll_order) */
  uint64_t *tie;         /* per machine: seeded tie-break key */
  /* scratch for the feasibility check */
  double *mout, *min, *lout, *lin;
  int *touched;
  int bw_limited;        /* set by tn_greedy when bandwidth shrank a feasible set */
} tn_prob;

/* An assignment of workers to machines and its objectives. */
typedef struct tn_asg {
  int *mach;     /* per worker: machine or -1 */
  int *cnt;      /* per machine: workers placed */
  int used;      /* O2: machines used */
  int idle_used; /* O1: idle machines used */
  double cross;  /* bytes sent between workers on different machines, all phases */
} tn_asg;

int tn_prob_init(tn_prob *p, const ns_cluster *c, const ns_job *job, uint64_t seed);
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
