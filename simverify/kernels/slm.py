"""Numba kernels of the second order linear model (Lin, Qiu, Hong, Ye 2022): the instance stream.

Instances are drawn inside the kernels, one xoshiro256++ stream (kernels.streams) per fixed chunk of
instances, and summed into fixed-order slots, so results are bit-identical for any thread count. Per instance:
d coordinates (distribution ``code`` from generators.slm, standardised with ``mean`` and ``sd``), then one noise
normal, drawn by the block samplers as if into one buffer (d + 1,).
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from .jit import JIT, PARALLEL_JIT
from .streams import next_uint64, normal_block, uniform_block

INSTANCE_CHUNK = 4096  # instances per random stream (a fixed layout: results never depend on the thread count)


@njit(**JIT)
def draw_instance(state, x, tail, code, param, mean, sd):
    """Fill x (d,) and tail (1,) from the stream ``state``: d raw coordinates standardised with ``mean`` and ``sd``,
    then the instance's noise normal. Raw coordinates by ``code``: 0 N(0, 1); 1 min(z, param); 2 Bernoulli(param)
    in {0, 1}; 3 uniform on [-1, 1]; 4 +-1 (equally likely) + param z. The stream is consumed as if x and tail
    were one buffer (d + 1,): the block samplers draw value after value."""
    d = x.size
    if code == 0:  # N(0, 1) is already standardised: d + 1 normals
        normal_block(state, x)
        normal_block(state, tail)
        return
    inv_sd = 1.0 / sd
    if code == 2 or code == 3:
        uniform_block(state, x)
        normal_block(state, tail)
        for a in range(d):
            raw = (1.0 if x[a] < param else 0.0) if code == 2 else 2.0 * x[a] - 1.0
            x[a] = (raw - mean) * inv_sd
        return
    normal_block(state, x)
    normal_block(state, tail)
    if code == 1:
        for a in range(d):
            x[a] = (min(x[a], param) - mean) * inv_sd
        return
    bits = np.uint64(0)
    for a in range(d):  # code 4: one sign bit per coordinate, 64 from each raw draw
        if a % 64 == 0:
            bits = next_uint64(state)
        sign = 1.0 if bits & np.uint64(1) else -1.0
        bits >>= np.uint64(1)
        x[a] = (sign + param * x[a] - mean) * inv_sd


DRAW_TILE = 64  # instances drawn into a row buffer before they are copied out: runs of 64 per column of an F array


@njit(**PARALLEL_JIT)
def draw_instances_into(states, X, noise, code, param, mean, sd, chunk):
    """The first n instances into X (n, d), C or F order, and their noise normals into noise (n,); chunk c of
    ``chunk`` instances from stream states[c]. Drawn DRAW_TILE instances at a time into a row buffer, then copied
    out, so either layout is written in contiguous runs; the same numbers in either."""
    n, d = X.shape
    for cc in prange(states.shape[0]):
        c = np.int64(cc)
        tile = np.empty((DRAW_TILE, d))
        end = min(n, (c + 1) * chunk)
        for i0 in range(c * chunk, end, DRAW_TILE):
            m = min(DRAW_TILE, end - i0)
            for r in range(m):
                draw_instance(states[c], tile[r], noise[i0 + r:i0 + r + 1], code, param, mean, sd)
            for a in range(d):
                for r in range(m):
                    X[i0 + r, a] = tile[r, a]


@njit(**JIT)
def feature_block(states, d, code, param, mean, sd, n, chunk):
    """The first n instances materialised: X (n, d) and their noise normals (n,) (for baselines and tests)."""
    X = np.empty((n, d))
    noise = np.empty(n)
    draw_instances_into(states, X, noise, code, param, mean, sd, chunk)
    return X, noise


@njit(**PARALLEL_JIT)
def power_sum_slots(states, d, code, param, mean, sd, n, chunk, n_slots):
    """Partial sums (n_slots, 4, d) of x, x^2, x^3, x^4 per coordinate over the first n instances (Algorithm 1
    step 2), slot s holding chunks s, s + n_slots, ... in order; x is never stored."""
    out = np.zeros((n_slots, 4, d))
    for s in prange(n_slots):
        buf = np.empty(d + 1)
        x, tail = buf[:d], buf[d:]
        for c in range(s, states.shape[0], n_slots):
            for _ in range(min(chunk, n - c * chunk)):
                draw_instance(states[c], x, tail, code, param, mean, sd)
                for a in range(d):
                    v = x[a]
                    v2 = v * v
                    out[s, 0, a] += v
                    out[s, 1, a] += v2
                    out[s, 2, a] += v2 * v
                    out[s, 3, a] += v2 * v2
    return out


@njit(**JIT)
def projections(x, Pt, acc):
    """acc[j] = x . Pt[:, j] for Pt (d, m): the m products interleaved in one pass over x, each summed in order
    a = 0..d-1 (the same rounding as a plain dot product), independent chains the CPU overlaps."""
    for j in range(acc.size):
        acc[j] = 0.0
    for a in range(x.size):
        xa = x[a]
        for j in range(acc.size):
            acc[j] += xa * Pt[a, j]


@njit(**JIT)
def diagonal_form(x, diag):
    """x^T D(diag) x for diag (d,)."""
    total = 0.0
    for a in range(x.size):
        total += diag[a] * x[a] * x[a]
    return total


@njit(**JIT)
def label(x, noise_normal, Lt, s_star, diag_star, noise_level, acc):
    """y = x^T w* + x^T M* x + noise_level * xi (Eq. 1), M* = U* diag(s*) U*^T - D(diag*); Lt (d, 1 + r) holds
    w* and the columns of U*; acc (1 + r,) scratch."""
    projections(x, Lt, acc)
    quad = 0.0
    for j in range(s_star.size):
        quad += s_star[j] * acc[1 + j] * acc[1 + j]
    return acc[0] + quad - diagonal_form(x, diag_star) + noise_level * noise_normal


@njit(**PARALLEL_JIT)
def residual_moment_slots(states, code, param, mean, sd, n, chunk, n_slots,
                          Lt, s_star, diag_star, noise_level, St, diag, scale, shift):
    """One pass over n instances with z_i = yhat_i - y_i, yhat = x^T w + x^T (U V^T - D(diag)) x (Algorithm 1
    step 7); the label's factors Lt = [w*, U*] (d, 1 + r) and the iterate's St = [w, U, V] (d, 1 + 2q). Per slot
    (fixed chunk order): sum z x (x^T U) (d, q); sum z; sum z x and sum z x^2 (2, d). A'(z) U, P0, P1 and P2 + P0
    follow by dividing by n; the d x d operator A'(z) is never formed, and each x^T u_j is computed once.

    The label is computed on the exactly standardised x; the solver sees scale * x + shift (d,) when ``scale``
    is non-empty (a standardisation estimated without the zero-mean/unit-variance oracle), else x itself."""
    d = St.shape[0]
    q = (St.shape[1] - 1) // 2
    AU = np.zeros((n_slots, d, q))
    P0 = np.zeros(n_slots)
    P = np.zeros((n_slots, 2, d))
    for s in prange(n_slots):
        buf = np.empty(d + 1)
        x, tail = buf[:d], buf[d:]
        lab = np.empty(Lt.shape[1])
        xs = np.empty(St.shape[1])  # x^T w, x^T u_j, x^T v_j
        for c in range(s, states.shape[0], n_slots):
            for _ in range(min(chunk, n - c * chunk)):
                draw_instance(states[c], x, tail, code, param, mean, sd)
                y = label(x, tail[0], Lt, s_star, diag_star, noise_level, lab)
                if scale.size > 0:
                    for a in range(d):
                        x[a] = scale[a] * x[a] + shift[a]
                projections(x, St, xs)
                z = xs[0] - diagonal_form(x, diag) - y
                for j in range(q):
                    z += xs[1 + j] * xs[1 + q + j]
                P0[s] += z
                for a in range(d):
                    za = z * x[a]
                    for j in range(q):
                        AU[s, a, j] += za * xs[1 + j]
                    P[s, 0, a] += za
                    P[s, 1, a] += za * x[a]
    return AU, P0, P


BLOCKED_MIN_D = 256  # from this d on, residual_moments uses the blocked (dgemm) pass
BLOCK_ROWS = 128  # instances per matrix product in the blocked pass (128 x d doubles stay in cache)


@njit(**JIT)
def diagonal_forms(x, diag_a, diag_b):
    """(x^T D(diag_a) x, x^T D(diag_b) x) with four partial sums each (long x: independent chains)."""
    a0 = a1 = a2 = a3 = b0 = b1 = b2 = b3 = 0.0
    d4 = x.size - x.size % 4
    for a in range(0, d4, 4):
        v0, v1, v2, v3 = x[a] * x[a], x[a + 1] * x[a + 1], x[a + 2] * x[a + 2], x[a + 3] * x[a + 3]
        a0 += diag_a[a] * v0
        a1 += diag_a[a + 1] * v1
        a2 += diag_a[a + 2] * v2
        a3 += diag_a[a + 3] * v3
        b0 += diag_b[a] * v0
        b1 += diag_b[a + 1] * v1
        b2 += diag_b[a + 2] * v2
        b3 += diag_b[a + 3] * v3
    for a in range(d4, x.size):
        v = x[a] * x[a]
        a0 += diag_a[a] * v
        b0 += diag_b[a] * v
    return (a0 + a1) + (a2 + a3), (b0 + b1) + (b2 + b3)


@njit(**PARALLEL_JIT)
def residual_moment_blocks(states, code, param, mean, sd, n, chunk, n_slots,
                           Lt, s_star, diag_star, noise_level, St, diag, scale, shift):
    """residual_moment_slots in blocks of BLOCK_ROWS instances X (m, d), drawn in place: the projections
    X [w*, U*, w, U, V] are one matrix product (two without the oracle, where the solver's view needs the label
    first), and A'(z) U with P1 one more, X^T [z o X U, z] (m x (q + 1)); BLAS, called with BLAS pinned to one
    thread. Same arguments and outputs; the sums equal those of residual_moment_slots up to rounding (a different
    summation order)."""
    d = St.shape[0]
    q = (St.shape[1] - 1) // 2
    r = s_star.size
    viewed = scale.size > 0
    diagonal = np.any(diag_star != 0.0) or np.any(diag != 0.0)
    LSt = np.ascontiguousarray(np.hstack((Lt, St)))  # (d, 2 + r + 2q): one product when the solver sees x
    AU = np.zeros((n_slots, d, q))
    P0 = np.zeros(n_slots)
    P = np.zeros((n_slots, 2, d))
    for s in prange(n_slots):
        X = np.empty((BLOCK_ROWS, d))
        noise = np.empty(BLOCK_ROWS)
        W = np.empty((BLOCK_ROWS, q + 1))  # [z o X U, z]
        AUz = np.zeros((d, q + 1))  # [A'(z) U, X z], summed block after block
        Pz2 = np.zeros(d)  # X^2 z
        for c in range(s, states.shape[0], n_slots):
            todo = min(chunk, n - c * chunk)
            while todo > 0:  # the chunk's instances in order, BLOCK_ROWS at a time (a block stays in cache)
                m = min(BLOCK_ROWS, todo)
                todo -= m
                for i in range(m):
                    draw_instance(states[c], X[i], noise[i:i + 1], code, param, mean, sd)
                Xm = X[:m]
                # L[i, :1 + r] = x_i^T [w*, U*]; S[i, o:] = x_i^T [w, U, V] on the solver's view
                L = np.dot(Xm, Lt) if viewed else np.dot(Xm, LSt)
                S, o = L, 1 + r
                for i in range(m):  # the label on the exact x, then (without the oracle) the solver's view
                    quad = 0.0
                    for j in range(r):
                        quad += s_star[j] * L[i, 1 + j] * L[i, 1 + j]
                    y = L[i, 0] + quad + noise_level * noise[i]
                    if viewed:
                        y -= diagonal_forms(Xm[i], diag_star, diag_star)[0]
                        for a in range(d):
                            Xm[i, a] = scale[a] * Xm[i, a] + shift[a]
                        W[i, q] = -y - diagonal_forms(Xm[i], diag, diag)[0]
                    elif diagonal:  # one pass for both diagonal forms
                        label_diag, fit_diag = diagonal_forms(Xm[i], diag_star, diag)
                        W[i, q] = -(y - label_diag) - fit_diag
                    else:  # both diagonals zero (low-rank M* and iterate): the forms vanish
                        W[i, q] = -y
                if viewed:
                    S, o = np.dot(Xm, St), 0
                for i in range(m):
                    zi = W[i, q] + S[i, o]
                    for j in range(q):
                        zi += S[i, o + 1 + j] * S[i, o + 1 + q + j]
                    for j in range(q):
                        W[i, j] = zi * S[i, o + 1 + j]
                    W[i, q] = zi
                    P0[s] += zi
                    x = Xm[i]
                    for a in range(d):
                        Pz2[a] += zi * x[a] * x[a]
                AUz += np.dot(Xm.T, W[:m])
        AU[s] = AUz[:, :q]
        P[s, 0] = AUz[:, q]
        P[s, 1] = Pz2
    return AU, P0, P


@njit(**JIT)
def second_order_predictions(X, w0, Wt, diag, scale, shift):
    """yhat_i = w0 + z^T w + sum_j (z^T u_j)(z^T v_j) - z^T D(diag) z (n,) for X (n, d), Wt = [w, U, V]
    (d, 1 + 2q) as in residual_moment_slots, z = scale * x + shift when ``scale`` is non-empty, else x: the
    prediction of an SLM iterate and of a factorization machine (U = V_, V = V_ / 2, diag = rowsum(V_^2) / 2)."""
    n, d = X.shape
    q = (Wt.shape[1] - 1) // 2
    out = np.empty(n)
    z = np.empty(d)
    xs = np.empty(Wt.shape[1])
    for i in range(n):
        for a in range(d):
            z[a] = scale[a] * X[i, a] + shift[a] if scale.size > 0 else X[i, a]
        projections(z, Wt, xs)
        y = w0 + xs[0] - diagonal_form(z, diag)
        for j in range(q):
            y += xs[1 + j] * xs[1 + q + j]
        out[i] = y
    return out
