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

/* Duplicate detection: a linear scan for short links, an open-addressing
   pointer set once a link carries many jobs (so 1e6 jobs stay O(n)). */
#define LINK_SCAN_MAX 64

static size_t ptr_hash(const void *p, size_t cap) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return (size_t)x & (cap - 1);
}

static void set_insert(const ns_job **set, size_t cap, const ns_job *job) {
  size_t i = ptr_hash(job, cap);
  while (set[i] != NULL)
    i = (i + 1) & (cap - 1);
  set[i] = job;
}

static int set_grow(ns_link *l, size_t n) {
  if (l->set != NULL && n * 2 <= l->set_cap)
    return 0;
  size_t cap = 128;
  while (cap < n * 4)
    cap *= 2;
  const ns_job **set = calloc(cap, sizeof *set);
  if (set == NULL)
    return -1;
  for (size_t i = 0; i < l->njobs; i++)
    set_insert(set, cap, l->jobs[i]);
  free(l->set);
  l->set = set;
  l->set_cap = cap;
  return 0;
}

static int link_contains(const ns_link *l, const ns_job *job) {
  if (l->set == NULL) {
    for (size_t i = 0; i < l->njobs; i++)
      if (l->jobs[i] == job)
        return 1;
    return 0;
  }
  for (size_t i = ptr_hash(job, l->set_cap); l->set[i] != NULL; i = (i + 1) & (l->set_cap - 1))
    if (l->set[i] == job)
      return 1;
  return 0;
}

void ns_link_free(ns_link *link) {
  if (link == NULL)
    return;
  free(link->set);
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
  if (link->njobs + 1 > LINK_SCAN_MAX && set_grow(link, link->njobs + 1) < 0)
    return nsi_fail(NS_ENOMEM, "ns_link_add_job: out of memory");
  link->jobs[link->njobs++] = job;
  if (link->set)
    set_insert(link->set, link->set_cap, job);
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
