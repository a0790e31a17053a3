"""AdaDUAL through the bindings: Eq. 5, Table I, Algorithm 2 and the
contention fit, with the numbers of tests/unit/test_adadual.c."""

import math
import unittest

import netsched
from netsched import Collective, adadual

from . import support

MIB = float(1 << 20)
B_PUB, ETA_PUB = 0.856 / MIB, 0.235 / MIB  # the authors' 10 GbE fit, ms/byte


@support.requires("ns_comm_time_ms")
class TestCommTime(unittest.TestCase):
    def test_eq5(self):
        a, b, m = 0.669, 8.53e-7, 104857600  # Fig. 2: 100 MB
        self.assertAlmostEqual(adadual.comm_time_ms(a, b, 0, 1, m), 90.1125328, places=6)
        # k = 4, eta = 2e-7: 0.669 + 4*89.4435328 + 3*20.97152
        self.assertAlmostEqual(adadual.comm_time_ms(a, b, 2e-7, 4, m), 421.3576912, places=6)
        # published fit, 10 MiB, two-way contention: (2b + eta) M = 19.47 ms
        self.assertAlmostEqual(adadual.comm_time_ms(0, B_PUB, ETA_PUB, 2, 10485760), 19.47,
                               places=9)

    def test_bad_input(self):
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            adadual.comm_time_ms(0, B_PUB, ETA_PUB, 0, 10)
        self.assertIn("adadual.comm_time_ms: k", str(cm.exception))
        self.assertIn("k", str(cm.exception))
        with self.assertRaises(netsched.InvalidArgumentError):
            adadual.comm_time_ms(math.nan, B_PUB, ETA_PUB, 1, 10)
        with self.assertRaises(TypeError):
            adadual.comm_time_ms(0, B_PUB, ETA_PUB, 1.0, 10)
        with self.assertRaises(netsched.InvalidArgumentError):
            adadual.comm_time_ms(0, B_PUB, ETA_PUB, 1, -10)  # not a uint64


@support.requires("ns_adadual_decide")
class TestDecide(unittest.TestCase):
    def decide1(self, b, eta, m_new, m_old):
        return adadual.decide(b, eta, m_new, [1, 1], [m_old, m_old])

    def test_threshold_0_3923(self):
        # b/(2(b+eta)) = 0.856/2.182 = 0.3923; 100 MiB left on the old task:
        # the decision flips between 41135703 and 41135704 bytes.
        m_old = 104857600
        edge = math.floor(0.856 / 2.182 * m_old)
        self.assertEqual(edge, 41135703)
        self.assertIs(self.decide1(B_PUB, ETA_PUB, edge, m_old), True)
        self.assertIs(self.decide1(B_PUB, ETA_PUB, edge + 1, m_old), False)
        self.assertIs(self.decide1(B_PUB, ETA_PUB, m_old, m_old), False)  # Theorem 1

    def test_branches(self):
        self.assertTrue(adadual.decide(B_PUB, ETA_PUB, 1 << 30, [0, 0, 0], None))
        self.assertFalse(adadual.decide(B_PUB, ETA_PUB, 1, [0, 2, 1], [0, 0, 10 ** 9]))
        # different single tasks: compare with the smallest remaining (300 MB)
        self.assertFalse(adadual.decide(B_PUB, ETA_PUB, 150_000_000, [1, 1],
                                        [10 ** 9, 300_000_000]))
        self.assertTrue(adadual.decide(B_PUB, ETA_PUB, 100_000_000, [1, 1],
                                       [10 ** 9, 300_000_000]))

    def test_bad_input(self):
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            adadual.decide(B_PUB, ETA_PUB, 1, [1, -1], [5, 0])
        self.assertIn("adadual.decide: tasks_per_server[1]", str(cm.exception))
        with self.assertRaises(netsched.InvalidArgumentError):
            adadual.decide(B_PUB, ETA_PUB, 1, [1, 1], [5])  # lengths differ
        with self.assertRaises(TypeError):
            adadual.decide(B_PUB, ETA_PUB, 1, 3, [5])
        with self.assertRaises(TypeError):
            adadual.decide(B_PUB, ETA_PUB, 1, [1], ["5"])


@support.requires("ns_adadual_threshold")
class TestThreshold(unittest.TestCase):
    def test_published_0_3923(self):
        self.assertAlmostEqual(adadual.threshold(B_PUB, ETA_PUB), 0.3923, delta=5e-5)
        self.assertAlmostEqual(adadual.threshold(0.856, 0.235), 0.39230064, places=8)
        self.assertEqual(adadual.threshold(1, 0), 0.5)
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            adadual.threshold(0, 1)
        self.assertIn("b_ms_per_byte", str(cm.exception))


@support.requires("ns_allreduce_algo_cost")
class TestTableIRows(unittest.TestCase):
    def test_rows(self):
        alpha, beta, gamma = 0.5, 1e-3, 2e-4
        Algo = adadual.AllreduceAlgo
        cases = [(Algo.BINARY_TREE, 3.0, 6.6e-3), (Algo.RECURSIVE_DOUBLING, 1.5, 3.6e-3),
                 (Algo.HALVING_DOUBLING, 3.0, 1.925e-3), (3, 7.0, 1.925e-3)]
        for algo, want_a, want_b in cases:
            with self.subTest(algo=algo):
                a, b = adadual.allreduce_algo_cost(algo, 8, alpha, beta, gamma)
                self.assertAlmostEqual(a, want_a, places=12)
                self.assertAlmostEqual(b, want_b, places=15)
        with self.assertRaises(netsched.InvalidArgumentError):
            adadual.allreduce_algo_cost(4, 8, alpha, beta, gamma)
        with self.assertRaises(netsched.InvalidArgumentError):
            adadual.allreduce_algo_cost(Algo.BINARY_TREE, 6, alpha, beta, gamma)  # not 2^k


@support.requires("ns_allreduce_cost")
class TestTableI(unittest.TestCase):
    def test_costs(self):
        alpha, beta, gamma = 0.5, 1e-3, 2e-4
        cases = [(Collective.TREE, 3.0, 6.6e-3),              # 2a log N, (2b+g) log N
                 (Collective.HALVING_DOUBLING, 3.0, 1.925e-3),  # 2b - (2b+g)/N + g
                 (Collective.RING, 7.0, 1.925e-3)]             # 2(N-1)a, ...
        for coll, want_a, want_b in cases:
            with self.subTest(coll=coll):
                a, b = adadual.allreduce_cost(coll, 8, alpha, beta, gamma)
                self.assertAlmostEqual(a, want_a, places=12)
                self.assertAlmostEqual(b, want_b, places=15)
        a, b = adadual.allreduce_cost(0, 6, alpha, beta, gamma)  # ring, any N
        self.assertAlmostEqual(a, 5.0, places=12)
        self.assertAlmostEqual(b, 10 / 6 * beta + 5 / 6 * gamma, places=15)
        with self.assertRaises(netsched.UnsupportedError):
            adadual.allreduce_cost(Collective.ALL_TO_ALL, 8, alpha, beta, gamma)
        with self.assertRaises(netsched.InvalidArgumentError):
            adadual.allreduce_cost(Collective.RING, 0, alpha, beta, gamma)
        with self.assertRaises(TypeError):
            adadual.allreduce_cost(b"ring", 8, alpha, beta, gamma)
        self.assertEqual(adadual.allreduce_cost("ring", 8, alpha, beta, gamma),
                         adadual.allreduce_cost(Collective.RING, 8, alpha, beta, gamma))


@support.requires("ns_contention_fit")
class TestFit(unittest.TestCase):
    def test_recovers_exact_parameters(self):
        a, b, eta = 2.0, 1e-6, 3e-7
        ks, ms, ts = [], [], []
        for k in (1, 2, 3, 4):
            for m in (1_000_000, 5_000_000, 10_000_000):
                ks.append(k)
                ms.append(m)
                ts.append(a + k * b * m + (k - 1) * eta * m)  # Eq. 5
        fit = adadual.contention_fit(ks, ms, ts)
        self.assertAlmostEqual(fit.a_ms, a, places=6)
        self.assertAlmostEqual(fit.b_ms_per_byte / b, 1.0, places=6)
        self.assertAlmostEqual(fit.eta_ms_per_byte / eta, 1.0, places=6)
        self.assertLess(fit.rms_residual_ms, 1e-6)

    def test_measured_10gbe_contention(self):
        # The HKBU 10 GbE measurements (k <= 2), expected values from
        # tests/unit/test_adadual.c (exact rational least squares).
        path = support.data_path("contention", "allreduce-latency-vs-concurrency.csv")
        if path is None:
            self.skipTest("shared data not found (set NS_DATA_DIR)")
        with open(path) as f:
            rows = [r.split(",") for r in f.read().split()[1:]]
        rows = [(int(k), int(m), float(us) / 1000.0) for k, m, us in rows if int(k) <= 2]
        self.assertEqual(len(rows), 6)
        self.assertEqual(rows[0][:2], (1, 10485760))
        self.assertAlmostEqual(rows[0][2], 144.8, delta=0.05)  # 10 MiB alone
        self.assertAlmostEqual(rows[1][2], 253.0, delta=0.05)  # k = 2
        fit = adadual.contention_fit(*zip(*rows))
        self.assertAlmostEqual(fit.a_ms, 10.59737596, delta=1e-5)
        self.assertAlmostEqual(fit.b_ms_per_byte / 9.912224945e-06, 1.0, delta=1e-6)
        self.assertAlmostEqual(fit.eta_ms_per_byte / 6.450263963e-06, 1.0, delta=1e-6)
        self.assertAlmostEqual(fit.rms_residual_ms, 19.21792223, delta=1e-4)

    def test_bad_input(self):
        with self.assertRaises(netsched.InvalidArgumentError):
            adadual.contention_fit([1, 2], [10, 20], [1.0])
        with self.assertRaises(netsched.InvalidArgumentError) as cm:
            adadual.contention_fit([1, 2, 3], [10, 20, 30], [1.0, math.nan, 3.0])
        self.assertIn("adadual.contention_fit: time_ms[1]", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
