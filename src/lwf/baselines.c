/*
 * src/lwf/baselines.c - the placements LWF-kappa is compared against in
 * Sec. IV-A / V: First-Fit (FF), List-Scheduling (LS) and random (RAND).
 *
 * "FF chooses the first n available GPUs in order, while LS chooses the
 * top-n GPUs with the least workload" (Sec. IV-A). "Available" is the same
 * test as Algorithm 1's: the GPU can host the job now (free, or in sharing
 * mode with enough free memory). LS ties go to the lowest GPU id; LS is
 * LWF-kappa's line-5 branch applied to every job.
 *
 * RAND draws a uniformly random n-subset of the hostable GPUs by a partial
 * Fisher-Yates shuffle driven by xoshiro256** seeded through splitmix64
 * (D. Blackman, S. Vigna, public-domain reference generators), with
 * Lemire's unbiased bounded integers. The generator lives on the stack of
 * each call: the same seed and cluster state always give the same GPUs, on
 * every platform, and no state is shared between threads.
 */
#include <stdlib.h>

#include "lwf/order.h"
#include "lwf/placement.h"

typedef struct rng {
  uint64_t s[4];
} rng;

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static void rng_seed(rng *r, uint64_t seed) {
  for (int i = 0; i < 4; i++)
    r->s[i] = nsi_splitmix64(&seed); /* never all zero */
}

static uint64_t rng_next(rng *r) { /* xoshiro256** */
  uint64_t *s = r->s, result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

/* Uniform in [0, bound), bound >= 1 (Lemire 2019, rejection keeps it exact). */
static uint32_t rng_below(rng *r, uint32_t bound) {
  uint64_t m = (rng_next(r) >> 32) * (uint64_t)bound;
  uint32_t low = (uint32_t)m;
  if (low < bound) {
    uint32_t threshold = (uint32_t)(-bound) % bound;
    while (low < threshold) {
      m = (rng_next(r) >> 32) * (uint64_t)bound;
      low = (uint32_t)m;
    }
  }
  return (uint32_t)(m >> 32);
}

/* The common start of every baseline: validate the arguments, refuse a job
   that can never fit the cluster (NS_EINVAL, core.h), and allocate scratch for c->ngpus
   candidates plus `per_gpu` ints per GPU the job asks for in *buf. NS_OK,
   or the status to return. */
static int begin(const ns_cluster *c, const ns_job *job, ns_placement *out, int per_gpu,
                 const char *fn, int **buf) {
  NSI_TRY(lwfi_check_args(c, job, out, fn));
  if (job->gpus > c->ngpus)
    return lwfi_no_space(c, out, job, c->ngpus, fn);
  *buf = malloc(((size_t)c->ngpus + (size_t)per_gpu * (size_t)job->gpus) * sizeof **buf);
  if (*buf == NULL)
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  return NS_OK;
}

int ns_place_first_fit(const ns_cluster *c, const ns_job *job, ns_placement *out) {
  static const char *fn = "ns_place_first_fit";
  int *ids;
  NSI_TRY(begin(c, job, out, 0, fn, &ids));
  int m = 0;
  for (int g = 0; g < c->ngpus && m < job->gpus; g++)
    if (nsi_gpu_can_host(c, g, job->mem_mb))
      ids[m++] = g;
  int rc = m == job->gpus ? lwfi_emit(c, out, ids, m) : lwfi_no_space(c, out, job, m, fn);
  free(ids);
  return rc;
}

int ns_place_list_scheduling(const ns_cluster *c, const ns_job *job, ns_placement *out) {
  static const char *fn = "ns_place_list_scheduling";
  int *buf;
  NSI_TRY(begin(c, job, out, 2, fn, &buf)); /* candidates, heap, chosen */
  int n = job->gpus;
  int *heap = buf + c->ngpus, *chosen = heap + n;
  int m = lwfi_hostable_gpus(c, job, buf);
  int rc;
  if (m >= n) {
    lwfi_select_least(c->workload_ms, buf, m, n, heap, chosen);
    rc = lwfi_emit(c, out, chosen, n);
  } else {
    rc = lwfi_no_space(c, out, job, m, fn);
  }
  free(buf);
  return rc;
}

int ns_place_random(const ns_cluster *c, const ns_job *job, uint64_t seed, ns_placement *out) {
  static const char *fn = "ns_place_random";
  int *ids;
  NSI_TRY(begin(c, job, out, 0, fn, &ids));
  int m = lwfi_hostable_gpus(c, job, ids), rc;
  if (m >= job->gpus) {
    rng r;
    rng_seed(&r, seed);
    for (int i = 0; i < job->gpus; i++) { /* partial Fisher-Yates */
      int j = i + (int)rng_below(&r, (uint32_t)(m - i));
      int t = ids[i];
      ids[i] = ids[j];
      ids[j] = t;
    }
    rc = lwfi_emit(c, out, ids, job->gpus);
  } else {
    rc = lwfi_no_space(c, out, job, m, fn);
  }
  free(ids);
  return rc;
}
