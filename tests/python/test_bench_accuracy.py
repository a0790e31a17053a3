"""bench/bench_accuracy.py (issue 30 item 2): its statistics on hand-derived
numbers, its per-run time limit, and the chaos-floor perturbation it applies
(the last arrival moves by the asked amount, no arrival moves back)."""

import importlib.util
import os
import resource
import time
import unittest

from netsched import sim

from . import support

_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "bench_accuracy.py")
_spec = importlib.util.spec_from_file_location("bench_accuracy", _PATH)
acc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(acc)


def _quick(q, spec):
    q.put({"cpu": 0.0, "value": spec["value"]})


def _slow(q, spec):
    time.sleep(30)
    q.put({"cpu": 30.0})


def _spin(q, spec):  # as run_one under its CPU limit: SIGXCPU after 1 s of CPU
    resource.setrlimit(resource.RLIMIT_CPU, (1, 2))
    x = 0
    while True:
        x += 1


class TestStatistics(unittest.TestCase):
    def test_compare(self):
        # avg 110 vs 100: +10 %; p95 90 vs 100: -10 %; makespan 200 vs 250:
        # -20 %; per job |11-10|/10 = 10 %, |18-20|/20 = 10 %, |30-30|/30 = 0
        # -> mean 6.67 %; a NaN JCT (never finished) is left out.
        a = {"avg": 110.0, "p95": 90.0, "span": 200.0, "jct": [11.0, 18.0, 30.0, float("nan")]}
        b = {"avg": 100.0, "p95": 100.0, "span": 250.0, "jct": [10.0, 20.0, 30.0, 5.0]}
        avg, p95, span, job = acc.compare(a, b)
        self.assertAlmostEqual(avg, 10.0)
        self.assertAlmostEqual(p95, -10.0)
        self.assertAlmostEqual(span, -20.0)
        self.assertAlmostEqual(job, 100.0 * 0.2 / 3)

    def test_mean_ci(self):
        # 1, 2, 3: mean 2, sd 1, t(2 df) = 4.303 -> 4.303 / sqrt(3) = 2.4843
        m, h = acc.mean_ci([1.0, 2.0, 3.0])
        self.assertAlmostEqual(m, 2.0)
        self.assertAlmostEqual(h, 4.303 / 3 ** 0.5, places=6)
        m, h = acc.mean_ci([5.0])
        self.assertEqual(m, 5.0)
        self.assertTrue(h != h)  # one seed: no interval
        self.assertAlmostEqual(acc.t95(9), 2.262)
        self.assertAlmostEqual(acc.t95(39), 2.023)
        self.assertAlmostEqual(acc.t95(45), 2.023)  # untabled: the next smaller df's (wider)
        self.assertAlmostEqual(acc.t95(500), 1.984)

    def test_verdict(self):
        # both intervals inside +-3 %: [-0.5, 2.5] and [-2.9, 1.9]
        self.assertEqual(acc.verdict((1.0, 1.5), (-0.5, 2.4), (9, 9), (1, 1)),
                         "bias within 3 %")
        # avg interval [3.5, 4.5]: excludes 0, leaves +-3 %
        self.assertTrue(acc.verdict((4.0, 0.5), (0.0, 1.0), (1, 1), (1, 1)).startswith("BIAS"))
        # [-4, 6] contains 0 but leaves +-3 %: the spread is the floor's (5 <=
        # 1.5 x 4, 2 <= 1.5 x 2) or not (p95: 4 > 1.5 x 2)
        self.assertEqual(acc.verdict((1.0, 5.0), (0.0, 1.0), (5, 2), (4, 2)),
                         "no bias shown; spread = the floor's")
        self.assertEqual(acc.verdict((1.0, 5.0), (0.0, 1.0), (5, 4), (4, 2)),
                         "no bias shown; spread > the floor's")
        self.assertEqual(acc.verdict((1.0, float("nan")), (0.0, float("nan")), (0, 0), (0, 0)),
                         "1 seed")
        self.assertEqual(acc.verdict((1.0, 5.0), (0.0, 1.0), (5, 4), None),
                         "no bias shown; no floor run")  # NS_ACC_CHAOS*_MS=0


class TestRunner(unittest.TestCase):
    def test_limit_and_results(self):
        got = {}
        specs = [{"value": 1}, {"value": 2, "slow": True}, {"value": 3}]

        def done(spec, r):
            got[spec["value"]] = r

        class Pick:  # one target per spec, through the runner's own target hook
            def __call__(self, q, spec):
                (_slow if spec.get("slow") else _quick)(q, spec)

        t0 = time.time()
        acc.Runner(2, 1.0, target=Pick(), wall=1.0).run_all(specs, done)
        self.assertLess(time.time() - t0, 20.0)  # the 30 s sleep was killed at the backstop
        self.assertEqual(got[1], {"cpu": 0.0, "value": 1})
        self.assertEqual(got[3], {"cpu": 0.0, "value": 3})
        self.assertEqual(got[2], {"timeout": 1.0})
        self.assertFalse(acc.ok(got[2]))
        self.assertEqual(acc.cpu_of(got[2]), "> 1 (limit)")

    def test_cpu_limit(self):
        # the child ends on SIGXCPU after 1 s of CPU (however loaded the
        # machine): reported as over the limit, not as a failure
        got = {}
        acc.Runner(1, 1.0, target=_spin, wall=600.0).run_all(
            [{"value": 1}], lambda spec, r: got.__setitem__(1, r))
        self.assertEqual(got[1], {"timeout": 1.0})

    def test_chaos_runs_wait_for_their_exact_run(self):
        order = []
        specs = [{"value": 1, "kind": "chaos"}, {"value": 2, "kind": "exact"}]
        state = {}

        def done(spec, r):
            order.append(spec["kind"])
            state[spec["kind"]] = r

        acc.Runner(2, 10.0, target=_quick).run_all(
            specs, done, ready=lambda sp: sp["kind"] != "chaos" or "exact" in state)
        self.assertEqual(order, ["exact", "chaos"])


@support.requires("ns_sim_new", "ns_sim_run", "ns_sim_scale_arrivals")
class TestPerturbation(unittest.TestCase):
    def test_last_arrival_moves_by_the_floor(self):
        # the default workload's arrivals span (0, 20 min]: the chaos floor's
        # factor 1 + 1 ms / 1,200,000 ms moves an arrival at a by
        # (a - a0) / 1.2e6 ms: at most 1 ms, never backwards
        o = sim.Options()
        o.set_phase_window(0)
        base, moved = sim.Simulator(o), sim.Simulator(o)
        base.load_default_workload()
        moved.load_default_workload()
        moved.scale_arrivals(1.0 + 1.0 / 1200000.0)
        base.run()
        moved.run()
        a = [base.job_result(i).arrival_ms for i in range(len(base))]
        b = [moved.job_result(i).arrival_ms for i in range(len(moved))]
        a0 = min(a)
        self.assertGreater(max(a) - a0, 1.15e6)  # the span the factor assumes
        for x, y in zip(a, b):
            self.assertAlmostEqual(y - x, (x - a0) / 1200000.0, delta=1e-6)
            self.assertGreaterEqual(y - x, 0.0)
            self.assertLessEqual(y - x, 1.0 + 1e-9)


if __name__ == "__main__":
    unittest.main()
