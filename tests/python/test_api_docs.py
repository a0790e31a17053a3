"""Every public name of the package has a docstring, and the typed parts
(PEP 561: py.typed) carry annotations."""

import inspect
import os
import unittest

import netsched
from netsched import adadual, cassini, core, dally, errors, lwf, sim, titan, vclos

MODULES = (netsched, adadual, cassini, core, dally, errors, lwf, sim, titan, vclos)


def public_names():
    """(qualified name, object) of every public function, class, method and
    property reachable through the modules' __all__."""
    seen = set()
    for mod in MODULES:
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name)
            if inspect.ismodule(obj) or not (inspect.isclass(obj) or callable(obj)):
                continue
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            yield "%s.%s" % (mod.__name__, name), obj
            if not inspect.isclass(obj) or issubclass(obj, BaseException):
                continue
            for k, v in vars(obj).items():
                if k.startswith("_") or k in getattr(obj, "_fields", ()):
                    continue
                if isinstance(v, (staticmethod, classmethod)):
                    v = v.__func__
                if callable(v) or isinstance(v, property):
                    yield "%s.%s.%s" % (mod.__name__, name, k), v


class TestDocs(unittest.TestCase):
    def test_every_public_name_has_a_docstring(self):
        missing = [q for q, obj in public_names() if not (obj.__doc__ or "").strip()]
        self.assertEqual(missing, [])

    def test_py_typed_ships(self):
        self.assertTrue(os.path.exists(os.path.join(os.path.dirname(netsched.__file__),
                                                    "py.typed")))

    def test_simulator_is_annotated(self):
        # the simulator (what a newcomer drives first), the errors and LWF
        # are fully annotated: every public function has a return annotation
        for mod in (sim, errors, lwf):
            for q, obj in public_names():
                if not inspect.isfunction(obj) or obj.__module__ != mod.__name__:
                    continue
                with self.subTest(name=q):
                    self.assertIn("return", obj.__annotations__, q)


if __name__ == "__main__":
    unittest.main()
