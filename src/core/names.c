/*
 * src/core/names.c - "did you mean": the closest of a list of names to a
 * misspelt one, for the library's messages about an unknown name (presets)
 * and for callers' own lists (ns_closest_name: netsched-sim's and
 * netsched-slurm's options and values), so every hint follows one rule.
 */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"

/* Longer names are never close to anything: the distance rows live on the
   stack. */
#define NAME_MAX_LEN 64

/* Levenshtein distance (one insertion, deletion or substitution per edit)
   of a[0 .. la) and b[0 .. lb), both at most NAME_MAX_LEN: the classic
   dynamic programme, one row at a time. */
static int distance(const char *a, size_t la, const char *b, size_t lb) {
  int prev[NAME_MAX_LEN + 1], cur[NAME_MAX_LEN + 1];
  for (size_t j = 0; j <= lb; j++)
    prev[j] = (int)j;
  for (size_t i = 1; i <= la; i++) {
    cur[0] = (int)i;
    for (size_t j = 1; j <= lb; j++) {
      int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
      int del = prev[j] + 1, ins = cur[j - 1] + 1;
      cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
    }
    memcpy(prev, cur, (lb + 1) * sizeof *cur);
  }
  return prev[lb];
}

int nsi_closest_name(const char *s, const char *const *names, int n) {
  size_t ls = strlen(s);
  if (ls == 0 || ls > NAME_MAX_LEN)
    return -1;
  /* within a third of the length, at least 2 edits - but fewer edits than
     a 1-2 character name has, or every short name would be "close" */
  int limit = ls < 3 ? 1 : ls < 6 ? 2 : (int)(ls / 3);
  int best = -1, bd = limit + 1;
  for (int i = 0; i < n; i++) {
    size_t li = strlen(names[i]);
    size_t gap = li > ls ? li - ls : ls - li; /* a lower bound of the distance */
    if (li > NAME_MAX_LEN || gap >= (size_t)bd)
      continue;
    int d = distance(s, ls, names[i], li);
    if (d < bd) /* strictly: the first of equally close names */
      best = i, bd = d;
  }
  return best;
}

int nsi_fail_unknown_name(const char *fn, const char *arg, const char *value, const char *what,
                          const char *const *names, int n) {
  char list[400], hint[96] = "";
  size_t at = 0;
  list[0] = '\0';
  for (int i = 0; i < n && at < sizeof list; i++)
    at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", i ? ", " : "", names[i]);
  int k = nsi_closest_name(value, names, n);
  if (k >= 0)
    snprintf(hint, sizeof hint, "; did you mean '%.64s'?", names[k]);
  return nsi_fail(NS_EINVAL, "%s: %s '%.64s' is not a %s%s (valid: %s)", fn, arg, value, what,
                  hint, list);
}

int ns_closest_name(const char *name, const char *const *names, int n) {
  static const char fn[] = "ns_closest_name";
  NSI_TRY(nsi_check_ptr(name, fn, "name"));
  NSI_TRY(nsi_check_int(n, 0, 1 << 20, fn, "n"));
  if (n > 0)
    NSI_TRY(nsi_check_ptr(names, fn, "names"));
  for (int i = 0; i < n; i++)
    if (names[i] == NULL)
      return nsi_fail(NS_EINVAL, "%s: names[%d] is NULL", fn, i);
  int k = nsi_closest_name(name, names, n);
  return k >= 0 ? k : NS_ENOTFOUND; /* an answer, not a failure: ns_last_error() kept */
}
