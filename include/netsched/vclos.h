/*
 * netsched/vclos.h - vClos / OCS-vClos: link-isolated virtual Clos placement (SJTU).
 * Included by <netsched.h>; do not include directly.
 */
#ifndef NETSCHED_VCLOS_H
#define NETSCHED_VCLOS_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ns_vclos_opts ns_vclos_opts;

NS_API ns_vclos_opts *ns_vclos_opts_new(void);
NS_API void ns_vclos_opts_free(ns_vclos_opts *o);
/* 1 = CBC ILP, 0 = exact search (default). */
NS_API int ns_vclos_opts_set_solver(ns_vclos_opts *o, int use_milp);
NS_API int ns_vclos_place(const ns_cluster *c, const ns_job *job, const ns_vclos_opts *o,
                          ns_placement *out);
NS_API int ns_placement_virtual_leaves(const ns_placement *p);
NS_API int ns_placement_virtual_spines(const ns_placement *p);
/* Reserved leaf-spine links. */
NS_API int ns_placement_link_count(const ns_placement *p);
NS_API int ns_placement_link(const ns_placement *p, size_t i, int *leaf, int *spine);
/* Source routing. */
NS_API int ns_vclos_route(const ns_cluster *c, int src_gpu, int dst_gpu, int *spine);

#ifdef __cplusplus
}
#endif

#endif
