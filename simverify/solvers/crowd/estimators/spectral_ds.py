"""Spectral-D&S (Zhang, Chen, Zhou & Jordan 2014): third-order moments, then EM (``spectral-ds``)."""
from __future__ import annotations

from ._base import SEED_CONSTRAINT, _Aggregator


class SpectralDS(_Aggregator):
    """Spectral-D&S (Zhang, Chen, Zhou & Jordan 2014): third-order moments, then Dawid-Skene EM.

    The annotators are dealt into three groups (so at least three are needed: fit refuses fewer); EM (at most 100
    iterations, tol 1e-5) starts from the moment model mixed with 1 % of the uniform confusion.

    Parameters
    ----------
    random_state : int, numpy.random.SeedSequence, list of int or None, default=0
        The root seed of the random starts of the tensor power method: an integer >= 0, a SeedSequence or a
        non-empty list of integers >= 0. None is taken as 0 (the same draws, not fresh entropy as in scikit-learn).

    Attributes
    ----------
    labels_ : pandas.Series
        The aggregated label of each task (index 'task', in order of first appearance), named 'agg_label'.
    probas_ : pandas.DataFrame
        Tasks x labels (the labels given, sorted): the posteriors of the last E-step.
    priors_ : pandas.Series
        The learned prior of each true label, named 'prior'.
    errors_ : pandas.DataFrame
        The learned P(observed | true): rows (worker, observed label), columns the true labels.

    References
    ----------
    .. [1] Zhang, Chen, Zhou, Jordan (2014), Spectral Methods Meet EM: A Provably Optimal Algorithm for
       Crowdsourcing, NeurIPS.

    Examples
    --------
    >>> from simverify.solvers.crowd.estimators import SpectralDS, example_answers
    >>> frame = example_answers()
    >>> SpectralDS().fit_predict(frame).tolist()
    ['y', 'n', 'y', 'n', 'y', 'n']
    """
    method = "spectral-ds"
    _parameter_constraints = {"random_state": SEED_CONSTRAINT}

    def __init__(self, random_state: int = 0):
        self.random_state = random_state
