"""Kernels of crowdsourced label aggregation (Ibrahim & Fu 2021 and its baselines).

Answers are three int64 arrays of length n: item, worker, label (0-based codes). ``item_ptr`` (n_items + 1,) and
``order`` (n,) list the answers item by item (answers of item i are order[item_ptr[i]:item_ptr[i+1]]). Every
kernel is serial and loops in a fixed order, so results do not depend on the thread count.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .jit import JIT
from .streams import next_uniform

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
def two_workers_share_an_item(item, worker):
    """Whether some item was answered by two different workers (one pass over the answers)."""
    if item.size == 0:
        return False
    first = np.full(item.max() + 1, -1, dtype=np.int64)
    for a in range(item.size):
        i = item[a]
        if first[i] < 0:
            first[i] = worker[a]
        elif first[i] != worker[a]:
            return True
    return False


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
def _log_floored(x):
    """log(max(x, CLIP)) elementwise (any shape)."""
    out = np.empty(x.size)
    flat = x.ravel()
    for i in range(flat.size):
        out[i] = np.log(max(flat[i], CLIP))
    return out.reshape(x.shape)


@njit(**JIT)
def evidence_lower_bound(item, worker, label, probas, priors, errors):
    """The EM objective of Dawid-Skene as crowd-kit 1.4 computes it: sum over answers of sum_k q_ik (log
    errors[worker, answer, k] + log prior_k) (the prior counted once per answer), plus the entropy
    -sum_i sum_k q_ik log q_ik with q = probas (N, K) floored at CLIP; logs of priors and errors floored at CLIP."""
    N, K = probas.shape
    log_prior, log_err = _log_floored(priors), _log_floored(errors)
    total = 0.0
    for a in range(item.size):
        for k in range(K):
            total += probas[item[a], k] * (log_err[worker[a], label[a], k] + log_prior[k])
    return _plus_entropy(total, probas)


@njit(**JIT)
def _plus_entropy(total, probas):
    """total - sum_i sum_k q_ik log q_ik with q = probas (N, K) floored at CLIP, subtracted term by term."""
    for i in range(probas.shape[0]):
        for k in range(probas.shape[1]):
            q = max(probas[i, k], CLIP)
            total -= q * np.log(q)
    return total


@njit(**JIT)
def posteriors_and_bound(item, worker, label, priors, errors, n_items, probas):
    """One pass over the answers for two things: the E-step from (priors, errors), as ``map_posteriors``, and the
    evidence lower bound of the previous posteriors ``probas`` (N, K) under (priors, errors), as
    ``evidence_lower_bound`` (the same sums in the same order, so the same value). Returns (posteriors, bound)."""
    K = priors.size
    log_prior, log_err = _log_floored(priors), _log_floored(errors)
    log_p = np.empty((n_items, K))
    for i in range(n_items):
        log_p[i] = log_prior
    total = 0.0
    for a in range(item.size):
        for k in range(K):
            term = log_err[worker[a], label[a], k]
            log_p[item[a], k] += term
            total += probas[item[a], k] * (term + log_prior[k])
    return rows_from_log(log_p), _plus_entropy(total, probas)


@njit(**JIT)
def _log_joint(item, worker, label, priors, errors, n_items):
    """(N, K) log priors(k) + sum over item i's answers of log errors[worker, answer, k], probabilities floored at
    CLIP in the log: the Dawid-Skene log joint of each item's answers and class k."""
    K = priors.size
    log_prior, log_err = _log_floored(priors), _log_floored(errors)
    log_p = np.empty((n_items, K))
    for i in range(n_items):
        log_p[i] = log_prior
    for a in range(item.size):
        for k in range(K):
            log_p[item[a], k] += log_err[worker[a], label[a], k]
    return log_p


@njit(**JIT)
def map_posteriors(item, worker, label, priors, errors, n_items):
    """Posteriors (N, K) proportional to priors(k) prod over the item's answers of errors[worker, answer, k]
    (the MAP predictor's posterior; the Dawid-Skene E-step). Probabilities are floored at CLIP in the log."""
    return rows_from_log(_log_joint(item, worker, label, priors, errors, n_items))


@njit(**JIT)
def log_evidence(item, worker, label, priors, errors, n_items):
    """(n_items,) log P(item i's answers) = log sum_k priors(k) prod over its answers of errors[worker, answer, k]
    under the Dawid-Skene model (probabilities floored at CLIP in the log); an item without answers gives 0."""
    K = priors.size
    log_p = _log_joint(item, worker, label, priors, errors, n_items)
    out = np.empty(n_items)
    for i in range(n_items):
        top = log_p[i].max()
        total = 0.0
        for k in range(K):
            total += np.exp(log_p[i, k] - top)
        out[i] = top + np.log(total)
    return out


@njit(**JIT)
def rows_from_log(log_p):
    """Each row of log_p (N, K) turned in place into the distribution proportional to exp(row); returns it."""
    for i in range(log_p.shape[0]):
        top = log_p[i].max()
        total = 0.0
        for k in range(log_p.shape[1]):
            log_p[i, k] = np.exp(log_p[i, k] - top)
            total += log_p[i, k]
        for k in range(log_p.shape[1]):
            log_p[i, k] /= total
    return log_p


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
def _gram(Um, out):
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
        _gram(U[j], gram[j])
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
            _gram(U[m], gram[m])
        history[t + 1] = _block_residuals(R, ptr, nbr, U, w, xi, weighted)
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
def coupled_kl_sweeps(R, observed, confusion, priors, n_iter, tol):
    """CNMF's criterion (4) in Kullback-Leibler form (Ibrahim, Fu, Kargas & Huang 2019): maximise
    sum over observed (m, j), m != j, of sum_ab R[m, j, a, b] log sum_k priors[k] A_m(a, k) A_j(b, k), by the EM
    updates of this pairwise latent-class model (each sweep cannot decrease it). confusion (M, K, K) and priors
    (K,) are updated in place; returns the objective at the start of each sweep, i.e. before its update (stops
    when it gains less than tol times its size)."""
    M, K = confusion.shape[0], priors.size
    history = np.empty(n_iter)
    num_a = np.empty((M, K, K))
    num_p = np.empty(K)
    r = np.empty(K)
    done = 0
    for sweep in range(n_iter):
        num_a[:] = 0.0
        num_p[:] = 0.0
        total = 0.0
        for m in range(M):
            for j in range(M):
                if j == m or not observed[m, j]:
                    continue
                for a in range(K):
                    for b in range(K):
                        w = R[m, j, a, b]
                        if w <= 0.0:
                            continue
                        model = 0.0
                        for k in range(K):
                            r[k] = priors[k] * confusion[m, a, k] * confusion[j, b, k]
                            model += r[k]
                        model = max(model, CLIP)
                        total += w * np.log(model)
                        for k in range(K):
                            share = w * r[k] / model
                            num_a[m, a, k] += share
                            num_a[j, b, k] += share
                            num_p[k] += share
        history[sweep] = total
        done = sweep + 1
        for m in range(M):
            for k in range(K):
                column = 0.0
                for a in range(K):
                    column += num_a[m, a, k]
                if column > 0.0:
                    for a in range(K):
                        confusion[m, a, k] = num_a[m, a, k] / column
        mass = num_p.sum()
        if mass > 0.0:
            for k in range(K):
                priors[k] = num_p[k] / mass
        if sweep > 0 and total - history[sweep - 1] < tol * abs(history[sweep - 1]):
            break
    return history[:done]


@njit(**JIT)
def _answer_buffers(size):
    """(item, worker, label) int64 arrays of ``size`` for a chunk's answers, cut to the count drawn."""
    return np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)


@njit(**JIT)
def draw_answers(g, truth, confusion_cdf, p_answer, item_start):
    """Dawid-Skene answers for items item_start.. of one chunk from one stream g (4,) uint64 (``kernels.streams``):
    item i, worker m answers with probability p_answer[i, m] (an (n_chunk, M) array), a label drawn from confusion
    column truth[i] (confusion_cdf (M, K, K): cumulative over the observed label). Returns (item, worker, label)
    int64 arrays."""
    n, M = p_answer.shape
    K = confusion_cdf.shape[1]
    item, worker, label = _answer_buffers(n * M)
    c = 0
    for i in range(n):
        for m in range(M):
            if next_uniform(g) < p_answer[i, m]:
                u = next_uniform(g)
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


@njit(**JIT)
def draw_observed(g, labels, p_answer, item_start):
    """Machine annotators (Tables 1-3): annotator m's fixed label labels[i, m] of item item_start + i is observed
    with probability p_answer[i, m] ((n_chunk, M) both), from one stream g (4,) uint64. Returns (item, worker, label)
    int64 arrays in item order."""
    n, M = labels.shape
    item, worker, label = _answer_buffers(n * M)
    c = 0
    for i in range(n):
        for m in range(M):
            if next_uniform(g) < p_answer[i, m]:
                item[c], worker[c], label[c] = item_start + i, m, labels[i, m]
                c += 1
    return item[:c], worker[:c], label[:c]
