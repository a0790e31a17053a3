/*
 * src/policy/admit.c - the policy's communication admission (ns_policy_admit):
 * may one all-reduce start now, given what the caller sees in flight around
 * it. SRSF(n) (LWF-kappa paper §IV): it starts only while fewer than n
 * other all-reduces are in flight on each of its links. AdaDUAL (Algorithm
 * 2): ns_adadual_decide on the job's servers with Eq. 5's b and eta. The
 * simulator calls it at every all-reduce start of a job that shares links
 * (the phase model) or at every start (the fluid models' AdaDUAL mode); a
 * batch cluster manager cannot enforce it and does not call it.
 */
#include <math.h>

#include "core/internal.h"
#include "policy/policy_internal.h"

typedef struct nsp_admit_in {
  uint64_t bytes;
  const int *others;
  size_t nlinks;
  const int *tasks;
  const uint64_t *rem;
  size_t nservers;
  double b, eta;
} nsp_admit_in;

static int admit_all(const ns_policy *p, const nsp_admit_in *in, int *start) {
  (void)p, (void)in;
  *start = 1;
  return NS_OK;
}

static int admit_srsf(const ns_policy *p, const nsp_admit_in *in, int *start) {
  *start = 1;
  for (size_t i = 0; i < in->nlinks && *start; i++)
    *start = in->others[i] < p->admit_n;
  return NS_OK;
}

static int admit_adadual(const ns_policy *p, const nsp_admit_in *in, int *start) {
  (void)p;
  int rc = ns_adadual_decide(in->b, in->eta, in->bytes ? in->bytes : 1, in->tasks, in->rem,
                             in->nservers, start);
  if (rc < 0 && rc != NS_EUNSUPPORTED)
    return nsi_fail(rc, "ns_policy_admit: %s", ns_last_error());
  return rc;
}

static int (*const admit_fns[])(const ns_policy *, const nsp_admit_in *, int *) = {
    [NS_POLICY_ADMIT_ALL] = admit_all, [NS_POLICY_ADMIT_SRSF] = admit_srsf,
    [NS_POLICY_ADMIT_ADADUAL] = admit_adadual};

int ns_policy_admit(const ns_policy *p, uint64_t model_bytes, const int *others_per_link,
                    size_t nlinks, const int *tasks_per_server, const uint64_t *remaining_bytes,
                    size_t nservers, double b_ms_per_byte, double eta_ms_per_byte, int *start) {
  static const char fn[] = "ns_policy_admit";
  NSI_TRY(nsi_check_ptr(p, fn, "p"));
  NSI_TRY(nsi_check_ptr(start, fn, "start"));
  if (nlinks > 0)
    NSI_TRY(nsi_check_ptr(others_per_link, fn, "others_per_link"));
  if (nservers > 0) {
    NSI_TRY(nsi_check_ptr(tasks_per_server, fn, "tasks_per_server"));
    NSI_TRY(nsi_check_ptr(remaining_bytes, fn, "remaining_bytes"));
  }
  for (size_t i = 0; i < nlinks; i++)
    if (others_per_link[i] < 0)
      return nsi_fail(NS_EINVAL, "%s: others_per_link[%zu] is %d, a count must be >= 0", fn, i,
                      others_per_link[i]);
  nsp_admit_in in = {model_bytes,      others_per_link, nlinks,         tasks_per_server,
                     remaining_bytes, nservers,        b_ms_per_byte, eta_ms_per_byte};
  int s = 1;
  NSI_TRY(admit_fns[p->admission](p, &in, &s));
  *start = s;
  return NS_OK;
}
