"""Label aggregation of crowdsourced answers (Ibrahim & Fu 2021's baselines; more to come in issue 12).

Answers are integer codes (``simverify.datasets.crowd.Answers``): item, worker, label (n,)."""
from __future__ import annotations

import numpy as np


def vote_counts(item: np.ndarray, label: np.ndarray, n_items: int, n_classes: int) -> np.ndarray:
    """(n_items, n_classes): how many answers gave each item each class."""
    counts = np.zeros((n_items, n_classes))
    np.add.at(counts, (item, label), 1.0)
    return counts


def majority_vote(item: np.ndarray, label: np.ndarray, n_items: int, n_classes: int) -> np.ndarray:
    """(n_items, n_classes) majority-vote posteriors: 1/(number tied) on each most-voted class, 0 elsewhere
    (the tie rule of Ibrahim & Fu's code: a tie counts as 1/(number tied) correct)."""
    counts = vote_counts(item, label, n_items, n_classes)
    top = (counts == counts.max(axis=1, keepdims=True)).astype(float)
    return top / top.sum(axis=1, keepdims=True)


def _m_step(item, worker, label, probas, n_workers):
    """Priors (K,) = the mean posterior, and confusion matrices errors (n_workers, K observed, K true) =
    P(observed | true) from the posteriors probas (n_items, K), each true column clipped below at 1e-10 and
    normalised to 1 (crowd-kit's convention)."""
    K = probas.shape[1]
    errors = np.zeros((n_workers, K, K))
    np.add.at(errors, (worker, label), probas[item])
    errors = np.maximum(errors, 1e-10)
    return probas.mean(axis=0), errors / errors.sum(axis=1, keepdims=True)


def _e_step(item, worker, label, priors, errors, n_items):
    """Posteriors (n_items, K) proportional to prior(k) times the product over the item's answers of
    P(answer | k)."""
    log_p = np.tile(np.log(priors), (n_items, 1))
    np.add.at(log_p, item, np.log(errors[worker, label]))
    log_p -= log_p.max(axis=1, keepdims=True)
    p = np.exp(log_p)
    return p / p.sum(axis=1, keepdims=True)


def dawid_skene(item: np.ndarray, worker: np.ndarray, label: np.ndarray, n_items: int, n_workers: int,
                n_classes: int, n_iter: int = 100) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dawid & Skene (1979) EM started from majority-vote fractions: (probas (n_items, K), priors (K,), errors
    (n_workers, K observed, K true)). n_iter = 0 is one M-step on the vote fractions; each further iteration is an
    E-step then an M-step (crowd-kit's DawidSkene, whose published test fixtures it reproduces)."""
    counts = vote_counts(item, label, n_items, n_classes)
    probas = counts / counts.sum(axis=1, keepdims=True)
    priors, errors = _m_step(item, worker, label, probas, n_workers)
    for _ in range(n_iter):
        probas = _e_step(item, worker, label, priors, errors, n_items)
        priors, errors = _m_step(item, worker, label, probas, n_workers)
    return probas, priors, errors
