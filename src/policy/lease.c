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
 * Entries are kept unordered, found through the core's key map (id + 1 ->
 * index, nsi_ptrmap; id UINT64_MAX, key 0 there, in its own index): the
 * simulator asks for every running job at every decision
 * (ns_policy_lease_ms), and a binary search over entries sorted by id was
 * half of a dally run on the whole Philly trace. Only nsp_lease_settle
 * changes the entries, after the decision, and it cannot fail: room in the
 * entries and in the map is reserved before (nsp_lease_reserve), so a
 * failed decision leaves the leases as they were.
 */
#include <math.h>
#include <stdlib.h>

#include "core/internal.h"
#include "policy/policy_internal.h"

typedef struct nsp_leasejob {
  uint64_t id;
  double from, end;
  int gone; /* the job left or waits: only its end is kept, as a wake-up */
  unsigned seen; /* the decision that last saw the id in its queue */
} nsp_leasejob;

struct nsp_lease {
  nsp_leasejob *j; /* unordered */
  size_t n, cap;
  unsigned stamp;
  nsi_ptrmap map; /* id + 1 -> index in j */
  size_t max_at;  /* index of id UINT64_MAX (key 0 in the map), SIZE_MAX if none */
  nsi_ptrmap ids; /* nsp_lease_check_ids' scratch, emptied after each use */
};

int nsp_lease_new(ns_policy *p) {
  p->lease = calloc(1, sizeof *p->lease);
  if (p->lease == NULL)
    return NS_ENOMEM;
  p->lease->max_at = SIZE_MAX;
  return NS_OK;
}

void nsp_lease_free(nsp_lease *L) {
  if (L != NULL) {
    free(L->j);
    nsi_ptrmap_free(&L->map);
    nsi_ptrmap_free(&L->ids);
  }
  free(L);
}

/* Index of id in L->j, or SIZE_MAX. */
static size_t find(const nsp_lease *L, uint64_t id) {
  return id == UINT64_MAX ? L->max_at : nsi_ptrmap_get(&L->map, id + 1);
}

/* Records that id's entry is now at index k (SIZE_MAX: dropped). The map
   holds id already, or has room (reserved): cannot fail. */
static void place(nsp_lease *L, uint64_t id, size_t k, int is_new) {
  if (id == UINT64_MAX)
    L->max_at = k;
  else if (k == SIZE_MAX)
    nsi_ptrmap_del(&L->map, id + 1);
  else if (is_new)
    nsi_ptrmap_put(&L->map, id + 1, k);
  else
    *nsi_ptrmap_ref(&L->map, id + 1) = k;
}

static const nsp_leasejob *held(const nsp_lease *L, uint64_t id) {
  size_t k = L != NULL ? find(L, id) : SIZE_MAX;
  return k != SIZE_MAX && !L->j[k].gone ? &L->j[k] : NULL;
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

/* The leases are kept per id: two jobs of one id in a queue would share
   one (NS_EINVAL, as the preemptive orders say it). O(n) through a key map
   kept between decisions (a sort of the queue was 14 % of a Dally run on
   Philly, a map built afresh each time 11 %); the later of two queue
   indices is named, as las.c names it. */
int nsp_lease_check_ids(ns_policy *p, const ns_queue *q, const char *fn) {
  if (q->n < 2)
    return NS_OK;
  nsi_ptrmap *seen = &p->lease->ids;
  if (nsi_ptrmap_reserve(seen, q->n) < 0)
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  int rc = NS_OK, max_seen = 0; /* id UINT64_MAX: key 0 is the map's empty slot */
  for (size_t i = 0; i < q->n && rc == NS_OK; i++) {
    uint64_t id = q->e[i].id;
    int dup = id == UINT64_MAX ? max_seen : nsi_ptrmap_get(seen, id + 1) != SIZE_MAX;
    if (dup)
      rc = nsi_fail(NS_EINVAL, "%s: queue index %zu has id %llu, which an earlier job of the "
                               "queue has (ids must be distinct)", fn, i, (unsigned long long)id);
    else if (id == UINT64_MAX)
      max_seen = 1;
    else
      nsi_ptrmap_put(seen, id + 1, i); /* reserved: cannot fail */
  }
  nsi_ptrmap_clear(seen);
  return rc;
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
  if (nsi_ptrmap_reserve(&L->map, n) < 0)
    return nsi_fail(NS_ENOMEM, "%s: out of memory for Dally's leases", fn);
  return NS_OK;
}

/* A lease for id from now (cannot fail: room reserved). */
static void grant(nsp_lease *L, uint64_t id, double now, double lease_ms) {
  size_t k = find(L, id);
  if (k == SIZE_MAX) {
    k = L->n++;
    L->j[k].id = id;
    place(L, id, k, 1);
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
    size_t k = find(L, q->e[i].id);
    int found = k != SIZE_MAX;
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
    if (j->gone && !(j->end > now)) {
      place(L, j->id, SIZE_MAX, 0);
      continue; /* nothing to wake for any more */
    }
    if (j->end > now && j->end < next)
      next = j->end;
    if (w != k) {
      L->j[w] = *j;
      place(L, j->id, w, 0);
    }
    w++;
  }
  L->n = w;
  return next;
}
