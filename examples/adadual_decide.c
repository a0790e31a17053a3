/*
 * examples/adadual_decide.c - AdaDUAL (Wang et al., Algorithm 2): should a
 * ready all-reduce start now, sharing the network with a running one, or
 * wait for it? Also shows Eq. 5, Table I and fitting (a, b, eta) from
 * measurements. Uses only <netsched.h>.
 *
 *   cc adadual_decide.c $(pkg-config --cflags --libs netsched)
 */
#include <netsched.h>
#include <stdio.h>

#define MIB 1048576.0

static int fail(const char *what, int rc) {
  fprintf(stderr, "%s failed: %s (%s)\n", what, ns_strerror(rc), ns_last_error());
  return 1;
}

int main(void) {
  /* The authors' 10 GbE fit: b = 0.856 ms/MB, eta = 0.235 ms/MB (per byte here). */
  double b = 0.856 / MIB, eta = 0.235 / MIB;
  printf("threshold b/(2(b+eta)) = %.4f\n", ns_adadual_threshold(b, eta));

  /* Eq. 5: a 100 MB all-reduce alone, and with k-way contention. */
  for (int k = 1; k <= 3; k++)
    printf("100 MB all-reduce, k = %d: %.1f ms\n", k,
           ns_comm_time_ms(0.669, b, eta, k, 100 * 1048576ULL));

  /* A new 30 MB task; its two servers run one task each. */
  int tasks[2] = {1, 1};
  uint64_t left[2][2] = {{100 * 1048576ULL, 100 * 1048576ULL},  /* 100 MB left: 0.30 */
                         {100 * 1048576ULL, 60 * 1048576ULL}};  /* 60 MB left: 0.50 */
  for (int s = 0; s < 2; s++) {
    int start;
    int rc = ns_adadual_decide(b, eta, 30 * 1048576ULL, tasks, left[s], 2, &start);
    if (rc != NS_OK)
      return fail("ns_adadual_decide", rc);
    printf("new 30 MB vs %3.0f MB left on the busiest server: %s\n",
           (double)left[s][1] / MIB, start ? "start now" : "wait");
  }
  int two[2] = {2, 0}, start;
  int rc = ns_adadual_decide(b, eta, 1024, two, NULL, 2, &start);
  if (rc != NS_OK)
    return fail("ns_adadual_decide", rc);
  printf("a server already runs two tasks: %s\n", start ? "start now" : "wait");

  /* Table I: ring all-reduce over 8 nodes. */
  double a_ms, b_ms;
  rc = ns_allreduce_cost(NS_COLL_RING, 8, 0.05, 0.8 / MIB, 0.1 / MIB, &a_ms, &b_ms);
  if (rc != NS_OK)
    return fail("ns_allreduce_cost", rc);
  printf("ring, 8 nodes: a = %.2f ms, b = %.4f ms/MB\n", a_ms, b_ms * MIB);

  /* Fit (a, b, eta) from measured samples (10 GbE, HKBU dl-scheduling data). */
  int k[6] = {1, 2, 1, 2, 1, 2};
  uint64_t m[6] = {10485760, 10485760, 20971520, 20971520, 41943040, 41943040};
  double t[6] = {144.78, 252.98, 211.38, 573.04, 422.31, 1115.18};
  double fa, fb, feta, rms;
  rc = ns_contention_fit(k, m, t, 6, &fa, &fb, &feta, &rms);
  if (rc != NS_OK)
    return fail("ns_contention_fit", rc);
  printf("fit: a = %.1f ms, b = %.2f ms/MB, eta = %.2f ms/MB (rms %.1f ms) -> threshold %.3f\n",
         fa, fb * MIB, feta * MIB, rms, ns_adadual_threshold(fb, feta));
  return 0;
}
