"""One central place for Numba compilation options (DESIGN.md, "Numba kernels").

No fastmath: flags such as ``nnan``/``ninf`` silently break NaN handling, and the
gains measured on these kernels were within noise.
"""
JIT = dict(cache=True, nogil=True)
PARALLEL_JIT = dict(cache=True, nogil=True, parallel=True)
