"""netsched.sweep against hostile grids and files (issue 31), one test per
hazard: a huge grid is counted and refused, never built; Dask gets a bounded
number of tasks at a time; a resume holds one entry per cell, not the
quantile rows; NaN/inf, conflicting, repeated and cut-off rows make their
cell run again instead of counting; overlong lines and fields, endless
lines, binary bytes and an endless --grid file are refused with a message
naming the file (and line);
a finished sweep is summarised from a read-only directory."""

import contextlib
import ctypes
import io
import itertools
import os
import shutil
import tempfile
import tracemalloc
import unittest
import warnings
from unittest import mock

from netsched import sweep

try:
    import distributed
except ImportError:
    distributed = None

# 10^4 seeds x 10^4 load scales: 10^8 cells (the MemoryError grid).
HUGE_SEEDS = ",".join(str(i) for i in range(10_000))
HUGE_SCALES = ",".join("%d" % (i + 1) for i in range(10_000))
HUGE = ["--policies", "ff", "--seeds", HUGE_SEEDS, "--load-scale", HUGE_SCALES]


def quiet_main(argv):
    """sweep.main with stdout and stderr captured: (stdout, stderr, status)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = sweep.main(argv)
    return out.getvalue(), err.getvalue(), rc


def peak_bytes(fn):
    """(fn(), the peak of Python allocations while it ran)."""
    tracemalloc.start()
    try:
        result = fn()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# ---- a read-only directory, also for root (who ignores file modes) -----------

@contextlib.contextmanager
def read_only(directory):
    """`directory` cannot be written: its mode (for other users) and, for
    the duration, open-for-writing, rename, replace and remove of anything
    in it raise PermissionError (as for a user without write access)."""
    d = os.path.abspath(directory)
    real_open = open

    def inside(p):
        return isinstance(p, (str, os.PathLike)) and \
            os.path.dirname(os.path.abspath(os.fspath(p))) == d

    def deny(p):
        raise PermissionError(13, "Permission denied", os.fspath(p))

    def guarded_open(file, mode="r", *args, **kw):
        if inside(file) and any(c in mode for c in "wax+"):
            deny(file)
        return real_open(file, mode, *args, **kw)

    def guard(fn):
        def call(*args, **kw):
            for p in args[:2]:
                if inside(p):
                    deny(p)
            return fn(*args, **kw)
        return call
    os.chmod(d, 0o555)
    try:
        with mock.patch("builtins.open", guarded_open), \
                mock.patch("os.replace", guard(os.replace)), \
                mock.patch("os.rename", guard(os.rename)), \
                mock.patch("os.unlink", guard(os.unlink)), \
                mock.patch("os.remove", guard(os.remove)):
            yield
    finally:
        os.chmod(d, 0o755)


class TestHugeGrids(unittest.TestCase):
    def test_count_of_a_1e8_cell_grid_builds_nothing(self):
        (out, err, rc), peak = peak_bytes(lambda: quiet_main(HUGE + ["--count"]))
        self.assertEqual((out, rc), ("100000000\n", 0), err)
        # 10^8 Cells would be gigabytes; the axes' 2 x 10^4 values are ~2 MB.
        self.assertLess(peak, 20e6)

    def test_a_1e8_cell_grid_is_refused_before_anything_runs(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "r.csv")
            (_, err, rc), peak = peak_bytes(
                lambda: quiet_main(HUGE + ["--out", out, "--workers", "0"]))
            self.assertEqual(rc, 2)
            self.assertIn("the grid: 100000000 cells to run (policies 1 x seeds 10000 x "
                          "clusters 1 x networks 1 x traces 1 x load scales 10000), more than "
                          "--max-cells 100000", err)
            self.assertLess(peak, 20e6)
            self.assertFalse(os.path.exists(out))
            with self.assertRaisesRegex(sweep.GridError, "more than sweep.run: max_cells 5"):
                sweep.run(out=out, workers=0, policies="ff", seeds=list(range(6)), max_cells=5)
            # cell indices: refused at the first one past the limit, the rest
            # never read (an endless iterator ends)
            with self.assertRaisesRegex(sweep.GridError, "^sweep.run: cells: over 3 cells to run"):
                sweep.run(out=out, workers=0, policies="ff", seeds=list(range(6)), max_cells=3,
                          cells=(i % 6 for i in itertools.count()))

    def test_one_cell_of_a_1e8_cell_grid_runs_alone(self):
        # A Slurm array task of a huge grid: cell I by arithmetic, not a list.
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "r.csv")
            last = 10 ** 8 - 1  # seed 9999, load scale 10000
            _, err, rc = quiet_main(HUGE + ["--cell", str(last), "--out", out, "--quiet"])
            self.assertEqual(rc, 0, err)
            cells = list(sweep.read_results(out))
            self.assertEqual(cells, [sweep.Cell("ff", 9999, "default", "default", "default",
                                                10000.0)])

    def test_cell_indices_are_the_iteration_order(self):
        g = sweep.Grid(policies="ff,lwf-1", seeds="1,2,3", clusters="default,4x4x4",
                       load_scales="0.5,2")
        cells = list(g.cells())
        self.assertEqual(len(cells), g.size)
        self.assertEqual(g.size, 2 * 3 * 2 * 2)
        self.assertEqual([g.cell(i) for i in range(g.size)], cells)
        self.assertEqual([g.index(c) for c in cells], list(range(g.size)))
        self.assertEqual(g.cells()[-1], cells[-1])
        self.assertEqual(g.cells()[3:5], cells[3:5])
        self.assertIsNone(g.index(sweep.Cell("ff", 4, "default", "default", "default", 0.5)))
        self.assertNotIn(sweep.Cell("ff", 1, "default", "default", "default", 1.0), g.cells())
        with self.assertRaises(IndexError):
            g.cell(g.size)

    @unittest.skipIf(distributed is None, "Dask distributed is not installed "
                     "(python3-distributed): bounded submission test skipped")
    def test_dask_gets_a_bounded_number_of_tasks_at_a_time(self):
        state = {"submitted": 0, "ended": 0, "most": 0}

        def ended(cell, metrics):
            state["ended"] += 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # tornado's, on Python 3.11
            with tempfile.TemporaryDirectory() as tmp, \
                    distributed.Client(processes=False, n_workers=1, threads_per_worker=1,
                                       dashboard_address=":0") as client:

                class Counting:
                    """The client, counting tasks submitted and not yet ended."""

                    def submit(self, *a, **kw):
                        state["submitted"] += 1
                        state["most"] = max(state["most"], state["submitted"] - state["ended"])
                        return client.submit(*a, **kw)

                    def nthreads(self):
                        return client.nthreads()
                got = sweep.run(out=os.path.join(tmp, "r.csv"), client=Counting(),
                                progress=False, on_cell=ended, policies="ff",
                                seeds=list(range(1, 31)))
        self.assertEqual(len(got), 30)
        self.assertEqual(state["submitted"], 30)
        # 1 thread: max(8, 2 x 1) = 8 in flight, never more (the next task
        # is submitted after on_cell saw the end of one)
        self.assertEqual(state["most"], 8)


def complete_sweep(directory, cells=2):
    """A finished sweep of `cells` cells (ff, seeds 1..cells) in `directory`:
    (its CSV path, {Cell: metrics})."""
    out = os.path.join(directory, "r.csv")
    got = sweep.run(out=out, workers=0, progress=False, policies="ff",
                    seeds=list(range(1, cells + 1)))
    return out, got


def rerun(out, cells=2):
    """Resumes the sweep of complete_sweep: (cells that ran again, results, stderr)."""
    ran, err = [], io.StringIO()
    with contextlib.redirect_stderr(err):
        got = sweep.run(out=out, workers=0, progress=False, policies="ff",
                        seeds=list(range(1, cells + 1)), on_cell=lambda c, m: ran.append(c))
    return ran, got, err.getvalue()


def lines_of(path):
    with open(path, newline="") as f:
        return f.read().splitlines(keepends=True)


def write_lines(path, lines):
    with open(path, "w", newline="") as f:
        f.writelines(lines)


class TestResumeRows(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out, self.ref = complete_sweep(self.tmp.name)
        self.cell1 = sweep.Cell("ff", 1, "default", "default", "default", 1.0)

    def tearDown(self):
        self.tmp.cleanup()

    def edit(self, metric, value, seed=1):
        """Sets `metric` of cell (ff, seed) to the text `value` in the CSV."""
        rows = lines_of(self.out)
        key = "ff,%d,default,default,default,1.0,%s," % (seed, metric)
        k = [i for i, r in enumerate(rows) if r.startswith(key)][0]
        rows[k] = key + value + "\r\n"
        write_lines(self.out, rows)
        return k + 1  # its line number

    def assert_healed(self, ran, got, err):
        self.assertEqual(ran, [self.cell1])  # only the damaged cell ran again
        self.assertEqual(got, self.ref)
        self.assertEqual(sweep.read_results(self.out), self.ref)
        n = len(sweep.metric_names())
        self.assertEqual(len(lines_of(self.out)), 1 + 2 * n)  # each row once, none left over

    def test_nan_and_inf_rows_run_again(self):
        for bad in ("nan", "-inf", "inf"):
            with self.subTest(value=bad):
                line = self.edit("avg_jct_ms", bad)
                ran, got, err = rerun(self.out)
                self.assert_healed(ran, got, err)
                self.assertIn("line %d: avg_jct_ms is %s: cell policy=ff seed=1" % (line, bad),
                              err)
                self.assertIn("it runs again", err)

    def test_a_repeated_row_with_another_value_runs_again(self):
        rows = lines_of(self.out)
        key = "ff,1,default,default,default,1.0,avg_jct_ms,"
        first = [r for r in rows if r.startswith(key)][0]
        write_lines(self.out, rows + [key + "1234.5\r\n"])  # silently won before
        ran, got, err = rerun(self.out)
        self.assert_healed(ran, got, err)
        self.assertIn("avg_jct_ms is 1234.5, an earlier row says %s"
                      % first.rsplit(",", 1)[1].strip(), err)

    def test_a_repeated_row_with_the_same_value_counts_once(self):
        rows = lines_of(self.out)
        write_lines(self.out, rows + rows[1:3])  # a double append
        ran, got, err = rerun(self.out)
        self.assertEqual((ran, err), ([], ""))
        self.assertEqual(got, self.ref)
        self.assertEqual(len(lines_of(self.out)), len(rows))  # rewritten without the repeat

    def test_a_cut_off_number_is_not_a_value(self):
        # The cell's last row cut mid-number: "preemptions,17.0" -> "...,1";
        # without its line end it must not count (it would be 1.0).
        rows = lines_of(self.out)
        last = rows[-1]
        self.assertTrue(last.startswith("ff,2,") and last.endswith("\r\n"))
        write_lines(self.out, rows[:-1] + [last.rsplit(",", 1)[0] + ",1"])
        ran, got, err = rerun(self.out)
        self.assertEqual([c.seed for c in ran], [2])
        self.assertEqual(got, self.ref)

    def test_merged_parts_that_disagree_run_again(self):
        other = os.path.join(self.tmp.name, "other.csv")
        shutil.copy(self.out, other)
        shutil.copy(sweep.jct_path(self.out), sweep.jct_path(other))
        self.out, self.ref = self.out, self.ref
        rows = lines_of(other)
        key = "ff,1,default,default,default,1.0,makespan_ms,"
        write_lines(other, [key + "1.0\r\n" if r.startswith(key) else r for r in rows])
        ran, err = [], io.StringIO()
        with contextlib.redirect_stderr(err):
            got = sweep.run(out=self.out, workers=0, progress=False, policies="ff",
                            seeds=[1, 2], merge=[other], on_cell=lambda c, m: ran.append(c))
        self.assertEqual(ran, [self.cell1])
        self.assertEqual(got, self.ref)
        self.assertIn("disagree on cell policy=ff seed=1", err.getvalue())

    def test_a_worker_result_with_nan_is_not_written(self):
        def nan_cell(task):
            cell, metrics, qs = sweep.run_cell(task)
            return cell, [(n, float("nan") if n == "p99_jct_ms" else v) for n, v in metrics], qs
        out = os.path.join(self.tmp.name, "n.csv")
        with self.assertRaises(sweep.SweepError) as cm:
            sweep.run(out=out, workers=0, progress=False, policies="ff", cell_fn=nan_cell)
        self.assertIn("metric p99_jct_ms is nan", str(cm.exception))
        self.assertEqual(sweep.read_results(out), {})


class TestHostileFiles(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out, self.ref = complete_sweep(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def refused(self, *needles):
        out, err, rc = quiet_main(["--policies", "ff", "--seeds", "1,2", "--out", self.out,
                                   "--workers", "0"])
        self.assertEqual(rc, 2, err)
        self.assertNotIn("Traceback", err)
        self.assertNotIn("_csv.Error", err)
        for n in needles:
            self.assertIn(n, err)
        return err

    def test_overlong_line_is_refused_with_a_message(self):
        rows = lines_of(self.out)
        write_lines(self.out, rows[:3] + ["ff,1,default,default,%s,1.0,x,1\r\n" % ("t" * 200_000)]
                    + rows[3:])
        self.refused("--out: '%s' line 4 is longer than 65536 characters: not a sweep CSV"
                     % self.out)

    def test_overlong_field_is_refused_with_a_message(self):
        # A quoted field over many short lines: past csv's 131,072-character
        # field limit (the _csv.Error traceback of issue 31).
        field = '"' + ("y" * 1000 + "\n") * 140 + '"'
        rows = lines_of(self.out)
        write_lines(self.out, rows[:2] + ["ff,1,default,default,%s,1.0,x,1\r\n" % field])
        self.refused("a field longer than 131072 characters: not a sweep CSV")

    def test_endless_line_costs_bounded_memory(self):
        with open(self.out, "w") as f:
            f.write("policy," + "z" * 8_000_000)  # no line end at all
        err, peak = peak_bytes(lambda: self.refused("line 1 is longer than 65536 characters"))
        self.assertLess(peak, 2e6)  # the 8 MB line is never held

    def test_binary_file_is_refused_with_a_message(self):
        with open(sweep.jct_path(self.out), "wb") as f:
            f.write(",".join(sweep.JCT_COLUMNS).encode() + b"\r\n\xff\xfe\x00garbage\r\n")
        self.refused("r.csv.jct' line 2: not UTF-8 text")

    def test_endless_grid_file_is_refused(self):
        (_, err, rc), peak = peak_bytes(lambda: quiet_main(["--grid", "/dev/zero", "--count"]))
        self.assertEqual(rc, 2)
        self.assertIn("--grid: '/dev/zero' is larger than 1048576 bytes: not a grid file", err)
        self.assertLess(peak, 4e6)
        bom = os.path.join(self.tmp.name, "g.json")
        with open(bom, "wb") as f:
            f.write(b'\xef\xbb\xbf{"policies": ["ff"], "seeds": [1, 2]}')
        self.assertEqual(quiet_main(["--grid", bom, "--count"]), ("2\n", "", 0))
        with open(bom, "wb") as f:
            f.write(b'{"policies": ["\xff"]}')
        _, err, rc = quiet_main(["--grid", bom, "--count"])
        self.assertEqual(rc, 2)
        self.assertIn("is not UTF-8 text", err)

    def test_a_byte_order_mark_is_accepted(self):
        with open(self.out, "rb") as f:
            data = f.read()
        with open(self.out, "wb") as f:
            f.write(b"\xef\xbb\xbf" + data)  # as a spreadsheet saves it
        self.assertEqual(sweep.read_results(self.out), self.ref)

    def test_another_csv_is_refused_naming_it(self):
        with open(self.out, "w") as f:
            f.write("job_id,num_gpu,submit_time\n1,2,3\n")
        self.refused("--out: '%s' is not a sweep CSV (header job_id,num_gpu,submit_time"
                     % self.out)


class TestReadOnly(unittest.TestCase):
    def test_a_finished_sweep_is_summarised_from_a_read_only_directory(self):
        with tempfile.TemporaryDirectory() as tmp:
            d = os.path.join(tmp, "ro")
            os.mkdir(d)
            out, _ = complete_sweep(d)
            before = {n: os.stat(os.path.join(d, n)) for n in os.listdir(d)}
            argv = ["--policies", "ff", "--seeds", "1,2", "--out", out, "--workers", "0"]
            with read_only(d):
                text, err, rc = quiet_main(argv)
                self.assertEqual(rc, 0, err)
                self.assertIn("avg_jct_s", text)
                # the guard is real: writing there fails
                with self.assertRaises(PermissionError):
                    open(os.path.join(d, "probe"), "w")
                # a sweep with a cell to run says it cannot write, no traceback
                text, err, rc = quiet_main(argv[:3] + ["1,2,3"] + argv[4:])
                self.assertEqual(rc, 2)
                self.assertIn("--out: cannot write '%s'" % out, err)
            after = {n: os.stat(os.path.join(d, n)) for n in os.listdir(d)}
            self.assertEqual(sorted(after), sorted(before))  # no new file (no .tmp)
            for n in before:
                self.assertEqual((after[n].st_mtime_ns, after[n].st_size, after[n].st_ino),
                                 (before[n].st_mtime_ns, before[n].st_size, before[n].st_ino))


class TestResumeMemory(unittest.TestCase):
    def test_resume_holds_cells_not_quantile_rows(self):
        # A complete 1,000-cell sweep written as the module writes it
        # (201,000 quantile rows, ~10 MB). Issue 31 measured ~1 KB per
        # quantile row (2.17 GB for a 117 MB file: ~200 KB per cell). Resuming
        # must hold about one entry per cell: the same peak, within 1 KB a
        # cell (a bit mask of its quantiles), with the quantile file as with a
        # header-only one, and under 8 KB a cell in all.
        names = sweep.metric_names()
        cells = 1000
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "r.csv")
            seeds = list(range(1, cells + 1))
            with open(out, "w") as f, open(sweep.jct_path(out), "w") as g:
                f.write(",".join(sweep.COLUMNS) + "\r\n")
                g.write(",".join(sweep.JCT_COLUMNS) + "\r\n")
                for s in seeds:
                    key = "ff,%d,default,default,default,1.0," % s
                    for k, n in enumerate(names):
                        f.write("%s%s,%r\r\n" % (key, n, float(s + k)))
                    for q in sweep.QUANTILES:
                        g.write("%s%r,%r\r\n" % (key, q, 1e5 * q + s))
            size = os.path.getsize(sweep.jct_path(out))

            def resume():
                with mock.patch.object(sweep, "run_cell", side_effect=AssertionError("ran")), \
                        contextlib.redirect_stderr(io.StringIO()):
                    return sweep.run(out=out, workers=0, progress=False, policies="ff",
                                     seeds=seeds)
            got, peak = peak_bytes(resume)
            with open(sweep.jct_path(out), "w") as g:  # no quantiles: the cells still count
                g.write(",".join(sweep.JCT_COLUMNS) + "\r\n")
            got_without, peak_without = peak_bytes(resume)
        self.assertEqual(len(got), cells)
        self.assertEqual(got, got_without)
        self.assertEqual(got[sweep.Cell("ff", 7, "default", "default", "default", 1.0)]
                         ["avg_jct_ms"], 7.0)
        self.assertGreater(size, 9e6)
        msg = "peak %d B (%d B without the %d B quantile file)" % (peak, peak_without, size)
        self.assertLess(peak - peak_without, 1000 * cells, msg)
        self.assertLess(peak, 8000 * cells, msg)


def tearDownModule():
    # These tests allocate and free tens of MB; give the free heap back to
    # the system so that later suites measuring RSS (test_leaks) start from
    # a heap that must grow, as they would alone.
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


if __name__ == "__main__":
    unittest.main()
