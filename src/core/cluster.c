/*
 * src/core/cluster.c - the leaf-spine cluster model: construction, topology
 * queries shared by every policy, background load, LWF workloads, and the
 * commit/release split (deciding never mutates; commit applies, release
 * undoes).
 *
 * Commit validates everything before it writes anything, so a failed commit
 * leaves the cluster exactly as it was. Jobs are identified by handle.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

#define NS_MAX_GPUS (1 << 22)
#define NS_MAX_UPLINKS (1 << 24)

ns_cluster *ns_cluster_new_leaf_spine(int leaves, int spines, int servers_per_leaf,
                                      int gpus_per_server, int links_per_pair,
                                      double link_gbps) {
  static const char *fn = "ns_cluster_new_leaf_spine";
  if (nsi_check_int(leaves, 1, NS_MAX_GPUS, fn, "leaves") < 0 ||
      nsi_check_int(spines, 0, NS_MAX_UPLINKS, fn, "spines") < 0 ||
      nsi_check_int(servers_per_leaf, 1, NS_MAX_GPUS, fn, "servers_per_leaf") < 0 ||
      nsi_check_int(gpus_per_server, 1, NS_MAX_GPUS, fn, "gpus_per_server") < 0 ||
      nsi_check_int(links_per_pair, spines > 0 ? 1 : 0, NS_MAX_UPLINKS, fn, "links_per_pair") < 0 ||
      nsi_check_finite_gt0(link_gbps, fn, "link_gbps") < 0)
    return NULL;
  /* Products checked factor by factor: (1<<16)*(1<<24)*(1<<24) wraps a
     long long to 0, and a link table sized from a wrapped product is
     indexed far past its end. */
  long long ngpus, nlinks;
  if (nsi_check_product((long long[]){leaves, servers_per_leaf, gpus_per_server}, 3,
                        NS_MAX_GPUS, fn, "leaves*servers_per_leaf*gpus_per_server", &ngpus) < 0)
    return NULL;
  if (spines == 0)
    links_per_pair = 0;
  if (nsi_check_product((long long[]){leaves, spines, links_per_pair}, 3, NS_MAX_UPLINKS, fn,
                        "leaves*spines*links_per_pair", &nlinks) < 0)
    return NULL;
  ns_cluster *c = calloc(1, sizeof *c);
  if (c == NULL)
    goto oom;
  c->leaves = leaves;
  c->spines = spines;
  c->servers_per_leaf = servers_per_leaf;
  c->gpus_per_server = gpus_per_server;
  c->links_per_pair = links_per_pair;
  c->link_gbps = link_gbps;
  c->nic_ports = gpus_per_server; /* one port per GPU (core.h "Port model") */
  c->nic_gbps = link_gbps;
  c->gpu_mem_mb = 16384;
  c->ngpus = (int)ngpus;
  c->nfree = (int)ngpus;
  c->nservers = leaves * servers_per_leaf;
  c->nlinks = (size_t)nlinks;
  c->workload_ms = calloc((size_t)ngpus, sizeof *c->workload_ms);
  c->mem_used_mb = calloc((size_t)ngpus, sizeof *c->mem_used_mb);
  c->jobs_on_gpu = calloc((size_t)ngpus, sizeof *c->jobs_on_gpu);
  c->background = calloc((size_t)ngpus, sizeof *c->background);
  c->link_owner = calloc(c->nlinks ? c->nlinks : 1, sizeof *c->link_owner);
  if (!c->workload_ms || !c->mem_used_mb || !c->jobs_on_gpu || !c->background || !c->link_owner)
    goto oom;
  return c;
oom:
  ns_cluster_free(c);
  nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  return NULL;
}

static void commit_free(nsi_commit *r) {
  free(r->gpus);
  free(r->links);
}

void ns_cluster_free(ns_cluster *c) {
  if (c == NULL)
    return;
  for (size_t i = 0; i < c->ncommits; i++)
    commit_free(&c->commits[i]);
  free(c->commits);
  free(c->workload_ms);
  free(c->mem_used_mb);
  free(c->jobs_on_gpu);
  free(c->background);
  free(c->link_owner);
  nsi_ocs_free(c);
  free(c);
}

int ns_cluster_enable_ocs(ns_cluster *c, int ocs_count) {
  static const char *fn = "ns_cluster_enable_ocs";
  NSI_TRY(nsi_check_ptr(c, fn, "c"));
  if (c->spines == 0)
    return nsi_fail(NS_EUNSUPPORTED, "%s: the cluster has no spines, so no OCS layer", fn);
  int uplinks = c->spines * c->links_per_pair; /* <= leaves*spines*links_per_pair: fits */
  NSI_TRY(nsi_check_int(ocs_count, 1, uplinks, fn, "ocs_count"));
  /* The OCS state counts ports per (spine, OCS): spines*ocs_count cells. */
  long long cells;
  NSI_TRY(nsi_check_product((long long[]){c->spines, ocs_count}, 2, NS_MAX_UPLINKS, fn,
                            "spines*ocs_count", &cells));
  if (uplinks % ocs_count != 0)
    return nsi_fail(NS_EINVAL, "%s: ocs_count (%d) must divide each leaf's %d uplinks", fn,
                    ocs_count, uplinks);
  if (c->ncommits > 0)
    return nsi_fail(NS_ESTATE, "%s: %zu jobs are committed; enable the OCS layer first", fn,
                    c->ncommits);
  NSI_TRY(nsi_ocs_init(c, ocs_count));
  c->ocs_count = ocs_count;
  return NS_OK;
}

/* ---- simple getters ---------------------------------------------------- */

#define GETTER(name, field)                           \
  int name(const ns_cluster *c) {                     \
    NSI_TRY(nsi_check_ptr(c, #name, "c"));            \
    return c->field;                                  \
  }
GETTER(ns_cluster_gpu_count, ngpus)
GETTER(ns_cluster_server_count, nservers)
GETTER(ns_cluster_leaf_count, leaves)
GETTER(ns_cluster_spine_count, spines)
GETTER(ns_cluster_servers_per_leaf, servers_per_leaf)
GETTER(ns_cluster_gpus_per_server, gpus_per_server)
GETTER(ns_cluster_links_per_pair, links_per_pair)
GETTER(ns_cluster_ocs_count, ocs_count)
GETTER(ns_cluster_gpu_sharing, sharing)
#undef GETTER

double ns_cluster_link_gbps(const ns_cluster *c) {
  return nsi_check_ptr(c, "ns_cluster_link_gbps", "c") < 0 ? NAN : c->link_gbps;
}

double ns_cluster_gpu_memory_mb(const ns_cluster *c) {
  return nsi_check_ptr(c, "ns_cluster_gpu_memory_mb", "c") < 0 ? NAN : c->gpu_mem_mb;
}

int ns_cluster_job_count(const ns_cluster *c) {
  NSI_TRY(nsi_check_ptr(c, "ns_cluster_job_count", "c"));
  return (int)c->ncommits;
}

/* ---- indexed queries --------------------------------------------------- */

static int check_gpu(const ns_cluster *c, int gpu, const char *fn) {
  NSI_TRY(nsi_check_ptr(c, fn, "c"));
  return nsi_check_int(gpu, 0, c->ngpus - 1, fn, "gpu");
}

static int check_server(const ns_cluster *c, int server, const char *fn) {
  NSI_TRY(nsi_check_ptr(c, fn, "c"));
  return nsi_check_int(server, 0, c->nservers - 1, fn, "server");
}

static int check_leaf(const ns_cluster *c, int leaf, const char *fn) {
  NSI_TRY(nsi_check_ptr(c, fn, "c"));
  return nsi_check_int(leaf, 0, c->leaves - 1, fn, "leaf");
}

/* Static leaf-spine link queries; in OCS mode links are circuits through
   OCS ports (ns_cluster_ocs_free_leaf_ports), so these refuse to answer. */
static int check_leaf_spine(const ns_cluster *c, int leaf, int spine, const char *fn) {
  NSI_TRY(check_leaf(c, leaf, fn));
  if (c->spines == 0)
    return nsi_fail(NS_EINVAL, "%s: the cluster has no spines (spine %d)", fn, spine);
  if (c->ocs_count > 0)
    return nsi_fail(NS_EUNSUPPORTED,
                    "%s: the cluster has an OCS layer; query its ports with "
                    "ns_cluster_ocs_free_leaf_ports / ns_cluster_ocs_free_spine_ports",
                    fn);
  return nsi_check_int(spine, 0, c->spines - 1, fn, "spine");
}

int ns_cluster_server_of_gpu(const ns_cluster *c, int gpu) {
  NSI_TRY(check_gpu(c, gpu, "ns_cluster_server_of_gpu"));
  return nsi_server_of_gpu(c, gpu);
}

int ns_cluster_leaf_of_server(const ns_cluster *c, int server) {
  NSI_TRY(check_server(c, server, "ns_cluster_leaf_of_server"));
  return nsi_leaf_of_server(c, server);
}

static int free_in_range(const ns_cluster *c, int first, int n) {
  int free_gpus = 0;
  for (int g = first; g < first + n; g++)
    free_gpus += nsi_gpu_free(c, g);
  return free_gpus;
}

int nsi_free_gpus_on_server(const ns_cluster *c, int server) {
  return free_in_range(c, server * c->gpus_per_server, c->gpus_per_server);
}

int ns_cluster_free_gpus_on_server(const ns_cluster *c, int server) {
  NSI_TRY(check_server(c, server, "ns_cluster_free_gpus_on_server"));
  return nsi_free_gpus_on_server(c, server);
}

int ns_cluster_free_gpus_on_leaf(const ns_cluster *c, int leaf) {
  NSI_TRY(check_leaf(c, leaf, "ns_cluster_free_gpus_on_leaf"));
  int per_leaf = c->servers_per_leaf * c->gpus_per_server;
  return free_in_range(c, leaf * per_leaf, per_leaf);
}

int ns_cluster_free_gpu_count(const ns_cluster *c) {
  NSI_TRY(nsi_check_ptr(c, "ns_cluster_free_gpu_count", "c"));
  return c->nfree; /* free_in_range(c, 0, c->ngpus), kept as GPUs change */
}

int nsi_idle_servers_on_leaf(const ns_cluster *c, int leaf) {
  int idle = 0;
  for (int s = leaf * c->servers_per_leaf; s < (leaf + 1) * c->servers_per_leaf; s++)
    idle += nsi_free_gpus_on_server(c, s) == c->gpus_per_server;
  return idle;
}

int ns_cluster_idle_servers_on_leaf(const ns_cluster *c, int leaf) {
  NSI_TRY(check_leaf(c, leaf, "ns_cluster_idle_servers_on_leaf"));
  return nsi_idle_servers_on_leaf(c, leaf);
}

int ns_cluster_gpu_is_free(const ns_cluster *c, int gpu) {
  NSI_TRY(check_gpu(c, gpu, "ns_cluster_gpu_is_free"));
  return nsi_gpu_free(c, gpu);
}

int ns_cluster_gpu_job_count(const ns_cluster *c, int gpu) {
  NSI_TRY(check_gpu(c, gpu, "ns_cluster_gpu_job_count"));
  return c->jobs_on_gpu[gpu];
}

double ns_cluster_gpu_free_memory_mb(const ns_cluster *c, int gpu) {
  if (check_gpu(c, gpu, "ns_cluster_gpu_free_memory_mb") < 0)
    return NAN;
  if (c->background[gpu])
    return 0;
  return c->gpu_mem_mb - c->mem_used_mb[gpu];
}

int ns_cluster_free_links_between(const ns_cluster *c, int leaf, int spine) {
  NSI_TRY(check_leaf_spine(c, leaf, spine, "ns_cluster_free_links_between"));
  int n = 0;
  for (int k = 0; k < c->links_per_pair; k++)
    n += c->link_owner[nsi_link_index(c, leaf, spine, k)] == NULL;
  return n;
}

int ns_cluster_link_is_reserved(const ns_cluster *c, int leaf, int spine, int k) {
  static const char *fn = "ns_cluster_link_is_reserved";
  NSI_TRY(check_leaf_spine(c, leaf, spine, fn));
  NSI_TRY(nsi_check_int(k, 0, c->links_per_pair - 1, fn, "k"));
  return c->link_owner[nsi_link_index(c, leaf, spine, k)] != NULL;
}

int nsi_leaf_free_uplinks(const ns_cluster *c, int leaf) {
  int ports = c->spines * c->links_per_pair, n = 0;
  for (int i = 0; i < ports; i++) {
    size_t at = nsi_leaf_port_index(c, leaf, i);
    n += (c->ocs_count > 0 ? c->ocs_leaf_port[at] : c->link_owner[at]) == NULL;
  }
  return n;
}

int nsi_gpu_can_host(const ns_cluster *c, int gpu, double mem_mb) {
  if (c->background[gpu])
    return 0;
  if (!c->sharing && c->jobs_on_gpu[gpu] > 0)
    return 0;
  return c->mem_used_mb[gpu] + mem_mb <= c->gpu_mem_mb;
}

/* ---- settings ---------------------------------------------------------- */

int ns_cluster_set_gpu_memory_mb(ns_cluster *c, double mb) {
  static const char *fn = "ns_cluster_set_gpu_memory_mb";
  NSI_TRY(nsi_check_ptr(c, fn, "c"));
  NSI_TRY(nsi_check_finite_gt0(mb, fn, "mb"));
  if (c->ncommits > 0)
    return nsi_fail(NS_ESTATE, "%s: %zu jobs are committed", fn, c->ncommits);
  c->gpu_mem_mb = mb;
  return NS_OK;
}

int ns_cluster_set_gpu_sharing(ns_cluster *c, int shared) {
  static const char *fn = "ns_cluster_set_gpu_sharing";
  NSI_TRY(nsi_check_ptr(c, fn, "c"));
  NSI_TRY(nsi_check_int(shared, 0, 1, fn, "shared"));
  if (c->ncommits > 0)
    return nsi_fail(NS_ESTATE, "%s: %zu jobs are committed", fn, c->ncommits);
  c->sharing = shared;
  return NS_OK;
}

int ns_cluster_set_nic_ports(ns_cluster *c, int ports_per_server, double port_gbps) {
  static const char *fn = "ns_cluster_set_nic_ports";
  NSI_TRY(nsi_check_ptr(c, fn, "c"));
  NSI_TRY(nsi_check_int(ports_per_server, 1, c->gpus_per_server, fn, "ports_per_server"));
  NSI_TRY(nsi_check_finite_gt0(port_gbps, fn, "port_gbps"));
  if (c->ncommits > 0)
    return nsi_fail(NS_ESTATE, "%s: %zu jobs are committed", fn, c->ncommits);
  c->nic_ports = ports_per_server;
  c->nic_gbps = port_gbps;
  return NS_OK;
}

void nsi_ecmp_route(int spines, int links_per_pair, int src_port, int dst_port, int *spine,
                    int *k) {
  uint64_t h = nsi_hash64((uint64_t)(uint32_t)src_port << 32 | (uint64_t)(uint32_t)dst_port);
  *spine = (int)(h % (uint64_t)spines);
  *k = (int)((h / (uint64_t)spines) % (uint64_t)links_per_pair);
}

int ns_cluster_set_gpu_workload_ms(ns_cluster *c, int gpu, double ms) {
  static const char *fn = "ns_cluster_set_gpu_workload_ms";
  NSI_TRY(check_gpu(c, gpu, fn));
  NSI_TRY(nsi_check_finite_ge0(ms, fn, "ms"));
  c->workload_ms[gpu] = ms;
  return NS_OK;
}

double ns_cluster_gpu_workload_ms(const ns_cluster *c, int gpu) {
  if (check_gpu(c, gpu, "ns_cluster_gpu_workload_ms") < 0)
    return NAN;
  return c->workload_ms[gpu];
}

/* ---- background load --------------------------------------------------- */

/* Validates a GPU id list: non-NULL when n > 0, ids in range, no repeats. */
static int check_gpu_list(const ns_cluster *c, const int *gpus, size_t n, const char *fn,
                          const char *arg) {
  if (n > 0)
    NSI_TRY(nsi_check_ptr(gpus, fn, arg));
  if (n > (size_t)c->ngpus)
    return nsi_fail(NS_EINVAL, "%s: %s lists %zu GPUs but the cluster has %d", fn, arg, n,
                    c->ngpus);
  for (size_t i = 0; i < n; i++)
    if (gpus[i] < 0 || gpus[i] >= c->ngpus)
      return nsi_fail(NS_EINVAL, "%s: %s[%zu] = %d is out of range [0, %d)", fn, arg, i, gpus[i],
                      c->ngpus);
  if (n <= 32) { /* small lists: no allocation */
    for (size_t i = 1; i < n; i++)
      for (size_t j = 0; j < i; j++)
        if (gpus[i] == gpus[j])
          return nsi_fail(NS_EINVAL, "%s: %s lists GPU %d twice", fn, arg, gpus[i]);
    return NS_OK;
  }
  unsigned char *seen = calloc((size_t)c->ngpus, 1);
  if (seen == NULL)
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  int rc = NS_OK;
  for (size_t i = 0; i < n && rc == NS_OK; i++) {
    if (seen[gpus[i]])
      rc = nsi_fail(NS_EINVAL, "%s: %s lists GPU %d twice", fn, arg, gpus[i]);
    seen[gpus[i]] = 1;
  }
  free(seen);
  return rc;
}

int ns_cluster_occupy(ns_cluster *c, const int *gpus, size_t n) {
  static const char *fn = "ns_cluster_occupy";
  NSI_TRY(nsi_check_ptr(c, fn, "c"));
  NSI_TRY(check_gpu_list(c, gpus, n, fn, "gpus"));
  for (size_t i = 0; i < n; i++)
    if (!nsi_gpu_free(c, gpus[i]))
      return nsi_fail(NS_ENOSPACE, "%s: GPU %d is already busy", fn, gpus[i]);
  for (size_t i = 0; i < n; i++)
    c->background[gpus[i]] = 1;
  c->nfree -= (int)n; /* each was free, listed once */
  return NS_OK;
}

int ns_cluster_vacate(ns_cluster *c, const int *gpus, size_t n) {
  static const char *fn = "ns_cluster_vacate";
  NSI_TRY(nsi_check_ptr(c, fn, "c"));
  NSI_TRY(check_gpu_list(c, gpus, n, fn, "gpus"));
  for (size_t i = 0; i < n; i++)
    if (!c->background[gpus[i]])
      return nsi_fail(NS_ESTATE, "%s: GPU %d carries no background load", fn, gpus[i]);
  for (size_t i = 0; i < n; i++) {
    c->background[gpus[i]] = 0;
    c->nfree += c->jobs_on_gpu[gpus[i]] == 0;
  }
  return NS_OK;
}

/* ---- commit / release -------------------------------------------------- */

long nsi_find_commit(const ns_cluster *c, const ns_job *job) {
  for (size_t i = 0; i < c->ncommits; i++)
    if (c->commits[i].job == job)
      return (long)i;
  return -1;
}

int ns_cluster_is_committed(const ns_cluster *c, const ns_job *job) {
  NSI_TRY(nsi_check_ptr(c, "ns_cluster_is_committed", "c"));
  NSI_TRY(nsi_check_ptr(job, "ns_cluster_is_committed", "job"));
  return nsi_find_commit(c, job) >= 0;
}

/* Sets the owner of links[0..n) (static fabric) to `job` (NULL frees). */
static void set_link_owner(ns_cluster *c, const nsi_uplink *links, size_t n, const ns_job *job) {
  for (size_t i = 0; i < n; i++)
    c->link_owner[nsi_link_index(c, links[i].leaf, links[i].spine, links[i].k)] = job;
}

/* Validates p's links and reserves them for `job` in one pass: O(links),
   no allocation. The job is not committed, so it owns no link yet: a link
   this pass finds owned by `job` is listed twice. On failure the links
   reserved so far (distinct, and free before) are freed again. */
static int claim_links(ns_cluster *c, const ns_job *job, const ns_placement *p, const char *fn) {
  int rc = NS_OK;
  size_t i = 0;
  for (; i < p->nlinks; i++) {
    const nsi_uplink *u = &p->links[i];
    if (c->spines == 0 || u->leaf < 0 || u->leaf >= c->leaves || u->spine < 0 ||
        u->spine >= c->spines || u->k < 0 || u->k >= c->links_per_pair) {
      rc = nsi_fail(NS_EINVAL, "%s: p's link %zu (leaf %d, spine %d, #%d) is not in the cluster",
                    fn, i, u->leaf, u->spine, u->k);
      break;
    }
    const ns_job **owner = &c->link_owner[nsi_link_index(c, u->leaf, u->spine, u->k)];
    if (*owner == job)
      rc = nsi_fail(NS_EINVAL, "%s: p lists link (leaf %d, spine %d, #%d) twice", fn, u->leaf,
                    u->spine, u->k);
    else if (*owner != NULL)
      rc = nsi_fail(NS_ENOSPACE, "%s: link (leaf %d, spine %d, #%d) is already reserved", fn,
                    u->leaf, u->spine, u->k);
    if (rc != NS_OK)
      break;
    *owner = job;
  }
  if (rc != NS_OK)
    set_link_owner(c, p->links, i, NULL); /* links[0..i) were claimed here */
  return rc;
}

int ns_cluster_commit(ns_cluster *c, const ns_job *job, const ns_placement *p) {
  static const char *fn = "ns_cluster_commit";
  NSI_TRY(nsi_check_ptr(c, fn, "c"));
  NSI_TRY(nsi_check_ptr(job, fn, "job"));
  NSI_TRY(nsi_check_ptr(p, fn, "p"));
  if (p->bound && (p->servers_per_leaf != c->servers_per_leaf ||
                   p->gpus_per_server != c->gpus_per_server))
    return nsi_fail(NS_EINVAL, "%s: p was bound to another cluster geometry", fn);
  if (p->ngpus == 0)
    return nsi_fail(NS_EINVAL, "%s: p holds no GPUs", fn);
  if (p->ngpus < (size_t)job->gpus)
    return nsi_fail(NS_EINVAL, "%s: p holds %zu GPUs but job '%s' needs %d", fn, p->ngpus,
                    job->name, job->gpus);
  if (nsi_find_commit(c, job) >= 0)
    return nsi_fail(NS_ESTATE, "%s: job '%s' is already committed", fn, job->name);
  NSI_TRY(check_gpu_list(c, p->gpus, p->ngpus, fn, "p"));
  for (size_t i = 0; i < p->ngpus; i++) {
    int g = p->gpus[i];
    if (c->background[g] || (!c->sharing && c->jobs_on_gpu[g] > 0))
      return nsi_fail(NS_ENOSPACE, "%s: GPU %d is taken", fn, g);
    if (c->mem_used_mb[g] + job->mem_mb > c->gpu_mem_mb)
      return nsi_fail(NS_ENOSPACE, "%s: GPU %d has %.1f MB free but job '%s' needs %.1f MB", fn,
                      g, c->gpu_mem_mb - c->mem_used_mb[g], job->name, job->mem_mb);
  }

  /* GPUs are valid: allocate, then claim the links (undone on failure),
     then apply (no failure after this). */
  NSI_TRY(nsi_reserve(&c->commits, &c->cap_commits, c->ncommits + 1, sizeof *c->commits));
  nsi_commit r = {0};
  r.job = job;
  r.ngpus = p->ngpus;
  r.nlinks = p->nlinks;
  r.gpus = malloc(p->ngpus * sizeof *r.gpus);
  r.links = malloc((p->nlinks ? p->nlinks : 1) * sizeof *r.links);
  if (r.gpus == NULL || r.links == NULL) {
    commit_free(&r);
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  }
  int rc = c->ocs_count > 0 ? nsi_ocs_claim_links(c, job, p, fn) : claim_links(c, job, p, fn);
  if (rc < 0) {
    commit_free(&r);
    return rc;
  }
  memcpy(r.gpus, p->gpus, p->ngpus * sizeof *r.gpus);
  if (p->nlinks)
    memcpy(r.links, p->links, p->nlinks * sizeof *r.links);
  r.virtual_leaves = p->virtual_leaves;
  r.virtual_spines = p->virtual_spines;
  r.mem_mb = job->mem_mb;
  r.workload_ms = nsi_job_lwf_workload_ms(job);
  for (size_t i = 0; i < r.ngpus; i++) {
    int g = r.gpus[i];
    c->nfree -= c->jobs_on_gpu[g]++ == 0 && !c->background[g];
    c->mem_used_mb[g] += r.mem_mb;
    c->workload_ms[g] += r.workload_ms; /* LWF-kappa Alg. 1 lines 6/18 */
  }
  c->commits[c->ncommits++] = r;
  return NS_OK;
}

long nsi_cluster_detach(ns_cluster *c, const ns_job *job, nsi_commit *out) {
  long idx = nsi_find_commit(c, job);
  if (idx < 0)
    return -1;
  nsi_commit *r = &c->commits[idx];
  for (size_t i = 0; i < r->ngpus; i++) {
    int g = r->gpus[i];
    c->nfree += --c->jobs_on_gpu[g] == 0 && !c->background[g];
    c->mem_used_mb[g] -= r->mem_mb;
    if (c->jobs_on_gpu[g] == 0 || c->mem_used_mb[g] < 0)
      c->mem_used_mb[g] = 0; /* no floating-point residue on an empty GPU */
    c->workload_ms[g] = fmax(0, c->workload_ms[g] - r->workload_ms);
  }
  if (c->ocs_count > 0)
    nsi_ocs_apply(c, r->links, r->nlinks, NULL);
  else
    set_link_owner(c, r->links, r->nlinks, NULL);
  *out = *r;
  c->commits[idx] = c->commits[--c->ncommits];
  return idx;
}

/* As ns_cluster_commit applies a record (its GPUs, memory, workload and
   links), then the record moved back to index at. */
void nsi_cluster_reattach(ns_cluster *c, const nsi_commit *r, size_t at) {
  for (size_t i = 0; i < r->ngpus; i++) {
    int g = r->gpus[i];
    c->nfree -= c->jobs_on_gpu[g]++ == 0 && !c->background[g];
    c->mem_used_mb[g] += r->mem_mb;
    c->workload_ms[g] += r->workload_ms;
  }
  if (c->ocs_count > 0)
    nsi_ocs_apply(c, r->links, r->nlinks, r->job);
  else
    set_link_owner(c, r->links, r->nlinks, r->job);
  c->commits[c->ncommits++] = *r;
  size_t last = c->ncommits - 1;
  if (at != last) {
    nsi_commit t = c->commits[at];
    c->commits[at] = c->commits[last], c->commits[last] = t;
  }
}

int ns_cluster_release(ns_cluster *c, const ns_job *job) {
  static const char *fn = "ns_cluster_release";
  NSI_TRY(nsi_check_ptr(c, fn, "c"));
  NSI_TRY(nsi_check_ptr(job, fn, "job"));
  nsi_commit r;
  if (nsi_cluster_detach(c, job, &r) < 0)
    return nsi_fail(NS_ENOTFOUND, "%s: job '%s' is not committed", fn, job->name);
  commit_free(&r);
  return NS_OK;
}

int ns_cluster_job_placement(const ns_cluster *c, const ns_job *job, ns_placement *out) {
  static const char *fn = "ns_cluster_job_placement";
  NSI_TRY(nsi_check_ptr(c, fn, "c"));
  NSI_TRY(nsi_check_ptr(job, fn, "job"));
  NSI_TRY(nsi_check_ptr(out, fn, "out"));
  long idx = nsi_find_commit(c, job);
  if (idx < 0)
    return nsi_fail(NS_ENOTFOUND, "%s: job '%s' is not committed", fn, job->name);
  const nsi_commit *r = &c->commits[idx];
  ns_placement tmp = {0};
  tmp.gpus = r->gpus;
  tmp.ngpus = r->ngpus;
  tmp.links = r->links;
  tmp.nlinks = r->nlinks;
  tmp.virtual_leaves = r->virtual_leaves;
  tmp.virtual_spines = r->virtual_spines;
  tmp.bound = 1;
  tmp.servers_per_leaf = c->servers_per_leaf;
  tmp.gpus_per_server = c->gpus_per_server;
  return nsi_placement_copy(out, &tmp);
}
