/*
 * bench/bench_sim.c - simulator run time: every available policy on the
 * embedded default workload (160 jobs, 64 GPUs), median and p99 of REPS
 * runs with the policy's average JCT and the ratios to first-fit side by
 * side; then ONE run of the 82k-job Philly trace on 2048 GPUs (32 leaves x
 * 8 servers x 8 GPUs, 8 spines x 8 links, 10 Gbps) with first-fit, whose
 * target is <= 60 s. Set NS_BENCH_PHILLY=0 to skip that run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "netsched.h"

#define REPS 21

/* One policy: REPS timed runs of the same loaded workload. */
static int bench_policy(int p, double *med_ms, double *p99_ms, double *jct_s) {
  ns_sim_opts *o = ns_sim_opts_new();
  ns_sim_opts_set_policy(o, (ns_sim_policy)p);
  ns_sim *s = ns_sim_new(o);
  ns_sim_opts_free(o);
  ns_sim_load_default_workload(s);
  double t[REPS];
  int rc = NS_OK;
  for (int r = 0; r < REPS && rc == NS_OK; r++) {
    double t0 = bench_now_ms();
    rc = ns_sim_run(s);
    t[r] = bench_now_ms() - t0;
  }
  if (rc == NS_OK) {
    bench_stats st = bench_summarize(t, REPS);
    *med_ms = st.median;
    *p99_ms = st.p99;
    ns_sim_metric(s, NS_SIM_METRIC_AVG_JCT_MS, jct_s);
    *jct_s /= 1e3;
  }
  ns_sim_free(s);
  return rc;
}

static void bench_default(void) {
  double ff_med = NAN, ff_jct = NAN;
  printf("default workload (160 jobs, 4x4x4 GPUs, max-min), %d runs per policy\n", REPS);
  printf("%-14s %10s %10s %10s %12s %12s\n", "policy", "median_ms", "p99_ms", "avgJCT_s",
         "time/ff", "JCT/ff");
  for (int p = 0; p < ns_sim_policy_count(); p++) {
    double med = 0, p99 = 0, jct = 0;
    int rc = bench_policy(p, &med, &p99, &jct);
    if (rc < 0) {
      printf("%-14s unavailable (%s)\n", ns_sim_policy_name(p), ns_strerror(rc));
      continue;
    }
    if (p == NS_SIM_POLICY_FF)
      ff_med = med, ff_jct = jct;
    printf("%-14s %10.3f %10.3f %10.1f %12.2f %12.3f\n", ns_sim_policy_name(p), med, p99, jct,
           med / ff_med, jct / ff_jct);
  }
}

static void bench_philly(void) {
  const char *dir = getenv("NS_DATA_DIR");
  const char *skip = getenv("NS_BENCH_PHILLY");
  char path[1024];
  if (skip && strcmp(skip, "0") == 0)
    return;
  snprintf(path, sizeof path, "%s/traces/philly-adaptdl.csv", dir ? dir : "../shared/data");
  ns_sim_opts *o = ns_sim_opts_new();
  ns_sim_opts_set_cluster(o, 32, 8, 8, 8, 8, 10.0);
  ns_sim *s = ns_sim_new(o);
  ns_sim_opts_free(o);
  double t0 = bench_now_ms() / 1e3;
  int n = ns_sim_load_trace(s, path, NS_SIM_TRACE_PHILLY);
  double t1 = bench_now_ms() / 1e3;
  if (n < 0) {
    printf("philly: skipped (%s)\n", ns_last_error());
    ns_sim_free(s);
    return;
  }
  int rc = ns_sim_run(s);
  double t2 = bench_now_ms() / 1e3, jct = 0;
  if (rc == NS_OK)
    ns_sim_metric(s, NS_SIM_METRIC_AVG_JCT_MS, &jct);
  printf("philly: %d jobs (%d skipped) on 2048 GPUs, ff: load %.2f s, run %.2f s (target <= 60 s) %s;"
         " avg JCT %.0f s\n",
         n, ns_sim_skipped_count(s), t1 - t0, t2 - t1, rc == NS_OK ? "ok" : ns_last_error(),
         jct / 1e3);
  ns_sim_free(s);
}

int main(void) {
  bench_default();
  bench_philly();
  return 0;
}
