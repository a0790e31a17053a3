/*
 * tests/abi/test_adadual_abi.c - misuse of every AdaDUAL / contention-model
 * function (include/netsched/adadual.h) returns the documented status (or
 * NAN) with a message naming the offending argument, and never crashes.
 */
#include "abi_test.h"

#define MIB 1048576.0

/* A double-returning call gave NAN and named `arg`. */
#define ck_assert_nan_names(expr, arg)                                                    \
  do {                                                                                    \
    double abi_v_ = (expr);                                                               \
    ck_assert_msg(isnan(abi_v_), "%s returned %g, expected NAN", #expr, abi_v_);          \
    ck_assert_msg(strstr(ns_last_error(), (arg)) != NULL,                                 \
                  "%s: last error '%s' does not name '%s'", #expr, ns_last_error(), (arg)); \
  } while (0)

START_TEST(test_comm_time_ms) {
  ck_assert_nan_names(ns_comm_time_ms(NAN, 1e-6, 1e-7, 2, 100), "a_ms");
  ck_assert_nan_names(ns_comm_time_ms(-1, 1e-6, 1e-7, 2, 100), "a_ms");
  ck_assert_nan_names(ns_comm_time_ms(0, INFINITY, 1e-7, 2, 100), "b_ms_per_byte");
  ck_assert_nan_names(ns_comm_time_ms(0, -1e-6, 1e-7, 2, 100), "b_ms_per_byte");
  ck_assert_nan_names(ns_comm_time_ms(0, 1e-6, NAN, 2, 100), "eta_ms_per_byte");
  ck_assert_nan_names(ns_comm_time_ms(0, 1e-6, -INFINITY, 2, 100), "eta_ms_per_byte");
  ck_assert_nan_names(ns_comm_time_ms(0, 1e-6, 1e-7, 0, 100), "k");
  ck_assert_nan_names(ns_comm_time_ms(0, 1e-6, 1e-7, -5, 100), "k");
  ck_assert_nan_names(ns_comm_time_ms(0, 1e300, 1e300, 1 << 30, UINT64_MAX), "overflows");
  ck_assert(isfinite(ns_comm_time_ms(0, 1e-6, 1e-7, 1 << 30, UINT64_MAX)));
}
END_TEST

START_TEST(test_adadual_threshold) {
  ck_assert_nan_names(ns_adadual_threshold(0, 0.1), "b_ms_per_byte");
  ck_assert_nan_names(ns_adadual_threshold(NAN, 0.1), "b_ms_per_byte");
  ck_assert_nan_names(ns_adadual_threshold(-1, 0.1), "b_ms_per_byte");
  ck_assert_nan_names(ns_adadual_threshold(1, NAN), "eta_ms_per_byte");
  ck_assert_nan_names(ns_adadual_threshold(1, -1), "eta_ms_per_byte");
  ck_assert_nan_names(ns_adadual_threshold(1, INFINITY), "eta_ms_per_byte");
}
END_TEST

START_TEST(test_adadual_decide) {
  double b = 0.856 / MIB, eta = 0.235 / MIB;
  int tasks[2] = {1, 0}, neg[2] = {0, -1}, start = 9;
  uint64_t rem[2] = {1000, 0}, bad0[2] = {1000, 1}, zero[2] = {0, 0};
  ck_assert_fails(ns_adadual_decide(NAN, eta, 1, tasks, rem, 2, &start), NS_EINVAL, "b_ms_per_byte");
  ck_assert_fails(ns_adadual_decide(0, eta, 1, tasks, rem, 2, &start), NS_EINVAL, "b_ms_per_byte");
  ck_assert_fails(ns_adadual_decide(-b, eta, 1, tasks, rem, 2, &start), NS_EINVAL, "b_ms_per_byte");
  ck_assert_fails(ns_adadual_decide(INFINITY, eta, 1, tasks, rem, 2, &start), NS_EINVAL,
                  "b_ms_per_byte");
  ck_assert_fails(ns_adadual_decide(b, NAN, 1, tasks, rem, 2, &start), NS_EINVAL, "eta_ms_per_byte");
  ck_assert_fails(ns_adadual_decide(b, -eta, 1, tasks, rem, 2, &start), NS_EINVAL, "eta_ms_per_byte");
  ck_assert_fails(ns_adadual_decide(b, eta, 1, NULL, rem, 2, &start), NS_EINVAL, "tasks_per_server");
  ck_assert_fails(ns_adadual_decide(b, eta, 1, tasks, rem, 2, NULL), NS_EINVAL, "start");
  ck_assert_fails(ns_adadual_decide(b, eta, 1, tasks, rem, 0, &start), NS_EINVAL, "nservers");
  ck_assert_fails(ns_adadual_decide(b, eta, 1, neg, zero, 2, &start), NS_EINVAL,
                  "tasks_per_server[1]");
  ck_assert_fails(ns_adadual_decide(b, eta, 1, tasks, NULL, 2, &start), NS_EINVAL, "remaining_bytes");
  ck_assert_fails(ns_adadual_decide(b, eta, 1, tasks, bad0, 2, &start), NS_EINVAL,
                  "remaining_bytes[1]");
  ck_assert_fails(ns_adadual_decide(b, eta, 1, tasks, zero, 2, &start), NS_EINVAL,
                  "remaining_bytes[0]");
  ck_assert_int_eq(start, 9);
  ck_assert_int_eq(ns_adadual_decide(b, eta, UINT64_MAX, tasks, rem, 2, &start), NS_OK);
  ck_assert_int_eq(start, 0);
  int many[1] = {1 << 30};
  ck_assert_int_eq(ns_adadual_decide(b, eta, 0, many, NULL, 1, &start), NS_OK);
  ck_assert_int_eq(start, 0);
}
END_TEST

START_TEST(test_allreduce_cost) {
  double a = 0, b = 0;
  ck_assert_fails(ns_allreduce_cost((ns_collective)-1, 4, 1, 1, 1, &a, &b), NS_EINVAL, "c must");
  ck_assert_fails(ns_allreduce_cost((ns_collective)99, 4, 1, 1, 1, &a, &b), NS_EINVAL, "c must");
  ck_assert_fails(ns_allreduce_cost(NS_COLL_ALL_TO_ALL, 4, 1, 1, 1, &a, &b), NS_EUNSUPPORTED,
                  "all-to-all");
  ck_assert_fails(ns_allreduce_cost(NS_COLL_RING, 0, 1, 1, 1, &a, &b), NS_EINVAL, "nodes");
  ck_assert_fails(ns_allreduce_cost(NS_COLL_RING, -4, 1, 1, 1, &a, &b), NS_EINVAL, "nodes");
  ck_assert_fails(ns_allreduce_cost(NS_COLL_TREE, 12, 1, 1, 1, &a, &b), NS_EINVAL, "nodes");
  ck_assert_fails(ns_allreduce_cost(NS_COLL_RING, 4, NAN, 1, 1, &a, &b), NS_EINVAL, "alpha_ms");
  ck_assert_fails(ns_allreduce_cost(NS_COLL_RING, 4, -1, 1, 1, &a, &b), NS_EINVAL, "alpha_ms");
  ck_assert_fails(ns_allreduce_cost(NS_COLL_RING, 4, 1, INFINITY, 1, &a, &b), NS_EINVAL,
                  "beta_ms_per_byte");
  ck_assert_fails(ns_allreduce_cost(NS_COLL_RING, 4, 1, 1, -1, &a, &b), NS_EINVAL,
                  "gamma_ms_per_byte");
  ck_assert_fails(ns_allreduce_cost(NS_COLL_RING, 4, 1, 1, 1, NULL, &b), NS_EINVAL, "a_ms");
  ck_assert_fails(ns_allreduce_cost(NS_COLL_RING, 4, 1, 1, 1, &a, NULL), NS_EINVAL,
                  "b_ms_per_byte");
  ck_assert_fails(ns_allreduce_cost(NS_COLL_RING, 4, 1e308, 1, 1, &a, &b), NS_ERANGE, "overflows");
}
END_TEST

START_TEST(test_allreduce_algo_cost) {
  double a = 0, b = 0;
  ck_assert_fails(ns_allreduce_algo_cost((ns_allreduce_algo)-1, 4, 1, 1, 1, &a, &b), NS_EINVAL,
                  "algo");
  ck_assert_fails(ns_allreduce_algo_cost((ns_allreduce_algo)4, 4, 1, 1, 1, &a, &b), NS_EINVAL,
                  "algo");
  ck_assert_fails(ns_allreduce_algo_cost(NS_AR_RECURSIVE_DOUBLING, 3, 1, 1, 1, &a, &b), NS_EINVAL,
                  "nodes");
  ck_assert_fails(ns_allreduce_algo_cost(NS_AR_RING, 4, 1, NAN, 1, &a, &b), NS_EINVAL,
                  "beta_ms_per_byte");
  ck_assert_fails(ns_allreduce_algo_cost(NS_AR_RING, 4, 1, 1, NAN, &a, &b), NS_EINVAL,
                  "gamma_ms_per_byte");
  ck_assert_fails(ns_allreduce_algo_cost(NS_AR_HALVING_DOUBLING, 4, 1, 1, 1, NULL, &b), NS_EINVAL,
                  "a_ms");
}
END_TEST

START_TEST(test_contention_fit) {
  int k[4] = {1, 2, 1, 2}, k0[4] = {1, 0, 1, 2}, k1[4] = {1, 1, 1, 1};
  uint64_t m[4] = {100, 100, 200, 200};
  double t[4] = {1, 2, 3, 4}, tn[4] = {1, -2, 3, 4}, a, b, eta, rms;
  ck_assert_fails(ns_contention_fit(NULL, m, t, 4, &a, &b, &eta, &rms), NS_EINVAL, "k is NULL");
  ck_assert_fails(ns_contention_fit(k, NULL, t, 4, &a, &b, &eta, &rms), NS_EINVAL, "bytes");
  ck_assert_fails(ns_contention_fit(k, m, NULL, 4, &a, &b, &eta, &rms), NS_EINVAL, "time_ms");
  ck_assert_fails(ns_contention_fit(k, m, t, 4, NULL, &b, &eta, &rms), NS_EINVAL, "a_ms");
  ck_assert_fails(ns_contention_fit(k, m, t, 4, &a, NULL, &eta, &rms), NS_EINVAL, "b_ms_per_byte");
  ck_assert_fails(ns_contention_fit(k, m, t, 4, &a, &b, NULL, &rms), NS_EINVAL, "eta_ms_per_byte");
  ck_assert_fails(ns_contention_fit(k, m, t, 4, &a, &b, &eta, NULL), NS_EINVAL, "rms_residual_ms");
  ck_assert_fails(ns_contention_fit(k, m, t, 0, &a, &b, &eta, &rms), NS_EINVAL, "n must");
  ck_assert_fails(ns_contention_fit(k, m, t, 2, &a, &b, &eta, &rms), NS_EINVAL, "n must");
  ck_assert_fails(ns_contention_fit(k, m, t, SIZE_MAX, &a, &b, &eta, &rms), NS_EINVAL, "n too large");
  ck_assert_fails(ns_contention_fit(k0, m, t, 4, &a, &b, &eta, &rms), NS_EINVAL, "k[1]");
  ck_assert_fails(ns_contention_fit(k, m, tn, 4, &a, &b, &eta, &rms), NS_EINVAL, "time_ms[1]");
  tn[1] = NAN;
  ck_assert_fails(ns_contention_fit(k, m, tn, 4, &a, &b, &eta, &rms), NS_EINVAL, "time_ms[1]");
  tn[1] = INFINITY;
  ck_assert_fails(ns_contention_fit(k, m, tn, 4, &a, &b, &eta, &rms), NS_EINVAL, "time_ms[1]");
  ck_assert_fails(ns_contention_fit(k1, m, t, 4, &a, &b, &eta, &rms), NS_EINVAL, "bytes");
  ck_assert_int_eq(ns_contention_fit(k, m, t, 4, &a, &b, &eta, &rms), NS_OK);
  ck_assert(isfinite(a) && isfinite(b) && isfinite(eta) && isfinite(rms));
  ck_assert(a >= 0 && b >= 0 && eta >= 0);
}
END_TEST

static Suite *adadual_suite(void) {
  Suite *s = suite_create("adadual-abi");
  TCase *tc = tcase_create("misuse");
  tcase_add_test(tc, test_comm_time_ms);
  tcase_add_test(tc, test_adadual_threshold);
  tcase_add_test(tc, test_adadual_decide);
  tcase_add_test(tc, test_allreduce_cost);
  tcase_add_test(tc, test_allreduce_algo_cost);
  tcase_add_test(tc, test_contention_fit);
  suite_add_tcase(s, tc);
  return s;
}

NS_ABI_MAIN(adadual_suite)
