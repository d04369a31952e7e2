"""Shifted-ReLU SymNMF (Eq. 13) and its alpha schedules (Appendix C): 'constant' alpha_t = alpha_0 (the paper's
real-data setting, alpha_0 = 1e-6), 'power' alpha_t = psi^(t+1) (the convergence simulations) and 'zero'
alpha_t = 0 (the original algorithm of Huang, Sidiropoulos & Swami 2014)."""
from __future__ import annotations

import numpy as np

from ...kernels.crowd import shifted_relu_symnmf
from ...validation import Real, check_parameter, finite_matrix, positive_int, real_number, require

ALPHA_SCHEDULES = ("constant", "power", "zero")
ALPHA_0 = 1e-6  # Appendix C: alpha_(0)
TOL = 1e-6  # Appendix C: stop when the relative change of the cost is below 1e-6


def alpha_schedule(kind: str, n_iter: int, alpha0: float = ALPHA_0, psi: float = 0.75) -> np.ndarray:
    """alphas (n_iter,) of the named schedule."""
    require(kind in ALPHA_SCHEDULES, f"unknown alpha schedule {kind!r}; known: {list(ALPHA_SCHEDULES)}")
    n_iter = positive_int("n_iter", n_iter)
    if kind == "constant":
        return np.full(n_iter, real_number("alpha0", alpha0, 0.0))
    if kind == "power":
        return real_number("psi", psi, 0.0, 1.0) ** np.arange(1, n_iter + 1)
    return np.zeros(n_iter)


def symnmf(U: np.ndarray, schedule: str = "constant", n_iter: int = 500, tol: float = TOL,
           Q0: np.ndarray | None = None, alpha0: float = ALPHA_0,
           psi: float = 0.75) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Eq. (13) from Q_(0) = Q0 (identity by default): (H (J, K) >= 0, Q (K, K) orthogonal, costs (t,) of
    ||H_(t) - U Q_(t)||_F^2). U (J, K) is a square root of X = H H^T (``cooccurrence.square_root``)."""
    U = finite_matrix("U", U)
    K = U.shape[1]
    Q = np.eye(K) if Q0 is None else finite_matrix("Q0", Q0)
    require(Q.shape == (K, K), f"symnmf: Q0 must have shape (K, K) = {(K, K)} for U {U.shape}, got {Q.shape}")
    check_parameter("symnmf", "tol", tol, Real(0.0))
    return shifted_relu_symnmf(U, Q.copy(), alpha_schedule(schedule, n_iter, alpha0, psi), float(tol))
