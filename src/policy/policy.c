/*
 * src/policy/policy.c - the policy object (netsched/policy.h): an order, a
 * base placement through the public entry points, CASSINI's candidate
 * search and ranking, backfilling, and the state kept across decisions.
 *
 * This is the code the simulator ran privately (src/sim/policy.c before
 * issue 28), moved behind the public handle unchanged in its decisions:
 *
 * CASSINI candidates (§4.2 leaves their source to the base scheduler): the
 * base policy's placement first; then the base policy asked again with the
 * free GPUs of the first server of every earlier candidate temporarily
 * marked busy (ns_cluster_occupy, undone with ns_cluster_vacate), until
 * max_candidates, NS_ENOSPACE, or the policy repeating its previous answer
 * (GPU sharing). Each is described by ns_cassini_candidate_from_cluster
 * (a placement without reserved links sorted first, so the library's ring
 * over its GPUs in order is the ring over its servers in ascending order;
 * a vClos placement keeps its order, which its source routes follow). A
 * candidate on which the job shares no link wins at once (fully compatible,
 * no shifts); otherwise ns_cassini_rank picks the best and its time-shifts
 * come with the start (ns_decision_shift_ms); if every candidate has an
 * Affinity loop (NS_ELOOP / NS_ERANGE), the base placement, no shifts.
 *
 * Dally: Algorithm 1 on the offer of the free GPUs, starvation = now -
 * waiting since (arrival or latest suspension); a declined job's retry time
 * is the earliest of its machine and rack timers still ahead (the timers
 * count from the start of its wait; the rack timer is a total, dally.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "policy/policy_internal.h"

/* ---- construction ----------------------------------------------------------- */

static void apply_preset(ns_policy *p, int i) {
  const nsp_preset *r = nsp_preset_at(i);
  p->preset = i;
  p->order = r->order, p->placement = r->placement, p->kappa = r->kappa;
  p->admission = r->admission, p->admit_n = r->n, p->cassini = r->cassini;
  p->backfill = !r->strict;
}

ns_policy *ns_policy_new(const char *preset) {
  int i = nsp_preset_find(preset, "ns_policy_new");
  if (i < 0)
    return NULL;
  ns_policy *p = calloc(1, sizeof *p);
  if (p == NULL) {
    nsi_fail(NS_ENOMEM, "ns_policy_new: out of memory");
    return NULL;
  }
  apply_preset(p, i);
  p->max_candidates = NSP_MAX_CANDIDATES;
  p->seed = 1;
  p->skew_bytes = 200000000ull; /* VGG-16, LSTM-PTB skewed; ResNet-50, Inception-V3 not */
  p->machine_ms = p->rack_ms = 12 * 3600e3; /* Dally §4.3 defaults */
  p->history_ms = 7 * 24 * 3600e3;
  p->drift = 0.05; /* CASSINI §5.7: five percent of the ideal iteration */
  p->las_queues = 3, p->las_limit[0] = 3250e3, p->las_limit[1] = 7200e3; /* Tiresias jobs.py */
  p->lease_ms = NSP_DALLY_LEASE_MS;
  p->pass_at = -INFINITY;
  p->last_now = -INFINITY;
  p->starvation = 0.0;
  return p;
}

ns_policy *ns_policy_clone(const ns_policy *p) {
  if (p == NULL) {
    nsi_fail(NS_EINVAL, "ns_policy_clone: p is NULL");
    return NULL;
  }
  ns_policy *n = calloc(1, sizeof *n);
  double *samples = p->git_nsamples > 0 ? malloc(p->git_nsamples * sizeof *samples) : NULL;
  if (n == NULL || (p->git_nsamples > 0 && samples == NULL)) {
    free(n), free(samples);
    nsi_fail(NS_ENOMEM, "ns_policy_clone: out of memory");
    return NULL;
  }
  /* the parts and options; the state (built at a decision) is not copied */
  n->preset = p->preset, n->order = p->order, n->placement = p->placement, n->kappa = p->kappa;
  n->admission = p->admission, n->admit_n = p->admit_n, n->cassini = p->cassini;
  n->max_candidates = p->max_candidates, n->backfill = p->backfill;
  n->seed = p->seed, n->skew_bytes = p->skew_bytes;
  n->history_ms = p->history_ms, n->machine_ms = p->machine_ms, n->rack_ms = p->rack_ms;
  n->drift = p->drift, n->drift_rule = p->drift_rule;
  n->place_fn = p->place_fn, n->place_user = p->place_user;
  n->las_queues = p->las_queues, n->starvation = p->starvation, n->lease_ms = p->lease_ms;
  n->pass_at = -INFINITY; /* no offers tried yet */
  n->last_now = -INFINITY; /* no decision or report yet */
  memcpy(n->las_limit, p->las_limit, sizeof n->las_limit);
  if (samples != NULL)
    memcpy(samples, p->git_samples, p->git_nsamples * sizeof *samples);
  n->git_samples = samples, n->git_nsamples = p->git_nsamples;
  return n;
}

void ns_policy_free(ns_policy *p) {
  if (p == NULL)
    return;
  ns_titan_opts_free(p->titan);
  ns_vclos_opts_free(p->vclos);
  ns_delay_tuner_free(p->tuner);
  ns_cassini_opts_free(p->cassini_opts);
  nsp_las_free(p->las);
  nsp_lease_free(p->lease);
  free(p->git_samples);
  for (int i = 0; i < NSP_MAX_CANDIDATES; i++)
    ns_placement_free(p->cand[i]);
  free(p->occ);
  free(p->known);
  free(p->waits);
  nsp_sched_free(p);
  free(p);
}

const char *ns_policy_name(const ns_policy *p) {
  if (p == NULL)
    return "";
  return p->preset >= 0 ? nsp_preset_at(p->preset)->name : "custom";
}

/* A setter: p valid and not yet deciding. */
static int settable(ns_policy *p, const char *fn) {
  NSI_TRY(nsi_check_ptr(p, fn, "p"));
  if (p->ready)
    return nsi_fail(NS_ESTATE, "%s: the policy has already decided; its parts and options are "
                               "fixed from its first decision (make a new one)", fn);
  return NS_OK;
}

int ns_policy_set_preset(ns_policy *p, const char *preset) {
  NSI_TRY(settable(p, "ns_policy_set_preset"));
  int i = nsp_preset_find(preset, "ns_policy_set_preset");
  if (i < 0)
    return i;
  apply_preset(p, i);
  return NS_OK;
}

int ns_policy_kappa_of(const ns_policy *p) {
  NSI_TRY(nsi_check_ptr(p, "ns_policy_kappa_of", "p"));
  return p->kappa;
}

int ns_policy_set_order(ns_policy *p, ns_policy_order order) {
  NSI_TRY(settable(p, "ns_policy_set_order"));
  /* (int): an enum value as the caller wrote it, -1 rather than 4294967295 */
  NSI_TRY(nsi_check_int((int)order, 0, NS_POLICY_ORDER_2D_GITTINS, "ns_policy_set_order",
                        "order"));
  p->order = order, p->preset = -1;
  return NS_OK;
}

int ns_policy_set_placement(ns_policy *p, ns_policy_placement placement) {
  NSI_TRY(settable(p, "ns_policy_set_placement"));
  NSI_TRY(nsi_check_int((int)placement, 0, NS_POLICY_PLACE_CUSTOM,
                        "ns_policy_set_placement", "placement"));
  p->placement = placement, p->preset = -1;
  return NS_OK;
}

int ns_policy_set_kappa(ns_policy *p, int kappa) {
  NSI_TRY(settable(p, "ns_policy_set_kappa"));
  NSI_TRY(nsi_check_int(kappa, 1, 1 << 20, "ns_policy_set_kappa", "kappa"));
  p->kappa = kappa, p->preset = -1;
  return NS_OK;
}

int ns_policy_set_admission(ns_policy *p, ns_policy_admission a, int n) {
  NSI_TRY(settable(p, "ns_policy_set_admission"));
  NSI_TRY(nsi_check_int((int)a, 0, NS_POLICY_ADMIT_ADADUAL, "ns_policy_set_admission",
                        "admission"));
  NSI_TRY(nsi_check_int(n, 1, 1 << 20, "ns_policy_set_admission", "n"));
  p->admission = a, p->admit_n = n, p->preset = -1;
  return NS_OK;
}

int ns_policy_set_cassini(ns_policy *p, int enabled, int max_candidates) {
  NSI_TRY(settable(p, "ns_policy_set_cassini"));
  NSI_TRY(nsi_check_int(enabled, 0, 1, "ns_policy_set_cassini", "enabled"));
  NSI_TRY(nsi_check_int(max_candidates, 1, NSP_MAX_CANDIDATES, "ns_policy_set_cassini",
                        "max_candidates"));
  p->cassini = enabled, p->max_candidates = max_candidates, p->preset = -1;
  return NS_OK;
}

int ns_policy_set_backfill(ns_policy *p, int enabled) {
  NSI_TRY(settable(p, "ns_policy_set_backfill"));
  NSI_TRY(nsi_check_int(enabled, 0, 1, "ns_policy_set_backfill", "enabled"));
  p->backfill = enabled, p->preset = -1;
  return NS_OK;
}

int ns_policy_set_seed(ns_policy *p, uint64_t seed) {
  NSI_TRY(settable(p, "ns_policy_set_seed"));
  p->seed = seed;
  return NS_OK;
}

int ns_policy_set_skew_bytes(ns_policy *p, uint64_t bytes) {
  NSI_TRY(settable(p, "ns_policy_set_skew_bytes"));
  p->skew_bytes = bytes;
  return NS_OK;
}

int ns_policy_set_dally_timers(ns_policy *p, double history_ms, double machine_ms,
                               double rack_ms) {
  NSI_TRY(settable(p, "ns_policy_set_dally_timers"));
  NSI_TRY(nsi_check_finite_gt0(history_ms, "ns_policy_set_dally_timers", "history_ms"));
  NSI_TRY(nsi_check_finite_ge0(machine_ms, "ns_policy_set_dally_timers", "machine_ms"));
  NSI_TRY(nsi_check_finite_ge0(rack_ms, "ns_policy_set_dally_timers", "rack_ms"));
  p->history_ms = history_ms, p->machine_ms = machine_ms, p->rack_ms = rack_ms;
  return NS_OK;
}

int ns_policy_set_cassini_drift(ns_policy *p, double fraction) {
  NSI_TRY(settable(p, "ns_policy_set_cassini_drift"));
  if (!(fraction >= 0 && fraction < 1)) {
    char b[32];
    return nsi_fail(NS_EINVAL, "ns_policy_set_cassini_drift: fraction %s is not in [0, 1)",
                    nsi_fmt_real(fraction, b, sizeof b));
  }
  p->drift = fraction;
  return NS_OK;
}

int ns_policy_set_dally_lease(ns_policy *p, double lease_ms) {
  static const char fn[] = "ns_policy_set_dally_lease";
  NSI_TRY(settable(p, fn));
  /* capped as every real argument (and as ns_sim_opts_set_dally_lease) */
  if (!(lease_ms == 0 || (lease_ms >= NSP_DALLY_MIN_LEASE_MS && lease_ms <= NSI_REAL_MAX))) {
    char b[32];
    return nsi_fail(NS_EINVAL, "%s: lease_ms must be 0 (no leases) or finite, at least %g ms and "
                               "at most 1e+15 ms (got %s)", fn, NSP_DALLY_MIN_LEASE_MS,
                    nsi_fmt_real(lease_ms, b, sizeof b));
  }
  p->lease_ms = lease_ms;
  return NS_OK;
}

double ns_policy_dally_lease_of(const ns_policy *p) {
  if (p == NULL) {
    nsi_fail(NS_EINVAL, "ns_policy_dally_lease_of: p is NULL");
    return NAN;
  }
  return p->lease_ms;
}

int ns_policy_set_cassini_drift_rule(ns_policy *p, ns_policy_drift_rule rule) {
  NSI_TRY(settable(p, "ns_policy_set_cassini_drift_rule"));
  NSI_TRY(nsi_check_int((int)rule, NS_POLICY_DRIFT_RULE_READJUST,
                        NS_POLICY_DRIFT_RULE_WAIT, "ns_policy_set_cassini_drift_rule", "rule"));
  p->drift_rule = (int)rule;
  return NS_OK;
}

int ns_policy_set_place_fn(ns_policy *p, ns_policy_place_fn fn, void *user) {
  NSI_TRY(settable(p, "ns_policy_set_place_fn"));
  if (fn == NULL)
    return nsi_fail(NS_EINVAL, "ns_policy_set_place_fn: fn is NULL");
  p->place_fn = fn, p->place_user = user;
  return NS_OK;
}

int ns_policy_set_las_queues(ns_policy *p, int queues, const double *thresholds_gpu_ms) {
  static const char fn[] = "ns_policy_set_las_queues";
  NSI_TRY(settable(p, fn));
  NSI_TRY(nsi_check_int(queues, 1, NSP_LAS_MAX_QUEUES, fn, "queues"));
  if (queues > 1)
    NSI_TRY(nsi_check_ptr(thresholds_gpu_ms, fn, "thresholds_gpu_ms"));
  for (int q = 0; q + 1 < queues; q++) {
    double v = thresholds_gpu_ms[q];
    if (!isfinite(v) || v <= 0 || (q > 0 && v <= thresholds_gpu_ms[q - 1])) {
      char b[32];
      return nsi_fail(NS_EINVAL, "%s: thresholds_gpu_ms[%d] must be finite, > 0 and above the "
                                 "previous one (got %s)", fn, q, nsi_fmt_real(v, b, sizeof b));
    }
  }
  p->las_queues = queues;
  for (int q = 0; q + 1 < queues; q++)
    p->las_limit[q] = thresholds_gpu_ms[q];
  return NS_OK;
}

int ns_policy_set_starvation(ns_policy *p, double knob) {
  NSI_TRY(settable(p, "ns_policy_set_starvation"));
  NSI_TRY(nsi_check_finite_ge0(knob, "ns_policy_set_starvation", "knob"));
  p->starvation = knob;
  return NS_OK;
}

int ns_policy_set_gittins_samples(ns_policy *p, const double *gpu_time_samples, size_t n) {
  static const char fn[] = "ns_policy_set_gittins_samples";
  NSI_TRY(settable(p, fn));
  if (n > 0)
    NSI_TRY(nsi_check_ptr(gpu_time_samples, fn, "gpu_time_samples"));
  if (n >= SIZE_MAX / sizeof(double)) /* the table holds n + 1 */
    return nsi_fail(NS_EINVAL, "%s: n must be below %zu (got %zu)", fn,
                    SIZE_MAX / sizeof(double), n);
  for (size_t i = 0; i < n; i++) {
    double v = gpu_time_samples[i];
    if (!isfinite(v) || v <= 0 || v > 1e18) {
      char b[32];
      return nsi_fail(NS_EINVAL, "%s: gpu_time_samples[%zu] must be finite, > 0 and at most "
                                 "1e18 GPU-ms (got %s)", fn, i, nsi_fmt_real(v, b, sizeof b));
    }
  }
  double *copy = NULL;
  if (n > 0) {
    copy = malloc(n * sizeof *copy);
    if (copy == NULL)
      return nsi_fail(NS_ENOMEM, "%s: out of memory for %zu samples", fn, n);
    memcpy(copy, gpu_time_samples, n * sizeof *copy);
  }
  free(p->git_samples);
  p->git_samples = copy, p->git_nsamples = n;
  return NS_OK;
}

int ns_policy_order_of(const ns_policy *p) {
  NSI_TRY(nsi_check_ptr(p, "ns_policy_order_of", "p"));
  return (int)p->order;
}
int ns_policy_placement_of(const ns_policy *p) {
  NSI_TRY(nsi_check_ptr(p, "ns_policy_placement_of", "p"));
  return (int)p->placement;
}
int ns_policy_admission_of(const ns_policy *p, int *n) {
  NSI_TRY(nsi_check_ptr(p, "ns_policy_admission_of", "p"));
  if (n != NULL)
    *n = p->admit_n;
  return (int)p->admission;
}
int ns_policy_uses_cassini(const ns_policy *p) {
  NSI_TRY(nsi_check_ptr(p, "ns_policy_uses_cassini", "p"));
  return p->cassini;
}
int ns_policy_backfills(const ns_policy *p) {
  NSI_TRY(nsi_check_ptr(p, "ns_policy_backfills", "p"));
  return p->backfill;
}

/* The Dally tuner of a policy, and the log of the waits it records (what
   ns_policy_save writes, state.c): kept here, beside the decisions that
   feed them, so that state.c only reads the policy. */
ns_delay_tuner *nsp_new_tuner(const ns_policy *p) {
  ns_delay_tuner *t = ns_delay_tuner_new(p->history_ms, p->machine_ms, p->rack_ms);
  if (t != NULL && p->placement == NS_POLICY_PLACE_DALLY_MANUAL &&
      ns_delay_tuner_set_manual(t, 1) < 0) {
    ns_delay_tuner_free(t);
    return NULL;
  }
  return t;
}

/* Drops the logged waits the tuner forgot (older than its history). */
static void prune_waits(ns_policy *p) {
  size_t live = 0;
  while (live < p->nwaits && p->waits[live].now_ms < p->clock - p->history_ms)
    live++;
  if (live > 0) {
    memmove(p->waits, p->waits + live, (p->nwaits - live) * sizeof *p->waits);
    p->nwaits -= live;
  }
}

/* Appends; the log is pruned when the call that logged succeeds (end_call),
   so that a failed one only has to cut it back. */
int nsp_log_wait(ns_policy *p, int tier, int gpus, double waited_ms, double now_ms,
                 const char *fn) {
  if (now_ms > p->clock)
    p->clock = now_ms;
  if (nsi_reserve(&p->waits, &p->capwaits, p->nwaits + 1, sizeof *p->waits) < 0)
    return nsi_fail(NS_ENOMEM, "%s: out of memory logging Dally's wait", fn);
  nsp_wait *w = &p->waits[p->nwaits++];
  w->tier = tier, w->gpus = gpus, w->waited_ms = waited_ms, w->now_ms = now_ms;
  return NS_OK;
}

static int is_dally(const ns_policy *p) {
  return p->placement == NS_POLICY_PLACE_DALLY || p->placement == NS_POLICY_PLACE_DALLY_MANUAL;
}

static int preemptive(const ns_policy *p) {
  return p->order == NS_POLICY_ORDER_2D_LAS || p->order == NS_POLICY_ORDER_2D_GITTINS;
}

/* Dally's lease reading (LEASES in policy.h): its order, a lease, no
   CASSINI (its shifts are decided at placement); GPU sharing is the
   cluster's, tested at each decision. */
static int leasing(const ns_policy *p) {
  return p->order == NS_POLICY_ORDER_NW_SENS && p->lease_ms > 0 && !p->cassini;
}

void nsp_unready(ns_policy *p) {
  ns_titan_opts_free(p->titan), ns_vclos_opts_free(p->vclos);
  ns_delay_tuner_free(p->tuner), ns_cassini_opts_free(p->cassini_opts);
  p->titan = NULL, p->vclos = NULL, p->tuner = NULL, p->cassini_opts = NULL;
  nsp_las_free(p->las), p->las = NULL;
  nsp_lease_free(p->lease), p->lease = NULL;
  for (int i = 0; i < NSP_MAX_CANDIDATES; i++)
    ns_placement_free(p->cand[i]), p->cand[i] = NULL;
  p->ready = 0;
}

/* Builds the state of its parts (once). */
int nsp_ready(ns_policy *p, const char *fn) {
  if (p->ready)
    return NS_OK;
  if (p->placement == NS_POLICY_PLACE_CUSTOM && p->place_fn == NULL)
    return nsi_fail(NS_ESTATE, "%s: the custom placement has no callback "
                               "(ns_policy_set_place_fn)", fn);
  if (p->cassini && is_dally(p))
    return nsi_fail(NS_EINVAL, "%s: CASSINI cannot augment Dally (every offer records a wait in "
                               "the tuner); choose another base placement", fn);
  int rc = NS_OK;
  if (p->placement == NS_POLICY_PLACE_TITAN) {
    p->titan = ns_titan_opts_new();
    rc = p->titan == NULL ? NS_ENOMEM : ns_titan_opts_set_seed(p->titan, p->seed);
  }
  if (rc == NS_OK && (p->placement == NS_POLICY_PLACE_VCLOS ||
                      p->placement == NS_POLICY_PLACE_OCS_VCLOS))
    rc = (p->vclos = ns_vclos_opts_new()) == NULL ? NS_ENOMEM : NS_OK;
  if (rc == NS_OK && is_dally(p))
    rc = (p->tuner = nsp_new_tuner(p)) == NULL ? NS_ENOMEM : NS_OK;
  if (rc == NS_OK && p->cassini) {
    p->cassini_opts = ns_cassini_opts_new();
    rc = p->cassini_opts == NULL ? NS_ENOMEM : NS_OK;
    /* the drift knob is the library's re-adjustment threshold (0: never) */
    if (rc == NS_OK && p->drift > 0)
      rc = ns_cassini_opts_set_drift_fraction(p->cassini_opts, p->drift);
    for (int i = 0; i < NSP_MAX_CANDIDATES && rc == NS_OK; i++)
      rc = (p->cand[i] = ns_placement_new()) == NULL ? NS_ENOMEM : NS_OK;
  }
  if (rc == NS_OK && preemptive(p))
    rc = nsp_las_new(p);
  if (rc == NS_OK && leasing(p))
    rc = nsp_lease_new(p);
  if (rc < 0) {
    nsp_unready(p); /* back to nothing built: a failed call leaves the handle as it was */
    if (rc == NS_ENOMEM)
      return nsi_fail(rc, "%s: out of memory building policy '%s'", fn, ns_policy_name(p));
    return nsi_fail(rc, "%s: policy '%s' unavailable: %s", fn, ns_policy_name(p),
                    ns_last_error());
  }
  p->ready = 1;
  return NS_OK;
}

ns_delay_tuner *ns_policy_tuner(ns_policy *p) {
  if (p == NULL || !is_dally(p) || nsp_ready(p, "ns_policy_tuner") < 0)
    return NULL;
  return p->tuner;
}

const ns_cassini_opts *ns_policy_cassini_opts(ns_policy *p) {
  if (p == NULL || !p->cassini || nsp_ready(p, "ns_policy_cassini_opts") < 0)
    return NULL;
  return p->cassini_opts;
}

/* ---- the queue ------------------------------------------------------------------ */

ns_queue *ns_queue_new(void) {
  ns_queue *q = calloc(1, sizeof *q);
  if (q == NULL)
    nsi_fail(NS_ENOMEM, "ns_queue_new: out of memory");
  return q;
}

void ns_queue_free(ns_queue *q) {
  if (q != NULL)
    free(q->e);
  free(q);
}

void ns_queue_clear(ns_queue *q) {
  if (q != NULL)
    q->n = 0;
}

size_t ns_queue_count(const ns_queue *q) { return q != NULL ? q->n : 0; }

int ns_queue_truncate(ns_queue *q, size_t n) {
  NSI_TRY(nsi_check_ptr(q, "ns_queue_truncate", "q"));
  if (n > q->n)
    return nsi_fail(NS_EINVAL, "ns_queue_truncate: n %zu is more than the %zu jobs queued", n,
                    q->n);
  q->n = n;
  return NS_OK;
}

static int queue_put(ns_queue *q, const ns_job *job, uint64_t id, double arrival_ms,
                     int running) {
  nsi_queue_put(q, job, job->gpus, id, arrival_ms, running, 0.0); /* = the simulator's fill */
  return (int)q->n - 1;
}

/* queue_add's checks and growth, out of its way (not inlined: the common
   path then saves no registers). fn: the public call, named in messages. */
__attribute__((noinline)) static int queue_add_checked(ns_queue *q, const ns_job *job, uint64_t id,
                                                       double arrival_ms, int running,
                                                       const char *fn) {
  NSI_TRY(nsi_check_ptr(q, fn, "q"));
  NSI_TRY(nsi_check_ptr(job, fn, "job"));
  if (!isfinite(arrival_ms)) {
    char b[32];
    return nsi_fail(NS_EINVAL, "%s: arrival_ms %s is not finite", fn,
                    nsi_fmt_real(arrival_ms, b, sizeof b));
  }
  if (q->n >= (size_t)INT32_MAX)
    return nsi_fail(NS_ERANGE, "%s: the queue holds %zu jobs already", fn, q->n);
  if (nsi_reserve(&q->e, &q->cap, q->n + 1, sizeof *q->e) < 0)
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  return queue_put(q, job, id, arrival_ms, running);
}

/* ns_queue_add and ns_queue_add_running in one body (the preemptive orders'
   callers queue every job at every decision): valid arguments and room
   ahead go straight in, the rest through the checks. fn: the caller's
   name for its own argument checks. */
static int queue_add(ns_queue *q, const ns_job *job, uint64_t id, double arrival_ms, int running,
                     const char *fn) {
  if (q == NULL || job == NULL || !isfinite(arrival_ms) || q->n >= q->cap ||
      q->n >= (size_t)INT32_MAX)
    return queue_add_checked(q, job, id, arrival_ms, running, fn);
  return queue_put(q, job, id, arrival_ms, running);
}

int ns_queue_add(ns_queue *q, const ns_job *job, uint64_t id, double arrival_ms) {
  return queue_add(q, job, id, arrival_ms, 0, "ns_queue_add");
}

int ns_queue_add_running(ns_queue *q, const ns_job *job, uint64_t id, double arrival_ms) {
  return queue_add(q, job, id, arrival_ms, 1, "ns_queue_add_running");
}

static int entry(ns_queue *q, size_t i, const char *fn, nsp_entry **out) {
  NSI_TRY(nsi_check_ptr(q, fn, "q"));
  if (i >= q->n)
    return nsi_fail(NS_EINVAL, "%s: i %zu is not a queue index (the queue holds %zu jobs)", fn,
                    i, q->n);
  *out = &q->e[i];
  return NS_OK;
}

int ns_queue_set_ideal_ms(ns_queue *q, size_t i, double ideal_run_ms) {
  nsp_entry *e = NULL;
  NSI_TRY(entry(q, i, "ns_queue_set_ideal_ms", &e));
  if (!isnan(ideal_run_ms))
    NSI_TRY(nsi_check_finite_ge0(ideal_run_ms, "ns_queue_set_ideal_ms", "ideal_run_ms"));
  e->ideal = ideal_run_ms;
  return NS_OK;
}

int ns_queue_set_nw_sens(ns_queue *q, size_t i, double nw_sens) {
  nsp_entry *e = NULL;
  NSI_TRY(entry(q, i, "ns_queue_set_nw_sens", &e));
  if (!isnan(nw_sens))
    NSI_TRY(nsi_check_finite_ge0(nw_sens, "ns_queue_set_nw_sens", "nw_sens"));
  e->nw = nw_sens;
  return NS_OK;
}

int ns_queue_set_attained_ms(ns_queue *q, size_t i, double gpu_ms) {
  nsp_entry *e = NULL;
  NSI_TRY(entry(q, i, "ns_queue_set_attained_ms", &e));
  NSI_TRY(nsi_check_finite_ge0(gpu_ms, "ns_queue_set_attained_ms", "gpu_ms"));
  e->attained = gpu_ms;
  return NS_OK;
}

int ns_queue_set_running(ns_queue *q, size_t i, int running) {
  nsp_entry *e = NULL;
  NSI_TRY(entry(q, i, "ns_queue_set_running", &e));
  NSI_TRY(nsi_check_int(running, 0, 1, "ns_queue_set_running", "running"));
  e->running = running;
  return NS_OK;
}

int ns_queue_is_running(const ns_queue *q, size_t i) {
  NSI_TRY(nsi_check_ptr(q, "ns_queue_is_running", "q"));
  if (i >= q->n)
    return nsi_fail(NS_EINVAL, "ns_queue_is_running: i %zu is not a queue index (the queue "
                               "holds %zu jobs)", i, q->n);
  return q->e[i].running;
}

int ns_queue_set_waiting_since(ns_queue *q, size_t i, double ms) {
  nsp_entry *e = NULL;
  NSI_TRY(entry(q, i, "ns_queue_set_waiting_since", &e));
  if (!isfinite(ms)) {
    char b[32];
    return nsi_fail(NS_EINVAL, "ns_queue_set_waiting_since: ms %s is not finite",
                    nsi_fmt_real(ms, b, sizeof b));
  }
  e->since = ms, e->since_set = 1;
  return NS_OK;
}

/* ---- report back ------------------------------------------------------------------ */

static nsp_known *known_find(const ns_policy *p, const ns_job *job) {
  for (size_t i = 0; i < p->nknown; i++)
    if (p->known[i].job == job)
      return &p->known[i];
  return NULL;
}

/* Time never goes back for a policy: its tuner's waits, leases, LAS
   service and pass budget are all kept against now_ms. */
int nsp_check_time(const ns_policy *p, double now_ms, const char *fn) {
  if (now_ms < p->last_now) {
    char b[32], l[32];
    return nsi_fail(NS_EINVAL, "%s: now_ms must not be before %s, the now_ms of this policy's "
                               "latest decision or report: time must not go back (got %s)",
                    fn, nsi_fmt_real(p->last_now, l, sizeof l), nsi_fmt_real(now_ms, b, sizeof b));
  }
  return NS_OK;
}

static int report_args(ns_policy *p, const ns_job *job, double now_ms, const char *fn) {
  NSI_TRY(nsi_check_ptr(p, fn, "p"));
  NSI_TRY(nsi_check_ptr(job, fn, "job"));
  if (!isfinite(now_ms)) {
    char b[32];
    return nsi_fail(NS_EINVAL, "%s: now_ms %s is not finite", fn, nsi_fmt_real(now_ms, b, sizeof b));
  }
  return nsp_check_time(p, now_ms, fn);
}

/* A report that succeeds is the policy's latest now_ms (nsp_check_time). */
static int reported(ns_policy *p, double now_ms) {
  p->last_now = now_ms;
  return NS_OK;
}

static int known_get(ns_policy *p, const ns_job *job, const char *fn, nsp_known **out) {
  nsp_known *k = known_find(p, job);
  if (k == NULL) {
    if (nsi_reserve(&p->known, &p->capknown, p->nknown + 1, sizeof *p->known) < 0)
      return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
    k = &p->known[p->nknown++];
    k->job = job, k->nw = NAN, k->since = NAN, k->running = 0;
  }
  *out = k;
  return NS_OK;
}

int ns_policy_started(ns_policy *p, const ns_job *job, double now_ms) {
  nsp_known *k;
  NSI_TRY(report_args(p, job, now_ms, "ns_policy_started"));
  NSI_TRY(known_get(p, job, "ns_policy_started", &k));
  k->running = 1;
  return reported(p, now_ms);
}

int ns_policy_finished(ns_policy *p, const ns_job *job, double now_ms) {
  NSI_TRY(report_args(p, job, now_ms, "ns_policy_finished"));
  nsp_known *k = known_find(p, job);
  if (k != NULL)
    *k = p->known[--p->nknown]; /* forgotten: the handle may be freed and reused */
  nsp_sched_forget(p, job);
  return reported(p, now_ms);
}

int ns_policy_suspended(ns_policy *p, const ns_job *job, double now_ms) {
  nsp_known *k;
  NSI_TRY(report_args(p, job, now_ms, "ns_policy_suspended"));
  NSI_TRY(known_get(p, job, "ns_policy_suspended", &k));
  k->running = 0, k->since = now_ms;
  nsp_sched_forget(p, job); /* off its placement: a resume reports a new iteration */
  return reported(p, now_ms);
}

/* Nw_sens (Dally §4.3.1) = ideal run / actual run = compute x iterations
   done / ms run, from the job's compute profile (ns_job_set_compute_ms). */
int ns_policy_progress(ns_policy *p, const ns_job *job, double iters_done, double run_ms,
                       double now_ms) {
  nsp_known *k;
  NSI_TRY(report_args(p, job, now_ms, "ns_policy_progress"));
  NSI_TRY(nsi_check_finite_ge0(iters_done, "ns_policy_progress", "iters_done"));
  NSI_TRY(nsi_check_finite_ge0(run_ms, "ns_policy_progress", "run_ms"));
  double f = 0, b = 0;
  ns_job_compute_ms(job, &f, &b);
  NSI_TRY(known_get(p, job, "ns_policy_progress", &k));
  if (run_ms > 0 && iters_done > 0 && f + b > 0)
    k->nw = (f + b) * iters_done / run_ms;
  return reported(p, now_ms);
}

/* The entry as the policy reads it: what the queue says, else what was
   reported back (measured Nw_sens, suspension time). */
static nsp_entry view(const ns_policy *p, const nsp_entry *e) {
  nsp_entry v = *e;
  const nsp_known *k = p->nknown > 0 ? known_find(p, e->job) : NULL;
  if (k != NULL && isnan(v.nw) && isfinite(k->nw))
    v.nw = k->nw;
  if (k != NULL && !v.since_set && isfinite(k->since))
    v.since = k->since;
  return v;
}

/* ---- order --------------------------------------------------------------------- */

/* Nw_sens compared to 1e-9 (then by arrival): a one-GPU job's measure is
   1 up to rounding, which must not order it against another's exact 1. */
static double offer_key(double k) { return round(k * 1e9) / 1e9; }

static double key_fifo(const nsp_entry *e) { return e->arrival; }
/* remaining service = GPU-time; unknown sorts last */
static double key_srsf(const nsp_entry *e) {
  return isnan(e->ideal) ? INFINITY : e->ideal * ns_job_gpus(e->job);
}
static double key_sjf(const nsp_entry *e) { return isnan(e->ideal) ? INFINITY : e->ideal; }
static double key_nw_sens(const nsp_entry *e) {
  return offer_key(isfinite(e->nw) ? e->nw : 1.0);
}
static double (*const key_fns[])(const nsp_entry *) = {
    [NS_POLICY_ORDER_FIFO] = key_fifo, [NS_POLICY_ORDER_SRSF] = key_srsf,
    [NS_POLICY_ORDER_SJF] = key_sjf, [NS_POLICY_ORDER_NW_SENS] = key_nw_sens,
    /* preemptive: the simulator keeps the queues; waiting jobs by arrival */
    [NS_POLICY_ORDER_2D_LAS] = key_fifo, [NS_POLICY_ORDER_2D_GITTINS] = key_fifo};

int ns_policy_order_key(const ns_policy *p, const ns_queue *q, size_t i, double *key) {
  NSI_TRY(nsi_check_ptr(p, "ns_policy_order_key", "p"));
  NSI_TRY(nsi_check_ptr(q, "ns_policy_order_key", "q"));
  NSI_TRY(nsi_check_ptr(key, "ns_policy_order_key", "key"));
  if (i >= q->n)
    return nsi_fail(NS_EINVAL, "ns_policy_order_key: i %zu is not a queue index (the queue "
                               "holds %zu jobs)", i, q->n);
  nsp_entry v = view(p, &q->e[i]);
  *key = key_fns[p->order](&v);
  return NS_OK;
}

/* ---- base placements: one public entry point each ------------------------------ */

typedef int (*nsp_place_fn)(ns_policy *p, const ns_cluster *c, const nsp_entry *e, double now,
                            ns_placement *out);

static int place_ff(ns_policy *p, const ns_cluster *c, const nsp_entry *e, double now,
                    ns_placement *out) {
  (void)p, (void)now;
  return ns_place_first_fit(c, e->job, out);
}
static int place_ls(ns_policy *p, const ns_cluster *c, const nsp_entry *e, double now,
                    ns_placement *out) {
  (void)p, (void)now;
  return ns_place_list_scheduling(c, e->job, out);
}
static int place_rand(ns_policy *p, const ns_cluster *c, const nsp_entry *e, double now,
                      ns_placement *out) {
  (void)now;
  return ns_place_random(c, e->job, p->seed * 0x9e3779b97f4a7c15ull + e->id, out);
}
static int place_best_fit(ns_policy *p, const ns_cluster *c, const nsp_entry *e, double now,
                          ns_placement *out) {
  (void)p, (void)now;
  return ns_place_best_fit(c, e->job, out);
}
static int place_tiresias(ns_policy *p, const ns_cluster *c, const nsp_entry *e, double now,
                          ns_placement *out) {
  (void)now;
  return ns_place_tiresias(c, e->job, p->skew_bytes, out);
}
static int place_lwf(ns_policy *p, const ns_cluster *c, const nsp_entry *e, double now,
                     ns_placement *out) {
  (void)now;
  return ns_lwf_place(c, e->job, p->kappa, out);
}
static int place_titan(ns_policy *p, const ns_cluster *c, const nsp_entry *e, double now,
                       ns_placement *out) {
  (void)now;
  return ns_titan_place(c, e->job, p->titan, out);
}
static int place_vclos(ns_policy *p, const ns_cluster *c, const nsp_entry *e, double now,
                       ns_placement *out) {
  (void)now;
  return ns_vclos_place(c, e->job, p->vclos, out);
}
/* Algorithm 1 on the offer of the free GPUs; starvation = time waited
   since arrival or the latest suspension. */
static int place_dally(ns_policy *p, const ns_cluster *c, const nsp_entry *e, double now,
                       ns_placement *out) {
  int accepted = 0;
  double starvation = now > e->since ? now - e->since : 0.0; /* a clock skew is no wait */
  int rc = ns_dally_offer(p->tuner, c, e->job, starvation, now, out, &accepted);
  if (rc < 0)
    return rc;
  if (!accepted)
    return NS_ENOSPACE;
  int t = (int)ns_placement_tier(out); /* the tuner recorded a machine or rack accept */
  if (t < 0)
    return t; /* out of memory: its message is set */
  if (t == NS_TIER_MACHINE || t == NS_TIER_RACK)
    NSI_TRY(nsp_log_wait(p, (int)t, ns_job_gpus(e->job), starvation, now, "ns_policy_place"));
  return NS_OK;
}
/* The caller's callback. It gets an empty placement bound to nothing, as a
   fresh ns_placement_new() would be, and the message buffer cleared, so that
   a status it returns without a message is not reported with a stale one.
   NS_OK must come with at least the job's GPUs (more is allowed, as vClos
   rounds sizes up) and at most the cluster's. */
static int place_custom(ns_policy *p, const ns_cluster *c, const nsp_entry *e, double now,
                        ns_placement *out) {
  (void)now;
  const char *name = ns_job_name(e->job);
  ns_placement_clear(out);
  out->bound = 0;
  nsi_fail(NS_OK, "%s", "");
  int rc = p->place_fn(c, e->job, out, p->place_user);
  if (rc < 0 && ns_last_error()[0] == '\0')
    return nsi_fail(rc, "the custom placement callback (ns_sim_opts_set_place_fn / "
                        "ns_policy_set_place_fn) returned %d (%s) without a message",
                    rc, ns_strerror(rc));
  if (rc < 0)
    return rc;
  if (rc > 0)
    return nsi_fail(NS_EINVAL, "the custom placement callback (ns_sim_opts_set_place_fn / "
                               "ns_policy_set_place_fn) returned %d for job '%s', which is not a "
                               "status (NS_OK, NS_ENOSPACE or another negative ns_status)",
                    rc, name);
  int total = ns_cluster_gpu_count(c), gpus = ns_job_gpus(e->job);
  if (out->ngpus < (size_t)gpus || out->ngpus > (size_t)total)
    return nsi_fail(NS_EINVAL, "the custom placement callback (ns_sim_opts_set_place_fn / "
                               "ns_policy_set_place_fn) returned NS_OK with %zu GPUs for job "
                               "'%s', which asks for %d (a placement holds %d..%d GPUs)",
                    out->ngpus, name, gpus, gpus, total);
  return NS_OK;
}

static const nsp_place_fn place_fns[] = {
    [NS_POLICY_PLACE_FIRST_FIT] = place_ff,      [NS_POLICY_PLACE_LIST_SCHEDULING] = place_ls,
    [NS_POLICY_PLACE_RANDOM] = place_rand,       [NS_POLICY_PLACE_BEST_FIT] = place_best_fit,
    [NS_POLICY_PLACE_TIRESIAS] = place_tiresias, [NS_POLICY_PLACE_LWF] = place_lwf,
    [NS_POLICY_PLACE_TITAN] = place_titan,       [NS_POLICY_PLACE_VCLOS] = place_vclos,
    [NS_POLICY_PLACE_OCS_VCLOS] = place_vclos,   [NS_POLICY_PLACE_DALLY] = place_dally,
    [NS_POLICY_PLACE_DALLY_MANUAL] = place_dally, [NS_POLICY_PLACE_CUSTOM] = place_custom};

/* ---- the decision ------------------------------------------------------------- */

ns_decision *ns_decision_new(void) {
  ns_decision *d = calloc(1, sizeof *d);
  if (d == NULL)
    nsi_fail(NS_ENOMEM, "ns_decision_new: out of memory");
  else
    d->next = INFINITY;
  return d;
}

void ns_decision_free(ns_decision *d) {
  if (d == NULL)
    return;
  for (size_t k = 0; k < d->caps; k++) {
    ns_placement_free(d->s[k].pl);
    ns_candidate_free(d->s[k].cand);
  }
  ns_candidate_free(d->readj);
  free(d->s), free(d->status), free(d->retry), free(d->susp), free(d->held), free(d->renew);
  free(d);
}

int nsp_decision_reset(ns_decision *d, size_t nq, const char *fn) {
  for (size_t k = 0; k < d->ns; k++) {
    ns_candidate_free(d->s[k].cand);
    d->s[k].cand = NULL;
  }
  ns_candidate_free(d->readj);
  d->readj = NULL;
  d->ns = 0, d->nsusp = 0, d->nrenew = 0, d->next = INFINITY;
  if (nq > d->capq) {
    int *st = realloc(d->status, nq * sizeof *st);
    if (st == NULL)
      return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
    d->status = st;
    double *r = realloc(d->retry, nq * sizeof *r);
    if (r == NULL)
      return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
    d->retry = r, d->capq = nq;
  }
  d->nq = nq;
  for (size_t i = 0; i < nq; i++)
    d->status[i] = NS_ENOTFOUND, d->retry[i] = INFINITY;
  return NS_OK;
}

/* The next start's slot (its placement kept from earlier decisions). */
static int next_start(ns_decision *d, nsp_start **out, const char *fn) {
  if (d->ns == d->caps) {
    size_t cap = d->caps ? 2 * d->caps : 4;
    nsp_start *s = realloc(d->s, cap * sizeof *s);
    if (s == NULL)
      return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
    memset(s + d->caps, 0, (cap - d->caps) * sizeof *s);
    d->s = s, d->caps = cap;
  }
  nsp_start *s = &d->s[d->ns];
  if (s->pl == NULL && (s->pl = ns_placement_new()) == NULL)
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  s->cand = NULL;
  *out = s;
  return NS_OK;
}

size_t ns_decision_job_count(const ns_decision *d) { return d != NULL ? d->nq : 0; }

size_t ns_decision_suspend_count(const ns_decision *d) { return d != NULL ? d->nsusp : 0; }

size_t ns_decision_suspend_job(const ns_decision *d, size_t k) {
  return d != NULL && k < d->nsusp ? d->susp[k] : SIZE_MAX;
}

size_t ns_decision_renew_count(const ns_decision *d) { return d != NULL ? d->nrenew : 0; }

size_t ns_decision_renew_job(const ns_decision *d, size_t k) {
  return d != NULL && k < d->nrenew ? d->renew[k] : SIZE_MAX;
}

int ns_policy_lease_ms(const ns_policy *p, uint64_t id, double *from_ms, double *end_ms) {
  NSI_TRY(nsi_check_ptr(p, "ns_policy_lease_ms", "p"));
  if (p->lease == NULL)
    return NS_ENOTFOUND; /* no leases (yet): not Dally's lease reading, or before a decision */
  return nsp_lease_of(p, id, from_ms, end_ms);
}

size_t ns_decision_start_count(const ns_decision *d) { return d != NULL ? d->ns : 0; }

size_t ns_decision_start_job(const ns_decision *d, size_t k) {
  return d != NULL && k < d->ns ? d->s[k].qi : SIZE_MAX;
}

const ns_placement *ns_decision_placement(const ns_decision *d, size_t k) {
  return d != NULL && k < d->ns ? d->s[k].pl : NULL;
}

int ns_decision_copy_placement(const ns_decision *d, size_t k, ns_placement *out) {
  NSI_TRY(nsi_check_ptr(d, "ns_decision_copy_placement", "d"));
  NSI_TRY(nsi_check_ptr(out, "ns_decision_copy_placement", "out"));
  if (k >= d->ns)
    return nsi_fail(NS_EINVAL, "ns_decision_copy_placement: k %zu is not a start (the decision "
                               "has %zu)", k, d->ns);
  int rc = nsi_placement_copy(out, d->s[k].pl);
  return rc < 0 ? nsi_fail(rc, "ns_decision_copy_placement: out of memory") : NS_OK;
}

int ns_decision_has_shifts(const ns_decision *d, size_t k) {
  return d != NULL && k < d->ns && d->s[k].cand != NULL;
}

int ns_decision_shift_ms(const ns_decision *d, size_t k, const ns_job *job, double *shift_ms) {
  NSI_TRY(nsi_check_ptr(d, "ns_decision_shift_ms", "d"));
  NSI_TRY(nsi_check_ptr(job, "ns_decision_shift_ms", "job"));
  NSI_TRY(nsi_check_ptr(shift_ms, "ns_decision_shift_ms", "shift_ms"));
  if (k >= d->ns)
    return nsi_fail(NS_EINVAL, "ns_decision_shift_ms: k %zu is not a start (the decision has "
                               "%zu)", k, d->ns);
  if (d->s[k].cand == NULL)
    return nsi_fail(NS_ENOTFOUND, "ns_decision_shift_ms: start %zu comes with no time-shifts", k);
  return ns_candidate_shift_ms(d->s[k].cand, job, shift_ms);
}

int ns_decision_status(const ns_decision *d, size_t i) {
  NSI_TRY(nsi_check_ptr(d, "ns_decision_status", "d"));
  if (i >= d->nq)
    return nsi_fail(NS_EINVAL, "ns_decision_status: i %zu is not a queue index (the decision "
                               "covers %zu jobs)", i, d->nq);
  return d->status[i];
}

double ns_decision_next_ms(const ns_decision *d) { return d != NULL ? d->next : INFINITY; }

double ns_decision_retry_ms(const ns_decision *d, size_t i) {
  return d != NULL && i < d->nq ? d->retry[i] : INFINITY;
}

/* ---- one job -------------------------------------------------------------------- */

static int same_gpus(const ns_placement *a, const ns_placement *b) {
  return a->ngpus == b->ngpus && memcmp(a->gpus, b->gpus, a->ngpus * sizeof *a->gpus) == 0;
}

/* Candidates from the base policy (the file comment) into p->cand[0..*n). */
static int make_candidates(ns_policy *p, ns_cluster *c, const nsp_entry *e, double now,
                           size_t *ncand) {
  int gps = ns_cluster_gpus_per_server(c);
  size_t need = (size_t)NSP_MAX_CANDIDATES * (size_t)(gps > 0 ? gps : 1);
  if (nsi_reserve(&p->occ, &p->capocc, need, sizeof *p->occ) < 0)
    return nsi_fail(NS_ENOMEM, "ns_policy_place: out of memory");
  int *occ = p->occ;
  size_t nocc = 0, n = 0;
  int rc = NS_OK;
  while (n < (size_t)p->max_candidates) {
    rc = place_fns[p->placement](p, c, e, now, p->cand[n]);
    if (rc < 0 || (n > 0 && same_gpus(p->cand[n], p->cand[n - 1])))
      break; /* no placement left, or the policy repeats itself (GPU sharing) */
    int server = ns_placement_gpu(p->cand[n], 0) / gps;
    n++;
    int fresh[64], nf = 0;
    for (int g = server * gps; g < (server + 1) * gps && nf < 64; g++)
      if (ns_cluster_gpu_is_free(c, g) == 1)
        fresh[nf++] = g;
    if (nf == 0)
      break;
    if ((rc = ns_cluster_occupy(c, fresh, (size_t)nf)) < 0)
      break;
    memcpy(occ + nocc, fresh, (size_t)nf * sizeof *occ);
    nocc += (size_t)nf;
  }
  if (nocc > 0)
    ns_cluster_vacate(c, occ, nocc);
  *ncand = n;
  /* No candidate left (NS_ENOSPACE) ends the list; another failure (out
     of memory, a policy error) is the call's, not a shorter list. */
  if (n == 0 || (rc < 0 && rc != NS_ENOSPACE))
    return rc;
  return NS_OK;
}

static int describe(ns_cluster *c, const ns_job *job, ns_placement *pl, ns_candidate **cand) {
  if (pl->nlinks == 0)
    qsort(pl->gpus, pl->ngpus, sizeof *pl->gpus, nsi_cmp_int);
  *cand = ns_candidate_new();
  if (*cand == NULL)
    return nsi_fail(NS_ENOMEM, "out of memory describing a CASSINI candidate");
  return ns_cassini_candidate_from_cluster(*cand, c, job, pl);
}

/* Ranks the n candidates into start s (placement, and the winner's shifts). */
static int rank_and_pick(ns_policy *p, ns_cluster *c, const nsp_entry *e, size_t n,
                         nsp_start *s) {
  ns_candidate *cands[NSP_MAX_CANDIDATES] = {0};
  int rc = NS_OK;
  size_t free_pick = n, best = 0;
  for (size_t i = 0; i < n && rc == NS_OK; i++) {
    rc = describe(c, e->job, p->cand[i], &cands[i]);
    double sh;
    if (rc == NS_OK && free_pick == n &&
        ns_candidate_shift_ms(cands[i], e->job, &sh) == NS_ENOTFOUND)
      free_pick = i; /* the job is on no shared link: fully compatible */
  }
  if (rc == NS_OK && free_pick < n) {
    best = free_pick;
  } else if (rc == NS_OK) {
    double scores[NSP_MAX_CANDIDATES], sh = 0;
    rc = ns_cassini_rank(cands, n, p->cassini_opts, &best, scores);
    if (rc == NS_ELOOP || rc == NS_ERANGE) { /* no loop-free candidate: base placement */
      rc = NS_OK, best = 0;
    } else if (rc == NS_OK) {
      rc = ns_candidate_shift_ms(cands[best], e->job, &sh);
      if (rc == NS_OK)
        s->cand = cands[best], cands[best] = NULL; /* the start keeps the winner's shifts */
    }
  }
  if (rc == NS_OK)
    rc = nsi_placement_copy(s->pl, p->cand[best]);
  for (size_t i = 0; i < n; i++)
    ns_candidate_free(cands[i]);
  if (rc < 0) {
    ns_candidate_free(s->cand);
    s->cand = NULL;
    if (rc == NS_EUNSUPPORTED)
      return rc;
    return nsi_fail(rc, "CASSINI failed on job '%s': %s", ns_job_name(e->job), ns_last_error());
  }
  return NS_OK;
}

/* Dally: when a declined job wants to be offered again even if nothing
   else happens - the earliest of its timers still ahead. */
static int dally_retry(ns_policy *p, const nsp_entry *e, double now, double *at) {
  double m = 0, r = 0;
  *at = INFINITY;
  if (ns_delay_tuner_timers(p->tuner, ns_job_gpus(e->job), now, &m, &r) < 0)
    return nsi_fail(NS_EUNSUPPORTED, "ns_delay_tuner_timers failed: %s", ns_last_error());
  double t[2] = {e->since + m, e->since + r};
  for (int i = 0; i < 2; i++)
    if (isfinite(t[i]) && t[i] > now && t[i] < *at)
      *at = t[i];
  return NS_OK;
}

/* Queue index i, read as v, offered the free GPUs: appends a start to d or
   sets its status. NS_OK once decided; < 0 a failure (d unchanged for i). */
static int place_entry(ns_policy *p, ns_cluster *c, nsp_entry v, size_t i, double now,
                       ns_decision *d) {
  nsp_start *s = NULL;
  NSI_TRY(next_start(d, &s, "ns_policy_place"));
  int rc;
  if (p->cassini) {
    size_t n = 0;
    rc = make_candidates(p, c, &v, now, &n);
    if (rc == NS_OK)
      rc = rank_and_pick(p, c, &v, n, s);
  } else {
    rc = place_fns[p->placement](p, c, &v, now, s->pl);
  }
  if (rc == NS_OK) {
    s->qi = i;
    d->ns++;
    d->status[i] = NS_OK;
    return NS_OK;
  }
  if (rc == NS_ENOSPACE) {
    d->status[i] = NS_ENOSPACE;
    if (p->tuner != NULL) {
      NSI_TRY(dally_retry(p, &v, now, &d->retry[i]));
      if (d->retry[i] < d->next)
        d->next = d->retry[i];
    }
    return NS_OK;
  }
  if (rc == NS_EINVAL && p->placement != NS_POLICY_PLACE_CUSTOM) {
    d->status[i] = NS_EINVAL; /* the policy can never host this job here (e.g. no vClos shape) */
    return NS_OK;
  }
  return rc;
}

static int place_one(ns_policy *p, ns_cluster *c, const ns_queue *q, size_t i, double now,
                     ns_decision *d) {
  return place_entry(p, c, view(p, &q->e[i]), i, now, d);
}

/* A decision (place, decide, preempt) changes the tuner and the wait log
   only if it succeeds: begin_call opens a checkpoint on the tuner and
   marks the log; end_call keeps both (and prunes the log) on success, or
   rolls the tuner back and cuts the log back on failure. A decision that
   succeeds is the policy's latest now_ms (nsp_check_time). */
typedef struct nsp_mark {
  size_t nwaits;
  double clock, now;
} nsp_mark;

static nsp_mark begin_call(ns_policy *p, double now_ms) {
  if (p->tuner != NULL)
    ns_delay_tuner_checkpoint(p->tuner); /* p->tuner is valid: cannot fail */
  return (nsp_mark){p->nwaits, p->clock, now_ms};
}

static int end_call(ns_policy *p, nsp_mark m, int rc) {
  if (rc >= 0)
    p->last_now = m.now;
  if (p->tuner == NULL)
    return rc;
  if (rc < 0) {
    ns_delay_tuner_rollback(p->tuner); /* opened by begin_call: cannot fail */
    p->nwaits = m.nwaits, p->clock = m.clock;
  } else {
    ns_delay_tuner_commit(p->tuner);
    prune_waits(p);
  }
  return rc;
}

static int decide_args(ns_policy *p, ns_cluster *c, const ns_queue *q, double now_ms,
                       ns_decision *d, const char *fn) {
  NSI_TRY(nsi_check_ptr(p, fn, "p"));
  NSI_TRY(nsi_check_ptr(c, fn, "c"));
  NSI_TRY(nsi_check_ptr(q, fn, "q"));
  NSI_TRY(nsi_check_ptr(d, fn, "d"));
  if (!isfinite(now_ms)) {
    char b[32];
    return nsi_fail(NS_EINVAL, "%s: now_ms %s is not finite", fn, nsi_fmt_real(now_ms, b, sizeof b));
  }
  NSI_TRY(nsp_check_time(p, now_ms, fn));
  return nsp_ready(p, fn);
}

int ns_policy_place(ns_policy *p, ns_cluster *c, const ns_queue *q, size_t i, double now_ms,
                    ns_decision *d) {
  NSI_TRY(decide_args(p, c, q, now_ms, d, "ns_policy_place"));
  if (i >= q->n)
    return nsi_fail(NS_EINVAL, "ns_policy_place: i %zu is not a queue index (the queue holds "
                               "%zu jobs)", i, q->n);
  if (q->e[i].running)
    return nsi_fail(NS_EINVAL, "ns_policy_place: i %zu is a running job (job '%s'); only a "
                               "waiting job is placed", i, ns_job_name(q->e[i].job));
  NSI_TRY(nsp_decision_reset(d, q->n, "ns_policy_place"));
  nsp_mark m = begin_call(p, now_ms);
  int rc = end_call(p, m, place_one(p, c, q, i, now_ms, d));
  if (rc < 0)
    nsp_decision_reset(d, q->n, "ns_policy_place");
  return rc;
}

typedef struct nsp_item {
  double key, arrival;
  uint64_t id;
  size_t i;
} nsp_item;

static int by_item(const void *a, const void *b) {
  const nsp_item *x = a, *y = b;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  if (x->arrival != y->arrival)
    return x->arrival < y->arrival ? -1 : 1;
  if (x->id != y->id)
    return x->id < y->id ? -1 : 1;
  return (x->i > y->i) - (x->i < y->i);
}

/* The non-preemptive orders: waiting jobs in the policy's order, each
   placed and committed tentatively before the next is asked; running jobs
   keep their GPUs (status NS_OK). */
static int decide_queue(ns_policy *p, ns_cluster *c, const ns_queue *q, double now_ms,
                        ns_decision *d) {
  nsp_item *it = malloc((q->n ? q->n : 1) * sizeof *it);
  if (it == NULL)
    return nsi_fail(NS_ENOMEM, "ns_policy_decide: out of memory");
  size_t n = 0;
  for (size_t i = 0; i < q->n; i++) {
    if (q->e[i].running) {
      d->status[i] = NS_OK; /* keeps its GPUs: these orders never suspend */
      continue;
    }
    nsp_entry v = view(p, &q->e[i]);
    it[n].key = key_fns[p->order](&v), it[n].arrival = v.arrival, it[n].id = v.id, it[n].i = i;
    n++;
  }
  qsort(it, n, sizeof *it, by_item);
  int sharing = ns_cluster_gpu_sharing(c) == 1, rc = NS_OK;
  int free_gpus = ns_cluster_free_gpu_count(c);
  size_t committed = 0; /* starts committed tentatively (d->s[0..committed)) */
  for (size_t k = 0; k < n && rc == NS_OK; k++) {
    size_t i = it[k].i;
    const ns_job *job = q->e[i].job;
    /* cheap filter; with GPU sharing, busy GPUs may still host the job */
    if (sharing || (free_gpus > 0 && ns_job_gpus(job) <= free_gpus))
      rc = place_one(p, c, q, i, now_ms, d);
    else
      d->status[i] = NS_ENOSPACE;
    if (rc < 0)
      break;
    if (d->status[i] == NS_OK) {
      rc = ns_cluster_commit(c, job, d->s[d->ns - 1].pl);
      if (rc < 0) {
        rc = nsi_fail(rc, "ns_policy_decide: cannot commit job '%s' where the policy placed "
                          "it (is it committed already?): %s", ns_job_name(job), ns_last_error());
        break;
      }
      committed = d->ns;
      free_gpus = ns_cluster_free_gpu_count(c);
    } else if (d->status[i] == NS_ENOSPACE && !p->backfill) {
      break; /* strict order: the queue stops at the first job that waits */
    }
  }
  for (size_t k = committed; k-- > 0;)
    ns_cluster_release(c, q->e[d->s[k].qi].job);
  free(it);
  return rc;
}

/* The preemptive orders (las.c ranks, the file comment of policy.h): the
   running jobs not granted GPUs are released tentatively, the waiting ones
   granted are placed in queue order (each with as many GPUs free), each
   committed before the next; then c is put back exactly. */
static int decide_las(ns_policy *p, ns_cluster *c, const ns_queue *q, double now_ms,
                      ns_decision *d) {
  static const char fn[] = "ns_policy_decide";
  size_t n = q->n ? q->n : 1, ngo = 0, nstop = 0;
  size_t *go = malloc(n * sizeof *go), *stop = malloc(n * sizeof *stop);
  long *at = malloc(n * sizeof *at);
  int rc = go == NULL || stop == NULL || at == NULL ? nsi_fail(NS_ENOMEM, "%s: out of memory", fn)
                                                     : NS_OK;
  /* GPUs to grant: the free ones and those of the running jobs in the
     queue, not the whole cluster: GPUs held by jobs the caller did not
     queue (not preemptible, down nodes modelled as held) are nobody's to
     grant. At most the cluster's (GPU sharing counts a GPU once). */
  /* = all GPUs - those committed to jobs not in the queue: O(jobs), not a
     scan of every GPU at each decision */
  long grantable = ns_cluster_gpu_count(c);
  for (size_t k = 0; k < c->ncommits; k++)
    grantable -= (long)c->commits[k].ngpus;
  for (size_t i = 0; i < q->n; i++) { /* status: running keeps its GPUs unless suspended
                                          below; waiting: not granted GPUs (a failed call
                                          resets d) */
    int running = q->e[i].running;
    d->status[i] = running ? NS_OK : NS_ENOSPACE;
    grantable += running ? q->e[i].gpus : 0; /* the job's, read when queued */
  }
  if (grantable > ns_cluster_gpu_count(c))
    grantable = ns_cluster_gpu_count(c);
  if (grantable < 0)
    grantable = 0;
  if (rc == NS_OK)
    rc = nsp_las_rank(p, q, now_ms, grantable, go, &ngo, stop, &nstop, fn);
  int ranked = rc == NS_OK;
  if (rc == NS_OK && nstop > d->capsusp) {
    size_t *sv = realloc(d->susp, nstop * sizeof *sv);
    nsi_commit *hv = sv == NULL ? NULL : realloc(d->held, nstop * sizeof *hv);
    if (sv != NULL)
      d->susp = sv;
    if (hv != NULL)
      d->held = hv, d->capsusp = nstop;
    else
      rc = nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  }
  for (size_t k = 0; k < nstop && rc == NS_OK; k++) {
    const ns_job *job = q->e[stop[k]].job;
    if (nsi_find_commit(c, job) < 0)
      rc = nsi_fail(NS_EINVAL, "%s: queue index %zu (job '%s') was added as running but is not "
                               "committed on c (commit every running job where it runs)",
                    fn, stop[k], ns_job_name(job));
  }
  size_t released = 0, committed = 0;
  for (size_t k = 0; k < nstop && rc == NS_OK; k++) {
    /* detached, not released: putting it back below cannot fail */
    at[k] = nsi_cluster_detach(c, q->e[stop[k]].job, &d->held[k]);
    released = k + 1;
    d->susp[d->nsusp++] = stop[k];
    d->status[stop[k]] = NS_ENOSPACE; /* suspended: waits again */
  }
  int sharing = ns_cluster_gpu_sharing(c) == 1;
  for (size_t k = 0; k < ngo && rc == NS_OK; k++) {
    size_t i = go[k];
    const ns_job *job = q->e[i].job;
    if (!sharing && ns_cluster_free_gpu_count(c) < ns_job_gpus(job)) {
      d->status[i] = NS_ENOSPACE;
      continue;
    }
    rc = place_one(p, c, q, i, now_ms, d);
    if (rc == NS_OK && d->status[i] == NS_OK) {
      rc = ns_cluster_commit(c, job, d->s[d->ns - 1].pl);
      if (rc < 0)
        rc = nsi_fail(rc, "%s: cannot commit job '%s' where the policy placed it (is it "
                          "committed already?): %s", fn, ns_job_name(job), ns_last_error());
      else
        committed = d->ns;
    }
  }
  for (size_t k = committed; k-- > 0;)
    ns_cluster_release(c, q->e[d->s[k].qi].job);
  for (size_t k = released; k-- > 0;)
    nsi_cluster_reattach(c, &d->held[k], (size_t)at[k]); /* its GPUs are free again */
  if (rc == NS_OK) {
    double next = nsp_las_settle(p, d->status, now_ms);
    if (next < d->next)
      d->next = next;
  } else if (ranked) {
    nsp_las_restore(p->las);
  }
  free(go), free(stop), free(at);
  return rc;
}

/* ---- Dally's lease reading (LEASES in policy.h) ---------------------------------
   The re-offer when leases expired: the waiting jobs and the expired ones
   in increasing Nw_sens (key_nw_sens: the waiting job's, the expired job's
   measured now as the caller set it; ties by arrival, then id), offered
   the free GPUs and the expired jobs' GPUs. An expired job whose GPUs no
   one before it took keeps them (renewed); one that lost them is suspended
   and offered what is free (Algorithm 1 starving since its lease began:
   accepting moves it, a suspend and a start); a waiting job is offered the
   free GPUs, then those of the expired jobs after it, taken one by one from
   the latest (highest Nw_sens) until Algorithm 1 accepts (else they are put
   back). Starts are committed as decided, so later offers see them; every
   change to c is undone in reverse at the end (c exactly as it was). This is
   the simulator's lease hook (src/sim/policy.c before issue 28), moved with
   its decisions and bounds unchanged. */

/* One change to c during the walk, undone in reverse: a start committed
   (start index), or an expired job released (expired index, its record). */
typedef struct nsp_undo {
  int start; /* 1: d->s[k] committed; 0: expired job k released at record at */
  size_t k;
  long at;
} nsp_undo;

typedef struct nsp_reoffer {
  ns_policy *p;
  ns_cluster *c;
  const ns_queue *q;
  ns_decision *d;
  double now;
  const nsp_item *it; /* the offerees in increasing Nw_sens */
  size_t n;
  const int *slot;    /* per offeree: its expired index, -1 if waiting */
  const size_t *exp;  /* expired index -> queue index */
  const size_t *epos; /* positions in it of the expired jobs, ascending */
  size_t ne;
  char *lost;         /* per expired job: its GPUs went to a job before it */
  long rest;          /* GPUs of the expired jobs not yet reached nor lost */
  int budget;         /* offers with GPUs taken from expired jobs left */
  nsp_undo *log;
  size_t nlog;
} nsp_reoffer;

static const ns_job *exp_job(const nsp_reoffer *r, size_t e) { return r->q->e[r->exp[e]].job; }

/* Undoes the log down to n entries, latest first. */
static int undo_to(nsp_reoffer *r, size_t n) {
  int rc = NS_OK;
  while (r->nlog > n) {
    const nsp_undo *u = &r->log[--r->nlog];
    int x;
    if (u->start) {
      x = ns_cluster_release(r->c, r->q->e[r->d->s[u->k].qi].job);
    } else {
      nsi_cluster_reattach(r->c, &r->d->held[u->k], (size_t)u->at); /* cannot fail */
      x = NS_OK;
    }
    rc = rc == NS_OK && x < 0 ? x : rc;
  }
  return rc;
}

/* Offers queue index i (read as v) what is free now; *placed 1 if it took
   a start (committed on c), -1 if it can never fit, else 0. */
static int lease_offer(nsp_reoffer *r, nsp_entry v, size_t i, int *placed) {
  *placed = 0;
  NSI_TRY(place_entry(r->p, r->c, v, i, r->now, r->d));
  if (r->d->status[i] == NS_EINVAL)
    *placed = -1;
  if (r->d->status[i] != NS_OK)
    return NS_OK;
  size_t k = r->d->ns - 1;
  int rc = ns_cluster_commit(r->c, v.job, r->d->s[k].pl);
  if (rc < 0)
    return nsi_fail(rc, "ns_policy_decide: cannot commit job '%s' where the policy placed it "
                        "(is it committed already?): %s", ns_job_name(v.job), ns_last_error());
  r->log[r->nlog].start = 1, r->log[r->nlog].k = k, r->log[r->nlog++].at = -1;
  *placed = 1;
  return NS_OK;
}

/* A waiting job at position k that the free GPUs do not place: the expired
   jobs after it, latest first, are released one by one and it is offered
   again once enough GPUs are free. Accepted: they lose their GPUs; declined:
   they are put back. */
static int lease_victims(nsp_reoffer *r, size_t k, int *placed) {
  size_t i = r->it[k].i;
  int need = ns_job_gpus(r->q->e[i].job);
  long freed = ns_cluster_free_gpu_count(r->c);
  if (r->budget <= 0 || freed + r->rest < need)
    return NS_OK;
  size_t mark = r->nlog, taken[NSP_DALLY_MAX_VICTIMS], nt = 0;
  int rc = NS_OK;
  for (size_t m = r->ne; m-- > 0 && nt < NSP_DALLY_MAX_VICTIMS && r->budget > 0;) {
    size_t pos = r->epos[m];
    if (pos <= k)
      break;
    size_t e = (size_t)r->slot[pos];
    if (r->lost[e])
      continue;
    long at = nsi_cluster_detach(r->c, exp_job(r, e), &r->d->held[e]);
    if (at < 0) {
      rc = nsi_fail(NS_EINVAL, "ns_policy_decide: job '%s' is not committed on c",
                    ns_job_name(exp_job(r, e)));
      break;
    }
    r->log[r->nlog].start = 0, r->log[r->nlog].k = e, r->log[r->nlog++].at = at;
    taken[nt++] = e;
    freed += ns_job_gpus(exp_job(r, e));
    if (freed < need)
      continue;
    r->budget--;
    rc = lease_offer(r, view(r->p, &r->q->e[i]), i, placed);
    if (rc < 0 || *placed > 0)
      break;
  }
  if (rc == NS_OK && *placed > 0) {
    for (size_t v = 0; v < nt; v++)
      r->lost[taken[v]] = 1, r->rest -= ns_job_gpus(exp_job(r, taken[v]));
    return NS_OK;
  }
  int undo = undo_to(r, mark);
  return rc < 0 ? rc : undo;
}

/* The walk of one re-offer (the section comment). */
static int lease_walk(nsp_reoffer *r) {
  ns_decision *d = r->d;
  size_t last = r->epos[r->ne - 1];
  int sharing = ns_cluster_gpu_sharing(r->c) == 1, rc = NS_OK;
  int blocked = 0; /* no backfilling: a waiting job not placed stops the queue */
  for (size_t k = 0; k < r->n && rc == NS_OK; k++) {
    size_t i = r->it[k].i;
    int e = r->slot[k], placed = 0, free_gpus = ns_cluster_free_gpu_count(r->c);
    if (k > last && free_gpus == 0 && !sharing)
      break; /* only free GPUs are left to offer, and none is free */
    nsp_entry v = view(r->p, &r->q->e[i]);
    int gpus = ns_job_gpus(v.job), fits = sharing || gpus <= free_gpus;
    if (e >= 0 && !r->lost[e]) { /* no one before it took its GPUs: renewed */
      r->rest -= gpus;
      d->renew[d->nrenew++] = i;
      d->status[i] = NS_OK;
      continue;
    }
    if (e >= 0) { /* lost its GPUs: suspended, offered what is free */
      d->susp[d->nsusp++] = i;
      d->status[i] = NS_ENOSPACE;
      double from = 0;
      nsp_lease_of(r->p, v.id, &from, NULL);
      v.since = from, v.since_set = 1; /* Algorithm 1: since its last assignment */
      if (fits)
        rc = lease_offer(r, v, i, &placed);
    } else if (!blocked) {
      d->status[i] = NS_ENOSPACE;
      if (fits)
        rc = lease_offer(r, v, i, &placed);
      if (rc == NS_OK && placed == 0)
        rc = lease_victims(r, k, &placed);
      blocked = placed == 0 && !r->p->backfill;
    }
  }
  return rc;
}

/* Room in d for n suspends and renewals (and the expired jobs' placements). */
static int reserve_lease(ns_decision *d, size_t n, const char *fn) {
  if (n > d->capsusp) {
    size_t *sv = realloc(d->susp, n * sizeof *sv);
    if (sv == NULL)
      return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
    d->susp = sv;
    nsi_commit *hv = realloc(d->held, n * sizeof *hv);
    if (hv == NULL)
      return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
    d->held = hv, d->capsusp = n;
  }
  if (n > d->caprenew) {
    size_t *rv = realloc(d->renew, n * sizeof *rv);
    if (rv == NULL)
      return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
    d->renew = rv, d->caprenew = n;
  }
  return NS_OK;
}

/* NW_SENS order: the plain queue, or with leases expired the re-offer. */
static int decide_nw_sens(ns_policy *p, ns_cluster *c, const ns_queue *q, double now_ms,
                          ns_decision *d) {
  static const char fn[] = "ns_policy_decide";
  if (p->lease == NULL || ns_cluster_gpu_sharing(c) == 1)
    return decide_queue(p, c, q, now_ms, d);
  NSI_TRY(nsp_lease_check_ids(p, q, fn));
  size_t n = q->n ? q->n : 1, ne = 0;
  NSI_TRY(nsp_lease_reserve(p, q->n, fn)); /* settle below cannot fail */
  size_t *exp = malloc(n * sizeof *exp);
  if (exp == NULL)
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  nsp_lease_expired(p, q, now_ms, exp, &ne);
  int rc = NS_OK;
  if (ne == 0) {
    rc = decide_queue(p, c, q, now_ms, d);
  } else {
    nsp_item *it = malloc(n * sizeof *it);
    int *slot = malloc(2 * n * sizeof *slot), *eidx = slot != NULL ? slot + n : NULL;
    size_t *epos = malloc(ne * sizeof *epos);
    char *lost = calloc(ne, 1);
    /* each waiting job commits once, each expired job is released once */
    nsp_undo *log = malloc((n + ne) * sizeof *log);
    rc = it && slot && epos && lost && log ? reserve_lease(d, ne, fn)
                                           : nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
    size_t m = 0;
    for (size_t i = 0, e = 0; i < q->n && rc == NS_OK; i++) {
      int expired = e < ne && exp[e] == i;
      if (q->e[i].running && !expired) {
        d->status[i] = NS_OK; /* its lease runs: keeps its GPUs */
        continue;
      }
      nsp_entry v = view(p, &q->e[i]);
      it[m].key = key_nw_sens(&v), it[m].arrival = v.arrival, it[m].id = v.id, it[m].i = i;
      m++;
      if (expired && nsi_find_commit(c, q->e[i].job) < 0)
        rc = nsi_fail(NS_EINVAL, "%s: queue index %zu (job '%s') was added as running but is "
                                 "not committed on c (commit every running job where it runs)",
                      fn, i, ns_job_name(q->e[i].job));
      e += expired;
    }
    if (rc == NS_OK) {
      qsort(it, m, sizeof *it, by_item);
      nsp_reoffer r = {p, c, q, d, now_ms, it, m, slot, exp, epos, ne, lost, 0,
                       NSP_DALLY_LEASE_TRIES, log, 0};
      /* slot: queue index -> expired index (exp[] ascends, as held[]), then
         offeree position -> expired index */
      for (size_t i = 0; i < q->n; i++)
        eidx[i] = -1;
      for (size_t e = 0; e < ne; e++)
        eidx[exp[e]] = (int)e;
      for (size_t k = 0, e = 0; k < m; k++) {
        slot[k] = eidx[it[k].i];
        if (slot[k] >= 0)
          epos[e++] = k, r.rest += ns_job_gpus(q->e[it[k].i].job);
      }
      rc = lease_walk(&r);
      /* c back as it was: the starts off, the expired jobs that lost
         their GPUs on again, in reverse */
      int undo = undo_to(&r, 0);
      if (rc == NS_OK && undo < 0)
        rc = nsi_fail(undo, "%s: cannot restore the cluster after Dally's re-offer: %s", fn,
                      ns_last_error());
    }
    free(it), free(slot), free(epos), free(lost), free(log);
  }
  free(exp);
  if (rc == NS_OK) {
    double next = nsp_lease_settle(p, q, d, now_ms);
    if (next < d->next)
      d->next = next;
  }
  return rc;
}

/* ---- Dally's pass-by-pass preemption (ns_policy_preempt) -----------------------
   The simulator's pass-by-pass reading (lease 0), moved here in issue 28
   with its decisions unchanged: the waiting jobs in queue order, each may
   take the GPUs of running jobs whose Nw_sens exceeds its own by more than
   NSP_DALLY_MARGIN, highest first (the least network-sensitive, as Tiresias
   preempts the highest 2DAS first), taken off one by one (at most
   NSP_DALLY_MAX_VICTIMS) until its placement accepts the GPUs so freed;
   the first waiter that accepts wins. At most NSP_DALLY_TRIES offers per
   now_ms, over the calls at that time. */

typedef struct nsp_victim {
  double nw;
  uint64_t id;
  size_t i;
} nsp_victim;

static int by_victim(const void *a, const void *b) {
  const nsp_victim *x = a, *y = b;
  if (x->nw != y->nw)
    return x->nw < y->nw ? 1 : -1; /* highest Nw_sens first */
  return (x->id > y->id) - (x->id < y->id);
}

/* Waiting job it[w] offered the GPUs of victims v[0..nv) taken off c one
   by one (with the free ones); *ok if its placement accepted (a start in
   d, the victims taken listed as suspends). c is put back exactly. */
static int pass_trial(ns_policy *p, ns_cluster *c, const ns_queue *q, size_t wi,
                      const nsp_victim *v, size_t nv, double now, int *budget, ns_decision *d,
                      int *ok) {
  static const char fn[] = "ns_policy_preempt";
  int need = ns_job_gpus(q->e[wi].job), rc = NS_OK;
  long freed = ns_cluster_free_gpu_count(c), at[NSP_DALLY_MAX_VICTIMS];
  size_t n = 0;
  *ok = 0;
  for (size_t k = 0; k < nv && n < NSP_DALLY_MAX_VICTIMS && *budget > 0; k++) {
    const ns_job *job = q->e[v[k].i].job;
    /* detached, not released: putting it back below cannot fail */
    at[n] = nsi_cluster_detach(c, job, &d->held[n]);
    if (at[n] < 0) {
      rc = nsi_fail(NS_EINVAL, "%s: queue index %zu (job '%s') was added as running but is not "
                               "committed on c (commit every running job where it runs)",
                    fn, v[k].i, ns_job_name(job));
      break;
    }
    d->susp[n++] = v[k].i;
    freed += ns_job_gpus(job);
    if (freed < need)
      continue;
    (*budget)--;
    rc = place_one(p, c, q, wi, now, d);
    if (rc < 0 || d->status[wi] == NS_OK) {
      *ok = rc == NS_OK;
      break;
    }
    if (d->status[wi] != NS_ENOSPACE)
      break; /* never fits: no victim makes room */
  }
  for (size_t k = n; k-- > 0;) /* back as it was, in reverse */
    nsi_cluster_reattach(c, &d->held[k], (size_t)at[k]);
  if (*ok && rc == NS_OK) {
    d->nsusp = n;
    for (size_t k = 0; k < n; k++)
      d->status[d->susp[k]] = NS_ENOSPACE; /* suspended */
  } else {
    *ok = 0;
  }
  return rc;
}

static int preempt(ns_policy *p, ns_cluster *c, const ns_queue *q, double now_ms,
                   ns_decision *d) {
  static const char fn[] = "ns_policy_preempt";
  if (p->order != NS_POLICY_ORDER_NW_SENS)
    return nsi_fail(NS_EINVAL, "%s: Dally's preemption ranks by measured Nw_sens; policy '%s' "
                               "does not order by it (NS_POLICY_ORDER_NW_SENS: dally, "
                               "dally-manual)", fn, ns_policy_name(p));
  NSI_TRY(nsp_decision_reset(d, q->n, fn));
  NSI_TRY(reserve_lease(d, NSP_DALLY_MAX_VICTIMS, fn));
  int budget = p->pass_at == now_ms ? p->pass_budget : NSP_DALLY_TRIES;
  size_t n = q->n ? q->n : 1, nw = 0, nv = 0;
  nsp_item *it = malloc(n * sizeof *it);
  nsp_victim *v = malloc(n * sizeof *v);
  if (it == NULL || v == NULL) {
    free(it), free(v);
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  }
  for (size_t i = 0; i < q->n; i++) {
    nsp_entry e = view(p, &q->e[i]);
    double m = isfinite(e.nw) ? e.nw : 1.0; /* unmeasured: no slowdown endured */
    if (q->e[i].running) {
      d->status[i] = NS_OK; /* keeps its GPUs unless suspended below */
      v[nv].nw = m, v[nv].id = e.id, v[nv++].i = i;
    } else {
      it[nw].key = key_nw_sens(&e), it[nw].arrival = e.arrival, it[nw].id = e.id, it[nw++].i = i;
    }
  }
  qsort(it, nw, sizeof *it, by_item);
  qsort(v, nv, sizeof *v, by_victim);
  long free_gpus = ns_cluster_free_gpu_count(c);
  int rc = NS_OK, ok = 0;
  for (size_t k = 0; k < nw && budget > 0 && rc == NS_OK && !ok; k++) {
    size_t wi = it[k].i;
    nsp_entry e = view(p, &q->e[wi]);
    double bar = (isfinite(e.nw) ? e.nw : 1.0) * (1 + NSP_DALLY_MARGIN);
    if (nv == 0 || !(v[0].nw > bar))
      break; /* later waiters rank no lower: no victim for them either */
    size_t ne = 0;
    long gpus = free_gpus;
    while (ne < nv && v[ne].nw > bar)
      gpus += ne < NSP_DALLY_MAX_VICTIMS ? ns_job_gpus(q->e[v[ne].i].job) : 0, ne++;
    if (gpus < ns_job_gpus(q->e[wi].job))
      continue; /* even every victim together would not make room */
    rc = pass_trial(p, c, q, wi, v, ne, now_ms, &budget, d, &ok);
  }
  free(it), free(v);
  if (rc < 0) {
    nsp_decision_reset(d, q->n, fn);
    return rc;
  }
  p->pass_at = now_ms, p->pass_budget = budget;
  if (ok)
    d->next = now_ms; /* apply it, then ask again now: another waiter may preempt */
  return NS_OK;
}

int ns_policy_preempt(ns_policy *p, ns_cluster *c, const ns_queue *q, double now_ms,
                      ns_decision *d) {
  NSI_TRY(decide_args(p, c, q, now_ms, d, "ns_policy_preempt"));
  nsp_mark m = begin_call(p, now_ms);
  return end_call(p, m, preempt(p, c, q, now_ms, d));
}

static int (*const decide_fns[])(ns_policy *, ns_cluster *, const ns_queue *, double,
                                 ns_decision *) = {
    [NS_POLICY_ORDER_FIFO] = decide_queue,    [NS_POLICY_ORDER_SRSF] = decide_queue,
    [NS_POLICY_ORDER_SJF] = decide_queue,     [NS_POLICY_ORDER_NW_SENS] = decide_nw_sens,
    [NS_POLICY_ORDER_2D_LAS] = decide_las,    [NS_POLICY_ORDER_2D_GITTINS] = decide_las};

int ns_policy_decide(ns_policy *p, ns_cluster *c, const ns_queue *q, double now_ms,
                     ns_decision *d) {
  NSI_TRY(decide_args(p, c, q, now_ms, d, "ns_policy_decide"));
  NSI_TRY(nsp_decision_reset(d, q->n, "ns_policy_decide"));
  nsp_mark m = begin_call(p, now_ms);
  int rc = end_call(p, m, decide_fns[p->order](p, c, q, now_ms, d));
  if (rc < 0)
    nsp_decision_reset(d, q->n, "ns_policy_decide");
  return rc;
}
