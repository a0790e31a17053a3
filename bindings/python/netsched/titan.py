"""Titan: non-idle-machine-aware worker placement and collective traffic
(titan.h)."""

from __future__ import annotations

import ctypes
from ctypes import c_uint64
from typing import Any, Callable

from ._clib import TITAN_PAIR_FN, lib
from ._handle import Handle, as_enum, as_handle, as_int, as_real, as_u64
from .core import Cluster, Collective, CollectiveLike, Job, Placement, fill_placement
from .errors import check

#: A pair-bandwidth function: (server_a, server_b) -> Gbps between them.
PairBandwidthFn = Callable[[int, int], float]


class Options(Handle):
    """Titan options: the seed of its randomised steps, the pair bandwidth
    P_{s,s'} (a Python callable (server_a, server_b) -> Gbps, or None for
    the cluster's default) and the per-phase time budget in ms."""

    _free_fn = "ns_titan_opts_free"

    def __init__(self, seed: int | None = None, pair_bandwidth: PairBandwidthFn | None = None,
                 phase_budget_ms: float | None = None) -> None:
        super().__init__(lib.ns_titan_opts_new())
        self._pair_cb: Any = None  # the ctypes thunk of pair_bandwidth
        with self._closing_on_error():
            if seed is not None:
                self.set_seed(seed)
            if pair_bandwidth is not None:
                self.set_pair_bandwidth(pair_bandwidth)
            if phase_budget_ms is not None:
                self.set_phase_budget_ms(phase_budget_ms)

    def set_seed(self, seed: int) -> None:
        """Seed of the tie-break among equally good machines (any uint64):
        the placement is a function of (cluster, job, seed)."""
        check(lib.ns_titan_opts_set_seed(self._ptr, as_u64(seed, "titan.Options.set_seed",
                                                            "seed")))

    def set_pair_bandwidth(self, fn: PairBandwidthFn | None) -> None:
        """P_{a,b} in Gbps from fn(a, b); None restores the default. An
        exception in fn counts as NaN: place() raises InvalidArgumentError."""
        if fn is None:
            null_fn = TITAN_PAIR_FN()  # type: ignore[call-overload]  # a NULL function pointer
            check(lib.ns_titan_opts_set_pair_bandwidth_fn(self._ptr, null_fn, None))
            self._pair_cb = None
            return
        if not callable(fn):
            raise TypeError("titan.Options.set_pair_bandwidth: fn must be callable or None "
                            "(got %s)" % type(fn).__name__)
        pair = fn

        def call(a: int, b: int, _user: int | None) -> float:
            try:
                return float(pair(a, b))
            except Exception:  # noqa: BLE001 - reported as NaN, i.e. NS_EINVAL
                return float("nan")

        cb = TITAN_PAIR_FN(call)
        check(lib.ns_titan_opts_set_pair_bandwidth_fn(self._ptr, cb, None))
        self._pair_cb = cb  # keep the thunk alive while the options use it

    def set_phase_budget_ms(self, ms: float) -> None:
        """Time budget of each collective phase in ms (finite, > 0): a phase
        moving C bytes from s to s' must fit it at P_{s,s'}."""
        check(lib.ns_titan_opts_set_phase_budget_ms(
            self._ptr, as_real(ms, "titan.Options.set_phase_budget_ms", "ms")))


def place(cluster: Cluster, job: Job, opts: Options | None = None,
          out: Placement | None = None) -> Placement:
    """Worker placement preferring non-idle machines (Alg. 3). Worker i of
    the job's collective runs on placement GPU i. NoSpaceError if the job
    cannot be placed now."""
    w = "titan.place"
    cp, jp = as_handle(cluster, Cluster, w, "cluster"), as_handle(job, Job, w, "job")
    if opts is None:
        with Options() as defaults:
            return place(cluster, job, defaults, out)
    op = as_handle(opts, Options, w, "opts")
    return fill_placement(w, out, lambda pp: lib.ns_titan_place(cp, jp, op, pp))


def collective_traffic(collective: CollectiveLike, workers: int, nbytes: int, phase: int,
                       src: int, dst: int) -> int:
    """Bytes worker `src` sends worker `dst` in `phase` (C^t_{n,n'})."""
    w = "titan.collective_traffic"
    out = c_uint64()
    check(lib.ns_collective_traffic(as_enum(collective, Collective, w, "collective"),
                                    as_int(workers, w, "workers"), as_u64(nbytes, w, "nbytes"),
                                    as_int(phase, w, "phase"), as_int(src, w, "src"),
                                    as_int(dst, w, "dst"), ctypes.byref(out)),
          w, {"c": "collective", "bytes": "nbytes", "from": "src", "to": "dst"})
    return int(out.value)


def cross_machine_bytes(job: Job, placement: Placement) -> int:
    """Bytes the job's collective sends between workers on different
    servers (all phases, both directions), worker i on placement GPU i."""
    w = "titan.cross_machine_bytes"
    out = c_uint64()
    check(lib.ns_collective_cross_machine_bytes(as_handle(job, Job, w, "job"),
                                                as_handle(placement, Placement, w, "placement"),
                                                ctypes.byref(out)))
    return int(out.value)


def collective_phase_count(collective: CollectiveLike, workers: int) -> int:
    """Number of phases of `collective` on `workers` workers."""
    w = "titan.collective_phase_count"
    return check(lib.ns_collective_phase_count(as_enum(collective, Collective, w, "collective"),
                                               as_int(workers, w, "workers")),
                 w, {"c": "collective"})


__all__ = ["Options", "place", "collective_traffic", "cross_machine_bytes",
           "collective_phase_count"]

