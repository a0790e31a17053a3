/*
 * src/vclos/internal.h - private pieces shared by the vClos files:
 * the opts struct, a snapshot of the fabric state the stage-2 solvers read
 * (Table 1's R_n, C_{n,m}, RPN, RSN), and the solver entry points.
 */
#ifndef NS_VCLOS_INTERNAL_H
#define NS_VCLOS_INTERNAL_H

#include <stdint.h>

#include "core/internal.h"

#define VC_DEFAULT_TIME_LIMIT_S 10.0

struct ns_vclos_opts {
  int use_milp;        /* 1 = CBC ILP, 0 = exact search */
  double time_limit_s; /* CBC wall-clock limit per ILP */
  int power_of_two;    /* 1 = s rounded to T * 2^j, l only doubled (pre-issue-17 rule) */
};

/* Fabric state before scheduling. Spine sets are bitsets of `words`
   64-bit words; bit m of leaf n is set iff C_{n,m} >= 1. */
typedef struct vc_fabric {
  int L, S, T, P, K, words;
  int *idle;       /* R_n = RSN(L_n): idle servers under leaf n */
  int64_t *rpn;    /* RPN(S_m): free ports (free leaf links) of spine m */
  uint64_t *bits;  /* L * words */
} vc_fabric;

/* A stage-2 solution for one (l, s): chosen leaves and spines (ascending)
   and objective (6). */
typedef struct vc_choice {
  int *leaves, *spines; /* l and s entries, caller-allocated */
  int64_t cost;
} vc_choice;

int vc_fabric_build(vc_fabric *f, const ns_cluster *c, const char *fn);
void vc_fabric_free(vc_fabric *f);

static inline int vc_bit(const uint64_t *b, int m) { return (int)((b[m >> 6] >> (m & 63)) & 1u); }

/* Objective (6) of choosing these leaves and spines. */
int64_t vc_cost(const vc_fabric *f, const int *leaves, int l, const int *spines, int s);

/* Stage 2 for a fixed shape l x s (s a multiple of T): NS_OK with *ch
   filled (minimum of objective (6)), NS_ENOSPACE if no l leaves with s/T
   idle servers share s spines with a free link each, or another negative
   status. vc_search is the exact combinatorial search, vc_ilp the
   Appendix A.2 ILP solved by CBC. */
int vc_search(const vc_fabric *f, int l, int s, vc_choice *ch, const char *fn);
int vc_ilp(const vc_fabric *f, int l, int s, double time_limit_s, vc_choice *ch, const char *fn);

/* Shape rule (shape.c; readings in vclos.c): first l of the doubling sequence and the
   virtual-spine count s for a given l: the smallest multiple of T with
   l * s >= n (VC_SIZE_PAPER, VC_SIZE_PAPER_POW2_L) or the smallest T * 2^j
   (VC_SIZE_POW2); INT_MAX if none fits an int. */
typedef enum vc_size_rule {
  VC_SIZE_PAPER,        /* s multiple of T; l doubled from l0, then every other l */
  VC_SIZE_PAPER_POW2_L, /* as PAPER, but only power-of-two l (halving-doubling jobs) */
  VC_SIZE_POW2          /* s = T * 2^j; l doubled from l0 only */
} vc_size_rule;
int vc_first_l(int n, int spines);
/* 1 if Stage 1 could hold an n-GPU job on c's empty fabric (ceil(n/T) idle
   servers of one leaf). */
int vc_fits_one_leaf(const ns_cluster *c, int n);
int vc_spines_for(int n, int l, int T, vc_size_rule rule);
/* 1 if the l x s shape is admissible for an N-GPU job on cluster c. */
int vc_shape_ok(int l, int s, int n, const ns_cluster *c);

/* The Stage-2 shapes in the order they are tried: l0, 2 l0, ... <= L,
   then (PAPER rules) every other l in 2..L ascending. Shapes that fail
   vc_shape_ok are skipped. Use: vc_shapes it; vc_shapes_begin(&it, ...);
   while (vc_shapes_next(&it, &l, &s)) ... */
typedef struct vc_shapes {
  const ns_cluster *c;
  int n, l0, pass;
  long long l;
  vc_size_rule rule;
} vc_shapes;
void vc_shapes_begin(vc_shapes *it, const ns_cluster *c, int n, vc_size_rule rule);
int vc_shapes_next(vc_shapes *it, int *l, int *s);
/* The rule for this job and options: POW2 if asked for, PAPER_POW2_L for
   halving-doubling jobs (their layout needs l = 2^k), PAPER otherwise. */
vc_size_rule vc_rule_for(const ns_job *job, const ns_vclos_opts *o);

/* Appends up to `want` free GPUs of `server` (take.c); returns how many,
   or NS_ENOMEM. */
int vc_take_gpus(const ns_cluster *c, int server, int want, ns_placement *p);
/* Appends the GPUs of the lowest `servers` idle servers of a leaf (at most
   `gpus` GPUs). Free/idle counts come from core (nsi_free_gpus_on_server,
   nsi_idle_servers_on_leaf). */
int vc_take_idle_servers(const ns_cluster *c, int leaf, int servers, int gpus, ns_placement *p);

/* OCS-vClos Stages 2-3 (ocs.c) into the empty placement p, after Stages
   0-1 failed; *stage = 2 or 3. */
int vc_place_ocs(const ns_cluster *c, const ns_job *job, const ns_vclos_opts *o, ns_placement *p,
                 int *stage, const char *fn);

#endif /* NS_VCLOS_INTERNAL_H */
