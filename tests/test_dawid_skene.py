"""Dawid-Skene EM against crowd-kit's published fixtures (iterations 0 and 1, atol 0.005, as crowd-kit's test)."""
import csv
from pathlib import Path

import numpy as np
import pytest

from simverify.solvers.crowd import dawid_skene

FIXTURES = Path(__file__).parent / "data" / "crowdkit"
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
