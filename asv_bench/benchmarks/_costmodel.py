"""The cost model shared by the benchmarks (not a benchmark module: asv skips names starting with _).

Goals are ratios within one run, never absolute times: fractions of a cost-model limit
(track_fraction_of_limit_*: limit time / measured time, 1.0 means the kernel runs at the limit)
and speedups over the NumPy reference (paired time_ours_* / time_numpy_* benchmarks).
The model's rates are measured here on the running machine:
- normal generation, ns per normal, on 1 thread and on all Numba threads: ``normal_*`` by ``kernels.streams``
  (xoshiro256++ streams, the block ziggurat: every paper's kernels draw with it) and ``pcg64_*`` by the sampler the
  project used before (``rng.pcg64_standard_normal``, Numba's Generator.standard_normal on PCG64), measured beside
  it in the same run;
- single-thread dgemm, flops/s, NumPy with BLAS pinned to one thread at the surrogate's chunk
  shape (2048 x 100)^T (2048 x 100).
Limits: surrogate = 2 m n normals at the all-thread RNG rate + 2 m n^2 flops at the dgemm rate
divided over the threads; complex surrogate = 4 m n normals + 8 m n^2 real flops (zgemm);
RNG = the one-thread rate divided by the thread count (perfect scaling); tracker (sequential,
one thread) = 2 n normals + 8 n r + 16 n + 2 n r (r + 2) + 10 (r + 2)^3 flops per sensor.
Measurements on a 2-core machine shared with other jobs are noisy (+-15% run to run): each
timing is the best of several runs.

The streams' ziggurat measured 3-5 ns per normal on one thread of the 2 GHz EPYC machines against 5-16 ns for
Generator.standard_normal called per value from Numba (hosts of one type differ up to 3x).
"""
import time
from functools import cache

import numba
import numpy as np
from threadpoolctl import threadpool_limits

from simverify.kernels import rng, streams

N_NORMALS = 10_000_000


def _best(fn, repeat=3):
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def surrogate_numpy_reference(F, m, seed, batch=4096):
    """Batched NumPy: default_rng normals, energies, J += A^T diag(y) A - B^T diag(y) B."""
    g = np.random.default_rng(seed)
    n = F.shape[0]
    J = np.zeros((n, n))
    for s in range(0, m, batch):
        c = min(batch, m - s)
        A, B = g.standard_normal((c, n)), g.standard_normal((c, n))
        y = np.where(((A @ F) ** 2).sum(1) > ((B @ F) ** 2).sum(1), 1.0, -1.0)
        J += (A * y[:, None]).T @ A - (B * y[:, None]).T @ B
    return J / m


def _normal_rates(fill) -> tuple[float, float]:
    """s per normal of ``fill(seed, size)`` on one thread and on all Numba threads."""
    fill(0, 10)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        one = _best(lambda: fill(1, N_NORMALS), 5) / N_NORMALS
    finally:
        numba.set_num_threads(threads)
    return one, _best(lambda: fill(1, N_NORMALS), 5) / N_NORMALS


@cache
def rates() -> dict:
    """Measured model rates: s per normal (1 thread, all threads) of the streams' ziggurat (``normal_*``) and of
    the old PCG64 sampler (``pcg64_*``), dgemm flops/s (1 thread)."""
    one, all_threads = _normal_rates(streams.standard_normal)
    pcg_one, pcg_all = _normal_rates(rng.pcg64_standard_normal)
    A = np.random.default_rng(0).standard_normal((2048, 100))
    with threadpool_limits(1, user_api="blas"):
        gemm = _best(lambda: [A.T @ A for _ in range(20)], 5) / 20
    return {"threads": numba.get_num_threads(), "normal_1": one, "normal_all": all_threads, "pcg64_1": pcg_one,
            "pcg64_all": pcg_all, "dgemm": 2 * 2048 * 100 ** 2 / gemm}


def surrogate_limit(n: int, m: int, complex_sketches: bool = False) -> float:
    """Cost-model time (s) of J at (n, m): normals at the all-thread rate, GEMM flops over the threads."""
    r = rates()
    normals, flops = (4 * m * n, 8 * m * n * n) if complex_sketches else (2 * m * n, 2 * m * n * n)
    return normals * r["normal_all"] + flops / (r["dgemm"] * r["threads"])


def tracker_limit(n: int, r: int, m: int) -> float:
    """Cost-model time (s) of m sequential rank-two updates on one thread."""
    rt = rates()
    flops = 8 * n * r + 16 * n + 2 * n * r * (r + 2) + 10 * (r + 2) ** 3
    return m * (2 * n * rt["normal_1"] + flops / rt["dgemm"])
