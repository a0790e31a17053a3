/*
 * src/core/collective.c - per-phase pair traffic C^t_{n,n'} of the
 * collectives a job may use (Titan §II-B, §III-A; ALGORITHMS.md "titan").
 *
 * Shared by Titan, vClos and the simulator. `bytes` (K) is the model size:
 * the all-reduce message for ring, halving-doubling and tree; for all-to-all
 * it is each worker's send buffer, 1/N of it going to every peer.
 * Traffic is directed: C^t_{n,n'} is what n sends to n' in phase t; an
 * exchange (HD) carries C in each direction. The paper's "cross-machine
 * traffic" of Fig. 1 counts each exchanging pair once, i.e. half the
 * directed total.
 *
 * Exact byte chunks: K is cut into blocks b = 0..P-1 with boundaries
 * floor(b*K/P), so "K/N" and "K/2^(t+1)" are exact when divisible and the
 * per-collective totals always equal the textbook volumes:
 *   ring, HD (N = 2^k): every worker sends 2(N-1)K/N, all workers 2(N-1)K;
 *   tree: 2(N-1)K; all-to-all: (N-1)K.
 *
 * Definitions (the paper only draws HD for N = 4, Fig. 1(a)):
 * - Ring: 2(N-1) phases; worker n sends to (n+1) mod N one chunk: in
 *   reduce-scatter phase t < N-1 chunk (n-t) mod N, in all-gather phase
 *   N-1+t chunk (n+1-t) mod N (the NCCL ring).
 * - Halving-doubling, N = 2^k: 2k phases. Phase t < k: partner
 *   n XOR (N >> (t+1)), each sends the half of its current segment the
 *   partner keeps, K/2^(t+1) bytes (reduce-scatter); phase k+j mirrors
 *   phase k-1-j: partner n XOR (1 << j), each sends its 2^j reduced blocks
 *   (all-gather). N = 4 gives K/2, K/4, K/4, K/2 as in Fig. 1(a).
 * - Halving-doubling, N not a power of two (documented fallback, the
 *   Rabenseifner/MPICH scheme gloo and MPI use): with P = 2^floor(log2 N)
 *   and r = N - P, phase 0 has each even worker 2i < 2r send its whole K
 *   to 2i+1; phases 1..2k run HD among the P workers 2i+1 (i < r) and
 *   n >= 2r; phase 2k+1 returns the result K from 2i+1 to 2i. 2k+2 phases.
 * - Tree (binary, no pipelining): heap-numbered, parent (n-1)/2, depth
 *   floor(log2(n+1)), D = depth of N-1. Reduce phase t < D: workers at
 *   depth D-t send K to their parent; broadcast phase D+d: workers at depth
 *   d send K to each child. 2D phases.
 * - All-to-all, pair-wise exchange: N-1 phases; in phase t worker n sends
 *   to (n+t+1) mod N the block of its buffer destined to that peer.
 * One worker: no phases, no traffic.
 */
#include "core/collective.h"

#include "core/internal.h"

/* Boundary b of K cut into p blocks: floor(b*K/p) without overflow
   (b*(K mod p) < p^2 <= 2^44). */
static uint64_t bound(uint64_t k, uint64_t p, uint64_t b) {
  return b * (k / p) + b * (k % p) / p;
}

static uint64_t blocks_bytes(uint64_t k, uint64_t p, uint64_t lo, uint64_t len) {
  return bound(k, p, lo + len) - bound(k, p, lo);
}

static int floor_log2(unsigned v) {
  int k = 0;
  while (v >>= 1)
    k++;
  return k;
}

int nsi_coll_check(ns_collective c, int workers, const char *fn) {
  if ((int)c < NS_COLL_RING || (int)c > NS_COLL_ALL_TO_ALL)
    return nsi_fail(NS_EINVAL, "%s: c must be an ns_collective in [0, 3] (got %d)", fn, (int)c);
  return nsi_check_int(workers, 1, NSI_COLL_MAX_WORKERS, fn, "workers");
}

int nsi_coll_phases(ns_collective c, int n) {
  int k = floor_log2((unsigned)n);
  switch (c) {
  case NS_COLL_RING: return 2 * (n - 1);
  case NS_COLL_HALVING_DOUBLING: return 2 * k + ((n & (n - 1)) ? 2 : 0);
  case NS_COLL_TREE: return 2 * k; /* depth of worker n-1 is floor(log2 n) */
  case NS_COLL_ALL_TO_ALL: return n - 1;
  }
  return 0;
}

static int put(nsi_flow *out, int i, int to, uint64_t bytes) {
  if (bytes == 0)
    return i;
  out[i].to = to;
  out[i].bytes = bytes;
  return i + 1;
}

static int ring_sends(int n, uint64_t k, int t, int from, nsi_flow *out) {
  int chunk = t < n - 1 ? from - t : from + 1 - (t - (n - 1));
  chunk = ((chunk % n) + n) % n;
  return put(out, 0, (from + 1) % n, blocks_bytes(k, (uint64_t)n, (uint64_t)chunk, 1));
}

/* HD among p = 2^kk virtual ranks: what virtual rank v sends in core phase t. */
static int hd_core(int p, int kk, uint64_t k, int t, int v, int *partner, uint64_t *bytes) {
  unsigned len, lo;
  if (t < kk) { /* reduce-scatter: send the half the partner keeps */
    *partner = v ^ (p >> (t + 1));
    len = (unsigned)p >> (t + 1);
    lo = ((unsigned)*partner / len) * len;
  } else { /* all-gather: send the 2^j blocks held */
    int j = t - kk;
    *partner = v ^ (1 << j);
    len = 1u << j;
    lo = ((unsigned)v >> j) << j;
  }
  *bytes = blocks_bytes(k, (uint64_t)p, lo, len);
  return 1;
}

static int hd_sends(int n, uint64_t k, int t, int from, nsi_flow *out) {
  int kk = floor_log2((unsigned)n), p = 1 << kk, r = n - p;
  if (r > 0) {
    if (t == 0) /* fold the r extra workers into their odd neighbours */
      return (from < 2 * r && from % 2 == 0) ? put(out, 0, from + 1, k) : 0;
    if (t == 2 * kk + 1) /* hand the result back */
      return (from < 2 * r && from % 2 == 1) ? put(out, 0, from - 1, k) : 0;
    t -= 1;
    if (from < 2 * r && from % 2 == 0)
      return 0; /* folded workers sit out the core phases */
  }
  int v = from < 2 * r ? from / 2 : from - r, pv;
  uint64_t bytes;
  hd_core(p, kk, k, t, v, &pv, &bytes);
  return put(out, 0, pv < r ? 2 * pv + 1 : pv + r, bytes);
}

static int tree_sends(int n, uint64_t k, int t, int from, nsi_flow *out) {
  int d_max = floor_log2((unsigned)n), depth = floor_log2((unsigned)from + 1);
  if (t < d_max) /* reduce towards the root, deepest level first */
    return depth == d_max - t && from > 0 ? put(out, 0, (from - 1) / 2, k) : 0;
  if (depth != t - d_max)
    return 0;
  int i = 0; /* broadcast to both children */
  for (long long ch = 2LL * from + 1; ch <= 2LL * from + 2 && ch < n; ch++)
    i = put(out, i, (int)ch, k);
  return i;
}

static int a2a_sends(int n, uint64_t k, int t, int from, nsi_flow *out) {
  int to = (int)(((long long)from + t + 1) % n);
  return put(out, 0, to, blocks_bytes(k, (uint64_t)n, (uint64_t)to, 1));
}

int nsi_coll_sends(ns_collective c, int n, uint64_t bytes, int phase, int from,
                   nsi_flow out[NSI_COLL_MAX_SENDS]) {
  switch (c) {
  case NS_COLL_RING: return ring_sends(n, bytes, phase, from, out);
  case NS_COLL_HALVING_DOUBLING: return hd_sends(n, bytes, phase, from, out);
  case NS_COLL_TREE: return tree_sends(n, bytes, phase, from, out);
  case NS_COLL_ALL_TO_ALL: return a2a_sends(n, bytes, phase, from, out);
  }
  return 0;
}

static unsigned bit_reverse(unsigned v, int bits) {
  unsigned r = 0;
  for (int i = 0; i < bits; i++, v >>= 1)
    r = (r << 1) | (v & 1u);
  return r;
}

static void hd_order(int n, int *order) {
  int kk = floor_log2((unsigned)n), p = 1 << kk, r = n - p, m = 0;
  for (int i = 0; i < p; i++) {
    int v = (int)bit_reverse((unsigned)i, kk);
    order[m++] = v < r ? 2 * v + 1 : v + r;
    if (v < r) /* a folded worker sits next to the worker it folds into */
      order[m++] = 2 * v;
  }
}

/* Depth-first preorder of the heap tree without recursion: the next node
   after n is its left child, else the right sibling of the nearest ancestor
   (or n itself) that is a left child with a right sibling. */
static void tree_order(int n, int *order) {
  int cur = 0;
  for (int m = 0; m < n; m++) {
    order[m] = cur;
    if (2LL * cur + 1 < n) {
      cur = 2 * cur + 1;
      continue;
    }
    while (cur > 0 && !(cur % 2 == 1 && cur + 1 < n))
      cur = (cur - 1) / 2;
    cur = cur + 1;
  }
}

void nsi_coll_order(ns_collective c, int n, int *order) {
  if (c == NS_COLL_HALVING_DOUBLING) {
    hd_order(n, order);
  } else if (c == NS_COLL_TREE) {
    tree_order(n, order);
  } else {
    for (int i = 0; i < n; i++)
      order[i] = i;
  }
}

int ns_collective_phase_count(ns_collective c, int workers) {
  NSI_TRY(nsi_coll_check(c, workers, "ns_collective_phase_count"));
  return nsi_coll_phases(c, workers);
}

int ns_collective_traffic(ns_collective c, int workers, uint64_t bytes, int phase, int from,
                          int to, uint64_t *out_bytes) {
  static const char *fn = "ns_collective_traffic";
  NSI_TRY(nsi_coll_check(c, workers, fn));
  int t = nsi_coll_phases(c, workers);
  if (phase < 0 || phase >= t)
    return nsi_fail(NS_EINVAL, "%s: phase must be in [0, %d) for %d workers (got %d)", fn, t,
                    workers, phase);
  NSI_TRY(nsi_check_int(from, 0, workers - 1, fn, "from"));
  NSI_TRY(nsi_check_int(to, 0, workers - 1, fn, "to"));
  NSI_TRY(nsi_check_ptr(out_bytes, fn, "out_bytes"));
  nsi_flow f[NSI_COLL_MAX_SENDS];
  int nf = nsi_coll_sends(c, workers, bytes, phase, from, f);
  uint64_t sum = 0;
  for (int i = 0; i < nf; i++)
    sum += f[i].to == to ? f[i].bytes : 0;
  *out_bytes = sum;
  return NS_OK;
}

/* Walk limit of the cross-machine count (phases x workers). */
#define NSI_COLL_MAX_WALK (1LL << 26)

int ns_collective_cross_machine_bytes(const ns_job *job, const ns_placement *p,
                                      uint64_t *out_bytes) {
  static const char *fn = "ns_collective_cross_machine_bytes";
  NSI_TRY(nsi_check_ptr(job, fn, "job"));
  NSI_TRY(nsi_check_ptr(p, fn, "p"));
  NSI_TRY(nsi_check_ptr(out_bytes, fn, "out_bytes"));
  if (!p->bound)
    return nsi_fail(NS_ESTATE, "%s: p is not bound to a cluster (ns_placement_bind)", fn);
  int n = job->gpus;
  if (p->ngpus < (size_t)n)
    return nsi_fail(NS_EINVAL, "%s: p holds %zu GPUs, the job has %d workers", fn, p->ngpus, n);
  NSI_TRY(nsi_coll_check(job->collective, n, fn));
  int t_max = nsi_coll_phases(job->collective, n);
  if ((long long)t_max * n > NSI_COLL_MAX_WALK)
    return nsi_fail(NS_EUNSUPPORTED, "%s: %d phases x %d workers exceeds %lld", fn, t_max, n,
                    NSI_COLL_MAX_WALK);
  uint64_t sum = 0;
  for (int t = 0; t < t_max; t++)
    for (int w = 0; w < n; w++) {
      nsi_flow f[NSI_COLL_MAX_SENDS];
      int nf = nsi_coll_sends(job->collective, n, job->model_bytes, t, w, f);
      for (int i = 0; i < nf; i++)
        if (p->gpus[w] / p->gpus_per_server != p->gpus[f[i].to] / p->gpus_per_server)
          sum += f[i].bytes;
    }
  *out_bytes = sum;
  return NS_OK;
}
