/*
 * tests/fuzz/fuzz_util.h - shared pieces of the libFuzzer targets: a reader
 * that decodes the fuzzer's bytes into bounded values (every read succeeds;
 * past the end it yields zeros, so any input is a valid program), an
 * invariant check that aborts with a message (libFuzzer then saves the
 * input as a reproducer), and a snapshot of a cluster's observable state
 * taken through the public API only, to prove that failed calls and
 * policy decisions change nothing.
 */
#ifndef NS_FUZZ_UTIL_H
#define NS_FUZZ_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netsched.h"

/* ---- invariants ---------------------------------------------------------- */

#define FZ_CHECK(cond, ...)                                                       \
  do {                                                                            \
    if (!(cond)) {                                                                \
      fprintf(stderr, "%s:%d: invariant failed: %s\n  ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                               \
      fprintf(stderr, "\n  ns_last_error: %s\n", ns_last_error());                \
      abort();                                                                    \
    }                                                                             \
  } while (0)

/* A failed call returned a documented status and left a message naming the
   function. */
#define FZ_CHECK_FAILURE(rc, fn)                                                  \
  do {                                                                            \
    int fz_rc_ = (rc);                                                            \
    FZ_CHECK(fz_rc_ <= NS_EINVAL && fz_rc_ >= NS_EUNSUPPORTED, "%s: status %d", (fn), fz_rc_); \
    FZ_CHECK(strstr(ns_last_error(), (fn)) != NULL, "%s: message does not name it", (fn)); \
  } while (0)

/* ---- byte reader --------------------------------------------------------- */

typedef struct fz {
  const uint8_t *p;
  size_t n;
} fz;

static inline uint8_t fz_u8(fz *f) {
  if (f->n == 0)
    return 0;
  f->n--;
  return *f->p++;
}

static inline uint32_t fz_u32(fz *f) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++)
    v = (v << 8) | fz_u8(f);
  return v;
}

/* Uniform-ish integer in [lo, hi] (hi - lo < 2^32). */
static inline long long fz_range(fz *f, long long lo, long long hi) {
  unsigned long long span = (unsigned long long)(hi - lo) + 1;
  uint32_t raw = span <= 256 ? fz_u8(f) : fz_u32(f);
  return lo + (long long)(raw % span);
}

/* Any double, including NaN, infinities, negatives, denormals. */
static inline double fz_raw_double(fz *f) {
  uint64_t bits = ((uint64_t)fz_u32(f) << 32) | fz_u32(f);
  double d;
  memcpy(&d, &bits, sizeof d);
  return d;
}

/* Mostly well-formed doubles, sometimes hostile ones: the mix that reaches
   both the validation and the algorithms. */
static inline double fz_double(fz *f, double lo, double hi) {
  switch (fz_u8(f) % 16) {
  case 0: return NAN;
  case 1: return INFINITY;
  case 2: return -INFINITY;
  case 3: return -1.0;
  case 4: return 0.0;
  case 5: return fz_raw_double(f);
  case 6: return 1e300;
  case 7: return 4.9e-324;
  default: return lo + (hi - lo) * (double)fz_u32(f) / 4294967295.0;
  }
}

static inline int fz_done(const fz *f) { return f->n == 0; }

/* ---- cluster snapshot (public API only) --------------------------------- */

typedef struct fz_snap {
  int ngpus, njobs_total, nlinks_total, free_total;
  int *jobs_on_gpu, *is_free;
  double *free_mem, *workload;
  unsigned char *link_reserved; /* leaf-major, spine, k */
} fz_snap;

static inline int fz_snap_take(const ns_cluster *c, fz_snap *s) {
  memset(s, 0, sizeof *s);
  s->ngpus = ns_cluster_gpu_count(c);
  int L = ns_cluster_leaf_count(c), S = ns_cluster_spine_count(c);
  int K = ns_cluster_links_per_pair(c);
  /* With an OCS layer the static link queries fail (NS_EUNSUPPORTED) and
     would overwrite ns_last_error(): every call here must succeed. */
  s->nlinks_total = S > 0 && ns_cluster_ocs_count(c) == 0 ? L * S * K : 0;
  s->njobs_total = ns_cluster_job_count(c);
  s->free_total = ns_cluster_free_gpu_count(c);
  s->jobs_on_gpu = calloc((size_t)s->ngpus, sizeof *s->jobs_on_gpu);
  s->is_free = calloc((size_t)s->ngpus, sizeof *s->is_free);
  s->free_mem = calloc((size_t)s->ngpus, sizeof *s->free_mem);
  s->workload = calloc((size_t)s->ngpus, sizeof *s->workload);
  s->link_reserved = calloc((size_t)s->nlinks_total + 1, 1);
  if (!s->jobs_on_gpu || !s->is_free || !s->free_mem || !s->workload || !s->link_reserved)
    return -1;
  for (int g = 0; g < s->ngpus; g++) {
    s->jobs_on_gpu[g] = ns_cluster_gpu_job_count(c, g);
    s->is_free[g] = ns_cluster_gpu_is_free(c, g);
    s->free_mem[g] = ns_cluster_gpu_free_memory_mb(c, g);
    s->workload[g] = ns_cluster_gpu_workload_ms(c, g);
  }
  int i = 0;
  for (int l = 0; l < L && s->nlinks_total > 0; l++)
    for (int sp = 0; sp < S; sp++)
      for (int k = 0; k < K; k++)
        s->link_reserved[i++] = (unsigned char)ns_cluster_link_is_reserved(c, l, sp, k);
  return 0;
}

static inline void fz_snap_free(fz_snap *s) {
  free(s->jobs_on_gpu);
  free(s->is_free);
  free(s->free_mem);
  free(s->workload);
  free(s->link_reserved);
}

/* Aborts naming the first difference (bitwise for doubles: nothing may move). */
static inline void fz_snap_expect_equal(const fz_snap *a, const fz_snap *b, const char *after) {
  FZ_CHECK(a->ngpus == b->ngpus && a->njobs_total == b->njobs_total &&
               a->free_total == b->free_total,
           "after %s: gpus %d/%d, jobs %d/%d, free %d/%d", after, a->ngpus, b->ngpus,
           a->njobs_total, b->njobs_total, a->free_total, b->free_total);
  for (int g = 0; g < a->ngpus; g++) {
    FZ_CHECK(a->jobs_on_gpu[g] == b->jobs_on_gpu[g] && a->is_free[g] == b->is_free[g],
             "after %s: GPU %d jobs %d->%d free %d->%d", after, g, a->jobs_on_gpu[g],
             b->jobs_on_gpu[g], a->is_free[g], b->is_free[g]);
    FZ_CHECK(memcmp(&a->free_mem[g], &b->free_mem[g], sizeof(double)) == 0 &&
                 memcmp(&a->workload[g], &b->workload[g], sizeof(double)) == 0,
             "after %s: GPU %d memory %g->%g workload %g->%g", after, g, a->free_mem[g],
             b->free_mem[g], a->workload[g], b->workload[g]);
  }
  FZ_CHECK(memcmp(a->link_reserved, b->link_reserved, (size_t)a->nlinks_total) == 0,
           "after %s: link reservations changed", after);
}

#endif
