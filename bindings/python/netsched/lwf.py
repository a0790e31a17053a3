"""LWF-kappa (Wang et al.): least-workload-first GPU placement, and the
baselines the paper compares against (lwf.h). Per-GPU workloads live on the
cluster: Cluster.set_gpu_workload_ms / Cluster.gpu_workload_ms.

Every function returns a Placement (a new one, or `out` filled) and raises
NoSpaceError when the job cannot be placed now. The cluster is not changed:
commit the placement with Cluster.commit."""

from ._clib import lib
from ._handle import as_handle, as_int, as_u64
from .core import Cluster, Job, fill_placement


def _cj(cluster, job, where):
    return as_handle(cluster, Cluster, where, "cluster"), as_handle(job, Job, where, "job")


def place(cluster, job, kappa, out=None):
    """Algorithm 1 with consolidation threshold kappa (1 is the paper's best)."""
    cp, jp = _cj(cluster, job, "lwf.place")
    k = as_int(kappa, "lwf.place", "kappa")
    return fill_placement("lwf.place", out, lambda pp: lib.ns_lwf_place(cp, jp, k, pp))


def first_fit(cluster, job, out=None):
    """FF: the lowest-numbered GPUs that can host the job."""
    cp, jp = _cj(cluster, job, "lwf.first_fit")
    return fill_placement("lwf.first_fit", out, lambda pp: lib.ns_place_first_fit(cp, jp, pp))


def list_scheduling(cluster, job, out=None):
    """LS: the GPUs with least workload (ties: lowest id)."""
    cp, jp = _cj(cluster, job, "lwf.list_scheduling")
    return fill_placement("lwf.list_scheduling", out,
                          lambda pp: lib.ns_place_list_scheduling(cp, jp, pp))


def random(cluster, job, seed, out=None):
    """RAND: uniformly random GPUs from a deterministic generator seeded by `seed`."""
    cp, jp = _cj(cluster, job, "lwf.random")
    s = as_u64(seed, "lwf.random", "seed")
    return fill_placement("lwf.random", out, lambda pp: lib.ns_place_random(cp, jp, s, pp))
