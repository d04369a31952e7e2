"""The label-free choice of aggregator (``--method auto``, ``solvers.crowd.selection``), its held-out evidence
kernel against a naive NumPy reference, and the most-active-annotators subset of a data set."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simverify.datasets import crowd
from simverify.generators import crowd as gen
from simverify.kernels.crowd import log_evidence
from simverify.solvers.crowd import aggregate
from simverify.solvers.crowd.model import DawidSkeneModel
from simverify.solvers.crowd.selection import choose_method


def naive_log_evidence(item, worker, label, priors, errors, n_items):
    out = np.empty(n_items)
    for i in range(n_items):
        rows = np.flatnonzero(item == i)
        joint = priors.copy()
        for a in rows:
            joint = joint * errors[worker[a], label[a], :]
        out[i] = np.log(joint.sum())
    return out


@settings(deadline=None, max_examples=25)
@given(st.integers(1, 12), st.integers(1, 4), st.integers(2, 5), st.integers(0, 2 ** 32 - 1))
def test_log_evidence_matches_the_naive_product_of_answer_probabilities(n_items, M, K, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 3 * n_items + 1))
    item, worker, label = rng.integers(0, n_items, n), rng.integers(0, M, n), rng.integers(0, K, n)
    priors = rng.dirichlet(np.ones(K))
    errors = rng.dirichlet(np.ones(K), size=(M, K)).transpose(0, 2, 1).copy()
    got = log_evidence(item, worker, label, priors, errors, n_items)
    assert np.allclose(got, naive_log_evidence(item, worker, label, priors, errors, n_items), rtol=1e-12, atol=1e-12)


def _problem(seed=3):
    model = gen.dawid_skene_model(8, 3, seed=seed, n_specialists=2)
    return model, gen.answers(model, gen.answering_probabilities(400, 8, seed + 1, 0.6), seed + 2)


def test_another_candidate_replaces_the_default_when_clearly_ahead_and_not_when_tied_on_held_out_answers():
    model, answers = _problem()
    uniform = DawidSkeneModel(np.full(3, 1 / 3), np.full((8, 3, 3), 1 / 3))
    models = {"default": uniform, "same": uniform, "true": model}
    choice = choose_method(answers, lambda part, name: models[name], ("default", "same", "true"))
    assert choice.method == "true" and choice.scores["true"] > choice.scores["default"] == choice.scores["same"]
    tie = choose_method(answers, lambda part, name: models[name], ("default", "same"))
    assert tie.method == "default"  # equal held-out evidence keeps the default
    assert "chose default" in tie.explain() and "same" in tie.explain()


def test_auto_on_annotator_groups_skips_the_co_occurrence_candidate_and_says_why():
    split = [(i, w, (i + w) % 2) for i in range(6) for w in (0, 1, 2)] + \
        [(i, w, i % 2) for i in range(6, 12) for w in (3, 4, 5)]  # annotators {0, 1, 2} and {3, 4, 5}
    item, worker, label = (np.array(c) for c in zip(*split))
    answers = crowd.Answers(item, worker, label, np.arange(12), np.arange(6), np.array([1, 2], dtype=object),
                            np.full(12, -1))
    result = aggregate(answers, "auto")
    assert result.choice.method == "mv-em" and "robsymnmf-em-smoothed" in result.choice.skipped
    assert "never share an item" in result.choice.skipped["robsymnmf-em-smoothed"]
    assert "robsymnmf-em-smoothed skipped" in result.choice.explain()


@pytest.mark.slow
def test_auto_keeps_mv_em_on_labelme_where_the_symnmf_family_fails_and_its_labels_are_mv_em_s():
    answers = crowd.shipped("labelme")
    result = aggregate(answers, "auto")
    assert result.choice.method == "mv-em"
    assert result.choice.scores["mv-em"] > result.choice.scores["robsymnmf-em-smoothed"]
    assert np.array_equal(result.posteriors, aggregate(answers, "mv-em").posteriors)


def test_most_active_keeps_the_annotators_who_answered_most_breaking_ties_by_id():
    rows = [(1, 5, 1), (2, 5, 2), (3, 5, 1), (1, 7, 1), (2, 7, 1), (1, 6, 2), (2, 6, 2), (3, 9, 1)]
    a = crowd.Answers(*(np.array(c) for c in zip(*[(i - 1, {5: 0, 7: 1, 6: 2, 9: 3}[w], lab - 1)
                                                   for i, w, lab in rows])),
                      np.array([1, 2, 3], dtype=object), np.array([5, 7, 6, 9], dtype=object),
                      np.array([1, 2], dtype=object), np.array([0, 1, -1]))
    top = crowd.most_active(a, 2)  # 5 answered 3 items; 6 and 7 answered 2 each: the tie goes to id 6
    assert list(top.worker_ids) == [5, 6] and top.item.size == 5
    assert list(top.item_ids) == [1, 2, 3] and list(top.gold) == [0, 1, -1]
    one = crowd.most_active(a, 1)
    assert list(one.worker_ids) == [5] and one.n_items == 3
    with pytest.raises(ValueError, match="3 annotators asked for|5 annotators asked for"):
        crowd.most_active(a, 5)


def test_dog_with_its_52_most_active_annotators_keeps_every_item_as_the_paper_has_it():
    dog = crowd.most_active(crowd.shipped("dog"), 52)
    assert (dog.n_workers, dog.n_items, dog.item.size) == (52, 807, 7354)


@pytest.mark.parametrize("codes, needle", [
    (([0, 100000000], [0, 0], [0, 0], 1), "item codes must lie in 0..0"),
    (([0, 1], [0, 5], [0, 0], 2), "worker codes must lie in 0..1"),
    (([0, 1], [0, 1], [0, 3], 2), "label codes must lie in 0..2"),
    (([0, 1], [0], [0, 0], 2), "differ in length"),
])
def test_a_model_s_posteriors_refuse_answer_codes_it_cannot_index(codes, needle):
    model = gen.confusable_model(2, 3, 0)
    item, worker, label, n_items = codes
    with pytest.raises(ValueError, match=needle):
        model.posteriors(np.array(item), np.array(worker), np.array(label), n_items)


@pytest.mark.parametrize("kwargs, needle", [
    ({"accuracy": 0.7}, "accuracy must be a \\(low, high\\) pair"),
    ({"accuracy": (0.9, 0.5)}, "accuracy range must be increasing"),
    ({"confusable": 3}, "confusable must be an integer in \\[1, K - 1 = 2\\]"),
])
def test_the_sparse_problem_generator_refuses_bad_arguments(kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        gen.confusable_model(4, 3, 0, **kwargs)


def test_the_sparse_problem_generator_draws_columns_that_confuse_few_classes_and_a_two_class_default():
    model = gen.confusable_model(5, 6, 1)
    assert np.allclose(model.confusion.sum(axis=1), 1.0) and np.isclose(model.priors.sum(), 1.0)
    off = model.confusion - np.eye(6)[None] * model.confusion  # mistakes: beyond 1 % noise, at most 2 classes
    assert ((off > 0.01 / 6 + 1e-12).sum(axis=1) <= 2).all()
    assert gen.confusable_model(3, 2, 0).confusion.shape == (3, 2, 2)  # K = 2: one confusable class
    p = gen.heavy_tailed_probabilities(100, 40, 3.0, 1.0)
    assert np.isclose(p[0].sum(), 3.0) and p[0, 0] > p[0, -1]


@pytest.mark.parametrize("floor", [1.0, -1, -1e-300, True, float("nan"), "x"])
def test_the_code_alignment_refuses_a_floor_outside_0_1(floor):
    from simverify.solvers.crowd.model import align_each_annotator
    model = gen.confusable_model(2, 3, 0)
    with pytest.raises(ValueError, match="the floor must be a number in \\[0, 1\\)"):
        align_each_annotator(model, floor)


def test_answers_subset_keeps_the_chosen_triples_with_their_ids_and_gold():
    a = crowd.shipped("rte")
    items = np.arange(0, a.n_items, 3)
    workers = np.unique(a.worker[np.isin(a.item, items)])[::2]
    keep = np.isin(a.item, items) & np.isin(a.worker, workers)
    b = a.subset(keep, items, workers)
    ids = set(zip(a.item_ids[a.item[keep]].tolist(), a.worker_ids[a.worker[keep]].tolist(), a.label[keep].tolist()))
    assert set(zip(b.item_ids[b.item].tolist(), b.worker_ids[b.worker].tolist(), b.label.tolist())) == ids
    assert np.array_equal(b.gold, a.gold[items]) and (b.n_items, b.n_workers) == (items.size, workers.size)
    c = a.subset(np.isin(a.item, items), items)  # annotators kept as they are
    assert c.n_workers == a.n_workers and np.array_equal(c.worker, a.worker[np.isin(a.item, items)])


def test_auto_scores_and_choice_do_not_depend_on_the_thread_count():
    from simverify.solvers.crowd.methods import METHODS
    a = crowd.shipped("temp")

    def fit(part, name):
        return METHODS[name](part, 0).model
    one, two = choose_method(a, fit, threads=1), choose_method(a, fit, threads=2)
    assert one.method == two.method and one.scores == two.scores


@pytest.mark.parametrize("threads", [0, -1, 1.5, True])
def test_auto_refuses_a_thread_count_that_is_not_a_positive_integer(threads):
    with pytest.raises(ValueError, match="threads"):
        choose_method(crowd.shipped("temp"), lambda part, name: None, threads=threads)


def test_the_leading_eigenpairs_by_lanczos_equal_lapacks_past_its_threshold():
    from scipy.linalg import eigh

    from simverify.solvers.crowd.cooccurrence import LANCZOS_FROM, _leading_eigenpairs
    rng = np.random.default_rng(0)
    n, K = LANCZOS_FROM + 10, 3
    B = rng.random((n, K))
    A = B @ np.diag([50.0, 30.0, 20.0]) @ B.T + 0.01 * (lambda E: E + E.T)(rng.normal(size=(n, n)))
    vals, vecs = _leading_eigenpairs(A, K)
    ref_vals, ref_vecs = eigh(A, subset_by_index=[n - K, n - 1])
    assert np.allclose(vals, ref_vals, rtol=1e-12)
    assert np.allclose(np.abs(vecs.T @ ref_vecs), np.eye(K), atol=1e-10)  # equal up to each vector's sign


@pytest.mark.parametrize("row", [[1.0, np.nan, 3.0], [np.nan, 1.0], [-np.inf, -np.inf], [2.0, np.inf, 1.0],
                                 [-0.0, 0.0], [5.0]])
def test_the_e_steps_row_maximum_equals_ndarrays_nan_included(row):
    from simverify.kernels.crowd.dawid_skene import _row_max
    x = np.array([row, row[::-1]])
    for i in range(2):
        assert np.array_equal(_row_max(x, i), x[i].max(), equal_nan=True)


def test_tensor_admms_one_norm_change_propagates_nan():
    from simverify.kernels.crowd.tensor import _relative_one_norm_change
    old, new = np.ones((1, 2, 2)), np.ones((1, 2, 2))
    new[0, 1, 1] = np.nan
    assert np.isnan(_relative_one_norm_change(old, new, 0))
    new[0, 1, 1] = 3.0
    assert _relative_one_norm_change(old, new, 0) == 1.0  # column 1 moved by 2 against a column sum of 2
