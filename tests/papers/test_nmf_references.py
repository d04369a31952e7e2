"""ANLS, Theorem 4's threshold and the independent starting documents against naive references."""
import numpy as np
from scipy.optimize import nnls

from simverify.solvers import nmf as sol
from theorems.andnmf.measures import independent_documents


def naive_nnls(A, Y):
    """Column by column with scipy: X (D, N) minimising ||A X - Y||_F, X >= 0."""
    return np.column_stack([nnls(A, y)[0] for y in Y.T])


def test_one_anls_sweep_is_two_naive_nnls_solves_from_the_clipped_start():
    g = np.random.default_rng(0)
    W, D, N = 12, 3, 40
    Y = g.random((W, D)) @ g.random((D, N))
    A0 = g.random((W, D)) - 0.2  # some negative entries: the start is max(A0, 0)
    est = sol.ANLS(D, A0=A0, max_iter=1)
    est.fit(Y.T)
    Z0 = naive_nnls(np.maximum(A0, 0.0), Y)
    A1 = naive_nnls(Z0.T, Y.T).T  # A^T = NNLS(Z^T, Y^T)
    Z1 = naive_nnls(A1, Y)
    assert np.allclose(est.A_, A1, atol=1e-8) and np.allclose(est.Z_, Z1, atol=1e-8)


def test_theory_threshold_is_lambda_norm_e0_over_r_to_the_power_two_over_q_plus_one():
    g = np.random.default_rng(1)
    A_star = g.random((30, 5))
    E = 0.1 * g.standard_normal((5, 5))
    np.fill_diagonal(E, 0.0)
    thr = sol.TheoryThreshold(A_star, lam=0.5, r=2.0, q=3.0)
    expected = (0.5 * np.linalg.norm(E, 2) / 2.0) ** 0.5
    assert abs(thr(0, A_star @ (np.eye(5) + E)) - expected) < 1e-10
    floored = sol.TheoryThreshold(A_star, lam=0.5, r=2.0, q=3.0, floor=1e-6)
    assert floored(0, A_star) == 1e-6  # E0 = 0 up to rounding (its root is about 1e-8): floored, never 0


def test_independent_documents_skip_duplicates_and_keep_full_rank():
    g = np.random.default_rng(2)
    base = g.random((8, 3))
    Y = np.column_stack([base[:, 0], base[:, 0], base[:, 0], base[:, 1], 2 * base[:, 1], base[:, 2]])
    S = independent_documents(Y, 3, np.random.default_rng(0))
    assert np.linalg.matrix_rank(S) == 3
    assert all(any(np.array_equal(S[:, j], Y[:, i]) for i in range(Y.shape[1])) for j in range(3))


def test_nonnegative_reconstruction_error_matches_a_naive_scipy_fit():
    from simverify.metrics import nonnegative_reconstruction_error
    g = np.random.default_rng(3)
    C, Y = g.random((15, 4)), g.random((15, 30))
    naive = np.linalg.norm(Y - C @ naive_nnls(C, Y)) / np.linalg.norm(Y)
    assert abs(nonnegative_reconstruction_error(C, Y) - naive) < 1e-9
    assert nonnegative_reconstruction_error(Y[:, :4], Y[:, :4]) < 1e-12  # data in the cone of C: exact
