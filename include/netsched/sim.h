/*
 * netsched/sim.h - trace-driven discrete-event cluster simulator (designed in its issue).
 * Included by <netsched.h>; do not include directly.
 */
#ifndef NETSCHED_SIM_H
#define NETSCHED_SIM_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ns_sim_* API is added by the simulator issue. */

#ifdef __cplusplus
}
#endif

#endif
