/*
 * src/adadual/decide.c - the contention cost model (Eq. 5) and AdaDUAL's
 * start-or-wait decision for a ready communication task (Algorithm 2).
 *
 * Paper: Wang, Shi, Wang, Chu, "Communication Contention Aware Scheduling of
 * Multiple Deep Learning Training Jobs", Sec. III-A.2 and IV-B.
 *
 * Readings of ambiguous passages:
 *  - Algorithm 2 collects C_old as the union of the task sets of the servers
 *    that raised max_task, then line 12 speaks of "the" remaining size M_old.
 *    When the new task's servers each hold one task but not the same one,
 *    we take the smallest remaining size: Theorem 2 must favour starting
 *    against each old task, and M_new/M_old < thr for every M_old iff it
 *    holds for the smallest (ALGORITHMS.md).
 *  - Line 13 is strict: at M_new/M_old == b/(2(b+eta)) Eq. 13 is an
 *    equality (both choices give the same mean completion time) and the
 *    task waits, which never adds contention for no gain.
 *  - Line 19 reads "more than two existing tasks" in the text but tests
 *    max_task > 1 in the pseudo-code; we follow the pseudo-code (>= 2 running
 *    tasks -> wait), which is the only reading that covers max_task == 2.
 *  - Eq. 5's k counts the concurrently running tasks including the one being
 *    timed, so k = 1 is Eq. 2. a, b, eta are taken as >= 0 (physical times).
 */
#include <math.h>

#include "core/internal.h"

/* Eq. 5: a + k*b*M + (k-1)*eta*M. */
double ns_comm_time_ms(double a_ms, double b_ms_per_byte, double eta_ms_per_byte, int k,
                       uint64_t bytes) {
  static const char *fn = "ns_comm_time_ms";
  if (nsi_check_real_ge0(a_ms, fn, "a_ms") < 0 ||
      nsi_check_real_ge0(b_ms_per_byte, fn, "b_ms_per_byte") < 0 ||
      nsi_check_real_ge0(eta_ms_per_byte, fn, "eta_ms_per_byte") < 0)
    return NAN;
  if (k < 1) {
    nsi_fail(NS_EINVAL, "%s: k must be >= 1 (got %d)", fn, k);
    return NAN;
  }
  double m = (double)bytes;
  double t = a_ms + (double)k * b_ms_per_byte * m + (double)(k - 1) * eta_ms_per_byte * m;
  if (!isfinite(t)) {
    nsi_fail(NS_ERANGE, "%s: result overflows (k = %d, bytes = %llu)", fn, k,
             (unsigned long long)bytes);
    return NAN;
  }
  return t;
}

static int check_b_eta(double b, double eta, const char *fn) {
  NSI_TRY(nsi_check_finite_gt0(b, fn, "b_ms_per_byte"));
  NSI_TRY(nsi_check_finite_ge0(eta, fn, "eta_ms_per_byte"));
  return NS_OK;
}

/* Eq. 13: M_new/M_old below this favours starting now (Theorem 2). */
static double threshold(double b, double eta) { return b / (2.0 * (b + eta)); }

double ns_adadual_threshold(double b_ms_per_byte, double eta_ms_per_byte) {
  if (check_b_eta(b_ms_per_byte, eta_ms_per_byte, "ns_adadual_threshold") < 0)
    return NAN;
  return threshold(b_ms_per_byte, eta_ms_per_byte);
}

/* Validates the per-server arrays. On success *max_tasks is line 2-7's
   max_task and *m_old the smallest remaining size among servers holding
   exactly one task (0 if none). */
static int scan_servers(const int *tasks, const uint64_t *remaining, size_t n, int *max_tasks,
                        uint64_t *m_old) {
  static const char *fn = "ns_adadual_decide";
  int mx = 0;
  uint64_t best = 0;
  for (size_t i = 0; i < n; i++) {
    if (tasks[i] < 0)
      return nsi_fail(NS_EINVAL, "%s: tasks_per_server[%zu] must be >= 0 (got %d)", fn, i,
                      tasks[i]);
    if (tasks[i] > 1) {
      mx = tasks[i] > mx ? tasks[i] : mx; /* Alg. 2 lines 3-4 */
      continue;
    }
    if (remaining == NULL) {
      if (tasks[i] == 1)
        return nsi_fail(NS_EINVAL, "%s: remaining_bytes is NULL but tasks_per_server[%zu] = 1",
                        fn, i);
      continue;
    }
    uint64_t r = remaining[i];
    if (tasks[i] == 0 && r != 0)
      return nsi_fail(NS_EINVAL,
                      "%s: remaining_bytes[%zu] = %llu but tasks_per_server[%zu] = 0 "
                      "(inconsistent arrays)",
                      fn, i, (unsigned long long)r, i);
    if (tasks[i] == 1 && r == 0)
      return nsi_fail(NS_EINVAL,
                      "%s: remaining_bytes[%zu] must be > 0 where tasks_per_server[%zu] = 1", fn,
                      i, i);
    if (tasks[i] == 1) {
      mx = mx > 1 ? mx : 1;
      best = (best == 0 || r < best) ? r : best; /* M_old rule (ALGORITHMS.md) */
    }
  }
  *max_tasks = mx;
  *m_old = best;
  return NS_OK;
}

int ns_adadual_decide(double b_ms_per_byte, double eta_ms_per_byte, uint64_t new_bytes,
                      const int *tasks_per_server, const uint64_t *remaining_bytes,
                      size_t nservers, int *start) {
  static const char *fn = "ns_adadual_decide";
  NSI_TRY(check_b_eta(b_ms_per_byte, eta_ms_per_byte, fn));
  NSI_TRY(nsi_check_ptr(tasks_per_server, fn, "tasks_per_server"));
  NSI_TRY(nsi_check_ptr(start, fn, "start"));
  if (nservers == 0)
    return nsi_fail(NS_EINVAL, "%s: nservers must be >= 1 (got 0)", fn);
  int max_tasks = 0;
  uint64_t m_old = 0;
  NSI_TRY(scan_servers(tasks_per_server, remaining_bytes, nservers, &max_tasks, &m_old));
  if (max_tasks == 0) {
    *start = 1; /* Alg. 2 lines 8-10: no contention */
  } else if (max_tasks == 1) {
    /* Alg. 2 lines 11-17, Theorems 1-2: a new task at least as large as the
       old one's rest always waits (ratio >= 1 > threshold). */
    double ratio = (double)new_bytes / (double)m_old;
    *start = ratio < threshold(b_ms_per_byte, eta_ms_per_byte);
  } else {
    *start = 0; /* Alg. 2 lines 19-21: never join k >= 2 contention */
  }
  return NS_OK;
}
