"""Hostile inputs through the bindings and the CLI (issue 31): shapes whose
size products overflow, two threads on one Simulator, Ctrl-C during a run,
endless or binary input files, and profile files the C and Python readers
used to read differently. Each test name names the hazard."""

import os
import subprocess
import sys
import unittest

import netsched

from . import support

SIM = os.environ.get("NETSCHED_SIM")


def cli(*args, **kw):
    return subprocess.run([SIM] + list(args), capture_output=True, text=True, timeout=120, **kw)


class TestSizeProductOverflow(unittest.TestCase):
    def test_cluster_shape_past_2_63_raises_instead_of_killing_the_interpreter(self):
        # 2^16 * 2^24 * 2^24 = 2^64 wrapped to 0: the interpreter died (exit 139)
        # on the next link query. Run in a child so a crash cannot take the suite.
        code = ("import netsched\n"
                "try:\n"
                "    c = netsched.Cluster.leaf_spine(1 << 16, 1 << 24, 1, 1, 1 << 24, 100)\n"
                "except netsched.InvalidArgumentError as e:\n"
                "    print(e)\n")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [os.path.join(support.REPO, "bindings", "python"), os.environ.get("PYTHONPATH", "")]))
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=env, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        self.assertIn("leaves*spines*links_per_pair (65536*16777216*16777216) exceeds 16777216",
                      r.stdout)

    @unittest.skipUnless(SIM and os.path.exists(SIM), "NETSCHED_SIM not set (make check sets it)")
    def test_cli_shape_past_2_63_is_a_usage_error_for_every_policy(self):
        # ff segfaulted, titan hung > 60 s, ocs-vclos said "ocs_count must be in [1, 0]"
        for policy in ("ff", "titan", "ocs-vclos"):
            r = cli("--leaves", "65536", "--spines", "16777216", "--links", "16777216",
                    "--servers", "1", "--gpus", "1", "--policy", policy)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertEqual(r.stderr, "netsched-sim: --leaves x --spines x --links "
                                       "(65536*16777216*16777216) exceeds 16777216\n")
            self.assertEqual(r.stdout, "")


if __name__ == "__main__":
    unittest.main()
