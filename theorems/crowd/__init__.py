"""Ibrahim, Fu (2021), "Crowdsourcing via Annotator Co-occurrence Imputation and Provable Symmetric Nonnegative
Matrix Factorization" (paper key ``crowd``).

Measures (``measures``) compose generators, solvers and metrics; ``sweeps`` declares the simulations; the claims,
by section: ``identifiability`` (Proposition 1), ``imputation`` (Theorems 1 and 2, Table 6), ``convergence``
(Theorem 3, Figures 2-3), ``tables`` (Table 7 and Tables 4-5 on the shipped real data), ``uci`` (Tables 1-3:
classifiers as annotators, on data sets bundled with scikit-learn; its own measure and sweeps).
"""
from __future__ import annotations

from simverify.claims import Citation
from simverify.datasets.bundled import SETS, n_classes
from simverify.footprint import Footprint, size, stream_bytes
from simverify.paper import Paper
from simverify.parameters import Checkpoints, FilePath, Labeled, ListOf, OneOrList
from simverify.solvers.crowd import METHODS
from simverify.solvers.crowd.methods import BINARY_ONLY
from simverify.solvers.crowd.pipeline import ALIGNMENTS
from simverify.validation import Integer, Options, Real

from . import measures as ms
from .uci_measures import SETTINGS

_REALS = {"epsilon": (0.0, 1.0), "phi": (1e-6, 1.0), "psi": (0.0, 0.999999), "p": (1e-6, 1.0),
          "fraction_missing": (0.0, 0.99), "noise_var": (0.0, 1e6), "gamma": (1.0, 1e6), "q0": (0.0, 2.0),
          "per_item": (0.1, 1e4), "zipf": (0.0, 10.0)}
_PAIRED = ("N", "S", "fraction_missing", "gamma", "noise_var")  # one value, or a list: a paired design's axis
PARAMETERS = {
    **{name: OneOrList(Integer(1)) if name in _PAIRED else Integer(1)
       for name in ("M", "N", "J", "n_iter", "S", "groups")},
    "K": Labeled(Integer(2), "classes"),
    **{name: OneOrList(Real(lo, hi)) if name in _PAIRED else Real(lo, hi) for name, (lo, hi) in _REALS.items()},
    "snr_db": [None, Real(-100.0, 300.0)],  # None: noiseless (Figure 2)
    "aggregator": ListOf(Options(*METHODS)), "schedule": ListOf(Options(*ms.SCHEDULES)),
    "model_law": Options(*ms.MODEL_LAWS), "alignment": Options(*ALIGNMENTS),
    "annotators": [None, Integer(2)],  # real data: keep the most active annotators (None: all)
    "n_specialists": Integer(0), "n_corrupt": Integer(0),
    "iteration": Checkpoints(),
    "answers": FilePath(optional=False, what=f"a shipped set {list(ms.data.SHIPPED)} or a file path"),
    "data": Options(*SETS), "setting": ListOf(Options(*SETTINGS)),  # Tables 1-3: a bundled set, table columns
}


def validate(p: dict) -> None:
    """The rules across parameters (each one is declared in PARAMETERS and checked first) and the answers file's
    content (a malformed file is refused at plan, naming the file and line)."""
    starts = ms.RESTART_START if "answers" in p else ms.STARTS  # the restart protocol has starts of its own
    if "start" in p and p["start"] not in starts:
        raise ValueError(f"parameter start must be one of {list(starts)}, got {p['start']!r}")
    if "n_specialists" in p and "M" in p and p["n_specialists"] > p["M"]:
        raise ValueError(f"n_specialists={p['n_specialists']} exceeds the number of annotators M={p['M']}")
    if "K" in p and "J" in p and p["K"] > p["J"]:  # H (J, K) of rank K: Figures 2-3's SymNMF
        raise ValueError(f"rank K={p['K']} exceeds the size J={p['J']} of the J x J matrix")
    if "answers" in p:
        _check_answers(p)
    if "per_item" in p:  # the sparse problems: about per_item of the M annotators answer each of the N items
        if "M" in p and p["per_item"] > p["M"]:
            raise ValueError(f"per_item={p['per_item']} exceeds the number of annotators M={p['M']}")
        if "N" in p and p["N"] < 50:
            raise ValueError(f"N={p['N']}: the sparse problems need at least 50 items (items nobody answers are "
                             "dropped)")
    binary = [m for m in p.get("aggregator", []) if m in BINARY_ONLY]  # Tables 1-3: the binary-only baselines
    if "data" in p and binary and n_classes(p["data"]) != 2:
        raise ValueError(f"aggregator {binary[0]} is for binary labels; {p['data']} has {n_classes(p['data'])} classes")


def _check_answers(p: dict) -> None:
    """A real-data claim's answers (a shipped set or a file, declared in PARAMETERS) must load (malformed files
    refused with file:line) and carry gold labels; the binary-only baselines need two classes."""
    a = ms.load_answers(p["answers"])
    if p.get("annotators") is not None and p["annotators"] > a.n_workers:
        raise ValueError(f"annotators={p['annotators']} exceeds the {a.n_workers} annotators of {p['answers']}")
    if not (a.gold >= 0).any():
        raise ValueError(f"{p['answers']}: no gold labels, so no error rate can be measured")
    if "aggregator" in p:
        binary = [m for m in p["aggregator"] if m in BINARY_ONLY]
        if binary and a.n_classes != 2:
            raise ValueError(f"aggregator {binary[0]} is for binary labels; {p['answers']} has {a.n_classes} classes")


NOT_REPRODUCED = {
    "Tables 1-3 on the UCI sets themselves (Connect4, Credit, Car) with MATLAB's classifiers":
        "the UCI data sets cannot be downloaded here; the protocol runs on scikit-learn's bundled data sets with ten "
        "scikit-learn classifiers (claims table1.*, table2.*, table3.*), so the printed numbers are shown beside "
        "ours but are not comparable",
    "Table 9's CrowdLayer and DL-MV rows (LabelMe)":
        "deep-learning baselines trained on the LabelMe images, which are not available here (the answers are: "
        "claims table9.labelme.*)",
    "Baselines PG-TAC, CRIAV (rows of Tables 4-5)": "what they specify could not be read: of PG-TAC's paper only "
        "its abstract and opening paragraph, of CRIAV's only a journal version's abstract, and the authors' "
        "repository has no code for either (what is missing: docs/findings/crowd.md; TensorADMM: claims "
        "table4.*.tensor-admm)",
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
                       "Symmetric Nonnegative Matrix Factorization", CITATION, parameters=PARAMETERS, validate=validate,
              footprint=footprint, not_checked=NOT_REPRODUCED)

# Importing the claim modules registers the claims (they use PAPER), in the paper's order.
# isort: off
from . import identifiability, imputation, convergence, uci, tables, recommendation  # noqa: E402, F401
# isort: on
