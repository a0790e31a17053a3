"""The policy object (policy.h): the presets the simulator measures, as one
handle a cluster manager written in Python runs -- the same object the
simulator and netsched-slurm run, so its decisions are the simulator's.

Example (one scheduling instant; the cluster has every running job
committed where it runs):

>>> import netsched
>>> from netsched.policy import Policy, Queue
>>> c = netsched.Cluster.leaf_spine(2, 2, 2, 4, 1, 10.0)
>>> a, b = netsched.Job("a", 4), netsched.Job("b", 8)
>>> q = Queue()
>>> q.add(a, id=1, arrival_ms=0.0)
0
>>> q.add(b, id=2, arrival_ms=5.0)
1
>>> p = Policy("ff")
>>> d = p.decide(c, q, now_ms=10.0)
>>> [(i, d.placement(k).gpus) for k, i in enumerate(d.started)]
[(0, [0, 1, 2, 3]), (1, [4, 5, 6, 7, 8, 9, 10, 11])]
>>> for k, i in enumerate(d.started):      # act, then report back
...     c.commit(q.job(i), d.placement(k))
...     p.started(q.job(i), 10.0)
>>> p.finished(a, 20.0); c.release(a)

Preemption (2d-las, 2d-gittins): the queue holds the running jobs too, with
their attained service (GPUs x ms run); the decision lists the running jobs
to suspend, and the starts are placed on the GPUs those release. Release the
suspended jobs first, then commit the starts:

>>> c = netsched.Cluster.leaf_spine(1, 0, 1, 4, 0, 10.0)
>>> long, new = netsched.Job("long", 4), netsched.Job("new", 4)
>>> c.commit(long, netsched.Placement([0, 1, 2, 3]))
>>> q = Queue()
>>> q.add(long, id=1, arrival_ms=0.0, running=True, attained_ms=4 * 1000e3)
0
>>> q.add(new, id=2, arrival_ms=1000e3)
1
>>> p = Policy("2d-las")
>>> d = p.decide(c, q, now_ms=1000e3)
>>> d.suspended, d.started, d.gpus(0)
([0], [1], [0, 1, 2, 3])
>>> c.release(long); c.commit(new, d.placement(0))

Dally's leases (dally, dally-manual; or any policy with Order.NW_SENS and
set_dally_lease): each started job holds its GPUs for a lease. The queue
holds the running jobs with their Nw_sens measured now; when a lease has
ended, a waiting job with a lower Nw_sens may take its GPUs (the job is
suspended), else the lease is renewed. Ask again at next_ms (the earliest
lease end or Dally timer) even if nothing happens:

>>> c = netsched.Cluster.leaf_spine(1, 0, 1, 4, 0, 10.0)
>>> r, w = netsched.Job("r", 4), netsched.Job("w", 4)
>>> c.commit(r, netsched.Placement([0, 1, 2, 3]))
>>> p = Policy("ff"); p.set_order("NW_SENS"); p.set_dally_lease(60e3)
>>> q = Queue()
>>> q.add(r, id=1, arrival_ms=0.0, running=True)
0
>>> d = p.decide(c, q, now_ms=0.0)       # r first seen running: a lease [0, 60 s)
>>> d.next_ms, p.lease(1)
(60000.0, (0.0, 60000.0))
>>> q.clear()
>>> q.add(r, id=1, arrival_ms=0.0, running=True, nw_sens=0.9)
0
>>> q.add(w, id=2, arrival_ms=5.0, nw_sens=0.5)   # suspended before: slowed down more
1
>>> d = p.decide(c, q, now_ms=60e3)
>>> d.renewed, d.suspended, d.started, d.next_ms
([], [0], [1], 120000.0)

CASSINI's drift re-adjustment (cassini-* presets): report each job's
iteration when it starts (compute, then its all-reduce alone), the slot each
applied time-shift gave its next compute, and every all-reduce start; the
policy answers whether the job drifted and what to do. Two 100 ms jobs whose
50 ms all-reduces share one 10 Gbps NIC link; B's shift was applied at slot
1050, so its all-reduces should start at 1100 + k x 100 ms (5 % = 5 ms):

>>> c = netsched.Cluster.leaf_spine(1, 0, 2, 2, 0, 10.0)
>>> c.set_nic_ports(1, 10.0)
>>> a, b = (netsched.Job(n, 2, iteration_ms=100, phases=[(50, 0), (50, 10)]) for n in "AB")
>>> c.commit(a, netsched.Placement([0, 2])); c.commit(b, netsched.Placement([1, 3]))
>>> p = Policy("cassini-ff")
>>> for j, slot in ((a, 1000), (b, 1050)):
...     p.report_iteration(j, compute_ms=50, allreduce_ms=50)
...     p.report_shifted(j, slot_ms=slot)
>>> p.report_allreduce(c, b, start_ms=1304).action       # 4 ms late: on schedule
<Drift.NONE: 0>
>>> r = p.report_allreduce(c, b, start_ms=1306)          # 6 ms late: re-ranked
>>> r.action, r.decision.readjust_shift_ms(a), round(r.decision.readjust_shift_ms(b), 6)
(<Drift.SHIFTS: 1>, 0.0, 50.0)
>>> p.readjust_count
1
"""

from __future__ import annotations

import ctypes
import enum
from ctypes import c_double, c_int
from typing import Any, Callable, NamedTuple, Sequence

from ._clib import lib
from ._handle import Handle, as_enum, as_flag, as_handle, as_int, as_real, as_size, as_str, as_u64
from .core import Cluster, Job, Placement
from .errors import InvalidArgumentError, NetschedError, Status, check, error_for, last_error
from .sim import _PlaceCallback


class Order(enum.IntEnum):
    """The queue order (ns_policy_order)."""

    FIFO = 0
    SRSF = 1
    SJF = 2
    NW_SENS = 3
    LAS_2D = 4
    GITTINS_2D = 5


class PlacementKind(enum.IntEnum):
    """The base placement (ns_policy_placement)."""

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


class DriftRule(enum.IntEnum):
    """What a drifted CASSINI job gets (ns_policy_drift_rule): its links'
    shifts ranked and applied again (READJUST, the default) or, unless its
    measured iteration drifted, a hold until its next ideal slot (WAIT)."""

    READJUST = 0
    WAIT = 1


class Drift(enum.IntEnum):
    """Policy.report_allreduce's answer (ns_policy_drift)."""

    NONE = 0     # on schedule, no schedule, or re-adjusted lately: nothing to do
    SHIFTS = 1   # apply decision.readjust_shift_ms(job) to it and its link partners
    HOLD = 2     # hold its next compute until hold_until_ms, its next ideal slot
    DROPPED = 3  # drifted, nothing to re-rank: its schedule is dropped


class DriftAnswer(NamedTuple):
    """Policy.report_allreduce's result: the action, the hold (math.nan
    unless HOLD) and the Decision holding the re-adjusted shifts."""

    action: Drift
    hold_until_ms: float
    decision: "Decision"


class Admission(enum.IntEnum):
    """Communication admission (ns_policy_admission; the simulator enforces it)."""

    ALL = 0
    SRSF = 1
    ADADUAL = 2


def presets() -> list[tuple[str, str]]:
    """Every preset as (name, description): the table netsched-sim --list prints."""
    return [(lib.ns_policy_preset_name(i).decode(), lib.ns_policy_preset_description(i).decode())
            for i in range(lib.ns_policy_preset_count())]


def preset_parts(name: str) -> dict[str, int | bool]:
    """The parts of preset `name`: order, placement, kappa, admission,
    admit_n, cassini, backfill (InvalidArgumentError listing the valid names)."""
    w = "policy.preset_parts"
    i = check(lib.ns_policy_preset_find(as_str(name, w, "name")), w)
    o, pl, k, a, n, cas, bf = (c_int() for _ in range(7))
    check(lib.ns_policy_preset_parts(i, ctypes.byref(o), ctypes.byref(pl), ctypes.byref(k),
                                     ctypes.byref(a), ctypes.byref(n), ctypes.byref(cas),
                                     ctypes.byref(bf)), w)
    return {"order": Order(o.value), "placement": PlacementKind(pl.value), "kappa": k.value,
            "admission": Admission(a.value), "admit_n": n.value, "cassini": bool(cas.value),
            "backfill": bool(bf.value)}


class Queue(Handle):
    """What the caller knows of the waiting jobs (ns_queue). The queue keeps
    the Job objects alive; indexes are the order of add()."""

    _free_fn = "ns_queue_free"

    def __init__(self) -> None:
        super().__init__(lib.ns_queue_new())
        self._jobs: list[Job] = []

    def add(self, job: Job, id: int, arrival_ms: float, *, ideal_ms: float | None = None,
            nw_sens: float | None = None, waiting_since_ms: float | None = None,
            running: bool = False, attained_ms: float | None = None) -> int:
        """Adds a waiting job with a stable id and its arrival; optionally its
        ideal run time (SRSF/SJF), measured Nw_sens (Dally) and since when it
        waits (Dally's starvation). running=True adds a running job (it must
        be committed on the cluster passed to decide); attained_ms is its
        attained service, GPUs x ms run so far (2d-las / 2d-gittins).
        Returns its index."""
        w = "Queue.add"
        jp = as_handle(job, Job, w, "job")
        add = lib.ns_queue_add_running if as_flag(running, w, "running") else lib.ns_queue_add
        i = check(add(self._ptr, jp, as_u64(id, w, "id"), as_real(arrival_ms, w, "arrival_ms")), w)
        self._jobs.append(job)
        try:
            if attained_ms is not None:
                check(lib.ns_queue_set_attained_ms(self._ptr, i,
                                                   as_real(attained_ms, w, "attained_ms")), w,
                      names={"gpu_ms": "attained_ms"})
            if ideal_ms is not None:
                check(lib.ns_queue_set_ideal_ms(self._ptr, i, as_real(ideal_ms, w, "ideal_ms")), w)
            if nw_sens is not None:
                check(lib.ns_queue_set_nw_sens(self._ptr, i, as_real(nw_sens, w, "nw_sens")), w)
            if waiting_since_ms is not None:
                check(lib.ns_queue_set_waiting_since(
                    self._ptr, i, as_real(waiting_since_ms, w, "waiting_since_ms")), w)
        except BaseException:
            self._truncate(i)  # a failed add leaves the queue as it was
            raise
        return i

    def _truncate(self, n: int) -> None:
        check(lib.ns_queue_truncate(self._ptr, n), "Queue.add")
        del self._jobs[n:]

    def set_attained_ms(self, i: int, attained_ms: float) -> None:
        """Attained service of queue index i: GPUs x ms run so far."""
        w = "Queue.set_attained_ms"
        check(lib.ns_queue_set_attained_ms(self._ptr, as_size(i, w, "i"),
                                           as_real(attained_ms, w, "attained_ms")), w,
              names={"gpu_ms": "attained_ms"})

    def set_running(self, i: int, running: bool) -> None:
        """Marks queue index i running (committed where it runs) or waiting."""
        w = "Queue.set_running"
        check(lib.ns_queue_set_running(self._ptr, as_size(i, w, "i"),
                                       as_flag(running, w, "running")), w)

    def running(self, i: int) -> bool:
        """True if queue index i is a running job."""
        w = "Queue.running"
        return bool(check(lib.ns_queue_is_running(self._ptr, as_size(i, w, "i")), w))

    def clear(self) -> None:
        """Empties the queue."""
        lib.ns_queue_clear(self._ptr)
        self._jobs = []

    def __len__(self) -> int:
        return int(lib.ns_queue_count(self._ptr))

    def job(self, i: int) -> Job:
        """The Job at index i."""
        return self._jobs[as_size(i, "Queue.job", "i")]


class Decision(Handle):
    """One decision (ns_decision): the jobs to start, with placements and
    CASSINI time-shifts, and every queued job's status."""

    _free_fn = "ns_decision_free"

    def __init__(self) -> None:
        super().__init__(lib.ns_decision_new())

    @property
    def started(self) -> list[int]:
        """Queue indexes of the jobs to start, in the order decided."""
        n = int(lib.ns_decision_start_count(self._ptr))
        return [int(lib.ns_decision_start_job(self._ptr, k)) for k in range(n)]

    @property
    def suspended(self) -> list[int]:
        """Queue indexes of the running jobs to suspend (2d-las, 2d-gittins),
        in the order decided: release them before committing the starts."""
        n = int(lib.ns_decision_suspend_count(self._ptr))
        return [int(lib.ns_decision_suspend_job(self._ptr, k)) for k in range(n)]

    def placement(self, k: int) -> Placement:
        """A copy of start k's placement, to commit as is."""
        w = "Decision.placement"
        p = Placement()
        try:
            check(lib.ns_decision_copy_placement(self._ptr, as_size(k, w, "k"), p._ptr), w)
        except BaseException:
            p.close()
            raise
        return p

    def gpus(self, k: int) -> list[int]:
        """GPU ids of start k's placement (without copying it)."""
        w = "Decision.gpus"
        pp = lib.ns_decision_placement(self._ptr, as_size(k, w, "k"))
        if not pp:
            raise IndexError("%s: k %d is not a start" % (w, k))
        return [int(lib.ns_placement_gpu(pp, q)) for q in range(lib.ns_placement_gpu_count(pp))]

    def shift_ms(self, k: int, job: Job) -> float | None:
        """CASSINI's time-shift of `job` decided with start k, or None."""
        w = "Decision.shift_ms"
        if not lib.ns_decision_has_shifts(self._ptr, as_size(k, w, "k")):
            return None
        v = c_double()
        rc = lib.ns_decision_shift_ms(self._ptr, k, as_handle(job, Job, w, "job"), ctypes.byref(v))
        if rc == Status.ENOTFOUND:
            return None
        check(rc, w)
        return v.value

    def readjust_shift_ms(self, job: Job) -> float | None:
        """After Policy.report_allreduce answered Drift.SHIFTS: the new
        time-shift of `job` (the drifted job or a partner on its links), or
        None if the re-adjustment does not shift it."""
        w = "Decision.readjust_shift_ms"
        v = c_double()
        rc = lib.ns_decision_readjust_shift_ms(self._ptr, as_handle(job, Job, w, "job"),
                                               ctypes.byref(v))
        if rc == Status.ENOTFOUND:
            return None
        check(rc, w)
        return v.value

    def status(self, i: int) -> Status:
        """Queue index i: Status.OK (started; a running job: keeps running),
        ENOSPACE (waits; a running job: suspended), EINVAL (never fits),
        ENOTFOUND (not offered)."""
        w = "Decision.status"
        i = as_size(i, w, "i")
        n = int(lib.ns_decision_job_count(self._ptr))
        if i >= n:
            raise IndexError("%s: i %d is not a queue index (the decision covers %d jobs)"
                             % (w, i, n))
        return Status(lib.ns_decision_status(self._ptr, i))

    def __len__(self) -> int:
        return int(lib.ns_decision_job_count(self._ptr))

    @property
    def renewed(self) -> list[int]:
        """Queue indexes of the running jobs whose ended lease was renewed
        (Dally's leases: no one before them in increasing Nw_sens took
        their GPUs), in the order decided. They keep their GPUs: nothing to
        do but ask again by next_ms."""
        n = int(lib.ns_decision_renew_count(self._ptr))
        return [int(lib.ns_decision_renew_job(self._ptr, k)) for k in range(n)]

    @property
    def next_ms(self) -> float:
        """When to ask again even if nothing happens (math.inf: no need): the
        earliest Dally timer, lease end (Dally's leases: also of a job that
        has left since; asking then is harmless) or 2d-las / 2d-gittins
        queue check after now."""
        return float(lib.ns_decision_next_ms(self._ptr))

    def retry_ms(self, i: int) -> float:
        """When queued job i wants to be offered again (math.inf: no timer)."""
        return float(lib.ns_decision_retry_ms(self._ptr, as_size(i, "Decision.retry_ms", "i")))


def _check_report(rc: int, where: str, names: dict[str, str] | None = None) -> int:
    """check() for the CASSINI report calls, whose messages point to the C
    calls to make first and to the C argument c: the Python ones instead."""
    if rc >= 0:
        return rc
    msg = last_error().replace("ns_policy_report_iteration", "Policy.report_iteration")
    msg = msg.replace("is not committed on c ", "is not committed on cluster ")
    raise error_for(rc, msg, where, names)


class Policy(Handle):
    """A policy (ns_policy) from a preset name of netsched-sim --list, or
    from parts through the set_* methods before its first decision."""

    _free_fn = "ns_policy_free"

    def __init__(self, preset: str = "ff") -> None:
        super().__init__(lib.ns_policy_new(as_str(preset, "Policy", "preset")))
        self._callback: object = None

    @property
    def name(self) -> str:
        """The preset's name, or "custom" once a part changed."""
        return str(lib.ns_policy_name(self._ptr).decode())

    def clone(self) -> "Policy":
        """A new Policy with this one's parts and options but none of its
        state (it has not decided: its parts can still be set)."""
        p = Policy.__new__(Policy)
        Handle.__init__(p, lib.ns_policy_clone(self._ptr))
        p._callback = self._callback  # the callback the copy calls
        return p

    def set_preset(self, preset: str) -> None:
        """Applies a preset's parts (order, placement, kappa, admission,
        CASSINI, backfilling) over this policy's options (before the first
        decision); the name becomes the preset's."""
        w = "Policy.set_preset"
        check(lib.ns_policy_set_preset(self._ptr, as_str(preset, w, "preset")), w)

    @property
    def kappa(self) -> int:
        """LWF-kappa's kappa."""
        return int(check(lib.ns_policy_kappa_of(self._ptr)))

    def set_order(self, order: Order | str | int) -> None:
        """Changes the queue order (before the first decision)."""
        w = "Policy.set_order"
        check(lib.ns_policy_set_order(self._ptr, as_enum(order, Order, w, "order")), w)

    def set_placement(self, placement: PlacementKind | str | int) -> None:
        """Changes the base placement (before the first decision)."""
        w = "Policy.set_placement"
        check(lib.ns_policy_set_placement(self._ptr, as_enum(placement, PlacementKind, w,
                                                             "placement")), w)

    def set_kappa(self, kappa: int) -> None:
        """LWF-kappa's kappa (>= 1)."""
        w = "Policy.set_kappa"
        check(lib.ns_policy_set_kappa(self._ptr, as_int(kappa, w, "kappa")), w)

    def set_admission(self, admission: Admission | str | int, n: int = 1) -> None:
        """Communication admission and SRSF(n)'s n."""
        w = "Policy.set_admission"
        check(lib.ns_policy_set_admission(self._ptr, as_enum(admission, Admission, w, "admission"),
                                          as_int(n, w, "n")), w)

    def set_cassini(self, enabled: bool, max_candidates: int = 10) -> None:
        """CASSINI ranking over up to max_candidates (1..10) base placements."""
        w = "Policy.set_cassini"
        check(lib.ns_policy_set_cassini(self._ptr, as_flag(enabled, w, "enabled"),
                                        as_int(max_candidates, w, "max_candidates")), w)

    def set_backfill(self, enabled: bool) -> None:
        """False: the queue stops at the first job that waits."""
        w = "Policy.set_backfill"
        check(lib.ns_policy_set_backfill(self._ptr, as_flag(enabled, w, "enabled")), w)

    def set_seed(self, seed: int) -> None:
        """Seed of random placement and Titan."""
        w = "Policy.set_seed"
        check(lib.ns_policy_set_seed(self._ptr, as_u64(seed, w, "seed")), w)

    def set_skew_bytes(self, skew_bytes: int) -> None:
        """Tiresias placement's skew threshold in bytes."""
        w = "Policy.set_skew_bytes"
        check(lib.ns_policy_set_skew_bytes(self._ptr, as_u64(skew_bytes, w, "skew_bytes")), w)

    def set_dally_timers(self, history_ms: float, machine_ms: float, rack_ms: float) -> None:
        """Dally's tuner history and default timers."""
        w = "Policy.set_dally_timers"
        check(lib.ns_policy_set_dally_timers(self._ptr, as_real(history_ms, w, "history_ms"),
                                             as_real(machine_ms, w, "machine_ms"),
                                             as_real(rack_ms, w, "rack_ms")), w)

    def set_cassini_drift(self, fraction: float) -> None:
        """CASSINI's re-adjustment threshold, [0, 1)."""
        w = "Policy.set_cassini_drift"
        check(lib.ns_policy_set_cassini_drift(self._ptr, as_real(fraction, w, "fraction")), w)

    def set_dally_lease(self, lease_ms: float) -> None:
        """Dally's lease in ms (Order.NW_SENS: dally, dally-manual): 0 for no
        leases (running jobs keep their GPUs), else 1000 to 1e15 (default
        20 min). A started job holds its GPUs for the lease; when it ends the
        decision renews it or suspends the job (Decision.renewed,
        Decision.suspended)."""
        w = "Policy.set_dally_lease"
        check(lib.ns_policy_set_dally_lease(self._ptr, as_real(lease_ms, w, "lease_ms")), w)

    @property
    def dally_lease_ms(self) -> float:
        """Dally's lease in ms (0: no leases)."""
        return float(lib.ns_policy_dally_lease_of(self._ptr))

    def lease(self, id: int) -> tuple[float, float] | None:
        """(from_ms, end_ms) of the lease held for the running job `id`, or
        None (not running as the policy knows it, or no leases). Measure the
        Nw_sens of the jobs whose lease ended (end_ms <= now) before asking."""
        w = "Policy.lease"
        a, b = c_double(), c_double()
        rc = lib.ns_policy_lease_ms(self._ptr, as_u64(id, w, "id"), ctypes.byref(a),
                                    ctypes.byref(b))
        if rc == Status.ENOTFOUND:
            return None
        check(rc, w)
        return (a.value, b.value)
    def set_cassini_drift_rule(self, rule: DriftRule | str | int) -> None:
        """What a drifted job gets: "readjust" (default) or "wait" (DriftRule)."""
        w = "Policy.set_cassini_drift_rule"
        check(lib.ns_policy_set_cassini_drift_rule(self._ptr, as_enum(rule, DriftRule, w, "rule")),
              w)

    def set_las_queues(self, thresholds_gpu_ms: list[float]) -> None:
        """2d-las / 2d-gittins queues: len(thresholds_gpu_ms) + 1 queues (1..8),
        thresholds of attained service in GPU-ms, ascending."""
        w = "Policy.set_las_queues"
        vals = [as_real(v, w, "thresholds_gpu_ms") for v in thresholds_gpu_ms]
        if len(vals) > 7:  # the C call counts queues, which this method does not take
            raise InvalidArgumentError("%s: thresholds_gpu_ms must hold at most 7 thresholds "
                                       "(8 queues) (got %d)" % (w, len(vals)))
        arr = (c_double * max(len(vals), 1))(*vals)
        check(lib.ns_policy_set_las_queues(self._ptr, len(vals) + 1, arr), w)

    def set_starvation(self, knob: float) -> None:
        """Starvation promotion knob (0: never)."""
        w = "Policy.set_starvation"
        check(lib.ns_policy_set_starvation(self._ptr, as_real(knob, w, "knob")), w)

    def set_gittins_samples(self, gpu_time_ms: list[float]) -> None:
        """2D-Gittins's service distribution: GPU-time samples in GPU-ms."""
        w = "Policy.set_gittins_samples"
        vals = [as_real(v, w, "gpu_time_ms") for v in gpu_time_ms]
        arr = (c_double * max(len(vals), 1))(*vals)
        check(lib.ns_policy_set_gittins_samples(self._ptr, arr, len(vals)), w,
              names={"gpu_time_samples": "gpu_time_ms"})

    def set_place_fn(self, fn: Callable[[Cluster, Job, Placement], None]) -> None:
        """A Python placement: fn(cluster, job, out) fills the Placement `out`
        (views valid during the call only; the cluster is read-only); raise
        NoSpaceError to make the job wait. Another exception fails the
        decision and decide()/place() re-raise it. Sets the placement to
        CUSTOM."""
        if not callable(fn):
            raise TypeError("Policy.set_place_fn: fn must be callable (got %s)"
                            % type(fn).__name__)
        cb = _PlaceCallback(fn)
        check(lib.ns_policy_set_place_fn(self._ptr, cb.c_fn, None), "Policy.set_place_fn")
        self._callback = cb
        self.set_placement(PlacementKind.CUSTOM)

    def _call(self, rc: int, where: str) -> None:
        cb = self._callback
        err = cb.error if isinstance(cb, _PlaceCallback) else None
        if isinstance(cb, _PlaceCallback):
            cb.error = None
        if err is not None:
            raise err
        check(rc, where)

    @property
    def order(self) -> Order:
        """The queue order."""
        return Order(check(lib.ns_policy_order_of(self._ptr)))

    @property
    def placement(self) -> PlacementKind:
        """The base placement."""
        return PlacementKind(check(lib.ns_policy_placement_of(self._ptr)))

    @property
    def admission(self) -> tuple[Admission, int]:
        """(admission, n)."""
        n = c_int()
        a = check(lib.ns_policy_admission_of(self._ptr, ctypes.byref(n)))
        return (Admission(a), n.value)

    @property
    def cassini(self) -> bool:
        """True if CASSINI ranks the candidates."""
        return bool(check(lib.ns_policy_uses_cassini(self._ptr)))

    @property
    def backfill(self) -> bool:
        """True if a waiting job lets later ones try."""
        return bool(check(lib.ns_policy_backfills(self._ptr)))

    @property
    def has_tuner(self) -> bool:
        """True for Dally's policies (the tuner is the policy's state)."""
        return bool(lib.ns_policy_tuner(self._ptr))

    @property
    def has_cassini_opts(self) -> bool:
        """True when CASSINI's options are built (a CASSINI policy)."""
        return bool(lib.ns_policy_cassini_opts(self._ptr))

    def record_wait(self, tier: int, gpus: int, waited_ms: float, now_ms: float) -> None:
        """Feeds a recorded wait to Dally's tuner (restoring it across processes)."""
        w = "Policy.record_wait"
        t = lib.ns_policy_tuner(self._ptr)
        if not t:
            raise NetschedError("%s: policy '%s' has no delay tuner" % (w, self.name))
        check(lib.ns_delay_tuner_record(t, as_int(tier, w, "tier"), as_int(gpus, w, "gpus"),
                                        as_real(waited_ms, w, "waited_ms"),
                                        as_real(now_ms, w, "now_ms")), w)

    def save(self) -> bytes:
        """The policy's own state (Dally's recorded waits) as versioned bytes,
        to load() into a fresh Policy of the same preset after a restart."""
        need = ctypes.c_size_t(0)
        lib.ns_policy_save(self._ptr, None, 0, ctypes.byref(need))
        buf = ctypes.create_string_buffer(max(need.value, 1))
        check(lib.ns_policy_save(self._ptr, buf, len(buf), ctypes.byref(need)), "Policy.save")
        return buf.value

    def load(self, state: bytes) -> None:
        """Replaces the policy's state by a saved one (InvalidArgumentError
        naming the line if it is not this policy's; then nothing changes)."""
        w = "Policy.load"
        if not isinstance(state, (bytes, bytearray)):
            raise TypeError("%s: state must be bytes (got %s)" % (w, type(state).__name__))
        data = bytes(state)
        check(lib.ns_policy_load(self._ptr, data, len(data)), w)

    def order_key(self, queue: Queue, i: int) -> float:
        """The order key of queue index i (smaller first)."""
        w = "Policy.order_key"
        v = c_double()
        check(lib.ns_policy_order_key(self._ptr, as_handle(queue, Queue, w, "queue"),
                                      as_size(i, w, "i"), ctypes.byref(v)), w)
        return v.value

    def place(self, cluster: Cluster, queue: Queue, i: int, now_ms: float,
              out: Decision | None = None) -> Decision:
        """Queue index i alone offered the free GPUs now."""
        w = "Policy.place"
        d = out if out is not None else Decision()
        self._call(lib.ns_policy_place(self._ptr, as_handle(cluster, Cluster, w, "cluster"),
                                       as_handle(queue, Queue, w, "queue"), as_size(i, w, "i"),
                                       as_real(now_ms, w, "now_ms"), d._ptr), w)
        return d

    def decide(self, cluster: Cluster, queue: Queue, now_ms: float,
               out: Decision | None = None) -> Decision:
        """The whole queue in the policy's order; the cluster is left as it was."""
        return self._on_queue(lib.ns_policy_decide, "Policy.decide", cluster, queue, now_ms, out)

    def preempt(self, cluster: Cluster, queue: Queue, now_ms: float,
                out: Decision | None = None) -> Decision:
        """Dally's pass-by-pass preemption (Order.NW_SENS, no leases): after a
        decision was applied, while jobs wait. The queue holds the waiting
        jobs and, as running, those that may be preempted (committed, with
        their Nw_sens measured now). A waiting job takes the GPUs of running
        jobs whose Nw_sens exceeds its own by more than 5 %, highest first,
        if its placement accepts them: the Decision holds that one start and
        its suspends (release them, then commit the start); ask again at
        once (next_ms == now_ms) until it holds no start. At most 8 offers
        per now_ms."""
        return self._on_queue(lib.ns_policy_preempt, "Policy.preempt", cluster, queue, now_ms, out)

    def _on_queue(self, fn: Any, w: str, cluster: Cluster, queue: Queue, now_ms: float,
                  out: Decision | None) -> Decision:
        """decide / preempt: fn(policy, cluster, queue, now_ms, decision),
        arguments checked and named as the caller wrote them (w)."""
        d = out if out is not None else Decision()
        self._call(fn(self._ptr, as_handle(cluster, Cluster, w, "cluster"),
                      as_handle(queue, Queue, w, "queue"),
                      as_real(now_ms, w, "now_ms"), d._ptr), w)
        return d

    def admit(self, model_bytes: int, others_per_link: Sequence[int] = (),
              tasks_per_server: Sequence[int] = (), remaining_bytes: Sequence[int] = (),
              b_ms_per_byte: float = 1.0, eta_ms_per_byte: float = 0.0) -> bool:
        """Communication admission of one all-reduce about to start (SRSF(n),
        AdaDUAL; "all" admits everything): True to start now, False to wait.
        others_per_link: other all-reduces in flight on each of the job's
        links; tasks_per_server / remaining_bytes: per server of the job, the
        all-reduces in flight and the bytes the one in flight still has
        (AdaDUAL with Eq. 5's b and eta)."""
        w = "Policy.admit"
        links = [as_int(v, w, "others_per_link") for v in others_per_link]
        tasks = [as_int(v, w, "tasks_per_server") for v in tasks_per_server]
        rem = [as_u64(v, w, "remaining_bytes") for v in remaining_bytes]
        if len(rem) != len(tasks):
            raise InvalidArgumentError("%s: remaining_bytes has %d entries, tasks_per_server %d"
                                       % (w, len(rem), len(tasks)))
        start = c_int(0)
        check(lib.ns_policy_admit(self._ptr, as_u64(model_bytes, w, "model_bytes"),
                                  (c_int * max(len(links), 1))(*links), len(links),
                                  (c_int * max(len(tasks), 1))(*tasks),
                                  (ctypes.c_uint64 * max(len(rem), 1))(*rem), len(tasks),
                                  as_real(b_ms_per_byte, w, "b_ms_per_byte"),
                                  as_real(eta_ms_per_byte, w, "eta_ms_per_byte"),
                                  ctypes.byref(start)), w)
        return bool(start.value)

    def started(self, job: Job, now_ms: float) -> None:
        """Report back: the job started."""
        w = "Policy.started"
        check(lib.ns_policy_started(self._ptr, as_handle(job, Job, w, "job"),
                                    as_real(now_ms, w, "now_ms")), w)

    def finished(self, job: Job, now_ms: float) -> None:
        """Report back: the job finished (the policy forgets it)."""
        w = "Policy.finished"
        check(lib.ns_policy_finished(self._ptr, as_handle(job, Job, w, "job"),
                                     as_real(now_ms, w, "now_ms")), w)

    def suspended(self, job: Job, now_ms: float) -> None:
        """Report back: the job was suspended (it waits again from now)."""
        w = "Policy.suspended"
        check(lib.ns_policy_suspended(self._ptr, as_handle(job, Job, w, "job"),
                                      as_real(now_ms, w, "now_ms")), w)

    def progress(self, job: Job, iters_done: float, run_ms: float, now_ms: float) -> None:
        """Report back: measured iterations done and ms run (Dally's Nw_sens)."""
        w = "Policy.progress"
        check(lib.ns_policy_progress(self._ptr, as_handle(job, Job, w, "job"),
                                     as_real(iters_done, w, "iters_done"),
                                     as_real(run_ms, w, "run_ms"), as_real(now_ms, w, "now_ms")), w)

    def report_iteration(self, job: Job, compute_ms: float, allreduce_ms: float) -> None:
        """Report back (CASSINI): the job (re)started on its placement, where
        an iteration is compute_ms then its all-reduce alone, allreduce_ms.
        Starts a new record: any schedule it had is dropped. Call it at every
        start and resume."""
        w = "Policy.report_iteration"
        check(lib.ns_policy_report_iteration(self._ptr, as_handle(job, Job, w, "job"),
                                             as_real(compute_ms, w, "compute_ms"),
                                             as_real(allreduce_ms, w, "allreduce_ms")), w)

    def report_shifted(self, job: Job, slot_ms: float) -> None:
        """Report back (CASSINI): the job's time-shift was applied; its next
        compute starts at slot_ms (its ideal schedule from there)."""
        w = "Policy.report_shifted"
        _check_report(lib.ns_policy_report_shifted(self._ptr, as_handle(job, Job, w, "job"),
                                                   as_real(slot_ms, w, "slot_ms")), w)

    def report_allreduce(self, cluster: Cluster, job: Job, start_ms: float,
                         out: Decision | None = None) -> DriftAnswer:
        """Report back (CASSINI), at every all-reduce start of a running job
        (committed on `cluster`): whether it drifted more than the threshold
        off its schedule and what to do (DriftAnswer: Drift.NONE, SHIFTS with
        the new shifts in .decision, HOLD until .hold_until_ms, DROPPED)."""
        w = "Policy.report_allreduce"
        d = out if out is not None else Decision()
        hold = c_double()
        rc = lib.ns_policy_report_allreduce(self._ptr, as_handle(cluster, Cluster, w, "cluster"),
                                            as_handle(job, Job, w, "job"),
                                            as_real(start_ms, w, "start_ms"), d._ptr,
                                            ctypes.byref(hold))
        action = _check_report(rc, w, names={"c": "cluster"})
        return DriftAnswer(Drift(action), hold.value, d)

    @property
    def readjust_count(self) -> int:
        """All-reduces that drifted past the threshold and were acted on."""
        return int(lib.ns_policy_readjust_count(self._ptr))


__all__ = ["Policy", "Queue", "Decision", "Order", "PlacementKind", "Admission", "DriftRule",
           "Drift", "DriftAnswer", "presets", "preset_parts"]
