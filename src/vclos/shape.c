/*
 * src/vclos/shape.c - the Stage-2 virtual Clos shapes l x s of vClos and
 * OCS-vClos: the sizing rules, the admissibility test and the order in
 * which shapes are tried. The readings of the paper they follow are
 * recorded in vclos.c.
 */
#include <limits.h>

#include "vclos/internal.h"

int vc_first_l(int n, int spines) {
  int pow2 = 1;
  while (pow2 <= n / 2)
    pow2 *= 2; /* 2^floor(log2 n) */
  int l = spines > 0 ? pow2 / spines : 1;
  return l > 1 ? l : 1;
}

int vc_fits_one_leaf(const ns_cluster *c, int n) {
  return ((long long)n + c->gpus_per_server - 1) / c->gpus_per_server <= c->servers_per_leaf;
}

int vc_spines_for(int n, int l, int T, vc_size_rule rule) {
  if (rule != VC_SIZE_POW2) { /* smallest multiple of T with l * s >= n */
    long long per_leaf = ((long long)n + l - 1) / l;
    long long s = (per_leaf + T - 1) / T * T;
    return s <= INT_MAX ? (int)s : INT_MAX;
  }
  long long s = T;
  while ((long long)l * s < n && s <= INT_MAX / 2)
    s *= 2; /* A.2: ports per virtual leaf "as large as possible to a power of 2" */
  return (long long)l * s >= n ? (int)s : INT_MAX;
}

int vc_shape_ok(int l, int s, int n, const ns_cluster *c) {
  (void)n;
  return l > 1 && s <= c->spines && s / c->gpus_per_server <= c->servers_per_leaf;
}

static int is_pow2(long long v) { return v > 0 && (v & (v - 1)) == 0; }

void vc_shapes_begin(vc_shapes *it, const ns_cluster *c, int n, vc_size_rule rule) {
  it->c = c;
  it->n = n;
  it->rule = rule;
  it->l0 = vc_first_l(n, c->spines);
  it->l = it->l0;
  it->pass = 0;
}

/* 1 if l belongs to the doubling sequence l0, 2 l0, 4 l0, ... */
static int in_doubling(long long l, int l0) { return l % l0 == 0 && is_pow2(l / l0); }

int vc_shapes_next(vc_shapes *it, int *l, int *s) {
  const ns_cluster *c = it->c;
  for (;;) {
    long long cand;
    if (it->pass == 0) { /* Alg. 3/4: l0, 2 l0, ... <= L */
      if (it->l > c->leaves) {
        if (it->rule == VC_SIZE_POW2)
          return 0;
        it->pass = 1, it->l = 2;
        continue;
      }
      cand = it->l;
      it->l *= 2;
    } else { /* then every other l, so a job that fits some l x s is placed */
      if (it->l > c->leaves)
        return 0;
      cand = it->l++;
      if (in_doubling(cand, it->l0))
        continue;
    }
    if (it->rule == VC_SIZE_PAPER_POW2_L && !is_pow2(cand))
      continue;
    int sv = vc_spines_for(it->n, (int)cand, c->gpus_per_server, it->rule);
    if (!vc_shape_ok((int)cand, sv, it->n, c))
      continue;
    *l = (int)cand, *s = sv;
    return 1;
  }
}

vc_size_rule vc_rule_for(const ns_job *job, const ns_vclos_opts *o) {
  if (o->power_of_two)
    return VC_SIZE_POW2;
  return job->collective == NS_COLL_HALVING_DOUBLING ? VC_SIZE_PAPER_POW2_L : VC_SIZE_PAPER;
}
