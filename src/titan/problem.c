/*
 * src/titan/problem.c - the NIMP instance (Titan Eq. 1): a snapshot of the
 * cluster's free GPUs and bandwidth, the job's per-phase flows, the worker
 * affinity used to count cross-machine traffic, and the bandwidth check.
 */
#include <stdlib.h>
#include <string.h>

#include "titan/tn_internal.h"

/* Work limits (documented in titan.h): phases x workers walked and
   flows kept after merging. */
#define TN_MAX_WALK (1LL << 26)
#define TN_MAX_FLOWS (1 << 22)

static int oom(void) { return nsi_fail(NS_ENOMEM, "ns_titan_place: out of memory"); }

/* R_s, S_n, and each leaf's usable uplink ports. A GPU is usable when it is
   free (no job, no background load: one worker per GPU, §III-B) and has the
   job's memory. A leaf's uplinks not reserved by vClos jobs are shared in
   proportion to its free GPUs: busy GPUs' jobs keep their share. */
static int snapshot(tn_prob *p, const ns_cluster *c, const ns_job *job, uint64_t seed) {
  p->R = calloc((size_t)p->M, sizeof *p->R);
  p->idle = calloc((size_t)p->M, 1);
  p->up = calloc((size_t)p->L, sizeof *p->up);
  p->tie = malloc((size_t)p->M * sizeof *p->tie);
  if (!p->R || !p->idle || !p->up || !p->tie)
    return oom();
  int *leaf_free = calloc((size_t)p->L, sizeof *leaf_free);
  if (leaf_free == NULL)
    return oom();
  for (int s = 0; s < p->M; s++) {
    int nfree = 0, usable = 0;
    for (int g = s * p->G; g < (s + 1) * p->G; g++) {
      int f = nsi_gpu_free(c, g);
      nfree += f;
      usable += f && job->mem_mb <= c->gpu_mem_mb;
    }
    p->R[s] = usable;
    p->idle[s] = nfree == p->G;
    leaf_free[s / p->spl] += nfree;
    p->tie[s] = nsi_hash64(seed ^ nsi_hash64((uint64_t)s));
  }
  for (int l = 0; l < p->L; l++) {
    int links = nsi_leaf_free_uplinks(c, l);
    p->up[l] = (double)links * leaf_free[l] / ((double)p->spl * p->G);
  }
  free(leaf_free);
  return NS_OK;
}

/* ---- flows per merged phase ------------------------------------------- */

typedef struct flowbuf {
  int *src, *dst;
  double *w, *bytes;
  size_t n, cap_src, cap_dst, cap_w, cap_bytes;
} flowbuf;

/* Room for `more` flows (one phase's at most), reserved once per phase
   rather than four calls per flow. */
static int fb_reserve(flowbuf *f, size_t more) {
  size_t need = f->n + more;
  NSI_TRY(nsi_reserve(&f->src, &f->cap_src, need, sizeof *f->src));
  NSI_TRY(nsi_reserve(&f->dst, &f->cap_dst, need, sizeof *f->dst));
  NSI_TRY(nsi_reserve(&f->w, &f->cap_w, need, sizeof *f->w));
  return nsi_reserve(&f->bytes, &f->cap_bytes, need, sizeof *f->bytes);
}

static int fb_push(flowbuf *f, int s, int d, double bytes) {
  if (f->n >= TN_MAX_FLOWS)
    return nsi_fail(NS_EUNSUPPORTED, "ns_titan_place: job has more than %d distinct flows",
                    TN_MAX_FLOWS);
  f->src[f->n] = s;
  f->dst[f->n] = d;
  f->w[f->n] = bytes;
  f->bytes[f->n++] = bytes;
  return NS_OK;
}

/* 1 if the flows [a0, a0+n) and [b0, b0+n) join the same worker pairs. */
static int same_pattern(const flowbuf *f, size_t a0, size_t b0, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (f->src[a0 + i] != f->src[b0 + i] || f->dst[a0 + i] != f->dst[b0 + i])
      return 0;
  return 1;
}

/* Appends phase t's flows (weights C / B_t). Consecutive phases joining the
   same pairs (the ring's 2(N-1) phases, HD's two middle phases) merge into
   one, keeping each flow's larger weight: checking the merged phase is
   then at least as strict as checking each of them. */
static int add_phase(tn_prob *p, flowbuf *f, int **psp, size_t *cap_ps, ns_collective coll,
                     uint64_t bytes, int t, double port_bytes) {
  size_t start = f->n;
  double bmax = 0;
  NSI_TRY(fb_reserve(f, (size_t)p->W * NSI_COLL_MAX_SENDS));
  for (int n = 0; n < p->W; n++) {
    nsi_flow fl[NSI_COLL_MAX_SENDS];
    int nf = nsi_coll_sends(coll, p->W, bytes, t, n, fl);
    for (int i = 0; i < nf; i++) {
      NSI_TRY(fb_push(f, n, fl[i].to, (double)fl[i].bytes));
      bmax = fl[i].bytes > bmax ? (double)fl[i].bytes : bmax;
    }
  }
  size_t nflows = f->n - start;
  if (nflows == 0)
    return NS_OK;
  double unit = port_bytes > 0 ? port_bytes : bmax; /* one port's bytes in tau_t */
  for (size_t i = start; i < f->n; i++)
    f->w[i] /= unit;
  size_t prev = p->P > 0 ? (size_t)(*psp)[p->P - 1] : 0;
  if (p->P > 0 && start - prev == nflows && same_pattern(f, prev, start, nflows)) {
    for (size_t i = 0; i < nflows; i++) {
      f->w[prev + i] = f->w[prev + i] > f->w[start + i] ? f->w[prev + i] : f->w[start + i];
      f->bytes[prev + i] += f->bytes[start + i];
    }
    f->n = start;
    return NS_OK;
  }
  NSI_TRY(nsi_reserve(psp, cap_ps, (size_t)p->P + 2, sizeof **psp));
  (*psp)[p->P++] = (int)start;
  return NS_OK;
}

/* port_bytes: what one link_gbps port moves in the phase budget (0: no
   budget, each phase's unit is its largest flow B_t). */
static int build_flows(tn_prob *p, const ns_job *job, double port_bytes) {
  ns_collective coll = job->collective;
  int T = nsi_coll_phases(coll, p->W);
  if ((long long)T * p->W > TN_MAX_WALK)
    return nsi_fail(NS_EUNSUPPORTED,
                    "ns_titan_place: job too large (%d phases x %d workers exceeds %lld)", T,
                    p->W, TN_MAX_WALK);
  flowbuf f = {0};
  size_t cap_ps = (size_t)T + 2;
  int *ps = malloc(cap_ps * sizeof *ps), rc = ps ? NS_OK : oom();
  for (int t = 0; t < T && rc == NS_OK; t++)
    rc = add_phase(p, &f, &ps, &cap_ps, coll, job->model_bytes, t, port_bytes);
  if (ps)
    ps[p->P] = (int)f.n;
  p->pstart = ps;
  p->fsrc = f.src;
  p->fdst = f.dst;
  p->fw = f.w;
  p->fbytes = f.bytes;
  return rc;
}

/* Per-worker incident flows (CSR) and each flow's phase, for the greedy's
   incremental bandwidth check; `ib` gets each incident flow's bytes (for
   the affinity). One scatter pass straight into the records, flows in
   index order within each worker (the order the greedy adds them in):
   65,536 halving-doubling workers have 4M incident flows, and an index
   array gathered from afterwards cost two more random reads each. */
static int build_incidence(tn_prob *p, double **ib, int **ipeer) {
  int nf = p->pstart[p->P];
  p->istart = calloc((size_t)p->W + 1, sizeof *p->istart);
  if (p->bw_free) /* no check will read them: only the peers, for the affinity */
    *ipeer = malloc((2 * (size_t)nf + 1) * sizeof **ipeer);
  else
    p->inc = malloc((2 * (size_t)nf + 1) * sizeof *p->inc);
  *ib = malloc((2 * (size_t)nf + 1) * sizeof **ib);
  int *at = malloc(((size_t)p->W + 1) * sizeof *at);
  if (!p->istart || !(p->inc || *ipeer) || !*ib || !at) {
    free(at);
    return oom();
  }
  for (int i = 0; i < nf; i++) {
    p->istart[p->fsrc[i] + 1]++;
    p->istart[p->fdst[i] + 1]++;
  }
  for (int w = 0; w < p->W; w++)
    p->istart[w + 1] += p->istart[w];
  memcpy(at, p->istart, (size_t)p->W * sizeof *at);
  for (int ph = 0; ph < p->P && *ipeer; ph++)
    for (int i = p->pstart[ph]; i < p->pstart[ph + 1]; i++) {
      int s = p->fsrc[i], d = p->fdst[i], k = at[s]++;
      (*ipeer)[k] = d;
      (*ib)[k] = p->fbytes[i];
      k = at[d]++;
      (*ipeer)[k] = s;
      (*ib)[k] = p->fbytes[i];
    }
  for (int ph = 0; ph < p->P && p->inc; ph++)
    for (int i = p->pstart[ph]; i < p->pstart[ph + 1]; i++) {
      int s = p->fsrc[i], d = p->fdst[i], k = at[s]++;
      p->inc[k] = (tn_inc){d, ph << 1 | 1, p->fw[i]};
      (*ib)[k] = p->fbytes[i];
      k = at[d]++;
      p->inc[k] = (tn_inc){s, ph << 1 | (s == d), p->fw[i]};
      (*ib)[k] = p->fbytes[i];
    }
  free(at);
  return NS_OK;
}

/* 1 if no placement the greedy can make loads anything beyond its
   capacity, so that its bandwidth tries need not add flows (the default
   model only; not for the reference scan, which checks everything). A
   machine holds at most R_s workers and a leaf at most the usable GPUs
   under it; so if in every phase each worker sends and receives at most
   one port's weight, a machine's load stays <= R_s, and a leaf whose
   uplink share covers its usable GPUs stays within it. Halving-doubling
   without a phase budget (every flow of a phase has the phase's largest
   size: weight 1) on a fabric with an uplink per GPU is such a case. */
static int cannot_bind(const tn_prob *p) {
  if (p->pair_fn != NULL || p->scan)
    return 0;
  for (int l = 0; l < p->L; l++) {
    double usable = 0;
    for (int s = l * p->spl; s < (l + 1) * p->spl; s++)
      usable += p->R[s];
    if (usable > p->up[l])
      return 0;
  }
  double *out = calloc((size_t)p->W, sizeof *out), *in = calloc((size_t)p->W, sizeof *in);
  int ok = out && in;
  for (int ph = 0; ph < p->P && ok; ph++) {
    for (int i = p->pstart[ph]; i < p->pstart[ph + 1]; i++) {
      out[p->fsrc[i]] += p->fw[i];
      in[p->fdst[i]] += p->fw[i];
    }
    for (int i = p->pstart[ph]; i < p->pstart[ph + 1]; i++) {
      ok &= out[p->fsrc[i]] <= 1 + 1e-12 && in[p->fdst[i]] <= 1 + 1e-12;
      out[p->fsrc[i]] = in[p->fdst[i]] = 0;
    }
  }
  free(out);
  free(in);
  return ok; /* out of memory: 0, the full checks run */
}

/* Affinity CSR: per worker, each peer once with the bytes the pair
   exchanges over all phases in both directions (from the incident flows
   and their bytes ib, deduplicated with a dense scratch row). */
static int build_affinity(tn_prob *p, const double *ib, const int *ipeer) {
  int nf = p->pstart[p->P];
  p->astart = calloc((size_t)p->W + 1, sizeof *p->astart);
  p->apeer = malloc((2 * (size_t)nf + 1) * sizeof *p->apeer);
  p->abytes = malloc((2 * (size_t)nf + 1) * sizeof *p->abytes);
  int *at = malloc((size_t)p->W * sizeof *at);
  if (!p->astart || !p->apeer || !p->abytes || !at) {
    free(at);
    return oom();
  }
  for (int w = 0; w < p->W; w++)
    at[w] = -1;
  int n = 0;
  for (int w = 0; w < p->W; w++) {
    int first = n;
    for (int k = p->istart[w]; k < p->istart[w + 1]; k++) {
      int o = ipeer ? ipeer[k] : p->inc[k].peer;
      if (at[o] < first) {
        at[o] = n;
        p->apeer[n] = o;
        p->abytes[n++] = 0;
      }
      p->abytes[at[o]] += ib[k];
    }
    p->astart[w + 1] = n;
  }
  free(at);
  return NS_OK;
}

static int alloc_scratch(tn_prob *p) {
  double *ib = NULL;
  int *ipeer = NULL;
  p->bw_free = cannot_bind(p);
  int rc = build_incidence(p, &ib, &ipeer);
  if (rc == NS_OK)
    rc = build_affinity(p, ib, ipeer);
  free(ib);
  free(ipeer);
  free(p->fbytes); /* only the affinity needed them: lower peak memory */
  p->fbytes = NULL;
  NSI_TRY(rc);
  p->mout = calloc((size_t)p->M, sizeof *p->mout);
  p->min = calloc((size_t)p->M, sizeof *p->min);
  p->lout = calloc((size_t)p->L, sizeof *p->lout);
  p->lin = calloc((size_t)p->L, sizeof *p->lin);
  p->order = malloc((size_t)p->W * sizeof *p->order);
  size_t nt = (size_t)p->pstart[p->P] * 2 + 1;
  p->touched = malloc(nt * sizeof *p->touched);
  p->mslot = malloc((size_t)p->M * sizeof *p->mslot);
  if (!p->mout || !p->min || !p->lout || !p->lin || !p->order || !p->touched || !p->mslot)
    return oom();
  memset(p->mslot, 0xff, (size_t)p->M * sizeof *p->mslot);
  return NS_OK;
}

int tn_prob_init(tn_prob *p, const ns_cluster *c, const ns_job *job, const ns_titan_opts *o) {
  memset(p, 0, sizeof *p);
  p->W = job->gpus;
  p->M = c->nservers;
  p->G = c->gpus_per_server;
  p->L = c->leaves;
  p->spl = c->servers_per_leaf;
  p->pair_fn = o->pair_fn;
  p->pair_user = o->pair_user;
  p->scan = o->scan;
  p->link_gbps = c->link_gbps;
  /* Gbps x ms = 1e9 / 8 bytes/s x 1e-3 s = 1.25e5 bytes */
  double port_bytes = o->budget_ms > 0 ? c->link_gbps * o->budget_ms * 1.25e5 : 0;
  int rc = snapshot(p, c, job, o->seed);
  if (rc == NS_OK)
    rc = build_flows(p, job, port_bytes);
  if (rc == NS_OK && p->pair_fn != NULL && p->P >= (1 << 20)) /* ptab_add's key layout */
    rc = nsi_fail(NS_EUNSUPPORTED, "ns_titan_place: %d phases with a pair bandwidth fn "
                                   "(at most %d)", p->P, (1 << 20) - 1);
  if (rc == NS_OK)
    rc = alloc_scratch(p);
  if (rc == NS_OK)
    nsi_coll_order(job->collective, p->W, p->order);
  if (rc != NS_OK)
    tn_prob_free(p);
  return rc;
}

void tn_prob_free(tn_prob *p) {
  void *bufs[] = {p->R,      p->idle,   p->up,  p->pstart, p->fsrc, p->fdst, p->fw,
                  p->astart, p->apeer,  p->abytes, p->order, p->tie, p->mout, p->min,
                  p->lout,   p->lin,    p->touched, p->istart, p->fbytes, p->inc, p->mslot};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
    free(bufs[i]);
  memset(p, 0, sizeof *p);
}

/* ---- assignments ---------------------------------------------------------- */

int tn_asg_init(tn_asg *a, const tn_prob *p) {
  a->mach = malloc((size_t)p->W * sizeof *a->mach);
  a->cnt = calloc((size_t)p->M, sizeof *a->cnt);
  if (!a->mach || !a->cnt) {
    tn_asg_free(a);
    return oom();
  }
  for (int w = 0; w < p->W; w++)
    a->mach[w] = -1;
  a->used = a->idle_used = 0;
  a->cross = 0;
  return NS_OK;
}

void tn_asg_free(tn_asg *a) {
  free(a->mach);
  free(a->cnt);
  a->mach = NULL;
  a->cnt = NULL;
}

/* The assignment operations cost O(W), not O(M): cnt[s] is always the
   number of workers w with mach[w] == s, so the machines in use are found
   through mach (per_leaf runs the greedy once per leaf: 4,096 times on
   the 2^22-GPU fabric). */
void tn_asg_reset(tn_asg *a, const tn_prob *p) {
  for (int w = 0; w < p->W; w++) {
    if (a->mach[w] >= 0)
      a->cnt[a->mach[w]] = 0;
    a->mach[w] = -1;
  }
  a->used = a->idle_used = 0;
  a->cross = 0;
}

int tn_asg_copy(tn_asg *dst, const tn_asg *src, const tn_prob *p) {
  tn_asg_reset(dst, p);
  memcpy(dst->mach, src->mach, (size_t)p->W * sizeof *dst->mach);
  for (int w = 0; w < p->W; w++)
    if (src->mach[w] >= 0)
      dst->cnt[src->mach[w]] = src->cnt[src->mach[w]];
  dst->used = src->used;
  dst->idle_used = src->idle_used;
  dst->cross = src->cross;
  return NS_OK;
}

void tn_asg_score(tn_asg *a, const tn_prob *p) {
  a->used = a->idle_used = 0;
  for (int w = 0; w < p->W; w++) { /* each used machine once: its count negated */
    int s = a->mach[w];
    if (s >= 0 && a->cnt[s] > 0) {
      a->used++;
      a->idle_used += p->idle[s];
      a->cnt[s] = -a->cnt[s];
    }
  }
  for (int w = 0; w < p->W; w++)
    if (a->mach[w] >= 0 && a->cnt[a->mach[w]] < 0)
      a->cnt[a->mach[w]] = -a->cnt[a->mach[w]];
  double cross = 0;
  for (int w = 0; w < p->W; w++)
    for (int i = p->astart[w]; i < p->astart[w + 1]; i++)
      if (a->mach[w] != a->mach[p->apeer[i]])
        cross += p->abytes[i];
  a->cross = cross / 2; /* each pair was visited from both ends */
}

int tn_asg_cmp(const tn_asg *a, const tn_asg *b) {
  if (a->idle_used != b->idle_used)
    return a->idle_used < b->idle_used ? -1 : 1;
  if (a->used != b->used)
    return a->used < b->used ? -1 : 1;
  if (a->cross != b->cross)
    return a->cross < b->cross ? -1 : 1;
  return 0;
}

/* ---- the bandwidth constraint -------------------------------------------- */

int tn_pair_fail(const tn_prob *p) {
  return nsi_fail(NS_EINVAL, "ns_titan_place: the pair bandwidth fn returned %g for servers %d "
                             "and %d (must be >= 0 Gbps, or infinity)", p->cb_val, p->cb_a,
                  p->cb_b);
}

int tn_pair_cap(tn_prob *p, int a, int b, double *cap) {
  double gbps = p->pair_fn(a, b, p->pair_user);
  if (!(gbps >= 0)) { /* NaN or negative */
    p->cb_err = NS_EINVAL, p->cb_a = a, p->cb_b = b, p->cb_val = gbps;
    return tn_pair_fail(p);
  }
  *cap = gbps / p->link_gbps;
  return NS_OK;
}

typedef struct tn_pair_load {
  uint64_t key; /* sender << 32 | receiver */
  double w;
} tn_pair_load;

static int cmp_pair_load(const void *x, const void *y) {
  uint64_t a = ((const tn_pair_load *)x)->key, b = ((const tn_pair_load *)y)->key;
  return (a > b) - (a < b);
}

/* One merged phase against P_{s,s'} (pair_fn): the weight machine s sends
   to machine s' must fit P_{s,s'} / link_gbps ports. */
static int phase_ok_pairs(tn_prob *p, const tn_asg *a, int ph) {
  int n = 0, ok = 1;
  size_t cap = (size_t)(p->pstart[ph + 1] - p->pstart[ph]) + 1;
  tn_pair_load *v = malloc(cap * sizeof *v);
  if (v == NULL) { /* refused: the caller's result stands or is NS_ENOSPACE */
    nsi_fail(NS_ENOMEM, "ns_titan_place: out of memory");
    return 0;
  }
  for (int i = p->pstart[ph]; i < p->pstart[ph + 1]; i++) {
    int ms = a->mach[p->fsrc[i]], md = a->mach[p->fdst[i]];
    if (ms >= 0 && md >= 0 && ms != md)
      v[n++] = (tn_pair_load){(uint64_t)ms << 32 | (uint64_t)md, p->fw[i]};
  }
  qsort(v, (size_t)n, sizeof *v, cmp_pair_load);
  for (int i = 0; i < n && ok;) {
    double sum = 0, pc = 0;
    int j = i;
    for (; j < n && v[j].key == v[i].key; j++)
      sum += v[j].w;
    if (tn_pair_cap(p, (int)(v[i].key >> 32), (int)(v[i].key & 0xffffffffu), &pc) != NS_OK ||
        sum > pc + TN_EPS)
      ok = 0;
    i = j;
  }
  free(v);
  return ok;
}

/* One merged phase: every machine's NIC ports (R_s, one per usable GPU,
   pooled) bound the weight it sends and receives; every leaf's uplink
   share bounds the weight leaving and entering it. */
static int phase_ok(tn_prob *p, const tn_asg *a, int ph) {
  if (p->pair_fn != NULL)
    return phase_ok_pairs(p, a, ph);
  int nt = 0, ok = 1;
  for (int i = p->pstart[ph]; i < p->pstart[ph + 1]; i++) {
    int ms = a->mach[p->fsrc[i]], md = a->mach[p->fdst[i]];
    if (ms < 0 || md < 0 || ms == md)
      continue;
    p->mout[ms] += p->fw[i];
    p->min[md] += p->fw[i];
    p->touched[nt++] = ms;
    p->touched[nt++] = md;
    int ls = ms / p->spl, ld = md / p->spl;
    if (ls != ld) {
      p->lout[ls] += p->fw[i];
      p->lin[ld] += p->fw[i];
    }
  }
  for (int i = 0; i < nt; i++) {
    int s = p->touched[i], l = s / p->spl;
    if (p->mout[s] > p->R[s] + TN_EPS || p->min[s] > p->R[s] + TN_EPS ||
        p->lout[l] > p->up[l] + TN_EPS || p->lin[l] > p->up[l] + TN_EPS)
      ok = 0;
  }
  for (int i = 0; i < nt; i++) {
    int s = p->touched[i];
    p->mout[s] = p->min[s] = 0;
    p->lout[s / p->spl] = p->lin[s / p->spl] = 0;
  }
  return ok;
}

int tn_feasible(tn_prob *p, const tn_asg *a) {
  for (int ph = 0; ph < p->P; ph++)
    if (!phase_ok(p, a, ph))
      return 0;
  return 1;
}
