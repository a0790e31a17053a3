#!/usr/bin/env python3
"""The simulator from Python: run a few policy presets on the same small
workload, then a placement policy written in Python, and compare.

Run from a checkout after `make`:
    PYTHONPATH=bindings/python python3 examples/python/simulate.py
"""

import netsched
from netsched import sim


def workload(s):
    """24 jobs of the embedded model profiles arriving over 2 minutes."""
    models = list(sim.Model)
    for i in range(24):
        s.add_model_job("job-%02d" % i, arrival_ms=5000.0 * i, gpus=(1, 2, 4, 8)[i % 4],
                        iterations=200 + 50 * (i % 5), model=models[i % len(models)])


def spread(cluster, job, out):
    """A deliberately network-unfriendly policy: one GPU per server."""
    out.clear()
    out.bind(cluster)
    need, gps = job.gpus, cluster.gpus_per_server
    for k in range(gps):
        for server in range(cluster.server_count):
            if need and cluster.gpu_is_free(server * gps + k):
                out.add_gpu(server * gps + k)
                need -= 1
    if need:
        raise netsched.NoSpaceError("spread: %d GPUs short" % need)


def report(name, s):
    m = s.metrics()
    print("%-14s avg JCT %7.1f s   makespan %7.1f s   comm overhead %5.1f %%"
          % (name, m["avg_jct_ms"] / 1e3, m["makespan_ms"] / 1e3, 100 * m["comm_overhead"]))


def main():
    for policy in ("ff", "lwf-1", "ada-srsf", "cassini-ff"):
        with sim.Simulator(policy=policy, seed=1) as s:
            workload(s)
            s.run()
            report(policy, s)
    with sim.Simulator(place_fn=spread) as s:
        workload(s)
        s.run()
        report("python spread", s)


if __name__ == "__main__":
    main()
