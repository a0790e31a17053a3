/*
 * tests/unit/test_dally.c - Dally (src/dally): the delay tuner (Algorithm
 * 2), every branch of Algorithm 1 on hand-built clusters, the wait being
 * recorded exactly once, Nw_sens and the offer order (§4.3.1), and the
 * best-fit / Tiresias-style baselines. Expected values are worked by hand
 * in the comments; the bin choice is checked against a brute-force oracle.
 */
#include "helpers/ns_test.h"

#include <stdlib.h>

#include "dally/dally_internal.h"

#define H (3600e3) /* one hour in ms */
#define WEEK (7 * 24 * H)

/* ---- fixtures ----------------------------------------------------------- */

/* 2 racks x 2 servers x 4 GPUs: server s holds GPUs 4s..4s+3; rack 0 =
   servers 0-1 (GPUs 0-7), rack 1 = servers 2-3 (GPUs 8-15). */
static ns_cluster *small_cluster(const int *busy, size_t n) {
  ns_cluster *c = ns_cluster_new_leaf_spine(2, 1, 2, 4, 1, 100);
  assert_non_null(c);
  if (n)
    assert_int_equal(ns_cluster_occupy(c, busy, n), NS_OK);
  return c;
}

static ns_delay_tuner *paper_tuner(void) {
  /* §4.3.2 defaults: 12 h machine, another 12 h rack. */
  ns_delay_tuner *t = ns_delay_tuner_new(WEEK, 12 * H, 12 * H);
  assert_non_null(t);
  return t;
}

static size_t samples(const ns_delay_tuner *t, ns_tier tier, int gpus, double now) {
  size_t n = 99;
  assert_int_equal(ns_delay_tuner_sample_count(t, tier, gpus, now, &n), NS_OK);
  return n;
}

static void assert_gpus(const ns_placement *p, const int *want, size_t n) {
  assert_int_equal(ns_placement_gpu_count(p), n);
  for (size_t i = 0; i < n; i++)
    if (ns_placement_gpu(p, i) != want[i])
      fail_msg("gpu[%zu] = %d, expected %d", i, ns_placement_gpu(p, i), want[i]);
}

/* One offer; returns *accepted. */
static int offer(ns_delay_tuner *t, const ns_cluster *c, int gpus, double starv, double now,
                 ns_placement *out) {
  ns_job *j = ns_job_new("j", gpus);
  int acc = -1;
  assert_int_equal(ns_dally_offer(t, c, j, starv, now, out, &acc), NS_OK);
  ns_job_free(j);
  assert_true(acc == 0 || acc == 1);
  return acc;
}

/* ---- tuner statistics (Algorithm 2) ------------------------------------- */

static void test_timer_mean_plus_two_sample_sd(void **state) {
  (void)state;
  ns_delay_tuner *t = ns_delay_tuner_new(WEEK, 111, 222);
  /* waits 2,4,4,4,5,5,7,9 s: mean 5 s, squared deviations 9+1+1+1+0+0+4+16
     = 32, sample variance 32/7, sd 2.138089935 s -> 5 + 4.27617987 s. */
  const double w[] = {2000, 4000, 4000, 4000, 5000, 5000, 7000, 9000};
  for (size_t i = 0; i < 8; i++)
    assert_int_equal(ns_delay_tuner_record(t, NS_TIER_MACHINE, 8, w[i], 10.0 * i), NS_OK);
  /* waits 1 s and 3 s: mean 2 s, sd sqrt(2) s -> 2 + 2.828427125 s. */
  assert_int_equal(ns_delay_tuner_record(t, NS_TIER_RACK, 8, 1000, 100), NS_OK);
  assert_int_equal(ns_delay_tuner_record(t, NS_TIER_RACK, 8, 3000, 100), NS_OK);
  double mc, rk;
  assert_int_equal(ns_delay_tuner_timers(t, 8, 100, &mc, &rk), NS_OK);
  assert_near(mc, 9276.17987, 1e-4);
  assert_near(rk, 4828.427125, 1e-5);
  /* Another GPU demand has its own (empty) lists: defaults, the rack default
     counted after the machine timer. */
  assert_int_equal(ns_delay_tuner_timers(t, 4, 100, &mc, &rk), NS_OK);
  assert_near(mc, 111, 0);
  assert_near(rk, 111 + 222, 0);
  ns_delay_tuner_free(t);
}

static void test_timer_defaults_below_two_samples(void **state) {
  (void)state;
  ns_delay_tuner *t = paper_tuner();
  double mc, rk;
  assert_int_equal(ns_delay_tuner_timers(t, 2, 0, &mc, &rk), NS_OK);
  assert_near(mc, 12 * H, 0); /* 12 hours */
  assert_near(rk, 24 * H, 0); /* "another 12 hours (or 24 hours in total)" */
  /* One machine sample: still the default. Two equal ones: sd 0. */
  ns_delay_tuner_record(t, NS_TIER_MACHINE, 2, 3 * H, 0);
  assert_int_equal(ns_delay_tuner_timers(t, 2, 0, &mc, &rk), NS_OK);
  assert_near(mc, 12 * H, 0);
  ns_delay_tuner_record(t, NS_TIER_MACHINE, 2, 3 * H, 0);
  assert_int_equal(ns_delay_tuner_timers(t, 2, 0, &mc, &rk), NS_OK);
  assert_near(mc, 3 * H, 1e-6);
  assert_near(rk, 3 * H + 12 * H, 1e-6); /* rack default after the tuned machine timer */
  /* Rack tuned from its own samples, independent of the machine list. */
  ns_delay_tuner_record(t, NS_TIER_RACK, 2, 5 * H, 0);
  ns_delay_tuner_record(t, NS_TIER_RACK, 2, 5 * H, 0);
  assert_int_equal(ns_delay_tuner_timers(t, 2, 0, &mc, &rk), NS_OK);
  assert_near(rk, 5 * H, 1e-6);
  ns_delay_tuner_free(t);
}

static void test_expiry_by_age(void **state) {
  (void)state;
  ns_delay_tuner *t = ns_delay_tuner_new(1000, 50, 60);
  ns_delay_tuner_record(t, NS_TIER_RACK, 4, 100, 0);
  ns_delay_tuner_record(t, NS_TIER_RACK, 4, 300, 500);
  ns_delay_tuner_record(t, NS_TIER_RACK, 4, 500, 1000);
  double mc, rk;
  /* At 1000 the first entry is exactly 1000 old: kept (older = "> limit").
     100, 300, 500: mean 300, sd 200 -> 700. */
  assert_int_equal(samples(t, NS_TIER_RACK, 4, 1000), 3);
  assert_int_equal(ns_delay_tuner_timers(t, 4, 1000, &mc, &rk), NS_OK);
  assert_near(rk, 700, 1e-9);
  /* Just after, it has expired: 300, 500 -> 400 + 2 * 141.4213562. */
  assert_int_equal(samples(t, NS_TIER_RACK, 4, 1000.5), 2);
  assert_int_equal(ns_delay_tuner_timers(t, 4, 1000.5, &mc, &rk), NS_OK);
  assert_near(rk, 682.8427125, 1e-6);
  /* After 1500 only one is left: back to the default, 50 + 60. */
  assert_int_equal(ns_delay_tuner_timers(t, 4, 1501, &mc, &rk), NS_OK);
  assert_near(rk, 110, 0);
  assert_int_equal(samples(t, NS_TIER_RACK, 4, 2001), 0);
  ns_delay_tuner_free(t);
}

/* Many records through a short window: the list keeps only the window
   (compaction) and the statistics cover exactly it. */
static void test_sliding_window(void **state) {
  (void)state;
  ns_delay_tuner *t = ns_delay_tuner_new(10, 0, 0);
  for (int i = 0; i < 1000; i++)
    assert_int_equal(ns_delay_tuner_record(t, NS_TIER_MACHINE, 1, i, i), NS_OK);
  /* Live at 999: recorded at >= 989, waits 989..999; 11 consecutive
     integers have sample variance 11 * 12 / 12 = 11. */
  assert_int_equal(samples(t, NS_TIER_MACHINE, 1, 999), 11);
  double mc, rk;
  assert_int_equal(ns_delay_tuner_timers(t, 1, 999, &mc, &rk), NS_OK);
  assert_near(mc, 994 + 2 * sqrt(11.0), 1e-9);
  const nsd_list *l = &t->lists[NS_TIER_MACHINE][0];
  assert_true(l->n - l->head == 11);
  assert_true(l->n <= 2 * 11 + 2); /* memory follows the window */
  ns_delay_tuner_free(t);
}

static void test_manual_mode(void **state) {
  (void)state;
  ns_delay_tuner *t = paper_tuner();
  ns_delay_tuner_record(t, NS_TIER_MACHINE, 4, H, 0);
  ns_delay_tuner_record(t, NS_TIER_MACHINE, 4, H, 0);
  double mc, rk;
  assert_int_equal(ns_delay_tuner_set_manual(t, 1), NS_OK);
  assert_int_equal(ns_delay_tuner_timers(t, 4, 0, &mc, &rk), NS_OK);
  assert_near(mc, 12 * H, 0);
  assert_near(rk, 24 * H, 0);
  /* Rack-only offer at 2 h: Dally-manual declines (2 h < 12 h)... */
  const int busy[] = {0, 4, 8, 12}; /* every server 3 free, every rack 6 */
  ns_cluster *c = small_cluster(busy, 4);
  ns_placement *p = ns_placement_new();
  assert_int_equal(offer(t, c, 4, 2 * H, 0, p), 0);
  /* ...tuned Dally accepts it (machine timer 1 h). */
  assert_int_equal(ns_delay_tuner_set_manual(t, 0), NS_OK);
  assert_int_equal(offer(t, c, 4, 2 * H, 0, p), 1);
  assert_int_equal(ns_placement_tier(p), NS_TIER_RACK);
  assert_fails_with(ns_delay_tuner_set_manual(t, 2), NS_EINVAL, "manual");
  ns_placement_free(p);
  ns_cluster_free(c);
  ns_delay_tuner_free(t);
}

/* ---- Algorithm 1, branch by branch --------------------------------------- */

/* Line 5: a machine holds the job -> accept there at once, best-fit. */
static void test_line5_machine_best_fit(void **state) {
  (void)state;
  const int busy[] = {4, 5}; /* server 1 has 2 free (6, 7); others 4 */
  ns_cluster *c = small_cluster(busy, 2);
  ns_delay_tuner *t = paper_tuner();
  ns_placement *p = ns_placement_new();
  assert_int_equal(offer(t, c, 2, 0, 0, p), 1);
  const int want[] = {6, 7}; /* fewest left over: server 1 (0 left) */
  assert_gpus(p, want, 2);
  assert_int_equal(ns_placement_tier(p), NS_TIER_MACHINE);
  /* The wait is recorded once, in the machine list (line 7). */
  assert_int_equal(samples(t, NS_TIER_MACHINE, 2, 0), 1);
  assert_int_equal(samples(t, NS_TIER_RACK, 2, 0), 0);
  /* Ties go to the lowest server id. */
  assert_int_equal(offer(t, c, 3, 0, 0, p), 1);
  const int want3[] = {0, 1, 2};
  assert_gpus(p, want3, 3);
  /* The cluster was not touched. */
  assert_int_equal(ns_cluster_free_gpu_count(c), 14);
  ns_placement_free(p);
  ns_delay_tuner_free(t);
  ns_cluster_free(c);
}

/* Line 10: no machine holds it and the machine timer has not elapsed. */
static void test_line10_reject_before_machine_timer(void **state) {
  (void)state;
  const int busy[] = {0, 4, 8, 12}; /* each server 3 free */
  ns_cluster *c = small_cluster(busy, 4);
  ns_delay_tuner *t = paper_tuner();
  ns_placement *p = ns_placement_new();
  ns_placement_add_gpu(p, 99); /* stale content must go */
  assert_int_equal(offer(t, c, 4, 12 * H - 1, 0, p), 0);
  assert_int_equal(ns_placement_gpu_count(p), 0);
  assert_int_equal(samples(t, NS_TIER_MACHINE, 4, 0), 0);
  assert_int_equal(samples(t, NS_TIER_RACK, 4, 0), 0);
  ns_placement_free(p);
  ns_delay_tuner_free(t);
  ns_cluster_free(c);
}

/* Line 13: machine timer elapsed, a rack holds it -> the rack with the
   fewest GPUs left over, then the fewest servers in it. */
static void test_line13_rack_best_fit(void **state) {
  (void)state;
  /* free: server 0 {1,2,3}, 1 {5,6,7}, 2 {10,11}, 3 {13,14,15};
     rack 0 has 6, rack 1 has 5 -> rack 1 (1 left over). In rack 1, two
     servers are needed; the smallest that keeps that count is server 2
     (2 GPUs), then server 3 gives the other 2. */
  const int busy[] = {0, 4, 8, 9, 12};
  ns_cluster *c = small_cluster(busy, 5);
  ns_delay_tuner *t = paper_tuner();
  ns_placement *p = ns_placement_new();
  assert_int_equal(offer(t, c, 4, 12 * H, 0, p), 1); /* starvation == T_Mc: not < */
  const int want[] = {10, 11, 13, 14};
  assert_gpus(p, want, 4);
  assert_int_equal(ns_placement_tier(p), NS_TIER_RACK);
  assert_int_equal(samples(t, NS_TIER_MACHINE, 4, 0), 0);
  assert_int_equal(samples(t, NS_TIER_RACK, 4, 0), 1); /* line 15, once */
  ns_placement_free(p);
  ns_delay_tuner_free(t);
  ns_cluster_free(c);
}

/* Lines 18 and 21: no rack holds it; decline until the rack timer (24 h
   total), then accept across the network with the fewest racks. */
static void test_line18_reject_then_line21_network(void **state) {
  (void)state;
  /* free: server 0 {2,3}, 1 {7}, 2 {11}, 3 {15}: rack 0 has 3, rack 1 has 2 */
  const int busy[] = {0, 1, 4, 5, 6, 8, 9, 10, 12, 13, 14};
  ns_cluster *c = small_cluster(busy, 11);
  ns_delay_tuner *t = paper_tuner();
  ns_placement *p = ns_placement_new();
  assert_int_equal(offer(t, c, 4, 13 * H, 0, p), 0);     /* 12 h <= 13 h < 24 h */
  assert_int_equal(offer(t, c, 4, 24 * H - 1, 0, p), 0); /* still < T_Rk */
  assert_int_equal(ns_placement_gpu_count(p), 0);
  assert_int_equal(offer(t, c, 4, 24 * H, 0, p), 1);
  /* Two racks: the smaller (rack 1, 2 GPUs: 11 and 15) whole, then 2 from
     rack 0, where server 0 alone holds them. */
  const int want[] = {2, 3, 11, 15};
  assert_gpus(p, want, 4);
  assert_int_equal(ns_placement_tier(p), NS_TIER_NETWORK);
  /* Line 21 records nothing. */
  assert_int_equal(samples(t, NS_TIER_MACHINE, 4, 0), 0);
  assert_int_equal(samples(t, NS_TIER_RACK, 4, 0), 0);
  ns_placement_free(p);
  ns_delay_tuner_free(t);
  ns_cluster_free(c);
}

/* An offer with too few GPUs is declined however long the job starved. */
static void test_offer_too_small(void **state) {
  (void)state;
  const int busy[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  ns_cluster *c = small_cluster(busy, 13);
  ns_delay_tuner *t = paper_tuner();
  ns_placement *p = ns_placement_new();
  assert_int_equal(offer(t, c, 4, 1e12, 0, p), 0);
  assert_int_equal(ns_placement_gpu_count(p), 0);
  ns_placement_free(p);
  ns_delay_tuner_free(t);
  ns_cluster_free(c);
}

/* §4.3.2: a job that cannot fit a machine has machine timer 0; one that
   cannot fit a rack has both timers 0. */
static void test_zero_timer_rules(void **state) {
  (void)state;
  ns_delay_tuner *t = paper_tuner();
  ns_placement *p = ns_placement_new();
  ns_cluster *empty = small_cluster(NULL, 0);
  /* 6 GPUs > 4 per machine: a rack offer is taken at starvation 0. Rack 0
     (tie), two servers: server 0 whole, then 2 from server 1. */
  assert_int_equal(offer(t, empty, 6, 0, 0, p), 1);
  const int want6[] = {0, 1, 2, 3, 4, 5};
  assert_gpus(p, want6, 6);
  assert_int_equal(ns_placement_tier(p), NS_TIER_RACK);
  /* With no rack holding 6, its rack timer is 0 + 12 h, not 24 h. */
  const int busy[] = {0, 1, 2, 8, 9, 10}; /* 5 free per rack */
  ns_cluster *c = small_cluster(busy, 6);
  assert_int_equal(offer(t, c, 6, 12 * H - 1, 0, p), 0);
  assert_int_equal(offer(t, c, 6, 12 * H, 0, p), 1);
  assert_int_equal(ns_placement_tier(p), NS_TIER_NETWORK);
  /* 10 GPUs > 8 per rack: the network at once; rack 0 whole + 2 of rack 1
     on server 2. */
  assert_int_equal(offer(t, empty, 10, 0, 0, p), 1);
  const int want10[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  assert_gpus(p, want10, 10);
  /* ns_delay_tuner_timers knows no cluster: it reports the plain timers;
     ns_dally_timers applies the rules for a given cluster. */
  double mc, rk;
  assert_int_equal(ns_delay_tuner_timers(t, 10, 0, &mc, &rk), NS_OK);
  assert_near(mc, 12 * H, 0);
  assert_near(rk, 24 * H, 0);
  assert_int_equal(ns_dally_timers(t, empty, 2, 0, &mc, &rk), NS_OK);
  assert_near(mc, 12 * H, 0);
  assert_near(rk, 24 * H, 0);
  assert_int_equal(ns_dally_timers(t, empty, 6, 0, &mc, &rk), NS_OK);
  assert_near(mc, 0, 0);
  assert_near(rk, 12 * H, 0);
  assert_int_equal(ns_dally_timers(t, empty, 10, 0, &mc, &rk), NS_OK);
  assert_near(mc, 0, 0);
  assert_near(rk, 0, 0);
  ns_cluster_free(c);
  ns_cluster_free(empty);
  ns_placement_free(p);
  ns_delay_tuner_free(t);
}

/* The offer uses the tuned timers and records the starvation it accepted
   with, which then tunes the next timers. */
static void test_offer_uses_and_feeds_tuned_timers(void **state) {
  (void)state;
  ns_delay_tuner *t = paper_tuner();
  ns_delay_tuner_record(t, NS_TIER_MACHINE, 4, H, 0);
  ns_delay_tuner_record(t, NS_TIER_MACHINE, 4, H, 0);
  double mc, rk;
  assert_int_equal(ns_delay_tuner_timers(t, 4, 0, &mc, &rk), NS_OK);
  assert_near(mc, H, 1e-6);
  assert_near(rk, 13 * H, 1e-6);
  const int busy[] = {0, 4, 8, 12};
  ns_cluster *c = small_cluster(busy, 4);
  ns_placement *p = ns_placement_new();
  assert_int_equal(offer(t, c, 4, 2 * H, 10, p), 1); /* 2 h >= T_Mc = 1 h */
  assert_int_equal(ns_placement_tier(p), NS_TIER_RACK);
  /* Rack list: the 2 h accept plus a 4 h record -> mean 3 h, sd sqrt(2) h. */
  assert_int_equal(ns_delay_tuner_record(t, NS_TIER_RACK, 4, 4 * H, 20), NS_OK);
  assert_int_equal(ns_delay_tuner_timers(t, 4, 20, &mc, &rk), NS_OK);
  assert_near(rk, (3 + 2 * sqrt(2.0)) * H, 1e-3);
  ns_placement_free(p);
  ns_cluster_free(c);
  ns_delay_tuner_free(t);
}

/* Sharing mode: the offer is the GPUs whose memory still fits the job. */
static void test_offer_respects_gpu_memory(void **state) {
  (void)state;
  ns_cluster *c = small_cluster(NULL, 0);
  assert_int_equal(ns_cluster_set_gpu_sharing(c, 1), NS_OK);
  ns_job *a = ns_job_new("a", 4);
  ns_job_set_gpu_memory_mb(a, 8000);
  ns_placement *p = ns_placement_new();
  ns_placement_bind(p, c);
  for (int g = 0; g < 4; g++)
    ns_placement_add_gpu(p, g);
  assert_int_equal(ns_cluster_commit(c, a, p), NS_OK); /* 8000 of 16384 MB on server 0 */
  ns_delay_tuner *t = paper_tuner();
  ns_job *b = ns_job_new("b", 4);
  int acc = 0;
  ns_job_set_gpu_memory_mb(b, 8000); /* fits beside a: server 0 (lowest id) */
  assert_int_equal(ns_dally_offer(t, c, b, 0, 0, p, &acc), NS_OK);
  assert_int_equal(acc, 1);
  assert_int_equal(ns_placement_gpu(p, 0), 0);
  ns_job_set_gpu_memory_mb(b, 9000); /* does not: server 1 */
  assert_int_equal(ns_dally_offer(t, c, b, 0, 0, p, &acc), NS_OK);
  assert_int_equal(ns_placement_gpu(p, 0), 4);
  ns_job_free(a);
  ns_job_free(b);
  ns_placement_free(p);
  ns_delay_tuner_free(t);
  ns_cluster_free(c);
}

/* ---- bad input leaves everything as it was ------------------------------- */

static void test_time_must_not_go_back(void **state) {
  (void)state;
  ns_delay_tuner *t = paper_tuner();
  assert_int_equal(ns_delay_tuner_record(t, NS_TIER_MACHINE, 2, 5, 100), NS_OK);
  assert_fails_with(ns_delay_tuner_record(t, NS_TIER_MACHINE, 2, 5, 99), NS_EINVAL, "now_ms");
  double mc, rk;
  assert_fails_with(ns_delay_tuner_timers(t, 2, 99, &mc, &rk), NS_EINVAL, "go back");
  ns_cluster *c = small_cluster(NULL, 0);
  ns_job *j = ns_job_new("j", 2);
  ns_placement *p = ns_placement_new();
  ns_placement_add_gpu(p, 7);
  int acc = 42;
  assert_fails_with(ns_dally_offer(t, c, j, 0, 50, p, &acc), NS_EINVAL, "now_ms");
  assert_int_equal(acc, 42);
  assert_int_equal(ns_placement_gpu_count(p), 1); /* out untouched */
  assert_int_equal(samples(t, NS_TIER_MACHINE, 2, 100), 1);
  /* Equal time is fine, and an offer moves the clock. */
  assert_int_equal(ns_dally_offer(t, c, j, 0, 100, p, &acc), NS_OK);
  assert_int_equal(ns_dally_offer(t, c, j, 0, 200, p, &acc), NS_OK);
  assert_fails_with(ns_delay_tuner_timers(t, 2, 150, &mc, &rk), NS_EINVAL, "now_ms");
  ns_job_free(j);
  ns_placement_free(p);
  ns_cluster_free(c);
  ns_delay_tuner_free(t);
}

static void test_bad_input(void **state) {
  (void)state;
  assert_null(ns_delay_tuner_new(0, 1, 1));
  assert_non_null(strstr(ns_last_error(), "history_limit_ms"));
  assert_null(ns_delay_tuner_new(NAN, 1, 1));
  assert_null(ns_delay_tuner_new(10, -1, 1));
  assert_non_null(strstr(ns_last_error(), "default_machine_ms"));
  assert_null(ns_delay_tuner_new(10, 1, INFINITY));
  assert_non_null(strstr(ns_last_error(), "default_rack_ms"));
  ns_delay_tuner *t = paper_tuner();
  assert_fails_with(ns_delay_tuner_record(t, NS_TIER_MACHINE, 2, -1, 0), NS_EINVAL, "waited_ms");
  assert_fails_with(ns_delay_tuner_record(t, NS_TIER_MACHINE, 2, NAN, 0), NS_EINVAL, "waited_ms");
  assert_fails_with(ns_delay_tuner_record(t, NS_TIER_NETWORK, 2, 1, 0), NS_EINVAL, "tier");
  assert_fails_with(ns_delay_tuner_record(t, NS_TIER_MACHINE, 0, 1, 0), NS_EINVAL, "gpus");
  assert_int_equal(samples(t, NS_TIER_MACHINE, 2, 0), 0);

  ns_cluster *c = small_cluster(NULL, 0);
  ns_placement *p = ns_placement_new();
  int acc;
  ns_job *big = ns_job_new("big", 17); /* the cluster has 16 GPUs */
  assert_fails_with(ns_dally_offer(t, c, big, 0, 0, p, &acc), NS_EINVAL, "only 16");
  assert_fails_with(ns_place_best_fit(c, big, p), NS_EINVAL, "only 16");
  assert_fails_with(ns_place_tiresias(c, big, 0, p), NS_EINVAL, "only 16");
  ns_job *fat = ns_job_new("fat", 1);
  ns_job_set_gpu_memory_mb(fat, 20000); /* GPUs have 16384 MB */
  assert_fails_with(ns_dally_offer(t, c, fat, 0, 0, p, &acc), NS_EINVAL, "MB");
  ns_job *ok = ns_job_new("ok", 1);
  assert_fails_with(ns_dally_offer(t, c, ok, -1, 0, p, &acc), NS_EINVAL, "starvation_ms");
  assert_fails_with(ns_dally_offer(t, c, ok, NAN, 0, p, &acc), NS_EINVAL, "starvation_ms");
  assert_fails_with(ns_dally_offer(t, c, ok, 0, INFINITY, p, &acc), NS_EINVAL, "now_ms");
  assert_fails_with(ns_dally_offer(t, c, ok, 0, 0, p, NULL), NS_EINVAL, "accepted");
  assert_int_equal(samples(t, NS_TIER_MACHINE, 1, 0), 0);
  ns_job_free(ok);
  ns_job_free(big);
  ns_job_free(fat);
  ns_placement_free(p);
  ns_cluster_free(c);
  ns_delay_tuner_free(t);
  ns_delay_tuner_free(NULL);
}

/* ---- a real trace: Algorithm 1's invariants on every offer --------------- */

typedef struct trace_job {
  ns_job *job;
  double submit_ms, dur_ms, start_ms; /* start -1 while waiting */
} trace_job;

static size_t read_trace(const char *path, trace_job *jobs, size_t cap) {
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char line[256];
  size_t n = 0;
  assert_non_null(fgets(line, sizeof line, f)); /* header */
  while (n < cap && fgets(line, sizeof line, f)) {
    int id, gpus;
    double submit, iters, dur;
    char model[64];
    if (sscanf(line, "%d,%d,%lf,%lf,%63[^,],%lf", &id, &gpus, &submit, &iters, model, &dur) != 6)
      continue;
    jobs[n].job = ns_job_new(model, gpus);
    jobs[n].submit_ms = 0; /* batch arrival, as in §5.1.1's batch workload */
    jobs[n].dur_ms = dur * 1e3;
    jobs[n].start_ms = -1;
    n++;
  }
  fclose(f);
  return n;
}

/* Why an offer may be declined (Algorithm 1): no machine holds the job and
   either the machine timer runs, or no rack holds it and the rack timer
   runs or the free GPUs are too few. Returns 1 for a line-10 decline
   while a rack could have held the job. */
static int assert_decline_justified(const ns_cluster *c, int gd, double starv, double mc,
                                    double rk) {
  int best_server = 0, best_leaf = 0;
  for (int s = 0; s < ns_cluster_server_count(c); s++)
    if (ns_cluster_free_gpus_on_server(c, s) > best_server)
      best_server = ns_cluster_free_gpus_on_server(c, s);
  for (int l = 0; l < ns_cluster_leaf_count(c); l++)
    if (ns_cluster_free_gpus_on_leaf(c, l) > best_leaf)
      best_leaf = ns_cluster_free_gpus_on_leaf(c, l);
  assert_true(best_server < gd);
  assert_true(starv < mc ||
              (best_leaf < gd && (starv < rk || ns_cluster_free_gpu_count(c) < gd)));
  return starv < mc && best_leaf >= gd;
}

typedef struct replay_stats {
  size_t declines, line10_declines, rack_accepts;
} replay_stats;

/* One offer to a waiting trace job at `now`; checks it against Algorithm 1
   and commits an accept. */
static void trace_offer(ns_delay_tuner *t, ns_cluster *c, trace_job *j, double now,
                        ns_placement *p, size_t recorded[2][9], replay_stats *st) {
  int gd = ns_job_gpus(j->job), acc;
  double starv = now - j->submit_ms, mc, rk;
  assert_int_equal(ns_dally_timers(t, c, gd, now, &mc, &rk), NS_OK);
  assert_int_equal(ns_dally_offer(t, c, j->job, starv, now, p, &acc), NS_OK);
  if (!acc) {
    assert_int_equal(ns_placement_gpu_count(p), 0);
    st->line10_declines += (size_t)assert_decline_justified(c, gd, starv, mc, rk);
    st->declines++;
    return;
  }
  ns_tier tier = ns_placement_tier(p);
  assert_int_equal(ns_placement_gpu_count(p), gd);
  assert_true(tier == NS_TIER_MACHINE || starv >= mc);
  assert_true(tier != NS_TIER_NETWORK); /* one switch: no network tier */
  assert_int_equal(ns_cluster_commit(c, j->job, p), NS_OK);
  recorded[tier][gd]++;
  st->rack_accepts += tier == NS_TIER_RACK;
  j->start_ms = now;
}

/* The Tiresias 60-job trace (170 GPUs of demand) on half its n32g4
   cluster (1 switch, 16 of the 32 nodes x 4 GPUs, so that the batch
   contends and fragments), all jobs submitted at once, 10 s scheduling
   rounds, timers scaled to the trace (10 min + 10 min). Every accept must commit, sit in a tier
   the timers allow, and be recorded once; every decline must be justified;
   every job must finish. */
static replay_stats replay_trace(const char *path, int manual) {
  trace_job jobs[64];
  size_t n = read_trace(path, jobs, 64);
  assert_int_equal(n, 60);
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 16, 4, 0, 100);
  ns_delay_tuner *t = ns_delay_tuner_new(1e12, 600e3, 600e3);
  ns_delay_tuner_set_manual(t, manual);
  ns_placement *p = ns_placement_new();
  size_t recorded[2][9] = {{0}}, finished = 0;
  replay_stats st = {0, 0, 0};
  double now = 0;
  for (; finished < n && now < 1e9; now += 10e3) {
    for (size_t i = 0; i < n; i++)
      if (jobs[i].start_ms >= 0 && jobs[i].start_ms + jobs[i].dur_ms <= now) {
        assert_int_equal(ns_cluster_release(c, jobs[i].job), NS_OK);
        jobs[i].start_ms = -2;
        finished++;
      }
    for (size_t i = 0; i < n; i++)
      if (jobs[i].start_ms == -1)
        trace_offer(t, c, &jobs[i], now, p, recorded, &st);
  }
  assert_int_equal(finished, n);
  for (int gd = 1; gd <= 8; gd++) /* each accept recorded exactly once */
    for (int tier = 0; tier < 2; tier++)
      assert_int_equal(samples(t, (ns_tier)tier, gd, now), recorded[tier][gd]);
  for (size_t i = 0; i < n; i++)
    ns_job_free(jobs[i].job);
  ns_placement_free(p);
  ns_delay_tuner_free(t);
  ns_cluster_free(c);
  return st;
}

static void test_trace_invariants(void **state) {
  (void)state;
  const char *path = ns_test_data_path("traces/tiresias-60-jobs.csv");
  if (path == NULL)
    skip();
  /* Dally-manual: fixed 10 min timers; jobs decline racks while waiting
     for a machine (line 10), and some end up on a rack. */
  replay_stats m = replay_trace(path, 1);
  assert_true(m.line10_declines > 0);
  assert_true(m.rack_accepts > 0);
  /* Dally: the same invariants while the timers tune themselves. */
  replay_stats a = replay_trace(path, 0);
  assert_true(a.declines + a.rack_accepts > 0);
}

/* ---- best-fit bin choice: brute-force oracle ----------------------------- */

static unsigned lcg(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return (*s >> 16) & 0x7fff;
}

/* Fewest bins whose free units cover need and, among those, the least sum,
   by trying every subset. */
static int brute_cover(const int *f, int n, int need, int *best_sum) {
  int best = 0;
  for (unsigned m = 1; m < (1u << n); m++) {
    int k = 0, s = 0;
    for (int i = 0; i < n; i++)
      if (m & (1u << i)) {
        k++;
        s += f[i];
      }
    if (s >= need && (best == 0 || k < best || (k == best && s < *best_sum))) {
      best = k;
      *best_sum = s;
    }
  }
  return best;
}

/* Checks one cover: distinct bins, takes within the bins, all summing to
   need, at most one bin used partly. Returns the chosen bins' free sum. */
static int check_cover(const int *f, int need, const int *bins, const int *takes, int k) {
  int sum = 0, cover = 0, partial = 0, used[9] = {0};
  for (int i = 0; i < k; i++) {
    assert_false(used[bins[i]]);
    used[bins[i]] = 1;
    assert_true(takes[i] >= 1 && takes[i] <= f[bins[i]]);
    partial += takes[i] < f[bins[i]];
    sum += takes[i];
    cover += f[bins[i]];
  }
  assert_int_equal(sum, need);
  assert_true(partial <= 1); /* only one bin left partly used */
  return cover;
}

static void test_pick_bins_oracle(void **state) {
  (void)state;
  unsigned seed = 7;
  for (int trial = 0; trial < 3000; trial++) {
    int n = 1 + (int)(lcg(&seed) % 9), cap = 1 + (int)(lcg(&seed) % 8), f[9], total = 0;
    for (int i = 0; i < n; i++)
      total += f[i] = (int)(lcg(&seed) % (unsigned)(cap + 1));
    int need = 1 + (int)(lcg(&seed) % (unsigned)(total + 2));
    int bins[9], takes[9], best_sum = 0;
    int want = brute_cover(f, n, need, &best_sum);
    /* exact: the fewest bins and the least overshoot */
    int k = nsd_pick_bins(f, n, need, bins, takes, "t");
    assert_int_equal(k, want);
    if (k > 0)
      assert_int_equal(check_cover(f, need, bins, takes, k), best_sum);
    /* greedy fallback: still the fewest bins, overshoot below one bin */
    k = nsd_pick_bins_bounded(f, n, need, 0, bins, takes, "t");
    assert_int_equal(k, want);
    if (k > 0)
      assert_true(check_cover(f, need, bins, takes, k) >= best_sum);
  }
  /* Where the greedy alone is not exact: frees {3,3,5,0,5,5,2}, need 6.
     Smallest-feasible-first takes 2 then 5 (7, one idle); exact takes the
     two 3s (6, none idle). */
  const int g[] = {3, 3, 5, 0, 5, 5, 2};
  int bins[7], takes[7];
  assert_int_equal(nsd_pick_bins_bounded(g, 7, 6, 0, bins, takes, "t"), 2);
  assert_int_equal(g[bins[0]] + g[bins[1]], 7);
  assert_int_equal(nsd_pick_bins(g, 7, 6, bins, takes, "t"), 2);
  assert_int_equal(bins[0], 0);
  assert_int_equal(bins[1], 1);
  /* The worked case of the baselines: frees {3,1,4,2,4,3}, need 6. {2,4}
     and {3,3} both leave no GPU idle; ties go to the smaller bins, so both
     4-GPU servers stay whole: servers 0 and 5. */
  const int f[] = {3, 1, 4, 2, 4, 3};
  assert_int_equal(nsd_pick_bins(f, 6, 6, bins, takes, "t"), 2);
  assert_int_equal(bins[0], 0);
  assert_int_equal(takes[0], 3);
  assert_int_equal(bins[1], 5);
  assert_int_equal(takes[1], 3);
}

/* Too large for the exact search (5000 bins, need 20000): the greedy
   answers, still with the fewest bins. Largest first: 625 bins each of
   8, 7, 6, 5, 4 give 18750, then 417 of the 3s (1251) -> 3542 bins. */
static void test_pick_bins_large_falls_back(void **state) {
  (void)state;
  enum { NB = 5000 };
  int *f = malloc(NB * sizeof *f), *bins = malloc(NB * sizeof *bins);
  int *takes = malloc(NB * sizeof *takes);
  for (int i = 0; i < NB; i++)
    f[i] = 1 + i % 8;
  int k = nsd_pick_bins(f, NB, 20000, bins, takes, "t");
  assert_int_equal(k, 3542);
  long sum = 0;
  for (int i = 0; i < k; i++)
    sum += takes[i];
  assert_int_equal(sum, 20000);
  free(f);
  free(bins);
  free(takes);
}

/* ---- baselines ----------------------------------------------------------- */

/* 1 rack x 6 servers x 4 GPUs with free GPUs per server {3,1,4,2,4,3}. */
static ns_cluster *baseline_cluster(void) {
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 6, 4, 0, 100);
  const int busy[] = {0, 4, 5, 6, 12, 13, 20};
  assert_int_equal(ns_cluster_occupy(c, busy, 7), NS_OK);
  return c;
}

static void test_best_fit(void **state) {
  (void)state;
  ns_cluster *c = baseline_cluster();
  ns_placement *p = ns_placement_new();
  ns_job *j2 = ns_job_new("j2", 2), *j6 = ns_job_new("j6", 6), *j19 = ns_job_new("j19", 19);
  assert_int_equal(ns_place_best_fit(c, j2, p), NS_OK);
  const int want2[] = {14, 15}; /* server 3: exactly 2 free */
  assert_gpus(p, want2, 2);
  assert_int_equal(ns_place_best_fit(c, j6, p), NS_OK);
  /* 2 servers, none left idle, the 4-GPU servers kept whole: 0 and 5 */
  const int want6[] = {1, 2, 3, 21, 22, 23};
  assert_gpus(p, want6, 6);
  assert_int_equal(ns_placement_server_count(p), 2);
  /* 17 free: a 19-GPU job waits, and out stays as it was. */
  assert_fails_with(ns_place_best_fit(c, j19, p), NS_ENOSPACE, "17");
  assert_int_equal(ns_placement_gpu_count(p), 6);
  assert_int_equal(ns_cluster_free_gpu_count(c), 17);
  ns_job_free(j2);
  ns_job_free(j6);
  ns_job_free(j19);
  ns_placement_free(p);
  ns_cluster_free(c);
}

static void test_tiresias(void **state) {
  (void)state;
  ns_cluster *c = baseline_cluster();
  ns_placement *p = ns_placement_new();
  ns_job *j = ns_job_new("alexnet", 8);
  ns_job_set_model_bytes(j, 1000);
  /* Skewed (bytes >= threshold, equality included): 8 GPUs on
     ceil(8/4) = 2 servers, servers 2 and 4 (the only full ones). */
  assert_int_equal(ns_place_tiresias(c, j, 1000, p), NS_OK);
  const int want[] = {8, 9, 10, 11, 16, 17, 18, 19};
  assert_gpus(p, want, 8);
  /* Take server 4 away: 8 GPUs would need 3 servers -> wait. */
  const int busy[] = {16};
  ns_cluster_occupy(c, busy, 1);
  assert_fails_with(ns_place_tiresias(c, j, 1000, p), NS_ENOSPACE, "2 servers");
  /* Not skewed: first-fit, the lowest free GPUs. */
  assert_int_equal(ns_place_tiresias(c, j, 1001, p), NS_OK);
  const int ff[] = {1, 2, 3, 7, 8, 9, 10, 11};
  assert_gpus(p, ff, 8);
  assert_fails_with(ns_place_tiresias(c, NULL, 1, p), NS_EINVAL, "job");
  ns_job_free(j);
  ns_placement_free(p);
  ns_cluster_free(c);
}

/* ---- Nw_sens and the offer order (§4.3.1) -------------------------------- */

/* Iterations done in run_ms by a job whose iterations cost compute_ms plus
   a communication overhead (Table 1, % of compute time). */
static uint64_t iters_after(double run_ms, double compute_ms, double overhead_pct) {
  return (uint64_t)(run_ms / (compute_ms * (1 + overhead_pct / 100)));
}

static void test_priority_table1(void **state) {
  (void)state;
  /* 100 ms compute per iteration, 1e6 iterations expected (ideal 1e8 ms),
     run 1e7 ms on the network tier. Nw_sens = 1 / (1 + overhead). */
  const double run = 1e7, ideal = 1e8;
  double mobilenet = ns_dally_priority(iters_after(run, 100, 19592), 1000000, run, ideal);
  double resnet50 = ns_dally_priority(iters_after(run, 100, 38), 1000000, run, ideal);
  double vgg11 = ns_dally_priority(iters_after(run, 100, 7), 1000000, run, ideal);
  assert_near(mobilenet, 1 / 196.92, 2e-5);
  assert_near(resnet50, 1 / 1.38, 2e-5);
  assert_near(vgg11, 1 / 1.07, 2e-5);
  /* Offers go in increasing Nw_sens: the most slowed-down job first. */
  const double nw[] = {vgg11, mobilenet, resnet50};
  size_t order[3];
  assert_int_equal(ns_dally_offer_order(nw, 3, order), NS_OK);
  assert_int_equal(order[0], 1); /* MobileNetV3 */
  assert_int_equal(order[1], 2); /* ResNet50 */
  assert_int_equal(order[2], 0); /* VGG11 */
}

static void test_priority_definition_and_edges(void **state) {
  (void)state;
  /* W = 500/1000 = 0.5, T_norm = 10 h / 10 h = 1 -> 0.5 */
  assert_near(ns_dally_priority(500, 1000, 10 * H, 10 * H), 0.5, 1e-12);
  /* W = 0.5, T_norm = 0.5 -> 1 (ideal progress) */
  assert_near(ns_dally_priority(500, 1000, 5 * H, 10 * H), 1.0, 1e-12);
  /* Not run yet: 1, no slowdown endured. */
  assert_near(ns_dally_priority(0, 1000, 0, 10 * H), 1.0, 0);
  assert_true(isnan(ns_dally_priority(1, 1000, 0, 10 * H)));
  assert_non_null(strstr(ns_last_error(), "run_ms"));
  assert_true(isnan(ns_dally_priority(0, 0, 1, 1)));
  assert_non_null(strstr(ns_last_error(), "iters_total"));
  assert_true(isnan(ns_dally_priority(2, 1, 1, 1)));
  assert_non_null(strstr(ns_last_error(), "iters_done"));
  assert_true(isnan(ns_dally_priority(1, 1, -1, 1)));
  assert_true(isnan(ns_dally_priority(1, 1, 1, 0)));
  assert_non_null(strstr(ns_last_error(), "ideal_run_ms"));
  assert_true(isnan(ns_dally_priority(1, 1, 1e-310, 1e300)));
  assert_non_null(strstr(ns_last_error(), "overflows"));

  /* From a job handle: (40 + 60) ms x 1000 iterations = 1e5 ms ideal;
     250 done in 5e4 ms -> 0.25 / 0.5 = 0.5. */
  ns_job *j = ns_job_new("bert", 8);
  assert_true(isnan(ns_dally_job_priority(j, 1)));
  assert_non_null(strstr(ns_last_error(), "compute"));
  ns_job_set_compute_ms(j, 40, 60);
  ns_job_set_iterations(j, 1000, 250);
  assert_near(ns_dally_job_priority(j, 5e4), 0.5, 1e-12);
  assert_true(isnan(ns_dally_job_priority(NULL, 1)));
  ns_job_free(j);

  /* Ties keep the input order; NaN is refused. */
  const double nw[] = {0.5, 0.2, 0.5, 0.2};
  size_t order[4];
  assert_int_equal(ns_dally_offer_order(nw, 4, order), NS_OK);
  const size_t want[] = {1, 3, 0, 2};
  for (int i = 0; i < 4; i++)
    assert_int_equal(order[i], want[i]);
  const double bad[] = {0.1, NAN};
  assert_fails_with(ns_dally_offer_order(bad, 2, order), NS_EINVAL, "nw_sens[1]");
  assert_int_equal(ns_dally_offer_order(NULL, 0, NULL), NS_OK);
}

/* Checkpoints: waits recorded (directly or by an accepted offer) and the
   clock advanced after ns_delay_tuner_checkpoint are undone by
   ns_delay_tuner_rollback - including a (tier, gpus) list created since -
   and kept by ns_delay_tuner_commit. Machine list for 2 GPUs before: one
   wait of 100 ms at 1000 ms; inside the checkpoint a second machine wait
   (300 ms at 2000) and a first rack wait for 4 GPUs (50 ms at 3000). */
static void test_tuner_checkpoint_rollback_swap(void **state) {
  (void)state;
  ns_delay_tuner *t = ns_delay_tuner_new(1e9, 1000.0, 1000.0), *u = ns_delay_tuner_new(1e9, 7.0, 7.0);
  assert_non_null(t);
  assert_non_null(u);
  size_t n = 9;
  double m = 0, r = 0;
  assert_fails_with(ns_delay_tuner_rollback(t), NS_ESTATE, "no open checkpoint");
  assert_int_equal(ns_delay_tuner_record(t, NS_TIER_MACHINE, 2, 100.0, 1000.0), NS_OK);
  assert_int_equal(ns_delay_tuner_checkpoint(t), NS_OK);
  assert_int_equal(ns_delay_tuner_record(t, NS_TIER_MACHINE, 2, 300.0, 2000.0), NS_OK);
  assert_int_equal(ns_delay_tuner_record(t, NS_TIER_RACK, 4, 50.0, 3000.0), NS_OK);
  assert_int_equal(ns_delay_tuner_sample_count(t, NS_TIER_MACHINE, 2, 3000.0, &n), NS_OK);
  assert_int_equal(n, 2);
  /* mean 200, sd sqrt(20000): 200 + 2 x 141.421 */
  assert_int_equal(ns_delay_tuner_timers(t, 2, 3000.0, &m, &r), NS_OK);
  assert_near(m, 200 + 2 * sqrt(20000.0), 1e-9);
  assert_int_equal(ns_delay_tuner_rollback(t), NS_OK);
  assert_int_equal(ns_delay_tuner_sample_count(t, NS_TIER_MACHINE, 2, 1500.0, &n), NS_OK);
  assert_int_equal(n, 1); /* and 1500 < 3000 is allowed: the clock is back at 1000 */
  assert_int_equal(ns_delay_tuner_sample_count(t, NS_TIER_RACK, 4, 1500.0, &n), NS_OK);
  assert_int_equal(n, 0);
  assert_int_equal(ns_delay_tuner_timers(t, 2, 1500.0, &m, &r), NS_OK);
  assert_near(m, 1000.0, 0); /* one wait: the default */
  assert_fails_with(ns_delay_tuner_rollback(t), NS_ESTATE, "no open checkpoint");
  /* commit keeps them */
  assert_int_equal(ns_delay_tuner_checkpoint(t), NS_OK);
  assert_int_equal(ns_delay_tuner_record(t, NS_TIER_MACHINE, 2, 300.0, 2000.0), NS_OK);
  assert_int_equal(ns_delay_tuner_commit(t), NS_OK);
  assert_int_equal(ns_delay_tuner_commit(t), NS_OK); /* none open: nothing happens */
  assert_fails_with(ns_delay_tuner_sample_count(t, NS_TIER_MACHINE, 2, 1500.0, &n), NS_EINVAL,
                    "before the tuner's clock");
  assert_int_equal(ns_delay_tuner_sample_count(t, NS_TIER_MACHINE, 2, 2000.0, &n), NS_OK);
  assert_int_equal(n, 2);
  /* swap: u now holds t's two waits and t none, defaults exchanged too */
  assert_int_equal(ns_delay_tuner_swap(t, u), NS_OK);
  assert_int_equal(ns_delay_tuner_sample_count(u, NS_TIER_MACHINE, 2, 2000.0, &n), NS_OK);
  assert_int_equal(n, 2);
  assert_int_equal(ns_delay_tuner_sample_count(t, NS_TIER_MACHINE, 2, 0.0, &n), NS_OK);
  assert_int_equal(n, 0);
  assert_int_equal(ns_delay_tuner_timers(t, 2, 0.0, &m, &r), NS_OK);
  assert_near(m, 7.0, 0);
  assert_fails_with(ns_delay_tuner_swap(t, NULL), NS_EINVAL, "b");
  assert_fails_with(ns_delay_tuner_checkpoint(NULL), NS_EINVAL, "t");
  ns_delay_tuner_free(t);
  ns_delay_tuner_free(u);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_timer_mean_plus_two_sample_sd),
      cmocka_unit_test(test_timer_defaults_below_two_samples),
      cmocka_unit_test(test_expiry_by_age),
      cmocka_unit_test(test_sliding_window),
      cmocka_unit_test(test_manual_mode),
      cmocka_unit_test(test_line5_machine_best_fit),
      cmocka_unit_test(test_line10_reject_before_machine_timer),
      cmocka_unit_test(test_line13_rack_best_fit),
      cmocka_unit_test(test_line18_reject_then_line21_network),
      cmocka_unit_test(test_offer_too_small),
      cmocka_unit_test(test_zero_timer_rules),
      cmocka_unit_test(test_offer_uses_and_feeds_tuned_timers),
      cmocka_unit_test(test_offer_respects_gpu_memory),
      cmocka_unit_test(test_time_must_not_go_back),
      cmocka_unit_test(test_bad_input),
      cmocka_unit_test(test_trace_invariants),
      cmocka_unit_test(test_pick_bins_oracle),
      cmocka_unit_test(test_pick_bins_large_falls_back),
      cmocka_unit_test(test_best_fit),
      cmocka_unit_test(test_tiresias),
      cmocka_unit_test(test_priority_table1),
      cmocka_unit_test(test_priority_definition_and_edges),
      cmocka_unit_test(test_tuner_checkpoint_rollback_swap),
  };
  return cmocka_run_group_tests_name("dally", tests, NULL, NULL);
}
