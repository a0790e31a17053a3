/*
 * netsched/vclos.h - vClos / OCS-vClos: link-isolated virtual Clos placement (SJTU).
 * Included by <netsched.h>; do not include directly.
 *
 * Every multi-server job gets its own virtual Clos: l leaves x s spines,
 * each chosen leaf contributing s/T whole idle servers and one reserved
 * link to each chosen spine (§6, Appendix A.2). No two jobs share a link,
 * and Source Routing (§5.2) makes ring, halving-doubling and pair-wise
 * all-to-all contention-free inside the job (Lemma 5.1).
 *
 * Decision stages (ns_vclos_place_ex reports which one decided):
 *   0  N <= T: the server with the fewest free GPUs that still fits N
 *   1  N > T: the leaf with the fewest idle servers among those with
 *      ceil(N/T) idle servers (no spine links)
 *   2  vClos: l x s virtual Clos. OCS-vClos: a single spine reached through
 *      OCS circuits of idle ports (§7.2), one circuit per GPU
 *   3  OCS-vClos only: l x s virtual Clos over rewired idle OCS ports, an
 *      ILP after Appendix A.3 (always solved by CBC)
 * Size rounding (the paper's N_new): a virtual leaf holds s/T whole idle
 * servers and s ports, a power-of-two multiple of T (Appendix A.2; needed
 * for Lemma 5.1 under halving-doubling). For l = max(1, 2^floor(log2 N)
 * / S), doubled while l <= L, s is the smallest T * 2^j with l * s >= N,
 * and the first l whose l x s virtual Clos exists is taken (l = 1 is
 * Stage 1). The job gets N_new = l * s GPUs: the placement may hold more
 * GPUs than the job asked for (e.g. N = 40 on 8-GPU servers and 32
 * spines: 2 x 32 = 64).
 * Objective (6): among feasible l x s virtual Clos, minimise
 * sum RPN(S_m) + T * sum RSN(L_n) (free ports of the chosen spines, idle
 * servers of the chosen leaves): pack jobs where resources are scarce.
 * OCS layer (ns_cluster_enable_ocs): each leaf port and spine port sits on
 * one OCS, a crossbar; jobs get circuits between idle ports only, and a
 * placement link is then a circuit (leaf, spine) from one leaf port.
 * Status of ns_vclos_place: NS_OK; NS_ENOSPACE (no placement now: wait);
 * NS_EINVAL (bad argument, job larger than the fabric, or no l x s shape
 * fits this fabric even empty); NS_EUNSUPPORTED (a multi-leaf job on a
 * cluster without spines); NS_ESOLVER (CBC failed or hit its time limit;
 * the message carries CBC's status); NS_ERANGE (the exact search exceeded
 * its node budget). `out` and the cluster are untouched on failure.
 * Thread safety: the exact search keeps no shared state, so distinct
 * clusters may be placed from different threads. The ILP path runs CBC
 * (CbcMain1), which this library does not vouch for: serialise ILP calls
 * across threads.
 */
#ifndef NETSCHED_VCLOS_H
#define NETSCHED_VCLOS_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ns_vclos_opts ns_vclos_opts;

/* Defaults: exact search, CBC time limit 10 s. NULL on OOM. */
NS_API ns_vclos_opts *ns_vclos_opts_new(void);
NS_API void ns_vclos_opts_free(ns_vclos_opts *o); /* NULL: no-op */
/* 1 = CBC ILP, 0 = exact search (default). Both return a placement of the
   same (optimal) objective (6); they may break ties differently. */
NS_API int ns_vclos_opts_set_solver(ns_vclos_opts *o, int use_milp);
/* Extension: wall-clock limit per CBC solve, ms (finite, > 0; default
   10000). A solve that hits it fails with NS_ESOLVER. */
NS_API int ns_vclos_opts_set_time_limit_ms(ns_vclos_opts *o, double ms);

/* Fills `out` (cleared first) with GPUs, virtual leaf/spine counts and the
   reserved leaf-spine links; never mutates the cluster. Commit it with
   ns_cluster_commit, which reserves the links; release frees them. */
NS_API int ns_vclos_place(const ns_cluster *c, const ns_job *job, const ns_vclos_opts *o,
                          ns_placement *out);
/* Extension: as ns_vclos_place, and *stage (if non-NULL) = the stage that
   decided (0-3, see above). */
NS_API int ns_vclos_place_ex(const ns_cluster *c, const ns_job *job, const ns_vclos_opts *o,
                             ns_placement *out, int *stage);
NS_API int ns_placement_virtual_leaves(const ns_placement *p);
NS_API int ns_placement_virtual_spines(const ns_placement *p);
/* Reserved leaf-spine links (in OCS mode: circuits, one per leaf port). */
NS_API int ns_placement_link_count(const ns_placement *p);
NS_API int ns_placement_link(const ns_placement *p, size_t i, int *leaf, int *spine);

/* Source routing (§5.2): the spine a packet from src_gpu to dst_gpu
   crosses, or -1 when both are under the same leaf. Inside a committed
   vClos job, the GPU on port i of its virtual leaf uses the job's i-th
   link from that leaf (virtual spine i); otherwise the physical mapping
   spine = (port on the leaf) mod S. NS_EINVAL for ids out of range,
   NS_EUNSUPPORTED for different leaves in a cluster without spines. */
NS_API int ns_vclos_route(const ns_cluster *c, int src_gpu, int dst_gpu, int *spine);
/* Extension: as ns_vclos_route, and the links the packet takes inside the
   committed job that holds both GPUs, as indexes into that job's
   placement links (ns_cluster_job_placement + ns_placement_link): the
   uplink from src's leaf and the downlink into dst's leaf. Both are -1
   when no spine is crossed or the GPUs are not in one vClos job. */
NS_API int ns_vclos_route_links(const ns_cluster *c, int src_gpu, int dst_gpu, int *spine,
                                int *up_link, int *down_link);

/* Extension, OCS layer: free leaf ports of `leaf` / free spine ports of
   `spine` on OCS `ocs` (NS_EINVAL out of range, NS_ESTATE without OCS). */
NS_API int ns_cluster_ocs_free_leaf_ports(const ns_cluster *c, int leaf, int ocs);
NS_API int ns_cluster_ocs_free_spine_ports(const ns_cluster *c, int spine, int ocs);

#ifdef __cplusplus
}
#endif

#endif
