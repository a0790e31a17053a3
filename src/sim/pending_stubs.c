/*
 * src/sim/pending_stubs.c - TEMPORARY link stubs for public policy functions
 * whose modules have not landed on this branch yet (the shared library links
 * with --no-undefined). Each returns NS_EUNSUPPORTED ("not landed yet"),
 * NULL, or NAN; the simulator reports the policy as unavailable. Delete a
 * stub as soon as `git merge main` brings its real implementation.
 */
#include <math.h>

#include "core/internal.h"
#include "sim/pending.h"

/* cassini */
ns_cassini_opts * ns_cassini_opts_new(void) {
  nsi_fail(NS_EUNSUPPORTED, "ns_cassini_opts_new: module cassini not landed yet");
  return NULL;
}

/* cassini */
void ns_cassini_opts_free(ns_cassini_opts *o) {
  (void)o;
}

/* cassini */
int ns_cassini_opts_set_angle_step_deg(ns_cassini_opts *o, double deg) {
  (void)o;
  (void)deg;
  return nsi_fail(NS_EUNSUPPORTED, "ns_cassini_opts_set_angle_step_deg: module cassini not landed yet");
}

/* cassini */
int ns_cassini_opts_set_time_quantum_ms(ns_cassini_opts *o, double ms) {
  (void)o;
  (void)ms;
  return nsi_fail(NS_EUNSUPPORTED, "ns_cassini_opts_set_time_quantum_ms: module cassini not landed yet");
}

/* cassini */
int ns_cassini_opts_set_threads(ns_cassini_opts *o, int threads) {
  (void)o;
  (void)threads;
  return nsi_fail(NS_EUNSUPPORTED, "ns_cassini_opts_set_threads: module cassini not landed yet");
}

/* cassini */
int ns_cassini_score(const ns_link *link, const ns_cassini_opts *o, double *score, double *shifts_ms, size_t nshifts) {
  (void)link;
  (void)o;
  (void)score;
  (void)shifts_ms;
  (void)nshifts;
  return nsi_fail(NS_EUNSUPPORTED, "ns_cassini_score: module cassini not landed yet");
}

/* cassini */
ns_affinity * ns_affinity_new(void) {
  nsi_fail(NS_EUNSUPPORTED, "ns_affinity_new: module cassini not landed yet");
  return NULL;
}

/* cassini */
void ns_affinity_free(ns_affinity *g) {
  (void)g;
}

/* cassini */
int ns_affinity_add_edge(ns_affinity *g, const ns_job *job, const ns_link *link, double shift_ms) {
  (void)g;
  (void)job;
  (void)link;
  (void)shift_ms;
  return nsi_fail(NS_EUNSUPPORTED, "ns_affinity_add_edge: module cassini not landed yet");
}

/* cassini */
int ns_affinity_has_loop(const ns_affinity *g) {
  (void)g;
  return nsi_fail(NS_EUNSUPPORTED, "ns_affinity_has_loop: module cassini not landed yet");
}

/* cassini */
int ns_affinity_solve(ns_affinity *g) {
  (void)g;
  return nsi_fail(NS_EUNSUPPORTED, "ns_affinity_solve: module cassini not landed yet");
}

/* cassini */
int ns_affinity_shift_ms(const ns_affinity *g, const ns_job *job, double *shift_ms) {
  (void)g;
  (void)job;
  (void)shift_ms;
  return nsi_fail(NS_EUNSUPPORTED, "ns_affinity_shift_ms: module cassini not landed yet");
}

/* cassini */
ns_candidate * ns_candidate_new(void) {
  nsi_fail(NS_EUNSUPPORTED, "ns_candidate_new: module cassini not landed yet");
  return NULL;
}

/* cassini */
void ns_candidate_free(ns_candidate *c) {
  (void)c;
}

/* cassini */
int ns_candidate_add(ns_candidate *c, const ns_job *job, const ns_link *link) {
  (void)c;
  (void)job;
  (void)link;
  return nsi_fail(NS_EUNSUPPORTED, "ns_candidate_add: module cassini not landed yet");
}

/* cassini */
int ns_cassini_rank(ns_candidate *const *cands, size_t n, const ns_cassini_opts *o, size_t *best, double *scores) {
  (void)cands;
  (void)n;
  (void)o;
  (void)best;
  (void)scores;
  return nsi_fail(NS_EUNSUPPORTED, "ns_cassini_rank: module cassini not landed yet");
}

/* cassini */
int ns_candidate_shift_ms(const ns_candidate *c, const ns_job *job, double *shift_ms) {
  (void)c;
  (void)job;
  (void)shift_ms;
  return nsi_fail(NS_EUNSUPPORTED, "ns_candidate_shift_ms: module cassini not landed yet");
}

/* titan */
ns_titan_opts * ns_titan_opts_new(void) {
  nsi_fail(NS_EUNSUPPORTED, "ns_titan_opts_new: module titan not landed yet");
  return NULL;
}

/* titan */
void ns_titan_opts_free(ns_titan_opts *o) {
  (void)o;
}

/* titan */
int ns_titan_opts_set_seed(ns_titan_opts *o, uint64_t seed) {
  (void)o;
  (void)seed;
  return nsi_fail(NS_EUNSUPPORTED, "ns_titan_opts_set_seed: module titan not landed yet");
}

/* titan */
int ns_titan_place(const ns_cluster *c, const ns_job *job, const ns_titan_opts *o, ns_placement *out) {
  (void)c;
  (void)job;
  (void)o;
  (void)out;
  return nsi_fail(NS_EUNSUPPORTED, "ns_titan_place: module titan not landed yet");
}

/* titan */
int ns_collective_traffic(ns_collective c, int workers, uint64_t bytes, int phase, int from, int to, uint64_t *out_bytes) {
  (void)c;
  (void)workers;
  (void)bytes;
  (void)phase;
  (void)from;
  (void)to;
  (void)out_bytes;
  return nsi_fail(NS_EUNSUPPORTED, "ns_collective_traffic: module titan not landed yet");
}

/* titan */
int ns_collective_phase_count(ns_collective c, int workers) {
  (void)c;
  (void)workers;
  return nsi_fail(NS_EUNSUPPORTED, "ns_collective_phase_count: module titan not landed yet");
}

/* vclos */
ns_vclos_opts * ns_vclos_opts_new(void) {
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

