"""Every public @njit kernel at a realistic size (warm JIT: setup calls each once).

Stream kernels (sense_chunk, sense_chunk_complex, surrogate_slots(_complex), bit_error_counts,
projected_diagonal_sums) run through their validated public wrappers, which add only argument checks;
the rest are called directly.
"""
import numpy as np

from simverify.generators import bitsubspace as gen
from simverify.kernels import linalg, sensing, streams, tracking
from simverify.solvers import bitsubspace as sol

N, R, CHUNK = 100, 3, sensing.SENSOR_CHUNK


class StreamKernels:
    """sense_chunk(_complex) one chunk; the bit-error and projected-diagonal streams at m = 1e6."""
    timeout = 300

    def setup(self):
        self.real = gen.SensingModel(gen.orthonormal_basis(N, R, 0), samples=10)
        self.complex = gen.SensingModel(gen.line_spectrum_factor(N, [0.1, 0.4], [1.0, 1.0]), complex_sketches=True)
        self.A, self.B = np.empty((CHUNK, N)), np.empty((CHUNK, N))
        self.Ac, self.Bc = np.empty((CHUNK, N), complex), np.empty((CHUNK, N), complex)
        self.y, self.ye = np.empty(CHUNK), np.empty(CHUNK)
        self.g = gen.sensor_streams(CHUNK, 0)[0]
        for m in (self.real, self.complex):
            next(gen.sensor_chunks(m, 10, 0))
        gen.bit_error_rate(self.real, 10, 0)
        gen.projected_surrogate_diagonal(np.ones(R), 10, 0)

    def time_sense_chunk_n100_T10(self):
        sensing.sense_chunk(self.g, self.real.factor, 10, 0.0, self.A, self.B, self.y, self.ye)

    def time_sense_chunk_complex_n100(self):
        sensing.sense_chunk_complex(self.g, self.complex.factor, 0.0, self.Ac, self.Bc, self.y, self.ye)

    def time_bit_error_counts_m1e6(self):
        gen.bit_error_rate(self.real, 1_000_000, 1)

    def time_projected_diagonal_sums_r3_m1e6(self):
        gen.projected_surrogate_diagonal(np.array([3.0, 2.0, 1.0]), 1_000_000, 1)


class DenseKernels:
    def setup(self):
        g = np.random.default_rng(0)
        self.A0, self.B0 = g.standard_normal((CHUNK, N)), g.standard_normal((CHUNK, N))
        self.y = np.sign(g.standard_normal(CHUNK))
        self.acc = np.zeros((N, N))
        self.v = g.standard_normal(N * N)
        S = g.standard_normal((N, N))
        self.M = (S + S.T) / 2
        self.J = sol.surrogate_matrix(gen.SensingModel(gen.orthonormal_basis(40, 2, 0)), 20_000, 0)
        self.U = np.linalg.qr(g.standard_normal((40, 5)))[0]
        self.pi = np.ones(5)
        self.sense_A, self.sense_B = g.standard_normal((CHUNK, 40)), g.standard_normal((CHUNK, 40))
        self.sense_y = np.sign(g.standard_normal(CHUNK))
        self.time_accumulate_rank_two_n100_chunk()
        linalg.project_l1_ball(self.v, 10.0)
        linalg.project_psd_fball(self.M)
        linalg.sparse_set_admm(self.J, 2.0, 5, 1.0, 1e-8)
        tracking.track_chunk(self.U.copy(), self.pi.copy(), self.sense_A[:4], self.sense_B[:4], self.sense_y[:4], 0,
                             False)
        sensing.finite_sample_difference(1.0, 0.5, 0.2, 10.0, 9.0, 10)

    def time_accumulate_rank_two_n100_chunk(self):
        sensing.accumulate_rank_two(self.acc, self.A0.copy(), self.B0.copy(), self.y)

    def time_project_l1_ball_1e4(self):
        linalg.project_l1_ball(self.v, 10.0)

    def time_project_psd_fball_n100(self):
        linalg.project_psd_fball(self.M)

    def time_sparse_set_admm_n40_100_iterations(self):
        linalg.sparse_set_admm(self.J, 2.0, 100, 1.0, 0.0)

    def time_track_chunk_n40_r5_chunk(self):
        """rank_two_update once per sensor of one chunk."""
        tracking.track_chunk(self.U.copy(), self.pi.copy(), self.sense_A, self.sense_B, self.sense_y, 0, False)

    def time_finite_sample_difference(self):
        sensing.finite_sample_difference(1.0, 0.5, 0.2, 10.0, 9.0, 10)

    def time_standard_normal_1e6(self):
        streams.standard_normal(2, 1_000_000)
