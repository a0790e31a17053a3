/*
 * src/dally/dally_internal.h - private pieces shared by the Dally files:
 * the delay tuner's wait lists (tuner.c) and the best-fit GPU choice over
 * the current free GPUs (pick.c). See dally.c for the readings of the paper.
 */
#ifndef NS_DALLY_INTERNAL_H
#define NS_DALLY_INTERNAL_H

#include "core/internal.h"

/* Upper bound on waits and default timers (ms, about 31,700 years): keeps
   sums of squares in the timer statistics far from overflow. */
#define NSD_MAX_MS 1e15
/* Same GPU-demand limit as ns_job_new. */
#define NSD_MAX_GPUS (1 << 20)

/* ---- delay tuner (tuner.c) ------------------------------------------- */

/* One recorded wait: when it was recorded (tuner clock) and how long the
   job starved before accepting (Alg. 1 lines 7, 15). */
typedef struct nsd_entry {
  double at_ms;
  double wait_ms;
} nsd_entry;

/* The wait list of one (tier, GPU demand). Live entries are e[head..n);
   they are in recording order, hence in non-decreasing at_ms. */
typedef struct nsd_list {
  int gpus;
  nsd_entry *e;
  size_t head, n, cap;
} nsd_list;

enum { NSD_TIERS = 2 }; /* machine and rack: the tiers that have a timer */

struct ns_delay_tuner {
  double history_ms;
  double default_machine_ms, default_rack_ms;
  double clock_ms; /* largest now_ms of a successful record/offer; starts at 0 */
  int manual;      /* Dally-manual: timers are always the defaults */
  nsd_list *lists[NSD_TIERS]; /* sorted by gpus */
  size_t nlists[NSD_TIERS], cap_lists[NSD_TIERS];
  /* An open checkpoint (ns_delay_tuner_checkpoint): the clock then, and
     each wait pushed since, as (tier, gpus), to be popped by a rollback.
     While it is open no list drops its expired prefix (first_live skips it
     all the same), so a rollback is a pop per wait. */
  int open;
  double cp_clock_ms;
  struct nsd_undo {
    int tier, gpus;
  } *undo;
  size_t nundo, capundo;
  int slot_tier; /* the tier of the list nsd_reserve_slot returned last */
};

/* NS_OK if now_ms is finite and not before the tuner's clock. */
int nsd_check_now(const ns_delay_tuner *t, double now_ms, const char *fn);
/* Timers for a job of `gpus` GPUs at now_ms (Alg. 2 plus the defaults).
   fits_machine / fits_rack: whether such a job fits on one machine / one
   rack of the cluster at all (the zero-timer rules of §4.3.2). */
void nsd_timers(const ns_delay_tuner *t, int gpus, double now_ms, int fits_machine,
                int fits_rack, double *machine_ms, double *rack_ms);
/* Finds or creates the list of (tier, gpus) with room for one more entry.
   NULL with NS_ENOMEM recorded on failure (tuner unchanged as observed). */
nsd_list *nsd_reserve_slot(ns_delay_tuner *t, ns_tier tier, int gpus, const char *fn);
/* Moves the clock to now_ms, drops the list's expired entries and appends
   one wait (room reserved by nsd_reserve_slot). Cannot fail. */
void nsd_push(ns_delay_tuner *t, nsd_list *l, double now_ms, double wait_ms);
/* Moves the clock forward to now_ms (validated by nsd_check_now). */
void nsd_advance(ns_delay_tuner *t, double now_ms);

/* ---- GPU choice (pick.c) --------------------------------------------- */

/* What an offer holds: for each server and rack, how many of its GPUs can
   host the job now (nsi_gpu_can_host). */
typedef struct nsd_view {
  const ns_cluster *c;
  double mem_mb;
  int *server_free;
  int *rack_free;
  long long total;
} nsd_view;

int nsd_view_init(nsd_view *v, const ns_cluster *c, double mem_mb, const char *fn);
void nsd_view_free(nsd_view *v);

/* The bin with the fewest free units that still holds `need` (ties: lowest
   index), or -1. */
int nsd_best_bin(const int *free_units, int n, int need);
/* Best-fit cover of `need` units by the fewest bins, then the least
   overshoot (sum of the chosen bins - need): writes the chosen bin indices
   and how much each gives. Returns the number of bins, 0 if the bins
   cannot cover `need`, or NS_ENOMEM. */
int nsd_pick_bins(const int *free_units, int n, int need, int *bins, int *takes, const char *fn);
/* The same with the exact search switched off (exact = 0) or on; beyond
   its work bound the exact search falls back to the greedy. For tests. */
int nsd_pick_bins_bounded(const int *free_units, int n, int need, int exact, int *bins,
                          int *takes, const char *fn);

/* Append to gpus[*n] the GPUs of one server / one rack / the whole
   network chosen best-fit for `need` GPUs. NS_OK or NS_ENOMEM. */
void nsd_take_server(const nsd_view *v, int server, int take, int *gpus, size_t *n);
int nsd_take_rack(const nsd_view *v, int rack, int need, int *gpus, size_t *n, const char *fn);
int nsd_take_network(const nsd_view *v, int need, int *gpus, size_t *n, const char *fn);
/* Best-fit over all servers of the cluster, racks ignored (the baselines).
   Returns the number of servers used, 0 if too few GPUs, or NS_ENOMEM. */
int nsd_take_servers(const nsd_view *v, int need, int *gpus, size_t *n, const char *fn);

/* Checks shared by every placement entry point: NULL handles, and a job
   that no offer of this cluster could ever hold (more GPUs than the cluster
   or more memory than a GPU). */
int nsd_check_job(const ns_cluster *c, const ns_job *job, const char *fn);
/* Makes room for n GPUs in `out` (NS_OK / NS_ENOMEM, out unchanged). */
int nsd_out_reserve(ns_placement *out, size_t n, const char *fn);
/* Clears and binds `out` and fills it with the GPUs sorted ascending (room
   reserved by nsd_out_reserve). Cannot fail. */
void nsd_out_fill(ns_placement *out, const ns_cluster *c, int *gpus, size_t n);

#endif /* NS_DALLY_INTERNAL_H */
