/*
 * src/cassini/candidate.c - the ns_candidate handle (§4.2 step 1): its
 * life cycle, the (job, link) pairs a caller adds, the time-shifts that
 * ns_cassini_rank leaves on the best candidate, and the links owned by a
 * candidate built from the cluster (ns_cassini_candidate_from_cluster).
 */
#include <stdint.h>
#include <stdlib.h>

#include "cassini/cassini_internal.h"

ns_candidate *ns_candidate_new(void) {
  ns_candidate *c = calloc(1, sizeof *c);
  if (c == NULL)
    nsi_fail(NS_ENOMEM, "ns_candidate_new: out of memory");
  return c;
}

void ns_candidate_free(ns_candidate *c) {
  if (c == NULL)
    return;
  nsc_affinity_clear(&c->pairs);
  nsc_candidate_drop_links(c);
  free(c->shift);
  free(c);
}

int ns_candidate_add(ns_candidate *c, const ns_job *job, const ns_link *link) {
  static const char fn[] = "ns_candidate_add";
  NSI_TRY(nsi_check_ptr(c, fn, "c"));
  NSI_TRY(nsi_check_ptr(job, fn, "job"));
  NSI_TRY(nsi_check_ptr(link, fn, "link"));
  NSI_TRY(nsc_affinity_add(&c->pairs, job, link, 0, fn));
  c->solved = 0;
  return NS_OK;
}

int ns_candidate_shift_ms(const ns_candidate *c, const ns_job *job, double *shift_ms) {
  static const char fn[] = "ns_candidate_shift_ms";
  NSI_TRY(nsi_check_ptr(c, fn, "c"));
  NSI_TRY(nsi_check_ptr(job, fn, "job"));
  NSI_TRY(nsi_check_ptr(shift_ms, fn, "shift_ms"));
  size_t j = nsi_ptrmap_get(&c->pairs.job_ix, nsi_key_ptr(job));
  if (j == SIZE_MAX)
    return nsi_fail(NS_ENOTFOUND, "%s: job '%s' is not in the candidate", fn, job->name);
  if (!c->solved)
    return nsi_fail(NS_ESTATE,
                    "%s: the candidate was not the best of the last ns_cassini_rank "
                    "(or changed since)",
                    fn);
  *shift_ms = c->shift[j];
  return NS_OK;
}

void nsc_candidate_drop_links(ns_candidate *c) {
  for (size_t i = 0; i < c->nowned; i++)
    ns_link_free(c->owned[i]);
  free(c->owned);
  c->owned = NULL;
  c->nowned = 0;
}
