/*
 * tests/fuzz/fuzz_cassini.c - the CASSINI unified-circle optimizer (Table 1)
 * on random communication profiles sharing one link, with random options.
 *
 * fuzz-requires: ns_cassini_score ns_cassini_score_at ns_cassini_link_perimeter ns_cassini_opts_set_angle_step_deg
 *
 * Invariants (from the definition score = 1 - sum_a Excess(d_a) / (|A| C),
 * Excess(d) = max(0, d - C); include/netsched/cassini.h):
 *  - success gives a finite score <= 1 and >= 1 - sum_j mean_j / C (Excess
 *    never exceeds the demand, and a job's mean demand does not depend on its
 *    rotation); if the peaks sum to <= C the score is exactly 1;
 *  - shifts are finite, in [0, iteration + quantum) (Eq. 5 modulo the
 *    possibly rounded period);
 *  - the binned score is >= the exact continuous score at the same shifts
 *    (bins average demand and Excess is convex: Jensen) when no rounding
 *    happened (integer iterations, effective quantum 1 ms);
 *  - with <= 3 jobs (exhaustive search) the optimum is >= the continuous
 *    score with no shifts at all;
 *  - a second call gives bit-identical results (deterministic);
 *  - failures are documented statuses with a message, and leave the outputs
 *    untouched; nshifts < job count is NS_EINVAL;
 *  - option setters accept exactly their documented domain.
 */
#include "fuzz_util.h"

enum { MAXJ = 6, MAXPH = 6 };

typedef struct prof {
  double iter, peak, mean;
} prof;

static ns_job *random_job(fz *f, double cap, prof *pr) {
  ns_job *j = ns_job_new("cassini", 1);
  int iter = (int)fz_range(f, 2, fz_range(f, 0, 3) ? 300 : 2000);
  int k = (int)fz_range(f, 1, MAXPH), left = iter;
  double area = 0, peak = 0;
  ns_job_set_iteration_ms(j, iter);
  for (int i = 0; i < k && left > 0; i++) {
    int d = i == k - 1 ? left : (int)fz_range(f, 1, left);
    double g;
    switch (fz_range(f, 0, 4)) {
    case 0: g = 0; break;
    case 1: g = cap; break;
    case 2: g = cap / 2; break;
    default: g = 2 * cap * (double)fz_u8(f) / 255.0;
    }
    FZ_CHECK(ns_job_add_phase(j, d, g) == NS_OK, "phase %d %g", d, g);
    area += d * g;
    peak = fmax(peak, g);
    left -= d;
  }
  pr->iter = iter;
  pr->peak = peak;
  pr->mean = area / iter;
  return j;
}

static void set_options(fz *f, ns_cassini_opts *o) {
  static const double steps[] = {5, 5, 5, 10, 15, 30, 45, 90, 180, 2.5};
  static const double quanta[] = {1, 1, 1, 0.5, 2, 5};
  double deg = fz_range(f, 0, 7) ? steps[fz_range(f, 0, 9)] : fz_double(f, 0, 200);
  int ok = isfinite(deg) && deg > 0 && deg <= 180;
  int rc = ns_cassini_opts_set_angle_step_deg(o, deg);
  FZ_CHECK(ok ? rc == NS_OK : rc == NS_EINVAL, "angle step %g -> %d", deg, rc);
  if (!ok)
    FZ_CHECK_FAILURE(rc, "ns_cassini_opts_set_angle_step_deg");
  double q = fz_range(f, 0, 7) ? quanta[fz_range(f, 0, 5)] : fz_double(f, 0, 10);
  ok = isfinite(q) && q > 0 && q <= 1e15; /* every real argument <= 1e15 */
  rc = ns_cassini_opts_set_time_quantum_ms(o, q);
  FZ_CHECK(ok ? rc == NS_OK : rc == NS_EINVAL, "quantum %g -> %d", q, rc);
  if (!ok)
    FZ_CHECK_FAILURE(rc, "ns_cassini_opts_set_time_quantum_ms");
}

static void check_success(const ns_link *l, const ns_cassini_opts *o, const prof *pr, size_t n,
                          double score, const double *shifts) {
  double cap = ns_link_capacity_gbps(l), mean_sum = 0, peak_sum = 0;
  for (size_t i = 0; i < n; i++) {
    mean_sum += pr[i].mean;
    peak_sum += pr[i].peak;
  }
  FZ_CHECK(isfinite(score) && score <= 1 + 1e-9, "score %.17g", score);
  FZ_CHECK(score >= 1 - mean_sum / cap - 1e-9, "score %.17g below 1 - %g/%g", score, mean_sum,
           cap);
  if (peak_sum <= cap)
    FZ_CHECK(score >= 1 - 1e-9, "peaks %g fit in %g but score %.17g", peak_sum, cap, score);
  double perimeter, quantum;
  FZ_CHECK(ns_cassini_link_perimeter(l, o, &perimeter, &quantum) == NS_OK, "perimeter");
  FZ_CHECK(isfinite(perimeter) && perimeter > 0 && isfinite(quantum) && quantum > 0,
           "perimeter %g quantum %g", perimeter, quantum);
  for (size_t i = 0; i < n; i++)
    FZ_CHECK(isfinite(shifts[i]) && shifts[i] >= 0 && shifts[i] < pr[i].iter + quantum,
             "shift %zu = %.17g, iteration %g", i, shifts[i], pr[i].iter);
  if (quantum != 1.0)
    return; /* rounded periods: the continuous score uses other profiles */
  double exact;
  FZ_CHECK(ns_cassini_score_at(l, o, shifts, n, &exact) == NS_OK, "score_at");
  FZ_CHECK(exact <= score + 1e-9, "continuous %.17g > binned %.17g (Jensen)", exact, score);
  if (n <= 3) {
    double zeros[MAXJ] = {0}, unshifted;
    FZ_CHECK(ns_cassini_score_at(l, o, zeros, n, &unshifted) == NS_OK, "score_at 0");
    FZ_CHECK(score >= unshifted - 1e-9, "optimum %.17g < unshifted %.17g", score, unshifted);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz f = {data, size};
  static const double caps[] = {10, 25, 40, 50, 100};
  double cap = fz_range(&f, 0, 3) ? caps[fz_range(&f, 0, 4)] : 1 + (double)fz_range(&f, 0, 400);
  ns_link *l = ns_link_new("fz", cap);
  ns_cassini_opts *o = ns_cassini_opts_new();
  ns_job *jobs[MAXJ];
  prof pr[MAXJ];
  size_t n = (size_t)(fz_range(&f, 0, 7) ? fz_range(&f, 1, 3) : fz_range(&f, 1, MAXJ));
  for (size_t i = 0; i < n; i++) {
    jobs[i] = random_job(&f, cap, &pr[i]);
    FZ_CHECK(ns_link_add_job(l, jobs[i]) == NS_OK, "add");
  }
  set_options(&f, o);

  double score = -99, shifts[MAXJ + 1];
  for (size_t i = 0; i <= MAXJ; i++)
    shifts[i] = -77;
  if (fz_range(&f, 0, 7) == 0) { /* too small an output array */
    int rc = ns_cassini_score(l, o, &score, shifts, n - 1);
    FZ_CHECK(rc == NS_EINVAL, "nshifts %zu for %zu jobs -> %d", n - 1, n, rc);
    FZ_CHECK_FAILURE(rc, "ns_cassini_score");
    FZ_CHECK(score == -99 && shifts[0] == -77, "outputs written on failure");
  }
  int rc = ns_cassini_score(l, o, &score, shifts, n);
  if (rc == NS_OK) {
    FZ_CHECK(shifts[n] == -77, "wrote past nshifts");
    check_success(l, o, pr, n, score, shifts);
    double score2, shifts2[MAXJ];
    FZ_CHECK(ns_cassini_score(l, o, &score2, shifts2, n) == NS_OK, "second call");
    FZ_CHECK(memcmp(&score, &score2, sizeof score) == 0 &&
                 memcmp(shifts, shifts2, n * sizeof *shifts) == 0,
             "not deterministic: %.17g vs %.17g", score, score2);
  } else {
    FZ_CHECK(rc == NS_ERANGE || rc == NS_ENOMEM, "valid profiles rejected with %d", rc);
    FZ_CHECK_FAILURE(rc, "ns_cassini_score");
    FZ_CHECK(score == -99 && shifts[0] == -77, "outputs written on failure");
  }
  ns_cassini_opts_free(o);
  ns_link_free(l);
  for (size_t i = 0; i < n; i++)
    ns_job_free(jobs[i]);
  return 0;
}
