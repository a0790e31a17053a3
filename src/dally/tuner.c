/*
 * src/dally/tuner.c - Dally's auto-tuner (§4.3.3, Algorithm 2): one list of
 * starvation times per (consolidation tier, GPU demand), entries older than
 * the history limit dropped, timer = mean + 2 x sample standard deviation,
 * defaults while a list holds fewer than two samples.
 *
 * Time: the tuner's clock is the largest now_ms passed to a successful
 * ns_delay_tuner_record or ns_dally_offer (0 at creation). A call whose
 * now_ms is before the clock is rejected with NS_EINVAL, so entries are
 * stored in time order and expiry is a prefix of each list. Queries
 * (ns_delay_tuner_timers, ns_delay_tuner_sample_count) take the handle
 * const: they skip expired entries without removing them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dally/dally_internal.h"

static int check_ms(double v, const char *fn, const char *arg) {
  if (!isfinite(v) || v < 0 || v > NSD_MAX_MS)
    return nsi_fail(NS_EINVAL, "%s: %s must be finite and in [0, %g] ms (got %s)", fn, arg,
                    NSD_MAX_MS, NSI_REAL_STR(v));
  return NS_OK;
}

ns_delay_tuner *ns_delay_tuner_new(double history_limit_ms, double default_machine_ms,
                                   double default_rack_ms) {
  static const char *fn = "ns_delay_tuner_new";
  /* A history limit of 0 would drop every wait at once: nothing to tune. */
  if (nsi_check_finite_gt0(history_limit_ms, fn, "history_limit_ms") < 0 ||
      check_ms(default_machine_ms, fn, "default_machine_ms") < 0 ||
      check_ms(default_rack_ms, fn, "default_rack_ms") < 0)
    return NULL;
  ns_delay_tuner *t = calloc(1, sizeof *t);
  if (t == NULL) {
    nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
    return NULL;
  }
  t->history_ms = history_limit_ms;
  t->default_machine_ms = default_machine_ms;
  t->default_rack_ms = default_rack_ms;
  return t;
}

void ns_delay_tuner_free(ns_delay_tuner *t) {
  if (t == NULL)
    return;
  for (int k = 0; k < NSD_TIERS; k++) {
    for (size_t i = 0; i < t->nlists[k]; i++)
      free(t->lists[k][i].e);
    free(t->lists[k]);
  }
  free(t->undo);
  free(t);
}

int ns_delay_tuner_set_manual(ns_delay_tuner *t, int manual) {
  NSI_TRY(nsi_check_ptr(t, "ns_delay_tuner_set_manual", "t"));
  NSI_TRY(nsi_check_int(manual, 0, 1, "ns_delay_tuner_set_manual", "manual"));
  t->manual = manual;
  return NS_OK;
}

int nsd_check_now(const ns_delay_tuner *t, double now_ms, const char *fn) {
  if (!isfinite(now_ms) || now_ms < 0)
    return nsi_fail(NS_EINVAL, "%s: now_ms must be finite and >= 0 (got %s)", fn,
                    NSI_REAL_STR(now_ms));
  if (now_ms < t->clock_ms)
    return nsi_fail(NS_EINVAL,
                    "%s: now_ms (%g) is before the tuner's clock (%g): time must not go back",
                    fn, now_ms, t->clock_ms);
  return NS_OK;
}

static int check_tier_gpus(ns_tier tier, int gpus, const char *fn) {
  if ((int)tier != NS_TIER_MACHINE && (int)tier != NS_TIER_RACK)
    return nsi_fail(NS_EINVAL,
                    "%s: tier must be NS_TIER_MACHINE or NS_TIER_RACK (got %d): only those "
                    "tiers have a delay timer",
                    fn, (int)tier);
  return nsi_check_int(gpus, 1, NSD_MAX_GPUS, fn, "gpus");
}

/* Index of the first list with l->gpus >= gpus. */
static size_t lower_bound(const nsd_list *lists, size_t n, int gpus) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (lists[mid].gpus < gpus)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static const nsd_list *find_list(const ns_delay_tuner *t, ns_tier tier, int gpus) {
  size_t i = lower_bound(t->lists[tier], t->nlists[tier], gpus);
  return i < t->nlists[tier] && t->lists[tier][i].gpus == gpus ? &t->lists[tier][i] : NULL;
}

/* Alg. 2 lines 3, 9: an entry has expired once it is older than the history
   limit. at_ms is non-decreasing, so the live entries are a suffix. */
static size_t first_live(const nsd_list *l, double history_ms, double now_ms) {
  size_t lo = l->head, hi = l->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (now_ms - l->e[mid].at_ms > history_ms)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Alg. 2 line 13: average + 2 x standard deviation (sample, n - 1) of the
   live waits, by Welford's update (one pass, no cancellation). Returns the
   number of live samples; *timer is set only when there are >= 2. */
static size_t tuned_timer(const ns_delay_tuner *t, ns_tier tier, int gpus, double now_ms,
                          double *timer) {
  const nsd_list *l = find_list(t, tier, gpus);
  if (l == NULL)
    return 0;
  size_t from = first_live(l, t->history_ms, now_ms), n = l->n - from;
  if (n < 2)
    return n;
  double mean = 0, m2 = 0;
  for (size_t i = 0; i < n; i++) {
    double x = l->e[from + i].wait_ms, d = x - mean;
    mean += d / (double)(i + 1);
    m2 += d * (x - mean);
  }
  *timer = mean + 2.0 * sqrt(m2 / (double)(n - 1));
  return n;
}

void nsd_timers(const ns_delay_tuner *t, int gpus, double now_ms, int fits_machine,
                int fits_rack, double *machine_ms, double *rack_ms) {
  double mc = t->default_machine_ms, rk = 0;
  int rack_tuned = 0;
  if (!t->manual) {
    tuned_timer(t, NS_TIER_MACHINE, gpus, now_ms, &mc);
    rack_tuned = tuned_timer(t, NS_TIER_RACK, gpus, now_ms, &rk) >= 2;
  }
  /* §4.3.2: a job that cannot fit on one machine has a machine timer of 0;
     one that cannot fit in a rack has both timers 0. */
  if (!fits_machine)
    mc = 0;
  /* Waits are recorded as total starvation (Alg. 1 line 15), so a tuned rack
     timer is a total; the default rack delay comes on top of the machine
     timer ("another 12 hours (or 24 hours in total)", §4.3.2). */
  if (!rack_tuned)
    rk = mc + t->default_rack_ms;
  if (!fits_rack)
    mc = rk = 0;
  *machine_ms = mc;
  *rack_ms = rk;
}

int ns_delay_tuner_timers(const ns_delay_tuner *t, int gpus, double now_ms, double *machine_ms,
                          double *rack_ms) {
  static const char *fn = "ns_delay_tuner_timers";
  NSI_TRY(nsi_check_ptr(t, fn, "t"));
  NSI_TRY(nsi_check_int(gpus, 1, NSD_MAX_GPUS, fn, "gpus"));
  NSI_TRY(nsd_check_now(t, now_ms, fn));
  NSI_TRY(nsi_check_ptr(machine_ms, fn, "machine_ms"));
  NSI_TRY(nsi_check_ptr(rack_ms, fn, "rack_ms"));
  nsd_timers(t, gpus, now_ms, 1, 1, machine_ms, rack_ms);
  return NS_OK;
}

int ns_delay_tuner_sample_count(const ns_delay_tuner *t, ns_tier tier, int gpus, double now_ms,
                                size_t *count) {
  static const char *fn = "ns_delay_tuner_sample_count";
  NSI_TRY(nsi_check_ptr(t, fn, "t"));
  NSI_TRY(check_tier_gpus(tier, gpus, fn));
  NSI_TRY(nsd_check_now(t, now_ms, fn));
  NSI_TRY(nsi_check_ptr(count, fn, "count"));
  const nsd_list *l = find_list(t, tier, gpus);
  *count = l ? l->n - first_live(l, t->history_ms, now_ms) : 0;
  return NS_OK;
}

nsd_list *nsd_reserve_slot(ns_delay_tuner *t, ns_tier tier, int gpus, const char *fn) {
  if (t->open && nsi_reserve(&t->undo, &t->capundo, t->nundo + 1, sizeof *t->undo) < 0) {
    nsi_fail(NS_ENOMEM, "%s: out of memory keeping the tuner's checkpoint", fn);
    return NULL;
  }
  t->slot_tier = (int)tier;
  size_t i = lower_bound(t->lists[tier], t->nlists[tier], gpus);
  nsd_list *l = i < t->nlists[tier] && t->lists[tier][i].gpus == gpus ? &t->lists[tier][i] : NULL;
  if (l != NULL) {
    if (nsi_reserve(&l->e, &l->cap, l->n + 1, sizeof *l->e) < 0) {
      nsi_fail(NS_ENOMEM, "%s: out of memory growing a wait list", fn);
      return NULL;
    }
    return l;
  }
  /* A new (tier, gpus) list, inserted in order. */
  nsd_list fresh = {.gpus = gpus};
  if (nsi_reserve(&t->lists[tier], &t->cap_lists[tier], t->nlists[tier] + 1,
                  sizeof *t->lists[tier]) < 0 ||
      nsi_reserve(&fresh.e, &fresh.cap, 1, sizeof *fresh.e) < 0) {
    nsi_fail(NS_ENOMEM, "%s: out of memory adding a wait list", fn);
    return NULL;
  }
  nsd_list *arr = t->lists[tier];
  memmove(arr + i + 1, arr + i, (t->nlists[tier] - i) * sizeof *arr);
  arr[i] = fresh;
  t->nlists[tier]++;
  return &arr[i];
}

void nsd_advance(ns_delay_tuner *t, double now_ms) {
  if (now_ms > t->clock_ms)
    t->clock_ms = now_ms;
}

/* Drops l's expired prefix at now_ms (Alg. 2 lines 2-6, 8-12) and compacts
   once the dead prefix dominates, so memory follows the window. */
static void trim(const ns_delay_tuner *t, nsd_list *l, double now_ms) {
  l->head = first_live(l, t->history_ms, now_ms);
  if (l->head > 0 && l->head >= l->n / 2) {
    memmove(l->e, l->e + l->head, (l->n - l->head) * sizeof *l->e);
    l->n -= l->head;
    l->head = 0;
  }
}

void nsd_push(ns_delay_tuner *t, nsd_list *l, double now_ms, double wait_ms) {
  nsd_advance(t, now_ms);
  if (t->open) /* room reserved by nsd_reserve_slot; the prefix stays until commit */
    t->undo[t->nundo].tier = t->slot_tier, t->undo[t->nundo++].gpus = l->gpus;
  else
    trim(t, l, now_ms);
  l->e[l->n].at_ms = now_ms;
  l->e[l->n].wait_ms = wait_ms;
  l->n++;
}

int ns_delay_tuner_record(ns_delay_tuner *t, ns_tier tier, int gpus, double waited_ms,
                          double now_ms) {
  static const char *fn = "ns_delay_tuner_record";
  NSI_TRY(nsi_check_ptr(t, fn, "t"));
  NSI_TRY(check_tier_gpus(tier, gpus, fn));
  NSI_TRY(check_ms(waited_ms, fn, "waited_ms"));
  NSI_TRY(nsd_check_now(t, now_ms, fn));
  nsd_list *l = nsd_reserve_slot(t, tier, gpus, fn);
  if (l == NULL)
    return NS_ENOMEM;
  nsd_push(t, l, now_ms, waited_ms);
  return NS_OK;
}

/* ---- checkpoints and swap ------------------------------------------------ */

int ns_delay_tuner_checkpoint(ns_delay_tuner *t) {
  NSI_TRY(nsi_check_ptr(t, "ns_delay_tuner_checkpoint", "t"));
  t->open = 1, t->cp_clock_ms = t->clock_ms, t->nundo = 0; /* an open one is committed */
  return NS_OK;
}

int ns_delay_tuner_commit(ns_delay_tuner *t) {
  NSI_TRY(nsi_check_ptr(t, "ns_delay_tuner_commit", "t"));
  for (size_t k = 0; t->open && k < t->nundo; k++) { /* the trims the pushes left out */
    const struct nsd_undo *u = &t->undo[k];
    trim(t, &t->lists[u->tier][lower_bound(t->lists[u->tier], t->nlists[u->tier], u->gpus)],
         t->clock_ms);
  }
  t->open = 0, t->nundo = 0;
  return NS_OK;
}

int ns_delay_tuner_rollback(ns_delay_tuner *t) {
  NSI_TRY(nsi_check_ptr(t, "ns_delay_tuner_rollback", "t"));
  if (!t->open)
    return nsi_fail(NS_ESTATE, "ns_delay_tuner_rollback: no open checkpoint "
                               "(ns_delay_tuner_checkpoint)");
  while (t->nundo > 0) { /* latest first: each wait is its list's last entry */
    const struct nsd_undo *u = &t->undo[--t->nundo];
    nsd_list *arr = t->lists[u->tier];
    size_t i = lower_bound(arr, t->nlists[u->tier], u->gpus);
    arr[i].n--;
    if (arr[i].n == 0) { /* created since the checkpoint (a list is never empty) */
      free(arr[i].e);
      memmove(arr + i, arr + i + 1, (t->nlists[u->tier] - i - 1) * sizeof *arr);
      t->nlists[u->tier]--;
    }
  }
  t->clock_ms = t->cp_clock_ms;
  t->open = 0;
  return NS_OK;
}

int ns_delay_tuner_swap(ns_delay_tuner *a, ns_delay_tuner *b) {
  NSI_TRY(nsi_check_ptr(a, "ns_delay_tuner_swap", "a"));
  NSI_TRY(nsi_check_ptr(b, "ns_delay_tuner_swap", "b"));
  ns_delay_tuner x = *a;
  *a = *b, *b = x;
  return NS_OK;
}
