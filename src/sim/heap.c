/*
 * src/sim/heap.c - the simulator's event heap: a 4-ary min-heap on
 * (time, job). Events carry a version: the engine skips an event whose
 * version is no longer its job's (the job's event was cancelled).
 *
 * Indexed for jobs: a job (job >= 0) has at most one entry, found through
 * pos[job]; pushing a job's event again moves that entry to the new time
 * (sift up or down) instead of adding one beside it. In the phase model
 * every rate change of a group member re-times its event: with one entry
 * per push the heap filled with stale events, each popped and skipped later
 * (a quarter of an exact run's time on Philly, bench/RESULTS.md). Wake-ups
 * (job < 0) are plain entries, any number. Valid events pop in the same
 * (time, job) order as before; only the stale ones are gone.
 */
#include <stdlib.h>

#include "sim/sim_internal.h"

static int ev_less(const nsi_event *a, const nsi_event *b) {
  return a->t < b->t || (a->t == b->t && a->job < b->job);
}

static void put(nsi_heap *h, size_t i, nsi_event e) {
  h->ev[i] = e;
  if (e.job >= 0)
    h->pos[e.job] = (int)i;
}

/* 4-ary: half the levels of a binary heap for the sifts that re-timed
   events cause (every rate change of a group member in the phase model);
   (time, job) is a total order on the entries, so the events pop in the
   same order whatever the heap's shape. */
#define NSI_HEAP_D 4

static void sift_up(nsi_heap *h, size_t i, nsi_event e) {
  while (i > 0 && ev_less(&e, &h->ev[(i - 1) / NSI_HEAP_D])) {
    put(h, i, h->ev[(i - 1) / NSI_HEAP_D]);
    i = (i - 1) / NSI_HEAP_D;
  }
  put(h, i, e);
}

static void sift_down(nsi_heap *h, size_t i, nsi_event e) {
  for (;;) {
    size_t c = NSI_HEAP_D * i + 1;
    if (c >= h->n)
      break;
    size_t end = c + NSI_HEAP_D < h->n ? c + NSI_HEAP_D : h->n;
    for (size_t k = c + 1; k < end; k++)
      if (ev_less(&h->ev[k], &h->ev[c]))
        c = k;
    if (!ev_less(&h->ev[c], &e))
      break;
    put(h, i, h->ev[c]);
    i = c;
  }
  put(h, i, e);
}

int nsi_sim_heap_init(nsi_heap *h, size_t njobs) {
  free(h->pos);
  h->pos = malloc((njobs ? njobs : 1) * sizeof *h->pos);
  if (h->pos == NULL)
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
  for (size_t i = 0; i < njobs; i++)
    h->pos[i] = -1;
  h->npos = njobs;
  h->n = 0;
  return NS_OK;
}

void nsi_sim_heap_free(nsi_heap *h) {
  free(h->ev), free(h->pos);
  h->ev = NULL, h->pos = NULL;
  h->n = h->cap = h->npos = 0;
}

int nsi_sim_heap_push(nsi_heap *h, double t, int job, unsigned ver) {
  nsi_event e = {t, job, ver};
  if (job >= 0 && (size_t)job < h->npos && h->pos[job] >= 0) { /* the job's entry moves */
    size_t i = (size_t)h->pos[job];
    if (ev_less(&e, &h->ev[i]))
      sift_up(h, i, e);
    else
      sift_down(h, i, e);
    return NS_OK;
  }
  NSI_TRY(nsi_reserve(&h->ev, &h->cap, h->n + 1, sizeof *h->ev));
  sift_up(h, h->n++, e);
  return NS_OK;
}

int nsi_sim_heap_pop(nsi_heap *h, nsi_event *out) {
  if (h->n == 0)
    return 0;
  *out = h->ev[0];
  if (out->job >= 0)
    h->pos[out->job] = -1;
  nsi_event last = h->ev[--h->n];
  if (h->n > 0)
    sift_down(h, 0, last);
  return 1;
}
