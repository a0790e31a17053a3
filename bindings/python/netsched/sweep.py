"""Policy sweeps: every cell of a policy x seed x cluster x network x trace x
load-scale grid is one independent simulation (netsched.sim), run on Dask
distributed -- local worker processes by default, or an existing scheduler.

    python3 -m netsched.sweep --policies ff,lwf-1,dally --trace data/sample-trace.csv \\
        --models data/sample-models.csv --load-scale 0.02,0.1,1 --out results.csv --plot jct.png

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
  format       trace format of the path-only traces: auto (the default: from
               the header, as netsched-sim), tiresias or philly
  models       a model-profile CSV loaded into every cell's simulator (as
               netsched-sim --models), for a trace's model_name values

Output: a tidy CSV, one row per (cell, metric) -- columns
policy,seed,cluster,network,trace,load_scale,metric,value, metric names as
ns_sim_metric_name -- plus <out>.jct (not a *.csv, so a glob of sweep CSVs
does not take it) with 201 quantiles (0, 0.005, ..., 1; order statistics)
of each cell's finished-job JCTs for the CDF plot. Rows of a cell are
appended and flushed together as the cell ends; a run given an existing CSV
keeps its complete cells and runs only the others (resume). A cell is
complete when every metric is there once (a row repeated with the same
value counts once) and finite; a cell cut off mid-write (a last line
without its end is never a row), holding NaN/inf or a row repeated with
another value runs again (said on stderr), and the files are rewritten
without it. Quantiles that are missing only leave the cell out of the CDF
plot (said on stderr). With nothing to run and nothing to drop, nothing is
written (a finished sweep can be summarised from a read-only directory).
Resuming keeps one entry per cell in memory (its metrics), never the
quantile rows; lines longer than 65,536 characters are refused. A grid of
more than --max-cells cells (default 100,000) is refused before anything runs.

Choices where the issues left room: the 95 % confidence interval is
Student's t (n - 1 degrees of freedom, scipy) across seeds of the mean;
"best" is the lowest mean, except gpu_util and jobs_done (highest), and is
marked only when its 95 % interval overlaps no other policy's (so never
with one seed, nor on a tie); metrics that the policy does not decide
(skipped, gpu_ms_allocated) and metrics this module does not know are not
marked. The summary prints times in seconds (iteration times in ms) and
ratios in % with netsched-sim's precision (0.1). The CDF of a policy averages each
quantile across seeds (Vincent averaging). A task whose worker dies is
rescheduled by Dask up to --retries times (the scheduler's
allowed-failures; for --scheduler, the scheduler's own setting applies); a
simulation that fails is reported, not retried, and the sweep exits
non-zero after finishing the other cells. Messages name what the caller
wrote: the flag on the command line ("--policies"), the method and
parameter from Python ("sweep.run: policies").
"""

from __future__ import annotations

import argparse
import collections
import csv
import ctypes
import difflib
import itertools
import json
import math
import os
import sys
import textwrap
import time
import warnings
from typing import (Any, BinaryIO, Callable, Dict, Iterable, Iterator, List, Mapping, NamedTuple,
                    Optional, Sequence, TextIO, Tuple, TypedDict, TypeVar, Union, overload)

from . import sim
from ._clib import lib
from .errors import NetschedError, check

COLUMNS: tuple[str, ...] = ("policy", "seed", "cluster", "network", "trace", "load_scale",
                            "metric", "value")
JCT_COLUMNS: tuple[str, ...] = COLUMNS[:6] + ("quantile", "jct_ms")
QUANTILES: tuple[float, ...] = tuple(i / 200 for i in range(201))
DEFAULT = "default"
FORMATS = {"auto": sim.TraceFormat.AUTO, "tiresias": sim.TraceFormat.TIRESIAS,
           "philly": sim.TraceFormat.PHILLY}
PLOT_FORMATS = ("png", "svg", "pdf")
HIGHER_IS_BETTER = {"gpu_util", "jobs_done"}
NOT_RANKED = {"skipped", "gpu_ms_allocated"}
#: Shown x 100 with a % sign in the summary (netsched-sim's util%, comm%, frag%).
PERCENT = {"gpu_util", "comm_overhead", "fragmentation"}
#: Times netsched-sim prints in ms, not s (iteration times).
KEEP_MS = {"avg_iter_ms", "p99_iter_ms"}
#: Whole numbers per run (netsched-sim prints them without decimals).
COUNTS = {"links_shared", "jobs_done", "unfinished", "skipped", "preemptions"}
SPINES, LINKS_PER_PAIR, LINK_GBPS = 8, 2, 10.0  # netsched-sim's defaults
#: Default of --max-cells / max_cells: the most cells one run takes on.
MAX_CELLS = 100_000
#: Longest line (characters) read back from a sweep CSV; a longer one is refused.
MAX_LINE = 65536
#: Largest --grid file read.
MAX_GRID_BYTES = 1 << 20

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

#: The command line's name of every parameter (messages name what the user wrote).
FLAGS: dict[str, str] = {
    "policies": "--policies", "seeds": "--seeds", "clusters": "--clusters",
    "networks": "--networks", "traces": "--trace", "load_scales": "--load-scale",
    "format": "--format", "models": "--models", "out": "--out", "workers": "--workers",
    "retries": "--retries", "cells": "--cell", "merge": "--merge", "max_cells": "--max-cells",
    "scheduler": "--scheduler",
    "path": "--plot", "metrics": "--summary-metrics"}


def _names(where: Mapping[str, str] | None, method: str) -> dict[str, str]:
    """Message prefixes: `where` (the CLI's flags, a grid file's keys), else
    "<method>: <parameter>" for a Python caller."""
    names = {k: "%s: %s" % (method, k) for k in FLAGS}
    names.update(where or {})
    return names


def _did_you_mean(value: object, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(str(value).strip().lower(), list(known), 1)
    return "; did you mean '%s'?" % close[0] if close else ""


def _missing_module(what: str, module: str, package: str) -> str:
    """The hint for an optional module this interpreter cannot import: names
    the interpreter and the Debian package."""
    return ("%s needs %s, which this Python (%s) cannot import (Debian: apt-get install %s, "
            "for /usr/bin/python3; or run the sweep with the interpreter that has it)"
            % (what, module, sys.executable, package))


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
    models: Optional[str]


#: What run_cell returns: (the cell as a tuple, [(metric, value)...], the
#: finished jobs' JCT at QUANTILES).
CellResult = Tuple[CellTuple, List[Tuple[str, float]], List[float]]

#: {Cell: {metric: value}}, as run() and read_results() give it.
Results = Dict[Cell, Dict[str, float]]


class GridError(ValueError):
    """A grid that cannot run, or sweep files that cannot be read; the
    message names the option or parameter and the value."""


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


_METRIC_NAMES: list[str] = []


def metric_names() -> list[str]:
    """ns_sim_metric_name of every metric id, in id order."""
    if not _METRIC_NAMES:
        names: list[str] = []
        while len(names) <= 255:
            name = sim.metric_name(len(names))
            if not name:
                break
            names.append(name)
        _METRIC_NAMES.extend(names)
    return list(_METRIC_NAMES)


class Display(NamedTuple):
    """How the summary shows a metric: its label, the factor from the CSV's
    unit and the decimals (netsched-sim's precision)."""
    label: str
    scale: float
    digits: int


def display(metric: str) -> Display:
    """Seconds for the *_ms metrics (ms for iteration times), % for the
    ratios, as netsched-sim prints them (0.1 s, 0.1 ms, 0.1 %, whole
    counts); other metrics with 1 decimal."""
    if metric in KEEP_MS:
        return Display(metric, 1.0, 1)
    if metric.endswith("_ms"):
        return Display(metric[:-3] + "_s", 1e-3, 1)
    if "_ms_" in metric:
        return Display(metric.replace("_ms_", "_s_"), 1e-3, 1)
    if metric in PERCENT:
        return Display(metric + "%", 100.0, 1)
    if metric in COUNTS:
        return Display(metric, 1.0, 0)
    return Display(metric, 1.0, 1)


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
        except (NetschedError, TypeError) as e:
            raise GridError("%s: bad shape %r: %s" % (where, spec, _lib_text(e))) from None
    return shape


def cluster_name(shape: ClusterShape | None) -> str:
    """The name of a cluster shape in the CSV: LxSxGxP, or "default"."""
    if shape is None:
        return DEFAULT
    leaves, spines, servers, gpus = shape[:4]
    return "%dx%dx%dx%d" % (leaves, servers, gpus, spines)


def _lib_text(e: BaseException, path: str | None = None, models: str = FLAGS["models"]) -> str:
    """An error's text without the bindings' own "sim.X.method: " prefix and
    "path 'P' " (the caller's message names both in the user's terms)."""
    if isinstance(e, OSError) and e.strerror:
        return e.strerror
    text = str(e)
    head, sep, rest = text.partition(": ")
    if sep and head.startswith("sim."):
        text = rest
    if path is not None:
        for p in ("path %r " % path, "%s " % path):
            if text.startswith(p):
                text = text[len(p):]
    if "has no profile" in text:
        lib_hint = "ns_sim_add_model_profile / netsched-sim --models"
        if lib_hint in text:  # the library names its C call and the CLI's option
            text = text.replace(lib_hint, models)
        else:
            text += "; give its profile with %s" % models
    return text


class Grid:
    """A validated grid. Build with Grid(policies=..., seeds=..., ...) (any
    axis may be a list or a comma-separated string); bad values raise
    GridError before anything runs, naming `where`'s name of the axis (by
    default "sweep.Grid: <parameter>"). The cells are not built: cells()
    is a lazy sequence, cell(i) and index(cell) are arithmetic."""

    def __init__(self, policies: Axis[str] | None = None, seeds: Axis[int | str] | int = (1,),
                 clusters: Axis[str] = (DEFAULT,), networks: Axis[str | int] = (DEFAULT,),
                 traces: Axis[str | Mapping[str, str]] = (DEFAULT,),
                 load_scales: Axis[float | str] | float = (1.0,), format: str = "auto",
                 where: Mapping[str, str] | None = None, models: StrPath | None = None) -> None:
        w = _names(where, "sweep.Grid")
        if policies is None:
            raise GridError("%s: no policies given" % w["policies"])
        known = sim.policies()
        self.policies: list[str] = _items(policies, w["policies"])
        for p in self.policies:
            if p not in known:
                raise GridError("%s: unknown policy %r%s (known: %s)" % (
                    w["policies"], p, _did_you_mean(p, known), ", ".join(known)))
        _unique(self.policies, self.policies, w["policies"])

        raw = _items(seeds, w["seeds"])
        self.seeds: list[int] = []
        for s in raw:
            try:
                v = int(s) if not isinstance(s, (float, bool)) else None
            except ValueError:
                v = None
            if v is None or not 0 <= v < 2 ** 64:
                raise GridError("%s: bad seed %r (want an integer in [0, 2^64))"
                                % (w["seeds"], s))
            self.seeds.append(v)
        _unique(self.seeds, raw, w["seeds"])

        raw = _items(clusters, w["clusters"])
        shapes = [parse_cluster(c, w["clusters"]) for c in raw]
        self.clusters: list[str] = [cluster_name(s) for s in shapes]
        self.shapes = dict(zip(self.clusters, shapes))
        _unique(self.clusters, raw, w["clusters"])

        raw = _items(networks, w["networks"])
        nets = network_models()
        by_id = {v: k for k, v in nets.items()}
        self.networks: list[str] = []
        for n in raw:
            name = str(n).strip().lower()
            if name.isdigit() and int(name) in by_id:
                name = by_id[int(name)]
            if name != DEFAULT and name not in nets:
                raise GridError("%s: unknown network model %r%s (known: default, %s)"
                                % (w["networks"], n, _did_you_mean(n, [DEFAULT, *nets]),
                                   ", ".join(nets)))
            self.networks.append(name)
        self.network_ids = {n: nets.get(n) for n in self.networks}
        _unique(self.networks, raw, w["networks"])

        self.models: str | None = None
        if models_path := (None if models is None else os.fspath(models)):
            self.models = os.path.abspath(models_path)
            with sim.Simulator() as s:
                try:
                    s.load_models(models_path)
                except (NetschedError, OSError, ValueError) as e:
                    raise GridError("%s: cannot load model profiles %r: %s"
                                    % (w["models"], models_path, _lib_text(e, models_path))) \
                        from None

        _format(format, w["format"])
        self.traces: list[str] = []
        self.trace_specs: dict[str, tuple[str | None, str]] = {}
        for t in _items(traces, w["traces"]):
            path, fmt = t, format
            if isinstance(t, dict):
                extra = set(t) - {"path", "format"}
                if "path" not in t or extra:
                    raise GridError("%s: a trace is {\"path\": ..., \"format\": ...} (got %r)"
                                    % (w["traces"], t))
                path, fmt = t["path"], t.get("format", format)
                _format(fmt, "%s: format of %r" % (w["traces"], path))
            path = str(path)
            if path != DEFAULT:
                _check_trace(path, fmt, w["traces"], self.models, w["models"])
            self.traces.append(path)
            self.trace_specs[path] = (os.path.abspath(path) if path != DEFAULT else None, fmt)
        _unique(self.traces, self.traces, w["traces"])

        raw = _items(load_scales, w["load_scales"])
        self.load_scales: list[float] = []
        for x in raw:
            try:
                scale = float(x) if not isinstance(x, bool) else math.nan
            except (TypeError, ValueError):
                scale = math.nan
            if not (math.isfinite(scale) and scale > 0):
                raise GridError("%s: bad load scale %r (want a finite number > 0)"
                                % (w["load_scales"], x))
            self.load_scales.append(scale)
        _unique(self.load_scales, raw, w["load_scales"])

        axes: list[list[Any]] = [self.policies, self.seeds, self.clusters, self.networks,
                                 self.traces, self.load_scales]
        self._axes = tuple(axes)
        self._pos: list[dict[Any, int]] = [dict(zip(a, range(len(a)))) for a in axes]

    @property
    def size(self) -> int:
        """The number of cells (the product of the axes' lengths; nothing is built)."""
        return math.prod(len(a) for a in self._axes)

    def shape_text(self) -> str:
        """"policies 2 x seeds 3 x ...": the axes' lengths."""
        names = ("policies", "seeds", "clusters", "networks", "traces", "load scales")
        return " x ".join("%s %d" % (n, len(a)) for n, a in zip(names, self._axes))

    def cells(self) -> Cells:
        """Every cell, in a fixed order (the order of --cell indices), as a
        lazy sequence (len, [i], iteration, `in`)."""
        return Cells(self)

    def cell(self, index: int) -> Cell:
        """Cell number `index` (0-based, the order of cells())."""
        if not 0 <= index < self.size:
            raise IndexError("cell index %d out of range (the grid has %d cells)"
                             % (index, self.size))
        picked = []
        for axis in reversed(self._axes):
            index, k = divmod(index, len(axis))
            picked.append(axis[k])
        return Cell(*reversed(picked))

    def index(self, cell: Cell) -> int | None:
        """The index of `cell` in cells(), or None if it is not in the grid."""
        i = 0
        for pos, axis, value in zip(self._pos, self._axes, cell):
            k = pos.get(value)
            if k is None:
                return None
            i = i * len(axis) + k
        return i

    def __contains__(self, cell: object) -> bool:
        return isinstance(cell, tuple) and len(cell) == 6 and self.index(Cell(*cell)) is not None

    def task(self, cell: Cell) -> Task:
        """What a worker needs to run `cell` (plain data, picklable)."""
        path, fmt = self.trace_specs[cell.trace]
        return {"cell": _plain(cell), "shape": self.shapes[cell.cluster],
                "network": self.network_ids[cell.network], "trace_path": path,
                "trace_format": int(FORMATS[fmt]), "models": self.models}


class Cells(Sequence[Cell]):
    """The cells of a Grid, computed on demand (a 10^8-cell grid costs
    nothing until iterated)."""

    def __init__(self, grid: Grid) -> None:
        self.grid = grid

    def __len__(self) -> int:
        return self.grid.size

    @overload
    def __getitem__(self, i: int) -> Cell: ...
    @overload
    def __getitem__(self, i: slice) -> list[Cell]: ...

    def __getitem__(self, i: int | slice) -> Cell | list[Cell]:
        if isinstance(i, slice):
            return [self.grid.cell(k) for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        return self.grid.cell(i)

    def __iter__(self) -> Iterator[Cell]:
        for c in itertools.product(*self.grid._axes):
            yield Cell(*c)

    def __contains__(self, cell: object) -> bool:
        return cell in self.grid

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    def __repr__(self) -> str:
        return "<%d cells: %s>" % (len(self), self.grid.shape_text())


def _format(fmt: object, where: str) -> None:
    if fmt not in FORMATS:
        raise GridError("%s: unknown trace format %r%s (known: %s)"
                        % (where, fmt, _did_you_mean(fmt, FORMATS), ", ".join(FORMATS)))


def _check_trace(path: str, fmt: str, where: str, models: str | None,
                 models_name: str = FLAGS["models"]) -> None:
    """The trace loads (same parser as the workers), before any cell runs."""
    with sim.Simulator() as s:
        try:
            if models is not None:
                s.load_models(models)
            s.load_trace(path, FORMATS[fmt])
        except (NetschedError, OSError) as e:
            raise GridError("%s: cannot load %strace %r: %s"
                            % (where, "" if fmt == "auto" else fmt + " ", path,
                               _lib_text(e, path, models_name))) from None


_GRID_KEYS = {"policies", "seeds", "clusters", "networks", "traces", "load_scales", "format",
              "models"}


def read_grid_file(path: StrPath) -> dict[str, Any]:
    """The axes of a JSON (.json) or TOML (.toml) grid file, as a dict
    (UTF-8, a BOM allowed; at most MAX_GRID_BYTES, so /dev/zero or a wrong
    file is refused at once rather than read without end)."""
    toml = str(path).endswith(".toml")
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_GRID_BYTES + 1)
        if len(raw) > MAX_GRID_BYTES:
            raise GridError("--grid: %r is larger than %d bytes: not a grid file"
                            % (path, MAX_GRID_BYTES))
        text = raw.decode("utf-8-sig")
        if toml:
            import tomllib
            data = tomllib.loads(text)
        else:
            data = json.loads(text)
    except OSError as e:
        raise GridError("--grid: cannot read %r: %s" % (path, e.strerror)) from None
    except UnicodeDecodeError:
        raise GridError("--grid: %r is not UTF-8 text" % path) from None
    except ValueError as e:  # json.JSONDecodeError and tomllib.TOMLDecodeError
        raise GridError("--grid: %r is not valid %s: %s"
                        % (path, "TOML" if toml else "JSON", e)) from None
    if not isinstance(data, dict):
        raise GridError("--grid: %r must hold an object of axes" % path)
    unknown = sorted(set(data) - _GRID_KEYS)
    if unknown:
        raise GridError("--grid: %r: unknown key %r%s (known: %s)"
                        % (path, unknown[0], _did_you_mean(unknown[0], _GRID_KEYS),
                           ", ".join(sorted(_GRID_KEYS))))
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
            if task.get("models") is not None:
                s.load_models(str(task["models"]))
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

def _legacy_jct_path(out: StrPath) -> str:
    stem, ext = os.path.splitext(str(out))
    return stem + "-jct" + (ext or ".csv")


def jct_path(out: StrPath) -> str:
    """The JCT-quantile file of the sweep CSV `out`: <out>.jct (so a glob
    like parts/*.csv takes only the sweep CSVs). A sweep written before it
    had this name keeps its <stem>-jct<ext> file, which is read and
    appended to as before."""
    new = str(out) + ".jct"
    old = _legacy_jct_path(out)
    if not os.path.exists(new) and os.path.isfile(old) and _header(old) == JCT_COLUMNS:
        return old
    return new


def _header(path: StrPath) -> tuple[str, ...] | None:
    """The first CSV row of `path` (None if it has none or cannot be read)."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            line = f.readline(MAX_LINE)
        rec = next(csv.reader([line]), None)
    except (OSError, UnicodeDecodeError, csv.Error):
        return None
    if not rec:
        return None
    rec[0] = rec[0].lstrip("\ufeff")
    return tuple(rec)


def _lines(f: BinaryIO, path: str, where: str, cut: list[int]) -> Iterator[str]:
    """The complete lines of `f`, decoded, each read with a bound: a line
    of more than MAX_LINE bytes is refused (an endless line costs no more
    than MAX_LINE of memory), as is one that is not UTF-8; a last line
    without its end was cut off mid-write (its number goes to `cut`) and is
    not a row (its last field may be a number cut short)."""
    n = 0
    while True:
        line = f.readline(MAX_LINE + 1)
        if not line:
            return
        n += 1
        if len(line) > MAX_LINE:
            raise GridError("%s: %r line %d is longer than %d characters: not a sweep CSV"
                            % (where, path, n, MAX_LINE))
        if not line.endswith(b"\n"):
            cut.append(n)
            return
        try:
            yield line.decode("utf-8")
        except UnicodeDecodeError:
            raise GridError("%s: %r line %d: not UTF-8 text: not a sweep CSV"
                            % (where, path, n)) from None


def _records(path: StrPath, columns: tuple[str, ...], where: str,
             cut: list[int] | None = None) -> Iterator[tuple[int, list[str]]]:
    """(line number, fields) of the rows of a sweep CSV with len(columns)
    fields, streamed; other rows are skipped, and a cut-off last line (or
    header) is noted in `cut`. A missing or empty file has none; another
    header, an overlong line or field, or bytes that are not UTF-8 raise
    GridError naming the file and line."""
    p = str(path)
    cut = [] if cut is None else cut
    try:
        f = open(p, "rb")
    except FileNotFoundError:
        return
    except OSError as e:
        raise GridError("%s: cannot read %r: %s" % (where, p, e.strerror or e)) from None
    with f:
        reader = csv.reader(_lines(f, p, where, cut))
        try:
            header = next(reader, None)
            if header is None:
                return
            if header:
                header[0] = header[0].lstrip("\ufeff")  # a BOM a spreadsheet added
            if tuple(header) != columns:
                raise GridError("%s: %r is not a sweep %s (header %s; want %s)"
                                % (where, p, "JCT-quantile file" if columns == JCT_COLUMNS
                                   else "CSV", ",".join(header)[:200], ",".join(columns)))
            for rec in reader:
                if len(rec) == len(columns):
                    yield reader.line_num, rec
        except csv.Error as e:
            text = str(e)
            if "field limit" in text:
                text = "a field longer than %d characters: not a sweep CSV" \
                    % csv.field_size_limit()
            raise GridError("%s: %r line %d: %s" % (where, p, reader.line_num + 1, text)) \
                from None
        except OSError as e:
            raise GridError("%s: cannot read %r: %s" % (where, p, e.strerror or e)) from None


def _float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


class _Keys:
    """Canonical Cells of the CSV's key fields, parsed once per run of rows
    with the same key (a cell's rows are written together): the last key
    is remembered, nothing more."""

    def __init__(self) -> None:
        self.raw: list[str] = []
        self.cell: Cell | None = None

    def __call__(self, rec: list[str]) -> Cell | None:
        raw = rec[:6]
        if raw == self.raw:
            return self.cell
        try:
            self.cell = Cell(raw[0], int(raw[1]), raw[2], raw[3], raw[4], float(raw[5]))
        except ValueError:
            self.cell = None
        self.raw = raw
        return self.cell


class _Table(NamedTuple):
    """What one sweep CSV and its quantile file hold."""
    results: Results  # complete cells, in file order
    clean: bool       # the files hold these cells and nothing else (no rewrite needed)
    jct: str          # the quantile file read
    with_q: set[Cell]  # the cells whose quantiles it holds (complete, once each)


def _read_table(path: StrPath, where: str, notes: list[str]) -> _Table:
    """The complete cells of a sweep CSV, and which of them have their
    quantiles in its quantile file, streamed: a cell counts when each
    metric is there (a repeat with the same value counts once) and finite.
    Cells that hold NaN/inf or a metric repeated with another value are
    left out, with a note; quantiles of a cell that are repeated, not
    finite or incomplete are dropped, with a note. `clean`: the files hold
    exactly this (nothing to drop). Memory: one entry per cell, never the
    quantile rows."""
    names = metric_names()
    canonical = {n: n for n in names}  # every cell's dict shares these key strings
    key = _Keys()
    cells: dict[Cell, dict[str, float]] = {}
    bad: dict[Cell, str] = {}
    clean = True
    p = str(path)
    cut: list[int] = []
    for line, rec in _records(p, COLUMNS, where, cut):
        cell = key(rec)
        value = _float(rec[7])
        name = canonical.get(rec[6])
        if cell is None or name is None or value is None:
            clean = False
            continue
        if cell in bad:
            continue
        if not math.isfinite(value):
            bad[cell] = "line %d: %s is %s" % (line, name, rec[7])
            continue
        m = cells.setdefault(cell, {})
        old = m.get(name)
        if old is not None:
            clean = False
            if old != value:
                bad[cell] = "line %d: %s is %s, an earlier row says %r" % (line, name, rec[7],
                                                                           old)
            continue
        m[name] = value
    complete = {c: m for c, m in cells.items() if c not in bad and len(m) == len(names)}
    clean = clean and not cut and not bad and len(complete) == len(cells)

    jct = jct_path(p)
    masks: dict[Cell, int] = {}
    qbad: set[Cell] = set()
    index = {_fmt(q): i for i, q in enumerate(QUANTILES)}
    isfinite = math.isfinite
    for line, rec in _records(jct, JCT_COLUMNS, where, cut):
        cell = key(rec)
        i = index.get(rec[6])
        if i is None:
            i = _quantile_index(rec[6])
        try:
            qv = float(rec[7])
        except ValueError:
            cell = None
        if cell is None or i is None or cell not in complete:
            clean = False
            continue
        if cell in qbad:
            continue
        mask = masks.get(cell, 0)
        if not isfinite(qv) or mask >> i & 1:
            qbad.add(cell)
            notes.append("%s: %r line %d: %s of cell %s: its quantiles are dropped (the CDF "
                         "plot leaves the cell out)"
                         % (where, jct, line, "the JCT at quantile %s is %s" % (rec[6], rec[7])
                            if not isfinite(qv) else "quantile %s given twice" % rec[6],
                            _cell_text(cell)))
            continue
        masks[cell] = mask | 1 << i
    clean = clean and not cut
    full = (1 << len(QUANTILES)) - 1
    with_q: set[Cell] = set()
    missing = 0
    for cell, m in complete.items():
        mask = masks.get(cell, 0)
        if mask == full and cell not in qbad:
            with_q.add(cell)
        elif mask or cell in qbad:
            clean = False  # rows to drop
        elif m["jobs_done"] > 0:
            missing += 1
    if missing:
        notes.append("%s: %r has no JCT quantiles of %d complete cell%s of %r: the CDF plot "
                     "leaves %s out" % (where, jct, missing, "" if missing == 1 else "s", p,
                                        "it" if missing == 1 else "them"))
    for cell, why in bad.items():
        notes.append("%s: %r %s: cell %s: it runs again" % (where, p, why, _cell_text(cell)))
    return _Table(complete, clean, jct, with_q)


def read_results(path: StrPath) -> Results:
    """Complete cells of a sweep CSV: {Cell: {metric: value}} (as a resume
    counts them; see the module comment)."""
    return _read_table(path, "sweep.read_results: path", []).results


def _quantile_index(text: str) -> int | None:
    """The position in QUANTILES of a quantile written otherwise than
    repr() writes it ("0.50"), or None if it is not one of them."""
    q = _float(text)
    if q is not None and math.isfinite(q) and abs(q * 200 - round(q * 200)) < 1e-9 \
            and 0 <= round(q * 200) <= 200:
        return round(q * 200)
    return None


def _iter_quantiles(path: StrPath, where: str, only: Mapping[Cell, object] | None = None
                    ) -> Iterator[tuple[Cell, list[float]]]:
    """(cell, [jct at QUANTILES...]) of each complete cell of a quantile
    file, streamed (a cell's rows are written together, so only the cell
    being read is held)."""
    key = _Keys()
    partial: dict[Cell, list[float | None]] = {}
    left: dict[Cell, int] = {}
    index = {_fmt(q): i for i, q in enumerate(QUANTILES)}
    for _line, rec in _records(path, JCT_COLUMNS, where):
        cell = key(rec)
        value = _float(rec[7])
        i = index.get(rec[6])
        if i is None:
            i = _quantile_index(rec[6])
        if cell is None or value is None or i is None or (only is not None and cell not in only):
            continue
        qs = partial.get(cell)
        if qs is None:
            qs = partial[cell] = [None] * len(QUANTILES)
            left[cell] = len(QUANTILES)
        if qs[i] is None:
            left[cell] -= 1
            qs[i] = value
        if left[cell] == 0:
            del partial[cell], left[cell]
            yield cell, [float(v) for v in qs if v is not None]


def read_jct_quantiles(path: StrPath) -> dict[Cell, list[float]]:
    """{Cell: [jct at QUANTILES...]} of a quantile file (jct_path(out))."""
    return dict(_iter_quantiles(path, "sweep.read_jct_quantiles: path"))


def _fmt(v: object) -> str:
    return repr(float(v)) if isinstance(v, float) else str(v)


def _metric_rows(results: Mapping[Cell, Mapping[str, float]]) -> Iterator[list[str]]:
    for cell, metrics in results.items():
        for name, value in metrics.items():
            yield [_fmt(x) for x in cell] + [name, _fmt(value)]


def _jct_rows(jcts: Mapping[Cell, Sequence[float]]) -> Iterator[list[str]]:
    for cell, qs in jcts.items():
        for q, v in zip(QUANTILES, qs):
            yield [_fmt(x) for x in cell] + [_fmt(q), _fmt(v)]


def _replace(path: str, columns: tuple[str, ...], rows: Iterable[list[str]]) -> None:
    """Writes `path` anew through a temporary file renamed over it."""
    tmp = path + ".tmp"
    try:
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(columns)
            w.writerows(rows)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _copy_quantiles(sources: Sequence[str], origin: Mapping[Cell, int], where: str
                    ) -> Iterator[list[str]]:
    """The quantile rows of each cell from the file it was taken from
    (sources[origin[cell]]), streamed."""
    for k, src in enumerate(sources):
        key = _Keys()
        for _line, rec in _records(src, JCT_COLUMNS, where):
            cell = key(rec)
            if cell is not None and origin.get(cell) == k:
                yield rec


def _ends_with_newline(path: str) -> bool:
    with open(path, "rb") as f:
        f.seek(-1, os.SEEK_END)
        return f.read(1) == b"\n"


class _Writer:
    """Appends whole cells to the CSV and its quantile file, flushing each
    cell (open() them first; a sweep with nothing to run opens nothing)."""

    def __init__(self, out: str, jct: str) -> None:
        self.paths = (out, jct)
        self.files: list[TextIO] = []
        self.writers: list[Any] = []

    def open(self) -> None:
        """Opens both files for appending (a new or empty one gets its header)."""
        for path, cols in zip(self.paths, (COLUMNS, JCT_COLUMNS)):
            f = open(path, "a", newline="", encoding="utf-8")
            self.files.append(f)
            self.writers.append(csv.writer(f))
            if f.tell() == 0:
                self.writers[-1].writerow(cols)
            elif not _ends_with_newline(path):
                f.write("\r\n")  # never glue a row onto a cut-off line

    def add(self, cell: Cell, metrics: Iterable[tuple[str, float]],
            quantiles: Sequence[float]) -> None:
        # Quantiles first: a cell complete in the main CSV has its quantiles.
        self.writers[1].writerows(_jct_rows({cell: quantiles}))
        self.files[1].flush()
        self.writers[0].writerows(_metric_rows({cell: dict(metrics)}))
        self.files[0].flush()
        os.fsync(self.files[0].fileno())

    def close(self) -> None:
        for f in self.files:
            f.close()


# ---- progress --------------------------------------------------------------------

class Progress:
    """cells done / total with an ETA, on one line of a terminal (else a line
    per ~10 %); nothing at all when not enabled."""

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
    """Some cells failed; `failures` maps each Cell to its error text,
    `results` holds the cells that are complete (as run() returns them)."""

    def __init__(self, failures: dict[Cell, str], results: Results | None = None) -> None:
        self.failures = failures
        self.results: Results = results or {}
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


def _import_distributed(where: str) -> None:
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise GridError(_missing_module(where, "Dask distributed", "python3-distributed")
                        + "; --workers 0 runs the cells in this process") from None


def _count(value: object, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise GridError("%s: bad value %r (want an integer >= 0)" % (where, value))
    return value


def _check_metrics(metrics: Sequence[tuple[str, float]], qs: Sequence[float]) -> str | None:
    """Why a worker's result cannot be written (None: it can)."""
    names = [n for n, _ in metrics]
    if names != metric_names():
        return "the worker's metrics %s are not this library's %s" % (names, metric_names())
    for name, v in metrics:
        if not math.isfinite(v):
            return "metric %s is %r" % (name, v)
    if len(qs) not in (0, len(QUANTILES)) or not all(math.isfinite(q) for q in qs):
        return "bad JCT quantiles"
    return None


def run(grid: Grid | None = None, out: StrPath | None = None, workers: int | None = None,
        scheduler: str | None = None, client: Any = None, retries: int = 3,
        progress: bool = True, cells: Sequence[int] | None = None,
        on_cell: Callable[[Cell, dict[str, float]], object] | None = None,
        merge: Iterable[StrPath] = (), cell_fn: Callable[[Task], CellResult] | None = None,
        max_cells: int = MAX_CELLS, where: Mapping[str, str] | None = None,
        **axes: Any) -> Results:
    """Runs every cell of `grid` (a Grid, or the Grid keywords in **axes) not
    already complete in the CSV `out`, and returns {Cell: {metric: value}} of
    the grid's complete cells. workers: local Dask worker processes (default: the
    number of CPUs; 0: in this process, no Dask); scheduler: address of an existing Dask scheduler;
    client: an existing distributed.Client (wins over both). cells: indices
    of the grid's cells to run (default all). merge: other sweep CSVs whose
    cells are copied into `out` first (their JCT-quantile files are skipped
    if given). max_cells: the most cells to run (the grid, or `cells`),
    refused before anything runs. on_cell(cell, metrics) is called in
    this process as each cell ends. cell_fn replaces run_cell (same
    argument and result; e.g. to wrap it with instrumentation); it must be
    importable by the workers. where: names of the parameters for messages
    (the command line passes its flags; default "sweep.run: <parameter>").
    Notes on cells that run again (NaN or conflicting rows in `out` or a
    merged CSV) go to stderr. Raises GridError before anything runs,
    SweepError after the other cells finished when some failed."""
    w = _names(where, "sweep.run")
    if grid is None:
        grid = Grid(where=w, **axes)
    elif axes:
        raise TypeError("sweep.run: pass either grid or grid keywords (got grid and %s)"
                        % ", ".join(sorted(axes)))
    if out is None:
        raise GridError("%s: a CSV path is required" % w["out"])
    if workers is None:
        workers = os.cpu_count() or 2
    _count(workers, w["workers"])
    _count(retries, w["retries"])
    _count(max_cells, w["max_cells"])
    size = grid.size
    wanted: Sequence[Cell]
    if cells is not None:
        picked: dict[int, None] = {}
        for i in cells:
            if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < size:
                raise GridError("%s: %r is not a cell index (the grid has %d cells, 0..%d)"
                                % (w["cells"], i, size, size - 1))
            picked[i] = None
            if len(picked) > max_cells:
                break  # refused below, without reading the rest
        wanted = [grid.cell(i) for i in picked]
    else:
        wanted = grid.cells()
    if len(wanted) > max_cells:
        raise GridError("%s: %s cells to run (%s), more than %s %d: run parts of the grid "
                        "(%s, e.g. as a Slurm job array) or raise %s"
                        % (w["cells"] if cells is not None else "the grid",
                           "over %d" % max_cells if cells is not None else len(wanted),
                           grid.shape_text(), w["max_cells"], max_cells, w["cells"],
                           w["max_cells"]))
    use_dask = client is not None or scheduler is not None or workers > 0
    if use_dask and client is None:
        _import_distributed(w["workers"] if scheduler is None else w["scheduler"])
    out = os.fspath(out)
    out_dir = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(out_dir):
        raise GridError("%s: directory %r does not exist" % (w["out"], out_dir))
    if os.path.isdir(out):
        raise GridError("%s: %r is a directory (want a CSV file)" % (w["out"], out))

    notes: list[str] = []
    own = _read_table(out, w["out"], notes)
    results = own.results
    sources = [own.jct]  # where each cell's quantiles come from (origin: index)
    origin: dict[Cell, int] = {c: 0 for c in own.with_q}
    clean = own.clean
    conflicted: set[Cell] = set()
    out_real = os.path.realpath(out)
    for other in merge:
        other = os.fspath(other)
        if not os.path.exists(other):
            raise GridError("%s: no such file %r" % (w["merge"], other))
        if os.path.realpath(other) == out_real:
            continue  # out itself (parts/*.csv with --out parts/all.csv)
        if _header(other) == JCT_COLUMNS:
            notes.append("%s: skipping %r: a JCT-quantile file (read with its sweep CSV)"
                         % (w["merge"], other))
            continue
        part = _read_table(other, w["merge"], notes)
        sources.append(part.jct)
        for cell, metrics in part.results.items():
            if cell in conflicted:
                continue
            if cell in results:
                if results[cell] != metrics:
                    diff = [n for n in metrics if results[cell].get(n) != metrics[n]]
                    notes.append("%s: %r and an earlier file disagree on cell %s (%s %r vs %r):"
                                 " it runs again" % (w["merge"], other, _cell_text(cell),
                                                     diff[0], metrics[diff[0]],
                                                     results[cell][diff[0]]))
                    del results[cell]
                    origin.pop(cell, None)
                    conflicted.add(cell)
                    clean = False
                continue
            results[cell] = metrics
            if cell in part.with_q:
                origin[cell] = len(sources) - 1
            clean = False
    for n in notes:
        print("netsched.sweep: %s" % n, file=sys.stderr)

    if not clean:  # drop what does not count, add the merged cells
        try:
            _replace(own.jct, JCT_COLUMNS, _copy_quantiles(sources, origin, w["merge"]))
            _replace(out, COLUMNS, _metric_rows(results))
        except OSError as e:
            raise GridError("%s: cannot write %r: %s" % (w["out"], out, e.strerror or e)) \
                from None
    todo = sum(1 for c in wanted if c not in results)
    writer = _Writer(out, own.jct)
    if todo:
        try:
            writer.open()
        except OSError as e:
            raise GridError("%s: cannot write %r: %s" % (w["out"], out, e.strerror or e)) \
                from None
    bar = Progress(len(wanted), len(wanted) - todo, enabled=progress)
    failures: dict[Cell, str] = {}
    fn = cell_fn or run_cell

    def done(cell_tuple: Sequence[Any], metrics: Sequence[tuple[str, float]],
             qs: Sequence[float]) -> None:
        cell = Cell(*cell_tuple)
        why = _check_metrics(metrics, qs)
        if why is not None:
            failed(cell, why)
            return
        try:
            writer.add(cell, metrics, qs)
        except OSError as e:
            raise GridError("%s: cannot write %r: %s" % (w["out"], out, e.strerror or e)) \
                from None
        results[cell] = dict(metrics)
        bar.step()
        if on_cell is not None:
            on_cell(cell, dict(metrics))

    def failed(cell: Cell, text: str) -> None:
        failures[cell] = text
        bar.step()

    pending = (c for c in wanted if c not in results)
    try:
        if not todo:
            pass
        elif not use_dask:
            for cell in pending:
                try:
                    done(*fn(grid.task(cell)))
                except (NetschedError, OSError) as e:
                    failed(cell, "%s: %s" % (type(e).__name__, e))
        else:
            _run_dask(grid, pending, client, scheduler, workers, retries, done, failed, fn)
    finally:
        writer.close()
    ordered: Results = {}
    if len(results) >= size:
        ordered = {c: results[c] for c in grid.cells() if c in results}
    else:
        g = grid
        for c in sorted((c for c in results if c in g), key=lambda c: g.index(c) or 0):
            ordered[c] = results[c]
    if failures:
        raise SweepError(failures, ordered)
    return ordered


def _run_dask(grid: Grid, todo: Iterable[Cell], client: Any, scheduler: str | None, workers: int,
              retries: int, done: Callable[..., None], failed: Callable[[Cell, str], None],
              cell_fn: Callable[[Task], CellResult]) -> None:
    """Runs the cells on Dask, a bounded number of tasks in flight at a time
    (twice the workers' threads, at least 8): a huge grid is never
    submitted, nor its tasks built, at once."""
    from distributed import Client, as_completed
    own_cluster = own_client = None
    try:
        if client is None:
            if scheduler is not None:
                own_client = client = Client(scheduler)
            else:
                own_cluster = _local_cluster(workers, retries)
                own_client = client = Client(own_cluster)
        try:
            threads = sum(client.nthreads().values())
        except Exception:  # an older or stub client: the local workers' count
            threads = workers
        limit = max(8, 2 * threads)
        cells = iter(todo)
        futures: dict[Any, Cell] = {}
        queue = as_completed()

        def submit() -> None:
            cell = next(cells, None)
            if cell is not None:
                fut = client.submit(cell_fn, grid.task(cell), pure=False)
                futures[fut] = cell
                queue.add(fut)
        for _ in range(limit):
            submit()
        for fut in queue:
            cell = futures.pop(fut)
            try:
                result = fut.result()
            except Exception as e:  # a failed simulation or KilledWorker: report the cell
                failed(cell, "%s: %s" % (type(e).__name__, e))
            else:
                done(*result)
            submit()
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
        raise GridError(_missing_module("the 95 % confidence interval", "scipy",
                                        "python3-scipy")) from None
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
    """{the policy with the best mean of `metric`} if its 95 % interval
    overlaps no other policy's interval (closed intervals, touching counts
    as overlapping; 1e-9 relative slack for rounding), else empty: empty
    with fewer than two policies, with one seed (no intervals), on a tie,
    and for metrics that do not rank policies."""
    if metric in NOT_RANKED or metric not in metric_names() or len(stats) < 2:
        return set()
    if any(math.isnan(s.ci) for s in stats.values()):
        return set()
    sign = -1.0 if metric in HIGHER_IS_BETTER else 1.0
    order = sorted(stats, key=lambda p: sign * stats[p].mean)
    best = stats[order[0]]
    for p in order[1:]:
        other = stats[p]
        slack = 1e-9 * max(1.0, abs(best.mean), abs(other.mean))
        if best.mean - best.ci <= other.mean + other.ci + slack and \
                other.mean - other.ci <= best.mean + best.ci + slack:
            return set()
    return {order[0]}


def _num(value: float, digits: int) -> str:
    if digits == 0 and abs(value - round(value)) > 1e-9:
        digits = 1  # a mean of counts across seeds
    return "%.*f" % (digits, value)


def format_summary(results: Mapping[Cell, Mapping[str, float]],
                   metrics: Sequence[str] | None = None,
                   policy_order: Sequence[str] | None = None) -> str:
    """The printed summary: per scenario, per metric, each policy's mean and
    95 % CI across seeds in netsched-sim's units and precision (s, %, 0.1),
    '*' on a best policy whose interval overlaps no other's."""
    lines = []
    summary = summarize(results)
    names = metrics or metric_names()
    for scen in sorted(summary, key=lambda s: (s[0], s[1], s[2], s[3])):
        by_metric = summary[scen]
        n = max(st.n for m in by_metric.values() for st in m.values())
        lines.append("cluster %s, network %s, trace %s, load scale %s (%d seed%s%s)"
                     % (scen[0], scen[1], scen[2], _fmt(scen[3]), n, "" if n == 1 else "s",
                        ": no 95 % intervals, nothing marked" if n == 1 else ""))
        lines.append("  %-22s %-14s %12s %11s" % ("metric", "policy", "mean", "95% CI +-"))
        for name in names:
            stats = by_metric.get(name, {})
            best = best_policies(stats, name)
            shown = display(name)
            order = [p for p in (policy_order or sorted(stats)) if p in stats]
            for k, p in enumerate(order):
                st = stats[p]
                ci = "n/a" if math.isnan(st.ci) else _num(st.ci * shown.scale,
                                                          max(1, shown.digits))
                lines.append("  %-22s %-14s %12s %11s%s"
                             % (shown.label if k == 0 else "", p,
                                _num(st.mean * shown.scale, shown.digits), ci,
                                "  *" if p in best else ""))
        lines.append("")
    lines.append("times in s (%s in ms) and %s in %% (the CSV keeps the library's ms and "
                 "fractions)" % (", ".join(sorted(KEEP_MS)), ", ".join(sorted(PERCENT))))
    lines.append("* best policy of a metric (lowest; highest for %s), marked only where its "
                 "95 %% interval overlaps no other policy's; %s not ranked"
                 % (", ".join(sorted(HIGHER_IS_BETTER)), ", ".join(sorted(NOT_RANKED))))
    return "\n".join(lines)


def summary_metric(name: str, where: str = "sweep.format_summary: metrics") -> str:
    """The library's metric name of `name`, given as the library or the
    summary names it (avg_jct_ms or avg_jct_s, gpu_util or gpu_util%)."""
    known = metric_names()
    if name in known:
        return name
    for m in known:
        if display(m).label == name:
            return m
    raise GridError("%s: unknown metric %r%s (known: %s)" % (
        where, name, _did_you_mean(name, known + [display(m).label for m in known]),
        ", ".join(known)))


# ---- plots -----------------------------------------------------------------------

def check_plot_path(path: StrPath, where: str = "sweep.plot: path") -> None:
    """GridError unless `path` can take a plot: a .png/.svg/.pdf in an
    existing directory, with matplotlib installed."""
    ext = os.path.splitext(str(path))[1].lower().lstrip(".")
    if ext not in PLOT_FORMATS:
        raise GridError("%s: %r: unknown format %r (use .png, .svg or .pdf)" % (where, path, ext))
    d = os.path.dirname(os.path.abspath(str(path)))
    if not os.path.isdir(d):
        raise GridError("%s: directory %r does not exist" % (where, d))
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise GridError(_missing_module(where, "matplotlib", "python3-matplotlib")) from None


def cdf_plot_path(path: StrPath) -> str:
    """Where plot() writes the CDFs: <stem>-cdf<ext>."""
    stem, ext = os.path.splitext(str(path))
    return stem + "-cdf" + ext


def cdf_curves(jcts: Mapping[Cell, Sequence[float]] | Iterable[tuple[Cell, Sequence[float]]]
               ) -> dict[tuple[str, Scenario], list[float]]:
    """{(policy, scenario): the JCT at QUANTILES averaged across seeds}
    (Vincent averaging), from {Cell: quantiles} or (cell, quantiles) pairs
    (streamed: one sum per policy and scenario is kept)."""
    pairs = jcts.items() if isinstance(jcts, Mapping) else jcts
    sums: dict[tuple[str, Scenario], list[float]] = {}
    counts: dict[tuple[str, Scenario], int] = collections.Counter()
    for cell, qs in pairs:
        if len(qs) != len(QUANTILES):
            continue
        k = (cell.policy, (cell.cluster, cell.network, cell.trace, cell.load_scale))
        acc = sums.setdefault(k, [0.0] * len(QUANTILES))
        for i, v in enumerate(qs):
            acc[i] += v
        counts[k] += 1
    return {k: [v / counts[k] for v in acc] for k, acc in sums.items()}


def _wrap(text: str, inches: float, fontsize: float) -> str:
    """`text` in lines that fit `inches` at `fontsize` (an average glyph is
    about 0.6 em wide; paths are broken anywhere)."""
    width = max(12, int(inches * 72 / (0.62 * fontsize)))
    return "\n".join(textwrap.wrap(text, width, break_long_words=True, break_on_hyphens=False))


PANEL_INCHES = 4.2


def _bar_figure(results: Mapping[Cell, Mapping[str, float]], policy_order: Sequence[str]
                ) -> Any:
    import matplotlib.pyplot as plt
    summary = summarize(results)
    panels = sorted({s[1:] for s in summary})
    clusters = sorted({s[0] for s in summary})
    cols = min(3, len(panels))
    rows = math.ceil(len(panels) / cols)
    inches = max(PANEL_INCHES, 0.45 * len(clusters) * len(policy_order) + 1.5)
    fig, axes = plt.subplots(rows, cols, figsize=(inches * cols, 4.2 * rows), squeeze=False)
    width = 0.8 / max(1, len(policy_order))
    for ax, panel in zip(axes.flat, panels):
        for k, p in enumerate(policy_order):
            xs, ys, lo, hi = [], [], [], []
            for i, cl in enumerate(clusters):
                st = summary.get((cl,) + panel, {}).get("avg_jct_ms", {}).get(p)
                if st is not None:
                    ci = 0.0 if math.isnan(st.ci) else st.ci / 1000.0
                    mean = st.mean / 1000.0
                    xs.append(i + (k - (len(policy_order) - 1) / 2) * width)
                    ys.append(mean)
                    lo.append(min(ci, max(mean, 0.0)))  # the bar stops at 0
                    hi.append(ci)
            ax.bar(xs, ys, width, yerr=[lo, hi], capsize=3, label=p)
        ax.set_xticks(range(len(clusters)))
        ax.set_xticklabels(clusters)
        ax.set_ylim(bottom=0)
        ax.set_xlabel("cluster (leaves x servers x GPUs x spines)", fontsize=8)
        ax.set_ylabel("mean JCT (s)", fontsize=8)
        ax.set_title(_wrap("network %s, load x%s, trace %s"
                           % (panel[0], _fmt(panel[2]), os.path.basename(panel[1])),
                           inches - 0.8, 9), fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    axes[0][0].legend(fontsize=8, title="error bars: 95 % CI\nacross seeds, cut at 0",
                      title_fontsize=7)
    fig.tight_layout()
    return fig


def _cdf_figure(curves: Mapping[tuple[str, Scenario], Sequence[float]],
                policy_order: Sequence[str]) -> Any:
    import matplotlib.pyplot as plt
    scenarios = sorted({s for _, s in curves})
    cols = min(3, max(1, len(scenarios)))
    rows = max(1, math.ceil(len(scenarios) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.9 * rows), squeeze=False)
    styles = ["-", "--", "-.", ":"]
    for ax, scen in zip(axes.flat, scenarios):
        for k, p in enumerate(policy_order):
            qs = curves.get((p, scen))
            if not qs:
                continue
            ax.plot([max(x / 1000.0, 1e-3) for x in qs], QUANTILES,
                    styles[k // 10 % len(styles)], label=p)
        ax.set_xscale("log")
        ax.set_xlabel("JCT (s)", fontsize=8)
        ax.set_ylabel("CDF", fontsize=8)
        ax.set_title(_wrap("cluster %s, network %s, load x%s, trace %s"
                           % (scen[0], scen[1], _fmt(scen[3]), os.path.basename(scen[2])),
                           4.2, 9), fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
    for ax in list(axes.flat)[len(scenarios):]:
        ax.set_visible(False)
    fig.tight_layout()
    return fig


def plot(results: Mapping[Cell, Mapping[str, float]],
         jcts: Mapping[Cell, Sequence[float]] | Iterable[tuple[Cell, Sequence[float]]],
         path: StrPath, policy_order: Sequence[str] | None = None,
         where: str = "sweep.plot: path") -> tuple[StrPath, str]:
    """Writes `path` (mean JCT per policy with 95 % CI error bars cut at 0,
    grouped by cluster shape; one panel per network x trace x load scale)
    and <stem>-cdf<ext> (JCT CDF per policy, one panel per scenario); the
    format follows the extension. jcts: {Cell: quantiles} or (cell,
    quantiles) pairs (read_jct_quantiles, or streamed). Returns both paths."""
    check_plot_path(path, where)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = list(policy_order or sorted({c.policy for c in results}))
    fig = _bar_figure(results, order)
    try:
        fig.savefig(path)
    finally:
        plt.close(fig)
    fig = _cdf_figure(cdf_curves(jcts), order)
    cdf = cdf_plot_path(path)
    try:
        fig.savefig(cdf)
    finally:
        plt.close(fig)
    return path, cdf


# ---- command line ------------------------------------------------------------------

def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python3 -m netsched.sweep",
        description="Run a policy x seed x cluster x network x trace x load-scale grid of "
                    "simulations on Dask distributed and summarise it.",
        epilog="Grid file keys: policies, seeds, clusters, networks, traces, load_scales, "
               "format, models (JSON or TOML). Load scale x divides inter-arrival times by x.")
    p.add_argument("--grid", metavar="FILE", help="axes from a JSON or TOML file")
    p.add_argument("--policies", metavar="A,B", help="presets (see --list-policies)")
    p.add_argument("--seeds", metavar="N,M", help="seeds (default 1)")
    p.add_argument("--clusters", metavar="LxSxG[xP],...",
                   help="leaves x servers per leaf x GPUs per server [x spines] (default: the "
                        "library's cluster)")
    p.add_argument("--networks", metavar="A,B", help="network models (default: the library's)")
    p.add_argument("--trace", metavar="FILE[,FILE]", help="trace files (default: the embedded "
                   "workload)")
    p.add_argument("--format", metavar="auto|tiresias|philly",
                   help="trace format (default auto: from the header, as netsched-sim)")
    p.add_argument("--models", metavar="FILE", help="model profiles for the traces' model_name "
                   "values (netsched-sim --models' CSV), loaded in every cell")
    p.add_argument("--load-scale", metavar="X,Y", help="offered-load multipliers (default 1)")
    p.add_argument("--out", metavar="CSV", help="results (resumed when it exists); JCT "
                   "quantiles go to CSV.jct")
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
    p.add_argument("--max-cells", type=int, default=MAX_CELLS, metavar="N",
                   help="refuse to run more than N cells at once (default %(default)s)")
    p.add_argument("--count", action="store_true", help="print the number of cells and exit")
    p.add_argument("--list-cells", action="store_true", help="print the cells and exit")
    p.add_argument("--list-policies", action="store_true", help="print the presets and exit")
    p.add_argument("--merge", nargs="+", default=(), metavar="CSV",
                   help="copy the complete cells of these sweep CSVs into --out first (their "
                        ".jct quantile files come along; given ones are skipped)")
    p.add_argument("--summary-metrics", metavar="A,B", help="metrics to print (default all)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--quiet", action="store_true", help="no progress, summary or plot paths: "
                   "only errors and warnings (on stderr)")
    return p


def grid_from_args(args: argparse.Namespace) -> Grid:
    """The Grid of the command line: --grid's axes, each replaced by its flag."""
    axes = read_grid_file(args.grid) if args.grid else {}
    where = dict(FLAGS)
    where.update({k: "%s: %s" % (args.grid, k) for k in axes})
    flags = {"policies": args.policies, "seeds": args.seeds, "clusters": args.clusters,
             "networks": args.networks, "traces": args.trace, "load_scales": args.load_scale,
             "format": args.format, "models": args.models}
    for k, v in flags.items():
        if v is not None:
            axes[k] = v
            where[k] = FLAGS[k]
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
            print(grid.size)
            return 0
        if args.list_cells:
            for i, c in enumerate(grid.cells()):
                print(i, _cell_text(c))
            return 0
        if args.plot:
            check_plot_path(args.plot, "--plot")
        shown = None
        if args.summary_metrics:
            shown = [summary_metric(m, "--summary-metrics")
                     for m in _items(args.summary_metrics, "--summary-metrics")]
        workers = 0 if args.cell and args.scheduler is None else args.workers
        failed = None
        try:
            results = run(grid, out=args.out, workers=workers, scheduler=args.scheduler,
                          retries=args.retries, progress=not (args.no_progress or args.quiet),
                          cells=args.cell, merge=args.merge, max_cells=args.max_cells,
                          where=FLAGS)
        except SweepError as e:
            failed = e
            results = e.results
    except GridError as e:
        print("netsched.sweep: %s" % e, file=sys.stderr)
        return 2
    if args.cell:
        picked = set(args.cell)
        results = {c: m for c, m in results.items() if grid.index(c) in picked}
    if not args.quiet and results:
        print(format_summary(results, shown, grid.policies))
    if args.plot and results:
        try:
            quantiles = _iter_quantiles(jct_path(args.out), "--out", results)
            paths = plot(results, quantiles, args.plot, grid.policies, "--plot")
            if not args.quiet:
                print("plots: %s, %s" % paths)
        except GridError as e:
            print("netsched.sweep: %s" % e, file=sys.stderr)
            return 2
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
