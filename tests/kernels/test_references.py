"""Each @njit kernel against a slow NumPy reference, drawing from the naive reference of the kernels' streams."""
import numpy as np
import pytest

from simverify.generators import bitsubspace as gen
from simverify.kernels import rng
from simverify.kernels.linalg import project_l1_ball, project_psd_fball, sparse_set_admm
from simverify.kernels.sensing import (
    accumulate_rank_two,
    bit_error_counts,
    projected_diagonal_sums,
    sense_chunk,
    sense_chunk_complex,
    surrogate_slots,
    surrogate_slots_complex,
)
from simverify.kernels.streams import stream_states
from simverify.kernels.tracking import track_chunk
from tests.stream_reference import ReferenceStream, reference_streams

EPS = np.finfo(float).eps


def state(seed):
    """One stream (4,) uint64 of the seed."""
    return stream_states(seed, 1)[0]


def sense_reference(g, F, T, flip, c, complex_sketches=False):
    """Sensors drawn one after another: a, b, [2 chi2_T], flip uniform; bits from explicit energies."""
    n = F.shape[0]
    rows = []
    for _ in range(c):
        if complex_sketches:
            a, b = (g.standard_normal((n, 2)) @ [1.0, 1j] / np.sqrt(2) for _ in range(2))
        else:
            a, b = g.standard_normal(n), g.standard_normal(n)
        chi = 2.0 * np.array([g.standard_gamma(T / 2), g.standard_gamma(T / 2)]) if T > 0 else None
        u = g.random()
        pa, pb = F.conj().T @ a, F.conj().T @ b
        exact = 1.0 if np.vdot(pa, pa).real > np.vdot(pb, pb).real else -1.0
        bit = exact
        if chi is not None:  # z_T = (mu1 X1 + mu2 X2)/T, mu the eigenvalues of diag(1, -1) Cov(a^T x, b^T x)
            C = np.array([[pa @ pa, pa @ pb], [pa @ pb, pb @ pb]])
            mu = np.sort(np.linalg.eigvals(np.diag([1.0, -1.0]) @ C).real)[::-1]
            bit = 1.0 if mu @ chi > 0 else -1.0
        rows.append((a, b, -bit if u < flip else bit, exact))
    A, B, y, ye = (np.array(v) for v in zip(*rows))
    return A, B, y, ye


def outer_sum(A, B, y):
    """sum_i y_i (a_i a_i^H - b_i b_i^H) and its rounding bound (c + 4) eps sum (|a|+|b|)(|a|+|b|)^T."""
    J = np.einsum("i,ij,ik->jk", y, A, A.conj()) - np.einsum("i,ij,ik->jk", y, B, B.conj())
    s = np.abs(A) + np.abs(B)
    return J, (len(y) + 4) * EPS * (s.T @ s)


@pytest.mark.parametrize("T,flip", [(0, 0.0), (25, 0.2)])
def test_sense_chunk_equals_reference_draw_for_draw(T, flip):
    F = gen.gaussian_factor(6, 2, 0)
    A, B, y, ye = np.empty((300, 6)), np.empty((300, 6)), np.empty(300), np.empty(300)
    sense_chunk(state(1), F, T, flip, A, B, y, ye)
    rA, rB, ry, rye = sense_reference(ReferenceStream(state(1)), F, T, flip, 300)
    assert np.array_equal(A, rA) and np.array_equal(B, rB) and np.array_equal(y, ry) and np.array_equal(ye, rye)


def test_sense_chunk_complex_equals_reference_draw_for_draw():
    F = gen.line_spectrum_factor(5, [0.1, 0.3], [1.0, 0.5])
    A, B = np.empty((200, 5), complex), np.empty((200, 5), complex)
    y, ye = np.empty(200), np.empty(200)
    sense_chunk_complex(state(2), F, 0.1, A, B, y, ye)
    rA, rB, ry, rye = sense_reference(ReferenceStream(state(2)), F, 0, 0.1, 200, complex_sketches=True)
    assert np.array_equal(A, rA) and np.array_equal(B, rB) and np.array_equal(y, ry) and np.array_equal(ye, rye)


@pytest.mark.parametrize("dtype", [float, complex])
def test_accumulate_rank_two_equals_outer_products_to_rounding(dtype):
    g = np.random.default_rng(3)
    A = g.standard_normal((500, 7)) + (1j * g.standard_normal((500, 7)) if dtype is complex else 0)
    B = g.standard_normal((500, 7)) + (1j * g.standard_normal((500, 7)) if dtype is complex else 0)
    y = np.sign(g.standard_normal(500))
    ref, bound = outer_sum(A, B, y)
    acc = np.zeros((7, 7), dtype=dtype)
    accumulate_rank_two(acc, A.copy(), B.copy(), y)
    assert np.all(np.abs(acc - ref) <= bound) and np.array_equal(acc, acc.conj().T)


@pytest.mark.parametrize("complex_sketches", [False, True])
@pytest.mark.slow
def test_surrogate_slots_hold_chunks_s_mod_n_slots_to_rounding(complex_sketches):
    chunk, m, n_slots = 64, 1000, 3
    F = gen.line_spectrum_factor(5, [0.2], [1.0]) if complex_sketches else gen.gaussian_factor(5, 2, 0)
    states = stream_states(7, rng.n_chunks(m, chunk))
    if complex_sketches:
        slots = surrogate_slots_complex(states, F, 0.1, m, chunk, n_slots)
    else:
        slots = surrogate_slots(states, F, 10, 0.1, m, chunk, n_slots)
    refs = reference_streams(7, len(states))
    for s in range(n_slots):
        parts = [sense_reference(refs[j], F, 0 if complex_sketches else 10, 0.1, min(chunk, m - j * chunk),
                                 complex_sketches)
                 for j in range(s, len(states), n_slots)]
        ref, bound = outer_sum(*(np.concatenate(p) for p in list(zip(*parts))[:3]))
        assert np.all(np.abs(slots[s] - ref) <= bound)


def test_bit_error_counts_equal_reference_per_chunk():
    chunk, m = 100, 950
    F = gen.gaussian_factor(6, 2, 1)
    counts = bit_error_counts(stream_states(4, rng.n_chunks(m, chunk)), F, 30, 0.15, m, chunk)
    refs = reference_streams(4, len(counts))
    ref = [np.sum(np.not_equal(*sense_reference(refs[j], F, 30, 0.15, min(chunk, m - j * chunk))[2:]))
           for j in range(len(counts))]
    assert np.array_equal(counts, ref)


@pytest.mark.parametrize("laplace", [False, True])
def test_projected_diagonal_sums_equal_reference_per_chunk(laplace):
    chunk, m, lam = 50, 420, np.array([1.0, 0.5, 0.2])
    sums = projected_diagonal_sums(stream_states(5, rng.n_chunks(m, chunk)), lam, m, chunk, laplace)
    refs = reference_streams(5, len(sums))
    for j, row in enumerate(sums):
        g = refs[j]
        ref, bound = np.zeros(3), np.zeros(3)
        for _ in range(min(chunk, m - j * chunk)):
            if laplace:
                V = np.array([g.standard_exponential() - g.standard_exponential() for _ in lam])
            else:
                V = np.array([g.standard_normal() ** 2 - g.standard_normal() ** 2 for _ in lam])
            ref += np.sign(lam @ V) * V
            bound += np.abs(V)
        assert np.all(np.abs(row - ref) <= chunk * EPS * bound)


@pytest.mark.parametrize("by_magnitude", [False, True])
def test_track_chunk_equals_dense_eq10_with_truncation(by_magnitude):
    """Eq. (10) on the dense n x n matrix, keeping r eigenpairs (largest or largest in magnitude)."""
    g = np.random.default_rng(6)
    n, r, c, start = 9, 3, 60, 40
    U, _ = np.linalg.qr(g.standard_normal((n, r)))
    pi = np.array([0.9, 0.5, 0.3])
    A, B = g.standard_normal((c, n)), g.standard_normal((c, n))
    y = np.sign(g.standard_normal(c)) * (1 + 3 * np.arange(c) % 2)  # exercise both signs, large steps
    Ut, pt = track_chunk(U, pi, A, B, y, start, by_magnitude)
    Jt = (U * pi) @ U.T
    for i in range(c):
        m = start + i + 1
        w, V = np.linalg.eigh((m - 1) / m * Jt + y[i] / m * (np.outer(A[i], A[i]) - np.outer(B[i], B[i])))
        keep = np.argsort(-np.abs(w) if by_magnitude else -w)[:r]
        Jt = (V[:, keep] * w[keep]) @ V[:, keep].T
    assert np.allclose(np.sort(pt), np.sort(w[keep]), rtol=0, atol=c * n * EPS * np.abs(Jt).max())
    assert np.abs((Ut * pt) @ Ut.T - Jt).max() <= c * n * EPS * np.abs(Jt).max()


def test_project_l1_ball_equals_bisection_reference():
    g = np.random.default_rng(8)
    for _ in range(20):
        v, radius = g.standard_normal(30) * 3, g.uniform(0.5, 10)
        p = project_l1_ball(v, radius)
        if np.abs(v).sum() <= radius:
            assert np.array_equal(p, v)
            continue
        lo, hi = 0.0, np.abs(v).max()  # soft threshold theta with sum (|v| - theta)_+ = radius
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if np.maximum(np.abs(v) - mid, 0).sum() > radius else (lo, mid)
        ref = np.sign(v) * np.maximum(np.abs(v) - hi, 0)
        assert np.abs(p - ref).max() <= v.size * EPS * np.abs(v).max()


def test_project_psd_fball_is_the_nearest_point_of_the_set():
    """Reference: the projection P onto the convex set K = {S PSD, ||S||_F <= 1} satisfies
    <M - P, Z - P> <= 0 for every Z in K; checked on random members Z of K."""
    g = np.random.default_rng(9)
    for scale in (0.1, 3.0):
        X = g.standard_normal((6, 6))
        M = scale * (X + X.T)
        P = project_psd_fball(M)
        assert np.linalg.eigvalsh(P).min() >= -6 * EPS * np.abs(M).max()
        assert np.linalg.norm(P) <= 1 + 6 * EPS
        for _ in range(200):
            X = g.standard_normal((6, 2))
            Z = X @ X.T
            Z /= max(1.0, np.linalg.norm(Z)) / g.uniform(0, 1)
            assert np.sum((M - P) * (Z - P)) <= 36 * EPS * np.abs(M).max() ** 2


def _l1_ball_reference(v, radius):
    """Projection onto {||x||_1 <= radius} by sorting (Duchi et al. 2008), written out in NumPy."""
    if np.abs(v).sum() <= radius:
        return v.copy()
    u = np.sort(np.abs(v))[::-1]
    k = np.arange(1, u.size + 1)
    theta = (np.cumsum(u) - radius) / k
    return np.sign(v) * np.maximum(np.abs(v) - theta[u - theta > 0][-1], 0.0)


def _psd_fball_reference(M):
    w, V = np.linalg.eigh((M + M.T) / 2)
    w = np.maximum(w, 0.0)
    return (V * (w / max(1.0, np.linalg.norm(w)))) @ V.T


def test_sparse_set_admm_equals_numpy_admm_iterates():
    """The ADMM of Section 4's sparse set, S = P_psd,F(Z - (Y - J)/rho), Z = P_l1(S + Y/rho), Y += rho (S - Z),
    written out in NumPy: both run 40 iterations (tol 0, no early stop) and agree to accumulated rounding (the
    ADMM map is non-expansive, so per-step rounding differences of ~n eps add up at most linearly)."""
    g = np.random.default_rng(10)
    n, radius, rho, iterations = 8, 2.0, 1.0, 40
    u = np.zeros(n)
    u[:3] = 1 / np.sqrt(3)
    X = g.standard_normal((n, n))
    J = np.outer(u, u) + 0.05 * (X + X.T)
    Z, Y = np.zeros((n, n)), np.zeros((n, n))
    for _ in range(iterations):
        S = _psd_fball_reference(Z - (Y - J) / rho)
        Z = _l1_ball_reference((S + Y / rho).ravel(), radius).reshape(n, n)
        Y = Y + rho * (S - Z)
    got = sparse_set_admm(J, radius, iterations, rho, 0.0)
    assert np.abs(got - Z).max() <= iterations * n * n * EPS * np.abs(J).max()


def test_pcg64_standard_normal_is_numpy_streams_of_spawned_children_chunk_by_chunk():
    size, chunk = 10_001, 4096
    children = np.random.SeedSequence(3).spawn(rng.n_chunks(size, chunk))
    ref = np.concatenate([np.random.Generator(np.random.PCG64(c)).standard_normal(chunk) for c in children])[:size]
    assert np.array_equal(rng.pcg64_standard_normal(3, size, chunk), ref)
