/*
 * src/lwf/placement.c - argument checks, hostable-GPU scan and result
 * emission shared by LWF-kappa and its baselines.
 */
#include <string.h>

#include "lwf/placement.h"

int lwfi_check_args(const ns_cluster *c, const ns_job *job, const ns_placement *out,
                    const char *fn) {
  NSI_TRY(nsi_check_ptr(c, fn, "c"));
  NSI_TRY(nsi_check_ptr(job, fn, "job"));
  NSI_TRY(nsi_check_ptr(out, fn, "out"));
  return NS_OK;
}

int lwfi_hostable_gpus(const ns_cluster *c, const ns_job *job, int *ids) {
  int m = 0;
  for (int g = 0; g < c->ngpus; g++)
    if (nsi_gpu_can_host(c, g, job->mem_mb)) /* Alg. 1 lines 3 and 14: enough memory */
      ids[m++] = g;
  return m;
}

int lwfi_emit(const ns_cluster *c, ns_placement *out, const int *gpus, int n) {
  NSI_TRY(nsi_reserve(&out->gpus, &out->cap_gpus, (size_t)n, sizeof *out->gpus));
  ns_placement_clear(out);
  NSI_TRY(ns_placement_bind(out, c));
  memcpy(out->gpus, gpus, (size_t)n * sizeof *gpus);
  out->ngpus = (size_t)n;
  return NS_OK;
}

int lwfi_no_space(const ns_cluster *c, ns_placement *out, const ns_job *job, int hostable,
                  const char *fn) {
  ns_placement_clear(out);
  ns_placement_bind(out, c);
  NSI_TRY(nsi_check_job_fits(c, job, fn)); /* never fits: NS_EINVAL (core.h) */
  return nsi_fail(NS_ENOSPACE, "%s: job '%s' needs %d GPUs; %d of the cluster's %d can host it now",
                  fn, job->name, job->gpus, hostable, c->ngpus);
}
