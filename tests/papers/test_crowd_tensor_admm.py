"""TensorADMM (``solvers/crowd/tensor_admm.py``, kernels ``kernels/crowd/tensor.py``) against naive references:
the third-order co-occurrences, the simplex projection, the objective and each block's normal equations, in both
weightings; then its behaviour on the shipped sets and its refusals."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from simverify.datasets import crowd
from simverify.generators import crowd as gen
from simverify.kernels.crowd.tensor import _confusion_system, ao_admm, project_columns_to_simplex
from simverify.solvers.crowd.codes import FlatPosteriorsWarning
from simverify.solvers.crowd.cooccurrence import cooccurrences
from simverify.solvers.crowd.methods import aggregate
from simverify.solvers.crowd.tensor_admm import _first_moments as first_moments
from simverify.solvers.crowd.tensor_admm import _moment_bundle as moment_bundle
from simverify.solvers.crowd.tensor_admm import _observed_pairs as observed_pairs
from simverify.solvers.crowd.tensor_admm import _random_start as random_start
from simverify.solvers.crowd.tensor_admm import _sparse_cells as sparse_cells
from simverify.solvers.crowd.tensor_admm import tensor_admm, triple_moments


def sparse_answers(seed: int, n_items: int = 40, n_workers: int = 7, n_classes: int = 3, share: float = 0.5):
    """Random answers (item, worker, label) with each annotator answering each item with probability ``share``."""
    rng = np.random.default_rng(seed)
    mask = rng.random((n_items, n_workers)) < share
    item, worker = np.nonzero(mask)
    label = rng.integers(0, n_classes, item.size)
    return item.astype(np.int64), worker.astype(np.int64), label.astype(np.int64), n_items, n_workers, n_classes


def naive_triples(item, worker, label, n_items, n_workers, n_classes):
    """{(i, j, k): (moment (K, K, K), count)} by enumerating each item's answers (i < j < k)."""
    out = {}
    for n in range(n_items):
        rows = sorted((w, x) for it, w, x in zip(item, worker, label) if it == n)
        for (i, a), (j, b), (k, c) in itertools.combinations(rows, 3):
            moment, count = out.get((i, j, k), (np.zeros((n_classes,) * 3), 0))
            moment[a, b, c] += 1
            out[(i, j, k)] = (moment, count + 1)
    return {key: (m / c, c) for key, (m, c) in out.items()}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_triple_moments_equal_a_naive_enumeration_of_each_items_answers(seed):
    args = sparse_answers(seed)
    triples, T3, counts = triple_moments(*args)
    naive = naive_triples(*args)
    assert [tuple(t) for t in triples] == sorted(naive)
    for t, key in enumerate(sorted(naive)):
        assert np.allclose(T3[t], naive[key][0]) and counts[t] == naive[key][1]


def test_sparse_cells_list_every_nonzero_moment_tuple_by_tuple_as_rows_member_k_plus_answer():
    moments = np.zeros((3, 2, 2, 2))
    moments[0, 1, 0, 1], moments[2, 0, 0, 0], moments[2, 1, 1, 0] = 0.5, 0.25, 0.75
    members = np.array([[0, 1, 2], [0, 1, 3], [1, 3, 4]])
    ptr, rows, values = sparse_cells(moments, members)
    answers = [[1, 0, 1], [0, 0, 0], [1, 1, 0]]
    tuples = [0, 2, 2]
    assert ptr.tolist() == [0, 1, 1, 3]
    assert rows.tolist() == [[2 * m + a for m, a in zip(members[t], ans)] for t, ans in zip(tuples, answers)]
    assert values.tolist() == [0.5, 0.25, 0.75]
    ptr, rows, values = sparse_cells(np.zeros((0, 2, 2)), np.zeros((0, 2), dtype=np.int64))
    assert ptr.tolist() == [0] and rows.shape == (0, 2) and values.size == 0


def test_numpy_integer_counts_neither_overflow_nor_wrap_the_memory_guard():
    item, worker, label = np.array([0, 0, 0, 1, 1, 1]), np.array([0, 1, 2, 0, 1, 2]), np.array([0, 1, 2, 0, 1, 1])
    small = tensor_admm(item, worker, label, np.uint8(20), np.int8(5), np.uint8(3), max_sweeps=3)
    assert np.allclose(small.model.confusion.sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="need about 96 GiB"):  # int32 arithmetic wrapped this estimate to a fit
        tensor_admm(item, worker, np.zeros(6, dtype=np.int64), np.int32(20), np.int32(65536), np.int32(1))


def naive_euclidean_simplex(v: np.ndarray) -> np.ndarray:
    """argmin ||w - v|| over the simplex, by bisection on theta in w = max(v - theta, 0)."""
    lo, hi = v.min() - 1.0, v.max()
    for _ in range(200):
        theta = (lo + hi) / 2
        lo, hi = (theta, hi) if np.maximum(v - theta, 0).sum() > 1 else (lo, theta)
    return np.maximum(v - (lo + hi) / 2, 0.0)


def naive_simplex(v: np.ndarray) -> np.ndarray:
    """ProjectOntoSimplex1.m: negatives set to 0, then the Euclidean projection."""
    return naive_euclidean_simplex(np.maximum(v, 0.0))


@pytest.mark.parametrize("seed", range(5))
def test_the_projection_is_the_codes_clip_then_project_column_by_column(seed):
    V = np.random.default_rng(seed).normal(size=(4, 3))
    out = project_columns_to_simplex(V)
    assert np.allclose(out.sum(axis=0), 1.0) and (out >= 0).all()
    for f in range(3):
        assert np.allclose(out[:, f], naive_simplex(V[:, f]), atol=1e-9)


def test_the_projection_clips_first_so_it_differs_from_the_euclidean_one():
    out = project_columns_to_simplex(np.array([[0.3], [-0.5]]))
    assert np.allclose(out[:, 0], [0.65, 0.35])
    assert np.allclose(project_columns_to_simplex(np.array([[0.3], [-0.5]]), False)[:, 0], [0.9, 0.1])


@pytest.mark.parametrize("seed", range(5))
def test_the_unclipped_projection_is_the_euclidean_one(seed):
    V = np.random.default_rng(seed).normal(size=(5, 3)) - 0.5  # columns with every entry negative included
    out = project_columns_to_simplex(V, False)
    for f in range(3):
        assert np.allclose(out[:, f], naive_euclidean_simplex(V[:, f]), atol=1e-9)


def problem(seed: int, everything: bool):
    """The kernel's inputs for random sparse answers and a random model: (args, dense moments for the naive
    objective: m1 (M, K), R (M, M, K, K) zero where unobserved, weights W2 (M, M), T (dict), W3 (callable))."""
    item, worker, label, N, M, K = sparse_answers(seed)
    R, S = cooccurrences(item, worker, label, N, M, K)
    pairs, R2 = observed_pairs(R, S)
    triples, T3, _ = triple_moments(item, worker, label, N, M, K)
    m1 = np.zeros((M, K)) if everything else first_moments(worker, label, M, K)
    observed = {tuple(t): T3[n] for n, t in enumerate(triples)}
    W2 = (1.0 - np.eye(M)) if everything else (S > 0).astype(float)
    args = (m1, moment_bundle(pairs, R2, M), moment_bundle(triples, T3, M), everything)
    return args, (m1, R, W2, observed), (M, K)


def naive_objective(Gamma, p, dense, everything):
    m1, R, W2, observed = dense
    M, K = Gamma.shape[0], p.size
    value = 0.5 * sum(np.sum((m1[i] - Gamma[i] @ p) ** 2) for i in range(M))
    for i, j in itertools.combinations(range(M), 2):
        value += 0.5 * W2[i, j] * np.sum((R[i, j] - Gamma[i] @ np.diag(p) @ Gamma[j].T) ** 2)
    for key in itertools.combinations(range(M), 3):
        if key not in observed and not everything:
            continue
        model = np.einsum("f,af,bf,cf->abc", p, *(Gamma[m] for m in key))
        value += 0.5 * np.sum((observed.get(key, np.zeros((K, K, K))) - model) ** 2)
    return value


@pytest.mark.parametrize("everything", [True, False])
@pytest.mark.parametrize("seed", [0, 3])
def test_the_kernels_objective_equals_the_naive_sum_over_pairs_and_triples(seed, everything):
    args, dense, (M, K) = problem(seed, everything)
    start = random_start(seed, M, K)
    Gamma, p, sweeps, value = ao_admm(np.ascontiguousarray(start.confusion), start.priors, *args, True, 4, 10,
                                      1e-6, 1e-3, 1e-7, 1e-2)
    assert sweeps == 3
    assert np.isclose(value, naive_objective(Gamma, p, dense, everything), rtol=1e-10)
    assert value < naive_objective(start.confusion, start.priors, dense, everything)  # the sweeps descended
    assert np.allclose(Gamma.sum(axis=1), 1.0) and np.isclose(p.sum(), 1.0)


@pytest.mark.parametrize("everything", [True, False])
def test_each_annotators_normal_equations_are_the_naive_objectives_gradient(everything):
    args, dense, (M, K) = problem(5, everything)
    m1, pair_moments, triple_moments, _ = args
    rng = np.random.default_rng(1)
    Gamma = rng.random((M, K, K))
    Gamma /= Gamma.sum(axis=1, keepdims=True)
    p = rng.dirichlet(np.ones(K))
    grams = np.einsum("mab,mac->mbc", Gamma, Gamma)
    sums = np.stack([grams.sum(axis=0), (grams ** 2).sum(axis=0)])
    for i in range(M):
        lhs, rhs = _confusion_system(i, Gamma.reshape(M * K, K), grams, p, m1, pair_moments, triple_moments,
                                     everything, sums)
        gradient = (lhs @ Gamma[i].T - rhs).T  # d objective / d Gamma_i, (K answered, K true)
        numeric = np.zeros((K, K))
        for a, f in itertools.product(range(K), range(K)):
            step = np.zeros_like(Gamma)
            step[i, a, f] = 1e-5
            numeric[a, f] = (naive_objective(Gamma + step, p, dense, everything)
                             - naive_objective(Gamma - step, p, dense, everything)) / 2e-5
        assert np.allclose(gradient, numeric, rtol=1e-6, atol=1e-8)


def test_observed_moments_recover_a_dense_models_confusions_and_the_codes_zero_means_bias_them():
    model = gen.confusable_model(8, 3, 4)  # diagonally dominant: the per-annotator alignment names the classes
    a = gen.answers(model, np.ones((4000, 8)), np.random.SeedSequence(5))
    codes = (a.item, a.worker, a.label, a.n_items, a.n_workers, a.n_classes)
    observed = tensor_admm(*codes, seed=0, moments="observed").model
    assert np.abs(observed.confusion - model.confusion).max() < 0.1  # 0.083 measured; the rare class has 5 %
    assert np.abs(observed.priors - model.priors).max() < 0.01
    code = tensor_admm(*codes, seed=0, moments="code").model  # ||Gamma_m p||^2 penalised: 0.194 measured
    assert np.abs(code.confusion - model.confusion).max() > 0.15


def test_the_fit_keeps_its_unaligned_model_whose_per_annotator_alignment_is_the_model():
    from simverify.solvers.crowd.model import align_each_annotator
    fit = tensor_admm(*sparse_answers(3))
    aligned = align_each_annotator(fit.unaligned, floor=0.0)
    assert np.array_equal(aligned.confusion, fit.model.confusion) and np.array_equal(fit.unaligned.priors,
                                                                                      fit.model.priors)


def test_max_sweeps_caps_the_sweeps_run():
    assert tensor_admm(*sparse_answers(0), max_sweeps=3).sweeps == 3
    assert tensor_admm(*sparse_answers(0), max_sweeps=1).sweeps == 1


def test_the_same_seed_gives_the_same_fit_and_another_seed_another_start():
    args = sparse_answers(7)
    one, two = tensor_admm(*args, seed=3), tensor_admm(*args, seed=3)
    assert np.array_equal(one.model.confusion, two.model.confusion) and one.objective == two.objective
    assert not np.array_equal(random_start(3, 7, 3).confusion, random_start(4, 7, 3).confusion)


def errors(name: str, method: str, seed: int = 0) -> int:
    a = crowd.shipped(name)
    gold = a.gold >= 0
    return int((aggregate(a, method, seed=seed).posteriors.argmax(axis=1)[gold] != a.gold[gold]).sum())


def test_the_codes_configuration_gives_bluebirds_printed_12_03_percent():
    assert errors("bluebird", "tensor-admm") == 13  # 13 of 108 = 12.037 %, printed 12.03 (Table 4)


def test_the_codes_configuration_collapses_to_uniform_confusions_on_sparse_rte_and_says_so():
    a = crowd.shipped("rte")
    codes = (a.item, a.worker, a.label, a.n_items, a.n_workers, a.n_classes)
    with pytest.warns(FlatPosteriorsWarning, match="collapsed to uniform confusions after 2 sweeps.*euclidean"):
        fit = tensor_admm(*codes, seed=0, moments="code")
    assert np.allclose(fit.model.confusion, 0.5) and fit.sweeps == 2
    for options in ({"moments": "observed"}, {"projection": "euclidean"}):  # either correction moves off it
        moved = np.abs(tensor_admm(*codes, seed=0, **options).model.confusion - 0.5).max()
        assert moved > 0.1, options  # 0.47 and 0.24 measured


@pytest.mark.parametrize("kwargs, needle", [
    ({"moments": "all"}, "moments"), ({"projection": "l1"}, "projection"), ({"seed": -1}, "seed"),
    ({"seed": 1.5}, "seed"), ({"max_sweeps": 0}, "max_sweeps"), ({"max_sweeps": True}, "max_sweeps")])
def test_tensor_admm_refuses_bad_parameters(kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        tensor_admm(*sparse_answers(0), **kwargs)


@pytest.mark.parametrize("n", [545, 3000])
def test_tensor_admm_refuses_triples_past_the_memory_limit(n):
    # one item answered by n annotators: 545 gave a 3.82 GiB estimate and a 6.2 GiB peak before the estimate
    # counted the memberships and the sparse cells; 3000 give 4.5e9 triples of answers
    with pytest.raises(ValueError, match="GiB"):
        tensor_admm(np.zeros(n, dtype=np.int64), np.arange(n), np.zeros(n, dtype=np.int64), 1, n, 2)


def test_tensor_admm_refuses_a_huge_n_items_by_its_memory():
    item, worker, label, *_ = sparse_answers(0, n_items=4, n_workers=3)
    with pytest.raises(ValueError, match="GiB"):
        tensor_admm(item, worker, label, 10 ** 12, 3, 3)


@pytest.mark.parametrize("max_sweeps", [2 ** 31 - 1, 2 ** 63, np.uint64(2 ** 63 + 5)])
def test_tensor_admm_refuses_a_sweep_budget_past_an_int32(max_sweeps):
    with pytest.raises(ValueError, match="max_sweeps"):
        tensor_admm(*sparse_answers(0), max_sweeps=max_sweeps)


def test_tensor_admm_refuses_two_answers_of_one_annotator_to_one_item():
    item, worker, label, N, M, K = sparse_answers(1)
    with pytest.raises(ValueError, match="answered an item twice"):
        tensor_admm(np.r_[item, item[:1]], np.r_[worker, worker[:1]], np.r_[label, label[:1]], N, M, K)


def test_a_frame_with_a_repeated_index_is_still_refused_for_duplicate_answers():
    import pandas as pd

    from simverify.solvers.crowd.estimators import TensorADMM, example_answers
    frame = example_answers()
    with pytest.raises(ValueError, match="answered item .* again"):
        TensorADMM().fit(pd.concat([frame, frame.assign(label="n")]))


def test_without_a_shared_item_the_model_is_uniform_whatever_the_seed():
    item, worker, label = np.arange(6), np.array([0, 1, 2, 0, 1, 2]), np.array([0, 1, 0, 1, 0, 1])
    for seed in (0, 1):
        fit = tensor_admm(item, worker, label, 6, 3, 2, seed=seed)
        assert fit.sweeps == 0 and np.all(fit.model.confusion == 0.5) and np.all(fit.model.priors == 0.5)


def test_tensor_admm_takes_lists_of_codes_as_numpy_arrays():
    item, worker, label, N, M, K = sparse_answers(2)
    listed = tensor_admm(item.tolist(), worker.tolist(), label.tolist(), N, M, K, max_sweeps=5).model
    arrays = tensor_admm(item, worker, label, N, M, K, max_sweeps=5).model
    assert np.array_equal(listed.confusion, arrays.confusion)


def test_the_estimator_names_the_method_of_its_options_fits_any_combination_and_clones():
    from sklearn.base import clone

    from simverify.solvers.crowd.estimators import TensorADMM, example_answers
    est = TensorADMM(moments="observed", random_state=2)
    assert est._method() == "tensor-admm-observed" and TensorADMM()._method() == "tensor-admm"
    assert TensorADMM(projection="euclidean")._method() == "tensor-admm-euclidean"
    assert clone(est).get_params() == {"moments": "observed", "projection": "code", "random_state": 2}
    a = crowd.shipped("temp")
    both = TensorADMM(moments="observed", projection="euclidean").fit(crowd.to_frame(a))
    fit = tensor_admm(a.item, a.worker, a.label, a.n_items, a.n_workers, a.n_classes, moments="observed",
                      projection="euclidean")
    assert np.array_equal(both.errors_.to_numpy().reshape(fit.model.confusion.shape), fit.model.confusion)
    with pytest.raises(ValueError, match="moments"):
        TensorADMM(moments="dense").fit(example_answers())


def test_the_memory_estimate_counts_pairs_when_no_item_has_three_answers():
    from simverify.solvers.crowd.codes import tensor_bytes
    item = np.repeat(np.arange(1000), 2)  # 1000 items of two answers: no triple, 1000 pairs of answers
    assert tensor_bytes(item, 1000, 50, 2) >= 200 * 1000
    assert tensor_bytes(np.repeat(np.arange(1000), 1), 1000, 50, 2) == 0  # single answers: nothing to store
