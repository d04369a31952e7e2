"""The speed and memory goals of Qiu et al. (2017): Algorithm 1 at the paper's size (d1 = 500,
d2 = 200, k = 3, m = 10^5 per iteration, 10 iterations: 5 x 10^8 normals).

Goals: within 1.5x of the time of drawing those normals with the project's stream sampler on all threads
(track_fraction_of_limit >= 0.67) and >= 15x a vectorised NumPy reference of the same algorithm
(time_ours_* / time_numpy_*; the reference draws NumPy's normals, ours the streams'); peak memory at m = 10^5 and
10^6 per batch within 20%.
"""
import numpy as np

from simverify.generators import onebit as gen
from simverify.solvers import onebit as sol

from ._costmodel import _best, rates

D1, D2, K, M, T = 500, 200, 3, 100_000, 10


def algorithm1_numpy_reference(W_star, k, m, T, seed, batch=8192):
    """Algorithm 1 (zero start, block form) in vectorised NumPy: default_rng instances per batch of
    ``batch``, bits, and A'(y - sign(A(W))) by one scatter-add per batch."""
    g = np.random.default_rng(seed)
    d1, d2 = W_star.shape

    def residual(W):
        H = np.zeros((d2, d1))
        for s in range(0, m, batch):
            c = min(batch, m - s)
            X, j = g.standard_normal((c, d1)), g.integers(0, d2, c)
            y = np.where(np.einsum("ia,ai->i", X, W_star[:, j]) >= 0, 1.0, -1.0)
            r = y - np.where(np.einsum("ia,ai->i", X, W[:, j]) >= 0, 1.0, -1.0)
            np.add.at(H, j, r[:, None] * X)
        return H.T * (d2 / (m * sol.LAMBDA))

    W = np.zeros((d1, d2))
    H = residual(W)
    U = sol.dilation_top_eigenvectors(H, 2 * k)
    for t in range(1, T + 1):
        if t > 1:
            H = residual(W)
        M_ = H + W
        U, _ = np.linalg.qr(np.vstack([M_ @ U[d1:], M_.T @ U[:d1]]))
        V = np.vstack([M_ @ U[d1:], M_.T @ U[:d1]])
        W = sol.normalize_nonzero_columns(U[:d1] @ V[d1:].T)
    return W


def run_ours(m=M, T=T):
    model = gen.SingleLabelModel(gen.gaussian_model_matrix(D1, D2, K, 0))
    for _ in sol.algorithm1(model, K, m, T, 1):
        pass


class Algorithm1:
    timeout = 1800
    number, repeat, rounds = 1, 2, 1

    def setup(self):
        rates()
        self.W_star = gen.gaussian_model_matrix(D1, D2, K, 0)
        run_ours(2000, 2)  # compile

    def time_ours_algorithm1_paper_size(self):
        run_ours()

    def time_numpy_algorithm1_paper_size(self):
        algorithm1_numpy_reference(self.W_star, K, M, T, 1)

    def track_fraction_of_limit_algorithm1_paper_size(self):
        """Limit: m T d1 normals at the all-thread RNG rate (everything else is O(m d1) flops)."""
        return M * T * D1 * rates()["normal_all"] / _best(run_ours, repeat=2)

    track_fraction_of_limit_algorithm1_paper_size.unit = "fraction"


class Algorithm1Memory:
    """Peak memory with m = 10^5 and 10^6 instances per batch (one iteration): instances are
    generated per chunk inside the kernel and never stored."""
    timeout = 600

    def setup(self):
        run_ours(2000, 1)

    def peakmem_algorithm1_m1e5(self):
        run_ours(100_000, 1)

    def peakmem_algorithm1_m1e6(self):
        run_ours(1_000_000, 1)
