"""Titan through the bindings: collective traffic C^t_{n,n'} and the paper's
Fig. 1 placement (ALGORITHMS.md)."""

import unittest

import netsched
from netsched import Cluster, Collective, Job, Placement, titan

from . import support

HD, RING = Collective.HALVING_DOUBLING, Collective.RING


@support.requires("ns_collective_traffic", "ns_collective_phase_count")
class TestTraffic(unittest.TestCase):
    def test_halving_doubling(self):
        # N = 4 = 2^2, K = 1000: phase t pairs n with n XOR (N >> (t+1)) and
        # sends K / 2^(t+1); phases 2..3 mirror them (all-gather).
        self.assertEqual(titan.collective_phase_count(HD, 4), 4)
        self.assertEqual(titan.collective_traffic(HD, 4, 1000, 0, 0, 2), 500)
        self.assertEqual(titan.collective_traffic(HD, 4, 1000, 0, 0, 1), 0)
        self.assertEqual(titan.collective_traffic(HD, 4, 1000, 1, 0, 1), 250)
        self.assertEqual(titan.collective_traffic(HD, 4, 1000, 1, 0, 2), 0)
        total = sum(titan.collective_traffic(HD, 4, 1000, t, 0, dst)
                    for t in range(4) for dst in range(1, 4))
        self.assertEqual(total, 1500)  # K/2 + K/4 reduce-scatter, mirrored

    def test_ring(self):
        self.assertEqual(titan.collective_phase_count(RING, 4), 6)  # 2(N-1)
        self.assertEqual(titan.collective_traffic(RING, 4, 1000, 0, 0, 1), 250)  # K/N
        self.assertEqual(titan.collective_traffic(RING, 4, 1000, 3, 3, 0), 250)
        self.assertEqual(titan.collective_traffic(RING, 4, 1000, 0, 0, 2), 0)

    def test_bad_input(self):
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            titan.collective_traffic(HD, 4, 1000, 4, 0, 1)  # phase out of range
        self.assertIn("titan.collective_traffic: ", str(cm.exception))
        with self.assertRaises(netsched.InvalidArgumentError):
            titan.collective_phase_count(HD, 0)
        with self.assertRaises(TypeError):
            titan.collective_traffic(1.5, 4, 1000, 0, 0, 1)
        with self.assertRaises(ValueError):  # not a Collective name
            titan.collective_traffic("hd", 4, 1000, 0, 0, 1)
        # enum names as strings are the members themselves
        self.assertEqual(titan.collective_traffic("halving-doubling", 4, 1000, 0, 0, 1),
                         titan.collective_traffic(HD, 4, 1000, 0, 0, 1))


@support.requires("ns_titan_opts_new", "ns_titan_place")
class TestPlace(unittest.TestCase):
    def test_fig1(self):
        # 4 machines x 4 GPUs with 4, 3, 2, 1 idle GPUs; a 4-worker HD job.
        # Titan puts {W1, W3} on machine 2 and {W2, W4} on machine 3: the
        # heavy first-phase pairs stay inside a machine, no idle machine used.
        with Cluster.leaf_spine(1, 0, 4, 4, 0, 100.0) as c, \
                Job("hd4", 4, collective=HD, model_bytes=100_000_000) as j, \
                titan.Options(seed=7) as o:
            c.occupy([4, 8, 9, 12, 13, 14])
            p = titan.place(c, j, o)
            servers = [c.server_of_gpu(g) for g in p]
            self.assertEqual(sorted(set(servers)), [1, 2])
            self.assertEqual(servers[0], servers[2])
            self.assertEqual(servers[1], servers[3])
            self.assertTrue(all(c.gpu_is_free(g) for g in p))
            if netsched.has_symbol("ns_collective_cross_machine_bytes"):
                # Fig. 1 counts each exchanging pair once: Titan K, HiveD 3K/2;
                # the library counts both directions.
                K = 100_000_000
                self.assertEqual(titan.cross_machine_bytes(j, p), 2 * K)
                with Placement([5, 6, 7, 15], c) as hived:
                    self.assertEqual(titan.cross_machine_bytes(j, hived), 3 * K)
            c.commit(j, p)
            self.assertEqual(c.free_gpus_on_server(0), 4)  # the idle machine stays idle
            c.release(j)

    @support.requires("ns_titan_opts_set_pair_bandwidth_fn", "ns_titan_opts_set_phase_budget_ms")
    def test_pair_bandwidth_and_budget(self):
        # Fig. 1's cluster; P(1, 2) = 0 forbids Titan's split of servers 1|2,
        # leaving servers 1 and 3 (3 + 1 free GPUs). With a 1 ms budget at
        # 100 Gbps a port moves 12.5 MB: K = 60 MB makes server 2 send
        # 2 x 15 MB > 25 MB, so the idle server 0 takes the job.
        with Cluster.leaf_spine(1, 0, 4, 4, 0, 100.0) as c, \
                Job("hd4", 4, collective=HD, model_bytes=60_000_000) as j:
            c.occupy([4, 8, 9, 12, 13, 14])
            with titan.Options(pair_bandwidth=lambda a, b: 0.0 if {a, b} == {1, 2}
                               else float("inf")) as o:
                p = titan.place(c, j, o)
                self.assertEqual(sorted({c.server_of_gpu(g) for g in p}), [1, 3])
            with titan.Options(phase_budget_ms=1.0) as o:
                p = titan.place(c, j, o)
                self.assertEqual({c.server_of_gpu(g) for g in p}, {0})
                o.set_pair_bandwidth(lambda a, b: 1 / 0)  # raises: NaN to the library
                with self.assertRaises(netsched.InvalidArgumentError):
                    titan.place(c, j, o)
                o.set_pair_bandwidth(None)
                self.assertEqual({c.server_of_gpu(g) for g in titan.place(c, j, o)}, {0})
                with self.assertRaises(netsched.InvalidArgumentError):
                    o.set_phase_budget_ms(0)
                with self.assertRaises(TypeError):
                    o.set_pair_bandwidth(3)

    def test_no_space_and_types(self):
        with Cluster.leaf_spine(1, 0, 2, 2, 0, 100.0) as c, Job("big", 5) as j:
            with self.assertRaises(netsched.InvalidArgumentError):  # 5 of 4: never fits
                titan.place(c, j)
            with self.assertRaises(TypeError):
                titan.place(c, j, opts=1)
            with self.assertRaises(netsched.InvalidArgumentError):
                titan.Options(seed=-1)


if __name__ == "__main__":
    unittest.main()
