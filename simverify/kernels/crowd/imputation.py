"""Co-occurrence imputation kernels of Ibrahim & Fu (2021): designated annotators (Eq. 7-8) and the robust
criterion (9) by Algorithm (11) with Appendix B's projected gradient."""
from __future__ import annotations

import numpy as np
from numba import njit

from ..jit import JIT

TRIANGLE_WIDTH = 32  # Eq. (7)-(8)'s helpers are sought among each annotator's 32 best-scored neighbours
TRIANGLE_TRIES = 16  # the best triangles tried in turn while U_l is numerically singular


@njit(**JIT)
def _neighbours(observed):
    """CSR lists of observed blocks: the j with observed[m, j] are nbr[ptr[m]:ptr[m+1]]."""
    M = observed.shape[0]
    ptr = np.zeros(M + 1, dtype=np.int64)
    for m in range(M):
        ptr[m + 1] = ptr[m] + observed[m].sum()
    nbr = np.empty(ptr[M], dtype=np.int64)
    for m in range(M):
        c = ptr[m]
        for j in range(M):
            if observed[m, j]:
                nbr[c] = j
                c += 1
    return ptr, nbr


@njit(**JIT)
def _best_neighbours(observed, S, width):
    """CSR lists of each annotator's observed blocks, the best-scored first, cut to ``width``."""
    M = observed.shape[0]
    ptr, nbr = _neighbours(observed)
    top_ptr = np.zeros(M + 1, dtype=np.int64)
    for m in range(M):
        top_ptr[m + 1] = top_ptr[m] + min(width, ptr[m + 1] - ptr[m])
    top = np.empty(top_ptr[M], dtype=np.int64)
    for m in range(M):
        js = nbr[ptr[m]:ptr[m + 1]]
        order = np.argsort(-S[m, js], kind="mergesort")
        for c in range(top_ptr[m + 1] - top_ptr[m]):
            top[top_ptr[m] + c] = js[order[c]]
    return top_ptr, top


@njit(**JIT)
def _best_triangles(m, n, observed, S, ptr, nbr, tries):
    """Up to ``tries`` triangles (ell, r), best first, by min(S[m, r], S[ell, r], S[n, ell]) over observed R_{m,r},
    R_{ell,r}, R_{n,ell} (Eq. 7-8's helpers; ell != r) with ell among n's and r among m's listed neighbours.
    Returns (ell (tries,), r (tries,), count). S is any non-negative block score. Cost: width^2 tries."""
    score = np.zeros(tries)
    ells = np.full(tries, -1, dtype=np.int64)
    rs = np.full(tries, -1, dtype=np.int64)
    count = 0
    for a in range(ptr[n], ptr[n + 1]):
        ell = nbr[a]
        for b in range(ptr[m], ptr[m + 1]):
            r = nbr[b]
            if r == ell or not observed[ell, r]:
                continue
            value = min(S[m, r], S[ell, r], S[n, ell])
            if value <= 0.0 or (count == tries and value <= score[tries - 1]):
                continue
            c = min(count, tries - 1)  # insertion into the kept list, best first (ties keep the earlier)
            while c > 0 and score[c - 1] < value:
                score[c], ells[c], rs[c] = score[c - 1], ells[c - 1], rs[c - 1]
                c -= 1
            score[c], ells[c], rs[c] = value, ell, r
            count = min(count + 1, tries)
    return ells, rs, count


@njit(**JIT)
def _impute_block(R, m, n, ell, r, K):
    """Eq. (7)-(8): C = [R_{m,r}; R_{ell,r}] (2K, K) = [U_m; U_l] Sigma V^T, R_{m,n} = U_m U_l^{-1} R_{n,ell}^T.
    Returns an all-NaN block when U_l is numerically singular."""
    C = np.empty((2 * K, K))
    C[:K] = R[m, r]
    C[K:] = R[ell, r]
    U, s, Vt = np.linalg.svd(C, full_matrices=False)
    Um, Ul = U[:K].copy(), U[K:].copy()
    if np.linalg.cond(Ul) > 1e12:
        return np.full((K, K), np.nan)
    return Um @ np.linalg.solve(Ul, R[n, ell].T.copy())


@njit(**JIT)
def designated_imputation(R, observed, S):
    """DesSymNMF imputation (Eq. 7-8) of every unobserved block, the diagonal included, from observed blocks
    only (one pass). R (M, M, K, K) with observed blocks filled; S (M, M) a score of each observed block (the
    triangle whose weakest block scores highest is used, among each annotator's TRIANGLE_WIDTH best-scored
    neighbours; the next of the TRIANGLE_TRIES best when its U_l is numerically singular); returns (X (M, M, K, K),
    filled (M, M) bool): blocks that no triangle of observed blocks reaches stay zero and unfilled."""
    M, K = R.shape[0], R.shape[2]
    X = R.copy()
    filled = observed.copy()
    ptr, nbr = _best_neighbours(observed, S, TRIANGLE_WIDTH)
    for m in range(M):
        for n in range(m, M):
            if observed[m, n]:
                continue
            ells, rs, count = _best_triangles(m, n, observed, S, ptr, nbr, TRIANGLE_TRIES)
            B = np.full((K, K), np.nan)
            for t in range(count):  # the next-best triangle when U_l is numerically singular
                B = _impute_block(R, m, n, ells[t], rs[t], K)
                if not np.isnan(B[0, 0]):
                    break
            if np.isnan(B[0, 0]):
                continue
            if m == n:
                B = 0.5 * (B + B.T)  # R_{m,m} is symmetric; the estimate is symmetrised
            X[m, n] = B
            X[n, m] = B.T
            filled[m, n] = filled[n, m] = True
    return X, filled


@njit(**JIT)
def gram_into(Um, out):
    """out (K, K) <- Um^T Um, written in place."""
    K = Um.shape[0]
    for p in range(K):
        for q in range(K):
            acc = 0.0
            for c in range(K):
                acc += Um[c, p] * Um[c, q]
            out[p, q] = acc


@njit(**JIT)
def _projected_gradient_steps(Um, G0, B, step, radius, n_inner, work):
    """n_inner steps of Um <- Proj_D(Um - step (Um G0 - B)) (Appendix B; Proj_D scales onto the Frobenius ball of
    the radius when outside it), Um (K, K) updated in place; ``work`` (K, K) scratch. Loops, not matrix products:
    at K = 3 the products' temporaries cost more than their arithmetic."""
    K = Um.shape[0]
    for _ in range(n_inner):
        norm2 = 0.0
        for p in range(K):
            for q in range(K):
                grad = -B[p, q]
                for c in range(K):
                    grad += Um[p, c] * G0[c, q]
                v = Um[p, q] - step * grad
                work[p, q] = v
                norm2 += v * v
        norm = np.sqrt(norm2)
        scale = radius / norm if norm > radius else 1.0
        for p in range(K):
            for q in range(K):
                Um[p, q] = work[p, q] * scale


@njit(**JIT)
def _block_residuals(R, ptr, nbr, U, w, xi, weighted):
    """Weights (11) w[a] = (||R_{m,j} - U_m U_j^T||_F^2 + xi)^(-1/2) for each observed block a = (m, nbr[a]) (1
    if not weighted), and the smoothed objective (17a) sum over observed (m, j) of (||.||^2 + xi)^(1/2)."""
    M, K = U.shape[0], U.shape[1]
    objective = 0.0
    for m in range(M):
        for a in range(ptr[m], ptr[m + 1]):
            j = nbr[a]
            r2 = xi
            for p in range(K):
                for q in range(K):
                    e = R[m, j, p, q]
                    for c in range(K):
                        e -= U[m, p, c] * U[j, q, c]
                    r2 += e * e
            objective += np.sqrt(r2)
            w[a] = 1.0 / np.sqrt(r2) if weighted else 1.0
    return objective


@njit(**JIT)
def _normal_equations(R, ptr, nbr, U, gram, w, m, G0, B):
    """G0 = sum_j w U_j^T U_j and B = sum_j w R_{m,j} U_j over m's observed blocks (gram[j] = U_j^T U_j)."""
    K = U.shape[1]
    G0[:] = 0.0
    B[:] = 0.0
    for a in range(ptr[m], ptr[m + 1]):
        j = nbr[a]
        for p in range(K):
            for q in range(K):
                G0[p, q] += w[a] * gram[j, p, q]
                acc = 0.0
                for c in range(K):
                    acc += R[m, j, p, c] * U[j, c, q]
                B[p, q] += w[a] * acc


@njit(**JIT)
def robust_imputation(R, observed, U, radius, xi, weighted, n_outer, n_inner, tol):
    """RobSymNMF's imputation (criterion 9 smoothed as 17; Algorithm 11 with Appendix B's projected gradient):
    U (M, K, K) updated in place, block by block (each block's n_inner projected gradient steps use the current
    other blocks), with w fixed; then w re-weighted. weighted = False is the unweighted version (w = 1). Stops when
    the relative change of (17a) falls below tol. Returns (objective per outer iteration (n_done + 1,), n_done).
    Cost per outer iteration: O(|Omega| K^3 + M n_inner K^3)."""
    M, K = R.shape[0], R.shape[2]
    ptr, nbr = _neighbours(observed)
    w = np.zeros(nbr.size)
    gram = np.empty((M, K, K))
    for j in range(M):
        gram_into(U[j], gram[j])
    G0, B, work = np.empty((K, K)), np.empty((K, K)), np.empty((K, K))
    history = np.empty(n_outer + 1)
    history[0] = _block_residuals(R, ptr, nbr, U, w, xi, weighted)
    done = 0
    for t in range(n_outer):
        for m in range(M):
            if ptr[m + 1] == ptr[m]:
                continue
            _normal_equations(R, ptr, nbr, U, gram, w, m, G0, B)
            lipschitz = np.linalg.eigvalsh(G0)[-1]
            if lipschitz <= 0.0:
                continue
            _projected_gradient_steps(U[m], G0, B, 1.0 / lipschitz, radius, n_inner, work)
            gram_into(U[m], gram[m])
        history[t + 1] = _block_residuals(R, ptr, nbr, U, w, xi, weighted)
        done = t + 1
        if abs(history[t] - history[t + 1]) <= tol * max(history[t], 1e-300):
            break
    return history[:done + 1], done
