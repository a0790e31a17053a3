/*
 * bench/bench_titan.c - Titan at the paper's simulation scale (§V-B: 64
 * racks x 8 machines x 8 GPUs, 100 Gbps everywhere; a full-bisection
 * leaf-spine stands in for the fat-tree) under random background load,
 * placing 8/32/64-worker halving-doubling jobs. Target: p99 <= 5 ms.
 * Then the objective gap to an exhaustive optimum on small instances.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "netsched.h"

static uint64_t rng = 2024;
static uint32_t rnd(uint32_t n) {
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(rng >> 33) % n;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* 64 leaves x 8 servers x 8 GPUs; 8 spines x 8 links = 64 uplinks per
   leaf for 64 GPU ports (1:1). Each GPU busy with probability `load`. */
static ns_cluster *paper_cluster(double load) {
  ns_cluster *c = ns_cluster_new_leaf_spine(64, 8, 8, 8, 8, 100);
  int n = ns_cluster_gpu_count(c), nb = 0;
  int *busy = malloc((size_t)n * sizeof *busy);
  for (int g = 0; g < n; g++)
    if (rnd(1000) < (uint32_t)(load * 1000))
      busy[nb++] = g;
  ns_cluster_occupy(c, busy, (size_t)nb);
  free(busy);
  return c;
}

static void bench_scale(void) {
  const int sizes[] = {8, 32, 64};
  const double loads[] = {0.3, 0.6};
  enum { REPS = 200 };
  printf("paper scale: 64 racks x 8 machines x 8 GPUs, HD jobs, %d placements each\n", REPS);
  printf("%-6s %-5s %10s %10s %10s %8s %8s %9s\n", "load", "N", "median_ms", "p99_ms",
         "max_ms", "idle", "machines", "p99/5ms");
  for (size_t li = 0; li < 2; li++)
    for (size_t si = 0; si < 3; si++) {
      double t[REPS], idle_sum = 0, used_sum = 0;
      ns_titan_opts *o = ns_titan_opts_new();
      ns_placement *p = ns_placement_new();
      ns_job *j = ns_job_new("hd", sizes[si]);
      ns_job_set_collective(j, NS_COLL_HALVING_DOUBLING);
      ns_job_set_model_bytes(j, 100u << 20);
      for (int r = 0; r < REPS; r++) {
        ns_cluster *c = paper_cluster(loads[li]);
        ns_titan_opts_set_seed(o, (uint64_t)r);
        double t0 = now_ms();
        int rc = ns_titan_place(c, j, o, p);
        t[r] = now_ms() - t0;
        if (rc != NS_OK) {
          fprintf(stderr, "placement failed: %s\n", ns_last_error());
          exit(1);
        }
        used_sum += ns_placement_server_count(p);
        int seen[512] = {0};
        for (size_t i = 0; i < ns_placement_gpu_count(p); i++) {
          int s = ns_cluster_server_of_gpu(c, ns_placement_gpu(p, i));
          if (!seen[s]++ && ns_cluster_free_gpus_on_server(c, s) == 8)
            idle_sum++;
        }
        ns_cluster_free(c);
      }
      qsort(t, REPS, sizeof t[0], cmp_d);
      double p99 = t[(int)(0.99 * (REPS - 1))];
      printf("%-6.1f %-5d %10.3f %10.3f %10.3f %8.2f %8.2f %9.2f\n", loads[li], sizes[si],
             t[REPS / 2], p99, t[REPS - 1], idle_sum / REPS, used_sum / REPS, p99 / 5.0);
      ns_job_free(j);
      ns_placement_free(p);
      ns_titan_opts_free(o);
    }
}

/* ---- gap to exhaustive on small instances -------------------------------- */

typedef struct small {
  ns_cluster *c;
  int W, M, G, spl, L, T;
  int R[8], idle[8];
  double up[8];
  uint64_t tr[16][8][8];
  double bt[16];
} small;

static int feasible(const small *s, const int *mach) {
  for (int t = 0; t < s->T; t++) {
    double mo[8] = {0}, mi[8] = {0}, lo[8] = {0}, li[8] = {0};
    for (int a = 0; a < s->W; a++)
      for (int b = 0; b < s->W; b++) {
        double x = (double)s->tr[t][a][b];
        if (x == 0 || mach[a] == mach[b])
          continue;
        mo[mach[a]] += x;
        mi[mach[b]] += x;
        if (mach[a] / s->spl != mach[b] / s->spl) {
          lo[mach[a] / s->spl] += x;
          li[mach[b] / s->spl] += x;
        }
      }
    for (int m = 0; m < s->M; m++)
      if (mo[m] > s->R[m] * s->bt[t] * (1 + 1e-9) || mi[m] > s->R[m] * s->bt[t] * (1 + 1e-9))
        return 0;
    for (int l = 0; l < s->L; l++)
      if (lo[l] > s->up[l] * s->bt[t] * (1 + 1e-9) || li[l] > s->up[l] * s->bt[t] * (1 + 1e-9))
        return 0;
  }
  return 1;
}

static void objectives(const small *s, const int *mach, int *o1, int *o2, double *cross) {
  int seen[8] = {0};
  *o1 = *o2 = 0;
  *cross = 0;
  for (int w = 0; w < s->W; w++)
    if (!seen[mach[w]]++) {
      (*o2)++;
      *o1 += s->idle[mach[w]];
    }
  for (int t = 0; t < s->T; t++)
    for (int a = 0; a < s->W; a++)
      for (int b = 0; b < s->W; b++)
        *cross += mach[a] != mach[b] ? (double)s->tr[t][a][b] : 0;
}

static void search(const small *s, int w, int *mach, int *cnt, int *b1, int *b2, double *bc) {
  if (w == s->W) {
    int o1, o2;
    double cr;
    if (!feasible(s, mach))
      return;
    objectives(s, mach, &o1, &o2, &cr);
    if (o1 < *b1 || (o1 == *b1 && (o2 < *b2 || (o2 == *b2 && cr < *bc)))) {
      *b1 = o1;
      *b2 = o2;
      *bc = cr;
    }
    return;
  }
  for (int m = 0; m < s->M; m++)
    if (cnt[m] < s->R[m]) {
      mach[w] = m;
      cnt[m]++;
      search(s, w + 1, mach, cnt, b1, b2, bc);
      cnt[m]--;
    }
}

static void bench_gap(void) {
  enum { RUNS = 300 };
  int n = 0, exact12 = 0, infeasible_found = 0;
  double gap1 = 0, gap2 = 0, gapc = 0, worst2 = 0;
  for (int it = 0; it < RUNS; it++) {
    small s;
    memset(&s, 0, sizeof s);
    s.L = 1 + (int)rnd(2);
    s.spl = s.L == 1 ? 4 + (int)rnd(3) : 3;
    s.G = 2 + (int)rnd(3);
    s.c = ns_cluster_new_leaf_spine(s.L, s.L > 1 ? 1 + (int)rnd(2) : 0, s.spl, s.G, 1, 100);
    int busy[64], nb = 0;
    for (int g = 0; g < ns_cluster_gpu_count(s.c); g++)
      if (rnd(10) < 4)
        busy[nb++] = g;
    ns_cluster_occupy(s.c, busy, (size_t)nb);
    int fr = ns_cluster_free_gpu_count(s.c);
    s.M = ns_cluster_server_count(s.c);
    s.W = 2 + (int)rnd(6);
    if (s.W > fr) {
      ns_cluster_free(s.c);
      continue;
    }
    for (int m = 0; m < s.M; m++) {
      s.R[m] = ns_cluster_free_gpus_on_server(s.c, m);
      s.idle[m] = s.R[m] == s.G;
    }
    for (int l = 0; l < s.L; l++) {
      int links = 0;
      for (int sp = 0; sp < ns_cluster_spine_count(s.c); sp++)
        links += ns_cluster_free_links_between(s.c, l, sp);
      s.up[l] = (double)links * ns_cluster_free_gpus_on_leaf(s.c, l) / (s.spl * s.G);
    }
    ns_job *j = ns_job_new("hd", s.W);
    ns_job_set_collective(j, NS_COLL_HALVING_DOUBLING);
    ns_job_set_model_bytes(j, 1 << 20);
    s.T = ns_collective_phase_count(NS_COLL_HALVING_DOUBLING, s.W);
    for (int t = 0; t < s.T; t++)
      for (int a = 0; a < s.W; a++)
        for (int b = 0; b < s.W; b++) {
          ns_collective_traffic(NS_COLL_HALVING_DOUBLING, s.W, 1 << 20, t, a, b, &s.tr[t][a][b]);
          s.bt[t] = fmax(s.bt[t], (double)s.tr[t][a][b]);
        }
    int mach[8], cnt[8] = {0}, b1 = 1 << 30, b2 = 1 << 30;
    double bc = 1e300;
    search(&s, 0, mach, cnt, &b1, &b2, &bc);
    ns_titan_opts *o = ns_titan_opts_new();
    ns_placement *p = ns_placement_new();
    int rc = ns_titan_place(s.c, j, o, p);
    if (rc == NS_OK) {
      for (int w = 0; w < s.W; w++)
        mach[w] = ns_cluster_server_of_gpu(s.c, ns_placement_gpu(p, (size_t)w));
      int o1, o2;
      double cr;
      objectives(&s, mach, &o1, &o2, &cr);
      if (!feasible(&s, mach))
        infeasible_found++;
      n++;
      gap1 += o1 - b1;
      gap2 += (double)(o2 - b2) / b2;
      worst2 = fmax(worst2, (double)(o2 - b2) / b2);
      gapc += bc > 0 ? (cr - bc) / bc : 0;
      exact12 += o1 == b1 && o2 == b2;
    }
    ns_placement_free(p);
    ns_titan_opts_free(o);
    ns_job_free(j);
    ns_cluster_free(s.c);
  }
  printf("\ngap to exhaustive optimum: %d small HD instances (<= 8 machines, <= 7 workers)\n", n);
  printf("  (O1,O2) equal to optimum: %d/%d (%.1f%%)\n", exact12, n, 100.0 * exact12 / n);
  printf("  mean O1 gap (idle machines): %.4f   mean O2 gap: %.2f%% (worst %.1f%%)\n", gap1 / n,
         100 * gap2 / n, 100 * worst2);
  printf("  mean cross-traffic gap: %.2f%%   infeasible placements: %d\n", 100 * gapc / n,
         infeasible_found);
}

int main(void) {
  bench_scale();
  bench_gap();
  return 0;
}
