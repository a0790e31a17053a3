"""The cffi declarations shipped with the package (netsched/netsched.cdef,
generated from <netsched.h> by bindings/python/gen_cdef.sh) parse with
cffi, declare every function of the ctypes signature table, and drive the
library: the same decision through cffi and through ctypes agrees."""

import os
import subprocess
import unittest

import netsched
from netsched import _clib, lwf

from . import support

try:
    import cffi
except ImportError:  # Debian package python3-cffi
    cffi = None

CDEF = os.path.join(os.path.dirname(netsched.__file__), "netsched.cdef")


@unittest.skipIf(cffi is None, "cffi is not installed (Debian package python3-cffi)")
@unittest.skipIf(support.under_asan(), "cffi's dlopen of the ASan library needs its runtime first")
class TestCffi(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ffi = cffi.FFI()
        with open(CDEF) as f:
            cls.ffi.cdef(f.read())
        cls.lib = cls.ffi.dlopen(netsched.library_path)

    def test_generated_from_the_current_header(self):
        gen = subprocess.run(["bash", os.path.join(support.REPO, "bindings", "python", "gen_cdef.sh"),
                              os.path.join(support.REPO, "include")],
                             capture_output=True, text=True, check=True).stdout
        with open(CDEF) as f:
            self.assertEqual(f.read(), gen, "netsched.cdef is stale: run make")

    def test_constants_and_enums(self):
        self.assertEqual(self.ffi.string(self.lib.ns_version()).decode(), netsched.version())
        major, minor, patch = (int(x) for x in support.header_version().split("."))
        self.assertEqual((self.lib.NS_VERSION_MAJOR, self.lib.NS_VERSION_MINOR,
                          self.lib.NS_VERSION_PATCH), (major, minor, patch))
        self.assertEqual(self.lib.NS_EINVAL, int(netsched.Status.EINVAL))
        self.assertEqual(self.lib.NS_EUNSUPPORTED, int(netsched.Status.EUNSUPPORTED))

    def test_every_table_function_is_declared(self):
        missing = []
        for name in _clib._TABLE:
            if netsched.has_symbol(name):
                try:
                    getattr(self.lib, name)
                except AttributeError:
                    missing.append(name)
        self.assertEqual(missing, [])

    def test_same_decision_as_ctypes(self):
        ffi, lib = self.ffi, self.lib
        c = lib.ns_cluster_new_leaf_spine(2, 2, 4, 8, 1, 100.0)
        job = lib.ns_job_new(b"resnet50", 4)
        p = lib.ns_placement_new()
        try:
            lib.ns_job_set_compute_ms(job, 25.0, 37.4)
            self.assertEqual(lib.ns_lwf_place(c, job, 1, p), lib.NS_OK)
            gpus = [lib.ns_placement_gpu(p, i) for i in range(lib.ns_placement_gpu_count(p))]
            # a bad argument: a status and the library's message, through cffi too
            self.assertEqual(lib.ns_lwf_place(c, job, 0, p), lib.NS_EINVAL)
            self.assertIn(b"kappa", ffi.string(lib.ns_last_error()))
        finally:
            lib.ns_placement_free(p), lib.ns_job_free(job), lib.ns_cluster_free(c)
        with netsched.Cluster.leaf_spine(2, 2, 4, 8, 1, 100.0) as pc, \
                netsched.Job("resnet50", 4, compute_ms=(25.0, 37.4)) as pj:
            self.assertEqual(gpus, lwf.place(pc, pj, kappa=1).gpus)
        self.assertEqual(gpus, [0, 1, 2, 3])  # an empty cluster: GPUs 0..3 (least load, lowest id)


if __name__ == "__main__":
    unittest.main()
