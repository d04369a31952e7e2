"""What of the host can shift a floating-point result between machines running the same code and seeds:
the CPU's vector instruction sets (BLAS and LLVM pick kernels by them), the BLAS libraries loaded, their
versions, the kernels they chose (OpenBLAS's core type) and their thread counts, Numba's threads and
threading layer, llvmlite's version and the environment variables that override these choices.

Recorded in every verdict record's provenance (``simverify.provenance.provenance``) and shown on the report's
provenance block (docs/report.md)."""
from __future__ import annotations

import functools
import os
import platform
from collections.abc import MutableMapping
from pathlib import Path

# the CPU flags that change which kernels BLAS and LLVM run (and so the order of floating-point sums)
NUMERIC_FLAGS = ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512dq", "avx512vl", "avx512_bf16", "amx_tile",
                 "asimd", "sve")
# environment variables that select BLAS kernels or thread counts
ENVIRONMENT = ("OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
               "MKL_ENABLE_INSTRUCTIONS", "MKL_CBWR", "NUMBA_NUM_THREADS", "NUMBA_THREADING_LAYER", "NUMBA_CPU_NAME",
               "NUMBA_CPU_FEATURES", "NPY_DISABLE_CPU_FEATURES")


PINNED_CORETYPE = "Haswell"  # OpenBLAS's AVX2 + FMA kernels, which every x86-64 host with AVX2 and FMA can run
PINNED_HERE = False  # whether this process set OPENBLAS_CORETYPE (not the user)


def _cpu_flag_set() -> set[str]:
    """The CPU's flags from /proc/cpuinfo (empty where it cannot be read)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("flags", "Features")):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def pin_blas_kernels(environ: MutableMapping[str, str] = os.environ) -> None:
    """Set OPENBLAS_CORETYPE to PINNED_CORETYPE on an x86-64 host with AVX2 and FMA, unless it is set: OpenBLAS
    loaded afterwards (in this process before NumPy's import, in worker processes started afterwards) runs the same
    kernels on Intel and AMD hosts alike. Without it OpenBLAS picks by CPU (SkylakeX on an AVX-512 Xeon, Haswell or
    SkylakeX on an AVX-512 EPYC, from one session to the next), and three TREC error counts of the crowd paper
    differed by one or two items between the two (docs/cli.md, "The same bits on any host")."""
    global PINNED_HERE
    if environ.get("OPENBLAS_CORETYPE", "").strip() or platform.machine() not in ("x86_64", "AMD64"):
        return
    if {"avx2", "fma"} <= _cpu_flag_set():
        environ["OPENBLAS_CORETYPE"] = PINNED_CORETYPE
        PINNED_HERE = environ is os.environ


def unpinned_kernels() -> list[str]:
    """The core types of the OpenBLAS libraries loaded in this process that differ from the pinned kernels, when
    this process pinned them: libraries loaded before pin_blas_kernels ran (NumPy imported before simverify).
    Empty when none differ, or when the user chose the kernels (their names need not be the core type's)."""
    wanted = os.environ.get("OPENBLAS_CORETYPE", "").strip().lower()
    if not (PINNED_HERE and wanted):
        return []
    from threadpoolctl import threadpool_info
    return sorted({str(i.get("architecture")) for i in threadpool_info()
                   if i.get("internal_api") == "openblas" and str(i.get("architecture", "")).lower() != wanted})


def cpu_flags() -> str:
    """The numerically relevant CPU flags present, in NUMERIC_FLAGS order, and the absent x86 ones
    ("avx2 fma; no avx512f"); "not recorded" where /proc/cpuinfo cannot be read."""
    flags = _cpu_flag_set()
    if not flags:
        return "not recorded"
    present = [f for f in NUMERIC_FLAGS if f in flags]
    absent = [f for f in ("avx2", "fma", "avx512f") if f not in flags] if platform.machine() in ("x86_64", "AMD64") \
        else []
    return " ".join(present) + (f"; no {' '.join(absent)}" if absent else "")


def blas_libraries() -> list[dict]:
    """threadpoolctl's view of the BLAS and OpenMP libraries loaded after NumPy and SciPy's BLAS: per library
    its API, implementation, version, core type (OpenBLAS's ``architecture``), threading layer, threads and
    file name (not its path)."""
    import scipy.linalg  # noqa: F401  SciPy's own BLAS, loaded before the scan
    from threadpoolctl import threadpool_info
    keep = ("user_api", "internal_api", "version", "architecture", "threading_layer", "num_threads")
    return [{**{k: info.get(k) for k in keep}, "library": Path(info.get("filepath") or "").name}
            for info in threadpool_info()]


def blas_summary(libraries: list[dict]) -> str:
    """One line: per library 'openblas 0.3.30 (SkylakeX, pthreads, 2 threads; libscipy_openblas-...so)'."""
    parts = []
    for lib in libraries:
        inside = ", ".join(str(v) for v in (lib.get("architecture"), lib.get("threading_layer")) if v)
        threads = f"{lib.get('num_threads')} threads"
        parts.append(f"{lib.get('internal_api')} {lib.get('version') or '?'} "
                     f"({', '.join(x for x in (inside, threads) if x)}; {lib.get('library')})")
    return "; ".join(parts) or "none found"


def numba_threads() -> str:
    """Numba's thread count and threading layer (the configured one until a parallel kernel has run)."""
    import numba
    try:
        layer = numba.threading_layer()
    except Exception:  # not initialised before the first parallel kernel
        layer = f"{numba.config.THREADING_LAYER} (configured; not yet started)"
    return f"{numba.config.NUMBA_NUM_THREADS} threads, threading layer {layer}"


@functools.lru_cache(maxsize=1)
def numerics() -> dict:
    """The host facts above, flat (strings, for the report's provenance block) plus the BLAS libraries in
    full (``blas_libraries``); read once per process."""
    import llvmlite
    libraries = blas_libraries()
    env = {k: os.environ[k] for k in ENVIRONMENT if k in os.environ}
    return {"cpu_flags": cpu_flags(), "blas": blas_summary(libraries), "blas_libraries": libraries,
            "numba_threads": numba_threads(), "llvmlite_version": llvmlite.__version__,
            "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE", "not set"),
            "numerics_environment": ", ".join(f"{k}={v}" for k, v in env.items()) or "none set"}
