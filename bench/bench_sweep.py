#!/usr/bin/env python3
"""Wall time of one `python3 -m netsched.sweep` grid with 1 and with 2 local
Dask workers, run in turn (1, 2, 1, 2, ...) so each pair's ratio is taken on
the same machine state. The whole command is timed: Python start-up, Dask's
local cluster, the cells and the summary.

Grid: titan, cassini-ff x seeds 1, 2 on a synthetic Tiresias-format trace of
8,000 jobs (the AdaDUAL size mix, Poisson arrivals every 4 s on average,
1000-6000 iterations, the four embedded models; written by this script with
a fixed seed into a temporary directory), cluster 8x8x8 (512 GPUs), max-min
network: four cells of ~1.5 s CPU each. Not run by `make bench` (C only); after `make`:
    /usr/bin/python3 bench/bench_sweep.py [pairs]
"""

import os
import random
import subprocess
import sys
import tempfile
import time

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def write_trace(path, jobs=8000, seed=1):
    r = random.Random(seed)
    sizes = [1] * 80 + [2] * 14 + [4] * 26 + [8] * 30 + [16] * 8 + [32] * 2
    models = ["vgg16", "resnet50", "inception3", "lstm"]
    t = 0.0
    with open(path, "w") as f:
        f.write("job_id,num_gpu,submit_time,iterations,model_name\n")
        for i in range(jobs):
            t += r.expovariate(1 / 4.0)
            f.write("%d,%d,%d,%d,%s\n" % (i, r.choice(sizes), int(t), r.randint(1000, 6000),
                                         r.choice(models)))


def sweep(tmp, trace, workers, k):
    out = os.path.join(tmp, "out-%d-%d.csv" % (workers, k))  # fresh: nothing to resume
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "bindings", "python"),
               NETSCHED_LIBRARY=os.path.join(REPO, "lib", "libnetsched.so.0"))
    t = time.monotonic()
    subprocess.run([sys.executable, "-m", "netsched.sweep", "--policies", "titan,cassini-ff",
                    "--seeds", "1,2", "--trace", trace, "--clusters", "8x8x8",
                    "--networks", "maxmin", "--out", out,
                    "--workers", str(workers), "--no-progress", "--quiet"],
                   env=env, check=True)
    return time.monotonic() - t


def stats(v):
    v = sorted(v)
    return v[len(v) // 2], v[min(len(v) - 1, int(len(v) * 0.99))]


def main():
    pairs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "synthetic.csv")
        write_trace(trace)
        sweep(tmp, trace, 2, -1)  # warm-up (page cache, .pyc)
        one, two, ratio = [], [], []
        for k in range(pairs):
            a = sweep(tmp, trace, 1, k)
            b = sweep(tmp, trace, 2, k)
            one.append(a), two.append(b), ratio.append(b / a)
            print("pair %d: 1 worker %.2f s, 2 workers %.2f s, ratio %.2f" % (k, a, b, b / a),
                  file=sys.stderr)
    (m1, p1), (m2, p2), (mr, pr) = stats(one), stats(two), stats(ratio)
    load = os.getloadavg()[0]
    print("| 1 worker median / p99 (s) | 2 workers median / p99 (s) | 2/1 ratio median "
          "(per pair) | pairs | load average |")
    print("|---|---|---|---|---|")
    print("| %.2f / %.2f | %.2f / %.2f | %.2f (%s) | %d | %.1f |"
          % (m1, p1, m2, p2, mr, ", ".join("%.2f" % r for r in ratio), pairs, load))


if __name__ == "__main__":
    main()
