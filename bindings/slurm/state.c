/*
 * bindings/slurm/state.c - what a policy keeps between cycles, and the
 * --state file that carries it across restarts.
 *
 * Two kinds of memory:
 *  - Dally's: the policy object's delay tuner (the waits of earlier
 *    accepts, ns_policy_tuner). The public API has no serialiser for a
 *    tuner, so the adapter logs every wait the tuner records (accepted
 *    offers on one machine or one rack) and the file lists them; loading
 *    replays them, oldest first, with ns_delay_tuner_record into a fresh
 *    policy's tuner. Waits older than the tuner's history limit are
 *    dropped when saving.
 *  - --preempt requeue's (history.c): per job the adapter requeued, the
 *    attained service of its finished runs and its first arrival, so 2D-LAS
 *    / 2D-Gittins see a requeued job as the same job after an adapter
 *    restart. Jobs Slurm no longer lists are dropped when saving.
 *
 * Format (text, one record a line):
 *   netsched-slurm-state 2
 *   policy <name>
 *   wait <tier 0|1> <gpus> <waited_ms> <now_ms>
 *   job <jobid> <attained GPU x ms of finished runs> <first arrival, ms since the epoch>
 * Version 1 files (no job lines) are read too.
 * Written to "<file>.tmp.<pid>" then renamed over <file> (atomic on POSIX).
 * A file that does not parse, has another header or another policy's name
 * is reported and ignored: the adapter starts fresh (no tuner waits, no
 * history) and the next save replaces the file.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adapter.h"

#define STATE_MAGIC "netsched-slurm-state 2"
#define STATE_MAGIC_V1 "netsched-slurm-state 1"
#define HISTORY_MS (7 * 24 * 3600e3) /* the policy object's default (the simulator's) */

/* x's policy object, queue and decision scratch, and its tuner (Dally). */
static int make_policy(nss_ctx *x) {
  x->pol = nss_policy_new(x);
  x->q = ns_queue_new();
  x->d = ns_decision_new();
  x->tuner = x->pol != NULL && nss_policy_uses_tuner(x->policy) ? ns_policy_tuner(x->pol) : NULL;
  return x->pol != NULL && x->q != NULL && x->d != NULL &&
                 (!nss_policy_uses_tuner(x->policy) || x->tuner != NULL)
             ? 0
             : -1;
}

int nss_ctx_init(nss_ctx *x, const nss_policy *p, char *msg, size_t msglen) {
  nss_ctx keep = *x; /* caller's flags */
  memset(x, 0, sizeof *x);
  x->spines = keep.spines, x->links_per_pair = keep.links_per_pair;
  x->link_gbps = keep.link_gbps, x->nic_gbps = keep.nic_gbps, x->seed = keep.seed;
  x->preempt = keep.preempt;
  x->policy = p;
  x->order = keep.order ? keep.order : nss_policy_default_order(p);
  if (make_policy(x) < 0) {
    snprintf(msg, msglen, "cannot set up policy %s: %s", nss_policy_name(p), ns_last_error());
    nss_ctx_free(x);
    return -1;
  }
  return 0;
}

void nss_ctx_free(nss_ctx *x) {
  ns_policy_free(x->pol);
  ns_queue_free(x->q);
  ns_decision_free(x->d);
  free(x->recs);
  free(x->hist);
  free(x->refused);
  x->pol = NULL, x->q = NULL, x->d = NULL, x->tuner = NULL, x->recs = NULL;
  x->nrecs = x->caprecs = 0;
  x->hist = NULL, x->nhist = x->caphist = 0;
  x->refused = NULL, x->nrefused = x->caprefused = 0;
}

int nss_state_load(nss_ctx *x, const char *path, char *msg, size_t msglen) {
  if (x->tuner == NULL && !x->preempt)
    return 0; /* nothing to carry for this policy */
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    if (errno == ENOENT)
      return 0;
    snprintf(msg, msglen, "state file '%s' unreadable (%s); starting fresh", path,
             strerror(errno));
    return -1;
  }
  nss_ctx fresh = *x; /* a fresh policy object, its tuner fed the file's waits */
  fresh.recs = NULL, fresh.nrecs = fresh.caprecs = 0, fresh.now_ms = 0;
  fresh.hist = NULL, fresh.nhist = fresh.caphist = 0;
  fresh.refused = NULL, fresh.nrefused = fresh.caprefused = 0;
  int made = make_policy(&fresh) == 0;
  char line[256], pol[64] = "";
  int lineno = 0, ok = made, v1 = 0;
  const char *why = ok ? NULL : "out of memory";
  while (ok && fgets(line, sizeof line, f) != NULL) {
    lineno++;
    line[strcspn(line, "\n")] = '\0';
    int tier = 0, gpus = 0;
    unsigned long id = 0;
    double w = 0, t = 0;
    char extra;
    if (lineno == 1) {
      v1 = strcmp(line, STATE_MAGIC_V1) == 0;
      if (strcmp(line, STATE_MAGIC) != 0 && !v1)
        ok = 0, why = "not a netsched-slurm state file (first line differs)";
    } else if (lineno == 2) {
      if (sscanf(line, "policy %63s %c", pol, &extra) != 1)
        ok = 0, why = "line 2 is not 'policy NAME'";
      else if (strcmp(pol, nss_policy_name(x->policy)) != 0)
        ok = 0, why = "it belongs to another policy";
    } else if (!v1 && strncmp(line, "job ", 4) == 0) {
      if (sscanf(line, "job %lu %lf %lf %c", &id, &w, &t, &extra) != 3 || id == 0 ||
          id > UINT32_MAX || !isfinite(w) || w < 0 || !isfinite(t) || t < 0 ||
          strchr(line, '-') != NULL)
        ok = 0, why = "malformed 'job' line";
      else if (nss_hist_add(&fresh, (uint32_t)id, w, t) < 0)
        ok = 0, why = "out of memory";
    } else if (sscanf(line, "wait %d %d %lf %lf %c", &tier, &gpus, &w, &t, &extra) != 4 ||
               (tier != 0 && tier != 1) || !isfinite(w) || !isfinite(t)) {
      ok = 0, why = "malformed 'wait' line";
    } else if (fresh.tuner == NULL) {
      ok = 0, why = "'wait' line for a policy without a delay tuner";
    } else if (nss_ctx_record(&fresh, tier, gpus, w, t) < 0) {
      ok = 0, why = "the tuner rejects a 'wait' line (out of range or time going back)";
    }
  }
  if (ok && lineno < 2)
    ok = 0, why = "truncated (no header)";
  fclose(f);
  if (!ok) {
    snprintf(msg, msglen, "state file '%s' ignored: %s%s%d; starting fresh", path, why,
             lineno > 0 ? " at line " : "", lineno);
    nss_ctx_free(&fresh);
    return -1;
  }
  for (size_t i = 0; i < x->nrefused; i++) /* (in memory only: kept) */
    nss_refused_add(&fresh, x->refused[i]);
  nss_ctx_free(x);
  *x = fresh;
  return 0;
}

int nss_state_save(const nss_ctx *x, const char *path, char *msg, size_t msglen) {
  char tmp[4096];
  if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp) {
    snprintf(msg, msglen, "state file path too long");
    return -1;
  }
  FILE *f = fopen(tmp, "w");
  if (f == NULL) {
    snprintf(msg, msglen, "cannot write state file '%s': %s", tmp, strerror(errno));
    return -1;
  }
  fprintf(f, "%s\npolicy %s\n", STATE_MAGIC, nss_policy_name(x->policy));
  for (size_t i = 0; i < x->nrecs; i++)
    if (x->recs[i].now_ms >= x->now_ms - HISTORY_MS)
      fprintf(f, "wait %d %d %.17g %.17g\n", x->recs[i].tier, x->recs[i].gpus,
              x->recs[i].waited_ms, x->recs[i].now_ms);
  for (size_t i = 0; i < x->nhist; i++)
    fprintf(f, "job %lu %.17g %.17g\n", (unsigned long)x->hist[i].id, x->hist[i].gpu_ms,
            x->hist[i].arrival_ms);
  int bad = ferror(f);
  bad |= fflush(f) != 0 || fsync(fileno(f)) != 0;
  bad |= fclose(f) != 0;
  if (bad || rename(tmp, path) != 0) {
    snprintf(msg, msglen, "cannot write state file '%s': %s", path, strerror(errno));
    unlink(tmp);
    return -1;
  }
  return 0;
}
