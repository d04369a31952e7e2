"""Majority vote (``mv``), with probas_ the decision: 1/(number tied) on each most-voted label."""
from __future__ import annotations

from ._base import _Aggregator


class MajorityVote(_Aggregator):
    """Majority vote. Unlike crowd-kit's (vote fractions), probas_ is the decision: 1/(number tied) on each
    most-voted label, 0 elsewhere (the tie rule of Ibrahim & Fu's code).

    Parameters
    ----------
    This aggregator takes no parameters.

    Attributes
    ----------
    labels_ : pandas.Series
        The aggregated label of each task (index 'task', in order of first appearance), named 'agg_label'.
    probas_ : pandas.DataFrame
        Tasks x labels (the labels given, sorted): 1/(number tied) on each most-voted label, 0 elsewhere.

    Examples
    --------
    >>> from simverify.solvers.crowd.estimators import MajorityVote, example_answers
    >>> frame = example_answers(tie=True)  # F: a 2-2 tie
    >>> mv = MajorityVote().fit(frame)
    >>> mv.labels_.tolist()
    ['y', 'n', 'y', 'n', 'y', 'n']
    >>> mv.probas_.loc["F"].tolist()
    [0.5, 0.5]
    """
    method = "mv"
