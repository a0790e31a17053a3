/*
 * tests/fuzz/fuzz_vclos.c - vClos placement sequences (place, commit,
 * release, background load) on random leaf-spine fabrics, optionally with
 * an OCS layer.
 *
 * fuzz-requires: ns_vclos_place ns_vclos_route ns_vclos_opts_new ns_vclos_opts_set_solver
 *
 * Invariants (include/netsched/vclos.h, core.h, ALGORITHMS.md "vclos"):
 *  - deciding never mutates the cluster (public-API snapshot unchanged);
 *  - a placement holds >= the job's GPUs, distinct, in range, free; its
 *    leaf-spine links are in range and no (leaf, spine) pair is asked for
 *    more links than are free: no link is reserved twice; so committing it
 *    succeeds;
 *  - an independent count of reserved links per (leaf, spine) pair, kept
 *    from the placements committed and released, matches the cluster
 *    (without OCS: with it, placement links are OCS circuits, and only
 *    "every placement commits" and the routing checks apply);
 *  - a committed job that spans leaves has reserved links, and source
 *    routing between two of its GPUs on different leaves goes through a
 *    spine both leaves reach over the job's own links (isolation);
 *  - Stage 0: a job that fits in one server (N <= T) is placed whenever a
 *    server has N free GPUs;
 *  - failures are documented statuses with a message (NS_EINVAL only for a
 *    job that no shape of this fabric can hold, never for one that fits a
 *    server).
 */
#include "fuzz_util.h"

enum { MAXJOBS = 24, MAXLS = 8 * 8 };

typedef struct world {
  int L, S, SPL, GPS, K, ngpus;
  int reserved[MAXLS]; /* per (leaf, spine): links held by committed jobs */
  ns_job *job[MAXJOBS];
  int committed[MAXJOBS], njobs;
} world;

static void check_links(const ns_cluster *c, const world *w) {
  if (ns_cluster_ocs_count(c) > 0)
    return; /* OCS: placement links are circuits, not the physical links */
  for (int l = 0; l < w->L; l++)
    for (int s = 0; s < w->S; s++)
      FZ_CHECK(ns_cluster_free_links_between(c, l, s) == w->K - w->reserved[l * w->S + s],
               "pair (%d,%d): %d free, model %d", l, s, ns_cluster_free_links_between(c, l, s),
               w->K - w->reserved[l * w->S + s]);
}

static int max_free_on_a_server(const ns_cluster *c) {
  int best = 0;
  for (int s = 0; s < ns_cluster_server_count(c); s++)
    if (ns_cluster_free_gpus_on_server(c, s) > best)
      best = ns_cluster_free_gpus_on_server(c, s);
  return best;
}

/* Validates a fresh placement against the cluster; returns its per-pair
   link counts in `pairs`. */
static void check_placement(const ns_cluster *c, const world *w, const ns_job *job,
                            const ns_placement *p, int *pairs) {
  size_t n = ns_placement_gpu_count(p);
  FZ_CHECK(n >= (size_t)ns_job_gpus(job), "%zu GPUs for a job of %d", n, ns_job_gpus(job));
  unsigned char seen[8 * 4 * 8 * 2] = {0};
  for (size_t i = 0; i < n; i++) {
    int g = ns_placement_gpu(p, i);
    FZ_CHECK(g >= 0 && g < w->ngpus && !seen[g], "GPU %d (dup or out of range)", g);
    seen[g] = 1;
    FZ_CHECK(ns_cluster_gpu_is_free(c, g) == 1, "GPU %d is not free", g);
  }
  memset(pairs, 0, MAXLS * sizeof *pairs);
  int nl = ns_placement_link_count(p);
  FZ_CHECK(nl >= 0, "link count %d", nl);
  for (int i = 0; i < nl; i++) {
    int leaf = -1, spine = -1;
    FZ_CHECK(ns_placement_link(p, (size_t)i, &leaf, &spine) == NS_OK, "link %d", i);
    FZ_CHECK(leaf >= 0 && leaf < w->L && spine >= 0 && spine < w->S, "link (%d,%d)", leaf,
             spine);
    pairs[leaf * w->S + spine]++;
  }
  for (int i = 0; i < w->L * w->S && ns_cluster_ocs_count(c) == 0; i++)
    FZ_CHECK(pairs[i] <= ns_cluster_free_links_between(c, i / w->S, i % w->S),
             "pair (%d,%d): %d links wanted, %d free", i / w->S, i % w->S, pairs[i],
             ns_cluster_free_links_between(c, i / w->S, i % w->S));
  FZ_CHECK(ns_placement_virtual_leaves(p) >= 0 && ns_placement_virtual_spines(p) >= 0, "virt");
}

/* Cross-leaf routes of a committed job use its own links. */
static void check_routes(const ns_cluster *c, const world *w, const ns_job *job, fz *f) {
  ns_placement *p = ns_placement_new();
  FZ_CHECK(ns_cluster_job_placement(c, job, p) == NS_OK, "job placement");
  size_t n = ns_placement_gpu_count(p);
  int own[MAXLS] = {0}, nl = ns_placement_link_count(p), leaf0 = -1, spans = 0;
  for (int i = 0; i < nl; i++) {
    int l, s;
    ns_placement_link(p, (size_t)i, &l, &s);
    own[l * w->S + s] = 1;
  }
  for (size_t i = 0; i < n; i++) {
    int lf = ns_cluster_leaf_of_server(c, ns_cluster_server_of_gpu(c, ns_placement_gpu(p, i)));
    spans |= leaf0 >= 0 && lf != leaf0;
    leaf0 = leaf0 < 0 ? lf : leaf0;
  }
  if (spans)
    FZ_CHECK(nl > 0, "job spans leaves without reserved links");
  for (int tries = 0; tries < 4 && n > 1; tries++) {
    int a = ns_placement_gpu(p, (size_t)fz_range(f, 0, (long long)n - 1));
    int b = ns_placement_gpu(p, (size_t)fz_range(f, 0, (long long)n - 1));
    int la = ns_cluster_leaf_of_server(c, ns_cluster_server_of_gpu(c, a));
    int lb = ns_cluster_leaf_of_server(c, ns_cluster_server_of_gpu(c, b));
    if (la == lb)
      continue;
    int spine = -1, rc = ns_vclos_route(c, a, b, &spine);
    FZ_CHECK(rc == NS_OK && spine >= 0 && spine < w->S, "route %d->%d: rc %d spine %d", a, b, rc,
             spine);
    FZ_CHECK(own[la * w->S + spine] && own[lb * w->S + spine],
             "route %d->%d via spine %d leaves the job's links", a, b, spine);
  }
  ns_placement_free(p);
}

static void op_place(fz *f, ns_cluster *c, world *w, const ns_vclos_opts *o) {
  if (w->njobs == MAXJOBS)
    return;
  int N = (int)(fz_range(f, 0, 7) ? fz_range(f, 1, w->ngpus) : fz_range(f, 1, 2 * w->ngpus));
  ns_job *job = ns_job_new("vclos", N);
  w->job[w->njobs] = job;
  w->committed[w->njobs++] = 0;
  ns_placement *p = ns_placement_new();
  fz_snap before, after;
  FZ_CHECK(fz_snap_take(c, &before) == 0, "snapshot");
  int stage0 = N <= w->GPS && max_free_on_a_server(c) >= N;
  int rc = ns_vclos_place(c, job, o, p);
  FZ_CHECK(fz_snap_take(c, &after) == 0, "snapshot");
  fz_snap_expect_equal(&before, &after, "ns_vclos_place");
  fz_snap_free(&before);
  fz_snap_free(&after);
  if (rc != NS_OK) {
    /* vclos.h: EINVAL also for a job larger than the fabric or one no l x s
       shape fits even empty (never for one that fits a server); ERANGE when
       the exact search exceeds its node budget. */
    FZ_CHECK(rc == NS_ENOSPACE || rc == NS_ESOLVER || rc == NS_ENOMEM || rc == NS_ERANGE ||
                 (rc == NS_EINVAL && N > w->GPS),
             "place: status %d for %d GPUs", rc, N);
    FZ_CHECK_FAILURE(rc, "ns_vclos_place");
    FZ_CHECK(!stage0, "Stage 0: a server has %d free GPUs but a %d-GPU job got %d", N, N, rc);
    ns_placement_free(p);
    return;
  }
  int pairs[MAXLS];
  check_placement(c, w, job, p, pairs);
  if (fz_range(f, 0, 3) > 0) {
    rc = ns_cluster_commit(c, job, p);
    FZ_CHECK(rc == NS_OK, "commit of a vClos placement failed: %d", rc);
    w->committed[w->njobs - 1] = 1;
    for (int i = 0; i < w->L * w->S; i++)
      w->reserved[i] += pairs[i];
    check_routes(c, w, job, f);
  }
  ns_placement_free(p);
}

static void op_release(fz *f, ns_cluster *c, world *w) {
  if (w->njobs == 0)
    return;
  int j = (int)fz_range(f, 0, w->njobs - 1);
  if (!w->committed[j])
    return;
  ns_placement *p = ns_placement_new();
  FZ_CHECK(ns_cluster_job_placement(c, w->job[j], p) == NS_OK, "placement");
  for (int i = 0; i < ns_placement_link_count(p); i++) {
    int l, s;
    ns_placement_link(p, (size_t)i, &l, &s);
    w->reserved[l * w->S + s]--;
  }
  ns_placement_free(p);
  FZ_CHECK(ns_cluster_release(c, w->job[j]) == NS_OK, "release");
  w->committed[j] = 0;
}

static void op_background(fz *f, ns_cluster *c, world *w) {
  int g = (int)fz_range(f, 0, w->ngpus - 1);
  if (ns_cluster_gpu_is_free(c, g))
    FZ_CHECK(ns_cluster_occupy(c, &g, 1) == NS_OK, "occupy");
  else if (ns_cluster_gpu_job_count(c, g) == 0)
    FZ_CHECK(ns_cluster_vacate(c, &g, 1) == NS_OK, "vacate");
}

/* A build may carry link stubs for a module that has not landed (they
   return NS_EUNSUPPORTED / NULL): then there is nothing to fuzz. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  ns_vclos_opts *o = ns_vclos_opts_new();
  if (o == NULL) {
    printf("SKIP fuzz_vclos: ns_vclos_opts_new failed (%s)\n", ns_last_error());
    exit(0);
  }
  ns_vclos_opts_free(o);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const int gps[] = {1, 2, 4, 8};
  fz f = {data, size};
  world *w = calloc(1, sizeof *w);
  w->L = (int)fz_range(&f, 1, 8);
  w->S = (int)fz_range(&f, 1, 8);
  w->SPL = (int)fz_range(&f, 1, 4);
  w->GPS = gps[fz_range(&f, 0, 3)];
  w->K = (int)fz_range(&f, 1, 2);
  w->ngpus = w->L * w->SPL * w->GPS;
  ns_cluster *c = ns_cluster_new_leaf_spine(w->L, w->S, w->SPL, w->GPS, w->K, 100);
  ns_vclos_opts *o = ns_vclos_opts_new();
  FZ_CHECK(c && o, "setup");
  if (fz_range(&f, 0, 3) == 0) { /* OCS layer: any divisor of the uplinks */
    int up = w->S * w->K, n = (int)fz_range(&f, 1, up);
    FZ_CHECK(ns_cluster_enable_ocs(c, n) == (up % n ? NS_EINVAL : NS_OK), "ocs %d of %d", n, up);
  }
  /* The CBC path only on small fabrics: it is slower and must agree on
     feasibility with the same invariants. */
  int milp = w->L * w->S <= 8 && fz_range(&f, 0, 7) == 0;
  FZ_CHECK(ns_vclos_opts_set_solver(o, milp) == NS_OK, "solver");
  for (int steps = 0; !fz_done(&f) && steps < 48; steps++) {
    switch (fz_range(&f, 0, 4)) {
    case 0:
    case 1: op_place(&f, c, w, o); break;
    case 2:
    case 3: op_release(&f, c, w); break;
    default: op_background(&f, c, w);
    }
    check_links(c, w);
  }
  ns_vclos_opts_free(o);
  ns_cluster_free(c);
  for (int j = 0; j < w->njobs; j++)
    ns_job_free(w->job[j]);
  free(w);
  return 0;
}
