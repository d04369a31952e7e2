"""Recovery errors and subspace distances (paper-independent definitions)."""
from __future__ import annotations

import numpy as np


def _orth(X: np.ndarray) -> np.ndarray:
    q, _ = np.linalg.qr(X)
    return q


def nmse(X_hat: np.ndarray, X: np.ndarray) -> float:
    """||(I - P) X||_F^2 / ||X||_F^2 with P the projector onto span(X_hat) (Chi 2018, 6.1).

    X_hat (n, r) is orthonormalised first; X (n, r') is the ground-truth factor.
    """
    Q = _orth(X_hat)
    R = X - Q @ (Q.conj().T @ X)
    return float(np.linalg.norm(R) ** 2 / np.linalg.norm(X) ** 2)


def procrustes_distance(U_hat: np.ndarray, U: np.ndarray) -> float:
    """min over orthogonal Q of ||U_hat - U Q||_F for orthonormal U_hat, U (n, r) (Theorem 1)."""
    s = np.linalg.svd(U.conj().T @ U_hat, compute_uv=False)
    r = U.shape[1]
    return float(np.sqrt(max(2.0 * (r - s.sum()), 0.0)))


def principal_angles(U_hat: np.ndarray, U: np.ndarray) -> np.ndarray:
    """Principal angles (radians, ascending) between span(U_hat) and span(U)."""
    s = np.linalg.svd(_orth(U).conj().T @ _orth(U_hat), compute_uv=False)
    return np.sort(np.arccos(np.clip(s, -1.0, 1.0)))


def sin_theta_distance(U_hat: np.ndarray, U: np.ndarray) -> float:
    """||sin Theta||_F between the two subspaces."""
    return float(np.linalg.norm(np.sin(principal_angles(U_hat, U))))


def frequency_errors(estimates: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """For each true frequency, the distance on the unit circle [0, 1) to the nearest estimate."""
    d = np.abs(np.asarray(truth)[:, None] - np.asarray(estimates)[None, :])
    d = np.minimum(d, 1.0 - d)
    return d.min(axis=1)


def spectral_error(W_hat: np.ndarray, W: np.ndarray) -> float:
    """||W - W_hat||_2 (spectral norm) of two (d1, d2) matrices."""
    return float(np.linalg.norm(W - W_hat, 2))


def hamming_loss(scores: np.ndarray, Y: np.ndarray) -> float:
    """Share of (instance, label) pairs whose predicted sign (sign(0) = 1) differs from Y (n, d2) in +-1."""
    return float(np.mean(np.where(scores >= 0.0, 1.0, -1.0) != Y))


def average_auc(scores: np.ndarray, Y: np.ndarray) -> float:
    """Mean over labels of the ROC AUC of scores (n, d2) against Y (n, d2) in +-1 (Mann-Whitney,
    ties counted one half); labels with a single class among the n instances are left out."""
    from scipy.stats import rankdata

    ranks = rankdata(scores, axis=0)
    pos = Y > 0
    n_pos = pos.sum(axis=0)
    n_neg = Y.shape[0] - n_pos
    keep = (n_pos > 0) & (n_neg > 0)
    u = (ranks * pos).sum(axis=0) - n_pos * (n_pos + 1) / 2.0
    return float(np.mean(u[keep] / (n_pos[keep] * n_neg[keep])))


def second_order_recovery_error(w: np.ndarray, M: np.ndarray, w_star: np.ndarray, M_star: np.ndarray) -> float:
    """||w - w*||_2 + ||M - M*||_2 for w (d,), M (d, d) (Lin et al. 2022, Theorem 2); inf if not finite."""
    if not (np.all(np.isfinite(w)) and np.all(np.isfinite(M))):
        return float("inf")
    return float(np.linalg.norm(w - w_star) + np.linalg.norm(M - M_star, 2))


def normalised_mse(y_pred: np.ndarray, y_true: np.ndarray) -> float:
    """mean((y_pred - y_true)^2) / mean(y_true^2) (Lin et al. 2022, Section 5.1); inf if not finite."""
    if not np.all(np.isfinite(y_pred)):
        return float("inf")
    return float(np.mean((y_pred - y_true) ** 2) / np.mean(y_true ** 2))
