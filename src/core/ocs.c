/*
 * src/core/ocs.c - port state of the optical circuit switch layer between
 * leaves and spines (OCS-vClos, §7 of the vClos paper), used by commit and
 * release when ns_cluster_enable_ocs was called.
 *
 * Model: every leaf uplink port and every spine downlink port attaches to
 * one OCS; an OCS is a crossbar that can connect any of its free leaf
 * ports to any of its free spine ports (a circuit). The static wiring,
 * before any rewiring, is the plain leaf-spine fabric: link (n, m, k)
 * leaves leaf n on port p = m*K + k and enters spine m, both on OCS
 * (n*K + p) mod O. Hence each leaf has (S*K)/O ports on every OCS (O
 * divides S*K, checked by ns_cluster_enable_ocs) and spine m has about
 * L*K/O ports on every OCS (exactly, when O divides L*K).
 * A circuit is recorded as placement link (leaf, spine, k = leaf port).
 * Leaf ports are owned one by one; spine ports are counted per (spine,
 * OCS), since a crossbar can use any free one. Only idle ports are ever
 * (re)wired: circuits of running jobs are never touched (§7: OCS switching
 * takes 50 ms, so busy links cannot be rewired).
 */
#include <stdlib.h>

#include "core/internal.h"

int nsi_ocs_init(ns_cluster *c, int ocs_count) {
  size_t ports = (size_t)c->leaves * (size_t)c->spines * (size_t)c->links_per_pair;
  const ns_job **owner = calloc(ports ? ports : 1, sizeof *owner);
  int *used = calloc((size_t)c->spines * (size_t)ocs_count, sizeof *used);
  if (owner == NULL || used == NULL) {
    free(owner);
    free(used);
    return nsi_fail(NS_ENOMEM, "ns_cluster_enable_ocs: out of memory");
  }
  nsi_ocs_free(c);
  c->ocs_leaf_port = owner;
  c->ocs_spine_used = used;
  return NS_OK;
}

void nsi_ocs_free(ns_cluster *c) {
  free(c->ocs_leaf_port);
  free(c->ocs_spine_used);
  c->ocs_leaf_port = NULL;
  c->ocs_spine_used = NULL;
}

int nsi_ocs_spine_ports(const ns_cluster *c, int spine, int ocs) {
  long long O = c->ocs_count, D = (long long)c->leaves * c->links_per_pair;
  /* q = n*K + k runs over [0, D); the port is on OCS (q + spine*K) mod O */
  long long r = ((ocs - (long long)spine * c->links_per_pair) % O + O) % O;
  return r < D ? (int)((D - 1 - r) / O + 1) : 0;
}

/* One pass, O(circuits), no allocation: each circuit is range-checked and
   claimed at once (leaf port owned by `job`, one more spine port used on
   its OCS). The job is not committed, so a leaf port this pass finds owned
   by `job` is used twice. On failure the circuits claimed so far are freed
   again (nsi_ocs_apply with NULL). */
int nsi_ocs_claim_links(ns_cluster *c, const ns_job *job, const ns_placement *p, const char *fn) {
  int U = c->spines * c->links_per_pair, rc = NS_OK;
  size_t i = 0;
  for (; i < p->nlinks; i++) {
    const nsi_uplink *u = &p->links[i];
    if (u->leaf < 0 || u->leaf >= c->leaves || u->spine < 0 || u->spine >= c->spines ||
        u->k < 0 || u->k >= U) {
      rc = nsi_fail(NS_EINVAL, "%s: p's circuit %zu (leaf %d, spine %d, port %d) is not in the "
                               "cluster", fn, i, u->leaf, u->spine, u->k);
      break;
    }
    const ns_job *owner = c->ocs_leaf_port[nsi_leaf_port_index(c, u->leaf, u->k)];
    int o = nsi_ocs_of_leaf_port(c, u->leaf, u->k);
    size_t si = (size_t)u->spine * (size_t)c->ocs_count + (size_t)o;
    if (owner == job)
      rc = nsi_fail(NS_EINVAL, "%s: p uses port %d of leaf %d twice", fn, u->k, u->leaf);
    else if (owner != NULL)
      rc = nsi_fail(NS_ENOSPACE, "%s: port %d of leaf %d is already in use", fn, u->k, u->leaf);
    else if (c->ocs_spine_used[si] + 1 > nsi_ocs_spine_ports(c, u->spine, o))
      rc = nsi_fail(NS_ENOSPACE, "%s: spine %d has no free port left on OCS %d", fn, u->spine, o);
    if (rc != NS_OK)
      break;
    nsi_ocs_apply(c, u, 1, job);
  }
  if (rc != NS_OK)
    nsi_ocs_apply(c, p->links, i, NULL);
  return rc;
}

void nsi_ocs_apply(ns_cluster *c, const nsi_uplink *links, size_t n, const ns_job *job) {
  for (size_t i = 0; i < n; i++) {
    const nsi_uplink *u = &links[i];
    int o = nsi_ocs_of_leaf_port(c, u->leaf, u->k);
    c->ocs_leaf_port[nsi_leaf_port_index(c, u->leaf, u->k)] = job;
    c->ocs_spine_used[(size_t)u->spine * (size_t)c->ocs_count + (size_t)o] += job ? 1 : -1;
  }
}
