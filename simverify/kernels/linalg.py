"""Small linear-algebra primitives: l1-ball projection, PSD n F-ball projection, ADMM (@njit), and the Gram
matrix by the general product."""
from __future__ import annotations

import numpy as np
from numba import njit

from .jit import JIT


@njit(**JIT)
def project_l1_ball(v, radius):
    """Euclidean projection of a vector onto {x : ||x||_1 <= radius} (Duchi et al. 2008)."""
    if np.sum(np.abs(v)) <= radius:
        return v.copy()
    u = np.sort(np.abs(v))[::-1]
    css = np.cumsum(u)
    theta = 0.0
    for i in range(u.size):
        t = (css[i] - radius) / (i + 1.0)
        if u[i] - t > 0:
            theta = t
    return np.sign(v) * np.maximum(np.abs(v) - theta, 0.0)


@njit(**JIT)
def project_psd_fball(M):
    """Projection onto {S PSD, ||S||_F <= 1}: clip eigenvalues at 0, then rescale into the ball."""
    w, V = np.linalg.eigh(0.5 * (M + M.T))
    w = np.maximum(w, 0.0)
    nrm = np.sqrt(np.sum(w * w))
    if nrm > 1.0:
        w = w / nrm
    return np.dot(V * w.reshape((1, -1)), V.T)


@njit(**JIT)
def sparse_set_admm(J, radius, iterations, rho, tol):
    """max <J, S> s.t. S PSD, ||S||_F <= 1, ||S||_1 <= radius, by ADMM on S = Z."""
    n = J.shape[0]
    Z = np.zeros((n, n))
    Y = np.zeros((n, n))
    S = np.zeros((n, n))
    for _ in range(iterations):
        S = project_psd_fball(Z - (Y - J) / rho)
        Zold = Z
        Z = project_l1_ball((S + Y / rho).ravel(), radius).reshape((n, n))
        Y = Y + rho * (S - Z)
        if np.sqrt(np.sum((S - Z) ** 2)) < tol and np.sqrt(np.sum((Z - Zold) ** 2)) * rho < tol:
            break
    return Z


def gram_by_gemm(M: np.ndarray) -> np.ndarray:
    """M M^T (R, R) for M (R, C) by the general product: NumPy's ``M @ M.T`` takes the symmetric one (syrk), whose
    sums round differently, and a kernel moved out of Numba keeps the sums of its np.dot (bit-identical results)."""
    return np.ascontiguousarray(M) @ np.ascontiguousarray(M.T)
