/*
 * tests/unit/test_sim_preempt.c - preemption in the engine and Tiresias's
 * 2D-LAS / 2D-Gittins (the policy object's decision, src/policy/las.c).
 * Hand-computed cases first (the derivations are in the comments), then
 * agreement with the Tiresias
 * simulator on its trace and on traces built from it.
 *
 * All hand cases use the IDEAL network and jobs of 1 s iterations (compute
 * 1000 ms, no all-reduce), so a job of D iterations runs D seconds.
 */
#include "helpers/ns_test.h"

#include <stdlib.h>
#include <unistd.h>

static double jct_s(const ns_sim *s, int job) {
  return ns_test_jct_ms(s, job) / 1e3;
}

/* One 4-GPU server, IDEAL network, `policy`; thresholds in GPU-s. */
static ns_sim_opts *opts(const char *policy, int queues, const double *limits_gpu_s) {
  ns_sim_opts *o = ns_sim_opts_new();
  assert_non_null(o);
  assert_int_equal(ns_sim_opts_set_policy_name(o, policy), NS_OK);
  assert_int_equal(ns_sim_opts_set_network(o, NS_SIM_NET_IDEAL), NS_OK);
  assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, 1, 4, 0, 10.0), NS_OK);
  if (queues > 0) {
    double ms[8];
    for (int q = 0; q + 1 < queues; q++)
      ms[q] = limits_gpu_s[q] * 1e3;
    assert_int_equal(ns_sim_opts_set_las_queues(o, queues, ms), NS_OK);
  }
  return o;
}

static void add(ns_sim *s, const char *name, double arrival_s, int gpus, uint64_t seconds) {
  assert_true(ns_sim_add_job(s, name, arrival_s * 1e3, gpus, seconds, 1000.0, 0, 0) >= 0);
}

/* A short job behind a long one on a full cluster. L: 4 GPUs at 0 s for
   10000 s; S: 1 GPU at 100 s for 10 s; S2: 1 GPU at 200 s for 10 s.
   2D-LAS with one threshold of 100 GPU-s and a 5 s restore overhead:
   - t=0 L runs; its demotion check comes after (100 - 0) / 4 = 25 s; at 25
     its attained 4 x 25 = 100 GPU-s reaches the threshold: L -> Q1.
   - t=100 S arrives in Q0 ahead of L: S runs, L is preempted (100 s done).
     S ends at 110: JCT 10 s. L resumes at 110, restores until 115.
   - t=200 S2 preempts L again (85 more s done: 185). S2 ends at 210:
     JCT 10 s. L resumes, restores 210-215, runs its last 9815 s: ends at
     10030 = 10000 + 2 x 10 (the short jobs) + 2 x 5 (one restore per
     resume): progress kept, overhead charged once per resume.
   FIFO (ff) instead: S and S2 wait for L: JCTs 9910 and 9810 s. */
static void test_short_job_behind_long(void **state) {
  (void)state;
  const double lim[1] = {100};
  ns_sim_opts *o = opts("2d-las", 2, lim);
  assert_int_equal(ns_sim_opts_set_preemption_overhead(o, 5000.0), NS_OK);
  ns_sim *s = ns_sim_new(o);
  add(s, "L", 0, 4, 10000), add(s, "S", 100, 1, 10), add(s, "S2", 200, 1, 10);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(jct_s(s, 1), 10.0, 1e-6);
  assert_near(jct_s(s, 2), 10.0, 1e-6);
  assert_near(jct_s(s, 0), 10030.0, 1e-6);
  assert_int_equal(ns_sim_job_preemptions(s, 0), 2);
  assert_int_equal(ns_sim_job_preemptions(s, 1), 0);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_PREEMPTIONS), 2, 0);
  double st;
  assert_int_equal(ns_sim_job_result(s, 0, NULL, &st, NULL, NULL), NS_OK);
  assert_near(st, 0.0, 0); /* start = first start */
  ns_sim_free(s);
  ns_sim_opts_free(o);

  o = opts("ff", 0, NULL);
  s = ns_sim_new(o);
  add(s, "L", 0, 4, 10000), add(s, "S", 100, 1, 10), add(s, "S2", 200, 1, 10);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(jct_s(s, 1), 9910.0, 1e-6);
  assert_near(jct_s(s, 2), 9810.0, 1e-6);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_PREEMPTIONS), 0, 0);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* Demotion past the default first threshold (3250 GPU-s), with the
   Tiresias simulator's timing. L: 4 GPUs at 0 for 10000 s; S: 1 GPU at
   100 s for 10 s.
   - t=0: L's next check after (3250 - 0) / 4 = 812 s (integer division).
   - t=100: S arrives and waits (L, ahead in Q0, holds all 4 GPUs); the
     check is re-estimated: (3250 - 100) / 4 = 787 s -> t=887.
   - t=887: 4 x 887 = 3548 >= 3250: L -> Q1; S runs 887-897: JCT 797 s.
   L: 887 s done, resumes at 897, ends at 10010. */
static void test_demotion(void **state) {
  (void)state;
  ns_sim_opts *o = opts("2d-las", 0, NULL);
  ns_sim *s = ns_sim_new(o);
  add(s, "L", 0, 4, 10000), add(s, "S", 100, 1, 10);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(jct_s(s, 1), 797.0, 1e-6);
  assert_near(jct_s(s, 0), 10010.0, 1e-6);
  assert_int_equal(ns_sim_job_preemptions(s, 0), 1);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* Starvation promotion. Thresholds 100 and 400 GPU-s (3 queues). A: 4 GPUs
   at 0 for 210 s; B: 1 GPU at 200 s for 1000 s.
   - t=0 A runs; check after 100 / 4 = 25 s: at 25, 100 GPU-s -> Q1; next
     check after (400 - 25) / 4 = 93 s: at 118, 472 GPU-s -> Q2.
   - t=200 B arrives (Q0): B runs, A is preempted with 200 s done.
   - t=300 B has 100 GPU-s -> Q1 (next check after 400 - 100 = 300 s).
   knob 1: A, waiting since 200, is promoted when it has waited as long as
   it ran (200 s): at 400 it returns to Q0 (executed time reset), runs and
   preempts B (200 s done); A ends at 410: JCT 410 s. B resumes at 410
   (Q1) and ends at 1210: JCT 1010 s.
   knob 0: at 600 B reaches 400 GPU-s -> Q2 behind A, which runs 600-610:
   JCT 610 s; B ends at 1210: JCT 1010 s. */
static void test_starvation_promotion(void **state) {
  (void)state;
  const double lim[2] = {100, 400};
  const double knob[2] = {1.0, 0.0}, want_a[2] = {410.0, 610.0};
  for (int k = 0; k < 2; k++) {
    ns_sim_opts *o = opts("2d-las", 3, lim);
    assert_int_equal(ns_sim_opts_set_starvation(o, knob[k]), NS_OK);
    ns_sim *s = ns_sim_new(o);
    add(s, "A", 0, 4, 210), add(s, "B", 200, 1, 1000);
    assert_int_equal(ns_sim_run(s), NS_OK);
    assert_near(jct_s(s, 0), want_a[k], 1e-6);
    assert_near(jct_s(s, 1), 1010.0, 1e-6);
    assert_int_equal(ns_sim_job_preemptions(s, 0), 1);
    assert_int_equal(ns_sim_job_preemptions(s, 1), 1);
    ns_sim_free(s);
    ns_sim_opts_free(o);
  }
}

static void test_bad_preemption_options(void **state) {
  (void)state;
  ns_sim_opts *o = ns_sim_opts_new();
  const double down[2] = {5000.0, 1000.0}, ok[2] = {1000.0, 5000.0};
  assert_fails_with(ns_sim_opts_set_las_queues(o, 0, ok), NS_EINVAL, "queues");
  assert_fails_with(ns_sim_opts_set_las_queues(o, 9, ok), NS_EINVAL, "queues");
  assert_fails_with(ns_sim_opts_set_las_queues(o, 3, down), NS_EINVAL, "thresholds_gpu_ms[1]");
  assert_fails_with(ns_sim_opts_set_las_queues(o, 2, NULL), NS_EINVAL, "thresholds_gpu_ms");
  assert_int_equal(ns_sim_opts_set_las_queues(o, 1, NULL), NS_OK);
  assert_fails_with(ns_sim_opts_set_starvation(o, -1), NS_EINVAL, "knob");
  assert_fails_with(ns_sim_opts_set_preemption_overhead(o, NAN), NS_EINVAL, "restore_ms");
  assert_fails_with(ns_sim_opts_set_order(o, (ns_sim_order)6), NS_EINVAL, "order");
  ns_sim *s = ns_sim_new(o);
  assert_fails_with(ns_sim_job_preemptions(s, 0), NS_EINVAL, "job");
  add(s, "a", 0, 1, 1);
  assert_fails_with(ns_sim_job_preemptions(s, 0), NS_ESTATE, "ns_sim_run");
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* 2D-Gittins with a given distribution (ns_sim_opts_set_gittins_samples).
   One GPU, one threshold of 50 GPU-s (delta = 50), A: 1 GPU at 0 s for
   30 s; B: 1 GPU at 20 s for 5 s. Neither reaches 50 GPU-s: both stay in Q0,
   ordered by Gittins index (the table at d_k - 1, as src/policy/las.c's header):
   - own distribution (default): d = {5, 30}. At a' = 4: i = 0, 4 + 50 > 29
     so m = n - 1 = 1; P = 1/2; E = floor((5 + 50 x 1) / 2) = 27; index
     round(0.5e6 / 27, 4) = 18518.5185. At a' = 29: i = m = 1, P = 0: 0.
     At t=20, A (20 GPU-s attained, 5 <= 20 < 30) has index 0, B (0) has
     18518.5: B preempts A, runs 20-25 (JCT 5 s); A ends at 35 (JCT 35 s).
   - samples {200, 100} GPU-s (given unsorted): d = {100, 200}. At a' = 99:
     i = 0, 99 + 50 = 149 <= 199 so m = first d > 149 = 1; P = 1/2; E =
     floor((100 + 50 x 1) / 2) = 75; index 6666.6667 for every a < 100. At
     t=20 A and B tie; the earlier arrival (A) goes first: A ends at 30
     (JCT 30 s), B runs 30-35 (JCT 15 s), no preemption.
   - samples {10, 100}: at a' = 9: i = 0, m = first d > 59 = 1, P = 1/2,
     E = floor((10 + 50) / 2) = 30: 16666.6667; a >= 10: index 0. A (20)
     is behind B again: JCTs 35 and 5 s, as with the own distribution. */
static void gittins_case(const ns_sim_opts *o, double want_a, double want_b, int want_pre) {
  ns_sim *s = ns_sim_new(o);
  assert_non_null(s);
  add(s, "A", 0, 1, 30), add(s, "B", 20, 1, 5);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(jct_s(s, 0), want_a, 1e-6);
  assert_near(jct_s(s, 1), want_b, 1e-6);
  assert_int_equal(ns_sim_job_preemptions(s, 0), want_pre);
  ns_sim_free(s);
}

static ns_sim_opts *gittins_opts(void) {
  const double lim[1] = {50};
  ns_sim_opts *o = opts("2d-gittins", 2, lim);
  assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, 1, 1, 0, 10.0), NS_OK);
  return o;
}

static void test_gittins_samples(void **state) {
  (void)state;
  const double high[2] = {200e3, 100e3}, low[2] = {10e3, 100e3};
  ns_sim_opts *o = gittins_opts();
  gittins_case(o, 35.0, 5.0, 1); /* own distribution {5, 30} */
  assert_int_equal(ns_sim_opts_set_gittins_samples(o, high, 2), NS_OK);
  gittins_case(o, 30.0, 15.0, 0);
  assert_int_equal(ns_sim_opts_set_gittins_samples(o, low, 2), NS_OK);
  gittins_case(o, 35.0, 5.0, 1);
  assert_int_equal(ns_sim_opts_set_gittins_samples(o, NULL, 0), NS_OK); /* back to own */
  gittins_case(o, 35.0, 5.0, 1);
  /* 2D-LAS ignores the samples: FIFO within Q0, A keeps its GPU */
  assert_int_equal(ns_sim_opts_set_gittins_samples(o, high, 2), NS_OK);
  assert_int_equal(ns_sim_opts_set_policy_name(o, "2d-las"), NS_OK);
  gittins_case(o, 30.0, 15.0, 0);
  assert_int_equal(ns_sim_opts_set_gittins_samples(o, low, 2), NS_OK);
  gittins_case(o, 30.0, 15.0, 0);
  ns_sim_opts_free(o);

  /* the simulator keeps its own copy: the options changed and freed after
     ns_sim_new do not reach it */
  o = gittins_opts();
  assert_int_equal(ns_sim_opts_set_gittins_samples(o, high, 2), NS_OK);
  ns_sim *s = ns_sim_new(o);
  assert_int_equal(ns_sim_opts_set_gittins_samples(o, low, 2), NS_OK);
  ns_sim_opts_free(o);
  add(s, "A", 0, 1, 30), add(s, "B", 20, 1, 5);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(jct_s(s, 1), 15.0, 1e-6);
  ns_sim_free(s);
}

static void test_bad_gittins_samples(void **state) {
  (void)state;
  const double high[2] = {200e3, 100e3};
  const double zero[2] = {100e3, 0.0}, neg[1] = {-1.0}, huge[1] = {1e19};
  const double nan_[3] = {1e3, 2e3, NAN}, inf_[1] = {INFINITY};
  ns_sim_opts *o = gittins_opts();
  assert_fails_with(ns_sim_opts_set_gittins_samples(NULL, high, 2), NS_EINVAL, "o is NULL");
  assert_int_equal(ns_sim_opts_set_gittins_samples(o, high, 2), NS_OK);
  assert_fails_with(ns_sim_opts_set_gittins_samples(o, NULL, 3), NS_EINVAL, "gpu_time_samples");
  assert_fails_with(ns_sim_opts_set_gittins_samples(o, zero, 2), NS_EINVAL, "gpu_time_samples[1]");
  assert_fails_with(ns_sim_opts_set_gittins_samples(o, neg, 1), NS_EINVAL, "-1");
  assert_fails_with(ns_sim_opts_set_gittins_samples(o, huge, 1), NS_EINVAL, "gpu_time_samples[0]");
  assert_fails_with(ns_sim_opts_set_gittins_samples(o, nan_, 3), NS_EINVAL, "gpu_time_samples[2]");
  assert_fails_with(ns_sim_opts_set_gittins_samples(o, inf_, 1), NS_EINVAL, "gpu_time_samples[0]");
  assert_fails_with(ns_sim_opts_set_gittins_samples(o, high, SIZE_MAX), NS_EINVAL, "n must be below");
  /* every failure left the samples {200, 100} in place */
  gittins_case(o, 30.0, 15.0, 0);
  ns_sim_opts_free(o);
}

/* ---- agreement with the Tiresias simulator ---------------------------------- */

/* Traces built from shared/data/traces/tiresias-60-jobs.csv: `copies`
   copies, copy c submitted c x shift s later, durations x dur_scale. */
static char *derived_trace(const char *src, int copies, int dur_scale, int shift) {
  FILE *in = fopen(src, "r");
  assert_non_null(in);
  static char path[64];
  snprintf(path, sizeof path, "/tmp/ns_tiresias_XXXXXX");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *out = fdopen(fd, "w");
  char line[512];
  assert_non_null(fgets(line, sizeof line, in));
  fputs(line, out); /* job_id,num_gpu,submit_time,iterations,model_name,duration,interval */
  char rows[64][512];
  int n = 0;
  while (n < 64 && fgets(rows[n], sizeof rows[n], in))
    n++;
  fclose(in);
  int id = 0;
  for (int c = 0; c < copies; c++)
    for (int r = 0; r < n; r++) {
      int job, gpu, submit, iters, dur, interval;
      char model[64];
      assert_int_equal(sscanf(rows[r], "%d,%d,%d,%d,%63[^,],%d,%d", &job, &gpu, &submit, &iters,
                              model, &dur, &interval), 7);
      fprintf(out, "%d,%d,%d,%d,%s,%d,%d\n", id++, gpu, submit + c * shift, iters, model,
              dur * dur_scale, interval);
    }
  fclose(out);
  return path;
}

/* The peer's figures: SymbioticLab/Tiresias's simulator (commit 959f9b0,
   simulator/run_sim.py under Python 2.7.18; numpy's mean and the unused
   cplex import stubbed), --scheme=count, cluster spec "1,N,4,128,256",
   --schedule=dlas-gpu (2D-LAS), dlas-gpu-2 (2D-LAS, starvation knob 2)
   and dlas-gpu-gittins (2D-Gittins) with
   yarn-gput1000.csv replaced by the trace's own GPU times (num_gpu x
   duration: the distribution this simulator uses), on the traces built as
   above: t60 = the trace itself, t60d10 = durations x 10, t240d10 = 4
   copies 1800 s apart, durations x 10. Average of job.csv's JCT, max
   end_time - min submit_time, sum of its preempt column. */
static const struct {
  int copies, scale, servers;
  const char *policy;
  double jct_s, makespan_s;
  int preemptions;
  double knob; /* starvation promotion: the simulator's dlas-gpu-2 */
} peer[] = {
    {1, 1, 4, "2d-gittins", 216.817, 3271, 29, 0},     {1, 1, 2, "2d-gittins", 821.433, 4780, 90, 0},
    {1, 10, 16, "2d-las", 2199.417, 19471, 32, 0},     {1, 10, 4, "2d-las", 6700.250, 26665, 33, 0},
    {1, 10, 2, "2d-las", 12471.717, 45418, 24, 0},     {1, 10, 16, "2d-gittins", 2210.500, 19471, 117, 0},
    {1, 10, 4, "2d-gittins", 8062.783, 27522, 138, 0}, {1, 10, 2, "2d-gittins", 17440.067, 45022, 128, 0},
    {4, 10, 16, "2d-las", 4691.371, 25099, 163, 0},    {4, 10, 4, "2d-las", 23502.008, 70044, 141, 0},
    {4, 10, 2, "2d-las", 45739.100, 139048, 92, 0},    {4, 10, 16, "2d-gittins", 5003.533, 25616, 1080, 0},
    {4, 10, 4, "2d-gittins", 31568.717, 70332, 789, 0}, {4, 10, 2, "2d-gittins", 66870.429, 139418, 567, 0},
    {1, 10, 16, "2d-las", 2254.600, 19471, 35, 2},  {1, 10, 4, "2d-las", 6511.133, 28736, 37, 2},
    {1, 10, 2, "2d-las", 12304.200, 45839, 32, 2},  {4, 10, 16, "2d-las", 4698.146, 29178, 194, 2},
    {4, 10, 4, "2d-las", 22210.812, 73110, 175, 2}, {4, 10, 2, "2d-las", 45526.671, 139436, 148, 2},
};

static void test_tiresias_agreement(void **state) {
  (void)state;
  const char *t60 = ns_test_data_path("traces/tiresias-60-jobs.csv");
  if (t60 == NULL) {
    printf("skipped: shared traces absent (set NS_DATA_DIR)\n");
    skip();
  }
  for (size_t i = 0; i < sizeof peer / sizeof peer[0]; i++) {
    char *path = derived_trace(t60, peer[i].copies, peer[i].scale, 1800);
    ns_sim_opts *o = ns_sim_opts_new();
    assert_int_equal(ns_sim_opts_set_policy_name(o, peer[i].policy), NS_OK);
    assert_int_equal(ns_sim_opts_set_network(o, NS_SIM_NET_IDEAL), NS_OK);
    assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, peer[i].servers, 4, 0, 10.0), NS_OK);
    assert_int_equal(ns_sim_opts_set_starvation(o, peer[i].knob), NS_OK);
    ns_sim *s = ns_sim_new(o);
    assert_int_equal(ns_sim_load_trace(s, path, NS_SIM_TRACE_TIRESIAS), 60 * peer[i].copies);
    remove(path);
    assert_int_equal(ns_sim_run(s), NS_OK);
    double jct = ns_test_metric(s, NS_SIM_METRIC_AVG_JCT_MS) / 1e3;
    double mk = ns_test_metric(s, NS_SIM_METRIC_MAKESPAN_MS) / 1e3;
    double pre = ns_test_metric(s, NS_SIM_METRIC_PREEMPTIONS);
    printf("  %3d jobs x%-2d %2d x 4 %-10s knob %g JCT %9.3f (peer %9.3f) makespan %6.0f (%6.0f) "
           "preemptions %4.0f (%4d)\n", 60 * peer[i].copies, peer[i].scale, peer[i].servers,
           peer[i].policy, peer[i].knob, jct, peer[i].jct_s, mk, peer[i].makespan_s, pre,
           peer[i].preemptions);
    /* issue 15 asks for "a few percent": 2 % */
    assert_near(jct, peer[i].jct_s, 0.02 * peer[i].jct_s);
    assert_near(mk, peer[i].makespan_s, 0.02 * peer[i].makespan_s);
    assert_near(pre, peer[i].preemptions, 0.02 * peer[i].preemptions);
    ns_sim_free(s);
    ns_sim_opts_free(o);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_short_job_behind_long),
      cmocka_unit_test(test_demotion),
      cmocka_unit_test(test_starvation_promotion),
      cmocka_unit_test(test_bad_preemption_options),
      cmocka_unit_test(test_gittins_samples),
      cmocka_unit_test(test_bad_gittins_samples),
      cmocka_unit_test(test_tiresias_agreement),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
