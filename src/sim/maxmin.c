/*
 * src/sim/maxmin.c - incremental max-min for the phase model's groups
 * (net_phase.c): the all-reduces of one group over the links they share.
 *
 * A group's structure (members, the links they share with multiplicity,
 * each member's own limit on its other links) is fixed while its
 * membership and the links' capacities are; what changes at every phase
 * boundary is which members are transferring (active). Max-min fairness is
 * separable by connected component (items joined by a shared resource), so
 * after a boundary only the active items connected to the items that
 * changed can move: nsi_mm_solve finds that component by a breadth-first
 * search over resource -> item lists and solves it by progressive filling
 * (nsi_sim_fill, at the end of this file; the fluid models call it too)
 * over it alone - the same solve as before, on
 * the same items in the same (ascending) order.
 *
 * Memos: the rates of a component depend only on which items are in it
 * (the structure is fixed). Two memos are kept until the structure changes
 * (nsi_mm_build): the partition of each whole active set with its rates
 * (one hash of the active-set bits answers most solves: a group's phases
 * repeat, 93 % on the 1,500-job Philly window at row 20,000, ff, 256 GPUs),
 * and, below it, each solved component (part) by its own item set, so that
 * a new active set whose changed part was met before, or whose other parts
 * stand, fills nothing again. Each memo has two generations of at most
 * NSI_MM_MEMO rates: a full generation becomes the older and the older is
 * dropped, and a set found in the older is kept again in the newer (the
 * memo used to start again when full, losing the sets met recently as
 * well: at row 45,000, load 3.14, a group of ~50 all-reduces turned it over
 * every few seconds). A hit returns the very rates the fill returned then,
 * so the memos change no result (the rates are a function of the set;
 * test_memo_generations_exact compares them with fresh fills bit for bit).
 * An item leaving (nsi_mm_drop: a member finishes, is preempted or leaves
 * a partial restart) and capacities changing on some resources
 * (nsi_mm_set_cap: the leaver now loads its links) keep the structure,
 * where a rebuild cost more than the fills it saved; a drop keeps the
 * memos too, a capacity change empties them (test_drop_and_recap_match_rebuild:
 * the same rates, bit for bit, as a structure built afresh).
 *
 * Contention (sim.h): a resource carrying k > 1 active items of a solve
 * delivers its capacity x e(k); e is given per k at build (NULL: e = 1).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_internal.h"

/* Rates kept per generation of each memo, at most (32 MB of doubles; a
   group's memos hold at most ~4 x 50 MB with their keys and partitions,
   and only a group that meets that many sets grows them: on the busy
   1,500-job Philly window at row 45,000 the exact ff run reached ~250 MB
   and 2^22 ran ~30 % faster there than 2^19, which turned over its
   generations every few seconds). */
#define NSI_MM_MEMO (1u << 22)

/* A memo entry is one piece of its generation's pool (8-byte aligned):
   the item set (m->words words), its nr rates, and in the set memo the
   partition as ints: np, poff[0 .. np], the items by part. One piece, and
   the hash kept in the slot beside the entry's place: a hit reads the slot
   and then adjacent lines, where separate pools for entries, keys, ints and
   rates cost a cache miss each (memo_find and the rates' first read were
   ~15 % of an exact 2d-las run on the busy Philly window). */
static const double *ent_rate(const nsi_mm *m, const unsigned char *e) {
  return (const double *)(const void *)(e + m->words * sizeof(uint64_t));
}
static const int *ent_ints(const nsi_mm *m, const unsigned char *e, size_t nr) {
  return (const int *)(const void *)(e + (m->words + nr) * sizeof(uint64_t));
}

static int grow(void *bufp, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap)
    return 1;
  size_t c = need > 2 * *cap ? need : 2 * *cap;
  void **buf = (void **)bufp, *nb = realloc(*buf, c * elem);
  if (nb == NULL)
    return 0;
  *buf = nb, *cap = c;
  return 1;
}

static void gen_clear(nsi_mm_memo *g) {
  size_t had = g->nent;
  g->nent = g->npool = g->nrp = 0;
  if (g->slot != NULL && had > 0) /* (empty: every slot is 0 already) */
    memset(g->slot, 0, g->nslot * sizeof *g->slot);
}

static void gen_free(nsi_mm_memo *g) {
  free(g->slot), free(g->pool);
}

static void memo_clear(nsi_mm *m) {
  for (int g = 0; g < 2; g++)
    gen_clear(&m->set[g]), gen_clear(&m->part[g]);
}

void nsi_mm_free(nsi_mm *m) {
  if (m == NULL)
    return;
  free(m->ist), free(m->ir), free(m->rst), free(m->ri), free(m->rcap), free(m->icap);
  free(m->ek), free(m->on), free(m->rmark), free(m->imark), free(m->comp), free(m->rate);
  free(m->akey), free(m->pkey), free(m->lab), free(m->pitem), free(m->poff), free(m->prate);
  free(m->pcnt);
  free(m->queue), free(m->res), free(m->nres), free(m->ic), free(m->capk);
  free(m->out), free(m->lid), free(m->cnt), free(m->coff), free(m->ctab);
  free(m->ra), free(m->idr), free(m->xown), free(m->ipos), free(m->idst), free(m->na);
  free(m->idm), free(m->am), free(m->fl), free(m->flres), free(m->fcnt), free(m->fsl);
  free(m->fol), free(m->ffz), free(m->xpos), free(m->frem), free(m->fkey), free(m->fokey);
  free(m->fdy), free(m->fdl), free(m->job), free(m->live), free(m->fpos), free(m->opos);
  free(m->fcand), free(m->ocand);
  for (int g = 0; g < 2; g++)
    gen_free(&m->set[g]), gen_free(&m->part[g]);
  nsi_sim_fill_free(&m->fill);
  memset(m, 0, sizeof *m);
}

int nsi_mm_build(nsi_mm *m, int n, const int *const *res, const size_t *nres, const double *icap,
                 int nr, const double *rcap, const double *ek) {
  size_t inc = 0;
  for (int i = 0; i < n; i++)
    inc += nres[i];
  size_t un = (size_t)n + 1, ur = (size_t)nr + 1;
  int ok = 1;
#define NSI_MM_ARR(p, c, k) ok &= grow(&m->p, &m->c, (k), sizeof *m->p)
  NSI_MM_ARR(ist, cap_ist, un);
  NSI_MM_ARR(ir, cap_ir, inc ? inc : 1);
  NSI_MM_ARR(ri, cap_ri, inc ? inc : 1);
  NSI_MM_ARR(ra, cap_ra, inc ? inc : 1);
  NSI_MM_ARR(idr, cap_idr, inc ? inc : 1);
  NSI_MM_ARR(xown, cap_xown, inc ? inc : 1);
  NSI_MM_ARR(ipos, cap_ipos, inc ? inc : 1);
  NSI_MM_ARR(idst, cap_idst, un);
  NSI_MM_ARR(na, cap_na, ur);
  NSI_MM_ARR(rst, cap_rst, ur + 1);
  NSI_MM_ARR(rcap, cap_rcap, ur);
  NSI_MM_ARR(rmark, cap_rmark, ur);
  NSI_MM_ARR(lid, cap_lid, ur);
  NSI_MM_ARR(cnt, cap_cnt, ur);
  NSI_MM_ARR(capk, cap_capk, ur);
  NSI_MM_ARR(coff, cap_coff, ur);
  NSI_MM_ARR(queue, cap_queue, ur);
  NSI_MM_ARR(icap, cap_icap, un);
  NSI_MM_ARR(ek, cap_ek, un);
  NSI_MM_ARR(on, cap_on, un);
  NSI_MM_ARR(job, cap_job, un);
  NSI_MM_ARR(live, cap_live, ur);
  NSI_MM_ARR(imark, cap_imark, un);
  NSI_MM_ARR(comp, cap_comp, un);
  NSI_MM_ARR(rate, cap_rate, un);
  NSI_MM_ARR(res, cap_res, un);
  NSI_MM_ARR(nres, cap_nres, un);
  NSI_MM_ARR(ic, cap_ic, un);
  NSI_MM_ARR(out, cap_out, un);
  m->words = ((size_t)n + 63) / 64;
  NSI_MM_ARR(akey, cap_akey, m->words ? m->words : 1);
  NSI_MM_ARR(pkey, cap_pkey, m->words ? m->words : 1);
  NSI_MM_ARR(lab, cap_lab, un);
  NSI_MM_ARR(pitem, cap_pitem, un);
  NSI_MM_ARR(poff, cap_poff, un + 1);
  NSI_MM_ARR(prate, cap_prate, un);
  NSI_MM_ARR(pcnt, cap_pcnt, un);
  NSI_MM_ARR(idm, cap_idm, inc ? inc : 1);
  NSI_MM_ARR(am, cap_am, ur);
  NSI_MM_ARR(fl, cap_fl, ur);
  NSI_MM_ARR(flres, cap_flres, ur);
  NSI_MM_ARR(fcnt, cap_fcnt, ur);
  NSI_MM_ARR(fsl, cap_fsl, ur);
  NSI_MM_ARR(frem, cap_frem, ur);
  NSI_MM_ARR(fkey, cap_fkey, ur);
  NSI_MM_ARR(fol, cap_fol, un);
  NSI_MM_ARR(ffz, cap_ffz, un);
  NSI_MM_ARR(xpos, cap_xpos, un);
  NSI_MM_ARR(fokey, cap_fokey, un);
  NSI_MM_ARR(fdy, cap_fdy, ur);
  NSI_MM_ARR(fdl, cap_fdl, ur);
  NSI_MM_ARR(fpos, cap_fpos, ur);
  NSI_MM_ARR(opos, cap_opos, un);
  NSI_MM_ARR(fcand, cap_fcand, ur);
  NSI_MM_ARR(ocand, cap_ocand, un);
#undef NSI_MM_ARR
  if (!ok)
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory solving max-min over %d flows", n);
  m->n = n, m->nr = nr, m->has_ek = ek != NULL;
  m->ist[0] = 0;
  for (int i = 0; i < n; i++) {
    memcpy(m->ir + m->ist[i], res[i], nres[i] * sizeof *m->ir);
    m->ist[i + 1] = m->ist[i] + (int)nres[i];
    m->icap[i] = icap[i];
    m->on[i] = 0, m->imark[i] = 0, m->rate[i] = 0, m->job[i] = i;
    m->ek[i + 1] = ek != NULL ? ek[i + 1] : 1.0;
  }
  m->ek[0] = 1.0;
  memset(m->akey, 0, m->words * sizeof *m->akey);
  memset(m->pkey, 0, m->words * sizeof *m->pkey);
  m->recap = 0;
  m->nact = 0;
  /* item -> distinct resources (incidence x: resource idr[x] of item xown[x]) */
  m->idst[0] = 0;
  for (int i = 0; i < n; i++) {
    int d = m->idst[i];
    for (int x = m->ist[i]; x < m->ist[i + 1]; x++)
      if (x == m->ist[i] || m->ir[x] != m->ir[x - 1])
        m->idr[d] = m->ir[x], m->xown[d] = i, m->idm[d++] = 1;
      else
        m->idm[d - 1]++; /* one more flow of the item there */
    m->idst[i + 1] = d;
  }
  /* resource -> distinct items, ascending (items are visited in order) */
  for (int r = 0; r <= nr; r++)
    m->rst[r] = 0;
  for (int i = 0; i < n; i++)
    for (int x = m->ist[i]; x < m->ist[i + 1]; x++)
      if (x == m->ist[i] || m->ir[x] != m->ir[x - 1])
        m->rst[m->ir[x] + 1]++;
  for (int r = 0; r < nr; r++)
    m->rst[r + 1] += m->rst[r];
  for (int r = 0; r < nr; r++)
    m->cnt[r] = m->rst[r];
  for (int i = 0; i < n; i++)
    for (int x = m->ist[i]; x < m->ist[i + 1]; x++)
      if (x == m->ist[i] || m->ir[x] != m->ir[x - 1])
        m->ri[m->cnt[m->ir[x]]++] = i;
  for (int r = 0; r < nr; r++)
    m->rcap[r] = rcap[r], m->rmark[r] = 0, m->lid[r] = -1, m->cnt[r] = 0, m->na[r] = 0,
    m->am[r] = 0, m->fl[r] = -1, m->live[r] = m->rst[r + 1] - m->rst[r];
  for (int r = 0; r < nr; r++)
    m->coff[r] = -1;
  m->nctab = 0;
  m->stamp = 0;
  memo_clear(m);
  return NS_OK;
}

int nsi_mm_cap_table(nsi_mm *m, int r, const double *tab) {
  size_t k = (size_t)(m->rst[r + 1] - m->rst[r]) + 1;
  if (!grow(&m->ctab, &m->cap_ctab, m->nctab + k, sizeof *m->ctab))
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory solving max-min over %d flows", m->n);
  memcpy(m->ctab + m->nctab, tab, k * sizeof *tab);
  m->coff[r] = (int)m->nctab;
  m->nctab += k;
  return NS_OK;
}

/* Active items per resource: ra[rst[r] .. rst[r] + na[r]) holds their
   incidences (swap-removed through ipos), so a search walks only the
   transferring items of a link, not every member on it. */
void nsi_mm_set(nsi_mm *m, int i, int on) {
  on = on != 0;
  if (m->on[i] == on)
    return;
  m->on[i] = (unsigned char)on;
  m->akey[i / 64] ^= 1ull << (i % 64);
  m->nact += on ? 1 : -1;
  for (int x = m->idst[i]; x < m->idst[i + 1]; x++) {
    int r = m->idr[x];
    m->am[r] += on ? m->idm[x] : -m->idm[x];
    if (on) {
      m->ipos[x] = m->na[r];
      m->ra[m->rst[r] + m->na[r]++] = x;
    } else {
      int at = m->ipos[x], last = m->ra[m->rst[r] + --m->na[r]];
      m->ra[m->rst[r] + at] = last;
      m->ipos[last] = at;
    }
  }
}

/* A dropped item is off for good and counts on no resource: where one
   item is left, the fill (na < 2) takes the resource as that item's own
   limit, cap_k(r, 1) / flows, which is what a structure built without the
   dropped item has in the item's own limit (e(1) = 1: the capacity
   itself), and the partition joins nothing through it. */
void nsi_mm_drop(nsi_mm *m, int i) {
  nsi_mm_set(m, i, 0);
  m->job[i] = -1;
  for (int x = m->idst[i]; x < m->idst[i + 1]; x++)
    m->live[m->idr[x]]--;
}

int nsi_mm_shared(const nsi_mm *m, int r) { return m->live[r] >= 2; }

int nsi_mm_set_cap(nsi_mm *m, int r, double rcap, const double *tab) {
  m->rcap[r] = rcap;
  if (tab == NULL) {
    m->coff[r] = -1;
  } else if (m->coff[r] >= 0) { /* the same size: in place */
    memcpy(m->ctab + m->coff[r], tab, (size_t)(m->rst[r + 1] - m->rst[r] + 1) * sizeof *tab);
  } else {
    NSI_TRY(nsi_mm_cap_table(m, r, tab));
  }
  m->recap = 1;
  return NS_OK;
}

static uint64_t mix(uint64_t x) { /* splitmix64's finaliser */
  x ^= x >> 30, x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27, x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

static uint64_t key_hash(const uint64_t *k, size_t w) {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  for (size_t i = 0; i < w; i++)
    h = mix(h ^ k[i]) + i;
  return h ? h : 1;
}

/* The entry of generation g under item set key (m->words words), or NULL. */
static const unsigned char *memo_find(const nsi_mm *m, const nsi_mm_memo *g, const uint64_t *key,
                                      uint64_t h) {
  if (g->nslot == 0)
    return NULL;
  for (size_t at = h & (g->nslot - 1);; at = (at + 1) & (g->nslot - 1)) {
    const nsi_mm_slot *x = &g->slot[at];
    if (x->at == 0)
      return NULL;
    if (x->hash == h) {
      const unsigned char *e = g->pool + x->at - 1;
      const uint64_t *k = (const uint64_t *)(const void *)e;
      size_t w = 0;
      while (w < m->words && k[w] == key[w]) /* inline: mostly one word */
        w++;
      if (w == m->words)
        return e;
    }
  }
}

/* Keeps ni ints and nr rates under item set key in the newer generation of
   memo g[2] (*gen: which one). A full one becomes the older and the older is
   dropped: the sets met recently survive a turnover, where starting the memo
   again lost them all (on a busy 1,500-job Philly window a group of ~30
   all-reduces meets more sets than a generation holds, and the older
   answers a good part of them). The inputs must not point into the older
   generation. NS_OK or NS_ENOMEM (the memo still consistent). */
static int memo_add(nsi_mm *m, nsi_mm_memo *gens, int *gen, const uint64_t *key, uint64_t h,
                    int np, const int *off, const int *item, const double *rate, size_t nr) {
  size_t ni = off != NULL ? (size_t)np + 2 + nr : 0; /* np, poff[0 .. np], items */
  size_t bytes = (m->words + nr) * sizeof(uint64_t) + (ni * sizeof(int) + 7) / 8 * 8;
  size_t cap = m->memo_cap ? m->memo_cap : NSI_MM_MEMO;
  nsi_mm_memo *g = &gens[*gen];
  if (g->nrp + nr > cap && g->nent > 0) {
    *gen ^= 1;
    g = &gens[*gen];
    gen_clear(g);
  }
  if (2 * (g->nent + 1) > g->nslot) { /* load <= 1/2: rehash into twice the slots */
    size_t ns = g->nslot ? 2 * g->nslot : 64;
    nsi_mm_slot *slot = calloc(ns, sizeof *slot);
    if (slot == NULL)
      return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
    for (size_t e = 0; e < g->nslot; e++) {
      if (g->slot[e].at == 0)
        continue;
      size_t at = g->slot[e].hash & (ns - 1);
      while (slot[at].at != 0)
        at = (at + 1) & (ns - 1);
      slot[at] = g->slot[e];
    }
    free(g->slot);
    g->slot = slot, g->nslot = ns;
  }
  if (!grow(&g->pool, &g->cap_pool, g->npool + bytes, 1))
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
  unsigned char *e = g->pool + g->npool;
  memcpy(e, key, m->words * sizeof *key);
  memcpy(e + m->words * sizeof(uint64_t), rate, nr * sizeof *rate);
  if (off != NULL) {
    unsigned char *ip = e + (m->words + nr) * sizeof(uint64_t);
    memcpy(ip, &np, sizeof np);
    memcpy(ip + sizeof(int), off, ((size_t)np + 1) * sizeof *off);
    memcpy(ip + ((size_t)np + 2) * sizeof(int), item, nr * sizeof *item);
  }
  size_t at = h & (g->nslot - 1);
  while (g->slot[at].at != 0)
    at = (at + 1) & (g->nslot - 1);
  g->slot[at].hash = h, g->slot[at].at = g->npool + 1;
  g->npool += bytes, g->nrp += nr, g->nent++;
  return NS_OK;
}


/* The capacity of resource r in a solve with k of its items active. */
static double cap_k(const nsi_mm *m, int r, int k) {
  if (!m->has_ek)
    return m->rcap[r];
  return m->coff[r] >= 0 ? m->ctab[m->coff[r] + k] : m->rcap[r] * m->ek[k];
}

/* Progressive filling over m->comp (ascending; a union of whole components
   of the active items, so every active item on a resource it touches is in
   it), rates into m->out: nsi_sim_fill's rounds on the group's own
   structure instead of lists built per call (a miss on a busy Philly window
   filled ~30 all-reduces over ~140 incidences per solve, and building the
   generic fill's resource map, CSR and heap was most of it). The same
   rates bit for bit: each round's level is the lowest of the same keys
   (capacity left / flows unfrozen on each shared resource, each item's own
   limit), the same entries (within 1e-9 of it) freeze, and each frozen flow
   subtracts the level from its resource once per flow, as there (the order
   of equal subtractions does not matter); a linear scan finds the lowest
   key (at most a few dozen, and the keys only rise). The keys sit in
   arrays of their own, in the order of the alive lists (a resource or own
   limit that goes is swapped out at once, through fpos / opos), so the
   scans read one array each (the scans of keys through the lists, and of
   the lists for what had gone, were half of the fill: 2d-gittins on
   30,000 Philly rows, ~19 shared resources alive per round). The active
   lists give each resource's items (na: distinct, am: flows) without a
   pass over the incidences. */
static int mm_fill(nsi_mm *m, double demand) {
  int n = m->ncomp, nl = 0, no = 0, left = 0;
  double *rate = m->out, *key = m->fkey, *okey = m->fokey;
  int *fsl = m->fsl, *fol = m->fol, *fpos = m->fpos, *opos = m->opos;
  for (int x = 0; x < n; x++) {
    int i = m->comp[x];
    double own = m->icap[i];
    rate[x] = -1.0, m->xpos[i] = x, opos[x] = -1;
    for (int d = m->idst[i]; d < m->idst[i + 1]; d++) {
      int r = m->idr[d], k = m->na[r];
      if (k >= 2) { /* shared in the solve */
        if (m->fl[r] < 0) {
          m->fl[r] = nl, m->flres[nl] = r;
          m->frem[nl] = cap_k(m, r, k), m->fcnt[nl] = m->am[r];
          key[nl] = m->frem[nl] / m->fcnt[nl];
          fsl[nl] = nl, fpos[nl] = nl;
          nl++;
        }
      } else { /* the item's own: its limit there */
        double v = cap_k(m, r, 1) / m->idm[d];
        own = v < own ? v : own;
      }
    }
    if (m->idst[i] == m->idst[i + 1] && !isfinite(own)) {
      rate[x] = demand; /* nothing limits it */
      continue;
    }
    left++;
    if (isfinite(own))
      opos[x] = no, fol[no] = x, okey[no++] = own;
  }
  int ns = nl, nround = 0; /* alive: fsl[0 .. ns) shared resources with a flow left, fol[0 ..
                               no) own limits of unfrozen items; fdl[0 .. nd) the shared
                               ones a round's freezes touched */
  for (int l = 0; l < nl; l++)
    m->fdy[l] = -1;
  while (left > 0) {
    /* one scan: the lowest key, and as candidates every key within 1e-9 of
       the lowest so far (floored as the level is) - a superset of the keys
       within 1e-9 of the level, which the candidates are filtered by */
    double low = INFINITY, cthr = INFINITY;
    int nfc = 0, noc = 0;
    for (int a = 0; a < ns; a++)
      if (key[a] <= cthr) {
        m->fcand[nfc++] = fsl[a];
        if (key[a] < low)
          low = key[a], cthr = (low > 1e-12 ? low : 1e-12) * (1 + 1e-9);
      }
    for (int a = 0; a < no; a++)
      if (okey[a] <= cthr) {
        m->ocand[noc++] = fol[a];
        if (okey[a] < low)
          low = okey[a], cthr = (low > 1e-12 ? low : 1e-12) * (1 + 1e-9);
      }
    double level = low < demand ? low : demand;
    if (level < 1e-12)
      level = 1e-12;
    int nf = 0, nd = 0;
    if (level >= demand * (1 - 1e-12)) { /* every item left reaches the demand */
      for (int x = 0; x < n; x++)
        if (rate[x] == -1.0)
          m->ffz[nf++] = x;
    } else {
      double thr = level * (1 + 1e-9);
      for (int c = 0; c < nfc; c++) {
        int l = m->fcand[c], a = fpos[l];
        if (key[a] > thr)
          continue;
        ns--, fsl[a] = fsl[ns], key[a] = key[ns], fpos[fsl[a]] = a, fpos[l] = -1;
        int r = m->flres[l]; /* popped: every item on it freezes */
        for (int y = m->rst[r], e = y + m->na[r]; y < e; y++) {
          int x = m->xpos[m->xown[m->ra[y]]];
          if (rate[x] == -1.0)
            rate[x] = -2.0, m->ffz[nf++] = x;
        }
      }
      for (int c = 0; c < noc; c++) {
        int x = m->ocand[c];
        if (okey[opos[x]] <= thr && rate[x] == -1.0)
          rate[x] = -2.0, m->ffz[nf++] = x;
      }
    }
    if (nf == 0)
      break; /* cannot happen: the lowest level's items freeze */
    for (int q = 0; q < nf; q++) {
      int x = m->ffz[q], i = m->comp[x], a = opos[x];
      rate[x] = level, left--;
      if (a >= 0) { /* its own limit: gone */
        no--, fol[a] = fol[no], okey[a] = okey[no], opos[fol[a]] = a, opos[x] = -1;
      }
      for (int d = m->idst[i]; d < m->idst[i + 1]; d++) {
        int l = m->fl[m->idr[d]];
        if (l < 0)
          continue;
        int c = m->idm[d]; /* >= 1 */
        double fr = m->frem[l];
        do
          fr -= level;
        while (--c > 0);
        m->frem[l] = fr, m->fcnt[l] -= m->idm[d];
        if (m->fdy[l] != nround)
          m->fdy[l] = nround, m->fdl[nd++] = l;
      }
    }
    for (int q = 0; q < nd; q++) { /* levels that rose (only these moved); none left: gone */
      int l = m->fdl[q], a = fpos[l];
      if (a < 0)
        continue; /* popped this round */
      if (m->fcnt[l] > 0) {
        key[a] = m->frem[l] / m->fcnt[l];
      } else {
        ns--, fsl[a] = fsl[ns], key[a] = key[ns], fpos[fsl[a]] = a, fpos[l] = -1;
      }
    }
    nround++;
  }
  for (int l = 0; l < nl; l++)
    m->fl[m->flres[l]] = -1;
  return NS_OK;
}

/* Progressive filling over m->comp (ascending), rates into m->out. */
static int fill_comp(nsi_mm *m, double demand) {
  if (!m->generic_fill)
    return mm_fill(m, demand);
  for (int x = 0; x < m->ncomp; x++) {
    int i = m->comp[x];
    m->res[x] = m->ir + m->ist[i];
    m->nres[x] = (size_t)(m->ist[i + 1] - m->ist[i]);
    m->ic[x] = m->icap[i];
  }
  const double *cap = m->rcap;
  if (m->has_ek) { /* e(k) per resource, k = distinct items of the solve on it */
    for (int x = 0; x < m->ncomp; x++)
      for (size_t y = 0; y < m->nres[x]; y++)
        if (y == 0 || m->res[x][y] != m->res[x][y - 1])
          m->cnt[m->res[x][y]]++;
    for (int x = 0; x < m->ncomp; x++)
      for (size_t y = 0; y < m->nres[x]; y++) {
        int r = m->res[x][y];
        m->capk[r] = m->coff[r] >= 0 ? m->ctab[m->coff[r] + m->cnt[r]] : m->rcap[r] * m->ek[m->cnt[r]];
      }
    for (int x = 0; x < m->ncomp; x++)
      for (size_t y = 0; y < m->nres[x]; y++)
        m->cnt[m->res[x][y]] = 0;
    cap = m->capk;
  }
  return nsi_sim_fill(&m->fill, (size_t)m->ncomp, m->res, m->nres, m->ic, demand, cap, m->lid,
                      m->out);
}

static unsigned next_stamp(nsi_mm *m) {
  if (++m->stamp == 0) { /* wrapped: clear the marks */
    memset(m->rmark, 0, (size_t)m->nr * sizeof *m->rmark);
    memset(m->imark, 0, (size_t)m->n * sizeof *m->imark);
    m->stamp = 1;
  }
  return m->stamp;
}

/* The rates of the part comp[0 .. ncomp) (ascending) into out: recalled
   from the part memo (either generation: an older one's is kept again in
   the newer), else by progressive filling over the part alone and kept. A
   part's rates are a function of its item set (the structure is fixed) and
   a recalled one is the very rates its fill returned then. */
static int solve_part(nsi_mm *m, double demand) {
  const int *it = m->comp;
  int cnt = m->ncomp, rc = NS_OK;
  for (int q = 0; q < cnt; q++)
    m->pkey[it[q] / 64] |= 1ull << (it[q] % 64);
  uint64_t h = key_hash(m->pkey, m->words);
  const unsigned char *e = memo_find(m, &m->part[m->gen_part], m->pkey, h);
  if (e != NULL) {
    m->part_hits++;
    memcpy(m->out, ent_rate(m, e), (size_t)cnt * sizeof *m->out);
  } else if ((e = memo_find(m, &m->part[m->gen_part ^ 1], m->pkey, h)) != NULL) {
    m->part_hits++, m->hits_older++;
    memcpy(m->out, ent_rate(m, e), (size_t)cnt * sizeof *m->out);
    rc = memo_add(m, m->part, &m->gen_part, m->pkey, h, 0, NULL, NULL, m->out, (size_t)cnt);
  } else {
    m->part_misses++;
    rc = fill_comp(m, demand);
    if (rc == NS_OK)
      rc = memo_add(m, m->part, &m->gen_part, m->pkey, h, 0, NULL, NULL, m->out, (size_t)cnt);
  }
  for (int q = 0; q < cnt; q++)
    m->pkey[it[q] / 64] = 0;
  return rc;
}

/* Every component of the active items (breadth-first over the active
   incidences of each resource), each solved on its own (solve_part), items
   ascending: m->nparts, poff, pitem, prate, and lab (part of each active
   item). */
static int partition(nsi_mm *m, double demand) {
  unsigned st = next_stamp(m);
  int P = 0;
  /* the arrays read in locals: the stores to the marks and labels could
     alias them, and were read again at every step */
  const int *idst = m->idst, *idr = m->idr, *rst = m->rst, *na = m->na, *ra = m->ra;
  const int *xown = m->xown;
  unsigned *imark = m->imark, *rmark = m->rmark;
  int *lab = m->lab, *queue = m->queue;
  for (int s = 0; s < m->n; s++) {
    if (!m->on[s] || imark[s] == st)
      continue;
    int nq = 0;
    imark[s] = st, lab[s] = P;
    for (int x = idst[s]; x < idst[s + 1]; x++)
      if (rmark[idr[x]] != st)
        rmark[idr[x]] = st, queue[nq++] = idr[x];
    for (int q = 0; q < nq; q++) {
      int r = queue[q];
      for (int y = rst[r], e = y + na[r]; y < e; y++) {
        int i = xown[ra[y]];
        if (imark[i] == st)
          continue;
        imark[i] = st, lab[i] = P;
        for (int x = idst[i], xe = idst[i + 1]; x < xe; x++)
          if (rmark[idr[x]] != st)
            rmark[idr[x]] = st, queue[nq++] = idr[x];
      }
    }
    P++;
  }
  /* items by part, ascending within each (counting sort) */
  for (int p = 0; p <= P; p++)
    m->poff[p] = 0;
  for (int i = 0; i < m->n; i++)
    if (m->on[i])
      m->poff[m->lab[i] + 1]++;
  for (int p = 0; p < P; p++)
    m->poff[p + 1] += m->poff[p];
  for (int p = 0; p < P; p++)
    m->pcnt[p] = m->poff[p];
  for (int i = 0; i < m->n; i++)
    if (m->on[i])
      m->pitem[m->pcnt[m->lab[i]]++] = i;
  m->nparts = P;
  for (int p = 0; p < P; p++) {
    m->ncomp = m->poff[p + 1] - m->poff[p];
    memcpy(m->comp, m->pitem + m->poff[p], (size_t)m->ncomp * sizeof *m->comp);
    /* one part: it is the whole active set, which the set memo just
       missed and will keep - the part memo would hold the same rates
       under the same key (its look-ups and copies were pure cost where
       ~30 all-reduces form one component) */
    NSI_TRY(P == 1 ? fill_comp(m, demand) : solve_part(m, demand));
    memcpy(m->prate + m->poff[p], m->out, (size_t)m->ncomp * sizeof *m->prate);
  }
  return NS_OK;
}

/* The part of the active items on resource r (one: they share r), or -1. */
static int part_on(const nsi_mm *m, int r) {
  return m->na[r] > 0 ? m->lab[m->xown[m->ra[m->rst[r]]]] : -1;
}

/* The reference (m->scratch, tests): no memo; a breadth-first search from
   the seeds over the active items, the component it reached filled from
   scratch (what the phase model did before the memo). */
static int solve_scratch(nsi_mm *m, const int *seeds, int nseeds, const int *seed_res,
                         int nseed_res, double demand) {
  unsigned st = next_stamp(m);
  int nq = 0;
  m->ncomp = 0;
  for (int s = 0; s < nseeds; s++) {
    int i = seeds[s];
    if (m->on[i] && m->imark[i] != st)
      m->imark[i] = st, m->comp[m->ncomp++] = i;
    for (int x = m->idst[i]; x < m->idst[i + 1]; x++)
      if (m->rmark[m->idr[x]] != st)
        m->rmark[m->idr[x]] = st, m->queue[nq++] = m->idr[x];
  }
  for (int x = 0; x < nseed_res; x++)
    if (m->rmark[seed_res[x]] != st)
      m->rmark[seed_res[x]] = st, m->queue[nq++] = seed_res[x];
  for (int q = 0; q < nq; q++)
    for (int y = m->rst[m->queue[q]]; y < m->rst[m->queue[q]] + m->na[m->queue[q]]; y++) {
      int i = m->xown[m->ra[y]];
      if (m->imark[i] == st)
        continue;
      m->imark[i] = st, m->comp[m->ncomp++] = i;
      for (int x = m->idst[i]; x < m->idst[i + 1]; x++)
        if (m->rmark[m->idr[x]] != st)
          m->rmark[m->idr[x]] = st, m->queue[nq++] = m->idr[x];
    }
  for (int a = 1; a < m->ncomp; a++) /* ascending */
    for (int b = a; b > 0 && m->comp[b - 1] > m->comp[b]; b--) {
      int t = m->comp[b];
      m->comp[b] = m->comp[b - 1], m->comp[b - 1] = t;
    }
  if (m->ncomp == 0)
    return NS_OK;
  NSI_TRY(fill_comp(m, demand));
  for (int x = 0; x < m->ncomp; x++)
    m->rate[m->comp[x]] = m->out[x];
  return NS_OK;
}

/* The partition of the whole active set (m->akey) with its rates: recalled
   from the set memo (either generation; an older one's kept again in the
   newer), or partitioned now (each part from the part memo or filled) and
   kept. *P, *off, *item, *rate point at it; *labelled: m->lab is set. */
static int whole_set(nsi_mm *m, double demand, int *P, const int **off, const int **item,
                     const double **rate, int *labelled) {
  uint64_t h = key_hash(m->akey, m->words);
  const nsi_mm_memo *g = &m->set[m->gen_set];
  const unsigned char *e = memo_find(m, g, m->akey, h);
  size_t na = (size_t)m->nact;
  *labelled = 0;
  if (e == NULL && (e = memo_find(m, &m->set[m->gen_set ^ 1], m->akey, h)) != NULL) {
    const int *ip = ent_ints(m, e, na); /* copied out: the add below may drop it */
    m->nparts = ip[0];
    memcpy(m->poff, ip + 1, (size_t)(ip[0] + 1) * sizeof *m->poff);
    memcpy(m->pitem, ip + ip[0] + 2, na * sizeof *m->pitem);
    memcpy(m->prate, ent_rate(m, e), na * sizeof *m->prate);
    m->hits++, m->hits_older++;
  } else if (e != NULL) {
    const int *ip = ent_ints(m, e, na);
    *P = ip[0], *off = ip + 1, *item = ip + ip[0] + 2, *rate = ent_rate(m, e);
    m->hits++;
    return NS_OK;
  } else {
    m->misses++;
    NSI_TRY(partition(m, demand));
    *labelled = 1;
  }
  NSI_TRY(memo_add(m, m->set, &m->gen_set, m->akey, h, m->nparts, m->poff, m->pitem, m->prate,
                   (size_t)m->nact));
  *P = m->nparts, *off = m->poff, *item = m->pitem, *rate = m->prate;
  return NS_OK;
}

int nsi_mm_solve(nsi_mm *m, const int *seeds, int nseeds, const int *seed_res, int nseed_res,
                 double demand) {
  if (m->scratch)
    return solve_scratch(m, seeds, nseeds, seed_res, nseed_res, demand);
  m->ncomp = 0;
  if (m->nact == 0)
    return NS_OK;
  if (m->recap) /* capacities changed (nsi_mm_set_cap) */
    memo_clear(m), m->recap = 0;
  if (demand != m->demand) /* the memo holds rates for one demand */
    memo_clear(m), m->demand = demand;
  int P, labelled;
  const int *off, *item;
  const double *rate;
  NSI_TRY(whole_set(m, demand, &P, &off, &item, &rate, &labelled));
  if (!labelled && P > 1)
    for (int p = 0; p < P; p++)
      for (int x = off[p]; x < off[p + 1]; x++)
        m->lab[item[x]] = p;
  /* the parts the seeds touch: theirs, and those on their resources (the
     search from the seeds reached exactly these) */
  unsigned st = next_stamp(m);
  int any = 0;
  for (int s = 0; s < nseeds && !(any && P == 1); s++) {
    int i = seeds[s];
    if (m->on[i]) {
      any = 1;
      if (P > 1)
        m->imark[m->lab[i]] = st; /* imark: per part here */
      continue;
    }
    for (int x = m->idst[i]; x < m->idst[i + 1]; x++) {
      int p = part_on(m, m->idr[x]);
      if (p >= 0)
        any = 1, m->imark[P > 1 ? p : 0] = st;
    }
  }
  for (int x = 0; x < nseed_res && !(any && P == 1); x++) {
    int p = part_on(m, seed_res[x]);
    if (p >= 0)
      any = 1, m->imark[P > 1 ? p : 0] = st;
  }
  m->ncomp = 0; /* partition() used comp */
  if (!any)
    return NS_OK;
  for (int p = 0; p < P; p++) {
    if (P > 1 && m->imark[p] != st)
      continue;
    for (int x = off[p]; x < off[p + 1]; x++)
      m->comp[m->ncomp++] = item[x], m->rate[item[x]] = rate[x];
  }
  return NS_OK;
}

int nsi_mm_solve_all(nsi_mm *m, double demand) {
  m->ncomp = 0;
  for (int i = 0; i < m->n; i++)
    if (m->on[i])
      m->comp[m->ncomp++] = i;
  if (m->ncomp == 0)
    return NS_OK;
  NSI_TRY(fill_comp(m, demand));
  for (int x = 0; x < m->ncomp; x++)
    m->rate[m->comp[x]] = m->out[x];
  return NS_OK;
}

/* ---- progressive filling (the max-min solve every network model uses) ---- */

/* Max-min fairness by progressive filling: every unfrozen item's rate rises
   together until one of its resources saturates or it reaches `demand`.
   Item i uses res[i][0..nres[i]) (a repeated resource counts once per
   repeat, as k flows of one ring on one link) and, when icap is not NULL,
   rises to at most icap[i] (its own limit from resources no other item
   can use, INFINITY for none). lid is scratch per resource, -1 on entry
   and on return.
   Water-filling over the distinct resources of the call: a shared
   resource's fill level (capacity left / unfrozen items on it) only rises
   as items freeze; a resource of a single item is that item's own constant
   limit. An indexed min-heap of those levels (shared resources and items'
   own limits) finds each round's bottlenecks; a round freezes every
   unfrozen item on an entry within 1e-9 (relative) of the lowest level.
   O(I log R) for I incidences over R resources (the same rates as filling
   every item round by round, up to rounding). */
static void heap_set(nsi_fill *f, size_t at, int id) {
  f->hlnk[at] = id;
  f->hval[at] = f->hkey[id];
  f->hpos[id] = (int)at;
}

static void heap_up(nsi_fill *f, size_t i) {
  int id = f->hlnk[i];
  double key = f->hkey[id];
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (f->hval[p] <= key)
      break;
    heap_set(f, i, f->hlnk[p]);
    i = p;
  }
  heap_set(f, i, id);
}

static void heap_down(nsi_fill *f, size_t i) {
  int id = f->hlnk[i];
  double key = f->hkey[id];
  size_t n = f->nheap;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n)
      break;
    if (c + 1 < n && f->hval[c + 1] < f->hval[c])
      c++;
    if (f->hval[c] >= key)
      break;
    heap_set(f, i, f->hlnk[c]);
    i = c;
  }
  heap_set(f, i, id);
}

static void heap_remove(nsi_fill *f, int id) {
  int at = f->hpos[id];
  if (at < 0)
    return;
  f->hpos[id] = -1;
  int last = f->hlnk[--f->nheap];
  if ((size_t)at == f->nheap)
    return;
  heap_set(f, (size_t)at, last);
  heap_up(f, (size_t)at);
  heap_down(f, (size_t)f->hpos[last]);
}

void nsi_sim_fill_free(nsi_fill *f) {
  free(f->lres), free(f->lstart), free(f->litem), free(f->lrem), free(f->lcnt), free(f->hkey);
  free(f->hlnk), free(f->frozen), free(f->lown), free(f->hpos), free(f->hval);
  memset(f, 0, sizeof *f);
}

/* Resizes one scratch array to c elements of elem bytes; 1 on success, 0
   on failure (the old buffer is kept, so the nsi_fill stays freeable). */
static int fill_grow(void *bufp, size_t c, size_t elem) {
  void **buf = (void **)bufp, *nb = realloc(*buf, c * elem);
  if (nb != NULL)
    *buf = nb;
  return nb != NULL;
}

int nsi_sim_fill(nsi_fill *f, size_t n, int *const *res, const size_t *nres, const double *icap,
                 double demand, const double *cap, int *lid, double *rate) {
  size_t inc = 0;
  for (size_t i = 0; i < n; i++)
    inc += nres[i];
  size_t need = inc + n + 1; /* resources <= incidences; heap ids: resources, then items */
  if (need > f->cap) {
    size_t c = need > 2 * f->cap ? need : 2 * f->cap;
    int ok = fill_grow(&f->lres, c, sizeof *f->lres) & fill_grow(&f->lstart, c + 1, sizeof *f->lstart) &
             fill_grow(&f->litem, c, sizeof *f->litem) & fill_grow(&f->lcnt, c, sizeof *f->lcnt) &
             fill_grow(&f->lrem, c, sizeof *f->lrem) & fill_grow(&f->hkey, c, sizeof *f->hkey) &
             fill_grow(&f->hlnk, c, sizeof *f->hlnk) & fill_grow(&f->frozen, c, sizeof *f->frozen) &
             fill_grow(&f->lown, c, sizeof *f->lown) & fill_grow(&f->hpos, c, sizeof *f->hpos) &
             fill_grow(&f->hval, c, sizeof *f->hval);
    if (!ok)
      return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory solving max-min over %zu flows", n);
    f->cap = c;
  }
  /* distinct resources, their item counts (with multiplicity), sharing */
  size_t nl = 0, left = 0;
  for (size_t i = 0; i < n; i++) {
    rate[i] = -1.0; /* unfrozen */
    for (size_t k = 0; k < nres[i]; k++) {
      int r = res[i][k];
      if (lid[r] < 0) {
        lid[r] = (int)nl;
        f->lres[nl] = r, f->lcnt[nl] = 0, f->lrem[nl] = cap[r], f->lown[nl] = (int)i;
        nl++;
      }
      int l = lid[r];
      f->lcnt[l]++;
      if (f->lown[l] != (int)i)
        f->lown[l] = -1; /* shared */
    }
  }
  /* items of each shared resource (CSR) */
  f->lstart[0] = 0;
  for (size_t l = 0; l < nl; l++)
    f->lstart[l + 1] = f->lstart[l] + (f->lown[l] < 0 ? f->lcnt[l] : 0);
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < nres[i]; k++) {
      int l = lid[res[i][k]];
      if (f->lown[l] < 0)
        f->litem[f->lstart[l + 1] - f->lcnt[l]--] = (int)i;
    }
  /* heap ids: shared resource l, item i's own limit nl + i */
  f->nheap = 0;
  for (size_t i = 0; i < n; i++)
    f->hpos[nl + i] = -1, f->hkey[nl + i] = icap != NULL ? icap[i] : INFINITY;
  for (size_t l = 0; l < nl; l++) {
    f->hpos[l] = -1;
    if (f->lown[l] >= 0) {
      double v = f->lrem[l] / f->lcnt[l];
      size_t id = nl + (size_t)f->lown[l];
      f->hkey[id] = v < f->hkey[id] ? v : f->hkey[id];
    } else {
      f->lcnt[l] = f->lstart[l + 1] - f->lstart[l]; /* again: the CSR fill consumed it */
      f->hkey[l] = f->lrem[l] / f->lcnt[l];
      heap_set(f, f->nheap++, (int)l);
    }
  }
  for (size_t i = 0; i < n; i++) {
    if (nres[i] == 0 && !isfinite(f->hkey[nl + i])) {
      rate[i] = demand; /* nothing limits it */
      continue;
    }
    left++;
    if (isfinite(f->hkey[nl + i]))
      heap_set(f, f->nheap++, (int)(nl + i));
  }
  for (size_t h = f->nheap / 2; h-- > 0;) /* heapify: O(R) */
    heap_down(f, h);
  while (left > 0) {
    double low = f->nheap > 0 ? f->hval[0] : INFINITY;
    double level = low < demand ? low : demand;
    if (level < 1e-12)
      level = 1e-12;
    size_t nf = 0;
    if (level >= demand * (1 - 1e-12)) { /* every item left reaches the demand */
      for (size_t i = 0; i < n; i++)
        if (rate[i] == -1.0)
          f->frozen[nf++] = (int)i;
    } else {
      while (f->nheap > 0 && f->hval[0] <= level * (1 + 1e-9)) {
        int id = f->hlnk[0];
        heap_remove(f, id);
        if ((size_t)id >= nl) { /* an item's own resource */
          int i = id - (int)nl;
          if (rate[i] == -1.0)
            rate[i] = -2.0, f->frozen[nf++] = i;
          continue;
        }
        for (int x = f->lstart[id]; x < f->lstart[id + 1]; x++) {
          int i = f->litem[x];
          if (rate[i] == -1.0) /* unfrozen (a ring's repeats are listed again) */
            rate[i] = -2.0, f->frozen[nf++] = i; /* frozen this round */
        }
      }
    }
    if (nf == 0)
      break; /* cannot happen: the lowest level's items freeze */
    for (size_t q = 0; q < nf; q++) {
      int i = f->frozen[q];
      rate[i] = level, left--;
      heap_remove(f, (int)(nl + (size_t)i));
      for (size_t k = 0; k < nres[i]; k++) {
        int l = lid[res[i][k]];
        if (f->lown[l] >= 0)
          continue;
        f->lrem[l] -= level;
        f->lcnt[l]--;
      }
    }
    for (size_t q = 0; q < nf; q++) { /* levels that rose: moved down the heap */
      int i = f->frozen[q];
      for (size_t k = 0; k < nres[i]; k++) {
        int l = lid[res[i][k]];
        if (f->lown[l] >= 0 || f->hpos[l] < 0 || (k > 0 && res[i][k] == res[i][k - 1]))
          continue;
        if (f->lcnt[l] == 0) {
          heap_remove(f, l);
        } else {
          f->hkey[l] = f->lrem[l] / f->lcnt[l];
          heap_down(f, (size_t)f->hpos[l]);
        }
      }
    }
  }
  for (size_t l = 0; l < nl; l++)
    lid[f->lres[l]] = -1;
  return NS_OK;
}
