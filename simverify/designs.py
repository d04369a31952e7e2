"""Paired designs (docs/claims.md): one measure run at every value of a parameter on the same seed, so that a
law along that parameter compares runs on the same draws instead of independent ones."""
from __future__ import annotations

import numpy as np

from .kernels.rng import fresh_seed


def paired(measure, seed, name: str, values: list, **params) -> dict:
    """``measure`` at every value of parameter ``name`` on the same seed (the same model, state and data streams),
    each output gaining a leading dim ``name`` (len(values),)."""
    runs = [measure(fresh_seed(seed), **{name: v}, **params) for v in values]
    return {key: np.array([r[key] for r in runs]) for key in runs[0]}


def paired_outputs(dim: str, *names: str) -> dict[str, tuple[str, ...]]:
    """The ``outputs`` of a sweep whose scalar outputs ``names`` gain the paired dim ``dim``."""
    return {name: (dim,) for name in names}
