"""The simulator through the bindings: the hand-computed two-job case of
tests/unit/test_sim.c driven by a placement policy written in Python, presets,
metrics, traces, and errors raised inside callbacks."""

import os
import tempfile
import unittest

import netsched
from netsched import sim

from . import support


def place_spread(cluster, job, out):
    """One GPU per server, round robin, so jobs share server NICs."""
    out.clear()
    out.bind(cluster)
    need, gps = job.gpus, cluster.gpus_per_server
    for k in range(gps):
        for server in range(cluster.server_count):
            g = server * gps + k
            if need and cluster.gpu_is_free(g):
                out.add_gpu(g)
                need -= 1
    if need:
        raise netsched.NoSpaceError("spread: %d GPUs short" % need)


def two_jobs(opts):
    """1 leaf, 2 servers x 2 GPUs, 10 Gbps. Two 2-GPU jobs of 125 MB models
    (alone: 100 ms all-reduce) and 100 ms compute; A 100, B 50 iterations."""
    opts.set_cluster(1, 0, 2, 2, 0, 10.0)
    s = sim.Simulator(opts)
    assert s.add_job("A", 0, 2, 100, 100.0, 125_000_000) == 0
    assert s.add_job("B", 0, 2, 50, 100.0, 125_000_000) == 1
    return s


@support.requires("ns_sim_new", "ns_sim_run", "ns_sim_opts_set_place_fn")
class TestSimulator(unittest.TestCase):
    def test_two_jobs_maxmin_with_a_python_policy(self):
        with sim.Options(place_fn=place_spread) as o:
            o.set_contention_curve("ideal")  # plain max-min (test_network_model_options: the loss)
            s = two_jobs(o)
            s.run()
            # Both collide on every NIC: 5 Gbps each -> 200 ms comm, 300 ms
            # iterations. B: 50 x 300 = 15 s; A: 50 more alone at 200 ms -> 25 s.
            a, b = s.job_result(0), s.job_result(1)
            self.assertAlmostEqual(b.finish_ms - b.arrival_ms, 15000.0, delta=1e-6)
            self.assertAlmostEqual(a.finish_ms - a.arrival_ms, 25000.0, delta=1e-6)
            self.assertEqual((a.name, a.gpus, a.servers), ("A", 2, 2))
            m = s.metrics()
            self.assertAlmostEqual(s.metric(sim.Metric.MAKESPAN_MS), 25000.0, delta=1e-6)
            self.assertAlmostEqual(m[sim.metric_name(sim.Metric.AVG_JCT_MS)], 20000.0,
                                   delta=1e-6)
            self.assertEqual(s.metric(sim.Metric.LINKS_SHARED), 4)
            self.assertAlmostEqual(s.metric(sim.Metric.COMM_OVERHEAD), 1.75, places=9)
            self.assertAlmostEqual(s.metric(sim.Metric.GPU_UTIL), 30000 / (4 * 25000), places=9)
            self.assertEqual(len(s), 2)
            s.close()

    @support.requires("ns_sim_opts_set_contention_curve")
    def test_network_model_options(self):
        # test_sim_contention.c's lock-step pair: with e(2) = 0.8 the two
        # all-reduces get 4 Gbps each: 250 ms; B 50 x 350 = 17.5 s, A then
        # 50 x 200 more -> 27.5 s. The same curve read from a CSV file.
        fd, path = tempfile.mkstemp(suffix=".csv")
        with os.fdopen(fd, "w") as f:
            f.write("k,e\n# comment\n2,0.8\n")
        try:
            for curve in ([(2, 0.8)], path):
                with sim.Options(place_fn=place_spread) as o:
                    o.set_contention_curve(curve)
                    self.assertAlmostEqual(o.contention_factor(2), 0.8)
                    with two_jobs(o) as s:
                        s.run()
                        a, b = s.job_result(0), s.job_result(1)
                        self.assertAlmostEqual(b.finish_ms - b.arrival_ms, 17500.0, delta=1e-6)
                        self.assertAlmostEqual(a.finish_ms - a.arrival_ms, 27500.0, delta=1e-6)
        finally:
            os.unlink(path)
        with sim.Options() as o:
            self.assertAlmostEqual(o.contention_factor(2), 0.794)
            o.set_contention_curve("ideal")
            self.assertEqual(o.contention_factor(9), 1.0)
            o.set_contention_curve("default")
            self.assertAlmostEqual(o.contention_factor(16), 0.605)
            o.set_allreduce_latency(14.9)
            o.set_nics(0)
            o.set_gpu_memory(32768)
            o.set_cassini_drift_rule("wait")
            o.set_dally_new_jobs("profile")
            with self.assertRaisesRegex(netsched.InvalidArgumentError,
                                        r"set_contention_curve.*ascending"):
                o.set_contention_curve([(2, 0.8), (2, 0.7)])
            with self.assertRaisesRegex(netsched.InvalidArgumentError, r"curve\[0\]"):
                o.set_contention_curve([(2,)])
            with self.assertRaisesRegex(netsched.InvalidArgumentError, r"no-such.csv"):
                o.set_contention_curve("no-such.csv")
            with self.assertRaisesRegex(netsched.InvalidArgumentError, r"set_nics.*nics_per_server"):
                o.set_nics(-1)
            with self.assertRaisesRegex(netsched.InvalidArgumentError, r"readjust, wait.*'later'"):
                o.set_cassini_drift_rule("later")
            o.set_vclos_routing("ecmp")
            with self.assertRaisesRegex(ValueError, r"set_vclos_routing: routing must be one of "
                                                    r"reserved, ecmp \(got 'ECMP'\)"):
                o.set_vclos_routing("ECMP")

    def test_allreduce_hd(self):
        # test_sim_collective.c's hand-derived case: a 4-GPU job on 2 servers x 2
        # GPUs (one 10 Gbps NIC each), M = 100 MB, 10 x 100 ms compute. Ring:
        # 150 MB over each NIC once, 120 ms, JCT 2200 ms; halving-doubling with
        # ranks 0-3 on GPUs 0-3: 80 + 2 + 2 + 80 ms (two flows of M/2 per NIC,
        # then inside the servers), 2640 ms.
        def go(**kw):
            per_job = kw.pop("per_job", None)
            with sim.Simulator(policy="ff", cluster=(1, 0, 2, 2, 0, 10.0),
                               contention_curve="ideal", **kw) as s:
                s.add_job("j", 0.0, 4, 10, 100.0, 100_000_000)
                if per_job:
                    s.set_job_allreduce(0, per_job)
                s.run()
                r = s.job_result(0)
                return r.finish_ms - r.arrival_ms
        for kw, want in ((dict(), 2200.0), (dict(allreduce="hd"), 2640.0),
                         (dict(per_job="hd"), 2640.0),
                         (dict(allreduce="hd", per_job="ring"), 2200.0)):
            self.assertAlmostEqual(go(**kw), want, places=6, msg=str(kw))
        with sim.Options() as o:
            with self.assertRaisesRegex(ValueError, r"set_allreduce: algorithm must be one of "
                                                    r"ring, hd \(got 'halving'\)"):
                o.set_allreduce("halving")
        with sim.Simulator() as s:
            s.add_job("j", 0.0, 2, 10, 100.0, 1000)
            with self.assertRaisesRegex(ValueError, r"set_job_allreduce: algorithm .*'tree'"):
                s.set_job_allreduce(0, "tree")
            with self.assertRaisesRegex(ValueError, r"set_job_allreduce: job must be in "
                                                    r"\[0, 0\] \(got 3\)"):
                s.set_job_allreduce(3, "hd")
            with self.assertRaisesRegex(ValueError, r"phase network model only"):
                with sim.Simulator(network="maxmin", allreduce="hd") as t:
                    t.add_job("j", 0.0, 2, 10, 100.0, 1000)
                    t.run()

    def test_vclos_routing(self):
        # set_vclos_routing("ecmp") changes nothing for placements without
        # reserved links (ff); vClos's placements stay the same, and here (two
        # 3-GPU jobs and a 2-GPU one on 2 leaves x 2 servers x 2 GPUs) vClos
        # keeps each job inside one leaf, so no flow crosses a spine and the
        # runs agree exactly. The hand-derived case where the routing matters
        # is test_sim_collective.c (test_vclos_ecmp_routing_collides).
        def go(policy, routing):
            with sim.Simulator(policy=policy, cluster=(2, 1, 2, 2, 2, 10.0),
                               vclos_routing=routing) as s:
                for i in range(3):
                    s.add_job("j%d" % i, 0.0, 3 if i < 2 else 2, 50, 10.0, 50_000_000)
                s.run()
                return s.metrics()
        for policy in ("ff", "vclos"):
            a, b = go(policy, "reserved"), go(policy, "ecmp")
            self.assertEqual(a["avg_jct_ms"], b["avg_jct_ms"])
            self.assertEqual(a["machines_used"], b["machines_used"])
        self.assertEqual(go("vclos", "reserved")["links_shared"], 0)

    @support.requires("ns_lwf_place")
    def test_python_policy_matches_the_preset(self):
        # A Python callback that calls lwf.place is the "lwf-1" preset's
        # placement (FIFO, LWF-1, admit all): the runs must agree exactly.
        calls = []

        def lwf1(cluster, job, out):
            calls.append(job.name)
            netsched.lwf.place(cluster, job, 1, out=out)
        results = []
        for settings in ({"policy": "lwf-1"}, {"place_fn": lwf1}):
            with sim.Simulator(**settings) as s:
                self.assertEqual(s.load_default_workload(), 160)
                s.run()
                results.append((s.metrics(), s.results()))
        self.assertGreaterEqual(len(calls), 160)
        self.assertEqual(results[0], results[1])

    def test_callback_errors_are_reraised(self):
        def broken(cluster, job, out):
            raise KeyError("policy bug")
        with sim.Options(place_fn=broken) as o, two_jobs(o) as s:
            with self.assertRaises(KeyError):
                s.run()

        def lying(cluster, job, out):
            raise netsched.SolverError("no solver here")
        with sim.Options(place_fn=lying) as o, two_jobs(o) as s:
            with self.assertRaises(netsched.SolverError):
                s.run()

    def test_views_do_not_outlive_the_callback(self):
        kept = []

        def keep(cluster, job, out):
            kept.append((cluster, job, out))
            place_spread(cluster, job, out)
        with sim.Options(place_fn=keep) as o, two_jobs(o) as s:
            s.run()
        self.assertTrue(kept)
        for handles in kept:
            for h in handles:
                with self.assertRaises(netsched.ClosedHandleError):
                    h._ptr

    def test_progress(self):
        seen = []
        with sim.Options(place_fn=place_spread) as o, two_jobs(o) as s:
            s.set_progress(lambda done, total: seen.append((done, total)))
            s.run()
            self.assertTrue(seen)
            self.assertEqual(seen[-1], (2, 2))
            s.set_progress(None)
            s.run()

    def test_model_profiles(self):
        # AdaDUAL Table III: ResNet-50 is 99.2 MB, fwd 25.0 ms, bwd 37.4 ms, 3213 MB
        self.assertEqual(sim.model_count(), 4)
        p = sim.model_profile("resnet50")
        self.assertEqual(p, sim.model_profile(sim.Model.RESNET50))
        self.assertEqual((p.name, p.model_bytes, p.fwd_ms, p.bwd_ms, p.mem_mb),
                         ("resnet50", 99_200_000, 25.0, 37.4, 3213.0))
        with self.assertRaises(ValueError):
            sim.model_profile(4)

    def test_presets_and_options(self):
        names = sim.policies()
        self.assertEqual(len(names), sim.policy_count())
        self.assertIn("ff", names)
        self.assertEqual(sim.policy_name(10_000), "")
        with sim.Options(policy="ff", seed=3, kappa=2) as o:
            self.assertEqual(o.policy_name, "custom")
            o.set_policy(0)
            self.assertEqual(o.policy_name, sim.policy_name(0))
            with self.assertRaises(netsched.InvalidArgumentError) as cm:
                o.set_policy("no-such-policy")
            self.assertIn("ff", str(cm.exception))  # the message lists valid names
            with self.assertRaises(netsched.InvalidArgumentError):
                o.set_kappa(0)
            with self.assertRaises(TypeError):
                o.set_place_fn(5)
            with self.assertRaises(TypeError):
                sim.Options(no_such_setting=1)

    def test_strict_fifo_and_ideal_network(self):
        # One 4-GPU server, communication free (test_sim_peer.c's case):
        # A 3 GPUs 0-100 s, B 2 GPUs from 1 s for 50 s, C 1 GPU from 2 s for
        # 10 s. ff backfills C at 2 s (JCT 10 s); fifo holds it behind B
        # until 100 s (JCT 108 s).
        self.assertEqual(len(sim.Policy), sim.policy_count())
        self.assertEqual(sim.policy_name(sim.Policy.FIFO), "fifo")
        jcts = {}
        for policy in (sim.Policy.FF, sim.Policy.FIFO):
            with sim.Simulator(policy=int(policy), network=sim.Network.IDEAL,
                               cluster=(1, 0, 1, 4, 0, 10.0)) as s:
                s.add_job("A", 0, 3, 1000, 100.0, 10**9)
                s.add_job("B", 1000, 2, 500, 100.0, 10**9)
                s.add_job("C", 2000, 1, 100, 100.0, 10**9)
                s.run()
                c = s.job_result(2)
                jcts[policy] = c.finish_ms - c.arrival_ms
        self.assertAlmostEqual(jcts[sim.Policy.FF], 10000.0, places=6)
        self.assertAlmostEqual(jcts[sim.Policy.FIFO], 108000.0, places=6)
        with sim.Options(policy="ff") as o:
            o.set_backfill(False)
            self.assertEqual(o.policy_name, "custom")
            o.set_network(sim.Network.PHASE)  # the phase model (the default)
            with self.assertRaises(netsched.InvalidArgumentError):
                o.set_network(4)
            o.set_phase_window(0)
            with self.assertRaises(netsched.InvalidArgumentError):
                o.set_phase_window(-1)
            with self.assertRaises(netsched.InvalidArgumentError):
                o.set_cassini_drift(0.75)

    def test_preemption(self):
        # test_sim_preempt.c's first case: L (4 GPUs, 10000 s) preempted
        # twice by 10 s jobs under 2D-LAS with a 100 GPU-s threshold and a
        # 5 s restore: L ends at 10000 + 2 x 10 + 2 x 5 s.
        self.assertEqual(sim.policy_name(sim.Policy.TWO_D_LAS), "2d-las")
        with sim.Simulator(policy="2d-las", network=sim.Network.IDEAL,
                           cluster=(1, 0, 1, 4, 0, 10.0), las_queues=(2, [100e3]),
                           preemption_overhead=5000.0, starvation=0.0) as s:
            s.add_job("L", 0, 4, 10000, 1000.0, 0)
            s.add_job("S", 100e3, 1, 10, 1000.0, 0)
            s.add_job("S2", 200e3, 1, 10, 1000.0, 0)
            s.run()
            self.assertAlmostEqual(s.job_result(0).finish_ms, 10030e3, places=3)
            self.assertEqual(s.job_preemptions(0), 2)
            self.assertEqual(s.metric(sim.Metric.PREEMPTIONS), 2)
        with sim.Options() as o:
            with self.assertRaises(netsched.InvalidArgumentError):
                o.set_las_queues(3, [2.0, 1.0])
            o.set_las_queues(1)
            with self.assertRaises(netsched.InvalidArgumentError):
                o.set_preemption_overhead(-1)

    @support.requires("ns_sim_opts_set_gittins_samples")
    def test_gittins_samples(self):
        # test_sim_preempt.c's test_gittins_samples: one GPU, delta 50 GPU-s,
        # A (30 s) at 0, B (5 s) at 20 s. Own distribution {5, 30}: A's index
        # at 20 GPU-s is 0, B's 18518.5: B preempts A (JCTs 35 and 5 s).
        # Samples {200, 100} GPU-s: both at 6666.7, A (earlier) keeps its GPU
        # (JCTs 30 and 15 s).
        def jcts(**kw):
            with sim.Simulator(policy="2d-gittins", network=sim.Network.IDEAL,
                               cluster=(1, 0, 1, 1, 0, 10.0), las_queues=(2, [50e3]), **kw) as s:
                s.add_job("A", 0, 1, 30, 1000.0, 0)
                s.add_job("B", 20e3, 1, 5, 1000.0, 0)
                s.run()
                return [round(s.job_result(i).finish_ms - s.job_result(i).arrival_ms)
                        for i in (0, 1)]
        self.assertEqual(jcts(), [35000, 5000])
        self.assertEqual(jcts(gittins_samples=[200e3, 100e3]), [30000, 15000])
        self.assertEqual(jcts(gittins_samples=(x for x in (10e3, 100e3))), [35000, 5000])
        self.assertEqual(jcts(gittins_samples=[]), [35000, 5000])
        with sim.Options() as o:
            with self.assertRaisesRegex(netsched.InvalidArgumentError,
                                        r"set_gittins_samples: gpu_time_samples\[1\].*got 0"):
                o.set_gittins_samples([1e3, 0])
            with self.assertRaisesRegex(TypeError, "gpu_time_samples must be a real number"):
                o.set_gittins_samples([1e3, "2"])
            with self.assertRaisesRegex(TypeError, "gpu_time_samples must be a sequence"):
                o.set_gittins_samples(5)

    @support.requires("ns_sim_job_wait_iter")
    def test_papers_metrics(self):
        # Issue 27, the preemption case above: L waits 100-110 and 200-210 s
        # (suspended until restarted), so its time in the wait queue is 20 s
        # while its queueing delay (first start - arrival) is 0; S and S2
        # never wait. avg wait 20/3 s, p95 (3rd of 3, nearest rank) 20 s. L
        # ran 10030 - 20 - 2 x 5 (restores) = 10000 s over 10000 iterations:
        # 1000 ms each, as S and S2. Machines at the 3 arrivals: the one
        # server in use after each pass -> 1.
        with sim.Simulator(policy="2d-las", network=sim.Network.IDEAL,
                           cluster=(1, 0, 1, 4, 0, 10.0), las_queues=(2, [100e3]),
                           preemption_overhead=5000.0) as s:
            s.add_job("L", 0, 4, 10000, 1000.0, 0)
            s.add_job("S", 100e3, 1, 10, 1000.0, 0)
            s.add_job("S2", 200e3, 1, 10, 1000.0, 0)
            with self.assertRaises(netsched.StateError):
                s.job_wait_iter(0)
            s.run()
            m = s.metrics()
            self.assertEqual(m["avg_queue_ms"], 0)
            self.assertAlmostEqual(m["avg_wait_ms"], 20e3 / 3, places=6)
            self.assertAlmostEqual(s.metric(sim.Metric.P95_WAIT_MS), 20e3, places=6)
            self.assertAlmostEqual(s.metric("avg_iter_ms"), 1000.0, places=6)
            self.assertAlmostEqual(s.metric(sim.Metric.P99_ITER_MS), 1000.0, places=6)
            self.assertAlmostEqual(s.metric(sim.Metric.MACHINES_AT_ARRIVAL), 1.0, places=12)
            wait, it = s.job_wait_iter(0)
            self.assertAlmostEqual(wait, 20e3, places=6)
            self.assertAlmostEqual(it, 1000.0, places=6)
            self.assertEqual(s.job_wait_iter(1), (0.0, 1000.0))
            with self.assertRaises(netsched.InvalidArgumentError):
                s.job_wait_iter(3)
        # every C metric id has its enum member and name, appended in order
        names = [sim.metric_name(m) for m in sim.Metric]
        self.assertEqual(names[-5:], ["avg_wait_ms", "p95_wait_ms", "machines_at_arrival",
                                      "avg_iter_ms", "p99_iter_ms"])
        self.assertEqual(sim.metric_name(len(names)), "")

    def test_dally_nw_sens(self):
        # test_sim_dally.c's first case: an 8-GPU job across 2 racks, compute
        # 100 ms, 1e8 B: its ring all-reduce alone takes 1.75 x 8e8 / 1e7 =
        # 140 ms, so Nw_sens = 100 / 240.
        with sim.Simulator(policy="dally", cluster=(2, 1, 1, 4, 1, 10.0)) as s:
            s.add_job("H", 0, 8, 10, 100.0, 100000000)
            with self.assertRaises(netsched.StateError):
                s.job_nw_sens(0)
            s.run()
            self.assertAlmostEqual(s.job_nw_sens(0), 100.0 / 240.0, places=9)
            with self.assertRaises(netsched.InvalidArgumentError):
                s.job_nw_sens(1)
        with sim.Simulator(policy="dally", dally_preemption=False) as s:
            s.add_job("J", 0, 1, 10, 10.0, 0)
            s.run()
            self.assertEqual(s.metric(sim.Metric.PREEMPTIONS), 0)

    def test_before_run_and_bad_jobs(self):
        with sim.Simulator() as s:
            with self.assertRaises(netsched.InvalidArgumentError):
                s.run()  # no jobs
            with self.assertRaises(netsched.NoSpaceError):
                s.add_job("huge", 0, 100_000, 1, 1.0, 0)
            self.assertEqual(s.skipped_count, 1)
            idx = s.add_model_job("r50", 0, 4, 10, sim.Model.RESNET50)
            self.assertEqual(idx, 0)
            with self.assertRaises(netsched.StateError):
                s.metric(sim.Metric.AVG_JCT_MS)
            with self.assertRaises(netsched.InvalidArgumentError):
                s.add_job("neg", -1, 1, 1, 1.0, 0)
            with self.assertRaises(TypeError):
                s.add_job("x", 0, 1, 1, "fast", 0)

    def test_trace_and_csv(self):
        with tempfile.TemporaryDirectory() as tmp:
            trace = os.path.join(tmp, "t.csv")
            with open(trace, "w") as f:
                f.write("job_id,num_gpu,submit_time,iterations,model_name\n"
                        "1,4,0,20,resnet50\n2,8,1,10,vgg16\n")
            with sim.Simulator(policy="ff") as s:
                self.assertEqual(s.load_trace(trace, sim.TraceFormat.TIRESIAS), 2)
                s.run()
                self.assertEqual(s.metric(sim.Metric.JOBS_DONE), 2)
                out = os.path.join(tmp, "jobs.csv")
                s.write_jobs_csv(out)
                with open(out) as f:
                    self.assertTrue(f.readline().startswith("job,name,gpus"))
            with sim.Simulator() as s:
                # Python's own exceptions for files, before any C call
                with self.assertRaises(FileNotFoundError) as cm:
                    s.load_trace(os.path.join(tmp, "missing.csv"))
                self.assertEqual(cm.exception.filename, os.path.join(tmp, "missing.csv"))
                with self.assertRaises(IsADirectoryError):
                    s.load_trace(tmp)
                with self.assertRaises(FileNotFoundError):
                    s.write_jobs_csv(os.path.join(tmp, "no-such-dir", "jobs.csv"))
                # the format by name, any case; an unknown one is a ValueError
                # naming the Python argument and suggesting the closest name
                self.assertEqual(s.load_trace(trace, "TIRESIAS"), 2)
                with self.assertRaises(ValueError) as cm:
                    s.load_trace(trace, "phily")
                self.assertEqual(str(cm.exception), "sim.Simulator.load_trace: fmt must be one of "
                                 "tiresias, philly, auto (got 'phily'); did you mean 'philly'?")
                # a malformed trace: ValueError in Python terms, not C's
                bad = os.path.join(tmp, "bad.csv")
                with open(bad, "w") as f:
                    f.write("num_gpu,submit_time,iterations,model_name\n-8,0,10,vgg16\n")
                with self.assertRaises(ValueError) as cm:
                    s.load_trace(bad)
                self.assertTrue(str(cm.exception).startswith("sim.Simulator.load_trace: "),
                                str(cm.exception))
                self.assertNotIn("ns_sim", str(cm.exception))


    def test_trace_ids_models_and_profiles(self):
        with tempfile.TemporaryDirectory() as tmp:
            trace = os.path.join(tmp, "t.csv")
            with open(trace, "w") as f:
                f.write("job_id,num_gpu,submit_time,iterations,model_name\n"
                        "j-7,1,0,100,bert\nj-9,1,0,10,vgg19\n")
            models = os.path.join(tmp, "models.csv")
            with open(models, "w") as f:
                f.write("name,forward_ms,backward_ms,model_bytes,memory_mb\nbert,40,60,0,1000\n")
            with sim.Simulator(policy="ff") as s:
                with self.assertRaises(ValueError) as cm:  # bert has no profile yet
                    s.load_trace(trace)
                self.assertIn("'bert'", str(cm.exception))
                self.assertEqual(s.load_models(models), ["bert"])
                self.assertEqual(s.load_trace(trace), 2)  # format from the header
                s.run()
                r = s.results()
                # the trace's ids and model names, as written
                self.assertEqual([(x.name, x.model) for x in r], [("j-7", "bert"), ("j-9", "vgg19")])
                # 1 GPU, no communication: 100 x (40 + 60) ms
                self.assertAlmostEqual(r[0].finish_ms - r[0].arrival_ms, 10000.0, places=6)
            bad = os.path.join(tmp, "bad-models.csv")
            with open(bad, "w") as f:
                f.write("name,forward_ms,backward_ms,model_bytes\nbert,1,2,3\n")
            with sim.Simulator() as s:
                with self.assertRaises(ValueError) as cm:
                    s.load_models(bad)
                self.assertIn("missing column memory_mb", str(cm.exception))
                with self.assertRaises(FileNotFoundError):
                    s.load_models(os.path.join(tmp, "none.csv"))


if __name__ == "__main__":
    unittest.main()
