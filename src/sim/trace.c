/*
 * src/sim/trace.c - trace readers (libcsv): the Tiresias and Philly CSV
 * formats of shared/data/traces (see sim.h). All or nothing: rows are
 * parsed and validated into a staging array first; the first malformed row
 * fails the load with the file name and line number, and nothing is added.
 * The file is read by csvfile.c (limits, byte-order marks, line numbers);
 * numbers must be plain decimals (nsi_csv_decimal: 0x10 is refused).
 */
#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_internal.h"

typedef struct nsi_row {
  char *id;         /* job_id column, or NULL */
  char *model_name; /* Tiresias model_name as written, or NULL (Philly: drawn) */
  nsi_model model;
  double arrival_ms;
  int gpus;
  uint64_t iterations;
  double duration_s; /* Philly; Tiresias when has_duration (see sim.h) */
  int has_duration;
  long line;         /* 1-based line in the file, for error messages */
} nsi_row;

typedef struct nsi_reader {
  ns_sim *s;
  nsi_csv *csv; /* the record being read: fields, line */
  const char *path;
  ns_sim_trace_format fmt;
  char **field;  /* = csv->field */
  size_t nfield; /* = csv->nfield */
  int col[6]; /* format columns -> field index (col[4]: Tiresias duration, col[5]: job_id; optional) */
  int rc;     /* first error */
  nsi_row *rows;
  size_t nrows, cap_rows;
  double t0; /* Philly: earliest timestamp (s) */
} nsi_reader;

static const char fn[] = "ns_sim_load_trace";

static int bad(nsi_reader *r, const char *what, const char *val) {
  r->rc = nsi_csv_bad(r->csv, what, val);
  return r->rc;
}

/* A non-negative decimal of at most `max`; the message quotes the field as
   written in the file (never a converted value). */
static int parse_real(nsi_reader *r, int idx, const char *what, double max, double *out) {
  const char *v = r->field[idx];
  double d = 0;
  if (nsi_csv_decimal(v, &d) < 0 || d < 0 || d > max)
    return bad(r, what, v);
  *out = d;
  return NS_OK;
}

/* Times in seconds: at most 1e12 s, so that every time in ms stays within
   the library's 1e15 limit for real arguments (NSI_REAL_MAX). */
#define NSI_TRACE_MAX_S 1e12

static int parse_double(nsi_reader *r, int idx, const char *what, double *out) {
  return parse_real(r, idx, what, NSI_TRACE_MAX_S, out);
}

static int parse_count(nsi_reader *r, int idx, const char *what, double max, double *out) {
  NSI_TRY(parse_real(r, idx, what, max, out));
  if (*out < 1 || *out > max || *out != floor(*out))
    return bad(r, what, r->field[idx]);
  return NS_OK;
}

/* Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm). */
static long days_from_civil(long y, unsigned m, unsigned d) {
  y -= m <= 2;
  long era = (y >= 0 ? y : y - 399) / 400;
  unsigned yoe = (unsigned)(y - era * 400);
  unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + (long)doe - 719468;
}

/* Days in month mo (1-12) of year y, Gregorian. */
static int month_days(int y, int mo) {
  static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return days[mo - 1] + (mo == 2 && leap);
}

static int parse_timestamp(nsi_reader *r, int idx, double *out) {
  int y, mo, d, h, mi, sec, n = 0;
  const char *v = r->field[idx];
  if (sscanf(v, "%4d-%2d-%2d %2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6 ||
      v[n] != '\0' || y < 1 || mo < 1 || mo > 12 || h > 23 || mi > 59 || sec > 60 || h < 0 ||
      mi < 0 || sec < 0)
    return bad(r, "timestamp must be YYYY-MM-DD HH:MM:SS", v);
  if (d < 1 || d > month_days(y, mo))
    return bad(r, "timestamp is not a calendar date (day out of range for its month)", v);
  *out = (double)days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400.0 + h * 3600.0 + mi * 60.0 + sec;
  return NS_OK;
}

static int column(const nsi_reader *r, const char *name) {
  for (size_t i = 0; i < r->nfield; i++)
    if (strcmp(r->field[i], name) == 0)
      return (int)i;
  return -1;
}

/* The header line as read (for messages), e.g. "gpus,submit_time,...". */
static void header_text(const nsi_reader *r, char *buf, size_t len) {
  size_t at = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < r->nfield && at + 1 < len; i++)
    at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? "," : "", r->field[i]);
}

static int header(nsi_reader *r) {
  static const char *cols[2][4] = {{"num_gpu", "submit_time", "iterations", "model_name"},
                                   {"timestamp", "duration", "num_gpus", NULL}};
  static const char *need[2] = {"job_id,num_gpu,submit_time,iterations,model_name",
                                "timestamp,duration,num_gpus"};
  char got[200];
  header_text(r, got, sizeof got);
  if (r->fmt == NS_SIM_TRACE_AUTO) { /* the format whose columns the header has more of */
    static const char *tiresias[] = {"job_id", "num_gpu", "submit_time", "iterations", "model_name"};
    static const char *philly[] = {"timestamp", "duration", "num_gpus"};
    int t = 0, p = 0;
    for (int i = 0; i < 5; i++)
      t += column(r, tiresias[i]) >= 0;
    for (int i = 0; i < 3; i++)
      p += column(r, philly[i]) >= 0;
    if (t == p) /* (a Tiresias header's optional duration column never decides alone) */
      return bad(r, "format not recognised: a Tiresias header has job_id,num_gpu,submit_time,"
                    "iterations,model_name, a Philly header timestamp,duration,num_gpus", got);
    r->fmt = t > p ? NS_SIM_TRACE_TIRESIAS : NS_SIM_TRACE_PHILLY;
  }
  for (int c = 0; c < 4; c++) {
    const char *want = cols[r->fmt][c];
    r->col[c] = want ? column(r, want) : -1;
    if (want && r->col[c] < 0) {
      char what[160];
      snprintf(what, sizeof what, "missing column %s (a %s header has %s)", want,
               r->fmt == NS_SIM_TRACE_TIRESIAS ? "Tiresias" : "Philly", need[r->fmt]);
      return bad(r, what, got);
    }
  }
  r->col[4] = r->fmt == NS_SIM_TRACE_TIRESIAS ? column(r, "duration") : -1;
  r->col[5] = column(r, "job_id");
  return NS_OK;
}

static int row_tiresias(nsi_reader *r, nsi_row *row) {
  double g = 0, t = 0, it = 0;
  NSI_TRY(parse_count(r, r->col[0], "num_gpu must be an integer >= 1", 1 << 20, &g));
  NSI_TRY(parse_double(r, r->col[1], "submit_time must be seconds in [0, 1e12]", &t));
  NSI_TRY(parse_count(r, r->col[2], "iterations must be an integer >= 1", 9007199254740992.0, &it));
  if (nsi_sim_model_lookup(r->s, r->field[r->col[3]], &row->model) != NS_OK)
    return bad(r, "model_name has no profile (vgg*, alexnet, resnet*, inception*, googlenet, "
                  "lstm*, or one added with ns_sim_add_model_profile / netsched-sim --models)",
               r->field[r->col[3]]);
  row->model_name = r->field[r->col[3]];
  row->gpus = (int)g, row->arrival_ms = t * 1000.0, row->iterations = (uint64_t)it;
  if (r->col[4] >= 0 && (size_t)r->col[4] < r->nfield) {
    NSI_TRY(parse_double(r, r->col[4], "duration must be seconds in [0, 1e12]", &row->duration_s));
    row->has_duration = 1;
  }
  return NS_OK;
}

static int row_philly(nsi_reader *r, nsi_row *row) {
  double ts = 0, dur = 0, g = 0;
  NSI_TRY(parse_timestamp(r, r->col[0], &ts));
  NSI_TRY(parse_double(r, r->col[1], "duration must be seconds in [0, 1e12]", &dur));
  NSI_TRY(parse_count(r, r->col[2], "num_gpus must be an integer >= 1", 1 << 20, &g));
  /* the draw is keyed by the record number (header = 1), as it always was */
  uint64_t st = r->s->o.seed ^ ((uint64_t)r->csv->records * 0x9e3779b97f4a7c15ull);
  nsi_sim_model_builtin((int)(nsi_splitmix64(&st) % 4ull), &row->model);
  row->gpus = (int)g, row->arrival_ms = ts, row->duration_s = dur, row->has_duration = 1;
  if (ts < r->t0)
    r->t0 = ts;
  return NS_OK;
}

static int on_record(nsi_csv *c, void *vr) {
  nsi_reader *r = vr;
  r->csv = c, r->field = c->field, r->nfield = c->nfield;
  if (c->records == 1)
    return header(r);
  int need = r->fmt == NS_SIM_TRACE_TIRESIAS ? 4 : 3;
  int maxcol = 0;
  for (int k = 0; k < need; k++)
    maxcol = r->col[k] > maxcol ? r->col[k] : maxcol;
  maxcol = r->col[5] > maxcol ? r->col[5] : maxcol;
  nsi_row row = {0};
  if ((size_t)maxcol >= r->nfield) {
    char what[96], got[200];
    snprintf(what, sizeof what, "%zu column%s, the header's columns need at least %d",
             r->nfield, r->nfield == 1 ? "" : "s", maxcol + 1);
    header_text(r, got, sizeof got);
    return bad(r, what, got);
  }
  NSI_TRY(r->fmt == NS_SIM_TRACE_TIRESIAS ? row_tiresias(r, &row) : row_philly(r, &row));
  /* keep the strings the row refers to: take them from the field array */
  if (row.model_name)
    r->field[r->col[3]] = NULL;
  if (r->col[5] >= 0)
    row.id = r->field[r->col[5]], r->field[r->col[5]] = NULL;
  if (nsi_reserve(&r->rows, &r->cap_rows, r->nrows + 1, sizeof *r->rows) < 0) {
    free(row.id), free(row.model_name);
    return r->rc = NS_ENOMEM;
  }
  row.line = c->line, r->rows[r->nrows++] = row;
  return NS_OK;
}

/* Compute per iteration and iteration count of a row (sim.h, TRACE
   DURATIONS): the duration is the lone run time on a consolidated
   placement under the options' network model. */
static int row_work(const nsi_reader *r, const nsi_row *row, double *compute, uint64_t *iters) {
  const ns_sim *s = r->s;
  *compute = row->model.compute_ms;
  *iters = row->iterations;
  if (!row->has_duration)
    return NS_OK;
  double comm = nsi_sim_comm_consolidated_ms(&s->o, row->gpus, row->model.bytes);
  if (!isfinite(comm))
    return nsi_fail(NS_EUNSUPPORTED, "the contention model's ns_comm_time_ms is unavailable: %s",
                    ns_last_error());
  double duration_ms = row->duration_s * 1000.0;
  if (r->fmt == NS_SIM_TRACE_PHILLY) { /* the count from the profile's compute */
    double it = duration_ms / (*compute + comm);
    *iters = it < 1 ? 1 : (uint64_t)llround(it);
  } /* Tiresias: keep the iterations */
  /* then compute per iteration so that iterations x (compute + comm) is the
     duration: a lone consolidated job runs exactly its duration (sim.h) */
  *compute = duration_ms / (double)*iters - comm;
  if (!(*compute >= NSI_SIM_MIN_COMPUTE_MS))
    *compute = NSI_SIM_MIN_COMPUTE_MS;
  return NS_OK;
}

/* Adds the staged rows; rolls back on failure. */
static int commit_rows(nsi_reader *r) {
  ns_sim *s = r->s;
  size_t before = s->njobs;
  int skipped_before = s->skipped, added = 0;
  for (size_t i = 0; i < r->nrows; i++) {
    nsi_row *row = &r->rows[i];
    double arrival = row->arrival_ms, compute = 0;
    uint64_t iters = 0;
    if (r->fmt == NS_SIM_TRACE_PHILLY)
      arrival = (row->arrival_ms - r->t0) * 1000.0;
    char name[48];
    snprintf(name, sizeof name, "%s%zu", r->fmt == NS_SIM_TRACE_PHILLY ? "philly" : "tiresias", i);
    int rc = row_work(r, row, &compute, &iters);
    if (rc == NS_OK)
      rc = nsi_sim_add_job_model(s, fn, row->id ? row->id : name,
                                 row->model_name ? row->model_name : row->model.name, arrival,
                                 row->gpus, iters, compute, row->model.bytes, row->model.mem_mb);
    if (rc >= 0) {
      added++;
    } else if (rc != NS_ENOSPACE) {
      while (s->njobs > before)
        free(s->jobs[--s->njobs].name);
      s->skipped = skipped_before;
      /* Name the caller's function and the row, not the inner add call
         (e.g. a Philly duration that makes too many iterations). */
      return nsi_fail(rc, "%s: path '%.160s' line %ld: %s", fn, r->path, row->line,
                      ns_last_error());
    }
  }
  return added;
}

static int cmp_row_id(const void *a, const void *b) {
  const nsi_row *x = *(nsi_row *const *)a, *y = *(nsi_row *const *)b;
  int c = strcmp(x->id, y->id);
  return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* Job ids must be unique (they are how results join back to the trace):
   NS_EINVAL naming the first repeated id and two of its lines. */
static int unique_ids(nsi_reader *r) {
  if (r->nrows < 2 || r->rows[0].id == NULL)
    return NS_OK;
  nsi_row **by = malloc(r->nrows * sizeof *by);
  if (by == NULL)
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  for (size_t i = 0; i < r->nrows; i++)
    by[i] = &r->rows[i];
  qsort(by, r->nrows, sizeof *by, cmp_row_id);
  const nsi_row *dup = NULL, *first = NULL;
  for (size_t i = 1; i < r->nrows; i++)
    if (strcmp(by[i - 1]->id, by[i]->id) == 0 && (dup == NULL || by[i]->line < dup->line))
      dup = by[i], first = by[i - 1];
  free(by);
  if (dup == NULL)
    return NS_OK;
  return nsi_fail(NS_EINVAL, "%s: path '%.160s' lines %ld and %ld: job_id must be unique (got '%.40s' twice)",
                  fn, r->path, first->line, dup->line, dup->id);
}

static void free_rows(nsi_reader *r) {
  for (size_t i = 0; i < r->nrows; i++)
    free(r->rows[i].id), free(r->rows[i].model_name);
  free(r->rows);
}

static int load_trace(ns_sim *s, const char *path, ns_sim_trace_format format) {
  NSI_TRY(nsi_check_ptr(path, fn, "path"));
  NSI_TRY(nsi_check_int((long long)format, 0, NS_SIM_TRACE_AUTO, fn, "format"));
  nsi_reader r = {0};
  r.s = s, r.path = path, r.fmt = format, r.t0 = INFINITY;
  int rc = nsi_csv_read(fn, path, on_record, &r);
  if (rc == NS_OK)
    rc = unique_ids(&r);
  if (rc == NS_OK)
    rc = commit_rows(&r);
  free_rows(&r);
  return rc;
}

int ns_sim_load_trace(ns_sim *s, const char *path, ns_sim_trace_format format) {
  NSI_SIM_CALL(s, fn, NSI_SIM_WRITE, load_trace(s, path, format));
}
