"""Kernels and solvers against naive NumPy references."""
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from simverify import metrics
from simverify.generators import bitsubspace as gen
from simverify.kernels import rng
from simverify.kernels.sensing import _finite_sample_difference
from simverify.kernels.tracking import _rank_two_update
from simverify.solvers import bitsubspace as sol

SNIPPET = ("import numpy as np;from simverify.kernels import rng;from simverify.solvers import bitsubspace as s;"
           "from simverify.generators import bitsubspace as g;x=rng.standard_normal(7,100003,chunk=4096);"
           "J=s.surrogate_matrix(g.SensingModel(g.gaussian_factor(12,2,1),samples=50,flip_prob=0.1),30001,3);"
           "import sys;sys.stdout.write(x.tobytes().hex()[:4000]+J.tobytes().hex())")


def test_bit_identical_for_one_and_two_threads():
    outs = [subprocess.run([sys.executable, "-c", SNIPPET], capture_output=True, text=True, check=True,
                           env={**__import__("os").environ, "NUMBA_NUM_THREADS": t}).stdout for t in ("1", "2")]
    assert outs[0] == outs[1] and len(outs[0]) > 1000


def test_standard_normal_moments_and_reproducibility():
    x = rng.standard_normal(11, 200_000)
    assert abs(x.mean()) < 5 / np.sqrt(x.size)
    assert abs(x.var() - 1) < 5 * np.sqrt(2 / x.size)
    assert np.array_equal(x, rng.standard_normal(11, 200_000))
    assert not np.array_equal(x, rng.standard_normal(12, 200_000))


def test_gaussian_vectors_covariance():
    F = np.array([[1.0, 0.0], [0.5, 2.0], [0.0, 1.0]])
    x = rng.gaussian_vectors(3, 200_000, F)
    C = np.cov(x.T)
    assert np.allclose(C, F @ F.T, atol=6 * np.sqrt(2 / 200_000) * np.abs(F @ F.T).max())


@pytest.mark.parametrize("samples,flip", [(0, 0.0), (40, 0.2)])
def test_surrogate_matches_naive_outer_products(samples, flip):
    model = gen.SensingModel(gen.gaussian_factor(9, 2, 0), samples=samples, flip_prob=flip)
    m = 5000
    naive = np.zeros((9, 9))
    for _, A, B, y in gen.sensor_chunks(model, m, 4):
        for a, b, yi in zip(A, B, y):
            naive += yi * (np.outer(a, a) - np.outer(b, b))
    J = sol.surrogate_matrix(model, m, 4)
    assert np.allclose(J, naive / m, rtol=1e-10, atol=1e-12) and np.array_equal(J, J.T)
    assert np.allclose(J, sol.surrogate_matrix_reference(model, m, 4), rtol=1e-10, atol=1e-12)


def test_finite_sample_difference_matches_direct_simulation():
    """The chi-square reduction of Eq. (8) against averaging T explicit samples."""
    g = np.random.default_rng(0)
    Sigma = np.array([[2.0, 0.3], [0.3, 0.5]])
    a, b = np.array([1.0, 0.2]), np.array([-0.4, 1.1])
    T, N = 7, 40_000
    alpha, beta, gamma = a @ Sigma @ a, b @ Sigma @ b, a @ Sigma @ b
    nb = np.random.default_rng(1)
    fast = np.array([_finite_sample_difference(nb, alpha, beta, gamma, T) for _ in range(N)])
    L = np.linalg.cholesky(Sigma)
    x = g.standard_normal((N, T, 2)) @ L.T
    direct = ((x @ a) ** 2 - (x @ b) ** 2).mean(axis=1)
    for stat in (np.mean, np.var, lambda v: np.mean(v > 0)):
        s1, s2 = stat(fast), stat(direct)
        se = np.sqrt(np.var(direct) / N) * (4 if stat is not np.mean else 1) + 1e-3
        assert abs(s1 - s2) < 6 * se


def _complex_normal(g, shape):
    return (g.standard_normal(shape) + 1j * g.standard_normal(shape)) / np.sqrt(2)


@pytest.mark.parametrize("complex_data", [False, True])
def test_rank_two_update_is_exact_for_low_rank(complex_data):
    g = np.random.default_rng(2)
    n, r = 8, 3
    draw = (lambda shape: _complex_normal(g, shape)) if complex_data else g.standard_normal
    U, _ = np.linalg.qr(draw((n, r)))
    pi = np.array([3.0, 2.0, 1.0])
    K = draw((n, 2))
    lam = np.array([0.7, -0.2])
    Un, pn = _rank_two_update(U, pi, K, lam, 0.9, False)
    J = 0.9 * (U * pi) @ U.conj().T + (K * lam) @ K.conj().T
    w = np.linalg.eigvalsh(J)[::-1][:r]
    assert pn.dtype == np.float64
    assert np.allclose(np.sort(pn)[::-1], w, atol=1e-10)
    assert np.allclose(Un.conj().T @ Un, np.eye(r), atol=1e-10)
    assert np.allclose(J @ Un, Un * pn, atol=1e-9)


def test_complex_surrogate_is_hermitian_sum_of_outer_products():
    model = gen.SensingModel(gen.line_spectrum_factor(6, [0.1, 0.4], [1.0, 0.5]), complex_sketches=True)
    naive = np.zeros((6, 6), dtype=complex)
    for _, A, B, y in gen.sensor_chunks(model, 3000, 5):
        for a, b, yi in zip(A, B, y):
            naive += yi * (np.outer(a, a.conj()) - np.outer(b, b.conj()))
            assert yi == np.sign(np.vdot(a, model.factor @ model.factor.conj().T @ a).real
                                 - np.vdot(b, model.factor @ model.factor.conj().T @ b).real)
    J = sol.surrogate_matrix(model, 3000, 5)
    assert np.allclose(J, naive / 3000, atol=1e-12) and np.allclose(J, J.conj().T)


def test_complex_tracker_recovers_line_spectrum():
    freqs = np.array([0.1, 0.35, 0.7])
    F = gen.line_spectrum_factor(20, freqs, np.ones(3))
    tr = sol.OnlineSubspaceTracker(20, 3, by_magnitude=False, complex_data=True, seed=1)
    tr.track(gen.SensingModel(F, complex_sketches=True), 6000, 2)
    est, moduli = sol.esprit(tr.subspace())
    assert np.all(metrics.frequency_errors(est, freqs) < 0.25 / 20)
    assert metrics.nmse(tr.subspace(), F) < 0.1


@given(st.integers(3, 12), st.integers(1, 3), st.integers(0, 10_000))
def test_convex_lowrank_is_optimal(n, r, seed):
    from scipy.optimize import minimize
    g = np.random.default_rng(seed)
    M = g.standard_normal((n, n))
    J = (M + M.T) / 2
    S = sol.convex_lowrank(J, r)
    w = np.linalg.eigvalsh(S)
    assert w.min() > -1e-9 and np.linalg.norm(S) <= 1 + 1e-9 and w.clip(0).sum() <= np.sqrt(r) + 1e-7
    j = np.linalg.eigvalsh(J)
    res = minimize(lambda s: -j @ s, np.full(n, 1 / n), bounds=[(0, None)] * n, method="SLSQP",
                   constraints=[{"type": "ineq", "fun": lambda s: 1 - s @ s},
                                {"type": "ineq", "fun": lambda s: np.sqrt(r) - s.sum()}])
    assert np.sum(J * S) >= -res.fun - 1e-6


def test_convex_sparse_feasible_and_beats_candidates():
    g = np.random.default_rng(5)
    u = np.zeros(10)
    u[:3] = [1, 1, 1]
    J = np.outer(u, u) / 3 + 0.05 * (lambda M: M + M.T)(g.standard_normal((10, 10)))
    S = sol.convex_sparse(J, 4.0, iterations=3000)
    assert np.abs(S).sum() <= 2 + 1e-6 and np.linalg.norm(S) <= 1 + 1e-3 and np.linalg.eigvalsh(S).min() > -1e-3
    cand = np.outer(u, u) / 3 * (2 / 3)  # PSD, F-norm 2/3, l1 = 2: feasible
    assert np.sum(J * S) >= np.sum(J * cand) - 1e-6
    assert set(np.argsort(-np.diag(S))[:3]) == {0, 1, 2}


def test_esprit_recovers_frequencies_from_exact_subspace():
    F = gen.line_spectrum_factor(40, [0.1, 0.125, 0.6], [1.0, 0.5, 1.0])
    U, _ = np.linalg.qr(F)
    f, mod = sol.esprit(U)
    assert np.all(metrics.frequency_errors(f, np.array([0.1, 0.125, 0.6])) < 1e-8)
    assert np.allclose(mod, 1.0)


def test_metrics_are_rotation_invariant():
    g = np.random.default_rng(1)
    U, _ = np.linalg.qr(g.standard_normal((10, 3)))
    Q, _ = np.linalg.qr(g.standard_normal((3, 3)))
    assert metrics.procrustes_distance(U @ Q, U) < 1e-7
    assert metrics.nmse(U @ Q, U) < 1e-12
    assert metrics.sin_theta_distance(U @ Q, U) < 1e-6
    V, _ = np.linalg.qr(g.standard_normal((10, 3)))
    assert metrics.nmse(V, U) > 0.1


@pytest.mark.parametrize("r", [1, 2, 4, 7])
def test_exact_diagonal_quadrature_closed_form_and_simulation(r):
    lam = np.ones(r)
    for law in ("gaussian", "laplace"):
        assert np.allclose(gen.surrogate_diagonal(lam, law), gen.surrogate_diagonal_equal(r, law), rtol=1e-8)
    lam = gen.condition_profile(r, 3.0)
    mc = gen.projected_surrogate_diagonal(lam, 400_000, 9)
    assert np.all(np.abs(mc - gen.surrogate_diagonal(lam)) < 6 * 2.5 / np.sqrt(400_000))


def test_online_tracker_corrected_matches_batch_and_uses_fixed_memory():
    X = gen.gaussian_factor(30, 2, 3)
    model = gen.SensingModel(X)
    batch = metrics.nmse(sol.truncated_evd(sol.surrogate_matrix(model, 12000, 1), 2), X)
    tr = sol.OnlineSubspaceTracker(30, 2, by_magnitude=False).track(model, 12000, 1)
    assert tr.U_.shape == (30, 2) and tr.n_sensors_ == 12000
    assert metrics.nmse(tr.subspace(), X) < 1.5 * batch


@pytest.mark.parametrize("bad", [dict(factor=np.array([[np.nan]])), dict(factor=np.ones((3, 1)), flip_prob=0.7),
                                 dict(factor=np.ones((3, 1)), samples=-1), dict(factor=np.ones((0, 1)))])
def test_sensing_model_rejects_bad_input(bad):
    with pytest.raises(ValueError):
        gen.SensingModel(**bad)


def test_generators_reject_bad_sizes():
    with pytest.raises(ValueError, match="exceeds"):
        gen.orthonormal_basis(3, 5, 0)
    with pytest.raises(ValueError):
        gen.condition_profile(3, float("inf"))
    with pytest.raises(ValueError):
        rng.standard_normal(-1, 5)
    with pytest.raises(ValueError, match="support"):
        gen.sparse_unit_factor(10, 11, 0)


def test_sparse_unit_factor_support_and_uniform_positions():
    us = [gen.sparse_unit_factor(10, 3, s) for s in range(400)]
    for u in us[:20]:
        assert u.shape == (10, 1) and np.isclose(np.linalg.norm(u), 1.0) and np.count_nonzero(u) == 3
        assert np.isclose(np.abs(u).sum() ** 2, 3.0)  # ||u u^T||_1 = support
    hits = np.sum([u[:, 0] != 0 for u in us], axis=0)  # each position: Binomial(400, 0.3), sd 9.2
    assert np.all(np.abs(hits - 120) < 5 * 9.2)
    assert np.array_equal(gen.sparse_unit_factor(10, 3, 7), gen.sparse_unit_factor(10, 3, 7))
