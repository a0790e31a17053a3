/*
 * tests/hostile/test_sim_reentry.c - hostile callers of the simulator: a
 * progress or placement callback that calls back into its own ns_sim, and
 * custom placement callbacks that rely on `out` being empty or return NS_OK
 * with the wrong number of GPUs. Each test name names the hazard.
 *
 * The oracle for "the outer run completes normally" is a peer run: the same
 * jobs and policy without the hostile calls must give identical per-job
 * results and metrics.
 */
#include "unit/helpers/ns_test.h"

#include <stdlib.h>

/* ---- the workload and its peer run ---------------------------------------- */

/* 2 servers x 2 GPUs; five jobs so that some wait (queueing exercises more
   scheduling passes, hence more callback calls). */
static void add_jobs(ns_sim *s) {
  static const int gpus[5] = {2, 1, 2, 1, 4};
  for (int i = 0; i < 5; i++) {
    char name[16];
    snprintf(name, sizeof name, "j%d", i);
    assert_int_equal(ns_sim_add_job(s, name, 10.0 * i, gpus[i], 20 + 5 * i, 50.0, 25000000ull, 0),
                     i);
  }
}

static ns_sim_opts *small_opts(void) {
  ns_sim_opts *o = ns_sim_opts_new();
  assert_non_null(o);
  assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, 2, 2, 0, 10.0), NS_OK);
  return o;
}

typedef struct result {
  double m[NS_SIM_METRIC_COUNT];
  double start[5], finish[5];
} result;

static void collect(const ns_sim *s, result *r) {
  for (int m = 0; m < NS_SIM_METRIC_COUNT; m++)
    assert_int_equal(ns_sim_metric(s, (ns_sim_metric_id)m, &r->m[m]), NS_OK);
  for (int j = 0; j < 5; j++)
    assert_int_equal(ns_sim_job_result(s, j, NULL, &r->start[j], &r->finish[j], NULL), NS_OK);
}

static void assert_same(const result *a, const result *b) {
  for (int m = 0; m < NS_SIM_METRIC_COUNT; m++)
    assert_near(a->m[m], b->m[m], 0);
  for (int j = 0; j < 5; j++) {
    assert_near(a->start[j], b->start[j], 0);
    assert_near(a->finish[j], b->finish[j], 0);
  }
}

/* The peer run: first fit, no hostile calls. */
static void peer_run(ns_sim_opts *o, result *r) {
  ns_sim *s = ns_sim_new(o);
  assert_non_null(s);
  add_jobs(s);
  assert_int_equal(ns_sim_run(s), NS_OK);
  collect(s, r);
  ns_sim_free(s);
}

/* ---- every ns_sim_* call on the running simulator ------------------------- */

typedef struct hostile {
  ns_sim *s;
  int calls;    /* hostile rounds made */
  int failures; /* calls that did not return NS_ESTATE with the message */
  char first_bad[256];
} hostile;

static void expect_estate(hostile *h, const char *what, int rc) {
  if (rc == NS_ESTATE && strstr(ns_last_error(), "is running") != NULL &&
      strstr(ns_last_error(), what) != NULL)
    return;
  if (h->failures++ == 0)
    snprintf(h->first_bad, sizeof h->first_bad, "%s returned %d (%s)", what, rc, ns_last_error());
}

static void noop_progress(size_t done, size_t total, void *user) {
  (void)done, (void)total, (void)user;
}

/* Tries every entry point that takes the simulator; each must refuse. */
static void attack(hostile *h) {
  ns_sim *s = h->s;
  h->calls++;
  double v = 0;
  char path[] = "/tmp/ns_hostile_XXXXXX";
  expect_estate(h, "ns_sim_run", ns_sim_run(s));
  expect_estate(h, "ns_sim_add_job", ns_sim_add_job(s, "x", 0, 1, 1, 1.0, 0, 0));
  expect_estate(h, "ns_sim_add_model_job",
                ns_sim_add_model_job(s, "x", 0, 1, 1, NS_SIM_MODEL_RESNET50));
  expect_estate(h, "ns_sim_load_default_workload", ns_sim_load_default_workload(s));
  expect_estate(h, "ns_sim_load_trace",
                ns_sim_load_trace(s, "tests/fixtures/tiresias-small.csv", NS_SIM_TRACE_TIRESIAS));
  expect_estate(h, "ns_sim_set_progress", ns_sim_set_progress(s, noop_progress, NULL));
  expect_estate(h, "ns_sim_scale_arrivals", ns_sim_scale_arrivals(s, 2.0));
  expect_estate(h, "ns_sim_keep_first", ns_sim_keep_first(s, 1));
  expect_estate(h, "ns_sim_add_model_profile",
                ns_sim_add_model_profile(s, "m", 1.0, 2.0, 1000, 10.0));
  expect_estate(h, "ns_sim_metric", ns_sim_metric(s, NS_SIM_METRIC_AVG_JCT_MS, &v));
  expect_estate(h, "ns_sim_job_count", ns_sim_job_count(s));
  expect_estate(h, "ns_sim_skipped_count", ns_sim_skipped_count(s));
  expect_estate(h, "ns_sim_job_result", ns_sim_job_result(s, 0, &v, &v, &v, NULL));
  expect_estate(h, "ns_sim_job_gpus", ns_sim_job_gpus(s, 0));
  int fd = mkstemp(path);
  expect_estate(h, "ns_sim_write_jobs_csv", ns_sim_write_jobs_csv(s, path));
  if (fd >= 0)
    remove(path);
  if (strcmp(ns_sim_job_model(s, 0), "") != 0 && h->failures++ == 0)
    snprintf(h->first_bad, sizeof h->first_bad, "ns_sim_job_model gave '%s'",
             ns_sim_job_model(s, 0));
  if (strcmp(ns_sim_job_name(s, 0), "") != 0 && h->failures++ == 0)
    snprintf(h->first_bad, sizeof h->first_bad, "ns_sim_job_name gave '%s'",
             ns_sim_job_name(s, 0));
  ns_sim_free(s); /* must be refused: the run below keeps using s */
  expect_estate(h, "ns_sim_free", NS_ESTATE);
}

static void hostile_progress(size_t done, size_t total, void *user) {
  (void)done, (void)total;
  attack(user);
}

static void check_hostile_outcome(const hostile *h, ns_sim *s, const result *peer) {
  assert_true(h->calls > 0);
  if (h->failures > 0)
    fail_msg("%d re-entrant call(s) were not refused; first: %s", h->failures, h->first_bad);
  result r;
  collect(s, &r);
  assert_same(&r, peer);
  assert_int_equal(ns_sim_job_count(s), 5); /* nothing was added */
  assert_int_equal(ns_sim_skipped_count(s), 0);
}

static void test_progress_callback_reenters_every_sim_call(void **state) {
  (void)state;
  ns_sim_opts *o = small_opts();
  result peer;
  peer_run(o, &peer);
  ns_sim *s = ns_sim_new(o);
  add_jobs(s);
  hostile h = {.s = s};
  assert_int_equal(ns_sim_set_progress(s, hostile_progress, &h), NS_OK);
  assert_int_equal(ns_sim_run(s), NS_OK);
  check_hostile_outcome(&h, s, &peer);
  /* After the run, the simulator accepts calls again: a rerun agrees. */
  assert_int_equal(ns_sim_set_progress(s, NULL, NULL), NS_OK);
  assert_int_equal(ns_sim_run(s), NS_OK);
  result again;
  collect(s, &again);
  assert_same(&again, &peer);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

static int hostile_place(const ns_cluster *c, const ns_job *job, ns_placement *out, void *user) {
  attack(user);
  return ns_place_first_fit(c, job, out);
}

static void test_placement_callback_reenters_every_sim_call(void **state) {
  (void)state;
  ns_sim_opts *o = small_opts();
  result peer;
  peer_run(o, &peer); /* first fit, the policy hostile_place wraps */
  hostile h = {0};
  assert_int_equal(ns_sim_opts_set_place_fn(o, hostile_place, &h), NS_OK);
  ns_sim *s = ns_sim_new(o);
  h.s = s;
  add_jobs(s);
  assert_int_equal(ns_sim_run(s), NS_OK);
  check_hostile_outcome(&h, s, &peer);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* The same hostile placement under CASSINI, which calls the base policy
   several times per job with GPUs temporarily occupied. */
static void test_placement_callback_reenters_under_cassini(void **state) {
  (void)state;
  ns_sim_opts *o = small_opts();
  assert_int_equal(ns_sim_opts_set_cassini(o, 1, 4), NS_OK);
  result peer;
  peer_run(o, &peer);
  hostile h = {0};
  assert_int_equal(ns_sim_opts_set_place_fn(o, hostile_place, &h), NS_OK);
  assert_int_equal(ns_sim_opts_set_cassini(o, 1, 4), NS_OK);
  ns_sim *s = ns_sim_new(o);
  h.s = s;
  add_jobs(s);
  assert_int_equal(ns_sim_run(s), NS_OK);
  check_hostile_outcome(&h, s, &peer);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* ---- custom placement: what `out` holds, and wrong counts ------------------ */

typedef struct seen {
  int calls, nonempty, bound;
} seen;

/* Appends the lowest free GPUs without clearing `out` first: correct only
   if the simulator hands over an empty placement. Records what it got. */
static int place_append(const ns_cluster *c, const ns_job *job, ns_placement *out, void *user) {
  seen *w = user;
  w->calls++;
  if (ns_placement_gpu_count(out) != 0)
    w->nonempty++;
  if (ns_placement_server_count(out) != NS_ESTATE) /* bound placements answer */
    w->bound++;
  int need = ns_job_gpus(job);
  for (int g = 0; g < ns_cluster_gpu_count(c) && need > 0; g++)
    if (ns_cluster_gpu_is_free(c, g) == 1)
      ns_placement_add_gpu(out, g), need--;
  return need > 0 ? NS_ENOSPACE : NS_OK;
}

static void test_custom_placement_gets_stale_out_placement(void **state) {
  (void)state;
  ns_sim_opts *o = small_opts();
  result peer;
  peer_run(o, &peer); /* first fit: the lowest free GPUs, as place_append */
  seen w = {0};
  assert_int_equal(ns_sim_opts_set_place_fn(o, place_append, &w), NS_OK);
  ns_sim *s = ns_sim_new(o);
  add_jobs(s);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_true(w.calls >= 5);
  assert_int_equal(w.nonempty, 0);
  assert_int_equal(w.bound, 0);
  result r;
  collect(s, &r);
  assert_same(&r, &peer);
  /* A rerun hands over empty placements again (the previous run's last
     placement is not reused either). */
  w.calls = w.nonempty = w.bound = 0;
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_true(w.calls >= 5);
  assert_int_equal(w.nonempty + w.bound, 0);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* Returns NS_OK with (user) GPUs: 0 or one short of the job. */
static int place_short(const ns_cluster *c, const ns_job *job, ns_placement *out, void *user) {
  int n = *(const int *)user < 0 ? ns_job_gpus(job) - 1 : *(const int *)user;
  for (int g = 0; g < n; g++)
    ns_placement_add_gpu(out, g);
  (void)c;
  return NS_OK;
}

static void run_short(int n, const char *count_text) {
  ns_sim_opts *o = small_opts();
  assert_int_equal(ns_sim_opts_set_place_fn(o, place_short, &n), NS_OK);
  ns_sim *s = ns_sim_new(o);
  assert_int_equal(ns_sim_add_job(s, "wide-job", 0, 2, 10, 50.0, 0, 0), 0);
  assert_fails_with(ns_sim_run(s), NS_EINVAL, "'wide-job'");
  assert_non_null(strstr(ns_last_error(), count_text));
  assert_non_null(strstr(ns_last_error(), "asks for 2"));
  assert_non_null(strstr(ns_last_error(), "custom placement callback"));
  assert_non_null(strstr(ns_last_error(), "ns_sim_opts_set_place_fn"));
  double v;
  assert_int_equal(ns_sim_metric(s, NS_SIM_METRIC_AVG_JCT_MS, &v), NS_ESTATE);
  assert_int_equal(ns_sim_job_count(s), 1);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

static void test_custom_placement_returns_ok_with_no_gpus(void **state) {
  (void)state;
  run_short(0, "with 0 GPUs");
}

static void test_custom_placement_returns_ok_one_gpu_short(void **state) {
  (void)state;
  run_short(-1, "with 1 GPUs");
}

/* NS_OK from a callback whose previous failure left a message: the message
   of a status returned without one must not be the stale one. */
static int place_silent_error(const ns_cluster *c, const ns_job *job, ns_placement *out,
                              void *user) {
  (void)c, (void)job, (void)out, (void)user;
  return NS_ESOLVER;
}

static void test_custom_placement_error_without_message_is_not_stale(void **state) {
  (void)state;
  ns_sim_opts *o = small_opts();
  assert_int_equal(ns_sim_opts_set_place_fn(o, place_silent_error, NULL), NS_OK);
  ns_sim *s = ns_sim_new(o);
  assert_int_equal(ns_sim_add_job(s, "quiet", 0, 1, 1, 1.0, 0, 0), 0);
  /* leave a recognisable message behind */
  assert_int_equal(ns_sim_job_gpus(s, 99), NS_EINVAL);
  assert_fails_with(ns_sim_run(s), NS_ESOLVER, "without a message");
  assert_null(strstr(ns_last_error(), "ns_sim_job_gpus"));
  assert_non_null(strstr(ns_last_error(), "'quiet'"));
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

static int place_positive(const ns_cluster *c, const ns_job *job, ns_placement *out, void *user) {
  (void)user;
  ns_place_first_fit(c, job, out);
  return 7;
}

static void test_custom_placement_returns_a_positive_non_status(void **state) {
  (void)state;
  ns_sim_opts *o = small_opts();
  assert_int_equal(ns_sim_opts_set_place_fn(o, place_positive, NULL), NS_OK);
  ns_sim *s = ns_sim_new(o);
  assert_int_equal(ns_sim_add_job(s, "odd", 0, 1, 1, 1.0, 0, 0), 0);
  assert_fails_with(ns_sim_run(s), NS_EINVAL, "returned 7 for job 'odd'");
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_progress_callback_reenters_every_sim_call),
      cmocka_unit_test(test_placement_callback_reenters_every_sim_call),
      cmocka_unit_test(test_placement_callback_reenters_under_cassini),
      cmocka_unit_test(test_custom_placement_gets_stale_out_placement),
      cmocka_unit_test(test_custom_placement_returns_ok_with_no_gpus),
      cmocka_unit_test(test_custom_placement_returns_ok_one_gpu_short),
      cmocka_unit_test(test_custom_placement_error_without_message_is_not_stale),
      cmocka_unit_test(test_custom_placement_returns_a_positive_non_status),
  };
  return cmocka_run_group_tests_name("hostile: simulator re-entry and custom placement", tests,
                                     NULL, NULL);
}
