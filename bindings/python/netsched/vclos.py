"""vClos / OCS-vClos: link-isolated virtual Clos placement and source
routing (vclos.h). The placement's reserved links and virtual leaf/spine
counts are Placement.links, .virtual_leaves, .virtual_spines."""

from __future__ import annotations

import ctypes
from ctypes import c_int

from ._clib import lib
from ._handle import Handle, as_flag, as_handle, as_int, as_real
from .core import Cluster, Job, Placement, fill_placement
from .errors import check


class Options(Handle):
    """vClos options: use_milp=True solves Stage 2/3 with the CBC ILP,
    False (default) with the exact combinatorial search; power_of_two=True
    sizes Stage 2 as s = T * 2^j (plain halving-doubling) instead of the
    paper's smallest multiple of T."""

    _free_fn = "ns_vclos_opts_free"

    def __init__(self, use_milp: bool | None = None, time_limit_ms: float | None = None,
                 power_of_two: bool | None = None) -> None:
        super().__init__(lib.ns_vclos_opts_new())
        with self._closing_on_error():
            if power_of_two is not None:
                self.set_power_of_two(power_of_two)
            if use_milp is not None:
                self.set_solver(use_milp)
            if time_limit_ms is not None:
                self.set_time_limit_ms(time_limit_ms)

    def set_solver(self, use_milp: bool) -> None:
        """True: Stages 2/3 with the CBC ILP; False: the exact combinatorial search."""
        check(lib.ns_vclos_opts_set_solver(self._ptr, as_flag(use_milp,
                                                              "vclos.Options.set_solver",
                                                              "use_milp")))

    def set_power_of_two(self, enabled: bool) -> None:
        """True: s = T * 2^j, l doubled only; False: the paper's sizing."""
        check(lib.ns_vclos_opts_set_power_of_two(
            self._ptr, as_flag(enabled, "vclos.Options.set_power_of_two", "enabled")))

    def set_time_limit_ms(self, ms: float) -> None:
        """Wall-clock limit per CBC solve (SolverError when hit)."""
        check(lib.ns_vclos_opts_set_time_limit_ms(
            self._ptr, as_real(ms, "vclos.Options.set_time_limit_ms", "ms")))


def place(cluster: Cluster, job: Job, opts: Options | None = None,
          out: Placement | None = None) -> Placement:
    """An isolated virtual Clos for the job (Stages 0-3). The placement may
    hold more GPUs than the job asks (sizes are rounded up). NoSpaceError if
    the job cannot be placed now."""
    w = "vclos.place"
    cp, jp = as_handle(cluster, Cluster, w, "cluster"), as_handle(job, Job, w, "job")
    if opts is None:
        with Options() as defaults:
            return place(cluster, job, defaults, out)
    op = as_handle(opts, Options, w, "opts")
    return fill_placement(w, out, lambda pp: lib.ns_vclos_place(cp, jp, op, pp))


def place_ex(cluster: Cluster, job: Job, opts: Options | None = None,
             out: Placement | None = None) -> tuple[Placement, int]:
    """As place(), returning (placement, stage that decided: 0-3)."""
    w = "vclos.place_ex"
    cp, jp = as_handle(cluster, Cluster, w, "cluster"), as_handle(job, Job, w, "job")
    if opts is None:
        with Options() as defaults:
            return place_ex(cluster, job, defaults, out)
    op = as_handle(opts, Options, w, "opts")
    stage = c_int(-1)
    p = fill_placement(w, out, lambda pp: lib.ns_vclos_place_ex(cp, jp, op, pp,
                                                                ctypes.byref(stage)))
    return p, stage.value


def route_links(cluster: Cluster, src_gpu: int, dst_gpu: int) -> tuple[int, int, int]:
    """(spine, up_link, down_link): as route(), plus the indexes of the
    uplink and downlink in the committed job's placement links (-1 when no
    spine is crossed)."""
    w = "vclos.route_links"
    spine, up, down = c_int(-1), c_int(-1), c_int(-1)
    check(lib.ns_vclos_route_links(as_handle(cluster, Cluster, w, "cluster"),
                                   as_int(src_gpu, w, "src_gpu"), as_int(dst_gpu, w, "dst_gpu"),
                                   ctypes.byref(spine), ctypes.byref(up), ctypes.byref(down)))
    return (spine.value, up.value, down.value)


def ocs_free_leaf_ports(cluster: Cluster, leaf: int, ocs: int) -> int:
    """Free leaf ports of `leaf` on OCS `ocs` (StateError without OCS)."""
    w = "vclos.ocs_free_leaf_ports"
    return check(lib.ns_cluster_ocs_free_leaf_ports(as_handle(cluster, Cluster, w, "cluster"),
                                                    as_int(leaf, w, "leaf"),
                                                    as_int(ocs, w, "ocs")))


def ocs_free_spine_ports(cluster: Cluster, spine: int, ocs: int) -> int:
    """Free spine ports of `spine` on OCS `ocs` (StateError without OCS)."""
    w = "vclos.ocs_free_spine_ports"
    return check(lib.ns_cluster_ocs_free_spine_ports(as_handle(cluster, Cluster, w, "cluster"),
                                                     as_int(spine, w, "spine"),
                                                     as_int(ocs, w, "ocs")))


def route(cluster: Cluster, src_gpu: int, dst_gpu: int) -> int:
    """Source routing: the spine cross-leaf traffic from src_gpu to dst_gpu takes."""
    w = "vclos.route"
    spine = c_int(-1)
    check(lib.ns_vclos_route(as_handle(cluster, Cluster, w, "cluster"),
                             as_int(src_gpu, w, "src_gpu"), as_int(dst_gpu, w, "dst_gpu"),
                             ctypes.byref(spine)))
    return spine.value


__all__ = ["Options", "place", "place_ex", "route", "route_links", "ocs_free_leaf_ports",
           "ocs_free_spine_ports"]

