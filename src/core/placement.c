/*
 * src/core/placement.c - the decision object policies fill and
 * ns_cluster_commit applies: GPU ids, reserved leaf-spine links (vClos) and
 * virtual leaf/spine counts, bound to a cluster geometry for tier queries.
 */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

ns_placement *ns_placement_new(void) {
  ns_placement *p = calloc(1, sizeof *p);
  if (p == NULL)
    nsi_fail(NS_ENOMEM, "ns_placement_new: out of memory");
  return p;
}

void ns_placement_free(ns_placement *p) {
  if (p == NULL)
    return;
  free(p->gpus);
  free(p->links);
  free(p);
}

int ns_placement_add_gpu(ns_placement *p, int gpu) {
  NSI_TRY(nsi_check_ptr(p, "ns_placement_add_gpu", "p"));
  if (gpu < 0)
    return nsi_fail(NS_EINVAL, "ns_placement_add_gpu: gpu must be >= 0 (got %d)", gpu);
  NSI_TRY(nsi_reserve(&p->gpus, &p->cap_gpus, p->ngpus + 1, sizeof *p->gpus));
  p->gpus[p->ngpus++] = gpu;
  return NS_OK;
}

int nsi_placement_add_link(ns_placement *p, int leaf, int spine, int k) {
  NSI_TRY(nsi_reserve(&p->links, &p->cap_links, p->nlinks + 1, sizeof *p->links));
  p->links[p->nlinks].leaf = leaf;
  p->links[p->nlinks].spine = spine;
  p->links[p->nlinks].k = k;
  p->nlinks++;
  return NS_OK;
}

int nsi_placement_copy(ns_placement *dst, const ns_placement *src) {
  NSI_TRY(nsi_reserve(&dst->gpus, &dst->cap_gpus, src->ngpus, sizeof *dst->gpus));
  NSI_TRY(nsi_reserve(&dst->links, &dst->cap_links, src->nlinks, sizeof *dst->links));
  if (src->ngpus)
    memcpy(dst->gpus, src->gpus, src->ngpus * sizeof *dst->gpus);
  if (src->nlinks)
    memcpy(dst->links, src->links, src->nlinks * sizeof *dst->links);
  dst->ngpus = src->ngpus;
  dst->nlinks = src->nlinks;
  dst->virtual_leaves = src->virtual_leaves;
  dst->virtual_spines = src->virtual_spines;
  dst->bound = src->bound;
  dst->servers_per_leaf = src->servers_per_leaf;
  dst->gpus_per_server = src->gpus_per_server;
  return NS_OK;
}

void ns_placement_clear(ns_placement *p) {
  if (p == NULL)
    return;
  p->ngpus = 0;
  p->nlinks = 0;
  p->virtual_leaves = 0;
  p->virtual_spines = 0;
}

size_t ns_placement_gpu_count(const ns_placement *p) { return p ? p->ngpus : 0; }

int ns_placement_gpu(const ns_placement *p, size_t i) {
  NSI_TRY(nsi_check_ptr(p, "ns_placement_gpu", "p"));
  if (i >= p->ngpus)
    return nsi_fail(NS_EINVAL, "ns_placement_gpu: i (%zu) out of range (%zu GPUs)", i, p->ngpus);
  return p->gpus[i];
}

int ns_placement_bind(ns_placement *p, const ns_cluster *c) {
  NSI_TRY(nsi_check_ptr(p, "ns_placement_bind", "p"));
  NSI_TRY(nsi_check_ptr(c, "ns_placement_bind", "c"));
  p->bound = 1;
  p->servers_per_leaf = c->servers_per_leaf;
  p->gpus_per_server = c->gpus_per_server;
  return NS_OK;
}

/* Distinct values of gpu / divisor among the placement's GPUs. */
static int distinct_groups(const ns_placement *p, int divisor) {
  if (p->ngpus == 0)
    return 0;
  int *g = malloc(p->ngpus * sizeof *g);
  if (g == NULL)
    return nsi_fail(NS_ENOMEM, "ns_placement: out of memory");
  int n = (int)nsi_distinct_groups(p->gpus, p->ngpus, divisor, g);
  free(g);
  return n;
}

int ns_placement_server_count(const ns_placement *p) {
  NSI_TRY(nsi_check_ptr(p, "ns_placement_server_count", "p"));
  if (!p->bound)
    return nsi_fail(NS_ESTATE, "ns_placement_server_count: p is not bound to a cluster "
                               "(ns_placement_bind)");
  return distinct_groups(p, p->gpus_per_server);
}

ns_tier ns_placement_tier(const ns_placement *p) {
  if (nsi_check_ptr(p, "ns_placement_tier", "p") < 0)
    return (ns_tier)NS_EINVAL;
  if (!p->bound)
    return (ns_tier)nsi_fail(NS_ESTATE,
                             "ns_placement_tier: p is not bound to a cluster (ns_placement_bind)");
  int servers = distinct_groups(p, p->gpus_per_server);
  if (servers < 0)
    return (ns_tier)servers;
  if (servers <= 1)
    return NS_TIER_MACHINE;
  int leaves = distinct_groups(p, p->gpus_per_server * p->servers_per_leaf);
  if (leaves < 0)
    return (ns_tier)leaves;
  return leaves <= 1 ? NS_TIER_RACK : NS_TIER_NETWORK;
}

int ns_placement_virtual_leaves(const ns_placement *p) {
  NSI_TRY(nsi_check_ptr(p, "ns_placement_virtual_leaves", "p"));
  return p->virtual_leaves;
}

int ns_placement_virtual_spines(const ns_placement *p) {
  NSI_TRY(nsi_check_ptr(p, "ns_placement_virtual_spines", "p"));
  return p->virtual_spines;
}

int ns_placement_link_count(const ns_placement *p) {
  NSI_TRY(nsi_check_ptr(p, "ns_placement_link_count", "p"));
  return (int)p->nlinks;
}

int ns_placement_link(const ns_placement *p, size_t i, int *leaf, int *spine) {
  NSI_TRY(nsi_check_ptr(p, "ns_placement_link", "p"));
  NSI_TRY(nsi_check_ptr(leaf, "ns_placement_link", "leaf"));
  NSI_TRY(nsi_check_ptr(spine, "ns_placement_link", "spine"));
  if (i >= p->nlinks)
    return nsi_fail(NS_EINVAL, "ns_placement_link: i (%zu) out of range (%zu links)", i,
                    p->nlinks);
  *leaf = p->links[i].leaf;
  *spine = p->links[i].spine;
  return NS_OK;
}
