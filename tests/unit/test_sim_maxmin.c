/*
 * tests/unit/test_sim_maxmin.c - the phase model's incremental max-min
 * (src/sim/maxmin.c) against a from-scratch solve (issue 30 item 1).
 *
 * Oracle: a plain progressive filling written here from the definition,
 * over every active item at once: all unfrozen items rise together; an
 * item freezes when one of its resources is full (capacity, times e(k) for
 * the k distinct active items on it, used up; an item with m flows on a
 * resource uses m times its rate there), at its own limit, or at the
 * demand. The solver under test keeps the rates of the previous solves and
 * re-solves only the component the changed item touches (or recalls it
 * from its memo); after every single change, the rates it has handed out
 * so far must be the oracle's for the whole active set.
 */
#include "helpers/ns_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_internal.h"

#define MAXI 40
#define MAXR 24
#define MAXD 6

static uint64_t rng(uint64_t *s) { /* xorshift64*: fixed seeds, portable */
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return *s * 2685821657736338717ull;
}
static int pick(uint64_t *s, int n) { return (int)(rng(s) % (uint64_t)n); }
static double unit(uint64_t *s) { return (double)(rng(s) >> 11) / 9007199254740992.0; }

typedef struct inst {
  int n, nr;
  int res[MAXI][MAXD];
  size_t nres[MAXI];
  double icap[MAXI], rcap[MAXR], ek[MAXI + 1];
  int curve;
} inst;

static int cmp_int(const void *a, const void *b) {
  return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/* A random structure: items on 0..MAXD resources (repeats = several flows
   of one ring), some with their own limit, capacities 5..15, a contention
   curve on half of them (e(k) decreasing from 1). */
static void random_inst(uint64_t *r, inst *x) {
  x->n = 2 + pick(r, MAXI - 1);
  x->nr = 1 + pick(r, MAXR);
  for (int i = 0; i < x->n; i++) {
    x->nres[i] = (size_t)pick(r, MAXD + 1);
    for (size_t k = 0; k < x->nres[i]; k++)
      x->res[i][k] = pick(r, x->nr);
    qsort(x->res[i], x->nres[i], sizeof(int), cmp_int);
    x->icap[i] = pick(r, 3) == 0 ? 1.0 + 9.0 * unit(r) : INFINITY;
  }
  for (int l = 0; l < x->nr; l++)
    x->rcap[l] = 5.0 + 10.0 * unit(r);
  x->curve = pick(r, 2);
  x->ek[0] = x->ek[1] = 1.0;
  for (int k = 2; k <= x->n; k++)
    x->ek[k] = x->ek[k - 1] * (0.8 + 0.2 * unit(r));
}

/* The oracle: progressive filling over the active items, from scratch. */
static void oracle(const inst *x, const unsigned char *on, double demand, double *rate) {
  int kon[MAXR] = {0}, frozen[MAXI];
  double cap[MAXR];
  for (int i = 0; i < x->n; i++) {
    rate[i] = 0, frozen[i] = !on[i];
    for (size_t k = 0; k < x->nres[i] && on[i]; k++)
      if (k == 0 || x->res[i][k] != x->res[i][k - 1])
        kon[x->res[i][k]]++;
  }
  for (int l = 0; l < x->nr; l++)
    cap[l] = x->rcap[l] * (x->curve ? x->ek[kon[l]] : 1.0);
  for (;;) {
    double used[MAXR] = {0};
    int flows[MAXR] = {0}, left = 0;
    for (int i = 0; i < x->n; i++)
      for (size_t k = 0; k < x->nres[i] && on[i]; k++) {
        used[x->res[i][k]] += rate[i];
        flows[x->res[i][k]] += !frozen[i];
      }
    double step = INFINITY;
    for (int i = 0; i < x->n; i++)
      if (!frozen[i]) {
        left++;
        step = fmin(step, fmin(demand, x->icap[i]) - rate[i]);
      }
    if (left == 0)
      break;
    for (int l = 0; l < x->nr; l++)
      if (flows[l] > 0)
        step = fmin(step, (cap[l] - used[l]) / flows[l]);
    for (int i = 0; i < x->n; i++)
      if (!frozen[i])
        rate[i] += step;
    for (int l = 0; l < x->nr; l++)
      used[l] = 0;
    for (int i = 0; i < x->n; i++)
      for (size_t k = 0; k < x->nres[i] && on[i]; k++)
        used[x->res[i][k]] += rate[i];
    for (int i = 0; i < x->n; i++) {
      if (frozen[i])
        continue;
      int full = rate[i] >= fmin(demand, x->icap[i]) * (1 - 1e-12);
      for (size_t k = 0; k < x->nres[i] && !full; k++)
        full = used[x->res[i][k]] >= cap[x->res[i][k]] * (1 - 1e-12);
      frozen[i] = full;
    }
  }
}

static void build(nsi_mm *m, const inst *x) {
  const int *res[MAXI];
  for (int i = 0; i < x->n; i++)
    res[i] = x->res[i];
  assert_int_equal(nsi_mm_build(m, x->n, res, x->nres, x->icap, x->nr, x->rcap,
                                x->curve ? x->ek : NULL),
                   NS_OK);
}

static void assert_close(double got, double want) {
  if (fabs(got - want) > 1e-9 * fmax(1.0, fabs(want)))
    fail_msg("rate %.17g, oracle %.17g", got, want);
}

/* 300 random structures x 200 single changes (an item starts or stops
   transferring; sometimes a seed that changed nothing, as a job whose
   compute ended while its links stay as they were). After each, the rates
   handed out so far (each item's from the last solve that covered it)
   equal the oracle's. Also checked: the memo answered most solves (phases
   repeat), and solve_all equals the oracle too. */
static void test_incremental_matches_oracle(void **state) {
  (void)state;
  uint64_t r = 0x5eed30ull;
  nsi_mm m;
  memset(&m, 0, sizeof m);
  uint64_t hits = 0, solves = 0;
  for (int t = 0; t < 300; t++) {
    inst x;
    random_inst(&r, &x);
    build(&m, &x);
    unsigned char on[MAXI] = {0};
    double have[MAXI], want[MAXI], demand = 4.0 + 8.0 * unit(&r);
    for (int i = 0; i < x.n; i++)
      have[i] = 0;
    int pattern = pick(&r, 2); /* 1: items cycle through a few states, as phases repeat */
    for (int step = 0; step < 200; step++) {
      int i = pattern ? (step * 7) % (x.n < 5 ? x.n : 5) : pick(&r, x.n);
      if (pick(&r, 10) > 0)
        on[i] = !on[i];
      nsi_mm_set(&m, i, on[i]);
      if (!on[i])
        have[i] = 0;
      assert_int_equal(nsi_mm_solve(&m, &i, 1, NULL, 0, demand), NS_OK);
      solves++;
      for (int c = 0; c < m.ncomp; c++) {
        int k = m.comp[c];
        assert_true(on[k]);
        have[k] = m.rate[k];
      }
      oracle(&x, on, demand, want);
      for (int k = 0; k < x.n; k++)
        if (on[k])
          assert_close(have[k], want[k]);
    }
    hits += m.hits;
    m.hits = m.misses = 0;
    assert_int_equal(nsi_mm_solve_all(&m, demand), NS_OK);
    oracle(&x, on, demand, want);
    int nact = 0;
    for (int k = 0; k < x.n; k++)
      nact += on[k];
    assert_int_equal(m.ncomp, nact);
    for (int c = 0; c < m.ncomp; c++)
      assert_close(m.rate[m.comp[c]], want[m.comp[c]]);
  }
  assert_true(hits > solves / 4);
  nsi_mm_free(&m);
}

/* The memo keeps solved parts by item set in two generations (a full one
   becomes the older, the older is dropped). Whatever it recalls - from
   either generation, across turnovers - is bit for bit the rates a fresh
   fill of that part gives: after every change, each rate handed out equals
   (==, not within a tolerance) the one of a second solver built afresh and
   solving every part from scratch, and the oracle's. Memo budgets of 4,
   32 and 100000 rates: turnovers at almost every add, now and then, never. */
static void test_memo_generations_exact(void **state) {
  (void)state;
  static const size_t caps[] = {4, 32, 100000};
  uint64_t r = 0x9e30e5ull;
  nsi_mm m, f;
  memset(&m, 0, sizeof m);
  memset(&f, 0, sizeof f);
  uint64_t older = 0;
  for (int t = 0; t < 150; t++) {
    inst x;
    random_inst(&r, &x);
    build(&m, &x);
    m.memo_cap = caps[t % 3];
    unsigned char on[MAXI] = {0};
    double want[MAXI], demand = 4.0 + 8.0 * unit(&r);
    for (int step = 0; step < 150; step++) {
      int i = (step * 7) % (x.n < 6 ? x.n : 6); /* a few items: sets repeat */
      if (pick(&r, 4) == 0)
        i = pick(&r, x.n);
      on[i] = !on[i];
      nsi_mm_set(&m, i, on[i]);
      assert_int_equal(nsi_mm_solve(&m, &i, 1, NULL, 0, demand), NS_OK);
      build(&f, &x); /* afresh: every active item a seed, no memo before */
      int seeds[MAXI], ns = 0;
      for (int k = 0; k < x.n; k++)
        if (on[k])
          nsi_mm_set(&f, k, 1), seeds[ns++] = k;
      assert_int_equal(nsi_mm_solve(&f, seeds, ns, NULL, 0, demand), NS_OK);
      assert_int_equal(f.ncomp, ns);
      oracle(&x, on, demand, want);
      unsigned char seen[MAXI] = {0};
      for (int c = 0; c < m.ncomp; c++) {
        int k = m.comp[c];
        assert_true(on[k]);
        assert_false(seen[k]); /* each once */
        seen[k] = 1;
        if (m.rate[k] != f.rate[k])
          fail_msg("item %d: memo %.17g, fresh fill %.17g", k, m.rate[k], f.rate[k]);
        assert_close(m.rate[k], want[k]);
      }
      if (on[i])
        assert_true(seen[i]); /* an active seed's own part is handed out */
    }
    older += m.hits_older;
    m.hits_older = 0;
  }
  assert_true(older > 0); /* the older generation answered some solves */
  nsi_mm_free(&m);
  nsi_mm_free(&f);
}

/* A component's rates depend on it alone: two chains A-B and C-D on
   separate links. A change in the first re-solves A and B only (C and D
   are not handed out again), and a seed given as a resource (a job that
   left: its links) reaches the items on it. Hand-derived: link 0 (cap 10)
   carries A and B, link 1 (cap 6) C and D x 2 flows: A = B = 5; C and D
   rise together until 3 rates use link 1's 6: C = D = 2. */
static void test_components_and_resource_seeds(void **state) {
  (void)state;
  inst x;
  memset(&x, 0, sizeof x);
  x.n = 4, x.nr = 2;
  x.nres[0] = 1, x.res[0][0] = 0;
  x.nres[1] = 1, x.res[1][0] = 0;
  x.nres[2] = 1, x.res[2][0] = 1;
  x.nres[3] = 2, x.res[3][0] = 1, x.res[3][1] = 1;
  for (int i = 0; i < 4; i++)
    x.icap[i] = INFINITY;
  x.rcap[0] = 10, x.rcap[1] = 6;
  nsi_mm m;
  memset(&m, 0, sizeof m);
  build(&m, &x);
  for (int i = 0; i < 4; i++)
    nsi_mm_set(&m, i, 1);
  int all[4] = {0, 1, 2, 3}, a = 0, link1 = 1;
  assert_int_equal(nsi_mm_solve(&m, all, 4, NULL, 0, 100.0), NS_OK);
  assert_int_equal(m.ncomp, 4);
  assert_close(m.rate[0], 5), assert_close(m.rate[1], 5);
  assert_close(m.rate[2], 2), assert_close(m.rate[3], 2);
  nsi_mm_set(&m, 0, 0); /* A stops: B alone on link 0 */
  assert_int_equal(nsi_mm_solve(&m, &a, 1, NULL, 0, 100.0), NS_OK);
  assert_int_equal(m.ncomp, 1);
  assert_int_equal(m.comp[0], 1);
  assert_close(m.rate[1], 10);
  nsi_mm_set(&m, 2, 0); /* C stops; the search starts from link 1 only */
  assert_int_equal(nsi_mm_solve(&m, NULL, 0, &link1, 1, 100.0), NS_OK);
  assert_int_equal(m.ncomp, 1);
  assert_int_equal(m.comp[0], 3);
  assert_close(m.rate[3], 3); /* 2 flows on 6 */
  assert_int_equal(nsi_mm_solve(&m, NULL, 0, &link1, 1, 2.5), NS_OK);
  assert_close(m.rate[3], 2.5); /* the demand caps it */
  nsi_mm_free(&m);
}

/* The fill over the group's own structure (mm_fill) against the generic
   progressive filling (nsi_sim_fill, which the phase model used for every
   solve before and the fluid models still use): the same rates BIT FOR BIT
   (==), for every whole active set and every component of it, after each
   of 40,000 random single changes over 400 random structures - half of
   them with small integer capacities and own limits, some nudged by less
   or more than 1e-9, so that many levels tie exactly, within the 1e-9 that
   freezes entries together, or just outside it: the cases where two
   implementations of one fill part ways first. */
static void test_fill_matches_generic_bitwise(void **state) {
  (void)state;
  uint64_t r = 0xf111b17ull;
  nsi_mm m, g;
  memset(&m, 0, sizeof m);
  memset(&g, 0, sizeof g);
  uint64_t compared = 0, parts = 0;
  for (int t = 0; t < 400; t++) {
    inst x;
    random_inst(&r, &x);
    if (t % 2) { /* ties: capacities 6, 8 or 12, limits 2, 3 or 4 (or none), each capacity
                    off by 0, 4e-10, 2e-9 or 5e-8 (relative): exact ties, levels frozen
                    together (within 1e-9) and levels just apart */
      static const double caps[] = {6, 8, 12}, lims[] = {2, 3, 4}, off[] = {0, 4e-10, 2e-9, 5e-8};
      for (int l = 0; l < x.nr; l++)
        x.rcap[l] = caps[pick(&r, 3)] * (1 + off[pick(&r, 4)]);
      for (int i = 0; i < x.n; i++)
        x.icap[i] = pick(&r, 3) == 0 ? lims[pick(&r, 3)] : INFINITY;
    }
    build(&m, &x);
    build(&g, &x);
    g.generic_fill = 1, g.scratch = 1;
    m.scratch = 1; /* every solve filled, none recalled */
    unsigned char on[MAXI] = {0};
    double demand = t % 4 == 3 ? 3.0 : 4.0 + 8.0 * unit(&r);
    for (int step = 0; step < 100; step++) {
      int i = pick(&r, x.n);
      on[i] = !on[i];
      nsi_mm_set(&m, i, on[i]);
      nsi_mm_set(&g, i, on[i]);
      /* the component of i (or of its resources, when it stopped) */
      assert_int_equal(nsi_mm_solve(&m, &i, 1, NULL, 0, demand), NS_OK);
      assert_int_equal(nsi_mm_solve(&g, &i, 1, NULL, 0, demand), NS_OK);
      assert_int_equal(m.ncomp, g.ncomp);
      for (int c = 0; c < m.ncomp; c++) {
        int k = m.comp[c];
        assert_int_equal(k, g.comp[c]);
        if (m.rate[k] != g.rate[k])
          fail_msg("structure %d step %d item %d: mm_fill %.17g, generic %.17g", t, step, k,
                   m.rate[k], g.rate[k]);
      }
      parts += m.ncomp > 0;
      /* every active item at once */
      assert_int_equal(nsi_mm_solve_all(&m, demand), NS_OK);
      assert_int_equal(nsi_mm_solve_all(&g, demand), NS_OK);
      assert_int_equal(m.ncomp, g.ncomp);
      for (int c = 0; c < m.ncomp; c++) {
        int k = m.comp[c];
        if (m.rate[k] != g.rate[k])
          fail_msg("structure %d step %d (all) item %d: mm_fill %.17g, generic %.17g", t, step,
                   k, m.rate[k], g.rate[k]);
        compared++;
      }
    }
  }
  assert_true(parts > 30000 && compared > 200000); /* it compared something */
  nsi_mm_free(&m);
  nsi_mm_free(&g);
}

/* A member leaving a group's max-min in place (net_phase.c drop_member,
   recap): nsi_mm_drop takes its item out for good and nsi_mm_set_cap
   gives its resources new capacities (with e(k), a table of them, as kept
   jobs load a link); a capacity change empties the memo at the next
   solve, a drop keeps it. After every change, each rate handed out equals (==)
   the one of a structure built afresh the way group_cache would build it:
   without the dropped items, a resource left with one item folded into
   that item's own limit (capacity / its flows there), the new capacities
   and tables. 150 random structures x 150 changes, memo budgets of 4, 32
   and 100000 rates; the memo must still answer some solves. */
static void fresh_reduced(nsi_mm *f, const inst *x, const unsigned char *alive,
                          const double (*tab)[MAXI + 1], const int *has_tab, int *map) {
  int live[MAXR] = {0}, rmap[MAXR], nr = 0, n = 0;
  for (int i = 0; i < x->n; i++)
    for (size_t k = 0; k < x->nres[i] && alive[i]; k++)
      live[x->res[i][k]] += k == 0 || x->res[i][k] != x->res[i][k - 1];
  double rcap[MAXR], icap[MAXI];
  for (int r = 0; r < x->nr; r++)
    rmap[r] = live[r] >= 2 ? nr : -1, rcap[nr] = x->rcap[r], nr += live[r] >= 2;
  static int res[MAXI][MAXD];
  const int *resp[MAXI];
  size_t nres[MAXI];
  for (int i = 0; i < x->n; i++) {
    map[i] = -1;
    if (!alive[i])
      continue;
    map[i] = n;
    icap[n] = x->icap[i], nres[n] = 0, resp[n] = res[n];
    for (size_t k = 0; k < x->nres[i];) {
      size_t e = k;
      while (e < x->nres[i] && x->res[i][e] == x->res[i][k])
        e++;
      int r = x->res[i][k];
      if (rmap[r] >= 0) {
        for (; k < e; k++)
          res[n][nres[n]++] = rmap[r];
      } else {
        double v = x->rcap[r] / (double)(e - k);
        icap[n] = v < icap[n] ? v : icap[n];
        k = e;
      }
    }
    n++;
  }
  assert_int_equal(nsi_mm_build(f, n, resp, nres, icap, nr, rcap, x->curve ? x->ek : NULL), NS_OK);
  for (int r = 0; r < x->nr; r++)
    if (rmap[r] >= 0 && x->curve && has_tab[r])
      assert_int_equal(nsi_mm_cap_table(f, rmap[r], tab[r]), NS_OK);
}

static void test_drop_and_recap_match_rebuild(void **state) {
  (void)state;
  static const size_t caps[] = {4, 32, 100000};
  uint64_t r = 0xd40b5ull, hits = 0, drops = 0;
  nsi_mm m, f;
  memset(&m, 0, sizeof m);
  memset(&f, 0, sizeof f);
  for (int t = 0; t < 150; t++) {
    inst x;
    random_inst(&r, &x);
    build(&m, &x);
    m.memo_cap = caps[t % 3];
    unsigned char on[MAXI] = {0}, alive[MAXI];
    double have[MAXI], tab[MAXR][MAXI + 1], demand = 4.0 + 8.0 * unit(&r);
    int has_tab[MAXR] = {0}, map[MAXI], nalive = x.n;
    for (int i = 0; i < x.n; i++)
      alive[i] = 1, have[i] = 0;
    for (int step = 0; step < 150; step++) {
      int i = (step * 7) % (x.n < 6 ? x.n : 6); /* a few items: sets repeat */
      if (pick(&r, 4) == 0)
        i = pick(&r, x.n);
      if (!alive[i])
        continue;
      if (nalive > 2 && pick(&r, 12) == 0) { /* i leaves; its resources change capacity */
        alive[i] = 0, on[i] = 0, nalive--, drops++;
        nsi_mm_drop(&m, i);
        for (size_t k = 0; k < x.nres[i] && pick(&r, 3) > 0; k++) {
          int l = x.res[i][k];
          x.rcap[l] = 5.0 + 10.0 * unit(&r);
          has_tab[l] = x.curve && pick(&r, 2);
          tab[l][0] = tab[l][1] = x.rcap[l]; /* e(1) = 1: one item has the capacity */
          for (int c = 2; c <= x.n; c++)
            tab[l][c] = x.rcap[l] * x.ek[c] * (0.9 + 0.1 * unit(&r));
          assert_int_equal(nsi_mm_set_cap(&m, l, x.rcap[l], has_tab[l] ? tab[l] : NULL), NS_OK);
        }
        assert_int_equal(nsi_mm_solve_all(&m, demand), NS_OK);
      } else {
        on[i] = !on[i];
        nsi_mm_set(&m, i, on[i]);
        assert_int_equal(nsi_mm_solve(&m, &i, 1, NULL, 0, demand), NS_OK);
      }
      for (int c = 0; c < m.ncomp; c++) {
        assert_true(on[m.comp[c]]);
        have[m.comp[c]] = m.rate[m.comp[c]];
      }
      fresh_reduced(&f, &x, alive, (const double (*)[MAXI + 1])tab, has_tab, map);
      int seeds[MAXI], ns = 0;
      for (int k = 0; k < x.n; k++)
        if (on[k])
          nsi_mm_set(&f, map[k], 1), seeds[ns++] = map[k];
      f.scratch = 1; /* filled afresh */
      assert_int_equal(nsi_mm_solve(&f, seeds, ns, NULL, 0, demand), NS_OK);
      for (int k = 0; k < x.n; k++)
        if (on[k] && have[k] != f.rate[map[k]])
          fail_msg("structure %d step %d item %d: in place %.17g, rebuilt %.17g", t, step, k,
                   have[k], f.rate[map[k]]);
    }
    hits += m.hits + m.part_hits;
    m.hits = m.part_hits = 0;
  }
  assert_true(drops > 500 && hits > 1000); /* it dropped items and the memo still answered */
  nsi_mm_free(&m);
  nsi_mm_free(&f);
}

/* The exact phase model (W = 0) as it solves groups now (the memo of
   components by active set) against the same model with every solve done
   from scratch - a search from the changed jobs and progressive filling of
   the component it reaches, the phase model before the memo (ns_sim
   ref_solve) - on the embedded default workload (160 jobs, 64 GPUs): every
   job's JCT agrees to 1e-9 (relative; equal when written) for each of these
   presets, admission (srsf-2), CASSINI shifts and preemption (2d-las)
   included, under the default contention curve. */
static void test_exact_memo_matches_scratch(void **state) {
  (void)state;
  static const char *const presets[] = {"ff", "srsf-ff", "srsf-2", "cassini-ff", "2d-las",
                                        "titan", "fifo"};
  for (size_t p = 0; p < sizeof presets / sizeof *presets; p++) {
    ns_sim_opts *o = ns_sim_opts_new();
    assert_non_null(o);
    assert_int_equal(ns_sim_opts_set_policy_name(o, presets[p]), NS_OK);
    assert_int_equal(ns_sim_opts_set_phase_window(o, 0), NS_OK);
    ns_sim *s[2];
    for (int r = 0; r < 2; r++) {
      s[r] = ns_sim_new(o);
      assert_non_null(s[r]);
      assert_true(ns_sim_load_default_workload(s[r]) > 0);
      s[r]->ref_solve = r;
      assert_int_equal(ns_sim_run(s[r]), NS_OK);
    }
    double worst = 0;
    for (int j = 0; j < ns_sim_job_count(s[0]); j++) {
      double a = ns_test_jct_ms(s[0], j), b = ns_test_jct_ms(s[1], j);
      worst = fmax(worst, fabs(a - b) / b);
    }
    if (worst > 1e-9)
      fail_msg("%s: per-job JCT differs by %.3g (relative) from the scratch solves", presets[p],
               worst);
    ns_sim_free(s[0]);
    ns_sim_free(s[1]);
    ns_sim_opts_free(o);
  }
}

/* SRSF(n) admission: a waiting all-reduce that was refused on a link where
   no all-reduce has ended since, in the same membership of its group, is
   not asked again (net_phase.c still_refused: the answer would be the same
   refusal). Against the same runs asking every waiting all-reduce at every
   pass (ns_sim ref_admit): every JCT equal (==), and the skip taken (it
   must cut asks to count). The runs: srsf-1 and srsf-2 on the embedded
   default workload (W = 0 and W = 16); SRSF(1..3) with a preemptive order
   (2D-LAS: jobs stopped while in flight, members leaving), jobs spread one
   GPU per server (every all-reduce on shared NICs), a start-up latency
   (in flight before transferring) and halving-doubling jobs (links by
   step), 60 random jobs on 4 x 4 servers of 2 GPUs, 3 seeds. Fails when an
   all-reduce's end does not release its links (the waiters behind it wait
   for ever or start late), when a member leaving does not, or when the
   held link is not one at the limit. */
/* The same runs twice, s[1] the reference (ref(s[r], r) marks it), and
   every job's JCT compared (==): the shortcut (s[0], "with") against the
   reference path ("ref"). The caller checks its counters and frees both. */
static void run_against_ref(ns_sim_opts *o, void (*load)(ns_sim *, uint64_t), uint64_t seed,
                            void (*ref)(ns_sim *, int), const char *what, const char *with,
                            const char *how_ref, ns_sim *s[2]) {
  for (int r = 0; r < 2; r++) {
    s[r] = ns_sim_new(o);
    assert_non_null(s[r]);
    load(s[r], seed);
    ref(s[r], r);
    assert_int_equal(ns_sim_run(s[r]), NS_OK);
  }
  for (int j = 0; j < ns_sim_job_count(s[0]); j++) {
    double x = ns_test_jct_ms(s[0], j), y = ns_test_jct_ms(s[1], j);
    if (!(x == y))
      fail_msg("%s seed %llu: job %d JCT %.17g ms %s, %.17g ms %s", what,
               (unsigned long long)seed, j, x, with, y, how_ref);
  }
}

static void ref_admit(ns_sim *s, int on) { s->ref_admit = on; }

static void run_pair(ns_sim_opts *o, void (*load)(ns_sim *, uint64_t), uint64_t seed,
                     const char *what, uint64_t *skips) {
  ns_sim *s[2];
  run_against_ref(o, load, seed, ref_admit, what, "with the skip", "asking all", s);
  assert_int_equal(s[1]->admit_skips, 0);
  *skips += s[0]->admit_skips;
  ns_sim_free(s[0]);
  ns_sim_free(s[1]);
}

static void load_default(ns_sim *s, uint64_t seed) {
  (void)seed;
  assert_true(ns_sim_load_default_workload(s) > 0);
}

/* 60 random jobs (2-8 GPUs, 20-420 iterations, any model) arriving over
   ~60 s from random state r, named prefix<i>; with hd, a third of them
   halving-doubling (the draw only made then: without hd the same jobs as
   before it was added). */
static void load_jobs(ns_sim *s, uint64_t r, const char *prefix, int hd) {
  static const int sizes[] = {2, 3, 4, 4, 6, 8};
  double t = 0;
  for (int i = 0; i < 60; i++) {
    char name[16];
    snprintf(name, sizeof name, "%s%d", prefix, i);
    t += 2000.0 * unit(&r);
    int j = ns_sim_add_model_job(s, name, t, sizes[pick(&r, 6)], 20 + (uint64_t)pick(&r, 400),
                                 (ns_sim_model)pick(&r, 4));
    assert_true(j >= 0);
    if (hd && pick(&r, 3) == 0)
      assert_int_equal(ns_sim_set_job_allreduce(s, j, NS_SIM_ALLREDUCE_HD), NS_OK);
  }
}

static void load_random(ns_sim *s, uint64_t seed) {
  load_jobs(s, 0x9e3779b97f4a7c15ull * (seed + 1), "j", 1);
}

static void test_admission_skip_matches_asking_all(void **state) {
  (void)state;
  uint64_t skips = 0;
  static const char *const presets[] = {"srsf-1", "srsf-2"};
  for (size_t p = 0; p < 2; p++)
    for (int W = 0; W <= 16; W += 16) {
      ns_sim_opts *o = ns_sim_opts_new();
      assert_non_null(o);
      assert_int_equal(ns_sim_opts_set_policy_name(o, presets[p]), NS_OK);
      assert_int_equal(ns_sim_opts_set_phase_window(o, W), NS_OK);
      run_pair(o, load_default, 0, presets[p], &skips);
      ns_sim_opts_free(o);
    }
  uint64_t on_default = skips;
  for (int n = 1; n <= 3; n++)
    for (uint64_t seed = 1; seed <= 3; seed++) {
      ns_sim_opts *o = ns_sim_opts_new();
      assert_non_null(o);
      assert_int_equal(ns_sim_opts_set_cluster(o, 4, 2, 4, 2, 1, 10.0), NS_OK);
      assert_int_equal(ns_sim_opts_set_order(o, NS_SIM_ORDER_2D_LAS), NS_OK);
      static const double thr[] = {20000.0, 100000.0}; /* GPU-ms: jobs preempted often */
      assert_int_equal(ns_sim_opts_set_las_queues(o, 3, thr), NS_OK);
      assert_int_equal(ns_sim_opts_set_place_fn(o, ns_test_place_spread, NULL), NS_OK);
      assert_int_equal(ns_sim_opts_set_admission(o, NS_SIM_ADMIT_SRSF, n), NS_OK);
      assert_int_equal(ns_sim_opts_set_allreduce_latency(o, seed == 2 ? 3.0 : 0.0), NS_OK);
      assert_int_equal(ns_sim_opts_set_phase_window(o, seed == 3 ? 16 : 0), NS_OK);
      run_pair(o, load_random, seed, "SRSF(n), 2D-LAS, spread", &skips);
      ns_sim_opts_free(o);
    }
  if (on_default == 0 || skips == on_default)
    fail_msg("the skip was not taken (default workload %llu, all %llu): nothing tested",
             (unsigned long long)on_default, (unsigned long long)skips);
}

/* The grouping (net_phase.c phase_update) joins jobs through a server's
   NIC tx link only, not its rx (the same rings: one flow out of and one
   into each server, one port per server, no halving-doubling job in the
   run), and marks the rx shared with its tx. Against the same runs walking
   every link (ns_sim ref_group): every JCT equal (==) and as many links
   ever shared. The runs: ff, 2d-las and 2d-gittins on the embedded default
   workload (W = 16: partial restarts, and W = 0); 60 random ring jobs
   under 2D-LAS (preempted often; 3 seeds), spread one GPU per server
   (every all-reduce on shared NICs) with one NIC per server, and packed
   first-fit on 4-GPU servers with two (a ring enters a server at one port
   and leaves at the other: rx and tx carry different rings, the shortcut
   off), and
   the same with halving-doubling jobs among them (off too). Fails when
   the shortcut joins or marks differently, or is taken where rx and tx
   differ. */
static void load_rings(ns_sim *s, uint64_t seed) {
  load_jobs(s, 0x2545f4914f6cdd1dull * (seed + 7), "r", 0);
}

static void ref_group(ns_sim *s, int on) { s->ref_group = on; }

static void group_pair(ns_sim_opts *o, void (*load)(ns_sim *, uint64_t), uint64_t seed,
                       const char *what, int *shortcut) {
  ns_sim *s[2];
  run_against_ref(o, load, seed, ref_group, what, "with the rx shortcut", "walking all", s);
  *shortcut += s[0]->ring_only && s[0]->ports_per_server == 1;
  double sh[2];
  for (int r = 0; r < 2; r++)
    assert_int_equal(ns_sim_metric(s[r], NS_SIM_METRIC_LINKS_SHARED, &sh[r]), NS_OK);
  if (sh[0] != sh[1])
    fail_msg("%s seed %llu: %g links ever shared with the rx shortcut, %g walking all", what,
             (unsigned long long)seed, sh[0], sh[1]);
  ns_sim_free(s[0]);
  ns_sim_free(s[1]);
}

static void test_rx_shortcut_matches_full_walk(void **state) {
  (void)state;
  int shortcut = 0;
  static const char *const presets[] = {"ff", "2d-las", "2d-gittins"};
  for (size_t p = 0; p < 3; p++)
    for (int W = 0; W <= 16; W += 16) {
      ns_sim_opts *o = ns_sim_opts_new();
      assert_non_null(o);
      assert_int_equal(ns_sim_opts_set_policy_name(o, presets[p]), NS_OK);
      assert_int_equal(ns_sim_opts_set_phase_window(o, W), NS_OK);
      group_pair(o, load_default, 0, presets[p], &shortcut);
      ns_sim_opts_free(o);
    }
  for (int nics = 1; nics <= 2; nics++)
    for (int hd = 0; hd <= 1; hd++)
      for (uint64_t seed = 1; seed <= 3; seed++) {
        ns_sim_opts *o = ns_sim_opts_new();
        assert_non_null(o);
        assert_int_equal(ns_sim_opts_set_cluster(o, 4, 2, 4, 2 * nics, 1, 10.0), NS_OK);
        assert_int_equal(ns_sim_opts_set_nics(o, nics, 10.0), NS_OK);
        assert_int_equal(ns_sim_opts_set_order(o, NS_SIM_ORDER_2D_LAS), NS_OK);
        static const double thr[] = {20000.0, 100000.0}; /* GPU-ms: jobs preempted often */
        assert_int_equal(ns_sim_opts_set_las_queues(o, 3, thr), NS_OK);
        if (nics == 1) /* two: first fit, a ring entering a server at one port, leaving at the other */
          assert_int_equal(ns_sim_opts_set_place_fn(o, ns_test_place_spread, NULL), NS_OK);
        assert_int_equal(ns_sim_opts_set_phase_window(o, seed == 3 ? 0 : 16), NS_OK);
        group_pair(o, hd ? load_random : load_rings, seed,
                   nics == 1 ? "2D-LAS, spread, 1 NIC" : "2D-LAS, first fit, 2 NICs", &shortcut);
        ns_sim_opts_free(o);
      }
  if (shortcut != 6 + 3) /* the default workload's 6 runs and the 3 one-NIC ring ones */
    fail_msg("the rx shortcut was taken in %d runs, not 9", shortcut);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_incremental_matches_oracle),
      cmocka_unit_test(test_components_and_resource_seeds),
      cmocka_unit_test(test_memo_generations_exact),
      cmocka_unit_test(test_fill_matches_generic_bitwise),
      cmocka_unit_test(test_drop_and_recap_match_rebuild),
      cmocka_unit_test(test_exact_memo_matches_scratch),
      cmocka_unit_test(test_admission_skip_matches_asking_all),
      cmocka_unit_test(test_rx_shortcut_matches_full_walk),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
