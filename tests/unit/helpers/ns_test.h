/*
 * tests/unit/helpers/ns_test.h - shared includes and assertions for the
 * cmocka unit suites.
 */
#ifndef NS_TEST_H
#define NS_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka.h must follow the includes above */
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "netsched.h"

/* |a - b| <= tol, printing both values on failure. */
#define assert_near(a, b, tol)                                                            \
  do {                                                                                    \
    double ns_a_ = (a), ns_b_ = (b);                                                      \
    if (!(fabs(ns_a_ - ns_b_) <= (tol)))                                                  \
      fail_msg("%s = %.9g, expected %s = %.9g (tol %g)", #a, ns_a_, #b, ns_b_, (double)(tol)); \
  } while (0)

/* The call failed with `status` and ns_last_error() mentions `needle`. */
#define assert_fails_with(call, status, needle)                                           \
  do {                                                                                    \
    int ns_rc_ = (call);                                                                  \
    if (ns_rc_ != (status))                                                               \
      fail_msg("%s returned %d, expected %d (last error: %s)", #call, ns_rc_, (int)(status), \
               ns_last_error());                                                          \
    if (strstr(ns_last_error(), (needle)) == NULL)                                        \
      fail_msg("%s: last error '%s' does not mention '%s'", #call, ns_last_error(), (needle)); \
  } while (0)

/* Path of a file under ../shared/data (NS_DATA_DIR), or NULL if absent:
   tests skip with a message then. The buffer is static. */
const char *ns_test_data_path(const char *relative);

/* Simulator helpers shared by the test_sim* suites. */

/* The metric's value; fails the test if ns_sim_metric does. */
double ns_test_metric(const ns_sim *s, ns_sim_metric_id m);

/* Job `job`'s completion time (finish - arrival) in ms. */
double ns_test_jct_ms(const ns_sim *s, int job);

/* A placement callback that spreads a job one GPU per server, round robin,
   so that jobs share server NICs; NS_ENOSPACE (and an empty placement)
   when the free GPUs do not suffice. */
int ns_test_place_spread(const ns_cluster *c, const ns_job *job, ns_placement *out, void *user);

/* A placement callback for a 2-GPU job across leaves: the lowest free GPU
   of leaf 0 and of leaf 1; NS_ENOSPACE (and an empty placement) for any
   other job or when either leaf is full. */
int ns_test_place_cross(const ns_cluster *c, const ns_job *job, ns_placement *out, void *user);

/* Writes `text` to a fresh temporary file whose path is left in `path`
   (at least 64 bytes); the caller removes it. */
void ns_test_temp_file(char *path, const char *text);

#endif
