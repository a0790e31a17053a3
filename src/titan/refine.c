/*
 * src/titan/refine.c - cross-traffic refinement (ours, not in the paper's
 * pseudo-code; motivated by §II-C and Fig. 1(c)).
 *
 * Alg. 2 always gives a machine as many workers as it can take, so in
 * Fig. 1 it fills machine 2 with three workers and pays 3K/2 where the
 * paper's Titan pays K. Among placements no worse in (O1, O2) we therefore
 * also minimise cross-machine traffic: an exact dynamic program cuts the
 * traffic-aware worker order into contiguous blocks, one per machine of a
 * bounded pool, minimising (idle machines, machines, -bytes kept inside
 * machines) lexicographically. The pool is the greedy's allowed set
 * (non-idle machines and the idle machines Alg. 3 chose), at most
 * best.used machines per (idle, R_s) class, in decreasing R_s so that the
 * big blocks come first (aligned halving-doubling subcubes). The result is
 * kept only if it passes the bandwidth check and is strictly better.
 */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "titan/tn_internal.h"

/* Skip the DP when (pool + 1) * (W + 1) states exceed this. */
#define TN_DP_MAX_STATES (1L << 22)

typedef struct pm {
  int s, r, idle, pref;
  uint64_t tie;
} pm;

static int pm_cmp(const void *x, const void *y) {
  const pm *a = x, *b = y;
  if (a->r != b->r)
    return b->r - a->r;
  if (a->idle != b->idle)
    return a->idle - b->idle;
  if (a->pref != b->pref)
    return b->pref - a->pref;
  if (a->tie != b->tie)
    return a->tie < b->tie ? -1 : 1;
  return a->s - b->s;
}

/* The pool, sorted; at most `per_class` machines of each (R_s, idle). */
static int build_pool(const tn_prob *p, const tn_asg *best, pm *pool) {
  unsigned char *leaf_used = calloc((size_t)p->L, 1);
  if (leaf_used == NULL)
    return -1;
  for (int s = 0; s < p->M; s++)
    if (best->cnt[s] > 0)
      leaf_used[s / p->spl] = 1;
  int n = 0;
  for (int s = 0; s < p->M; s++) {
    if (p->R[s] == 0 || (p->idle[s] && best->cnt[s] == 0))
      continue;
    pm *m = &pool[n++];
    m->s = s;
    m->r = p->R[s];
    m->idle = p->idle[s];
    m->pref = 2 * (best->cnt[s] > 0) + leaf_used[s / p->spl];
    m->tie = p->tie[s];
  }
  free(leaf_used);
  qsort(pool, (size_t)n, sizeof *pool, pm_cmp);
  int kept = 0, run = 0;
  for (int i = 0; i < n; i++) {
    run = (i > 0 && pool[i].r == pool[i - 1].r && pool[i].idle == pool[i - 1].idle) ? run + 1 : 0;
    if (run < best->used)
      pool[kept++] = pool[i];
  }
  return kept;
}

/* inner[j * (G+1) + c]: bytes exchanged inside the block order[j, j+c). */
static double *inner_table(const tn_prob *p) {
  int G1 = p->G + 1;
  double *t = calloc((size_t)(p->W + 1) * (size_t)G1, sizeof *t);
  int *pos = malloc((size_t)p->W * sizeof *pos);
  if (!t || !pos) {
    free(t);
    free(pos);
    return NULL;
  }
  for (int i = 0; i < p->W; i++)
    pos[p->order[i]] = i;
  for (int j = 0; j < p->W; j++)
    for (int c = 1; c <= p->G && j + c <= p->W; c++) {
      int w = p->order[j + c - 1];
      double add = 0;
      for (int i = p->astart[w]; i < p->astart[w + 1]; i++)
        add += pos[p->apeer[i]] >= j && pos[p->apeer[i]] < j + c - 1 ? p->abytes[i] : 0;
      t[(size_t)j * G1 + c] = t[(size_t)j * G1 + c - 1] + add;
    }
  free(pos);
  return t;
}

typedef struct st {
  int idle, used;
  double in;
} st;

static int st_better(st a, st b) {
  if (a.idle != b.idle)
    return a.idle < b.idle;
  if (a.used != b.used)
    return a.used < b.used;
  return a.in > b.in;
}

/* dp over (pool prefix i, workers j); choice[] keeps the block size. */
static int run_dp(const tn_prob *p, const pm *pool, int np, const double *inner, st *dp,
                  unsigned char *choice) {
  size_t W1 = (size_t)p->W + 1, G1 = (size_t)p->G + 1;
  const st inf = {INT32_MAX, INT32_MAX, -DBL_MAX};
  for (size_t x = 0; x < (size_t)(np + 1) * W1; x++)
    dp[x] = inf;
  dp[0] = (st){0, 0, 0};
  for (int i = 0; i < np; i++)
    for (int j = 0; j <= p->W; j++) {
      st cur = dp[(size_t)i * W1 + j];
      if (cur.used == INT32_MAX)
        continue;
      for (int c = 0; c <= pool[i].r && j + c <= p->W; c++) {
        st nx = {cur.idle + (c > 0 && pool[i].idle), cur.used + (c > 0),
                 cur.in + inner[(size_t)j * G1 + c]};
        size_t k = (size_t)(i + 1) * W1 + j + c;
        if (st_better(nx, dp[k])) {
          dp[k] = nx;
          choice[k] = (unsigned char)c;
        }
      }
    }
  return dp[(size_t)np * W1 + p->W].used != INT32_MAX;
}

static void backtrack(const tn_prob *p, const pm *pool, int np, const unsigned char *choice,
                      tn_asg *a) {
  size_t W1 = (size_t)p->W + 1;
  tn_asg_reset(a, p);
  int j = p->W;
  for (int i = np; i > 0; i--) {
    int c = choice[(size_t)i * W1 + j];
    for (int x = j - c; x < j; x++)
      a->mach[p->order[x]] = pool[i - 1].s;
    a->cnt[pool[i - 1].s] += c;
    j -= c;
  }
  tn_asg_score(a, p);
}

int tn_refine(tn_prob *p, tn_asg *best) {
  if (p->G > 255)
    return NS_OK; /* block sizes are kept in a byte */
  /* The pool keeps min(class size, best.used) machines of each class, and
     best's machines are in it: at least best.used machines. Too many DP
     states even then: skip before building and sorting the pool (every
     machine of a 2^22-GPU fabric can be in it). */
  if ((long)(best->used + 1) * (p->W + 1) > TN_DP_MAX_STATES)
    return NS_OK;
  pm *pool = malloc((size_t)p->M * sizeof *pool);
  if (pool == NULL)
    return nsi_fail(NS_ENOMEM, "ns_titan_place: out of memory");
  int np = build_pool(p, best, pool), rc = NS_OK;
  if (np < 0 || (long)(np + 1) * (p->W + 1) > TN_DP_MAX_STATES) {
    free(pool);
    return np < 0 ? nsi_fail(NS_ENOMEM, "ns_titan_place: out of memory") : NS_OK;
  }
  size_t n = (size_t)(np + 1) * ((size_t)p->W + 1);
  st *dp = malloc(n * sizeof *dp);
  unsigned char *choice = calloc(n, 1);
  double *inner = inner_table(p);
  tn_asg cand = {0};
  if (!dp || !choice || !inner || tn_asg_init(&cand, p) != NS_OK) {
    rc = nsi_fail(NS_ENOMEM, "ns_titan_place: out of memory");
  } else if (run_dp(p, pool, np, inner, dp, choice)) {
    backtrack(p, pool, np, choice, &cand);
    if (tn_asg_cmp(&cand, best) < 0 && tn_feasible(p, &cand))
      tn_asg_copy(best, &cand, p);
  }
  tn_asg_free(&cand);
  free(dp);
  free(choice);
  free(inner);
  free(pool);
  return rc;
}
