"""The cost model shared by the benchmarks (not a benchmark module: asv skips names starting with _).

Goals are ratios within one run, never absolute times: fractions of a cost-model limit
(track_fraction_of_limit_*: limit time / measured time, 1.0 means the kernel runs at the limit)
and speedups over the NumPy reference (paired time_ours_* / time_numpy_* benchmarks).
The model's rates are measured here on the running machine:
- normal generation by the RNG kernels, ns per normal, on 1 thread and on all Numba threads: ``rng`` (PCG64
  streams, Numba's Generator.standard_normal; bitsubspace, onebit) and ``ziggurat`` (xoshiro256++ streams, the
  block ziggurat; slm's instance stream);
- single-thread dgemm, flops/s, NumPy with BLAS pinned to one thread at the surrogate's chunk
  shape (2048 x 100)^T (2048 x 100).
Limits: surrogate = 2 m n normals at the all-thread RNG rate + 2 m n^2 flops at the dgemm rate
divided over the threads; complex surrogate = 4 m n normals + 8 m n^2 real flops (zgemm);
RNG = the one-thread rate divided by the thread count (perfect scaling); tracker (sequential,
one thread) = 2 n normals + 8 n r + 16 n + 2 n r (r + 2) + 10 (r + 2)^3 flops per sensor.
Measurements on a 2-core machine shared with other jobs are noisy (+-15% run to run): each
timing is the best of several runs.

The ziggurat sampler (kernels/ziggurat.py) measured about 5 ns per normal on one thread of the 2 GHz
EPYC machine against about 16 ns for Generator.standard_normal called per value from Numba (on an earlier
machine the gap was 12%); slm's kernels use it, the older papers keep their PCG64 streams.
"""
import time
from functools import cache

import numba
import numpy as np
from threadpoolctl import threadpool_limits

from simverify.kernels import rng, ziggurat

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


def _normal_rates(kernel) -> tuple[float, float]:
    """s per normal of ``kernel.standard_normal`` on one thread and on all Numba threads."""
    kernel.standard_normal(0, 10)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        one = _best(lambda: kernel.standard_normal(1, N_NORMALS), 5) / N_NORMALS
    finally:
        numba.set_num_threads(threads)
    return one, _best(lambda: kernel.standard_normal(1, N_NORMALS), 5) / N_NORMALS


@cache
def rates() -> dict:
    """Measured model rates: s per normal (1 thread, all threads) of the PCG64 kernel (``normal_*``) and of the
    ziggurat kernel (``ziggurat_*``), dgemm flops/s (1 thread)."""
    one, all_threads = _normal_rates(rng)
    zig_one, zig_all = _normal_rates(ziggurat)
    A = np.random.default_rng(0).standard_normal((2048, 100))
    with threadpool_limits(1, user_api="blas"):
        gemm = _best(lambda: [A.T @ A for _ in range(20)], 5) / 20
    return {"threads": numba.get_num_threads(), "normal_1": one, "normal_all": all_threads, "ziggurat_1": zig_one,
            "ziggurat_all": zig_all, "dgemm": 2 * 2048 * 100 ** 2 / gemm}


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
