"""netsched: Python bindings (ctypes, no compile step) for libnetsched,
network-aware scheduling policies for GPU clusters.

    import netsched
    from netsched import Cluster, Job, lwf

    with Cluster.leaf_spine(2, 2, 4, 8, 1, 100.0) as c, Job("resnet", 4) as j:
        p = lwf.place(c, j, kappa=1)
        c.commit(j, p)

The simulator is netsched.sim (sim.Simulator, sim.Options).

Handles (Job, Link, Cluster, Placement, and the policies' Options) free
their C object on close(), at the end of a `with` block, or when collected.
Failures raise a NetschedError subclass carrying the library's message.
The library is loaded from $NETSCHED_LIBRARY, else the source tree's lib/,
else the system loader (libnetsched.so.0); see netsched.library_path.
"""

from __future__ import annotations

from . import _clib
from .core import (Cluster, Collective, Job, Link, Placement, Tier, closest_name, version,
                   version_number)
from .errors import (CancelledError, ClosedHandleError, InvalidArgumentError, LoopError, MissingSymbolError,
                     NetschedError, NoSpaceError, NotFoundError, OutOfMemoryError,
                     RangeError, SolverError, StateError, Status, UnsupportedError,
                     last_error, strerror)
from . import adadual, cassini, dally, lwf, sim, titan, vclos  # noqa: E402
from . import policy  # noqa: E402
from .policy import Policy  # noqa: E402
from .sim import Simulator  # noqa: E402

__version__: str = "0.1.0"

#: Path (or SONAME) the shared library was loaded from.
library_path: str = _clib.path
missing_symbols = _clib.missing_symbols
has_symbol = _clib.has

__all__ = [
    "Cluster", "Collective", "Job", "Link", "Placement", "Policy", "Simulator", "Tier", "version",
    "version_number", "closest_name",
    "NetschedError", "InvalidArgumentError", "OutOfMemoryError", "NotFoundError",
    "NoSpaceError", "StateError", "LoopError", "RangeError", "SolverError",
    "UnsupportedError", "CancelledError", "ClosedHandleError", "MissingSymbolError", "Status", "strerror",
    "last_error", "adadual", "cassini", "dally", "lwf", "policy", "sim", "titan", "vclos",
    "library_path",
    "missing_symbols", "has_symbol",
]
