/*
 * src/policy/drift.c - CASSINI's drift re-adjustment (§4.2, §5.7) behind the
 * policy object (netsched/policy.h, "CASSINI's drift re-adjustment"): the
 * caller reports each job's iteration when it starts, the slot it applied a
 * time-shift to, and each all-reduce start; the policy keeps the schedules
 * (schedule.c), decides whether a job drifted and what to do, and returns
 * the re-ranked shifts or a hold. This is the code the simulator ran in its
 * phase model (src/sim/net_phase.c check_drift and src/sim/policy.c
 * cassini_readjust before issue 28), moved with its arithmetic unchanged, so
 * the simulator's results are bit-identical:
 *
 *  - drift: the deviation of the all-reduce start from the schedule's ideal
 *    start (slot + compute, modulo the iteration P, taken in [-P/2, P/2]);
 *    past drift x P the job drifted (0: never);
 *  - re-ranking: the links the job shares now, described from the cluster
 *    (ns_cassini_candidate_from_cluster: committed jobs first, so the
 *    reference job at shift 0 is a committed partner) and ranked as one
 *    candidate; ns_cassini_readjust then gets every committed partner on
 *    them with its reported iteration (compute + its all-reduce alone on its
 *    placement): where one differs from the job's profile by more than the
 *    drift (e.g. uplinks slower than the NIC) the shifts are re-optimised.
 *    Feeding it the contended mean iteration instead re-optimised on
 *    transient contention and lengthened cassini-ff's mean JCT by 2-6 % on
 *    the default workload (commit log of the simulator);
 *  - rule READJUST (default): the shifts are applied again from now (the
 *    paper re-adjusts); no shared link or no loop-free shifts: the schedule
 *    is dropped. A job's n-th re-adjustment opens a gap of 10 x 2^n (n
 *    capped at 20) of its iterations before the next: a job whose partners
 *    keep perturbing it (a contended uplink, a third job of another period)
 *    drifts again within an iteration or two, and re-ranking at every
 *    drifted all-reduce made cassini-ff 13x slower on the first 30,000
 *    Philly jobs (185 s vs 14 s CPU), a fixed gap of 10 iterations 17x; the
 *    doubling bounds a job's re-rankings by the log of its iterations (the
 *    paper reports re-adjustments as rare, §5.7). Between re-adjustments a
 *    drifted job runs on (it does not wait for its slot);
 *  - rule WAIT (the earlier reading: workers respect the shifts they were
 *    given): re-shifted only when ns_cassini_readjust finds a measured
 *    drift; otherwise the job's next compute waits for its next ideal slot
 *    after this all-reduce alone.
 */
#include <math.h>
#include <stdlib.h>

#include "core/internal.h"
#include "policy/policy_internal.h"

#define NSP_READJUST_GAP 10.0 /* iterations before a job's first re-adjustment may repeat */
#define EPS 1e-9

static int record(const ns_policy *p, const ns_job *job, const char *fn, nsp_sched **out) {
  nsp_sched *r = nsp_sched_find(p, job);
  if (r == NULL)
    return nsi_fail(NS_ENOTFOUND, "%s: job '%s' has no reported iteration (report it with "
                                  "ns_policy_report_iteration when the job starts)",
                    fn, ns_job_name(job));
  *out = r;
  return NS_OK;
}

int ns_policy_report_iteration(ns_policy *p, const ns_job *job, double compute_ms,
                               double allreduce_ms) {
  static const char fn[] = "ns_policy_report_iteration";
  NSI_TRY(nsi_check_ptr(p, fn, "p"));
  NSI_TRY(nsi_check_ptr(job, fn, "job"));
  NSI_TRY(nsi_check_finite_ge0(compute_ms, fn, "compute_ms"));
  NSI_TRY(nsi_check_finite_ge0(allreduce_ms, fn, "allreduce_ms"));
  nsp_sched *r = nsp_sched_reset(p, job, fn);
  if (r == NULL)
    return NS_ENOMEM;
  r->compute = compute_ms, r->comm = allreduce_ms, r->per = compute_ms + allreduce_ms;
  return NS_OK;
}

int ns_policy_report_shifted(ns_policy *p, const ns_job *job, double slot_ms) {
  static const char fn[] = "ns_policy_report_shifted";
  NSI_TRY(nsi_check_ptr(p, fn, "p"));
  NSI_TRY(nsi_check_ptr(job, fn, "job"));
  NSI_TRY(nsi_check_finite_ge0(slot_ms, fn, "slot_ms"));
  nsp_sched *r = NULL;
  NSI_TRY(record(p, job, fn, &r));
  r->slot = slot_ms;
  return NS_OK;
}

/* The links job shares now, ranked (its file comment); *out = the ranked
   candidate when its shifts are to be applied again (*done = 1). No shared
   link, or no loop-free shifts: *done = 0. */
static int rerank(ns_policy *p, ns_cluster *c, const ns_job *job, ns_candidate **out, int *done,
                  const char *fn) {
  *done = 0, *out = NULL;
  size_t cap = c->ncommits + 1, m = 0, n = 0, best = 0;
  ns_candidate *cand = ns_candidate_new();
  ns_placement *pl = ns_placement_new();
  const ns_job **jobs = malloc(cap * sizeof *jobs);
  double *iter = malloc(cap * sizeof *iter), sh = 0;
  int rc = cand && pl && jobs && iter ? NS_OK : nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  if (rc == NS_OK)
    rc = ns_cluster_job_placement(c, job, pl);
  if (rc == NS_OK)
    rc = ns_cassini_candidate_from_cluster(cand, c, job, pl);
  if (rc == NS_OK && ns_candidate_shift_ms(cand, job, &sh) != NS_ENOTFOUND) {
    rc = ns_cassini_rank(&cand, 1, p->cassini_opts, &best, NULL);
    for (size_t k = 0; k < c->ncommits && rc == NS_OK; k++) {
      const ns_job *o = c->commits[k].job;
      const nsp_sched *r = nsp_sched_find(p, o);
      if (r != NULL && r->per > 0 && ns_candidate_shift_ms(cand, o, &sh) == NS_OK)
        jobs[m] = o, iter[m++] = r->per; /* its iteration by its schedule */
    }
    if (rc == NS_OK)
      rc = ns_cassini_readjust(cand, p->cassini_opts, jobs, iter, m, &n);
    int again = n > 0 || p->drift_rule == NS_POLICY_DRIFT_RULE_READJUST;
    if (rc == NS_OK && again)
      *done = 1, *out = cand, cand = NULL;
    if (rc == NS_ELOOP || rc == NS_ERANGE)
      rc = NS_OK; /* no loop-free shifts: the schedule is kept */
  }
  ns_candidate_free(cand);
  ns_placement_free(pl);
  free(jobs), free(iter);
  if (rc < 0)
    return nsi_fail(rc, "%s: CASSINI re-adjustment failed on job '%s': %s", fn, ns_job_name(job),
                    ns_last_error());
  return NS_OK;
}

int ns_policy_report_allreduce(ns_policy *p, ns_cluster *c, const ns_job *job, double start_ms,
                               ns_decision *d, double *hold_until_ms) {
  static const char fn[] = "ns_policy_report_allreduce";
  NSI_TRY(nsi_check_ptr(p, fn, "p"));
  NSI_TRY(nsi_check_ptr(c, fn, "c"));
  NSI_TRY(nsi_check_ptr(job, fn, "job"));
  NSI_TRY(nsi_check_ptr(d, fn, "d"));
  NSI_TRY(nsi_check_ptr(hold_until_ms, fn, "hold_until_ms"));
  NSI_TRY(nsi_check_finite_ge0(start_ms, fn, "start_ms"));
  nsp_sched *r = NULL;
  NSI_TRY(record(p, job, fn, &r));
  int act = NS_POLICY_DRIFT_NONE, wait = p->drift_rule == NS_POLICY_DRIFT_RULE_WAIT;
  ns_candidate *cand = NULL;
  double hold = NAN, P = r->per;
  /* an iteration of 0 ms (nothing to keep in step) has no schedule */
  if (p->cassini && isfinite(r->slot) && P > 0 && p->drift > 0 &&
      (wait || !(start_ms < r->until))) {
    double dev = fmod(start_ms - (r->slot + r->compute), P);
    if (dev < 0)
      dev += P;
    if (dev > P / 2)
      dev -= P;
    if (!(fabs(dev) <= p->drift * P)) { /* drifted */
      int done = 0;
      if (nsi_find_commit(c, job) < 0) /* read only now: O(running jobs) */
        return nsi_fail(NS_EINVAL, "%s: job '%s' is not committed on c (commit every running "
                                   "job where it runs)", fn, ns_job_name(job));
      /* CASSINI's options; a refusal below must not leave the policy
         fixed as after a decision when it was not */
      int was_ready = p->ready;
      NSI_TRY(nsp_ready(p, fn));
      int rc = rerank(p, c, job, &cand, &done, fn);
      if (rc < 0) {
        if (!was_ready)
          nsp_unready(p);
        return rc;
      }
      act = done ? NS_POLICY_DRIFT_SHIFTS : wait ? NS_POLICY_DRIFT_HOLD : NS_POLICY_DRIFT_DROPPED;
      if (act == NS_POLICY_DRIFT_HOLD) { /* the next ideal slot after this all-reduce alone */
        double end = start_ms + r->comm;
        double k = ceil((end - r->slot) / P - EPS);
        hold = r->slot + k * P;
      }
    }
  }
  nsp_decision_reset(d, 0, fn); /* no queue: nothing to allocate, cannot fail */
  d->readj = cand;
  if (act != NS_POLICY_DRIFT_NONE) {
    p->readjusts++;
    if (!wait) {
      r->until = start_ms + ldexp(NSP_READJUST_GAP, r->n < 20 ? r->n : 20) * P;
      r->n++;
    }
    if (act == NS_POLICY_DRIFT_DROPPED)
      r->slot = NAN; /* no loop-free shifts to re-apply: the schedule is dropped */
  }
  *hold_until_ms = hold;
  return act;
}

int ns_decision_readjust_shift_ms(const ns_decision *d, const ns_job *job, double *shift_ms) {
  static const char fn[] = "ns_decision_readjust_shift_ms";
  NSI_TRY(nsi_check_ptr(d, fn, "d"));
  NSI_TRY(nsi_check_ptr(job, fn, "job"));
  NSI_TRY(nsi_check_ptr(shift_ms, fn, "shift_ms"));
  if (d->readj == NULL)
    return nsi_fail(NS_ENOTFOUND, "%s: the decision holds no re-adjustment "
                                  "(ns_policy_report_allreduce answered no NS_POLICY_DRIFT_SHIFTS)",
                    fn);
  return ns_candidate_shift_ms(d->readj, job, shift_ms); /* NS_ENOTFOUND: not shifted by it */
}

uint64_t ns_policy_readjust_count(const ns_policy *p) { return p != NULL ? p->readjusts : 0; }
