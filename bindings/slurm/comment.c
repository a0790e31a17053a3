/*
 * bindings/slurm/comment.c - a job's comment: the user's part (marker,
 * hints, free text) and netsched-slurm's wait section after it.
 *
 *   netsched[:model=M,iters=N] waits: <reason>     (sbatch --comment)
 *   netsched free text waits: <reason>             (job_submit.lua's marking)
 *   `---- the user's part ---'`-- ours ---------'
 *
 * The adapter's section is everything from the LAST " waits: " to the end
 * (docs/slurm.md); the user's part before it is never
 * changed: it is kept byte for byte (any length, control characters
 * included), and when the whole comment would exceed Slurm's limit
 * (NSS_SLURM_COMMENT_MAX) the reason is shortened, down to no section at
 * all. Reasons never contain " waits: " or control characters, so the next
 * cycle finds the section it wrote.
 * Hints are the rest of the user's part after "netsched:", comma-separated:
 * model=M (a profile name), iters=N (a whole number in [1, 2^53], decimal
 * digits only: no sign, blank, hex or exponent) and the bare key
 * preemptible (no value: the job agrees to be requeued under --preempt
 * requeue), e.g. "netsched:preemptible" or
 * "netsched:model=vgg16,iters=500,preemptible". A bad hint makes the job wait
 * with a reason that names it.
 * Values quoted in messages are shortened and their control characters
 * escaped (\xNN), so a comment cannot break the one-line-per-job output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapter.h"

#define ITERS_MAX 9007199254740992ull /* 2^53, the simulator's limit */

size_t nss_comment_user_len(const char *comment) {
  if (comment == NULL)
    return 0;
  const char *last = NULL;
  for (const char *p = strstr(comment, NSS_WAIT_TAG); p != NULL; p = strstr(p + 1, NSS_WAIT_TAG))
    last = p;
  return last != NULL ? (size_t)(last - comment) : strlen(comment);
}

void nss_quote(char *dst, size_t n, const char *src, size_t len) {
  size_t o = 0, max = 40;
  if (n == 0)
    return;
  for (size_t i = 0; i < len && o + 5 < n; i++) {
    if (i == max && len > max + 3) {
      snprintf(dst + o, n - o, "...");
      o += strlen(dst + o);
      break;
    }
    unsigned char c = (unsigned char)src[i];
    if (c < 0x20 || c == 0x7f)
      o += (size_t)snprintf(dst + o, n - o, "\\x%02x", c);
    else
      dst[o++] = (char)c;
  }
  dst[o < n ? o : n - 1] = '\0';
}

void nss_clean_reason(char *dst, size_t n, const char *src) {
  size_t o = 0;
  for (size_t i = 0; src != NULL && src[i] != '\0' && o + 1 < n; i++) {
    unsigned char c = (unsigned char)src[i];
    dst[o++] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
  }
  if (n > 0)
    dst[o] = '\0';
  /* " waits: " inside a reason would be taken for the start of the section */
  for (char *p = strstr(dst, NSS_WAIT_TAG); p != NULL; p = strstr(p, NSS_WAIT_TAG))
    p[strlen(NSS_WAIT_TAG) - 2] = ' '; /* " waits  " */
}

char *nss_comment_compose(const char *comment, int placed, const char *reason) {
  size_t user = nss_comment_user_len(comment);
  const char *u = comment != NULL && user > 0 ? comment : NSS_MARKER;
  if (u != comment)
    user = strlen(NSS_MARKER);
  size_t tag = strlen(NSS_WAIT_TAG), rlen = placed || reason == NULL ? 0 : strlen(reason);
  size_t room = user + tag < NSS_SLURM_COMMENT_MAX ? NSS_SLURM_COMMENT_MAX - user - tag : 0;
  if (rlen > room) /* Slurm's limit: shorten the reason, never the user's part */
    rlen = room >= 4 ? room : 0;
  char *out = malloc(user + tag + rlen + 1);
  if (out == NULL)
    return NULL;
  memcpy(out, u, user);
  size_t o = user;
  if (rlen > 0) {
    memcpy(out + o, NSS_WAIT_TAG, tag);
    o += tag;
    int cut = rlen < strlen(reason);
    memcpy(out + o, reason, cut ? rlen - 3 : rlen);
    o += cut ? rlen - 3 : rlen;
    if (cut)
      memcpy(out + o, "...", 3), o += 3;
  }
  out[o] = '\0';
  return out;
}

/* One hint key=value (len bytes at h). 0, or -1 with msg set. */
static int parse_hint(nss_job *job, const char *h, size_t len, int *seen, char *msg,
                      size_t msglen) {
  char q[100];
  const char *eq = memchr(h, '=', len);
  size_t klen = eq ? (size_t)(eq - h) : len;
  const char *v = eq ? eq + 1 : NULL;
  size_t vlen = eq ? len - klen - 1 : 0;
  nss_quote(q, sizeof q, h, len);
  if (len == 0) {
    snprintf(msg, msglen, "empty hint (a comma too many)");
    return -1;
  }
  if (klen == 11 && memcmp(h, "preemptible", 11) == 0) { /* a flag: no value */
    if (eq != NULL) {
      snprintf(msg, msglen, "hint 'preemptible' takes no value (got '%s')", q);
      return -1;
    }
    if (seen[2]++) {
      snprintf(msg, msglen, "hint 'preemptible' given twice");
      return -1;
    }
    job->preemptible = 1;
    return 0;
  }
  int which = klen == 5 && memcmp(h, "model", 5) == 0   ? 0
              : klen == 5 && memcmp(h, "iters", 5) == 0 ? 1
                                                        : -1;
  if (which < 0) {
    nss_quote(q, sizeof q, h, klen);
    snprintf(msg, msglen, "unknown hint '%s' (known: model, iters, preemptible)", q);
    return -1;
  }
  if (eq == NULL) {
    snprintf(msg, msglen, "hint '%s' is not key=value", q);
    return -1;
  }
  if (seen[which]++) {
    snprintf(msg, msglen, "hint '%s' given twice", which ? "iters" : "model");
    return -1;
  }
  nss_quote(q, sizeof q, v, vlen);
  if (which == 0) {
    char name[64];
    job->model = -1;
    if (vlen < sizeof name) {
      memcpy(name, v, vlen);
      name[vlen] = '\0';
      job->model = nss_model_find(name);
    }
    if (job->model < 0) {
      snprintf(msg, msglen, "unknown model '%s' (known: %s)", q, nss_model_names());
      return -1;
    }
    return 0;
  }
  /* iters: decimal digits only, checked for overflow as they are read */
  unsigned long long x = 0;
  size_t i = 0;
  for (; i < vlen && v[i] >= '0' && v[i] <= '9'; i++) {
    x = x * 10 + (unsigned)(v[i] - '0');
    if (x > ITERS_MAX)
      break;
  }
  if (vlen == 0 || i != vlen || x == 0 || x > ITERS_MAX) {
    snprintf(msg, msglen, "hint iters '%s' is not a whole number in [1, 2^53] (decimal digits only)",
             q);
    return -1;
  }
  job->iters = x;
  return 0;
}

int nss_parse_hints(nss_job *job, char *msg, size_t msglen) {
  job->model = -1;
  job->iters = 0;
  job->preemptible = 0;
  msg[0] = '\0';
  free(job->hints);
  const char *c = job->comment ? job->comment : "";
  size_t len = strlen(c), user = nss_comment_user_len(c);
  if (len > NSS_COMMENT_READ_MAX) { /* bounded input: not parsed, never rewritten */
    job->hints = NULL;
    snprintf(msg, msglen, "its comment is %zu bytes, more than netsched-slurm reads (%d)", len,
             NSS_COMMENT_READ_MAX);
    return -1;
  }
  if ((job->hints = malloc(user + 1)) == NULL) {
    snprintf(msg, msglen, "out of memory");
    return -2;
  }
  memcpy(job->hints, c, user);
  job->hints[user] = '\0';
  size_t m = strlen(NSS_MARKER);
  if (strncmp(job->hints, NSS_MARKER, m) != 0 || job->hints[m] != ':')
    return 0;
  const char *h = job->hints + m + 1;
  size_t hlen = strlen(h);
  int seen[3] = {0, 0, 0};
  char why[NSS_MAX_REASON + 1];
  for (size_t at = 0; hlen > 0 && at <= hlen;) { /* "netsched:" alone: no hints */
    size_t n = 0;
    while (at + n < hlen && h[at + n] != ',')
      n++;
    if (parse_hint(job, h + at, n, seen, why, sizeof why) < 0) {
      job->preemptible = 0; /* a refused comment opts into nothing */
      snprintf(msg, msglen, "bad hint in comment: %s", why);
      return -1;
    }
    at += n + 1;
  }
  return 0;
}
