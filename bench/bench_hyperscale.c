/*
 * bench/bench_hyperscale.c - every policy's decision on a 131,072-GPU
 * cluster and on the 2^22-GPU fabric of issues 18 and 30
 * (ns_cluster_new_leaf_spine(4096, 4096, 128, 8, 1, 100)), and vClos
 * place / commit / release there.
 *
 * Cluster: 64 leaves x 128 servers x 16 GPUs (8,192 servers), 2,048 spines x
 * 1 link per leaf-spine pair (non-blocking: one uplink per GPU port),
 * 100 Gbps. Two loads: "empty", and "busy" = a seeded half of the servers
 * fully occupied (ns_cluster_occupy) and a quarter of the rest half
 * occupied. Jobs: 4,096 and 65,536 GPUs, halving-doubling, 100 MB model,
 * 1 GB per GPU.
 *
 * On the 2^22-GPU fabric (524,288 servers x 8 GPUs, 4,096 leaves, 4,096
 * spines x 1 link) every policy places one 65,536-GPU job of the same kind
 * (CASSINI: builds candidates from the cluster for a random and a first-fit
 * placement of it, with a committed 65,536-GPU job sharing links, and ranks
 * them; AdaDUAL: its admission over the 524,288 servers).
 *
 * Each row runs in a forked child (so its peak RSS, getrusage ru_maxrss, is
 * that row's alone, cluster included): REPS decisions, median and p99 of
 * the wall time of the decision call alone. Targets (issue 18): <= 1 s and
 * <= 1 GB per decision; Titan 65,536 workers < 2 s; vClos 262,144 GPUs on
 * 2^22 GPUs < 1 s each for place, commit and release. Issue 30: Titan's
 * 65,536 workers < 2 s on the 2^22-GPU fabric.
 *
 * Usage: bench_hyperscale [all | 131k | 2^22 | titan22]; titan22 runs only
 * Titan's row on the 2^22-GPU fabric (to compare builds of the library).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "netsched.h"

#define REPS 5
#define REPS22 3          /* decisions per row on the 2^22-GPU fabric */
#define REPS_TITAN22 11   /* ... and in the Titan-only run (bench_hyperscale titan22) */
#define MAX_REPS 16
#define SLOW_MS 60000.0   /* a row stops repeating once its runs took this long */
#define ROW_LIMIT_S 900   /* a row still running after this is killed and reported */
#define NS_BENCH_STR2(x) #x
#define NS_BENCH_STR(x) NS_BENCH_STR2(x)

typedef struct ctx {
  ns_cluster *c;
  ns_job *job;
  ns_placement *out;
  ns_titan_opts *topts;
  ns_vclos_opts *vopts;
  ns_delay_tuner *tuner;
  ns_cassini_opts *copts;
  ns_placement *cp[2];  /* CASSINI: the placements its candidates come from */
  ns_candidate *cand[2];
  ns_job *bg;           /* CASSINI: the committed job sharing links */
} ctx;

typedef int (*decide_fn)(ctx *x);

static int d_ff(ctx *x) { return ns_place_first_fit(x->c, x->job, x->out); }
static int d_ls(ctx *x) { return ns_place_list_scheduling(x->c, x->job, x->out); }
static int d_rand(ctx *x) { return ns_place_random(x->c, x->job, 42, x->out); }
static int d_bf(ctx *x) { return ns_place_best_fit(x->c, x->job, x->out); }
static int d_tiresias(ctx *x) { return ns_place_tiresias(x->c, x->job, 200000000ull, x->out); }
static int d_lwf(ctx *x) { return ns_lwf_place(x->c, x->job, 1, x->out); }
static int d_titan(ctx *x) { return ns_titan_place(x->c, x->job, x->topts, x->out); }
static int d_vclos(ctx *x) { return ns_vclos_place(x->c, x->job, x->vopts, x->out); }
static int d_dally(ctx *x) {
  int ok = 0;
  int rc = ns_dally_offer(x->tuner, x->c, x->job, 1e9, 2e9, x->out, &ok);
  return rc < 0 ? rc : ok ? NS_OK : NS_ENOSPACE;
}

/* CASSINI's decision: the shared links of two candidate placements, read
   from the cluster, and the ranking of the two. */
static int d_cassini(ctx *x) {
  for (int k = 0; k < 2; k++) {
    int rc = ns_cassini_candidate_from_cluster(x->cand[k], x->c, x->job, x->cp[k]);
    if (rc != NS_OK)
      return rc;
  }
  size_t best = 0;
  return ns_cassini_rank(x->cand, 2, x->copts, &best, NULL);
}

static void phases(ns_job *j) {
  ns_job_add_phase(j, 40.0, 40.0);
  ns_job_add_phase(j, 60.0, 0.0);
}

/* CASSINI's set-up (untimed): a committed job of the same size with a
   phase profile, and the new job's random and first-fit placements. */
static int setup_cassini(ctx *x) {
  x->bg = ns_job_new("bg", ns_job_gpus(x->job));
  ns_job_set_collective(x->bg, NS_COLL_HALVING_DOUBLING);
  ns_job_set_model_bytes(x->bg, 100000000ull);
  ns_job_set_iteration_ms(x->bg, 100.0);
  phases(x->bg);
  phases(x->job);
  ns_placement *p = ns_placement_new();
  int rc = ns_place_random(x->c, x->bg, 7, p);
  if (rc == NS_OK)
    rc = ns_cluster_commit(x->c, x->bg, p);
  ns_placement_free(p);
  for (int k = 0; k < 2 && rc == NS_OK; k++) {
    x->cp[k] = ns_placement_new();
    x->cand[k] = ns_candidate_new();
    rc = k == 0 ? ns_place_random(x->c, x->job, 42, x->cp[k])
                : ns_place_first_fit(x->c, x->job, x->cp[k]);
  }
  return rc;
}

static const struct {
  const char *name;
  decide_fn fn;
  int ocs;
  decide_fn setup; /* untimed, before the decisions; NULL: none */
} policies[] = {
    {"first-fit", d_ff, 0, NULL},       {"list-scheduling", d_ls, 0, NULL},
    {"random", d_rand, 0, NULL},        {"best-fit", d_bf, 0, NULL},
    {"tiresias", d_tiresias, 0, NULL},  {"lwf-1", d_lwf, 0, NULL},
    {"titan (HD)", d_titan, 0, NULL},   {"vclos", d_vclos, 0, NULL},
    {"ocs-vclos", d_vclos, 1, NULL},    {"dally offer", d_dally, 0, NULL},
    {"cassini (2 candidates from the cluster + rank)", d_cassini, 0, setup_cassini},
};
#define NPOLICIES (sizeof policies / sizeof policies[0])
#define CASSINI_ROW (NPOLICIES - 1) /* not in the 131,072-GPU table (its own row there) */

/* The two fabrics: 131,072 GPUs and 2^22 GPUs. */
static ns_cluster *new_fabric(int huge) {
  return huge ? ns_cluster_new_leaf_spine(4096, 4096, 128, 8, 1, 100.0)
              : ns_cluster_new_leaf_spine(64, 2048, 128, 16, 1, 100.0);
}

/* Half the servers fully busy, a quarter of the rest half busy (seeded). */
static void load_busy(ns_cluster *c) {
  int servers = ns_cluster_server_count(c), gps = ns_cluster_gpus_per_server(c);
  int *busy = malloc((size_t)servers * (size_t)gps * sizeof *busy), n = 0;
  uint64_t st = 12345;
  for (int s = 0; s < servers; s++) {
    st = st * 6364136223846793005ull + 1442695040888963407ull;
    unsigned r = (unsigned)(st >> 33) % 8;
    int k = r < 4 ? gps : r < 5 ? gps / 2 : 0;
    for (int g = 0; g < k; g++)
      busy[n++] = s * gps + g;
  }
  ns_cluster_occupy(c, busy, (size_t)n);
  free(busy);
}

static long peak_rss_mb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024;
}

typedef struct row {
  int rc, runs;
  double median, p99, cpu; /* wall ms; cpu = median CPU ms of the calling thread */
  long rss_mb;
  char err[160];
} row;

static void child_row(int fd, int pi, int gpus, int busy, int huge, int reps) {
  row r = {0};
  ctx x = {0};
  x.c = new_fabric(huge);
  ns_cluster_set_gpu_memory_mb(x.c, 16000.0);
  if (policies[pi].ocs)
    ns_cluster_enable_ocs(x.c, 64);
  if (busy)
    load_busy(x.c);
  x.job = ns_job_new("big", gpus);
  ns_job_set_collective(x.job, NS_COLL_HALVING_DOUBLING);
  ns_job_set_model_bytes(x.job, 100000000ull);
  ns_job_set_iteration_ms(x.job, 100.0);
  ns_job_set_compute_ms(x.job, 30.0, 60.0);
  ns_job_set_iterations(x.job, 1000, 0);
  ns_job_set_gpu_memory_mb(x.job, 1000.0);
  x.out = ns_placement_new();
  x.topts = ns_titan_opts_new();
  x.vopts = ns_vclos_opts_new();
  x.tuner = ns_delay_tuner_new(1e12, 0, 0);
  x.copts = ns_cassini_opts_new();
  double t[MAX_REPS], cpu[MAX_REPS];
  if (policies[pi].setup && (r.rc = policies[pi].setup(&x)) != NS_OK) {
    snprintf(r.err, sizeof r.err, "set-up: %s", ns_last_error());
    reps = 0;
  }
  double spent = 0;
  for (int i = 0; i < reps && spent < SLOW_MS; i++) { /* slow rows: fewer runs */
    double t0 = bench_now_ms(), c0 = bench_cpu_ms();
    r.rc = policies[pi].fn(&x);
    t[i] = bench_now_ms() - t0;
    cpu[i] = bench_cpu_ms() - c0;
    spent += t[i];
    r.runs++;
    if (r.rc < 0)
      snprintf(r.err, sizeof r.err, "%s", ns_last_error());
  }
  reps = r.runs;
  if (reps > 0) {
    bench_stats s = bench_summarize(t, (size_t)reps);
    r.median = s.median, r.p99 = s.p99, r.cpu = bench_summarize(cpu, (size_t)reps).median;
  }
  r.rss_mb = peak_rss_mb();
  if (write(fd, &r, sizeof r) != (ssize_t)sizeof r)
    _exit(2);
  _exit(0);
}

/* Runs fn(fd, ...) in a child; the row it writes comes back. */
static int in_child(row *r, int pi, int gpus, int busy, int huge, int reps) {
  int fds[2];
  if (pipe(fds) != 0)
    return -1;
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    child_row(fds[1], pi, gpus, busy, huge, reps);
  }
  close(fds[1]);
  struct pollfd pf = {fds[0], POLLIN, 0};
  ssize_t got = -1;
  if (poll(&pf, 1, ROW_LIMIT_S * 1000) == 1)
    got = read(fds[0], r, sizeof *r);
  else
    kill(pid, SIGKILL); /* a decision that does not finish: reported as such */
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return got == (ssize_t)sizeof *r ? 0 : got < 0 ? 1 : -1;
}

static void hyperscale_vclos(void) {
  double t0 = bench_now_ms();
  ns_cluster *c = ns_cluster_new_leaf_spine(4096, 4096, 128, 8, 1, 100.0);
  double tnew = bench_now_ms() - t0;
  ns_job *j = ns_job_new("v", 262144);
  ns_placement *p = ns_placement_new();
  ns_vclos_opts *o = ns_vclos_opts_new();
  double tp[3], tc[3], tr[3];
  int rc = NS_OK;
  for (int i = 0; i < 3 && rc == NS_OK; i++) {
    t0 = bench_now_ms();
    rc = ns_vclos_place(c, j, o, p);
    tp[i] = bench_now_ms() - t0;
    t0 = bench_now_ms();
    if (rc == NS_OK)
      rc = ns_cluster_commit(c, j, p);
    tc[i] = bench_now_ms() - t0;
    t0 = bench_now_ms();
    if (rc == NS_OK)
      rc = ns_cluster_release(c, j);
    tr[i] = bench_now_ms() - t0;
  }
  if (rc != NS_OK) {
    printf("vClos 2^22: failed %d: %s\n", rc, ns_last_error());
    return;
  }
  bench_stats sp = bench_summarize(tp, 3), sc = bench_summarize(tc, 3), sr = bench_summarize(tr, 3);
  printf("\nvClos, 262,144-GPU job on ns_cluster_new_leaf_spine(4096, 4096, 128, 8, 1, 100): "
         "%d GPUs, %d links reserved, peak RSS %ld MB (cluster built in %.0f ms)\n",
         (int)ns_placement_gpu_count(p), ns_placement_link_count(p), peak_rss_mb(), tnew);
  printf("| step | median ms | max ms (3 runs) | target |\n|---|---|---|---|\n");
  printf("| ns_vclos_place | %.1f | %.1f | < 1000 |\n", sp.median, sp.max);
  printf("| ns_cluster_commit | %.1f | %.1f | < 1000 |\n", sc.median, sc.max);
  printf("| ns_cluster_release | %.1f | %.1f | < 1000 |\n", sr.median, sr.max);
  ns_vclos_opts_free(o);
  ns_placement_free(p);
  ns_cluster_free(c);
  ns_job_free(j);
}

/* The decisions that do not take a cluster, at the scale of the rows
   above: AdaDUAL's admission over the 8,192 servers a job could span, and
   CASSINI's ranking of 10 candidates that each share 512 links (2 jobs per
   link, 100/200 ms iterations). */
static void other_decisions(void) {
  enum { SERVERS = 8192, CANDS = 10, LINKS = 512 };
  int *tasks = malloc(SERVERS * sizeof *tasks);
  uint64_t *rem = malloc(SERVERS * sizeof *rem);
  for (int i = 0; i < SERVERS; i++)
    tasks[i] = i % 3 == 0, rem[i] = tasks[i] ? 50000000ull + (uint64_t)i : 0;
  double t[REPS];
  int start = 0, rc = NS_OK;
  for (int i = 0; i < REPS; i++) {
    double t0 = bench_now_ms();
    rc = ns_adadual_decide(0.856e-6, 0.235e-6, 100000000ull, tasks, rem, SERVERS, &start);
    t[i] = bench_now_ms() - t0;
  }
  bench_stats s = bench_summarize(t, REPS);
  printf("| adadual decide | %d servers | - | %s | %.3f | %.3f | - | %ld |\n", SERVERS,
         rc == NS_OK ? "decided" : ns_strerror(rc), s.median, s.p99, peak_rss_mb());
  free(tasks), free(rem);
  ns_job *jobs[2 * LINKS + 1];
  for (int i = 0; i <= 2 * LINKS; i++) {
    jobs[i] = ns_job_new("j", 1);
    double it = i % 2 ? 100.0 : 200.0;
    ns_job_set_iteration_ms(jobs[i], it);
    ns_job_add_phase(jobs[i], it * 0.4, 40.0);
    ns_job_add_phase(jobs[i], it * 0.6, 0.0);
  }
  ns_link *links[LINKS];
  ns_candidate *cands[CANDS];
  for (int l = 0; l < LINKS; l++)
    links[l] = ns_link_new("l", 50.0);
  for (int k = 0; k < CANDS; k++) {
    cands[k] = ns_candidate_new();
    for (int l = 0; l < LINKS; l++) {
      ns_candidate_add(cands[k], jobs[(2 * l + k) % (2 * LINKS)], links[l]);
      ns_candidate_add(cands[k], jobs[2 * LINKS], links[l]); /* the new job */
    }
  }
  ns_cassini_opts *o = ns_cassini_opts_new();
  size_t best = 0;
  for (int i = 0; i < REPS; i++) {
    double t0 = bench_now_ms();
    rc = ns_cassini_rank(cands, CANDS, o, &best, NULL);
    t[i] = bench_now_ms() - t0;
  }
  s = bench_summarize(t, REPS);
  printf("| cassini rank | %d candidates x %d links | - | %s | %.2f | %.2f | - | %ld |\n", CANDS,
         LINKS, rc == NS_OK ? "ranked" : ns_strerror(rc), s.median, s.p99, peak_rss_mb());
  for (int k = 0; k < CANDS; k++)
    ns_candidate_free(cands[k]);
  for (int l = 0; l < LINKS; l++)
    ns_link_free(links[l]);
  for (int i = 0; i <= 2 * LINKS; i++)
    ns_job_free(jobs[i]);
  ns_cassini_opts_free(o);
}

/* AdaDUAL's admission over the 2^22-GPU fabric's 524,288 servers. */
static void adadual_2_22(void) {
  enum { SERVERS = 524288 };
  int *tasks = malloc(SERVERS * sizeof *tasks);
  uint64_t *rem = malloc(SERVERS * sizeof *rem);
  for (int i = 0; i < SERVERS; i++)
    tasks[i] = i % 3 == 0, rem[i] = tasks[i] ? 50000000ull + (uint64_t)i : 0;
  double t[REPS], cpu[REPS];
  int start = 0, rc = NS_OK;
  for (int i = 0; i < REPS; i++) {
    double t0 = bench_now_ms(), c0 = bench_cpu_ms();
    rc = ns_adadual_decide(0.856e-6, 0.235e-6, 100000000ull, tasks, rem, SERVERS, &start);
    t[i] = bench_now_ms() - t0;
    cpu[i] = bench_cpu_ms() - c0;
  }
  bench_stats s = bench_summarize(t, REPS);
  printf("| adadual decide | %d servers | - | %s | %.3f | %.3f | %.3f | %ld | %d |\n", SERVERS,
         rc == NS_OK ? "decided" : ns_strerror(rc), s.median, s.p99,
         bench_summarize(cpu, REPS).median, peak_rss_mb(), REPS);
  free(tasks), free(rem);
}

static void print_row(const char *name, const char *size, const char *load, const row *r,
                      int runs_col) {
  const char *ok = strncmp(name, "cassini", 7) == 0 ? "ranked" : "placed";
  printf("| %s | %s | %s | %s | %.2f | %.2f | %.2f | %ld |", name, size, load,
         r->rc == NS_OK ? ok : ns_strerror(r->rc), r->median, r->p99, r->cpu, r->rss_mb);
  if (runs_col)
    printf(" %d |", r->runs);
  printf("\n");
  fflush(stdout);
}

static void table_131k(void) {
  printf("Every policy on 131,072 GPUs (64 leaves x 128 servers x 16 GPUs, 2,048 spines), "
         "%d decisions per row, each row in its own process:\n\n", REPS);
  printf("| policy | job GPUs | load | status | median ms | p99 ms | CPU median ms | peak RSS MB |\n");
  printf("|---|---|---|---|---|---|---|---|\n");
  static const int sizes[2] = {4096, 65536};
  for (size_t pi = 0; pi < CASSINI_ROW; pi++)
    for (int si = 0; si < 2; si++)
      for (int busy = 0; busy < 2; busy++) {
        row r;
        char size[16];
        snprintf(size, sizeof size, "%d", sizes[si]);
        if (in_child(&r, (int)pi, sizes[si], busy, 0, REPS) != 0) {
          printf("| %s | %d | %s | child failed | | | | |\n", policies[pi].name, sizes[si],
                 busy ? "busy" : "empty");
          continue;
        }
        print_row(policies[pi].name, size, busy ? "busy" : "empty", &r, 0);
      }
  other_decisions();
}

/* Issue 30: every policy placing one 65,536-GPU job on the 2^22-GPU fabric. */
static void table_2_22(int only_titan) {
  printf("\nEvery policy on 2^22 GPUs (ns_cluster_new_leaf_spine(4096, 4096, 128, 8, 1, 100): "
         "524,288 servers x 8 GPUs), one 65,536-GPU job, up to %d decisions per row "
         "(fewer once a row's runs took %.0f s), each row in its own process:\n\n",
         only_titan ? REPS_TITAN22 : REPS22, SLOW_MS / 1000);
  printf("| policy | job GPUs | load | status | median ms | p99 ms | CPU median ms | peak RSS MB | "
         "runs |\n");
  printf("|---|---|---|---|---|---|---|---|---|\n");
  for (size_t pi = 0; pi < NPOLICIES; pi++) {
    if (only_titan && policies[pi].fn != d_titan)
      continue;
    for (int busy = 0; busy < (only_titan ? 1 : 2); busy++) {
      row r;
      int rc = in_child(&r, (int)pi, 65536, busy, 1, only_titan ? REPS_TITAN22 : REPS22);
      if (rc != 0) {
        printf("| %s | 65536 | %s | %s | | | | | |\n", policies[pi].name, busy ? "busy" : "empty",
               rc > 0 ? "no answer within " NS_BENCH_STR(ROW_LIMIT_S) " s (killed)" : "child failed");
        fflush(stdout);
        continue;
      }
      print_row(policies[pi].name, "65536", busy ? "busy" : "empty", &r, 1);
    }
  }
  if (!only_titan)
    adadual_2_22();
}

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "all";
  int all = strcmp(what, "all") == 0;
  if (!all && strcmp(what, "131k") && strcmp(what, "2^22") && strcmp(what, "titan22")) {
    fprintf(stderr, "usage: bench_hyperscale [all | 131k | 2^22 | titan22] (got '%s')\n", what);
    return 2;
  }
  if (all || strcmp(what, "131k") == 0)
    table_131k();
  if (all || strcmp(what, "2^22") == 0 || strcmp(what, "titan22") == 0)
    table_2_22(strcmp(what, "titan22") == 0);
  if (all || strcmp(what, "2^22") == 0)
    hyperscale_vclos();
  return 0;
}
