"""The base of the crowd-kit-shaped aggregators: ``_Aggregator`` (fit on a task, worker, label frame; labels_,
probas_, and for the Dawid-Skene methods priors_ and errors_) and ``_EMRefined`` (a co-occurrence method with an EM
variant), and the parameter constraints they share."""
from __future__ import annotations

import pandas as pd

from ....datasets.crowd import from_frame
from ....validation import Boolean, Integer, Options, ParamsMixin, Real, Seed, validate_params
from ..codes import answers_problem
from ..methods import PER_ANNOTATOR, Aggregation, aggregate, check_method, em_from_cooccurrence_model
from ..pipeline import ALIGNMENTS


def _like(values, column: pd.Series, name: str) -> pd.Index:
    """``values`` (ids or labels read from ``column``, in their sorted order or order of appearance: a categorical
    column's classes come sorted by value, not in its categories' order) as an Index of the column's dtype
    (integer labels stay integers, as crowd-kit returns them); an extension dtype that cannot hold them again
    leaves pandas' inference (none of the 20 dtypes tried does)."""
    try:
        return pd.Index(values, dtype=column.dtype, name=name)
    except (TypeError, ValueError):
        return pd.Index(list(values), name=name)


EM_CONSTRAINTS = {"n_iter": Integer(0), "tol": Real(0.0)}  # n_iter = 0 is crowd-kit's iteration 0 (no EM step)
SEED_CONSTRAINT = [Seed(), None]
ALIGNMENT_CONSTRAINT = Options(*ALIGNMENTS)  # 'common' (Proposition 1) or 'per-annotator' (the authors' code)


def aligned(start: str, alignment: str) -> str:
    """The method name of the co-occurrence model ``start`` under ``alignment`` (robsymnmf-per-annotator)."""
    return start + (PER_ANNOTATOR if alignment == "per-annotator" else "")


class _Aggregator(ParamsMixin):
    """Base: ``method`` names the entry of ``methods.METHODS``. Subclasses' __init__ stores parameters only; each
    class declares ``_parameter_constraints`` and ``fit`` checks them first (``validation.validate_params``)."""
    method = ""
    _parameter_constraints: dict = {}

    def _method(self) -> str:
        return self.method

    def _seed(self):
        """The root seed: random_state, None (or no such parameter) meaning 0."""
        seed = getattr(self, "random_state", None)
        return 0 if seed is None else seed

    def _aggregate(self, answers) -> Aggregation:
        return aggregate(answers, self._method(), seed=self._seed())

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
        tasks = _like(answers.item_ids, data["task"], "task")
        labels = _like(answers.classes, data["label"], "label")
        self.probas_ = pd.DataFrame(result.posteriors, index=tasks, columns=labels)
        self.labels_ = pd.Series(labels[result.posteriors.argmax(axis=1)], index=tasks, name="agg_label")
        if result.model is not None:
            self.priors_ = pd.Series(result.model.priors, index=labels, name="prior")
            M, K = answers.n_workers, answers.n_classes
            rows = pd.MultiIndex.from_product([_like(answers.worker_ids, data["worker"], "worker"), labels])
            self.errors_ = pd.DataFrame(result.model.confusion.reshape(M * K, K), index=rows, columns=labels)
        return self

    def fit_predict(self, data: pd.DataFrame, true_labels: pd.Series | None = None) -> pd.Series:
        return self.fit(data, true_labels).labels_

    def fit_predict_proba(self, data: pd.DataFrame, true_labels: pd.Series | None = None) -> pd.DataFrame:
        return self.fit(data, true_labels).probas_


class _EMRefined(_Aggregator):
    """A co-occurrence method whose em=True variant refines by EM for at most n_iter iterations, until the
    evidence lower bound per answer gains less than tol (crowd-kit's rule), from the learned model mixed with
    the share ``smoothing`` of the uniform confusion (0: the paper's start; model.START_SMOOTHING is the
    -em-smoothed methods' share, which lets EM leave the start's exact zeros). smoothing needs em=True."""
    start = ""
    _parameter_constraints = {"em": Boolean(), **EM_CONSTRAINTS, "smoothing": Real(0.0, 1.0, closed="left"),
                              "alignment": ALIGNMENT_CONSTRAINT}

    def _method(self) -> str:
        if self.smoothing and not self.em:
            raise ValueError(f"{type(self).__name__}: smoothing={self.smoothing!r} applies to EM's start: set em=True")
        start = aligned(self.start, self.alignment)
        return f"{start}-em" if self.em else start

    def _aggregate(self, answers) -> Aggregation:
        if self.em:
            return em_from_cooccurrence_model(answers, aligned(self.start, self.alignment), self.n_iter, self.tol,
                                              self.smoothing)
        return super()._aggregate(answers)
