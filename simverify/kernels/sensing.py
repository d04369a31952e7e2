"""One-bit energy-comparison sensing (Chi 2018, Algorithm 1 lines 1-4) and the
streaming surrogate J = (1/m) sum_i y_i (a_i a_i^H - b_i b_i^H) (Eq. 5).

The sensor stream is defined once, by ``sense_chunk`` (``sense_chunk_complex``): sensor i
belongs to chunk i // SENSOR_CHUNK, whose stream (``kernels.streams``, a row of xoshiro256++
states) draws, sensor after sensor, a_i, b_i (n normals each; 2n for complex sketches, real
and imaginary part per entry), the two chi-square variates of the finite-sample comparison
(only when T > 0) and one uniform for the flip. The draws are interleaved per sensor, so the
first k sensors of a stream are the same whatever the number m of sensors requested: batch
fusion at a checkpoint, bit-error counting and the online tracker all see the same sensors for
one seed. Nothing of size
m x n is stored: a chunk lives in a (SENSOR_CHUNK x n) buffer.

Covariances enter through a factor F (n x k) with Sigma = F F^H, so that
a^H Sigma a = ||F^H a||^2; for T samples shared by all sensors pass F = X^T / sqrt(T).
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from .jit import JIT, PARALLEL_JIT
from .rng import N_SLOTS  # noqa: F401  (re-exported for the bitsubspace solvers)
from .streams import next_chi_square, next_exponential, next_normal, next_uniform, normal_block

SENSOR_CHUNK = 2048  # sensors per random stream; fixed, so results never depend on threads


@njit(**JIT)
def finite_sample_difference(alpha, beta, gamma, x1, x2, T):
    """z_T = (1/T) sum_t (a^T x_t)^2 - (b^T x_t)^2 with x_t ~ N(0, Sigma) i.i.d. (Eq. 8).

    (a^T x, b^T x) ~ N(0, [[alpha, gamma], [gamma, beta]]); p^2 - q^2 is a quadratic form
    with eigenvalues mu of diag(1, -1) C, so z_T = (mu1 X1 + mu2 X2) / T with x1, x2 two
    independent chi2_T variates. Exact in distribution, O(1) per sensor whatever T.
    """
    disc = np.sqrt(max((alpha + beta) ** 2 - 4.0 * gamma * gamma, 0.0))
    mu1 = 0.5 * ((alpha - beta) + disc)
    mu2 = 0.5 * ((alpha - beta) - disc)
    return (mu1 * x1 + mu2 * x2) / T


@njit(**JIT)
def sense_chunk(g, F, T, flip, A, B, y, y_exact):
    """Fill sketch rows A, B (c, n), observed bits y and population bits y_exact (c,)
    from the stream g (4,) uint64, drawing per sensor a_i, b_i, [chi2_T, chi2_T if T > 0], flip uniform.

    y_exact = sign(a^T Sigma a - b^T Sigma b) (Eq. 2); y is the T-sample bit (Eq. 1)
    when T > 0, else y_exact; then y is flipped with probability ``flip``.
    """
    c, n = A.shape
    chi = np.zeros((c, 2))
    u = np.empty(c)
    for i in range(c):
        normal_block(g, A[i])
        normal_block(g, B[i])
        if T > 0:
            chi[i, 0] = next_chi_square(g, T)
            chi[i, 1] = next_chi_square(g, T)
        u[i] = next_uniform(g)
    P = np.dot(A, F)
    Q = np.dot(B, F)
    for i in range(c):
        alpha = 0.0
        beta = 0.0
        gamma = 0.0
        for q in range(F.shape[1]):
            alpha += P[i, q] * P[i, q]
            beta += Q[i, q] * Q[i, q]
            gamma += P[i, q] * Q[i, q]
        exact = 1.0 if alpha > beta else -1.0
        bit = exact
        if T > 0:
            bit = 1.0 if finite_sample_difference(alpha, beta, gamma, chi[i, 0], chi[i, 1], T) > 0.0 else -1.0
        y[i] = -bit if u[i] < flip else bit
        y_exact[i] = exact


@njit(**JIT)
def sense_chunk_complex(g, F, flip, A, B, y, y_exact):
    """Complex circular Gaussian sketches (Section 6.2), a^H Sigma a = ||F^H a||^2; per sensor
    a_i, b_i (real then imaginary part of each entry, scaled by 1/sqrt(2)), flip uniform.
    Shapes as ``sense_chunk``; population bits only."""
    c, n = A.shape
    s = 1.0 / np.sqrt(2.0)
    u = np.empty(c)
    z = np.empty(2 * n)
    for i in range(c):
        for M in (A, B):
            normal_block(g, z)
            for j in range(n):
                M[i, j] = s * (z[2 * j] + 1j * z[2 * j + 1])
        u[i] = next_uniform(g)
    Fc = np.ascontiguousarray(np.conj(F))
    P = np.dot(A, Fc)
    Q = np.dot(B, Fc)
    for i in range(c):
        alpha = np.sum(np.abs(P[i]) ** 2)
        beta = np.sum(np.abs(Q[i]) ** 2)
        exact = 1.0 if alpha > beta else -1.0
        y[i] = -exact if u[i] < flip else exact
        y_exact[i] = exact


@njit(**JIT)
def accumulate_rank_two(acc, A, B, y):
    """acc (n, n) += sum_i y_i (a_i a_i^H - b_i b_i^H) over the rows of A, B (c, n), with one
    GEMM: a a^H - b b^H is the Hermitian part of (a + b)(a - b)^H (the cross terms cancel).
    Real or complex; A and B are scratch, overwritten by the rows y_i (a_i + b_i), conj(a_i - b_i).
    """
    c, n = A.shape
    for i in range(c):
        for j in range(n):
            a = A[i, j]
            b = B[i, j]
            A[i, j] = (a + b) * y[i]
            B[i, j] = np.conj(a - b)
    M = np.dot(A.T, B)
    acc += 0.5 * (M + np.conj(M.T))


@njit(**PARALLEL_JIT)
def surrogate_slots(states, F, T, flip, m, chunk, n_slots):
    """Partial sums (n_slots, n, n) of y_i W_i for real sketches, slot s holding chunks
    s, s + n_slots, ... in order (the slot layout never depends on the thread count)."""
    n = F.shape[0]
    out = np.zeros((n_slots, n, n))
    for s in prange(n_slots):
        A = np.empty((chunk, n))
        B = np.empty((chunk, n))
        y = np.empty(chunk)
        ye = np.empty(chunk)
        for j in range(s, states.shape[0], n_slots):
            c = min(chunk, m - j * chunk)
            sense_chunk(states[j], F, T, flip, A[:c], B[:c], y[:c], ye[:c])
            accumulate_rank_two(out[s], A[:c], B[:c], y[:c])
    return out


@njit(**PARALLEL_JIT)
def surrogate_slots_complex(states, F, flip, m, chunk, n_slots):
    """``surrogate_slots`` for complex sketches: Hermitian partial sums (n_slots, n, n)."""
    n = F.shape[0]
    out = np.zeros((n_slots, n, n), dtype=np.complex128)
    for s in prange(n_slots):
        A = np.empty((chunk, n), dtype=np.complex128)
        B = np.empty((chunk, n), dtype=np.complex128)
        y = np.empty(chunk)
        ye = np.empty(chunk)
        for j in range(s, states.shape[0], n_slots):
            c = min(chunk, m - j * chunk)
            sense_chunk_complex(states[j], F, flip, A[:c], B[:c], y[:c], ye[:c])
            accumulate_rank_two(out[s], A[:c], B[:c], y[:c])
    return out


@njit(**PARALLEL_JIT)
def bit_error_counts(states, F, T, flip, m, chunk):
    """Per-chunk counts (n_chunks,) of y_i != y_exact_i (the bit error rate's numerator)."""
    n = F.shape[0]
    counts = np.zeros(states.shape[0], dtype=np.int64)
    for jj in prange(states.shape[0]):
        j = np.int64(jj)
        c = min(chunk, m - j * chunk)
        y = np.empty(c)
        ye = np.empty(c)
        sense_chunk(states[j], F, T, flip, np.empty((c, n)), np.empty((c, n)), y, ye)
        counts[j] = np.sum(y != ye)
    return counts


@njit(**PARALLEL_JIT)
def projected_diagonal_sums(states, lam, m, chunk, laplace):
    """Per-chunk sums (n_chunks, r) of sign(sum_j lam_j V_j) V_k, k = 1..r.

    V_j = g1^2 - g2^2 with g ~ N(0, 1): the exact law of (a^T u_j)^2 - (b^T u_j)^2 for
    Gaussian sketches; ``laplace=True`` draws V_j = e1 - e2 (e ~ Exp(1)) instead, the
    Laplace(1) model the proof of Lemma 1 assumes.
    """
    r = lam.size
    out = np.zeros((states.shape[0], r))
    for jj in prange(states.shape[0]):
        j = np.int64(jj)
        g = states[j]
        V = np.empty(r)
        for _ in range(min(chunk, m - j * chunk)):
            s = 0.0
            for k in range(r):
                if laplace:
                    V[k] = next_exponential(g) - next_exponential(g)
                else:
                    V[k] = next_normal(g) ** 2 - next_normal(g) ** 2
                s += lam[k] * V[k]
            sgn = 1.0 if s > 0 else -1.0
            for k in range(r):
                out[j, k] += sgn * V[k]
    return out
