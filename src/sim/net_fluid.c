/*
 * src/sim/net_fluid.c - the fluid network models, NS_SIM_NET_MAXMIN and
 * NS_SIM_NET_CONTENTION (sim.h): a running job progresses at 1 / iteration
 * ms; iteration times are recomputed only when the set of running
 * multi-server jobs (or a time-shift) changes. A colliding job counts with
 * weight 1 on its links, a coordinated one with its duty cycle.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_internal.h"

/* Brings j->rem up to s->now. */
static void advance(ns_sim *s, nsi_simjob *j) {
  double from = j->t_upd > j->paused_until ? j->t_upd : j->paused_until;
  if (s->now > from && j->rate > 0) {
    j->rem -= j->rate * (s->now - from);
    if (j->rem < 0)
      j->rem = 0;
  }
  j->t_upd = s->now;
}

static double finish_time(const ns_sim *s, const nsi_simjob *j) {
  double from = s->now > j->paused_until ? s->now : j->paused_until;
  return from + j->rem / j->rate;
}

static double eq5_b(const ns_sim_opts *o) { return nsi_sim_eq5_b(o); }
static double eq5_eta(const ns_sim_opts *o) { return nsi_sim_eq5_eta(o); }

/* Alone communication time of a multi-server job under the active model. */
static double comm_t1(const ns_sim *s, const nsi_simjob *j) {
  if (s->o.network == NS_SIM_NET_CONTENTION)
    return ns_comm_time_ms(s->o.eq5_a, eq5_b(&s->o), eq5_eta(&s->o), 1, j->model_bytes);
  return j->comm_alone_ms;
}

static double duty(const ns_sim *s, const nsi_simjob *j) {
  double t = comm_t1(s, j);
  return t / (j->compute_ms + t);
}

static int is_net(const nsi_simjob *j) { return j->nsrv >= 2; }

/* Per-link job counts (distinct jobs) and the SRSF(n) admission modes. */
static void count_links(ns_sim *s) {
  for (size_t r = 0; r < s->nnet; r++) {
    nsi_simjob *j = &s->jobs[s->net[r]];
    for (size_t i = 0; i < j->nlinks; i++)
      s->cnt[j->links[i]] = 0;
  }
  for (size_t r = 0; r < s->nnet; r++) {
    nsi_simjob *j = &s->jobs[s->net[r]];
    for (size_t i = 0; i < j->nlinks; i++)
      if (i == 0 || j->links[i] != j->links[i - 1]) /* links are sorted */
        s->cnt[j->links[i]]++;
  }
  for (size_t r = 0; r < s->nnet; r++) {
    nsi_simjob *j = &s->jobs[s->net[r]];
    int worst = 0;
    for (size_t i = 0; i < j->nlinks; i++) {
      int c = s->cnt[j->links[i]];
      worst = c > worst ? c : worst;
      if (c >= 2)
        s->shared_ever[j->links[i]] = 1;
    }
    if (is_net(j) && j->mode != NSI_SHIFTED && nsi_admission(&s->o) == NS_SIM_ADMIT_SRSF)
      j->mode = worst <= nsi_admit_n(&s->o) ? NSI_COLLIDE : NSI_SERIAL; /* at most n per link */
  }
}

static double weight(const ns_sim *s, const nsi_simjob *j) {
  return j->mode == NSI_COLLIDE ? 1.0 : duty(s, j);
}

/* Progressive filling: every unfrozen job's flow rate rises together until a
   link saturates or the job reaches its demand d (max-min fairness). The
   job's rate is stored in j->iter_ms temporarily. */
static void maxmin(ns_sim *s, double d) {
  size_t left = 0;
  for (size_t r = 0; r < s->nnet; r++) {
    nsi_simjob *j = &s->jobs[s->net[r]];
    j->iter_ms = is_net(j) ? -1.0 : 0.0; /* -1 = unfrozen */
    left += is_net(j);
    for (size_t i = 0; i < j->nlinks; i++)
      s->fuse[j->links[i]] = 0.0;
  }
  while (left > 0) {
    for (size_t r = 0; r < s->nnet; r++) {
      nsi_simjob *j = &s->jobs[s->net[r]];
      for (size_t i = 0; i < j->nlinks; i++)
        s->load[j->links[i]] = 0.0;
    }
    for (size_t r = 0; r < s->nnet; r++) {
      nsi_simjob *j = &s->jobs[s->net[r]];
      if (j->iter_ms < 0)
        for (size_t i = 0; i < j->nlinks; i++)
          s->load[j->links[i]] += weight(s, j);
    }
    double level = d;
    for (size_t r = 0; r < s->nnet; r++) {
      nsi_simjob *j = &s->jobs[s->net[r]];
      if (j->iter_ms < 0)
        for (size_t i = 0; i < j->nlinks; i++) {
          int l = j->links[i];
          double lv = (s->cap[l] - s->fuse[l]) / s->load[l];
          level = lv < level ? lv : level;
        }
    }
    if (level < 1e-12)
      level = 1e-12;
    for (size_t r = 0; r < s->nnet; r++) {
      nsi_simjob *j = &s->jobs[s->net[r]];
      if (j->iter_ms >= 0)
        continue;
      int sat = level >= d * (1 - 1e-12);
      for (size_t i = 0; i < j->nlinks && !sat; i++) {
        int l = j->links[i];
        sat = (s->cap[l] - s->fuse[l]) / s->load[l] <= level * (1 + 1e-9);
      }
      if (sat)
        j->iter_ms = level, left--;
    }
    for (size_t r = 0; r < s->nnet; r++) { /* frozen use, recomputed */
      nsi_simjob *j = &s->jobs[s->net[r]];
      for (size_t i = 0; i < j->nlinks; i++)
        s->fuse[j->links[i]] = 0.0;
    }
    for (size_t r = 0; r < s->nnet; r++) {
      nsi_simjob *j = &s->jobs[s->net[r]];
      if (j->iter_ms > 0)
        for (size_t i = 0; i < j->nlinks; i++)
          s->fuse[j->links[i]] += weight(s, j) * j->iter_ms;
    }
  }
}

/* Expected wait of a serialised job: half the other serialised jobs'
   transfers weighted by their duty cycles, on its busiest link. */
static void serial_sums(ns_sim *s) {
  for (size_t r = 0; r < s->nnet; r++) {
    nsi_simjob *j = &s->jobs[s->net[r]];
    for (size_t i = 0; i < j->nlinks; i++)
      s->sum[j->links[i]] = 0.0;
  }
  for (size_t r = 0; r < s->nnet; r++) {
    nsi_simjob *j = &s->jobs[s->net[r]];
    if (j->mode != NSI_SERIAL)
      continue;
    for (size_t i = 0; i < j->nlinks; i++)
      if (i == 0 || j->links[i] != j->links[i - 1])
        s->sum[j->links[i]] += duty(s, j) * comm_t1(s, j);
  }
}

static double serial_wait(const ns_sim *s, const nsi_simjob *j) {
  if (j->mode != NSI_SERIAL)
    return 0.0;
  double own = duty(s, j) * comm_t1(s, j), w = 0.0;
  for (size_t i = 0; i < j->nlinks; i++) {
    double v = s->sum[j->links[i]] - own;
    w = v > w ? v : w;
  }
  return 0.5 * w;
}

/* Eq. 5: k = colliding multi-server jobs on the job's busiest NIC port
   (its busiest server with one NIC per server). */
static double eq5_comm(ns_sim *s, const nsi_simjob *j) {
  int S = s->nports;
  int k = 1;
  double u = 0.0;
  for (size_t i = 0; i < j->nlinks; i++) {
    int l = j->links[i];
    if (l >= S)
      continue; /* NIC tx links stand for the ports (servers) */
    k = (int)s->load[l] > k ? (int)s->load[l] : k;
    u = s->fuse[l] > u ? s->fuse[l] : u;
  }
  if (j->mode != NSI_COLLIDE)
    k = 1;
  double t = ns_comm_time_ms(s->o.eq5_a, eq5_b(&s->o), eq5_eta(&s->o), k, j->model_bytes);
  if (j->mode == NSI_SHIFTED && u > 1.0)
    t *= u; /* interleaved phases saturate the NIC */
  return t;
}

static void eq5_loads(ns_sim *s) {
  for (size_t r = 0; r < s->nnet; r++) {
    nsi_simjob *j = &s->jobs[s->net[r]];
    for (size_t i = 0; i < j->nlinks; i++)
      s->load[j->links[i]] = 0.0, s->fuse[j->links[i]] = 0.0;
  }
  int S = s->nports;
  for (size_t r = 0; r < s->nnet; r++) {
    nsi_simjob *j = &s->jobs[s->net[r]];
    for (size_t i = 0; i < j->nlinks; i++)
      if (j->links[i] < S) {
        if (j->mode == NSI_COLLIDE)
          s->load[j->links[i]] += 1.0;
        else
          s->fuse[j->links[i]] += duty(s, j);
      }
  }
}

static double iter_alone(const nsi_simjob *j) { return j->compute_ms * j->slow + j->comm_alone_ms; }

/* Recomputes iteration times. Single-server jobs use no network link, so
   their iteration never changes; the network model is solved again only
   when the set of multi-server jobs (or a time-shift) changed. */
/* GPU sharing: jobs on one GPU take turns, so a job computes at the pace
   of its most shared GPU (synchronous data parallelism). */
static double share_factor(const ns_sim *s, const nsi_simjob *j) {
  if (!s->o.gpu_sharing)
    return 1.0;
  int worst = 1;
  for (size_t i = 0; i < j->ngpu; i++) {
    int n = ns_cluster_gpu_job_count(s->cluster, j->gpu[i]);
    worst = n > worst ? n : worst;
  }
  return (double)worst;
}

static int fluid_iter_times(ns_sim *s) {
  if (!s->net_dirty) { /* only single-server arrivals: their own time */
    for (size_t r = 0; r < s->nrunning; r++) {
      nsi_simjob *j = &s->jobs[s->running[r]];
      if (j->ver == 0)
        j->iter_ms = iter_alone(j);
    }
    return NS_OK;
  }
  s->nnet = 0;
  for (size_t r = 0; r < s->nrunning; r++) {
    nsi_simjob *j = &s->jobs[s->running[r]];
    j->slow = share_factor(s, j);
    if (is_net(j))
      s->net[s->nnet++] = s->running[r];
    else
      j->iter_ms = iter_alone(j);
  }
  s->net_dirty = 0;
  count_links(s);
  serial_sums(s);
  double d = nsi_sim_nic_gbps(&s->o);
  if (s->o.network == NS_SIM_NET_CONTENTION)
    eq5_loads(s);
  else
    maxmin(s, d);
  for (size_t r = 0; r < s->nnet; r++) {
    nsi_simjob *j = &s->jobs[s->net[r]];
    double comm = s->o.network == NS_SIM_NET_CONTENTION ? eq5_comm(s, j)
                                                        : j->comm_alone_ms * d / j->iter_ms;
    if (!isfinite(comm) || comm < 0)
      return nsi_fail(NS_EUNSUPPORTED, "ns_sim_run: the contention model (ns_comm_time_ms) is "
                                       "unavailable: %s", ns_last_error());
    j->iter_ms = j->compute_ms * j->slow + comm + serial_wait(s, j);
  }
  return NS_OK;
}

/* Rates from the iteration times; pushes completion events that changed. */
static int fluid_update(ns_sim *s) {
  for (size_t r = 0; r < s->nrunning; r++) { /* CASSINI's time-shifts of running jobs */
    nsi_simjob *j = &s->jobs[s->running[r]];
    if (!j->shift_pending)
      continue;
    j->shift_pending = 0;
    if (j->mode != NSI_SHIFTED) { /* first coordination: shift once */
      advance(s, j);
      j->paused_until = s->now + j->shift_ms;
      j->mode = NSI_SHIFTED;
      j->rate = -1.0; /* its completion moves: a new event below */
    }
  }
  NSI_TRY(fluid_iter_times(s));
  for (size_t r = 0; r < s->nrunning; r++) {
    nsi_simjob *j = &s->jobs[s->running[r]];
    double rate = 1.0 / j->iter_ms;
    if (rate == j->rate && j->ver > 0)
      continue;
    advance(s, j);
    j->rate = rate;
    j->ver++;
    NSI_TRY(nsi_sim_heap_push(&s->heap, finish_time(s, j), (int)(j - s->jobs), j->ver));
  }
  return NS_OK;
}

/* AdaDUAL Algorithm 2 once, when the job starts (sim.h): per server, the
   multi-server jobs there and, for a single one, M / 2 as its expected
   remaining bytes. */
static int adadual_mode(ns_sim *s, nsi_simjob *j) {
  int *tasks = calloc(j->nsrv, sizeof *tasks);
  uint64_t *rem = calloc(j->nsrv, sizeof *rem);
  if (tasks == NULL || rem == NULL) {
    free(tasks), free(rem);
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
  }
  for (size_t r = 0; r < s->nrunning; r++) {
    const nsi_simjob *k = &s->jobs[s->running[r]];
    if (k == j || k->nsrv < 2)
      continue;
    for (size_t a = 0; a < j->nsrv; a++)
      for (size_t b = 0; b < k->nsrv; b++)
        if (j->srv[a] == k->srv[b]) {
          tasks[a]++;
          rem[a] = k->model_bytes / 2; /* expected remainder of an in-flight all-reduce */
        }
  }
  int start = 0;
  int rc = ns_policy_admit(s->policy, j->model_bytes, NULL, 0, tasks, rem, j->nsrv,
                           eq5_b(&s->o), eq5_eta(&s->o), &start);
  free(tasks), free(rem);
  if (rc < 0)
    return rc == NS_EUNSUPPORTED ? nsi_fail(rc, "ns_sim_run: policy '%s' unavailable: "
                                                "ns_adadual_decide (%s)",
                                            ns_sim_opts_policy_name(&s->o), ns_last_error())
                                 : rc;
  return start ? NSI_COLLIDE : NSI_SERIAL;
}

static int fluid_start(ns_sim *s, nsi_simjob *j) {
  j->slow = 1.0;
  j->comm_alone_ms = nsi_sim_comm_alone_ms(s, j, j->nsrv >= 2);
  j->mode = NSI_COLLIDE;
  if (j->shift_pending) { /* CASSINI: starts after its shift, coordinated */
    j->shift_pending = 0;
    j->mode = NSI_SHIFTED;
    j->paused_until = s->now + j->shift_ms;
  } else if (j->nsrv >= 2 && nsi_admission(&s->o) == NS_SIM_ADMIT_ADADUAL) {
    int mode = adadual_mode(s, j);
    NSI_TRY(mode);
    j->mode = mode;
  }
  j->t_upd = s->now;
  if (j->paused_until < s->now)
    j->paused_until = s->now;
  if (j->resumed) { /* preempted: iterations left kept, restore first */
    if (j->paused_until < s->now + s->o.restore_ms)
      j->paused_until = s->now + s->o.restore_ms;
  } else {
    j->rem = (double)j->iterations;
    j->ver = 0;
  }
  j->rate = 0.0;
  j->run_from = j->paused_until; /* measured(): after the restore (or a time-shift) */
  if (j->nsrv >= 2 || s->o.gpu_sharing)
    s->net_dirty = 1;
  return NS_OK;
}

static int fluid_event(ns_sim *s, nsi_simjob *j, int *finished) {
  advance(s, j);
  double ft = finish_time(s, j);
  if (j->rem > 1e-9 * (double)j->iterations && ft > s->now) /* work left: not yet */
    return nsi_sim_heap_push(&s->heap, ft, (int)(j - s->jobs), j->ver);
  *finished = 1;
  return NS_OK;
}

static void fluid_stop(ns_sim *s, nsi_simjob *j) {
  advance(s, j);
  if (s->now > j->run_from)
    j->run_acc += s->now - j->run_from;
  j->run_from = s->now;
  if (j->nsrv >= 2 || s->o.gpu_sharing)
    s->net_dirty = 1; /* its links (GPUs) free up */
}

static double fluid_remaining(ns_sim *s, nsi_simjob *j) {
  advance(s, j);
  return j->rem;
}

/* Dally's measure: the fluid rate's iterations done and the ms run (a job
   progresses at 1 / its current iteration time, from its solved share). */
static void fluid_measured(ns_sim *s, nsi_simjob *j, double *done, double *run_ms) {
  *done = (double)j->iterations - fluid_remaining(s, j);
  *run_ms = j->run_acc + (s->now > j->run_from ? s->now - j->run_from : 0.0);
}

const nsi_netmodel nsi_sim_net_maxmin = {"maxmin", fluid_start, fluid_update, fluid_event,
                                         fluid_stop, fluid_remaining, fluid_measured};
const nsi_netmodel nsi_sim_net_contention = {"contention", fluid_start, fluid_update, fluid_event,
                                             fluid_stop, fluid_remaining, fluid_measured};
