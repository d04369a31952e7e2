"""Non-negative least squares for many right-hand sides: min_x ||A x - y||_2 subject to x >= 0 for each column y of
Y (W, N), with A (W, D). Solved on the normal equations, G = A^T A (D, D) and B = A^T Y (D, N), by the
Lawson-Hanson active-set method in the form of Bro & De Jong's FNNLS: each column costs D x |P| work per step
plus a |P| x |P| solve, P the passive (free) set. Columns are independent, so results do not depend on the
thread count.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from .jit import JIT, PARALLEL_JIT, one_blas_thread

RIDGE = 1e-13  # relative ridge on the passive Gram block: keeps a rank-deficient block solvable


@njit(**JIT)
def _passive_solve(G, b, passive, ridge):
    """s (D,): the unconstrained minimiser on the passive set (zero elsewhere), (G_PP + ridge I) s_P = b_P."""
    idx = np.nonzero(passive)[0]
    k = idx.size
    M = np.empty((k, k))
    r = np.empty(k)
    for a in range(k):
        r[a] = b[idx[a]]
        for c in range(k):
            M[a, c] = G[idx[a], idx[c]]
        M[a, a] += ridge
    s = np.zeros(b.size)
    sol = np.linalg.solve(M, r)
    for a in range(k):
        s[idx[a]] = sol[a]
    return s


@njit(**JIT)
def _nnls_gram(G, b, x, max_iter, tol):
    """x (D,) <- argmin 0.5 x^T G x - b^T x over x >= 0 (FNNLS). Stops when no free coordinate's gradient
    b - G x exceeds ``tol``. Returns the number of outer iterations, or -1 if ``max_iter`` was reached."""
    D = b.size
    ridge = RIDGE * max(1.0, np.abs(np.diag(G)).max())
    x[:] = 0.0
    passive = np.zeros(D, np.bool_)
    w = b.copy()
    outer = 0
    while True:
        j, best = -1, tol
        for i in range(D):
            if not passive[i] and w[i] > best:
                j, best = i, w[i]
        if j < 0:
            return outer
        if outer >= max_iter:
            return -1
        outer += 1
        passive[j] = True
        for _ in range(3 * D + 3):  # inner loop: each pass drops at least one coordinate from P
            s = _passive_solve(G, b, passive, ridge)
            step = 1.0
            feasible = True
            for i in range(D):
                if passive[i] and s[i] <= 0.0:
                    feasible = False
                    step = min(step, x[i] / (x[i] - s[i]))
            if feasible:
                x[:] = s
                break
            for i in range(D):
                if passive[i]:
                    x[i] += step * (s[i] - x[i])
                    if x[i] <= 0.0 or (s[i] <= 0.0 and x[i] <= 1e-300):
                        x[i] = 0.0
                        passive[i] = False
        w = b - np.dot(G, x)


@njit(**PARALLEL_JIT)
def nnls_gram_columns(G, B, max_iter, tol):
    """X (D, N): column n solves min 0.5 x^T G x - B[:, n]^T x over x >= 0; also the outer-iteration counts (N,)."""
    D, N = B.shape
    X = np.zeros((D, N))
    counts = np.zeros(N, np.int64)
    for n in prange(N):
        x = np.zeros(D)
        counts[n] = _nnls_gram(G, np.ascontiguousarray(B[:, n]), x, max_iter, tol)
        X[:, n] = x
    return X, counts


def nonnegative_least_squares(A, Y, max_iter: int | None = None) -> np.ndarray:
    """X (D, N) (or (D,) for a vector y): min ||A x - y||_2 over x >= 0 per column of Y (W, N). A (W, D) finite
    and real; D > W is allowed (the minimiser may then not be unique: any minimiser is returned). The stopping
    tolerance on the gradient is 1e-10 x max(1, max |A^T y|) x D; max_iter (default 3 D) bounds the outer
    iterations per column and a column that reaches it raises ValueError."""
    from ..validation import finite_matrix, positive_int, require

    A = finite_matrix("A", A)
    y_is_vector = np.ndim(Y) == 1
    Y = finite_matrix("Y", np.asarray(Y)[:, None] if y_is_vector else Y)
    require(A.shape[0] == Y.shape[0], f"A has {A.shape[0]} rows but Y has {Y.shape[0]}")
    D = A.shape[1]
    max_iter = 3 * D if max_iter is None else positive_int("max_iter", max_iter)
    G = A.T @ A
    B = np.ascontiguousarray(A.T @ Y)
    tol = 1e-10 * max(1.0, float(np.abs(B).max()) if B.size else 1.0) * D
    with one_blas_thread():
        X, counts = nnls_gram_columns(G, B, max_iter, tol)
    require(bool(np.all(counts >= 0)), f"NNLS did not converge in {max_iter} iterations for some column")
    return X[:, 0] if y_is_vector else X
