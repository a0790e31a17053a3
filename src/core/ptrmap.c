/*
 * src/core/ptrmap.c - open-addressing map from a nonzero 64-bit key (a
 * borrowed handle's address, or a packed pair) to an index, so that building
 * an Affinity graph or a candidate, or checking a link for duplicate jobs,
 * stays linear in its size; and a map kept across calls with keys removed
 * (nsi_ptrmap_del, backward-shift deletion: no tombstones).
 */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

static size_t slot_of(uint64_t x, size_t cap) {
  /* murmur3 finalizer */
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return (size_t)x & (cap - 1);
}

size_t nsi_ptrmap_get(const nsi_ptrmap *m, uint64_t key) {
  if (m->cap == 0)
    return SIZE_MAX;
  for (size_t i = slot_of(key, m->cap); m->keys[i] != 0; i = (i + 1) & (m->cap - 1))
    if (m->keys[i] == key)
      return m->vals[i];
  return SIZE_MAX;
}

static void insert(uint64_t *keys, size_t *vals, size_t cap, uint64_t key, size_t val) {
  size_t i = slot_of(key, cap);
  while (keys[i] != 0)
    i = (i + 1) & (cap - 1);
  keys[i] = key;
  vals[i] = val;
}

/* Keeps the load factor <= 1/2. */
static int grow(nsi_ptrmap *m) {
  size_t cap = m->cap ? m->cap * 2 : 16;
  uint64_t *keys = calloc(cap, sizeof *keys);
  size_t *vals = malloc(cap * sizeof *vals);
  if (keys == NULL || vals == NULL) {
    free(keys);
    free(vals);
    return NS_ENOMEM;
  }
  for (size_t i = 0; i < m->cap; i++)
    if (m->keys[i] != 0)
      insert(keys, vals, cap, m->keys[i], m->vals[i]);
  free(m->keys);
  free(m->vals);
  m->keys = keys;
  m->vals = vals;
  m->cap = cap;
  return NS_OK;
}

int nsi_ptrmap_reserve(nsi_ptrmap *m, size_t extra) {
  while ((m->count + extra) * 2 > m->cap)
    if (grow(m) != NS_OK)
      return NS_ENOMEM;
  return NS_OK;
}

int nsi_ptrmap_put(nsi_ptrmap *m, uint64_t key, size_t val) {
  if (nsi_ptrmap_reserve(m, 1) != NS_OK)
    return NS_ENOMEM;
  insert(m->keys, m->vals, m->cap, key, val);
  m->count++;
  return NS_OK;
}

size_t *nsi_ptrmap_ref(nsi_ptrmap *m, uint64_t key) {
  if (m->cap == 0)
    return NULL;
  for (size_t i = slot_of(key, m->cap); m->keys[i] != 0; i = (i + 1) & (m->cap - 1))
    if (m->keys[i] == key)
      return &m->vals[i];
  return NULL;
}

/* Linear probing without tombstones: after emptying slot i, each key of
   the cluster that follows it moves back into the hole unless its home
   slot lies cyclically in (hole, its position] (Knuth 6.4 Algorithm R). */
void nsi_ptrmap_del(nsi_ptrmap *m, uint64_t key) {
  if (m->cap == 0)
    return;
  size_t mask = m->cap - 1, i = slot_of(key, m->cap);
  while (m->keys[i] != key) {
    if (m->keys[i] == 0)
      return;
    i = (i + 1) & mask;
  }
  m->keys[i] = 0;
  m->count--;
  for (size_t j = (i + 1) & mask; m->keys[j] != 0; j = (j + 1) & mask) {
    size_t home = slot_of(m->keys[j], m->cap);
    /* stays if home is in (i, j] cyclically */
    if (i <= j ? (home > i && home <= j) : (home > i || home <= j))
      continue;
    m->keys[i] = m->keys[j], m->vals[i] = m->vals[j];
    m->keys[j] = 0;
    i = j;
  }
}

void nsi_ptrmap_clear(nsi_ptrmap *m) {
  if (m->cap > 0)
    memset(m->keys, 0, m->cap * sizeof *m->keys);
  m->count = 0;
}

void nsi_ptrmap_free(nsi_ptrmap *m) {
  free(m->keys);
  free(m->vals);
  m->keys = NULL;
  m->vals = NULL;
  m->cap = m->count = 0;
}
