"""One-bit energy-comparison sensing (Chi 2018, Algorithm 1 lines 1-4) and the
streaming surrogate J = (1/m) sum_i y_i (a_i a_i^T - b_i b_i^T) (Eq. 5).

The sensor stream is defined once, by ``_sense_chunk``: sensor i belongs to chunk
i // chunk, whose generator draws, in order, a_i, b_i (n normals each), the two
chi-square variates of the finite-sample comparison (only when T > 0) and one uniform
for the flip. Batch fusion, bit-error counting and the online tracker all replay this
same stream, so for one seed they see the same sensors. Nothing of size m x n is
stored: a chunk lives in a (chunk x n) buffer.

Covariances enter through a factor F (n x k) with Sigma = F F^T, so that
a^T Sigma a = ||F^T a||^2; for T samples shared by all sensors pass F = X^T / sqrt(T).
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._jit import JIT, PARALLEL_JIT

SENSOR_CHUNK = 2048  # sensors per random stream; fixed, so results never depend on threads
N_SLOTS = 16         # fixed-order partial sums of the surrogate (independent of thread count)


@njit(**JIT)
def _finite_sample_difference(g, alpha, beta, gamma, T):
    """z_T = (1/T) sum_t (a^T x_t)^2 - (b^T x_t)^2 with x_t ~ N(0, Sigma) i.i.d. (Eq. 8).

    (a^T x, b^T x) ~ N(0, [[alpha, gamma], [gamma, beta]]); p^2 - q^2 is a quadratic form
    with eigenvalues mu of diag(1, -1) C, so z_T = (mu1 X1 + mu2 X2) / T with X ~ chi2_T.
    Exact in distribution, O(1) per sensor whatever T.
    """
    disc = np.sqrt(max((alpha + beta) ** 2 - 4.0 * gamma * gamma, 0.0))
    mu1 = 0.5 * ((alpha - beta) + disc)
    mu2 = 0.5 * ((alpha - beta) - disc)
    x1 = 2.0 * g.standard_gamma(0.5 * T)
    x2 = 2.0 * g.standard_gamma(0.5 * T)
    return (mu1 * x1 + mu2 * x2) / T


@njit(**JIT)
def _sense_chunk(g, F, T, flip, A, B, y, y_exact):
    """Fill sketch rows A, B (c x n), observed bits y and population bits y_exact (c,).

    y_exact = sign(a^T Sigma a - b^T Sigma b) (Eq. 2); y is the T-sample bit (Eq. 1)
    when T > 0, else y_exact; then y is flipped with probability ``flip``.
    """
    c, n = A.shape
    for i in range(c):
        for j in range(n):
            A[i, j] = g.standard_normal()
        for j in range(n):
            B[i, j] = g.standard_normal()
    P = np.dot(A, F)
    Q = np.dot(B, F)
    k = F.shape[1]
    for i in range(c):
        alpha = 0.0
        beta = 0.0
        gamma = 0.0
        for l in range(k):
            alpha += P[i, l] * P[i, l]
            beta += Q[i, l] * Q[i, l]
            gamma += P[i, l] * Q[i, l]
        exact = 1.0 if alpha > beta else -1.0
        bit = exact
        if T > 0:
            bit = 1.0 if _finite_sample_difference(g, alpha, beta, gamma, T) > 0.0 else -1.0
        if g.random() < flip:
            bit = -bit
        y[i] = bit
        y_exact[i] = exact


@njit(**JIT)
def _sense_chunk_complex(g, F, flip, A, B, y, y_exact):
    """Complex circular Gaussian sketches, a^H Sigma a = ||F^H a||^2 (Section 6.2)."""
    c, n = A.shape
    s = 1.0 / np.sqrt(2.0)
    for i in range(c):
        for j in range(n):
            A[i, j] = s * (g.standard_normal() + 1j * g.standard_normal())
        for j in range(n):
            B[i, j] = s * (g.standard_normal() + 1j * g.standard_normal())
    Fc = np.ascontiguousarray(np.conj(F))
    P = np.dot(A, Fc)
    Q = np.dot(B, Fc)
    for i in range(c):
        alpha = np.sum(np.abs(P[i]) ** 2)
        beta = np.sum(np.abs(Q[i]) ** 2)
        exact = 1.0 if alpha > beta else -1.0
        bit = exact
        if g.random() < flip:
            bit = -bit
        y[i] = bit
        y_exact[i] = exact


@njit(**JIT)
def _accumulate_rank_two(acc, A, B, y):
    """acc += sum_i y_i (a_i a_i^T - b_i b_i^T) over the rows of A, B (c x n), with one GEMM:
    a a^T - b b^T is the symmetric part of (a + b)(a - b)^T (the cross terms cancel).

    A and B are scratch: overwritten in place by the rows y_i (a_i + b_i) and a_i - b_i.
    """
    c, n = A.shape
    for i in range(c):
        for j in range(n):
            a = A[i, j]
            b = B[i, j]
            A[i, j] = (a + b) * y[i]
            B[i, j] = a - b
    M = np.dot(A.T, B)
    acc += 0.5 * (M + M.T)


@njit(**PARALLEL_JIT)
def _surrogate_slots(gens, F, T, flip, m, chunk, n_slots):
    """Partial sums of y_i W_i, slot s holding chunks s, s + n_slots, ... in order."""
    n = F.shape[0]
    n_chunks = len(gens)
    out = np.zeros((n_slots, n, n))
    for s in prange(n_slots):
        A = np.empty((chunk, n))
        B = np.empty((chunk, n))
        y = np.empty(chunk)
        ye = np.empty(chunk)
        acc = np.zeros((n, n))
        for j in range(s, n_chunks, n_slots):
            c = min(chunk, m - j * chunk)
            _sense_chunk(gens[j], F, T, flip, A[:c], B[:c], y[:c], ye[:c])
            _accumulate_rank_two(acc, A[:c], B[:c], y[:c])
        out[s] = acc
    return out


@njit(**PARALLEL_JIT)
def _bit_error_counts(gens, F, T, flip, m, chunk):
    """Per-chunk counts of y_i != y_exact_i (the bit error rate's numerator)."""
    n = F.shape[0]
    n_chunks = len(gens)
    counts = np.zeros(n_chunks, dtype=np.int64)
    for jj in prange(n_chunks):
        j = np.int64(jj)
        c = min(chunk, m - j * chunk)
        A = np.empty((c, n))
        B = np.empty((c, n))
        y = np.empty(c)
        ye = np.empty(c)
        _sense_chunk(gens[j], F, T, flip, A, B, y, ye)
        counts[j] = np.sum(y != ye)
    return counts


@njit(**PARALLEL_JIT)
def _projected_diagonal_sums(gens, lam, m, chunk, laplace):
    """Per-chunk sums of sign(sum_j lam_j V_j) V_k, k = 1..r, (n_chunks, r).

    V_j = g1^2 - g2^2 with g ~ N(0, 1): the exact law of (a^T u_j)^2 - (b^T u_j)^2 for
    Gaussian sketches; ``laplace=True`` draws V_j = e1 - e2 (e ~ Exp(1)) instead, the
    Laplace(1) model the proof of Lemma 1 assumes.
    """
    r = lam.size
    out = np.zeros((len(gens), r))
    for jj in prange(len(gens)):
        j = np.int64(jj)
        g = gens[j]
        V = np.empty(r)
        for i in range(min(chunk, m - j * chunk)):
            s = 0.0
            for k in range(r):
                if laplace:
                    V[k] = g.standard_exponential() - g.standard_exponential()
                else:
                    V[k] = g.standard_normal() ** 2 - g.standard_normal() ** 2
                s += lam[k] * V[k]
            sgn = 1.0 if s > 0 else -1.0
            for k in range(r):
                out[j, k] += sgn * V[k]
    return out
