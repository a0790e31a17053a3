/*
 * tests/abi/test_cassini_abi.c - misuse of every public CASSINI function
 * (NULL handles, out-of-range ints, NaN/inf/negative doubles, bad jobs)
 * returns the documented status with a message naming the argument, and
 * never crashes, hangs or yields a NaN score. Check, fork mode.
 */
#include <limits.h>

#include "abi_test.h"

static ns_job *job_up_down(const char *name, double iter, double up, double gbps) {
  ns_job *j = ns_job_new(name, 1);
  ns_job_set_iteration_ms(j, iter);
  ns_job_add_phase(j, up, gbps);
  ns_job_add_phase(j, iter - up, 0);
  return j;
}

START_TEST(test_opts_misuse) {
  ns_cassini_opts *o = ns_cassini_opts_new();
  ck_assert_ptr_nonnull(o);
  ns_cassini_opts_free(NULL);
  const double bad[] = {NAN, INFINITY, -INFINITY, -1, 0, 180.5, 1e300};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    ck_assert_fails(ns_cassini_opts_set_angle_step_deg(o, bad[i]), NS_EINVAL, "deg");
  for (size_t i = 0; i < 5; i++)
    ck_assert_fails(ns_cassini_opts_set_time_quantum_ms(o, bad[i]), NS_EINVAL, "ms");
  const int badt[] = {0, -1, 257, INT_MAX, INT_MIN};
  for (size_t i = 0; i < sizeof badt / sizeof *badt; i++)
    ck_assert_fails(ns_cassini_opts_set_threads(o, badt[i]), NS_EINVAL, "threads");
  ck_assert_fails(ns_cassini_opts_set_angle_step_deg(NULL, 5), NS_EINVAL, "o");
  ck_assert_fails(ns_cassini_opts_set_time_quantum_ms(NULL, 1), NS_EINVAL, "o");
  ck_assert_fails(ns_cassini_opts_set_threads(NULL, 1), NS_EINVAL, "o");
  ck_assert_fails(ns_cassini_opts_threads(NULL), NS_EINVAL, "o");
  ck_assert(isnan(ns_cassini_opts_angle_step_deg(NULL)));
  ck_assert(isnan(ns_cassini_opts_time_quantum_ms(NULL)));
  ck_assert(ns_cassini_opts_angle_step_deg(o) == 5.0); /* failed setters changed nothing */
  ck_assert(ns_cassini_opts_time_quantum_ms(o) == 1.0);
  ck_assert_int_eq(ns_cassini_opts_threads(o), 1);
  ns_cassini_opts_free(o);
}
END_TEST

START_TEST(test_score_misuse) {
  ns_cassini_opts *o = ns_cassini_opts_new();
  ns_job *a = job_up_down("a", 100, 50, 50), *b = job_up_down("b", 100, 50, 50);
  ns_link *l = ns_link_new("l", 50), *empty = ns_link_new("empty", 50);
  ns_link_add_job(l, a);
  ns_link_add_job(l, b);
  double s = 0, sh[2], p, q;
  ck_assert_fails(ns_cassini_score(NULL, o, &s, sh, 2), NS_EINVAL, "link");
  ck_assert_fails(ns_cassini_score(l, NULL, &s, sh, 2), NS_EINVAL, "o");
  ck_assert_fails(ns_cassini_score(l, o, NULL, sh, 2), NS_EINVAL, "score");
  ck_assert_fails(ns_cassini_score(l, o, &s, NULL, 2), NS_EINVAL, "shifts_ms");
  ck_assert_fails(ns_cassini_score(l, o, &s, sh, 1), NS_EINVAL, "nshifts");
  ck_assert_fails(ns_cassini_score(empty, o, &s, sh, 2), NS_EINVAL, "no jobs");
  ck_assert_fails(ns_cassini_score_at(NULL, o, sh, 2, &s), NS_EINVAL, "link");
  ck_assert_fails(ns_cassini_score_at(l, NULL, sh, 2, &s), NS_EINVAL, "o");
  ck_assert_fails(ns_cassini_score_at(l, o, NULL, 2, &s), NS_EINVAL, "shifts_ms");
  ck_assert_fails(ns_cassini_score_at(l, o, sh, 2, NULL), NS_EINVAL, "score");
  ck_assert_fails(ns_cassini_score_at(l, o, sh, 0, &s), NS_EINVAL, "nshifts");
  const double bad[] = {NAN, INFINITY, -INFINITY};
  for (size_t i = 0; i < 3; i++) {
    double at[2] = {0, bad[i]};
    ck_assert_fails(ns_cassini_score_at(l, o, at, 2, &s), NS_EINVAL, "shifts_ms[1]");
  }
  ck_assert_fails(ns_cassini_link_perimeter(NULL, o, &p, &q), NS_EINVAL, "link");
  ck_assert_fails(ns_cassini_link_perimeter(l, NULL, &p, &q), NS_EINVAL, "o");
  ck_assert_fails(ns_cassini_link_perimeter(l, o, NULL, &q), NS_EINVAL, "perimeter_ms");
  ck_assert_fails(ns_cassini_link_perimeter(l, o, &p, NULL), NS_EINVAL, "quantum_ms");
  ck_assert_fails(ns_cassini_link_perimeter(empty, o, &p, &q), NS_EINVAL, "no jobs");
  ns_link_free(l);
  ns_link_free(empty);
  ns_job_free(a);
  ns_job_free(b);
  ns_cassini_opts_free(o);
}
END_TEST

/* Jobs that cannot be scored: status + message, never a NaN score. */
START_TEST(test_score_bad_jobs) {
  ns_cassini_opts *o = ns_cassini_opts_new();
  ns_job *ok = job_up_down("ok", 100, 50, 50);
  ns_job *untiled = ns_job_new("untiled", 1), *noiter = ns_job_new("noiter", 1);
  ns_job_set_iteration_ms(untiled, 100);
  ns_job_add_phase(untiled, 99, 5);
  ns_job_add_phase(noiter, 10, 5);
  /* A rate whose bins would overflow never gets in: every real setter caps
     at 1e15 and quotes the value as written. */
  ns_job *huge = ns_job_new("huge", 1);
  ck_assert_fails(ns_job_add_phase(huge, 50, 1e308), NS_EINVAL, "(got 1e+308)");
  ck_assert_msg(strstr(ns_last_error(), "1e+15") != NULL, "%s", ns_last_error());
  ck_assert_uint_eq(ns_job_phase_count(huge), 0);
  ns_job *primes[3] = {job_up_down("p7", 7, 3, 1), job_up_down("p11", 11, 3, 1),
                       job_up_down("p13", 13, 3, 1)};
  ns_job *bad[] = {untiled, noiter};
  const char *needle[] = {"off by", "no iteration time"};
  const int status[] = {NS_EINVAL, NS_EINVAL};
  for (size_t i = 0; i < 2; i++) {
    ns_link *l = ns_link_new("l", 50);
    ns_link_add_job(l, ok);
    ns_link_add_job(l, bad[i]);
    double s = 12345, sh[2], at[2] = {0, 0};
    ck_assert_fails(ns_cassini_score(l, o, &s, sh, 2), status[i], needle[i]);
    ck_assert_fails(ns_cassini_score_at(l, o, at, 2, &s), status[i], needle[i]);
    ck_assert(s == 12345);
    ns_link_free(l);
  }
  ns_link *l = ns_link_new("l", 50);
  for (int i = 0; i < 3; i++)
    ns_link_add_job(l, primes[i]);
  double s = 0, sh[3], p, q;
  ck_assert_fails(ns_cassini_score(l, o, &s, sh, 3), NS_ERANGE, "perimeter");
  ck_assert_fails(ns_cassini_link_perimeter(l, o, &p, &q), NS_ERANGE, "perimeter");
  /* an absurdly fine angle step is refused, not ground through */
  ns_cassini_opts_set_angle_step_deg(o, 1e-9);
  ns_link *two = ns_link_new("two", 50);
  ns_link_add_job(two, ok);
  ns_link_add_job(two, primes[0]);
  ck_assert_fails(ns_cassini_score(two, o, &s, sh, 3), NS_ERANGE, "bins");
  ns_link_free(two);
  ns_link_free(l);
  for (int i = 0; i < 3; i++)
    ns_job_free(primes[i]);
  ns_job_free(ok);
  ns_job_free(untiled);
  ns_job_free(noiter);
  ns_job_free(huge);
  ns_cassini_opts_free(o);
}
END_TEST

START_TEST(test_affinity_misuse) {
  ns_affinity *g = ns_affinity_new();
  ck_assert_ptr_nonnull(g);
  ns_affinity_free(NULL);
  ns_job *a = job_up_down("a", 100, 50, 50);
  ns_link *l = ns_link_new("l", 50);
  double t;
  ck_assert_fails(ns_affinity_add_edge(NULL, a, l, 0), NS_EINVAL, "g");
  ck_assert_fails(ns_affinity_add_edge(g, NULL, l, 0), NS_EINVAL, "job");
  ck_assert_fails(ns_affinity_add_edge(g, a, NULL, 0), NS_EINVAL, "link");
  const double bad[] = {NAN, INFINITY, -INFINITY, -1};
  for (size_t i = 0; i < 4; i++)
    ck_assert_fails(ns_affinity_add_edge(g, a, l, bad[i]), NS_EINVAL, "shift_ms");
  ck_assert_fails(ns_affinity_has_loop(NULL), NS_EINVAL, "g");
  ck_assert_fails(ns_affinity_solve(NULL), NS_EINVAL, "g");
  ck_assert_fails(ns_affinity_shift_ms(NULL, a, &t), NS_EINVAL, "g");
  ck_assert_fails(ns_affinity_shift_ms(g, NULL, &t), NS_EINVAL, "job");
  ck_assert_fails(ns_affinity_shift_ms(g, a, NULL), NS_EINVAL, "shift_ms");
  ck_assert_fails(ns_affinity_shift_ms(g, a, &t), NS_ENOTFOUND, "a");
  ck_assert_int_eq(ns_affinity_has_loop(g), 0);
  ck_assert_int_eq(ns_affinity_solve(g), NS_OK); /* empty graph: nothing to do */
  ns_affinity_free(g);
  ns_link_free(l);
  ns_job_free(a);
}
END_TEST

START_TEST(test_rank_misuse) {
  ns_cassini_opts *o = ns_cassini_opts_new();
  ns_candidate *c = ns_candidate_new();
  ck_assert_ptr_nonnull(c);
  ns_candidate_free(NULL);
  ns_job *a = job_up_down("a", 100, 50, 50);
  ns_link *l = ns_link_new("l", 50);
  ns_candidate *cs[2] = {c, NULL};
  size_t best = 7;
  double scores[2], t;
  ck_assert_fails(ns_candidate_add(NULL, a, l), NS_EINVAL, "c");
  ck_assert_fails(ns_candidate_add(c, NULL, l), NS_EINVAL, "job");
  ck_assert_fails(ns_candidate_add(c, a, NULL), NS_EINVAL, "link");
  ck_assert_fails(ns_cassini_rank(NULL, 1, o, &best, scores), NS_EINVAL, "cands");
  ck_assert_fails(ns_cassini_rank(cs, 0, o, &best, scores), NS_EINVAL, "n");
  ck_assert_fails(ns_cassini_rank(cs, 1, NULL, &best, scores), NS_EINVAL, "o");
  ck_assert_fails(ns_cassini_rank(cs, 1, o, NULL, scores), NS_EINVAL, "best");
  ck_assert_fails(ns_cassini_rank(cs, 2, o, &best, scores), NS_EINVAL, "cands[1]");
  ck_assert_int_eq(best, 7);
  ck_assert_fails(ns_candidate_shift_ms(NULL, a, &t), NS_EINVAL, "c");
  ck_assert_fails(ns_candidate_shift_ms(c, NULL, &t), NS_EINVAL, "job");
  ck_assert_fails(ns_candidate_shift_ms(c, a, NULL), NS_EINVAL, "shift_ms");
  ck_assert_fails(ns_candidate_shift_ms(c, a, &t), NS_ENOTFOUND, "a");
  ck_assert_int_eq(ns_candidate_add(c, a, l), NS_OK);
  ck_assert_fails(ns_candidate_shift_ms(c, a, &t), NS_ESTATE, "ns_cassini_rank");
  ck_assert_int_eq(ns_cassini_rank(cs, 1, o, &best, NULL), NS_OK); /* scores optional */
  ck_assert_int_eq(best, 0);
  ck_assert_int_eq(ns_candidate_shift_ms(c, a, &t), NS_OK);
  ck_assert(t == 0);
  ns_candidate_free(c);
  ns_link_free(l);
  ns_job_free(a);
  ns_cassini_opts_free(o);
}
END_TEST

/* ns_cluster_set_nic_ports (core.h "Port model"): bad arguments name the
   argument and quote the value, and leave the cluster as it was: the
   candidate of B on GPUs {1, 5} next to A on {0, 4} (1 leaf, 2 servers x 4
   GPUs) stays empty (one port per GPU: nothing shared; B not in it,
   NS_ENOTFOUND) until one port per server is set, which puts B and A on
   shared NIC ports (B in the candidate: NS_ESTATE before ranking). */
START_TEST(test_nic_ports_misuse) {
  static const double bad[] = {NAN, INFINITY, -INFINITY, -1.0, 0.0, 2e15};
  static const char *const quoted[] = {"nan", "inf", "-inf", "-1", "0", "2e+15"};
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 2, 4, 0, 100);
  ns_cluster *d = ns_cluster_new_leaf_spine(1, 0, 2, 4, 0, 100);
  ns_job *a = job_up_down("a", 100, 50, 50), *b = job_up_down("b", 100, 50, 50);
  ns_job *a2 = ns_job_new("a2", 2), *b2 = ns_job_new("b2", 2);
  ns_job_set_iteration_ms(a2, 100), ns_job_add_phase(a2, 50, 50), ns_job_add_phase(a2, 50, 0);
  ns_job_set_iteration_ms(b2, 100), ns_job_add_phase(b2, 50, 50), ns_job_add_phase(b2, 50, 0);
  ck_assert_fails(ns_cluster_set_nic_ports(NULL, 1, 10), NS_EINVAL, "c");
  ck_assert_fails(ns_cluster_set_nic_ports(c, 0, 10), NS_EINVAL, "ports_per_server");
  ck_assert_fails(ns_cluster_set_nic_ports(c, -3, 10), NS_EINVAL, "-3");
  ck_assert_fails(ns_cluster_set_nic_ports(c, 5, 10), NS_EINVAL, "(got 5)");
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_fails(ns_cluster_set_nic_ports(c, 1, bad[i]), NS_EINVAL, "port_gbps");
    ck_assert_fails(ns_cluster_set_nic_ports(c, 1, bad[i]), NS_EINVAL, quoted[i]);
  }
  ns_placement *pa = ns_placement_new(), *pb = ns_placement_new();
  ns_placement_add_gpu(pa, 0), ns_placement_add_gpu(pa, 4);
  ns_placement_add_gpu(pb, 1), ns_placement_add_gpu(pb, 5);
  ck_assert_int_eq(ns_cluster_commit(c, a2, pa), NS_OK);
  ck_assert_fails(ns_cluster_set_nic_ports(c, 1, 10), NS_ESTATE, "committed");
  ns_candidate *cd = ns_candidate_new();
  double t;
  ck_assert_int_eq(ns_cassini_candidate_from_cluster(cd, c, b2, pb), NS_OK);
  ck_assert_int_eq(ns_candidate_shift_ms(cd, b2, &t), NS_ENOTFOUND); /* unchanged model */
  ck_assert_int_eq(ns_cluster_set_nic_ports(d, 1, 10), NS_OK);
  ck_assert_int_eq(ns_cluster_commit(d, a2, pa), NS_OK);
  ck_assert_int_eq(ns_cassini_candidate_from_cluster(cd, d, b2, pb), NS_OK);
  ck_assert_int_eq(ns_candidate_shift_ms(cd, b2, &t), NS_ESTATE); /* now shared */
  ns_candidate_free(cd);
  ns_placement_free(pa), ns_placement_free(pb);
  ns_job_free(a), ns_job_free(b), ns_job_free(a2), ns_job_free(b2);
  ns_cluster_free(c), ns_cluster_free(d);
}
END_TEST

static Suite *cassini_suite(void) {
  Suite *s = suite_create("cassini_abi");
  TCase *tc = tcase_create("misuse");
  tcase_add_test(tc, test_opts_misuse);
  tcase_add_test(tc, test_score_misuse);
  tcase_add_test(tc, test_score_bad_jobs);
  tcase_add_test(tc, test_affinity_misuse);
  tcase_add_test(tc, test_rank_misuse);
  tcase_add_test(tc, test_nic_ports_misuse);
  suite_add_tcase(s, tc);
  return s;
}

NS_ABI_MAIN(cassini_suite)
