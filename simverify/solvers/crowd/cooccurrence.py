"""Pairwise annotator co-occurrences (Eq. 3) and the second-order matrix X = H H^T of Eq. (6).

Shapes: R (M, M, K, K) with R[m, j] the K x K block R_{m,j}; S (M, M) the numbers of co-labelled items S_{m,j};
observed (M, M) bool, never on the diagonal; X (MK, MK) the blocks assembled."""
from __future__ import annotations

import numpy as np

from ...kernels.crowd import cooccurrence_counts
from .codes import check_codes


def item_index(item: np.ndarray, n_items: int) -> tuple[np.ndarray, np.ndarray]:
    """(item_ptr (n_items + 1,), order (n,)): the answers of item i are order[item_ptr[i]:item_ptr[i+1]]."""
    order = np.argsort(item, kind="stable")
    item_ptr = np.zeros(n_items + 1, dtype=np.int64)
    np.cumsum(np.bincount(item, minlength=n_items), out=item_ptr[1:])
    return item_ptr, order.astype(np.int64)


def cooccurrences(item: np.ndarray, worker: np.ndarray, label: np.ndarray, n_items: int, n_workers: int,
                  n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """Eq. (3): (R (M, M, K, K), S (M, M)); R_{m,j} is the fraction of the S_{m,j} co-labelled items on which m
    answered k_m and j answered k_j, zero where S_{m,j} = 0. Never builds an items x annotators array."""
    check_codes("cooccurrences", item, worker, label, n_items, n_workers, n_classes)
    item_ptr, order = item_index(item, n_items)
    counts, S = cooccurrence_counts(item_ptr, order, worker.astype(np.int64), label.astype(np.int64),
                                    n_workers, n_classes)
    R = counts / np.maximum(S, 1)[:, :, None, None]
    return R, S


def observed_blocks(S: np.ndarray, min_items: int = 1) -> np.ndarray:
    """(M, M) bool: the blocks estimated from at least min_items co-labelled items (never the diagonal)."""
    observed = S >= min_items
    np.fill_diagonal(observed, False)
    return observed


def assemble(R: np.ndarray) -> np.ndarray:
    """X (MK, MK) of Eq. (6) from its blocks R (M, M, K, K)."""
    M, K = R.shape[0], R.shape[2]
    return R.transpose(0, 2, 1, 3).reshape(M * K, M * K)


def blocks_of(X: np.ndarray, K: int) -> np.ndarray:
    """R (M, M, K, K): the blocks of X (MK, MK) (inverse of ``assemble``)."""
    M = X.shape[0] // K
    return X.reshape(M, K, M, K).transpose(0, 2, 1, 3).copy()


def square_root(X: np.ndarray, K: int) -> np.ndarray:
    """U (MK, K) with U U^T the best rank-K positive semidefinite approximation of sym(X): the K leading
    eigenpairs, negative eigenvalues set to 0; each column's sign chosen so its sum is non-negative (the
    Perron direction of a non-negative X), which makes Q_(0) = I a sensible start for Eq. (13)."""
    vals, vecs = _leading_eigenpairs(0.5 * (X + X.T), K)
    vals, vecs = vals[::-1], np.ascontiguousarray(vecs[:, ::-1])  # C order, as the kernels are compiled for
    return _perron_signs(vecs * np.sqrt(np.maximum(vals, 0.0)))


LANCZOS_FROM = 1024  # from this order on, the K leading eigenpairs by Lanczos (ARPACK) instead of LAPACK's eigh


def _leading_eigenpairs(A: np.ndarray, K: int) -> tuple[np.ndarray, np.ndarray]:
    """(values (K,) ascending, vectors (n, K)): the K algebraically largest eigenpairs of the symmetric A (n, n). Below
    LANCZOS_FROM by LAPACK (every result of the small sets unchanged); from it by ARPACK's Lanczos iteration
    from the all-ones start (deterministic), to machine precision: TREC's n = 1524 took 0.38-0.41 s by eigh and
    0.032 s by Lanczos, the vectors equal to 2.4e-16 (its leading gap is 181 against 7.8)."""
    n = A.shape[0]
    if n < LANCZOS_FROM or K >= n - 1:
        from scipy.linalg import eigh
        return eigh(A, subset_by_index=[max(n - K, 0), n - 1])
    from scipy.sparse.linalg import eigsh
    vals, vecs = eigsh(A, k=K, which="LA", v0=np.ones(n) / np.sqrt(n), tol=0)
    order = np.argsort(vals, kind="stable")
    return vals[order], vecs[:, order]


def square_root_of_product(F: np.ndarray) -> np.ndarray:
    """U (J, K): ``square_root(F F^T, K)`` for a factor F (J, K), from F's thin SVD F = W S V^T (U = W S) without
    forming the J x J product; equal to the eigendecomposition's U up to rounding when the singular values are
    distinct."""
    W, s, _ = np.linalg.svd(F, full_matrices=False)
    return _perron_signs(W * s)


def _perron_signs(U: np.ndarray) -> np.ndarray:
    """Each column's sign flipped so that its sum is non-negative."""
    return U * np.where(U.sum(axis=0) < 0, -1.0, 1.0)
