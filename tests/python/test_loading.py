"""Loading the library and the signature table: the table matches the
public headers exactly, the loader honours NETSCHED_LIBRARY, versions agree."""

import ctypes
import glob
import os
import re
import shutil
import subprocess
import sys
import unittest
from ctypes import POINTER, c_char_p, c_double, c_int, c_size_t, c_uint64, c_void_p

import netsched
from netsched import _clib

from . import support

_HANDLES = {"ns_job": _clib.JOB, "ns_link": _clib.LINK, "ns_cluster": _clib.CLUSTER,
            "ns_placement": _clib.PLACEMENT, "ns_cassini_opts": _clib.CASSINI_OPTS,
            "ns_affinity": _clib.AFFINITY, "ns_candidate": _clib.CANDIDATE,
            "ns_titan_opts": _clib.TITAN_OPTS, "ns_vclos_opts": _clib.VCLOS_OPTS,
            "ns_delay_tuner": _clib.DELAY_TUNER, "ns_sim_opts": _clib.SIM_OPTS,
            "ns_sim": _clib.SIM, "ns_policy": _clib.POLICY, "ns_queue": _clib.QUEUE,
            "ns_decision": _clib.DECISION}
_SCALARS = {"void": None, "void*": c_void_p, "ns_sim_place_fn": _clib.SIM_PLACE_FN,
            "ns_policy_place_fn": _clib.POLICY_PLACE_FN,
            "ns_sim_progress_fn": _clib.SIM_PROGRESS_FN,
            "double(*)(int,int,void*)": _clib.TITAN_PAIR_FN, "int": c_int, "double": c_double, "size_t": c_size_t, "uint64_t": c_uint64,
            "char*": c_char_p}


def _enum_types():
    """Names of the public enums (passed as C int)."""
    names = set()
    for path in glob.glob(os.path.join(support.REPO, "include", "netsched", "*.h")):
        with open(path) as f:
            names.update(re.findall(r"typedef\s+enum\s+\w*\s*\{[^}]*\}\s*(\w+)\s*;", f.read()))
    return names


def _ctype_of(c_type):
    """The ctypes type a C declaration's type must map to."""
    t = re.sub(r"\bconst\b", "", c_type).replace(" ", "")
    if t in _SCALARS:
        return _SCALARS[t]
    if t in _enum_types():
        return c_int
    if t.endswith("*"):
        inner = t[:-1]
        if inner in _HANDLES:
            return _HANDLES[inner]
        return POINTER(_ctype_of(inner))
    raise AssertionError("C type %r has no mapping in this test" % c_type)


def _top_level_split(s):
    """Splits a parameter list at commas outside parentheses."""
    out, depth, cur = [], 0, ""
    for ch in s:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return out + [cur]


def _param_type(p):
    """A parameter's type without its name; a function pointer
    `double (*fn)(int a, void *u)` becomes `double(*)(int,void*)`."""
    m = re.match(r"(.*?)\(\s*\*\s*\w+\s*\)\s*\((.*)\)$", p, re.S)
    if m:
        inner = [_param_type(q.strip()) for q in _top_level_split(m.group(2))]
        return (m.group(1).strip() + "(*)(" + ",".join(inner) + ")").replace(" ", "")
    return re.match(r"(.*?)\w+$", p, re.S).group(1).strip()


def declared_functions():
    """{name: (return type, [param types])} of every NS_API declaration."""
    decls = {}
    for path in sorted(glob.glob(os.path.join(support.REPO, "include", "netsched", "*.h"))):
        with open(path) as f:
            text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
        text = re.sub(r"^\s*#.*$", "", text, flags=re.M)  # the NS_API macro itself
        for m in re.finditer(r"^NS_API\s+([^;(]*?)\b(ns_\w+)\s*\(((?:[^()]|\([^()]*\))*)\)\s*;",
                             text, re.M):
            params = [p.strip() for p in _top_level_split(m.group(3))]
            if params == ["void"]:
                params = []
            types = [_param_type(p) for p in params]
            decls[m.group(2)] = (m.group(1).strip(), types)
    return decls


class TestSignatureTable(unittest.TestCase):
    def test_headers_parsed(self):
        self.assertTrue({"ns_status", "ns_collective", "ns_tier"} <= _enum_types())
        decls = declared_functions()
        self.assertIn("ns_cluster_commit", decls)
        self.assertEqual(decls["ns_cassini_rank"][1][0], "ns_candidate *const *")
        self.assertGreater(len(decls), 120)

    def test_every_declared_function_is_in_the_table(self):
        missing = sorted(set(declared_functions()) - set(_clib.table()))
        self.assertEqual(missing, [], "declared in include/netsched/*.h but not in "
                         "bindings/python/netsched/_clib.py _TABLE")

    def test_table_has_no_undeclared_function(self):
        extra = sorted(set(_clib.table()) - set(declared_functions()))
        self.assertEqual(extra, [])

    def test_table_types_match_the_headers(self):
        table = _clib.table()
        for name, (ret, params) in declared_functions().items():
            with self.subTest(name=name):
                restype, argtypes = table[name]
                self.assertIs(restype, _ctype_of(ret), "restype of %s" % name)
                self.assertEqual(len(argtypes), len(params), "arity of %s" % name)
                for i, (got, c_type) in enumerate(zip(argtypes, params)):
                    self.assertIs(got, _ctype_of(c_type), "%s arg %d (%s)" % (name, i, c_type))

    @unittest.skipUnless(shutil.which("nm"), "nm not installed")
    def test_every_exported_symbol_is_bound(self):
        out = subprocess.run(["nm", "-D", "--defined-only", os.path.realpath(_clib.path)],
                             capture_output=True, text=True, check=True).stdout
        exported = {ln.split()[2].split("@")[0] for ln in out.splitlines()
                    if len(ln.split()) == 3 and ln.split()[2].startswith("ns_")}
        self.assertTrue(exported)
        self.assertEqual(sorted(exported - set(_clib.table())), [])
        self.assertEqual(sorted(set(_clib.table()) - exported), sorted(netsched.missing_symbols()))

    def test_every_table_function_is_wrapped(self):
        # Each C function is called by some wrapper of the package (so the
        # round-trip tests reach all of them through the Python surface).
        pkg = os.path.dirname(netsched.__file__)
        src = ""
        for name in os.listdir(pkg):
            if name.endswith(".py") and name != "_clib.py":
                with open(os.path.join(pkg, name)) as f:
                    src += f.read()
        unwrapped = [n for n in _clib.table()
                     if not re.search(r'\blib\.%s\b|"%s"' % (n, n), src)]
        self.assertEqual(unwrapped, [])

    def test_missing_symbol_raises(self):
        stub = _clib._missing("ns_not_a_function")
        with self.assertRaises(netsched.MissingSymbolError) as cm:
            stub()
        self.assertIn("ns_not_a_function", str(cm.exception))
        self.assertIsInstance(cm.exception, NotImplementedError)
        with self.assertRaises(KeyError):
            netsched.has_symbol("ns_not_a_function")

    def test_core_is_complete(self):
        core = [n for n in declared_functions() if n not in _POLICY_ONLY]
        self.assertEqual([n for n in core if not netsched.has_symbol(n)], [])


# Functions outside the core: allowed to be missing until their module lands.
_POLICY_ONLY = {n for n in _clib.table() if n.startswith(("ns_cassini", "ns_affinity",
                                                          "ns_candidate", "ns_comm_",
                                                          "ns_adadual", "ns_allreduce",
                                                          "ns_contention", "ns_lwf",
                                                          "ns_place_", "ns_titan",
                                                          "ns_collective", "ns_vclos",
                                                          "ns_delay", "ns_dally",
                                                          "ns_sim"))}


class TestVersion(unittest.TestCase):
    def test_version_matches_header(self):
        v = support.header_version()
        self.assertEqual(netsched.version(), v)
        major, minor, patch = (int(x) for x in v.split("."))
        self.assertEqual(netsched.version_number(), major * 10000 + minor * 100 + patch)

    def test_package_version_matches_library(self):
        self.assertEqual(netsched.__version__, support.header_version())
        with open(os.path.join(support.REPO, "bindings", "python", "pyproject.toml")) as f:
            self.assertIn('version = "%s"' % support.header_version(), f.read())


def _run_python(code, env_update):
    env = dict(os.environ)
    env.update(env_update)
    env = {k: v for k, v in env.items() if v is not None}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=60)


class TestLoader(unittest.TestCase):
    def test_env_var_is_used(self):
        if os.environ.get("NETSCHED_LIBRARY"):
            self.assertEqual(netsched.library_path, os.environ["NETSCHED_LIBRARY"])

    def test_bad_env_var_fails_clearly_without_fallback(self):
        r = _run_python("import netsched", {"NETSCHED_LIBRARY": "/nonexistent/libnetsched.so.0"})
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("ImportError", r.stderr)
        self.assertIn("NETSCHED_LIBRARY", r.stderr)
        self.assertIn("/nonexistent/libnetsched.so.0", r.stderr)

    def test_repo_lib_is_second(self):
        repo_lib = os.path.join(support.REPO, "lib", _clib.SONAME)
        if not os.path.exists(repo_lib):
            self.skipTest("no %s (run make)" % repo_lib)
        r = _run_python("import netsched; print(netsched.library_path)",
                        {"NETSCHED_LIBRARY": None})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), repo_lib)

    def test_handle_types_are_distinct(self):
        with netsched.Job("a", 1) as j:
            with self.assertRaises(ctypes.ArgumentError):
                _clib.lib.ns_link_job_count(j._ptr)


if __name__ == "__main__":
    unittest.main()
