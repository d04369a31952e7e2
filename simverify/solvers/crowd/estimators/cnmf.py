"""CNMF (Ibrahim, Fu, Kargas & Huang 2019): criterion (4) in KL form from MultiSPA's model (``cnmf``)."""
from __future__ import annotations

from ._base import _Aggregator


class CNMF(_Aggregator):
    """CNMF (Ibrahim, Fu, Kargas & Huang 2019): criterion (4) in KL form, from MultiSPA's model.

    The start is MultiSPA's model mixed with 1 % of the uniform confusion; probas_ are the learned model's
    posteriors (MAP predictor).

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
    >>> from simverify.solvers.crowd.estimators import CNMF, example_answers
    >>> frame = example_answers()
    >>> CNMF().fit_predict(frame).tolist()
    ['y', 'n', 'y', 'n', 'y', 'n']
    """
    method = "cnmf"
