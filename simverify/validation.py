"""Argument checks shared by generators and solvers: each raises ValueError with one line
naming the argument (the CLI turns it into exit status 2 when a run is planned)."""
from __future__ import annotations

import numpy as np


def require(cond: bool, message: str) -> None:
    """Raise ValueError(message) unless ``cond``."""
    if not cond:
        raise ValueError(message)


def positive_int(name: str, value) -> int:
    """``value`` as an int; refuses bools, floats and non-positive numbers."""
    require(isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value > 0,
            f"{name} must be a positive integer, got {value!r}")
    return int(value)


def real_number(name: str, value, lo: float = -np.inf, hi: float = np.inf) -> float:
    """A finite real in [lo, hi]; refuses bools, strings and NaN/inf."""
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    if not (ok and np.isfinite(value) and lo <= value <= hi):  # the message is built only on failure
        raise ValueError(f"{name} must be a finite number in [{lo:g}, {hi:g}], got {value!r}")
    return float(value)


def finite_matrix(name: str, A, ndim: int = 2) -> np.ndarray:
    """``A`` as a C-contiguous float64 array of ``ndim`` dims with finite entries."""
    arr = np.asarray(A)
    if not (arr.ndim == ndim and arr.dtype.kind in "biuf" and arr.dtype != bool):  # message only on failure
        raise ValueError(f"{name} must be a real {ndim}-d array, got dtype {arr.dtype} and shape {arr.shape}")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    require(bool(np.all(np.isfinite(arr))), f"{name} has non-finite entries")
    return arr


def check_int_parameter(name: str, values) -> None:
    """A claim parameter (one value or a list of values): each a positive int (bools refused)."""
    for v in (values if isinstance(values, list) else [values]):
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ValueError(f"parameter {name} must be a positive integer, got {values!r}")


def check_real_parameter(name: str, value, lo: float, hi: float = float("inf")) -> None:
    """A claim parameter: a finite real in [lo, hi] (bools, strings and NaN refused)."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not (ok and lo <= value <= hi):  # also refuses NaN (comparisons are False)
        raise ValueError(f"parameter {name} must be a finite number in [{lo:g}, {hi:g}], got {value!r}")
