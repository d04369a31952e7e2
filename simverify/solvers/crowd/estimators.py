"""Aggregators with crowd-kit's shape: ``fit(data)`` on a pandas DataFrame with columns ``task, worker, label``;
``labels_`` (Series indexed by task, named 'agg_label'), ``probas_`` (DataFrame, tasks x labels), and for the
Dawid-Skene methods ``priors_`` (Series indexed by label, named 'prior') and ``errors_`` (DataFrame indexed by
(worker, label) observed, columns the true labels). ``fit_predict`` and ``fit_predict_proba`` return labels_ and
probas_. A crowd-kit user switches with one import: ``from simverify.solvers.crowd.estimators import
DawidSkene``. Ties in ``labels_`` go to the first label in sorted order.

A shipped data set as such a frame: ``datasets.crowd.to_frame(datasets.crowd.shipped("bluebird"))``.

Recommended: ``RobSymNMF(em=True, smoothing=0.01)`` (the CLI's ``robsymnmf-em-smoothed``; 0.01 is
``model.START_SMOOTHING``): never worse than the printed RobSymNMF-EM on the four shipped sets and on twelve synthetic
problems. It is not the default: each estimator's defaults are the method of its name in the paper and in
``methods.METHODS`` (``RobSymNMF()`` is ``robsymnmf``: MAP, no EM), and ``RobSymNMF(weighted=False)``, which has no EM
variant, stays valid. On the 5-class web set MV-EM (``DawidSkene``) is the better choice."""
from __future__ import annotations

import pandas as pd

from simverify.datasets.crowd import from_frame
from simverify.validation import Boolean, Integer, Real, Seed, validate_params

from .codes import answers_problem
from .methods import (
    EM_ITERATIONS,
    EM_TOL,
    Aggregation,
    aggregate,
    check_method,
    em_from_cooccurrence_model,
    em_from_vote_fractions,
)
from .votes import ITEM_PENALTY, WORKER_PENALTY, minimax_entropy

EM_CONSTRAINTS = {"n_iter": Integer(0), "tol": Real(0.0)}  # n_iter = 0 is crowd-kit's iteration 0 (no EM step)
SEED_CONSTRAINT = [Seed(), None]


class _Aggregator:
    """Base: ``method`` names the entry of ``methods.METHODS``. Subclasses' __init__ stores parameters only; each
    class declares ``_parameter_constraints`` and ``fit`` checks them first (``validation.validate_params``)."""
    method = ""
    _parameter_constraints: dict = {}

    def _method(self) -> str:
        return self.method

    def _aggregate(self, answers) -> Aggregation:
        return aggregate(answers, self._method(), seed=getattr(self, "random_state", 0) or 0)

    def _answers(self, data: pd.DataFrame):
        """``data`` as coded answers; refused, naming the estimator, when malformed or when the method cannot
        learn from them (``codes.answers_problem``)."""
        owner = type(self).__name__
        try:
            answers = from_frame(data)
            check_method(self._method(), answers.n_classes)
        except ValueError as exc:
            raise ValueError(f"{owner}: {exc}") from None
        problem = answers_problem(self._method(), answers)
        if problem:
            raise ValueError(f"{owner}: {problem}")
        return answers

    def fit(self, data: pd.DataFrame, true_labels: pd.Series | None = None) -> _Aggregator:
        """Aggregate ``data`` (task, worker, label). ``true_labels`` is not used (crowd-kit's signature)."""
        validate_params(self)
        self._method()  # the parameters' combination, before the data are read
        answers = self._answers(data)
        result = self._aggregate(answers)
        tasks = pd.Index(answers.item_ids, name="task")
        labels = pd.Index(answers.classes, name="label")
        self.probas_ = pd.DataFrame(result.posteriors, index=tasks, columns=labels)
        self.labels_ = pd.Series(answers.classes[result.posteriors.argmax(axis=1)], index=tasks, name="agg_label")
        if result.model is not None:
            self.priors_ = pd.Series(result.model.priors, index=labels, name="prior")
            M, K = answers.n_workers, answers.n_classes
            rows = pd.MultiIndex.from_product([answers.worker_ids, answers.classes], names=["worker", "label"])
            self.errors_ = pd.DataFrame(result.model.confusion.reshape(M * K, K), index=rows, columns=labels)
        return self

    def fit_predict(self, data: pd.DataFrame, true_labels: pd.Series | None = None) -> pd.Series:
        return self.fit(data, true_labels).labels_

    def fit_predict_proba(self, data: pd.DataFrame, true_labels: pd.Series | None = None) -> pd.DataFrame:
        return self.fit(data, true_labels).probas_


class MajorityVote(_Aggregator):
    """Majority vote. Unlike crowd-kit's (vote fractions), probas_ is the decision: 1/(number tied) on each
    most-voted label, 0 elsewhere (the tie rule of Ibrahim & Fu's code)."""
    method = "mv"


class DawidSkene(_Aggregator):
    """Dawid-Skene EM from majority-vote fractions (MV-EM), stopped as crowd-kit's: after n_iter iterations or when
    the evidence lower bound per answer gains less than tol."""
    method = "mv-em"
    _parameter_constraints = EM_CONSTRAINTS

    def __init__(self, n_iter: int = EM_ITERATIONS, tol: float = EM_TOL):
        self.n_iter = n_iter
        self.tol = tol

    def _aggregate(self, answers) -> Aggregation:
        return em_from_vote_fractions(answers, self.n_iter, self.tol)


class SymNMF(_Aggregator):
    """Shifted-ReLU SymNMF of the observed co-occurrences, without imputation."""
    method = "symnmf"


class _EMRefined(_Aggregator):
    """A co-occurrence method whose em=True variant refines by EM for at most n_iter iterations, until the
    evidence lower bound per answer gains less than tol (crowd-kit's rule), from the learned model mixed with
    the share ``smoothing`` of the uniform confusion (0: the paper's start; model.START_SMOOTHING is the
    -em-smoothed methods' share, which lets EM leave the start's exact zeros). smoothing needs em=True."""
    start = ""
    _parameter_constraints = {"em": Boolean(), **EM_CONSTRAINTS, "smoothing": Real(0.0, 1.0, closed="left")}

    def _method(self) -> str:
        if self.smoothing and not self.em:
            raise ValueError(f"{type(self).__name__}: smoothing={self.smoothing!r} applies to EM's start: set em=True")
        return f"{self.start}-em" if self.em else self.start

    def _aggregate(self, answers) -> Aggregation:
        if self.em:
            return em_from_cooccurrence_model(answers, self.start, self.n_iter, self.tol, self.smoothing)
        return super()._aggregate(answers)


class DesSymNMF(_EMRefined):
    """Designated-annotator imputation (Eq. 7-8), SymNMF, MAP; em=True refines by EM (DesSymNMF-EM)."""
    start = "dessymnmf"

    def __init__(self, em: bool = False, n_iter: int = EM_ITERATIONS, tol: float = EM_TOL, smoothing: float = 0.0):
        self.em = em
        self.n_iter = n_iter
        self.tol = tol
        self.smoothing = smoothing


class RobSymNMF(_EMRefined):
    """Robust imputation (criterion 9, Algorithm 11), SymNMF, MAP; weighted=False is the w = 1 version; em=True
    refines by EM (RobSymNMF-EM). Recommended: em=True, smoothing=0.01 (``robsymnmf-em-smoothed``); the defaults are
    the paper's RobSymNMF (see the module docstring)."""
    start = "robsymnmf"
    _parameter_constraints = {"weighted": Boolean(), **_EMRefined._parameter_constraints}

    def __init__(self, weighted: bool = True, em: bool = False, n_iter: int = EM_ITERATIONS, tol: float = EM_TOL,
                 smoothing: float = 0.0):
        self.weighted = weighted
        self.em = em
        self.n_iter = n_iter
        self.tol = tol
        self.smoothing = smoothing

    def _method(self) -> str:
        if self.weighted:
            return super()._method()
        if self.em or self.smoothing:
            raise ValueError("RobSymNMF: the unweighted RobSymNMF (weighted=False) has no EM variant: set em=False "
                             "and smoothing=0")
        return "robsymnmf-unweighted"


class MultiSPA(_Aggregator):
    """MultiSPA (Ibrahim, Fu, Kargas & Huang 2019)."""
    method = "multispa"


class CNMF(_Aggregator):
    """CNMF (Ibrahim, Fu, Kargas & Huang 2019): criterion (4) in KL form, from MultiSPA's model."""
    method = "cnmf"


class SpectralDS(_Aggregator):
    """Spectral-D&S (Zhang, Chen, Zhou & Jordan 2014): third-order moments, then Dawid-Skene EM."""
    method = "spectral-ds"
    _parameter_constraints = {"random_state": SEED_CONSTRAINT}

    def __init__(self, random_state: int = 0):
        self.random_state = random_state


class MinimaxEntropy(_Aggregator):
    """Regularised minimax conditional entropy (Zhou et al. 2012, 2015); alpha penalises the item terms, beta the
    worker terms."""
    method = "minimax-entropy"
    _parameter_constraints = {"alpha": Real(0.0), "beta": Real(0.0)}

    def __init__(self, alpha: float = ITEM_PENALTY, beta: float = WORKER_PENALTY):
        self.alpha = alpha
        self.beta = beta

    def _aggregate(self, answers) -> Aggregation:
        a = answers
        return Aggregation(minimax_entropy(a.item, a.worker, a.label, a.n_items, a.n_workers, a.n_classes,
                                           alpha=self.alpha, beta=self.beta))


class KOS(_Aggregator):
    """Karger, Oh & Shah (2011) message passing (binary labels)."""
    method = "kos"
    _parameter_constraints = {"random_state": SEED_CONSTRAINT}

    def __init__(self, random_state: int = 0):
        self.random_state = random_state


class GhoshSVD(_Aggregator):
    """Ghosh, Kale & McAfee (2011) (binary labels)."""
    method = "ghosh-svd"


class EigenRatio(_Aggregator):
    """Dalvi et al. (2013) EigenRatio (binary labels)."""
    method = "eigen-ratio"


ESTIMATORS = {cls.__name__: cls for cls in (MajorityVote, DawidSkene, SymNMF, DesSymNMF, RobSymNMF, MultiSPA, CNMF,
                                             SpectralDS, MinimaxEntropy, KOS, GhoshSVD, EigenRatio)}
__all__ = list(ESTIMATORS)
