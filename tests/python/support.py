"""Shared helpers of the Python binding tests (stdlib unittest only)."""

import os
import re
import unittest

import netsched

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def requires(*symbols):
    """Skip unless the loaded library exports every symbol (a policy module
    that has not been merged yet is reported, not failed)."""
    missing = [s for s in symbols if not netsched.has_symbol(s)]
    return unittest.skipIf(missing, "not exported by %s: %s (module not merged yet)"
                           % (netsched.library_path, ", ".join(missing)))


def under_asan():
    """True when the library runs under AddressSanitizer (make sanitize)."""
    return "libasan" in os.environ.get("LD_PRELOAD", "")


def header_text(name):
    with open(os.path.join(REPO, "include", name)) as f:
        return f.read()


def header_version():
    m = re.search(r'#define NS_VERSION_STRING "([^"]+)"', header_text("netsched.h"))
    return m.group(1)


def data_path(*parts):
    """A file of the shared data directory (NS_DATA_DIR), or None."""
    base = os.environ.get("NS_DATA_DIR") or os.path.join(REPO, "..", "shared", "data")
    p = os.path.join(base, *parts)
    return p if os.path.exists(p) else None


def job(name="j", gpus=1, **kw):
    return netsched.Job(name, gpus, **kw)


def updown(name, iteration_ms, up_ms, gbps, gpus=1):
    """A job that communicates at `gbps` for the first up_ms of each
    iteration and is silent for the rest (the papers' Up/Down pattern)."""
    phases = [(up_ms, gbps)]
    if iteration_ms > up_ms:
        phases.append((iteration_ms - up_ms, 0.0))
    return netsched.Job(name, gpus, iteration_ms=iteration_ms, phases=phases)
