/*
 * examples/lwf_place.c - LWF-kappa placement (Wang et al., Algorithm 1) next
 * to the First-Fit, List-Scheduling and random baselines, with the workload
 * bookkeeping of commit and release. Uses only <netsched.h>.
 *
 *   cc lwf_place.c $(pkg-config --cflags --libs netsched)
 */
#include <netsched.h>
#include <stdio.h>

static int fail(const char *what, int rc) {
  fprintf(stderr, "%s failed: %s (%s)\n", what, ns_strerror(rc), ns_last_error());
  return 1;
}

static void show(const char *label, const ns_placement *p) {
  printf("%-22s GPUs", label);
  for (size_t i = 0; i < ns_placement_gpu_count(p); i++)
    printf(" %d", ns_placement_gpu(p, i));
  printf("  (%d servers)\n", ns_placement_server_count(p));
}

int main(void) {
  /* The paper's setting: one 10 GbE switch, 4-GPU servers (4 of them here);
     GPUs are shared while their memory fits. */
  ns_cluster *c = ns_cluster_new_leaf_spine(1, 0, 4, 4, 0, 10.0);
  ns_placement *p = ns_placement_new();
  ns_job *resnet = ns_job_new("resnet50", 4), *vgg = ns_job_new("vgg16", 2);
  if (!c || !p || !resnet || !vgg)
    return fail("setup", NS_ENOMEM);
  ns_cluster_set_gpu_sharing(c, 1);
  const double load[16] = {5, 1, 7, 3, 2, 2, 9, 0, 4, 4, 4, 4, 8, 0, 6, 1};
  for (int g = 0; g < 16; g++)
    ns_cluster_set_gpu_workload_ms(c, g, load[g] * 1000);

  int rc;
  for (int kappa = 1; kappa <= 4; kappa *= 2) {
    char label[32];
    snprintf(label, sizeof label, "LWF-%d, 4-GPU job:", kappa);
    if ((rc = ns_lwf_place(c, resnet, kappa, p)) != NS_OK)
      return fail("ns_lwf_place", rc);
    show(label, p);
  }
  if ((rc = ns_place_first_fit(c, resnet, p)) != NS_OK)
    return fail("ns_place_first_fit", rc);
  show("FF, 4-GPU job:", p);
  if ((rc = ns_place_list_scheduling(c, resnet, p)) != NS_OK)
    return fail("ns_place_list_scheduling", rc);
  show("LS, 4-GPU job:", p);
  if ((rc = ns_place_random(c, resnet, 42, p)) != NS_OK)
    return fail("ns_place_random", rc);
  show("RAND(42), 4-GPU job:", p);

  /* Commit adds L_J = (fwd + bwd) x remaining iterations x |G| to each GPU. */
  ns_job_set_compute_ms(vgg, 35.8, 53.7);
  ns_job_set_iterations(vgg, 1000, 400);
  ns_job_set_gpu_memory_mb(vgg, 9000);
  if ((rc = ns_lwf_place(c, vgg, 1, p)) != NS_OK)
    return fail("ns_lwf_place", rc);
  show("LWF-1, vgg16 (2 GPUs):", p);
  int g0 = ns_placement_gpu(p, 0);
  if ((rc = ns_cluster_commit(c, vgg, p)) != NS_OK)
    return fail("ns_cluster_commit", rc);
  printf("GPU %d workload after commit: %.0f ms (was %.0f)\n", g0,
         ns_cluster_gpu_workload_ms(c, g0), load[g0] * 1000);
  if ((rc = ns_lwf_place(c, vgg, 1, p)) != NS_OK)
    return fail("ns_lwf_place", rc);
  show("next vgg16 goes to:", p);
  ns_cluster_release(c, vgg);
  printf("GPU %d workload after release: %.0f ms\n", g0, ns_cluster_gpu_workload_ms(c, g0));

  /* The two refusals a caller must tell apart (core.h): a job that can
     never fit this cluster is NS_EINVAL (drop it); one that fits the
     cluster but not its current state is NS_ENOSPACE (keep it queued). */
  ns_job *huge = ns_job_new("huge", 17), *wide = ns_job_new("wide", 16);
  if (!huge || !wide)
    return fail("setup", NS_ENOMEM);
  int never = ns_lwf_place(c, huge, 1, p); /* a refusal leaves p empty (lwf.h) */
  printf("17-GPU job: %s (%s)\n", ns_strerror(never), ns_last_error());
  /* With vgg16's 9000 MB committed on two GPUs, a 16-GPU job of 9000 MB per
     GPU (16384 MB each by default) has no room now. */
  ns_job_set_gpu_memory_mb(wide, 9000);
  if ((rc = ns_lwf_place(c, vgg, 1, p)) != NS_OK || (rc = ns_cluster_commit(c, vgg, p)) != NS_OK)
    return fail("placing vgg16 again", rc);
  int now = ns_lwf_place(c, wide, 1, p);
  printf("16-GPU job of 9000 MB while vgg16 runs: %s (%s)\n", ns_strerror(now), ns_last_error());
  ns_cluster_release(c, vgg);
  ns_job_free(huge);
  ns_job_free(wide);
  ns_job_free(resnet);
  ns_job_free(vgg);
  ns_placement_free(p);
  ns_cluster_free(c);
  return never == NS_EINVAL && now == NS_ENOSPACE ? 0 : 1;
}
