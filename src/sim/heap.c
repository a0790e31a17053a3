/*
 * src/sim/heap.c - the simulator's event heap: a binary min-heap on
 * (time, job). Events carry a version so that a job whose next event moves
 * simply pushes a new one; the engine skips the stale one when popped.
 */
#include "sim/sim_internal.h"

static int ev_less(const nsi_event *a, const nsi_event *b) {
  return a->t < b->t || (a->t == b->t && a->job < b->job);
}

int nsi_sim_heap_push(nsi_heap *h, double t, int job, unsigned ver) {
  NSI_TRY(nsi_reserve(&h->ev, &h->cap, h->n + 1, sizeof *h->ev));
  size_t i = h->n++;
  nsi_event e = {t, job, ver};
  while (i > 0 && ev_less(&e, &h->ev[(i - 1) / 2])) {
    h->ev[i] = h->ev[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h->ev[i] = e;
  return NS_OK;
}

int nsi_sim_heap_pop(nsi_heap *h, nsi_event *out) {
  if (h->n == 0)
    return 0;
  *out = h->ev[0];
  nsi_event last = h->ev[--h->n];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= h->n)
      break;
    if (c + 1 < h->n && ev_less(&h->ev[c + 1], &h->ev[c]))
      c++;
    if (!ev_less(&h->ev[c], &last))
      break;
    h->ev[i] = h->ev[c];
    i = c;
  }
  if (h->n > 0)
    h->ev[i] = last;
  return 1;
}
