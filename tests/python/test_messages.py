"""Issue 29: every message the Python bindings raise names what the user
wrote -- the Python method and argument -- never a C parameter ("c must be",
"s has no jobs", "format must be" for the argument fmt), and a misspelt
policy gets a suggestion under the method the user called."""

import ast
import os
import unittest

import netsched
from netsched import core, sim, titan

from . import support

PKG = os.path.dirname(netsched.__file__)
# the converters that name an argument in their messages: f(value, where, arg)
CONVERTERS = {"as_int", "as_u64", "as_size", "as_flag", "as_real", "as_str", "as_enum",
              "as_handle", "_fspath"}
# element-wise checks inside a parameter (Job.phases' (duration_ms, gbps) pairs)
ELEMENTS = {("phases", "duration_ms"), ("phases", "gbps")}


def argument_names():
    """(file, line, function, argument named, the function's parameters) of
    every converter call with a literal argument name (sweep.py aside: its
    messages name CLI options)."""
    for name in sorted(os.listdir(PKG)):
        if not name.endswith(".py") or name == "sweep.py":
            continue
        with open(os.path.join(PKG, name)) as f:
            tree = ast.parse(f.read())
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef):
                continue
            params = {a.arg for a in fn.args.args + fn.args.kwonlyargs} - {"self"}
            setter = any(isinstance(d, ast.Attribute) and d.attr == "setter"
                         for d in fn.decorator_list)
            for call in ast.walk(fn):
                if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                        and call.func.id in CONVERTERS):
                    lits = [a.value for a in call.args
                            if isinstance(a, ast.Constant) and isinstance(a.value, str)]
                    if len(lits) >= 2:
                        yield name, call.lineno, fn.name, lits[-1], params, setter


class TestArgumentNames(unittest.TestCase):
    def test_converters_name_the_python_argument(self):
        seen, bad = 0, []
        for path, line, fn, arg, params, setter in argument_names():
            seen += 1
            base = arg.split("[")[0]
            # a property setter's value is what the user assigned to the property
            ok = (base == fn if setter else base in params) or (fn, base) in ELEMENTS
            if not ok:
                bad.append("%s:%d %s(): names %r, not one of its arguments %s"
                           % (path, line, fn, arg, sorted(params) if not setter else [fn]))
        self.assertGreater(seen, 50)  # the walk found the converters
        self.assertEqual(bad, [])


class TestMessages(unittest.TestCase):
    def assertMessage(self, fn, *needles, absent=()):
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            fn()
        for n in needles:
            self.assertIn(n, str(cm.exception))
        for n in absent:
            self.assertNotIn(n, str(cm.exception))
        return str(cm.exception)

    def test_job_collective(self):
        job = core.Job("a", 2)
        self.addCleanup(job.close)
        self.assertMessage(lambda: setattr(job, "collective", "rign"),
                           "Job.collective: collective must be one of ring,",
                           "did you mean 'ring'?", absent=(" c must",))
        # an int the library refuses: its message, with the Python name
        self.assertMessage(lambda: setattr(job, "collective", 99),
                           "Job.collective: collective must be in [0, 3] (got 99)",
                           absent=(" c must", "ns_"))

    @support.requires("ns_collective_traffic")
    def test_titan_collective_arguments(self):
        self.assertMessage(lambda: titan.collective_traffic(99, 4, 100, 0, 0, 1),
                           "titan.collective_traffic: collective must be", absent=(" c must",))
        self.assertMessage(lambda: titan.collective_traffic("ring", 4, 100, 0, 0, 9),
                           "titan.collective_traffic: dst", absent=("to must", "ns_"))

    def test_load_trace_fmt(self):
        s = sim.Simulator()
        self.addCleanup(s.close)
        trace = os.path.join(support.REPO, "data", "sample-trace.csv")
        self.assertMessage(lambda: s.load_trace(trace, 9),
                           "sim.Simulator.load_trace: fmt must be in [0, 2] (got 9)",
                           absent=("format must",))
        self.assertMessage(lambda: s.load_trace(trace, "tiresia"),
                           "sim.Simulator.load_trace: fmt must be one of", "did you mean 'tiresias'?")

    def test_set_policy_under_the_method_called(self):
        o = sim.Options()
        self.addCleanup(o.close)
        msg = self.assertMessage(lambda: o.set_policy("lwf1"),
                                 "sim.Options.set_policy: policy 'lwf1' is not a policy; "
                                 "did you mean 'lwf-1'?", absent=("set_policy_name", "name '"))
        self.assertIn("(valid: %s)" % ", ".join(sim.policies()), msg)
        # the same through a settings keyword
        self.assertMessage(lambda: sim.Options(policy="lwf1"), "sim.Options.set_policy: policy 'lwf1'")
        o.set_policy("lwf-1")  # a valid name still works
        self.assertEqual(o.policy_name, "lwf-1")

    def test_run_without_jobs(self):
        s = sim.Simulator()
        self.addCleanup(s.close)
        self.assertMessage(s.run, "sim.Simulator.run: the simulator has no jobs",
                           absent=(": s has",))


if __name__ == "__main__":
    unittest.main()
