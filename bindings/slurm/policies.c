/*
 * bindings/slurm/policies.c - the policy presets netsched-slurm accepts, by
 * the simulator's names (netsched-sim --list): each is the library's policy
 * object (ns_policy, netsched/policy.h), the one the simulator runs, so the
 * adapter's decisions are the simulator's (tests/slurm/test_decide_policy.c
 * checks it for every preset). The adapter supplies what it knows of a
 * held job (id, submission time, ideal run time from its hints) and applies
 * what the policy decides; what a preset does beyond placement cannot be
 * applied through Slurm and is left out, documented in docs/slurm.md:
 *  - srsf-1, srsf-2, ada-srsf: their communication admission (who may
 *    collide on a link) needs control of each iteration's all-reduce, which
 *    a batch scheduler does not have;
 *  - cassini-ff, cassini-lwf-1: the ranked candidate is applied; its
 *    time-shifts need the same control of iterations and are not applied;
 *  - 2d-las, 2d-gittins: they suspend running jobs; with --preempt requeue
 *    the adapter requeues the ones that opted in (decide.c decide_preempt,
 *    docs/slurm.md "Preemption"); without it nothing is suspended and the
 *    held jobs (the attained service of earlier runs aside) go in arrival
 *    order, with first-fit placement;
 *  - dally, dally-manual: their delay scheduling (the tuner) is applied;
 *    their lease re-offers are NOT (the adapter's object has leases off,
 *    ns_policy_set_dally_lease 0), and --preempt requeue with them is a
 *    usage error. Why: the re-offers go "in increasing order of Nw_sens",
 *    which the adapter cannot measure (Slurm reports no iteration progress;
 *    every job would count 1.0), so they would degenerate into requeueing
 *    the latest-arrived preemptible job every 20 min whenever an earlier
 *    job waits - restarting it from scratch (Slurm requeue) for no measured
 *    gain. A site gets Dally's placement and nothing ever requeued.
 * Also here: the orders --order accepts and the model profiles (AdaDUAL
 * Table III, the simulator's four, sim.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapter.h"

/* ---- models ------------------------------------------------------------- */

/* The simulator's embedded profiles (ns_sim_model_profile), so a job's
   model hint means the same here as in netsched-sim. */
typedef struct nss_model {
  const char *name;
  double model_mb, fwd_ms, bwd_ms;
} nss_model;

static int model_get(int model, nss_model *m) {
  uint64_t bytes;
  if (ns_sim_model_profile((ns_sim_model)model, &m->name, &bytes, &m->fwd_ms, &m->bwd_ms,
                           NULL) != NS_OK)
    return -1;
  m->model_mb = (double)bytes / 1e6;
  return 0;
}

int nss_model_find(const char *name) {
  nss_model m;
  for (int i = 0; model_get(i, &m) == 0; i++)
    if (strcmp(m.name, name) == 0)
      return i;
  return -1;
}

const char *nss_model_names(void) {
  static char names[256];
  if (names[0] == '\0') {
    nss_model m;
    for (int i = 0; model_get(i, &m) == 0; i++)
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? "|" : "",
               m.name);
  }
  return names;
}

/* Profile of a job from its hints: compute (fwd + bwd) and all-reduce
   bytes, and the phase profile CASSINI needs - one iteration = compute at 0
   Gbps, then a ring all-reduce of the model, 2(N-1)/N x bytes at gbps (N =
   its GPUs; none for one GPU). */
void nss_model_apply(int model, uint64_t iters, double gbps, ns_job *job) {
  if (iters > 0)
    ns_job_set_iterations(job, iters, 0);
  nss_model m;
  if (model < 0 || model_get(model, &m) < 0)
    return;
  int n = ns_job_gpus(job);
  double compute = m.fwd_ms + m.bwd_ms;
  double comm = n > 1 ? 2.0 * (n - 1) / n * m.model_mb * 8.0 / gbps : 0.0; /* Mbit / Gbps = ms */
  ns_job_set_compute_ms(job, m.fwd_ms, m.bwd_ms);
  ns_job_set_model_bytes(job, (uint64_t)llround(m.model_mb * 1e6));
  ns_job_clear_phases(job);
  ns_job_add_phase(job, compute, 0.0);
  if (comm > 0)
    ns_job_add_phase(job, comm, gbps);
  ns_job_set_iteration_ms(job, compute + comm);
}

/* Ideal run time (ms) of a held job: iterations x (compute + a ring
   all-reduce alone: inside one node at 100 Gbps as the simulator's
   intra_gbps, else over the 10 Gbps NIC), as the simulator's SRSF/SJF keys;
   without a model hint, the job's time limit; NAN if neither. */
double nss_job_ideal_ms(const nss_job *j) {
  nss_model m;
  if (j->model >= 0 && j->iters > 0 && model_get(j->model, &m) == 0) {
    int n = j->gpus;
    double frac = n > 1 ? 2.0 * (n - 1) / n : 0.0;
    double gbps = j->nodes > 1 || n > 4 ? 10.0 : 100.0;
    double it = m.fwd_ms + m.bwd_ms + frac * m.model_mb * 8.0 / gbps;
    return it * (double)j->iters;
  }
  return j->limit_ms > 0 ? j->limit_ms : NAN;
}

/* ---- orders (--order): the policy object's ---------------------------------- */

struct nss_order {
  const char *name;
  ns_policy_order order;
};

static const nss_order orders[] = {
    {"fifo", NS_POLICY_ORDER_FIFO},
    {"srsf", NS_POLICY_ORDER_SRSF},
    {"sjf", NS_POLICY_ORDER_SJF},
    {"nw-sens", NS_POLICY_ORDER_NW_SENS},
};
#define NORDERS ((int)(sizeof orders / sizeof orders[0]))

const nss_order *nss_order_find(const char *name) {
  for (int i = 0; i < NORDERS; i++)
    if (strcmp(orders[i].name, name) == 0)
      return &orders[i];
  return NULL;
}
const char *nss_order_name(const nss_order *o) { return o->name; }
const char *nss_order_names(void) { return "fifo|srsf|sjf|nw-sens"; }

/* The policy's key of a held job (ns_policy_order_key): what the adapter
   knows of it is its id, submission time and ideal run time. A job without
   an estimate sorts after every job with one; one the library cannot
   describe (no GPUs) last. */
double nss_order_key(nss_ctx *x, const nss_job *j) {
  double key = INFINITY;
  ns_job *job = j->gpus > 0 ? ns_job_new("key", j->gpus) : NULL;
  ns_queue_clear(x->q);
  if (job != NULL && ns_queue_add(x->q, job, j->id, nss_job_arrival_ms(j)) == 0) {
    ns_queue_set_ideal_ms(x->q, 0, nss_job_ideal_ms(j));
    if (ns_policy_order_key(x->pol, x->q, 0, &key) < 0 || isnan(key))
      key = INFINITY;
  }
  ns_queue_clear(x->q);
  ns_job_free(job);
  return key;
}

/* ---- presets: the library's table ---------------------------------------- */

struct nss_policy {
  int preset;
  char desc[256];
};

static nss_policy table[64];
static int ntable;

/* The table, with what Slurm cannot enforce said in each description. */
static void load_table(void) {
  if (ntable > 0)
    return;
  int n = ns_policy_preset_count();
  for (int i = 0; i < n && i < 64; i++) {
    ns_policy_order o = NS_POLICY_ORDER_FIFO;
    ns_policy_admission a = NS_POLICY_ADMIT_ALL;
    int cassini = 0;
    ns_policy_preset_parts(i, &o, NULL, NULL, &a, NULL, &cassini, NULL);
    const char *note = a != NS_POLICY_ADMIT_ALL ? " (admission not enforceable by Slurm)"
                       : cassini ? " (time-shifts not enforceable by Slurm)"
                       : o == NS_POLICY_ORDER_2D_LAS || o == NS_POLICY_ORDER_2D_GITTINS
                           ? " (preemption only with --preempt requeue)"
                       : o == NS_POLICY_ORDER_NW_SENS
                           ? " (lease re-offers not applied: Slurm measures no Nw_sens)"
                           : "";
    table[i].preset = i;
    snprintf(table[i].desc, sizeof table[i].desc, "%s%s", ns_policy_preset_description(i), note);
  }
  ntable = n < 64 ? n : 64;
}

const nss_policy *nss_policy_find(const char *name) {
  load_table();
  int i = ns_policy_preset_find(name);
  return i >= 0 && i < ntable ? &table[i] : NULL;
}
int nss_policy_count(void) {
  load_table();
  return ntable;
}
const nss_policy *nss_policy_at(int i) {
  load_table();
  return i >= 0 && i < ntable ? &table[i] : NULL;
}
const char *nss_policy_name(const nss_policy *p) { return ns_policy_preset_name(p->preset); }
const char *nss_policy_desc(const nss_policy *p) { return p->desc; }
const nss_order *nss_policy_default_order(const nss_policy *p) {
  ns_policy_order o = NS_POLICY_ORDER_FIFO;
  ns_policy_preset_parts(p->preset, &o, NULL, NULL, NULL, NULL, NULL, NULL);
  for (int i = 0; i < NORDERS; i++)
    if (orders[i].order == o)
      return &orders[i];
  return &orders[0]; /* the preemptive orders: waiting jobs by arrival */
}
static int placement_of(const nss_policy *p) {
  ns_policy_placement pl = NS_POLICY_PLACE_FIRST_FIT;
  ns_policy_preset_parts(p->preset, NULL, &pl, NULL, NULL, NULL, NULL, NULL);
  return (int)pl;
}
int nss_policy_uses_tuner(const nss_policy *p) {
  int pl = placement_of(p);
  return pl == NS_POLICY_PLACE_DALLY || pl == NS_POLICY_PLACE_DALLY_MANUAL;
}
int nss_policy_wants_ocs(const nss_policy *p) { return placement_of(p) == NS_POLICY_PLACE_OCS_VCLOS; }
int nss_policy_strict(const nss_policy *p) {
  int backfill = 1;
  ns_policy_preset_parts(p->preset, NULL, NULL, NULL, NULL, NULL, NULL, &backfill);
  return !backfill;
}

/* The policy object of the context: the preset, the --order and --seed;
   Dally's leases off (this file's header: no Nw_sens to re-offer by), so no
   decision of the adapter's ever renews or suspends by lease. */
ns_policy *nss_policy_new(const nss_ctx *x) {
  ns_policy *p = ns_policy_new(nss_policy_name(x->policy));
  if (p == NULL)
    return NULL;
  int rc = ns_policy_set_seed(p, x->seed);
  if (rc == NS_OK)
    rc = ns_policy_set_dally_lease(p, 0);
  if (rc == NS_OK && x->order != NULL && x->order != nss_policy_default_order(x->policy))
    rc = ns_policy_set_order(p, x->order->order);
  if (rc < 0) {
    ns_policy_free(p);
    return NULL;
  }
  return p;
}

/* ---- one held job offered to the policy ------------------------------------ */

/* Dally: starvation = time since submission (a held job has never been
   assigned GPUs, or was requeued then: Slurm's submit time is the
   requeue's); the tuner's clock is wall-clock ms. An accept on one
   machine or one rack is recorded by the tuner; we log it too so the state
   file can replay it. A decline says why. */
int nss_policy_place(nss_ctx *x, ns_cluster *c, const ns_job *job, const nss_job *sj,
                     ns_placement *out, char *msg, size_t msglen) {
  ns_queue_clear(x->q);
  int rc = ns_queue_add(x->q, job, sj->id, nss_job_arrival_ms(sj));
  if (rc >= 0)
    rc = ns_queue_set_ideal_ms(x->q, 0, nss_job_ideal_ms(sj));
  if (rc >= 0)
    rc = ns_policy_place(x->pol, c, x->q, 0, x->now_ms, x->d);
  ns_queue_clear(x->q);
  if (rc < 0)
    return rc;
  int st = ns_decision_status(x->d, 0);
  double starvation = x->now_ms > sj->submit_ms ? x->now_ms - sj->submit_ms : 0.0;
  if (st == NS_OK) {
    rc = ns_decision_copy_placement(x->d, 0, out);
    if (rc < 0)
      return rc;
    ns_placement_bind(out, c);
    int t = (int)ns_placement_tier(out);
    if (t < 0)
      return t;
    if (x->tuner != NULL && (t == NS_TIER_MACHINE || t == NS_TIER_RACK))
      return nss_ctx_log(x, (int)t, ns_job_gpus(job), starvation, x->now_ms) < 0 ? NS_ENOMEM
                                                                                : NS_OK;
    return NS_OK;
  }
  if (st == NS_ENOSPACE && x->tuner != NULL) {
    double m = 0, r = 0;
    ns_dally_timers(x->tuner, c, ns_job_gpus(job), x->now_ms, &m, &r);
    snprintf(msg, msglen,
             "dally: no single machine free for it; declined after %.0f s (machine timer %.0f s, "
             "rack timer %.0f s)",
             starvation / 1e3, m / 1e3, r / 1e3);
  }
  return st;
}
