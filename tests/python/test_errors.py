"""Errors become exceptions carrying the library's message; wrong Python
types raise TypeError before reaching C; closed handles raise a clear error;
borrowed handles are never freed under a C borrower."""

import gc
import math
import unittest

import netsched
from netsched import Cluster, Job, Link, Placement, errors
from netsched.errors import Status


_CLASSES = {
    Status.EINVAL: netsched.InvalidArgumentError, Status.ENOMEM: netsched.OutOfMemoryError,
    Status.ENOTFOUND: netsched.NotFoundError, Status.ENOSPACE: netsched.NoSpaceError,
    Status.ESTATE: netsched.StateError, Status.ELOOP: netsched.LoopError,
    Status.ERANGE: netsched.RangeError, Status.ESOLVER: netsched.SolverError,
    Status.EUNSUPPORTED: netsched.UnsupportedError, Status.ECANCELED: netsched.CancelledError,
}


def _set_last_error():
    """Makes the library record a known message; returns it."""
    with Job("x", 1) as j:
        try:
            j.iteration_ms = -1.0
        except netsched.InvalidArgumentError:
            return netsched.last_error()  # the C text; e.message names Job.iteration_ms
    raise AssertionError("library accepted a negative iteration time")


class TestHierarchy(unittest.TestCase):
    def test_one_class_per_status(self):
        self.assertEqual(set(_CLASSES), set(Status) - {Status.OK})
        for status, cls in _CLASSES.items():
            with self.subTest(status=status):
                self.assertTrue(issubclass(cls, netsched.NetschedError))
                e = errors.error_for(int(status), "msg")
                self.assertIs(type(e), cls)
                self.assertEqual(e.status, status)
                self.assertEqual(e.message, "msg")
                self.assertEqual(e.strerror, netsched.strerror(status))
        self.assertEqual(len(set(_CLASSES.values())), len(_CLASSES))

    def test_unknown_status(self):
        e = errors.error_for(-42, "m")
        self.assertIs(type(e), netsched.NetschedError)
        self.assertEqual(e.status, -42)
        self.assertEqual(e.strerror, "unknown status")

    def test_strerror_values(self):
        self.assertEqual(netsched.strerror(0), "success")
        self.assertEqual(netsched.strerror(Status.ENOSPACE), "no feasible placement now")
        self.assertEqual(netsched.strerror(Status.ELOOP), "affinity graph has a loop")

    def test_python_bases(self):
        self.assertTrue(issubclass(netsched.InvalidArgumentError, ValueError))
        self.assertTrue(issubclass(netsched.NotFoundError, LookupError))
        self.assertTrue(issubclass(netsched.OutOfMemoryError, MemoryError))
        self.assertTrue(issubclass(netsched.ClosedHandleError, ValueError))


class TestLibraryMessages(unittest.TestCase):
    def test_constructor_null_becomes_exception(self):
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            Job("big", 0)
        # the message names the Python call; last_error() keeps the C text
        self.assertEqual(str(cm.exception), "Job: gpus must be in [1, 1048576] (got 0)")
        self.assertEqual(cm.exception.message, str(cm.exception))
        self.assertEqual(netsched.last_error(), "ns_job_new: gpus must be in [1, 1048576] (got 0)")
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            Job("n" * 256, 1)
        self.assertIn("Job: ", str(cm.exception))
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            Cluster.leaf_spine(0, 1, 1, 1, 1, 10.0)
        self.assertIn("Cluster.leaf_spine: ", str(cm.exception))
        self.assertIn("leaves", str(cm.exception))
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            Link("l", math.inf)
        self.assertIn("Link: ", str(cm.exception))

    def test_nan_and_negative_reach_the_library_checks(self):
        with Job("a", 1) as j:
            for bad in (math.nan, math.inf, -1.0):
                with self.subTest(bad=bad):
                    with self.assertRaises(netsched.InvalidArgumentError) as cm:
                        j.gpu_memory_mb = bad
                    self.assertIn("Job.gpu_memory_mb: gpu_memory_mb", str(cm.exception))
            self.assertEqual(j.gpu_memory_mb, 0.0)

    def test_status_specific_classes(self):
        with Cluster.leaf_spine(1, 0, 1, 4, 0, 10.0) as c, Job("a", 1) as j:
            with self.assertRaises(netsched.UnsupportedError) as cm:
                c.enable_ocs(1)
            self.assertIn("Cluster.enable_ocs: ", cm.exception.message)
            with self.assertRaises(netsched.NotFoundError):
                c.release(j)
            with self.assertRaises(netsched.InvalidArgumentError) as cm:
                c.server_of_gpu(4)
            self.assertIn("gpu", str(cm.exception))
            with Placement([0], c) as p:
                c.commit(j, p)
                with self.assertRaises(netsched.StateError):
                    c.gpu_memory_mb = 100  # jobs committed
                self.assertEqual(c.gpu_memory_mb, 16384.0)


class TestTypes(unittest.TestCase):
    """Each case: TypeError, and the library's last error is untouched
    (so the call never reached C)."""

    def assertTypeErrorBeforeC(self, fn, *args):
        before = _set_last_error()
        with self.assertRaises(TypeError):
            fn(*args)
        self.assertEqual(netsched.last_error(), before)

    def test_wrong_types(self):
        with Job("a", 1) as j, Cluster.leaf_spine(1, 1, 1, 2, 1, 10.0) as c, \
                Link("l", 1) as link, Placement() as p:
            cases = [
                (Job, 1, 1), (Job, b"bytes", 1), (Job, None, 1), (Job, "a", 1.5),
                (Job, "a", "1"), (Job, "a", True),
                (setattr, j, "iteration_ms", "10"), (setattr, j, "iteration_ms", None),
                (j.add_phase, 1, "x"), (j.set_compute_ms, 1, [2]),
                (setattr, j, "model_bytes", 1.0), (setattr, j, "collective", b"ring"),
                (setattr, j, "collective", netsched.Tier.RACK),
                (setattr, j, "phases", 5), (setattr, j, "phases", [(1, 2, 3)]),
                (j.set_iterations, "10"), (j.phase, 0.0),
                (Link, 5, 1.0), (Link, "l", "fast"), (link.add_job, "job"),
                (link.add_job, c),
                (Cluster.leaf_spine, 1, 1, 1, 2, 1, "10"), (Cluster.leaf_spine, 1.0, 1, 1, 2, 1, 1),
                (c.server_of_gpu, "0"), (c.occupy, 3), (c.occupy, ["0"]), (c.vacate, [None]),
                (setattr, c, "gpu_memory_mb", "big"), (setattr, c, "gpu_sharing", "yes"),
                (c.set_gpu_workload_ms, 0, None), (c.commit, j, [0]), (c.commit, p, j),
                (c.release, "a"), (c.is_committed, None), (c.job_placement, j, "out"),
                (p.add_gpu, "0"), (p.bind, j), (p.gpu, "0"), (p.__getitem__, "x"),
                (Placement, ["1"]), (Placement, [], "cluster"),
            ]
            for case in cases:
                with self.subTest(case=case):
                    self.assertTypeErrorBeforeC(*case)

    def test_direct_construction_is_refused(self):
        with self.assertRaises(TypeError):
            Cluster()

    def test_values_ctypes_would_truncate(self):
        with Job("a", 1) as j:
            before = _set_last_error()
            for fn, args in ((j.set_iterations, (-1,)), (j.set_iterations, (1 << 64,)),
                             (setattr, (j, "model_bytes", -1)), (Job, ("a", 1 << 32)),
                             (Job, ("a\0b", 1)), (j.phase, (-1,))):
                with self.subTest(fn=fn, args=args):
                    with self.assertRaises(netsched.InvalidArgumentError) as cm:
                        fn(*args)
                    self.assertTrue(cm.exception.message)
            self.assertEqual(netsched.last_error(), before)
            self.assertEqual(j.iterations, (1, 0))


class TestClosedHandles(unittest.TestCase):
    def test_every_method_of_a_closed_handle(self):
        c = Cluster.leaf_spine(1, 1, 1, 2, 1, 10.0)
        j, link, p = Job("a", 1), Link("l", 1), Placement()
        for h in (c, j, link, p):
            h.close()
            self.assertTrue(h.closed)
            h.close()  # idempotent
        probes = [lambda: j.name, lambda: j.gpus, lambda: j.add_phase(1, 1),
                  lambda: setattr(j, "iteration_ms", 1), lambda: link.add_job(j),
                  lambda: len(link), lambda: c.gpu_count, lambda: c.occupy([0]),
                  lambda: len(p), lambda: p.add_gpu(0), lambda: p.tier]
        for probe in probes:
            with self.assertRaises(netsched.ClosedHandleError) as cm:
                probe()
            self.assertIn("is closed", str(cm.exception))
        with self.assertRaises(netsched.ClosedHandleError):
            with j:
                pass

    def test_closed_argument(self):
        with Cluster.leaf_spine(1, 1, 1, 2, 1, 10.0) as c, Placement([0], c) as p:
            j = Job("a", 1)
            j.close()
            with self.assertRaises(netsched.ClosedHandleError):
                c.commit(j, p)
            self.assertEqual(c.job_count, 0)


class TestBorrowing(unittest.TestCase):
    def test_job_closed_while_on_a_link_stays_alive_in_c(self):
        link = Link("l", 10)
        j = Job("a", 1)
        link.add_job(j)
        j.close()
        self.assertTrue(j.closed)
        self.assertTrue(j._finalizer.alive)        # the link still points at it
        self.assertEqual(len(link), 1)
        link.close()
        self.assertFalse(j._finalizer.alive)       # freed with its last borrower

    def test_committed_job_closed_then_released(self):
        with Cluster.leaf_spine(1, 1, 1, 2, 1, 10.0) as c, Placement([1], c) as p:
            j = Job("a", 1)
            c.commit(j, p)
            j.close()
            self.assertTrue(j._finalizer.alive)
            self.assertEqual(c.job_count, 1)
            c.release(j)  # a closed job can still be released
            self.assertFalse(j._finalizer.alive)
            self.assertEqual(c.job_count, 0)

    def test_with_block_order_is_safe(self):
        # Inner handles close first although the cluster still holds the job.
        with Cluster.leaf_spine(1, 1, 1, 2, 1, 10.0) as c, Job("a", 1) as j, \
                Placement([0], c) as p:
            c.commit(j, p)
        self.assertTrue(c.closed and j.closed and p.closed)
        self.assertFalse(j._finalizer.alive)

    def test_garbage_collection_frees(self):
        j = Job("a", 1)
        fin = j._finalizer
        link = Link("l", 10, [j])
        del j
        gc.collect()
        self.assertTrue(fin.alive)                 # kept by the link
        del link
        gc.collect()
        self.assertFalse(fin.alive)


if __name__ == "__main__":
    unittest.main()
