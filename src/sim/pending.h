/*
 * src/sim/pending.h - declarations the simulator needs from policy modules
 * whose headers have not landed on this branch yet. Each one repeats the
 * exact signature the module's engineer was asked to publish; a compatible
 * redeclaration is harmless once the real header declares it.
 */
#ifndef NS_SIM_PENDING_H
#define NS_SIM_PENDING_H

#include "netsched.h"

/* (empty: dally.h now declares ns_delay_tuner_set_manual) */

#endif
