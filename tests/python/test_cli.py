"""netsched-sim behaves like the tools users know: its outputs carry the
trace's job ids and model names, --json / --summary-csv mark the best
policy and ties, messages speak the CLI's options with their ranges and
suggest the closest name, usage only on --help or a usage error, a failed
output fails the exit status. Runs the binary make check built
($NETSCHED_SIM); skipped when it is not given."""

import csv
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from . import support

SIM = os.environ.get("NETSCHED_SIM")
SAMPLE = os.path.join(support.REPO, "data", "sample-trace.csv")
MODELS = os.path.join(support.REPO, "data", "sample-models.csv")


def run(*args, **kw):
    return subprocess.run([SIM, *args], capture_output=True, text=True, timeout=300,
                          cwd=kw.get("cwd"))


def unwrapped(text):
    """--help with its wrapped help texts joined back into one line each
    (continuation lines are indented 13 or more columns)."""
    return re.sub(r"\n {13,}", " ", text)


@unittest.skipUnless(SIM and os.path.exists(SIM), "NETSCHED_SIM not set (make check sets it)")
class TestCli(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def assertInputError(self, r, *needles):
        """An input file the user named is missing or malformed: exit 1."""
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stdout, "")
        for n in needles:
            self.assertIn(n, r.stderr)

    def assertUsageError(self, r, *needles):
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(r.stdout, "")
        for n in needles:
            self.assertIn(n, r.stderr)

    def test_network_model_options(self):
        # the header line says which model and NICs ran
        r = run("--policy", "ff")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("contention curve default: HKBU 10 GbE fit", r.stdout)
        self.assertIn("1 NIC per server (the default: the AdaDUAL testbed; --nics)", r.stdout)
        # an ideal curve read from a file equals --contention-curve ideal
        curve = self.write("ideal.csv", "k,e\n# no loss\n2,1\n16,1\n")
        a = run("--policy", "ff", "--contention-curve", curve, "--json", "-")
        b = run("--policy", "ff", "--contention-curve", "ideal", "--json", "-")
        c = run("--policy", "ff", "--json", "-")
        self.assertEqual(a.returncode, 0, a.stderr)
        jct = [json.loads(x.stdout)["policies"][0]["metrics"]["avg_jct_ms"] for x in (a, b, c)]
        self.assertEqual(jct[0], jct[1])
        # ff lets every all-reduce collide: the default curve's loss costs time
        # (2854.2 s ideal, 2894.3 s with the curve on the default workload)
        self.assertGreater(jct[2], jct[1])
        r = run("--policy", "ff", "--nics", "gpu@25", "--allreduce-latency", "14.9",
                "--gpu-mem", "32768", "--cassini-drift-rule", "wait")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("one NIC per GPU", r.stdout)
        self.assertIn("all-reduce latency 14.9 ms", r.stdout)
        # errors name the option, the file and line, and quote the value; a
        # bad or missing file is an input error (exit 1), as a bad trace
        bad = self.write("bad.csv", "k,e\n2,0.8\n3,zero\n")
        self.assertInputError(run("--contention-curve", bad), "--contention-curve", "line 3",
                              "'3,zero'")
        up = self.write("up.csv", "2,1.5\n")
        r = run("--contention-curve", up)
        self.assertInputError(r, "--contention-curve", "e[0]", "1.5")
        self.assertNotIn("ns_sim", r.stderr)
        self.assertInputError(run("--contention-curve", os.path.join(self.tmp, "none.csv")),
                              "--contention-curve", "No such file")
        self.assertUsageError(run("--nics", "two"), "--nics", "'two'")
        self.assertUsageError(run("--nics", "2@-1"), "--nics", "'-1'")
        self.assertUsageError(run("--cassini-drift-rule", "later"), "readjust, wait", "'later'")
        # --vclos-routing: vClos's placement with its flows hashed (ecmp) or on
        # its reserved links; an unknown name is a usage error with a hint
        a = run("--policy", "vclos", "--vclos-routing", "ecmp", "--json", "-")
        b = run("--policy", "vclos", "--vclos-routing", "reserved", "--json", "-")
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(b.returncode, 0, b.stderr)
        ma, mb = (json.loads(x.stdout)["policies"][0]["metrics"] for x in (a, b))
        # reserved: isolated by construction; ECMP on the default workload (one
        # 10 Gbps NIC per server, 2 x 10 Gbps per leaf-spine pair) puts two
        # jobs' flows on one link (2 links shared, avg JCT 1635.3 s against
        # 1608.4 s isolated)
        self.assertEqual(mb["links_shared"], 0)
        self.assertGreater(ma["links_shared"], 0)
        self.assertGreater(ma["avg_jct_ms"], mb["avg_jct_ms"])
        self.assertUsageError(run("--vclos-routing", "ecpm"), "--vclos-routing",
                              "reserved, ecmp", "'ecpm'", "did you mean 'ecmp'")
        # --allreduce hd: the default workload's multi-server all-reduces as
        # halving-doubling steps (4 GPUs share each server's one NIC: a
        # cross-server step sends up to 4 flows through it, the ring one), so
        # slower than rings on average; --network maxmin refuses it (exit 1)
        h = run("--policy", "ff", "--allreduce", "hd", "--json", "-")
        self.assertEqual(h.returncode, 0, h.stderr)
        mh = json.loads(h.stdout)["policies"][0]["metrics"]
        self.assertGreater(mh["avg_jct_ms"], jct[2])
        self.assertUsageError(run("--allreduce", "hb"), "--allreduce", "ring, hd", "'hb'",
                              "did you mean 'hd'")
        r = run("--policy", "ff", "--allreduce", "hd", "--network", "maxmin")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("phase network model only", r.stdout)  # the policy's row: failed
        self.assertUsageError(run("--policy", "ff", "--nics", "5"),  # 4 GPUs per server
                              "--nics must be at most the GPUs per server (--gpus 4) (got 5)")

    def test_version_and_help(self):
        r = run("--version")
        self.assertEqual(r.stdout.strip(), "netsched-sim (libnetsched) %s" % support.header_version())
        r = run("--help")
        self.assertEqual(r.returncode, 0)
        r.stdout = unwrapped(r.stdout)
        # every column of the table is explained, with its JSON metric name
        for col, metric in (("avgJCT_s", "avg_jct_ms"), ("comm%", "comm_overhead"),
                            ("shared", "links_shared"), ("frag%", "fragmentation"),
                            ("unfin", "unfinished"), ("util%", "gpu_util")):
            self.assertRegex(r.stdout, r"\n  %s +.*\[%s, (lowest|highest) is best\]"
                             % (col.replace("%", "%"), metric))
        self.assertIn("can exceed 100", r.stdout)  # comm% of 632 is not a bug

    def test_value_errors_name_the_option_and_range_without_usage(self):
        for bad in ("-8", "0", "x"):  # reported the same way
            r = run("--gpus", bad)
            self.assertUsageError(r, "netsched-sim: --gpus must be an integer in [1, 4194304] "
                                     "(got '%s')" % bad)
            self.assertNotIn("usage", r.stderr)
            self.assertEqual(len(r.stderr.splitlines()), 1)
        r = run("--network", "maxmn")
        self.assertUsageError(r, "must be one of phase, maxmin, contention, ideal (got 'maxmn'); "
                                 "did you mean 'maxmin'?")
        r = run("--leaves", "2000", "--servers", "2000", "--gpus", "2000")
        self.assertUsageError(r, "--leaves x --servers x --gpus (2000*2000*2000) exceeds 4194304")
        self.assertNotIn("ns_", r.stderr)

    def test_did_you_mean(self):
        r = run("--polcy", "ff")
        self.assertUsageError(r, "unknown option '--polcy'; did you mean '--policy'?", "usage:")
        r = run("--policy", "lwf1")
        self.assertUsageError(r, "unknown policy 'lwf1'; did you mean 'lwf-1'?")
        self.assertNotIn("usage", r.stderr)

    def test_trace_ids_models_json_and_best(self):
        # Hand-computed: one GPU, no all-reduce, so JCT = iterations x
        # (forward + backward) of the profile: ResNet-50 (25.0 + 37.4 ms) x 100
        # = 6240 ms; bert from --models: 10 x (40 + 60) = 1000 ms.
        trace = self.write("t.csv", "job_id,num_gpu,submit_time,iterations,model_name\n"
                                    "alpha,1,0,100,resnet50\nbeta,1,0,10,bert\n")
        models = self.write("m.csv", "name,forward_ms,backward_ms,model_bytes,memory_mb\n"
                                     "bert,40,60,0,1000\n")
        out = os.path.join(self.tmp, "jobs.csv")
        r = run("--policy", "ff,ls", "--trace", trace, "--models", models, "--json", "-",
                "--json-jobs", "--csv", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)  # stdout is the JSON alone
        self.assertEqual([p["policy"] for p in doc["policies"]], ["ff", "ls"])
        ff = doc["policies"][0]
        self.assertAlmostEqual(ff["metrics"]["avg_jct_ms"], (6240 + 1000) / 2, places=6)
        jobs = {j["job_id"]: j for j in ff["jobs"]}
        self.assertEqual(set(jobs), {"alpha", "beta"})
        self.assertEqual(jobs["alpha"]["model"], "resnet50")
        self.assertAlmostEqual(jobs["alpha"]["jct_ms"], 6240.0, places=6)
        self.assertAlmostEqual(jobs["beta"]["jct_ms"], 1000.0, places=6)
        # ff and ls place 1-GPU jobs alike: every metric is a tie, both marked
        self.assertEqual(doc["best"]["avg_jct_ms"], ["ff", "ls"])
        self.assertIn("avg_jct_ms", doc["policies"][1]["best"])
        # --csv per policy carries the same ids and models
        with open(os.path.join(self.tmp, "jobs-ff.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([(x["name"], x["model"]) for x in rows],
                         [("alpha", "resnet50"), ("beta", "bert")])

    def test_papers_metrics(self):
        # Issue 27: hand-derived on 1 leaf x 2 servers x 2 GPUs, ideal
        # network, 1 s iterations. L (4 GPUs, 1000 it.) at 0 s spans both
        # servers; 2d-las demotes it at 3250 GPU-s (812.5 s). S (2 GPUs, 10
        # it.) at 900 s in the top queue suspends L (900 s done), runs
        # 900-910 on one server; L restarts at 910 and ends at 1010.
        # Queueing delay (first start): 0 and 0. Wait: L 10 s, S 0 -> avg 5 s,
        # p95 (2nd of 2) 10 s. Iteration time: 1000 ms each (L's wait is out).
        # Machines at arrivals: 2 (L placed) and 1 (S placed, L suspended) ->
        # 1.5; time average (2 x 900 + 1 x 10 + 2 x 100) / 1010.
        # ff instead: S waits for L (900 -> 1000): queue = wait = 100 s for S;
        # machines at arrivals 2 and 2.
        trace = self.write("t.csv", "job_id,num_gpu,submit_time,iterations,model_name\n"
                                    "L,4,0,1000,unit\nS,2,900,10,unit\n")
        models = self.write("m.csv", "name,forward_ms,backward_ms,model_bytes,memory_mb\n"
                                     "unit,400,600,0,1000\n")
        args = ("--trace", trace, "--models", models, "--network", "ideal", "--leaves", "1",
                "--spines", "0", "--links", "0", "--servers", "2", "--gpus", "2", "--no-progress")
        out = os.path.join(self.tmp, "jobs.csv")
        r = run("--policy", "2d-las,ff", *args, "--json", "-", "--json-jobs", "--csv", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        las, ff = json.loads(r.stdout)["policies"]
        m = las["metrics"]
        expect = {"avg_queue_ms": 0, "p95_queue_ms": 0, "avg_wait_ms": 5000,
                  "p95_wait_ms": 10000, "machines_at_arrival": 1.5,
                  "machines_used": 2010 / 1010, "avg_iter_ms": 1000, "p99_iter_ms": 1000,
                  "preemptions": 1}
        for k, v in expect.items():
            self.assertAlmostEqual(m[k], v, places=6, msg=k)
        jobs = {j["job_id"]: j for j in las["jobs"]}
        self.assertAlmostEqual(jobs["L"]["wait_ms"], 10000, places=6)
        self.assertAlmostEqual(jobs["L"]["start_ms"], 0, places=6)
        self.assertAlmostEqual(jobs["L"]["iter_ms"], 1000, places=6)
        for k, v in {"avg_queue_ms": 50000, "avg_wait_ms": 50000, "p95_wait_ms": 100000,
                     "machines_at_arrival": 2}.items():
            self.assertAlmostEqual(ff["metrics"][k], v, places=6, msg=k)
        with open(os.path.join(self.tmp, "jobs-2d-las.csv")) as f:
            rows = {x["name"]: x for x in csv.DictReader(f)}
        self.assertEqual((rows["L"]["queue_ms"], rows["L"]["wait_ms"]), ("0.000", "10000.000"))
        self.assertAlmostEqual(float(rows["S"]["iter_ms"]), 1000, places=6)
        # the table and --summary-csv carry them too
        r = run("--policy", "2d-las", *args, "--summary-csv", "-")
        row = next(csv.DictReader(io.StringIO(r.stdout)))
        self.assertAlmostEqual(float(row["avg_wait_ms"]), 5000, places=6)
        r = run("--policy", "2d-las", *args)
        head, vals = r.stdout.splitlines()[1].split(), r.stdout.splitlines()[2].split()
        table = dict(zip(head, vals))
        self.assertEqual((table["avgQ_s"], table["avgW_s"], table["p95W_s"]), ("0.0", "5.0", "10.0"))
        self.assertEqual((table["mach@arr"], table["avgIt_ms"]), ("1.5", "1000.0"))

    def test_gittins_dist(self):
        # One GPU, ideal network, 1 s iterations, delta = the default first
        # threshold, 3250 GPU-s. A (30 s) at 0, B (5 s) at 20 s. Own
        # distribution {5, 30}: at a' = 4, P = 1/2, E = floor((5 + 3250) / 2)
        # = 1627, index 307.3; at a' = 29, P = 0: A (20 GPU-s done) has 0, B
        # 307.3: B preempts A: JCTs 35 and 5 s. --gittins-dist {200, 100}
        # (the Tiresias simulator's format, GPU-seconds): every a < 100 has
        # P = 1/2, E = floor((100 + 3250) / 2) = 1675, index 298.5: A and B
        # tie, the earlier A keeps its GPU: JCTs 30 and 15 s.
        trace = self.write("t.csv", "job_id,num_gpu,submit_time,iterations,model_name\n"
                                    "A,1,0,30,unit\nB,1,20,5,unit\n")
        models = self.write("m.csv", "name,forward_ms,backward_ms,model_bytes,memory_mb\n"
                                     "unit,400,600,0,1000\n")
        dist = self.write("yarn-gput.csv", "duration\n200\n100\n\n")
        args = ("--policy", "2d-gittins", "--trace", trace, "--models", models, "--network",
                "ideal", "--leaves", "1", "--spines", "0", "--links", "0", "--servers", "1",
                "--gpus", "1", "--no-progress", "--json", "-", "--json-jobs")

        def jcts(*extra):
            r = run(*args, *extra)
            self.assertEqual(r.returncode, 0, r.stderr)
            jobs = json.loads(r.stdout)["policies"][0]["jobs"]
            return {j["job_id"]: round(j["finish_ms"] - j["arrival_ms"]) for j in jobs}
        self.assertEqual(jcts(), {"A": 35000, "B": 5000})
        self.assertEqual(jcts("--gittins-dist", dist), {"A": 30000, "B": 15000})
        r = run(*args[:-4], "--gittins-dist", dist)  # the table names the distribution
        self.assertIn("Gittins distribution %s (2 samples)" % dist, r.stdout.splitlines()[0])
        # bad files: exit 1 (an input, like a bad trace), the option, the
        # file, the line and the value
        bad = {"duration,x\n100,1\n-5,1\n": ("line 3", "'-5'"),
               "gpu_time\n100\n": ("line 1", "no duration column"),
               "duration\n": ("no samples",),
               "": ("empty",),
               "job,duration\n1,12s\n": ("line 2", "'12s'"),
               "job,duration\n1\n": ("line 2", "''")}
        for text, needles in bad.items():
            path = self.write("bad.csv", text)
            self.assertInputError(run(*args, "--gittins-dist", path), "--gittins-dist", path,
                                  *needles)
        self.assertInputError(run(*args, "--gittins-dist", os.path.join(self.tmp, "none.csv")),
                              "--gittins-dist", "cannot read", "none.csv",
                              "No such file or directory")

    def test_help_defines_queueing_and_percentiles(self):
        r = run("--help")
        r.stdout = unwrapped(r.stdout)
        self.assertRegex(r.stdout, r"avgQ_s +mean queueing delay = first start - arrival \(waits "
                                   r"after a preemption are not in it")
        self.assertRegex(r.stdout, r"avgW_s +mean time in the wait queue")
        self.assertIn("Medians and percentiles are nearest rank", r.stdout)
        self.assertIn("ceil(p/100 x n)-th smallest", r.stdout)
        for col, metric in (("avgW_s", "avg_wait_ms"), ("p95W_s", "p95_wait_ms"),
                            ("mach", "machines_used"), ("mach@arr", "machines_at_arrival"),
                            ("avgIt_ms", "avg_iter_ms"), ("p99It_ms", "p99_iter_ms")):
            self.assertRegex(r.stdout, r"\n  %s +.*\[%s, lowest is best\]" % (col, metric))

    def test_summary_csv_marks_the_best(self):
        r = run("--policy", "ff,rand,best-fit", "--trace", SAMPLE, "--models", MODELS,
                "--leaves", "4", "--servers", "8", "--gpus", "8", "--summary-csv", "-")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = list(csv.DictReader(io.StringIO(r.stdout)))
        self.assertEqual([x["policy"] for x in rows], ["ff", "rand", "best-fit"])
        jct = {x["policy"]: float(x["avg_jct_ms"]) for x in rows}
        best = min(jct, key=jct.get)
        for x in rows:  # the best column agrees with the numbers
            self.assertEqual("avg_jct_ms" in x["best"].split(";"), x["policy"] == best)

    def test_table_rows_and_best_block(self):
        r = run("--policy", "ff,ff,best-fit", "--no-progress")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("policy ff given twice; it runs once", r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual([l.split()[0] for l in lines[2:4]], ["ff", "best-fit"])
        # both finish every job: a tie (ff and ls tie on every column of the
        # embedded workload since pairs of jobs are simulated 128 iterations
        # before fast-forward: best-fit differs). A column where every policy
        # ties gets no row of its own (issue 29): it is named once, on the
        # block's last line.
        best = lines[lines.index(next(l for l in lines if l.startswith("best per column"))):]
        self.assertFalse([l for l in best if l.split()[0] in ("unfin", "preempt")], best)
        self.assertRegex(best[-1], r"^  all 2 tie on: .*\bunfin\b.*\bpreempt\b")
        for row in best[1:-1]:  # every other row names a winner
            self.assertRegex(row, r"\b(ff|best-fit)$")

    def test_trace_errors(self):
        dup = self.write("dup.csv", "job_id,num_gpu,submit_time,iterations,model_name\n"
                                    "a,1,0,10,vgg16\nb,1,0,10,vgg16\na,1,5,10,vgg16\n")
        r = run("--trace", dup)
        self.assertEqual(r.returncode, 1)
        self.assertIn("lines 2 and 4: job_id must be unique (got 'a' twice)", r.stderr)
        self.assertNotIn("ns_sim", r.stderr)
        gpus = self.write("gpus.csv", "job_id,gpus,submit_time,iterations,model_name\n1,2,0,10,vgg16\n")
        r = run("--trace", gpus)
        self.assertIn("missing column num_gpu", r.stderr)
        bert = self.write("bert.csv", "job_id,num_gpu,submit_time,iterations,model_name\n1,2,0,10,bert\n")
        r = run("--trace", bert)
        self.assertIn("--models", r.stderr)  # says how to give a profile
        # the format comes from the header: a Philly trace needs no --format
        philly = os.path.join(support.REPO, "tests", "fixtures", "philly-small.csv")
        r = run("--trace", philly, "--no-progress")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(", 3 jobs", r.stdout)

    def test_failed_outputs_fail_the_exit_status(self):
        missing = os.path.join(self.tmp, "no-such-dir", "x")
        for opt, path in (("--csv", missing + ".csv"), ("--json", missing + ".json"),
                          ("--summary-csv", missing + ".csv")):
            r = run(opt, path)
            self.assertEqual(r.returncode, 1, (opt, r.stderr))
            self.assertIn("%s: cannot write '%s'" % (opt, path), r.stderr)
            self.assertEqual(r.stdout, "")  # refused before running anything
        r = run("--plot", os.path.join(self.tmp, "x.jpg"))
        self.assertUsageError(r, "use a .png, .svg or .pdf")

    def test_csv_says_which_files_it_wrote(self):
        out = os.path.join(self.tmp, "jobs.csv")
        r = run("--policy", "ff,ls", "--csv", out, "--no-progress")
        self.assertEqual(r.returncode, 0, r.stderr)
        ff, ls = (os.path.join(self.tmp, "jobs-%s.csv" % p) for p in ("ff", "ls"))
        self.assertIn("netsched-sim: --csv: per-job rows written to %s, %s\n" % (ff, ls), r.stderr)
        self.assertFalse(os.path.exists(out))  # several policies: one file each, not FILE
        for path in (ff, ls):
            with open(path) as f:
                self.assertEqual(len(list(csv.DictReader(f))), 160)
        r = run("--policy", "ff", "--csv", out, "--no-progress")
        self.assertIn("per-job rows written to %s\n" % out, r.stderr)

    def test_inputs_missing_unreadable_or_malformed_exit_1(self):
        # exit 1 for any input file the user named, 2 for the command line
        missing = os.path.join(self.tmp, "nope.csv")
        for opt in ("--trace", "--models", "--gittins-dist", "--contention-curve"):
            r = run(opt, missing)
            self.assertEqual(r.returncode, 1, (opt, r.stderr))
            self.assertIn("netsched-sim: %s: cannot read '%s': No such file or directory"
                          % (opt, missing), r.stderr)
            r = run(opt, self.tmp)
            self.assertEqual(r.returncode, 1, (opt, r.stderr))
            self.assertIn("netsched-sim: %s: '%s' is a directory" % (opt, self.tmp), r.stderr)
            self.assertEqual(r.stdout, "")
        bad = self.write("m.csv", "name,forward_ms\nx,1\n")
        r = run("--models", bad)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("missing column backward_ms", r.stderr)
        if os.geteuid() != 0:  # root reads any file
            locked = self.write("locked.csv", "job_id,num_gpu,submit_time,iterations,model_name\n")
            os.chmod(locked, 0)
            r = run("--trace", locked)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("cannot read '%s': Permission denied" % locked, r.stderr)
        self.assertUsageError(run("--gpus", "0"))  # a value on the command line: 2
        r = run("--help")
        self.assertIn("1 a policy failed, an input file (--trace, --models, --gittins-dist, "
                      "--contention-curve) is missing, a directory, unreadable or malformed",
                      " ".join(r.stdout.split()))
        with open(os.path.join(support.REPO, "share", "man", "netsched-sim.1")) as f:
            man = f.read()
        self.assertIn("is missing, a directory, unreadable or malformed", " ".join(man.split()))

    def test_json_and_summary_both_on_stdout(self):
        r = run("--json", "-", "--summary-csv", "-")
        self.assertUsageError(r, "--json - and --summary-csv - both ask for stdout")
        self.assertNotIn("did you mean", r.stderr)

    def test_limit_keeps_the_first_jobs_by_arrival(self):
        # the 7 earliest submit_time values of the sample trace (ties: file order)
        with open(SAMPLE) as f:
            rows = list(csv.DictReader(f))
        order = sorted(range(len(rows)), key=lambda i: (float(rows[i]["submit_time"]), i))
        first = {rows[i]["job_id"] for i in order[:7]}
        args = ("--trace", SAMPLE, "--models", MODELS, "--leaves", "4", "--servers", "8",
                "--gpus", "8", "--no-progress")
        r = run(*args, "--limit", "7", "--json", "-", "--json-jobs")
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        self.assertEqual(doc["workload"]["jobs"], 7)
        self.assertEqual({j["job_id"] for j in doc["policies"][0]["jobs"]}, first)
        r = run(*args, "--limit", "7")
        self.assertIn(", 7 jobs (the first by arrival of %d: --limit)" % len(rows), r.stdout)
        r = run(*args, "--limit", str(len(rows) + 5))  # more than the trace: every job
        self.assertIn(", %d jobs;" % len(rows), r.stdout)
        self.assertUsageError(run("--limit", "0"), "--limit must be an integer in [1, ")

    def test_help_fits_100_columns(self):
        r = run("--help")
        wide = [l for l in r.stdout.splitlines() if len(l) > 100 or l.endswith(" ")]
        self.assertEqual(wide, [])
        # --list stays one line per policy: scripts read its first column
        names = [l.split()[0] for l in run("--list").stdout.splitlines()]
        doc = json.loads(run("--all", "--limit", "1", "--json", "-", "--no-progress").stdout)
        self.assertEqual(names, [p["policy"] for p in doc["policies"]])
        self.assertGreater(len(names), 10)
        # wrapped, not cut: the longest help text is all there
        self.assertIn("(communication free, to compare with simulators that model no network)",
                      " ".join(run("--help").stdout.split()))

    def test_nothing_to_run_is_an_error_before_the_table(self):
        empty = self.write("empty.csv", "job_id,num_gpu,submit_time,iterations,model_name\n")
        r = run("--trace", empty)
        self.assertEqual((r.returncode, r.stdout), (1, ""))
        self.assertIn("--trace %s: nothing to run: the file has no job rows" % empty, r.stderr)
        big = self.write("big.csv", "job_id,num_gpu,submit_time,iterations,model_name\n"
                                    "a,65,0,10,vgg16\nb,99,5,10,vgg16\n")
        r = run("--trace", big)
        self.assertEqual((r.returncode, r.stdout), (1, ""))
        self.assertIn("nothing to run: every job (2) is larger than the cluster (--leaves 4 x "
                      "--servers 4 x --gpus 4)", r.stderr)
        self.assertNotIn(" s has", r.stderr)

    def test_philly_durations_are_exact(self):
        # Issue 29: a Philly row's iterations come from its drawn model, its
        # compute per iteration is fitted to the duration, so a job alone
        # runs its duration: 3964 s, not 3964.031 s (whole iterations). The
        # jobs arrive a day apart: each runs alone. 1 GPU (no all-reduce) and
        # 4 GPUs on one 4-GPU server (consolidated), under every network.
        trace = self.write("p.csv", "timestamp,duration,num_gpus\n"
                                    "2017-10-03 10:00:00,3964,1\n"
                                    "2017-10-04 10:00:00,1234.5,4\n"
                                    "2017-10-05 10:00:00,0.25,2\n")
        for net in ("ideal", "phase", "maxmin", "contention"):
            r = run("--trace", trace, "--network", net, "--json", "-", "--json-jobs",
                    "--no-progress")
            self.assertEqual(r.returncode, 0, r.stderr)
            jobs = json.loads(r.stdout)["policies"][0]["jobs"]
            for job, want in zip(jobs, (3964000.0, 1234500.0, 250.0)):
                self.assertAlmostEqual(job["jct_ms"], want, delta=want * 1e-12, msg=(net, job))

    @unittest.skipUnless(shutil.which("gnuplot"), "gnuplot not installed (Debian gnuplot-nox)")
    def test_plot_format_from_extension(self):
        magic = {".png": b"\x89PNG", ".svg": b"<?xml", ".pdf": b"%PDF"}
        for ext, head in magic.items():
            path = os.path.join(self.tmp, "jct" + ext)
            r = run("--policy", "ff,ls", "--plot", path)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(path, "rb") as f:
                self.assertEqual(f.read(len(head)), head, ext)
        with open(os.path.join(self.tmp, "jct.svg")) as f:
            svg = f.read()
        # ff and ls tie (same CDF): their lines differ in dash pattern
        self.assertGreaterEqual(svg.count("stroke-dasharray"), 1)

    def test_progress_forced(self):
        r = run("--policy", "ff", "--progress")
        self.assertIn("] 160/160", r.stderr)
        r = run("--policy", "ff", "--no-progress")
        self.assertNotIn("160/160", r.stderr)


    def test_rows_are_flushed_as_each_policy_finishes(self):
        # stdout is a pipe (block-buffered by default): the ff row must
        # arrive while the later policies still run, not at exit
        args = [SIM, "--policy", "ff,rand,fifo,srsf-ff,sjf-ff", "--trace", SAMPLE,
                "--models", MODELS, "--leaves", "4", "--servers", "8", "--gpus", "8",
                "--no-progress"]
        with subprocess.Popen(args, stdout=subprocess.PIPE, text=True) as p:
            lines = [p.stdout.readline() for _ in range(3)]  # workload, header, ff
            still_running = p.poll() is None
            p.kill()
        self.assertTrue(lines[2].startswith("ff "), lines)
        self.assertTrue(still_running, "the first row came only when the run ended")


if __name__ == "__main__":
    unittest.main()
