"""Core handles: Job, Link, Cluster, Placement; version; enums (core.h)."""

from __future__ import annotations

import ctypes
import enum
from ctypes import c_double, c_int, c_uint64
from typing import Any, Callable, ClassVar, Iterable, Iterator, TypeVar, Union, overload

from ._clib import Pointer, address, lib
from ._handle import (Handle, as_enum, as_flag, as_handle, as_int, as_real, as_size,
                      as_str, as_u64, check_nan)
from .errors import NetschedError, Status, check


class Collective(enum.IntEnum):
    """ns_collective: a job's all-reduce / exchange algorithm."""
    RING = 0
    HALVING_DOUBLING = 1
    TREE = 2
    ALL_TO_ALL = 3


class Tier(enum.IntEnum):
    """ns_tier: locality of a placement."""
    MACHINE = 0
    RACK = 1
    NETWORK = 2


#: What an enum argument accepts: the member, its name ("ring", any case,
#: '-' or '_') or its int value.
CollectiveLike = Union[Collective, str, int]
TierLike = Union[Tier, str, int]

_E = TypeVar("_E", bound=enum.IntEnum)


def version() -> str:
    """Version string of the loaded library, e.g. "0.1.0"."""
    return str(lib.ns_version().decode())


def version_number() -> int:
    """MAJOR*10000 + MINOR*100 + PATCH of the loaded library."""
    return int(lib.ns_version_number())


def closest_name(name: str, names: Iterable[str]) -> str | None:
    """The library's "did you mean" (ns_closest_name): the name of `names`
    closest to `name` by edit distance, within a third of its length and at
    least 2 edits (1 for 1-2 characters), or None. The rule of the
    library's own messages about an unknown preset."""
    w = "closest_name"
    key = as_str(name, w, "name")
    known = list(names)
    arr = (ctypes.c_char_p * max(len(known), 1))(*[as_str(n, w, "names[%d]" % i)
                                                    for i, n in enumerate(known)])
    rc = lib.ns_closest_name(key, arr, len(known))
    if rc == Status.ENOTFOUND:
        return None
    return known[check(rc, w)]


def _enum_or_int(enum_cls: type[_E], v: int) -> _E | int:
    try:
        return enum_cls(v)
    except ValueError:
        return v


# ---------------------------------------------------------------- jobs


class Job(Handle):
    """A training job asking for `gpus` GPUs (ns_job).

    Keyword arguments set the optional fields in one go::

        Job("vgg16", 4, iteration_ms=255, phases=[(141, 0), (114, 50)],
            compute_ms=(35.8, 53.7), model_bytes=526_400_000,
            collective=Collective.RING, iterations=(1000, 0), gpu_memory_mb=8000)
    """

    _free_fn = "ns_job_free"

    def __init__(self, name: str, gpus: int, *, iteration_ms: float | None = None,
                 phases: Iterable[tuple[float, float]] | None = None,
                 compute_ms: tuple[float, float] | None = None, model_bytes: int | None = None,
                 collective: CollectiveLike | None = None,
                 iterations: tuple[int, int] | None = None,
                 gpu_memory_mb: float | None = None) -> None:
        cname = as_str(name, "Job", "name")
        cgpus = as_int(gpus, "Job", "gpus")
        super().__init__(lib.ns_job_new(cname, cgpus))
        with self._closing_on_error():
            # (phases and collective: the setters accept more than the
            # getters return; older mypy, as Debian 12's 1.0, checks an
            # assignment against the getter's type, hence the ignores)
            if iteration_ms is not None:
                self.iteration_ms = iteration_ms
            if phases is not None:
                self.phases = phases  # type: ignore[assignment]
            if compute_ms is not None:
                self.compute_ms = compute_ms
            if model_bytes is not None:
                self.model_bytes = model_bytes
            if collective is not None:
                self.collective = collective  # type: ignore[assignment]
            if iterations is not None:
                self.iterations = iterations
            if gpu_memory_mb is not None:
                self.gpu_memory_mb = gpu_memory_mb

    def __repr__(self) -> str:
        if self.closed:
            return "<Job closed>"
        return "<Job %r gpus=%d>" % (self.name, self.gpus)

    @property
    def name(self) -> str:
        """The job's name (as given to Job(); ns_job_name)."""
        return str(lib.ns_job_name(self._ptr).decode("utf-8", "replace"))

    @property
    def gpus(self) -> int:
        """Number of GPUs the job asks for."""
        return check(lib.ns_job_gpus(self._ptr))

    @property
    def iteration_ms(self) -> float:
        """Iteration time in ms (0.0 while unset)."""
        return check_nan(lib.ns_job_iteration_ms(self._ptr))

    @iteration_ms.setter
    def iteration_ms(self, ms: float) -> None:
        self._mutable("Job.iteration_ms")
        check(lib.ns_job_set_iteration_ms(self._ptr, as_real(ms, "Job.iteration_ms", "iteration_ms")),
              "Job.iteration_ms", {"ms": "iteration_ms"})

    def add_phase(self, duration_ms: float, gbps: float) -> None:
        """Appends a communication phase (phases tile one iteration from t=0)."""
        self._mutable("Job.add_phase")
        d = as_real(duration_ms, "Job.add_phase", "duration_ms")
        g = as_real(gbps, "Job.add_phase", "gbps")
        check(lib.ns_job_add_phase(self._ptr, d, g))

    def clear_phases(self) -> None:
        """Removes every phase (CASSINI's network-demand profile)."""
        self._mutable("Job.clear_phases")
        check(lib.ns_job_clear_phases(self._ptr))

    def phase(self, i: int) -> tuple[float, float]:
        """The i-th phase as (duration_ms, gbps)."""
        d, g = c_double(), c_double()
        check(lib.ns_job_phase(self._ptr, as_size(i, "Job.phase", "i"),
                               ctypes.byref(d), ctypes.byref(g)))
        return (d.value, g.value)

    @property
    def phase_count(self) -> int:
        """Number of phases added with add_phase()."""
        return int(lib.ns_job_phase_count(self._ptr))

    @property
    def phases(self) -> list[tuple[float, float]]:
        """List of (duration_ms, gbps). Assigning replaces them all, or none
        if one is rejected."""
        return [self.phase(i) for i in range(self.phase_count)]

    @phases.setter
    def phases(self, phases: Iterable[tuple[float, float]]) -> None:
        self._mutable("Job.phases")
        try:
            new = [tuple(p) for p in phases]
        except TypeError:
            raise TypeError("Job.phases: must be an iterable of (duration_ms, gbps) pairs")
        for p in new:
            if len(p) != 2:
                raise TypeError("Job.phases: each phase must be a (duration_ms, gbps) pair")
            as_real(p[0], "Job.phases", "duration_ms")
            as_real(p[1], "Job.phases", "gbps")
        old = self.phases
        self.clear_phases()
        try:
            for d, g in new:
                self.add_phase(d, g)
        except NetschedError:
            self.clear_phases()
            for d, g in old:
                lib.ns_job_add_phase(self._ptr, d, g)
            raise

    @property
    def compute_ms(self) -> tuple[float, float]:
        """(forward_ms, backward_ms) of one iteration."""
        f, b = c_double(), c_double()
        check(lib.ns_job_compute_ms(self._ptr, ctypes.byref(f), ctypes.byref(b)))
        return (f.value, b.value)

    @compute_ms.setter
    def compute_ms(self, fb: tuple[float, float]) -> None:
        self.set_compute_ms(*fb)

    def set_compute_ms(self, forward_ms: float, backward_ms: float) -> None:
        """Forward and backward compute time of one iteration, in ms."""
        self._mutable("Job.set_compute_ms")
        f = as_real(forward_ms, "Job.set_compute_ms", "forward_ms")
        b = as_real(backward_ms, "Job.set_compute_ms", "backward_ms")
        check(lib.ns_job_set_compute_ms(self._ptr, f, b))

    @property
    def model_bytes(self) -> int:
        """Bytes of the model all-reduced every iteration."""
        return int(lib.ns_job_model_bytes(self._ptr))

    @model_bytes.setter
    def model_bytes(self, n: int) -> None:
        self._mutable("Job.model_bytes")
        check(lib.ns_job_set_model_bytes(self._ptr, as_u64(n, "Job.model_bytes", "model_bytes")),
              "Job.model_bytes", {"bytes": "model_bytes"})

    @property
    def collective(self) -> Collective | int:
        """The job's collective (a Collective; assign a member or its name)."""
        return _enum_or_int(Collective, check(lib.ns_job_collective(self._ptr)))

    @collective.setter
    def collective(self, c: CollectiveLike) -> None:
        self._mutable("Job.collective")
        check(lib.ns_job_set_collective(self._ptr,
                                        as_enum(c, Collective, "Job.collective", "collective")),
              "Job.collective", {"c": "collective"})

    @property
    def iterations(self) -> tuple[int, int]:
        """(total, completed)."""
        t, d = c_uint64(), c_uint64()
        check(lib.ns_job_iterations(self._ptr, ctypes.byref(t), ctypes.byref(d)))
        return (t.value, d.value)

    @iterations.setter
    def iterations(self, tc: tuple[int, int]) -> None:
        self.set_iterations(*tc)

    def set_iterations(self, total: int, completed: int = 0) -> None:
        """Total iterations and those already completed."""
        self._mutable("Job.set_iterations")
        t = as_u64(total, "Job.set_iterations", "total")
        d = as_u64(completed, "Job.set_iterations", "completed")
        check(lib.ns_job_set_iterations(self._ptr, t, d))

    @property
    def gpu_memory_mb(self) -> float:
        """GPU memory the job needs on each of its GPUs, in MB."""
        return check_nan(lib.ns_job_gpu_memory_mb(self._ptr))

    @gpu_memory_mb.setter
    def gpu_memory_mb(self, mb: float) -> None:
        self._mutable("Job.gpu_memory_mb")
        check(lib.ns_job_set_gpu_memory_mb(self._ptr,
                                           as_real(mb, "Job.gpu_memory_mb", "gpu_memory_mb")),
              "Job.gpu_memory_mb", {"mb": "gpu_memory_mb"})


# ---------------------------------------------------------------- links


class Link(Handle):
    """A standalone link of `capacity_gbps` and the jobs that traverse it.

    The link borrows its jobs (as in C): they stay open while it is."""

    _free_fn = "ns_link_free"

    def __init__(self, name: str | None, capacity_gbps: float, jobs: Iterable[Job] = ()) -> None:
        cname = as_str(name, "Link", "name", allow_none=True)
        cap = as_real(capacity_gbps, "Link", "capacity_gbps")
        super().__init__(lib.ns_link_new(cname, cap))
        self._jobs: list[Job] = []
        with self._closing_on_error():
            for j in jobs:
                self.add_job(j)

    def _init_view(self) -> None:
        self._jobs = []

    def __repr__(self) -> str:
        if self.closed:
            return "<Link closed>"
        return "<Link %r %g Gbps, %d jobs>" % (self.name, self.capacity_gbps, len(self))

    @property
    def name(self) -> str:
        """The link's name."""
        return str(lib.ns_link_name(self._ptr).decode("utf-8", "replace"))

    @property
    def capacity_gbps(self) -> float:
        """The link's capacity in Gbps."""
        return check_nan(lib.ns_link_capacity_gbps(self._ptr))

    def add_job(self, job: Job) -> None:
        """Adds a job that traverses the link (the same job twice is an error)."""
        jp = as_handle(job, Job, "Link.add_job", "job")
        check(lib.ns_link_add_job(self._ptr, jp))
        self._jobs.append(job)
        job._lend_to(self)

    def _release_borrowed(self) -> None:
        jobs, self._jobs = self._jobs, []
        for j in jobs:
            j._unlend(self)

    def __len__(self) -> int:
        return int(lib.ns_link_job_count(self._ptr))

    def job(self, i: int) -> Job:
        """The i-th job added (IndexError if out of range)."""
        p = lib.ns_link_job(self._ptr, as_size(i, "Link.job", "i"))
        if not p:
            raise IndexError("Link.job: i (%d) out of range (%d jobs)" % (i, len(self)))
        a = address(p)
        for j in self._jobs:
            if j._address == a:
                return j
        raise NetschedError("Link.job: the library returned a job these bindings do not know")

    @property
    def jobs(self) -> list[Job]:
        """The jobs sharing this link, in the order they were added."""
        return [self.job(i) for i in range(len(self))]


# ---------------------------------------------------------------- placements


class Placement(Handle):
    """A decision: GPU ids and, for vClos, reserved leaf-spine links and the
    virtual leaf/spine counts. Policy functions return a new one (or fill
    the one passed as `out`)."""

    _free_fn = "ns_placement_free"

    def __init__(self, gpus: Iterable[int] = (), cluster: Cluster | None = None) -> None:
        super().__init__(lib.ns_placement_new())
        with self._closing_on_error():
            if cluster is not None:
                self.bind(cluster)
            for g in gpus:
                self.add_gpu(g)

    def __repr__(self) -> str:
        if self.closed:
            return "<Placement closed>"
        return "<Placement gpus=%r>" % (self.gpus,)

    def add_gpu(self, gpu: int) -> None:
        """Appends GPU id `gpu` (worker i runs on the i-th GPU)."""
        check(lib.ns_placement_add_gpu(self._ptr, as_int(gpu, "Placement.add_gpu", "gpu")))

    def clear(self) -> None:
        """Removes GPUs, links and virtual counts; keeps the binding."""
        lib.ns_placement_clear(self._ptr)

    def bind(self, cluster: Cluster) -> None:
        """Binds the placement to a cluster's geometry (for server_count/tier)."""
        cp = as_handle(cluster, Cluster, "Placement.bind", "cluster")
        check(lib.ns_placement_bind(self._ptr, cp))

    def __len__(self) -> int:
        return int(lib.ns_placement_gpu_count(self._ptr))

    def gpu(self, i: int) -> int:
        """The i-th GPU id of the placement."""
        return check(lib.ns_placement_gpu(self._ptr, as_size(i, "Placement.gpu", "i")))

    @overload
    def __getitem__(self, i: int) -> int: ...
    @overload
    def __getitem__(self, i: slice) -> list[int]: ...

    def __getitem__(self, i: int | slice) -> int | list[int]:
        if isinstance(i, slice):
            return self.gpus[i]
        i = as_int(i, "Placement[]", "i", -(1 << 63), (1 << 63) - 1)
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("Placement index out of range")
        return self.gpu(i)

    def __iter__(self) -> Iterator[int]:
        return iter(self.gpus)

    @property
    def gpus(self) -> list[int]:
        """Every GPU id of the placement, in worker order."""
        return [self.gpu(i) for i in range(len(self))]

    @property
    def server_count(self) -> int:
        """Distinct servers used (StateError if never bound)."""
        return check(lib.ns_placement_server_count(self._ptr))

    @property
    def tier(self) -> Tier:
        """The smallest Tier holding every GPU (needs a bound cluster)."""
        return Tier(check(lib.ns_placement_tier(self._ptr)))

    # vClos extras (vclos.h, implemented in the core)
    @property
    def virtual_leaves(self) -> int:
        """vClos: leaves of the job's virtual Clos (0 otherwise)."""
        return check(lib.ns_placement_virtual_leaves(self._ptr))

    @property
    def virtual_spines(self) -> int:
        """vClos: spines of the job's virtual Clos (0 otherwise)."""
        return check(lib.ns_placement_virtual_spines(self._ptr))

    @property
    def link_count(self) -> int:
        """vClos: number of leaf-spine links reserved for the job."""
        return check(lib.ns_placement_link_count(self._ptr))

    def link(self, i: int) -> tuple[int, int]:
        """The i-th reserved link as (leaf, spine)."""
        leaf, spine = c_int(), c_int()
        check(lib.ns_placement_link(self._ptr, as_size(i, "Placement.link", "i"),
                                    ctypes.byref(leaf), ctypes.byref(spine)))
        return (leaf.value, spine.value)

    @property
    def links(self) -> list[tuple[int, int]]:
        """vClos: the reserved links as (leaf, spine) pairs, as link(i) gives them."""
        return [self.link(i) for i in range(self.link_count)]


def _out_placement(out: Placement | None, where: str) -> tuple[Placement, bool]:
    """(placement to fill, whether we created it)."""
    if out is None:
        return Placement(), True
    as_handle(out, Placement, where, "out")
    return out, False


def fill_placement(where: str, out: Placement | None,
                   call: Callable[[Pointer], Any]) -> Placement:
    """Runs call(placement_ptr) -> status (an int from a ctypes call, typed
    Any); returns the placement, closing one we created if the call fails."""
    p, created = _out_placement(out, where)
    try:
        check(call(p._ptr), where)
    except BaseException:
        if created:
            p.close()
        raise
    return p


# ---------------------------------------------------------------- cluster


def _int_array(values: Iterable[int], where: str,
               arg: str) -> tuple[ctypes.Array[c_int], int]:
    try:
        vals = [as_int(v, where, arg) for v in values]
    except TypeError:
        if not hasattr(values, "__iter__"):
            raise TypeError("%s: %s must be an iterable of ints (got %s)"
                            % (where, arg, type(values).__name__))
        raise
    return (c_int * len(vals))(*vals), len(vals)


class Cluster(Handle):
    """A two-tier leaf-spine GPU cluster (ns_cluster). Create it with
    Cluster.leaf_spine(). Committed jobs stay open until released."""

    _free_fn = "ns_cluster_free"
    _token: ClassVar[object] = object()

    def __init__(self, _ptr: Pointer | None = None, _token: object = None) -> None:
        if _token is not Cluster._token or _ptr is None:
            raise TypeError("use Cluster.leaf_spine(...) to create a cluster")

        super().__init__(_ptr)
        self._committed: dict[int, Job] = {}

    @classmethod
    def leaf_spine(cls, leaves: int, spines: int, servers_per_leaf: int, gpus_per_server: int,
                   links_per_pair: int, link_gbps: float) -> Cluster:
        """`leaves` leaf switches of `servers_per_leaf` servers with
        `gpus_per_server` GPUs (one `link_gbps` NIC port each); every leaf
        links to each of `spines` spines by `links_per_pair` links."""
        w = "Cluster.leaf_spine"
        args = (as_int(leaves, w, "leaves"), as_int(spines, w, "spines"),
                as_int(servers_per_leaf, w, "servers_per_leaf"),
                as_int(gpus_per_server, w, "gpus_per_server"),
                as_int(links_per_pair, w, "links_per_pair"), as_real(link_gbps, w, "link_gbps"))
        return cls(lib.ns_cluster_new_leaf_spine(*args), cls._token)

    def __repr__(self) -> str:
        if self.closed:
            return "<Cluster closed>"
        return "<Cluster %d leaves x %d servers x %d GPUs, %d spines>" % (
            self.leaf_count, self.servers_per_leaf, self.gpus_per_server, self.spine_count)

    def _init_view(self) -> None:
        self._committed = {}

    def _borrows(self, job: Handle) -> bool:
        return self._finalizer.alive and job._address in self._committed

    def _release_borrowed(self) -> None:
        jobs, self._committed = list(self._committed.values()), {}
        for j in jobs:
            j._unlend(self)

    def _i(self, fn: str, *args: object, names: dict[str, str] | None = None) -> int:
        return check(getattr(lib, fn)(self._ptr, *args), None, names)

    # geometry
    @property
    def gpu_count(self) -> int:
        """Number of GPUs."""
        return self._i("ns_cluster_gpu_count")

    @property
    def server_count(self) -> int:
        """Number of servers."""
        return self._i("ns_cluster_server_count")

    @property
    def leaf_count(self) -> int:
        """Number of leaves (racks)."""
        return self._i("ns_cluster_leaf_count")

    @property
    def spine_count(self) -> int:
        """Number of spines."""
        return self._i("ns_cluster_spine_count")

    @property
    def servers_per_leaf(self) -> int:
        """Servers under each leaf."""
        return self._i("ns_cluster_servers_per_leaf")

    @property
    def gpus_per_server(self) -> int:
        """GPUs in each server."""
        return self._i("ns_cluster_gpus_per_server")

    @property
    def links_per_pair(self) -> int:
        """Parallel links between each leaf and each spine."""
        return self._i("ns_cluster_links_per_pair")

    @property
    def ocs_count(self) -> int:
        """OCS switches (0 without enable_ocs)."""
        return self._i("ns_cluster_ocs_count")

    @property
    def free_gpu_count(self) -> int:
        """GPUs neither held by a job nor occupied."""
        return self._i("ns_cluster_free_gpu_count")

    @property
    def job_count(self) -> int:
        """Number of committed jobs."""
        return self._i("ns_cluster_job_count")


    @property
    def link_gbps(self) -> float:
        """Bandwidth of every leaf-spine link, in Gbps."""
        return check_nan(lib.ns_cluster_link_gbps(self._ptr))

    def enable_ocs(self, ocs_count: int) -> None:
        """Adds an OCS layer of `ocs_count` switches between leaves and spines."""
        self._mutable("Cluster.enable_ocs")
        self._i("ns_cluster_enable_ocs", as_int(ocs_count, "Cluster.enable_ocs", "ocs_count"))

    @property
    def gpu_memory_mb(self) -> float:
        """Memory of every GPU, in MB (GPU sharing fits jobs into it)."""
        return check_nan(lib.ns_cluster_gpu_memory_mb(self._ptr))

    @gpu_memory_mb.setter
    def gpu_memory_mb(self, mb: float) -> None:
        self._mutable("Cluster.gpu_memory_mb")
        self._i("ns_cluster_set_gpu_memory_mb",
                as_real(mb, "Cluster.gpu_memory_mb", "gpu_memory_mb"),
                names={"mb": "gpu_memory_mb"})

    @property
    def gpu_sharing(self) -> bool:
        """True when jobs may share GPUs while their memory fits."""
        return bool(self._i("ns_cluster_gpu_sharing"))

    @gpu_sharing.setter
    def gpu_sharing(self, shared: bool) -> None:
        self._mutable("Cluster.gpu_sharing")
        self._i("ns_cluster_set_gpu_sharing",
                as_flag(shared, "Cluster.gpu_sharing", "gpu_sharing"), names={"shared": "gpu_sharing"})

    def set_nic_ports(self, ports_per_server: int, port_gbps: float) -> None:
        """Sets the NIC port model (core.h "Port model"): each server has
        `ports_per_server` ports (1..gpus_per_server) of `port_gbps` each,
        its GPUs split into that many contiguous groups. The default is one
        port per GPU at link_gbps; 1 is one NIC per server shared by all its
        jobs (the simulator's model). CASSINI candidates built from the
        cluster (Candidate.from_cluster) use it. Raises NetschedError (EINVAL)
        for a value out of range, (ESTATE) once jobs are committed."""
        self._mutable("Cluster.set_nic_ports")
        self._i("ns_cluster_set_nic_ports",
                as_int(ports_per_server, "Cluster.set_nic_ports", "ports_per_server"),
                as_real(port_gbps, "Cluster.set_nic_ports", "port_gbps"))

    # per-object queries
    def server_of_gpu(self, gpu: int) -> int:
        """The server (index) that holds GPU `gpu`."""
        return self._i("ns_cluster_server_of_gpu", as_int(gpu, "Cluster.server_of_gpu", "gpu"))

    def leaf_of_server(self, server: int) -> int:
        """The leaf (rack) of server `server`."""
        return self._i("ns_cluster_leaf_of_server",
                       as_int(server, "Cluster.leaf_of_server", "server"))

    def free_gpus_on_server(self, server: int) -> int:
        """Number of free GPUs on server `server`."""
        return self._i("ns_cluster_free_gpus_on_server",
                       as_int(server, "Cluster.free_gpus_on_server", "server"))

    def free_gpus_on_leaf(self, leaf: int) -> int:
        """Number of free GPUs under leaf `leaf`."""
        return self._i("ns_cluster_free_gpus_on_leaf",
                       as_int(leaf, "Cluster.free_gpus_on_leaf", "leaf"))

    def idle_servers_on_leaf(self, leaf: int) -> int:
        """Servers under leaf `leaf` with every GPU free."""
        return self._i("ns_cluster_idle_servers_on_leaf",
                       as_int(leaf, "Cluster.idle_servers_on_leaf", "leaf"))

    def gpu_is_free(self, gpu: int) -> bool:
        """True if no job holds GPU `gpu` and it is not occupied."""
        return bool(self._i("ns_cluster_gpu_is_free", as_int(gpu, "Cluster.gpu_is_free", "gpu")))

    def gpu_job_count(self, gpu: int) -> int:
        """Number of jobs on GPU `gpu` (more than 1 only with GPU sharing)."""
        return self._i("ns_cluster_gpu_job_count", as_int(gpu, "Cluster.gpu_job_count", "gpu"))

    def gpu_free_memory_mb(self, gpu: int) -> float:
        """Memory still free on GPU `gpu`, in MB."""
        g = as_int(gpu, "Cluster.gpu_free_memory_mb", "gpu")
        return check_nan(lib.ns_cluster_gpu_free_memory_mb(self._ptr, g))

    def free_links_between(self, leaf: int, spine: int) -> int:
        """Links between `leaf` and `spine` that vClos has not reserved."""
        w = "Cluster.free_links_between"
        return self._i("ns_cluster_free_links_between", as_int(leaf, w, "leaf"),
                       as_int(spine, w, "spine"))

    def link_is_reserved(self, leaf: int, spine: int, k: int) -> bool:
        """True if the k-th link between `leaf` and `spine` is reserved."""
        w = "Cluster.link_is_reserved"
        return bool(self._i("ns_cluster_link_is_reserved", as_int(leaf, w, "leaf"),
                            as_int(spine, w, "spine"), as_int(k, w, "k")))

    # background load and LWF workload
    def occupy(self, gpus: Iterable[int]) -> None:
        """Marks GPUs busy with load the library does not schedule (all or nothing)."""
        self._mutable("Cluster.occupy")
        arr, n = _int_array(gpus, "Cluster.occupy", "gpus")
        self._i("ns_cluster_occupy", arr, n)

    def vacate(self, gpus: Iterable[int]) -> None:
        """Undoes occupy() for these GPUs (all or nothing)."""
        self._mutable("Cluster.vacate")
        arr, n = _int_array(gpus, "Cluster.vacate", "gpus")
        self._i("ns_cluster_vacate", arr, n)

    def set_gpu_workload_ms(self, gpu: int, ms: float) -> None:
        """Remaining LWF workload L_g of one GPU (lwf.h)."""
        self._mutable("Cluster.set_gpu_workload_ms")
        w = "Cluster.set_gpu_workload_ms"
        self._i("ns_cluster_set_gpu_workload_ms", as_int(gpu, w, "gpu"), as_real(ms, w, "ms"))

    def gpu_workload_ms(self, gpu: int) -> float:
        """LWF-kappa workload of GPU `gpu` in ms (what commits added)."""
        g = as_int(gpu, "Cluster.gpu_workload_ms", "gpu")
        return check_nan(lib.ns_cluster_gpu_workload_ms(self._ptr, g))

    # commit / release
    def commit(self, job: Job, placement: Placement) -> None:
        """Applies a placement: the job holds its GPUs (and links) until release()."""
        self._mutable("Cluster.commit")
        jp = as_handle(job, Job, "Cluster.commit", "job")
        pp = as_handle(placement, Placement, "Cluster.commit", "placement")
        self._i("ns_cluster_commit", jp, pp)
        self._committed[job._address] = job
        job._lend_to(self)

    def release(self, job: Job) -> None:
        """Undoes the job's commit (NotFoundError if it is not committed)."""
        self._mutable("Cluster.release")
        if isinstance(job, Job) and self._committed.get(job._address) is job:
            jp = job._raw  # may be closed already: its C object lives until released
        else:
            jp = as_handle(job, Job, "Cluster.release", "job")
        self._i("ns_cluster_release", jp)
        if self._committed.pop(job._address, None) is not None:
            job._unlend(self)

    def is_committed(self, job: Job) -> bool:
        """True if `job` is committed to this cluster."""
        return bool(self._i("ns_cluster_is_committed",
                            as_handle(job, Job, "Cluster.is_committed", "job")))

    def job_placement(self, job: Job, out: Placement | None = None) -> Placement:
        """Copy of the placement a committed job holds."""
        jp = as_handle(job, Job, "Cluster.job_placement", "job")
        return fill_placement("Cluster.job_placement", out,
                              lambda pp: lib.ns_cluster_job_placement(self._ptr, jp, pp))

    @property
    def committed_jobs(self) -> list[Job]:

        """The Job objects committed through these bindings."""
        return list(self._committed.values())
