/*
 * src/sim/network.c - the fabric the network models share: which links a
 * placement's ring traverses (ECMP or vClos source routing), their
 * capacities, a job's all-reduce alone, and a max-min fair solver
 * (progressive filling). The models themselves are in net_fluid.c
 * (maxmin, contention) and net_phase.c (phase). See sim.h.
 *
 * Link indices, N = S x P NIC ports (S servers, P = ns_sim_opts_set_nics
 * ports per server, default 1): NIC port tx [0, N), NIC port rx [N, 2N),
 * leaf->spine uplinks [2N, 2N+U), spine->leaf downlinks [2N+U, 2N+2U),
 * U = leaves * spines * links_per_pair, in the core's nsi_link_index order.
 *
 * One port model with the library (core.h "Port model"): the run's cluster
 * is set to P ports per server at the NIC rate (ns_cluster_set_nic_ports),
 * local GPU i of a server on its port i * P / gpus_per_server. A job's ring
 * runs over its GPUs in ascending id order; each pair of consecutive GPUs
 * (cyclically) on different servers is one flow, from the sender GPU's port
 * (tx) to the receiver GPU's port (rx); between leaves it crosses the spine
 * and parallel link the core's ECMP hash (nsi_ecmp_route) picks for that
 * port pair, or a vClos job's reserved links (unless
 * ns_sim_opts_set_vclos_routing(o, NS_SIM_VCLOS_ECMP): then ECMP too). These are the flows and links
 * ns_cassini_candidate_from_cluster describes for a ring
 * (test_sim_cassini_links_agree). With P = 1 the GPU ring's inter-server
 * flows are exactly the server ring's (one per consecutive server pair).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/collective.h"
#include "sim/sim_internal.h"

int nsi_sim_net_init(ns_sim *s) {
  const ns_sim_opts *o = &s->o;
  int S = o->leaves * o->servers_per_leaf, P = nsi_sim_nic_ports(o);
  if (P > o->gpus_per_server)
    return nsi_fail(NS_EINVAL, "ns_sim_run: nics_per_server must be at most the GPUs per server, "
                               "%d (got %d)", o->gpus_per_server, P);
  int U = o->leaves * o->spines * o->links_per_pair;
  s->nports = (long long)S * P > INT_MAX / 4 ? -1 : S * P;
  if (s->nports < 0)
    return nsi_fail(NS_EINVAL, "ns_sim_run: %d servers x %d NICs is too many ports", S, P);
  s->ports_per_server = P;
  int hd = o->allreduce == NS_SIM_ALLREDUCE_HD;
  for (size_t i = 0; i < s->njobs && !hd; i++)
    hd = nsi_sim_job_allreduce(s, &s->jobs[i]) == NS_SIM_ALLREDUCE_HD;
  s->ring_only = !hd;
  if (hd && (o->network == NS_SIM_NET_MAXMIN || o->network == NS_SIM_NET_CONTENTION))
    return nsi_fail(NS_EINVAL, "ns_sim_run: the halving-doubling all-reduce is simulated by the "
                               "phase network model only (network %s)",
                    o->network == NS_SIM_NET_MAXMIN ? "maxmin" : "contention");
  s->nnet_links = 2 * s->nports + 2 * U;
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
  /* the library's view of the NICs (CASSINI candidates): this network's */
  if (ns_cluster_set_nic_ports(s->cluster, P, nic) < 0)
    return nsi_fail(NS_EINVAL, "ns_sim_run: %s", ns_last_error());
  for (size_t i = 0; i < n; i++)
    s->cap[i] = i < (size_t)(2 * s->nports) ? nic : o->link_gbps;
  /* the phase model: union-find owners per link and GPU, GPU capacities */
  int G = S * o->gpus_per_server;
  s->ngpus_total = G;
  s->own = malloc((n + (size_t)G) * sizeof *s->own);
  if (s->own != NULL)
    memset(s->own, 0xff, (n + (size_t)G) * sizeof *s->own); /* -1: no owner, no stamp */
  s->lid = malloc((n + (size_t)G) * sizeof *s->lid);
  if (s->lid != NULL)
    memset(s->lid, 0xff, (n + (size_t)G) * sizeof *s->lid);
  s->bg = calloc(n, sizeof *s->bg);
  s->bgk = calloc(n, sizeof *s->bgk);
  s->capeff = malloc(n * sizeof *s->capeff);
  s->capk = malloc(n * sizeof *s->capk);
  for (int k = 0; k <= 64; k++)
    s->ek[k] = nsi_sim_curve(o, k);
  s->kmax = nsi_admission(o) == NS_SIM_ADMIT_SRSF ? nsi_admit_n(o) : 0;
  s->touch_cap = nsi_sim_preemptive(o) ? NSI_PHASE_TOUCHED_PREEMPT : NSI_PHASE_TOUCHED;
  s->bgcnt = calloc(n, sizeof *s->bgcnt);
  s->lmap = malloc(n * sizeof *s->lmap);
  s->lmapg = calloc(n, sizeof *s->lmapg);
  s->lmap_serial = 0;
  s->touch = calloc(n ? n : 1, sizeof *s->touch);
  s->tlist = malloc((n ? n : 1) * sizeof *s->tlist);
  s->ntouch = 0;
  s->lrel = calloc(n ? n : 1, sizeof *s->lrel);
  s->aep = 0, s->admit_skips = 0;
  if (s->capeff != NULL)
    memcpy(s->capeff, s->cap, n * sizeof *s->capeff);
  s->gcap = malloc((size_t)G * sizeof *s->gcap);
  s->gload = calloc((size_t)G, sizeof *s->gload);
  s->gused = calloc((size_t)G, sizeof *s->gused);
  if (!s->own || !s->lid || !s->bg || !s->bgk || !s->capeff || !s->capk || !s->bgcnt || !s->lmap || !s->lmapg || !s->touch || !s->tlist || !s->lrel || !s->gcap || !s->gload || !s->gused)
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory for %d GPUs", G);
  for (int g = 0; g < G; g++)
    s->gcap[g] = 1.0;
  return NS_OK;
}

void nsi_sim_net_free(ns_sim *s) {
  free(s->cap), free(s->load), free(s->fuse), free(s->sum), free(s->cnt), free(s->shared_ever);
  free(s->srv_busy), free(s->own), free(s->lid), free(s->gcap), free(s->gload), free(s->gused);
  free(s->bg), free(s->bgk), free(s->capeff), free(s->bgcnt), free(s->touch), free(s->tlist), free(s->capk), free(s->wtmp);
  s->capk = NULL, s->wtmp = NULL, s->cap_wtmp = 0;
  free(s->lmap), free(s->lmapg), free(s->lseed), free(s->lrel);
  s->lrel = NULL;
  s->lmap = s->lseed = NULL, s->lmapg = NULL, s->cap_lseed = 0;
  s->lid = s->bgcnt = s->touch = s->tlist = NULL;
  s->bg = s->bgk = s->capeff = NULL;
  nsi_sim_fill_free(&s->fill);
  s->cap = s->load = s->fuse = s->sum = s->gcap = s->gload = s->gused = NULL;
  s->cnt = s->own = s->srv_busy = NULL;
  s->shared_ever = NULL;
  free(s->icap_tmp);
  s->icap_tmp = NULL;
  free(s->rate_tmp), free(s->res_tmp), free(s->nres_tmp), free(s->idx_tmp), free(s->seeds);
  s->rate_tmp = NULL, s->res_tmp = NULL, s->nres_tmp = NULL, s->cap_tmp = 0;
  s->idx_tmp = NULL, s->seeds = NULL, s->nseeds = s->cap_seeds = 0;
  for (size_t g = 0; g < s->ngrp; g++) {
    free(s->grp[g].members);
    nsi_mm_free(s->grp[g].mm);
    free(s->grp[g].mm);
  }
  free(s->grp);
  s->grp = NULL, s->ngrp = s->cap_grp = 0;
}

/* Parallel link k of (leaf, spine) for a vClos placement: one it reserved. */
static int reserved_k(const ns_placement *p, int leaf, int spine, int lpp, int fallback) {
  for (size_t i = 0; i < p->nlinks; i++)
    if (p->links[i].leaf == leaf && p->links[i].spine == spine && p->links[i].k >= 0 &&
        p->links[i].k < lpp) /* an OCS circuit may index past the electrical links */
      return p->links[i].k;
  return fallback;
}

/* The placement's first GPU on NIC port `port` (P = 1: on the server). */
static int first_gpu_on_port(const ns_sim *s, const ns_placement *p, int port) {
  int gps = s->o.gpus_per_server, P = s->ports_per_server;
  for (size_t i = 0; i < p->ngpus; i++) {
    int g = p->gpus[i];
    if ((g / gps) * P + (int)((long long)(g % gps) * P / gps) == port)
      return g;
  }
  return -1;
}

static int port_of(const ns_sim *s, int gpu) {
  int gps = s->o.gpus_per_server, P = s->ports_per_server;
  return (gpu / gps) * P + (int)((long long)(gpu % gps) * P / gps);
}

/* Appends the links of the flow from GPU a to GPU b (on another server). */
static void flow_links(ns_sim *s, const ns_placement *p, int a, int b, int *out, size_t *n) {
  const ns_sim_opts *o = &s->o;
  int N = s->nports;
  int U = o->leaves * o->spines * o->links_per_pair;
  int pa = port_of(s, a), pb = port_of(s, b);
  out[(*n)++] = pa;
  out[(*n)++] = N + pb;
  int gps = o->gpus_per_server;
  int ls = a / gps / o->servers_per_leaf, ld = b / gps / o->servers_per_leaf;
  if (ls == ld || o->spines == 0)
    return;
  int spine = 0, k = 0; /* ECMP on the (a, b) NIC ports */
  nsi_ecmp_route(o->spines, o->links_per_pair, pa, pb, &spine, &k);
  int reserved = p->nlinks > 0 && s->o.vclos_routing == NS_SIM_VCLOS_RESERVED;
  if (reserved) { /* vClos: source routing over the reserved links (§5.2) */
    int sg = first_gpu_on_port(s, p, pa), dg = first_gpu_on_port(s, p, pb);
    int sp;
    if (sg >= 0 && dg >= 0 && ns_vclos_route(s->cluster, sg, dg, &sp) == NS_OK && sp >= 0 &&
        sp < o->spines)
      spine = sp;
  }
  /* each leaf's own reserved link to the spine (vClos), else the ECMP one */
  int ku = reserved ? reserved_k(p, ls, spine, o->links_per_pair, k) : k;
  int kd = reserved ? reserved_k(p, ld, spine, o->links_per_pair, k) : k;
  size_t up = ((size_t)ls * (size_t)o->spines + (size_t)spine) * (size_t)o->links_per_pair + (size_t)ku;
  size_t down = ((size_t)ld * (size_t)o->spines + (size_t)spine) * (size_t)o->links_per_pair + (size_t)kd;
  out[(*n)++] = 2 * N + (int)up;
  out[(*n)++] = 2 * N + U + (int)down;
}

void nsi_sim_steps_free(nsi_steps *st) {
  if (st != NULL)
    free(st->off), free(st->links), free(st->work), free(st->lone);
  free(st);
}

/* Halving-doubling: the library's own (src/core/collective.c, what
   ns_collective_traffic lists and Titan's and vClos's placements plan for),
   ranks in the placement's GPU order (Titan and vClos: GPU i hosts worker
   i). n ranks, p the largest power of two <= n, k = log2 p: halving step t
   (0..k-1) pairs rank v with v XOR p/2^(t+1) exchanging M/2^(t+1), the
   doubling steps mirror them; n not a power of two: Rabenseifner's fold
   (MPICH, gloo), a first step where ranks 2i < 2(n-p) send M to 2i + 1 and
   a last step returning it. A step's flows between servers take their
   links as the ring's (flow_links: NIC ports, ECMP or reserved uplinks)
   and move their bytes at the flow rate d over them, or, with no flow
   between servers, at the intra-server rate. Bytes per rank for n = p:
   2M(1 - 1/p), the ring's. The job's links (grouping, background load) are
   every link of any step, at its largest multiplicity in one step. */
static int hd_steps(ns_sim *s, nsi_simjob *j, const ns_placement *p, const int *g, int **links,
                    size_t *nlinks) {
  int n = (int)p->ngpus, gps = s->o.gpus_per_server;
  int nst = ns_collective_phase_count(NS_COLL_HALVING_DOUBLING, n);
  if (nst < 0)
    return nsi_fail(NS_EINVAL, "ns_sim_run: %s", ns_last_error());
  nsi_steps *st = calloc(1, sizeof *st);
  size_t cap = (size_t)nst * (size_t)n * 4 * NSI_COLL_MAX_SENDS + 1; /* 4 links a flow */
  int *all = malloc(cap * sizeof *all);
  if (st == NULL || all == NULL || !(st->off = malloc((size_t)(nst + 1) * sizeof *st->off)) ||
      !(st->links = malloc(cap * sizeof *st->links)) ||
      !(st->work = malloc((size_t)(nst ? nst : 1) * sizeof *st->work)) ||
      !(st->lone = malloc((size_t)(nst ? nst : 1) * sizeof *st->lone))) {
    nsi_sim_steps_free(st), free(all);
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
  }
  double d = nsi_sim_nic_gbps(&s->o);
  size_t nl = 0;
  st->n = nst;
  for (int i = 0; i < nst; i++) {
    st->off[i] = nl;
    uint64_t bytes = 0; /* the step's largest send: it ends with its slowest flow */
    int inter = 0;
    for (int r = 0; r < n; r++) {
      nsi_flow f[NSI_COLL_MAX_SENDS];
      int nf = nsi_coll_sends(NS_COLL_HALVING_DOUBLING, n, j->model_bytes, i, r, f);
      for (int x = 0; x < nf; x++) {
        bytes = f[x].bytes > bytes ? f[x].bytes : bytes;
        if (g[r] / gps != g[f[x].to] / gps)
          flow_links(s, p, g[r], g[f[x].to], st->links, &nl), inter = 1;
      }
    }
    st->off[i + 1] = nl;
    qsort(st->links + st->off[i], nl - st->off[i], sizeof *st->links, nsi_cmp_int);
    double rate = inter ? d : s->o.intra_gbps, lone = rate; /* Gbps */
    for (size_t a = st->off[i]; a < nl;) { /* alone: capacity / its flows, per link */
      size_t b = a;
      while (b < nl && st->links[b] == st->links[a])
        b++;
      double v = s->cap[st->links[a]] / (double)(b - a);
      lone = v < lone ? v : lone;
      a = b;
    }
    st->work[i] = (double)bytes * 8.0 / (rate * 1e6);
    st->lone[i] = (double)bytes * 8.0 / (lone * 1e6);
  }
  /* the job's links: each at its largest multiplicity in one step */
  memcpy(all, st->links, nl * sizeof *all);
  qsort(all, nl, sizeof *all, nsi_cmp_int);
  for (int i = 0; i < nst; i++)
    for (size_t a = st->off[i]; a < st->off[i + 1];) {
      size_t b = a;
      while (b < st->off[i + 1] && st->links[b] == st->links[a])
        b++;
      if ((int)(b - a) > s->cnt[st->links[a]])
        s->cnt[st->links[a]] = (int)(b - a);
      a = b;
    }
  size_t m = 0;
  for (size_t a = 0; a < nl; a++)
    if (a == 0 || all[a] != all[a - 1])
      for (int k = s->cnt[all[a]]; k > 0; k--)
        all[m++] = all[a];
  for (size_t a = 0; a < nl; a++)
    s->cnt[st->links[a]] = 0;
  nsi_sim_steps_free(j->hd);
  j->hd = st, j->step = 0;
  free(*links);
  *links = all, *nlinks = m;
  return NS_OK;
}

/* The run's all-reduce algorithm for j (its own, else the options'). */
int nsi_sim_job_allreduce(const ns_sim *s, const nsi_simjob *j) {
  return j->ar > 0 ? j->ar - 1 : s->o.allreduce;
}

/* The ring over the job's GPUs in ascending id order: one flow per pair of
   consecutive GPUs (cyclically) on different servers; with the
   halving-doubling all-reduce, its steps (hd_steps). */
int nsi_sim_job_links(ns_sim *s, nsi_simjob *j, const ns_placement *p, int **links,
                      size_t *nlinks) {
  int gps = s->o.gpus_per_server;
  size_t ng = p->ngpus ? p->ngpus : 1;
  int *srv = malloc(ng * sizeof *srv), *g = malloc(ng * sizeof *g);
  if (srv == NULL || g == NULL) {
    free(srv), free(g);
    return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
  }
  size_t m = nsi_distinct_groups(p->gpus, p->ngpus, gps, srv);
  int *out = NULL;
  size_t n = 0;
  if (m >= 2) {
    memcpy(g, p->gpus, p->ngpus * sizeof *g);
    qsort(g, p->ngpus, sizeof *g, nsi_cmp_int);
    out = malloc(4 * m * sizeof *out); /* m server boundaries in the ring */
    if (out == NULL) {
      free(srv), free(g);
      return nsi_fail(NS_ENOMEM, "ns_sim_run: out of memory");
    }
    for (size_t i = 0; i < p->ngpus; i++) {
      int a = g[i], b = g[(i + 1) % p->ngpus];
      if (a / gps != b / gps)
        flow_links(s, p, a, b, out, &n);
    }
    qsort(out, n, sizeof *out, nsi_cmp_int); /* duplicates adjacent: multiplicity */
  }
  free(j->srv);
  j->srv = srv, j->nsrv = m;
  *links = out, *nlinks = n;
  nsi_sim_steps_free(j->hd);
  j->hd = NULL;
  int rc = NS_OK;
  if (nsi_sim_job_allreduce(s, j) == NS_SIM_ALLREDUCE_HD && p->ngpus >= 2 &&
      j->model_bytes > 0 && s->o.network == NS_SIM_NET_PHASE) {
    rc = hd_steps(s, j, p, p->gpus, links, nlinks); /* ranks in the placement's order */
  }
  free(g);
  return rc;
}

/* Communication time alone: Eq. 5 with k = 1, or the ring's transfer (plus,
   across servers in the phase model, the start-up latency alpha). */
double nsi_sim_comm_alone_ms(const ns_sim *s, const nsi_simjob *j, int multi_server) {
  const ns_sim_opts *o = &s->o;
  int n = j->gpus;
  if (n <= 1 || o->network == NS_SIM_NET_IDEAL)
    return 0.0;
  double frac = 2.0 * (n - 1) / n; /* ring all-reduce: 2(N-1)/N * M per GPU */
  if (!multi_server)
    return frac * (double)j->model_bytes * 8.0 / (o->intra_gbps * 1e6);
  double alpha = o->network == NS_SIM_NET_PHASE ? o->alpha_ms : 0.0; /* start-up latency */
  return alpha + frac * (double)j->model_bytes * 8.0 / (nsi_sim_nic_gbps(o) * 1e6);
}

/* The rate of a multi-server job's flows alone: the flow rate d, capped on
   every link by capacity / the number of its own flows there. */
double nsi_sim_lone_rate(const ns_sim *s, const nsi_simjob *j) {
  double x = nsi_sim_nic_gbps(&s->o);
  for (size_t i = 0; i < j->nlinks;) {
    size_t k = i;
    while (k < j->nlinks && j->links[k] == j->links[i])
      k++;
    double v = s->cap[j->links[i]] / (double)(k - i);
    x = v < x ? v : x;
    i = k;
  }
  return x;
}
