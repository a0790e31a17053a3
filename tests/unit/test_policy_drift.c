/*
 * tests/unit/test_policy_drift.c - CASSINI's drift re-adjustment through the
 * policy object (netsched/policy.h "CASSINI's drift re-adjustment",
 * src/policy/drift.c), called directly as a cluster manager calls it: report
 * each job's iteration and the slot its shift was applied to, then each
 * all-reduce start; the policy answers nothing, new shifts, a hold or a
 * dropped schedule. Every expected value is worked by hand below.
 *
 * The fabric: 1 leaf, no spine, 3 servers x 2 GPUs (server s holds GPUs 2s,
 * 2s + 1), one 10 Gbps NIC port per server. A on GPUs {0, 2} and B on {1, 3}
 * each run a 2-worker ring across servers 0 and 1: both use the tx and rx
 * ports of both servers, so the candidate has one (merged) 10 Gbps link
 * carrying A and B. Their profile is ALGORITHMS.md's CASSINI worked example
 * (1): iteration 100 ms, compute 50 ms (0 Gbps) then the all-reduce 50 ms at
 * C = 10 Gbps. Unshifted both communicate together (score 0.5); the optimum
 * (score 1.0) shifts B by 50 ms against A, the reference at 0 (committed
 * first): the only shift that puts B's all-reduce entirely in A's compute
 * (50 ms is 36 bins of 100 / 72 ms, so the binned search finds it exactly).
 * C on GPUs {4, 5} (server 2 alone) shares no link.
 *
 * Both report compute 50 ms and all-reduce 50 ms (P = 100 ms); A's shift is
 * applied at slot 1000, B's at 1050: B's ideal all-reduce starts are
 * 1050 + 50 + k 100 = 1100 + k 100. Drift threshold 5 % of P: 5 ms.
 */
#include "helpers/ns_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct fab {
  ns_cluster *c;
  ns_job *a, *b, *x; /* x: C, alone on server 2 */
  ns_decision *d;
} fab;

static ns_job *profiled(const char *name, double compute, double comm) {
  ns_job *j = ns_job_new(name, 2);
  assert_non_null(j);
  assert_int_equal(ns_job_set_iteration_ms(j, compute + comm), NS_OK);
  assert_int_equal(ns_job_add_phase(j, compute, 0.0), NS_OK);
  assert_int_equal(ns_job_add_phase(j, comm, 10.0), NS_OK);
  return j;
}

static void commit(ns_cluster *c, ns_job *j, int g0, int g1) {
  ns_placement *p = ns_placement_new();
  assert_int_equal(ns_placement_add_gpu(p, g0), NS_OK);
  assert_int_equal(ns_placement_add_gpu(p, g1), NS_OK);
  assert_int_equal(ns_cluster_commit(c, j, p), NS_OK);
  ns_placement_free(p);
}

static fab make(void) {
  fab f;
  f.c = ns_cluster_new_leaf_spine(1, 0, 3, 2, 0, 10.0);
  assert_non_null(f.c);
  assert_int_equal(ns_cluster_set_nic_ports(f.c, 1, 10.0), NS_OK);
  f.a = profiled("A", 50, 50), f.b = profiled("B", 50, 50), f.x = profiled("C", 50, 50);
  commit(f.c, f.a, 0, 2);
  commit(f.c, f.b, 1, 3);
  commit(f.c, f.x, 4, 5);
  f.d = ns_decision_new();
  assert_non_null(f.d);
  return f;
}

static void unmake(fab *f) {
  ns_cluster_free(f->c);
  ns_job_free(f->a), ns_job_free(f->b), ns_job_free(f->x);
  ns_decision_free(f->d);
}

/* The caller's reports: every job's iteration, A and B shifted to their
   slots (C too, at 0: its ideal all-reduce starts are 50 + k 100). */
static ns_policy *scheduled(const fab *f, ns_policy_drift_rule rule) {
  ns_policy *p = ns_policy_new("cassini-ff");
  assert_non_null(p);
  assert_int_equal(ns_policy_set_cassini_drift_rule(p, rule), NS_OK);
  assert_int_equal(ns_policy_report_iteration(p, f->a, 50, 50), NS_OK);
  assert_int_equal(ns_policy_report_iteration(p, f->b, 50, 50), NS_OK);
  assert_int_equal(ns_policy_report_iteration(p, f->x, 50, 50), NS_OK);
  assert_int_equal(ns_policy_report_shifted(p, f->a, 1000), NS_OK);
  assert_int_equal(ns_policy_report_shifted(p, f->b, 1050), NS_OK);
  assert_int_equal(ns_policy_report_shifted(p, f->x, 0), NS_OK);
  return p;
}

/* B's all-reduce at t: the policy's answer; hold as returned. */
static int at(ns_policy *p, fab *f, double t, double *hold) {
  *hold = -1;
  return ns_policy_report_allreduce(p, f->c, f->b, t, f->d, hold);
}

static void assert_no_readjustment(const fab *f) {
  double sh = -1;
  assert_int_equal(ns_decision_readjust_shift_ms(f->d, f->b, &sh), NS_ENOTFOUND);
  assert_near(sh, -1, 0);
}

/* Within 5 ms of 1100 + k 100 nothing happens (1304: 4 ms late; 1296: 4 ms
   early); at 1306 (6 ms late) B drifted: its links re-ranked from the
   cluster give A 0 and B 50 (the optimum above), the shifts applied again
   from now (rule READJUST). Its first re-adjustment opens a gap of 10 x 2^0
   iterations: until 1306 + 1000 = 2306 no re-adjustment (1406, 6 ms late
   still, answers nothing); at 2306 the second (gap 10 x 2^1 x 100 = 2000:
   until 4306), so 4206 answers nothing and 4306 re-adjusts a third time. */
static void test_readjust_within_and_beyond(void **state) {
  (void)state;
  fab f = make();
  ns_policy *p = scheduled(&f, NS_POLICY_DRIFT_RULE_READJUST);
  double hold = -1, sh = -1;
  assert_int_equal(at(p, &f, 1304, &hold), NS_POLICY_DRIFT_NONE);
  assert_true(isnan(hold));
  assert_no_readjustment(&f);
  assert_int_equal(at(p, &f, 1296, &hold), NS_POLICY_DRIFT_NONE);
  assert_int_equal(at(p, &f, 1100, &hold), NS_POLICY_DRIFT_NONE);
  assert_int_equal(ns_policy_readjust_count(p), 0);
  assert_int_equal(at(p, &f, 1306, &hold), NS_POLICY_DRIFT_SHIFTS);
  assert_true(isnan(hold));
  assert_int_equal(ns_policy_readjust_count(p), 1);
  assert_int_equal(ns_decision_readjust_shift_ms(f.d, f.a, &sh), NS_OK);
  assert_near(sh, 0.0, 1e-9);
  assert_int_equal(ns_decision_readjust_shift_ms(f.d, f.b, &sh), NS_OK);
  assert_near(sh, 50.0, 1e-9);
  /* C shares no link with B: not shifted by it */
  assert_int_equal(ns_decision_readjust_shift_ms(f.d, f.x, &sh), NS_ENOTFOUND);
  /* no decision of starts comes with it */
  assert_int_equal(ns_decision_start_count(f.d), 0);
  assert_int_equal(ns_decision_job_count(f.d), 0);
  /* the gap */
  assert_int_equal(at(p, &f, 1406, &hold), NS_POLICY_DRIFT_NONE);
  assert_int_equal(at(p, &f, 2206, &hold), NS_POLICY_DRIFT_NONE);
  assert_int_equal(ns_policy_readjust_count(p), 1);
  assert_int_equal(at(p, &f, 2306, &hold), NS_POLICY_DRIFT_SHIFTS);
  assert_int_equal(at(p, &f, 4206, &hold), NS_POLICY_DRIFT_NONE);
  assert_int_equal(ns_policy_readjust_count(p), 2);
  assert_int_equal(at(p, &f, 4306, &hold), NS_POLICY_DRIFT_SHIFTS);
  assert_int_equal(ns_policy_readjust_count(p), 3);
  /* the caller applied the new shift: B's next compute at 4350, its ideal
     all-reduces at 4400 + k 100; 4504 is on schedule, and the gap (10 x
     2^2 x 100 after 4306) still holds at 8206 for a drift of 6 ms */
  assert_int_equal(ns_policy_report_shifted(p, f.b, 4350), NS_OK);
  assert_int_equal(at(p, &f, 4504, &hold), NS_POLICY_DRIFT_NONE);
  assert_int_equal(at(p, &f, 8206, &hold), NS_POLICY_DRIFT_NONE);
  assert_int_equal(at(p, &f, 8306, &hold), NS_POLICY_DRIFT_SHIFTS);
  /* a restart reports a new iteration: a new record, no schedule, no gap */
  assert_int_equal(ns_policy_report_iteration(p, f.b, 50, 50), NS_OK);
  assert_int_equal(at(p, &f, 8356, &hold), NS_POLICY_DRIFT_NONE);
  assert_int_equal(ns_policy_report_shifted(p, f.b, 8400), NS_OK);
  assert_int_equal(at(p, &f, 8456, &hold), NS_POLICY_DRIFT_SHIFTS); /* 6 ms late, no gap */
  assert_int_equal(ns_policy_readjust_count(p), 5);
  ns_policy_free(p);
  unmake(&f);
}

/* Rule WAIT: the profiles' iterations are what the jobs report (100 ms),
   so ns_cassini_readjust finds no measured drift and the shifts stand: B
   waits for its next ideal slot after this all-reduce alone. At 1306 it
   ends at 1356; slots are 1050 + k 100, the first at or after 1356 is k = 4:
   1450. WAIT keeps no gap: at 1406 (6 ms late again) it ends at 1456 and
   holds until 1550. */
static void test_wait_holds_until_next_slot(void **state) {
  (void)state;
  fab f = make();
  ns_policy *p = scheduled(&f, NS_POLICY_DRIFT_RULE_WAIT);
  double hold = -1;
  assert_int_equal(at(p, &f, 1304, &hold), NS_POLICY_DRIFT_NONE);
  assert_true(isnan(hold));
  assert_int_equal(at(p, &f, 1306, &hold), NS_POLICY_DRIFT_HOLD);
  assert_near(hold, 1450, 1e-9);
  assert_no_readjustment(&f);
  assert_int_equal(at(p, &f, 1406, &hold), NS_POLICY_DRIFT_HOLD);
  assert_near(hold, 1550, 1e-9);
  assert_int_equal(ns_policy_readjust_count(p), 2);
  ns_policy_free(p);
  unmake(&f);
}

/* A measured drift: B reports its all-reduce alone at 60 ms (iteration 110
   ms, 10 % off its 100 ms profile, beyond 5 %). Even under WAIT the policy
   re-optimises with B stretched to 110 ms (phases 55 ms at 0 and 55 ms at
   10 Gbps, ns_cassini_readjust) and answers new shifts: A at 0, B at what
   the optimiser gives a link carrying A and the stretched B - the oracle
   is ns_cassini_score on that hand-built link, B's shift relative to A's
   (Algorithm 1 from A at 0 over one link: t_B = w_B - w_A mod 110). B's
   ideal all-reduce starts: 1050 + 50 + k 110; 1306 is 46 ms late. */
static void test_measured_drift_reoptimises(void **state) {
  (void)state;
  fab f = make();
  ns_policy *p = scheduled(&f, NS_POLICY_DRIFT_RULE_WAIT);
  assert_int_equal(ns_policy_report_iteration(p, f.b, 50, 60), NS_OK);
  assert_int_equal(ns_policy_report_shifted(p, f.b, 1050), NS_OK);
  double hold = -1, sa = -1, sb = -1;
  assert_int_equal(at(p, &f, 1100 + 2 * 110 + 4, &hold), NS_POLICY_DRIFT_NONE); /* 4 of 5.5 */
  assert_int_equal(at(p, &f, 1306, &hold), NS_POLICY_DRIFT_SHIFTS);
  assert_true(isnan(hold));
  assert_int_equal(ns_decision_readjust_shift_ms(f.d, f.a, &sa), NS_OK);
  assert_int_equal(ns_decision_readjust_shift_ms(f.d, f.b, &sb), NS_OK);
  ns_job *sa_job = profiled("a", 50, 50), *sb_job = profiled("b", 55, 55);
  ns_link *l = ns_link_new("nic", 10.0);
  assert_int_equal(ns_link_add_job(l, sa_job), NS_OK);
  assert_int_equal(ns_link_add_job(l, sb_job), NS_OK);
  ns_cassini_opts *co = ns_cassini_opts_new();
  double score = 0, w[2];
  assert_int_equal(ns_cassini_score(l, co, &score, w, 2), NS_OK);
  assert_near(sa, 0.0, 1e-9);
  assert_near(sb, fmod(w[1] - w[0] + 110, 110), 1e-9);
  ns_cassini_opts_free(co);
  ns_link_free(l);
  ns_job_free(sa_job), ns_job_free(sb_job);
  ns_policy_free(p);
  unmake(&f);
}

/* C shares no link: its drift (at 60: 10 ms late of 50 + k 100) finds
   nothing to re-rank; under READJUST its schedule is dropped (counted),
   and it answers nothing after (no schedule) until a new shift. */
static void test_lone_job_drops_schedule(void **state) {
  (void)state;
  fab f = make();
  ns_policy *p = scheduled(&f, NS_POLICY_DRIFT_RULE_READJUST);
  double hold = -1;
  assert_int_equal(ns_policy_report_allreduce(p, f.c, f.x, 60, f.d, &hold),
                   NS_POLICY_DRIFT_DROPPED);
  assert_true(isnan(hold));
  assert_int_equal(ns_policy_readjust_count(p), 1);
  assert_int_equal(ns_policy_report_allreduce(p, f.c, f.x, 5000 + 77, f.d, &hold),
                   NS_POLICY_DRIFT_NONE);
  assert_int_equal(ns_policy_readjust_count(p), 1);
  /* a policy without CASSINI keeps no schedule: nothing, however late */
  ns_policy *ff = ns_policy_new("ff");
  assert_int_equal(ns_policy_report_iteration(ff, f.b, 50, 50), NS_OK);
  assert_int_equal(ns_policy_report_shifted(ff, f.b, 1050), NS_OK);
  assert_int_equal(ns_policy_report_allreduce(ff, f.c, f.b, 1340, f.d, &hold),
                   NS_POLICY_DRIFT_NONE);
  assert_int_equal(ns_policy_readjust_count(ff), 0);
  /* threshold 0: never */
  ns_policy *never = ns_policy_new("cassini-ff");
  assert_int_equal(ns_policy_set_cassini_drift(never, 0.0), NS_OK);
  assert_int_equal(ns_policy_report_iteration(never, f.b, 50, 50), NS_OK);
  assert_int_equal(ns_policy_report_shifted(never, f.b, 1050), NS_OK);
  assert_int_equal(ns_policy_report_allreduce(never, f.c, f.b, 1340, f.d, &hold),
                   NS_POLICY_DRIFT_NONE);
  ns_policy_free(never);
  ns_policy_free(ff);
  ns_policy_free(p);
  unmake(&f);
}

/* Bad input: a status, a message naming the argument and quoting the
   value, and the policy (schedules, gap, count), the decision and the
   output unchanged: afterwards 1304 still answers nothing and 1306 still
   re-adjusts with B at 50, as on a fresh policy. */
static void test_bad_input_leaves_policy_unchanged(void **state) {
  (void)state;
  fab f = make();
  ns_policy *p = scheduled(&f, NS_POLICY_DRIFT_RULE_READJUST);
  double hold = 7, sh = -1;
  ns_job *stranger = profiled("stranger", 50, 50);
  assert_fails_with(ns_policy_report_allreduce(p, f.c, stranger, 1306, f.d, &hold), NS_ENOTFOUND,
                    "'stranger'");
  assert_fails_with(ns_policy_report_shifted(p, stranger, 10), NS_ENOTFOUND, "'stranger'");
  assert_fails_with(ns_policy_report_allreduce(p, f.c, f.b, -1, f.d, &hold), NS_EINVAL,
                    "start_ms must be finite, in [0, 1e+15] (got -1)");
  assert_fails_with(ns_policy_report_allreduce(p, f.c, f.b, NAN, f.d, &hold), NS_EINVAL,
                    "start_ms");
  assert_non_null(strstr(ns_last_error(), "nan"));
  assert_fails_with(ns_policy_report_allreduce(p, f.c, f.b, 1306, NULL, &hold), NS_EINVAL, "d");
  assert_fails_with(ns_policy_report_allreduce(p, f.c, f.b, 1306, f.d, NULL), NS_EINVAL,
                    "hold_until_ms");
  assert_fails_with(ns_policy_report_iteration(p, f.b, NAN, 50), NS_EINVAL, "compute_ms");
  assert_fails_with(ns_policy_report_iteration(p, f.b, 50, -5), NS_EINVAL,
                    "allreduce_ms must be finite, in [0, 1e+15] (got -5)");
  assert_fails_with(ns_policy_report_shifted(p, f.b, INFINITY), NS_EINVAL, "slot_ms");
  assert_fails_with(ns_policy_report_shifted(p, f.b, -2), NS_EINVAL, "(got -2)");
  assert_fails_with(ns_policy_report_iteration(NULL, f.b, 50, 50), NS_EINVAL, "p");
  ns_policy *r = ns_policy_new("ff");
  assert_fails_with(ns_policy_set_cassini_drift_rule(r, 2), NS_EINVAL,
                    "rule must be in [0, 1] (got 2)");
  ns_policy_free(r);
  assert_near(hold, 7, 0); /* outputs untouched by a failure */
  /* a drifted job not committed on c: c is read, the job is not there */
  ns_cluster *empty = ns_cluster_new_leaf_spine(1, 0, 3, 2, 0, 10.0);
  assert_fails_with(ns_policy_report_allreduce(p, empty, f.b, 1306, f.d, &hold), NS_EINVAL,
                    "job 'B' is not committed on c");
  ns_cluster_free(empty);
  assert_int_equal(ns_policy_readjust_count(p), 0);
  /* the drift threshold: out of [0, 1) refused, quoting the value */
  ns_policy *q = ns_policy_new("cassini-ff");
  assert_fails_with(ns_policy_set_cassini_drift(q, 1.0), NS_EINVAL, "fraction 1 is not in [0, 1)");
  assert_fails_with(ns_policy_set_cassini_drift(q, -0.1), NS_EINVAL, "fraction -0.1");
  assert_fails_with(ns_policy_set_cassini_drift(q, NAN), NS_EINVAL, "fraction nan");
  assert_int_equal(ns_policy_report_iteration(q, f.b, 50, 50), NS_OK);
  assert_int_equal(ns_policy_report_shifted(q, f.b, 1050), NS_OK);
  assert_int_equal(ns_policy_report_allreduce(q, f.c, f.b, 1304, f.d, &hold),
                   NS_POLICY_DRIFT_NONE); /* still 5 % */
  assert_int_equal(ns_policy_report_allreduce(q, f.c, f.b, 1306, f.d, &hold),
                   NS_POLICY_DRIFT_SHIFTS);
  ns_policy_free(q);
  /* p: the failures changed nothing */
  assert_int_equal(at(p, &f, 1304, &hold), NS_POLICY_DRIFT_NONE);
  assert_int_equal(at(p, &f, 1306, &hold), NS_POLICY_DRIFT_SHIFTS);
  assert_int_equal(ns_decision_readjust_shift_ms(f.d, f.b, &sh), NS_OK);
  assert_near(sh, 50.0, 1e-9);
  /* a failure after it leaves the decision's re-adjustment in place */
  assert_fails_with(at(p, &f, NAN, &hold), NS_EINVAL, "start_ms");
  assert_int_equal(ns_decision_readjust_shift_ms(f.d, f.b, &sh), NS_OK);
  assert_int_equal(ns_policy_readjust_count(p), 1);
  /* after the first decision the rule is fixed like every option */
  ns_queue *qq = ns_queue_new();
  assert_int_equal(ns_policy_decide(p, f.c, qq, 0.0, f.d), NS_OK);
  assert_fails_with(ns_policy_set_cassini_drift_rule(p, NS_POLICY_DRIFT_RULE_WAIT), NS_ESTATE,
                    "already decided");
  assert_int_equal(ns_decision_readjust_shift_ms(f.d, f.b, &sh), NS_ENOTFOUND); /* reset */
  /* a finished job is forgotten (its handle may be reused) */
  assert_int_equal(ns_policy_finished(p, f.b, 9000), NS_OK);
  assert_fails_with(at(p, &f, 9006, &hold), NS_ENOTFOUND, "'B'");
  assert_int_equal(ns_policy_suspended(p, f.a, 9000), NS_OK);
  assert_fails_with(ns_policy_report_shifted(p, f.a, 9100), NS_ENOTFOUND, "'A'");
  ns_queue_free(qq);
  ns_job_free(stranger);
  ns_policy_free(p);
  unmake(&f);
}

/* Many jobs come and go (the table's map deletes by backward shift, the
   last record fills a hole): after interleaved forgets every remaining job
   still has its own schedule. Job i's slot is 7 i: its all-reduce at 7 i +
   50 is on schedule (another job's slot would put it 7 (i - k) mod 100 off),
   at 7 i + 56 it drifted, and the policy then reads the cluster, where it
   is not committed (NS_EINVAL): the drift was seen against its own slot. */
static void test_many_jobs_table(void **state) {
  (void)state;
  enum { N = 300 };
  ns_job *j[N];
  ns_policy *p = ns_policy_new("cassini-ff");
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 3, 2, 0, 10.0);
  ns_decision *d = ns_decision_new();
  double hold;
  for (int i = 0; i < N; i++) {
    char name[16];
    snprintf(name, sizeof name, "j%d", i);
    j[i] = profiled(name, 50, 50);
    assert_int_equal(ns_policy_report_iteration(p, j[i], 50, 50), NS_OK);
    assert_int_equal(ns_policy_report_shifted(p, j[i], 7.0 * i), NS_OK);
  }
  for (int i = 0; i < N; i += 3)
    assert_int_equal(ns_policy_finished(p, j[i], 0), NS_OK);
  for (int i = 0; i < N; i++) {
    int on = ns_policy_report_allreduce(p, c, j[i], 7.0 * i + 50, d, &hold);
    int off = ns_policy_report_allreduce(p, c, j[i], 7.0 * i + 56, d, &hold);
    assert_int_equal(on, i % 3 == 0 ? NS_ENOTFOUND : NS_POLICY_DRIFT_NONE);
    assert_int_equal(off, i % 3 == 0 ? NS_ENOTFOUND : NS_EINVAL);
  }
  assert_int_equal(ns_policy_readjust_count(p), 0);
  ns_cluster_free(c);
  ns_decision_free(d);
  for (int i = 0; i < N; i++)
    ns_job_free(j[i]);
  ns_policy_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_readjust_within_and_beyond),
      cmocka_unit_test(test_wait_holds_until_next_slot),
      cmocka_unit_test(test_measured_drift_reoptimises),
      cmocka_unit_test(test_lone_job_drops_schedule),
      cmocka_unit_test(test_bad_input_leaves_policy_unchanged),
      cmocka_unit_test(test_many_jobs_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
