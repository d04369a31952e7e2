"""The papers' speed goals (Chi 2018): RNG, streaming surrogate (real and complex), online tracker.

Each goal is a pair ``time_ours_X`` / ``time_numpy_X`` timed in the same run (``asv_bench/ratios.py``
prints the ratios), plus ``track_fraction_of_limit_X`` against the cost model in ``_costmodel.py``.
"""
import numpy as np

from simverify.generators import bitsubspace as gen
from simverify.kernels import rng, streams
from simverify.solvers import bitsubspace as sol

from ._costmodel import N_NORMALS, _best, rates, surrogate_limit, surrogate_numpy_reference, tracker_limit


class RNG:
    number, repeat, rounds = 1, 5, 2  # 10 samples; asv reports their median, ratios.py the ratio of medians

    def setup(self):
        rates()
        self.g = np.random.default_rng(1)

    def time_ours_standard_normal_1e7(self):
        streams.standard_normal(1, N_NORMALS)

    def time_pcg64_standard_normal_1e7(self):
        """The sampler every paper but slm drew with before ``kernels.streams``, beside it in the same run."""
        rng.pcg64_standard_normal(1, N_NORMALS)

    def time_numpy_standard_normal_1e7(self):
        self.g.standard_normal(N_NORMALS)

    def track_fraction_of_limit_standard_normal_1e7(self):
        """Limit: the one-thread rate divided by the thread count."""
        r = rates()
        return N_NORMALS * r["normal_1"] / r["threads"] / _best(lambda: streams.standard_normal(1, N_NORMALS))

    track_fraction_of_limit_standard_normal_1e7.unit = "fraction"


class Surrogate:
    timeout = 900
    number, repeat, rounds = 1, 3, 1  # 3 samples of a several-second call

    def setup(self):
        self.real = gen.SensingModel(gen.orthonormal_basis(100, 3, 0))
        self.complex = gen.SensingModel(gen.line_spectrum_factor(100, [0.1, 0.4], [1.0, 1.0]), complex_sketches=True)
        sol.surrogate_matrix(self.real, 10, 0)
        sol.surrogate_matrix(self.complex, 10, 0)
        rates()

    def time_ours_surrogate_n100_m1e6(self):
        sol.surrogate_matrix(self.real, 1_000_000, 1)

    def time_numpy_surrogate_n100_m1e6(self):
        surrogate_numpy_reference(self.real.factor, 1_000_000, 1)

    def track_fraction_of_limit_surrogate_n100_m1e6(self):
        return surrogate_limit(100, 1_000_000) / _best(lambda: sol.surrogate_matrix(self.real, 1_000_000, 1), 2)

    track_fraction_of_limit_surrogate_n100_m1e6.unit = "fraction"

    def track_fraction_of_limit_complex_surrogate_n100_m2e5(self):
        return (surrogate_limit(100, 200_000, complex_sketches=True)
                / _best(lambda: sol.surrogate_matrix(self.complex, 200_000, 1), 2))

    track_fraction_of_limit_complex_surrogate_n100_m2e5.unit = "fraction"

    def peakmem_surrogate_m1e5(self):
        sol.surrogate_matrix(self.real, 100_000, 1)

    def peakmem_surrogate_m1e6(self):
        sol.surrogate_matrix(self.real, 1_000_000, 1)


class Tracker:
    number, repeat, rounds = 1, 5, 1

    def setup(self):
        self.model = gen.SensingModel(gen.gaussian_factor(40, 3, 0))
        sol.OnlineSubspaceTracker(40, 3, by_magnitude=False).track(self.model, 100, 0)
        rates()

    def time_online_tracker_n40_r3_m2e4(self):
        sol.OnlineSubspaceTracker(40, 3, by_magnitude=False).track(self.model, 20_000, 1)

    def track_fraction_of_limit_online_tracker_n40_r3_m2e4(self):
        """Far below 1: each update is a handful of tiny BLAS/LAPACK calls whose call overhead,
        not flops or normals, dominates."""
        return tracker_limit(40, 3, 20_000) / _best(
            lambda: sol.OnlineSubspaceTracker(40, 3, by_magnitude=False).track(self.model, 20_000, 1))

    track_fraction_of_limit_online_tracker_n40_r3_m2e4.unit = "fraction"

    def peakmem_online_tracker_m2e3(self):
        sol.OnlineSubspaceTracker(40, 3, by_magnitude=False).track(self.model, 2_000, 1)

    def peakmem_online_tracker_m2e4(self):
        sol.OnlineSubspaceTracker(40, 3, by_magnitude=False).track(self.model, 20_000, 1)
