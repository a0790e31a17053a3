"""`pip install bindings/python` works offline (no index, no build
isolation: setuptools only) and the installed package loads the library.

setuptools older than 70.1 builds wheels through the separate `wheel`
package; the test uses the first interpreter (this one, then the system's
/usr/bin/python3) that has pip, setuptools and a way to build wheels, and
skips with the reason when there is none."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import netsched

from . import support

_PROBE = r"""
import importlib.util as u, sys
import setuptools
v = tuple(int(x) for x in setuptools.__version__.split(".")[:2])
ok = u.find_spec("pip") and (v >= (70, 1) or u.find_spec("wheel"))
print(setuptools.__version__)
sys.exit(0 if ok else 1)
"""


def _builder():
    """(python able to pip-install a setuptools project offline, why not)."""
    reasons = []
    for py in dict.fromkeys([sys.executable, "/usr/bin/python3"]):
        if not os.path.exists(py):
            continue
        try:
            r = subprocess.run([py, "-c", _PROBE], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.SubprocessError) as e:
            reasons.append("%s: %s" % (py, e))
            continue
        if r.returncode == 0:
            return py, None
        reasons.append("%s: needs pip and setuptools >= 70.1 or the wheel package" % py)
    return None, "; ".join(reasons) or "no python found"


PYTHON, WHY_NOT = _builder()


@unittest.skipUnless(PYTHON, "cannot build wheels offline here: %s" % WHY_NOT)
class TestPipInstall(unittest.TestCase):
    def test_offline_install_and_import(self):
        with tempfile.TemporaryDirectory() as tmp:
            # Build from a copy: setuptools writes build/ and *.egg-info in the
            # source directory, which must stay clean.
            src = os.path.join(tmp, "src")
            shutil.copytree(os.path.join(support.REPO, "bindings", "python"), src,
                            ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
            target = os.path.join(tmp, "site")
            r = subprocess.run([PYTHON, "-m", "pip", "install", "--no-index",
                                "--no-build-isolation", "--no-deps", "--quiet",
                                "--disable-pip-version-check", "--target", target, src],
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertTrue(os.path.exists(os.path.join(target, "netsched", "_clib.py")))
            env = dict(os.environ)
            env["PYTHONPATH"] = target
            env["NETSCHED_LIBRARY"] = netsched.library_path
            code = "import netsched; print(netsched.__file__); print(netsched.version())"
            r = subprocess.run([PYTHON, "-c", code], env=env, cwd=tmp,
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            where, version = r.stdout.split()
            self.assertTrue(where.startswith(target), where)
            self.assertEqual(version, support.header_version())


if __name__ == "__main__":
    unittest.main()
