"""Robust imputation (criterion 9, Algorithm 11), SymNMF, MAP (``robsymnmf``); em=True refines by EM."""
from __future__ import annotations

from ....validation import Boolean
from ..methods import EM_ITERATIONS, EM_TOL
from ._base import _EMRefined


class RobSymNMF(_EMRefined):
    """Robust imputation (criterion 9, Algorithm 11), SymNMF, MAP; weighted=False is the w = 1 version; em=True
    refines by EM (RobSymNMF-EM). Its best setting: em=True, smoothing=0.01 (``robsymnmf-em-smoothed``; on sparse
    many-class data prefer ``DawidSkene``, see the package docstring); the defaults are
    the paper's RobSymNMF (see the package docstring).

    Parameters
    ----------
    weighted : bool, default=True
        True: criterion (9) with its weights w_(m,j); False: with w_(m,j) = 1 (``robsymnmf-unweighted``), which has
        no EM variant (fit refuses it with em=True or a nonzero smoothing).
    em : bool, default=False
        False: the paper's RobSymNMF, the learned model's posteriors (MAP). True: Dawid-Skene EM from that model.
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
        (``robsymnmf-per-annotator``; not printed in the paper; weighted only). The code then runs 10 EM rounds:
        em=True, n_iter=10, tol=0 (``robsymnmf-per-annotator-em``).

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
    >>> from simverify.solvers.crowd.estimators import RobSymNMF, example_answers
    >>> frame = example_answers()
    >>> RobSymNMF().fit_predict(frame).tolist()
    ['y', 'n', 'y', 'n', 'y', 'n']
    >>> model = RobSymNMF(em=True, smoothing=0.01).fit(frame)  # robsymnmf-em-smoothed
    >>> model.labels_.tolist()
    ['y', 'n', 'y', 'n', 'y', 'n']
    >>> model.errors_.loc["w4"].round(2).values.tolist()  # rows: w4 said n, y; columns: the truth was n, y
    [[0.67, 0.33], [0.33, 0.67]]
    """
    start = "robsymnmf"
    _parameter_constraints = {"weighted": Boolean(), **_EMRefined._parameter_constraints}

    def __init__(self, weighted: bool = True, em: bool = False, n_iter: int = EM_ITERATIONS, tol: float = EM_TOL,
                 smoothing: float = 0.0, alignment: str = "common"):
        self.weighted = weighted
        self.em = em
        self.n_iter = n_iter
        self.tol = tol
        self.smoothing = smoothing
        self.alignment = alignment

    def _method(self) -> str:
        if self.weighted:
            return super()._method()
        if self.em or self.smoothing or self.alignment != "common":
            raise ValueError("RobSymNMF: the unweighted RobSymNMF (weighted=False) has no EM or per-annotator "
                             "variant: set em=False, smoothing=0 and alignment='common'")
        return "robsymnmf-unweighted"
