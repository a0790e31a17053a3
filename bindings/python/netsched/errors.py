"""Exceptions: one class per ns_status, all deriving from NetschedError.

A failed C call raises the class of its status with the library's own
message (``ns_last_error()``, read on the same thread right after the call)
naming the Python call instead of the C function,
e.g. ``InvalidArgumentError("Job: gpus must be in [1, 1048576] (got 0)")``.
Arguments the bindings refuse before calling C (a value that does not fit the
C type, a closed handle) raise the same classes with a message naming the
Python method and argument. Wrong Python types raise plain ``TypeError``.
(pygit2's ``errors.py`` is the model.)
"""

from __future__ import annotations

import enum
import re
import sys
import types

from ._clib import MissingSymbolError, lib


class Status(enum.IntEnum):
    """ns_status values (part of the ABI; never change)."""
    OK = 0
    EINVAL = -1
    ENOMEM = -2
    ENOTFOUND = -3
    ENOSPACE = -4
    ESTATE = -5
    ELOOP = -6
    ERANGE = -7
    ESOLVER = -8
    EUNSUPPORTED = -9
    ECANCELED = -10


class NetschedError(Exception):
    """Base of every error the library reports.

    ``status`` is the ns_status (a Status member, or the raw int for a status
    this version does not know), ``message`` the library's ns_last_error()
    text with the Python function that was called in place of the C one
    ("Cluster.commit: ..." for "ns_cluster_commit: ..."; last_error() keeps
    the C text), or the bindings' own message for checks done in Python."""

    status: int | None = None

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status

    @property
    def strerror(self) -> str:
        """Static English name of the status (ns_strerror)."""
        return strerror(self.status) if self.status is not None else ""


class InvalidArgumentError(NetschedError, ValueError):
    """NS_EINVAL: NULL handle, value out of range, NaN ..."""
    status = Status.EINVAL


class OutOfMemoryError(NetschedError, MemoryError):
    """NS_ENOMEM: an allocation failed."""
    status = Status.ENOMEM


class NotFoundError(NetschedError, LookupError):
    """NS_ENOTFOUND: no such job / object."""
    status = Status.ENOTFOUND


class NoSpaceError(NetschedError):
    """NS_ENOSPACE: no feasible placement now; the job should wait."""
    status = Status.ENOSPACE


class StateError(NetschedError):
    """NS_ESTATE: object in the wrong state (e.g. job already committed)."""
    status = Status.ESTATE


class LoopError(NetschedError):
    """NS_ELOOP: the Affinity graph has a cycle."""
    status = Status.ELOOP


class RangeError(NetschedError, ArithmeticError):
    """NS_ERANGE: a numeric limit was exceeded."""
    status = Status.ERANGE


class SolverError(NetschedError):
    """NS_ESOLVER: the MILP backend failed or is unavailable."""
    status = Status.ESOLVER


class UnsupportedError(NetschedError):
    """NS_EUNSUPPORTED: not supported by this build or topology."""
    status = Status.EUNSUPPORTED


class CancelledError(NetschedError):
    """NS_ECANCELED: a run stopped on request (Simulator.cancel); the
    simulator keeps its jobs and can run again."""
    status = Status.ECANCELED


class ClosedHandleError(NetschedError, ValueError):
    """A method was called on a handle after close()."""


_BY_STATUS = {cls.status: cls for cls in (
    InvalidArgumentError, OutOfMemoryError, NotFoundError, NoSpaceError, StateError,
    LoopError, RangeError, SolverError, UnsupportedError, CancelledError)}


def strerror(status: int) -> str:
    """ns_strerror(status) as str."""
    return str(lib.ns_strerror(int(status)).decode("utf-8", "replace"))


def last_error() -> str:
    """ns_last_error() of the calling thread as str ("" before any failure)."""
    return str(lib.ns_last_error().decode("utf-8", "replace"))


_C_PREFIX = re.compile(r"^(ns_[a-z0-9_]+: )+")


def python_terms(message: str, where: str | None,
                 names: dict[str, str] | None = None) -> str:
    """message with its leading C function names ("ns_sim_load_trace: ...")
    replaced by the Python one (where, e.g. "Simulator.load_trace"), and
    the C parameter the library's message starts with ("format must be
    ...") by the Python argument it came from (names: C name -> Python
    name, e.g. {"format": "fmt"})."""
    if where and _C_PREFIX.match(message):
        prefix = where + ": "
        message = _C_PREFIX.sub(lambda _m: prefix, message, count=1)
        if names:
            rest = message[len(prefix):]
            first = re.match(r"[A-Za-z_][A-Za-z0-9_]*", rest)
            if first and first.group(0) in names:
                message = prefix + names[first.group(0)] + rest[first.end():]
    return message


def _python_caller(frame: types.FrameType | None) -> str | None:
    """The public netsched function on the stack from `frame` up, as users
    call it ("Cluster.commit", "lwf.place", "Job" for a constructor); None
    when the call did not come through one (the C name is kept then)."""
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module != "netsched" and not module.startswith("netsched."):
            return None
        code = frame.f_code
        qual = str(getattr(code, "co_qualname", code.co_name))  # co_qualname: Python >= 3.11
        last = qual.rsplit(".", 1)[-1]
        if last == "__init__" and "." in qual:
            # a constructor the package called itself (Cluster.leaf_spine)
            # names that function; one the user called names the class
            outer = _python_caller(frame.f_back) if frame.f_back is not None else None
            if outer is not None and not outer.endswith(qual.rsplit(".", 1)[0]):
                return outer
            qual, last = qual.rsplit(".", 1)[0], ""
        helper = module in ("netsched.errors", "netsched._handle", "netsched._clib")
        if not helper and not last.startswith("_") and "<" not in qual:
            short = module.split(".", 1)[1] if "." in module else ""
            return qual if short in ("", "core") else short + "." + qual
        frame = frame.f_back
    return None


def error_for(status: int, message: str | None = None, where: str | None = None,
              names: dict[str, str] | None = None) -> NetschedError:
    """The exception instance for a negative status (message defaults to
    ns_last_error(); where, when given, replaces the C function name that
    starts the message, and names the C parameter it names; python_terms)."""
    if message is None:
        message = last_error() or strerror(status)
    if where is None:
        where = _python_caller(sys._getframe(1))
    message = python_terms(message, where, names)
    cls = _BY_STATUS.get(status)
    if cls is None:
        return NetschedError(message, status)
    return cls(message)


def check(rc: int, where: str | None = None, names: dict[str, str] | None = None) -> int:
    """Return rc if >= 0, else raise the exception of its status (its
    message naming the Python function `where` instead of the C one, and
    the Python argument instead of the C parameter: names, python_terms)."""
    if rc < 0:
        if where is None:
            where = _python_caller(sys._getframe(1))
        raise error_for(rc, where=where, names=names)
    return rc


__all__ = ["Status", "NetschedError", "InvalidArgumentError", "OutOfMemoryError",
           "NotFoundError", "NoSpaceError", "StateError", "LoopError", "RangeError",
           "SolverError", "UnsupportedError", "CancelledError", "ClosedHandleError", "MissingSymbolError",
           "strerror", "last_error", "error_for", "check", "python_terms"]
