/*
 * examples/cassini_two_jobs.c - CASSINI on two VGG-like jobs sharing one
 * 50 Gbps link: their compatibility score and the time-shift that
 * interleaves their Up phases; then Algorithm 2 ranking two candidate
 * placements of four jobs on two links. Uses only <netsched.h>.
 *
 *   cc cassini_two_jobs.c $(pkg-config --cflags --libs netsched)
 */
#include <netsched.h>
#include <stdio.h>

static int fail(const char *what, int rc) {
  fprintf(stderr, "%s failed: %s (%s)\n", what, ns_strerror(rc), ns_last_error());
  return 1;
}

/* Down (compute only) for down_ms, then Up at gbps for the rest. */
static ns_job *vgg_like(const char *name, double iter_ms, double down_ms, double gbps) {
  ns_job *j = ns_job_new(name, 4);
  if (j == NULL || ns_job_set_iteration_ms(j, iter_ms) != NS_OK ||
      ns_job_add_phase(j, down_ms, 0) != NS_OK ||
      ns_job_add_phase(j, iter_ms - down_ms, gbps) != NS_OK) {
    ns_job_free(j);
    return NULL;
  }
  return j;
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

int main(void) {
  ns_cassini_opts *o = ns_cassini_opts_new(); /* 5 degree bins, 1 ms quantum */
  ns_job *vgg[2] = {vgg_like("vgg16-a", 255, 141, 50), vgg_like("vgg16-b", 255, 141, 50)};
  ns_job *resnet[2] = {vgg_like("resnet-a", 170, 100, 20), vgg_like("resnet-b", 170, 100, 20)};
  int rc = o && vgg[0] && vgg[1] && resnet[0] && resnet[1] ? 0 : fail("setup", NS_ENOMEM);
  if (rc == 0)
    rc = part1_one_link(vgg[0], vgg[1], o);
  if (rc == 0)
    rc = part2_rank(vgg, resnet, o);
  for (int i = 0; i < 2; i++) {
    ns_job_free(vgg[i]);
    ns_job_free(resnet[i]);
  }
  ns_cassini_opts_free(o);
  return rc;
}
