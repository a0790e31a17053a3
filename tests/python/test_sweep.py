"""netsched.sweep: a 2-worker local Dask cluster gives the CLI's numbers cell
by cell; a sweep whose worker dies mid-cell is retried, or resumed from its
CSV; bad grids are refused before anything runs; the summary's statistics
and the Slurm-array recipe (--count, --cell, --merge)."""

import contextlib
import csv
import io
import math
import os
import statistics
import subprocess
import tempfile
import unittest

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
        self.assertEqual(rc, 0)
        self.assertEqual(csv_cells(out), self.ref)
        text = stdout.getvalue()
        for name in sweep.metric_names():
            self.assertIn(name, text)
        if matplotlib:
            for p in (png, sweep.cdf_plot_path(png)):
                with open(p) as f:
                    self.assertIn("<svg", f.read(400))


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
        self.refuse(["--policies", "ff,lwf1"], "--policies", "'lwf1'", "lwf-1")

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
            self.assertEqual(a.cells(), b.cells())  # 4x4x4 = 4x4x4x8 (8 spines by default)
            self.assertEqual(len(a.cells()), 2 * 2 * 1 * 1 * 1 * 2)
            c = sweep.grid_from_args(sweep._parser().parse_args(["--grid", js, "--seeds", "7"]))
            self.assertEqual({cell.seed for cell in c.cells()}, {7})  # a flag wins
            with open(js, "w") as f:
                f.write('{"policies": ["ff"], "seed": [1]}')
            self.refuse(["--grid", js], "unknown key 'seed'")
            with open(js, "w") as f:
                f.write('{"policies": ["ff", "nope"]}')
            self.refuse(["--grid", js], "g.json: policies", "'nope'")

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
        stats = {"a": S(10.0, 1, 3), "b": S(8.0, 1, 3), "c": S(8.0, 1, 3)}
        self.assertEqual(sweep.best_policies(stats, "avg_jct_ms"), {"b", "c"})  # tie
        self.assertEqual(sweep.best_policies(stats, "gpu_util"), {"a"})  # higher is better
        self.assertEqual(sweep.best_policies(stats, "skipped"), set())
        self.assertEqual(sweep.best_policies(stats, "not_a_metric"), set())

    def test_summary_text(self):
        names = sweep.metric_names()
        results = {}
        for policy, base in (("ff", 100.0), ("lwf-1", 50.0)):
            for seed, d in ((1, -1.0), (2, 0.0), (3, 1.0)):
                cell = sweep.Cell(policy, seed, "default", "default", "default", 1.0)
                results[cell] = {n: base + d for n in names}
        text = sweep.format_summary(results, ["avg_jct_ms", "gpu_util"])
        lines = text.splitlines()
        self.assertIn("(3 seeds)", lines[0])
        row = [line for line in lines if "avg_jct_ms" in line][0]
        self.assertEqual(row.split()[:3], ["avg_jct_ms", "ff", "100"])
        self.assertFalse(row.endswith("*"))
        lwf = lines[lines.index(row) + 1].split()
        self.assertEqual(lwf[:2], ["lwf-1", "50"])  # lowest mean JCT: marked
        self.assertEqual(lwf[-1], "*")
        self.assertAlmostEqual(float(lwf[2]), 4.303 / math.sqrt(3), places=3)

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
        with tempfile.TemporaryDirectory() as tmp:
            grid = ["--policies", "ff,lwf-1", "--seeds", "1,2", "--networks", "maxmin"]
            quiet = {"stdout": io.StringIO(), "stderr": io.StringIO()}

            def main(argv):
                with contextlib.redirect_stdout(quiet["stdout"]), \
                        contextlib.redirect_stderr(quiet["stderr"]):
                    return sweep.main(argv)
            quiet["stdout"] = io.StringIO()
            self.assertEqual(main(grid + ["--count"]), 0)
            n = int(quiet["stdout"].getvalue())
            self.assertEqual(n, 4)
            parts = []
            for i in range(n):  # one array task each: $SLURM_ARRAY_TASK_ID = i
                parts.append(os.path.join(tmp, "part-%d.csv" % i))
                self.assertEqual(main(grid + ["--cell", str(i), "--out", parts[-1], "--quiet"]),
                                 0)
                self.assertEqual(len(csv_cells(parts[-1])), 1)
            merged = os.path.join(tmp, "all.csv")
            ran = []
            got = sweep.run(out=merged, workers=0, progress=False, merge=parts,
                            on_cell=lambda c, m: ran.append(c), policies=["ff", "lwf-1"],
                            seeds=[1, 2], networks=["maxmin"])
            self.assertEqual(ran, [])  # everything came from the parts
            direct = sweep.run(out=os.path.join(tmp, "direct.csv"), workers=0, progress=False,
                               policies=["ff", "lwf-1"], seeds=[1, 2], networks=["maxmin"])
            self.assertEqual(got, direct)
            self.assertEqual(sweep.read_jct_quantiles(sweep.jct_path(merged)),
                             sweep.read_jct_quantiles(sweep.jct_path(
                                 os.path.join(tmp, "direct.csv"))))

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


if __name__ == "__main__":
    unittest.main()
