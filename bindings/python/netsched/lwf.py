"""LWF-kappa (Wang et al.): least-workload-first GPU placement, and the
baselines the paper compares against (lwf.h). Per-GPU workloads live on the
cluster: Cluster.set_gpu_workload_ms / Cluster.gpu_workload_ms.

Every function returns a Placement (a new one, or `out` filled) and raises
NoSpaceError when the job cannot be placed now. The cluster is not changed:
commit the placement with Cluster.commit."""

from typing import Optional, Tuple

from ._clib import Pointer, lib
from ._handle import as_handle, as_int, as_u64
from .core import Cluster, Job, Placement, fill_placement


def _cj(cluster: Cluster, job: Job, where: str) -> Tuple[Pointer, Pointer]:
    return as_handle(cluster, Cluster, where, "cluster"), as_handle(job, Job, where, "job")


def place(cluster: Cluster, job: Job, kappa: int,
          out: Optional[Placement] = None) -> Placement:
    """Algorithm 1 with consolidation threshold kappa (1 is the paper's best)."""
    cp, jp = _cj(cluster, job, "lwf.place")
    k = as_int(kappa, "lwf.place", "kappa")
    return fill_placement("lwf.place", out, lambda pp: lib.ns_lwf_place(cp, jp, k, pp))


def first_fit(cluster: Cluster, job: Job, out: Optional[Placement] = None) -> Placement:
    """FF: the lowest-numbered GPUs that can host the job."""
    cp, jp = _cj(cluster, job, "lwf.first_fit")
    return fill_placement("lwf.first_fit", out, lambda pp: lib.ns_place_first_fit(cp, jp, pp))


def list_scheduling(cluster: Cluster, job: Job,
                    out: Optional[Placement] = None) -> Placement:
    """LS: the GPUs with least workload (ties: lowest id)."""
    cp, jp = _cj(cluster, job, "lwf.list_scheduling")
    return fill_placement("lwf.list_scheduling", out,
                          lambda pp: lib.ns_place_list_scheduling(cp, jp, pp))


def random(cluster: Cluster, job: Job, seed: int,
           out: Optional[Placement] = None) -> Placement:
    """RAND: uniformly random GPUs from a deterministic generator seeded by `seed`."""
    cp, jp = _cj(cluster, job, "lwf.random")
    s = as_u64(seed, "lwf.random", "seed")
    return fill_placement("lwf.random", out, lambda pp: lib.ns_place_random(cp, jp, s, pp))


__all__ = ["place", "first_fit", "list_scheduling", "random"]
