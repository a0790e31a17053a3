#include "ns_test.h"
#include "ns_replay.h"

#include <stdlib.h>

ns_sim *ns_replay_sim(const ns_sim_opts *o, const ns_replay_spec *wl, size_t n) {
  ns_sim *s = ns_sim_new(o);
  assert_non_null(s);
  for (size_t i = 0; i < n; i++)
    assert_int_equal(ns_sim_add_job(s, wl[i].name, wl[i].arrival_s * 1e3, wl[i].gpus,
                                    (uint64_t)wl[i].seconds, 1000.0, 0, 0),
                     (int)i);
  assert_int_equal(ns_sim_run(s), NS_OK);
  return s;
}

void ns_replay_init(ns_replay *r, ns_replay_job *J, const ns_replay_spec *wl, size_t n) {
  r->J = J, r->n = n, r->renewals = 0, r->preempted = 0;
  for (size_t i = 0; i < n; i++) {
    ns_job *j = ns_job_new(wl[i].name, wl[i].gpus);
    assert_non_null(j);
    J[i] = (ns_replay_job){wl[i].name, wl[i].arrival_s * 1e3, wl[i].seconds * 1e3, wl[i].gpus,
                           j, 0, 0, 0, NAN, NAN, 0};
  }
}

void ns_replay_run(ns_replay *r, ns_policy *p, ns_cluster *c, const ns_sim *s, const char *label) {
  ns_replay_job *J = r->J;
  ns_queue *q = ns_queue_new();
  ns_decision *d = ns_decision_new();
  size_t *ids = malloc((r->n ? r->n : 1) * sizeof *ids);
  assert_true(q != NULL && d != NULL && ids != NULL);
  double now = 0, wake = INFINITY;
  size_t done = 0;
  for (int step = 0; done < r->n && step < 10000; step++) {
    /* next event: an arrival, a finish, the policy's wake-up */
    double t = wake;
    for (size_t i = 0; i < r->n; i++) {
      if (J[i].state == 0 && J[i].arrival < t)
        t = J[i].arrival;
      if (J[i].state == 2 && J[i].from + (J[i].work - J[i].served) < t)
        t = J[i].from + (J[i].work - J[i].served);
    }
    assert_true(isfinite(t));
    now = t;
    for (size_t i = 0; i < r->n; i++) {
      if (J[i].state == 0 && J[i].arrival <= now)
        J[i].state = 1;
      if (J[i].state == 2) {
        J[i].served += now - J[i].from, J[i].from = now;
        if (J[i].served >= J[i].work - 1e-6) {
          J[i].state = 3, J[i].finish = now, done++;
          assert_int_equal(ns_cluster_release(c, J[i].job), NS_OK);
        }
      }
    }
    ns_queue_clear(q);
    size_t n = r->fill(r, q, ids, step, now);
    assert_int_equal(ns_queue_count(q), n);
    if (r->before != NULL)
      r->before(r, p, c, q, d, n, ids, now);
    assert_int_equal(ns_policy_decide(p, c, q, now, d), NS_OK);
    r->renewals += ns_decision_renew_count(d);
    for (size_t k = 0; k < ns_decision_suspend_count(d); k++) {
      ns_replay_job *x = &J[ids[ns_decision_suspend_job(d, k)]];
      assert_int_equal(ns_cluster_release(c, x->job), NS_OK);
      x->state = 1, x->preemptions++;
    }
    for (size_t k = 0; k < ns_decision_start_count(d); k++) {
      ns_replay_job *x = &J[ids[ns_decision_start_job(d, k)]];
      assert_int_equal(ns_cluster_commit(c, x->job, ns_decision_placement(d, k)), NS_OK);
      x->state = 2, x->from = now;
      if (isnan(x->start))
        x->start = now;
    }
    wake = ns_decision_next_ms(d);
  }
  assert_int_equal(done, r->n);
  for (size_t i = 0; i < r->n; i++) {
    double arr, st, fin;
    assert_int_equal(ns_sim_job_result(s, (int)i, &arr, &st, &fin, NULL), NS_OK);
    if (fabs(st - J[i].start) > 1e-6 || fabs(fin - J[i].finish) > 1e-6 ||
        ns_sim_job_preemptions(s, (int)i) != J[i].preemptions)
      fail_msg("%s job %s: simulator start %.3f finish %.3f preemptions %d; policy replay "
               "%.3f %.3f %d", label, J[i].name, st, fin, ns_sim_job_preemptions(s, (int)i),
               J[i].start, J[i].finish, J[i].preemptions);
    r->preempted += J[i].preemptions;
  }
  free(ids);
  ns_decision_free(d);
  ns_queue_free(q);
}

void ns_replay_free(ns_replay *r) {
  for (size_t i = 0; i < r->n; i++)
    ns_job_free(r->J[i].job), r->J[i].job = NULL;
}
