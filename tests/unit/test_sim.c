/*
 * tests/unit/test_sim.c - the simulator engine, network models, metrics,
 * trace readers and bad input (src/sim). Engine tests drive the simulator
 * with a placement callback written here (the policy modules are tested in
 * their own suites), so every expected number below is computed by hand
 * from the model in sim.h.
 */
#include "helpers/ns_test.h"
#include "sim/sim_internal.h" /* cassini_readjusts: no public observable */

#include <limits.h>
#include <stdlib.h>

/* ---- placement callbacks -------------------------------------------------- */

/* First free GPUs by id. */
/* The library's first fit (lowest GPUs that can host the job; in sharing
   mode, memory permitting) behind the caller-policy hook. */
static int place_ff(const ns_cluster *c, const ns_job *job, ns_placement *out, void *user) {
  (void)user;
  return ns_place_first_fit(c, job, out);
}

static int place_broken(const ns_cluster *c, const ns_job *job, ns_placement *out, void *user) {
  (void)c, (void)job, (void)out, (void)user;
  return NS_ESOLVER;
}

/* The engine tests' expected numbers are derived for plain max-min sharing
   (the ideal contention curve, e = 1): the contention loss is tested on its
   own in test_sim_contention.c. */
static ns_sim_opts *opts_custom(ns_sim_place_fn fn) {
  ns_sim_opts *o = ns_sim_opts_new();
  assert_non_null(o);
  assert_int_equal(ns_sim_opts_set_place_fn(o, fn, NULL), NS_OK);
  assert_int_equal(ns_sim_opts_set_contention_curve(o, NULL, NULL, 0), NS_OK);
  return o;
}

/* ---- the 2-job hand-computed case ----------------------------------------- */

/* 1 leaf, 2 servers x 2 GPUs, 10 Gbps NICs. Two 2-GPU jobs placed one GPU
   per server share both servers' NICs (tx and rx). Model 125 MB: alone, the
   ring's all-reduce moves 2(N-1)/N * M = 125 MB at 10 Gbps = 100 ms; compute
   100 ms. Job A: 100 iterations, job B: 50, both arrive at 0. */
static ns_sim *two_jobs(ns_sim_opts *o) {
  assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, 2, 2, 0, 10.0), NS_OK);
  ns_sim *s = ns_sim_new(o);
  assert_non_null(s);
  assert_int_equal(ns_sim_add_job(s, "A", 0, 2, 100, 100.0, 125000000ull, 0), 0);
  assert_int_equal(ns_sim_add_job(s, "B", 0, 2, 50, 100.0, 125000000ull, 0), 1);
  return s;
}

static void test_two_jobs_maxmin(void **state) {
  (void)state;
  ns_sim_opts *o = opts_custom(ns_test_place_spread);
  assert_int_equal(ns_sim_opts_set_network(o, NS_SIM_NET_MAXMIN), NS_OK); /* the fluid model */
  ns_sim *s = two_jobs(o);
  assert_int_equal(ns_sim_run(s), NS_OK);
  /* Both collide on every NIC link: 5 Gbps each -> comm 200 ms, iteration
     300 ms. B: 50 x 300 = 15 s. A: 50 done by then, 50 more alone at 200 ms
     = 10 s -> 25 s. */
  assert_near(ns_test_jct_ms(s, 1), 15000.0, 1e-6);
  assert_near(ns_test_jct_ms(s, 0), 25000.0, 1e-6);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_MAKESPAN_MS), 25000.0, 1e-6);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_AVG_JCT_MS), 20000.0, 1e-6);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_LINKS_SHARED), 4, 0); /* tx0 tx1 rx0 rx1 */
  /* comm overhead: A (25 s - 10 s)/10 s = 1.5, B (15 - 5)/5 = 2 -> 1.75 */
  assert_near(ns_test_metric(s, NS_SIM_METRIC_COMM_OVERHEAD), 1.75, 1e-9);
  /* utilisation: compute GPU-ms = 2*100*100 + 2*50*100 = 30000 of 4 GPUs x 25 s */
  assert_near(ns_test_metric(s, NS_SIM_METRIC_GPU_UTIL), 30000.0 / (4 * 25000.0), 1e-9);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

static void test_two_jobs_srsf1(void **state) {
  (void)state;
  ns_sim_opts *o = opts_custom(ns_test_place_spread);
  assert_int_equal(ns_sim_opts_set_network(o, NS_SIM_NET_MAXMIN), NS_OK); /* the fluid model */
  assert_int_equal(ns_sim_opts_set_admission(o, NS_SIM_ADMIT_SRSF, 1), NS_OK);
  ns_sim *s = two_jobs(o);
  assert_int_equal(ns_sim_run(s), NS_OK);
  /* Serialised: duty f = 100/200 = 0.5 each, link load 0.5x + 0.5x <= 10
     Gbps never binds, so comm stays 100 ms; each waits half the other's
     expected transfer 0.5 * 0.5 * 100 = 25 ms -> iteration 225 ms.
     B: 50 x 225 = 11.25 s; A: 50 more alone at 200 ms -> 21.25 s. */
  assert_near(ns_test_jct_ms(s, 1), 11250.0, 1e-6);
  assert_near(ns_test_jct_ms(s, 0), 21250.0, 1e-6);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

static void test_two_jobs_contention(void **state) {
  (void)state;
  if (!isfinite(ns_comm_time_ms(10.0, 1e-6, 0.5e-6, 2, 100000000ull))) {
    printf("skipped: ns_comm_time_ms (adadual) is not in this build\n");
    skip();
  }
  ns_sim_opts *o = opts_custom(ns_test_place_spread);
  assert_int_equal(ns_sim_opts_set_network(o, NS_SIM_NET_CONTENTION), NS_OK);
  /* Eq. 5 with a = 10 ms, b = 1e-6 ms/B, eta = 0.5e-6 ms/B, M = 125 MB:
     T(1) = 10 + 125 = 135 ms; T(2) = 10 + 250 + 62.5 = 322.5 ms. */
  assert_int_equal(ns_sim_opts_set_contention(o, 10.0, 1e-6, 0.5e-6), NS_OK);
  ns_sim *s = two_jobs(o);
  assert_int_equal(ns_sim_run(s), NS_OK);
  /* B: 50 x (100 + 322.5) = 21125 ms; A: +50 x (100 + 135) = 11750 ms. */
  assert_near(ns_test_jct_ms(s, 1), 21125.0, 1e-6);
  assert_near(ns_test_jct_ms(s, 0), 32875.0, 1e-6);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* Skips the calling test (with a message) when CASSINI is not built in. */
#define skip_without_cassini()                                                   \
  do {                                                                           \
    ns_cassini_opts *probe_ = ns_cassini_opts_new();                             \
    if (probe_ == NULL) {                                                        \
      printf("skipped: CASSINI is not in this build\n");                          \
      skip();                                                                    \
    }                                                                            \
    ns_cassini_opts_free(probe_);                                                \
  } while (0)

/* CASSINI on the 2-job case: the only candidate shares both NICs; equal
   200 ms iterations with 100 ms of communication interleave perfectly
   (score 1), so after the time-shifts each communicates alone: iteration
   200 ms, each job delayed once by its shift. Without
   CASSINI: 15 s and 25 s (test_two_jobs_maxmin). */
static void test_two_jobs_cassini(void **state) {
  (void)state;
  skip_without_cassini();
  /* Both models agree here. Fluid: each job pauses once for its shift, then
     counts with its duty cycle 0.5: the links never saturate. Phase: both
     start at 0, so T0 = 0; A computes 0-100 and communicates 100-200 while
     B (held until 0 + 100) computes; B communicates 200-300 while A
     computes: each alone on the links, iteration 200 ms. */
  ns_sim_network nets[2] = {NS_SIM_NET_MAXMIN, NS_SIM_NET_PHASE};
  for (int m = 0; m < 2; m++) {
    ns_sim_opts *o = opts_custom(ns_test_place_spread);
    assert_int_equal(ns_sim_opts_set_network(o, nets[m]), NS_OK);
    assert_int_equal(ns_sim_opts_set_cassini(o, 1, 10), NS_OK);
    ns_sim *s = two_jobs(o);
    assert_int_equal(ns_sim_run(s), NS_OK);
    /* A (running, added first) is the Affinity BFS reference: shift 0.
       B's optimal rotation puts its Up phase in A's Down: shift 100 ms
       (ALGORITHMS.md worked example 1 at 200 ms). */
    assert_near(ns_test_jct_ms(s, 0), 20000.0, 1e-6);
    assert_near(ns_test_jct_ms(s, 1), 100.0 + 50 * 200.0, 1e-6);
    ns_sim_free(s);
    ns_sim_opts_free(o);
  }
}

/* The 2-job case across leaves: 2 leaves x 2 servers x 1 GPU, one spine,
   one 10 Gbps link per pair, 20 Gbps NICs. A on servers 0 and 2, B on 1
   and 3: no NIC is shared, but both rings cross the only uplink and
   downlink of each leaf, which then bottleneck at 5 Gbps each - the same
   15 s / 25 s as the NIC case. */
static void test_two_jobs_uplink(void **state) {
  (void)state;
  ns_sim_opts *o = opts_custom(ns_test_place_cross);
  assert_int_equal(ns_sim_opts_set_cluster(o, 2, 1, 2, 1, 1, 10.0), NS_OK);
  assert_int_equal(ns_sim_opts_set_bandwidth(o, 20.0, 100.0), NS_OK);
  ns_sim *s = ns_sim_new(o);
  assert_int_equal(ns_sim_add_job(s, "A", 0, 2, 100, 100.0, 125000000ull, 0), 0);
  assert_int_equal(ns_sim_add_job(s, "B", 0, 2, 50, 100.0, 125000000ull, 0), 1);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(ns_test_jct_ms(s, 1), 15000.0, 1e-6);
  assert_near(ns_test_jct_ms(s, 0), 25000.0, 1e-6);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_LINKS_SHARED), 4, 0); /* 2 uplinks + 2 downlinks */
  int servers = 0;
  assert_int_equal(ns_sim_job_result(s, 0, NULL, NULL, NULL, &servers), NS_OK);
  assert_int_equal(servers, 2);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* Separate servers: no shared link, iteration = 100 + 100 ms. */
static void test_two_jobs_no_sharing(void **state) {
  (void)state;
  ns_sim_opts *o = opts_custom(place_ff);
  ns_sim *s = two_jobs(o); /* FF: A on GPUs 0,1 (server 0), B on 2,3 (server 1) */
  assert_int_equal(ns_sim_run(s), NS_OK);
  /* one server each: intra-server all-reduce at 100 Gbps: 125 MB -> 10 ms */
  assert_near(ns_test_jct_ms(s, 0), 100 * 110.0, 1e-6);
  assert_near(ns_test_jct_ms(s, 1), 50 * 110.0, 1e-6);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_LINKS_SHARED), 0, 0);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* GPU sharing: two 1-GPU jobs on the one GPU take turns. A: 10 x 100 ms,
   B: 5 x 100 ms. Together each iteration takes 200 ms: B ends at 1 s with
   A half done; A's last 5 iterations alone take 0.5 s -> 1.5 s. */
static void test_gpu_sharing(void **state) {
  (void)state;
  ns_sim_opts *o = opts_custom(place_ff);
  assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, 1, 1, 0, 10.0), NS_OK);
  assert_int_equal(ns_sim_opts_set_gpu_sharing(o, 1), NS_OK);
  ns_sim *s = ns_sim_new(o);
  assert_int_equal(ns_sim_add_job(s, "A", 0, 1, 10, 100.0, 0, 1000), 0);
  assert_int_equal(ns_sim_add_job(s, "B", 0, 1, 5, 100.0, 0, 1000), 1);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(ns_test_jct_ms(s, 1), 1000.0, 1e-9);
  assert_near(ns_test_jct_ms(s, 0), 1500.0, 1e-9);
  /* the GPU computes all the time: utilisation 1, never fragmented */
  assert_near(ns_test_metric(s, NS_SIM_METRIC_GPU_UTIL), 1.0, 1e-9);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_FRAGMENTATION), 0.0, 1e-12);
  ns_sim_free(s);
  /* exclusive GPUs: B waits for A (FIFO by arrival, then index) */
  assert_int_equal(ns_sim_opts_set_gpu_sharing(o, 0), NS_OK);
  s = ns_sim_new(o);
  assert_int_equal(ns_sim_add_job(s, "A", 0, 1, 10, 100.0, 0, 1000), 0);
  assert_int_equal(ns_sim_add_job(s, "B", 0, 1, 5, 100.0, 0, 1000), 1);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(ns_test_jct_ms(s, 0), 1000.0, 1e-9);
  assert_near(ns_test_jct_ms(s, 1), 1500.0, 1e-9);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* ---- the phase model (the default) ----------------------------------------- */

/* Runs `o` (network model set by the caller) on jobs given as (arrival,
   iterations, compute ms, model bytes), all 2-GPU, on the two_jobs cluster. */
static ns_sim *run_jobs(ns_sim_opts *o, int n, const double (*job)[4]) {
  assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, 2, 2, 0, 10.0), NS_OK);
  ns_sim *s = ns_sim_new(o);
  assert_non_null(s);
  for (int i = 0; i < n; i++) {
    char name[8] = {(char)('A' + i), 0};
    assert_int_equal(ns_sim_add_job(s, name, job[i][0], 2, (uint64_t)job[i][1], job[i][2],
                                    (uint64_t)job[i][3], 0),
                     i);
  }
  assert_int_equal(ns_sim_run(s), NS_OK);
  return s;
}

/* A lone job takes exactly what it takes in the fluid model: one 2-GPU job
   spread over 2 servers, 100 ms compute + 125 MB all-reduce alone at
   10 Gbps (2(2-1)/2 x 125 MB x 8 / 10 Gbps = 100 ms): 100 x 200 ms = 20 s,
   under both models; and across leaves (ns_test_place_cross, 20 Gbps NICs, one
   10 Gbps uplink per leaf: flow rate min(20, 10) = 10 Gbps, one flow per
   uplink and downlink) the same 20 s. */
static void test_phase_lone_job(void **state) {
  (void)state;
  static const double one[1][4] = {{0, 100, 100.0, 125e6}};
  ns_sim_network nets[2] = {NS_SIM_NET_MAXMIN, NS_SIM_NET_PHASE};
  for (int m = 0; m < 2; m++) {
    ns_sim_opts *o = opts_custom(ns_test_place_spread);
    assert_int_equal(ns_sim_opts_set_network(o, nets[m]), NS_OK);
    ns_sim *s = run_jobs(o, 1, one);
    assert_near(ns_test_jct_ms(s, 0), 20000.0, 1e-6);
    ns_sim_free(s);
    ns_sim_opts_free(o);
    o = opts_custom(ns_test_place_cross);
    assert_int_equal(ns_sim_opts_set_network(o, nets[m]), NS_OK);
    assert_int_equal(ns_sim_opts_set_cluster(o, 2, 1, 2, 1, 1, 10.0), NS_OK);
    assert_int_equal(ns_sim_opts_set_bandwidth(o, 20.0, 100.0), NS_OK);
    s = ns_sim_new(o);
    assert_int_equal(ns_sim_add_job(s, "A", 0, 2, 100, 100.0, 125000000ull, 0), 0);
    assert_int_equal(ns_sim_run(s), NS_OK);
    assert_near(ns_test_jct_ms(s, 0), 20000.0, 1e-6);
    ns_sim_free(s);
    ns_sim_opts_free(o);
  }
}

/* Two identical jobs in lock-step (the two_jobs case under the default
   phase model): both compute 0-100 ms, then both all-reduces share the two
   NICs at 5 Gbps: 200 ms; iteration 300 ms. B: 50 x 300 = 15 s; A then
   alone: 50 x 200 ms more -> 25 s (here the fluid model's weight-1
   assumption happens to be right). */
static void test_phase_lock_step(void **state) {
  (void)state;
  ns_sim_opts *o = opts_custom(ns_test_place_spread);
  ns_sim *s = two_jobs(o); /* default network: phase */
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(ns_test_jct_ms(s, 1), 15000.0, 1e-6);
  assert_near(ns_test_jct_ms(s, 0), 25000.0, 1e-6);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_LINKS_SHARED), 4, 0);
  ns_sim_free(s);
  /* without fast-forward, the same to the microsecond */
  assert_int_equal(ns_sim_opts_set_phase_window(o, 0), NS_OK);
  s = two_jobs(o);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(ns_test_jct_ms(s, 1), 15000.0, 1e-6);
  assert_near(ns_test_jct_ms(s, 0), 25000.0, 1e-6);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* The same pair interleaved by arrival: B arrives at 100 ms, when A's
   compute ends. A communicates 100-200 while B computes; B communicates
   200-300 while A computes; ... each always alone on the links: iteration
   200 ms. A: 100 x 200 = 20 s; B: 50 x 200 = 10 s. The fluid model charges
   both weight 1 for their whole run (collision). */
static void test_phase_interleaved(void **state) {
  (void)state;
  static const double jobs[2][4] = {{0, 100, 100.0, 125e6}, {100, 50, 100.0, 125e6}};
  ns_sim_opts *o = opts_custom(ns_test_place_spread);
  ns_sim *s = run_jobs(o, 2, jobs);
  assert_near(ns_test_jct_ms(s, 0), 20000.0, 1e-6);
  assert_near(ns_test_jct_ms(s, 1), 10000.0, 1e-6);
  ns_sim_free(s);
  assert_int_equal(ns_sim_opts_set_network(o, NS_SIM_NET_MAXMIN), NS_OK);
  s = run_jobs(o, 2, jobs);
  /* fluid: B from 100 ms at 300 ms per iteration -> 15 s */
  assert_near(ns_test_jct_ms(s, 1), 15000.0, 1e-6);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* Two jobs with different periods drift through each other (all-reduce
   100 ms alone each): A = 3 x (100 ms compute), B = 2 x (150 ms compute).
   0-100 A computes; 100-150 A alone on the links (50 ms of its 100 done);
   150 B joins: both at half rate; A's last 50 ms take 100 -> 250; B did 50,
   alone 250-300. A computes 250-350, B 300-450. A communicates 350-450
   alone. B 450-550 alone -> B done at 550. A computes 450-550, its
   all-reduce 550-650 alone (B leaves at 550) -> A done at 650.
   Fluid max-min: both weight 1 at 5 Gbps: B = 2 x 350 = 700, A = 833.3. */
static void test_phase_drift(void **state) {
  (void)state;
  static const double jobs[2][4] = {{0, 3, 100.0, 125e6}, {0, 2, 150.0, 125e6}};
  ns_sim_opts *o = opts_custom(ns_test_place_spread);
  ns_sim *s = run_jobs(o, 2, jobs);
  assert_near(ns_test_jct_ms(s, 0), 650.0, 1e-6);
  assert_near(ns_test_jct_ms(s, 1), 550.0, 1e-6);
  ns_sim_free(s);
  assert_int_equal(ns_sim_opts_set_network(o, NS_SIM_NET_MAXMIN), NS_OK);
  s = run_jobs(o, 2, jobs);
  assert_near(ns_test_jct_ms(s, 1), 700.0, 1e-6);
  assert_near(ns_test_jct_ms(s, 0), 700.0 + (3 - 700.0 / 300.0) * 200.0, 1e-6);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* SRSF(1): an all-reduce starts only while no other one uses its links;
   only the excess waits. two_jobs: at 100 ms both computes end; A (lower
   index at equal times) starts 100-200, B waits; at 200 B starts (200-300)
   while A computes; at 300 A waits for B's end, then 300-400; ... A's k-th
   all-reduce ends at 200k, B's at 200k + 100: B's 50th at 10.1 s. A's 51st
   compute is 10.0-10.1 s, then it communicates alone: 10.1 s + 100 ms +
   49 x 200 ms = 20 s. SRSF(2) lets both communicate: the lock-step 15/25 s. */
static void test_phase_srsf(void **state) {
  (void)state;
  ns_sim_opts *o = opts_custom(ns_test_place_spread);
  assert_int_equal(ns_sim_opts_set_admission(o, NS_SIM_ADMIT_SRSF, 1), NS_OK);
  ns_sim *s = two_jobs(o);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(ns_test_jct_ms(s, 1), 10100.0, 1e-6);
  assert_near(ns_test_jct_ms(s, 0), 20000.0, 1e-6);
  ns_sim_free(s);
  assert_int_equal(ns_sim_opts_set_admission(o, NS_SIM_ADMIT_SRSF, 2), NS_OK);
  s = two_jobs(o);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(ns_test_jct_ms(s, 1), 15000.0, 1e-6);
  assert_near(ns_test_jct_ms(s, 0), 25000.0, 1e-6);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* AdaDUAL per all-reduce: at 100 ms A starts (no task on its servers). B's
   decision: one task per server with M_old = A's 125 MB left; 125/125 = 1
   is not below b / (2(b + eta)) = 0.856 / 2.182 = 0.39: wait, until A's
   ends at 200. From then on each finds the other's all-reduce in flight
   (or just ending, with ~0 bytes left: ratio huge) and waits: the same
   alternation as SRSF(1): B 10.1 s, A 20 s. */
static void test_phase_adadual_waits(void **state) {
  (void)state;
  uint64_t rem[1] = {100};
  int tasks[1] = {1}, start = -1;
  if (ns_adadual_decide(1.0, 0.0, 1, tasks, rem, 1, &start) == NS_EUNSUPPORTED) {
    printf("skipped: AdaDUAL is not in this build\n");
    skip();
  }
  ns_sim_opts *o = opts_custom(ns_test_place_spread);
  assert_int_equal(ns_sim_opts_set_admission(o, NS_SIM_ADMIT_ADADUAL, 1), NS_OK);
  ns_sim *s = two_jobs(o);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(ns_test_jct_ms(s, 1), 10100.0, 1e-6);
  assert_near(ns_test_jct_ms(s, 0), 20000.0, 1e-6);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* GPU sharing at the task level: one server, 2 GPUs; two 2-GPU jobs, 100 ms
   compute and a 100 ms intra-server all-reduce (1.25 GB at 100 Gbps, 2(2-1)/2
   x M). A arrives at 0, B at 100 ms on the same GPUs: B computes 100-200
   while A communicates, A computes 200-300 while B communicates...: the
   iteration stays 200 ms. A: 10 x 200 = 2 s; B: 5 x 200 = 1 s. The fluid
   model doubles the compute of both (300 ms iterations while shared). */
static void test_phase_gpu_sharing_overlap(void **state) {
  (void)state;
  ns_sim_opts *o = opts_custom(place_ff);
  assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, 1, 2, 0, 10.0), NS_OK);
  assert_int_equal(ns_sim_opts_set_gpu_sharing(o, 1), NS_OK);
  ns_sim *s = ns_sim_new(o);
  assert_int_equal(ns_sim_add_job(s, "A", 0, 2, 10, 100.0, 1250000000ull, 1000), 0);
  assert_int_equal(ns_sim_add_job(s, "B", 100, 2, 5, 100.0, 1250000000ull, 1000), 1);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(ns_test_jct_ms(s, 0), 2000.0, 1e-6);
  assert_near(ns_test_jct_ms(s, 1), 1000.0, 1e-6);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* LWF-kappa's workload is the work REMAINING on a GPU. One server, 2 GPUs
   shared, kappa 1, 1-GPU jobs of 100 ms iterations. A (20 iterations) at 0
   takes GPU 0; B (15) at 1 s takes the idle GPU 1. C (3) arrives at 1.5 s:
   remaining work GPU 0 = A's 2000 - 1500 = 500 ms, GPU 1 = B's 1500 - 500
   = 1000 ms -> GPU 0 (the static totals, 2000 vs 1500, would pick GPU 1).
   A and C share GPU 0 at half speed: C's 300 ms take 600 -> C ends at
   2.1 s; A did 300 of its 500, then 200 alone -> A ends at 2.3 s; B alone
   ends at 2.5 s. */
static void test_phase_lwf_remaining(void **state) {
  (void)state;
  ns_sim_opts *o = ns_sim_opts_new();
  assert_int_equal(ns_sim_opts_set_placement(o, NS_SIM_PLACE_LWF), NS_OK);
  assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, 1, 2, 0, 10.0), NS_OK);
  assert_int_equal(ns_sim_opts_set_gpu_sharing(o, 1), NS_OK);
  ns_sim *s = ns_sim_new(o);
  assert_int_equal(ns_sim_add_job(s, "A", 0, 1, 20, 100.0, 0, 1000), 0);
  assert_int_equal(ns_sim_add_job(s, "B", 1000, 1, 15, 100.0, 0, 1000), 1);
  assert_int_equal(ns_sim_add_job(s, "C", 1500, 1, 3, 100.0, 0, 1000), 2);
  assert_int_equal(ns_sim_run(s), NS_OK);
  double a, st, f;
  assert_int_equal(ns_sim_job_result(s, 0, &a, &st, &f, NULL), NS_OK);
  assert_near(f, 2300.0, 1e-6);
  assert_int_equal(ns_sim_job_result(s, 1, &a, &st, &f, NULL), NS_OK);
  assert_near(f, 2500.0, 1e-6);
  assert_int_equal(ns_sim_job_result(s, 2, &a, &st, &f, NULL), NS_OK);
  assert_near(f, 2100.0, 1e-6);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* Fast-forward against the unaccelerated run on a small shared set whose
   periods drift (A: 100 ms compute, B: 150 ms; 100 ms all-reduces on the
   same NICs; 600 and 400 iterations). The documented bound: a member's
   extrapolated iteration is its mean over the last W iterations, off the
   exact mean by at most (longest - shortest iteration) / W; here iterations
   lie within [compute + 100, compute + 200] ms, so the finish time moves by
   at most span x 100 / (W x (compute + 100)) + one iteration. */
static void test_phase_fast_forward(void **state) {
  (void)state;
  static const double jobs[2][4] = {{0, 600, 100.0, 125e6}, {0, 400, 150.0, 125e6}};
  ns_sim_opts *o = opts_custom(ns_test_place_spread);
  assert_int_equal(ns_sim_opts_set_phase_window(o, 0), NS_OK);
  ns_sim *exact = run_jobs(o, 2, jobs);
  const int windows[3] = {4, 16, 64};
  for (int w = 0; w < 3; w++) {
    assert_int_equal(ns_sim_opts_set_phase_window(o, windows[w]), NS_OK);
    ns_sim *ff = run_jobs(o, 2, jobs);
    for (int j = 0; j < 2; j++) {
      double c = jobs[j][2], x = ns_test_jct_ms(exact, j), y = ns_test_jct_ms(ff, j);
      double bound = x * 100.0 / (windows[w] * (c + 100.0)) + (c + 200.0);
      assert_true(fabs(x - y) <= bound);
    }
    ns_sim_free(ff);
  }
  /* sanity of the exact run: both between alone and fully colliding */
  assert_true(ns_test_jct_ms(exact, 0) > 600 * 200.0 && ns_test_jct_ms(exact, 0) < 600 * 300.0);
  assert_true(ns_test_jct_ms(exact, 1) > 400 * 250.0 && ns_test_jct_ms(exact, 1) < 400 * 350.0);
  ns_sim_free(exact);
  ns_sim_opts_free(o);
}

/* Fast-forward with a member leaving while the others are fast-forwarded:
   three 2-GPU jobs spread over 2 servers x 4 GPUs share both NICs: A 600 x
   100 ms compute, B 400 x 150 ms, C 60 x 120 ms, 100 ms all-reduces alone.
   The slowest member (B, iterations <= 150 + 300 ms) closes a window of
   W <= 16 iterations within 17 x 450 ms = 7.7 s, and C ends after at least
   60 x 220 ms = 13.2 s: C leaves a fast-forwarded group, which restarts
   (then B leaves A alone). With three jobs an iteration lies within
   [c + 100, c + 300] ms, so the documented bound is x * 200 / (W (c + 100))
   for the fast-forwarded spans plus one iteration, c + 300, per hand-over
   (two: C's and B's finishes). Were the restart skipped, A and B would keep
   the three-job mean after C left: A's ~500 remaining iterations each about
   50 ms too long, ~25 s, beyond the W = 16 bound (~11 s). */
static void test_phase_fast_forward_leave(void **state) {
  (void)state;
  static const double jobs[3][4] = {{0, 600, 100.0, 125e6}, {0, 400, 150.0, 125e6},
                                    {0, 60, 120.0, 125e6}};
  ns_sim_opts *o = opts_custom(ns_test_place_spread);
  assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, 2, 4, 0, 10.0), NS_OK);
  ns_sim *run[4];
  const int windows[4] = {0, 4, 16, 64};
  for (int w = 0; w < 4; w++) {
    assert_int_equal(ns_sim_opts_set_phase_window(o, windows[w]), NS_OK);
    run[w] = ns_sim_new(o);
    for (int i = 0; i < 3; i++) {
      char name[2] = {(char)('A' + i), 0};
      assert_int_equal(ns_sim_add_job(run[w], name, jobs[i][0], 2, (uint64_t)jobs[i][1],
                                      jobs[i][2], (uint64_t)jobs[i][3], 0),
                       i);
    }
    assert_int_equal(ns_sim_run(run[w]), NS_OK);
  }
  /* the exact run: C ends first, then B, then A */
  assert_true(ns_test_jct_ms(run[0], 2) < ns_test_jct_ms(run[0], 1));
  assert_true(ns_test_jct_ms(run[0], 1) < ns_test_jct_ms(run[0], 0));
  assert_true(ns_test_jct_ms(run[0], 2) > 60 * 220.0);
  for (int w = 1; w < 4; w++)
    for (int j = 0; j < 3; j++) {
      double c = jobs[j][2], x = ns_test_jct_ms(run[0], j), y = ns_test_jct_ms(run[w], j);
      double bound = x * 200.0 / (windows[w] * (c + 100.0)) + 2 * (c + 300.0);
      assert_true(fabs(x - y) <= bound);
    }
  for (int w = 0; w < 4; w++)
    ns_sim_free(run[w]);
  ns_sim_opts_free(o);
}

/* A pair's window is 8 W iterations (window(): 16 W / n for a group of n),
   long enough for the slow relative drift of two periods. A: 2000 x 100 ms
   compute, B: 1500 x 130 ms, 100 ms all-reduces alone on the same NICs: their
   relative phase drifts by 30 ms an iteration and returns after about
   (230..330) / 30 = 8-11 iterations, each pass with its own collision
   pattern, so a 16-iteration window is not a whole number of passes (with a
   window of W = 16 both finished ~2 % early against W = 0: A 503.2 s vs
   513.9 s). The documented bound with the pair's window of 128: a finish
   moves by at most x 100 / (128 (c + 100)) + one iteration (c + 200): A
   513.9 s x 100 / (128 x 200) + 300 ms = 2.31 s (0.45 %), B 458.9 s x 100 /
   (128 x 230) + 330 ms = 1.89 s (0.41 %); a 16-iteration window's own bound
   (8x wider) would allow 16.4 s and 12.8 s. */
static void test_phase_window_pair(void **state) {
  (void)state;
  static const double jobs[2][4] = {{0, 2000, 100.0, 125e6}, {0, 1500, 130.0, 125e6}};
  ns_sim_opts *o = opts_custom(ns_test_place_spread);
  assert_int_equal(ns_sim_opts_set_phase_window(o, 0), NS_OK);
  ns_sim *exact = run_jobs(o, 2, jobs);
  assert_int_equal(ns_sim_opts_set_phase_window(o, 16), NS_OK);
  ns_sim *ff = run_jobs(o, 2, jobs);
  for (int j = 0; j < 2; j++) {
    double c = jobs[j][2], x = ns_test_jct_ms(exact, j), y = ns_test_jct_ms(ff, j);
    double bound = x * 100.0 / (128.0 * (c + 100.0)) + (c + 200.0);
    assert_true(fabs(x - y) <= bound);
    /* the exact run lies between alone (c + 100) and colliding every time (c + 200) */
    assert_true(x > jobs[j][1] * (c + 100.0) && x < jobs[j][1] * (c + 200.0));
  }
  ns_sim_free(exact);
  ns_sim_free(ff);
  ns_sim_opts_free(o);
}

/* Two GPUs on consecutive servers: the lowest odd GPU g with g and g + 1
   free (2 GPUs per server: job k of a full chain holds servers k, k + 1). */
static int place_chain(const ns_cluster *c, const ns_job *job, ns_placement *out, void *user) {
  (void)user;
  ns_placement_clear(out);
  ns_placement_bind(out, c);
  for (int g = 1; g + 1 < ns_cluster_gpu_count(c) && ns_job_gpus(job) == 2; g += 2)
    if (ns_cluster_gpu_is_free(c, g) == 1 && ns_cluster_gpu_is_free(c, g + 1) == 1) {
      ns_placement_add_gpu(out, g);
      ns_placement_add_gpu(out, g + 1);
      return NS_OK;
    }
  return NS_ENOSPACE;
}

/* Runs the jobs `add` adds twice: exactly (phase window 0) into run[0]
   and with the default window (16) into run[1]. */
static void run_exact_and_windowed(ns_sim_opts *o, void (*add)(ns_sim *), ns_sim *run[2]) {
  const int windows[2] = {0, 16};
  for (int w = 0; w < 2; w++) {
    assert_int_equal(ns_sim_opts_set_phase_window(o, windows[w]), NS_OK);
    run[w] = ns_sim_new(o);
    add(run[w]);
    assert_int_equal(ns_sim_run(run[w]), NS_OK);
  }
}

/* 2-GPU jobs J0..J(n-1) at 0 (test_phase_partial_restart's chain):
   iterations 300 + 37 k, compute 100/125/150 ms, 125 MB. */
static void add_chain_n(ns_sim *s, int n) {
  for (int k = 0; k < n; k++) {
    char name[16];
    snprintf(name, sizeof name, "J%d", k);
    assert_int_equal(ns_sim_add_job(s, name, 0, 2, 300 + 37 * (uint64_t)k,
                                    100.0 + 25.0 * (k % 3), 125000000ull, 0),
                     k);
  }
}

/* The chain of 20 (one component of 17-32 jobs: a change re-simulates
   every job it touches) and of 40 (more than the cap of 32: a change
   touching more defers the rest). */
static void add_chain(ns_sim *s) {
  add_chain_n(s, 20);
}

static void add_chain40(ns_sim *s) {
  add_chain_n(s, 40);
}

/* The hub (job 0: n + 1 GPUs, 60 iterations of 100 ms) and S0..S(n-1)
   (jobs 1..n: 2 GPUs, 1500 iterations, compute 100/125/150 ms), all 125
   MB, at 0 (test_phase_deferred_neighbours). */
static void add_star_n(ns_sim *s, int n) {
  assert_int_equal(ns_sim_add_job(s, "hub", 0, n + 1, 60, 100.0, 125000000ull, 0), 0);
  for (int k = 0; k < n; k++) {
    char name[16];
    snprintf(name, sizeof name, "S%d", k);
    assert_int_equal(ns_sim_add_job(s, name, 0, 2, 1500, 100.0 + 25.0 * (k % 3), 125000000ull, 0),
                     k + 1);
  }
}

static void add_star(ns_sim *s) {
  add_star_n(s, 20);
}

static void add_star40(ns_sim *s) {
  add_star_n(s, 40);
}

/* A component larger than 16 jobs restarts only in part (sim.h): a chain of
   n 2-GPU jobs, job k on servers k and k + 1 (2 GPUs each), so job k shares
   server k's NIC with job k - 1 and server k + 1's with job k + 1: every
   link carries at most two jobs, an iteration lies within [c + 100,
   c + 200] ms (all-reduce 100 ms alone, at least half the link shared).
   Computes 100/125/150 ms make the periods drift; iterations 300 + 37 k
   make the jobs leave one by one, each leave restarting its neighbours
   while the rest run at their window means (n = 20 and n = 40).
   Checked: (1) every JCT, exact or partial, within the model's bounds
   it x (c + 100) .. it x (c + 200); (2) against the unaccelerated run
   (W = 0), each JCT within the documented bound of a partial restart:
   the window error (x * 100 / (W (c + 100)), with W = 3 = max(2, 64 /
   20); at worst 0.82 of it for n = 40) plus one
   iteration per hand-over of its neighbours' leaves (two neighbours:
   2 (c + 200)) plus the kept error: a kept job's mean is off its exact
   mean by at most the share of its all-reduce its neighbours' change can
   move, here 5 % of the all-reduce (sim.h); (3) the mean |error|,
   measured: 1.52 % of the JCT for n = 20 and 3.26 % for n = 40 (3 % and
   4 % asserted); for n = 40 without the fill (net_phase.c: untouched
   members not re-simulated with a change's restart) 4.33 %, with the kept
   jobs never re-measured when a link-mate leaves its restart at a new
   mean (no rate-touch) 6.45 %, with deferred neighbours never
   re-simulated 5.45 % (the last two measured before the fill): each
   fails. (The first
   version of this test, with n = 20 only, said that turning the kept jobs'
   load off broke (2); at today's code it does not: 2.01 % / 3.15 % without
   that load, lower, so it is not claimed.) */
static void test_phase_partial_restart(void **state) {
  (void)state;
  void (*add[2])(ns_sim *) = {add_chain, add_chain40};
  const int nchain[2] = {20, 40};
  const double tol[2] = {0.03, 0.04};
  for (int v = 0; v < 2; v++) {
    int n = nchain[v];
    ns_sim_opts *o = opts_custom(place_chain);
    assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, n + 1, 2, 0, 10.0), NS_OK);
    ns_sim *run[2];
    run_exact_and_windowed(o, add[v], run);
    double err = 0, sum = 0;
    for (int k = 0; k < n; k++) {
      double c = 100.0 + 25.0 * (k % 3), it = 300 + 37 * k;
      double x = ns_test_jct_ms(run[0], k), y = ns_test_jct_ms(run[1], k);
      for (int w = 0; w < 2; w++) {
        double val = ns_test_jct_ms(run[w], k);
        assert_true(val >= it * (c + 100.0) * (1 - 1e-9) && val <= it * (c + 200.0) * (1 + 1e-9));
      }
      double bound = x * 100.0 / (3 * (c + 100.0)) + 2 * (c + 200.0) + 0.05 * 100.0 * it;
      assert_true(fabs(x - y) <= bound);
      err += fabs(x - y), sum += x;
    }
    assert_true(err / sum <= tol[v]);
    ns_sim_free(run[0]);
    ns_sim_free(run[1]);
    ns_sim_opts_free(o);
  }
}

/* The grouping's link owners are stamped (net_phase.c phase_update:
   own_base + position, no reset pass); when the stamps run out (own_base
   near INT_MAX) every owner is cleared and they start again from 0. The
   chain of test_phase_partial_restart (jobs leave one by one: the chain
   splits into components, partial restarts count touched links) run from
   a fresh state and with own_base 40 below INT_MAX, so that the stamps
   wrap at the update after the first (20 jobs): bit-identical JCTs. An
   owner left from before the wrap (not cleared) reads as owned now and
   joins components that share no link, whose jobs are then simulated
   phase by phase instead of alone: the JCTs move. */
static void test_phase_owner_stamps_wrap(void **state) {
  (void)state;
  ns_sim_opts *o = opts_custom(place_chain);
  assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, 21, 2, 0, 10.0), NS_OK);
  ns_sim *run[2];
  for (int w = 0; w < 2; w++) {
    run[w] = ns_sim_new(o);
    add_chain(run[w]);
    run[w]->own_base = w == 0 ? 0 : INT_MAX - 40;
    assert_int_equal(ns_sim_run(run[w]), NS_OK);
  }
  assert_true(run[1]->own_base < 1000); /* it wrapped */
  for (int k = 0; k < 20; k++)
    assert_true(ns_test_jct_ms(run[0], k) == ns_test_jct_ms(run[1], k));
  ns_sim_free(run[0]);
  ns_sim_free(run[1]);
  ns_sim_opts_free(o);
}

/* GPU slot `slot` of server `srv` (3 GPUs per server). The hub (21 GPUs)
   takes slot 0 of every server; a 2-GPU job takes slot 2 of the lowest
   server k whose slot 2 is free, and slot 1 of server k + 1. */
static int place_star(const ns_cluster *c, const ns_job *job, ns_placement *out, void *user) {
  (void)user;
  ns_placement_clear(out);
  ns_placement_bind(out, c);
  int servers = ns_cluster_gpu_count(c) / 3;
  if (ns_job_gpus(job) == servers) {
    for (int k = 0; k < servers; k++)
      if (ns_cluster_gpu_is_free(c, 3 * k) != 1)
        return NS_ENOSPACE;
    for (int k = 0; k < servers; k++)
      ns_placement_add_gpu(out, 3 * k);
    return NS_OK;
  }
  for (int k = 0; k + 1 < servers && ns_job_gpus(job) == 2; k++)
    if (ns_cluster_gpu_is_free(c, 3 * k + 2) == 1 && ns_cluster_gpu_is_free(c, 3 * k + 4) == 1) {
      ns_placement_add_gpu(out, 3 * k + 2);
      ns_placement_add_gpu(out, 3 * k + 4);
      return NS_OK;
    }
  return NS_ENOSPACE;
}

/* A change with more neighbours than a restart re-simulates at once (8,
   sim.h "Large components"): deferred neighbours get their turn when the
   restart ends. 1 leaf, n + 1 servers x 3 GPUs, 10 Gbps. The hub (n + 1
   GPUs, slot 0 of every server, 60 iterations of 100 ms compute) rings
   all n + 1 servers: alone its all-reduce is 2 x n/(n + 1) x 125 MB at 10
   Gbps (190.5 ms for n = 20). S0..S(n-1) (2 GPUs: slot 2 of server k,
   slot 1 of server k + 1; 1500 iterations, compute 100/125/150 ms) chain
   like test_phase_partial_restart and all share the hub's NICs: one
   component of n + 1 (> 16: partial restarts). Server k's NIC tx carries
   at most three flows (hub, S(k-1), Sk), so an S iteration lies within
   [c + 100, c + 300] ms and the hub's within [100 + ring, 100 + 3 ring]
   ms; everything starts at 0. The hub leaves at ~40 s: all n S jobs are
   its neighbours. Under a preemptive order (2D-LAS here, n = 20:
   everything fits at 0, so nothing is preempted) the cap is 8
   (NSI_PHASE_TOUCHED_PREEMPT): 8 are re-simulated and 12 deferred; each
   deferred one keeps its three-flow mean until a restart ends and it is
   re-simulated (at most two more restarts of about W + 1 = 9 iterations
   each, W = 64 / 8), so its error against the unaccelerated run (W = 0)
   stays that of a partial restart. Measured: mean |JCT error| 2.46 %,
   worst 6.6 %; with the deferred ones never re-simulated (kept at the
   hub-era mean until they finish) 10.7 % / 23.0 %, which fails the 4 % /
   10 % tolerance asserted here. Under FIFO the cap is 32
   (NSI_PHASE_TOUCHED): with n = 40, 32 are re-simulated and 8 deferred
   (with n = 20 all 20 were, and nothing was deferred). Measured: 3.18 %
   mean, 16.1 % worst (3.89 % without the fill, net_phase.c); before the
   fill, never re-simulating the deferred ones 6.73 %, without the
   rate-touch 5.00 %, with the kept jobs loading no link 5.11 % (worst
   42 %): all fail the 4.5 % / 20 % asserted. The worst job (S39,
   at the chain's end) is the window's error, not the deferral's: the
   start restarts all 41 jobs at W = 1 (64 / 41), hence 20 %. */
static void test_phase_deferred_neighbours(void **state) {
  (void)state;
  const ns_sim_order order[2] = {NS_SIM_ORDER_2D_LAS, NS_SIM_ORDER_FIFO};
  const int cap[2] = {8, 32}, nstar[2] = {20, 40};
  const double mean_tol[2] = {0.04, 0.045}, worst_tol[2] = {0.10, 0.20};
  void (*add[2])(ns_sim *) = {add_star, add_star40};
  for (int v = 0; v < 2; v++) {
    int n = nstar[v];
    ns_sim_opts *o = opts_custom(place_star);
    assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, n + 1, 3, 0, 10.0), NS_OK);
    assert_int_equal(ns_sim_opts_set_order(o, order[v]), NS_OK);
    ns_sim *run[2];
    run_exact_and_windowed(o, add[v], run);
    assert_int_equal(run[1]->touch_cap, cap[v]);
    double ring = 2.0 * n / (n + 1.0) * 100.0; /* the hub's all-reduce alone, ms */
    double err = 0, sum = 0, worst = 0;
    for (int k = 0; k <= n; k++) {
      double c = k == 0 ? 100.0 : 100.0 + 25.0 * ((k - 1) % 3), it = k == 0 ? 60 : 1500;
      double lo = k == 0 ? c + ring : c + 100.0, hi = k == 0 ? c + 3 * ring : c + 300.0;
      for (int w = 0; w < 2; w++) {
        double x = ns_test_jct_ms(run[w], k);
        assert_true(x >= it * lo * (1 - 1e-9) && x <= it * hi * (1 + 1e-9));
      }
      double x = ns_test_jct_ms(run[0], k), y = ns_test_jct_ms(run[1], k);
      err += fabs(x - y), sum += x;
      worst = fabs(x - y) / x > worst ? fabs(x - y) / x : worst;
    }
    assert_true(err / sum <= mean_tol[v]);
    assert_true(worst <= worst_tol[v]);
    ns_sim_free(run[0]);
    ns_sim_free(run[1]);
    ns_sim_opts_free(o);
  }
}

/* Two GPUs, one on each of 2 servers of 40 GPUs: GPU g < 40 and g + 40. */
static int place_pair(const ns_cluster *c, const ns_job *job, ns_placement *out, void *user) {
  (void)user;
  ns_placement_clear(out);
  ns_placement_bind(out, c);
  for (int g = 0; g < 40 && ns_job_gpus(job) == 2; g++)
    if (ns_cluster_gpu_is_free(c, g) == 1 && ns_cluster_gpu_is_free(c, g + 40) == 1) {
      ns_placement_add_gpu(out, g);
      ns_placement_add_gpu(out, g + 40);
      return NS_OK;
    }
  return NS_ENOSPACE;
}

/* The bench's 40 2-GPU jobs P0..P39 at 0: 100 + 30 k iterations of 1 us
   compute, 125 MB (test_phase_partial_contention). */
static void add_pairs(ns_sim *s) {
  for (int k = 0; k < 40; k++) {
    char name[16];
    snprintf(name, sizeof name, "P%d", k);
    assert_int_equal(ns_sim_add_job(s, name, 0, 2, 100 + 30 * (uint64_t)k, 1e-3, 125000000ull, 0),
                     k);
  }
}

/* Partial restarts under a contention curve: the kept jobs count in a
   link's k (net_phase.c bg_caps). 1 leaf, 2 servers x 40 GPUs, 10 Gbps, the
   default curve, no latency. P0..P39 each hold one GPU of each server: all
   40 rings cross both NICs, one component of 40 (> 32: a change restarts
   at most 32 of it). Exact run, by hand: the jobs start together and are
   identical but for their iterations, so they stay in lock-step; with n of
   them left, all n transfer at once, each at 10 e(n) / n Gbps, so an
   iteration is 1e-3 + 100 n / e(n) ms (alone 125 MB at 10 Gbps is 100 ms),
   and P(k) leaves after 100 + 30 k iterations: P0 at 100 x (1e-3 + 4000 /
   e(16)) (e(40) = e(16) = 0.605: the curve is flat past 16) = 661,157.1
   ms, each next one 30 iterations of the n left later. Partial run: at P0's
   leave 32 of the 39 others are re-simulated against the 7 deferred ones'
   mean load. Counting the kept ones in k, the link delivers 10 e(39) and
   the 7 kept take 7 x their 40-job share, 10 e(16) / 40 each, so the 32
   get (6.05 - 1.059) / 32 = 0.1560 Gbps, 0.55 % over the exact 6.05 / 39
   = 0.1551: per job off by little, the link's total right. Not counting
   them, the 32 would get (10 - 1.059) x e(32) / 32 = 0.1690 Gbps, 9 %
   over, and the link would deliver more than it can until the deferred
   ones' turn. Measured: avg JCT -0.002 %, mean |job JCT error| 0.009 %;
   not counting the kept ones in k (bgk 0): +0.85 % / 1.07 %; with the
   kept ones loading no link at all -8.98 % / 9.02 %; the deferred ones
   never re-simulated -0.30 % / 0.32 %: all fail the 0.2 % asserted. (With
   20 jobs, as before, every leave re-simulated all 19 others: nothing was
   deferred at the cap of 32.) */
static void test_phase_partial_contention(void **state) {
  (void)state;
  ns_sim_opts *o = opts_custom(place_pair);
  assert_int_equal(ns_sim_opts_set_default_contention_curve(o), NS_OK);
  assert_int_equal(ns_sim_opts_set_allreduce_latency(o, 0.0), NS_OK);
  assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, 2, 40, 0, 10.0), NS_OK);
  ns_sim *run[2];
  run_exact_and_windowed(o, add_pairs, run);
  double t = 0, sx = 0, sy = 0, abs_err = 0;
  for (int k = 0; k < 40; k++) { /* the exact run by hand */
    int n = 40 - k;
    t += (k == 0 ? 100.0 : 30.0) * (1e-3 + 100.0 * n / ns_sim_opts_contention_factor(o, n));
    double x = ns_test_jct_ms(run[0], k), y = ns_test_jct_ms(run[1], k);
    assert_near(x, t, 1e-6 * t);
    sx += x, sy += y, abs_err += fabs(y - x) / x;
  }
  assert_near(ns_test_jct_ms(run[0], 0), 661157.1, 0.1);
  assert_true(fabs(sy - sx) / sx <= 0.002); /* avg JCT */
  assert_true(abs_err / 40 <= 0.002);       /* mean |job error| */
  ns_sim_free(run[0]);
  ns_sim_free(run[1]);
  ns_sim_opts_free(o);
}

/* Partial restarts under SRSF(1) admission (bench/RESULTS.md "srsf-1 on
   window 2: the mechanism"): SRSF(1) admits an all-reduce only while no
   other one is in flight on its links, so no link carries two transfers
   and the contention curve (e(1) = 1) cannot change an exact run. The
   chain of test_phase_partial_restart (20 jobs, each link shared by two
   neighbours: one component, partial restarts, kept jobs loading every
   link), with SRSF(1): exactly (W = 0) the JCTs are the same with the
   default curve and with the ideal one (==); with the shortcuts (W = 16)
   a kept neighbour's transfers queue behind the admission as well, they do
   not collide (net_phase.c bg_caps: past k = n the link delivers e(n)).
   What the curve can still do there is at a hand-over: members leave a
   fast-forward at their extrapolated positions, and two of them may both
   be mid-transfer on a link (a transfer in progress is not admitted
   again) until one ends, at most an iteration per hand-over, and a job
   hands over at every restart it takes part in: with the fill
   (net_phase.c) every change restarts the whole chain, some 20 times
   (the start and 19 leaves), so each JCT within 20 iterations (c + 300
   ms, both neighbours' all-reduces waited for) of the ideal curve's, the
   sum within 0.5 %. Measured: at most 11.1 iterations (job 4, 3.8 %), sum
   -0.11 %. Before the fill (only touched neighbours restarted): at most
   3.7 iterations (job 16, 0.64 %), sum -0.02 %; with a cap of 8, 452 ms
   (job 17, 0.17 %), +0.02 %. Charging the kept jobs' average in k
   (e(1 + bgk) < 1) made 19 of the 20 jobs late, by up to 6,919 ms (job
   2, 6.4 %), the sum by 1.2 % (measured before the fill). */
static void test_phase_srsf_kept_no_contention(void **state) {
  (void)state;
  ns_sim *run[2][2]; /* [curve: ideal, default][W = 0, 16] */
  for (int curve = 0; curve < 2; curve++) {
    ns_sim_opts *o = opts_custom(place_chain);
    assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, 21, 2, 0, 10.0), NS_OK);
    assert_int_equal(ns_sim_opts_set_admission(o, NS_SIM_ADMIT_SRSF, 1), NS_OK);
    if (curve)
      assert_int_equal(ns_sim_opts_set_default_contention_curve(o), NS_OK);
    run_exact_and_windowed(o, add_chain, run[curve]);
    ns_sim_opts_free(o);
  }
  double sx = 0, sy = 0;
  for (int k = 0; k < 20; k++) {
    double c = 100.0 + 25.0 * (k % 3), it = 300 + 37 * k;
    for (int w = 0; w < 2; w++) {
      double x = ns_test_jct_ms(run[0][w], k), y = ns_test_jct_ms(run[1][w], k);
      /* between alone and always waiting for both neighbours' all-reduces */
      assert_true(x >= it * (c + 100.0) * (1 - 1e-9) && x <= it * (c + 300.0) * (1 + 1e-9));
      if (w == 0)
        assert_true(y == x);
      else
        assert_true(fabs(y - x) <= 20 * (c + 300.0));
    }
    sx += ns_test_jct_ms(run[0][1], k), sy += ns_test_jct_ms(run[1][1], k);
  }
  assert_true(fabs(sy - sx) <= 5e-3 * sx);
  for (int curve = 0; curve < 2; curve++)
    for (int w = 0; w < 2; w++)
      ns_sim_free(run[curve][w]);
}

/* A job named "X@a,b" takes the first free GPU of server a and of server b
   (6 GPUs per server). */
static int place_named(const ns_cluster *c, const ns_job *job, ns_placement *out, void *user) {
  (void)user;
  ns_placement_clear(out);
  ns_placement_bind(out, c);
  const char *at = strchr(ns_job_name(job), '@');
  int srv[2];
  if (at == NULL || sscanf(at + 1, "%d,%d", &srv[0], &srv[1]) != 2 || ns_job_gpus(job) != 2)
    return NS_ENOSPACE;
  for (int i = 0; i < 2; i++) {
    int g = 6 * srv[i];
    while (g < 6 * srv[i] + 6 && ns_cluster_gpu_is_free(c, g) != 1)
      g++;
    if (g == 6 * srv[i] + 6)
      return NS_ENOSPACE;
    ns_placement_add_gpu(out, g);
  }
  return NS_OK;
}

/* The jobs of test_phase_kept_rate_touch: 2-GPU rings of 125 MB (100 ms
   alone at 10 Gbps), 1 us compute (each transfers all the time). */
static void add_rate_touch(ns_sim *s) {
  char name[32];
  int id = 0;
  for (int k = 0; k < 3; k++) { /* C1..C3 on the hub (server 0) and P1..P3 */
    snprintf(name, sizeof name, "C%d@0,%d", k + 1, 3 + k);
    assert_int_equal(ns_sim_add_job(s, name, 0, 2, 3000, 1e-3, 125000000ull, 0), id++);
  }
  for (int k = 0; k < 40; k++) { /* F1 on P1 (3) and 7, F2 on 7 and 8, ... */
    snprintf(name, sizeof name, "F%d@%d,%d", k + 1, k == 0 ? 3 : 6 + k, 7 + k);
    assert_int_equal(ns_sim_add_job(s, name, 0, 2, 3000, 1e-3, 125000000ull, 0), id++);
  }
  assert_int_equal(ns_sim_add_job(s, "A@0,1", 0, 2, 3000, 1e-3, 125000000ull, 0), id++);
  assert_int_equal(ns_sim_add_job(s, "B@1,2", 0, 2, 2000, 1e-3, 125000000ull, 0), id++);
  assert_int_equal(ns_sim_add_job(s, "E@48,49", 30000, 2, 10, 1e-3, 125000000ull, 0), id++);
  assert_int_equal(ns_sim_add_job(s, "C4@0,6", 60000, 2, 3000, 1e-3, 125000000ull, 0), id++);
  assert_int_equal(ns_sim_add_job(s, "D@48,49", 70000, 2, 10, 1e-3, 125000000ull, 0), id++);
}

/* A kept job whose link-mate is re-simulated at a new rate is re-measured
   (net_phase.c rate_touch). 1 leaf, 50 servers x 6 GPUs, 10 Gbps, ideal
   curve, no latency; every job transfers all the time (1 us compute), so
   the exact run is steady max-min. C1..C3 and A share the hub's NIC
   (server 0): 2.5 Gbps each. B shares server 1's NIC with A only and is
   alone on server 2's: it takes what A leaves, 7.5 Gbps, an iteration of
   1e-3 + 100 x 10 / 7.5 = 133.334 ms. F1..F40 chain from P1 (5 Gbps each)
   so that the component has 45 jobs (> 32: a change restarts at most 32
   of them; every job is kept at its window mean once the start's restart
   is over; ids: C1..C3 0-2, F1..F40 3-42, A 43, B 44). E (30-31 s) and D
   (from 70 s) run alone on servers 48-49: their starts are updates
   that touch nothing of the component. At 60 s C4 joins the hub: C1..C4
   and A get 2 Gbps, so B gets 8 (125.001 ms). Exactly (W = 0) B finishes at
   60,000 + (2000 - 60,000 / 133.334) x 125.001 = 253,752 ms. With the
   shortcuts C4's start touches the hub's links: C1..C3 and A are
   re-simulated (A held at 2 Gbps by the hub; B's kept 7.5 Gbps leave it 2.5
   on server 1) and leave at their new means ~6.5 s later; B, on none of the
   hub's links, is not touched. Without the rate-touch B keeps its 7.5 Gbps
   mean to its end: 60,000 + 1550 x 133.334 = 266,668 ms, +5.1 % (measured:
   266,668.7, on 40 F's as on 12). A's new mean rate-touches server 1's links; at the next
   update (D's start at 70 s: none is forced) B is re-simulated against A's
   kept 2 Gbps and gets 8 Gbps, so it ends late only by what its 10 s at 7.5
   cost: 10,000 x (1 - 125.001 / 133.334) = 625 ms, 0.25 % (measured:
   254,377.0). Asserted: within 1 %; with the kept jobs loading no link
   266,559.8, which fails too. E's start (30 s) takes the rate-touches
   left from the start's restart, which would otherwise have re-simulated B
   at C4's start already. */
static void test_phase_kept_rate_touch(void **state) {
  (void)state;
  ns_sim_opts *o = opts_custom(place_named);
  assert_int_equal(ns_sim_opts_set_allreduce_latency(o, 0.0), NS_OK);
  assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, 50, 6, 0, 10.0), NS_OK);
  ns_sim *run[2];
  run_exact_and_windowed(o, add_rate_touch, run);
  const int B = 44; /* C1..C3, F1..F40, A, then B */
  double exact = 60000.0 + (2000.0 - 60000.0 / (1e-3 + 1000.0 / 7.5)) * (1e-3 + 100.0 * 10.0 / 8.0);
  assert_near(ns_test_jct_ms(run[0], B), exact, 1e-3 * exact);
  assert_true(fabs(ns_test_jct_ms(run[1], B) - ns_test_jct_ms(run[0], B)) <= 0.01 * ns_test_jct_ms(run[0], B));
  ns_sim_free(run[0]);
  ns_sim_free(run[1]);
  ns_sim_opts_free(o);
}

/* CASSINI re-adjustment (CASSINI §4.2/§5.7) forced: A (100 ms compute) and
   B (200 ms compute) share both NICs, 100 ms all-reduces alone, periods 200
   and 300 ms. They cannot be interleaved whatever the shift: over the joint
   600 ms cycle A communicates on [100, 200) + [300, 400) + [500, 600) (duty
   0.5, period 200) and B's two windows [x, x + 100) and [x + 300, x + 400)
   meet it for |[x, x + 200) n A's windows| = 100 ms for every x (the second
   window is the first moved by 300 = 200 + 100, and A's pattern repeats
   every 200). So each joint cycle has 100 ms of colliding all-reduces; a
   collision at half rate makes one of them end late, and the late job's
   next all-reduce starts off its ideal schedule; lateness accumulates
   cycle after cycle until it exceeds the drift threshold, 5 % of the ideal
   iteration (10 or 15 ms): its next compute waits for its next ideal slot
   (a re-adjustment). With the threshold at 0 (never) no re-adjustment
   happens and the schedules differ. */
static void test_phase_cassini_readjust(void **state) {
  (void)state;
  skip_without_cassini();
  static const double jobs[2][4] = {{0, 200, 100.0, 125e6}, {0, 150, 200.0, 125e6}};
  ns_sim_opts *o = opts_custom(ns_test_place_spread);
  assert_int_equal(ns_sim_opts_set_cassini(o, 1, 10), NS_OK);
  assert_int_equal(ns_sim_opts_set_phase_window(o, 0), NS_OK); /* every all-reduce simulated */
  assert_int_equal(ns_sim_opts_set_cassini_drift(o, 0.05), NS_OK);
  ns_sim *on = run_jobs(o, 2, jobs);
  assert_int_equal(ns_sim_opts_set_cassini_drift(o, 0.0), NS_OK);
  ns_sim *off = run_jobs(o, 2, jobs);
  assert_true(on->cassini_readjusts > 0);
  assert_true(off->cassini_readjusts == 0);
  /* an observable effect: the re-adjusted run's schedule differs */
  assert_true(fabs(ns_test_jct_ms(on, 0) - ns_test_jct_ms(off, 0)) > 1.0 ||
              fabs(ns_test_jct_ms(on, 1) - ns_test_jct_ms(off, 1)) > 1.0);
  /* both between alone and fully colliding */
  for (int j = 0; j < 2; j++) {
    double c = jobs[j][2], it = jobs[j][1];
    assert_true(ns_test_jct_ms(on, j) >= it * (c + 100.0) - 1e-6);
    assert_true(ns_test_jct_ms(on, j) <= it * (c + 200.0) + 3 * (c + 100.0) + 300.0);
  }
  ns_sim_free(on);
  ns_sim_free(off);
  ns_sim_opts_free(o);
}

/* Fast-forward over CASSINI re-adjustments (bench/RESULTS.md "cassini-ff's
   fast-forward on window 2"): the pair of test_phase_cassini_readjust
   (periods 200 and 300 ms alone, never interleaved whatever the shift),
   3000 and 2000 iterations. Each drifted all-reduce re-adjusts the pair's
   shifts (rule READJUST), and each re-adjustment holds both jobs once; a
   job's n-th waits 10 x 2^n of its iterations, so they are dense at the
   start (A's at about 10, 30, 70 iterations: inside the pair's window of
   8 W = 128) and rare after. The window starts again at every applied
   shift (restart_window), so the mean a fast-forward extrapolates is of
   iterations without a hold, each within [c + 100, c + 200] ms: the
   documented bound, x 100 / (128 (c + 100)), plus one iteration at the
   hand-over and one for a hold the exact run makes after it, c + 200 each:
   A 700.5 s x 100 / (128 x 200) + 600 ms = 3.34 s. Measured: A 0.1 s (B
   0.1 s of 2.62); with the window kept across the shifts A's mean counted
   the early holds and A finished 3.92 s (0.56 %) late, past that bound. */
static void test_phase_readjust_window(void **state) {
  (void)state;
  skip_without_cassini();
  static const double jobs[2][4] = {{0, 3000, 100.0, 125e6}, {0, 2000, 200.0, 125e6}};
  ns_sim_opts *o = opts_custom(ns_test_place_spread);
  assert_int_equal(ns_sim_opts_set_cassini(o, 1, 10), NS_OK);
  assert_int_equal(ns_sim_opts_set_cassini_drift(o, 0.05), NS_OK);
  assert_int_equal(ns_sim_opts_set_phase_window(o, 0), NS_OK);
  ns_sim *exact = run_jobs(o, 2, jobs);
  assert_int_equal(ns_sim_opts_set_phase_window(o, 16), NS_OK);
  ns_sim *ff = run_jobs(o, 2, jobs);
  assert_true(exact->cassini_readjusts > 0 && ff->cassini_readjusts > 0);
  for (int j = 0; j < 2; j++) {
    double c = jobs[j][2], it = jobs[j][1];
    double x = ns_test_jct_ms(exact, j), y = ns_test_jct_ms(ff, j);
    /* the exact run: between alone and fully colliding */
    assert_true(x >= it * (c + 100.0) && x <= it * (c + 200.0));
    assert_true(fabs(y - x) <= x * 100.0 / (128 * (c + 100.0)) + 2 * (c + 200.0));
  }
  ns_sim_free(exact);
  ns_sim_free(ff);
  ns_sim_opts_free(o);
}

/* ---- queueing, fragmentation, percentiles --------------------------------- */

static void test_queueing_and_fragmentation(void **state) {
  (void)state;
  ns_sim_opts *o = opts_custom(place_ff);
  assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, 1, 4, 0, 10.0), NS_OK);
  ns_sim *s = ns_sim_new(o);
  /* 1-GPU jobs of 10 x 100 ms = 1 s; a 4-GPU job (no model) at t = 0 takes
     the whole server for 2 s; the 1-GPU jobs arriving at 0.5 s queue. */
  assert_int_equal(ns_sim_add_job(s, "big", 0, 4, 20, 100.0, 0, 0), 0);
  assert_int_equal(ns_sim_add_job(s, "s1", 500, 1, 10, 100.0, 0, 0), 1);
  assert_int_equal(ns_sim_add_job(s, "s2", 500, 1, 10, 100.0, 0, 0), 2);
  assert_int_equal(ns_sim_run(s), NS_OK);
  double a, st, f;
  assert_int_equal(ns_sim_job_result(s, 1, &a, &st, &f, NULL), NS_OK);
  assert_near(st, 2000.0, 1e-9);
  assert_near(f, 3000.0, 1e-9);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_AVG_QUEUE_MS), (0 + 1500 + 1500) / 3.0, 1e-9);
  /* nearest rank: p95 of {0, 1500, 1500} = 1500 */
  assert_near(ns_test_metric(s, NS_SIM_METRIC_P95_QUEUE_MS), 1500.0, 1e-9);
  /* JCTs {2000, 2500, 2500}: median = 2nd = 2500 */
  assert_near(ns_test_metric(s, NS_SIM_METRIC_MEDIAN_JCT_MS), 2500.0, 1e-9);
  /* Fragmentation: 0 idle of 4 for 2 s, then 2 idle of 4 for 1 s. */
  assert_near(ns_test_metric(s, NS_SIM_METRIC_FRAGMENTATION), (0 * 2 + 0.5 * 1) / 3.0, 1e-9);
  /* GPU-ms held: 4 x 2000 + 2 x 1000 */
  assert_near(ns_test_metric(s, NS_SIM_METRIC_GPU_MS_ALLOCATED), 10000.0, 1e-6);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* vClos on a fabric with fewer spines than GPUs per server (issue 28): 4
   leaves x 1 spine x 4 servers x 4 GPUs has no virtual Clos at all, so an
   8-GPU job runs only on one leaf with 2 idle servers. 16 four-GPU jobs at
   t = 0 fill the servers in order (Stage 0 best fit, ties to the lowest
   server); 100 ms iterations, no model bytes, ideal network: the first job
   of each leaf runs 1 s, the one on server 9 (leaf 2) 5 s, the rest 10 s.
   "big" (8 GPUs, 5 iterations) arrives at 2 s when every leaf has one idle
   server: it waits (it used to be dropped as never fitting: unfinished 1)
   and starts at 5 s on leaf 2's servers 8 and 9, finishing at 5.5 s. */
static void test_vclos_few_spines_waits(void **state) {
  (void)state;
  ns_sim_opts *o = ns_sim_opts_new();
  assert_int_equal(ns_sim_opts_set_policy_name(o, "vclos"), NS_OK);
  assert_int_equal(ns_sim_opts_set_network(o, NS_SIM_NET_IDEAL), NS_OK);
  assert_int_equal(ns_sim_opts_set_cluster(o, 4, 1, 4, 4, 1, 10.0), NS_OK);
  ns_sim *s = ns_sim_new(o);
  for (int k = 0; k < 16; k++) {
    uint64_t iters = k % 4 == 0 ? 10 : k == 9 ? 50 : 100;
    assert_int_equal(ns_sim_add_job(s, "one", 0, 4, iters, 100.0, 0, 0), k);
  }
  assert_int_equal(ns_sim_add_job(s, "big", 2000, 8, 5, 100.0, 0, 0), 16);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_UNFINISHED), 0.0, 0);
  double a, st, f;
  int servers = 0;
  assert_int_equal(ns_sim_job_result(s, 16, &a, &st, &f, &servers), NS_OK);
  assert_near(st, 5000.0, 1e-9);
  assert_near(f, 5500.0, 1e-9);
  assert_int_equal(servers, 2);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* ---- conservation and determinism on the default workload ----------------- */

static ns_sim *default_run(uint64_t seed) {
  ns_sim_opts *o = opts_custom(place_ff);
  assert_int_equal(ns_sim_opts_set_seed(o, seed), NS_OK);
  ns_sim *s = ns_sim_new(o);
  ns_sim_opts_free(o);
  assert_int_equal(ns_sim_load_default_workload(s), 160);
  assert_int_equal(ns_sim_run(s), NS_OK);
  return s;
}

static void test_default_workload_shape(void **state) {
  (void)state;
  ns_sim_opts *o = ns_sim_opts_new();
  ns_sim *s = ns_sim_new(o);
  assert_int_equal(ns_sim_load_default_workload(s), 160);
  int count[33] = {0};
  for (int i = 0; i < 160; i++)
    count[ns_sim_job_gpus(s, i)]++;
  /* AdaDUAL §V-A: 80 x 1, 14 x 2, 26 x 4, 30 x 8, 8 x 16, 2 x 32 */
  assert_int_equal(count[1], 80);
  assert_int_equal(count[2], 14);
  assert_int_equal(count[4], 26);
  assert_int_equal(count[8], 30);
  assert_int_equal(count[16], 8);
  assert_int_equal(count[32], 2);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

static void test_conservation(void **state) {
  (void)state;
  ns_sim *s = default_run(7);
  double held = 0;
  for (int i = 0; i < ns_sim_job_count(s); i++) {
    double a, st, f;
    int servers;
    assert_int_equal(ns_sim_job_result(s, i, &a, &st, &f, &servers), NS_OK);
    assert_true(isfinite(st) && isfinite(f)); /* finished exactly once */
    assert_true(a <= st && st < f);
    assert_true(servers >= 1);
    held += ns_sim_job_gpus(s, i) * (f - st);
  }
  assert_near(ns_test_metric(s, NS_SIM_METRIC_JOBS_DONE), 160, 0);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_UNFINISHED), 0, 0);
  /* GPU-seconds add up: the engine's integral equals the per-job sum */
  assert_near(ns_test_metric(s, NS_SIM_METRIC_GPU_MS_ALLOCATED), held, held * 1e-9);
  double util = ns_test_metric(s, NS_SIM_METRIC_GPU_UTIL);
  assert_true(util > 0 && util <= 1);
  double frag = ns_test_metric(s, NS_SIM_METRIC_FRAGMENTATION);
  assert_true(frag >= 0 && frag < 1);
  ns_sim_free(s);
}

static void test_determinism(void **state) {
  (void)state;
  ns_sim *a = default_run(3), *b = default_run(3), *c = default_run(4);
  for (int m = 0; m < NS_SIM_METRIC_COUNT; m++)
    assert_true(ns_test_metric(a, (ns_sim_metric_id)m) == ns_test_metric(b, (ns_sim_metric_id)m));
  assert_true(ns_test_metric(a, NS_SIM_METRIC_AVG_JCT_MS) != ns_test_metric(c, NS_SIM_METRIC_AVG_JCT_MS));
  /* rerunning the same handle gives the same results */
  double before = ns_test_metric(a, NS_SIM_METRIC_AVG_JCT_MS);
  assert_int_equal(ns_sim_run(a), NS_OK);
  assert_true(ns_test_metric(a, NS_SIM_METRIC_AVG_JCT_MS) == before);
  ns_sim_free(a), ns_sim_free(b), ns_sim_free(c);
}

/* ---- traces ---------------------------------------------------------------- */

static void test_tiresias_fixture(void **state) {
  (void)state;
  ns_sim_opts *o = opts_custom(place_ff);
  ns_sim *s = ns_sim_new(o);
  /* 5 rows; the 64-GPU row fits the default 64-GPU cluster */
  assert_int_equal(ns_sim_load_trace(s, "tests/fixtures/tiresias-small.csv", NS_SIM_TRACE_TIRESIAS), 5);
  assert_int_equal(ns_sim_job_gpus(s, 1), 8);
  assert_int_equal(ns_sim_run(s), NS_OK);
  double a;
  assert_int_equal(ns_sim_job_result(s, 2, &a, NULL, NULL, NULL), NS_OK);
  assert_near(a, 53000.0, 0); /* submit_time 53 s */
  /* job 0: vgg19, 1 GPU alone: its duration column, 164 s (sim.h, TRACE
     DURATIONS: no communication on one GPU, compute = 164 s / 606) */
  assert_near(ns_test_jct_ms(s, 0), 164000.0, 1e-6);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

static void test_trace_skips_large_jobs(void **state) {
  (void)state;
  ns_sim_opts *o = opts_custom(place_ff);
  assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, 4, 4, 0, 10.0), NS_OK); /* 16 GPUs */
  ns_sim *s = ns_sim_new(o);
  assert_int_equal(ns_sim_load_trace(s, "tests/fixtures/tiresias-small.csv", NS_SIM_TRACE_TIRESIAS), 4);
  assert_int_equal(ns_sim_skipped_count(s), 1);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_SKIPPED), 1, 0);
  assert_fails_with(ns_sim_add_job(s, "huge", 0, 17, 1, 1.0, 0, 0), NS_ENOSPACE, "huge");
  assert_int_equal(ns_sim_skipped_count(s), 2);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

static void test_philly_fixture(void **state) {
  (void)state;
  ns_sim_opts *o = opts_custom(place_ff);
  ns_sim *s = ns_sim_new(o);
  assert_int_equal(ns_sim_load_trace(s, "tests/fixtures/philly-small.csv", NS_SIM_TRACE_PHILLY), 3);
  double a0, a1, a2;
  assert_int_equal(ns_sim_run(s), NS_OK);
  ns_sim_job_result(s, 0, &a0, NULL, NULL, NULL);
  ns_sim_job_result(s, 1, &a1, NULL, NULL, NULL);
  ns_sim_job_result(s, 2, &a2, NULL, NULL, NULL);
  /* earliest timestamp 06:13:03 -> 0; 07:01:55 -> 2932 s; 06:13:36 -> 33 s */
  assert_near(a1, 0, 0);
  assert_near(a0, 2932000.0, 0);
  assert_near(a2, 33000.0, 0);
  assert_int_equal(ns_sim_job_gpus(s, 2), 4);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

static void test_malformed_rows(void **state) {
  (void)state;
  ns_sim_opts *o = ns_sim_opts_new();
  ns_sim *s = ns_sim_new(o);
  assert_fails_with(ns_sim_load_trace(s, "tests/fixtures/tiresias-bad-gpus.csv", NS_SIM_TRACE_TIRESIAS),
                    NS_EINVAL, "line 3");
  assert_non_null(strstr(ns_last_error(), "num_gpu"));
  assert_int_equal(ns_sim_job_count(s), 0); /* all or nothing */
  assert_fails_with(ns_sim_load_trace(s, "tests/fixtures/tiresias-bad-model.csv", NS_SIM_TRACE_TIRESIAS),
                    NS_EINVAL, "line 4");
  assert_non_null(strstr(ns_last_error(), "transformer"));
  assert_int_equal(ns_sim_job_count(s), 0);
  assert_fails_with(ns_sim_load_trace(s, "tests/fixtures/philly-bad-date.csv", NS_SIM_TRACE_PHILLY),
                    NS_EINVAL, "line 4");
  /* a duration beyond the 1e12 s limit (fuzz finding): the error names
     the loader, the row, the limit and the field as written, nothing is
     loaded */
  assert_fails_with(ns_sim_load_trace(s, "tests/fixtures/philly-huge-duration.csv",
                                      NS_SIM_TRACE_PHILLY),
                    NS_EINVAL, "ns_sim_load_trace: path 'tests/fixtures/philly-huge-duration.csv' line 3");
  assert_non_null(strstr(ns_last_error(), "(got '1e300')"));
  assert_non_null(strstr(ns_last_error(), "1e12"));
  assert_int_equal(ns_sim_job_count(s), 0);
  /* the wrong format: header check */
  assert_fails_with(ns_sim_load_trace(s, "tests/fixtures/philly-small.csv", NS_SIM_TRACE_TIRESIAS),
                    NS_EINVAL, "line 1");
  assert_fails_with(ns_sim_load_trace(s, "tests/fixtures/no-such-file.csv", NS_SIM_TRACE_PHILLY),
                    NS_EINVAL, "no-such-file");
  assert_fails_with(ns_sim_run(s), NS_EINVAL, "no jobs"); /* refused: nothing loaded */
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

static void test_shared_traces(void **state) {
  (void)state;
  const char *t60 = ns_test_data_path("traces/tiresias-60-jobs.csv");
  if (t60 == NULL) {
    printf("skipped: shared traces absent (set NS_DATA_DIR)\n");
    skip();
  }
  ns_sim_opts *o = opts_custom(place_ff);
  assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, 32, 4, 0, 10.0), NS_OK); /* n32g4 */
  ns_sim *s = ns_sim_new(o);
  assert_int_equal(ns_sim_load_trace(s, t60, NS_SIM_TRACE_TIRESIAS), 60);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_JOBS_DONE), 60, 0);
  ns_sim_free(s);
  const char *ph = ns_test_data_path("traces/philly-adaptdl.csv");
  assert_non_null(ph);
  s = ns_sim_new(o);
  int n = ns_sim_load_trace(s, ph, NS_SIM_TRACE_PHILLY);
  assert_true(n > 0);
  /* 82,248 non-empty lines = header + 82,247 jobs: every row read */
  assert_int_equal(n + ns_sim_skipped_count(s), 82247);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* ---- options and bad input -------------------------------------------------- */

static void test_policy_names(void **state) {
  (void)state;
  ns_sim_opts *o = ns_sim_opts_new();
  assert_fails_with(ns_sim_opts_set_policy_name(o, "lwf-9"), NS_EINVAL, "lwf-9");
  assert_non_null(strstr(ns_last_error(), "ff, ls, rand"));
  assert_non_null(strstr(ns_last_error(), "ada-srsf"));
  for (int i = 0; i < ns_sim_policy_count(); i++) {
    assert_int_equal(ns_sim_opts_set_policy_name(o, ns_sim_policy_name(i)), NS_OK);
    assert_string_equal(ns_sim_opts_policy_name(o), ns_sim_policy_name(i));
    assert_true(strlen(ns_sim_policy_description(i)) > 0);
  }
  assert_string_equal(ns_sim_policy_name(ns_sim_policy_count()), "");
  assert_int_equal(ns_sim_opts_set_kappa(o, 2), NS_OK);
  assert_string_equal(ns_sim_opts_policy_name(o), "custom");
  ns_sim_opts_free(o);
}

static void test_policy_error_aborts(void **state) {
  (void)state;
  ns_sim_opts *o = opts_custom(place_broken);
  ns_sim *s = ns_sim_new(o);
  assert_int_equal(ns_sim_add_job(s, "j", 0, 1, 1, 1.0, 0, 0), 0);
  assert_fails_with(ns_sim_run(s), NS_ESOLVER, "'j'");
  double v;
  assert_fails_with(ns_sim_metric(s, NS_SIM_METRIC_AVG_JCT_MS, &v), NS_ESTATE, "ns_sim_run");
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

static void test_csv_output(void **state) {
  (void)state;
  ns_sim_opts *o = opts_custom(place_ff);
  ns_sim *s = ns_sim_new(o);
  assert_int_equal(ns_sim_add_job(s, "a \"quoted\" name", 0, 1, 10, 100.0, 0, 0), 0);
  assert_int_equal(ns_sim_add_job(s, "b", 0, 2, 10, 100.0, 0, 0), 1);
  assert_fails_with(ns_sim_write_jobs_csv(s, "/tmp/x.csv"), NS_ESTATE, "ns_sim_run");
  assert_int_equal(ns_sim_run(s), NS_OK);
  char path[] = "/tmp/ns_sim_csv_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(ns_sim_write_jobs_csv(s, path), NS_OK);
  FILE *f = fopen(path, "r");
  char line[512];
  assert_non_null(fgets(line, sizeof line, f));
  assert_int_equal(strncmp(line, "job,name,gpus,iterations,arrival_ms", 35), 0);
  assert_non_null(fgets(line, sizeof line, f));
  assert_non_null(strstr(line, "\"a \"\"quoted\"\" name\",1,10,0.000,0.000,1000.000,1000.000"));
  /* model ("" for ns_sim_add_job), preemptions, wait_ms, iter_ms (10 x 100 ms in 1 s) */
  assert_non_null(strstr(line, ",\"\",0,0.000,100.000000\n"));
  assert_non_null(fgets(line, sizeof line, f));
  assert_null(fgets(line, sizeof line, f));
  fclose(f);
  remove(path);
  assert_fails_with(ns_sim_write_jobs_csv(s, "/nonexistent-dir/x.csv"), NS_EINVAL, "nonexistent-dir");
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* The embedded profiles are AdaDUAL's Table III: VGG-16 526.4 MB, fwd 35.8
   ms, bwd 53.7 ms, 4527 MB; ResNet-50 99.2 MB, 25.0 + 37.4 ms, 3213 MB. */
static void test_model_profiles(void **state) {
  (void)state;
  assert_int_equal(ns_sim_model_count(), 4);
  const char *name = NULL;
  uint64_t bytes = 0;
  double fwd = 0, bwd = 0, mem = 0;
  assert_int_equal(ns_sim_model_profile(NS_SIM_MODEL_VGG16, &name, &bytes, &fwd, &bwd, &mem), NS_OK);
  assert_string_equal(name, "vgg16");
  assert_true(bytes == 526400000ull);
  assert_near(fwd, 35.8, 1e-12);
  assert_near(bwd, 53.7, 1e-12);
  assert_near(mem, 4527, 0);
  assert_int_equal(ns_sim_model_profile(NS_SIM_MODEL_RESNET50, &name, NULL, &fwd, NULL, NULL), NS_OK);
  assert_string_equal(name, "resnet50");
  assert_near(fwd, 25.0, 1e-12);
  assert_fails_with(ns_sim_model_profile((ns_sim_model)4, &name, &bytes, NULL, NULL, NULL), NS_EINVAL,
                    "model");
  assert_string_equal(name, "resnet50"); /* nothing written on failure */
}

static void test_trace_ids_and_models(void **state) {
  (void)state;
  ns_sim_opts *o = opts_custom(place_ff);
  ns_sim *s = ns_sim_new(o);
  /* the trace's own job_id and model_name (as written: vgg19 runs on the
     VGG-16 profile) name the jobs, in results and in the CSV */
  assert_int_equal(ns_sim_load_trace(s, "tests/fixtures/tiresias-small.csv", NS_SIM_TRACE_AUTO), 5);
  assert_string_equal(ns_sim_job_name(s, 0), "0");
  assert_string_equal(ns_sim_job_name(s, 3), "3");
  assert_string_equal(ns_sim_job_model(s, 0), "vgg19");
  assert_string_equal(ns_sim_job_model(s, 2), "inception4");
  assert_string_equal(ns_sim_job_model(s, 5), ""); /* out of range */
  assert_int_equal(ns_sim_add_model_job(s, "extra", 0, 1, 10, NS_SIM_MODEL_RESNET50), 5);
  assert_string_equal(ns_sim_job_model(s, 5), "resnet50");
  assert_int_equal(ns_sim_add_job(s, "raw", 0, 1, 10, 5.0, 0, 0), 6);
  assert_string_equal(ns_sim_job_model(s, 6), "");
  ns_sim_free(s);
  /* Philly has no job_id: jobs are named by data row; models are drawn */
  s = ns_sim_new(o);
  assert_int_equal(ns_sim_load_trace(s, "tests/fixtures/philly-small.csv", NS_SIM_TRACE_AUTO), 3);
  assert_string_equal(ns_sim_job_name(s, 2), "philly2");
  const char *m = ns_sim_job_model(s, 0);
  assert_true(!strcmp(m, "vgg16") || !strcmp(m, "resnet50") || !strcmp(m, "inception3") ||
              !strcmp(m, "lstm-ptb"));
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

static void test_trace_header_errors(void **state) {
  (void)state;
  ns_sim_opts *o = ns_sim_opts_new();
  ns_sim *s = ns_sim_new(o);
  char path[64];
  /* "gpus" instead of "num_gpu": the message names the missing column */
  ns_test_temp_file(path, "job_id,gpus,submit_time,iterations,model_name\n1,2,0,10,vgg16\n");
  assert_fails_with(ns_sim_load_trace(s, path, NS_SIM_TRACE_TIRESIAS), NS_EINVAL,
                    "line 1: missing column num_gpu");
  assert_non_null(strstr(ns_last_error(), "(got 'job_id,gpus,submit_time,iterations,model_name')"));
  /* AUTO: 4 of Tiresias's 5 columns, none of Philly's: Tiresias, same message */
  assert_fails_with(ns_sim_load_trace(s, path, NS_SIM_TRACE_AUTO), NS_EINVAL,
                    "line 1: missing column num_gpu");
  remove(path);
  ns_test_temp_file(path, "a,b,c\n1,2,3\n");
  assert_fails_with(ns_sim_load_trace(s, path, NS_SIM_TRACE_AUTO), NS_EINVAL, "format not recognised");
  remove(path);
  /* a repeated job_id: both lines named, nothing loaded */
  ns_test_temp_file(path, "job_id,num_gpu,submit_time,iterations,model_name\n"
                   "a,1,0,10,vgg16\nb,1,0,10,vgg16\na,1,5,10,resnet50\n");
  assert_fails_with(ns_sim_load_trace(s, path, NS_SIM_TRACE_AUTO), NS_EINVAL,
                    "lines 2 and 4: job_id must be unique (got 'a' twice)");
  assert_int_equal(ns_sim_job_count(s), 0);
  remove(path);
  assert_fails_with(ns_sim_load_trace(s, "tests/fixtures/philly-small.csv", (ns_sim_trace_format)3),
                    NS_EINVAL, "format");
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

static void test_custom_model_profiles(void **state) {
  (void)state;
  ns_sim_opts *o = opts_custom(place_ff);
  ns_sim *s = ns_sim_new(o);
  char path[64];
  ns_test_temp_file(path, "job_id,num_gpu,submit_time,iterations,model_name\nj1,1,0,100,bert\n");
  /* unknown model: refused, and the message says how to add one */
  assert_fails_with(ns_sim_load_trace(s, path, NS_SIM_TRACE_AUTO), NS_EINVAL, "'bert'");
  assert_non_null(strstr(ns_last_error(), "ns_sim_add_model_profile"));
  assert_fails_with(ns_sim_add_model_profile(s, "bert", -1, 2, 0, 0), NS_EINVAL, "forward_ms");
  assert_fails_with(ns_sim_add_model_profile(s, "bert", 0, 0, 0, 0), NS_EINVAL, "forward_ms + backward_ms");
  assert_fails_with(ns_sim_add_model_profile(s, "", 1, 1, 0, 0), NS_EINVAL, "name");
  assert_int_equal(ns_sim_add_model_profile(s, "bert", 10, 20, 0, 1000), NS_OK);
  assert_int_equal(ns_sim_add_model_profile(s, "bert", 40, 60, 0, 1000), NS_OK); /* replaces */
  assert_int_equal(ns_sim_load_trace(s, path, NS_SIM_TRACE_AUTO), 1);
  assert_string_equal(ns_sim_job_model(s, 0), "bert");
  assert_int_equal(ns_sim_run(s), NS_OK);
  /* one GPU, no communication: JCT = 100 iterations x (40 + 60) ms = 10 s */
  assert_near(ns_test_jct_ms(s, 0), 10000.0, 1e-6);
  ns_sim_free(s);
  remove(path);
  ns_sim_opts_free(o);
}

/* ---- load scaling ------------------------------------------------------------- */

static double arrival(const ns_sim *s, int job) {
  double a, st, f;
  assert_int_equal(ns_sim_job_result(s, job, &a, &st, &f, NULL), NS_OK);
  return a;
}

/* Three 1-GPU jobs (10 iterations x 10 ms, no all-reduce: 100 ms alone on an
   empty 64-GPU cluster) arriving at 100, 300, 700 ms: gaps 200 and 400. Scale
   2: the first stays, gaps 400 and 800 -> 100, 500, 1300; then 0.25 of that:
   gaps 100 and 200 -> 100, 200, 400. Each runs 100 ms from its arrival. */
static void test_scale_arrivals(void **state) {
  (void)state;
  ns_sim_opts *o = ns_sim_opts_new();
  ns_sim *s = ns_sim_new(o);
  ns_sim_opts_free(o);
  assert_int_equal(ns_sim_scale_arrivals(s, 3.0), NS_OK); /* no jobs: nothing to do */
  static const double at[3] = {300, 100, 700};  /* not in arrival order */
  for (int i = 0; i < 3; i++)
    assert_int_equal(ns_sim_add_job(s, "j", at[i], 1, 10, 10.0, 0, 0), i);
  assert_int_equal(ns_sim_scale_arrivals(s, 2.0), NS_OK);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(arrival(s, 0), 500, 0);
  assert_near(arrival(s, 1), 100, 0);
  assert_near(arrival(s, 2), 1300, 0);
  assert_near(ns_test_jct_ms(s, 2), 100, 1e-9);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_MAKESPAN_MS), 1400 - 100, 1e-9);
  assert_int_equal(ns_sim_scale_arrivals(s, 0.25), NS_OK);
  double v;
  assert_fails_with(ns_sim_metric(s, NS_SIM_METRIC_AVG_JCT_MS, &v), NS_ESTATE, "ns_sim_run");
  assert_fails_with(ns_sim_scale_arrivals(s, 0), NS_EINVAL, "factor");
  assert_fails_with(ns_sim_scale_arrivals(s, -1), NS_EINVAL, "factor");
  assert_fails_with(ns_sim_scale_arrivals(s, NAN), NS_EINVAL, "factor");
  assert_fails_with(ns_sim_scale_arrivals(s, 1e307), NS_EINVAL, "overflow");
  assert_int_equal(ns_sim_run(s), NS_OK); /* the failures changed nothing */
  assert_near(arrival(s, 0), 200, 0);
  assert_near(arrival(s, 1), 100, 0);
  assert_near(arrival(s, 2), 400, 0);
  assert_near(ns_test_metric(s, NS_SIM_METRIC_MAKESPAN_MS), 500 - 100, 1e-9);
  ns_sim_free(s);
}

static void test_bad_arguments(void **state) {
  (void)state;
  ns_sim_opts *o = ns_sim_opts_new();
  ns_sim *s = ns_sim_new(o);
  assert_fails_with(ns_sim_add_job(s, "x", NAN, 1, 1, 1.0, 0, 0), NS_EINVAL, "arrival_ms");
  assert_fails_with(ns_sim_add_job(s, "x", 0, 0, 1, 1.0, 0, 0), NS_EINVAL, "gpus");
  assert_fails_with(ns_sim_add_job(s, "x", 0, 1, 0, 1.0, 0, 0), NS_EINVAL, "iterations");
  assert_fails_with(ns_sim_add_job(s, "x", 0, 1, 1, INFINITY, 0, 0), NS_EINVAL, "compute_ms");
  assert_fails_with(ns_sim_add_job(s, "x", 0, 1, 1, 1.0, 0, -1), NS_EINVAL, "mem_mb");
  assert_fails_with(ns_sim_add_job(s, "", 0, 1, 1, 1.0, 0, 0), NS_EINVAL, "name");
  assert_fails_with(ns_sim_add_model_job(s, "x", 0, 1, 1, (ns_sim_model)9), NS_EINVAL, "model");
  assert_fails_with(ns_sim_opts_set_cluster(o, 0, 1, 1, 1, 1, 10), NS_EINVAL, "leaves");
  assert_fails_with(ns_sim_opts_set_bandwidth(o, 10, 0), NS_EINVAL, "intra_gbps");
  assert_fails_with(ns_sim_opts_set_cassini(o, 1, 11), NS_EINVAL, "max_candidates");
  assert_fails_with(ns_sim_opts_set_admission(o, NS_SIM_ADMIT_SRSF, 0), NS_EINVAL, "n");
  assert_int_equal(ns_sim_job_count(s), 0);
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

/* ---- every preset on the same workload ------------------------------------ */

/* Each preset either runs to completion with the invariants intact, or (its
   module missing from this build) fails cleanly with NS_EUNSUPPORTED naming
   the policy. */
static void test_every_preset(void **state) {
  (void)state;
  for (int p = 0; p < ns_sim_policy_count(); p++) {
    ns_sim_opts *o = ns_sim_opts_new();
    assert_int_equal(ns_sim_opts_set_policy(o, (ns_sim_policy)p), NS_OK);
    ns_sim *s = ns_sim_new(o);
    assert_int_equal(ns_sim_load_default_workload(s), 160);
    int rc = ns_sim_run(s);
    if (rc == NS_EUNSUPPORTED) {
      assert_non_null(strstr(ns_last_error(), ns_sim_policy_name(p)));
      printf("  %-14s unavailable in this build\n", ns_sim_policy_name(p));
    } else {
      assert_int_equal(rc, NS_OK);
      double held = 0;
      for (int i = 0; i < 160; i++) {
        double a, st, f;
        assert_int_equal(ns_sim_job_result(s, i, &a, &st, &f, NULL), NS_OK);
        assert_true(isfinite(f) && a <= st && st < f);
        if (ns_sim_job_preemptions(s, i) == 0) /* a preempted job holds none while suspended */
          held += ns_sim_job_gpus(s, i) * (f - st);
      }
      /* vClos may round a job up (more GPUs held than asked): >= */
      assert_true(ns_test_metric(s, NS_SIM_METRIC_GPU_MS_ALLOCATED) >= held * (1 - 1e-9));
      assert_near(ns_test_metric(s, NS_SIM_METRIC_UNFINISHED), 0, 0);
      for (int m = 0; m < NS_SIM_METRIC_COUNT; m++)
        assert_true(isfinite(ns_test_metric(s, (ns_sim_metric_id)m)));
      /* a rerun on the same handle gives the same result (per-run state,
         such as the preemptive presets' queues, is rebuilt from scratch) */
      double jct0 = ns_test_metric(s, NS_SIM_METRIC_AVG_JCT_MS);
      assert_int_equal(ns_sim_run(s), NS_OK);
      assert_true(ns_test_metric(s, NS_SIM_METRIC_AVG_JCT_MS) == jct0);
    }
    ns_sim_free(s);
    ns_sim_opts_free(o);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_two_jobs_maxmin),
      cmocka_unit_test(test_trace_ids_and_models),
      cmocka_unit_test(test_model_profiles),
      cmocka_unit_test(test_trace_header_errors),
      cmocka_unit_test(test_custom_model_profiles),
      cmocka_unit_test(test_two_jobs_srsf1),
      cmocka_unit_test(test_two_jobs_contention),
      cmocka_unit_test(test_two_jobs_cassini),
      cmocka_unit_test(test_two_jobs_uplink),
      cmocka_unit_test(test_two_jobs_no_sharing),
      cmocka_unit_test(test_gpu_sharing),
      cmocka_unit_test(test_phase_lone_job),
      cmocka_unit_test(test_phase_lock_step),
      cmocka_unit_test(test_phase_interleaved),
      cmocka_unit_test(test_phase_drift),
      cmocka_unit_test(test_phase_srsf),
      cmocka_unit_test(test_phase_adadual_waits),
      cmocka_unit_test(test_phase_gpu_sharing_overlap),
      cmocka_unit_test(test_phase_lwf_remaining),
      cmocka_unit_test(test_phase_fast_forward),
      cmocka_unit_test(test_phase_fast_forward_leave),
      cmocka_unit_test(test_phase_window_pair),
      cmocka_unit_test(test_phase_partial_restart),
      cmocka_unit_test(test_phase_deferred_neighbours),
      cmocka_unit_test(test_phase_owner_stamps_wrap),
      cmocka_unit_test(test_phase_partial_contention),
      cmocka_unit_test(test_phase_srsf_kept_no_contention),
      cmocka_unit_test(test_phase_kept_rate_touch),
      cmocka_unit_test(test_phase_cassini_readjust),
      cmocka_unit_test(test_phase_readjust_window),
      cmocka_unit_test(test_queueing_and_fragmentation),
      cmocka_unit_test(test_vclos_few_spines_waits),
      cmocka_unit_test(test_default_workload_shape),
      cmocka_unit_test(test_conservation),
      cmocka_unit_test(test_determinism),
      cmocka_unit_test(test_tiresias_fixture),
      cmocka_unit_test(test_trace_skips_large_jobs),
      cmocka_unit_test(test_philly_fixture),
      cmocka_unit_test(test_malformed_rows),
      cmocka_unit_test(test_shared_traces),
      cmocka_unit_test(test_policy_names),
      cmocka_unit_test(test_policy_error_aborts),
      cmocka_unit_test(test_csv_output),
      cmocka_unit_test(test_bad_arguments),
      cmocka_unit_test(test_scale_arrivals),
      cmocka_unit_test(test_every_preset),
  };
  return cmocka_run_group_tests_name("sim", tests, NULL, NULL);
}
