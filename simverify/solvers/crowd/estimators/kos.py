"""Karger, Oh & Shah (2011) message passing on binary labels (``kos``)."""
from __future__ import annotations

from ._base import SEED_CONSTRAINT, _Aggregator


class KOS(_Aggregator):
    """Karger, Oh & Shah (2011) message passing (binary labels).

    20 rounds of messages on the task-worker graph, started from draws of N(1, 1); the answers are read as -1 (the
    first label in sorted order) and +1 (the second). Fit refuses answers without exactly two labels. A weak
    implementation: at chance on the shipped RTE set and behind majority vote on Bluebird (docs/findings/crowd.md
    counts both as failures of this implementation); on small dense designs its messages may not settle.

    Parameters
    ----------
    random_state : int, numpy.random.SeedSequence, list of int or None, default=0
        The root seed of the starting messages: an integer >= 0, a SeedSequence or a non-empty list of
        integers >= 0. None is taken as 0 (the same draws, not fresh entropy as in scikit-learn).

    Attributes
    ----------
    labels_ : pandas.Series
        The aggregated label of each task (index 'task', in order of first appearance), named 'agg_label'.
    probas_ : pandas.DataFrame
        Tasks x the two labels (sorted): one-hot, the sign of the task's score (a score of 0 gives 0.5, 0.5).

    References
    ----------
    .. [1] Karger, Oh, Shah (2011), Iterative Learning for Reliable Crowdsourcing Systems, NeurIPS.

    Examples
    --------
    >>> from simverify.solvers.crowd.estimators import KOS, example_answers
    >>> frame = example_answers()
    >>> KOS().fit_predict(frame).tolist()
    ['y', 'n', 'y', 'n', 'y', 'n']
    """
    method = "kos"
    _parameter_constraints = {"random_state": SEED_CONSTRAINT}

    def __init__(self, random_state: int = 0):
        self.random_state = random_state
