"""Root seeds and their SeedSequence trees, and the PCG64 sampler the project used before ``kernels.streams``.

Every random stream of a simulation is a child of a root ``SeedSequence`` (``as_seed_sequence``, ``fresh_seed``),
one per fixed-size chunk; the chunk count depends on the problem size only, never on the thread count, so output
is bit-identical for any ``NUMBA_NUM_THREADS``. Kernels draw from ``kernels.streams`` (xoshiro256++); ``generator``
gives the NumPy Generator for small serial draws of a model's parameters. ``pcg64_standard_normal`` (one PCG64
Generator per chunk, Numba's ``Generator.standard_normal``) is kept only as the benchmarks' reference sampler.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange
from numba.typed import List

from .jit import PARALLEL_JIT

N_SLOTS = 16  # fixed-order partial sums of streamed accumulations (independent of thread count)
DEFAULT_CHUNK = 1 << 18  # values per stream for array fills (2 MiB: spawning streams costs ~45 us each)


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def as_seed_sequence(seed) -> np.random.SeedSequence:
    """A root seed: an int >= 0, a SeedSequence or a non-empty sequence of ints >= 0; anything else (a bool, a
    float, a string, None) is refused with a ValueError."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if _is_int(seed):
        if seed < 0:
            raise ValueError(f"seed must be non-negative, got {seed}")
        return np.random.SeedSequence(int(seed))
    items = list(seed) if isinstance(seed, (list, tuple, np.ndarray)) else None
    if not items or not all(_is_int(v) and v >= 0 for v in items):
        raise ValueError(f"seed must be an integer >= 0, a SeedSequence or a non-empty sequence of integers >= 0, "
                         f"got {seed!r:.60}")
    return np.random.SeedSequence([int(v) for v in items])


def fresh_seed(seed) -> np.random.SeedSequence:
    """An unspawned copy of a root seed: its children are the ones the seed gave on its first spawn, so the same
    seed always yields the same streams however often it was spawned before."""
    root = as_seed_sequence(seed)
    return np.random.SeedSequence(root.entropy, spawn_key=root.spawn_key, pool_size=root.pool_size)


def children(seed: np.random.SeedSequence, count: int):
    """The children ``seed.spawn(count)`` gives, made one at a time, for loops that usually stop early (spawning
    a thousand children costs tens of milliseconds). Unlike ``spawn`` it does not advance the seed's count of
    children: use it on a seed spawned from only here."""
    for i in range(int(count)):
        yield np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, seed.n_children_spawned + i),
                                     pool_size=seed.pool_size)


def generator(seed) -> np.random.Generator:
    """A PCG64 Generator from any accepted root seed (for the serial draws of models and designs)."""
    return np.random.Generator(np.random.PCG64(as_seed_sequence(seed)))


def n_chunks(size: int, chunk: int) -> int:
    """Number of fixed-size chunks covering ``size`` items (at least one)."""
    return max(1, -(-int(size) // int(chunk)))


def pcg64_generators(seed, count: int) -> List:
    """``count`` independent PCG64 generators as a ``numba.typed.List``.

    Children are spawned from a fresh copy of the root so that the same seed always
    yields the same streams, however often it is used.
    """
    gens = List()
    for child in fresh_seed(seed).spawn(int(count)):
        gens.append(np.random.Generator(np.random.PCG64(child)))
    return gens


@njit(**PARALLEL_JIT)
def _fill_normal(gens, out, chunk):
    """out[j*chunk:(j+1)*chunk] from stream j: standard normals."""
    for jj in prange(len(gens)):
        j = np.int64(jj)
        g = gens[j]
        stop = min(out.size, (j + 1) * chunk)
        for i in range(j * chunk, stop):
            out[i] = g.standard_normal()


def check_shape(size, chunk: int) -> tuple[int, ...]:
    """``size`` (an int or a tuple of ints, each >= 0) as a shape; ValueError for anything else, or for a
    ``chunk`` that is not an integer >= 1."""
    shape = (size,) if _is_int(size) else tuple(size) if isinstance(size, (tuple, list)) else None
    if shape is None or not all(_is_int(s) and s >= 0 for s in shape):
        raise ValueError(f"size must be an integer >= 0 or a tuple of them, got {size!r:.60}")
    if not (_is_int(chunk) and chunk >= 1):
        raise ValueError(f"chunk must be an integer >= 1, got {chunk!r:.60}")
    return tuple(int(s) for s in shape)


def pcg64_standard_normal(seed, size, chunk: int = DEFAULT_CHUNK) -> np.ndarray:
    """Standard normals of shape ``size`` from PCG64 Generators, one per chunk, filled in parallel (the reference
    sampler of the benchmarks; simulations draw with ``kernels.streams``)."""
    shape = check_shape(size, chunk)
    out = np.empty(int(np.prod(shape)))
    _fill_normal(pcg64_generators(seed, n_chunks(out.size, chunk)), out, chunk)
    return out.reshape(shape)
