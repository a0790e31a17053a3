"""No handle leaks: 10 000 create/free cycles of every core handle keep the
resident set flat (read from /proc/self/statm)."""

import array
import ctypes
import gc
import os
import unittest

import netsched
from netsched import Cluster, Job, Link, Placement

from . import support

CYCLES = 10_000
# Leaking even the smallest handle (a bare job, ~24 bytes of C memory) each
# cycle grows RSS by ~240 KiB over 10 000 cycles (measured); a flat run grows
# by < 32 KiB. The allowance sits between the two.
SLACK_BYTES = 128 * 1024


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def one_cycle(i, close):
    c = Cluster.leaf_spine(2, 2, 2, 4, 1, 100.0)
    j = Job("job-%d" % i, 2, iteration_ms=100, phases=[(40, 50), (60, 0)],
            compute_ms=(10, 20), iterations=(100, 0))
    link = Link("l", 100.0, [j])
    p = Placement([0, 1], c)
    c.commit(j, p)
    q = c.job_placement(j)
    if i % 2:
        c.release(j)
    try:
        Job("bad", 0)
    except netsched.InvalidArgumentError:
        pass
    if close:
        for h in (q, p, link, j, c):
            h.close()
    # else: dropped here, freed by their finalizers


@unittest.skipUnless(os.path.exists("/proc/self/statm"), "needs /proc/self/statm")
@unittest.skipIf(support.under_asan(), "ASan's quarantine keeps freed memory resident; "
                 "leaks are covered by ASan and valgrind there")
class TestNoLeaks(unittest.TestCase):
    def run_cycles(self, close):
        for i in range(500):  # warm up allocator pools and caches
            one_cycle(i, close)
        gc.collect()
        before = rss_bytes()
        for i in range(CYCLES):
            one_cycle(i, close)
        gc.collect()
        grown = rss_bytes() - before
        self.assertLess(grown, SLACK_BYTES, "RSS grew by %d bytes over %d cycles" % (grown, CYCLES))

    def test_explicit_close(self):
        self.run_cycles(close=True)

    def test_finalizers(self):
        self.run_cycles(close=False)

    def test_detector_sees_the_smallest_leak(self):
        # The measurement must be able to fail: bare C jobs never freed (no
        # Python object around them) exceed the allowance.
        clib = netsched._clib
        leaked = array.array("Q", bytes(8 * CYCLES))  # allocated before measuring
        gc.collect()
        before = rss_bytes()
        for i in range(CYCLES):
            leaked[i] = clib.address(clib.lib.ns_job_new(b"j", 1))
        grown = rss_bytes() - before
        for addr in leaked:
            clib.lib.ns_job_free(ctypes.cast(addr, clib.JOB))
        self.assertGreater(grown, SLACK_BYTES)


if __name__ == "__main__":
    unittest.main()
