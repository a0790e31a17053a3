/*
 * src/sim/opts.c - simulator options; the named policy presets are the
 * policy object's (ns_policy_preset_*, src/policy/presets.c).
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_internal.h"


/* The presets are the policy object's table (src/policy/presets.c,
   ns_policy_preset_*): the enums agree value for value (checked below). */
_Static_assert((int)NS_SIM_ORDER_2D_GITTINS == (int)NS_POLICY_ORDER_2D_GITTINS &&
                   (int)NS_SIM_ORDER_NW_SENS == (int)NS_POLICY_ORDER_NW_SENS,
               "ns_sim_order and ns_policy_order agree");
_Static_assert((int)NS_SIM_PLACE_CUSTOM == (int)NS_POLICY_PLACE_CUSTOM &&
                   (int)NS_SIM_PLACE_DALLY == (int)NS_POLICY_PLACE_DALLY &&
                   (int)NS_SIM_PLACE_OCS_VCLOS == (int)NS_POLICY_PLACE_OCS_VCLOS,
               "ns_sim_placement and ns_policy_placement agree");
_Static_assert((int)NS_SIM_ADMIT_ADADUAL == (int)NS_POLICY_ADMIT_ADADUAL,
               "ns_sim_admission and ns_policy_admission agree");
#define NPRESETS ns_policy_preset_count()

int ns_sim_policy_count(void) { return NPRESETS; }

const char *ns_sim_policy_name(int policy) { return ns_policy_preset_name(policy); }

const char *ns_sim_policy_description(int policy) { return ns_policy_preset_description(policy); }

/* The policy parts (order, placement, kappa, admission, CASSINI,
   backfilling) live in one ns_policy the options hold (o->parts): its
   setters validate them, the ns_sim_opts_set_* of those parts forward to
   them with the caller's function name in the message. */
static int forward(int rc, const char *policy_fn, const char *fn) {
  if (rc >= 0)
    return rc;
  const char *m = ns_last_error();
  size_t n = strlen(policy_fn);
  if (strncmp(m, policy_fn, n) == 0)
    m += n;
  else
    return nsi_fail(rc, "%s: %s", fn, m);
  char tail[512];
  snprintf(tail, sizeof tail, "%s", m);
  return nsi_fail(rc, "%s%s", fn, tail);
}

/* The default contention curve e(k), k concurrent all-reduces on a link.
   Fitted to the HKBU measurements of ring all-reduces on 10 GbE
   (HKBU-HPML/dl-scheduling, offline/network_contention: alpha-beta.csv
   and results.csv; ../shared/data/contention/allreduce-latency-single.csv
   and -vs-concurrency.csv, not copied here): the single job gives
   t(1, M) = alpha + beta M with alpha = 14.92 ms, beta = 9.92 ms per 1e6
   bytes (least squares over 10-100 MiB); for each k the 10, 20 and 40 MiB
   rows give e(k) by least squares of the relative error of
   t(k, M) = alpha + k M beta / e(k). Over the 48 rows (k = 1..16) the
   curve's mean |error| is 7.9 %, the worst 21 % (k = 4, 10 MiB: the rows
   are not monotonic in k); the jump at k = 9 is in the data. Past k = 16
   the curve stays at e(16). tests/unit/test_sim_contention.c re-derives
   the error from the files when they are present. */
static const double default_curve_e[] = {1.000, 0.794, 0.754, 0.892, 0.741, 0.724,
                                         0.757, 0.798, 0.506, 0.576, 0.556, 0.523,
                                         0.561, 0.568, 0.619, 0.605};

static void default_curve(ns_sim_opts *o) {
  o->curve_n = (int)(sizeof default_curve_e / sizeof *default_curve_e);
  for (int i = 0; i < o->curve_n; i++)
    o->curve_k[i] = i + 1, o->curve_e[i] = default_curve_e[i];
}

ns_sim_opts *ns_sim_opts_new(void) {
  ns_sim_opts *o = calloc(1, sizeof *o);
  if (o == NULL) {
    nsi_fail(NS_ENOMEM, "ns_sim_opts_new: out of memory");
    return NULL;
  }
  if ((o->parts = ns_policy_new("ff")) == NULL) {
    free(o);
    nsi_fail(NS_ENOMEM, "ns_sim_opts_new: out of memory");
    return NULL;
  }
  o->network = NS_SIM_NET_PHASE;
  o->phase_window = 16;
  /* CASSINI's drift (5 %, §5.7) and rule (re-adjust): o->parts' defaults */
  o->leaves = 4, o->spines = 8, o->servers_per_leaf = 4, o->gpus_per_server = 4;
  o->links_per_pair = 2, o->link_gbps = 10.0; /* one uplink per GPU port (vClos) */
  o->nic_gbps = 0.0, o->intra_gbps = 100.0;
  o->eq5_a = 0.0, o->eq5_b = -1.0, o->eq5_eta = -1.0;
  o->seed = 1;
  o->dally_machine_ms = o->dally_rack_ms = 12 * 3600e3; /* Dally §4.3 defaults */
  o->dally_history_ms = 7 * 24 * 3600e3;
  o->dally_lease_ms = NSI_DALLY_LEASE_MS; /* Themis-lease preemption (policy.c) */
  o->restore_ms = 0.0; /* LAS queues, starvation, Gittins samples: o->parts' defaults */
  o->skew_bytes = 200000000ull; /* VGG-16, LSTM-PTB skewed; ResNet-50, Inception-V3 not */
  o->nic_ports = 1; /* one NIC per server: the AdaDUAL testbed of the embedded workload */
  default_curve(o);
  return o;
}

void ns_sim_opts_free(ns_sim_opts *o) {
  nsi_sim_opts_release(o);
  free(o);
}

void nsi_sim_opts_release(ns_sim_opts *o) {
  if (o == NULL)
    return;
  ns_policy_free(o->parts);
  o->parts = NULL;
}

/* dst = src with its own copy of the policy parts (the simulator's copy of
   the options it was made with). */
int nsi_sim_opts_copy(ns_sim_opts *dst, const ns_sim_opts *src, const char *fn) {
  *dst = *src;
  if ((dst->parts = ns_policy_clone(src->parts)) == NULL)
    return nsi_fail(NS_ENOMEM, "%s: out of memory for the policy parts", fn);
  return NS_OK;
}

int ns_sim_opts_set_policy(ns_sim_opts *o, ns_sim_policy policy) {
  NSI_TRY(nsi_check_ptr(o, "ns_sim_opts_set_policy", "o"));
  NSI_TRY(nsi_check_int((long long)policy, 0, NPRESETS - 1, "ns_sim_opts_set_policy", "policy"));
  return forward(ns_policy_set_preset(o->parts, ns_policy_preset_name((int)policy)),
                 "ns_policy_set_preset", "ns_sim_opts_set_policy");
}

static int unknown_policy(const char *name) {
  const char *names[64];
  int n = NPRESETS < 64 ? NPRESETS : 64;
  for (int i = 0; i < n; i++)
    names[i] = ns_policy_preset_name(i);
  return nsi_fail_unknown_name("ns_sim_opts_set_policy_name", "name", name, "policy", names, n);
}

int ns_sim_opts_set_policy_name(ns_sim_opts *o, const char *name) {
  NSI_TRY(nsi_check_ptr(o, "ns_sim_opts_set_policy_name", "o"));
  NSI_TRY(nsi_check_ptr(name, "ns_sim_opts_set_policy_name", "name"));
  for (int i = 0; i < NPRESETS; i++)
    if (strcmp(name, ns_policy_preset_name(i)) == 0)
      return forward(ns_policy_set_preset(o->parts, name), "ns_policy_set_preset",
                     "ns_sim_opts_set_policy_name");
  return unknown_policy(name);
}

const char *ns_sim_opts_policy_name(const ns_sim_opts *o) {
  if (o == NULL)
    return "";
  return ns_policy_name(o->parts);
}

int ns_sim_opts_set_order(ns_sim_opts *o, ns_sim_order order) {
  NSI_TRY(nsi_check_ptr(o, "ns_sim_opts_set_order", "o"));
  return forward(ns_policy_set_order(o->parts, (ns_policy_order)order), "ns_policy_set_order",
                 "ns_sim_opts_set_order");
}

int ns_sim_opts_set_placement(ns_sim_opts *o, ns_sim_placement placement) {
  NSI_TRY(nsi_check_ptr(o, "ns_sim_opts_set_placement", "o"));
  NSI_TRY(nsi_check_int((long long)placement, 0, NS_SIM_PLACE_CUSTOM, "ns_sim_opts_set_placement",
                        "placement"));
  if (placement == NS_SIM_PLACE_CUSTOM && o->place_fn == NULL)
    return nsi_fail(NS_EINVAL, "ns_sim_opts_set_placement: placement CUSTOM needs "
                               "ns_sim_opts_set_place_fn first");
  return forward(ns_policy_set_placement(o->parts, (ns_policy_placement)placement),
                 "ns_policy_set_placement", "ns_sim_opts_set_placement");
}

int ns_sim_opts_set_kappa(ns_sim_opts *o, int kappa) {
  NSI_TRY(nsi_check_ptr(o, "ns_sim_opts_set_kappa", "o"));
  return forward(ns_policy_set_kappa(o->parts, kappa), "ns_policy_set_kappa",
                 "ns_sim_opts_set_kappa");
}

int ns_sim_opts_set_admission(ns_sim_opts *o, ns_sim_admission admission, int n) {
  NSI_TRY(nsi_check_ptr(o, "ns_sim_opts_set_admission", "o"));
  NSI_TRY(nsi_check_int((long long)admission, 0, NS_SIM_ADMIT_ADADUAL, "ns_sim_opts_set_admission",
                        "admission"));
  NSI_TRY(nsi_check_int(n, 1, 64, "ns_sim_opts_set_admission", "n")); /* the simulator's range */
  return forward(ns_policy_set_admission(o->parts, (ns_policy_admission)admission, n),
                 "ns_policy_set_admission", "ns_sim_opts_set_admission");
}

int ns_sim_opts_set_cassini(ns_sim_opts *o, int enabled, int max_candidates) {
  NSI_TRY(nsi_check_ptr(o, "ns_sim_opts_set_cassini", "o"));
  return forward(ns_policy_set_cassini(o->parts, enabled, max_candidates),
                 "ns_policy_set_cassini", "ns_sim_opts_set_cassini");
}

int ns_sim_opts_set_network(ns_sim_opts *o, ns_sim_network model) {
  NSI_TRY(nsi_check_ptr(o, "ns_sim_opts_set_network", "o"));
  NSI_TRY(nsi_check_int((long long)model, 0, NS_SIM_NET_IDEAL, "ns_sim_opts_set_network",
                        "model"));
  o->network = model;
  return NS_OK;
}

int ns_sim_opts_set_cluster(ns_sim_opts *o, int leaves, int spines, int servers_per_leaf,
                            int gpus_per_server, int links_per_pair, double link_gbps) {
  static const char fn[] = "ns_sim_opts_set_cluster";
  NSI_TRY(nsi_check_ptr(o, fn, "o"));
  /* Validate by building the cluster once: the core owns the limits. */
  ns_cluster *c = ns_cluster_new_leaf_spine(leaves, spines, servers_per_leaf, gpus_per_server,
                                            links_per_pair, link_gbps);
  if (c == NULL)
    return nsi_fail(NS_EINVAL, "%s: %s", fn, ns_last_error());
  ns_cluster_free(c);
  o->leaves = leaves, o->spines = spines, o->servers_per_leaf = servers_per_leaf;
  o->gpus_per_server = gpus_per_server, o->links_per_pair = links_per_pair;
  o->link_gbps = link_gbps;
  return NS_OK;
}

int ns_sim_opts_set_bandwidth(ns_sim_opts *o, double nic_gbps, double intra_gbps) {
  NSI_TRY(nsi_check_ptr(o, "ns_sim_opts_set_bandwidth", "o"));
  NSI_TRY(nsi_check_finite_ge0(nic_gbps, "ns_sim_opts_set_bandwidth", "nic_gbps"));
  NSI_TRY(nsi_check_finite_gt0(intra_gbps, "ns_sim_opts_set_bandwidth", "intra_gbps"));
  o->nic_gbps = nic_gbps, o->intra_gbps = intra_gbps;
  return NS_OK;
}

int ns_sim_opts_set_contention(ns_sim_opts *o, double a_ms, double b_ms_per_byte,
                               double eta_ms_per_byte) {
  static const char fn[] = "ns_sim_opts_set_contention";
  NSI_TRY(nsi_check_ptr(o, fn, "o"));
  NSI_TRY(nsi_check_finite_ge0(a_ms, fn, "a_ms"));
  NSI_TRY(nsi_check_finite_ge0(b_ms_per_byte, fn, "b_ms_per_byte"));
  NSI_TRY(nsi_check_finite_ge0(eta_ms_per_byte, fn, "eta_ms_per_byte"));
  o->eq5_a = a_ms, o->eq5_b = b_ms_per_byte, o->eq5_eta = eta_ms_per_byte;
  return NS_OK;
}

int ns_sim_opts_set_seed(ns_sim_opts *o, uint64_t seed) {
  NSI_TRY(nsi_check_ptr(o, "ns_sim_opts_set_seed", "o"));
  o->seed = seed;
  return NS_OK;
}

int ns_sim_opts_set_dally(ns_sim_opts *o, double machine_ms, double rack_ms, double history_ms) {
  static const char fn[] = "ns_sim_opts_set_dally";
  NSI_TRY(nsi_check_ptr(o, fn, "o"));
  NSI_TRY(nsi_check_finite_ge0(machine_ms, fn, "machine_ms"));
  NSI_TRY(nsi_check_finite_ge0(rack_ms, fn, "rack_ms"));
  NSI_TRY(nsi_check_finite_gt0(history_ms, fn, "history_ms"));
  o->dally_machine_ms = machine_ms, o->dally_rack_ms = rack_ms, o->dally_history_ms = history_ms;
  return NS_OK;
}

int ns_sim_opts_set_dally_preemption(ns_sim_opts *o, int enabled) {
  NSI_TRY(nsi_check_ptr(o, "ns_sim_opts_set_dally_preemption", "o"));
  NSI_TRY(nsi_check_int(enabled, 0, 1, "ns_sim_opts_set_dally_preemption", "enabled"));
  o->dally_no_preempt = !enabled;
  return NS_OK;
}

int ns_sim_opts_set_dally_lease(ns_sim_opts *o, double lease_ms) {
  static const char fn[] = "ns_sim_opts_set_dally_lease";
  NSI_TRY(nsi_check_ptr(o, fn, "o"));
  NSI_TRY(nsi_check_finite_ge0(lease_ms, fn, "lease_ms"));
  if (lease_ms > 0 && lease_ms < NSI_DALLY_MIN_LEASE_MS)
    return nsi_fail(NS_EINVAL, "%s: lease_ms must be 0 (no leases) or at least %g ms (got %s)",
                    fn, NSI_DALLY_MIN_LEASE_MS, NSI_REAL_STR(lease_ms));
  o->dally_lease_ms = lease_ms;
  return NS_OK;
}

int ns_sim_opts_set_skew_threshold(ns_sim_opts *o, uint64_t bytes) {
  NSI_TRY(nsi_check_ptr(o, "ns_sim_opts_set_skew_threshold", "o"));
  o->skew_bytes = bytes;
  return NS_OK;
}

int ns_sim_opts_set_place_fn(ns_sim_opts *o, ns_sim_place_fn fn, void *user) {
  NSI_TRY(nsi_check_ptr(o, "ns_sim_opts_set_place_fn", "o"));
  if (fn == NULL)
    return nsi_fail(NS_EINVAL, "ns_sim_opts_set_place_fn: fn is NULL");
  NSI_TRY(forward(ns_policy_set_placement(o->parts, NS_POLICY_PLACE_CUSTOM),
                  "ns_policy_set_placement", "ns_sim_opts_set_place_fn"));
  o->place_fn = fn, o->place_user = user;
  return NS_OK;
}

int ns_sim_opts_set_backfill(ns_sim_opts *o, int enabled) {
  NSI_TRY(nsi_check_ptr(o, "ns_sim_opts_set_backfill", "o"));
  return forward(ns_policy_set_backfill(o->parts, enabled), "ns_policy_set_backfill",
                 "ns_sim_opts_set_backfill");
}

/* The preemptive orders' options live in the policy parts (src/policy/las.c
   reads them): the same checks and messages, under this function's name. */
int ns_sim_opts_set_las_queues(ns_sim_opts *o, int queues, const double *thresholds_gpu_ms) {
  NSI_TRY(nsi_check_ptr(o, "ns_sim_opts_set_las_queues", "o"));
  return forward(ns_policy_set_las_queues(o->parts, queues, thresholds_gpu_ms),
                 "ns_policy_set_las_queues", "ns_sim_opts_set_las_queues");
}

int ns_sim_opts_set_starvation(ns_sim_opts *o, double knob) {
  NSI_TRY(nsi_check_ptr(o, "ns_sim_opts_set_starvation", "o"));
  return forward(ns_policy_set_starvation(o->parts, knob), "ns_policy_set_starvation",
                 "ns_sim_opts_set_starvation");
}

int ns_sim_opts_set_preemption_overhead(ns_sim_opts *o, double restore_ms) {
  NSI_TRY(nsi_check_ptr(o, "ns_sim_opts_set_preemption_overhead", "o"));
  NSI_TRY(nsi_check_finite_ge0(restore_ms, "ns_sim_opts_set_preemption_overhead", "restore_ms"));
  o->restore_ms = restore_ms;
  return NS_OK;
}

int ns_sim_opts_set_gittins_samples(ns_sim_opts *o, const double *gpu_time_samples, size_t n) {
  NSI_TRY(nsi_check_ptr(o, "ns_sim_opts_set_gittins_samples", "o"));
  NSI_TRY(forward(ns_policy_set_gittins_samples(o->parts, gpu_time_samples, n),
                  "ns_policy_set_gittins_samples", "ns_sim_opts_set_gittins_samples"));
  o->git_set = n > 0; /* none: the workload's own distribution at each run */
  return NS_OK;
}

int ns_sim_opts_set_gpu_sharing(ns_sim_opts *o, int shared) {
  NSI_TRY(nsi_check_ptr(o, "ns_sim_opts_set_gpu_sharing", "o"));
  NSI_TRY(nsi_check_int(shared, 0, 1, "ns_sim_opts_set_gpu_sharing", "shared"));
  o->gpu_sharing = shared;
  return NS_OK;
}

int ns_sim_opts_set_phase_window(ns_sim_opts *o, int iterations) {
  NSI_TRY(nsi_check_ptr(o, "ns_sim_opts_set_phase_window", "o"));
  NSI_TRY(nsi_check_int(iterations, 0, 1 << 20, "ns_sim_opts_set_phase_window", "iterations"));
  o->phase_window = iterations;
  return NS_OK;
}

int ns_sim_opts_set_cassini_drift(ns_sim_opts *o, double fraction) {
  NSI_TRY(nsi_check_ptr(o, "ns_sim_opts_set_cassini_drift", "o"));
  NSI_TRY(nsi_check_finite_ge0(fraction, "ns_sim_opts_set_cassini_drift", "fraction"));
  if (fraction > 0.5)
    return nsi_fail(NS_EINVAL, "ns_sim_opts_set_cassini_drift: fraction must be in [0, 0.5] "
                               "(got %s)", NSI_REAL_STR(fraction));
  /* the policy's threshold (src/policy/drift.c decides the re-adjustments) */
  return forward(ns_policy_set_cassini_drift(o->parts, fraction), "ns_policy_set_cassini_drift",
                 "ns_sim_opts_set_cassini_drift");
}

/* ---- network-model issue: contention curve, latency, NICs, GPU memory --- */

int ns_sim_opts_set_contention_curve(ns_sim_opts *o, const double *k, const double *e, size_t n) {
  static const char fn[] = "ns_sim_opts_set_contention_curve";
  NSI_TRY(nsi_check_ptr(o, fn, "o"));
  if (n > NSI_CURVE_MAX)
    return nsi_fail(NS_EINVAL, "%s: n must be at most %d points (got %zu)", fn, NSI_CURVE_MAX, n);
  if (n > 0) {
    NSI_TRY(nsi_check_ptr(k, fn, "k"));
    NSI_TRY(nsi_check_ptr(e, fn, "e"));
  }
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(k[i]) || k[i] < 1 || k[i] > 1e9)
      return nsi_fail(NS_EINVAL, "%s: k[%zu] must be a job count in [1, 1e9] (got %s)", fn, i,
                      NSI_REAL_STR(k[i]));
    if (i > 0 && !(k[i] > k[i - 1]))
      return nsi_fail(NS_EINVAL, "%s: k must be strictly ascending (k[%zu] = %s after %s)", fn,
                      i, NSI_REAL_STR(k[i]), NSI_REAL_STR(k[i - 1]));
    if (!isfinite(e[i]) || !(e[i] > 0) || e[i] > 1)
      return nsi_fail(NS_EINVAL, "%s: e[%zu] must be a fraction of capacity in (0, 1] (got %s)",
                      fn, i, NSI_REAL_STR(e[i]));
    if (k[i] < 2 && e[i] != 1)
      return nsi_fail(NS_EINVAL, "%s: e(1) must be 1, a lone all-reduce loses nothing (got "
                      "e[%zu] = %s at k = %s)", fn, i, NSI_REAL_STR(e[i]), NSI_REAL_STR(k[i]));
  }
  o->curve_n = (int)n;
  for (size_t i = 0; i < n; i++)
    o->curve_k[i] = k[i], o->curve_e[i] = e[i];
  return NS_OK;
}

int ns_sim_opts_set_default_contention_curve(ns_sim_opts *o) {
  NSI_TRY(nsi_check_ptr(o, "ns_sim_opts_set_default_contention_curve", "o"));
  default_curve(o);
  return NS_OK;
}

/* Linear between points, (1, 1) before the first, flat past the last. */
double nsi_sim_curve(const ns_sim_opts *o, int k) {
  if (k <= 1 || o->curve_n == 0)
    return 1.0;
  double k0 = 1.0, e0 = 1.0;
  for (int i = 0; i < o->curve_n; i++) {
    double k1 = o->curve_k[i], e1 = o->curve_e[i];
    if (k <= k1)
      return k1 == k0 ? e1 : e0 + (e1 - e0) * ((double)k - k0) / (k1 - k0);
    k0 = k1, e0 = e1;
  }
  return e0;
}

double ns_sim_opts_contention_factor(const ns_sim_opts *o, int k) {
  static const char fn[] = "ns_sim_opts_contention_factor";
  if (nsi_check_ptr(o, fn, "o") < 0 || nsi_check_int(k, 1, INT_MAX, fn, "k") < 0)
    return NAN;
  return nsi_sim_curve(o, k);
}

int ns_sim_opts_set_allreduce_latency(ns_sim_opts *o, double alpha_ms) {
  static const char fn[] = "ns_sim_opts_set_allreduce_latency";
  NSI_TRY(nsi_check_ptr(o, fn, "o"));
  NSI_TRY(nsi_check_finite_ge0(alpha_ms, fn, "alpha_ms"));
  if (alpha_ms > 3.6e6)
    return nsi_fail(NS_EINVAL, "%s: alpha_ms must be at most 3.6e6 (one hour; got %s)", fn,
                    NSI_REAL_STR(alpha_ms));
  o->alpha_ms = alpha_ms;
  return NS_OK;
}

int ns_sim_opts_set_nics(ns_sim_opts *o, int nics_per_server, double gbps) {
  static const char fn[] = "ns_sim_opts_set_nics";
  NSI_TRY(nsi_check_ptr(o, fn, "o"));
  NSI_TRY(nsi_check_int(nics_per_server, 0, 4194304, fn, "nics_per_server"));
  NSI_TRY(nsi_check_finite_ge0(gbps, fn, "gbps"));
  o->nic_ports = nics_per_server, o->nic_gbps = gbps;
  return NS_OK;
}

int nsi_sim_nic_ports(const ns_sim_opts *o) {
  return o->nic_ports == 0 ? o->gpus_per_server : o->nic_ports;
}

int ns_sim_opts_set_gpu_memory(ns_sim_opts *o, double mb) {
  static const char fn[] = "ns_sim_opts_set_gpu_memory";
  NSI_TRY(nsi_check_ptr(o, fn, "o"));
  NSI_TRY(nsi_check_finite_ge0(mb, fn, "mb"));
  o->gpu_mem_mb = mb;
  return NS_OK;
}

int ns_sim_opts_set_cassini_drift_rule(ns_sim_opts *o, ns_sim_drift_rule rule) {
  static const char fn[] = "ns_sim_opts_set_cassini_drift_rule";
  NSI_TRY(nsi_check_ptr(o, fn, "o"));
  NSI_TRY(nsi_check_int((long long)rule, NS_SIM_DRIFT_READJUST, NS_SIM_DRIFT_WAIT, fn, "rule"));
  return forward(ns_policy_set_cassini_drift_rule(o->parts, (ns_policy_drift_rule)rule),
                 "ns_policy_set_cassini_drift_rule", fn);
}

int ns_sim_opts_set_dally_new_jobs(ns_sim_opts *o, ns_sim_dally_new reading) {
  static const char fn[] = "ns_sim_opts_set_dally_new_jobs";
  NSI_TRY(nsi_check_ptr(o, fn, "o"));
  NSI_TRY(nsi_check_int((long long)reading, NS_SIM_DALLY_NEW_ONE, NS_SIM_DALLY_NEW_PROFILE, fn,
                        "reading"));
  o->dally_new = (int)reading;
  return NS_OK;
}

int ns_sim_opts_set_vclos_routing(ns_sim_opts *o, ns_sim_vclos_routing routing) {
  static const char fn[] = "ns_sim_opts_set_vclos_routing";
  NSI_TRY(nsi_check_ptr(o, fn, "o"));
  NSI_TRY(nsi_check_int((long long)(int)routing, NS_SIM_VCLOS_RESERVED, NS_SIM_VCLOS_ECMP, fn,
                        "routing"));
  o->vclos_routing = (int)routing;
  return NS_OK;
}

int ns_sim_opts_set_allreduce(ns_sim_opts *o, ns_sim_allreduce algorithm) {
  static const char fn[] = "ns_sim_opts_set_allreduce";
  NSI_TRY(nsi_check_ptr(o, fn, "o"));
  NSI_TRY(nsi_check_int((long long)(int)algorithm, NS_SIM_ALLREDUCE_RING, NS_SIM_ALLREDUCE_HD, fn,
                        "algorithm"));
  o->allreduce = (int)algorithm;
  return NS_OK;
}

/* The contention-curve file (netsched-sim --contention-curve, Python
   set_contention_curve(path)): read by the CSV reader every input file goes
   through (csvfile.c: its limits, BOM and binary checks), one "k,e" record
   a line; a first record that is not two numbers is a header; records whose
   first field starts with '#' are comments. All or nothing. */
typedef struct curve_rows {
  double k[NSI_CURVE_MAX], e[NSI_CURVE_MAX];
  size_t n;
} curve_rows;

static int curve_row(nsi_csv *c, void *user) {
  curve_rows *r = user;
  if (c->nfield == 0 || (c->nfield == 1 && c->field[0][0] == '\0') || c->field[0][0] == '#')
    return NS_OK;
  double k, e;
  int ok = c->nfield == 2 && nsi_csv_decimal(c->field[0], &k) == 0 &&
           nsi_csv_decimal(c->field[1], &e) == 0;
  if (!ok && c->records == 1)
    return NS_OK; /* a header such as "k,e" */
  if (!ok) {
    char got[160];
    snprintf(got, sizeof got, "%.70s%s%.70s", c->field[0], c->nfield > 1 ? "," : "",
             c->nfield > 1 ? c->field[1] : "");
    return nsi_csv_bad(c, "expected two numbers 'k,e'", got);
  }
  if (r->n == NSI_CURVE_MAX)
    return nsi_csv_bad(c, "more than 256 points", NULL);
  r->k[r->n] = k, r->e[r->n++] = e;
  return NS_OK;
}

int ns_sim_opts_load_contention_curve(ns_sim_opts *o, const char *path) {
  static const char fn[] = "ns_sim_opts_load_contention_curve";
  NSI_TRY(nsi_check_ptr(o, fn, "o"));
  NSI_TRY(nsi_check_ptr(path, fn, "path"));
  curve_rows *r = calloc(1, sizeof *r);
  if (r == NULL)
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  int rc = nsi_csv_read(fn, path, curve_row, r);
  if (rc == NS_OK && r->n == 0)
    rc = nsi_fail(NS_EINVAL, "%s: path '%.200s' has no points (the ideal curve is n = 0)", fn,
                  path);
  if (rc == NS_OK) {
    ns_sim_opts t = *o; /* the setter's rules; o unchanged on failure */
    rc = ns_sim_opts_set_contention_curve(&t, r->k, r->e, r->n);
    if (rc < 0) { /* the setter's reason, under this call's name */
      const char *why = ns_last_error(), *set = "ns_sim_opts_set_contention_curve: ";
      rc = nsi_fail(rc, "%s: path '%.200s': %s", fn, path,
                    strncmp(why, set, strlen(set)) == 0 ? why + strlen(set) : why);
    }
    else
      *o = t;
  }
  free(r);
  return rc;
}
