"""Li, Liang (2017), "Provable Alternating Gradient Descent for Non-negative Matrix Factorization with Strong
Correlations" (paper key ``andnmf``).

Measures (``measures``) compose generators, solvers and metrics; ``sweeps`` declares the simulations; the claims,
by section: ``conditions`` (Proposition 1's GCC parameters), ``decoding`` (Lemmas 2, 6 and 8),
``recovery`` (Section 5.1, Theorems 1 and 5, Lemma 10),
``experiments`` (Figures 1-4, Theorem 4), ``faces`` (Figure 5), ``topics`` (Table 1's protocol).
"""
from __future__ import annotations

from simverify.claims import Citation, Paper
from simverify.footprint import Footprint, size, stream_bytes
from simverify.generators import nmf as gen
from simverify.validation import check_int_parameter, check_real_parameter

from . import measures as ms

_POSITIVE_INTEGERS = ("W", "D", "N", "T", "chunk", "n_topics", "n_top", "n_components", "n_stages")
_NON_NEGATIVE_INTEGERS = ("warm_stages",)
_CHOICES = {"kind": tuple(gen.KINDS), "matrix": ("topic", "neg"), "schedule_name": ms.SCHEDULES}
_REALS = {"s": (1e-9, 1e9), "scale": (0.0, 1e3), "q": (1e-3, 1e6), "alpha": (0.0, 1e6), "alpha0": (0.0, 1e6),
          "rate": (1.0, 1e6), "r_l": (0.0, 1e3), "r_n": (0.0, 1e3), "ell": (0.0, 0.999), "spread": (0.0, 1.0)}


def _values(p: dict, name: str) -> list:
    v = p[name]
    return v if isinstance(v, list) else [v]


def _check_checkpoints(name: str, t) -> None:
    if not (isinstance(t, list) and t and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in t)
            and t[0] == 0 and all(b > a for a, b in zip(t, t[1:]))):
        raise ValueError(f"parameter {name} must be increasing checkpoints from 0 ([0, 1, ..., S]), got {t!r}")


def validate(p: dict) -> None:
    """Reject parameters outside the paper's model (raises ValueError naming the parameter)."""
    for name in _POSITIVE_INTEGERS:
        if name in p:
            check_int_parameter(name, p[name])
    for name in _NON_NEGATIVE_INTEGERS:
        for v in (_values(p, name) if name in p else []):
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise ValueError(f"parameter {name} must be a non-negative integer, got {p[name]!r}")
    if "D" in p:
        limit = min(v for k in ("W", "N") if k in p for v in _values(p, k)) if ("W" in p or "N" in p) else None
        if limit is not None and p["D"] > limit:
            raise ValueError(f"rank D={p['D']} exceeds min(W, N) = {limit}")
    for name, (lo, hi) in _REALS.items():
        for v in (_values(p, name) if name in p else []):
            check_real_parameter(name, v, lo, hi)
    for v in (_values(p, "gamma") if "gamma" in p else []):
        check_real_parameter("gamma (noise level)", v, 0.0, 1e6)
    for name, allowed in _CHOICES.items():
        if name in p and p[name] not in allowed:
            raise ValueError(f"parameter {name} must be one of {list(allowed)}, got {p[name]!r}")
    if p.get("kind") == "binary" and "s" in p:
        for v in _values(p, "s"):
            if not float(v).is_integer() or ("D" in p and v > p["D"]):
                raise ValueError(f"binary weights need an integer sparsity s <= D, got s={v!r}")
    if p.get("kind") == "decay" and "s" in p and "D" in p and any(v > p["D"] for v in _values(p, "s")):
        raise ValueError(f"decay weights are non-zero with probability s/D, so s <= D, got s={p['s']!r}, D={p['D']}")
    if "ell" in p and any(v > 0.25 for v in _values(p, "alpha")):
        raise ValueError(f"Lemmas 6 and 8 assume a threshold alpha <= 1/4, got alpha={p['alpha']!r}")
    for name in ("stage", "iteration"):
        if name in p:
            _check_checkpoints(name, p[name])
    if "decomposition" in p and (not isinstance(p["decomposition"], list) or not p["decomposition"]
                                 or any(m not in ms.FACE_METHODS for m in p["decomposition"])):
        raise ValueError(f"parameter decomposition must be a list of {list(ms.FACE_METHODS)}, "
                         f"got {p['decomposition']!r}")
    _check_corpus(p)
    if "decomposition" in p:
        from simverify.datasets import olivetti
        faces = olivetti.load_faces(p.get("faces") or None)  # a malformed file is refused at plan, naming the file
        if p.get("n_components", 6) > min(faces.shape):
            raise ValueError(f"n_components={p.get('n_components', 6)} exceeds min(faces, pixels) = {min(faces.shape)}")
    if "solver" in p:
        bad = [s for s in p["solver"] if s not in ms.SOLVERS] if isinstance(p["solver"], list) else [p["solver"]]
        if bad:
            raise ValueError(f"parameter solver must be a list of {list(ms.SOLVERS)}, got {p['solver']!r}")
    negative_file = _check_topic_file(p) if p.get("topic_file") else False
    _check_non_negative_data(p, negative_file)
    if "batch" in p and not isinstance(p["batch"], bool):
        raise ValueError(f"parameter batch must be true or false, got {p['batch']!r}")


def _check_corpus(p: dict) -> None:
    """Table 1's models and corpus: a malformed corpus file is refused at plan, naming the file and line."""
    if "topic_model" in p and (not isinstance(p["topic_model"], list) or not p["topic_model"]
                               or any(m not in ms.TOPIC_MODELS for m in p["topic_model"])):
        raise ValueError(f"parameter topic_model must be a list of {list(ms.TOPIC_MODELS)}, got {p['topic_model']!r}")
    if "topic_model" not in p:
        return
    if not isinstance(p.get("corpus", ""), str):
        raise ValueError(f"parameter corpus must be a file path, got {p['corpus']!r}")
    counts, _, _ = ms.corpus_matrices(p.get("corpus", ""))
    if p.get("n_topics", 10) > min(counts.shape):
        raise ValueError(f"n_topics={p.get('n_topics', 10)} exceeds min(documents, words) = {min(counts.shape)}")


NON_NEGATIVE_SOLVERS = ("mu", "sklearn_cd", "sklearn_mu", "lda")  # their updates need data Y >= 0


def _check_topic_file(p: dict) -> bool:
    """A user-supplied A* must load (malformed files are named with the line) and match W and D; returns whether it
    has negative entries."""
    if not isinstance(p["topic_file"], str):
        raise ValueError(f"parameter topic_file must be a file path, got {p['topic_file']!r}")
    A = gen.load_topic_matrix(p["topic_file"])
    if "W" in p and "D" in p and A.shape != (p["W"], p["D"]):
        raise ValueError(f"{p['topic_file']}: A* is {A.shape[0]} x {A.shape[1]}; set W={A.shape[0]} and D={A.shape[1]}")
    return bool((A < 0).any())


def _check_non_negative_data(p: dict, negative_file: bool) -> None:
    """Solvers that need Y >= 0 are refused on an A* with negative entries (NEG or a user file)."""
    solvers = p.get("solver") if isinstance(p.get("solver"), list) else []
    needing = [s for s in solvers if s in NON_NEGATIVE_SOLVERS]
    if needing and (negative_file or (p.get("matrix") == "neg" and not p.get("topic_file"))):
        raise ValueError(f"solver {needing[0]} needs non-negative data, but A* has negative entries "
                         f"({'the topic file' if negative_file else 'matrix=neg'})")


def footprint(p: dict) -> Footprint:
    """One cell's dominant arrays (the samples X (D, N) and Y (W, N), a chunk of N at a time where chunk is set; A
    (W, D) and its iterates) and work (A X per stage)."""
    W, D, N = size(p, "W"), size(p, "D"), size(p, "N")
    held = min(N, size(p, "chunk", N) or N)
    stages = size(p, "n_stages", 1) + size(p, "T") + size(p, "warm_stages") + 1
    return Footprint(8.0 * (held * (D + W) + 4 * W * D) + stream_bytes(N, 512), float(N) * W * D * stages)


TABLE1_NOT_REPRODUCED = (
    "the 20newsgroups corpus cannot be downloaded here (scikit-learn's fetch_20newsgroups downloads it at first "
    "use), so Table 1's own topics are not reproduced; its protocol (ten topics, AND from ten random documents "
    "against scikit-learn's NMF and online LDA) runs on the Lee news corpus that ships inside the gensim package "
    "(claim table1.topics), or on a user's corpus with --set corpus=PATH")
CITATION = Citation("Yuanzhi Li and Yingyu Liang", "Provable Alternating Gradient Descent for Non-negative Matrix "
                    "Factorization with Strong Correlations",
                    "Proceedings of the 34th International Conference on Machine Learning (ICML), PMLR 70", 2017,
                    arxiv="1706.04097")
PAPER = Paper("andnmf", "Li, Liang (2017), Provable Alternating Gradient Descent for Non-negative Matrix "
                        "Factorization with Strong Correlations", CITATION, validate=validate, footprint=footprint,
              not_checked={"Table 1 on 20newsgroups itself": TABLE1_NOT_REPRODUCED})

# Importing the claim modules registers the claims (they use PAPER), in the paper's order.
# isort: off
from . import conditions, decoding, recovery, experiments, faces, topics  # noqa: E402, F401
# isort: on
