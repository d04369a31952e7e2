"""Kernel of the minimax conditional entropy aggregator (Zhou, Basu, Mao & Platt 2012; Zhou, Liu, Platt &
Meek 2015), a baseline of Ibrahim & Fu (2021). Answers as in ``kernels.crowd``: item, worker, label (n,) codes.

The model: P(annotator i answers k | item j of class c) = softmax_k(sigma[i, c, k] + tau[j, c, k]), worker terms
sigma (M, K, K) and item terms tau (N, K, K). Serial, fixed loop order: results do not depend on the thread count.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..jit import JIT
from ..lbfgs import ARMIJO, backtracked_step, direction, keep_pair, largest_magnitude, relative_decrease
from ..sums import lane_dot

INLINED = {**JIT, "inline": "always"}  # the one-line helpers of the per-answer loops, inlined at Numba's level
MAX_TRIALS = 30  # step lengths tried in one line search before it is declared failed
PRODUCT_CAP = 1e250  # a product of softmax normalisers (each at most K <= 10,000) is logged and reset past this


@njit(**INLINED)
def _exp_below_top(d):
    """exp(d) for d = z - max z <= 0, with exp(0) = 1 taken without the call (the same bits: the largest term of a
    softmax costs no exponential)."""
    return 1.0 if d == 0.0 else np.exp(d)


@njit(**JIT)
def _penalty_and_gradient(v, penalty, g):
    """||v||^2 of a (rows, K, K) array v, summed in its flat order, and g = -penalty v written in the same pass."""
    sq = 0.0
    for r in range(v.shape[0]):
        for c in range(v.shape[1]):
            for k in range(v.shape[2]):
                sq += v[r, c, k] * v[r, c, k]
                g[r, c, k] = -penalty * v[r, c, k]
    return sq


@njit(**JIT)
def _penalties(sigma, tau, alpha, beta, g_sigma, g_tau):
    """-alpha/2 ||tau||^2 - beta/2 ||sigma||^2, with the gradients set to theirs (-alpha tau, -beta sigma)."""
    sq_tau = _penalty_and_gradient(tau, alpha, g_tau)
    return -0.5 * (alpha * sq_tau + beta * _penalty_and_gradient(sigma, beta, g_sigma))


@njit(**JIT)
def _log_likelihood(marginal, sigma, tau, item_ptr, worker, label, alpha, beta, q, g_sigma, g_tau, probs):
    """The penalised marginal log-likelihood (``marginal``: q (N, K) gets the posteriors) or expected
    log-likelihood at the item distributions q, and its gradient; the two share every per-answer loop (written
    out: inlined helpers measured 10-15 % slower). Per item j and class c, log_q[c] = sum over j's answers of
    log P(label | c), whose normalisers' logarithms are taken of their product, once per class and item (rescaled
    past PRODUCT_CAP); the expected form skips classes of weight 0."""
    K = sigma.shape[1]
    total = _penalties(sigma, tau, alpha, beta, g_sigma, g_tau)
    log_q = np.empty(K)
    for j in range(item_ptr.size - 1):
        lo, hi = item_ptr[j], item_ptr[j + 1]
        for c in range(K):
            shifted, product = 0.0, 1.0
            if marginal or q[j, c] != 0.0:
                for t in range(lo, hi):  # probs[t - lo, c] = softmax_k(sigma[i, c, k] + tau[j, c, k])
                    i, x, r = worker[t], label[t], t - lo
                    top = -np.inf
                    for k in range(K):
                        top = max(top, sigma[i, c, k] + tau[j, c, k])
                    normaliser = 0.0
                    for k in range(K):
                        e = _exp_below_top(sigma[i, c, k] + tau[j, c, k] - top)
                        probs[r, c, k] = e
                        normaliser += e
                    inverse = 1.0 / normaliser
                    for k in range(K):
                        probs[r, c, k] *= inverse
                    shifted += sigma[i, c, x] + tau[j, c, x] - top
                    product *= normaliser
                    if product > PRODUCT_CAP:
                        shifted -= np.log(product)
                        product = 1.0
            log_q[c] = shifted - np.log(product)
        if marginal:  # q[j] = the posterior, total += log (1/K) sum_c exp(log_q[c])
            top = -np.inf
            for c in range(K):
                top = max(top, log_q[c])
            norm = 0.0
            for c in range(K):
                q[j, c] = _exp_below_top(log_q[c] - top)
                norm += q[j, c]
            inverse = 1.0 / norm
            for c in range(K):
                q[j, c] *= inverse
            total += top + np.log(norm / K)
        else:
            for c in range(K):
                if q[j, c] != 0.0:
                    total += q[j, c] * log_q[c]
        for t in range(lo, hi):  # the gradient: q[j, c] (1[k = label] - P(k | c)) at [worker, c, k] and [j, c, k]
            i, x = worker[t], label[t]
            for c in range(K):
                w = q[j, c]
                if w == 0.0:
                    continue
                for k in range(K):
                    g = w * ((1.0 if k == x else 0.0) - probs[t - lo, c, k])
                    g_sigma[i, c, k] += g
                    g_tau[j, c, k] += g
    return total


@njit(**JIT)
def expected_log_likelihood(sigma, tau, item_ptr, worker, label, alpha, beta, q, g_sigma, g_tau, probs):
    """The M-step objective at fixed item distributions q (N, K): sum over answers and classes c of
    q[item, c] log P(label | c) - alpha/2 ||tau||^2 - beta/2 ||sigma||^2. Answers sorted by item, as for
    ``marginal_log_likelihood``. Its gradients are written into g_sigma (M, K, K) and g_tau (N, K, K); probs
    (largest item degree, K, K) is scratch; returns the objective."""
    return _log_likelihood(False, sigma, tau, item_ptr, worker, label, alpha, beta, q, g_sigma, g_tau, probs)


@njit(**JIT)
def marginal_log_likelihood(sigma, tau, item_ptr, worker, label, alpha, beta, q, g_sigma, g_tau, probs):
    """The penalised log-likelihood with the true classes summed out under a uniform prior (the original's):
    sum_j log (1/K) sum_c prod_{answers of j} P(label | c) - alpha/2 ||tau||^2 - beta/2 ||sigma||^2. Answers sorted
    by item: those of item j are item_ptr[j]..item_ptr[j + 1] of worker, label (n,). Writes each item's posterior
    into q (N, K) and the gradient into g_sigma (M, K, K), g_tau (N, K, K) (Fisher's identity: the expected
    complete-data gradient under q); probs (largest item degree, K, K) is scratch. Returns the value."""
    return _log_likelihood(True, sigma, tau, item_ptr, worker, label, alpha, beta, q, g_sigma, g_tau, probs)


@njit(**JIT)
def _negated_objective(marginal, theta, grad, n_workers, n_classes, item_ptr, worker, label, q, alpha, beta, probs):
    """-(the objective) at the flat parameters theta = (sigma, tau) raveled, its negated gradient written into grad:
    the marginal log-likelihood (``marginal_log_likelihood``; it writes the posteriors into q) when ``marginal``,
    else the expected log-likelihood at the item distributions q (``expected_log_likelihood``); answers sorted by
    item."""
    K = n_classes
    cut = n_workers * K * K
    sigma, tau = theta[:cut].reshape((n_workers, K, K)), theta[cut:].reshape((-1, K, K))
    g_sigma, g_tau = grad[:cut].reshape((n_workers, K, K)), grad[cut:].reshape((-1, K, K))
    if marginal:
        value = marginal_log_likelihood(sigma, tau, item_ptr, worker, label, alpha, beta, q, g_sigma, g_tau, probs)
    else:
        value = expected_log_likelihood(sigma, tau, item_ptr, worker, label, alpha, beta, q, g_sigma, g_tau, probs)
    for i in range(grad.size):
        grad[i] = -grad[i]
    return -value


@njit(**JIT)
def maximise(marginal, theta, inverse_scale, steps, ftol, gtol, memory, n_workers, n_classes, item_ptr, worker, label,
             q, alpha, beta, probs):
    """Maximise the objective of ``_negated_objective`` over theta (n,) in place by L-BFGS (``kernels.lbfgs``)
    from theta, preconditioned by inverse_scale (n,) (an estimate of the inverse Hessian's diagonal), for at most
    ``steps`` iterations; it stops when an iteration's relative decrease of the negated objective is at most ftol,
    the gradient's largest entry at most gtol, no descent direction exists (a non-finite gradient), or a line
    search fails along the preconditioned gradient (one that fails along the pairs' direction is tried again
    along it, as scipy's L-BFGS-B restarts). Returns (objective, iterations,
    evaluations); q holds the posteriors of the last evaluation when ``marginal``."""
    n = theta.size
    S, Y = np.zeros((memory, n)), np.zeros((memory, n))
    rho, coeff = np.zeros(memory), np.zeros(memory)
    g, g_new, trial, d = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    args = (n_workers, n_classes, item_ptr, worker, label, q, alpha, beta, probs)
    f = _negated_objective(marginal, theta, g, *args)
    evaluations, newest, count, iterations = 1, -1, 0, 0
    while iterations < steps and not largest_magnitude(g) <= gtol:
        accepted, f_trial = False, f
        while not accepted:
            direction(g, S, Y, rho, newest, count, inverse_scale, d, coeff)
            slope = lane_dot(g, d)
            if not slope < 0.0 and count > 0:  # not a descent direction: forget the pairs
                count = 0
                direction(g, S, Y, rho, newest, count, inverse_scale, d, coeff)
                slope = lane_dot(g, d)
            if not slope < 0.0:  # no descent direction (a non-finite gradient or preconditioner): stop
                break
            step = 1.0 if count > 0 else min(1.0, 1.0 / largest_magnitude(d))
            for _ in range(MAX_TRIALS):
                for i in range(n):
                    trial[i] = theta[i] + step * d[i]
                f_trial = _negated_objective(marginal, trial, g_new, *args)
                evaluations += 1
                if f_trial <= f + ARMIJO * step * slope:
                    accepted = True
                    break
                step = backtracked_step(step, f, slope, f_trial)
            if accepted or count == 0:
                break
            count = 0  # the search failed along the pairs' direction: once more along the preconditioned gradient
        if not accepted:  # theta and g are the last accepted point's; q (marginal) the last trial's: re-evaluate
            f = _negated_objective(marginal, theta, g, *args)
            evaluations += 1
            break
        newest, count = keep_pair(S, Y, rho, newest, count, trial, theta, g_new, g, inverse_scale)
        done = relative_decrease(f, f_trial) <= ftol
        theta[:], g[:], f = trial, g_new, f_trial
        iterations += 1
        if done:
            break
    return -f, iterations, evaluations
