/*
 * src/core/util.c - growable buffers, version.
 */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

const char *ns_version(void) { return NS_VERSION_STRING; }
int ns_version_number(void) { return NS_VERSION_NUMBER; }

int nsi_reserve(void *bufp, size_t *cap, size_t need, size_t elem) {
  void **buf = (void **)bufp;
  if (need <= *cap)
    return NS_OK;
  size_t ncap = *cap ? *cap : 8;
  while (ncap < need) {
    if (ncap > SIZE_MAX / 2)
      return nsi_fail(NS_ENOMEM, "allocation of %zu elements overflows", need);
    ncap *= 2;
  }
  if (ncap > SIZE_MAX / elem)
    return nsi_fail(NS_ENOMEM, "allocation of %zu elements overflows", need);
  void *nb = realloc(*buf, ncap * elem);
  if (nb == NULL)
    return nsi_fail(NS_ENOMEM, "out of memory growing a buffer to %zu elements", ncap);
  *buf = nb;
  *cap = ncap;
  return NS_OK;
}

char *nsi_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d)
    memcpy(d, s, n);
  return d;
}

int nsi_cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

void nsi_remove_int(int *v, size_t *n, int x) {
  for (size_t i = 0; i < *n; i++)
    if (v[i] == x) {
      memmove(v + i, v + i + 1, (*n - i - 1) * sizeof *v);
      (*n)--;
      return;
    }
}

size_t nsi_distinct_groups(const int *ids, size_t n, int divisor, int *out) {
  for (size_t i = 0; i < n; i++)
    out[i] = ids[i] / divisor;
  qsort(out, n, sizeof *out, nsi_cmp_int);
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (m == 0 || out[m - 1] != out[i])
      out[m++] = out[i];
  return m;
}

uint64_t nsi_splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
