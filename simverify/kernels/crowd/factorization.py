"""Factorisation kernels: the shifted-ReLU SymNMF (Eq. 13) and CNMF's coupled KL sweeps."""
from __future__ import annotations

import numpy as np
from numba import njit

from ..jit import JIT
from .dawid_skene import CLIP


@njit(**JIT)
def shifted_relu_symnmf(U, Q, alphas, tol):
    """Eq. (13): H <- ReLU_alpha(U Q) (entries below alpha set to 0), W S V^T = svd(H^T U), Q <- V W^T, for
    t = 0, 1, ... with alpha_t = alphas[t]; stops after the first t where the relative change of
    ||H - U Q||_F^2 is below tol. U (J, K), Q (K, K) the start. Returns (H (J, K), Q, costs (n_done,))."""
    J, K = U.shape
    costs = np.empty(alphas.size)
    H = np.zeros((J, K))
    done = 0
    for t in range(alphas.size):
        UQ = U @ Q
        for i in range(J):
            for k in range(K):
                H[i, k] = UQ[i, k] if UQ[i, k] >= alphas[t] else 0.0
        Wm, s, Vt = np.linalg.svd(H.T @ U)
        Q = Vt.T @ Wm.T
        E = H - U @ Q
        costs[t] = np.sum(E * E)
        done = t + 1
        if t > 0 and abs(costs[t - 1] - costs[t]) <= tol * max(costs[t - 1], 1e-300):
            break
    return H, Q, costs[:done]


@njit(**JIT)
def coupled_kl_sweeps(R, observed, confusion, priors, n_iter, tol):
    """CNMF's criterion (4) in Kullback-Leibler form (Ibrahim, Fu, Kargas & Huang 2019): maximise
    sum over observed (m, j), m != j, of sum_ab R[m, j, a, b] log sum_k priors[k] A_m(a, k) A_j(b, k), by the EM
    updates of this pairwise latent-class model (each sweep cannot decrease it). confusion (M, K, K) and priors
    (K,) are updated in place; returns the objective at the start of each sweep, i.e. before its update (stops
    when it gains less than tol times its size)."""
    M, K = confusion.shape[0], priors.size
    history = np.empty(n_iter)
    num_a = np.empty((M, K, K))
    num_p = np.empty(K)
    r = np.empty(K)
    done = 0
    for sweep in range(n_iter):
        num_a[:] = 0.0
        num_p[:] = 0.0
        total = 0.0
        for m in range(M):
            for j in range(M):
                if j == m or not observed[m, j]:
                    continue
                for a in range(K):
                    for b in range(K):
                        w = R[m, j, a, b]
                        if w <= 0.0:
                            continue
                        model = 0.0
                        for k in range(K):
                            r[k] = priors[k] * confusion[m, a, k] * confusion[j, b, k]
                            model += r[k]
                        model = max(model, CLIP)
                        total += w * np.log(model)
                        for k in range(K):
                            share = w * r[k] / model
                            num_a[m, a, k] += share
                            num_a[j, b, k] += share
                            num_p[k] += share
        history[sweep] = total
        done = sweep + 1
        for m in range(M):
            for k in range(K):
                column = 0.0
                for a in range(K):
                    column += num_a[m, a, k]
                if column > 0.0:
                    for a in range(K):
                        confusion[m, a, k] = num_a[m, a, k] / column
        mass = num_p.sum()
        if mass > 0.0:
            for k in range(K):
                priors[k] = num_p[k] / mass
        if sweep > 0 and total - history[sweep - 1] < tol * abs(history[sweep - 1]):
            break
    return history[:done]
