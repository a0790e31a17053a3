"""Dally through the bindings: the delay tuner (Algorithm 2), offers
(Algorithm 1), the baselines and Nw_sens, with the numbers of
tests/unit/test_dally.c."""

import math
import unittest

import netsched
from netsched import Cluster, Job, Placement, Tier, dally

from . import support

H = 3600e3  # one hour, ms
WEEK = 7 * 24 * H


def small_cluster(busy=()):
    """2 racks x 2 servers x 4 GPUs: rack 0 = GPUs 0-7, rack 1 = GPUs 8-15."""
    c = Cluster.leaf_spine(2, 1, 2, 4, 1, 100.0)
    c.occupy(busy)
    return c


@support.requires("ns_delay_tuner_new", "ns_delay_tuner_timers")
class TestTuner(unittest.TestCase):
    @support.requires("ns_delay_tuner_checkpoint", "ns_delay_tuner_swap")
    def test_checkpoint_rollback_commit_swap(self):
        # the numbers of test_dally.c test_tuner_checkpoint_rollback_swap
        t = dally.DelayTuner(1e9, 1000.0, 1000.0)
        u = dally.DelayTuner(1e9, 7.0, 7.0)
        with self.assertRaises(netsched.StateError):
            t.rollback()
        t.record(Tier.MACHINE, 2, 100.0, 1000.0)
        t.checkpoint()
        t.record(Tier.MACHINE, 2, 300.0, 2000.0)
        t.record(Tier.RACK, 4, 50.0, 3000.0)
        self.assertAlmostEqual(t.timers(2, 3000.0)[0], 200 + 2 * math.sqrt(20000.0), places=9)
        t.rollback()
        self.assertEqual(t.sample_count(Tier.MACHINE, 2, 1500.0), 1)  # clock back at 1000
        self.assertEqual(t.sample_count(Tier.RACK, 4, 1500.0), 0)
        t.checkpoint()
        t.record(Tier.MACHINE, 2, 300.0, 2000.0)
        t.commit()
        self.assertEqual(t.sample_count(Tier.MACHINE, 2, 2000.0), 2)
        t.swap(u)
        self.assertEqual(u.sample_count(Tier.MACHINE, 2, 2000.0), 2)
        self.assertEqual(t.timers(2, 0.0), (7.0, 14.0))
        with self.assertRaises(TypeError):
            t.swap("u")  # type: ignore[arg-type]

    def test_mean_plus_two_sample_sd(self):
        with dally.DelayTuner(WEEK, 111, 222) as t:
            # waits 2,4,4,4,5,5,7,9 s: mean 5 s, sample sd sqrt(32/7) s
            for i, w in enumerate((2000, 4000, 4000, 4000, 5000, 5000, 7000, 9000)):
                t.record(Tier.MACHINE, 8, w, 10.0 * i)
            t.record(Tier.RACK, 8, 1000, 100)   # 1 s and 3 s: 2 + 2*sqrt(2) s
            t.record(Tier.RACK, 8, 3000, 100)
            mc, rk = t.timers(8, 100)
            self.assertAlmostEqual(mc, 9276.17987, delta=1e-4)
            self.assertAlmostEqual(rk, 4828.427125, delta=1e-5)
            self.assertEqual(t.timers(4, 100), (111.0, 111.0 + 222.0))

    def test_paper_defaults(self):
        self.assertEqual(dally.DEFAULT_TIMER_MS, 12 * H)
        with dally.DelayTuner(WEEK) as t:
            self.assertEqual(t.timers(2, 0), (12 * H, 24 * H))

    def test_bad_input(self):
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            dally.DelayTuner(0)
        self.assertIn("dally.DelayTuner: history_limit_ms", str(cm.exception))
        with dally.DelayTuner(WEEK) as t:
            with self.assertRaises(netsched.InvalidArgumentError):
                t.record(Tier.NETWORK, 2, 1.0, 0.0)
            with self.assertRaises(netsched.InvalidArgumentError):
                t.record(Tier.MACHINE, 2, -1.0, 0.0)
            t.record(Tier.MACHINE, 2, 1.0, 50.0)
            with self.assertRaises(netsched.InvalidArgumentError) as cm:
                t.timers(2, 10.0)  # time must not go back
            with self.assertRaises(TypeError):
                t.record(b"machine", 2, 1.0, 60.0)
            with self.assertRaises(ValueError):
                t.record("machin", 2, 1.0, 60.0)
            with self.assertRaises(TypeError):
                t.timers(2.0, 60.0)


@support.requires("ns_dally_offer")
class TestOffer(unittest.TestCase):
    def test_machine_tier_accepts_at_once(self):  # Alg. 1 line 5
        with small_cluster([4, 5]) as c, dally.DelayTuner(WEEK, 12 * H, 12 * H) as t, \
                Job("j", 2) as j:
            p = t.offer(c, j, 0, 0)
            self.assertEqual(p.gpus, [6, 7])  # best fit: server 1 has exactly 2 free
            self.assertIs(p.tier, Tier.MACHINE)
            self.assertEqual(c.free_gpu_count, 14)  # deciding does not commit

    def test_decline_then_rack_then_network(self):  # lines 10, 18, 21
        with small_cluster([0, 1, 4, 5, 6, 8, 9, 10, 12, 13, 14]) as c, \
                dally.DelayTuner(WEEK, 12 * H, 12 * H) as t, Job("j", 4) as j, \
                Placement([99]) as out:
            self.assertIsNone(t.offer(c, j, 13 * H, 0, out=out))
            self.assertEqual(len(out), 0)
            self.assertIsNone(t.offer(c, j, 24 * H - 1, 0))
            p = t.offer(c, j, 24 * H, 0, out=out)
            self.assertIs(p, out)
            self.assertEqual(p.gpus, [2, 3, 11, 15])
            self.assertIs(p.tier, Tier.NETWORK)

    def test_rack_tier(self):  # line 13
        with small_cluster([0, 4, 8, 9, 12]) as c, \
                dally.DelayTuner(WEEK, 12 * H, 12 * H) as t, Job("j", 4) as j:
            self.assertIsNone(t.offer(c, j, 12 * H - 1, 0))
            p = t.offer(c, j, 12 * H, 0)
            self.assertEqual(p.gpus, [10, 11, 13, 14])
            self.assertIs(p.tier, Tier.RACK)

    def test_bad_input(self):
        with small_cluster() as c, dally.DelayTuner(WEEK) as t, Job("j", 2) as j:
            with self.assertRaises(netsched.InvalidArgumentError) as cm:
                t.offer(c, j, math.nan, 0)
            self.assertIn("dally.DelayTuner.offer: ", str(cm.exception))
            with self.assertRaises(TypeError):
                t.offer(j, c, 0, 0)


def baseline_cluster():
    """1 rack x 6 servers x 4 GPUs, free GPUs per server {3,1,4,2,4,3}."""
    c = Cluster.leaf_spine(1, 0, 6, 4, 0, 100.0)
    c.occupy([0, 4, 5, 6, 12, 13, 20])
    return c


@support.requires("ns_place_best_fit", "ns_place_tiresias")
class TestBaselines(unittest.TestCase):
    def test_best_fit(self):
        with baseline_cluster() as c, Job("j2", 2) as j2, Job("j6", 6) as j6, \
                Job("j19", 19) as j19:
            self.assertEqual(dally.best_fit(c, j2).gpus, [14, 15])
            p = dally.best_fit(c, j6)
            self.assertEqual(p.gpus, [1, 2, 3, 21, 22, 23])  # none left idle, 4-GPU servers kept
            self.assertEqual(p.server_count, 2)
            with self.assertRaises(netsched.NoSpaceError) as cm:
                dally.best_fit(c, j19)
            self.assertIn("17", str(cm.exception))

    def test_tiresias(self):
        with baseline_cluster() as c, Job("alexnet", 8, model_bytes=1000) as j:
            self.assertEqual(dally.tiresias(c, j, 1000).gpus, [8, 9, 10, 11, 16, 17, 18, 19])
            c.occupy([16])
            with self.assertRaises(netsched.NoSpaceError):
                dally.tiresias(c, j, 1000)
            self.assertEqual(dally.tiresias(c, j, 1001).gpus, [1, 2, 3, 7, 8, 9, 10, 11])
            with self.assertRaises(netsched.InvalidArgumentError):
                dally.tiresias(c, j, -1)


@support.requires("ns_dally_priority")
class TestPriority(unittest.TestCase):
    def test_nw_sens(self):
        self.assertAlmostEqual(dally.priority(500, 1000, 10 * H, 10 * H), 0.5, places=12)
        self.assertAlmostEqual(dally.priority(500, 1000, 5 * H, 10 * H), 1.0, places=12)
        self.assertEqual(dally.priority(0, 1000, 0, 10 * H), 1.0)
        # Table 1: 100 ms compute, ResNet50's 38 % overhead -> 1/1.38
        run, ideal = 1e7, 1e8
        done = int(run / (100 * 1.38))
        self.assertAlmostEqual(dally.priority(done, 1_000_000, run, ideal), 1 / 1.38, delta=2e-5)

    def test_nan_becomes_an_exception(self):
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            dally.priority(1, 1000, 0, 10 * H)
        self.assertIn("run_ms", str(cm.exception))
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            dally.priority(0, 0, 1, 1)
        self.assertIn("iters_total", str(cm.exception))
        with self.assertRaises(TypeError):
            dally.priority("1", 2, 1, 1)


@support.requires("ns_dally_offer_order", "ns_dally_job_priority", "ns_delay_tuner_sample_count",
                  "ns_delay_tuner_set_manual", "ns_dally_timers")
class TestExtensions(unittest.TestCase):
    def test_offer_order_table1(self):
        # Table 1 slowdowns: VGG11 7 %, MobileNetV3 19592 %, ResNet50 38 %:
        # the most slowed-down job is offered GPUs first.
        nw = [1 / 1.07, 1 / 196.92, 1 / 1.38]
        self.assertEqual(dally.offer_order(nw), [1, 2, 0])
        self.assertEqual(dally.offer_order([]), [])
        with self.assertRaises(netsched.InvalidArgumentError):
            dally.offer_order([0.5, math.nan])

    def test_job_priority(self):
        with Job("j", 4, compute_ms=(40, 60), iterations=(1000, 500)) as j:
            # ideal = 100 ms x 1000 = 100 s; half done in 100 s -> 0.5
            self.assertAlmostEqual(dally.job_priority(j, 100e3), 0.5, places=12)

    def test_cluster_aware_timers(self):
        # small_cluster: 4-GPU machines, 8-GPU racks
        with small_cluster() as c, dally.DelayTuner(WEEK, 12 * H, 12 * H) as t:
            self.assertEqual(t.timers_for(c, 2, 0), (12 * H, 24 * H))
            self.assertEqual(t.timers_for(c, 6, 0), (0.0, 12 * H))  # > a machine
            self.assertEqual(t.timers_for(c, 12, 0), (0.0, 0.0))    # > a rack
            with self.assertRaises(TypeError):
                t.timers_for(None, 2, 0)

    def test_samples_and_manual(self):
        with small_cluster([4, 5]) as c, dally.DelayTuner(WEEK, 12 * H, 12 * H) as t, \
                Job("j", 2) as j:
            t.offer(c, j, 5.0, 0)
            self.assertEqual(t.sample_count(Tier.MACHINE, 2, 0), 1)  # recorded once
            self.assertEqual(t.sample_count(Tier.RACK, 2, 0), 0)
            t.record(Tier.MACHINE, 2, 7.0, 0)
            self.assertNotEqual(t.timers(2, 0)[0], 12 * H)
            t.set_manual(True)
            self.assertEqual(t.timers(2, 0), (12 * H, 24 * H))
            with self.assertRaises(netsched.InvalidArgumentError):
                t.set_manual(2)


if __name__ == "__main__":
    unittest.main()
