/*
 * netsched/core.h - version, status codes, jobs, links, cluster, placements.
 * Included by <netsched.h>; do not include directly.
 */
#ifndef NETSCHED_CORE_H
#define NETSCHED_CORE_H

#include <stddef.h>
#include <stdint.h>

#if defined(NS_BUILDING) && (defined(__GNUC__) || defined(__clang__))
#define NS_API __attribute__((visibility("default")))
#else
#define NS_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Version and errors                                                  */
/* ------------------------------------------------------------------ */

/* The library's version string, e.g. "0.1.0" (of the library actually
   loaded, which may differ from NS_VERSION_STRING the caller compiled with). */
NS_API const char *ns_version(void);
/* MAJOR*10000 + MINOR*100 + PATCH of the loaded library. */
NS_API int ns_version_number(void);

/* Status codes. Values are part of the ABI and never change. */
typedef enum ns_status {
  NS_OK = 0,
  NS_EINVAL = -1,      /* bad argument: NULL handle, out of range, NaN ... */
  NS_ENOMEM = -2,      /* allocation failed */
  NS_ENOTFOUND = -3,   /* no such job / object */
  NS_ENOSPACE = -4,    /* no feasible placement now: the job should wait */
  NS_ESTATE = -5,      /* object in the wrong state (e.g. already committed) */
  NS_ELOOP = -6,       /* Affinity graph has a cycle */
  NS_ERANGE = -7,      /* numeric limit exceeded (e.g. unified-circle perimeter) */
  NS_ESOLVER = -8,     /* MILP backend failed or is unavailable */
  NS_EUNSUPPORTED = -9, /* operation not supported by this build/topology */
  NS_ECANCELED = -10    /* stopped on request (ns_sim_cancel); nothing half-done is kept */
} ns_status;

/* A job that can never fit the cluster -- more GPUs than the cluster has,
   or more memory per GPU than a GPU has -- is NS_EINVAL from every policy
   (LWF-kappa, FF, LS, RAND, Titan, best-fit, Tiresias-style, Dally,
   vClos/OCS-vClos), with a message naming the job and both numbers: no
   amount of waiting helps, so it is a bad argument for this cluster, not
   NS_ENOSPACE ("wait"). vClos also returns NS_EINVAL when no stage fits
   the fabric even empty (no l x s virtual Clos, more than one leaf holds,
   and with OCS no single spine); a job that only one leaf could hold
   waits (NS_ENOSPACE). */

/* Real-valued arguments (times in ms, rates in Gbps, memory in MB, costs
   per byte) of every setter, constructor and policy entry point must be
   finite, non-negative and at most 1e15 (~31,700 years in ms) unless their
   documentation says otherwise: sums and products of a few of them then
   stay finite. A value outside its range is NS_EINVAL with a message that
   names the argument, its limit and the value as the caller most likely
   wrote it (the shortest decimal that reads back as it: "-0.1", "1e+300",
   "nan"). Pure computations (ns_comm_time_ms, ns_allreduce_cost,
   ns_dally_priority) take any finite non-negative value and report an
   overflowing result as NS_ERANGE / NaN instead. */

/* Static English name of a status ("invalid argument" ...); never NULL. */
NS_API const char *ns_strerror(int status);
/* One line describing the calling thread's most recent failure, naming the
   function and the offending argument. Never NULL; "" before any failure.
   Only meaningful right after a call returned an error (successful calls do
   not clear it). The pointer stays valid until the thread's next call. */
NS_API const char *ns_last_error(void);
/* "Did you mean": the index in names[0 .. n) of the name closest to `name`
   by edit distance (Levenshtein: each insertion, deletion or substitution
   of a byte is one edit) when it is within a third of name's length and at
   least 2 edits (1 edit for a name of 1-2 bytes); of equally close names
   the first. The library's own messages about an unknown name use the same
   rule ("ns_policy_new: preset 'fff' is not a policy; did you mean 'ff'?
   (valid: ...)"); callers use it for the names only they know (their
   command-line options, values). NS_ENOTFOUND when no name is that close,
   or name is empty or longer than 64 bytes (longer entries are never
   close): an answer, not a failure, so ns_last_error() is left as it was
   and still describes the call that rejected the name. NS_EINVAL naming
   the argument: name NULL, n outside [0, 1<<20], names NULL with n > 0, a
   NULL entry. Reads only its arguments; safe from any thread. */
NS_API int ns_closest_name(const char *name, const char *const *names, int n);

/* Collective algorithm of a job's all-reduce / exchange. */
typedef enum ns_collective {
  NS_COLL_RING = 0,
  NS_COLL_HALVING_DOUBLING = 1,
  NS_COLL_TREE = 2,
  NS_COLL_ALL_TO_ALL = 3
} ns_collective;

/* Locality tier of a placement (Dally): all GPUs on one machine, in one rack
   (leaf switch), or spread across the network (spines). */
typedef enum ns_tier {
  NS_TIER_MACHINE = 0,
  NS_TIER_RACK = 1,
  NS_TIER_NETWORK = 2
} ns_tier;

/* ------------------------------------------------------------------ */
/* Jobs                                                                */
/* ------------------------------------------------------------------ */

typedef struct ns_job ns_job;

/* A training job asking for `gpus` GPUs (1 <= gpus <= 1<<20). `name` is
   copied (NULL or longer than 255 bytes is rejected). Defaults: no phases,
   iteration 0 ms (unset), compute 0/0 ms, model 0 bytes, ring collective,
   iterations 1 total / 0 done, GPU memory 0 MB. Returns NULL on error. */
NS_API ns_job *ns_job_new(const char *name, int gpus);
NS_API void ns_job_free(ns_job *job);
/* The job's name; "" for a NULL job. Owned by the job. */
NS_API const char *ns_job_name(const ns_job *job);
/* GPU demand, or NS_EINVAL for a NULL job. */
NS_API int ns_job_gpus(const ns_job *job);

/* Iteration time in ms (finite, > 0). */
NS_API int ns_job_set_iteration_ms(ns_job *job, double iteration_ms);
/* Appends a communication phase of `duration_ms` (finite, > 0) at `gbps`
   (finite, >= 0). Phases tile one iteration from t = 0 in the order added;
   before a CASSINI call uses the job they must sum to the iteration time
   (within 1e-6 relative), else that call fails with NS_EINVAL. At most 65536. */
NS_API int ns_job_add_phase(ns_job *job, double duration_ms, double gbps);
/* Removes all phases. */
NS_API int ns_job_clear_phases(ns_job *job);
/* Forward and backward compute time of one iteration (finite, >= 0). */
NS_API int ns_job_set_compute_ms(ns_job *job, double forward_ms, double backward_ms);
/* All-reduce message (model) size in bytes. */
NS_API int ns_job_set_model_bytes(ns_job *job, uint64_t bytes);
NS_API int ns_job_set_collective(ns_job *job, ns_collective c);
/* Total iterations (>= 1) and iterations already done (<= total). */
NS_API int ns_job_set_iterations(ns_job *job, uint64_t total, uint64_t completed);
/* Memory the job needs on each of its GPUs, in MB (finite, >= 0). */
NS_API int ns_job_set_gpu_memory_mb(ns_job *job, double mb);

/* Getters (extensions). Doubles return NAN for a NULL job; ints NS_EINVAL. */
NS_API double ns_job_iteration_ms(const ns_job *job);
NS_API size_t ns_job_phase_count(const ns_job *job);
NS_API int ns_job_phase(const ns_job *job, size_t i, double *duration_ms, double *gbps);
NS_API int ns_job_compute_ms(const ns_job *job, double *forward_ms, double *backward_ms);
NS_API uint64_t ns_job_model_bytes(const ns_job *job);
NS_API int ns_job_collective(const ns_job *job);
NS_API int ns_job_iterations(const ns_job *job, uint64_t *total, uint64_t *completed);
NS_API double ns_job_gpu_memory_mb(const ns_job *job);

/* ------------------------------------------------------------------ */
/* Links (standalone, for callers with their own topology)             */
/* ------------------------------------------------------------------ */

typedef struct ns_link ns_link;

/* A link of `capacity_gbps` (finite, > 0); `name` copied (NULL allowed:
   the link is then named ""). Returns NULL on error. */
NS_API ns_link *ns_link_new(const char *name, double capacity_gbps);
NS_API void ns_link_free(ns_link *link);
/* Adds a job that traverses the link. The job is borrowed: it must outlive
   every use of the link. Adding the same job twice is NS_EINVAL. */
NS_API int ns_link_add_job(ns_link *link, const ns_job *job);
/* Number of jobs on the link (0 for NULL). */
NS_API size_t ns_link_job_count(const ns_link *link);
/* Capacity in Gbps (NAN for NULL). */
NS_API double ns_link_capacity_gbps(const ns_link *link);
/* Extensions: name ("" for NULL) and the i-th job (NULL if out of range). */
NS_API const char *ns_link_name(const ns_link *link);
NS_API const ns_job *ns_link_job(const ns_link *link, size_t i);

/* ------------------------------------------------------------------ */
/* Cluster                                                             */
/* ------------------------------------------------------------------ */

typedef struct ns_cluster ns_cluster;
typedef struct ns_placement ns_placement;

/* A two-tier leaf-spine cluster: `leaves` leaf (ToR / rack) switches, each
   with `servers_per_leaf` servers of `gpus_per_server` GPUs; each GPU has one
   NIC port of `link_gbps` (by default; see "Port model" below and
   ns_cluster_set_nic_ports); every leaf connects to every one of the `spines`
   spine switches with `links_per_pair` parallel links of `link_gbps`.
   spines may be 0 (single-switch racks; then links_per_pair is ignored and
   must be >= 0). Limits: 1 <= leaves, servers_per_leaf, gpus_per_server;
   total GPUs <= 1<<22; leaves*spines*links_per_pair <= 1<<24. The
   products are checked without overflow: NS_EINVAL names the product,
   its factors and the limit, however large the factors.
   GPUs are numbered leaf-major: gpu = (leaf*servers_per_leaf + s)*gpus_per_server + g;
   servers likewise. Returns NULL on error (see ns_last_error()). */
/* Cost: O(GPUs + leaves x spines x links_per_pair) memory, zeroed
   lazily (the 2^22-GPU fabric 4096 x 4096 x 128 x 8 takes ~220 MB if every
   page is touched). */
NS_API ns_cluster *ns_cluster_new_leaf_spine(int leaves, int spines, int servers_per_leaf,
                                             int gpus_per_server, int links_per_pair,
                                             double link_gbps);
NS_API void ns_cluster_free(ns_cluster *c);
/* Adds an optical circuit switch layer of `ocs_count` OCSes between leaves
   and spines (OCS-vClos). Each leaf's uplinks (spines * links_per_pair) are
   spread evenly over the OCSes, so ocs_count must divide that number
   and spines*ocs_count must be at most 1<<24 (the port table per spine
   and OCS); NS_EINVAL otherwise, NS_EUNSUPPORTED for a cluster without spines,
   NS_ESTATE if jobs are committed. Calling again replaces the count. */
NS_API int ns_cluster_enable_ocs(ns_cluster *c, int ocs_count);
NS_API int ns_cluster_gpu_count(const ns_cluster *c);
NS_API int ns_cluster_server_count(const ns_cluster *c);
/* Server holding `gpu`, leaf holding `server`; NS_EINVAL if out of range. */
NS_API int ns_cluster_server_of_gpu(const ns_cluster *c, int gpu);
NS_API int ns_cluster_leaf_of_server(const ns_cluster *c, int server);
/* GPUs on `server` holding no job and no background load. */
NS_API int ns_cluster_free_gpus_on_server(const ns_cluster *c, int server);
/* Marks GPUs as busy with load the library does not schedule (background
   load, e.g. for Titan). NS_ENOSPACE if one is already busy or holds a job;
   NS_EINVAL for an id out of range or listed twice. All or nothing. */
NS_API int ns_cluster_occupy(ns_cluster *c, const int *gpus, size_t n);
/* Extension: undoes ns_cluster_occupy for these GPUs (NS_ESTATE if one is
   not background-occupied). All or nothing. */
NS_API int ns_cluster_vacate(ns_cluster *c, const int *gpus, size_t n);
/* Memory of every GPU in MB (finite, > 0; default 16384). NS_ESTATE if jobs
   are committed. */
NS_API int ns_cluster_set_gpu_memory_mb(ns_cluster *c, double mb);
/* 0 (default): a GPU holds one job. 1: jobs may share a GPU while their
   memory fits, taking turns (the LWF-kappa / Ada-SRSF model). NS_ESTATE if
   jobs are committed. */
NS_API int ns_cluster_set_gpu_sharing(ns_cluster *c, int shared);

/* Port model. A NIC port is the server's link to its leaf switch: a flow
   between GPUs on different servers leaves through the sender GPU's port
   (tx) and enters through the receiver's (rx); GPUs on one server talk
   over NVLink and use no port. A server has `ports_per_server` ports of
   `port_gbps` each; its GPUs are split into that many contiguous groups
   (local GPU i uses port i * ports_per_server / gpus_per_server). Default:
   one port per GPU at link_gbps, so jobs share a port only when they share
   a GPU. ports_per_server = 1 is one NIC per server shared by all its jobs
   (what the simulator, netsched-sim, sets with its --nic-gbps rate).
   Flows between leaves cross one uplink (the sender's leaf -> a spine) and
   one downlink (that spine -> the receiver's leaf) of link_gbps, chosen by
   ECMP: a fixed hash of the (sender port, receiver port) pair picks the
   spine and the parallel link, the same for every job; a placement with
   reserved links (vClos) uses only those. CASSINI candidates
   (ns_cassini_candidate_from_cluster) read this model; no policy's
   placement decision depends on it (Titan's bandwidth constraint keeps one
   link_gbps port per GPU, src/titan/titan.c).
   ns_cluster_set_nic_ports sets the ports: 1 <= ports_per_server <=
   gpus_per_server and port_gbps finite, > 0 and <= 1e15, else NS_EINVAL
   naming the argument and quoting the value; NS_ESTATE if jobs are
   committed; the cluster is unchanged on failure. Calling it with
   (gpus_per_server, link_gbps) restores the default. */
NS_API int ns_cluster_set_nic_ports(ns_cluster *c, int ports_per_server, double port_gbps);

/* Topology and state queries (extensions). Ints return NS_EINVAL for a NULL
   cluster or an index out of range. */
NS_API int ns_cluster_leaf_count(const ns_cluster *c);
NS_API int ns_cluster_spine_count(const ns_cluster *c);
NS_API int ns_cluster_servers_per_leaf(const ns_cluster *c);
NS_API int ns_cluster_gpus_per_server(const ns_cluster *c);
NS_API int ns_cluster_links_per_pair(const ns_cluster *c);
NS_API double ns_cluster_link_gbps(const ns_cluster *c);
NS_API int ns_cluster_ocs_count(const ns_cluster *c);
NS_API double ns_cluster_gpu_memory_mb(const ns_cluster *c);
NS_API int ns_cluster_gpu_sharing(const ns_cluster *c);
/* Free GPUs in the whole cluster / on one leaf. */
NS_API int ns_cluster_free_gpu_count(const ns_cluster *c);
NS_API int ns_cluster_free_gpus_on_leaf(const ns_cluster *c, int leaf);
/* Servers of `leaf` whose GPUs are all free. */
NS_API int ns_cluster_idle_servers_on_leaf(const ns_cluster *c, int leaf);
/* 1 if `gpu` holds no job and no background load, else 0. */
NS_API int ns_cluster_gpu_is_free(const ns_cluster *c, int gpu);
/* Jobs committed on `gpu` (0/1 unless sharing). */
NS_API int ns_cluster_gpu_job_count(const ns_cluster *c, int gpu);
/* Memory still free on `gpu` in MB (NAN on error; 0 if background-busy). */
NS_API double ns_cluster_gpu_free_memory_mb(const ns_cluster *c, int gpu);
/* Unreserved parallel links between `leaf` and `spine`. With an OCS layer
   leaf-spine links are circuits through OCS ports: these two queries then
   return NS_EUNSUPPORTED (use ns_cluster_ocs_free_leaf_ports and
   ns_cluster_ocs_free_spine_ports in netsched/vclos.h). */
NS_API int ns_cluster_free_links_between(const ns_cluster *c, int leaf, int spine);
/* 1 if the k-th parallel link between leaf and spine is reserved, else 0. */
NS_API int ns_cluster_link_is_reserved(const ns_cluster *c, int leaf, int spine, int k);
/* Committed jobs; 1 if `job` is committed, 0 if not. */
NS_API int ns_cluster_job_count(const ns_cluster *c);
NS_API int ns_cluster_is_committed(const ns_cluster *c, const ns_job *job);

/* ------------------------------------------------------------------ */
/* Placements                                                          */
/* ------------------------------------------------------------------ */

/* A decision object: GPU ids and, for vClos, reserved leaf-spine links and
   virtual leaf/spine counts. Policy entry points fill a caller-owned
   placement (clearing it first and binding it to the cluster); deciding never
   mutates the cluster. */
NS_API ns_placement *ns_placement_new(void);
NS_API void ns_placement_free(ns_placement *p);
/* For callers that decide themselves: append a GPU id (>= 0; range is
   checked at commit). */
NS_API int ns_placement_add_gpu(ns_placement *p, int gpu);
/* Removes GPUs, links and virtual counts; keeps the binding. */
NS_API void ns_placement_clear(ns_placement *p);
NS_API size_t ns_placement_gpu_count(const ns_placement *p);
/* The i-th GPU id, NS_EINVAL if out of range. */
NS_API int ns_placement_gpu(const ns_placement *p, size_t i);
/* Extension: bind the placement to a cluster's geometry (servers per leaf,
   GPUs per server) so that server_count and tier can be answered. Policy
   entry points bind the placement they fill; callers that build a placement
   themselves bind it once. A bound placement is checked against the
   cluster's geometry at commit. */
NS_API int ns_placement_bind(ns_placement *p, const ns_cluster *c);
/* Distinct servers used; NS_ESTATE if the placement was never bound. */
NS_API int ns_placement_server_count(const ns_placement *p);
/* MACHINE if all GPUs share a server, RACK if they share a leaf, else
   NETWORK. An empty placement is MACHINE. For a NULL or unbound placement
   it returns the negative status cast to ns_tier (check with < 0). */
NS_API ns_tier ns_placement_tier(const ns_placement *p);

/* Applies a placement: the job now holds the placement's GPUs (and links).
   Fails without side effects: NS_EINVAL for NULL arguments, an empty
   placement, fewer GPUs than the job asks for, a GPU id out of range or
   listed twice, or a placement bound to another geometry; NS_ESTATE if the
   job is already committed; NS_ENOSPACE if a GPU is taken (exclusive mode)
   or background-busy, its memory would overflow, or a link is reserved.
   On success the job's LWF workload L_J = (fwd+bwd) * remaining iterations
   * gpus is added to each chosen GPU (Algorithm 1 lines 6/18 of LWF-kappa).
   The job handle identifies the commitment: it must stay alive until
   released (the cluster keeps a copy of what release needs). A placement may
   hold more GPUs than the job asks (vClos rounds job sizes up). */
/* Cost: O(N + links + committed jobs) time for N GPUs and the placement's
   links (each link is checked and claimed in one pass; a duplicate is a
   link the job already claimed), plus an O(GPUs) scratch for N > 32: a
   262,144-GPU, 262,144-link vClos commit on 2^22 GPUs takes ~12 ms. */
NS_API int ns_cluster_commit(ns_cluster *c, const ns_job *job, const ns_placement *p);
/* Undoes the job's commit (GPUs, memory, workload it added, links).
   NS_ENOTFOUND if the job is not committed. */
/* Cost: O(N + links + committed jobs). */
NS_API int ns_cluster_release(ns_cluster *c, const ns_job *job);
/* Extension: copy of the placement a committed job holds (clears `out`
   first). NS_ENOTFOUND if not committed. */
NS_API int ns_cluster_job_placement(const ns_cluster *c, const ns_job *job, ns_placement *out);

#ifdef __cplusplus
}
#endif

#endif /* NETSCHED_CORE_H */
