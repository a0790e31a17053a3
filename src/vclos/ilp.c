/*
 * src/vclos/ilp.c - the vClos Stage-2 ILP of Appendix A.2 (Algorithm 3's
 * vClosILP(l, s)), solved by CBC through src/solver.
 *
 * Variables (all binary): l_n per leaf, s_m per spine, c_{n,m} per
 * (leaf, spine) pair with an unused link (C_{n,m} >= 1).
 *   (2)  sum_n l_n = l,  sum_m s_m = s
 *   (3)  sum_m c_{n,m} = s * l_n,  sum_n c_{n,m} = l * s_m
 *        (the paper's "if l_n = 1" conditionals linearised: the right-hand
 *        side is 0 when the leaf/spine is unused)
 *   (4)  c_{n,m} <= l_n, c_{n,m} <= s_m; c_{n,m} exists only if C_{n,m} >= 1,
 *        and then l_n + s_m <= 1 where C_{n,m} = 0. That row is implied by
 *        (2)-(4) for integer points but tightens the LP relaxation (a
 *        valid cut: the optimum is unchanged). Choosing l leaves that share
 *        s spines is a biclique problem; CBC still needs seconds on some
 *        random 50 x 30 states with l = 8, which is why the exact search
 *        is the default.
 *   (5)  r_n = s / T servers per chosen leaf, r_n <= R_n: folded into the
 *        bounds (l_n is fixed to 0 on leaves with fewer idle servers)
 *   (6)  min sum RPN(S_m) s_m + sum RSN(L_n) T l_n
 * Reading: at most one virtual leaf/spine per physical switch and one link
 * per (leaf, spine) pair for a job ("at most one virtual leaf/virtual spine
 * can be generated from each leaf/spine for one training task", A.2).
 */
#include <math.h>
#include <stdlib.h>

#include "solver/milp.h"
#include "vclos/internal.h"

typedef struct vc_ilp_vars {
  int *x;   /* l_n column or -1 */
  int *y;   /* s_m column */
  int *c;   /* L * S: c_{n,m} column or -1 */
} vc_ilp_vars;

static int add_vars(nsi_milp *m, const vc_fabric *f, int s, vc_ilp_vars *v) {
  for (int n = 0; n < f->L; n++) {
    int eligible = (int64_t)f->idle[n] * f->T >= s;
    v->x[n] = nsi_milp_add_col(m, 0, eligible ? 1 : 0, (double)f->idle[n] * f->T, 1);
  }
  for (int sp = 0; sp < f->S; sp++)
    v->y[sp] = nsi_milp_add_col(m, 0, 1, (double)f->rpn[sp], 1);
  for (int n = 0; n < f->L; n++)
    for (int sp = 0; sp < f->S; sp++)
      v->c[(size_t)n * f->S + sp] =
          vc_bit(f->bits + (size_t)n * f->words, sp) ? nsi_milp_add_col(m, 0, 1, 0, 1) : -1;
  return NS_OK;
}

/* Rows (2)-(4). `cols`/`coefs` are scratch of max(L, S) + 1 entries. */
static void add_rows(nsi_milp *m, const vc_fabric *f, int l, int s, const vc_ilp_vars *v,
                     int *cols, double *coefs) {
  for (int n = 0; n < f->L; n++)
    cols[n] = v->x[n], coefs[n] = 1;
  nsi_milp_add_row(m, f->L, cols, coefs, 'E', l); /* (2) */
  for (int sp = 0; sp < f->S; sp++)
    cols[sp] = v->y[sp], coefs[sp] = 1;
  nsi_milp_add_row(m, f->S, cols, coefs, 'E', s); /* (2) */
  for (int n = 0; n < f->L; n++) { /* (3) leaf side */
    int nz = 0;
    for (int sp = 0; sp < f->S; sp++)
      if (v->c[(size_t)n * f->S + sp] >= 0)
        cols[nz] = v->c[(size_t)n * f->S + sp], coefs[nz++] = 1;
    cols[nz] = v->x[n], coefs[nz++] = -s;
    nsi_milp_add_row(m, nz, cols, coefs, 'E', 0);
  }
  for (int sp = 0; sp < f->S; sp++) { /* (3) spine side */
    int nz = 0;
    for (int n = 0; n < f->L; n++)
      if (v->c[(size_t)n * f->S + sp] >= 0)
        cols[nz] = v->c[(size_t)n * f->S + sp], coefs[nz++] = 1;
    cols[nz] = v->y[sp], coefs[nz++] = -l;
    nsi_milp_add_row(m, nz, cols, coefs, 'E', 0);
  }
  for (int n = 0; n < f->L; n++) /* (4) */
    for (int sp = 0; sp < f->S; sp++) {
      int cc = v->c[(size_t)n * f->S + sp];
      if (cc < 0) { /* no free link: leaf and spine exclude each other */
        int pair[2] = {v->x[n], v->y[sp]};
        double ones[2] = {1, 1};
        nsi_milp_add_row(m, 2, pair, ones, 'L', 1);
        continue;
      }
      int pair[2] = {cc, v->x[n]};
      double one_minus[2] = {1, -1};
      nsi_milp_add_row(m, 2, pair, one_minus, 'L', 0);
      pair[1] = v->y[sp];
      nsi_milp_add_row(m, 2, pair, one_minus, 'L', 0);
    }
}

/* Reads the chosen leaves and spines; returns 1 if the counts match Eq. 2. */
static int read_choice(const vc_fabric *f, const vc_ilp_vars *v, const double *sol, int l, int s,
                       vc_choice *ch) {
  int nl = 0, ns = 0;
  for (int n = 0; n < f->L; n++)
    if (sol[v->x[n]] > 0.5 && nl < l)
      ch->leaves[nl++] = n;
  for (int sp = 0; sp < f->S; sp++)
    if (sol[v->y[sp]] > 0.5 && ns < s)
      ch->spines[ns++] = sp;
  ch->cost = vc_cost(f, ch->leaves, nl, ch->spines, ns);
  return nl == l && ns == s;
}

int vc_ilp(const vc_fabric *f, int l, int s, double time_limit_s, vc_choice *ch, const char *fn) {
  if (l < 1 || s < 1 || l > f->L || s > f->S)
    return nsi_fail(NS_ENOSPACE, "%s: a %d x %d virtual Clos does not fit %d leaves x %d "
                                 "spines", fn, l, s, f->L, f->S);
  size_t LS = (size_t)f->L * (size_t)f->S, wide = (size_t)(f->L > f->S ? f->L : f->S) + 1;
  vc_ilp_vars v = {malloc((size_t)f->L * sizeof(int)), malloc((size_t)f->S * sizeof(int)),
                   malloc(LS * sizeof(int))};
  int *cols = malloc(wide * sizeof *cols);
  double *coefs = malloc(wide * sizeof *coefs), *sol = NULL, obj = 0;
  nsi_milp *m = nsi_milp_new();
  int rc = NS_OK;
  if (!v.x || !v.y || !v.c || !cols || !coefs || !m) {
    rc = nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
    goto done;
  }
  add_vars(m, f, s, &v);
  add_rows(m, f, l, s, &v, cols, coefs);
  sol = malloc((size_t)nsi_milp_col_count(m) * sizeof *sol);
  if (sol == NULL) {
    rc = nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
    goto done;
  }
  rc = nsi_milp_solve(m, time_limit_s, sol, &obj, fn);
  if (rc == NS_OK) {
    if (!read_choice(f, &v, sol, l, s, ch) || fabs((double)ch->cost - obj) > 0.5)
      /* a rounding surprise: never return a silently wrong placement */
      rc = nsi_fail(NS_ESOLVER, "%s: CBC objective %g disagrees with the rounded "
                    "solution's %lld",
                    fn, obj, (long long)ch->cost);
  }
done:
  nsi_milp_free(m);
  free(v.x);
  free(v.y);
  free(v.c);
  free(cols);
  free(coefs);
  free(sol);
  return rc;
}
