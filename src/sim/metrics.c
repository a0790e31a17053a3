/*
 * src/sim/metrics.c - per-run metrics, per-job rows and the jobs CSV.
 * Definitions are in sim.h's header comment. Percentiles: nearest rank
 * (the smallest value with at least p % of the samples at or below it).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_internal.h"

static const char *metric_names[NS_SIM_METRIC_COUNT] = {
    "avg_jct_ms",   "median_jct_ms", "p95_jct_ms",    "p99_jct_ms",    "makespan_ms",
    "avg_queue_ms", "p95_queue_ms",  "gpu_util",      "comm_overhead", "fragmentation",
    "links_shared", "jobs_done",     "unfinished",    "skipped",       "gpu_ms_allocated",
    "machines_used", "preemptions",  "avg_wait_ms",   "p95_wait_ms",   "machines_at_arrival",
    "avg_iter_ms",   "p99_iter_ms",
};

const char *ns_sim_metric_name(int metric) {
  return (metric >= 0 && metric < NS_SIM_METRIC_COUNT) ? metric_names[metric] : "";
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double percentile(const double *v, size_t n, double p) {
  if (n == 0)
    return 0.0;
  size_t rank = (size_t)ceil(p / 100.0 * (double)n);
  if (rank < 1)
    rank = 1;
  return v[rank - 1];
}

static double mean(const double *v, size_t n) {
  double sum = 0;
  for (size_t i = 0; i < n; i++)
    sum += v[i];
  return n ? sum / (double)n : 0.0;
}

static double job_overhead(const nsi_simjob *j) {
  double ideal = j->compute_ms * (double)j->iterations;
  double v = (j->finish_ms - j->start_ms - j->susp_ms - ideal) / ideal; /* while holding GPUs */
  return v > 0 ? v : 0.0; /* never below the compute time; clamp rounding */
}

/* Time in the wait queue (sim.h METRICS): to its first start, plus every
   wait after a preemption (suspended until restarted). */
static double job_wait(const nsi_simjob *j) { return j->start_ms - j->arrival_ms + j->susp_ms; }

/* Mean iteration time (sim.h METRICS): the ms it ran, restore overhead
   excluded (the network model's count, run_acc, complete once it left),
   over its iterations. */
static double job_iter(const nsi_simjob *j) { return j->run_acc / (double)j->iterations; }

/* The per-job samples of finished jobs the metrics are taken over. */
typedef struct nsi_samples {
  double *jct, *queue, *wait, *iter;
} nsi_samples;

static void fill(ns_sim *s, const nsi_samples *v, size_t n, double first, double last,
                 double overhead) {
  double *m = s->metrics, *jct = v->jct, *queue = v->queue;
  qsort(jct, n, sizeof *jct, cmp_double);
  qsort(queue, n, sizeof *queue, cmp_double);
  qsort(v->wait, n, sizeof *v->wait, cmp_double);
  qsort(v->iter, n, sizeof *v->iter, cmp_double);
  m[NS_SIM_METRIC_AVG_JCT_MS] = mean(jct, n);
  m[NS_SIM_METRIC_MEDIAN_JCT_MS] = percentile(jct, n, 50);
  m[NS_SIM_METRIC_P95_JCT_MS] = percentile(jct, n, 95);
  m[NS_SIM_METRIC_P99_JCT_MS] = percentile(jct, n, 99);
  double span = n ? last - first : 0.0;
  m[NS_SIM_METRIC_MAKESPAN_MS] = span;
  m[NS_SIM_METRIC_AVG_QUEUE_MS] = mean(queue, n);
  m[NS_SIM_METRIC_P95_QUEUE_MS] = percentile(queue, n, 95);
  int gpus = s->o.leaves * s->o.servers_per_leaf * s->o.gpus_per_server;
  double busy = 0; /* compute GPU-time of the finished jobs */
  for (size_t i = 0; i < s->njobs; i++)
    if (s->jobs[i].state == NSI_DONE)
      busy += s->jobs[i].gpus * s->jobs[i].compute_ms * (double)s->jobs[i].iterations;
  m[NS_SIM_METRIC_GPU_UTIL] = span > 0 ? busy / ((double)gpus * span) : 0.0;
  m[NS_SIM_METRIC_COMM_OVERHEAD] = n ? overhead / (double)n : 0.0;
  m[NS_SIM_METRIC_FRAGMENTATION] = s->frag_time > 0 ? s->frag_int / s->frag_time : 0.0;
  size_t shared = 0;
  for (int l = 0; l < s->nnet_links; l++)
    shared += s->shared_ever[l];
  m[NS_SIM_METRIC_LINKS_SHARED] = (double)shared;
  m[NS_SIM_METRIC_JOBS_DONE] = (double)n;
  m[NS_SIM_METRIC_UNFINISHED] = (double)(s->njobs - n);
  m[NS_SIM_METRIC_SKIPPED] = (double)s->skipped;
  m[NS_SIM_METRIC_GPU_MS_ALLOCATED] = s->alloc_int;
  m[NS_SIM_METRIC_MACHINES_USED] = span > 0 ? s->machines_int / span : 0.0;
  m[NS_SIM_METRIC_AVG_WAIT_MS] = mean(v->wait, n);
  m[NS_SIM_METRIC_P95_WAIT_MS] = percentile(v->wait, n, 95);
  m[NS_SIM_METRIC_MACHINES_AT_ARRIVAL] =
      s->arrival_samples ? s->arrival_machines / (double)s->arrival_samples : 0.0;
  m[NS_SIM_METRIC_AVG_ITER_MS] = mean(v->iter, n);
  m[NS_SIM_METRIC_P99_ITER_MS] = percentile(v->iter, n, 99);
}

int nsi_sim_compute_metrics(ns_sim *s) {
  double *buf = malloc(4 * (s->njobs + 1) * sizeof *buf);
  if (buf == NULL) /* a failed run, never zeros passed off as results */
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory computing the metrics");
  nsi_samples v = {buf, buf + (s->njobs + 1), buf + 2 * (s->njobs + 1), buf + 3 * (s->njobs + 1)};
  size_t n = 0;
  double first = INFINITY, last = 0, overhead = 0, preemptions = 0;
  for (size_t i = 0; i < s->njobs; i++) {
    const nsi_simjob *j = &s->jobs[i];
    first = j->arrival_ms < first ? j->arrival_ms : first;
    preemptions += j->preemptions;
    if (j->state != NSI_DONE)
      continue;
    v.jct[n] = j->finish_ms - j->arrival_ms;
    v.queue[n] = j->start_ms - j->arrival_ms;
    v.wait[n] = job_wait(j);
    v.iter[n] = job_iter(j);
    last = j->finish_ms > last ? j->finish_ms : last;
    overhead += job_overhead(j);
    n++;
  }
  fill(s, &v, n, first, last, overhead);
  s->metrics[NS_SIM_METRIC_PREEMPTIONS] = preemptions;
  free(buf);
  return NS_OK;
}

static int metric(const ns_sim *s, ns_sim_metric_id metric, double *value) {
  NSI_TRY(nsi_check_int((long long)metric, 0, NS_SIM_METRIC_COUNT - 1, "ns_sim_metric", "metric"));
  NSI_TRY(nsi_check_ptr(value, "ns_sim_metric", "value"));
  if (!s->ran)
    return nsi_fail(NS_ESTATE, "ns_sim_metric: s has no results (call ns_sim_run first)");
  *value = s->metrics[metric];
  return NS_OK;
}

int ns_sim_metric(const ns_sim *s, ns_sim_metric_id m, double *value) {
  NSI_SIM_CALL(s, "ns_sim_metric", NSI_SIM_READ, metric(s, m, value));
}

int ns_sim_job_count(const ns_sim *s) {
  NSI_SIM_CALL(s, "ns_sim_job_count", NSI_SIM_READ, (int)s->njobs);
}

int ns_sim_skipped_count(const ns_sim *s) {
  NSI_SIM_CALL(s, "ns_sim_skipped_count", NSI_SIM_READ, s->skipped);
}

/* Job `job` of the last run's results: NS_OK, or NS_EINVAL / NS_ESTATE
   naming fn. */
static int result_job(const ns_sim *s, int job, const char *fn) {
  NSI_TRY(nsi_check_int(job, 0, (long long)s->njobs - 1, fn, "job"));
  if (!s->ran)
    return nsi_fail(NS_ESTATE, "%s: s has no results (call ns_sim_run first)", fn);
  return NS_OK;
}

static int job_result(const ns_sim *s, int job, double *arrival_ms, double *start_ms,
                      double *finish_ms, int *servers) {
  NSI_TRY(result_job(s, job, "ns_sim_job_result"));
  const nsi_simjob *j = &s->jobs[job];
  if (arrival_ms)
    *arrival_ms = j->arrival_ms;
  if (start_ms)
    *start_ms = j->start_ms;
  if (finish_ms)
    *finish_ms = j->finish_ms;
  if (servers)
    *servers = j->servers;
  return NS_OK;
}

int ns_sim_job_result(const ns_sim *s, int job, double *arrival_ms, double *start_ms,
                      double *finish_ms, int *servers) {
  NSI_SIM_CALL(s, "ns_sim_job_result", NSI_SIM_READ,
               job_result(s, job, arrival_ms, start_ms, finish_ms, servers));
}

static int job_preemptions(const ns_sim *s, int job) {
  NSI_TRY(result_job(s, job, "ns_sim_job_preemptions"));
  return s->jobs[job].preemptions;
}

int ns_sim_job_preemptions(const ns_sim *s, int job) {
  NSI_SIM_CALL(s, "ns_sim_job_preemptions", NSI_SIM_READ, job_preemptions(s, job));
}

static int job_nw_sens(const ns_sim *s, int job, double *nw_sens) {
  NSI_TRY(nsi_check_int(job, 0, (long long)s->njobs - 1, "ns_sim_job_nw_sens", "job"));
  NSI_TRY(nsi_check_ptr(nw_sens, "ns_sim_job_nw_sens", "nw_sens"));
  if (!s->ran)
    return nsi_fail(NS_ESTATE, "ns_sim_job_nw_sens: s has no results (call ns_sim_run first)");
  *nw_sens = s->jobs[job].nw_sens;
  return NS_OK;
}

static int job_wait_iter(const ns_sim *s, int job, double *wait_ms, double *iter_ms) {
  NSI_TRY(result_job(s, job, "ns_sim_job_wait_iter"));
  const nsi_simjob *j = &s->jobs[job];
  int done = j->state == NSI_DONE;
  if (wait_ms)
    *wait_ms = done ? job_wait(j) : NAN;
  if (iter_ms)
    *iter_ms = done ? job_iter(j) : NAN;
  return NS_OK;
}

int ns_sim_job_wait_iter(const ns_sim *s, int job, double *wait_ms, double *iter_ms) {
  NSI_SIM_CALL(s, "ns_sim_job_wait_iter", NSI_SIM_READ, job_wait_iter(s, job, wait_ms, iter_ms));
}

int ns_sim_job_nw_sens(const ns_sim *s, int job, double *nw_sens) {
  NSI_SIM_CALL(s, "ns_sim_job_nw_sens", NSI_SIM_READ, job_nw_sens(s, job, nw_sens));
}

/* The strings stay valid until the next call that changes s (a load, an
   add, ns_sim_free): read them before another thread may make one. */
static const char *job_string(const ns_sim *s, int job, const char *fn, int model) {
  if (nsi_sim_enter(s, fn, NSI_SIM_READ) < 0)
    return "";
  const char *v = "";
  if (job >= 0 && (size_t)job < s->njobs)
    v = model ? s->jobs[job].model : s->jobs[job].name;
  nsi_sim_leave(s, NSI_SIM_READ);
  return v;
}

const char *ns_sim_job_name(const ns_sim *s, int job) {
  return job_string(s, job, "ns_sim_job_name", 0);
}

const char *ns_sim_job_model(const ns_sim *s, int job) {
  return job_string(s, job, "ns_sim_job_model", 1);
}

static int job_gpus(const ns_sim *s, int job) {
  NSI_TRY(nsi_check_int(job, 0, (long long)s->njobs - 1, "ns_sim_job_gpus", "job"));
  return s->jobs[job].gpus;
}

int ns_sim_job_gpus(const ns_sim *s, int job) {
  NSI_SIM_CALL(s, "ns_sim_job_gpus", NSI_SIM_READ, job_gpus(s, job));
}

/* Job names come from traces: quote them for CSV. */
static void put_name(FILE *f, const char *name) {
  fputc('"', f);
  for (const char *c = name; *c; c++) {
    if (*c == '"')
      fputc('"', f);
    fputc(*c, f);
  }
  fputc('"', f);
}

static void write_rows(const ns_sim *s, FILE *f) {
  fprintf(f, "job,name,gpus,iterations,arrival_ms,start_ms,finish_ms,jct_ms,queue_ms,servers,"
             "comm_overhead,model,preemptions,wait_ms,iter_ms\n");
  for (size_t i = 0; i < s->njobs; i++) {
    const nsi_simjob *j = &s->jobs[i];
    fprintf(f, "%zu,", i);
    put_name(f, j->name);
    int done = j->state == NSI_DONE;
    fprintf(f, ",%d,%llu,%.3f,", j->gpus, (unsigned long long)j->iterations, j->arrival_ms);
    if (done)
      fprintf(f, "%.3f,%.3f,%.3f,%.3f,%d,%.6f,", j->start_ms, j->finish_ms,
              j->finish_ms - j->arrival_ms, j->start_ms - j->arrival_ms, j->servers,
              job_overhead(j));
    else
      fprintf(f, ",,,,%d,,", j->servers);
    put_name(f, j->model);
    fprintf(f, ",%d,", j->preemptions);
    if (done)
      fprintf(f, "%.3f,%.6f\n", job_wait(j), job_iter(j));
    else
      fputs(",\n", f);
  }
}

static int write_jobs_csv(const ns_sim *s, const char *path) {
  static const char fn[] = "ns_sim_write_jobs_csv";
  NSI_TRY(nsi_check_ptr(path, fn, "path"));
  if (!s->ran)
    return nsi_fail(NS_ESTATE, "%s: s has no results (call ns_sim_run first)", fn);
  nsi_outfile o;
  NSI_TRY(nsi_outfile_open(&o, path, fn));
  write_rows(s, o.f);
  return nsi_outfile_commit(&o, fn);
}

int ns_sim_write_jobs_csv(const ns_sim *s, const char *path) {
  NSI_SIM_CALL(s, "ns_sim_write_jobs_csv", NSI_SIM_READ, write_jobs_csv(s, path));
}
