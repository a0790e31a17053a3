/*
 * bench/bench_util.h - the timing and statistics every benchmark shares:
 * wall and thread-CPU clocks, and median / p99 / max of a sample (quantiles
 * by nearest rank on the sorted sample, index round(q * (n - 1))).
 * Header-only so each bench program stays one file plus this.
 */
#ifndef NS_BENCH_UTIL_H
#define NS_BENCH_UTIL_H

#include <stddef.h>
#include <stdlib.h>
#include <time.h>

static inline double bench_clock_ms(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
/* Wall clock in ms / µs. */
static inline double bench_now_ms(void) { return bench_clock_ms(CLOCK_MONOTONIC); }
static inline double bench_now_us(void) { return 1e3 * bench_clock_ms(CLOCK_MONOTONIC); }
/* CPU time of the calling thread in ms: on a shared, loaded machine the wall
   clock includes time the thread spent preempted. */
static inline double bench_cpu_ms(void) { return bench_clock_ms(CLOCK_THREAD_CPUTIME_ID); }

static inline int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* q-quantile of v[0..n) (n >= 1); sorts v in place. */
static inline double bench_quantile(double *v, size_t n, double q) {
  qsort(v, n, sizeof *v, bench_cmp_double);
  return v[(size_t)(q * (double)(n - 1) + 0.5)];
}

typedef struct bench_stats {
  double median, p99, max;
} bench_stats;

/* Median, p99 and max of v[0..n) (n >= 1); sorts v in place. */
static inline bench_stats bench_summarize(double *v, size_t n) {
  qsort(v, n, sizeof *v, bench_cmp_double);
  bench_stats s = {v[n / 2], v[(size_t)(0.99 * (double)(n - 1) + 0.5)], v[n - 1]};
  return s;
}

#endif
