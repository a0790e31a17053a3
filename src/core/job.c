/*
 * src/core/job.c - the job handle: GPU demand, iteration profile, compute
 * time, model size, collective, progress, memory.
 *
 * Every setter validates before it writes, so a failed call leaves the job
 * as it was and algorithms never see NaN, infinite or negative values.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

#define NS_JOB_MAX_GPUS (1 << 20)
#define NS_JOB_MAX_NAME 255
#define NS_JOB_MAX_PHASES 65536

ns_job *ns_job_new(const char *name, int gpus) {
  if (nsi_check_ptr(name, "ns_job_new", "name") < 0)
    return NULL;
  if (strlen(name) > NS_JOB_MAX_NAME) {
    nsi_fail(NS_EINVAL, "ns_job_new: name longer than %d bytes", NS_JOB_MAX_NAME);
    return NULL;
  }
  if (nsi_check_int(gpus, 1, NS_JOB_MAX_GPUS, "ns_job_new", "gpus") < 0)
    return NULL;
  ns_job *j = calloc(1, sizeof *j);
  if (j == NULL || (j->name = nsi_strdup(name)) == NULL) {
    free(j);
    nsi_fail(NS_ENOMEM, "ns_job_new: out of memory");
    return NULL;
  }
  j->gpus = gpus;
  j->collective = NS_COLL_RING;
  j->iters_total = 1;
  return j;
}

void ns_job_free(ns_job *job) {
  if (job == NULL)
    return;
  free(job->name);
  free(job->phases);
  free(job);
}

const char *ns_job_name(const ns_job *job) { return job ? job->name : ""; }

int ns_job_gpus(const ns_job *job) {
  NSI_TRY(nsi_check_ptr(job, "ns_job_gpus", "job"));
  return job->gpus;
}

int ns_job_set_iteration_ms(ns_job *job, double iteration_ms) {
  NSI_TRY(nsi_check_ptr(job, "ns_job_set_iteration_ms", "job"));
  NSI_TRY(nsi_check_finite_gt0(iteration_ms, "ns_job_set_iteration_ms", "iteration_ms"));
  job->iteration_ms = iteration_ms;
  return NS_OK;
}

int ns_job_add_phase(ns_job *job, double duration_ms, double gbps) {
  NSI_TRY(nsi_check_ptr(job, "ns_job_add_phase", "job"));
  NSI_TRY(nsi_check_finite_gt0(duration_ms, "ns_job_add_phase", "duration_ms"));
  NSI_TRY(nsi_check_finite_ge0(gbps, "ns_job_add_phase", "gbps"));
  if (job->nphases >= NS_JOB_MAX_PHASES)
    return nsi_fail(NS_ERANGE, "ns_job_add_phase: job '%s' already has %d phases", job->name,
                    NS_JOB_MAX_PHASES);
  NSI_TRY(nsi_reserve(&job->phases, &job->cap_phases, job->nphases + 1, sizeof *job->phases));
  job->phases[job->nphases].duration_ms = duration_ms;
  job->phases[job->nphases].gbps = gbps;
  job->nphases++;
  return NS_OK;
}

int ns_job_clear_phases(ns_job *job) {
  NSI_TRY(nsi_check_ptr(job, "ns_job_clear_phases", "job"));
  job->nphases = 0;
  return NS_OK;
}

int ns_job_set_compute_ms(ns_job *job, double forward_ms, double backward_ms) {
  NSI_TRY(nsi_check_ptr(job, "ns_job_set_compute_ms", "job"));
  NSI_TRY(nsi_check_finite_ge0(forward_ms, "ns_job_set_compute_ms", "forward_ms"));
  NSI_TRY(nsi_check_finite_ge0(backward_ms, "ns_job_set_compute_ms", "backward_ms"));
  job->forward_ms = forward_ms;
  job->backward_ms = backward_ms;
  return NS_OK;
}

int ns_job_set_model_bytes(ns_job *job, uint64_t bytes) {
  NSI_TRY(nsi_check_ptr(job, "ns_job_set_model_bytes", "job"));
  job->model_bytes = bytes;
  return NS_OK;
}

int ns_job_set_collective(ns_job *job, ns_collective c) {
  NSI_TRY(nsi_check_ptr(job, "ns_job_set_collective", "job"));
  NSI_TRY(nsi_check_int((long long)c, NS_COLL_RING, NS_COLL_ALL_TO_ALL, "ns_job_set_collective",
                        "c"));
  job->collective = c;
  return NS_OK;
}

int ns_job_set_iterations(ns_job *job, uint64_t total, uint64_t completed) {
  NSI_TRY(nsi_check_ptr(job, "ns_job_set_iterations", "job"));
  if (total < 1)
    return nsi_fail(NS_EINVAL, "ns_job_set_iterations: total must be >= 1 (got 0)");
  if (completed > total)
    return nsi_fail(NS_EINVAL,
                    "ns_job_set_iterations: completed (%llu) must be <= total (%llu)",
                    (unsigned long long)completed, (unsigned long long)total);
  job->iters_total = total;
  job->iters_done = completed;
  return NS_OK;
}

int ns_job_set_gpu_memory_mb(ns_job *job, double mb) {
  NSI_TRY(nsi_check_ptr(job, "ns_job_set_gpu_memory_mb", "job"));
  NSI_TRY(nsi_check_finite_ge0(mb, "ns_job_set_gpu_memory_mb", "mb"));
  job->mem_mb = mb;
  return NS_OK;
}

double ns_job_iteration_ms(const ns_job *job) {
  if (nsi_check_ptr(job, "ns_job_iteration_ms", "job") < 0)
    return NAN;
  return job->iteration_ms;
}

size_t ns_job_phase_count(const ns_job *job) { return job ? job->nphases : 0; }

int ns_job_phase(const ns_job *job, size_t i, double *duration_ms, double *gbps) {
  NSI_TRY(nsi_check_ptr(job, "ns_job_phase", "job"));
  NSI_TRY(nsi_check_ptr(duration_ms, "ns_job_phase", "duration_ms"));
  NSI_TRY(nsi_check_ptr(gbps, "ns_job_phase", "gbps"));
  if (i >= job->nphases)
    return nsi_fail(NS_EINVAL, "ns_job_phase: i (%zu) out of range (job '%s' has %zu phases)", i,
                    job->name, job->nphases);
  *duration_ms = job->phases[i].duration_ms;
  *gbps = job->phases[i].gbps;
  return NS_OK;
}

int ns_job_compute_ms(const ns_job *job, double *forward_ms, double *backward_ms) {
  NSI_TRY(nsi_check_ptr(job, "ns_job_compute_ms", "job"));
  NSI_TRY(nsi_check_ptr(forward_ms, "ns_job_compute_ms", "forward_ms"));
  NSI_TRY(nsi_check_ptr(backward_ms, "ns_job_compute_ms", "backward_ms"));
  *forward_ms = job->forward_ms;
  *backward_ms = job->backward_ms;
  return NS_OK;
}

uint64_t ns_job_model_bytes(const ns_job *job) { return job ? job->model_bytes : 0; }

int ns_job_collective(const ns_job *job) {
  NSI_TRY(nsi_check_ptr(job, "ns_job_collective", "job"));
  return (int)job->collective;
}

int ns_job_iterations(const ns_job *job, uint64_t *total, uint64_t *completed) {
  NSI_TRY(nsi_check_ptr(job, "ns_job_iterations", "job"));
  NSI_TRY(nsi_check_ptr(total, "ns_job_iterations", "total"));
  NSI_TRY(nsi_check_ptr(completed, "ns_job_iterations", "completed"));
  *total = job->iters_total;
  *completed = job->iters_done;
  return NS_OK;
}

double ns_job_gpu_memory_mb(const ns_job *job) {
  if (nsi_check_ptr(job, "ns_job_gpu_memory_mb", "job") < 0)
    return NAN;
  return job->mem_mb;
}

int nsi_job_check_phases(const ns_job *job, const char *fn) {
  if (job->iteration_ms <= 0)
    return nsi_fail(NS_EINVAL, "%s: job '%s' has no iteration time (ns_job_set_iteration_ms)",
                    fn, job->name);
  if (job->nphases == 0)
    return nsi_fail(NS_EINVAL, "%s: job '%s' has no phases (ns_job_add_phase)", fn, job->name);
  double sum = 0;
  for (size_t i = 0; i < job->nphases; i++)
    sum += job->phases[i].duration_ms;
  double diff = sum - job->iteration_ms;
  if (fabs(diff) > 1e-6 * job->iteration_ms)
    return nsi_fail(NS_EINVAL,
                    "%s: phases of job '%s' sum to %.9g ms but its iteration is %.9g ms "
                    "(off by %+.9g ms)",
                    fn, job->name, sum, job->iteration_ms, diff);
  return NS_OK;
}

double nsi_job_lwf_workload_ms(const ns_job *job) {
  double remaining = (double)(job->iters_total - job->iters_done);
  return (job->forward_ms + job->backward_ms) * remaining * (double)job->gpus;
}

int nsi_check_job_fits(const ns_cluster *c, const ns_job *job, const char *fn) {
  if (job->gpus > c->ngpus)
    return nsi_fail(NS_EINVAL, "%s: job '%s' needs %d GPUs but the cluster has only %d", fn,
                    job->name, job->gpus, c->ngpus);
  if (job->mem_mb > c->gpu_mem_mb)
    return nsi_fail(NS_EINVAL, "%s: job '%s' needs %g MB per GPU but a GPU has only %g MB", fn,
                    job->name, job->mem_mb, c->gpu_mem_mb);
  return NS_OK;
}
