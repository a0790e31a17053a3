/*
 * src/solver/cbc.c - nsi_milp over COIN-OR CBC's C interface
 * (Cbc_C_Interface.h, Debian coinor-libcbc-dev, EPL).
 *
 * CBC's header compiles cleanly as C11 with -Wpedantic (checked with CBC
 * 2.10.8), so no pragma is needed. Cbc_solve runs CbcMain1, which keeps
 * no state between models we rely on; every call builds a fresh model.
 */
#include <Cbc_C_Interface.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "solver/milp.h"

struct nsi_milp {
  Cbc_Model *model;
  int ncols;
};

nsi_milp *nsi_milp_new(void) {
  nsi_milp *m = calloc(1, sizeof *m);
  if (m == NULL || (m->model = Cbc_newModel()) == NULL) {
    free(m);
    nsi_fail(NS_ENOMEM, "nsi_milp_new: out of memory");
    return NULL;
  }
  Cbc_setObjSense(m->model, 1.0); /* minimise */
  Cbc_setLogLevel(m->model, 0);   /* silent: the library never prints */
  return m;
}

void nsi_milp_free(nsi_milp *m) {
  if (m == NULL)
    return;
  Cbc_deleteModel(m->model);
  free(m);
}

int nsi_milp_add_col(nsi_milp *m, double lb, double ub, double obj, int is_int) {
  Cbc_addCol(m->model, "", lb, ub, obj, (char)(is_int != 0), 0, NULL, NULL);
  return m->ncols++;
}

int nsi_milp_add_row(nsi_milp *m, int nz, const int *cols, const double *coefs, char sense,
                     double rhs) {
  Cbc_addRow(m->model, "", nz, cols, coefs, sense, rhs);
  return NS_OK;
}

int nsi_milp_col_count(const nsi_milp *m) { return m->ncols; }

int nsi_milp_solve(nsi_milp *m, double time_limit_s, double *x, double *obj, const char *fn) {
  Cbc_setMaximumSeconds(m->model, time_limit_s);
  Cbc_setParameter(m->model, "log", "0");
  Cbc_setParameter(m->model, "slog", "0");
  Cbc_setAllowableGap(m->model, 1e-9); /* proven optimum: the exact search must agree */
  Cbc_setAllowablePercentageGap(m->model, 0.0);
  Cbc_solve(m->model);
  int status = Cbc_status(m->model), secondary = Cbc_secondaryStatus(m->model);
  if (Cbc_isProvenOptimal(m->model)) {
    const double *sol = Cbc_getColSolution(m->model);
    if (sol == NULL)
      return nsi_fail(NS_ESOLVER, "%s: CBC reported an optimum without a solution "
                                  "(status %d, secondary %d)", fn, status, secondary);
    memcpy(x, sol, (size_t)m->ncols * sizeof *x);
    *obj = Cbc_getObjValue(m->model);
    return NS_OK;
  }
  if (Cbc_isProvenInfeasible(m->model))
    return nsi_fail(NS_ENOSPACE, "%s: the ILP is infeasible (CBC status %d, secondary %d)", fn,
                    status, secondary);
  if (Cbc_isSecondsLimitReached(m->model) || secondary == 4)
    return nsi_fail(NS_ESOLVER, "%s: CBC hit the time limit of %g s before proving an "
                                "optimum (status %d, secondary %d)", fn, time_limit_s, status,
                    secondary);
  return nsi_fail(NS_ESOLVER, "%s: CBC stopped without an optimum (status %d, secondary %d)", fn,
                  status, secondary);
}
