"""netsched.Policy: the policy object through the bindings, with the numbers
of tests/unit/test_policy.c, and the docstring example run as a doctest."""

import doctest
import math
import unittest

import netsched
from netsched import Cluster, Job, Placement, Policy, Status, Tier
from netsched import policy as pol

from . import support

H = 3600e3


def cluster16():
    """2 leaves x 2 servers x 4 GPUs: server s holds GPUs 4s..4s+3."""
    return Cluster.leaf_spine(2, 2, 2, 4, 1, 10.0)


@support.requires("ns_policy_new", "ns_policy_decide")
class TestPolicy(unittest.TestCase):
    def test_presets_are_the_simulators(self):
        names = [n for n, _ in pol.presets()]
        self.assertEqual(len(names), 21)
        self.assertEqual(names, [netsched.sim.policy_name(i) for i in range(21)])
        self.assertIn("cassini-lwf-1", names)
        parts = pol.preset_parts("fifo")
        self.assertEqual(parts["order"], pol.Order.FIFO)
        self.assertEqual(parts["placement"], pol.PlacementKind.FIRST_FIT)
        self.assertFalse(parts["backfill"])
        self.assertEqual(pol.preset_parts("srsf-2")["admit_n"], 2)
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            pol.preset_parts("bogus")
        self.assertIn("'bogus'", str(cm.exception))
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            Policy("nope")
        self.assertIn("'nope'", str(cm.exception))
        self.assertNotIn("did you mean", str(cm.exception))
        # the library's "did you mean" reaches Python, and closest_name is its rule
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            Policy("2d-gitins")
        self.assertIn("'2d-gitins' is not a policy; did you mean '2d-gittins'? (valid: ff, ",
                      str(cm.exception))
        self.assertEqual(netsched.closest_name("2d-gitins", names), "2d-gittins")
        self.assertEqual(netsched.closest_name("fff", names), "ff")
        self.assertIsNone(netsched.closest_name("nonsense", names))
        self.assertIsNone(netsched.closest_name("x", []))
        with self.assertRaises(TypeError):
            netsched.closest_name("x", ["ff", None])  # type: ignore[list-item]

    def test_backfill_and_head_of_line(self):
        # 0: 4 GPUs @ 0, 1: 8 @ 1, 2: 8 @ 2, 3: 1 @ 3. First-fit: 0 -> 0-3,
        # 1 -> 4-11, 2 waits, "ff" backfills 3 -> 12; "fifo" never offers 3.
        c = cluster16()
        jobs = [Job("a", 4), Job("b", 8), Job("c", 8), Job("d", 1)]
        q = pol.Queue()
        for i, j in enumerate(jobs):
            self.assertEqual(q.add(j, id=10 + i, arrival_ms=float(i)), i)
        self.assertEqual(len(q), 4)
        with Policy("ff") as p:
            d = p.decide(c, q, 5.0)
            self.assertEqual(d.started, [0, 1, 3])
            self.assertEqual(d.placement(0).gpus, [0, 1, 2, 3])
            self.assertEqual(d.gpus(1), list(range(4, 12)))
            self.assertEqual(d.placement(2).gpus, [12])
            self.assertEqual(d.status(2), Status.ENOSPACE)
            self.assertEqual(len(d), 4)
            self.assertTrue(math.isinf(d.next_ms))
            self.assertIsNone(d.shift_ms(0, jobs[0]))
        self.assertEqual(c.free_gpu_count, 16)  # left as it was
        with Policy("fifo") as p:
            d = p.decide(c, q, 5.0)
            self.assertEqual(d.started, [0, 1])
            self.assertEqual(d.status(3), Status.ENOTFOUND)
            with self.assertRaises(IndexError):
                d.status(4)

    def test_srsf_order_and_parts(self):
        # SRSF key = GPUs x ideal: A 8 x 100 = 800, B 4 x 150 = 600 -> B first.
        c = cluster16()
        a, b = Job("A", 8), Job("B", 4)
        q = pol.Queue()
        q.add(a, 1, 0.0, ideal_ms=100.0)
        q.add(b, 2, 1.0, ideal_ms=150.0)
        p = Policy("ff")
        p.set_order("SRSF")
        self.assertEqual(p.name, "custom")
        self.assertEqual(p.order, pol.Order.SRSF)
        self.assertAlmostEqual(p.order_key(q, 0), 800.0)
        d = p.decide(c, q, 0.0)
        self.assertEqual(d.started, [1, 0])
        self.assertEqual(d.placement(0).gpus, [0, 1, 2, 3])
        with self.assertRaises(netsched.StateError):
            p.set_kappa(2)  # parts are fixed after the first decision
        # a failed add leaves the queue as it was
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            q.add(Job("C", 1), 3, 2.0, ideal_ms=-1.0)
        self.assertIn("ideal", str(cm.exception))
        self.assertEqual(len(q), 2)

    def test_dally_retry_and_report_back(self):
        # Every server has 1 free GPU; a 2-GPU job arrived at 0 is declined
        # at 1 s (12 h machine timer): retry at 12 h; suspended at 2 h
        # (reported back): 14 h.
        c = cluster16()
        c.occupy([g for g in range(16) if g % 4 != 3])
        j = Job("two", 2)
        q = pol.Queue()
        q.add(j, 7, 0.0)
        p = Policy("dally")
        self.assertTrue(p.has_tuner)
        d = p.decide(c, q, 1000.0)
        self.assertEqual(d.started, [])
        self.assertEqual(d.status(0), Status.ENOSPACE)
        self.assertAlmostEqual(d.retry_ms(0), 12 * H, delta=1e-6)
        self.assertAlmostEqual(d.next_ms, 12 * H, delta=1e-6)
        p.suspended(j, 2 * H)
        self.assertAlmostEqual(p.decide(c, q, 2 * H).retry_ms(0), 14 * H, delta=1e-6)
        p.finished(j, 2 * H)
        d = p.decide(c, q, 12 * H + 1)
        self.assertEqual(d.started, [0])
        pl = d.placement(0)
        pl.bind(c)
        self.assertEqual(pl.gpus, [3, 7])
        self.assertEqual(pl.tier, Tier.RACK)
        # report-back progress: Nw_sens = 100 ms x 10 / 2000 ms = 0.5
        b = Job("B", 1)
        b.set_compute_ms(40.0, 60.0)
        q.add(b, 8, 5.0)
        p.progress(b, 10, 2000.0, 12 * H + 2)
        self.assertAlmostEqual(p.order_key(q, 1), 0.5)
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            p.progress(b, -1, 1.0, 12 * H + 3)
        self.assertIn("iters_done", str(cm.exception))

    def test_python_placement_callback(self):
        c = cluster16()
        j = Job("x", 2)
        q = pol.Queue()
        q.add(j, 1, 0.0)
        p = Policy("ff")

        def place(cluster, job, out):
            for g in (15, 14):
                out.add_gpu(g)

        p.set_place_fn(place)
        self.assertEqual(p.placement, pol.PlacementKind.CUSTOM)
        d = p.place(c, q, 0, 0.0)
        self.assertEqual(d.placement(0).gpus, [15, 14])

        def broken(cluster, job, out):
            raise RuntimeError("boom")

        p2 = Policy("ff")
        p2.set_place_fn(broken)
        with self.assertRaises(RuntimeError):
            p2.decide(c, q, 0.0)

    def test_commit_the_decision_then_the_next(self):
        # The docstring's loop: commit what was decided, then decide again.
        c = cluster16()
        a, b = Job("a", 8), Job("b", 8)
        q = pol.Queue()
        q.add(a, 1, 0.0)
        p = Policy("best-fit")
        d = p.decide(c, q, 0.0)
        c.commit(a, d.placement(0))
        p.started(a, 0.0)
        q.clear()
        q.add(b, 2, 1.0)
        d = p.decide(c, q, 1.0)
        self.assertEqual(sorted(d.placement(0).gpus), list(range(8, 16)))
        self.assertEqual(c.free_gpu_count, 8)

    def test_save_and_load_dally_state(self):
        # Two machine accepts (waited 5 s at 5 s, 7 s at 9 s) survive a
        # restart: machine timer 6000 + 2 x 1414.2136 = 8828.4271 ms.
        c = cluster16()
        p = Policy("dally")
        for jid, arrival, now in ((1, 0.0, 5000.0), (2, 2000.0, 9000.0)):
            q = pol.Queue()
            q.add(Job("j%d" % jid, 2), jid, arrival)
            self.assertEqual(p.decide(c, q, now).started, [0])
        state = p.save()
        self.assertEqual(state, b"ns_policy 1\npolicy dally\nwait 0 2 5000 5000\n"
                                b"wait 0 2 7000 9000\n")
        r = Policy("dally")
        r.load(state)
        self.assertEqual(r.save(), state)
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            r.load(b"ns_policy 1\npolicy ff\n")
        self.assertIn("'ff'", str(cm.exception))
        self.assertEqual(r.save(), state)  # unchanged
        with self.assertRaises(TypeError):
            r.load("text")  # type: ignore[arg-type]

    def test_preemption_suspends_and_starts(self):
        """tests/unit/test_policy_preempt.c's first case: a full 4-GPU server
        runs L (4 GPUs, 4 x 1000 s = 4000 GPU-s attained, above the first
        2d-las threshold of 3250 GPU-s); N (4 GPUs) arrives at 1000 s. L is
        demoted to Q1, N (Q0) gets the 4 GPUs: suspend L, start N on 0-3;
        next check at 1000 + floor(3250 / 4) = 1812 s. Below the threshold
        (2000 GPU-s) nothing changes; "ff" never suspends."""
        for preset, attained, suspended, started in (("2d-las", 4000e3, [0], [1]),
                                                      ("2d-las", 2000e3, [], []),
                                                      ("ff", 4000e3, [], [])):
            c = Cluster.leaf_spine(1, 0, 1, 4, 0, 10.0)
            L, N = Job("L", 4), Job("N", 4)
            c.commit(L, Placement([0, 1, 2, 3]))
            q = pol.Queue()
            self.assertEqual(q.add(L, id=1, arrival_ms=0.0, running=True,
                                   attained_ms=attained), 0)
            self.assertEqual(q.add(N, id=2, arrival_ms=1000e3), 1)
            self.assertTrue(q.running(0))
            self.assertFalse(q.running(1))
            d = Policy(preset).decide(c, q, now_ms=1000e3)
            self.assertEqual(d.suspended, suspended, preset)
            self.assertEqual(d.started, started, preset)
            self.assertEqual(d.status(0), Status.ENOSPACE if suspended else Status.OK)
            if started:
                self.assertEqual(d.gpus(0), [0, 1, 2, 3])
                self.assertAlmostEqual(d.next_ms, 1812e3)
            self.assertEqual([j.name for j in c.committed_jobs], ["L"])  # decide proposes only
        q = pol.Queue()
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            q.add(Job("x", 1), id=1, arrival_ms=0.0, running=True, attained_ms=-1.0)
        self.assertIn("attained_ms", str(cm.exception))
        self.assertEqual(len(q), 0)  # the failed add left the queue as it was
        p = Policy("2d-gittins")
        p.set_las_queues([60e3, 200e3])
        p.set_starvation(2.0)
        p.set_gittins_samples([10e3, 20e3, 40e3])
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            p.set_las_queues([5.0, 4.0])
        self.assertIn("thresholds_gpu_ms[1]", str(cm.exception))

    @support.requires("ns_policy_set_dally_lease", "ns_decision_renew_count")
    def test_dally_leases_renew_suspend_and_wake(self):
        """tests/unit/test_policy_lease.c's cases: leases of 60 s, first-fit,
        measured-Nw_sens order. Two servers of 4 GPUs: O holds 6-7 outside
        the queue, R1 (2 GPUs) runs on 0-1 and R2 (2) on 2-3, first seen at
        0 (leases end at 60 s: next_ms). At 60 s R1 measured 0.9, R2 0.95,
        W (4 GPUs, 0.5) waits: W takes the 2 free GPUs and R2's (the latest
        expired after it): start W on 2-5, suspend R2, renew R1; next_ms is
        the new leases' end, 120 s."""
        c = Cluster.leaf_spine(1, 0, 2, 4, 0, 10.0)
        O, R1, R2, W = Job("O", 2), Job("R1", 2), Job("R2", 2), Job("W", 4)
        c.commit(R1, Placement([0, 1]))
        c.commit(R2, Placement([2, 3]))
        c.commit(O, Placement([6, 7]))
        p = Policy("ff")
        p.set_order("NW_SENS")
        p.set_dally_lease(60e3)
        self.assertEqual(p.dally_lease_ms, 60e3)
        self.assertIsNone(p.lease(1))
        q = pol.Queue()
        q.add(R1, id=1, arrival_ms=0.0, running=True)
        q.add(R2, id=2, arrival_ms=0.0, running=True)
        d = p.decide(c, q, now_ms=0.0)
        self.assertEqual((d.renewed, d.suspended, d.started), ([], [], []))
        self.assertEqual(d.next_ms, 60e3)
        self.assertEqual(p.lease(2), (0.0, 60e3))
        q.clear()
        q.add(R1, id=1, arrival_ms=0.0, running=True, nw_sens=0.9)
        q.add(R2, id=2, arrival_ms=0.0, running=True, nw_sens=0.95)
        q.add(W, id=3, arrival_ms=5e3, nw_sens=0.5)
        d = p.decide(c, q, now_ms=60e3)
        self.assertEqual(d.renewed, [0])
        self.assertEqual(d.suspended, [1])
        self.assertEqual(d.started, [2])
        self.assertEqual(d.gpus(0), [2, 3, 4, 5])
        self.assertEqual([d.status(i) for i in range(3)], [Status.OK, Status.ENOSPACE, Status.OK])
        self.assertEqual(d.next_ms, 120e3)
        self.assertIsNone(p.lease(2))
        self.assertEqual(p.lease(1), (60e3, 120e3))
        self.assertEqual(p.lease(3), (60e3, 120e3))
        # the preset's default, and bad input named as the caller wrote it
        self.assertEqual(Policy("dally").dally_lease_ms, 1200e3)
        p2 = Policy("dally")
        for bad, text in ((-1.0, "-1"), (999.0, "999"), (math.nan, "nan")):
            with self.assertRaises(netsched.InvalidArgumentError) as cm:
                p2.set_dally_lease(bad)
            self.assertIn("lease_ms", str(cm.exception))
            self.assertIn(text, str(cm.exception))
        self.assertEqual(p2.dally_lease_ms, 1200e3)  # a failed call changed nothing
        with self.assertRaises(netsched.StateError):
            p.set_dally_lease(2000.0)  # fixed after the first decision

    @support.requires("ns_policy_preempt")
    def test_dally_pass_preemption(self):
        """tests/unit/test_policy_lease.c's pass-by-pass case: V1 (4 GPUs,
        Nw_sens 0.9) on 0-3, V2 (2, 0.99) on 4-5, W (4, 0.5) waits: it takes
        V2's GPUs and the free 6-7 (first-fit 4-7), V1 keeps running; ask
        again at once. A non-Nw_sens policy is refused naming itself."""
        c = Cluster.leaf_spine(1, 0, 2, 4, 0, 10.0)
        V1, V2, W = Job("V1", 4), Job("V2", 2), Job("W", 4)
        c.commit(V1, Placement([0, 1, 2, 3]))
        c.commit(V2, Placement([4, 5]))
        p = Policy("ff")
        p.set_order("NW_SENS")
        q = pol.Queue()
        q.add(W, id=3, arrival_ms=5e3, nw_sens=0.5)
        q.add(V1, id=1, arrival_ms=0.0, running=True, nw_sens=0.9)
        q.add(V2, id=2, arrival_ms=1e3, running=True, nw_sens=0.99)
        d = p.preempt(c, q, now_ms=30e3)
        self.assertEqual((d.started, d.suspended, d.gpus(0)), ([0], [2], [4, 5, 6, 7]))
        self.assertEqual(d.next_ms, 30e3)
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            Policy("ff").preempt(c, q, now_ms=30e3)
        self.assertIn("policy 'ff'", str(cm.exception))

    def test_clone_and_set_preset(self):
        """tests/unit/test_policy.c's clone case: srsf-2 with kappa 3 decided
        once; its clone keeps the parts (custom, kappa 3, SRSF(2)) and can
        still be set; a preset replaces the parts and the name."""
        p = Policy("srsf-2")
        p.set_kappa(3)
        p.decide(cluster16(), pol.Queue(), now_ms=0.0)
        k = p.clone()
        self.assertEqual((k.name, k.kappa, k.order, k.admission),
                         ("custom", 3, pol.Order.SRSF, (pol.Admission.SRSF, 2)))
        k.set_order(pol.Order.FIFO)
        with self.assertRaises(netsched.StateError):
            p.set_order(pol.Order.FIFO)
        k.set_preset("cassini-lwf-1")
        self.assertEqual((k.name, k.kappa, k.cassini), ("cassini-lwf-1", 1, True))
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            k.set_preset("nope")
        self.assertIn("'nope'", str(cm.exception))
        self.assertEqual(k.name, "cassini-lwf-1")

    def test_admission(self):
        """tests/unit/test_policy.c's admission case: SRSF(1) waits with one
        other all-reduce on a link; AdaDUAL (b = 1, eta = 0: threshold 0.5)
        starts 100 new bytes against 300 left (1/3), not 200 (2/3)."""
        self.assertTrue(Policy("srsf-1").admit(100, others_per_link=[0, 0]))
        self.assertFalse(Policy("srsf-1").admit(100, others_per_link=[0, 1]))
        self.assertTrue(Policy("srsf-2").admit(100, others_per_link=[1, 1]))
        ad = Policy("ada-srsf")
        self.assertTrue(ad.admit(100, tasks_per_server=[1, 0], remaining_bytes=[300, 0]))
        self.assertFalse(ad.admit(200, tasks_per_server=[1, 0], remaining_bytes=[300, 0]))
        self.assertTrue(Policy("ff").admit(100, others_per_link=[5]))
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            Policy("srsf-1").admit(100, others_per_link=[0, -1])
        self.assertIn("others_per_link[1]", str(cm.exception))

    @support.requires("ns_policy_report_allreduce")
    def test_cassini_drift_readjustment(self):
        """tests/unit/test_policy_drift.c's fabric: A on GPUs {0, 2}, B on
        {1, 3} share server 0's and 1's NIC ports (one merged 10 Gbps link);
        both iterate 100 ms, all-reduce 50 ms at C. B's slot 1050: ideal
        all-reduce starts 1100 + k 100, threshold 5 ms. 1304: nothing; 1306:
        re-ranked, A 0 and B 50 (the worked optimum); then the gap of 10
        iterations (1406: nothing). WAIT: a hold until the next slot after
        the all-reduce alone ends (1356 -> 1450)."""
        c = Cluster.leaf_spine(1, 0, 3, 2, 0, 10.0)
        c.set_nic_ports(1, 10.0)
        a, b, x = (Job(n, 2, iteration_ms=100, phases=[(50, 0), (50, 10)]) for n in "ABC")
        for j, g in ((a, [0, 2]), (b, [1, 3]), (x, [4, 5])):
            c.commit(j, Placement(g))

        def scheduled(rule):
            p = Policy("cassini-ff")
            p.set_cassini_drift_rule(rule)
            for j, slot in ((a, 1000), (b, 1050), (x, 0)):
                p.report_iteration(j, 50, 50)
                p.report_shifted(j, slot)
            return p

        p = scheduled("readjust")
        r = p.report_allreduce(c, b, 1304)
        self.assertEqual(r.action, pol.Drift.NONE)
        self.assertTrue(math.isnan(r.hold_until_ms))
        self.assertIsNone(r.decision.readjust_shift_ms(b))
        r = p.report_allreduce(c, b, 1306, out=r.decision)
        self.assertEqual(r.action, pol.Drift.SHIFTS)
        self.assertAlmostEqual(r.decision.readjust_shift_ms(a), 0.0, places=9)
        self.assertAlmostEqual(r.decision.readjust_shift_ms(b), 50.0, places=9)
        self.assertIsNone(r.decision.readjust_shift_ms(x))  # shares no link with B
        self.assertEqual(p.report_allreduce(c, b, 1406).action, pol.Drift.NONE)  # the gap
        self.assertEqual(p.readjust_count, 1)
        # C alone: nothing to re-rank, its schedule is dropped
        self.assertEqual(p.report_allreduce(c, x, 60).action, pol.Drift.DROPPED)
        self.assertEqual(p.readjust_count, 2)
        w = scheduled(pol.DriftRule.WAIT)
        r = w.report_allreduce(c, b, 1306)
        self.assertEqual(r.action, pol.Drift.HOLD)
        self.assertAlmostEqual(r.hold_until_ms, 1450.0, places=9)
        # bad input: the Python argument named, the value quoted, nothing changed
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            p.report_allreduce(c, b, -1.0)
        self.assertIn("Policy.report_allreduce", str(cm.exception))
        self.assertIn("start_ms", str(cm.exception))
        self.assertIn("-1", str(cm.exception))
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            p.report_iteration(b, float("nan"), 50)
        self.assertIn("compute_ms", str(cm.exception))
        with self.assertRaises(netsched.NotFoundError) as cm:
            p.report_shifted(Job("stranger", 2), 10.0)
        self.assertIn("'stranger'", str(cm.exception))
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            Policy("cassini-ff").set_cassini_drift_rule("later")
        self.assertIn("rule", str(cm.exception))
        self.assertIn("'later'", str(cm.exception))
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            Policy("cassini-ff").set_cassini_drift(1.5)
        self.assertIn("1.5", str(cm.exception))
        self.assertEqual(p.readjust_count, 2)
        # a finished job is forgotten
        p.finished(b, 9000.0)
        with self.assertRaises(netsched.NotFoundError):
            p.report_allreduce(c, b, 9006)

    def test_docstring_example(self):
        failures, tried = doctest.testmod(pol, verbose=False)[:2]
        self.assertGreater(tried, 5)
        self.assertEqual(failures, 0)


if __name__ == "__main__":
    unittest.main()
