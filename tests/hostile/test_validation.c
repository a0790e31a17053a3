/*
 * tests/hostile/test_validation.c - values at and beyond the edges: every
 * real-valued setter against NaN, infinities, negatives and overflowing
 * magnitudes; trace fields that overflow or name impossible dates; a
 * contention fit on extreme but valid data. Messages must quote the value
 * as the caller wrote it (the CSV text; the argument's shortest round-trip
 * form) and the limit, and a rejected call changes nothing.
 */
#include "unit/helpers/ns_test.h"

#include <stdlib.h>
#include <unistd.h>

/* ---- real-valued setters ------------------------------------------------- */

/* The handles the setters act on; `probe` reads back what a setter would
   change, so a rejected call can be shown to have changed nothing. */
typedef struct handles {
  ns_job *job;
  ns_cluster *c;
  ns_cassini_opts *co;
  ns_vclos_opts *vo;
  ns_titan_opts *to;
  ns_sim_opts *so;
  ns_sim *sim;
  ns_affinity *g;
  ns_link *link;
  ns_delay_tuner *tuner;
  ns_placement *p;
} handles;

typedef struct setter {
  const char *fn, *arg;
  int (*set)(handles *h, double v); /* NS_ENOMEM stands for a NULL constructor */
  double (*probe)(handles *h);
} setter;

static double probe_none(handles *h) {
  (void)h;
  return 0;
}
static double probe_job(handles *h) {
  double f = 0, b = 0;
  ns_job_compute_ms(h->job, &f, &b);
  return ns_job_iteration_ms(h->job) + 10 * (double)ns_job_phase_count(h->job) + 100 * f +
         1000 * b + ns_job_gpu_memory_mb(h->job);
}
static double probe_cluster(handles *h) {
  return ns_cluster_gpu_memory_mb(h->c) + ns_cluster_gpu_workload_ms(h->c, 0);
}
static double probe_cassini(handles *h) {
  return ns_cassini_opts_angle_step_deg(h->co) + 1000 * ns_cassini_opts_time_quantum_ms(h->co);
}
static double probe_sim(handles *h) { return ns_sim_job_count(h->sim); }

static int s_iter(handles *h, double v) { return ns_job_set_iteration_ms(h->job, v); }
static int s_phase_d(handles *h, double v) { return ns_job_add_phase(h->job, v, 1.0); }
static int s_phase_g(handles *h, double v) { return ns_job_add_phase(h->job, 1.0, v); }
static int s_fwd(handles *h, double v) { return ns_job_set_compute_ms(h->job, v, 1.0); }
static int s_bwd(handles *h, double v) { return ns_job_set_compute_ms(h->job, 1.0, v); }
static int s_jmem(handles *h, double v) { return ns_job_set_gpu_memory_mb(h->job, v); }
static int s_link(handles *h, double v) {
  ns_link *l = ns_link_new("l", v);
  (void)h;
  ns_link_free(l);
  return l ? NS_OK : NS_ENOMEM;
}
static int s_cluster(handles *h, double v) {
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 1, 1, 1, 1, v);
  (void)h;
  ns_cluster_free(c);
  return c ? NS_OK : NS_ENOMEM;
}
static int s_cmem(handles *h, double v) { return ns_cluster_set_gpu_memory_mb(h->c, v); }
static int s_cwork(handles *h, double v) { return ns_cluster_set_gpu_workload_ms(h->c, 0, v); }
static int s_angle(handles *h, double v) { return ns_cassini_opts_set_angle_step_deg(h->co, v); }
static int s_quantum(handles *h, double v) { return ns_cassini_opts_set_time_quantum_ms(h->co, v); }
static int s_vlimit(handles *h, double v) { return ns_vclos_opts_set_time_limit_ms(h->vo, v); }
static int s_tbudget(handles *h, double v) { return ns_titan_opts_set_phase_budget_ms(h->to, v); }
static int s_nic(handles *h, double v) { return ns_sim_opts_set_bandwidth(h->so, v, 100.0); }
static int s_intra(handles *h, double v) { return ns_sim_opts_set_bandwidth(h->so, 10.0, v); }
static int s_eq5a(handles *h, double v) { return ns_sim_opts_set_contention(h->so, v, 1e-6, 1e-7); }
static int s_eq5b(handles *h, double v) { return ns_sim_opts_set_contention(h->so, 0, v, 1e-7); }
static int s_dally_m(handles *h, double v) { return ns_sim_opts_set_dally(h->so, v, 1.0, 1.0); }
static int s_dally_h(handles *h, double v) { return ns_sim_opts_set_dally(h->so, 1.0, 1.0, v); }
static int s_link_gbps(handles *h, double v) {
  return ns_sim_opts_set_cluster(h->so, 1, 1, 2, 2, 1, v);
}
static int s_drift(handles *h, double v) { return ns_sim_opts_set_cassini_drift(h->so, v); }
static int s_arrival(handles *h, double v) { return ns_sim_add_job(h->sim, "j", v, 1, 1, 1.0, 0, 0); }
static int s_compute(handles *h, double v) { return ns_sim_add_job(h->sim, "j", 0, 1, 1, v, 0, 0); }
static int s_smem(handles *h, double v) { return ns_sim_add_job(h->sim, "j", 0, 1, 1, 1.0, 0, v); }
static int s_profile(handles *h, double v) {
  return ns_sim_add_model_profile(h->sim, "m", v, 1.0, 1000, 0);
}
static int s_shift(handles *h, double v) { return ns_affinity_add_edge(h->g, h->job, h->link, v); }
static int s_tuner(handles *h, double v) {
  ns_delay_tuner *t = ns_delay_tuner_new(v, 1.0, 1.0);
  (void)h;
  ns_delay_tuner_free(t);
  return t ? NS_OK : NS_ENOMEM;
}
static int s_record(handles *h, double v) {
  return ns_delay_tuner_record(h->tuner, NS_TIER_RACK, 1, v, 10.0);
}
static int s_starve(handles *h, double v) {
  int ok = 0;
  return ns_dally_offer(h->tuner, h->c, h->job, v, 10.0, h->p, &ok);
}

static const setter setters[] = {
    {"ns_job_set_iteration_ms", "iteration_ms", s_iter, probe_job},
    {"ns_job_add_phase", "duration_ms", s_phase_d, probe_job},
    {"ns_job_add_phase", "gbps", s_phase_g, probe_job},
    {"ns_job_set_compute_ms", "forward_ms", s_fwd, probe_job},
    {"ns_job_set_compute_ms", "backward_ms", s_bwd, probe_job},
    {"ns_job_set_gpu_memory_mb", "mb", s_jmem, probe_job},
    {"ns_link_new", "capacity_gbps", s_link, probe_none},
    {"ns_cluster_new_leaf_spine", "link_gbps", s_cluster, probe_none},
    {"ns_cluster_set_gpu_memory_mb", "mb", s_cmem, probe_cluster},
    {"ns_cluster_set_gpu_workload_ms", "ms", s_cwork, probe_cluster},
    {"ns_cassini_opts_set_angle_step_deg", "deg", s_angle, probe_cassini},
    {"ns_cassini_opts_set_time_quantum_ms", "ms", s_quantum, probe_cassini},
    {"ns_vclos_opts_set_time_limit_ms", "ms", s_vlimit, probe_none},
    {"ns_titan_opts_set_phase_budget_ms", "ms", s_tbudget, probe_none},
    {"ns_sim_opts_set_bandwidth", "nic_gbps", s_nic, probe_none},
    {"ns_sim_opts_set_bandwidth", "intra_gbps", s_intra, probe_none},
    {"ns_sim_opts_set_contention", "a_ms", s_eq5a, probe_none},
    {"ns_sim_opts_set_contention", "b_ms_per_byte", s_eq5b, probe_none},
    {"ns_sim_opts_set_dally", "machine_ms", s_dally_m, probe_none},
    {"ns_sim_opts_set_dally", "history_ms", s_dally_h, probe_none},
    {"ns_sim_opts_set_cluster", "link_gbps", s_link_gbps, probe_none},
    {"ns_sim_opts_set_cassini_drift", "fraction", s_drift, probe_none},
    {"ns_sim_add_job", "arrival_ms", s_arrival, probe_sim},
    {"ns_sim_add_job", "compute_ms", s_compute, probe_sim},
    {"ns_sim_add_job", "mem_mb", s_smem, probe_sim},
    {"ns_sim_add_model_profile", "forward_ms", s_profile, probe_sim},
    {"ns_affinity_add_edge", "shift_ms", s_shift, probe_none},
    {"ns_delay_tuner_new", "history_limit_ms", s_tuner, probe_none},
    {"ns_delay_tuner_record", "waited_ms", s_record, probe_none},
    {"ns_dally_offer", "starvation_ms", s_starve, probe_none},
};

static void open_handles(handles *h) {
  h->job = ns_job_new("j", 1);
  assert_int_equal(ns_job_set_iteration_ms(h->job, 10.0), NS_OK);
  h->c = ns_cluster_new_leaf_spine(1, 1, 1, 2, 1, 10.0);
  h->co = ns_cassini_opts_new();
  h->vo = ns_vclos_opts_new();
  h->to = ns_titan_opts_new();
  h->so = ns_sim_opts_new();
  h->sim = ns_sim_new(h->so);
  h->g = ns_affinity_new();
  h->link = ns_link_new("l", 10.0);
  h->tuner = ns_delay_tuner_new(1e6, 1.0, 1.0);
  h->p = ns_placement_new();
  assert_true(h->job && h->c && h->co && h->vo && h->to && h->so && h->sim && h->g && h->link &&
              h->tuner && h->p);
}

static void close_handles(handles *h) {
  ns_placement_free(h->p);
  ns_delay_tuner_free(h->tuner);
  ns_affinity_free(h->g);
  ns_link_free(h->link);
  ns_sim_free(h->sim);
  ns_sim_opts_free(h->so);
  ns_titan_opts_free(h->to);
  ns_vclos_opts_free(h->vo);
  ns_cassini_opts_free(h->co);
  ns_cluster_free(h->c);
  ns_job_free(h->job);
}

/* Each bad value and how its message must show it. The last one is
   finite and only too large: 1e300 times another time or rate would be
   inf, so every real argument is capped at 1e15. */
static const struct {
  double v;
  const char *shown;
} bad_values[] = {
    {NAN, "(got nan)"},          {INFINITY, "(got inf)"},     {-INFINITY, "(got -inf)"},
    {-0.1, "(got -0.1)"},        {-123456789.25, "(got -123456789.25)"},
    {1e300, "(got 1e+300)"},     {1.0000000000000002e15, "(got 1000000000000000.2)"},
};

static void test_real_setters_reject_nan_inf_negative_and_overflow(void **state) {
  (void)state;
  handles h;
  open_handles(&h);
  int failures = 0;
  for (size_t i = 0; i < sizeof setters / sizeof setters[0]; i++) {
    const setter *s = &setters[i];
    for (size_t b = 0; b < sizeof bad_values / sizeof bad_values[0]; b++) {
      double before = s->probe(&h);
      int rc = s->set(&h, bad_values[b].v);
      const char *msg = ns_last_error();
      int ok = (rc == NS_EINVAL || (rc == NS_ENOMEM && s->probe == probe_none)) &&
               strstr(msg, s->fn) && strstr(msg, s->arg) && strstr(msg, bad_values[b].shown);
      /* the limit is named for the values beyond it */
      if (ok && bad_values[b].v > 0 && isfinite(bad_values[b].v))
        ok = strstr(msg, "1e+15") != NULL || strstr(msg, "1e15") != NULL;
      double after = s->probe(&h);
      if (!(before == after || (isnan(before) && isnan(after))))
        ok = 0;
      if (!ok && failures++ < 40)
        print_error("%s(%s = %s): rc %d, message '%s'%s\n", s->fn, s->arg, bad_values[b].shown,
                    rc, msg, before == after ? "" : " (and the handle changed)");
    }
  }
  close_handles(&h);
  if (failures)
    fail_msg("%d setter/value pairs were not rejected as required", failures);
}

/* At the limit itself every setter accepts (the cap is inclusive) - except
   where a tighter documented bound applies. */
static void test_real_setters_accept_their_limit(void **state) {
  (void)state;
  handles h;
  open_handles(&h);
  assert_int_equal(ns_job_set_iteration_ms(h.job, 1e15), NS_OK);
  assert_int_equal(ns_job_set_gpu_memory_mb(h.job, 1e15), NS_OK);
  assert_int_equal(ns_cluster_set_gpu_memory_mb(h.c, 1e15), NS_OK);
  assert_int_equal(ns_sim_add_job(h.sim, "late", 1e15, 1, 1, 1e15, 0, 0), 0);
  assert_int_equal(ns_sim_opts_set_contention(h.so, 1e15, 1e15, 1e15), NS_OK);
  close_handles(&h);
}

/* ---- trace fields -------------------------------------------------------- */

static char *write_tmp(const char *text) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/ns_hostile_trace_XXXXXX");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fputs(text, f);
  fclose(f);
  return path;
}

static int load(const char *text, ns_sim_trace_format fmt, ns_sim **out) {
  ns_sim_opts *o = ns_sim_opts_new();
  ns_sim *s = ns_sim_new(o);
  ns_sim_opts_free(o);
  char *path = write_tmp(text);
  int rc = ns_sim_load_trace(s, path, fmt);
  remove(path);
  *out = s;
  return rc;
}

static void test_trace_submit_time_overflow_quotes_the_csv_text(void **state) {
  (void)state;
  ns_sim *s;
  /* 1e306 s would be 1e309 ms = inf; the message quotes the field as
     written and the limit, not a converted value */
  assert_fails_with(load("job_id,num_gpu,submit_time,iterations,model_name\n"
                         "a,1,10,100,resnet50\n"
                         "b,1,1e306,100,resnet50\n",
                         NS_SIM_TRACE_TIRESIAS, &s),
                    NS_EINVAL, "line 3");
  assert_non_null(strstr(ns_last_error(), "(got '1e306')"));
  assert_non_null(strstr(ns_last_error(), "submit_time"));
  assert_non_null(strstr(ns_last_error(), "1e12"));
  assert_null(strstr(ns_last_error(), "inf"));
  assert_int_equal(ns_sim_job_count(s), 0);
  ns_sim_free(s);
  /* the limit itself loads */
  assert_int_equal(load("job_id,num_gpu,submit_time,iterations,model_name\n"
                        "a,1,1e12,100,resnet50\n",
                        NS_SIM_TRACE_TIRESIAS, &s),
                   1);
  ns_sim_free(s);
}

static void test_trace_duration_overflow_quotes_the_csv_text(void **state) {
  (void)state;
  ns_sim *s;
  assert_fails_with(load("timestamp,duration,num_gpus\n"
                         "2017-10-09 07:01:55,1.5e12,1\n",
                         NS_SIM_TRACE_PHILLY, &s),
                    NS_EINVAL, "(got '1.5e12')");
  assert_non_null(strstr(ns_last_error(), "duration"));
  ns_sim_free(s);
  assert_fails_with(load("timestamp,duration,num_gpus\n"
                         "2017-10-09 07:01:55,-0.5,1\n",
                         NS_SIM_TRACE_PHILLY, &s),
                    NS_EINVAL, "(got '-0.5')");
  ns_sim_free(s);
  assert_fails_with(load("timestamp,duration,num_gpus\n"
                         "2017-10-09 07:01:55,nan,1\n",
                         NS_SIM_TRACE_PHILLY, &s),
                    NS_EINVAL, "(got 'nan')");
  ns_sim_free(s);
}

static void test_trace_dates_that_do_not_exist(void **state) {
  (void)state;
  static const struct {
    const char *date;
    int valid;
  } dates[] = {
      {"2020-02-31 00:00:00", 0}, {"2019-02-29 12:00:00", 0}, {"2020-02-29 12:00:00", 1},
      {"1900-02-29 00:00:00", 0}, {"2000-02-29 00:00:00", 1}, {"2021-04-31 00:00:00", 0},
      {"2021-04-30 23:59:59", 1}, {"2021-12-32 00:00:00", 0}, {"2021-00-10 00:00:00", 0},
      {"0000-01-01 00:00:00", 0},
  };
  for (size_t i = 0; i < sizeof dates / sizeof dates[0]; i++) {
    char text[256];
    snprintf(text, sizeof text, "timestamp,duration,num_gpus\n2017-10-09 07:01:55,66,1\n%s,10,1\n",
             dates[i].date);
    ns_sim *s;
    int rc = load(text, NS_SIM_TRACE_PHILLY, &s);
    if (dates[i].valid) {
      if (rc != 2)
        fail_msg("%s: rejected (%d: %s)", dates[i].date, rc, ns_last_error());
    } else {
      if (rc != NS_EINVAL)
        fail_msg("%s: accepted (%d)", dates[i].date, rc);
      char quoted[64];
      snprintf(quoted, sizeof quoted, "'%s'", dates[i].date);
      assert_non_null(strstr(ns_last_error(), quoted));
      assert_non_null(strstr(ns_last_error(), "line 3"));
      assert_int_equal(ns_sim_job_count(s), 0);
    }
    ns_sim_free(s);
  }
}

/* ---- ns_contention_fit on extreme but valid data ------------------------- */

/* t = a + b k M + eta (k-1) M exactly, with (a, b, eta) scaled by `unit`. */
static void fit_exact(double unit, double *a, double *b, double *eta) {
  static const int k[6] = {1, 1, 2, 2, 3, 3};
  static const uint64_t m[6] = {1000, 2000, 1000, 2000, 1000, 3000};
  double t[6], rms;
  for (int i = 0; i < 6; i++)
    t[i] = unit * (1.0 + 1e-3 * k[i] * (double)m[i] + 1e-3 * (k[i] - 1) * (double)m[i]);
  assert_int_equal(ns_contention_fit(k, m, t, 6, a, b, eta, &rms), NS_OK);
  assert_true(rms <= 1e-12 * unit);
}

static void test_contention_fit_times_near_overflow_and_underflow(void **state) {
  (void)state;
  /* Without scaling the times, 1e300-ms samples overflow in the QR (the
     fit returned zeros and an infinite residual) */
  double units[] = {1e300, 1e-300, 1.0};
  for (size_t u = 0; u < 3; u++) {
    double a, b, eta, unit = units[u];
    fit_exact(unit, &a, &b, &eta);
    assert_near(a / unit, 1.0, 1e-9);
    assert_near(b / unit, 1e-3, 1e-12);
    assert_near(eta / unit, 1e-3, 1e-12);
  }
}

static void test_contention_fit_returns_positive_zero(void **state) {
  (void)state;
  static const int k[4] = {1, 2, 1, 3};
  static const uint64_t m[4] = {10, 10, 20, 30};
  double t[4] = {0, 0, 0, 0}, a = -1, b = -1, eta = -1, rms = -1;
  assert_int_equal(ns_contention_fit(k, m, t, 4, &a, &b, &eta, &rms), NS_OK);
  assert_true(a == 0 && !signbit(a));
  assert_true(b == 0 && !signbit(b));
  assert_true(eta == 0 && !signbit(eta));
  assert_true(rms == 0 && !signbit(rms));
  /* b alone (a = eta = 0 exactly) */
  double tb[4];
  for (int i = 0; i < 4; i++)
    tb[i] = 0.5 * k[i] * (double)m[i];
  assert_int_equal(ns_contention_fit(k, m, tb, 4, &a, &b, &eta, &rms), NS_OK);
  assert_near(b, 0.5, 1e-12);
  assert_true(!signbit(a) && !signbit(eta));
}

/* Message sizes near 2^64 (k M ~ 5e19): the fit still recovers b and eta
   to double precision and a to the precision of t (~1e13 ms here). */
static void test_contention_fit_message_sizes_near_uint64_max(void **state) {
  (void)state;
  static const int k[6] = {1, 1, 2, 2, 3, 3};
  const uint64_t m[6] = {UINT64_MAX / 2, UINT64_MAX, UINT64_MAX / 2,
                         UINT64_MAX,     UINT64_MAX / 3, UINT64_MAX};
  double t[6], a, b, eta, rms;
  for (int i = 0; i < 6; i++)
    t[i] = 5.0 + 1e-6 * k[i] * (double)m[i] + 2e-7 * (k[i] - 1) * (double)m[i];
  assert_int_equal(ns_contention_fit(k, m, t, 6, &a, &b, &eta, &rms), NS_OK);
  assert_near(b, 1e-6, 1e-6 * 1e-12);
  assert_near(eta, 2e-7, 2e-7 * 1e-11);
  assert_near(a, 5.0, 0.05); /* t ~ 6e13: one ulp is 0.008 */
}


/* ---- the policy object's calls (issue 28) -------------------------------- */

/* rc must be want and the message must hold every needle (the call, the
   argument as the caller wrote it, the value quoted). */
#define EXPECT(call, want, ...)                                                                 \
  do {                                                                                          \
    int rc_ = (call);                                                                           \
    const char *needles_[] = {__VA_ARGS__, NULL};                                               \
    if (rc_ != (want))                                                                          \
      fail_msg("%s: returned %d, expected %d (%s)", #call, rc_, (want), ns_last_error());      \
    for (int k_ = 0; needles_[k_] != NULL; k_++)                                                \
      if (strstr(ns_last_error(), needles_[k_]) == NULL)                                        \
        fail_msg("%s: message '%s' lacks '%s'", #call, ns_last_error(), needles_[k_]);         \
  } while (0)

static ns_job *pjob(const char *name, int gpus) {
  ns_job *j = ns_job_new(name, gpus);
  assert_non_null(j);
  assert_int_equal(ns_job_set_iteration_ms(j, 100.0), NS_OK);
  assert_int_equal(ns_job_add_phase(j, 40.0, 40.0), NS_OK);
  assert_int_equal(ns_job_add_phase(j, 60.0, 0.0), NS_OK);
  assert_int_equal(ns_job_set_compute_ms(j, 20.0, 40.0), NS_OK);
  return j;
}

/* What a rejected call could have changed in a queue: every entry's state. */
static void queue_text(const ns_queue *q, char *buf, size_t cap) {
  size_t at = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < ns_queue_count(q) && at + 64 < cap; i++)
    at += (size_t)snprintf(buf + at, cap - at, "%zu:%d ", i, ns_queue_is_running(q, i));
}

static void test_policy_queue_calls_reject_bad_input(void **state) {
  (void)state;
  ns_job *j = pjob("j", 2);
  ns_queue *q = ns_queue_new();
  assert_int_equal(ns_queue_add(q, j, 7, 0.0), 0);
  char before[256], after[256];
  queue_text(q, before, sizeof before);
  EXPECT(ns_queue_add_running(NULL, j, 1, 0.0), NS_EINVAL, "ns_queue_add_running", "q");
  EXPECT(ns_queue_add_running(q, NULL, 1, 0.0), NS_EINVAL, "ns_queue_add_running", "job");
  EXPECT(ns_queue_add_running(q, j, 1, NAN), NS_EINVAL, "ns_queue_add_running", "arrival_ms",
         "nan");
  EXPECT(ns_queue_add_running(q, j, 1, -INFINITY), NS_EINVAL, "arrival_ms", "-inf");
  assert_int_equal(ns_queue_count(q), 1);
  static const struct {
    double v;
    const char *shown;
  } bad[] = {{NAN, "nan"}, {INFINITY, "inf"}, {-1.5, "-1.5"}, {1e300, "1e+300"}};
  for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++)
    EXPECT(ns_queue_set_attained_ms(q, 0, bad[b].v), NS_EINVAL, "ns_queue_set_attained_ms",
           "gpu_ms", bad[b].shown);
  EXPECT(ns_queue_set_attained_ms(NULL, 0, 1.0), NS_EINVAL, "ns_queue_set_attained_ms", "q");
  EXPECT(ns_queue_set_attained_ms(q, 1, 1.0), NS_EINVAL, "ns_queue_set_attained_ms", "i 1",
         "holds 1");
  EXPECT(ns_queue_set_attained_ms(q, SIZE_MAX, 1.0), NS_EINVAL, "18446744073709551615");
  EXPECT(ns_queue_set_running(q, 0, 2), NS_EINVAL, "ns_queue_set_running", "running", "got 2");
  EXPECT(ns_queue_set_running(q, 0, -1), NS_EINVAL, "running", "got -1");
  EXPECT(ns_queue_set_running(q, 3, 1), NS_EINVAL, "ns_queue_set_running", "i 3");
  EXPECT(ns_queue_is_running(q, 1), NS_EINVAL, "ns_queue_is_running", "i 1");
  EXPECT(ns_queue_is_running(NULL, 0), NS_EINVAL, "ns_queue_is_running", "q");
  queue_text(q, after, sizeof after);
  assert_string_equal(after, before);
  /* the decision's accessors: NULL and out of range read as nothing */
  ns_decision *d = ns_decision_new();
  assert_int_equal(ns_decision_suspend_count(NULL), 0);
  assert_int_equal(ns_decision_suspend_job(NULL, 0), SIZE_MAX);
  assert_int_equal(ns_decision_suspend_job(d, 0), SIZE_MAX);
  assert_int_equal(ns_decision_renew_count(NULL), 0);
  assert_int_equal(ns_decision_renew_job(d, SIZE_MAX), SIZE_MAX);
  double sh = -1;
  EXPECT(ns_decision_readjust_shift_ms(NULL, j, &sh), NS_EINVAL, "ns_decision_readjust_shift_ms",
         "d");
  EXPECT(ns_decision_readjust_shift_ms(d, NULL, &sh), NS_EINVAL, "job");
  EXPECT(ns_decision_readjust_shift_ms(d, j, NULL), NS_EINVAL, "shift_ms");
  EXPECT(ns_decision_readjust_shift_ms(d, j, &sh), NS_ENOTFOUND, "holds no re-adjustment");
  assert_true(sh == -1);
  ns_decision_free(d);
  ns_queue_free(q);
  ns_job_free(j);
}

/* Every option of the preemptive orders, Dally's lease and CASSINI's drift
   rule: bad values named and quoted, the option unchanged (a clone taken
   before decides as the policy does after). */
static void test_policy_options_reject_bad_input(void **state) {
  (void)state;
  ns_policy *p = ns_policy_new("2d-gittins");
  assert_non_null(p);
  EXPECT(ns_policy_set_las_queues(NULL, 1, NULL), NS_EINVAL, "ns_policy_set_las_queues", "p");
  EXPECT(ns_policy_set_las_queues(p, 0, NULL), NS_EINVAL, "queues", "got 0");
  EXPECT(ns_policy_set_las_queues(p, 9, NULL), NS_EINVAL, "queues", "got 9");
  EXPECT(ns_policy_set_las_queues(p, 3, NULL), NS_EINVAL, "thresholds_gpu_ms");
  const double th_nan[2] = {1e3, NAN}, th_desc[2] = {5e3, 5e3}, th_neg[2] = {-2.5, 1e3};
  const double th_inf[2] = {1e3, INFINITY};
  EXPECT(ns_policy_set_las_queues(p, 3, th_nan), NS_EINVAL, "thresholds_gpu_ms[1]", "got nan");
  EXPECT(ns_policy_set_las_queues(p, 3, th_desc), NS_EINVAL, "thresholds_gpu_ms[1]",
         "got 5e+03"); /* the shortest form that reads back (nsi_fmt_real) */
  EXPECT(ns_policy_set_las_queues(p, 3, th_neg), NS_EINVAL, "thresholds_gpu_ms[0]", "got -2.5");
  EXPECT(ns_policy_set_las_queues(p, 3, th_inf), NS_EINVAL, "thresholds_gpu_ms[1]", "got inf");
  static const struct {
    double v;
    const char *shown;
  } bad[] = {{NAN, "nan"}, {INFINITY, "inf"}, {-0.5, "-0.5"}, {1e300, "1e+300"}};
  for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
    EXPECT(ns_policy_set_starvation(p, bad[b].v), NS_EINVAL, "ns_policy_set_starvation", "knob",
           bad[b].shown);
    const double samples[3] = {1e3, bad[b].v, 2e3};
    EXPECT(ns_policy_set_gittins_samples(p, samples, 3), NS_EINVAL,
           "ns_policy_set_gittins_samples", "gpu_time_samples[1]", bad[b].shown);
    EXPECT(ns_policy_set_dally_lease(p, bad[b].v), NS_EINVAL, "ns_policy_set_dally_lease",
           "lease_ms", bad[b].shown);
  }
  const double zero[1] = {0.0}, big[1] = {1.5e18};
  EXPECT(ns_policy_set_gittins_samples(p, zero, 1), NS_EINVAL, "gpu_time_samples[0]", "got 0");
  EXPECT(ns_policy_set_gittins_samples(p, big, 1), NS_EINVAL, "gpu_time_samples[0]", "1.5e+18");
  EXPECT(ns_policy_set_gittins_samples(p, NULL, 2), NS_EINVAL, "gpu_time_samples");
  EXPECT(ns_policy_set_gittins_samples(p, zero, SIZE_MAX), NS_EINVAL, "n must be below");
  EXPECT(ns_policy_set_dally_lease(p, 999.0), NS_EINVAL, "lease_ms", "got 999");
  EXPECT(ns_policy_set_cassini_drift_rule(p, (ns_policy_drift_rule)2), NS_EINVAL,
         "ns_policy_set_cassini_drift_rule", "rule", "got 2");
  EXPECT(ns_policy_set_cassini_drift_rule(p, (ns_policy_drift_rule)-1), NS_EINVAL, "got -1");
  EXPECT(ns_policy_set_cassini_drift_rule(NULL, NS_POLICY_DRIFT_RULE_WAIT), NS_EINVAL, "p");
  /* an enum's value as the caller wrote it, not as an unsigned int */
  EXPECT(ns_policy_set_order(p, (ns_policy_order)-1), NS_EINVAL, "ns_policy_set_order", "order",
         "got -1");
  EXPECT(ns_policy_set_placement(p, (ns_policy_placement)-2), NS_EINVAL, "placement", "got -2");
  EXPECT(ns_policy_set_admission(p, (ns_policy_admission)-1, 1), NS_EINVAL, "admission",
         "got -1");
  assert_int_equal(ns_policy_order_of(p), NS_POLICY_ORDER_2D_GITTINS);
  assert_true(ns_policy_dally_lease_of(p) == 20 * 60e3); /* unchanged */
  assert_true(isnan(ns_policy_dally_lease_of(NULL)));
  EXPECT(ns_policy_lease_ms(NULL, 1, NULL, NULL), NS_EINVAL, "ns_policy_lease_ms", "p");
  assert_int_equal(ns_policy_lease_ms(p, 1, NULL, NULL), NS_ENOTFOUND);
  assert_int_equal(ns_policy_readjust_count(NULL), 0);
  assert_null(ns_policy_clone(NULL));
  assert_non_null(strstr(ns_last_error(), "ns_policy_clone"));
  ns_policy_free(p);
}

/* A 4-GPU cluster, a policy and one job: the report-back calls in the wrong
   order and with bad values. */
static void test_policy_report_calls_reject_bad_input_and_wrong_order(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(2, 1, 1, 2, 1, 10.0);
  ns_job *j = pjob("rj", 2);
  ns_policy *p = ns_policy_new("cassini-ff");
  ns_decision *d = ns_decision_new();
  assert_true(c && p && d);
  double hold = 7;
  /* before any iteration was reported */
  EXPECT(ns_policy_report_shifted(p, j, 10.0), NS_ENOTFOUND, "ns_policy_report_shifted", "'rj'",
         "ns_policy_report_iteration");
  EXPECT(ns_policy_report_allreduce(p, c, j, 10.0, d, &hold), NS_ENOTFOUND,
         "ns_policy_report_allreduce", "'rj'");
  assert_true(hold == 7);
  static const struct {
    double v;
    const char *shown;
  } bad[] = {{NAN, "nan"}, {INFINITY, "inf"}, {-3.0, "-3"}, {1e300, "1e+300"}};
  for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
    EXPECT(ns_policy_report_iteration(p, j, bad[b].v, 1.0), NS_EINVAL,
           "ns_policy_report_iteration", "compute_ms", bad[b].shown);
    EXPECT(ns_policy_report_iteration(p, j, 1.0, bad[b].v), NS_EINVAL, "allreduce_ms",
           bad[b].shown);
  }
  assert_int_equal(ns_policy_report_shifted(p, j, 0.0), NS_ENOTFOUND); /* still none */
  assert_int_equal(ns_policy_report_iteration(p, j, 60.0, 40.0), NS_OK);
  for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
    EXPECT(ns_policy_report_shifted(p, j, bad[b].v), NS_EINVAL, "ns_policy_report_shifted",
           "slot_ms", bad[b].shown);
    EXPECT(ns_policy_report_allreduce(p, c, j, bad[b].v, d, &hold), NS_EINVAL,
           "ns_policy_report_allreduce", "start_ms", bad[b].shown);
    if (!isfinite(bad[b].v)) /* times are finite; 1e300 and -3 are times */
      EXPECT(ns_policy_finished(p, j, bad[b].v), NS_EINVAL, "ns_policy_finished", "now_ms",
             bad[b].shown);
    EXPECT(ns_policy_suspended(p, j, -INFINITY), NS_EINVAL, "ns_policy_suspended", "now_ms",
           "-inf");
  }
  EXPECT(ns_policy_report_allreduce(NULL, c, j, 1.0, d, &hold), NS_EINVAL, "p");
  EXPECT(ns_policy_report_allreduce(p, NULL, j, 1.0, d, &hold), NS_EINVAL, "c");
  EXPECT(ns_policy_report_allreduce(p, c, NULL, 1.0, d, &hold), NS_EINVAL, "job");
  EXPECT(ns_policy_report_allreduce(p, c, j, 1.0, NULL, &hold), NS_EINVAL, "d");
  EXPECT(ns_policy_report_allreduce(p, c, j, 1.0, d, NULL), NS_EINVAL, "hold_until_ms");
  EXPECT(ns_policy_report_iteration(NULL, j, 1.0, 1.0), NS_EINVAL, "p");
  EXPECT(ns_policy_report_iteration(p, NULL, 1.0, 1.0), NS_EINVAL, "job");
  /* no slot reported: no schedule, nothing to do (and c is not read) */
  assert_int_equal(ns_policy_report_allreduce(p, c, j, 1234.0, d, &hold), NS_POLICY_DRIFT_NONE);
  assert_true(isnan(hold));
  /* a suspended job's schedule is forgotten: a report needs a new iteration */
  assert_int_equal(ns_policy_suspended(p, j, 5.0), NS_OK);
  EXPECT(ns_policy_report_shifted(p, j, 0.0), NS_ENOTFOUND, "'rj'");
  assert_int_equal(ns_policy_readjust_count(p), 0);
  ns_decision_free(d);
  ns_policy_free(p);
  ns_cluster_free(c);
  ns_job_free(j);
}

/* A drifted all-reduce of a job that is not committed is refused, and the
   refusal leaves the policy as it was: its options can still be set. */
static void test_policy_report_allreduce_refused_leaves_policy_settable(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(2, 1, 1, 2, 1, 10.0);
  ns_job *j = pjob("nj", 2);
  ns_policy *p = ns_policy_new("cassini-ff");
  ns_decision *d = ns_decision_new();
  double hold = 7;
  assert_int_equal(ns_policy_report_iteration(p, j, 60.0, 40.0), NS_OK);
  assert_int_equal(ns_policy_report_shifted(p, j, 0.0), NS_OK);
  /* ideal all-reduce start 60 (+k 100); 30 is 30 ms off, past 5 ms: drifted */
  EXPECT(ns_policy_report_allreduce(p, c, j, 30.0, d, &hold), NS_EINVAL,
         "ns_policy_report_allreduce", "'nj'", "not committed");
  assert_true(hold == 7);
  assert_int_equal(ns_policy_readjust_count(p), 0);
  assert_int_equal(ns_policy_set_seed(p, 3), NS_OK);
  /* on schedule: nothing, whatever c holds */
  assert_int_equal(ns_policy_report_allreduce(p, c, j, 161.0, d, &hold), NS_POLICY_DRIFT_NONE);
  ns_decision_free(d);
  ns_policy_free(p);
  ns_cluster_free(c);
  ns_job_free(j);
}

/* A job whose iteration is reported as 0 ms (compute and all-reduce both
   0: nothing to keep in step) has no schedule to drift from: every
   all-reduce answers NONE, nothing counted, no hold of NaN. */
static void test_policy_zero_iteration_has_no_drift(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(2, 1, 1, 2, 1, 10.0);
  ns_job *j = pjob("zj", 2);
  for (int rule = 0; rule < 2; rule++) {
    ns_policy *p = ns_policy_new("cassini-ff");
    ns_decision *d = ns_decision_new();
    assert_int_equal(ns_policy_set_cassini_drift_rule(p, (ns_policy_drift_rule)rule), NS_OK);
    assert_int_equal(ns_policy_report_iteration(p, j, 0.0, 0.0), NS_OK);
    assert_int_equal(ns_policy_report_shifted(p, j, 0.0), NS_OK);
    double hold = 7;
    assert_int_equal(ns_policy_report_allreduce(p, c, j, 10.0, d, &hold), NS_POLICY_DRIFT_NONE);
    assert_true(isnan(hold));
    assert_int_equal(ns_policy_readjust_count(p), 0);
    ns_decision_free(d);
    ns_policy_free(p);
  }
  ns_cluster_free(c);
  ns_job_free(j);
}

static void test_policy_admit_rejects_bad_input(void **state) {
  (void)state;
  ns_policy *srsf = ns_policy_new("ada-srsf"), *ada = ns_policy_new("ada-dual");
  int start = 9;
  const int others[2] = {0, -3}, tasks[2] = {1, -1};
  const uint64_t rem[2] = {10, 10};
  if (ada == NULL) /* the AdaDUAL preset's name */
    ada = ns_policy_new("adadual");
  assert_non_null(srsf);
  EXPECT(ns_policy_admit(NULL, 1, NULL, 0, NULL, NULL, 0, 1.0, 0.0, &start), NS_EINVAL,
         "ns_policy_admit", "p");
  EXPECT(ns_policy_admit(srsf, 1, NULL, 0, NULL, NULL, 0, 1.0, 0.0, NULL), NS_EINVAL, "start");
  EXPECT(ns_policy_admit(srsf, 1, NULL, 2, NULL, NULL, 0, 1.0, 0.0, &start), NS_EINVAL,
         "others_per_link");
  EXPECT(ns_policy_admit(srsf, 1, others, 2, NULL, NULL, 0, 1.0, 0.0, &start), NS_EINVAL,
         "others_per_link[1]", "-3");
  EXPECT(ns_policy_admit(srsf, 1, NULL, 0, tasks, NULL, 2, 1.0, 0.0, &start), NS_EINVAL,
         "remaining_bytes");
  assert_int_equal(start, 9);
  if (ada != NULL) {
    EXPECT(ns_policy_admit(ada, 1, NULL, 0, tasks, rem, 2, 1e-6, 1e-7, &start), NS_EINVAL,
           "ns_policy_admit", "tasks_per_server");
    EXPECT(ns_policy_admit(ada, 1, NULL, 0, tasks, rem, 1, NAN, 1e-7, &start), NS_EINVAL,
           "ns_policy_admit", "b_ms_per_byte", "nan");
    assert_int_equal(start, 9);
  }
  ns_policy_free(srsf);
  ns_policy_free(ada);
}

/* ns_policy_save / ns_policy_load against short buffers and foreign or
   malformed blobs: refused naming the line, the policy's saved state (and
   its options) as before. */
static void test_policy_save_load_reject_bad_input(void **state) {
  (void)state;
  ns_policy *p = ns_policy_new("dally");
  assert_non_null(p);
  ns_delay_tuner *t = ns_policy_tuner(p);
  assert_non_null(t);
  static const char good[] = "ns_policy 1\npolicy dally\nwait 0 2 1500 10000\n";
  assert_int_equal(ns_policy_load(p, good, sizeof good - 1), NS_OK);
  t = ns_policy_tuner(p); /* a successful load replaces the tuner (policy.h) */
  assert_non_null(t);
  char before[512], after[512], small[8];
  size_t need = 0, need2 = 0;
  assert_int_equal(ns_policy_save(p, before, sizeof before, &need), NS_OK);
  /* 12 + 13 + 20 characters and the NUL */
  assert_string_equal(before, good);
  assert_int_equal(need, sizeof good);
  EXPECT(ns_policy_save(p, small, sizeof small, &need2), NS_ERANGE, "ns_policy_save", "needs 46");
  assert_int_equal(need2, need);
  EXPECT(ns_policy_save(p, NULL, 4, &need2), NS_EINVAL, "ns_policy_save", "buf", "4");
  EXPECT(ns_policy_save(p, before, sizeof before, NULL), NS_EINVAL, "needed");
  EXPECT(ns_policy_save(NULL, before, sizeof before, &need2), NS_EINVAL, "p");
  static const struct {
    const char *blob, *needle;
  } bad[] = {
      {"", "truncated"},
      {"ns_policy 2\npolicy dally\n", "line 1"},
      {"ns_policy 1\npolicy ff\n", "'ff'"},
      {"ns_policy 1\npolicy dally\nwait 2 2 1 1\n", "line 3"},
      {"ns_policy 1\npolicy dally\nwait 0 2 nan 1\n", "line 3"},
      {"ns_policy 1\npolicy dally\nwait 0 2 1 inf\n", "line 3"},
      {"ns_policy 1\npolicy dally\nwait 0 -4 1 1\n", "line 3"},
      {"ns_policy 1\npolicy dally\nwait 0 2 -5 1\n", "line 3"},
      {"ns_policy 1\npolicy dally\nwait 0 2 1 1 extra\n", "line 3"},
      {"ns_policy 1\npolicy dally\nwait 0 2 1 1e300\n", "line 3"},
  };
  for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
    int rc = ns_policy_load(p, bad[b].blob, strlen(bad[b].blob));
    if (rc != NS_EINVAL || !strstr(ns_last_error(), "ns_policy_load") ||
        !strstr(ns_last_error(), bad[b].needle))
      fail_msg("load of '%s': rc %d, message '%s' lacks '%s'", bad[b].blob, rc, ns_last_error(),
               bad[b].needle);
    assert_int_equal(ns_policy_save(p, after, sizeof after, &need2), NS_OK);
    assert_string_equal(after, before);
    assert_ptr_equal(ns_policy_tuner(p), t); /* a refused load keeps the tuner */
  }
  /* a line longer than the parser's buffer, and a blob without its NUL */
  char huge[600];
  memset(huge, 'x', sizeof huge);
  memcpy(huge, "ns_policy 1\npolicy dally\nwait ", 30);
  EXPECT(ns_policy_load(p, huge, sizeof huge), NS_EINVAL, "ns_policy_load", "line 3", "longer");
  EXPECT(ns_policy_load(p, NULL, 3), NS_EINVAL, "ns_policy_load", "buf");
  EXPECT(ns_policy_load(NULL, good, 3), NS_EINVAL, "ns_policy_load", "p");
  assert_int_equal(ns_policy_save(p, after, sizeof after, &need2), NS_OK);
  assert_string_equal(after, before);
  ns_policy_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_real_setters_reject_nan_inf_negative_and_overflow),
      cmocka_unit_test(test_real_setters_accept_their_limit),
      cmocka_unit_test(test_trace_submit_time_overflow_quotes_the_csv_text),
      cmocka_unit_test(test_trace_duration_overflow_quotes_the_csv_text),
      cmocka_unit_test(test_trace_dates_that_do_not_exist),
      cmocka_unit_test(test_contention_fit_times_near_overflow_and_underflow),
      cmocka_unit_test(test_contention_fit_returns_positive_zero),
      cmocka_unit_test(test_contention_fit_message_sizes_near_uint64_max),
      cmocka_unit_test(test_policy_queue_calls_reject_bad_input),
      cmocka_unit_test(test_policy_options_reject_bad_input),
      cmocka_unit_test(test_policy_report_calls_reject_bad_input_and_wrong_order),
      cmocka_unit_test(test_policy_report_allreduce_refused_leaves_policy_settable),
      cmocka_unit_test(test_policy_zero_iteration_has_no_drift),
      cmocka_unit_test(test_policy_admit_rejects_bad_input),
      cmocka_unit_test(test_policy_save_load_reject_bad_input),
  };
  return cmocka_run_group_tests_name("hostile: values at and beyond the edges", tests, NULL,
                                     NULL);
}
