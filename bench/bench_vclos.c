/*
 * bench/bench_vclos.c - vClos Stage-2 decision time on the paper's
 * 2048-GPU fabric (64 leaves x 32 spines, 4 servers x 8 GPUs per leaf) at
 * 30 / 60 / 90 % GPU load: the exact combinatorial search against the
 * Appendix A.2 ILP solved by CBC, on identical cluster states and probe
 * jobs. Prints median and p99 of each and their ratio, and checks that both
 * reach the same objective (6). Targets: exact p99 <= 1 ms and >= 100x
 * faster than the ILP (the paper reports ~1 s per ILP decision).
 * Then GPUs reserved vs asked (issue 17): one random arrival/departure
 * sequence on the same fabric, placed under the paper's sizing (default)
 * and under the former power-of-two rule (ns_vclos_opts_set_power_of_two),
 * for ring and for halving-doubling jobs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/internal.h"
#include "netsched.h"

#include "bench_util.h"

enum { EXACT_REPS = 40, NPROBE = 8 };

/* Objective (6) of p on c's current (pre-commit) state. */
static long long objective(const ns_cluster *c, const ns_placement *p) {
  long long cost = 0;
  unsigned char leaf[64] = {0}, spine[32] = {0};
  for (int i = 0; i < ns_placement_link_count(p); i++) {
    int l, s;
    ns_placement_link(p, (size_t)i, &l, &s);
    leaf[l] = spine[s] = 1;
  }
  for (int n = 0; n < 64; n++)
    if (leaf[n])
      cost += 8LL * ns_cluster_idle_servers_on_leaf(c, n);
  for (int m = 0; m < 32; m++)
    if (spine[m])
      for (int n = 0; n < 64; n++)
        cost += ns_cluster_free_links_between(c, n, m);
  return cost;
}

/* Commits random jobs (exact search) until `load` of the GPUs are busy. */
static ns_job **load_cluster(ns_cluster *c, double load, unsigned *seed, int *njobs) {
  static const int sizes[] = {1, 2, 4, 8, 8, 16, 16, 32, 48, 64, 96, 128};
  ns_job **jobs = calloc(4096, sizeof *jobs);
  ns_vclos_opts *o = ns_vclos_opts_new();
  ns_placement *p = ns_placement_new();
  int n = 0, total = ns_cluster_gpu_count(c);
  for (int tries = 0; tries < 4000 && n < 4096; tries++) {
    if (total - ns_cluster_free_gpu_count(c) >= load * total)
      break;
    *seed = *seed * 1103515245u + 12345u;
    int gpus = sizes[(*seed >> 16) % 12];
    ns_job *j = ns_job_new("load", gpus);
    if (ns_vclos_place(c, j, o, p) == NS_OK && ns_cluster_commit(c, j, p) == NS_OK)
      jobs[n++] = j;
    else
      ns_job_free(j);
  }
  ns_placement_free(p);
  ns_vclos_opts_free(o);
  *njobs = n;
  return jobs;
}

static void run_load(double load) {
  static const int probe_sizes[NPROBE] = {40, 48, 64, 96, 128, 160, 256, 384};
  ns_cluster *c = ns_cluster_new_leaf_spine(64, 32, 4, 8, 1, 100);
  unsigned seed = 2024u + (unsigned)(load * 100);
  int njobs;
  ns_job **jobs = load_cluster(c, load, &seed, &njobs);
  ns_vclos_opts *exact = ns_vclos_opts_new(), *ilp = ns_vclos_opts_new();
  ns_vclos_opts_set_solver(ilp, 1);
  ns_vclos_opts_set_time_limit_ms(ilp, 20000);
  ns_placement *pe = ns_placement_new(), *pi = ns_placement_new();
  double te[EXACT_REPS * NPROBE], ti[NPROBE];
  int ne = 0, ni = 0, agree = 0, placed = 0, ilp_fail = 0;
  for (int k = 0; k < NPROBE; k++) {
    ns_job *j = ns_job_new("probe", probe_sizes[k]);
    int re = NS_OK, st = -1;
    for (int r = 0; r < EXACT_REPS; r++) {
      double t0 = bench_now_ms();
      re = ns_vclos_place_ex(c, j, exact, pe, &st);
      te[ne++] = bench_now_ms() - t0;
    }
    double t0 = bench_now_ms();
    int ri = ns_vclos_place(c, j, ilp, pi);
    ti[ni++] = bench_now_ms() - t0;
    if (ri != re && ri == NS_ESOLVER)
      ilp_fail++;
    placed += re == NS_OK;
    agree += ri == re && (re != NS_OK || objective(c, pe) == objective(c, pi));
    ns_job_free(j);
  }
  double used = 1.0 - (double)ns_cluster_free_gpu_count(c) / ns_cluster_gpu_count(c);
  double e50 = bench_quantile(te, (size_t)ne, 0.5), e99 = bench_quantile(te, (size_t)ne, 0.99);
  double i50 = bench_quantile(ti, (size_t)ni, 0.5), i99 = bench_quantile(ti, (size_t)ni, 0.99);
  printf("| %3.0f %% (%.0f %% actual, %d jobs) | %.3f | %.3f | %.1f | %.1f | %.0fx | %.0fx | "
         "%d/%d | %d/%d |\n",
         load * 100, used * 100, njobs, e50, e99, i50, i99, i50 / e50, i99 / e99, agree, NPROBE,
         placed, NPROBE);
  if (ilp_fail)
    printf("  (%d ILP solves hit the time limit)\n", ilp_fail);
  for (int i = 0; i < njobs; i++)
    ns_job_free(jobs[i]);
  free(jobs);
  ns_placement_free(pe);
  ns_placement_free(pi);
  ns_vclos_opts_free(exact);
  ns_vclos_opts_free(ilp);
  ns_cluster_free(c);
}

/* ---- GPUs reserved vs asked ------------------------------------------------ */

enum { SEQ_STEPS = 3000, SEQ_LIVE = 256 };

typedef struct waste {
  long long asked, reserved, asked2, reserved2; /* all placed jobs; Stage-2 jobs */
  int placed, waited, never;
  double util_sum; /* sum over steps of asked GPUs busy / all GPUs */
  int util_n;
} waste;

/* The same seeded sequence for every rule: each step either releases a
   random running job (when SEQ_LIVE run, or with probability 1/2) or
   places a new job of 2-512 GPUs (log-uniform: 2^(1 + 8u)); a job that
   does not fit now waits (is dropped: the sequence stays identical). */
static waste run_sequence(int pow2, ns_collective coll) {
  ns_cluster *c = ns_cluster_new_leaf_spine(64, 32, 4, 8, 1, 100);
  ns_vclos_opts *o = ns_vclos_opts_new();
  ns_vclos_opts_set_power_of_two(o, pow2);
  ns_placement *p = ns_placement_new();
  ns_job *live[SEQ_LIVE];
  int nlive = 0, busy_asked = 0;
  unsigned seed = 17u;
  waste w = {0};
  for (int step = 0; step < SEQ_STEPS; step++) {
    seed = seed * 1103515245u + 12345u;
    int release = nlive == SEQ_LIVE || (nlive > 0 && ((seed >> 16) & 1u));
    seed = seed * 1103515245u + 12345u;
    if (release) {
      int k = (int)((seed >> 16) % (unsigned)nlive);
      busy_asked -= ns_job_gpus(live[k]);
      ns_cluster_release(c, live[k]);
      ns_job_free(live[k]);
      live[k] = live[--nlive];
    } else {
      double u = (double)((seed >> 8) & 0xffffu) / 65536.0;
      int n = (int)(2.0 * pow(2.0, 8.0 * u) + 0.5);
      ns_job *j = ns_job_new("seq", n);
      ns_job_set_collective(j, coll);
      int stage = -1, rc = ns_vclos_place_ex(c, j, o, p, &stage);
      if (rc == NS_OK && ns_cluster_commit(c, j, p) == NS_OK) {
        int got = (int)ns_placement_gpu_count(p);
        w.asked += n, w.reserved += got, w.placed++;
        if (stage >= 2)
          w.asked2 += n, w.reserved2 += got;
        busy_asked += n;
        live[nlive++] = j;
      } else {
        w.waited += rc == NS_ENOSPACE;
        w.never += rc == NS_EINVAL;
        ns_job_free(j);
      }
    }
    w.util_sum += (double)busy_asked / ns_cluster_gpu_count(c);
    w.util_n++;
  }
  for (int k = 0; k < nlive; k++)
    ns_job_free(live[k]);
  ns_placement_free(p);
  ns_vclos_opts_free(o);
  ns_cluster_free(c);
  return w;
}

static void waste_row(const char *rule, const char *coll, waste w) {
  printf("| %s | %s | %d | %d | %d | %.1f %% | %.1f %% | %.1f %% |\n", rule, coll, w.placed,
         w.waited, w.never, 100.0 * (double)(w.reserved - w.asked) / (double)w.reserved,
         w.reserved2 ? 100.0 * (double)(w.reserved2 - w.asked2) / (double)w.reserved2 : 0.0,
         100.0 * w.util_sum / w.util_n);
}

static void run_waste(void) {
  printf("\nGPUs reserved vs asked: %d steps (arrivals of 2-512 GPUs, log-uniform; "
         "departures), same sequence per rule\n", SEQ_STEPS);
  printf("| sizing | collective | placed | waited | never fits | wasted (all placed) "
         "| wasted (Stage 2) | mean GPUs in use by what jobs asked |\n"
         "|---|---|---|---|---|---|---|---|\n");
  static const ns_collective colls[] = {NS_COLL_RING, NS_COLL_HALVING_DOUBLING};
  static const char *const names[] = {"ring", "halving-doubling"};
  for (int ci = 0; ci < 2; ci++) {
    waste_row("power of two (before)", names[ci], run_sequence(1, colls[ci]));
    waste_row("paper (after)", names[ci], run_sequence(0, colls[ci]));
  }
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--waste") == 0) { /* only the new table */
    run_waste();
    return 0;
  }
  printf("vClos decision time, 2048 GPUs (64 leaves x 32 spines, 8-GPU servers), ms\n");
  printf("probes: %d jobs of 40-384 GPUs per load; exact: %d reps each; ILP: 1 each\n", NPROBE,
         EXACT_REPS);
  printf("| load | exact median | exact p99 | ILP median | ILP p99 | median ratio | p99 ratio "
         "| same objective | placed |\n|---|---|---|---|---|---|---|---|---|\n");
  run_load(0.3);
  run_load(0.6);
  run_load(0.9);
  run_waste();
  return 0;
}
