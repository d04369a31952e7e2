"""Kernel of the minimax conditional entropy aggregator (Zhou, Basu, Mao & Platt 2012; Zhou, Liu, Platt &
Meek 2015), a baseline of Ibrahim & Fu (2021). Answers as in ``kernels.crowd``: item, worker, label (n,) codes.

The model: P(annotator i answers k | item j of class c) = softmax_k(sigma[i, c, k] + tau[j, c, k]), worker terms
sigma (M, K, K) and item terms tau (N, K, K). Serial, fixed loop order: results do not depend on the thread count.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..jit import JIT


@njit(**JIT)
def _softmax_row(sigma, tau, i, j, c, probs, r):
    """probs[r, c, k] = softmax_k(sigma[i, c, k] + tau[j, c, k]); returns log of the normaliser (for
    log-probabilities: log probs[r, c, k] = sigma[i, c, k] + tau[j, c, k] - the returned value). Indices, not a
    row view: a view per call cost more than the arithmetic."""
    K = probs.shape[2]
    top = -np.inf
    for k in range(K):
        top = max(top, sigma[i, c, k] + tau[j, c, k])
    total = 0.0
    for k in range(K):
        e = np.exp(sigma[i, c, k] + tau[j, c, k] - top)
        probs[r, c, k] = e
        total += e
    for k in range(K):
        probs[r, c, k] /= total
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
    prob = np.empty((1, K, K))
    for a in range(item.size):
        i, j, x = worker[a], item[a], label[a]
        for c in range(K):
            w = q[j, c]
            if w == 0.0:
                continue
            log_norm = _softmax_row(sigma, tau, i, j, c, prob, 0)
            total += w * (sigma[i, c, x] + tau[j, c, x] - log_norm)
            for k in range(K):
                g = w * ((1.0 if k == x else 0.0) - prob[0, c, k])
                g_sigma[i, c, k] += g
                g_tau[j, c, k] += g
    return total


@njit(**JIT)
def _item_log_likelihoods(sigma, tau, j, worker, label, lo, hi, probs, log_q):
    """log_q[c] = sum over the answers lo..hi (of item j) of log P(label | c); probs[t - lo, c] gets P(. | c)."""
    K = log_q.size
    log_q[:] = 0.0
    for t in range(lo, hi):
        i, x = worker[t], label[t]
        for c in range(K):
            log_q[c] += sigma[i, c, x] + tau[j, c, x] - _softmax_row(sigma, tau, i, j, c, probs, t - lo)


@njit(**JIT)
def marginal_log_likelihood(sigma, tau, item_ptr, worker, label, alpha, beta, q, g_sigma, g_tau, probs):
    """The penalised log-likelihood with the true classes summed out under a uniform prior (the original's):
    sum_j log (1/K) sum_c prod_{answers of j} P(label | c) - alpha/2 ||tau||^2 - beta/2 ||sigma||^2. Answers sorted
    by item: those of item j are item_ptr[j]..item_ptr[j + 1] of worker, label (n,). Writes each item's posterior
    into q (N, K) and the gradient into g_sigma (M, K, K), g_tau (N, K, K) (Fisher's identity: the expected
    complete-data gradient under q); probs (largest item degree, K, K) is scratch. Returns the value."""
    K = sigma.shape[1]
    g_sigma[:] = -beta * sigma
    g_tau[:] = -alpha * tau
    total = -0.5 * (alpha * np.sum(tau * tau) + beta * np.sum(sigma * sigma))
    log_q = np.empty(K)
    for j in range(item_ptr.size - 1):
        lo, hi = item_ptr[j], item_ptr[j + 1]
        _item_log_likelihoods(sigma, tau, j, worker, label, lo, hi, probs, log_q)
        top = log_q.max()
        norm = 0.0
        for c in range(K):
            q[j, c] = np.exp(log_q[c] - top)
            norm += q[j, c]
        for c in range(K):
            q[j, c] /= norm
        total += top + np.log(norm / K)
        for t in range(lo, hi):
            i, x = worker[t], label[t]
            for c in range(K):
                for k in range(K):
                    g = q[j, c] * ((1.0 if k == x else 0.0) - probs[t - lo, c, k])
                    g_sigma[i, c, k] += g
                    g_tau[j, c, k] += g
    return total
