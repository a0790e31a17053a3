"""bench/bench_accuracy.py (issue 30 item 2): its statistics on hand-derived
numbers, its per-run time limit, and the chaos-floor perturbation it applies
(the last arrival moves by the asked amount, no arrival moves back)."""

import contextlib
import importlib.util
import io
import json
import math
import os
import resource
import sys
import time
import unittest
from unittest import mock

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

    def test_cached_only_table_stats(self):
        # NS_ACC_CACHED_ONLY's per-preset statistics on -3, 0, 6: mean 1;
        # deviations -4, -1, 5 -> sum of squares 42, variance 42 / 2 = 21,
        # sd / sqrt(3) = sqrt(7) = 2.64575; t(0.975, 2 df) in closed form
        # 0.95 * sqrt(2 / (1 - 0.95^2)) = 4.30265 -> half-width 11.3838;
        # mean |e| (3 + 0 + 6) / 3 = 3; largest |e| 6
        m, h, mabs, big = acc.table_stats([-3.0, 0.0, 6.0])
        self.assertAlmostEqual(m, 1.0)
        self.assertAlmostEqual(h, 0.95 * (2 / (1 - 0.95 ** 2)) ** 0.5 * 7 ** 0.5, places=6)
        self.assertAlmostEqual(h, 11.3838, places=3)
        self.assertAlmostEqual(mabs, 3.0)
        self.assertEqual(big, 6.0)
        self.assertEqual(acc.table_stats([-2.5]), (-2.5, 0.0, 2.5, 2.5))  # one: no spread
        # rows by largest |avg error| (b: 10 > a: 6), ties (c, d: 0) in the given order
        lines = acc.preset_table({"a": [(-3.0, 1.0), (0.0, 1.0), (6.0, 1.0)],
                                  "b": [(10.0, -2.0)], "c": [(0.0, 0.0)], "d": [(0.0, 0.0)]},
                                 ["d", "a", "c", "b", "e"])
        self.assertEqual(lines[2:], [
            "| b | 1 | +10.0 +- 0.0 | 10.0 | 10.0 | -2.0 +- 0.0 | 2.0 | 2.0 |",
            "| a | 3 | +1.0 +- 11.4 | 3.0 | 6.0 | +1.0 +- 0.0 | 1.0 | 1.0 |",
            "| d | 1 | +0.0 +- 0.0 | 0.0 | 0.0 | +0.0 +- 0.0 | 0.0 | 0.0 |",
            "| c | 1 | +0.0 +- 0.0 | 0.0 | 0.0 | +0.0 +- 0.0 | 0.0 | 0.0 |"])

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


def _run(avg, p95, span=1000.0, jct=(10.0, 20.0)):
    return {"cpu": 1.0, "avg": avg, "p95": p95, "span": span, "jct": list(jct)}


class TestRunTimeFloor(unittest.TestCase):
    ROWS = [["timestamp", "duration", "num_gpus", "gpu_time", "cluster"],
            ["2017-10-09 06:13:03", "2951.0", "1", "2951.0", "6214e9"],
            ["2017-10-09 07:01:55", "66.0", "2", "132.0", "11cb48"],
            ["2017-10-09 07:02:00", "", "1", "", "11cb48"],  # no duration: kept as is
            ["2017-10-09 07:03:00", "86400.0", "8", "691200.0", "a,b"]]

    def _window(self, tmp):
        import csv
        src = os.path.join(tmp, "w.csv")
        with open(src, "w", newline="") as f:  # as windows() writes it (csv, "\r\n")
            csv.writer(f).writerows(self.ROWS)
        return src

    def _read(self, path):
        import csv
        with open(path, newline="") as f:
            return list(csv.reader(f))

    def test_draw_moves_durations_within_the_bound_and_nothing_else(self):
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            src = self._window(tmp)
            for rel in (0.001, 0.1):
                a = acc.perturb_durations(src, os.path.join(tmp, "a.csv"), rel, 1)
                rows = self._read(a)
                self.assertEqual(len(rows), len(self.ROWS))
                moved = 0
                for old, new in zip(self.ROWS, rows):
                    # every field but the duration byte-identical (gpu_time too)
                    self.assertEqual(old[:1] + old[2:], new[:1] + new[2:])
                    if old is self.ROWS[0] or not old[1]:
                        self.assertEqual(old[1], new[1])
                        continue
                    d0, d1 = float(old[1]), float(new[1])
                    # |d1 / d0 - 1| <= rel, plus the "%.3f" rounding (0.0005 s)
                    self.assertLessEqual(abs(d1 - d0), rel * d0 + 0.0005)
                    moved += d1 != d0
                self.assertEqual(moved, 3)  # a factor of exactly 1 has probability 0
                # the file round-trips byte for byte once the durations are put back
                for old, new in zip(self.ROWS, rows):
                    new[1] = old[1]
                import csv
                import io
                buf, ref = io.StringIO(), io.StringIO()
                csv.writer(buf).writerows(rows)
                csv.writer(ref).writerows(self.ROWS)
                with open(src, newline="") as f:
                    self.assertEqual(f.read(), ref.getvalue())
                self.assertEqual(buf.getvalue(), ref.getvalue())
            # deterministic per (rel, draw); another draw moves them otherwise
            b1 = acc.perturb_durations(src, os.path.join(tmp, "b1.csv"), 0.001, 1)
            b2 = acc.perturb_durations(src, os.path.join(tmp, "b2.csv"), 0.001, 1)
            c = acc.perturb_durations(src, os.path.join(tmp, "c.csv"), 0.001, 2)
            with open(b1, "rb") as f1, open(b2, "rb") as f2, open(c, "rb") as f3:
                x, y, z = f1.read(), f2.read(), f3.read()
            self.assertEqual(x, y)
            self.assertNotEqual(x, z)
            # the factor of row 1 is 1 + rel * U(-1, 1), the draw's first number
            u = acc.dur_factor_rng(0.001, 2).uniform(-1.0, 1.0)
            self.assertEqual(self._read(c)[1][1], "%.3f" % (2951.0 * (1 + 0.001 * u)))

    def test_cache_key_per_draw(self):
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            src = self._window(tmp)
            with mock.patch.dict(os.environ, {"NS_ACC_CACHE": tmp}):
                base = {"policy": "fifo", "cluster": [4, 8, 8, 8, 2, 10.0], "seed": 1,
                        "scale": 1.0, "window": 0, "trace": src}
                p0 = acc.cache_path(base)
                # the same trace bytes, three draws: three keys, none the unperturbed one's
                keys = [acc.cache_path(dict(base, dur=[0.001, d])) for d in (1, 2, 3)]
                keys.append(acc.cache_path(dict(base, dur=[0.002, 1])))
                self.assertEqual(len(set(keys + [p0])), 5)
                self.assertEqual(acc.cache_path(dict(base, dur=[0.001, 2])), keys[1])
                self.assertIsNone(acc.cache_path(dict(base, window=16, dur=[0.001, 1])))
                # the unperturbed key is the first version's (existing caches stay valid)
                import hashlib
                h = hashlib.sha256()
                with open(src, "rb") as f:
                    h.update(f.read())
                h.update(repr(("fifo", [4, 8, 8, 8, 2, 10.0])).encode())
                self.assertEqual(p0, os.path.join(tmp, "exact-fifo-%s.json" % h.hexdigest()[:16]))

    def test_summary_on_hand_numbers(self):
        L = "w2"
        res = {(L, "fifo", 1, "exact"): _run(100.0, 200.0),
               (L, "fifo", 1, "short"): _run(101.0, 198.0),  # +1 / -1
               # draw 1: exact +4 / 0 / 0 / job |11-10|/10 = 10 % -> 5 %;
               # shortcut on it +2 / +1
               (L, "fifo", 1, "dur1"): _run(104.0, 200.0, jct=(11.0, 20.0)),
               (L, "fifo", 1, "sdur1"): _run(104.0 * 1.02, 202.0),
               # draw 2: exact -2 / -2 / +10 / 0; shortcut 0 / -2
               (L, "fifo", 1, "dur2"): _run(98.0, 196.0, span=1100.0),
               (L, "fifo", 1, "sdur2"): _run(98.0, 196.0 * 0.98),
               (L, "fifo", 1, "dur3"): {"timeout": 600.0},  # left out
               (L, "fifo", 1, "sdur3"): _run(1.0, 1.0)}
        s = acc.dur_summary(res, L, "fifo")
        self.assertEqual(s["draws"], 2)
        # floor: mean |.| over the draws: (4+2)/2, (0+2)/2, (0+10)/2, (5+0)/2
        for x, y in zip(s["floor"], (3.0, 1.0, 5.0, 2.5)):
            self.assertAlmostEqual(x, y)
        # trajectories avg +1, +2, 0: mean 1, sd 1, 4.303 / sqrt 3 = 2.484
        self.assertEqual(len(s["traj"]), 3)
        self.assertAlmostEqual(s["avg"][0], 1.0)
        self.assertAlmostEqual(s["avg"][1], 4.303 / 3 ** 0.5)
        # p95 -1, +1, -2: mean -2/3, sd sqrt(7/3) = 1.5275, half 3.7950
        self.assertAlmostEqual(s["p95"][0], -2.0 / 3)
        self.assertAlmostEqual(s["p95"][1], 4.303 * (7.0 / 3) ** 0.5 / 3 ** 0.5)
        self.assertAlmostEqual(s["abs"][0], 1.0)
        self.assertAlmostEqual(s["abs"][1], 4.0 / 3)
        # unperturbed shortcut vs each perturbed exact run: avg (101-104)/104,
        # (101-98)/98 -> mean +0.0883 %; p95 -1, +1.0204 -> +0.0102 %
        self.assertAlmostEqual(s["cross"][0], 50 * (-3 / 104.0 + 3 / 98.0))
        self.assertAlmostEqual(s["cross"][1], 50 * (-2 / 200.0 + 2 / 196.0))
        # intervals [-1.48, 3.48] and [-4.46, 3.13] leave +-3 % but hold 0;
        # 1 <= 1.5 x 3 and 4/3 <= 1.5 x 1: the floor's spread
        self.assertEqual(s["verdict"], "no bias shown; spread = the floor's")
        # smaller shortcut errors on the draws (+0.5 / -0.5, 0 / -1): avg +1,
        # +0.5, 0 -> mean 0.5 +- 1.242 = [-0.74, 1.74]; p95 -1, -0.5, -1 ->
        # -0.833 +- 4.303 x 0.2887 / sqrt 3 = [-1.55, -0.12]: within +-3 %
        res[(L, "fifo", 1, "sdur1")] = _run(104.0 * 1.005, 199.0)
        res[(L, "fifo", 1, "sdur2")] = _run(98.0, 196.0 * 0.99)
        self.assertEqual(acc.dur_summary(res, L, "fifo")["verdict"], "bias within 3 %")
        # no draws, or no exact run: no floor row
        self.assertIsNone(acc.dur_summary(res, L, "ls"))
        self.assertIsNone(acc.dur_summary({(L, "ls", 1, "dur1"): _run(1, 1)}, L, "ls"))


class _FakeRunner:
    """Runner's interface, in the test's process: records every spec it is
    handed and answers each with avg / p95 from `answer(spec)`."""

    def __init__(self, answer):
        self.specs, self.answer = [], answer

    def run_all(self, specs, done):
        for sp in specs:
            self.specs.append(sp)
            avg, p95 = self.answer(sp)
            done(sp, _run(avg, p95))


class TestUnpaired(unittest.TestCase):
    def test_welch_and_verdicts_on_hand_numbers(self):
        # exact 100, 102 (mean 101, s^2 2, s^2/n 1); shortcut 101, 103 (mean
        # 102, same): se = sqrt(1 + 1), df = (1 + 1)^2 / (1/1 + 1/1) = 2,
        # t(0.975, 2) = 0.95 sqrt(2 / (1 - 0.95^2)) = 4.30265 -> half-width
        # 6.0849 of a difference 1: +0.9901 % +- 6.0247 % of the exact mean
        s = acc.unpaired_stats([100.0, 102.0], [101.0, 103.0])
        t2 = 0.95 * (2 / (1 - 0.95 ** 2)) ** 0.5
        self.assertEqual((s["n"], s["k"]), (2, 2))
        self.assertAlmostEqual(s["exact"][0], 101.0)
        self.assertAlmostEqual(s["exact"][1], 2 ** 0.5)
        self.assertAlmostEqual(s["short"][0], 102.0)
        self.assertAlmostEqual(s["df"], 2.0)
        self.assertAlmostEqual(s["rel"], 100.0 / 101)
        self.assertAlmostEqual(s["half"], 100.0 * t2 * 2 ** 0.5 / 101, places=6)
        self.assertAlmostEqual(s["half"], 6.0247, places=3)
        # Welch's df, not a pooled n1 + n2 - 2 = 3: exact 98, 102 (s^2/n 4),
        # shortcut 101 x 3 (no spread): df = 4^2 / (4^2 / 1) = 1, t(0.975, 1)
        # = tan(0.475 pi) = 12.7062, se = 2 -> +1 % +- 25.412 %
        s = acc.unpaired_stats([98.0, 102.0], [101.0] * 3)
        self.assertAlmostEqual(s["df"], 1.0)
        self.assertAlmostEqual(s["rel"], 1.0)
        self.assertAlmostEqual(s["half"], 2 * math.tan(0.475 * math.pi), places=6)
        # exact draws needed: a half-width of H = max(3 - 1, 1) = 2 % of 100;
        # with no shortcut spread df = M - 1 and half = t(M - 1) sqrt(8 / M):
        # M = 10: t(9) 2.262 > sqrt(5) 2.236; M = 11: t(10) 2.228 <= 2.345
        self.assertEqual(s["need"], (11, 3))
        self.assertEqual(s["verdict"], "not resolved (need ~11 exact draws)")
        self.assertGreater(acc.t95(9), 5 ** 0.5)
        self.assertLessEqual(acc.t95(10), 5.5 ** 0.5)
        # where K limits (t(1) sd / sqrt 2 alone is over H): K' is the first K
        # with t(K - 1) ss / sqrt(K) <= H / sqrt 2, then M the first M with
        # welch_sd <= H. Exact 100, 102 against 101, 103: H = 2.0099 % of 101
        # = 2.03 -> K' = 7 (t(6) 2.447 x sqrt(2 / 7) = 1.308 <= 1.4355; K = 6:
        # 2.571 x sqrt(2 / 6) = 1.484)
        s = acc.unpaired_stats([100.0, 102.0], [101.0, 103.0])
        M, K = s["need"]
        self.assertEqual(K, 7)
        self.assertEqual(s["verdict"], "not resolved (need ~%d exact draws and K >= 7)" % M)
        H = (3 - 100.0 / 101) * 101 / 100
        self.assertLessEqual(acc.welch_sd(2 ** 0.5, M, 2 ** 0.5, 7)[0], H)
        self.assertGreater(acc.welch_sd(2 ** 0.5, M - 1, 2 ** 0.5, 7)[0], H)
        # shortcut 90, 110 (sd 14.14) against exact 100, 102: K' near
        # (1.96 x 14.14 / 1.4355)^2 = 373, the same two bounds
        s = acc.unpaired_stats([100.0, 102.0], [90.0, 110.0])
        M, K = s["need"]
        self.assertTrue(373 <= K <= 380, K)
        self.assertLessEqual(acc.welch_sd(2 ** 0.5, M, 200 ** 0.5, K)[0], H)
        self.assertGreater(acc.welch_sd(2 ** 0.5, M - 1, 200 ** 0.5, K)[0], H)
        # one exact draw: no interval; its sd taken from the shortcut's
        s = acc.unpaired_stats([100.0], [101.0, 103.0])
        self.assertAlmostEqual(s["rel"], 2.0)
        self.assertTrue(s["half"] != s["half"])
        self.assertTrue(s["verdict"].endswith("; sd from the shortcut's)"), s["verdict"])
        # rel 2 > 3 - 2: H = |rel| = 2 (leaving 0 comes first); K' = 7 (t(K -
        # 1) / sqrt(K) <= 1: 2.571 / sqrt 6 = 1.050, 2.447 / sqrt 7 = 0.925)
        M, K = s["need"]
        self.assertEqual(K, 7)
        self.assertLessEqual(acc.welch_sd(2 ** 0.5, M, 2 ** 0.5, 7)[0], 2.0)
        self.assertGreater(acc.welch_sd(2 ** 0.5, M - 1, 2 ** 0.5, 7)[0], 2.0)
        self.assertEqual(acc.unpaired_stats([], [1.0, 2.0])["verdict"], "no exact draws cached")
        self.assertEqual(acc.first_at_least(2, lambda m: m >= 37), 37)
        self.assertEqual(acc.first_at_least(5, lambda m: True), 5)
        # verdicts: inside +-3 % first, then an interval that leaves 0
        self.assertEqual(acc.unpaired_verdict(1.0, 1.5), "expected error within 3 %")
        self.assertEqual(acc.unpaired_verdict(-1.0, 0.5), "expected error within 3 %")
        self.assertEqual(acc.unpaired_verdict(4.0, 0.5), "bias shown")
        self.assertEqual(acc.unpaired_verdict(-5.0, 4.0), "bias shown")
        self.assertIsNone(acc.unpaired_verdict(1.0, 2.5))  # [-1.5, 3.5]
        self.assertIsNone(acc.unpaired_verdict(1.0, float("nan")))

    def test_combined_estimate_on_hand_numbers(self):
        # shortcut = exact + 1 on every pair: the paired estimate has no
        # spread (Var T = 0) and C = (var e - cov(s, e)) / n = 0, so w = Var U
        # / Var U = 1 and the combination is the paired mean, 1 of 102 =
        # +0.9804 % +- 0, whatever the other shortcut draws say (here +8)
        c = acc.combined_stats([(100.0, 101.0), (102.0, 103.0), (104.0, 105.0)], [110.0, 110.0])
        self.assertEqual((c["n"], c["k"]), (3, 2))
        self.assertAlmostEqual(c["r"], 1.0)
        self.assertAlmostEqual(c["w"], 1.0)
        self.assertAlmostEqual(c["paired"], 100.0 / 102)
        self.assertAlmostEqual(c["unpaired"], 800.0 / 102)
        self.assertAlmostEqual(c["rel"], 100.0 / 102)
        self.assertAlmostEqual(c["half"], 0.0)
        self.assertEqual(c["verdict"], "expected error within 3 %")
        # uncorrelated pairs: exact 100, 102, 100, 102 (mean 101, var 4/3),
        # shortcut 101, 101, 103, 103 (mean 102, var 4/3), cov 0; s - e = 1,
        # -1, 3, 1 (mean 1, var 8/3): Var T = 2/3; others 100, 104 (mean 102,
        # var 8): U = 1, Var U = 8/2 + (4/3)/4 = 13/3; C = (4/3 - 0)/4 = 1/3;
        # w = (13/3 - 1/3) / (2/3 + 13/3 - 2/3) = 12/13; estimate 1; variance
        # (Var T Var U - C^2) / (Var T + Var U - 2 C) = (26/9 - 1/9) / (13/3)
        # = 25/39; half t(0.975, 2) sqrt(25/39) = 3.4448 -> 3.4107 % of 101
        c = acc.combined_stats([(100.0, 101.0), (102.0, 101.0), (100.0, 103.0), (102.0, 103.0)],
                               [100.0, 104.0])
        t2 = 0.95 * (2 / (1 - 0.95 ** 2)) ** 0.5
        self.assertAlmostEqual(c["r"], 0.0)
        self.assertAlmostEqual(c["w"], 12.0 / 13)
        self.assertAlmostEqual(c["paired"], 100.0 / 101)
        self.assertAlmostEqual(c["unpaired"], 100.0 / 101)
        self.assertAlmostEqual(c["rel"], 100.0 / 101)
        self.assertAlmostEqual(c["half"], 100.0 * t2 * (25.0 / 39) ** 0.5 / 101, places=6)
        self.assertAlmostEqual(c["half"], 3.4107, places=3)
        self.assertEqual(c["verdict"], "not resolved")  # [-2.42, +4.40]
        # never wider than the sharper estimate alone: the paired half-width
        # is t(2) sqrt(2/3) = 3.5128 of 101, the unpaired t(2) sqrt(13/3)
        self.assertLess(c["half"], 100.0 * t2 * (2.0 / 3) ** 0.5 / 101)
        # a shortcut 5 above on every pair and on the others: bias shown
        c = acc.combined_stats([(100.0, 105.0), (101.0, 106.5), (99.0, 103.5)],
                               [104.0, 106.0, 105.0])
        self.assertEqual(c["verdict"], "bias shown")
        self.assertGreater(c["rel"] - c["half"], 0)
        # too few: numbers nan, the verdict says why
        c = acc.combined_stats([(100.0, 101.0), (102.0, 103.0)], [101.0, 102.0])
        self.assertTrue(c["rel"] != c["rel"])
        self.assertEqual(c["verdict"], "too few draws (2 paired, 2 more shortcut; need 3 and 2)")

    def test_mode_reads_cached_exact_runs_and_runs_only_shortcuts(self):
        import csv
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "w.csv")
            with open(src, "w", newline="") as f:
                csv.writer(f).writerows(TestRunTimeFloor.ROWS)
            cache = os.path.join(tmp, "cache")
            os.mkdir(cache)
            with mock.patch.dict(os.environ, {"NS_ACC_CACHE": cache}):
                loads = [("w", src, [4, 8, 8, 8, 2, 10.0], 4, 1000.0, 1)]
                specs = acc.build_specs(loads, ["fifo"], 16, 600.0, 0, 0, 0.001, 4)
                fake = _FakeRunner(lambda sp: (100.0 + sp["dur"][1], 200.0))
                # an empty cache: N = 0, and the runner gets the K = 3 shortcut runs only
                with contextlib.redirect_stdout(io.StringIO()):
                    out = acc.unpaired(specs, 3, 2, 16, 1, 600.0, runner=fake)
                o = out[("w", "fifo")]
                self.assertEqual((o["avg"]["n"], o["avg"]["k"]), (0, 3))
                self.assertEqual(o["avg"]["verdict"], "no exact draws cached")
                self.assertEqual([(sp["window"], sp["kind"]) for sp in fake.specs],
                                 [(16, "sdur1"), (16, "sdur2"), (16, "sdur3")])
                self.assertEqual(os.listdir(cache), [])  # nothing written either
                # cached: the unperturbed exact run, draws 1 and 3 at 0.001, draw
                # 1 at 0.002; with NS_ACC_CHAOS_DUR_DRAWS = 2 the mode takes the
                # first two (draw 3 is past 2, 0.002 another half-width)
                exact = {sp["kind"]: sp for sp in specs if sp["window"] == 0}
                for kind, sp, avg in (("exact", exact["exact"], 90.0),
                                      ("dur1", exact["dur1"], 94.0),
                                      ("dur3", exact["dur3"], 1e6),
                                      ("x", dict(exact["dur1"], dur=[0.002, 1]), 1e6)):
                    with open(acc.cache_path(sp), "w") as f:
                        json.dump(_run(avg, 200.0), f)
                fake = _FakeRunner(lambda sp: (100.0 + sp["dur"][1], 200.0))
                with contextlib.redirect_stdout(io.StringIO()) as text:
                    o = acc.unpaired(specs, 3, 2, 16, 1, 600.0, runner=fake)[("w", "fifo")]
                self.assertIn("| w | fifo | avg | 2 | 3 |", text.getvalue())
                self.assertEqual([sp["window"] for sp in fake.specs], [16, 16, 16])
                self.assertEqual([(d, a) for d, a, _ in o["exact"]], [(0, 90.0), (1, 94.0)])
                self.assertEqual([(d, a) for d, a, _ in o["short"]],
                                 [(1, 101.0), (2, 102.0), (3, 103.0)])
                # exact mean 92, shortcut 102: +10.87 % of the exact mean
                self.assertAlmostEqual(o["avg"]["rel"], 1000.0 / 92)
                self.assertEqual(o["p95"]["rel"], 0.0)
                self.assertEqual(o["p95"]["verdict"], "expected error within 3 %")
                # combined: draw 1 is the only draw both models ran (1 pair)
                self.assertEqual((o["avg combined"]["n"], o["avg combined"]["k"]), (1, 2))
                self.assertIn("| w | fifo | avg | 1 | 2 | - |", text.getvalue())

    def test_command_with_an_empty_cache(self):
        # the whole command on a 30-job Philly window: N = 0 for every row,
        # K = 2 shortcut runs each, the cache left empty
        import subprocess
        import tempfile
        if not support.data_path("traces", "philly-adaptdl.csv"):
            self.skipTest("shared data not found (NS_DATA_DIR): philly-adaptdl.csv")
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, NS_ACC_UNPAIRED="2", NS_ACC_CACHE=tmp, NS_ACC_PAR="1",
                       NS_ACC_POLICIES="fifo", NS_ACC_WINDOWS="1", NS_ACC_JOBS="30",
                       NS_ACC_JSON=os.path.join(tmp, "u.json"),
                       NS_DATA_DIR=os.path.dirname(os.path.dirname(
                           support.data_path("traces", "philly-adaptdl.csv"))))
            p = subprocess.run([sys.executable, _PATH], env=env, capture_output=True,
                               text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("| fifo | avg | 0 | 2 |", p.stdout)
            self.assertEqual(os.listdir(tmp), ["u.json"])
            with open(os.path.join(tmp, "u.json")) as f:
                rows = json.load(f)
            self.assertEqual([(r["policy"], len(r["exact"]), len(r["short"])) for r in rows],
                             [("fifo", 0, 2)])
            bad = subprocess.run([sys.executable, _PATH], env=dict(env, NS_ACC_UNPAIRED="x2"),
                                 capture_output=True, text=True, timeout=60)
            self.assertNotEqual(bad.returncode, 0)
            self.assertIn("NS_ACC_UNPAIRED", bad.stderr)
            self.assertIn("'x2'", bad.stderr)


class TestRecord(unittest.TestCase):
    """bench/accuracy-exact.tsv: exact runs kept in the project (NS_ACC_RECORD=1
    writes it from NS_ACC_CACHE; every mode reads it where the cache has no
    file for a run)."""

    def _specs(self, tmp):
        import csv
        src = os.path.join(tmp, "w.csv")
        with open(src, "w", newline="") as f:
            csv.writer(f).writerows(TestRunTimeFloor.ROWS)
        loads = [("philly w", src, [4, 8, 8, 8, 2, 10.0], 4, 1000.0, 1)]
        return acc.build_specs(loads, ["fifo"], 16, 600.0, 0, 0, 0.001, 3)

    def test_round_trip_and_what_reads_it(self):
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            cache, rec = os.path.join(tmp, "cache"), os.path.join(tmp, "rec.tsv")
            os.mkdir(cache)
            with mock.patch.dict(os.environ, {"NS_ACC_CACHE": cache, "NS_ACC_RECORD_FILE": rec}):
                specs = self._specs(tmp)
                exact = {sp["kind"]: sp for sp in specs if sp["window"] == 0}
                # cached: the unperturbed run and draw 2 (avg 1/3: repr keeps every bit)
                for kind, avg in (("exact", 1.0 / 3), ("dur2", 94.0)):
                    with open(acc.cache_path(exact[kind]), "w") as f:
                        json.dump(_run(avg, 200.0, span=5e9), f)
                self.assertEqual(acc.record(specs), (2, 0))
                self.assertEqual(acc.record(specs), (0, 2))  # again: nothing new, nothing lost
                with open(rec) as f:
                    lines = [ln.rstrip("\n").split("\t") for ln in f if not ln.startswith("#")]
                self.assertEqual([tuple(ln[1:5]) for ln in lines],
                                 [("philly w", "fifo", "1", "exact"),
                                  ("philly w", "fifo", "1", "dur2")])
                self.assertEqual(lines[0][0], os.path.basename(acc.cache_path(exact["exact"]))[:-5])
                # the cache gone, the record answers: the same numbers, no per-job JCTs
                for name in os.listdir(cache):
                    os.remove(os.path.join(cache, name))
                r = acc.exact_of(exact["exact"])
                self.assertEqual((r["avg"], r["p95"], r["span"], r["jct"]),
                                 (1.0 / 3, 200.0, 5e9, None))
                self.assertIsNone(acc.exact_of(exact["dur1"]))
                self.assertIsNone(acc.exact_of(dict(exact["dur2"], window=16)))
                e = acc.compare(_run(0.5, 210.0, span=5e9), r)
                self.assertAlmostEqual(e[0], 50.0)
                self.assertAlmostEqual(e[1], 5.0)
                self.assertTrue(math.isnan(e[3]))
                # the unpaired mode pairs the recorded draws with its shortcut draws
                fake = _FakeRunner(lambda sp: (100.0, 200.0))
                with contextlib.redirect_stdout(io.StringIO()):
                    o = acc.unpaired(specs, 3, 3, 16, 1, 600.0, runner=fake)[("philly w", "fifo")]
                self.assertEqual([(d, a) for d, a, _ in o["exact"]], [(0, 1.0 / 3), (2, 94.0)])
                # a cached run that disagrees with the record: the exact model changed
                with open(acc.cache_path(exact["exact"]), "w") as f:
                    json.dump(_run(0.34, 200.0, span=5e9), f)
                with self.assertRaises(SystemExit) as cm:
                    acc.record(specs)
                self.assertIn("differs from the record", str(cm.exception))
                self.assertIn(lines[0][0], str(cm.exception))
                self.assertEqual(len(acc.read_record(rec)), 2)  # the record left as it was

    def test_record_matches_the_exact_model(self):
        # the committed record holds runs of the exact model as it was when
        # they were recorded; re-run its cheap ones (under 1 s of CPU) and
        # compare every number: a change to the exact model fails here
        trace = support.data_path("traces", "philly-adaptdl.csv")
        if not trace:
            self.skipTest("shared data not found (NS_DATA_DIR): philly-adaptdl.csv")
        import queue
        import tempfile
        rows = acc.read_record(acc.record_path())
        cheap = {k: r for k, r in rows.items()
                 if float(r["cpu_s"]) < 1.0 and (r["seed"], r["run"]) == ("1", "exact")}
        self.assertGreaterEqual(len(cheap), 2, "the record has no cheap run to check")
        pols = sorted({r["policy"] for r in cheap.values()})
        data = os.path.dirname(os.path.dirname(trace))
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.dict(os.environ, {"NS_DATA_DIR": data}):
            wins = acc.windows(3, 1500, tmp, 256, 1.25, [20000, 45000, 70000])
            loads = [("philly %s +%d" % (ts, nj), path, [4, 8, 8, 8, 2, 10.0], nj, span, 1)
                     for path, ts, nj, span in wins]
            specs = [sp for sp in acc.build_specs(loads, pols, 16, 60.0, 0, 0, 0.001, 0)
                     if acc.cache_key(sp) in cheap]
            self.assertGreaterEqual(len(specs), 2)
            for sp in specs:
                q = queue.Queue()
                acc.run_one(q, dict(sp, limit=None))
                r, want = q.get(), cheap[acc.cache_key(sp)]
                self.assertEqual((repr(r["avg"]), repr(r["p95"]), repr(r["span"])),
                                 (want["avg_ms"], want["p95_ms"], want["makespan_ms"]),
                                 "%s %s" % (sp["label"], sp["policy"]))


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
