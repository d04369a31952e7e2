"""Spectral-D&S (Zhang, Chen, Zhou & Jordan 2014), a baseline of Ibrahim & Fu (2021)."""
import numpy as np

from simverify import metrics
from simverify.generators import crowd as gen
from simverify.solvers.crowd.model import DawidSkeneModel
from simverify.solvers.crowd.spectral import _tensor_power, spectral_model, worker_groups


def test_tensor_power_method_recovers_an_orthogonal_decomposition():
    rng = np.random.default_rng(1)
    V, _ = np.linalg.qr(rng.normal(size=(4, 4)))
    values = np.array([3.0, 2.0, 1.5, 0.7])
    T = np.einsum("k,ak,bk,ck->abc", values, V, V, V)
    found, vectors = _tensor_power(T, np.random.default_rng(2))
    order = np.argsort(-found)
    assert np.allclose(found[order], values, atol=1e-8)
    assert np.allclose(np.abs(vectors[:, order].T @ V), np.eye(4), atol=1e-6)


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
