/*
 * src/vclos/fabric.c - the snapshot of a leaf-spine fabric that Stage 2
 * reads (Table 1 / Table 8 of the vClos paper): idle servers R_n per leaf,
 * which (leaf, spine) pairs still have an unused link (C_{n,m} >= 1) as
 * per-leaf spine bitsets, and the free ports RPN(S_m) of every spine.
 */
#include <stdlib.h>
#include <string.h>

#include "vclos/internal.h"

int vc_fabric_build(vc_fabric *f, const ns_cluster *c, const char *fn) {
  memset(f, 0, sizeof *f);
  f->L = c->leaves;
  f->S = c->spines;
  f->T = c->gpus_per_server;
  f->P = c->servers_per_leaf;
  f->K = c->links_per_pair;
  f->words = (c->spines + 63) / 64;
  f->idle = malloc((size_t)f->L * sizeof *f->idle);
  f->rpn = calloc(f->S ? (size_t)f->S : 1, sizeof *f->rpn);
  f->bits = calloc(f->words ? (size_t)f->L * (size_t)f->words : 1, sizeof *f->bits);
  if (!f->idle || !f->rpn || !f->bits) {
    vc_fabric_free(f);
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  }
  for (int n = 0; n < f->L; n++) {
    f->idle[n] = nsi_idle_servers_on_leaf(c, n);
    for (int m = 0; m < f->S; m++) {
      int free_links = 0;
      for (int k = 0; k < f->K; k++)
        free_links += c->link_owner[nsi_link_index(c, n, m, k)] == NULL;
      f->rpn[m] += free_links;
      if (free_links > 0)
        f->bits[(size_t)n * (size_t)f->words + (size_t)(m >> 6)] |= (uint64_t)1 << (m & 63);
    }
  }
  return NS_OK;
}

void vc_fabric_free(vc_fabric *f) {
  free(f->idle);
  free(f->rpn);
  free(f->bits);
  memset(f, 0, sizeof *f);
}

/* Objective (6): sum RPN(S_m) * s_m + sum RSN(L_n) * T * l_n with binary
   s_m, l_n (at most one virtual spine/leaf per physical one, Eq. 2-4). */
int64_t vc_cost(const vc_fabric *f, const int *leaves, int l, const int *spines, int s) {
  int64_t cost = 0;
  for (int i = 0; i < s; i++)
    cost += f->rpn[spines[i]];
  for (int i = 0; i < l; i++)
    cost += (int64_t)f->idle[leaves[i]] * f->T;
  return cost;
}
