"""NMF kernels, generators, metrics and solvers (Li & Liang 2017): each kernel against a slow NumPy reference,
the generators' laws, and bad input refused with a ValueError naming the problem."""
from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simverify import metrics
from simverify.generators import nmf as gen
from simverify.kernels import nmf as kern
from simverify.kernels.linalg import gram_by_gemm
from simverify.solvers import nmf as sol


def _problem(W=30, D=5, N=200, kind="dirichlet", s=1.0, seed=0):
    A = gen.topic_matrix(W, D, seed)
    X = gen.weights(gen.WeightDistribution(kind, s), D, N, seed + 1)
    return A, X, A @ X


# ---- generators -------------------------------------------------------------------------------------------------

def test_binary_weights_have_exactly_s_ones_per_column():
    X = gen.weights(gen.WeightDistribution("binary", 3.0), 10, 500, 1)
    assert set(np.unique(X)) == {0.0, 1.0}
    assert np.all(X.sum(axis=0) == 3)


def test_dirichlet_and_ctm_weights_lie_on_the_simplex_with_the_dirichlet_mean():
    for kind in ("dirichlet", "ctm"):
        X = gen.weights(gen.WeightDistribution(kind, 2.0), 8, 20_000, 2)
        assert np.all(X >= 0) and np.allclose(X.sum(axis=0), 1.0)
    X = gen.weights(gen.WeightDistribution("dirichlet", 2.0), 8, 20_000, 2)
    second = (X ** 2).mean(axis=1)  # E x_i^2 = a (a + 1) / (s (s + 1)), a = s / D
    a, s = 2.0 / 8, 2.0
    assert np.allclose(X.mean(axis=1), 1 / 8, atol=0.01)
    assert np.allclose(second, a * (a + 1) / (s * (s + 1)), rtol=0.05)


def test_decay_weights_meet_the_order_q_condition_with_equality():
    q = 3.0
    X = gen.weights(gen.WeightDistribution("decay", 2.0, q=q), 10, 50_000, 3)
    nz = X[X > 0]
    assert abs(nz.size / X.size - 0.2) < 0.01  # non-zero with probability s / D
    for a in (0.3, 0.6, 0.9):  # P[x <= a | x != 0] = a^q
        assert abs(np.mean(nz <= a) - a ** q) < 0.01


def test_weights_are_bit_identical_for_one_and_two_threads():
    before = numba.get_num_threads()
    try:
        out = []
        for threads in (1, 2):
            numba.set_num_threads(threads)
            out.append(gen.weights(gen.WeightDistribution("ctm", 1.0), 12, 3000, 4))
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(out[0], out[1])


def test_topic_matrix_has_unit_columns_full_rank_and_shared_frequent_words():
    A = gen.topic_matrix(300, 20, 5)
    assert np.allclose(np.linalg.norm(A, axis=0), 1.0) and np.all(A >= 0)
    assert np.linalg.matrix_rank(A) == 20
    assert (A[0] > 0).sum() > (A[-1] > 0).sum()  # the most frequent word appears in more topics than the rarest


def test_initial_matrix_at_d100_matches_the_papers_uniform_range():
    A = np.eye(100)
    U = gen.initial_matrix(A, 6) - A  # A* = I: A0 - A* = U
    assert U.min() >= -0.05 and U.max() < 0.05 and U.min() < -0.049


def test_ell_initialization_has_the_requested_error_norms():
    A = gen.topic_matrix(50, 6, 7)
    A0 = gen.ell_initialization(A, 0.3, 8, rho=0.1)
    M = np.linalg.lstsq(A, A0, rcond=None)[0]
    E = M - np.diag(np.diag(M))
    N = A0 - A @ M
    assert np.isclose(np.linalg.norm(E, 2), 0.3, rtol=1e-6)
    assert np.isclose(np.linalg.norm(N, 2), 0.1, rtol=1e-6)
    assert np.all(np.abs(np.diag(M) - 1) <= 0.25 + 1e-12)


def test_noise_has_standard_deviation_gamma_over_sqrt_w():
    A, X, Y = _problem(W=400, N=500)
    Yn = gen.observations(A, X, 0.5, seed=3)
    assert np.isclose((Yn - Y).std(), 0.5 / np.sqrt(400), rtol=0.02)


def test_load_topic_matrix_reads_text_and_names_the_bad_line(tmp_path):
    good = tmp_path / "a.txt"
    good.write_text("1 0\n0 2\n3 1\n")
    A = gen.load_topic_matrix(good)
    assert A.shape == (3, 2) and np.allclose(np.linalg.norm(A, axis=0), 1.0)
    bad = tmp_path / "b.txt"
    bad.write_text("1 0\n0 x\n")
    with pytest.raises(ValueError, match=r"b\.txt:2: non-numeric"):
        gen.load_topic_matrix(bad)
    ragged = tmp_path / "c.txt"
    ragged.write_text("1 0\n0 1 2\n")
    with pytest.raises(ValueError, match=r"c\.txt:2: 3 columns, expected 2"):
        gen.load_topic_matrix(ragged)
    wide = tmp_path / "d.txt"
    wide.write_text("1 0 1\n0 1 1\n")
    with pytest.raises(ValueError, match="exceeds the vocabulary size"):
        gen.load_topic_matrix(wide)
    with pytest.raises(ValueError, match="no such file"):
        gen.load_topic_matrix(tmp_path / "missing.txt")


def test_bad_weight_laws_are_refused():
    with pytest.raises(ValueError, match="unknown weight distribution"):
        gen.WeightDistribution("gamma")
    with pytest.raises(ValueError, match="integer sparsity"):
        gen.WeightDistribution("binary", 2.5)
    with pytest.raises(ValueError, match="exceeds D"):
        gen.weights(gen.WeightDistribution("binary", 6.0), 5, 10, 0)


# ---- kernels against NumPy references ---------------------------------------------------------------------------

@settings(deadline=None, max_examples=25)
@given(st.floats(-1.0, 1.0), st.integers(0, 2 ** 31 - 1))
def test_threshold_matches_numpy_where(alpha, seed):
    M = np.random.default_rng(seed).standard_normal((4, 7))
    ref = np.where(M >= alpha, M, 0.0)
    kern.threshold_in_place(M, alpha)
    assert np.array_equal(M, ref)


def test_gradient_steps_match_the_closed_form_of_t_steps():
    """T steps of A <- A + eta (B - A G) give A_T = A_0 K^T + eta B (I + K + ... + K^(T-1)), K = I - eta G."""
    rng = np.random.default_rng(1)
    A, YZt, Z = rng.standard_normal((9, 4)), rng.standard_normal((9, 4)), rng.standard_normal((4, 30))
    ZZt = Z @ Z.T / 30
    K = np.eye(4) - 0.1 * ZZt
    powers = [np.linalg.matrix_power(K, t) for t in range(6)]
    ref = A @ powers[5] + 0.1 * YZt @ sum(powers[:5])
    kern.gradient_steps(A, YZt, ZZt, 0.1, 5)
    assert np.allclose(A, ref, rtol=1e-12, atol=1e-12)


@numba.njit
def _numba_gradient_steps(A, YZt, ZZt, eta, T):
    for _ in range(T):
        A += eta * (YZt - np.dot(A, ZZt))


@numba.njit
def _numba_multiplicative_update(Y, A, Z, eps):
    num, den = np.dot(A.T, Y), np.dot(np.dot(A.T, A), Z)
    Z *= num / (den + eps)
    num, den = np.dot(Y, Z.T), np.dot(A, np.dot(Z, Z.T))
    A *= num / (den + eps)


@numba.njit
def _numba_hals_update(Y, A, Z, eps):
    kern._hals_columns(A, np.dot(Z, Z.T), np.dot(Y, Z.T), eps)
    Zt = np.ascontiguousarray(Z.T)
    kern._hals_columns(Zt, np.dot(A.T, A), np.ascontiguousarray(np.dot(Y.T, A)), eps)
    Z[:, :] = Zt.T


def test_sweeps_on_numpys_blas_equal_the_all_numba_kernels_bit_for_bit_on_one_blas_thread():
    """The products moved out of Numba (kernels/nmf.py's docstring): at one BLAS thread, the cells' setting, the
    gradient steps, MU and HALS give the bits of the kernels that called np.dot inside Numba."""
    from simverify.kernels.jit import one_blas_thread
    rng = np.random.default_rng(6)
    with one_blas_thread():
        for W, N, D in ((10, 12, 3), (300, 800, 20), (120, 900, 40)):
            Y, A, Z = rng.random((W, N)), rng.random((W, D)), rng.random((D, N))
            for ours, numba_kernel in ((kern.multiplicative_update, _numba_multiplicative_update),
                                       (kern.hals_update, _numba_hals_update)):
                a1, z1, a2, z2 = A.copy(), Z.copy(), A.copy(), Z.copy()
                for _ in range(3):
                    ours(Y, a1, z1, 1e-10)
                    numba_kernel(Y, a2, z2, 1e-10)
                assert np.array_equal(a1, a2) and np.array_equal(z1, z2), (ours.__name__, W, N, D)
            G = gram_by_gemm(Z) / N
            a1, a2 = A.copy(), A.copy()
            kern.gradient_steps(a1, Y @ Z.T / N, G, 0.5 / np.linalg.eigvalsh(G)[-1], 20)
            _numba_gradient_steps(a2, Y @ Z.T / N, G, 0.5 / np.linalg.eigvalsh(G)[-1], 20)
            assert np.array_equal(a1, a2), (W, N, D)


def test_gram_by_gemm_is_numbas_general_product_bit_for_bit_on_one_blas_thread():
    """The sweeps' Gram matrices keep the sums of the Numba kernels they replaced (not NumPy's symmetric product)."""
    from simverify.kernels.jit import one_blas_thread

    @numba.njit
    def numba_product(a, b):
        return np.dot(a, b)

    rng = np.random.default_rng(5)
    with one_blas_thread():
        for M in (rng.random((20, 300)), rng.random((300, 20)).T, rng.random((7, 33))):
            assert np.array_equal(gram_by_gemm(M), numba_product(M, M.T))


def test_online_steps_match_algorithm1_line_by_line():
    rng = np.random.default_rng(2)
    A, P, Y = rng.standard_normal((8, 3)), rng.standard_normal((3, 8)), rng.standard_normal((8, 6))
    ref = A.copy()
    for t in range(6):
        z = P @ Y[:, t]
        z = np.where(z >= 0.2, z, 0.0)
        ref = ref + 0.05 * np.outer(Y[:, t] - ref @ z, z)
    kern.online_steps(A, P, Y, 0.2, 0.05)
    assert np.allclose(A, ref, rtol=1e-12, atol=1e-12)


def test_multiplicative_update_matches_the_lee_seung_formulas():
    rng = np.random.default_rng(3)
    Y, A, Z = rng.random((10, 12)), rng.random((10, 3)), rng.random((3, 12))
    Zr = Z * (A.T @ Y) / (A.T @ A @ Z + 1e-10)
    Ar = A * (Y @ Zr.T) / (A @ Zr @ Zr.T + 1e-10)
    kern.multiplicative_update(Y, A, Z, 1e-10)
    assert np.allclose(Z, Zr) and np.allclose(A, Ar)


def _hals_reference(Y, A, Z, eps):
    """Column by column with the residual formed explicitly (the paper's code's form, without its staleness)."""
    A, Z = A.copy(), Z.copy()
    for i in range(A.shape[1]):
        R = Y - A @ Z + np.outer(A[:, i], Z[i])
        A[:, i] = np.maximum(eps, R @ Z[i] / (Z[i] @ Z[i]))
    for i in range(A.shape[1]):
        R = Y - A @ Z + np.outer(A[:, i], Z[i])
        Z[i] = np.maximum(eps, A[:, i] @ R / (A[:, i] @ A[:, i]))
    return A, Z


def test_hals_gram_form_matches_the_explicit_residual_form():
    rng = np.random.default_rng(4)
    Y, A, Z = rng.random((10, 14)), rng.random((10, 4)), rng.random((4, 14))
    Ar, Zr = _hals_reference(Y, A, Z, 1e-12)
    kern.hals_update(Y, A, Z, 1e-12)
    assert np.allclose(A, Ar) and np.allclose(Z, Zr)


# ---- metrics ----------------------------------------------------------------------------------------------------

def test_correlation_errors_match_brute_force_over_columns_and_scales():
    rng = np.random.default_rng(5)
    A_star, A = rng.standard_normal((12, 4)), rng.standard_normal((12, 5))
    ref = [min(np.linalg.norm(A_star[:, i] - (A[:, j] @ A_star[:, i]) / (A[:, j] @ A[:, j]) * A[:, j])
               for j in range(5)) for i in range(4)]
    assert np.allclose(metrics.correlation_errors(A, A_star), ref)


def test_correlation_errors_are_zero_for_a_scaled_permutation_down_to_rounding():
    A_star = gen.topic_matrix(40, 6, 1)
    A = A_star[:, ::-1] * np.array([2.0, -1.0, 0.5, 3.0, 1.0, 7.0])
    assert metrics.correlation_errors(A, A_star).max() < 1e-14


def test_diagonal_scaled_error_is_zero_for_a_column_scaling_and_reports_min_sigma():
    A_star = gen.topic_matrix(40, 6, 1)
    err, smin = metrics.diagonal_scaled_error(A_star * np.arange(1.0, 7.0), A_star)
    assert err < 1e-13 and np.isclose(smin, 1.0)
    assert metrics.diagonal_scaled_error(np.full((40, 6), np.nan), A_star)[0] == np.inf


def test_gcc_parameters_of_a_known_sample():
    X = np.array([[1.0, 0.0], [1.0, 1.0]])  # D = 2, N = 2: Delta = [[0.5, 0.5], [0.5, 1]]
    p = metrics.gcc_parameters(X)
    lam_min = np.linalg.eigvalsh(np.array([[0.5, 0.5], [0.5, 1.0]]))[0]
    assert p["r"] == 2.0 and p["k"] == 1.0 and p["m"] == 2.0 and np.isclose(p["lambda"], 2 * lam_min)


# ---- solvers ----------------------------------------------------------------------------------------------------

def test_estimators_store_their_parameters_unchanged():
    A0 = np.ones((3, 2))
    est = sol.AND(2, A0=A0, threshold=0.1, n_stages=3, T=4, eta=0.5, batch=False)
    assert (est.n_components, est.A0 is A0, est.threshold, est.n_stages, est.T, est.eta, est.batch) == \
        (2, True, 0.1, 3, 4, 0.5, False)
    assert not hasattr(est, "A_")


def test_and_without_threshold_leaves_an_in_span_start_unchanged():
    A, X, Y = _problem()
    A0 = gen.initial_matrix(A, 1)
    est = sol.AND(A.shape[1], A0=A0, threshold=sol.NoThreshold(), n_stages=3).fit(Y.T)
    assert np.allclose(est.A_, A0, atol=1e-12)


def test_and_recovers_binary_weights_with_the_constant_quarter_threshold():
    A, X, Y = _problem(W=60, D=6, N=600, kind="binary", s=2.0)
    est = sol.AND(6, A0=gen.initial_matrix(A, 2), threshold=0.25, n_stages=20).fit(Y.T)
    assert metrics.diagonal_scaled_error(est.A_, A)[0] < 1e-9
    assert est.components_.shape == (6, 60) and est.n_iter_ == 20 and est.alphas_ == [0.25] * 20


def test_online_and_reduces_the_error():
    A, X, Y = _problem(W=60, D=6, N=3000, kind="binary", s=2.0)
    A0 = gen.initial_matrix(A, 2)
    est = sol.AND(6, A0=A0, threshold=0.25, n_stages=10, T=300, batch=False).fit(Y.T)
    assert metrics.correlation_errors(est.A_, A).sum() < 0.2 * metrics.correlation_errors(A0, A).sum()


def test_geometric_schedule_is_alpha0_over_rate_to_the_stage():
    t = sol.GeometricThreshold(0.1, 1.1)
    assert [t(i, None) for i in range(3)] == [0.1, 0.1 / 1.1, 0.1 / 1.1 ** 2]


@pytest.mark.parametrize("cls", [sol.MultiplicativeUpdate, sol.HALS])
def test_competitors_do_not_increase_the_frobenius_objective(cls):
    A, X, Y = _problem(N=300)
    A0 = gen.initial_matrix(A, 3)
    objective = []
    est = cls(A.shape[1], A0=A0, max_iter=15)
    for _, At in est.iterate(Y.T):
        if hasattr(est, "Z_"):
            objective.append(np.linalg.norm(Y - At @ est.Z_))
    assert all(b <= a * (1 + 1e-9) for a, b in zip(objective, objective[1:]))


def test_bad_input_is_refused_naming_the_problem():
    A, X, Y = _problem()
    A0 = gen.initial_matrix(A, 1)
    D = A.shape[1]
    with pytest.raises(ValueError, match="negative entries"):
        sol.MultiplicativeUpdate(D, A0=A0).fit(-Y.T)
    with pytest.raises(ValueError, match="exceeds min"):
        sol.AND(40, A0=np.ones((30, 40))).fit(Y.T)
    singular = A0.copy()
    singular[:, 1] = singular[:, 0]
    with pytest.raises(ValueError, match="A0 is singular"):
        sol.AND(D, A0=singular).fit(Y.T)
    with pytest.raises(ValueError, match="threshold must be a finite number"):
        sol.AND(D, A0=A0, threshold=-0.1).fit(Y.T)
    bad = Y.T.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="X has non-finite entries"):
        sol.AND(D, A0=A0).fit(bad)


# ---- non-negative least squares ---------------------------------------------------------------------------------

def _kkt_violation(A, y, x):
    """max over i of the KKT residuals of min ||Ax - y|| s.t. x >= 0: -x_i, -(grad)_i and |x_i grad_i|."""
    grad = A.T @ (A @ x - y)
    return max((-x).max(), (-grad).max(), np.abs(x * grad).max())


@settings(deadline=None, max_examples=30)
@given(st.integers(2, 12), st.integers(1, 12), st.integers(0, 2 ** 31 - 1))
def test_nnls_meets_the_kkt_conditions_and_matches_scipy_objective(D, extra, seed):
    from scipy.optimize import nnls

    from simverify.kernels.nnls import nonnegative_least_squares
    rng = np.random.default_rng(seed)
    A, Y = rng.standard_normal((D + extra, D)), rng.standard_normal((D + extra, 4))
    X = nonnegative_least_squares(A, Y)
    for j in range(4):
        assert _kkt_violation(A, Y[:, j], X[:, j]) < 1e-8
        ref = nnls(A, Y[:, j], maxiter=50 * D)[0]
        assert np.linalg.norm(A @ X[:, j] - Y[:, j]) <= np.linalg.norm(A @ ref - Y[:, j]) * (1 + 1e-9) + 1e-12


def test_nnls_recovers_a_sparse_nonnegative_truth_and_zero_for_negative_correlations():
    from simverify.kernels.nnls import nonnegative_least_squares
    rng = np.random.default_rng(9)
    A = rng.random((40, 10))
    X = rng.random((10, 30)) * (rng.random((10, 30)) < 0.3)
    assert np.allclose(nonnegative_least_squares(A, A @ X), X, atol=1e-8)
    assert np.array_equal(nonnegative_least_squares(A, -A[:, 0]), np.zeros(10))


def test_nnls_with_duplicate_columns_still_meets_the_kkt_conditions():
    from simverify.kernels.nnls import nonnegative_least_squares
    rng = np.random.default_rng(10)
    A = rng.standard_normal((20, 6))
    A[:, 5] = A[:, 4]
    y = rng.standard_normal(20)
    assert _kkt_violation(A, y, nonnegative_least_squares(A, y)) < 1e-7


@settings(deadline=None, max_examples=40)
@given(st.integers(2, 12), st.integers(-1, 12), st.integers(0, 2 ** 31 - 1))
def test_warm_started_nnls_meets_the_kkt_conditions_from_any_support_and_is_no_worse_than_fnnls(D, extra, seed):
    from simverify.kernels.nnls import nonnegative_least_squares
    rng = np.random.default_rng(seed)
    A, Y = rng.standard_normal((max(1, D + extra), D)), rng.standard_normal((max(1, D + extra), 5))
    start = rng.random((D, 5)) * (rng.random((D, 5)) < 0.5)  # random supports, some empty
    X, cold = nonnegative_least_squares(A, Y, start=start), nonnegative_least_squares(A, Y)
    for j in range(5):
        assert _kkt_violation(A, Y[:, j], X[:, j]) < 1e-7
        assert np.linalg.norm(A @ X[:, j] - Y[:, j]) <= np.linalg.norm(A @ cold[:, j] - Y[:, j]) * (1 + 1e-9) + 1e-12


def test_block_pivoting_from_the_solutions_support_takes_no_exchange_and_agrees_for_one_and_two_threads():
    from simverify.kernels.nnls import nnls_gram_columns, nnls_gram_columns_warm
    rng = np.random.default_rng(11)
    A, Y = rng.random((60, 15)), rng.random((60, 300)) - 0.3
    G, B = A.T @ A, np.ascontiguousarray(A.T @ Y)
    exact, _ = nnls_gram_columns(G, B, 45, 1e-10)
    X, steps, fallback = nnls_gram_columns_warm(G, B, exact, 45, 1e-10)
    assert np.all(steps == 0) and not fallback.any() and np.allclose(X, exact, rtol=0, atol=1e-12)
    cold = np.zeros_like(exact)
    runs, before = [], numba.get_num_threads()
    for threads in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
        numba.set_num_threads(threads)
        try:
            runs.append(nnls_gram_columns_warm(G, B, cold, 45, 1e-10))
        finally:
            numba.set_num_threads(before)
    assert all(np.array_equal(a, b) for a, b in zip(runs[0], runs[-1]))
    assert np.all(runs[0][1] > 0) and not runs[0][2].any() and np.allclose(runs[0][0], exact, rtol=0, atol=1e-10)


def test_block_pivoting_that_runs_out_of_exchanges_falls_back_to_fnnls_and_says_so():
    from simverify.kernels.nnls import nnls_gram_columns_warm
    G, b = np.array([[1.0, 0.9], [0.9, 1.0]]), np.array([[1.0], [0.8]])  # x = (1, 0): two exchanges from empty
    X, steps, fallback = nnls_gram_columns_warm(G, b, np.zeros((2, 1)), 1, 1e-10)
    assert fallback[0] and steps[0] == 1 and np.allclose(X[:, 0], [1.0, 0.0], rtol=0, atol=1e-12)  # FNNLS: 1 step
    X, steps, fallback = nnls_gram_columns_warm(G, b, np.zeros((2, 1)), 2, 1e-10)
    assert not fallback[0] and steps[0] == 2 and np.allclose(X[:, 0], [1.0, 0.0], rtol=0, atol=1e-12)


def test_warm_started_nnls_with_duplicate_columns_both_passive_meets_the_kkt_conditions():
    from simverify.kernels.nnls import nonnegative_least_squares
    rng = np.random.default_rng(12)
    A = rng.random((20, 6))
    A[:, 5] = A[:, 4]  # duplicate columns: the passive block with both is singular but for the ridge
    y = A[:, 4] + A[:, 0]
    assert _kkt_violation(A, y, nonnegative_least_squares(A, y, start=np.ones(6))) < 1e-7


def test_nnls_refuses_bad_input_naming_the_argument():
    from simverify.kernels.nnls import nonnegative_least_squares
    A = np.ones((4, 2))
    with pytest.raises(ValueError, match="^A has non-finite"):
        nonnegative_least_squares(np.full((4, 2), np.inf), np.ones(4))
    with pytest.raises(ValueError, match="^Y has non-finite"):
        nonnegative_least_squares(A, np.full(4, np.nan))
    with pytest.raises(ValueError, match="A has 4 rows but Y has 3"):
        nonnegative_least_squares(A, np.ones(3))
    with pytest.raises(ValueError, match="^Y must be a real 2-d array"):
        nonnegative_least_squares(A, np.ones((4, 2, 2)))
    with pytest.raises(ValueError, match=r"start has shape \(2, 3\), expected \(2, 2\)"):
        nonnegative_least_squares(A, np.ones((4, 2)), start=np.ones((2, 3)))
    with pytest.raises(ValueError, match="^start has non-finite"):
        nonnegative_least_squares(A, np.ones(4), start=np.array([1.0, np.nan]))
    with pytest.raises(ValueError, match="^start must be a real 1-d array"):  # a vector y takes a vector start
        nonnegative_least_squares(A, np.ones(4), start=1.0)
    with pytest.raises(ValueError, match=r"start has shape \(3,\), expected \(2,\)"):
        nonnegative_least_squares(A, np.ones(4), start=np.ones(3))


def test_our_hals_and_mu_follow_sklearn_cd_and_mu_iterate_by_iterate():
    """The same algorithms from the same start: scikit-learn's cd (HALS in Gram form) and mu give the same
    total correlation error path as ours to 1e-6 relative over 5 sweeps."""
    from simverify.solvers import nmf_sklearn as skl
    A, X, Y = _problem(W=40, D=5, N=300)
    A0 = gen.initial_matrix(A, 4)
    for ours, theirs in ((sol.HALS, "cd"), (sol.MultiplicativeUpdate, "mu")):
        a = [metrics.correlation_errors(M, A).sum() for _, M in ours(5, A0=A0, max_iter=5).iterate(Y.T)]
        b = [metrics.correlation_errors(M, A).sum()
             for _, M in skl.SklearnNMF(5, A0=A0, max_iter=5, solver=theirs).iterate(Y.T)]
        assert np.allclose(a, b, rtol=1e-6), (theirs, a, b)
