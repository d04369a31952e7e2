"""Dawid-Skene kernels: the M-step's confusions, the E-step's posteriors, the evidence lower bound and the
log evidence (the MAP predictor and held-out scores)."""
from __future__ import annotations

import numpy as np
from numba import njit

from ..jit import JIT

CLIP = 1e-10  # floor of a confusion probability before normalisation (crowd-kit's convention)


@njit(**JIT)
def confusion_from_posteriors(item, worker, label, probas, n_workers):
    """Dawid-Skene M-step: errors (M, K observed, K true) = P(observed | true), the posteriors probas (N, K)
    summed over each worker's answers, clipped below at CLIP and normalised over the observed label."""
    K = probas.shape[1]
    errors = np.zeros((n_workers, K, K))
    for a in range(item.size):
        for k in range(K):
            errors[worker[a], label[a], k] += probas[item[a], k]
    for m in range(n_workers):
        for k in range(K):
            total = 0.0
            for o in range(K):
                errors[m, o, k] = max(errors[m, o, k], CLIP)
                total += errors[m, o, k]
            for o in range(K):
                errors[m, o, k] /= total
    return errors


@njit(**JIT)
def _log_floored(x):
    """log(max(x, CLIP)) elementwise (any shape)."""
    out = np.empty(x.size)
    flat = x.ravel()
    for i in range(flat.size):
        out[i] = np.log(max(flat[i], CLIP))
    return out.reshape(x.shape)


@njit(**JIT)
def evidence_lower_bound(item, worker, label, probas, priors, errors):
    """The EM objective of Dawid-Skene as crowd-kit 1.4 computes it: sum over answers of sum_k q_ik (log
    errors[worker, answer, k] + log prior_k) (the prior counted once per answer), plus the entropy
    -sum_i sum_k q_ik log q_ik with q = probas (N, K) floored at CLIP; logs of priors and errors floored at CLIP."""
    N, K = probas.shape
    log_prior, log_err = _log_floored(priors), _log_floored(errors)
    total = 0.0
    for a in range(item.size):
        for k in range(K):
            total += probas[item[a], k] * (log_err[worker[a], label[a], k] + log_prior[k])
    return _plus_entropy(total, probas)


@njit(**JIT)
def _plus_entropy(total, probas):
    """total - sum_i sum_k q_ik log q_ik with q = probas (N, K) floored at CLIP, subtracted term by term."""
    for i in range(probas.shape[0]):
        for k in range(probas.shape[1]):
            q = max(probas[i, k], CLIP)
            total -= q * np.log(q)
    return total


@njit(**JIT)
def posteriors_and_bound(item, worker, label, priors, errors, n_items, probas):
    """One pass over the answers for two things: the E-step from (priors, errors), as ``map_posteriors``, and the
    evidence lower bound of the previous posteriors ``probas`` (N, K) under (priors, errors), as
    ``evidence_lower_bound`` (the same sums in the same order, so the same value). Returns (posteriors, bound)."""
    K = priors.size
    log_prior, log_err = _log_floored(priors), _log_floored(errors)
    log_p = np.empty((n_items, K))
    for i in range(n_items):  # entry by entry: a row view per item cost more than the item's arithmetic
        for k in range(K):
            log_p[i, k] = log_prior[k]
    total = 0.0
    for a in range(item.size):
        for k in range(K):
            term = log_err[worker[a], label[a], k]
            log_p[item[a], k] += term
            total += probas[item[a], k] * (term + log_prior[k])
    return rows_from_log(log_p), _plus_entropy(total, probas)


@njit(**JIT)
def _log_joint(item, worker, label, priors, errors, n_items):
    """(N, K) log priors(k) + sum over item i's answers of log errors[worker, answer, k], probabilities floored at
    CLIP in the log: the Dawid-Skene log joint of each item's answers and class k."""
    K = priors.size
    log_prior, log_err = _log_floored(priors), _log_floored(errors)
    log_p = np.empty((n_items, K))
    for i in range(n_items):  # entry by entry: a row view per item cost more than the item's arithmetic
        for k in range(K):
            log_p[i, k] = log_prior[k]
    for a in range(item.size):
        for k in range(K):
            log_p[item[a], k] += log_err[worker[a], label[a], k]
    return log_p


@njit(**JIT)
def map_posteriors(item, worker, label, priors, errors, n_items):
    """Posteriors (N, K) proportional to priors(k) prod over the item's answers of errors[worker, answer, k]
    (the MAP predictor's posterior; the Dawid-Skene E-step). Probabilities are floored at CLIP in the log."""
    return rows_from_log(_log_joint(item, worker, label, priors, errors, n_items))


@njit(**JIT)
def log_evidence(item, worker, label, priors, errors, n_items):
    """(n_items,) log P(item i's answers) = log sum_k priors(k) prod over its answers of errors[worker, answer, k]
    under the Dawid-Skene model (probabilities floored at CLIP in the log); an item without answers gives 0."""
    K = priors.size
    log_p = _log_joint(item, worker, label, priors, errors, n_items)
    out = np.empty(n_items)
    for i in range(n_items):
        top = _row_max(log_p, i)
        total = 0.0
        for k in range(K):
            total += np.exp(log_p[i, k] - top)
        out[i] = top + np.log(total)
    return out


@njit(**JIT)
def _row_max(x, i):
    """max of row i of x (N, K), by index (no row view), NaN propagated as ndarray.max does."""
    top = x[i, 0]
    for k in range(1, x.shape[1]):
        v = x[i, k]
        if v > top or np.isnan(v):
            top = v
            if np.isnan(v):
                break
    return top


@njit(**JIT)
def rows_from_log(log_p):
    """Each row of log_p (N, K) turned in place into the distribution proportional to exp(row); returns it."""
    for i in range(log_p.shape[0]):
        top = _row_max(log_p, i)
        total = 0.0
        for k in range(log_p.shape[1]):
            log_p[i, k] = np.exp(log_p[i, k] - top)
            total += log_p[i, k]
        for k in range(log_p.shape[1]):
            log_p[i, k] /= total
    return log_p
