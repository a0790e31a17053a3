/*
 * bindings/slurm/decide.c - one scheduling cycle on a snapshot, through the
 * public libnetsched API only: build the leaf-spine cluster, commit what
 * already holds GPUs, offer the held jobs to the policy in order.
 *
 * Mapping (documented in docs/slurm.md):
 *  - Leaves = the snapshot's leaf switches; servers_per_leaf and
 *    gpus_per_server are the largest counts seen. Slots a smaller leaf or
 *    node does not fill are background-occupied (ns_cluster_occupy), so no
 *    policy can choose them. Unusable nodes' free GPUs are occupied too.
 *  - Running jobs are committed on their nodes at the GPU indices Slurm
 *    reports (gres detail), or the node's lowest free GPUs when unknown;
 *    jobs we released that have not started yet are committed on their
 *    required nodes after them, a --gpus=T job split as Slurm will split
 *    it (slurm_split). Their LWF workload comes from model hints, else from
 *    their time limit.
 *  - A held job asks for its total GPUs. Slurm fixes how many GPUs it takes
 *    on each node: for --gpus-per-node=G jobs exactly G on each of -N nodes,
 *    so nodes with fewer than G free GPUs are hidden from the policy during
 *    that call (occupied, then vacated); if the placement is not exactly G
 *    GPUs on each of N nodes (always is for whole-node requests), the policy
 *    places one node's share N times instead, each chosen node hidden before
 *    the next call (place_per_node; not for Dally, whose every offer feeds
 *    its tuner: the job then waits, saying why). For --gpus=T
 *    jobs the node list is the policy's and Slurm chooses the split on it.
 *  - Backfilling as in the simulator: a job that waits does not block the
 *    jobs after it, except under the strict "fifo" preset (head-of-line).
 *  - --preempt requeue with a preemptible job running, under a preemptive
 *    order (2D-LAS, 2D-Gittins): one ns_policy_decide over held and running
 *    jobs instead, whose suspends main.c requeues (decide_preempt). Never
 *    for Dally: its lease re-offers need measured Nw_sens (policies.c);
 *    main.c refuses the combination and this file ignores it.
 *  - A held job Slurm requeued is not offered before Slurm would start it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapter.h"

typedef struct geom {
  ns_cluster *c;
  int gps, spl;
  int *server_of; /* per node */
  int *node_at;   /* per server: node index or -1 */
  int nservers;
} geom;

static int occupy_server_free(ns_cluster *c, int server, int gps, int from) {
  int g[256], n = 0;
  for (int k = from; k < gps && n < 256; k++)
    if (ns_cluster_gpu_is_free(c, server * gps + k) == 1)
      g[n++] = server * gps + k;
  return n > 0 ? ns_cluster_occupy(c, g, (size_t)n) : NS_OK;
}

static int build(nss_ctx *x, const nss_snapshot *s, geom *G, char *msg, size_t msglen) {
  int nleaves = s->nleaves > 0 ? s->nleaves : 1;
  int *per_leaf = calloc((size_t)nleaves, sizeof *per_leaf);
  G->server_of = malloc((size_t)(s->nnodes > 0 ? s->nnodes : 1) * sizeof *G->server_of);
  if (per_leaf == NULL || G->server_of == NULL) {
    free(per_leaf);
    snprintf(msg, msglen, "out of memory");
    return -1;
  }
  G->gps = 1, G->spl = 1;
  for (int i = 0; i < s->nnodes; i++) {
    int l = s->nodes[i].leaf >= 0 && s->nodes[i].leaf < nleaves ? s->nodes[i].leaf : 0;
    G->server_of[i] = per_leaf[l]++; /* rank inside its leaf for now */
    if (per_leaf[l] > G->spl)
      G->spl = per_leaf[l];
    if (s->nodes[i].gpus > G->gps)
      G->gps = s->nodes[i].gpus;
  }
  for (int i = 0; i < s->nnodes; i++) {
    int l = s->nodes[i].leaf >= 0 && s->nodes[i].leaf < nleaves ? s->nodes[i].leaf : 0;
    G->server_of[i] += l * G->spl;
  }
  free(per_leaf);
  int spines = nleaves > 1 ? (x->spines > 0 ? x->spines : s->spines > 0 ? s->spines : 1) : 0;
  G->c = ns_cluster_new_leaf_spine(nleaves, spines, G->spl, G->gps, x->links_per_pair,
                                   x->link_gbps);
  if (G->c == NULL) {
    snprintf(msg, msglen, "cannot model the cluster (%d leaves x %d nodes x %d GPUs): %s",
             nleaves, G->spl, G->gps, ns_last_error());
    return -1;
  }
  if (nss_policy_wants_ocs(x->policy) && spines > 0 &&
      ns_cluster_enable_ocs(G->c, spines) < 0) {
    snprintf(msg, msglen, "cannot add the OCS layer: %s", ns_last_error());
    return -1;
  }
  G->nservers = nleaves * G->spl;
  G->node_at = malloc((size_t)G->nservers * sizeof *G->node_at);
  if (G->node_at == NULL) {
    snprintf(msg, msglen, "out of memory");
    return -1;
  }
  for (int v = 0; v < G->nservers; v++)
    G->node_at[v] = -1;
  for (int i = 0; i < s->nnodes; i++)
    G->node_at[G->server_of[i]] = i;
  for (int v = 0; v < G->nservers; v++) {
    int from = G->node_at[v] < 0 ? 0 : s->nodes[G->node_at[v]].gpus;
    if (occupy_server_free(G->c, v, G->gps, from) < 0) {
      snprintf(msg, msglen, "cannot pad server %d: %s", v, ns_last_error());
      return -1;
    }
  }
  return 0;
}

/* A job handle with the snapshot job's demand and profile. */
static ns_job *make_job(const nss_ctx *x, const nss_job *j, int gpus) {
  char name[32];
  snprintf(name, sizeof name, "slurm-%u", j->id);
  ns_job *job = ns_job_new(name, gpus);
  if (job == NULL)
    return NULL;
  if (j->model >= 0)
    nss_model_apply(j->model, j->iters, x->nic_gbps > 0 ? x->nic_gbps : x->link_gbps, job);
  else if (j->limit_ms > 0)
    ns_job_set_compute_ms(job, j->limit_ms, 0.0); /* one "iteration" = its time limit */
  return job;
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* A released --gpus=T job Slurm has not started (nss_job.slurm_split): the
   GPUs per listed node as Slurm will give them, from the free GPUs now:
   one on each node, then the rest filling the nodes in node-table order.
   nodes[] (sorted here) and want[] have j->nplaced entries. */
static void slurm_split(const geom *G, const nss_job *j, int *nodes, int *want) {
  int n = j->nplaced, left = j->gpus;
  memcpy(nodes, j->node_of, (size_t)n * sizeof *nodes);
  qsort(nodes, (size_t)n, sizeof *nodes, cmp_int);
  for (int k = 0; k < n; k++) {
    want[k] = left > 0 && ns_cluster_free_gpus_on_server(G->c, G->server_of[nodes[k]]) > 0;
    left -= want[k];
  }
  for (int k = 0; k < n && left > 0; k++) {
    int more = ns_cluster_free_gpus_on_server(G->c, G->server_of[nodes[k]]) - want[k];
    if (more > left)
      more = left;
    if (more > 0)
      want[k] += more, left -= more;
  }
}

/* Commits a running / in-flight job where it is. Returns GPUs it could not
   be given (a node that changed under it), or -1 on a library failure. */
static int commit_existing(const nss_ctx *x, const geom *G, const nss_job *j, ns_job **out,
                           ns_placement *p) {
  *out = NULL;
  if (j->nplaced <= 0)
    return 0;
  ns_placement_clear(p);
  ns_placement_bind(p, G->c);
  int missing = 0, n = 0;
  if (j->slurm_split) {
    int *nodes = malloc((size_t)j->nplaced * 2 * sizeof *nodes);
    if (nodes == NULL)
      return -1;
    int *want = nodes + j->nplaced, given = 0;
    slurm_split(G, j, nodes, want);
    for (int k = 0; k < j->nplaced; k++) {
      int v = G->server_of[nodes[k]];
      for (int g = 0, got = 0; g < G->gps && got < want[k]; g++)
        if (ns_cluster_gpu_is_free(G->c, v * G->gps + g) == 1) {
          ns_placement_add_gpu(p, v * G->gps + g);
          got++, n++, given++;
        }
    }
    free(nodes);
    missing = j->gpus - given;
  }
  for (int k = 0; !j->slurm_split && k < j->nplaced; k++) {
    int v = G->server_of[j->node_of[k]], gpu = -1;
    int want = j->gpu_idx[k];
    int taken = 0;
    if (want >= 0 && want < G->gps) {
      gpu = v * G->gps + want;
      for (size_t q = 0; q < ns_placement_gpu_count(p); q++)
        taken |= ns_placement_gpu(p, q) == gpu;
      if (taken || ns_cluster_gpu_is_free(G->c, gpu) != 1)
        gpu = -1;
    }
    for (int g = 0; gpu < 0 && g < G->gps; g++) {
      int cand = v * G->gps + g;
      taken = 0;
      for (size_t q = 0; q < ns_placement_gpu_count(p); q++)
        taken |= ns_placement_gpu(p, q) == cand;
      if (!taken && ns_cluster_gpu_is_free(G->c, cand) == 1)
        gpu = cand;
    }
    if (gpu < 0) {
      missing++;
      continue;
    }
    ns_placement_add_gpu(p, gpu);
    n++;
  }
  if (n == 0)
    return missing;
  ns_job *job = make_job(x, j, n);
  if (job == NULL)
    return -1;
  if (ns_cluster_commit(G->c, job, p) < 0) {
    ns_job_free(job);
    return -1;
  }
  *out = job;
  return missing;
}

typedef struct order_item {
  double key;
  const nss_job *j;
} order_item;

static int cmp_items(const void *a, const void *b) {
  const order_item *x = a, *y = b;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  double ax = nss_job_arrival_ms(x->j), ay = nss_job_arrival_ms(y->j);
  if (ax != ay)
    return ax < ay ? -1 : 1;
  return x->j->id < y->j->id ? -1 : x->j->id > y->j->id;
}

/* Node names of the placement's servers, in server order, and GPUs per server. */
static int describe(const geom *G, const nss_snapshot *s, const ns_placement *p, char **list,
                    int *counts, int *nservers) {
  int ns = 0;
  memset(counts, 0, (size_t)G->nservers * sizeof *counts);
  for (size_t q = 0; q < ns_placement_gpu_count(p); q++) {
    int v = ns_placement_gpu(p, q) / G->gps;
    if (counts[v]++ == 0)
      ns++;
  }
  size_t len = 1;
  for (int v = 0; v < G->nservers; v++)
    if (counts[v] > 0 && G->node_at[v] >= 0)
      len += strlen(s->nodes[G->node_at[v]].name) + 1;
  char *buf = malloc(len);
  if (buf == NULL)
    return -1;
  buf[0] = '\0';
  for (int v = 0; v < G->nservers; v++)
    if (counts[v] > 0 && G->node_at[v] >= 0) {
      if (buf[0] != '\0')
        strcat(buf, ",");
      strcat(buf, s->nodes[G->node_at[v]].name);
    }
  *list = buf;
  *nservers = ns;
  return 0;
}

/* The policy's placement does not give each of N nodes exactly G GPUs. */
static int shape_mismatch(const geom *G, const nss_job *j, const int *counts, int nservers,
                          char *why, size_t n) {
  if (j->per_node > 0) {
    int bad = nservers != j->nodes;
    for (int v = 0; v < G->nservers && !bad; v++)
      bad = counts[v] != 0 && counts[v] != j->per_node;
    if (bad) {
      snprintf(why, n,
               "the policy splits its %d GPUs over %d nodes unevenly; Slurm's -N %d "
               "--gpus-per-node=%d cannot express that (submit with --gpus=%d to let the "
               "policy choose the split)",
               j->gpus, nservers, j->nodes, j->per_node, j->gpus);
      return 1;
    }
  } else if (j->nodes > 0 && nservers != j->nodes) {
    snprintf(why, n, "the policy uses %d nodes; the job asks for exactly -N %d", nservers,
             j->nodes);
    return 1;
  }
  return 0;
}

/* -N n --gpus-per-node=G when the policy's placement of the whole job is not
   G GPUs on each of n nodes: the policy places one node's share (a job of G
   GPUs) n times, hiding each chosen node before the next call, so the
   policy still chooses every node and Slurm's split is the policy's. NS_OK
   with p filled, or the policy's status with why set. The cluster is left
   as it was. */
static int place_per_node(nss_ctx *x, const geom *G, const nss_job *j, ns_placement *p,
                          char *why, size_t n) {
  ns_job *part = make_job(x, j, j->per_node);
  ns_placement *one = ns_placement_new();
  int *hid = malloc((size_t)G->nservers * (size_t)G->gps * sizeof *hid);
  size_t nh = 0;
  int rc = part && one && hid ? NS_OK : NS_ENOMEM;
  ns_placement_clear(p);
  ns_placement_bind(p, G->c);
  for (int k = 0; rc == NS_OK && k < j->nodes; k++) {
    rc = nss_policy_place(x, G->c, part, j, one, why, n);
    if (rc < 0)
      break;
    int v = ns_placement_gpu(one, 0) / G->gps;
    for (size_t q = 0; q < ns_placement_gpu_count(one) && rc == NS_OK; q++)
      if (ns_placement_gpu(one, q) / G->gps != v) {
        snprintf(why, n, "the policy spreads one node's %d GPUs over several nodes; Slurm's "
                 "--gpus-per-node=%d cannot express that", j->per_node, j->per_node);
        rc = NS_ENOSPACE;
      }
    for (size_t q = 0; q < ns_placement_gpu_count(one) && rc == NS_OK; q++)
      ns_placement_add_gpu(p, ns_placement_gpu(one, q));
    size_t from = nh;
    for (int g = v * G->gps; rc == NS_OK && g < (v + 1) * G->gps; g++)
      if (ns_cluster_gpu_is_free(G->c, g) == 1)
        hid[nh++] = g;
    if (rc == NS_OK && nh > from && ns_cluster_occupy(G->c, hid + from, nh - from) < 0) {
      nh = from;
      rc = NS_ENOMEM;
    }
  }
  if (nh > 0)
    ns_cluster_vacate(G->c, hid, nh);
  if (rc < 0 && why[0] == '\0')
    snprintf(why, n, "%s", ns_last_error());
  free(hid);
  ns_placement_free(one);
  ns_job_free(part);
  return rc;
}

/* A job Slurm requeued (its restart count > 0) may not start again before
   its begin time: Slurm sets it CredExpire + 1 s ahead (121 s by default).
   Released before then it would hold its nodes idle, so it is not offered
   until then. 1 with the reason set, else 0. */
static int not_yet_eligible(const nss_job *j, double now_ms, char *reason, size_t n) {
  if (j->restarts == 0 || j->eligible_ms <= now_ms)
    return 0;
  snprintf(reason, n, "requeued; Slurm lets it start again in %.0f s (CredExpire + 1 s after a "
           "requeue)", ceil((j->eligible_ms - now_ms) / 1e3));
  return 1;
}

/* Offers one held job; fills d. Returns the policy's status (NS_OK when
   placed), or 1 when the job waits for a reason of its own (hints, shape). */
static int offer(nss_ctx *x, const geom *G, const nss_snapshot *s, const nss_job *j,
                 ns_job **keep, ns_placement *p, int *counts, nss_decision *d) {
  char why[NSS_MAX_REASON + 1] = "";
  d->id = j->id;
  if (j->hint_error[0] != '\0') {
    nss_clean_reason(d->reason, sizeof d->reason, j->hint_error);
    return 1;
  }
  if (j->gpus <= 0) {
    snprintf(d->reason, sizeof d->reason, "asks for no GPUs (netsched places GPU jobs only)");
    return 1;
  }
  if (not_yet_eligible(j, s->now_ms, d->reason, sizeof d->reason))
    return 1;
  ns_job *job = make_job(x, j, j->gpus);
  if (job == NULL) {
    snprintf(d->reason, sizeof d->reason, "%s", ns_last_error());
    return 1;
  }
  /* --gpus-per-node=G: hide nodes that cannot give G GPUs (until the end). */
  int *hidden = NULL;
  size_t nh = 0;
  if (j->per_node > 1) {
    hidden = malloc((size_t)G->nservers * (size_t)G->gps * sizeof *hidden);
    for (int v = 0; hidden != NULL && v < G->nservers; v++) {
      int f = ns_cluster_free_gpus_on_server(G->c, v);
      if (f <= 0 || f >= j->per_node)
        continue;
      for (int g = 0; g < G->gps; g++)
        if (ns_cluster_gpu_is_free(G->c, v * G->gps + g) == 1)
          hidden[nh++] = v * G->gps + g;
    }
    if (nh > 0 && ns_cluster_occupy(G->c, hidden, nh) < 0)
      nh = 0;
  }
  int rc = nss_policy_place(x, G->c, job, j, p, why, sizeof why);
  if (rc < 0 && why[0] == '\0')
    nss_clean_reason(why, sizeof why, ns_last_error());
  int nserv = 0;
  if (rc == NS_OK && j->per_node > 0 && !nss_policy_uses_tuner(x->policy)) {
    char *list = NULL;
    if (describe(G, s, p, &list, counts, &nserv) == 0 &&
        shape_mismatch(G, j, counts, nserv, why, sizeof why)) {
      why[0] = '\0';
      rc = place_per_node(x, G, j, p, why, sizeof why);
    }
    free(list);
  }
  if (nh > 0)
    ns_cluster_vacate(G->c, hidden, nh);
  free(hidden);
  if (rc == NS_ENOSPACE) {
    nss_clean_reason(d->reason, sizeof d->reason, why[0] ? why : "no room now");
  } else if (rc == NS_EINVAL) {
    char tmp[2 * NSS_MAX_REASON + 64];
    snprintf(tmp, sizeof tmp, "never fits this cluster: %s", why);
    nss_clean_reason(d->reason, sizeof d->reason, tmp);
  } else if (rc < 0) {
    char tmp[2 * NSS_MAX_REASON + 64];
    snprintf(tmp, sizeof tmp, "policy %s failed (%s): %s", nss_policy_name(x->policy),
             ns_strerror(rc), why);
    nss_clean_reason(d->reason, sizeof d->reason, tmp);
  } else {
    char *list = NULL;
    rc = 1;
    if (describe(G, s, p, &list, counts, &nserv) < 0) {
      snprintf(d->reason, sizeof d->reason, "out of memory");
    } else if (shape_mismatch(G, j, counts, nserv, why, sizeof why)) {
      nss_clean_reason(d->reason, sizeof d->reason, why);
      free(list);
    } else if (ns_cluster_commit(G->c, job, p) < 0) {
      nss_clean_reason(d->reason, sizeof d->reason, ns_last_error());
      free(list);
    } else {
      d->placed = 1;
      d->nodelist = list;
      *keep = job;
      return NS_OK;
    }
  }
  ns_job_free(job);
  return rc;
}

/* Within a cycle, a policy that found no room for a job finds none for a
   job of the same demand (GPUs, -N / --gpus-per-node, model) until
   something is committed: its answer is reused (not for Dally, whose
   answer depends on each job's wait). The reason names the new job. */
typedef struct memo {
  int gpus, per_node, nodes, model;
  uint32_t id;
  char reason[NSS_MAX_REASON + 1];
} memo;
#define NMEMO 64

static const memo *memo_find(const memo *m, int n, const nss_job *j) {
  for (int i = 0; i < n; i++)
    if (m[i].gpus == j->gpus && m[i].per_node == j->per_node && m[i].nodes == j->nodes &&
        m[i].model == j->model)
      return &m[i];
  return NULL;
}

static void memo_reason(const memo *m, uint32_t id, char *dst, size_t n) {
  char from[32], to[32], tmp[2 * NSS_MAX_REASON + 64];
  snprintf(from, sizeof from, "'slurm-%u'", m->id);
  snprintf(to, sizeof to, "'slurm-%u'", id);
  const char *at = strstr(m->reason, from);
  if (at == NULL)
    snprintf(tmp, sizeof tmp, "%s", m->reason);
  else
    snprintf(tmp, sizeof tmp, "%.*s%s%s", (int)(at - m->reason), m->reason, to, at + strlen(from));
  nss_clean_reason(dst, n, tmp);
}



/* A running job the policy may suspend: opted in with the "preemptible"
   hint (and not refused by Slurm before: nss_hist_apply), running (not
   completing or suspended by Slurm), every GPU of it accounted on c. */
static int preemptible(const nss_job *j, const ns_job *committed) {
  return j->kind == NSS_JOB_RUNNING && j->preemptible && !j->completing && committed != NULL &&
         ns_job_gpus(committed) == j->gpus;
}

/* 1 if placement pl uses a GPU of job (committed on c). */
static int uses_gpus_of(ns_cluster *c, const ns_job *job, const ns_placement *pl,
                        ns_placement *scratch) {
  if (ns_cluster_job_placement(c, job, scratch) != NS_OK)
    return 0;
  for (size_t a = 0; a < ns_placement_gpu_count(pl); a++)
    for (size_t b = 0; b < ns_placement_gpu_count(scratch); b++)
      if (ns_placement_gpu(pl, a) == ns_placement_gpu(scratch, b))
        return 1;
  return 0;
}

/* --preempt requeue, in a cycle with a preemptible running job: one
   ns_policy_decide over the held jobs and every job holding GPUs.
   - Held jobs: arrival = first submission, attained service = the GPU x
     ms of their earlier runs (history.c).
   - Preemptible running jobs (ns_queue_add_running): attained = history +
     GPUs x this run.
   - Every other job holding GPUs (not opted in to preemption, in flight,
     ending, refused by Slurm before) is in the queue as running too, so
     the policy counts its GPUs (2D-LAS / 2D-Gittins grant GPUs while "as
     many of the cluster's GPUs are uncounted", over the whole cluster), but
     with no attained service: it stays in the policy's first queue, ahead
     of the jobs that wait, and is not suspended; should the policy suspend
     it all the same, the suspend is dropped and the starts placed on its
     GPUs wait.
   The suspends go to plan->s (main.c requeues them); the starts - placed
   as if the suspended jobs' GPUs were free - become node lists (the same
   shape check as offer(); no per-node fallback); every other held job
   waits with the policy's status as its reason. 0: no preemptible running
   job (the caller runs the ordinary cycle); 1: decided; -1: msg set. */
static int decide_preempt(nss_ctx *x, const geom *G, const nss_snapshot *s, ns_job **jobs,
                          int *counts, nss_plan *plan, char *msg, size_t msglen) {
  int npre = 0, nheld = 0;
  for (int i = 0; i < s->njobs; i++) {
    npre += preemptible(&s->jobs[i], jobs[i]);
    nheld += s->jobs[i].kind == NSS_JOB_HELD;
  }
  if (npre == 0)
    return 0;
  /* queue index -> job; job -> its decision; the jobs not to suspend */
  int *at = malloc((size_t)s->njobs * 3 * sizeof *at);
  ns_placement *scratch = ns_placement_new();
  plan->d = calloc((size_t)nheld + 1, sizeof *plan->d);
  plan->s = calloc((size_t)npre, sizeof *plan->s);
  if (at == NULL || scratch == NULL || plan->d == NULL || plan->s == NULL) {
    free(at);
    ns_placement_free(scratch);
    snprintf(msg, msglen, "out of memory");
    return -1;
  }
  int *dec = at + s->njobs, *kept = dec + s->njobs, nkept = 0, rc = NS_OK;
  ns_queue_clear(x->q);
  for (int i = 0; i < s->njobs && rc >= 0; i++) {
    const nss_job *j = &s->jobs[i];
    dec[i] = -1;
    if (j->kind != NSS_JOB_HELD)
      continue;
    nss_decision *d = &plan->d[plan->n];
    dec[i] = plan->n++;
    d->id = j->id;
    if (j->hint_error[0] != '\0') {
      nss_clean_reason(d->reason, sizeof d->reason, j->hint_error);
      continue;
    }
    if (j->gpus <= 0) {
      snprintf(d->reason, sizeof d->reason, "asks for no GPUs (netsched places GPU jobs only)");
      continue;
    }
    if (not_yet_eligible(j, s->now_ms, d->reason, sizeof d->reason))
      continue;
    if ((jobs[i] = make_job(x, j, j->gpus)) == NULL) {
      nss_clean_reason(d->reason, sizeof d->reason, ns_last_error());
      continue;
    }
    rc = ns_queue_add(x->q, jobs[i], j->id, nss_job_arrival_ms(j));
    if (rc >= 0) {
      at[rc] = i;
      int qi = rc;
      rc = ns_queue_set_ideal_ms(x->q, (size_t)qi, nss_job_ideal_ms(j));
      if (rc >= 0)
        rc = ns_queue_set_attained_ms(x->q, (size_t)qi, j->attained_ms);
    }
  }
  for (int i = 0; i < s->njobs && rc >= 0; i++) {
    const nss_job *j = &s->jobs[i];
    if (j->kind == NSS_JOB_HELD || jobs[i] == NULL)
      continue;
    int pre = preemptible(j, jobs[i]);
    rc = ns_queue_add_running(x->q, jobs[i], j->id, nss_job_arrival_ms(j));
    if (rc >= 0) {
      at[rc] = i;
      rc = ns_queue_set_attained_ms(x->q, (size_t)rc, pre ? j->attained_ms : 0.0);
    }
  }
  if (rc >= 0)
    rc = ns_policy_decide(x->pol, G->c, x->q, s->now_ms, x->d);
  if (rc < 0) {
    snprintf(msg, msglen, "policy %s failed (%s): %s", nss_policy_name(x->policy),
             ns_strerror(rc), ns_last_error());
    ns_queue_clear(x->q);
    ns_placement_free(scratch);
    free(at);
    return -1;
  }
  for (size_t k = 0; k < ns_decision_suspend_count(x->d); k++) {
    size_t qi = ns_decision_suspend_job(x->d, k);
    if (qi >= ns_queue_count(x->q))
      continue;
    const nss_job *j = &s->jobs[at[qi]];
    if (!preemptible(j, jobs[at[qi]])) {
      kept[nkept++] = at[qi]; /* only what opted in is ever requeued */
      continue;
    }
    nss_suspend *v = &plan->s[plan->ns++];
    v->id = j->id, v->gpus = j->gpus, v->attained_ms = j->attained_ms, v->run_ms = j->run_ms;
  }
  for (size_t k = 0; k < ns_decision_start_count(x->d); k++) {
    size_t qi = ns_decision_start_job(x->d, k);
    if (qi >= ns_queue_count(x->q) || dec[at[qi]] < 0)
      continue;
    const nss_job *j = &s->jobs[at[qi]];
    nss_decision *d = &plan->d[dec[at[qi]]];
    const ns_placement *pl = ns_decision_placement(x->d, k);
    char *list = NULL, why[NSS_MAX_REASON + 1] = "";
    int nserv = 0, holder = -1;
    for (int m = 0; m < nkept && holder < 0; m++)
      if (uses_gpus_of(G->c, jobs[kept[m]], pl, scratch))
        holder = kept[m];
    if (holder >= 0) {
      snprintf(d->reason, sizeof d->reason,
               "the policy gave it the GPUs of job %u, which is not preemptible (no "
               "netsched:preemptible hint, or ending)", s->jobs[holder].id);
    } else if (describe(G, s, pl, &list, counts, &nserv) < 0) {
      snprintf(d->reason, sizeof d->reason, "out of memory");
    } else if (shape_mismatch(G, j, counts, nserv, why, sizeof why)) {
      nss_clean_reason(d->reason, sizeof d->reason, why);
      free(list);
    } else {
      d->placed = 1;
      d->nodelist = list;
    }
  }
  for (size_t qi = 0; qi < ns_queue_count(x->q); qi++) {
    const nss_job *j = &s->jobs[at[qi]];
    if (dec[at[qi]] < 0)
      continue;
    nss_decision *d = &plan->d[dec[at[qi]]];
    if (d->placed || d->reason[0] != '\0')
      continue;
    if (ns_decision_status(x->d, qi) == NS_EINVAL)
      snprintf(d->reason, sizeof d->reason, "never fits this cluster (%d GPUs)", j->gpus);
    else
      snprintf(d->reason, sizeof d->reason,
               "%s: not started now (%d GPUs; attained service %.0f GPU-s: the policy "
               "ranks the jobs holding the GPUs first)",
               nss_policy_name(x->policy), j->gpus, j->attained_ms / 1e3);
  }
  ns_queue_clear(x->q);
  ns_placement_free(scratch);
  free(at);
  return 1;
}

int nss_decide(nss_ctx *x, const nss_snapshot *s, nss_plan *plan, char *msg, size_t msglen) {
  memset(plan, 0, sizeof *plan);
  geom G = {0};
  ns_job **jobs = calloc((size_t)s->njobs + 1, sizeof *jobs);
  order_item *items = calloc((size_t)s->njobs + 1, sizeof *items);
  ns_placement *p = ns_placement_new();
  int *counts = NULL, rc = -1;
  if (jobs == NULL || items == NULL || p == NULL) {
    snprintf(msg, msglen, "out of memory");
    goto out;
  }
  if (build(x, s, &G, msg, msglen) < 0)
    goto out;
  counts = malloc((size_t)G.nservers * sizeof *counts);
  if (counts == NULL) {
    snprintf(msg, msglen, "out of memory");
    goto out;
  }
  int missing = 0, nheld = 0;
  for (int i = 0; i < s->njobs; i++)
    if (s->jobs[i].kind == NSS_JOB_HELD) {
      items[nheld].key = nss_order_key(x, &s->jobs[i]);
      items[nheld++].j = &s->jobs[i];
    }
  /* Running jobs first: a released job not started yet gets what they
     leave free when Slurm starts it. */
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < s->njobs; i++) {
      const nss_job *j = &s->jobs[i];
      if (j->kind != (pass == 0 ? NSS_JOB_RUNNING : NSS_JOB_INFLIGHT))
        continue;
      int m = commit_existing(x, &G, j, &jobs[i], p);
      if (m < 0) {
        snprintf(msg, msglen, "cannot account for job %u: %s", j->id, ns_last_error());
        goto out;
      }
      missing += m;
    }
  if (missing > 0)
    snprintf(plan->note, sizeof plan->note,
             "%d GPUs of running jobs did not fit their nodes' free GPUs (node changed?)",
             missing);
  for (int i = 0; i < s->nnodes; i++)
    if (!s->nodes[i].usable && occupy_server_free(G.c, G.server_of[i], G.gps, 0) < 0) {
      snprintf(msg, msglen, "cannot mark node %s unusable: %s", s->nodes[i].name,
               ns_last_error());
      goto out;
    }
  int ord = ns_policy_order_of(x->pol);
  if (x->preempt && (ord == NS_POLICY_ORDER_2D_LAS || ord == NS_POLICY_ORDER_2D_GITTINS)) {
    int r = decide_preempt(x, &G, s, jobs, counts, plan, msg, msglen);
    if (r != 0) {
      rc = r < 0 ? -1 : 0;
      goto out;
    }
  }
  qsort(items, (size_t)nheld, sizeof *items, cmp_items);
  plan->d = calloc((size_t)nheld + 1, sizeof *plan->d);
  if (plan->d == NULL) {
    snprintf(msg, msglen, "out of memory");
    goto out;
  }
  uint32_t blocker = 0; /* strict FIFO: the first job that waited */
  memo memos[NMEMO];
  int nmemo = 0, use_memo = !nss_policy_uses_tuner(x->policy);
  for (int k = 0; k < nheld; k++) {
    int idx = (int)(items[k].j - s->jobs);
    nss_decision *d = &plan->d[plan->n++];
    if (blocker != 0) {
      d->id = items[k].j->id;
      snprintf(d->reason, sizeof d->reason, "behind job %u (strict FIFO: no backfilling)",
               blocker);
      continue;
    }
    const memo *hit = use_memo && items[k].j->hint_error[0] == '\0'
                          ? memo_find(memos, nmemo, items[k].j)
                          : NULL;
    if (hit != NULL) {
      d->id = items[k].j->id;
      memo_reason(hit, d->id, d->reason, sizeof d->reason);
    } else {
      int prc = offer(x, &G, s, items[k].j, &jobs[idx], p, counts, d);
      if (d->placed) {
        nmemo = 0; /* the cluster changed */
      } else if (prc == NS_ENOSPACE && nmemo < NMEMO) {
        memo *m = &memos[nmemo++];
        m->gpus = items[k].j->gpus, m->per_node = items[k].j->per_node;
        m->nodes = items[k].j->nodes, m->model = items[k].j->model, m->id = d->id;
        snprintf(m->reason, sizeof m->reason, "%s", d->reason);
      }
    }
    if (!d->placed && nss_policy_strict(x->policy))
      blocker = d->id;
  }
  rc = 0;
out:
  if (rc < 0)
    nss_plan_free(plan);
  if (G.c != NULL)
    for (int i = 0; i < s->njobs; i++)
      if (jobs != NULL && jobs[i] != NULL)
        ns_cluster_release(G.c, jobs[i]);
  for (int i = 0; jobs != NULL && i < s->njobs; i++)
    ns_job_free(jobs[i]);
  free(jobs);
  free(items);
  free(counts);
  ns_placement_free(p);
  ns_cluster_free(G.c);
  free(G.server_of);
  free(G.node_at);
  return rc;
}

void nss_plan_free(nss_plan *plan) {
  for (int i = 0; plan->d != NULL && i < plan->n; i++)
    free(plan->d[i].nodelist);
  free(plan->d);
  free(plan->s);
  plan->d = NULL, plan->s = NULL;
  plan->n = plan->ns = 0;
}

void nss_snapshot_free(nss_snapshot *s) {
  for (int i = 0; i < s->nnodes; i++)
    free(s->nodes[i].name);
  for (int i = 0; i < s->nleaves; i++)
    free(s->leaves[i]);
  for (int i = 0; i < s->njobs; i++) {
    free(s->jobs[i].comment);
    free(s->jobs[i].hints);
    free(s->jobs[i].node_of);
    free(s->jobs[i].gpu_idx);
  }
  free(s->nodes);
  free(s->leaves);
  free(s->jobs);
  memset(s, 0, sizeof *s);
}
