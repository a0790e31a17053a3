/*
 * bindings/slurm/waitlog.c - the log of the waits Dally's delay tuner
 * recorded, which the --state file (state.c) saves and replays. Policies
 * (policies.c) append to it when an offer is accepted; it calls neither.
 */
#include <stdlib.h>

#include "adapter.h"

int nss_ctx_log(nss_ctx *x, int tier, int gpus, double waited_ms, double now_ms) {
  if (x->nrecs == x->caprecs) {
    size_t cap = x->caprecs ? 2 * x->caprecs : 64;
    void *r = realloc(x->recs, cap * sizeof *x->recs);
    if (r == NULL)
      return -1;
    x->recs = r, x->caprecs = cap;
  }
  x->recs[x->nrecs].tier = tier, x->recs[x->nrecs].gpus = gpus;
  x->recs[x->nrecs].waited_ms = waited_ms, x->recs[x->nrecs].now_ms = now_ms;
  x->nrecs++;
  if (now_ms > x->now_ms)
    x->now_ms = now_ms; /* the tuner's clock never goes back */
  return 0;
}

int nss_ctx_record(nss_ctx *x, int tier, int gpus, double waited_ms, double now_ms) {
  if (ns_delay_tuner_record(x->tuner, (ns_tier)tier, gpus, waited_ms, now_ms) < 0)
    return -1;
  return nss_ctx_log(x, tier, gpus, waited_ms, now_ms);
}
