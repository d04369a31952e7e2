"""Dawid-Skene EM against crowd-kit's published fixtures (iterations 0 and 1, atol 0.005, as crowd-kit's test)."""
import csv

import numpy as np
import pytest

from simverify.solvers.crowd import dawid_skene
from tests.support import TEST_DATA

FIXTURES = TEST_DATA / "crowdkit"
ATOL = 0.005


def rows(name):
    with open(FIXTURES / name, newline="") as f:
        return list(csv.DictReader(f))


def answers():
    data = rows("test_ds__data.csv")
    tasks, workers, labels = (sorted({r[k] for r in data}) for k in ("task", "worker", "label"))
    code = lambda values, v: values.index(v)  # noqa: E731
    item = np.array([code(tasks, r["task"]) for r in data])
    worker = np.array([code(workers, r["worker"]) for r in data])
    label = np.array([code(labels, r["label"]) for r in data])
    return item, worker, label, tasks, workers, labels


@pytest.mark.parametrize("n_iter", [0, 1])
def test_dawid_skene_reproduces_crowdkit_probas_priors_errors_and_labels(n_iter):
    item, worker, label, tasks, workers, labels = answers()
    probas, priors, errors = dawid_skene(item, worker, label, len(tasks), len(workers), len(labels), n_iter=n_iter)
    for r in rows(f"test_ds__probas_iter_{n_iter}.csv"):
        assert np.allclose(probas[tasks.index(r["task"])], [float(r[c]) for c in labels], atol=ATOL)
    for r in rows(f"test_ds__priors_iter_{n_iter}.csv"):
        assert abs(priors[labels.index(r["label"])] - float(r["prior"])) <= ATOL
    checked = 0
    for r in rows(f"test_ds__errors_iter_{n_iter}.csv"):
        w, observed = workers.index(r["worker"]), labels.index(r["label"])
        assert np.allclose(errors[w, observed], [float(r[c]) for c in labels], atol=ATOL)
        checked += 1
    assert checked == len(workers) * len(labels)
    for r in rows(f"test_ds__tasks_labels_iter_{n_iter}.csv"):
        p = probas[tasks.index(r["task"])]
        assert r["agg_label"] in [labels[k] for k in np.flatnonzero(p >= p.max() - 1e-12)]  # ties: any top label


@pytest.mark.slow
def test_estimators_pass_their_em_budget_and_tolerance_to_em():
    """DawidSkene(n_iter, tol), RobSymNMF(em=True, n_iter, tol) and DesSymNMF(em=True, ...) run EM with them: one
    iteration gives the one-iteration posteriors, not the converged ones."""
    from simverify.datasets.crowd import shipped, to_frame
    from simverify.solvers.crowd.estimators import DawidSkene, DesSymNMF, RobSymNMF
    from simverify.solvers.crowd.methods import em_from_cooccurrence_model, em_from_vote_fractions
    a = shipped("rte")
    frame = to_frame(a)
    cases = [(DawidSkene, {}, lambda n: em_from_vote_fractions(a, n_iter=n, tol=0.0)),
             (RobSymNMF, {"em": True}, lambda n: em_from_cooccurrence_model(a, "robsymnmf", n_iter=n, tol=0.0)),
             (DesSymNMF, {"em": True}, lambda n: em_from_cooccurrence_model(a, "dessymnmf", n_iter=n, tol=0.0))]
    for estimator, args, reference in cases:
        one = estimator(**args, n_iter=1, tol=0.0).fit(frame).probas_.to_numpy()
        assert np.allclose(one, reference(1).posteriors, atol=1e-12), estimator.__name__
        assert not np.allclose(one, reference(50).posteriors, atol=1e-3), estimator.__name__
