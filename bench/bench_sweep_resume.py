#!/usr/bin/env python3
"""Time and peak memory of resuming a complete sweep (issue 31): writes a
complete N-cell sweep CSV and its JCT-quantile file (policies ff, lwf-1 x
N/2 seeds, every metric, 201 quantiles a cell; made-up values, the files'
layout as netsched.sweep writes it) into a temporary directory, then runs
`python3 -m netsched.sweep` on the same grid with --workers 0 --quiet in a
child process: nothing is left to run, so the child only reads (and, if it
must, rewrites) the files. Reports the child's wall time and peak RSS
(ru_maxrss), median and p99 over the runs. NETSCHED_BENCH_PYTHONPATH
names another bindings/python to measure (an older checkout's, for a
before/after pair; the same library). After `make`:
    /usr/bin/python3 bench/bench_sweep_resume.py [cells] [runs]
"""

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
PKG = os.environ.get("NETSCHED_BENCH_PYTHONPATH") or os.path.join(REPO, "bindings", "python")
sys.path.insert(0, PKG)
os.environ.setdefault("NETSCHED_LIBRARY", os.path.join(REPO, "lib", "libnetsched.so.0"))

from netsched import sweep  # noqa: E402


def write_sweep(out, cells):
    names = sweep.metric_names()
    seeds = cells // 2
    with open(out, "w") as f, open(sweep.jct_path(out), "w") as g:
        f.write(",".join(sweep.COLUMNS) + "\n")
        g.write(",".join(sweep.JCT_COLUMNS) + "\n")
        for policy in ("ff", "lwf-1"):
            for seed in range(1, seeds + 1):
                key = "%s,%d,default,default,default,1.0," % (policy, seed)
                for k, name in enumerate(names):
                    f.write("%s%s,%r\n" % (key, name, 1000.0 + seed + k))
                for q in sweep.QUANTILES:
                    g.write("%s%r,%r\n" % (key, q, 1e5 * q + seed))
    return seeds


def resume(out, seeds):
    env = dict(os.environ, PYTHONPATH=PKG)
    t = time.monotonic()
    subprocess.run([sys.executable, "-m", "netsched.sweep", "--policies", "ff,lwf-1",
                    "--seeds", ",".join(map(str, range(1, seeds + 1))),
                    "--out", out, "--workers", "0", "--quiet"], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    wall = time.monotonic() - t
    # the largest peak RSS of any child so far (KiB): every run reads the same files
    return wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


def main():
    cells = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "results.csv")
        seeds = write_sweep(out, cells)
        size = os.path.getsize(sweep.jct_path(out)) / 1e6
        walls, rss = [], 0
        for _ in range(runs):
            wall, rss = resume(out, seeds)
            walls.append(wall)
        walls.sort()
        print("%d cells, quantile file %.0f MB: wall median %.2f s, p99 %.2f s; peak RSS "
              "%.0f MB (%d runs)" % (2 * seeds, size, statistics.median(walls),
                                     walls[min(len(walls) - 1, int(0.99 * len(walls)))],
                                     rss / 1024, runs))


if __name__ == "__main__":
    main()
