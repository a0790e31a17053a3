/*
 * bindings/slurm/history.c - what the adapter remembers of the jobs it
 * requeued (--preempt requeue), kept in the --state file by state.c:
 *  - per job: the attained service of its finished runs (GPU x ms) and its
 *    first arrival. Slurm restarts a requeued job from scratch and resets
 *    its start and submit times, so without this a preempted job would
 *    look new to 2D-LAS / 2D-Gittins (back in the first queue, first in
 *    arrival order) and could preempt the job that displaced it;
 *  - the jobs whose requeue Slurm refused (e.g. sbatch --no-requeue): in
 *    memory only, treated as not preemptible for the life of the process.
 * A job's attained service = its history + GPUs x this run's time (Slurm's
 * start time, suspended time excluded). Only the adapter's own requeues
 * add to the history: a job requeued by someone else (or by Slurm after a
 * node failure) starts its count again from that run. Entries of jobs
 * Slurm no longer lists (finished, cancelled) are dropped each cycle.
 * Calls nothing of the adapter's other files.
 */
#include <stdlib.h>

#include "adapter.h"

static struct nss_hist *find(const nss_ctx *x, uint32_t id) {
  for (size_t i = 0; i < x->nhist; i++)
    if (x->hist[i].id == id)
      return &x->hist[i];
  return NULL;
}

int nss_hist_add(nss_ctx *x, uint32_t id, double gpu_ms, double arrival_ms) {
  struct nss_hist *h = find(x, id);
  if (h == NULL) {
    if (x->nhist == x->caphist) {
      size_t cap = x->caphist ? 2 * x->caphist : 16;
      void *p = realloc(x->hist, cap * sizeof *x->hist);
      if (p == NULL)
        return -1;
      x->hist = p, x->caphist = cap;
    }
    h = &x->hist[x->nhist++];
    h->id = id, h->gpu_ms = 0, h->arrival_ms = arrival_ms;
  }
  h->gpu_ms += gpu_ms;
  return 0;
}

int nss_hist_get(const nss_ctx *x, uint32_t id, double *gpu_ms, double *arrival_ms) {
  const struct nss_hist *h = find(x, id);
  if (h == NULL)
    return 0;
  *gpu_ms = h->gpu_ms, *arrival_ms = h->arrival_ms;
  return 1;
}

void nss_hist_apply(nss_ctx *x, nss_snapshot *s) {
  size_t keep = 0;
  for (size_t i = 0; i < x->nhist; i++) { /* drop jobs Slurm no longer lists */
    int listed = 0;
    for (int k = 0; k < s->njobs && !listed; k++)
      listed = s->jobs[k].id == x->hist[i].id;
    if (listed)
      x->hist[keep++] = x->hist[i];
  }
  x->nhist = keep;
  for (int k = 0; k < s->njobs; k++) {
    nss_job *j = &s->jobs[k];
    double done = 0, arrival = j->submit_ms;
    nss_hist_get(x, j->id, &done, &arrival);
    j->arrival_ms = arrival;
    if (nss_refused(x, j->id))
      j->preemptible = 0;
    j->attained_ms = done + (j->kind == NSS_JOB_RUNNING ? (double)j->gpus * j->run_ms : 0.0);
  }
}

int nss_refused_add(nss_ctx *x, uint32_t id) {
  if (nss_refused(x, id))
    return 0;
  if (x->nrefused == x->caprefused) {
    size_t cap = x->caprefused ? 2 * x->caprefused : 16;
    void *p = realloc(x->refused, cap * sizeof *x->refused);
    if (p == NULL)
      return -1;
    x->refused = p, x->caprefused = cap;
  }
  x->refused[x->nrefused++] = id;
  return 0;
}

int nss_refused(const nss_ctx *x, uint32_t id) {
  for (size_t i = 0; i < x->nrefused; i++)
    if (x->refused[i] == id)
      return 1;
  return 0;
}
