"""A naive reference of ``simverify.kernels.streams`` in plain Python: xoshiro256++ on Python integers (Blackman
and Vigna's C code line by line), the ziggurat, inversion, Marsaglia-Tsang gammas.

``ReferenceStream`` has the method names of a NumPy Generator (``standard_normal``, ``random``, ``integers``,
``standard_exponential``, ``standard_gamma``), so a kernel's naive reference written against a Generator reads
the same against a stream. Slow (microseconds per draw): for tests on small sizes.
"""
from __future__ import annotations

import math

import numpy as np

from simverify.kernels import streams

MASK = (1 << 64) - 1
_K, _W, _F = streams.ziggurat_tables()


def _rotl(x: int, k: int) -> int:
    return ((x << k) | (x >> (64 - k))) & MASK


class ReferenceStream:
    """One stream from a row (4,) uint64 of ``streams.stream_states`` (copied: the row is not advanced)."""

    def __init__(self, state):
        self.s = [int(v) for v in state]

    def next_uint64(self) -> int:
        s = self.s
        out = (_rotl((s[0] + s[3]) & MASK, 23) + s[0]) & MASK
        t = (s[1] << 17) & MASK
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = _rotl(s[3], 45)
        return out

    def random(self) -> float:
        return (self.next_uint64() >> 11) / 2.0 ** 53

    def integers(self, low: int, high: int) -> int:
        assert low == 0
        return min(int(self.random() * high), high - 1)

    def standard_exponential(self) -> float:
        return -math.log1p(-self.random())

    def standard_normal(self, size=None):
        """One normal, or an array of shape ``size`` filled in row-major order."""
        if size is not None:
            return np.array([self._normal() for _ in range(int(np.prod(size)))]).reshape(size)
        return self._normal()

    def _normal(self) -> float:
        while True:
            r = self.next_uint64()
            layer, r = r & 0xFF, r >> 8
            sign = 1.0 - 2.0 * (r & 1)
            rabs = (r >> 1) & 0x000FFFFFFFFFFFFF
            x = float(rabs) * float(_W[layer]) * sign
            if rabs < int(_K[layer]):
                return x
            if layer == 0:
                while True:
                    xx = -math.log1p(-self.random()) / streams.ZIGGURAT_R
                    if -2.0 * math.log1p(-self.random()) > xx * xx:
                        return (streams.ZIGGURAT_R + xx) * sign
            if (float(_F[layer - 1]) - float(_F[layer])) * self.random() + float(_F[layer]) < math.exp(-0.5 * x * x):
                return x

    def standard_gamma(self, a: float) -> float:
        boost = 1.0
        if a < 1.0:
            boost = self.random() ** (1.0 / a)
            a += 1.0
        d = a - 1.0 / 3.0
        c = 1.0 / math.sqrt(9.0 * d)
        while True:
            x = self._normal()
            v = 1.0 + c * x
            if v <= 0.0:
                continue
            v = v * v * v
            u = self.random()
            if u < 1.0 - 0.0331 * (x * x) * (x * x) or math.log(u) < 0.5 * x * x + d * (1.0 - v + math.log(v)):
                return d * v * boost

    def chisquare(self, dof: float) -> float:
        return 2.0 * self.standard_gamma(0.5 * dof)


def reference_streams(seed, count: int) -> list[ReferenceStream]:
    """``count`` reference streams of ``streams.stream_states(seed, count)``."""
    return [ReferenceStream(row) for row in streams.stream_states(seed, count)]
