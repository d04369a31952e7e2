"""Spectral-D&S (Zhang, Chen, Zhou & Jordan 2014), a baseline of Ibrahim & Fu (2021)."""
import numpy as np
import pytest

from simverify import metrics
from simverify.generators import crowd as gen
from simverify.kernels.crowd.spectral import tensor_power_deflation
from simverify.solvers.crowd.model import DawidSkeneModel
from simverify.solvers.crowd.spectral import (
    PERMUTATIONS_OF_3,
    POWER_STARTS,
    POWER_STEPS,
    _tensor_power,
    spectral_model,
    worker_groups,
)


def test_tensor_power_method_recovers_an_orthogonal_decomposition():
    rng = np.random.default_rng(1)
    V, _ = np.linalg.qr(rng.normal(size=(4, 4)))
    values = np.array([3.0, 2.0, 1.5, 0.7])
    T = np.einsum("k,ak,bk,ck->abc", values, V, V, V)
    found, vectors = _tensor_power(T, np.random.default_rng(2))
    order = np.argsort(-found)
    assert np.allclose(found[order], values, atol=1e-8)
    assert np.allclose(np.abs(vectors[:, order].T @ V), np.eye(4), atol=1e-6)


def _naive_tensor_power(T, starts, steps):
    """The robust tensor power method with deflation in NumPy (einsum contractions), the kernel's reference."""
    K = T.shape[0]
    T = T.copy()
    values, vectors = np.empty(K), np.empty((K, K))

    def iterate(v):
        for _ in range(steps):
            v = np.einsum("abc,b,c->a", T, v, v)
            v = v / max(np.linalg.norm(v), 1e-300)
        return v, v @ np.einsum("abc,b,c->a", T, v, v)
    for k in range(K):
        best, best_v = -np.inf, None
        for start in starts[k]:
            v, value = iterate(start / np.linalg.norm(start))
            if abs(value) > best:
                best, best_v = abs(value), v if value >= 0 else -v
        v, value = iterate(best_v)
        if value < 0:
            value, v = -value, -v
        values[k], vectors[:, k] = value, v
        T -= value * np.einsum("a,b,c->abc", v, v, v)
    return values, vectors


@pytest.mark.parametrize("K", [2, 3, 8])
def test_the_tensor_power_kernel_equals_its_numpy_reference(K):
    rng = np.random.default_rng(K)
    V, _ = np.linalg.qr(rng.normal(size=(K, K)))
    A = np.einsum("k,ak,bk,ck->abc", np.linspace(3.0, 1.0, K), V, V, V) + 0.01 * rng.normal(size=(K, K, K))
    T = sum(A.transpose(p) for p in PERMUTATIONS_OF_3) / 6  # symmetric, near an orthogonal decomposition
    starts = rng.normal(size=(K, POWER_STARTS, K))
    values, vectors = tensor_power_deflation(T, starts, POWER_STEPS)
    ref_values, ref_vectors = _naive_tensor_power(T, starts, POWER_STEPS)
    assert np.allclose(values, ref_values, rtol=1e-9, atol=1e-12)
    assert np.allclose(vectors, ref_vectors, rtol=1e-9, atol=1e-9)


def test_the_tensor_power_method_draws_its_starts_in_the_order_it_tries_them():
    T = np.einsum("k,ak,bk,ck->abc", [2.0, 1.0], np.eye(2), np.eye(2), np.eye(2))
    drawn = np.random.default_rng(7).normal(size=(2, POWER_STARTS, 2))
    one_by_one = np.random.default_rng(7)
    assert np.array_equal(np.concatenate([one_by_one.normal(size=2) for _ in range(2 * POWER_STARTS)]), drawn.ravel())
    assert all(np.array_equal(x, y) for x, y in zip(_tensor_power(T, np.random.default_rng(7)),
                                                   tensor_power_deflation(T, drawn, POWER_STEPS)))


def test_workers_are_dealt_into_three_groups_of_balanced_answer_counts():
    worker = np.repeat(np.arange(7), [50, 40, 30, 20, 10, 5, 1])
    group = worker_groups(worker, 7)
    assert group.tolist() == [0, 1, 2, 0, 1, 2, 0]


def _reliable_model(seed: int, M: int = 12, K: int = 3) -> DawidSkeneModel:
    rng = np.random.default_rng(seed)
    right = rng.uniform(0.5, 0.9, size=(M, K))
    confusion = np.stack([np.where(np.eye(K, dtype=bool), r, (1 - r) / (K - 1)) for r in right])
    return DawidSkeneModel(rng.dirichlet(3 * np.ones(K)), confusion)


def test_spectral_model_is_consistent_when_group_aggregates_are_well_conditioned():
    model = _reliable_model(0)
    errors = []
    for N in (2000, 20000):
        a = gen.answers(model, gen.answering_probabilities(N, 12, 0, 0.5), 0)
        est = spectral_model(a.item, a.worker, a.label, a.n_items, a.n_workers, a.n_classes)
        errors.append(metrics.confusion_mse(model.priors, model.confusion, est.priors, est.confusion))
    assert errors[1] < 0.002 and errors[1] < errors[0] / 4  # about 1/N: 0.0067 -> 0.0005


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_a_non_finite_moment_tensor_is_refused_not_decomposed_into_nan(bad):
    T = np.zeros((2, 2, 2))
    T[0, 1, 1] = bad
    with pytest.raises(ValueError, match="^spectral_model: the whitened third-order moments are not finite"):
        _tensor_power(T, np.random.default_rng(0))
