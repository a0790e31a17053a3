/*
 * src/titan/tn_internal.h - the NIMP instance Titan works on (a snapshot
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
  int scan;           /* test hook: rank candidates by the reference scan (rank.c) */
};

/* One incident flow of a worker, laid out for the greedy's hot loop: the
   peer, the merged phase and direction, the weight - contiguous per worker,
   so a try reads one cache line per flow instead of four scattered arrays
   (fsrc, fdst, phase, fw: 65,536 halving-doubling workers have 2M flows). */
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
  double *fbytes;        /* flow bytes, summed over the phases merged into it
                            (building only: NULL once the affinity is built) */
  int *istart;           /* per worker: W + 1 offsets into inc */
  tn_inc *inc;           /* incident flows (sent or received): peer, phase/direction, weight
                            (NULL when bw_free) */
  int *astart, *apeer;   /* affinity CSR: W + 1 offsets, peers */
  double *abytes;        /* bytes exchanged with the peer over all phases (both ways) */
  int *order;            /* traffic-aware worker order (nsi_coll_order) */
  uint64_t *tie;         /* per machine: seeded tie-break key */
  /* scratch for the feasibility check */
  double *mout, *min, *lout, *lin;
  int *touched;
  int *mslot;            /* per machine: the greedy's load slot or -1 (greedy.c) */
  int bw_limited;        /* set by tn_greedy when bandwidth shrank a feasible set */
  int bw_free;           /* no load can exceed its capacity (problem.c cannot_bind):
                            the greedy's tries add no flows, inc is NULL */
  int scan;              /* ns_titan_opts.scan */
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

/* A candidate machine of one greedy round, with the keys it is ranked by. */
typedef struct tn_cand {
  int s, cls, ub, loc, r;
  uint64_t tie;
} tn_cand;

/* Machine s as a candidate when `rem` workers are left and leafcnt[l] of
   them sit under leaf l. */
static inline tn_cand tn_cand_of(const tn_prob *p, int s, int nonidle_first, const int *leafcnt,
                                 int rem) {
  tn_cand c = {s, nonidle_first ? p->idle[s] : 0, p->R[s] < rem ? p->R[s] : rem,
               leafcnt[s / p->spl], p->R[s], p->tie[s]};
  return c;
}

/* Rank (<0: a before b): class (non-idle first in Alg. 3 step 1), then the
   gain's upper bound, then locality (workers of the job already under the
   machine's leaf: fewer cross-leaf flows), then best fit (smallest R_s:
   keeps large holes for later jobs), then the seeded tie-break, then the
   id. A total order: the machine id is unique. */
static inline int tn_cand_order(const tn_cand *a, const tn_cand *b) {
  if (a->cls != b->cls)
    return a->cls - b->cls;
  if (a->ub != b->ub)
    return b->ub - a->ub;
  if (a->loc != b->loc)
    return b->loc - a->loc;
  if (a->r != b->r)
    return a->r - b->r;
  if (a->tie != b->tie)
    return a->tie < b->tie ? -1 : 1;
  return a->s - b->s;
}

/* The unused machines of one greedy run in rank order (rank.c): an index
   (a tournament tree over the allowed machines, updated as machines are
   used, leaves gain workers and fewer workers remain: O(log M) per change
   instead of a scan of every machine per round), or with p->scan the
   reference scan it replaces (every round ranks every machine again).
   Both yield the same sequence (tests/unit/test_titan_index.c). */
typedef struct tn_rank tn_rank;

/* Machines s in [lo, hi) with allow[s] (allow NULL: all) and R_s > 0,
   none used yet; leafcnt (all 0 now) is read at every comparison, so the
   caller updates it and then calls tn_rank_used. NULL + NS_ENOMEM
   recorded on failure. */
tn_rank *tn_rank_new(const tn_prob *p, const unsigned char *allow, int lo, int hi,
                     int nonidle_first, const int *leafcnt, int rem);
void tn_rank_free(tn_rank *r);
/* Starts a round: the next tn_rank_next calls yield the unused machines
   best first. 0 if no unused machine is left; <0 on error. */
int tn_rank_begin(tn_rank *r);
/* The next machine of this round in rank order into *c; 0 when none is left. */
int tn_rank_next(tn_rank *r, tn_cand *c);
/* Ends the round: machine s (or -1: none) now holds workers; its leaf's
   count (leafcnt) has already been raised, and `rem` workers are left. */
void tn_rank_used(tn_rank *r, int s, int rem);

/* Alg. 2 with Alg. 1's feasible sets over the machines s in [lo, hi) with
   allow[s] != 0 (allow NULL: all of them). nonidle_first: rank non-idle
   machines before idle ones (Alg. 3 step 1). Returns 1 if every worker
   was placed, 0 if not, <0 on error. */
int tn_greedy(tn_prob *p, const unsigned char *allow, int lo, int hi, int nonidle_first,
              tn_asg *a);

/* Traffic refinement (ours): exact DP over contiguous blocks of the worker
   order on a bounded machine pool built around `best`; replaces `best` if
   it finds a feasible, lexicographically better assignment. */
int tn_refine(tn_prob *p, tn_asg *best);

#endif /* NS_TITAN_INTERNAL_H */
