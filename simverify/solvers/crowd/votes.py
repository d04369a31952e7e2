"""Aggregators that work on the answers directly (Ibrahim & Fu 2021's baselines): majority vote, Dawid-Skene EM
(MV-EM, and EM refinement from any model), and the binary methods KOS, GhoshSVD and EigenRatio (minimax
conditional entropy: ``minimax_entropy``).

Answers are integer codes (``simverify.datasets.crowd.Answers``): item, worker, label (n,). Every aggregator
returns posteriors (n_items, K); hard methods return one-hot rows, ties split equally."""
from __future__ import annotations

import numpy as np

from ...kernels.crowd import confusion_from_posteriors, kos_messages, map_posteriors, posteriors_and_bound
from ...validation import Integer, Real, check_parameter, require
from .codes import check_codes
from .model import DawidSkeneModel


def vote_counts(item: np.ndarray, label: np.ndarray, n_items: int, n_classes: int) -> np.ndarray:
    """(n_items, n_classes): how many answers gave each item each class."""
    check_codes("vote_counts", item, None, label, n_items, 1, n_classes)
    counts = np.zeros((n_items, n_classes))
    np.add.at(counts, (item, label), 1.0)
    return counts


def ties_split(scores: np.ndarray) -> np.ndarray:
    """(n_items, K) posteriors 1/t on each of the t classes of top score, 0 elsewhere."""
    top = (scores == scores.max(axis=1, keepdims=True)).astype(float)
    return top / top.sum(axis=1, keepdims=True)


def majority_vote(item: np.ndarray, label: np.ndarray, n_items: int, n_classes: int) -> np.ndarray:
    """(n_items, n_classes) majority-vote posteriors: 1/(number tied) on each most-voted class, 0 elsewhere
    (the tie rule of Ibrahim & Fu's code: a tie counts as 1/(number tied) correct)."""
    return ties_split(vote_counts(item, label, n_items, n_classes))


def _check_start(init: DawidSkeneModel, n_workers: int, n_classes: int) -> None:
    """Refuse a start model whose shapes are not (K,) priors and (n_workers, K, K) confusions (the E-step kernel
    indexes them with the answer codes)."""
    priors, confusion = np.asarray(init.priors), np.asarray(init.confusion)
    require(priors.shape == (n_classes,) and confusion.shape == (n_workers, n_classes, n_classes),
            f"dawid_skene: init must have priors ({n_classes},) and confusion {(n_workers, n_classes, n_classes)}, "
            f"got {priors.shape} and {confusion.shape}")
    finite = np.all(np.isfinite(priors)) and np.all(np.isfinite(confusion))
    require(bool(finite), "dawid_skene: init has non-finite entries")


def _m_step(item, worker, label, probas, n_workers) -> DawidSkeneModel:
    """Priors (K,) = the mean posterior; confusions from the posteriors (clipped at 1e-10, columns normalised)."""
    errors = confusion_from_posteriors(item, worker, label, probas, n_workers)
    return DawidSkeneModel(probas.mean(axis=0), errors)


def dawid_skene(item: np.ndarray, worker: np.ndarray, label: np.ndarray, n_items: int, n_workers: int,
                n_classes: int, n_iter: int = 100, init: DawidSkeneModel | None = None,
                tol: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dawid & Skene (1979) EM: (probas (n_items, K), priors (K,), errors (n_workers, K observed, K true)).

    From majority-vote fractions (init None; MV-EM): n_iter = 0 is one M-step on the vote fractions and each
    further iteration an E-step then an M-step (crowd-kit's DawidSkene, whose published test fixtures it
    reproduces). From a model (init given; RobSymNMF-EM, DesSymNMF-EM): each iteration is an E-step from the
    current model then an M-step. Stops early, as crowd-kit does, when the evidence lower bound per answer gains
    less than tol; the posteriors returned are the last E-step's."""
    check_codes("dawid_skene", item, worker, label, n_items, n_workers, n_classes)
    check_parameter("dawid_skene", "n_iter", n_iter, Integer(0))
    check_parameter("dawid_skene", "tol", tol, Real(0.0))
    if init is None:
        counts = vote_counts(item, label, n_items, n_classes)
        fractions = counts / counts.sum(axis=1, keepdims=True)
        model = _m_step(item, worker, label, fractions, n_workers)
        if n_iter == 0:  # crowd-kit's iteration 0: the vote fractions and one M-step
            return fractions, model.priors, model.confusion
    else:
        _check_start(init, n_workers, n_classes)
        model = init
    probas = map_posteriors(item, worker, label, model.priors, model.confusion, n_items)
    loss = -np.inf
    for step in range(n_iter):
        model = _m_step(item, worker, label, probas, n_workers)
        # the next E-step and this step's bound (probas under the new model) in one pass
        following, bound = posteriors_and_bound(item, worker, label, model.priors, model.confusion, n_items, probas)
        if bound / item.size - loss < tol or step == n_iter - 1:
            break
        loss, probas = bound / item.size, following
    return probas, model.priors, model.confusion


def _signs(label: np.ndarray, n_classes: int) -> np.ndarray:
    """Binary answers as +1 (class code 1) and -1 (class code 0)."""
    require(n_classes == 2, f"this method is for binary labels; the answers have {n_classes} classes")
    return np.where(label == 1, 1.0, -1.0)


def _from_scores(score: np.ndarray) -> np.ndarray:
    """(n_items, 2) one-hot posteriors from signed item scores (class 1 when positive; 0 splits 1/2)."""
    return ties_split(np.column_stack([-score, score]))


def _orient(weights: np.ndarray) -> np.ndarray:
    """A reliability vector's sign chosen so that most of its mass is positive (workers better than chance)."""
    return weights if weights.sum() >= 0 else -weights


def answer_matrix(item, worker, sign, n_items, n_workers) -> np.ndarray:
    """(n_items, n_workers) dense matrix of +1/-1 answers, 0 where a worker did not answer."""
    A = np.zeros((n_items, n_workers))
    A[item, worker] = sign
    return A


def kos(item, worker, label, n_items, n_workers, n_classes, seed=0, n_iter: int = 20) -> np.ndarray:
    """Karger, Oh & Shah (2011) iterative inference (binary): messages from y ~ N(1, 1), n_iter rounds; the label
    is the sign of the item score."""
    check_codes("kos", item, worker, label, n_items, n_workers, n_classes)
    check_parameter("kos", "n_iter", n_iter, Integer(1))
    sign = _signs(label, n_classes)
    y0 = np.random.default_rng(seed).normal(1.0, 1.0, size=item.size)
    return _from_scores(kos_messages(item, worker, sign, n_items, n_workers, y0, n_iter))


def ghosh_svd(item, worker, label, n_items, n_workers, n_classes) -> np.ndarray:
    """Ghosh, Kale & McAfee (2011) (binary): the leading left singular vector u of the +-1/0 item-worker matrix;
    the label is the sign of u, oriented so that the worker vector is mostly positive."""
    check_codes("ghosh_svd", item, worker, label, n_items, n_workers, n_classes)
    A = answer_matrix(item, worker, _signs(label, n_classes), n_items, n_workers)
    u, s, vt = np.linalg.svd(A, full_matrices=False)
    return _from_scores(u[:, 0] if vt[0].sum() >= 0 else -u[:, 0])


def eigen_ratio(item, worker, label, n_items, n_workers, n_classes) -> np.ndarray:
    """Dalvi et al. (2013) EigenRatio (binary): worker weights = the ratio of the leading eigenvectors of the
    agreement matrix A^T A and the co-labelling count matrix |A|^T |A| (diagonals zeroed); the label is the sign
    of the weighted vote A w."""
    check_codes("eigen_ratio", item, worker, label, n_items, n_workers, n_classes)
    A = answer_matrix(item, worker, _signs(label, n_classes), n_items, n_workers)
    C, N = A.T @ A, np.abs(A).T @ np.abs(A)
    np.fill_diagonal(C, 0.0)
    np.fill_diagonal(N, 0.0)
    v1 = np.linalg.eigh(C)[1][:, -1]
    v2 = np.abs(np.linalg.eigh(N)[1][:, -1])
    w = _orient(np.where(v2 > 1e-12, v1 / np.maximum(v2, 1e-12), 0.0))
    return _from_scores(A @ w)
