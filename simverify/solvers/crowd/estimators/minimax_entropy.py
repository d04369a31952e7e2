"""Regularised minimax conditional entropy (Zhou et al. 2012, 2015; ``minimax-entropy`` and
``minimax-entropy-cv``)."""
from __future__ import annotations

import pandas as pd

from ....validation import Integer, Real
from ..codes import folds_problem
from ..methods import Aggregation
from ..minimax_entropy import (
    FOLDS,
    GRID_EXPONENTS,
    check_exponents,
    minimax_entropy,
    minimax_entropy_cv,
    resolve_penalties,
)
from ._base import SEED_CONSTRAINT, _Aggregator


class MinimaxEntropy(_Aggregator):
    """Regularised minimax conditional entropy (Zhou et al. 2012, 2015); alpha penalises the item terms, beta the
    worker terms.

    P(answer k | true c) = softmax_k(sigma_worker(c, k) + tau_task(c, k)). From the terms fitted to the vote
    fractions, L-BFGS maximises the penalised likelihood with the true labels summed out (the objective of the
    original's EM) to convergence. A RuntimeWarning says when the penalties flatten every posterior.

    Parameters
    ----------
    alpha : float or None, default=None
        A finite number >= 0: the l2 penalty on the task terms tau. None: the rule of the authors' released code,
        beta x (number of tasks) / (number of workers).
    beta : float or None, default=None
        A finite number >= 0: the l2 penalty on the worker terms sigma. None: K^2 / 4 for K labels (the same rule).
        No gold label chooses either; ``MinimaxEntropyCV`` chooses both by held-out likelihood.

    Attributes
    ----------
    labels_ : pandas.Series
        The aggregated label of each task (index 'task', in order of first appearance), named 'agg_label'.
    probas_ : pandas.DataFrame
        Tasks x labels (the labels given, sorted): the fitted distribution of each task's true label.
    alpha_, beta_ : float
        The penalties used.

    References
    ----------
    .. [1] Zhou, Basu, Mao, Platt (2012), Learning from the Wisdom of Crowds by Minimax Entropy, NeurIPS.
    .. [2] Zhou, Liu, Platt, Meek (2015), Regularized Minimax Conditional Entropy for Crowdsourcing, arXiv:1503.07240.

    Examples
    --------
    >>> from simverify.solvers.crowd.estimators import MinimaxEntropy, example_answers
    >>> frame = example_answers()
    >>> model = MinimaxEntropy().fit(frame)
    >>> model.labels_.tolist()
    ['y', 'n', 'y', 'n', 'y', 'n']
    >>> (model.alpha_, model.beta_)
    (1.5, 1.0)
    """
    method = "minimax-entropy"
    _parameter_constraints = {"alpha": [Real(0.0), None], "beta": [Real(0.0), None]}

    def __init__(self, alpha: float | None = None, beta: float | None = None):
        self.alpha = alpha
        self.beta = beta

    def _aggregate(self, answers) -> Aggregation:
        a = answers
        self.alpha_, self.beta_ = resolve_penalties(self.alpha, self.beta, a.n_items, a.n_workers, a.n_classes)
        return Aggregation(minimax_entropy(a.item, a.worker, a.label, a.n_items, a.n_workers, a.n_classes,
                                           alpha=self.alpha_, beta=self.beta_))


class MinimaxEntropyCV(_Aggregator):
    """``MinimaxEntropy`` at the penalties with the largest held-out likelihood of the answers (Liu's
    cross-validation, as scikit-learn's ``LassoCV`` is to ``Lasso``): each worker's answers are dealt at random
    into ``folds`` folds; for each e in ``exponents``, beta = 2^e K^2 and alpha = beta N / M, the model is fitted
    on all folds but one and scored on the held-out answers; ties go to the stronger penalties. No gold label is
    read. Costs len(exponents) x folds + 1 fits. On the seven shipped sets Liu's grid chooses its weakest point,
    the authors' rule, every time (docs/findings/crowd.md).

    Parameters
    ----------
    folds : int, default=5
        The number of folds, >= 2.
    exponents : list or tuple of float, default=(-2, -1, 0, 1, 2)
        The grid, numbers in [-60, 60] (Liu's default; e = -2 is the authors' rule).
    random_state : int, numpy.random.SeedSequence, list of int or None, default=0
        Drives the folds.

    Attributes
    ----------
    labels_, probas_ : as ``MinimaxEntropy``'s.
    alpha_, beta_ : float
        The penalties chosen.
    heldout_log_likelihood_ : pandas.Series
        The mean held-out log-likelihood per fold of each (alpha, beta) tried (a MultiIndex).

    Examples
    --------
    >>> from simverify.datasets.crowd import shipped, to_frame
    >>> from simverify.solvers.crowd.estimators import MinimaxEntropyCV
    >>> model = MinimaxEntropyCV().fit(to_frame(shipped("bluebird")))
    >>> (round(model.alpha_, 2), model.beta_)  # the authors' rule, here
    (2.77, 1.0)
    """
    method = "minimax-entropy-cv"
    _parameter_constraints = {"folds": Integer(2), "exponents": [list, tuple], "random_state": SEED_CONSTRAINT}

    def __init__(self, folds: int = FOLDS, exponents: tuple | list = GRID_EXPONENTS,
                 random_state: int | None = 0):
        self.folds = folds
        self.exponents = exponents
        self.random_state = random_state

    def _method(self) -> str:
        check_exponents(type(self).__name__, self.exponents)  # each entry, before the data are read
        return self.method

    def _answers(self, data):
        answers = super()._answers(data)
        problem = folds_problem(answers.worker, answers.n_workers, self.folds)  # before any fit
        if problem:
            raise ValueError(f"{type(self).__name__}: {problem}")
        return answers

    def _aggregate(self, answers) -> Aggregation:
        a = answers
        posteriors, choice = minimax_entropy_cv(a.item, a.worker, a.label, a.n_items, a.n_workers, a.n_classes,
                                                folds=self.folds, seed=self._seed(),
                                                exponents=self.exponents)
        self.alpha_, self.beta_ = choice.alpha, choice.beta
        index = pd.MultiIndex.from_tuples(choice.grid, names=["alpha", "beta"])
        self.heldout_log_likelihood_ = pd.Series(choice.heldout_log_likelihood, index=index,
                                                 name="heldout_log_likelihood")
        return Aggregation(posteriors, penalties=choice)
