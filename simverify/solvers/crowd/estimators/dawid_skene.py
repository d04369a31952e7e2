"""Dawid-Skene EM from majority-vote fractions (``mv-em``), stopped as crowd-kit's."""
from __future__ import annotations

from ..methods import EM_ITERATIONS, EM_TOL, Aggregation, em_from_vote_fractions
from ._base import EM_CONSTRAINTS, _Aggregator


class DawidSkene(_Aggregator):
    """Dawid-Skene EM from majority-vote fractions (MV-EM), stopped as crowd-kit's: after n_iter iterations or when
    the evidence lower bound per answer gains less than tol.

    Parameters
    ----------
    n_iter : int, default=100
        The most EM iterations, an integer >= 0 (crowd-kit's default). 0 is crowd-kit's iteration 0: probas_ are
        the vote fractions and the model one M-step from them.
    tol : float, default=1e-5
        A finite number >= 0: EM stops early when the evidence lower bound per answer gains less than tol in an
        iteration (crowd-kit's default).

    Attributes
    ----------
    labels_ : pandas.Series
        The aggregated label of each task (index 'task', in order of first appearance), named 'agg_label'.
    probas_ : pandas.DataFrame
        Tasks x labels (the labels given, sorted): the posteriors of the last E-step.
    priors_ : pandas.Series
        The learned prior of each true label, named 'prior' (the M-step from probas_, as crowd-kit).
    errors_ : pandas.DataFrame
        The learned P(observed | true): rows (worker, observed label), columns the true labels.

    References
    ----------
    .. [1] Dawid, Skene (1979), Maximum likelihood estimation of observer error-rates using the EM algorithm, JRSS C.

    Examples
    --------
    >>> from simverify.solvers.crowd.estimators import DawidSkene, example_answers
    >>> frame = example_answers()
    >>> ds = DawidSkene().fit(frame)
    >>> ds.labels_.tolist()
    ['y', 'n', 'y', 'n', 'y', 'n']
    >>> ds.priors_.round(2).to_dict()
    {'n': 0.5, 'y': 0.5}
    >>> ds.errors_.loc["w4"].round(2).values.tolist()  # rows: w4 said n, y; columns: the truth was n, y
    [[0.67, 0.33], [0.33, 0.67]]
    """
    method = "mv-em"
    _parameter_constraints = EM_CONSTRAINTS

    def __init__(self, n_iter: int = EM_ITERATIONS, tol: float = EM_TOL):
        self.n_iter = n_iter
        self.tol = tol

    def _aggregate(self, answers) -> Aggregation:
        return em_from_vote_fractions(answers, self.n_iter, self.tol)
