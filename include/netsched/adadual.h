/*
 * netsched/adadual.h - AdaDUAL: all-reduce contention model and communication admission (Wang et al.).
 * Included by <netsched.h>; do not include directly.
 */
#ifndef NETSCHED_ADADUAL_H
#define NETSCHED_ADADUAL_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Eq. 5: time of an all-reduce of `bytes` under k-way contention:
   a + k*b*M + (k-1)*eta*M. Returns NAN on invalid input (see ns_last_error). */
NS_API double ns_comm_time_ms(double a_ms, double b_ms_per_byte, double eta_ms_per_byte,
                              int k, uint64_t bytes);
/* Algorithm 2. For each server the new task uses: the number of running comm
   tasks there and, where exactly one, its remaining bytes. *start = 1 or 0. */
NS_API int ns_adadual_decide(double b_ms_per_byte, double eta_ms_per_byte, uint64_t new_bytes,
                             const int *tasks_per_server, const uint64_t *remaining_bytes,
                             size_t nservers, int *start);
/* Table I: per-algorithm (a, b) of T = a + b*M from alpha, beta, gamma, N. */
NS_API int ns_allreduce_cost(ns_collective c, int nodes, double alpha_ms,
                             double beta_ms_per_byte, double gamma_ms_per_byte,
                             double *a_ms, double *b_ms_per_byte);
/* Least-squares fit of (a, b, eta) from n measured samples (k_i, bytes_i, time_i). */
NS_API int ns_contention_fit(const int *k, const uint64_t *bytes, const double *time_ms,
                             size_t n, double *a_ms, double *b_ms_per_byte,
                             double *eta_ms_per_byte, double *rms_residual_ms);

#ifdef __cplusplus
}
#endif

#endif
