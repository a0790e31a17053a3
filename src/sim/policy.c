/*
 * src/sim/policy.c - calls the library's PUBLIC policy entry points, exactly
 * as a cluster manager would: ordering keys, placement dispatch, Dally
 * offers, AdaDUAL admission and CASSINI candidate ranking.
 *
 * CASSINI candidates (§4.2 leaves their source to the base scheduler): the
 * base policy's placement first; then the base policy asked again with the
 * free GPUs of the first server of every earlier candidate temporarily
 * marked busy (ns_cluster_occupy, undone with ns_cluster_vacate), until
 * max_candidates or NS_ENOSPACE. This yields distinct placements the base
 * policy itself would consider good, in its own preference order.
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
 *  - Lease reading (the default, lease_dally; ns_sim_opts_set_dally_lease):
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
 *    overhead). Bounded: NSI_DALLY_MAX_VICTIMS jobs taken per waiter,
 *    NSI_DALLY_LEASE_TRIES such offers per re-offer. Between lease expiries
 *    (arrivals, finishes, timer wake-ups) only the free GPUs are offered.
 *    A job that never ran is ranked at 1.0 (above), not first (0): on the
 *    two Philly slices of bench/REPRODUCE.md, ranking it first (every new
 *    job takes GPUs at the next expiry) gave Dally 4.1-7.8x Tiresias's
 *    communication overhead and 2.0-2.7x its makespan.
 *  - Pass-by-pass reading (lease 0, preempt_dally): after each
 *    scheduling pass, a waiting job may take the GPUs of running jobs whose
 *    Nw_sens is above its own by more than NSI_DALLY_MARGIN (5 %:
 *    hysteresis, else two jobs of nearly equal Nw_sens could swap at every
 *    event), highest Nw_sens first (the least network-sensitive, as
 *    Tiresias preempts the highest 2DAS first, §3.4), only if Algorithm 1
 *    accepts the GPUs so freed (a waiter still within its machine timer
 *    declines a scattered offer: then nothing is suspended). Bounded: at
 *    most NSI_DALLY_MAX_VICTIMS victims per waiter and NSI_DALLY_TRIES
 *    offers per event time; a job started at this time is no victim.
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
  return o->order == NS_SIM_ORDER_NW_SENS && !o->cassini && !o->gpu_sharing &&
         !o->dally_no_preempt;
}

int nsi_sim_policy_prepare(ns_sim *s) {
  const ns_sim_opts *o = &s->o;
  set_hooks(s);
  if (o->order == NS_SIM_ORDER_NW_SENS && !isfinite(ns_dally_priority(1, 2, 1.0, 1.0)))
    return unavailable(s, "ns_dally_priority");
  if (o->placement == NS_SIM_PLACE_TITAN) {
    ns_titan_opts *t = ns_titan_opts_new();
    if (t == NULL)
      return not_made(s, "ns_titan_opts_new");
    s->titan_opts = t;
    NSI_TRY(ns_titan_opts_set_seed(t, o->seed));
  }
  if (o->placement == NS_SIM_PLACE_VCLOS || o->placement == NS_SIM_PLACE_OCS_VCLOS) {
    s->vclos_opts = ns_vclos_opts_new();
    if (s->vclos_opts == NULL)
      return not_made(s, "ns_vclos_opts_new");
  }
  if (o->placement == NS_SIM_PLACE_OCS_VCLOS) {
    int rc = ns_cluster_enable_ocs(s->cluster, o->spines > 0 ? o->spines : 1);
    if (rc < 0)
      return nsi_fail(rc, "ns_sim_run: OCS-vClos needs an OCS layer: %s", ns_last_error());
  }
  if (o->placement == NS_SIM_PLACE_DALLY || o->placement == NS_SIM_PLACE_DALLY_MANUAL) {
    ns_delay_tuner *t = ns_delay_tuner_new(o->dally_history_ms, o->dally_machine_ms, o->dally_rack_ms);
    if (t == NULL)
      return not_made(s, "ns_delay_tuner_new");
    s->tuner = t;
    if (o->placement == NS_SIM_PLACE_DALLY_MANUAL && ns_delay_tuner_set_manual(t, 1) < 0)
      return unavailable(s, "ns_delay_tuner_set_manual");
  }
  if (o->cassini && (o->placement == NS_SIM_PLACE_DALLY || o->placement == NS_SIM_PLACE_DALLY_MANUAL))
    return nsi_fail(NS_EINVAL, "ns_sim_run: CASSINI cannot augment Dally (every offer records a "
                               "wait in the tuner); choose another base placement");
  if (dally_preempts(o)) {
    s->pre_pl = ns_placement_new();
    for (int i = 0; i < NSI_DALLY_MAX_VICTIMS && s->pre_pl != NULL; i++)
      if ((s->pre_held[i] = ns_placement_new()) == NULL)
        return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
    if (s->pre_pl == NULL)
      return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
  }
  if (o->cassini) {
    s->cassini_opts = ns_cassini_opts_new();
    if (s->cassini_opts == NULL)
      return not_made(s, "ns_cassini_opts_new");
    /* the drift knob is the library's re-adjustment threshold (0: never) */
    if (o->cassini_drift > 0 && ns_cassini_opts_set_drift_fraction(s->cassini_opts,
                                                                   o->cassini_drift) < 0)
      return unavailable(s, "ns_cassini_opts_set_drift_fraction");
    for (int i = 0; i < NSI_SIM_MAX_CANDIDATES; i++)
      if ((s->cand[i] = ns_placement_new()) == NULL)
        return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
  }
  return NS_OK;
}

void nsi_sim_policy_release(ns_sim *s) {
  ns_titan_opts_free(s->titan_opts);
  ns_vclos_opts_free(s->vclos_opts);
  ns_delay_tuner_free(s->tuner);
  ns_cassini_opts_free(s->cassini_opts);
  s->titan_opts = s->vclos_opts = s->tuner = s->cassini_opts = NULL;
  for (int i = 0; i < NSI_SIM_MAX_CANDIDATES; i++) {
    ns_placement_free(s->cand[i]);
    s->cand[i] = NULL;
  }
  ns_placement_free(s->pre_pl);
  s->pre_pl = NULL;
  for (int i = 0; i < NSI_DALLY_MAX_VICTIMS; i++) {
    ns_placement_free(s->pre_held[i]);
    s->pre_held[i] = NULL;
  }
  for (size_t i = 0; i < s->lease_cappl; i++)
    ns_placement_free(s->lease_pl[i]);
  free(s->lease_pl), free(s->lease_buf);
  s->lease_pl = NULL, s->lease_buf = NULL, s->lease_cappl = s->lease_cap = 0;
  s->lease_nkeep = s->lease_nstop = s->lease_ngo = 0;
}

/* ---- order: the queue key (fixed while a job waits) ------------------------ */

static double ideal_ms(const ns_sim *s, const nsi_simjob *j) {
  return nsi_sim_ideal_iter_ms(&s->o, j) * (double)j->iterations;
}
static double order_fifo(const ns_sim *s, const nsi_simjob *j) {
  (void)s;
  return j->arrival_ms;
}
/* remaining service = GPU-time */
static double order_srsf(const ns_sim *s, const nsi_simjob *j) { return ideal_ms(s, j) * j->gpus; }
static double order_sjf(const ns_sim *s, const nsi_simjob *j) { return ideal_ms(s, j); }
/* Nw_sens compared to 1e-9 (then by arrival): a one-GPU job's measure is
   1 up to rounding, which must not order it against another's exact 1. */
static double offer_key(double k) { return round(k * 1e9) / 1e9; }

/* Dally §4.3.1: offers in increasing Nw_sens; the key is the job's kept
   value (the engine sets it at arrival and at every suspension), to 1e-9. */
static double order_nw_sens(const ns_sim *s, const nsi_simjob *j) {
  (void)s;
  return offer_key(isfinite(j->nw_sens) ? j->nw_sens : 1.0);
}
static double (*const order_fns[])(const ns_sim *, const nsi_simjob *) = {
    [NS_SIM_ORDER_FIFO] = order_fifo, [NS_SIM_ORDER_SRSF] = order_srsf,
    [NS_SIM_ORDER_SJF] = order_sjf, [NS_SIM_ORDER_NW_SENS] = order_nw_sens,
    /* preemptive: las.c keeps the queues; the key is only arrival */
    [NS_SIM_ORDER_2D_LAS] = order_fifo, [NS_SIM_ORDER_2D_GITTINS] = order_fifo};

/* ---- place: one call of the base placement policy into `out` ---------------- */

static int place_ff(ns_sim *s, int ji, ns_placement *out) {
  return ns_place_first_fit(s->cluster, s->jobs[ji].job, out);
}
static int refresh_lwf_workload(ns_sim *s);

static int place_ls(ns_sim *s, int ji, ns_placement *out) {
  NSI_TRY(refresh_lwf_workload(s));
  return ns_place_list_scheduling(s->cluster, s->jobs[ji].job, out);
}
static int place_rand(ns_sim *s, int ji, ns_placement *out) {
  return ns_place_random(s->cluster, s->jobs[ji].job,
                         s->o.seed * 0x9e3779b97f4a7c15ull + (uint64_t)ji, out);
}
static int place_best_fit(ns_sim *s, int ji, ns_placement *out) {
  return ns_place_best_fit(s->cluster, s->jobs[ji].job, out);
}
static int place_tiresias(ns_sim *s, int ji, ns_placement *out) {
  return ns_place_tiresias(s->cluster, s->jobs[ji].job, s->o.skew_bytes, out);
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

static int place_lwf(ns_sim *s, int ji, ns_placement *out) {
  NSI_TRY(refresh_lwf_workload(s));
  return ns_lwf_place(s->cluster, s->jobs[ji].job, s->o.kappa, out);
}
static int place_titan(ns_sim *s, int ji, ns_placement *out) {
  return ns_titan_place(s->cluster, s->jobs[ji].job, s->titan_opts, out);
}
static int place_vclos(ns_sim *s, int ji, ns_placement *out) {
  return ns_vclos_place(s->cluster, s->jobs[ji].job, s->vclos_opts, out);
}
/* The user's callback (NS_SIM_PLACE_CUSTOM). It gets an empty placement
   bound to nothing, as a fresh ns_placement_new() would be (not the previous
   job's GPUs), and the message buffer cleared, so that a status it returns
   without a message is not reported with a stale one. NS_OK must come with
   at least the job's GPUs (more is allowed, as vClos rounds sizes up) and
   at most the cluster's. */
static int place_custom(ns_sim *s, int ji, ns_placement *out) {
  const nsi_simjob *j = &s->jobs[ji];
  NSI_TRY(refresh_lwf_workload(s)); /* the cluster it reads: remaining work per GPU */
  ns_placement_clear(out);
  out->bound = 0;
  nsi_fail(NS_OK, "%s", "");
  int rc = s->o.place_fn(s->cluster, j->job, out, s->o.place_user);
  if (rc < 0 && ns_last_error()[0] == '\0')
    return nsi_fail(rc, "the custom placement callback (ns_sim_opts_set_place_fn) returned %d "
                        "(%s) without a message", rc, ns_strerror(rc));
  if (rc < 0)
    return rc;
  if (rc > 0)
    return nsi_fail(NS_EINVAL, "the custom placement callback (ns_sim_opts_set_place_fn) "
                               "returned %d for job '%s', which is not a status (NS_OK, "
                               "NS_ENOSPACE or another negative ns_status)", rc, j->name);
  int total = ns_cluster_gpu_count(s->cluster);
  if (out->ngpus < (size_t)j->gpus || out->ngpus > (size_t)total)
    return nsi_fail(NS_EINVAL, "the custom placement callback (ns_sim_opts_set_place_fn) "
                               "returned NS_OK with %zu GPUs for job '%s', which asks for %d "
                               "(a placement holds %d..%d GPUs)",
                    out->ngpus, j->name, j->gpus, j->gpus, total);
  return NS_OK;
}

/* Dally: Algorithm 1 on the offer of the free GPUs; lines 1-2: starvation =
   time the job has been waiting for GPUs: since its arrival, or since its
   latest suspension (a preempted job's last assignment ended then). */
static int place_dally(ns_sim *s, int ji, ns_placement *out) {
  int accepted = 0;
  double starvation = s->now - s->jobs[ji].wait_from;
  int rc = ns_dally_offer(s->tuner, s->cluster, s->jobs[ji].job, starvation, s->now, out, &accepted);
  if (rc < 0)
    return rc;
  return accepted ? NS_OK : NS_ENOSPACE;
}
static int (*const place_fns[])(ns_sim *, int, ns_placement *) = {
    [NS_SIM_PLACE_FIRST_FIT] = place_ff,      [NS_SIM_PLACE_LIST_SCHEDULING] = place_ls,
    [NS_SIM_PLACE_RANDOM] = place_rand,       [NS_SIM_PLACE_BEST_FIT] = place_best_fit,
    [NS_SIM_PLACE_TIRESIAS] = place_tiresias, [NS_SIM_PLACE_LWF] = place_lwf,
    [NS_SIM_PLACE_TITAN] = place_titan,       [NS_SIM_PLACE_VCLOS] = place_vclos,
    [NS_SIM_PLACE_OCS_VCLOS] = place_vclos,   [NS_SIM_PLACE_DALLY] = place_dally,
    [NS_SIM_PLACE_DALLY_MANUAL] = place_dally, [NS_SIM_PLACE_CUSTOM] = place_custom};

static int base_place(ns_sim *s, int ji, ns_placement *out) { return s->hooks.place(s, ji, out); }

/* Dally: a declined job must be offered again when one of its timers
   expires, even if nothing else happens then. Timers count from the start
   of its wait (arrival or latest suspension); the rack timer is a total
   (dally.h). One pending wake per job and timer value. */
static int dally_wake(ns_sim *s, int ji) {
  nsi_simjob *j = &s->jobs[ji];
  double m = 0, r = 0;
  if (ns_delay_tuner_timers(s->tuner, j->gpus, s->now, &m, &r) < 0)
    return nsi_fail(NS_EUNSUPPORTED, "ns_sim_run: ns_delay_tuner_timers failed: %s",
                    ns_last_error());
  double at[2] = {j->wait_from + m, j->wait_from + r}, next = INFINITY;
  for (int i = 0; i < 2; i++)
    if (isfinite(at[i]) && at[i] > s->now && at[i] < next)
      next = at[i];
  if (isfinite(next) && next != j->wake_ms) {
    j->wake_ms = next;
    NSI_TRY(nsi_sim_heap_push(&s->heap, next, -1, 0));
  }
  return NS_OK;
}

int nsi_sim_place(ns_sim *s, int ji, int *placed) {
  *placed = 0;
  if (s->hooks.shift != NULL)
    return s->hooks.shift(s, ji, placed);
  int rc = base_place(s, ji, s->pl);
  if (rc == NS_ENOSPACE) {
    if (s->tuner != NULL)
      return dally_wake(s, ji);
    return NS_OK;
  }
  if (rc == NS_EINVAL && s->o.placement != NS_SIM_PLACE_CUSTOM) {
    *placed = -1; /* the policy can never host this job here (e.g. no vClos shape) */
    return NS_OK;
  }
  if (rc < 0) {
    if (rc == NS_EUNSUPPORTED)
      return unavailable(s, "placement");
    return nsi_fail(rc, "ns_sim_run: policy '%s' failed on job '%s': %s", pname(s),
                    s->jobs[ji].name, ns_last_error());
  }
  *placed = 1;
  return NS_OK;
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

/* Running jobs by Nw_sens, highest first (victims in that order). */
typedef struct nsi_cand {
  double nw;
  int ji;
} nsi_cand;

static int by_nw_desc(const void *a, const void *b) {
  const nsi_cand *x = a, *y = b;
  if (x->nw != y->nw)
    return x->nw < y->nw ? 1 : -1;
  return (x->ji > y->ji) - (x->ji < y->ji); /* earlier-added first: deterministic */
}

/* Puts back the victims taken off the cluster for a trial offer. */
static int undo_trial(ns_sim *s, size_t n) {
  int rc = NS_OK;
  while (n-- > 0) {
    int r = ns_cluster_commit(s->cluster, s->jobs[s->pre_victims[n]].job, s->pre_held[n]);
    rc = rc == NS_OK && r < 0 ? r : rc;
  }
  if (rc < 0)
    return nsi_fail(rc, "ns_sim_run: Dally preemption could not restore a running job's GPUs: "
                        "%s", ns_last_error());
  return NS_OK;
}

/* One waiter: victims (Nw_sens above the waiter's by the margin, highest
   first) are taken off the cluster one by one; once enough GPUs are free
   the waiter's placement is asked (Algorithm 1 for Dally: it may still
   decline a scattered offer while its timers run) and the next victim is
   added if it declines. Always puts the victims back; *ok if it accepted
   (then s->pre_victims / s->pre_pl hold the decision). */
static int trial(ns_sim *s, int ji, const nsi_cand *c, size_t nc, int free_gpus, int *ok) {
  nsi_simjob *w = &s->jobs[ji];
  size_t n = 0;
  int freed = free_gpus, rc = NS_OK;
  *ok = 0;
  for (size_t k = 0; k < nc && n < NSI_DALLY_MAX_VICTIMS && s->pre_budget > 0; k++) {
    nsi_simjob *v = &s->jobs[c[k].ji];
    rc = ns_cluster_job_placement(s->cluster, v->job, s->pre_held[n]);
    if (rc == NS_OK)
      rc = ns_cluster_release(s->cluster, v->job);
    if (rc < 0)
      break;
    s->pre_victims[n++] = c[k].ji;
    freed += v->gpus;
    if (freed < w->gpus)
      continue;
    s->pre_budget--;
    rc = base_place(s, ji, s->pre_pl);
    if (rc == NS_OK) {
      *ok = 1;
      break;
    }
    if (rc != NS_ENOSPACE)
      break;
    rc = NS_OK;
  }
  s->pre_nvictims = *ok ? n : 0;
  int undo = undo_trial(s, n);
  if (rc < 0 && rc != NS_ENOSPACE)
    return nsi_fail(rc, "ns_sim_run: policy '%s' failed on job '%s' during a preemption "
                        "trial: %s", pname(s), w->name, ns_last_error());
  return undo;
}

/* Dally's preempt hook (see the file comment): waiters in queue order
   (increasing Nw_sens), each may suspend running jobs whose Nw_sens is
   above its own by NSI_DALLY_MARGIN; the first waiter whose placement
   accepts the GPUs so freed wins. */
#define NSI_DALLY_MARGIN 0.05
static int preempt_dally(ns_sim *s, int *waiter) {
  *waiter = -1;
  s->pre_nvictims = 0;
  if (s->pre_at != s->now)
    s->pre_at = s->now, s->pre_budget = NSI_DALLY_TRIES;
  if (s->pre_budget <= 0 || s->nqueue == 0 || s->nrunning == 0)
    return NS_OK;
  nsi_cand *c = malloc(s->nrunning * sizeof *c);
  if (c == NULL)
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
  size_t nc = 0;
  for (size_t r = 0; r < s->nrunning; r++) {
    nsi_simjob *j = &s->jobs[s->running[r]];
    if (j->last_start == s->now)
      continue; /* placed in this very pass */
    double nw = nsi_sim_nw_sens(s, j);
    if (isfinite(nw))
      c[nc].nw = nw, c[nc++].ji = s->running[r];
  }
  qsort(c, nc, sizeof *c, by_nw_desc);
  int free_gpus = ns_cluster_free_gpu_count(s->cluster), rc = NS_OK;
  for (size_t q = 0; q < s->nqueue && s->pre_budget > 0 && rc == NS_OK; q++) {
    int ji = s->queue[q];
    double bar = s->jobs[ji].nw_sens * (1 + NSI_DALLY_MARGIN);
    if (nc == 0 || !(c[0].nw > bar))
      break; /* later waiters have a higher Nw_sens: no victim for them either */
    size_t ne = 0;
    long gpus = free_gpus;
    while (ne < nc && c[ne].nw > bar)
      gpus += ne < NSI_DALLY_MAX_VICTIMS ? s->jobs[c[ne].ji].gpus : 0, ne++;
    if (gpus < s->jobs[ji].gpus)
      continue; /* even every victim together would not make room */
    int ok = 0;
    rc = trial(s, ji, c, ne, free_gpus, &ok);
    if (rc == NS_OK && ok)
      *waiter = ji;
    if (ok)
      break;
  }
  free(c);
  return rc;
}

/* ---- Dally, lease reading: re-offers at lease expiry -------------------------
   (the file comment, "Lease reading"). */

/* One job offered in a lease re-offer: a queued one (held -1) or a running
   one whose lease expired (held = its index in s->lease_exp). */
typedef struct nsi_offeree {
  double key, arrival;
  int ji, held;
} nsi_offeree;

static int by_offer(const void *a, const void *b) {
  const nsi_offeree *x = a, *y = b; /* keys already to 1e-9 (offer_key) */
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  if (x->arrival != y->arrival)
    return x->arrival < y->arrival ? -1 : 1;
  return (x->ji > y->ji) - (x->ji < y->ji);
}

/* Room for n offerees' decisions and n + ne placements. */
static int lease_reserve(ns_sim *s, size_t n, size_t npl) {
  if (n > s->lease_cap) {
    int *b = realloc(s->lease_buf, 4 * n * sizeof *b);
    if (b == NULL)
      return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
    s->lease_buf = b, s->lease_cap = n;
  }
  s->lease_keep = s->lease_buf, s->lease_stop = s->lease_buf + s->lease_cap;
  s->lease_go = s->lease_buf + 2 * s->lease_cap, s->lease_exp = s->lease_buf + 3 * s->lease_cap;
  if (npl > s->lease_cappl) {
    ns_placement **p = realloc(s->lease_pl, npl * sizeof *p);
    if (p == NULL)
      return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
    s->lease_pl = p;
    for (; s->lease_cappl < npl; s->lease_cappl++)
      if ((p[s->lease_cappl] = ns_placement_new()) == NULL)
        return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
  }
  return NS_OK;
}

/* The state of one re-offer's walk (lease_walk). */
typedef struct nsi_reoffer {
  const nsi_offeree *c; /* the offerees in increasing Nw_sens */
  size_t n, own;        /* count; s->lease_pl[own + e]: expired job e's GPUs */
  const size_t *epos;   /* positions in c of the expired jobs, ascending */
  size_t ne;
  char *lost;           /* per expired job: its GPUs went to a job before it */
  long rest;            /* GPUs of the expired jobs not yet reached nor lost */
  int budget;           /* offers with GPUs taken from expired jobs left */
} nsi_reoffer;

/* A queued job c[i] that the free GPUs do not place: the expired jobs
   after it in the order, latest (highest Nw_sens) first, are taken off the
   cluster one by one and the waiter offered again once enough GPUs are
   free (trial() of the pass-by-pass reading). Accepted: the jobs taken off
   lose their GPUs; declined: they are put back. */
static int lease_victims(ns_sim *s, nsi_reoffer *ro, size_t i, int *placed) {
  nsi_simjob *w = &s->jobs[ro->c[i].ji];
  int freed = ns_cluster_free_gpu_count(s->cluster), rc = NS_OK;
  if (ro->budget <= 0 || freed + ro->rest < w->gpus)
    return NS_OK;
  size_t taken[NSI_DALLY_MAX_VICTIMS], nt = 0;
  for (size_t m = ro->ne; m-- > 0 && nt < NSI_DALLY_MAX_VICTIMS && ro->budget > 0;) {
    size_t k = ro->epos[m];
    if (k <= i)
      break;
    if (ro->lost[ro->c[k].held])
      continue;
    rc = ns_cluster_release(s->cluster, s->jobs[ro->c[k].ji].job);
    if (rc < 0)
      break;
    taken[nt++] = k;
    freed += s->jobs[ro->c[k].ji].gpus;
    if (freed < w->gpus)
      continue;
    ro->budget--;
    rc = nsi_sim_place(s, ro->c[i].ji, placed);
    if (rc < 0 || *placed > 0)
      break;
  }
  for (size_t v = 0; v < nt; v++) {
    int e = ro->c[taken[v]].held, r = NS_OK;
    if (*placed > 0)
      ro->lost[e] = 1, ro->rest -= s->jobs[ro->c[taken[v]].ji].gpus;
    else
      r = ns_cluster_commit(s->cluster, s->jobs[ro->c[taken[v]].ji].job,
                            s->lease_pl[ro->own + (size_t)e]);
    rc = rc == NS_OK && r < 0 ? r : rc;
  }
  return rc;
}

/* The walk of one re-offer, in increasing Nw_sens: an expired job whose
   GPUs no one before it took keeps them (renewed); one that lost them is
   suspended and offered what is free (Algorithm 1, starving since its
   lease began: accepting moves it); a queued job is offered the free GPUs,
   then those of the expired jobs after it (lease_victims). Starts are
   committed as they are decided, so later offers see them. */
static int lease_walk(ns_sim *s, nsi_reoffer *ro) {
  int rc = NS_OK;
  size_t last = ro->epos[ro->ne - 1];
  int blocked = 0; /* no backfilling: a queued job not placed stops the queue */
  for (size_t i = 0; i < ro->n && rc == NS_OK; i++) {
    const nsi_offeree *c = &ro->c[i];
    int ji = c->ji, placed = 0, free_gpus = ns_cluster_free_gpu_count(s->cluster);
    if (i > last && free_gpus == 0 && !s->o.gpu_sharing)
      break; /* only free GPUs are left to offer, and none is free */
    nsi_simjob *j = &s->jobs[ji];
    int fits = s->o.gpu_sharing || j->gpus <= free_gpus;
    if (c->held >= 0 && !ro->lost[c->held]) {
      ro->rest -= j->gpus;
      s->lease_keep[s->lease_nkeep++] = ji;
      continue;
    }
    if (c->held >= 0) {
      s->lease_stop[s->lease_nstop++] = ji;
      double waited = j->wait_from;
      j->wait_from = j->lease_from; /* Algorithm 1: since its last assignment */
      rc = fits ? nsi_sim_place(s, ji, &placed) : NS_OK;
      j->wait_from = waited;
    } else if (!blocked) {
      rc = fits ? nsi_sim_place(s, ji, &placed) : NS_OK;
      if (rc == NS_OK && placed == 0)
        rc = lease_victims(s, ro, i, &placed);
      blocked = placed == 0 && !s->o.backfill;
    }
    if (rc == NS_OK && placed > 0) {
      rc = nsi_placement_copy(s->lease_pl[s->lease_ngo], s->pl);
      if (rc == NS_OK)
        rc = ns_cluster_commit(s->cluster, j->job, s->pl);
      if (rc == NS_OK)
        s->lease_go[s->lease_ngo++] = ji;
    }
  }
  return rc;
}

/* Dally's lease hook (sim_internal.h): decides the re-offer of the expired
   jobs' GPUs with the free ones, then puts the cluster back as it was. */
static int lease_dally(ns_sim *s, size_t *expired) {
  *expired = 0;
  s->lease_nkeep = s->lease_nstop = s->lease_ngo = 0;
  size_t ne = 0;
  for (size_t r = 0; r < s->nrunning; r++)
    ne += s->jobs[s->running[r]].lease_end <= s->now;
  if (ne == 0)
    return NS_OK;
  size_t n = s->nqueue + ne, own = n;
  NSI_TRY(lease_reserve(s, n, n + ne));
  nsi_offeree *c = malloc(2 * n * sizeof *c); /* the order, then scratch */
  char *lost = calloc(ne, 1);
  size_t *epos = malloc(ne * sizeof *epos);
  if (c == NULL || lost == NULL || epos == NULL) {
    free(c), free(lost), free(epos);
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
  }
  /* the queue is in this order already (order_nw_sens's key, then
     arrival): sort the expired jobs, then merge */
  nsi_offeree *x = c + n;
  size_t k = 0, e = 0, nq = s->nqueue;
  for (size_t q = 0; q < nq; q++) {
    const nsi_simjob *j = &s->jobs[s->queue[q]];
    x[k].key = j->key, x[k].arrival = j->arrival_ms, x[k].ji = s->queue[q], x[k++].held = -1;
  }
  for (size_t r = 0; r < s->nrunning; r++) {
    nsi_simjob *j = &s->jobs[s->running[r]];
    if (j->lease_end > s->now)
      continue;
    s->lease_exp[e] = s->running[r];
    x[k].key = offer_key(nsi_sim_nw_sens(s, j)), x[k].arrival = j->arrival_ms;
    x[k].ji = s->running[r], x[k++].held = (int)e++;
  }
  qsort(x + nq, ne, sizeof *x, by_offer);
  for (size_t a = 0, b = nq, o = 0; o < n; o++)
    c[o] = b < n && (a >= nq || by_offer(&x[b], &x[a]) < 0) ? x[b++] : x[a++];
  nsi_reoffer ro = {c, n, own, epos, ne, lost, 0, NSI_DALLY_LEASE_TRIES};
  for (size_t i = 0, m = 0; i < n; i++)
    if (c[i].held >= 0)
      epos[m++] = i, ro.rest += s->jobs[c[i].ji].gpus;
  int rc = NS_OK;
  for (size_t v = 0; v < ne && rc == NS_OK; v++) /* their GPUs, should they lose them */
    rc = ns_cluster_job_placement(s->cluster, s->jobs[s->lease_exp[v]].job, s->lease_pl[own + v]);
  if (rc == NS_OK)
    rc = lease_walk(s, &ro);
  /* back as it was: the new placements off, the expired jobs that lost
     their GPUs on again (the engine suspends them) */
  int undo = NS_OK;
  for (size_t g = 0; g < s->lease_ngo; g++) {
    int r = ns_cluster_release(s->cluster, s->jobs[s->lease_go[g]].job);
    undo = undo == NS_OK && r < 0 ? r : undo;
  }
  for (size_t v = 0; v < ne; v++) {
    int r = !lost[v] ? NS_OK
                     : ns_cluster_commit(s->cluster, s->jobs[s->lease_exp[v]].job,
                                         s->lease_pl[own + v]);
    undo = undo == NS_OK && r < 0 ? r : undo;
  }
  free(c), free(lost), free(epos);
  if (rc == NS_OK)
    rc = undo;
  if (rc < 0)
    return nsi_fail(rc, "ns_sim_run: Dally's lease re-offer failed: %s", ns_last_error());
  *expired = ne;
  return NS_OK;
}

/* ---- admit_comm: may a job in a group start its all-reduce now? ------------
   Called by the phase model when the job's compute phase ends while it
   shares a link with other jobs (a lone job never waits). The jobs that can
   communicate on its links at that instant are its group's members. */

static int admit_all(ns_sim *s, nsi_simjob *j, int *start) {
  (void)s, (void)j;
  *start = 1;
  return NS_OK;
}

/* An admitted multi-server all-reduce: in its start-up latency or transfer. */
static int in_flight(const nsi_simjob *k) {
  return (k->phase == NSI_PH_COMM || k->phase == NSI_PH_LAT) && k->nsrv >= 2;
}

static int uses_link(const nsi_simjob *k, int l) {
  return k->nlinks > 0 && bsearch(&l, k->links, k->nlinks, sizeof *k->links, nsi_cmp_int) != NULL;
}

/* SRSF(n) (LWF-kappa paper §IV): the task starts only while fewer than n
   other tasks communicate on each of its links; only the excess waits. */
static int admit_srsf(ns_sim *s, nsi_simjob *j, int *start) {
  const nsi_group *g = &s->grp[j->group];
  *start = 1;
  for (size_t i = 0; i < j->nlinks && *start; i++) {
    if (i > 0 && j->links[i] == j->links[i - 1])
      continue;
    int others = 0;
    for (size_t m = 0; m < g->n; m++) {
      const nsi_simjob *k = &s->jobs[g->members[m]];
      if (k != j && in_flight(k) && uses_link(k, j->links[i]))
        others++;
    }
    *start = others < s->o.admit_n;
  }
  return NS_OK;
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
static int admit_adadual(ns_sim *s, nsi_simjob *j, int *start) {
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
  int rc = ns_adadual_decide(b, 2.0 * b * (1.0 / e2 - 1.0),
                             j->model_bytes ? j->model_bytes : 1, tasks, rem, j->nsrv, start);
  free(tasks), free(rem);
  if (rc < 0)
    return rc == NS_EUNSUPPORTED ? unavailable(s, "ns_adadual_decide") : rc;
  return NS_OK;
}

static int (*const admit_fns[])(ns_sim *, nsi_simjob *, int *) = {
    [NS_SIM_ADMIT_ALL] = admit_all, [NS_SIM_ADMIT_SRSF] = admit_srsf,
    [NS_SIM_ADMIT_ADADUAL] = admit_adadual};

/* ---- CASSINI ------------------------------------------------------------ */

static int same_gpus(const ns_placement *a, const ns_placement *b) {
  return a->ngpus == b->ngpus && memcmp(a->gpus, b->gpus, a->ngpus * sizeof *a->gpus) == 0;
}

/* Candidates from the base policy (see the file comment). */
static int make_candidates(ns_sim *s, int ji, size_t *ncand) {
  int gps = s->o.gpus_per_server;
  int *occ = malloc((size_t)NSI_SIM_MAX_CANDIDATES * (size_t)gps * sizeof *occ);
  if (occ == NULL)
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
  size_t nocc = 0, n = 0;
  int rc = NS_OK;
  while (n < (size_t)s->o.max_candidates) {
    rc = base_place(s, ji, s->cand[n]);
    if (rc < 0 || (n > 0 && same_gpus(s->cand[n], s->cand[n - 1])))
      break; /* no placement left, or the policy repeats itself (GPU sharing) */
    int server = ns_placement_gpu(s->cand[n], 0) / gps;
    n++;
    int fresh[64], nf = 0;
    for (int g = server * gps; g < (server + 1) * gps && nf < 64; g++)
      if (ns_cluster_gpu_is_free(s->cluster, g) == 1)
        fresh[nf++] = g;
    if (nf == 0)
      break;
    if ((rc = ns_cluster_occupy(s->cluster, fresh, (size_t)nf)) < 0)
      break;
    memcpy(occ + nocc, fresh, (size_t)nf * sizeof *occ);
    nocc += (size_t)nf;
  }
  if (nocc > 0)
    ns_cluster_vacate(s->cluster, occ, nocc);
  free(occ);
  *ncand = n;
  /* No candidate left (NS_ENOSPACE) ends the list; another failure (out
     of memory, a policy error) is the call's, not a shorter list. */
  if (n == 0 || (rc < 0 && rc != NS_ENOSPACE))
    return rc;
  return NS_OK;
}

/* The library describes each candidate from the run's cluster, whose
   committed jobs are the running ones (ns_cassini_candidate_from_cluster:
   NIC ports per server, ECMP and vClos routes as network.c loads them).
   The library's ring is over the placement's GPUs in their order, this
   network's over the servers in ascending order: a placement without
   reserved links is sorted first so that both are the same ring (a vClos
   placement keeps its order, which its source routes follow; its shared
   links, the NIC ports of its servers, do not depend on it). */
static int describe(ns_sim *s, int ji, ns_placement *p, ns_candidate **cand) {
  if (p->nlinks == 0)
    qsort(p->gpus, p->ngpus, sizeof *p->gpus, nsi_cmp_int);
  *cand = ns_candidate_new();
  if (*cand == NULL)
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory describing a CASSINI candidate");
  return ns_cassini_candidate_from_cluster(*cand, s->cluster, s->jobs[ji].job, p);
}

/* Records the winner's time-shifts (Eq. 5 t_j) for the new job and the
   running jobs on its shared links (the candidate's jobs); the network model
   applies them (fluid: each pauses once; phase: their next compute phases
   are aligned). */
static int apply_shifts(ns_sim *s, int ji, const ns_candidate *cand) {
  double sh = 0;
  int rc = ns_candidate_shift_ms(cand, s->jobs[ji].job, &sh);
  if (rc < 0)
    return rc;
  s->jobs[ji].shift_ms = sh, s->jobs[ji].shift_pending = 1;
  s->net_dirty = 1;
  for (size_t r = 0; r < s->nrunning; r++) {
    nsi_simjob *k = &s->jobs[s->running[r]];
    if (ns_candidate_shift_ms(cand, k->job, &sh) == NS_OK)
      k->shift_ms = sh, k->shift_pending = 1;
  }
  return NS_OK;
}

static int rank_and_pick(ns_sim *s, int ji, size_t n, int *placed) {
  ns_candidate *cands[NSI_SIM_MAX_CANDIDATES] = {0};
  int rc = NS_OK;
  size_t free_pick = n;
  const ns_job *job = s->jobs[ji].job;
  for (size_t i = 0; i < n && rc == NS_OK; i++) {
    rc = describe(s, ji, s->cand[i], &cands[i]);
    double sh;
    if (rc == NS_OK && free_pick == n &&
        ns_candidate_shift_ms(cands[i], job, &sh) == NS_ENOTFOUND)
      free_pick = i; /* the job is on no shared link: fully compatible */
  }
  size_t best = 0;
  if (rc == NS_OK && free_pick < n)
    best = free_pick;
  else if (rc == NS_OK) {
    double scores[NSI_SIM_MAX_CANDIDATES];
    rc = ns_cassini_rank(cands, n, s->cassini_opts, &best, scores);
    if (rc == NS_ELOOP || rc == NS_ERANGE) /* no loop-free candidate: base placement */
      rc = NS_OK, best = 0;
    else if (rc == NS_OK)
      rc = apply_shifts(s, ji, cands[best]);
  }
  if (rc == NS_OK)
    rc = nsi_placement_copy(s->pl, s->cand[best]);
  for (size_t i = 0; i < n; i++)
    ns_candidate_free(cands[i]);
  if (rc == NS_EUNSUPPORTED)
    return unavailable(s, "CASSINI");
  if (rc < 0)
    return nsi_fail(rc, "ns_sim_run: CASSINI failed on job '%s': %s", s->jobs[ji].name,
                    ns_last_error());
  *placed = 1;
  return NS_OK;
}

static int cassini_place(ns_sim *s, int ji, int *placed) {
  size_t n = 0;
  int rc = make_candidates(s, ji, &n);
  if (rc == NS_ENOSPACE)
    return NS_OK;
  if (rc == NS_EINVAL && s->o.placement != NS_SIM_PLACE_CUSTOM) {
    *placed = -1; /* never placeable, as in nsi_sim_place */
    return NS_OK;
  }
  if (rc < 0)
    return rc == NS_EUNSUPPORTED ? unavailable(s, "placement") : rc;
  return rank_and_pick(s, ji, n, placed);
}

/* Re-adjustment (CASSINI §4.2, §5.7), called by the phase model when job j
   starts an all-reduce more than the drift threshold off its schedule: j's
   shared links are described again from the cluster (j is committed: the
   others on them, then j) and ranked; ns_cassini_readjust gets every job of
   the candidate with the iteration it runs at on its placement by its
   schedule (compute + its all-reduce alone on its links, net_phase.c). When one differs from its profile by more than the
   threshold, the re-optimised shifts are recorded for all of them, as at a
   placement (apply_shifts), and *done = 1. Otherwise, under the default
   drift rule (NS_SIM_DRIFT_READJUST, CASSINI §4.2 "adjust the time-shifts",
   §5.7) the ranked shifts are applied again from now, re-aligning j and its
   link partners (*done = 1); under NS_SIM_DRIFT_WAIT (the earlier reading)
   *done = 0 and the phase model holds j to its next ideal slot. No shared
   link or a loop: *done = 0. */
static int cassini_readjust(ns_sim *s, nsi_simjob *j, int *done) {
  *done = 0;
  size_t cap = s->nrunning + 1, m = 0, n = 0, best = 0;
  ns_candidate *cand = ns_candidate_new();
  ns_placement *p = ns_placement_new();
  const ns_job **jobs = malloc(cap * sizeof *jobs);
  double *iter = malloc(cap * sizeof *iter), sh = 0;
  int rc = cand && p && jobs && iter ? NS_OK : nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
  if (rc == NS_OK)
    rc = ns_cluster_job_placement(s->cluster, j->job, p);
  if (rc == NS_OK)
    rc = ns_cassini_candidate_from_cluster(cand, s->cluster, j->job, p);
  if (rc == NS_OK && ns_candidate_shift_ms(cand, j->job, &sh) != NS_ENOTFOUND) {
    rc = ns_cassini_rank(&cand, 1, s->cassini_opts, &best, NULL);
    for (size_t r = 0; r < s->nrunning && rc == NS_OK; r++) {
      const nsi_simjob *k = &s->jobs[s->running[r]];
      double per = k->compute_ms + k->lone_comm; /* its iteration by its schedule */
      if (per > 0 && ns_candidate_shift_ms(cand, k->job, &sh) == NS_OK)
        jobs[m] = k->job, iter[m++] = per;
    }
    if (rc == NS_OK)
      rc = ns_cassini_readjust(cand, s->cassini_opts, jobs, iter, m, &n);
    int again = n > 0 || s->o.drift_rule == NS_SIM_DRIFT_READJUST;
    if (rc == NS_OK && again)
      rc = apply_shifts(s, (int)(j - s->jobs), cand);
    if (rc == NS_OK)
      *done = again;
    if (rc == NS_ELOOP || rc == NS_ERANGE)
      rc = NS_OK; /* no loop-free shifts: the schedule is kept */
  }
  ns_candidate_free(cand);
  ns_placement_free(p);
  free(jobs), free(iter);
  if (rc < 0)
    return nsi_fail(rc, "ns_sim_run: CASSINI re-adjustment failed on job '%s': %s", j->name,
                    ns_last_error());
  return NS_OK;
}

/* The run's policy: one function per part, from the options. */
static void set_hooks(ns_sim *s) {
  s->hooks.order = order_fns[s->o.order];
  s->hooks.place = place_fns[s->o.placement];
  s->hooks.admit_comm = admit_fns[s->o.admission];
  s->hooks.shift = s->o.cassini ? cassini_place : NULL;
  int dally = dally_preempts(&s->o), lease = s->o.dally_lease_ms > 0;
  s->hooks.preempt = dally && !lease ? preempt_dally : NULL;
  s->hooks.lease = dally && lease ? lease_dally : NULL;
  s->hooks.readjust = s->o.cassini ? cassini_readjust : NULL;
}
