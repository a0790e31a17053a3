"""Policy sweeps: every cell of a policy x seed x cluster x network x trace x
load-scale grid is one independent simulation (netsched.sim), run on Dask
distributed -- local worker processes by default, or an existing scheduler.

    python3 -m netsched.sweep --policies ff,lwf-1 --seeds 1,2,3 \\
        --clusters 4x4x4,8x4x4x8 --load-scale 0.5,1,2 --out results.csv --plot jct.png

    from netsched import sweep
    rows = sweep.run(policies=["ff", "lwf-1"], seeds=[1, 2, 3], out="results.csv")

Grid axes (flags, or the same keys in a small JSON/TOML file given with
--grid; a flag replaces the file's axis):

  policies     simulator presets, as netsched.sim.policies() lists them
  seeds        integers in [0, 2^64): the workload draws and random policies
  clusters     "default" (the library's) or LxSxG[xP]: L leaves x S servers
               per leaf x G GPUs per server [x P spines, default 8]; 2 links
               per leaf-spine pair at 10 Gbps (netsched-sim's defaults)
  networks     "default" (the library's default model) or a model name of
               netsched.sweep.network_models() (read from the library at run time)
  traces       "default" (the embedded workload) or a trace file path; in a
               grid file also {"path": P, "format": "philly"}
  load_scales  offered-load multipliers, finite and > 0: load scale x divides
               every inter-arrival time by x (ns_sim_scale_arrivals(1/x)):
               2 = jobs arrive twice as fast, 0.5 = half as fast
  format       trace format of the path-only traces (tiresias or philly)

Output: a tidy CSV, one row per (cell, metric) -- columns
policy,seed,cluster,network,trace,load_scale,metric,value, metric names as
ns_sim_metric_name -- plus a sidecar <out>-jct.csv with 201 quantiles
(0, 0.005, ..., 1; order statistics) of each cell's finished-job JCTs for
the CDF plot. Rows of a cell are appended and flushed together as the cell
ends; a run given an existing CSV keeps its complete cells and runs only the
others (resume), dropping the rows of a cell cut off mid-write.

Choices where the issue left room: the 95 % confidence interval is
Student's t (n - 1 degrees of freedom, scipy) across seeds of the mean;
"best" is the lowest mean, except gpu_util and jobs_done (highest); metrics
that the policy does not decide (skipped, gpu_ms_allocated) and metrics this
module does not know are not marked; ties (within 1e-9 relative) are all
marked. The CDF of a policy averages each quantile across seeds (Vincent
averaging). A task whose worker dies is rescheduled by Dask up to --retries
times (the scheduler's allowed-failures; for --scheduler, the scheduler's own
setting applies); a simulation that fails is reported, not retried, and the
sweep exits non-zero after finishing the other cells.
"""

from __future__ import annotations

import argparse
import collections
import csv
import ctypes
import itertools
import json
import math
import os
import sys
import time
import warnings
from typing import (Any, Callable, Dict, Iterable, Iterator, List, Mapping, NamedTuple,
                    Optional, Sequence, TextIO, Tuple, TypedDict, TypeVar, Union)

from . import sim
from ._clib import lib
from .errors import NetschedError, check

COLUMNS: tuple[str, ...] = ("policy", "seed", "cluster", "network", "trace", "load_scale",
                            "metric", "value")
JCT_COLUMNS: tuple[str, ...] = COLUMNS[:6] + ("quantile", "jct_ms")
QUANTILES: tuple[float, ...] = tuple(i / 200 for i in range(201))
DEFAULT = "default"
FORMATS = {"tiresias": sim.TraceFormat.TIRESIAS, "philly": sim.TraceFormat.PHILLY}
PLOT_FORMATS = ("png", "svg", "pdf")
HIGHER_IS_BETTER = {"gpu_util", "jobs_done"}
NOT_RANKED = {"skipped", "gpu_ms_allocated"}
SPINES, LINKS_PER_PAIR, LINK_GBPS = 8, 2, 10.0  # netsched-sim's defaults

_T = TypeVar("_T")

#: A path argument: a str or an os.PathLike (pathlib.Path).
StrPath = Union[str, "os.PathLike[str]"]
#: A grid axis: a list of values or one comma-separated string.
Axis = Union[str, Sequence[_T]]
#: A cluster shape as sim.Options.set_cluster takes it: (leaves, spines,
#: servers per leaf, GPUs per server, links per leaf-spine pair, Gbps).
ClusterShape = Tuple[int, int, int, int, int, float]
#: (cluster, network, trace, load_scale): the cells that differ only by
#: policy and seed.
Scenario = Tuple[str, str, str, float]


class Cell(NamedTuple):
    """One simulation of the grid; `trace` is the path as written
    (or "default"), `trace_path`/`trace_format` travel in the task, not the CSV."""
    policy: str
    seed: int
    cluster: str
    network: str
    trace: str
    load_scale: float


#: A Cell as a plain tuple (policy, seed, cluster, network, trace, load_scale).
CellTuple = Tuple[str, int, str, str, str, float]


class Task(TypedDict):
    """What a worker needs to run one cell (plain, picklable data; Grid.task)."""
    cell: CellTuple
    shape: Optional[ClusterShape]
    network: Optional[int]
    trace_path: Optional[str]
    trace_format: int


#: What run_cell returns: (the cell as a tuple, [(metric, value)...], the
#: finished jobs' JCT at QUANTILES).
CellResult = Tuple[CellTuple, List[Tuple[str, float]], List[float]]

#: {Cell: {metric: value}}, as run() and read_results() give it.
Results = Dict[Cell, Dict[str, float]]


class GridError(ValueError):
    """A grid that cannot run; the message names the axis and the value."""


# ---- what the library offers (read at run time) -------------------------------

def policies() -> list[str]:
    """Preset names of the loaded library, in id order."""
    return list(sim.policies())


def network_models() -> dict[str, int]:
    """{name: id} of the network models the loaded library accepts: every id
    ns_sim_opts_set_network takes, named after netsched.sim.Network (an id the
    bindings have no name for yet is named by its number)."""
    found: dict[str, int] = {}
    with sim.Options() as o:
        for i in range(64):
            if lib.ns_sim_opts_set_network(o._ptr, i) == 0:
                try:
                    found[sim.Network(i).name.lower()] = i
                except ValueError:
                    found[str(i)] = i
    return found


def metric_names() -> list[str]:
    """ns_sim_metric_name of every metric id, in id order."""
    names: list[str] = []
    while len(names) <= 255:
        name = sim.metric_name(len(names))
        if not name:
            break
        names.append(name)
    return names


# ---- the grid --------------------------------------------------------------------

def _items(value: object, where: str) -> list[Any]:
    """A list from a list or a comma-separated string; empty -> GridError."""
    items: list[Any]
    if isinstance(value, str):
        items = [v.strip() for v in value.split(",")]
        if value.strip() == "":
            items = []
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        items = [value]
    if not items:
        raise GridError("%s: empty axis (give at least one value)" % where)
    for v in items:
        if isinstance(v, str) and v == "":
            raise GridError("%s: empty value in %r" % (where, value))
    return items


def _unique(values: list[_T], shown: Sequence[object], where: str) -> list[_T]:
    seen: dict[_T, object] = {}
    for v, s in zip(values, shown):
        if v in seen:
            raise GridError("%s: %r given twice" % (where, s))
        seen[v] = s
    return values


def parse_cluster(spec: str, where: str = "--clusters") -> ClusterShape | None:
    """"LxSxG[xP]" -> (leaves, spines, servers, gpus, links, gbps), checked by
    the library; "default" -> None."""
    if spec == DEFAULT:
        return None
    parts = str(spec).lower().split("x")
    try:
        nums = [int(p) for p in parts]
    except ValueError:
        nums = None
    if nums is None or len(nums) not in (3, 4):
        raise GridError("%s: bad shape %r (want LxSxG or LxSxGxP: leaves x servers per leaf"
                        " x GPUs per server [x spines], e.g. 4x4x4)" % (where, spec))
    leaves, servers, gpus = nums[:3]
    spines = nums[3] if len(nums) == 4 else SPINES
    shape: ClusterShape = (leaves, spines, servers, gpus, LINKS_PER_PAIR, LINK_GBPS)
    with sim.Options() as o:
        try:
            o.set_cluster(*shape)
        except NetschedError as e:
            raise GridError("%s: bad shape %r: %s" % (where, spec, e)) from None
    return shape


def cluster_name(shape: ClusterShape | None) -> str:
    """The name of a cluster shape in the CSV: LxSxGxP, or "default"."""
    if shape is None:
        return DEFAULT
    leaves, spines, servers, gpus = shape[:4]
    return "%dx%dx%dx%d" % (leaves, servers, gpus, spines)


class Grid:
    """A validated grid. Build with Grid(policies=..., seeds=..., ...) (any
    axis may be a list or a comma-separated string); bad values raise
    GridError before anything runs."""

    def __init__(self, policies: Axis[str] | None = None, seeds: Axis[int | str] | int = (1,),
                 clusters: Axis[str] = (DEFAULT,), networks: Axis[str | int] = (DEFAULT,),
                 traces: Axis[str | Mapping[str, str]] = (DEFAULT,),
                 load_scales: Axis[float | str] | float = (1.0,), format: str = "tiresias",
                 where: Mapping[str, str] | None = None) -> None:
        names: Mapping[str, str] = where or {}

        def w(axis: str, flag: str) -> str:
            return names.get(axis, flag)
        if policies is None:
            raise GridError("%s: no policies given" % w("policies", "--policies"))
        known = sim.policies()
        self.policies: list[str] = _items(policies, w("policies", "--policies"))
        for p in self.policies:
            if p not in known:
                raise GridError("%s: unknown policy %r (known: %s)" % (
                    w("policies", "--policies"), p, ", ".join(known)))
        _unique(self.policies, self.policies, w("policies", "--policies"))

        raw = _items(seeds, w("seeds", "--seeds"))
        self.seeds: list[int] = []
        for s in raw:
            try:
                v = int(s) if not isinstance(s, (float, bool)) else None
            except ValueError:
                v = None
            if v is None or not 0 <= v < 2 ** 64:
                raise GridError("%s: bad seed %r (want an integer in [0, 2^64))"
                                % (w("seeds", "--seeds"), s))
            self.seeds.append(v)
        _unique(self.seeds, raw, w("seeds", "--seeds"))

        raw = _items(clusters, w("clusters", "--clusters"))
        shapes = [parse_cluster(c, w("clusters", "--clusters")) for c in raw]
        self.clusters: list[str] = [cluster_name(s) for s in shapes]
        self.shapes = dict(zip(self.clusters, shapes))
        _unique(self.clusters, raw, w("clusters", "--clusters"))

        raw = _items(networks, w("networks", "--networks"))
        models = network_models()
        by_id = {v: k for k, v in models.items()}
        self.networks: list[str] = []
        for n in raw:
            name = str(n).strip().lower()
            if name.isdigit() and int(name) in by_id:
                name = by_id[int(name)]
            if name != DEFAULT and name not in models:
                raise GridError("%s: unknown network model %r (known: default, %s)"
                                % (w("networks", "--networks"), n, ", ".join(models)))
            self.networks.append(name)
        self.network_ids = {n: models.get(n) for n in self.networks}
        _unique(self.networks, raw, w("networks", "--networks"))

        if format not in FORMATS:
            raise GridError("%s: unknown trace format %r (known: %s)"
                            % (w("format", "--format"), format, ", ".join(FORMATS)))
        self.traces: list[str] = []
        self.trace_specs: dict[str, tuple[str | None, str]] = {}
        for t in _items(traces, w("traces", "--trace")):
            path, fmt = t, format
            if isinstance(t, dict):
                extra = set(t) - {"path", "format"}
                if "path" not in t or extra:
                    raise GridError("%s: a trace is {\"path\": ..., \"format\": ...} (got %r)"
                                    % (w("traces", "--trace"), t))
                path, fmt = t["path"], t.get("format", format)
                if fmt not in FORMATS:
                    raise GridError("%s: unknown trace format %r of %r (known: %s)"
                                    % (w("traces", "--trace"), fmt, path, ", ".join(FORMATS)))
            path = str(path)
            if path != DEFAULT:
                _check_trace(path, fmt, w("traces", "--trace"))
            self.traces.append(path)
            self.trace_specs[path] = (os.path.abspath(path) if path != DEFAULT else None, fmt)
        _unique(self.traces, self.traces, w("traces", "--trace"))

        raw = _items(load_scales, w("load_scales", "--load-scale"))
        self.load_scales: list[float] = []
        for x in raw:
            try:
                scale = float(x) if not isinstance(x, bool) else math.nan
            except (TypeError, ValueError):
                scale = math.nan
            if not (math.isfinite(scale) and scale > 0):
                raise GridError("%s: bad load scale %r (want a finite number > 0)"
                                % (w("load_scales", "--load-scale"), x))
            self.load_scales.append(scale)
        _unique(self.load_scales, raw, w("load_scales", "--load-scale"))

    def cells(self) -> list[Cell]:
        """Every cell, in a fixed order (the order of --cell indices)."""
        return [Cell(*c) for c in itertools.product(self.policies, self.seeds, self.clusters,
                                                    self.networks, self.traces,
                                                    self.load_scales)]

    def task(self, cell: Cell) -> Task:
        """What a worker needs to run `cell` (plain data, picklable)."""
        path, fmt = self.trace_specs[cell.trace]
        return {"cell": _plain(cell), "shape": self.shapes[cell.cluster],
                "network": self.network_ids[cell.network], "trace_path": path,
                "trace_format": int(FORMATS[fmt])}


def _check_trace(path: str, fmt: str, where: str) -> None:
    """The trace loads (same parser as the workers), before any cell runs."""
    with sim.Simulator() as s:
        try:
            s.load_trace(path, FORMATS[fmt])
        except (NetschedError, OSError) as e:
            raise GridError("%s: cannot load %s trace %r: %s" % (where, fmt, path, e)) from None


_GRID_KEYS = {"policies", "seeds", "clusters", "networks", "traces", "load_scales", "format"}


def read_grid_file(path: StrPath) -> dict[str, Any]:
    """The axes of a JSON (.json) or TOML (.toml) grid file, as a dict."""
    try:
        if str(path).endswith(".toml"):
            import tomllib
            with open(path, "rb") as f:
                data = tomllib.load(f)
        else:
            with open(path) as f:
                data = json.load(f)
    except OSError as e:
        raise GridError("--grid: cannot read %r: %s" % (path, e.strerror)) from None
    except ValueError as e:  # json.JSONDecodeError and tomllib.TOMLDecodeError
        raise GridError("--grid: %r is not valid %s: %s"
                        % (path, "TOML" if str(path).endswith(".toml") else "JSON", e)) from None
    if not isinstance(data, dict):
        raise GridError("--grid: %r must hold an object of axes" % path)
    unknown = sorted(set(data) - _GRID_KEYS)
    if unknown:
        raise GridError("--grid: %r: unknown key %r (known: %s)"
                        % (path, unknown[0], ", ".join(sorted(_GRID_KEYS))))
    return data


# ---- one cell (runs in a worker) ---------------------------------------------------

def run_cell(task: Task) -> CellResult:
    """Runs one cell; returns (cell, [(metric, value)...], [jct quantile...]).
    Plain data in and out, so any Dask worker (or this process) can run it."""
    cell = Cell(*task["cell"])
    with sim.Options() as o:
        o.set_policy(cell.policy)
        if task["shape"] is not None:
            o.set_cluster(*task["shape"])
        if task["network"] is not None:
            check(lib.ns_sim_opts_set_network(o._ptr, task["network"]))
        o.set_seed(cell.seed)
        with sim.Simulator(o) as s:
            if task["trace_path"] is None:
                s.load_default_workload()
            else:
                s.load_trace(task["trace_path"], task["trace_format"])
            if cell.load_scale != 1.0:
                s.scale_arrivals(1.0 / cell.load_scale)
            s.run()
            metrics = []
            v = ctypes.c_double()
            for i, name in enumerate(metric_names()):
                check(lib.ns_sim_metric(s._ptr, i, ctypes.byref(v)))
                metrics.append((name, v.value))
            jcts = sorted(r.finish_ms - r.arrival_ms for r in s.results()
                          if math.isfinite(r.finish_ms))
    return _plain(cell), metrics, _quantiles(jcts)


def _plain(cell: Cell) -> CellTuple:
    """The cell as a plain tuple (what tasks and results carry)."""
    return (cell.policy, cell.seed, cell.cluster, cell.network, cell.trace, cell.load_scale)


def _quantiles(sorted_values: Sequence[float]) -> list[float]:
    """Order statistics at QUANTILES (rank ceil(q n), as the simulator's
    percentiles); [] without values."""
    n = len(sorted_values)
    if n == 0:
        return []
    return [sorted_values[max(1, math.ceil(q * n)) - 1] for q in QUANTILES]


# ---- the CSV files -----------------------------------------------------------------

def jct_path(out: StrPath) -> str:
    """The sidecar of the CSV `out`: <stem>-jct<ext>."""
    stem, ext = os.path.splitext(str(out))
    return stem + "-jct" + (ext or ".csv")


def _key(row: Mapping[str, str]) -> Cell:
    """The cell of a CSV row, in canonical form (seed int, load scale float)."""
    return Cell(row["policy"], int(row["seed"]), row["cluster"], row["network"], row["trace"],
                float(row["load_scale"]))


def _read_rows(path: StrPath, columns: tuple[str, ...]) -> list[dict[str, Any]]:
    """Rows of a CSV written by this module; malformed rows (a cut-off last
    line) are dropped. A missing file is empty."""
    rows: list[dict[str, Any]] = []
    try:
        with open(path, newline="") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if header is None:
                return rows
            if tuple(header) != columns:
                raise GridError("%s: not a sweep CSV (header %s, want %s)"
                                % (path, ",".join(header), ",".join(columns)))
            for rec in reader:
                if len(rec) != len(columns):
                    continue
                row: dict[str, Any] = dict(zip(columns, rec))
                try:
                    row["_key"] = _key(row)
                    row["_value"] = float(rec[-1])
                except ValueError:
                    continue
                rows.append(row)
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError) as e:
        raise GridError("%s: cannot read it: %s" % (path, getattr(e, "strerror", None) or e)) \
            from None
    return rows


def read_results(path: StrPath) -> Results:
    """Complete cells of a sweep CSV: {Cell: {metric: value}}."""
    names = metric_names()
    by_cell: dict[Cell, dict[str, float]] = collections.defaultdict(dict)
    for row in _read_rows(path, COLUMNS):
        by_cell[row["_key"]][row["metric"]] = row["_value"]
    return {k: v for k, v in by_cell.items() if all(n in v for n in names)}


def read_jct_quantiles(path: StrPath) -> dict[Cell, list[float]]:
    """{Cell: [jct at QUANTILES...]} of a sidecar file."""
    by_cell: dict[Cell, dict[float, float]] = collections.defaultdict(dict)
    for row in _read_rows(path, JCT_COLUMNS):
        by_cell[row["_key"]][float(row["quantile"])] = row["_value"]
    return {k: [v[q] for q in sorted(v)] for k, v in by_cell.items()
            if len(v) == len(QUANTILES)}


def _fmt(v: object) -> str:
    return repr(float(v)) if isinstance(v, float) else str(v)


class _Writer:
    """Appends whole cells to the CSV and its sidecar, flushing each cell."""

    def __init__(self, out: StrPath, results: Mapping[Cell, Mapping[str, float]],
                 jcts: Mapping[Cell, Sequence[float]]) -> None:
        self.paths = (str(out), jct_path(out))
        # Rewrite the files with complete cells only (drops a cut-off cell).
        files: tuple[tuple[str, tuple[str, ...], Iterator[list[str]]], ...] = (
            (self.paths[0], COLUMNS, _metric_rows(results)),
            (self.paths[1], JCT_COLUMNS, _jct_rows(jcts)))
        for path, cols, rows in files:
            tmp = path + ".tmp"
            with open(tmp, "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(cols)
                w.writerows(rows)
            os.replace(tmp, path)
        self.files = [open(p, "a", newline="") for p in self.paths]
        self.writers = [csv.writer(f) for f in self.files]

    def add(self, cell: Cell, metrics: Iterable[tuple[str, float]],
            quantiles: Sequence[float]) -> None:
        # Sidecar first: a cell complete in the main CSV has its quantiles.
        self.writers[1].writerows(_jct_rows({cell: quantiles}))
        self.files[1].flush()
        self.writers[0].writerows(_metric_rows({cell: dict(metrics)}))
        self.files[0].flush()
        os.fsync(self.files[0].fileno())

    def close(self) -> None:
        for f in self.files:
            f.close()


def _metric_rows(results: Mapping[Cell, Mapping[str, float]]) -> Iterator[list[str]]:
    for cell, metrics in results.items():
        for name, value in metrics.items():
            yield [_fmt(x) for x in cell] + [name, _fmt(value)]


def _jct_rows(jcts: Mapping[Cell, Sequence[float]]) -> Iterator[list[str]]:
    for cell, qs in jcts.items():
        for q, v in zip(QUANTILES, qs):
            yield [_fmt(x) for x in cell] + [_fmt(q), _fmt(v)]


# ---- progress --------------------------------------------------------------------

class Progress:
    """cells done / total with an ETA, on one line of a terminal (else a line
    per ~10 %)."""

    def __init__(self, total: int, done: int, stream: TextIO | None = None,
                 enabled: bool = True) -> None:
        self.total, self.done, self.start_done = total, done, done
        self.stream, self.enabled = stream or sys.stderr, enabled
        self.t0 = time.monotonic()
        self.tty = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
        self.last_tenth = -1

    def line(self) -> str:
        """The progress line: a bar, cells done / total and the ETA."""
        width = 30
        filled = int(width * self.done / self.total) if self.total else width
        ran, elapsed = self.done - self.start_done, time.monotonic() - self.t0
        if ran and self.done < self.total:
            eta = "ETA %s" % _duration(elapsed / ran * (self.total - self.done))
        elif self.done >= self.total:
            eta = "done in %s" % _duration(elapsed)
        else:
            eta = "ETA --"
        return "[%s%s] %d/%d cells  %s" % ("#" * filled, "." * (width - filled), self.done,
                                           self.total, eta)

    def step(self, n: int = 1) -> None:
        """n more cells are done: redraws the line (a terminal) or prints
        one per ~10 %."""
        self.done += n
        if not self.enabled:
            return
        if self.tty:
            end = "\n" if self.done >= self.total else ""
            self.stream.write("\r" + self.line() + end)
        else:
            tenth = 10 * self.done // self.total if self.total else 10
            if tenth == self.last_tenth and self.done < self.total:
                return
            self.last_tenth = tenth
            self.stream.write(self.line() + "\n")
        self.stream.flush()


def _duration(s: float) -> str:
    s = int(round(s))
    return "%dh%02dm%02ds" % (s // 3600, s // 60 % 60, s % 60) if s >= 3600 else \
        "%dm%02ds" % (s // 60, s % 60) if s >= 60 else "%ds" % s


# ---- running -----------------------------------------------------------------------

class SweepError(RuntimeError):
    """Some cells failed; `failures` maps each Cell to its error text."""

    def __init__(self, failures: dict[Cell, str]) -> None:
        self.failures = failures
        first = next(iter(failures.items()))
        super().__init__("%d cell(s) failed, e.g. %s: %s" % (len(failures), _cell_text(first[0]),
                                                             first[1]))


def _cell_text(cell: Cell) -> str:
    return " ".join("%s=%s" % (k, _fmt(v)) for k, v in cell._asdict().items())


def _local_cluster(workers: int, retries: int) -> Any:  # a distributed.LocalCluster
    import dask
    from distributed import LocalCluster
    # Workers load the same package and library as this process.
    pkg_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {"PYTHONPATH": os.pathsep.join(
        [pkg_root] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])}
    from . import library_path
    if os.path.sep in str(library_path):
        env["NETSCHED_LIBRARY"] = os.path.abspath(library_path)
    with dask.config.set({"distributed.scheduler.allowed-failures": retries}), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # tornado's, under Python 3.11
        # extensions={}: the cells need no shuffle or pub-sub, and Debian's
        # 2022.12 shuffle extension fails an assertion when a worker that
        # replaced a dead one is closed.
        return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                            dashboard_address=":0", env=env, silence_logs=40, extensions={})


def _import_distributed() -> None:
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise GridError("Dask distributed is not installed (Debian: apt-get install "
                        "python3-distributed); --workers 0 runs the cells in this process")


def run(grid: Grid | None = None, out: StrPath | None = None, workers: int | None = None,
        scheduler: str | None = None, client: Any = None, retries: int = 3,
        progress: bool = True, cells: Sequence[int] | None = None,
        on_cell: Callable[[Cell, dict[str, float]], object] | None = None,
        merge: Iterable[StrPath] = (), cell_fn: Callable[[Task], CellResult] | None = None,
        **axes: Any) -> Results:
    """Runs every cell of `grid` (a Grid, or the Grid keywords in **axes) not
    already complete in the CSV `out`, and returns {Cell: {metric: value}} of
    the whole grid. workers: local Dask worker processes (default: the
    number of CPUs; 0: in this process, no Dask); scheduler: address of an existing Dask scheduler;
    client: an existing distributed.Client (wins over both). cells: indices
    of the grid's cells to run (default all). merge: other sweep CSVs whose
    cells are copied into `out` first. on_cell(cell, metrics) is called in
    this process as each cell ends. cell_fn replaces run_cell (same
    argument and result; e.g. to wrap it with instrumentation); it must be
    importable by the workers. Raises GridError before anything runs,
    SweepError after the other cells finished when some failed."""
    if grid is None:
        grid = Grid(**axes)
    elif axes:
        raise TypeError("sweep.run: pass either grid or grid keywords")
    if out is None:
        raise GridError("--out: a CSV path is required")
    if workers is None:
        workers = os.cpu_count() or 2
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 0:
        raise GridError("--workers: bad value %r (want an integer >= 0)" % (workers,))
    if not isinstance(retries, int) or isinstance(retries, bool) or retries < 0:
        raise GridError("--retries: bad value %r (want an integer >= 0)" % (retries,))
    all_cells = grid.cells()
    if cells is not None:
        for i in cells:
            if not isinstance(i, int) or not 0 <= i < len(all_cells):
                raise GridError("--cell: %r is not a cell index (the grid has %d cells, 0..%d)"
                                % (i, len(all_cells), len(all_cells) - 1))
    wanted = [all_cells[i] for i in cells] if cells is not None else all_cells
    use_dask = client is not None or scheduler is not None or workers > 0
    if use_dask and client is None:
        _import_distributed()
    out_dir = os.path.dirname(os.path.abspath(str(out)))
    if not os.path.isdir(out_dir):
        raise GridError("--out: directory %r does not exist" % out_dir)
    if os.path.isdir(str(out)):
        raise GridError("--out: %r is a directory (want a CSV file)" % str(out))

    results, jcts = read_results(out), read_jct_quantiles(jct_path(out))
    for other in merge:
        if not os.path.exists(other):
            raise GridError("--merge: no such file %r" % other)
        results.update(read_results(other))
        jcts.update(read_jct_quantiles(jct_path(other)))
    jcts = {k: v for k, v in jcts.items() if k in results}
    todo = [c for c in wanted if c not in results]
    try:
        writer = _Writer(out, results, jcts)
    except OSError as e:
        raise GridError("--out: cannot write %r: %s" % (str(out), e.strerror or e)) from None
    bar = Progress(len(wanted), len(wanted) - len(todo), enabled=progress)
    failures: dict[Cell, str] = {}
    fn = cell_fn or run_cell

    def done(cell_tuple: Sequence[Any], metrics: Iterable[tuple[str, float]],
             qs: Sequence[float]) -> None:
        cell = Cell(*cell_tuple)
        writer.add(cell, metrics, qs)
        results[cell] = dict(metrics)
        bar.step()
        if on_cell is not None:
            on_cell(cell, dict(metrics))

    def failed(cell: Cell, text: str) -> None:
        failures[cell] = text
        bar.step()

    try:
        if not todo:
            pass
        elif not use_dask:
            for cell in todo:
                try:
                    done(*fn(grid.task(cell)))
                except (NetschedError, OSError) as e:
                    failed(cell, "%s: %s" % (type(e).__name__, e))
        else:
            _run_dask(grid, todo, client, scheduler, workers, retries, done, failed, fn)
    finally:
        writer.close()
    if failures:
        raise SweepError(failures)
    return {c: results[c] for c in all_cells if c in results}


def _run_dask(grid: Grid, todo: Sequence[Cell], client: Any, scheduler: str | None, workers: int,
              retries: int, done: Callable[..., None], failed: Callable[[Cell, str], None],
              cell_fn: Callable[[Task], CellResult]) -> None:
    from distributed import Client, as_completed
    own_cluster = own_client = None
    try:
        if client is None:
            if scheduler is not None:
                own_client = client = Client(scheduler)
            else:
                own_cluster = _local_cluster(workers, retries)
                own_client = client = Client(own_cluster)
        futures = {client.submit(cell_fn, grid.task(c), pure=False): c for c in todo}
        for fut in as_completed(futures):
            cell = futures[fut]
            try:
                result = fut.result()
            except Exception as e:  # a failed simulation or KilledWorker: report the cell
                failed(cell, "%s: %s" % (type(e).__name__, e))
                continue
            done(*result)
    finally:
        if own_client is not None:
            own_client.close()
        if own_cluster is not None:
            own_cluster.close()


# ---- summary ---------------------------------------------------------------------

class Stat(NamedTuple):
    """A metric across seeds: mean, half-width of its 95 % confidence
    interval (NaN for one seed) and the number of seeds."""
    mean: float
    ci: float
    n: int


def ci95(values: Sequence[float]) -> Stat:
    """Mean and half-width of the 95 % confidence interval (Student's t with
    n - 1 degrees of freedom); half-width NaN for one value."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return Stat(mean, math.nan, n)
    try:
        from scipy.stats import t
    except ImportError:
        raise GridError("the 95 % confidence interval needs scipy (Debian: apt-get install "
                        "python3-scipy; python3-distributed brings it)") from None
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    return Stat(mean, float(t.ppf(0.975, n - 1)) * sd / math.sqrt(n), n)


def summarize(results: Mapping[Cell, Mapping[str, float]]
              ) -> dict[Scenario, dict[str, dict[str, Stat]]]:
    """{scenario: {metric: {policy: Stat}}} where scenario = (cluster,
    network, trace, load_scale), across seeds."""
    groups: dict[tuple[Scenario, str, str], list[float]] = collections.defaultdict(list)
    for cell, metrics in results.items():
        scen = (cell.cluster, cell.network, cell.trace, cell.load_scale)
        for name, value in metrics.items():
            groups[(scen, name, cell.policy)].append(value)
    out: dict[Scenario, dict[str, dict[str, Stat]]] = collections.defaultdict(
        lambda: collections.defaultdict(dict))
    for (scen, name, policy), values in groups.items():
        out[scen][name][policy] = ci95(values)
    return out


def best_policies(stats: Mapping[str, Stat], metric: str) -> set[str]:
    """Policies with the best mean of `metric` (ties within 1e-9 relative);
    empty for metrics that do not rank policies."""
    if metric in NOT_RANKED or metric not in set(metric_names()) or not stats:
        return set()
    pick = max if metric in HIGHER_IS_BETTER else min
    best = pick(s.mean for s in stats.values())
    tol = 1e-9 * max(1.0, abs(best))
    return {p for p, s in stats.items() if abs(s.mean - best) <= tol}


def format_summary(results: Mapping[Cell, Mapping[str, float]],
                   metrics: Sequence[str] | None = None,
                   policy_order: Sequence[str] | None = None) -> str:
    """The printed summary: per scenario, per metric, each policy's mean and
    95 % CI across seeds, '*' on the best."""
    lines = []
    summary = summarize(results)
    names = metrics or metric_names()
    for scen in sorted(summary, key=lambda s: (s[0], s[1], s[2], s[3])):
        by_metric = summary[scen]
        n = max(st.n for m in by_metric.values() for st in m.values())
        lines.append("cluster %s, network %s, trace %s, load scale %s (%d seed%s)"
                     % (scen[0], scen[1], scen[2], _fmt(scen[3]), n, "" if n == 1 else "s"))
        lines.append("  %-18s %-14s %16s %14s" % ("metric", "policy", "mean", "95% CI +-"))
        for name in names:
            stats = by_metric.get(name, {})
            best = best_policies(stats, name)
            order = [p for p in (policy_order or sorted(stats)) if p in stats]
            for k, p in enumerate(order):
                st = stats[p]
                ci = "n/a" if math.isnan(st.ci) else "%.6g" % st.ci
                lines.append("  %-18s %-14s %16.6g %14s%s" % (name if k == 0 else "", p, st.mean,
                                                              ci, "  *" if p in best else ""))
        lines.append("")
    lines.append("* best policy per metric (lowest; highest for %s; %s not ranked)"
                 % (", ".join(sorted(HIGHER_IS_BETTER)), ", ".join(sorted(NOT_RANKED))))
    return "\n".join(lines)


# ---- plots -----------------------------------------------------------------------

def check_plot_path(path: StrPath) -> None:
    """GridError unless `path` can take a plot: a .png/.svg/.pdf in an
    existing directory, with matplotlib installed."""
    ext = os.path.splitext(str(path))[1].lower().lstrip(".")
    if ext not in PLOT_FORMATS:
        raise GridError("--plot: %r: unknown format %r (use .png, .svg or .pdf)" % (path, ext))
    d = os.path.dirname(os.path.abspath(str(path)))
    if not os.path.isdir(d):
        raise GridError("--plot: directory %r does not exist" % d)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise GridError("--plot needs matplotlib (Debian: apt-get install python3-matplotlib)")


def cdf_plot_path(path: StrPath) -> str:
    """Where plot() writes the CDFs: <stem>-cdf<ext>."""
    stem, ext = os.path.splitext(str(path))
    return stem + "-cdf" + ext


def plot(results: Mapping[Cell, Mapping[str, float]], jcts: Mapping[Cell, Sequence[float]],
         path: StrPath, policy_order: Sequence[str] | None = None) -> tuple[StrPath, str]:
    """Writes `path` (mean JCT per policy with 95 % CI error bars, grouped by
    cluster shape; one panel per network x trace x load scale) and
    <stem>-cdf<ext> (JCT CDF per policy, one panel per scenario); the format
    follows the extension. Returns both paths."""
    check_plot_path(path)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    summary = summarize(results)
    policies_ = [p for p in (policy_order or sorted({c.policy for c in results}))]
    panels = sorted({s[1:] for s in summary})
    clusters = sorted({s[0] for s in summary})
    fig, axes = plt.subplots(1, len(panels), figsize=(max(6, 1.2 * len(clusters) * len(policies_)
                                                          * len(panels) / 2 + 2), 4.5),
                             squeeze=False)
    width = 0.8 / max(1, len(policies_))
    for ax, panel in zip(axes[0], panels):
        for k, p in enumerate(policies_):
            xs, ys, es = [], [], []
            for i, cl in enumerate(clusters):
                st = summary.get((cl,) + panel, {}).get("avg_jct_ms", {}).get(p)
                if st is not None:
                    xs.append(i + (k - (len(policies_) - 1) / 2) * width)
                    ys.append(st.mean / 1000.0)
                    es.append(0.0 if math.isnan(st.ci) else st.ci / 1000.0)
            ax.bar(xs, ys, width, yerr=es, capsize=3, label=p)
        ax.set_xticks(range(len(clusters)))
        ax.set_xticklabels(clusters)
        ax.set_xlabel("cluster (leaves x servers x GPUs x spines)")
        ax.set_ylabel("mean JCT (s), 95 % CI across seeds")
        ax.set_title("network %s, trace %s, load x%s" % (panel[0], os.path.basename(panel[1]),
                                                         _fmt(panel[2])), fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)

    scenarios = sorted(summary)
    cols = min(3, len(scenarios))
    rows = math.ceil(len(scenarios) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.8 * rows), squeeze=False)
    styles = ["-", "--", "-.", ":"]
    for ax, scen in zip(axes.flat, scenarios):
        for k, p in enumerate(policies_):
            qs = [jcts[c] for c in jcts if c.policy == p and (c.cluster, c.network, c.trace,
                                                               c.load_scale) == scen and jcts[c]]
            if not qs:
                continue
            xs = [sum(q[i] for q in qs) / len(qs) / 1000.0 for i in range(len(QUANTILES))]
            ax.plot([max(x, 1e-3) for x in xs], QUANTILES, styles[k // 10 % len(styles)],
                    label=p)
        ax.set_xscale("log")
        ax.set_xlabel("JCT (s)")
        ax.set_ylabel("CDF")
        ax.set_title("%s, %s, %s, load x%s" % (scen[0], scen[1], os.path.basename(scen[2]),
                                               _fmt(scen[3])), fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
    for ax in list(axes.flat)[len(scenarios):]:
        ax.set_visible(False)
    fig.tight_layout()
    cdf = cdf_plot_path(path)
    fig.savefig(cdf)
    plt.close(fig)
    return path, cdf


# ---- command line ------------------------------------------------------------------

def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python3 -m netsched.sweep",
        description="Run a policy x seed x cluster x network x trace x load-scale grid of "
                    "simulations on Dask distributed and summarise it.",
        epilog="Grid file keys: policies, seeds, clusters, networks, traces, load_scales, "
               "format (JSON or TOML). Load scale x divides inter-arrival times by x.")
    p.add_argument("--grid", metavar="FILE", help="axes from a JSON or TOML file")
    p.add_argument("--policies", metavar="A,B", help="presets (see --list-policies)")
    p.add_argument("--seeds", metavar="N,M", help="seeds (default 1)")
    p.add_argument("--clusters", metavar="LxSxG[xP],...",
                   help="leaves x servers per leaf x GPUs per server [x spines] (default: the "
                        "library's cluster)")
    p.add_argument("--networks", metavar="A,B", help="network models (default: the library's)")
    p.add_argument("--trace", metavar="FILE[,FILE]", help="trace files (default: the embedded "
                   "workload)")
    p.add_argument("--format", choices=sorted(FORMATS), help="trace format (default tiresias)")
    p.add_argument("--load-scale", metavar="X,Y", help="offered-load multipliers (default 1)")
    p.add_argument("--out", metavar="CSV", help="results (resumed when it exists)")
    p.add_argument("--plot", metavar="FILE", help="mean JCT plot (.png/.svg/.pdf); the CDFs go to "
                   "FILE-cdf with the same extension")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 2,
                   help="local Dask worker processes (default: the number of CPUs, %(default)s "
                        "here; 0: run in this process)")
    p.add_argument("--scheduler", metavar="ADDR", help="existing Dask scheduler, e.g. "
                   "tcp://host:8786 (workers need netsched importable)")
    p.add_argument("--retries", type=int, default=3, help="reschedules of a cell whose worker "
                   "died (default 3)")
    p.add_argument("--cell", type=int, action="append", metavar="I",
                   help="run only cell I (0-based, repeatable; e.g. $SLURM_ARRAY_TASK_ID)")
    p.add_argument("--count", action="store_true", help="print the number of cells and exit")
    p.add_argument("--list-cells", action="store_true", help="print the cells and exit")
    p.add_argument("--list-policies", action="store_true", help="print the presets and exit")
    p.add_argument("--merge", nargs="+", default=(), metavar="CSV",
                   help="copy the complete cells of these sweep CSVs into --out first")
    p.add_argument("--summary-metrics", metavar="A,B", help="metrics to print (default all)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--quiet", action="store_true", help="no summary")
    return p


def grid_from_args(args: argparse.Namespace) -> Grid:
    """The Grid of the command line: --grid's axes, each replaced by its flag."""
    axes = read_grid_file(args.grid) if args.grid else {}
    where = {k: "%s: %s" % (args.grid, k) for k in axes}
    flags = {"policies": args.policies, "seeds": args.seeds, "clusters": args.clusters,
             "networks": args.networks, "traces": args.trace, "load_scales": args.load_scale,
             "format": args.format}
    flag_names = {"policies": "--policies", "seeds": "--seeds", "clusters": "--clusters",
                  "networks": "--networks", "traces": "--trace", "load_scales": "--load-scale",
                  "format": "--format"}
    for k, v in flags.items():
        if v is not None:
            axes[k] = v
            where[k] = flag_names[k]
    return Grid(where=where, **axes)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (python3 -m netsched.sweep); returns the exit status."""

    args = _parser().parse_args(argv)
    try:
        if args.list_policies:
            for name, desc in sim.policies().items():
                print("%-14s %s" % (name, desc))
            return 0
        grid = grid_from_args(args)
        if args.count:
            print(len(grid.cells()))
            return 0
        if args.list_cells:
            for i, c in enumerate(grid.cells()):
                print(i, _cell_text(c))
            return 0
        if args.plot:
            check_plot_path(args.plot)
        shown = None
        if args.summary_metrics:
            shown = _items(args.summary_metrics, "--summary-metrics")
            for m in shown:
                if m not in metric_names():
                    raise GridError("--summary-metrics: unknown metric %r (known: %s)"
                                    % (m, ", ".join(metric_names())))
        workers = 0 if args.cell and args.scheduler is None else args.workers
        failed = None
        try:
            results = run(grid, out=args.out, workers=workers, scheduler=args.scheduler,
                          retries=args.retries, progress=not args.no_progress, cells=args.cell,
                          merge=args.merge)
        except SweepError as e:
            failed = e
            results = {c: m for c, m in read_results(args.out).items()}
    except GridError as e:
        print("netsched.sweep: %s" % e, file=sys.stderr)
        return 2
    if args.cell:
        results = {c: m for c, m in results.items() if c in {grid.cells()[i] for i in args.cell}}
    if not args.quiet and results:
        print(format_summary(results, shown, grid.policies))
    if args.plot and results:
        try:
            paths = plot(results, read_jct_quantiles(jct_path(args.out)), args.plot,
                         grid.policies)
            print("plots: %s, %s" % paths)
        except OSError as e:
            print("netsched.sweep: --plot: cannot write %r: %s" % (args.plot, e.strerror or e),
                  file=sys.stderr)
            return 1
    if failed is not None:
        for cell, err in failed.failures.items():
            print("netsched.sweep: failed: %s: %s" % (_cell_text(cell), err), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    # Run through the package module so Dask pickles netsched.sweep.run_cell,
    # which workers can import, not __main__.run_cell.
    from netsched.sweep import main as _main
    sys.exit(_main())
