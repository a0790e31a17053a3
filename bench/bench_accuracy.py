"""bench/bench_accuracy.py - what the phase model's shortcuts cost in accuracy
(issue 30 item 2): every preset run with the default shortcuts (fast-forward
window W = NS_ACC_W, default 16; partial restarts; deferred neighbours) and
exactly (W = 0, which turns all three off), on the embedded default workload
and on Philly time windows (rows sorted by timestamp, NS_ACC_JOBS jobs from
each row of NS_ACC_STARTS, the first NS_ACC_WINDOWS of them, on
NS_ACC_CLUSTER = leaves,spines,servers,gpus,links,gbps).

Two comparisons, because several presets' schedules are chaotic (a tiny
timing change at one all-reduce moves later placements and admissions, so
one exact run is one trajectory among many):

 1. run for run (seed 1): default vs exact, errors of avg JCT, p95 JCT and
    makespan and the mean |per-job JCT error|; beside it the CHAOS FLOOR,
    the exact model against itself with every arrival shifted by at most
    1 ms (ns_sim_scale_arrivals(1 + 1 ms / arrival span)), and with a
    perturbation the size of the shortcuts' own (a hand-over moves a job by
    up to one iteration, 0.1-1 s): the last arrival shifted by 1 s
    (NS_ACC_CHAOS_MS / NS_ACC_CHAOS2_MS, default 1 / 1000; 0 = off).
    RUN-TIME FLOOR (Philly windows only; off by default): where jobs wait in
    a queue, arrival shifts decide nothing, but run times do. With
    NS_ACC_CHAOS_DUR = r > 0 (a relative half-width, e.g. 0.001), each of
    NS_ACC_CHAOS_DUR_DRAWS draws (default 3) rewrites the window's CSV with
    every job's duration scaled by its own factor in [1 - r, 1 + r]
    (perturb_durations: draw d always gives the same factors; every other
    byte of the window is kept), and runs it exactly (kind "durD") and with
    the shortcuts ("sdurD"). Reported per run: the exact model against its
    perturbed self (mean |error| over the draws), and the shortcut's error
    over the 1 + D trajectories (unperturbed, then each draw: shortcut vs
    exact on the same input), mean +- 95 % interval; "bias within 3 %" when
    both avg and p95 intervals lie within +-3 %.
 2. statistical, over NS_ACC_SEEDS seeds (default 10; each seed draws a
    different workload / model mix): the mean over seeds of each signed
    error with its 95 % interval (Student t), for the shortcuts and for the
    chaos floor. The shortcuts' BIAS is the shortcut error's mean: the
    target holds when its 95 % interval lies within +-3 % for avg and p95
    JCT. Where the run-for-run error exceeds 3 % but the interval does not,
    the mean |error| beside the chaos floor's says the difference is the
    model's own sensitivity, not the shortcut.

A run that uses more than NS_ACC_LIMIT CPU seconds (default 600; the
machine is shared, so CPU and not wall time: RLIMIT_CPU in the child) is
reported as such ("> limit"): where the exact run does, the exact model is
not yet fast enough to be the reference there (issue 30 item 1); such seeds
are left out of the statistics and counted.

    make bench-accuracy                          # default workload + 3 windows
    NS_ACC_POLICIES=ff,titan NS_ACC_WINDOWS=0 NS_ACC_SEEDS=4 make bench-accuracy

Knobs: NS_ACC_POLICIES (comma list, default every preset), NS_ACC_W (16),
NS_ACC_SEEDS (10; 1 = run for run only), NS_ACC_SEEDS_PHILLY (seeds per
Philly window, default 1), NS_ACC_WINDOWS (3: how many of the windows),
NS_ACC_JOBS (1500 rows each), NS_ACC_STARTS (the windows' first rows,
default 20000,45000,70000; empty: each window is the one, in its n-th of
the trace past the first quarter, whose offered load - GPU-seconds asked per
second per GPU of the cluster - is nearest NS_ACC_LOAD, 1.25),
NS_ACC_CLUSTER (4,8,8,8,2,10: 256 GPUs), NS_ACC_LIMIT (600 CPU s per run),
NS_ACC_PAR (parallel runs, 2), NS_ACC_JSON (file: every run's numbers),
NS_ACC_REPORT (comma list of such files: print their tables, run nothing),
NS_ACC_REUSE (comma list of such files: their exact and chaos-floor runs are
taken, not run again - after a change to the shortcuts only), NS_ACC_CACHE
(a directory: each exact / chaos-floor run's numbers kept in one JSON file,
keyed by the trace's bytes, preset, cluster, seed and scale - and for a
run-time draw its half-width and draw number - and reused), NS_ACC_CHAOS_DUR
(run-time floor's half-width, 0 = off), NS_ACC_CHAOS_DUR_DRAWS (3).

THE RECORD (bench/accuracy-exact.tsv, committed; NS_ACC_RECORD_FILE for
another file, a missing one for none): exact runs kept in the project, one
line each (avg, p95 and makespan, no per-job JCTs), so that the modes
below and the default one measure a shortcut change against exact runs
that took hours to make without running them again, on any machine. Every
mode takes a run from NS_ACC_CACHE first, then from the record (the mean
|per-job error| of a recorded pair is "nan"). NS_ACC_RECORD=1 (needs
NS_ACC_CACHE; no run at all) adds every cached exact run the knobs
describe to the record and refuses a cached run that disagrees with a
recorded one of the same key (the exact model changed: record afresh).
tests/python/test_bench_accuracy.py re-runs the record's cheap runs.

    NS_ACC_RECORD=1 NS_ACC_CACHE=/tmp/acc-cache make bench-accuracy

CACHED-ONLY MODE (NS_ACC_CACHED_ONLY=1; needs NS_ACC_CACHE or the record):
no exact run at all. It enumerates every exact trajectory (W = 0) in the
cache (or the record) that the knobs
describe - the presets, the default workload's seeds 1..NS_ACC_SEEDS (40 in
this mode), the Philly windows' seeds 1..NS_ACC_SEEDS_PHILLY (5 here), each
unshifted and with arrivals moved by NS_ACC_CHAOS_MS / NS_ACC_CHAOS2_MS, and
seed 1's run-time draws 1..NS_ACC_CHAOS_DUR_DRAWS (80 here) at half-width
NS_ACC_CHAOS_DUR (0.001 here) - runs the shortcut run (W = NS_ACC_W) of each
on the same input, and prints per preset, over the Philly windows' and then
the default workload's trajectories, N, the avg and p95 JCT errors' mean
+- 95 % (Student t, scipy) and mean |error| and largest |error|: the table
of docs/simulator.md ("How far the shortcuts move the results"). NS_ACC_JSON
keeps every run's errors.

    NS_ACC_CACHED_ONLY=1 NS_ACC_CACHE=/tmp/acc-cache make bench-accuracy

UNPAIRED MODE (NS_ACC_UNPAIRED=K, 1 = 200; needs NS_ACC_CACHE or the
record): the shortcuts' EXPECTED error on a chaotic preset, where run-for-run errors
measure the trajectory more than the shortcut. No exact run at all: per
preset and Philly window (seed 1; the default workload has no run-time
draws) the exact model's avg and p95 JCT over every cached exact run - the
unperturbed one and run-time draws 1..NS_ACC_CHAOS_DUR_DRAWS (80 here) at
NS_ACC_CHAOS_DUR (0.001 here), whichever the cache holds - against the
shortcut's over draws 1..K, run here (~0.5 s each on a 1,500-job window).
Printed per preset and metric: N exact, K shortcut, each side's mean and
sd, the difference of the means as % of the exact mean with its Welch 95 %
interval (Welch-Satterthwaite df, scipy's t), and a verdict: "expected error
within 3 %" (the interval inside +-3 %), "bias shown" (it excludes 0), or
"not resolved (need ~M exact draws)", M the exact draws at which a Welch
interval of today's sds, centred where it is, would do one or the other
("and K >= ..." where the K shortcut draws alone are too few).
A second table combines both estimates: the draws run by both models
(draws 1..N - 1) give the paired mean error, which cancels the trajectory
where the two models follow it alike; the other K - N + 1 shortcut draws
against the same exact runs give an unpaired one; both are unbiased for
the same expected error, and their minimum-variance combination (weights
from the sample covariance; combined_stats) is never wider than the
sharper of the two, to sampling error of the weights: near the paired
one where shortcut and exact runs move together (r near 1), near the
unpaired one where they do not. Its verdict reads as above, without "need".
NS_ACC_JSON keeps every run's avg / p95 and the statistics.

    NS_ACC_UNPAIRED=200 NS_ACC_CACHE=/tmp/acc-cache NS_ACC_POLICIES=2d-gittins \
      NS_ACC_STARTS=45000 NS_ACC_WINDOWS=1 NS_ACC_PAR=1 make bench-accuracy

Each run is a child process (a time limit that cannot leave a half-run
simulator behind). Reads ../shared/data (NS_DATA_DIR); windows are written
to a temporary directory, never into the project.
"""
import csv
import datetime
import hashlib
import json
import math
import multiprocessing as mp
import os
import random
import resource
import signal
import sys
import tempfile
import time

from netsched import sim

# Student t, two-sided 95 %, by degrees of freedom (n - 1)
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
       9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131,
       19: 2.093, 24: 2.064, 29: 2.045, 39: 2.023, 59: 2.001, 99: 1.984}


def t95(df):
    """t for df degrees of freedom, or for the largest tabled df below (a
    wider interval: conservative)."""
    return T95[max(k for k in T95 if k <= df)]


def run_one(q, spec):
    if spec.get("limit"):  # CPU seconds: the machine is shared, wall time is not the code's
        lim = int(spec["limit"]) + 1  # SIGXCPU at lim (the hard limit's SIGKILL 1 s later)
        resource.setrlimit(resource.RLIMIT_CPU, (lim, lim + 1))
    o = sim.Options()
    o.set_policy(spec["policy"])
    if spec["cluster"]:
        o.set_cluster(*spec["cluster"])
    o.set_phase_window(spec["window"])
    o.set_seed(spec["seed"])
    s = sim.Simulator(o)
    if spec["trace"]:
        s.load_trace(spec["trace"], "philly")
    else:
        s.load_default_workload()
    if spec["scale"] != 1.0:
        s.scale_arrivals(spec["scale"])
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


class Runner:
    """Runs specs in child processes, at most `par` at once. A child that
    the CPU limit ends (run_one: RLIMIT_CPU = spec["limit"]; SIGXCPU), or
    that runs past `wall` seconds of wall time (a backstop), gives
    {"timeout": limit}."""

    def __init__(self, par, limit, target=None, wall=None):
        self.par, self.limit, self.target = par, limit, target or run_one
        self.wall = wall if wall is not None else 20.0 * limit

    def run_all(self, specs, done_cb, ready=lambda spec: True, skip=lambda spec: False):
        todo = list(enumerate(specs))
        live = {}
        while todo or live:
            while len(live) < self.par:
                at = next((x for x, (_, sp) in enumerate(todo) if skip(sp) or ready(sp)), None)
                if at is None:
                    break
                i, spec = todo.pop(at)
                if skip(spec):
                    done_cb(spec, None)
                    continue
                q = mp.Queue()
                p = mp.Process(target=self.target, args=(q, spec))
                p.start()
                live[i] = (p, q, time.time(), spec)
            time.sleep(0.02)
            for i in list(live):
                p, q, t0, spec = live[i]
                res = None
                if not q.empty():
                    res = q.get()
                    p.join()
                elif not p.is_alive():
                    p.join()
                    res = q.get() if not q.empty() else (
                        {"timeout": self.limit} if p.exitcode == -signal.SIGXCPU else
                        {"failed": p.exitcode})
                elif time.time() - t0 > self.wall:
                    p.kill()
                    p.join()
                    res = {"timeout": self.limit}
                else:
                    continue
                del live[i]
                done_cb(spec, res)


def span_s(part):
    t = [datetime.datetime.fromisoformat(part[x]["timestamp"]) for x in (0, -1)]
    return (t[1] - t[0]).total_seconds()


def offered(part, gpus):
    """GPU-seconds the jobs ask per second of their arrivals, per GPU of the
    cluster: 1 keeps every GPU busy, more queues."""
    need = sum(float(r["num_gpus"]) * float(r["duration"] or 0) for r in part
               if int(r["num_gpus"]) <= gpus)
    return need / max(span_s(part), 1.0) / gpus


def cache_key(spec):
    """The name of an exact or chaos-floor run (W = 0: the shortcuts do not
    change it) in NS_ACC_CACHE and in the record, "exact-PRESET-HASH", keyed
    by the trace's bytes, preset, cluster, seed and arrival scale (seed 1
    unscaled: the key of the first version of this cache) and for a
    run-time draw its half-width and draw; None for a shortcut run."""
    if spec["window"] != 0:
        return None
    h = hashlib.sha256()
    if spec["trace"]:
        with open(spec["trace"], "rb") as f:
            h.update(f.read())
    key = (spec["policy"], spec["cluster"])
    if spec["seed"] != 1 or spec["scale"] != 1.0:
        key += (spec["seed"], spec["scale"])
    if spec.get("dur"):  # a run-time draw: (half-width, draw)
        key += ("dur",) + tuple(spec["dur"])
    h.update(repr(key).encode())
    return "exact-%s-%s" % (spec["policy"], h.hexdigest()[:16])


def cache_path(spec):
    """NS_ACC_CACHE's file for an exact or chaos-floor run (cache_key), or
    None (no cache, or a shortcut run)."""
    cache = os.environ.get("NS_ACC_CACHE")
    key = cache_key(spec)
    if not cache or key is None:
        return None
    return os.path.join(cache, key + ".json")


RECORD_COLUMNS = ("key", "window", "policy", "seed", "run", "avg_ms", "p95_ms", "makespan_ms",
                  "cpu_s")


def record_path():
    """The committed record of exact runs (NS_ACC_RECORD_FILE to use another)."""
    return os.environ.get("NS_ACC_RECORD_FILE") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "accuracy-exact.tsv")


_RECORD = {}


def read_record(path=None):
    """{key: row} of the record (bench/accuracy-exact.tsv): one exact run a
    line, tab-separated RECORD_COLUMNS, '#' lines comments; {} without it."""
    path = path or record_path()
    if path not in _RECORD:
        rows = {}
        if os.path.exists(path):
            with open(path) as f:
                for line in f:
                    if line.strip() and not line.startswith("#"):
                        row = dict(zip(RECORD_COLUMNS, line.rstrip("\n").split("\t")))
                        rows[row["key"]] = row
        _RECORD[path] = rows
    return _RECORD[path]


def exact_of(spec):
    """A kept exact run of spec: NS_ACC_CACHE's file (with every job's JCT),
    else the record's line (avg, p95 and makespan only: "jct" None), else
    None."""
    path = cache_path(spec)
    if path and os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    key = cache_key(spec)
    row = read_record().get(key) if key else None
    if row is None:
        return None
    return {"cpu": float(row["cpu_s"]), "avg": float(row["avg_ms"]), "p95": float(row["p95_ms"]),
            "span": float(row["makespan_ms"]), "jct": None}


def record_row(spec, r):
    """The record's line of exact run r of spec, by RECORD_COLUMNS (repr: every bit)."""
    return dict(zip(RECORD_COLUMNS, (cache_key(spec), spec["label"], spec["policy"],
                                     str(spec["seed"]), spec["kind"], repr(r["avg"]),
                                     repr(r["p95"]), repr(r["span"]), "%.2f" % r["cpu"])))


def run_order(row):
    """Record lines by window, preset, seed, then the unperturbed run, the
    run-time draws by number, the arrival shifts."""
    kind = row["run"]
    rank = ((0, "") if kind == "exact" else (1, "%09d" % int(kind[3:])) if kind.startswith("dur")
            else (2, kind))
    return (row["window"], row["policy"], int(row["seed"]), rank)


def record(specs, path=None):
    """NS_ACC_RECORD=1: add the cached exact runs among specs (NS_ACC_CACHE)
    to the record, sorted by window, preset and draw; a key already there
    with other numbers is an error (the exact model changed: record again
    from scratch). Returns (added, kept)."""
    path = path or record_path()
    old = read_record(path)
    new = {}
    for sp in specs:
        cp = cache_path(sp)
        if sp["window"] != 0 or not sp["trace"] or not cp or not os.path.exists(cp):
            continue
        with open(cp) as f:
            r = json.load(f)
        row = record_row(sp, r)
        was = old.get(row["key"])
        if was and tuple(float(was[c]) for c in RECORD_COLUMNS[5:8]) != \
                (r["avg"], r["p95"], r["span"]):
            sys.exit("bench_accuracy: %s (%s, %s, seed %s, %s) in NS_ACC_CACHE differs from the "
                     "record %s: the exact model changed since it was recorded" %
                     (row["key"], row["window"], row["policy"], row["seed"], row["run"], path))
        if not was:
            new[row["key"]] = row
    rows = dict(old, **new)
    with open(path + ".tmp", "w") as f:
        f.write(RECORD_HEADER)
        f.write("#" + "\t".join(RECORD_COLUMNS) + "\n")
        for row in sorted(rows.values(), key=run_order):
            f.write("\t".join(row[c] for c in RECORD_COLUMNS) + "\n")
    os.replace(path + ".tmp", path)
    _RECORD.pop(path, None)
    return len(new), len(old)


RECORD_HEADER = """\
# bench/accuracy-exact.tsv - exact runs (W = 0) of bench/bench_accuracy.py on
# the Philly windows (issue 30 item 2), so that a shortcut change can be
# measured against them without re-running them (hours of CPU): read by the
# unpaired, cached-only and default modes where NS_ACC_CACHE has no file
# for the run (no per-job JCTs here: the mean |per-job error| of such a
# pair is "nan"). Written by NS_ACC_RECORD=1 from NS_ACC_CACHE; key: see
# cache_key (trace bytes, preset, cluster, seed, scale, run-time draw);
# window: its label (first arrival, offered load, jobs); run: "exact" (the
# unperturbed run), "durD" (run-time draw D), "chaos" / "chaos2" (arrivals
# shifted). Valid while the exact model's results do not change:
# tests/python/test_bench_accuracy.py re-runs the record's cheap runs and
# compares every number.
"""


def dur_factor_rng(rel, draw):
    """The generator of draw `draw` at half-width `rel`: the same factors in
    every run (str seeds hash with SHA-512: independent of PYTHONHASHSEED)."""
    return random.Random("ns-acc-dur %r %d" % (float(rel), int(draw)))


def perturb_durations(src, dst, rel, draw):
    """Writes `src` (a window's CSV) to `dst` with every row's duration
    scaled by its own factor 1 + rel * U(-1, 1) of draw `draw` (ms
    resolution: "%.3f" seconds); every other field and byte as in src."""
    rng = dur_factor_rng(rel, draw)
    with open(src, newline="") as f:
        rows = list(csv.reader(f))
    col = rows[0].index("duration")
    for r in rows[1:]:
        u = rng.uniform(-1.0, 1.0)  # one draw a row: row i's factor never depends on others
        if r[col].strip():
            r[col] = "%.3f" % (float(r[col]) * (1.0 + rel * u))
    with open(dst, "w", newline="") as f:
        csv.writer(f).writerows(rows)
    return dst


def windows(n, jobs, tmp, gpus, target, starts=None):
    """`jobs` consecutive rows (by timestamp) from each row of `starts`, or
    without starts n windows, one in each n-th of the trace past its sparse
    first quarter: in each, the window whose offered load is nearest
    `target` (so that jobs queue and share links: a window at a quiet time,
    where every job runs alone, measures nothing)."""
    data = os.environ.get("NS_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "..",
                                                      "shared", "data"))
    path = os.path.join(data, "traces", "philly-adaptdl.csv")
    if n == 0 or not os.path.exists(path):
        if n:
            print("(no Philly trace at %s: windows skipped)" % path)
        return []
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    rows.sort(key=lambda r: r["timestamp"])  # "YYYY-MM-DD hh:mm:ss" sorts as time
    out = []
    lo = len(rows) // 4
    seg = (len(rows) - lo) // n
    for w in range(len(starts) if starts else n):
        cand = [starts[w]] if starts else range(
            lo + w * seg, max(lo + (w + 1) * seg - jobs, lo + w * seg + 1), max(jobs // 4, 1))
        start = min(cand, key=lambda a: abs(offered(rows[a:a + jobs], gpus) - target))
        part = rows[start:start + jobs]
        name = os.path.join(tmp, "philly-w%d.csv" % (w + 1))
        with open(name, "w", newline="") as f:
            wr = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            wr.writeheader()
            wr.writerows(part)
        out.append((name, "%s load %.2f" % (part[0]["timestamp"], offered(part, gpus)),
                    len(part), 1000.0 * span_s(part)))
    return out


def pct(a, b):
    return 100.0 * (a - b) / b if b else 0.0


def compare(a, b):
    """Errors of run a against run b (%): avg, p95, makespan, mean |job|."""
    if a.get("jct") is None or b.get("jct") is None:  # a recorded run: no per-job JCTs
        job = float("nan")
    else:
        per = [abs(x - y) / y for x, y in zip(a["jct"], b["jct"]) if y > 0 and x == x and y == y]
        job = 100.0 * sum(per) / max(len(per), 1)
    return (pct(a["avg"], b["avg"]), pct(a["p95"], b["p95"]), pct(a["span"], b["span"]), job)


def mean_ci(xs, t=t95):
    """Mean and 95 % half-width (t(df) * sd / sqrt(n); nan for fewer than 2)."""
    n = len(xs)
    if n == 0:
        return float("nan"), float("nan")
    m = sum(xs) / n
    if n == 1:
        return m, float("nan")
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    return m, t(n - 1) * sd / math.sqrt(n)


def fmt_ci(m, h):
    if m != m:
        return "-"
    return "%+.2f" % m if h != h else "%+.2f +- %.2f" % (m, h)


def verdict(avg, p95, short_abs, floor_abs, tol=3.0):
    """avg, p95: (mean, half-width) of the shortcut's signed error over
    seeds; short_abs, floor_abs: mean |error| of the shortcut and of the
    chaos floor, for avg and p95 JCT."""
    (ma, ha), (mp_, hp) = avg, p95
    if ha != ha:
        return "1 seed"
    lo = min(ma - ha, mp_ - hp)
    hi = max(ma + ha, mp_ + hp)
    if -tol <= lo and hi <= tol:
        return "bias within 3 %"
    if (ma - ha > 0 or ma + ha < 0 or mp_ - hp > 0 or mp_ + hp < 0):
        return "BIAS (interval excludes 0 and leaves +-3 %)"
    if floor_abs is None:
        return "no bias shown; no floor run"
    if all(x <= 1.5 * f for x, f in zip(short_abs, floor_abs)):
        return "no bias shown; spread = the floor's"
    return "no bias shown; spread > the floor's"


def table_stats(xs):
    """Over one preset's signed errors xs (%): (mean, 95 % half-width with
    Student t at n - 1 degrees of freedom, 0 for one error, mean |x|, max |x|):
    mean_ci with the exact quantile (the docs' table; t95 rounds df down)."""
    from scipy.stats import t as student  # python3-scipy: .ci/run, README
    m, h = mean_ci(xs, lambda df: float(student.ppf(0.975, df)))
    return m, (h if len(xs) > 1 else 0.0), sum(map(abs, xs)) / len(xs), max(map(abs, xs))


def preset_table(errs, order):
    """Markdown lines of the per-preset table (docs/simulator.md): errs maps a
    preset to its [(avg err, p95 err)], one pair a trajectory; rows by largest
    |avg error| first, ties in `order`."""
    out = ["| preset | trajectories | avg JCT error: mean +- 95 % | mean \\|error\\| | largest "
           "| p95 JCT error: mean +- 95 % | mean \\|error\\| | largest |",
           "|---|---|---|---|---|---|---|---|"]
    rows = [(pol, [table_stats([e[i] for e in errs[pol]]) for i in (0, 1)])
            for pol in order if errs.get(pol)]
    rows.sort(key=lambda r: -r[1][0][3])  # stable: ties keep `order`
    for pol, st in rows:
        out.append("| %s | %d | %s |" % (pol, len(errs[pol]), " | ".join(
            "%+.1f +- %.1f | %.1f | %.1f" % s for s in st)))
    return out


def build_specs(loads, policies, W, limit, chaos1, chaos2, cdur, ndraws):
    """Every run the knobs describe, seed-major (a run stopped early has every
    preset at similar seeds): per load, seed and preset the shortcut run
    (window W), the exact one (0) and the chaos floors' (arrivals scaled);
    on a Philly window at seed 1 also each run-time draw's exact ("durD")
    and shortcut ("sdurD") run, the draw's trace written once."""
    drawn = {trace: [(d, perturb_durations(trace, "%s-dur%d.csv" % (trace[:-4], d), cdur, d))
                     for d in range(1, ndraws + 1)]
             for _, trace, _, _, _, _ in loads if trace}
    specs = []
    for seed in range(1, max([ld[5] for ld in loads] + [0]) + 1):
        for label, trace, cl, _, span, ns in loads:
            if seed > ns:
                continue
            for pol in policies:
                kinds = [("short", W, 1.0), ("exact", 0, 1.0)]
                if chaos1:
                    kinds.append(("chaos", 0, 1.0 + chaos1 / span))
                if chaos2:
                    kinds.append(("chaos2", 0, 1.0 + chaos2 / span))
                for kind, win, scale in kinds:
                    specs.append({"label": label, "policy": pol, "seed": seed,
                                  "kind": kind, "trace": trace, "cluster": cl,
                                  "window": win, "scale": scale, "limit": limit})
                for d, ptrace in drawn.get(trace, []) if seed == 1 else ():
                    for kind, win in (("dur%d" % d, 0), ("sdur%d" % d, W)):
                        specs.append({"label": label, "policy": pol, "seed": seed,
                                      "kind": kind, "trace": ptrace, "cluster": cl,
                                      "window": win, "scale": 1.0, "limit": limit,
                                      "dur": [cdur, d]})
    return specs


def cached_only(specs, policies, W, par, limit):
    """NS_ACC_CACHED_ONLY: the shortcut run of every cached exact trajectory
    among specs (build_specs: their window-0 runs), against it; prints the
    per-preset tables."""
    specs = [dict(sp, exact=exact_of(sp), key=cache_key(sp)) for sp in specs
             if sp["window"] == 0]
    specs = [sp for sp in specs if sp["exact"] is not None]
    print("shortcut runs (W = %d) of %d cached exact trajectories (%s)"
          % (W, len(specs), kept_where()), file=sys.stderr)
    res = []

    def done(spec, r):
        if not ok(r):
            print("%s %s seed %d %s: shortcut run %s" % (spec["label"], spec["policy"],
                  spec["seed"], spec["kind"], cpu_of(r)), file=sys.stderr)
            return
        res.append((spec, compare(r, spec["exact"]), r["cpu"]))

    Runner(par, limit).run_all([dict(sp, window=W) for sp in specs], done)
    if os.environ.get("NS_ACC_JSON"):
        with open(os.environ["NS_ACC_JSON"], "w") as f:
            json.dump([{"label": sp["label"], "policy": sp["policy"], "seed": sp["seed"],
                        "kind": sp["kind"], "exact": sp["key"], "cpu": cpu,
                        "avg": e[0], "p95": e[1], "span": e[2], "job": e[3]}
                       for sp, e, cpu in res], f, indent=0)
    for title, philly in (("Philly windows", True), ("default workload", False)):
        errs = {}
        for sp, e, _ in res:
            if (sp["trace"] is not None) == philly:
                errs.setdefault(sp["policy"], []).append(e[:2])
        if errs:
            print("\n%s: default shortcuts (W = %d) vs the exact run of the same trajectory, "
                  "%%, %d trajectories\n" % (title, W, sum(map(len, errs.values()))))
            print("\n".join(preset_table(errs, policies)))


def welch_sd(sx, nx, sy, ny):
    """Welch's 95 % half-width of a difference of two means from the samples'
    sds and sizes: (t(0.975, df) * se, df), se = sqrt(sx^2/nx + sy^2/ny), df
    Welch-Satterthwaite: se^4 / ((sx^2/nx)^2 / (nx - 1) + (sy^2/ny)^2 /
    (ny - 1)). Sizes 2 or more; no spread at all: (0, inf)."""
    from scipy.stats import t as student  # python3-scipy: .ci/run, README
    a, b = sx * sx / nx, sy * sy / ny
    if a + b == 0:
        return 0.0, float("inf")
    df = (a + b) ** 2 / (a * a / (nx - 1) + b * b / (ny - 1))
    return float(student.ppf(0.975, df)) * math.sqrt(a + b), df


def mean_sd(xs):
    """(mean, sd with n - 1; nan for one): mean_ci's half-width at t = sqrt(n)."""
    return mean_ci(xs, lambda df: math.sqrt(df + 1))


def welch(xs, ys):
    """Welch's comparison of two unpaired samples (2 or more each):
    (mean(ys) - mean(xs), its 95 % half-width, df) - welch_sd."""
    (mx, sx), (my, sy) = mean_sd(xs), mean_sd(ys)
    return (my - mx,) + welch_sd(sx, len(xs), sy, len(ys))


def first_at_least(lo, pred):
    """The smallest integer >= lo where pred (false, then true) holds, or
    None below 10^9: doubling, then bisection."""
    hi = lo
    while not pred(hi):
        lo, hi = hi + 1, hi * 2
        if hi > 10 ** 9:
            return None
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if pred(mid) else (mid + 1, hi)
    return hi


def draws_needed(se, ss, n, k, target):
    """(M, K'): the exact draws M (> n) and shortcut draws K' (>= k) at which
    Welch's half-width (welch_sd) over sds se and ss falls to `target`. K'
    stays k unless the K draws alone leave no room (t(k - 1) ss / sqrt(k) >=
    target); then K' brings their share to target / sqrt(2) first. Today's
    sds are taken as the draws' (an estimate: "~M")."""
    from scipy.stats import t as student
    kk = k
    if ss > 0 and float(student.ppf(0.975, k - 1)) * ss / math.sqrt(k) >= target:
        kk = first_at_least(k, lambda K: float(student.ppf(0.975, K - 1)) * ss / math.sqrt(K)
                            <= target / math.sqrt(2))
    if se == 0 or kk is None:  # the exact draws agree: only K limits
        return max(n, 2), kk
    return first_at_least(max(n + 1, 2), lambda M: welch_sd(se, M, ss, kk)[0] <= target), kk


def unpaired_verdict(rel, half, tol=3.0):
    """The verdict on a difference rel +- half (% of the exact mean), or None
    (not resolved): within +-tol, else the interval excludes 0."""
    if half != half:
        return None
    if -tol <= rel - half and rel + half <= tol:
        return "expected error within %g %%" % tol
    if rel - half > 0 or rel + half < 0:
        return "bias shown"
    return None


def unpaired_stats(exact, short, tol=3.0):
    """The shortcut's distribution of one metric (short: one value a run-time
    draw) against the exact model's (exact: one a cached exact draw), unpaired:
    {"n", "k", "exact": (mean, sd), "short": (mean, sd), "rel": 100 (mean
    short - mean exact) / mean exact, "half": its Welch 95 % half-width
    (welch, over the same exact mean: dividing by a sampled mean scales rel
    and half alike by 1 +- sd / sqrt(n) / mean, left out), "df", "need": the
    exact and shortcut draws that would resolve it, "verdict"}. "need"
    (draws_needed) asks a half-width of H = max(tol - |rel|, |rel|) % of the
    exact mean - the interval, centred where it is, then fits in +-tol or
    leaves 0 - with today's sds (the exact sd taken from the shortcut's where
    n < 2)."""
    n, k = len(exact), len(short)
    out = {"n": n, "k": k, "exact": mean_sd(exact), "short": mean_sd(short), "rel": float("nan"),
           "half": float("nan"), "df": float("nan"), "need": None}
    if n == 0 or k == 0:
        out["verdict"] = "no exact draws cached" if n == 0 else "no shortcut runs"
        return out
    me, ms = out["exact"][0], out["short"][0]
    out["rel"] = 100.0 * (ms - me) / me
    if n >= 2 and k >= 2:
        d, h, out["df"] = welch(exact, short)
        out["half"] = 100.0 * h / me
    v = unpaired_verdict(out["rel"], out["half"], tol)
    if v:
        out["verdict"] = v
        return out
    ss = out["short"][1] if k >= 2 else 0.0
    se = out["exact"][1] if n >= 2 else ss
    need = draws_needed(se, ss, n, max(k, 2),
                        max(tol - abs(out["rel"]), abs(out["rel"])) * me / 100.0)
    out["need"] = need
    big = "> 10^9"  # first_at_least found none
    out["verdict"] = "not resolved (need ~%s exact draws%s%s)" % (
        need[0] or big, "" if need[1] and need[1] <= k else " and K >= %s" % (need[1] or big),
        "; sd from the shortcut's" if n < 2 else "")
    return out


def combined_stats(pairs, rest, tol=3.0):
    """The expected error of one metric from both estimates at once. pairs:
    [(exact, shortcut)] of the same run-time draws; rest: shortcut runs of
    other draws. Both T = mean(shortcut - exact) over the pairs (paired) and
    U = mean(rest) - mean(exact of the pairs) (unpaired) are unbiased for
    E[shortcut] - E[exact]; T cancels the trajectory where the two models
    follow it alike, U has K draws on its shortcut side. Their
    minimum-variance combination w T + (1 - w) U, with Var T = var(s - e)/n,
    Var U = var(rest)/k + var(e)/n, C = Cov(T, U) = (var(e) - cov(s, e))/n,
    w = (Var U - C) / (Var T + Var U - 2 C) clamped to [0, 1] (Cochran's
    regression estimator in double sampling, weights from the sample
    covariance); 95 % half-width t(0.975, n - 2) sqrt(w^2 Var T + (1 - w)^2
    Var U + 2 w (1 - w) C). Returns {"n", "k", "r" (correlation of the
    pairs), "paired", "unpaired", "w", "rel", "half"} (% of the pairs' exact
    mean) and "verdict" (unpaired_verdict, else "not resolved"); n < 3 or
    k < 2: the verdict says so and the numbers are nan."""
    from scipy.stats import t as student  # python3-scipy: .ci/run, README
    n, k = len(pairs), len(rest)
    nan = float("nan")
    out = {"n": n, "k": k, "r": nan, "paired": nan, "unpaired": nan, "w": nan, "rel": nan,
           "half": nan}
    if n < 3 or k < 2:
        out["verdict"] = "too few draws (%d paired, %d more shortcut; need 3 and 2)" % (n, k)
        return out
    e = [p[0] for p in pairs]
    s = [p[1] for p in pairs]
    (me, se), (ms, ss) = mean_sd(e), mean_sd(s)
    mr, sr = mean_sd(rest)
    cov = sum((x - ms) * (y - me) for x, y in zip(s, e)) / (n - 1)
    md, sd = mean_sd([x - y for x, y in zip(s, e)])
    vt, vu, c = sd * sd / n, sr * sr / k + se * se / n, (se * se - cov) / n
    den = vt + vu - 2.0 * c  # Var(T - U) >= 0
    w = 1.0 if den <= 0 else min(1.0, max(0.0, (vu - c) / den))
    est = w * md + (1.0 - w) * (mr - me)
    var = max(0.0, w * w * vt + (1.0 - w) ** 2 * vu + 2.0 * w * (1.0 - w) * c)
    out.update(r=cov / (se * ss) if se > 0 and ss > 0 else nan, paired=100.0 * md / me,
               unpaired=100.0 * (mr - me) / me, w=w, rel=100.0 * est / me,
               half=100.0 * float(student.ppf(0.975, n - 2)) * math.sqrt(var) / me)
    out["verdict"] = unpaired_verdict(out["rel"], out["half"], tol) or "not resolved"
    return out


def unpaired(specs, K, ndraws, W, par, limit, runner=None):
    """NS_ACC_UNPAIRED=K: per Philly window and preset among specs
    (build_specs at seed 1 with at least K run-time draws), the exact
    model's avg / p95 JCT over every CACHED exact run (the unperturbed one
    and draws 1..ndraws; none is run) against the shortcut's (W) over draws
    1..K, run here; prints the table, returns {(label, policy): {"exact":
    [(draw, avg, p95)], "short": [...], "avg": unpaired_stats, "p95": ...}}."""
    def draw(sp):
        return sp["dur"][1] if sp.get("dur") else 0

    exact = [sp for sp in specs if sp["trace"] and sp["seed"] == 1 and sp["window"] == 0
             and (sp["kind"] == "exact" or sp["kind"].startswith("dur") and draw(sp) <= ndraws)]
    exact = [(sp, r) for sp, r in ((sp, exact_of(sp)) for sp in exact) if r is not None]
    short = [dict(sp, window=W) for sp in specs if sp["trace"] and sp["seed"] == 1
             and sp["kind"].startswith("sdur") and draw(sp) <= K]
    print("unpaired: %d cached exact runs (%s), %d shortcut runs (W = %d)"
          % (len(exact), kept_where(), len(short), W), file=sys.stderr)
    out = {}
    for sp in specs:
        if sp["trace"] and sp["seed"] == 1 and sp["window"] == 0 and sp["kind"] == "exact":
            out[(sp["label"], sp["policy"])] = {"exact": [], "short": [], "failed": 0}
    for sp, r in exact:
        out[(sp["label"], sp["policy"])]["exact"].append((draw(sp), r["avg"], r["p95"]))

    def done(spec, r):
        o = out[(spec["label"], spec["policy"])]
        if ok(r):
            o["short"].append((draw(spec), r["avg"], r["p95"]))
        else:
            o["failed"] += 1
            print("%s %s draw %d: shortcut run %s" % (spec["label"], spec["policy"],
                  draw(spec), cpu_of(r)), file=sys.stderr)

    (runner or Runner(par, limit)).run_all(short, done)
    for o in out.values():
        for side in ("exact", "short"):
            o[side].sort()
        for i, m in ((1, "avg"), (2, "p95")):
            o[m] = unpaired_stats([x[i] for x in o["exact"]], [x[i] for x in o["short"]])
            ex = {x[0]: x[i] for x in o["exact"]}
            o[m + " combined"] = combined_stats(
                [(ex[x[0]], x[i]) for x in o["short"] if x[0] in ex],
                [x[i] for x in o["short"] if x[0] not in ex])
    print("\nExpected error, unpaired: the shortcut's (W = %d) avg / p95 JCT over run-time "
          "draws 1..%d against the exact model's over the cached exact runs (unperturbed + "
          "draws 1..%d); JCT in s, mean (sd); difference of means, %% of the exact mean, "
          "Welch 95 %% interval\n" % (W, K, ndraws))
    def diff_s(rel, half):  # rel +- half [interval]; rel alone without a half; "-" without rel
        if rel != rel:
            return "-"
        if half != half:
            return "%+.2f" % rel
        return "%+.2f +- %.2f [%+.2f, %+.2f]" % (rel, half, rel - half, rel + half)

    def msd_s(x):  # mean (sd) in s; one run has no sd
        return "%.0f (%s)" % (x[0] / 1e3, "-" if x[1] != x[1] else "%.0f" % (x[1] / 1e3))

    print("| workload | policy | metric | N exact | K shortcut | exact mean (sd) | "
          "shortcut mean (sd) | difference % | verdict |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (label, pol), o in out.items():
        for m in ("avg", "p95"):
            s = o[m]
            print("| %s | %s | %s | %d | %d%s | %s | %s | %s | %s |" % (
                label, pol, m, s["n"], s["k"], " (%d failed)" % o["failed"] if o["failed"] else "",
                msd_s(s["exact"]) if s["n"] else "-", msd_s(s["short"]) if s["k"] else "-",
                diff_s(s["rel"], s["half"]), s["verdict"]))
    print("\nExpected error, both estimates combined: the draws run by both models paired "
          "(paired % = mean of shortcut - exact), the other shortcut draws against the pairs' "
          "exact mean (unpaired %), and their minimum-variance combination (w = weight of the "
          "paired one; combined_stats), % of the pairs' exact mean, 95 % interval (t, n - 2 df)\n")
    print("| workload | policy | metric | pairs | other shortcut draws | r | paired % | "
          "unpaired % | w | combined % | verdict |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for (label, pol), o in out.items():
        for m in ("avg", "p95"):
            c = o[m + " combined"]
            print("| %s | %s | %s | %d | %d | %s | %s | %s | %s | %s | %s |" % (
                label, pol, m, c["n"], c["k"], *(
                    "-" if v != v else f % v for v, f in (
                        (c["r"], "%.2f"), (c["paired"], "%+.2f"), (c["unpaired"], "%+.2f"),
                        (c["w"], "%.2f"))),
                diff_s(c["rel"], c["half"]), c["verdict"]))
    if os.environ.get("NS_ACC_JSON"):
        with open(os.environ["NS_ACC_JSON"], "w") as f:
            json.dump([{"label": lb, "policy": pol, "W": W, "K": K, "draws": ndraws, **o}
                       for (lb, pol), o in out.items()], f, indent=0)
    return out


def main():
    limit = float(os.environ.get("NS_ACC_LIMIT", "600"))
    nwin = int(os.environ.get("NS_ACC_WINDOWS", "3"))
    jobs = int(os.environ.get("NS_ACC_JOBS", "1500"))
    starts = [int(x) for x in os.environ.get("NS_ACC_STARTS", "20000,45000,70000").split(",")
              if x.strip()][:nwin]  # NS_ACC_WINDOWS=1: the first one only; 0: none
    cached = os.environ.get("NS_ACC_CACHED_ONLY", "0") not in ("", "0")
    if cached and not kept_anywhere():
        sys.exit("bench_accuracy: NS_ACC_CACHED_ONLY=1 needs NS_ACC_CACHE (the directory of "
                 "cached exact runs) or the record %s" % record_path())
    recording = os.environ.get("NS_ACC_RECORD", "0") not in ("", "0")
    if recording and not os.environ.get("NS_ACC_CACHE"):
        sys.exit("bench_accuracy: NS_ACC_RECORD=1 needs NS_ACC_CACHE (the directory whose "
                 "exact runs it records)")
    K = os.environ.get("NS_ACC_UNPAIRED", "0").strip() or "0"
    if not K.isdigit():
        sys.exit("bench_accuracy: NS_ACC_UNPAIRED must be a count of shortcut draws (0 = off, "
                 "1 = 200), not '%s'" % os.environ["NS_ACC_UNPAIRED"])
    K = 200 if K == "1" else int(K)
    if K and not kept_anywhere():
        sys.exit("bench_accuracy: NS_ACC_UNPAIRED=%d needs NS_ACC_CACHE (the directory of "
                 "cached exact runs) or the record %s" % (K, record_path()))
    # the cached-only defaults: draws at 0.001, up to 80 of them
    cached = cached or K > 0 or recording
    nseeds = int(os.environ.get("NS_ACC_SEEDS", "40" if cached else "10"))
    nseeds_ph = int(os.environ.get("NS_ACC_SEEDS_PHILLY", "5" if cached else "1"))
    W = int(os.environ.get("NS_ACC_W", "16"))
    par = int(os.environ.get("NS_ACC_PAR", "2"))
    chaos1 = float(os.environ.get("NS_ACC_CHAOS_MS", "1"))
    chaos2 = float(os.environ.get("NS_ACC_CHAOS2_MS", "1000"))
    cdur = float(os.environ.get("NS_ACC_CHAOS_DUR", "0.001" if cached else "0"))
    ndraws = int(os.environ.get("NS_ACC_CHAOS_DUR_DRAWS", "80" if cached else "3")) \
        if cdur > 0 else 0
    if K and cdur <= 0:
        sys.exit("bench_accuracy: NS_ACC_UNPAIRED compares run-time draws: NS_ACC_CHAOS_DUR "
                 "must be > 0, not '%s'" % os.environ.get("NS_ACC_CHAOS_DUR"))
    target = float(os.environ.get("NS_ACC_LOAD", "1.25"))
    cluster = [float(x) if i == 5 else int(x) for i, x in
               enumerate(os.environ.get("NS_ACC_CLUSTER", "4,8,8,8,2,10").split(","))]
    names = os.environ.get("NS_ACC_POLICIES")
    policies = names.split(",") if names else list(sim.policies())
    res = {}
    if os.environ.get("NS_ACC_REPORT"):  # re-print saved runs (NS_ACC_JSON files), no run
        for path in os.environ["NS_ACC_REPORT"].split(","):
            with open(path) as f:
                res.update({tuple(k): v for k, v in json.load(f)})
        labels = list(dict.fromkeys(k[0] for k in res))
        cap = int(os.environ.get("NS_ACC_SEEDS", "1000000"))  # complete seeds only, if asked
        loads = [(lb, None, None, 0, 0, min(cap, max(k[2] for k in res if k[0] == lb)))
                 for lb in labels]
        saved = list(dict.fromkeys(k[1] for k in res))
        report(res, loads, [p for p in policies if p in saved] if names else saved, W, limit,
               chaos2)
        return

    with tempfile.TemporaryDirectory() as tmp:
        gpus = cluster[0] * cluster[2] * cluster[3]
        loads = ([("default", None, None, 160, 1200000.0, nseeds)] if nseeds > 0 else []) + [
            ("philly %s +%d" % (ts, nj), path, cluster, nj, span, nseeds_ph)
            for path, ts, nj, span in windows(nwin, jobs, tmp, gpus, target, starts)]
        if K:  # seed 1 of the Philly windows only: the run-time draws'
            loads = [ld[:5] + (1,) for ld in loads if ld[1]]
            unpaired(build_specs(loads, policies, W, limit, 0, 0, cdur, max(K, ndraws)), K,
                     ndraws, W, par, limit)
            return
        if recording:
            added, kept = record(build_specs(loads, policies, W, limit, chaos1, chaos2, cdur,
                                             ndraws))
            print("%s: %d exact runs added from %s, %d kept" % (record_path(), added,
                  os.environ["NS_ACC_CACHE"], kept))
            return
        if cached:
            cached_only(build_specs(loads, policies, W, limit, chaos1, chaos2, cdur, ndraws),
                        policies, W, par, limit)
            return
        specs = build_specs(loads, policies, W, limit, chaos1, chaos2, cdur, ndraws)
        # run-time draws draw-major (every preset's first draw, then the second...):
        # a run stopped early has every preset at similar draws
        specs.sort(key=lambda sp: sp["dur"][1] if sp.get("dur") else 0)
        if os.environ.get("NS_ACC_REUSE"):  # exact runs saved before (W = 0 is not a shortcut)
            for path in os.environ["NS_ACC_REUSE"].split(","):
                with open(path) as f:
                    for k, v in json.load(f):
                        if k[3] != "short" and not k[3].startswith("sdur"):
                            res.setdefault(tuple(k), v)
            specs = [sp for sp in specs if (sp["label"], sp["policy"], sp["seed"], sp["kind"])
                     not in res]
        for sp in list(specs):  # exact runs kept from before: NS_ACC_CACHE, the record
            r = exact_of(sp)  # None for a shortcut run (W > 0)
            if r is not None:
                res[(sp["label"], sp["policy"], sp["seed"], sp["kind"])] = r
                specs.remove(sp)
        t0 = time.time()
        ndone = [0]

        def save():
            if os.environ.get("NS_ACC_JSON"):
                with open(os.environ["NS_ACC_JSON"] + ".tmp", "w") as f:
                    json.dump([[list(k), v] for k, v in res.items()], f)
                os.replace(os.environ["NS_ACC_JSON"] + ".tmp", os.environ["NS_ACC_JSON"])

        def done(spec, r):
            res[(spec["label"], spec["policy"], spec["seed"], spec["kind"])] = r
            path = cache_path(spec)
            if path and ok(r):
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path + ".tmp", "w") as f:
                    json.dump(r, f)
                os.replace(path + ".tmp", path)
            ndone[0] += 1
            if ndone[0] % 50 == 0 or spec.get("dur"):
                save()  # a long run stopped early still leaves its numbers
            if sys.stderr.isatty() or os.environ.get("NS_ACC_PROGRESS"):
                sys.stderr.write("\r%d/%d runs, %.0f s " % (ndone[0], len(specs),
                                                            time.time() - t0))
                sys.stderr.flush()

        def ref(spec):  # the exact run of the same workload, policy and seed
            return res.get((spec["label"], spec["policy"], spec["seed"], "exact"), "pending")

        def floor_kind(sp):  # an exact run against the exact run: after it, if it finished
            return sp["kind"].startswith("chaos") or sp["kind"].startswith("dur")

        # the chaos floors only where the exact run finished (no second timeout)
        Runner(par, limit).run_all(
            specs, done,
            ready=lambda sp: not floor_kind(sp) or ref(sp) != "pending",
            skip=lambda sp: floor_kind(sp) and ref(sp) != "pending" and not ok(ref(sp)))
        save()
        report(res, loads, policies, W, limit, chaos2)


def kept_anywhere():
    return bool(os.environ.get("NS_ACC_CACHE")) or os.path.exists(record_path())


def kept_where():
    cache = os.environ.get("NS_ACC_CACHE")
    rec = record_path() if os.path.exists(record_path()) else None
    return " and ".join(x for x in (cache, rec) if x) or "none"


def cpu_of(r):
    if r is None:
        return "-"
    if "timeout" in r:
        return "> %g (limit)" % r["timeout"]
    if "failed" in r:
        return "failed (%s)" % r["failed"]
    return "%.2f" % r["cpu"]


def ok(r):
    return r is not None and "cpu" in r


def dur_summary(res, label, pol):
    """The run-time floor of (label, pol, seed 1) from `res`, or None without
    draws: {"draws": D finished exact draws, "floor": mean |error| over the
    draws of exact-perturbed vs exact (avg, p95, makespan, mean abs job),
    "traj": the shortcut's signed errors (avg, p95, makespan, job) on the
    1 + D' trajectories where both runs finished (unperturbed first),
    "avg"/"p95": their (mean, 95 % half-width), "abs": mean |avg|, |p95|,
    "cross": mean signed (avg, p95) of the unperturbed shortcut run against
    each perturbed exact run, "verdict"}."""
    get = lambda k: res.get((label, pol, 1, k))  # noqa: E731
    b, a = get("exact"), get("short")
    draws = sorted(int(k[3][3:]) for k in res if k[0] == label and k[1] == pol and k[2] == 1
                   and k[3].startswith("dur"))
    if not draws or not ok(b):
        return None
    ex = [(d, get("dur%d" % d)) for d in draws]
    ex = [(d, r) for d, r in ex if ok(r)]
    fl = [compare(r, b) for _, r in ex]
    floor = [sum(abs(x[i]) for x in fl) / len(fl) for i in range(4)] if fl else None
    traj = [compare(a, b)] if ok(a) else []
    traj += [compare(get("sdur%d" % d), r) for d, r in ex if ok(get("sdur%d" % d))]
    cross = [compare(a, r) for _, r in ex] if ok(a) else []
    out = {"draws": len(ex), "floor": floor, "traj": traj,
           "cross": [sum(x[i] for x in cross) / len(cross) for i in range(2)] if cross else None}
    if not traj:
        out.update(avg=None, p95=None, abs=None, verdict="-")
        return out
    out["avg"], out["p95"] = mean_ci([x[0] for x in traj]), mean_ci([x[1] for x in traj])
    out["abs"] = [sum(abs(x[i]) for x in traj) / len(traj) for i in range(2)]
    out["verdict"] = verdict(out["avg"], out["p95"], out["abs"], floor[:2] if floor else None)
    return out


def report_dur(res, loads, policies):
    rows = [(lb, pol, dur_summary(res, lb, pol)) for lb, *_ in loads for pol in policies]
    rows = [r for r in rows if r[2]]
    if not rows:
        return
    print()
    print("Run-time floor (seed 1): exact vs exact with every job's duration scaled by its own "
          "factor in [1 - r, 1 + r] (NS_ACC_CHAOS_DUR), mean |error| over the draws; the "
          "shortcut's signed error over the unperturbed + perturbed trajectories (shortcut vs "
          "exact on the same input), mean +- 95 % interval [mean |error|]; the unperturbed "
          "shortcut run against each perturbed exact run, mean signed error.")
    print()
    print("| workload | policy | draws | exact vs perturbed: avg / p95 / makespan / mean abs job "
          "% | shortcut avg err % | shortcut p95 err % | unperturbed shortcut vs perturbed "
          "exact avg / p95 % | verdict |")
    print("|---|---|---|---|---|---|---|---|")
    for lb, pol, s in rows:
        fl = "%.2f / %.2f / %.2f / %.2f" % tuple(s["floor"]) if s["floor"] else "-"
        sa = "%s [%.2f]" % (fmt_ci(*s["avg"]), s["abs"][0]) if s["avg"] else "-"
        sp = "%s [%.2f]" % (fmt_ci(*s["p95"]), s["abs"][1]) if s["p95"] else "-"
        cr = "%+.2f / %+.2f" % tuple(s["cross"]) if s["cross"] else "-"
        print("| %s | %s | %d | %s | %s | %s | %s | %s |" % (lb, pol, s["draws"], fl, sa, sp,
                                                             cr, s["verdict"]))


def report(res, loads, policies, W, limit, chaos2):
    print("accuracy of the shortcuts: default (W = %d) vs exact (W = 0); limit %g CPU s per run"
          % (W, limit))
    print()
    print("Run for run (seed 1). Chaos floors: exact vs exact with arrivals shifted by <= 1 ms "
          "(1ms) and <= %g ms (%gs): avg / p95 / makespan / mean abs job JCT error %%."
          % (chaos2, chaos2 / 1000))
    print()
    print("| workload | policy | default cpu s | exact cpu s | avg JCT err %% | p95 JCT err %% | "
          "makespan err %% | mean abs job JCT err %% | chaos 1ms | chaos %gs |" % (chaos2 / 1000))
    print("|---|---|---|---|---|---|---|---|---|---|")

    def floor(c, b):
        return " %+.2f / %+.2f / %+.2f / %.2f |" % compare(c, b) if ok(c) and ok(b) else " - |"
    for label, *_ in loads:
        for pol in policies:
            a, b, c, c2 = (res.get((label, pol, 1, k)) for k in ("short", "exact", "chaos",
                                                                 "chaos2"))
            row = "| %s | %s | %s | %s |" % (label, pol, cpu_of(a), cpu_of(b))
            if ok(a) and ok(b):
                row += " %+.2f | %+.2f | %+.2f | %.2f |" % compare(a, b)
            else:
                row += " - | - | - | - |"
            row += floor(c, b) + floor(c2, b)
            print(row)
    report_dur(res, loads, policies)
    multi = [ld for ld in loads if ld[5] > 1]
    if not multi:
        return
    print()
    print("Over seeds: mean signed error +- 95 %% interval (Student t), shortcut vs exact and "
          "chaos floors vs exact; mean |err| over seeds in brackets. Verdict: the shortcut's "
          "bias (mean error) within 3 %% with 95 %% confidence, or not; else whether its mean "
          "|err| exceeds 1.5 x the %gs floor's (avg and p95)." % (chaos2 / 1000))
    print()
    print("| workload | policy | seeds | avg JCT err %% | p95 JCT err %% | makespan err %% | "
          "mean abs job JCT err %% | chaos 1ms avg %% | chaos 1ms p95 %% | "
          "chaos 1ms mean abs job %% | chaos %gs avg %% | chaos %gs p95 %% | "
          "chaos %gs mean abs job %% | verdict |"
          % ((chaos2 / 1000,) * 3))
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for label, _, _, _, _, ns in multi:
        for pol in policies:
            d, c, c2 = [], [], []
            missing = 0
            for seed in range(1, ns + 1):
                a, b, p, p2 = (res.get((label, pol, seed, k)) for k in ("short", "exact", "chaos",
                                                                        "chaos2"))
                if a is None or b is None:
                    continue  # not run (a saved run stopped early)
                if not (ok(a) and ok(b)):
                    missing += 1
                    continue
                d.append(compare(a, b))
                if ok(p):
                    c.append(compare(p, b))
                if ok(p2):
                    c2.append(compare(p2, b))
            if not d:
                print("| %s | %s | 0 of %d (exact > limit) |%s" % (label, pol, ns, " - |" * 11))
                continue
            cols = [mean_ci([x[i] for x in d]) for i in range(4)]
            ccols = [mean_ci([x[i] for x in c]) for i in range(4)]
            absd = [sum(abs(x[i]) for x in d) / len(d) for i in range(2)]
            absc = [sum(abs(x[i]) for x in c) / max(len(c), 1) for i in range(2)]
            c2cols = [mean_ci([x[i] for x in c2]) for i in range(4)]
            absc2 = [sum(abs(x[i]) for x in c2) / max(len(c2), 1) for i in range(2)]
            v = verdict(cols[0], cols[1], absd, absc2 if c2 else absc if c else None)
            print("| %s | %s | %d%s | %s [%.2f] | %s [%.2f] | %s | %.2f | %s [%.2f] | "
                  "%s [%.2f] | %.2f | %s [%.2f] | %s [%.2f] | %s | %s |" % (
                      label, pol, len(d), " (%d > limit)" % missing if missing else "",
                      fmt_ci(*cols[0]), absd[0], fmt_ci(*cols[1]), absd[1], fmt_ci(*cols[2]),
                      cols[3][0], fmt_ci(*ccols[0]), absc[0], fmt_ci(*ccols[1]), absc[1],
                      ccols[3][0] if c else 0.0, fmt_ci(*c2cols[0]), absc2[0], fmt_ci(*c2cols[1]), absc2[1],
                      "%.2f" % c2cols[3][0] if c2 else "-", v))


if __name__ == "__main__":
    main()
