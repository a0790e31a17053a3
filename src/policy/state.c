/*
 * src/policy/state.c - the policy's own state as bytes (ns_policy_save /
 * ns_policy_load), so that a cluster manager restarting keeps what the
 * policy learnt.
 *
 * Of today's presets only Dally keeps state across decisions: its delay
 * tuner's waits. The tuner has no serialiser, so the policy logs every wait
 * its tuner records (an accepted offer on one machine or one rack: that is
 * what ns_dally_offer records) and the saved state lists them; loading
 * replays them, oldest first, into a fresh tuner (ns_delay_tuner_record),
 * which then holds exactly the live waits the saved one held.
 *
 * Format (text, version 1, one record a line, '\n' endings):
 *   ns_policy 1
 *   policy <name>                      (ns_policy_name: a preset or "custom")
 *   wait <tier 0|1> <gpus> <waited_ms> <now_ms>   (%.17g: exact doubles)
 * Waits older than the tuner's history limit at the latest decision are
 * left out. A blob with another header, another policy's name, a malformed
 * or out-of-range line, or time going back is refused (NS_EINVAL naming the
 * line) and the policy is left as it was.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "policy/policy_internal.h"

#define MAGIC "ns_policy 1"

int ns_policy_save(const ns_policy *p, char *buf, size_t len, size_t *needed) {
  NSI_TRY(nsi_check_ptr(p, "ns_policy_save", "p"));
  NSI_TRY(nsi_check_ptr(needed, "ns_policy_save", "needed"));
  if (buf == NULL && len > 0)
    return nsi_fail(NS_EINVAL, "ns_policy_save: buf is NULL with len %zu", len);
  size_t at = 0;
  char line[160];
  int n = snprintf(line, sizeof line, "%s\npolicy %s\n", MAGIC, ns_policy_name(p));
  for (size_t i = 0;; i++) {
    if (n > 0 && at + (size_t)n < len)
      memcpy(buf + at, line, (size_t)n);
    at += (size_t)(n > 0 ? n : 0);
    while (i < p->nwaits && p->waits[i].now_ms < p->clock - p->history_ms)
      i++;
    if (i >= p->nwaits)
      break;
    const nsp_wait *w = &p->waits[i];
    n = snprintf(line, sizeof line, "wait %d %d %.17g %.17g\n", w->tier, w->gpus, w->waited_ms,
                 w->now_ms);
  }
  *needed = at + 1; /* with the terminating NUL */
  if (at + 1 > len)
    return nsi_fail(NS_ERANGE, "ns_policy_save: the state needs %zu bytes, len is %zu", at + 1,
                    len);
  buf[at] = '\0';
  return NS_OK;
}

/* The next line of buf[0..len) from *at into line (NUL-terminated); 0 at
   the end, -1 if a line is too long. */
static int next_line(const char *buf, size_t len, size_t *at, char *line, size_t cap) {
  if (*at >= len || buf[*at] == '\0')
    return 0;
  size_t n = 0;
  while (*at < len && buf[*at] != '\n' && buf[*at] != '\0') {
    if (n + 1 >= cap)
      return -1;
    line[n++] = buf[(*at)++];
  }
  if (*at < len && buf[*at] == '\n')
    (*at)++;
  line[n] = '\0';
  return 1;
}

int ns_policy_load(ns_policy *p, const char *buf, size_t len) {
  static const char fn[] = "ns_policy_load";
  NSI_TRY(nsi_check_ptr(p, fn, "p"));
  NSI_TRY(nsi_check_ptr(buf, fn, "buf"));
  char line[256], name[64];
  size_t at = 0;
  int lineno = 0, r;
  ns_policy fresh = *p; /* the replay goes into a fresh tuner and log */
  fresh.waits = NULL, fresh.nwaits = fresh.capwaits = 0, fresh.clock = 0, fresh.tuner = NULL;
  int is_dally = p->placement == NS_POLICY_PLACE_DALLY ||
                 p->placement == NS_POLICY_PLACE_DALLY_MANUAL;
  int rc = NS_OK;
  if (is_dally && (fresh.tuner = nsp_new_tuner(p)) == NULL)
    rc = nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  while (rc == NS_OK && (r = next_line(buf, len, &at, line, sizeof line)) != 0) {
    lineno++;
    int tier = 0, gpus = 0;
    double w = 0, t = 0;
    char extra;
    if (r < 0) {
      rc = nsi_fail(NS_EINVAL, "%s: line %d is longer than %zu characters", fn, lineno,
                    sizeof line - 1);
    } else if (lineno == 1) {
      if (strcmp(line, MAGIC) != 0)
        rc = nsi_fail(NS_EINVAL, "%s: not a saved policy state (line 1 is '%.40s', expected "
                                 "'%s')", fn, line, MAGIC);
    } else if (lineno == 2) {
      if (sscanf(line, "policy %63s %c", name, &extra) != 1)
        rc = nsi_fail(NS_EINVAL, "%s: line 2 is not 'policy NAME' ('%.40s')", fn, line);
      else if (strcmp(name, ns_policy_name(p)) != 0)
        rc = nsi_fail(NS_EINVAL, "%s: the state belongs to policy '%s', not '%s'", fn, name,
                      ns_policy_name(p));
    } else if (sscanf(line, "wait %d %d %lf %lf %c", &tier, &gpus, &w, &t, &extra) != 4 ||
               (tier != 0 && tier != 1) || !isfinite(w) || !(fabs(t) <= NSI_REAL_MAX)) {
      /* a time past 1e15 ms (as every real argument) would set the tuner's
         clock beyond any decision's now_ms: every later offer refused */
      rc = nsi_fail(NS_EINVAL, "%s: line %d is not 'wait TIER(0|1) GPUS WAITED_MS NOW_MS' "
                               "('%.40s')", fn, lineno, line);
    } else if (!is_dally) {
      rc = nsi_fail(NS_EINVAL, "%s: line %d: policy '%s' keeps no waits", fn, lineno,
                    ns_policy_name(p));
    } else if (ns_delay_tuner_record(fresh.tuner, (ns_tier)tier, gpus, w, t) < 0) {
      rc = nsi_fail(NS_EINVAL, "%s: line %d refused by the delay tuner: %s", fn, lineno,
                    ns_last_error());
    } else {
      rc = nsp_log_wait(&fresh, tier, gpus, w, t, fn);
    }
  }
  if (rc == NS_OK && lineno < 2)
    rc = nsi_fail(NS_EINVAL, "%s: truncated state (%d line%s, a header has 2)", fn, lineno,
                  lineno == 1 ? "" : "s");
  if (rc < 0) {
    ns_delay_tuner_free(fresh.tuner);
    free(fresh.waits);
    return rc;
  }
  /* the parts become fixed, as after a decision; the other state is kept */
  if ((rc = nsp_ready(p, fn)) < 0) {
    ns_delay_tuner_free(fresh.tuner);
    free(fresh.waits);
    return rc;
  }
  /* the tuner keeps its address (a caller may hold it, ns_policy_tuner):
     its contents are exchanged with the fresh one's, then the old freed */
  if (p->tuner != NULL && fresh.tuner != NULL) {
    ns_delay_tuner_swap(p->tuner, fresh.tuner); /* both valid: cannot fail */
    ns_delay_tuner_free(fresh.tuner);
  } else {
    ns_delay_tuner_free(p->tuner);
    p->tuner = fresh.tuner;
  }
  free(p->waits);
  p->waits = fresh.waits, p->nwaits = fresh.nwaits, p->capwaits = fresh.capwaits;
  p->clock = fresh.clock;
  return NS_OK;
}
