"""Round-trips of every core call: jobs, links, cluster, placements,
commit/release (core.h)."""

import unittest

import netsched
from netsched import Cluster, Collective, Job, Link, Placement, Tier



class TestJob(unittest.TestCase):
    def test_defaults(self):
        with Job("vgg16", 4) as j:
            self.assertEqual(j.name, "vgg16")
            self.assertEqual(j.gpus, 4)
            self.assertEqual(j.iteration_ms, 0.0)
            self.assertEqual(j.phases, [])
            self.assertEqual(j.phase_count, 0)
            self.assertEqual(j.compute_ms, (0.0, 0.0))
            self.assertEqual(j.model_bytes, 0)
            self.assertIs(j.collective, Collective.RING)
            self.assertEqual(j.iterations, (1, 0))
            self.assertEqual(j.gpu_memory_mb, 0.0)

    def test_setters_round_trip(self):
        # VGG16-like profile of the CASSINI paper: 255 ms, Down 141 then Up 114.
        with Job("vgg16", 4, iteration_ms=255, phases=[(141, 0), (114, 50)],
                 compute_ms=(35.8, 53.7), model_bytes=526_400_000,
                 collective=Collective.HALVING_DOUBLING, iterations=(1000, 400),
                 gpu_memory_mb=8000.5) as j:
            self.assertEqual(j.iteration_ms, 255.0)
            self.assertEqual(j.phases, [(141.0, 0.0), (114.0, 50.0)])
            self.assertEqual(j.phase(1), (114.0, 50.0))
            self.assertEqual(j.compute_ms, (35.8, 53.7))
            self.assertEqual(j.model_bytes, 526_400_000)
            self.assertIs(j.collective, Collective.HALVING_DOUBLING)
            self.assertEqual(j.iterations, (1000, 400))
            self.assertEqual(j.gpu_memory_mb, 8000.5)
            j.clear_phases()
            self.assertEqual(j.phases, [])
            j.add_phase(255, 10)
            self.assertEqual(j.phases, [(255.0, 10.0)])
            j.set_compute_ms(1, 2)
            self.assertEqual(j.compute_ms, (1.0, 2.0))
            j.set_iterations(5)
            self.assertEqual(j.iterations, (5, 0))
            j.model_bytes = (1 << 64) - 1  # full uint64 range survives the trip
            self.assertEqual(j.model_bytes, (1 << 64) - 1)
            j.collective = 3
            self.assertIs(j.collective, Collective.ALL_TO_ALL)

    def test_unicode_name(self):
        with Job("rés-net ✓", 1) as j:
            self.assertEqual(j.name, "rés-net ✓")

    def test_phase_index_out_of_range(self):
        with Job("a", 1, iteration_ms=10, phases=[(10, 1)]) as j:
            with self.assertRaises(netsched.InvalidArgumentError) as cm:
                j.phase(1)
            self.assertIn("Job.phase: ", str(cm.exception))

    def test_phases_assignment_is_all_or_nothing(self):
        with Job("a", 1, phases=[(10, 1), (20, 2)]) as j:
            with self.assertRaises(netsched.InvalidArgumentError) as cm:
                j.phases = [(5, 1), (-1, 2)]
            self.assertIn("Job.add_phase: duration_ms", str(cm.exception))
            self.assertEqual(j.phases, [(10.0, 1.0), (20.0, 2.0)])

    def test_constructor_failure_in_keyword(self):
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            Job("a", 1, iteration_ms=-5)
        self.assertIn("Job.iteration_ms: iteration_ms", str(cm.exception))


class TestLink(unittest.TestCase):
    def test_round_trip(self):
        with Job("a", 1) as a, Job("b", 2) as b, Link("tor0-up", 40.0, [a]) as link:
            self.assertEqual(link.name, "tor0-up")
            self.assertEqual(link.capacity_gbps, 40.0)
            self.assertEqual(len(link), 1)
            link.add_job(b)
            self.assertEqual(len(link), 2)
            self.assertIs(link.job(0), a)
            self.assertIs(link.job(1), b)
            self.assertEqual(link.jobs, [a, b])
            with self.assertRaises(IndexError):
                link.job(2)

    def test_unnamed_link(self):
        with Link(None, 1.0) as link:
            self.assertEqual(link.name, "")
            self.assertEqual(len(link), 0)

    def test_same_job_twice_is_rejected(self):
        with Job("a", 1) as a, Link("l", 10, [a]) as link:
            with self.assertRaises(netsched.InvalidArgumentError) as cm:
                link.add_job(a)
            self.assertIn("Link.add_job: ", str(cm.exception))
            self.assertEqual(len(link), 1)


def small_cluster(**kw):
    """2 leaves x 2 servers x 4 GPUs, 2 spines, 2 links per pair, 100 Gbps."""
    return Cluster.leaf_spine(2, 2, 2, 4, 2, 100.0, **kw)


class TestCluster(unittest.TestCase):
    def test_geometry(self):
        with small_cluster() as c:
            self.assertEqual((c.leaf_count, c.spine_count, c.servers_per_leaf,
                              c.gpus_per_server, c.links_per_pair), (2, 2, 2, 4, 2))
            self.assertEqual(c.link_gbps, 100.0)
            self.assertEqual(c.gpu_count, 16)
            self.assertEqual(c.server_count, 4)
            # leaf-major numbering: gpu = (leaf*servers_per_leaf + s)*gpus_per_server + g
            self.assertEqual([c.server_of_gpu(g) for g in (0, 3, 4, 15)], [0, 0, 1, 3])
            self.assertEqual([c.leaf_of_server(s) for s in range(4)], [0, 0, 1, 1])
            self.assertEqual(c.free_gpu_count, 16)
            self.assertEqual(c.free_gpus_on_server(2), 4)
            self.assertEqual(c.free_gpus_on_leaf(1), 8)
            self.assertEqual(c.idle_servers_on_leaf(0), 2)
            self.assertEqual(c.free_links_between(0, 1), 2)
            self.assertFalse(c.link_is_reserved(1, 1, 1))
            self.assertEqual(c.job_count, 0)
            self.assertEqual(c.ocs_count, 0)

    def test_settings(self):
        with small_cluster() as c:
            self.assertEqual(c.gpu_memory_mb, 16384.0)
            c.gpu_memory_mb = 32000
            self.assertEqual(c.gpu_memory_mb, 32000.0)
            self.assertEqual(c.gpu_free_memory_mb(5), 32000.0)
            self.assertFalse(c.gpu_sharing)
            c.gpu_sharing = True
            self.assertTrue(c.gpu_sharing)
            c.gpu_sharing = 0
            self.assertFalse(c.gpu_sharing)
            c.enable_ocs(4)  # 2 spines x 2 links = 4 uplinks per leaf
            self.assertEqual(c.ocs_count, 4)
            with self.assertRaises(netsched.InvalidArgumentError):
                c.enable_ocs(3)
            self.assertEqual(c.ocs_count, 4)

    def test_workload(self):
        with small_cluster() as c:
            self.assertEqual(c.gpu_workload_ms(3), 0.0)
            c.set_gpu_workload_ms(3, 1234.5)
            self.assertEqual(c.gpu_workload_ms(3), 1234.5)
            with self.assertRaises(netsched.InvalidArgumentError) as cm:
                c.gpu_workload_ms(16)
            self.assertIn("gpu", str(cm.exception))

    def test_occupy_vacate(self):
        with small_cluster() as c:
            c.occupy([0, 1, 5])
            self.assertEqual(c.free_gpu_count, 13)
            self.assertFalse(c.gpu_is_free(1))
            self.assertEqual(c.free_gpus_on_server(0), 2)
            self.assertEqual(c.idle_servers_on_leaf(0), 0)
            self.assertEqual(c.gpu_free_memory_mb(0), 0.0)
            with self.assertRaises(netsched.NoSpaceError):
                c.occupy([2, 1])  # all or nothing: 2 stays free
            self.assertTrue(c.gpu_is_free(2))
            c.vacate((g for g in (0, 1)))
            self.assertEqual(c.free_gpu_count, 15)
            with self.assertRaises(netsched.StateError):
                c.vacate([0])
            c.occupy([])  # nothing to do is fine

    def test_commit_release_round_trip(self):
        with small_cluster() as c, Job("a", 2, compute_ms=(1, 2), iterations=(10, 4)) as j, \
                Placement([4, 5], cluster=c) as p:
            c.commit(j, p)
            self.assertTrue(c.is_committed(j))
            self.assertEqual(c.job_count, 1)
            self.assertEqual(c.committed_jobs, [j])
            self.assertEqual(c.gpu_job_count(4), 1)
            self.assertEqual(c.free_gpus_on_server(1), 2)
            # L_J = (fwd + bwd) * remaining iterations * gpus = 3 * 6 * 2
            self.assertEqual(c.gpu_workload_ms(5), 36.0)
            with c.job_placement(j) as q:
                self.assertEqual(q.gpus, [4, 5])
                self.assertEqual(q.tier, Tier.MACHINE)
            with self.assertRaises(netsched.StateError):
                c.commit(j, p)
            c.release(j)
            self.assertFalse(c.is_committed(j))
            self.assertEqual(c.free_gpu_count, 16)
            self.assertEqual(c.gpu_workload_ms(5), 0.0)
            with self.assertRaises(netsched.NotFoundError) as cm:
                c.release(j)
            self.assertIn("Cluster.release: ", str(cm.exception))
            with self.assertRaises(netsched.NotFoundError):
                c.job_placement(j)

    def test_commit_conflict(self):
        with small_cluster() as c, Job("a", 1) as a, Job("b", 1) as b, \
                Placement([7], c) as p:
            c.commit(a, p)
            with self.assertRaises(netsched.NoSpaceError):
                c.commit(b, p)
            self.assertFalse(c.is_committed(b))


class TestPlacement(unittest.TestCase):
    def test_round_trip(self):
        with small_cluster() as c, Placement() as p:
            self.assertEqual(len(p), 0)
            with self.assertRaises(netsched.StateError):
                p.server_count  # never bound
            with self.assertRaises(netsched.StateError):
                p.tier
            p.bind(c)
            self.assertIs(p.tier, Tier.MACHINE)  # empty placement
            for g in (0, 4, 9):
                p.add_gpu(g)
            self.assertEqual(len(p), 3)
            self.assertEqual(p.gpus, [0, 4, 9])
            self.assertEqual(list(p), [0, 4, 9])
            self.assertEqual((p[0], p[-1], p[1:]), (0, 9, [4, 9]))
            with self.assertRaises(IndexError):
                p[3]
            with self.assertRaises(netsched.InvalidArgumentError):
                p.gpu(3)
            self.assertEqual(p.server_count, 3)
            self.assertIs(p.tier, Tier.NETWORK)
            self.assertEqual((p.virtual_leaves, p.virtual_spines, p.link_count), (0, 0, 0))
            self.assertEqual(p.links, [])
            with self.assertRaises(netsched.InvalidArgumentError):
                p.link(0)
            p.clear()
            self.assertEqual(len(p), 0)
            p.add_gpu(0)
            p.add_gpu(5)
            self.assertIs(p.tier, Tier.RACK)
            self.assertEqual(p.server_count, 2)
            with self.assertRaises(netsched.InvalidArgumentError):
                p.add_gpu(-1)


if __name__ == "__main__":
    unittest.main()
