"""bench/bench_accuracy.py - what the phase model's shortcuts cost in accuracy
(issue 30 item 2): every preset run with the default shortcuts (fast-forward
window W = 16, partial restarts, deferred neighbours) and exactly (W = 0,
which turns all three off), on the embedded default workload and on Philly
time windows (rows sorted by timestamp, NS_ACC_WINDOWS of NS_ACC_JOBS jobs,
on NS_ACC_CLUSTER = leaves,spines,servers,gpus,links,gbps). Prints, per
(workload, preset): the run times, the errors of avg JCT, p95 JCT and
makespan, and the mean |per-job JCT error|. An exact run that does not end
within NS_ACC_LIMIT seconds (default 120) is reported as such: the exact
model is not yet fast enough to be the reference there (issue 30 item 1).

    make bench-accuracy                      # default workload + 3 windows
    NS_ACC_POLICIES=ff,titan NS_ACC_WINDOWS=1 make bench-accuracy

Each run is a child process (a time limit that cannot leave a half-run
simulator behind). Reads ../shared/data (NS_DATA_DIR); windows are written
to a temporary directory, never into the project.
"""
import csv
import multiprocessing as mp
import os
import sys
import tempfile
import time

from netsched import sim


def run_one(q, policy, trace, window, cluster):
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
    q = mp.Queue()
    p = mp.Process(target=run_one, args=(q, policy, trace, window, cluster))
    p.start()
    p.join(limit)
    if p.is_alive():
        p.kill()
        p.join()
        return None
    return q.get() if not q.empty() else None


def windows(n, jobs, tmp):
    data = os.environ.get("NS_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "..",
                                                      "shared", "data"))
    path = os.path.join(data, "traces", "philly-adaptdl.csv")
    if n == 0 or not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    rows.sort(key=lambda r: r["timestamp"])
    out = []
    for w in range(n):  # spread over the trace, away from its sparse start
        start = int(len(rows) * (0.25 + 0.6 * w / max(n, 1)))
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
    limit = float(os.environ.get("NS_ACC_LIMIT", "120"))
    nwin = int(os.environ.get("NS_ACC_WINDOWS", "3"))
    jobs = int(os.environ.get("NS_ACC_JOBS", "1500"))
    cluster = [float(x) if i == 5 else int(x) for i, x in
               enumerate(os.environ.get("NS_ACC_CLUSTER", "4,8,8,8,2,10").split(","))]
    names = os.environ.get("NS_ACC_POLICIES")
    policies = names.split(",") if names else list(sim.policies())
    print("accuracy of the shortcuts: default (W = 16) vs exact (W = 0); limit %g s per run"
          % limit)
    print("| workload | policy | default cpu s | exact cpu s | avg JCT err % | p95 JCT err % | "
          "makespan err % | mean abs job JCT err % |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        loads = [("default", None, None)] + [
            ("philly %s +%d" % (ts, jobs), path, cluster) for path, ts in windows(nwin, jobs, tmp)]
        for label, trace, cl in loads:
            for pol in policies:
                a = timed(pol, trace, int(os.environ.get("NS_ACC_W", "16")), cl, limit)
                b = timed(pol, trace, 0, cl, limit)
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
