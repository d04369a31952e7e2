"""Kernel of Spectral-D&S (Zhang, Chen, Zhou & Jordan 2014), a baseline of Ibrahim & Fu (2021): the robust tensor
power method with deflation (Anandkumar et al. 2014, Algorithm 1) on a symmetric (K, K, K) tensor. Serial, fixed
loop order; the random starts come from the caller."""
from __future__ import annotations

import numpy as np
from numba import njit

from ..jit import JIT


@njit(**JIT)
def _contract_into(T, v, out):
    """out[a] = T(I, v, v)[a] = sum_b (sum_c T[a, b, c] v_c) v_b."""
    K = v.size
    for a in range(K):
        total = 0.0
        for b in range(K):
            inner = 0.0
            for c in range(K):
                inner += T[a, b, c] * v[c]
            total += inner * v[b]
        out[a] = total


@njit(**JIT)
def _power_steps(T, v, steps, work):
    """v <- T(I, v, v) / ||T(I, v, v)||, ``steps`` times, in place (the norm floored at 1e-300)."""
    K = v.size
    for _ in range(steps):
        _contract_into(T, v, work)
        norm = 0.0
        for k in range(K):
            norm += work[k] * work[k]
        norm = max(np.sqrt(norm), 1e-300)
        for k in range(K):
            v[k] = work[k] / norm


@njit(**JIT)
def _rayleigh(T, v, work):
    """T(v, v, v)."""
    _contract_into(T, v, work)
    value = 0.0
    for k in range(v.size):
        value += v[k] * work[k]
    return value


@njit(**JIT)
def tensor_power_deflation(T, starts, steps):
    """Eigenvalues (K,) and eigenvectors (K, K) as columns of the symmetric T (K, K, K), each value made positive
    (T is odd in v). For each k: from each start starts[k, s] (L starts of K entries: starts (K, L, K)), ``steps``
    power iterations; the start with the largest |T(v, v, v)| is iterated ``steps`` more; then T is deflated by
    value v^(x3). T is not modified."""
    K, L = T.shape[0], starts.shape[1]
    T = T.copy()
    values, vectors = np.empty(K), np.empty((K, K))
    v, best_v, work = np.empty(K), np.empty(K), np.empty(K)
    for k in range(K):
        best = -np.inf
        best_v[:] = starts[k, 0]
        for s in range(L):
            v[:] = starts[k, s]
            norm = np.sqrt(np.sum(v * v))
            for i in range(K):
                v[i] /= norm
            _power_steps(T, v, steps, work)
            value = _rayleigh(T, v, work)
            if abs(value) > best:
                best = abs(value)
                for i in range(K):
                    best_v[i] = v[i] if value >= 0 else -v[i]
        v[:] = best_v
        _power_steps(T, v, steps, work)
        value = _rayleigh(T, v, work)
        sign = -1.0 if value < 0 else 1.0
        values[k] = sign * value
        for i in range(K):
            vectors[i, k] = sign * v[i]
        for a in range(K):
            for b in range(K):
                for c in range(K):
                    T[a, b, c] -= values[k] * (vectors[a, k] * vectors[b, k] * vectors[c, k])
    return values, vectors
