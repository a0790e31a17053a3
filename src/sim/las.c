/*
 * src/sim/las.c - Tiresias's discretised two-dimensional schedulers
 * (2D-LAS and 2D-Gittins), as the Tiresias simulator (SymbioticLab/Tiresias,
 * simulator/run_sim.py dlas_sim_jobs and get_gittins_index) runs them. This
 * file decides; the engine suspends and resumes (no call back into it).
 *
 * Per job: attained service = GPUs x executed time (the time it held GPUs
 * since its last promotion). K queues (default 3) with K-1 ascending
 * thresholds in GPU-ms (default 3250 and 7200 GPU-s: the simulator's
 * jobs.py). New jobs enter Q0 at its end; a running job whose attained
 * service reaches its queue's threshold moves to the end of the next queue.
 * At every scheduling point the queues are walked in order, Q0 first, and
 * within a queue in its list order (2D-LAS: FIFO; 2D-Gittins: by Gittins
 * index, highest first, ties by arrival); a job is granted its GPUs if as
 * many are still uncounted (resource counting over the whole cluster, the
 * simulator's "count" scheme: a job that does not fit lets the next one
 * try); running jobs not granted are preempted. Then every queue moves its
 * jobs that are not running to its end, keeping their order.
 *
 * Starvation (the simulator's solve_starvation, 0 = off, its dlas-gpu
 * default): a job in Q1.. that has run before and has waited, since it last
 * ran, at least knob x its executed time goes back to the end of Q0 with its
 * executed time reset.
 *
 * Gittins index (get_gittins_index / cal_r_gittins_index, reproduced with
 * their rounding): over the sorted service samples d_0..d_{n-1} (seconds of
 * GPU time: ns_sim_opts_set_gittins_samples's, as the simulator's
 * yarn-gput*.csv, or by default the workload's own jobs, GPUs x lone run
 * time), a job with
 * attained a (whole GPU-seconds) takes the index computed at d_i - 1 where
 * d_i is the first sample above a (0 beyond the largest); at a':
 * i = first sample > a', m = first sample > a' + delta (n - 1 if beyond),
 * P = round((m - i) / (n - i), 5), E = floor((sum d_i..d_{m-1} + delta (n -
 * m)) / (n - i)) (the simulator's Python 2 divides its integers so),
 * index = round(P 1e6 / E, 4), with delta = the first threshold. (E sums the samples themselves, not what remains of them, as
 * the simulator does.)
 *
 * When: the engine calls this at every event (arrival, finish, wake-up).
 * Demotion and promotion are checked there; the wake-up for the next one is
 * placed where the Tiresias simulator places it: a running job's next
 * demotion check after (threshold - executed) / GPUs seconds, in integer
 * division (Python 2's / on ints: ceil() of it changes nothing) (executed
 * time, not GPU time, subtracted from a GPU-time threshold: for a multi-GPU
 * job the check comes late, and the demotion happens at the first event at
 * which GPUs x executed has reached the threshold), a waiting job's
 * promotion after floor(knob x executed - waited) seconds. Attained service
 * itself is exact (ms), where the simulator counts whole seconds.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_internal.h"

/* A 2D-Gittins sort key (compact copy of the job's rank and arrival). */
struct nsi_laskey {
  double rank, arrival;
  int id;
};

static int gittins_mode(const ns_sim *s) { return s->o.order == NS_SIM_ORDER_2D_GITTINS; }

int nsi_las_active(const ns_sim_opts *o) {
  return o->order == NS_SIM_ORDER_2D_LAS || o->order == NS_SIM_ORDER_2D_GITTINS;
}

/* ---- Gittins index -------------------------------------------------------- */

static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double round_to(double v, double digits) {
  double f = pow(10.0, digits);
  return round(v * f) / f;
}

/* First index i >= hint in d[0..n) with d[i] > a (n if none), when the
   answer is known to be >= hint: gallops forward from hint (a running
   job's attained service only grows), then bisects. */
static size_t first_above_from(const double *d, size_t n, double a, size_t hint) {
  size_t lo = hint, hi = hint, step = 1;
  while (hi < n && d[hi] <= a) {
    lo = hi + 1;
    hi = hint + step;
    step *= 2;
    if (hi > n)
      hi = n;
  }
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (d[mid] > a)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/* First index i in d[0..n) with d[i] > a (n if none). */
static size_t first_above(const double *d, size_t n, double a) { return first_above_from(d, n, a, 0); }

/* cal_r_gittins_index at attained a' (seconds). */
static double gittins_at(const double *d, const double *prefix, size_t n, double delta, double a) {
  if (a > d[n - 1] - 1)
    return 0.0;
  size_t i = first_above(d, n, a);
  size_t m = a + delta > d[n - 1] - 1 ? n - 1 : first_above(d, n, a + delta);
  double p = round_to((double)(m - i) / (double)(n - i), 5);
  double esum = (prefix[m] - prefix[i]) + delta * (double)(n - m);
  double e = floor(esum / (double)(n - i) + 1e-9); /* Python 2: int / int */
  return e > 0 ? round_to(p * 1e6 / e, 4) : 0.0;
}

/* The table of indices at every sample (parse_job_dist): the samples of
   ns_sim_opts_set_gittins_samples (GPU-ms) if any, else the workload's own
   jobs. */
static int gittins_prepare(ns_sim *s) {
  const double *given = s->o.git_samples;
  size_t n = given != NULL ? s->o.git_nsamples : s->njobs;
  s->git_d = malloc((n + 1) * sizeof *s->git_d);
  s->git_r = malloc((n + 1) * sizeof *s->git_r);
  double *prefix = malloc((n + 1) * sizeof *prefix);
  if (s->git_d == NULL || s->git_r == NULL || prefix == NULL) {
    free(prefix);
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory for the Gittins table");
  }
  for (size_t k = 0; k < n; k++) {
    double gs;
    if (given != NULL) {
      gs = given[k] / 1e3;
    } else {
      const nsi_simjob *j = &s->jobs[k];
      gs = j->gpus * nsi_sim_ideal_iter_ms(&s->o, j) * (double)j->iterations / 1e3;
    }
    s->git_d[k] = round(gs * 1e6) / 1e6; /* whole seconds stay whole */
  }
  qsort(s->git_d, n, sizeof *s->git_d, cmp_dbl);
  prefix[0] = 0;
  for (size_t k = 0; k < n; k++)
    prefix[k + 1] = prefix[k] + s->git_d[k];
  double delta = s->o.las_limit[0] / 1e3;
  for (size_t k = 0; k < n; k++)
    s->git_r[k] = gittins_at(s->git_d, prefix, n, delta, s->git_d[k] - 1);
  s->git_r[n] = 0.0; /* attained == the largest sample: nothing above it */
  s->git_n = n;
  free(prefix);
  return NS_OK;
}

/* get_gittins_index at attained a (whole GPU-seconds), through the job's
   cache: the index only changes when a crosses a sample, so the job keeps
   the interval of attained values [git_lo, git_hi) its las_rank holds for
   (a running job's index is looked up at every event; the search was a
   large share of a run on a long trace). */
static double gittins_index(const ns_sim *s, nsi_simjob *j, double a) {
  if (a >= j->git_lo && a < j->git_hi)
    return j->las_rank;
  size_t n = s->git_n;
  double r;
  if (n == 0) {
    j->git_lo = -INFINITY, j->git_hi = INFINITY, r = 0.0;
  } else if (a > s->git_d[n - 1]) {
    j->git_lo = nextafter(s->git_d[n - 1], INFINITY), j->git_hi = INFINITY, r = 0.0;
  } else {
    /* d[i-1] <= a < d[i], or i == n: a == d[n-1] */
    size_t i = a >= j->git_hi && j->git_hi > j->git_lo ? first_above_from(s->git_d, n, a, j->git_i)
                                                       : first_above(s->git_d, n, a);
    j->git_i = i;
    j->git_lo = i > 0 ? s->git_d[i - 1] : -INFINITY;
    j->git_hi = i < n ? s->git_d[i] : nextafter(s->git_d[n - 1], INFINITY);
    r = s->git_r[i];
  }
  return r;
}

/* ---- queues ----------------------------------------------------------------- */

int nsi_las_prepare(ns_sim *s) {
  for (int q = 0; q < NSI_LAS_MAX_QUEUES; q++)
    s->lasq[q].n = 0;
  s->las_nrun = 0;
  if (gittins_mode(s))
    NSI_TRY(gittins_prepare(s));
  return NS_OK;
}

void nsi_las_release(ns_sim *s) {
  for (int q = 0; q < NSI_LAS_MAX_QUEUES; q++) {
    free(s->lasq[q].v);
    s->lasq[q].v = NULL, s->lasq[q].n = s->lasq[q].cap = 0;
  }
  free(s->las_run), free(s->las_stop), free(s->las_go), free(s->git_d), free(s->git_r);
  free(s->las_key), s->las_key = NULL, s->las_capkey = 0;
  s->las_run = s->las_stop = s->las_go = NULL, s->git_d = s->git_r = NULL;
  s->las_nrun = s->las_caprun = s->las_nstop = s->las_ngo = s->git_n = 0;
  s->las_capstop = s->las_capgo = 0; /* the arrays are gone: a rerun reserves again */
}

static int push(nsi_lasq *q, int ji) {
  NSI_TRY(nsi_reserve(&q->v, &q->cap, q->n + 1, sizeof *q->v));
  q->v[q->n++] = ji;
  return NS_OK;
}

static void drop(nsi_lasq *q, int ji) { nsi_remove_int(q->v, &q->n, ji); }

int nsi_las_arrive(ns_sim *s, int ji) {
  nsi_simjob *j = &s->jobs[ji];
  j->las_q = 0, j->las_exec = j->las_total = j->las_pend = 0;
  j->las_check = s->now, j->las_rank = 0;
  NSI_TRY(nsi_reserve(&s->las_run, &s->las_caprun, s->las_nrun + 1, sizeof *s->las_run));
  NSI_TRY(nsi_reserve(&s->las_stop, &s->las_capstop, s->las_nrun + 1, sizeof *s->las_stop));
  NSI_TRY(nsi_reserve(&s->las_go, &s->las_capgo, s->las_nrun + 1, sizeof *s->las_go));
  if (gittins_mode(s))
    NSI_TRY(nsi_reserve(&s->las_key, &s->las_capkey, 2 * (s->las_nrun + 1), sizeof *s->las_key));
  s->las_run[s->las_nrun++] = ji;
  if (gittins_mode(s)) {
    j->git_lo = 1, j->git_hi = 0, j->git_i = 0; /* empty: no cached index yet */
    j->las_rank = gittins_index(s, j, 0);
  }
  return push(&s->lasq[0], ji);
}

void nsi_las_leave(ns_sim *s, int ji) {
  drop(&s->lasq[s->jobs[ji].las_q], ji);
  nsi_remove_int(s->las_run, &s->las_nrun, ji);
}

static int move_to(ns_sim *s, nsi_simjob *j, int q) {
  drop(&s->lasq[j->las_q], (int)(j - s->jobs));
  j->las_q = q;
  return push(&s->lasq[q], (int)(j - s->jobs));
}

/* Service, demotion, starvation and Gittins ranks up to s->now, for every
   job in the queues, in arrival order (the simulator's runnable_jobs). */
int nsi_las_account(ns_sim *s) {
  int last = s->o.las_queues - 1;
  for (size_t r = 0; r < s->las_nrun; r++) {
    nsi_simjob *j = &s->jobs[s->las_run[r]];
    double dt = s->now - j->las_check;
    j->las_check = s->now;
    if (j->state == NSI_RUNNING) {
      j->las_exec += dt, j->las_total += dt;
      if (j->las_q < last && j->las_exec * j->gpus >= s->o.las_limit[j->las_q] * (1 - 1e-12))
        NSI_TRY(move_to(s, j, j->las_q + 1));
    } else {
      if (j->las_exec > 0)
        j->las_pend += dt;
      if (s->o.starvation > 0 && j->las_q > 0 && j->las_total > 0 && j->las_exec > 0 &&
          j->las_pend >= j->las_exec * s->o.starvation * (1 - 1e-12)) {
        j->las_exec = 0, j->las_pend = 0;
        j->promotions++;
        NSI_TRY(move_to(s, j, 0));
      }
    }
    if (gittins_mode(s))
      j->las_rank = gittins_index(s, j, floor(j->las_exec / 1e3 + 1e-9) * j->gpus);
  }
  return NS_OK;
}

/* Gittins order: higher index first, then earlier arrival; stable. The
   sort runs on compact copies of the keys (the job records are large and
   scattered: comparing through them was most of the sort's time). */
static int key_before(const struct nsi_laskey *x, const struct nsi_laskey *y) {
  if (x->rank != y->rank)
    return x->rank > y->rank;
  return x->arrival < y->arrival;
}

/* Stable bottom-up merge sort of v[0..n) (key: 2n scratch keys; qsort is
   neither stable nor takes a context). */
static void sort_by_rank(const ns_sim *s, int *v, struct nsi_laskey *key, size_t n) {
  struct nsi_laskey *a = key, *tmp = key + n;
  for (size_t i = 0; i < n; i++) {
    const nsi_simjob *j = &s->jobs[v[i]];
    a[i].rank = j->las_rank, a[i].arrival = j->arrival_ms, a[i].id = v[i];
  }
  size_t k = 1;
  while (k < n && !key_before(&a[k], &a[k - 1]))
    k++;
  if (k >= n) /* already in order (most events): a stable sort keeps it */
    return;
  for (size_t w = 1; w < n; w *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * w) {
      size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      size_t i = lo, r = mid, o = lo;
      while (i < mid && r < hi)
        tmp[o++] = key_before(&a[r], &a[i]) ? a[r++] : a[i++];
      while (i < mid)
        tmp[o++] = a[i++];
      while (r < hi)
        tmp[o++] = a[r++];
    }
    struct nsi_laskey *t = a;
    a = tmp, tmp = t;
  }
  for (size_t i = 0; i < n; i++)
    v[i] = a[i].id;
}

/* The counting pass: las_stop = running jobs to preempt, las_go = waiting
   jobs to start, in queue order. */
void nsi_las_decide(ns_sim *s) {
  long free_gpus = (long)s->o.leaves * s->o.servers_per_leaf * s->o.gpus_per_server;
  s->las_nstop = s->las_ngo = 0;
  for (int q = 0; q < s->o.las_queues; q++) {
    nsi_lasq *Q = &s->lasq[q];
    if (gittins_mode(s))
      sort_by_rank(s, Q->v, s->las_key, Q->n);
    for (size_t i = 0; i < Q->n; i++) {
      nsi_simjob *j = &s->jobs[Q->v[i]];
      if (free_gpus >= j->gpus) {
        free_gpus -= j->gpus;
        if (j->state != NSI_RUNNING)
          s->las_go[s->las_ngo++] = Q->v[i];
      } else if (j->state == NSI_RUNNING) {
        s->las_stop[s->las_nstop++] = Q->v[i];
      }
    }
  }
}

/* After the engine acted: every queue moves its waiting jobs to its end. */
void nsi_las_settle(ns_sim *s) {
  for (int q = 0; q < s->o.las_queues; q++) {
    nsi_lasq *Q = &s->lasq[q];
    size_t w = 0, nw = 0;
    int *wait = s->las_go; /* scratch: las_go has been consumed */
    for (size_t i = 0; i < Q->n; i++) {
      if (s->jobs[Q->v[i]].state == NSI_RUNNING)
        Q->v[w++] = Q->v[i];
      else
        wait[nw++] = Q->v[i];
    }
    if (nw > 0) /* Q->v is NULL for a queue never used */
      memcpy(Q->v + w, wait, nw * sizeof *wait);
  }
  s->las_ngo = 0;
}

/* The next demotion or starvation promotion (INFINITY if none). */
double nsi_las_next(const ns_sim *s) {
  double t = INFINITY;
  int last = s->o.las_queues - 1;
  for (size_t r = 0; r < s->las_nrun; r++) {
    const nsi_simjob *j = &s->jobs[s->las_run[r]];
    double at = INFINITY;
    if (j->state == NSI_RUNNING && j->las_q < last) /* the simulator's estimate, s */
      at = s->now + 1e3 * floor(floor((s->o.las_limit[j->las_q] - j->las_exec) / 1e3 + 1e-9) /
                                j->gpus + 1e-9);
    else if (j->state != NSI_RUNNING && s->o.starvation > 0 && j->las_q > 0 &&
             j->las_total > 0 && j->las_exec > 0)
      at = s->now + 1e3 * floor((j->las_exec * s->o.starvation - j->las_pend) / 1e3 + 1e-9);
    t = at < t ? at : t;
  }
  return t > s->now ? t : s->now;
}
