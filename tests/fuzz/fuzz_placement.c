/*
 * tests/fuzz/fuzz_placement.c - the GPU placement policies that take
 * (cluster, job) and fill a placement: LWF-kappa and its baselines (FF, LS,
 * RAND), Dally's offer and its baselines (best-fit, Tiresias-style), on
 * random clusters (exclusive or shared GPUs, memory limits, background load,
 * LWF workloads, earlier commits).
 *
 * fuzz-requires: ns_lwf_place ns_place_first_fit ns_place_list_scheduling ns_place_random
 * fuzz-requires: ns_place_best_fit ns_place_tiresias ns_dally_offer ns_delay_tuner_new
 *
 * "Hostable" is computed from the public API only: not background-busy, no
 * job on it unless GPUs are shared, and enough free memory (memory sizes are
 * whole GBs, so the comparison is exact). Invariants (lwf.h, dally.h):
 *  - deciding never mutates the cluster; a success holds >= |G| distinct,
 *    in-range, hostable GPUs, bound to the cluster, and commits;
 *  - FF, LS, RAND, LWF and best-fit succeed iff at least |G| GPUs are
 *    hostable (a job larger than the cluster may instead be NS_EINVAL, as
 *    dally.h documents); Tiresias too for a job below the skew threshold;
 *  - FF (and Tiresias below the threshold) = the |G| lowest hostable ids;
 *    LS (and LWF when |G| <= kappa) = the |G| hostable GPUs of least
 *    workload, ties to the lowest id; best-fit uses the fewest servers the
 *    hostable GPUs allow; RAND is deterministic per seed;
 *  - Dally: an accept is a valid placement, a decline leaves `out` empty.
 */
#include "fuzz_util.h"

enum { MAXG = 3 * 4 * 8, MAXJOBS = 12 };

typedef struct world {
  ns_cluster *c;
  int ngpus, nservers, gps, sharing;
  ns_job *jobs[MAXJOBS];
  int njobs;
} world;

static int hostable(const world *w, int g, double mem) {
  int jobs = ns_cluster_gpu_job_count(w->c, g), is_free = ns_cluster_gpu_is_free(w->c, g);
  int background = !is_free && jobs == 0;
  return !background && (w->sharing || jobs == 0) &&
         ns_cluster_gpu_free_memory_mb(w->c, g) >= mem;
}

static int cmp_int(const void *a, const void *b) {
  return *(const int *)a - *(const int *)b;
}

/* The placement's GPUs, sorted. */
static int sorted_gpus(const ns_placement *p, int *out) {
  int n = (int)ns_placement_gpu_count(p);
  for (int i = 0; i < n; i++)
    out[i] = ns_placement_gpu(p, (size_t)i);
  qsort(out, (size_t)n, sizeof *out, cmp_int);
  return n;
}

static void expect_set(const ns_placement *p, const int *want, int n, const char *who) {
  int got[MAXG];
  int m = sorted_gpus(p, got);
  int sorted_want[MAXG];
  memcpy(sorted_want, want, (size_t)n * sizeof *want);
  qsort(sorted_want, (size_t)n, sizeof *sorted_want, cmp_int);
  FZ_CHECK(m == n && memcmp(got, sorted_want, (size_t)n * sizeof *got) == 0,
           "%s chose other GPUs than its definition (%d vs %d GPUs, first %d vs %d)", who, m, n,
           m ? got[0] : -1, n ? sorted_want[0] : -1);
}

/* |G| lowest hostable ids (FF), or least workload then lowest id (LS). */
static int oracle(const world *w, const ns_job *job, int by_workload, int *want) {
  int cand[MAXG], n = 0, need = ns_job_gpus(job);
  double mem = ns_job_gpu_memory_mb(job);
  for (int g = 0; g < w->ngpus; g++)
    if (hostable(w, g, mem))
      cand[n++] = g;
  if (by_workload) /* insertion sort by (workload, id): stable on ids */
    for (int i = 1; i < n; i++)
      for (int k = i; k > 0 && ns_cluster_gpu_workload_ms(w->c, cand[k]) <
                                   ns_cluster_gpu_workload_ms(w->c, cand[k - 1]);
           k--) {
        int t = cand[k];
        cand[k] = cand[k - 1];
        cand[k - 1] = t;
      }
  int m = n < need ? n : need;
  memcpy(want, cand, (size_t)m * sizeof *cand);
  return n;
}

/* Fewest servers whose hostable GPUs can hold the job. */
static int min_servers(const world *w, const ns_job *job) {
  int cnt[MAXG] = {0}, need = ns_job_gpus(job);
  for (int g = 0; g < w->ngpus; g++)
    cnt[g / w->gps] += hostable(w, g, ns_job_gpu_memory_mb(job));
  qsort(cnt, (size_t)w->nservers, sizeof *cnt, cmp_int);
  int k = 0;
  for (int s = w->nservers - 1; s >= 0 && need > 0; s--, k++)
    need -= cnt[s];
  return k;
}

static void check_valid(const world *w, const ns_job *job, const ns_placement *p,
                        const char *who) {
  int got[MAXG], n = sorted_gpus(p, got);
  FZ_CHECK(n >= ns_job_gpus(job), "%s: %d GPUs for %d", who, n, ns_job_gpus(job));
  for (int i = 0; i < n; i++) {
    FZ_CHECK(got[i] >= 0 && got[i] < w->ngpus && (i == 0 || got[i] != got[i - 1]),
             "%s: GPU %d duplicated or out of range", who, got[i]);
    FZ_CHECK(hostable(w, got[i], ns_job_gpu_memory_mb(job)), "%s: GPU %d cannot host", who,
             got[i]);
  }
  FZ_CHECK(ns_placement_server_count(p) >= 1, "%s: unbound placement", who);
}

static void call_policy(fz *f, world *w) {
  ns_job *job = ns_job_new("p", (int)fz_range(f, 1, w->ngpus + 2));
  ns_job_set_gpu_memory_mb(job, 1024.0 * (double)fz_range(f, 0, 20));
  ns_job_set_model_bytes(job, (uint64_t)fz_range(f, 0, 3) << 28);
  int policy = (int)fz_range(f, 0, 6), kappa = (int)fz_range(f, 1, 8);
  uint64_t seed = fz_u32(f), skew = (uint64_t)fz_range(f, 0, 3) << 28;
  int want[MAXG], nhost = oracle(w, job, 0, want), enough = nhost >= ns_job_gpus(job);
  ns_placement *p = ns_placement_new(), *q = ns_placement_new();
  fz_snap before, after;
  FZ_CHECK(fz_snap_take(w->c, &before) == 0, "snapshot");
  static const char *names[] = {"ns_lwf_place",      "ns_place_first_fit", "ns_place_list_scheduling",
                                "ns_place_random",   "ns_place_best_fit",  "ns_place_tiresias",
                                "ns_dally_offer"};
  const char *who = names[policy];
  int rc, accepted = 1;
  ns_delay_tuner *t = NULL;
  switch (policy) {
  case 0: rc = ns_lwf_place(w->c, job, kappa, p); break;
  case 1: rc = ns_place_first_fit(w->c, job, p); break;
  case 2: rc = ns_place_list_scheduling(w->c, job, p); break;
  case 3:
    rc = ns_place_random(w->c, job, seed, p);
    if (rc == NS_OK) {
      FZ_CHECK(ns_place_random(w->c, job, seed, q) == NS_OK, "second RAND");
      int a[MAXG], b[MAXG], na = sorted_gpus(p, a), nb = sorted_gpus(q, b);
      FZ_CHECK(na == nb && memcmp(a, b, (size_t)na * sizeof *a) == 0, "RAND not deterministic");
    }
    break;
  case 4: rc = ns_place_best_fit(w->c, job, p); break;
  case 5: rc = ns_place_tiresias(w->c, job, skew, p); break;
  default:
    t = ns_delay_tuner_new(1e6, (double)fz_range(f, 0, 2) * 1000, (double)fz_range(f, 0, 2) * 1000);
    rc = ns_dally_offer(t, w->c, job, (double)fz_range(f, 0, 5000), 1000, p, &accepted);
  }
  FZ_CHECK(fz_snap_take(w->c, &after) == 0, "snapshot");
  fz_snap_expect_equal(&before, &after, who);
  fz_snap_free(&before);
  fz_snap_free(&after);
  int too_big = ns_job_gpus(job) > w->ngpus || ns_job_gpu_memory_mb(job) > ns_cluster_gpu_memory_mb(w->c);
  if (rc != NS_OK) {
    FZ_CHECK(rc == NS_ENOSPACE || (rc == NS_EINVAL && too_big), "%s: status %d", who, rc);
    FZ_CHECK_FAILURE(rc, who);
    int may_wait = policy == 6 || (policy == 5 && ns_job_model_bytes(job) >= skew);
    FZ_CHECK(!enough || may_wait, "%s: %d hostable GPUs for %d, status %d", who, nhost,
             ns_job_gpus(job), rc);
  } else if (!accepted) {
    FZ_CHECK(ns_placement_gpu_count(p) == 0, "declined offer with GPUs");
  } else {
    FZ_CHECK(enough, "%s placed a job with %d hostable GPUs for %d", who, nhost,
             ns_job_gpus(job));
    check_valid(w, job, p, who);
    int n = ns_job_gpus(job);
    if (policy == 1 || (policy == 5 && ns_job_model_bytes(job) < skew))
      expect_set(p, want, n, who);
    if (policy == 2 || (policy == 0 && n <= kappa)) {
      oracle(w, job, 1, want);
      expect_set(p, want, n, who);
    }
    if (policy == 4)
      FZ_CHECK(ns_placement_server_count(p) == min_servers(w, job), "best-fit: %d servers, min %d",
               ns_placement_server_count(p), min_servers(w, job));
    FZ_CHECK(ns_cluster_commit(w->c, job, p) == NS_OK, "%s: commit failed", who);
  }
  ns_delay_tuner_free(t);
  ns_placement_free(p);
  ns_placement_free(q);
  if (w->njobs < MAXJOBS)
    w->jobs[w->njobs++] = job;
  else {
    ns_cluster_release(w->c, job);
    ns_job_free(job);
  }
}

static void mutate(fz *f, world *w) {
  int g = (int)fz_range(f, 0, w->ngpus - 1);
  switch (fz_range(f, 0, 2)) {
  case 0:
    if (ns_cluster_gpu_is_free(w->c, g))
      ns_cluster_occupy(w->c, &g, 1);
    else
      ns_cluster_vacate(w->c, &g, 1);
    break;
  case 1: ns_cluster_set_gpu_workload_ms(w->c, g, (double)fz_range(f, 0, 4) * 100); break;
  default:
    if (w->njobs > 0)
      ns_cluster_release(w->c, w->jobs[fz_range(f, 0, w->njobs - 1)]);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz f = {data, size};
  world w = {0};
  int L = (int)fz_range(&f, 1, 3), S = (int)fz_range(&f, 0, 2), SPL = (int)fz_range(&f, 1, 4);
  w.gps = (int)fz_range(&f, 1, 8);
  w.c = ns_cluster_new_leaf_spine(L, S, SPL, w.gps, S ? 1 : 0, 100);
  FZ_CHECK(w.c != NULL, "cluster");
  w.ngpus = L * SPL * w.gps;
  w.nservers = L * SPL;
  w.sharing = (int)fz_range(&f, 0, 1);
  ns_cluster_set_gpu_sharing(w.c, w.sharing);
  ns_cluster_set_gpu_memory_mb(w.c, 1024.0 * (double)fz_range(&f, 1, 32));
  for (int steps = 0; !fz_done(&f) && steps < 64; steps++) {
    if (fz_range(&f, 0, 2) == 0)
      mutate(&f, &w);
    else
      call_policy(&f, &w);
  }
  ns_cluster_free(w.c);
  for (int j = 0; j < w.njobs; j++)
    ns_job_free(w.jobs[j]);
  return 0;
}
