/*
 * src/titan/greedy.c - Titan Algorithms 1 and 2: grow feasible worker sets
 * machine by machine, each round merging onto the machine whose feasible set
 * saves the most machines (the largest marginal gain of H, Eq. 4).
 *
 * Worker sets are contiguous runs of the traffic-aware worker order
 * (nsi_coll_order), so the workers merged onto one machine are those that
 * exchange the largest flows (Fig. 1(c): {W1,W3} and {W2,W4}).
 */
#include <stdlib.h>

#include "titan/titan_internal.h"

typedef struct cand {
  int s, cls, ub, loc, r;
  uint64_t tie;
} cand;

/* Rank: class (non-idle first in Alg. 3 step 1), then the gain's upper
   bound, then locality (workers of the job already under the machine's
   leaf: fewer cross-leaf flows), then best fit (smallest R_s: keeps large
   holes for later jobs), then the seeded tie-break, then the id. */
static int cand_cmp(const void *x, const void *y) {
  const cand *a = x, *b = y;
  if (a->cls != b->cls)
    return a->cls - b->cls;
  if (a->ub != b->ub)
    return b->ub - a->ub;
  if (a->loc != b->loc)
    return b->loc - a->loc;
  if (a->r != b->r)
    return a->r - b->r;
  if (a->tie != b->tie)
    return a->tie < b->tie ? -1 : 1;
  return a->s - b->s;
}

static void place_run(tn_asg *a, const tn_prob *p, int s, int pos, int g, int m) {
  for (int i = pos; i < pos + g; i++)
    a->mach[p->order[i]] = m;
  a->cnt[s] += m >= 0 ? g : -g;
}

/* Alg. 1: the largest run order[pos, pos+g), g <= ub, that machine s can
   take without breaking the bandwidth constraint against the workers
   already placed. Feasibility is monotone in g (flows only add), so a
   binary search finds it. */
static int feasible_run(tn_prob *p, tn_asg *a, int s, int pos, int ub) {
  int lo = 0, hi = ub;
  while (lo < hi) {
    int mid = lo + (hi - lo + 1) / 2;
    place_run(a, p, s, pos, mid, s);
    int ok = tn_feasible(p, a);
    place_run(a, p, s, pos, mid, -1);
    if (ok)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

static int better(const cand *c, int g, const cand *best, int bestg) {
  if (c->cls != best->cls)
    return c->cls < best->cls;
  return g > bestg;
}

/* One round of Alg. 2 (lines 6-15): the machine with the largest feasible
   run. Candidates are evaluated lazily in rank order (Minoux's accelerated
   greedy): one whose run reaches its upper bound cannot be beaten by any
   later one. Returns the index in cands or -1; *gain gets the run. */
static int best_round(tn_prob *p, tn_asg *a, cand *cands, int nc, int pos, int *gain) {
  int best = -1, bestg = 0;
  for (int i = 0; i < nc; i++) {
    cand *c = &cands[i];
    if (best >= 0 && (c->cls > cands[best].cls ||
                      (c->cls == cands[best].cls && c->ub <= bestg)))
      break;
    int g = feasible_run(p, a, c->s, pos, c->ub);
    if (g > 0 && (best < 0 || better(c, g, &cands[best], bestg))) {
      best = i;
      bestg = g;
    }
    if (g == c->ub)
      break;
  }
  *gain = bestg;
  return best;
}

static int fill_cands(const tn_prob *p, const tn_asg *a, const unsigned char *allow,
                      int nonidle_first, const int *leafcnt, int rem, cand *cands) {
  int nc = 0;
  for (int s = 0; s < p->M; s++) {
    if (!allow[s] || p->R[s] == 0 || a->cnt[s] > 0)
      continue;
    cand *c = &cands[nc++];
    c->s = s;
    c->cls = nonidle_first ? p->idle[s] : 0;
    c->ub = p->R[s] < rem ? p->R[s] : rem;
    c->loc = leafcnt[s / p->spl];
    c->r = p->R[s];
    c->tie = p->tie[s];
  }
  qsort(cands, (size_t)nc, sizeof *cands, cand_cmp);
  return nc;
}

int tn_greedy(tn_prob *p, const unsigned char *allow, int nonidle_first, tn_asg *a) {
  tn_asg_reset(a, p);
  cand *cands = malloc((size_t)p->M * sizeof *cands);
  int *leafcnt = calloc((size_t)p->L, sizeof *leafcnt);
  if (!cands || !leafcnt) {
    free(cands);
    free(leafcnt);
    return nsi_fail(NS_ENOMEM, "ns_titan_place: out of memory");
  }
  int pos = 0, placed_all = 1;
  while (pos < p->W) { /* Alg. 2 line 5: until every worker is merged */
    int nc = fill_cands(p, a, allow, nonidle_first, leafcnt, p->W - pos, cands), g;
    int b = best_round(p, a, cands, nc, pos, &g);
    if (b < 0) {
      placed_all = 0;
      break;
    }
    place_run(a, p, cands[b].s, pos, g, cands[b].s);
    leafcnt[cands[b].s / p->spl] += g;
    pos += g;
  }
  free(cands);
  free(leafcnt);
  tn_asg_score(a, p);
  return placed_all;
}
