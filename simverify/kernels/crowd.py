"""Kernels of crowdsourced label aggregation (Ibrahim & Fu 2021 and its baselines).

Answers are three int64 arrays of length n: item, worker, label (0-based codes). ``item_ptr`` (n_items + 1,) and
``order`` (n,) list the answers item by item (answers of item i are order[item_ptr[i]:item_ptr[i+1]]). Every
kernel is serial and loops in a fixed order, so results do not depend on the thread count.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .jit import JIT

CLIP = 1e-10  # floor of a confusion probability before normalisation (crowd-kit's convention)


@njit(**JIT)
def cooccurrence_counts(item_ptr, order, worker, label, n_workers, n_classes):
    """Eq. (3) before division: counts (M, M, K, K) with counts[m, j, a, b] = #items where m answered a and j
    answered b (m != j), and S (M, M) = #items co-labelled by m and j. Cost: sum over items of (answers)^2."""
    counts = np.zeros((n_workers, n_workers, n_classes, n_classes))
    S = np.zeros((n_workers, n_workers), dtype=np.int64)
    for i in range(item_ptr.size - 1):
        for a in range(item_ptr[i], item_ptr[i + 1]):
            m, km = worker[order[a]], label[order[a]]
            for b in range(item_ptr[i], item_ptr[i + 1]):
                j = worker[order[b]]
                if j != m:
                    counts[m, j, km, label[order[b]]] += 1.0
                    S[m, j] += 1
    return counts, S


@njit(**JIT)
def confusion_from_posteriors(item, worker, label, probas, n_workers):
    """Dawid-Skene M-step: errors (M, K observed, K true) = P(observed | true), the posteriors probas (N, K)
    summed over each worker's answers, clipped below at CLIP and normalised over the observed label."""
    K = probas.shape[1]
    errors = np.zeros((n_workers, K, K))
    for a in range(item.size):
        for k in range(K):
            errors[worker[a], label[a], k] += probas[item[a], k]
    for m in range(n_workers):
        for k in range(K):
            total = 0.0
            for o in range(K):
                errors[m, o, k] = max(errors[m, o, k], CLIP)
                total += errors[m, o, k]
            for o in range(K):
                errors[m, o, k] /= total
    return errors


@njit(**JIT)
def map_posteriors(item, worker, label, priors, errors, n_items):
    """Posteriors (N, K) proportional to priors(k) prod over the item's answers of errors[worker, answer, k]
    (the MAP predictor's posterior; the Dawid-Skene E-step). Probabilities are floored at CLIP in the log."""
    K = priors.size
    log_p = np.empty((n_items, K))
    for i in range(n_items):
        for k in range(K):
            log_p[i, k] = np.log(max(priors[k], CLIP))
    for a in range(item.size):
        for k in range(K):
            log_p[item[a], k] += np.log(max(errors[worker[a], label[a], k], CLIP))
    for i in range(n_items):
        top = log_p[i].max()
        total = 0.0
        for k in range(K):
            log_p[i, k] = np.exp(log_p[i, k] - top)
            total += log_p[i, k]
        for k in range(K):
            log_p[i, k] /= total
    return log_p


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
def _best_triangle(m, n, observed, S, ptr, nbr):
    """(l, r) maximising min(S[m, r], S[l, r], S[n, l]) over observed R_{m,r}, R_{l,r}, R_{n,l} (Eq. 7-8's
    helpers; l != r), or (-1, -1) when there is none. S is any non-negative block score. Cost: degree(n) x
    degree(m)."""
    best, best_l, best_r = 0.0, -1, -1
    for a in range(ptr[n], ptr[n + 1]):
        l = nbr[a]
        for b in range(ptr[m], ptr[m + 1]):
            r = nbr[b]
            if r != l and observed[l, r]:
                score = min(S[m, r], S[l, r], S[n, l])
                if score > best:
                    best, best_l, best_r = score, l, r
    return best_l, best_r


@njit(**JIT)
def _impute_block(R, m, n, l, r, K):
    """Eq. (7)-(8): C = [R_{m,r}; R_{l,r}] (2K, K) = [U_m; U_l] Sigma V^T, R_{m,n} = U_m U_l^{-1} R_{n,l}^T.
    Returns an all-NaN block when U_l is numerically singular."""
    C = np.empty((2 * K, K))
    C[:K] = R[m, r]
    C[K:] = R[l, r]
    U, s, Vt = np.linalg.svd(C, full_matrices=False)
    Um, Ul = U[:K].copy(), U[K:].copy()
    if np.linalg.cond(Ul) > 1e12:
        return np.full((K, K), np.nan)
    return Um @ np.linalg.solve(Ul, R[n, l].T.copy())


@njit(**JIT)
def designated_imputation(R, observed, S):
    """DesSymNMF imputation (Eq. 7-8) of every unobserved block, the diagonal included, from observed blocks
    only (one pass). R (M, M, K, K) with observed blocks filled; S (M, M) a score of each observed block (the
    triangle whose weakest block scores highest is used); returns (X (M, M, K, K), filled (M, M) bool): blocks
    that no triangle of observed blocks reaches stay zero and unfilled."""
    M, K = R.shape[0], R.shape[2]
    X = R.copy()
    filled = observed.copy()
    ptr, nbr = _neighbours(observed)
    for m in range(M):
        for n in range(m, M):
            if observed[m, n]:
                continue
            l, r = _best_triangle(m, n, observed, S, ptr, nbr)
            if l < 0:
                continue
            B = _impute_block(R, m, n, l, r, K)
            if np.isnan(B[0, 0]):
                continue
            if m == n:
                B = 0.5 * (B + B.T)  # R_{m,m} is symmetric; the estimate is symmetrised
            X[m, n] = B
            X[n, m] = B.T
            filled[m, n] = filled[n, m] = True
    return X, filled


@njit(**JIT)
def _project_ball(Z, radius):
    """Appendix B's Proj_D: Z scaled onto the Frobenius ball of the given radius when outside it."""
    norm = np.sqrt(np.sum(Z * Z))
    if norm > radius:
        return Z * (radius / norm)
    return Z


@njit(**JIT)
def _block_residuals(R, observed, U, w, xi, weighted):
    """Weights (11) w[m, j] = (||R_{m,j} - U_m U_j^T||_F^2 + xi)^(-1/2) on observed blocks (1 if not weighted),
    and the smoothed objective (17a) sum over observed (m, j) of (||.||^2 + xi)^(1/2)."""
    M = R.shape[0]
    objective = 0.0
    for m in range(M):
        for j in range(M):
            if observed[m, j]:
                E = R[m, j] - U[m] @ U[j].T
                r2 = np.sum(E * E) + xi
                objective += np.sqrt(r2)
                w[m, j] = 1.0 / np.sqrt(r2) if weighted else 1.0
    return objective


@njit(**JIT)
def robust_imputation(R, observed, U, radius, xi, weighted, n_outer, n_inner, tol):
    """RobSymNMF's imputation (criterion 9 smoothed as 17; Algorithm 11 with Appendix B's projected gradient):
    U (M, K, K) updated in place, block by block, with w fixed; then w re-weighted. weighted = False is the
    unweighted version (w = 1). Stops when the relative change of (17a) falls below tol. Returns
    (objective per outer iteration (n_done,), n_done)."""
    M, K = R.shape[0], R.shape[2]
    w = np.zeros((M, M))
    history = np.empty(n_outer + 1)
    history[0] = _block_residuals(R, observed, U, w, xi, weighted)
    done = 0
    for t in range(n_outer):
        for m in range(M):
            G0 = np.zeros((K, K))  # sum_j w U_j^T U_j
            B = np.zeros((K, K))  # sum_j w R_{m,j} U_j
            for j in range(M):
                if observed[m, j]:
                    G0 += w[m, j] * (U[j].T @ U[j])
                    B += w[m, j] * (R[m, j] @ U[j])
            if not B.any() and not G0.any():
                continue
            lipschitz = np.linalg.eigvalsh(G0)[-1]
            if lipschitz <= 0.0:
                continue
            step = 1.0 / lipschitz
            Um = U[m].copy()
            for _ in range(n_inner):
                Um = _project_ball(Um - step * (Um @ G0 - B), radius)
            U[m] = Um
        history[t + 1] = _block_residuals(R, observed, U, w, xi, weighted)
        done = t + 1
        if abs(history[t] - history[t + 1]) <= tol * max(history[t], 1e-300):
            break
    return history[:done + 1], done


@njit(**JIT)
def shifted_relu_symnmf(U, Q, alphas, tol):
    """Eq. (13): H <- ReLU_alpha(U Q) (entries below alpha set to 0), W S V^T = svd(H^T U), Q <- V W^T, for
    t = 0, 1, ... with alpha_t = alphas[t]; stops after the first t where the relative change of
    ||H - U Q||_F^2 is below tol. U (J, K), Q (K, K) the start. Returns (H (J, K), Q, costs (n_done,))."""
    J, K = U.shape
    costs = np.empty(alphas.size)
    H = np.zeros((J, K))
    done = 0
    for t in range(alphas.size):
        UQ = U @ Q
        for i in range(J):
            for k in range(K):
                H[i, k] = UQ[i, k] if UQ[i, k] >= alphas[t] else 0.0
        Wm, s, Vt = np.linalg.svd(H.T @ U)
        Q = Vt.T @ Wm.T
        E = H - U @ Q
        costs[t] = np.sum(E * E)
        done = t + 1
        if t > 0 and abs(costs[t - 1] - costs[t]) <= tol * max(costs[t - 1], 1e-300):
            break
    return H, Q, costs[:done]


@njit(**JIT)
def draw_answers(g, truth, confusion_cdf, p_answer, item_start):
    """Dawid-Skene answers for items item_start.. of one chunk from one generator g: item i, worker m answers
    with probability p_answer[i, m] (an (n_chunk, M) array), a label drawn from confusion column truth[i]
    (confusion_cdf (M, K, K): cumulative over the observed label). Returns (item, worker, label) int64 arrays."""
    n, M = p_answer.shape
    K = confusion_cdf.shape[1]
    item = np.empty(n * M, dtype=np.int64)
    worker = np.empty(n * M, dtype=np.int64)
    label = np.empty(n * M, dtype=np.int64)
    c = 0
    for i in range(n):
        for m in range(M):
            if g.random() < p_answer[i, m]:
                u = g.random()
                k = 0
                while k < K - 1 and u >= confusion_cdf[m, k, truth[i]]:
                    k += 1
                item[c], worker[c], label[c] = item_start + i, m, k
                c += 1
    return item[:c], worker[:c], label[:c]


@njit(**JIT)
def kos_messages(item, worker, sign, n_items, n_workers, y0, n_iter):
    """Karger, Oh & Shah (2011) message passing on the item-worker graph of binary answers sign (+1/-1):
    x_{i->m} = sum_{m' != m} A_{im'} y_{m'->i}, y_{m->i} = sum_{i' != i} A_{i'm} x_{i'->m}, from y0 (n,) per
    answer; returns the item scores sum_m A_{im} y_{m->i} (n_items,). Messages are rescaled each iteration
    (the sign is what matters)."""
    n = item.size
    y = y0.copy()
    x = np.empty(n)
    for _ in range(n_iter):
        item_sum = np.zeros(n_items)
        for a in range(n):
            item_sum[item[a]] += sign[a] * y[a]
        for a in range(n):
            x[a] = item_sum[item[a]] - sign[a] * y[a]
        worker_sum = np.zeros(n_workers)
        for a in range(n):
            worker_sum[worker[a]] += sign[a] * x[a]
        scale = 0.0
        for a in range(n):
            y[a] = worker_sum[worker[a]] - sign[a] * x[a]
            scale = max(scale, abs(y[a]))
        if scale > 0.0:
            y /= scale
    score = np.zeros(n_items)
    for a in range(n):
        score[item[a]] += sign[a] * y[a]
    return score
