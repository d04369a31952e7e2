"""Shifted-ReLU SymNMF of the observed co-occurrences without imputation (``symnmf``)."""
from __future__ import annotations

from ._base import ALIGNMENT_CONSTRAINT, _Aggregator, aligned


class SymNMF(_Aggregator):
    """Shifted-ReLU SymNMF of the observed co-occurrences, without imputation.

    The missing and diagonal co-occurrence blocks are left at zero (the paper's 'SymNMF (w/o imput.)' baseline);
    probas_ are the learned model's posteriors (MAP predictor).

    Parameters
    ----------
    alignment : {'common', 'per-annotator'}, default='common'
        'common': one class permutation for all annotators (the paper's Proposition 1). 'per-annotator': each
        annotator's confusion aligned on its own after flooring at 1e-3, as the authors' released code does
        (``symnmf-per-annotator``; not printed in the paper).

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
    .. [1] Ibrahim, Fu (2021), Crowdsourcing via Annotator Co-occurrence Imputation and Provable Symmetric
       Nonnegative Matrix Factorization, ICML (arXiv:2106.07193).

    Examples
    --------
    >>> from simverify.solvers.crowd.estimators import SymNMF, example_answers
    >>> frame = example_answers()
    >>> model = SymNMF().fit(frame)
    >>> model.labels_.tolist()
    ['y', 'n', 'y', 'n', 'y', 'n']
    >>> sorted(model.priors_.round(2).tolist())  # the example is symmetric in y and n: rounding picks which is which
    [0.47, 0.53]
    """
    method = "symnmf"
    _parameter_constraints = {"alignment": ALIGNMENT_CONSTRAINT}

    def __init__(self, alignment: str = "common"):
        self.alignment = alignment

    def _method(self) -> str:
        return aligned(self.method, self.alignment)
