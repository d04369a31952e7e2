"""A label-free choice of aggregator (``--method auto``): each candidate Dawid-Skene method is fitted on the
answers of most items and scored by the log-likelihood of the held-out items' answers under its model (items split
into FOLDS folds, every fold held out once); no gold label is read. MV-EM is the default; another candidate is
chosen when its held-out log-likelihood is ahead by MARGIN_SE standard errors; the choice is then fitted on all the
answers.

Why it can work: a model that explains the answers of unseen items better is, for the Dawid-Skene family, the
better model of the annotators; the SymNMF family's failures on sparse data (misaligned annotators) show as a
lower held-out likelihood."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ...kernels.crowd import log_evidence
from ...kernels.jit import FIT_THREADS, one_blas_thread
from ...kernels.rng import generator
from ...validation import Integer, check_parameter, require
from .codes import answers_problem, groups_problem
from .model import DawidSkeneModel, smoothed

CANDIDATES = ("mv-em", "robsymnmf-em-smoothed", "spectral-ds")  # each learns a model; the first is the default
FIT_ORDER = {"robsymnmf-em-smoothed": 0, "spectral-ds": 1, "mv-em": 2}  # folds fitted the slowest method first
MARGIN_SE = 2.0  # another candidate replaces the default only when ahead by this many standard errors
MIN_GAIN = 1e-4  # ... and by at least this many nats per answer (equal models differ by rounding, ~1e-11)
FOLDS = 5
SCORE_SMOOTHING = 0.01  # every candidate's confusion mixed with 1 % of the uniform one before scoring (fair floors)
SPLIT_SEED = 20210618  # the item split is fixed, so the choice is deterministic


@dataclass(frozen=True)
class MethodChoice:
    """The method chosen, and every candidate's held-out log-likelihood per answer (None: not applicable, with the
    reason in ``skipped``)."""
    method: str
    scores: dict
    skipped: dict

    def explain(self) -> str:
        ranked = sorted(self.scores.items(), key=lambda kv: -kv[1])
        text = ", ".join(f"{name} {score:.4f}" for name, score in ranked)
        why = (f"chose {self.method} (held-out log-likelihood per answer, {FOLDS} folds of items: {text}; the default "
               f"{CANDIDATES[0]} unless another is ahead by {MARGIN_SE:g} standard errors)")
        return why + "".join(f"; {name} skipped: {reason}" for name, reason in self.skipped.items())


def applicable(answers, candidates: tuple[str, ...] = CANDIDATES) -> tuple[list[str], dict]:
    """(the candidates that can learn from ``answers``, {skipped candidate: why})."""
    usable, skipped = [], {}
    for name in candidates:
        problem = answers_problem(name, answers) or groups_problem(name, answers)
        if problem:
            skipped[name] = problem
        else:
            usable.append(name)
    return usable, skipped


def _subset(answers, items: np.ndarray):
    """The answers to ``items`` (codes into ``answers``), items recoded 0..len(items) - 1, annotators kept."""
    return answers.subset(np.isin(answers.item, items), items)


def check_auto(answers) -> None:
    """Refuse answers too small to hold out a fold of items (the CLI calls this before any work)."""
    require(answers.n_items >= FOLDS, f"--method auto holds out {FOLDS} folds of items and needs at least {FOLDS} "
                                      f"items, got {answers.n_items}; choose a method")


def _folds(n_items: int, folds: int) -> list[np.ndarray]:
    """The held-out items of each fold (sorted codes): a fixed permutation dealt into ``folds`` folds."""
    order = generator(np.random.SeedSequence(SPLIT_SEED)).permutation(n_items)
    return [np.sort(order[f::folds]) for f in range(folds)]


def _heldout_fold(answers, fit, held: np.ndarray) -> np.ndarray:
    """log P(answers of each item in ``held``) under the model ``fit`` learned on the other items."""
    model: DawidSkeneModel = smoothed(fit(_subset(answers, np.setdiff1d(np.arange(answers.n_items), held))),
                                      SCORE_SMOOTHING)
    test = _subset(answers, held)
    return log_evidence(test.item, test.worker, test.label, model.priors, model.confusion, test.n_items)


def heldout_evidence(answers, fit_model, names: list[str], threads: int = FIT_THREADS) -> dict[str, np.ndarray]:
    """{name: (n_items,) log P(item i's answers) under the model ``fit_model(answers of the other folds, name)``}:
    items dealt into FOLDS folds by a fixed permutation, every named method's folds fitted on ``threads`` threads
    (the kernels release the GIL; BLAS held to one thread meanwhile). Each fit is independent and placed by its
    fold, so the result does not depend on the thread count."""
    require(answers.n_items >= FOLDS, f"held-out scoring needs at least {FOLDS} items, got {answers.n_items}")
    folds = _folds(answers.n_items, FOLDS)
    tasks = [(name, held) for name in sorted(names, key=lambda n: FIT_ORDER.get(n, len(FIT_ORDER))) for held in folds]

    def run(task):
        name, held = task
        return _heldout_fold(answers, lambda a: fit_model(a, name), held)
    with one_blas_thread(), ThreadPoolExecutor(max_workers=threads) as pool:
        parts = list(pool.map(run, tasks))
    out = {name: np.empty(answers.n_items) for name in names}
    for (name, held), part in zip(tasks, parts):
        out[name][held] = part
    return out


def choose_method(answers, fit_model, candidates: tuple[str, ...] = CANDIDATES,
                  threads: int = FIT_THREADS) -> MethodChoice:
    """The first applicable candidate (the default), unless another's held-out log-likelihood is larger by more
    than MARGIN_SE standard errors of the paired per-item difference (a held-out likelihood barely ahead does not
    mean more accurate labels: on web Spectral-D&S scores 0.0016 nats per answer above MV-EM and errs 1.1 points
    more). ``fit_model(answers, name)`` returns the method's learned model (called from ``threads`` threads at once:
    it must not share mutable state). Refuses answers no candidate applies to."""
    check_auto(answers)
    usable, skipped = applicable(answers, candidates)
    require(usable, "no candidate of --method auto applies: " + "; ".join(f"{k}: {v}" for k, v in skipped.items()))
    check_parameter("choose_method", "threads", threads, Integer(1))
    per_item = heldout_evidence(answers, fit_model, usable, threads)
    n_answers = max(answers.item.size, 1)
    scores = {name: float(v.sum() / n_answers) for name, v in per_item.items()}
    default, chosen = usable[0], usable[0]
    for name in usable[1:]:
        gain = per_item[name] - per_item[default]
        se = gain.std(ddof=1) * np.sqrt(gain.size) if gain.size > 1 else np.inf
        if gain.sum() > max(MARGIN_SE * se, MIN_GAIN * n_answers) and scores[name] > scores[chosen]:
            chosen = name
    return MethodChoice(chosen, scores, skipped)
