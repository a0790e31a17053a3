/*
 * src/core/collective.h - library-internal view of collective traffic
 * patterns (src/core/collective.c), shared by Titan, vClos and the simulator.
 *
 * The public pair query is ns_collective_traffic(); algorithms that walk a
 * whole phase use nsi_coll_sends(), which lists the (at most
 * NSI_COLL_MAX_SENDS) flows one worker sends in one phase in O(1).
 */
#ifndef NS_CORE_COLLECTIVE_H
#define NS_CORE_COLLECTIVE_H

#include <stdint.h>

#include "netsched.h"

/* Largest worker count accepted (the cluster's GPU limit). */
#define NSI_COLL_MAX_WORKERS (1 << 22)
/* No worker sends more than this many flows in one phase (tree broadcast). */
#define NSI_COLL_MAX_SENDS 2

typedef struct nsi_flow {
  int to;         /* receiving worker */
  uint64_t bytes; /* bytes sent in the phase */
} nsi_flow;

/* NS_OK if `c` is a known collective and 1 <= workers <= NSI_COLL_MAX_WORKERS,
   else NS_EINVAL naming `fn` and the argument. */
int nsi_coll_check(ns_collective c, int workers, const char *fn);
/* Phase count T of a validated (c, workers). */
int nsi_coll_phases(ns_collective c, int workers);
/* Flows worker `from` sends in `phase` of a validated (c, workers) for a
   model of `bytes`; fills out[0..n) and returns n (0..NSI_COLL_MAX_SENDS).
   Zero-byte flows are omitted. */
int nsi_coll_sends(ns_collective c, int workers, uint64_t bytes, int phase, int from,
                   nsi_flow out[NSI_COLL_MAX_SENDS]);
/* A worker order in which heavily communicating workers are adjacent, so
   that contiguous blocks of it keep the largest flows inside a machine:
   halving-doubling: bit-reversed ranks (phase 0's K/2 partners first);
   tree: depth-first preorder (subtrees contiguous); ring and all-to-all:
   identity. order[] receives a permutation of 0..workers-1. */
void nsi_coll_order(ns_collective c, int workers, int *order);

#endif /* NS_CORE_COLLECTIVE_H */
