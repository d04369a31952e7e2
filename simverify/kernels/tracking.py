"""Rank-two EVD update of Chi (2018), Section 5, Eqs. (10)-(11).

J_m = eta_m J_{m-1} + K_m Lambda_m K_m^H is tracked through its rank-r EVD U Pi U^H
only: memory Theta(n r). Generic over real and complex dtypes.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .jit import JIT


@njit(**JIT)
def rank_two_update(U, pi, K, lam, eta, by_magnitude):
    """One update of (U (n, r), pi (r,) real) by K (n, 2), lam (2,) real. Returns the new pair.

    R = (I - U U^H) K (two Gram-Schmidt passes), P = orth(R) (QR), Gamma = blkdiag(eta Pi, 0) + M diag(lam) M^H with
    M = [U^H K; P^H R] ((r+2) x 2). The paper prints M^T Lambda M^T (a dimension typo).
    Keeps the r eigenpairs of Gamma largest in |eigenvalue| (as printed,
    by_magnitude=True) or largest algebraically (by_magnitude=False).
    """
    r = U.shape[1]
    C = np.dot(np.conj(U.T), K)
    R = K - np.dot(U, C)
    C2 = np.dot(np.conj(U.T), R)  # second Gram-Schmidt pass: P stays orthogonal to U when K is near span(U)
    R = R - np.dot(U, C2)
    C = C + C2
    P, Rr = np.linalg.qr(R)
    M = np.empty((r + 2, 2), dtype=U.dtype)
    M[:r] = C
    M[r:] = Rr
    G = np.zeros((r + 2, r + 2), dtype=U.dtype)
    for i in range(r):
        G[i, i] = eta * pi[i]
    G += np.dot(M * lam.reshape((1, 2)), np.conj(M.T))
    G = 0.5 * (G + np.conj(G.T))
    w, V = np.linalg.eigh(G)
    key = -np.abs(w) if by_magnitude else -w
    order = np.argsort(key)[:r]
    basis = np.hstack((U, P))
    Vsel = np.ascontiguousarray(V[:, order])
    return np.dot(basis, Vsel), w[order].copy()


@njit(**JIT)
def track_chunk(U, pi, A, B, y, start, by_magnitude):
    """Apply Eq. (10) for the sensors in rows of A, B; ``start`` sensors came before."""
    c = A.shape[0]
    K = np.empty((A.shape[1], 2), dtype=U.dtype)
    lam = np.empty(2)
    for i in range(c):
        m = start + i + 1
        K[:, 0] = A[i]
        K[:, 1] = B[i]
        lam[0] = y[i] / m
        lam[1] = -y[i] / m
        U, pi = rank_two_update(U, pi, K, lam, (m - 1.0) / m, by_magnitude)
    return U, pi
