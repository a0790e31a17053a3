/*
 * src/dally/pick.c - which GPUs an accepted offer (or a baseline) takes.
 *
 * An offer is the set of GPUs that can host the job now. Within the tier
 * Algorithm 1 accepts, GPUs are chosen best-fit and deterministically:
 *   - one bin (machine or rack): the bin with the fewest free GPUs that
 *     still holds the job (fewest left over), ties to the lowest id;
 *   - several bins (servers of a rack, racks of the network, servers of
 *     the cluster for the baselines): the fewest bins possible and, among
 *     those, the least overshoot (free GPUs of the chosen bins - demand),
 *     found exactly by a bitset DP; ties go to smaller bins so large ones
 *     stay whole. Bins are filled smallest first (ties: lowest id); only
 *     the last is used partly. Beyond a work bound (~4M word operations)
 *     a greedy answers instead (smallest feasible bin first): still the
 *     fewest bins, overshoot not guaranteed minimal;
 *   - inside a server: its lowest-numbered GPUs that can host the job.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dally/dally_internal.h"

int nsd_check_job(const ns_cluster *c, const ns_job *job, const char *fn) {
  NSI_TRY(nsi_check_ptr(c, fn, "c"));
  NSI_TRY(nsi_check_ptr(job, fn, "job"));
  return nsi_check_job_fits(c, job, fn);
}

int nsd_view_init(nsd_view *v, const ns_cluster *c, double mem_mb, const char *fn) {
  v->c = c;
  v->mem_mb = mem_mb;
  v->total = 0;
  v->server_free = calloc((size_t)c->nservers, sizeof *v->server_free);
  v->rack_free = calloc((size_t)c->leaves, sizeof *v->rack_free);
  if (v->server_free == NULL || v->rack_free == NULL) {
    nsd_view_free(v);
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  }
  for (int g = 0; g < c->ngpus; g++)
    if (nsi_gpu_can_host(c, g, mem_mb))
      v->server_free[nsi_server_of_gpu(c, g)]++;
  for (int s = 0; s < c->nservers; s++) {
    v->rack_free[nsi_leaf_of_server(c, s)] += v->server_free[s];
    v->total += v->server_free[s];
  }
  return NS_OK;
}

void nsd_view_free(nsd_view *v) {
  free(v->server_free);
  free(v->rack_free);
  v->server_free = v->rack_free = NULL;
}

int nsd_best_bin(const int *free_units, int n, int need) {
  int best = -1;
  for (int i = 0; i < n; i++)
    if (free_units[i] >= need && (best < 0 || free_units[i] < free_units[best]))
      best = i;
  return best;
}

/* Bins grouped by free units: value v's bins, ascending id, are
   order[next[v] .. next[v] + cnt[v]). */
typedef struct buckets {
  int cap;
  int *cnt, *next, *order;
} buckets;

static int buckets_init(buckets *b, const int *free_units, int n) {
  b->cap = 0;
  for (int i = 0; i < n; i++)
    if (free_units[i] > b->cap)
      b->cap = free_units[i];
  b->cnt = calloc((size_t)b->cap + 1, sizeof *b->cnt);
  b->next = calloc((size_t)b->cap + 1, sizeof *b->next);
  b->order = malloc((size_t)(n ? n : 1) * sizeof *b->order);
  if (b->cnt == NULL || b->next == NULL || b->order == NULL)
    return NS_ENOMEM;
  for (int i = 0; i < n; i++)
    b->cnt[free_units[i]]++;
  for (int v = 1; v <= b->cap; v++)
    b->next[v] = b->next[v - 1] + b->cnt[v - 1];
  for (int i = 0; i < n; i++) /* stable: ids ascend within a value */
    b->order[b->next[free_units[i]]++] = i;
  for (int v = 0; v <= b->cap; v++) /* rewind the cursors */
    b->next[v] -= b->cnt[v];
  return NS_OK;
}

static void buckets_free(buckets *b) {
  free(b->cnt);
  free(b->next);
  free(b->order);
}

/* The fewest remaining bins j that cover r; the sums of the largest j-1 and
   j bins, and the (j-1)-th largest value a (0 when j == 1). */
typedef struct cover {
  int j, a;
  long long top_prev, top;
} cover;

static cover fewest_bins(const buckets *b, int r) {
  cover cv = {0, 0, 0, 0};
  int prev_v = 0;
  for (int v = b->cap; v >= 1; v--) {
    if (b->cnt[v] == 0)
      continue;
    if (cv.top + (long long)b->cnt[v] * v >= r) {
      long long m = (r - cv.top + v - 1) / v; /* copies of v needed */
      cv.j += (int)m;
      cv.top_prev = cv.top + (m - 1) * v;
      cv.top += m * v;
      cv.a = m >= 2 ? v : prev_v;
      return cv;
    }
    cv.top += (long long)b->cnt[v] * v;
    cv.j += b->cnt[v];
    prev_v = v;
  }
  return cv; /* unreachable when the bins cover r */
}

/* Smallest value v whose bin can be taken while the other remaining bins
   still cover r - v with j - 1 bins. */
static int smallest_feasible(const buckets *b, const cover *cv, int r) {
  for (int v = 1; v <= b->cap; v++) {
    if (b->cnt[v] == 0)
      continue;
    /* Largest j-1 of the others: removing one v changes them only if v is
       among the largest j-1 values. */
    long long rest = cv->j == 1 ? 0 : (v >= cv->a ? cv->top - v : cv->top_prev);
    if (r - v <= rest)
      return v;
  }
  return b->cap; /* unreachable: the largest bin is always feasible */
}

/* Greedy fallback for covers too large for the exact search: smallest
   feasible bin first. Still the fewest bins; the overshoot may not be
   minimal. */
static int pick_greedy(buckets *b, int need, int *bins, int *takes) {
  int k = 0;
  for (int r = need; r > 0; k++) {
    cover cv = fewest_bins(b, r);
    int v = smallest_feasible(b, &cv, r);
    bins[k] = b->order[b->next[v]++];
    b->cnt[v]--;
    takes[k] = v < r ? v : r;
    r -= takes[k];
  }
  return k;
}

/* ---- exact cover: fewest bins, then the least overshoot ---------------

   With k the fewest bins, the best k-subset's sum S lies in [need,
   need + cap - 1] (the greedy shows one below need + cap exists). A bitset
   DP over value groups 1..cap keeps, for each count j <= k, the sums
   reachable with j bins (snap[v][j]: groups 1..v); the smallest reachable
   S >= need with k bins is optimal. Backtracking from the largest value
   takes the fewest bins of each large value that still reach S, so ties go
   to smaller bins and large ones stay whole for later jobs. */
typedef uint64_t word;

enum {
  NSD_EXACT_WORK = 1 << 22, /* word operations (~ms) */
  NSD_EXACT_MEM = 1 << 18   /* snapshot words (2 MiB) */
};

static void shl_or(word *dst, const word *src, int nw, int v) {
  int ws = v / 64, bs = v % 64;
  for (int i = nw - 1; i >= ws; i--) {
    word x = src[i - ws] << bs;
    if (bs && i - ws - 1 >= 0)
      x |= src[i - ws - 1] >> (64 - bs);
    dst[i] |= x;
  }
}

static int bit(const word *row, int s) { return (int)((row[s / 64] >> (s % 64)) & 1u); }

typedef struct dp {
  int cap, k, nw;
  word *snap; /* (cap + 1) x (k + 1) x nw */
} dp;

static word *row(const dp *d, int v, int j) {
  return d->snap + ((size_t)v * (size_t)(d->k + 1) + (size_t)j) * (size_t)d->nw;
}

static void dp_fill(dp *d, const buckets *b) {
  row(d, 0, 0)[0] = 1; /* zero bins, sum 0 */
  size_t layer = (size_t)(d->k + 1) * (size_t)d->nw;
  for (int v = 1; v <= d->cap; v++) {
    memcpy(row(d, v, 0), row(d, v - 1, 0), layer * sizeof(word));
    int copies = b->cnt[v] < d->k ? b->cnt[v] : d->k;
    for (int c = 0; c < copies; c++)
      for (int j = d->k; j >= 1; j--)
        shl_or(row(d, v, j), row(d, v, j - 1), d->nw, v);
  }
}

/* m[v] = how many bins of value v the optimum takes; returns its sum. */
static int dp_backtrack(const dp *d, const buckets *b, int need, int *m) {
  int best = need;
  while (!bit(row(d, d->cap, d->k), best))
    best++; /* exists: k bins can cover need within need + cap - 1 */
  int j = d->k, s = best;
  for (int v = d->cap; v >= 1; v--) {
    int most = b->cnt[v] < j ? b->cnt[v] : j;
    m[v] = 0;
    while (m[v] < most && (s - m[v] * v < 0 || !bit(row(d, v - 1, j - m[v]), s - m[v] * v)))
      m[v]++;
    j -= m[v];
    s -= m[v] * v;
  }
  return best;
}

/* Emits the chosen bins smallest value first (ties: lowest id); all are
   used whole except the last, which gives what is left of need. */
static int emit(const buckets *b, const int *m, int need, int *bins, int *takes) {
  int k = 0, r = need;
  for (int v = 1; v <= b->cap; v++)
    for (int c = 0; c < m[v]; c++) {
      bins[k] = b->order[b->next[v] + c];
      takes[k] = v < r ? v : r;
      r -= takes[k++];
    }
  return k;
}

/* Exact cover if within the work bounds: k bins, or 0 to fall back. */
static int pick_exact(const buckets *b, int need, int k, int *bins, int *takes,
                      const char *fn) {
  long long copies = 0;
  for (int v = 1; v <= b->cap; v++)
    copies += b->cnt[v] < k ? b->cnt[v] : k;
  dp d = {b->cap, k, (need + b->cap) / 64 + 1, NULL};
  long long mem = (long long)(d.cap + 1) * (d.k + 1) * d.nw;
  if (copies * d.k * d.nw > NSD_EXACT_WORK || mem > NSD_EXACT_MEM)
    return 0;
  d.snap = calloc((size_t)mem, sizeof(word));
  int *m = malloc(((size_t)b->cap + 1) * sizeof *m);
  if (d.snap == NULL || m == NULL) {
    free(d.snap);
    free(m);
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  }
  dp_fill(&d, b);
  dp_backtrack(&d, b, need, m);
  int got = emit(b, m, need, bins, takes);
  free(d.snap);
  free(m);
  return got;
}

int nsd_pick_bins_bounded(const int *free_units, int n, int need, int exact, int *bins,
                          int *takes, const char *fn) {
  long long total = 0;
  for (int i = 0; i < n; i++)
    total += free_units[i];
  if (total < need)
    return 0;
  buckets b;
  if (buckets_init(&b, free_units, n) < 0) {
    buckets_free(&b);
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  }
  int k = exact ? pick_exact(&b, need, fewest_bins(&b, need).j, bins, takes, fn) : 0;
  if (k == 0)
    k = pick_greedy(&b, need, bins, takes);
  buckets_free(&b);
  return k;
}

int nsd_pick_bins(const int *free_units, int n, int need, int *bins, int *takes,
                  const char *fn) {
  return nsd_pick_bins_bounded(free_units, n, need, 1, bins, takes, fn);
}

void nsd_take_server(const nsd_view *v, int server, int take, int *gpus, size_t *n) {
  const ns_cluster *c = v->c;
  int g = server * c->gpus_per_server, end = g + c->gpus_per_server;
  for (; g < end && take > 0; g++)
    if (nsi_gpu_can_host(c, g, v->mem_mb)) {
      gpus[(*n)++] = g;
      take--;
    }
}

/* Best-fit over the n servers starting at `first`. Returns the number of
   servers used, 0 if they cannot cover `need`, or NS_ENOMEM. */
static int take_server_range(const nsd_view *v, int first, int nservers, int need, int *gpus,
                             size_t *n, const char *fn) {
  int *bins = malloc((size_t)nservers * 2 * sizeof *bins);
  if (bins == NULL)
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  int *takes = bins + nservers;
  int k = nsd_pick_bins(v->server_free + first, nservers, need, bins, takes, fn);
  for (int i = 0; i < k; i++)
    nsd_take_server(v, first + bins[i], takes[i], gpus, n);
  free(bins);
  return k;
}

int nsd_take_rack(const nsd_view *v, int rack, int need, int *gpus, size_t *n, const char *fn) {
  int spl = v->c->servers_per_leaf;
  int k = take_server_range(v, rack * spl, spl, need, gpus, n, fn);
  return k < 0 ? k : NS_OK;
}

int nsd_take_network(const nsd_view *v, int need, int *gpus, size_t *n, const char *fn) {
  int leaves = v->c->leaves;
  int *bins = malloc((size_t)leaves * 2 * sizeof *bins);
  if (bins == NULL)
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  int *takes = bins + leaves;
  /* Fewest racks first, then the fewest servers inside each rack. */
  int k = nsd_pick_bins(v->rack_free, leaves, need, bins, takes, fn);
  int rc = k < 0 ? k : NS_OK;
  for (int i = 0; i < k && rc == NS_OK; i++)
    rc = nsd_take_rack(v, bins[i], takes[i], gpus, n, fn);
  free(bins);
  return rc;
}

int nsd_take_servers(const nsd_view *v, int need, int *gpus, size_t *n, const char *fn) {
  return take_server_range(v, 0, v->c->nservers, need, gpus, n, fn);
}

int nsd_out_reserve(ns_placement *out, size_t n, const char *fn) {
  if (nsi_reserve(&out->gpus, &out->cap_gpus, n, sizeof *out->gpus) < 0)
    return nsi_fail(NS_ENOMEM, "%s: out of memory growing the placement", fn);
  return NS_OK;
}

void nsd_out_fill(ns_placement *out, const ns_cluster *c, int *gpus, size_t n) {
  ns_placement_clear(out);
  ns_placement_bind(out, c);
  if (n > 0)
    qsort(gpus, n, sizeof *gpus, nsi_cmp_int);
  for (size_t i = 0; i < n; i++)
    out->gpus[i] = gpus[i];
  out->ngpus = n;
}
