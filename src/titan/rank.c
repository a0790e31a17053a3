/*
 * src/titan/rank.c - the candidate machines of Alg. 2's rounds in rank
 * order (tn_cand_order), without ranking every machine every round.
 *
 * A round needs the best unused machine (Minoux's lazy greedy evaluates
 * the top one first, and walks further only when bandwidth shortened its
 * run). Scanning every machine per round costs rounds x M: 8,192 rounds x
 * 524,288 machines for a 65,536-worker job on 2^22 GPUs (~40 s). The index
 * is a tournament tree over the allowed machines in id order: each node
 * holds the best machine of its range. Between rounds the ranking changes
 * in three ways, each repaired without a rebuild where possible:
 *  - a machine is used: it leaves (its path, O(log M));
 *  - a leaf gains workers (locality key): every machine of the leaf moves
 *    alike, so the winners of nodes inside the leaf's id range stand and
 *    only the ancestors of the range's two ends are recomputed (O(log M));
 *  - fewer workers remain: the bound min(R_s, rem) changes the order of
 *    two machines only when the smaller R_s lies in [rem_new, rem_old), so
 *    the tree is rebuilt (O(M)) only when rem crosses an R_s present: at
 *    most once per distinct R_s value.
 * A round's walk beyond the top pops machines (O(log M) each) and puts
 * them back when the round ends, so the walk sees exactly the sorted order
 * the scan produced. The reference scan (p->scan, for the tests) is kept:
 * fill every candidate, take the minimum, sort only if the walk goes on.
 */
#include <stdlib.h>

#include "titan/tn_internal.h"

/* A machine's keys that do not change during a greedy run, in one record
   per position: a comparison reads it and the leaf's worker count, not
   four arrays indexed by machine (a walk past the top may pop every
   machine, each pop comparing ~2 log M pairs). */
typedef struct rkey {
  uint64_t tie;
  int s, r, leaf, cls;
} rkey;

struct tn_rank {
  const tn_prob *p;
  int nonidle_first, rem;
  const int *leafcnt;
  int n;               /* machines ranked */
  rkey *key;           /* position -> machine and its keys, machines ascending */
  unsigned char *gone; /* position used, or yielded in this round (index) */
  /* index */
  int size;            /* tree leaves: a power of two >= n */
  int *t;              /* node -> winning position or -1; leaves at size + pos */
  int *popped, npopped;
  unsigned char *has_r; /* R values present (0 .. G) */
  /* reference scan */
  tn_cand *cands;
  int nc, next, sorted;
};

/* The same candidate as tn_cand_of(p, machine, ...), from the record. */
static tn_cand cand_at(const tn_rank *r, int pos) {
  const rkey *k = &r->key[pos];
  tn_cand c = {k->s, k->cls, k->r < r->rem ? k->r : r->rem, r->leafcnt[k->leaf], k->r, k->tie};
  return c;
}

static int win(const tn_rank *r, int i, int j) {
  if (i < 0 || j < 0)
    return i < 0 ? j : i;
  tn_cand a = cand_at(r, i), b = cand_at(r, j);
  return tn_cand_order(&a, &b) < 0 ? i : j;
}

static void pull(tn_rank *r, int k) { r->t[k] = win(r, r->t[2 * k], r->t[2 * k + 1]); }

static void rebuild(tn_rank *r) {
  for (int i = 0; i < r->size; i++)
    r->t[r->size + i] = i < r->n && !r->gone[i] ? i : -1;
  for (int k = r->size - 1; k >= 1; k--)
    pull(r, k);
}

/* Position pos left or came back: its ancestors. */
static void set_gone(tn_rank *r, int pos, int gone) {
  r->gone[pos] = (unsigned char)gone;
  int k = r->size + pos;
  r->t[k] = gone ? -1 : pos;
  for (k /= 2; k >= 1; k /= 2)
    pull(r, k);
}

/* First position whose machine is >= s. */
static int lower_bound(const tn_rank *r, int s) {
  int lo = 0, hi = r->n;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (r->key[mid].s < s)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Leaf l's locality key changed for all its machines alike: nodes inside
   its position range keep their winner; the ancestors of the range's two
   ends are recomputed level by level (children before parents). */
static void leaf_moved(tn_rank *r, int l) {
  int a = lower_bound(r, l * r->p->spl), b = lower_bound(r, (l + 1) * r->p->spl);
  if (a == b)
    return;
  for (int ka = r->size + a, kb = r->size + b - 1; ka > 1;) {
    ka /= 2, kb /= 2;
    pull(r, ka);
    if (kb != ka)
      pull(r, kb);
  }
}

static int oom(void) { return nsi_fail(NS_ENOMEM, "ns_titan_place: out of memory"); }

void tn_rank_free(tn_rank *r) {
  if (r == NULL)
    return;
  free(r->key), free(r->gone), free(r->t), free(r->popped), free(r->has_r), free(r->cands);
  free(r);
}

tn_rank *tn_rank_new(const tn_prob *p, const unsigned char *allow, int lo, int hi,
                     int nonidle_first, const int *leafcnt, int rem) {
  tn_rank *r = calloc(1, sizeof *r);
  if (r == NULL) {
    oom();
    return NULL;
  }
  r->p = p, r->nonidle_first = nonidle_first, r->leafcnt = leafcnt, r->rem = rem;
  size_t span = (size_t)(hi > lo ? hi - lo : 0) + 1;
  r->key = malloc(span * sizeof *r->key);
  r->gone = calloc(span, 1);
  if (!r->key || !r->gone)
    goto fail;
  for (int s = lo; s < hi; s++)
    if ((allow == NULL || allow[s]) && p->R[s] > 0)
      r->key[r->n++] = (rkey){p->tie[s], s, p->R[s], s / p->spl, nonidle_first ? p->idle[s] : 0};
  if (p->scan) {
    if ((r->cands = malloc(((size_t)r->n + 1) * sizeof *r->cands)) == NULL)
      goto fail;
    return r;
  }
  for (r->size = 1; r->size < r->n; r->size *= 2)
    ;
  r->t = malloc(2 * (size_t)r->size * sizeof *r->t);
  r->popped = malloc(((size_t)r->n + 1) * sizeof *r->popped);
  r->has_r = calloc((size_t)p->G + 1, 1);
  if (!r->t || !r->popped || !r->has_r)
    goto fail;
  for (int i = 0; i < r->n; i++)
    r->has_r[r->key[i].r] = 1;
  rebuild(r);
  return r;
fail:
  tn_rank_free(r);
  oom();
  return NULL;
}

static int cand_cmp(const void *x, const void *y) { return tn_cand_order(x, y); }

int tn_rank_begin(tn_rank *r) {
  if (!r->p->scan) {
    r->npopped = 0;
    return r->t[1] >= 0;
  }
  r->nc = r->next = r->sorted = 0; /* the scan: every unused machine, again */
  for (int i = 0; i < r->n; i++) /* from the instance, not the index's records */
    if (!r->gone[i])
      r->cands[r->nc++] = tn_cand_of(r->p, r->key[i].s, r->nonidle_first, r->leafcnt, r->rem);
  int top = 0;
  for (int i = 1; i < r->nc; i++)
    top = tn_cand_order(&r->cands[i], &r->cands[top]) < 0 ? i : top;
  if (r->nc > 0) { /* the minimum first; the rest sorted only if asked for */
    tn_cand c = r->cands[0];
    r->cands[0] = r->cands[top];
    r->cands[top] = c;
  }
  return r->nc > 0;
}

int tn_rank_next(tn_rank *r, tn_cand *c) {
  if (r->p->scan) {
    if (r->next == 1 && !r->sorted) {
      qsort(r->cands + 1, (size_t)r->nc - 1, sizeof *r->cands, cand_cmp);
      r->sorted = 1;
    }
    if (r->next >= r->nc)
      return 0;
    *c = r->cands[r->next++];
    return 1;
  }
  int pos = r->t[1];
  if (pos < 0)
    return 0;
  *c = cand_at(r, pos);
  r->popped[r->npopped++] = pos;
  set_gone(r, pos, 1);
  return 1;
}

void tn_rank_used(tn_rank *r, int s, int rem) {
  int old = r->rem;
  r->rem = rem;
  if (r->p->scan) {
    if (s >= 0)
      r->gone[lower_bound(r, s)] = 1;
    return;
  }
  while (r->npopped > 0) /* the round's walk is over: back in the tree */
    set_gone(r, r->popped[--r->npopped], 0);
  if (s < 0)
    return;
  int pos = lower_bound(r, s);
  set_gone(r, pos, 1);
  int stale = 0; /* min(R, rem) reorders machines only for an R in [rem, old) */
  for (int v = rem > 1 ? rem : 1; v < old && v <= r->p->G && !stale; v++)
    stale = r->has_r[v];
  if (stale)
    rebuild(r);
  else
    leaf_moved(r, s / r->p->spl);
}
