/*
 * examples/titan_place.c - the Titan paper's Fig. 1: four machines with 4,
 * 3, 2 and 1 idle GPUs and a 4-worker halving-doubling job of K bytes.
 * Prints the consolidation (Elasticflow), HiveD and Titan placements with
 * the machines they use and their cross-machine traffic.
 * Uses only <netsched.h>.
 *
 *   cc titan_place.c $(pkg-config --cflags --libs netsched)
 */
#include <netsched.h>
#include <stdio.h>

#define K (256u << 20) /* model size: 256 MiB */

static int fail(const char *what, int rc) {
  fprintf(stderr, "%s failed: %s (%s)\n", what, ns_strerror(rc), ns_last_error());
  return 1;
}

/* One line per placement: worker -> machine, machines, idle machines used,
   cross-machine traffic in units of K (each exchange counted once, as the
   paper does: half the bytes sent in both directions). */
static int show(const char *name, const ns_cluster *c, const ns_job *job, const ns_placement *p,
                const int *idle_before) {
  uint64_t bytes;
  int rc = ns_collective_cross_machine_bytes(job, p, &bytes);
  if (rc != NS_OK)
    return fail("ns_collective_cross_machine_bytes", rc);
  int idle_used = 0, seen[4] = {0};
  printf("%-26s", name);
  for (size_t w = 0; w < ns_placement_gpu_count(p); w++) {
    int s = ns_cluster_server_of_gpu(c, ns_placement_gpu(p, w));
    printf(" W%zu->M%d", w + 1, s + 1);
    if (!seen[s]++)
      idle_used += idle_before[s];
  }
  printf("  | machines %d, idle used %d, cross traffic %.2f K\n", ns_placement_server_count(p),
         idle_used, (double)bytes / 2 / K);
  return 0;
}

static int manual(ns_placement *p, const ns_cluster *c, const int *gpus, int n) {
  ns_placement_clear(p);
  ns_placement_bind(p, c);
  for (int i = 0; i < n; i++)
    if (ns_placement_add_gpu(p, gpus[i]) != NS_OK)
      return 1;
  return 0;
}

int main(void) {
  /* one switch, 4 machines x 4 GPUs, 100 Gbps; busy GPUs leave 4, 3, 2, 1 idle */
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 4, 4, 0, 100.0);
  ns_job *job = ns_job_new("hd-4", 4);
  ns_titan_opts *o = ns_titan_opts_new();
  ns_placement *p = ns_placement_new();
  if (!c || !job || !o || !p)
    return fail("setup", NS_ENOMEM);
  const int busy[] = {4, 8, 9, 12, 13, 14};
  int rc = ns_cluster_occupy(c, busy, 6);
  if (rc == NS_OK)
    rc = ns_job_set_collective(job, NS_COLL_HALVING_DOUBLING);
  if (rc == NS_OK)
    rc = ns_job_set_model_bytes(job, K);
  if (rc != NS_OK)
    return fail("setup", rc);
  int idle[4];
  printf("Fig. 1: machines with");
  for (int s = 0; s < 4; s++) {
    idle[s] = ns_cluster_free_gpus_on_server(c, s) == 4;
    printf(" %d", ns_cluster_free_gpus_on_server(c, s));
  }
  printf(" idle GPUs; 4-worker halving-doubling job\n");

  const int elastic[4] = {0, 1, 2, 3}; /* consolidation on the idle machine */
  const int hived[4] = {5, 6, 7, 15};  /* fragments first: W1-W3 on M2, W4 on M4 */
  if (manual(p, c, elastic, 4) || show("Elasticflow (consolidate)", c, job, p, idle))
    return 1;
  if (manual(p, c, hived, 4) || show("HiveD (fragments first)", c, job, p, idle))
    return 1;
  rc = ns_titan_place(c, job, o, p);
  if (rc != NS_OK)
    return fail("ns_titan_place", rc);
  if (show("Titan", c, job, p, idle))
    return 1;

  ns_placement_free(p);
  ns_titan_opts_free(o);
  ns_job_free(job);
  ns_cluster_free(c);
  return 0;
}
