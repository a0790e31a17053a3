/*
 * tests/fuzz/fuzz_titan.c - Titan placement on random clusters with random
 * background load (non-idle machines) and earlier jobs, plus the collective
 * traffic helpers on random arguments.
 *
 * fuzz-requires: ns_titan_place ns_titan_opts_new ns_titan_opts_set_seed
 * fuzz-requires: ns_collective_traffic ns_collective_phase_count
 *
 * Invariants (include/netsched/titan.h, ALGORITHMS.md "titan"):
 *  - never infeasible: a placement holds >= the job's GPUs, distinct, in
 *    range, each free now (one worker per GPU, R_s free GPUs per machine),
 *    and committing it succeeds;
 *  - with fewer free GPUs than the job needs the answer is NS_ENOSPACE;
 *  - deciding never mutates the cluster (public-API snapshot unchanged);
 *  - the same seed gives the same placement (deterministic);
 *  - collective traffic: valid arguments give a byte count <= the model
 *    size; invalid ones fail with a documented status and a message.
 */
#include "fuzz_util.h"

enum { MAXJOBS = 16 };

static void check_traffic(fz *f) {
  ns_collective coll = (ns_collective)fz_range(f, -1, 4);
  int workers = (int)fz_range(f, -1, 33);
  uint64_t bytes = fz_range(f, 0, 1) ? (uint64_t)fz_range(f, 0, 1 << 20) : (uint64_t)fz_u32(f);
  int phases = ns_collective_phase_count(coll, workers);
  if (phases < 0) {
    FZ_CHECK_FAILURE(phases, "ns_collective_phase_count");
    return;
  }
  FZ_CHECK(phases <= 4 * 64 * 64, "%d phases for %d workers", phases, workers);
  int phase = (int)fz_range(f, -1, phases);
  int from = (int)fz_range(f, -1, workers), to = (int)fz_range(f, -1, workers);
  uint64_t out = 12345;
  int rc = ns_collective_traffic(coll, workers, bytes, phase, from, to, &out);
  int valid = phase >= 0 && phase < phases && from >= 0 && from < workers && to >= 0 &&
              to < workers;
  if (!valid) {
    FZ_CHECK(rc < 0, "traffic(%d,%d,phase %d,%d->%d) accepted", (int)coll, workers, phase, from,
             to);
    FZ_CHECK_FAILURE(rc, "ns_collective_traffic");
    return;
  }
  FZ_CHECK(rc == NS_OK && out <= bytes, "traffic %d: %llu of %llu bytes", rc,
           (unsigned long long)out, (unsigned long long)bytes);
}

static ns_job *random_job(fz *f, int ngpus) {
  ns_job *j = ns_job_new("titan", (int)fz_range(f, 1, ngpus + 2 < 160 ? ngpus + 2 : 160));
  ns_job_set_collective(j, (ns_collective)fz_range(f, 0, 3));
  ns_job_set_model_bytes(j, (uint64_t)fz_range(f, 0, 1) ? (uint64_t)fz_u32(f) * 64 : 0);
  ns_job_set_iteration_ms(j, 1 + (double)fz_range(f, 0, 1000));
  ns_job_set_compute_ms(j, (double)fz_range(f, 0, 100), (double)fz_range(f, 0, 100));
  return j;
}

static int same_placement(const ns_placement *a, const ns_placement *b) {
  if (ns_placement_gpu_count(a) != ns_placement_gpu_count(b))
    return 0;
  for (size_t i = 0; i < ns_placement_gpu_count(a); i++)
    if (ns_placement_gpu(a, i) != ns_placement_gpu(b, i))
      return 0;
  return 1;
}

static void op_place(fz *f, ns_cluster *c, ns_job **jobs, int *njobs) {
  int ngpus = ns_cluster_gpu_count(c);
  ns_job *job = random_job(f, ngpus);
  jobs[(*njobs)++] = job;
  ns_titan_opts *o = ns_titan_opts_new();
  uint64_t seed = ((uint64_t)fz_u32(f) << 32) | fz_u32(f);
  FZ_CHECK(ns_titan_opts_set_seed(o, seed) == NS_OK, "seed");
  ns_placement *p = ns_placement_new(), *q = ns_placement_new();
  fz_snap before, after;
  FZ_CHECK(fz_snap_take(c, &before) == 0, "snapshot");
  int enough = ns_cluster_free_gpu_count(c) >= ns_job_gpus(job);
  int rc = ns_titan_place(c, job, o, p);
  FZ_CHECK(fz_snap_take(c, &after) == 0, "snapshot");
  fz_snap_expect_equal(&before, &after, "ns_titan_place");
  fz_snap_free(&before);
  fz_snap_free(&after);
  if (rc != NS_OK) {
    /* core.h: a job larger than the cluster can never fit: NS_EINVAL */
    int never = ns_job_gpus(job) > ngpus;
    FZ_CHECK(rc == NS_ENOSPACE || rc == NS_ENOMEM || (never && rc == NS_EINVAL),
             "titan: status %d", rc);
    FZ_CHECK_FAILURE(rc, "ns_titan_place");
  } else {
    FZ_CHECK(enough, "placed a %d-GPU job with %d free GPUs", ns_job_gpus(job),
             ns_cluster_free_gpu_count(c));
    size_t n = ns_placement_gpu_count(p);
    FZ_CHECK(n >= (size_t)ns_job_gpus(job), "%zu GPUs for %d workers", n, ns_job_gpus(job));
    for (size_t i = 0; i < n; i++) {
      int g = ns_placement_gpu(p, i);
      FZ_CHECK(g >= 0 && g < ngpus && ns_cluster_gpu_is_free(c, g) == 1, "GPU %d not free", g);
      for (size_t k = 0; k < i; k++)
        FZ_CHECK(ns_placement_gpu(p, k) != g, "GPU %d twice", g);
    }
    FZ_CHECK(ns_titan_place(c, job, o, q) == NS_OK && same_placement(p, q),
             "same seed, different placement");
    if (fz_range(f, 0, 3) > 0)
      FZ_CHECK(ns_cluster_commit(c, job, p) == NS_OK, "commit of a Titan placement failed");
  }
  if (!enough) /* NS_EINVAL if the cluster could never hold the job */
    FZ_CHECK(rc == NS_ENOSPACE || (rc == NS_EINVAL && ns_job_gpus(job) > ngpus),
             "too few free GPUs but status %d", rc);
  ns_placement_free(p);
  ns_placement_free(q);
  ns_titan_opts_free(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz f = {data, size};
  static const double gbps[] = {10, 25, 100, 400};
  /* Up to 48 machines: the greedy's per-machine tables grow past 16. */
  int L = (int)fz_range(&f, 1, 4), S = (int)fz_range(&f, 0, 2);
  int SPL = (int)fz_range(&f, 1, 12), GPS = (int)fz_range(&f, 1, 8);
  ns_cluster *c = ns_cluster_new_leaf_spine(L, S, SPL, GPS, S ? 1 : 0, gbps[fz_range(&f, 0, 3)]);
  FZ_CHECK(c != NULL, "cluster");
  int ngpus = L * SPL * GPS;
  /* Background load: each GPU busy with probability given by one byte. */
  int density = fz_u8(&f);
  for (int g = 0; g < ngpus; g++)
    if (fz_u8(&f) < density)
      ns_cluster_occupy(c, &g, 1);
  ns_job *jobs[MAXJOBS];
  int njobs = 0;
  for (int steps = 0; !fz_done(&f) && njobs < MAXJOBS; steps++) {
    switch (fz_range(&f, 0, 3)) {
    case 0:
    case 1: op_place(&f, c, jobs, &njobs); break;
    case 2:
      if (njobs > 0)
        ns_cluster_release(c, jobs[fz_range(&f, 0, njobs - 1)]); /* may be ENOTFOUND */
      break;
    default: check_traffic(&f);
    }
  }
  ns_cluster_free(c);
  for (int j = 0; j < njobs; j++)
    ns_job_free(jobs[j]);
  return 0;
}
