/*
 * src/lwf/lwf.c - LWF-kappa job placement (Algorithm 1): least workload
 * first, consolidated onto the least-loaded servers once a job needs more
 * than kappa GPUs.
 *
 * Paper: Wang, Shi, Wang, Chu, "Communication Contention Aware Scheduling of
 * Multiple Deep Learning Training Jobs", Sec. IV-A, Algorithm 1, Eq. 7-8.
 *
 * Readings of ambiguous passages:
 *  - Line 1 sets L_J = C_J * |G(J)| while the text says (C_J + E_J) * |G(J)|.
 *    E_J (Eq. 8) depends on the placement being decided, and the SRSF
 *    paragraph sets E_J = 0 before allocation, so we follow line 1. L_J is
 *    added to the chosen GPUs (lines 6, 18) by ns_cluster_commit, not here:
 *    deciding never mutates the cluster (src/core/cluster.c).
 *  - Line 11 picks the top ceil(|G|/N_g) servers as S_chosen, but lines
 *    13-15 loop over all of S. We walk every server in sorted order and stop
 *    once |G| GPUs are collected: identical to S_chosen when those servers
 *    can host the job on all their GPUs, and still finds a placement when
 *    some GPUs are busy or short of memory (the line-22 empty result is then
 *    reserved for a cluster that truly lacks capacity).
 *  - "Sort by L_{S_i}" / "least L_{g_i,j}" is ascending; ties go to the lower
 *    server id, then the lower GPU id, so results are deterministic.
 *  - Line 5's top-|G| GPUs are returned least-loaded first; line 17's are
 *    returned server by server in the order they were appended.
 *  - A job with |G| <= kappa for which too few GPUs can host it gets the
 *    empty set (line 4 fails, line 10 is skipped): NS_ENOSPACE.
 */
#include <stdlib.h>

#include "lwf/order.h"
#include "lwf/placement.h"

typedef struct server_load {
  double load; /* L_{S_i} = sum_j L_{g_i,j} */
  int id;
} server_load;

static int cmp_server(const void *pa, const void *pb) {
  const server_load *a = pa, *b = pb;
  if (a->load != b->load)
    return a->load < b->load ? -1 : 1;
  return (a->id > b->id) - (a->id < b->id);
}

/* Alg. 1 lines 2-9: the |G| least-loaded GPUs among those with memory.
   Returns the number of GPUs that can host the job (>= |G| on success). */
static int place_least_loaded(const ns_cluster *c, const ns_job *job, int *scratch,
                              int *chosen) {
  int *cand = scratch, *heap = scratch + c->ngpus;
  int m = lwfi_hostable_gpus(c, job, cand);
  if (m < job->gpus)
    return m;
  lwfi_select_least(c->workload_ms, cand, m, job->gpus, heap, chosen);
  return m;
}

/* Alg. 1 line 11: servers in increasing L_{S_i}. */
static void sort_servers(const ns_cluster *c, server_load *s) {
  for (int i = 0; i < c->nservers; i++) {
    double sum = 0;
    for (int j = 0; j < c->gpus_per_server; j++)
      sum += c->workload_ms[i * c->gpus_per_server + j];
    s[i].load = sum;
    s[i].id = i;
  }
  qsort(s, (size_t)c->nservers, sizeof *s, cmp_server);
}

/* Alg. 1 lines 10-21: whole servers first, least-loaded server first.
   Returns how many GPUs were collected into chosen (|G| on success). */
static int place_by_server(const ns_cluster *c, const ns_job *job, server_load *servers,
                           int *scratch, int *chosen) {
  int *cand = scratch, *heap = scratch + c->gpus_per_server, have = 0;
  sort_servers(c, servers);
  for (int s = 0; s < c->nservers && have < job->gpus; s++) {
    int base = servers[s].id * c->gpus_per_server, m = 0;
    for (int j = 0; j < c->gpus_per_server; j++)
      if (nsi_gpu_can_host(c, base + j, job->mem_mb)) /* line 14 */
        cand[m++] = base + j;
    int take = m < job->gpus - have ? m : job->gpus - have;
    lwfi_select_least(c->workload_ms, cand, m, take, heap, chosen + have);
    have += take;
  }
  return have;
}

int ns_lwf_place(const ns_cluster *c, const ns_job *job, int kappa, ns_placement *out) {
  static const char *fn = "ns_lwf_place";
  NSI_TRY(lwfi_check_args(c, job, out, fn));
  if (kappa < 1)
    return nsi_fail(NS_EINVAL, "%s: kappa must be >= 1 (got %d)", fn, kappa);
  if (job->gpus > c->ngpus)
    return lwfi_no_space(c, out, job, c->ngpus, fn);
  int n = job->gpus;
  int *buf = malloc((size_t)(2 * c->ngpus + n) * sizeof *buf);
  server_load *servers = n > kappa ? malloc((size_t)c->nservers * sizeof *servers) : NULL;
  if (buf == NULL || (n > kappa && servers == NULL)) {
    free(buf);
    free(servers);
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  }
  int *chosen = buf + 2 * c->ngpus;
  int found = n <= kappa ? place_least_loaded(c, job, buf, chosen) /* line 2 */
                         : place_by_server(c, job, servers, buf, chosen); /* line 10 */
  int rc = found >= n ? lwfi_emit(c, out, chosen, n)
                      : lwfi_no_space(c, out, job, found, fn); /* line 22 */
  free(buf);
  free(servers);
  return rc;
}
