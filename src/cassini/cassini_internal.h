/*
 * src/cassini/cassini_internal.h - private pieces of the CASSINI module
 * shared by its files (circle.c, optimize.c, score.c, affinity.c,
 * candidate.c, rank.c, cluster.c).
 * Unit tests and the benchmark include it to reach the optimizer directly.
 * The readings of the paper's ambiguous passages are recorded in circle.c.
 */
#ifndef NS_CASSINI_INTERNAL_H
#define NS_CASSINI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"

/* ---- options ---------------------------------------------------------- */

#define NSC_DEFAULT_STEP_DEG 5.0   /* §5.7: 5 degrees is the sweet spot */
#define NSC_DEFAULT_QUANTUM_MS 1.0 /* ALGORITHMS.md */
#define NSC_MAX_THREADS 256
#define NSC_PERIMETER_CAP 16       /* p <= 16 x the longest quantized iteration */

#define NSC_DEFAULT_DRIFT 0.05    /* §5.7: re-adjust beyond 5 % of the iteration */

struct ns_cassini_opts {
  double step_deg;
  double quantum_ms;
  int threads;
  double drift; /* ns_cassini_readjust threshold, fraction of the iteration */
};

/* ---- unified circles (circle.c) ----------------------------------------- */

/* A maximal run of equal bins in a job's unrotated demand (cyclic). */
typedef struct nsc_run {
  size_t start, len;
  double v;
  size_t vi; /* index of v in the job's long-run values, or SIZE_MAX if short */
} nsc_run;

#define NSC_LONG_RUN 3 /* runs this long are summed with prefix sums */

/* The unified circles of the jobs on one link, discretized into bins. */
typedef struct nsc_circle {
  size_t njobs;
  double capacity;     /* C^l, Gbps */
  double quantum_ms;   /* effective quantum after coarsening */
  double perimeter_ms; /* p^l = LCM of the quantized iterations */
  uint64_t *qiter;     /* quantized iteration of each job, in quanta */
  uint64_t *r;         /* r_j = p / quantized iteration */
  size_t nbins;        /* |A| */
  double bin_ms;       /* p / |A| */
  size_t *positions;   /* rotations (whole bins) tried per job, Eq. 4 */
  double *demand;      /* job j: demand[j*2*nbins ...], mean Gbps per bin, twice */
  double *energy;      /* sum over bins of each job's demand */
  nsc_run *runs;       /* job j: runs[run_off[j] .. run_off[j+1]) */
  size_t *run_off;
  double *lvals;       /* job j: distinct long-run values lvals[lval_off[j] ..] */
  size_t *lval_off;
} nsc_circle;

/* Quantizes the iterations and finds the perimeter (coarsening the quantum
   while p > NSC_PERIMETER_CAP x the longest iteration). qiter may be NULL.
   NS_OK, NS_EINVAL (phases) or NS_ERANGE. Records errors under `fn`. */
int nsc_perimeter(const ns_job *const *jobs, size_t n, double quantum_ms, const char *fn,
                  uint64_t *qiter, double *eff_quantum_ms, uint64_t *lcm_quanta);

/* Builds the circles of `jobs` on a link of capacity `cap`. On failure `c`
   holds nothing to free. */
int nsc_circle_build(nsc_circle *c, const ns_job *const *jobs, size_t n, double cap,
                     const ns_cassini_opts *o, const char *fn);
void nsc_circle_free(nsc_circle *c);

/* Mean demand of job j in bin a when the job is rotated by k whole bins. */
static inline const double *nsc_rotated(const nsc_circle *c, size_t j, size_t k) {
  return c->demand + j * 2 * c->nbins + (c->nbins - k % c->nbins);
}

/* Sum over bins of Excess(S_a) (Eq. 1). */
double nsc_excess(const double *s, size_t nbins, double cap);

/* Eq. 2 from an excess sum. */
static inline double nsc_score_of(const nsc_circle *c, double excess) {
  return 1.0 - excess / ((double)c->nbins * c->capacity);
}

/* Exact time-domain score of the jobs delayed by shifts_ms (no bins).
   NS_OK or NS_ENOMEM; *score may be non-finite for absurd magnitudes. */
int nsc_exact_score(const nsc_circle *c, const ns_job *const *jobs, const double *shifts_ms,
                    double *score);

/* ---- Table 1 optimizer (optimize.c) ------------------------------------- */

/* Work (bin additions) above which exhaustive search is not attempted. */
#define NSC_EXACT_BUDGET_SMALL (1ULL << 28) /* up to 3 jobs */
#define NSC_EXACT_BUDGET_LARGE (1ULL << 22) /* more than 3 jobs */
#define NSC_HEURISTIC_BUDGET (1ULL << 28)   /* one coordinate-descent sweep */

enum nsc_method { NSC_AUTO, NSC_EXACT, NSC_HEURISTIC };

/* Best rotations rot[j] (whole bins, rot[0] = 0) and their excess sum.
   NS_OK, NS_ENOMEM or NS_ERANGE (search too large). `used` (may be NULL)
   receives the method actually run. */
int nsc_optimize(const nsc_circle *c, enum nsc_method m, const char *fn, size_t *rot,
                 double *excess, enum nsc_method *used);
/* Exhaustive work estimate: |A| x prod of positions of jobs 1.. (saturating). */
double nsc_exact_work(const nsc_circle *c);

/* Optimizes the jobs on one link: score (Eq. 2) and Eq. 5 shifts. */
int nsc_link_score(const ns_job *const *jobs, size_t n, double cap, const ns_cassini_opts *o,
                   const char *fn, double *score, double *shifts_ms);

/* ---- keys for the core's key -> index map (nsi_ptrmap) ------------------- */

/* (job, link) vertex pair; both < 2^31. */
static inline uint64_t nsc_key_pair(size_t job, size_t link) {
  return ((uint64_t)(job + 1) << 32) | (uint64_t)(link + 1);
}

/* ---- Affinity graph (affinity.c) ---------------------------------------- */

typedef struct nsc_edge {
  size_t job, link; /* vertex indices */
  double w;         /* w_e = t_j^l */
} nsc_edge;

struct ns_affinity {
  const ns_job **jobs;
  size_t njobs, cap_jobs;
  const ns_link **links;
  size_t nlinks, cap_links;
  nsc_edge *edges;
  size_t nedges, cap_edges;
  nsi_ptrmap job_ix, link_ix, edge_ix;
  double *shift; /* per job, valid when solved */
  int solved;
};

/* Adds edge (job, link) with weight w; NS_EINVAL if present. Leaves g
   unchanged on failure. `fn` names the caller in messages. */
int nsc_affinity_add(ns_affinity *g, const ns_job *job, const ns_link *link, double w,
                     const char *fn);
void nsc_affinity_clear(ns_affinity *g);
/* Algorithm 1 into out[njobs] (no state change). NS_ELOOP, NS_ENOMEM. */
int nsc_affinity_bfs(const ns_affinity *g, double *out, const char *fn);
/* 1 if some connected component has edges >= vertices. <0 on ENOMEM. */
int nsc_affinity_loop(const ns_affinity *g);

/* ---- candidates (candidate.c, rank.c, cluster.c) -------------------------------------- */

struct ns_candidate {
  ns_affinity pairs; /* every (job, link) pair of the placement, w = 0 */
  double *shift;     /* per job of `pairs`, valid when solved */
  int solved;
  ns_link **owned;   /* links made by ns_cassini_candidate_from_cluster */
  size_t nowned;
};

/* Frees the links the candidate owns (candidate.c). */
void nsc_candidate_drop_links(ns_candidate *c);

#endif /* NS_CASSINI_INTERNAL_H */
