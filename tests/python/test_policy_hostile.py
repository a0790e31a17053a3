"""netsched.Policy's preemption, lease and drift calls (issue 28) against bad
arguments: each raises the documented exception (InvalidArgumentError for a
bad value, NotFoundError for a report out of order, TypeError for a wrong
type) whose message names the Python method, the Python parameter and
quotes the value; the objects are left as they were."""

import math
import re
import unittest

from netsched import Cluster, Job, Policy
from netsched import policy as pol
from netsched.errors import InvalidArgumentError, NotFoundError

from . import support


def job(name="j", gpus=2):
    j = Job(name, gpus)
    j.iteration_ms = 100.0
    j.add_phase(40.0, 40.0)
    j.add_phase(60.0, 0.0)
    j.set_compute_ms(20.0, 40.0)
    return j


BAD = [(math.nan, "nan"), (math.inf, "inf"), (-1.5, "-1.5"), (1e300, "1e+300")]


@support.requires("ns_policy_new", "ns_policy_set_dally_lease", "ns_policy_report_allreduce")
class TestPolicyHostile(unittest.TestCase):
    def assertNames(self, exc, *needles):
        msg = str(exc.exception)
        for n in needles:
            self.assertIn(n, msg)
        self.assertIsNone(re.search(r"\bns_[a-z]+_[a-z]", msg), msg)  # Python calls, not C ones

    def test_queue_attained_and_running(self):
        q = pol.Queue()
        j = job()
        self.assertEqual(q.add(j, 1, 0.0), 0)
        for v, shown in BAD:
            with self.assertRaises(InvalidArgumentError) as e:
                q.set_attained_ms(0, v)
            self.assertNames(e, "Queue.set_attained_ms", "attained_ms", shown)
            with self.assertRaises(InvalidArgumentError) as e:
                q.add(j, 2, 0.0, running=True, attained_ms=v)
            self.assertNames(e, "Queue.add", "attained_ms", shown)
            self.assertEqual(len(q), 1)  # a failed add leaves the queue as it was
        with self.assertRaises(InvalidArgumentError) as e:
            q.add(j, 2, math.nan, running=True)
        self.assertNames(e, "Queue.add", "arrival_ms", "nan")
        with self.assertRaises(InvalidArgumentError) as e:
            q.set_attained_ms(3, 1.0)
        self.assertNames(e, "Queue.set_attained_ms", "i 3")
        with self.assertRaises(InvalidArgumentError) as e:
            q.set_attained_ms(-1, 1.0)
        self.assertNames(e, "Queue.set_attained_ms", "i", "-1")
        with self.assertRaises(InvalidArgumentError) as e:
            q.set_running(0, 2)
        self.assertNames(e, "Queue.set_running", "running", "2")
        with self.assertRaises(TypeError) as e:
            q.set_attained_ms(0, "5")
        self.assertNames(e, "Queue.set_attained_ms", "attained_ms", "str")
        self.assertFalse(q.running(0))
        with self.assertRaises(InvalidArgumentError) as e:
            q.running(1)
        self.assertNames(e, "Queue.running", "i 1")

    def test_preemptive_options(self):
        p = Policy("2d-gittins")
        with self.assertRaises(InvalidArgumentError) as e:
            p.set_las_queues([1e3, math.nan])
        self.assertNames(e, "Policy.set_las_queues", "thresholds_gpu_ms[1]", "nan")
        with self.assertRaises(InvalidArgumentError) as e:
            p.set_las_queues([5e3, 5e3])
        self.assertNames(e, "Policy.set_las_queues", "thresholds_gpu_ms[1]", "5e+03")
        # 8 thresholds would be 9 queues: named as the Python argument
        with self.assertRaises(InvalidArgumentError) as e:
            p.set_las_queues([float(k + 1) for k in range(8)])
        self.assertNames(e, "Policy.set_las_queues", "thresholds_gpu_ms", "8")
        self.assertNotIn("queues must", str(e.exception))
        for v, shown in BAD:
            with self.assertRaises(InvalidArgumentError) as e:
                p.set_starvation(v)
            self.assertNames(e, "Policy.set_starvation", "knob", shown)
            with self.assertRaises(InvalidArgumentError) as e:
                p.set_gittins_samples([1e3, v])
            self.assertNames(e, "Policy.set_gittins_samples", "gpu_time_ms[1]", shown)
            with self.assertRaises(InvalidArgumentError) as e:
                p.set_dally_lease(v)
            self.assertNames(e, "Policy.set_dally_lease", "lease_ms", shown)
        with self.assertRaises(InvalidArgumentError) as e:
            p.set_dally_lease(999)
        self.assertNames(e, "Policy.set_dally_lease", "lease_ms", "999")
        self.assertEqual(p.dally_lease_ms, 20 * 60e3)
        with self.assertRaises(InvalidArgumentError) as e:
            p.set_cassini_drift_rule("sometimes")
        self.assertNames(e, "Policy.set_cassini_drift_rule", "rule", "sometimes")
        with self.assertRaises(InvalidArgumentError) as e:
            p.set_cassini_drift_rule(-1)
        self.assertNames(e, "Policy.set_cassini_drift_rule", "rule", "-1")
        with self.assertRaises(InvalidArgumentError) as e:
            p.lease(-1)
        self.assertNames(e, "Policy.lease", "id", "-1")
        self.assertIsNone(p.lease(7))
        c = p.clone()
        self.assertEqual(c.name, "2d-gittins")

    def test_report_calls_in_the_wrong_order_and_bad_values(self):
        p = Policy("cassini-ff")
        cl = Cluster.leaf_spine(2, 1, 1, 2, 1, 10.0)
        j = job("rj")
        with self.assertRaises(NotFoundError) as e:
            p.report_shifted(j, 10.0)
        self.assertNames(e, "Policy.report_shifted", "'rj'")
        with self.assertRaises(NotFoundError) as e:
            p.report_allreduce(cl, j, 10.0)
        self.assertNames(e, "Policy.report_allreduce", "'rj'")
        for v, shown in BAD:
            with self.assertRaises(InvalidArgumentError) as e:
                p.report_iteration(j, v, 1.0)
            self.assertNames(e, "Policy.report_iteration", "compute_ms", shown)
            with self.assertRaises(InvalidArgumentError) as e:
                p.report_iteration(j, 1.0, v)
            self.assertNames(e, "Policy.report_iteration", "allreduce_ms", shown)
        p.report_iteration(j, 60.0, 40.0)
        for v, shown in BAD:
            with self.assertRaises(InvalidArgumentError) as e:
                p.report_shifted(j, v)
            self.assertNames(e, "Policy.report_shifted", "slot_ms", shown)
            with self.assertRaises(InvalidArgumentError) as e:
                p.report_allreduce(cl, j, v)
            self.assertNames(e, "Policy.report_allreduce", "start_ms", shown)
        with self.assertRaises(TypeError) as e:
            p.report_allreduce(None, j, 1.0)
        self.assertNames(e, "Policy.report_allreduce", "cluster")
        # drifted while not committed: refused, naming the Python argument
        p.report_shifted(j, 0.0)
        with self.assertRaises(InvalidArgumentError) as e:
            p.report_allreduce(cl, j, 30.0)
        self.assertNames(e, "Policy.report_allreduce", "'rj'", "not committed on cluster")
        p.set_seed(3)  # still settable: the refusal built nothing
        self.assertEqual(p.readjust_count, 0)
        for v, shown in [(math.nan, "nan"), (-math.inf, "-inf")]:
            for call, name in [(p.finished, "Policy.finished"), (p.suspended, "Policy.suspended"),
                               (p.started, "Policy.started")]:
                with self.assertRaises(InvalidArgumentError) as e:
                    call(j, v)
                self.assertNames(e, name, "now_ms", shown)

    def test_admit(self):
        p = Policy("ada-srsf")
        with self.assertRaises(InvalidArgumentError) as e:
            p.admit(1, others_per_link=[0, -3])
        self.assertNames(e, "Policy.admit", "others_per_link[1]", "-3")
        with self.assertRaises(InvalidArgumentError) as e:
            p.admit(-1)
        self.assertNames(e, "Policy.admit", "model_bytes", "-1")
        with self.assertRaises(InvalidArgumentError) as e:
            p.admit(1, tasks_per_server=[1], remaining_bytes=[])
        self.assertNames(e, "Policy.admit", "remaining_bytes", "tasks_per_server")

    def test_save_load(self):
        p = Policy("dally")
        good = b"ns_policy 1\npolicy dally\nwait 0 2 1500 10000\n"
        p.load(good)
        self.assertEqual(p.save(), good)
        for blob, needle in [(b"", "truncated"), (b"garbage\n", "line 1"),
                             (b"ns_policy 1\npolicy ff\n", "'ff'"),
                             (b"ns_policy 1\npolicy dally\nwait 0 2 1 1e300\n", "line 3"),
                             (b"ns_policy 1\npolicy dally\nwait 0 2 nan 1\n", "line 3")]:
            with self.assertRaises(InvalidArgumentError) as e:
                p.load(blob)
            self.assertNames(e, "Policy.load", needle)
            self.assertEqual(p.save(), good)  # refused: nothing changed
        with self.assertRaises(TypeError) as e:
            p.load("ns_policy 1")
        self.assertNames(e, "Policy.load", "state", "str")

    def test_decide_refuses_a_repeated_id_and_stays_usable(self):
        for preset in ("2d-las", "dally"):
            p = Policy(preset)
            if preset == "dally":
                p.set_dally_lease(1000.0)
            cl = Cluster.leaf_spine(2, 2, 2, 4, 1, 10.0)
            a, b = job("a", 2), job("b", 2)
            q = pol.Queue()
            q.add(a, 5, 0.0)
            q.add(b, 5, 0.0)
            with self.assertRaises(InvalidArgumentError) as e:
                p.decide(cl, q, 0.0)
            self.assertNames(e, "Policy.decide", "id 5", "distinct")
            q.clear()
            q.add(a, 5, 0.0)
            q.add(b, 6, 0.0)
            d = p.decide(cl, q, 0.0)
            self.assertEqual(d.started, [0, 1])
            with self.assertRaises(InvalidArgumentError) as e:
                p.decide(cl, q, math.nan)
            self.assertNames(e, "Policy.decide", "now_ms", "nan")


if __name__ == "__main__":
    unittest.main()
