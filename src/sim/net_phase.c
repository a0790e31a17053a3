/*
 * src/sim/net_phase.c - the phase-level network model, NS_SIM_NET_PHASE
 * (the default; the model is described in sim.h).
 *
 * A running job iterates: compute (forward + backward) then its all-reduce;
 * the next compute starts when the all-reduce ends. The all-reduce is the
 * ring's flows, one aggregate demand over the ring's links with their
 * multiplicity (nsi_sim_job_links); flows of the jobs communicating at the
 * same instant share every link max-min fairly, recomputed at every phase
 * boundary of a job that shares a link.
 *
 * Speed (PHASE.md): only jobs that meet need phase events.
 *  - Groups: running jobs are joined when they share a network link (or,
 *    with GPU sharing, a GPU); a connected component of two or more is a
 *    group, simulated phase by phase with max-min solved over its own
 *    links only. Groups are rebuilt only when a job starts or leaves, and
 *    only components whose membership changed are touched.
 *  - Inside a group, a phase boundary re-solves only the all-reduces
 *    connected to the job that changed, through links in use (max-min is
 *    separable by component), over the group's link -> member lists built
 *    once per membership (maxmin.c), and a memo returns the rates of an
 *    active set solved before (phases repeat: 99 % of the solves of an
 *    exact Philly run); the event heap keeps one entry per job (heap.c).
 *    Both change no result (bit-identical JCTs on the default workload).
 *  - Lone jobs (a component of one: single-server jobs, and multi-server
 *    jobs alone on their links) are analytic: iteration = compute + the
 *    all-reduce alone, two events (start, finish) for the whole run. This
 *    is exactly the fluid model's lone iteration.
 *  - Fast-forward: once every member of a group has completed W + 1
 *    iterations since the group formed (W = ns_sim_opts_set_phase_window,
 *    default 16; 0 = off; a group of n jobs uses max(2, 16 W / n)
 *    iterations, see window()), each member continues as a lone job whose
 *    iteration time is its mean over its last W iterations, until the
 *    group's membership changes again; then phase simulation resumes from
 *    the extrapolated position. Time-shifts applied to a member (CASSINI's,
 *    at a placement or a drift re-adjustment) start the group's window
 *    again (restart_window): they hold the shifted jobs once and move the
 *    relative phases, and a job's re-adjustments thin out over its life
 *    (drift.c), so a mean taken across the early ones extrapolated holds
 *    the exact run no longer makes (test_phase_readjust_window). Error
 *    bound: when the group's relative phases repeat with a cycle that
 *    divides the window (lock-step pairs, CASSINI-interleaved pairs,
 *    SRSF(1) alternation) the mean is exact; in
 *    general a member's extrapolated iteration time differs from its exact
 *    long-run mean by at most (longest - shortest iteration in the
 *    window) / W, so a job's finish time moves by at most that relative
 *    amount of its fast-forwarded span plus one iteration at the hand-over
 *    (test_phase_fast_forward and test_phase_fast_forward_leave check this
 *    against W = 0).
 *  - Partial restarts: in a component of more than NSI_PHASE_EXACT (16)
 *    jobs, a change re-simulates only the affected jobs (affected(): those
 *    on a link where a job started or left since the last update, new or
 *    lone ones, and a part still in its window) as one partial group; the
 *    others stay lone at their window means (bgon) and load each of their
 *    links with their mean throughput, so the partial group's max-min runs
 *    over what is left (capeff; with a contention curve, cap x e(k) less
 *    their load, the kept ones counted in k as the part of their mean
 *    iteration they transfer: bg_caps()). A partial group's member leaves it after
 *    its own window (maybe_detach) and becomes such a kept job. A change
 *    re-simulates at most s->touch_cap of its neighbours (new jobs
 *    and a part still in its window always): those on the most touched
 *    links, counting touches deferred before (stale); the rest keep their
 *    means, are marked stale and get their turn when the partial restart
 *    ends (its last member detaches: net_dirty, the engine updates) or at the next
 *    change. The cap is NSI_PHASE_TOUCHED (32), and
 *    NSI_PHASE_TOUCHED_PREEMPT (8) under a preemptive order (2D-LAS,
 *    2D-Gittins): there a pass changes jobs at almost every event and a
 *    multi-server job's uplinks carry tens of jobs; re-simulating all of
 *    them (~40 per restart on Philly) made 2d-gittins take ~240 s there, 41
 *    s with a cap of 8, 87 s with 16 and 177 s with 32 (bench/RESULTS.md),
 *    while its updates, ~12x as many as a non-preemptive order's (142,793
 *    against 11,651 for ff on the whole trace at 2048 GPUs), also give a
 *    deferred job its turn ~12x sooner. Without preemption the cap of 8
 *    left deferred neighbours at stale means long enough to move p95 JCT:
 *    on Philly window 3 (1,000 run-time draws, paired) 32 raises ls's and
 *    ff's p95 by 1.7 % (16: 1.0 / 0.5 %), as much as no partial restarts
 *    at all (1.5 %), bringing it within 3 % of the exact model in
 *    expectation, at x 0.7-2.4 on the whole trace (every such preset at
 *    most 21.5 s; bench/RESULTS.md "Deferred neighbours: a cap of 32";
 *    test_phase_deferred_neighbours bounds the error against W = 0 at
 *    either cap). Rebuilding a
 *    chain of tens of jobs at every arrival or finish was what made
 *    scattering policies on Philly take minutes (bench/RESULTS.md); the
 *    error of the approximation is in sim.h (test_phase_partial_restart).
 *    Rate-touches (rate_touch): a member leaving a partial restart at its
 *    new mean changes its load on its links, and its kept link-mates' means
 *    were taken against the old one, so they become candidates at the next
 *    update that happens anyway (none is forced), ranked after the jobs
 *    touched by a start or leave (they fill the slots those leave of the
 *    8; one deferred does not make the restart's end an update), and a
 *    job re-simulated only for a rate-touch rate-touches no one (depth 1,
 *    no threshold: the same events give the same re-simulations). Before,
 *    a kept job was re-measured only when a job started or left on its own
 *    links, whatever its link-mates' new rates: the kept jobs of Philly
 *    window 2's busy period ran +2.6 % slow on average, a few 9-28 % for
 *    80-415 ks (bench/RESULTS.md "Rate-touched kept means";
 *    test_phase_kept_rate_touch: 5.1 % before, 0.25 % now). What remains:
 *    a kept job still runs at its old mean until that next update, and a
 *    re-simulated job held back by a kept link-mate's stale load (the kept
 *    load is a constant) leaves at the held rate.
 *    Fill: a restart of a changed component (something in it started,
 *    left, was touched or deferred before; not a part merely still in its
 *    window) re-simulates, after the touched jobs, untouched members in
 *    position order until it holds touch_cap jobs. They have no change of
 *    their own behind them, so their new means rate-touch no one (no
 *    cascade). A component of 17-32 jobs (cap 32) thus restarts whole at
 *    every change; a larger one refreshes up to the cap per change. Before,
 *    an untouched member kept its window mean, taken against link-mates
 *    that have since left or changed, for as long as nothing touched its
 *    own links: srsf-ff's and sjf-ff's shortcuts ran Philly window 3's p95
 *    JCT 2.0-2.5 % low against the exact model, as no partial restarts at
 *    all did not (bench/RESULTS.md "The SRSF/SJF p95 lean on w3 is the
 *    partial restarts", "Fill"; measured on the tests: sim.h).
 *
 * Policies enter through the run's hooks (policy.c): admit_comm when a
 * group member's compute ends (SRSF(n), AdaDUAL per all-reduce), and the
 * CASSINI time-shifts recorded at placement. Time-shifts: the running jobs
 * of the winning candidate and the new one align their next compute starts
 * to T0 + shift, T0 = the latest next iteration start among the running
 * ones (their current iteration is not cut). Re-adjustment (CASSINI §4.2,
 * §5.7) is the policy's (src/policy/drift.c): this model reports each job's
 * iteration by its schedule when it starts (compute + lone_comm), the slot
 * T0 + shift it applied, and each all-reduce start (the run's hooks); the
 * policy answers new shifts for the job and its link partners (applied as
 * at a placement; the group's fast-forward window starts again) or, with
 * NS_SIM_DRIFT_WAIT, a hold until its next ideal slot. A fast-forwarded
 * group reports no all-reduce, so it is not re-adjusted until its
 * membership changes.
 * Contention (network-model issue): a link carrying the transfers of k > 1
 * jobs at once delivers capacity x e(k) (maxmin.c, per solve), the curve of
 * ns_sim_opts_set_contention_curve; an admitted all-reduce across servers
 * first spends its start-up latency alpha (NSI_PH_LAT: not shared, counted
 * in flight by admission) and then transfers (NSI_PH_COMM). Waiting
 * all-reduces are admitted each on its own (admit_waiters: no head-of-line
 * blocking), asked again at each all-reduce end of their group - except
 * one refused on a link where nothing has ended since in the same
 * membership (the hook names that link: SRSF(n)'s refusal holds there
 * until one of its n ends), which would be refused again (still_refused;
 * the same JCTs bit for bit, test_admission_skip_matches_asking_all: an
 * exact srsf-1 run on the busy Philly window asked each of the ~18 waiting
 * all-reduces of a ~24-job group at every end, 3/4 of its time).
 * GPU sharing: the compute phases of jobs on one GPU share it (processor
 * sharing, max-min over the GPUs it uses); one job's all-reduce overlaps
 * another's compute.
 *
 * Halving-doubling (ns_sim_opts_set_allreduce, network.c builds the
 * steps): the transfer is a sequence of steps, each a phase over its own
 * links (cur_links); ph_left is the work left in the current step. A step
 * change moves the job to other links, so its group's cache is dropped and
 * the group solved in full. Positions map to the alone frame step by step
 * (comm_done / comm_at).
 * Suspend/resume (issue 15): a job's progress is (iterations left, phase,
 * work left in it); stop() brings it up to now and takes it out of its group,
 * so a later start() can resume it from that state. measured() reports, for
 * Dally's Nw_sens, the iterations done and the ms run (over all placements,
 * the restore overhead excluded): the job's own rate in its placement.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_internal.h"

#define EPS 1e-9


/* A duration too short to move the clock at `now` (traces reach 1e9 ms,
   where a double's step is ~1e-7 ms): the boundary is reached. */
static int negligible(const ns_sim *s, double dt) { return dt <= 1e-12 * fabs(s->now) + 1e-9; }

static nsi_group *group_of(ns_sim *s, const nsi_simjob *j) {
  return j->group >= 0 ? &s->grp[j->group] : NULL;
}

/* Lone representation (group -1 or fast-forwarded): the position in the
   current iteration of length per. */
static int is_lone(ns_sim *s, const nsi_simjob *j) {
  const nsi_group *g = group_of(s, j);
  return g == NULL || g->ff;
}

static double ideal_per(const nsi_simjob *j) { return j->compute_ms + j->lone_comm; }

/* The links of its transfer now: the current step's (halving-doubling). */
static const int *cur_links(const nsi_simjob *k, size_t *n) {
  if (k->hd == NULL)
    return *n = k->nlinks, k->links;
  *n = k->hd->off[k->step + 1] - k->hd->off[k->step];
  return k->hd->links + k->hd->off[k->step];
}

/* The transfer's first phase work (COMM starts). */
static double comm_first(nsi_simjob *j) {
  j->step = 0;
  return j->hd ? j->hd->work[0] : j->comm_work;
}

/* Ms of its transfer alone done, from (step, ph_left) in COMM. */
static double comm_done(const nsi_simjob *j) {
  if (j->hd == NULL)
    return j->comm_work > 0 ? (1.0 - j->ph_left / j->comm_work) * (j->lone_comm - j->lat_ms) : 0.0;
  double t = 0;
  for (int i = 0; i < j->step; i++)
    t += j->hd->lone[i];
  double w = j->hd->work[j->step];
  return t + (w > 0 ? (1.0 - j->ph_left / w) * j->hd->lone[j->step] : 0.0);
}

/* COMM at x ms of its transfer alone: step and ph_left (inverse of comm_done). */
static void comm_at(nsi_simjob *j, double x) {
  double X = j->lone_comm - j->lat_ms;
  if (j->hd == NULL) {
    double f = X > 0 ? x / X : 1.0;
    j->ph_left = j->comm_work * (f < 1.0 ? 1.0 - f : 0.0);
    return;
  }
  int i = 0;
  while (i + 1 < j->hd->n && x >= j->hd->lone[i])
    x -= j->hd->lone[i++];
  double l = j->hd->lone[i], f = l > 0 ? x / l : 1.0;
  j->step = i, j->ph_left = j->hd->work[i] * (f < 1.0 ? 1.0 - f : 0.0);
}

static void lone_advance(ns_sim *s, nsi_simjob *j) {
  double p = j->pos + (s->now - j->t_upd);
  if (p >= j->per) {
    double k = floor(p / j->per);
    if (k >= (double)j->it_left) {
      j->it_left = 0, p = 0;
    } else {
      j->it_left -= (uint64_t)k;
      p -= k * j->per;
    }
  }
  j->pos = p, j->t_upd = s->now;
}

static double lone_left(const nsi_simjob *j) {
  return j->it_left == 0 ? 0.0 : (j->per - j->pos) + (double)(j->it_left - 1) * j->per;
}

static int push(ns_sim *s, nsi_simjob *j, double t) {
  j->ver++;
  return nsi_sim_heap_push(&s->heap, t, (int)(j - s->jobs), j->ver);
}

/* e(k) of the curve, k >= 0 jobs on a link (flat past its last point,
   and under SRSF(n) admission past n: bg_caps). */
static double e_int(const ns_sim *s, int k) {
  if (s->kmax > 0 && k > s->kmax)
    k = s->kmax;
  if (k <= 64)
    return s->ek[k];
  return s->o.curve_k[s->o.curve_n - 1] <= 64 ? s->ek[64] : nsi_sim_curve(&s->o, k);
}

/* What link l (kept jobs on it, a contention curve) leaves to c = 0 .. n
   re-simulated jobs transferring on it, into v[c]: the link delivers
   cap x e(c + bgk), the kept ones' average bgk transferring too (e linear
   between integers, as the curve is between its points), and they take
   their mean throughput bg of it. Counting them in k is what makes the
   share consistent: n alike jobs saturating a link get cap e(n) / n each;
   kept at that mean, n - 1 of them leave the last one cap e(n) / n when it
   counts them (bgk ~ n - 1), but cap (1 - e(n)) + cap e(n) / n (with the
   default curve nearly half the link more) when it does not, which made
   partial restarts finish jobs early (bench/RESULTS.md). Under SRSF(n)
   admission no link carries more than n transfers at once (s->kmax = n),
   so past k = n the link delivers cap x e(n) (e_int is flat there): the
   kept ones' average transfers queue behind the admission, they do not
   collide. Charging
   e(c + bgk) there (SRSF(1): e(5) = 0.74 on a Philly uplink with four
   kept jobs, where the exact run never loses anything) left re-simulated
   jobs at the 1 % floor on half their links, and the window means they
   took there kept them 2-10x slow for up to 1.6 million seconds
   (bench/RESULTS.md "srsf-1 on window 2: the mechanism";
   test_phase_srsf_kept_no_contention). */
static void bg_caps(const ns_sim *s, int l, int n, double *v) {
  double b = s->bgk[l], lo = 0.01 * s->cap[l];
  int k = (int)b; /* b >= 0 */
  double f = b - k, e0 = e_int(s, k);
  for (int c = 0; c <= n; c++) {
    double e1 = e_int(s, k + c + 1), x = s->cap[l] * (e0 + (e1 - e0) * f) - s->bg[l];
    v[c] = x > lo ? x : lo;
    e0 = e1;
  }
}

/* Partial restarts (large components): a job kept at its window mean
   loads each of its links with its mean throughput, k flows x d x (its
   all-reduce at full rate / its mean iteration); re-simulated jobs share
   what is left (capeff, at least 1 % of the link). A link with no such
   job has capeff == cap exactly. With a contention curve the kept jobs
   also count in the link's k: on average bgk[l] of them transfer there
   (each its part bgphi of its mean iteration), and capeff is what the
   link leaves one re-simulated job (bg_caps, c = 1); a link shared by
   several has its capacity by their number (group_cache). */
static void bg_set(ns_sim *s, nsi_simjob *j, int on) {
  if (j->bgon == on)
    return;
  j->bgon = on;
  s->capeff_epoch++; /* every group's pcap may be stale */
  if (on) {
    j->bgx = nsi_sim_nic_gbps(&s->o) * j->comm_work / j->per;
    double t = (j->per - j->compute_ms - j->lat_ms) / j->per; /* transferring */
    j->bgphi = t < 0 ? 0.0 : t > 1 ? 1.0 : t;
  }
  double x = j->bgx;
  for (size_t i = 0; i < j->nlinks; i++) {
    int l = j->links[i];
    s->bgcnt[l] += on ? 1 : -1;
    s->bg[l] = s->bgcnt[l] == 0 ? 0.0 : s->bg[l] + (on ? x : -x);
    if (i == 0 || l != j->links[i - 1]) /* k counts jobs, not flows */
      s->bgk[l] = s->bgcnt[l] == 0 ? 0.0 : s->bgk[l] + (on ? j->bgphi : -j->bgphi);
    double c = s->cap[l] - s->bg[l], v[2];
    if (s->bgcnt[l] > 0 && s->o.curve_n > 0)
      bg_caps(s, l, 1, v), c = v[1];
    s->capeff[l] = s->bgcnt[l] == 0 ? s->cap[l] : (c > 0.01 * s->cap[l] ? c : 0.01 * s->cap[l]);
  }
}

/* Marks link l touched (what: 1) or rate-touched (1 << 16) for the next
   update, which reads the marks and clears the listed links. */
static void touch_link(ns_sim *s, int l, int what) {
  if (s->touch[l] == 0)
    s->tlist[s->ntouch++] = l;
  s->touch[l] |= what;
}

/* A job started or left on these links: its neighbours are re-simulated. */
static void touch(ns_sim *s, const nsi_simjob *j) {
  for (size_t i = 0; i < j->nlinks; i++)
    touch_link(s, j->links[i], 1);
}

/* A partial restart's member leaves it at a new mean (maybe_detach): its
   load on its links (bg_set) changed, and its kept link-mates' means were
   measured against its old load or phase behaviour, so they become
   re-simulation candidates at the next update (phase_update counts the
   rate-touched links with the touched ones, the same touch_cap
   and deferral). No update is forced: the next one that happens anyway (a
   start, a leave, the end of a restart with deferred neighbours) takes
   them. Depth 1: a job re-simulated only because of a rate-touch
   (rtonly) does not rate-touch its own link-mates when it leaves, so a
   large component settles instead of re-simulating itself in waves. */
static void rate_touch(ns_sim *s, const nsi_simjob *j) {
  if (j->rtonly)
    return;
  for (size_t i = 0; i < j->nlinks; i++)
    touch_link(s, j->links[i], 1 << 16);
}

/* Phase state (already advanced) -> lone at the alone iteration time. */
static void to_lone(ns_sim *s, nsi_simjob *j) {
  double c = j->compute_ms;
  switch (j->phase) {
  case NSI_PH_HOLD: j->pos = -j->ph_left; break;
  case NSI_PH_COMPUTE: j->pos = c - j->ph_left; break;
  case NSI_PH_LAT: j->pos = c + (j->lat_ms - j->ph_left); break;
  case NSI_PH_COMM: j->pos = c + j->lat_ms + comm_done(j); break;
  default: j->pos = c; break; /* waiting to communicate */
  }
  j->per = ideal_per(j);
  j->t_upd = s->now;
}

/* Lone (advanced) -> phase state at now. */
static void to_phase(ns_sim *s, nsi_simjob *j) {
  lone_advance(s, j);
  bg_set(s, j, 0);
  double c = j->compute_ms, ip = ideal_per(j);
  double q = j->pos * ip / j->per; /* the fast-forwarded position, in the alone frame */
  if (j->pos < 0) {
    j->phase = NSI_PH_HOLD, j->ph_left = -j->pos;
  } else if (q < c || j->comm_work <= 0) {
    j->phase = NSI_PH_COMPUTE, j->ph_left = c - q > 0 ? c - q : 0.0;
  } else if (q < c + j->lat_ms) {
    j->phase = NSI_PH_LAT, j->ph_left = c + j->lat_ms - q;
  } else {
    j->phase = NSI_PH_COMM;
    comm_at(j, q - c - j->lat_ms); /* ms into the transfer alone */
  }
  j->ph_rate = 0, j->t_upd = s->now;
}

static void group_advance(ns_sim *s, nsi_group *g) {
  for (size_t m = 0; m < g->n; m++) {
    nsi_simjob *k = &s->jobs[g->members[m]];
    double dt = s->now - k->t_upd;
    if (dt > 0 && k->ph_rate > 0) {
      k->ph_left -= k->ph_rate * dt;
      if (k->ph_left < 0)
        k->ph_left = 0;
    }
    k->t_upd = s->now;
  }
}

static int reserve_tmp(ns_sim *s, size_t n) {
  if (n <= s->cap_tmp)
    return NS_OK;
  size_t cap = n > 2 * s->cap_tmp ? n : 2 * s->cap_tmp;
  double *r = realloc(s->rate_tmp, cap * sizeof *r);
  if (r)
    s->rate_tmp = r;
  int **res = realloc(s->res_tmp, cap * sizeof *res);
  if (res)
    s->res_tmp = res;
  size_t *nr = realloc(s->nres_tmp, cap * sizeof *nr);
  if (nr)
    s->nres_tmp = nr;
  int *ix = realloc(s->idx_tmp, cap * sizeof *ix);
  if (ix)
    s->idx_tmp = ix;
  double *ic = realloc(s->icap_tmp, cap * sizeof *ic);
  if (ic)
    s->icap_tmp = ic;
  if (!r || !res || !nr || !ix || !ic)
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
  s->cap_tmp = cap;
  return NS_OK;
}

/* Per member of g: the links it shares with another member and its limit
   on the others (capeff / its flows there): the structure of the group's
   max-min (g->mm, maxmin.c), built once per membership and capacity
   (capeff_epoch) instead of walking every link of every ring at every
   phase boundary. The shared links get local ids in ascending link order
   (s->lmap, valid where s->lmapg is the build's serial), so a solve sees
   the links in the order it always did. A ring has exactly one flow out of
   and one into each of its servers, so a server's NIC rx link carries the
   same jobs, once each, as its tx link, with the same capacity and
   background: the same constraint, left out. */
static int group_cache(ns_sim *s, nsi_group *g) {
  if (g->cache == s->capeff_epoch + 1 && g->mm != NULL)
    return NS_OK;
  int S = s->nports; /* NIC tx [0, S), rx [S, 2S) */
  int skip_rx = s->ports_per_server == 1; /* else a port's rx and tx carry different rings */
  size_t inc = 0;
  for (size_t m = 0; m < g->n; m++) {
    const nsi_simjob *k = &s->jobs[g->members[m]];
    inc += k->nlinks;
    skip_rx &= k->hd == NULL; /* a fold step's flows are one-way */
    for (size_t i = 0; i < k->nlinks; i++)
      if (i == 0 || k->links[i] != k->links[i - 1])
        s->cnt[k->links[i]]++; /* members on the link */
  }
  NSI_TRY(reserve_tmp(s, g->n + 1));
  if (g->mm == NULL)
    g->mm = calloc(1, sizeof *g->mm);
  int *loc = malloc((inc + 1) * sizeof *loc); /* members' local links, then the shared ones */
  int *shared = malloc((inc + 1) * sizeof *shared);
  double *rcap = malloc((inc + 1) * sizeof *rcap);
  int rc = g->mm && loc && shared && rcap ? NS_OK : nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
  unsigned serial = ++s->lmap_serial;
  int nr = 0;
  for (size_t m = 0; m < g->n && rc == NS_OK; m++) {
    size_t nk;
    const int *lk = cur_links(&s->jobs[g->members[m]], &nk);
    for (size_t i = 0; i < nk; i++) {
      int l = lk[i];
      if (!(skip_rx && l >= S && l < 2 * S) && s->cnt[l] >= 2 && s->lmapg[l] != serial)
        s->lmapg[l] = serial, shared[nr++] = l;
    }
  }
  if (rc == NS_OK) {
    qsort(shared, (size_t)nr, sizeof *shared, nsi_cmp_int);
    for (int r = 0; r < nr; r++)
      s->lmap[shared[r]] = r, rcap[r] = s->capeff[shared[r]];
  }
  size_t at = 0;
  for (size_t m = 0; m < g->n && rc == NS_OK; m++) {
    nsi_simjob *k = &s->jobs[g->members[m]];
    size_t nk;
    const int *lk = cur_links(k, &nk);
    double pcap = INFINITY;
    s->res_tmp[m] = loc + at, s->nres_tmp[m] = 0;
    for (size_t i = 0; i < nk;) {
      size_t e = i;
      while (e < nk && lk[e] == lk[i])
        e++;
      int l = lk[i];
      if (skip_rx && l >= S && l < 2 * S) {
        i = e; /* a server's NIC rx carries the same rings as its tx, once each */
      } else if (s->cnt[l] >= 2) {
        for (; i < e; i++)
          loc[at++] = s->lmap[l], s->nres_tmp[m]++;
      } else {
        double v = s->capeff[l] / (double)(e - i);
        pcap = v < pcap ? v : pcap;
        i = e;
      }
    }
    s->icap_tmp[m] = pcap;
    k->gi = (int)m;
  }
  for (size_t m = 0; m < g->n; m++) {
    const nsi_simjob *k = &s->jobs[g->members[m]];
    for (size_t i = 0; i < k->nlinks; i++)
      s->cnt[k->links[i]] = 0;
  }
  if (rc == NS_OK) {
    double *ek = NULL;
    if (s->o.curve_n > 0) { /* e(k), k jobs transferring on a link (contention_caps before) */
      ek = s->rate_tmp;
      for (size_t k = 0; k <= g->n; k++)
        ek[k] = k <= 64 ? s->ek[k] : nsi_sim_curve(&s->o, (int)k);
    }
    rc = nsi_mm_build(g->mm, (int)g->n, (const int *const *)s->res_tmp, s->nres_tmp, s->icap_tmp, nr,
                      rcap, ek);
    for (int r = 0; r < nr && rc == NS_OK && ek != NULL; r++) { /* links kept jobs load */
      int l = shared[r];
      if (s->bgcnt[l] == 0)
        continue;
      bg_caps(s, l, g->mm->rst[r + 1] - g->mm->rst[r], ek);
      rc = nsi_mm_cap_table(g->mm, r, ek);
    }
  }
  free(loc), free(shared), free(rcap);
  if (rc != NS_OK)
    return rc;
  for (size_t m = 0; m < g->n; m++) {
    const nsi_simjob *k = &s->jobs[g->members[m]];
    nsi_mm_set(g->mm, (int)m, k->phase == NSI_PH_COMM && k->nsrv >= 2);
    g->mm->job[m] = g->members[m];
  }
  g->mm->scratch = s->ref_solve;
  g->mm_serial = serial;
  g->cache = s->capeff_epoch + 1;
  return NS_OK;
}

/* Contention loss (sim.h, ns_sim_opts_set_contention_curve): in a solve,
   a link carrying the flows of k > 1 distinct jobs delivers capeff x e(k),
   shared max-min as before; k counts jobs, not flows (a ring's k flows on a
   link are one all-reduce). Kept jobs of a partial restart are not
   counted: their mean load is already off capeff. The ideal curve (e = 1)
   leaves capeff as it is. group_cache hands e to the group's max-min
   (maxmin.c applies it per solve). */

/* Rates of a group's members: all-reduces max-min over the links (rate as a
   fraction of the flow rate d), compute phases over shared GPUs. */
static int solve(ns_sim *s, nsi_group *g) {
  NSI_TRY(reserve_tmp(s, g->n));
  NSI_TRY(group_cache(s, g));
  double d = nsi_sim_nic_gbps(&s->o);
  for (size_t m = 0; m < g->n; m++) {
    nsi_simjob *k = &s->jobs[g->members[m]];
    k->ph_rate = k->phase == NSI_PH_WAIT ? 0.0 : 1.0;
    nsi_mm_set(g->mm, k->gi, k->phase == NSI_PH_COMM && k->nsrv >= 2);
  }
  NSI_TRY(nsi_mm_solve_all(g->mm, d));
  for (int x = 0; x < g->mm->ncomp; x++) {
    int i = g->mm->comp[x];
    s->jobs[g->mm->job[i]].ph_rate = g->mm->rate[i] / d;
  }
  if (!s->o.gpu_sharing)
    return NS_OK;
  size_t n = 0;
  for (size_t m = 0; m < g->n; m++) {
    nsi_simjob *k = &s->jobs[g->members[m]];
    if (k->phase == NSI_PH_COMPUTE)
      s->res_tmp[n] = k->gpu, s->nres_tmp[n++] = k->ngpu;
  }
  NSI_TRY(nsi_sim_fill(&s->fill, n, s->res_tmp, s->nres_tmp, NULL, 1.0, s->gcap,
                       s->lid + s->nnet_links, s->rate_tmp));
  n = 0;
  for (size_t m = 0; m < g->n; m++) {
    nsi_simjob *k = &s->jobs[g->members[m]];
    if (k->phase == NSI_PH_COMPUTE)
      k->ph_rate = s->rate_tmp[n++];
  }
  return NS_OK;
}

/* Pushes each member's next phase boundary (a waiting one has none). */
static int push_group(ns_sim *s, nsi_group *g) {
  for (size_t m = 0; m < g->n; m++) {
    nsi_simjob *k = &s->jobs[g->members[m]];
    if (k->ph_rate <= 0) {
      k->ver++; /* no event while it waits */
      continue;
    }
    NSI_TRY(push(s, k, s->now + k->ph_left / k->ph_rate));
    s->phase_events++;
  }
  return NS_OK;
}

/* After phase changes of the seeds (s->seeds) in a group: only the
   all-reduces connected to a seed through links in use can change rate
   (max-min is separable by connected component), so only they are solved
   again (nsi_mm_solve: a search over the group's link -> member lists, and
   a memo of the components solved before), and only events that moved are
   pushed again. A seed that left the group starts the search from its
   links still shared in it. GPU sharing couples compute phases too: the
   whole group is solved. */
static int resolve(ns_sim *s, nsi_group *g) {
  if (s->o.gpu_sharing) {
    NSI_TRY(solve(s, g));
    return push_group(s, g);
  }
  NSI_TRY(group_cache(s, g));
  NSI_TRY(reserve_tmp(s, s->nseeds + 1));
  nsi_mm *mm = g->mm;
  int stamp = ++s->stamp, gi = (int)(g - s->grp);
  size_t nitem = 0, nres = 0;
  for (size_t i = 0; i < s->nseeds; i++) {
    nsi_simjob *k = &s->jobs[s->seeds[i]];
    k->ph_rate = k->phase == NSI_PH_WAIT ? 0.0 : 1.0;
    if (k->group == gi) {
      nsi_mm_set(mm, k->gi, k->phase == NSI_PH_COMM && k->nsrv >= 2);
      s->idx_tmp[nitem++] = k->gi;
      continue;
    }
    for (size_t l = 0; l < k->nlinks; l++) { /* it left: its links still shared here */
      int r = k->links[l];
      if (s->lmapg[r] != g->mm_serial || !nsi_mm_shared(mm, s->lmap[r]))
        continue;
      NSI_TRY(nsi_reserve(&s->lseed, &s->cap_lseed, nres + 1, sizeof *s->lseed));
      s->lseed[nres++] = s->lmap[r];
    }
  }
  double d = nsi_sim_nic_gbps(&s->o);
  NSI_TRY(nsi_mm_solve(mm, s->idx_tmp, (int)nitem, s->lseed, (int)nres, d));
  for (int x = 0; x < mm->ncomp; x++) {
    nsi_simjob *k = &s->jobs[mm->job[mm->comp[x]]];
    double r = mm->rate[mm->comp[x]] / d;
    k->mark = stamp;
    if (r == k->ph_rate && k->seed != stamp)
      continue; /* its event stands */
    k->ph_rate = r;
    NSI_TRY(push(s, k, s->now + k->ph_left / r));
    s->phase_events++;
  }
  for (size_t i = 0; i < s->nseeds; i++) {
    nsi_simjob *k = &s->jobs[s->seeds[i]];
    if (k->mark == stamp || k->group < 0)
      continue; /* solved above, or it left */
    if (k->ph_rate <= 0) {
      k->ver++;
      continue;
    }
    NSI_TRY(push(s, k, s->now + k->ph_left / k->ph_rate));
    s->phase_events++;
  }
  return NS_OK;
}

static int add_seed(ns_sim *s, nsi_simjob *j) {
  NSI_TRY(nsi_reserve(&s->seeds, &s->cap_seeds, s->nseeds + 1, sizeof *s->seeds));
  s->seeds[s->nseeds++] = (int)(j - s->jobs);
  j->seed = s->stamp + 1; /* the stamp resolve() will use */
  return NS_OK;
}

static void begin_compute(ns_sim *s, nsi_simjob *j) {
  if (j->hold_until > s->now + EPS)
    j->phase = NSI_PH_HOLD, j->ph_left = j->hold_until - s->now;
  else
    j->phase = NSI_PH_COMPUTE, j->ph_left = j->compute_ms;
}

/* CASSINI re-adjustment (§4.2, §5.7): the all-reduce starts at now. The
   policy keeps the job's ideal schedule and decides whether it drifted and
   what to do (src/policy/drift.c, through the run's hook): new time-shifts
   for it and its link partners (recorded, applied by apply_shifts as at a
   placement), or, under the WAIT rule, a hold of its next compute until its
   next ideal slot. */
static int check_drift(ns_sim *s, nsi_simjob *j) {
  if (s->hooks.cassini_allreduce == NULL)
    return NS_OK;
  double hold = NAN;
  NSI_TRY(s->hooks.cassini_allreduce(s, j, &hold));
  if (isfinite(hold))
    j->hold_until = hold;
  return NS_OK;
}

/* An admitted all-reduce: its start-up latency (alpha, not shared), then
   its transfer (COMM, shared). */
static void comm_state(nsi_simjob *j) {
  if (j->lat_ms > 0)
    j->phase = NSI_PH_LAT, j->ph_left = j->lat_ms;
  else
    j->phase = NSI_PH_COMM, j->ph_left = comm_first(j);
}

static int start_comm(ns_sim *s, nsi_simjob *j) {
  comm_state(j);
  return check_drift(s, j);
}

/* The compute phase ended: the all-reduce starts, or waits (admission). */
static int begin_comm(ns_sim *s, nsi_simjob *j) {
  int start = 1, hold = -1;
  if (j->nsrv >= 2)
    NSI_TRY(s->hooks.admit_comm(s, j, &start, &hold));
  if (start)
    return start_comm(s, j);
  j->phase = NSI_PH_WAIT, j->ph_left = 0;
  j->wait_ep = ++s->aep, j->wait_link = hold;
  return NS_OK;
}

static double waiter_key(const nsi_simjob *j) {
  return (double)j->it_left * j->gpus * ideal_per(j); /* remaining service: SRSF */
}

/* Refused in this membership of g on a link where no all-reduce has ended
   since (the hook's `hold`): asking again would refuse again. */
static int still_refused(const ns_sim *s, const nsi_group *g, const nsi_simjob *k) {
  return !s->ref_admit && k->wait_link >= 0 && k->wait_ep > g->mep &&
         s->lrel[k->wait_link] < k->wait_ep;
}

/* Every member of g starts its fast-forward window again (its iterations
   so far no longer describe the group: a member left, or time-shifts moved
   the relative phases, restart_window). */
static void new_window(ns_sim *s, const nsi_group *g) {
  for (size_t m = 0; m < g->n; m++)
    s->jobs[g->members[m]].w_n = 0;
}

/* After an all-reduce ended (or the group changed): waiting all-reduces
   try again, smallest remaining service first, each decided on its own
   links (AdaDUAL Algorithm 3): one that must wait holds back nobody else. A
   start only adds load, so one pass in that order decides them all; one
   still refused (still_refused) is not asked (its refusal has no effect on
   the others). */
static int admit_waiters(ns_sim *s, nsi_group *g) {
  size_t nw = 0;
  for (size_t m = 0; m < g->n; m++) {
    const nsi_simjob *k = &s->jobs[g->members[m]];
    if (k->phase == NSI_PH_WAIT && k->it_left > 0)
      nw++;
  }
  if (nw == 0)
    return NS_OK;
  NSI_TRY(nsi_reserve(&s->wtmp, &s->cap_wtmp, nw, sizeof *s->wtmp));
  nw = 0;
  for (size_t m = 0; m < g->n; m++) { /* insertion by (key, index) */
    int ji = g->members[m];
    const nsi_simjob *k = &s->jobs[ji];
    if (k->phase != NSI_PH_WAIT || k->it_left == 0)
      continue;
    if (still_refused(s, g, k)) {
      s->admit_skips++;
      continue;
    }
    size_t at = nw++;
    double key = waiter_key(k);
    while (at > 0) {
      const nsi_simjob *p = &s->jobs[s->wtmp[at - 1]];
      double pk = waiter_key(p);
      if (pk < key || (pk == key && s->wtmp[at - 1] < ji))
        break;
      s->wtmp[at] = s->wtmp[at - 1];
      at--;
    }
    s->wtmp[at] = ji;
  }
  for (size_t i = 0; i < nw; i++) {
    nsi_simjob *k = &s->jobs[s->wtmp[i]];
    if (k->phase != NSI_PH_WAIT || k->group < 0)
      continue; /* moved by a re-adjustment of an earlier one */
    int start = 1, hold = -1;
    NSI_TRY(s->hooks.admit_comm(s, k, &start, &hold));
    if (!start) {
      k->wait_ep = ++s->aep, k->wait_link = hold;
      continue; /* this one waits; the next is decided on its own links */
    }
    NSI_TRY(start_comm(s, k));
    NSI_TRY(add_seed(s, k));
  }
  return NS_OK;
}

/* j leaves g's max-min in place (nsi_mm_drop) where the structure is
   current (built with j, capacities unchanged since, not fast-forwarded,
   a ring's links): the solves give what a rebuild without j gives, and
   the memo stands - where a member's finish, preemption or detach
   (maybe_detach) rebuilt the structure and emptied the memo (7 of 8
   rebuilds of a preemptive Philly run). 1 if dropped, else 0 (a rebuild). */
static int drop_member(ns_sim *s, const nsi_group *g, const nsi_simjob *j) {
  if (g->mm == NULL || g->cache != s->capeff_epoch + 1 || g->ff || j->hd != NULL ||
      j->gi < 0 || j->gi >= g->mm->n || g->mm->job[j->gi] != (int)(j - s->jobs))
    return 0;
  nsi_mm_drop(g->mm, j->gi);
  return 1;
}

/* j, dropped from g's max-min, loads its links now (bg_set): their
   capacities in the structure are what group_cache would give them
   (capeff, and the table of bg_caps where kept jobs load a link), and the
   structure is current again. */
static int recap(ns_sim *s, nsi_group *g, const nsi_simjob *j) {
  nsi_mm *mm = g->mm;
  NSI_TRY(reserve_tmp(s, (size_t)mm->n + 1));
  for (size_t i = 0; i < j->nlinks; i++) {
    int l = j->links[i];
    if ((i > 0 && l == j->links[i - 1]) || s->lmapg[l] != g->mm_serial)
      continue;
    int r = s->lmap[l];
    const double *tab = NULL;
    if (s->o.curve_n > 0 && s->bgcnt[l] > 0) {
      bg_caps(s, l, mm->rst[r + 1] - mm->rst[r], s->rate_tmp);
      tab = s->rate_tmp;
    }
    NSI_TRY(nsi_mm_set_cap(mm, r, s->capeff[l], tab));
  }
  g->cache = s->capeff_epoch + 1;
  return NS_OK;
}

static void leave_group(ns_sim *s, nsi_simjob *j) {
  nsi_group *g = group_of(s, j);
  if (g == NULL)
    return;
  int ji = (int)(j - s->jobs);
  for (size_t m = 0; m < g->n; m++)
    if (g->members[m] == ji) {
      g->members[m] = g->members[--g->n];
      break;
    }
  if (!drop_member(s, g, j))
    g->cache = 0;
  if (g->ff)
    g->ff = 2; /* the window means are stale: rebuilt at the next update */
  g->mep = ++s->aep; /* in flight maybe: every waiter is asked again */
  new_window(s, g);
  j->group = -1;
  s->net_dirty = 1; /* the component changed: rebuilt at the next update */
}

/* The group's window. A whole group of n jobs runs max(2, NSI_PHASE_SPAN x
   W / n) iterations before it is fast-forwarded: every window costs about
   NSI_PHASE_SPAN x W member-iterations (n members, each its window; 256 at
   the default W = 16), so a pair runs 8 W iterations, a group of 16 runs W,
   larger ones fewer (the shortening that bounds their cost). Small groups
   are where most jobs meet (the embedded workload's groups are 2-8 jobs),
   and a window of W = 16 iterations there was too short to average the
   slow relative drift of two periods (test_phase_window_pair: 2 % early
   with 16 iterations, 0.1 % with 128) or an admission pattern to settle
   (bench_accuracy, 20 seeds of the embedded workload, bench/RESULTS.md:
   mean |avg JCT error| against W = 0 e.g. AdaDUAL 5.2 -> 3.0 %, ff 2.6 ->
   2.2 %, p95 ff 4.3 -> 3.2 %), at the cost per window of a group of 16. A partial restart (see affected())
   runs min(W, NSI_PHASE_BUDGET_PART / n) iterations, at least 2 (1 past 32
   re-simulated jobs). */
#define NSI_PHASE_SPAN 16
#define NSI_PHASE_BUDGET_PART 64
static uint64_t window(const ns_sim *s, const nsi_group *g) {
  uint64_t W = (uint64_t)s->o.phase_window, n = g->n ? g->n : 1;
  if (W == 0)
    return 0;
  if (!g->partial) {
    uint64_t w = NSI_PHASE_SPAN * W / n; /* W <= 2^20: no overflow */
    return w < 2 ? 2 : w;
  }
  uint64_t cap = NSI_PHASE_BUDGET_PART / n, lo = n > 32 ? 1 : 2; /* large: one iteration */
  cap = cap < lo ? lo : cap;
  return W < cap ? W : cap;
}

/* Every member has W + 1 iteration ends in the window: run them as lone
   jobs at their window means until the membership changes. */
static int maybe_fast_forward(ns_sim *s, nsi_group *g) {
  uint64_t W = window(s, g);
  if (W == 0)
    return NS_OK;
  for (size_t m = 0; m < g->n; m++) {
    const nsi_simjob *k = &s->jobs[g->members[m]];
    if (k->w_n < W + 1 || k->w_tl <= k->w_t1)
      return NS_OK;
  }
  g->ff = 1;
  for (size_t m = 0; m < g->n; m++) {
    nsi_simjob *k = &s->jobs[g->members[m]];
    k->per = (k->w_tl - k->w_t1) / (double)(k->w_n - 1);
    k->pos = s->now - k->w_tl;
    if (k->pos >= k->per)
      k->pos = k->per * (1 - 1e-12);
    k->t_upd = s->now;
    NSI_TRY(push(s, k, s->now + lone_left(k)));
  }
  return NS_OK;
}

/* A member of a partial restart with W + 1 iteration ends leaves it: it
   goes on at its window mean and loads its links (bg_set); the others are
   solved again against what is left. */
static int detaches(const nsi_group *g, const nsi_simjob *j) {
  uint64_t W = g->W;
  return g->partial && W != 0 && j->w_n >= W + 1 && j->w_tl > j->w_t1;
}

static int maybe_detach(ns_sim *s, nsi_group *g, nsi_simjob *j) {
  if (!detaches(g, j))
    return NS_OK;
  j->per = (j->w_tl - j->w_t1) / (double)(j->w_n - 1);
  j->pos = j->phase == NSI_PH_HOLD ? -j->ph_left : s->now - j->w_tl;
  if (j->pos >= j->per)
    j->pos = j->per * (1 - 1e-12);
  j->t_upd = s->now;
  int ji = (int)(j - s->jobs), kept = drop_member(s, g, j);
  for (size_t m = 0; m < g->n; m++)
    if (g->members[m] == ji) {
      g->members[m] = g->members[--g->n];
      break;
    }
  j->group = -1;
  if (!kept)
    g->cache = 0;
  bg_set(s, j, 1);
  rate_touch(s, j);
  NSI_TRY(push(s, j, s->now + lone_left(j)));
  if (g->n == 0) {
    free(g->members);
    g->members = NULL, g->partial = 0;
    nsi_mm_free(g->mm);
    free(g->mm);
    g->mm = NULL;
    s->net_dirty |= s->stale_any; /* over: the deferred neighbours' turn (engine's update) */
    return NS_OK;
  }
  if (kept)
    NSI_TRY(recap(s, g, j));
  s->nseeds = 0;
  NSI_TRY(admit_waiters(s, g));
  NSI_TRY(solve(s, g));
  return push_group(s, g);
}

/* A group member's phase ended. */
static int group_event(ns_sim *s, nsi_simjob *j, int *finished) {
  nsi_group *g = group_of(s, j);
  group_advance(s, g);
  if (j->ph_rate > 0 && !negligible(s, j->ph_left / j->ph_rate)) /* rounding: not yet */
    return push(s, j, s->now + j->ph_left / j->ph_rate);
  int comm_ended = 0, moved = 0; /* moved: a halving-doubling step changed links */
  s->nseeds = 0;
  NSI_TRY(add_seed(s, j));
  if (j->phase == NSI_PH_HOLD) {
    j->hold_until = 0;
    begin_compute(s, j);
  } else if (j->phase == NSI_PH_COMPUTE) {
    if (j->comm_work > 0)
      NSI_TRY(begin_comm(s, j));
    else
      comm_ended = 1; /* no all-reduce: the iteration ends */
  } else if (j->phase == NSI_PH_LAT) {
    j->phase = NSI_PH_COMM, j->ph_left = comm_first(j); /* the latency is over: the transfer */
  } else if (j->hd != NULL && j->step + 1 < j->hd->n) {
    j->step++, j->ph_left = j->hd->work[j->step]; /* its next step, on other links */
    moved = 1;
  } else {
    comm_ended = 1, moved = j->hd != NULL;
    j->step = 0; /* its links while it computes: the first step's, cached for the next one */
  }
  if (comm_ended) {
    uint64_t ep = ++s->aep; /* its waiting neighbours are asked again */
    for (size_t i = 0; i < j->nlinks; i++)
      s->lrel[j->links[i]] = ep;
    j->it_left--;
    if (++j->w_n == 1)
      j->w_t1 = s->now;
    j->w_tl = s->now;
    if (j->it_left == 0) {
      *finished = 1;
      leave_group(s, j);
    } else {
      begin_compute(s, j);
    }
    NSI_TRY(admit_waiters(s, g));
  }
  /* j leaves a partial restart now (maybe_detach): it leaves the group's
     max-min, which is solved in full and every member pushed again there,
     so a solve here would be overwritten unread - when no waiting
     all-reduce is asked between (admission ALL: none waits; a hook could
     read the rates). The stamp moves as resolve() would move it. */
  if (comm_ended && !*finished && detaches(g, j) && nsi_admission(&s->o) == NS_SIM_ADMIT_ALL) {
    s->stamp += !moved;
  } else if (moved) { /* links left and taken: every member solved again */
    g->cache = 0;
    NSI_TRY(solve(s, g));
    NSI_TRY(push_group(s, g));
  } else {
    NSI_TRY(resolve(s, g));
  }
  if (comm_ended && !*finished)
    NSI_TRY(g->partial ? maybe_detach(s, g, j) : maybe_fast_forward(s, g));
  return NS_OK;
}

static int phase_event(ns_sim *s, nsi_simjob *j, int *finished) {
  if (!is_lone(s, j))
    return group_event(s, j, finished);
  lone_advance(s, j);
  double left = lone_left(j);
  if (j->it_left > 0 && !negligible(s, left))
    return push(s, j, s->now + left);
  *finished = 1;
  return NS_OK;
}

/* Takes part in groups: shares network links or (GPU sharing) GPUs. */
static int meets(const ns_sim *s, const nsi_simjob *j) {
  return (j->nsrv >= 2 && j->comm_work > 0) || s->o.gpu_sharing;
}

static int phase_start(ns_sim *s, nsi_simjob *j) {
  /* resumed (issue 15): the fraction of the current iteration done, kept
     by phase_stop in pos / per; the restore overhead holds it first */
  double frac = j->resumed && j->per > 0 && j->pos > 0 ? j->pos / j->per : 0.0;
  double alone = nsi_sim_comm_alone_ms(s, j, j->nsrv >= 2);
  j->lat_ms = j->nsrv >= 2 && alone > 0 && s->o.network == NS_SIM_NET_PHASE ? s->o.alpha_ms : 0.0;
  j->comm_work = alone - j->lat_ms; /* the transfer at full rate */
  if (j->comm_work <= 0)
    j->comm_work = 0, j->lat_ms = alone > 0 ? alone : 0.0;
  j->lone_comm = alone;
  if (j->hd != NULL) { /* halving-doubling: its steps (network.c) */
    j->comm_work = 0, j->lone_comm = j->lat_ms;
    for (int i = 0; i < j->hd->n; i++)
      j->comm_work += j->hd->work[i], j->lone_comm += j->hd->lone[i];
  } else if (j->nsrv >= 2 && j->comm_work > 0) {
    j->lone_comm = j->lat_ms + j->comm_work * nsi_sim_nic_gbps(&s->o) / nsi_sim_lone_rate(s, j);
  }
  if (!j->resumed)
    j->it_left = j->iterations, j->ver = 0;
  j->group = -1;
  j->per = ideal_per(j);
  j->pos = j->resumed ? (frac < 1 ? frac : 0.0) * j->per - s->o.restore_ms : 0.0;
  j->t_upd = s->now;
  j->hold_until = 0;
  if (s->hooks.cassini_started != NULL) /* a new schedule (the policy's) */
    NSI_TRY(s->hooks.cassini_started(s, j));
  j->w_n = 0, j->bgon = 0, j->stale = 0, j->rtonly = 0;
  j->run_from = s->now + (j->resumed ? s->o.restore_ms : 0.0); /* measured(): after the restore */
  if (meets(s, j)) {
    s->net_dirty = 1; /* the update may put it in a group */
    touch(s, j);
  }
  return push(s, j, s->now + lone_left(j));
}

static void phase_stop(ns_sim *s, nsi_simjob *j) {
  if (s->now > j->run_from)
    j->run_acc += s->now - j->run_from;
  j->run_from = s->now;
  int lone = is_lone(s, j);
  if (lone)
    lone_advance(s, j);
  else
    group_advance(s, group_of(s, j));
  bg_set(s, j, 0);
  if (j->group >= 0) {
    nsi_group *g = group_of(s, j);
    leave_group(s, j);
    s->nseeds = 0; /* the full solve below covers every member */
    if (!g->ff && g->n > 0 && admit_waiters(s, g) == NS_OK && solve(s, g) == NS_OK)
      (void)push_group(s, g); /* ENOMEM here resurfaces at the next update */
  }
  if (meets(s, j)) {
    s->net_dirty = 1;
    touch(s, j);
  }
  if (!lone)
    to_lone(s, j); /* progress as pos / per: a resumed job starts from it */
}

/* Time until the job's next iteration starts (0: at a start now). */
static double next_start_in(ns_sim *s, nsi_simjob *j) {
  if (is_lone(s, j)) {
    lone_advance(s, j);
    if (j->pos <= 0)
      return -j->pos;
    return j->per - j->pos;
  }
  switch (j->phase) {
  case NSI_PH_HOLD: return j->ph_left;
  case NSI_PH_COMPUTE:
    return j->ph_left >= j->compute_ms ? 0.0 : j->ph_left + j->lone_comm;
  case NSI_PH_LAT: return j->ph_left + (j->lone_comm - j->lat_ms);
  case NSI_PH_COMM: return (j->lone_comm - j->lat_ms) - comm_done(j);
  default: return j->lone_comm;
  }
}

/* New time-shifts on a simulated group's member (a placement's, or a
   re-adjustment's: CASSINI §4.2, §5.7) move the group's relative phases
   and hold the shifted jobs once: the group's window starts again, so a
   fast-forward extrapolates iterations measured under the shifts now in
   force, not a mean that counts the holds of re-adjustments made early in
   a group's life (a job's n-th re-adjustment waits 10 x 2^n of its
   iterations, so they thin out: extrapolated, the early ones' holds made
   cassini-ff's jobs up to 1.2 % off and flipped later placements,
   bench/RESULTS.md "cassini-ff's fast-forward on window 2";
   test_phase_readjust_window). A group already fast-forwarded is
   rebuilt when its membership changes, with a new window anyway. */
static void restart_window(ns_sim *s, const nsi_simjob *j) {
  if (j->group >= 0 && !s->grp[j->group].ff)
    new_window(s, &s->grp[j->group]);
}

/* CASSINI's shifts (policy.c records them): every pending job's next
   compute starts at T0 + its shift, the slot its schedule starts from
   (reported to the policy, which checks the drift against it). */
static int apply_shifts(ns_sim *s) {
  double t0 = s->now;
  int any = 0;
  for (size_t r = 0; r < s->nrunning; r++) {
    nsi_simjob *j = &s->jobs[s->running[r]];
    if (!j->shift_pending)
      continue;
    any = 1;
    if (!is_lone(s, j))
      group_advance(s, group_of(s, j));
    double t = s->now + next_start_in(s, j);
    t0 = t > t0 ? t : t0;
  }
  if (!any)
    return NS_OK;
  for (size_t r = 0; r < s->nrunning; r++) {
    nsi_simjob *j = &s->jobs[s->running[r]];
    if (!j->shift_pending)
      continue;
    j->shift_pending = 0;
    j->hold_until = t0 + j->shift_ms;
    restart_window(s, j);
    if (s->hooks.cassini_shifted != NULL)
      NSI_TRY(s->hooks.cassini_shifted(s, j, j->hold_until));
    if (is_lone(s, j) && j->pos == 0 && j->t_upd == s->now) { /* at its start now */
      j->pos = -(j->hold_until - s->now);
      (void)push(s, j, s->now + lone_left(j));
    } else if (!is_lone(s, j) && j->phase == NSI_PH_COMPUTE && j->ph_left >= j->compute_ms) {
      begin_compute(s, j); /* at its start now: holds; the rebuild pushes its event */
    }
  }
  return NS_OK;
}

static int find(int *parent, int i) {
  while (parent[i] != i)
    i = parent[i] = parent[parent[i]];
  return i;
}

static int new_group(ns_sim *s, const int *members, size_t n) {
  NSI_TRY(nsi_reserve(&s->grp, &s->cap_grp, s->ngrp + 1, sizeof *s->grp));
  nsi_group *g = &s->grp[s->ngrp];
  g->members = malloc(n * sizeof *g->members);
  if (g->members == NULL)
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
  memcpy(g->members, members, n * sizeof *members);
  g->n = n, g->ff = 0, g->partial = 0, g->cache = 0, g->mm = NULL;
  g->mep = ++s->aep; /* its waiters are asked in it */
  return (int)s->ngrp++;
}

/* Is component `comp` (sim job indices) one lone job, or exactly one group
   whose state is still valid? */
static int unchanged(ns_sim *s, const int *comp, size_t n) {
  const nsi_simjob *first = &s->jobs[comp[0]];
  if (n == 1)
    return first->group < 0 && !first->bgon;
  if (first->group < 0 || s->grp[first->group].n != n || s->grp[first->group].ff == 2 ||
      s->grp[first->group].partial)
    return 0;
  for (size_t i = 1; i < n; i++)
    if (s->jobs[comp[i]].group != first->group)
      return 0;
  return 1;
}

/* A member of a changed component: phase state at now. */
static void bring_up(ns_sim *s, nsi_simjob *j) {
  if (is_lone(s, j))
    to_phase(s, j);
  else
    group_advance(s, group_of(s, j));
}

/* Its old group is gone. */
static void drop_group(ns_sim *s, nsi_simjob *j) {
  nsi_group *g = group_of(s, j);
  if (g != NULL && g->members != NULL) {
    free(g->members);
    g->members = NULL, g->n = 0, g->ff = 0, g->partial = 0;
    nsi_mm_free(g->mm);
    free(g->mm);
    g->mm = NULL;
  }
  j->group = -1;
  j->w_n = 0;
}

/* Components of more than NSI_PHASE_EXACT jobs restart only in part
   (sim.h): a membership change re-simulates the jobs that share a link with
   a job that started or left, those not yet placed in a group, and any
   part still in its window; the others keep their window means. */
#define NSI_PHASE_EXACT 16
#define NSI_PHASE_REAL (1 << 24) /* ranks a candidate touched by a start or leave first */
static int affected(ns_sim *s, const nsi_simjob *j, int touched) {
  if (j->group < 0 && !j->bgon)
    return -1; /* new, or lone until now */
  if (j->group >= 0 && !s->grp[j->group].ff)
    return -1; /* being simulated */
  return j->stale + touched; /* a neighbour of changes: on `touched` of its links (counted by
                                phase_update's walk), this one and deferred ones */
}

/* Candidate x (rank, position) goes before y: more touched links first,
   then position. A strict total order (positions are distinct). */
static int touch_before(const int *x, const int *y) {
  return x[0] != y[0] ? x[0] > y[0] : x[1] < y[1];
}

/* The cap-th candidate in touch_before order of cand[0 .. nc) (pairs),
   nc > cap (s->touch_cap): those after it are deferred. Only
   which ones are deferred matters, not their order, so the first few are
   kept by insertion (one pass; a full sort of the ~300 candidates of a
   preemptive Philly run's large component at every update was ~6 % of a
   2d-gittins run). */
static const int *last_taken(const int *cand, size_t nc, size_t cap, int (*best)[2]) {
  size_t nb = 0;
  for (size_t c = 0; c < nc; c++) {
    const int *x = cand + 2 * c;
    if (nb == cap && !touch_before(x, best[nb - 1]))
      continue;
    size_t at = nb < cap ? nb++ : nb - 1;
    for (; at > 0 && touch_before(x, best[at - 1]); at--)
      best[at][0] = best[at - 1][0], best[at][1] = best[at - 1][1];
    best[at][0] = x[0], best[at][1] = x[1];
  }
  return best[cap - 1];
}

/* A changed component (members in phase state): lone or a new group. */
static int rebuild(ns_sim *s, const int *comp, size_t n, int partial) {
  if (n == 1 && !partial) {
    nsi_simjob *j = &s->jobs[comp[0]];
    if (j->phase == NSI_PH_WAIT)
      comm_state(j); /* alone: its all-reduce starts */
    to_lone(s, j);
    return push(s, j, s->now + lone_left(j));
  }
  int gi = new_group(s, comp, n);
  NSI_TRY(gi);
  for (size_t i = 0; i < n; i++) {
    s->jobs[comp[i]].group = gi;
    s->jobs[comp[i]].rtonly &= partial; /* a whole component: no rate-touch behind it */
  }
  nsi_group *g = &s->grp[gi];
  g->partial = partial;
  g->W = window(s, g);
  s->nseeds = 0; /* the full solve below covers every member */
  NSI_TRY(admit_waiters(s, g));
  NSI_TRY(solve(s, g));
  return push_group(s, g);
}

/* One stable counting pass of pairs (root, pos) from src to dst by the
   digit ((v - lo) >> shift) & mask (< nb) of v = the root (f 0) or the job
   net[pos] (f 1); cnt: nb + 1 entries. */
static void count_pass(const int *src, int *dst, size_t n, int f, const int *net, int lo,
                       int shift, size_t mask, size_t nb, size_t *cnt) {
#define NSI_KEY(i) ((((size_t)((f ? net[src[2 * (i) + 1]] : src[2 * (i)]) - lo)) >> shift) & mask)
  for (size_t d = 0; d <= nb; d++)
    cnt[d] = 0;
  for (size_t i = 0; i < n; i++)
    cnt[NSI_KEY(i) + 1]++;
  for (size_t d = 0; d < nb; d++)
    cnt[d + 1] += cnt[d];
  for (size_t i = 0; i < n; i++) {
    size_t at = cnt[NSI_KEY(i)]++;
    dst[2 * at] = src[2 * i], dst[2 * at + 1] = src[2 * i + 1];
  }
#undef NSI_KEY
}

/* pairs[0..2n) = (root, pos), every root in [lo, lo + range), jobs
   net[pos] >= 0: sorted by root then job (the order a qsort by that key
   gave) by LSD radix: the jobs in digits of 6..11 bits (fewer buckets than
   jobs: the counts cost no more than the pass), then the roots counted.
   O(n + range) per digit. tmp: 2 n ints; cnt: max(range, 2048) + 1
   entries. The grouping runs at every change of the running set over
   every running job: qsort was a tenth of a preemptive run on Philly. */
static void sort_by_root(int *pairs, size_t n, const int *net, int lo, size_t range, int *tmp,
                         size_t *cnt) {
  int maxjob = 0, bits = 6;
  for (size_t i = 0; i < n; i++)
    maxjob = net[pairs[2 * i + 1]] > maxjob ? net[pairs[2 * i + 1]] : maxjob;
  while (bits < 11 && ((size_t)1 << bits) < n)
    bits++;
  size_t nb = (size_t)1 << bits;
  int *a = pairs, *b = tmp;
  for (int shift = 0; shift == 0 || (shift < 31 && (maxjob >> shift) > 0); shift += bits) {
    count_pass(a, b, n, 1, net, 0, shift, nb - 1, nb, cnt);
    int *t = a;
    a = b, b = t;
  }
  count_pass(a, b, n, 0, net, lo, 0, SIZE_MAX, range, cnt);
  if (b != pairs)
    memcpy(pairs, b, 2 * n * sizeof *pairs);
}

/* The grouping's union-find state (phase_update). */
typedef struct {
  int *parent, *own;
  unsigned char *shared_ever;
  int base, L, S; /* S >= 0: NIC rx links are not walked (a tx marks its rx shared) */
} pu_walk;

/* The job at position me - base (its root *ri) meets resource r: a link
   or GPU owned by no one yet takes it; one owned by another component
   joins it to *ri's. */
static inline void pu_join(pu_walk *w, int r, int me, int *ri, int *last) {
  int o = w->own[r];
  if (o < w->base) {
    w->own[r] = me;
    return;
  }
  if (o == me)
    return;
  if (r < w->L) {
    w->shared_ever[r] = 1;
    if (r < w->S)
      w->shared_ever[r + w->S] = 1; /* a NIC tx: its rx too */
  }
  if (o == *last || o == w->base + *ri)
    return; /* in ri's component already */
  *last = o;
  int a = find(w->parent, o - w->base);
  if (a != *ri) {
    w->parent[a < *ri ? *ri : a] = a < *ri ? a : *ri;
    *ri = a < *ri ? a : *ri;
  }
  w->own[r] = w->base + *ri; /* its owner from now on: the root (<= i), so the next job on it
                                finds the component in a step, not along the chain from the
                                link's first job */
}

/* The running set changed: components by shared links (and GPUs). The
   walk over every running job's links is the grouping's cost (a preemptive
   Philly run has one component of ~300 jobs, so an incremental split would
   walk it as often): one pass, owners stamped by own_base (no reset pass),
   each job's root kept while its links are walked and a link's owner moved
   to the root after a union, its touched links counted for affected() in
   the same pass (one read of the link's touch weight, cleared through the
   touched list after), NIC rx links not joined through (their tx: see the
   walk), scratch kept across updates. */
static int phase_update(ns_sim *s) {
  if (!s->net_dirty)
    return NS_OK;
  s->net_dirty = 0;
  NSI_TRY(apply_shifts(s));
  size_t n = 0;
  for (size_t r = 0; r < s->nrunning; r++)
    if (meets(s, &s->jobs[s->running[r]]))
      s->net[n++] = s->running[r];
  s->stale_any = 0; /* set again below for what is deferred once more */
  if (n == 0)
    return NS_OK;
  size_t ncnt = (3 * n > 2048 ? 3 * n : 2048) + 2;
  if (n > (size_t)INT_MAX / 4 || nsi_reserve(&s->pu_tmp, &s->cap_pu_tmp, 8 * n, sizeof *s->pu_tmp) < 0 ||
      nsi_reserve(&s->pu_cnt, &s->cap_pu_cnt, ncnt, sizeof *s->pu_cnt) < 0)
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory grouping %zu jobs", n);
  int *parent = s->pu_tmp, *pairs = parent + n, *comp = pairs + 2 * n, *cand = comp + n;
  int *tc = cand + 2 * n, *kept = tc + n;
  size_t *start = s->pu_cnt;
  const int *net = s->net;
  int L = s->nnet_links;
  if (s->own_base > INT_MAX - (int)n) { /* stamps used up: no owner anywhere */
    memset(s->own, 0xff, ((size_t)L + (size_t)s->ngpus_total) * sizeof *s->own);
    s->own_base = 0;
  }
  int base = s->own_base;
  s->own_base += (int)n;
  /* rx: a server's NIC rx link carries the same rings as its tx (one flow
     out of and one into each server, one port per server): it joins no one
     its tx does not, so only its touches are counted (and its sharing is
     its tx's) - a third of the links walked */
  int S = s->nports, rx = s->ring_only && s->ports_per_server == 1 && !s->ref_group;
  unsigned nrx = rx ? (unsigned)S : 0u; /* r is an rx link skipped: r - S < nrx, unsigned */
  const int *touch = s->touch;
  pu_walk w = {parent, s->own, s->shared_ever, base, L, rx ? S : -1};
  for (size_t i = 0; i < n; i++) {
    const nsi_simjob *j = &s->jobs[net[i]];
    if (i + 2 < n)
      __builtin_prefetch(&s->jobs[net[i + 2]].links);
    if (i + 1 < n)
      __builtin_prefetch(s->jobs[net[i + 1]].links);
    const int *lk = j->links;
    int ri = (int)i, t = 0, me = base + (int)i; /* ri: i's root, the least position of its component */
    int last = -1; /* the owner joined last: in ri's component */
    parent[i] = (int)i, kept[i] = 0;
    for (size_t k = 0; k < j->nlinks; k++) {
      int r = lk[k];
      t += touch[r]; /* touched links, and rate-touched ones in the high half */
      if ((unsigned)r - (unsigned)S >= nrx) /* (a NIC rx: as its tx) */
        pu_join(&w, r, me, &ri, &last);
    }
    for (size_t k = 0; s->o.gpu_sharing && k < j->ngpu; k++)
      pu_join(&w, L + j->gpu[k], me, &ri, &last);
    tc[i] = t;
  }
  for (size_t i = 0; i < n; i++) { /* a union hangs the larger root under the smaller, so
                                       parent[i] <= i and its root is final already */
    parent[i] = parent[parent[i]];
    pairs[2 * i] = parent[i], pairs[2 * i + 1] = (int)i;
  }
  sort_by_root(pairs, n, net, 0, n, cand, start); /* cand: 2 n ints of scratch, unused yet */
  /* components: a changed one gets a negative root (-1 - root; in a large
     component only its affected members, -1 - n - root: a partial
     restart); all changed members are brought to phase state before any
     old group is dropped */
  int partial_any = 0;
  for (size_t i = 0; i < n;) {
    size_t k = i, m = 0;
    while (k < n && pairs[2 * k] == pairs[2 * i])
      comp[m++] = net[pairs[2 * k + 1]], k++;
    if (m > NSI_PHASE_EXACT && !s->o.gpu_sharing && s->o.phase_window > 0) {
      partial_any = 1;
      size_t nc = 0, nnew = 0;
      for (size_t x = i; x < k; x++) {
        nsi_simjob *jx = &s->jobs[net[pairs[2 * x + 1]]];
        int t = tc[pairs[2 * x + 1]], real = t & 0xffff, rate = t >> 16;
        int a = affected(s, jx, real + rate);
        if (a > 0) { /* a candidate: only rate-touched if nothing real, now or deferred, is behind it;
                        those with something real go first */
          jx->rtonly = real == 0 && (jx->stale == 0 || jx->rtonly);
          a = a < NSI_PHASE_REAL ? a : NSI_PHASE_REAL - 1; /* stale saturates below the rank bit */
          cand[2 * nc] = a + (jx->rtonly ? 0 : NSI_PHASE_REAL), cand[2 * nc + 1] = (int)x, nc++;
        } else if (a < 0) { /* new or lone: real; still in its window: as it entered, unless touched */
          jx->rtonly = jx->group >= 0 && real == 0 && jx->rtonly;
          nnew += jx->group < 0;
        }
        kept[x] = a == 0; /* 1: untouched; a deferred candidate gets 2 below */
      }
      int best[NSI_PHASE_TOUCHED][2];
      size_t tcap = (size_t)s->touch_cap; /* one of the two caps (nsi_sim_net_init): <= NSI_PHASE_TOUCHED */
      const int *cut = nc > tcap ? last_taken(cand, nc, tcap, best) : NULL;
      for (size_t c = 0; cut != NULL && c < nc; c++) {
        if (!touch_before(cut, cand + 2 * c))
          continue; /* among the first touch_cap: re-simulated */
        nsi_simjob *jc = &s->jobs[net[pairs[2 * cand[2 * c + 1] + 1]]];
        kept[cand[2 * c + 1]] = 2; /* deferred: keeps its window mean for now */
        jc->stale = cand[2 * c] % NSI_PHASE_REAL;
        s->stale_any |= !jc->rtonly; /* a rate-touched one waits for an update anyway */
      }
      if (nc > 0 || nnew > 0) { /* fill: a changed component's restart re-simulates untouched
                                   members too, in position order, up to the cap (header, "Fill") */
        size_t taken = 0;
        for (size_t x = i; x < k; x++)
          taken += kept[x] == 0;
        for (size_t x = i; x < k && taken < tcap; x++)
          if (kept[x] == 1) {
            kept[x] = 0, taken++;
            s->jobs[net[pairs[2 * x + 1]]].rtonly = 1; /* filled: its new mean rate-touches no one */
          }
      }
      for (size_t x = i; x < k; x++) {
        if (kept[x])
          continue;
        s->jobs[net[pairs[2 * x + 1]]].stale = 0;
        bring_up(s, &s->jobs[net[pairs[2 * x + 1]]]);
        pairs[2 * x] = -1 - (int)n - pairs[2 * x];
      }
    } else {
      int ch = !unchanged(s, comp, m);
      for (size_t x = i; x < k; x++) {
        if (ch)
          bring_up(s, &s->jobs[net[pairs[2 * x + 1]]]);
        pairs[2 * x] = ch ? -1 - pairs[2 * x] : pairs[2 * x];
      }
    }
    i = k;
  }
  for (size_t i = 0; i < n; i++) {
    nsi_simjob *j = &s->jobs[net[pairs[2 * i + 1]]];
    if (pairs[2 * i] < 0) {
      drop_group(s, j);
    } else if (kept[i] && j->group >= 0) {
      drop_group(s, j); /* kept in a large component: lone at its window mean ... */
      bg_set(s, j, 1);  /* ... loading its links */
    }
  }
  /* the changed members (negative roots), in order: each root's members
     are together and by job already (the sort above), so a stable count
     by root alone puts a partial restart's members together, whatever
     their old roots: roots -1 - n - root (partial), -1 - root (changed);
     the kept ones (root >= 0) are not rebuilt */
  size_t nneg = 0;
  for (size_t i = 0; i < n; i++)
    if (pairs[2 * i] < 0)
      cand[2 * nneg] = pairs[2 * i], cand[2 * nneg + 1] = pairs[2 * i + 1], nneg++;
  int *ch = cand;
  if (partial_any && nneg > 1) {
    count_pass(cand, pairs, nneg, 0, net, -2 * (int)n, 0, SIZE_MAX, 2 * n, start);
    ch = pairs;
  }
  int rc = NS_OK;
  for (size_t i = 0; i < nneg && rc == NS_OK;) {
    size_t k = i, m = 0;
    while (k < nneg && ch[2 * k] == ch[2 * i])
      comp[m++] = net[ch[2 * k + 1]], k++;
    rc = rebuild(s, comp, m, ch[2 * i] < -(int)n);
    i = k;
  }
  for (size_t i = 0; i < s->ntouch; i++) /* read: cleared */
    s->touch[s->tlist[i]] = 0;
  s->ntouch = 0;
  return rc;
}

/* Iterations left: whole ones, less the done part of the current one. */
static double phase_remaining(ns_sim *s, nsi_simjob *j) {
  if (j->it_left == 0)
    return 0.0;
  double left = (double)j->it_left;
  if (is_lone(s, j)) {
    lone_advance(s, j);
    return j->it_left == 0 ? 0.0 : (double)j->it_left - (j->pos > 0 ? j->pos / j->per : 0.0);
  }
  group_advance(s, group_of(s, j));
  double ip = ideal_per(j), done = 0.0;
  if (j->phase == NSI_PH_COMPUTE)
    done = j->compute_ms - j->ph_left;
  else if (j->phase == NSI_PH_LAT)
    done = j->compute_ms + (j->lat_ms - j->ph_left);
  else if (j->phase == NSI_PH_COMM)
    done = j->compute_ms + j->lat_ms + comm_done(j);
  else if (j->phase == NSI_PH_WAIT)
    done = j->compute_ms;
  return left - done / ip;
}

/* Dally's measure (issue 15): iterations done as phase_remaining counts
   them (whole ones plus the done part of the current one, from the phase it
   is in) and the ms it ran; a lone job's ratio is exactly its iteration time
   here (compute + its all-reduce alone), a group member's includes the time
   its all-reduces waited for or shared links with the others. */
static void phase_measured(ns_sim *s, nsi_simjob *j, double *done, double *run_ms) {
  *done = (double)j->iterations - phase_remaining(s, j);
  *run_ms = j->run_acc + (s->now > j->run_from ? s->now - j->run_from : 0.0);
}

const nsi_netmodel nsi_sim_net_phase = {"phase", phase_start, phase_update, phase_event,
                                        phase_stop, phase_remaining, phase_measured};

/* NS_SIM_NET_IDEAL: nsi_sim_comm_alone_ms is 0, so no job communicates and
   every job (without GPU sharing) is lone: it runs exactly its compute. */
const nsi_netmodel nsi_sim_net_ideal = {"ideal", phase_start, phase_update, phase_event,
                                        phase_stop, phase_remaining, phase_measured};
