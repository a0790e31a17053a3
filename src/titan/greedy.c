/*
 * src/titan/greedy.c - Titan Algorithms 1 and 2: grow feasible worker sets
 * machine by machine, each round merging onto the machine whose feasible set
 * saves the most machines (the largest marginal gain of H, Eq. 4).
 *
 * Worker sets are contiguous runs of the traffic-aware worker order
 * (nsi_coll_order), so the workers merged onto one machine are those that
 * exchange the largest flows (Fig. 1(c): {W1,W3} and {W2,W4}).
 *
 * The bandwidth check is incremental (the paper's Alg. 1 only looks at the
 * new worker's flows to placed workers, lines 6-9): per merged phase, the
 * load on every used machine's NIC ports and every used leaf's uplinks is
 * kept; a candidate run adds only its own flows, checks the entries it
 * touched and is undone from a log. With a pair bandwidth callback the
 * loads are kept per (sender machine, receiver machine, phase) in a hash
 * table instead, against P_{s,s'} (titan.c); the dominance memo is off
 * then, since two machines with equal R_s no longer face equal limits.
 */
#include <stdlib.h>
#include <string.h>

#include "titan/tn_internal.h"

/* Per-phase loads of the placed workers, in slots (one per used machine or
   leaf), laid out [slot * P + phase] so that new slots append. */
typedef struct acc {
  int *mslot, *lslot;  /* machine / leaf -> slot or -1 */
  int nm, nl, cm, cl;  /* slots used and allocated */
  double *mo, *mi;     /* machine slot x phase: weight sent / received */
  double *lo, *li;     /* leaf slot x phase: weight leaving / entering */
  double **uptr;       /* undo log: where, old value, capacity */
  double *uold, *ucap;
  size_t nlog, cap_uptr, cap_uold, cap_ucap;
  /* pair mode: open-addressing table (sender, receiver, phase) -> load, cap */
  uint64_t *pkey;      /* 0 = empty */
  double *pload, *pcap;
  size_t psize, pused;
} acc;

static int oom(void) { return nsi_fail(NS_ENOMEM, "ns_titan_place: out of memory"); }

/* The machine -> slot map is the instance's (p->mslot, all -1 between
   greedy runs), so that a run over one leaf of 524,288 machines does not
   allocate and fill a map of all of them: only the machines holding
   workers of `a` have a slot when a run ends (a try that fails drops the
   slot it opened), and those are reset here. */
static void acc_free(acc *x, const tn_asg *a, const tn_prob *p) {
  for (int w = 0; w < p->W; w++)
    if (a->mach[w] >= 0)
      x->mslot[a->mach[w]] = -1;
  void *b[] = {x->lslot, x->mo, x->mi, x->lo, x->li, x->uptr, x->uold, x->ucap,
               x->pkey, x->pload, x->pcap};
  for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
    free(b[i]);
}

static int acc_init(acc *x, const tn_prob *p) {
  memset(x, 0, sizeof *x);
  x->mslot = p->mslot;
  x->lslot = malloc((size_t)p->L * sizeof *x->lslot);
  if (!x->lslot)
    return oom();
  memset(x->lslot, 0xff, (size_t)p->L * sizeof *x->lslot);
  return NS_OK;
}

/* Grows a pair of slot x phase tables to hold `need` slots (zeroed). */
static int grow(double **a, double **b, int *cap, int need, int P) {
  if (need <= *cap)
    return NS_OK;
  int ncap = *cap ? *cap * 2 : 16;
  while (ncap < need)
    ncap *= 2;
  /* A job without traffic has P = 0 phases; realloc(p, 0) would free the
     table and return NULL, so keep at least one column per slot. */
  size_t width = (size_t)(P > 0 ? P : 1);
  size_t n = (size_t)ncap * width, old = (size_t)*cap * width;
  double *na = realloc(*a, n * sizeof *na);
  if (na == NULL)
    return oom();
  *a = na;
  double *nb = realloc(*b, n * sizeof *nb);
  if (nb == NULL)
    return oom();
  *b = nb;
  memset(na + old, 0, (n - old) * sizeof *na);
  memset(nb + old, 0, (n - old) * sizeof *nb);
  *cap = ncap;
  return NS_OK;
}

static int slot(int *map, int key, int *n, int *cap, double **a, double **b, int P) {
  if (map[key] < 0) {
    NSI_TRY(grow(a, b, cap, *n + 1, P));
    map[key] = (*n)++;
  }
  return map[key];
}

/* Room in the undo log for `n` more entries (try_run reserves for a whole
   run up front, so that add itself cannot fail). */
static int log_reserve(acc *x, size_t n) {
  n += x->nlog;
  NSI_TRY(nsi_reserve(&x->uptr, &x->cap_uptr, n, sizeof *x->uptr));
  NSI_TRY(nsi_reserve(&x->uold, &x->cap_uold, n, sizeof *x->uold));
  return nsi_reserve(&x->ucap, &x->cap_ucap, n, sizeof *x->ucap);
}

static int add(acc *x, double *where, double w, double cap) {
  x->uptr[x->nlog] = where;
  x->uold[x->nlog] = *where;
  x->ucap[x->nlog++] = cap;
  *where += w;
  return NS_OK;
}

/* ---- pair mode: loads per (sender, receiver, phase) ---------------------- */

static size_t ptab_home(uint64_t key, size_t size) { return (size_t)nsi_hash64(key) & (size - 1); }

/* Makes room for `extra` new keys. Called only between tries (empty undo
   log), since rehashing moves the loads the log points at; entries whose
   load went back to 0 are dropped. */
static int ptab_reserve(acc *x, size_t extra) {
  if ((x->pused + extra) * 2 <= x->psize)
    return NS_OK;
  size_t live = 0;
  for (size_t i = 0; i < x->psize; i++)
    live += x->pkey[i] != 0 && x->pload[i] != 0;
  size_t size = 64;
  while (size < (live + extra) * 2)
    size *= 2;
  uint64_t *key = calloc(size, sizeof *key);
  double *load = malloc(size * sizeof *load), *cap = malloc(size * sizeof *cap);
  if (!key || !load || !cap) {
    free(key), free(load), free(cap);
    return oom();
  }
  for (size_t i = 0; i < x->psize; i++)
    if (x->pkey[i] != 0 && x->pload[i] != 0) {
      size_t h = ptab_home(x->pkey[i], size);
      while (key[h] != 0)
        h = (h + 1) & (size - 1);
      key[h] = x->pkey[i], load[h] = x->pload[i], cap[h] = x->pcap[i];
    }
  free(x->pkey), free(x->pload), free(x->pcap);
  x->pkey = key, x->pload = load, x->pcap = cap;
  x->psize = size, x->pused = live;
  return NS_OK;
}

/* Adds weight w sent from machine `from` to machine `to` in phase ph. */
static int ptab_add(acc *x, tn_prob *p, int from, int to, int ph, double w) {
  uint64_t k = ((uint64_t)ph << 44 | (uint64_t)to << 22 | (uint64_t)from) + 1;
  size_t h = ptab_home(k, x->psize);
  while (x->pkey[h] != 0 && x->pkey[h] != k)
    h = (h + 1) & (x->psize - 1);
  if (x->pkey[h] == 0) {
    NSI_TRY(tn_pair_cap(p, from, to, &x->pcap[h]));
    x->pkey[h] = k;
    x->pload[h] = 0;
    x->pused++;
  }
  return add(x, &x->pload[h], w, x->pcap[h]);
}

/* Adds one crossing flow: `s` sends (out = 1) or receives it, `o` is the
   other machine. */
static int add_flow(acc *x, tn_prob *p, int s, int o, int ph, double w, int out) {
  if (p->pair_fn != NULL)
    return out ? ptab_add(x, p, s, o, ph, w) : ptab_add(x, p, o, s, ph, w);
  int P = p->P, ss = x->mslot[s], so = x->mslot[o];
  double *ms = out ? x->mo : x->mi, *mo = out ? x->mi : x->mo;
  NSI_TRY(add(x, &ms[(size_t)ss * P + ph], w, p->R[s]));
  NSI_TRY(add(x, &mo[(size_t)so * P + ph], w, p->R[o]));
  int ls = s / p->spl, lo = o / p->spl;
  if (ls == lo)
    return NS_OK;
  int xs = x->lslot[ls], xo = x->lslot[lo];
  double *as = out ? x->lo : x->li, *ao = out ? x->li : x->lo;
  NSI_TRY(add(x, &as[(size_t)xs * P + ph], w, p->up[ls]));
  return add(x, &ao[(size_t)xo * P + ph], w, p->up[lo]);
}

static void undo(acc *x) {
  while (x->nlog > 0) {
    x->nlog--;
    *x->uptr[x->nlog] = x->uold[x->nlog];
  }
}

static int log_ok(const acc *x) {
  for (size_t i = 0; i < x->nlog; i++)
    if (*x->uptr[i] > x->ucap[i] + TN_EPS)
      return 0;
  return 1;
}

/* Alg. 1 lines 6-11 for the run order[pos, pos+g) on machine s: adds the
   run's flows to workers already placed on other machines and checks every
   load it touched. Kept if `commit` and feasible, else undone. Returns 1
   if feasible, 0 if not, <0 on error. */
static int try_run(tn_prob *p, tn_asg *a, acc *x, int s, int pos, int g, int commit) {
  if (p->bw_free) { /* every run fits (problem.c cannot_bind) */
    for (int i = pos; i < pos + g && commit; i++)
      a->mach[p->order[i]] = s;
    a->cnt[s] += commit ? g : 0;
    return 1;
  }
  int nm0 = x->nm, nl0 = x->nl, rc = NS_OK;
  for (int i = pos; i < pos + g; i++)
    a->mach[p->order[i]] = s;
  if (slot(x->mslot, s, &x->nm, &x->cm, &x->mo, &x->mi, p->P) < 0 ||
      slot(x->lslot, s / p->spl, &x->nl, &x->cl, &x->lo, &x->li, p->P) < 0)
    rc = NS_ENOMEM;
  size_t extra = 0; /* the run's incident flows: each adds <= 4 log entries */
  for (int i = pos; i < pos + g; i++)
    extra += (size_t)(p->istart[p->order[i] + 1] - p->istart[p->order[i]]);
  if (rc == NS_OK)
    rc = log_reserve(x, 4 * extra);
  if (rc == NS_OK && p->pair_fn != NULL) /* room for every flow of the run */
    rc = ptab_reserve(x, extra);
  for (int i = pos; i < pos + g && rc == NS_OK; i++) {
    int w = p->order[i];
    for (int k = p->istart[w]; k < p->istart[w + 1] && rc == NS_OK; k++) {
      const tn_inc *e = &p->inc[k];
      int mo = a->mach[e->peer];
      if (mo >= 0 && mo != s)
        rc = add_flow(x, p, s, mo, e->ph_out >> 1, e->w, e->ph_out & 1);
    }
  }
  int ok = rc == NS_OK && log_ok(x);
  if (!(commit && ok)) {
    undo(x);
    for (int i = pos; i < pos + g; i++)
      a->mach[p->order[i]] = -1;
    if (x->nm > nm0) { /* drop the slots this try opened */
      x->mslot[s] = -1;
      x->nm = nm0;
    }
    if (x->nl > nl0) {
      x->lslot[s / p->spl] = -1;
      x->nl = nl0;
    }
  } else {
    x->nlog = 0;
    a->cnt[s] += g;
  }
  return rc != NS_OK ? rc : ok;
}

/* The largest feasible run (<= ub) machine s can take: feasibility is
   monotone in the run length (flows only add), so binary search. With
   `keep`, a run of ub that fits stays placed (the round's winner: trying
   it again to commit would double the greedy's main cost). */
static int feasible_run(tn_prob *p, tn_asg *a, acc *x, int s, int pos, int ub, int keep) {
  int rc = try_run(p, a, x, s, pos, ub, keep);
  if (rc != 0)
    return rc < 0 ? rc : ub;
  int lo = 0, hi = ub - 1;
  while (lo < hi) {
    int mid = lo + (hi - lo + 1) / 2;
    rc = try_run(p, a, x, s, pos, mid, 0);
    if (rc < 0)
      return rc;
    if (rc)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* Equivalent machines within one round. Two unused machines with the same
   R_s and class face the same constraints if they share a leaf; under
   leaves without workers yet they differ only in the leaf's uplink share,
   and a larger share allows at least as long a run. So a candidate is
   skipped when an evaluated one dominates it. */
typedef struct memo {
  int n, cap;
  int *leaf, *cls, *r, *g; /* leaf = -1: a fresh leaf, with share up[] */
  double *up;
} memo;

/* 1 if an evaluated candidate dominates c (and *g gets its run length). */
static int memo_find(const memo *m, const tn_prob *p, const tn_cand *c, int fresh, int *g) {
  int l = c->s / p->spl;
  for (int i = 0; i < m->n; i++) {
    if (m->cls[i] != c->cls || m->r[i] != c->r)
      continue;
    if ((fresh && m->leaf[i] < 0 && m->up[i] >= p->up[l]) || (!fresh && m->leaf[i] == l)) {
      *g = m->g[i];
      return 1;
    }
  }
  return 0;
}

static void memo_add(memo *m, const tn_prob *p, const tn_cand *c, int fresh, int g) {
  if (m->n == m->cap)
    return; /* full: later candidates are simply evaluated */
  m->leaf[m->n] = fresh ? -1 : c->s / p->spl;
  m->cls[m->n] = c->cls;
  m->r[m->n] = c->r;
  m->up[m->n] = p->up[c->s / p->spl];
  m->g[m->n++] = g;
}

/* Evaluates candidate i: its feasible run, recorded in the memo. */
static int evaluate(tn_prob *p, tn_asg *a, acc *x, memo *m, const tn_cand *c, int pos, int keep) {
  int g = feasible_run(p, a, x, c->s, pos, c->ub, keep);
  if (g >= 0) {
    p->bw_limited |= g < c->ub;
    memo_add(m, p, c, c->loc == 0, g);
  }
  return g;
}

/* One round of Alg. 2 (lines 6-15): the machine with the largest feasible
   run. Candidates are evaluated lazily in rank order (Minoux's accelerated
   greedy): one whose run reaches its upper bound cannot be beaten by a
   later one. The top-ranked candidate comes first; only when bandwidth
   shortens its run does the walk go on down the ranking (rank.c).
   Returns the machine or -1; *err gets a failure; *placed is set when the
   top candidate's run is already placed. */
static int best_round(tn_prob *p, tn_asg *a, acc *x, memo *m, tn_rank *rk, int pos, int *gain,
                      int *err, int *placed) {
  m->n = 0;
  *gain = 0;
  tn_cand top, c;
  if (!tn_rank_begin(rk) || !tn_rank_next(rk, &top))
    return -1;
  int g = evaluate(p, a, x, m, &top, pos, 1);
  if (g < 0 || g == top.ub) {
    *err = g < 0 ? g : 0;
    *placed = g > 0;
    *gain = g;
    return g < 0 ? -1 : top.s;
  }
  tn_cand best = top;
  int have = g > 0, bestg = g;
  while (tn_rank_next(rk, &c)) {
    if (have && !(c.cls < best.cls || (c.cls == best.cls && c.ub > bestg)))
      break;
    if (memo_find(m, p, &c, c.loc == 0, &g))
      continue; /* dominated by one already evaluated */
    if ((g = evaluate(p, a, x, m, &c, pos, 0)) < 0) {
      *err = g;
      return -1;
    }
    if (g > 0 && (!have || c.cls < best.cls || g > bestg)) {
      best = c;
      have = 1;
      bestg = g;
    }
    if (g == c.ub)
      break;
  }
  *gain = bestg;
  return have ? best.s : -1;
}

static int run(tn_prob *p, tn_asg *a, acc *x, memo *m, tn_rank *rk, int *leafcnt) {
  int pos = 0;
  while (pos < p->W) { /* Alg. 2 line 5: until every worker is merged */
    int g, err = 0, placed = 0;
    int s = best_round(p, a, x, m, rk, pos, &g, &err, &placed);
    if (err < 0)
      return err;
    if (s < 0)
      return 0;
    int rc = placed ? 1 : try_run(p, a, x, s, pos, g, 1);
    if (rc <= 0)
      return rc < 0 ? rc : nsi_fail(NS_ESTATE, "ns_titan_place: internal check disagreed");
    leafcnt[s / p->spl] += g;
    pos += g;
    tn_rank_used(rk, s, p->W - pos);
  }
  return 1;
}

#define TN_MEMO 256

int tn_greedy(tn_prob *p, const unsigned char *allow, int lo, int hi, int nonidle_first,
              tn_asg *a) {
  tn_asg_reset(a, p);
  int *leafcnt = calloc((size_t)p->L, sizeof *leafcnt);
  tn_rank *rk = leafcnt ? tn_rank_new(p, allow, lo, hi, nonidle_first, leafcnt, p->W) : NULL;
  int mi[4][TN_MEMO];
  double mup[TN_MEMO];
  memo m = {0, p->pair_fn ? 0 : TN_MEMO, mi[0], mi[1], mi[2], mi[3], mup};
  acc x;
  int rc = acc_init(&x, p);
  if (rc == NS_OK && !rk)
    rc = oom();
  if (rc == NS_OK)
    rc = run(p, a, &x, &m, rk, leafcnt);
  acc_free(&x, a, p);
  tn_rank_free(rk);
  free(leafcnt);
  if (rc >= 0)
    tn_asg_score(a, p);
  return rc;
}
