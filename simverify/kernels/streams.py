"""The project's one family of random streams: xoshiro256++ states, one per fixed-size chunk of a simulation.

A stream is a row of four uint64 words (its xoshiro256++ state, Blackman and Vigna 2019), seeded from a child of a
root SeedSequence, one row per fixed-size chunk (results never depend on the thread count; the same seed always
gives the same rows). Every kernel that draws at volume takes such rows and draws with the functions below, which
advance the row in place:

- ``next_uint64`` raw 64 bits; ``next_uniform`` the top 53 bits as a double in [0, 1);
- ``next_below(state, n)`` an integer uniform on 0..n-1 (the uniform scaled: bias below n / 2^53);
- ``next_normal`` a standard normal by the 256-layer ziggurat (Marsaglia and Tsang 2000, NumPy's tables and bit
  layout: 8 bits choose the layer, 1 the sign, 52 the abscissa; the tail beyond r = 3.654... by Marsaglia's
  method);
- ``next_exponential`` Exp(1) by inversion; ``next_gamma(state, a)`` Gamma(a, 1) by Marsaglia and Tsang's (2000)
  squeeze (a < 1 boosted by U^(1/a)); chi-square(T) is 2 Gamma(T/2), Dirichlet normalised gammas;
- ``normal_block`` / ``uniform_block`` fill a whole array with the state in registers (the fastest way to draw).

On the machines of this project a block normal costs 2-3 ns against 5-16 ns for Numba's
``Generator.standard_normal`` on PCG64, whose state lives behind a pointer (``kernels.rng.pcg64_standard_normal``
keeps that sampler as the benchmarks' reference). Small serial draws of a model's parameters in Python use NumPy's
Generator (``rng.generator``) from the same SeedSequence tree.
"""
from __future__ import annotations

import math

import numpy as np
from numba import float64, njit, prange, uint64

from .jit import JIT, PARALLEL_JIT
from .rng import DEFAULT_CHUNK, check_shape, fresh_seed, n_chunks

ZIGGURAT_R = 3.6541528853610088  # start of the tail (the rightmost layer's edge)
_AREA = 4.92867323399e-3  # the area of each layer


def ziggurat_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(k (256,) uint64 acceptance bounds on the 52-bit abscissa, w (256,) abscissa scales, f (256,) the density
    exp(-x^2/2) at each layer's edge), Marsaglia and Tsang's recurrence for 256 layers of equal area."""
    m = float(2 ** 52)
    dn = tn = ZIGGURAT_R
    k, w, f = np.zeros(256, np.uint64), np.zeros(256), np.zeros(256)
    q = _AREA / math.exp(-0.5 * dn * dn)
    k[0] = np.uint64((dn / q) * m)
    w[0], w[255] = q / m, dn / m
    f[0], f[255] = 1.0, math.exp(-0.5 * dn * dn)
    for i in range(254, 0, -1):
        dn = math.sqrt(-2.0 * math.log(_AREA / dn + math.exp(-0.5 * dn * dn)))
        k[i + 1] = np.uint64((dn / tn) * m)
        tn = dn
        f[i] = math.exp(-0.5 * dn * dn)
        w[i] = dn / m
    return k, w, f


_K, _W, _F = ziggurat_tables()  # frozen into the compiled kernels as constants


def stream_states(seed, count: int) -> np.ndarray:
    """(count, 4) uint64: the xoshiro256++ states of ``count`` independent streams, one per SeedSequence child
    (children of a fresh copy of the root: the same seed always gives the same streams). A new array on every call
    (the kernels advance states in place); the states of recent seeds are remembered, since a fixed training set
    is streamed again from its seed at every iteration."""
    if not (isinstance(count, (int, np.integer)) and not isinstance(count, bool) and count >= 0):
        raise ValueError(f"the number of streams must be an integer >= 0, got {count!r:.60}")
    root = fresh_seed(seed)
    key = (repr(root.entropy), tuple(root.spawn_key), root.pool_size, int(count))
    if key not in _STATES:
        if len(_STATES) >= 256:
            _STATES.clear()
        _STATES[key] = _initial_states(root, int(count))
    return _STATES[key].copy()


_STATES: dict = {}  # recent seeds' initial states (read-only arrays)


def _initial_states(fresh: np.random.SeedSequence, count: int) -> np.ndarray:
    if count <= 0:
        return np.zeros((0, 4), np.uint64)
    states = np.stack([child.generate_state(4, np.uint64) for child in fresh.spawn(count)])
    if (~states.any(axis=1)).any():  # the all-zero state is xoshiro's one fixed point
        raise ValueError("a stream's seed state is all zero; use another seed")
    states.flags.writeable = False
    return states


@njit(inline="always")
def _rotl(x, k):
    return (x << uint64(k)) | (x >> uint64(64 - k))


@njit(inline="always")
def _step(s0, s1, s2, s3):
    """One xoshiro256++ output and the next state (Blackman and Vigna 2019)."""
    result = _rotl(s0 + s3, 23) + s0
    t = s1 << uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    return result, s0, s1, s2, _rotl(s3, 45)


@njit(inline="always")
def _unit(r):
    """The top 53 bits of r as a double in [0, 1)."""
    return float64(r >> uint64(11)) * (1.0 / 9007199254740992.0)


@njit(**JIT)
def next_uint64(state):
    """The next raw output of the stream ``state`` (4,) uint64, advanced in place."""
    r, state[0], state[1], state[2], state[3] = _step(state[0], state[1], state[2], state[3])
    return r


@njit(**JIT)
def uniform_block(state, out):
    """Fill out (m,) with uniforms on [0, 1) from the stream ``state`` (4,) uint64, advanced in place."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    for i in range(out.size):
        r, s0, s1, s2, s3 = _step(s0, s1, s2, s3)
        out[i] = _unit(r)
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3


@njit(inline="always")
def _normal(s0, s1, s2, s3):
    """One ziggurat normal and the next state, the state in registers."""
    while True:
        r, s0, s1, s2, s3 = _step(s0, s1, s2, s3)
        layer = r & uint64(0xFF)
        r >>= uint64(8)
        sign = 1.0 - 2.0 * float64(r & uint64(1))  # no branch: the sign bit is a coin flip
        rabs = (r >> uint64(1)) & uint64(0x000FFFFFFFFFFFFF)
        x = float64(rabs) * _W[layer] * sign
        if rabs < _K[layer]:  # inside the layer's rectangle (about 99% of draws)
            return x, s0, s1, s2, s3
        if layer == 0:  # the tail |x| > r (Marsaglia 1964)
            while True:
                u, s0, s1, s2, s3 = _step(s0, s1, s2, s3)
                v, s0, s1, s2, s3 = _step(s0, s1, s2, s3)
                xx = -math.log1p(-_unit(u)) / ZIGGURAT_R
                if -2.0 * math.log1p(-_unit(v)) > xx * xx:
                    return (ZIGGURAT_R + xx) * sign, s0, s1, s2, s3
        # the wedge between the rectangle and the density
        u, s0, s1, s2, s3 = _step(s0, s1, s2, s3)
        if (_F[layer - 1] - _F[layer]) * _unit(u) + _F[layer] < math.exp(-0.5 * x * x):
            return x, s0, s1, s2, s3


@njit(**JIT)
def normal_block(state, out):
    """Fill out (m,) with standard normals (ziggurat) from the stream ``state`` (4,) uint64, advanced in place.
    The ziggurat of ``_normal`` written out in the fill loop: calling the shared helper here measured 35 % slower
    per normal (the test suite checks that both give the same draws)."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    i = 0
    while i < out.size:
        r, s0, s1, s2, s3 = _step(s0, s1, s2, s3)
        layer = r & uint64(0xFF)
        r >>= uint64(8)
        sign = 1.0 - 2.0 * float64(r & uint64(1))
        rabs = (r >> uint64(1)) & uint64(0x000FFFFFFFFFFFFF)
        x = float64(rabs) * _W[layer] * sign
        if rabs < _K[layer]:
            out[i] = x
            i += 1
        elif layer == 0:
            while True:
                u, s0, s1, s2, s3 = _step(s0, s1, s2, s3)
                v, s0, s1, s2, s3 = _step(s0, s1, s2, s3)
                xx = -math.log1p(-_unit(u)) / ZIGGURAT_R
                if -2.0 * math.log1p(-_unit(v)) > xx * xx:
                    out[i] = (ZIGGURAT_R + xx) * sign
                    i += 1
                    break
        else:
            u, s0, s1, s2, s3 = _step(s0, s1, s2, s3)
            if (_F[layer - 1] - _F[layer]) * _unit(u) + _F[layer] < math.exp(-0.5 * x * x):
                out[i] = x
                i += 1
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3


@njit(**JIT)
def next_normal(state):
    """One standard normal from the stream ``state`` (4,) uint64, advanced in place (the draw of ``normal_block``)."""
    x, state[0], state[1], state[2], state[3] = _normal(state[0], state[1], state[2], state[3])
    return x


@njit(**JIT)
def next_uniform(state):
    """One uniform on [0, 1) from ``state`` (4,) uint64 (the draw of ``uniform_block``)."""
    return _unit(next_uint64(state))


@njit(**JIT)
def next_below(state, n):
    """An integer uniform on 0..n-1 (n >= 1) from one draw: floor(U n), U with 53 bits (bias below n / 2^53)."""
    return min(np.int64(_unit(next_uint64(state)) * n), np.int64(n) - 1)


@njit(**JIT)
def next_exponential(state):
    """Exp(1) by inversion, -log(1 - U): finite, since 1 - U >= 2^-53."""
    return -math.log1p(-next_uniform(state))


@njit(**JIT)
def next_gamma(state, a):
    """Gamma(a, 1), a > 0: Marsaglia and Tsang (2000) for a >= 1 (one normal and one uniform per trial, about
    1.02 trials); for a < 1, U^(1/a) (drawn first) times Gamma(a + 1)."""
    boost = 1.0
    if a < 1.0:
        boost = next_uniform(state) ** (1.0 / a)
        a += 1.0
    d = a - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = next_normal(state)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = next_uniform(state)
        if u < 1.0 - 0.0331 * (x * x) * (x * x) or math.log(u) < 0.5 * x * x + d * (1.0 - v + math.log(v)):
            return d * v * boost


@njit(**JIT)
def next_chi_square(state, dof):
    """A chi-square variate with ``dof`` > 0 degrees of freedom: 2 Gamma(dof / 2)."""
    return 2.0 * next_gamma(state, 0.5 * dof)


@njit(**PARALLEL_JIT)
def _fill_normal(states, out, chunk):
    """out[j*chunk:(j+1)*chunk] from stream j."""
    for jj in prange(states.shape[0]):
        j = np.int64(jj)
        normal_block(states[j], out[j * chunk:min(out.size, (j + 1) * chunk)])


def standard_normal(seed, size, chunk: int = DEFAULT_CHUNK) -> np.ndarray:
    """Standard normals of shape ``size`` from the ziggurat streams, filled in parallel, one stream per chunk."""
    shape = check_shape(size, chunk)
    out = np.empty(int(np.prod(shape)))
    _fill_normal(stream_states(seed, n_chunks(out.size, chunk)), out, chunk)
    return out.reshape(shape)
