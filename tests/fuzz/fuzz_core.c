/*
 * tests/fuzz/fuzz_core.c - commit / release / occupy / vacate / setter
 * sequences on a small leaf-spine cluster, decoded from the input, checked
 * against an independent model of the cluster.
 *
 * fuzz-requires: ns_cluster_commit ns_cluster_release ns_cluster_occupy
 *
 * The model predicts, from the documented contract (include/netsched/core.h),
 * which statuses a call may return: none applicable => NS_OK and the model
 * applies the call; otherwise the library must return one of the applicable
 * errors (their precedence is not part of the contract). After every call the
 * cluster's observable state (per-GPU job counts, free flags, free memory,
 * LWF workloads, link reservations, job count) must equal the model's, and a
 * failed call must leave a snapshot taken before it bit-for-bit unchanged.
 * Memory sizes are whole MB, so the model's sums are exact.
 *
 * Placements get reserved leaf-spine links through the internal
 * nsi_placement_add_link (there is no public setter: only vClos adds links),
 * so the link paths of commit/release are fuzzed too; once an OCS layer is
 * enabled, static link queries must answer NS_EUNSUPPORTED and commits carry
 * GPUs only (OCS circuits are exercised by fuzz_vclos).
 */
#include "fuzz_util.h"

#include "core/internal.h"

enum { NJOBS = 6, MAXG = 4 * 4 * 8, MAXL = 4 * 3 * 3, MAXP = 12 };

enum { E_INVAL = 1, E_STATE = 2, E_NOSPACE = 4, E_NOTFOUND = 8, E_UNSUP = 16 };

typedef struct model {
  int L, S, SPL, GPS, K, ngpus, sharing, ocs;
  double gpu_mem;
  int jobs_on[MAXG], bg[MAXG];
  double mem_used[MAXG], workload[MAXG];
  int link_owner[MAXL];
  ns_job *job[NJOBS];
  int committed[NJOBS], ngp[NJOBS], gp[NJOBS][MAXP], nlk[NJOBS], lk[NJOBS][4];
  double jmem[NJOBS], jload[NJOBS];
} model;

static int status_bit(int rc) {
  switch (rc) {
  case NS_EINVAL: return E_INVAL;
  case NS_ESTATE: return E_STATE;
  case NS_ENOSPACE: return E_NOSPACE;
  case NS_ENOTFOUND: return E_NOTFOUND;
  case NS_EUNSUPPORTED: return E_UNSUP;
  default: return 1 << 10;
  }
}

/* rc agrees with the predicted set of applicable errors. */
static int expect(int rc, int errs, const char *fn) {
  if (errs == 0) {
    FZ_CHECK(rc == NS_OK, "%s: expected NS_OK, got %d", fn, rc);
    return rc;
  }
  FZ_CHECK(rc < 0 && (status_bit(rc) & errs), "%s: got %d, expected one of mask 0x%x", fn, rc,
           errs);
  FZ_CHECK_FAILURE(rc, fn);
  return rc;
}

static void check_against_model(const ns_cluster *c, const model *m) {
  int committed = 0, free_total = 0;
  for (int j = 0; j < NJOBS; j++) {
    committed += m->committed[j];
    FZ_CHECK(ns_cluster_is_committed(c, m->job[j]) == m->committed[j], "job %d", j);
  }
  FZ_CHECK(ns_cluster_job_count(c) == committed, "job count %d vs %d", ns_cluster_job_count(c),
           committed);
  for (int g = 0; g < m->ngpus; g++) {
    int is_free = m->jobs_on[g] == 0 && !m->bg[g];
    free_total += is_free;
    FZ_CHECK(ns_cluster_gpu_job_count(c, g) == m->jobs_on[g], "GPU %d: %d jobs, model %d", g,
             ns_cluster_gpu_job_count(c, g), m->jobs_on[g]);
    FZ_CHECK(ns_cluster_gpu_is_free(c, g) == is_free, "GPU %d free flag", g);
    double fm = m->bg[g] ? 0 : m->gpu_mem - m->mem_used[g];
    FZ_CHECK(ns_cluster_gpu_free_memory_mb(c, g) == fm, "GPU %d free memory %g, model %g", g,
             ns_cluster_gpu_free_memory_mb(c, g), fm);
    FZ_CHECK(ns_cluster_gpu_workload_ms(c, g) == m->workload[g], "GPU %d workload %g, model %g",
             g, ns_cluster_gpu_workload_ms(c, g), m->workload[g]);
  }
  FZ_CHECK(ns_cluster_free_gpu_count(c) == free_total, "free GPUs %d, model %d",
           ns_cluster_free_gpu_count(c), free_total);
  for (int l = 0; l < m->L && m->S > 0; l++)
    for (int s = 0; s < m->S; s++)
      for (int k = 0; k < m->K; k++)
        FZ_CHECK(ns_cluster_link_is_reserved(c, l, s, k) ==
                     (m->ocs ? NS_EUNSUPPORTED : m->link_owner[(l * m->S + s) * m->K + k] >= 0),
                 "link (%d,%d,%d)", l, s, k);
  FZ_CHECK(ns_cluster_gpu_sharing(c) == m->sharing, "sharing");
  FZ_CHECK(ns_cluster_ocs_count(c) == m->ocs, "ocs count");
}

/* Predicted errors of a GPU id list for occupy/vacate/commit. */
static int list_errors(const model *m, const int *ids, int n) {
  int errs = 0;
  for (int i = 0; i < n; i++) {
    if (ids[i] < 0 || ids[i] >= m->ngpus)
      errs |= E_INVAL;
    for (int k = 0; k < i; k++)
      if (ids[i] == ids[k])
        errs |= E_INVAL;
  }
  return errs;
}

static int link_index(const model *m, int l, int s, int k) {
  if (m->S == 0 || l < 0 || l >= m->L || s < 0 || s >= m->S || k < 0 || k >= m->K)
    return -1;
  return (l * m->S + s) * m->K + k;
}

static int op_commit(fz *f, ns_cluster *c, const ns_cluster *other, model *m) {
  int j = (int)fz_range(f, 0, NJOBS - 1);
  ns_placement *p = ns_placement_new();
  int ids[MAXP], n = 0, links[4][3], nl = 0, errs = 0;
  int want = (int)fz_range(f, 0, MAXP);
  for (int i = 0; i < want; i++) {
    int g = (int)fz_range(f, -1, m->ngpus);
    int rc = ns_placement_add_gpu(p, g);
    if (g < 0)
      expect(rc, E_INVAL, "ns_placement_add_gpu");
    else
      ids[n++] = g;
  }
  int bind = (int)fz_range(f, 0, 2);
  if (bind == 1)
    ns_placement_bind(p, c);
  else if (bind == 2) {
    ns_placement_bind(p, other); /* another geometry */
    errs |= E_INVAL;
  }
  /* With an OCS layer, links are circuits through OCS ports (vClos's
     business): this target then commits GPUs only. */
  nl = m->ocs ? 0 : (int)fz_range(f, 0, 3);
  for (int i = 0; i < nl; i++) {
    links[i][0] = (int)fz_range(f, -1, m->L);
    links[i][1] = (int)fz_range(f, -1, m->S);
    links[i][2] = (int)fz_range(f, -1, m->K);
    FZ_CHECK(nsi_placement_add_link(p, links[i][0], links[i][1], links[i][2]) == NS_OK, "link");
  }
  /* Predict from the contract. */
  if (n == 0 || n < ns_job_gpus(m->job[j]))
    errs |= E_INVAL;
  errs |= list_errors(m, ids, n);
  if (m->committed[j])
    errs |= E_STATE;
  for (int i = 0; i < n; i++) {
    int g = ids[i];
    if (g < 0 || g >= m->ngpus)
      continue;
    if (m->bg[g] || (!m->sharing && m->jobs_on[g] > 0) ||
        m->mem_used[g] + m->jmem[j] > m->gpu_mem)
      errs |= E_NOSPACE;
  }
  for (int i = 0; i < nl; i++) {
    int li = link_index(m, links[i][0], links[i][1], links[i][2]);
    if (li < 0)
      errs |= E_INVAL;
    else if (m->link_owner[li] >= 0)
      errs |= E_NOSPACE;
    for (int k = 0; k < i; k++)
      if (memcmp(links[i], links[k], sizeof links[i]) == 0)
        errs |= E_INVAL;
  }
  int rc = expect(ns_cluster_commit(c, m->job[j], p), errs, "ns_cluster_commit");
  if (errs == 0) {
    m->committed[j] = 1;
    m->ngp[j] = n;
    memcpy(m->gp[j], ids, sizeof ids);
    m->nlk[j] = nl;
    for (int i = 0; i < n; i++) {
      m->jobs_on[ids[i]]++;
      m->mem_used[ids[i]] += m->jmem[j];
      m->workload[ids[i]] += m->jload[j];
    }
    for (int i = 0; i < nl; i++) {
      m->lk[j][i] = link_index(m, links[i][0], links[i][1], links[i][2]);
      m->link_owner[m->lk[j][i]] = j;
    }
  }
  ns_placement_free(p);
  return rc;
}

static int op_release(fz *f, ns_cluster *c, model *m) {
  int j = (int)fz_range(f, 0, NJOBS - 1);
  int rc = expect(ns_cluster_release(c, m->job[j]), m->committed[j] ? 0 : E_NOTFOUND,
                  "ns_cluster_release");
  if (!m->committed[j])
    return rc;
  m->committed[j] = 0;
  for (int i = 0; i < m->ngp[j]; i++) {
    int g = m->gp[j][i];
    m->jobs_on[g]--;
    m->mem_used[g] = m->jobs_on[g] == 0 ? 0 : m->mem_used[g] - m->jmem[j];
    m->workload[g] = fmax(0, m->workload[g] - m->jload[j]);
  }
  for (int i = 0; i < m->nlk[j]; i++)
    m->link_owner[m->lk[j][i]] = -1;
  return rc;
}

static int op_occupy_vacate(fz *f, ns_cluster *c, model *m, int vacate) {
  int ids[8], n = (int)fz_range(f, 0, 8);
  for (int i = 0; i < n; i++)
    ids[i] = (int)fz_range(f, -1, m->ngpus);
  int null_list = n > 0 && fz_range(f, 0, 15) == 0;
  int errs = null_list ? E_INVAL : list_errors(m, ids, n);
  for (int i = 0; i < n && !errs; i++) {
    int g = ids[i];
    if (vacate && !m->bg[g])
      errs |= E_STATE;
    if (!vacate && (m->bg[g] || m->jobs_on[g] > 0))
      errs |= E_NOSPACE;
  }
  const int *list = null_list ? NULL : ids;
  int rc = vacate ? expect(ns_cluster_vacate(c, list, (size_t)n), errs, "ns_cluster_vacate")
                  : expect(ns_cluster_occupy(c, list, (size_t)n), errs, "ns_cluster_occupy");
  for (int i = 0; i < n && !errs; i++)
    m->bg[ids[i]] = !vacate;
  return rc;
}

static int any_committed(const model *m) {
  for (int j = 0; j < NJOBS; j++)
    if (m->committed[j])
      return 1;
  return 0;
}

static int op_setters(fz *f, ns_cluster *c, model *m) {
  int rc = NS_OK;
  switch (fz_range(f, 0, 4)) {
  case 0: {
    int g = (int)fz_range(f, -1, m->ngpus);
    double ms = fz_double(f, 0, 1e6);
    int errs = (g < 0 || g >= m->ngpus || !isfinite(ms) || ms < 0 || ms > 1e15) ? E_INVAL : 0;
    rc = expect(ns_cluster_set_gpu_workload_ms(c, g, ms), errs, "ns_cluster_set_gpu_workload_ms");
    if (!errs)
      m->workload[g] = ms;
    break;
  }
  case 1: {
    int v = (int)fz_range(f, -1, 2);
    int errs = (v < 0 || v > 1 ? E_INVAL : 0) | (any_committed(m) ? E_STATE : 0);
    rc = expect(ns_cluster_set_gpu_sharing(c, v), errs, "ns_cluster_set_gpu_sharing");
    if (!errs)
      m->sharing = v;
    break;
  }
  case 2: {
    double mb = fz_range(f, 0, 3) ? 1024.0 * (double)fz_range(f, 0, 32) : fz_raw_double(f);
    int errs = (!isfinite(mb) || mb <= 0 || mb > 1e15 ? E_INVAL : 0) | (any_committed(m) ? E_STATE : 0);
    rc = expect(ns_cluster_set_gpu_memory_mb(c, mb), errs, "ns_cluster_set_gpu_memory_mb");
    if (!errs)
      m->gpu_mem = mb;
    break;
  }
  case 3: {
    int n = (int)fz_range(f, -1, 10), up = m->S * m->K;
    int errs = m->S == 0 ? E_UNSUP
                         : ((n < 1 || n > up || up % n) ? E_INVAL : 0) |
                               (any_committed(m) ? E_STATE : 0);
    rc = expect(ns_cluster_enable_ocs(c, n), errs, "ns_cluster_enable_ocs");
    if (!errs)
      m->ocs = n;
    break;
  }
  default: { /* read back a committed job's placement */
    int j = (int)fz_range(f, 0, NJOBS - 1);
    ns_placement *p = ns_placement_new();
    int q = ns_cluster_job_placement(c, m->job[j], p);
    expect(q, m->committed[j] ? 0 : E_NOTFOUND, "ns_cluster_job_placement");
    if (q == NS_OK) {
      FZ_CHECK((int)ns_placement_gpu_count(p) == m->ngp[j], "placement size");
      for (int i = 0; i < m->ngp[j]; i++)
        FZ_CHECK(ns_placement_gpu(p, (size_t)i) == m->gp[j][i], "placement GPU %d", i);
      FZ_CHECK(ns_placement_link_count(p) == m->nlk[j], "placement links");
      int tier = (int)ns_placement_tier(p);
      FZ_CHECK(tier >= NS_TIER_MACHINE && tier <= NS_TIER_NETWORK, "tier %d", tier);
    }
    ns_placement_free(p);
  }
  }
  return rc;
}

static void make_jobs(fz *f, model *m) {
  for (int j = 0; j < NJOBS; j++) {
    m->job[j] = ns_job_new("fz", (int)fz_range(f, 1, 8));
    ns_job *job = m->job[j];
    m->jmem[j] = 1024.0 * (double)fz_range(f, 0, 20);
    ns_job_set_gpu_memory_mb(job, m->jmem[j]);
    ns_job_set_compute_ms(job, (double)fz_range(f, 0, 50), (double)fz_range(f, 0, 50));
    uint64_t total = (uint64_t)fz_range(f, 1, 100), done = (uint64_t)fz_range(f, 0, 100);
    ns_job_set_iterations(job, total, done > total ? total : done);
    double fw, bw;
    uint64_t t, d;
    ns_job_compute_ms(job, &fw, &bw);
    ns_job_iterations(job, &t, &d);
    /* L_J = (fwd + bwd) * remaining iterations * |G| (LWF-kappa Alg. 1) */
    m->jload[j] = (fw + bw) * (double)(t - d) * (double)ns_job_gpus(job);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz f = {data, size};
  model *m = calloc(1, sizeof *m);
  m->L = (int)fz_range(&f, 1, 4);
  m->S = (int)fz_range(&f, 0, 3);
  m->SPL = (int)fz_range(&f, 1, 4);
  m->GPS = (int)fz_range(&f, 1, 8);
  m->K = m->S ? (int)fz_range(&f, 1, 3) : 0;
  m->ngpus = m->L * m->SPL * m->GPS;
  m->gpu_mem = 16384;
  for (int i = 0; i < MAXL; i++)
    m->link_owner[i] = -1;
  ns_cluster *c = ns_cluster_new_leaf_spine(m->L, m->S, m->SPL, m->GPS, m->K, 100);
  ns_cluster *other = ns_cluster_new_leaf_spine(1, 0, m->SPL + 1, m->GPS, 0, 100);
  FZ_CHECK(c != NULL && other != NULL, "cluster");
  make_jobs(&f, m);
  for (int steps = 0; !fz_done(&f) && steps < 256; steps++) {
    fz_snap before, after;
    FZ_CHECK(fz_snap_take(c, &before) == 0, "snapshot");
    int rc;
    switch (fz_range(&f, 0, 5)) {
    case 0:
    case 1: rc = op_commit(&f, c, other, m); break;
    case 2: rc = op_release(&f, c, m); break;
    case 3: rc = op_occupy_vacate(&f, c, m, 0); break;
    case 4: rc = op_occupy_vacate(&f, c, m, 1); break;
    default: rc = op_setters(&f, c, m);
    }
    check_against_model(c, m);
    FZ_CHECK(fz_snap_take(c, &after) == 0, "snapshot");
    /* Independently of the model: a failed call changed nothing. */
    if (rc < 0)
      fz_snap_expect_equal(&before, &after, ns_last_error());
    fz_snap_free(&before);
    fz_snap_free(&after);
  }
  for (int j = 0; j < NJOBS; j++)
    ns_job_free(m->job[j]);
  ns_cluster_free(c);
  ns_cluster_free(other);
  free(m);
  return 0;
}
