"""The trace-driven cluster simulator (sim.h): run any policy of the
library on the same workload and compare JCT, makespan, queueing,
utilisation, fragmentation and communication overhead.

    from netsched import sim
    with sim.Simulator(policy="lwf-1") as s:
        s.load_default_workload()
        s.run()
        print(s.metrics()["avg_jct_ms"])
"""

from __future__ import annotations

import ctypes
import difflib
import enum
import errno
import functools
import os
import threading
from ctypes import c_double, c_int
from typing import (Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple, TypeVar,
                    Union, cast)

from ._clib import SIM_PLACE_FN, SIM_PROGRESS_FN, Pointer, lib
from ._handle import (Handle, as_enum, as_flag, as_handle, as_int, as_real, as_str, as_u64,
                      view)
from .core import Cluster, Job, Placement
from .errors import (InvalidArgumentError, NetschedError, StateError, Status, check, error_for,
                     last_error)


class Order(enum.IntEnum):
    """ns_sim_order: which waiting job is offered resources first."""
    FIFO = 0
    SRSF = 1
    SJF = 2
    NW_SENS = 3
    TWO_D_LAS = 4
    TWO_D_GITTINS = 5


class PlacementRule(enum.IntEnum):
    """ns_sim_placement: the entry point the simulator calls to place a job."""
    FIRST_FIT = 0
    LIST_SCHEDULING = 1
    RANDOM = 2
    BEST_FIT = 3
    TIRESIAS = 4
    LWF = 5
    TITAN = 6
    VCLOS = 7
    OCS_VCLOS = 8
    DALLY = 9
    DALLY_MANUAL = 10
    CUSTOM = 11


class Admission(enum.IntEnum):
    """ns_sim_admission: communication admission."""
    ALL = 0
    SRSF = 1
    ADADUAL = 2


class Network(enum.IntEnum):
    """ns_sim_network: the network model."""
    MAXMIN = 0
    CONTENTION = 1
    PHASE = 2
    IDEAL = 3


class Policy(enum.IntEnum):
    """ns_sim_policy: the named presets (names: policy_name(id))."""
    FF = 0
    LS = 1
    RAND = 2
    BEST_FIT = 3
    TIRESIAS = 4
    LWF1 = 5
    SRSF_FF = 6
    SJF_FF = 7
    SRSF1 = 8
    SRSF2 = 9
    ADA_SRSF = 10
    TITAN = 11
    VCLOS = 12
    OCS_VCLOS = 13
    DALLY = 14
    DALLY_MANUAL = 15
    CASSINI_FF = 16
    CASSINI_LWF1 = 17
    FIFO = 18
    TWO_D_LAS = 19
    TWO_D_GITTINS = 20


class Model(enum.IntEnum):
    """ns_sim_model: embedded model profiles (AdaDUAL Table III)."""
    VGG16 = 0
    RESNET50 = 1
    INCEPTION_V3 = 2
    LSTM_PTB = 3


class TraceFormat(enum.IntEnum):
    """ns_sim_trace_format (AUTO: from the header)."""
    TIRESIAS = 0
    PHILLY = 1
    AUTO = 2


class Metric(enum.IntEnum):
    """ns_sim_metric_id (definitions: sim.h METRICS). AVG_QUEUE_MS /
    P95_QUEUE_MS: delay to the first start; AVG_WAIT_MS / P95_WAIT_MS: time
    in the wait queue, waits after preemptions included (Dally);
    MACHINES_AT_ARRIVAL: servers in use, mean over job arrivals (Titan),
    beside the time average MACHINES_USED; AVG_ITER_MS / P99_ITER_MS: over
    jobs, each job's run time (restore overhead and waits excluded) /
    iterations (CASSINI). Medians and percentiles are nearest rank (the
    ceil(p/100 x n)-th smallest value, never interpolated)."""
    AVG_JCT_MS = 0
    MEDIAN_JCT_MS = 1
    P95_JCT_MS = 2
    P99_JCT_MS = 3
    MAKESPAN_MS = 4
    AVG_QUEUE_MS = 5
    P95_QUEUE_MS = 6
    GPU_UTIL = 7
    COMM_OVERHEAD = 8
    FRAGMENTATION = 9
    LINKS_SHARED = 10
    JOBS_DONE = 11
    UNFINISHED = 12
    SKIPPED = 13
    GPU_MS_ALLOCATED = 14
    MACHINES_USED = 15
    PREEMPTIONS = 16
    AVG_WAIT_MS = 17
    P95_WAIT_MS = 18
    MACHINES_AT_ARRIVAL = 19
    AVG_ITER_MS = 20
    P99_ITER_MS = 21


class JobResult(NamedTuple):
    """One job of the last run: `name` is the trace's job_id (or the name
    given to add_job), `model` the trace's model_name as written (or the
    profile's name; "" for add_job); start/finish are NaN if it never
    started/finished; servers 0 if never placed."""
    name: str
    gpus: int
    arrival_ms: float
    start_ms: float
    finish_ms: float
    servers: int
    model: str = ""


PathLike = Union[str, "os.PathLike[str]"]


def _fspath(path: Any, where: str, arg: str) -> str:
    if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
        raise TypeError("%s: %s must be a str or os.PathLike (got %s)"
                        % (where, arg, type(path).__name__))
    return os.fspath(path)


def _readable(path: str) -> None:
    """Python's own OSError for a file that cannot be read."""
    if not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
    if os.path.isdir(path):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    if not os.access(path, os.R_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)


def _writable(path: str) -> None:
    """Python's own OSError for a file that cannot be written."""
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
    if os.path.isdir(path):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    if not os.access(parent, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)


def policy_count() -> int:
    """Number of policy presets (ids 0 .. policy_count() - 1)."""
    return int(lib.ns_sim_policy_count())


def policy_name(policy: int) -> str:
    """Preset name ("" if out of range), e.g. "lwf-1"."""
    return str(lib.ns_sim_policy_name(as_int(policy, "sim.policy_name", "policy")).decode())


def policy_description(policy: int) -> str:
    """One-line description of preset `policy` ("" if out of range)."""
    return str(lib.ns_sim_policy_description(as_int(policy, "sim.policy_description",
                                                    "policy")).decode())


def policies() -> Dict[str, str]:
    """{preset name: description} of every policy preset, in id order."""
    return {policy_name(i): policy_description(i) for i in range(policy_count())
            if policy_name(i)}


class ModelProfile(NamedTuple):
    """An embedded model profile (AdaDUAL Table III), as sim.model_profile gives it."""
    name: str
    model_bytes: int
    fwd_ms: float
    bwd_ms: float
    mem_mb: float


def model_count() -> int:
    """Number of embedded model profiles (Model values 0 .. model_count() - 1)."""
    return int(lib.ns_sim_model_count())


def model_profile(model: Union[Model, str, int]) -> ModelProfile:
    """The embedded profile of `model` (Model, its name or its value)."""
    w = "sim.model_profile"
    name = ctypes.c_char_p()
    nbytes = ctypes.c_uint64()
    fwd, bwd, mem = c_double(), c_double(), c_double()
    check(lib.ns_sim_model_profile(as_enum(model, Model, w, "model"), ctypes.byref(name),
                                   ctypes.byref(nbytes), ctypes.byref(fwd), ctypes.byref(bwd),
                                   ctypes.byref(mem)), w)
    return ModelProfile((name.value or b"").decode(), nbytes.value, fwd.value, bwd.value,
                        mem.value)


def metric_name(metric: Union[int, str, "Metric"]) -> str:
    """The metric's short name as metrics() keys it, e.g. "avg_jct_ms"."""
    return str(lib.ns_sim_metric_name(as_enum(metric, Metric, "sim.metric_name",
                                              "metric")).decode())


class Options(Handle):
    """Simulation options (the library's defaults: policy "ff", the AdaDUAL
    paper's 16 x 4-GPU cluster ...). Keyword arguments call the setters:
    Options(policy="ada-srsf", seed=3, cluster=(4, 2, 4, 4, 2, 10.0))."""

    _free_fn = "ns_sim_opts_free"

    def __init__(self, **settings: Any) -> None:
        super().__init__(lib.ns_sim_opts_new())
        self._place_cb: _PlaceCallback | None = None
        with self._closing_on_error():
            for key, value in settings.items():
                setter = getattr(self, "set_" + key, None)
                if setter is None:
                    raise TypeError("sim.Options: unknown setting %r" % key)
                if isinstance(value, tuple):
                    setter(*value)
                else:
                    setter(value)

    def _set(self, fn: str, *args: Any, names: dict[str, str] | None = None) -> None:
        check(getattr(lib, fn)(self._ptr, *args),
              "sim.Options." + fn[len("ns_sim_opts_"):], names)

    def _set_choice(self, fn: str, arg: str, value: str, names: Sequence[str]) -> None:
        """fn(o, i) for value == names[i]; InvalidArgumentError naming arg otherwise."""
        if value not in names:
            raise InvalidArgumentError(f"sim.Options.{fn[len('ns_sim_opts_'):]}: {arg} must be "
                                       f"one of {', '.join(names)} (got {value!r})")
        self._set(fn, list(names).index(value))

    def set_policy(self, policy: Union[int, str]) -> None:
        """A preset by id (int) or name (str, e.g. "lwf-1"; sim.policies()
        lists them)."""
        w = "sim.Options.set_policy"
        if isinstance(policy, str):
            known = list(policies())
            if policy not in known:  # the user's method and argument, a suggestion
                close = difflib.get_close_matches(policy, known, 1)
                raise InvalidArgumentError(
                    "%s: policy %r is not a policy%s (valid: %s)"
                    % (w, policy, "; did you mean %r?" % close[0] if close else "",
                       ", ".join(known)))
            check(lib.ns_sim_opts_set_policy_name(self._ptr, as_str(policy, w, "policy")), w,
                  {"name": "policy"})
        else:
            self._set("ns_sim_opts_set_policy", as_int(policy, "sim.Options.set_policy",
                                                       "policy"))

    @property
    def policy_name(self) -> str:
        """The preset last applied ("custom" once a part was changed)."""
        return str(lib.ns_sim_opts_policy_name(self._ptr).decode())

    def set_order(self, order: Union[Order, str, int]) -> None:
        """Which waiting job is offered resources first (Order or its name)."""
        self._set("ns_sim_opts_set_order", as_enum(order, Order, "sim.Options.set_order",
                                                   "order"))

    def set_placement(self, placement: Union[PlacementRule, str, int]) -> None:
        """The placement entry point (PlacementRule or its name, e.g. "lwf")."""
        self._set("ns_sim_opts_set_placement",
                  as_enum(placement, PlacementRule, "sim.Options.set_placement", "placement"))

    def set_kappa(self, kappa: int) -> None:
        """LWF-kappa's consolidation threshold (kappa >= 1)."""
        self._set("ns_sim_opts_set_kappa", as_int(kappa, "sim.Options.set_kappa", "kappa"))

    def set_admission(self, admission: Union[Admission, str, int], n: int = 1) -> None:
        """Communication admission (Admission or its name) and SRSF's n."""
        w = "sim.Options.set_admission"
        self._set("ns_sim_opts_set_admission", as_enum(admission, Admission, w, "admission"),
                  as_int(n, w, "n"))

    def set_cassini(self, enabled: bool, max_candidates: int = 10) -> None:
        """CASSINI augmentation of the placement, ranking up to max_candidates."""
        w = "sim.Options.set_cassini"
        self._set("ns_sim_opts_set_cassini", as_flag(enabled, w, "enabled"),
                  as_int(max_candidates, w, "max_candidates"))

    def set_network(self, model: Union[Network, str, int]) -> None:
        """The network model (Network or its name, e.g. "maxmin")."""
        self._set("ns_sim_opts_set_network", as_enum(model, Network, "sim.Options.set_network",
                                                     "model"))

    def set_phase_window(self, iterations: int) -> None:
        """Phase model: fast-forward window W in iterations (0 = off)."""
        self._set("ns_sim_opts_set_phase_window",
                  as_int(iterations, "sim.Options.set_phase_window", "iterations"))

    def set_cassini_drift(self, fraction: float) -> None:
        """Phase model, CASSINI: re-adjust shifts past this drift (0 = never)."""
        self._set("ns_sim_opts_set_cassini_drift",
                  as_real(fraction, "sim.Options.set_cassini_drift", "fraction"))

    def set_cluster(self, leaves: int, spines: int, servers_per_leaf: int, gpus_per_server: int,
                    links_per_pair: int, link_gbps: float) -> None:
        """The leaf-spine cluster simulated (every value >= 1, Gbps > 0)."""
        w = "sim.Options.set_cluster"
        self._set("ns_sim_opts_set_cluster", as_int(leaves, w, "leaves"),
                  as_int(spines, w, "spines"), as_int(servers_per_leaf, w, "servers_per_leaf"),
                  as_int(gpus_per_server, w, "gpus_per_server"),
                  as_int(links_per_pair, w, "links_per_pair"), as_real(link_gbps, w, "link_gbps"))

    def set_bandwidth(self, nic_gbps: float, intra_gbps: float) -> None:
        """Server NIC and intra-server bandwidth in Gbps (nic 0: the link's)."""
        w = "sim.Options.set_bandwidth"
        self._set("ns_sim_opts_set_bandwidth", as_real(nic_gbps, w, "nic_gbps"),
                  as_real(intra_gbps, w, "intra_gbps"))

    def set_contention(self, a_ms: float, b_ms_per_byte: float, eta_ms_per_byte: float) -> None:
        """Eq. 5 parameters of the "contention" network model."""
        w = "sim.Options.set_contention"
        self._set("ns_sim_opts_set_contention", as_real(a_ms, w, "a_ms"),
                  as_real(b_ms_per_byte, w, "b_ms_per_byte"),
                  as_real(eta_ms_per_byte, w, "eta_ms_per_byte"))

    def set_seed(self, seed: int) -> None:
        """Seed of random placement and of the embedded workload."""
        self._set("ns_sim_opts_set_seed", as_u64(seed, "sim.Options.set_seed", "seed"))

    def set_dally(self, machine_ms: float, rack_ms: float, history_ms: float) -> None:
        """Dally's default machine / rack timers and the tuner's history."""
        w = "sim.Options.set_dally"
        self._set("ns_sim_opts_set_dally", as_real(machine_ms, w, "machine_ms"),
                  as_real(rack_ms, w, "rack_ms"), as_real(history_ms, w, "history_ms"))

    def set_dally_preemption(self, enabled: bool) -> None:
        """True (default): Dally's network-sensitive preemption with the
        Nw_sens order; False: the same order, nobody is suspended."""
        self._set("ns_sim_opts_set_dally_preemption",
                  as_flag(enabled, "sim.Options.set_dally_preemption", "enabled"))

    def set_dally_lease(self, lease_ms: float) -> None:
        """Dally's preemption as Themis leases: lease_ms > 0 (at least
        1000): a job holds its GPUs lease_ms from its start or renewal, then
        its GPUs are re-offered with the free ones in increasing Nw_sens; an
        expired job offered before anyone took its GPUs keeps them, else it
        is suspended. 0: no leases (preemption after each scheduling pass).
        Default 1200000 (20 min)."""
        self._set("ns_sim_opts_set_dally_lease",
                  as_real(lease_ms, "sim.Options.set_dally_lease", "lease_ms"))

    def set_skew_threshold(self, nbytes: int) -> None:
        """Tiresias: models of at least nbytes are consolidated."""
        self._set("ns_sim_opts_set_skew_threshold",
                  as_u64(nbytes, "sim.Options.set_skew_threshold", "nbytes"), names={"bytes": "nbytes"})

    def set_gpu_sharing(self, shared: bool) -> None:
        """True: jobs share GPUs while memory fits, taking turns."""
        self._set("ns_sim_opts_set_gpu_sharing", as_flag(shared, "sim.Options.set_gpu_sharing",
                                                         "shared"))

    def set_backfill(self, enabled: bool) -> None:
        """True (every preset but "fifo"): a job that cannot be placed lets
        later ones try; False: strict order, head-of-line blocking."""
        self._set("ns_sim_opts_set_backfill", as_flag(enabled, "sim.Options.set_backfill",
                                                      "enabled"))

    def set_las_queues(self, queues: int, thresholds_gpu_ms: Sequence[float] = ()) -> None:
        """Preemptive orders' queues: `queues` (1..8) and queues - 1 ascending
        attained-service thresholds in GPU-ms."""
        w = "sim.Options.set_las_queues"
        n = as_int(queues, w, "queues")
        vals = [as_real(v, w, "thresholds_gpu_ms") for v in thresholds_gpu_ms]
        arr = (c_double * max(len(vals), 1))(*vals)
        self._set("ns_sim_opts_set_las_queues", n, arr if vals else None)

    def set_starvation(self, knob: float) -> None:
        """Starvation promotion knob of the preemptive orders (0 = never)."""
        self._set("ns_sim_opts_set_starvation", as_real(knob, "sim.Options.set_starvation", "knob"))

    def set_contention_curve(self, curve: Union[str, "os.PathLike[str]",
                                                Sequence[Tuple[float, float]]]) -> None:
        """Phase model: a link carrying k concurrent all-reduces delivers
        capacity x e(k). `curve` is "ideal" (e = 1, plain max-min sharing),
        "default" (the fit to HKBU's 10 GbE measurements), a sequence of
        (k, e) points (linear in between, flat past the last, e(1) = 1), or
        the path of a two-column CSV of such points (as netsched-sim
        --contention-curve: an optional header line, '#' comments)."""
        w = "sim.Options.set_contention_curve"
        if isinstance(curve, str) and curve == "default":
            self._set("ns_sim_opts_set_default_contention_curve")
            return
        if isinstance(curve, str) and curve == "ideal":
            points: List[Tuple[float, float]] = []
        elif isinstance(curve, (str, os.PathLike)):
            self._set("ns_sim_opts_load_contention_curve",
                      as_str(os.fspath(curve), w, "curve"))
            return
        else:
            points = []
            for i, pt in enumerate(curve):
                if not isinstance(pt, (tuple, list)) or len(pt) != 2:
                    raise InvalidArgumentError(
                        f"{w}: curve[{i}] must be a (k, e) pair (got {pt!r})")
                points.append((as_real(pt[0], w, f"curve[{i}][0]"),
                               as_real(pt[1], w, f"curve[{i}][1]")))
        n = len(points)
        ks = (c_double * max(n, 1))(*[k for k, _ in points])
        es = (c_double * max(n, 1))(*[e for _, e in points])
        self._set("ns_sim_opts_set_contention_curve", ks if n else None, es if n else None, n)

    def contention_factor(self, k: int) -> float:
        """e(k) of the current contention curve (k >= 1)."""
        v = lib.ns_sim_opts_contention_factor(self._ptr, as_int(k, "sim.Options.contention_factor",
                                                                "k"))
        if v != v:
            check(Status.EINVAL, "sim.Options.contention_factor")
        return float(v)

    def set_allreduce_latency(self, alpha_ms: float) -> None:
        """Phase model: start-up latency of every all-reduce across servers
        (not shared; default 0)."""
        self._set("ns_sim_opts_set_allreduce_latency",
                  as_real(alpha_ms, "sim.Options.set_allreduce_latency", "alpha_ms"))

    def set_nics(self, nics_per_server: int, gbps: float = 0.0) -> None:
        """NICs per server (1 default; 0 = one per GPU) and their Gbps (0 = the
        link rate)."""
        w = "sim.Options.set_nics"
        self._set("ns_sim_opts_set_nics", as_int(nics_per_server, w, "nics_per_server"),
                  as_real(gbps, w, "gbps"))

    def set_gpu_memory(self, mb: float) -> None:
        """Memory of every GPU in MB (0 = the default, 16384)."""
        self._set("ns_sim_opts_set_gpu_memory", as_real(mb, "sim.Options.set_gpu_memory", "mb"))

    def set_cassini_drift_rule(self, rule: str) -> None:
        """"readjust" (default: a drifted job's shifts are applied again) or
        "wait" (it waits for its next ideal slot)."""
        self._set_choice("ns_sim_opts_set_cassini_drift_rule", "rule", rule, ("readjust", "wait"))

    def set_dally_new_jobs(self, reading: str) -> None:
        """Dally, Nw_sens of a job that never ran: "one" (default, the
        library's 1.0: it never preempts) or "profile" (its lone iteration at
        its most consolidated tier)."""
        self._set_choice("ns_sim_opts_set_dally_new_jobs", "reading", reading, ("one", "profile"))

    def set_allreduce(self, algorithm: str) -> None:
        """Every job's all-reduce (phase model): "ring" (default) or "hd"
        (recursive halving then doubling, each step a phase sharing links;
        ns_sim_opts_set_allreduce in netsched/sim.h states the rules)."""
        self._set_choice("ns_sim_opts_set_allreduce", "algorithm", algorithm, ("ring", "hd"))

    def set_vclos_routing(self, routing: str) -> None:
        """vClos / OCS-vClos placements: "reserved" (default: source-routed over
        their reserved links, isolated) or "ecmp" (the same placement, its
        flows hashed over the shared fabric like any other)."""
        self._set_choice("ns_sim_opts_set_vclos_routing", "routing", routing, ("reserved", "ecmp"))

    def set_preemption_overhead(self, restore_ms: float) -> None:
        """Checkpoint/restore time charged to a preempted job at each resume."""
        self._set("ns_sim_opts_set_preemption_overhead",
                  as_real(restore_ms, "sim.Options.set_preemption_overhead", "restore_ms"))

    def set_gittins_samples(self, gpu_time_samples: Sequence[float]) -> None:
        """2D-Gittins's service distribution as GPU-time samples in GPU-ms
        (each finite and > 0; the Tiresias simulator's yarn-gput*.csv holds
        GPU-seconds: multiply by 1000). An empty sequence restores the
        default, the workload's own jobs (GPUs x lone run time)."""
        w = "sim.Options.set_gittins_samples"
        if isinstance(gpu_time_samples, (str, bytes)) or not hasattr(gpu_time_samples, "__iter__"):
            raise TypeError("%s: gpu_time_samples must be a sequence of numbers (got %s)"
                            % (w, type(gpu_time_samples).__name__))
        vals = [as_real(v, w, "gpu_time_samples") for v in gpu_time_samples]
        arr = (c_double * max(len(vals), 1))(*vals)
        self._set("ns_sim_opts_set_gittins_samples", arr if vals else None, len(vals))

    def set_place_fn(self, fn: Callable[[Cluster, Job, Placement], None]) -> None:
        """A Python placement policy: fn(cluster, job, out) fills the
        Placement `out` for `job` on `cluster` (views valid during the call
        only; do not mutate the cluster). Raise NoSpaceError to make the job
        wait. Any other exception aborts the run and run() re-raises it (a
        NetschedError passes its status to the simulator, as a C policy's
        would)."""
        if not callable(fn):
            raise TypeError("sim.Options.set_place_fn: fn must be callable (got %s)"
                            % type(fn).__name__)
        cb = _PlaceCallback(fn)
        self._set("ns_sim_opts_set_place_fn", cb.c_fn, None)
        self._place_cb = cb


class _PlaceCallback:
    """Adapts a Python placement function to ns_sim_place_fn. Exceptions do
    not cross into C: they become a status, and are kept to be re-raised."""

    def __init__(self, fn: Callable[[Cluster, Job, Placement], None]) -> None:
        self.fn = fn
        self.error: BaseException | None = None
        self.c_fn = SIM_PLACE_FN(self._call)

    def _call(self, c_ptr: Pointer, job_ptr: Pointer, out_ptr: Pointer,
              _user: int | None) -> int:
        views = (view(Cluster, c_ptr), view(Job, job_ptr), view(Placement, out_ptr))
        views[0]._read_only = "a placement callback's cluster"  # const in C
        views[1]._read_only = "a placement callback's job"
        try:
            self.fn(*views)
            return 0
        except NetschedError as e:
            # A library status keeps its meaning for the simulator (ENOSPACE:
            # wait; others as sim.h says); the exception is kept for run().
            if e.status != Status.ENOSPACE:
                self.error = e
            return int(e.status) if isinstance(e.status, int) and e.status < 0 else -1
        except BaseException as e:  # noqa: B902 -- must not unwind through C
            self.error = e
            return int(Status.ESTATE)  # aborts the run; run() re-raises e
        finally:
            for v in views:
                v.close()


def _run_interruptible(ptr: Pointer) -> tuple[int, str, BaseException | None]:
    """ns_sim_run(ptr): (status, its ns_last_error(), None), or the
    interrupt (KeyboardInterrupt, SystemExit from a signal handler) that
    cancelled it. In the main thread the C run goes to a helper thread: a
    signal's Python handler runs only in the main thread, between bytecodes,
    which it never reaches while ctypes waits for C - so the main thread
    waits in an interruptible join instead, and on an interrupt cancels the
    run (ns_sim_cancel, async-signal-safe) and waits for it to stop."""
    if threading.current_thread() is not threading.main_thread():
        rc = int(lib.ns_sim_run(ptr))
        return rc, last_error() if rc < 0 else "", None
    box: Dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        try:
            rc = int(lib.ns_sim_run(ptr))
            box["rc"], box["msg"] = rc, last_error() if rc < 0 else ""  # thread-local: read here
        finally:
            done.set()

    worker = threading.Thread(target=work, name="netsched-sim-run", daemon=True)
    worker.start()
    interrupt: BaseException | None = None
    # Event.wait, not Thread.join: an interrupted join (3.11) can mark the
    # thread stopped while it still runs (bpo-45274's fix releases its lock).
    while not done.is_set():
        try:
            done.wait(0.2)
        except BaseException as e:  # noqa: B902 -- KeyboardInterrupt, SystemExit, ...
            if interrupt is None:
                interrupt = e
            lib.ns_sim_cancel(ptr)  # again for each further interrupt: harmless
    worker.join()
    return int(box.get("rc", int(Status.ECANCELED))), str(box.get("msg", "")), interrupt


_M = TypeVar("_M", bound=Callable[..., Any])


def _serialised(method: _M) -> _M:
    """A Simulator method run under the handle's lock (one call at a time
    per simulator, whatever the threads), refused with StateError while
    run() runs (from a callback of that run or from another thread)."""
    where = "sim.Simulator." + method.__name__

    @functools.wraps(method)
    def call(self: Simulator, *args: Any, **kw: Any) -> Any:
        with self._lock:
            self._not_running(where)
            return method(self, *args, **kw)
    return cast(_M, call)


class Simulator(Handle):
    """A simulator with a copy of the options and its own cluster.

    Simulator(opts) or Simulator(policy="lwf-1", seed=3, ...) (the keywords
    of sim.Options).

    Re-entry and threads: while run() runs, neither the simulator's own
    progress or placement callback nor another thread may use it. Every
    method then raises StateError ("is running") and changes nothing, and
    the run goes on; close() (or leaving a `with` block) from a callback or
    another thread is deferred until run() returns. Outside a run, calls
    from several threads are serialised (one at a time per simulator, under
    a lock), so no interleaving of calls can corrupt it. cancel() is the
    exception: any thread may call it at any time. The cluster a placement
    callback receives is read-only (StateError on commit, occupy and the
    other mutators).

    Interrupts: run() called from the main thread runs the simulation in a
    helper thread and waits for it, so Ctrl-C (KeyboardInterrupt) stops the
    run within about a second even while the C loop runs and with callbacks
    set: the run is cancelled, the simulator keeps its jobs and can run
    again, and run() raises that KeyboardInterrupt. Callbacks then run in the
    helper thread."""

    _free_fn = "ns_sim_free"

    def __init__(self, opts: Optional[Options] = None, **settings: Any) -> None:
        if opts is not None and settings:
            raise TypeError("sim.Simulator: pass either opts or keyword settings")
        if opts is None:
            with Options(**settings) as o:
                self._init(o)
            return
        self._init(opts)

    def _init(self, opts: Options) -> None:
        op = as_handle(opts, Options, "sim.Simulator", "opts")
        super().__init__(lib.ns_sim_new(op))
        self._place_cb = opts._place_cb  # the C copy of the options points at it
        self._progress_cb: Any = None  # the ctypes thunk of set_progress's fn
        self._progress_error: BaseException | None = None
        self._running = False
        self._lock = threading.RLock()

    def _free_if_unused(self) -> None:
        if not getattr(self, "_running", False):  # close() during a run: after run()
            super()._free_if_unused()

    def close(self) -> None:
        """As Handle.close; never while another thread's call uses the
        simulator (it waits for that call), and after run() returns when
        called during a run."""
        lock = getattr(self, "_lock", None)
        if lock is None:  # a failed constructor
            super().close()
            return
        with lock:
            super().close()

    def _not_running(self, where: str) -> None:
        if self._running:
            raise StateError("%s: the simulator is running (called from its own progress or "
                             "placement callback, or from another thread during run()); nothing "
                             "was changed - call it after run() returns" % where)

    def cancel(self) -> None:
        """Asks the run in progress to stop: run() then raises CancelledError
        (KeyboardInterrupt when Ctrl-C asked), keeps no results, and the
        simulator can run again. Callable from any thread, and from the
        simulator's own callbacks; does nothing when no run is in progress
        or the simulator is closed."""
        if not self.closed:
            lib.ns_sim_cancel(self._raw)

    @_serialised
    def add_job(self, name: str, arrival_ms: float, gpus: int, iterations: int,
                compute_ms: float, model_bytes: int, mem_mb: float = 0.0) -> int:
        """Adds a job; returns its index (NoSpaceError if larger than the cluster)."""
        w = "sim.Simulator.add_job"
        return check(lib.ns_sim_add_job(self._ptr, as_str(name, w, "name"),
                                        as_real(arrival_ms, w, "arrival_ms"),
                                        as_int(gpus, w, "gpus"),
                                        as_u64(iterations, w, "iterations"),
                                        as_real(compute_ms, w, "compute_ms"),
                                        as_u64(model_bytes, w, "model_bytes"),
                                        as_real(mem_mb, w, "mem_mb")), w)

    @_serialised
    def add_model_job(self, name: str, arrival_ms: float, gpus: int, iterations: int,
                      model: Union[Model, str, int]) -> int:
        """Adds a job with an embedded model profile (Model or its name, e.g.
        "resnet50"); returns its index."""
        w = "sim.Simulator.add_model_job"
        return check(lib.ns_sim_add_model_job(self._ptr, as_str(name, w, "name"),
                                              as_real(arrival_ms, w, "arrival_ms"),
                                              as_int(gpus, w, "gpus"),
                                              as_u64(iterations, w, "iterations"),
                                              as_enum(model, Model, w, "model")), w)

    @_serialised
    def set_job_allreduce(self, job: int, algorithm: str) -> None:
        """The job of index `job` runs its all-reduce as "ring" or "hd"
        (halving-doubling) instead of the options' (set_allreduce)."""
        w = "sim.Simulator.set_job_allreduce"
        names = ("ring", "hd")
        if algorithm not in names:
            raise InvalidArgumentError("%s: algorithm must be one of ring, hd (got %r)"
                                       % (w, algorithm))
        check(lib.ns_sim_set_job_allreduce(self._ptr, as_int(job, w, "job"),
                                           names.index(algorithm)), w)

    @_serialised
    def load_default_workload(self) -> int:
        """The embedded AdaDUAL workload (160 jobs); returns the jobs added."""
        return check(lib.ns_sim_load_default_workload(self._ptr))

    @_serialised
    def add_model_profile(self, name: str, forward_ms: float, backward_ms: float,
                          model_bytes: int, mem_mb: float = 0.0) -> None:
        """A model profile for traces loaded afterwards: a model_name equal
        to `name` runs with these per-iteration forward / backward ms, bytes
        all-reduced per iteration and GPU memory (MB); it takes precedence
        over the embedded profiles (replaces an earlier one of that name)."""
        w = "sim.Simulator.add_model_profile"
        check(lib.ns_sim_add_model_profile(self._ptr, as_str(name, w, "name"),
                                           as_real(forward_ms, w, "forward_ms"),
                                           as_real(backward_ms, w, "backward_ms"),
                                           as_u64(model_bytes, w, "model_bytes"),
                                           as_real(mem_mb, w, "mem_mb")), w)

    @_serialised
    def load_models(self, path: PathLike) -> List[str]:
        """add_model_profile for every row of a CSV file with the header
        name,forward_ms,backward_ms,model_bytes,memory_mb (other columns
        ignored); returns the names read, in file order. The library reads
        it (ns_sim_load_models), as netsched-sim --models does: the same
        quoting, limits and checks (plain decimals, model_bytes a whole
        number <= 2^53, unique names). All or nothing: a bad row raises
        InvalidArgumentError naming the file and line, and no profile
        changes; a missing or unreadable file FileNotFoundError /
        PermissionError."""
        w = "sim.Simulator.load_models"
        path = _fspath(path, w, "path")
        _readable(path)
        n = check(lib.ns_sim_load_models(self._ptr, as_str(path, w, "path")), w)
        total = check(lib.ns_sim_added_profile_count(self._ptr), w)
        return [lib.ns_sim_added_profile_name(self._ptr, i).decode("utf-8", "replace")
                for i in range(total - n, total)]

    @_serialised
    def load_trace(self, path: PathLike,
                   fmt: Union[TraceFormat, str, int] = TraceFormat.AUTO) -> int:
        """Reads a Tiresias or Philly CSV trace (fmt: TraceFormat or its
        name, "tiresias", "philly" or "auto", the default: from the
        header); returns the jobs added. A missing or
        unreadable file raises FileNotFoundError / PermissionError, a
        malformed row InvalidArgumentError (a ValueError) with its line."""
        w = "sim.Simulator.load_trace"
        path = _fspath(path, w, "path")
        f = as_enum(fmt, TraceFormat, w, "fmt")
        _readable(path)
        return check(lib.ns_sim_load_trace(self._ptr, as_str(path, w, "path"), f), w,
                     {"format": "fmt"})

    @_serialised
    def scale_arrivals(self, factor: float) -> None:
        """Multiplies every gap between the loaded jobs' arrivals by `factor`
        (finite, > 0; the earliest arrival stays): 2 halves the offered load,
        0.5 doubles it. Jobs added later are not scaled; the last run's
        results are discarded."""
        w = "sim.Simulator.scale_arrivals"
        check(lib.ns_sim_scale_arrivals(self._ptr, as_real(factor, w, "factor")), w)

    @_serialised
    def keep_first(self, n: int) -> None:
        """Keeps the n loaded jobs that arrive first (ties: the one added
        first) and drops the others, e.g. to try a big trace quickly; n >=
        the job count changes nothing (ns_sim_keep_first)."""
        w = "sim.Simulator.keep_first"
        check(lib.ns_sim_keep_first(self._ptr, as_int(n, w, "n")), w)

    @_serialised
    def set_progress(self, fn: Optional[Callable[[int, int], None]]) -> None:
        """fn(done, total) is called at most ~200 times per run (None removes it)."""
        if fn is None:
            null_fn = SIM_PROGRESS_FN()  # type: ignore[call-overload]  # a NULL function pointer
            check(lib.ns_sim_set_progress(self._ptr, null_fn, None))
            self._progress_cb = None
            return
        if not callable(fn):
            raise TypeError("sim.Simulator.set_progress: fn must be callable or None")
        progress = fn
        raw = self._raw

        def call(done: int, total: int, _user: int | None) -> None:
            if self._progress_error is None:
                try:
                    progress(done, total)
                except BaseException as e:  # noqa: B902 -- must not unwind through C
                    # stop the run now; run() raises this very exception
                    self._progress_error = e
                    lib.ns_sim_cancel(raw)
        cb = SIM_PROGRESS_FN(call)
        check(lib.ns_sim_set_progress(self._ptr, cb, None))
        self._progress_cb = cb

    def run(self) -> None:
        """Runs the whole workload (again, from a fresh cluster). From the
        simulator's own callback or while another thread runs it: StateError
        (see the class comment). Ctrl-C stops it (KeyboardInterrupt), as
        does cancel() (CancelledError); an exception raised by a progress or
        placement callback stops it too and is raised as it was."""
        w = "sim.Simulator.run"
        with self._lock:
            self._not_running(w)
            ptr = self._ptr
            if self._place_cb is not None:
                self._place_cb.error = None
            self._progress_error = None
            self._running = True
        interrupt: BaseException | None = None
        try:
            rc, message, interrupt = _run_interruptible(ptr)
        finally:
            with self._lock:
                self._running = False
                self._free_if_unused()  # closed during the run: free it now
        if interrupt is not None:
            raise interrupt
        err = self._place_cb.error if self._place_cb is not None else None
        # A Python error in a callback always surfaces as itself; a library
        # status the policy raised does when it failed the run.
        if err is not None and (rc < 0 or not isinstance(err, NetschedError)):
            raise err
        if self._progress_error is not None:
            raise self._progress_error
        if rc < 0:  # "s has no jobs": s is the simulator the user holds
            raise error_for(rc, message, w, {"s": "the simulator"})

    @_serialised
    def metric(self, metric: Union[Metric, str, int]) -> float:
        """One Metric (or its name, e.g. "avg_jct_ms") of the last run
        (StateError before a run)."""
        v = c_double()
        w = "sim.Simulator.metric"
        check(lib.ns_sim_metric(self._ptr, as_enum(metric, Metric, w, "metric"),
                                ctypes.byref(v)), w)
        return v.value

    @_serialised
    def metrics(self) -> Dict[str, float]:
        """{metric name: value} of the last run."""
        return {metric_name(m): self.metric(m) for m in Metric}

    @property
    @_serialised
    def job_count(self) -> int:
        """Jobs loaded (skipped ones excluded)."""
        return check(lib.ns_sim_job_count(self._ptr))

    @property
    @_serialised
    def skipped_count(self) -> int:
        """Jobs of traces or add_job that were larger than the cluster."""
        return check(lib.ns_sim_skipped_count(self._ptr))

    def __len__(self) -> int:
        return self.job_count

    @_serialised
    def job_name(self, job: int) -> str:
        """Name of the job of index `job`: the trace's job_id, or the name
        given to add_job ("" if out of range)."""
        return str(lib.ns_sim_job_name(self._ptr, as_int(job, "sim.Simulator.job_name",
                                                         "job")).decode("utf-8", "replace"))

    @_serialised
    def job_model(self, job: int) -> str:
        """Model name of the job of index `job` (JobResult.model)."""
        return str(lib.ns_sim_job_model(self._ptr, as_int(job, "sim.Simulator.job_model",
                                                          "job")).decode("utf-8", "replace"))


    @_serialised
    def job_gpus(self, job: int) -> int:
        """GPUs the job of index `job` asks for."""
        w = "sim.Simulator.job_gpus"
        return check(lib.ns_sim_job_gpus(self._ptr, as_int(job, w, "job")), w)

    @_serialised
    def job_preemptions(self, job: int) -> int:
        """Times the job of index `job` was preempted in the last run."""
        w = "sim.Simulator.job_preemptions"
        return check(lib.ns_sim_job_preemptions(self._ptr, as_int(job, w, "job")), w)

    @_serialised
    def job_nw_sens(self, job: int) -> float:
        """Dally's network sensitivity (Dally §4.3.1) of the job of index
        `job` in the last run: (iterations done / total) / (ms run / (compute
        ms per iteration x total)), as the network model measured it over all
        its placements (restore overhead excluded). 1.0 = no slowdown; lower
        = more network-induced slowdown. A job that never ran reports its
        initial estimate. Raises StateError before a run, InvalidArgumentError
        for a job out of range."""
        w = "sim.Simulator.job_nw_sens"
        v = c_double()
        check(lib.ns_sim_job_nw_sens(self._ptr, as_int(job, w, "job"), ctypes.byref(v)), w)
        return v.value

    @_serialised
    def job_wait_iter(self, job: int) -> Tuple[float, float]:
        """(wait_ms, iter_ms) of the job of index `job` in the last run: its
        time in the wait queue, waits after preemptions included, and its
        mean iteration time (run time without waits and restore overhead /
        iterations); both NaN if it did not finish. Raises StateError before
        a run, InvalidArgumentError for a job out of range."""
        w = "sim.Simulator.job_wait_iter"
        wait, it = c_double(), c_double()
        check(lib.ns_sim_job_wait_iter(self._ptr, as_int(job, w, "job"), ctypes.byref(wait),
                                       ctypes.byref(it)), w)
        return wait.value, it.value

    @_serialised
    def job_result(self, job: int) -> JobResult:
        """JobResult of the job of index `job` in the last run."""
        w = "sim.Simulator.job_result"
        j = as_int(job, w, "job")
        a, s, f, n = c_double(), c_double(), c_double(), c_int()
        check(lib.ns_sim_job_result(self._ptr, j, ctypes.byref(a), ctypes.byref(s),
                                    ctypes.byref(f), ctypes.byref(n)), w)
        return JobResult(self.job_name(j), self.job_gpus(j), a.value, s.value, f.value, n.value,
                         self.job_model(j))

    @_serialised
    def results(self) -> List[JobResult]:
        """JobResult of every job of the last run, in load order."""
        return [self.job_result(i) for i in range(self.job_count)]

    @_serialised
    def write_jobs_csv(self, path: PathLike) -> None:
        """One CSV row per job of the last run (FileNotFoundError if the
        directory does not exist, PermissionError if it is not writable)."""
        w = "sim.Simulator.write_jobs_csv"
        path = _fspath(path, w, "path")
        _writable(path)
        check(lib.ns_sim_write_jobs_csv(self._ptr, as_str(path, w, "path")), w)


__all__ = ["Order", "PlacementRule", "Admission", "Network", "Model", "TraceFormat", "Metric",
           "JobResult", "Options", "Simulator", "policy_count", "policy_name",
           "policy_description", "policies", "metric_name", "ModelProfile",
           "model_count", "model_profile"]
