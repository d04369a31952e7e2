"""The declared work of one task of each andnmf sweep (``Sweep.work``): what `check --plan` scales a timed cell of the
sweep by to price cells never timed (the full tier from the quick tier's timings).

Units: floating-point operations at BLAS (dgemm) speed; an operation of a scalar Numba loop, of a random draw or of
scikit-learn's Cython weighs ``SCALAR`` of them. Dominant terms only, from the algorithms' operation counts, with
no constant fitted to timings; docs/performance.md ("Issue 31") reports how far the estimates fell from the measured
times.
"""
from __future__ import annotations

from simverify.footprint import size

SCALAR = 10.0  # one scalar operation in dgemm operations (about 20 against 2 Gflop/s per core on these hosts)
DRAW = 30.0 * SCALAR  # one Dirichlet, CTM or binary weight: a gamma or normal draw and its normalisation
T_DEFAULT = 50  # measure_and's T (gradient steps per stage)


def _problem(W: int, D: int, N: int) -> float:
    """A* X and the weights X (D, N)."""
    return 2.0 * W * D * N + DRAW * D * N


def _and_stage(W: int, D: int, N: int, T: int, batch: bool) -> float:
    """One AND stage (Algorithm 1): the decoding (A^+ Y, thresholded), Y Z^T and Z Z^T, then T gradient steps: on
    the D x D and W x D products in batch mode, or one sample's rank-one update each online."""
    steps = 2.0 * T * W * D * D if batch else SCALAR * 4.0 * T * W * D
    return 4.0 * D * W * N + 2.0 * D * D * N + steps


def and_work(p: dict) -> float:
    """measure_and: the problem, then max(stage) stages per noise level (``gamma`` a list: each from the start)."""
    W, D, N = size(p, "W"), size(p, "D"), size(p, "N")
    levels = len(p["gamma"]) if isinstance(p.get("gamma"), list) else 1
    T = size(p, "T", T_DEFAULT)
    return _problem(W, D, N) + levels * size(p, "stage") * _and_stage(W, D, N, T, bool(p.get("batch", True)))


def _sweep(W: int, D: int, N: int) -> float:
    """One MU or HALS sweep (and one of scikit-learn's cd or mu iterations): the products of both factors."""
    return 4.0 * D * W * N + 2.0 * D * D * (W + N)


def _cold_nnls(D: int, columns: int) -> float:
    """FNNLS from zero on ``columns`` right-hand sides: about D/2 passive-set steps, a k x k solve at step k."""
    return SCALAR * columns * (D / 2) ** 4 / 12


def _anls_sweep(W: int, D: int, N: int) -> float:
    """One ANLS sweep: the products, and block principal pivoting from the last support, about two Cholesky
    factorisations of a half-full passive set per row of A and column of Z."""
    return _sweep(W, D, N) + SCALAR * 2 * (W + N) * (D / 2) ** 3 / 6


def _lda_epoch(W: int, D: int, N: int) -> float:
    """One epoch of scikit-learn's online LDA: about 20 E-step iterations over each document's W words."""
    return SCALAR * 20 * 2.0 * W * D * N


def figure1_work(p: dict) -> float:
    """measure_figure1: every solver from the same start for max(iteration) iterations, the multiplicative and
    alternating ones after a cold NNLS decoding of the start."""
    W, D, N = size(p, "W"), size(p, "D"), size(p, "N")
    n = size(p, "iteration")
    per = {"and": _and_stage(W, D, N, T_DEFAULT, True), "hals": _sweep(W, D, N), "mu": _sweep(W, D, N),
           "anls": _anls_sweep(W, D, N), "sklearn_cd": SCALAR * _sweep(W, D, N) / 4,
           "sklearn_mu": _sweep(W, D, N), "lda": _lda_epoch(W, D, N)}
    start = {"hals", "mu", "anls"}
    return _problem(W, D, N) + sum(n * per.get(s, _sweep(W, D, N)) + (s in start) * _cold_nnls(D, N)
                                   for s in p.get("solver", []))


def update_work(p: dict) -> float:
    """measure_update: the warm stages, one decoding, then T steps each with a W x D least-squares solve."""
    W, D, N = size(p, "W"), size(p, "D"), size(p, "N")
    T = size(p, "T", T_DEFAULT)
    return (_problem(W, D, N) + size(p, "warm_stages") * _and_stage(W, D, N, T, True) + 4.0 * D * W * N
            + T * 4.0 * W * D * D)


def gcc_work(p: dict) -> float:
    """measure_gcc: the weights and X X^T per value of s."""
    D, N = size(p, "D"), size(p, "N")
    values = len(p["s"]) if isinstance(p.get("s"), list) else 1
    return values * (DRAW * D * N + 2.0 * D * D * N)


def decoding_work(p: dict) -> float:
    """measure_decoding: the weights, E X and four D x D outer-product sums over N samples."""
    D, N = size(p, "D"), size(p, "N")
    return DRAW * D * N + 10.0 * D * D * N


def decompositions_work(p: dict) -> float:
    """measure_faces and measure_topics (fixed data): one unit per method and stage, AND's stages as given and
    every other method's iterations as one stage each (a count, not flops: the data do not change size)."""
    methods = p.get("decomposition", p.get("topic_model", []))
    return float(len(methods) * size(p, "n_stages", 10))
