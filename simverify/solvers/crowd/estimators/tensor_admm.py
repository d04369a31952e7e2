"""TensorADMM (Traganitis, Pages-Zamora & Giannakis 2018): AO-ADMM on second- and third-order co-occurrences
(``tensor-admm``, ``tensor-admm-euclidean``, ``tensor-admm-observed``)."""
from __future__ import annotations

from ....validation import Options
from ..methods import Aggregation, tensor_admm_aggregation, warn_if_uninformative
from ..tensor_admm import METHODS, MOMENTS, PROJECTIONS
from ._base import SEED_CONSTRAINT, _Aggregator


class TensorADMM(_Aggregator):
    """TensorADMM: the confusions and the prior fitted to the annotators' co-occurrences of second and third order
    by alternating least squares, each block by proximal ADMM steps on the simplex (at most 499 sweeps of 10
    steps), from a random start; each annotator's confusion then aligned on its own, and the MAP predictor.

    Parameters
    ----------
    moments : {'code', 'observed'}, default='code'
        'code': as the authors of Ibrahim & Fu (2021) ran it (``main_AMT.m``): every pair and triple of annotators
        fitted, the unobserved ones as zero moments, and the first-order term with zero means. 'observed': only
        the observed pairs and triples, and the annotators' answer frequencies.
    projection : {'code', 'euclidean'}, default='code'
        'code': the simplex projection of the authors' code, which sets negative entries to 0 first.
        'euclidean': the Euclidean projection. With both options at 'code' the fit stalls at uniform confusions
        on sparse answers (RTE, TREC, LabelMe, web, temp: docs/findings/crowd.md) and warns; either correction
        alone moves off them.
    random_state : int, numpy.random.SeedSequence, list of int or None, default=0
        The root seed of the random start (every confusion entry uniform, columns normalised). None is taken as 0.

    Attributes
    ----------
    labels_ : pandas.Series
        The aggregated label of each task (index 'task', in order of first appearance), named 'agg_label'.
    probas_ : pandas.DataFrame
        Tasks x labels (the labels given, sorted): the MAP posteriors.
    priors_ : pandas.Series
        The fitted prior, named 'prior' (as the code leaves it: not re-ordered by the per-annotator alignment).
    errors_ : pandas.DataFrame
        The fitted P(observed | true): rows (worker, observed label), columns the true labels.

    References
    ----------
    .. [1] Traganitis, Pages-Zamora, Giannakis (2018), Blind Multiclass Ensemble Classification, IEEE Trans.
       Signal Processing 66(18).

    Examples
    --------
    >>> from simverify.solvers.crowd.estimators import TensorADMM, example_answers
    >>> TensorADMM(moments="observed").fit_predict(example_answers()).tolist()
    ['y', 'n', 'y', 'n', 'y', 'n']
    """
    _parameter_constraints = {"moments": Options(*MOMENTS), "projection": Options(*PROJECTIONS),
                              "random_state": SEED_CONSTRAINT}

    def __init__(self, moments: str = "code", projection: str = "code", random_state: int = 0):
        self.moments = moments
        self.projection = projection
        self.random_state = random_state

    def _method(self) -> str:
        """The method of ``methods.METHODS`` these options name ('tensor-admm' for the combination no name has:
        every variant refuses and warns alike)."""
        chosen = {"moments": self.moments, "projection": self.projection}
        return next((name for name, options in METHODS.items()
                     if {"moments": "code", "projection": "code", **options} == chosen), "tensor-admm")

    def _aggregate(self, answers) -> Aggregation:
        warn_if_uninformative(answers, self._method())
        return tensor_admm_aggregation(answers, self._seed(), moments=self.moments, projection=self.projection)
