/*
 * tests/fuzz/fuzz_policy.c - the policy object driven by bytes: a preset
 * (2d-las, 2d-gittins, dally with leases, dally-manual, cassini-ff,
 * srsf-ff, ada-srsf) with hostile options, a small cluster, then a sequence
 * of decisions (ns_policy_decide, and Dally's ns_policy_preempt), report-back calls (started / finished / suspended /
 * progress, CASSINI's iteration / shift / all-reduce reports), admission
 * questions, clones and saves - in any order, with NaN / infinite /
 * negative / huge values, repeated ids, running entries not committed, time
 * going back.
 *
 * fuzz-requires: ns_policy_new ns_policy_decide ns_queue_add_running ns_queue_set_attained_ms
 * fuzz-requires: ns_policy_report_allreduce ns_policy_set_dally_lease ns_decision_suspend_job
 * fuzz-requires: ns_policy_preempt
 *
 * Invariants (netsched/policy.h):
 *  - every call returns a documented status; a failure (< 0) names the
 *    call in its message, and ns_policy_decide / ns_policy_report_allreduce
 *    leave the cluster bit-for-bit as they found it, success or not;
 *  - a decision covers the queue; statuses are documented ones; a start is
 *    a waiting job or a suspended (moved) one, a suspend a running one, a
 *    renewal a running one kept; the caller's application of it (release
 *    the suspended, commit the starts in order) always succeeds;
 *  - ns_policy_report_allreduce answers an ns_policy_drift with a finite
 *    hold exactly when it answers HOLD; the re-adjustment count never falls.
 */
#include "fuzz_util.h"

enum { MAXJOBS = 8 };

static const char *const presets[] = {"2d-las", "2d-gittins", "dally", "dally-manual",
                                      "cassini-ff", "srsf-ff", "ada-srsf", "ff"};

typedef struct world {
  ns_cluster *c;
  ns_policy *p;
  ns_queue *q;
  ns_decision *d;
  ns_job *job[MAXJOBS];
  int running[MAXJOBS], gone[MAXJOBS];
  uint64_t id[MAXJOBS];
  double arrival[MAXJOBS], att[MAXJOBS];
  size_t qjob[2 * MAXJOBS];
  int njobs;
  double now;
} world;

static void check_fail(int rc, const char *fn) {
  if (rc < 0)
    FZ_CHECK_FAILURE(rc, fn);
}

static void build(world *w, fz *f) {
  int leaves = (int)fz_range(f, 1, 3), spines = (int)fz_range(f, 1, 2);
  int spl = (int)fz_range(f, 1, 2), gps = (int)fz_range(f, 1, 4);
  w->c = ns_cluster_new_leaf_spine(leaves, spines, spl, gps, 1, 10.0);
  FZ_CHECK(w->c != NULL, "cluster");
  const char *name = presets[fz_range(f, 0, 7)];
  w->p = ns_policy_new(name);
  FZ_CHECK(w->p != NULL, "ns_policy_new(%s)", name);
  /* options, valid or hostile: a rejected one changes nothing */
  int opts = (int)fz_range(f, 0, 6);
  for (int k = 0; k < opts; k++) {
    int rc = NS_OK;
    switch (fz_range(f, 0, 5)) {
    case 0: {
      double th[7];
      int n = (int)fz_range(f, 0, 9);
      for (int i = 0; i < 7; i++)
        th[i] = fz_double(f, 1.0, 1e7);
      rc = ns_policy_set_las_queues(w->p, n, fz_u8(f) % 8 ? th : NULL);
      check_fail(rc, "ns_policy_set_las_queues");
      break;
    }
    case 1:
      rc = ns_policy_set_starvation(w->p, fz_double(f, 0, 10));
      check_fail(rc, "ns_policy_set_starvation");
      break;
    case 2: {
      double s[6];
      size_t n = (size_t)fz_range(f, 0, 6);
      for (size_t i = 0; i < n; i++)
        s[i] = fz_double(f, 1.0, 1e7);
      rc = ns_policy_set_gittins_samples(w->p, s, n);
      check_fail(rc, "ns_policy_set_gittins_samples");
      break;
    }
    case 3:
      rc = ns_policy_set_dally_lease(w->p, fz_u8(f) % 2 ? fz_double(f, 0, 1e4) : 1000.0);
      check_fail(rc, "ns_policy_set_dally_lease");
      break;
    case 4:
      rc = ns_policy_set_cassini_drift_rule(w->p, (ns_policy_drift_rule)fz_range(f, -1, 2));
      check_fail(rc, "ns_policy_set_cassini_drift_rule");
      break;
    default:
      rc = ns_policy_set_cassini_drift(w->p, fz_double(f, 0, 0.5));
      check_fail(rc, "ns_policy_set_cassini_drift");
      break;
    }
  }
  w->q = ns_queue_new();
  w->d = ns_decision_new();
  FZ_CHECK(w->q && w->d, "queue, decision");
  w->njobs = (int)fz_range(f, 1, MAXJOBS);
  for (int j = 0; j < w->njobs; j++) {
    char nm[8];
    snprintf(nm, sizeof nm, "j%d", j);
    w->job[j] = ns_job_new(nm, (int)fz_range(f, 1, 6));
    FZ_CHECK(w->job[j] != NULL, "job");
    ns_job_set_iteration_ms(w->job[j], 100.0);
    ns_job_add_phase(w->job[j], 40.0, 40.0);
    ns_job_add_phase(w->job[j], 60.0, 0.0);
    ns_job_set_compute_ms(w->job[j], 20.0, 40.0);
    w->id[j] = fz_u8(f) % 16 ? (uint64_t)j : fz_u8(f) % 4; /* sometimes repeated */
    w->arrival[j] = fz_u8(f) % 16 ? 100.0 * j : fz_double(f, 0, 1e4);
  }
}

static void world_free(world *w) {
  ns_decision_free(w->d);
  ns_queue_free(w->q);
  ns_policy_free(w->p);
  ns_cluster_free(w->c);
  for (int j = 0; j < MAXJOBS; j++)
    ns_job_free(w->job[j]);
}

/* The queue at the time of a decision: every job not gone, as the caller
   sees it, with hostile additions sometimes. */
static void fill_queue(world *w, fz *f, double now) {
  ns_queue_clear(w->q);
  for (int j = 0; j < w->njobs; j++) {
    if (w->gone[j])
      continue;
    int lie = fz_u8(f) % 32 == 0; /* running, says the caller, but not committed */
    int i = w->running[j] || lie ? ns_queue_add_running(w->q, w->job[j], w->id[j], w->arrival[j])
                                 : ns_queue_add(w->q, w->job[j], w->id[j], w->arrival[j]);
    if (i < 0) {
      check_fail(i, "ns_queue_add");
      continue;
    }
    w->qjob[i] = (size_t)j;
    if (w->running[j] && isfinite(now) && now > w->now)
      w->att[j] += ns_job_gpus(w->job[j]) * (now - w->now);
    double a = fz_u8(f) % 16 ? w->att[j] : fz_double(f, 0, 1e8);
    check_fail(ns_queue_set_attained_ms(w->q, (size_t)i, a), "ns_queue_set_attained_ms");
    if (fz_u8(f) % 2)
      check_fail(ns_queue_set_nw_sens(w->q, (size_t)i, fz_double(f, 0, 2)),
                 "ns_queue_set_nw_sens");
    if (fz_u8(f) % 32 == 0) { /* a waiting job said running (not committed), or a bad flag;
                                 a committed job said waiting is a lie no call can see */
      int flag = (int)fz_range(f, -1, 2);
      if (!(w->running[j] && flag == 0))
        check_fail(ns_queue_set_running(w->q, (size_t)i, flag), "ns_queue_set_running");
    }
  }
}

static void decide(world *w, fz *f) {
  double now = fz_u8(f) % 8 ? w->now + fz_range(f, 0, 5000) : fz_double(f, 0, 1e6);
  fill_queue(w, f, now);
  fz_snap before, after;
  FZ_CHECK(fz_snap_take(w->c, &before) == 0, "snapshot");
  /* a decision, or Dally's pass-by-pass preemption (NS_EINVAL for other orders) */
  const char *fn = fz_u8(f) % 4 == 0 ? "ns_policy_preempt" : "ns_policy_decide";
  int rc = fn[10] == 'p' ? ns_policy_preempt(w->p, w->c, w->q, now, w->d)
                         : ns_policy_decide(w->p, w->c, w->q, now, w->d);
  FZ_CHECK(fz_snap_take(w->c, &after) == 0, "snapshot");
  fz_snap_expect_equal(&before, &after, fn);
  fz_snap_free(&before), fz_snap_free(&after);
  if (rc < 0) {
    FZ_CHECK_FAILURE(rc, fn);
    return;
  }
  FZ_CHECK(rc == NS_OK, "%s returned %d", fn, rc);
  size_t n = ns_queue_count(w->q);
  FZ_CHECK(ns_decision_job_count(w->d) == n, "covers %zu of %zu", ns_decision_job_count(w->d), n);
  for (size_t i = 0; i < n; i++) {
    int st = ns_decision_status(w->d, i);
    FZ_CHECK(st == NS_OK || st == NS_ENOSPACE || st == NS_EINVAL || st == NS_ENOTFOUND,
             "status %d", st);
  }
  if (isfinite(now) && now > w->now)
    w->now = now;
  /* apply: suspended jobs released, then the starts committed in order */
  for (size_t k = 0; k < ns_decision_suspend_count(w->d); k++) {
    size_t i = ns_decision_suspend_job(w->d, k);
    FZ_CHECK(i < n && ns_queue_is_running(w->q, i) == 1, "suspend %zu", i);
    int j = (int)w->qjob[i];
    FZ_CHECK(w->running[j], "suspended job %d was not running", j);
    FZ_CHECK(ns_cluster_release(w->c, w->job[j]) == NS_OK, "release %d", j);
    w->running[j] = 0;
    check_fail(ns_policy_suspended(w->p, w->job[j], w->now), "ns_policy_suspended");
  }
  for (size_t k = 0; k < ns_decision_renew_count(w->d); k++) {
    size_t i = ns_decision_renew_job(w->d, k);
    FZ_CHECK(i < n && w->running[w->qjob[i]], "renew %zu", i);
  }
  for (size_t k = 0; k < ns_decision_start_count(w->d); k++) {
    size_t i = ns_decision_start_job(w->d, k);
    FZ_CHECK(i < n && ns_decision_status(w->d, i) == NS_OK, "start %zu", i);
    int j = (int)w->qjob[i];
    FZ_CHECK(!w->running[j], "%s: start %zu of running job %d (queue index %zu, running in the queue: %d)", fn, k, j, i, ns_queue_is_running(w->q, i));
    int c = ns_cluster_commit(w->c, w->job[j], ns_decision_placement(w->d, k));
    FZ_CHECK(c == NS_OK, "commit of start %zu (job %d): %d", k, j, c);
    w->running[j] = 1;
    check_fail(ns_policy_started(w->p, w->job[j], w->now), "ns_policy_started");
  }
}

static void report(world *w, fz *f) {
  int j = (int)fz_range(f, 0, w->njobs - 1);
  ns_job *job = fz_u8(f) % 32 ? w->job[j] : NULL;
  int rc;
  switch (fz_range(f, 0, 6)) {
  case 0:
    rc = ns_policy_report_iteration(w->p, job, fz_double(f, 0, 200), fz_double(f, 0, 200));
    check_fail(rc, "ns_policy_report_iteration");
    break;
  case 1:
    rc = ns_policy_report_shifted(w->p, job, fz_double(f, 0, 1e4));
    check_fail(rc, "ns_policy_report_shifted");
    break;
  case 2: {
    double hold = -7;
    uint64_t before_n = ns_policy_readjust_count(w->p);
    fz_snap before, after;
    FZ_CHECK(fz_snap_take(w->c, &before) == 0, "snapshot");
    rc = ns_policy_report_allreduce(w->p, w->c, job, fz_double(f, 0, 1e5), w->d, &hold);
    FZ_CHECK(fz_snap_take(w->c, &after) == 0, "snapshot");
    fz_snap_expect_equal(&before, &after, "ns_policy_report_allreduce");
    fz_snap_free(&before), fz_snap_free(&after);
    if (rc < 0) {
      FZ_CHECK_FAILURE(rc, "ns_policy_report_allreduce");
      FZ_CHECK(hold == -7, "hold written on failure");
    } else {
      FZ_CHECK(rc <= NS_POLICY_DRIFT_DROPPED, "answer %d", rc);
      FZ_CHECK((rc == NS_POLICY_DRIFT_HOLD) == isfinite(hold), "answer %d hold %g", rc, hold);
      FZ_CHECK(ns_policy_readjust_count(w->p) >= before_n, "count fell");
    }
    break;
  }
  case 3:
    rc = ns_policy_progress(w->p, job, fz_double(f, 0, 1e4), fz_double(f, 0, 1e6),
                            fz_double(f, 0, 1e6));
    check_fail(rc, "ns_policy_progress");
    break;
  case 4: /* the job finishes: off the cluster, out of the queue; the report may be refused */
    if (job != NULL && !w->gone[j]) {
      if (w->running[j])
        FZ_CHECK(ns_cluster_release(w->c, job) == NS_OK, "release");
      w->running[j] = 0, w->gone[j] = 1;
    }
    rc = ns_policy_finished(w->p, job, fz_u8(f) % 8 ? w->now : fz_double(f, 0, 1e6));
    check_fail(rc, "ns_policy_finished");
    break;
  case 5:
    rc = ns_policy_suspended(w->p, job, fz_double(f, 0, 1e6));
    check_fail(rc, "ns_policy_suspended");
    break;
  default: {
    int links[4], tasks[4];
    uint64_t rem[4];
    size_t nl = (size_t)fz_range(f, 0, 4), ns = (size_t)fz_range(f, 0, 4);
    for (int i = 0; i < 4; i++)
      links[i] = (int)fz_range(f, -2, 5), tasks[i] = (int)fz_range(f, -1, 3), rem[i] = fz_u32(f);
    int start = -1;
    rc = ns_policy_admit(w->p, fz_u32(f), fz_u8(f) % 16 ? links : NULL, nl, tasks,
                         fz_u8(f) % 16 ? rem : NULL, ns, fz_double(f, 0, 1e-5),
                         fz_double(f, 0, 1e-6), &start);
    check_fail(rc, "ns_policy_admit");
    FZ_CHECK(rc < 0 ? start == -1 : (start == 0 || start == 1), "start %d", start);
    break;
  }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz f = {data, size};
  world w;
  memset(&w, 0, sizeof w);
  build(&w, &f);
  for (int step = 0; step < 40 && !fz_done(&f); step++) {
    switch (fz_range(&f, 0, 3)) {
    case 0:
    case 1:
      decide(&w, &f);
      break;
    case 2:
      report(&w, &f);
      break;
    default: {
      ns_policy *cl = ns_policy_clone(w.p);
      FZ_CHECK(cl != NULL, "clone");
      FZ_CHECK(strcmp(ns_policy_name(cl), ns_policy_name(w.p)) == 0, "clone's name");
      ns_policy_free(cl);
      size_t need = 0;
      int rc = ns_policy_save(w.p, NULL, 0, &need);
      FZ_CHECK(rc == NS_ERANGE || rc == NS_OK, "save sizing %d", rc);
      break;
    }
    }
  }
  world_free(&w);
  return 0;
}
