"""bench/bench_accuracy.py - what the phase model's shortcuts cost in accuracy
(issue 30 item 2): every preset run with the default shortcuts (fast-forward
window W = 16, partial restarts, deferred neighbours) and exactly (W = 0,
which turns all three off), on the embedded default workload and on Philly
time windows (rows sorted by timestamp, NS_ACC_JOBS jobs from each row of
NS_ACC_STARTS, default 20000,45000,70000, the first NS_ACC_WINDOWS of them -
or NS_ACC_WINDOWS windows spread over the trace when NS_ACC_STARTS is empty -
on NS_ACC_CLUSTER =
leaves,spines,servers,gpus,links,gbps). Prints, per (workload, preset): the
run times, the errors of avg JCT, p95 JCT and makespan, and the mean
|per-job JCT error|. A run that uses more than NS_ACC_LIMIT CPU seconds
(default 600: every exact run of the three default windows takes less on
the shared 2-core VM, bench/RESULTS.md) is reported as such.
NS_ACC_CACHE=DIR keeps each exact run's per-job JCTs in DIR (one JSON file
per preset, window and cluster) and reuses them, so the reference is run
once while the shortcuts change (issue 30 item 2).

    make bench-accuracy                      # default workload + 3 windows
    NS_ACC_POLICIES=ff,titan NS_ACC_WINDOWS=1 make bench-accuracy

Each run is a child process (a time limit that cannot leave a half-run
simulator behind). Reads ../shared/data (NS_DATA_DIR); windows are written
to a temporary directory, never into the project.
"""
import csv
import hashlib
import json
import multiprocessing as mp
import os
import resource
import sys
import tempfile
import time

from netsched import sim


def run_one(q, policy, trace, window, cluster, limit):
    resource.setrlimit(resource.RLIMIT_CPU, (int(limit) + 1, int(limit) + 1))
    o = sim.Options()
    o.set_policy(policy)
    if cluster:
        o.set_cluster(*cluster)
    o.set_phase_window(window)
    s = sim.Simulator(o)
    if trace:
        s.load_trace(trace, "philly")
    else:
        s.load_default_workload()
    t = time.process_time()
    s.run()
    cpu = time.process_time() - t
    jct = []
    for i in range(len(s)):
        r = s.job_result(i)
        jct.append(r.finish_ms - r.arrival_ms)
    q.put({"cpu": cpu, "avg": s.metric(sim.Metric.AVG_JCT_MS),
           "p95": s.metric(sim.Metric.P95_JCT_MS), "span": s.metric(sim.Metric.MAKESPAN_MS),
           "jct": jct})


def timed(policy, trace, window, cluster, limit):
    """One run in a child limited to `limit` CPU seconds (the machine is
    shared: wall time is not the code's); None if it did not finish."""
    q = mp.Queue()
    p = mp.Process(target=run_one, args=(q, policy, trace, window, cluster, limit))
    p.start()
    out = None
    while p.is_alive() and out is None:
        try:
            out = q.get(timeout=1.0)
        except Exception:
            pass
    if out is None and not q.empty():
        out = q.get()
    p.join()
    return out


def cached(policy, trace, cluster, limit):
    """The exact run (W = 0), from NS_ACC_CACHE when it holds it."""
    cache = os.environ.get("NS_ACC_CACHE")
    if not cache:
        return timed(policy, trace, 0, cluster, limit)
    h = hashlib.sha256()
    if trace:
        with open(trace, "rb") as f:
            h.update(f.read())
    h.update(repr((policy, cluster)).encode())
    path = os.path.join(cache, "exact-%s-%s.json" % (policy, h.hexdigest()[:16]))
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    out = timed(policy, trace, 0, cluster, limit)
    if out is not None:
        os.makedirs(cache, exist_ok=True)
        with open(path + ".tmp", "w") as f:
            json.dump(out, f)
        os.replace(path + ".tmp", path)
    return out


def windows(n, jobs, tmp, starts=None):
    data = os.environ.get("NS_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "..",
                                                      "shared", "data"))
    path = os.path.join(data, "traces", "philly-adaptdl.csv")
    if n == 0 or not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    rows.sort(key=lambda r: r["timestamp"])
    out = []
    if starts:
        n = len(starts)
    for w in range(n):  # given rows, or spread over the trace, away from its sparse start
        start = starts[w] if starts else int(len(rows) * (0.25 + 0.6 * w / max(n, 1)))
        name = os.path.join(tmp, "philly-w%d.csv" % (w + 1))
        with open(name, "w", newline="") as f:
            wr = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            wr.writeheader()
            wr.writerows(rows[start:start + jobs])
        out.append((name, rows[start]["timestamp"]))
    return out


def pct(a, b):
    return 100.0 * (a - b) / b if b else 0.0


def main():
    limit = float(os.environ.get("NS_ACC_LIMIT", "600"))
    nwin = int(os.environ.get("NS_ACC_WINDOWS", "3"))
    starts = [int(x) for x in os.environ.get("NS_ACC_STARTS", "20000,45000,70000").split(",")
              if x.strip()]
    starts = starts[:nwin]  # NS_ACC_WINDOWS=1: the first one only; 0: none
    jobs = int(os.environ.get("NS_ACC_JOBS", "1500"))
    cluster = [float(x) if i == 5 else int(x) for i, x in
               enumerate(os.environ.get("NS_ACC_CLUSTER", "4,8,8,8,2,10").split(","))]
    names = os.environ.get("NS_ACC_POLICIES")
    policies = names.split(",") if names else list(sim.policies())
    print("accuracy of the shortcuts: default (W = 16) vs exact (W = 0); limit %g CPU s per run"
          % limit)
    print("| workload | policy | default cpu s | exact cpu s | avg JCT err % | p95 JCT err % | "
          "makespan err % | mean abs job JCT err % |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        loads = [("default", None, None)] + [
            ("philly %s +%d" % (ts, jobs), path, cluster)
            for path, ts in windows(nwin, jobs, tmp, starts)]
        for label, trace, cl in loads:
            for pol in policies:
                a = timed(pol, trace, int(os.environ.get("NS_ACC_W", "16")), cl, limit)
                b = cached(pol, trace, cl, limit)
                if a is None or b is None:
                    print("| %s | %s | %s | %s | - | - | - | - |" % (
                        label, pol, "%.2f" % a["cpu"] if a else "> %g (limit)" % limit,
                        "%.2f" % b["cpu"] if b else "> %g (limit)" % limit))
                    sys.stdout.flush()
                    continue
                per = [abs(x - y) / y for x, y in zip(a["jct"], b["jct"]) if y > 0 and x == x]
                print("| %s | %s | %.2f | %.2f | %+.2f | %+.2f | %+.2f | %.2f |" % (
                    label, pol, a["cpu"], b["cpu"], pct(a["avg"], b["avg"]),
                    pct(a["p95"], b["p95"]), pct(a["span"], b["span"]),
                    100.0 * sum(per) / max(len(per), 1)))
                sys.stdout.flush()


if __name__ == "__main__":
    main()
