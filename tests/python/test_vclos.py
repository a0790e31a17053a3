"""vClos through the bindings: Stages 0-2 on small leaf-spine clusters,
link isolation after commit, source routing (ALGORITHMS.md)."""

import unittest

import netsched
from netsched import Cluster, Job, vclos

from . import support


def stage2_cluster():
    """4 leaves x 2 servers x 4 GPUs, 4 spines, 1 link per pair; one GPU
    busy on server 1 of every leaf, so no leaf has two idle servers."""
    c = Cluster.leaf_spine(4, 4, 2, 4, 1, 100.0)
    c.occupy([4, 12, 20, 28])
    return c


@support.requires("ns_vclos_opts_new", "ns_vclos_place")
class TestPlace(unittest.TestCase):
    def test_stage0_one_server_best_fit(self):
        with Cluster.leaf_spine(2, 2, 2, 4, 1, 100.0) as c, Job("j", 2) as j:
            c.occupy([0, 1, 4])  # server 0 has exactly 2 free, server 1 has 3
            p = vclos.place(c, j)
            self.assertEqual(sorted(p.gpus), [2, 3])
            self.assertEqual(p.link_count, 0)

    def test_stage1_leaf_with_fewest_idle_servers(self):
        with Cluster.leaf_spine(2, 2, 4, 4, 1, 100.0) as c, Job("j", 8) as j:
            c.occupy([0, 4])  # leaf 0: 2 idle servers, leaf 1: 4 idle servers
            p = vclos.place(c, j)
            self.assertEqual(sorted({c.server_of_gpu(g) for g in p}), [2, 3])
            self.assertEqual(p.link_count, 0)

    def test_stage2_virtual_clos(self):
        # N = 8, T = 4, S = 4: l = 2^3 / 4 = 2 leaves x s = 4 spines, each
        # leaf giving one idle server and one link to every chosen spine.
        with stage2_cluster() as c, Job("j", 8) as j, vclos.Options(use_milp=False) as o:
            p = vclos.place(c, j, o)
            self.assertEqual((p.virtual_leaves, p.virtual_spines), (2, 4))
            self.assertEqual(len(p), 8)
            leaves = sorted({c.leaf_of_server(c.server_of_gpu(g)) for g in p})
            self.assertEqual(len(leaves), 2)
            self.assertEqual(sorted(p.links), [(l, s) for l in leaves for s in range(4)])
            c.commit(j, p)
            for leaf, spine in p.links:
                self.assertEqual(c.free_links_between(leaf, spine), 0)
            # source routing: cross-leaf traffic uses one of the job's spines
            a = next(g for g in p if c.leaf_of_server(c.server_of_gpu(g)) == leaves[0])
            b = next(g for g in p if c.leaf_of_server(c.server_of_gpu(g)) == leaves[1])
            self.assertIn(vclos.route(c, a, b), range(4))
            # a second job gets the two other leaves and links of its own
            with Job("k", 8) as k, Job("m", 8) as m:
                q = vclos.place(c, k, o)
                self.assertEqual(set(q.links) & set(p.links), set())
                self.assertEqual(set(q) & set(p), set())
                c.commit(k, q)
                with self.assertRaises(netsched.NoSpaceError):  # no idle server left
                    vclos.place(c, m, o)
                c.release(k)
            c.release(j)

    @support.requires("ns_vclos_opts_set_power_of_two")
    def test_paper_sizing_and_power_of_two(self):
        # 8 leaves x 16 spines x 4 servers x 4 GPUs: N = 24 is 2 x 12 under
        # the paper's sizing, 2 x 16 = 32 GPUs under the power-of-two rule.
        with Cluster.leaf_spine(8, 16, 4, 4, 1, 100.0) as c, Job("j", 24) as j:
            p = vclos.place(c, j)
            self.assertEqual((len(p), p.virtual_leaves, p.virtual_spines), (24, 2, 12))
            with vclos.Options(power_of_two=True) as o:
                self.assertEqual(len(vclos.place(c, j, o)), 32)
                with self.assertRaises(netsched.InvalidArgumentError):
                    o.set_power_of_two(2)

    def test_bad_input(self):
        with stage2_cluster() as c, Job("j", 8) as j:
            with self.assertRaises(netsched.InvalidArgumentError):
                vclos.Options(use_milp=2)
            with self.assertRaises(TypeError):
                vclos.Options(use_milp="yes")
            with self.assertRaises(TypeError):
                vclos.place(c, j, out=j)
            with self.assertRaises(netsched.InvalidArgumentError) as cm:
                vclos.route(c, 0, 10_000)
            self.assertIn("vclos.route: ", str(cm.exception))


@support.requires("ns_vclos_place", "ns_vclos_opts_set_solver")
class TestSolversAgree(unittest.TestCase):
    def test_milp_and_search_give_the_same_shape(self):
        with stage2_cluster() as c, Job("j", 8) as j, vclos.Options(True) as milp, \
                vclos.Options(False) as search:
            try:
                a = vclos.place(c, j, milp)
            except netsched.SolverError as e:
                self.skipTest("CBC unavailable: %s" % e)
            b = vclos.place(c, j, search)
            self.assertEqual((a.virtual_leaves, a.virtual_spines, a.link_count),
                             (b.virtual_leaves, b.virtual_spines, b.link_count))


@support.requires("ns_vclos_place_ex", "ns_vclos_route_links", "ns_cluster_ocs_free_leaf_ports",
                  "ns_vclos_opts_set_time_limit_ms")
class TestExtensions(unittest.TestCase):
    def test_stages_and_route_links(self):
        with stage2_cluster() as c, Job("small", 2) as s, Job("big", 8) as j, \
                vclos.Options(time_limit_ms=5000) as o:
            self.assertEqual(vclos.place_ex(c, s, o)[1], 0)
            p, stage = vclos.place_ex(c, j, o)
            self.assertEqual(stage, 2)
            c.commit(j, p)
            a, b = p[0], p[-1]
            spine, up, down = vclos.route_links(c, a, b)
            links = p.links
            self.assertEqual(spine, vclos.route(c, a, b))
            self.assertEqual(links[up], (c.leaf_of_server(c.server_of_gpu(a)), spine))
            self.assertEqual(links[down], (c.leaf_of_server(c.server_of_gpu(b)), spine))
            self.assertEqual(vclos.route_links(c, a, a + 1)[1:], (-1, -1))  # same leaf
            c.release(j)
            with self.assertRaises(netsched.InvalidArgumentError):
                o.set_time_limit_ms(0)

    def test_ocs_ports(self):
        with Cluster.leaf_spine(2, 2, 2, 4, 2, 100.0) as c:
            with self.assertRaises(netsched.StateError):
                vclos.ocs_free_leaf_ports(c, 0, 0)
            c.enable_ocs(2)  # 4 uplinks per leaf over 2 OCSes
            self.assertEqual(vclos.ocs_free_leaf_ports(c, 0, 1), 2)
            self.assertEqual(vclos.ocs_free_spine_ports(c, 1, 0), 2)
            with self.assertRaises(netsched.InvalidArgumentError):
                vclos.ocs_free_leaf_ports(c, 0, 2)


if __name__ == "__main__":
    unittest.main()
