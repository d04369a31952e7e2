"""Designated-annotator imputation (Eq. 7-8), SymNMF, MAP (``dessymnmf``); em=True refines by EM."""
from __future__ import annotations

from ..methods import EM_ITERATIONS, EM_TOL
from ._base import _EMRefined


class DesSymNMF(_EMRefined):
    """Designated-annotator imputation (Eq. 7-8), SymNMF, MAP; em=True refines by EM (DesSymNMF-EM).

    Parameters
    ----------
    em : bool, default=False
        False: the paper's DesSymNMF, the learned model's posteriors (MAP). True: Dawid-Skene EM from that model.
    n_iter : int, default=100
        The most EM iterations, an integer >= 0 (0: the start's posteriors); used only with em=True.
    tol : float, default=1e-5
        A finite number >= 0: EM stops early when the evidence lower bound per answer gains less than tol in an
        iteration; used only with em=True.
    smoothing : float, default=0.0
        A number in [0, 1): EM starts from the learned model with each confusion column mixed as
        (1 - smoothing) A + smoothing / K (0: the paper's start; 0.01: the ``-em-smoothed`` method). A nonzero
        value needs em=True (fit refuses it otherwise).
    alignment : {'common', 'per-annotator'}, default='common'
        'common': one class permutation for all annotators (the paper's Proposition 1). 'per-annotator': each
        annotator's confusion aligned on its own after flooring at 1e-3, as the authors' released code does
        (``dessymnmf-per-annotator``; not printed in the paper). The code then runs 10 EM rounds: em=True,
        n_iter=10, tol=0 (``dessymnmf-per-annotator-em``).

    Attributes
    ----------
    labels_ : pandas.Series
        The aggregated label of each task (index 'task', in order of first appearance), named 'agg_label'.
    probas_ : pandas.DataFrame
        Tasks x labels (the labels given, sorted): the posteriors under the model (em=True: of the last E-step).
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
    >>> from simverify.solvers.crowd.estimators import DesSymNMF, example_answers
    >>> frame = example_answers()
    >>> DesSymNMF().fit_predict(frame).tolist()
    ['y', 'n', 'y', 'n', 'y', 'n']
    >>> DesSymNMF(em=True).fit(frame).errors_.loc["w4"].round(2).values.tolist()
    [[0.67, 0.33], [0.33, 0.67]]
    """
    start = "dessymnmf"

    def __init__(self, em: bool = False, n_iter: int = EM_ITERATIONS, tol: float = EM_TOL, smoothing: float = 0.0,
                 alignment: str = "common"):
        self.em = em
        self.n_iter = n_iter
        self.tol = tol
        self.smoothing = smoothing
        self.alignment = alignment
