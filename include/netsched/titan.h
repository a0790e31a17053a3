/*
 * netsched/titan.h - Titan: non-idle-machine-aware submodular worker placement and collective traffic.
 * Included by <netsched.h>; do not include directly.
 */
#ifndef NETSCHED_TITAN_H
#define NETSCHED_TITAN_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ns_titan_opts ns_titan_opts;

NS_API ns_titan_opts *ns_titan_opts_new(void);
NS_API void ns_titan_opts_free(ns_titan_opts *o);
NS_API int ns_titan_opts_set_seed(ns_titan_opts *o, uint64_t seed);
NS_API int ns_titan_place(const ns_cluster *c, const ns_job *job, const ns_titan_opts *o,
                          ns_placement *out);
/* The per-phase pair traffic C^t_{n,n'} of a collective, for inspection/tests. */
NS_API int ns_collective_traffic(ns_collective c, int workers, uint64_t bytes, int phase,
                                 int from, int to, uint64_t *out_bytes);
NS_API int ns_collective_phase_count(ns_collective c, int workers);

#ifdef __cplusplus
}
#endif

#endif
