/*
 * netsched/cassini.h - CASSINI (NSDI'24): unified-circle compatibility score, Affinity-graph time-shifts, candidate ranking.
 * Included by <netsched.h>; do not include directly.
 */
#ifndef NETSCHED_CASSINI_H
#define NETSCHED_CASSINI_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ns_cassini_opts ns_cassini_opts;
typedef struct ns_affinity ns_affinity;
typedef struct ns_candidate ns_candidate;

/* Options with the paper's defaults: angle step 5 degrees, time quantum 1 ms,
   1 thread. */
NS_API ns_cassini_opts *ns_cassini_opts_new(void);
NS_API void ns_cassini_opts_free(ns_cassini_opts *o);
NS_API int ns_cassini_opts_set_angle_step_deg(ns_cassini_opts *o, double deg);
NS_API int ns_cassini_opts_set_time_quantum_ms(ns_cassini_opts *o, double ms);
NS_API int ns_cassini_opts_set_threads(ns_cassini_opts *o, int threads);

/* Table 1 optimisation for the jobs on one link. shifts_ms[i] is t_j^l (Eq. 5)
   for the i-th job added to the link; nshifts must be >= job count. */
NS_API int ns_cassini_score(const ns_link *link, const ns_cassini_opts *o,
                            double *score, double *shifts_ms, size_t nshifts);

NS_API ns_affinity *ns_affinity_new(void);
NS_API void ns_affinity_free(ns_affinity *g);
/* w_e = t_j^l */
NS_API int ns_affinity_add_edge(ns_affinity *g, const ns_job *job, const ns_link *link,
                                double shift_ms);
/* 1, 0, or < 0 error */
NS_API int ns_affinity_has_loop(const ns_affinity *g);
/* Algorithm 1; NS_ELOOP on a cycle */
NS_API int ns_affinity_solve(ns_affinity *g);
NS_API int ns_affinity_shift_ms(const ns_affinity *g, const ns_job *job, double *shift_ms);

/* One candidate placement: the (job, link) pairs it would create. */
NS_API ns_candidate *ns_candidate_new(void);
NS_API void ns_candidate_free(ns_candidate *c);
NS_API int ns_candidate_add(ns_candidate *c, const ns_job *job, const ns_link *link);
/* Algorithm 2: score every candidate (loop => score NAN, excluded), pick the
   best by mean link score, solve its time-shifts. */
NS_API int ns_cassini_rank(ns_candidate *const *cands, size_t n, const ns_cassini_opts *o,
                           size_t *best, double *scores);
NS_API int ns_candidate_shift_ms(const ns_candidate *c, const ns_job *job, double *shift_ms);

#ifdef __cplusplus
}
#endif

#endif
