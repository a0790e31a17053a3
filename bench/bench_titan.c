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

#include "bench_util.h"

static uint64_t rng = 2024;
static uint32_t rnd(uint32_t n) {
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(rng >> 33) % n;
}

/* 64 leaves x 8 servers x 8 GPUs; 8 spines x 8 links = 64 uplinks per
   leaf for 64 GPU ports (1:1). Each GPU busy with probability `load`. */
static ns_cluster *paper_cluster(double load, int links_per_pair) {
  ns_cluster *c = ns_cluster_new_leaf_spine(64, 8, 8, 8, links_per_pair, 100);
  int n = ns_cluster_gpu_count(c), nb = 0;
  int *busy = malloc((size_t)n * sizeof *busy);
  for (int g = 0; g < n; g++)
    if (rnd(1000) < (uint32_t)(load * 1000))
      busy[nb++] = g;
  ns_cluster_occupy(c, busy, (size_t)nb);
  free(busy);
  return c;
}

/* Consolidation baseline (Elasticflow-style): fewest machines, taking the
   servers with the most free GPUs first. Adds its machines / idle machines. */
static void consolidation(const ns_cluster *c, int w, double *used, double *idle) {
  int n = ns_cluster_server_count(c), by_free[9] = {0};
  for (int s = 0; s < n; s++)
    by_free[ns_cluster_free_gpus_on_server(c, s)]++;
  for (int f = 8; f > 0 && w > 0; f--)
    for (; by_free[f] > 0 && w > 0; by_free[f]--) {
      w -= f;
      *used += 1;
      *idle += f == 8;
    }
}

static void bench_scale(void) {
  const int sizes[] = {8, 32, 64};
  const double loads[] = {0.1, 0.5, 0.5};
  const int links[] = {8, 8, 2}; /* 1:1, 1:1, 4:1 oversubscribed */
  enum { REPS = 200 };
  printf("paper scale: 64 racks x 8 machines x 8 GPUs, HD jobs, %d placements each\n", REPS);
  printf("wall = elapsed (includes preemption on a shared machine), cpu = thread CPU time\n");
  printf("idle/machines: mean idle machines and machines used by Titan and by consolidation\n");
  printf("os = uplink oversubscription; nospace = placements refused (NS_ENOSPACE)\n");
  printf("%-4s %-3s %-3s %8s %8s %8s %8s %7s %7s %6s %6s %6s %6s %7s %7s\n", "load", "os", "N",
         "wall_med",
         "wall_p99", "cpu_med", "cpu_p99", "p99/med", "cpu/5ms", "T_idle", "T_mach", "C_idle",
         "C_mach", "T/C_m", "nospace");
  for (size_t li = 0; li < 3; li++)
    for (size_t si = 0; si < 3; si++) {
      double t[REPS], cpu[REPS], idle_sum = 0, used_sum = 0, c_used = 0, c_idle = 0;
      int placed = 0, nospace = 0;
      ns_titan_opts *o = ns_titan_opts_new();
      ns_placement *p = ns_placement_new();
      ns_job *j = ns_job_new("hd", sizes[si]);
      ns_job_set_collective(j, NS_COLL_HALVING_DOUBLING);
      ns_job_set_model_bytes(j, 100u << 20);
      for (int r = 0; r < REPS; r++) {
        ns_cluster *c = paper_cluster(loads[li], links[li]);
        ns_titan_opts_set_seed(o, (uint64_t)r);
        double t0 = bench_now_ms(), c0 = bench_cpu_ms();
        int rc = ns_titan_place(c, j, o, p);
        cpu[r] = bench_cpu_ms() - c0;
        t[r] = bench_now_ms() - t0;
        if (rc == NS_ENOSPACE) {
          nospace++;
          ns_cluster_free(c);
          continue;
        }
        if (rc != NS_OK) {
          fprintf(stderr, "placement failed: %s\n", ns_last_error());
          exit(1);
        }
        placed++;
        used_sum += ns_placement_server_count(p);
        consolidation(c, sizes[si], &c_used, &c_idle);
        int seen[512] = {0};
        for (size_t i = 0; i < ns_placement_gpu_count(p); i++) {
          int s = ns_cluster_server_of_gpu(c, ns_placement_gpu(p, i));
          if (!seen[s]++ && ns_cluster_free_gpus_on_server(c, s) == 8)
            idle_sum++;
        }
        ns_cluster_free(c);
      }
      bench_stats ts = bench_summarize(t, REPS), cs = bench_summarize(cpu, REPS);
      int np = placed > 0 ? placed : 1;
      printf("%-4.1f %-3s %-3d %8.3f %8.3f %8.3f %8.3f %7.2f %7.3f %6.2f %6.2f %6.2f %6.2f %7.2f "
             "%7d\n", loads[li], links[li] == 8 ? "1:1" : "4:1", sizes[si], ts.median, ts.p99,
             cs.median, cs.p99, cs.p99 / cs.median, cs.p99 / 5.0, idle_sum / np,
             used_sum / np, c_idle / np, c_used / np, c_used > 0 ? used_sum / c_used : 0,
             nospace);
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

typedef struct gapstat {
  int n, exact12, o1_worse, n_o2, n_cross, infeasible, missed;
  double o2_gap, o2_worst, cross_gap, ratio1, ratio2;
} gapstat;

/* Accumulates one instance: greedy (g1, g2, gc) against the optimum. */
static void gap_add(gapstat *st, const small *s, int g1, int g2, double gc, int b1, int b2,
                    double bc) {
  double cmax = s->M > s->W ? s->M : s->W;
  st->n++;
  st->exact12 += g1 == b1 && g2 == b2;
  st->o1_worse += g1 > b1;
  /* Theorems 4-5: remaining machines (Eq. 3) >= (1 - 1/e) of the optimum */
  st->ratio1 = fmin(st->ratio1, (cmax - g1) / (cmax - b1));
  st->ratio2 = fmin(st->ratio2, (cmax - g2) / (cmax - b2));
  if (g1 == b1) {
    st->n_o2++;
    st->o2_gap += (double)(g2 - b2) / b2;
    st->o2_worst = fmax(st->o2_worst, (double)(g2 - b2) / b2);
  }
  if (g1 == b1 && g2 == b2 && bc > 0) {
    st->n_cross++;
    st->cross_gap += (gc - bc) / bc;
  }
}

static small *make_small(void) {
  small *s = calloc(1, sizeof *s);
  s->L = 1 + (int)rnd(2);
  s->spl = s->L == 1 ? 4 + (int)rnd(3) : 3;
  s->G = 2 + (int)rnd(3);
  s->c = ns_cluster_new_leaf_spine(s->L, s->L > 1 ? 1 + (int)rnd(2) : 0, s->spl, s->G, 1, 100);
  int busy[64], nb = 0;
  for (int g = 0; g < ns_cluster_gpu_count(s->c); g++)
    if (rnd(10) < 4)
      busy[nb++] = g;
  ns_cluster_occupy(s->c, busy, (size_t)nb);
  s->M = ns_cluster_server_count(s->c);
  s->W = 2 + (int)rnd(6);
  for (int m = 0; m < s->M; m++) {
    s->R[m] = ns_cluster_free_gpus_on_server(s->c, m);
    s->idle[m] = s->R[m] == s->G;
  }
  for (int l = 0; l < s->L; l++) {
    int links = 0;
    for (int sp = 0; sp < ns_cluster_spine_count(s->c); sp++)
      links += ns_cluster_free_links_between(s->c, l, sp);
    s->up[l] = (double)links * ns_cluster_free_gpus_on_leaf(s->c, l) / (s->spl * s->G);
  }
  s->T = ns_collective_phase_count(NS_COLL_HALVING_DOUBLING, s->W);
  for (int t = 0; t < s->T; t++)
    for (int a = 0; a < s->W; a++)
      for (int b = 0; b < s->W; b++) {
        ns_collective_traffic(NS_COLL_HALVING_DOUBLING, s->W, 1 << 20, t, a, b, &s->tr[t][a][b]);
        s->bt[t] = fmax(s->bt[t], (double)s->tr[t][a][b]);
      }
  return s;
}

static void one_gap(gapstat *st) {
  small *s = make_small();
  if (s->W > ns_cluster_free_gpu_count(s->c)) {
    ns_cluster_free(s->c);
    free(s);
    return;
  }
  ns_job *j = ns_job_new("hd", s->W);
  ns_job_set_collective(j, NS_COLL_HALVING_DOUBLING);
  ns_job_set_model_bytes(j, 1 << 20);
  int mach[8], cnt[8] = {0}, b1 = 1 << 30, b2 = 1 << 30;
  double bc = 1e300;
  search(s, 0, mach, cnt, &b1, &b2, &bc);
  ns_titan_opts *o = ns_titan_opts_new();
  ns_placement *p = ns_placement_new();
  if (ns_titan_place(s->c, j, o, p) == NS_OK) {
    for (int w = 0; w < s->W; w++)
      mach[w] = ns_cluster_server_of_gpu(s->c, ns_placement_gpu(p, (size_t)w));
    int g1, g2;
    double gc;
    objectives(s, mach, &g1, &g2, &gc);
    st->infeasible += !feasible(s, mach);
    gap_add(st, s, g1, g2, gc, b1, b2, bc);
  } else {
    st->missed += b1 < (1 << 30);
  }
  ns_placement_free(p);
  ns_titan_opts_free(o);
  ns_job_free(j);
  ns_cluster_free(s->c);
  free(s);
}

static void bench_gap(void) {
  gapstat st = {0};
  st.ratio1 = st.ratio2 = 1;
  for (int it = 0; it < 300; it++)
    one_gap(&st);
  printf("\ngap to exhaustive optimum: %d small HD instances (1-2 leaves, <= 6 machines, "
         "<= 7 workers, 40%% background load)\n", st.n);
  printf("  (O1,O2) equal to the optimum: %d/%d (%.1f%%); O1 worse: %d; feasible but not "
         "found: %d\n", st.exact12, st.n, 100.0 * st.exact12 / st.n, st.o1_worse, st.missed);
  printf("  O2 gap when O1 equal: mean %.2f%%, worst %.1f%% (%d instances)\n",
         100 * st.o2_gap / st.n_o2, 100 * st.o2_worst, st.n_o2);
  printf("  cross-traffic gap when (O1,O2) equal: mean %.2f%% (%d instances)\n",
         100 * st.cross_gap / st.n_cross, st.n_cross);
  printf("  min ratio greedy/optimum of remaining machines (Eq. 3): O1 %.3f, O2 %.3f "
         "(paper bound 1-1/e = %.3f)\n", st.ratio1, st.ratio2, 1 - exp(-1));
  printf("  infeasible placements returned: %d\n", st.infeasible);
}

int main(void) {
  bench_scale();
  bench_gap();
  return 0;
}
