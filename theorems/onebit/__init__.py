"""Qiu, Luo, Ye, Lin (2017), "Nonconvex One-bit Single-label Multi-label Learning" (paper key
``onebit``).

Measures (``measures``; ``fixed_distance`` for Theorem 2 along k) compose generators, solvers and
metrics; ``sweeps`` declares the simulations; the claims, by section: ``lemmas`` (Lemmas 1-3 and 6),
``rip`` (Theorem 2, Definition 1), ``convergence`` (Theorem 1, Lemmas 4, 5, 7, 8, Section 3, Algorithm 1
as printed), ``experiments`` (Figure 1, Tables 1 and 2).
"""
from __future__ import annotations

from simverify.claims import Citation
from simverify.footprint import Footprint, size, stream_bytes, total, values
from simverify.paper import Paper
from simverify.parameters import Exactly, Labeled, OneOrList
from simverify.validation import Boolean, Integer, Options, Real

from .costs import algorithm1_factorizations, dilation

PARAMETERS = {
    **{name: Integer(1) for name in ("d1", "k", "T", "n", "n_test")},
    "m": OneOrList(Integer(1)),  # a list: the sample sizes of one paired cell
    "d2": Labeled(Integer(2), "number of labels"),
    "flip_prob": Labeled(Real(0.0, 1.0), "p"),
    "xi": Labeled(Real(0.0, 1e6), "noise level"),
    "kappa": Labeled([Exactly(0), Real(1.0, 1e6)], "condition number; 0: Section 5.1's Gaussian model"),
    "dist": Labeled(Real(1e-12, 2 ** 0.5), "||w - w'||, angle <= pi/2"),
    "spectral_distance": Labeled(Real(1e-12, 2.0), "||W - W'||_2"),
    "step": Real(0.0, 1e6), "reg": Real(0.0, 1e6),
    "column_by_column": Boolean(),
    "start": Options("printed", "zero"), "form": Options("dilation", "block"),
}


def validate(p: dict) -> None:
    """The rule across parameters (each one is declared in PARAMETERS and checked first): rank k <= min(d1, d2)."""
    if "k" in p and "d1" in p and "d2" in p and p["k"] > min(p["d1"], p["d2"]):
        raise ValueError(f"rank k={p['k']} exceeds min(d1, d2)={min(p['d1'], p['d2'])}")


def footprint(p: dict) -> Footprint:
    """One cell's dominant arrays (W* and its iterates, d1 x d2; the all-labelled instances n and n_test, d1 + d2
    each; one chunk of the instance stream, which Algorithm 1 never holds whole; the (d1 + d2)-square dilation
    with its eigendecomposition's workspace, 5 (d1 + d2)^2 numbers) and an upper count of its operations, for the
    work ceiling: per streamed instance and pass at most d1 max(d1, d2) (a label's column, or its d1-square outer
    product in Definition 1's check), m summed over a paired list; the labelled instances' d1 d2 per epoch or
    iteration; the (d1 + d2)-square factorizations (2 T + 5 per m where Algorithm 1 runs) and Definition 1's 2 d2
    eigenvalue problems of size d1. The plan's time estimates use each sweep's work (``costs``)."""
    d1, d2, m, n, n_test, T = (size(p, k) for k in ("d1", "d2", "m", "n", "n_test", "T"))
    dilation_numbers = float(d1 + d2) ** 2 * (5 if d2 else 0)  # the dilation and its eigendecomposition's workspace
    memory = 8.0 * (4 * d1 * d2 + (n + n_test) * (d1 + d2) + min(m, 1 << 16) * (d1 + d2) + dilation_numbers) \
        + stream_bytes(m, 1024)
    streamed = float(total(p, "m")) * (max(T, 1) + 1) * d1 * max(d1, d2, 1)
    labelled = float(n + n_test) * d1 * max(d2, 1) * (1 + size(p, "epochs") + size(p, "iters"))
    runs = len(values(p, "m"))  # a paired cell runs Algorithm 1 once per m
    dense = (runs * algorithm1_factorizations(T) if T else 1) * dilation(d1, d2) + 2.0 * d2 * float(d1) ** 3
    return Footprint(memory, streamed + labelled + dense)


CITATION = Citation("Shuang Qiu, Tingjin Luo, Jieping Ye and Ming Lin", "Nonconvex One-bit Single-label Multi-label "
                    "Learning", "arXiv preprint", 2017, arxiv="1703.06104")
PAPER = Paper("onebit", "Qiu, Luo, Ye, Lin (2017), Nonconvex One-bit Single-label Multi-label Learning", CITATION,
              parameters=PARAMETERS, validate=validate, footprint=footprint)

# Importing the claim modules registers the claims (they use PAPER), in the paper's order.
# isort: off
from . import lemmas, rip, convergence, experiments  # noqa: E402, F401
# isort: on
