"""The SymNMF family and baselines against naive references and noiseless identities (Ibrahim & Fu 2021)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simverify import metrics
from simverify.datasets import crowd
from simverify.generators import crowd as gen
from simverify.kernels.crowd import evidence_lower_bound
from simverify.solvers.crowd import METHODS, aggregate, cooccurrences, dawid_skene, pipeline, square_root, symnmf
from simverify.solvers.crowd.cooccurrence import assemble, observed_blocks, square_root_of_product
from simverify.solvers.crowd.estimators import ESTIMATORS, DawidSkene, MajorityVote, RobSymNMF
from simverify.solvers.crowd.methods import BINARY_ONLY
from simverify.solvers.crowd.model import DawidSkeneModel, align_to_diagonal, from_symnmf_factor


def naive_cooccurrences(item, worker, label, N, M, K):
    """Eq. (3) by a dense items x workers table (the reference the kernel must never build)."""
    table = np.full((N, M), -1)
    table[item, worker] = label
    R, S = np.zeros((M, M, K, K)), np.zeros((M, M), dtype=int)
    for m in range(M):
        for j in range(M):
            if m == j:
                continue
            both = (table[:, m] >= 0) & (table[:, j] >= 0)
            S[m, j] = both.sum()
            for n in np.nonzero(both)[0]:
                R[m, j, table[n, m], table[n, j]] += 1
            R[m, j] /= max(S[m, j], 1)
    return R, S


@settings(deadline=None, max_examples=25)
@given(st.integers(1, 12), st.integers(2, 6), st.integers(2, 4), st.integers(0, 2**31 - 1))
def test_cooccurrence_kernel_equals_the_dense_reference(N, M, K, seed):
    rng = np.random.default_rng(seed)
    mask = rng.random((N, M)) < 0.6
    item, worker = np.nonzero(mask)
    label = rng.integers(0, K, size=item.size)
    R, S = cooccurrences(item, worker, label, N, M, K)
    R0, S0 = naive_cooccurrences(item, worker, label, N, M, K)
    assert np.array_equal(S, S0) and np.allclose(R, R0, atol=1e-15)
    assert np.allclose(R, R.transpose(1, 0, 3, 2))  # R_{j,m} = R_{m,j}^T


def _truth(seed=0, M=12, K=3):
    return gen.dawid_skene_model(M, K, seed, n_specialists=2, epsilon=0.05)


def _true_blocks(model):
    return gen.exact_cooccurrences(model, np.ones((model.confusion.shape[0],) * 2, dtype=bool))


def test_designated_imputation_is_exact_on_noiseless_blocks_diagonal_included():
    model = _truth()
    full = _true_blocks(model)
    observed = gen.observed_at_random(12, 0.3, seed=1)
    S = np.where(observed, 100, 0)
    blocks, filled = pipeline.designated_blocks(np.where(observed[:, :, None, None], full, 0.0), S)
    assert filled.all()  # 30 % missing at M = 12: every block, the diagonal too, has a triangle
    assert np.abs(blocks - full).max() < 1e-10


def test_robust_imputation_fits_noiseless_blocks_and_its_objective_decreases():
    model = _truth()
    full = _true_blocks(model)
    observed = gen.observed_at_random(12, 0.3, seed=2)
    S = np.where(observed, 100, 0)
    blocks, U, history = pipeline.robust_blocks(full, S, n_outer=300, tol=1e-12)
    assert np.all(np.diff(history) <= 1e-12 * history[0])
    assert np.abs(blocks - full).max() < 1e-8
    assert np.all(np.sqrt((U ** 2).sum(axis=(1, 2))) <= pipeline.RADIUS + 1e-12)


def test_symnmf_on_the_exact_second_order_matrix_recovers_the_model_up_to_one_permutation():
    model = _truth()
    M = 12
    H, Q, costs = symnmf(square_root(assemble(_true_blocks(model)), 3), "zero", n_iter=3000, tol=1e-14)
    assert np.allclose(Q @ Q.T, np.eye(3), atol=1e-10) and H.min() >= 0
    est = from_symnmf_factor(H, M)
    assert metrics.confusion_mse(model.priors, model.confusion, est.priors, est.confusion) < 1e-4


def _cnmf_on_exact_blocks(seed: int):
    """(fit error on the observed blocks, confusion MSE) of CNMF on one model's exact blocks, 30 % missing."""
    observed = gen.observed_at_random(12, 0.3, seed=3)
    model = gen.dawid_skene_model(12, 3, seed, n_specialists=4, epsilon=0.05)
    R = np.where(observed[:, :, None, None], _true_blocks(model), 0.0)
    est = pipeline.cnmf_model(R, np.where(observed, 100, 0), n_iter=20000, tol=0.0)
    fitted = np.einsum("mak,k,jbk->mjab", est.confusion, est.priors, est.confusion)
    return (np.abs(fitted - R)[observed].max(),
            metrics.confusion_mse(model.priors, model.confusion, est.priors, est.confusion))


def test_cnmf_fits_exact_blocks_with_30_percent_missing_and_recovers_a_model_with_balanced_priors():
    fit, mse = _cnmf_on_exact_blocks(7)  # priors (0.31, 0.45, 0.25)
    assert fit < 1e-6 and mse < 1e-4


def test_cnmf_with_a_rare_class_fits_the_blocks_but_ends_at_another_model_as_the_readme_reports():
    fit, mse = _cnmf_on_exact_blocks(0)  # priors (0.40, 0.59, 0.012): a regression pin of a reported finding
    assert fit < 1e-6 and mse > 0.01


@settings(deadline=None, max_examples=20)
@given(st.integers(3, 8), st.integers(2, 4), st.integers(0, 2**31 - 1))
def test_cnmf_sweeps_never_decrease_the_kl_objective_on_sampled_blocks(M, K, seed):
    from simverify.kernels.crowd import coupled_kl_sweeps
    model = gen.dawid_skene_model(M, K, seed)
    answers = gen.answers(model, gen.answering_probabilities(300, M, 3, 0.5), seed=seed)
    R, S = cooccurrences(*_codes(answers))
    from simverify.solvers.crowd.model import smoothed
    start = smoothed(pipeline.multispa_model(R, S), 0.1)
    confusion, priors = start.confusion.copy(), start.priors.copy()
    history = coupled_kl_sweeps(R, observed_blocks(S), confusion, priors, 50, 0.0)
    assert np.all(np.diff(history) >= -1e-9 * np.abs(history[:-1]))
    assert np.allclose(confusion.sum(axis=1), 1.0) and np.isclose(priors.sum(), 1.0) and confusion.min() >= 0


def test_square_root_of_a_product_equals_the_eigendecomposition_of_the_product():
    H = np.random.default_rng(3).random((40, 3))
    assert np.allclose(square_root_of_product(H), square_root(H @ H.T, 3), atol=1e-10)


def test_the_constant_schedule_zeroes_entries_below_alpha():
    U = np.array([[0.5, -0.1], [0.05, 0.9], [0.3, 0.3]])
    H, _, _ = symnmf(U, "constant", n_iter=1, alpha0=0.2)
    assert np.array_equal(H == 0, np.array([[False, True], [True, False], [False, False]]))


def test_extraction_normalises_columns_and_alignment_puts_the_diagonal_first():
    model = DawidSkeneModel(np.array([0.3, 0.7]), np.array([[[0.9, 0.2], [0.1, 0.8]]] * 3))
    H = np.sqrt(model.priors) * model.confusion.reshape(6, 2)
    est = align_to_diagonal(from_symnmf_factor(H[:, ::-1], 3))  # columns swapped, then realigned
    assert np.allclose(est.confusion, model.confusion) and np.allclose(est.priors, model.priors)


def test_em_from_the_true_model_stays_near_it_and_mv_em_beats_majority_vote():
    model = gen.dawid_skene_model(10, 3, seed=3, n_specialists=3, epsilon=0.1)
    answers = gen.answers(model, gen.answering_probabilities(3000, 10, 3, 0.5), seed=4)
    _, priors, errors = dawid_skene(answers.item, answers.worker, answers.label, answers.n_items, 10, 3,
                                    n_iter=100, init=model, tol=1e-5)
    # sampling error with about 90 items in the rarest class
    assert metrics.confusion_mse(model.priors, model.confusion, priors, errors) < 0.01
    mv = metrics.label_error(aggregate(answers, "mv").posteriors, answers.gold)
    oracle = metrics.label_error(model.posteriors(answers.item, answers.worker, answers.label, answers.n_items),
                                 answers.gold)
    em = aggregate(answers, "mv-em")
    assert metrics.label_error(em.posteriors, answers.gold) <= oracle + 0.02 < mv


def test_evidence_lower_bound_counts_the_prior_per_answer_as_crowdkit_does():
    rng = np.random.default_rng(4)
    item, worker, label = rng.integers(0, 6, 30), rng.integers(0, 4, 30), rng.integers(0, 3, 30)
    q = rng.dirichlet(np.ones(3), size=6)
    priors, errors = rng.dirichlet(np.ones(3)), rng.dirichlet(np.ones(3), size=(4, 3)).transpose(0, 2, 1)
    joint = sum(q[i] @ (np.log(errors[w, lab]) + np.log(priors)) for i, w, lab in zip(item, worker, label))
    entropy = -(q * np.log(q)).sum()
    assert np.isclose(evidence_lower_bound(item, worker, label, q, priors, errors), joint + entropy)


def test_every_binary_method_is_accurate_when_workers_are_reliable_and_two_are_specialists():
    M = 15
    rng = np.random.default_rng(0)
    right = rng.uniform(0.65, 0.9, size=(M, 2))
    right[:2] = 0.97  # two near-perfect annotators: H satisfies the SSC (Proposition 1)
    confusion = np.stack([[[r[0], 1 - r[1]], [1 - r[0], r[1]]] for r in right])
    model = DawidSkeneModel(np.array([0.5, 0.5]), confusion)
    answers = gen.answers(model, gen.answering_probabilities(1000, M, 5, 0.4), seed=6)
    for name in ("kos", "ghosh-svd", "eigen-ratio", "multispa", "robsymnmf", "dessymnmf", "symnmf"):
        assert metrics.label_error(aggregate(answers, name).posteriors, answers.gold) < 0.1, name


def test_block_missing_design_covers_every_annotator_with_p_annotators_per_part():
    p = gen.block_missing_probabilities(1000, 10, 4, seed=0)
    assert (p.max(axis=0) > 0).all()
    parts = [p[:100], p[100:400], p[400:]]
    assert all(((part > 0).sum(axis=1) == 4).all() for part in parts)
    observed = observed_blocks(cooccurrences(*_codes(gen.answers(_truth(0, 10, 3), p, 1)))[1])
    assert 0 < observed.mean() < 1


def _codes(a):
    return a.item, a.worker, a.label, a.n_items, a.n_workers, a.n_classes


def test_estimators_take_crowdkit_frames_with_string_ids_and_expose_its_attributes():
    frame = pd.DataFrame({"task": ["t1", "t1", "t1", "t2", "t2", "t3", "t3", "t3"],
                          "worker": ["a", "b", "c", "a", "b", "a", "b", "c"],
                          "label": ["cat", "cat", "dog", "dog", "dog", "cat", "dog", "cat"]})
    ds = DawidSkene().fit(frame)
    assert list(ds.labels_.index) == ["t1", "t2", "t3"] and ds.labels_.name == "agg_label"
    assert MajorityVote().fit_predict(frame).tolist() == ["cat", "dog", "cat"]
    assert list(ds.probas_.columns) == ["cat", "dog"] and np.allclose(ds.probas_.sum(axis=1), 1)
    assert np.isclose(ds.priors_.sum(), 1) and ds.priors_.name == "prior"
    assert ds.errors_.index.names == ["worker", "label"]
    assert np.allclose(ds.errors_.groupby(level="worker").sum(), 1)  # P(observed | true) sums to 1
    assert set(ESTIMATORS) >= {"MajorityVote", "DawidSkene", "RobSymNMF", "DesSymNMF", "MultiSPA", "KOS"}
    with pytest.raises(ValueError, match="lacks columns"):
        DawidSkene().fit(frame.rename(columns={"task": "item"}))
    with pytest.raises(ValueError, match="no EM or per-annotator variant"):
        RobSymNMF(weighted=False, em=True).fit(frame)
    one_step = DawidSkene(n_iter=1, tol=0.0).fit(frame)  # crowd-kit's constructor arguments
    assert (one_step.n_iter, one_step.tol) == (1, 0.0) and np.allclose(one_step.probas_.sum(axis=1), 1)


def test_estimators_return_ids_and_labels_in_the_frames_dtypes():
    """As crowd-kit does: integer labels come back as integers, not Python objects, and a categorical stays one."""
    frame = pd.DataFrame({"task": [0, 0, 1, 1, 2, 2, 3, 3], "worker": [7, 9, 7, 9, 7, 9, 7, 9],
                          "label": np.array([1, 1, 2, 2, 1, 2, 2, 2], dtype=np.int32)})
    ds = DawidSkene().fit(frame)
    assert ds.labels_.dtype == np.int32 and ds.labels_.index.dtype == np.int64
    assert ds.probas_.columns.dtype == np.int32 and ds.priors_.index.dtype == np.int32
    assert ds.errors_.index.levels[0].dtype == np.int64 and ds.errors_.index.names == ["worker", "label"]
    assert MajorityVote().fit_predict(frame).loc[[0, 1]].tolist() == [1, 2]
    categorical = frame.assign(label=pd.Categorical(np.where(frame["label"] == 1, "cat", "dog")))
    votes = MajorityVote().fit_predict(categorical)
    assert isinstance(votes.dtype, pd.CategoricalDtype) and votes.loc[[0, 1]].tolist() == ["cat", "dog"]


def test_robsymnmf_em_on_rte_makes_57_errors_in_800_as_the_papers_table5_reports():
    a = crowd.shipped("rte")
    errors = 800 * metrics.label_error(aggregate(a, "robsymnmf-em").posteriors, a.gold)
    assert abs(errors - 57) < 1e-9  # Table 5: 7.12 %, i.e. 57/800 = 7.125 % truncated


@pytest.mark.parametrize("name", sorted(METHODS))
def test_every_documented_method_returns_posteriors_that_beat_chance_on_reliable_workers(name):
    K = 2 if name in BINARY_ONLY else 3
    rng = np.random.default_rng(11)
    right = rng.uniform(0.7, 0.95, size=(8, K))
    right[:2] = 0.98  # two class specialists: the SSC holds (Proposition 1)
    confusion = np.stack([np.where(np.eye(K, dtype=bool), r, (1 - r) / (K - 1)) for r in right])
    model = DawidSkeneModel(np.full(K, 1.0 / K), confusion)
    answers = gen.answers(model, gen.answering_probabilities(600, 8, 12, 0.6), seed=13)
    result = aggregate(answers, name)
    assert result.posteriors.shape == (answers.n_items, K)
    assert np.allclose(result.posteriors.sum(axis=1), 1.0) and (result.posteriors >= 0).all()
    assert metrics.label_error(result.posteriors, answers.gold) < 0.5 * (1 - 1 / K)


@settings(deadline=None, max_examples=40)
@given(st.integers(2, 6), st.floats(1.0, 200.0), st.integers(0, 2**31 - 1))
def test_condition_confusion_has_exactly_the_requested_condition_number(K, gamma, seed):
    from theorems.crowd.measures import condition_confusion
    c = np.random.default_rng(seed).dirichlet(np.ones(K))
    A = condition_confusion(c, gamma)
    assert (A >= 0).all() and np.allclose(A.sum(axis=0), 1.0)  # a confusion matrix: columns are PMFs
    assert np.isclose(np.linalg.cond(A), gamma, rtol=1e-8)


def test_designated_condition_measure_is_paired_along_gamma():
    from theorems.crowd.measures import measure_designated_condition
    seed = np.random.SeedSequence(3)
    both = measure_designated_condition(seed, K=2, S=2000, gamma=[2.0, 8.0], groups=3)
    one = measure_designated_condition(np.random.SeedSequence(3), K=2, S=2000, gamma=[8.0], groups=3)
    assert {k: v.shape for k, v in both.items()} == {"err": (2,), "varrho": (2,), "bound_ratio": (2,)}
    assert np.isclose(both["err"][1], one["err"][0])  # the value at gamma = 8 does not depend on the other gammas
    assert both["varrho"][1] < both["varrho"][0]  # worse-conditioned annotators, smaller sigma_min(R)


def test_aggregate_many_equals_each_method_run_alone():
    from simverify.solvers.crowd.methods import aggregate_many
    a = crowd.shipped("bluebird")
    many = aggregate_many(a, sorted(METHODS), seed=3)
    for name in sorted(METHODS):
        assert np.array_equal(many[name].posteriors, aggregate(a, name, seed=3).posteriors), name


def test_em_from_a_start_with_a_zero_entry_stays_far_from_it_and_the_smoothed_start_recovers_it():
    from simverify.solvers.crowd.model import START_SMOOTHING, smoothed
    model = gen.dawid_skene_model(8, 3, seed=1, n_specialists=2)
    answers = gen.answers(model, gen.answering_probabilities(4000, 8, 6, 0.7), seed=6)
    m, k = 7, 0
    o = int(np.argmax(model.confusion[m, :, k]))  # annotator 7's most frequent answer on class 0 (0.92)
    start = DawidSkeneModel(model.priors, model.confusion.copy())
    start.confusion[m, o, k] = 0.0  # the true model with one entry zeroed, as SymNMF's nonnegativity leaves them
    start.confusion[m, :, k] /= start.confusion[m, :, k].sum()
    final = {share: dawid_skene(*_codes(answers), n_iter=1000, init=smoothed(start, share), tol=0.0)[2][m, o, k]
             for share in (0.0, START_SMOOTHING)}
    assert final[0.0] < 0.1 < 0.8 < model.confusion[m, o, k]  # 1000 iterations do not bring it back
    assert abs(final[START_SMOOTHING] - model.confusion[m, o, k]) < 0.05


@pytest.mark.parametrize("share", [-0.1, 1.0, True, "0.01", float("nan")])
def test_start_smoothing_outside_zero_to_one_is_refused(share):
    from simverify.solvers.crowd.model import smoothed
    model = gen.dawid_skene_model(3, 2, seed=1)
    with pytest.raises(ValueError, match="start smoothing"):
        smoothed(model, share)


def test_the_smoothed_methods_and_estimators_equal_em_from_the_smoothed_model():
    from simverify.solvers.crowd.estimators import DesSymNMF
    from simverify.solvers.crowd.methods import _em_from
    from simverify.solvers.crowd.model import START_SMOOTHING, smoothed
    a = crowd.shipped("bluebird")
    for start, estimator in (("robsymnmf", RobSymNMF), ("dessymnmf", DesSymNMF)):
        direct = _em_from(a, smoothed(aggregate(a, start).model, START_SMOOTHING))
        assert np.array_equal(aggregate(a, f"{start}-em-smoothed").posteriors, direct.posteriors)
        probas = estimator(em=True, smoothing=START_SMOOTHING).fit(crowd.to_frame(a)).probas_.to_numpy()
        assert np.allclose(probas, direct.posteriors)
        with pytest.raises(ValueError, match="em=True"):
            estimator(smoothing=START_SMOOTHING).fit(crowd.to_frame(a))  # smoothing without EM is refused


@pytest.mark.parametrize("tie", ["yes", None, 1, [1]])
def test_example_answers_refuses_a_tie_that_is_not_a_bool(tie):
    from simverify.solvers.crowd.estimators import example_answers
    with pytest.raises(TypeError, match="tie must be True or False"):
        example_answers(tie=tie)


def naive_align_each_annotator(confusion: np.ndarray, floor: float) -> np.ndarray:
    """The authors' code's steps written out: floor, renormalise columns, then per annotator and row k the column
    with the row's largest entry becomes column k."""
    M, K, _ = confusion.shape
    out = np.empty_like(confusion)
    for m in range(M):
        G = np.maximum(confusion[m], floor)
        G = G / G.sum(axis=0)
        for k in range(K):
            out[m][:, k] = G[:, int(np.argmax(G[k]))]
    return out


@settings(deadline=None, max_examples=30)
@given(st.integers(1, 5), st.integers(2, 6), st.integers(0, 2 ** 32 - 1))
def test_align_each_annotator_matches_the_naive_loops_and_keeps_columns_stochastic(M, K, seed):
    from simverify.solvers.crowd.model import CODE_FLOOR, align_each_annotator
    rng = np.random.default_rng(seed)
    confusion = rng.dirichlet(np.ones(K), size=(M, K)).transpose(0, 2, 1)
    confusion[rng.random(confusion.shape) < 0.3] = 0.0  # exact zeros, as SymNMF's factors have
    confusion /= np.maximum(confusion.sum(axis=1, keepdims=True), 1e-300)
    aligned = align_each_annotator(DawidSkeneModel(np.full(K, 1.0 / K), confusion)).confusion
    assert np.allclose(aligned, naive_align_each_annotator(confusion, CODE_FLOOR), rtol=0, atol=1e-15)
    assert np.allclose(aligned.sum(axis=1), 1.0) and aligned.min() >= CODE_FLOOR / (1 + K * CODE_FLOOR)


def test_align_each_annotator_repairs_an_annotator_whose_classes_are_swapped():
    from simverify.solvers.crowd.model import align_each_annotator
    good = np.array([[0.8, 0.1], [0.2, 0.9]])
    confusion = np.stack([good, good[:, ::-1]])  # annotator 1 in the other class order
    common = align_to_diagonal(DawidSkeneModel(np.array([0.5, 0.5]), confusion)).confusion
    assert not np.allclose(common[1], good)  # one permutation for all cannot fix annotator 1
    assert np.allclose(align_each_annotator(DawidSkeneModel(np.array([0.5, 0.5]), confusion)).confusion,
                       np.stack([good, good]), atol=2e-3)


@pytest.mark.slow
def test_the_code_alignment_gives_the_same_labelme_errors_with_one_or_two_blas_and_numba_threads():
    import json
    import os
    import subprocess
    import sys
    script = ("import json, numpy as np; from simverify.datasets.crowd import shipped; "
              "from simverify.solvers.crowd.methods import aggregate_many; from simverify import metrics; "
              "a = shipped('labelme'); names = ['robsymnmf-per-annotator', 'robsymnmf-per-annotator-em', "
              "'symnmf-per-annotator-em']; r = aggregate_many(a, names); "
              "print(json.dumps([metrics.label_error(r[n].posteriors, a.gold) for n in names]))")
    errors = []
    for threads in ("1", "2"):
        env = {**os.environ, "OPENBLAS_NUM_THREADS": threads, "OMP_NUM_THREADS": threads,
               "NUMBA_NUM_THREADS": threads}
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=600)
        assert out.returncode == 0, out.stderr
        errors.append(json.loads(out.stdout.strip().splitlines()[-1]))
    assert errors[0] == errors[1]  # the upstream blocks differ by ~1e-15 between thread counts; the errors do not


@pytest.mark.parametrize("name", ["symnmf", "dessymnmf", "robsymnmf"])
def test_estimator_alignment_per_annotator_is_the_per_annotator_method(name):
    a = crowd.shipped("dog")
    frame = crowd.to_frame(a)
    cls = {"symnmf": "SymNMF", "dessymnmf": "DesSymNMF", "robsymnmf": "RobSymNMF"}[name]
    fitted = ESTIMATORS[cls](alignment="per-annotator").fit(frame).probas_.to_numpy()
    assert np.allclose(fitted, aggregate(a, f"{name}-per-annotator").posteriors)
    assert not np.allclose(fitted, ESTIMATORS[cls]().fit(frame).probas_.to_numpy())
    if name != "symnmf":  # the code's 10 EM rounds
        em = ESTIMATORS[cls](alignment="per-annotator", em=True, n_iter=10, tol=0.0).fit(frame)
        assert np.allclose(em.probas_.to_numpy(), aggregate(a, f"{name}-per-annotator-em").posteriors)


def test_estimator_alignment_refuses_an_unknown_value_and_the_unweighted_variant():
    frame = crowd.to_frame(crowd.shipped("bluebird"))
    with pytest.raises(ValueError, match=r"RobSymNMF: alignment must be one of \['common', 'per-annotator'\]"):
        RobSymNMF(alignment="each").fit(frame)
    with pytest.raises(ValueError, match="no EM or per-annotator variant"):
        RobSymNMF(weighted=False, alignment="per-annotator").fit(frame)


def test_auto_aggregator_is_the_auto_method_and_says_what_it_chose():
    from simverify.solvers.crowd.estimators import AutoAggregator
    a = crowd.shipped("temp")
    model = AutoAggregator().fit(crowd.to_frame(a))
    reference = aggregate(a, "auto")
    assert model.chosen_ == reference.choice.method
    assert model.heldout_log_likelihood_.to_dict() == reference.choice.scores
    assert np.array_equal(model.probas_.to_numpy(), reference.posteriors)


def test_auto_aggregator_refuses_fewer_tasks_than_folds_naming_itself():
    from simverify.solvers.crowd.estimators import AutoAggregator, example_answers
    with pytest.raises(ValueError, match=r"^AutoAggregator: auto holds out 5 folds of items and needs at least 5 "
                                         r"items, got 2; choose a method$"):
        AutoAggregator().fit(example_answers().head(8))
