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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_adapter_decides_as_the_policy_for_every_preset),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
