"""Non-negative least squares for many right-hand sides: min_x ||A x - y||_2 subject to x >= 0 for each column y of
Y (W, N), with A (W, D). Solved on the normal equations, G = A^T A (D, D) and B = A^T Y (D, N), by the
Lawson-Hanson active-set method in the form of Bro & De Jong's FNNLS: each column costs D x |P| work per step
plus a |P| x |P| solve, P the passive (free) set. With a warm start (a guess of each column's support), by block
principal pivoting instead (Kim & Park 2011): each step is one Cholesky of the passive block (|P|^3 / 6) and
exchanges every infeasible index at once, so a nearly right support is done in one or two steps. Columns are
independent, so results do not depend on the thread count.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from .jit import JIT, PARALLEL_JIT, one_blas_thread

RIDGE = 1e-13  # relative ridge on the passive Gram block: keeps a rank-deficient block solvable
NEAR_SINGULAR = 1e3  # block pivoting gives up on a Cholesky pivot below this many ridges (FNNLS takes the column)


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


@njit(**JIT)
def _cholesky_solve(G, g, idx, k, ridge, L, z):
    """z[:k] <- (G_PP + ridge I)^-1 g_P with P = idx[:k], by a Cholesky factor written into L[:k, :k] (lower).
    Returns False when the block is not numerically positive definite."""
    for a in range(k):  # the block's lower triangle, gathered
        ia = idx[a]
        for c in range(a + 1):
            L[a, c] = G[ia, idx[c]]
    for a in range(k):
        La = L[a]
        for c in range(a):
            Lc = L[c]
            s = La[c]
            for m in range(c):
                s -= La[m] * Lc[m]
            La[c] = s / Lc[c]
        s = La[a]
        for m in range(a):
            s -= La[m] * La[m]
        if not s > NEAR_SINGULAR * ridge:  # (nearly) singular block: leave it to FNNLS
            return False
        La[a] = np.sqrt(s + ridge)
    for a in range(k):  # L w = g_P
        s = g[idx[a]]
        for m in range(a):
            s -= L[a, m] * z[m]
        z[a] = s / L[a, a]
    for a in range(k - 1, -1, -1):  # L^T z = w
        s = z[a]
        for m in range(a + 1, k):
            s -= L[m, a] * z[m]
        z[a] = s / L[a, a]
    return True


@njit(**JIT)
def _flag_infeasible(G, g, x, passive, idx, k, z, tol, bad):
    """x (D,) <- the passive-set solution z[:k] placed at idx[:k]; bad[i] <- a passive x_i < 0 or an active
    coordinate's gradient (G x - g)_i < -tol. Returns the number flagged and the largest flagged index."""
    x[:] = 0.0
    for a in range(k):
        x[idx[a]] = z[a]
    n_bad, last = 0, -1
    for i in range(g.size):
        if passive[i]:
            bad[i] = x[i] < 0.0
        else:
            s = -g[i]
            for a in range(k):
                s += G[i, idx[a]] * z[a]
            bad[i] = s < -tol
        if bad[i]:
            n_bad += 1
            last = i
    return n_bad, last


@njit(**JIT)
def _nnls_block_pivoting(G, g, x, tol, max_iter, work):
    """x (D,) <- argmin 0.5 x^T G x - g^T x over x >= 0 by block principal pivoting (Kim & Park 2011, Algorithm
    2), from the passive set {i: x_i > 0} of the x given (a warm start). ``work`` = (idx, bad, L, z) scratch.
    Returns the number of exchanges, or -1 if more than ``max_iter`` were needed or a passive block was (nearly)
    singular (x is then not a solution)."""
    idx, bad, L, z = work
    D = g.size
    ridge = RIDGE * max(1.0, np.abs(np.diag(G)).max())
    passive = x > 0.0
    fewest, backup = D + 1, 3  # the backup rule's counters: fewest infeasible seen, full exchanges left
    for step in range(max_iter + 1):  # max_iter exchanges, so max_iter + 1 solves
        k = 0
        for i in range(D):
            if passive[i]:
                idx[k] = i
                k += 1
        if not _cholesky_solve(G, g, idx, k, ridge, L, z):
            return -1
        n_bad, last = _flag_infeasible(G, g, x, passive, idx, k, z, tol, bad)
        if n_bad == 0:
            return step
        if n_bad < fewest:
            fewest, backup = n_bad, 3
        elif backup > 0:
            backup -= 1
        else:  # exchange only the largest infeasible index (finite termination)
            passive[last] = not passive[last]
            continue
        for i in range(D):
            if bad[i]:
                passive[i] = not passive[i]
    return -1


@njit(**PARALLEL_JIT)
def nnls_gram_columns_warm(G, B, X0, max_iter, tol):
    """X (D, N): column n solves min 0.5 x^T G x - B[:, n]^T x over x >= 0, by block principal pivoting from
    the support of X0[:, n] (D, N); a column where pivoting fails is solved by FNNLS from zero. Also the
    per-column counts (N,): pivoting steps, or FNNLS's outer iterations where it was used (-1: no convergence),
    and which columns fell back (N,). Columns are independent: results do not depend on the thread count."""
    D, N = B.shape
    X = np.zeros((D, N))
    counts = np.zeros(N, np.int64)
    fallback = np.zeros(N, np.bool_)
    n_chunks = min(N, 64)
    for c in prange(n_chunks):
        work = (np.empty(D, np.int64), np.empty(D, np.bool_), np.empty((D, D)), np.empty(D))
        x = np.empty(D)
        for n in range(c * N // n_chunks, (c + 1) * N // n_chunks):
            g = np.ascontiguousarray(B[:, n])
            x[:] = X0[:, n]
            steps = _nnls_block_pivoting(G, g, x, tol, max_iter, work)
            if steps < 0:
                fallback[n] = True
                steps = _nnls_gram(G, g, x, max_iter, tol)
            counts[n] = steps
            X[:, n] = x
    return X, counts, fallback


def nonnegative_least_squares(A, Y, max_iter: int | None = None, start: np.ndarray | None = None) -> np.ndarray:
    """X (D, N) (or (D,) for a vector y): min ||A x - y||_2 over x >= 0 per column of Y (W, N). A (W, D) finite
    and real; D > W is allowed (the minimiser may then not be unique: any minimiser is returned). The stopping
    tolerance on the gradient is 1e-10 x max(1, max |A^T y|) x D; max_iter (default 3 D) bounds the outer
    iterations per column and a column that reaches it raises ValueError.

    start (D, N) (or (D,)), optional: a warm start. Each column is then solved by block principal pivoting from
    the support {i: start_i > 0} (few steps when the support is nearly right, as between sweeps of ANLS), and by
    FNNLS from zero where pivoting does not finish in max_iter exchanges or meets a (nearly) singular passive block.
    Without it, FNNLS from zero. Both stop on the same test: for A of full column rank they agree to rounding;
    otherwise each returns a minimiser, not necessarily the same one."""
    from ..validation import finite_matrix, positive_int, require

    A = finite_matrix("A", A)
    y_is_vector = np.ndim(Y) == 1
    Y = finite_matrix("Y", np.asarray(Y)[:, None] if y_is_vector else Y)
    require(A.shape[0] == Y.shape[0], f"A has {A.shape[0]} rows but Y has {Y.shape[0]}")
    D = A.shape[1]
    max_iter = 3 * D if max_iter is None else positive_int("max_iter", max_iter)
    if start is not None:
        start = finite_matrix("start", start, ndim=1 if y_is_vector else 2)  # as given: its message names its shape
        expected = (D,) if y_is_vector else (D, Y.shape[1])
        require(start.shape == expected, f"start has shape {start.shape}, expected {expected}")
        start = start[:, None] if y_is_vector else start
    X = nnls_normal_equations(A.T, A, Y, max_iter, start)
    return X[:, 0] if y_is_vector else X


def nnls_normal_equations(At: np.ndarray, A: np.ndarray, Y: np.ndarray, max_iter: int,
                          start: np.ndarray | None = None) -> np.ndarray:
    """X (D, N) of ``nonnegative_least_squares`` without its validation (callers inside the package that have
    validated, such as ANLS's sweeps): At (D, W) is A (W, D) transposed, passed as a view so that neither Y
    (W, N) nor A is copied. Raises ValueError if a column does not converge in max_iter iterations."""
    D = At.shape[0]
    with one_blas_thread():  # the products too: OpenBLAS threads still spinning after them halved the kernel's speed
        G = At @ A
        B = np.ascontiguousarray(At @ Y)
        tol = 1e-10 * max(1.0, float(np.abs(B).max()) if B.size else 1.0) * D
        if start is None:
            X, counts = nnls_gram_columns(G, B, max_iter, tol)
        else:
            X, counts, _ = nnls_gram_columns_warm(G, B, np.ascontiguousarray(start, dtype=float), max_iter, tol)
    if not np.all(counts >= 0):
        raise ValueError(f"NNLS did not converge in {max_iter} iterations for some column")
    return X
