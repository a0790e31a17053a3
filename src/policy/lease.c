/*
 * src/policy/lease.c - Dally's leases (the lease reading, netsched/policy.h
 * LEASES): per job id, the lease the policy granted (from, end), and the
 * ends of leases whose job left, so that the caller is still woken then.
 * policy.c walks the re-offer and tells this file what it decided
 * (nsp_lease_settle); this file calls nothing of policy.c.
 *
 * A lease is granted from now_ms to now_ms + lease_ms when the policy
 * decides a start, when it renews an expired lease (the job keeps its
 * GPUs), and to a running job first seen without one (started by the
 * caller outside a decision, or before the caller restarted). It ends when
 * the policy suspends the job at expiry. A job whose id is absent from a
 * decision's queue, or waiting, keeps no lease: its entry stays until its
 * end only as a wake-up time (a pass then is what the simulator always
 * made: its lease wake-ups were never cancelled; a cluster manager asked
 * once more finds nothing expired and gets the plain decision).
 *
 * Entries are sorted by id (binary search: the simulator asks for every
 * running job at every decision, ns_policy_lease_ms).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "policy/policy_internal.h"

typedef struct nsp_leasejob {
  uint64_t id;
  double from, end;
  int gone; /* the job left or waits: only its end is kept, as a wake-up */
  unsigned seen; /* the decision that last saw the id in its queue */
} nsp_leasejob;

struct nsp_lease {
  nsp_leasejob *j;
  size_t n, cap;
  unsigned stamp;
};

int nsp_lease_new(ns_policy *p) {
  p->lease = calloc(1, sizeof *p->lease);
  return p->lease == NULL ? NS_ENOMEM : NS_OK;
}

void nsp_lease_free(nsp_lease *L) {
  if (L != NULL)
    free(L->j);
  free(L);
}

/* Index of id, or where it would go (*found 0). */
static size_t find(const nsp_lease *L, uint64_t id, int *found) {
  size_t lo = 0, hi = L->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (L->j[mid].id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  *found = lo < L->n && L->j[lo].id == id;
  return lo;
}

static const nsp_leasejob *held(const nsp_lease *L, uint64_t id) {
  int found = 0;
  size_t k = L != NULL ? find(L, id, &found) : 0;
  return found && !L->j[k].gone ? &L->j[k] : NULL;
}

int nsp_lease_of(const ns_policy *p, uint64_t id, double *from, double *end) {
  const nsp_leasejob *j = held(p->lease, id);
  if (j == NULL)
    return NS_ENOTFOUND;
  if (from != NULL)
    *from = j->from;
  if (end != NULL)
    *end = j->end;
  return NS_OK;
}

int nsp_lease_expired(const ns_policy *p, const ns_queue *q, double now, size_t *exp,
                      size_t *nexp) {
  *nexp = 0;
  for (size_t i = 0; i < q->n; i++) {
    if (!q->e[i].running)
      continue;
    const nsp_leasejob *j = held(p->lease, q->e[i].id);
    if (j != NULL && j->end <= now)
      exp[(*nexp)++] = i;
  }
  return NS_OK;
}

int nsp_lease_reserve(ns_policy *p, size_t n, const char *fn) {
  nsp_lease *L = p->lease;
  if (L->n + n > L->cap) {
    size_t cap = (L->n + n) * 2;
    nsp_leasejob *v = realloc(L->j, cap * sizeof *v);
    if (v == NULL)
      return nsi_fail(NS_ENOMEM, "%s: out of memory for Dally's leases", fn);
    L->j = v, L->cap = cap;
  }
  return NS_OK;
}

/* A lease for id from now (cannot fail: room reserved). */
static void grant(nsp_lease *L, uint64_t id, double now, double lease_ms) {
  int found = 0;
  size_t k = find(L, id, &found);
  if (!found) {
    memmove(L->j + k + 1, L->j + k, (L->n - k) * sizeof *L->j);
    L->n++;
    L->j[k].id = id;
  }
  L->j[k].from = now, L->j[k].end = now + lease_ms, L->j[k].gone = 0;
  L->j[k].seen = L->stamp;
}

double nsp_lease_settle(ns_policy *p, const ns_queue *q, const ns_decision *d, double now) {
  nsp_lease *L = p->lease;
  L->stamp++;
  /* what the decision did per queue index: 1 started, 2 renewed, 4 suspended */
  for (size_t k = 0; k < d->ns; k++)
    grant(L, q->e[d->s[k].qi].id, now, p->lease_ms);
  for (size_t k = 0; k < d->nrenew; k++)
    grant(L, q->e[d->renew[k]].id, now, p->lease_ms);
  for (size_t i = 0; i < q->n; i++) {
    int found = 0;
    size_t k = find(L, q->e[i].id, &found);
    if (found && L->j[k].seen == L->stamp)
      continue; /* granted above: started or renewed now */
    if (q->e[i].running && d->status[i] == NS_OK) { /* keeps its GPUs */
      if (!found || L->j[k].gone)
        grant(L, q->e[i].id, now, p->lease_ms); /* first seen running: a lease from now */
      else
        L->j[k].seen = L->stamp;
    } else if (found) {
      L->j[k].gone = 1; /* suspended, or waiting: no lease */
    }
  }
  size_t w = 0;
  double next = INFINITY;
  for (size_t k = 0; k < L->n; k++) {
    nsp_leasejob *j = &L->j[k];
    if (j->seen != L->stamp)
      j->gone = 1; /* not in the queue: left */
    if (j->gone && !(j->end > now))
      continue; /* nothing to wake for any more */
    if (j->end > now && j->end < next)
      next = j->end;
    L->j[w++] = *j;
  }
  L->n = w;
  return next;
}
