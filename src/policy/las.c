/*
 * src/policy/las.c - the preemptive orders' state and ranking (2D-LAS and
 * 2D-Gittins, Tiresias's discretised schedulers, as the Tiresias simulator
 * SymbioticLab/Tiresias simulator/run_sim.py dlas_sim_jobs and
 * get_gittins_index run them): which waiting and running jobs hold GPUs at
 * a decision. policy.c places the chosen waiting jobs and reports back
 * which of them started (nsp_las_settle); this file calls nothing of it.
 *
 * Per job (keyed by the caller's id): attained service A = GPUs x executed
 * time, from the queue (ns_queue_set_attained_ms), executed time = A /
 * GPUs. K queues (default 3) with K-1 ascending thresholds in GPU-ms
 * (default 3250 and 7200 GPU-s: the Tiresias simulator's jobs.py). A job
 * first seen enters Q0 at its end (new jobs of one decision in order of
 * arrival, then id); a running job whose GPUs x executed time since its
 * last promotion reaches its queue's threshold moves to the end of the next
 * queue (one queue per decision). At each decision the queues are walked in
 * order, Q0 first, and within a queue in its list order (2D-LAS: FIFO;
 * 2D-Gittins: by Gittins index, highest first, ties by arrival, stable); a
 * job is granted its GPUs if as many are still uncounted (resource counting
 * over the whole cluster, the simulator's "count" scheme: a job that does
 * not fit lets the next one try); running jobs not granted are suspended.
 * After the decision (assumed applied: suspends done, the placed starts
 * running) every queue moves its jobs that are not running to its end,
 * keeping their order.
 *
 * Starvation (the simulator's solve_starvation, 0 = off, its dlas-gpu
 * default): a job in Q1.. that has run since its last promotion and has
 * waited (summed over the decisions it waited through since then) at least
 * knob x its executed time since then goes back to the end of Q0.
 *
 * Gittins index (get_gittins_index / cal_r_gittins_index, reproduced with
 * their rounding): over the sorted service samples d_0..d_{n-1} (seconds of
 * GPU time: ns_policy_set_gittins_samples's; none: every index is 0 and
 * 2D-Gittins orders each queue by arrival), a job with attained a (whole
 * GPU-seconds) takes the index computed at d_i - 1 where d_i is the first
 * sample above a (0 beyond the largest); at a': i = first sample > a',
 * m = first sample > a' + delta (n - 1 if beyond), P = round((m - i) /
 * (n - i), 5), E = floor((sum d_i..d_{m-1} + delta (n - m)) / (n - i))
 * (the simulator's Python 2 divides its integers so), index = round(P 1e6 /
 * E, 4), with delta = the first threshold. (E sums the samples themselves,
 * not what remains of them, as the simulator does.)
 *
 * When to ask again (nsp_las_settle's next): where the Tiresias simulator
 * places its next check: a running job's next demotion check after
 * (threshold - executed) / GPUs seconds in integer division (Python 2's /
 * on ints) (executed time, not GPU time, subtracted from a GPU-time
 * threshold: for a multi-GPU job the check comes late, and the demotion
 * happens at the first decision at which GPUs x executed has reached the
 * threshold), a waiting job's promotion after floor(knob x executed -
 * waited) seconds.
 *
 * Moved here from src/sim/las.c (issue 28) with its arithmetic unchanged;
 * the simulator now reports executed time x GPUs as attained service.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "policy/policy_internal.h"

typedef struct nsp_lasjob {
  /* first cache line: what a decision reads of a waiting job that did not
     change (match, the counting pass, the sort's key) */
  uint64_t id;
  double att_seen;   /* the attained GPU-ms total was computed from */
  int gpus, q, running;
  int mv;       /* at a decision: queue it moves to + 1 (0: none), applied in first-seen order */
  double arrival, rank;
  double base;  /* executed ms at the latest promotion */
  double exec;  /* executed ms since it (las.c's las_exec) */
  double total; /* executed ms (las_total) */
  double pend, check; /* counted and read with starvation only */
  double exec_ranked; /* the exec rank was computed at (NAN: not yet) */
  int git_gpus;       /* and the GPUs */
  double exec_safe;   /* below it (and not below exec_ranked) the rank holds */
  double git_lo, git_hi; /* rank holds for attained GPU-s in [git_lo, git_hi) */
  size_t git_i;
} nsp_lasjob;

typedef struct nsp_laskey {
  double rank, arrival;
  int slot;
} nsp_laskey;

/* The lists a decision changes, twice: the state after the last decision
   (st[cur]) and the one this decision builds (st[1 - cur]), which
   nsp_las_settle makes current and nsp_las_restore drops. The job records
   are one slab (nsp_las.rec, by slot), changed in place: a decision copies
   a record to its undo log before it first changes it, and nsp_las_restore
   copies the logged records back. A waiting job whose queue entry is as at
   the last decision (same job handle and attained service, waiting then
   too; starvation off) is not written at all: its service and rank cannot
   have moved (most of the queue on a busy trace). A record is valid only
   for the slots the current state's run lists. */
typedef struct nsp_lasstate {
  size_t nrec; /* slots in use or free: rec[0..nrec) */
  int *run; /* slots in first-seen order (las.c's las_run) */
  size_t nrun;
  int *list[NSP_LAS_MAX_QUEUES];
  size_t nlist[NSP_LAS_MAX_QUEUES];
  int *freeslot;
  size_t nfree;
  int *qslot; /* slot of each queue index of its decision */
  size_t nq;
  size_t *qi; /* by slot: its queue index at the decision that matched it (L->seen) */
} nsp_lasstate;

/* A record as it was before the pending decision changed it. */
typedef struct nsp_lasundo {
  int slot;
  nsp_lasjob rec;
} nsp_lasundo;

/* One change of the id map by a decision, undone if it fails. */
typedef struct nsp_maplog {
  uint64_t key;
  size_t slot; /* SIZE_MAX: the key was put (undo: delete); else deleted */
} nsp_maplog;

struct nsp_las {
  nsp_lasstate st[2];
  int cur;
  nsp_lasjob *rec;    /* slab, by slot */
  nsp_lasundo *undo;  /* the pending decision's changed records, as they were */
  size_t nundo;
  size_t capslots; /* every array above and below holds capslots entries */
  double *git_d, *git_r; /* Gittins: sorted samples (GPU-s), index at each */
  size_t git_n;
  nsi_ptrmap map;   /* id + 1 -> slot of every job known (kept across decisions) */
  int max_slot;     /* slot of id UINT64_MAX (key 0), -1 if none */
  int max_slot_was; /* max_slot before the pending decision */
  nsp_maplog *log;  /* the pending decision's map changes */
  size_t nlog;
  uint64_t stamp;   /* decisions ranked */
  nsp_laskey *key;  /* 2 x capslots sort scratch */
  uint64_t *seen;   /* by slot: the decision (stamp) that matched it to the queue, read
                       without touching the record (the copy below writes it) */
  size_t *fresh;    /* queue indices first seen at this decision */
};

/* ---- Gittins index -------------------------------------------------------- */

static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double round_to(double v, double digits) {
  double f = pow(10.0, digits);
  return round(v * f) / f;
}

/* First index i >= hint in d[0..n) with d[i] > a (n if none), when the
   answer is known to be >= hint: gallops forward from hint, then bisects. */
static size_t first_above_from(const double *d, size_t n, double a, size_t hint) {
  size_t lo = hint, hi = hint, step = 1;
  while (hi < n && d[hi] <= a) {
    lo = hi + 1;
    hi = hint + step;
    step *= 2;
    if (hi > n)
      hi = n;
  }
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (d[mid] > a)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

static size_t first_above(const double *d, size_t n, double a) { return first_above_from(d, n, a, 0); }

/* cal_r_gittins_index at attained a' (seconds). */
static double gittins_at(const double *d, const double *prefix, size_t n, double delta, double a) {
  if (a > d[n - 1] - 1)
    return 0.0;
  size_t i = first_above(d, n, a);
  size_t m = a + delta > d[n - 1] - 1 ? n - 1 : first_above(d, n, a + delta);
  double p = round_to((double)(m - i) / (double)(n - i), 5);
  double esum = (prefix[m] - prefix[i]) + delta * (double)(n - m);
  double e = floor(esum / (double)(n - i) + 1e-9); /* Python 2: int / int */
  return e > 0 ? round_to(p * 1e6 / e, 4) : 0.0;
}

/* The table of indices at every sample (parse_job_dist). */
static int gittins_prepare(nsp_las *L, const ns_policy *p) {
  size_t n = p->git_nsamples;
  L->git_d = malloc((n + 1) * sizeof *L->git_d);
  L->git_r = malloc((n + 1) * sizeof *L->git_r);
  double *prefix = malloc((n + 1) * sizeof *prefix);
  if (L->git_d == NULL || L->git_r == NULL || prefix == NULL) {
    free(prefix);
    return NS_ENOMEM;
  }
  for (size_t k = 0; k < n; k++) {
    double gs = p->git_samples[k] / 1e3;
    L->git_d[k] = round(gs * 1e6) / 1e6; /* whole seconds stay whole */
  }
  qsort(L->git_d, n, sizeof *L->git_d, cmp_dbl);
  prefix[0] = 0;
  for (size_t k = 0; k < n; k++)
    prefix[k + 1] = prefix[k] + L->git_d[k];
  double delta = p->las_limit[0] / 1e3;
  for (size_t k = 0; k < n; k++)
    L->git_r[k] = gittins_at(L->git_d, prefix, n, delta, L->git_d[k] - 1);
  /* The lookup keeps the first of each run of equal samples only: the
     first sample above a is always the first of its run, so the index and
     the interval [git_lo, git_hi) a job's rank holds for are the same, and
     the search runs over the distinct samples (a quarter of the trace's). */
  size_t m = 0;
  for (size_t k = 0; k < n; k++)
    if (k == 0 || L->git_d[k] != L->git_d[k - 1])
      L->git_d[m] = L->git_d[k], L->git_r[m++] = L->git_r[k];
  L->git_r[m] = 0.0; /* attained == the largest sample: nothing above it */
  L->git_n = m;
  free(prefix);
  return NS_OK;
}

/* get_gittins_index at attained a (whole GPU-seconds), through the job's
   cache of the interval its rank holds for. */
static double gittins_index(const nsp_las *L, nsp_lasjob *j, double a) {
  if (a >= j->git_lo && a < j->git_hi)
    return j->rank;
  size_t n = L->git_n;
  double r;
  if (n == 0) {
    j->git_lo = -INFINITY, j->git_hi = INFINITY, r = 0.0;
  } else if (a > L->git_d[n - 1]) {
    j->git_lo = nextafter(L->git_d[n - 1], INFINITY), j->git_hi = INFINITY, r = 0.0;
  } else {
    size_t i = a >= j->git_hi && j->git_hi > j->git_lo ? first_above_from(L->git_d, n, a, j->git_i)
                                                       : first_above(L->git_d, n, a);
    j->git_i = i;
    j->git_lo = i > 0 ? L->git_d[i - 1] : -INFINITY;
    j->git_hi = i < n ? L->git_d[i] : nextafter(L->git_d[n - 1], INFINITY);
    r = L->git_r[i];
  }
  return r;
}

/* ---- the object ------------------------------------------------------------ */

static int gittins(const ns_policy *p) { return p->order == NS_POLICY_ORDER_2D_GITTINS; }

int nsp_las_new(ns_policy *p) {
  nsp_las *L = calloc(1, sizeof *L);
  if (L == NULL)
    return NS_ENOMEM;
  L->max_slot = -1;
  if (gittins(p) && gittins_prepare(L, p) < 0) {
    nsp_las_free(L);
    return NS_ENOMEM;
  }
  p->las = L;
  return NS_OK;
}

static void state_free(nsp_lasstate *s) {
  free(s->run), free(s->freeslot), free(s->qslot), free(s->qi);
  for (int q = 0; q < NSP_LAS_MAX_QUEUES; q++)
    free(s->list[q]);
}

void nsp_las_free(nsp_las *L) {
  if (L == NULL)
    return;
  state_free(&L->st[0]), state_free(&L->st[1]);
  free(L->git_d), free(L->git_r), free(L->key), free(L->fresh), free(L->log), free(L->seen);
  free(L->rec), free(L->undo);
  nsi_ptrmap_free(&L->map);
  free(L);
}

static int grow(void **v, size_t cap, size_t elem) {
  void *n = realloc(*v, cap * elem);
  if (n == NULL)
    return NS_ENOMEM;
  *v = n;
  return NS_OK;
}

/* Room for `need` jobs in every array (both copies, scratch). */
static int reserve(nsp_las *L, size_t need) {
  if (need <= L->capslots)
    return NS_OK;
  size_t cap = L->capslots ? L->capslots : 16;
  while (cap < need)
    cap *= 2;
  NSI_TRY(grow((void **)&L->rec, cap, sizeof *L->rec));
  memset(L->rec + L->capslots, 0, (cap - L->capslots) * sizeof *L->rec);
  NSI_TRY(grow((void **)&L->undo, cap, sizeof *L->undo)); /* a record at most once a decision */
  for (int k = 0; k < 2; k++) {
    nsp_lasstate *st = &L->st[k];
    NSI_TRY(grow((void **)&st->qi, cap, sizeof(size_t)));
    NSI_TRY(grow((void **)&st->run, cap, sizeof(int)));
    NSI_TRY(grow((void **)&st->freeslot, cap, sizeof(int)));
    NSI_TRY(grow((void **)&st->qslot, cap, sizeof(int)));
    for (int q = 0; q < NSP_LAS_MAX_QUEUES; q++)
      NSI_TRY(grow((void **)&st->list[q], cap, sizeof(int)));
  }
  NSI_TRY(grow((void **)&L->key, 2 * cap, sizeof *L->key));
  NSI_TRY(grow((void **)&L->seen, cap, sizeof *L->seen));
  memset(L->seen + L->capslots, 0, (cap - L->capslots) * sizeof *L->seen); /* stamps are >= 1 */
  NSI_TRY(grow((void **)&L->fresh, cap, sizeof *L->fresh));
  NSI_TRY(grow((void **)&L->log, 2 * cap, sizeof *L->log)); /* a put and a delete per job */
  L->capslots = cap;
  return NS_OK;
}

/* The new state's lists start as the current one's (the queue indices
   are written as the queue is matched). */
static void copy_lists(nsp_lasstate *dst, const nsp_lasstate *src) {
  memcpy(dst->run, src->run, src->nrun * sizeof *src->run);
  memcpy(dst->freeslot, src->freeslot, src->nfree * sizeof *src->freeslot);
  for (int q = 0; q < NSP_LAS_MAX_QUEUES; q++)
    memcpy(dst->list[q], src->list[q], src->nlist[q] * sizeof(int));
  dst->nrec = src->nrec, dst->nrun = src->nrun, dst->nfree = src->nfree;
  memcpy(dst->nlist, src->nlist, sizeof dst->nlist);
}

static void log_map(nsp_las *L, uint64_t key, size_t slot) {
  L->log[L->nlog].key = key, L->log[L->nlog++].slot = slot;
}

/* Drops the pending decision: the current state's lists were never
   written; the changed records are copied back and the id map's changes
   undone, last first. */
void nsp_las_restore(nsp_las *L) {
  while (L->nundo > 0) {
    const nsp_lasundo *u = &L->undo[--L->nundo];
    L->rec[u->slot] = u->rec;
  }
  while (L->nlog > 0) {
    const nsp_maplog *g = &L->log[--L->nlog];
    if (g->slot == SIZE_MAX)
      nsi_ptrmap_del(&L->map, g->key);
    else
      nsi_ptrmap_put(&L->map, g->key, g->slot); /* it held the key before: room */
  }
  L->max_slot = L->max_slot_was;
}

/* ---- one decision ------------------------------------------------------------ */

static void list_drop(int *v, size_t *n, int x) {
  for (size_t i = 0; i < *n; i++)
    if (v[i] == x) {
      memmove(v + i, v + i + 1, (*n - i - 1) * sizeof *v);
      (*n)--;
      return;
    }
}

static void move_to(nsp_las *L, nsp_lasstate *S, int slot, int q) {
  nsp_lasjob *j = &L->rec[slot];
  list_drop(S->list[j->q], &S->nlist[j->q], slot);
  j->q = q;
  S->list[q][S->nlist[q]++] = slot;
}

static int by_first_seen(const void *a, const void *b, const ns_queue *q) {
  const nsp_entry *x = &q->e[*(const size_t *)a], *y = &q->e[*(const size_t *)b];
  if (x->arrival != y->arrival)
    return x->arrival < y->arrival ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

/* insertion sort of the (few) jobs first seen at one decision */
static void sort_fresh(size_t *v, size_t n, const ns_queue *q) {
  for (size_t i = 1; i < n; i++) {
    size_t x = v[i], k = i;
    while (k > 0 && by_first_seen(&x, &v[k - 1], q) < 0) {
      v[k] = v[k - 1];
      k--;
    }
    v[k] = x;
  }
}

static int key_before(const nsp_laskey *x, const nsp_laskey *y) {
  if (x->rank != y->rank)
    return x->rank > y->rank;
  return x->arrival < y->arrival;
}

/* Stable sort of queue list v[0..n) by Gittins index: the keys are built
   as the in-order prefix is scanned (each record read once). */
static void sort_by_rank(nsp_las *L, int *v, size_t n) {
  nsp_laskey *a = L->key, *tmp = L->key + n;
  size_t k = 0;
  for (; k < n; k++) {
    const nsp_lasjob *j = &L->rec[v[k]];
    a[k].rank = j->rank, a[k].arrival = j->arrival, a[k].slot = v[k];
    if (k > 0 && key_before(&a[k], &a[k - 1]))
      break;
  }
  if (k >= n) /* already in order (most decisions): a stable sort keeps it */
    return;
  for (size_t i = k + 1; i < n; i++) {
    const nsp_lasjob *j = &L->rec[v[i]];
    a[i].rank = j->rank, a[i].arrival = j->arrival, a[i].slot = v[i];
  }
  /* Nearly in order (a few jobs' ranks moved, the waiting jobs put back
     at the end): a stable insertion sort, O(n + moves), within a budget of
     moves; past it the merge sort below finishes the job. Both are stable
     and the insertion keeps equal keys in their order, so the result is
     the stable sort's either way. A key out of place goes after every key
     of the sorted a[0..k) it is not before (those form a prefix), found by
     galloping back from k - 1 and then bisecting (O(log moves)); the keys
     after it move up at once. */
  size_t budget = 8 * n + 64, moves = 0;
  for (; k < n && moves <= budget; k++) {
    nsp_laskey x = a[k];
    if (!key_before(&x, &a[k - 1])) /* k >= 1: a[0] was in order */
      continue;
    size_t lo = 0, hi = k - 1, step = 1; /* x goes in [lo, hi]: before a[hi] */
    while (hi >= step) {
      if (!key_before(&x, &a[hi - step])) {
        lo = hi - step + 1;
        break;
      }
      hi -= step, step *= 2;
    }
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (key_before(&x, &a[mid]))
        hi = mid;
      else
        lo = mid + 1;
    }
    memmove(a + lo + 1, a + lo, (k - lo) * sizeof *a);
    a[lo] = x;
    moves += k - lo;
  }
  if (k >= n && moves <= budget) {
    for (size_t i = 0; i < n; i++)
      v[i] = a[i].slot;
    return;
  }
  for (size_t w = 1; w < n; w *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * w) {
      size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      size_t i = lo, r = mid, o = lo;
      while (i < mid && r < hi)
        tmp[o++] = key_before(&a[r], &a[i]) ? a[r++] : a[i++];
      while (i < mid)
        tmp[o++] = a[i++];
      while (r < hi)
        tmp[o++] = a[r++];
    }
    nsp_laskey *t = a;
    a = tmp, tmp = t;
  }
  for (size_t i = 0; i < n; i++)
    v[i] = a[i].slot;
}

static size_t find(const nsp_las *L, uint64_t id) {
  if (id == UINT64_MAX)
    return L->max_slot >= 0 ? (size_t)L->max_slot : SIZE_MAX;
  return nsi_ptrmap_get(&L->map, id + 1);
}

/* The slot of queue index i's id: a caller that builds its queue in the
   same order at each decision (the simulator: waiting jobs, then running
   ones) mostly lists after a job the job it listed after it last time, so
   that one is tried before the map. prev: the slot matched at i - 1 (-1:
   none or first seen). */
static size_t match(const nsp_las *L, const nsp_lasstate *old, int prev, size_t i, uint64_t id) {
  size_t at = prev >= 0 ? old->qi[prev] + 1 : i == 0 ? 0 : SIZE_MAX;
  if (at < old->nq) {
    int h = old->qslot[at];
    if (L->rec[h].id == id) /* valid: old lists it (h < old->nrec) */
      return (size_t)h;
  }
  return find(L, id);
}

/* Whether job j's Gittins rank is the one computed at exec_ranked without
   computing its attained GPU-s (a division per running job per decision):
   attained a = floor(exec / 1 s + 1e-9) x GPUs grows with exec, so from
   exec_ranked on it stays >= the start of the interval the rank holds for,
   and below exec_safe it stays below its end git_hi: with C = ceil(git_hi
   / GPUs), exec < (C - 1) s (1 - 1e-6) gives floor(...) <= C - 2 and a <=
   (C - 2) GPUs < git_hi, with a unit to spare for C's rounding. */
static int rank_holds(const nsp_lasjob *j) {
  return j->gpus == j->git_gpus &&
         (j->exec == j->exec_ranked || (j->exec > j->exec_ranked && j->exec < j->exec_safe));
}

/* Job j's service, demotion, starvation and Gittins rank up to now from its
   queue entry e (the simulator's runnable_jobs); a move to another queue is
   left in j->mv for the caller to apply in first-seen order. A waiting
   job's service has not changed: its executed time and rank are kept.
   Inlined: it runs for every queued job at every decision. */
__attribute__((always_inline)) static inline void serve(const ns_policy *p, const nsp_las *L,
                                                        nsp_lasjob *j, const nsp_entry *e,
                                                        double now) {
  int gpus = e->gpus; /* the job's, read when queued */
  if (e->attained != j->att_seen || gpus != j->gpus) {
    j->gpus = gpus, j->att_seen = e->attained;
    j->total = e->attained / gpus;
  }
  j->running = e->running;
  if (j->total < j->base)
    j->base = j->total; /* the caller lowered it: count from there */
  j->exec = j->total - j->base;
  if (j->running) {
    if (j->q < p->las_queues - 1 && j->exec * j->gpus >= p->las_limit[j->q] * (1 - 1e-12))
      j->mv = j->q + 2;
  } else if (p->starvation > 0) {
    double dt = now - j->check;
    if (j->exec > 0)
      j->pend += dt;
    if (j->q > 0 && j->total > 0 && j->exec > 0 &&
        j->pend >= j->exec * p->starvation * (1 - 1e-12)) {
      j->base = j->total, j->exec = 0, j->pend = 0;
      j->mv = 1;
    }
  }
  j->check = now;
  if (gittins(p) && !rank_holds(j)) {
    j->rank = gittins_index(L, j, floor(j->exec / 1e3 + 1e-9) * j->gpus);
    j->exec_ranked = j->exec, j->git_gpus = j->gpus;
    j->exec_safe = isinf(j->git_hi) ? INFINITY
                                    : (ceil(j->git_hi / j->gpus) - 1.0) * 1e3 * (1 - 1e-6);
  }
}

/* Record slot as it is before the pending decision changes it (once per
   decision: L->undo holds a slot at most once). */
static nsp_lasjob *changing(nsp_las *L, int slot) {
  nsp_lasundo *u = &L->undo[L->nundo++];
  u->slot = slot, u->rec = L->rec[slot];
  return &L->rec[slot];
}

int nsp_las_rank(ns_policy *p, const ns_queue *q, double now, long total_gpus, size_t *go,
                 size_t *ngo, size_t *stop, size_t *nstop, const char *fn) {
  nsp_las *L = p->las;
  const nsp_lasstate *old = &L->st[L->cur];
  /* memory first: nothing below fails */
  if (reserve(L, old->nrec + q->n + 1) < 0 || nsi_ptrmap_reserve(&L->map, q->n) < 0)
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  old = &L->st[L->cur];
  nsp_lasstate *S = &L->st[1 - L->cur];
  copy_lists(S, old);
  L->nlog = 0, L->nundo = 0, L->max_slot_was = L->max_slot;
  uint64_t stamp = ++L->stamp;
  /* a waiting job's record is left alone when its entry is as at the last
     decision: starvation off, waiting then and now, same GPUs and attained
     service (serve would write back what it holds: its rank held) */
  int keep_waiting = !(p->starvation > 0);
  /* each queued job to its record, served in place; ids must be distinct
     (SIZE_MAX - 1 in the map: first seen now) */
  size_t nfresh = 0, nmatched = 0, nmv = 0;
  int max_fresh = 0, prev = -1;
  for (size_t i = 0; i < q->n; i++) {
    const nsp_entry *e = &q->e[i];
    uint64_t id = e->id;
    size_t slot = match(L, old, prev, i, id);
    int dup = 0;
    prev = -1;
    if (slot == SIZE_MAX && id == UINT64_MAX) {
      dup = max_fresh, max_fresh = 1;
      if (!dup)
        L->fresh[nfresh++] = i;
    } else if (slot == SIZE_MAX) {
      nsi_ptrmap_put(&L->map, id + 1, SIZE_MAX - 1); /* reserved: cannot fail */
      log_map(L, id + 1, SIZE_MAX);
      L->fresh[nfresh++] = i;
    } else if (slot == SIZE_MAX - 1 || L->seen[slot] == stamp) {
      dup = 1;
    } else {
      L->seen[slot] = stamp, nmatched++;
      S->qslot[i] = (int)slot, S->qi[slot] = i;
      prev = (int)slot;
      const nsp_lasjob *r = &L->rec[slot];
      if (!(keep_waiting && !e->running && !r->running && e->attained == r->att_seen &&
            e->gpus == r->gpus)) {
        nsp_lasjob *j = changing(L, (int)slot);
        j->mv = 0;
        serve(p, L, j, e, now); /* the record is at hand: its service now */
        nmv += j->mv != 0;
      }
    }
    if (dup) {
      nsp_las_restore(L);
      return nsi_fail(NS_EINVAL, "%s: queue index %zu has id %llu, which an earlier job of the "
                                 "queue has (ids must be distinct)", fn, i, (unsigned long long)id);
    }
  }
  S->nq = q->n;
  /* jobs not in the queue have left (finished, cancelled): forgotten (none
     when every known job was matched); their records are not written */
  size_t w = nmatched == S->nrun ? S->nrun : 0;
  for (size_t r = w; r < S->nrun; r++) {
    int slot = S->run[r];
    if (L->seen[slot] == stamp) {
      S->run[w++] = slot;
      continue;
    }
    const nsp_lasjob *j = &L->rec[slot]; /* left */
    list_drop(S->list[j->q], &S->nlist[j->q], slot);
    S->freeslot[S->nfree++] = slot;
    if (j->id == UINT64_MAX) {
      L->max_slot = -1;
    } else {
      nsi_ptrmap_del(&L->map, j->id + 1);
      log_map(L, j->id + 1, (size_t)slot);
    }
  }
  S->nrun = w;
  /* jobs first seen: to the end of Q0, by arrival then id (a slot freed
     just above is the current state's record of a job that left: logged) */
  sort_fresh(L->fresh, nfresh, q);
  for (size_t k = 0; k < nfresh; k++) {
    const nsp_entry *e = &q->e[L->fresh[k]];
    int slot = S->nfree > 0 ? S->freeslot[--S->nfree] : (int)S->nrec++;
    nsp_lasjob *j = changing(L, slot);
    memset(j, 0, sizeof *j);
    j->id = e->id, j->arrival = e->arrival;
    S->qi[slot] = L->fresh[k];
    L->seen[slot] = stamp;
    j->q = 0, j->check = now;
    j->git_lo = 1, j->git_hi = 0, j->git_i = 0; /* empty: no cached index yet */
    j->rank = gittins(p) ? gittins_index(L, j, 0) : 0;
    j->att_seen = NAN, j->exec_ranked = NAN, j->exec_safe = -INFINITY;
    S->qslot[L->fresh[k]] = slot;
    S->run[S->nrun++] = slot;
    S->list[0][S->nlist[0]++] = slot;
    if (e->id == UINT64_MAX)
      L->max_slot = slot;
    else
      *nsi_ptrmap_ref(&L->map, e->id + 1) = (size_t)slot; /* put above */
    serve(p, L, j, e, now);
    nmv += j->mv != 0;
  }
  /* the moves between queues, in first-seen order (the simulator's
     runnable_jobs; a matched job was served as it was matched, a fresh one
     as it was added; a record with a move was changed, so logged) */
  for (size_t r = 0; r < S->nrun && nmv > 0; r++) {
    nsp_lasjob *j = &L->rec[S->run[r]];
    if (j->mv != 0)
      move_to(L, S, S->run[r], j->mv - 1), j->mv = 0, nmv--;
  }
  /* the counting pass */
  long free_gpus = total_gpus;
  *ngo = *nstop = 0;
  for (int k = 0; k < p->las_queues; k++) {
    if (gittins(p))
      sort_by_rank(L, S->list[k], S->nlist[k]);
    for (size_t i = 0; i < S->nlist[k]; i++) {
      int slot = S->list[k][i];
      const nsp_lasjob *j = &L->rec[slot];
      if (free_gpus >= j->gpus) {
        free_gpus -= j->gpus;
        if (!j->running)
          go[(*ngo)++] = S->qi[slot];
      } else if (j->running) {
        stop[(*nstop)++] = S->qi[slot];
      }
    }
  }
  return NS_OK;
}

double nsp_las_settle(ns_policy *p, const int *status, double now) {
  nsp_las *L = p->las;
  L->cur = 1 - L->cur, L->nlog = 0, L->nundo = 0; /* the decision stands */
  nsp_lasstate *S = &L->st[L->cur];
  /* after the decision: running = kept or started; and the next demotion
     or starvation promotion */
  /* the earliest offset from now: now + offset rounds monotonically, so
     the earliest time is now + the least offset */
  double amin = INFINITY;
  int last = p->las_queues - 1;
  for (size_t r = 0; r < S->nrun; r++) {
    int slot = S->run[r];
    nsp_lasjob *j = &L->rec[slot];
    int running = status[S->qi[slot]] == NS_OK;
    if (j->running != running) /* most do not change: their record is not written */
      j->running = running;
    if (running && j->q < last) { /* the simulator's estimate, s */
      /* a = 1e3 floor(floor(x / 1e3 + 1e-9) / GPUs + 1e-9) > (x - 1e3) / GPUs - 1e3,
         less rounding (< 1e-3 for these magnitudes): not computed when that
         bound is not below amin */
      double x = p->las_limit[j->q] - j->exec;
      if (!(x >= j->gpus * (amin + 1001.0) + 1001.0)) {
        double a = 1e3 * floor(floor(x / 1e3 + 1e-9) / j->gpus + 1e-9);
        amin = a < amin ? a : amin;
      }
    } else if (!running && p->starvation > 0 && j->q > 0 && j->total > 0 && j->exec > 0) {
      double a = 1e3 * floor((j->exec * p->starvation - j->pend) / 1e3 + 1e-9);
      amin = a < amin ? a : amin;
    }
  }
  double t = now + amin; /* INFINITY if none */
  int *wait = (int *)(void *)L->key; /* scratch: cap ints fit in 2 x cap keys */
  for (int k = 0; k < p->las_queues; k++) {
    int *v = S->list[k];
    size_t w = 0, nw = 0;
    for (size_t i = 0; i < S->nlist[k]; i++) {
      if (L->rec[v[i]].running)
        v[w++] = v[i];
      else
        wait[nw++] = v[i];
    }
    if (nw > 0)
      memcpy(v + w, wait, nw * sizeof *wait);
  }
  return t > now ? t : INFINITY;
}
