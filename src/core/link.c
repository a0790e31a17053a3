/*
 * src/core/link.c - standalone links for callers that bring their own
 * topology (CASSINI): a capacity and the jobs that traverse it (borrowed).
 */
#include <math.h>
#include <stdlib.h>

#include "core/internal.h"

ns_link *ns_link_new(const char *name, double capacity_gbps) {
  if (nsi_check_finite_gt0(capacity_gbps, "ns_link_new", "capacity_gbps") < 0)
    return NULL;
  ns_link *l = calloc(1, sizeof *l);
  if (l == NULL || (l->name = nsi_strdup(name ? name : "")) == NULL) {
    free(l);
    nsi_fail(NS_ENOMEM, "ns_link_new: out of memory");
    return NULL;
  }
  l->capacity_gbps = capacity_gbps;
  return l;
}

/* Duplicate detection: a linear scan for short links, the core's pointer
   map once a link carries more jobs (so 1e6 jobs stay O(n)). */
#define LINK_SCAN_MAX 64

static int link_contains(const ns_link *l, const ns_job *job) {
  if (l->set.cap > 0)
    return nsi_ptrmap_get(&l->set, nsi_key_ptr(job)) != SIZE_MAX;
  for (size_t i = 0; i < l->njobs; i++)
    if (l->jobs[i] == job)
      return 1;
  return 0;
}

/* Makes room to index one more job, building the map from the jobs so far
   when the link outgrows the linear scan. Nothing changes on failure. */
static int index_reserve(ns_link *l) {
  if (l->njobs + 1 <= LINK_SCAN_MAX)
    return NS_OK;
  if (l->set.cap > 0)
    return nsi_ptrmap_reserve(&l->set, 1);
  nsi_ptrmap m = {0};
  if (nsi_ptrmap_reserve(&m, l->njobs + 1) != NS_OK)
    return NS_ENOMEM;
  for (size_t i = 0; i < l->njobs; i++)
    nsi_ptrmap_put(&m, nsi_key_ptr(l->jobs[i]), i); /* reserved: cannot fail */
  l->set = m;
  return NS_OK;
}

void ns_link_free(ns_link *link) {
  if (link == NULL)
    return;
  nsi_ptrmap_free(&link->set);
  free(link->name);
  free(link->jobs);
  free(link);
}

int ns_link_add_job(ns_link *link, const ns_job *job) {
  NSI_TRY(nsi_check_ptr(link, "ns_link_add_job", "link"));
  NSI_TRY(nsi_check_ptr(job, "ns_link_add_job", "job"));
  if (link_contains(link, job))
    return nsi_fail(NS_EINVAL, "ns_link_add_job: job '%s' is already on link '%s'", job->name,
                    link->name);
  NSI_TRY(nsi_reserve(&link->jobs, &link->cap_jobs, link->njobs + 1, sizeof *link->jobs));
  if (index_reserve(link) != NS_OK)
    return nsi_fail(NS_ENOMEM, "ns_link_add_job: out of memory");
  if (link->set.cap > 0)
    nsi_ptrmap_put(&link->set, nsi_key_ptr(job), link->njobs); /* reserved */
  link->jobs[link->njobs++] = job;
  return NS_OK;
}

size_t ns_link_job_count(const ns_link *link) { return link ? link->njobs : 0; }

double ns_link_capacity_gbps(const ns_link *link) {
  if (nsi_check_ptr(link, "ns_link_capacity_gbps", "link") < 0)
    return NAN;
  return link->capacity_gbps;
}

const char *ns_link_name(const ns_link *link) { return link ? link->name : ""; }

const ns_job *ns_link_job(const ns_link *link, size_t i) {
  if (link == NULL || i >= link->njobs)
    return NULL;
  return link->jobs[i];
}
