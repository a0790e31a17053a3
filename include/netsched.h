/*
 * netsched.h - libnetsched public API (the one header consumers include).
 *
 * libnetsched is an embeddable library of network-aware scheduling policies
 * for GPU clusters that train deep-learning models. A cluster manager describes
 * its cluster and jobs through opaque handles and calls one entry point per
 * decision; the library decides, the caller acts.
 *
 * Conventions (see each sub-header for the reference manual of its functions):
 *   - Functions that can fail return int: NS_OK (0) or a negative ns_status.
 *     Outputs go through pointer arguments. Constructors return NULL on
 *     failure. After any failure ns_last_error() describes it in one line that
 *     names the offending argument. A failed call leaves every handle as it was.
 *   - *_free(NULL) is a no-op.
 *   - Units: durations in milliseconds (double), bandwidth in Gbps (double),
 *     data in bytes (uint64_t). now_ms arguments are the caller's clock.
 *   - No global mutable state: distinct handles may be used from different
 *     threads at once; a shared handle is safe only for const-taking calls.
 *   - Only ns_* symbols are exported; SONAME libnetsched.so.0.
 */
#ifndef NETSCHED_H
#define NETSCHED_H

#define NS_VERSION_MAJOR 0
#define NS_VERSION_MINOR 1
#define NS_VERSION_PATCH 0
#define NS_VERSION_STRING "0.1.0"
#define NS_VERSION_NUMBER \
  (NS_VERSION_MAJOR * 10000 + NS_VERSION_MINOR * 100 + NS_VERSION_PATCH)

#include "netsched/core.h"
#include "netsched/cassini.h"
#include "netsched/adadual.h"
#include "netsched/lwf.h"
#include "netsched/titan.h"
#include "netsched/vclos.h"
#include "netsched/dally.h"
#include "netsched/policy.h"
#include "netsched/sim.h"

#endif /* NETSCHED_H */
