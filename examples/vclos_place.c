/*
 * examples/vclos_place.c - vClos on a 2048-GPU leaf-spine fabric: 64 leaves
 * x 32 spines, 4 servers of 8 GPUs per leaf, one link per leaf-spine pair.
 * A stream of jobs arrives; each gets its own link-isolated virtual Clos
 * (or a server / a leaf when it fits there), runs for a few arrivals and
 * leaves. Prints each decision's stage, l x s and reserved links, then a
 * source-routing lookup inside the last virtual Clos. Uses only <netsched.h>.
 *
 *   cc vclos_place.c $(pkg-config --cflags --libs netsched)
 */
#include <netsched.h>
#include <stdio.h>

enum { NJOBS = 60 };

static int fail(const char *what, int rc) {
  fprintf(stderr, "%s failed: %s (%s)\n", what, ns_strerror(rc), ns_last_error());
  return 1;
}

static void print_decision(int i, const ns_job *job, const ns_placement *p, int stage) {
  int links = ns_placement_link_count(p), leaf, spine;
  printf("job %2d %-8s N=%4d  stage %d  GPUs %4zu  l x s = %2d x %2d  links %4d", i,
         ns_job_name(job), ns_job_gpus(job), stage, ns_placement_gpu_count(p),
         ns_placement_virtual_leaves(p), ns_placement_virtual_spines(p), links);
  for (int k = 0; k < links && k < 3; k++) {
    ns_placement_link(p, (size_t)k, &leaf, &spine);
    printf(" L%d-S%d", leaf, spine);
  }
  printf("%s\n", links > 3 ? " ..." : "");
}

int main(void) {
  static const int sizes[] = {8, 64, 4, 128, 16, 256, 2, 96, 32, 512, 24, 1, 48, 12, 40, 200, 6, 80};
  unsigned seed = 12345; /* a fixed stream: sizes and lifetimes from an LCG */
  int ends[NJOBS];
  ns_cluster *c = ns_cluster_new_leaf_spine(64, 32, 4, 8, 1, 100.0);
  ns_vclos_opts *o = ns_vclos_opts_new(); /* exact search (default) */
  ns_placement *p = ns_placement_new();
  ns_job *jobs[NJOBS] = {0};
  if (c == NULL || o == NULL || p == NULL)
    return fail("setup", NS_ENOMEM);
  printf("vClos on %d GPUs: 64 leaves x 32 spines, 8 GPUs per server\n", ns_cluster_gpu_count(c));
  int placed = 0, waited = 0, last = -1;
  for (int i = 0; i < NJOBS; i++) {
    char name[16];
    snprintf(name, sizeof name, "job%d", i);
    seed = seed * 1103515245u + 12345u;
    int n = sizes[(seed >> 16) % 18];
    ends[i] = i + 8 + (int)((seed >> 8) % 24); /* runs for 8-31 arrivals */
    jobs[i] = ns_job_new(name, n);
    for (int k = 0; k < i; k++) /* jobs whose time is up finish */
      if (ends[k] == i && ns_cluster_is_committed(c, jobs[k]) == 1)
        ns_cluster_release(c, jobs[k]);
    int stage = -1, rc = ns_vclos_place_ex(c, jobs[i], o, p, &stage);
    if (rc == NS_ENOSPACE) { /* the job would wait in the queue */
      printf("job %2d %-8s N=%4d  waits (%s)\n", i, name, n, ns_strerror(rc));
      waited++;
      continue;
    }
    if (rc != NS_OK)
      return fail("ns_vclos_place", rc);
    print_decision(i, jobs[i], p, stage);
    if ((rc = ns_cluster_commit(c, jobs[i], p)) != NS_OK)
      return fail("ns_cluster_commit", rc);
    placed++;
    if (stage == 2)
      last = i;
  }
  printf("%d placed, %d waiting, %d GPUs free\n", placed, waited, ns_cluster_free_gpu_count(c));
  if (last >= 0 && ns_cluster_job_placement(c, jobs[last], p) == NS_OK) {
    int a = ns_placement_gpu(p, 0), b = ns_placement_gpu(p, ns_placement_gpu_count(p) - 1), m;
    if (ns_vclos_route(c, a, b, &m) == NS_OK)
      printf("source routing in job %d: GPU %d -> GPU %d crosses spine %d\n", last, a, b, m);
  }
  for (int i = 0; i < NJOBS; i++)
    ns_job_free(jobs[i]);
  ns_placement_free(p);
  ns_vclos_opts_free(o);
  ns_cluster_free(c);
  return 0;
}
