"""Ghosh, Kale & McAfee (2011): the leading singular vector of binary answers (``ghosh-svd``)."""
from __future__ import annotations

from ._base import _Aggregator


class GhoshSVD(_Aggregator):
    """Ghosh, Kale & McAfee (2011) (binary labels).

    The task score is the leading left singular vector of the tasks x workers matrix of answers read as -1 (the
    first label in sorted order), +1 (the second) and 0 (no answer), its sign chosen so that the workers' singular
    vector has a sum >= 0. Fit refuses answers without exactly two labels.

    Parameters
    ----------
    This aggregator takes no parameters.

    Attributes
    ----------
    labels_ : pandas.Series
        The aggregated label of each task (index 'task', in order of first appearance), named 'agg_label'.
    probas_ : pandas.DataFrame
        Tasks x the two labels (sorted): one-hot, the sign of the task's score (a score of 0 gives 0.5, 0.5).

    References
    ----------
    .. [1] Ghosh, Kale, McAfee (2011), Who Moderates the Moderators? Crowdsourcing Abuse Detection in User-Generated
       Content, ACM EC.

    Examples
    --------
    >>> from simverify.solvers.crowd.estimators import GhoshSVD, example_answers
    >>> frame = example_answers()
    >>> GhoshSVD().fit_predict(frame).tolist()
    ['y', 'n', 'y', 'n', 'y', 'n']
    """
    method = "ghosh-svd"
