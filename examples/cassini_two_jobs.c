/*
 * examples/cassini_two_jobs.c - CASSINI on two VGG-like jobs sharing one
 * 50 Gbps link: their compatibility score and the time-shift that
 * interleaves their Up phases; then Algorithm 2 ranking two candidate
 * placements of four jobs on two links; then candidates built from a
 * cluster's own links (ns_cassini_candidate_from_cluster) for a job
 * arriving next to a running one, and the re-adjustment of its time-shift
 * when the running job's iteration drifts (ns_cassini_readjust). Uses only
 * <netsched.h>.
 *
 *   cc cassini_two_jobs.c $(pkg-config --cflags --libs netsched)
 */
#include <netsched.h>
#include <stdio.h>

static int fail(const char *what, int rc) {
  fprintf(stderr, "%s failed: %s (%s)\n", what, ns_strerror(rc), ns_last_error());
  return 1;
}

/* A `gpus`-worker job: Down (compute only) for down_ms, then Up at gbps
   for the rest. */
static ns_job *job_like(const char *name, int gpus, double iter_ms, double down_ms,
                        double gbps) {
  ns_job *j = ns_job_new(name, gpus);
  if (j == NULL || ns_job_set_iteration_ms(j, iter_ms) != NS_OK ||
      ns_job_add_phase(j, down_ms, 0) != NS_OK ||
      ns_job_add_phase(j, iter_ms - down_ms, gbps) != NS_OK) {
    ns_job_free(j);
    return NULL;
  }
  return j;
}

static ns_job *vgg_like(const char *name, double iter_ms, double down_ms, double gbps) {
  return job_like(name, 4, iter_ms, down_ms, gbps);
}

static int part1_one_link(ns_job *a, ns_job *b, const ns_cassini_opts *o) {
  ns_link *l = ns_link_new("tor1-spine1", 50);
  if (l == NULL || ns_link_add_job(l, a) != NS_OK || ns_link_add_job(l, b) != NS_OK)
    return fail("link setup", NS_EINVAL);
  double zero[2] = {0, 0}, together = 0, score = 0, shift[2];
  int rc = ns_cassini_score_at(l, o, zero, 2, &together);
  if (rc == NS_OK)
    rc = ns_cassini_score(l, o, &score, shift, 2);
  if (rc != NS_OK) {
    ns_link_free(l);
    return fail("ns_cassini_score", rc);
  }
  printf("Part 1: %s and %s on a 50 Gbps link (255 ms iterations, 114 ms Up at 50 Gbps)\n",
         ns_job_name(a), ns_job_name(b));
  printf("  started together: score %.3f\n", together);
  printf("  CASSINI:          score %.3f with %s delayed by %.3f ms\n", score, ns_job_name(b),
         shift[1]);
  ns_link_free(l);
  return 0;
}

/* Candidate A pairs the two VGGs on each link; candidate B pairs each VGG
   with a light ResNet-like job. */
static int part2_rank(ns_job *const *vgg, ns_job *const *resnet, const ns_cassini_opts *o) {
  ns_link *l1 = ns_link_new("l1", 50), *l2 = ns_link_new("l2", 50);
  ns_candidate *c[2] = {ns_candidate_new(), ns_candidate_new()};
  int rc = l1 && l2 && c[0] && c[1] ? NS_OK : NS_ENOMEM;
  if (rc == NS_OK)
    rc = ns_candidate_add(c[0], vgg[0], l1) || ns_candidate_add(c[0], vgg[1], l1) ||
                 ns_candidate_add(c[0], resnet[0], l2) || ns_candidate_add(c[0], resnet[1], l2) ||
                 ns_candidate_add(c[1], vgg[0], l1) || ns_candidate_add(c[1], resnet[0], l1) ||
                 ns_candidate_add(c[1], vgg[1], l2) || ns_candidate_add(c[1], resnet[1], l2)
             ? NS_EINVAL
             : NS_OK;
  size_t best = 0;
  double scores[2];
  if (rc == NS_OK)
    rc = ns_cassini_rank(c, 2, o, &best, scores);
  if (rc == NS_OK) {
    printf("Part 2: ranking two placements of 2 VGG + 2 ResNet jobs on two links\n");
    printf("  candidate 0 (VGG+VGG, ResNet+ResNet): %.3f\n", scores[0]);
    printf("  candidate 1 (VGG+ResNet twice):       %.3f\n", scores[1]);
    printf("  best: candidate %zu; unique time-shifts:\n", best);
    ns_job *all[4] = {vgg[0], vgg[1], resnet[0], resnet[1]};
    for (int i = 0; i < 4; i++) {
      double t = 0;
      if ((rc = ns_candidate_shift_ms(c[best], all[i], &t)) != NS_OK)
        break;
      printf("    %-8s %8.3f ms\n", ns_job_name(all[i]), t);
    }
  }
  ns_candidate_free(c[0]);
  ns_candidate_free(c[1]);
  ns_link_free(l1);
  ns_link_free(l2);
  return rc == NS_OK ? 0 : fail("ranking", rc);
}

/* Part 3: a 2-leaf cluster (1 spine, 2 servers of 2 GPUs per leaf, 50
   Gbps); vgg-a (Up 160 of 255 ms, heavier than in part 1) runs across the
   leaves on GPUs 0 and 4. vgg-b may go across the leaves too (GPUs 1, 5: it
   shares the leaf-spine links with vgg-a, and two 160 ms Up phases cannot
   interleave in 255 ms) or inside leaf 0 (GPUs 1, 3: nothing shared);
   CASSINI ranks both. */
static int part3_cluster(const ns_cassini_opts *o) {
  ns_cluster *c = ns_cluster_new_leaf_spine(2, 1, 2, 2, 1, 50);
  ns_job *a = job_like("vgg-a", 2, 255, 95, 50), *b = job_like("vgg-b", 2, 255, 95, 50);
  ns_placement *pa = ns_placement_new(), *p[2] = {ns_placement_new(), ns_placement_new()};
  ns_candidate *cand[2] = {ns_candidate_new(), ns_candidate_new()};
  int rc = c && a && b && pa && p[0] && p[1] && cand[0] && cand[1] ? NS_OK : NS_ENOMEM;
  const int ga[] = {0, 4}, gb[2][2] = {{1, 5}, {1, 3}};
  for (int i = 0; i < 2 && rc == NS_OK; i++) /* 2-worker jobs */
    rc = ns_placement_add_gpu(pa, ga[i]) || ns_placement_add_gpu(p[0], gb[0][i]) ||
                 ns_placement_add_gpu(p[1], gb[1][i])
             ? NS_EINVAL
             : NS_OK;
  if (rc == NS_OK)
    rc = ns_cluster_commit(c, a, pa);
  for (int i = 0; i < 2 && rc == NS_OK; i++)
    rc = ns_cassini_candidate_from_cluster(cand[i], c, b, p[i]);
  size_t best = 0, drifted = 0;
  double scores[2], t = 0;
  if (rc == NS_OK)
    rc = ns_cassini_rank(cand, 2, o, &best, scores);
  if (rc == NS_OK) {
    printf("Part 3: vgg-b next to vgg-a (GPUs 0, 4) on a 2-leaf cluster\n");
    printf("  across the leaves (GPUs 1, 5): %.3f\n", scores[0]);
    printf("  inside leaf 0 (GPUs 1, 3):     %.3f\n", scores[1]);
    printf("  best: candidate %zu\n", best);
    rc = ns_cassini_rank(cand, 1, o, &best, scores); /* the shared one, to show its shifts */
  }
  const ns_job *listed[] = {a};
  const double measured[] = {280}; /* vgg-a now takes 280 ms: a 10 % drift */
  double ta = 0;
  /* the new job is its component's reference (t = 0): the running one moves */
  if (rc == NS_OK && (rc = ns_candidate_shift_ms(cand[0], b, &t)) == NS_OK &&
      (rc = ns_candidate_shift_ms(cand[0], a, &ta)) == NS_OK)
    printf("  sharing the links: vgg-b shift %.3f ms, vgg-a shift %.3f ms\n", t, ta);
  if (rc == NS_OK)
    rc = ns_cassini_readjust(cand[0], o, listed, measured, 1, &drifted);
  if (rc == NS_OK && (rc = ns_candidate_shift_ms(cand[0], b, &t)) == NS_OK &&
      (rc = ns_candidate_shift_ms(cand[0], a, &ta)) == NS_OK)
    printf("  vgg-a drifts to 280 ms: %zu job re-adjusted; shifts %.3f and %.3f ms\n", drifted,
           t, ta);
  for (int i = 0; i < 2; i++) {
    ns_candidate_free(cand[i]);
    ns_placement_free(p[i]);
  }
  ns_placement_free(pa);
  ns_job_free(a);
  ns_job_free(b);
  ns_cluster_free(c);
  return rc == NS_OK ? 0 : fail("part 3", rc);
}

int main(void) {
  ns_cassini_opts *o = ns_cassini_opts_new(); /* 5 degree bins, 1 ms quantum */
  ns_job *vgg[2] = {vgg_like("vgg16-a", 255, 141, 50), vgg_like("vgg16-b", 255, 141, 50)};
  ns_job *resnet[2] = {vgg_like("resnet-a", 170, 100, 20), vgg_like("resnet-b", 170, 100, 20)};
  int rc = o && vgg[0] && vgg[1] && resnet[0] && resnet[1] ? 0 : fail("setup", NS_ENOMEM);
  if (rc == 0)
    rc = part1_one_link(vgg[0], vgg[1], o);
  if (rc == 0)
    rc = part2_rank(vgg, resnet, o);
  if (rc == 0)
    rc = part3_cluster(o);
  for (int i = 0; i < 2; i++) {
    ns_job_free(vgg[i]);
    ns_job_free(resnet[i]);
  }
  ns_cassini_opts_free(o);
  return rc;
}
