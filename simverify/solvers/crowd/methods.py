"""Every aggregation method by its documented name (the CLI's --method and the estimators use this table).

``aggregate(answers, name)`` returns an ``Aggregation``: posteriors (n_items, K) and, for the Dawid-Skene
methods, the learned model. Names:

=====================  ==========================================================================
mv                     majority vote; ties split 1/(number tied)
mv-em                  Dawid-Skene EM from majority-vote fractions (Dawid & Skene 1979)
symnmf                 SymNMF without imputation (missing and diagonal blocks zero), Eq. (13)
dessymnmf              Eq. (7)-(8) imputation, then Eq. (13) and the MAP predictor
dessymnmf-em           dessymnmf, then EM from its model
dessymnmf-em-smoothed  dessymnmf-em from the smoothed model (as robsymnmf-em-smoothed)
robsymnmf              criterion (9) by Algorithm (11), then Eq. (13) and the MAP predictor
robsymnmf-em           robsymnmf, then EM from its model
robsymnmf-em-smoothed  robsymnmf-em from the model mixed with 1 % of the uniform confusion (START_SMOOTHING; EM
                       cannot leave a confusion entry that starts at exactly 0)
robsymnmf-unweighted   robsymnmf with w_{m,j} = 1
symnmf-per-annotator   symnmf, each annotator's columns aligned as the authors' released code aligns them
                       (``model.align_each_annotator``: entries floored at 1e-3, then the column for class k the one
                       largest in row k); not printed in the paper; likewise dessymnmf-per-annotator and
                       robsymnmf-per-annotator
*-per-annotator-em     EM from that model for 10 rounds, the code's budget (symnmf-, dessymnmf-, robsymnmf-)
auto                   the method among selection.CANDIDATES with the largest held-out log-likelihood of the
                       answers (items in 5 folds; no gold label read); Aggregation.choice says which and why
robsymnmf-components   robsymnmf on each connected component of the co-labelling graph separately (groups of
                       fewer than 3 annotators by majority vote)
multispa               MultiSPA (Ibrahim, Fu, Kargas & Huang 2019), MAP predictor
cnmf                   CNMF (the same paper): criterion (4) in KL form from MultiSPA's (smoothed) model, MAP
spectral-ds            Spectral-D&S (Zhang, Chen, Zhou & Jordan 2014): Algorithm 1's third-order moment model, then
                       EM from it (mixed with START_SMOOTHING of the uniform confusion)
tensor-admm            TensorADMM (Traganitis, Pages-Zamora & Giannakis 2018) as the authors' callers run it: the
                       confusions and prior fitted to the second- and third-order co-occurrences by AO-ADMM from a
                       random start (``seed``), the unobserved ones as zeros, each annotator aligned on its own, MAP
tensor-admm-euclidean  the same with the Euclidean projection onto the simplex (the code clips negatives first)
tensor-admm-observed   the same as tensor-admm fitted to the observed first-, second- and third-order moments only
minimax-entropy        regularised minimax conditional entropy (Zhou et al. 2012, 2015) from majority vote, at the
                       penalties of the authors' callers (``minimax_entropy.default_penalties``)
minimax-entropy-cv     the same at the penalties with the largest held-out likelihood of the answers (Liu's 5-fold
                       cross-validation; no gold label read); Aggregation.penalties says which
kos                    Karger, Oh & Shah (2011) message passing (binary)
ghosh-svd              Ghosh, Kale & McAfee (2011) leading singular vector (binary)
eigen-ratio            Dalvi et al. (2013) EigenRatio (binary)
=====================  ==========================================================================
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial

import numpy as np

from ...validation import Seed, check_parameter, require, warn
from . import minimax_entropy, pipeline, spectral, tensor_admm, votes
from .codes import (
    SMALLEST_GROUP,
    AnnotatorGroupsWarning,
    annotator_groups,
    answers_problem,
    groups_problem,
    memory_problem,
)
from .cooccurrence import cooccurrences
from .model import START_SMOOTHING, DawidSkeneModel, align_each_annotator, smoothed

EM_ITERATIONS = 100  # crowd-kit's DawidSkene default
PER_ANNOTATOR = "-per-annotator"  # suffix of the methods aligned as the authors' code aligns (align_each_annotator)
EM_TOL = 1e-5  # stop EM when the evidence lower bound per answer gains less (crowd-kit's default)


@dataclass(frozen=True)
class Aggregation:
    """posteriors (n_items, K); model the learned Dawid-Skene model, None for methods without one; choice, for
    'auto', the ``selection.MethodChoice`` (the method chosen and why); penalties, for 'minimax-entropy-cv', the
    ``minimax_entropy.PenaltyChoice``."""
    posteriors: np.ndarray
    model: DawidSkeneModel | None = None
    choice: object | None = None
    penalties: minimax_entropy.PenaltyChoice | None = None


def _codes(answers):
    return answers.item, answers.worker, answers.label, answers.n_items, answers.n_workers, answers.n_classes


def _mv(answers, seed):
    item, _, label, n, _, K = _codes(answers)
    return Aggregation(votes.majority_vote(item, label, n, K))


def _em_from(answers, init: DawidSkeneModel | None, n_iter: int = EM_ITERATIONS,
             tol: float = EM_TOL) -> Aggregation:
    probas, priors, errors = votes.dawid_skene(*_codes(answers), n_iter=n_iter, init=init, tol=tol)
    return Aggregation(probas, DawidSkeneModel(priors, errors))


def _map(answers, model: DawidSkeneModel) -> Aggregation:
    return Aggregation(model.posteriors(answers.item, answers.worker, answers.label, answers.n_items), model)


def _co_method(build: Callable) -> Callable:
    """A method that learns the model from the co-occurrences, then predicts by MAP."""
    def run(answers, seed):
        return _map(answers, build(*cooccurrences(*_codes(answers))))
    return run


MODELS: dict[str, Callable] = {  # the co-occurrence methods: (R, S) -> the learned Dawid-Skene model
    "symnmf": pipeline.plain_model,
    "dessymnmf": pipeline.dessymnmf_model,
    "robsymnmf": pipeline.robsymnmf_model,
    "robsymnmf-unweighted": lambda R, S: pipeline.robsymnmf_model(R, S, weighted=False),
    "multispa": pipeline.multispa_model,
    "cnmf": pipeline.cnmf_model,
    **{f"{name}{PER_ANNOTATOR}": partial(build, alignment="per-annotator") for name, build in
       (("symnmf", pipeline.plain_model), ("dessymnmf", pipeline.dessymnmf_model),
        ("robsymnmf", pipeline.robsymnmf_model))},
}
EM_STARTS = ("dessymnmf", "robsymnmf")  # the models the -em methods refine
CODE_EM_ROUNDS = 10  # the authors' released code: EM from the SymNMF model for 10 rounds (no stopping rule)


def em_from_cooccurrence_model(answers, start: str, n_iter: int = EM_ITERATIONS, tol: float = EM_TOL,
                               smoothing: float = 0.0) -> Aggregation:
    """DesSymNMF-EM or RobSymNMF-EM (``start`` one of EM_STARTS, or a per-annotator start) with an explicit EM
    budget and tolerance, from the model ``smoothed`` by ``smoothing`` (0: the paper's start; START_SMOOTHING: the
    -em-smoothed methods); ``aggregate(answers, start + '-em')`` uses the defaults."""
    starts = [*EM_STARTS, *(f"{name}-per-annotator" for name in ("symnmf", *EM_STARTS))]
    require(start in starts, f"EM starts from one of {starts}, got {start!r}")
    return _em_from(answers, smoothed(MODELS[start](*cooccurrences(*_codes(answers))), smoothing), n_iter, tol)


EM_METHODS = {  # name -> (the co-occurrence model EM starts from, smoothing, most iterations, tolerance)
    **{f"{start}-em{suffix}": (start, share, EM_ITERATIONS, EM_TOL)
       for start in EM_STARTS for suffix, share in (("", 0.0), ("-smoothed", START_SMOOTHING))},
    **{f"{start}-per-annotator-em": (f"{start}-per-annotator", 0.0, CODE_EM_ROUNDS, 0.0)
       for start in ("symnmf", *EM_STARTS)}}


def _binary(fn: Callable, seeded: bool = False) -> Callable:
    def run(answers, seed):
        args = _codes(answers)
        return Aggregation(fn(*args, seed=seed) if seeded else fn(*args))
    return run


def split_by_component(answers) -> list[tuple[np.ndarray, object]]:
    """The connected components of the co-labelling graph (annotators joined when they answered a common item):
    [(items (n_c,) codes into ``answers``, the component's answers with items and annotators recoded)]. Every
    item belongs to one component. The co-occurrences of Eq. (3) never join two components, so Proposition 1
    identifies each component's model up to its own permutation of the classes."""
    part = annotator_groups(answers.item, answers.worker, answers.n_items, answers.n_workers)
    n = int(part.max()) + 1
    out = []
    for c in range(n):
        keep = part[answers.worker] == c
        items, workers = np.unique(answers.item[keep]), np.flatnonzero(part == c)
        if items.size == 0:
            continue
        out.append((items, answers.subset(keep, items, workers)))
    return out


SMALLEST_COMPONENT = SMALLEST_GROUP  # smaller groups take the vote


def per_component(run: Callable) -> Callable:
    """``run`` on each connected component separately (``split_by_component``), each aligned by its own model;
    components of fewer than SMALLEST_COMPONENT annotators (e.g. an annotator who shares no item with anyone) by
    majority vote. The posteriors are stitched back in item order (no model is returned)."""
    def each(answers, seed):
        posteriors = np.zeros((answers.n_items, answers.n_classes))
        for items, part in split_by_component(answers):
            method = run if part.n_workers >= SMALLEST_COMPONENT else _mv
            posteriors[items] = method(part, seed).posteriors
        return Aggregation(posteriors)
    return each


def tensor_admm_aggregation(answers, seed, **options) -> Aggregation:
    """TensorADMM's MAP posteriors and model (``tensor_admm.tensor_admm`` with ``options``: moments, projection)."""
    return _map(answers, tensor_admm.tensor_admm(*_codes(answers), seed=seed, **options).model)


def _minimax_cv(answers, seed) -> Aggregation:
    posteriors, penalties = minimax_entropy.minimax_entropy_cv(*_codes(answers), seed=seed)
    return Aggregation(posteriors, penalties=penalties)


METHODS: dict[str, Callable] = {
    "mv": _mv,
    "mv-em": lambda answers, seed: _em_from(answers, None),
    **{name: _co_method(build) for name, build in MODELS.items()},
    **{name: lambda answers, seed, start=start, share=share, n=n, tol=tol: em_from_cooccurrence_model(
        answers, start, n, tol, share) for name, (start, share, n, tol) in EM_METHODS.items()},
    "robsymnmf-components": per_component(_co_method(pipeline.robsymnmf_model)),
    "spectral-ds": lambda answers, seed: _em_from(answers, smoothed(spectral.spectral_model(*_codes(answers), seed),
                                                                    START_SMOOTHING)),
    **{name: lambda answers, seed, options=options: tensor_admm_aggregation(answers, seed, **options)
       for name, options in tensor_admm.METHODS.items()},
    "minimax-entropy": lambda answers, seed: Aggregation(minimax_entropy.minimax_entropy(*_codes(answers))),
    "minimax-entropy-cv": _minimax_cv,
    "kos": _binary(votes.kos, seeded=True),
    "ghosh-svd": _binary(votes.ghosh_svd),
    "eigen-ratio": _binary(votes.eigen_ratio),
}
BINARY_ONLY = ("kos", "ghosh-svd", "eigen-ratio")


def _auto(answers, seed) -> Aggregation:
    """The candidate with the largest held-out log-likelihood of the answers (``selection.choose_method``; no gold
    read), then fitted on all the answers."""
    from .selection import choose_method
    choice = choose_method(answers, lambda part, name: METHODS[name](part, seed).model)
    return replace(METHODS[choice.method](answers, seed), choice=choice)


METHODS["auto"] = _auto


def check_method(name: str, n_classes: int | None = None) -> None:
    """Refuse an unknown method name, or a binary-only method on answers with more than two classes."""
    require(name in METHODS, f"unknown method {name!r}; known: {sorted(METHODS)}")
    require(n_classes is None or name not in BINARY_ONLY or n_classes == 2,
            f"method {name} is for binary labels; the answers have {n_classes} classes")


def warn_if_uninformative(answers, method: str) -> None:
    """A RuntimeWarning when ``method`` cannot learn from ``answers`` (``codes.answers_problem``: e.g. one
    annotator for a co-occurrence method; the estimators refuse such answers instead), or learns one class order
    for annotator groups that never share an item (``codes.groups_problem``)."""
    for problem, category in ((answers_problem(method, answers), RuntimeWarning),
                              (groups_problem(method, answers), AnnotatorGroupsWarning)):
        if problem:
            warn(f"method {method}", problem, category=category)


def aggregate(answers, method: str, seed: int = 0) -> Aggregation:
    """Aggregate ``answers`` (simverify.datasets.crowd.Answers) with the named method; warns (RuntimeWarning) when
    the method cannot learn from them (``warn_if_uninformative``). ``seed``: a root seed (``validation.Seed``)."""
    check_parameter("aggregate", "seed", seed, Seed())
    check_method(method, answers.n_classes)
    too_big = memory_problem(method, answers)
    require(too_big is None, f"method {method}: {too_big}")
    warn_if_uninformative(answers, method)
    return METHODS[method](answers, seed)


def aggregate_many(answers, names: Sequence[str], seed: int = 0) -> dict[str, Aggregation]:
    """Each named method on the same answers, equal to ``aggregate(answers, name, seed)`` for each name, with the
    co-occurrences (3) computed once and each co-occurrence model learned once (RobSymNMF's serves RobSymNMF and
    RobSymNMF-EM)."""
    check_parameter("aggregate_many", "seed", seed, Seed())
    for name in names:
        check_method(name, answers.n_classes)
        too_big = memory_problem(name, answers)
        require(too_big is None, f"method {name}: {too_big}")
        warn_if_uninformative(answers, name)
    blocks, models = [], {}

    def model(key: str) -> DawidSkeneModel:
        if not blocks:
            blocks.extend(cooccurrences(*_codes(answers)))
        if key not in models:
            base = key.removesuffix(PER_ANNOTATOR)  # the per-annotator model re-aligns the common one
            models[key] = align_each_annotator(model(base)) if base != key else MODELS[key](*blocks)
        return models[key]
    out = {}
    for name in names:
        if name in MODELS:
            out[name] = _map(answers, model(name))
        elif name in EM_METHODS:
            start, share, n_iter, tol = EM_METHODS[name]
            out[name] = _em_from(answers, smoothed(model(start), share), n_iter, tol)
        else:
            out[name] = METHODS[name](answers, seed)
    return out


def em_from_vote_fractions(answers, n_iter: int = EM_ITERATIONS, tol: float = EM_TOL) -> Aggregation:
    """MV-EM with explicit iteration budget and tolerance (crowd-kit's ``DawidSkene(n_iter, tol)``)."""
    return _em_from(answers, None, n_iter, tol)
