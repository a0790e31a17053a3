/*
 * src/sim/network.c - the network model: which links a placement's ring
 * traverses, and each running job's iteration time given everyone else
 * (max-min fair sharing, or the Eq. 5 contention model). See sim.h.
 *
 * Link indices: server NIC tx [0, S), server NIC rx [S, 2S), leaf->spine
 * uplinks [2S, 2S+U), spine->leaf downlinks [2S+U, 2S+2U), U = leaves *
 * spines * links_per_pair, in the core's nsi_link_index order.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_internal.h"

int nsi_sim_net_init(ns_sim *s) {
  const ns_sim_opts *o = &s->o;
  int S = o->leaves * o->servers_per_leaf;
  int U = o->leaves * o->spines * o->links_per_pair;
  s->nnet_links = 2 * S + 2 * U;
  size_t n = (size_t)s->nnet_links;
  s->cap = malloc(n * sizeof *s->cap);
  s->load = calloc(n, sizeof *s->load);
  s->fuse = calloc(n, sizeof *s->fuse);
  s->sum = calloc(n, sizeof *s->sum);
  s->cnt = calloc(n, sizeof *s->cnt);
  s->shared_ever = calloc(n, 1);
  s->srv_busy = calloc((size_t)S, sizeof *s->srv_busy);
  if (!s->cap || !s->load || !s->fuse || !s->sum || !s->cnt || !s->shared_ever || !s->srv_busy)
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory for %zu links", n);
  double nic = o->nic_gbps > 0 ? o->nic_gbps : o->link_gbps;
  for (size_t i = 0; i < n; i++)
    s->cap[i] = i < (size_t)(2 * S) ? nic : o->link_gbps;
  return NS_OK;
}

/* Deterministic ECMP hash of (job, flow). */
static uint64_t ecmp_hash(uint64_t job, uint64_t flow) {
  uint64_t st = job * 0x100000001b3ull ^ (flow + 1) * 0xcbf29ce484222325ull;
  return nsi_splitmix64(&st);
}

/* Parallel link k of (leaf, spine) for a vClos placement: one it reserved. */
static int reserved_k(const ns_placement *p, int leaf, int spine, int lpp, int fallback) {
  for (size_t i = 0; i < p->nlinks; i++)
    if (p->links[i].leaf == leaf && p->links[i].spine == spine && p->links[i].k >= 0 &&
        p->links[i].k < lpp) /* an OCS circuit may index past the electrical links */
      return p->links[i].k;
  return fallback;
}

static int first_gpu_on(const ns_placement *p, int server, int gps) {
  for (size_t i = 0; i < p->ngpus; i++)
    if (p->gpus[i] / gps == server)
      return p->gpus[i];
  return -1;
}

/* Appends the links of the flow src -> dst server. */
static void flow_links(ns_sim *s, int ji, size_t flow, const ns_placement *p, int src, int dst,
                       int *out, size_t *n) {
  const ns_sim_opts *o = &s->o;
  int S = o->leaves * o->servers_per_leaf;
  int U = o->leaves * o->spines * o->links_per_pair;
  out[(*n)++] = src;
  out[(*n)++] = S + dst;
  int ls = src / o->servers_per_leaf, ld = dst / o->servers_per_leaf;
  if (ls == ld || o->spines == 0)
    return;
  uint64_t h = ecmp_hash((uint64_t)ji, flow);
  int spine = (int)(h % (uint64_t)o->spines);
  int k = (int)((h / (uint64_t)o->spines) % (uint64_t)o->links_per_pair);
  if (p->nlinks > 0) { /* vClos: source routing over the reserved links (§5.2) */
    int sg = first_gpu_on(p, src, o->gpus_per_server), dg = first_gpu_on(p, dst, o->gpus_per_server);
    int sp;
    if (sg >= 0 && dg >= 0 && ns_vclos_route(s->cluster, sg, dg, &sp) == NS_OK && sp >= 0 &&
        sp < o->spines)
      spine = sp;
  }
  /* each leaf's own reserved link to the spine (vClos), else the ECMP one */
  int ku = p->nlinks > 0 ? reserved_k(p, ls, spine, o->links_per_pair, k) : k;
  int kd = p->nlinks > 0 ? reserved_k(p, ld, spine, o->links_per_pair, k) : k;
  size_t up = ((size_t)ls * (size_t)o->spines + (size_t)spine) * (size_t)o->links_per_pair + (size_t)ku;
  size_t down = ((size_t)ld * (size_t)o->spines + (size_t)spine) * (size_t)o->links_per_pair + (size_t)kd;
  out[(*n)++] = 2 * S + (int)up;
  out[(*n)++] = 2 * S + U + (int)down;
}

/* The ring over the job's servers (ascending ids = GPU-id order). */
int nsi_sim_job_links(ns_sim *s, nsi_simjob *j, const ns_placement *p, int **links,
                      size_t *nlinks) {
  int ji = (int)(j - s->jobs);
  int gps = s->o.gpus_per_server;
  int *srv = malloc((p->ngpus ? p->ngpus : 1) * sizeof *srv);
  if (srv == NULL)
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
  size_t m = nsi_distinct_groups(p->gpus, p->ngpus, gps, srv);
  int *out = NULL;
  size_t n = 0;
  if (m >= 2) {
    out = malloc(4 * m * sizeof *out);
    if (out == NULL) {
      free(srv);
      return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
    }
    for (size_t i = 0; i < m; i++)
      flow_links(s, ji, i, p, srv[i], srv[(i + 1) % m], out, &n);
    qsort(out, n, sizeof *out, nsi_cmp_int); /* duplicates adjacent: multiplicity */
  }
  free(j->srv);
  j->srv = srv, j->nsrv = m;
  *links = out, *nlinks = n;
  return NS_OK;
}

/* Communication time alone: Eq. 5 with k = 1, or the ring's transfer. */
double nsi_sim_comm_alone_ms(const ns_sim *s, const nsi_simjob *j, int multi_server) {
  const ns_sim_opts *o = &s->o;
  int n = j->gpus;
  if (n <= 1 || o->network == NS_SIM_NET_IDEAL)
    return 0.0;
  double frac = 2.0 * (n - 1) / n; /* ring all-reduce: 2(N-1)/N * M per GPU */
  if (!multi_server)
    return frac * (double)j->model_bytes * 8.0 / (o->intra_gbps * 1e6);
  return frac * (double)j->model_bytes * 8.0 / (nsi_sim_nic_gbps(o) * 1e6);
}

/* Alone communication time of a multi-server job under the active model. */
static double comm_t1(const ns_sim *s, const nsi_simjob *j) {
  if (s->o.network == NS_SIM_NET_CONTENTION)
    return ns_comm_time_ms(s->o.eq5_a, nsi_sim_eq5_b(&s->o), nsi_sim_eq5_eta(&s->o), 1,
                           j->model_bytes);
  return j->comm_alone_ms;
}

static double duty(const ns_sim *s, const nsi_simjob *j) {
  double t = comm_t1(s, j);
  return t / (j->compute_ms + t);
}

static int is_net(const nsi_simjob *j) { return j->nsrv >= 2; }

/* Per-link job counts (distinct jobs) and the SRSF(n) admission modes. */
static void count_links(ns_sim *s) {
  for (size_t r = 0; r < s->nnet; r++) {
    nsi_simjob *j = &s->jobs[s->net[r]];
    for (size_t i = 0; i < j->nlinks; i++)
      s->cnt[j->links[i]] = 0;
  }
  for (size_t r = 0; r < s->nnet; r++) {
    nsi_simjob *j = &s->jobs[s->net[r]];
    for (size_t i = 0; i < j->nlinks; i++)
      if (i == 0 || j->links[i] != j->links[i - 1]) /* links are sorted */
        s->cnt[j->links[i]]++;
  }
  for (size_t r = 0; r < s->nnet; r++) {
    nsi_simjob *j = &s->jobs[s->net[r]];
    int worst = 0;
    for (size_t i = 0; i < j->nlinks; i++) {
      int c = s->cnt[j->links[i]];
      worst = c > worst ? c : worst;
      if (c >= 2)
        s->shared_ever[j->links[i]] = 1;
    }
    if (is_net(j) && j->mode != NSI_SHIFTED && s->o.admission == NS_SIM_ADMIT_SRSF)
      j->mode = worst <= s->o.admit_n ? NSI_COLLIDE : NSI_SERIAL; /* at most n per link */
  }
}

static double weight(const ns_sim *s, const nsi_simjob *j) {
  return j->mode == NSI_COLLIDE ? 1.0 : duty(s, j);
}

/* Progressive filling: every unfrozen job's flow rate rises together until a
   link saturates or the job reaches its demand d (max-min fairness). The
   job's rate is stored in j->iter_ms temporarily. */
static void maxmin(ns_sim *s, double d) {
  size_t left = 0;
  for (size_t r = 0; r < s->nnet; r++) {
    nsi_simjob *j = &s->jobs[s->net[r]];
    j->iter_ms = is_net(j) ? -1.0 : 0.0; /* -1 = unfrozen */
    left += is_net(j);
    for (size_t i = 0; i < j->nlinks; i++)
      s->fuse[j->links[i]] = 0.0;
  }
  while (left > 0) {
    for (size_t r = 0; r < s->nnet; r++) {
      nsi_simjob *j = &s->jobs[s->net[r]];
      for (size_t i = 0; i < j->nlinks; i++)
        s->load[j->links[i]] = 0.0;
    }
    for (size_t r = 0; r < s->nnet; r++) {
      nsi_simjob *j = &s->jobs[s->net[r]];
      if (j->iter_ms < 0)
        for (size_t i = 0; i < j->nlinks; i++)
          s->load[j->links[i]] += weight(s, j);
    }
    double level = d;
    for (size_t r = 0; r < s->nnet; r++) {
      nsi_simjob *j = &s->jobs[s->net[r]];
      if (j->iter_ms < 0)
        for (size_t i = 0; i < j->nlinks; i++) {
          int l = j->links[i];
          double lv = (s->cap[l] - s->fuse[l]) / s->load[l];
          level = lv < level ? lv : level;
        }
    }
    if (level < 1e-12)
      level = 1e-12;
    for (size_t r = 0; r < s->nnet; r++) {
      nsi_simjob *j = &s->jobs[s->net[r]];
      if (j->iter_ms >= 0)
        continue;
      int sat = level >= d * (1 - 1e-12);
      for (size_t i = 0; i < j->nlinks && !sat; i++) {
        int l = j->links[i];
        sat = (s->cap[l] - s->fuse[l]) / s->load[l] <= level * (1 + 1e-9);
      }
      if (sat)
        j->iter_ms = level, left--;
    }
    for (size_t r = 0; r < s->nnet; r++) { /* frozen use, recomputed */
      nsi_simjob *j = &s->jobs[s->net[r]];
      for (size_t i = 0; i < j->nlinks; i++)
        s->fuse[j->links[i]] = 0.0;
    }
    for (size_t r = 0; r < s->nnet; r++) {
      nsi_simjob *j = &s->jobs[s->net[r]];
      if (j->iter_ms > 0)
        for (size_t i = 0; i < j->nlinks; i++)
          s->fuse[j->links[i]] += weight(s, j) * j->iter_ms;
    }
  }
}

/* Expected wait of a serialised job: half the other serialised jobs'
   transfers weighted by their duty cycles, on its busiest link. */
static void serial_sums(ns_sim *s) {
  for (size_t r = 0; r < s->nnet; r++) {
    nsi_simjob *j = &s->jobs[s->net[r]];
    for (size_t i = 0; i < j->nlinks; i++)
      s->sum[j->links[i]] = 0.0;
  }
  for (size_t r = 0; r < s->nnet; r++) {
    nsi_simjob *j = &s->jobs[s->net[r]];
    if (j->mode != NSI_SERIAL)
      continue;
    for (size_t i = 0; i < j->nlinks; i++)
      if (i == 0 || j->links[i] != j->links[i - 1])
        s->sum[j->links[i]] += duty(s, j) * comm_t1(s, j);
  }
}

static double serial_wait(const ns_sim *s, const nsi_simjob *j) {
  if (j->mode != NSI_SERIAL)
    return 0.0;
  double own = duty(s, j) * comm_t1(s, j), w = 0.0;
  for (size_t i = 0; i < j->nlinks; i++) {
    double v = s->sum[j->links[i]] - own;
    w = v > w ? v : w;
  }
  return 0.5 * w;
}

/* Eq. 5: k = colliding multi-server jobs on the job's busiest server. */
static double eq5_comm(ns_sim *s, const nsi_simjob *j) {
  int S = s->o.leaves * s->o.servers_per_leaf;
  int k = 1;
  double u = 0.0;
  for (size_t i = 0; i < j->nlinks; i++) {
    int l = j->links[i];
    if (l >= S)
      continue; /* NIC tx links stand for the servers */
    k = (int)s->load[l] > k ? (int)s->load[l] : k;
    u = s->fuse[l] > u ? s->fuse[l] : u;
  }
  if (j->mode != NSI_COLLIDE)
    k = 1;
  double t = ns_comm_time_ms(s->o.eq5_a, nsi_sim_eq5_b(&s->o), nsi_sim_eq5_eta(&s->o), k,
                             j->model_bytes);
  if (j->mode == NSI_SHIFTED && u > 1.0)
    t *= u; /* interleaved phases saturate the NIC */
  return t;
}

static void eq5_loads(ns_sim *s) {
  for (size_t r = 0; r < s->nnet; r++) {
    nsi_simjob *j = &s->jobs[s->net[r]];
    for (size_t i = 0; i < j->nlinks; i++)
      s->load[j->links[i]] = 0.0, s->fuse[j->links[i]] = 0.0;
  }
  int S = s->o.leaves * s->o.servers_per_leaf;
  for (size_t r = 0; r < s->nnet; r++) {
    nsi_simjob *j = &s->jobs[s->net[r]];
    for (size_t i = 0; i < j->nlinks; i++)
      if (j->links[i] < S) {
        if (j->mode == NSI_COLLIDE)
          s->load[j->links[i]] += 1.0;
        else
          s->fuse[j->links[i]] += duty(s, j);
      }
  }
}

static double iter_alone(const nsi_simjob *j) { return j->compute_ms * j->slow + j->comm_alone_ms; }

/* Recomputes iteration times. Single-server jobs use no network link, so
   their iteration never changes; the network model is solved again only
   when the set of multi-server jobs (or a time-shift) changed. */
/* GPU sharing: jobs on one GPU take turns, so a job computes at the pace
   of its most shared GPU (synchronous data parallelism). */
static double share_factor(const ns_sim *s, const nsi_simjob *j) {
  if (!s->o.gpu_sharing)
    return 1.0;
  int worst = 1;
  for (size_t i = 0; i < j->ngpu; i++) {
    int n = ns_cluster_gpu_job_count(s->cluster, j->gpu[i]);
    worst = n > worst ? n : worst;
  }
  return (double)worst;
}

int nsi_sim_net_update(ns_sim *s) {
  if (!s->net_dirty) { /* only single-server arrivals: their own time */
    for (size_t r = 0; r < s->nrunning; r++) {
      nsi_simjob *j = &s->jobs[s->running[r]];
      if (j->ver == 0)
        j->iter_ms = iter_alone(j);
    }
    return NS_OK;
  }
  s->nnet = 0;
  for (size_t r = 0; r < s->nrunning; r++) {
    nsi_simjob *j = &s->jobs[s->running[r]];
    j->slow = share_factor(s, j);
    if (is_net(j))
      s->net[s->nnet++] = s->running[r];
    else
      j->iter_ms = iter_alone(j);
  }
  s->net_dirty = 0;
  count_links(s);
  serial_sums(s);
  double d = nsi_sim_nic_gbps(&s->o);
  if (s->o.network == NS_SIM_NET_CONTENTION)
    eq5_loads(s);
  else
    maxmin(s, d);
  for (size_t r = 0; r < s->nnet; r++) {
    nsi_simjob *j = &s->jobs[s->net[r]];
    double comm = s->o.network == NS_SIM_NET_CONTENTION ? eq5_comm(s, j)
                                                        : j->comm_alone_ms * d / j->iter_ms;
    if (!isfinite(comm) || comm < 0)
      return nsi_fail(NS_EUNSUPPORTED, "ns_sim_run: the contention model (ns_comm_time_ms) is "
                                       "unavailable: %s", ns_last_error());
    j->iter_ms = j->compute_ms * j->slow + comm + serial_wait(s, j);
  }
  return NS_OK;
}
