"""No handle leaks: 10 000 create/free cycles of every core handle keep the
resident set flat (read from /proc/self/statm)."""

import array
import ctypes
import gc
import os
import unittest

import netsched
from netsched import Cluster, Job, Link, Placement, cassini, dally, sim, titan, vclos

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


POLICY_SYMBOLS = ("ns_cassini_opts_new", "ns_affinity_new", "ns_candidate_new",
                  "ns_titan_opts_new", "ns_vclos_opts_new", "ns_delay_tuner_new", "ns_sim_new")


def policy_cycle(i, close):
    """Every policy handle once, with the borrowing ones actually borrowing."""
    with Job("a%d" % i, 1, iteration_ms=10, phases=[(5, 1), (5, 0)]) as a, \
            Job("b", 1, iteration_ms=10, phases=[(5, 1), (5, 0)]) as b, Link("l", 1) as link:
        handles = [cassini.Options(threads=1), cassini.Affinity(), cassini.Candidate([(a, link)]),
                   titan.Options(seed=i), vclos.Options(use_milp=False), dally.DelayTuner(1e3),
                   sim.Options(policy="ff")]
        handles[1].add_edge(b, link, 0.0)
        handles.append(sim.Simulator(handles[-1]))
        handles[-1].add_job("j", 0, 1, 1, 1.0, 0)
        if close:
            for h in reversed(handles):
                h.close()


@unittest.skipUnless(os.path.exists("/proc/self/statm"), "needs /proc/self/statm")
@unittest.skipIf(support.under_asan(), "ASan's quarantine keeps freed memory resident; "
                 "leaks are covered by ASan and valgrind there")
class TestNoLeaks(unittest.TestCase):
    def run_cycles(self, close, cycle=one_cycle):
        for i in range(500):  # warm up allocator pools and caches
            cycle(i, close)
        gc.collect()
        before = rss_bytes()
        for i in range(CYCLES):
            cycle(i, close)
        gc.collect()
        grown = rss_bytes() - before
        self.assertLess(grown, SLACK_BYTES, "RSS grew by %d bytes over %d cycles" % (grown, CYCLES))

    def test_explicit_close(self):
        self.run_cycles(close=True)

    def test_finalizers(self):
        self.run_cycles(close=False)

    @support.requires(*POLICY_SYMBOLS)
    def test_policy_handles_explicit_close(self):
        self.run_cycles(close=True, cycle=policy_cycle)

    @support.requires(*POLICY_SYMBOLS)
    def test_policy_handles_finalizers(self):
        self.run_cycles(close=False, cycle=policy_cycle)

    def test_detector_sees_the_smallest_leak(self):
        # The measurement must be able to fail: bare C jobs never freed (no
        # Python object around them) exceed the allowance.
        clib = netsched._clib
        leaked = array.array("Q", bytes(8 * CYCLES))  # allocated before measuring
        gc.collect()
        # Free chunks left by earlier allocations (an import's read buffers,
        # e.g. threading's) would absorb the jobs without touching new pages
        # and hide the leak: give their pages back first, so reuse shows too.
        trim = getattr(ctypes.CDLL(None), "malloc_trim", None)
        if trim is not None:
            trim(0)
        before = rss_bytes()
        for i in range(CYCLES):
            leaked[i] = clib.address(clib.lib.ns_job_new(b"j", 1))
        grown = rss_bytes() - before
        for addr in leaked:
            clib.lib.ns_job_free(ctypes.cast(addr, clib.JOB))
        self.assertGreater(grown, SLACK_BYTES)


if __name__ == "__main__":
    unittest.main()
