/*
 * tests/unit/test_sim_peer.c - what makes the simulator comparable with a
 * peer that models no network (Tiresias's simulator): the IDEAL network,
 * strict FIFO ("fifo") against backfilling FIFO ("ff"), and a trace's
 * duration as the job's lone run time. Expected numbers are derived by hand
 * in the comments, except the Tiresias agreement table, whose numbers were
 * measured with the peer itself (see test_tiresias_agreement).
 */
#include "helpers/ns_test.h"

#include <stdlib.h>
#include <unistd.h>

static ns_sim_opts *opts(const char *policy, ns_sim_network net) {
  ns_sim_opts *o = ns_sim_opts_new();
  assert_non_null(o);
  assert_int_equal(ns_sim_opts_set_policy_name(o, policy), NS_OK);
  assert_int_equal(ns_sim_opts_set_network(o, net), NS_OK);
  return o;
}

/* ---- the IDEAL network ------------------------------------------------------ */

/* Two 2-GPU jobs spread one GPU per server over 2 servers, so that under
   max-min they share both NICs (test_sim.c's two-job case). IDEAL: the
   125 MB all-reduce costs nothing, so each runs iterations x compute:
   A 100 x 100 ms = 10 s, B 50 x 100 ms = 5 s; no communication overhead. */
static void test_ideal_network(void **state) {
  (void)state;
  ns_sim_opts *o = opts("ff", NS_SIM_NET_IDEAL);
  assert_int_equal(ns_sim_opts_set_place_fn(o, ns_test_place_spread, NULL), NS_OK);
  assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, 2, 2, 0, 10.0), NS_OK);
  ns_sim *s = ns_sim_new(o);
  assert_int_equal(ns_sim_add_job(s, "A", 0, 2, 100, 100.0, 125000000ull, 0), 0);
  assert_int_equal(ns_sim_add_job(s, "B", 0, 2, 50, 100.0, 125000000ull, 0), 1);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(ns_test_jct_ms(s, 0), 10000.0, 1e-6);
  assert_near(ns_test_jct_ms(s, 1), 5000.0, 1e-6);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_COMM_OVERHEAD), 0.0, 1e-12);
  ns_sim_free(s);
  /* the same under max-min is slower: the NICs are shared (a check that
     the case exercises the network at all) */
  assert_int_equal(ns_sim_opts_set_network(o, NS_SIM_NET_MAXMIN), NS_OK);
  s = ns_sim_new(o);
  assert_int_equal(ns_sim_add_job(s, "A", 0, 2, 100, 100.0, 125000000ull, 0), 0);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(ns_test_jct_ms(s, 0), 100 * 200.0, 1e-6); /* alone: 100 ms compute + 100 ms ring */
  ns_sim_free(s);
  /* model 2 is the phase model (the default, issue 14): accepted */
  assert_int_equal(ns_sim_opts_set_network(o, NS_SIM_NET_PHASE), NS_OK);
  assert_fails_with(ns_sim_opts_set_network(o, (ns_sim_network)4), NS_EINVAL, "model");
  ns_sim_opts_free(o);
}

/* ---- strict FIFO vs backfilling -------------------------------------------- */

/* One 4-GPU server, IDEAL network. A: 3 GPUs at 0 s for 100 s; B: 2 GPUs at
   1 s for 50 s; C: 1 GPU at 2 s for 10 s (compute 100 ms per iteration).
   ff (backfilling): A 0-100; B does not fit (1 GPU free); C fits at 2 s and
   runs 2-12; B runs 100-150. JCTs 100, 149, 10: average 259/3 s.
   fifo (head-of-line): C waits behind B; at 100 s B and C both start.
   JCTs 100, 149, 108: average 357/3 = 119 s. Makespan 150 s in both. */
static ns_sim *hol_run(const char *policy) {
  ns_sim_opts *o = opts(policy, NS_SIM_NET_IDEAL);
  assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, 1, 4, 0, 10.0), NS_OK);
  ns_sim *s = ns_sim_new(o);
  ns_sim_opts_free(o);
  assert_int_equal(ns_sim_add_job(s, "A", 0, 3, 1000, 100.0, 1000000000ull, 0), 0);
  assert_int_equal(ns_sim_add_job(s, "B", 1000, 2, 500, 100.0, 1000000000ull, 0), 1);
  assert_int_equal(ns_sim_add_job(s, "C", 2000, 1, 100, 100.0, 1000000000ull, 0), 2);
  assert_int_equal(ns_sim_run(s), NS_OK);
  return s;
}

static void test_fifo_blocks_ff_backfills(void **state) {
  (void)state;
  ns_sim *ff = hol_run("ff"), *fifo = hol_run("fifo");
  assert_near(ns_test_jct_ms(ff, 2), 10000.0, 1e-6);
  assert_near(ns_test_jct_ms(fifo, 2), 108000.0, 1e-6);
  assert_near(ns_test_metric(ff, NS_SIM_METRIC_AVG_JCT_MS), 259000.0 / 3, 1e-6);
  assert_near(ns_test_metric(fifo, NS_SIM_METRIC_AVG_JCT_MS), 119000.0, 1e-6);
  assert_near(ns_test_metric(ff, NS_SIM_METRIC_MAKESPAN_MS), 150000.0, 1e-6);
  assert_near(ns_test_metric(fifo, NS_SIM_METRIC_MAKESPAN_MS), 150000.0, 1e-6);
  ns_sim_free(ff), ns_sim_free(fifo);
  /* the preset is ff's parts without backfilling */
  ns_sim_opts *o = opts("ff", NS_SIM_NET_IDEAL);
  assert_int_equal(ns_sim_opts_set_backfill(o, 0), NS_OK);
  assert_string_equal(ns_sim_opts_policy_name(o), "custom");
  assert_fails_with(ns_sim_opts_set_backfill(o, 2), NS_EINVAL, "enabled");
  assert_fails_with(ns_sim_opts_set_backfill(NULL, 1), NS_EINVAL, "o");
  assert_string_equal(ns_sim_policy_name(NS_SIM_POLICY_FIFO), "fifo");
  assert_non_null(strstr(ns_sim_policy_description(NS_SIM_POLICY_FIFO), "no backfilling"));
  assert_non_null(strstr(ns_sim_policy_description(NS_SIM_POLICY_FF), "backfilling"));
  ns_sim_opts_free(o);
}

/* Machines used (Titan's metric): 1 leaf x 2 servers x 2 GPUs, IDEAL.
   A (2 GPUs, 0-10 s) takes server 0 under first-fit, B (1 GPU, 0-5 s)
   server 1: 2 servers for 5 s, then 1 for 5 s: 15 server-s / 10 s = 1.5. */
static void test_machines_used(void **state) {
  (void)state;
  ns_sim_opts *o = opts("ff", NS_SIM_NET_IDEAL);
  assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, 2, 2, 0, 10.0), NS_OK);
  ns_sim *s = ns_sim_new(o);
  assert_int_equal(ns_sim_add_job(s, "A", 0, 2, 100, 100.0, 0, 0), 0);
  assert_int_equal(ns_sim_add_job(s, "B", 0, 1, 50, 100.0, 0, 0), 1);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_MACHINES_USED), 1.5, 1e-12);
  assert_string_equal(ns_sim_metric_name(NS_SIM_METRIC_MACHINES_USED), "machines_used");
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* ---- trace durations ---------------------------------------------------------- */

/* tests/fixtures/tiresias-small.csv on the default 64-GPU cluster, IDEAL:
   every job runs exactly its duration column once started. Jobs 0-3 start
   on arrival (1 + 8 + 2 + 4 GPUs) and end at 0+164, 30+147, 53+127 and
   79+121 = 200 s; job 4 (64 GPUs, at 90 s) waits for all of them and runs
   200-210 s. JCTs 164, 147, 127, 121, 120: average 679/5 = 135.8 s;
   makespan 210 s. Strict FIFO gives the same (job 4 is last). */
static void test_tiresias_durations_ideal(void **state) {
  (void)state;
  const char *pol[2] = {"ff", "fifo"};
  for (int p = 0; p < 2; p++) {
    ns_sim_opts *o = opts(pol[p], NS_SIM_NET_IDEAL);
    ns_sim *s = ns_sim_new(o);
    assert_int_equal(ns_sim_load_trace(s, "tests/fixtures/tiresias-small.csv",
                                       NS_SIM_TRACE_TIRESIAS), 5);
    assert_int_equal(ns_sim_run(s), NS_OK);
    const double want[5] = {164e3, 147e3, 127e3, 121e3, 120e3};
    for (int i = 0; i < 5; i++)
      assert_near(ns_test_jct_ms(s, i), want[i], 1e-6 * want[i]);
    assert_near(ns_test_metric(s, NS_SIM_METRIC_AVG_JCT_MS), 135800.0, 1e-3);
    assert_near(ns_test_metric(s, NS_SIM_METRIC_MAKESPAN_MS), 210000.0, 1e-3);
    ns_sim_free(s);
    ns_sim_opts_free(o);
  }
}

/* Under max-min the duration includes the all-reduce alone on a
   consolidated placement. A 4-GPU ResNet-50 row (99.2 MB) on one 4-GPU
   server: all-reduce 2 x 3/4 x 99.2 MB x 8 / 100 Gbps = 11.904 ms per
   iteration; 100 iterations in 10 s: compute 100 - 11.904 = 88.096 ms, and
   the job alone runs 10 s. A row whose duration is shorter than its
   communication alone (8 GPUs of VGG-16 on 2 servers: 2 x 7/8 x 526.4 MB x
   8 / 10 Gbps = 736.96 ms per iteration, 1000 iterations in 1 s) gets the
   1 us floor: 1000 x 736.961 ms. */
static void test_tiresias_durations_maxmin(void **state) {
  (void)state;
  char path[64];
  ns_test_temp_file(path, "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n"
                    "0,4,0,100,resnet50,10,1\n"
                    "1,8,1000,1000,vgg16,1,1\n");
  ns_sim_opts *o = opts("ff", NS_SIM_NET_MAXMIN);
  ns_sim *s = ns_sim_new(o);
  assert_int_equal(ns_sim_load_trace(s, path, NS_SIM_TRACE_TIRESIAS), 2);
  remove(path);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(ns_test_jct_ms(s, 0), 10000.0, 1e-6);
  assert_near(ns_test_jct_ms(s, 1), 1000 * 736.961, 1e-3);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* Philly rows keep the profile's compute and get iterations =
   round(duration / lone consolidated iteration): the run time alone is the
   duration within half an iteration. tests/fixtures/philly-small.csv: the
   2-GPU row (2951 s) arrives first and lands on one server; its iteration
   is at most VGG-16's 89.5 ms + 526.4 MB x 8 / 100 Gbps = 131.6 ms. The
   1-GPU row (66 s) runs alone on its GPU. */
static void test_philly_durations(void **state) {
  (void)state;
  ns_sim_opts *o = opts("best-fit", NS_SIM_NET_MAXMIN);
  ns_sim *s = ns_sim_new(o);
  assert_int_equal(ns_sim_load_trace(s, "tests/fixtures/philly-small.csv", NS_SIM_TRACE_PHILLY), 3);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(ns_test_jct_ms(s, 1), 2951000.0, 131.6 / 2);
  assert_near(ns_test_jct_ms(s, 0), 66000.0, 89.5 / 2);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* ---- agreement with the Tiresias simulator ---------------------------------- */

/* The peer's figures, measured by running SymbioticLab/Tiresias's simulator
   (commit 959f9b0, simulator/run_sim.py under Python 2.7.18; numpy's mean
   and the unused cplex import stubbed) on shared/data/traces/
   tiresias-60-jobs.csv with --scheme=count (resource counting: the
   simulator does not model placement's effect on speed) and cluster specs
   "1,N,4,128,256" (one switch, N nodes x 4 GPUs), --schedule=fifo and
   --schedule=fjf. Average JCT = mean of job.csv's JCT column, makespan =
   max end_time - min submit_time. Issue 14 asks for 1.5 %. */
static const struct {
  int servers;
  const char *policy; /* ours; the peer's is fifo / fjf */
  double avg_jct_s, makespan_s;
} tiresias_peer[] = {
    {16, "fifo", 178.417, 3271}, {16, "ff", 178.417, 3271},
    {4, "fifo", 200.817, 3335},  {4, "ff", 190.683, 3271},
    {2, "fifo", 1556.483, 5747}, {2, "ff", 715.267, 4806},
};

static void test_tiresias_agreement(void **state) {
  (void)state;
  const char *t60 = ns_test_data_path("traces/tiresias-60-jobs.csv");
  if (t60 == NULL) {
    printf("skipped: shared traces absent (set NS_DATA_DIR)\n");
    skip();
  }
  for (size_t i = 0; i < sizeof tiresias_peer / sizeof tiresias_peer[0]; i++) {
    ns_sim_opts *o = opts(tiresias_peer[i].policy, NS_SIM_NET_IDEAL);
    assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, tiresias_peer[i].servers, 4, 0, 10.0), NS_OK);
    ns_sim *s = ns_sim_new(o);
    assert_int_equal(ns_sim_load_trace(s, t60, NS_SIM_TRACE_TIRESIAS), 60);
    assert_int_equal(ns_sim_run(s), NS_OK);
    double jct_s = ns_test_metric(s, NS_SIM_METRIC_AVG_JCT_MS) / 1e3;
    double mk_s = ns_test_metric(s, NS_SIM_METRIC_MAKESPAN_MS) / 1e3;
    printf("  %2d x 4 GPUs %-4s avg JCT %9.3f s (peer %9.3f)  makespan %6.0f s (peer %6.0f)\n",
           tiresias_peer[i].servers, tiresias_peer[i].policy, jct_s, tiresias_peer[i].avg_jct_s,
           mk_s, tiresias_peer[i].makespan_s);
    assert_near(jct_s, tiresias_peer[i].avg_jct_s, 0.015 * tiresias_peer[i].avg_jct_s);
    assert_near(mk_s, tiresias_peer[i].makespan_s, 0.015 * tiresias_peer[i].makespan_s);
    ns_sim_free(s);
    ns_sim_opts_free(o);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ideal_network),
      cmocka_unit_test(test_fifo_blocks_ff_backfills),
      cmocka_unit_test(test_machines_used),
      cmocka_unit_test(test_tiresias_durations_ideal),
      cmocka_unit_test(test_tiresias_durations_maxmin),
      cmocka_unit_test(test_philly_durations),
      cmocka_unit_test(test_tiresias_agreement),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
