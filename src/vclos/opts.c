/*
 * src/vclos/opts.c - ns_vclos_opts: which Stage-2 solver to use, the
 * CBC time limit and the Stage-2 sizing rule.
 */
#include <stdlib.h>

#include "vclos/internal.h"

ns_vclos_opts *ns_vclos_opts_new(void) {
  ns_vclos_opts *o = malloc(sizeof *o);
  if (o == NULL) {
    nsi_fail(NS_ENOMEM, "ns_vclos_opts_new: out of memory");
    return NULL;
  }
  o->use_milp = 0; /* exact search: same objective, orders of magnitude faster */
  o->time_limit_s = VC_DEFAULT_TIME_LIMIT_S;
  o->power_of_two = 0; /* the paper's sizing: s a multiple of T */
  return o;
}

void ns_vclos_opts_free(ns_vclos_opts *o) { free(o); }

int ns_vclos_opts_set_solver(ns_vclos_opts *o, int use_milp) {
  NSI_TRY(nsi_check_ptr(o, "ns_vclos_opts_set_solver", "o"));
  NSI_TRY(nsi_check_int(use_milp, 0, 1, "ns_vclos_opts_set_solver", "use_milp"));
  o->use_milp = use_milp;
  return NS_OK;
}

int ns_vclos_opts_set_time_limit_ms(ns_vclos_opts *o, double ms) {
  NSI_TRY(nsi_check_ptr(o, "ns_vclos_opts_set_time_limit_ms", "o"));
  NSI_TRY(nsi_check_finite_gt0(ms, "ns_vclos_opts_set_time_limit_ms", "ms"));
  o->time_limit_s = ms / 1000.0;
  return NS_OK;
}

int ns_vclos_opts_set_power_of_two(ns_vclos_opts *o, int enabled) {
  NSI_TRY(nsi_check_ptr(o, "ns_vclos_opts_set_power_of_two", "o"));
  NSI_TRY(nsi_check_int(enabled, 0, 1, "ns_vclos_opts_set_power_of_two", "enabled"));
  o->power_of_two = enabled;
  return NS_OK;
}
