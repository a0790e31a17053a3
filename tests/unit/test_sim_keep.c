/*
 * tests/unit/test_sim_keep.c - ns_sim_keep_first (netsched-sim --limit):
 * the n earliest arrivals stay, in the order they were added; ties go to
 * the job added first; failures change nothing.
 */
#include "helpers/ns_test.h"
#include <stdlib.h>

static ns_sim *sim_with(const double *arrivals, int n) {
  ns_sim_opts *o = ns_sim_opts_new();
  ns_sim *s = ns_sim_new(o);
  ns_sim_opts_free(o);
  assert_non_null(s);
  static const char *names[] = {"a", "b", "c", "d", "e"};
  for (int i = 0; i < n; i++) /* 1 GPU, 10 x 10 ms, no all-reduce: 100 ms alone */
    assert_int_equal(ns_sim_add_job(s, names[i], arrivals[i], 1, 10, 10.0, 0, 0), i);
  return s;
}

/* Arrivals a 500, b 100, c 300, d 100, e 900. The first three by arrival:
   b (100, added before d), d (100), c (300); kept in the order added:
   b, c, d. Each runs alone 100 ms, so the makespan is 400 - 100 = 300. */
static void test_keeps_the_earliest_in_added_order(void **state) {
  (void)state;
  static const double at[5] = {500, 100, 300, 100, 900};
  ns_sim *s = sim_with(at, 5);
  assert_int_equal(ns_sim_keep_first(s, 3), NS_OK);
  assert_int_equal(ns_sim_job_count(s), 3);
  assert_string_equal(ns_sim_job_name(s, 0), "b");
  assert_string_equal(ns_sim_job_name(s, 1), "c");
  assert_string_equal(ns_sim_job_name(s, 2), "d");
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_MAKESPAN_MS), 300, 1e-9);
  /* one tie broken by the order added: keeping 1 of b and d keeps b */
  assert_int_equal(ns_sim_keep_first(s, 1), NS_OK);
  assert_int_equal(ns_sim_job_count(s), 1);
  assert_string_equal(ns_sim_job_name(s, 0), "b");
  double v;
  assert_fails_with(ns_sim_metric(s, NS_SIM_METRIC_AVG_JCT_MS, &v), NS_ESTATE, "ns_sim_run");
  ns_sim_free(s);
}

static void test_more_than_loaded_and_bad_arguments(void **state) {
  (void)state;
  static const double at[3] = {300, 100, 700};
  ns_sim *s = sim_with(at, 3);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_int_equal(ns_sim_keep_first(s, 3), NS_OK); /* nothing dropped: results stay */
  assert_int_equal(ns_sim_keep_first(s, 1000), NS_OK);
  double v;
  assert_int_equal(ns_sim_metric(s, NS_SIM_METRIC_AVG_JCT_MS, &v), NS_OK);
  assert_near(v, 100, 1e-9);
  assert_fails_with(ns_sim_keep_first(s, -1), NS_EINVAL, "n must be >= 0 (got -1)");
  assert_fails_with(ns_sim_keep_first(NULL, 1), NS_EINVAL, "s");
  assert_int_equal(ns_sim_job_count(s), 3); /* the failures changed nothing */
  assert_int_equal(ns_sim_keep_first(s, 0), NS_OK); /* every job dropped */
  assert_int_equal(ns_sim_job_count(s), 0);
  assert_fails_with(ns_sim_run(s), NS_EINVAL, "no jobs");
  ns_sim_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_keeps_the_earliest_in_added_order),
      cmocka_unit_test(test_more_than_loaded_and_bad_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
