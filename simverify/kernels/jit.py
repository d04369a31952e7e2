"""One central place for Numba compilation options (docs/adding-a-paper.md, "Kernels").

No fastmath: flags such as ``nnan``/``ninf`` silently break NaN handling, and the
gains measured on these kernels were within noise.
"""
import os

JIT = {"cache": True, "nogil": True}
PARALLEL_JIT = {"cache": True, "nogil": True, "parallel": True}

_BLAS_CONTROLLER = None
FIT_THREADS = min(2, os.cpu_count() or 1)  # independent fits run at once (cross-validation; the results do not
# depend on the count: each fit is placed by its index)


def one_blas_thread():
    """Context manager: BLAS limited to one thread while a parallel kernel runs (nested
    BLAS threads were measured 3x slower). The shared-library scan behind it (~1 ms) is
    done once per process, not per call."""
    global _BLAS_CONTROLLER
    if _BLAS_CONTROLLER is None:
        import scipy.linalg.cython_blas  # noqa: F401  the BLAS Numba's np.dot calls, loaded before the scan
        from threadpoolctl import ThreadpoolController
        _BLAS_CONTROLLER = ThreadpoolController()
    return _BLAS_CONTROLLER.limit(limits=1, user_api="blas")
