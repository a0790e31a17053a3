/*
 * src/dally/dally.c - Dally's local scheduler: Algorithm 1 ("On Resource
 * Offer") of Sharma et al., "GPU Cluster Scheduling for Network-Sensitive
 * Deep Learning" (seed dally-delay-scheduling.md, §4.3.2).
 *
 * Readings of passages the paper leaves open (also in netsched/dally.h):
 *  1. The resource offer R is every GPU that can host the job now
 *     (nsi_gpu_can_host: free, or in sharing mode with room in memory).
 *     An offer with fewer such GPUs than the job demands cannot be
 *     allocated at any tier: *accepted = 0 (NS_OK), the job waits.
 *  2. T_starvation (Alg. 1 lines 1-2) is the caller's: it keeps the job's
 *     last assignment time. now_ms is the tuner's clock (expiry, record
 *     time) and may not go back (NS_EINVAL).
 *  3. The zero-timer rules (§4.3.2) are by capacity: a job demanding more
 *     GPUs than a machine has gets machine timer 0; more than a rack has,
 *     both timers 0.
 *  4. T_Rk is a total starvation threshold (line 18 compares T_starvation
 *     with it, and line 15 records total starvation). With fewer than two
 *     rack samples it is the machine timer plus default_rack_ms: the paper's
 *     defaults are "12 hours for machine-level consolidation and another 12
 *     hours (or 24 hours in total) for rack-level". A tuned T_Rk is used as
 *     is, even below T_Mc (then rack gives no extra wait, as Alg. 1 reads).
 *  5. The wait is recorded once per accept, in the list of the accepted
 *     tier: machine (line 7) or rack (line 15). A network accept (line 21)
 *     records nothing: no timer is derived from network waits.
 *  6. "Allocate g_d GPUs on machine / rack / network" is best-fit: the
 *     machine or rack with the fewest GPUs left over, ties to the lowest id;
 *     inside a rack the fewest servers with the fewest GPUs left idle on
 *     them; on the network the fewest racks, then the fewest servers in
 *     each (pick.c). Line 5 and line 13 are checked against the offer as it is,
 *     so a rack accept spans >= 2 machines and a network accept >= 2 racks.
 *  7. A job demanding more GPUs than the cluster has, or more memory than a
 *     GPU has, could never accept any offer: NS_EINVAL, not a silent wait.
 *  8. Algorithm 2's "time > HISTORY_TIME_LIMIT" is the entry's age (tuner.c;
 *     ALGORITHMS.md: "entries older than the history limit are dropped").
 *     Standard deviation is the sample one (n - 1); with fewer than two
 *     live samples a timer is its default.
 *  9. Nw_sens of a job that has not run yet (T_run = 0, I_compl = 0) is 1:
 *     it has endured no network slowdown (priority.c).
 */
#include <stdlib.h>

#include "dally/dally_internal.h"

typedef enum { OFFER_REJECT = -1 } offer_tier;

/* Algorithm 1 lines 5-22 on the offer: the tier to accept, or OFFER_REJECT.
   *where is the machine (MACHINE) or rack (RACK) chosen. */
static int decide(const nsd_view *v, int gd, double starvation_ms, double mc, double rk,
                  int *where) {
  const ns_cluster *c = v->c;
  *where = nsd_best_bin(v->server_free, c->nservers, gd); /* line 5 */
  if (*where >= 0)
    return NS_TIER_MACHINE;
  if (starvation_ms < mc) /* line 10 */
    return OFFER_REJECT;
  *where = nsd_best_bin(v->rack_free, c->leaves, gd); /* line 13 */
  if (*where >= 0)
    return NS_TIER_RACK;
  if (starvation_ms < rk) /* line 18 */
    return OFFER_REJECT;
  return v->total >= gd ? NS_TIER_NETWORK : OFFER_REJECT; /* line 21 */
}

/* Lines 6, 14, 21: the GPUs of the accepted tier, into gpus[]. */
static int allocate(const nsd_view *v, int tier, int where, int gd, int *gpus, size_t *n,
                    const char *fn) {
  if (tier == NS_TIER_MACHINE) {
    nsd_take_server(v, where, gd, gpus, n);
    return NS_OK;
  }
  if (tier == NS_TIER_RACK)
    return nsd_take_rack(v, where, gd, gpus, n, fn);
  return nsd_take_network(v, gd, gpus, n, fn);
}

static int check_offer_args(const ns_delay_tuner *t, const ns_cluster *c, const ns_job *job,
                            double starvation_ms, double now_ms, const ns_placement *out,
                            const int *accepted, const char *fn) {
  NSI_TRY(nsi_check_ptr(t, fn, "t"));
  NSI_TRY(nsd_check_job(c, job, fn));
  NSI_TRY(nsi_check_finite_ge0(starvation_ms, fn, "starvation_ms"));
  NSI_TRY(nsd_check_now(t, now_ms, fn));
  NSI_TRY(nsi_check_ptr(out, fn, "out"));
  return nsi_check_ptr(accepted, fn, "accepted");
}

/* Accept: everything that can fail (GPU choice, list slot, placement room)
   happens before anything visible changes. */
static int accept(ns_delay_tuner *t, const nsd_view *v, const ns_job *job, int tier, int where,
                  double starvation_ms, double now_ms, ns_placement *out, const char *fn) {
  int gd = job->gpus;
  int *gpus = malloc((size_t)gd * sizeof *gpus);
  if (gpus == NULL)
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  size_t n = 0;
  int rc = allocate(v, tier, where, gd, gpus, &n, fn);
  nsd_list *slot = NULL;
  if (rc == NS_OK && tier != NS_TIER_NETWORK &&
      (slot = nsd_reserve_slot(t, (ns_tier)tier, gd, fn)) == NULL)
    rc = NS_ENOMEM;
  if (rc == NS_OK)
    rc = nsd_out_reserve(out, n, fn);
  if (rc == NS_OK) {
    nsd_out_fill(out, v->c, gpus, n);
    if (slot != NULL)
      nsd_push(t, slot, now_ms, starvation_ms); /* lines 7, 15 */
    else
      nsd_advance(t, now_ms);
  }
  free(gpus);
  return rc;
}

/* Line 4 with the zero-timer rules of §4.3.2 (by capacity, reading 3). */
static void offer_timers(const ns_delay_tuner *t, const ns_cluster *c, int gd, double now_ms,
                         double *mc, double *rk) {
  nsd_timers(t, gd, now_ms, gd <= c->gpus_per_server,
             gd <= c->gpus_per_server * c->servers_per_leaf, mc, rk);
}

int ns_dally_timers(const ns_delay_tuner *t, const ns_cluster *c, int gpus, double now_ms,
                    double *machine_ms, double *rack_ms) {
  static const char *fn = "ns_dally_timers";
  NSI_TRY(nsi_check_ptr(t, fn, "t"));
  NSI_TRY(nsi_check_ptr(c, fn, "c"));
  NSI_TRY(nsi_check_int(gpus, 1, NSD_MAX_GPUS, fn, "gpus"));
  NSI_TRY(nsd_check_now(t, now_ms, fn));
  NSI_TRY(nsi_check_ptr(machine_ms, fn, "machine_ms"));
  NSI_TRY(nsi_check_ptr(rack_ms, fn, "rack_ms"));
  offer_timers(t, c, gpus, now_ms, machine_ms, rack_ms);
  return NS_OK;
}

int ns_dally_offer(ns_delay_tuner *t, const ns_cluster *c, const ns_job *job,
                   double starvation_ms, double now_ms, ns_placement *out, int *accepted) {
  static const char *fn = "ns_dally_offer";
  NSI_TRY(check_offer_args(t, c, job, starvation_ms, now_ms, out, accepted, fn));
  /* A recorded wait must stay within the tuner's bound. */
  if (starvation_ms > NSD_MAX_MS)
    return nsi_fail(NS_EINVAL, "%s: starvation_ms must be <= %g ms (got %s)", fn, NSD_MAX_MS,
                    NSI_REAL_STR(starvation_ms));
  int gd = job->gpus;
  double mc, rk;
  offer_timers(t, c, gd, now_ms, &mc, &rk); /* line 4 */
  nsd_view v;
  NSI_TRY(nsd_view_init(&v, c, job->mem_mb, fn));
  int where = -1;
  int tier = decide(&v, gd, starvation_ms, mc, rk, &where);
  int rc = NS_OK;
  if (tier == OFFER_REJECT) {
    ns_placement_clear(out); /* lines 11, 19 */
    ns_placement_bind(out, c);
    nsd_advance(t, now_ms);
    *accepted = 0;
  } else if ((rc = accept(t, &v, job, tier, where, starvation_ms, now_ms, out, fn)) == NS_OK) {
    *accepted = 1;
  }
  nsd_view_free(&v);
  return rc;
}
