"""Handle base class and the argument converters every wrapper uses.

Converters run before any C call: a wrong Python type raises TypeError, a
value the C parameter cannot represent (an int beyond 32 bits, a negative
uint64, a string with an embedded NUL) raises InvalidArgumentError naming the
Python method and argument -- ctypes would otherwise truncate it silently.
Values that fit are passed through unchanged, so the library's own checks
(NaN, infinity, ranges) and messages apply.
"""

from __future__ import annotations

import contextlib
import difflib
import enum
import math
import numbers
import operator
import weakref
from typing import ClassVar, Iterator, Literal, SupportsIndex, TypeVar, overload

from ._clib import Pointer, address, lib
from .errors import (ClosedHandleError, InvalidArgumentError, NetschedError, StateError,
                     error_for, last_error)

INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1
U64_MAX = (1 << 64) - 1


H = TypeVar("H", bound="Handle")


def _type_name(v: object) -> str:
    return type(v).__name__


def as_int(v: SupportsIndex, where: str, arg: str, lo: int = INT_MIN, hi: int = INT_MAX) -> int:
    """A C int (or another integer type with bounds lo..hi)."""
    if isinstance(v, bool) or not hasattr(v, "__index__"):
        raise TypeError("%s: %s must be an int (got %s)" % (where, arg, _type_name(v)))
    v = operator.index(v)
    if v < lo or v > hi:
        raise InvalidArgumentError("%s: %s must be in [%d, %d] (got %d)" % (where, arg, lo, hi, v))
    return v


def as_u64(v: SupportsIndex, where: str, arg: str) -> int:
    """A C uint64_t."""
    return as_int(v, where, arg, 0, U64_MAX)


def as_size(v: SupportsIndex, where: str, arg: str) -> int:
    """A C size_t."""
    return as_int(v, where, arg, 0, U64_MAX)


def as_flag(v: bool | SupportsIndex, where: str, arg: str) -> int:
    """A C int used as a boolean: bool, or an int the library validates."""
    if isinstance(v, bool):
        return int(v)
    return as_int(v, where, arg)


def as_real(v: float, where: str, arg: str) -> float:
    """A C double. NaN and infinities pass through: the library rejects them."""
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError("%s: %s must be a real number (got %s)" % (where, arg, _type_name(v)))
    return float(v)


@overload
def as_str(v: str, where: str, arg: str, allow_none: Literal[False] = ...) -> bytes: ...
@overload
def as_str(v: str | None, where: str, arg: str, allow_none: Literal[True]) -> bytes | None: ...


def as_str(v: str | None, where: str, arg: str, allow_none: bool = False) -> bytes | None:
    """A C string (UTF-8 bytes); None only with allow_none (a NULL pointer)."""
    if v is None and allow_none:
        return None
    if not isinstance(v, str):
        raise TypeError("%s: %s must be a str (got %s)" % (where, arg, _type_name(v)))
    if "\0" in v:
        raise InvalidArgumentError("%s: %s must not contain NUL characters" % (where, arg))
    try:
        return v.encode("utf-8")
    except UnicodeEncodeError as e:  # a lone surrogate, e.g. "\ud800"
        raise InvalidArgumentError("%s: %s must be valid Unicode (character %r at %d cannot "
                                   "be encoded as UTF-8)" % (where, arg, v[e.start], e.start))


def enum_names(enum_cls: type[enum.Enum]) -> list[str]:
    """The names as_enum accepts for enum_cls, as users write them ("nw-sens")."""
    return [m.lower().replace("_", "-") for m in enum_cls.__members__]


def as_enum(v: enum.IntEnum | str | SupportsIndex, enum_cls: type[enum.IntEnum], where: str,
            arg: str) -> int:
    """A member of enum_cls, its name as a str (any case, '-' or '_':
    "philly", "NW_SENS", "nw-sens") or a plain int (the library rejects
    unknown values); a member of another enum is a TypeError, an unknown
    name a ValueError (InvalidArgumentError) listing the valid ones."""
    if isinstance(v, enum_cls):
        return int(v)
    if isinstance(v, enum.Enum):
        raise TypeError("%s: %s must be a %s, its name or an int (got %s)"
                        % (where, arg, enum_cls.__name__, _type_name(v)))
    if isinstance(v, str):
        key = v.strip().upper().replace("-", "_")
        if key in enum_cls.__members__:
            return int(enum_cls.__members__[key])
        names = enum_names(enum_cls)
        close = difflib.get_close_matches(v.strip().lower().replace("_", "-"), names, 1)
        hint = "; did you mean '%s'?" % close[0] if close else ""
        raise InvalidArgumentError("%s: %s must be one of %s (got '%s')%s"
                                   % (where, arg, ", ".join(names), v, hint))
    return as_int(v, where, arg)


def as_handle(obj: object, cls: type[Handle], where: str, arg: str) -> Pointer:
    """The C pointer of a live handle of class `cls`."""
    if not isinstance(obj, cls):
        raise TypeError("%s: %s must be a %s (got %s)" % (where, arg, cls.__name__,
                                                         _type_name(obj)))
    return obj._ptr


def as_opt_handle(obj: object, cls: type[Handle], where: str, arg: str) -> Pointer | None:
    """As as_handle, None giving a NULL pointer of the right type."""
    return None if obj is None else as_handle(obj, cls, where, arg)


def constructor_error() -> NetschedError:
    """The exception for a constructor that returned NULL: the C API gives
    no status then, only ns_last_error(); allocation failures say so."""
    msg = last_error()
    return error_for(-2 if "memory" in msg.lower() else -1, msg or None)


def check_nan(value: float) -> float:
    """For C functions documented to return NAN on error."""
    if math.isnan(value):
        raise error_for(-1)
    return value


def _noop() -> None:
    pass


def view(cls: type[H], ptr: Pointer) -> H:
    """See Handle._view."""
    return cls._view(ptr)


class Handle:
    """Owns one C handle: close() frees it once; so does the garbage
    collector (weakref.finalize) or the end of a `with` block.

    Some C objects borrow others (a link keeps pointers to its jobs, a
    cluster to its committed jobs, an Affinity graph to jobs and links). The
    borrower keeps the Python objects alive, and close() on a borrowed handle
    only detaches it from Python: the C object is freed when its last
    borrower is closed, releases it, or is collected -- never while a C
    pointer to it may still be used.
    """

    _free_fn: ClassVar[str]  # name of the ns_*_free function

    def __init__(self, ptr: Pointer) -> None:
        if not ptr:
            raise constructor_error()
        self.__ptr: Pointer | None = ptr
        self._raw = ptr  # valid while the C object lives, even after close()
        self._borrowers: weakref.WeakSet[Handle] = weakref.WeakSet()
        self._finalizer = weakref.finalize(self, getattr(lib, self._free_fn), ptr)

    @classmethod
    def _view(cls: type[H], ptr: Pointer) -> H:
        """A non-owning handle on a C object the library lends for the
        duration of a callback; close() only detaches it."""
        obj = cls.__new__(cls)
        obj.__ptr = ptr
        obj._raw = ptr
        obj._borrowers = weakref.WeakSet()
        obj._finalizer = weakref.finalize(obj, _noop)
        obj._init_view()
        return obj

    def _init_view(self) -> None:
        """Hook: per-class state of a view."""

    @property
    def _ptr(self) -> Pointer:
        if self.__ptr is None:
            raise ClosedHandleError("%s is closed" % type(self).__name__)
        return self.__ptr

    _read_only: str | None = None  # a view of an object the library lends as const: what lent it

    def _mutable(self, where: str) -> None:
        """Mutators call this first: a read-only view (e.g. the cluster and
        job a simulator's placement callback receives) refuses to change,
        since changing it would corrupt the state of the caller that lent it."""
        if self._read_only:
            raise StateError("%s: %s is read-only (the library lends it as const; never change "
                             "it)" % (where, self._read_only))

    @property
    def _address(self) -> int:
        return address(self._raw)

    @property
    def closed(self) -> bool:
        """True once close() has run."""
        return self.__ptr is None

    def _borrows(self, other: Handle) -> bool:
        """Does this handle's C object still point at `other`?"""
        return self._finalizer.alive

    def _lend_to(self, borrower: Handle) -> None:
        self._borrowers.add(borrower)

    def _unlend(self, borrower: Handle) -> None:
        """`borrower` no longer points at this handle: free it if it was
        closed while borrowed and nobody else borrows it."""
        self._borrowers.discard(borrower)
        self._free_if_unused()

    def _free_if_unused(self) -> None:
        if self.__ptr is None and not any(b._borrows(self) for b in self._borrowers):
            self._free_now()

    def _free_now(self) -> None:
        if self._finalizer.alive:
            self._finalizer()
            self._release_borrowed()

    def _release_borrowed(self) -> None:
        """Hook: a closing borrower lets go of what it borrowed."""

    @contextlib.contextmanager
    def _closing_on_error(self) -> Iterator[None]:
        """For constructors: if the block raises (a setter rejects an
        argument), close the half-built handle so nothing leaks, and
        re-raise."""
        try:
            yield
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Detaches the handle from Python and frees the C object (at once,
        or when the last borrower lets go of it). Idempotent."""
        if self.__ptr is None:
            return
        self.__ptr = None
        self._free_if_unused()

    def __enter__(self: H) -> H:
        self._ptr  # a closed handle cannot be entered
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        self.close()
        return False

    def __repr__(self) -> str:
        return "<%s%s>" % (type(self).__name__, " closed" if self.closed else "")
