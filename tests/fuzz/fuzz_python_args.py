"""Fuzzes the argument checks of the Python bindings: every public function
and method of netsched (found by introspection) is called with arguments
drawn from a pool of hostile values -- ints beyond 32 and 64 bits, bools,
NaN/inf/-0.0/1e300/denormals, strings with NUL or lone surrogates, bytes,
None, wrong handle types, closed handles, callables -- and live handles.

Invariant: a call returns, or raises TypeError or a NetschedError subclass
(the bindings' documented failures); never another exception (OverflowError,
ctypes.ArgumentError, UnicodeEncodeError, SystemError ...) and never a
crash of the interpreter (make fuzz runs this as its own process; a signal
fails the run).

Not coverage-guided (libFuzzer does not drive Python here): cases are drawn
from a seeded generator. A case is (callable name, [pool value names]); the
seeds in tests/fuzz/corpus/fuzz_python_args/*.json are replayed first, and a
failing case is written to the artifact directory as JSON.

    python3 tests/fuzz/fuzz_python_args.py --runs 1000 --seed 1 \\
        --corpus tests/fuzz/corpus/fuzz_python_args --artifacts build/fuzz/artifacts
"""

import argparse
import ctypes
import inspect
import json
import math
import os
import random
import sys
import time

import netsched
from netsched import (Cluster, Job, Link, Placement, adadual, cassini, dally, lwf, sim,
                      titan, vclos)

# Callables never fuzzed: they free or rebind the world's handles (close,
# __exit__), run whole simulations, write files, or block.
SKIP = {"close", "run", "write_jobs_csv", "load_default_workload", "policies"}


class World:
    """Live handles the pool can hand out; rebuilt for every case."""

    def __init__(self):
        self.cluster = Cluster.leaf_spine(2, 2, 2, 4, 1, 100.0)
        self.job = Job("j", 2, iteration_ms=100, phases=[(40, 10), (60, 0)],
                       compute_ms=(10, 20), model_bytes=1000, iterations=(10, 0))
        self.job2 = Job("k", 1, iteration_ms=50, phases=[(50, 5)])
        self.link = Link("l", 10.0, [self.job, self.job2])
        self.placement = Placement([0, 1], self.cluster)
        self.closed_job = Job("c", 1)
        self.closed_job.close()
        self.cassini_opts = cassini.Options()
        self.titan_opts = titan.Options()
        self.vclos_opts = vclos.Options()
        self.tuner = dally.DelayTuner(1e6)
        self.affinity = cassini.Affinity()
        self.candidate = cassini.Candidate([(self.job, self.link)])
        self.sim_opts = sim.Options()
        self.sim = sim.Simulator(self.sim_opts)
        self.sim.add_job("a", 0, 1, 10, 1.0, 0)

    def close(self):
        for name in ("sim", "sim_opts", "candidate", "affinity", "tuner", "vclos_opts",
                     "titan_opts", "cassini_opts", "placement", "link", "cluster", "job2",
                     "job"):
            getattr(self, name).close()


POOL = {
    "int0": lambda w: 0, "int1": lambda w: 1, "int3": lambda w: 3, "int-1": lambda w: -1,
    "int2^31": lambda w: 1 << 31, "int-2^31-1": lambda w: -(1 << 31) - 1,
    "int2^63": lambda w: 1 << 63, "int2^64": lambda w: 1 << 64, "int-2^64": lambda w: -(1 << 64),
    "int10^100": lambda w: 10 ** 100, "true": lambda w: True, "false": lambda w: False,
    "f0.5": lambda w: 0.5, "f-0.0": lambda w: -0.0, "fnan": lambda w: math.nan,
    "finf": lambda w: math.inf, "f-inf": lambda w: -math.inf, "f1e300": lambda w: 1e300,
    "f1e16": lambda w: 1e16, "fdenormal": lambda w: 5e-324, "f-1": lambda w: -1.0,
    "str": lambda w: "ff", "str-empty": lambda w: "", "str-nul": lambda w: "a\0b",
    "str-surrogate": lambda w: "\ud800", "str-long": lambda w: "x" * 5000,
    "str-policy": lambda w: "lwf-1", "str-path": lambda w: "/nonexistent/trace.csv",
    "bytes": lambda w: b"ff", "none": lambda w: None, "object": lambda w: object(),
    "list-int": lambda w: [0, 1, 2], "list-bad": lambda w: [0, "x", None],
    "list-huge": lambda w: [1 << 40], "list-pairs": lambda w: [(1.0, 2.0)],
    "tuple": lambda w: (1, 2), "dict": lambda w: {"a": 1},
    "callable": lambda w: (lambda *a: None), "callable-raises": lambda w: (lambda *a: 1 / 0),
    "cluster": lambda w: w.cluster, "job": lambda w: w.job, "job2": lambda w: w.job2,
    "link": lambda w: w.link, "placement": lambda w: w.placement,
    "closed-job": lambda w: w.closed_job, "cassini-opts": lambda w: w.cassini_opts,
    "titan-opts": lambda w: w.titan_opts, "vclos-opts": lambda w: w.vclos_opts,
    "tuner": lambda w: w.tuner, "affinity": lambda w: w.affinity,
    "candidate": lambda w: w.candidate, "candidates": lambda w: [w.candidate],
    "sim-opts": lambda w: w.sim_opts, "sim": lambda w: w.sim,
    "enum-coll": lambda w: netsched.Collective.RING, "enum-tier": lambda w: netsched.Tier.RACK,
    "enum-metric": lambda w: sim.Metric.AVG_JCT_MS,
}
POOL_NAMES = sorted(POOL)

# Receivers of methods: the world's handle of each class.
RECEIVERS = {
    Cluster: "cluster", Job: "job", Link: "link", Placement: "placement",
    cassini.Options: "cassini_opts", titan.Options: "titan_opts", vclos.Options: "vclos_opts",
    dally.DelayTuner: "tuner", cassini.Affinity: "affinity", cassini.Candidate: "candidate",
    sim.Options: "sim_opts", sim.Simulator: "sim",
}


def targets():
    """{name: (receiver attribute or None, attribute name on it / module
    function, positional parameter count range)}"""
    out = {}
    for mod in (lwf, titan, vclos, cassini, dally, adadual, sim):
        for name, fn in vars(mod).items():
            if name.startswith("_") or name in SKIP or not inspect.isfunction(fn):
                continue
            if getattr(fn, "__module__", None) != mod.__name__:
                continue
            out["%s.%s" % (mod.__name__.split(".")[-1], name)] = (None, fn, arity(fn))
    for cls, attr in RECEIVERS.items():
        for name, member in inspect.getmembers(cls):
            if name.startswith("_") or name in SKIP:
                continue
            if isinstance(member, property):
                if member.fset is not None:
                    out["%s.%s=" % (cls.__name__, name)] = (attr, name, (1, 1))
                continue
            if inspect.isfunction(member):
                lo, hi = arity(member)
                out["%s.%s" % (cls.__name__, name)] = (attr, name, (max(lo - 1, 0), hi - 1))
    return out


def arity(fn):
    params = [p for p in inspect.signature(fn).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = sum(1 for p in params if p.default is p.empty)
    return required, len(params)


# TypeError and NetschedError everywhere; IndexError from index accessors
# (Link.job, Placement.gpu: the sequence protocol); OSError from the methods
# that read a file (documented: FileNotFoundError / PermissionError).
ALLOWED = (TypeError, netsched.NetschedError)


def allowed(name, e):
    if isinstance(e, ALLOWED):
        return True
    if isinstance(e, IndexError) and name.split(".")[-1] in ("job", "gpu", "link", "phase"):
        return True
    return isinstance(e, OSError) and ".load_" in name


def run_case(table, case):
    """None if the case behaves, else a description of the violation."""
    name, args = case
    recv, what, _ = table[name]
    w = World()
    try:
        values = [POOL[a](w) for a in args]
        if recv is None:
            call = lambda: what(*values)  # noqa: E731
        elif name.endswith("="):
            call = lambda: setattr(getattr(w, recv), what, values[0])  # noqa: E731
        else:
            call = lambda: getattr(getattr(w, recv), what)(*values)  # noqa: E731
        try:
            call()
        except BaseException as e:  # noqa: B902 -- the finding, unless allowed
            if not allowed(name, e):
                return "%s(%s) raised %s: %s" % (name, ", ".join(args), type(e).__name__, e)
        return None
    finally:
        w.close()


def random_case(rng, table, names):
    name = rng.choice(names)
    lo, hi = table[name][2]
    if name.endswith("="):  # a property assignment takes exactly one value
        n = 1
    else:
        n = rng.randint(lo, hi) if rng.random() < 0.9 else rng.randint(0, hi + 1)
    return [name, [rng.choice(POOL_NAMES) for _ in range(n)]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=0)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--corpus", default=None)
    ap.add_argument("--artifacts", default="build/fuzz/artifacts")
    a = ap.parse_args()
    table = targets()
    names = sorted(table)
    cases = []
    if a.corpus and os.path.isdir(a.corpus):
        for f in sorted(os.listdir(a.corpus)):
            with open(os.path.join(a.corpus, f)) as fh:
                case = json.load(fh)
            if case[0] in table:  # a seed for a method since removed is skipped
                cases.append(case)
    replayed = len(cases)
    rng = random.Random(a.seed if a.seed is not None else time.time_ns())
    start, done, findings = time.monotonic(), 0, 0
    while True:
        if done < replayed:
            case = cases[done]
        elif (a.runs and done >= replayed + a.runs) or \
                (not a.runs and time.monotonic() - start > a.seconds):
            break
        else:
            case = random_case(rng, table, names)
        bad = run_case(table, case)
        done += 1
        if bad:
            findings += 1
            os.makedirs(a.artifacts, exist_ok=True)
            path = os.path.join(a.artifacts, "fuzz_python_args-%d.json" % findings)
            with open(path, "w") as fh:
                json.dump(case, fh)
            print("FINDING: %s (case in %s)" % (bad, path))
            if findings >= 10:
                break
    print("stat::number_of_executed_units: %d stat::callables: %d stat::seeds: %d "
          "stat::findings: %d" % (done, len(names), replayed, findings))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
