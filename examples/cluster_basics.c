/*
 * examples/cluster_basics.c - build a leaf-spine cluster, commit and release
 * a placement, and print what happened. Uses only <netsched.h>.
 *
 *   cc cluster_basics.c $(pkg-config --cflags --libs netsched)
 */
#include <netsched.h>
#include <stdio.h>

static int fail(const char *what, int rc) {
  fprintf(stderr, "%s failed: %s (%s)\n", what, ns_strerror(rc), ns_last_error());
  return 1;
}

int main(void) {
  /* 2 racks x 4 servers x 8 GPUs, 4 spines, 100 Gbps everywhere */
  ns_cluster *c = ns_cluster_new_leaf_spine(2, 4, 4, 8, 1, 100.0);
  ns_job *job = ns_job_new("resnet50", 12);
  ns_placement *p = ns_placement_new();
  if (c == NULL || job == NULL || p == NULL)
    return fail("setup", NS_ENOMEM);
  printf("libnetsched %s: cluster of %d GPUs on %d servers\n", ns_version(),
         ns_cluster_gpu_count(c), ns_cluster_server_count(c));

  /* A caller that decides itself: the first 12 GPUs (server 0 and half of 1). */
  ns_placement_bind(p, c); /* lets the placement answer tier/server queries */
  for (int g = 0; g < 12; g++)
    ns_placement_add_gpu(p, g);
  int rc = ns_cluster_commit(c, job, p);
  if (rc != NS_OK)
    return fail("ns_cluster_commit", rc);
  const char *tiers[] = {"machine", "rack", "network"};
  ns_tier tier = ns_placement_tier(p);
  if ((int)tier < 0)
    return fail("ns_placement_tier", (int)tier);
  printf("committed %s on %zu GPUs over %d servers (tier: %s); free GPUs left %d\n",
         ns_job_name(job), ns_placement_gpu_count(p), ns_placement_server_count(p),
         tiers[tier], ns_cluster_free_gpu_count(c));

  /* Committing again is a state error, and leaves the cluster as it was. */
  rc = ns_cluster_commit(c, job, p);
  printf("second commit: %s (%s)\n", ns_strerror(rc), ns_last_error());

  rc = ns_cluster_release(c, job);
  if (rc != NS_OK)
    return fail("ns_cluster_release", rc);
  printf("released; free GPUs %d of %d\n", ns_cluster_free_gpu_count(c), ns_cluster_gpu_count(c));

  ns_placement_free(p);
  ns_job_free(job);
  ns_cluster_free(c);
  return 0;
}
