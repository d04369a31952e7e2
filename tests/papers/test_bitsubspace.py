"""Chi (2018), subspace learning from bits: the sensing model, the surrogate, the trackers, the convex baselines and
the metrics: thread identity, prefix consistency, invariances, exact cases and memory (each kernel draw for draw
against its reference: tests/kernels/test_references.py)."""
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from simverify import metrics
from simverify.generators import bitsubspace as gen
from simverify.kernels import streams
from simverify.kernels.sensing import SENSOR_CHUNK, finite_sample_difference
from simverify.kernels.tracking import rank_two_update
from simverify.solvers import bitsubspace as sol

SNIPPET = ("import numpy as np;from simverify.kernels import streams as r;"
           "from simverify.solvers import bitsubspace as s;from simverify.generators import bitsubspace as g;"
           "x=r.standard_normal(7,100003,chunk=4096);"
           "J=s.surrogate_matrix(g.SensingModel(g.gaussian_factor(12,2,1),samples=50,flip_prob=0.1),30001,3);"
           "C=s.surrogate_matrix(g.SensingModel(g.line_spectrum_factor(8,[.1,.3],[1,1]),complex_sketches=True),30001,3);"
           "import sys;sys.stdout.write(x.tobytes().hex()[:4000]+J.tobytes().hex()+C.tobytes().hex())")


@pytest.mark.slow
def test_normals_and_real_and_complex_surrogates_bit_identical_for_one_and_two_threads():
    outs = [subprocess.run([sys.executable, "-c", SNIPPET], capture_output=True, text=True, check=True,
                           env={**__import__("os").environ, "NUMBA_NUM_THREADS": t}).stdout for t in ("1", "2")]
    assert outs[0] == outs[1] and len(outs[0]) > 1000


EPS = np.finfo(float).eps


def first_sensors(model, m, seed, k):
    """Rows A, B (k, n) and bits y (k,) of the first k sensors of the stream of m sensors."""
    parts = [(A.copy(), B.copy(), y.copy()) for _, A, B, y in gen.sensor_chunks(model, m, seed)]
    A, B, y = (np.concatenate(p)[:k] for p in zip(*parts))
    return A, B, y


def naive_surrogate(A, B, y):
    """(1/k) sum_i y_i (a_i a_i^H - b_i b_i^H) by explicit outer products, and the rounding
    bound of that mean, (k + 4) eps (1/k) sum_i (|a_i| + |b_i|)(|a_i| + |b_i|)^T entrywise
    (recursive summation of k terms, plus the rounding of a + b and a - b in the GEMM form)."""
    k = len(y)
    J = sum(yi * (np.outer(a, a.conj()) - np.outer(b, b.conj())) for a, b, yi in zip(A, B, y)) / k
    s = np.abs(A) + np.abs(B)
    return J, (k + 4) * EPS * (s.T @ s) / k


@pytest.mark.parametrize("samples,flip", [(0, 0.0), (40, 0.2)])
def test_surrogate_matches_naive_outer_products_to_rounding(samples, flip):
    model = gen.SensingModel(gen.gaussian_factor(9, 2, 0), samples=samples, flip_prob=flip)
    naive, bound = naive_surrogate(*first_sensors(model, 5000, 4, 5000))
    J = sol.surrogate_matrix(model, 5000, 4)
    assert np.all(np.abs(J - naive) <= bound) and np.array_equal(J, J.T)


@pytest.mark.parametrize("complex_sketches", [False, True])
def test_first_k_sensors_do_not_depend_on_m(complex_sketches):
    """Prefix consistency: J of k sensors is the mean over the first k sensors of a longer stream
    (k not a multiple of the chunk), and every chunk's rows are a prefix of the longer stream's."""
    if complex_sketches:
        model = gen.SensingModel(gen.line_spectrum_factor(7, [0.1, 0.4], [1.0, 0.5]), flip_prob=0.1,
                                complex_sketches=True)
    else:
        model = gen.SensingModel(gen.gaussian_factor(7, 2, 0), samples=30, flip_prob=0.1)
    k, m = SENSOR_CHUNK + 777, 3 * SENSOR_CHUNK + 5
    A, B, y = first_sensors(model, m, 8, k)
    Ak, Bk, yk = first_sensors(model, k, 8, k)
    assert np.array_equal(A, Ak) and np.array_equal(B, Bk) and np.array_equal(y, yk)
    naive, bound = naive_surrogate(A, B, y)
    assert np.all(np.abs(sol.surrogate_matrix(model, k, 8) - naive) <= bound)


def test_bit_error_rate_counts_the_first_m_sensors_of_the_stream():
    model = gen.SensingModel(gen.gaussian_factor(7, 2, 1), samples=20, flip_prob=0.1)
    k = SENSOR_CHUNK + 333
    A, B, y = first_sensors(model, 3 * SENSOR_CHUNK, 2, k)
    F = model.factor
    exact = np.where(((A @ F) ** 2).sum(1) > ((B @ F) ** 2).sum(1), 1.0, -1.0)
    assert round(gen.bit_error_rate(model, k, 2) * k) == np.sum(y != exact)


def test_finite_sample_difference_matches_direct_simulation():
    """The chi-square reduction of Eq. (8) against averaging T explicit samples."""
    g = np.random.default_rng(0)
    Sigma = np.array([[2.0, 0.3], [0.3, 0.5]])
    a, b = np.array([1.0, 0.2]), np.array([-0.4, 1.1])
    T, N = 7, 40_000
    alpha, beta, gamma = a @ Sigma @ a, b @ Sigma @ b, a @ Sigma @ b
    chi = 2.0 * np.random.default_rng(1).standard_gamma(T / 2, (N, 2))
    fast = np.array([finite_sample_difference(alpha, beta, gamma, x1, x2, T) for x1, x2 in chi])
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
def test_rank_two_update_gives_top_r_eigenpairs_of_the_updated_matrix_to_rounding(complex_data):
    g = np.random.default_rng(2)
    n, r = 8, 3
    draw = (lambda shape: _complex_normal(g, shape)) if complex_data else g.standard_normal
    U, _ = np.linalg.qr(draw((n, r)))
    pi = np.array([3.0, 2.0, 1.0])
    K = draw((n, 2))
    lam = np.array([0.7, -0.2])
    Un, pn = rank_two_update(U, pi, K, lam, 0.9, False)
    J = 0.9 * (U * pi) @ U.conj().T + (K * lam) @ K.conj().T
    w = np.linalg.eigvalsh(J)[::-1][:r]
    tol = n * (r + 2) * EPS  # backward-stable n-term products and an (r + 2) x (r + 2) EVD, relative to ||J||
    assert pn.dtype == np.float64
    assert np.all(np.abs(np.sort(pn)[::-1] - w) <= tol * np.linalg.norm(J, 2))
    assert np.all(np.abs(Un.conj().T @ Un - np.eye(r)) <= tol)
    assert np.all(np.abs(J @ Un - Un * pn) <= tol * np.linalg.norm(J, 2))


def test_complex_surrogate_is_exactly_hermitian_and_matches_outer_products_to_rounding():
    model = gen.SensingModel(gen.line_spectrum_factor(6, [0.1, 0.4], [1.0, 0.5]), complex_sketches=True)
    A, B, y = first_sensors(model, 3000, 5, 3000)
    Sigma = model.factor @ model.factor.conj().T
    energy = (np.einsum("ij,jk,ik->i", A.conj(), Sigma, A) - np.einsum("ij,jk,ik->i", B.conj(), Sigma, B)).real
    assert np.array_equal(y, np.sign(energy))
    naive, bound = naive_surrogate(A, B, y)
    J = sol.surrogate_matrix(model, 3000, 5)
    assert np.all(np.abs(J - naive) <= bound) and np.array_equal(J, J.conj().T)


def test_complex_tracker_recovers_line_spectrum():
    freqs = np.array([0.1, 0.35, 0.7])
    F = gen.line_spectrum_factor(20, freqs, np.ones(3))
    tr = sol.OnlineSubspaceTracker(20, 3, by_magnitude=False, complex_data=True, seed=1)
    tr.track(gen.SensingModel(F, complex_sketches=True), 6000, 2)
    est, _ = sol.esprit(tr.subspace())
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
    M = g.standard_normal((10, 10))
    J = np.outer(u, u) / 3 + 0.05 * (M + M.T)
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


def test_online_tracker_corrected_nmse_within_1_5x_of_batch():
    X = gen.gaussian_factor(30, 2, 3)
    model = gen.SensingModel(X)
    batch = metrics.nmse(sol.truncated_evd(sol.surrogate_matrix(model, 12000, 1), 2), X)
    tr = sol.OnlineSubspaceTracker(30, 2, by_magnitude=False).track(model, 12000, 1)
    assert tr.U_.shape == (30, 2) and tr.n_sensors_ == 12000
    assert metrics.nmse(tr.subspace(), X) < 1.5 * batch


def test_trackers_with_the_same_init_seed_start_identical_and_orthonormal():
    seed = np.random.SeedSequence(5)
    a, b = (sol.OnlineSubspaceTracker(15, 3, seed=seed) for _ in range(2))
    assert np.array_equal(a.U_, b.U_) and not np.array_equal(a.U_, sol.OnlineSubspaceTracker(15, 3, seed=6).U_)
    assert np.all(np.abs(a.U_.T @ a.U_ - np.eye(3)) <= 15 * EPS)


def test_iterate_yields_each_reachable_checkpoint_once_with_its_sensor_count():
    model = gen.SensingModel(gen.gaussian_factor(10, 2, 0))
    tr = sol.OnlineSubspaceTracker(10, 2, warm_start=500)
    seen = [(c, t.n_sensors_) for c, t in tr.iterate(model, 5000, 1, [100, 500, 2048, 2049, 4000, 4000, 9000])]
    assert seen == [(500, 500), (2048, 2048), (2049, 2049), (4000, 4000)]


def test_checkpoints_do_not_change_the_tracked_state():
    model = gen.SensingModel(gen.gaussian_factor(10, 2, 0))
    a = sol.OnlineSubspaceTracker(10, 2, seed=4).track(model, 3000, 1)
    b = sol.OnlineSubspaceTracker(10, 2, seed=4)
    for _ in b.iterate(model, 3000, 1, [1, 7, 2048, 2500]):
        pass
    assert np.array_equal(a.U_, b.U_) and np.array_equal(a.eigenvalues_, b.eigenvalues_)


def test_warm_started_tracker_at_warm_start_equals_batch_truncated_evd():
    model = gen.SensingModel(gen.gaussian_factor(12, 3, 0), flip_prob=0.1)
    w = SENSOR_CHUNK + 100
    count, tr = next(sol.OnlineSubspaceTracker(12, 3, warm_start=w).iterate(model, 5000, 2, [w]))
    J = sol.surrogate_matrix(model, w, 2)
    evals, V = np.linalg.eigh(J)
    assert count == tr.n_sensors_ == w and np.array_equal(tr.eigenvalues_, evals[::-1][:3])
    assert np.array_equal(tr.subspace(), V[:, ::-1][:, :3])


def eq10_reference(Jt, A, B, y, start, r):
    """Dense NumPy Eq. (10) with truncation to the r largest eigenvalues after each sensor:
    returns the final truncated J~ (n, n) and its eigenvalues (r,), descending."""
    for i, (a, b, yi) in enumerate(zip(A, B, y)):
        m = start + i + 1
        w, V = np.linalg.eigh((m - 1) / m * Jt + yi / m * (np.outer(a, a.conj()) - np.outer(b, b.conj())))
        w, V = w[::-1][:r], V[:, ::-1][:, :r]
        Jt = (V * w) @ V.conj().T
    return Jt, w


@pytest.mark.parametrize("complex_sketches", [False, True])
def test_warm_started_tracker_follows_dense_eq10_from_batch_J(complex_sketches):
    """After warm start w the tracker continues Eq. (10) with eta_m = (m - 1)/m: it matches a dense
    reference started from the top-r truncation of J_w of the same stream (rounding of m - w EVDs,
    amplified by at most 1/(eigen-gap))."""
    n, r, w, m = 8, 2, 1500, 2600
    F = gen.line_spectrum_factor(n, [0.1, 0.4], [1.0, 0.7]) if complex_sketches else gen.gaussian_factor(n, r, 0)
    model = gen.SensingModel(F, complex_sketches=complex_sketches)
    tr = sol.OnlineSubspaceTracker(n, r, by_magnitude=False, complex_data=complex_sketches, warm_start=w)
    tr.track(model, m, 3)
    w_b, V = np.linalg.eigh(sol.surrogate_matrix(model, w, 3))
    start = (V[:, ::-1][:, :r] * w_b[::-1][:r]) @ V[:, ::-1][:, :r].conj().T
    A, B, y = first_sensors(model, m, 3, m)
    Jt, evals = eq10_reference(start, A[w:], B[w:], y[w:], w, r)
    tracked = (tr.U_ * tr.eigenvalues_) @ tr.U_.conj().T
    gap = evals[-1] - np.abs(np.linalg.eigvalsh(sol.surrogate_matrix(model, m, 3))[:-r]).max()
    tol = (m - w) * n * EPS * np.abs(Jt).max() / gap
    assert np.allclose(np.sort(tr.eigenvalues_)[::-1], evals, rtol=0, atol=tol)
    assert np.abs(tracked - Jt).max() <= tol


@pytest.mark.parametrize("complex_sketches", [False, True])
@pytest.mark.parametrize("warm_start", [0, 1000])
def test_full_rank_tracker_reproduces_batch_J_to_rounding(complex_sketches, warm_start):
    """With r = n nothing is truncated (the two null directions of Gamma are dropped), so Eq. (10)
    gives U diag(pi) U^H = J_m of the same stream; rounding of m updates of an n x n EVD. Needs
    P orthogonal to U when the sketches lie in span(U)."""
    n, m = 6, 4100
    F = gen.line_spectrum_factor(n, [0.2], [1.0]) if complex_sketches else gen.gaussian_factor(n, 2, 0)
    model = gen.SensingModel(F, complex_sketches=complex_sketches)
    tr = sol.OnlineSubspaceTracker(n, n, complex_data=complex_sketches, warm_start=warm_start).track(model, m, 3)
    J = sol.surrogate_matrix(model, m, 3)
    assert np.abs((tr.U_ * tr.eigenvalues_) @ tr.U_.conj().T - J).max() <= m * n * EPS * np.abs(J).max()


def test_tracker_attributes_hold_no_array_larger_than_n_times_r():
    n, r = 20, 2
    tr = sol.OnlineSubspaceTracker(n, r, by_magnitude=False, warm_start=300).track(
        gen.SensingModel(gen.gaussian_factor(n, r, 0)), 5000, 1)
    sizes = {k: np.asarray(v).size for k, v in vars(tr).items()}
    assert max(sizes.values()) <= n * r and tr.U_.shape == (n, r) and tr.eigenvalues_.shape == (r,)


PEAK_RSS = ("import resource,sys;from simverify.solvers import bitsubspace as s;from simverify.generators import "
            "bitsubspace as g;M=g.SensingModel(g.gaussian_factor(20,2,0));"
            "s.OnlineSubspaceTracker(20,2,by_magnitude=False).track(M,int(sys.argv[1]),1);"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")


@pytest.mark.slow
def test_tracker_peak_rss_at_m_2e5_within_20_percent_of_m_2e4():
    """Peak resident memory of a whole process (Numba's allocations are invisible to tracemalloc)."""
    peak = [int(subprocess.run([sys.executable, "-c", PEAK_RSS, str(m)], capture_output=True, text=True,
                               check=True).stdout) for m in (20_000, 200_000)]
    assert peak[1] <= 1.2 * peak[0]


def test_top_eigenvectors_of_rank_one_estimate_is_one_column():
    J = sol.surrogate_matrix(gen.SensingModel(gen.gaussian_factor(40, 3, 0)), 2000, 1)
    S = sol.convex_lowrank(J, 1)
    assert np.linalg.matrix_rank(S) == 1
    assert sol.top_eigenvectors(S, 3).shape == (40, 1)
    assert sol.top_eigenvectors(np.zeros((5, 5)), 2).shape == (5, 0)


def test_nmse_of_top_eigenvectors_invariant_to_rotating_the_null_space():
    """S2 = R S R^T with R orthogonal, the identity on range(S) and a random rotation of S's null
    space, equals the rank-one S up to rounding (~1e-16), which steers the basis eigh returns for the
    null space. The estimate must use range(S) only: NMSE equal to rounding, for several rotations."""
    n = 40
    X = gen.gaussian_factor(n, 3, 0)
    S = sol.convex_lowrank(sol.surrogate_matrix(gen.SensingModel(X), 2000, 1), 1)
    _, V = np.linalg.eigh(S)
    v, N = V[:, -1:], V[:, :-1]
    errs = []
    for seed in range(4):
        Q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((n - 1, n - 1)))
        R = v @ v.T + N @ Q @ N.T
        errs.append(metrics.nmse(sol.top_eigenvectors(R @ S @ R.T, 3), X))
    assert np.ptp(errs) <= n * EPS and abs(errs[0] - metrics.nmse(v, X)) <= n * EPS


@pytest.mark.parametrize("bad", [{"factor": np.array([[np.nan]])}, {"factor": np.ones((3, 1)), "flip_prob": 0.7},
                                 {"factor": np.ones((3, 1)), "samples": -1}, {"factor": np.ones((0, 1))}])
def test_sensing_model_rejects_bad_input(bad):
    with pytest.raises(ValueError):
        gen.SensingModel(**bad)


def test_generators_reject_bad_sizes():
    with pytest.raises(ValueError, match="exceeds"):
        gen.orthonormal_basis(3, 5, 0)
    with pytest.raises(ValueError):
        gen.condition_profile(3, float("inf"))
    with pytest.raises(ValueError):
        streams.standard_normal(-1, 5)
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
