/*
 * tests/fuzz/fuzz_trace.c - the simulator's trace readers (Tiresias and
 * Philly CSV, via libcsv) on arbitrary file contents, then a short run of
 * what was read.
 *
 * fuzz-requires: ns_sim_load_trace ns_sim_new ns_sim_opts_new ns_sim_run ns_sim_metric
 * fuzz-requires: ns_sim_job_count ns_sim_skipped_count ns_sim_job_gpus ns_sim_job_result
 * fuzz-requires: ns_sim_opts_set_policy_name ns_sim_opts_set_phase_window
 *
 * The reader takes a path, so each input is written to one scratch file per
 * process (mkstemp under $TMPDIR or /tmp, removed at exit). The first byte
 * picks the format and whether a valid header is prepended (so mutations
 * reach the rows quickly); its top three bits pick the run's preset and
 * phase window W (RUN_SETUPS: "ff" W = 16, the default, and the presets
 * with admission - srsf-1, srsf-2, ada-srsf - and preemption - 2d-las -
 * with W = 16 and W = 0). Invariants (include/netsched/sim.h):
 *  - success returns the number of jobs added, which is what the simulator
 *    then holds, at most one per row; every job asks for 1..cluster GPUs;
 *  - failure is a documented status, its message names the function, and
 *    nothing was added (all or nothing);
 *  - a run of a small loaded workload succeeds or fails with a documented
 *    status, and its metrics are finite (the header promises NAN-free
 *    metrics), fractions within [0, 1];
 *  - with SRSF(n) admission (srsf-1, srsf-2), the run that skips asking a
 *    refused all-reduce again until its held link releases (net_phase.c
 *    still_refused) gives every job the same start and finish, bit for bit,
 *    as a run that asks every waiting all-reduce at every pass (the test
 *    hook ns_sim.ref_admit of sim_internal.h, as in test_sim_maxmin's
 *    test_admission_skip_matches_asking_all).
 */
#include "fuzz_util.h"

#include <unistd.h>

#include "sim/sim_internal.h" /* ref_admit: the differential check below */

static char trace_path[512];

static void remove_trace(void) {
  if (trace_path[0])
    unlink(trace_path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  const char *dir = getenv("TMPDIR");
  snprintf(trace_path, sizeof trace_path, "%s/netsched-fuzz-trace-XXXXXX", dir ? dir : "/tmp");
  int fd = mkstemp(trace_path);
  if (fd < 0) {
    perror("mkstemp");
    abort();
  }
  close(fd);
  atexit(remove_trace);
  return 0;
}

static void write_trace(const char *header, const uint8_t *data, size_t size) {
  FILE *f = fopen(trace_path, "wb");
  FZ_CHECK(f != NULL, "cannot write %s", trace_path);
  if (header)
    fputs(header, f);
  if (size)
    fwrite(data, 1, size, f);
  fclose(f);
}

static size_t count_rows(const char *header, const uint8_t *data, size_t size) {
  size_t rows = 1 + (header != NULL);
  for (size_t i = 0; i < size; i++)
    rows += data[i] == '\n' || data[i] == '\r';
  return rows;
}

static int same_time(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

/* The same jobs (reloaded from the trace) run asking every waiting
   all-reduce at every pass: the skip must not change any job's times. */
static void check_admission_skip(const ns_sim *s, const ns_sim_opts *o, int format) {
  ns_sim *r = ns_sim_new(o);
  FZ_CHECK(r != NULL, "setup");
  FZ_CHECK(ns_sim_load_trace(r, trace_path, (ns_sim_trace_format)format) == ns_sim_job_count(s),
           "reload: %s", ns_last_error());
  r->ref_admit = 1;
  int rc = ns_sim_run(r);
  FZ_CHECK(rc == NS_OK, "ns_sim_run asking every waiter: status %d (%s), skipping: NS_OK", rc,
           ns_last_error());
  for (int j = 0; j < ns_sim_job_count(s); j++) {
    double st[2], fin[2];
    FZ_CHECK(ns_sim_job_result(s, j, NULL, &st[0], &fin[0], NULL) == NS_OK &&
                 ns_sim_job_result(r, j, NULL, &st[1], &fin[1], NULL) == NS_OK,
             "job %d result", j);
    FZ_CHECK(same_time(st[0], st[1]) && same_time(fin[0], fin[1]),
             "job %d: start %.17g finish %.17g with the admission skip, %.17g / %.17g asking "
             "every waiter",
             j, st[0], fin[0], st[1], fin[1]);
  }
  ns_sim_free(r);
}

static void check_run(ns_sim *s, const ns_sim_opts *o, int format, int srsf) {
  int rc = ns_sim_run(s);
  if (rc != NS_OK) { /* a policy's failure keeps the policy's message */
    FZ_CHECK(rc <= NS_EINVAL && rc >= NS_EUNSUPPORTED && ns_last_error()[0] != '\0',
             "ns_sim_run: status %d, message '%s'", rc, ns_last_error());
    return;
  }
  if (srsf)
    check_admission_skip(s, o, format);
  for (int m = 0; m < NS_SIM_METRIC_COUNT; m++) {
    double v = NAN;
    FZ_CHECK(ns_sim_metric(s, (ns_sim_metric_id)m, &v) == NS_OK && isfinite(v),
             "metric %d = %g", m, v);
    if (m == NS_SIM_METRIC_GPU_UTIL || m == NS_SIM_METRIC_FRAGMENTATION)
      FZ_CHECK(v >= 0 && v <= 1 + 1e-9, "metric %d = %g outside [0, 1]", m, v);
  }
}

/* Index 0 is the default options (what every input ran before). */
static const struct {
  const char *preset;
  int window, srsf; /* srsf: SRSF(n) admission (the differential check) */
} RUN_SETUPS[8] = {
    {"ff", 16, 0},     {"srsf-1", 16, 1}, {"srsf-2", 0, 1},   {"ada-srsf", 16, 0},
    {"2d-las", 16, 0}, {"srsf-1", 0, 1},  {"ada-srsf", 0, 0}, {"2d-las", 0, 0},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *headers[] = {
      NULL,
      "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n",
      "timestamp,duration,num_gpus,gpu_time,cluster\n",
  };
  if (size == 0)
    return 0;
  int format = (data[0] >> 4) & 1 ? NS_SIM_TRACE_AUTO : data[0] & 1; /* AUTO: from the header */
  int hdr = (data[0] >> 1) % 3, run = (data[0] >> 3) & 1;
  const char *header = hdr == 0 ? NULL : headers[hdr];
  write_trace(header, data + 1, size - 1);

  ns_sim_opts *o = ns_sim_opts_new();
  FZ_CHECK(o != NULL, "setup");
  int setup = data[0] >> 5;
  FZ_CHECK(ns_sim_opts_set_policy_name(o, RUN_SETUPS[setup].preset) == NS_OK &&
               ns_sim_opts_set_phase_window(o, RUN_SETUPS[setup].window) == NS_OK,
           "setup %d (%s, W = %d): %s", setup, RUN_SETUPS[setup].preset,
           RUN_SETUPS[setup].window, ns_last_error());
  ns_sim *s = ns_sim_new(o);
  FZ_CHECK(s != NULL, "setup");
  int rc = ns_sim_load_trace(s, trace_path, (ns_sim_trace_format)format);
  if (rc < 0) {
    FZ_CHECK_FAILURE(rc, "ns_sim_load_trace");
    FZ_CHECK(ns_sim_job_count(s) == 0, "failed load left %d jobs", ns_sim_job_count(s));
  } else {
    FZ_CHECK(ns_sim_job_count(s) == rc, "returned %d, holds %d", rc, ns_sim_job_count(s));
    FZ_CHECK((size_t)rc + (size_t)ns_sim_skipped_count(s) <= count_rows(header, data + 1, size - 1),
             "%d jobs + %d skipped from at most %zu rows", rc, ns_sim_skipped_count(s),
             count_rows(header, data + 1, size - 1));
    for (int j = 0; j < rc; j++)
      FZ_CHECK(ns_sim_job_gpus(s, j) >= 1, "job %d asks for %d GPUs", j, ns_sim_job_gpus(s, j));
    if (run && rc > 0 && rc <= 8)
      check_run(s, o, format, RUN_SETUPS[setup].srsf);
  }
  ns_sim_free(s);
  ns_sim_opts_free(o);
  return 0;
}
