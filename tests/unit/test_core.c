/*
 * tests/unit/test_core.c - jobs, links, placements, the cluster model and
 * commit/release (src/core).
 */
#include "helpers/ns_test.h"

#include <stdlib.h>

#include "core/internal.h"

/* ---- errors and version ------------------------------------------------ */

static void test_version(void **state) {
  (void)state;
  assert_string_equal(ns_version(), NS_VERSION_STRING);
  assert_int_equal(ns_version_number(),
                   NS_VERSION_MAJOR * 10000 + NS_VERSION_MINOR * 100 + NS_VERSION_PATCH);
}

static void test_strerror(void **state) {
  (void)state;
  assert_string_equal(ns_strerror(NS_OK), "success");
  assert_string_equal(ns_strerror(NS_ENOSPACE), "no feasible placement now");
  assert_string_equal(ns_strerror(NS_ELOOP), "affinity graph has a loop");
  assert_string_equal(ns_strerror(12345), "unknown status");
  for (int s = NS_EUNSUPPORTED; s <= NS_OK; s++)
    assert_true(strlen(ns_strerror(s)) > 0);
}

/* A failure can be re-worded with context by passing ns_last_error() to
   nsi_fail: the old message must survive intact inside the new one. */
static void test_fail_rewords_last_error(void **state) {
  (void)state;
  assert_int_equal(nsi_fail(NS_ENOSPACE, "ns_inner: GPU %d is taken", 7), NS_ENOSPACE);
  assert_int_equal(nsi_fail(NS_EINVAL, "ns_outer: line %d: %s", 3, ns_last_error()), NS_EINVAL);
  assert_string_equal(ns_last_error(), "ns_outer: line 3: ns_inner: GPU 7 is taken");
}

/* "Did you mean" (ns_closest_name): Levenshtein distance within a third of
   the name's length, at least 2 edits, 1 for names of 1-2 bytes; the first
   of equally close names. */
static void test_closest_name(void **state) {
  (void)state;
  static const char *const presets[] = {"ff", "fifo", "lwf-1", "srsf-1", "srsf-2", "2d-gittins"};
  assert_int_equal(ns_closest_name("fff", presets, 6), 0);        /* 1 insertion */
  assert_int_equal(ns_closest_name("lwf1", presets, 6), 2);       /* 1 deletion */
  assert_int_equal(ns_closest_name("srsf-3", presets, 6), 3);     /* 1 from both: the first */
  assert_int_equal(ns_closest_name("2d-gitins", presets, 6), 5);
  assert_int_equal(ns_closest_name("fifo", presets, 6), 1);       /* exact */
  assert_int_equal(ns_closest_name("nonsense", presets, 6), NS_ENOTFOUND);
  /* the limit: 9 bytes -> 3 edits, 6 bytes -> 2, 4 bytes -> 2, 2 bytes -> 1 */
  static const char *const long9[] = {"abcdefghi"}, *const six[] = {"abcdef"};
  assert_int_equal(ns_closest_name("abcdefXYZ", long9, 1), 0);
  assert_int_equal(ns_closest_name("abcdeWXYZ", long9, 1), NS_ENOTFOUND);
  assert_int_equal(ns_closest_name("abcdXY", six, 1), 0);
  assert_int_equal(ns_closest_name("abcXYZ", six, 1), NS_ENOTFOUND);
  static const char *const coll[] = {"ring", "hd", "tree"};
  assert_int_equal(ns_closest_name("rnig", coll, 3), 0); /* a swap is 2 edits */
  assert_int_equal(ns_closest_name("hx", coll, 3), 1);
  assert_int_equal(ns_closest_name("xy", coll, 3), NS_ENOTFOUND);
  assert_int_equal(ns_closest_name("h", coll, 3), 1);
  assert_int_equal(ns_closest_name("", coll, 3), NS_ENOTFOUND);
  char big[80];
  memset(big, 'r', sizeof big - 1), big[sizeof big - 1] = '\0';
  assert_int_equal(ns_closest_name(big, coll, 3), NS_ENOTFOUND);
  assert_int_equal(ns_closest_name("x", NULL, 0), NS_ENOTFOUND);
  /* "none close" is an answer: the caller's last error survives it */
  assert_int_equal(nsi_fail(NS_EINVAL, "ns_x: collective 'xy' is unknown"), NS_EINVAL);
  assert_int_equal(ns_closest_name("xy", coll, 3), NS_ENOTFOUND);
  assert_string_equal(ns_last_error(), "ns_x: collective 'xy' is unknown");
  assert_fails_with(ns_closest_name(NULL, coll, 3), NS_EINVAL, "ns_closest_name: name is NULL");
  assert_fails_with(ns_closest_name("x", coll, -1), NS_EINVAL, "n must be in [0, ");
  assert_fails_with(ns_closest_name("x", NULL, 2), NS_EINVAL, "names is NULL");
  static const char *const hole[] = {"ring", NULL};
  assert_fails_with(ns_closest_name("x", hole, 2), NS_EINVAL, "names[1] is NULL");
}

/* ---- the key -> index map ------------------------------------------------- */

/* Random puts, deletes (present and absent keys) and value changes against
   a plain array: after every operation each key 1..K maps to what the
   array says (SIZE_MAX = absent), and count is the number present. Keys
   are drawn from a small range so that probe clusters form and deletion
   has to move keys back across them (a tombstone-free deletion that stops
   too early loses keys; one that moves a key before its home slot makes it
   unreachable). */
static void test_ptrmap_put_del_oracle(void **state) {
  (void)state;
  enum { K = 200, OPS = 20000 };
  size_t want[K + 1];
  for (int k = 0; k <= K; k++)
    want[k] = SIZE_MAX;
  nsi_ptrmap m = {0};
  unsigned long long x = 12345;
  size_t present = 0;
  for (int op = 0; op < OPS; op++) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    uint64_t key = 1 + (x >> 33) % K;
    int what = (int)((x >> 20) % 3);
    if (what == 0 && want[key] == SIZE_MAX) {
      assert_int_equal(nsi_ptrmap_put(&m, key, (size_t)op), NS_OK);
      want[key] = (size_t)op, present++;
    } else if (what == 1) {
      nsi_ptrmap_del(&m, key);
      if (want[key] != SIZE_MAX)
        present--;
      want[key] = SIZE_MAX;
    } else if (what == 2) {
      size_t *v = nsi_ptrmap_ref(&m, key);
      assert_true((v == NULL) == (want[key] == SIZE_MAX));
      if (v != NULL)
        *v = want[key] = (size_t)op + OPS;
    }
    assert_int_equal(m.count, present);
    for (uint64_t k = 1; k <= K; k++)
      assert_int_equal(nsi_ptrmap_get(&m, k), want[k]);
  }
  nsi_ptrmap_free(&m);
}

/* ---- jobs --------------------------------------------------------------- */

static void test_job_defaults_and_setters(void **state) {
  (void)state;
  ns_job *j = ns_job_new("vgg16", 4);
  assert_non_null(j);
  assert_string_equal(ns_job_name(j), "vgg16");
  assert_int_equal(ns_job_gpus(j), 4);
  assert_int_equal(ns_job_collective(j), NS_COLL_RING);
  uint64_t total, done;
  assert_int_equal(ns_job_iterations(j, &total, &done), NS_OK);
  assert_int_equal(total, 1);
  assert_int_equal(done, 0);

  assert_int_equal(ns_job_set_iteration_ms(j, 255), NS_OK);
  assert_int_equal(ns_job_add_phase(j, 141, 0), NS_OK);
  assert_int_equal(ns_job_add_phase(j, 114, 50), NS_OK);
  assert_int_equal(ns_job_phase_count(j), 2);
  double d, g;
  assert_int_equal(ns_job_phase(j, 1, &d, &g), NS_OK);
  assert_near(d, 114, 0);
  assert_near(g, 50, 0);
  assert_int_equal(nsi_job_check_phases(j, "t"), NS_OK);

  assert_int_equal(ns_job_set_compute_ms(j, 35.8, 53.7), NS_OK);
  assert_int_equal(ns_job_set_iterations(j, 1000, 400), NS_OK);
  /* L_J = (fwd + bwd) * remaining iterations * |G| */
  assert_near(nsi_job_lwf_workload_ms(j), (35.8 + 53.7) * 600 * 4, 1e-6);
  assert_int_equal(ns_job_set_model_bytes(j, 526400000ULL), NS_OK);
  assert_int_equal(ns_job_model_bytes(j), 526400000ULL);
  assert_int_equal(ns_job_set_collective(j, NS_COLL_HALVING_DOUBLING), NS_OK);
  assert_int_equal(ns_job_collective(j), NS_COLL_HALVING_DOUBLING);
  ns_job_free(j);
}

static void test_job_phase_tiling_message(void **state) {
  (void)state;
  ns_job *j = ns_job_new("a", 1);
  assert_fails_with(nsi_job_check_phases(j, "ns_x"), NS_EINVAL, "no iteration time");
  ns_job_set_iteration_ms(j, 100);
  assert_fails_with(nsi_job_check_phases(j, "ns_x"), NS_EINVAL, "no phases");
  ns_job_add_phase(j, 50, 10);
  ns_job_add_phase(j, 40, 0);
  assert_fails_with(nsi_job_check_phases(j, "ns_x"), NS_EINVAL, "off by -10 ms");
  ns_job_add_phase(j, 10, 0);
  assert_int_equal(nsi_job_check_phases(j, "ns_x"), NS_OK);
  assert_int_equal(ns_job_clear_phases(j), NS_OK);
  assert_int_equal(ns_job_phase_count(j), 0);
  ns_job_free(j);
}

static void test_job_rejects_bad_values_unchanged(void **state) {
  (void)state;
  assert_null(ns_job_new("x", 0));
  assert_non_null(strstr(ns_last_error(), "gpus"));
  assert_null(ns_job_new(NULL, 1));
  assert_non_null(strstr(ns_last_error(), "name"));
  ns_job *j = ns_job_new("x", 1);
  ns_job_set_iteration_ms(j, 10);
  assert_fails_with(ns_job_set_iteration_ms(j, NAN), NS_EINVAL, "iteration_ms");
  assert_fails_with(ns_job_set_iteration_ms(j, -1), NS_EINVAL, "iteration_ms");
  assert_near(ns_job_iteration_ms(j), 10, 0);
  assert_fails_with(ns_job_add_phase(j, 0, 1), NS_EINVAL, "duration_ms");
  assert_fails_with(ns_job_add_phase(j, 1, INFINITY), NS_EINVAL, "gbps");
  assert_int_equal(ns_job_phase_count(j), 0);
  assert_fails_with(ns_job_set_iterations(j, 5, 6), NS_EINVAL, "completed");
  assert_fails_with(ns_job_set_collective(j, (ns_collective)7), NS_EINVAL, "c ");
  assert_fails_with(ns_job_set_gpu_memory_mb(j, -2), NS_EINVAL, "mb");
  ns_job_free(j);
  ns_job_free(NULL);
}

/* ---- links -------------------------------------------------------------- */

static void test_link_jobs(void **state) {
  (void)state;
  ns_link *l = ns_link_new("l0", 50);
  ns_job *a = ns_job_new("a", 1), *b = ns_job_new("b", 1);
  assert_int_equal(ns_link_add_job(l, a), NS_OK);
  assert_int_equal(ns_link_add_job(l, b), NS_OK);
  assert_fails_with(ns_link_add_job(l, a), NS_EINVAL, "already on link");
  assert_int_equal(ns_link_job_count(l), 2);
  assert_ptr_equal(ns_link_job(l, 1), b);
  assert_null(ns_link_job(l, 2));
  assert_near(ns_link_capacity_gbps(l), 50, 0);
  assert_string_equal(ns_link_name(l), "l0");
  assert_null(ns_link_new("bad", 0));
  assert_non_null(strstr(ns_last_error(), "capacity_gbps"));
  ns_link_free(l);
  ns_job_free(a);
  ns_job_free(b);
}

/* Many jobs on one link: the duplicate check switches to a hash set and
   must still catch a repeat anywhere in the list. */
static void test_link_many_jobs(void **state) {
  (void)state;
  enum { N = 5000 };
  ns_job **jobs = calloc(N, sizeof *jobs);
  ns_link *l = ns_link_new("big", 100);
  for (int i = 0; i < N; i++) {
    jobs[i] = ns_job_new("j", 1);
    assert_int_equal(ns_link_add_job(l, jobs[i]), NS_OK);
  }
  assert_int_equal(ns_link_job_count(l), N);
  assert_fails_with(ns_link_add_job(l, jobs[17]), NS_EINVAL, "already on link");
  assert_fails_with(ns_link_add_job(l, jobs[N - 1]), NS_EINVAL, "already on link");
  assert_int_equal(ns_link_job_count(l), N);
  ns_link_free(l);
  for (int i = 0; i < N; i++)
    ns_job_free(jobs[i]);
  free(jobs);
}

/* ---- cluster topology --------------------------------------------------- */

static void test_cluster_topology(void **state) {
  (void)state;
  /* 2 leaves x 3 servers x 4 GPUs, 2 spines x 2 parallel links */
  ns_cluster *c = ns_cluster_new_leaf_spine(2, 2, 3, 4, 2, 100);
  assert_non_null(c);
  assert_int_equal(ns_cluster_gpu_count(c), 24);
  assert_int_equal(ns_cluster_server_count(c), 6);
  assert_int_equal(ns_cluster_server_of_gpu(c, 13), 3);
  assert_int_equal(ns_cluster_leaf_of_server(c, 3), 1);
  assert_int_equal(ns_cluster_leaf_of_server(c, 2), 0);
  assert_int_equal(ns_cluster_free_gpus_on_server(c, 5), 4);
  assert_int_equal(ns_cluster_free_gpus_on_leaf(c, 1), 12);
  assert_int_equal(ns_cluster_idle_servers_on_leaf(c, 0), 3);
  assert_int_equal(ns_cluster_free_links_between(c, 1, 1), 2);
  assert_near(ns_cluster_gpu_memory_mb(c), 16384, 0);
  assert_fails_with(ns_cluster_server_of_gpu(c, 24), NS_EINVAL, "gpu");
  assert_fails_with(ns_cluster_leaf_of_server(c, -1), NS_EINVAL, "server");
  assert_fails_with(ns_cluster_free_links_between(c, 0, 2), NS_EINVAL, "spine");
  ns_cluster_free(c);

  ns_cluster *single = ns_cluster_new_leaf_spine(1, 0, 16, 4, 0, 10);
  assert_non_null(single);
  assert_int_equal(ns_cluster_gpu_count(single), 64);
  assert_fails_with(ns_cluster_free_links_between(single, 0, 0), NS_EINVAL, "no spines");
  assert_fails_with(ns_cluster_enable_ocs(single, 1), NS_EUNSUPPORTED, "no spines");
  ns_cluster_free(single);

  assert_null(ns_cluster_new_leaf_spine(0, 1, 1, 1, 1, 1));
  assert_non_null(strstr(ns_last_error(), "leaves"));
  assert_null(ns_cluster_new_leaf_spine(1, 1, 1, 1, 0, 1));
  assert_non_null(strstr(ns_last_error(), "links_per_pair"));
  assert_null(ns_cluster_new_leaf_spine(1, 1, 1, 1, 1, NAN));
  assert_non_null(strstr(ns_last_error(), "link_gbps"));
  assert_null(ns_cluster_new_leaf_spine(4096, 0, 4096, 8, 0, 1));
  assert_non_null(strstr(ns_last_error(), "exceeds"));
}

static void test_cluster_ocs(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(4, 4, 2, 2, 1, 100); /* 4 uplinks per leaf */
  assert_fails_with(ns_cluster_enable_ocs(c, 3), NS_EINVAL, "must divide");
  assert_int_equal(ns_cluster_ocs_count(c), 0);
  assert_int_equal(ns_cluster_free_links_between(c, 0, 0), 1);
  assert_int_equal(ns_cluster_enable_ocs(c, 2), NS_OK);
  assert_int_equal(ns_cluster_ocs_count(c), 2);
  /* static-link queries refuse to answer once links are OCS circuits */
  assert_fails_with(ns_cluster_free_links_between(c, 0, 0), NS_EUNSUPPORTED, "OCS");
  assert_fails_with(ns_cluster_link_is_reserved(c, 0, 0, 0), NS_EUNSUPPORTED, "OCS");
  ns_cluster_free(c);
}

static void test_distinct_groups(void **state) {
  (void)state;
  int ids[] = {13, 1, 3, 8, 12, 2}, out[6];
  /* servers of 4 GPUs each: 3, 0, 0, 2, 3, 0 -> {0, 2, 3} */
  assert_int_equal(nsi_distinct_groups(ids, 6, 4, out), 3);
  assert_int_equal(out[0], 0);
  assert_int_equal(out[1], 2);
  assert_int_equal(out[2], 3);
  assert_int_equal(nsi_distinct_groups(ids, 0, 4, out), 0);
  assert_int_equal(nsi_distinct_groups(ids, 6, 1, out), 6);
  assert_int_equal(out[5], 13);
}

/* ---- placements --------------------------------------------------------- */

static void test_placement_tier(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(2, 1, 2, 4, 1, 100);
  ns_placement *p = ns_placement_new();
  assert_fails_with(ns_placement_server_count(p), NS_ESTATE, "not bound");
  assert_true((int)ns_placement_tier(p) < 0);
  assert_int_equal(ns_placement_bind(p, c), NS_OK);
  assert_int_equal(ns_placement_tier(p), NS_TIER_MACHINE);
  ns_placement_add_gpu(p, 1);
  ns_placement_add_gpu(p, 3);
  assert_int_equal(ns_placement_server_count(p), 1);
  assert_int_equal(ns_placement_tier(p), NS_TIER_MACHINE);
  ns_placement_add_gpu(p, 4); /* server 1, leaf 0 */
  assert_int_equal(ns_placement_server_count(p), 2);
  assert_int_equal(ns_placement_tier(p), NS_TIER_RACK);
  ns_placement_add_gpu(p, 8); /* server 2, leaf 1 */
  assert_int_equal(ns_placement_server_count(p), 3);
  assert_int_equal(ns_placement_tier(p), NS_TIER_NETWORK);
  assert_int_equal(ns_placement_gpu(p, 2), 4);
  assert_fails_with(ns_placement_gpu(p, 4), NS_EINVAL, "out of range");
  assert_fails_with(ns_placement_add_gpu(p, -3), NS_EINVAL, "gpu");
  ns_placement_clear(p);
  assert_int_equal(ns_placement_gpu_count(p), 0);
  assert_int_equal(ns_placement_server_count(p), 0);
  ns_placement_free(p);
  ns_cluster_free(c);
}

/* ---- commit / release --------------------------------------------------- */

static ns_placement *placement_of(const int *gpus, size_t n) {
  ns_placement *p = ns_placement_new();
  for (size_t i = 0; i < n; i++)
    ns_placement_add_gpu(p, gpus[i]);
  return p;
}

/* ns_cluster_free_gpu_count is kept as GPUs change (no scan): at every step
   it equals the per-GPU count of ns_cluster_gpu_is_free, through commits
   that share a GPU, background load on and off, detach/reattach (the
   policies' trials) and failed calls. */
static int free_by_scan(const ns_cluster *c) {
  int n = 0;
  for (int g = 0; g < ns_cluster_gpu_count(c); g++)
    n += ns_cluster_gpu_is_free(c, g) == 1;
  return n;
}

static void test_commit_release_exclusive(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 2, 4, 0, 10);
  ns_job *a = ns_job_new("a", 2), *b = ns_job_new("b", 2);
  ns_job_set_compute_ms(a, 10, 20);
  ns_job_set_iterations(a, 100, 0); /* L_J = 30 * 100 * 2 = 6000 */
  int ga[] = {0, 1}, gb[] = {1, 2}, gbad[] = {2, 2}, gout[] = {2, 8};
  ns_placement *pa = placement_of(ga, 2), *pb = placement_of(gb, 2);
  ns_placement *pbad = placement_of(gbad, 2), *pout = placement_of(gout, 2);

  assert_int_equal(ns_cluster_commit(c, a, pa), NS_OK);
  assert_int_equal(ns_cluster_is_committed(c, a), 1);
  assert_int_equal(ns_cluster_free_gpus_on_server(c, 0), 2);
  assert_near(ns_cluster_gpu_workload_ms(c, 0), 6000, 1e-9);
  assert_near(ns_cluster_gpu_workload_ms(c, 2), 0, 0);
  assert_fails_with(ns_cluster_commit(c, a, pa), NS_ESTATE, "already committed");
  assert_fails_with(ns_cluster_commit(c, b, pb), NS_ENOSPACE, "GPU 1 is taken");
  assert_fails_with(ns_cluster_commit(c, b, pbad), NS_EINVAL, "twice");
  assert_fails_with(ns_cluster_commit(c, b, pout), NS_EINVAL, "out of range");
  /* failed commits left no trace */
  assert_int_equal(ns_cluster_job_count(c), 1);
  assert_int_equal(ns_cluster_gpu_is_free(c, 2), 1);
  assert_int_equal(ns_cluster_is_committed(c, b), 0);

  ns_placement *got = ns_placement_new();
  assert_int_equal(ns_cluster_job_placement(c, a, got), NS_OK);
  assert_int_equal(ns_placement_gpu_count(got), 2);
  assert_int_equal(ns_placement_gpu(got, 1), 1);
  assert_int_equal(ns_placement_tier(got), NS_TIER_MACHINE);

  assert_int_equal(ns_cluster_release(c, a), NS_OK);
  assert_fails_with(ns_cluster_release(c, a), NS_ENOTFOUND, "not committed");
  assert_int_equal(ns_cluster_free_gpu_count(c), 8);
  assert_int_equal(free_by_scan(c), 8);
  assert_near(ns_cluster_gpu_workload_ms(c, 0), 0, 0);
  assert_int_equal(ns_cluster_commit(c, b, pb), NS_OK);
  assert_int_equal(ns_cluster_free_gpu_count(c), 6);
  assert_int_equal(free_by_scan(c), 6);

  ns_placement_free(got);
  ns_placement_free(pa);
  ns_placement_free(pb);
  ns_placement_free(pbad);
  ns_placement_free(pout);
  ns_job_free(a);
  ns_job_free(b);
  ns_cluster_free(c);
}

static void test_commit_sharing_memory(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 1, 2, 0, 10);
  assert_int_equal(ns_cluster_set_gpu_memory_mb(c, 1000), NS_OK);
  assert_int_equal(ns_cluster_set_gpu_sharing(c, 1), NS_OK);
  ns_job *a = ns_job_new("a", 1), *b = ns_job_new("b", 1), *d = ns_job_new("d", 1);
  ns_job_set_gpu_memory_mb(a, 600);
  ns_job_set_gpu_memory_mb(b, 400);
  ns_job_set_gpu_memory_mb(d, 1);
  int g0[] = {0};
  ns_placement *p = placement_of(g0, 1);
  assert_int_equal(ns_cluster_commit(c, a, p), NS_OK);
  assert_int_equal(ns_cluster_commit(c, b, p), NS_OK); /* 600 + 400 = 1000 fits exactly */
  assert_int_equal(ns_cluster_gpu_job_count(c, 0), 2);
  assert_near(ns_cluster_gpu_free_memory_mb(c, 0), 0, 1e-9);
  assert_fails_with(ns_cluster_commit(c, d, p), NS_ENOSPACE, "MB free");
  assert_fails_with(ns_cluster_set_gpu_sharing(c, 0), NS_ESTATE, "committed");
  assert_int_equal(ns_cluster_release(c, a), NS_OK);
  assert_near(ns_cluster_gpu_free_memory_mb(c, 0), 600, 1e-9);
  assert_int_equal(ns_cluster_commit(c, d, p), NS_OK);
  ns_placement_free(p);
  ns_job_free(a);
  ns_job_free(b);
  ns_job_free(d);
  ns_cluster_free(c);
}

static void test_occupy_vacate(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 4, 4, 0, 10);
  int bg[] = {0, 1, 2, 3, 5};
  assert_int_equal(ns_cluster_occupy(c, bg, 5), NS_OK);
  assert_int_equal(ns_cluster_free_gpus_on_server(c, 0), 0);
  assert_int_equal(ns_cluster_free_gpus_on_server(c, 1), 3);
  assert_int_equal(ns_cluster_idle_servers_on_leaf(c, 0), 2);
  int again[] = {6, 5};
  assert_fails_with(ns_cluster_occupy(c, again, 2), NS_ENOSPACE, "GPU 5");
  assert_int_equal(ns_cluster_gpu_is_free(c, 6), 1); /* all or nothing */
  ns_job *j = ns_job_new("j", 1);
  int g5[] = {5};
  ns_placement *p = placement_of(g5, 1);
  assert_fails_with(ns_cluster_commit(c, j, p), NS_ENOSPACE, "taken");
  int v[] = {5, 6};
  assert_fails_with(ns_cluster_vacate(c, v, 2), NS_ESTATE, "GPU 6");
  assert_int_equal(ns_cluster_vacate(c, g5, 1), NS_OK);
  assert_int_equal(ns_cluster_commit(c, j, p), NS_OK);
  ns_placement_free(p);
  ns_job_free(j);
  ns_cluster_free(c);
}

static void test_free_count_kept(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 2, 4, 0, 10); /* 8 GPUs */
  assert_int_equal(ns_cluster_set_gpu_sharing(c, 1), NS_OK);
  ns_job *a = ns_job_new("a", 2), *b = ns_job_new("b", 2), *d = ns_job_new("d", 1);
  int ga[] = {0, 1}, gb[] = {1, 2}, bg[] = {4, 5}, gd[] = {4};
  ns_placement *pa = placement_of(ga, 2), *pb = placement_of(gb, 2), *pd = placement_of(gd, 1);
  assert_int_equal(ns_cluster_free_gpu_count(c), 8);
  assert_int_equal(free_by_scan(c), 8);
  assert_int_equal(ns_cluster_commit(c, a, pa), NS_OK); /* 0, 1 busy: 6 */
  assert_int_equal(ns_cluster_free_gpu_count(c), 6);
  assert_int_equal(free_by_scan(c), 6);
  assert_int_equal(ns_cluster_commit(c, b, pb), NS_OK); /* shares 1; 2 busy: 5 */
  assert_int_equal(ns_cluster_free_gpu_count(c), 5);
  assert_int_equal(free_by_scan(c), 5);
  assert_int_equal(ns_cluster_occupy(c, bg, 2), NS_OK); /* 4, 5: 3 */
  assert_int_equal(ns_cluster_free_gpu_count(c), 3);
  assert_int_equal(free_by_scan(c), 3);
  assert_fails_with(ns_cluster_commit(c, d, pd), NS_ENOSPACE, "");
  assert_fails_with(ns_cluster_occupy(c, gb, 2), NS_ENOSPACE, "GPU 1");
  assert_int_equal(ns_cluster_free_gpu_count(c), 3); /* failed calls: unchanged */
  assert_int_equal(free_by_scan(c), 3);
  nsi_commit held;
  long at = nsi_cluster_detach(c, a, &held); /* 0 free again, 1 still holds b: 4 */
  assert_true(at >= 0);
  assert_int_equal(ns_cluster_free_gpu_count(c), 4);
  assert_int_equal(free_by_scan(c), 4);
  nsi_cluster_reattach(c, &held, (size_t)at);
  assert_int_equal(ns_cluster_free_gpu_count(c), 3);
  assert_int_equal(free_by_scan(c), 3);
  assert_int_equal(ns_cluster_release(c, b), NS_OK); /* 2 free, 1 holds a: 4 */
  assert_int_equal(ns_cluster_free_gpu_count(c), 4);
  assert_int_equal(free_by_scan(c), 4);
  assert_int_equal(ns_cluster_vacate(c, bg, 2), NS_OK); /* 6 */
  assert_int_equal(ns_cluster_free_gpu_count(c), 6);
  assert_int_equal(free_by_scan(c), 6);
  assert_int_equal(ns_cluster_free_gpu_count(c), free_by_scan(c));
  assert_int_equal(ns_cluster_release(c, a), NS_OK);
  assert_int_equal(ns_cluster_free_gpu_count(c), 8);
  assert_int_equal(free_by_scan(c), 8);
  ns_placement_free(pa);
  ns_placement_free(pb);
  ns_placement_free(pd);
  ns_job_free(a);
  ns_job_free(b);
  ns_job_free(d);
  ns_cluster_free(c);
}

static void test_commit_links(void **state) {
  (void)state;
  ns_cluster *c = ns_cluster_new_leaf_spine(2, 2, 1, 2, 1, 100);
  ns_job *a = ns_job_new("a", 2), *b = ns_job_new("b", 2);
  int ga[] = {0, 2}, gb[] = {1, 3};
  ns_placement *pa = placement_of(ga, 2), *pb = placement_of(gb, 2);
  nsi_placement_add_link(pa, 0, 0, 0);
  nsi_placement_add_link(pa, 1, 0, 0);
  nsi_placement_add_link(pb, 0, 0, 0); /* conflicts with a */
  assert_int_equal(ns_cluster_commit(c, a, pa), NS_OK);
  assert_int_equal(ns_cluster_link_is_reserved(c, 1, 0, 0), 1);
  assert_int_equal(ns_cluster_free_links_between(c, 0, 0), 0);
  assert_int_equal(ns_cluster_free_links_between(c, 0, 1), 1);
  assert_fails_with(ns_cluster_commit(c, b, pb), NS_ENOSPACE, "already reserved");
  assert_int_equal(ns_cluster_gpu_is_free(c, 1), 1);
  /* 2 spines x 1 link per leaf; a holds (0,0) and (1,0) */
  assert_int_equal(nsi_leaf_free_uplinks(c, 0), 1);
  assert_int_equal(nsi_leaf_free_uplinks(c, 1), 1);
  assert_int_equal(ns_cluster_release(c, a), NS_OK);
  assert_int_equal(nsi_leaf_free_uplinks(c, 1), 2);
  assert_int_equal(ns_cluster_link_is_reserved(c, 1, 0, 0), 0);
  assert_int_equal(ns_cluster_commit(c, b, pb), NS_OK);
  ns_placement_free(pa);
  ns_placement_free(pb);
  ns_job_free(a);
  ns_job_free(b);
  ns_cluster_free(c);
}

/* Invariant under a random commit/release sequence: the per-GPU job count
   equals the number of committed placements that hold the GPU. */
static void test_random_commit_release_invariant(void **state) {
  (void)state;
  srand(7);
  ns_cluster *c = ns_cluster_new_leaf_spine(2, 0, 4, 4, 0, 10);
  enum { NJ = 12 };
  ns_job *jobs[NJ];
  ns_placement *ps[NJ];
  int committed[NJ] = {0};
  for (int i = 0; i < NJ; i++) {
    jobs[i] = ns_job_new("j", 1 + i % 3);
    ps[i] = ns_placement_new();
  }
  for (int step = 0; step < 2000; step++) {
    int i = rand() % NJ;
    if (committed[i]) {
      assert_int_equal(ns_cluster_release(c, jobs[i]), NS_OK);
      committed[i] = 0;
    } else {
      ns_placement_clear(ps[i]);
      for (int k = 0; k < ns_job_gpus(jobs[i]); k++)
        ns_placement_add_gpu(ps[i], rand() % 32);
      int rc = ns_cluster_commit(c, jobs[i], ps[i]);
      assert_true(rc == NS_OK || rc == NS_ENOSPACE || rc == NS_EINVAL);
      committed[i] = rc == NS_OK;
    }
    int count[32] = {0}, njobs = 0;
    for (int k = 0; k < NJ; k++)
      if (committed[k]) {
        njobs++;
        for (size_t g = 0; g < ns_placement_gpu_count(ps[k]); g++)
          count[ns_placement_gpu(ps[k], g)]++;
      }
    assert_int_equal(ns_cluster_job_count(c), njobs);
    for (int g = 0; g < 32; g++)
      assert_int_equal(ns_cluster_gpu_job_count(c, g), count[g]);
  }
  for (int i = 0; i < NJ; i++) {
    ns_job_free(jobs[i]);
    ns_placement_free(ps[i]);
  }
  ns_cluster_free(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_version),
      cmocka_unit_test(test_strerror),
      cmocka_unit_test(test_fail_rewords_last_error),
      cmocka_unit_test(test_closest_name),
      cmocka_unit_test(test_job_defaults_and_setters),
      cmocka_unit_test(test_job_phase_tiling_message),
      cmocka_unit_test(test_job_rejects_bad_values_unchanged),
      cmocka_unit_test(test_link_jobs),
      cmocka_unit_test(test_link_many_jobs),
      cmocka_unit_test(test_cluster_topology),
      cmocka_unit_test(test_cluster_ocs),
      cmocka_unit_test(test_distinct_groups),
      cmocka_unit_test(test_placement_tier),
      cmocka_unit_test(test_commit_release_exclusive),
      cmocka_unit_test(test_commit_sharing_memory),
      cmocka_unit_test(test_occupy_vacate),
      cmocka_unit_test(test_free_count_kept),
      cmocka_unit_test(test_commit_links),
      cmocka_unit_test(test_random_commit_release_invariant),
      cmocka_unit_test(test_ptrmap_put_del_oracle),
  };
  return cmocka_run_group_tests_name("core", tests, NULL, NULL);
}
