"""The Python examples run to completion (exit 0, < 10 s) when the library
has their module."""

import os
import subprocess
import sys
import time
import unittest

import netsched

from . import support

EXAMPLES = os.path.join(support.REPO, "examples", "python")
NEEDS = {
    "cassini_link.py": ("ns_cassini_score", "ns_cassini_rank", "ns_candidate_shift_ms",
                        "ns_cassini_candidate_from_cluster", "ns_cassini_readjust"),
    "vclos_cluster.py": ("ns_vclos_place", "ns_vclos_route"),
    "simulate.py": ("ns_sim_new", "ns_sim_run", "ns_sim_opts_set_place_fn"),
}


class TestExamples(unittest.TestCase):
    def test_every_example_is_listed(self):
        found = sorted(f for f in os.listdir(EXAMPLES) if f.endswith(".py"))
        self.assertEqual(found, sorted(NEEDS))

    def run_example(self, name):
        missing = [s for s in NEEDS[name] if not netsched.has_symbol(s)]
        if missing:
            self.skipTest("%s needs %s (module not merged yet)" % (name, ", ".join(missing)))
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [os.path.join(support.REPO, "bindings", "python")] +
            ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        env["NETSCHED_LIBRARY"] = netsched.library_path
        t0 = time.monotonic()
        r = subprocess.run([sys.executable, os.path.join(EXAMPLES, name)], env=env,
                           capture_output=True, text=True, timeout=60)
        elapsed = time.monotonic() - t0
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.strip())
        self.assertLess(elapsed, 10.0)
        return r.stdout

    def test_cassini_example(self):
        out = self.run_example("cassini_link.py")
        self.assertIn("score", out)
        self.assertIn("-> inside", out)  # sharing nothing beats two 160 ms Up phases

    def test_simulator_example(self):
        out = self.run_example("simulate.py")
        self.assertIn("python spread", out)

    def test_vclos_example(self):
        out = self.run_example("vclos_cluster.py")
        self.assertIn("virtual Clos", out)


if __name__ == "__main__":
    unittest.main()
