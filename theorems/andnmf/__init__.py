"""Li, Liang (2017), "Provable Alternating Gradient Descent for Non-negative Matrix Factorization with Strong
Correlations" (paper key ``andnmf``).

Measures (``measures``) compose generators, solvers and metrics; ``sweeps`` declares the simulations; the claims,
by section: ``conditions`` (Proposition 1's GCC parameters), ``decoding`` (Lemmas 2, 6 and 8),
``recovery`` (Section 5.1, Theorems 1 and 5, Lemma 10),
``experiments`` (Figures 1-4, Theorem 4), ``faces`` (Figure 5), ``topics`` (Table 1's protocol).
"""
from __future__ import annotations

from simverify.claims import Citation
from simverify.footprint import Footprint, size, stream_bytes
from simverify.generators import nmf as gen
from simverify.paper import Paper
from simverify.parameters import Checkpoints, FilePath, Labeled, ListOf, OneOrList
from simverify.validation import Boolean, Integer, Options, Real

from . import measures as ms

_REALS = {"s": (1e-9, 1e9), "scale": (0.0, 1e3), "q": (1e-3, 1e6), "alpha": (0.0, 1e6), "alpha0": (0.0, 1e6),
          "rate": (1.0, 1e6), "r_l": (0.0, 1e3), "r_n": (0.0, 1e3), "ell": (0.0, 0.999), "spread": (0.0, 1.0)}
PARAMETERS = {
    **{name: Integer(1) for name in ("W", "D", "N", "T", "chunk", "n_topics", "n_top", "n_components", "n_stages")},
    "warm_stages": Integer(0),
    **{name: OneOrList(Real(lo, hi)) if name == "s" else Real(lo, hi)  # s as a list: a paired design
       for name, (lo, hi) in _REALS.items()},
    "gamma": Labeled(OneOrList(Real(0.0, 1e6)), "noise level"),
    "kind": Options(*gen.KINDS), "matrix": Options("topic", "neg"), "schedule_name": Options(*ms.SCHEDULES),
    "stage": Checkpoints(first=0), "iteration": Checkpoints(first=0),
    "decomposition": ListOf(Options(*ms.FACE_METHODS)), "topic_model": ListOf(Options(*ms.TOPIC_MODELS)),
    "solver": ListOf(Options(*ms.SOLVERS)),
    "corpus": FilePath(), "faces": FilePath(), "topic_file": FilePath(),  # hashed through Sweep.data
    "batch": Boolean(),
}


def _values(p: dict, name: str) -> list:
    v = p[name]
    return v if isinstance(v, list) else [v]


def validate(p: dict) -> None:
    """The rules across parameters (each one is declared in PARAMETERS and checked first) and the data files' shapes
    (a malformed file is refused at plan, naming the file and line)."""
    if "D" in p:
        limit = min(v for k in ("W", "N") if k in p for v in _values(p, k)) if ("W" in p or "N" in p) else None
        if limit is not None and p["D"] > limit:
            raise ValueError(f"rank D={p['D']} exceeds min(W, N) = {limit}")
    if p.get("kind") == "binary" and "s" in p:
        for v in _values(p, "s"):
            if not float(v).is_integer() or ("D" in p and v > p["D"]):
                raise ValueError(f"binary weights need an integer sparsity s <= D, got s={v!r}")
    if p.get("kind") == "decay" and "s" in p and "D" in p and any(v > p["D"] for v in _values(p, "s")):
        raise ValueError(f"decay weights are non-zero with probability s/D, so s <= D, got s={p['s']!r}, D={p['D']}")
    if "ell" in p and any(v > 0.25 for v in _values(p, "alpha")):
        raise ValueError(f"Lemmas 6 and 8 assume a threshold alpha <= 1/4, got alpha={p['alpha']!r}")
    _check_corpus(p)
    if "decomposition" in p:
        from simverify.datasets import olivetti
        faces = olivetti.load_faces(p.get("faces") or None)  # a malformed file is refused at plan, naming the file
        if p.get("n_components", 6) > min(faces.shape):
            raise ValueError(f"n_components={p.get('n_components', 6)} exceeds min(faces, pixels) = {min(faces.shape)}")
    negative_file = _check_topic_file(p) if p.get("topic_file") else False
    _check_non_negative_data(p, negative_file)


def _check_corpus(p: dict) -> None:
    """Table 1's corpus: a malformed corpus file is refused at plan, naming the file and line; n_topics fits it."""
    if "topic_model" not in p:
        return
    counts, _, _ = ms.corpus_matrices(p.get("corpus", ""))
    if p.get("n_topics", 10) > min(counts.shape):
        raise ValueError(f"n_topics={p.get('n_topics', 10)} exceeds min(documents, words) = {min(counts.shape)}")


NON_NEGATIVE_SOLVERS = ("mu", "sklearn_cd", "sklearn_mu", "lda")  # their updates need data Y >= 0


def _check_topic_file(p: dict) -> bool:
    """A user-supplied A* must load (malformed files are named with the line) and match W and D; returns whether it
    has negative entries."""
    A = gen.load_topic_matrix(p["topic_file"])
    if "W" in p and "D" in p and A.shape != (p["W"], p["D"]):
        raise ValueError(f"{p['topic_file']}: A* is {A.shape[0]} x {A.shape[1]}; set W={A.shape[0]} and D={A.shape[1]}")
    return bool((A < 0).any())


def _check_non_negative_data(p: dict, negative_file: bool) -> None:
    """Solvers that need Y >= 0 are refused on an A* with negative entries (NEG or a user file)."""
    needing = [s for s in p.get("solver", []) if s in NON_NEGATIVE_SOLVERS]
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
                        "Factorization with Strong Correlations", CITATION, parameters=PARAMETERS, validate=validate,
              footprint=footprint, not_checked={"Table 1 on 20newsgroups itself": TABLE1_NOT_REPRODUCED})

# Importing the claim modules registers the claims (they use PAPER), in the paper's order.
# isort: off
from . import conditions, decoding, recovery, experiments, faces, topics  # noqa: E402, F401
# isort: on
