/*
 * tests/abi/test_misuse.c - misuse across modules, through the shared
 * library exactly as consumers see it: use after release, double commit and
 * release, a handle changed after commit, placements from another cluster
 * geometry, and huge sizes (1e6 jobs on one link, a 100 000-GPU cluster, a
 * 2^20-GPU job) that must get a documented status or a bounded-time answer,
 * never a crash or a hang (each TCase has a Check timeout; fork mode turns a
 * crash or a timeout into one failed test).
 *
 * Policy modules are referenced weakly (#pragma weak): a module that has not
 * landed in this build is reported with a SKIP line, and its checks start
 * running, unchanged, the day it lands. Every "unchanged" claim compares a
 * snapshot of the cluster's observable state taken through the public API.
 */
#include <limits.h>
#include <stdio.h>
#include <time.h>

#include "abi_test.h"

#pragma weak ns_lwf_place
#pragma weak ns_place_first_fit
#pragma weak ns_place_list_scheduling
#pragma weak ns_place_random
#pragma weak ns_titan_place
#pragma weak ns_titan_opts_new
#pragma weak ns_titan_opts_free
#pragma weak ns_vclos_place
#pragma weak ns_vclos_opts_new
#pragma weak ns_vclos_opts_free
#pragma weak ns_place_best_fit
#pragma weak ns_place_tiresias
#pragma weak ns_dally_offer
#pragma weak ns_delay_tuner_new
#pragma weak ns_delay_tuner_free
#pragma weak ns_cassini_score
#pragma weak ns_cassini_opts_new
#pragma weak ns_cassini_opts_free

/* ---- snapshots of a cluster (public API only) ------------------------------ */

typedef struct snap {
  int ngpus, njobs, nfree, npairs;
  int *jobs_on, *is_free, *free_links;
  double *free_mem, *workload;
} snap;

static snap *snap_take(const ns_cluster *c) {
  snap *s = calloc(1, sizeof *s);
  s->ngpus = ns_cluster_gpu_count(c);
  s->njobs = ns_cluster_job_count(c);
  s->nfree = ns_cluster_free_gpu_count(c);
  int L = ns_cluster_leaf_count(c), S = ns_cluster_spine_count(c);
  s->npairs = L * S;
  s->jobs_on = calloc((size_t)s->ngpus, sizeof(int));
  s->is_free = calloc((size_t)s->ngpus, sizeof(int));
  s->free_mem = calloc((size_t)s->ngpus, sizeof(double));
  s->workload = calloc((size_t)s->ngpus, sizeof(double));
  s->free_links = calloc((size_t)s->npairs + 1, sizeof(int));
  for (int g = 0; g < s->ngpus; g++) {
    s->jobs_on[g] = ns_cluster_gpu_job_count(c, g);
    s->is_free[g] = ns_cluster_gpu_is_free(c, g);
    s->free_mem[g] = ns_cluster_gpu_free_memory_mb(c, g);
    s->workload[g] = ns_cluster_gpu_workload_ms(c, g);
  }
  for (int i = 0; i < s->npairs; i++)
    s->free_links[i] = ns_cluster_free_links_between(c, i / S, i % S);
  return s;
}

static void snap_free(snap *s) {
  free(s->jobs_on);
  free(s->is_free);
  free(s->free_mem);
  free(s->workload);
  free(s->free_links);
  free(s);
}

/* The cluster still matches `s` bit for bit. */
static void ck_assert_unchanged(const ns_cluster *c, const snap *s, const char *after) {
  snap *t = snap_take(c);
  ck_assert_msg(t->ngpus == s->ngpus && t->njobs == s->njobs && t->nfree == s->nfree,
                "after %s: jobs %d->%d, free GPUs %d->%d", after, s->njobs, t->njobs, s->nfree,
                t->nfree);
  for (int g = 0; g < s->ngpus; g++)
    ck_assert_msg(t->jobs_on[g] == s->jobs_on[g] && t->is_free[g] == s->is_free[g] &&
                      memcmp(&t->free_mem[g], &s->free_mem[g], sizeof(double)) == 0 &&
                      memcmp(&t->workload[g], &s->workload[g], sizeof(double)) == 0,
                  "after %s: GPU %d changed", after, g);
  for (int i = 0; i < s->npairs; i++)
    ck_assert_msg(t->free_links[i] == s->free_links[i], "after %s: links of pair %d", after, i);
  snap_free(t);
}

static ns_placement *placement_of(const int *gpus, int n, const ns_cluster *bind_to) {
  ns_placement *p = ns_placement_new();
  for (int i = 0; i < n; i++)
    ck_assert_int_eq(ns_placement_add_gpu(p, gpus[i]), NS_OK);
  if (bind_to)
    ck_assert_int_eq(ns_placement_bind(p, bind_to), NS_OK);
  return p;
}

static ns_job *job_with_load(const char *name, int gpus, double mem_mb) {
  ns_job *j = ns_job_new(name, gpus);
  ck_assert_ptr_nonnull(j);
  ck_assert_int_eq(ns_job_set_gpu_memory_mb(j, mem_mb), NS_OK);
  ck_assert_int_eq(ns_job_set_compute_ms(j, 10, 20), NS_OK);
  ck_assert_int_eq(ns_job_set_iterations(j, 100, 40), NS_OK);
  ck_assert_int_eq(ns_job_set_model_bytes(j, 100000000), NS_OK); /* 100 MB all-reduce */
  return j;
}

/* ---- lifecycle: use after release, double commit / release ------------------ */

START_TEST(test_use_after_release) {
  ns_cluster *c = ns_cluster_new_leaf_spine(2, 2, 2, 4, 1, 100);
  snap *empty = snap_take(c);
  ns_job *a = job_with_load("a", 4, 1000), *b = job_with_load("b", 4, 2000);
  int g[] = {0, 1, 2, 3};
  ns_placement *p = placement_of(g, 4, c);
  ck_assert_int_eq(ns_cluster_commit(c, a, p), NS_OK);
  ck_assert_int_eq(ns_cluster_release(c, a), NS_OK);
  ck_assert_unchanged(c, empty, "commit + release"); /* memory, workload back exactly */

  ns_placement *out = ns_placement_new();
  ck_assert_fails(ns_cluster_release(c, a), NS_ENOTFOUND, "ns_cluster_release");
  ck_assert_fails(ns_cluster_job_placement(c, a, out), NS_ENOTFOUND, "ns_cluster_job_placement");
  ck_assert_int_eq(ns_cluster_is_committed(c, a), 0);
  ck_assert_unchanged(c, empty, "release of a released job");
  /* The GPUs it held are reusable, by another job or by the same one. */
  ck_assert_int_eq(ns_cluster_commit(c, b, p), NS_OK);
  ck_assert_int_eq(ns_cluster_release(c, b), NS_OK);
  ck_assert_int_eq(ns_cluster_commit(c, a, p), NS_OK);
  ck_assert_int_eq(ns_cluster_job_placement(c, a, out), NS_OK);
  ck_assert_uint_eq(ns_placement_gpu_count(out), 4);
  ck_assert_int_eq(ns_cluster_release(c, a), NS_OK);
  ck_assert_unchanged(c, empty, "second round");
  snap_free(empty);
  ns_placement_free(p);
  ns_placement_free(out);
  ns_job_free(a);
  ns_job_free(b);
  ns_cluster_free(c);
}
END_TEST

START_TEST(test_double_commit_and_release_change_nothing) {
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 2, 4, 0, 100);
  ns_job *a = job_with_load("a", 2, 100);
  int g1[] = {0, 1}, g2[] = {4, 5};
  ns_placement *p1 = placement_of(g1, 2, c), *p2 = placement_of(g2, 2, c);
  ck_assert_int_eq(ns_cluster_commit(c, a, p1), NS_OK);
  snap *s = snap_take(c);
  ck_assert_fails(ns_cluster_commit(c, a, p1), NS_ESTATE, "ns_cluster_commit");
  ck_assert_unchanged(c, s, "double commit, same placement");
  ck_assert_fails(ns_cluster_commit(c, a, p2), NS_ESTATE, "already committed");
  ck_assert_unchanged(c, s, "double commit, other placement");
  ck_assert_int_eq(ns_cluster_release(c, a), NS_OK);
  snap_free(s);
  s = snap_take(c);
  ck_assert_fails(ns_cluster_release(c, a), NS_ENOTFOUND, "ns_cluster_release");
  ck_assert_unchanged(c, s, "double release");
  snap_free(s);
  ns_placement_free(p1);
  ns_placement_free(p2);
  ns_job_free(a);
  ns_cluster_free(c);
}
END_TEST

/* Release undoes what commit did even if the caller changed the job (memory,
   compute, progress) or freed the placement in between: the cluster keeps
   its own copy (core.h, ns_cluster_commit). */
START_TEST(test_job_changed_after_commit) {
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 1, 8, 0, 100);
  ck_assert_int_eq(ns_cluster_set_gpu_sharing(c, 1), NS_OK);
  snap *empty = snap_take(c);
  ns_job *a = job_with_load("a", 2, 3000), *b = job_with_load("b", 2, 5000);
  int g[] = {2, 3};
  ns_placement *p = placement_of(g, 2, c);
  ck_assert_int_eq(ns_cluster_commit(c, a, p), NS_OK);
  ck_assert_int_eq(ns_cluster_commit(c, b, p), NS_OK); /* sharing: same GPUs */
  ns_placement_free(p);
  ck_assert_int_eq(ns_job_set_gpu_memory_mb(a, 9999), NS_OK);
  ck_assert_int_eq(ns_job_set_compute_ms(a, 1e6, 1e6), NS_OK);
  ck_assert_int_eq(ns_job_set_iterations(a, 1, 0), NS_OK);
  ck_assert_int_eq(ns_job_set_iterations(b, 7, 7), NS_OK);
  ck_assert_int_eq(ns_cluster_release(c, a), NS_OK);
  /* b alone: 16384 - 5000 MB free, workload (10+20)*60*2 per GPU */
  ck_assert_double_eq_tol(ns_cluster_gpu_free_memory_mb(c, 2), 16384 - 5000, 1e-9);
  ck_assert_double_eq_tol(ns_cluster_gpu_workload_ms(c, 3), 30.0 * 60 * 2, 1e-9);
  ck_assert_int_eq(ns_cluster_release(c, b), NS_OK);
  ck_assert_unchanged(c, empty, "releases after the jobs changed");
  snap_free(empty);
  ns_job_free(a);
  ns_job_free(b);
  ns_cluster_free(c);
}
END_TEST

/* Commits released out of order keep the others intact. */
START_TEST(test_release_out_of_order) {
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 4, 2, 0, 100);
  ns_job *j[4];
  ns_placement *out = ns_placement_new();
  for (int i = 0; i < 4; i++) {
    int g[] = {2 * i, 2 * i + 1};
    j[i] = job_with_load("j", 2, 0);
    ns_placement *p = placement_of(g, 2, c);
    ck_assert_int_eq(ns_cluster_commit(c, j[i], p), NS_OK);
    ns_placement_free(p);
  }
  ck_assert_int_eq(ns_cluster_release(c, j[1]), NS_OK);
  ck_assert_int_eq(ns_cluster_release(c, j[0]), NS_OK);
  for (int i = 2; i < 4; i++) {
    ck_assert_int_eq(ns_cluster_is_committed(c, j[i]), 1);
    ck_assert_int_eq(ns_cluster_job_placement(c, j[i], out), NS_OK);
    ck_assert_int_eq(ns_placement_gpu(out, 0), 2 * i);
    ck_assert_int_eq(ns_placement_gpu(out, 1), 2 * i + 1);
  }
  ck_assert_int_eq(ns_cluster_free_gpu_count(c), 4);
  for (int i = 0; i < 4; i++)
    ns_job_free(j[i]);
  ns_placement_free(out);
  ns_cluster_free(c);
}
END_TEST

/* Every kind of failed commit leaves the cluster bit-for-bit as it was. */
START_TEST(test_failed_commits_change_nothing) {
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 2, 4, 0, 100);
  ck_assert_int_eq(ns_cluster_set_gpu_sharing(c, 1), NS_OK);
  ns_job *a = job_with_load("a", 2, 10000), *b = job_with_load("b", 2, 10000);
  int held[] = {0, 1}, bg[] = {7};
  ns_placement *p = placement_of(held, 2, c);
  ck_assert_int_eq(ns_cluster_commit(c, a, p), NS_OK);
  ck_assert_int_eq(ns_cluster_occupy(c, bg, 1), NS_OK);
  snap *s = snap_take(c);
  struct {
    int gpus[3], n;
    int status;
    const char *names;
  } cases[] = {
      {{0, 2}, 2, NS_ENOSPACE, "GPU 0"},      /* memory would overflow (sharing) */
      {{6, 7}, 2, NS_ENOSPACE, "GPU 7"},      /* background-busy */
      {{3, 3}, 2, NS_EINVAL, "twice"},        /* listed twice */
      {{3, 8}, 2, NS_EINVAL, "out of range"}, /* id beyond the cluster */
      {{3}, 1, NS_EINVAL, "needs 2"},         /* too few GPUs */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ns_placement *q = placement_of(cases[i].gpus, cases[i].n, NULL);
    ck_assert_fails(ns_cluster_commit(c, b, q), cases[i].status, cases[i].names);
    ck_assert_unchanged(c, s, ns_last_error());
    ck_assert_int_eq(ns_cluster_is_committed(c, b), 0);
    ns_placement_free(q);
  }
  snap_free(s);
  ns_placement_free(p);
  ns_job_free(a);
  ns_job_free(b);
  ns_cluster_free(c);
}
END_TEST

/* ---- mismatched cluster / placement ---------------------------------------- */

START_TEST(test_placement_from_other_geometry) {
  ns_cluster *small = ns_cluster_new_leaf_spine(1, 0, 2, 4, 0, 100);   /* 8 GPUs */
  ns_cluster *wide = ns_cluster_new_leaf_spine(1, 0, 1, 8, 0, 100);    /* 8 GPUs, 1 server */
  ns_cluster *big = ns_cluster_new_leaf_spine(4, 2, 2, 4, 1, 100);     /* 32 GPUs */
  ns_job *j = job_with_load("j", 2, 0);
  snap *s = snap_take(small);
  int g[] = {0, 1}, far[] = {30, 31};
  ns_placement *bound_wide = placement_of(g, 2, wide);
  ck_assert_fails(ns_cluster_commit(small, j, bound_wide), NS_EINVAL, "geometry");
  ck_assert_unchanged(small, s, "commit of a placement bound to another geometry");
  /* Same per-server geometry, bigger cluster: its ids do not exist here. */
  ns_placement *bound_big = placement_of(far, 2, big);
  ck_assert_fails(ns_cluster_commit(small, j, bound_big), NS_EINVAL, "out of range");
  ck_assert_unchanged(small, s, "commit of another cluster's GPU ids");
  /* Reading a commitment into a placement bound elsewhere rebinds it. */
  ns_placement *mine = placement_of(g, 2, small);
  ck_assert_int_eq(ns_cluster_commit(small, j, mine), NS_OK);
  ck_assert_int_eq(ns_cluster_job_placement(small, j, bound_wide), NS_OK);
  ck_assert_int_eq(ns_placement_server_count(bound_wide), 1);
  ck_assert_fails(ns_cluster_commit(wide, j, bound_wide), NS_EINVAL, "geometry"); /* small's now */
  ck_assert_int_eq(ns_cluster_job_count(wide), 0);
  snap_free(s);
  ns_placement_free(bound_wide);
  ns_placement_free(bound_big);
  ns_placement_free(mine);
  ns_job_free(j);
  ns_cluster_free(small);
  ns_cluster_free(wide);
  ns_cluster_free(big);
}
END_TEST

/* ---- policies (weakly linked: checked once their module lands) -------------- */

typedef int (*place_fn)(const ns_cluster *c, const ns_job *job, ns_placement *out);

static int via_lwf(const ns_cluster *c, const ns_job *j, ns_placement *o) {
  return ns_lwf_place(c, j, 1, o);
}
static int via_random(const ns_cluster *c, const ns_job *j, ns_placement *o) {
  return ns_place_random(c, j, 42, o);
}
static int via_titan(const ns_cluster *c, const ns_job *j, ns_placement *o) {
  ns_titan_opts *opts = ns_titan_opts_new();
  int rc = ns_titan_place(c, j, opts, o);
  ns_titan_opts_free(opts);
  return rc;
}
static int via_vclos(const ns_cluster *c, const ns_job *j, ns_placement *o) {
  ns_vclos_opts *opts = ns_vclos_opts_new();
  int rc = ns_vclos_place(c, j, opts, o);
  ns_vclos_opts_free(opts);
  return rc;
}
static int via_tiresias(const ns_cluster *c, const ns_job *j, ns_placement *o) {
  return ns_place_tiresias(c, j, 1ULL << 30, o);
}
/* Dally on an offer at t = 0 with 0 ms starvation: NS_ENOSPACE stands for
   "declined" so that every policy answers the same way. */
static int via_dally(const ns_cluster *c, const ns_job *j, ns_placement *o) {
  ns_delay_tuner *t = ns_delay_tuner_new(3.6e6, 0, 0);
  int accepted = 0, rc = ns_dally_offer(t, c, j, 0, 0, o, &accepted);
  ns_delay_tuner_free(t);
  if (rc == NS_OK && !accepted)
    return ns_placement_gpu_count(o) == 0 ? NS_ENOSPACE : NS_ESTATE;
  return rc;
}

typedef struct policy {
  const char *name, *fn;
  int available;
  place_fn place;
} policy;

/* The policies of this build; `report` prints a SKIP line for the others. */
static int policies(policy *out, int report) {
  policy all[] = {
      {"lwf", "ns_lwf_place", ns_lwf_place != NULL, via_lwf},
      {"first-fit", "ns_place_first_fit", ns_place_first_fit != NULL, ns_place_first_fit},
      {"list-scheduling", "ns_place_list_scheduling", ns_place_list_scheduling != NULL,
       ns_place_list_scheduling},
      {"random", "ns_place_random", ns_place_random != NULL, via_random},
      {"titan", "ns_titan_place", ns_titan_place != NULL && ns_titan_opts_new != NULL, via_titan},
      {"vclos", "ns_vclos_place", ns_vclos_place != NULL && ns_vclos_opts_new != NULL, via_vclos},
      {"best-fit", "ns_place_best_fit", ns_place_best_fit != NULL, ns_place_best_fit},
      {"tiresias", "ns_place_tiresias", ns_place_tiresias != NULL, via_tiresias},
      {"dally", "ns_dally_offer", ns_dally_offer != NULL && ns_delay_tuner_new != NULL, via_dally},
  };
  int n = 0;
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    if (all[i].available)
      out[n++] = all[i];
    else if (report)
      printf("SKIP %s: %s is not in this build (module not landed)\n", all[i].name, all[i].fn);
  }
  return n;
}

/* A build may link stubs for a module that has not landed; they answer
   NS_EUNSUPPORTED (sim.h: "the policy's module is not available"). */
static int unsupported(const policy *p, int rc) {
  if (rc != NS_EUNSUPPORTED)
    return 0;
  printf("SKIP %s: %s is a stub in this build (%s)\n", p->name, p->fn, ns_last_error());
  return 1;
}

/* A fresh placement: GPUs distinct, in range, free; bound to this cluster. */
static void ck_assert_valid_placement(const ns_cluster *c, const ns_job *j, const ns_placement *p,
                                      const char *who) {
  size_t n = ns_placement_gpu_count(p);
  ck_assert_msg(n >= (size_t)ns_job_gpus(j), "%s: %zu GPUs for %d", who, n, ns_job_gpus(j));
  for (size_t i = 0; i < n; i++) {
    int g = ns_placement_gpu(p, i);
    ck_assert_msg(g >= 0 && g < ns_cluster_gpu_count(c), "%s: GPU %d out of range", who, g);
    ck_assert_msg(ns_cluster_gpu_is_free(c, g) == 1, "%s: GPU %d not free", who, g);
  }
  ck_assert_msg(ns_placement_server_count(p) >= 1, "%s: placement not bound", who);
}

/* A placement left over from another cluster (other geometry, junk ids) is
   cleared and rebound by every policy, and the answer commits here. */
START_TEST(test_policies_rebind_foreign_placement) {
  policy pol[16];
  int np = policies(pol, 1);
  ns_cluster *c = ns_cluster_new_leaf_spine(2, 2, 4, 4, 1, 100);
  ns_cluster *other = ns_cluster_new_leaf_spine(1, 0, 1, 64, 0, 100);
  for (int i = 0; i < np; i++) {
    ns_job *j = job_with_load("j", 2, 0);
    int junk[] = {63, 62, 61};
    ns_placement *p = placement_of(junk, 3, other);
    snap *s = snap_take(c);
    int rc = pol[i].place(c, j, p);
    ck_assert_unchanged(c, s, pol[i].fn);
    if (!unsupported(&pol[i], rc)) {
      ck_assert_msg(rc == NS_OK, "%s on an empty cluster: %d (%s)", pol[i].name, rc,
                    ns_last_error());
      ck_assert_valid_placement(c, j, p, pol[i].name);
      ck_assert_msg(ns_cluster_commit(c, j, p) == NS_OK, "%s: commit: %s", pol[i].name,
                    ns_last_error());
      ck_assert_int_eq(ns_cluster_release(c, j), NS_OK);
    }
    snap_free(s);
    ns_placement_free(p);
    ns_job_free(j);
  }
  ns_cluster_free(c);
  ns_cluster_free(other);
}
END_TEST

/* A full cluster: NS_ENOSPACE naming the function, nothing mutated; and an
   already committed job's answer cannot be committed twice. */
START_TEST(test_policies_full_cluster_and_committed_job) {
  policy pol[16];
  int np = policies(pol, 0);
  ns_cluster *c = ns_cluster_new_leaf_spine(2, 2, 2, 4, 1, 100);
  ns_job *held = job_with_load("held", 4, 0);
  int g[] = {0, 1, 2, 3};
  ns_placement *hp = placement_of(g, 4, c);
  ck_assert_int_eq(ns_cluster_commit(c, held, hp), NS_OK);
  for (int i = 0; i < np; i++) {
    ns_placement *p = ns_placement_new();
    snap *s = snap_take(c);
    int rc = pol[i].place(c, held, p);
    ck_assert_unchanged(c, s, pol[i].fn);
    if (rc == NS_OK)
      ck_assert_fails(ns_cluster_commit(c, held, p), NS_ESTATE, "already committed");
    ck_assert_unchanged(c, s, "a second commit of a committed job");
    snap_free(s);
    ns_placement_free(p);
  }
  int rest[12];
  for (int i = 0; i < 12; i++)
    rest[i] = 4 + i;
  ck_assert_int_eq(ns_cluster_occupy(c, rest, 12), NS_OK);
  ns_job *j = job_with_load("late", 1, 0);
  for (int i = 0; i < np; i++) {
    ns_placement *p = ns_placement_new();
    snap *s = snap_take(c);
    int rc = pol[i].place(c, j, p);
    if (unsupported(&pol[i], rc)) {
      snap_free(s);
      ns_placement_free(p);
      continue;
    }
    ck_assert_msg(rc == NS_ENOSPACE, "%s on a full cluster: %d", pol[i].name, rc);
    if (strcmp(pol[i].name, "dally") != 0) /* a declined offer is not an error */
      ck_assert_msg(strstr(ns_last_error(), pol[i].fn) != NULL, "%s: message '%s'",
                    pol[i].name, ns_last_error());
    ck_assert_unchanged(c, s, pol[i].fn);
    snap_free(s);
    ns_placement_free(p);
  }
  ns_placement_free(hp);
  ns_job_free(held);
  ns_job_free(j);
  ns_cluster_free(c);
}
END_TEST

/* A job that can never fit -- more GPUs than the cluster, or more memory
   per GPU than a GPU has -- is NS_EINVAL from every policy (core.h), with a
   message naming the function and the numbers; nothing is mutated. The
   same cluster half full still answers NS_ENOSPACE for a job that fits
   later. */
START_TEST(test_policies_job_never_fits) {
  policy pol[16];
  int np = policies(pol, 0);
  ns_cluster *c = ns_cluster_new_leaf_spine(2, 4, 2, 4, 1, 100); /* 16 GPUs */
  ck_assert_int_eq(ns_cluster_set_gpu_memory_mb(c, 16000), NS_OK);
  int busy[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  ck_assert_int_eq(ns_cluster_occupy(c, busy, 10), NS_OK);
  ns_job *big = job_with_load("big", 17, 0), *fat = job_with_load("fat", 2, 20000);
  ns_job *later = job_with_load("later", 8, 0);
  for (int i = 0; i < np; i++) {
    ns_placement *p = ns_placement_new();
    snap *s = snap_take(c);
    int rc = pol[i].place(c, big, p);
    if (unsupported(&pol[i], rc)) {
      snap_free(s);
      ns_placement_free(p);
      continue;
    }
    ck_assert_msg(rc == NS_EINVAL && strstr(ns_last_error(), pol[i].fn) &&
                      strstr(ns_last_error(), "needs 17 GPUs but the cluster has only 16"),
                  "%s, 17 GPUs of 16: %d (%s)", pol[i].name, rc, ns_last_error());
    rc = pol[i].place(c, fat, p);
    ck_assert_msg(rc == NS_EINVAL && strstr(ns_last_error(), pol[i].fn) &&
                      strstr(ns_last_error(), "needs 20000 MB per GPU but a GPU has only 16000"),
                  "%s, 20000 MB on 16000 MB GPUs: %d (%s)", pol[i].name, rc, ns_last_error());
    rc = pol[i].place(c, later, p); /* 6 free GPUs: wait, not never */
    ck_assert_msg(rc == NS_ENOSPACE, "%s, 8 GPUs with 6 free: %d (%s)", pol[i].name, rc,
                  ns_last_error());
    ck_assert_unchanged(c, s, pol[i].fn);
    snap_free(s);
    ns_placement_free(p);
  }
  ns_job_free(big);
  ns_job_free(fat);
  ns_job_free(later);
  ns_cluster_free(c);
}
END_TEST

/* A job that communicates nothing (model bytes 0: no collective phases) spread
   over more machines than any small test uses (20 of 32, two free GPUs each). */
START_TEST(test_policies_job_without_traffic) {
  policy pol[16];
  int np = policies(pol, 0);
  ns_cluster *c = ns_cluster_new_leaf_spine(4, 2, 8, 4, 1, 100);
  int busy[64];
  for (int i = 0; i < 64; i++)
    busy[i] = (i / 2) * 4 + i % 2; /* GPUs 0-1 of every server */
  ck_assert_int_eq(ns_cluster_occupy(c, busy, 64), NS_OK);
  for (int i = 0; i < np; i++) {
    ns_job *j = job_with_load("silent", 40, 0);
    ck_assert_int_eq(ns_job_set_model_bytes(j, 0), NS_OK);
    ns_placement *p = ns_placement_new();
    snap *s = snap_take(c);
    int rc = pol[i].place(c, j, p);
    ck_assert_unchanged(c, s, pol[i].fn);
    /* vclos.h: NS_EINVAL when no l x s shape of the fabric holds the job */
    int no_shape = rc == NS_EINVAL && strcmp(pol[i].name, "vclos") == 0 &&
                   strstr(ns_last_error(), "ns_vclos_place") != NULL;
    ck_assert_msg(rc == NS_OK || rc == NS_ENOSPACE || no_shape || unsupported(&pol[i], rc),
                  "%s: status %d (%s)", pol[i].name, rc, ns_last_error());
    if (rc == NS_OK) {
      ck_assert_valid_placement(c, j, p, pol[i].name);
      ck_assert_int_eq(ns_cluster_commit(c, j, p), NS_OK);
      ck_assert_int_eq(ns_cluster_release(c, j), NS_OK);
    }
    snap_free(s);
    ns_placement_free(p);
    ns_job_free(j);
  }
  ns_cluster_free(c);
}
END_TEST

/* ---- huge sizes: bounded-time answers -------------------------------------- */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* 125 leaves x 100 servers x 8 GPUs = 100 000 GPUs, 16 spines. */
static ns_cluster *cluster_100k(void) {
  ns_cluster *c = ns_cluster_new_leaf_spine(125, 16, 100, 8, 1, 100);
  ck_assert_ptr_nonnull(c);
  ck_assert_int_eq(ns_cluster_gpu_count(c), 100000);
  return c;
}

START_TEST(test_million_jobs_on_a_link) {
  enum { N = 1000000 };
  ns_job **jobs = malloc(N * sizeof *jobs);
  ns_link *l = ns_link_new("hot", 100);
  double t0 = now_s();
  for (int i = 0; i < N; i++) {
    jobs[i] = ns_job_new("j", 1);
    ck_assert_ptr_nonnull(jobs[i]);
    ns_job_set_iteration_ms(jobs[i], 100);
    ns_job_add_phase(jobs[i], 40, 25);
    ns_job_add_phase(jobs[i], 60, 0);
    ck_assert_int_eq(ns_link_add_job(l, jobs[i]), NS_OK);
  }
  ck_assert_uint_eq(ns_link_job_count(l), N);
  /* Repeats anywhere in a million are caught without a linear scan. */
  ck_assert_fails(ns_link_add_job(l, jobs[0]), NS_EINVAL, "already on link");
  ck_assert_fails(ns_link_add_job(l, jobs[N / 2]), NS_EINVAL, "already on link");
  ck_assert_fails(ns_link_add_job(l, jobs[N - 1]), NS_EINVAL, "already on link");
  ck_assert_uint_eq(ns_link_job_count(l), N);
  ck_assert_ptr_eq(ns_link_job(l, N - 1), jobs[N - 1]);
  printf("1e6 jobs on a link: built in %.2f s\n", now_s() - t0);
  ns_cassini_opts *o = ns_cassini_opts_new != NULL ? ns_cassini_opts_new() : NULL;
  if (ns_cassini_score == NULL || o == NULL) {
    printf("SKIP cassini: ns_cassini_score is not in this build (module not landed)\n");
  } else { /* any documented answer, in bounded time (the TCase timeout) */
    double score = NAN, *shifts = malloc(N * sizeof *shifts);
    t0 = now_s();
    int rc = ns_cassini_score(l, o, &score, shifts, N);
    printf("ns_cassini_score on 1e6 jobs: status %d in %.2f s\n", rc, now_s() - t0);
    if (rc == NS_OK)
      ck_assert_msg(isfinite(score) && score <= 1, "score %g", score);
    else
      ck_assert_msg(ns_last_error()[0] != '\0', "status %d without a message", rc);
    free(shifts);
    ns_cassini_opts_free(o);
  }
  ns_link_free(l);
  for (int i = 0; i < N; i++)
    ns_job_free(jobs[i]);
  free(jobs);
}
END_TEST

START_TEST(test_100k_gpu_cluster_core) {
  ns_cluster *c = cluster_100k();
  int *ids = malloc(100000 * sizeof *ids);
  for (int i = 0; i < 50000; i++)
    ids[i] = 2 * i; /* every other GPU: no server is idle */
  ck_assert_int_eq(ns_cluster_occupy(c, ids, 50000), NS_OK);
  ck_assert_int_eq(ns_cluster_free_gpu_count(c), 50000);
  ck_assert_int_eq(ns_cluster_idle_servers_on_leaf(c, 124), 0);
  /* A 50 000-GPU commit on the other half, a repeated id at the very end. */
  ns_job *j = job_with_load("big", 50000, 100);
  for (int i = 0; i < 50000; i++)
    ids[i] = 2 * i + 1;
  ns_placement *p = placement_of(ids, 50000, c);
  ck_assert_int_eq(ns_placement_add_gpu(p, 1), NS_OK);
  ck_assert_fails(ns_cluster_commit(c, j, p), NS_EINVAL, "twice");
  ns_placement_clear(p);
  for (int i = 0; i < 50000; i++)
    ns_placement_add_gpu(p, ids[i]);
  ck_assert_int_eq(ns_cluster_commit(c, j, p), NS_OK);
  ck_assert_int_eq(ns_cluster_free_gpu_count(c), 0);
  ck_assert_int_eq(ns_placement_tier(p), NS_TIER_NETWORK);
  ck_assert_int_eq(ns_cluster_release(c, j), NS_OK);
  for (int i = 0; i < 50000; i++)
    ids[i] = 2 * i;
  ck_assert_int_eq(ns_cluster_vacate(c, ids, 50000), NS_OK);
  ck_assert_int_eq(ns_cluster_free_gpu_count(c), 100000);
  /* Lengths beyond the cluster are rejected before the list is read. */
  ck_assert_fails(ns_cluster_occupy(c, ids, SIZE_MAX), NS_EINVAL, "gpus");
  ck_assert_fails(ns_cluster_vacate(c, ids, (size_t)INT_MAX + 1), NS_EINVAL, "gpus");
  free(ids);
  ns_placement_free(p);
  ns_job_free(j);
  ns_cluster_free(c);
}
END_TEST

START_TEST(test_huge_and_overflowing_sizes) {
  /* Products that overflow int are rejected, not wrapped. */
  ck_assert_null_names(ns_cluster_new_leaf_spine(INT_MAX, 0, INT_MAX, INT_MAX, 0, 100), "leaves");
  ck_assert_null_names(ns_cluster_new_leaf_spine(1 << 12, 1 << 12, 1, 1, 1 << 12, 100), "exceeds");
  ck_assert_null_names(ns_cluster_new_leaf_spine(1 << 11, 0, 1 << 11, 2, 0, 100), "exceeds");
  ck_assert_null_names(ns_job_new("x", INT_MAX), "gpus");
  /* The largest cluster allowed: 2^22 GPUs. */
  ns_cluster *c = ns_cluster_new_leaf_spine(1 << 10, 0, 1 << 9, 8, 0, 100);
  ck_assert_ptr_nonnull(c);
  ck_assert_int_eq(ns_cluster_free_gpu_count(c), 1 << 22);
  ns_job *j = ns_job_new("max", 1 << 20);
  ns_placement *p = ns_placement_new();
  for (int g = 0; g < (1 << 20) - 1; g++)
    ns_placement_add_gpu(p, g);
  ck_assert_fails(ns_cluster_commit(c, j, p), NS_EINVAL, "needs 1048576");
  ns_placement_free(p);
  ns_job_free(j);
  ns_cluster_free(c);
}
END_TEST

/* Every policy answers a 64-GPU, a 1000-GPU and a 2^20-GPU job on 100 000
   GPUs (half busy) within the TCase timeout; what it places commits. */
START_TEST(test_100k_gpu_cluster_policies) {
  policy pol[16];
  int np = policies(pol, 0);
  ns_cluster *c = cluster_100k();
  int *ids = malloc(50000 * sizeof *ids);
  for (int i = 0; i < 50000; i++)
    ids[i] = (i / 4) * 8 + i % 4; /* half of every server busy */
  ck_assert_int_eq(ns_cluster_occupy(c, ids, 50000), NS_OK);
  free(ids);
  const int sizes[] = {64, 1000, 1 << 20};
  for (int i = 0; i < np; i++)
    for (size_t k = 0; k < 3; k++) {
      ns_job *j = job_with_load("j", sizes[k], 0);
      ns_placement *p = ns_placement_new();
      double t0 = now_s();
      int rc = pol[i].place(c, j, p);
      printf("%s, %d GPUs of 100k: status %d in %.3f s\n", pol[i].name, sizes[k], rc,
             now_s() - t0);
      fflush(stdout);
      if (unsupported(&pol[i], rc))
        ; /* stub */
      else if (sizes[k] > 100000) /* never fits: NS_EINVAL from every policy (core.h) */
        ck_assert_msg(rc == NS_EINVAL &&
                          strstr(ns_last_error(), pol[i].fn) != NULL,
                      "%s: %d GPUs on a 100 000-GPU cluster: %d (%s)", pol[i].name, sizes[k], rc,
                      ns_last_error());
      else
        ck_assert_msg(rc == NS_OK || rc == NS_ENOSPACE, "%s: status %d", pol[i].name, rc);
      if (rc == NS_OK) {
        ck_assert_valid_placement(c, j, p, pol[i].name);
        ck_assert_int_eq(ns_cluster_commit(c, j, p), NS_OK);
        ck_assert_int_eq(ns_cluster_release(c, j), NS_OK);
      }
      ns_placement_free(p);
      ns_job_free(j);
    }
  ns_cluster_free(c);
}
END_TEST

static Suite *misuse_suite(void) {
  Suite *s = suite_create("misuse");
  TCase *life = tcase_create("lifecycle");
  tcase_set_timeout(life, 10);
  tcase_add_test(life, test_use_after_release);
  tcase_add_test(life, test_double_commit_and_release_change_nothing);
  tcase_add_test(life, test_job_changed_after_commit);
  tcase_add_test(life, test_release_out_of_order);
  tcase_add_test(life, test_failed_commits_change_nothing);
  suite_add_tcase(s, life);

  TCase *mismatch = tcase_create("mismatch");
  tcase_set_timeout(mismatch, 10);
  tcase_add_test(mismatch, test_placement_from_other_geometry);
  tcase_add_test(mismatch, test_policies_rebind_foreign_placement);
  tcase_add_test(mismatch, test_policies_full_cluster_and_committed_job);
  tcase_add_test(mismatch, test_policies_job_without_traffic);
  tcase_add_test(mismatch, test_policies_job_never_fits);
  suite_add_tcase(s, mismatch);

  /* Generous for sanitizer builds on a shared 2-core machine; a hang still
     fails. */
  TCase *huge = tcase_create("huge");
  tcase_set_timeout(huge, 120);
  tcase_add_test(huge, test_million_jobs_on_a_link);
  tcase_add_test(huge, test_100k_gpu_cluster_core);
  tcase_add_test(huge, test_huge_and_overflowing_sizes);
  tcase_add_test(huge, test_100k_gpu_cluster_policies);
  suite_add_tcase(s, huge);
  return s;
}

NS_ABI_MAIN(misuse_suite)
