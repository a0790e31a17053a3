/*
 * tests/unit/test_sim_collective.c - how a job's all-reduce meets the
 * fabric in the phase model: a vClos placement's flows on its reserved
 * links or by ECMP (ns_sim_opts_set_vclos_routing). Every expected number
 * is derived by hand from the model in sim.h (ideal contention curve).
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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vclos_reserved_links_isolate),
      cmocka_unit_test(test_vclos_ecmp_routing_collides),
      cmocka_unit_test(test_vclos_routing_bad_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
