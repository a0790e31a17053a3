/*
 * src/sim/pending_stubs.c - TEMPORARY link stubs for public policy functions
 * whose modules have not landed on this branch yet (the shared library links
 * with --no-undefined). Each returns NS_EUNSUPPORTED ("not landed yet"),
 * NULL, or NAN; the simulator reports the policy as unavailable. Delete a
 * stub as soon as `git merge main` brings its real implementation.
 */
#include <math.h>

#include "core/internal.h"

/* vclos */
ns_vclos_opts *ns_vclos_opts_new(void) {
  nsi_fail(NS_EUNSUPPORTED, "ns_vclos_opts_new: module vclos not landed yet");
  return NULL;
}

/* vclos */
void ns_vclos_opts_free(ns_vclos_opts *o) {
  (void)o;
}

/* vclos */
int ns_vclos_opts_set_solver(ns_vclos_opts *o, int use_milp) {
  (void)o;
  (void)use_milp;
  return nsi_fail(NS_EUNSUPPORTED, "ns_vclos_opts_set_solver: module vclos not landed yet");
}

/* vclos */
int ns_vclos_place(const ns_cluster *c, const ns_job *job, const ns_vclos_opts *o, ns_placement *out) {
  (void)c;
  (void)job;
  (void)o;
  (void)out;
  return nsi_fail(NS_EUNSUPPORTED, "ns_vclos_place: module vclos not landed yet");
}





/* vclos */
int ns_vclos_route(const ns_cluster *c, int src_gpu, int dst_gpu, int *spine) {
  (void)c;
  (void)src_gpu;
  (void)dst_gpu;
  (void)spine;
  return nsi_fail(NS_EUNSUPPORTED, "ns_vclos_route: module vclos not landed yet");
}

