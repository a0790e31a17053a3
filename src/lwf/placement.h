/*
 * src/lwf/placement.h - argument checks, hostable-GPU scan and result
 * emission shared by LWF-kappa (lwf.c) and the baseline placements it is
 * compared with (baselines.c). Private to src/lwf.
 */
#ifndef NS_LWF_PLACEMENT_H
#define NS_LWF_PLACEMENT_H

#include "core/internal.h"

/* Validates the (c, job, out) triple every placement entry point takes. */
int lwfi_check_args(const ns_cluster *c, const ns_job *job, const ns_placement *out,
                    const char *fn);

/* Writes into ids[] (capacity c->ngpus) the GPUs that can host `job` now,
   in increasing id order, and returns how many. */
int lwfi_hostable_gpus(const ns_cluster *c, const ns_job *job, int *ids);

/* Success: replaces `out` with gpus[0..n) bound to c. NS_ENOMEM leaves it
   as it was. */
int lwfi_emit(const ns_cluster *c, ns_placement *out, const int *gpus, int n);

/* Infeasible now: leaves `out` empty (bound to c) and records why. */
int lwfi_no_space(const ns_cluster *c, ns_placement *out, const ns_job *job, int hostable,
                  const char *fn);

#endif
