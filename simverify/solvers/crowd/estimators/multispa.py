"""MultiSPA (Ibrahim, Fu, Kargas & Huang 2019): SPA on each annotator's co-occurrence blocks (``multispa``)."""
from __future__ import annotations

from ._base import _Aggregator


class MultiSPA(_Aggregator):
    """MultiSPA (Ibrahim, Fu, Kargas & Huang 2019).

    For each annotator, the successive projection algorithm picks K of the (l1-normalised) columns of its
    co-occurrence blocks with the others as its confusion columns, the prior follows by least squares; probas_ are
    the learned model's posteriors (MAP predictor).

    Parameters
    ----------
    This aggregator takes no parameters.

    Attributes
    ----------
    labels_ : pandas.Series
        The aggregated label of each task (index 'task', in order of first appearance), named 'agg_label'.
    probas_ : pandas.DataFrame
        Tasks x labels (the labels given, sorted): the posteriors under the learned model.
    priors_ : pandas.Series
        The learned prior of each true label, named 'prior'.
    errors_ : pandas.DataFrame
        The learned P(observed | true): rows (worker, observed label), columns the true labels.

    References
    ----------
    .. [1] Ibrahim, Fu, Kargas, Huang (2019), Crowdsourcing via Pairwise Co-occurrences: Identifiability and
       Algorithms, NeurIPS.

    Examples
    --------
    >>> from simverify.solvers.crowd.estimators import MultiSPA, example_answers
    >>> frame = example_answers()
    >>> MultiSPA().fit_predict(frame).tolist()
    ['y', 'n', 'y', 'n', 'y', 'n']
    """
    method = "multispa"
