/*
 * netsched/adadual.h - AdaDUAL: all-reduce contention model and communication admission (Wang et al.).
 * Included by <netsched.h>; do not include directly.
 *
 * Paper: Q. Wang, S. Shi, C. Wang, X. Chu, "Communication Contention Aware
 * Scheduling of Multiple Deep Learning Training Jobs" (HKBU), Sec. II-B,
 * III-A.2, IV-B, Table I, Algorithm 2.
 *
 * Units: milliseconds and bytes, so b and eta are in ms per byte (the
 * authors' published 10 GbE fit, b = 0.856 ms/MB and eta = 0.235 ms/MB,
 * is b = 0.856 / 2^20 ms/byte; their measurements use MB = 2^20 bytes).
 *
 * Readings of ambiguous passages (also in src/adadual/decide.c):
 *  - Algorithm 2, line 12 ("the remaining size M_old of the current task in
 *    C_old") when the new task's servers hold *different* single tasks: we
 *    use the smallest remaining size, i.e. start only if starting beats
 *    waiting against every one of them (ALGORITHMS.md).
 *  - Algorithm 2, line 13 is a strict inequality: at M_new/M_old exactly
 *    b/(2(b+eta)) the two choices tie (Eq. 13) and the task waits.
 *  - Table I's "log N" is log2 N; the paper assumes power-of-two node counts
 *    (Sec. II-B), so binary tree, recursive doubling and halving-doubling
 *    reject other N; ring accepts any N >= 1.
 *  - ns_contention_fit is a non-negative least-squares fit: a negative
 *    a, b or eta has no physical meaning and could not be passed back to
 *    ns_comm_time_ms, so parameters the unconstrained optimum would make
 *    negative are pinned at 0 (exact NNLS over the 2^3 active sets).
 */
#ifndef NETSCHED_ADADUAL_H
#define NETSCHED_ADADUAL_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Eq. 5: time of an all-reduce of `bytes` under k-way contention:
   a + k*b*M + (k-1)*eta*M; k = 1 is Eq. 2 (no contention). a, b, eta must
   be finite and >= 0, k >= 1. Returns NAN on invalid input (NS_EINVAL)
   or if the result overflows a double (NS_ERANGE); see ns_last_error. */
NS_API double ns_comm_time_ms(double a_ms, double b_ms_per_byte, double eta_ms_per_byte,
                              int k, uint64_t bytes);

/* Algorithm 2. For each server the new task uses: the number of running comm
   tasks there and, where exactly one, its remaining bytes. *start = 1 or 0.
   - tasks_per_server[i] >= 0 for i < nservers (nservers >= 1).
   - remaining_bytes[i] is read where tasks_per_server[i] == 1 and must be
     > 0 there; where tasks_per_server[i] == 0 it must be 0 (a server with
     no running task has nothing left to send: anything else means the two
     arrays disagree). Entries for servers with >= 2 tasks are ignored.
     remaining_bytes may be NULL if no server has exactly one task.
   - b > 0 and eta >= 0, finite.
   Decision: max tasks 0 -> start; 1 -> start iff new_bytes / M_old <
   b / (2(b+eta)) with M_old the smallest remaining size among servers with
   one task; >= 2 -> wait. NS_EINVAL on bad input (*start untouched). */
/* Cost: O(nservers), no allocation. */
NS_API int ns_adadual_decide(double b_ms_per_byte, double eta_ms_per_byte, uint64_t new_bytes,
                             const int *tasks_per_server, const uint64_t *remaining_bytes,
                             size_t nservers, int *start);

/* Theorem 2's threshold b / (2(b+eta)) on M_new/M_old (0.3923 for the
   published b = 0.856, eta = 0.235 ms/MB). b > 0, eta >= 0, finite; NAN on
   invalid input. */
NS_API double ns_adadual_threshold(double b_ms_per_byte, double eta_ms_per_byte);

/* Table I: per-algorithm (a, b) of T = a + b*M from alpha, beta, gamma, N.
   c: NS_COLL_TREE = binary tree, NS_COLL_HALVING_DOUBLING = recursive
   halving and doubling, NS_COLL_RING = ring; NS_COLL_ALL_TO_ALL is not an
   all-reduce (NS_EUNSUPPORTED). Recursive doubling has no ns_collective
   value: use ns_allreduce_algo_cost. nodes >= 1 (a power of two except for
   ring); alpha, beta, gamma finite and >= 0. NS_ERANGE if a cost
   overflows a double. On error the outputs are untouched. */
NS_API int ns_allreduce_cost(ns_collective c, int nodes, double alpha_ms,
                             double beta_ms_per_byte, double gamma_ms_per_byte,
                             double *a_ms, double *b_ms_per_byte);

/* The four rows of Table I. */
typedef enum ns_allreduce_algo {
  NS_AR_BINARY_TREE = 0,
  NS_AR_RECURSIVE_DOUBLING = 1,
  NS_AR_HALVING_DOUBLING = 2,
  NS_AR_RING = 3
} ns_allreduce_algo;

/* Table I by row; same rules as ns_allreduce_cost. */
NS_API int ns_allreduce_algo_cost(ns_allreduce_algo algo, int nodes, double alpha_ms,
                                  double beta_ms_per_byte, double gamma_ms_per_byte,
                                  double *a_ms, double *b_ms_per_byte);

/* Least-squares fit of (a, b, eta) from n measured samples (k_i, bytes_i, time_i):
   minimises sum_i (time_i - Eq. 5(k_i, bytes_i))^2 subject to a, b, eta >= 0.
   n >= 3, k_i >= 1, time_i finite and >= 0. The samples must determine all
   three parameters: the points (bytes_i, (k_i-1)*bytes_i) must not all lie
   on one line (they do when every k_i is equal, or with a single message
   size), else NS_EINVAL. *rms_residual_ms = sqrt(mean squared residual). All four
   outputs are required; on error they are untouched. */
/* Cost: O(n) time (8 supports x a 3-column QR), O(n) memory. */
NS_API int ns_contention_fit(const int *k, const uint64_t *bytes, const double *time_ms,
                             size_t n, double *a_ms, double *b_ms_per_byte,
                             double *eta_ms_per_byte, double *rms_residual_ms);

#ifdef __cplusplus
}
#endif

#endif
