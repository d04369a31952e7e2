"""Pieces of a limited-memory BFGS minimiser (Nocedal 1980; Liu & Nocedal 1989), in Numba and free of the GIL, for
objectives whose driver loop is itself a kernel (``kernels.crowd.minimax.maximise``): two independent fits
then run on two threads at once, where scipy's L-BFGS-B holds the GIL in every iteration.

The inverse-Hessian estimate starts from a diagonal preconditioner ``inverse_scale`` (n,), scaled by
gamma = s^T y / y^T D y of the newest pair (Nocedal & Wright 2006, eq. 7.20, with D for the identity), and is
updated from the ``memory`` newest pairs (s, y), kept as rows of S, Y (memory, n) in a ring whose newest row is
``newest``. Steps are found by backtracking on the Armijo condition with safeguarded quadratic interpolation; a
pair whose curvature s^T y is not positive is not kept. Sums are taken in four lanes (``kernels.sums``), so results
do not depend on the host's vector width or the thread count.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .jit import JIT
from .sums import lane_dot, lane_scaled_dot

ARMIJO = 1e-4  # sufficient decrease: f(x + a d) <= f(x) + ARMIJO a g^T d
SHRINK_MIN, SHRINK_MAX = 0.1, 0.5  # a backtracked step lies in [SHRINK_MIN a, SHRINK_MAX a]
CURVATURE_FLOOR = 1e-10  # a pair is kept when s^T y > CURVATURE_FLOOR y^T D y


@njit(**JIT)
def largest_magnitude(v):
    """max_i |v_i| of an (n,) array (0 when empty); NaN when an entry is NaN."""
    top = 0.0
    for x in v:
        size = abs(x)
        if size > top:
            top = size
        elif size != size:
            return np.nan
    return top


@njit(**JIT)
def _add_scaled(out, scale, v):
    """out += scale v over (n,) arrays, in place."""
    for i in range(out.size):
        out[i] += scale * v[i]


@njit(**JIT)
def direction(g, S, Y, rho, newest, count, inverse_scale, d, coeff):
    """d = -H g (n,) by the two-loop recursion over the ``count`` newest pairs of the ring S, Y (memory, n) with
    rho = 1 / s^T y (memory,); H0 = gamma diag(inverse_scale). coeff (memory,) is scratch."""
    memory = S.shape[0]
    for i in range(d.size):
        d[i] = -g[i]
    row = newest
    for _ in range(count):  # newest to oldest
        coeff[row] = rho[row] * lane_dot(S[row], d)
        _add_scaled(d, -coeff[row], Y[row])
        row = (row - 1) % memory
    gamma = 1.0
    if count > 0:
        gamma = 1.0 / (rho[newest] * lane_scaled_dot(Y[newest], inverse_scale, Y[newest]))
    for i in range(d.size):
        d[i] *= gamma * inverse_scale[i]
    row = (newest - count + 1) % memory
    for _ in range(count):  # oldest to newest
        _add_scaled(d, coeff[row] - rho[row] * lane_dot(Y[row], d), S[row])
        row = (row + 1) % memory


@njit(**JIT)
def keep_pair(S, Y, rho, newest, count, x_new, x, g_new, g, inverse_scale):
    """Store s = x_new - x and y = g_new - g (n,) as the ring's newest pair when its curvature is positive enough;
    returns (newest, count) after it. The pair is written into the row after ``newest``, the oldest one's when the
    ring is full: a pair not kept costs that oldest pair too (the count drops below ``memory``)."""
    memory = S.shape[0]
    row = (newest + 1) % memory
    s, y = S[row], Y[row]
    for i in range(s.size):
        s[i] = x_new[i] - x[i]
        y[i] = g_new[i] - g[i]
    sy = lane_dot(s, y)
    if not sy > CURVATURE_FLOOR * lane_scaled_dot(y, inverse_scale, y):
        return newest, min(count, memory - 1)
    rho[row] = 1.0 / sy
    return row, min(count + 1, memory)


@njit(**JIT)
def backtracked_step(step, f, slope, f_trial):
    """The next trial step after ``step`` failed the Armijo condition: the minimiser of the quadratic through
    f, the slope g^T d < 0 at 0 and f_trial at ``step``, kept within [SHRINK_MIN, SHRINK_MAX] x step."""
    curvature = f_trial - f - slope * step
    trial = SHRINK_MIN * step
    if curvature > 0.0:
        trial = -slope * step * step / (2.0 * curvature)
    return min(max(trial, SHRINK_MIN * step), SHRINK_MAX * step)


@njit(**JIT)
def relative_decrease(f, f_new):
    """(f - f_new) / max(|f|, |f_new|, 1): scipy's L-BFGS-B stopping measure (its ftol)."""
    return (f - f_new) / max(abs(f), abs(f_new), 1.0)
