"""The declared work of one task of each slm sweep (``Sweep.work``): what `check --plan` scales a timed cell of the
sweep by to price cells never timed (the full tier from the quick tier's timings).

Units as in theorems/andnmf/costs.py: floating-point operations at BLAS (dgemm) speed; an operation of a scalar
Numba loop or a random draw weighs ``SCALAR`` of them. Dominant terms only, from the algorithms' operation counts,
with no constant fitted to timings; docs/performance.md ("Issue 31") reports how far the estimates fell from the
measured times.
"""
from __future__ import annotations

from simverify.footprint import size
from simverify.kernels.slm import BLOCKED_MIN_D

SCALAR = 10.0  # one scalar operation in dgemm operations (about 20 against 2 Gflop/s per core on these hosts)
DRAW = 3.0 * SCALAR  # one coordinate of an instance: a ziggurat normal or a uniform, standardised
FM_PASS = 6.0 * SCALAR  # one ALS coordinate's two passes over one instance (sums, update): about 12 scalar operations
# that run about twice the scalar rate (four lanes; a vectorised update), so 6 SCALAR


def _total(p: dict, name: str) -> int:
    """The sum of a size parameter over its list (a paired design runs every value), or its value."""
    v = p.get(name, 0)
    return sum(v) if isinstance(v, list) else v


def _n_values(p: dict, name: str) -> int:
    """How many runs a paired design makes along ``name`` (1 when it is one value)."""
    v = p.get(name)
    return len(v) if isinstance(v, list) else 1


def stream_pass(n: float, d: int, q: int, r: int) -> float:
    """One streamed pass of gen.residual_moments: n instances of d + 1 draws, their projections on the model's
    r* + 1 and the iterate's 2q + 1 factor columns, A'(z) U (q columns) and P1, P2."""
    flops = 2.0 * n * d * (2 * q + r + 2) + 2.0 * n * d * q + 4.0 * n * d
    return DRAW * n * (d + 1) + flops * (1.0 if d >= BLOCKED_MIN_D else SCALAR)


def power_pass(n: float, d: int) -> float:
    """gen.feature_power_means: n instances drawn, four power sums per coordinate."""
    return DRAW * n * (d + 1) + SCALAR * 4.0 * n * d


def shifted_rip_work(p: dict) -> float:
    """measure_shifted_rip: one pass with U = I (q = d)."""
    d, k = size(p, "d"), size(p, "k")
    return stream_pass(size(p, "n"), d, d, k)


def sensing_work(p: dict) -> float:
    """measure_sensing: two passes with U = I per n."""
    d, k = size(p, "d"), size(p, "k")
    return 2 * stream_pass(_total(p, "n"), d, d, k)


def projections_work(p: dict) -> float:
    """measure_projections: one pass with one factor column per n."""
    d, k = size(p, "d"), size(p, "k")
    return stream_pass(_total(p, "n"), d, 1, k)


def gradient_work(p: dict) -> float:
    """measure_gradient: one pass with k factor columns per n."""
    d, k = size(p, "d"), size(p, "k")
    return stream_pass(_total(p, "n"), d, k, k)


def moments_work(p: dict) -> float:
    """measure_moments and measure_lemma7_tau: one power-sum pass per n (per tau)."""
    return power_pass(_total(p, "n") * _n_values(p, "tau"), size(p, "d"))


def eq10_work(p: dict) -> float:
    """measure_eq10: a power-sum pass and one pass with the factors [U, I] per n."""
    d, k, n = size(p, "d"), size(p, "k"), _total(p, "n")
    return power_pass(n, d) + stream_pass(n, d, k + d, k)


OVERSAMPLE = 5  # solvers.slm.initial_subspace's extra columns


def _algorithm1(n: float, d: int, k: int, T: int, init_iters: int, spectral: bool = True) -> float:
    """Algorithm 1: line 2's power sums, line 4's init_iters + 1 subspace passes on k + OVERSAMPLE columns (the
    spectral start; none from a random start), then T passes of k columns."""
    start = (init_iters + 1) * stream_pass(n, d, k + OVERSAMPLE, k) if spectral else 0.0
    return power_pass(n, d) + start + T * stream_pass(n, d, k, k)


def algorithm1_work(p: dict) -> float:
    """measure_algorithm1 (per n of a paired design)."""
    d, k, T = size(p, "d"), size(p, "k"), size(p, "iteration")
    spectral = p.get("start", "spectral") == "spectral"
    return _algorithm1(_total(p, "n"), d, k, T, size(p, "init_iters", 10), spectral)


def gradient_descent_work(p: dict) -> float:
    """measure_gradient_descent: Algorithm 1's start, with tune_step at most 10 pilots (each its own start and 30
    iterations on n / 5; all 10 counted), and T iterations of 2k columns."""
    d, k, n, T = size(p, "d"), size(p, "k"), size(p, "n"), size(p, "iteration")
    start = _algorithm1(n, d, k, 0, size(p, "init_iters", 10))
    pilot = (_algorithm1(n / 5, d, k, 0, size(p, "init_iters", 10)) + 30 * stream_pass(n / 5, d, 2 * k, k))
    return start + (10 * pilot if p.get("tune_step") else 0.0) + T * stream_pass(n, d, 2 * k, k)


def _fm_fit(n: int, d: int, k: int, T: int) -> float:
    """FactorizationMachine.fit: T sweeps of d (k + 1) coordinates over n instances."""
    return T * FM_PASS * n * d * (k + 1)


def figure1_work(p: dict) -> float:
    """measure_figure1, per distribution parameter: SLM (Algorithm 1 on the one training set), and for the
    factorization machines the training set materialised and labelled, its power sums and one fit per baseline;
    the test set and its NMSE at every checkpoint."""
    d, k, n, n_test, T = (size(p, name) for name in ("d", "k", "n", "n_test", "iteration"))
    solvers = p.get("solver", [])
    fms = sum(s != "slm" for s in solvers)
    one = DRAW * n_test * (d + 1) + 2.0 * n_test * d * (k + 2) * (T + 1) * len(solvers)
    if "slm" in solvers:
        one += _algorithm1(n, d, k, T, 10)
    if fms:
        one += DRAW * n * (d + 1) + 2.0 * n * d * (k + 2) + power_pass(n, d) + fms * _fm_fit(n, d, k, T)
    return _n_values(p, "param") * one
