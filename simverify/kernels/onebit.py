"""The single-label one-bit instance stream of Qiu et al. (2017) (Eq. 2-3, Section 5.1) and the
sums that Algorithm 1 and its checks take over it.

The stream is defined once, by ``draw_instance``: instance i belongs to chunk i // INSTANCE_CHUNK,
whose stream (``kernels.streams``, a row of xoshiro256++ state) draws, instance after instance,
x_i (d1 normals), the label index j_i (uniform in 0..d2-1), one normal z_i for the Gaussian noise
inside the sign and one uniform u_i for the adversarial flip. All four are drawn whatever the
noise levels, so one seed gives the same instances for every noise model and every consumer
(Algorithm 1, LEML, the lemma checks).
The observed bit is y_i = sign(<x_i, W*_j> + xi z_i), negated when u_i < p, with sign(0) = 1.

Matrices enter transposed, row j = column j of the paper's d1 x d2 matrix (W^T is (d2, d1)),
so that a label's column is contiguous. Nothing of size m x d1 is stored: each chunk reuses
one x buffer.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from .jit import JIT, PARALLEL_JIT
from .streams import next_below, next_normal, next_uniform, normal_block

INSTANCE_CHUNK = 1024  # instances per random stream; fixed, so results never depend on threads


@njit(**JIT)
def sign(v):
    """sign(v) with sign(0) = 1 (Section 2.1)."""
    return 1.0 if v >= 0.0 else -1.0


@njit(**JIT)
def draw_instance(g, x, d2):
    """Fill x (d1,) with N(0, 1) from the stream g (4,) uint64 and return (j, z, u): label index, noise normal,
    flip uniform."""
    normal_block(g, x)
    j = next_below(g, d2)
    z = next_normal(g)
    u = next_uniform(g)
    return j, z, u


@njit(**JIT)
def add_scaled(out, r, x):
    """out += r x, element by element (the same arithmetic as ``out += r * x`` without its temporary array,
    which was allocated once per instance)."""
    for a in range(x.size):
        out[a] += r * x[a]


@njit(**JIT)
def observed_bit(x, wt_star, j, z, u, xi, flip):
    """y = sign(<x, W*_j> + xi z) (Eq. 2, Section 5.1 random noise), negated when u < flip."""
    y = sign(np.dot(x, wt_star[j]) + xi * z)
    return -y if u < flip else y


@njit(**JIT)
def residual_chunk(g, wt_star, wt, xi, flip, subtract, count, x, acc):
    """acc (d2, d1) += sum over ``count`` instances of (y_i - s_i) x_i e_{j_i}^T, transposed, with
    s_i = sign(<x_i, W_j>) when ``subtract`` (A'(y - sign(A(W))) without the sqrt(d2) of e_bar),
    else s_i = 0 (A'(y))."""
    d2 = wt_star.shape[0]
    for _ in range(count):
        j, z, u = draw_instance(g, x, d2)
        r = observed_bit(x, wt_star, j, z, u, xi, flip)
        if subtract:
            r -= sign(np.dot(x, wt[j]))
        if r != 0.0:
            add_scaled(acc[j], r, x)


@njit(**PARALLEL_JIT)
def residual_slots(states, wt_star, wt, xi, flip, subtract, m, chunk, n_slots):
    """Partial sums (n_slots, d2, d1) of ``residual_chunk`` over the first m instances, slot s
    holding chunks s, s + n_slots, ... in order (the layout never depends on the thread count)."""
    d2, d1 = wt_star.shape
    out = np.zeros((n_slots, d2, d1))
    for s in prange(n_slots):
        x = np.empty(d1)
        for c in range(s, states.shape[0], n_slots):
            residual_chunk(states[c], wt_star, wt, xi, flip, subtract, min(chunk, m - c * chunk), x, out[s])
    return out


@njit(**PARALLEL_JIT)
def instance_block(states, wt_star, xi, flip, m, chunk):
    """The first m instances materialised: X (m, d1), label indices (m,), bits y (m,) and the
    noise-free bits (m,); the same draws as ``residual_slots`` (for baselines and tests)."""
    d2, d1 = wt_star.shape
    X = np.empty((m, d1))
    labels = np.empty(m, dtype=np.int64)
    y = np.empty(m)
    clean = np.empty(m)
    for cc in prange(states.shape[0]):
        c = np.int64(cc)
        for i in range(c * chunk, min(m, (c + 1) * chunk)):
            j, z, u = draw_instance(states[c], X[i], d2)
            labels[i] = j
            y[i] = observed_bit(X[i], wt_star, j, z, u, xi, flip)
            clean[i] = sign(np.dot(X[i], wt_star[j]))
    return X, labels, y, clean


@njit(**PARALLEL_JIT)
def sign_difference_moments(states, w, w2, n, chunk):
    """Per-chunk sums over n Gaussian g (d,) of |sign<g, w> - sign<g, w2>|^2 times g g^T and
    times ||g||^2 (Lemma 2): (n_chunks, d, d) and (n_chunks,)."""
    d = w.size
    outer = np.zeros((states.shape[0], d, d))
    norm2 = np.zeros(states.shape[0])
    for cc in prange(states.shape[0]):
        c = np.int64(cc)
        g = np.empty(d)
        for _ in range(min(chunk, n - c * chunk)):
            normal_block(states[c], g)
            diff = sign(np.dot(g, w)) - sign(np.dot(g, w2))
            if diff != 0.0:
                f = diff * diff
                norm2[c] += f * np.dot(g, g)
                for a in range(d):
                    for b in range(d):
                        outer[c, a, b] += f * g[a] * g[b]
    return outer, norm2


@njit(**JIT)
def full_observation_chunk(g, X, Y, wt, count, acc):
    """acc (d2, d1) += sum over ``count`` pairs (i, j) drawn uniformly (i in 0..n-1, then j in 0..d2-1) of
    (Y_ij - sign(<x_i, W_j>)) x_i e_j^T, transposed (Section 5.2: labels sampled from a fully labelled set)."""
    n, d2 = Y.shape
    for _ in range(count):
        i = next_below(g, n)
        j = next_below(g, d2)
        r = Y[i, j] - sign(np.dot(X[i], wt[j]))
        if r != 0.0:
            add_scaled(acc[j], r, X[i])


@njit(**PARALLEL_JIT)
def full_observation_slots(states, X, Y, wt, m, chunk, n_slots):
    """Partial sums (n_slots, d2, d1) of ``full_observation_chunk`` over m sampled pairs, slot s holding
    chunks s, s + n_slots, ... in order."""
    d2, d1 = wt.shape
    out = np.zeros((n_slots, d2, d1))
    for s in prange(n_slots):
        for c in range(s, states.shape[0], n_slots):
            full_observation_chunk(states[c], X, Y, wt, min(chunk, m - c * chunk), out[s])
    return out
