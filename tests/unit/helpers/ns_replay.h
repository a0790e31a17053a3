/*
 * tests/unit/helpers/ns_replay.h - a simulator run replayed through the
 * policy object: a small event loop of the simulator's IDEAL model (each
 * job runs `seconds` iterations of 1000 ms alone) asks ns_policy_decide at
 * every arrival, finish and wake-up the policy asks for, applies each
 * decision (suspends released first, then starts committed) and checks
 * that every job starts, finishes and is preempted exactly as in the
 * simulator. test_policy_lease (Dally's leases) and test_policy_preempt
 * (2D-LAS, 2D-Gittins) differ only in the queue they build.
 */
#ifndef NS_REPLAY_H
#define NS_REPLAY_H

#include <stddef.h>

#include "netsched.h"

typedef struct ns_replay_spec {
  const char *name;
  double arrival_s;
  int gpus, seconds;
} ns_replay_spec;

typedef struct ns_replay_job {
  const char *name;
  double arrival, work; /* ms; work = iterations x 1000 ms */
  int gpus;
  ns_job *job;
  int state; /* 0 not arrived, 1 waiting, 2 running, 3 done */
  double served, from, start, finish; /* ms run, since, first start, finish */
  int preemptions;
} ns_replay_job;

typedef struct ns_replay ns_replay;
struct ns_replay {
  ns_replay_job *J; /* n jobs, the workload's order */
  size_t n;
  /* Adds the jobs waiting or running (state 1 or 2) at now to q (cleared)
     and sets ids[k] = the job index of queue index k; returns the count.
     step counts the decisions from 0. */
  size_t (*fill)(ns_replay *r, ns_queue *q, size_t *ids, int step, double now);
  /* Optional, before each decision with q filled (n entries, ids as fill
     set them). */
  void (*before)(ns_replay *r, ns_policy *p, ns_cluster *c, ns_queue *q, ns_decision *d,
                 size_t n, const size_t *ids, double now);
  void *user;
  size_t renewals; /* out: leases renewed over the replay */
  int preempted;   /* out: preemptions over the replay */
};

/* The simulator's run of the workload under o; fails the test on error. */
ns_sim *ns_replay_sim(const ns_sim_opts *o, const ns_replay_spec *wl, size_t n);
/* r's jobs from wl (J holds n); fill, before and user are the caller's. */
void ns_replay_init(ns_replay *r, ns_replay_job *J, const ns_replay_spec *wl, size_t n);
/* The replay of p on c (empty, as the simulator's cluster), then each job
   against s: a mismatch fails naming label and the job. */
void ns_replay_run(ns_replay *r, ns_policy *p, ns_cluster *c, const ns_sim *s, const char *label);
void ns_replay_free(ns_replay *r);

#endif
