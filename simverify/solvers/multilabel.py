"""Multi-label baselines: LEML (Yu, Jain, Kar, Dhillon 2014), low-rank empirical risk minimisation
with missing labels, squared loss, alternating minimisation; here on observed (instance, label,
bit) triples such as the single-label stream of Qiu et al. (2017).

Shapes: X (n, d1) instances, labels (n,) label indices in 0..d2-1, y (n,) observed +-1 values;
the model is W = U V^T with U (d1, k), V (d2, k).
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from ..validation import finite_matrix, positive_int, real_number, require


def _paired(owner: str, X, Y) -> tuple[np.ndarray, np.ndarray]:
    """X (n, d1), Y (n, d2) finite, with the same n (the kernels index Y's rows with X's)."""
    X, Y = finite_matrix("X", X, owner=owner), finite_matrix("Y", Y, owner=owner)
    require(X.shape[0] == Y.shape[0], f"{owner}: X has {X.shape[0]} rows but Y has {Y.shape[0]}")
    return X, Y


def _check_batch(t: int, X, labels, y, d1: int, d2: int) -> None:
    """Batch t of observed triples: X (n, d1), labels (n,) in 0..d2-1, y (n,)."""
    X, labels, y = np.asarray(X), np.asarray(labels), np.asarray(y)
    require(X.ndim == 2 and X.shape[1] == d1, f"leml: batch {t}: X must have shape (n, {d1}), got {X.shape}")
    require(labels.shape == y.shape == (X.shape[0],),
            f"leml: batch {t}: labels {labels.shape} and y {y.shape} must have X's {X.shape[0]} entries")
    require(labels.dtype.kind in "iu" and (labels.size == 0 or (labels.min() >= 0 and labels.max() < d2)),
            f"leml: batch {t}: labels must be integer codes in 0..{d2 - 1}")


@dataclass
class LabelStatistics:
    """Sufficient statistics of the squared loss on observed triples: per label j, S_j =
    sum_{i: j_i = j} x_i x_i^T (d2, d1, d1) and b_j = sum_{i: j_i = j} y_i x_i (d2, d1)."""
    S: np.ndarray
    b: np.ndarray

    @classmethod
    def empty(cls, d1: int, d2: int) -> LabelStatistics:
        return cls(np.zeros((d2, d1, d1)), np.zeros((d2, d1)))

    def add(self, X: np.ndarray, labels: np.ndarray, y: np.ndarray) -> None:
        """Absorb n observed triples (X (n, d1), labels (n,), y (n,))."""
        d2 = self.b.shape[0]
        order = np.argsort(labels, kind="stable")
        bounds = np.searchsorted(labels[order], np.arange(d2 + 1))
        for j in range(d2):
            idx = order[bounds[j]:bounds[j + 1]]
            if idx.size:
                Xj = X[idx]
                self.S[j] += Xj.T @ Xj
                self.b[j] += y[idx] @ Xj


def leml_v_step(stats: LabelStatistics, U: np.ndarray, reg: float) -> np.ndarray:
    """V (d2, k): v_j = argmin sum_{i: j_i = j} (y_i - x_i^T U v)^2 + reg ||v||^2."""
    d2, d1 = stats.b.shape
    k = U.shape[1]
    SU = (stats.S.reshape(d2 * d1, d1) @ U).reshape(d2, d1, k)  # one GEMM over all labels, no copy of S
    G = np.einsum("ak,jal->jkl", U, SU) + reg * np.eye(k)
    return np.linalg.solve(G, (stats.b @ U)[..., None])[..., 0]


def leml_u_step(stats: LabelStatistics, V: np.ndarray, reg: float) -> np.ndarray:
    """U (d1, k): argmin sum_j (v_j^T U^T S_j U v_j - 2 b_j^T U v_j) + reg ||U||_F^2, exactly: the
    normal equations sum_j (v_j v_j^T kron S_j) vec(U) + reg vec(U) = vec(sum_j b_j v_j^T)."""
    d2, d1 = stats.b.shape
    k = V.shape[1]
    VV = (V[:, :, None] * V[:, None, :]).reshape(d2, k * k)
    A = (VV.T @ stats.S.reshape(d2, d1 * d1)).reshape(k, k, d1, d1).transpose(0, 2, 1, 3).reshape(k * d1, k * d1)
    A[np.diag_indices_from(A)] += reg
    rhs = (stats.b.T @ V).T.reshape(-1)  # (k, d1): row l is column l of U
    return np.linalg.solve(A, rhs).reshape(k, d1).T


@dataclass(frozen=True)
class LemlState:
    """LEML after t alternating steps: U (d1, k), V (d2, k), W = U V^T (d1, d2)."""
    U: np.ndarray
    V: np.ndarray

    @property
    def W(self) -> np.ndarray:
        return self.U @ self.V.T


def leml(batches: Iterable[tuple[np.ndarray, np.ndarray, np.ndarray]], d2: int, k: int, U0: np.ndarray,
         reg: float = 1.0, accumulate: bool = True) -> Iterator[tuple[int, LemlState]]:
    """LEML with squared loss on a stream of batches (X, labels, y), yielding (t, state) (see
    simverify.iteration): step t absorbs batch t into the statistics of every triple seen so far
    (``accumulate``; else of batch t only, a streaming reading), then solves V given U and U given
    V exactly (one alternating step). U0 (d1, k) starts it."""
    U = finite_matrix("U0", U0)
    d1 = U.shape[0]
    d2, k = positive_int("d2", d2), positive_int("k", k)
    require(U.shape[1] == k, f"U0 must have k={k} columns, got {U.shape[1]}")
    reg = real_number("reg", reg, 0.0)
    stats = LabelStatistics.empty(d1, d2)
    yield 0, LemlState(U, np.zeros((d2, k)))
    for t, (X, labels, y) in enumerate(batches, start=1):
        _check_batch(t, X, labels, y, d1, d2)
        if not accumulate:
            stats = LabelStatistics.empty(d1, d2)
        stats.add(X, labels, y)
        V = leml_v_step(stats, U, reg)
        U = leml_u_step(stats, V, reg)
        yield t, LemlState(U, V)


# --------------------------------------------------------------------------- full observation (Table 2)
def one_vs_all_svm(X: np.ndarray, Y: np.ndarray, seed, C: float = 1.0, epochs: int = 10) -> np.ndarray:
    """W (d1, d2): one L2-regularised hinge-loss linear SVM per label (no bias, no low-rank
    constraint), trained on X (n, d1), Y (n, d2) in +-1 by dual coordinate descent."""
    from ..kernels.multilabel import one_vs_all_svm as _svm
    from ..kernels.streams import stream_states
    X, Y = _paired("one_vs_all_svm", X, Y)
    C, epochs = real_number("C", C, 0.0), positive_int("epochs", epochs)
    return _svm(stream_states(seed, Y.shape[1]), X, Y, C, epochs)


def singular_value_threshold(W: np.ndarray, tau: float) -> np.ndarray:
    """argmin_Z ||Z - W||_F^2 / 2 + tau ||Z||_* : the singular values of W shrunk by tau."""
    U, s, Vt = np.linalg.svd(W, full_matrices=False)
    s = np.maximum(s - tau, 0.0)
    keep = s > 0
    return (U[:, keep] * s[keep]) @ Vt[keep]


def _loss_gradient(X: np.ndarray, Y: np.ndarray, W: np.ndarray, loss: str) -> np.ndarray:
    """Gradient (d1, d2) of the mean loss over the n x d2 entries: squared (y - x^T w)^2 / 2 or logistic
    log(1 + exp(-y x^T w))."""
    Z = X @ W
    if loss == "squared":
        R = Z - Y
    else:
        R = -Y * np.exp(-np.logaddexp(0.0, Y * Z))  # -y sigma(-y z), stable
    return X.T @ R / X.shape[0]


def trace_norm_regression(X: np.ndarray, Y: np.ndarray, loss: str = "squared", lam_rel: float = 0.05,
                          iters: int = 50) -> np.ndarray:
    """W (d1, d2) minimising the mean loss + lam ||W||_*, by accelerated proximal gradient (FISTA) with
    singular-value thresholding: SMT (``loss='squared'``) and LRT (``'logistic'``) of Table 2.
    lam = lam_rel * ||grad(0)||_2 (the smallest lam with W = 0 optimal, scaled); step 1/L with L =
    ||X||_2^2 / n (squared) or / 4n (logistic)."""
    X, Y = _paired("trace_norm_regression", X, Y)
    require(loss in ("squared", "logistic"), f"loss must be 'squared' or 'logistic', got {loss!r}")
    L = np.linalg.norm(X, 2) ** 2 / X.shape[0] / (1.0 if loss == "squared" else 4.0)
    lam = real_number("lam_rel", lam_rel, 0.0) * np.linalg.norm(_loss_gradient(X, Y, np.zeros((X.shape[1], Y.shape[1])),
                                                                                loss), 2)
    W = Z = np.zeros((X.shape[1], Y.shape[1]))
    t = 1.0
    for _ in range(positive_int("iters", iters)):
        W_next = singular_value_threshold(Z - _loss_gradient(X, Y, Z, loss) / L, lam / L)
        t_next = (1.0 + np.sqrt(1.0 + 4.0 * t * t)) / 2.0
        Z = W_next + ((t - 1.0) / t_next) * (W_next - W)
        W, t = W_next, t_next
    return W


def leml_full(X: np.ndarray, Y: np.ndarray, k: int, seed, reg: float = 1.0, iters: int = 10) -> LemlState:
    """LEML with every label observed (squared loss, W = U V^T, rank k), ``iters`` exact alternating steps:
    V = Y^T X U (U^T X^T X U + reg I)^-1, then U solving X^T X U V^T V + reg U = X^T Y V through the
    eigendecompositions of X^T X and V^T V. U starts orthonormal from ``seed``."""
    X, Y = _paired("leml_full", X, Y)
    k, reg = positive_int("k", k), real_number("reg", reg, 0.0)
    e, P = np.linalg.eigh(X.T @ X)
    XtY = X.T @ Y
    U, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((X.shape[1], k)))
    V = np.zeros((Y.shape[1], k))
    for _ in range(positive_int("iters", iters)):
        XU = X @ U
        V = np.linalg.solve(XU.T @ XU + reg * np.eye(k), XU.T @ Y).T
        f, Q = np.linalg.eigh(V.T @ V)
        U = P @ ((P.T @ XtY @ V @ Q) / (e[:, None] * f[None, :] + reg)) @ Q.T
    return LemlState(U, V)
