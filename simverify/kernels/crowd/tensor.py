"""Kernels of TensorADMM (Traganitis, Pages-Zamora & Giannakis 2018; a baseline of Ibrahim & Fu 2021): the
third-order co-occurrences of the answers and the AO-ADMM fit of the confusions and the prior to the first-,
second- and third-order moments (the authors' ``EstConfMat_AO_ADMM.m`` with its inner ADMM steps).

Shapes: Gamma (M, K answered, K true) with columns on the simplex (``DawidSkeneModel.confusion``); p (K,); triples
(T, 3) int64, annotators i < j < k; T3 (T, K, K, K) with T3[t, a, b, c] the fraction of the items all three
answered on which they answered a, b and c. The fit reads the moments as sparse cells (``ao_admm``). Serial, in a
fixed order: the result does not depend on the thread count.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..jit import JIT
from .imputation import gram_into


@njit(**JIT)
def _sorted_answers(item_ptr, order, worker, label, i):
    """The annotators and labels of item i's answers, sorted by annotator."""
    lo, hi = item_ptr[i], item_ptr[i + 1]
    ws = np.empty(hi - lo, dtype=np.int64)
    ls = np.empty(hi - lo, dtype=np.int64)
    for a in range(lo, hi):
        ws[a - lo], ls[a - lo] = worker[order[a]], label[order[a]]
    by = np.argsort(ws, kind="mergesort")
    return ws[by], ls[by]


@njit(**JIT)
def triple_cooccurrences(item_ptr, order, worker, label, n_workers, n_classes):
    """(triples (T, 3) int64 with i < j < k in increasing key order, T3 (T, K, K, K), counts (T,)): every triple of
    annotators who answered a common item, the fraction of their common items on which they answered (a, b, c),
    and the number of those items. Cost: sum over items of (answers choose 3), twice that in int64 scratch."""
    M, K = n_workers, n_classes
    n_inst = 0
    for i in range(item_ptr.size - 1):
        d = item_ptr[i + 1] - item_ptr[i]
        n_inst += d * (d - 1) * (d - 2) // 6
    keys = np.empty(n_inst, dtype=np.int64)
    cells = np.empty(n_inst, dtype=np.int64)
    t = 0
    for i in range(item_ptr.size - 1):
        ws, ls = _sorted_answers(item_ptr, order, worker, label, i)
        d = ws.size
        for x in range(d):
            for y in range(x + 1, d):
                for z in range(y + 1, d):
                    keys[t] = (ws[x] * M + ws[y]) * M + ws[z]
                    cells[t] = (ls[x] * K + ls[y]) * K + ls[z]
                    t += 1
    by = np.argsort(keys, kind="mergesort")
    n_distinct = 0
    for s in range(n_inst):
        if s == 0 or keys[by[s]] != keys[by[s - 1]]:
            n_distinct += 1
    triples = np.empty((n_distinct, 3), dtype=np.int64)
    T3 = np.zeros((n_distinct, K, K, K))
    counts = np.zeros(n_distinct, dtype=np.int64)
    u = -1
    for s in range(n_inst):
        key = keys[by[s]]
        if s == 0 or key != keys[by[s - 1]]:
            u += 1
            triples[u, 0], triples[u, 1], triples[u, 2] = key // (M * M), (key // M) % M, key % M
        c = cells[by[s]]
        T3[u, c // (K * K), (c // K) % K, c % K] += 1.0
        counts[u] += 1
    for u in range(n_distinct):
        T3[u] /= counts[u]
    return triples, T3, counts


@njit(**JIT)
def _project_into(v, scratch, out, clip):
    """out (K,) = the column v (K,) onto the probability simplex by Duchi et al.'s sort-and-threshold projection,
    with ``clip`` after setting negative entries to 0 first as ProjectOntoSimplex1.m does (then not the Euclidean
    projection of v when its positive part sums below 1). ``scratch`` (K,) holds the sorted entries (insertion
    sort: K is small)."""
    K = v.size
    for r in range(K):
        x = max(v[r], 0.0) if clip else v[r]
        q = r
        while q > 0 and scratch[q - 1] < x:
            scratch[q] = scratch[q - 1]
            q -= 1
        scratch[q] = x
    total, theta, j = 0.0, 0.0, 0
    for r in range(K):
        total += scratch[r]
        if scratch[r] > (total - 1.0) / (r + 1):
            j, theta = r + 1, total
    theta = (theta - 1.0) / j
    for r in range(K):
        out[r] = max((max(v[r], 0.0) if clip else v[r]) - theta, 0.0)


@njit(**JIT)
def project_columns_to_simplex(V, clip=True):
    """Each column of V (K, F) onto the probability simplex: with ``clip`` as the authors' ProjectOntoSimplex1.m
    does it (negative entries first set to 0, then Duchi et al.'s sort-and-threshold projection; for a column
    whose positive part sums below 1 this is not the Euclidean projection of the column itself), else the
    Euclidean projection."""
    K, F = V.shape
    out = np.empty((K, F))
    column, scratch, projected = np.empty(K), np.empty(K), np.empty(K)
    for f in range(F):
        column[:] = V[:, f]
        _project_into(column, scratch, projected, clip)
        out[:, f] = projected
    return out


@njit(**JIT)
def _shifted_inverse(lhs, shift, A, inv):
    """inv (K, K) = (lhs + shift I)^-1 for a symmetric positive definite lhs + shift I, by Gauss-Jordan without
    pivoting in explicit loops (K is small: LAPACK's call costs more than the arithmetic here); A (K, K) is
    scratch."""
    K = lhs.shape[0]
    A[:] = lhs
    inv[:] = 0.0
    for k in range(K):
        A[k, k] += shift
        inv[k, k] = 1.0
    for k in range(K):
        pivot = A[k, k]
        for c in range(K):
            A[k, c] /= pivot
            inv[k, c] /= pivot
        for r in range(K):
            if r != k:
                factor = A[r, k]
                if factor != 0.0:
                    for c in range(K):
                        A[r, c] -= factor * A[k, c]
                        inv[r, c] -= factor * inv[k, c]


@njit(**JIT)
def admm_workspace(K):
    """Scratch of the inner ADMM steps, allocated once per fit: (A, inv, start, B, phi_t) (K, K) and (u, column,
    scratch, projected) (K,)."""
    return (np.empty((K, K)), np.empty((K, K)), np.empty((K, K)), np.empty((K, K)), np.empty((K, K)),
            np.empty(K), np.empty(K), np.empty(K), np.empty(K))


@njit(**JIT)
def _admm_confusion(lhs, rhs, G, D, mu, tol, max_steps, clip, work):
    """inner_ADMM.m: min 0.5 ||.|| fit + mu/2 ||G - G_start||^2 over column-stochastic G (K, K) by ADMM with
    step lambda = ||lhs||_F / K; ``rhs`` (K, K) includes mu G_start^T. G and D (the scaled dual) are updated in
    place, with ``admm_workspace``'s scratch ``work`` (explicit loops: K is small and the steps run M times per
    sweep)."""
    K = G.shape[0]
    A, inv, start, B, phi_t, _, column, scratch, projected = work
    lam = np.sqrt(np.sum(lhs * lhs)) / K
    _shifted_inverse(lhs, mu + lam, A, inv)
    start[:] = G
    for _ in range(max_steps):
        for f in range(K):
            for a in range(K):
                B[f, a] = rhs[f, a] + lam * (G[a, f] + D[a, f])
        for a in range(K):
            for f in range(K):
                total = 0.0
                for g in range(K):
                    total += inv[f, g] * B[g, a]
                phi_t[a, f] = total
        gap, size, dual, moved = 0.0, 0.0, 0.0, 0.0
        for f in range(K):
            for a in range(K):
                column[a] = phi_t[a, f] - D[a, f]
            _project_into(column, scratch, projected, clip)
            for a in range(K):
                new = projected[a]
                diff = new - phi_t[a, f]
                D[a, f] += diff
                gap += diff * diff
                size += new * new
                dual += D[a, f] * D[a, f]
                moved += (new - start[a, f]) ** 2
                G[a, f] = new
        if gap / max(size, 1e-300) < tol and dual > 0.0 and moved / dual < tol:
            break


@njit(**JIT)
def _admm_prior(lhs, rhs, p, d, mu, tol, max_steps, clip, work):
    """inner_ADMM_p_upd.m: the prior (K,) on the simplex by the same ADMM; ``rhs`` includes mu p_start. Returns
    new arrays (p, d); ``work``: ``admm_workspace``'s scratch."""
    K = p.size
    A, inv, _, _, _, u, column, scratch, projected = work
    lam = np.sqrt(np.sum(lhs * lhs)) / K
    _shifted_inverse(lhs, mu + lam, A, inv)
    start, p, d = p.copy(), p.copy(), d.copy()
    for _ in range(max_steps):
        for f in range(K):
            total = 0.0
            for g in range(K):
                total += inv[f, g] * (rhs[g] + lam * (p[g] + d[g]))
            u[f] = total
        for f in range(K):
            column[f] = u[f] - d[f]
        _project_into(column, scratch, projected, clip)
        gap, size, dual, moved = 0.0, 0.0, 0.0, 0.0
        for f in range(K):
            new = projected[f]
            diff = new - u[f]
            d[f] += diff
            gap += diff * diff
            size += new * new
            dual += d[f] * d[f]
            moved += (new - start[f]) ** 2
            p[f] = new
        if gap / max(size, 1e-300) < tol and dual > 0.0 and moved / dual < tol:
            break
    return p, d


@njit(**JIT)
def _prior_system(rows, grams, m1, pair_moments, triple_moments, all_blocks):
    """(lhs (K, K), rhs (K,)) of the objective as a quadratic in p: 0.5 p^T lhs p - p^T rhs + const; ``rows`` is
    Gamma as (M K, K) (row m K + a: annotator m's answer a). With ``all_blocks`` every pair and triple of
    annotators counts (the unobserved with zero moments: the elementary symmetric sums of the Gram matrices give
    lhs); else only the observed ones. Loops index the arrays directly (two flat views per call, none per pair or
    triple: a view per pair or triple costs more than its arithmetic)."""
    pairs, pair_ptr, pair_rows, pair_values = pair_moments[0], pair_moments[1], pair_moments[2], pair_moments[3]
    triples, tri_ptr, tri_rows, tri_values = (triple_moments[0], triple_moments[1], triple_moments[2],
                                              triple_moments[3])
    M, K = grams.shape[0], grams.shape[1]
    KK = K * K
    lhs = np.zeros((K, K))
    flat_lhs, flat_grams = lhs.reshape(KK), grams.reshape(M, KK)  # views: (a, b) is a K + b
    rhs = np.zeros(K)
    for i in range(M):
        for f in range(K):
            for a in range(K):
                rhs[f] += rows[i * K + a, f] * m1[i, a]
                lhs[f, a] += grams[i, f, a]
    if all_blocks:
        for a in range(K):
            for b in range(K):
                p1, p2, p3 = 0.0, 0.0, 0.0
                for i in range(M):
                    g = grams[i, a, b]
                    p1 += g
                    p2 += g * g
                    p3 += g * g * g
                lhs[a, b] += 0.5 * (p1 * p1 - p2) + (p1 ** 3 - 3.0 * p1 * p2 + 2.0 * p3) / 6.0
    for q in range(pairs.shape[0]):
        i, j = pairs[q, 0], pairs[q, 1]
        if not all_blocks:
            for c in range(KK):
                flat_lhs[c] += flat_grams[i, c] * flat_grams[j, c]
        for s in range(pair_ptr[q], pair_ptr[q + 1]):
            a, b, r = pair_rows[s, 0], pair_rows[s, 1], pair_values[s]
            for f in range(K):
                rhs[f] += r * rows[a, f] * rows[b, f]
    for t in range(triples.shape[0]):
        i, j, k = triples[t, 0], triples[t, 1], triples[t, 2]
        if not all_blocks:
            for c in range(KK):
                flat_lhs[c] += flat_grams[i, c] * flat_grams[j, c] * flat_grams[k, c]
        for s in range(tri_ptr[t], tri_ptr[t + 1]):
            a, b, c, x = tri_rows[s, 0], tri_rows[s, 1], tri_rows[s, 2], tri_values[s]
            for f in range(K):
                rhs[f] += x * rows[a, f] * rows[b, f] * rows[c, f]
    return lhs, rhs


@njit(**JIT)
def _confusion_system(i, rows, grams, p, m1, pair_moments, triple_moments, all_blocks, sums):
    """(lhs (K, K), rhs (K, K) without the proximal term) of annotator i's least squares in Gamma_i^T, the other
    annotators fixed (inner_ADMM.m's Tmp_mat and Tmp_mat2); ``rows`` is Gamma as (M K, K). ``sums`` = (sum of the
    Gram matrices, sum of their squares) over all annotators, for ``all_blocks``. The right-hand side is summed
    cell by cell over i's entries in order, as one stream (``theirs`` holds the partners' rows)."""
    pair_of, partner_of, pair_ptr, pair_own, pair_theirs, pair_values = (
        pair_moments[4], pair_moments[6], pair_moments[7], pair_moments[8], pair_moments[9], pair_moments[10])
    triple_of, partners_of, tri_ptr, tri_own, tri_theirs, tri_values = (
        triple_moments[4], triple_moments[6], triple_moments[7], triple_moments[8], triple_moments[9],
        triple_moments[10])
    M, K = grams.shape[0], grams.shape[1]
    KK = K * K
    lhs = np.zeros((K, K))
    flat_lhs, flat_grams = lhs.reshape(KK), grams.reshape(M, KK)  # views: (a, b) is a K + b
    by_answer = np.zeros((K, K))  # rhs transposed: [own answer, f], contiguous in f
    if all_blocks:
        for a in range(K):
            for b in range(K):
                g = grams[i, a, b]
                s1 = sums[0, a, b] - g
                lhs[a, b] = s1 + 0.5 * (s1 * s1 - (sums[1, a, b] - g * g))
    else:
        for e in range(pair_of[i], pair_of[i + 1]):
            other = partner_of[e, 0]
            for c in range(KK):
                flat_lhs[c] += flat_grams[other, c]
    for s in range(pair_ptr[pair_of[i]], pair_ptr[pair_of[i + 1]]):
        mine, theirs, r = pair_own[s], pair_theirs[s, 0], pair_values[s]
        for f in range(K):
            by_answer[mine, f] += r * rows[theirs, f]
    if not all_blocks:
        for e in range(triple_of[i], triple_of[i + 1]):
            first, second = partners_of[e, 0], partners_of[e, 1]  # the other two annotators, in the triple's order
            for c in range(KK):
                flat_lhs[c] += flat_grams[first, c] * flat_grams[second, c]
    for s in range(tri_ptr[triple_of[i]], tri_ptr[triple_of[i + 1]]):
        mine, x1, x2, x = tri_own[s], tri_theirs[s, 0], tri_theirs[s, 1], tri_values[s]
        for f in range(K):
            by_answer[mine, f] += x * rows[x1, f] * rows[x2, f]
    rhs = np.empty((K, K))
    for f in range(K):
        for g in range(K):
            lhs[f, g] = p[f] * lhs[f, g] * p[g] + p[f] * p[g]  # P lhs P + p p^T
        for a in range(K):
            rhs[f, a] = p[f] * by_answer[a, f] + p[f] * m1[i, a]  # P rhs + p m1_i^T
    return lhs, rhs


@njit(**JIT)
def _relative_one_norm_change(old, new, i):
    """||old_i - new_i||_1 / ||old_i||_1 in the matrix 1-norm (largest column sum; the denominator floored at
    1e-300), in loops: array expressions here allocated four temporaries per annotator and sweep."""
    K = old.shape[1]
    change, size = -np.inf, -np.inf
    for f in range(K):
        column_change, column_size = 0.0, 0.0
        for a in range(K):
            column_change += abs(old[i, a, f] - new[i, a, f])
            column_size += abs(old[i, a, f])
        if column_change > change or np.isnan(column_change):  # NaN propagates, as np.max's would
            change = column_change
        if column_size > size or np.isnan(column_size):
            size = column_size
    return change / max(size, 1e-300)


@njit(**JIT)
def _objective(lhs, rhs, p, constant):
    return 0.5 * constant - p @ rhs + 0.5 * p @ lhs @ p


@njit(**JIT)
def ao_admm(Gamma, p, m1, pair_moments, triple_moments, all_blocks, clip, max_outer, max_inner, outer_tol,
            inner_tol, mu_const1, mu_const2):
    """EstConfMat_AO_ADMM.m with unit weights: block coordinate descent on
    0.5 sum_i ||m1_i - Gamma_i p||^2 + 0.5 sum_(i<j) ||R_ij - Gamma_i P Gamma_j^T||_F^2
    + 0.5 sum_(i<j<k) ||T_ijk - [[Gamma_i, Gamma_j, Gamma_k; p]]||^2 over the observed pairs and triples (or, with
    ``all_blocks``, every pair and triple, the unobserved ones with zero moments), each Gamma_i (in annotator
    order, each using the others' newest) then p by a few proximal ADMM steps (mu from the objective's relative
    size), until the confusions' relative changes in the matrix 1-norm (largest column sum), summed over the
    annotators, and the prior's relative l1 change fall below ``outer_tol``, or ``max_outer`` - 1 sweeps (the
    code's loop). ``pair_moments`` and ``triple_moments`` are (members (T, r) in increasing order, cell_ptr
    (T + 1,), rows (nnz, r) of answers as rows of Gamma seen as (M K, K) (member K + answer), values (nnz,),
    member_ptr (M + 1,), roles (rT, 2), partners (rT, r - 1), entry_ptr (rT + 1,), own (rnnz,) answers, theirs
    (rnnz, r - 1) rows, member values (rnnz,)): each observed tuple's nonzero
    moments; each annotator's tuples with its position in them (entry e = roles[e] = (tuple, position), annotator
    m's entries member_ptr[m]:member_ptr[m+1]); and, for each entry e, the tuple's other members in the tuple's
    order (partners[e]) and the tuple's cells copied to entry_ptr[e]:entry_ptr[e+1] as the annotator's own answer,
    the partners' rows and the value, so that an annotator's update reads its cells in order. ``clip``: the
    code's projection (``project_columns_to_simplex``), else the Euclidean one. Gamma (M, K, K) and p (K,) are the
    start; returns (Gamma, p, sweeps, objective)."""
    M, K = Gamma.shape[0], Gamma.shape[1]
    Gamma = Gamma.copy()
    rows = Gamma.reshape(M * K, K)  # the same memory: row m K + a is annotator m's answer a
    work = admm_workspace(K)
    grams = np.empty((M, K, K))
    for i in range(M):
        gram_into(Gamma[i], grams[i])
    constant = np.sum(m1 * m1) + np.sum(pair_moments[3] ** 2) + np.sum(triple_moments[3] ** 2)
    lhs, rhs = _prior_system(rows, grams, m1, pair_moments, triple_moments, all_blocks)
    previous = _objective(lhs, rhs, p, constant)
    mu = mu_const1 + mu_const2 * previous / max(constant, 1e-300)
    Delta = np.zeros((M, K, K))
    delta = np.zeros(K)
    sums = np.zeros((2, K, K))
    sweeps = 0
    for _ in range(max_outer - 1):
        sweeps += 1
        old = Gamma.copy()
        sums[0], sums[1] = grams.sum(axis=0), (grams ** 2).sum(axis=0)
        for i in range(M):
            lhs_i, rhs_i = _confusion_system(i, rows, grams, p, m1, pair_moments, triple_moments, all_blocks, sums)
            for f in range(K):
                for a in range(K):
                    rhs_i[f, a] += mu * Gamma[i, a, f]  # the proximal term mu Gamma_i^T
            _admm_confusion(lhs_i, rhs_i, Gamma[i], Delta[i], mu, inner_tol, max_inner, clip, work)
            for a in range(K):
                for b in range(K):
                    g = 0.0
                    for c in range(K):
                        g += Gamma[i, c, a] * Gamma[i, c, b]
                    sums[0, a, b] += g - grams[i, a, b]
                    sums[1, a, b] += g * g - grams[i, a, b] ** 2
                    grams[i, a, b] = g
        lhs, rhs = _prior_system(rows, grams, m1, pair_moments, triple_moments, all_blocks)
        new_p, delta = _admm_prior(lhs, rhs + mu * p, p, delta, mu, inner_tol, max_inner, clip, work)
        moved = 0.0
        for i in range(M):
            moved += _relative_one_norm_change(old, Gamma, i)
        p_moved = np.abs(p - new_p).sum() / max(np.abs(p).sum(), 1e-300)
        value = _objective(lhs, rhs, new_p, constant)
        if value < previous:
            mu = mu_const1 + mu_const2 * value / max(constant, 1e-300)
        else:
            mu -= 1e-9 * mu
        p, previous = new_p, value
        if moved < outer_tol and p_moved < outer_tol:
            break
    return Gamma, p, sweeps, previous
