"""Numba kernels of the factorization machine baseline (Rendle 2010): one sweep of alternating least squares
(coordinate descent, Rendle 2012, the ALS solver of fastFM) over dense features stored column by column.

Model: yhat = w0 + x^T w + sum_{a<b} <v_a, v_b> x_a x_b. State kept exact between updates: the residual
e = yhat - y (n,) and Qt = (X V)^T (k, n).

Each coordinate costs two passes over the n instances: its sums (sum e h, sum h^2, read-only, in four lanes) and
its update (e += delta h, q_f += delta x_a, elementwise, so the compiler vectorises it). A sum is taken in four
lanes, lane j holding the terms i = j mod 4 in order, the total (l0 + l1) + (l2 + l3): a fixed order, the same on
every host and thread count, and four independent additions per step instead of one chain.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .jit import JIT
from .sums import lane_sum


@njit(**JIT)
def _linear_sums(e, x):
    """(sum_i e_i x_i, sum_i x_i^2) over (n,) arrays, in four lanes (the order in the module docstring)."""
    a0 = a1 = a2 = a3 = b0 = b1 = b2 = b3 = 0.0
    n = e.size
    m = n - n % 4
    for i in range(0, m, 4):
        a0 += e[i] * x[i]
        b0 += x[i] * x[i]
        a1 += e[i + 1] * x[i + 1]
        b1 += x[i + 1] * x[i + 1]
        a2 += e[i + 2] * x[i + 2]
        b2 += x[i + 2] * x[i + 2]
        a3 += e[i + 3] * x[i + 3]
        b3 += x[i + 3] * x[i + 3]
    if m < n:
        a0 += e[m] * x[m]
        b0 += x[m] * x[m]
    if m + 1 < n:
        a1 += e[m + 1] * x[m + 1]
        b1 += x[m + 1] * x[m + 1]
    if m + 2 < n:
        a2 += e[m + 2] * x[m + 2]
        b2 += x[m + 2] * x[m + 2]
    return (a0 + a1) + (a2 + a3), (b0 + b1) + (b2 + b3)


@njit(**JIT)
def _factor_h(i, q, x, v):
    """h_i = x_i (q_i - v x_i): the derivative of yhat_i in v_{a,f} (Rendle 2012, eq. 14), x = x_a, q = q_f."""
    return x[i] * (q[i] - v * x[i])


@njit(**JIT)
def _factor_sums(e, q, x, v):
    """(sum_i e_i h_i, sum_i h_i^2), h = x o (q - v x), over (n,) arrays, in four lanes."""
    a0 = a1 = a2 = a3 = b0 = b1 = b2 = b3 = 0.0
    n = e.size
    m = n - n % 4
    for i in range(0, m, 4):
        h0, h1, h2, h3 = _factor_h(i, q, x, v), _factor_h(i + 1, q, x, v), _factor_h(i + 2, q, x, v), \
            _factor_h(i + 3, q, x, v)
        a0 += e[i] * h0
        b0 += h0 * h0
        a1 += e[i + 1] * h1
        b1 += h1 * h1
        a2 += e[i + 2] * h2
        b2 += h2 * h2
        a3 += e[i + 3] * h3
        b3 += h3 * h3
    if m < n:
        h = _factor_h(m, q, x, v)
        a0 += e[m] * h
        b0 += h * h
    if m + 1 < n:
        h = _factor_h(m + 1, q, x, v)
        a1 += e[m + 1] * h
        b1 += h * h
    if m + 2 < n:
        h = _factor_h(m + 2, q, x, v)
        a2 += e[m + 2] * h
        b2 += h * h
    return (a0 + a1) + (a2 + a3), (b0 + b1) + (b2 + b3)


@njit(**JIT)
def _factor_update(e, q, x, v, delta):
    """v_{a,f} += delta applied to the state: e += delta h (h from the q before the update), q += delta x."""
    for i in range(e.size):
        xi = x[i]
        qi = q[i]
        e[i] += delta * (xi * (qi - v * xi))
        q[i] = qi + delta * xi


@njit(**JIT)
def sum_of_squares(e):
    """sum_i e_i^2 over an (n,) array, in four lanes: the same bits for any thread count (a BLAS dot is not)."""
    return _linear_sums(e, e)[1]


@njit(**JIT)
def _coordinate_delta(num, den):
    """The exact coordinate step -num / den, 0 where the coordinate does not enter the loss (den not positive)."""
    return -num / den if den > 0.0 else 0.0


@njit(**JIT)
def als_sweep(Xc, e, Qt, w0, w, V, reg_w0, reg_w, reg_v):
    """One sweep: w0, then each w_a, then each v_{a,f} (f outer, a inner, fastFM's order), each to the exact
    minimiser of (1/2)||e||^2 + (reg/2) theta^2 along its axis. Xc (d, n) columns of X, e (n,), Qt (k, n) =
    (X V)^T, w (d,), V (d, k) updated in place. Returns the new w0."""
    d, n = Xc.shape
    delta = _coordinate_delta(reg_w0 * w0 + lane_sum(e), reg_w0 + n)  # h = 1: sum h^2 = n
    for i in range(n):
        e[i] += delta
    w0 += delta
    for a in range(d):
        x = Xc[a]
        s, t = _linear_sums(e, x)
        delta = _coordinate_delta(reg_w * w[a] + s, reg_w + t)
        if delta != 0.0:
            w[a] += delta
            for i in range(n):
                e[i] += delta * x[i]
    for f in range(V.shape[1]):
        q = Qt[f]
        for a in range(d):
            x, v = Xc[a], V[a, f]
            s, t = _factor_sums(e, q, x, v)
            delta = _coordinate_delta(reg_v * v + s, reg_v + t)
            if delta != 0.0:
                V[a, f] = v + delta
                _factor_update(e, q, x, v, delta)
    return w0


@njit(**JIT)
def pairwise_predictions(Xc, Qt, V):
    """(n,) sum_{a<b} <v_a, v_b> x_a x_b = (sum_f q_f^2 - sum_a ||v_a||^2 x_a^2) / 2, from the columns Xc (d, n),
    Qt (k, n) = (X V)^T and V (d, k), reading X column by column."""
    d, n = Xc.shape
    out = np.zeros(n)
    for f in range(Qt.shape[0]):
        q = Qt[f]
        for i in range(n):
            out[i] += q[i] * q[i]
    for a in range(d):
        norm2 = 0.0
        for f in range(V.shape[1]):
            norm2 += V[a, f] * V[a, f]
        x = Xc[a]
        for i in range(n):
            out[i] -= norm2 * (x[i] * x[i])
    for i in range(n):
        out[i] *= 0.5
    return out
