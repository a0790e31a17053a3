"""AdaDUAL (Wang et al.): all-reduce contention model and communication
admission (adadual.h). Sizes in bytes, times in ms."""

from __future__ import annotations

import ctypes
import enum
from ctypes import c_double, c_int, c_uint64
from typing import Any, Callable, Iterable, NamedTuple, Sequence, TypeVar, Union

from ._clib import lib
from ._handle import as_enum, as_int, as_real, as_u64, check_nan
from .core import Collective, CollectiveLike
from .errors import InvalidArgumentError, check

_C = TypeVar("_C", c_int, c_uint64, c_double)
_V = TypeVar("_V")


class AllreduceAlgo(enum.IntEnum):
    """ns_allreduce_algo: the four rows of Table I."""
    BINARY_TREE = 0
    RECURSIVE_DOUBLING = 1
    HALVING_DOUBLING = 2
    RING = 3


#: What an AllreduceAlgo argument accepts: the member, its name or its value.
AllreduceAlgoLike = Union[AllreduceAlgo, str, int]


class Fit(NamedTuple):
    """Least-squares fit of T = a + k*b*M + (k-1)*eta*M and its RMS residual."""
    a_ms: float
    b_ms_per_byte: float
    eta_ms_per_byte: float
    rms_residual_ms: float


def comm_time_ms(a_ms: float, b_ms_per_byte: float, eta_ms_per_byte: float, k: int,
                 nbytes: int) -> float:
    """Eq. 5: time of an all-reduce of `nbytes` under k-way contention,
    a + k*b*M + (k-1)*eta*M."""
    w = "adadual.comm_time_ms"
    return check_nan(lib.ns_comm_time_ms(as_real(a_ms, w, "a_ms"),
                                         as_real(b_ms_per_byte, w, "b_ms_per_byte"),
                                         as_real(eta_ms_per_byte, w, "eta_ms_per_byte"),
                                         as_int(k, w, "k"), as_u64(nbytes, w, "nbytes")))


def _array(ctype: type[_C], values: Iterable[_V], conv: Callable[[_V, str, str], Any],
           where: str, arg: str) -> tuple[ctypes.Array[_C], int]:
    try:
        vals = [conv(v, where, arg) for v in values]
    except TypeError:
        if not hasattr(values, "__iter__"):
            raise TypeError("%s: %s must be a sequence (got %s)"
                            % (where, arg, type(values).__name__))
        raise
    return (ctype * max(len(vals), 1))(*vals), len(vals)


def decide(b_ms_per_byte: float, eta_ms_per_byte: float, new_bytes: int,
           tasks_per_server: Sequence[int], remaining_bytes: Sequence[int] | None = None) -> bool:
    """Algorithm 2: True to start the new all-reduce now, False to wait.

    tasks_per_server[i] is the number of running communication tasks on the
    i-th server the new task uses; remaining_bytes[i] the remaining size of
    the one task there (read only where tasks_per_server[i] == 1; None when
    no server has exactly one task)."""
    w = "adadual.decide"
    b = as_real(b_ms_per_byte, w, "b_ms_per_byte")
    eta = as_real(eta_ms_per_byte, w, "eta_ms_per_byte")
    m = as_u64(new_bytes, w, "new_bytes")
    tasks, n = _array(c_int, tasks_per_server, as_int, w, "tasks_per_server")
    rem: ctypes.Array[c_uint64] | None
    if remaining_bytes is None:
        rem, n2 = None, n
    else:
        rem, n2 = _array(c_uint64, remaining_bytes, as_u64, w, "remaining_bytes")
    if n != n2:
        raise InvalidArgumentError("%s: tasks_per_server and remaining_bytes must have the same "
                                   "length (got %d and %d)" % (w, n, n2))
    start = c_int(-1)
    check(lib.ns_adadual_decide(b, eta, m, tasks, rem, n, ctypes.byref(start)))
    return bool(start.value)


def threshold(b_ms_per_byte: float, eta_ms_per_byte: float) -> float:
    """Theorem 2's threshold b / (2(b+eta)) on M_new / M_old."""
    w = "adadual.threshold"
    return check_nan(lib.ns_adadual_threshold(as_real(b_ms_per_byte, w, "b_ms_per_byte"),
                                              as_real(eta_ms_per_byte, w, "eta_ms_per_byte")))


def _cost(fn: Callable[..., int], w: str, algo: int, nodes: int, alpha_ms: float,
          beta_ms_per_byte: float, gamma_ms_per_byte: float) -> tuple[float, float]:
    a, b = c_double(), c_double()
    check(fn(algo, as_int(nodes, w, "nodes"), as_real(alpha_ms, w, "alpha_ms"),
             as_real(beta_ms_per_byte, w, "beta_ms_per_byte"),
             as_real(gamma_ms_per_byte, w, "gamma_ms_per_byte"),
             ctypes.byref(a), ctypes.byref(b)))
    return (a.value, b.value)


def allreduce_cost(collective: CollectiveLike, nodes: int, alpha_ms: float,
                   beta_ms_per_byte: float, gamma_ms_per_byte: float) -> tuple[float, float]:
    """Table I: (a_ms, b_ms_per_byte) of T = a + b*M for `collective` on
    `nodes` nodes (ALL_TO_ALL is not an all-reduce: UnsupportedError)."""
    w = "adadual.allreduce_cost"
    return _cost(lib.ns_allreduce_cost, w, as_enum(collective, Collective, w, "collective"),
                 nodes, alpha_ms, beta_ms_per_byte, gamma_ms_per_byte)


def allreduce_algo_cost(algo: AllreduceAlgoLike, nodes: int, alpha_ms: float,
                        beta_ms_per_byte: float,
                        gamma_ms_per_byte: float) -> tuple[float, float]:
    """Table I by row (AllreduceAlgo, which includes recursive doubling)."""
    w = "adadual.allreduce_algo_cost"
    return _cost(lib.ns_allreduce_algo_cost, w, as_enum(algo, AllreduceAlgo, w, "algo"),
                 nodes, alpha_ms, beta_ms_per_byte, gamma_ms_per_byte)


def contention_fit(k: Sequence[int], nbytes: Sequence[int], time_ms: Sequence[float]) -> Fit:
    """Fit (a, b, eta) from measured samples: k[i]-way contention, message
    nbytes[i], measured time_ms[i]. Returns a Fit."""
    w = "adadual.contention_fit"
    ks, n = _array(c_int, k, as_int, w, "k")
    bs, n2 = _array(c_uint64, nbytes, as_u64, w, "bytes")
    ts, n3 = _array(c_double, time_ms, as_real, w, "time_ms")
    if not n == n2 == n3:
        raise InvalidArgumentError("%s: k, bytes and time_ms must have the same length "
                                   "(got %d, %d, %d)" % (w, n, n2, n3))
    out = [c_double() for _ in range(4)]
    check(lib.ns_contention_fit(ks, bs, ts, n, *[ctypes.byref(o) for o in out]))
    return Fit(*(o.value for o in out))


__all__ = ["AllreduceAlgo", "Fit", "comm_time_ms", "decide", "threshold",
           "allreduce_cost", "allreduce_algo_cost", "contention_fit"]

