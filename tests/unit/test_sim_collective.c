/*
 * tests/unit/test_sim_collective.c - how a job's all-reduce meets the
 * fabric in the phase model: a vClos placement's flows on its reserved
 * links or by ECMP (ns_sim_opts_set_vclos_routing), and the all-reduce as
 * one ring transfer or as halving-doubling steps (ns_sim_opts_set_allreduce,
 * ns_sim_set_job_allreduce). Every expected number is derived by hand from
 * the model in sim.h (ideal contention curve unless a test sets one).
 */
#include "helpers/ns_test.h"
#include "sim/sim_internal.h" /* nsi_placement_add_link: a placement with reserved links */

/* ---- vClos routing: reserved links vs ECMP ------------------------------- */

/* 2 leaves x 1 server x 2 GPUs, 1 spine x 2 parallel links of 10 Gbps, one
   20 Gbps NIC per server. Job A gets GPUs {0, 2} and reserves parallel link
   0 of both leaves to the spine, job B GPUs {1, 3} and link 1: a
   placement in vClos's form (its GPUs and the links it reserved). */
static int place_reserved(const ns_cluster *c, const ns_job *job, ns_placement *out, void *user) {
  (void)user;
  ns_placement_clear(out);
  ns_placement_bind(out, c);
  int k = ns_cluster_gpu_is_free(c, 0) == 1 ? 0 : 1; /* A first, then B */
  if (ns_job_gpus(job) != 2 || ns_cluster_gpu_is_free(c, k) != 1)
    return NS_ENOSPACE;
  ns_placement_add_gpu(out, k);
  ns_placement_add_gpu(out, 2 + k);
  nsi_placement_add_link(out, 0, 0, k);
  nsi_placement_add_link(out, 1, 0, k);
  return NS_OK;
}

/* Both jobs: 100 iterations of 10 ms compute and a 12.5 MB all-reduce (2
   GPUs: the ring moves 2(2-1)/2 x M = 12.5 MB per GPU), arriving at 0, so
   they run in lock-step. Each server's NIC carries one flow of each job
   (2 x 10 Gbps fits 20 Gbps).
   - reserved: A's flows cross on parallel link 0, B's on link 1: each gets
     its own 10 Gbps uplink and downlink; 12.5 MB at 10 Gbps = 10 ms, an
     iteration 10 + 10 = 20 ms, JCT 100 x 20 = 2000 ms each.
   - ECMP: both jobs' flows go from server 0's port to server 1's (and
     back), the same port pair, so the hash sends them over the same spine
     and parallel link: 10 Gbps shared, 5 each, 20 ms of all-reduce, an
     iteration 30 ms, JCT 3000 ms each. Same placement, same reservations. */
static void run_reserved(ns_sim_vclos_routing routing, double want_jct) {
  ns_sim_opts *o = ns_sim_opts_new();
  assert_non_null(o);
  assert_int_equal(ns_sim_opts_set_place_fn(o, place_reserved, NULL), NS_OK);
  assert_int_equal(ns_sim_opts_set_contention_curve(o, NULL, NULL, 0), NS_OK);
  assert_int_equal(ns_sim_opts_set_cluster(o, 2, 1, 1, 2, 2, 10.0), NS_OK);
  assert_int_equal(ns_sim_opts_set_nics(o, 1, 20.0), NS_OK);
  assert_int_equal(ns_sim_opts_set_vclos_routing(o, routing), NS_OK);
  ns_sim *s = ns_sim_new(o);
  ns_sim_opts_free(o);
  assert_non_null(s);
  assert_int_equal(ns_sim_add_job(s, "A", 0, 2, 100, 10.0, 12500000ull, 0), 0);
  assert_int_equal(ns_sim_add_job(s, "B", 0, 2, 100, 10.0, 12500000ull, 0), 1);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(ns_test_jct_ms(s, 0), want_jct, 1e-6);
  assert_near(ns_test_jct_ms(s, 1), want_jct, 1e-6);
  ns_sim_free(s);
}

static void test_vclos_reserved_links_isolate(void **state) {
  (void)state;
  run_reserved(NS_SIM_VCLOS_RESERVED, 2000.0);
}

static void test_vclos_ecmp_routing_collides(void **state) {
  (void)state;
  run_reserved(NS_SIM_VCLOS_ECMP, 3000.0);
}

static void test_vclos_routing_bad_input(void **state) {
  (void)state;
  ns_sim_opts *o = ns_sim_opts_new();
  assert_fails_with(ns_sim_opts_set_vclos_routing(o, (ns_sim_vclos_routing)2), NS_EINVAL,
                    "routing");
  assert_fails_with(ns_sim_opts_set_vclos_routing(o, (ns_sim_vclos_routing)-1), NS_EINVAL,
                    "(got -1)");
  assert_fails_with(ns_sim_opts_set_vclos_routing(NULL, NS_SIM_VCLOS_ECMP), NS_EINVAL, "o");
  assert_int_equal(o->vclos_routing, NS_SIM_VCLOS_RESERVED); /* unchanged by the failures */
  ns_sim_opts_free(o);
}

/* ---- halving-doubling ----------------------------------------------------- */

static int place_ff(const ns_cluster *c, const ns_job *job, ns_placement *out, void *user) {
  (void)user;
  return ns_place_first_fit(c, job, out);
}

/* One leaf (no spines) of `servers` x `gps` GPUs, one 10 Gbps NIC per
   server, intra-server 100 Gbps, ideal curve; placement `fn`. */
static ns_sim *hd_sim(int servers, int gps, ns_sim_place_fn fn, ns_sim_allreduce algo) {
  ns_sim_opts *o = ns_sim_opts_new();
  assert_non_null(o);
  assert_int_equal(ns_sim_opts_set_place_fn(o, fn, NULL), NS_OK);
  assert_int_equal(ns_sim_opts_set_contention_curve(o, NULL, NULL, 0), NS_OK);
  assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, servers, gps, 0, 10.0), NS_OK);
  assert_int_equal(ns_sim_opts_set_allreduce(o, algo), NS_OK);
  ns_sim *s = ns_sim_new(o);
  ns_sim_opts_free(o);
  assert_non_null(s);
  return s;
}

/* 4 workers on 4 servers (1 GPU each, ranks 0-3 on servers 0-3), M = 100
   MB, compute 100 ms, 10 iterations. Halving-doubling (the library's
   collective): step 1 exchanges M/2 = 50 MB at distance 2 (0-2, 1-3): one
   flow out of and into each NIC, 50 MB at 10 Gbps = 40 ms; step 2 M/4 =
   25 MB at distance 1 (0-1, 2-3): 20 ms; the doubling steps mirror them,
   20 and 40 ms: 120 ms. The ring: 2(4-1)/4 x M = 150 MB at 10 Gbps = 120
   ms. Same bytes, same time: JCT 10 x 220 ms. */
static void test_hd_four_servers_equals_ring(void **state) {
  (void)state;
  for (int a = 0; a < 2; a++) {
    ns_sim *s = hd_sim(4, 1, place_ff, a ? NS_SIM_ALLREDUCE_HD : NS_SIM_ALLREDUCE_RING);
    assert_int_equal(ns_sim_add_job(s, "j", 0, 4, 10, 100.0, 100000000ull, 0), 0);
    assert_int_equal(ns_sim_run(s), NS_OK);
    assert_near(ns_test_jct_ms(s, 0), 2200.0, 1e-6);
    ns_sim_free(s);
  }
}

/* The same job on 2 servers x 2 GPUs (GPUs 0, 1 | 2, 3), one NIC each.
   Halving-doubling, ranks in the placement's order 0-3: step 1 (0-2, 1-3)
   sends two flows of M/2 = 50 MB through each NIC, 5 Gbps each: 80 ms;
   step 2 (0-1, 2-3) stays inside the servers, 25 MB at 100 Gbps = 2 ms;
   doubling 2 + 80 ms: 164 ms, JCT 10 x 264 = 2640 ms. The ring (0 1 2 3)
   crosses each NIC once (1->2, 3->0): 150 MB at 10 Gbps = 120 ms, JCT
   2200 ms. (With ranks 0 2 1 3, Titan's and vClos's halving-doubling
   order, step 1 would stay inside the servers: see the next test.) */
static void test_hd_vs_ring_two_servers(void **state) {
  (void)state;
  static const double want[2] = {2200.0, 2640.0};
  for (int a = 0; a < 2; a++) {
    ns_sim *s = hd_sim(2, 2, place_ff, a ? NS_SIM_ALLREDUCE_HD : NS_SIM_ALLREDUCE_RING);
    assert_int_equal(ns_sim_add_job(s, "j", 0, 4, 10, 100.0, 100000000ull, 0), 0);
    assert_int_equal(ns_sim_run(s), NS_OK);
    assert_near(ns_test_jct_ms(s, 0), want[a], 1e-6);
    ns_sim_free(s);
  }
}

/* GPUs 0, 2, 1, 3 in that order: ranks 0-3 on GPUs 0 2 1 3. */
static int place_interleaved(const ns_cluster *c, const ns_job *job, ns_placement *out,
                             void *user) {
  (void)user;
  static const int order[4] = {0, 2, 1, 3};
  ns_placement_clear(out);
  ns_placement_bind(out, c);
  if (ns_job_gpus(job) != 4 || ns_cluster_gpu_is_free(c, 0) != 1)
    return NS_ENOSPACE;
  for (int i = 0; i < 4; i++)
    ns_placement_add_gpu(out, order[i]);
  return NS_OK;
}

/* The placement's order is the ranks' (Titan, vClos: GPU i hosts worker i):
   the same GPUs as test_hd_vs_ring_two_servers listed 0 2 1 3. Step 1
   pairs ranks 0-2 (GPUs 0, 1) and 1-3 (GPUs 2, 3), inside the servers: 50
   MB at 100 Gbps = 4 ms; step 2 pairs ranks 0-1 (GPUs 0, 2) and 2-3 (GPUs
   1, 3), two flows through each NIC: 25 MB at 5 Gbps = 40 ms; doubling 40
   + 4 ms: 88 ms, JCT 10 x 188 = 1880 ms, against 2640 in ascending order.
   The ring keeps ascending order: 2200 ms. */
static void test_hd_placement_order_is_rank(void **state) {
  (void)state;
  static const double want[2] = {2200.0, 1880.0};
  for (int a = 0; a < 2; a++) {
    ns_sim *s = hd_sim(2, 2, place_interleaved, a ? NS_SIM_ALLREDUCE_HD : NS_SIM_ALLREDUCE_RING);
    assert_int_equal(ns_sim_add_job(s, "j", 0, 4, 10, 100.0, 100000000ull, 0), 0);
    assert_int_equal(ns_sim_run(s), NS_OK);
    assert_near(ns_test_jct_ms(s, 0), want[a], 1e-6);
    ns_sim_free(s);
  }
}

/* 3 workers on 3 servers (not a power of two: the fold). Rank 0 sends M
   = 100 MB to rank 1 (80 ms), ranks 1 and 2 exchange M/2 (40 ms) and M/2
   again (40 ms), rank 1 sends M back to rank 0 (80 ms): 240 ms, JCT 10 x
   340 = 3400 ms. The ring: 2(3-1)/3 x M = 133.3 MB, 106.67 ms, JCT
   2066.67 ms. */
static void test_hd_fold_three_workers(void **state) {
  (void)state;
  static const double want[2] = {10 * (100.0 + 320.0 / 3.0), 3400.0};
  for (int a = 0; a < 2; a++) {
    ns_sim *s = hd_sim(3, 1, place_ff, a ? NS_SIM_ALLREDUCE_HD : NS_SIM_ALLREDUCE_RING);
    assert_int_equal(ns_sim_add_job(s, "j", 0, 3, 10, 100.0, 100000000ull, 0), 0);
    assert_int_equal(ns_sim_run(s), NS_OK);
    assert_near(ns_test_jct_ms(s, 0), want[a], 1e-6);
    ns_sim_free(s);
  }
}

/* Steps share links with other jobs under the contention curve: 2 servers x
   2 GPUs, A (100 iterations) and B (50) of 2 GPUs each spread one GPU per
   server (A: 0, 2; B: 1, 3), both halving-doubling, compute
   100 ms, M = 125 MB; curve e(2) = 0.5. Each job's two steps move M/2 =
   62.5 MB each way; in lock-step both jobs' flows cross each NIC at once:
   10 x 0.5 = 5 Gbps shared, 2.5 each, 200 ms a step, an iteration 100 +
   400 = 500 ms. B ends at 50 x 500 = 25000 ms; A then runs alone, 62.5 MB
   at 10 Gbps = 50 ms a step: 50 x 200 ms more, 35000 ms. */
static void test_hd_steps_share_links_with_curve(void **state) {
  (void)state;
  ns_sim_opts *o = ns_sim_opts_new();
  static const double k[1] = {2}, e[1] = {0.5};
  assert_int_equal(ns_sim_opts_set_place_fn(o, ns_test_place_spread, NULL), NS_OK);
  assert_int_equal(ns_sim_opts_set_contention_curve(o, k, e, 1), NS_OK);
  assert_int_equal(ns_sim_opts_set_cluster(o, 1, 0, 2, 2, 0, 10.0), NS_OK);
  assert_int_equal(ns_sim_opts_set_allreduce(o, NS_SIM_ALLREDUCE_HD), NS_OK);
  ns_sim *s = ns_sim_new(o);
  ns_sim_opts_free(o);
  assert_int_equal(ns_sim_add_job(s, "A", 0, 2, 100, 100.0, 125000000ull, 0), 0);
  assert_int_equal(ns_sim_add_job(s, "B", 0, 2, 50, 100.0, 125000000ull, 0), 1);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(ns_test_jct_ms(s, 1), 25000.0, 1e-6);
  assert_near(ns_test_jct_ms(s, 0), 35000.0, 1e-6);
  ns_sim_free(s);
}

/* Per job: on 4 servers x 2 GPUs, A (GPUs 0-3) halving-doubling and B
   (GPUs 4-7) the options' ring, no shared link: each as alone in
   test_hd_vs_ring_two_servers, 2640 and 2200 ms. */
static void test_hd_per_job_mix(void **state) {
  (void)state;
  ns_sim *s = hd_sim(4, 2, place_ff, NS_SIM_ALLREDUCE_RING);
  assert_int_equal(ns_sim_add_job(s, "A", 0, 4, 10, 100.0, 100000000ull, 0), 0);
  assert_int_equal(ns_sim_add_job(s, "B", 0, 4, 10, 100.0, 100000000ull, 0), 1);
  assert_int_equal(ns_sim_set_job_allreduce(s, 0, NS_SIM_ALLREDUCE_HD), NS_OK);
  assert_int_equal(ns_sim_run(s), NS_OK);
  assert_near(ns_test_jct_ms(s, 0), 2640.0, 1e-6);
  assert_near(ns_test_jct_ms(s, 1), 2200.0, 1e-6);
  ns_sim_free(s);
}

static void test_hd_bad_input(void **state) {
  (void)state;
  ns_sim_opts *o = ns_sim_opts_new();
  assert_fails_with(ns_sim_opts_set_allreduce(o, (ns_sim_allreduce)2), NS_EINVAL,
                    "ns_sim_opts_set_allreduce: algorithm must be in [0, 1] (got 2)");
  assert_fails_with(ns_sim_opts_set_allreduce(NULL, NS_SIM_ALLREDUCE_HD), NS_EINVAL, "o");
  assert_int_equal(o->allreduce, NS_SIM_ALLREDUCE_RING);
  /* the fluid models run rings only: refused, not silently a ring */
  assert_int_equal(ns_sim_opts_set_network(o, NS_SIM_NET_MAXMIN), NS_OK);
  ns_sim *s = ns_sim_new(o);
  assert_int_equal(ns_sim_add_job(s, "j", 0, 4, 10, 100.0, 1000, 0), 0);
  assert_fails_with(ns_sim_set_job_allreduce(s, 1, NS_SIM_ALLREDUCE_HD), NS_EINVAL,
                    "job must be in [0, 0] (got 1)");
  assert_fails_with(ns_sim_set_job_allreduce(s, 0, (ns_sim_allreduce)-1), NS_EINVAL,
                    "algorithm must be in [0, 1] (got -1)");
  assert_int_equal(ns_sim_run(s), NS_OK); /* the failures left the ring */
  assert_int_equal(ns_sim_set_job_allreduce(s, 0, NS_SIM_ALLREDUCE_HD), NS_OK);
  assert_fails_with(ns_sim_run(s), NS_EINVAL, "phase network model only (network maxmin)");
  ns_sim_free(s);
  ns_sim_opts_free(o);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vclos_reserved_links_isolate),
      cmocka_unit_test(test_vclos_ecmp_routing_collides),
      cmocka_unit_test(test_vclos_routing_bad_input),
      cmocka_unit_test(test_hd_four_servers_equals_ring),
      cmocka_unit_test(test_hd_vs_ring_two_servers),
      cmocka_unit_test(test_hd_placement_order_is_rank),
      cmocka_unit_test(test_hd_fold_three_workers),
      cmocka_unit_test(test_hd_steps_share_links_with_curve),
      cmocka_unit_test(test_hd_per_job_mix),
      cmocka_unit_test(test_hd_bad_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
