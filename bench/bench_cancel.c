/*
 * bench/bench_cancel.c - how long ns_sim_run takes to return after
 * ns_sim_cancel (issue 31: "within ~100 ms"). For each configuration: one
 * full run to time it, then TRIALS runs each cancelled from another thread
 * at a uniformly drawn point in [5 %, 85 %] of that time (seeded); the
 * latency is cancel call -> ns_sim_run returned, median / p99 / max over
 * the runs that were cancelled (a run that ended first is counted apart).
 * The bound is one event time or one policy decision (sim.h ns_sim_cancel).
 * Cluster 2 leaves x 2 servers x 8 GPUs (32 GPUs), the default workload
 * loaded several times so that jobs queue.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_util.h"
#include "netsched.h"

#define TRIALS 40

typedef struct canceller {
  ns_sim *s;
  double delay_ms, at_ms;
} canceller;

static void *cancel_later(void *p) {
  canceller *c = p;
  struct timespec d = {(time_t)(c->delay_ms / 1e3),
                       (long)((c->delay_ms - 1e3 * (double)(time_t)(c->delay_ms / 1e3)) * 1e6)};
  nanosleep(&d, NULL);
  c->at_ms = bench_now_ms();
  ns_sim_cancel(c->s);
  return NULL;
}

static void one(const char *policy, int loads) {
  ns_sim_opts *o = ns_sim_opts_new();
  ns_sim_opts_set_cluster(o, 2, 2, 2, 8, 1, 10.0);
  if (ns_sim_opts_set_policy_name(o, policy) < 0) {
    ns_sim_opts_free(o);
    return;
  }
  ns_sim *s = ns_sim_new(o);
  ns_sim_opts_free(o);
  for (int i = 0; i < loads; i++)
    ns_sim_load_default_workload(s);
  double t0 = bench_now_ms();
  if (ns_sim_run(s) != NS_OK) {
    printf("%-12s unavailable: %s\n", policy, ns_last_error());
    ns_sim_free(s);
    return;
  }
  double full = bench_now_ms() - t0, lat[TRIALS];
  size_t n = 0;
  unsigned seed = 1;
  for (int i = 0; i < TRIALS; i++) {
    canceller c = {s, full * (0.05 + 0.8 * rand_r(&seed) / (double)RAND_MAX), 0};
    pthread_t t;
    pthread_create(&t, NULL, cancel_later, &c);
    int rc = ns_sim_run(s);
    double end = bench_now_ms();
    pthread_join(t, NULL);
    if (rc == NS_ECANCELED)
      lat[n++] = end - c.at_ms;
  }
  if (n > 0) {
    bench_stats st = bench_summarize(lat, n);
    printf("%-12s %6d jobs, full run %8.1f ms: %2zu/%d cancelled, latency median %7.3f ms, "
           "p99 %7.3f ms, max %7.3f ms\n", policy, ns_sim_job_count(s), full, n, TRIALS,
           st.median, st.p99, st.max);
  }
  ns_sim_free(s);
}

int main(void) {
  one("ff", 40);
  one("2d-gittins", 100);
  one("dally", 40);
  one("cassini-ff", 10);
  one("titan", 4);
  return 0;
}
