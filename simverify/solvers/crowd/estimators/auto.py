"""The label-free choice of method by held-out likelihood (``auto``)."""
from __future__ import annotations

import pandas as pd

from ..methods import Aggregation
from ..selection import check_auto
from ._base import SEED_CONSTRAINT, _Aggregator


class AutoAggregator(_Aggregator):
    """The candidate method (MV-EM, RobSymNMF-EM from the smoothed start, Spectral-D&S: those that apply) whose
    model gives the held-out answers the largest log-likelihood, no gold label read; the CLI's ``--method auto``.

    Each candidate is fitted on four fifths of the tasks and scored on the answers of the fifth held out, every
    fifth in turn. MV-EM (``DawidSkene``) is kept unless another candidate is ahead by two standard errors of the
    paired per-task difference and by 1e-4 nats per answer; the chosen method is then fitted on all the answers.

    Parameters
    ----------
    random_state : int, numpy.random.SeedSequence, list of int or None, default=0
        Drives the seeded candidates (Spectral-D&S).

    Attributes
    ----------
    labels_, probas_, priors_, errors_ : as the chosen method's estimator's.
    chosen_ : str
        The method chosen (a name of ``methods.METHODS``).
    heldout_log_likelihood_ : pandas.Series
        Each candidate scored: the held-out log-likelihood per answer.
    skipped_ : dict
        The candidates that do not apply, and why.

    Examples
    --------
    >>> from simverify.datasets.crowd import shipped, to_frame
    >>> from simverify.solvers.crowd.estimators import AutoAggregator
    >>> model = AutoAggregator().fit(to_frame(shipped("bluebird")))
    >>> model.chosen_
    'mv-em'
    >>> sorted(model.heldout_log_likelihood_.index)
    ['mv-em', 'robsymnmf-em-smoothed', 'spectral-ds']
    """
    method = "auto"
    _parameter_constraints = {"random_state": SEED_CONSTRAINT}

    def __init__(self, random_state: int = 0):
        self.random_state = random_state

    def _answers(self, data):
        answers = super()._answers(data)
        try:
            check_auto(answers)  # enough tasks for the folds, before any work
        except ValueError as exc:
            raise ValueError(f"{type(self).__name__}: {str(exc).replace('--method auto', 'auto')}") from None
        return answers

    def _aggregate(self, answers) -> Aggregation:
        result = super()._aggregate(answers)
        self.chosen_ = result.choice.method
        self.heldout_log_likelihood_ = pd.Series(result.choice.scores, name="heldout_log_likelihood")
        self.skipped_ = dict(result.choice.skipped)
        return result
