"""Dally: delay scheduling with auto-tuned timers and network-sensitive
priority (dally.h)."""

from __future__ import annotations

import ctypes
from ctypes import c_double, c_int, c_size_t
from typing import Iterable

from ._clib import lib
from ._handle import Handle, as_enum, as_flag, as_handle, as_int, as_real, as_u64, check_nan
from .core import Cluster, Job, Placement, Tier, TierLike, fill_placement
from .errors import check

#: The paper's default timers when a wait list has fewer than 2 samples: 12 h.
DEFAULT_TIMER_MS = 12 * 3600 * 1000.0


class DelayTuner(Handle):
    """Per-(tier, GPU demand) wait history; timers = mean + 2 sd of the waits
    younger than history_limit_ms."""

    _free_fn = "ns_delay_tuner_free"

    def __init__(self, history_limit_ms: float, default_machine_ms: float = DEFAULT_TIMER_MS,
                 default_rack_ms: float = DEFAULT_TIMER_MS) -> None:
        w = "dally.DelayTuner"
        super().__init__(lib.ns_delay_tuner_new(as_real(history_limit_ms, w, "history_limit_ms"),
                                                as_real(default_machine_ms, w,
                                                        "default_machine_ms"),
                                                as_real(default_rack_ms, w, "default_rack_ms")))

    def record(self, tier: TierLike, gpus: int, waited_ms: float, now_ms: float) -> None:
        """Records that a `gpus`-GPU job waited `waited_ms` for a `tier` placement."""
        w = "dally.DelayTuner.record"
        check(lib.ns_delay_tuner_record(self._ptr, as_enum(tier, Tier, w, "tier"),
                                        as_int(gpus, w, "gpus"), as_real(waited_ms, w, "waited_ms"),
                                        as_real(now_ms, w, "now_ms")))

    def timers(self, gpus: int, now_ms: float) -> tuple[float, float]:
        """(machine_ms, rack_ms) delay timers for a `gpus`-GPU job at now_ms."""
        w = "dally.DelayTuner.timers"
        m, r = c_double(), c_double()
        check(lib.ns_delay_tuner_timers(self._ptr, as_int(gpus, w, "gpus"),
                                        as_real(now_ms, w, "now_ms"), ctypes.byref(m),
                                        ctypes.byref(r)))
        return (m.value, r.value)

    def set_manual(self, manual: bool) -> None:
        """True fixes the timers to the defaults (Dally-manual); waits are
        still recorded so False resumes tuning with the history."""
        check(lib.ns_delay_tuner_set_manual(self._ptr, as_flag(manual,
                                                               "dally.DelayTuner.set_manual",
                                                               "manual")))

    def sample_count(self, tier: TierLike, gpus: int, now_ms: float) -> int:
        """Live waits in the (tier, gpus) list at now_ms."""
        w = "dally.DelayTuner.sample_count"
        n = c_size_t()
        check(lib.ns_delay_tuner_sample_count(self._ptr, as_enum(tier, Tier, w, "tier"),
                                              as_int(gpus, w, "gpus"),
                                              as_real(now_ms, w, "now_ms"), ctypes.byref(n)))
        return int(n.value)

    def checkpoint(self) -> None:
        """Opens a checkpoint (committing an open one): rollback() undoes the
        waits recorded and the clock advanced after it, commit() keeps them."""
        check(lib.ns_delay_tuner_checkpoint(self._ptr))

    def rollback(self) -> None:
        """Back to the open checkpoint (StateError if none is open); closes it."""
        check(lib.ns_delay_tuner_rollback(self._ptr))

    def commit(self) -> None:
        """Keeps what was recorded since the open checkpoint and closes it
        (nothing happens if none is open)."""
        check(lib.ns_delay_tuner_commit(self._ptr))

    def swap(self, other: DelayTuner) -> None:
        """Exchanges everything this tuner and `other` hold; both stay valid."""
        check(lib.ns_delay_tuner_swap(self._ptr, as_handle(other, DelayTuner,
                                                           "dally.DelayTuner.swap", "other")))

    def timers_for(self, cluster: Cluster, gpus: int, now_ms: float) -> tuple[float, float]:
        """(machine_ms, rack_ms) that offer() would use now on `cluster`:
        timers() plus the zero-timer rules for jobs larger than a machine
        or a rack of the cluster."""
        w = "dally.DelayTuner.timers_for"
        m, r = c_double(), c_double()
        check(lib.ns_dally_timers(self._ptr, as_handle(cluster, Cluster, w, "cluster"),
                                  as_int(gpus, w, "gpus"), as_real(now_ms, w, "now_ms"),
                                  ctypes.byref(m), ctypes.byref(r)))
        return (m.value, r.value)

    def offer(self, cluster: Cluster, job: Job, starvation_ms: float, now_ms: float,
              out: Placement | None = None) -> Placement | None:
        """Algorithm 1 on the cluster's free GPUs: the accepted Placement, or
        None if the job should keep waiting (then `out`, if given, is empty).
        On accept the wait is recorded in the tuner."""
        w = "dally.DelayTuner.offer"
        cp, jp = as_handle(cluster, Cluster, w, "cluster"), as_handle(job, Job, w, "job")
        st, now = as_real(starvation_ms, w, "starvation_ms"), as_real(now_ms, w, "now_ms")
        accepted = c_int(0)
        p = fill_placement(w, out, lambda pp: lib.ns_dally_offer(self._ptr, cp, jp, st, now, pp,
                                                                 ctypes.byref(accepted)))
        if accepted.value:
            return p
        if out is None:
            p.close()
        return None


def best_fit(cluster: Cluster, job: Job, out: Placement | None = None) -> Placement:
    """Best-fit consolidation baseline: the fewest servers possible."""
    w = "dally.best_fit"
    cp, jp = as_handle(cluster, Cluster, w, "cluster"), as_handle(job, Job, w, "job")
    return fill_placement(w, out, lambda pp: lib.ns_place_best_fit(cp, jp, pp))


def tiresias(cluster: Cluster, job: Job, skew_threshold_bytes: int,
             out: Placement | None = None) -> Placement:
    """Tiresias-style baseline: consolidate models >= skew_threshold_bytes."""
    w = "dally.tiresias"
    cp, jp = as_handle(cluster, Cluster, w, "cluster"), as_handle(job, Job, w, "job")
    t = as_u64(skew_threshold_bytes, w, "skew_threshold_bytes")
    return fill_placement(w, out, lambda pp: lib.ns_place_tiresias(cp, jp, t, pp))


def priority(iters_done: int, iters_total: int, run_ms: float, ideal_run_ms: float) -> float:
    """Nw_sens = (I_done / I_total) / (T_run / T_ideal); offers go in
    increasing Nw_sens."""
    w = "dally.priority"
    return check_nan(lib.ns_dally_priority(as_u64(iters_done, w, "iters_done"),
                                           as_u64(iters_total, w, "iters_total"),
                                           as_real(run_ms, w, "run_ms"),
                                           as_real(ideal_run_ms, w, "ideal_run_ms")))


def job_priority(job: Job, run_ms: float) -> float:
    """Nw_sens of a job from its iterations and compute times."""
    w = "dally.job_priority"
    return check_nan(lib.ns_dally_job_priority(as_handle(job, Job, w, "job"),
                                               as_real(run_ms, w, "run_ms")))


def offer_order(nw_sens: Iterable[float]) -> list[int]:

    """Indices of the jobs in the order they get offers: increasing Nw_sens,
    ties in input order."""
    w = "dally.offer_order"
    try:
        vals = [as_real(v, w, "nw_sens") for v in nw_sens]
    except TypeError:
        if not hasattr(nw_sens, "__iter__"):
            raise TypeError("%s: nw_sens must be a sequence of numbers" % w)
        raise
    n = len(vals)
    order = (c_size_t * max(n, 1))()
    check(lib.ns_dally_offer_order((c_double * max(n, 1))(*vals), n, order))
    return list(order[:n])


__all__ = ["DelayTuner", "DEFAULT_TIMER_MS", "best_fit", "tiresias", "priority",
           "job_priority", "offer_order"]
