/*
 * src/sim/workload.c - simulator handle, jobs, model profiles and the
 * embedded default workload.
 *
 * Default workload (AdaDUAL/LWF-kappa paper §V-A): 160 jobs scaled down from
 * the Microsoft trace - 80 x 1 GPU, 14 x 2, 26 x 4, 30 x 8, 8 x 16, 2 x 32 -
 * arriving over 20 minutes ("uniform" in the paper: we draw each arrival
 * uniformly in [0, 1200] s), 1000-6000 iterations (uniform integers), models
 * drawn uniformly from Table III's four profiles. All draws come from one
 * splitmix64 stream seeded by the options' seed, so a seed fixes the
 * workload.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_internal.h"

typedef struct nsi_profile {
  const char *name;
  double model_mb, fwd_ms, bwd_ms, mem_mb;
} nsi_profile;

/* AdaDUAL paper Table III (Tesla V100). */
static const nsi_profile profiles[] = {
    {"vgg16", 526.4, 35.8, 53.7, 4527},
    {"resnet50", 99.2, 25.0, 37.4, 3213},
    {"inception3", 103.0, 34.9, 52.4, 3291},
    {"lstm-ptb", 251.8, 31.5, 47.3, 2751},
};

/* The guard is changed through a pointer to the non-const object: every
   ns_sim is heap-allocated by ns_sim_new, never const itself. */
static atomic_uint *guard_of(const ns_sim *s) { return (atomic_uint *)&((ns_sim *)s)->guard; }

static int held(const char *fn, unsigned v) {
  if (v & NSI_SIM_RUNNING)
    return nsi_fail(NS_ESTATE, "%s: s is running (called from its own progress or placement "
                               "callback, or from another thread during ns_sim_run); nothing was "
                               "changed - call it after ns_sim_run returns", fn);
  return nsi_fail(NS_ESTATE, "%s: s is in use by a call in another thread; nothing was changed - "
                             "call it after that call returns", fn);
}

int nsi_sim_enter(const ns_sim *s, const char *fn, int mode) {
  NSI_TRY(nsi_check_ptr(s, fn, "s"));
  atomic_uint *g = guard_of(s);
  unsigned v = atomic_load(g);
  if (mode == NSI_SIM_WRITE) {
    unsigned idle = 0;
    if (!atomic_compare_exchange_strong(g, &idle, NSI_SIM_WRITER))
      return held(fn, idle);
    return NS_OK;
  }
  do {
    if (v & NSI_SIM_WRITER)
      return held(fn, v);
  } while (!atomic_compare_exchange_weak(g, &v, v + NSI_SIM_READER));
  return NS_OK;
}

void nsi_sim_leave(const ns_sim *s, int mode) {
  if (mode == NSI_SIM_WRITE)
    atomic_store(guard_of(s), 0u); /* also drops RUNNING and a CANCEL the run did not see */
  else
    atomic_fetch_sub(guard_of(s), NSI_SIM_READER);
}

int nsi_sim_cancelled(const ns_sim *s) {
  return (atomic_load_explicit(guard_of(s), memory_order_relaxed) & NSI_SIM_CANCEL) != 0;
}

static int cluster_gpus(const ns_sim_opts *o) {
  return o->leaves * o->servers_per_leaf * o->gpus_per_server;
}

static int check_job(const char *fn, const char *name, double arrival_ms,
                     int gpus, uint64_t iterations) {
  NSI_TRY(nsi_check_ptr(name, fn, "name"));
  size_t len = strlen(name);
  if (len == 0 || len > 255)
    return nsi_fail(NS_EINVAL, "%s: name must be 1..255 bytes (got %zu)", fn, len);
  NSI_TRY(nsi_check_finite_ge0(arrival_ms, fn, "arrival_ms"));
  NSI_TRY(nsi_check_int(gpus, 1, 1 << 20, fn, "gpus"));
  if (iterations < 1 || iterations > (1ull << 53))
    return nsi_fail(NS_EINVAL, "%s: iterations must be in [1, 2^53] (got %llu)", fn,
                    (unsigned long long)iterations);
  return NS_OK;
}

/* Appends a validated job; NS_ENOSPACE (counted) if it can never fit. */
static int append_job(ns_sim *s, const char *fn, const nsi_simjob *proto) {
  if (proto->gpus > cluster_gpus(&s->o)) {
    s->skipped++;
    return nsi_fail(NS_ENOSPACE, "%s: job '%s' asks for %d GPUs, the cluster has %d (skipped)", fn,
                    proto->name, proto->gpus, cluster_gpus(&s->o));
  }
  if (s->njobs >= (size_t)(1 << 30))
    return nsi_fail(NS_ENOMEM, "%s: too many jobs", fn);
  NSI_TRY(nsi_reserve(&s->jobs, &s->cap_jobs, s->njobs + 1, sizeof *s->jobs));
  nsi_simjob *j = &s->jobs[s->njobs];
  const char *model = proto->model ? proto->model : "";
  size_t nlen = strlen(proto->name), mlen = strlen(model);
  char *names = malloc(nlen + mlen + 2); /* "name\0model": one free releases both */
  if (names == NULL)
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  memcpy(names, proto->name, nlen + 1);
  memcpy(names + nlen + 1, model, mlen + 1);
  *j = *proto;
  j->name = names, j->model = names + nlen + 1;
  s->ran = 0;
  return (int)s->njobs++;
}

static int add_job(ns_sim *s, const char *name, double arrival_ms, int gpus, uint64_t iterations,
                   double compute_ms, uint64_t model_bytes, double mem_mb) {
  static const char fn[] = "ns_sim_add_job";
  NSI_TRY(check_job(fn, name, arrival_ms, gpus, iterations));
  NSI_TRY(nsi_check_finite_gt0(compute_ms, fn, "compute_ms"));
  NSI_TRY(nsi_check_finite_ge0(mem_mb, fn, "mem_mb"));
  nsi_simjob proto = {0};
  proto.name = (char *)name;
  proto.gpus = gpus, proto.iterations = iterations, proto.arrival_ms = arrival_ms;
  proto.compute_ms = compute_ms, proto.model_bytes = model_bytes, proto.mem_mb = mem_mb;
  return append_job(s, fn, &proto);
}

int ns_sim_add_job(ns_sim *s, const char *name, double arrival_ms, int gpus, uint64_t iterations,
                   double compute_ms, uint64_t model_bytes, double mem_mb) {
  NSI_SIM_CALL(s, "ns_sim_add_job", NSI_SIM_WRITE,
               add_job(s, name, arrival_ms, gpus, iterations, compute_ms, model_bytes, mem_mb));
}

static int set_job_allreduce(ns_sim *s, int job, ns_sim_allreduce algorithm) {
  static const char fn[] = "ns_sim_set_job_allreduce";
  NSI_TRY(nsi_check_int(job, 0, (long long)s->njobs - 1, fn, "job"));
  NSI_TRY(nsi_check_int((long long)(int)algorithm, NS_SIM_ALLREDUCE_RING, NS_SIM_ALLREDUCE_HD, fn,
                        "algorithm"));
  s->jobs[job].ar = 1 + (int)algorithm;
  s->ran = 0;
  return NS_OK;
}

int ns_sim_set_job_allreduce(ns_sim *s, int job, ns_sim_allreduce algorithm) {
  NSI_SIM_CALL(s, "ns_sim_set_job_allreduce", NSI_SIM_WRITE, set_job_allreduce(s, job, algorithm));
}

static int add_model_job(ns_sim *s, const char *name, double arrival_ms, int gpus,
                         uint64_t iterations, ns_sim_model model) {
  static const char fn[] = "ns_sim_add_model_job";
  NSI_TRY(check_job(fn, name, arrival_ms, gpus, iterations));
  NSI_TRY(nsi_check_int((long long)model, 0, NS_SIM_MODEL_LSTM_PTB, fn, "model"));
  nsi_model m;
  nsi_sim_model_builtin((int)model, &m);
  nsi_simjob proto = {0};
  proto.name = (char *)name, proto.model = m.name;
  proto.gpus = gpus, proto.iterations = iterations, proto.arrival_ms = arrival_ms;
  proto.compute_ms = m.compute_ms, proto.model_bytes = m.bytes, proto.mem_mb = m.mem_mb;
  return append_job(s, fn, &proto);
}

int ns_sim_add_model_job(ns_sim *s, const char *name, double arrival_ms, int gpus,
                         uint64_t iterations, ns_sim_model model) {
  NSI_SIM_CALL(s, "ns_sim_add_model_job", NSI_SIM_WRITE,
               add_model_job(s, name, arrival_ms, gpus, iterations, model));
}

int nsi_sim_add_job_model(ns_sim *s, const char *fn, const char *name, const char *model,
                          double arrival_ms, int gpus, uint64_t iterations, double compute_ms,
                          uint64_t model_bytes, double mem_mb) {
  NSI_TRY(check_job(fn, name, arrival_ms, gpus, iterations));
  NSI_TRY(nsi_check_finite_gt0(compute_ms, fn, "compute_ms"));
  NSI_TRY(nsi_check_finite_ge0(mem_mb, fn, "mem_mb"));
  nsi_simjob proto = {0};
  proto.name = (char *)name, proto.model = model;
  proto.gpus = gpus, proto.iterations = iterations, proto.arrival_ms = arrival_ms;
  proto.compute_ms = compute_ms, proto.model_bytes = model_bytes, proto.mem_mb = mem_mb;
  return append_job(s, fn, &proto);
}

#define NPROFILES ((int)(sizeof profiles / sizeof profiles[0]))

int ns_sim_model_count(void) { return NPROFILES; }

int ns_sim_model_profile(ns_sim_model model, const char **name, uint64_t *model_bytes,
                         double *fwd_ms, double *bwd_ms, double *mem_mb) {
  NSI_TRY(nsi_check_int((long long)model, 0, NPROFILES - 1, "ns_sim_model_profile", "model"));
  const nsi_profile *p = &profiles[model];
  if (name)
    *name = p->name;
  if (model_bytes)
    *model_bytes = (uint64_t)llround(p->model_mb * 1e6);
  if (fwd_ms)
    *fwd_ms = p->fwd_ms;
  if (bwd_ms)
    *bwd_ms = p->bwd_ms;
  if (mem_mb)
    *mem_mb = p->mem_mb;
  return NS_OK;
}

void nsi_sim_model_builtin(int m, nsi_model *out) {
  out->name = (char *)profiles[m].name;
  out->compute_ms = profiles[m].fwd_ms + profiles[m].bwd_ms;
  out->bytes = (uint64_t)llround(profiles[m].model_mb * 1e6);
  out->mem_mb = profiles[m].mem_mb;
}

int nsi_sim_model_lookup(const ns_sim *s, const char *model_name, nsi_model *out) {
  static const struct { const char *prefix; int model; } map[] = {
      {"vgg", NS_SIM_MODEL_VGG16},         {"alexnet", NS_SIM_MODEL_VGG16},
      {"resnet", NS_SIM_MODEL_RESNET50},   {"inception", NS_SIM_MODEL_INCEPTION_V3},
      {"googlenet", NS_SIM_MODEL_INCEPTION_V3}, {"lstm", NS_SIM_MODEL_LSTM_PTB},
  };
  for (size_t i = 0; i < s->nmodels; i++)
    if (strcmp(model_name, s->models[i].name) == 0) {
      *out = s->models[i];
      return NS_OK;
    }
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (strncmp(model_name, map[i].prefix, strlen(map[i].prefix)) == 0) {
      nsi_sim_model_builtin(map[i].model, out);
      return NS_OK;
    }
  return NS_ENOTFOUND;
}

int nsi_sim_add_profile(ns_sim *s, const char *fn, const char *name, double forward_ms,
                        double backward_ms, uint64_t model_bytes, double mem_mb) {
  NSI_TRY(nsi_check_ptr(name, fn, "name"));
  size_t len = strlen(name);
  if (len == 0 || len > 255)
    return nsi_fail(NS_EINVAL, "%s: name must be 1..255 bytes (got %zu)", fn, len);
  NSI_TRY(nsi_check_finite_ge0(forward_ms, fn, "forward_ms"));
  NSI_TRY(nsi_check_finite_ge0(backward_ms, fn, "backward_ms"));
  if (!(forward_ms + backward_ms > 0))
    return nsi_fail(NS_EINVAL, "%s: forward_ms + backward_ms must be > 0 (got %s + %s)", fn,
                    NSI_REAL_STR(forward_ms), NSI_REAL_STR(backward_ms));
  NSI_TRY(nsi_check_finite_ge0(mem_mb, fn, "mem_mb"));
  nsi_model m = {NULL, forward_ms + backward_ms, mem_mb, model_bytes};
  for (size_t i = 0; i < s->nmodels; i++)
    if (strcmp(name, s->models[i].name) == 0) { /* replace, keep the name */
      m.name = s->models[i].name;
      s->models[i] = m;
      return NS_OK;
    }
  NSI_TRY(nsi_reserve(&s->models, &s->cap_models, s->nmodels + 1, sizeof *s->models));
  m.name = nsi_strdup(name);
  if (m.name == NULL)
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  s->models[s->nmodels++] = m;
  return NS_OK;
}

int ns_sim_add_model_profile(ns_sim *s, const char *name, double forward_ms, double backward_ms,
                             uint64_t model_bytes, double mem_mb) {
  static const char fn[] = "ns_sim_add_model_profile";
  NSI_SIM_CALL(s, fn, NSI_SIM_WRITE,
               nsi_sim_add_profile(s, fn, name, forward_ms, backward_ms, model_bytes, mem_mb));
}

static int load_default_workload(ns_sim *s) {
  static const int sizes[6] = {1, 2, 4, 8, 16, 32};
  static const int counts[6] = {80, 14, 26, 30, 8, 2}; /* §V-A: 160 jobs */
  int gpus[160], n = 0;
  for (int k = 0; k < 6; k++)
    for (int i = 0; i < counts[k]; i++)
      gpus[n++] = sizes[k];
  uint64_t st = s->o.seed;
  for (int i = n - 1; i > 0; i--) { /* Fisher-Yates: sizes in random order */
    int r = (int)(nsi_splitmix64(&st) % (uint64_t)(i + 1));
    int t = gpus[i];
    gpus[i] = gpus[r], gpus[r] = t;
  }
  size_t before = s->njobs;
  int added = 0, skipped_before = s->skipped;
  for (int i = 0; i < n; i++) {
    double arrival = (double)(nsi_splitmix64(&st) % 1200001ull); /* ms in [0, 1200 s] */
    uint64_t iters = 1000 + nsi_splitmix64(&st) % 5001ull;
    ns_sim_model m = (ns_sim_model)(nsi_splitmix64(&st) % 4ull);
    char name[64];
    snprintf(name, sizeof name, "job%03d-%s", i, profiles[m].name);
    int rc = add_model_job(s, name, arrival, gpus[i], iters, m);
    if (rc >= 0)
      added++;
    else if (rc != NS_ENOSPACE) {
      while (s->njobs > before) /* all or nothing */
        free(s->jobs[--s->njobs].name);
      s->skipped = skipped_before;
      return rc;
    }
  }
  return added;
}

int ns_sim_load_default_workload(ns_sim *s) {
  NSI_SIM_CALL(s, "ns_sim_load_default_workload", NSI_SIM_WRITE, load_default_workload(s));
}

double nsi_sim_eq5_b(const ns_sim_opts *o) {
  return o->eq5_b >= 0 ? o->eq5_b : 0.856e-6 * 10.0 / o->link_gbps; /* 0.856 ms/MB at 10 GbE */
}

double nsi_sim_eq5_eta(const ns_sim_opts *o) {
  return o->eq5_eta >= 0 ? o->eq5_eta : 0.235e-6 * 10.0 / o->link_gbps;
}

/* The all-reduce of a job alone, consolidated on as few servers as
   possible: inside one server over its fabric; across servers the NIC ring
   (Eq. 5 with k = 1 under CONTENTION); nothing under IDEAL. */
double nsi_sim_comm_consolidated_ms(const ns_sim_opts *o, int gpus, uint64_t model_bytes) {
  if (gpus <= 1 || o->network == NS_SIM_NET_IDEAL)
    return 0.0;
  double frac = 2.0 * (gpus - 1) / gpus;
  if (gpus <= o->gpus_per_server)
    return frac * (double)model_bytes * 8.0 / (o->intra_gbps * 1e6);
  if (o->network == NS_SIM_NET_CONTENTION)
    return ns_comm_time_ms(o->eq5_a, nsi_sim_eq5_b(o), nsi_sim_eq5_eta(o), 1, model_bytes);
  return frac * (double)model_bytes * 8.0 / (nsi_sim_nic_gbps(o) * 1e6);
}

double nsi_sim_ideal_iter_ms(const ns_sim_opts *o, const nsi_simjob *j) {
  return j->compute_ms + nsi_sim_comm_consolidated_ms(o, j->gpus, j->model_bytes);
}

/* Bandwidth of one inter-server flow: the NIC, capped by the fabric links. */
double nsi_sim_nic_gbps(const ns_sim_opts *o) {
  double nic = o->nic_gbps > 0 ? o->nic_gbps : o->link_gbps;
  return nic < o->link_gbps ? nic : o->link_gbps;
}

int ns_sim_set_progress(ns_sim *s, ns_sim_progress_fn fn, void *user) {
  NSI_TRY(nsi_sim_enter(s, "ns_sim_set_progress", NSI_SIM_WRITE));
  s->progress = fn, s->progress_user = user;
  nsi_sim_leave(s, NSI_SIM_WRITE);
  return NS_OK;
}

static int scale_arrivals(ns_sim *s, double factor) {
  static const char fn[] = "ns_sim_scale_arrivals";
  NSI_TRY(nsi_check_real_gt0(factor, fn, "factor"));
  if (s->njobs == 0 || factor == 1.0)
    return NS_OK; /* exact no-op: (a - a0) + a0 may round */
  double a0 = s->jobs[0].arrival_ms, last = a0;
  for (size_t i = 1; i < s->njobs; i++) {
    a0 = fmin(a0, s->jobs[i].arrival_ms);
    last = fmax(last, s->jobs[i].arrival_ms);
  }
  if (!isfinite(a0 + factor * (last - a0))) /* checked before anything changes */
    return nsi_fail(NS_EINVAL, "%s: factor %g makes the last arrival overflow", fn, factor);
  for (size_t i = 0; i < s->njobs; i++)
    s->jobs[i].arrival_ms = a0 + factor * (s->jobs[i].arrival_ms - a0);
  s->ran = 0;
  return NS_OK;
}

int ns_sim_scale_arrivals(ns_sim *s, double factor) {
  NSI_SIM_CALL(s, "ns_sim_scale_arrivals", NSI_SIM_WRITE, scale_arrivals(s, factor));
}

typedef struct keep_key {
  double t;
  size_t i;
} keep_key;

static int by_arrival_then_index(const void *a, const void *b) {
  const keep_key *x = a, *y = b;
  if (x->t != y->t)
    return x->t < y->t ? -1 : 1;
  return (x->i > y->i) - (x->i < y->i);
}

/* Keeps the n jobs that arrive first (ties: the one added first), in the
   order they were added; frees the others. Nothing changes on failure. */
static int keep_first(ns_sim *s, int n) {
  static const char fn[] = "ns_sim_keep_first";
  if (n < 0)
    return nsi_fail(NS_EINVAL, "%s: n must be >= 0 (got %d)", fn, n);
  if ((size_t)n >= s->njobs)
    return NS_OK; /* nothing to drop; the last run's results stay */
  keep_key *key = malloc(s->njobs * sizeof *key);
  unsigned char *keep = calloc(s->njobs, 1);
  if (key == NULL || keep == NULL) {
    free(key), free(keep);
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  }
  for (size_t i = 0; i < s->njobs; i++)
    key[i].t = s->jobs[i].arrival_ms, key[i].i = i;
  qsort(key, s->njobs, sizeof *key, by_arrival_then_index);
  for (size_t i = 0; i < (size_t)n; i++)
    keep[key[i].i] = 1;
  size_t w = 0;
  for (size_t i = 0; i < s->njobs; i++) {
    if (keep[i])
      s->jobs[w++] = s->jobs[i];
    else
      free(s->jobs[i].name);
  }
  s->njobs = w;
  s->ran = 0;
  free(key), free(keep);
  return NS_OK;
}

int ns_sim_keep_first(ns_sim *s, int n) {
  NSI_SIM_CALL(s, "ns_sim_keep_first", NSI_SIM_WRITE, keep_first(s, n));
}
