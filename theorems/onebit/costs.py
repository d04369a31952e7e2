"""The work of each onebit measure (``Sweep.work``), which the plan scales a timed cell by. Counted in operations of
a dense factorization: a streamed instance's coordinate (a normal drawn and two multiply-adds) costs STREAMED of
them, an SVD or eigendecomposition of an n-square matrix n^3. The weights were fitted to the full tier's timings
(docs/performance.md): about 2.5 ns a streamed coordinate against 0.09 ns per n^3 of Algorithm 1's factorizations."""
from __future__ import annotations

from simverify.footprint import size, total, values

STREAMED = 25.0


def dilation(d1: int, d2: int) -> float:
    """One SVD or eigendecomposition of the (d1 + d2)-square Hermitian dilation."""
    return float(d1 + d2) ** 3


def algorithm1_factorizations(T: int) -> int:
    """Dilation factorizations of one Algorithm 1 run with the quantities of Lemmas 4-8: its start and two spectral
    norms per iteration, about 2 T + 5 (counted by a review)."""
    return 2 * T + 5


def lemma1_work(p: dict) -> float:
    """measure_lemma1: A'(y) over m instances, and the dilation's spectrum once."""
    d1, d2 = size(p, "d1"), size(p, "d2")
    return STREAMED * total(p, "m") * d1 + dilation(d1, d2)


def lemma2_work(p: dict) -> float:
    """measure_lemma2: n Gaussian samples of dimension d1."""
    return STREAMED * size(p, "n") * size(p, "d1")


def theorem2_work(p: dict) -> float:
    """measure_theorem2 and its fixed-distance variant: A' sign A at two matrices, one pass over m instances."""
    d1, d2 = size(p, "d1"), size(p, "d2")
    return 2.0 * STREAMED * total(p, "m") * d1 + float(d1) * d2 * min(d1, d2)


def algorithm1_work(p: dict) -> float:
    """measure_algorithm1, once per m of a paired list: T + 1 passes over m instances, and per iteration the
    quantities of Lemmas 4-8 (two spectral norms of dilations each, about 2T + 5 factorizations in all)."""
    d1, d2, T = size(p, "d1"), size(p, "d2"), size(p, "T", 1)
    ms = values(p, "m")
    passes = T + 1 + (T if p.get("column_by_column") else 0)
    return sum(STREAMED * m * passes * d1 for m in ms) + len(ms) * algorithm1_factorizations(T) * dilation(d1, d2)


def figure1_work(p: dict) -> float:
    """measure_figure1: T + 1 passes over m instances (Algorithm 1, and LEML's batches), the n_test labelled
    instances and one dilation (the simple form fitted best: 0.88 of the full tier's time, against 0.71 with
    LEML's rank-k fits priced one by one)."""
    d1, d2 = size(p, "d1"), size(p, "d2")
    return (STREAMED * size(p, "m") * (size(p, "T", 1) + 1) * d1 + float(size(p, "n_test")) * d1 * d2
            + dilation(d1, d2))


def rip_work(p: dict) -> float:
    """measure_rip: m instances, each one label's d1-square outer product, then 2 d2 symmetric eigenvalue problems
    of size d1 and the probes."""
    d1, d2, m = size(p, "d1"), size(p, "d2"), total(p, "m")
    probes = 2.0 * size(p, "n_probe", 20) * d2 * d1 * d1
    return STREAMED * m * d1 + 2.0 * m * d1 * d1 + 2.0 * d2 * float(d1) ** 3 + probes


def table2_work(p: dict) -> float:
    """measure_table2: the n + n_test labelled instances' d1 x d2 scores, which every solver's epochs and iterations
    pass over, and one dilation (fitted: 0.81 of the full tier's time; pricing each solver's epochs and iterations
    gave 1.93)."""
    d1, d2 = size(p, "d1"), size(p, "d2")
    return float(size(p, "n") + size(p, "n_test")) * d1 * d2 + dilation(d1, d2)
