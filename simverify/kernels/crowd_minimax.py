"""Kernel of the minimax conditional entropy aggregator (Zhou, Basu, Mao & Platt 2012; Zhou, Liu, Platt &
Meek 2015), a baseline of Ibrahim & Fu (2021). Answers as in ``kernels.crowd``: item, worker, label (n,) codes.

The model: P(annotator i answers k | item j of class c) = softmax_k(sigma[i, c, k] + tau[j, c, k]), worker terms
sigma (M, K, K) and item terms tau (N, K, K). Serial, fixed loop order: results do not depend on the thread count.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .crowd import rows_from_log
from .jit import JIT


@njit(**JIT)
def _softmax_row(sigma, tau, i, j, c, prob):
    """prob[k] = softmax_k(sigma[i, c, k] + tau[j, c, k]); returns log of the normaliser (for log-probabilities:
    log prob[k] = sigma[i, c, k] + tau[j, c, k] - the returned value)."""
    K = prob.size
    top = -np.inf
    for k in range(K):
        prob[k] = sigma[i, c, k] + tau[j, c, k]
        top = max(top, prob[k])
    total = 0.0
    for k in range(K):
        prob[k] = np.exp(prob[k] - top)
        total += prob[k]
    for k in range(K):
        prob[k] /= total
    return top + np.log(total)


@njit(**JIT)
def expected_log_likelihood(sigma, tau, item, worker, label, q, alpha, beta, g_sigma, g_tau):
    """The M-step objective at fixed item distributions q (N, K): sum over answers a and classes c of
    q[item, c] log P(label | c) - alpha/2 ||tau||^2 - beta/2 ||sigma||^2. Its gradients are written into g_sigma
    (M, K, K) and g_tau (N, K, K); returns the objective."""
    K = q.shape[1]
    g_sigma[:] = -beta * sigma
    g_tau[:] = -alpha * tau
    total = -0.5 * (alpha * np.sum(tau * tau) + beta * np.sum(sigma * sigma))
    prob = np.empty(K)
    for a in range(item.size):
        i, j, x = worker[a], item[a], label[a]
        for c in range(K):
            w = q[j, c]
            if w == 0.0:
                continue
            log_norm = _softmax_row(sigma, tau, i, j, c, prob)
            total += w * (sigma[i, c, x] + tau[j, c, x] - log_norm)
            for k in range(K):
                g = w * ((1.0 if k == x else 0.0) - prob[k])
                g_sigma[i, c, k] += g
                g_tau[j, c, k] += g
    return total


@njit(**JIT)
def class_posteriors(sigma, tau, item, worker, label, n_items):
    """q (N, K) proportional to prod over the item's answers of P(label | c) (no class prior, as the original)."""
    K = sigma.shape[1]
    log_q = np.zeros((n_items, K))
    prob = np.empty(K)
    for a in range(item.size):
        i, j, x = worker[a], item[a], label[a]
        for c in range(K):
            log_q[j, c] += sigma[i, c, x] + tau[j, c, x] - _softmax_row(sigma, tau, i, j, c, prob)
    return rows_from_log(log_q)
