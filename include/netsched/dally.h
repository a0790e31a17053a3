/*
 * netsched/dally.h - Dally: delay scheduling with auto-tuned timers and network-sensitive priority.
 * Included by <netsched.h>; do not include directly.
 */
#ifndef NETSCHED_DALLY_H
#define NETSCHED_DALLY_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ns_delay_tuner ns_delay_tuner;

NS_API ns_delay_tuner *ns_delay_tuner_new(double history_limit_ms, double default_machine_ms,
                                          double default_rack_ms);
NS_API void ns_delay_tuner_free(ns_delay_tuner *t);
NS_API int ns_delay_tuner_record(ns_delay_tuner *t, ns_tier tier, int gpus, double waited_ms,
                                 double now_ms);
/* mean + 2 sd */
NS_API int ns_delay_tuner_timers(const ns_delay_tuner *t, int gpus, double now_ms,
                                 double *machine_ms, double *rack_ms);
/* Algorithm 1 on a resource offer = the cluster's current free GPUs.
   *accepted = 0 leaves `out` empty; on accept, records the wait in the tuner. */
NS_API int ns_dally_offer(ns_delay_tuner *t, const ns_cluster *c, const ns_job *job,
                          double starvation_ms, double now_ms, ns_placement *out,
                          int *accepted);
/* Baselines the Dally paper compares against, used by the simulator.
   Best-fit consolidation: the fewest servers possible, preferring servers
   whose free GPUs leave the fewest idle after placement (ties: lowest id);
   NS_ENOSPACE if the job cannot be placed now.
   Tiresias-style: a skewed model (model bytes >= skew_threshold_bytes) must
   be consolidated on the fewest servers possible (NS_ENOSPACE = wait); any
   other job takes free GPUs first-fit. */
NS_API int ns_place_best_fit(const ns_cluster *c, const ns_job *job, ns_placement *out);
NS_API int ns_place_tiresias(const ns_cluster *c, const ns_job *job,
                             uint64_t skew_threshold_bytes, ns_placement *out);

/* Nw_sens */
NS_API double ns_dally_priority(uint64_t iters_done, uint64_t iters_total, double run_ms,
                                double ideal_run_ms);

#ifdef __cplusplus
}
#endif

#endif
