/*
 * src/sim/profiles.c - model profiles read from a CSV file
 * (ns_sim_load_models): the reader of netsched-sim --models and of
 * Python's Simulator.load_models, so both read one file the same way.
 *
 * Issue 31: the CLI read lines with fgets(line, 1024) - the rest of a
 * longer line became another profile, which could override a built-in
 * model - and converted model_bytes with an undefined double-to-uint64
 * cast (1e30 became 0); Python used its own csv module with other
 * quoting and limits. Now: csvfile.c's reader (quoting, line limits,
 * byte-order marks, line numbers), plain decimals only, model_bytes a
 * whole number in [0, 2^53], names unique within the file, and all or
 * nothing: every row is checked before any profile changes.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_internal.h"

#define NSI_MAX_PROFILES 65536
#define NSI_PROFILE_MAX_BYTES 9007199254740992.0 /* 2^53: exact in a double */

static const char fn[] = "ns_sim_load_models";
static const char *const need[5] = {"name", "forward_ms", "backward_ms", "model_bytes",
                                    "memory_mb"};

typedef struct nsi_prow {
  char *name;
  double fwd, bwd, mem;
  uint64_t bytes;
  long line;
} nsi_prow;

typedef struct nsi_preader {
  int col[5];
  nsi_prow *rows;
  size_t n, cap;
} nsi_preader;

static int header(nsi_csv *c, nsi_preader *r) {
  for (int k = 0; k < 5; k++) {
    r->col[k] = -1;
    for (size_t i = 0; i < c->nfield; i++)
      if (strcmp(c->field[i], need[k]) == 0 && r->col[k] < 0)
        r->col[k] = (int)i;
    if (r->col[k] < 0) {
      char what[128];
      snprintf(what, sizeof what, "missing column %s (the header needs name,forward_ms,"
                                  "backward_ms,model_bytes,memory_mb)", need[k]);
      return nsi_csv_bad(c, what, c->nfield ? c->field[0] : "");
    }
  }
  return NS_OK;
}

/* A plain decimal in [0, max]; `whole`: no fraction either. */
static int number(nsi_csv *c, int k, const char *v, double max, int whole, double *out) {
  double d = 0;
  int ok = nsi_csv_decimal(v, &d) == 0;
  if (ok && whole && v[0] != '\0' && v[strspn(v, "0123456789")] == '\0') {
    /* plain digits: read exactly (9007199254740993 would round to 2^53) */
    errno = 0;
    unsigned long long u = strtoull(v, NULL, 10);
    ok = errno == 0 && u <= (1ull << 53);
    d = (double)u;
  }
  if (ok && d >= 0 && d <= max && (!whole || d == floor(d))) {
    *out = d;
    return NS_OK;
  }
  char what[128];
  snprintf(what, sizeof what, "%s must be %s in [0, %s]", need[k],
           whole ? "a whole number of bytes" : "a decimal number",
           whole ? "9007199254740992 (2^53)" : "1e+15");
  return nsi_csv_bad(c, what, v);
}

static int on_record(nsi_csv *c, void *vr) {
  nsi_preader *r = vr;
  if (c->records == 1)
    return header(c, r);
  int maxcol = 0;
  for (int k = 0; k < 5; k++)
    maxcol = r->col[k] > maxcol ? r->col[k] : maxcol;
  if ((size_t)maxcol >= c->nfield) {
    char what[96];
    snprintf(what, sizeof what, "%zu column%s, the header's columns need at least %d",
             c->nfield, c->nfield == 1 ? "" : "s", maxcol + 1);
    return nsi_csv_bad(c, what, c->field[0]);
  }
  if (r->n >= NSI_MAX_PROFILES)
    return nsi_csv_bad(c, "more than 65536 profiles", "");
  const char *name = c->field[r->col[0]];
  size_t len = strlen(name);
  if (len == 0 || len > 255)
    return nsi_csv_bad(c, "name must be 1..255 bytes", name);
  nsi_prow row = {NULL, 0, 0, 0, 0, c->line};
  double bytes = 0;
  NSI_TRY(number(c, 1, c->field[r->col[1]], NSI_REAL_MAX, 0, &row.fwd));
  NSI_TRY(number(c, 2, c->field[r->col[2]], NSI_REAL_MAX, 0, &row.bwd));
  NSI_TRY(number(c, 3, c->field[r->col[3]], NSI_PROFILE_MAX_BYTES, 1, &bytes));
  NSI_TRY(number(c, 4, c->field[r->col[4]], NSI_REAL_MAX, 0, &row.mem));
  if (!(row.fwd + row.bwd > 0))
    return nsi_csv_bad(c, "forward_ms + backward_ms must be > 0", c->field[r->col[1]]);
  for (size_t i = 0; i < r->n; i++)
    if (strcmp(r->rows[i].name, name) == 0) {
      char what[96];
      snprintf(what, sizeof what, "name must be unique in the file (also on line %ld)",
               r->rows[i].line);
      return nsi_csv_bad(c, what, name);
    }
  row.bytes = (uint64_t)bytes; /* whole and <= 2^53: exact */
  if (nsi_reserve(&r->rows, &r->cap, r->n + 1, sizeof *r->rows) < 0 ||
      (row.name = nsi_strdup(name)) == NULL)
    return c->rc = nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  r->rows[r->n++] = row;
  return NS_OK;
}

/* Applies the staged rows: each name leaves its old place (if any) and is
   appended, so the file's profiles are the last ones, in file order. No
   step can fail (room reserved, names already copied). */
static void apply(ns_sim *s, nsi_preader *r) {
  for (size_t i = 0; i < r->n; i++) {
    nsi_prow *row = &r->rows[i];
    for (size_t k = 0; k < s->nmodels; k++)
      if (strcmp(s->models[k].name, row->name) == 0) {
        free(s->models[k].name);
        memmove(s->models + k, s->models + k + 1, (s->nmodels - k - 1) * sizeof *s->models);
        s->nmodels--;
        break;
      }
    nsi_model m = {row->name, row->fwd + row->bwd, row->mem, row->bytes};
    s->models[s->nmodels++] = m;
    row->name = NULL; /* owned by s now */
  }
}

static int load_models(ns_sim *s, const char *path) {
  NSI_TRY(nsi_check_ptr(path, fn, "path"));
  nsi_preader r = {{0}, NULL, 0, 0};
  int rc = nsi_csv_read(fn, path, on_record, &r);
  if (rc == NS_OK && r.n == 0)
    rc = nsi_fail(NS_EINVAL, "%s: path '%.200s' has a header but no profile", fn, path);
  if (rc == NS_OK)
    rc = nsi_reserve(&s->models, &s->cap_models, s->nmodels + r.n, sizeof *s->models);
  if (rc == NS_OK)
    apply(s, &r);
  for (size_t i = 0; i < r.n; i++)
    free(r.rows[i].name);
  free(r.rows);
  return rc == NS_OK ? (int)r.n : rc;
}

int ns_sim_load_models(ns_sim *s, const char *path) {
  NSI_SIM_CALL(s, fn, NSI_SIM_WRITE, load_models(s, path));
}

int ns_sim_added_profile_count(const ns_sim *s) {
  NSI_SIM_CALL(s, "ns_sim_added_profile_count", NSI_SIM_READ, (int)s->nmodels);
}

const char *ns_sim_added_profile_name(const ns_sim *s, int i) {
  if (nsi_sim_enter(s, "ns_sim_added_profile_name", NSI_SIM_READ) < 0)
    return "";
  const char *v = i >= 0 && (size_t)i < s->nmodels ? s->models[i].name : "";
  nsi_sim_leave(s, NSI_SIM_READ);
  return v;
}
