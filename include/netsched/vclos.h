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
 * What a job gets (Stage 2, the paper's N = l * s and N_new, §6): for
 * each l tried, s is the smallest multiple of T with l * s >= N, and the
 * first l whose l x s virtual Clos is free now is taken; the job gets
 * l * s GPUs (s/T whole servers on each of l leaves). l runs
 * l0 = max(1, 2^floor(log2 N) / S), 2 l0, 4 l0, ... <= L (Alg. 3/4), then
 * every other l in 2..L, so a job that fits some l x s is placed. N gets
 * more GPUs than asked only when it does not factor as l * s with T | s:
 * on 8 leaves x 16 spines x 4 servers x 4 GPUs, N = 24, 48, 96, 20, 64 get
 * 24 (2 x 12), 48 (4 x 12), 96 (8 x 12), 24 (2 x 12) and 64 (4 x 16).
 * Contention-free (Lemma 5.1, tests/unit/test_vclos.c): the GPU order of
 * the placement is the worker rank. Ring and pair-wise all-to-all jobs get
 * their GPUs leaf by leaf; halving-doubling jobs (ns_job_set_collective)
 * with the pre-step for N not a power of two (src/core/collective.c) get
 * an interleaved order that makes every phase a leaf-wise permutation, and
 * only power-of-two l (the layout needs it). Ring is contention-free in
 * both orders.
 * ns_vclos_opts_set_power_of_two(o, 1) restores the earlier rule for
 * users who run plain recursive halving-doubling without the pre-step:
 * s = T * 2^j, l doubled only, leaf-by-leaf order (N = 24 above -> 32).
 * OCS-vClos Stage 3 keeps that rule for halving-doubling jobs (its
 * layout is leaf by leaf).
 * Objective (6): among feasible l x s virtual Clos, minimise
 * sum RPN(S_m) + T * sum RSN(L_n) (free ports of the chosen spines, idle
 * servers of the chosen leaves): pack jobs where resources are scarce.
 * OCS layer (ns_cluster_enable_ocs): each leaf port and spine port sits on
 * one OCS, a crossbar; jobs get circuits between idle ports only, and a
 * placement link is then a circuit (leaf, spine) from one leaf port.
 * Cost (S spines, L leaves, O OCSes, N GPUs): Stages 0-1 scan the servers
 * and leaves, O(servers + L log L); Stage 2 (exact search) tries each
 * shape l x s, O(shapes x (L log L + S log S + l x s)) - 0.08 s for a
 * 262,144-GPU job on 2^22 GPUs (bench/RESULTS.md); the commit that
 * follows is O(N + l x s). Stage 3 (OCS) builds an ILP of L x S x O circuit
 * variables and solves it with CBC under the time limit (default 10 s, the
 * one decision of the library that may take longer than 1 s by design);
 * beyond NS_VCLOS_OCS_ILP_MAX_VARS variables the model itself would not
 * fit the time or memory budget, and ns_vclos_place returns
 * NS_EUNSUPPORTED at once, naming the size.
 * Status of ns_vclos_place: NS_OK; NS_ENOSPACE (no placement now: wait);
 * NS_EINVAL (bad argument, job larger than the fabric -- the
 * status every policy uses for that, see core.h -- or no stage could hold
 * it on this fabric even empty: no l x s shape, more than one leaf's
 * servers, and with OCS no single spine; a job with no l x s shape that
 * one leaf could hold, e.g. with fewer spines than GPUs per server, gets
 * NS_ENOSPACE and waits for a leaf); NS_EUNSUPPORTED (a multi-leaf job on a
 * cluster without spines, or an OCS-vClos Stage 3 ILP beyond
 * NS_VCLOS_OCS_ILP_MAX_VARS); NS_ESOLVER (CBC failed or hit its time limit;
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

/* Largest OCS-vClos Stage 3 ILP attempted: leaves x spines x OCSes circuit
   variables (16 x 64 x 64; 16 x 64 x 16 = 16,384 takes ~4 s with CBC). */
#define NS_VCLOS_OCS_ILP_MAX_VARS 65536

/* Defaults: exact search, CBC time limit 10 s. NULL on OOM. */
NS_API ns_vclos_opts *ns_vclos_opts_new(void);
NS_API void ns_vclos_opts_free(ns_vclos_opts *o); /* NULL: no-op */
/* 1 = CBC ILP, 0 = exact search (default). Both return a placement of the
   same (optimal) objective (6); they may break ties differently. */
NS_API int ns_vclos_opts_set_solver(ns_vclos_opts *o, int use_milp);
/* Extension: wall-clock limit per CBC solve, ms (finite, > 0; default
   10000). A solve that hits it fails with NS_ESOLVER. */
NS_API int ns_vclos_opts_set_time_limit_ms(ns_vclos_opts *o, double ms);
/* Extension: 1 = size Stage 2 as s = T * 2^j with l only doubled (plain
   recursive halving-doubling, no pre-step); 0 = the paper's sizing
   (default; see above). NS_EINVAL for a NULL o or `enabled` not 0/1. */
NS_API int ns_vclos_opts_set_power_of_two(ns_vclos_opts *o, int enabled);

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
