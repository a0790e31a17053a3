/*
 * bindings/slurm/policies.c - the policy presets netsched-slurm accepts, by
 * the simulator's names (netsched-sim --list), each an order and one call of
 * a public policy entry point; the orders; the model profiles.
 *
 * The simulator's preset table is not reachable through the public API for
 * a single decision (ns_sim runs whole workloads), so the presets are
 * restated here as (name -> order, placement function) rows. What a preset
 * does beyond placement cannot be applied through Slurm and is left out,
 * documented in docs/slurm.md:
 *  - srsf-1, srsf-2, ada-srsf: SRSF order + LWF-1 placement; their
 *    communication admission (who may collide on a link) needs control of
 *    each iteration's all-reduce, which a batch scheduler does not have.
 *  - cassini-ff, cassini-lwf-1: CASSINI ranks the base policy's candidate
 *    placements (place_cassini) and the best is applied; its time-shifts
 *    need the same control of iterations and are not applied.
 *  - 2d-las, 2d-gittins: they suspend running jobs, which the adapter
 *    does not do; the waiting jobs it places have no attained service, so
 *    both queues reduce to arrival order, with first-fit placement.
 * Model profiles: AdaDUAL Table III, the simulator's four (sim.h).
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
static double ideal_ms(const nss_job *j) {
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

/* ---- orders --------------------------------------------------------------- */

typedef double (*nss_key_fn)(const nss_job *j);

struct nss_order {
  const char *name;
  nss_key_fn key;
};

static double key_fifo(const nss_job *j) { return j->submit_ms; }
static double key_srsf(const nss_job *j) { return ideal_ms(j) * j->gpus; }
static double key_sjf(const nss_job *j) { return ideal_ms(j); }
/* Dally §4.3.1: a job that has not run has Nw_sens 1 (ns_dally_priority(0,
   I, 0, T)): every held job ties, so arrival order decides. */
static double key_nw_sens(const nss_job *j) {
  double p = ns_dally_priority(0, j->iters > 0 ? j->iters : 1, 0.0, 1.0);
  return isfinite(p) ? p : 1.0;
}

static const nss_order orders[] = {
    {"fifo", key_fifo},
    {"srsf", key_srsf},
    {"sjf", key_sjf},
    {"nw-sens", key_nw_sens},
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

/* A job without an estimate sorts after every job with one. */
double nss_order_key(const nss_order *o, const nss_job *j) {
  double k = o->key(j);
  return isnan(k) ? INFINITY : k;
}

/* ---- placements ---------------------------------------------------------- */

/* The cluster is the cycle's own model: a policy may hide GPUs for a moment
   (ns_cluster_occupy / vacate, as CASSINI's candidates do) but leaves it as
   it found it. */
typedef int (*nss_place_fn)(nss_ctx *x, ns_cluster *c, const ns_job *job,
                            const nss_job *sj, ns_placement *out, char *msg, size_t msglen);

static int place_ff(nss_ctx *x, ns_cluster *c, const ns_job *job, const nss_job *sj,
                    ns_placement *out, char *msg, size_t msglen) {
  (void)x, (void)sj, (void)msg, (void)msglen;
  return ns_place_first_fit(c, job, out);
}
static int place_ls(nss_ctx *x, ns_cluster *c, const ns_job *job, const nss_job *sj,
                    ns_placement *out, char *msg, size_t msglen) {
  (void)x, (void)sj, (void)msg, (void)msglen;
  return ns_place_list_scheduling(c, job, out);
}
/* The simulator seeds RAND with seed * golden + job index; here the job id. */
static int place_rand(nss_ctx *x, ns_cluster *c, const ns_job *job, const nss_job *sj,
                      ns_placement *out, char *msg, size_t msglen) {
  (void)msg, (void)msglen;
  return ns_place_random(c, job, x->seed * 0x9e3779b97f4a7c15ull + sj->id, out);
}
static int place_best_fit(nss_ctx *x, ns_cluster *c, const ns_job *job, const nss_job *sj,
                          ns_placement *out, char *msg, size_t msglen) {
  (void)x, (void)sj, (void)msg, (void)msglen;
  return ns_place_best_fit(c, job, out);
}
/* The simulator's default skew threshold, 200 MB. */
static int place_tiresias(nss_ctx *x, ns_cluster *c, const ns_job *job, const nss_job *sj,
                          ns_placement *out, char *msg, size_t msglen) {
  (void)x, (void)sj, (void)msg, (void)msglen;
  return ns_place_tiresias(c, job, 200000000ull, out);
}
static int place_lwf1(nss_ctx *x, ns_cluster *c, const ns_job *job, const nss_job *sj,
                      ns_placement *out, char *msg, size_t msglen) {
  (void)x, (void)sj, (void)msg, (void)msglen;
  return ns_lwf_place(c, job, 1, out);
}
static int place_titan(nss_ctx *x, ns_cluster *c, const ns_job *job, const nss_job *sj,
                       ns_placement *out, char *msg, size_t msglen) {
  (void)sj, (void)msg, (void)msglen;
  return ns_titan_place(c, job, x->titan, out);
}
static int place_vclos(nss_ctx *x, ns_cluster *c, const ns_job *job, const nss_job *sj,
                       ns_placement *out, char *msg, size_t msglen) {
  (void)sj, (void)msg, (void)msglen;
  return ns_vclos_place(c, job, x->vclos, out);
}
/* Dally Algorithm 1: starvation = time since submission (a held job has
   never been assigned GPUs); the tuner's clock is wall-clock ms. An accept
   on one machine or one rack is recorded by the tuner; we log it too so
   the state file can replay it. */
static int place_dally(nss_ctx *x, ns_cluster *c, const ns_job *job, const nss_job *sj,
                       ns_placement *out, char *msg, size_t msglen) {
  double starvation = x->now_ms - sj->submit_ms;
  if (starvation < 0)
    starvation = 0;
  int accepted = 0;
  int rc = ns_dally_offer(x->tuner, c, job, starvation, x->now_ms, out, &accepted);
  if (rc < 0)
    return rc;
  if (accepted) {
    ns_tier t = ns_placement_tier(out);
    if (t == NS_TIER_MACHINE || t == NS_TIER_RACK)
      return nss_ctx_log(x, (int)t, ns_job_gpus(job), starvation, x->now_ms) < 0 ? NS_ENOMEM
                                                                                  : NS_OK;
    return NS_OK;
  }
  double m = 0, r = 0;
  ns_dally_timers(x->tuner, c, ns_job_gpus(job), x->now_ms, &m, &r);
  snprintf(msg, msglen,
           "dally: no single machine free for it; declined after %.0f s (machine timer %.0f s, "
           "rack timer %.0f s)",
           starvation / 1e3, m / 1e3, r / 1e3);
  return NS_ENOSPACE;
}

/* CASSINI (§4.2) over a base placement, as the simulator builds it: the
   base policy's placement, then the base asked again with the free GPUs of
   the first server of every earlier candidate hidden (ns_cluster_occupy,
   undone before returning), up to 10 candidates or until it has no room.
   Each candidate is described by ns_cassini_candidate_from_cluster (the
   links it would share with committed jobs that have a phase profile, i.e.
   model hints) and ns_cassini_rank picks the best; if every candidate has
   an Affinity loop, the base placement. The time-shifts CASSINI computes
   cannot be applied through Slurm (docs/slurm.md): only the choice is. */
#define NSS_CANDIDATES 10
static int place_cassini(nss_ctx *x, ns_cluster *c, const ns_job *job, const nss_job *sj,
                         nss_place_fn base, ns_placement *out, char *msg, size_t msglen) {
  ns_placement *pl[NSS_CANDIDATES] = {0};
  ns_candidate *cand[NSS_CANDIDATES] = {0};
  int gps = ns_cluster_gpus_per_server(c), *occ = NULL, rc = NS_OK;
  size_t n = 0, nocc = 0;
  occ = malloc((size_t)NSS_CANDIDATES * (size_t)(gps > 0 ? gps : 1) * sizeof *occ);
  if (occ == NULL)
    return NS_ENOMEM;
  while (n < NSS_CANDIDATES) {
    if ((pl[n] = ns_placement_new()) == NULL) {
      rc = NS_ENOMEM;
      break;
    }
    rc = base(x, c, job, sj, pl[n], msg, msglen);
    if (rc < 0)
      break;
    int server = ns_placement_gpu(pl[n], 0) / gps, nf = 0;
    n++;
    for (int g = server * gps; g < (server + 1) * gps; g++)
      if (ns_cluster_gpu_is_free(c, g) == 1)
        occ[nocc + (size_t)nf++] = g;
    if (nf == 0 || ns_cluster_occupy(c, occ + nocc, (size_t)nf) < 0)
      break;
    nocc += (size_t)nf;
  }
  if (nocc > 0)
    ns_cluster_vacate(c, occ, nocc);
  free(occ);
  size_t best = 0;
  if (n > 0) {
    rc = NS_OK;
    for (size_t i = 0; i < n && rc == NS_OK; i++)
      if ((cand[i] = ns_candidate_new()) == NULL ||
          ns_cassini_candidate_from_cluster(cand[i], c, job, pl[i]) < 0)
        rc = NS_ENOMEM;
    if (rc == NS_OK) {
      int r = ns_cassini_rank(cand, n, x->cassini, &best, NULL);
      if (r < 0)
        best = 0; /* every candidate loops (or ranking failed): the base placement */
      x->last_candidates = (int)n, x->last_best = (int)best;
      ns_placement_clear(out);
      ns_placement_bind(out, c);
      for (size_t q = 0; q < ns_placement_gpu_count(pl[best]); q++)
        ns_placement_add_gpu(out, ns_placement_gpu(pl[best], q));
    } else {
      snprintf(msg, msglen, "cassini: cannot describe candidates: %s", ns_last_error());
    }
  }
  for (size_t i = 0; i < NSS_CANDIDATES; i++) {
    ns_placement_free(pl[i]);
    ns_candidate_free(cand[i]);
  }
  return rc;
}

static int place_cassini_ff(nss_ctx *x, ns_cluster *c, const ns_job *job, const nss_job *sj,
                            ns_placement *out, char *msg, size_t msglen) {
  return place_cassini(x, c, job, sj, place_ff, out, msg, msglen);
}
static int place_cassini_lwf1(nss_ctx *x, ns_cluster *c, const ns_job *job, const nss_job *sj,
                              ns_placement *out, char *msg, size_t msglen) {
  return place_cassini(x, c, job, sj, place_lwf1, out, msg, msglen);
}

struct nss_policy {
  const char *name, *desc;
  const char *order;
  nss_place_fn place;
  int tuner; /* 0: none, 1: Dally auto timers, 2: Dally fixed timers */
  int ocs;
  int strict; /* 1: no backfilling - once a job waits, every later one waits */
};

static const nss_policy policies[] = {
    {"ff", "FIFO, first-fit", "fifo", place_ff, 0, 0, 0},
    {"ls", "FIFO, list scheduling (least workload)", "fifo", place_ls, 0, 0, 0},
    {"rand", "FIFO, random GPUs (seed x golden ratio + job id)", "fifo", place_rand, 0, 0, 0},
    {"best-fit", "FIFO, best-fit consolidation", "fifo", place_best_fit, 0, 0, 0},
    {"tiresias", "FIFO, Tiresias-style skew consolidation (200 MB)", "fifo", place_tiresias, 0, 0, 0},
    {"lwf-1", "FIFO, LWF-kappa with kappa = 1", "fifo", place_lwf1, 0, 0, 0},
    {"srsf-ff", "SRSF order, first-fit", "srsf", place_ff, 0, 0, 0},
    {"sjf-ff", "SJF order, first-fit", "sjf", place_ff, 0, 0, 0},
    {"srsf-1", "SRSF order, LWF-1 (admission not enforceable by Slurm)", "srsf", place_lwf1, 0, 0, 0},
    {"srsf-2", "SRSF order, LWF-1 (admission not enforceable by Slurm)", "srsf", place_lwf1, 0, 0, 0},
    {"ada-srsf", "SRSF order, LWF-1 (AdaDUAL admission not enforceable by Slurm)", "srsf",
     place_lwf1, 0, 0, 0},
    {"titan", "FIFO, Titan non-idle-machine placement", "fifo", place_titan, 0, 0, 0},
    {"vclos", "FIFO, vClos isolated virtual Clos", "fifo", place_vclos, 0, 0, 0},
    {"ocs-vclos", "FIFO, OCS-vClos (OCS layer enabled)", "fifo", place_vclos, 0, 1, 0},
    {"dally", "Nw_sens order, Dally delay scheduling, auto-tuned timers", "nw-sens", place_dally, 1,
     0, 0},
    {"dally-manual", "Nw_sens order, Dally delay scheduling, fixed timers", "nw-sens", place_dally,
     2, 0, 0},
    {"cassini-ff", "FIFO, first-fit + CASSINI ranking (time-shifts not enforceable by Slurm)",
     "fifo", place_cassini_ff, 0, 0, 0},
    {"cassini-lwf-1", "FIFO, LWF-1 + CASSINI ranking (time-shifts not enforceable by Slurm)",
     "fifo", place_cassini_lwf1, 0, 0, 0},
    {"fifo", "strict FIFO, first-fit, no backfilling (head-of-line blocking)", "fifo", place_ff, 0,
     0, 1},
    {"2d-las", "FIFO (no attained service yet), first-fit (2D-LAS preemption not enforceable by "
     "Slurm)", "fifo", place_ff, 0, 0, 0},
    {"2d-gittins", "FIFO (no attained service yet), first-fit (2D-Gittins preemption not "
     "enforceable by Slurm)", "fifo", place_ff, 0, 0, 0},
};
#define NPOLICIES ((int)(sizeof policies / sizeof policies[0]))

const nss_policy *nss_policy_find(const char *name) {
  for (int i = 0; i < NPOLICIES; i++)
    if (strcmp(policies[i].name, name) == 0)
      return &policies[i];
  return NULL;
}
int nss_policy_count(void) { return NPOLICIES; }
const nss_policy *nss_policy_at(int i) { return i >= 0 && i < NPOLICIES ? &policies[i] : NULL; }
const char *nss_policy_name(const nss_policy *p) { return p->name; }
const char *nss_policy_desc(const nss_policy *p) { return p->desc; }
const nss_order *nss_policy_default_order(const nss_policy *p) { return nss_order_find(p->order); }
int nss_policy_uses_tuner(const nss_policy *p) { return p->tuner != 0; }
int nss_policy_wants_ocs(const nss_policy *p) { return p->ocs; }
int nss_policy_strict(const nss_policy *p) { return p->strict; }

int nss_policy_place(nss_ctx *x, ns_cluster *c, const ns_job *job, const nss_job *sj,
                     ns_placement *out, char *msg, size_t msglen) {
  return x->policy->place(x, c, job, sj, out, msg, msglen);
}
