/*
 * bench/bench_cassini.c - CASSINI timings and heuristic quality.
 *
 *  1. ns_cassini_score for 2, 3, 4, 6 jobs on one link at 5 and 1 degrees
 *     (equal 100 ms iterations, and mixed 40/60/120 ms); target <= 1 ms for
 *     an exact 2-3-job score at 5 degrees.
 *  2. ns_cassini_rank of 10 candidates x 100 shared links, 1 and 2 threads;
 *     target <= 20 ms.
 *  3. For > 3 jobs: the heuristic's score gap to exhaustive search.
 *
 * Prints median and p99 per case and the ratios side by side. Fixed seeds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cassini/cassini_internal.h"

#include "bench_util.h"

static uint64_t rng(uint64_t *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717ULL;
}
static double urand(uint64_t *s) { return (double)(rng(s) >> 11) / 9007199254740992.0; }

/* Down, Up at 20-50 Gbps for 20-60 % of the iteration, and sometimes a
   short trailing phase at low rate (model-parallel-like). */
static ns_job *bench_job(uint64_t *s, double iter, double gscale) {
  ns_job *j = ns_job_new("b", 1);
  double up = iter * (0.2 + 0.4 * urand(s)), gbps = (20 + 30 * urand(s)) * gscale;
  double tail = urand(s) < 0.3 ? iter * 0.1 : 0, down = iter - up - tail;
  ns_job_set_iteration_ms(j, iter);
  ns_job_add_phase(j, down, 0);
  ns_job_add_phase(j, up, gbps);
  if (tail > 0)
    ns_job_add_phase(j, tail, 5);
  return j;
}

/* ---- 1. link score --------------------------------------------------------- */

static bench_stats time_link(size_t n, double step, int mixed, size_t reps, uint64_t seed,
                       enum nsc_method *used) {
  static const double mix[] = {40, 60, 120};
  ns_job *jobs[6];
  ns_link *l = ns_link_new("l", 50);
  for (size_t j = 0; j < n; j++) {
    jobs[j] = bench_job(&seed, mixed ? mix[j % 3] : 100, 1.0);
    ns_link_add_job(l, jobs[j]);
  }
  ns_cassini_opts *o = ns_cassini_opts_new();
  ns_cassini_opts_set_angle_step_deg(o, step);
  double *t = malloc(reps * sizeof *t), score, sh[6];
  for (size_t r = 0; r < reps; r++) {
    double t0 = bench_now_ms();
    if (ns_cassini_score(l, o, &score, sh, 6) != NS_OK) {
      fprintf(stderr, "score failed: %s\n", ns_last_error());
      exit(1);
    }
    t[r] = bench_now_ms() - t0;
  }
  nsc_circle c;
  nsc_circle_build(&c, (const ns_job *const *)jobs, n, 50, o, "bench");
  double work = nsc_exact_work(&c);
  *used = work <= (double)(n <= 3 ? NSC_EXACT_BUDGET_SMALL : NSC_EXACT_BUDGET_LARGE)
              ? NSC_EXACT
              : NSC_HEURISTIC;
  nsc_circle_free(&c);
  bench_stats st = bench_summarize(t, reps);
  free(t);
  ns_cassini_opts_free(o);
  ns_link_free(l);
  for (size_t j = 0; j < n; j++)
    ns_job_free(jobs[j]);
  return st;
}

static void bench_link_scores(void) {
  static const size_t ns[] = {2, 3, 4, 6};
  printf("1. ns_cassini_score, one link (ms; method; 1 deg / 5 deg time ratio)\n");
  printf("   %-5s %-6s | %-28s | %-28s | %s\n", "jobs", "iters", "5 deg median / p99",
         "1 deg median / p99", "ratio");
  for (int mixed = 0; mixed < 2; mixed++)
    for (size_t i = 0; i < 4; i++) {
      enum nsc_method m5, m1;
      bench_stats a = time_link(ns[i], 5, mixed, 101, 11 + i, &m5);
      bench_stats b = time_link(ns[i], 1, mixed, ns[i] == 3 ? 11 : 31, 11 + i, &m1);
      printf("   %-5zu %-6s | %8.4f / %8.4f %-9s | %8.4f / %8.4f %-9s | %6.1fx%s\n", ns[i],
             mixed ? "mixed" : "100ms", a.median, a.p99, m5 == NSC_EXACT ? "exact" : "heur.",
             b.median, b.p99, m1 == NSC_EXACT ? "exact" : "heur.", b.median / a.median,
             ns[i] <= 3 ? (a.median <= 1.0 ? "  (<= 1 ms: met)" : "  (<= 1 ms: MISSED)") : "");
    }
}

/* ---- 2. ranking ------------------------------------------------------------- */

#define R_CANDS 10
#define R_LINKS 100
#define R_JOBS 250 /* 100 links x 2.5 jobs */

static bench_stats time_rank(ns_candidate **c, int threads, size_t reps, size_t *best,
                       bench_stats *cpu) {
  ns_cassini_opts *o = ns_cassini_opts_new();
  ns_cassini_opts_set_threads(o, threads);
  double *t = malloc(reps * sizeof *t), *u = malloc(reps * sizeof *u), scores[R_CANDS];
  for (size_t r = 0; r < reps; r++) {
    double t0 = bench_now_ms(), u0 = bench_cpu_ms();
    if (ns_cassini_rank(c, R_CANDS, o, best, scores) != NS_OK) {
      fprintf(stderr, "rank failed: %s\n", ns_last_error());
      exit(1);
    }
    t[r] = bench_now_ms() - t0;
    u[r] = bench_cpu_ms() - u0;
  }
  bench_stats st = bench_summarize(t, reps);
  *cpu = bench_summarize(u, reps);
  free(t);
  free(u);
  ns_cassini_opts_free(o);
  return st;
}

static void bench_rank(void) {
  uint64_t seed = 2024;
  ns_job *jobs[R_JOBS];
  ns_link *links[R_LINKS];
  ns_candidate *c[R_CANDS];
  for (size_t j = 0; j < R_JOBS; j++)
    jobs[j] = bench_job(&seed, (rng(&seed) & 1) ? 100 : 200, 1.0);
  for (size_t l = 0; l < R_LINKS; l++)
    links[l] = ns_link_new("l", 50);
  /* Each candidate shuffles the jobs onto the links, 2 or 3 per link, each
     job on one link: every link shared, no loops. */
  for (size_t i = 0; i < R_CANDS; i++) {
    size_t perm[R_JOBS];
    for (size_t j = 0; j < R_JOBS; j++)
      perm[j] = j;
    for (size_t j = R_JOBS - 1; j > 0; j--) {
      size_t k = rng(&seed) % (j + 1), x = perm[j];
      perm[j] = perm[k];
      perm[k] = x;
    }
    c[i] = ns_candidate_new();
    for (size_t j = 0; j < R_JOBS; j++)
      ns_candidate_add(c[i], jobs[perm[j]], links[j < 200 ? j / 2 : (j - 200) * 2]);
  }
  size_t b1 = 0, b2 = 0;
  bench_stats u1, u2;
  time_rank(c, 1, 1, &b1, &u1); /* warm-up */
  bench_stats t1 = time_rank(c, 1, 15, &b1, &u1), t2 = time_rank(c, 2, 15, &b2, &u2);
  printf("\n2. ns_cassini_rank, %d candidates x %d shared links (50 with 3 jobs, 50 with 2; "
         "100/200 ms iterations; 5 deg)\n",
         R_CANDS, R_LINKS);
  printf("   wall   1 thread: %8.3f / %8.3f ms | 2 threads: %8.3f / %8.3f ms | speed-up %.2fx"
         " | same best: %s\n",
         t1.median, t1.p99, t2.median, t2.p99, t1.median / t2.median, b1 == b2 ? "yes" : "NO");
  printf("   CPU of the calling thread, 1 thread: %8.3f / %8.3f ms | target <= 20 ms: %s\n",
         u1.median, u1.p99, u1.median <= 20 ? "met (CPU time)" : "MISSED");
  for (size_t i = 0; i < R_CANDS; i++)
    ns_candidate_free(c[i]);
  for (size_t l = 0; l < R_LINKS; l++)
    ns_link_free(links[l]);
  for (size_t j = 0; j < R_JOBS; j++)
    ns_job_free(jobs[j]);
}

/* ---- 3. heuristic gap ---------------------------------------------------------- */

static void gap_case(size_t n, double step, size_t trials) {
  uint64_t seed = 77 + n;
  ns_cassini_opts *o = ns_cassini_opts_new();
  ns_cassini_opts_set_angle_step_deg(o, step);
  double sum = 0, worst = 0, th = 0, tx = 0;
  size_t optimal = 0;
  for (size_t t = 0; t < trials; t++) {
    ns_job *jobs[6];
    for (size_t j = 0; j < n; j++) /* rates scaled so the link is contended, not hopeless */
      jobs[j] = bench_job(&seed, 100, 3.0 / (double)n);
    nsc_circle c;
    nsc_circle_build(&c, (const ns_job *const *)jobs, n, 50, o, "bench");
    size_t rot[6];
    double eh, ex, t0 = bench_now_ms();
    nsc_optimize(&c, NSC_HEURISTIC, "bench", rot, &eh, NULL);
    double t1 = bench_now_ms();
    nsc_optimize(&c, NSC_EXACT, "bench", rot, &ex, NULL);
    double t2 = bench_now_ms();
    double gap = nsc_score_of(&c, ex) - nsc_score_of(&c, eh);
    sum += gap;
    worst = gap > worst ? gap : worst;
    optimal += gap <= 1e-12;
    th += t1 - t0;
    tx += t2 - t1;
    nsc_circle_free(&c);
    for (size_t j = 0; j < n; j++)
      ns_job_free(jobs[j]);
  }
  printf("   %zu jobs @ %2.0f deg, %2zu instances | gap mean %.4f, max %.4f | optimal %2zu/%zu | "
         "heuristic %8.3f ms vs exhaustive %9.3f ms (%.0fx)\n",
         n, step, trials, sum / (double)trials, worst, optimal, trials, th / (double)trials,
         tx / (double)trials, tx / th);
  ns_cassini_opts_free(o);
}

static void bench_gap(void) {
  printf("\n3. heuristic (greedy + coordinate descent) vs exhaustive branch-and-bound, "
         "score gap (rates x 3/n)\n");
  gap_case(4, 5, 20);
  gap_case(5, 10, 10);
  gap_case(6, 15, 6);
}

int main(void) {
  printf("bench_cassini (libnetsched %s)\n", ns_version());
  bench_link_scores();
  bench_rank();
  bench_gap();
  return 0;
}
