/*
 * tests/abi/abi_test.h - shared pieces of the Check (fork-mode) robustness
 * suites. Each tests/abi/test_*.c builds its own runner with NS_ABI_MAIN and
 * links the shared library, so it sees exactly what consumers see.
 */
#ifndef NS_ABI_TEST_H
#define NS_ABI_TEST_H

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "netsched.h"

/* `call` returns `status`, and ns_last_error() is non-empty and names
   `arg` (the offending argument). */
#define ck_assert_fails(call, status, arg)                                                \
  do {                                                                                    \
    int abi_rc_ = (int)(call);                                                            \
    ck_assert_msg(abi_rc_ == (status), "%s returned %d, expected %d (%s)", #call, abi_rc_, \
                  (int)(status), ns_last_error());                                        \
    ck_assert_msg(ns_last_error()[0] != '\0', "%s: empty ns_last_error()", #call);        \
    ck_assert_msg(strstr(ns_last_error(), (arg)) != NULL,                                 \
                  "%s: last error '%s' does not name '%s'", #call, ns_last_error(), (arg)); \
  } while (0)

/* A constructor returned NULL and named `arg`. */
#define ck_assert_null_names(expr, arg)                                                   \
  do {                                                                                    \
    const void *abi_p_ = (expr);                                                          \
    ck_assert_msg(abi_p_ == NULL, "%s should fail", #expr);                              \
    ck_assert_msg(strstr(ns_last_error(), (arg)) != NULL,                                 \
                  "%s: last error '%s' does not name '%s'", #expr, ns_last_error(), (arg)); \
  } while (0)

/* Runs one suite in fork mode (each test in its own process, so a crash is
   a failure, not the end of the run) and prints Check's summary line. */
#define NS_ABI_MAIN(suite_fn)                                      \
  int main(void) {                                                 \
    SRunner *sr = srunner_create(suite_fn());                      \
    srunner_set_fork_status(sr, CK_FORK);                          \
    srunner_run_all(sr, CK_NORMAL);                                \
    int failed = srunner_ntests_failed(sr);                        \
    srunner_free(sr);                                              \
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;              \
  }

#endif
