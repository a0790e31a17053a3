/*
 * bench/bench_sim.c - simulator run time, the phase model (the default)
 * side by side with the fluid max-min model in the same run:
 *  1. every available policy on the embedded default workload (160 jobs,
 *     64 GPUs): median and p99 of REPS runs per model, the policy's average
 *     JCT under each, and the total over all policies (target: phase <= 2 s);
 *  2. the 82k-job Philly trace on 16 leaves x 16 servers x 8 GPUs (2048
 *     GPUs), 8 spines x 8 links, 10 Gbps, and on Titan's cluster (64 racks x
 *     8 machines x 8 GPUs = 4096 GPUs, 8 spines x 1 link, 100 Gbps; issue 30
 *     item 3): ONE run per (cluster, policy, model), each
 *     in a child process so that its peak memory (ru_maxrss) is its own and
 *     a time limit (NS_BENCH_PHILLY_LIMIT seconds, default 120) can stop it.
 *     Targets: <= 60 s and <= 1 GB per policy. Policies:
 *     NS_BENCH_PHILLY_POLICIES (comma-separated, default: every preset,
 *     netsched-sim --list); NS_BENCH_PHILLY=0 skips the trace;
 *     NS_BENCH_PHILLY_CLUSTERS=2048|4096|2048,4096 (default both);
 *     NS_BENCH_PHILLY_MAXMIN=0 runs the phase model only. The load
 *     average is printed before each row (the machine is shared).
 * Wall times on a shared machine: the CPU time of the run is printed too.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "netsched.h"

#define REPS 11

static int bench_policy(int p, ns_sim_network net, double *med_ms, double *p99_ms, double *jct_s) {
  ns_sim_opts *o = ns_sim_opts_new();
  ns_sim_opts_set_policy(o, (ns_sim_policy)p);
  ns_sim_opts_set_network(o, net);
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
  double tot_phase = 0, tot_fluid = 0;
  printf("default workload (160 jobs, 4x4x4 GPUs), %d runs per policy and model\n", REPS);
  printf("%-14s %12s %12s %12s %12s %10s %10s %11s\n", "policy", "phase_med_ms", "phase_p99_ms",
         "maxmin_med_ms", "maxmin_p99", "phase/mm", "JCTphase_s", "JCTmaxmin_s");
  for (int p = 0; p < ns_sim_policy_count(); p++) {
    double med = 0, p99 = 0, jct = 0, fmed = 0, fp99 = 0, fjct = 0;
    int rc = bench_policy(p, NS_SIM_NET_PHASE, &med, &p99, &jct);
    if (rc == NS_OK)
      rc = bench_policy(p, NS_SIM_NET_MAXMIN, &fmed, &fp99, &fjct);
    if (rc < 0) {
      printf("%-14s unavailable (%s)\n", ns_sim_policy_name(p), ns_strerror(rc));
      continue;
    }
    tot_phase += med, tot_fluid += fmed;
    printf("%-14s %12.3f %12.3f %12.3f %12.3f %10.2f %10.1f %11.1f\n", ns_sim_policy_name(p), med,
           p99, fmed, fp99, med / fmed, jct, fjct);
  }
  printf("all policies (sum of medians): phase %.3f s (target <= 2 s), max-min %.3f s\n",
         tot_phase / 1e3, tot_fluid / 1e3);
}

/* The 1-minute load average (the machine is shared), -1 if unknown. */
static double load1(void) {
  double v = -1;
  FILE *f = fopen("/proc/loadavg", "r");
  if (f != NULL) {
    if (fscanf(f, "%lf", &v) != 1)
      v = -1;
    fclose(f);
  }
  return v;
}

/* One Philly run in this (child) process; prints one row. */
typedef struct philly_cluster {
  const char *name;
  int leaves, spines, servers, gpus, links;
  double gbps;
} philly_cluster;

static const philly_cluster PHILLY_CLUSTERS[] = {
    {"2048", 16, 8, 16, 8, 8, 10.0}, /* 16 leaves x 16 servers x 8 GPUs */
    {"4096", 64, 8, 8, 8, 1, 100.0}, /* Titan: 64 racks x 8 machines x 8 GPUs */
};

static void philly_row(const char *path, const philly_cluster *cl, int p, ns_sim_network net) {
  ns_sim_opts *o = ns_sim_opts_new();
  ns_sim_opts_set_policy(o, (ns_sim_policy)p);
  ns_sim_opts_set_network(o, net);
  ns_sim_opts_set_cluster(o, cl->leaves, cl->spines, cl->servers, cl->gpus, cl->links, cl->gbps);
  ns_sim *s = ns_sim_new(o);
  ns_sim_opts_free(o);
  int n = ns_sim_load_trace(s, path, NS_SIM_TRACE_PHILLY);
  if (n < 0) {
    printf("philly: skipped (%s)\n", ns_last_error());
    ns_sim_free(s);
    return;
  }
  double t0 = bench_now_ms(), c0 = bench_cpu_ms();
  int rc = ns_sim_run(s);
  double wall = (bench_now_ms() - t0) / 1e3, cpu = (bench_cpu_ms() - c0) / 1e3, jct = 0;
  if (rc == NS_OK)
    ns_sim_metric(s, NS_SIM_METRIC_AVG_JCT_MS, &jct);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("%-5s %-14s %-7s %6d %9.2f %9.2f %9.0f %12.0f %-6.2f %s\n", cl->name, ns_sim_policy_name(p),
         net == NS_SIM_NET_PHASE ? "phase" : "maxmin", n, wall, cpu, (double)ru.ru_maxrss / 1024.0,
         jct / 1e3, load1(), rc == NS_OK ? "ok" : ns_last_error());
  fflush(stdout);
  ns_sim_free(s);
}

static void bench_philly(void) {
  const char *dir = getenv("NS_DATA_DIR"), *skip = getenv("NS_BENCH_PHILLY");
  const char *list = getenv("NS_BENCH_PHILLY_POLICIES"), *lim = getenv("NS_BENCH_PHILLY_LIMIT");
  if (skip && strcmp(skip, "0") == 0)
    return;
  char path[1024], names[2048] = "";
  snprintf(path, sizeof path, "%s/traces/philly-adaptdl.csv", dir ? dir : "../shared/data");
  if (list) {
    snprintf(names, sizeof names, "%s", list);
  } else { /* every preset */
    for (int i = 0; i < ns_sim_policy_count(); i++) {
      size_t len = strlen(names);
      snprintf(names + len, sizeof names - len, "%s%s", i ? "," : "", ns_sim_policy_name(i));
    }
  }
  unsigned limit = lim ? (unsigned)atoi(lim) : 120;
  const char *cls = getenv("NS_BENCH_PHILLY_CLUSTERS"), *mm = getenv("NS_BENCH_PHILLY_MAXMIN");
  int nmodels = mm && strcmp(mm, "0") == 0 ? 1 : 2;
  for (size_t c = 0; c < sizeof PHILLY_CLUSTERS / sizeof PHILLY_CLUSTERS[0]; c++) {
    const philly_cluster *cl = &PHILLY_CLUSTERS[c];
    if (cls && !strstr(cls, cl->name))
      continue;
    printf("philly (82,247 jobs) on %d leaves x %d servers x %d GPUs (%s GPUs), %d spines x %d"
           " links, %g Gbps; one run each, limit %u s\n", cl->leaves, cl->servers, cl->gpus,
           cl->name, cl->spines, cl->links, cl->gbps, limit);
    printf("%-5s %-14s %-7s %6s %9s %9s %9s %12s %-6s %s\n", "gpus", "policy", "network", "jobs",
           "wall_s", "cpu_s", "peak_MB", "avgJCT_s", "load1", "status");
    fflush(stdout);
    char work[2048];
    snprintf(work, sizeof work, "%s", names);
    char *save = NULL;
    for (char *tok = strtok_r(work, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
      int p = -1;
      for (int i = 0; i < ns_sim_policy_count(); i++)
        if (strcmp(tok, ns_sim_policy_name(i)) == 0)
          p = i;
      if (p < 0)
        continue;
      ns_sim_network nets[2] = {NS_SIM_NET_PHASE, NS_SIM_NET_MAXMIN};
      for (int m = 0; m < nmodels; m++) {
        pid_t pid = fork();
        if (pid == 0) {
          alarm(limit);
          philly_row(path, cl, p, nets[m]);
          _exit(0);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        if (WIFSIGNALED(st))
          printf("%-5s %-14s %-7s stopped after the %u s limit (signal %d)\n", cl->name, tok,
                 m == 0 ? "phase" : "maxmin", limit, WTERMSIG(st));
        fflush(stdout);
      }
    }
  }
}

int main(void) {
  bench_default();
  bench_philly();
  return 0;
}
