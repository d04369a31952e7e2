"""The measure of Tables 1-3 of Ibrahim & Fu (2021) (Section 4, 'UCI Data Experiments'; Appendix C.2): ten
classifiers trained on a fifth of a labelled data set are the annotators of the rest, on scikit-learn's bundled sets
(``simverify.datasets.bundled``) with scikit-learn classifiers (``simverify.generators.machine_annotators``).

The tables' columns are the ``setting`` dim: Tables 1-2 (``ANSWERING``): every annotator with p_m = 0.3, or p_m
drawn from (0.3, 0.5) or (0.5, 0.7) with two designated annotators at p_d = 0.8; Table 3 (``MISSING``): the
block-missing design with 70, 50 or 30 % of the co-occurrence blocks missing (the diagonal included). Code only:
the claims are in ``uci``, the sweeps in ``sweeps``."""
from __future__ import annotations

import numpy as np

from simverify import metrics
from simverify.datasets.bundled import bundled_set
from simverify.generators import crowd as gen
from simverify.generators.machine_annotators import classifier_labels
from simverify.solvers.crowd.methods import aggregate_many

from . import measures as ms

ANSWERING = {"p=0.3": {"p": 0.3}, "p~(0.3,0.5),pd=0.8": {"p": (0.3, 0.5), "designated": 2},
             "p~(0.5,0.7),pd=0.8": {"p": (0.5, 0.7), "designated": 2}}
MISSING = {"miss=70%": 0.7, "miss=50%": 0.5, "miss=30%": 0.3}
SETTINGS = (*ANSWERING, *MISSING)


def answering(setting: str, N: int, M: int, seed) -> np.ndarray:
    """p (N, M) of a table column: Tables 1-2's p_m and designated annotators, or Table 3's block-missing design
    (each part's annotators label all of its items: Appendix C.2 states no p_m there)."""
    if setting in ANSWERING:
        return gen.answering_probabilities(N, M, seed, **ANSWERING[setting])
    return gen.part_probabilities(N, M, gen.members_for_missing(M, MISSING[setting], seed))


def measure_machine_annotators(seed, *, data: str, setting: list, aggregator: list) -> dict:
    """One trial: a random split of the bundled set ``data`` (1/4 training to testing), the ten classifiers'
    labels of the test items, then per setting an answering design and the observed answers. error (setting,
    aggregator) in % on the answered test items; missing_before, missing_after (setting,) the % of the M^2 blocks
    missing before and after Remark 1's imputation (Eq. 7-8, as in Section 4)."""
    s_split, s_design, s_observe = seed.spawn(3)
    X, y = bundled_set(data)
    labels, truth = classifier_labels(X, y, s_split)
    N, M = labels.shape
    K = int(y.max()) + 1
    error = np.empty((len(setting), len(aggregator)))
    before, after = np.empty(len(setting)), np.empty(len(setting))
    for i, (name, s_p, s_a) in enumerate(zip(setting, s_design.spawn(len(setting)), s_observe.spawn(len(setting)))):
        s_obs, s_method = s_a.spawn(2)
        a = gen.observed_labels(labels, truth, answering(name, N, M, s_p), K, s_obs)
        method_seed = int(s_method.generate_state(1)[0])  # KOS's random start
        with ms.warnings_said():  # the block-missing designs can leave groups that share no item (Table 3)
            results = aggregate_many(a, aggregator, seed=method_seed)
        error[i] = [100 * metrics.label_error(results[method].posteriors, a.gold) for method in aggregator]
        before[i], after[i] = ms.missing_proportions(a)
    return {"error": error, "missing_before": before, "missing_after": after}
