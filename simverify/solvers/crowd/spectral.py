"""Spectral-D&S (Zhang, Chen, Zhou & Jordan 2014, "Spectral methods meet EM"; a baseline of Ibrahim & Fu 2021):
the third-order moment method of their Algorithm 1, whose model then starts Dawid-Skene EM.

Answers are integer codes (``simverify.datasets.crowd.Answers``: item, worker, label (n,)). Workers are dealt into
three groups; for each group c, the other two groups' answers are turned into unbiased views of c's aggregated
confusion C_c, whose columns and the prior are the eigenpairs of a whitened third-order tensor (robust tensor power
method); each worker's confusion then follows from its second moment with another group."""
from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

from ...kernels.crowd.spectral import tensor_power_deflation
from ...kernels.rng import generator
from ...validation import require
from .codes import GROUPS, check_codes
from .model import DawidSkeneModel, align_to_diagonal

PERMUTATIONS_OF_3 = ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))
POWER_STARTS = 10  # random starts of each tensor power iteration (Anandkumar et al.'s L)
POWER_STEPS = 50  # power iterations per start (their N)
FLOOR = 1e-6  # entries of a projected column below this are set to it before normalising


def worker_groups(worker: np.ndarray, n_workers: int) -> np.ndarray:
    """(n_workers,) group of each worker: workers sorted by their number of answers (most first, ties by code) and
    dealt round-robin to the three groups, so the groups' answer counts are balanced."""
    counts = np.bincount(worker, minlength=n_workers)
    order = np.lexsort((np.arange(n_workers), -counts))
    group = np.empty(n_workers, dtype=np.int64)
    group[order] = np.arange(n_workers) % GROUPS
    return group


def group_views(item, worker, label, n_items: int, n_classes: int, group: np.ndarray) -> np.ndarray:
    """Z (3, n_items, K): Z[g, j] = (1 / |G_g|) sum over g's workers i who answered item j of e_(their answer)."""
    Z = np.zeros((GROUPS, n_items, n_classes))
    np.add.at(Z, (group[worker], item, label), 1.0)
    sizes = np.bincount(group, minlength=GROUPS).astype(float)
    return Z / np.maximum(sizes, 1.0)[:, None, None]


def _pair(Za: np.ndarray, Zb: np.ndarray) -> np.ndarray:
    """E[Z_a Z_b^T] (K, K) over items."""
    return Za.T @ Zb / Za.shape[0]


def _tensor_power(T: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Robust tensor power method with deflation on a symmetric (K, K, K) tensor: eigenvalues (K,) and eigenvectors
    (K, K) as columns, each eigenvalue made positive (T is odd in v); POWER_STARTS standard normal starts per
    eigenpair, drawn from ``rng`` in the order the starts are tried."""
    K = T.shape[0]
    require(bool(np.isfinite(T).all()), "spectral_model: the whitened third-order moments are not finite; the "
                                        "tensor power method needs finite moments")
    starts = rng.normal(size=(K, POWER_STARTS, K))
    return tensor_power_deflation(np.ascontiguousarray(T, dtype=float), starts, POWER_STEPS)


def group_confusion(Z: np.ndarray, c: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 1, stage 1, for group c: (C_c (K, K) with columns mu_k = E[Z_c | y = k], prior (K,)), columns in
    the tensor's order."""
    a, b = [g for g in range(GROUPS) if g != c]
    Za = Z[a] @ np.linalg.pinv(_pair(Z[a], Z[b])).T @ _pair(Z[c], Z[b]).T  # E[Z'_a | k] = mu_k
    Zb = Z[b] @ np.linalg.pinv(_pair(Z[b], Z[a])).T @ _pair(Z[c], Z[a]).T
    M2 = _pair(Za, Zb)
    M2 = (M2 + M2.T) / 2  # sum_k lambda_k mu_k mu_k^T
    M3 = np.einsum("ja,jb,jc->abc", Za, Zb, Z[c]) / Z.shape[1]  # sum_k lambda_k mu_k^(x3)
    M3 = sum(M3.transpose(p) for p in PERMUTATIONS_OF_3) / 6  # the population tensor is symmetric
    evals, evecs = np.linalg.eigh(M2)
    Q = evecs / np.sqrt(np.maximum(evals, 1e-12))  # whitening: Q^T M2 Q = I
    values, vectors = _tensor_power(np.einsum("abc,ai,bj,ck->ijk", M3, Q, Q, Q), rng)
    mu = np.linalg.pinv(Q.T) @ vectors * values  # mu_k = lambda_k (Q^T)^+ v_k
    prior = 1.0 / np.maximum(values, 1e-12) ** 2
    return mu, prior / prior.sum()


def _clipped_columns(A: np.ndarray) -> np.ndarray:
    """Each column clipped at FLOOR and normalised to sum 1."""
    A = np.maximum(A, FLOOR)
    return A / A.sum(axis=0, keepdims=True)


def _match_to_first(groups: list[tuple[np.ndarray, np.ndarray]], Z: np.ndarray) -> list[np.ndarray]:
    """Each group's columns mu (K, K) reordered to group 0's classes. E[Z_0 Z_c^T] = mu_0 diag(lambda_0) mu_c^T, so
    row k of (mu_0 diag(lambda_0))^+ E[Z_0 Z_c^T] estimates group c's column for group 0's class k; columns are
    assigned to rows by least squared distance (Hungarian algorithm)."""
    mu0, prior0 = groups[0]
    out = [mu0]
    for c in range(1, GROUPS):
        rows = np.linalg.pinv(mu0 * prior0) @ _pair(Z[0], Z[c])  # (K classes of group 0, K entries)
        mu = groups[c][0]
        cost = ((rows[:, None, :] - mu.T[None, :, :]) ** 2).sum(axis=2)  # (class of group 0, column of group c)
        _, columns = linear_sum_assignment(cost)
        out.append(mu[:, columns])
    return out


def spectral_model(item: np.ndarray, worker: np.ndarray, label: np.ndarray, n_items: int, n_workers: int,
                   n_classes: int, seed: int | np.random.SeedSequence = 0) -> DawidSkeneModel:
    """Algorithm 1 of Zhang et al.: the Dawid-Skene model (before EM) from answers (n,) codes; ``seed`` drives the
    tensor power method's random starts. The three groups' columns come in their tensors' orders: groups 1 and 2
    are matched to group 0 by their cross moments (``_match_to_first``), and the classes named at the end by
    diagonal dominance over all workers (``align_to_diagonal``, as for SymNMF). The prior is group 0's; worker i of
    group g gets A_i = E[e_(answer of i) Z_(g+1)^T | i answered] (D C_(g+1)^T)^-1, each column clipped at FLOOR
    and normalised."""
    check_codes("spectral_model", item, worker, label, n_items, n_workers, n_classes)
    rng = generator(seed)
    group = worker_groups(worker, n_workers)
    Z = group_views(item, worker, label, n_items, n_classes, group)
    groups = [group_confusion(Z, c, rng) for c in range(GROUPS)]
    mus, prior = _match_to_first(groups, Z), groups[0][1]
    confusion = np.empty((n_workers, n_classes, n_classes))
    for i in range(n_workers):
        other = (group[i] + 1) % GROUPS
        mine = worker == i
        onehot = np.zeros((mine.sum(), n_classes))
        onehot[np.arange(mine.sum()), label[mine]] = 1.0
        second = onehot.T @ Z[other][item[mine]] / max(mine.sum(), 1)  # E[e_x Z_other^T | i answered]
        confusion[i] = _clipped_columns(second @ np.linalg.pinv(np.diag(prior) @ mus[other].T))
    return align_to_diagonal(DawidSkeneModel(prior, confusion))
