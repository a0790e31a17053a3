/*
 * src/solver/milp.h - a small internal MILP interface (columns, rows,
 * solve with a time limit) backed by COIN-OR CBC's C API. Only src/vclos
 * uses it; nothing here is exported.
 *
 * Status mapping of nsi_milp_solve:
 *   NS_OK        proven optimal; x and *obj hold the optimum
 *   NS_ENOSPACE  proven infeasible (the caller's "no placement with this shape")
 *   NS_ESOLVER   anything else: time limit reached, node limit, numerical
 *                trouble, unbounded; the message carries CBC's status and
 *                secondary status
 * CBC is told to stay silent (log level 0); nothing is printed.
 */
#ifndef NS_SOLVER_MILP_H
#define NS_SOLVER_MILP_H

#include <stddef.h>

typedef struct nsi_milp nsi_milp;

/* A minimisation problem with no columns yet. NULL on OOM (error set). */
nsi_milp *nsi_milp_new(void);
void nsi_milp_free(nsi_milp *m);

/* Adds a column lb <= x <= ub with objective coefficient obj; is_int
   makes it integer. Returns its index (>= 0) or a negative status. */
int nsi_milp_add_col(nsi_milp *m, double lb, double ub, double obj, int is_int);

/* Adds sum(coefs[i] * x[cols[i]]) <sense> rhs, sense one of 'L' (<=),
   'G' (>=), 'E' (=). NS_OK or a negative status. */
int nsi_milp_add_row(nsi_milp *m, int nz, const int *cols, const double *coefs, char sense,
                     double rhs);

int nsi_milp_col_count(const nsi_milp *m);

/* Solves with a wall-clock limit of time_limit_s seconds (> 0). On NS_OK
   copies the solution into x (nsi_milp_col_count entries) and the
   objective into *obj. `fn` names the public caller in messages. */
int nsi_milp_solve(nsi_milp *m, double time_limit_s, double *x, double *obj, const char *fn);

#endif /* NS_SOLVER_MILP_H */
