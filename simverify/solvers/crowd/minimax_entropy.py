"""Regularised minimax conditional entropy (Zhou, Basu, Mao & Platt 2012; Zhou, Liu, Platt & Meek 2015), the
categorical model of Liu's released code, which Ibrahim & Fu (2021) ran as the baseline 'MinimaxEntropy'.

The model: P(annotator i answers k | item j of class c) = softmax_k(sigma[i, c, k] + tau[j, c, k]). The fit
maximises the penalised log-likelihood with the classes summed out (uniform prior), whose EM the original runs;
we run L-BFGS on it directly (``kernels.crowd.minimax.maximise``: in Numba, preconditioned by the terms' answer
counts, free of the GIL), from the terms fitted to majority-vote posteriors (as the original's first M-step,
which fits each worker's and each item's terms in turn, 25 steps each), to convergence; the original stops EM
when no posterior moves by 5e-3 (at most 50 rounds, in the callers).

Penalties: the authors' callers (main_AMT.m) set lambda_worker = K^2 / 4 and lambda_task = lambda_worker x
(mean answers per worker) / (mean answers per item) = lambda_worker N / M; ``penalties_by_heldout_likelihood``
chooses them instead by the held-out answers' likelihood over Liu's grid (XV_Likelihood_MinimaxEntropy_crowd_model.m),
whose weakest point is that rule.
Gold labels choose nothing here. Answers are integer codes: item, worker, label (n,)."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ...kernels.crowd.minimax import marginal_log_likelihood, maximise
from ...kernels.jit import FIT_THREADS
from ...kernels.rng import generator
from ...validation import Integer, Real, Seed, check_parameter, require, warn
from .codes import (
    CO_OCCURRENCE_BYTES,
    CV_FITS_AT_ONCE,
    FlatPosteriorsWarning,
    check_codes,
    folds_problem,
    minimax_bytes,
)
from .votes import vote_counts

WORKER_PENALTY_PER_CLASS_PAIR = 0.25  # the authors' callers: lambda_worker = K^2 / 4
START_STEPS = 20  # L-BFGS iterations fitting all terms at once to majority-vote posteriors (the start)
MAX_STEPS = 1000  # L-BFGS iterations on the marginal likelihood at most
MEMORY_PAIRS = 5  # L-BFGS's correction pairs (codes.MINIMAX_COPIES counts them): on the seven shipped sets the same
# maxima as 10, scipy's default, in 0.8x the time (the pairs are read twice an iteration)
FOLDS = 5  # Liu's default: each annotator's answers split into 5 folds
GRID_EXPONENTS = (-2, -1, 0, 1, 2)  # Liu's grid: lambda_worker = 2^e K^2 (e = -2 is the authors' rule)
FLAT = 1e-3  # posteriors all within this of uniform: the penalties flattened the model (warned)
ANSWER_CURVATURE = 0.25  # a softmax entry's curvature p (1 - p) is at most 1/4: each answer's weight in the
# L-BFGS preconditioner (``inverse_curvature``)
FTOL = 2.220446049250313e-09  # a fit stops when an iteration's relative gain is at most this (scipy L-BFGS-B's default)
GTOL = 1e-5  # or the gradient's largest entry (scipy's default)
CV_FTOL = 1e-7  # the cross-validation's fits stop at this relative gain: on the seven shipped sets their held-out
# scores are within 0.13 nats of FTOL's (the grid points differ by 0.2 nats or more) in 0.7x the time


def default_penalties(n_items: int, n_workers: int, n_classes: int) -> tuple[float, float]:
    """(alpha, beta) = (lambda_task, lambda_worker) by the authors' rule: beta = K^2 / 4, alpha = beta N / M (their
    mean(DegWork) / mean(DegTask); their K counts the labels answered, ours the classes, declared ones included)."""
    beta = WORKER_PENALTY_PER_CLASS_PAIR * n_classes ** 2
    return beta * n_items / n_workers, beta


def resolve_penalties(alpha: float | None, beta: float | None, n_items: int, n_workers: int,
                      n_classes: int) -> tuple[float, float]:
    """(alpha, beta) with None replaced by the authors' rule (``default_penalties``)."""
    rule = default_penalties(n_items, n_workers, n_classes)
    return (rule[0] if alpha is None else alpha), (rule[1] if beta is None else beta)


@dataclass
class MinimaxFit:
    """sigma (M, K, K) worker terms, tau (N, K, K) item terms, posteriors (N, K), the penalised log-likelihood."""
    sigma: np.ndarray
    tau: np.ndarray
    posteriors: np.ndarray
    log_likelihood: float


class _ByItem:
    """Answers sorted by item (the kernel's layout): item_ptr (N + 1,), worker and label (n,), scratch."""

    def __init__(self, item, worker, label, n_items, n_classes):
        order = np.argsort(item, kind="stable")
        self.item_ptr = np.zeros(n_items + 1, dtype=np.int64)
        np.cumsum(np.bincount(item, minlength=n_items), out=self.item_ptr[1:])
        self.worker, self.label = worker[order], label[order]
        degree = int(np.diff(self.item_ptr).max()) if n_items else 0
        self.probs = np.empty((max(degree, 1), n_classes, n_classes))

    def evaluate(self, sigma, tau, alpha, beta, q, g_sigma, g_tau) -> float:
        return marginal_log_likelihood(sigma, tau, self.item_ptr, self.worker, self.label, alpha, beta, q,
                                       g_sigma, g_tau, self.probs)


def _vote_fractions(item: np.ndarray, label: np.ndarray, n_items: int, n_classes: int) -> np.ndarray:
    """(N, K) majority-vote fractions; uniform for an item without answers."""
    counts = vote_counts(item, label, n_items, n_classes)
    total = counts.sum(axis=1, keepdims=True)
    return np.where(total > 0, counts / np.maximum(total, 1.0), 1.0 / n_classes)


def inverse_curvature(item: np.ndarray, worker: np.ndarray, n_items: int, n_workers: int, n_classes: int,
                      alpha: float, beta: float) -> np.ndarray:
    """((M + N) K^2,) the L-BFGS preconditioner: 1 / (penalty + ANSWER_CURVATURE x answers) for each term, the worker
    terms' then the item terms' (theta's layout): a lower bound on the inverse of the objective's complete-data
    curvature in that term (q <= 1 and p (1 - p) <= 1/4). Worker terms carry many answers and item terms few, so
    their raw scales differ by their degrees. A term of no penalty and no answers has no curvature (its gradient is
    0): scale 1."""
    K2 = n_classes * n_classes
    by_worker = beta + ANSWER_CURVATURE * np.bincount(worker, minlength=n_workers)
    by_item = alpha + ANSWER_CURVATURE * np.bincount(item, minlength=n_items)
    curvature = np.concatenate([np.repeat(by_worker, K2), np.repeat(by_item, K2)])
    return 1.0 / np.where(curvature > 0.0, curvature, 1.0)


def fit_minimax(item: np.ndarray, worker: np.ndarray, label: np.ndarray, n_items: int, n_workers: int,
                n_classes: int, alpha: float, beta: float, start: MinimaxFit | None = None,
                ftol: float = FTOL) -> MinimaxFit:
    """The model fitted to answers item, worker, label (n,) codes at penalties alpha (item terms) and beta (worker
    terms): terms fitted to the vote fractions (START_STEPS), then the marginal likelihood until an iteration's
    relative gain is at most ``ftol``; or, given ``start`` (a fit to the same items and annotators), the marginal
    likelihood from its terms (a warm start). Both by the preconditioned L-BFGS of
    ``kernels.crowd.minimax.maximise``, which holds no GIL (fits on two threads run at once). Codes are not
    checked here; the penalties and ``ftol`` are."""
    for name, value in (("alpha", alpha), ("beta", beta), ("ftol", ftol)):
        check_parameter("fit_minimax", name, value, Real(0.0))
    alpha, beta, ftol = float(alpha), float(beta), float(ftol)  # one kernel signature for ints and float32s too
    K = n_classes
    cut = n_workers * K * K
    theta = np.zeros(cut + n_items * K * K)
    if start is not None:
        require(start.sigma.shape == (n_workers, K, K) and start.tau.shape == (n_items, K, K),
                f"fit_minimax: a start of sigma {start.sigma.shape} and tau {start.tau.shape} does not fit "
                f"{n_workers} annotators, {n_items} items and {K} classes")
        require(bool(np.isfinite(start.sigma).all() and np.isfinite(start.tau).all()),
                "fit_minimax: the start's terms must be finite")
        theta[:cut], theta[cut:] = start.sigma.ravel(), start.tau.ravel()
    q = _vote_fractions(item, label, n_items, K)
    by_item = _ByItem(item, worker, label, n_items, K)
    scale = inverse_curvature(item, worker, n_items, n_workers, K, alpha, beta)
    data = (n_workers, K, by_item.item_ptr, by_item.worker, by_item.label, q, alpha, beta, by_item.probs)
    if start is None:
        maximise(False, theta, scale, START_STEPS, 0.0, 0.0, MEMORY_PAIRS, *data)
    value = maximise(True, theta, scale, MAX_STEPS, ftol, GTOL, MEMORY_PAIRS, *data)[0]
    sigma, tau = theta[:cut].reshape(n_workers, K, K), theta[cut:].reshape(n_items, K, K)
    return MinimaxFit(sigma, tau, q, value)


PARAMETERS = {"alpha": [Real(0.0), None], "beta": [Real(0.0), None], "folds": Integer(2), "seed": Seed()}


def _check(owner, item, worker, label, n_items, n_workers, n_classes, **parameters) -> None:
    check_codes(owner, item, worker, label, n_items, n_workers, n_classes)
    for name, value in parameters.items():
        check_parameter(owner, name, value, PARAMETERS[name])
    need = minimax_bytes(n_items, n_workers, n_classes, CV_FITS_AT_ONCE if "folds" in parameters else 1)
    require(need <= CO_OCCURRENCE_BYTES, f"{owner}: {n_items} items, {n_workers} annotators and {n_classes} classes "
                                         f"need about {need / 2 ** 30:.3g} GiB; the limit is "
                                         f"{CO_OCCURRENCE_BYTES / 2 ** 30:.0f} GiB")
    if "folds" in parameters:
        problem = folds_problem(np.asarray(worker), n_workers, parameters["folds"])
        require(problem is None, f"{owner}: {problem}")


def _warn_if_flat(posteriors: np.ndarray, item: np.ndarray, alpha: float, beta: float) -> None:
    """A FlatPosteriorsWarning when answered items' posteriors lie within FLAT of uniform (their labels are then
    arbitrary), with how many."""
    if posteriors.shape[1] < 2:
        return
    answered = np.unique(item)
    flat = int((np.ptp(posteriors[answered], axis=1) < FLAT).sum())
    if flat:
        warn("minimax-entropy", f"at the penalties alpha {alpha:.3g} (items) and beta {beta:.3g} (annotators) "
             f"{'every one' if flat == answered.size else f'{flat}'} of the {answered.size} answered items' "
             f"posteriors lie within {FLAT} of uniform, so their labels are arbitrary: other penalties (in Python), "
             "or mv-em", category=FlatPosteriorsWarning)


def minimax_entropy(item: np.ndarray, worker: np.ndarray, label: np.ndarray, n_items: int, n_workers: int,
                    n_classes: int, alpha: float | None = None, beta: float | None = None) -> np.ndarray:
    """Posteriors (n_items, K) of regularised minimax conditional entropy from answers item, worker, label (n,)
    codes; alpha penalises the item terms, beta the worker terms; None: the authors' rule (``default_penalties``)."""
    _check("minimax_entropy", item, worker, label, n_items, n_workers, n_classes, alpha=alpha, beta=beta)
    alpha, beta = resolve_penalties(alpha, beta, n_items, n_workers, n_classes)
    q = fit_minimax(item, worker, label, n_items, n_workers, n_classes, alpha, beta).posteriors
    _warn_if_flat(q, item, alpha, beta)
    return q


def _answer_folds(worker: np.ndarray, n_workers: int, folds: int,
                  seed: int | np.random.SeedSequence) -> np.ndarray:
    """(n,) fold of each answer: each annotator's answers in random order dealt to folds 0, 1, ... in turn (Liu's
    partition by workers, balanced)."""
    keys = generator(seed).random(worker.size)
    order = np.lexsort((keys, worker))
    first = np.zeros(n_workers + 1, dtype=np.int64)
    np.cumsum(np.bincount(worker, minlength=n_workers), out=first[1:])
    fold = np.empty(worker.size, dtype=np.int64)
    fold[order] = (np.arange(worker.size) - first[worker[order]]) % folds
    return fold


@dataclass
class PenaltyChoice:
    """The penalties chosen, the grid (alpha, beta) pairs tried and their mean held-out log-likelihoods."""
    alpha: float
    beta: float
    grid: list[tuple[float, float]]
    heldout_log_likelihood: list[float]


def check_exponents(owner: str, exponents) -> None:
    """Refuse a grid that is not a non-empty list or tuple of numbers in [-60, 60]."""
    check_parameter(owner, "exponents", exponents, [list, tuple])
    require(len(exponents) >= 1, f"{owner}: exponents must hold at least one number")
    for e in exponents:
        check_parameter(owner, "each of exponents", e, Real(-60.0, 60.0))


def penalties_by_heldout_likelihood(item: np.ndarray, worker: np.ndarray, label: np.ndarray, n_items: int,
                                    n_workers: int, n_classes: int, folds: int = FOLDS,
                                    seed: int | np.random.SeedSequence = 0,
                                    exponents: tuple | list = GRID_EXPONENTS) -> PenaltyChoice:
    """Liu's cross-validation: for each e in ``exponents``, beta = 2^e K^2 and alpha = beta N / M (e = -2: the
    authors' rule), fit on all folds but one and score the held-out answers by their likelihood (classes summed
    out, uniform prior); keep the best mean score, ties to the stronger penalties. No gold label is used. Each
    fold's fits run along the grid from the weakest penalties, each warm-started from the last (Liu's code starts
    every fit cold): the weakest point's fits are cold, and a stronger point's score depends on the weaker points
    the grid holds (a path; the objective is not concave). Repeated points share one fit. The folds' fits stop at
    the relative gain CV_FTOL."""
    return _cross_validated(item, worker, label, n_items, n_workers, n_classes, folds, seed, exponents, False)[0]


def _cross_validated(item, worker, label, n_items, n_workers, n_classes, folds, seed, exponents,
                     fit_weakest: bool) -> tuple[PenaltyChoice, MinimaxFit | None]:
    """``penalties_by_heldout_likelihood``'s choice, and with ``fit_weakest`` on more than one thread the fit to all
    answers at the grid's weakest point, run beside the folds (on 2 threads 5 folds leave one idle at the end), as
    the choice's final fit where the weakest point wins; None otherwise (a stronger point's fit that started is
    waited for, and unused)."""
    owner = "penalties_by_heldout_likelihood"
    _check(owner, item, worker, label, n_items, n_workers, n_classes, folds=folds, seed=seed)
    check_exponents(owner, exponents)
    alpha, beta = default_penalties(n_items, n_workers, n_classes)
    grid = [(float(2.0 ** (e + 2) * alpha), float(2.0 ** (e + 2) * beta)) for e in exponents]
    fold = _answer_folds(worker, n_workers, folds, seed)
    K = n_classes

    def heldout_along_grid(f: int) -> list[float]:
        """The held-out log-likelihoods of fold f under the fits on the other folds at every grid point, the
        weakest penalties first and cold, each stronger one warm-started from the last fit (a regularisation
        path, as glmnet fits one: the start phase skipped and fewer marginal steps; the objective is not concave,
        so a warm fit may end at another local maximum than a cold one). A scorer of its own per fold: the
        scorers' scratch is not shared between threads."""
        train, held = fold != f, fold == f
        scorer = _ByItem(item[held], worker[held], label[held], n_items, K)
        scores, fit, last = [0.0] * len(grid), None, None
        for g in sorted(range(len(grid)), key=lambda g: grid[g][1]):
            if grid[g] != last:  # a repeated grid point shares its fit and score
                fit = fit_minimax(item[train], worker[train], label[train], n_items, n_workers, K, *grid[g],
                                  start=fit, ftol=CV_FTOL)
                score = scorer.evaluate(fit.sigma, fit.tau, 0.0, 0.0, np.empty((n_items, K)),
                                        np.empty_like(fit.sigma), np.empty_like(fit.tau))
            scores[g], last = score, grid[g]
        return scores
    weakest = min(grid, key=lambda point: point[1])
    with ThreadPoolExecutor(max_workers=FIT_THREADS) as pool:
        paths = [pool.submit(heldout_along_grid, f) for f in range(folds)]
        final = None  # with one thread the speculative fit would only run after the folds
        if fit_weakest and FIT_THREADS > 1:
            final = pool.submit(fit_minimax, item, worker, label, n_items, n_workers, K, *weakest)
        per_fold = [path.result() for path in paths]  # in fold order, whatever the thread count
        scores = [sum(per_fold[f][g] for f in range(folds)) / folds for g in range(len(grid))]
        best = max(range(len(grid)), key=lambda g: (scores[g], grid[g][1]))
        fit = final.result() if final is not None and grid[best] == weakest else None
        if final is not None and fit is None:
            final.cancel()
    return PenaltyChoice(*grid[best], grid, scores), fit


def minimax_entropy_cv(item: np.ndarray, worker: np.ndarray, label: np.ndarray, n_items: int, n_workers: int,
                       n_classes: int, folds: int = FOLDS, seed: int | np.random.SeedSequence = 0,
                       exponents: tuple | list = GRID_EXPONENTS) -> tuple[np.ndarray, PenaltyChoice]:
    """Posteriors (n_items, K) at the penalties chosen by held-out likelihood, and the choice; the final fit is
    ``fit_minimax``'s on all answers at those penalties (minimax_entropy's at the authors' rule)."""
    choice, fit = _cross_validated(item, worker, label, n_items, n_workers, n_classes, folds, seed, exponents, True)
    if fit is None:
        fit = fit_minimax(item, worker, label, n_items, n_workers, n_classes, choice.alpha, choice.beta)
    _warn_if_flat(fit.posteriors, item, choice.alpha, choice.beta)
    return fit.posteriors, choice
