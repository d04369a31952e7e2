"""The small non-negative problem the NMF estimators' examples factorize (nmf.py, nmf_sklearn.py)."""
from __future__ import annotations

import numpy as np


def example_factors() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A, Z, X): topics A (W = 4 features, D = 2), weights Z (D = 2, N = 6 samples) and the data X = (A Z)^T,
    (N, W) = (6, 4) in scikit-learn's layout (samples as rows). Each column of A has an anchor word (rows 0, 1).

    >>> A, Z, X = example_factors()
    >>> A.shape, Z.shape, X.shape
    ((4, 2), (2, 6), (6, 4))
    """
    A = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 2.0]])
    Z = np.array([[1.0, 0.0, 2.0, 1.0, 0.0, 3.0], [0.0, 1.0, 1.0, 2.0, 3.0, 0.0]])
    return A, Z, (A @ Z).T
