/*
 * src/core/internal.h - library-internal definitions shared by every module.
 *
 * Policy modules include this (never each other). It exposes the handle
 * structs so that algorithms can read the cluster state without a call per
 * field, plus the error and validation helpers every public entry point uses.
 */
#ifndef NS_CORE_INTERNAL_H
#define NS_CORE_INTERNAL_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "netsched.h"

#if defined(__GNUC__) || defined(__clang__)
#define NSI_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define NSI_PRINTF(a, b)
#endif

/* ---- errors ---------------------------------------------------------- */

/* Records a one-line message for ns_last_error() and returns `status`.
   Use as `return nsi_fail(NS_EINVAL, "ns_x: gpus must be >= 1 (got %d)", g);`
   An argument may be ns_last_error() itself, to add context to an inner
   failure: `nsi_fail(rc, "ns_y: job '%s': %s", name, ns_last_error())`. */
int nsi_fail(int status, const char *fmt, ...) NSI_PRINTF(2, 3);

/* Propagate a negative status. */
#define NSI_TRY(expr)          \
  do {                         \
    int nsi_rc_ = (expr);      \
    if (nsi_rc_ < 0)           \
      return nsi_rc_;          \
  } while (0)

/* Validation helpers: NS_OK, or NS_EINVAL with "fn: arg ..." recorded.
   The checks called per job of a queue at every decision are inline (the
   test in the caller, the message out of line): a call each cost ~5 % of a
   preemptive policy's run on the Philly trace. */
int nsi_null_arg(const char *fn, const char *arg); /* records "fn: arg is NULL" */
static inline int nsi_check_ptr(const void *p, const char *fn, const char *arg) {
  return p == NULL ? nsi_null_arg(fn, arg) : NS_OK;
}
int nsi_check_int(long long v, long long lo, long long hi, const char *fn, const char *arg);
/* The product of n factors (each >= 0) computed without overflow: NS_OK with
   *out set when it is at most `limit`, else NS_EINVAL "fn: what (a*b*c)
   exceeds limit" naming the factors as given (the product itself may not
   fit any integer type). `what` names the arguments, e.g.
   "leaves*spines*links_per_pair". */
int nsi_check_product(const long long *factors, int n, long long limit, const char *fn,
                      const char *what, long long *out);
/* Every real argument (times in ms, rates in Gbps, memory in MB, costs per
   byte) is at most NSI_REAL_MAX = 1e15 (~31,700 years in ms, 1 EB/s in
   Gbps): sums and products of a few such values stay finite, so no result
   overflows to inf. */
#define NSI_REAL_MAX 1e15
int nsi_bad_finite_ge0(double v, const char *fn, const char *arg); /* records why v is not */
/* finite, [0, MAX] (NaN fails both comparisons, +inf the second) */
static inline int nsi_check_finite_ge0(double v, const char *fn, const char *arg) {
  return v >= 0 && v <= NSI_REAL_MAX ? NS_OK : nsi_bad_finite_ge0(v, fn, arg);
}
int nsi_check_finite_gt0(double v, const char *fn, const char *arg); /* finite, (0, MAX] */
/* Without the cap, for pure computations (ns_comm_time_ms, cost models,
   priorities) that report an overflowing result themselves (NS_ERANGE). */
int nsi_check_real_ge0(double v, const char *fn, const char *arg);
int nsi_check_real_gt0(double v, const char *fn, const char *arg);
/* v formatted as the caller most likely wrote it: the shortest %g that
   reads back as v. Returns buf. */
const char *nsi_fmt_real(double v, char *buf, size_t len);
/* The same as an expression for a message argument ("(got %s)"): the
   buffer is a compound literal living until the end of the enclosing block. */
#define NSI_REAL_STR(v) nsi_fmt_real((v), (char[32]){0}, 32)

/* ---- "did you mean" (names.c) ----------------------------------------- */

/* Index of the name in names[0 .. n) closest to s by Levenshtein distance,
   within a third of s's length and at least 2 edits (1 for a 1-2 character
   s); the first of equally close names; -1 if none (or s is empty or longer
   than 64 bytes). The rule of ns_closest_name. */
int nsi_closest_name(const char *s, const char *const *names, int n);
/* Records NS_EINVAL "fn: arg 'value' is not a what; did you mean 'Y'?
   (valid: a, b, ...)" - the hint only when a name is close - and returns
   NS_EINVAL. */
int nsi_fail_unknown_name(const char *fn, const char *arg, const char *value, const char *what,
                          const char *const *names, int n);

/* ---- memory ---------------------------------------------------------- */

/* Ensures *buf holds at least `need` elements of `elem` bytes, growing
   geometrically. NS_OK or NS_ENOMEM (buffer untouched). */
int nsi_reserve(void *bufp, size_t *cap, size_t need, size_t elem);
char *nsi_strdup(const char *s);
/* splitmix64 (Steele, Lea, Flood 2014): the library's one deterministic
   generator step, for seeded policies and the simulator. nsi_hash64 is the
   same mix applied to a value (a stateless hash). */
uint64_t nsi_splitmix64(uint64_t *state);
static inline uint64_t nsi_hash64(uint64_t x) { return nsi_splitmix64(&x); }
/* qsort comparator for int. */
int nsi_cmp_int(const void *a, const void *b);
/* Removes the first x from v[0 .. *n), keeping the others' order (a no-op
   when x is absent). */
void nsi_remove_int(int *v, size_t *n, int x);
/* Writes the distinct values of ids[i] / divisor (i < n), sorted, to out
   (room for n ints; may not alias ids) and returns how many there are:
   e.g. the servers of a placement's GPUs with divisor = GPUs per server. */
size_t nsi_distinct_groups(const int *ids, size_t n, int divisor, int *out);

/* ---- output files (outfile.c) ------------------------------------------ */

/* A file written whole or not at all: open gives o->f on a temporary file
   next to `path` (or `path` itself when it exists and is not a regular
   file, e.g. /dev/stdout); commit closes it and renames it over `path`,
   abort removes it. A failure of either leaves `path` as it was: NS_EINVAL
   "fn: path '...' ..." (a directory, unwritable, a write error) or
   NS_ENOMEM. */
typedef struct nsi_outfile {
  FILE *f;
  const char *path;
  char *tmp;
} nsi_outfile;
int nsi_outfile_open(nsi_outfile *o, const char *path, const char *fn);
int nsi_outfile_commit(nsi_outfile *o, const char *fn);
void nsi_outfile_abort(nsi_outfile *o);

/* ---- key -> index map (ptrmap.c) --------------------------------------- */

/* Open-addressing map from a nonzero 64-bit key (a handle's address, or a
   packed pair) to an index: linear-time graph building and duplicate
   checks. Zero-initialise to get an empty map. */
typedef struct nsi_ptrmap {
  uint64_t *keys; /* 0 = empty slot */
  size_t *vals;
  size_t cap, count;
} nsi_ptrmap;

static inline uint64_t nsi_key_ptr(const void *p) { return (uint64_t)(uintptr_t)p; }
/* Index of key, or SIZE_MAX. */
size_t nsi_ptrmap_get(const nsi_ptrmap *m, uint64_t key);
/* Makes room for `extra` more keys, so that that many puts cannot fail. */
int nsi_ptrmap_reserve(nsi_ptrmap *m, size_t extra);
/* Inserts key -> val (key nonzero and absent). NS_OK / NS_ENOMEM. */
int nsi_ptrmap_put(nsi_ptrmap *m, uint64_t key, size_t val);
/* The value stored for key, to change in place, or NULL if key is absent. */
size_t *nsi_ptrmap_ref(nsi_ptrmap *m, uint64_t key);
/* Removes key (absent: nothing happens). Never fails, never shrinks. */
void nsi_ptrmap_del(nsi_ptrmap *m, uint64_t key);
/* Removes every key, keeping the room (O(capacity)). */
void nsi_ptrmap_clear(nsi_ptrmap *m);
void nsi_ptrmap_free(nsi_ptrmap *m);

/* ---- the policy queue (netsched/policy.h's ns_queue) -------------------

   Defined here, not in src/policy, so that the simulator can fill it
   without a call per field: the preemptive orders queue every waiting and
   running job at every decision (~900 on the whole Philly trace at 2048
   GPUs), and ns_queue_add(_running) + ns_queue_set_attained_ms per job cost
   more than the entry's writes. nsi_queue_put is that pair with the checks
   left to its caller: room reserved (nsi_queue_reserve), job not NULL,
   gpus = ns_job_gpus(job), arrival finite, attained finite and >= 0; the
   entry is the one the public calls make. Every other use goes through the
   public calls. */
typedef struct nsi_qentry {
  const ns_job *job;
  uint64_t id;
  double arrival, ideal, nw, since;
  int since_set;
  int running;     /* ns_queue_add_running / ns_queue_set_running */
  double attained; /* GPU-ms (ns_queue_set_attained_ms), 0 unless set */
  int gpus;        /* job's (read when added: fixed at ns_job_new) */
} nsi_qentry;

struct ns_queue {
  nsi_qentry *e;
  size_t n, cap;
};

/* Room for n entries in all (NS_OK or NS_ENOMEM, the queue unchanged). */
static inline int nsi_queue_reserve(ns_queue *q, size_t n) {
  return n <= q->cap ? 0 : nsi_reserve(&q->e, &q->cap, n, sizeof *q->e);
}

static inline void nsi_queue_put(ns_queue *q, const ns_job *job, int gpus, uint64_t id,
                                 double arrival_ms, int running, double attained_gpu_ms) {
  nsi_qentry *e = &q->e[q->n++];
  e->job = job, e->gpus = gpus, e->id = id, e->arrival = arrival_ms;
  e->ideal = NAN, e->nw = NAN, e->since = arrival_ms, e->since_set = 0;
  e->running = running, e->attained = attained_gpu_ms;
}

/* ---- jobs ------------------------------------------------------------ */

typedef struct nsi_phase {
  double duration_ms;
  double gbps;
} nsi_phase;

struct ns_job {
  char *name;
  int gpus;
  double iteration_ms; /* 0 = unset */
  nsi_phase *phases;
  size_t nphases, cap_phases;
  double forward_ms, backward_ms;
  uint64_t model_bytes;
  ns_collective collective;
  uint64_t iters_total, iters_done;
  double mem_mb;
};

/* NS_OK if the job has phases that tile its iteration (within 1e-6
   relative), else NS_EINVAL naming `fn` and by how much they miss. */
int nsi_job_check_phases(const ns_job *job, const char *fn);
/* L_J of LWF-kappa: (fwd + bwd) * remaining iterations * gpus, in ms. */
double nsi_job_lwf_workload_ms(const ns_job *job);

/* ---- links ----------------------------------------------------------- */

struct ns_link {
  char *name;
  double capacity_gbps;
  const ns_job **jobs;
  size_t njobs, cap_jobs;
  nsi_ptrmap set; /* duplicate check once a link carries many jobs (link.c) */
};

/* ---- placements ------------------------------------------------------ */

typedef struct nsi_uplink {
  int leaf, spine, k; /* k-th parallel link of the (leaf, spine) pair */
} nsi_uplink;

struct ns_placement {
  int *gpus;
  size_t ngpus, cap_gpus;
  nsi_uplink *links;
  size_t nlinks, cap_links;
  int virtual_leaves, virtual_spines;
  int bound; /* geometry below is valid */
  int servers_per_leaf, gpus_per_server;
};

/* Appends a reserved leaf-spine link (vClos). NS_OK / NS_ENOMEM. */
int nsi_placement_add_link(ns_placement *p, int leaf, int spine, int k);
/* Copies src into dst (dst's buffers reused). NS_OK / NS_ENOMEM; on
   failure dst is unchanged. */
int nsi_placement_copy(ns_placement *dst, const ns_placement *src);

/* ---- cluster --------------------------------------------------------- */

typedef struct nsi_commit {
  const ns_job *job;
  int *gpus;
  size_t ngpus;
  nsi_uplink *links;
  size_t nlinks;
  int virtual_leaves, virtual_spines;
  double mem_mb;      /* per GPU */
  double workload_ms; /* L_J added to each GPU */
} nsi_commit;

struct ns_cluster {
  int leaves, spines, servers_per_leaf, gpus_per_server, links_per_pair;
  double link_gbps;
  int nic_ports;      /* NIC ports per server (core.h "Port model"); default gpus_per_server */
  double nic_gbps;    /* rate of each NIC port; default link_gbps */
  int ocs_count;
  double gpu_mem_mb;
  int sharing;
  int ngpus, nservers;
  /* per GPU */
  double *workload_ms;
  double *mem_used_mb;
  int *jobs_on_gpu;
  unsigned char *background;
  int nfree; /* GPUs with no job and no background load (nsi_gpu_free), kept as they change */
  /* per leaf-spine link, index nsi_link_index() */
  const ns_job **link_owner;
  size_t nlinks;
  /* OCS layer (ocs_count > 0, see ocs.c): owner of each leaf uplink port
     (leaves * spines * links_per_pair) and circuits in use per (spine, OCS)
     (spines * ocs_count). In OCS mode a placement link (leaf, spine, k)
     is a circuit from leaf port k to `spine`, and link_owner is unused. */
  const ns_job **ocs_leaf_port;
  int *ocs_spine_used;
  /* committed jobs */
  nsi_commit *commits;
  size_t ncommits, cap_commits;
};

static inline int nsi_server_of_gpu(const ns_cluster *c, int gpu) {
  return gpu / c->gpus_per_server;
}
static inline int nsi_leaf_of_server(const ns_cluster *c, int server) {
  return server / c->servers_per_leaf;
}
static inline int nsi_leaf_of_gpu(const ns_cluster *c, int gpu) {
  return gpu / (c->gpus_per_server * c->servers_per_leaf);
}
static inline size_t nsi_link_index(const ns_cluster *c, int leaf, int spine, int k) {
  return ((size_t)leaf * (size_t)c->spines + (size_t)spine) * (size_t)c->links_per_pair +
         (size_t)k;
}
/* Uplink port `port` (0 <= port < spines * links_per_pair) of `leaf`: the
   index of both the static link table (port = spine * links_per_pair + k,
   so this equals nsi_link_index) and the OCS leaf-port table. */
static inline size_t nsi_leaf_port_index(const ns_cluster *c, int leaf, int port) {
  return (size_t)leaf * (size_t)c->spines * (size_t)c->links_per_pair + (size_t)port;
}
/* The NIC port (global id, server-major: server * nic_ports + local port)
   that GPU `gpu` sends and receives through (core.h "Port model"): the
   server's GPUs are split into nic_ports contiguous groups, local GPU i on
   port i * nic_ports / gpus_per_server. Default (one port per GPU): the
   port id is the GPU id. */
static inline int nsi_nic_port_of_gpu(const ns_cluster *c, int gpu) {
  int s = gpu / c->gpus_per_server, i = gpu % c->gpus_per_server;
  return s * c->nic_ports + (int)((long long)i * c->nic_ports / c->gpus_per_server);
}
/* ECMP (core.h "Port model"): the spine and the parallel link a flow from
   NIC port `src_port` to NIC port `dst_port` crosses between two leaves of a
   fabric of `spines` spines x `links_per_pair` parallel links (both >= 1):
   a fixed hash of the port pair, the same for every job. The one ECMP
   choice of the library (CASSINI candidates) and the simulator's network
   models, so that both load the same links. */
void nsi_ecmp_route(int spines, int links_per_pair, int src_port, int dst_port, int *spine,
                    int *k);
/* 1 if the GPU holds no job and no background load. */
static inline int nsi_gpu_free(const ns_cluster *c, int gpu) {
  return c->jobs_on_gpu[gpu] == 0 && !c->background[gpu];
}
/* 1 if a job needing `mem_mb` per GPU could be added to `gpu` now
   (exclusive: free; sharing: not background-busy and memory fits). */
int nsi_gpu_can_host(const ns_cluster *c, int gpu, double mem_mb);
/* The one "never fits" test every policy shares (core.h): NS_EINVAL naming
   `fn` if the job asks for more GPUs than the cluster has or more memory
   per GPU than a GPU has; NS_OK otherwise. Valid c and job. */
int nsi_check_job_fits(const ns_cluster *c, const ns_job *job, const char *fn);
/* Free GPUs on `server` and idle (all GPUs free) servers of `leaf`, without
   argument checks: the public ns_cluster_free_gpus_on_server /
   ns_cluster_idle_servers_on_leaf for modules that already hold valid ids. */
int nsi_free_gpus_on_server(const ns_cluster *c, int server);
int nsi_idle_servers_on_leaf(const ns_cluster *c, int leaf);
/* Uplinks of `leaf` not reserved by any job: static leaf-spine links, or
   with an OCS layer the leaf's unused OCS ports. */
int nsi_leaf_free_uplinks(const ns_cluster *c, int leaf);
/* Index of the job's commit record, or -1. */
long nsi_find_commit(const ns_cluster *c, const ns_job *job);
/* A tentative release that can be undone without allocating (the policy's
   decisions release running jobs to place others, then put c back):
   nsi_cluster_detach takes job's commit off c exactly as ns_cluster_release
   does, but hands its record (and the arrays it owns) to *out; it returns
   the index the record had (the release moved the last record there), or
   -1 if job is not committed. nsi_cluster_reattach puts such a record back
   at that index, moving the record found there to the end, so that
   detaches undone in reverse order leave c's commit list as it was. It
   cannot fail: the commit array kept its room, the GPUs and links the
   record holds were freed by the detach and nothing took them since (the
   caller releases what it committed in between first). */
long nsi_cluster_detach(ns_cluster *c, const ns_job *job, nsi_commit *out);
void nsi_cluster_reattach(ns_cluster *c, const nsi_commit *r, size_t at);

/* ---- OCS layer (ocs.c) ------------------------------------------------ */

/* Allocates the port state for `ocs_count` OCSes (replacing any). */
int nsi_ocs_init(ns_cluster *c, int ocs_count);
void nsi_ocs_free(ns_cluster *c);
/* The OCS that leaf port `port` (0 <= port < spines * links_per_pair) of
   `leaf` attaches to. */
static inline int nsi_ocs_of_leaf_port(const ns_cluster *c, int leaf, int port) {
  return (int)(((long long)leaf * c->links_per_pair + port) % c->ocs_count);
}
/* Spine ports of `spine` attached to OCS `ocs` (static wiring). */
int nsi_ocs_spine_ports(const ns_cluster *c, int spine, int ocs);
/* Commit: validates p's circuits and claims them for `job` (not yet
   committed) in one linear pass; NS_EINVAL / NS_ENOSPACE with every claim
   undone. */
int nsi_ocs_claim_links(ns_cluster *c, const ns_job *job, const ns_placement *p, const char *fn);
/* Marks circuits as used by `job`, or frees them when job == NULL. */
void nsi_ocs_apply(ns_cluster *c, const nsi_uplink *links, size_t n, const ns_job *job);

#endif /* NS_CORE_INTERNAL_H */
