"""TensorADMM's kernel (``kernels.crowd.tensor.ao_admm``) against a naive NumPy transcription of the authors' MATLAB
(``EstConfMat_AO_ADMM.m``, ``main_func.m``, ``inner_ADMM.m``, ``inner_ADMM_p_upd.m``, ``ProjectOntoSimplex1.m``)
on dense moments: the confusions, the prior, the sweeps and the objective, every step of ADMM, mu and the stopping
rule included."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from simverify.kernels.crowd.tensor import ao_admm
from simverify.solvers.crowd.cooccurrence import cooccurrences
from simverify.solvers.crowd.tensor_admm import (
    _first_moments,
    _moment_bundle,
    _observed_pairs,
    _random_start,
    triple_moments,
)

INNER, OUTER_TOL, INNER_TOL, MU1, MU2 = 10, 1e-6, 1e-3, 1e-7, 1e-2


def project(H: np.ndarray, clip: bool) -> np.ndarray:
    """ProjectOntoSimplex1.m, columns of H (K, F); without ``clip`` the negatives are kept (Euclidean)."""
    K, F = H.shape
    Hb = np.maximum(H, 0) if clip else H.copy()
    Hs = -np.sort(-Hb, axis=0)
    Hsum = np.cumsum(Hs, axis=0)
    j = (Hs > (Hsum - 1) / np.arange(1, K + 1)[:, None]).sum(axis=0)
    theta = (np.array([Hsum[j[f] - 1, f] for f in range(F)]) - 1) / j
    return np.maximum(Hb - theta[None, :], 0)


def sample(seed: int, N: int = 40, M: int = 6, K: int = 3, share: float = 0.5):
    rng = np.random.default_rng(seed)
    item, worker = np.nonzero(rng.random((N, M)) < share)
    return item.astype(np.int64), worker.astype(np.int64), rng.integers(0, K, item.size).astype(np.int64), N, M, K


def inner_admm(A, B, G, D, lam, clip):
    """inner_ADMM.m's loop: Phi = A \\ (B + lam (G + D)^T), G = proj(Phi^T - D), D += G - Phi^T; for the prior
    (inner_ADMM_p_upd.m) G and D are rows (1, K) and B a column."""
    start = G.copy()
    for _ in range(INNER):
        Phi = np.linalg.solve(A, B + lam * (G + D).T)
        new = project((Phi.T - D).T, clip).T if G.shape[0] == 1 else project(Phi.T - D, clip)
        D = D + new - Phi.T
        gap = np.sum((new - Phi.T) ** 2) / np.sum(new ** 2)
        with np.errstate(divide="ignore", invalid="ignore"):
            moved = np.sum((new - start) ** 2) / np.sum(D ** 2)
        G = new
        if gap < INNER_TOL and moved < INNER_TOL:
            break
    return G, D


def naive_fit(item, worker, label, N, M, K, everything: bool, clip: bool, outer: int, seed: int):
    """EstConfMat_AO_ADMM.m on dense moments (W2, W3 the weights: all 1, or 1 where observed)."""
    R, S = cooccurrences(item, worker, label, N, M, K)
    triples, T3, _ = triple_moments(item, worker, label, N, M, K)
    m1 = np.zeros((M, K)) if everything else _first_moments(worker, label, M, K)
    T = np.zeros((M, M, M, K, K, K))
    W3 = np.ones((M, M, M)) if everything else np.zeros((M, M, M))
    for t, members in enumerate(triples):
        for perm in itertools.permutations(range(3)):
            T[tuple(members[list(perm)])] = np.transpose(T3[t], perm)
            W3[tuple(members[list(perm)])] = 1
    W2 = 1 - np.eye(M) if everything else (S > 0) * (1 - np.eye(M))
    Gam = list(_random_start(seed, M, K).confusion)
    p, Delta, delta = np.full(K, 1.0 / K), [np.zeros((K, K)) for _ in range(M)], np.zeros(K)
    grams = lambda m: Gam[m].T @ Gam[m]  # noqa: E731
    triplets = list(itertools.combinations(range(M), 3))
    denom = (np.sum(m1 ** 2) + sum(W2[i, j] * np.sum(R[i, j] ** 2) for i, j in itertools.combinations(range(M), 2))
             + sum(W3[i, j, k] * np.sum(T[i, j, k] ** 2) for i, j, k in triplets))

    def prior_system():
        A, b = np.zeros((K, K)), np.zeros(K)
        for i in range(M):
            A += grams(i)
            b += Gam[i].T @ m1[i]
            for j in range(i + 1, M):
                A += W2[i, j] * grams(i) * grams(j)
                b += W2[i, j] * np.einsum("af,bf,ab->f", Gam[i], Gam[j], R[i, j])
                for k in range(j + 1, M):
                    A += W3[i, j, k] * grams(i) * grams(j) * grams(k)
                    b += W3[i, j, k] * np.einsum("af,bf,cf,abc->f", Gam[i], Gam[j], Gam[k], T[i, j, k])
        return A, b
    A, b = prior_system()
    previous = 0.5 * denom - p @ b + 0.5 * p @ A @ p
    mu, sweeps = MU1 + MU2 * previous / denom, 0
    for _ in range(outer - 1):
        sweeps += 1
        old = [g.copy() for g in Gam]
        for i in range(M):
            P, A, B = np.diag(p), np.zeros((K, K)), np.zeros((K, K))
            for j in range(M):
                if j == i:
                    continue
                A += W2[i, j] * grams(j)
                B += W2[i, j] * Gam[j].T @ R[j, i]
                for k in range(j + 1, M):
                    if k != i:
                        A += W3[i, j, k] * grams(k) * grams(j)
                        B += W3[i, j, k] * np.einsum("bf,cf,abc->fa", Gam[j], Gam[k], T[i, j, k])
            A = P @ A @ P + np.outer(p, p)
            lam = np.linalg.norm(A) / K
            Gam[i], Delta[i] = inner_admm(A + (mu + lam) * np.eye(K), P @ B + np.outer(p, m1[i]) + mu * Gam[i].T,
                                          Gam[i].copy(), Delta[i], lam, clip)
        A, b = prior_system()
        lam = np.linalg.norm(A) / K
        new, delta = inner_admm(A + (mu + lam) * np.eye(K), (b + mu * p)[:, None], p[None, :].copy(),
                                delta[None, :], lam, clip)
        new, delta = new[0], delta[0]
        moved = sum(np.abs(old[i] - Gam[i]).sum(0).max() / np.abs(old[i]).sum(0).max() for i in range(M))
        p_moved = np.abs(p - new).sum() / np.abs(p).sum()
        value = 0.5 * denom - new @ b + 0.5 * new @ A @ new
        mu = MU1 + MU2 * value / denom if value < previous else mu - 1e-9 * mu
        p, previous = new, value
        if moved < OUTER_TOL and p_moved < OUTER_TOL:
            break
    return np.stack(Gam), p, sweeps, previous


@pytest.mark.parametrize("everything, clip", list(itertools.product([True, False], [True, False])))
@pytest.mark.parametrize("seed, outer", [(0, 6), (1, 60)])
def test_ao_admm_equals_a_naive_transcription_of_the_authors_matlab(seed, outer, everything, clip):
    item, worker, label, N, M, K = sample(seed)
    R, S = cooccurrences(item, worker, label, N, M, K)
    pairs, R2 = _observed_pairs(R, S)
    triples, T3, _ = triple_moments(item, worker, label, N, M, K)
    m1 = np.zeros((M, K)) if everything else _first_moments(worker, label, M, K)
    start = _random_start(seed, M, K)
    G, p, sweeps, value = ao_admm(np.ascontiguousarray(start.confusion), start.priors, m1, _moment_bundle(pairs, R2, M),
                                  _moment_bundle(triples, T3, M), everything, clip, outer, INNER, OUTER_TOL,
                                  INNER_TOL, MU1, MU2)
    G0, p0, sweeps0, value0 = naive_fit(item, worker, label, N, M, K, everything, clip, outer, seed)
    assert sweeps == sweeps0
    assert np.allclose(G, G0, rtol=0, atol=1e-12) and np.allclose(p, p0, rtol=0, atol=1e-12)
    assert np.isclose(value, value0, rtol=1e-10)
