"""asv benchmarks: RNG kernel, streaming surrogate, online tracker (Chi 2018).

Goals are ratios within one run (track_ benchmarks), never absolute times:
normal generation vs numpy's default_rng, surrogate accumulation vs a batched NumPy
reference, and peak memory of the streaming estimator at m = 1e5 vs 1e6.
"""
import time

import numpy as np

from simverify.generators import bitsubspace as gen
from simverify.kernels import rng
from simverify.solvers import bitsubspace as sol


def _best(fn, repeat=3):
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def surrogate_numpy_reference(F, m, seed, batch=4096):
    """Batched NumPy: default_rng normals, energies, J += A^T diag(y) A - B^T diag(y) B."""
    g = np.random.default_rng(seed)
    n = F.shape[0]
    J = np.zeros((n, n))
    for s in range(0, m, batch):
        c = min(batch, m - s)
        A, B = g.standard_normal((c, n)), g.standard_normal((c, n))
        y = np.where(((A @ F) ** 2).sum(1) > ((B @ F) ** 2).sum(1), 1.0, -1.0)
        J += (A * y[:, None]).T @ A - (B * y[:, None]).T @ B
    return J / m


class RNG:
    def setup(self):
        rng.standard_normal(0, 10)

    def time_standard_normal_1e7(self):
        rng.standard_normal(1, 10_000_000)

    def track_speedup_vs_numpy(self):
        g = np.random.default_rng(1)
        return _best(lambda: g.standard_normal(10_000_000)) / _best(lambda: rng.standard_normal(1, 10_000_000))

    track_speedup_vs_numpy.unit = "x"


class Surrogate:
    timeout = 600

    def setup(self):
        self.F = gen.orthonormal_basis(100, 3, 0)
        sol.surrogate_matrix(gen.SensingModel(self.F), 10, 0)

    def time_surrogate_n100_m1e6(self):
        sol.surrogate_matrix(gen.SensingModel(self.F), 1_000_000, 1)

    def track_speedup_vs_numpy_n100_m1e6(self):
        model = gen.SensingModel(self.F)
        return (_best(lambda: surrogate_numpy_reference(self.F, 1_000_000, 1), 1)
                / _best(lambda: sol.surrogate_matrix(model, 1_000_000, 1), 1))

    track_speedup_vs_numpy_n100_m1e6.unit = "x"

    def peakmem_surrogate_m1e5(self):
        sol.surrogate_matrix(gen.SensingModel(self.F), 100_000, 1)

    def peakmem_surrogate_m1e6(self):
        sol.surrogate_matrix(gen.SensingModel(self.F), 1_000_000, 1)


class Tracker:
    def setup(self):
        self.model = gen.SensingModel(gen.gaussian_factor(40, 3, 0))
        sol.OnlineSubspaceTracker(40, 3, by_magnitude=False).track(self.model, 100, 0)

    def time_online_tracker_n40_r3_m2e4(self):
        sol.OnlineSubspaceTracker(40, 3, by_magnitude=False).track(self.model, 20_000, 1)


def timeraw_import_and_first_call():
    return """
from simverify.solvers import bitsubspace as sol
from simverify.generators import bitsubspace as gen
sol.surrogate_matrix(gen.SensingModel(gen.gaussian_factor(10, 2, 0)), 100, 0)
"""
