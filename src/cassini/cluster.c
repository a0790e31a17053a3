/*
 * src/cassini/cluster.c - CASSINI candidates from the cluster's own links
 * (§4.2 step 1 without hand-described links) and the re-adjustment of
 * time-shifts when running jobs drift (§4.2 "measure the drift and adjust
 * the time-shifts", §5.7).
 *
 * Links a job uses (readings; the paper's testbed routes by flow tables):
 *  - Traffic: the job's collective (ns_job_collective) over its first
 *    ns_job_gpus GPUs of the placement, worker i on the i-th GPU; every
 *    directed worker pair that exchanges data in some phase is a flow.
 *    Workers on one server talk over NVLink: no link.
 *  - A flow from GPU a to GPU b on another server leaves through a's NIC
 *    port (tx) and enters b's (rx), in the cluster's port model (core.h
 *    "Port model"): by default one port of link_gbps per GPU, so jobs share
 *    a port only when they share a GPU (GPU-sharing mode); with
 *    ns_cluster_set_nic_ports(c, 1, gbps) one port per server, shared by
 *    every job on the server (the simulator's model).
 *  - Across leaves: a placement with reserved leaf-spine links (vClos,
 *    OCS-vClos) uses only those, which no other job uses: never shared. A
 *    placement without them is routed by the core's ECMP (nsi_ecmp_route:
 *    a fixed hash of the (port of a, port of b) pair choosing the spine and
 *    the parallel link, the same for every job and the same function the
 *    simulator's network models route with): the uplink (leaf of a ->
 *    spine) and the downlink (spine -> leaf of b), each of link_gbps.
 *  - Order: on every link the committed jobs come first (in commit order),
 *    the new job last, and links are added in the order of their job sets
 *    (fewest jobs first, then commit indices). So the first job on a link
 *    (rotation 0, Table 1) and the reference job of each Affinity-graph
 *    component (shift 0, Algorithm 1) are running jobs: a running job keeps
 *    its schedule where the paper allows any reference.
 *  - A link is shared when the new job and at least one committed job with
 *    a phase profile (ns_job_add_phase) use it; committed jobs without a
 *    profile have nothing CASSINI can interleave and are left out. Shared
 *    links carrying the same set of jobs are one constraint (kept once,
 *    at the smallest capacity): two copies would form an Affinity-graph
 *    loop (a ring's tx and rx links carry the same two jobs).
 * Re-adjustment: a job drifts when its measured iteration differs from its
 * profile's by more than the threshold (opts, default 5 % as in §5.7). The
 * candidate's links are then re-optimised (Table 1 + Algorithm 1) with each
 * drifted job's phases stretched to its measured iteration; the caller's
 * jobs are not modified.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cassini/cassini_internal.h"
#include "core/collective.h"

/* Work limit for walking a job's collective (phases x workers). */
#define NSC_MAX_WALK (1LL << 26)

/* Link ids: kind in the top bits, then a NIC port id or a leaf-spine link index. */
enum { NSC_TX = 0, NSC_RX = 1, NSC_UP = 2, NSC_DOWN = 3 };
static uint64_t link_id(unsigned kind, uint64_t v) { return (uint64_t)kind << 60 | v; }

typedef struct u64vec {
  uint64_t *v;
  size_t n, cap;
} u64vec;

static int push(u64vec *x, uint64_t v) {
  NSI_TRY(nsi_reserve(&x->v, &x->cap, x->n + 1, sizeof *x->v));
  x->v[x->n++] = v;
  return NS_OK;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static void sort_unique(u64vec *x) {
  if (x->n == 0)
    return;
  qsort(x->v, x->n, sizeof *x->v, cmp_u64);
  size_t m = 1;
  for (size_t i = 1; i < x->n; i++)
    if (x->v[i] != x->v[m - 1])
      x->v[m++] = x->v[i];
  x->n = m;
}

/* The links of one flow a -> b (GPUs on different servers). */
static int flow_links(const ns_cluster *c, int a, int b, int reserved, u64vec *out) {
  int pa = nsi_nic_port_of_gpu(c, a), pb = nsi_nic_port_of_gpu(c, b);
  NSI_TRY(push(out, link_id(NSC_TX, (uint64_t)pa)));
  NSI_TRY(push(out, link_id(NSC_RX, (uint64_t)pb)));
  int la = nsi_leaf_of_gpu(c, a), lb = nsi_leaf_of_gpu(c, b);
  if (la == lb || c->spines == 0 || c->links_per_pair == 0 || reserved)
    return NS_OK; /* same leaf, no spines, or the job's own reserved links */
  int m = 0, k = 0;
  nsi_ecmp_route(c->spines, c->links_per_pair, pa, pb, &m, &k);
  NSI_TRY(push(out, link_id(NSC_UP, nsi_link_index(c, la, m, k))));
  return push(out, link_id(NSC_DOWN, nsi_link_index(c, lb, m, k)));
}

/* Sorted distinct links a job of `workers` workers on gpus[] uses. */
static int job_links(const ns_cluster *c, const ns_job *job, const int *gpus, int workers,
                     int reserved, u64vec *out, const char *fn) {
  out->n = 0;
  if (workers < 2)
    return NS_OK;
  ns_collective coll = job->collective;
  int T = nsi_coll_phases(coll, workers);
  int walk = coll == NS_COLL_RING ? 1 : T; /* every ring phase sends w -> w+1 */
  if ((long long)T * workers > NSC_MAX_WALK)
    return nsi_fail(NS_EUNSUPPORTED, "%s: job '%s' is too large (%d phases x %d workers "
                                     "exceeds %lld)", fn, job->name, T, workers, NSC_MAX_WALK);
  uint64_t bytes = (uint64_t)workers << 8; /* every flow of the pattern non-empty */
  for (int t = 0; t < walk; t++)
    for (int w = 0; w < workers; w++) {
      nsi_flow fl[NSI_COLL_MAX_SENDS];
      int nf = nsi_coll_sends(coll, workers, bytes, t, w, fl);
      for (int i = 0; i < nf; i++) {
        int a = gpus[w], b = gpus[fl[i].to];
        if (nsi_server_of_gpu(c, a) != nsi_server_of_gpu(c, b))
          NSI_TRY(flow_links(c, a, b, reserved, out));
      }
      if (out->n > (1u << 24)) /* keep the scratch bounded: dedupe as we go */
        sort_unique(out);
    }
  sort_unique(out);
  return NS_OK;
}

/* One shared link: the committed jobs (commit indices) also on it. */
typedef struct shared {
  uint64_t id;
  size_t off, len; /* into the member array */
} shared;

static _Thread_local const size_t *g_members; /* qsort context (per thread) */

static int cmp_shared(const void *x, const void *y) {
  const shared *a = x, *b = y;
  if (a->len != b->len)
    return a->len < b->len ? -1 : 1;
  int d = memcmp(g_members + a->off, g_members + b->off, a->len * sizeof *g_members);
  if (d != 0)
    return d;
  return (a->id > b->id) - (a->id < b->id);
}

typedef struct pairrec {
  size_t pos, commit;
} pairrec;

static int cmp_pairrec(const void *x, const void *y) {
  const pairrec *a = x, *b = y;
  if (a->pos != b->pos)
    return a->pos < b->pos ? -1 : 1;
  return (a->commit > b->commit) - (a->commit < b->commit);
}

static void link_name(const ns_cluster *c, uint64_t id, char *buf, size_t n) {
  unsigned kind = (unsigned)(id >> 60);
  uint64_t v = id & (((uint64_t)1 << 60) - 1);
  size_t per_leaf = (size_t)c->spines * (size_t)c->links_per_pair;
  if (kind == NSC_TX || kind == NSC_RX) {
    const char *dir = kind == NSC_TX ? "nic-tx" : "nic-rx";
    if (c->nic_ports == c->gpus_per_server) /* one port per GPU: named by the GPU */
      snprintf(buf, n, "%s:gpu%" PRIu64, dir, v);
    else
      snprintf(buf, n, "%s:server%" PRIu64 ".%" PRIu64, dir, v / (uint64_t)c->nic_ports,
               v % (uint64_t)c->nic_ports);
    return;
  }
  unsigned long long leaf = v / per_leaf, spine = v % per_leaf / (uint64_t)c->links_per_pair,
                     k = v % (uint64_t)c->links_per_pair;
  if (kind == NSC_UP)
    snprintf(buf, n, "up:leaf%llu-spine%llu.%llu", leaf, spine, k);
  else
    snprintf(buf, n, "down:spine%llu-leaf%llu.%llu", spine, leaf, k);
}

typedef struct build {
  u64vec mine, other;
  nsi_ptrmap pos;
  pairrec *recs;
  size_t nrecs, cap_recs;
  size_t *members;
  shared *sh;
} build;

static void build_free(build *b) {
  free(b->mine.v), free(b->other.v), free(b->recs), free(b->members), free(b->sh);
  nsi_ptrmap_free(&b->pos);
}

/* (position in mine, commit) for every committed job with a profile that
   uses a link of the new job. */
static int collect_members(build *b, const ns_cluster *c, const ns_job *job, const char *fn) {
  NSI_TRY(nsi_ptrmap_reserve(&b->pos, b->mine.n));
  for (size_t i = 0; i < b->mine.n; i++)
    NSI_TRY(nsi_ptrmap_put(&b->pos, b->mine.v[i] + 1, i));
  for (size_t k = 0; k < c->ncommits; k++) {
    const nsi_commit *r = &c->commits[k];
    if (r->job == job || r->job->nphases == 0)
      continue;
    int workers = r->job->gpus < (int)r->ngpus ? r->job->gpus : (int)r->ngpus;
    NSI_TRY(job_links(c, r->job, r->gpus, workers, r->nlinks > 0, &b->other, fn));
    for (size_t i = 0; i < b->other.n; i++) {
      size_t p = nsi_ptrmap_get(&b->pos, b->other.v[i] + 1);
      if (p == SIZE_MAX)
        continue;
      NSI_TRY(nsi_reserve(&b->recs, &b->cap_recs, b->nrecs + 1, sizeof *b->recs));
      b->recs[b->nrecs++] = (pairrec){p, k};
    }
  }
  return NS_OK;
}

/* Groups the records into shared links, sorted so that links with the same
   member set are adjacent. Returns the number of shared links. */
static size_t group_shared(build *b) {
  qsort(b->recs, b->nrecs, sizeof *b->recs, cmp_pairrec);
  size_t ns = 0;
  for (size_t i = 0; i < b->nrecs;) {
    size_t j = i;
    while (j < b->nrecs && b->recs[j].pos == b->recs[i].pos) {
      b->members[j] = b->recs[j].commit;
      j++;
    }
    b->sh[ns++] = (shared){b->mine.v[b->recs[i].pos], i, j - i};
    i = j;
  }
  g_members = b->members;
  qsort(b->sh, ns, sizeof *b->sh, cmp_shared);
  g_members = NULL;
  return ns;
}

/* Makes one owned link per distinct member set and adds its pairs. */
static int emit(build *b, size_t ns, ns_candidate *cand, const ns_cluster *c, const ns_job *job) {
  cand->owned = malloc((ns + 1) * sizeof *cand->owned);
  if (cand->owned == NULL)
    return NS_ENOMEM;
  for (size_t i = 0; i < ns;) {
    size_t j = i + 1;
    while (j < ns && b->sh[j].len == b->sh[i].len &&
           memcmp(b->members + b->sh[j].off, b->members + b->sh[i].off,
                  b->sh[i].len * sizeof *b->members) == 0)
      j++; /* same set of jobs: one constraint, at the smallest capacity */
    double cap = INFINITY;
    for (size_t q = i; q < j; q++) {
      unsigned kind = (unsigned)(b->sh[q].id >> 60);
      double v = kind == NSC_TX || kind == NSC_RX ? c->nic_gbps : c->link_gbps;
      cap = v < cap ? v : cap;
    }
    char name[96];
    link_name(c, b->sh[i].id, name, sizeof name);
    ns_link *lk = ns_link_new(name, cap);
    if (lk == NULL)
      return NS_ENOMEM;
    cand->owned[cand->nowned++] = lk;
    for (size_t m = 0; m <= b->sh[i].len; m++) { /* committed jobs first, then `job` */
      const ns_job *x = m < b->sh[i].len ? c->commits[b->members[b->sh[i].off + m]].job : job;
      NSI_TRY(ns_link_add_job(lk, x));
      NSI_TRY(nsc_affinity_add(&cand->pairs, x, lk, 0, "ns_cassini_candidate_from_cluster"));
    }
    i = j;
  }
  return NS_OK;
}

static int check_placement(const ns_cluster *c, const ns_job *job, const ns_placement *p,
                           const char *fn) {
  if ((long long)p->ngpus < job->gpus)
    return nsi_fail(NS_EINVAL, "%s: p holds %zu GPUs but job '%s' has %d workers", fn, p->ngpus,
                    job->name, job->gpus);
  for (int i = 0; i < job->gpus; i++)
    if (p->gpus[i] < 0 || p->gpus[i] >= c->ngpus)
      return nsi_fail(NS_EINVAL, "%s: p's GPU %d (index %d) is outside the cluster's %d GPUs",
                      fn, p->gpus[i], i, c->ngpus);
  return NS_OK;
}

int ns_cassini_candidate_from_cluster(ns_candidate *cand, const ns_cluster *c, const ns_job *job,
                                      const ns_placement *p) {
  static const char fn[] = "ns_cassini_candidate_from_cluster";
  NSI_TRY(nsi_check_ptr(cand, fn, "cand"));
  NSI_TRY(nsi_check_ptr(c, fn, "c"));
  NSI_TRY(nsi_check_ptr(job, fn, "job"));
  NSI_TRY(nsi_check_ptr(p, fn, "p"));
  NSI_TRY(check_placement(c, job, p, fn));
  build b = {0};
  ns_candidate fresh = {0};
  int rc = job->nphases == 0 ? NS_OK /* nothing to interleave: no shared link */
                             : job_links(c, job, p->gpus, job->gpus, p->nlinks > 0, &b.mine, fn);
  if (rc == NS_OK && b.mine.n > 0)
    rc = collect_members(&b, c, job, fn);
  size_t ns = 0;
  if (rc == NS_OK && b.nrecs > 0) {
    b.members = malloc(b.nrecs * sizeof *b.members);
    b.sh = malloc(b.nrecs * sizeof *b.sh);
    rc = b.members && b.sh ? NS_OK : NS_ENOMEM;
    if (rc == NS_OK)
      ns = group_shared(&b);
  }
  if (rc == NS_OK)
    rc = emit(&b, ns, &fresh, c, job);
  build_free(&b);
  if (rc == NS_ENOMEM)
    nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  if (rc != NS_OK) { /* cand untouched */
    nsc_affinity_clear(&fresh.pairs);
    nsc_candidate_drop_links(&fresh);
    return rc;
  }
  nsc_affinity_clear(&cand->pairs);
  nsc_candidate_drop_links(cand);
  free(cand->shift);
  *cand = fresh;
  return NS_OK;
}

/* ---- re-adjustment (§4.2, §5.7) ------------------------------------------ */

/* A copy of `job` whose iteration is `iter_ms`, every phase stretched by
   iter_ms / the job's iteration. */
static ns_job *stretched(const ns_job *job, double iter_ms, const char *fn) {
  ns_job *x = ns_job_new(job->name, job->gpus);
  int rc = x ? ns_job_set_iteration_ms(x, iter_ms) : NS_ENOMEM;
  double f = iter_ms / job->iteration_ms;
  for (size_t i = 0; i < job->nphases && rc == NS_OK; i++)
    rc = ns_job_add_phase(x, job->phases[i].duration_ms * f, job->phases[i].gbps);
  if (rc != NS_OK) {
    nsi_fail(rc == NS_ENOMEM ? NS_ENOMEM : NS_EINVAL,
             "%s: job '%s' cannot be stretched to %g ms", fn, job->name, iter_ms);
    ns_job_free(x);
    return NULL;
  }
  return x;
}

static int check_readjust(const ns_candidate *cand, const ns_cassini_opts *o,
                          const ns_job *const *jobs, const double *measured, size_t n,
                          const size_t *readjusted, const char *fn) {
  NSI_TRY(nsi_check_ptr(cand, fn, "cand"));
  NSI_TRY(nsi_check_ptr(o, fn, "o"));
  NSI_TRY(nsi_check_ptr(readjusted, fn, "readjusted"));
  if (n > 0) {
    NSI_TRY(nsi_check_ptr(jobs, fn, "jobs"));
    NSI_TRY(nsi_check_ptr(measured, fn, "measured_iteration_ms"));
  }
  if (!cand->solved)
    return nsi_fail(NS_ESTATE, "%s: cand holds no shifts (not the best of the last "
                               "ns_cassini_rank, or changed since)", fn);
  for (size_t i = 0; i < n; i++) {
    if (jobs[i] == NULL)
      return nsi_fail(NS_EINVAL, "%s: jobs[%zu] is NULL", fn, i);
    if (nsi_ptrmap_get(&cand->pairs.job_ix, nsi_key_ptr(jobs[i])) == SIZE_MAX)
      return nsi_fail(NS_ENOTFOUND, "%s: jobs[%zu] ('%s') is not in the candidate", fn, i,
                      jobs[i]->name);
    if (!(isfinite(measured[i]) && measured[i] > 0))
      return nsi_fail(NS_EINVAL, "%s: measured_iteration_ms[%zu] must be finite and > 0 "
                                 "(got %g)", fn, i, measured[i]);
    if (!(jobs[i]->iteration_ms > 0))
      return nsi_fail(NS_EINVAL, "%s: jobs[%zu] ('%s') has no iteration time", fn, i,
                      jobs[i]->name);
  }
  return NS_OK;
}

/* Ranks a copy of cand's pairs with the drifted jobs replaced by their
   stretched copies (sub[j] for cand's job j, or NULL) and writes the new
   shifts into shift[]. */
static int rerank(const ns_candidate *cand, ns_job **sub, const ns_cassini_opts *o,
                  double *shift) {
  ns_candidate *tmp = ns_candidate_new();
  int rc = tmp ? NS_OK : NS_ENOMEM;
  for (size_t e = 0; e < cand->pairs.nedges && rc == NS_OK; e++) {
    size_t j = cand->pairs.edges[e].job;
    const ns_job *jb = sub[j] ? sub[j] : cand->pairs.jobs[j];
    rc = ns_candidate_add(tmp, jb, cand->pairs.links[cand->pairs.edges[e].link]);
  }
  size_t best = 0;
  if (rc == NS_OK)
    rc = ns_cassini_rank(&tmp, 1, o, &best, NULL);
  for (size_t j = 0; j < cand->pairs.njobs && rc == NS_OK; j++)
    rc = ns_candidate_shift_ms(tmp, sub[j] ? sub[j] : cand->pairs.jobs[j], &shift[j]);
  ns_candidate_free(tmp);
  return rc;
}

int ns_cassini_readjust(ns_candidate *cand, const ns_cassini_opts *o, const ns_job *const *jobs,
                        const double *measured_iteration_ms, size_t n, size_t *readjusted) {
  static const char fn[] = "ns_cassini_readjust";
  NSI_TRY(check_readjust(cand, o, jobs, measured_iteration_ms, n, readjusted, fn));
  size_t nj = cand->pairs.njobs, drifted = 0;
  ns_job **sub = calloc(nj ? nj : 1, sizeof *sub);
  double *shift = malloc((nj ? nj : 1) * sizeof *shift);
  int rc = sub && shift ? NS_OK : nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  for (size_t i = 0; i < n && rc == NS_OK; i++) {
    const ns_job *jb = jobs[i];
    double iter = jb->iteration_ms, m = measured_iteration_ms[i];
    size_t j = nsi_ptrmap_get(&cand->pairs.job_ix, nsi_key_ptr(jb));
    if (fabs(m - iter) <= o->drift * iter || sub[j] != NULL)
      continue; /* within the threshold (or listed twice: the first one counts) */
    sub[j] = stretched(jb, m, fn);
    rc = sub[j] ? NS_OK : NS_EINVAL;
    drifted++;
  }
  if (rc == NS_OK && drifted > 0)
    rc = rerank(cand, sub, o, shift);
  if (rc == NS_OK && drifted > 0)
    memcpy(cand->shift, shift, nj * sizeof *shift);
  if (rc == NS_OK)
    *readjusted = drifted;
  for (size_t j = 0; sub && j < nj; j++)
    ns_job_free(sub[j]);
  free(sub);
  free(shift);
  return rc;
}
