/*
 * src/dally/pick.c - which GPUs an accepted offer (or a baseline) takes.
 *
 * An offer is the set of GPUs that can host the job now. Within the tier
 * Algorithm 1 accepts, GPUs are chosen best-fit and deterministically:
 *   - one bin (machine or rack): the bin with the fewest free GPUs that
 *     still holds the job (fewest left over), ties to the lowest id;
 *   - several bins (servers of a rack, racks of the network, servers of
 *     the cluster for the baselines): the fewest bins possible, chosen
 *     smallest-feasible-first: at each step the smallest bin that still
 *     lets the remaining bins cover the rest with the fewest bins (ties:
 *     lowest id). Every bin but the last is used whole, so partial use
 *     falls on the one tightest-fitting bin and large bins stay intact;
 *   - inside a server: its lowest-numbered GPUs that can host the job.
 */
#include <stdlib.h>

#include "dally/dally_internal.h"

int nsd_check_job(const ns_cluster *c, const ns_job *job, const char *fn) {
  NSI_TRY(nsi_check_ptr(c, fn, "c"));
  NSI_TRY(nsi_check_ptr(job, fn, "job"));
  if (job->gpus > c->ngpus)
    return nsi_fail(NS_EINVAL, "%s: job '%s' needs %d GPUs but the cluster has only %d", fn,
                    job->name, job->gpus, c->ngpus);
  if (job->mem_mb > c->gpu_mem_mb)
    return nsi_fail(NS_EINVAL, "%s: job '%s' needs %g MB per GPU but a GPU has only %g MB", fn,
                    job->name, job->mem_mb, c->gpu_mem_mb);
  return NS_OK;
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

int nsd_pick_bins(const int *free_units, int n, int need, int *bins, int *takes,
                  const char *fn) {
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
  int k = 0;
  for (int r = need; r > 0; k++) {
    cover cv = fewest_bins(&b, r);
    int v = smallest_feasible(&b, &cv, r);
    bins[k] = b.order[b.next[v]++];
    b.cnt[v]--;
    takes[k] = v < r ? v : r;
    r -= takes[k];
  }
  buckets_free(&b);
  return k;
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

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

void nsd_out_fill(ns_placement *out, const ns_cluster *c, int *gpus, size_t n) {
  ns_placement_clear(out);
  ns_placement_bind(out, c);
  if (n > 0)
    qsort(gpus, n, sizeof *gpus, cmp_int);
  for (size_t i = 0; i < n; i++)
    out->gpus[i] = gpus[i];
  out->ngpus = n;
}
