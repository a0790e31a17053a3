/*
 * tests/hostile/test_sim_threads.c - one simulator misused from two threads,
 * and runs stopped by ns_sim_cancel from another thread, a signal handler
 * and the run's own callback. Each test name names the hazard.
 *
 * Issue 31: a Python thread calling load_default_workload while another ran
 * the same simulator hit a heap-use-after-free (engine.c) under ASan: the
 * re-entry guard was a plain int checked before use. Run under make
 * sanitize (ASan) and, by hand, ThreadSanitizer (see bench/RESULTS.md).
 */
#include "unit/helpers/ns_test.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* 2 leaves x 2 servers x 8 GPUs: 32 GPUs for the 160-job default workload,
   so jobs queue and a run has many events. */
static ns_sim *small_sim(void) {
  ns_sim_opts *o = ns_sim_opts_new();
  assert_non_null(o);
  assert_int_equal(ns_sim_opts_set_cluster(o, 2, 2, 2, 8, 1, 10.0), NS_OK);
  ns_sim *s = ns_sim_new(o);
  ns_sim_opts_free(o);
  assert_non_null(s);
  return s;
}

/* ---- two threads hammering one simulator --------------------------------- */

typedef struct hammer {
  ns_sim *s;
  atomic_int stop;
  int runs_ok, runs_busy, other;   /* thread A */
  int adds_ok, calls_busy, wrong;  /* thread B */
} hammer;

static void *run_loop(void *arg) {
  hammer *h = arg;
  for (int i = 0; i < 20; i++) {
    int rc = ns_sim_run(h->s);
    if (rc == NS_OK)
      h->runs_ok++;
    else if (rc == NS_ESTATE)
      h->runs_busy++;
    else
      h->other++;
  }
  atomic_store(&h->stop, 1);
  return NULL;
}

static void progress_none(size_t done, size_t total, void *user) {
  (void)done, (void)total, (void)user;
}

#define MAX_ADDS 2000

/* Every kind of call, mutating and const; each must succeed or be refused
   with NS_ESTATE, whatever the other thread is doing. */
static void *call_loop(void *arg) {
  hammer *h = arg;
  char path[64];
  snprintf(path, sizeof path, "/tmp/ns-threads-%ld.csv", (long)getpid());
  for (unsigned k = 0; !atomic_load(&h->stop); k++) {
    double v = 0;
    int rc;
    switch (k % 8) {
    case 0: /* at most MAX_ADDS kept: under valgrind the runs may all be refused while
               this thread adds millions, and the last run below must stay short */
      rc = h->adds_ok < MAX_ADDS ? ns_sim_add_job(h->s, "extra", 5.0, 1, 10, 1.0, 1000, 0)
                                 : ns_sim_job_count(h->s);
      if (rc >= 0 && h->adds_ok < MAX_ADDS)
        h->adds_ok++;
      break;
    case 1: rc = ns_sim_metric(h->s, NS_SIM_METRIC_AVG_JCT_MS, &v); break;
    case 2: rc = ns_sim_job_count(h->s); break;
    case 3: rc = ns_sim_set_progress(h->s, progress_none, NULL); break;
    case 4: rc = ns_sim_scale_arrivals(h->s, 1.0); break;
    case 5: rc = ns_sim_job_result(h->s, 0, NULL, NULL, NULL, NULL); break;
    case 6: rc = ns_sim_add_model_profile(h->s, "m", 1.0, 1.0, 100, 0); break;
    default: rc = ns_sim_write_jobs_csv(h->s, path); break;
    }
    (void)ns_sim_job_name(h->s, 0); /* "" or the name, never freed memory */
    int results = k % 8 == 1 || k % 8 == 5 || k % 8 == 7; /* ESTATE before the first run */
    if (rc == NS_ESTATE && (strstr(ns_last_error(), "is running") != NULL ||
                            strstr(ns_last_error(), "in use by a call in another thread") != NULL))
      h->calls_busy++;
    else if (rc < 0 && !(results && rc == NS_ESTATE && strstr(ns_last_error(), "no results")))
      h->wrong++;
  }
  unlink(path);
  return NULL;
}

static void test_two_threads_hammering_one_simulator(void **state) {
  (void)state;
  hammer h = {.s = small_sim()};
  assert_int_equal(ns_sim_load_default_workload(h.s), 160);
  pthread_t a, b;
  assert_int_equal(pthread_create(&b, NULL, call_loop, &h), 0);
  assert_int_equal(pthread_create(&a, NULL, run_loop, &h), 0);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  print_message("runs %d ok, %d refused; calls refused %d, adds kept %d\n", h.runs_ok,
                h.runs_busy, h.calls_busy, h.adds_ok);
  assert_int_equal(h.other, 0);
  assert_int_equal(h.wrong, 0);
  assert_int_equal(h.runs_ok + h.runs_busy, 20);
  /* every add that said so was kept, none other: 160 + the successes */
  assert_int_equal(ns_sim_job_count(h.s), 160 + h.adds_ok);
  /* the handle is intact: a last run finishes every job */
  assert_int_equal(ns_sim_run(h.s), NS_OK);
  double done = 0;
  assert_int_equal(ns_sim_metric(h.s, NS_SIM_METRIC_JOBS_DONE, &done), NS_OK);
  assert_near(done, 160 + h.adds_ok, 0);
  ns_sim_free(h.s);
}

/* Const calls from two threads at once never refuse each other. */
typedef struct reader {
  ns_sim *s;
  int refused;
} reader;

static void *read_loop(void *arg) {
  reader *r = arg;
  for (int i = 0; i < 20000; i++) {
    double v;
    if (ns_sim_metric(r->s, NS_SIM_METRIC_MAKESPAN_MS, &v) != NS_OK ||
        ns_sim_job_gpus(r->s, i % 160) < 1)
      r->refused++;
  }
  return NULL;
}

static void test_two_reader_threads_do_not_refuse_each_other(void **state) {
  (void)state;
  ns_sim *s = small_sim();
  assert_int_equal(ns_sim_load_default_workload(s), 160);
  assert_int_equal(ns_sim_run(s), NS_OK);
  reader r1 = {s, 0}, r2 = {s, 0};
  pthread_t a, b;
  assert_int_equal(pthread_create(&a, NULL, read_loop, &r1), 0);
  assert_int_equal(pthread_create(&b, NULL, read_loop, &r2), 0);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert_int_equal(r1.refused + r2.refused, 0);
  ns_sim_free(s);
}

/* ---- cancellation ----------------------------------------------------------- */

/* 8 x the default workload (1280 jobs) on 32 GPUs. */
static ns_sim *long_sim(void) {
  ns_sim *s = small_sim();
  for (int i = 0; i < 8; i++)
    assert_int_equal(ns_sim_load_default_workload(s), 160);
  return s;
}

/* The run is held in its progress callback (its third call) until the
   other thread has called ns_sim_cancel: a mid-run request however loaded
   the machine is, not a race against the run's end. */
typedef struct canceller {
  ns_sim *s;
  atomic_int go, sent;
  double at;
  int progress_after; /* progress calls once the request was made */
  int calls;
} canceller;

static void *cancel_when_told(void *arg) {
  canceller *c = arg;
  while (!atomic_load(&c->go))
    sched_yield();
  c->at = now_s();
  assert_int_equal(ns_sim_cancel(c->s), NS_OK);
  atomic_store(&c->sent, 1);
  return NULL;
}

static void hold_until_cancelled(size_t done, size_t total, void *user) {
  canceller *c = user;
  (void)done, (void)total;
  if (atomic_load(&c->sent))
    c->progress_after++;
  if (++c->calls == 3) {
    atomic_store(&c->go, 1);
    while (!atomic_load(&c->sent))
      sched_yield();
  }
}

static double peer_makespan(void) {
  ns_sim *s = long_sim();
  assert_int_equal(ns_sim_run(s), NS_OK);
  double m = 0;
  assert_int_equal(ns_sim_metric(s, NS_SIM_METRIC_MAKESPAN_MS, &m), NS_OK);
  ns_sim_free(s);
  return m;
}

static void test_cancel_from_another_thread_stops_the_run_and_it_reruns(void **state) {
  (void)state;
  double makespan = peer_makespan();
  ns_sim *s = long_sim();
  canceller c = {.s = s};
  assert_int_equal(ns_sim_set_progress(s, hold_until_cancelled, &c), NS_OK);
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, cancel_when_told, &c), 0);
  assert_fails_with(ns_sim_run(s), NS_ECANCELED, "ns_sim_run: cancelled (ns_sim_cancel) at ");
  double latency = now_s() - c.at;
  pthread_join(t, NULL);
  print_message("cancel to return: %.3f ms\n", latency * 1e3);
  assert_int_equal(c.progress_after, 0); /* stopped at the next event time */
  /* no results kept, jobs still loaded */
  double v = 0;
  assert_int_equal(ns_sim_metric(s, NS_SIM_METRIC_MAKESPAN_MS, &v), NS_ESTATE);
  assert_int_equal(ns_sim_job_count(s), 1280);
  /* rerunnable: the same results as a run never cancelled */
  assert_int_equal(ns_sim_set_progress(s, NULL, NULL), NS_OK);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_int_equal(ns_sim_metric(s, NS_SIM_METRIC_MAKESPAN_MS, &v), NS_OK);
  assert_near(v, makespan, 0);
  ns_sim_free(s);
}

static void test_cancel_while_idle_does_not_stop_the_next_run(void **state) {
  (void)state;
  ns_sim *s = small_sim();
  assert_int_equal(ns_sim_load_default_workload(s), 160);
  assert_int_equal(ns_sim_cancel(s), NS_OK);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_int_equal(ns_sim_cancel(NULL), NS_EINVAL);
  ns_sim_free(s);
}

static ns_sim *volatile signal_sim;

static void on_signal(int sig) {
  (void)sig;
  ns_sim_cancel(signal_sim); /* async-signal-safe */
}

/* The signal is raised from inside the run (its progress callback), so the
   handler interrupts ns_sim_run itself - deterministically. */
static void raise_signal(size_t done, size_t total, void *user) {
  int *calls = user;
  (void)done, (void)total;
  if (++*calls == 3)
    raise(SIGUSR1);
}

static void test_cancel_from_a_signal_handler(void **state) {
  (void)state;
  ns_sim *s = long_sim();
  signal_sim = s;
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
  int calls = 0;
  assert_int_equal(ns_sim_set_progress(s, raise_signal, &calls), NS_OK);
  int rc = ns_sim_run(s);
  sigaction(SIGUSR1, &old, NULL);
  assert_int_equal(rc, NS_ECANCELED);
  assert_int_equal(calls, 3);
  assert_int_equal(ns_sim_run(s), NS_OK); /* the request died with the run it stopped */
  ns_sim_free(s);
}

typedef struct self_cancel {
  ns_sim *s;
  int calls;
} self_cancel;

static void cancel_from_progress(size_t done, size_t total, void *user) {
  self_cancel *c = user;
  (void)done, (void)total;
  if (c->calls++ == 3)
    assert_int_equal(ns_sim_cancel(c->s), NS_OK);
}

static void test_cancel_from_its_own_progress_callback(void **state) {
  (void)state;
  ns_sim *s = small_sim();
  assert_int_equal(ns_sim_load_default_workload(s), 160);
  self_cancel c = {s, 0};
  assert_int_equal(ns_sim_set_progress(s, cancel_from_progress, &c), NS_OK);
  assert_fails_with(ns_sim_run(s), NS_ECANCELED, "no results kept");
  assert_int_equal(c.calls, 4); /* stopped at once: no progress call after the request */
  assert_string_equal(ns_strerror(NS_ECANCELED), "cancelled on request");
  ns_sim_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_two_threads_hammering_one_simulator),
      cmocka_unit_test(test_two_reader_threads_do_not_refuse_each_other),
      cmocka_unit_test(test_cancel_from_another_thread_stops_the_run_and_it_reruns),
      cmocka_unit_test(test_cancel_while_idle_does_not_stop_the_next_run),
      cmocka_unit_test(test_cancel_from_a_signal_handler),
      cmocka_unit_test(test_cancel_from_its_own_progress_callback),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
