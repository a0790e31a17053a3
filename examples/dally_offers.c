/*
 * examples/dally_offers.c - Dally delay scheduling on a 2-rack cluster.
 *
 * A queue of training jobs arrives over a day and a half. Every 15 minutes
 * the scheduler offers the free GPUs to the waiting jobs, most slowed-down
 * first (increasing Nw_sens), and each job runs Algorithm 1: take one
 * machine at once, else wait for its machine timer, then take one rack,
 * else wait for its rack timer, then take GPUs across the network. Jobs run
 * slower the more spread out they are; the timers tune themselves from the
 * waits of earlier jobs. Uses only <netsched.h>.
 *
 *   cc dally_offers.c $(pkg-config --cflags --libs netsched)
 */
#include <netsched.h>
#include <stdio.h>
#include <stdlib.h>

#define H 3600e3 /* ms */
#define NJOBS 40

typedef struct demo_job {
  ns_job *job;
  double arrive_ms, work_ms; /* ideal run time (no communication) */
  double start_ms, end_ms;   /* -1 until known */
} demo_job;

static unsigned rng = 2024;
static double uniform(void) {
  rng = rng * 1103515245u + 12345u;
  return ((rng >> 8) & 0xffff) / 65536.0;
}

static const char *tier_name[] = {"machine", "rack", "network"};

static int die(const char *what, int rc) {
  fprintf(stderr, "%s: %s (%s)\n", what, ns_strerror(rc), ns_last_error());
  exit(1);
}

/* The timers an offer would use now (zero-timer rules included: a 16-GPU
   job cannot fit one 8-GPU machine, so its machine timer is 0). */
static void print_timers(const ns_delay_tuner *t, const ns_cluster *c, double now) {
  const int demands[] = {4, 8, 16};
  printf("  t=%5.1fh timers", now / H);
  for (int i = 0; i < 3; i++) {
    double mc, rk;
    int rc = ns_dally_timers(t, c, demands[i], now, &mc, &rk);
    if (rc != NS_OK)
      die("ns_dally_timers", rc);
    printf("  [%2d GPUs] machine %5.1fh rack %5.1fh", demands[i], mc / H, rk / H);
  }
  printf("\n");
}

/* Nw_sens of a waiting job. This demo does not preempt, so a waiting job
   has not run yet: Nw_sens = 1 for all and the order stays first come,
   first served. With preemption, a job put back in the queue after slow
   progress would get a lower Nw_sens and the next offer first. */
static double nw_sens(const demo_job *d) {
  double v = ns_dally_priority(0, 1000, 0, d->work_ms);
  if (v != v)
    die("ns_dally_priority", NS_EINVAL);
  return v;
}

static int by_arrival(const void *a, const void *b) {
  const demo_job *x = a, *y = b;
  return (x->arrive_ms > y->arrive_ms) - (x->arrive_ms < y->arrive_ms);
}

static void make_jobs(demo_job *jobs) {
  const int demand[] = {1, 2, 4, 4, 8, 8, 8, 12, 16, 24};
  for (int i = 0; i < NJOBS; i++) {
    char name[16];
    snprintf(name, sizeof name, "job%02d", i);
    jobs[i].job = ns_job_new(name, demand[(int)(uniform() * 10)]);
    if (jobs[i].job == NULL)
      die("ns_job_new", NS_ENOMEM);
    jobs[i].arrive_ms = (double)(int)(uniform() * 144) * 0.25 * H; /* first 36 h */
    jobs[i].work_ms = (2 + 14 * uniform()) * H;
    jobs[i].start_ms = jobs[i].end_ms = -1;
  }
  qsort(jobs, NJOBS, sizeof *jobs, by_arrival);
}

/* Offers the free GPUs to the waiting jobs in increasing Nw_sens. */
static void offer_round(ns_delay_tuner *t, ns_cluster *c, demo_job *jobs, double now,
                        ns_placement *p) {
  double key[NJOBS];
  size_t order[NJOBS], n = 0, idx[NJOBS];
  for (int i = 0; i < NJOBS; i++)
    if (jobs[i].arrive_ms <= now && jobs[i].start_ms < 0) {
      idx[n] = (size_t)i;
      key[n++] = nw_sens(&jobs[i]);
    }
  int rc = ns_dally_offer_order(key, n, order);
  if (rc != NS_OK)
    die("ns_dally_offer_order", rc);
  for (size_t k = 0; k < n; k++) {
    demo_job *d = &jobs[idx[order[k]]];
    int accepted;
    rc = ns_dally_offer(t, c, d->job, now - d->arrive_ms, now, p, &accepted);
    if (rc != NS_OK)
      die("ns_dally_offer", rc);
    if (!accepted)
      continue;
    if ((rc = ns_cluster_commit(c, d->job, p)) != NS_OK)
      die("ns_cluster_commit", rc);
    ns_tier tier = ns_placement_tier(p);
    /* Illustrative communication slowdown by tier. */
    double slowdown = tier == NS_TIER_MACHINE ? 1.0 : tier == NS_TIER_RACK ? 1.25 : 2.0;
    d->start_ms = now;
    d->end_ms = now + d->work_ms * slowdown;
    printf("  t=%5.1fh %s (%2d GPUs) waited %5.2fh -> %-7s (%d servers)\n", now / H,
           ns_job_name(d->job), ns_job_gpus(d->job), (now - d->arrive_ms) / H,
           tier_name[tier], ns_placement_server_count(p));
  }
}

int main(void) {
  /* 2 racks x 4 machines x 8 GPUs; the paper's default timers (12 h + 12 h)
     and a 24 h history. */
  ns_cluster *c = ns_cluster_new_leaf_spine(2, 2, 4, 8, 1, 400);
  ns_delay_tuner *t = ns_delay_tuner_new(24 * H, 12 * H, 12 * H);
  ns_placement *p = ns_placement_new();
  if (c == NULL || t == NULL || p == NULL)
    return die("setup", NS_ENOMEM);
  demo_job jobs[NJOBS];
  make_jobs(jobs);

  printf("Dally on %d GPUs (2 racks x 4 machines x 8 GPUs), %d jobs\n",
         ns_cluster_gpu_count(c), NJOBS);
  int finished = 0;
  double now = 0, sum_wait = 0;
  for (; finished < NJOBS && now <= 200 * H; now += 0.25 * H) {
    for (int i = 0; i < NJOBS; i++) /* completions */
      if (jobs[i].end_ms >= 0 && jobs[i].end_ms <= now) {
        ns_cluster_release(c, jobs[i].job);
        sum_wait += jobs[i].start_ms - jobs[i].arrive_ms;
        jobs[i].end_ms = -2;
        finished++;
      }
    offer_round(t, c, jobs, now, p);
    if ((int)(now / (0.25 * H)) % 48 == 0) /* every 12 h */
      print_timers(t, c, now);
  }
  printf("%d/%d jobs finished by t=%.1fh; mean queueing delay %.2fh\n", finished, NJOBS,
         now / H, finished ? sum_wait / finished / H : 0.0);
  for (int i = 0; i < NJOBS; i++)
    ns_job_free(jobs[i].job);
  ns_placement_free(p);
  ns_delay_tuner_free(t);
  ns_cluster_free(c);
  return finished == NJOBS ? 0 : 1;
}
