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


def correlation_errors(A: np.ndarray, A_star: np.ndarray) -> np.ndarray:
    """eps_i = min over j and real sigma of ||A*_i - sigma A_j||_2, i = 1..D* (Li & Liang 2017, Section 7):
    how well column i of A* (W, D*) is covered by the best column of A (W, D) up to scale (any permutation).
    The best j maximises |<A*_i, A_j>| / ||A_j||; the residual A*_i - sigma A_j is then formed explicitly (not
    by subtracting squares, which would floor the error near 1e-8 per column). A zero or non-finite column of A
    covers nothing. Returns (D*,); the paper's total correlation error is the sum."""
    norms = np.linalg.norm(A, axis=0)
    usable = np.isfinite(norms) & (norms > 0)
    if not usable.any():
        return np.linalg.norm(A_star, axis=0)
    B = A[:, usable] / norms[usable]
    inner = A_star.T @ B  # (D*, D_usable)
    best = np.abs(inner).argmax(axis=1)
    sigma = inner[np.arange(A_star.shape[1]), best]
    return np.linalg.norm(A_star - B[:, best] * sigma, axis=0)


def diagonal_scaled_error(A: np.ndarray, A_star: np.ndarray) -> tuple[float, float]:
    """(||A - A* Sigma||_2, min_i Sigma_ii) with Sigma diagonal fitted column by column by least squares,
    Sigma_ii = <A_i, A*_i> / ||A*_i||^2 (Theorems 1, 4, 5 claim ||A - A* Sigma||_2 <= eps with Sigma >= I/2).
    The column-wise fit minimises the Frobenius norm, so the spectral norm reported is an upper bound on the
    minimum over diagonal Sigma. A (W, D) and A* (W, D), columns matched by index (AND keeps the order)."""
    if not np.all(np.isfinite(A)):
        return float("inf"), float("nan")
    sigma = (A * A_star).sum(axis=0) / (A_star ** 2).sum(axis=0)
    return float(np.linalg.norm(A - A_star * sigma, 2)), float(sigma.min())


def gcc_parameters(X: np.ndarray) -> dict[str, float]:
    """The tightest (r, k, m, lambda) of Definition 1 that samples X (D, N) satisfy, with Delta = X X^T / N:
    r = max ||x||_1, k = D max_i Delta_ii / 2, m = D^2 max_{i != j} Delta_ij, lambda = D lambda_min(Delta) / k."""
    D, N = X.shape
    delta = X @ X.T / N
    diag = np.diag(delta).copy()
    k = D * diag.max() / 2.0
    off = delta - np.diag(diag)
    return {"r": float(np.abs(X).sum(axis=0).max()), "k": float(k), "m": float(D * D * off.max()),
            "lambda": float(D * np.linalg.eigvalsh(delta)[0] / k)}


def nonnegative_reconstruction_error(C: np.ndarray, Y: np.ndarray) -> float:
    """||Y - C Z||_F / ||Y||_F with Z = argmin_{Z >= 0} ||Y - C Z||_F (column by column): how well the
    components C (features, n) reconstruct the data Y (features, samples) with non-negative weights."""
    from .kernels.nnls import nonnegative_least_squares
    return float(np.linalg.norm(Y - C @ nonnegative_least_squares(C, Y)) / np.linalg.norm(Y))


def label_outcomes(posteriors: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """Per gold item (n_gold,): the error of the decision argmax posteriors (n_items, K), 1 wrong, 0 right, and
    1 - 1/t when the top posterior is shared by t classes, the gold one among them (the tie rule of Ibrahim & Fu's
    code). gold (n_items,) class codes, -1 where an item has no gold label."""
    known = gold >= 0
    if not known.any():
        raise ValueError("no item has a gold label")
    p = posteriors[known]
    top = p == p.max(axis=1, keepdims=True)
    return 1.0 - top[np.arange(p.shape[0]), gold[known]] / top.sum(axis=1)


def label_error(posteriors: np.ndarray, gold: np.ndarray) -> float:
    """Classification error on the items with a gold label: the mean of ``label_outcomes``."""
    return float(label_outcomes(posteriors, gold).mean())


def confusion_mse(priors: np.ndarray, confusion: np.ndarray, priors_hat: np.ndarray,
                  confusion_hat: np.ndarray) -> float:
    """Eq. (19) of Ibrahim & Fu (2021): min over permutations Pi of (||Pi^T lambda - lambda_hat||^2 + sum_m
    ||A_m Pi - A_hat_m||_F^2) / (MK + 1); priors (K,), confusion (M, K, K) columns = true classes. The
    objective is separable over columns, so the Hungarian algorithm finds the best permutation exactly."""
    from scipy.optimize import linear_sum_assignment
    M, K = confusion.shape[0], confusion.shape[2]
    cost = ((confusion[:, :, :, None] - confusion_hat[:, :, None, :]) ** 2).sum(axis=(0, 1)) \
        + (priors[:, None] - priors_hat[None, :]) ** 2
    rows, cols = linear_sum_assignment(cost)
    return float(cost[rows, cols].sum() / (M * K + 1))
