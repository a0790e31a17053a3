/*
 * tests/slurm/test_decide_policy.c - netsched-slurm decides what the
 * simulator's policy decides: for every preset, one adapter cycle
 * (nss_decide on a synthetic snapshot, no Slurm daemons) places each held
 * job on exactly the nodes that the library's policy object
 * (ns_policy_decide, the object netsched-sim runs) chooses for the same
 * cluster state and queue, and makes the others wait.
 *
 * Snapshot: 2 leaves x 4 nodes x 4 GPUs (n0-n3 on leaf 0, n4-n7 on leaf 1),
 * 2 spines. Running: R1 4 GPUs on n0; R2 2 GPUs on n4 (GPUs 0, 1); R3 3
 * GPUs on n1 (GPU 0) and n5 (GPUs 0, 1), across the leaves, so CASSINI has
 * shared links to rank. Held (--gpus=T, model hints, submitted over 5 s):
 * 2, 8, 1, 4, 16 and 20 GPUs (51) on 23 free GPUs: some wait under every
 * preset, the others are placed as each policy says.
 */
#include "helpers/ns_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapter.h"

#define NODES 8
#define GPN 4
#define NOW 1.7e12

typedef struct held {
  uint32_t id;
  int gpus, model;
  uint64_t iters;
  double submit_ms;
} held;

static const held H[] = {
    {200, 2, 1, 500, NOW - 5000}, {201, 8, 0, 300, NOW - 4000}, {202, 1, 2, 2000, NOW - 3000},
    {203, 4, 3, 100, NOW - 4500}, {204, 16, 1, 50, NOW - 2000}, {205, 20, 0, 10, NOW - 1000}};
#define NHELD ((int)(sizeof H / sizeof H[0]))

typedef struct run {
  uint32_t id;
  int gpus, model;
  int node[4], idx[4];
} run;

static const run R[] = {{100, 4, 0, {0, 0, 0, 0}, {0, 1, 2, 3}},
                        {101, 2, 1, {4, 4}, {0, 1}},
                        {102, 3, 3, {1, 5, 5}, {0, 0, 1}}};
#define NRUN ((int)(sizeof R / sizeof R[0]))

static void snapshot(nss_snapshot *s) {
  memset(s, 0, sizeof *s);
  s->nnodes = NODES, s->nleaves = 2, s->spines = 2, s->now_ms = NOW;
  s->nodes = calloc(NODES, sizeof *s->nodes);
  s->leaves = calloc(2, sizeof *s->leaves);
  s->jobs = calloc(NRUN + NHELD, sizeof *s->jobs);
  assert_non_null(s->nodes), assert_non_null(s->leaves), assert_non_null(s->jobs);
  s->leaves[0] = strdup("leaf0"), s->leaves[1] = strdup("leaf1");
  for (int i = 0; i < NODES; i++) {
    char name[16]; /* "n" + any int: -Wformat-truncation at -O1 (make sanitize) */
    snprintf(name, sizeof name, "n%d", i);
    s->nodes[i].name = strdup(name);
    s->nodes[i].gpus = GPN, s->nodes[i].leaf = i / 4, s->nodes[i].usable = 1;
  }
  for (int r = 0; r < NRUN; r++) {
    nss_job *j = &s->jobs[s->njobs++];
    j->id = R[r].id, j->kind = NSS_JOB_RUNNING, j->gpus = R[r].gpus, j->model = R[r].model;
    j->iters = 1000, j->submit_ms = NOW - 60e3, j->nplaced = R[r].gpus;
    j->node_of = malloc((size_t)R[r].gpus * sizeof *j->node_of);
    j->gpu_idx = malloc((size_t)R[r].gpus * sizeof *j->gpu_idx);
    for (int k = 0; k < R[r].gpus; k++)
      j->node_of[k] = R[r].node[k], j->gpu_idx[k] = R[r].idx[k];
  }
  for (int h = 0; h < NHELD; h++) {
    nss_job *j = &s->jobs[s->njobs++];
    j->id = H[h].id, j->kind = NSS_JOB_HELD, j->gpus = H[h].gpus, j->model = H[h].model;
    j->iters = H[h].iters, j->submit_ms = H[h].submit_ms;
  }
}

/* The adapter's job profile (decide.c make_job): model hints at the NIC rate. */
static ns_job *profiled(uint32_t id, int gpus, int model, uint64_t iters) {
  char name[32];
  snprintf(name, sizeof name, "slurm-%u", id);
  ns_job *j = ns_job_new(name, gpus);
  assert_non_null(j);
  nss_model_apply(model, iters, 10.0, j);
  return j;
}

/* The same cycle through the policy object: the cluster with the running
   jobs committed on their GPUs, the held jobs in a queue (id, submission,
   ideal run), one ns_policy_decide. Node names of each held job's
   placement, in server order ("" if it waits), into lists[h]. */
static void policy_side(const char *preset, const nss_snapshot *s, char lists[][128]) {
  ns_cluster *c = ns_cluster_new_leaf_spine(2, 2, 4, GPN, 4, 10.0);
  assert_non_null(c);
  if (strcmp(preset, "ocs-vclos") == 0)
    assert_int_equal(ns_cluster_enable_ocs(c, 2), NS_OK);
  ns_job *jobs[NRUN + NHELD] = {0};
  ns_placement *p = ns_placement_new();
  for (int r = 0; r < NRUN; r++) {
    jobs[r] = profiled(R[r].id, R[r].gpus, R[r].model, 1000);
    ns_placement_clear(p);
    for (int k = 0; k < R[r].gpus; k++)
      assert_int_equal(ns_placement_add_gpu(p, R[r].node[k] * GPN + R[r].idx[k]), NS_OK);
    assert_int_equal(ns_cluster_commit(c, jobs[r], p), NS_OK);
  }
  ns_queue *q = ns_queue_new();
  for (int h = 0; h < NHELD; h++) {
    jobs[NRUN + h] = profiled(H[h].id, H[h].gpus, H[h].model, H[h].iters);
    int i = ns_queue_add(q, jobs[NRUN + h], H[h].id, H[h].submit_ms);
    assert_int_equal(i, h);
    assert_int_equal(ns_queue_set_ideal_ms(q, (size_t)i, nss_job_ideal_ms(&s->jobs[NRUN + h])),
                     NS_OK);
  }
  ns_policy *pol = ns_policy_new(preset);
  assert_non_null(pol);
  ns_decision *d = ns_decision_new();
  if (ns_policy_decide(pol, c, q, NOW, d) != NS_OK)
    fail_msg("%s: ns_policy_decide: %s", preset, ns_last_error());
  for (int h = 0; h < NHELD; h++)
    lists[h][0] = '\0';
  for (size_t k = 0; k < ns_decision_start_count(d); k++) {
    size_t h = ns_decision_start_job(d, k);
    const ns_placement *pl = ns_decision_placement(d, k);
    int used[NODES] = {0};
    for (size_t g = 0; g < ns_placement_gpu_count(pl); g++)
      used[ns_placement_gpu(pl, g) / GPN] = 1;
    for (int v = 0; v < NODES; v++)
      if (used[v])
        snprintf(lists[h] + strlen(lists[h]), 128 - strlen(lists[h]), "%sn%d",
                 lists[h][0] ? "," : "", v);
  }
  ns_decision_free(d);
  ns_policy_free(pol);
  ns_queue_free(q);
  for (int r = 0; r < NRUN; r++)
    ns_cluster_release(c, jobs[r]);
  for (int k = 0; k < NRUN + NHELD; k++)
    ns_job_free(jobs[k]);
  ns_placement_free(p);
  ns_cluster_free(c);
}

static void test_adapter_decides_as_the_policy_for_every_preset(void **state) {
  (void)state;
  nss_snapshot s;
  snapshot(&s);
  assert_int_equal(nss_policy_count(), ns_policy_preset_count());
  int differs_from_ff = 0;
  char ff[NHELD][128];
  for (int k = 0; k < nss_policy_count(); k++) {
    const nss_policy *p = nss_policy_at(k);
    const char *name = nss_policy_name(p);
    assert_string_equal(name, ns_sim_policy_name(k)); /* --list is the simulator's table */
    nss_ctx x;
    memset(&x, 0, sizeof x);
    x.links_per_pair = 4, x.link_gbps = 10, x.nic_gbps = 10, x.seed = 1;
    char msg[512] = "";
    if (nss_ctx_init(&x, p, msg, sizeof msg) < 0)
      fail_msg("%s: %s", name, msg);
    x.now_ms = NOW;
    nss_plan plan;
    if (nss_decide(&x, &s, &plan, msg, sizeof msg) < 0)
      fail_msg("%s: nss_decide: %s", name, msg);
    char want[NHELD][128];
    policy_side(name, &s, want);
    assert_int_equal(plan.n, NHELD);
    int placed = 0;
    for (int i = 0; i < plan.n; i++) {
      int h = 0;
      while (h < NHELD && H[h].id != plan.d[i].id)
        h++;
      assert_true(h < NHELD);
      const char *got = plan.d[i].placed ? plan.d[i].nodelist : "";
      if (strcmp(got, want[h]) != 0)
        fail_msg("%s: job %u: adapter '%s' (%s), policy object '%s'", name, H[h].id, got,
                 plan.d[i].placed ? "placed" : plan.d[i].reason, want[h]);
      placed += plan.d[i].placed;
      if (k == 0)
        snprintf(ff[h], sizeof ff[h], "%s", want[h]);
      else
        differs_from_ff |= strcmp(want[h], ff[h]) != 0;
    }
    printf("  %-14s %d of %d held jobs placed, as the policy object\n", name, placed, NHELD);
    assert_true(placed >= 1);
    assert_true(placed < NHELD); /* 51 GPUs asked, 23 free */
    nss_plan_free(&plan);
    nss_ctx_free(&x);
  }
  assert_true(differs_from_ff); /* the presets do decide differently here */
  nss_snapshot_free(&s);
}

/* ---- --preempt requeue: the suspends ------------------------------------

   8 nodes x 4 GPUs (n0-n3 leaf 0, n4-n7 leaf 1). Running: A 16 GPUs on
   n0-n3, preemptible, attained 4000 GPU-s (above 2D-LAS's first threshold,
   3250 GPU-s: demoted to the second queue); B 8 GPUs on n4-n5, NOT
   preemptible (attained 9000 GPU-s, which the adapter does not tell the
   policy: it offers B with none); C 4 GPUs on n6, preemptible, 100 GPU-s.
   n7 free. Held: H1 8 GPUs, H2 4 GPUs, arrived after them.
   2D-LAS counts the cluster's 32 GPUs queue by queue: first queue (by
   arrival) B 8, C 4, H1 8, H2 4 -> 8 left; second queue A 16 > 8: A is
   suspended. With A's GPUs free, first-fit places H1 on GPUs 0-7 (n0, n1)
   and H2 on 8-11 (n2). Had B been offered with its attained service it
   would be in the second queue behind A (earlier arrival): A granted, B
   suspended - the policy side below checks that too, so the test shows
   that the adapter's rule is what keeps B running. */

typedef struct prun {
  uint32_t id;
  int gpus, first_node, preemptible;
  double attained_ms, arrival_ms;
} prun;

static const prun PR[] = {{300, 16, 0, 1, 4000e3, NOW - 600e3},
                          {301, 8, 4, 0, 9000e3, NOW - 500e3},
                          {302, 4, 6, 1, 100e3, NOW - 400e3}};
#define NPR 3
static const held PH[] = {{310, 8, -1, 0, NOW - 10e3}, {311, 4, -1, 0, NOW - 5e3}};
#define NPH 2

static void preempt_snapshot(nss_snapshot *s) {
  memset(s, 0, sizeof *s);
  s->nnodes = NODES, s->nleaves = 2, s->spines = 2, s->now_ms = NOW;
  s->nodes = calloc(NODES, sizeof *s->nodes);
  s->leaves = calloc(2, sizeof *s->leaves);
  s->jobs = calloc(NPR + NPH, sizeof *s->jobs);
  assert_non_null(s->nodes), assert_non_null(s->leaves), assert_non_null(s->jobs);
  s->leaves[0] = strdup("leaf0"), s->leaves[1] = strdup("leaf1");
  for (int i = 0; i < NODES; i++) {
    char name[16];
    snprintf(name, sizeof name, "n%d", i);
    s->nodes[i].name = strdup(name);
    s->nodes[i].gpus = GPN, s->nodes[i].leaf = i / 4, s->nodes[i].usable = 1;
  }
  for (int r = 0; r < NPR; r++) {
    nss_job *j = &s->jobs[s->njobs++];
    j->id = PR[r].id, j->kind = NSS_JOB_RUNNING, j->gpus = PR[r].gpus, j->model = -1;
    j->submit_ms = PR[r].arrival_ms, j->arrival_ms = PR[r].arrival_ms;
    j->preemptible = PR[r].preemptible, j->attained_ms = PR[r].attained_ms;
    j->run_ms = 60e3, j->nplaced = PR[r].gpus;
    j->node_of = malloc((size_t)PR[r].gpus * sizeof *j->node_of);
    j->gpu_idx = malloc((size_t)PR[r].gpus * sizeof *j->gpu_idx);
    for (int k = 0; k < PR[r].gpus; k++)
      j->node_of[k] = PR[r].first_node + k / GPN, j->gpu_idx[k] = k % GPN;
  }
  for (int h = 0; h < NPH; h++) {
    nss_job *j = &s->jobs[s->njobs++];
    j->id = PH[h].id, j->kind = NSS_JOB_HELD, j->gpus = PH[h].gpus, j->model = -1;
    j->submit_ms = PH[h].submit_ms, j->arrival_ms = PH[h].submit_ms;
  }
}

/* The policy object on the same state: running jobs committed and in the
   queue as running (B with no attained service, as the adapter offers it,
   or - honest = 1 - with its own). Suspended ids into susp (count
   returned), each held job's node list into lists. */
static int preempt_policy_side(const char *preset, int honest, uint32_t *susp, char lists[][128]) {
  ns_cluster *c = ns_cluster_new_leaf_spine(2, 2, 4, GPN, 4, 10.0);
  assert_non_null(c);
  ns_job *jobs[NPR + NPH] = {0};
  ns_placement *p = ns_placement_new();
  ns_queue *q = ns_queue_new();
  for (int h = 0; h < NPH; h++) {
    char name[32];
    snprintf(name, sizeof name, "slurm-%u", PH[h].id);
    jobs[NPR + h] = ns_job_new(name, PH[h].gpus);
    assert_int_equal(ns_queue_add(q, jobs[NPR + h], PH[h].id, PH[h].submit_ms), h);
  }
  for (int r = 0; r < NPR; r++) {
    char name[32];
    snprintf(name, sizeof name, "slurm-%u", PR[r].id);
    jobs[r] = ns_job_new(name, PR[r].gpus);
    ns_placement_clear(p);
    for (int k = 0; k < PR[r].gpus; k++)
      assert_int_equal(ns_placement_add_gpu(p, PR[r].first_node * GPN + k), NS_OK);
    assert_int_equal(ns_cluster_commit(c, jobs[r], p), NS_OK);
    int i = ns_queue_add_running(q, jobs[r], PR[r].id, PR[r].arrival_ms);
    assert_true(i >= 0);
    double a = PR[r].preemptible || honest ? PR[r].attained_ms : 0.0;
    assert_int_equal(ns_queue_set_attained_ms(q, (size_t)i, a), NS_OK);
  }
  ns_policy *pol = ns_policy_new(preset);
  ns_decision *d = ns_decision_new();
  if (ns_policy_decide(pol, c, q, NOW, d) != NS_OK)
    fail_msg("%s: ns_policy_decide: %s", preset, ns_last_error());
  int n = 0;
  for (size_t k = 0; k < ns_decision_suspend_count(d); k++) {
    size_t i = ns_decision_suspend_job(d, k);
    assert_true(i >= NPH && i < NPH + NPR);
    susp[n++] = PR[i - NPH].id;
  }
  for (int h = 0; h < NPH; h++)
    lists[h][0] = '\0';
  for (size_t k = 0; k < ns_decision_start_count(d); k++) {
    size_t h = ns_decision_start_job(d, k);
    assert_true(h < NPH);
    const ns_placement *pl = ns_decision_placement(d, k);
    int used[NODES] = {0};
    for (size_t g = 0; g < ns_placement_gpu_count(pl); g++)
      used[ns_placement_gpu(pl, g) / GPN] = 1;
    for (int v = 0; v < NODES; v++)
      if (used[v])
        snprintf(lists[h] + strlen(lists[h]), 128 - strlen(lists[h]), "%sn%d",
                 lists[h][0] ? "," : "", v);
  }
  ns_decision_free(d);
  ns_policy_free(pol);
  ns_queue_free(q);
  for (int r = 0; r < NPR; r++)
    ns_cluster_release(c, jobs[r]);
  for (int k = 0; k < NPR + NPH; k++)
    ns_job_free(jobs[k]);
  ns_placement_free(p);
  ns_cluster_free(c);
  return n;
}

static void test_adapter_suspends_as_the_policy(void **state) {
  (void)state;
  static const char *const presets[] = {"2d-las", "2d-gittins"};
  for (int k = 0; k < 2; k++) {
    nss_snapshot s;
    preempt_snapshot(&s);
    nss_ctx x;
    memset(&x, 0, sizeof x);
    x.links_per_pair = 4, x.link_gbps = 10, x.nic_gbps = 10, x.seed = 1, x.preempt = 1;
    char msg[512] = "";
    if (nss_ctx_init(&x, nss_policy_find(presets[k]), msg, sizeof msg) < 0)
      fail_msg("%s: %s", presets[k], msg);
    x.now_ms = NOW;
    nss_plan plan;
    if (nss_decide(&x, &s, &plan, msg, sizeof msg) < 0)
      fail_msg("%s: nss_decide: %s", presets[k], msg);
    uint32_t want[NPR];
    char lists[NPH][128];
    int nwant = preempt_policy_side(presets[k], 0, want, lists);
    /* hand-derived (above): A suspended, H1 on n0,n1, H2 on n2 */
    assert_int_equal(nwant, 1);
    assert_int_equal(want[0], 300);
    assert_string_equal(lists[0], "n0,n1");
    assert_string_equal(lists[1], "n2");
    /* the adapter: the same suspends (with what main.c needs to requeue),
       the same node lists */
    assert_int_equal(plan.ns, nwant);
    assert_int_equal(plan.s[0].id, want[0]);
    assert_int_equal(plan.s[0].gpus, 16);
    assert_true(plan.s[0].attained_ms == 4000e3 && plan.s[0].run_ms == 60e3);
    assert_int_equal(plan.n, NPH);
    for (int i = 0; i < plan.n; i++) {
      int h = plan.d[i].id == PH[0].id ? 0 : 1;
      assert_int_equal(plan.d[i].id, PH[h].id);
      if (!plan.d[i].placed || strcmp(plan.d[i].nodelist, lists[h]) != 0)
        fail_msg("%s: job %u: adapter '%s', policy '%s'", presets[k], PH[h].id,
                 plan.d[i].placed ? plan.d[i].nodelist : plan.d[i].reason, lists[h]);
    }
    nss_plan_free(&plan);
    /* B told with its real service would be the one suspended: the
       adapter's rule (not preemptible -> no attained service) keeps it */
    nwant = preempt_policy_side(presets[k], 1, want, lists);
    assert_int_equal(nwant, 1);
    assert_int_equal(want[0], 301);
    /* --preempt off (or nothing preemptible): the ordinary cycle, nothing
       suspended; the held jobs fit in n7's 4 free GPUs or wait */
    x.preempt = 0;
    if (nss_decide(&x, &s, &plan, msg, sizeof msg) < 0)
      fail_msg("%s: nss_decide: %s", presets[k], msg);
    assert_int_equal(plan.ns, 0);
    for (int i = 0; i < plan.n; i++)
      assert_true(plan.d[i].id == PH[1].id ? plan.d[i].placed : !plan.d[i].placed);
    nss_plan_free(&plan);
    printf("  %-14s suspends job 300 and places 310, 311 on its GPUs, as the policy object\n",
           presets[k]);
    nss_ctx_free(&x);
    nss_snapshot_free(&s);
  }
}

/* ---- Dally under Slurm: no lease re-offers -------------------------------

   2 leaves x 2 nodes x 4 GPUs (n0, n1 leaf 0; n2, n3 leaf 1), full: A 8
   GPUs on n0, n1 and B 8 GPUs on n2, n3, both preemptible, arrived 40 and
   39 min ago. Held: W, 4 GPUs, submitted 60 min ago (earlier than both).
   Two cycles: T1 = NOW - 21 min and NOW, so a lease granted at T1 (20 min,
   the library's default) has ended at NOW.
   The library's lease reading (ns_policy_new("dally"), leases on), told
   what the adapter knows - no Nw_sens, so every job counts 1.0 and the
   order is by arrival: W, A, B. At T1 A and B get leases (first seen
   running) and W waits (nothing free). At NOW both leases ended: W is
   offered the free GPUs (none), then the expired jobs' after it from the
   latest, B: B's 8 GPUs freed, Dally accepts W on one machine (n2) - B
   SUSPENDED, A (no one before it took its GPUs) RENEWED, W started.
   That is what a site would get from `--preempt requeue` if the adapter
   applied leases: B requeued and restarted from scratch every lease, by
   arrival alone. The adapter does not (policies.c): its object has leases
   off, and even told --preempt requeue (main.c refuses it for Dally; this
   sets it directly) it suspends nothing and W waits, saying why. */

static const prun DR[] = {{400, 8, 0, 1, 0, NOW - 2400e3}, {401, 8, 2, 1, 0, NOW - 2340e3}};
static const held DW = {410, 4, -1, 0, NOW - 3600e3};
#define T1 (NOW - 1260e3)

static void dally_snapshot(nss_snapshot *s, double now) {
  memset(s, 0, sizeof *s);
  s->nnodes = 4, s->nleaves = 2, s->spines = 2, s->now_ms = now;
  s->nodes = calloc(4, sizeof *s->nodes);
  s->leaves = calloc(2, sizeof *s->leaves);
  s->jobs = calloc(3, sizeof *s->jobs);
  assert_non_null(s->nodes), assert_non_null(s->leaves), assert_non_null(s->jobs);
  s->leaves[0] = strdup("leaf0"), s->leaves[1] = strdup("leaf1");
  for (int i = 0; i < 4; i++) {
    char name[16];
    snprintf(name, sizeof name, "n%d", i);
    s->nodes[i].name = strdup(name);
    s->nodes[i].gpus = GPN, s->nodes[i].leaf = i / 2, s->nodes[i].usable = 1;
  }
  for (int r = 0; r < 2; r++) {
    nss_job *j = &s->jobs[s->njobs++];
    j->id = DR[r].id, j->kind = NSS_JOB_RUNNING, j->gpus = DR[r].gpus, j->model = -1;
    j->submit_ms = DR[r].arrival_ms, j->arrival_ms = DR[r].arrival_ms;
    j->preemptible = DR[r].preemptible, j->run_ms = now - DR[r].arrival_ms;
    j->attained_ms = j->gpus * j->run_ms;
    j->nplaced = DR[r].gpus;
    j->node_of = malloc((size_t)DR[r].gpus * sizeof *j->node_of);
    j->gpu_idx = malloc((size_t)DR[r].gpus * sizeof *j->gpu_idx);
    for (int k = 0; k < DR[r].gpus; k++)
      j->node_of[k] = DR[r].first_node + k / GPN, j->gpu_idx[k] = k % GPN;
  }
  nss_job *j = &s->jobs[s->njobs++];
  j->id = DW.id, j->kind = NSS_JOB_HELD, j->gpus = DW.gpus, j->model = -1;
  j->submit_ms = DW.submit_ms, j->arrival_ms = DW.submit_ms;
}

/* The library's lease reading on the same state at T1 then NOW; returns
   the NOW decision's suspended, renewed and started ids (0 if none) and
   the started job's node list. */
static void dally_lease_side(uint32_t *susp, uint32_t *renew, uint32_t *start, char *list) {
  ns_cluster *c = ns_cluster_new_leaf_spine(2, 2, 2, GPN, 4, 10.0);
  assert_non_null(c);
  ns_job *jobs[3] = {0};
  ns_placement *p = ns_placement_new();
  ns_policy *pol = ns_policy_new("dally");
  ns_decision *d = ns_decision_new();
  ns_queue *q = ns_queue_new();
  assert_true(ns_policy_dally_lease_of(pol) == 1200e3); /* the default: 20 min */
  for (int r = 0; r < 2; r++) {
    jobs[r] = ns_job_new(r ? "slurm-401" : "slurm-400", DR[r].gpus);
    ns_placement_clear(p);
    for (int k = 0; k < DR[r].gpus; k++)
      assert_int_equal(ns_placement_add_gpu(p, DR[r].first_node * GPN + k), NS_OK);
    assert_int_equal(ns_cluster_commit(c, jobs[r], p), NS_OK);
  }
  jobs[2] = ns_job_new("slurm-410", DW.gpus);
  double at[2] = {T1, NOW};
  for (int t = 0; t < 2; t++) {
    ns_queue_clear(q);
    assert_int_equal(ns_queue_add(q, jobs[2], DW.id, DW.submit_ms), 0);
    for (int r = 0; r < 2; r++)
      assert_int_equal(ns_queue_add_running(q, jobs[r], DR[r].id, DR[r].arrival_ms), r + 1);
    if (ns_policy_decide(pol, c, q, at[t], d) != NS_OK)
      fail_msg("dally: ns_policy_decide: %s", ns_last_error());
    if (t == 0) { /* leases granted now, nothing expired: the plain queue */
      assert_int_equal(ns_decision_start_count(d), 0);
      assert_int_equal(ns_decision_suspend_count(d), 0);
      assert_true(ns_decision_next_ms(d) <= T1 + 1200e3);
    }
  }
  *susp = *renew = *start = 0;
  list[0] = '\0';
  size_t n = ns_decision_suspend_count(d);
  assert_true(n <= 1);
  if (n == 1)
    *susp = DR[ns_decision_suspend_job(d, 0) - 1].id;
  n = ns_decision_renew_count(d);
  assert_true(n <= 1);
  if (n == 1)
    *renew = DR[ns_decision_renew_job(d, 0) - 1].id;
  for (size_t k = 0; k < ns_decision_start_count(d); k++)
    if (ns_decision_start_job(d, k) == 0) {
      *start = DW.id;
      const ns_placement *pl = ns_decision_placement(d, k);
      int used[4] = {0};
      for (size_t g = 0; g < ns_placement_gpu_count(pl); g++)
        used[ns_placement_gpu(pl, g) / GPN] = 1;
      for (int v = 0; v < 4; v++)
        if (used[v])
          snprintf(list + strlen(list), 32 - strlen(list), "%sn%d", list[0] ? "," : "", v);
    }
  ns_queue_free(q);
  ns_decision_free(d);
  ns_policy_free(pol);
  for (int r = 0; r < 2; r++)
    ns_cluster_release(c, jobs[r]);
  for (int k = 0; k < 3; k++)
    ns_job_free(jobs[k]);
  ns_placement_free(p);
  ns_cluster_free(c);
}

static void test_adapter_dally_lease_expiry_suspends_nothing(void **state) {
  (void)state;
  uint32_t susp, renew, start;
  char list[32];
  dally_lease_side(&susp, &renew, &start, list);
  /* hand-derived (above): the library would requeue B for W */
  assert_int_equal(susp, 401);
  assert_int_equal(renew, 400);
  assert_int_equal(start, 410);
  assert_string_equal(list, "n2");
  static const char *const presets[] = {"dally", "dally-manual"};
  for (int k = 0; k < 2; k++)
    for (int pre = 0; pre < 2; pre++) {
      nss_ctx x;
      memset(&x, 0, sizeof x);
      x.links_per_pair = 4, x.link_gbps = 10, x.nic_gbps = 10, x.seed = 1, x.preempt = pre;
      char msg[512] = "";
      if (nss_ctx_init(&x, nss_policy_find(presets[k]), msg, sizeof msg) < 0)
        fail_msg("%s: %s", presets[k], msg);
      assert_true(ns_policy_dally_lease_of(x.pol) == 0); /* leases off */
      double at[2] = {T1, NOW};
      for (int t = 0; t < 2; t++) {
        nss_snapshot s;
        dally_snapshot(&s, at[t]);
        x.now_ms = at[t];
        nss_plan plan;
        if (nss_decide(&x, &s, &plan, msg, sizeof msg) < 0)
          fail_msg("%s: nss_decide: %s", presets[k], msg);
        assert_int_equal(plan.ns, 0); /* nothing requeued, at lease expiry or ever */
        assert_int_equal(plan.n, 1);
        assert_int_equal(plan.d[0].id, DW.id);
        assert_false(plan.d[0].placed); /* the cluster is full: W waits */
        assert_true(plan.d[0].reason[0] != '\0');
        nss_plan_free(&plan);
        nss_snapshot_free(&s);
      }
      double from, end;
      assert_int_equal(ns_policy_lease_ms(x.pol, 401, &from, &end), NS_ENOTFOUND);
      nss_ctx_free(&x);
    }
  printf("  dally, dally-manual: a lease ending (the library would requeue 401 for 410 on n2)"
         " requeues nothing; 410 waits\n");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_adapter_decides_as_the_policy_for_every_preset),
      cmocka_unit_test(test_adapter_suspends_as_the_policy),
      cmocka_unit_test(test_adapter_dally_lease_expiry_suspends_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
