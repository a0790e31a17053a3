/*
 * bindings/slurm/slurm_io.c - the libslurm side: a snapshot of nodes,
 * topology and jobs in, one action per decision out (design/SLURM.md).
 *
 * Which jobs are whose:
 *  - HELD (ours to place): pending with priority 0 (sbatch -H, or held by a
 *    job_submit plugin) and opted in: comment "netsched" or "netsched:..."
 *    or, with --partition P, submitted to P. Also an opted-in job we
 *    released whose required nodes became unusable before it started (it
 *    would wait for them forever): it is placed again.
 *  - INFLIGHT: opted in, pending, not held, with required nodes: released
 *    by us, not started yet; its GPUs count as taken.
 *  - RUNNING: any job running, suspended or completing, opted in or not,
 *    with this run's time (for attained service under --preempt requeue).
 *  Everything else is never read further and never changed.
 * GPU counts: node Gres "gpu:4" / "gpu:type:4"; a job's TresPerNode
 * "gres:gpu:4" (times its node count) or TresPerJob "gres:gpu:8"; a running
 * job's per-node GPU indices from its gres detail "gpu:2(IDX:0-1)".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "adapter.h"

/* GPUs in a GRES/TRES list ("gres:gpu:4", "gpu:v100:2(S:0)", "gres/gpu=3"):
   the count of the first gpu entry; 1 if it has none; 0 without gpu. */
static int gpu_count(const char *s) {
  if (s == NULL)
    return 0;
  const char *p = strstr(s, "gpu");
  if (p == NULL)
    return 0;
  size_t n = strcspn(p, ",(;");
  const char *last = NULL;
  for (const char *q = p; q < p + n; q++)
    if (*q == ':' || *q == '=')
      last = q;
  if (last == NULL)
    return 1;
  char *end = NULL;
  long v = strtol(last + 1, &end, 10);
  return end != last + 1 && v >= 0 && v < (1 << 20) ? (int)v : 1;
}

/* GPU indices of a gres detail "gpu:2(IDX:0-1,3)" into idx (at most max).
   Returns how many, 0 if none is listed. */
static int gpu_indices(const char *s, int *idx, int max) {
  const char *p = s ? strstr(s, "IDX:") : NULL;
  int n = 0;
  if (p == NULL)
    return 0;
  p += 4;
  while (*p != '\0' && *p != ')' && n < max) {
    char *end = NULL;
    long a = strtol(p, &end, 10), b = a;
    if (end == p)
      break;
    p = end;
    if (*p == '-') {
      b = strtol(p + 1, &end, 10);
      p = end;
    }
    for (long k = a; k <= b && n < max; k++)
      idx[n++] = (int)k;
    if (*p == ',')
      p++;
  }
  return n;
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

static int node_index(const nss_snapshot *s, const char *name) {
  for (int i = 0; i < s->nnodes; i++)
    if (strcmp(s->nodes[i].name, name) == 0)
      return i;
  return -1;
}

/* Calls fn(name, user) for each host of a Slurm hostlist expression. */
static int each_host(const char *list, void (*fn)(const char *, void *), void *user) {
  if (list == NULL || *list == '\0')
    return 0;
  hostlist_t hl = slurm_hostlist_create(list);
  if (hl == NULL)
    return -1;
  char *h;
  while ((h = slurm_hostlist_shift(hl)) != NULL) {
    fn(h, user);
    free(h);
  }
  slurm_hostlist_destroy(hl);
  return 0;
}

typedef struct leaf_ctx {
  nss_snapshot *s;
  int leaf;
} leaf_ctx;

static void set_leaf(const char *name, void *user) {
  leaf_ctx *c = user;
  int i = node_index(c->s, name);
  if (i >= 0)
    c->s->nodes[i].leaf = c->leaf;
}

static int add_leaf(nss_snapshot *s, const char *name) {
  char **l = realloc(s->leaves, (size_t)(s->nleaves + 1) * sizeof *l);
  if (l == NULL)
    return -1;
  s->leaves = l;
  if ((l[s->nleaves] = strdup(name)) == NULL)
    return -1;
  return s->nleaves++;
}

static int load_nodes(nss_snapshot *s, char *msg, size_t msglen) {
  node_info_msg_t *ni = NULL;
  if (slurm_load_node((time_t)0, &ni, SHOW_ALL) != SLURM_SUCCESS) {
    snprintf(msg, msglen, "cannot read nodes from slurmctld: %s",
             slurm_strerror(slurm_get_errno()));
    return -1;
  }
  s->nodes = calloc(ni->record_count + 1, sizeof *s->nodes);
  if (s->nodes == NULL) {
    slurm_free_node_info_msg(ni);
    snprintf(msg, msglen, "out of memory");
    return -1;
  }
  for (uint32_t i = 0; i < ni->record_count; i++) {
    node_info_t *n = &ni->node_array[i];
    if (n->name == NULL)
      continue;
    uint32_t st = n->node_state, base = st & NODE_STATE_BASE;
    nss_node *d = &s->nodes[s->nnodes++];
    d->name = strdup(n->name);
    d->gpus = gpu_count(n->gres);
    d->leaf = -1;
    d->state = st;
    d->usable = base != NODE_STATE_DOWN && base != NODE_STATE_FUTURE &&
                base != NODE_STATE_UNKNOWN &&
                !(st & (NODE_STATE_DRAIN | NODE_STATE_FAIL | NODE_STATE_NO_RESPOND |
                        NODE_STATE_RES | NODE_STATE_POWERED_DOWN | NODE_STATE_MAINT |
                        NODE_STATE_INVALID_REG | NODE_STATE_POWER_DOWN));
    if (d->name == NULL) {
      slurm_free_node_info_msg(ni);
      snprintf(msg, msglen, "out of memory");
      return -1;
    }
  }
  slurm_free_node_info_msg(ni);
  return 0;
}

/* Leaves = level-0 switches; spines = switches at level 1. Without a tree
   topology every node sits under one leaf. */
static int load_topology(nss_snapshot *s, int *spines, char *msg, size_t msglen) {
  topo_info_response_msg_t *t = NULL;
  *spines = 0;
  if (slurm_load_topo(&t) == SLURM_SUCCESS && t != NULL) {
    for (uint32_t i = 0; i < t->record_count; i++) {
      topo_info_t *sw = &t->topo_array[i];
      if (sw->level == 1)
        (*spines)++;
      if (sw->level != 0 || sw->name == NULL)
        continue;
      leaf_ctx c = {s, add_leaf(s, sw->name)};
      if (c.leaf < 0 || each_host(sw->nodes, set_leaf, &c) < 0) {
        slurm_free_topo_info_msg(t);
        snprintf(msg, msglen, "cannot read switch %s", sw->name);
        return -1;
      }
    }
    slurm_free_topo_info_msg(t);
  }
  int orphan = -1;
  for (int i = 0; i < s->nnodes; i++)
    if (s->nodes[i].leaf < 0) {
      if (orphan < 0 && (orphan = add_leaf(s, s->nleaves ? "(no switch)" : "(cluster)")) < 0) {
        snprintf(msg, msglen, "out of memory");
        return -1;
      }
      s->nodes[i].leaf = orphan;
    }
  return 0;
}

static void set_reserved(const char *name, void *user) {
  nss_snapshot *s = user;
  int i = node_index(s, name);
  if (i >= 0)
    s->nodes[i].usable = 0;
}

/* Nodes of a reservation active now are unusable: held jobs asking for a
   reservation are not supported (docs/slurm.md), and everyone else's jobs cannot
   use them. Slurm's node state flags a reserved node only lazily. */
static int load_reservations(nss_snapshot *s, char *msg, size_t msglen) {
  reserve_info_msg_t *r = NULL;
  if (slurm_load_reservations((time_t)0, &r) != SLURM_SUCCESS) {
    snprintf(msg, msglen, "cannot read reservations from slurmctld: %s",
             slurm_strerror(slurm_get_errno()));
    return -1;
  }
  time_t now = time(NULL);
  for (uint32_t i = 0; r != NULL && i < r->record_count; i++) {
    reserve_info_t *v = &r->reservation_array[i];
    if (v->start_time > now || v->end_time <= now || v->node_list == NULL)
      continue;
    if (strcmp(v->node_list, "ALL") == 0)
      for (int k = 0; k < s->nnodes; k++)
        s->nodes[k].usable = 0;
    else
      each_host(v->node_list, set_reserved, s);
  }
  slurm_free_reservation_info_msg(r);
  return 0;
}

static int opted_in(const slurm_job_info_t *j, const nss_select *sel) {
  const char *c = j->comment;
  size_t m = strlen(NSS_MARKER);
  if (c != NULL && strncmp(c, NSS_MARKER, m) == 0 && (c[m] == '\0' || c[m] == ':' || c[m] == ' '))
    return 1;
  return sel->partition != NULL && j->partition != NULL && strcmp(j->partition, sel->partition) == 0;
}

typedef struct place_ctx {
  nss_snapshot *s;
  nss_job *j;
  int per_node, k, nodes_total;
  const slurm_job_info_t *info;
} place_ctx;

/* Adds one node's GPUs of a running / in-flight job. */
static void add_host(const char *name, void *user) {
  place_ctx *c = user;
  int node = node_index(c->s, name);
  if (node < 0)
    return;
  int idx[256], n = 0;
  if (c->info->gres_detail_str != NULL && (uint32_t)c->k < c->info->gres_detail_cnt)
    n = gpu_indices(c->info->gres_detail_str[c->k], idx, 256);
  if (n == 0 && c->j->slurm_split) {
    idx[n++] = -1; /* one entry per listed node: decide.c spreads the GPUs */
  } else if (n == 0) {
    int cnt = c->per_node;
    if (cnt == 0 && c->nodes_total > 0) /* running --gpus=T without detail: an even split */
      cnt = c->j->gpus / c->nodes_total + (c->k < c->j->gpus % c->nodes_total);
    for (int q = 0; q < cnt && q < 256; q++)
      idx[n++] = -1;
  }
  c->k++;
  int *no = realloc(c->j->node_of, (size_t)(c->j->nplaced + n + 1) * sizeof *no);
  if (no == NULL)
    return;
  c->j->node_of = no;
  int *gi = realloc(c->j->gpu_idx, (size_t)(c->j->nplaced + n + 1) * sizeof *gi);
  if (gi == NULL)
    return;
  c->j->gpu_idx = gi;
  for (int q = 0; q < n; q++) {
    no[c->j->nplaced] = node;
    gi[c->j->nplaced++] = idx[q];
  }
}

static int count_hosts(const char *list) {
  if (list == NULL || *list == '\0')
    return 0;
  hostlist_t hl = slurm_hostlist_create(list);
  if (hl == NULL)
    return 0;
  int n = slurm_hostlist_count(hl);
  slurm_hostlist_destroy(hl);
  return n;
}

typedef struct usable_ctx {
  const nss_snapshot *s;
  int bad;
} usable_ctx;

static void check_usable(const char *name, void *user) {
  usable_ctx *c = user;
  int i = node_index(c->s, name);
  if (i < 0 || !c->s->nodes[i].usable)
    c->bad = 1;
}

static int load_jobs(const nss_select *sel, nss_snapshot *s, char *msg, size_t msglen) {
  job_info_msg_t *ji = NULL;
  if (slurm_load_jobs((time_t)0, &ji, SHOW_ALL | SHOW_DETAIL) != SLURM_SUCCESS) {
    snprintf(msg, msglen, "cannot read jobs from slurmctld: %s",
             slurm_strerror(slurm_get_errno()));
    return -1;
  }
  s->jobs = calloc(ji->record_count + 1, sizeof *s->jobs);
  if (s->jobs == NULL) {
    slurm_free_job_info_msg(ji);
    snprintf(msg, msglen, "out of memory");
    return -1;
  }
  for (uint32_t i = 0; i < ji->record_count; i++) {
    const slurm_job_info_t *info = &ji->job_array[i];
    uint32_t st = info->job_state, base = st & JOB_STATE_BASE;
    int running = base == JOB_RUNNING || base == JOB_SUSPENDED || (st & JOB_COMPLETING);
    int pending = base == JOB_PENDING && !(st & JOB_COMPLETING);
    int opted = pending && opted_in(info, sel);
    if (!running && !opted)
      continue;
    nss_job *j = &s->jobs[s->njobs];
    memset(j, 0, sizeof *j);
    j->id = info->job_id;
    j->model = -1;
    int per_node = gpu_count(info->tres_per_node);
    int nodes = (int)info->num_nodes;
    j->per_node = per_node;
    j->gpus = per_node > 0 ? per_node * (nodes > 0 ? nodes : 1) : gpu_count(info->tres_per_job);
    j->nodes = per_node > 0 || (info->max_nodes == info->num_nodes && info->max_nodes > 0 &&
                                info->max_nodes != NO_VAL && info->max_nodes > 1)
                   ? nodes
                   : 0;
    j->submit_ms = (double)info->submit_time * 1e3;
    j->limit_ms = info->time_limit != INFINITE && info->time_limit != NO_VAL
                      ? (double)info->time_limit * 60e3
                      : 0;
    j->comment = dup_or_null(info->comment);
    j->restarts = info->restart_cnt;
    if (running) { /* this run's time, as squeue's TIME: suspended time left out */
      time_t now = time(NULL), from = info->start_time;
      double ran = (double)info->pre_sus_time;
      if (info->suspend_time > from)
        from = info->suspend_time;
      if (base != JOB_SUSPENDED && from > 0 && now > from)
        ran += difftime(now, from);
      j->run_ms = ran * 1e3;
      j->completing = base != JOB_RUNNING || (st & JOB_COMPLETING);
    } else if (info->start_time > 0) {
      j->eligible_ms = (double)info->start_time * 1e3; /* pending: the earliest start */
    }
    if (nss_parse_hints(j, j->hint_error, sizeof j->hint_error) == -2) {
      slurm_free_job_info_msg(ji);
      snprintf(msg, msglen, "out of memory");
      return -1;
    }
    if (!info->batch_flag || !info->requeue)
      j->preemptible = 0; /* srun/salloc, or sbatch --no-requeue: Slurm would refuse */
    const char *where = NULL;
    if (running) {
      j->kind = NSS_JOB_RUNNING;
      where = info->nodes;
      if (j->gpus == 0 && (info->gres_detail_cnt == 0 || info->gres_detail_str == NULL)) {
        free(j->comment), free(j->hints);
        continue; /* holds no GPU */
      }
    } else if (info->priority == 0) {
      j->kind = NSS_JOB_HELD;
    } else if (info->req_nodes != NULL && *info->req_nodes != '\0') {
      usable_ctx u = {s, 0};
      each_host(info->req_nodes, check_usable, &u);
      /* released on a node that went away: ours to place again */
      j->kind = u.bad ? NSS_JOB_HELD : NSS_JOB_INFLIGHT;
      j->requeue = u.bad;
      where = u.bad ? NULL : info->req_nodes;
      j->slurm_split = where != NULL && per_node == 0;
    } else {
      free(j->comment), free(j->hints);
      continue; /* opted in but released without nodes: Slurm's now */
    }
    if (where != NULL) {
      place_ctx c = {s, j, per_node, 0, count_hosts(where), info};
      each_host(where, add_host, &c);
    }
    s->njobs++;
  }
  slurm_free_job_info_msg(ji);
  return 0;
}

/* Nodes in state UNKNOWN have not registered with this controller yet.
   Right after a (re)start that is every node for a few seconds; a node
   whose slurmd is gone stays UNKNOWN until SlurmdTimeout marks it DOWN.
   Within that window (capped at NSS_SETTLE_MAX_S) the snapshot is
   unsettled: s->unsettled > 0 with the reason. */
static int check_settled(nss_snapshot *s, char *msg, size_t msglen) {
  int unknown = 0, first = -1;
  for (int i = 0; i < s->nnodes; i++)
    if ((s->nodes[i].state & NODE_STATE_BASE) == NODE_STATE_UNKNOWN && unknown++ == 0)
      first = i;
  if (unknown == 0)
    return 0;
  slurm_conf_t *conf = NULL;
  if (slurm_load_ctl_conf((time_t)0, &conf) != SLURM_SUCCESS || conf == NULL) {
    snprintf(msg, msglen, "cannot read the controller's configuration: %s",
             slurm_strerror(slurm_get_errno()));
    return -1;
  }
  double up = difftime(time(NULL), conf->boot_time);
  double grace = conf->slurmd_timeout > 0 && conf->slurmd_timeout < NSS_SETTLE_MAX_S
                     ? conf->slurmd_timeout
                     : NSS_SETTLE_MAX_S;
  slurm_free_ctl_conf(conf);
  if (up < grace) {
    s->unsettled = unknown;
    snprintf(s->unsettled_why, sizeof s->unsettled_why,
             "%d of %d nodes (%s%s) have not registered since the controller started %.0f s ago",
             unknown, s->nnodes, s->nodes[first].name, unknown > 1 ? ", ..." : "", up);
  }
  return 0;
}

int nss_slurm_snapshot(const nss_select *sel, nss_snapshot *s, char *msg, size_t msglen) {
  memset(s, 0, sizeof *s);
  int spines = 0;
  if (load_nodes(s, msg, msglen) < 0 || check_settled(s, msg, msglen) < 0 ||
      load_reservations(s, msg, msglen) < 0 ||
      load_topology(s, &spines, msg, msglen) < 0 || load_jobs(sel, s, msg, msglen) < 0) {
    nss_snapshot_free(s);
    return -1;
  }
  s->spines = spines;
  return 0;
}

/* The job as it is now; NULL with msg set if it is gone. */
static slurm_job_info_t *reload(uint32_t id, job_info_msg_t **resp, char *msg, size_t msglen) {
  if (slurm_load_job(resp, id, SHOW_ALL) != SLURM_SUCCESS || *resp == NULL ||
      (*resp)->record_count == 0) {
    snprintf(msg, msglen, "job %u vanished: %s", id, slurm_strerror(slurm_get_errno()));
    return NULL;
  }
  return &(*resp)->job_array[0];
}

static int update(job_desc_msg_t *d, const char *what, char *msg, size_t msglen) {
  if (slurm_update_job(d) != SLURM_SUCCESS) {
    snprintf(msg, msglen, "job %u: %s failed: %s", d->job_id, what,
             slurm_strerror(slurm_get_errno()));
    return -1;
  }
  return 0;
}

/* squeue's names of the base job states (enum job_states, slurm.h); libslurm
   exports no function for them. */
static const char *state_name(uint32_t state) {
  static const char *const names[JOB_END] = {
      [JOB_PENDING] = "PENDING",     [JOB_RUNNING] = "RUNNING",     [JOB_SUSPENDED] = "SUSPENDED",
      [JOB_COMPLETE] = "COMPLETED",  [JOB_CANCELLED] = "CANCELLED", [JOB_FAILED] = "FAILED",
      [JOB_TIMEOUT] = "TIMEOUT",     [JOB_NODE_FAIL] = "NODE_FAIL", [JOB_PREEMPTED] = "PREEMPTED",
      [JOB_BOOT_FAIL] = "BOOT_FAIL", [JOB_DEADLINE] = "DEADLINE",   [JOB_OOM] = "OUT_OF_MEMORY"};
  uint32_t base = state & JOB_STATE_BASE;
  return base < JOB_END && names[base] != NULL ? names[base] : "UNKNOWN";
}

int nss_slurm_apply(const nss_job *job, const nss_decision *dec, char *msg, size_t msglen) {
  job_info_msg_t *resp = NULL;
  slurm_job_info_t *now = reload(job->id, &resp, msg, msglen);
  if (now == NULL)
    return -1;
  /* Changed since the snapshot (finished, cancelled, released by someone
     else)? Then it is not ours any more: touch nothing. */
  int still = (now->job_state & JOB_STATE_BASE) == JOB_PENDING &&
              !(now->job_state & JOB_COMPLETING) &&
              (now->priority == 0 || job->requeue);
  if (!still) {
    snprintf(msg, msglen,
             "job %u changed since this cycle read it (now %s%s, priority %u): left alone",
             job->id, state_name(now->job_state),
             now->job_state & JOB_COMPLETING ? "+COMPLETING" : "", now->priority);
    slurm_free_job_info_msg(resp);
    return -1;
  }
  /* The user's part is taken from the comment as it is now (an edit since
     the snapshot is kept); only our section after it changes. */
  char *cur = dup_or_null(now->comment);
  slurm_free_job_info_msg(resp);
  int rc = 0;
  if (cur != NULL && strlen(cur) > NSS_COMMENT_READ_MAX) {
    rc = 0; /* too long to read: never rewritten (the job waits, saying so) */
  } else if (cur != NULL || !dec->placed) {
    char *comment = nss_comment_compose(cur, dec->placed, dec->reason);
    if (comment == NULL) {
      snprintf(msg, msglen, "job %u: out of memory", job->id);
      rc = -1;
    } else if (cur == NULL || strcmp(cur, comment) != 0) {
      job_desc_msg_t d;
      slurm_init_job_desc_msg(&d);
      d.job_id = job->id;
      d.comment = comment;
      rc = update(&d, "writing the comment", msg, msglen);
    }
    free(comment);
  }
  free(cur);
  if (rc < 0 || !dec->placed)
    return rc;
  job_desc_msg_t d;
  slurm_init_job_desc_msg(&d);
  d.job_id = job->id;
  d.req_nodes = dec->nodelist;
  if (update(&d, "setting the node list", msg, msglen) < 0)
    return -1;
  slurm_init_job_desc_msg(&d);
  d.job_id = job->id;
  d.priority = INFINITE;
  return update(&d, "releasing it", msg, msglen);
}

int nss_slurm_requeue(uint32_t id, char *msg, size_t msglen) {
  /* Still running? (Slurm accepts a requeue of a job that is completing -
     cancelled since the snapshot - and then lets it end: not a requeue.) */
  job_info_msg_t *resp = NULL;
  slurm_job_info_t *now = reload(id, &resp, msg, msglen);
  if (now == NULL) {
    snprintf(msg, msglen, "job %u: not requeued, it does not run any more (gone)", id);
    return 1;
  }
  uint32_t st = now->job_state;
  slurm_free_job_info_msg(resp);
  if ((st & JOB_STATE_BASE) != JOB_RUNNING || (st & JOB_COMPLETING)) {
    snprintf(msg, msglen, "job %u: not requeued, it does not run any more (now %s%s)", id,
             state_name(st), st & JOB_COMPLETING ? "+COMPLETING" : "");
    return 1;
  }
  /* JOB_RUNNING: only if it still runs; JOB_REQUEUE_HOLD: pending and
     held, so it comes back to the adapter and not to Slurm's scheduler. */
  if (slurm_requeue(id, JOB_RUNNING | JOB_REQUEUE_HOLD) == SLURM_SUCCESS)
    return 0;
  int e = slurm_get_errno();
  if (e == ESLURM_INVALID_JOB_ID || e == ESLURM_ALREADY_DONE || e == ESLURM_JOB_PENDING) {
    snprintf(msg, msglen, "job %u: not requeued, it does not run any more (%s)", id,
             slurm_strerror(e));
    return 1;
  }
  snprintf(msg, msglen, "job %u: Slurm refused to requeue it: %s", id, slurm_strerror(e));
  return -1;
}
