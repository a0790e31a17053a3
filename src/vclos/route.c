/*
 * src/vclos/route.c - Source Routing (§5.2): the source GPU alone decides
 * the spine a cross-leaf packet takes.
 *
 * Inside a committed vClos job with s virtual spines, the job's GPUs under
 * one physical leaf form virtual leaves of s GPUs each, in placement order
 * (rank r on the leaf: virtual leaf a = r / s, port i = r mod s), and the
 * job's links from that leaf, in placement order, are its virtual leaves'
 * uplinks: links [a*s, a*s + s) belong to virtual leaf a, one per virtual
 * spine. The GPU on port i of virtual leaf a sends through link a*s + i,
 * i.e. through virtual spine i (§5.2 with f_m(i) = i, one-to-one), and the
 * spine forwards down the link of the destination's virtual leaf to that
 * spine. Each virtual leaf has exactly s ports and s uplinks, so Lemma
 * 5.1 holds inside the job's link-disjoint sub-topology. vClos Stage 2
 * (one virtual leaf per leaf), OCS-vClos Stage 2 (s = 1: a circuit per
 * GPU) and Stage 3 (several virtual leaves per leaf) all use this layout.
 * Outside a vClos job (uncommitted GPU, a job placed by another policy, a
 * destination in another job) the physical mapping f_m(i) = i mod S is
 * used, i being the GPU's port on its physical leaf.
 * Same-leaf traffic uses no spine: *spine = -1.
 */
#include "vclos/internal.h"

static long job_of_gpu(const ns_cluster *c, int gpu) {
  for (size_t i = 0; i < c->ncommits; i++)
    for (size_t j = 0; j < c->commits[i].ngpus; j++)
      if (c->commits[i].gpus[j] == gpu)
        return (long)i;
  return -1;
}

/* Rank of `gpu` among the job's GPUs under its leaf (placement order), or
   -1 if the job does not hold it. */
static int rank_on_leaf(const ns_cluster *c, const nsi_commit *r, int gpu) {
  int leaf = nsi_leaf_of_gpu(c, gpu), rank = 0;
  for (size_t j = 0; j < r->ngpus; j++) {
    if (r->gpus[j] == gpu)
      return rank;
    rank += nsi_leaf_of_gpu(c, r->gpus[j]) == leaf;
  }
  return -1;
}

/* Index (into r->links) of the job's `nth` link out of `leaf`, or -1. */
static int nth_link(const nsi_commit *r, int leaf, int nth) {
  for (size_t j = 0; j < r->nlinks; j++)
    if (r->links[j].leaf == leaf && nth-- == 0)
      return (int)j;
  return -1;
}

/* Routes inside commit r; NS_OK with all three outputs, or NS_ENOTFOUND
   when r's layout does not cover this pair (caller falls back). */
static int route_in_job(const ns_cluster *c, const nsi_commit *r, int src, int dst, int *spine,
                        int *up, int *down) {
  int s = r->virtual_spines, rs = rank_on_leaf(c, r, src), rd = rank_on_leaf(c, r, dst);
  if (s <= 0 || r->nlinks == 0 || rs < 0 || rd < 0)
    return NS_ENOTFOUND;
  int u = nth_link(r, nsi_leaf_of_gpu(c, src), rs); /* port i of virtual leaf a */
  if (u < 0)
    return NS_ENOTFOUND;
  int m = r->links[u].spine, dleaf = nsi_leaf_of_gpu(c, dst), a = rd / s;
  for (int i = 0; i < s; i++) { /* the destination virtual leaf's link to m */
    int d = nth_link(r, dleaf, a * s + i);
    if (d >= 0 && r->links[d].spine == m) {
      *spine = m, *up = u, *down = d;
      return NS_OK;
    }
  }
  return NS_ENOTFOUND;
}

int ns_vclos_route_links(const ns_cluster *c, int src_gpu, int dst_gpu, int *spine,
                         int *up_link, int *down_link) {
  static const char *fn = "ns_vclos_route";
  NSI_TRY(nsi_check_ptr(c, fn, "c"));
  NSI_TRY(nsi_check_int(src_gpu, 0, c->ngpus - 1, fn, "src_gpu"));
  NSI_TRY(nsi_check_int(dst_gpu, 0, c->ngpus - 1, fn, "dst_gpu"));
  NSI_TRY(nsi_check_ptr(spine, fn, "spine"));
  NSI_TRY(nsi_check_ptr(up_link, fn, "up_link"));
  NSI_TRY(nsi_check_ptr(down_link, fn, "down_link"));
  int leaf = nsi_leaf_of_gpu(c, src_gpu), m = -1, up = -1, down = -1;
  if (leaf != nsi_leaf_of_gpu(c, dst_gpu)) { /* §5.2 case 2 */
    if (c->spines == 0)
      return nsi_fail(NS_EUNSUPPORTED, "%s: src_gpu %d and dst_gpu %d are under different "
                                       "leaves but the cluster has no spines", fn, src_gpu,
                      dst_gpu);
    long j = job_of_gpu(c, src_gpu);
    if (j < 0 || route_in_job(c, &c->commits[j], src_gpu, dst_gpu, &m, &up, &down) != NS_OK) {
      int per_leaf = c->servers_per_leaf * c->gpus_per_server;
      m = (src_gpu % per_leaf) % c->spines; /* physical f_m(i) = i mod S */
      up = down = -1;
    }
  }
  *spine = m, *up_link = up, *down_link = down;
  return NS_OK;
}

int ns_vclos_route(const ns_cluster *c, int src_gpu, int dst_gpu, int *spine) {
  int up, down;
  if (c != NULL && spine == NULL && src_gpu >= 0 && src_gpu < c->ngpus && dst_gpu >= 0 &&
      dst_gpu < c->ngpus) /* name this function's argument */
    return nsi_fail(NS_EINVAL, "ns_vclos_route: spine is NULL");
  return ns_vclos_route_links(c, src_gpu, dst_gpu, spine ? spine : &up, &up, &down);
}
