"""vClos / OCS-vClos: link-isolated virtual Clos placement and source
routing (vclos.h). The placement's reserved links and virtual leaf/spine
counts are Placement.links, .virtual_leaves, .virtual_spines."""

import ctypes
from ctypes import c_int

from ._clib import lib
from ._handle import Handle, as_flag, as_handle, as_int
from .core import Cluster, Job, fill_placement
from .errors import check


class Options(Handle):
    """vClos options: use_milp=True solves Stage 2/3 with the CBC ILP,
    False (default) with the exact combinatorial search."""

    _free_fn = "ns_vclos_opts_free"

    def __init__(self, use_milp=None):
        super().__init__(lib.ns_vclos_opts_new())
        try:
            if use_milp is not None:
                self.set_solver(use_milp)
        except BaseException:
            self.close()
            raise

    def set_solver(self, use_milp):
        check(lib.ns_vclos_opts_set_solver(self._ptr, as_flag(use_milp,
                                                              "vclos.Options.set_solver",
                                                              "use_milp")))


def place(cluster, job, opts=None, out=None):
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


def route(cluster, src_gpu, dst_gpu):
    """Source routing: the spine cross-leaf traffic from src_gpu to dst_gpu takes."""
    w = "vclos.route"
    spine = c_int(-1)
    check(lib.ns_vclos_route(as_handle(cluster, Cluster, w, "cluster"),
                             as_int(src_gpu, w, "src_gpu"), as_int(dst_gpu, w, "dst_gpu"),
                             ctypes.byref(spine)))
    return spine.value
