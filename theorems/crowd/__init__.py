"""Ibrahim, Fu (2021), "Crowdsourcing via Annotator Co-occurrence Imputation and Provable Symmetric Nonnegative
Matrix Factorization" (paper key ``crowd``).

Measures (``measures``) compose generators, solvers and metrics; ``sweeps`` declares the simulations; the claims,
by section: ``identifiability`` (Proposition 1), ``imputation`` (Theorems 1 and 2, Table 6), ``convergence``
(Theorem 3, Figures 2-3), ``tables`` (Table 7 and Tables 4-5 on the shipped real data), ``uci`` (Tables 1-3:
classifiers as annotators, on data sets bundled with scikit-learn; its own measure and sweeps).
"""
from __future__ import annotations

from simverify.claims import Citation, Paper
from simverify.footprint import Footprint, size, stream_bytes
from simverify.solvers.crowd import METHODS
from simverify.solvers.crowd.methods import BINARY_ONLY
from simverify.validation import check_int_parameter, check_real_parameter

from . import measures as ms

_POSITIVE_INTEGERS = ("M", "K", "N", "J", "n_iter", "S", "groups")
_REALS = {"epsilon": (0.0, 1.0), "phi": (1e-6, 1.0), "psi": (0.0, 0.999999), "p": (1e-6, 1.0),
          "fraction_missing": (0.0, 0.99), "noise_var": (0.0, 1e6), "gamma": (1.0, 1e6), "q0": (0.0, 2.0)}
_LISTS = {"aggregator": tuple(METHODS), "schedule": ms.SCHEDULES}


def _values(p: dict, name: str) -> list:
    v = p[name]
    return v if isinstance(v, list) else [v]


def validate(p: dict) -> None:
    """Reject parameters outside the paper's model (raises ValueError naming the parameter)."""
    for name in _POSITIVE_INTEGERS:
        if name in p:
            check_int_parameter(name, p[name])
    if "K" in p and p["K"] < 2:
        raise ValueError(f"parameter K must be at least 2 classes, got {p['K']!r}")
    for name, (lo, hi) in _REALS.items():
        for v in (_values(p, name) if name in p else []):
            check_real_parameter(name, v, lo, hi)
    if p.get("snr_db") is not None:  # None: noiseless (Figure 2)
        check_real_parameter("snr_db", p["snr_db"], -100.0, 300.0)
    for name, allowed in _LISTS.items():
        if name in p and (not isinstance(p[name], list) or not p[name]):
            raise ValueError(f"parameter {name} must be a non-empty list, got {p[name]!r}")
        unknown = [v for v in p.get(name, []) if v not in allowed]
        if unknown:
            raise ValueError(f"parameter {name}: unknown {unknown[0]!r} (one of {', '.join(map(str, allowed))})")
    starts = ms.RESTART_START if "answers" in p else ms.STARTS
    if "start" in p and p["start"] not in starts:
        raise ValueError(f"parameter start must be one of {list(starts)}, got {p['start']!r}")
    if "model_law" in p and p["model_law"] not in ms.MODEL_LAWS:
        raise ValueError(f"parameter model_law must be one of {list(ms.MODEL_LAWS)}, got {p['model_law']!r}")
    for name in ("n_specialists", "n_corrupt"):
        if name in p and (not isinstance(p[name], int) or isinstance(p[name], bool) or p[name] < 0):
            raise ValueError(f"parameter {name} must be a non-negative integer, got {p[name]!r}")
    if "n_specialists" in p and "M" in p and p["n_specialists"] > p["M"]:
        raise ValueError(f"n_specialists={p['n_specialists']} exceeds the number of annotators M={p['M']}")
    if "iteration" in p:
        t = p["iteration"]
        if not (isinstance(t, list) and t and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in t)
                and all(b > a for a, b in zip(t, t[1:]))):
            raise ValueError(f"parameter iteration must be increasing non-negative checkpoints, got {t!r}")
    if "answers" in p:
        _check_answers(p)
    _check_machine_annotators(p)


def _check_machine_annotators(p: dict) -> None:
    """Tables 1-3's parameters: a bundled data set, table columns by name; the binary-only baselines need K = 2."""
    from simverify.datasets.bundled import SETS, n_classes

    from .uci import SETTINGS
    if "data" in p and p["data"] not in SETS:
        raise ValueError(f"parameter data must be one of {list(SETS)}, got {p['data']!r}")
    if "setting" in p and (not isinstance(p["setting"], list) or not p["setting"]
                           or any(v not in SETTINGS for v in p["setting"])):
        raise ValueError(f"parameter setting must be a list of {list(SETTINGS)}, got {p['setting']!r}")
    binary = [m for m in p.get("aggregator", []) if m in BINARY_ONLY]
    if "data" in p and binary and n_classes(p["data"]) != 2:
        raise ValueError(f"aggregator {binary[0]} is for binary labels; {p['data']} has {n_classes(p['data'])} classes")


def _check_answers(p: dict) -> None:
    """A real-data claim's answers: a shipped set or a readable file (malformed files refused with file:line); the
    binary-only baselines need two classes."""
    if not isinstance(p["answers"], str) or not p["answers"]:
        raise ValueError(f"parameter answers must be a shipped set {list(ms.data.SHIPPED)} or a file path, "
                         f"got {p['answers']!r}")
    a = ms.load_answers(p["answers"])
    if "aggregator" in p:
        binary = [m for m in p["aggregator"] if m in BINARY_ONLY]
        if binary and a.n_classes != 2:
            raise ValueError(f"aggregator {binary[0]} is for binary labels; {p['answers']} has {a.n_classes} classes")
        if not (a.gold >= 0).any():
            raise ValueError(f"{p['answers']}: no gold labels, so no error rate can be measured")


NOT_REPRODUCED = {
    "Tables 1-3 on the UCI sets themselves (Connect4, Credit, Car) with MATLAB's classifiers":
        "the UCI data sets cannot be downloaded here; the protocol runs on scikit-learn's bundled data sets with ten "
        "scikit-learn classifiers (claims table1.*, table2.*, table3.*), so the printed numbers are shown beside "
        "ours but are not comparable",
    "Table 4-5 columns Dog and TREC": "the Dog and TREC answer files are not available here",
    "Table 9 and Figure 4 on LabelMe (CrowdLayer, DL-MV)":
        "the LabelMe answers and images are not available here, and the deep-learning baselines need the images; "
        "the restart protocol runs on web (claim table9.restart_spread) or any answers file",
    "Baselines CNMF, TensorADMM, Spectral-D&S, MinimaxEntropy, PG-TAC, CRIAV": "not implemented yet",
}

def footprint(p: dict) -> Footprint:
    """One cell's dominant arrays (the (M K) x (M K) co-occurrences and their imputation; answers of N items by M
    annotators; J x J matrices of the SymNMF sweeps; S samples of K) and work (iterations of (M K)^2 K or J^2 K)."""
    M, K, N, J, S = size(p, "M"), size(p, "K", 1), size(p, "N"), size(p, "J"), size(p, "S")
    memory = 8.0 * (4 * (M * K) ** 2 + 3 * N * M + 3 * J * J + S * K) + stream_bytes(N, 4096)
    iterations = size(p, "n_iter", 1000)
    return Footprint(memory, float(iterations) * ((M * K) ** 2 + J * J) * K + float(N) * M * K + float(M * K) ** 3)


CITATION = Citation("Shahana Ibrahim and Xiao Fu", "Crowdsourcing via Annotator Co-occurrence Imputation and Provable "
                    "Symmetric Nonnegative Matrix Factorization",
                    "Proceedings of the 38th International Conference on Machine Learning (ICML), PMLR 139", 2021,
                    arxiv="2106.07193")
PAPER = Paper("crowd", "Ibrahim, Fu (2021), Crowdsourcing via Annotator Co-occurrence Imputation and Provable "
                       "Symmetric Nonnegative Matrix Factorization", CITATION, validate=validate, footprint=footprint,
              not_checked=NOT_REPRODUCED)

# Importing the claim modules registers the claims (they use PAPER), in the paper's order.
# isort: off
from . import identifiability, imputation, convergence, uci, tables  # noqa: E402, F401
# isort: on
