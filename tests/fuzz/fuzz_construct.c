/*
 * tests/fuzz/fuzz_construct.c - job and link construction and setters with
 * arbitrary names, integers and doubles (NaN, infinities, negatives,
 * denormals, raw bit patterns).
 *
 * fuzz-requires: ns_job_new ns_link_new ns_link_add_job
 *
 * Oracle: the documented domain of each argument (include/netsched/core.h).
 * A value inside it is accepted and read back unchanged through the
 * getters; a value outside it is rejected with NS_EINVAL (NS_ERANGE for
 * the phase limit), a message naming the function, and the handle reads
 * back exactly as before the call. Jobs are never freed before the links
 * that borrow them.
 */
#include "fuzz_util.h"

enum { MAXJ = 12, MAXLINK = 4 };

typedef struct jmodel {
  ns_job *h;
  char name[300];
  int gpus, collective;
  double iter, fwd, bwd, mem;
  size_t nphases;
  double last_d, last_g;
  uint64_t bytes, total, done;
} jmodel;

static void expect_job(const jmodel *m) {
  const ns_job *j = m->h;
  FZ_CHECK(strcmp(ns_job_name(j), m->name) == 0, "name");
  FZ_CHECK(ns_job_gpus(j) == m->gpus, "gpus");
  FZ_CHECK(memcmp(&(double){ns_job_iteration_ms(j)}, &m->iter, sizeof(double)) == 0, "iter");
  FZ_CHECK(ns_job_phase_count(j) == m->nphases, "phases %zu vs %zu", ns_job_phase_count(j),
           m->nphases);
  if (m->nphases > 0) {
    double d, g;
    FZ_CHECK(ns_job_phase(j, m->nphases - 1, &d, &g) == NS_OK && d == m->last_d &&
                 g == m->last_g,
             "last phase");
  }
  FZ_CHECK(ns_job_phase(j, m->nphases, &(double){0}, &(double){0}) == NS_EINVAL, "phase range");
  double f, b;
  FZ_CHECK(ns_job_compute_ms(j, &f, &b) == NS_OK && f == m->fwd && b == m->bwd, "compute");
  FZ_CHECK(ns_job_model_bytes(j) == m->bytes, "bytes");
  FZ_CHECK(ns_job_collective(j) == m->collective, "collective");
  uint64_t t, d;
  FZ_CHECK(ns_job_iterations(j, &t, &d) == NS_OK && t == m->total && d == m->done, "iters");
  FZ_CHECK(ns_job_gpu_memory_mb(j) == m->mem, "mem");
}

/* core.h: every real argument is finite, >= 0 and <= 1e15 */
static int ok_gt0(double v) { return isfinite(v) && v > 0 && v <= 1e15; }
static int ok_ge0(double v) { return isfinite(v) && v >= 0 && v <= 1e15; }

static void check_rc(int rc, int accept, int bad_status, const char *fn) {
  if (accept) {
    FZ_CHECK(rc == NS_OK, "%s: expected NS_OK, got %d", fn, rc);
  } else {
    FZ_CHECK(rc == bad_status, "%s: expected %d, got %d", fn, bad_status, rc);
    FZ_CHECK_FAILURE(rc, fn);
  }
}

static void new_job(fz *f, jmodel *jm, int *nj) {
  char name[300];
  size_t len = (size_t)fz_range(f, 0, 299);
  for (size_t i = 0; i < len; i++)
    name[i] = (char)fz_u8(f);
  name[len] = '\0';
  int gpus = fz_range(f, 0, 3) ? (int)fz_range(f, -2, 64) : (int)fz_u32(f);
  ns_job *j = ns_job_new(name, gpus);
  int accept = strlen(name) <= 255 && gpus >= 1 && gpus <= (1 << 20);
  if (!accept) {
    FZ_CHECK(j == NULL, "ns_job_new accepted gpus %d name length %zu", gpus, strlen(name));
    FZ_CHECK(strstr(ns_last_error(), "ns_job_new") != NULL, "message");
    return;
  }
  FZ_CHECK(j != NULL, "ns_job_new rejected gpus %d: %s", gpus, ns_last_error());
  if (*nj == MAXJ) {
    ns_job_free(j); /* pool full: jobs stay alive for the links */
    return;
  }
  jmodel *m = &jm[(*nj)++];
  memset(m, 0, sizeof *m);
  m->h = j;
  strcpy(m->name, name);
  m->gpus = gpus;
  m->total = 1;
  expect_job(m); /* documented defaults */
}

static void job_setter(fz *f, jmodel *m) {
  ns_job *j = m->h;
  switch (fz_range(f, 0, 8)) {
  case 0: {
    double v = fz_double(f, 0, 1000);
    check_rc(ns_job_set_iteration_ms(j, v), ok_gt0(v), NS_EINVAL, "ns_job_set_iteration_ms");
    if (ok_gt0(v))
      m->iter = v;
    break;
  }
  case 1: {
    int n = (int)fz_range(f, 1, 64);
    for (int i = 0; i < n; i++) {
      double d = fz_double(f, 0, 100), g = fz_double(f, 0, 100);
      int accept = ok_gt0(d) && ok_ge0(g);
      check_rc(ns_job_add_phase(j, d, g), accept, NS_EINVAL, "ns_job_add_phase");
      if (accept) {
        m->nphases++;
        m->last_d = d;
        m->last_g = g;
      }
    }
    break;
  }
  case 2:
    FZ_CHECK(ns_job_clear_phases(j) == NS_OK, "clear");
    m->nphases = 0;
    break;
  case 3: {
    double a = fz_double(f, 0, 100), b = fz_double(f, 0, 100);
    int accept = ok_ge0(a) && ok_ge0(b);
    check_rc(ns_job_set_compute_ms(j, a, b), accept, NS_EINVAL, "ns_job_set_compute_ms");
    if (accept) {
      m->fwd = a;
      m->bwd = b;
    }
    break;
  }
  case 4: {
    uint64_t v = ((uint64_t)fz_u32(f) << 32) | fz_u32(f);
    FZ_CHECK(ns_job_set_model_bytes(j, v) == NS_OK, "bytes");
    m->bytes = v;
    break;
  }
  case 5: {
    int c = fz_range(f, 0, 3) ? (int)fz_range(f, -1, 4) : (int)fz_u32(f);
    int accept = c >= 0 && c <= 3;
    check_rc(ns_job_set_collective(j, (ns_collective)c), accept, NS_EINVAL,
             "ns_job_set_collective");
    if (accept)
      m->collective = c;
    break;
  }
  case 6: {
    uint64_t t = fz_range(f, 0, 1) ? (uint64_t)fz_range(f, 0, 10) : fz_u32(f);
    uint64_t d = fz_range(f, 0, 1) ? (uint64_t)fz_range(f, 0, 10) : fz_u32(f);
    int accept = t >= 1 && d <= t;
    check_rc(ns_job_set_iterations(j, t, d), accept, NS_EINVAL, "ns_job_set_iterations");
    if (accept) {
      m->total = t;
      m->done = d;
    }
    break;
  }
  case 7: {
    double v = fz_double(f, 0, 1e5);
    check_rc(ns_job_set_gpu_memory_mb(j, v), ok_ge0(v), NS_EINVAL, "ns_job_set_gpu_memory_mb");
    if (ok_ge0(v))
      m->mem = v;
    break;
  }
  default: /* NULL handles are rejected, never dereferenced */
    check_rc(ns_job_set_iteration_ms(NULL, 1), 0, NS_EINVAL, "ns_job_set_iteration_ms");
    check_rc(ns_job_add_phase(NULL, 1, 1), 0, NS_EINVAL, "ns_job_add_phase");
    check_rc(ns_job_phase(j, 0, NULL, NULL), 0, NS_EINVAL, "ns_job_phase");
    check_rc(ns_job_compute_ms(j, NULL, &(double){0}), 0, NS_EINVAL, "ns_job_compute_ms");
    FZ_CHECK(ns_job_gpus(NULL) == NS_EINVAL && isnan(ns_job_iteration_ms(NULL)), "NULL getters");
  }
  expect_job(m);
}

typedef struct lmodel {
  ns_link *h;
  double cap;
  const ns_job *jobs[MAXJ];
  size_t n;
} lmodel;

static void new_link(fz *f, lmodel *lm, int *nl) {
  double cap = fz_double(f, 0, 400);
  const char *name = fz_range(f, 0, 1) ? "l" : NULL;
  ns_link *l = ns_link_new(name, cap);
  if (!ok_gt0(cap)) {
    FZ_CHECK(l == NULL && strstr(ns_last_error(), "capacity_gbps"), "ns_link_new(%g)", cap);
    return;
  }
  FZ_CHECK(l != NULL && ns_link_capacity_gbps(l) == cap && ns_link_job_count(l) == 0 &&
               strcmp(ns_link_name(l), name ? name : "") == 0,
           "new link");
  if (*nl == MAXLINK) {
    ns_link_free(l);
    return;
  }
  lm[*nl].h = l;
  lm[*nl].cap = cap;
  lm[*nl].n = 0;
  (*nl)++;
}

static void link_add(fz *f, lmodel *l, jmodel *jm, int nj) {
  if (nj == 0) {
    check_rc(ns_link_add_job(l->h, NULL), 0, NS_EINVAL, "ns_link_add_job");
    return;
  }
  const ns_job *j = jm[fz_range(f, 0, nj - 1)].h;
  int dup = 0;
  for (size_t i = 0; i < l->n; i++)
    dup |= l->jobs[i] == j;
  check_rc(ns_link_add_job(l->h, j), !dup, NS_EINVAL, "ns_link_add_job");
  if (!dup)
    l->jobs[l->n++] = j;
  FZ_CHECK(ns_link_job_count(l->h) == l->n, "link count");
  for (size_t i = 0; i < l->n; i++)
    FZ_CHECK(ns_link_job(l->h, i) == l->jobs[i], "link job %zu", i);
  FZ_CHECK(ns_link_job(l->h, l->n) == NULL && ns_link_capacity_gbps(l->h) == l->cap, "link");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz f = {data, size};
  jmodel jm[MAXJ];
  lmodel lm[MAXLINK];
  int nj = 0, nl = 0;
  for (int steps = 0; !fz_done(&f) && steps < 512; steps++) {
    switch (fz_range(&f, 0, 5)) {
    case 0: new_job(&f, jm, &nj); break;
    case 1: new_link(&f, lm, &nl); break;
    case 2:
    case 3:
      if (nj > 0)
        job_setter(&f, &jm[fz_range(&f, 0, nj - 1)]);
      break;
    default:
      if (nl > 0)
        link_add(&f, &lm[fz_range(&f, 0, nl - 1)], jm, nj);
    }
  }
  for (int i = 0; i < nl; i++)
    ns_link_free(lm[i].h);
  for (int i = 0; i < nj; i++)
    ns_job_free(jm[i].h);
  return 0;
}
