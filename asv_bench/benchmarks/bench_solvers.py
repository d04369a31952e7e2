"""Every public solver of Chi (2018) at the paper's sizes (warm JIT)."""

from simverify.generators import bitsubspace as gen
from simverify.solvers import bitsubspace as sol


class BatchSolvers:
    timeout = 300

    def setup(self):
        self.model = gen.SensingModel(gen.orthonormal_basis(40, 3, 0))
        self.J = sol.surrogate_matrix(self.model, 50_000, 0)
        sol.truncated_evd(self.J, 3)
        sol.convex_lowrank(self.J, 3)
        sol.convex_sparse(self.J, 9.0, iterations=5)
        sol.top_eigenvectors(self.J, 3)

    def time_surrogate_matrix_n40_m5e4(self):
        sol.surrogate_matrix(self.model, 50_000, 1)

    def time_truncated_evd_n40(self):
        sol.truncated_evd(self.J, 3)

    def time_convex_lowrank_n40(self):
        sol.convex_lowrank(self.J, 3)

    def time_convex_sparse_n40_500_iterations(self):
        sol.convex_sparse(self.J, 9.0)

    def time_top_eigenvectors_n40(self):
        sol.top_eigenvectors(self.J, 3)


class OnlineAndSpectral:
    timeout = 300

    def setup(self):
        self.line = gen.SensingModel(gen.line_spectrum_factor(40, [0.1, 0.125, 0.6], [1.0, 1.0, 1.0]),
                                     complex_sketches=True)
        self.U = sol.OnlineSubspaceTracker(40, 5, complex_data=True).track(self.line, 2_000, 0).U_
        sol.esprit(self.U[:, :3])

    def time_online_tracker_complex_n40_r5_m1e4(self):
        sol.OnlineSubspaceTracker(40, 5, complex_data=True).track(self.line, 10_000, 1)

    def time_esprit_n40_r3(self):
        sol.esprit(self.U[:, :3])
