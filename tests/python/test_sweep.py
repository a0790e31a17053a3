"""netsched.sweep: a 2-worker local Dask cluster gives the CLI's numbers cell
by cell; a sweep whose worker dies mid-cell is retried, or resumed from its
CSV; bad grids are refused before anything runs, naming the flag or the
Python parameter (with a did-you-mean); the summary's statistics, units and
best marks; the plots' error bars and titles; --quiet; --format auto; the
Slurm-array recipe (--count, --cell, --merge parts/*.csv) and the README's
sweep command. Hostile files and huge grids: test_hostile_sweep.py."""

import contextlib
import csv
import glob
import io
import math
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

import netsched
from netsched import sim, sweep

from . import support

try:
    import distributed  # noqa: F401
except ImportError:
    distributed = None
try:
    import matplotlib  # noqa: F401
except ImportError:
    matplotlib = None
try:
    import scipy  # noqa: F401
except ImportError:
    scipy = None

needs_dask = unittest.skipIf(distributed is None, "Dask distributed is not installed "
                             "(apt-get install python3-distributed): Dask sweep tests skipped")
CLI = os.path.join(support.REPO, "build", "examples", "netsched-sim")
POLICIES, SEEDS = ["ff", "lwf-1"], [1, 2, 3]
# maxmin named explicitly on both sides, so the comparison does not depend
# on which network model is the library's default.
GRID = dict(policies=POLICIES, seeds=SEEDS, networks=["maxmin"])


def die_once(task, marker):
    """A cell function whose first call, on whichever worker, kills that
    worker's process mid-cell (os._exit: no cleanup, as a crash)."""
    if not os.path.exists(marker):
        with open(marker, "w"):
            pass
        os._exit(17)
    return sweep.run_cell(task)


class DieOnce:
    """Picklable cell_fn calling die_once with a marker file."""

    def __init__(self, marker):
        self.marker = marker

    def __call__(self, task):
        return die_once(task, self.marker)


def cli_cell(policy, seed, tmp):
    """Metrics of one cell computed from netsched-sim's per-job CSV (ms with 3
    decimals) and its table line."""
    jobs = os.path.join(tmp, "jobs-%s-%d.csv" % (policy, seed))
    out = subprocess.run([CLI, "--policy", policy, "--seed", str(seed), "--network", "maxmin",
                          "--csv", jobs], capture_output=True, text=True, check=True).stdout
    with open(jobs, newline="") as f:
        rows = list(csv.DictReader(f))
    done = [r for r in rows if r["finish_ms"]]
    jct = sorted(float(r["jct_ms"]) for r in done)
    rank = lambda p: jct[max(1, math.ceil(p / 100 * len(jct))) - 1]  # noqa: E731 (sim.h)
    table = [line.split() for line in out.splitlines() if line.startswith(policy + " ")][0]
    return {"avg_jct_ms": statistics.fmean(jct), "median_jct_ms": rank(50),
            "p95_jct_ms": rank(95), "p99_jct_ms": rank(99),
            "makespan_ms": max(float(r["finish_ms"]) for r in done)
            - min(float(r["arrival_ms"]) for r in rows),
            "avg_queue_ms": statistics.fmean(float(r["queue_ms"]) for r in done),
            "jobs_done": len(done), "unfinished": len(rows) - len(done),
            "table_avg_jct_s": float(table[1])}


def csv_cells(path):
    return {k: v for k, v in sweep.read_results(path).items()}


def unit(name):
    """The unit suffix of a column or summary label: _s, _ms, % or None."""
    m = re.search(r"(_s|_ms|%)$", name)
    return m.group(1) if m else None


def quiet_main(argv):
    """sweep.main with stdout and stderr captured (neither is a terminal):
    (stdout, stderr, exit status)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = sweep.main(argv)
    return out.getvalue(), err.getvalue(), rc


@needs_dask
class TestDaskSweep(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.ref_csv = os.path.join(cls.tmp.name, "ref.csv")
        cls.ref = sweep.run(out=cls.ref_csv, workers=2, progress=False, **GRID)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    @unittest.skipUnless(os.access(CLI, os.X_OK), "netsched-sim not built (make)")
    def test_two_workers_equal_the_cli_cell_by_cell(self):
        self.assertEqual(len(self.ref), 6)
        self.assertEqual(self.ref, csv_cells(self.ref_csv))  # what run() returns is on disk
        for policy in POLICIES:
            for seed in SEEDS:
                cell = sweep.Cell(policy, seed, "default", "maxmin", "default", 1.0)
                got, want = self.ref[cell], cli_cell(policy, seed, self.tmp.name)
                self.assertEqual(set(got), set(sweep.metric_names()))
                for name in ("avg_jct_ms", "median_jct_ms", "p95_jct_ms", "p99_jct_ms",
                             "makespan_ms", "avg_queue_ms"):
                    # The CLI's CSV rounds each time to 0.001 ms.
                    self.assertAlmostEqual(got[name], want[name], delta=2e-3,
                                           msg="%s %s %d" % (name, policy, seed))
                self.assertEqual(got["jobs_done"], want["jobs_done"])
                self.assertEqual(got["unfinished"], want["unfinished"])
                self.assertAlmostEqual(got["avg_jct_ms"] / 1000, want["table_avg_jct_s"],
                                       delta=0.05)
        # Seeds change the workload and policies the result: 6 distinct cells.
        self.assertEqual(len({m["avg_jct_ms"] for m in self.ref.values()}), 6)

    def test_killed_worker_is_retried(self):
        out = self.path("retried.csv")
        marker = self.path("retried.marker")
        got = sweep.run(out=out, workers=2, retries=2, progress=False, cell_fn=DieOnce(marker),
                        **GRID)
        self.assertTrue(os.path.exists(marker))  # a worker did die mid-cell
        self.assertEqual(got, self.ref)
        self.assertEqual(csv_cells(out), self.ref)

    def test_resume_after_a_worker_died(self):
        out = self.path("resumed.csv")
        marker = self.path("resumed.marker")
        with self.assertRaises(sweep.SweepError) as cm:  # retries=0: the cell is lost
            sweep.run(out=out, workers=2, retries=0, progress=False, cell_fn=DieOnce(marker),
                      **GRID)
        # The dead worker's cell and any queued on it are lost.
        lost = set(cm.exception.failures)
        self.assertTrue(1 <= len(lost) < 6, lost)
        self.assertIn("KilledWorker", next(iter(cm.exception.failures.values())))
        before = csv_cells(out)
        self.assertEqual(set(before), set(self.ref) - lost)
        # A kill during the write leaves a cut-off row: dropped on resume.
        with open(out, "a") as f:
            f.write("ff,1,default,maxmin,default,1.0,avg_jct")
        ran = []
        got = sweep.run(out=out, workers=0, progress=False,  # resuming needs no Dask
                        on_cell=lambda cell, m: ran.append(cell), **GRID)
        self.assertEqual(set(ran), lost)  # only the lost cell ran again
        self.assertEqual(got, self.ref)
        self.assertEqual(csv_cells(out), self.ref)
        with open(out) as f:
            self.assertEqual(sum(1 for _ in f), 1 + 6 * len(sweep.metric_names()))

    def test_cli_on_a_running_scheduler(self):
        out, png = self.path("cli.csv"), self.path("jct.svg")
        stdout = io.StringIO()
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      dashboard_address=":0") as cluster, \
                contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(io.StringIO()):
            rc = sweep.main(["--policies", "ff,lwf-1", "--seeds", "1,2,3", "--networks",
                             "maxmin", "--out", out, "--scheduler", cluster.scheduler_address]
                            + (["--plot", png] if matplotlib else []))
            # --quiet on Dask: no progress, summary or plot paths anywhere
            # (stderr here is not a terminal: the bar would print lines).
            quiet_out, quiet_err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(quiet_out), contextlib.redirect_stderr(quiet_err):
                quiet_rc = sweep.main(["--policies", "ff,lwf-1", "--seeds", "1,2,3",
                                       "--networks", "maxmin", "--out", self.path("quiet.csv"),
                                       "--scheduler", cluster.scheduler_address, "--quiet"]
                                      + (["--plot", self.path("q.svg")] if matplotlib else []))
        self.assertEqual(rc, 0)
        self.assertEqual(csv_cells(out), self.ref)
        text = stdout.getvalue()
        for name in sweep.metric_names():  # in the summary's units: avg_jct_s, gpu_util%
            self.assertIn(sweep.display(name).label + " ", text)
        if matplotlib:
            for p in (png, sweep.cdf_plot_path(png)):
                with open(p) as f:
                    self.assertIn("<svg", f.read(400))
        self.assertEqual((quiet_rc, quiet_out.getvalue()), (0, ""))
        # Nothing of ours on stderr. (Under heavy load Dask's own asyncio may
        # log an unretrieved TimeoutError of a closing connection there: not
        # progress, and not the sweep's to silence.)
        self.assertNotIn("cells", quiet_err.getvalue())
        self.assertNotIn("netsched.sweep", quiet_err.getvalue())
        self.assertEqual(csv_cells(self.path("quiet.csv")), self.ref)


class TestGridValidation(unittest.TestCase):
    """Bad grids are refused before anything runs, naming the value."""

    def refuse(self, argv, *needles):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "r.csv")
            err = io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                rc = sweep.main(argv + ["--out", out, "--workers", "0", "--no-progress"])
            self.assertEqual(rc, 2, err.getvalue())
            for n in needles:
                self.assertIn(n, err.getvalue())
            self.assertFalse(os.path.exists(out), "a refused grid must not write")

    def test_unknown_policy(self):
        self.refuse(["--policies", "ff,lwf1"], "--policies: unknown policy 'lwf1'; "
                    "did you mean 'lwf-1'?")

    def test_did_you_mean(self):
        self.refuse(["--policies", "ff", "--networks", "maxmn"],
                    "--networks: unknown network model 'maxmn'; did you mean 'maxmin'?")
        self.refuse(["--policies", "ff", "--format", "phily"],
                    "--format: unknown trace format 'phily'; did you mean 'philly'?")
        self.refuse(["--policies", "ff", "--summary-metrics", "avg_jct"],
                    "--summary-metrics: unknown metric 'avg_jct'; did you mean")
        # nothing close: no guess, the known names
        self.refuse(["--policies", "zzzzzz"], "'zzzzzz' (known: ff, ")

    def test_empty_axes(self):
        self.refuse(["--policies", ""], "--policies: empty axis")
        self.refuse(["--policies", "ff", "--seeds", ""], "--seeds: empty axis")
        self.refuse(["--policies", "ff", "--load-scale", "1,,2"], "--load-scale", "empty value")

    def test_bad_shapes(self):
        self.refuse(["--policies", "ff", "--clusters", "4x4"], "--clusters", "'4x4'")
        self.refuse(["--policies", "ff", "--clusters", "4x4x4,2xfourx4"], "'2xfourx4'")
        # Shape parses but the library refuses it: its message is kept.
        self.refuse(["--policies", "ff", "--clusters", "0x4x4"], "'0x4x4'", "leaves")

    def test_other_bad_values(self):
        self.refuse(["--policies", "ff", "--seeds", "1,-2"], "--seeds", "'-2'")
        self.refuse(["--policies", "ff", "--seeds", "1,1"], "'1' given twice")
        self.refuse(["--policies", "ff", "--load-scale", "0"], "--load-scale", "'0'")
        self.refuse(["--policies", "ff", "--load-scale", "nan"], "'nan'")
        self.refuse(["--policies", "ff", "--networks", "fluid"], "--networks", "'fluid'")
        self.refuse(["--policies", "ff", "--trace", "/nonexistent/t.csv"],
                    "--trace", "/nonexistent/t.csv")
        self.refuse(["--policies", "ff", "--plot", "x.gif"], "--plot", "'gif'")
        self.refuse(["--policies", "ff", "--models", "/nonexistent/m.csv"],
                    "--models: cannot load model profiles '/nonexistent/m.csv'",
                    "No such file")
        self.refuse(["--policies", "ff", "--cell", "2"], "--cell", "2", "1 cells")
        with tempfile.TemporaryDirectory() as tmp:
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                rc = sweep.main(["--policies", "ff", "--out", tmp, "--workers", "0"])
            self.assertEqual(rc, 2)
            self.assertIn("is a directory", err.getvalue())

    def test_grid_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            js, toml = os.path.join(tmp, "g.json"), os.path.join(tmp, "g.toml")
            with open(js, "w") as f:
                f.write('{"policies": ["ff", "lwf-1"], "seeds": [1, 2], "clusters": ["4x4x4"],'
                        ' "load_scales": [0.5, 2]}')
            with open(toml, "w") as f:
                f.write('policies = ["ff", "lwf-1"]\nseeds = [1, 2]\nclusters = ["4x4x4x8"]\n'
                        'load_scales = [0.5, 2.0]\n')
            a = sweep.grid_from_args(sweep._parser().parse_args(["--grid", js]))
            b = sweep.grid_from_args(sweep._parser().parse_args(["--grid", toml]))
            self.assertEqual(list(a.cells()), list(b.cells()))  # 4x4x4 = 4x4x4x8 (8 spines)
            self.assertEqual(a.cells(), b.cells())
            self.assertEqual(len(a.cells()), 2 * 2 * 1 * 1 * 1 * 2)
            c = sweep.grid_from_args(sweep._parser().parse_args(["--grid", js, "--seeds", "7"]))
            self.assertEqual({cell.seed for cell in c.cells()}, {7})  # a flag wins
            with open(js, "w") as f:
                f.write('{"policies": ["ff"], "seed": [1]}')
            self.refuse(["--grid", js], "unknown key 'seed'")
            with open(js, "w") as f:
                f.write('{"policies": ["ff", "nope"]}')
            self.refuse(["--grid", js], "g.json: policies", "'nope'")

    def test_python_messages_name_the_parameter(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "r.csv")
            cases = [
                (dict(policies=["lwf1"]),
                 "sweep.run: policies: unknown policy 'lwf1'; did you mean 'lwf-1'?"),
                (dict(policies="ff", load_scales=[0]), "sweep.run: load_scales: bad load scale 0"),
                (dict(policies="ff", networks="fluid"), "sweep.run: networks: unknown network"),
                (dict(policies="ff", format="tiresia"),
                 "sweep.run: format: unknown trace format 'tiresia'; did you mean 'tiresias'?"),
                (dict(policies="ff", traces=[os.path.join(tmp, "no.csv")]),
                 "sweep.run: traces: cannot load trace"),
                (dict(policies="ff", traces=[os.path.join(support.REPO, "data",
                                                          "sample-trace.csv")]),
                 "sweep.run: traces: cannot load trace"),
                (dict(policies="ff", workers=-1), "sweep.run: workers: bad value -1"),
                (dict(policies="ff", cells=[5]), "sweep.run: cells: 5 is not a cell index"),
                (dict(policies="ff", max_cells=-1), "sweep.run: max_cells: bad value -1"),
                (dict(policies="ff", out=None), "sweep.run: out: a CSV path is required"),
                (dict(policies="ff", merge=[os.path.join(tmp, "no.csv")]),
                 "sweep.run: merge: no such file")]
            for kw, want in cases:
                with self.subTest(kw=kw):
                    args = dict(out=out, workers=0, progress=False)
                    args.update(kw)
                    with self.assertRaises(sweep.GridError) as cm:
                        sweep.run(**args)
                    self.assertTrue(str(cm.exception).startswith(want), str(cm.exception))
                    self.assertNotIn("--", str(cm.exception))
            with self.assertRaisesRegex(sweep.GridError, r"^sweep\.Grid: seeds: bad seed -1"):
                sweep.Grid(policies="ff", seeds=[-1])
            with self.assertRaisesRegex(sweep.GridError, r"^sweep\.plot: path: .*'gif'"):
                sweep.plot({}, {}, os.path.join(tmp, "x.gif"))
            self.assertFalse(os.path.exists(out))

    def test_missing_matplotlib_names_the_interpreter_and_package(self):
        with mock.patch.dict(sys.modules, {"matplotlib": None}):  # import fails
            with self.assertRaises(sweep.GridError) as cm:
                sweep.check_plot_path("jct.png", "--plot")
        text = str(cm.exception)
        self.assertTrue(text.startswith("--plot needs matplotlib"), text)
        self.assertIn(sys.executable, text)
        self.assertIn("apt-get install python3-matplotlib", text)

    def test_names_come_from_the_library(self):
        self.assertEqual(sweep.policies(), list(sim.policies()))
        models = sweep.network_models()
        self.assertEqual(models["maxmin"], int(sim.Network.MAXMIN))
        self.assertEqual(models["contention"], int(sim.Network.CONTENTION))
        # Every model the bindings' setter gets accepted is listed, by name.
        for member in sim.Network:
            with sim.Options() as o:
                try:
                    o.set_network(member)
                except netsched.NetschedError:
                    self.assertNotIn(member.name.lower(), models)
                    continue
            self.assertEqual(models[member.name.lower()], int(member))
        self.assertEqual(sweep.metric_names()[0], sim.metric_name(0))
        self.assertEqual(len(sweep.metric_names()), len(set(sweep.metric_names())))


@unittest.skipIf(scipy is None, "scipy is not installed (python3-scipy, which "
                 "python3-distributed brings): confidence-interval tests skipped")
class TestStatistics(unittest.TestCase):
    def test_ci95_student_t(self):
        # 1, 2, 3: mean 2, sample sd 1; t(0.975, 2 df) = 4.303 (any t table),
        # so the half-width is 4.303 / sqrt(3) = 2.484.
        st = sweep.ci95([1.0, 2.0, 3.0])
        self.assertEqual((st.mean, st.n), (2.0, 3))
        self.assertAlmostEqual(st.ci, 4.303 / math.sqrt(3), places=3)
        # 10 equal values: no spread, no interval.
        self.assertEqual(sweep.ci95([5.0] * 10).ci, 0.0)
        self.assertTrue(math.isnan(sweep.ci95([4.0]).ci))

    def test_best_policy_marks(self):
        S = sweep.Stat
        best = sweep.best_policies
        # b [7.5, 8.5] and a [9.5, 10.5] are apart: b is best (lowest) ...
        apart = {"a": S(10.0, 0.5, 3), "b": S(8.0, 0.5, 3)}
        self.assertEqual(best(apart, "avg_jct_ms"), {"b"})
        self.assertEqual(best(apart, "gpu_util"), {"a"})  # ... a where higher is better
        # b [7, 9] and a [9, 11] touch at 9: no mark
        self.assertEqual(best({"a": S(10.0, 1, 3), "b": S(8.0, 1, 3)}, "avg_jct_ms"), set())
        # a tie: no mark (the old rule marked both)
        self.assertEqual(best({"a": S(10.0, 1, 3), "b": S(8.0, 1, 3), "c": S(8.0, 1, 3)},
                              "avg_jct_ms"), set())
        # exact values (CI 0, a deterministic trace) that differ: marked
        self.assertEqual(best({"a": S(10.0, 0.0, 2), "b": S(8.0, 0.0, 2)}, "avg_jct_ms"), {"b"})
        # b is clear of the runner-up a but c's wide interval [7, 17] covers it
        self.assertEqual(best({"a": S(10.0, 0.5, 3), "b": S(8.0, 0.5, 3), "c": S(12.0, 5, 3)},
                              "avg_jct_ms"), set())
        # one seed: no interval, no mark; one policy: nothing to beat
        self.assertEqual(best({"a": S(10.0, math.nan, 1), "b": S(8.0, math.nan, 1)},
                              "avg_jct_ms"), set())
        self.assertEqual(best({"b": S(8.0, 0.5, 3)}, "avg_jct_ms"), set())
        self.assertEqual(best(apart, "skipped"), set())
        self.assertEqual(best(apart, "not_a_metric"), set())

    def test_summary_text(self):
        names = sweep.metric_names()
        results = {}
        for policy, jct_ms, util in (("ff", 100e3, 0.10), ("lwf-1", 50e3, 0.20)):
            for seed, d in ((1, -1.0), (2, 0.0), (3, 1.0)):
                cell = sweep.Cell(policy, seed, "default", "default", "default", 1.0)
                results[cell] = {n: 0.0 for n in names}
                results[cell].update(avg_jct_ms=jct_ms + 1000 * d, gpu_util=util + 0.01 * d,
                                     jobs_done=[10, 11, 11][seed - 1])
        text = sweep.format_summary(results, ["avg_jct_ms", "gpu_util", "jobs_done"])
        lines = text.splitlines()
        self.assertIn("(3 seeds)", lines[0])
        rows = {line.split()[0]: i for i, line in enumerate(lines) if line.startswith("  ")}
        # avg_jct_ms 99000, 100000, 101000 ms -> 100.0 s; sd 1 s, so the CI is
        # t(0.975, 2) / sqrt(3) = 4.303 / 1.732 = 2.484 -> 2.5 s (0.1 s, as
        # netsched-sim); lwf-1's [47.5, 52.5] is clear of ff's [97.5, 102.5]
        ff, lwf = lines[rows["avg_jct_s"]].split(), lines[rows["avg_jct_s"] + 1].split()
        self.assertEqual(ff, ["avg_jct_s", "ff", "100.0", "2.5"])
        self.assertEqual(lwf, ["lwf-1", "50.0", "2.5", "*"])
        # gpu_util 0.09..0.11 -> 10.0 % +- 2.5; 20.0 % for lwf-1, highest: marked
        ff, lwf = lines[rows["gpu_util%"]].split(), lines[rows["gpu_util%"] + 1].split()
        self.assertEqual(ff, ["gpu_util%", "ff", "10.0", "2.5"])
        self.assertEqual(lwf, ["lwf-1", "20.0", "2.5", "*"])
        # counts 10, 11, 11: mean 10.7 (one decimal once it is not whole);
        # both policies the same: a tie, no mark
        ff = lines[rows["jobs_done"]].split()
        self.assertEqual(ff[:3], ["jobs_done", "ff", "10.7"])
        self.assertNotIn("*", lines[rows["jobs_done"] + 1])
        self.assertIn("marked only where its 95 % interval overlaps no other policy's", text)
        self.assertNotIn("e+", text)  # no e-notation
        # one seed: no intervals, nothing marked
        one = {c: m for c, m in results.items() if c.seed == 1}
        text = sweep.format_summary(one, ["avg_jct_ms"])
        self.assertIn("(1 seed: no 95 % intervals, nothing marked)", text)
        self.assertNotIn("  *", text)
        self.assertEqual(sweep.summary_metric("avg_jct_s"), "avg_jct_ms")

    def test_quantiles_are_order_statistics(self):
        v = [float(i) for i in range(1, 11)]  # 1..10
        q = sweep._quantiles(v)
        self.assertEqual(len(q), len(sweep.QUANTILES))
        self.assertEqual((q[0], q[100], q[190], q[200]), (1.0, 5.0, 10.0, 10.0))
        # q = 0.5: rank ceil(5) = 5 -> 5; q = 0.95: rank ceil(9.5) = 10 -> 10


def fail_lwf_seed_2(task):
    """A cell function whose (lwf-1, seed 2) cell fails as a simulation would."""
    if task["cell"][:2] == ("lwf-1", 2):
        raise netsched.StateError("simulated failure")
    return sweep.run_cell(task)


class TestInProcess(unittest.TestCase):
    """--workers 0 (no Dask) and the Slurm job-array recipe."""

    def test_a_failed_cell_is_reported_and_the_others_kept(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "r.csv")
            with self.assertRaises(sweep.SweepError) as cm:
                sweep.run(out=out, workers=0, progress=False, cell_fn=fail_lwf_seed_2,
                          policies=["ff", "lwf-1"], seeds=[1, 2])
            bad = sweep.Cell("lwf-1", 2, "default", "default", "default", 1.0)
            self.assertEqual(list(cm.exception.failures), [bad])
            self.assertIn("simulated failure", cm.exception.failures[bad])
            self.assertEqual(len(csv_cells(out)), 3)
            self.assertNotIn(bad, csv_cells(out))

    def test_load_scale_divides_inter_arrival_times(self):
        # Load x2 = the gaps between arrivals halved (scale_arrivals(0.5)).
        grid = sweep.Grid(policies=["ff"], seeds=[4], load_scales=[2])
        _, metrics, _ = sweep.run_cell(grid.task(grid.cells()[0]))
        runs = {}
        for factor in (0.5, 2.0):
            with sim.Simulator(policy="ff", seed=4) as s:
                s.load_default_workload()
                s.scale_arrivals(factor)
                s.run()
                runs[factor] = (s.metrics(), [r.arrival_ms for r in s.results()])
        self.assertEqual(dict(metrics)["avg_jct_ms"], runs[0.5][0]["avg_jct_ms"])
        self.assertNotEqual(dict(metrics)["avg_jct_ms"], runs[2.0][0]["avg_jct_ms"])
        with sim.Simulator(policy="ff", seed=4) as s:
            s.load_default_workload()
            s.run()
            a = [r.arrival_ms for r in s.results()]
        a0 = min(a)
        for x, y in zip(a, runs[0.5][1]):
            self.assertAlmostEqual(y, a0 + (x - a0) / 2, delta=1e-6)

    def test_slurm_array_recipe(self):
        # The README's recipe as printed: parts/$SLURM_ARRAY_TASK_ID.csv, then
        # --merge parts/*.csv. The glob must take the parts only: the
        # quantile files are parts/N.csv.jct.
        with tempfile.TemporaryDirectory() as tmp:
            grid = ["--policies", "ff,lwf-1", "--seeds", "1,2", "--networks", "maxmin"]
            n, _, _ = quiet_main(grid + ["--count"])
            self.assertEqual(n, "4\n")
            os.mkdir(os.path.join(tmp, "parts"))
            for i in range(4):  # one array task each: $SLURM_ARRAY_TASK_ID = i
                part = os.path.join(tmp, "parts", "%d.csv" % i)
                self.assertEqual(quiet_main(grid + ["--cell", str(i), "--out", part,
                                                    "--quiet"]), ("", "", 0))
                self.assertEqual(len(csv_cells(part)), 1)
            parts = sorted(glob.glob(os.path.join(tmp, "parts", "*.csv")))
            self.assertEqual([os.path.basename(p) for p in parts],
                             ["0.csv", "1.csv", "2.csv", "3.csv"])
            merged = os.path.join(tmp, "results.csv")
            # Nothing may run again: every cell comes from the parts.
            with mock.patch.object(sweep, "run_cell", side_effect=AssertionError("ran")):
                _, err, rc = quiet_main(grid + ["--workers", "0", "--merge", *parts,
                                                "--out", merged, "--quiet"])
            self.assertEqual((rc, err), (0, ""))
            direct = os.path.join(tmp, "direct.csv")
            want = sweep.run(out=direct, workers=0, progress=False, policies=["ff", "lwf-1"],
                             seeds=[1, 2], networks=["maxmin"])
            self.assertEqual(csv_cells(merged), want)
            self.assertEqual(sweep.read_jct_quantiles(sweep.jct_path(merged)),
                             sweep.read_jct_quantiles(sweep.jct_path(direct)))
            # --merge parts/* takes the quantile files too (and an old-style
            # parts/N-jct.csv would match parts/*.csv): skipped, with a note.
            shutil.copy(sweep.jct_path(parts[0]), os.path.join(tmp, "parts", "0-jct.csv"))
            again = os.path.join(tmp, "again.csv")
            everything = sorted(glob.glob(os.path.join(tmp, "parts", "*")))
            self.assertEqual(len(everything), 9)
            with mock.patch.object(sweep, "run_cell", side_effect=AssertionError("ran")):
                _, err, rc = quiet_main(grid + ["--workers", "0", "--merge", *everything,
                                                "--out", again, "--quiet"])
            self.assertEqual(rc, 0, err)
            self.assertEqual(err.count("skipping"), 5, err)
            self.assertIn("0-jct.csv': a JCT-quantile file", err)
            self.assertEqual(csv_cells(again), want)

    def test_format_auto_reads_either_format(self):
        with tempfile.TemporaryDirectory() as tmp:
            philly = os.path.join(tmp, "philly.csv")
            with open(philly, "w") as f:  # the Philly header: detected, no --format
                f.write("timestamp,duration,num_gpus,gpu_time,cluster\n"
                        "2017-10-09 07:01:55,66.0,1,66.0,c1\n"
                        "2017-10-09 07:02:10,300.0,4,1200.0,c1\n"
                        "2017-10-09 07:03:00,120.0,2,240.0,c1\n")
            tiresias = os.path.join(tmp, "tiresias.csv")
            with open(tiresias, "w") as f:
                f.write("job_id,num_gpu,submit_time,iterations,model_name\n"
                        "a,1,0,100,vgg16\nb,2,5,100,resnet50\n")
            got = sweep.run(out=os.path.join(tmp, "r.csv"), workers=0, progress=False,
                            policies=["ff"], traces=[philly, tiresias])
            jobs = {c.trace: m["jobs_done"] + m["unfinished"] for c, m in got.items()}
            self.assertEqual(jobs, {philly: 3, tiresias: 2})
            _, err, rc = quiet_main(["--policies", "ff", "--trace", philly, "--format",
                                     "tiresias", "--out", os.path.join(tmp, "t.csv")])
            self.assertEqual(rc, 2)
            self.assertIn("--trace: cannot load tiresias trace '%s'" % philly, err)

    @unittest.skipUnless(os.access(CLI, os.X_OK), "netsched-sim not built (make)")
    def test_summary_prints_what_the_cli_prints(self):
        # One seed of one policy: the summary's mean is the run's value, in
        # the CLI table's unit and precision (same number, same rounding), for
        # every column the CLI's --help maps to a metric ("[avg_jct_ms,
        # lowest is best]"), and the same direction of "best".
        helptext = subprocess.run([CLI, "--help"], capture_output=True, text=True,
                                  check=True).stdout
        helptext = re.sub(r"\n {15}(?=\S)", " ", helptext)  # unwrap the 100-column lines
        columns = {m.group(1): (m.group(2), m.group(3)) for m in re.finditer(
            r"^  (\S+) .*\[(\w+), (lowest|highest) is best\]$", helptext, re.M)}
        with tempfile.TemporaryDirectory() as tmp:
            got = sweep.run(out=os.path.join(tmp, "r.csv"), workers=0, progress=False,
                            policies=["lwf-1"], networks=["maxmin"])
            text = sweep.format_summary(got)
            table = subprocess.run([CLI, "--policy", "lwf-1", "--network", "maxmin"],
                                   capture_output=True, text=True, check=True).stdout
        lines = table.splitlines()
        head = [ln for ln in lines if ln.startswith("policy ")][0].split()
        row = [ln for ln in lines if ln.startswith("lwf-1 ")][0].split()
        cli = dict(zip(head, row))
        self.assertEqual(set(columns), set(head) - {"policy", "time_s"})  # every column read
        mine = {}
        for line in text.splitlines():
            f = line.split()
            if line.startswith("  ") and len(f) >= 4 and f[1] == "lwf-1":
                mine[f[0]] = f[2]
        for col, (metric, direction) in columns.items():
            with self.subTest(column=col, metric=metric):
                label = sweep.display(metric).label
                self.assertEqual(unit(label), unit(col))
                self.assertEqual(mine[label], cli[col], "%s vs the CLI's %s" % (label, col))
                self.assertEqual(metric in sweep.HIGHER_IS_BETTER, direction == "highest")
                self.assertNotIn(metric, sweep.NOT_RANKED)

    def test_quiet_silences_progress_when_stderr_is_not_a_terminal(self):
        with tempfile.TemporaryDirectory() as tmp:
            grid = ["--policies", "ff,lwf-1", "--workers", "0"]
            # Without --quiet a non-terminal stderr gets a progress line per ~10 %.
            out, err, rc = quiet_main(grid + ["--out", os.path.join(tmp, "a.csv")])
            self.assertEqual(rc, 0)
            self.assertIn("2/2 cells", err)
            self.assertIn("avg_jct_s", out)
            plot = ["--plot", os.path.join(tmp, "j.png")] if matplotlib else []
            self.assertEqual(quiet_main(grid + ["--out", os.path.join(tmp, "b.csv"), "--quiet"]
                                        + plot), ("", "", 0))
            if matplotlib:
                self.assertTrue(os.path.exists(os.path.join(tmp, "j-cdf.png")))

    def test_readme_sweep_command_varies_an_axis_that_matters(self):
        # The README's sweep example (or the docs' page it moved to), run as
        # printed (in-process cells): its load-scale axis must move the
        # results of every policy.
        pages = [os.path.join(support.REPO, "README.md")] + sorted(
            glob.glob(os.path.join(support.REPO, "docs", "**", "*.md"), recursive=True))
        cmds = []
        for page in pages:
            with open(page) as f:
                blocks = re.findall(r"```sh\n(.*?)```", f.read(), re.S)
            cmds += [c for b in blocks for c in b.replace("\\\n", " ").splitlines()
                     if c.startswith("python3 -m netsched.sweep") and "--load-scale" in c]
        self.assertGreaterEqual(len(cmds), 1, "no sweep example with --load-scale in %s"
                                % [os.path.relpath(p, support.REPO) for p in pages])
        for cmd in cmds:
            with self.subTest(command=cmd):
                self.check_load_axis_matters(shlex.split(cmd)[3:])

    def check_load_axis_matters(self, argv):
        with tempfile.TemporaryDirectory() as tmp:
            os.symlink(os.path.join(support.REPO, "data"), os.path.join(tmp, "data"))
            env = dict(os.environ, PYTHONPATH=os.path.join(support.REPO, "bindings", "python"))
            done = subprocess.run([sys.executable, "-m", "netsched.sweep", *argv,
                                   "--workers", "0"], cwd=tmp, env=env, capture_output=True,
                                  text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            out = argv[argv.index("--out") + 1]
            got = sweep.read_results(os.path.join(tmp, out))
        self.assertIn("avg_jct_s", done.stdout)
        scales = sorted({c.load_scale for c in got})
        self.assertGreaterEqual(len(scales), 2)
        for policy in {c.policy for c in got}:
            jct = {c.load_scale: m["avg_jct_ms"] for c, m in got.items() if c.policy == policy}
            # the lightest load finishes jobs sooner, by at least a fifth
            self.assertLess(jct[scales[0]], 0.8 * jct[scales[-1]], policy)

    def test_trace_axis(self):
        trace = support.data_path("traces", "tiresias-60-jobs.csv")
        if trace is None:
            self.skipTest("shared data not found (NS_DATA_DIR): tiresias-60-jobs.csv")
        with tempfile.TemporaryDirectory() as tmp:
            got = sweep.run(out=os.path.join(tmp, "t.csv"), workers=0, progress=False,
                            policies=["ff"], networks=["maxmin"],
                            traces=[{"path": trace, "format": "tiresias"}, "default"])
            by_trace = {c.trace: m for c, m in got.items()}
            self.assertEqual(by_trace[trace]["jobs_done"] + by_trace[trace]["unfinished"], 60)
            self.assertEqual(by_trace["default"]["jobs_done"], 160)
            with self.assertRaisesRegex(sweep.GridError, "philly trace .*tiresias-60.*timestamp"):
                sweep.Grid(policies=["ff"], traces=[{"path": trace, "format": "philly"}])

    @unittest.skipIf(matplotlib is None, "matplotlib is not installed (python3-matplotlib)")
    def test_plot_formats_follow_the_extension(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "r.csv")
            results = sweep.run(out=out, workers=0, progress=False, policies=["ff", "lwf-1"],
                                seeds=[1, 2], networks=["maxmin"])
            jcts = sweep.read_jct_quantiles(sweep.jct_path(out))
            magic = {"png": b"\x89PNG", "pdf": b"%PDF", "svg": b"<?xml"}
            for ext, head in magic.items():
                bars, cdf = sweep.plot(results, jcts, os.path.join(tmp, "j." + ext))
                for p in (bars, cdf):
                    with open(p, "rb") as f:
                        self.assertEqual(f.read(len(head)), head, p)

    @unittest.skipIf(matplotlib is None, "matplotlib is not installed (python3-matplotlib)")
    @unittest.skipIf(scipy is None, "scipy is not installed (python3-scipy)")
    def test_error_bars_stop_at_zero(self):
        import matplotlib.pyplot as plt
        # JCTs 1, 1 and 100 s: mean 34 s, CI 4.303 * 57.2 / sqrt(3) = 142 s,
        # far more than the mean: the bar's lower error must stop at 0.
        results = {sweep.Cell("ff", s, "default", "default", "default", 1.0):
                   {"avg_jct_ms": v} for s, v in ((1, 1e3), (2, 1e3), (3, 100e3))}
        fig = sweep._bar_figure(results, ["ff"])
        try:
            from matplotlib.container import ErrorbarContainer
            errorbar, = [c for c in fig.axes[0].containers if isinstance(c, ErrorbarContainer)]
            segments = errorbar.lines[2][0].get_segments()
            (lo, hi), = [(min(p[1] for p in seg), max(p[1] for p in seg)) for seg in segments]
            st = sweep.ci95([1.0, 1.0, 100.0])
            self.assertGreater(st.ci, st.mean)
            self.assertEqual(lo, 0.0)
            self.assertAlmostEqual(hi, st.mean + st.ci, places=9)
            self.assertEqual(fig.axes[0].get_ylim()[0], 0.0)
        finally:
            plt.close(fig)

    @unittest.skipIf(matplotlib is None, "matplotlib is not installed (python3-matplotlib)")
    def test_titles_are_not_clipped(self):
        import matplotlib.pyplot as plt
        # One cluster shape, three panels, a long trace name: the shape that
        # clipped titles (panels 2 inches wide).
        trace = "/data/philly-cluster-11cb48-october-2017-first-week-export.csv"
        results, jcts = {}, {}
        for p in ("ff", "lwf-1", "dally"):
            for x in (0.5, 1.0, 2.0):
                cell = sweep.Cell(p, 1, "4x4x4x8", "maxmin", trace, x)
                results[cell] = {"avg_jct_ms": 1e6 * x}
                jcts[cell] = [1e3 * (1 + q) for q in sweep.QUANTILES]
        figs = (sweep._bar_figure(results, ["ff", "lwf-1", "dally"]),
                sweep._cdf_figure(sweep.cdf_curves(jcts), ["ff", "lwf-1", "dally"]))
        try:
            for fig in figs:
                fig.canvas.draw()
                r = fig.canvas.get_renderer()
                box = fig.bbox
                titles = [ax.title.get_window_extent(r) for ax in fig.axes if ax.get_visible()]
                self.assertEqual(len(titles), 3)
                for t in titles:
                    self.assertTrue(t.x0 >= box.x0 and t.x1 <= box.x1 and t.y1 <= box.y1,
                                    (t, box))
                for a, b in zip(titles, titles[1:]):
                    self.assertLess(a.x1, b.x0, "titles overlap")
                for ax in fig.axes:  # the whole name is there, wrapped
                    if ax.get_visible():
                        self.assertIn("week-export.csv", ax.get_title().replace("\n", ""))
        finally:
            for fig in figs:
                plt.close(fig)


if __name__ == "__main__":
    unittest.main()
