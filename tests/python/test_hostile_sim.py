"""Hostile callers of the simulator through the bindings: callbacks that call
back into their own Simulator, close it, or change the cluster and job they
are lent. Each test name names the hazard. The oracle for "the run completes
normally" is a peer run of the same workload without the hostile calls."""

import os
import subprocess
import sys
import textwrap
import unittest

import netsched
from netsched import sim

from . import support

FIXTURE = os.path.join(support.REPO, "tests", "fixtures", "tiresias-small.csv")


def first_fit(cluster, job, out):
    """Lowest free GPUs, appended to `out` without clearing it: correct only
    because the simulator lends an empty placement."""
    need = job.gpus
    for g in range(cluster.gpu_count):
        if need and cluster.gpu_is_free(g):
            out.add_gpu(g)
            need -= 1
    if need:
        raise netsched.NoSpaceError("first_fit: %d GPUs short" % need)


def build(place_fn=first_fit):
    """2 servers x 2 GPUs; five jobs, some of which wait."""
    s = sim.Simulator(sim.Options(place_fn=place_fn, cluster=(1, 0, 2, 2, 0, 10.0)))
    for i, g in enumerate((2, 1, 2, 1, 4)):
        s.add_job("j%d" % i, 10.0 * i, g, 20 + 5 * i, 50.0, 25_000_000)
    return s


def outcome(s):
    return s.metrics(), s.results()


def peer():
    with build() as s:
        s.run()
        return outcome(s)


def every_call(s):
    """Every Simulator method, as zero-argument callables."""
    return {
        "run": s.run,
        "add_job": lambda: s.add_job("x", 0, 1, 1, 1.0, 0),
        "add_model_job": lambda: s.add_model_job("x", 0, 1, 1, sim.Model.RESNET50),
        "load_default_workload": s.load_default_workload,
        "load_trace": lambda: s.load_trace(FIXTURE),
        "set_progress": lambda: s.set_progress(None),
        "metric": lambda: s.metric(sim.Metric.AVG_JCT_MS),
        "metrics": s.metrics,
        "job_count": lambda: s.job_count,
        "skipped_count": lambda: s.skipped_count,
        "len": lambda: len(s),
        "job_name": lambda: s.job_name(0),
        "job_model": lambda: s.job_model(0),
        "scale_arrivals": lambda: s.scale_arrivals(2.0),
        "keep_first": lambda: s.keep_first(1),
        "add_model_profile": lambda: s.add_model_profile("m", 1.0, 2.0, 1000, 10.0),
        "job_gpus": lambda: s.job_gpus(0),
        "job_result": lambda: s.job_result(0),
        "results": s.results,
        "write_jobs_csv": lambda: s.write_jobs_csv(os.devnull),
    }


class Attack:
    """Calls every method of the running simulator; records what did not
    raise StateError("... is running ...")."""

    def __init__(self):
        self.rounds = 0
        self.not_refused = []

    def __call__(self, s):
        self.rounds += 1
        for name, call in every_call(s).items():
            try:
                call()
            except netsched.StateError as e:
                if "is running" not in str(e):
                    self.not_refused.append((name, str(e)))
            else:
                self.not_refused.append((name, "no exception"))


@support.requires("ns_sim_new", "ns_sim_run", "ns_sim_opts_set_place_fn")
class TestHostileSimulatorCallers(unittest.TestCase):
    def test_progress_callback_reenters_every_method(self):
        expected = peer()
        attack = Attack()
        with build() as s:
            s.set_progress(lambda done, total: attack(s))
            s.run()
            self.assertGreater(attack.rounds, 0)
            self.assertEqual(attack.not_refused, [])
            self.assertEqual(outcome(s), expected)
            self.assertEqual(s.job_count, 5)

    def test_placement_callback_reenters_every_method(self):
        expected = peer()
        attack = Attack()
        holder = []

        def place(cluster, job, out):
            attack(holder[0])
            first_fit(cluster, job, out)
        with build(place) as s:
            holder.append(s)
            s.run()
            self.assertGreater(attack.rounds, 0)
            self.assertEqual(attack.not_refused, [])
            self.assertEqual(outcome(s), expected)

    def test_close_from_progress_callback_is_deferred(self):
        s = build()
        calls = []

        def progress(done, total):
            s.close()  # deferred: the run below still uses the simulator
            calls.append(s._finalizer.alive)  # the C object is not freed yet
        s.set_progress(progress)
        s.run()
        self.assertTrue(calls)
        self.assertTrue(all(calls))
        self.assertTrue(s.closed)
        self.assertFalse(s._finalizer.alive)  # freed once run() returned
        with self.assertRaises(netsched.ClosedHandleError):
            s.run()
        s.close()  # idempotent

    def test_with_block_closed_from_placement_callback_is_deferred(self):
        holder = []

        def place(cluster, job, out):
            holder[0].__exit__(None, None, None)
            first_fit(cluster, job, out)
        with build(place) as s:
            holder.append(s)
            s.run()
            self.assertTrue(s.closed)

    def test_placement_callback_gets_an_empty_unbound_placement(self):
        seen = []

        def place(cluster, job, out):
            seen.append(len(out))
            with self.assertRaises(netsched.StateError):
                out.server_count  # unbound: nothing to answer from
            first_fit(cluster, job, out)
        with build(place) as s:
            s.run()
            self.assertEqual(outcome(s), peer())
        self.assertGreaterEqual(len(seen), 5)
        self.assertEqual(set(seen), {0})

    def test_placement_callback_returns_too_few_gpus(self):
        def short(cluster, job, out):
            out.add_gpu(0)  # every job here but two asks for 2 or 4
        with build(short) as s:
            with self.assertRaises(netsched.InvalidArgumentError) as cm:
                s.run()
            msg = str(cm.exception)
            for needle in ("'j0'", "with 1 GPUs", "asks for 2", "custom placement callback"):
                self.assertIn(needle, msg)

    def test_placement_callback_mutates_its_cluster_and_job(self):
        refused = []

        def place(cluster, job, out):
            for name, call in (
                    ("commit", lambda: cluster.commit(job, out)),
                    ("occupy", lambda: cluster.occupy([0])),
                    ("vacate", lambda: cluster.vacate([0])),
                    ("gpu_sharing", lambda: setattr(cluster, "gpu_sharing", True)),
                    ("gpu_memory_mb", lambda: setattr(cluster, "gpu_memory_mb", 1.0)),
                    ("enable_ocs", lambda: cluster.enable_ocs(1)),
                    ("set_gpu_workload_ms", lambda: cluster.set_gpu_workload_ms(0, 1.0)),
                    ("release", lambda: cluster.release(job)),
                    ("job.add_phase", lambda: job.add_phase(1.0, 1.0)),
                    ("job.clear_phases", job.clear_phases),
                    ("job.phases", lambda: setattr(job, "phases", [])),
                    ("job.iterations", lambda: job.set_iterations(1)),
                    ("job.model_bytes", lambda: setattr(job, "model_bytes", 1)),
                    ("job.gpu_memory_mb", lambda: setattr(job, "gpu_memory_mb", 1e9))):
                try:
                    call()
                except netsched.StateError as e:
                    if "read-only" in str(e):
                        refused.append(name)
            first_fit(cluster, job, out)
        with build(place) as s:
            s.run()
            self.assertEqual(outcome(s), peer())
        self.assertEqual(set(refused), {"commit", "occupy", "vacate", "gpu_sharing",
                                        "gpu_memory_mb", "enable_ocs", "set_gpu_workload_ms",
                                        "release", "job.add_phase", "job.clear_phases",
                                        "job.phases", "job.iterations", "job.model_bytes",
                                        "job.gpu_memory_mb"})


class TestHostileStrings(unittest.TestCase):
    def test_lone_surrogate_in_a_name_is_an_invalid_argument(self):
        # fuzz_python_args finding: "\ud800" escaped as UnicodeEncodeError
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            netsched.Job("\ud800", 1)
        self.assertIn("Job", str(cm.exception))
        self.assertIn("name", str(cm.exception))


# Run in a child interpreter: a crash there is an exit code, not a dead
# test runner. Every ordered pair of hostile actions, in both callbacks.
CHILD = textwrap.dedent("""
    import itertools, sys
    import netsched
    from netsched import sim
    from tests.python.test_hostile_sim import build, every_call, first_fit

    def act(s, name):
        if name == "close":
            s.close()
            return
        try:
            every_call(s)[name]()
        except netsched.NetschedError:
            pass

    names = ["close", "run", "add_job", "load_trace", "set_progress", "load_default_workload",
             "write_jobs_csv"]
    for a, b in itertools.product(names, repeat=2):
        holder = []
        def place(cluster, job, out):
            act(holder[0], a)
            act(holder[0], b)
            first_fit(cluster, job, out)
        s = build(place)
        holder.append(s)
        s.set_progress(lambda d, t: (act(s, b), act(s, a)))
        s.run()
        s.close()
    print("ok")
""")


@support.requires("ns_sim_new", "ns_sim_run", "ns_sim_opts_set_place_fn")
class TestHostileOrdersInAChild(unittest.TestCase):
    def test_any_order_of_hostile_calls_does_not_kill_the_interpreter(self):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [support.REPO, os.environ.get("PYTHONPATH", "")]))
        r = subprocess.run([sys.executable, "-c", CHILD], cwd=support.REPO, env=env,
                           capture_output=True, text=True, timeout=600)
        self.assertLess(r.returncode, 128, r.stderr[-2000:])
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        self.assertEqual(r.stdout.strip(), "ok")


if __name__ == "__main__":
    unittest.main()
