/*
 * src/vclos/search.c - exact combinatorial Stage-2 search (the alternative
 * to the Appendix A.2 ILP that ALGORITHMS.md asks for).
 *
 * For a fixed shape l x s, Stage 2 picks l leaves with >= s/T idle servers
 * and s spines such that every chosen leaf has an unused link to every
 * chosen spine (Eq. 2-5 with binary l_n, s_m), minimising objective (6)
 * sum RPN(S_m) + sum RSN(L_n) * T. For a fixed leaf set the best spines are
 * simply the s cheapest in the intersection of the leaves' spine bitsets,
 * so the search enumerates leaf subsets in cost order (depth-first,
 * candidates sorted by RSN) with three exact prunings:
 *   - a k-core reduction first: a spine reachable from fewer than l
 *     candidate leaves, or a leaf reaching fewer than s remaining spines,
 *     can never be part of a solution;
 *   - branch and bound: leaf cost so far + the cheapest possible remaining
 *     leaves + the s cheapest spines of the current intersection (which
 *     only shrinks) is a lower bound;
 *   - symmetry: leaves with equal cost and equal spine set are
 *     interchangeable, so only the first of a run is branched on.
 * The result is optimal; ties keep the first set found (cheapest leaves,
 * lowest ids). A node budget turns pathological inputs into NS_ERANGE
 * instead of an unbounded run.
 */
#include <stdlib.h>
#include <string.h>

#include "vclos/internal.h"

#define VC_SEARCH_NODE_BUDGET (1L << 24)

typedef struct vc_search_ctx {
  const vc_fabric *f;
  int l, s, W, nc;
  int *cand;         /* candidate leaves, sorted */
  uint64_t *cbits;   /* nc * W: candidates' spine sets after the reduction */
  int64_t *ccost;    /* RSN * T per candidate */
  int64_t *prefix;   /* prefix sums of ccost, nc + 1 */
  int *spine_order;  /* spines by (RPN, id) */
} vc_search_ctx;

static int popcount_and(const uint64_t *a, const uint64_t *b, uint64_t *out, int W) {
  int n = 0;
  for (int w = 0; w < W; w++) {
    out[w] = a[w] & b[w];
    n += __builtin_popcountll(out[w]);
  }
  return n;
}

/* Sum of RPN of the s cheapest spines in `set`; the spines go to `out` if
   non-NULL. */
static int64_t cheapest_spines(const vc_search_ctx *x, const uint64_t *set, int *out) {
  int64_t sum = 0;
  int taken = 0;
  for (int i = 0; i < x->f->S && taken < x->s; i++) {
    int m = x->spine_order[i];
    if (vc_bit(set, m)) {
      sum += x->f->rpn[m];
      if (out)
        out[taken] = m;
      taken++;
    }
  }
  return sum;
}

/* ---- candidate preparation ------------------------------------------------ */

typedef struct vc_key {
  int64_t cost;
  int leaf, W;
  const uint64_t *bits;
} vc_key;

/* Cost first (objective (6) favours leaves with few idle servers), then
   the spine set so that interchangeable leaves are adjacent, then id. */
static int cmp_key(const void *a, const void *b) {
  const vc_key *x = a, *y = b;
  if (x->cost != y->cost)
    return x->cost < y->cost ? -1 : 1;
  int c = memcmp(x->bits, y->bits, (size_t)x->W * sizeof(uint64_t));
  if (c != 0)
    return c;
  return (x->leaf > y->leaf) - (x->leaf < y->leaf);
}

typedef struct vc_spine_key {
  int64_t rpn;
  int m;
} vc_spine_key;

static int cmp_spine(const void *a, const void *b) {
  const vc_spine_key *x = a, *y = b;
  if (x->rpn != y->rpn)
    return x->rpn < y->rpn ? -1 : 1;
  return (x->m > y->m) - (x->m < y->m);
}

/* k-core reduction over (leaves with >= s spines) x (spines with >= l
   leaves). Shrinks `mask` and marks dropped leaves in `alive`. Returns the
   number of leaves left. */
static int reduce(const vc_fabric *f, int l, int s, uint64_t *mask, unsigned char *alive,
                  int *count, uint64_t *tmp) {
  int left = 0, changed = 1;
  for (int n = 0; n < f->L; n++)
    left += alive[n];
  while (changed && left >= l) {
    changed = 0;
    memset(count, 0, (size_t)f->S * sizeof *count);
    for (int n = 0; n < f->L; n++)
      if (alive[n])
        for (int m = 0; m < f->S; m++)
          count[m] += vc_bit(f->bits + (size_t)n * f->words, m);
    for (int m = 0; m < f->S; m++)
      if (vc_bit(mask, m) && count[m] < l) {
        mask[m >> 6] &= ~((uint64_t)1 << (m & 63));
        changed = 1;
      }
    for (int n = 0; n < f->L; n++)
      if (alive[n] && popcount_and(f->bits + (size_t)n * f->words, mask, tmp, f->words) < s) {
        alive[n] = 0;
        left--;
        changed = 1;
      }
  }
  return left;
}

static int ctx_alloc(vc_search_ctx *x, const char *fn) {
  size_t L = (size_t)x->f->L, W = (size_t)x->f->words;
  x->cand = calloc(L, sizeof *x->cand);
  x->cbits = calloc(L * W + 1, sizeof *x->cbits);
  x->ccost = calloc(L, sizeof *x->ccost);
  x->prefix = calloc(L + 1, sizeof *x->prefix);
  x->spine_order = calloc((size_t)x->f->S, sizeof *x->spine_order);
  if (!x->cand || !x->cbits || !x->ccost || !x->prefix || !x->spine_order)
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  return NS_OK;
}

static void order_spines(vc_search_ctx *x, vc_spine_key *sk) {
  for (int m = 0; m < x->f->S; m++)
    sk[m] = (vc_spine_key){x->f->rpn[m], m};
  qsort(sk, (size_t)x->f->S, sizeof *sk, cmp_spine);
  for (int m = 0; m < x->f->S; m++)
    x->spine_order[m] = sk[m].m;
}

/* The surviving leaves, their spine sets masked to the surviving spines,
   sorted by cmp_key into the context (masked sets staged in `staged`). */
static void fill_candidates(vc_search_ctx *x, const uint64_t *mask, const unsigned char *alive,
                            vc_key *keys, uint64_t *staged) {
  const vc_fabric *f = x->f;
  int W = f->words;
  x->W = W;
  x->nc = 0;
  for (int n = 0; n < f->L; n++)
    if (alive[n]) {
      uint64_t *dst = staged + (size_t)x->nc * W;
      popcount_and(f->bits + (size_t)n * W, mask, dst, W);
      keys[x->nc++] = (vc_key){(int64_t)f->idle[n] * f->T, n, W, dst};
    }
  qsort(keys, (size_t)x->nc, sizeof *keys, cmp_key);
  for (int i = 0; i < x->nc; i++) {
    x->cand[i] = keys[i].leaf;
    x->ccost[i] = keys[i].cost;
    x->prefix[i + 1] = x->prefix[i] + keys[i].cost;
    memcpy(x->cbits + (size_t)i * W, keys[i].bits, (size_t)W * sizeof *x->cbits);
  }
}

/* Fills the context's candidate arrays from the reduced fabric. */
static int prepare(vc_search_ctx *x, const char *fn) {
  const vc_fabric *f = x->f;
  size_t W = (size_t)f->words, L = (size_t)f->L;
  uint64_t *mask = calloc(W + 1, sizeof *mask), *tmp = calloc(W + 1, sizeof *tmp);
  uint64_t *staged = calloc(L * W + 1, sizeof *staged);
  unsigned char *alive = calloc(L, 1);
  int *count = calloc((size_t)f->S, sizeof *count);
  vc_key *keys = calloc(L, sizeof *keys);
  vc_spine_key *sk = calloc((size_t)f->S, sizeof *sk);
  int rc = ctx_alloc(x, fn);
  if (rc == NS_OK && (!mask || !tmp || !staged || !alive || !count || !keys || !sk))
    rc = nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  if (rc == NS_OK) {
    for (int m = 0; m < f->S; m++)
      mask[m >> 6] |= (uint64_t)1 << (m & 63);
    for (int n = 0; n < f->L; n++) /* Eq. 5: r_n <= R_n with T * r_n = s */
      alive[n] = (int64_t)f->idle[n] * f->T >= x->s;
    reduce(f, x->l, x->s, mask, alive, count, tmp);
    fill_candidates(x, mask, alive, keys, staged);
    order_spines(x, sk);
  }
  free(mask);
  free(tmp);
  free(staged);
  free(alive);
  free(count);
  free(keys);
  free(sk);
  return rc;
}

static void ctx_free(vc_search_ctx *x) {
  free(x->cand);
  free(x->cbits);
  free(x->ccost);
  free(x->prefix);
  free(x->spine_order);
}

/* ---- depth-first branch and bound --------------------------------------- */

typedef struct vc_dfs {
  int *next, *first, *chosen, *best_leaves;
  int64_t *acc, *slb;
  uint64_t *inter; /* (l + 1) * W */
  int64_t best;
  uint64_t *best_inter;
  long nodes;
} vc_dfs;

/* Sum of the costs of candidates [i, i + r): the cheapest leaves that
   could still be added after position i - 1. */
static int64_t cheapest_rest(const vc_search_ctx *x, int i, int r) {
  return x->prefix[i + r] - x->prefix[i];
}

/* Finds, at depth d, the next candidate worth branching on, fills level
   d + 1 for it and returns its index, or -1 when level d is exhausted. */
static int next_child(const vc_search_ctx *x, vc_dfs *st, int d) {
  const int W = x->W, r = x->l - d - 1;
  for (int i = st->next[d]; i < x->nc && x->nc - i >= x->l - d; i++) {
    /* sorted by cost: once the bound fails here it fails for every later i */
    if (st->acc[d] + cheapest_rest(x, i, r + 1) + st->slb[d] >= st->best)
      return -1;
    if (i > st->first[d] &&
        x->ccost[i] == x->ccost[i - 1] &&
        memcmp(x->cbits + (size_t)i * W, x->cbits + (size_t)(i - 1) * W, (size_t)W * 8) == 0)
      continue; /* symmetric to the sibling just explored */
    uint64_t *child = st->inter + (size_t)(d + 1) * W;
    if (popcount_and(st->inter + (size_t)d * W, x->cbits + (size_t)i * W, child, W) < x->s)
      continue;
    int64_t slb = cheapest_spines(x, child, NULL);
    if (st->acc[d] + x->ccost[i] + cheapest_rest(x, i + 1, r) + slb >= st->best)
      continue;
    st->next[d] = i + 1;
    st->chosen[d] = i;
    st->acc[d + 1] = st->acc[d] + x->ccost[i];
    st->slb[d + 1] = slb;
    st->next[d + 1] = st->first[d + 1] = i + 1;
    return i;
  }
  return -1;
}

static int dfs(const vc_search_ctx *x, vc_dfs *st, const char *fn) {
  int d = 0;
  st->next[0] = st->first[0] = 0;
  st->acc[0] = 0;
  for (int w = 0; w < x->W; w++)
    st->inter[w] = ~(uint64_t)0;
  st->slb[0] = 0; /* no spine bound before the first leaf */
  while (d >= 0) {
    if (d == x->l) { /* a full leaf set: its best spines are the s cheapest */
      int64_t total = st->acc[d] + st->slb[d];
      if (total < st->best) {
        st->best = total;
        for (int i = 0; i < x->l; i++)
          st->best_leaves[i] = x->cand[st->chosen[i]];
        memcpy(st->best_inter, st->inter + (size_t)d * x->W, (size_t)x->W * 8);
      }
      d--;
      continue;
    }
    if (++st->nodes > VC_SEARCH_NODE_BUDGET)
      return nsi_fail(NS_ERANGE, "%s: the exact search exceeded its budget of %ld nodes for "
                                 "a %d x %d virtual Clos; use the ILP solver", fn,
                      VC_SEARCH_NODE_BUDGET, x->l, x->s);
    d = next_child(x, st, d) >= 0 ? d + 1 : d - 1;
  }
  return NS_OK;
}

static int run(const vc_search_ctx *x, vc_choice *ch, const char *fn) {
  size_t L1 = (size_t)x->l + 1, W = (size_t)x->W;
  vc_dfs st = {0};
  st.next = calloc(L1, sizeof *st.next);
  st.first = calloc(L1, sizeof *st.first);
  st.chosen = calloc(L1, sizeof *st.chosen);
  st.best_leaves = calloc(L1, sizeof *st.best_leaves);
  st.acc = calloc(L1, sizeof *st.acc);
  st.slb = calloc(L1, sizeof *st.slb);
  st.inter = calloc(L1 * W, sizeof *st.inter);
  st.best_inter = calloc(W, sizeof *st.best_inter);
  st.best = INT64_MAX;
  int rc;
  if (!st.next || !st.first || !st.chosen || !st.best_leaves || !st.acc || !st.slb || !st.inter ||
      !st.best_inter)
    rc = nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  else
    rc = dfs(x, &st, fn);
  if (rc == NS_OK && st.best == INT64_MAX)
    rc = nsi_fail(NS_ENOSPACE, "%s: no %d leaves with %d idle servers share %d spines with "
                               "free links", fn, x->l, x->s / x->f->T, x->s);
  if (rc == NS_OK) {
    memcpy(ch->leaves, st.best_leaves, (size_t)x->l * sizeof *ch->leaves);
    qsort(ch->leaves, (size_t)x->l, sizeof *ch->leaves, nsi_cmp_int);
    cheapest_spines(x, st.best_inter, ch->spines);
    qsort(ch->spines, (size_t)x->s, sizeof *ch->spines, nsi_cmp_int);
    ch->cost = st.best;
  }
  free(st.next);
  free(st.first);
  free(st.chosen);
  free(st.best_leaves);
  free(st.acc);
  free(st.slb);
  free(st.inter);
  free(st.best_inter);
  return rc;
}

int vc_search(const vc_fabric *f, int l, int s, vc_choice *ch, const char *fn) {
  if (l < 1 || s < 1 || l > f->L || s > f->S)
    return nsi_fail(NS_ENOSPACE, "%s: a %d x %d virtual Clos does not fit %d leaves x %d "
                                 "spines", fn, l, s, f->L, f->S);
  vc_search_ctx x = {.f = f, .l = l, .s = s};
  int rc = prepare(&x, fn);
  if (rc == NS_OK && x.nc < l)
    rc = nsi_fail(NS_ENOSPACE, "%s: only %d leaves can join a %d x %d virtual Clos", fn, x.nc, l,
                  s);
  if (rc == NS_OK)
    rc = run(&x, ch, fn);
  ctx_free(&x);
  return rc;
}
