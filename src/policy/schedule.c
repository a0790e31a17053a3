/*
 * src/policy/schedule.c - the policy's table of CASSINI schedules, one
 * record per job handle the caller reported an iteration for (drift.c
 * reads and writes the records; policy.c forgets a job that finished or
 * was suspended). Records are dense; a map from the handle finds one in
 * O(1), since the simulator reports every all-reduce start.
 */
#include <math.h>
#include <stdlib.h>

#include "core/internal.h"
#include "policy/policy_internal.h"

nsp_sched *nsp_sched_find(const ns_policy *p, const ns_job *job) {
  size_t i = nsi_ptrmap_get(&p->sched_ix, nsi_key_ptr(job));
  return i == SIZE_MAX ? NULL : &p->sched[i];
}

nsp_sched *nsp_sched_reset(ns_policy *p, const ns_job *job, const char *fn) {
  nsp_sched *r = nsp_sched_find(p, job);
  if (r == NULL) {
    if (nsi_reserve(&p->sched, &p->capsched, p->nsched + 1, sizeof *p->sched) < 0 ||
        nsi_ptrmap_reserve(&p->sched_ix, 1) != NS_OK) {
      nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
      return NULL;
    }
    nsi_ptrmap_put(&p->sched_ix, nsi_key_ptr(job), p->nsched); /* reserved: cannot fail */
    r = &p->sched[p->nsched++];
  }
  r->job = job;
  r->compute = r->comm = r->per = 0;
  r->slot = NAN, r->until = -INFINITY, r->n = 0;
  return r;
}

void nsp_sched_forget(ns_policy *p, const ns_job *job) {
  size_t i = nsi_ptrmap_get(&p->sched_ix, nsi_key_ptr(job));
  if (i == SIZE_MAX)
    return;
  nsi_ptrmap_del(&p->sched_ix, nsi_key_ptr(job));
  size_t last = --p->nsched;
  if (i != last) { /* the last record fills the hole */
    p->sched[i] = p->sched[last];
    *nsi_ptrmap_ref(&p->sched_ix, nsi_key_ptr(p->sched[i].job)) = i;
  }
}

void nsp_sched_free(ns_policy *p) {
  free(p->sched);
  nsi_ptrmap_free(&p->sched_ix);
  p->sched = NULL, p->nsched = p->capsched = 0;
}
