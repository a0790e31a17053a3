"""CASSINI (NSDI'24): link compatibility score, Affinity-graph time-shifts,
candidate ranking (cassini.h).

    with Job("a", 2, iteration_ms=100, phases=[(50, 100), (50, 0)]) as a, \\
         Job("b", 2, iteration_ms=100, phases=[(50, 100), (50, 0)]) as b, \\
         Link("l0", 100, [a, b]) as link:
        s, shifts = cassini.score(link)     # 1.0, [0.0, 50.0]
"""

from __future__ import annotations

import ctypes
from ctypes import c_double, c_size_t
from typing import Iterable, Mapping, NamedTuple, Sequence

from ._clib import CANDIDATE, JOB, lib
from ._handle import Handle, as_handle, as_int, as_real, check_nan
from .core import Cluster, Job, Link, Placement
from .errors import check


class Score(NamedTuple):
    """Table 1 optimum for one link: score in [0, 1] and the
    time-shift t_j^l (ms, Eq. 5) of each job in the order added to the link."""
    score: float
    shifts_ms: list[float]


class Ranking(NamedTuple):
    """Algorithm 2: index of the best candidate and every
    candidate's score (NaN for a candidate whose Affinity graph has a loop)."""
    best: int
    scores: list[float]


class Options(Handle):
    """Solver options (paper defaults: 5 degree angle step, 1 ms time
    quantum, 1 thread)."""

    _free_fn = "ns_cassini_opts_free"

    def __init__(self, angle_step_deg: float | None = None, time_quantum_ms: float | None = None,
                 threads: int | None = None, drift_fraction: float | None = None) -> None:
        super().__init__(lib.ns_cassini_opts_new())
        with self._closing_on_error():
            if drift_fraction is not None:
                self.set_drift_fraction(drift_fraction)
            if angle_step_deg is not None:
                self.set_angle_step_deg(angle_step_deg)
            if time_quantum_ms is not None:
                self.set_time_quantum_ms(time_quantum_ms)
            if threads is not None:
                self.set_threads(threads)

    def set_angle_step_deg(self, deg: float) -> None:
        """Discretisation of the unified circle, 0 < deg <= 180 (360/deg bins
        per longest iteration)."""
        d = as_real(deg, "cassini.Options.set_angle_step_deg", "deg")
        check(lib.ns_cassini_opts_set_angle_step_deg(self._ptr, d))

    def set_time_quantum_ms(self, ms: float) -> None:
        """Rounding step of iteration times for the perimeter LCM, ms > 0."""
        m = as_real(ms, "cassini.Options.set_time_quantum_ms", "ms")
        check(lib.ns_cassini_opts_set_time_quantum_ms(self._ptr, m))

    def set_threads(self, threads: int) -> None:
        """Threads rank() uses, 1..256 (results identical for every count)."""
        t = as_int(threads, "cassini.Options.set_threads", "threads")
        check(lib.ns_cassini_opts_set_threads(self._ptr, t))

    def set_drift_fraction(self, fraction: float) -> None:
        """Drift (fraction of the iteration) that triggers re-adjustment."""
        f = as_real(fraction, "cassini.Options.set_drift_fraction", "fraction")
        check(lib.ns_cassini_opts_set_drift_fraction(self._ptr, f))

    @property
    def drift_fraction(self) -> float:
        """Drift (fraction of the iteration) that triggers re-adjustment."""
        return check_nan(lib.ns_cassini_opts_drift_fraction(self._ptr))

    @property
    def angle_step_deg(self) -> float:
        """Discretisation of the unified circle, in degrees."""
        return check_nan(lib.ns_cassini_opts_angle_step_deg(self._ptr))

    @property
    def time_quantum_ms(self) -> float:
        """Rounding step of iteration times for the perimeter LCM, in ms."""
        return check_nan(lib.ns_cassini_opts_time_quantum_ms(self._ptr))

    @property
    def threads(self) -> int:
        """Threads rank() uses."""
        return check(lib.ns_cassini_opts_threads(self._ptr))


def score(link: Link, opts: Options | None = None) -> Score:
    """Compatibility score of the jobs on `link` and their time-shifts."""
    lp = as_handle(link, Link, "cassini.score", "link")
    if opts is None:
        with Options() as defaults:
            return score(link, defaults)
    op = as_handle(opts, Options, "cassini.score", "opts")
    n = len(link)
    s = c_double()
    shifts = (c_double * max(n, 1))()
    check(lib.ns_cassini_score(lp, op, ctypes.byref(s), shifts, n))
    return Score(s.value, list(shifts[:n]))


def score_at(link: Link, shifts_ms: Sequence[float], opts: Options | None = None) -> float:
    """Eq. 2 in continuous time when the i-th job of the link is delayed by
    shifts_ms[i] (e.g. to check shifts from Affinity.solve on a link)."""
    w = "cassini.score_at"
    lp = as_handle(link, Link, w, "link")
    if opts is None:
        with Options() as defaults:
            return score_at(link, shifts_ms, defaults)
    op = as_handle(opts, Options, w, "opts")
    try:
        shifts = [as_real(s, w, "shifts_ms") for s in shifts_ms]
    except TypeError:
        if not hasattr(shifts_ms, "__iter__"):
            raise TypeError("%s: shifts_ms must be a sequence of numbers" % w)
        raise
    arr = (c_double * max(len(shifts), 1))(*shifts)
    s = c_double()
    check(lib.ns_cassini_score_at(lp, op, arr, len(shifts), ctypes.byref(s)))
    return float(s.value)


def perimeter(link: Link, opts: Options | None = None) -> tuple[float, float]:
    """(perimeter_ms, quantum_ms): the unified circle of the link's jobs and
    the time quantum actually used after coarsening."""
    w = "cassini.perimeter"
    lp = as_handle(link, Link, w, "link")
    if opts is None:
        with Options() as defaults:
            return perimeter(link, defaults)
    op = as_handle(opts, Options, w, "opts")
    p, q = c_double(), c_double()
    check(lib.ns_cassini_link_perimeter(lp, op, ctypes.byref(p), ctypes.byref(q)))
    return (p.value, q.value)


class _Borrower(Handle):
    """A handle whose C object keeps pointers to jobs and links."""

    _refs: list[Handle]

    def _keep(self, *objs: Handle) -> None:
        self._refs.extend(objs)
        for o in objs:
            o._lend_to(self)

    def _release_borrowed(self) -> None:
        refs, self._refs = self._refs, []
        for o in refs:
            o._unlend(self)


class Affinity(_Borrower):
    """The bipartite Affinity graph of jobs and shared links (Section 4.1)."""

    _free_fn = "ns_affinity_free"

    def __init__(self) -> None:
        super().__init__(lib.ns_affinity_new())
        self._refs = []

    def add_edge(self, job: Job, link: Link, shift_ms: float) -> None:
        """Edge (job, link) of weight w = t_j^l."""
        w = "cassini.Affinity.add_edge"
        jp, lp = as_handle(job, Job, w, "job"), as_handle(link, Link, w, "link")
        check(lib.ns_affinity_add_edge(self._ptr, jp, lp, as_real(shift_ms, w, "shift_ms")))
        self._keep(job, link)

    def has_loop(self) -> bool:
        """True if the graph has a cycle (then solve() raises LoopError)."""
        return bool(check(lib.ns_affinity_has_loop(self._ptr)))

    def solve(self) -> None:
        """Algorithm 1: unique per-job shifts (LoopError on a cycle)."""
        check(lib.ns_affinity_solve(self._ptr))

    def shift_ms(self, job: Job) -> float:
        """The job's unique time-shift in ms, once solve() ran."""
        out = c_double()
        jp = as_handle(job, Job, "cassini.Affinity.shift_ms", "job")
        check(lib.ns_affinity_shift_ms(self._ptr, jp, ctypes.byref(out)))
        return float(out.value)


class Candidate(_Borrower):
    """One candidate placement: the (job, link) pairs it would create."""

    _free_fn = "ns_candidate_free"

    def __init__(self, pairs: Iterable[tuple[Job, Link]] = ()) -> None:
        super().__init__(lib.ns_candidate_new())
        self._refs = []
        with self._closing_on_error():
            for job, link in pairs:
                self.add(job, link)

    def add(self, job: Job, link: Link) -> None:
        """Adds the pair: `job` would share `link` in this placement."""
        w = "cassini.Candidate.add"
        jp, lp = as_handle(job, Job, w, "job"), as_handle(link, Link, w, "link")
        check(lib.ns_candidate_add(self._ptr, jp, lp))
        self._keep(job, link)

    @classmethod
    def from_cluster(cls, cluster: Cluster, job: Job, placement: Placement) -> Candidate:
        """The candidate of `job` on `placement`: the links it would share
        with the jobs committed on `cluster` (their NIC ports and ECMP
        leaf-spine links), built by the library."""
        w = "cassini.Candidate.from_cluster"
        cp = as_handle(cluster, Cluster, w, "cluster")
        jp, pp = as_handle(job, Job, w, "job"), as_handle(placement, Placement, w, "placement")
        cand = cls()
        with cand._closing_on_error():
            check(lib.ns_cassini_candidate_from_cluster(cand._ptr, cp, jp, pp))
            cand._keep(job, *cluster.committed_jobs)
        return cand

    def readjust(self, measured_iteration_ms: Mapping[Job, float] | Iterable[tuple[Job, float]],
                 opts: Options | None = None) -> int:
        """§5.7: {job: measured iteration ms} of this (ranked best)
        candidate's jobs; recomputes the shifts if any drifted beyond the
        threshold. Returns how many jobs drifted."""
        if opts is None:
            with Options() as defaults:
                return self.readjust(measured_iteration_ms, defaults)
        w = "cassini.Candidate.readjust"
        try:
            items = list(dict(measured_iteration_ms).items())
        except (TypeError, ValueError):  # not a mapping or (job, ms) pairs: a type error
            raise TypeError("%s: measured_iteration_ms must be a {Job: ms} mapping (got %s)"
                            % (w, type(measured_iteration_ms).__name__)) from None
        jobs = (JOB * max(len(items), 1))()
        vals = (c_double * max(len(items), 1))()
        for i, (job, ms) in enumerate(items):
            jobs[i] = as_handle(job, Job, w, "job")
            vals[i] = as_real(ms, w, "measured_iteration_ms")
        out = c_size_t()
        check(lib.ns_cassini_readjust(self._ptr, as_handle(opts, Options, w, "opts"), jobs,
                                      vals, len(items), ctypes.byref(out)))
        return int(out.value)

    def shift_ms(self, job: Job) -> float:
        """The job's time-shift in this candidate, once rank() picked it."""
        out = c_double()
        jp = as_handle(job, Job, "cassini.Candidate.shift_ms", "job")
        check(lib.ns_candidate_shift_ms(self._ptr, jp, ctypes.byref(out)))
        return float(out.value)


def rank(candidates: Iterable[Candidate], opts: Options | None = None) -> Ranking:
    """Algorithm 2 over a sequence of Candidate: Ranking(best, scores)."""
    cands = list(candidates) if not isinstance(candidates, Candidate) else None
    if cands is None:
        raise TypeError("cassini.rank: candidates must be a sequence of Candidate")
    ptrs = (CANDIDATE * max(len(cands), 1))()
    for i, c in enumerate(cands):
        ptrs[i] = as_handle(c, Candidate, "cassini.rank", "candidates[%d]" % i)
    if opts is None:
        with Options() as defaults:
            return rank(cands, defaults)
    op = as_handle(opts, Options, "cassini.rank", "opts")
    best = c_size_t()
    scores = (c_double * max(len(cands), 1))()
    check(lib.ns_cassini_rank(ptrs, len(cands), op, ctypes.byref(best), scores))
    return Ranking(best.value, list(scores[:len(cands)]))


__all__ = ["Options", "Score", "Ranking", "score", "score_at", "perimeter", "Affinity",
           "Candidate", "rank"]

