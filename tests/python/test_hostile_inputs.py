"""Hostile inputs through the bindings and the CLI (issue 31): shapes whose
size products overflow, two threads on one Simulator, Ctrl-C during a run,
endless or binary input files, and profile files the C and Python readers
used to read differently. Each test name names the hazard."""

import os
import signal
import tempfile
import subprocess
import sys
import textwrap
import time
import unittest

import netsched

from . import support

SIM = os.environ.get("NETSCHED_SIM")


def cli(*args, **kw):
    return subprocess.run([SIM] + list(args), capture_output=True, text=True, timeout=120, **kw)


class TestSizeProductOverflow(unittest.TestCase):
    def test_cluster_shape_past_2_63_raises_instead_of_killing_the_interpreter(self):
        # 2^16 * 2^24 * 2^24 = 2^64 wrapped to 0: the interpreter died (exit 139)
        # on the next link query. Run in a child so a crash cannot take the suite.
        code = ("import netsched\n"
                "try:\n"
                "    c = netsched.Cluster.leaf_spine(1 << 16, 1 << 24, 1, 1, 1 << 24, 100)\n"
                "except netsched.InvalidArgumentError as e:\n"
                "    print(e)\n")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [os.path.join(support.REPO, "bindings", "python"), os.environ.get("PYTHONPATH", "")]))
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=env, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        self.assertIn("leaves*spines*links_per_pair (65536*16777216*16777216) exceeds 16777216",
                      r.stdout)

    @unittest.skipUnless(SIM and os.path.exists(SIM), "NETSCHED_SIM not set (make check sets it)")
    def test_cli_shape_past_2_63_is_a_usage_error_for_every_policy(self):
        # ff segfaulted, titan hung > 60 s, ocs-vclos said "ocs_count must be in [1, 0]"
        for policy in ("ff", "titan", "ocs-vclos"):
            r = cli("--leaves", "65536", "--spines", "16777216", "--links", "16777216",
                    "--servers", "1", "--gpus", "1", "--policy", policy)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertEqual(r.stderr, "netsched-sim: --leaves x --spines x --links "
                                       "(65536*16777216*16777216) exceeds 16777216\n")
            self.assertEqual(r.stdout, "")


def child_env():
    return dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.join(support.REPO, "bindings", "python"), os.environ.get("PYTHONPATH", "")]))


# Two threads on one Simulator, as the reproducer: one runs it, the
# other loads the default workload and catches StateError. It segfaulted or
# hung in 2 of 3 runs (heap-use-after-free under ASan).
TWO_THREADS = textwrap.dedent("""
    import threading
    import netsched
    from netsched import sim

    for attempt in range(30):
        s = sim.Simulator(cluster=(2, 2, 2, 8, 1, 10.0))
        s.load_default_workload()
        refused = [0]
        loaded = [0]

        def runner():
            for _ in range(5):
                try:
                    s.run()
                except netsched.StateError:
                    refused[0] += 1

        def loader():
            for _ in range(50):
                try:
                    loaded[0] += s.load_default_workload()
                except netsched.StateError as e:
                    assert "is running" in str(e), str(e)
                    refused[0] += 1
                _ = s.job_count, s.skipped_count

        threads = [threading.Thread(target=runner), threading.Thread(target=loader)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert s.job_count == 160 + loaded[0], (s.job_count, loaded[0])
        s.run()  # intact: every job finishes
        assert s.metric("jobs_done") == s.job_count
        s.close()
    print("ok")
""")


# A run of several seconds (2D-Gittins, 200 x the default workload on 32
# GPUs): Ctrl-C must stop it within a second, with or without callbacks.
INTERRUPTED = textwrap.dedent("""
    import signal, sys, time
    import netsched
    from netsched import sim

    # a user's terminal delivers Ctrl-C; a parent started in the background
    # (CI under nohup or '&') leaves SIGINT ignored, and Python then installs
    # no KeyboardInterrupt handler: restore the interactive default
    signal.signal(signal.SIGINT, signal.default_int_handler)

    mode = sys.argv[1]
    opts = sim.Options(policy="2d-gittins", cluster=(2, 2, 2, 8, 1, 10.0))
    if mode == "place":
        def first_fit(cluster, job, out):
            need = job.gpus
            for g in range(cluster.gpu_count):
                if need and cluster.gpu_is_free(g):
                    out.add_gpu(g)
                    need -= 1
            if need:
                raise netsched.NoSpaceError("wait")
        opts.set_place_fn(first_fit)
    s = sim.Simulator(opts)
    for _ in range(200):
        s.load_default_workload()
    if mode == "progress":
        s.set_progress(lambda done, total: None)
    print("running", flush=True)
    try:
        s.run()
        print("finished")
    except KeyboardInterrupt:
        print("interrupted %d" % s.job_count, flush=True)  # usable at once, jobs kept
""")


@support.requires("ns_sim_cancel")
class TestThreadsAndInterrupts(unittest.TestCase):
    def test_two_threads_on_one_simulator_many_times(self):
        r = subprocess.run([sys.executable, "-c", TWO_THREADS], capture_output=True, text=True,
                           env=child_env(), timeout=600)
        self.assertEqual(r.returncode, 0, r.stderr[-3000:])
        self.assertEqual(r.stdout.strip(), "ok")

    def interrupt(self, mode):
        p = subprocess.Popen([sys.executable, "-c", INTERRUPTED, mode], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=child_env())
        try:
            self.assertEqual(p.stdout.readline().strip(), "running")
            time.sleep(0.5)  # inside s.run()
            sent = time.monotonic()
            p.send_signal(signal.SIGINT)
            line = p.stdout.readline().strip()
            latency = time.monotonic() - sent
            out, err = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.assertEqual(line, "interrupted 32000", err[-2000:])
        self.assertEqual(p.returncode, 0, err[-2000:])
        self.assertNotIn("Exception ignored", err)
        self.assertNotIn("not a status", err)
        # the uninterrupted run takes seconds; measured about 0.2 s here
        self.assertLess(latency, 1.5, "Ctrl-C took %.2f s to stop run() (%s)" % (latency, mode))

    def test_ctrl_c_stops_run_without_callbacks(self):
        self.interrupt("none")

    def test_ctrl_c_stops_run_with_a_progress_callback(self):
        self.interrupt("progress")

    def test_ctrl_c_stops_run_with_a_placement_callback(self):
        self.interrupt("place")


class Boom(Exception):
    pass


@support.requires("ns_sim_cancel")
class TestCallbackExceptions(unittest.TestCase):
    def small_sim(self, **kw):
        # 160 jobs, in this process: small, so that the memory it frees does not
        # hide a leak from test_leaks's detector (glibc reuses freed chunks)
        s = netsched.sim.Simulator(cluster=(2, 2, 2, 8, 1, 10.0), **kw)
        s.load_default_workload()
        return s

    def test_progress_callback_exception_stops_the_run_and_is_raised_as_itself(self):
        boom = Boom("from progress")
        calls = []

        def progress(done, total):
            calls.append(done)
            if len(calls) == 2:
                raise boom
        with self.small_sim() as s:
            s.set_progress(progress)
            with self.assertRaises(Boom) as cm:
                s.run()
            self.assertIs(cm.exception, boom)
            self.assertEqual(len(calls), 2)  # the run stopped at once: no third call
            with self.assertRaises(netsched.StateError):
                s.metrics()  # no results kept
            s.set_progress(None)
            s.run()  # rerunnable
            self.assertEqual(s.metric("jobs_done"), 160)

    def test_placement_callback_exception_is_raised_as_itself(self):
        boom = Boom("from placement")

        def place(cluster, job, out):
            raise boom
        with netsched.sim.Simulator(place_fn=place) as s:
            s.load_default_workload()
            with self.assertRaises(Boom) as cm:
                s.run()
            self.assertIs(cm.exception, boom)

    def test_cancel_from_another_thread_raises_cancelled_error(self):
        import threading
        with self.small_sim() as s:
            started, sent = threading.Event(), threading.Event()

            def progress(done, total):  # holds the run until the other thread cancelled it
                if not started.is_set():
                    started.set()
                    sent.wait(60)
            s.set_progress(progress)

            def canceller():
                started.wait(60)
                s.cancel()
                sent.set()
            t = threading.Thread(target=canceller)
            t.start()
            with self.assertRaises(netsched.CancelledError) as cm:
                s.run()
            t.join()
            self.assertIn("cancelled", str(cm.exception))
            self.assertEqual(s.job_count, 160)
            s.cancel()  # idle: does nothing
            s.set_progress(None)
            s.run()
            self.assertEqual(s.metric("jobs_done"), 160)


MODEL_HEAD = "name,forward_ms,backward_ms,model_bytes,memory_mb,comment\n"


@support.requires("ns_sim_load_models")
class TestProfileFiles(unittest.TestCase):
    """One reader for --models and Simulator.load_models: what one accepts
    and refuses, the other does, with the same numbers."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, data):
        path = os.path.join(self.tmp.name, name)
        with open(path, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
        return path

    def test_quoted_fields_read_the_same_by_python_and_the_cli(self):
        # Python used to strip the quotes the CLI kept: two profiles from one file
        models = self.write("m.csv", MODEL_HEAD + '"bert",110,220,1340000000,15000,"a, b"\n')
        with netsched.sim.Simulator() as s:
            self.assertEqual(s.load_models(models), ["bert"])
        if SIM and os.path.exists(SIM):
            trace = self.write("t.csv", "job_id,num_gpu,submit_time,iterations,model_name\n"
                                        "j,1,0,10,bert\n")
            r = cli("--trace", trace, "--models", models, "--network", "ideal", "--json", "-")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn('"avg_jct_ms": 3300,', r.stdout)  # 10 x (110 + 220) ms

    def test_binary_file_names_file_and_line_and_loads_nothing(self):
        models = self.write("bin.csv", MODEL_HEAD + "a,1,1,1,0,\n" + "\x00\x01\xff" * 10)
        with netsched.sim.Simulator() as s:
            with self.assertRaises(netsched.InvalidArgumentError) as cm:
                s.load_models(models)
            self.assertEqual(str(cm.exception), "sim.Simulator.load_models: path '%s' line 3: "
                             "contains a NUL byte: a binary file, not CSV text" % models)
            # all or nothing: row 2 was not kept
            trace = self.write("t.csv", "job_id,num_gpu,submit_time,iterations,model_name\n"
                                        "j,1,0,10,a\n")
            with self.assertRaises(netsched.InvalidArgumentError):
                s.load_trace(trace)  # "a" has no profile

    def test_model_bytes_past_uint64_is_refused_alike(self):
        for value in ("1e30", "18446744073709551615", "1.5", "0x10"):
            models = self.write("m.csv", MODEL_HEAD + "big,1,1,%s,0,\n" % value)
            with netsched.sim.Simulator() as s:
                with self.assertRaises(netsched.InvalidArgumentError) as cm:
                    s.load_models(models)
                self.assertIn("line 2: model_bytes must be a whole number of bytes", str(cm.exception))
            if SIM and os.path.exists(SIM):
                r = cli("--models", models)
                self.assertEqual(r.returncode, 1, r.stderr)  # an input file, as a bad --trace
                self.assertIn("--models: path '%s' line 2: model_bytes must be a whole number"
                              % models, r.stderr)


@unittest.skipUnless(SIM and os.path.exists(SIM), "NETSCHED_SIM not set (make check sets it)")
class TestCliInputsAndOutputs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def test_trace_dev_zero_fails_at_once_in_bounded_memory(self):
        # grew to 2 GB in 30 s; now refused at its first byte. The child's
        # peak RSS comes from wait4 (RUSAGE_CHILDREN is the largest of every
        # child this process ever waited for), but Linux counts in a child's
        # ru_maxrss the high-water RSS of the memory it replaced at exec: the
        # forked copy of this test process (121 MB on a CI run once the suite
        # had imported scipy, against the CLI's 7.5 MB). So a tiny program
        # started the same way gives that floor, and the CLI may use at most
        # `limit` above it.
        floor = subprocess.Popen(["true"])
        _, _, base = os.wait4(floor.pid, 0)
        t0 = time.monotonic()
        p = subprocess.Popen([SIM, "--trace", "/dev/zero"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        err = p.stderr.read()
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        p.stdout.close(), p.stderr.close()
        self.assertLess(time.monotonic() - t0, 5)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(err, "netsched-sim: --trace: path '/dev/zero' line 1: contains a "
                              "NUL byte: a binary file, not CSV text\n")
        limit = 400 if support.under_asan() else 100  # MB; measured 7.5 MB (ASan: shadow memory)
        self.assertLess(usage.ru_maxrss, base.ru_maxrss + limit * 1024,
                        "the CLI used %d KB (a child's floor here: %d KB)"
                        % (usage.ru_maxrss, base.ru_maxrss))

    def test_hex_and_spaced_option_values_are_refused(self):
        # strtod alone read "0x10" as 16 and "0x1p3" as 8
        for value in ("0x10", "0x1p3", " 4", "inf"):
            r = cli("--gbps", value)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertEqual(r.stderr, "netsched-sim: --gbps must be a number > 0 (got '%s')\n"
                             % value)

    def test_bom_does_not_hide_the_first_row_of_a_contention_curve(self):
        # with the BOM, line 1 failed to parse as a number and was skipped as
        # a header: the first point silently lost. Now it is read (and here refused).
        curve = os.path.join(self.tmp.name, "curve.csv")
        with open(curve, "wb") as f:
            f.write(b"\xef\xbb\xbf1,1.6\n2,0.8\n")
        r = cli("--contention-curve", curve)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("e[0] must be a fraction of capacity in (0, 1] (got 1.6)", r.stderr)

    def test_gittins_dist_dev_zero_fails_at_once(self):
        # read with getline: one endless line, memory without bound
        t0 = time.monotonic()
        r = cli("--gittins-dist", "/dev/zero")
        self.assertLess(time.monotonic() - t0, 5)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stderr, "netsched-sim: --gittins-dist /dev/zero line 1: contains a NUL "
                                   "byte: a binary file, not CSV text\n")

    def test_trace_and_models_directories_are_named(self):
        for opt in ("--trace", "--models"):
            r = cli(opt, self.tmp.name)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("'%s' is a directory" % self.tmp.name, r.stderr)

    def test_failed_run_leaves_existing_outputs_untouched(self):
        out = os.path.join(self.tmp.name, "out.json")
        summary = os.path.join(self.tmp.name, "out.csv")
        for path in (out, summary):
            with open(path, "w") as f:
                f.write("precious\n")
        bad = os.path.join(self.tmp.name, "bad.csv")
        with open(bad, "w") as f:
            f.write("job_id,num_gpu,submit_time,iterations,model_name\nj,0x10,0,10,vgg16\n")
        r = cli("--trace", bad, "--json", out, "--summary-csv", summary)
        self.assertEqual(r.returncode, 1)
        self.assertIn("num_gpu must be an integer >= 1 (got '0x10')", r.stderr)
        for path in (out, summary):
            with open(path) as f:
                self.assertEqual(f.read(), "precious\n")
        self.assertEqual(sorted(os.listdir(self.tmp.name)), ["bad.csv", "out.csv", "out.json"])

    def stop(self, sig):
        trace = os.path.join(self.tmp.name, "big.csv")
        with open(trace, "w") as f:
            f.write("job_id,num_gpu,submit_time,iterations,model_name\n")
            for i in range(30000):
                f.write("j%d,%d,%d,%d,resnet50\n" % (i, 1 << (i % 4), i % 1200, 1000 + i % 5000))
        out = os.path.join(self.tmp.name, "out.json")
        with open(out, "w") as f:
            f.write("precious\n")
        p = subprocess.Popen([SIM, "--trace", trace, "--policy", "2d-gittins,ff", "--leaves", "2",
                              "--servers", "2", "--gpus", "8", "--json", out, "--csv",
                              os.path.join(self.tmp.name, "jobs.csv"), "--progress"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            # the first progress bar (stderr, unbuffered) means 2d-gittins is running;
            # stdout is a pipe, buffered until the first row
            self.assertTrue(p.stderr.read(1))  # "\r" (text mode reads it as "\n")
            time.sleep(0.3)
            sent = time.monotonic()
            p.send_signal(sig)
            out_text, err = p.communicate(timeout=60)
            latency = time.monotonic() - sent
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.assertEqual(p.returncode, 128 + sig, err)
        self.assertLess(latency, 1.5, "the CLI took %.2f s to stop" % latency)
        self.assertIn("netsched-sim: stopped by %s after 0 of 2 policies" % sig.name, err)
        with open(out) as f:
            self.assertEqual(f.read(), "precious\n")  # nothing half-done
        self.assertEqual(sorted(os.listdir(self.tmp.name)), ["big.csv", "out.json"])

    def test_sigint_stops_the_cli_with_130_writing_nothing(self):
        self.stop(signal.SIGINT)

    def test_sigterm_stops_the_cli_with_143_writing_nothing(self):
        self.stop(signal.SIGTERM)


if __name__ == "__main__":
    unittest.main()
