#!/usr/bin/env python3
"""Overhead of the Python bindings over raw ctypes calls (median and p99 per
call, ratio side by side). Not run by `make bench` (C only); run it after
`make` with:
    PYTHONPATH=bindings/python python3 bench/bench_python.py
"""

import time

import netsched
from netsched import Cluster, Job, Placement, _clib, lwf


def bench(fn, n=20000, batch=10):
    samples = []
    for _ in range(n // batch):
        t = time.perf_counter_ns()
        for _ in range(batch):
            fn()
        samples.append((time.perf_counter_ns() - t) / batch / 1e3)
    samples.sort()
    return samples[len(samples) // 2], samples[int(len(samples) * 0.99)]


def row(name, wrapped, raw):
    (m, p), (rm, rp) = wrapped, raw
    print("%-34s median %6.2f us  p99 %6.2f us | raw ctypes %6.2f / %6.2f us | ratio %.2f"
          % (name, m, p, rm, rp, m / rm))


def main():
    print("libnetsched %s from %s" % (netsched.version(), netsched.library_path))
    with Cluster.leaf_spine(16, 8, 8, 8, 1, 100.0) as c, Job("j", 8) as j, Placement() as p:
        lib, cp, jp, pp = _clib.lib, c._ptr, j._ptr, p._ptr
        row("Job.gpus", bench(lambda: j.gpus), bench(lambda: lib.ns_job_gpus(jp)))
        row("Job(...) + close()", bench(lambda: Job("x", 4).close()),
            bench(lambda: lib.ns_job_free(lib.ns_job_new(b"x", 4))))
        row("lwf.place(out=p), 1024 GPUs", bench(lambda: lwf.place(c, j, 1, out=p), 5000),
            bench(lambda: lib.ns_lwf_place(cp, jp, 1, pp), 5000))
        row("lwf.place -> new Placement", bench(lambda: lwf.place(c, j, 1).close(), 5000),
            bench(lambda: lib.ns_lwf_place(cp, jp, 1, pp), 5000))


if __name__ == "__main__":
    main()
