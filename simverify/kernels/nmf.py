"""Kernels of non-negative matrix factorization Y ~ A Z (Li & Liang 2017 and its competitors).

Shapes: Y (W, N) data, one sample per column; A (W, D) features; Z (D, N) weights. The weight
generators fill X (D, N) column by column, one random stream (``kernels.streams``) per fixed chunk of columns, so the
draw is bit-identical for any thread count.

The batch solvers' dense products (AND's stage, MU, HALS) run in NumPy, the element and column updates between them
in Numba. A Numba ``np.dot`` calls SciPy's OpenBLAS, a second library beside NumPy's: with both on 2 threads, each
library's idle threads spin for a while after a call and slow the other's next one (an AND stage at the paper's
size 114 against 39 ms, median of 3; a HALS sweep 107 against 42 ms when NumPy work came between sweeps; one host,
2 cores). At one BLAS thread, the cells' setting, the results are bit-identical to the Numba kernels'; at more,
each library splits some sums by its thread count, differently. ``online_steps`` keeps its matrix-vector products
in Numba (one sample at a time).
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from .jit import JIT, PARALLEL_JIT
from .linalg import gram_by_gemm
from .streams import next_below, next_gamma, next_uniform, normal_block

# Weight distributions (codes shared with generators.nmf).
BINARY, DIRICHLET, CTM, DECAY = 0, 1, 2, 3
WEIGHT_CHUNK = 512  # columns per random stream


@njit(**JIT)
def _binary_column(g, x, s):
    """x (D,) <- a uniformly random s-sparse {0, 1} vector (partial Fisher-Yates)."""
    D = x.size
    idx = np.arange(D)
    x[:] = 0.0
    for j in range(s):
        r = j + next_below(g, D - j)
        idx[j], idx[r] = idx[r], idx[j]
        x[idx[j]] = 1.0


@njit(**JIT)
def _dirichlet_column(g, x, a):
    """x (D,) <- Dirichlet(a, ..., a) by normalised gammas (redrawn in the rare all-underflow case)."""
    total = 0.0
    while total == 0.0:
        for i in range(x.size):
            x[i] = next_gamma(g, a)
        total = x.sum()
    x /= total


@njit(**JIT)
def _ctm_column(g, x, L, scale, eta):
    """x (D,) <- softmax(scale * L u), u ~ N(0, I): the logistic-normal prior of the correlated topic model."""
    D = x.size
    normal_block(g, eta)
    top = -np.inf
    for i in range(D):
        v = 0.0
        for j in range(D):
            v += L[i, j] * eta[j]
        x[i] = scale * v
        top = max(top, x[i])
    total = 0.0
    for i in range(D):
        x[i] = np.exp(x[i] - top)
        total += x[i]
    x /= total


@njit(**JIT)
def _decay_column(g, x, p, q):
    """x (D,): each coordinate non-zero with probability p, then U^(1/q)
    (Definition 3: P[x_i <= a | x_i != 0] = a^q)."""
    for i in range(x.size):
        x[i] = next_uniform(g) ** (1.0 / q) if next_uniform(g) < p else 0.0


@njit(**PARALLEL_JIT)
def weight_columns(states, kind, X, s, a, L, scale, p, q, chunk):
    """Fill X (D, N) with N weight vectors; chunk c of ``chunk`` columns comes from the stream states[c]."""
    D, N = X.shape
    for cc in prange(states.shape[0]):
        c = np.int64(cc)
        g = states[c]
        x = np.empty(D)
        eta = np.empty(D)
        for n in range(c * chunk, min(N, (c + 1) * chunk)):
            if kind == BINARY:
                _binary_column(g, x, s)
            elif kind == DIRICHLET:
                _dirichlet_column(g, x, a)
            elif kind == CTM:
                _ctm_column(g, x, L, scale, eta)
            else:
                _decay_column(g, x, p, q)
            X[:, n] = x


@njit(**JIT)
def threshold_in_place(M, alpha):
    """M <- phi_alpha(M): entries below alpha set to 0 (Section 1.1.1's threshold), M any shape (2-d)."""
    rows, cols = M.shape
    for i in range(rows):
        for j in range(cols):
            if not M[i, j] >= alpha:  # NaN decodes to 0 as well
                M[i, j] = 0.0


@njit(**JIT)
def _step_from_product(A, YZt, AZZt, eta):
    """A <- A + eta (YZt - AZZt), entry by entry (one gradient step given its product A Z Z^T), all (W, D)."""
    W, D = A.shape
    for w in range(W):
        for i in range(D):
            A[w, i] += eta * (YZt[w, i] - AZZt[w, i])


def gradient_steps(A: np.ndarray, YZt: np.ndarray, ZZt: np.ndarray, eta: float, T: int) -> None:
    """T steps of A <- A + eta (Y Z^T - A Z Z^T) with fixed decodings (Algorithm 1 line 6, whole batch).

    A (W, D) is updated in place; YZt (W, D) and ZZt (D, D) are the stage's fixed products. The product runs on
    NumPy's BLAS, as the stage's others do (module docstring), into one buffer; the step is one pass."""
    AZZt = np.empty_like(A)
    for _ in range(T):
        np.matmul(A, ZZt, out=AZZt)
        _step_from_product(A, YZt, AZZt, eta)


@njit(**JIT)
def online_steps(A, P, Y, alpha, eta):
    """Algorithm 1 lines 3-7, one sample per step: for each column y of Y (W, T),
    z = phi_alpha(P y) with P (D, W) the stage's pseudo-inverse, then A <- A + eta (y - A z) z^T."""
    W, D = A.shape
    for t in range(Y.shape[1]):
        y = np.ascontiguousarray(Y[:, t])
        z = np.dot(P, y)
        for i in range(D):
            if not z[i] >= alpha:
                z[i] = 0.0
        r = y - np.dot(A, z)
        for w in range(W):
            rw = eta * r[w]
            for i in range(D):
                A[w, i] += rw * z[i]


@njit(**JIT)
def _scale_by_ratio(M, num, den, eps):
    """M <- M o num / (den + eps), entry by entry (one Lee-Seung half-step), M, num, den of one 2-d shape."""
    rows, cols = M.shape
    for i in range(rows):
        for j in range(cols):
            M[i, j] *= num[i, j] / (den[i, j] + eps)


def multiplicative_update(Y: np.ndarray, A: np.ndarray, Z: np.ndarray, eps: float) -> None:
    """One Lee-Seung sweep for ||Y - A Z||_F^2: Z <- Z o (A^T Y) / (A^T A Z + eps), then
    A <- A o (Y Z^T) / (A Z Z^T + eps). A (W, D) and Z (D, N) in place."""
    _scale_by_ratio(Z, A.T @ Y, gram_by_gemm(A.T) @ Z, eps)
    _scale_by_ratio(A, Y @ Z.T, A @ gram_by_gemm(Z), eps)


@njit(**JIT)
def _hals_columns(F, G, C, eps):
    """Columns of F (R, D) by HALS: f_i <- max(eps, f_i + (C_i - F G_i) / G_ii), C (R, D) = M H^T, G = H H^T."""
    R, D = F.shape
    for i in range(D):
        if G[i, i] <= 0.0:
            continue
        for r in range(R):
            v = C[r, i]
            for j in range(D):
                v -= F[r, j] * G[j, i]
            F[r, i] = max(eps, F[r, i] + v / G[i, i])


def hals_update(Y: np.ndarray, A: np.ndarray, Z: np.ndarray, eps: float) -> None:
    """One HALS sweep (Cichocki et al. 2007, in the Gram form of Cichocki & Phan 2009): the columns of A,
    then the rows of Z, each the exact non-negative minimiser of ||Y - A Z||_F^2 with the others fixed."""
    _hals_columns(A, gram_by_gemm(Z), Y @ Z.T, eps)
    Zt = np.ascontiguousarray(Z.T)
    _hals_columns(Zt, gram_by_gemm(A.T), Y.T @ A, eps)
    Z[:, :] = Zt.T
