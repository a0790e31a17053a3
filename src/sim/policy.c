/*
 * src/sim/policy.c - the run's policy: the policy object of the public API
 * (netsched/policy.h), asked exactly as a cluster manager asks it, plus
 * what only a simulator can enforce (per-all-reduce admission), the
 * Nw_sens it measures for Dally's preemption readings, and what it reports back (CASSINI's iterations,
 * applied shifts and all-reduce starts, for the drift re-adjustment the
 * policy decides).
 *
 * The queue order, the placement dispatch, CASSINI's candidate search,
 * ranking and time-shifts and Dally's tuner live behind ns_policy
 * (src/policy/policy.c, moved from here in issue 28 with their decisions
 * unchanged); this file builds the one-job queue view of a simulator job
 * (id = its index, arrival, GPUs, attained service, ideal run, Nw_sens,
 * waiting since; the entry ns_queue_add(_running) and the setters make,
 * written directly with nsi_queue_put of core/internal.h, since the
 * preemptive orders queue every waiting and running job at every
 * decision), asks
 * ns_policy_order_key / ns_policy_place, and applies the decision: the
 * placement, the time-shifts to the new job and the running ones, Dally's
 * retry time as a wake-up. LWF-kappa, list scheduling and a custom callback
 * read per-GPU remaining work, which the simulator sets on its cluster
 * before asking (refresh_lwf_workload), as any caller would.
 *
 * Dally (§4.3.1; readings where the paper is silent, also in sim.h DALLY):
 *  - Nw_sens = compute x iterations done / ms run, from the network model's
 *    measured() (nsi_sim_nw_sens); kept while the job waits. A job that
 *    never ran: the paper gives no initial value (0 / 0); we take the
 *    library's reading, ns_dally_priority's 1.0 ("no slowdown endured",
 *    src/dally/priority.c), so the simulator and a cluster manager calling
 *    the library rank it alike: after every job that measured a slowdown,
 *    ties by arrival. Consequence: a measured Nw_sens is at most 1, so a
 *    job that never ran never preempts, and only a suspended job waits
 *    with a measured value: Dally's preemption then never triggers (the
 *    "dally" preset runs as its no-preemption variant; 0 preemptions on
 *    the default workload). ns_sim_opts_set_dally_new_jobs(o,
 *    NS_SIM_DALLY_NEW_PROFILE) selects the earlier reading, which keeps the
 *    paper's preemption alive: a profile estimate of the job's lone
 *    iteration at its most consolidated tier (Table 1's per-model,
 *    per-tier overheads are known before a job runs, §3).
 *  - Preemption: the paper gives the priority (lower Nw_sens = more
 *    network-induced slowdown = served first, "prioritizes providing
 *    better-consolidated placements to jobs suffering from sub-optimal
 *    placements", §5.2.3) but not the trigger. Two readings:
 *  - Lease reading (the default; ns_sim_opts_set_dally_lease). Decided by
 *    the policy object since issue 28 (LEASES in netsched/policy.h,
 *    src/policy/policy.c decide_nw_sens, the leases in src/policy/lease.c):
 *    the simulator asks ns_policy_decide with every waiting and running
 *    job, the expired ones with their Nw_sens measured now, and the engine
 *    applies the suspends and starts and wakes at ns_decision_next_ms. The
 *    rule, unchanged:
 *    Dally's simulator is built on Themis (§4.2.1), whose arbiter grants
 *    GPUs for a lease and re-offers them when it expires; "resource offers
 *    are made in increasing order of Nw_sens" (§4.3.1). A job holds its GPUs
 *    for the lease from its start or renewal (default 20 min: the Themis
 *    and Dally texts at hand give no value; settable). When leases expire,
 *    the waiting jobs and the expired ones are offered, in increasing
 *    Nw_sens (an expired job's measured now, ties by arrival, values equal
 *    to 1e-9 tie), the free GPUs and the expired jobs' GPUs: an expired job
 *    whose GPUs no one before it took keeps them (lease renewed; no
 *    suspension, no restore); a waiting job is offered the free GPUs, then
 *    those of the expired jobs after it in the order, taken one by one from
 *    the latest (highest Nw_sens) until Algorithm 1 accepts (else they are
 *    put back); an expired job whose GPUs were taken is suspended and
 *    offered what is still free (Algorithm 1 with its starvation counted
 *    from its lease's start; accepting moves it: suspend + resume, restore
 *    overhead). Bounded: 16 jobs taken per waiter,
 *    64 such offers per re-offer. Between lease expiries
 *    (arrivals, finishes, timer wake-ups) only the free GPUs are offered.
 *    A job that never ran is ranked at 1.0 (above), not first (0): on the
 *    two Philly slices of bench/REPRODUCE.md, ranking it first (every new
 *    job takes GPUs at the next expiry) gave Dally 4.1-7.8x Tiresias's
 *    communication overhead and 2.0-2.7x its makespan.
 *  - Pass-by-pass reading (lease 0, preempt_dally). Decided by the policy
 *    object since issue 28 (ns_policy_preempt, src/policy/policy.c): after
 *    its walk, while jobs wait, the simulator measures the running jobs'
 *    Nw_sens and asks; it applies one preemption at a time and asks again
 *    at once (no scheduling pass in between, as before: folding this into
 *    ns_policy_decide, a plain pass then preemptions, would measure before
 *    the walk and change decisions). The rule, unchanged: after each
 *    scheduling pass, a waiting job may take the GPUs of running jobs whose
 *    Nw_sens is above its own by more than 5 % (
 *    hysteresis, else two jobs of nearly equal Nw_sens could swap at every
 *    event), highest Nw_sens first (the least network-sensitive, as
 *    Tiresias preempts the highest 2DAS first, §3.4), only if Algorithm 1
 *    accepts the GPUs so freed (a waiter still within its machine timer
 *    declines a scattered offer: then nothing is suspended). Bounded: at
 *    most 16 victims per waiter and 8 offers per event time; a job started
 *    at this time is no victim.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_internal.h"

static const char *pname(const ns_sim *s) { return ns_sim_opts_policy_name(&s->o); }

static int unavailable(const ns_sim *s, const char *what) {
  return nsi_fail(NS_EUNSUPPORTED, "ns_sim_run: policy '%s' unavailable: %s (%s)", pname(s), what,
                  ns_last_error());
}

/* A policy constructor returned NULL: out of memory (the constructors say
   so in their message) or the module is not in this build. */
static int not_made(const ns_sim *s, const char *what) {
  if (strstr(ns_last_error(), "out of memory") != NULL)
    return nsi_fail(NS_ENOMEM, "ns_sim_run: %s: %s", what, ns_last_error());
  return unavailable(s, what);
}

static void set_hooks(ns_sim *s);

/* Dally's preemption goes with its priority (order NW_SENS); not with
   CASSINI (its shifts are decided at placement) nor GPU sharing (a
   victim's GPUs need not be what the waiter lacks). */
static int dally_preempts(const ns_sim_opts *o) {
  return nsi_order(o) == NS_SIM_ORDER_NW_SENS && !nsi_cassini(o) && !o->gpu_sharing &&
         !o->dally_no_preempt;
}

/* 2D-Gittins's distribution: ns_sim_opts_set_gittins_samples's, else the
   workload's own jobs, GPUs x lone consolidated run time (GPU-ms). */
static int gittins_samples(ns_sim *s) {
  if (s->o.git_set) /* in the parts the policy was cloned from */
    return NS_OK;
  double *v = malloc((s->njobs ? s->njobs : 1) * sizeof *v);
  if (v == NULL)
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory for the Gittins distribution");
  for (size_t k = 0; k < s->njobs; k++) {
    const nsi_simjob *j = &s->jobs[k];
    v[k] = j->gpus * nsi_sim_ideal_iter_ms(&s->o, j) * (double)j->iterations;
  }
  int rc = ns_policy_set_gittins_samples(s->policy, v, s->njobs);
  free(v);
  return rc;
}

/* The policy object for the run's options: a fresh copy of the parts the
   options hold (o->parts), then the options the simulator keeps itself. */
static int make_policy(ns_sim *s) {
  const ns_sim_opts *o = &s->o;
  ns_policy *p = ns_policy_clone(o->parts); /* the parts: order, placement, ... */
  if (p == NULL)
    return not_made(s, "ns_policy_clone");
  s->policy = p;
  NSI_TRY(ns_policy_set_seed(p, o->seed));
  NSI_TRY(ns_policy_set_skew_bytes(p, o->skew_bytes));
  NSI_TRY(ns_policy_set_dally_timers(p, o->dally_history_ms, o->dally_machine_ms,
                                     o->dally_rack_ms));
  /* Dally's lease reading is the policy's (its re-offers, LEASES in
     netsched/policy.h); lease 0 is the pass-by-pass reading, the preempt
     hook's (below), and no preemption no leases */
  NSI_TRY(ns_policy_set_dally_lease(p, nsi_sim_leasing(o) ? o->dally_lease_ms : 0.0));
  if (o->place_fn != NULL)
    NSI_TRY(ns_policy_set_place_fn(p, o->place_fn, o->place_user));
  if (nsi_order(o) == NS_SIM_ORDER_2D_GITTINS)
    NSI_TRY(gittins_samples(s));
  if ((s->pq = ns_queue_new()) == NULL || (s->pd = ns_decision_new()) == NULL ||
      (nsi_cassini(o) && (s->rd = ns_decision_new()) == NULL))
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
  /* room for the one job it is asked about (add_view) */
  if (nsi_queue_reserve(s->pq, 1) < 0)
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
  return NS_OK;
}

int nsi_sim_policy_prepare(ns_sim *s) {
  const ns_sim_opts *o = &s->o;
  s->cassini_readjusts = 0;
  set_hooks(s);
  if (nsi_order(o) == NS_SIM_ORDER_NW_SENS && !isfinite(ns_dally_priority(1, 2, 1.0, 1.0)))
    return unavailable(s, "ns_dally_priority");
  if (nsi_cassini(o) &&
      (nsi_placement(o) == NS_SIM_PLACE_DALLY || nsi_placement(o) == NS_SIM_PLACE_DALLY_MANUAL))
    return nsi_fail(NS_EINVAL, "ns_sim_run: CASSINI cannot augment Dally (every offer records a "
                               "wait in the tuner); choose another base placement");
  int rc = make_policy(s);
  if (rc < 0)
    return nsi_fail(rc, "ns_sim_run: cannot make policy '%s': %s", pname(s), ns_last_error());
  if (nsi_placement(o) == NS_SIM_PLACE_OCS_VCLOS) {
    rc = ns_cluster_enable_ocs(s->cluster, o->spines > 0 ? o->spines : 1);
    if (rc < 0)
      return nsi_fail(rc, "ns_sim_run: OCS-vClos needs an OCS layer: %s", ns_last_error());
  }
  /* the state it builds at its first decision (tuner, Titan / vClos /
     CASSINI options), built now so that a missing part fails the run here */
  if ((nsi_placement(o) == NS_SIM_PLACE_DALLY || nsi_placement(o) == NS_SIM_PLACE_DALLY_MANUAL) &&
      ns_policy_tuner(s->policy) == NULL)
    return not_made(s, "ns_delay_tuner_new");
  if (nsi_cassini(o) && ns_policy_cassini_opts(s->policy) == NULL)
    return not_made(s, "ns_cassini_opts_new");
  return NS_OK;
}

void nsi_sim_policy_release(ns_sim *s) {
  if (s->policy != NULL) /* the run's statistic outlives its policy */
    s->cassini_readjusts = ns_policy_readjust_count(s->policy);
  ns_policy_free(s->policy);
  ns_queue_free(s->pq);
  ns_decision_free(s->pd);
  ns_decision_free(s->rd);
  s->policy = NULL, s->pq = NULL, s->pd = NULL, s->rd = NULL;
  free(s->pids);
  s->pids = NULL, s->cap_pids = 0;
}

/* ---- the one-job queue view the policy is asked with -------------------------- */

static double ideal_ms(const ns_sim *s, const nsi_simjob *j) {
  return nsi_sim_ideal_iter_ms(&s->o, j) * (double)j->iterations;
}

/* s->pq = job ji as the caller knows it: id = its index, arrival, ideal run
   (SRSF / SJF keys), kept Nw_sens (Dally's key), waiting since (Dally's
   starvation: arrival or the latest suspension). */
/* What the queue view carries besides id, arrival and attained service: the
   same for every job of a decision (read once per view, not per job). */
typedef struct nsi_viewkind {
  int ideal;   /* SRSF / SJF: ideal run time */
  int nw_sens; /* the NW_SENS key; a custom placement may read it */
  int since;   /* Dally's placements (and a custom one): waiting since */
} nsi_viewkind;

static nsi_viewkind view_kind(const ns_sim *s) {
  ns_sim_order o = nsi_order(&s->o);
  ns_sim_placement pl = nsi_placement(&s->o);
  int custom = pl == NS_SIM_PLACE_CUSTOM;
  nsi_viewkind k = {o == NS_SIM_ORDER_SRSF || o == NS_SIM_ORDER_SJF,
                    custom || o == NS_SIM_ORDER_NW_SENS,
                    custom || pl == NS_SIM_PLACE_DALLY || pl == NS_SIM_PLACE_DALLY_MANUAL};
  return k;
}

/* Appends job ji to s->pq, room made by the caller (nsi_queue_reserve):
   the entry ns_queue_add(_running) and the setters would make, written
   directly (nsi_queue_put, core/internal.h: the preemptive orders queue
   every job at every decision). A simulator job has a job handle made with
   its GPUs (engine.c) and a finite arrival. */
static inline void put_view(ns_sim *s, const nsi_simjob *j, int ji, int running) {
  /* attained service, GPU-ms: what the preemptive orders rank by (a value
     ns_queue_set_attained_ms would refuse leaves it 0, as that call would) */
  double att = j->att_ms * j->gpus;
  nsi_queue_put(s->pq, j->job, j->gpus, (uint64_t)ji, j->arrival_ms, running,
                att >= 0 && att <= NSI_REAL_MAX ? att : 0.0);
}

static void add_view(ns_sim *s, nsi_viewkind kind, int ji, int running) {
  const nsi_simjob *j = &s->jobs[ji];
  size_t i = s->pq->n;
  put_view(s, j, ji, running);
  if (kind.ideal)
    ns_queue_set_ideal_ms(s->pq, i, ideal_ms(s, j));
  /* Nw_sens and waiting since are skipped where nothing reads them: the
     preemptive orders build this view for every job at every decision. */
  if (kind.nw_sens && isfinite(j->nw_sens))
    ns_queue_set_nw_sens(s->pq, i, j->nw_sens);
  if (kind.since)
    ns_queue_set_waiting_since(s->pq, i, j->wait_from);
}

static void view(ns_sim *s, int ji) {
  ns_queue_clear(s->pq);
  add_view(s, view_kind(s), ji, 0); /* room for one job was made up front */
}

/* ---- order: the queue key (fixed while a job waits), the policy's ------------ */

static double order_key(ns_sim *s, const nsi_simjob *j) {
  double key = 0;
  view(s, (int)(j - s->jobs));
  ns_policy_order_key(s->policy, s->pq, 0, &key);
  return key;
}

/* LWF-kappa's workload of a GPU is the work REMAINING on it (Algorithm 1).
   For the placements that read per-GPU workloads (LWF-kappa, list
   scheduling, a custom callback), once per event time each GPU's workload is set to the sum over its
   running jobs of compute ms x iterations left x GPUs (the core's
   per-job LWF workload, nsi_job_lwf_workload_ms, with today's progress). */
static int refresh_lwf_workload(ns_sim *s) {
  if (s->lwf_refreshed == s->now)
    return NS_OK;
  s->lwf_refreshed = s->now;
  int G = ns_cluster_gpu_count(s->cluster);
  for (int g = 0; g < G; g++)
    NSI_TRY(ns_cluster_set_gpu_workload_ms(s->cluster, g, 0.0));
  for (size_t r = 0; r < s->nrunning; r++) {
    nsi_simjob *j = &s->jobs[s->running[r]];
    double left = s->net_model->remaining(s, j);
    double w = j->compute_ms * (left > 0 ? left : 0.0) * j->gpus;
    for (size_t i = 0; i < j->ngpu; i++)
      NSI_TRY(ns_cluster_set_gpu_workload_ms(
          s->cluster, j->gpu[i], ns_cluster_gpu_workload_ms(s->cluster, j->gpu[i]) + w));
  }
  return NS_OK;
}

static int reads_workload(const ns_sim_opts *o) {
  ns_sim_placement pl = nsi_placement(o);
  return pl == NS_SIM_PLACE_LWF || pl == NS_SIM_PLACE_LIST_SCHEDULING || pl == NS_SIM_PLACE_CUSTOM;
}

/* ---- place: the policy object asked about one job ----------------------------- */

/* Asks the policy about job ji now; *status = its decision for the job
   (NS_OK: s->pd's start 0; NS_ENOSPACE: waits; NS_EINVAL: never fits). A
   failure of the policy is returned with the simulator's message. */
static int ask(ns_sim *s, int ji, int *status) {
  if (reads_workload(&s->o))
    NSI_TRY(refresh_lwf_workload(s)); /* the cluster it reads: remaining work per GPU */
  view(s, ji);
  int rc = ns_policy_place(s->policy, s->cluster, s->pq, 0, s->now, s->pd);
  if (rc == NS_EUNSUPPORTED)
    return unavailable(s, nsi_cassini(&s->o) ? "CASSINI" : "placement");
  if (rc < 0 && strncmp(ns_last_error(), "CASSINI failed", 14) == 0)
    return nsi_fail(rc, "ns_sim_run: %s", ns_last_error());
  if (rc < 0)
    return nsi_fail(rc, "ns_sim_run: policy '%s' failed on job '%s': %s", pname(s),
                    s->jobs[ji].name, ns_last_error());
  *status = ns_decision_status(s->pd, 0);
  return NS_OK;
}

/* Records the time-shifts decided with a placement or a re-adjustment (Eq. 5
   t_j) for job ji and the running jobs on its shared links; the network
   model applies them (fluid: each pauses once; phase: their next compute
   phases are aligned). shift(x, job, &ms): the decision's start's or its
   re-adjustment's. */
typedef int (*nsi_shift_of)(const void *x, const ns_job *job, double *ms);
typedef struct nsi_start_ref {
  const ns_decision *d;
  size_t k;
} nsi_start_ref;
static int shift_of_decision(const void *x, const ns_job *job, double *ms) {
  const nsi_start_ref *r = x;
  return ns_decision_shift_ms(r->d, r->k, job, ms);
}
static int apply_shifts(ns_sim *s, int ji, nsi_shift_of shift, const void *x) {
  double sh = 0;
  int rc = shift(x, s->jobs[ji].job, &sh);
  if (rc < 0)
    return rc;
  s->jobs[ji].shift_ms = sh, s->jobs[ji].shift_pending = 1;
  s->net_dirty = 1;
  for (size_t r = 0; r < s->nrunning; r++) {
    nsi_simjob *k = &s->jobs[s->running[r]];
    if (shift(x, k->job, &sh) == NS_OK)
      k->shift_ms = sh, k->shift_pending = 1;
  }
  return NS_OK;
}

/* Start k of s->pd for job ji: s->pl = its placement, its time-shifts
   recorded for the network model. */
static int take(ns_sim *s, size_t k, int ji) {
  NSI_TRY(nsi_placement_copy(s->pl, ns_decision_placement(s->pd, k)));
  if (ns_decision_has_shifts(s->pd, k)) {
    nsi_start_ref r = {s->pd, k};
    int rc = apply_shifts(s, ji, shift_of_decision, &r);
    if (rc < 0)
      return nsi_fail(rc, "ns_sim_run: CASSINI failed on job '%s': %s", s->jobs[ji].name,
                      ns_last_error());
  }
  return NS_OK;
}

int nsi_sim_place(ns_sim *s, int ji, int *placed) {
  *placed = 0;
  int st = NS_OK;
  NSI_TRY(ask(s, ji, &st));
  if (st == NS_ENOSPACE) {
    /* Dally: a declined job must be offered again when one of its timers
       expires, even if nothing else happens then (one pending wake per job
       and timer value) */
    nsi_simjob *j = &s->jobs[ji];
    double next = ns_decision_retry_ms(s->pd, 0);
    if (isfinite(next) && next != j->wake_ms) {
      j->wake_ms = next;
      NSI_TRY(nsi_sim_heap_push(&s->heap, next, -1, 0));
    }
    return NS_OK;
  }
  if (st == NS_EINVAL) {
    *placed = -1; /* the policy can never host this job here (e.g. no vClos shape) */
    return NS_OK;
  }
  NSI_TRY(take(s, 0, ji));
  *placed = 1;
  return NS_OK;
}

/* ---- preemptive orders: one decision over every waiting and running job ------ */

int nsi_sim_leasing(const ns_sim_opts *o) { return dally_preempts(o) && o->dally_lease_ms > 0; }

/* Dally's lease reading: a running job whose lease ended is re-offered by
   its Nw_sens measured now (only those: measuring brings the network
   model's progress up to now). */
static void lease_nw_sens(ns_sim *s, size_t i, int ji) {
  double end = INFINITY;
  if (ns_policy_lease_ms(s->policy, (uint64_t)ji, NULL, &end) == NS_OK && end <= s->now)
    ns_queue_set_nw_sens(s->pq, i, nsi_sim_nw_sens(s, &s->jobs[ji]));
}

/* s->pq = the waiting jobs (s->queue) and the running ones (s->running),
   s->pids their job indices; then the policy's decision into s->pd. */
int nsi_sim_decide(ns_sim *s) {
  if (reads_workload(&s->o))
    NSI_TRY(refresh_lwf_workload(s)); /* the cluster it reads: remaining work per GPU */
  size_t n = s->nqueue + s->nrunning, k = 0;
  if (nsi_reserve(&s->pids, &s->cap_pids, n ? n : 1, sizeof *s->pids) < 0 ||
      nsi_queue_reserve(s->pq, n) < 0)
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
  ns_queue_clear(s->pq);
  nsi_viewkind kind = view_kind(s);
  int leasing = nsi_sim_leasing(&s->o);
  if (!kind.ideal && !kind.nw_sens && !kind.since && !leasing) {
    /* the preemptive orders: id, arrival, GPUs, attained service only */
    for (size_t i = 0; i < s->nqueue; i++, k++) {
      int ji = s->pids[k] = s->queue[i];
      put_view(s, &s->jobs[ji], ji, 0);
    }
    for (size_t r = 0; r < s->nrunning; r++, k++) {
      int ji = s->pids[k] = s->running[r];
      put_view(s, &s->jobs[ji], ji, 1);
    }
  } else {
    for (size_t i = 0; i < s->nqueue; i++, k++)
      add_view(s, kind, s->pids[k] = s->queue[i], 0);
    for (size_t r = 0; r < s->nrunning; r++, k++) {
      add_view(s, kind, s->pids[k] = s->running[r], 1);
      if (leasing)
        lease_nw_sens(s, k, s->running[r]);
    }
  }
  int rc = ns_policy_decide(s->policy, s->cluster, s->pq, s->now, s->pd);
  if (rc == NS_EUNSUPPORTED)
    return unavailable(s, nsi_cassini(&s->o) ? "CASSINI" : "placement");
  if (rc < 0)
    return nsi_fail(rc, "ns_sim_run: policy '%s' failed: %s", pname(s), ns_last_error());
  /* Dally's retry times of the jobs it declined (as nsi_sim_place): waiting
     ones, and at a lease re-offer the suspended ones offered what is free
     (finite only with a delay tuner, netsched/policy.h: none to read
     without one) */
  size_t nretry = ns_policy_tuner(s->policy) != NULL ? n : 0;
  for (size_t i = 0; i < nretry; i++) {
    nsi_simjob *j = &s->jobs[s->pids[i]];
    double next = ns_decision_retry_ms(s->pd, i);
    if (isfinite(next) && next != j->wake_ms) {
      j->wake_ms = next;
      NSI_TRY(nsi_sim_heap_push(&s->heap, next, -1, 0));
    }
  }
  return NS_OK;
}

int nsi_sim_take_start(ns_sim *s, size_t k, int *ji) {
  *ji = s->pids[ns_decision_start_job(s->pd, k)];
  return take(s, k, *ji);
}

/* ---- Dally: Nw_sens and network-sensitive preemption ------------------------ */

/* A job that never ran (see the file comment): 1.0, the library's reading
   (ns_dally_priority: no slowdown endured yet), by default. With
   NS_SIM_DALLY_NEW_PROFILE: its lone iteration on the most consolidated
   tier it fits - one server (intra-server fabric), one rack (the NIC ring),
   else across racks (the ring at min(NIC, leaf-spine link)) - against its
   compute alone (the reading before the network-model issue). */
static double nw_sens_initial(const ns_sim *s, const nsi_simjob *j) {
  const ns_sim_opts *o = &s->o;
  if (o->dally_new == NS_SIM_DALLY_NEW_ONE)
    return 1.0;
  double c = j->compute_ms, t;
  if (j->gpus <= o->gpus_per_server) {
    t = nsi_sim_comm_alone_ms(s, j, 0);
  } else {
    t = nsi_sim_comm_alone_ms(s, j, 1); /* at the NIC rate */
    double nic = nsi_sim_nic_gbps(o);
    if (j->gpus > o->gpus_per_server * o->servers_per_leaf && o->spines > 0 && o->link_gbps < nic)
      t *= nic / o->link_gbps;
  }
  return c > 0 ? c / (c + t) : 1.0;
}

double nsi_sim_nw_sens(ns_sim *s, nsi_simjob *j) {
  if (j->state != NSI_RUNNING) {
    if (!isfinite(j->nw_sens))
      j->nw_sens = nw_sens_initial(s, j);
    return j->nw_sens;
  }
  double done = 0, run = 0;
  s->net_model->measured(s, j, &done, &run);
  if (!(run > 0) || !(j->compute_ms > 0))
    return j->nw_sens; /* nothing measured yet (restoring): the kept value */
  done = done > 0 ? done : 0.0;
  /* (done / I) / (run / (c I)) = c done / run: ns_dally_priority with the
     work done as one unit (its iters_done is whole; the fraction of the
     current iteration matters early in a run) */
  double p = ns_dally_priority(done > 0 ? 1 : 0, 1, run, j->compute_ms * (done > 0 ? done : 1.0));
  return isfinite(p) ? p : j->nw_sens;
}

/* Dally's preempt hook, pass-by-pass reading (the file comment): the
   policy object decides (ns_policy_preempt) over the waiting jobs and the
   running ones not started at this time, each with its Nw_sens measured
   now; *waiter = the job it starts, s->pd holds its suspends and placement,
   or -1. */
static int preempt_dally(ns_sim *s, int *waiter) {
  *waiter = -1;
  if (s->nqueue == 0 || s->nrunning == 0)
    return NS_OK;
  if (reads_workload(&s->o))
    NSI_TRY(refresh_lwf_workload(s)); /* the cluster it reads: remaining work per GPU */
  size_t n = s->nqueue + s->nrunning, k = 0;
  if (nsi_reserve(&s->pids, &s->cap_pids, n, sizeof *s->pids) < 0 ||
      nsi_queue_reserve(s->pq, n) < 0)
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
  ns_queue_clear(s->pq);
  nsi_viewkind kind = view_kind(s);
  for (size_t i = 0; i < s->nqueue; i++, k++)
    add_view(s, kind, s->pids[k] = s->queue[i], 0);
  for (size_t r = 0; r < s->nrunning; r++) {
    nsi_simjob *j = &s->jobs[s->running[r]];
    if (j->last_start == s->now)
      continue; /* placed at this very time: no victim */
    double nw = nsi_sim_nw_sens(s, j);
    if (!isfinite(nw))
      continue;
    add_view(s, kind, s->pids[k] = s->running[r], 1);
    ns_queue_set_nw_sens(s->pq, k++, nw);
  }
  int rc = ns_policy_preempt(s->policy, s->cluster, s->pq, s->now, s->pd);
  if (rc < 0)
    return nsi_fail(rc, "ns_sim_run: policy '%s' failed during Dally's preemption: %s", pname(s),
                    ns_last_error());
  if (ns_decision_start_count(s->pd) > 0)
    *waiter = s->pids[ns_decision_start_job(s->pd, 0)];
  return NS_OK;
}

/* ---- admit_comm: may a job in a group start its all-reduce now? ------------
   Called by the phase model when the job's compute phase ends while it
   shares a link with other jobs (a lone job never waits). The jobs that can
   communicate on its links at that instant are its group's members. */

static int admit_all(ns_sim *s, nsi_simjob *j, int *start, int *hold) {
  (void)s, (void)j, (void)hold;
  *start = 1;
  return NS_OK;
}

/* An admitted multi-server all-reduce: in its start-up latency or transfer. */
static int in_flight(const nsi_simjob *k) {
  return (k->phase == NSI_PH_COMM || k->phase == NSI_PH_LAT) && k->nsrv >= 2;
}

/* SRSF(n) (LWF-kappa paper §IV): per distinct link of the job, the other
   tasks communicating on it; the policy admits the task only while each
   count is below n (ns_policy_admit). The counts come from one pass over
   the group: each other member in flight is intersected with the job's
   links by a merge of the two sorted lists (links are sorted, repeats
   adjacent). The same counts as testing every (link, member) pair with a
   binary search, which was ~2/3 of an exact srsf-1 run on the busy Philly
   window (admission is decided at every compute end and, for each waiting
   all-reduce, at every all-reduce end of its group). A refusal holds on
   the link with the most in flight (its count is >= n) until one of them
   ends: *hold, so that the phase model does not ask again before. */
static int admit_srsf(ns_sim *s, nsi_simjob *j, int *start, int *hold) {
  const nsi_group *g = &s->grp[j->group];
  int buf[64] = {0}, *others = j->nlinks <= 64 ? buf : calloc(j->nlinks, sizeof *others);
  if (others == NULL)
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
  size_t n = 0;
  for (size_t i = 0; i < j->nlinks; i++)
    n += i == 0 || j->links[i] != j->links[i - 1];
  for (size_t m = 0; m < g->n && n > 0; m++) {
    const nsi_simjob *k = &s->jobs[g->members[m]];
    if (k == j || !in_flight(k))
      continue;
    size_t a = 0, b = 0, d = 0; /* j->links[a] is distinct link d of j */
    while (a < j->nlinks && b < k->nlinks) {
      int la = j->links[a], lb = k->links[b];
      if (lb < la) {
        b++;
        continue;
      }
      if (lb == la)
        others[d]++;
      while (++a < j->nlinks && j->links[a] == la) /* the next distinct link of j */
        ;
      d++;
    }
  }
  int rc = ns_policy_admit(s->policy, j->model_bytes, others, n, NULL, NULL, 0, 1.0, 0.0, start);
  if (rc >= 0 && !*start) { /* refused: the link with the most in flight has >= n */
    size_t d = 0, best = 0;
    for (size_t i = 0; i < j->nlinks; i++)
      if (i == 0 || j->links[i] != j->links[i - 1]) {
        if (d == 0 || others[d] > others[best])
          best = d, *hold = j->links[i];
        d++;
      }
  }
  if (others != buf)
    free(others);
  return rc < 0 ? nsi_fail(rc, "ns_sim_run: %s", ns_last_error()) : NS_OK;
}

/* AdaDUAL Algorithm 2 at the start of every all-reduce: per server of the
   job, the all-reduces in flight there and, where one, its remaining bytes.
   "Wait" queues the all-reduce; it is decided again whenever an all-reduce
   of its group ends. The decision uses the contention the phase model
   charges: with Eq. 5's b (any b: only eta / b matters), two colliding
   transfers of M take 2 b M / e(2) in the model and 2 b M + eta M in Eq. 5,
   so eta = 2 b (1 / e(2) - 1) (0.52 b for the default curve's e(2) = 0.794,
   threshold b / (2 (b + eta)) = 0.329; the ideal curve gives eta = 0 and
   0.5). */
static int admit_adadual(ns_sim *s, nsi_simjob *j, int *start, int *hold) {
  (void)hold; /* its refusal depends on the bytes left, which move with time */
  const nsi_group *g = &s->grp[j->group];
  int *tasks = calloc(j->nsrv, sizeof *tasks);
  uint64_t *rem = calloc(j->nsrv, sizeof *rem);
  if (tasks == NULL || rem == NULL) {
    free(tasks), free(rem);
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
  }
  for (size_t m = 0; m < g->n; m++) {
    const nsi_simjob *k = &s->jobs[g->members[m]];
    if (k == j || !in_flight(k))
      continue;
    double left = k->phase == NSI_PH_LAT ? 1.0 : k->comm_work > 0 ? k->ph_left / k->comm_work : 0.0;
    uint64_t bytes = (uint64_t)(left * (double)k->model_bytes) + 1;
    for (size_t a = 0; a < j->nsrv; a++)
      for (size_t b = 0; b < k->nsrv; b++)
        if (j->srv[a] == k->srv[b]) {
          tasks[a]++;
          rem[a] = bytes;
        }
  }
  double b = nsi_sim_eq5_b(&s->o), e2 = nsi_sim_curve(&s->o, 2);
  int rc = ns_policy_admit(s->policy, j->model_bytes, NULL, 0, tasks, rem, j->nsrv, b,
                           2.0 * b * (1.0 / e2 - 1.0), start);
  free(tasks), free(rem);
  if (rc < 0)
    return rc == NS_EUNSUPPORTED ? unavailable(s, "ns_adadual_decide")
                                 : nsi_fail(rc, "ns_sim_run: %s", ns_last_error());
  return NS_OK;
}

static int (*const admit_fns[])(ns_sim *, nsi_simjob *, int *, int *) = {
    [NS_SIM_ADMIT_ALL] = admit_all, [NS_SIM_ADMIT_SRSF] = admit_srsf,
    [NS_SIM_ADMIT_ADADUAL] = admit_adadual};

/* ---- CASSINI ------------------------------------------------------------ */

/* CASSINI's drift re-adjustment (§4.2, §5.7) is the policy's
   (src/policy/drift.c: schedules, threshold, rule, re-ranking); the phase
   model measures and applies, as a cluster manager would: it reports each
   job's iteration by its schedule when it starts (compute + its all-reduce
   alone on its links, net_phase.c's lone_comm), the slot each applied
   shift gives its next compute, and every all-reduce start; the policy's
   answer is re-ranked shifts for the job and its link partners (recorded
   as at a placement, apply_shifts) or a hold until its next ideal slot. */
static int cassini_started(ns_sim *s, nsi_simjob *j) {
  int rc = ns_policy_report_iteration(s->policy, j->job, j->compute_ms, j->lone_comm);
  return rc < 0 ? nsi_fail(rc, "ns_sim_run: job '%s': %s", j->name, ns_last_error()) : NS_OK;
}

static int cassini_shifted(ns_sim *s, nsi_simjob *j, double slot) {
  int rc = ns_policy_report_shifted(s->policy, j->job, slot);
  return rc < 0 ? nsi_fail(rc, "ns_sim_run: job '%s': %s", j->name, ns_last_error()) : NS_OK;
}

/* The report-back contract's finish: the policy's schedules hold the jobs
   running, not every job of the run (cannot fail: s->now is finite). */
static void cassini_finished(ns_sim *s, nsi_simjob *j) {
  (void)ns_policy_finished(s->policy, j->job, s->now);
}

static int shift_of_readjust(const void *x, const ns_job *job, double *ms) {
  return ns_decision_readjust_shift_ms((const ns_decision *)x, job, ms);
}

static int cassini_allreduce(ns_sim *s, nsi_simjob *j, double *hold_until) {
  int act = ns_policy_report_allreduce(s->policy, s->cluster, j->job, s->now, s->rd, hold_until);
  if (act == NS_POLICY_DRIFT_SHIFTS)
    act = apply_shifts(s, (int)(j - s->jobs), shift_of_readjust, s->rd);
  if (act < 0)
    return nsi_fail(act, "ns_sim_run: job '%s': %s", j->name, ns_last_error());
  return NS_OK;
}

/* The run's policy: one function per part, from the options. */
static void set_hooks(ns_sim *s) {
  s->hooks.order = order_key;
  s->hooks.admit_comm = admit_fns[nsi_admission(&s->o)];
  int dally = dally_preempts(&s->o), lease = s->o.dally_lease_ms > 0;
  s->hooks.preempt = dally && !lease ? preempt_dally : NULL;
  int cassini = nsi_cassini(&s->o);
  s->hooks.cassini_started = cassini ? cassini_started : NULL;
  s->hooks.cassini_shifted = cassini ? cassini_shifted : NULL;
  s->hooks.cassini_allreduce = cassini ? cassini_allreduce : NULL;
  s->hooks.cassini_finished = cassini ? cassini_finished : NULL;
}
