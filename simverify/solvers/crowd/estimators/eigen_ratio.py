"""Dalvi et al. (2013)'s eigenvalue-ratio estimator of binary answers (``eigen-ratio``)."""
from __future__ import annotations

from ._base import _Aggregator


class EigenRatio(_Aggregator):
    """Dalvi et al. (2013) EigenRatio (binary labels).

    Worker weights are the ratio of the leading eigenvectors of the agreement matrix and of the co-labelling count
    matrix; the task score is the weighted vote of the answers read as -1 (the first label in sorted order) and +1
    (the second). Fit refuses answers without exactly two labels. A weak implementation: at chance on the shipped
    RTE set, where more than half of its worker weights come out negative (docs/findings/crowd.md).

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
    .. [1] Dalvi, Dasgupta, Kumar, Rastogi (2013), Aggregating Crowdsourced Binary Ratings, WWW.

    Examples
    --------
    >>> from simverify.solvers.crowd.estimators import EigenRatio, example_answers
    >>> frame = example_answers()
    >>> EigenRatio().fit_predict(frame).tolist()
    ['y', 'n', 'y', 'n', 'y', 'n']
    """
    method = "eigen-ratio"
