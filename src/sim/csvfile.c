/*
 * src/sim/csvfile.c - the one CSV reader of the simulator's input files
 * (traces, model profiles; libcsv), with the limits every reader shares:
 *  - a line (record) is at most NSI_CSV_MAX_LINE bytes and has at most
 *    NSI_CSV_MAX_FIELDS columns: endless input (--trace /dev/zero) fails
 *    at the first over-long line, in bounded memory, instead of growing
 *    one field without end (issue 31: 2 GB in 30 s);
 *  - a NUL byte means a binary file: refused, naming its line;
 *  - a UTF-8 byte-order mark at the start is skipped (spreadsheets write
 *    one; it used to become part of the first column's name), a UTF-16 one
 *    refused with a message saying so;
 *  - a directory is "is a directory", not a read error.
 * Line numbers are physical lines (1 = the header), so a message points
 * at the line an editor shows, blank lines and quoted line breaks counted.
 * Input is fed to libcsv a line (or 4 KiB) at a time for that.
 */
#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/sim_internal.h"

#define NSI_CSV_SLICE 4096

typedef struct nsi_csv_state {
  nsi_csv *c;
  int row_ended; /* a record ended in the slice being fed */
} nsi_csv_state;

int nsi_csv_bad(nsi_csv *c, const char *what, const char *val) {
  if (c->rc == NS_OK && val == NULL)
    c->rc = nsi_fail(NS_EINVAL, "%s: path '%.160s' line %ld: %s", c->fn, c->path, c->line, what);
  else if (c->rc == NS_OK)
    c->rc = nsi_fail(NS_EINVAL, "%s: path '%.160s' line %ld: %s (got '%.80s')", c->fn, c->path,
                     c->line, what, val);
  return c->rc;
}

static void free_fields(nsi_csv *c) {
  for (size_t i = 0; i < c->nfield; i++)
    free(c->field[i]);
  c->nfield = c->ncols = 0;
}

static void on_field(void *data, size_t len, void *vs) {
  nsi_csv *c = ((nsi_csv_state *)vs)->c;
  c->ncols++;
  if (c->rc != NS_OK || c->nfield >= NSI_CSV_MAX_FIELDS)
    return; /* counted, not kept: on_row refuses the line */
  char *f = malloc(len + 1);
  if (f == NULL) {
    c->rc = nsi_fail(NS_ENOMEM, "%s: out of memory", c->fn);
    return;
  }
  memcpy(f, data, len);
  f[len] = '\0';
  c->field[c->nfield++] = f;
}

static void on_row(int term, void *vs) {
  (void)term;
  nsi_csv_state *st = vs;
  nsi_csv *c = st->c;
  st->row_ended = 1;
  c->records++;
  if (c->rc == NS_OK && c->ncols > NSI_CSV_MAX_FIELDS) {
    char what[96];
    snprintf(what, sizeof what, "%zu columns, more than the %d a line may have", c->ncols,
             NSI_CSV_MAX_FIELDS);
    nsi_csv_bad(c, what, c->field[0]);
  }
  if (c->rc == NS_OK) {
    int rc = c->row(c, c->user);
    if (rc < 0 && c->rc == NS_OK)
      c->rc = rc;
  }
  free_fields(c);
}

/* The byte-order marks of UTF-16/32: such a file is not UTF-8 text. */
static const char *utf16_bom(const unsigned char *b, size_t n) {
  if (n >= 2 && b[0] == 0xFF && b[1] == 0xFE)
    return "FF FE (UTF-16 little-endian)";
  if (n >= 2 && b[0] == 0xFE && b[1] == 0xFF)
    return "FE FF (UTF-16 big-endian)";
  return NULL;
}

/* Feeds buf[0..n) a line (or a slice) at a time; checks the limits. */
static void feed(nsi_csv_state *st, struct csv_parser *p, const char *buf, size_t n) {
  nsi_csv *c = st->c;
  size_t at = 0;
  while (at < n && c->rc == NS_OK) {
    size_t len = n - at < NSI_CSV_SLICE ? n - at : NSI_CSV_SLICE;
    const char *nl = memchr(buf + at, '\n', len);
    if (nl)
      len = (size_t)(nl - (buf + at)) + 1;
    if (memchr(buf + at, '\0', len) != NULL) {
      nsi_csv_bad(c, "contains a NUL byte: a binary file, not CSV text", NULL);
      return;
    }
    st->row_ended = 0;
    if (csv_parse(p, buf + at, len, on_field, on_row, st) != len && c->rc == NS_OK) {
      nsi_csv_bad(c, csv_strerror(csv_error(p)), NULL);
      return;
    }
    c->pending = st->row_ended ? 0 : c->pending + len;
    if (c->rc == NS_OK && c->pending > NSI_CSV_MAX_LINE) {
      char what[80];
      snprintf(what, sizeof what, "longer than %d bytes (the longest line a CSV input may have)",
               NSI_CSV_MAX_LINE);
      nsi_csv_bad(c, what, NULL);
      return;
    }
    if (nl)
      c->line++;
    at += len;
  }
}

int nsi_csv_read(const char *fn, const char *path, int (*row)(nsi_csv *c, void *user),
                 void *user) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return nsi_fail(NS_EINVAL, "%s: path '%.200s' cannot be opened: %s", fn, path, strerror(errno));
  struct stat sb;
  if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
    fclose(f);
    return nsi_fail(NS_EINVAL, "%s: path '%.200s' is a directory, not a CSV file", fn, path);
  }
  nsi_csv c = {0};
  c.fn = fn, c.path = path, c.line = 1, c.row = row, c.user = user;
  nsi_csv_state st = {&c, 0};
  struct csv_parser p;
  if (csv_init(&p, CSV_APPEND_NULL) != 0) {
    fclose(f);
    return nsi_fail(NS_ENOMEM, "%s: csv_init failed", fn);
  }
  char chunk[65536];
  size_t n;
  int first = 1;
  while (c.rc == NS_OK && (n = fread(chunk, 1, sizeof chunk, f)) > 0) {
    const char *b = chunk;
    if (first) {
      const char *wide = utf16_bom((const unsigned char *)chunk, n);
      if (wide) {
        char what[96];
        snprintf(what, sizeof what, "starts with the byte-order mark %s: save it as UTF-8", wide);
        nsi_csv_bad(&c, what, NULL);
        break;
      }
      if (n >= 3 && memcmp(chunk, "\xEF\xBB\xBF", 3) == 0)
        b += 3, n -= 3; /* UTF-8 BOM: not part of the first column's name */
      first = 0;
    }
    feed(&st, &p, b, n);
  }
  if (c.rc == NS_OK && ferror(f))
    c.rc = nsi_fail(NS_EINVAL, "%s: path '%.200s' read error: %s", fn, path, strerror(errno));
  if (c.rc == NS_OK)
    csv_fini(&p, on_field, on_row, &st); /* the last line may lack its newline */
  free_fields(&c);
  csv_free(&p);
  fclose(f);
  if (c.rc == NS_OK && c.records == 0)
    c.rc = nsi_fail(NS_EINVAL, "%s: path '%.200s' is empty (no header)", fn, path);
  return c.rc;
}

int nsi_csv_decimal(const char *v, double *out) {
  /* [+-]digits[.digits][(e|E)[+-]digits], or [+-].digits...: what strtod
     reads, minus hex (0x10 is not 16 here), inf, nan and surrounding
     spaces - the full field must be the number. */
  const char *p = v;
  if (*p == '+' || *p == '-')
    p++;
  size_t int_digits = strspn(p, "0123456789");
  p += int_digits;
  size_t frac_digits = 0;
  if (*p == '.') {
    frac_digits = strspn(p + 1, "0123456789");
    p += 1 + frac_digits;
  }
  if (int_digits + frac_digits == 0)
    return -1;
  if (*p == 'e' || *p == 'E') {
    const char *e = p + 1;
    if (*e == '+' || *e == '-')
      e++;
    size_t exp_digits = strspn(e, "0123456789");
    if (exp_digits == 0)
      return -1;
    p = e + exp_digits;
  }
  if (*p != '\0')
    return -1;
  errno = 0;
  double d = strtod(v, NULL);
  if (errno == ERANGE && fabs(d) > 1) /* overflow; an underflow to ~0 is a value */
    return -1;
  if (!isfinite(d))
    return -1;
  *out = d;
  return 0;
}
