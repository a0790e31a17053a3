/*
 * src/sim/engine.c - the simulator handle and the discrete-event loop. The
 * engine owns the clock, the event heap (heap.c: arrivals, job events,
 * Dally timer wake-ups) and the running set; it calls exactly two tables:
 * the network model (s->net_model: start, update, event, stop, remaining,
 * measured - maxmin and contention in net_fluid.c, phase in net_phase.c)
 * and the policy's hooks (s->hooks: order, place, admit_comm, shift,
 * preempt - policy.c). Preemption: the policy object's decision (2D-LAS,
 * 2D-Gittins: ns_policy_decide's suspends, src/policy/las.c; Dally's lease
 * re-offers: its suspends and renewals, src/policy/policy.c) or the preempt
 * hook (Dally, lease 0) decide, the engine suspends (suspend_job: GPUs
 * released, progress and measured Nw_sens kept) and restarts. One scheduling
 * pass per event time; the model's update runs only when the running set
 * changed or the model asked for it (net_dirty: the phase model's deferred
 * neighbours). Job events carry a version: a model that moves a job's next
 * event pushes a new one and the stale one is skipped when popped.
 *
 * Readings of passages the papers leave open (the model itself is in
 * include/netsched/sim.h):
 *  - Machine fragmentation (Titan §V-A): the paper defines it once as idle /
 *    total GPUs of a machine and once as occupied / equipped for machines
 *    holding a worker. We use idle / total over machines holding at least
 *    one worker (a full machine is not fragmented, an empty one is not
 *    "used"), averaged over those machines and over time while any is used.
 *  - Default workload (AdaDUAL §V-A): "uniform" arrivals over 20 minutes are
 *    drawn per job uniformly in [0, 1200] s; iterations uniform in
 *    [1000, 6000]; the four Table III models equally likely.
 *  - SRSF key: remaining service = GPUs x iterations x ideal iteration time;
 *    the paper sets the unknown communication E_J = 0, we use the
 *    consolidated all-reduce time, which is known before placement.
 *  - Nw_sens (Dally §4.3.1): measured per running job by the network
 *    model's measured() (iterations done, ms run over all placements, the
 *    restore overhead excluded: it is not network-induced), kept while the
 *    job waits; a job that never ran is estimated from its profile at the
 *    most consolidated tier it fits (policy.c, sim.h DALLY).
 *  - Dally starvation (Algorithm 1 lines 1-2, "last resource assignment"):
 *    time since arrival, or since its latest suspension.
 *  - AdaDUAL M_old: the fluid models have no per-all-reduce state, so the
 *    one running task on a server is taken half done (M / 2 remaining); the
 *    phase model passes the in-flight all-reduce's actual remaining bytes.
 *  - Eq. 5 defaults: b and eta from the authors' 10 GbE fit (0.856 and
 *    0.235 ms/MB) scaled to the link rate, a = 0 (the published a does not
 *    reproduce their own 10 MB measurements; set it with
 *    ns_sim_opts_set_contention).
 *  - Tiresias-style "skewed" models: model size >= 200 MB, i.e. VGG-16 and
 *    LSTM-PTB (large, skewed tensors) but not ResNet-50 or Inception-V3
 *    (~100 MB), matching Tiresias' examples of consolidation-sensitive models.
 *  - Tiresias trace: the profiles come from its model_name (model bytes,
 *    memory); its duration column sets the compute per iteration (sim.h,
 *    TRACE DURATIONS), its interval column is not used.
 *  - Philly trace: no model or iterations; a model is drawn per row from the
 *    seed and iterations = duration / the model's lone consolidated
 *    iteration time (sim.h, TRACE DURATIONS).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_internal.h"

/* Metric integrals over [s->now, t): allocated GPUs, machine
   fragmentation over used machines (Titan §V). */
static void integrate(ns_sim *s, double t) {
  double dt = t - s->now;
  if (dt <= 0)
    return;
  s->alloc_int += dt * s->alloc_gpus;
  s->machines_int += dt * s->used_servers;
  if (s->used_servers > 0) {
    s->frag_int += dt * (double)s->idle_on_used / ((double)s->used_servers * s->o.gpus_per_server);
    s->frag_time += dt;
  }
}

/* Machines used at arrivals (Titan §V, sim.h METRICS): each job that
   arrived since the last scheduling pass samples the servers in use now,
   after the pass that offered it the cluster. */
static void sample_arrivals(ns_sim *s) {
  s->arrival_machines += (double)s->arrival_pending * s->used_servers;
  s->arrival_samples += s->arrival_pending;
  s->arrival_pending = 0;
}

/* ---- the handle ---------------------------------------------------------- */

ns_sim *ns_sim_new(const ns_sim_opts *o) {
  if (o == NULL) {
    nsi_fail(NS_EINVAL, "ns_sim_new: o is NULL");
    return NULL;
  }
  ns_sim *s = calloc(1, sizeof *s);
  if (s == NULL) {
    nsi_fail(NS_ENOMEM, "ns_sim_new: out of memory");
    return NULL;
  }
  if (nsi_sim_opts_copy(&s->o, o, "ns_sim_new") < 0) {
    nsi_sim_opts_release(&s->o);
    free(s);
    return NULL;
  }
  return s;
}

void ns_sim_free(ns_sim *s) {
  if (s == NULL || nsi_sim_enter(s, "ns_sim_free", NSI_SIM_WRITE) < 0)
    return; /* running or in use: freeing it would pull the state from under that call */
  nsi_sim_reset(s);
  for (size_t i = 0; i < s->njobs; i++)
    free(s->jobs[i].name);
  free(s->jobs);
  for (size_t i = 0; i < s->nmodels; i++)
    free(s->models[i].name);
  free(s->models);
  nsi_sim_opts_release(&s->o);
  free(s);
}

/* Releases what one run allocated (jobs keep their static description). */
void nsi_sim_reset(ns_sim *s) {
  ns_cluster_free(s->cluster); /* first: it refers to committed jobs */
  s->cluster = NULL;
  for (size_t i = 0; i < s->njobs; i++) {
    nsi_simjob *j = &s->jobs[i];
    ns_job_free(j->job);
    j->job = NULL;
    free(j->links), free(j->srv), free(j->gpu);
    j->links = NULL, j->srv = NULL, j->gpu = NULL, j->nlinks = j->nsrv = j->ngpu = 0;
    nsi_sim_steps_free(j->hd);
    j->hd = NULL;
  }
  nsi_sim_policy_release(s);
  ns_placement_free(s->pl), ns_placement_free(s->scratch);
  s->pl = s->scratch = NULL;
  free(s->order), free(s->queue), free(s->running), free(s->net);
  free(s->pu_tmp), free(s->pu_cnt);
  s->pu_tmp = NULL, s->pu_cnt = NULL, s->cap_pu_tmp = s->cap_pu_cnt = 0;
  nsi_sim_heap_free(&s->heap);
  s->order = s->queue = s->running = s->net = NULL;
  s->nnet = s->cap_net = 0;
  s->nqueue = s->cap_queue = s->nrunning = s->cap_running = 0;
  nsi_sim_net_free(s);
}

/* Call after a commit (+1) or a release (-1): a GPU turns busy when its
   first job arrives and idle when its last leaves (GPU sharing). */
static void server_delta(ns_sim *s, const ns_placement *p, int sign) {
  int gps = s->o.gpus_per_server;
  for (size_t i = 0; i < p->ngpus; i++) {
    int g = p->gpus[i], sv = g / gps;
    if (ns_cluster_gpu_job_count(s->cluster, g) != (sign > 0 ? 1 : 0))
      continue; /* still shared: no change of busy/idle */
    int before = s->srv_busy[sv];
    s->srv_busy[sv] += sign;
    if (before == 0 && sign > 0)
      s->used_servers++, s->idle_on_used += gps;
    s->idle_on_used -= sign;
    if (s->srv_busy[sv] == 0 && sign < 0)
      s->used_servers--, s->idle_on_used -= gps;
  }
}

static int start_job(ns_sim *s, int ji) {
  nsi_simjob *j = &s->jobs[ji];
  int rc = ns_cluster_commit(s->cluster, j->job, s->pl);
  if (rc < 0)
    return nsi_fail(rc, "ns_sim_run: policy '%s' proposed a placement for '%s' that does not "
                        "commit: %s", ns_sim_opts_policy_name(&s->o), j->name, ns_last_error());
  free(j->links);
  j->links = NULL;
  NSI_TRY(nsi_sim_job_links(s, j, s->pl, &j->links, &j->nlinks));
  j->servers = (int)j->nsrv;
  free(j->gpu);
  j->gpu = malloc(s->pl->ngpus * sizeof *j->gpu);
  if (j->gpu == NULL)
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
  memcpy(j->gpu, s->pl->gpus, s->pl->ngpus * sizeof *j->gpu);
  j->ngpu = s->pl->ngpus;
  j->state = NSI_RUNNING;
  j->last_start = s->now;
  j->att_at = s->now;
  if (j->resumed) /* preempted before: the network model resumes its progress */
    j->susp_ms += s->now - j->susp_at;
  else
    j->start_ms = s->now;
  server_delta(s, s->pl, +1);
  s->alloc_gpus += (int)s->pl->ngpus;
  NSI_TRY(nsi_reserve(&s->running, &s->cap_running, s->nrunning + 1, sizeof *s->running));
  NSI_TRY(nsi_reserve(&s->net, &s->cap_net, s->nrunning + 1, sizeof *s->net));
  s->running[s->nrunning++] = ji;
  return s->net_model->start(s, j);
}

/* Releases a running job's GPUs; the network model's stop() brings its
   progress up to now and keeps it (a suspended job resumes from it). */
static int release_job(ns_sim *s, int ji) {
  nsi_simjob *j = &s->jobs[ji];
  s->net_model->stop(s, j);
  NSI_TRY(ns_cluster_job_placement(s->cluster, j->job, s->pl));
  NSI_TRY(ns_cluster_release(s->cluster, j->job));
  server_delta(s, s->pl, -1);
  s->alloc_gpus -= (int)s->pl->ngpus;
  for (size_t r = 0; r < s->nrunning; r++)
    if (s->running[r] == ji) {
      s->running[r] = s->running[--s->nrunning];
      break;
    }
  return NS_OK;
}

/* Preemption: the job keeps its iterations done and its measured Nw_sens,
   and waits again (Dally's starvation counts from now). */
static int suspend_job(ns_sim *s, int ji) {
  nsi_simjob *j = &s->jobs[ji];
  j->nw_sens = nsi_sim_nw_sens(s, j); /* measured while it still runs */
  NSI_TRY(release_job(s, ji)); /* the network model brings its progress up to now */
  j->state = NSI_QUEUED;
  j->ver++; /* its completion event is stale */
  j->preemptions++;
  j->resumed = 1;
  j->susp_at = s->now;
  j->wait_from = s->now;
  return NS_OK;
}

static int finish_job(ns_sim *s, int ji) {
  nsi_simjob *j = &s->jobs[ji];
  j->nw_sens = nsi_sim_nw_sens(s, j); /* its whole run: ns_sim_job_nw_sens */
  NSI_TRY(release_job(s, ji));
  j->state = NSI_DONE;
  j->finish_ms = s->now;
  if (s->hooks.cassini_finished != NULL) /* before its handle is freed */
    s->hooks.cassini_finished(s, j);
  ns_job_free(j->job);
  j->job = NULL;
  return NS_OK;
}

/* ---- the queue ------------------------------------------------------------ */

static int queue_before(const ns_sim *s, int a, int b) {
  const nsi_simjob *x = &s->jobs[a], *y = &s->jobs[b];
  if (x->key != y->key)
    return x->key < y->key;
  if (x->arrival_ms != y->arrival_ms)
    return x->arrival_ms < y->arrival_ms;
  return a < b;
}

/* The job's ns_job: what policies see (phases for CASSINI: compute, then
   the all-reduce at the flow rate). */
static int make_job(ns_sim *s, nsi_simjob *j) {
  ns_job *job = ns_job_new(j->name, j->gpus);
  if (job == NULL)
    return nsi_fail(NS_ENOMEM, "ns_sim_run: cannot create job '%s': %s", j->name, ns_last_error());
  double t = nsi_sim_comm_alone_ms(s, j, 1);
  int rc = ns_job_set_compute_ms(job, j->compute_ms / 3.0, j->compute_ms * 2.0 / 3.0);
  if (rc == NS_OK)
    rc = ns_job_set_model_bytes(job, j->model_bytes);
  if (rc == NS_OK && nsi_sim_job_allreduce(s, j) == NS_SIM_ALLREDUCE_HD)
    rc = ns_job_set_collective(job, NS_COLL_HALVING_DOUBLING); /* Titan, vClos plan for it */
  if (rc == NS_OK)
    rc = ns_job_set_iterations(job, j->iterations, 0);
  if (rc == NS_OK)
    rc = ns_job_set_gpu_memory_mb(job, j->mem_mb);
  if (rc == NS_OK)
    rc = ns_job_set_iteration_ms(job, j->compute_ms + t);
  if (rc == NS_OK)
    rc = ns_job_add_phase(job, j->compute_ms, 0.0);
  if (rc == NS_OK && t > 0)
    rc = ns_job_add_phase(job, t, nsi_sim_nic_gbps(&s->o));
  if (rc < 0) {
    ns_job_free(job);
    return rc;
  }
  j->job = job;
  return NS_OK;
}

/* Puts a queued job in the queue at its key (new, or suspended by Dally). */
static int insert_queue(ns_sim *s, int ji) {
  nsi_simjob *j = &s->jobs[ji];
  j->key = s->hooks.order(s, j);
  NSI_TRY(nsi_reserve(&s->queue, &s->cap_queue, s->nqueue + 1, sizeof *s->queue));
  size_t lo = 0, hi = s->nqueue; /* binary search: keys are fixed while queued */
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (queue_before(s, s->queue[mid], ji))
      lo = mid + 1;
    else
      hi = mid;
  }
  memmove(s->queue + lo + 1, s->queue + lo, (s->nqueue - lo) * sizeof *s->queue);
  s->queue[lo] = ji;
  s->nqueue++;
  return NS_OK;
}

static int enqueue(ns_sim *s, int ji) {
  nsi_simjob *j = &s->jobs[ji];
  NSI_TRY(make_job(s, j));
  j->state = NSI_QUEUED;
  j->nw_sens = nsi_sim_nw_sens(s, j); /* never ran: the initial estimate (policy.c) */
  return insert_queue(s, ji);
}

static void unqueue(ns_sim *s, int ji) { nsi_remove_int(s->queue, &s->nqueue, ji); }

/* Dally's network-sensitive preemption after a pass (lease 0): the
   policy's preempt hook names a waiting job, and in s->pd the running jobs
   to suspend for it and the placement it accepted with them released
   (ns_policy_preempt); the engine suspends them (they wait again at their
   measured Nw_sens) and starts the waiter. Repeats until the hook names no
   one (the policy's offers per event time bound the repeats). */
static int preempt_pass(ns_sim *s, int *changed) {
  for (;;) {
    int w = -1, ji = -1;
    NSI_TRY(s->hooks.preempt(s, &w));
    if (w < 0)
      return NS_OK;
    unqueue(s, w);
    for (size_t v = 0; v < ns_decision_suspend_count(s->pd); v++) {
      int x = s->pids[ns_decision_suspend_job(s->pd, v)];
      NSI_TRY(suspend_job(s, x));
      NSI_TRY(insert_queue(s, x));
    }
    NSI_TRY(nsi_sim_take_start(s, 0, &ji)); /* s->pl: its placement (release_job used s->pl) */
    NSI_TRY(start_job(s, w));
    *changed = 1;
  }
}

/* ns_sim_cancel stopped the run: ns_sim_run discards its state (a failed
   run keeps no results) and the simulator can run again. */
static int cancelled(const ns_sim *s) {
  return nsi_fail(NS_ECANCELED, "ns_sim_run: cancelled (ns_sim_cancel) at %.3f s of simulated "
                                "time; no results kept", s->now / 1e3);
}

/* Offers the free GPUs to queued jobs in order; with backfilling a job
   that cannot be placed lets later ones try, without it the pass stops
   there (strict order, head-of-line blocking). */
static int schedule(ns_sim *s, int *changed) {
  int free_gpus = ns_cluster_free_gpu_count(s->cluster);
  size_t w = 0, i = 0;
  for (; i < s->nqueue; i++) {
    if (nsi_sim_cancelled(s)) /* a long queue of slow placements: stop within one */
      return cancelled(s);
    int ji = s->queue[i];
    int placed = 0;
    /* cheap filter; with GPU sharing, busy GPUs may still host the job */
    if (s->o.gpu_sharing || (free_gpus > 0 && s->jobs[ji].gpus <= free_gpus))
      NSI_TRY(nsi_sim_place(s, ji, &placed));
    if (placed > 0) {
      NSI_TRY(start_job(s, ji));
      free_gpus = ns_cluster_free_gpu_count(s->cluster);
      *changed = 1;
    } else if (placed < 0) {
      s->jobs[ji].state = NSI_REJECTED; /* stays unfinished, leaves the queue */
      s->rejected++;
    } else {
      s->queue[w++] = ji;
      if (!nsi_backfill(&s->o))
        break;
    }
  }
  if (i < s->nqueue) { /* stopped at a blocked head: keep the rest in order */
    i++;
    memmove(s->queue + w, s->queue + i, (s->nqueue - i) * sizeof *s->queue);
    w += s->nqueue - i;
  }
  s->nqueue = w;
  if (s->hooks.preempt != NULL && s->nqueue > 0)
    NSI_TRY(preempt_pass(s, changed));
  return NS_OK;
}

/* Preemptive orders and Dally's lease reading: the policy decides over
   every waiting and running job (who holds GPUs: Tiresias's queues,
   src/policy/las.c; Dally's re-offer at lease expiry, src/policy/policy.c),
   the engine suspends (back to the queue) and starts as decided, in the
   decision's order (a job both suspended and started moves: it pays the
   restore overhead); a wake-up is pushed for the decision's next_ms (the
   next demotion/promotion check, Dally's next lease end or timer; only the
   latest counts). Preemptive orders: attained service is counted here, at
   each pass (the points at which the Tiresias simulator counts it). Dally:
   a job its placement can never host leaves the queue (as in schedule). */
static int schedule_decided(ns_sim *s, int *changed) {
  int las = nsi_sim_preemptive(&s->o);
  for (size_t r = 0; r < s->nrunning && las; r++) {
    nsi_simjob *j = &s->jobs[s->running[r]];
    j->att_ms += s->now - j->att_at;
    j->att_at = s->now;
  }
  size_t nwait = s->nqueue; /* queue indices 0..nwait: the waiting jobs */
  NSI_TRY(nsi_sim_decide(s));
  for (size_t i = 0; i < nwait && !las; i++)
    if (ns_decision_status(s->pd, i) == NS_EINVAL) {
      unqueue(s, s->pids[i]);
      s->jobs[s->pids[i]].state = NSI_REJECTED; /* stays unfinished, leaves the queue */
      s->rejected++;
    }
  for (size_t k = 0; k < ns_decision_suspend_count(s->pd); k++) {
    int ji = s->pids[ns_decision_suspend_job(s->pd, k)];
    NSI_TRY(suspend_job(s, ji));
    NSI_TRY(insert_queue(s, ji));
    *changed = 1;
  }
  for (size_t k = 0; k < ns_decision_start_count(s->pd); k++) {
    int ji = -1;
    NSI_TRY(nsi_sim_take_start(s, k, &ji));
    unqueue(s, ji);
    NSI_TRY(start_job(s, ji));
    *changed = 1;
  }
  double t = ns_decision_next_ms(s->pd);
  s->wake_ver++; /* earlier wake-ups are stale */
  if (isfinite(t) && t > s->now)
    NSI_TRY(nsi_sim_heap_push(&s->heap, t, NSI_DECIDE_WAKE, s->wake_ver));
  return NS_OK;
}

/* ---- the run ---------------------------------------------------------------- */

typedef struct nsi_arrival {
  double t;
  int job;
} nsi_arrival;

static int by_arrival(const void *a, const void *b) {
  const nsi_arrival *x = a, *y = b;
  if (x->t != y->t)
    return x->t < y->t ? -1 : 1;
  return (x->job > y->job) - (x->job < y->job);
}

/* Fresh cluster, queues and integrals for a run. */
static int setup_run(ns_sim *s) {
  nsi_sim_reset(s);
  const ns_sim_opts *o = &s->o;
  s->cluster = ns_cluster_new_leaf_spine(o->leaves, o->spines, o->servers_per_leaf,
                                         o->gpus_per_server, o->links_per_pair, o->link_gbps);
  if (s->cluster != NULL && o->gpu_sharing)
    NSI_TRY(ns_cluster_set_gpu_sharing(s->cluster, 1));
  if (s->cluster != NULL && o->gpu_mem_mb > 0 && ns_cluster_set_gpu_memory_mb(s->cluster, o->gpu_mem_mb) < 0)
    return nsi_fail(NS_EINVAL, "ns_sim_run: GPU memory: %s", ns_last_error());
  s->pl = ns_placement_new();
  s->scratch = ns_placement_new();
  s->order = malloc(s->njobs * sizeof *s->order);
  if (s->cluster == NULL || s->pl == NULL || s->scratch == NULL || s->order == NULL)
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory setting up the run");
  NSI_TRY(nsi_sim_heap_init(&s->heap, s->njobs));
  NSI_TRY(nsi_sim_net_init(s));
  static const nsi_netmodel *const models[] = {
      [NS_SIM_NET_MAXMIN] = &nsi_sim_net_maxmin, [NS_SIM_NET_CONTENTION] = &nsi_sim_net_contention,
      [NS_SIM_NET_PHASE] = &nsi_sim_net_phase, [NS_SIM_NET_IDEAL] = &nsi_sim_net_ideal};
  s->net_model = models[o->network];
  nsi_arrival *arr = malloc(s->njobs * sizeof *arr);
  if (arr == NULL)
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
  for (size_t i = 0; i < s->njobs; i++) {
    nsi_simjob *j = &s->jobs[i];
    arr[i].t = j->arrival_ms, arr[i].job = (int)i;
    j->state = NSI_WAITING, j->job = NULL;
    j->start_ms = j->finish_ms = NAN;
    j->servers = 0, j->mode = NSI_COLLIDE, j->paused_until = 0, j->wake_ms = -1;
    j->rate = 0, j->ver = 0, j->shift_pending = 0, j->shift_ms = 0, j->group = -1;
    j->hold_until = 0, j->it_left = j->iterations;
    j->preemptions = j->resumed = 0, j->att_ms = 0, j->att_at = 0;
    j->susp_at = j->susp_ms = 0;
    j->nw_sens = NAN, j->run_acc = j->run_from = 0;
    j->wait_from = j->arrival_ms, j->last_start = -INFINITY;
  }
  qsort(arr, s->njobs, sizeof *arr, by_arrival);
  for (size_t i = 0; i < s->njobs; i++)
    s->order[i] = arr[i].job;
  free(arr);
  s->frag_int = s->frag_time = s->alloc_int = 0;
  s->machines_int = 0;
  s->arrival_machines = 0, s->arrival_samples = s->arrival_pending = 0;
  s->alloc_gpus = s->used_servers = s->idle_on_used = 0;
  s->now = 0;
  s->lwf_refreshed = -1;
  s->net_dirty = 0;
  s->rejected = 0;
  s->wake_ver = 0;
  return nsi_sim_policy_prepare(s);
}

/* Handles every event at time s->now; *changed if the running set moved. */
static int handle_event(ns_sim *s, const nsi_event *e, size_t *done, int *changed, int *offer) {
  if (e->job == NSI_DECIDE_WAKE) { /* only the latest demotion/promotion wake-up counts */
    *offer |= e->ver == s->wake_ver;
    return NS_OK;
  }
  if (e->job < 0) {
    *offer = 1; /* wake-up: just rerun the scheduling pass */
    return NS_OK;
  }
  nsi_simjob *j = &s->jobs[e->job];
  if (j->state != NSI_RUNNING || e->ver != j->ver)
    return NS_OK; /* stale */
  int finished = 0;
  NSI_TRY(s->net_model->event(s, j, &finished));
  if (!finished)
    return NS_OK;
  NSI_TRY(finish_job(s, e->job));
  (*done)++;
  *changed = *offer = 1;
  return NS_OK;
}

static void report(ns_sim *s, size_t done, size_t *next_report) {
  if (s->progress && done >= *next_report) {
    s->progress(done, s->njobs, s->progress_user);
    *next_report = done + (s->njobs / 200 > 0 ? s->njobs / 200 : 1);
  }
}

/* A scheduling pass: the engine's own walk of the queue (one job asked at a
   time), or one decision of the policy over every job. */
static int (*const passes[])(ns_sim *, int *) = {schedule, schedule_decided};

static int loop(ns_sim *s) {
  size_t next_arrival = 0, done = 0, next_report = 0;
  int carry = 0; /* a preemptive pass put off to the next event time */
  for (;;) {
    if (nsi_sim_cancelled(s))
      return cancelled(s);
    double ta = next_arrival < s->njobs ? s->jobs[s->order[next_arrival]].arrival_ms : INFINITY;
    double te = s->heap.n > 0 ? s->heap.ev[0].t : INFINITY;
    double t = ta < te ? ta : te;
    if (!isfinite(t))
      break; /* nothing can happen any more */
    integrate(s, t);
    s->now = t;
    int changed = 0, offer = carry; /* offer: GPUs freed or jobs queued (a phase event is neither) */
    carry = 0;
    while (next_arrival < s->njobs && s->jobs[s->order[next_arrival]].arrival_ms <= t) {
      NSI_TRY(enqueue(s, s->order[next_arrival++]));
      s->arrival_pending++;
      offer = 1;
    }
    nsi_event e;
    while (s->heap.n > 0 && s->heap.ev[0].t <= t && nsi_sim_heap_pop(&s->heap, &e))
      NSI_TRY(handle_event(s, &e, &done, &changed, &offer));
    /* Preemptive orders decide at arrivals, finishes and their own latest
       wake-up (the Tiresias simulator's events), and their pass is put off
       while an event lies within rounding of t (a finish computed as
       start + work / rate lands a few ulps late): it runs once that event
       has been handled, so a job ending now is not preempted. */
    int las = nsi_sim_preemptive(&s->o);
    if (offer && las && s->heap.n > 0 && s->heap.ev[0].t <= t + 1e-12 * t + 1e-9)
      carry = 1;
    else if (offer)
      NSI_TRY(passes[las || nsi_sim_leasing(&s->o)](s, &changed));
    if (!carry)
      sample_arrivals(s);
    if (changed || s->net_dirty) /* a model may ask for an update itself (net_phase.c) */
      NSI_TRY(s->net_model->update(s));
    report(s, done, &next_report);
  }
  sample_arrivals(s); /* none left in practice: a put-off pass has an event after it */
  if (s->progress)
    s->progress(done, s->njobs, s->progress_user);
  return NS_OK;
}

int ns_sim_run(ns_sim *s) {
  NSI_TRY(nsi_sim_enter(s, "ns_sim_run", NSI_SIM_WRITE));
  if (s->njobs == 0) {
    nsi_sim_leave(s, NSI_SIM_WRITE);
    return nsi_fail(NS_EINVAL, "ns_sim_run: s has no jobs (add some or load a workload)");
  }
  s->ran = 0;
  /* From here ns_sim_cancel may ask this run to stop (until leave). */
  atomic_fetch_or(&s->guard, (unsigned)NSI_SIM_RUNNING);
  int rc = setup_run(s);
  if (rc == NS_OK)
    rc = loop(s);
  if (rc == NS_OK)
    rc = nsi_sim_compute_metrics(s);
  /* Free the policy state and handles now; results stay in s->jobs. */
  nsi_sim_reset(s);
  if (rc == NS_OK)
    s->ran = 1;
  nsi_sim_leave(s, NSI_SIM_WRITE); /* a cancel the run did not see is dropped with it */
  return rc;
}

int ns_sim_cancel(ns_sim *s) {
  if (s == NULL)
    return NS_EINVAL; /* no message: recording one is not async-signal-safe */
  /* One lock-free compare-and-swap loop on the guard, nothing else: safe
     from a signal handler and from any thread. */
  unsigned v = atomic_load(&s->guard);
  while ((v & NSI_SIM_RUNNING) && !(v & NSI_SIM_CANCEL) &&
         !atomic_compare_exchange_weak(&s->guard, &v, v | NSI_SIM_CANCEL)) {
  }
  return NS_OK;
}

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "ns_sim_cancel needs a lock-free atomic_uint");
