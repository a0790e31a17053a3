"""LWF-kappa and the FF / LS / RAND baselines through the bindings, on the
hand-worked cluster of tests/unit/test_lwf.c."""

import unittest

import netsched
from netsched import Cluster, Job, Placement, Tier, lwf

from . import support

# One switch, 4 servers x 4 GPUs; remaining workloads L_g (ms):
#   server 0: 5 1 7 3 (16)  server 1: 2 2 9 0 (13)
#   server 2: 4 4 4 4 (16)  server 3: 8 0 6 1 (15)
HAND_LOAD = [5, 1, 7, 3, 2, 2, 9, 0, 4, 4, 4, 4, 8, 0, 6, 1]


def hand_cluster():
    c = Cluster.leaf_spine(1, 0, 4, 4, 0, 10.0)
    for g, load in enumerate(HAND_LOAD):
        c.set_gpu_workload_ms(g, load)
    return c


@support.requires("ns_lwf_place")
class TestLwf(unittest.TestCase):
    def setUp(self):
        self.c = hand_cluster()
        self.addCleanup(self.c.close)

    def expect(self, gpus, kappa, want):
        with Job("j", gpus) as j, lwf.place(self.c, j, kappa) as p:
            self.assertEqual(p.gpus, want, "gpus=%d kappa=%d" % (gpus, kappa))

    def test_least_loaded_branch(self):  # Alg. 1 lines 2-9, |G| <= kappa
        self.expect(1, 1, [7])
        self.expect(2, 2, [7, 13])
        self.expect(4, 4, [7, 13, 1, 15])

    def test_server_branch(self):  # lines 10-21, |G| > kappa
        self.expect(2, 1, [7, 4])
        self.expect(4, 1, [7, 4, 5, 6])
        self.expect(6, 4, [7, 4, 5, 6, 13, 15])
        self.expect(9, 1, [7, 4, 5, 6, 13, 15, 14, 12, 1])
        with Job("j", 8) as j, lwf.place(self.c, j, 4) as p:
            self.assertEqual(p.server_count, 2)
            self.assertIs(p.tier, Tier.RACK)

    def test_busy_gpus_and_out_argument(self):
        self.c.occupy([7, 13])
        with Job("j", 4) as j, Placement([3]) as out:
            self.assertIs(lwf.place(self.c, j, 1, out=out), out)
            self.assertEqual(out.gpus, [4, 5, 6, 15])

    def test_no_space_and_commit(self):
        with Job("big", 17) as big:
            with self.assertRaises(netsched.InvalidArgumentError) as cm:  # never fits
                lwf.place(self.c, big, 1)
            self.assertIn("17", str(cm.exception))
        with Job("j", 2, compute_ms=(1, 1), iterations=(5, 0)) as j:
            p = lwf.place(self.c, j, 1)
            self.c.commit(j, p)
            # commit adds L_J = (1 + 1) * 5 * 2 = 20 ms to each chosen GPU
            self.assertEqual([self.c.gpu_workload_ms(g) for g in p], [20.0, 22.0])
            self.c.release(j)

    def test_bad_input(self):
        with Job("j", 2) as j:
            with self.assertRaises(netsched.InvalidArgumentError) as cm:
                lwf.place(self.c, j, 0)
            self.assertIn("kappa", str(cm.exception))
            with self.assertRaises(TypeError):
                lwf.place(self.c, j, "1")
            with self.assertRaises(TypeError):
                lwf.place(j, self.c, 1)
            with self.assertRaises(TypeError):
                lwf.place(self.c, j, 1, out=[])


@support.requires("ns_place_first_fit", "ns_place_list_scheduling", "ns_place_random")
class TestBaselines(unittest.TestCase):
    def test_ff_ls_rand(self):
        with hand_cluster() as c, Job("j", 3) as j:
            c.occupy([0])
            self.assertEqual(lwf.first_fit(c, j).gpus, [1, 2, 3])
            self.assertEqual(lwf.list_scheduling(c, j).gpus, [7, 13, 1])
            r1, r2 = lwf.random(c, j, 42).gpus, lwf.random(c, j, 42).gpus
            self.assertEqual(r1, r2)  # deterministic for a seed
            self.assertEqual(len(set(r1)), 3)
            self.assertNotIn(0, r1)
            with self.assertRaises(netsched.InvalidArgumentError):
                lwf.random(c, j, -1)
            with Job("all", 16) as full:
                for fn in (lwf.first_fit, lwf.list_scheduling):
                    with self.assertRaises(netsched.NoSpaceError):
                        fn(c, full)


if __name__ == "__main__":
    unittest.main()
