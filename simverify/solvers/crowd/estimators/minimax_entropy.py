"""Regularised minimax conditional entropy (Zhou et al. 2012, 2015; ``minimax-entropy``)."""
from __future__ import annotations

from ....validation import Real
from ..methods import Aggregation
from ..votes import ITEM_PENALTY, WORKER_PENALTY, minimax_entropy
from ._base import _Aggregator


class MinimaxEntropy(_Aggregator):
    """Regularised minimax conditional entropy (Zhou et al. 2012, 2015); alpha penalises the item terms, beta the
    worker terms.

    P(answer k | true c) = softmax_k(sigma_worker(c, k) + tau_task(c, k)); from the vote fractions, the terms and
    the task distributions are refitted in turn (at most 50 times) until no probability moves by 1e-4.

    Parameters
    ----------
    alpha : float, default=10.0
        A finite number >= 0: the l2 penalty on the task terms tau.
    beta : float, default=1.0
        A finite number >= 0: the l2 penalty on the worker terms sigma. Neither paper fixes alpha and beta; these
        defaults were picked by the error on the four shipped sets' gold labels, so errors there are optimistic.

    Attributes
    ----------
    labels_ : pandas.Series
        The aggregated label of each task (index 'task', in order of first appearance), named 'agg_label'.
    probas_ : pandas.DataFrame
        Tasks x labels (the labels given, sorted): the fitted distribution of each task's true label.

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
    >>> model.probas_.round(2).values.tolist()
    [[0.04, 0.96], [0.96, 0.04], [0.02, 0.98], [0.98, 0.02], [0.02, 0.98], [0.98, 0.02]]
    """
    method = "minimax-entropy"
    _parameter_constraints = {"alpha": Real(0.0), "beta": Real(0.0)}

    def __init__(self, alpha: float = ITEM_PENALTY, beta: float = WORKER_PENALTY):
        self.alpha = alpha
        self.beta = beta

    def _aggregate(self, answers) -> Aggregation:
        a = answers
        return Aggregation(minimax_entropy(a.item, a.worker, a.label, a.n_items, a.n_workers, a.n_classes,
                                           alpha=self.alpha, beta=self.beta))
