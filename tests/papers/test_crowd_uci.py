"""Tables 1-3's machinery (Ibrahim & Fu 2021): machine annotators, observed labels, Appendix C.2's block-missing
designs, and Remark 1's imputation falling back to the next triangle when the best one is singular."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simverify.datasets.bundled import SETS, bundled_set
from simverify.generators import crowd as gen
from simverify.generators.machine_annotators import TABLE8, classifier_labels
from simverify.kernels.crowd import designated_imputation
from simverify.solvers.crowd import DawidSkeneModel


@pytest.mark.parametrize("name, n, K", [("breast_cancer", 569, 2), ("digits358", 539, 3), ("digits3589", 719, 4)])
def test_bundled_sets_have_the_documented_sizes_and_read_only_arrays(name, n, K):
    X, y = bundled_set(name)
    assert X.shape[0] == y.size == n and sorted(np.unique(y)) == list(range(K))
    assert not X.flags.writeable and not y.flags.writeable


def test_unknown_bundled_set_is_refused_by_name():
    with pytest.raises(ValueError, match="unknown bundled data set 'iris'"):
        bundled_set("iris")
    assert "iris" not in SETS


def test_classifier_labels_split_one_fifth_stratified_and_repeat_for_a_seed():
    X, y = bundled_set("digits358")
    labels, truth = classifier_labels(X, y, np.random.SeedSequence(3))
    again, truth_again = classifier_labels(X, y, np.random.SeedSequence(3))
    assert labels.shape == (truth.size, len(TABLE8)) and labels.dtype == np.int64
    assert np.array_equal(labels, again) and np.array_equal(truth, truth_again)
    train = np.bincount(y) - np.bincount(truth)  # per class: a fifth of it trained on
    assert np.allclose(train / np.bincount(y), 0.2, atol=0.01)
    fine_knn = TABLE8.index("fine k-NN")
    assert (labels[:, fine_knn] != truth).mean() < 0.2  # a 1-NN on digits errs rarely


@settings(deadline=None, max_examples=20)
@given(st.integers(1, 60), st.integers(2, 7), st.integers(0, 2**31 - 1))
def test_observed_labels_keep_each_annotators_own_label_and_drop_unanswered_items(N, M, seed):
    rng = np.random.default_rng(seed)
    labels, truth = rng.integers(0, 3, (N, M)), rng.integers(0, 3, N)
    p = rng.choice([0.0, 0.5, 1.0], size=(N, M))
    a = gen.observed_labels(labels, truth, p, 3, np.random.SeedSequence(seed))
    rows = a.item_ids[a.item] - 1  # item ids are 1-based positions
    assert np.array_equal(a.label, labels[rows, a.worker])
    assert np.all(p[rows, a.worker] > 0)
    assert np.array_equal(a.gold, truth[a.item_ids - 1])
    answered = np.unique(rows)
    assert np.array_equal(answered, a.item_ids - 1)
    assert np.all((p[answered] > 0).any(axis=1))
    always = np.argwhere(p == 1.0)
    seen = set(zip(rows.tolist(), a.worker.tolist()))
    assert all((int(i), int(m)) in seen for i, m in always)


def test_part_members_cover_every_annotator_with_the_part_sizes():
    for s in range(50):
        sizes = (4, 3, 5)
        members = gen.part_members(10, sizes, np.random.default_rng(s))
        assert [m.size for m in members] == list(sizes)
        assert set(np.concatenate(members).tolist()) == set(range(10))


def test_missing_share_counts_the_diagonal_and_unshared_pairs():
    members = [np.array([0, 1]), np.array([1, 2])]  # blocks (0,1), (1,2) and their transposes are observed
    assert gen.missing_share(members, 3) == pytest.approx(1 - 4 / 9)


@pytest.mark.parametrize("missing", [0.7, 0.5, 0.3])
def test_members_for_missing_reach_the_exact_proportion(missing):
    for s in range(5):
        members = gen.members_for_missing(10, missing, np.random.SeedSequence(s))
        assert gen.missing_share(members, 10) == pytest.approx(missing)
        p = gen.part_probabilities(100, 10, members)
        assert (p.max(axis=0) > 0).all() and set(np.unique(p)) <= {0.0, 1.0}


def test_members_for_missing_refuses_an_unreachable_proportion():
    with pytest.raises(ValueError, match="no design"):
        gen.members_for_missing(10, 0.99, np.random.SeedSequence(0), tries=200)


def test_designated_imputation_falls_back_to_a_nonsingular_triangle():
    """Annotator 0 always answers class 0 (A_0 of rank 1) and has the most co-labelled items, so the best-scored
    triangle through it has a singular U_l; every diagonal block must still be imputed, exactly."""
    rng = np.random.default_rng(0)
    M, K = 6, 2
    confusion = rng.dirichlet(np.ones(K), size=(M, K)).transpose(0, 2, 1) + 2 * np.eye(K)
    confusion /= confusion.sum(axis=1, keepdims=True)
    confusion[0] = np.array([[1.0, 1.0], [0.0, 0.0]])
    model = DawidSkeneModel(np.array([0.4, 0.6]), confusion)
    observed = ~np.eye(M, dtype=bool)
    R = gen.exact_cooccurrences(model, observed)
    S = np.where(observed, 10.0, 0.0)
    S[0, :] = S[:, 0] = 1000.0
    np.fill_diagonal(S, 0.0)
    X, filled = designated_imputation(R, observed, S)
    assert filled.all()
    truth = gen.exact_cooccurrences(model, np.ones((M, M), dtype=bool))
    assert np.abs(X - truth).max() < 1e-10


def _two_groups(seed: int = 0):
    """Answers of 400 items: items 0..199 labelled by annotators 0-4 only, items 200..399 by annotators 5-9 only
    (two components of the co-labelling graph), from one Dawid-Skene model with two class specialists per group."""
    model = gen.dawid_skene_model(10, 3, seed, n_specialists=0)
    confusion = model.confusion.copy()
    for m in (0, 1, 5, 6):
        confusion[m] = 0.9 * np.eye(3) + 0.1 / 3
    p = np.zeros((400, 10))
    p[:200, :5] = p[200:, 5:] = 0.9
    return gen.answers(DawidSkeneModel(np.full(3, 1 / 3), confusion), p, seed + 1)


def test_split_by_component_partitions_items_and_annotators_keeping_every_answer():
    from simverify.solvers.crowd.methods import split_by_component
    a = _two_groups()
    parts = split_by_component(a)
    assert len(parts) == 2
    items = np.concatenate([i for i, _ in parts])
    assert np.array_equal(np.sort(items), np.arange(a.n_items))
    assert sorted(np.concatenate([p.worker_ids for _, p in parts]).tolist()) == a.worker_ids.tolist()
    assert sum(p.label.size for _, p in parts) == a.label.size
    for items, p in parts:  # the recoded answers name the same (item, annotator, label) triples
        original = set(zip(a.item_ids[a.item].tolist(), a.worker_ids[a.worker].tolist(), a.label.tolist()))
        assert set(zip(p.item_ids[p.item].tolist(), p.worker_ids[p.worker].tolist(), p.label.tolist())) <= original
        assert np.array_equal(p.gold, a.gold[items])


def test_robsymnmf_components_equals_robsymnmf_on_a_connected_set():
    from simverify.datasets.crowd import shipped
    from simverify.solvers.crowd import aggregate
    a = shipped("bluebird")
    assert np.array_equal(aggregate(a, "robsymnmf").posteriors, aggregate(a, "robsymnmf-components").posteriors)


def test_robsymnmf_components_labels_both_groups_of_a_disconnected_crowd():
    from simverify import metrics
    from simverify.solvers.crowd import aggregate
    a = _two_groups()
    error = metrics.label_error(aggregate(a, "robsymnmf-components").posteriors, a.gold)
    vote = metrics.label_error(aggregate(a, "mv").posteriors, a.gold)
    assert error < 0.1 and error <= vote + 0.02


def test_robsymnmf_components_gives_a_lone_annotators_items_their_vote():
    """An annotator who shares no item with anyone forms a component of one: its items get its label (majority
    vote), not uniform posteriors."""
    from dataclasses import replace

    from simverify.solvers.crowd import aggregate
    a = _two_groups()
    lone_item, lone_worker = a.n_items, a.n_workers  # one more item, answered by one more annotator only
    b = replace(a, item=np.append(a.item, lone_item), worker=np.append(a.worker, lone_worker),
                label=np.append(a.label, 2), item_ids=np.append(a.item_ids, a.item_ids.max() + 1),
                worker_ids=np.append(a.worker_ids, a.worker_ids.max() + 1), gold=np.append(a.gold, 2))
    posteriors = aggregate(b, "robsymnmf-components").posteriors
    assert np.array_equal(posteriors[lone_item], [0.0, 0.0, 1.0])


def test_part_members_refuse_sizes_that_cannot_cover_every_annotator():
    with pytest.raises(ValueError, match="cannot cover M=10"):
        gen.part_members(10, (3, 3, 3), np.random.default_rng(0))


def test_observed_labels_refuse_labels_outside_the_classes():
    with pytest.raises(ValueError, match=r"class codes in \[0, 3\)"):
        gen.observed_labels(np.full((4, 2), 3), np.zeros(4, dtype=np.int64), np.ones((4, 2)), 3, 0)


def test_a_one_model_method_on_annotator_groups_warns_with_the_groups_warning_class():
    from simverify.solvers.crowd import aggregate
    from simverify.solvers.crowd.codes import AnnotatorGroupsWarning
    a = _two_groups()
    with pytest.warns(AnnotatorGroupsWarning, match="never share an item"):
        aggregate(a, "robsymnmf")
    assert issubclass(AnnotatorGroupsWarning, RuntimeWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the per-group method learns one model per group: nothing to say
        aggregate(a, "robsymnmf-components")
