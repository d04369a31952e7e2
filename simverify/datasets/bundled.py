"""Classification data sets that ship inside scikit-learn (nothing is downloaded), standing in for the UCI sets of
Ibrahim & Fu (2021), Tables 1-3 (Connect4, Credit, Car), which cannot be downloaded here. Each is chosen for the
number of classes K of the table it stands in for:

- ``breast_cancer`` (569 items, 30 features, K = 2) for Credit (Table 2, K = 2; 540 test items in the paper);
- ``digits358`` (the digits 3, 5, 8 of scikit-learn's 8 x 8 digits: 539 items, 64 features, K = 3) for Connect4
  (Table 1, K = 3);
- ``digits3589`` (the digits 3, 5, 8, 9: 719 items, K = 4) for Car (Table 3, K = 4).

The digit subsets are the mutually most confusable digits, so that the classifiers err (as on the UCI sets)."""
from __future__ import annotations

import functools

import numpy as np

SETS = {"breast_cancer": None, "digits358": (3, 5, 8), "digits3589": (3, 5, 8, 9)}


def bundled_set(name: str) -> tuple[np.ndarray, np.ndarray]:
    """(X (n, d) float64 features, y (n,) int64 class codes 0..K-1) of a set in ``SETS``, read-only (read once per
    process)."""
    if name not in SETS:
        raise ValueError(f"unknown bundled data set {name!r}; known: {list(SETS)}")
    return _read(name)


def n_classes(name: str) -> int:
    """K of a set in ``SETS`` (without reading it)."""
    if name not in SETS:
        raise ValueError(f"unknown bundled data set {name!r}; known: {list(SETS)}")
    return 2 if SETS[name] is None else len(SETS[name])


@functools.lru_cache(maxsize=len(SETS))
def _read(name: str) -> tuple[np.ndarray, np.ndarray]:
    from sklearn import datasets
    X, y = _load(datasets, name)
    X.flags.writeable = y.flags.writeable = False
    return X, y


def _load(datasets, name: str) -> tuple[np.ndarray, np.ndarray]:
    if name == "breast_cancer":
        X, y = datasets.load_breast_cancer(return_X_y=True)
        return X.astype(np.float64), y.astype(np.int64)
    digits = SETS[name]
    X, y = datasets.load_digits(return_X_y=True)
    keep = np.isin(y, digits)
    return X[keep].astype(np.float64), np.searchsorted(digits, y[keep]).astype(np.int64)
