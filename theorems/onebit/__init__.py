"""Qiu, Luo, Ye, Lin (2017), "Nonconvex One-bit Single-label Multi-label Learning" (paper key
``onebit``).

Measures (``measures``; ``fixed_distance`` for Theorem 2 along k) compose generators, solvers and
metrics; ``sweeps`` declares the simulations; the claims, by section: ``lemmas`` (Lemmas 1-3 and 6),
``rip`` (Theorem 2, Definition 1), ``convergence`` (Theorem 1, Lemmas 4, 5, 7, 8, Section 3, Algorithm 1
as printed), ``experiments`` (Figure 1, Tables 1 and 2).
"""
from __future__ import annotations

from simverify.claims import Citation, Paper
from simverify.footprint import Footprint, size, stream_bytes
from simverify.validation import check_int_parameter, check_real_parameter

_POSITIVE_INTEGERS = ("d1", "d2", "k", "m", "T", "n", "n_test")


def validate(p: dict) -> None:
    """Reject parameters outside the paper's model (raises ValueError naming the parameter)."""
    for name in _POSITIVE_INTEGERS:
        if name in p:
            check_int_parameter(name, p[name])
    if "d2" in p and p["d2"] < 2:
        raise ValueError(f"d2 (number of labels) must be at least 2, got {p['d2']}")
    if "k" in p and "d1" in p and "d2" in p and p["k"] > min(p["d1"], p["d2"]):
        raise ValueError(f"rank k={p['k']} exceeds min(d1, d2)={min(p['d1'], p['d2'])}")
    if "flip_prob" in p:
        check_real_parameter("flip_prob (p)", p["flip_prob"], 0.0, 1.0)
    if "xi" in p:
        check_real_parameter("xi (noise level)", p["xi"], 0.0, 1e6)
    if "kappa" in p and p["kappa"] != 0:
        check_real_parameter("kappa (0: Section 5.1's Gaussian model)", p["kappa"], 1.0, 1e6)
    if "dist" in p:
        check_real_parameter("dist (||w - w'||, angle <= pi/2)", p["dist"], 1e-12, 2 ** 0.5)
    if "spectral_distance" in p:
        check_real_parameter("spectral_distance (||W - W'||_2)", p["spectral_distance"], 1e-12, 2.0)
    for name in ("step", "reg"):
        if name in p:
            check_real_parameter(name, p[name], 0.0, 1e6)
    if "column_by_column" in p and not isinstance(p["column_by_column"], bool):
        raise ValueError(f"parameter column_by_column must be true or false, got {p['column_by_column']!r}")
    for name, allowed in {"start": ("printed", "zero"), "form": ("dilation", "block")}.items():
        if name in p and p[name] not in allowed:
            raise ValueError(f"parameter {name} must be one of {list(allowed)}, got {p[name]!r}")



def footprint(p: dict) -> Footprint:
    """One cell's dominant arrays (W* and its iterates, d1 x d2; the all-labelled instances n and n_test, d1 + d2
    each; one chunk of the instance stream, which Algorithm 1 never holds whole) and work (x^T W per instance per
    pass, m instances for T + 1 passes)."""
    d1, d2, m, n, n_test = (size(p, k) for k in ("d1", "d2", "m", "n", "n_test"))
    passes = size(p, "T", 1) + 1 + size(p, "epochs") * size(p, "iters")
    memory = 8.0 * (4 * d1 * d2 + (n + n_test) * (d1 + d2) + min(m, 1 << 16) * (d1 + d2)) + stream_bytes(m, 1024)
    return Footprint(memory, float(m * passes + n + n_test) * d1 * max(d2, 1))


CITATION = Citation("Shuang Qiu, Tingjin Luo, Jieping Ye and Ming Lin", "Nonconvex One-bit Single-label Multi-label "
                    "Learning", "arXiv preprint", 2017, arxiv="1703.06104")
PAPER = Paper("onebit", "Qiu, Luo, Ye, Lin (2017), Nonconvex One-bit Single-label Multi-label Learning", CITATION,
              validate=validate, footprint=footprint)

# Importing the claim modules registers the claims (they use PAPER), in the paper's order.
# isort: off
from . import lemmas, rip, convergence, experiments  # noqa: E402, F401
# isort: on
