/*
 * bench/slurm/bench_slurm_decide.c - the decision part of one netsched-slurm
 * cycle (nss_decide: model the cluster, commit running jobs, order and offer
 * every held job) on a synthetic snapshot, without Slurm: 256 nodes x 8 GPUs
 * (32 leaves x 8 nodes, 2,048 GPUs), running jobs on ~half the GPUs, and
 * 1,000 held jobs with the AdaDUAL size mix (50 % 1 GPU, 8.75 % 2, 16.25 %
 * 4, 18.75 % 8, 5 % 16, 1.25 % 32; a quarter of the multi-node ones as
 * -N k --gpus-per-node=8). Target: <= 1 s per cycle.
 *
 * usage: bench_slurm_decide [REPS (default 5)] [POLICY...]
 * Prints per policy: median / p99 wall ms, CPU ms, jobs placed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapter.h"
#include "bench_util.h"

#define LEAVES 32
#define PER_LEAF 8
#define GPUS 8
#define NODES (LEAVES * PER_LEAF)
#define HELD 1000

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void) { /* xorshift64 */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static int size_mix(void) {
  static const int sizes[6] = {1, 2, 4, 8, 16, 32};
  static const int per10000[6] = {5000, 875, 1625, 1875, 500, 125};
  int r = (int)(next_rand() % 10000), acc = 0;
  for (int i = 0; i < 6; i++)
    if (r < (acc += per10000[i]))
      return sizes[i];
  return 1;
}

static void build(nss_snapshot *s) {
  memset(s, 0, sizeof *s);
  s->nnodes = NODES;
  s->nodes = calloc(NODES, sizeof *s->nodes);
  s->nleaves = LEAVES;
  s->leaves = calloc(LEAVES, sizeof *s->leaves);
  s->spines = 8;
  char name[32];
  for (int l = 0; l < LEAVES; l++) {
    snprintf(name, sizeof name, "leaf%d", l);
    s->leaves[l] = strdup(name);
  }
  for (int i = 0; i < NODES; i++) {
    snprintf(name, sizeof name, "gpu%03d", i);
    s->nodes[i].name = strdup(name);
    s->nodes[i].gpus = GPUS;
    s->nodes[i].leaf = i / PER_LEAF;
    s->nodes[i].usable = (i % 97) != 5; /* a few drained nodes */
  }
  /* Running jobs: each node holds one job on 0..8 of its GPUs (mean ~4). */
  s->jobs = calloc(NODES + HELD, sizeof *s->jobs);
  for (int i = 0; i < NODES; i++) {
    int g = (int)(next_rand() % (GPUS + 1));
    if (g == 0)
      continue;
    nss_job *j = &s->jobs[s->njobs++];
    j->id = (uint32_t)(100000 + i);
    j->kind = NSS_JOB_RUNNING;
    j->gpus = g;
    j->model = (int)(next_rand() % 4);
    j->iters = 1000 + next_rand() % 5000;
    j->nplaced = g;
    j->node_of = malloc((size_t)g * sizeof *j->node_of);
    j->gpu_idx = malloc((size_t)g * sizeof *j->gpu_idx);
    for (int k = 0; k < g; k++)
      j->node_of[k] = i, j->gpu_idx[k] = k;
  }
  for (int h = 0; h < HELD; h++) {
    nss_job *j = &s->jobs[s->njobs++];
    j->id = (uint32_t)(1 + h);
    j->kind = NSS_JOB_HELD;
    j->gpus = size_mix();
    if (j->gpus > GPUS && next_rand() % 4 == 0)
      j->per_node = GPUS, j->nodes = j->gpus / GPUS;
    j->submit_ms = 1.7e12 + h * 1000.0;
    j->model = (int)(next_rand() % 4);
    j->iters = 1000 + next_rand() % 5000;
  }
  s->now_ms = 1.7e12 + HELD * 1000.0 + 60e3;
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 5;
  if (reps < 1)
    reps = 1;
  nss_snapshot s;
  build(&s);
  int free_gpus = NODES * GPUS;
  for (int i = 0; i < s.njobs; i++)
    if (s.jobs[i].kind == NSS_JOB_RUNNING)
      free_gpus -= s.jobs[i].gpus;
  printf("snapshot: %d nodes x %d GPUs in %d leaves, %d running jobs, %d GPUs free, %d held jobs\n",
         NODES, GPUS, LEAVES, s.njobs - HELD, free_gpus, HELD);
  printf("%-14s %10s %10s %10s %7s %7s\n", "policy", "median ms", "p99 ms", "cpu ms", "placed",
         "waits");
  int first = argc > 2 ? 2 : 0, n = argc > 2 ? argc - 2 : nss_policy_count();
  double *wall = malloc((size_t)reps * sizeof *wall), *cpu = malloc((size_t)reps * sizeof *cpu);
  for (int k = 0; k < n; k++) {
    const nss_policy *p = first ? nss_policy_find(argv[first + k]) : nss_policy_at(k);
    if (p == NULL) {
      fprintf(stderr, "unknown policy '%s'\n", argv[first + k]);
      return 1;
    }
    int placed = 0, waits = 0;
    for (int r = 0; r < reps; r++) {
      nss_ctx x;
      memset(&x, 0, sizeof x);
      x.links_per_pair = 1, x.link_gbps = 100, x.nic_gbps = 100, x.seed = 1;
      char msg[512];
      if (nss_ctx_init(&x, p, msg, sizeof msg) < 0) {
        fprintf(stderr, "%s\n", msg);
        return 1;
      }
      x.now_ms = s.now_ms;
      nss_plan plan;
      double t0 = bench_now_ms(), c0 = bench_cpu_ms();
      int rc = nss_decide(&x, &s, &plan, msg, sizeof msg);
      wall[r] = bench_now_ms() - t0, cpu[r] = bench_cpu_ms() - c0;
      if (rc < 0) {
        fprintf(stderr, "%s: %s\n", nss_policy_name(p), msg);
        return 1;
      }
      placed = waits = 0;
      for (int i = 0; i < plan.n; i++)
        plan.d[i].placed ? placed++ : waits++;
      nss_plan_free(&plan);
      nss_ctx_free(&x);
    }
    bench_stats cs = bench_summarize(cpu, (size_t)reps);
    bench_stats ws = bench_summarize(wall, (size_t)reps);
    printf("%-14s %10.1f %10.1f %10.1f %7d %7d\n", nss_policy_name(p), ws.median, ws.p99,
           cs.median, placed, waits);
  }
  free(wall);
  free(cpu);
  nss_snapshot_free(&s);
  return 0;
}
