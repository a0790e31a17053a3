/*
 * src/dally/baselines.c - the placements the Dally paper compares against
 * (§5.1.3), for the simulator:
 *   - best-fit consolidation (network-agnostic; Gandiva-style in the paper's
 *     comparison): the fewest servers the free GPUs allow, best-fit;
 *   - Tiresias-style skew consolidation (§3.2, §3.4 (ii)): a skewed model
 *     must sit on the fewest servers possible, ceil(g_d / GPUs per server),
 *     or wait; any other job takes any free GPUs (first-fit).
 * Reading: Tiresias' "fewest machines possible" is the minimum for the
 * job's demand, not the fewest the current free GPUs allow; otherwise the
 * strict consolidation could never cause the queueing delay the paper
 * attributes to it. Model bytes stand in for skew (the job handle has no
 * largest-tensor size); the caller picks the threshold.
 */
#include <stdlib.h>

#include "dally/dally_internal.h"

/* Fills out with the GPUs chosen by `choose`; NS_ENOSPACE when it finds
   none. Everything that can fail happens before out changes. */
typedef int (*chooser)(const nsd_view *v, int need, int *gpus, size_t *n, const char *fn);

static int place_with(const ns_cluster *c, const ns_job *job, ns_placement *out, chooser choose,
                      const char *fn) {
  NSI_TRY(nsd_check_job(c, job, fn));
  NSI_TRY(nsi_check_ptr(out, fn, "out"));
  nsd_view v;
  NSI_TRY(nsd_view_init(&v, c, job->mem_mb, fn));
  int *gpus = malloc((size_t)job->gpus * sizeof *gpus);
  size_t n = 0;
  int rc = gpus ? choose(&v, job->gpus, gpus, &n, fn)
                : nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  if (rc == NS_OK)
    rc = nsd_out_reserve(out, n, fn);
  if (rc == NS_OK)
    nsd_out_fill(out, c, gpus, n);
  free(gpus);
  nsd_view_free(&v);
  return rc;
}

static int too_few(const nsd_view *v, int need, const char *fn) {
  return nsi_fail(NS_ENOSPACE, "%s: job needs %d GPUs, %lld can host it now", fn, need,
                  v->total);
}

static int choose_best_fit(const nsd_view *v, int need, int *gpus, size_t *n, const char *fn) {
  int k = nsd_take_servers(v, need, gpus, n, fn);
  if (k < 0)
    return k;
  return k == 0 ? too_few(v, need, fn) : NS_OK;
}

static int choose_consolidated(const nsd_view *v, int need, int *gpus, size_t *n,
                               const char *fn) {
  int per = v->c->gpus_per_server, fewest = (need + per - 1) / per;
  int *servers = malloc((size_t)v->c->nservers * 2 * sizeof *servers);
  if (servers == NULL)
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  int *takes = servers + v->c->nservers;
  int k = nsd_pick_bins(v->server_free, v->c->nservers, need, servers, takes, fn);
  int rc = k < 0 ? k : NS_OK;
  if (k == 0)
    rc = too_few(v, need, fn);
  else if (k > fewest)
    rc = nsi_fail(NS_ENOSPACE,
                  "%s: skewed job needs %d GPUs on %d servers, the free GPUs need %d servers",
                  fn, need, fewest, k);
  for (int i = 0; rc == NS_OK && i < k; i++)
    nsd_take_server(v, servers[i], takes[i], gpus, n);
  free(servers);
  return rc;
}

static int choose_first_fit(const nsd_view *v, int need, int *gpus, size_t *n, const char *fn) {
  if (v->total < need)
    return too_few(v, need, fn);
  for (int s = 0; *n < (size_t)need; s++)
    nsd_take_server(v, s, need - (int)*n, gpus, n);
  return NS_OK;
}

int ns_place_best_fit(const ns_cluster *c, const ns_job *job, ns_placement *out) {
  return place_with(c, job, out, choose_best_fit, "ns_place_best_fit");
}

int ns_place_tiresias(const ns_cluster *c, const ns_job *job, uint64_t skew_threshold_bytes,
                      ns_placement *out) {
  static const char *fn = "ns_place_tiresias";
  NSI_TRY(nsi_check_ptr(job, fn, "job"));
  int skewed = job->model_bytes >= skew_threshold_bytes;
  return place_with(c, job, out, skewed ? choose_consolidated : choose_first_fit, fn);
}
