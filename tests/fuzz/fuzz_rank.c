/*
 * tests/fuzz/fuzz_rank.c - CASSINI candidate ranking (Algorithm 2,
 * ns_cassini_rank) on random candidate sets: 0-5 candidates over 1-5 jobs and
 * 1-4 links, repeated and empty candidates, jobs whose phases do not tile,
 * links of one job, loops, NULL entries and n = 0, 1-3 threads.
 *
 * fuzz-requires: ns_cassini_rank ns_candidate_new ns_candidate_add ns_candidate_shift_ms
 *
 * Invariants (include/netsched/cassini.h):
 *  - the status is documented; a failure names ns_cassini_rank and leaves
 *    *best unchanged (and the scores too, unless NS_ELOOP, which sets all
 *    to NaN);
 *  - NULL entries, n = 0 or the same candidate twice are NS_EINVAL;
 *  - on success *best < n, scores[best] is finite, <= 1, the maximum of the
 *    finite scores, and the lowest index attaining it; a candidate without
 *    a link carrying two of its jobs scores exactly 1;
 *  - the best candidate answers ns_candidate_shift_ms for each of its jobs
 *    with a shift in [0, iteration); the others answer NS_ESTATE;
 *  - the result does not depend on the thread count, and a second call
 *    gives bit-identical scores (deterministic).
 */
#include "fuzz_util.h"

enum { MAXC = 5, MAXJ = 5, MAXL = 4 };

static ns_job *random_job(fz *f, int i, double *iter) {
  char name[16];
  snprintf(name, sizeof name, "j%d", i);
  ns_job *j = ns_job_new(name, 1);
  int it = (int)fz_range(f, 2, 400), left = it, k = (int)fz_range(f, 1, 4);
  ns_job_set_iteration_ms(j, it);
  for (int p = 0; p < k && left > 0; p++) {
    int d = p == k - 1 ? left : (int)fz_range(f, 1, left);
    ns_job_add_phase(j, d, (double)fz_range(f, 0, 60));
    left -= d;
  }
  if (fz_range(f, 0, 15) == 0) /* phases that do not tile the iteration */
    ns_job_add_phase(j, 1.0, 5.0);
  *iter = it;
  return j;
}

static int same_scores(const double *a, const double *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!(a[i] == b[i] || (isnan(a[i]) && isnan(b[i]))))
      return 0;
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz f = {data, size};
  int nj = (int)fz_range(&f, 1, MAXJ), nl = (int)fz_range(&f, 1, MAXL);
  int nc = (int)fz_range(&f, 0, MAXC);
  ns_job *jobs[MAXJ];
  double iter[MAXJ];
  ns_link *links[MAXL];
  for (int i = 0; i < nj; i++)
    jobs[i] = random_job(&f, i, &iter[i]);
  for (int l = 0; l < nl; l++)
    links[l] = ns_link_new("l", (double)fz_range(&f, 1, 100));
  ns_candidate *cands[MAXC + 1] = {0};
  int shared[MAXC] = {0}; /* does candidate c have a link with >= 2 jobs? */
  int member[MAXC][MAXJ] = {{0}};
  for (int c = 0; c < nc; c++) {
    cands[c] = ns_candidate_new();
    int per_link[MAXL] = {0}, pairs = (int)fz_range(&f, 0, 8);
    for (int p = 0; p < pairs; p++) {
      int j = (int)fz_range(&f, 0, nj - 1), l = (int)fz_range(&f, 0, nl - 1);
      int rc = ns_candidate_add(cands[c], jobs[j], links[l]);
      if (rc == NS_OK)
        per_link[l]++, member[c][j] = 1;
      else
        FZ_CHECK_FAILURE(rc, "ns_candidate_add"); /* a repeated pair */
    }
    for (int l = 0; l < nl; l++)
      shared[c] |= per_link[l] >= 2;
  }
  ns_cassini_opts *o = ns_cassini_opts_new();
  int threads = (int)fz_range(&f, 1, 3);
  ns_cassini_opts_set_threads(o, threads);
  ns_cassini_opts_set_angle_step_deg(o, fz_range(&f, 0, 1) ? 5.0 : 30.0);

  /* hostile argument shapes: n = 0, a NULL entry, a repeated candidate */
  size_t n = (size_t)nc;
  ns_candidate *saved[MAXC + 1]; /* what to free, whatever the array holds */
  memcpy(saved, cands, sizeof saved);
  int hostile = (int)fz_range(&f, 0, 7);
  if (hostile == 1 && nc > 0)
    cands[fz_range(&f, 0, nc - 1)] = NULL;
  if (hostile == 2 && nc >= 2)
    cands[1] = cands[0];
  int expect_einval = n == 0 || (hostile == 1 && nc > 0) || (hostile == 2 && nc >= 2);

  size_t best = 12345;
  double scores[MAXC], again[MAXC];
  for (int c = 0; c < MAXC; c++)
    scores[c] = again[c] = -7.0;
  int rc = ns_cassini_rank(cands, n, o, &best, scores);
  if (expect_einval)
    FZ_CHECK(rc == NS_EINVAL, "hostile shape %d (n %zu) -> %d", hostile, n, rc);
  if (rc < 0) {
    FZ_CHECK_FAILURE(rc, "ns_cassini_rank");
    FZ_CHECK(best == 12345, "best moved to %zu on failure %d", best, rc);
    for (size_t c = 0; c < n && c < MAXC; c++)
      FZ_CHECK(rc == NS_ELOOP ? isnan(scores[c]) : scores[c] == -7.0,
               "score %zu = %g after failure %d", c, scores[c], rc);
  } else {
    FZ_CHECK(best < n, "best %zu of %zu", best, n);
    double top = -INFINITY;
    size_t first = n;
    for (size_t c = 0; c < n; c++) {
      FZ_CHECK(isnan(scores[c]) || scores[c] <= 1 + 1e-9, "score %zu = %.17g", c, scores[c]);
      if (!shared[c])
        FZ_CHECK(scores[c] == 1.0, "candidate %zu shares no link but scores %.17g", c,
                 scores[c]);
      if (!isnan(scores[c]) && scores[c] > top)
        top = scores[c], first = c;
    }
    FZ_CHECK(isfinite(scores[best]) && scores[best] == top && best == first,
             "best %zu (%.17g) but the top is %zu (%.17g)", best, scores[best], first, top);
    for (int j = 0; j < nj; j++) {
      double sh = -1;
      int q = ns_candidate_shift_ms(cands[best], jobs[j], &sh);
      if (member[best][j])
        FZ_CHECK(q == NS_OK && sh >= 0 && sh < iter[j], "job %d shift %g (%d)", j, sh, q);
      else
        FZ_CHECK(q == NS_ENOTFOUND, "job %d not in the best candidate: %d", j, q);
      for (size_t c = 0; c < n; c++)
        if (c != best && member[c][j])
          FZ_CHECK(ns_candidate_shift_ms(cands[c], jobs[j], &sh) == NS_ESTATE,
                   "candidate %zu is not the best but answers", c);
    }
    /* the same on another thread count, and again */
    ns_cassini_opts_set_threads(o, threads == 1 ? 3 : 1);
    size_t best2 = 999;
    FZ_CHECK(ns_cassini_rank(cands, n, o, &best2, again) == NS_OK, "second call failed");
    FZ_CHECK(best2 == best && same_scores(scores, again, n), "threads %d vs %d differ", threads,
             threads == 1 ? 3 : 1);
  }
  for (int c = 0; c < nc; c++)
    ns_candidate_free(saved[c]);
  ns_cassini_opts_free(o);
  for (int l = 0; l < nl; l++)
    ns_link_free(links[l]);
  for (int i = 0; i < nj; i++)
    ns_job_free(jobs[i]);
  return 0;
}
