"""The moment-estimation-sequence method of Lin, Qiu, Hong, Ye (2022): Algorithm 1 (MIP) and Section 3.1's
diagonal-free construction, streamed in one pass per iteration with O(kd) state.

Variants (each a keyword; the defaults are the algorithm as printed):
- ``v_step="printed"``: line 9, V(t) = V(t-1) R(t)^T. With line 4's V(0) = 0 every V(t) is 0, so M(t) = 0
  forever. ``v_step="uhat"``: V(t) = U^(t) hat, so that M(t) = U(t) V(t)^T is the power step's estimate.
- ``trace="printed"``: line 7's M(z) = H(z) - D(G_1 P1)/2 - D(G_2 P2)/2 keeps E H(z)'s tr(M - M*) I / 2
  (Eq. 6's F); ``trace="removed"`` subtracts P0(z) I / 2, which estimates it (Section 3 lists P0 ~ tr(M - M*)).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ..generators.slm import (
    FeatureDistribution,
    FeatureView,
    SecondOrderModel,
    factor_columns,
    feature_power_means,
    residual_moments,
    sample_standardised_moments,
)
from ..kernels.rng import as_seed_sequence, fresh_seed
from ..kernels.slm import second_order_predictions
from ..validation import check_n_features, positive_int, real_number, require

V_STEPS = ("printed", "uhat")
TRACE_TERMS = ("printed", "removed")
CONSTRUCTIONS = ("mip", "diag_free")
STARTS = ("spectral", "random")
MIP_TOLERANCE = 1e-8  # |phi - 1 - kappa^2| below this: the moment matrix of Eq. (7) is singular


@dataclass(frozen=True)
class SLMState:
    """An iterate: w (d,), U (d, k) (orthonormal columns in Algorithm 1), V (d, k); M = U V^T (minus its diagonal in the
    diagonal-free construction). ``view``: how the solver sees x (None: the exact standardisation, the oracle)."""
    w: np.ndarray
    U: np.ndarray
    V: np.ndarray
    diag_free: bool = False
    view: FeatureView | None = None

    @property
    def M(self) -> np.ndarray:
        M = self.U @ self.V.T
        return M - np.diag(np.diag(M)) if self.diag_free else M

    def predict(self, X: np.ndarray) -> np.ndarray:
        """yhat = z^T w + z^T M z (n,) for the exactly standardised X (n, d), z = the solver's view of x; X must have
        the iterate's d columns (the kernel indexes w, U, V with X's columns)."""
        X = np.ascontiguousarray(X, dtype=float)
        require(X.ndim == 2, f"SLMState.predict: X must be a 2-d array (n, d), got shape {X.shape}")
        check_n_features("SLMState.predict", X, self.w.size, "the iterate has d =")
        d = self.w.size
        require(self.U.shape[0] == d and self.V.shape == self.U.shape,
                f"SLMState.predict: U and V must both have shape (d, k) with d = {d}, got {self.U.shape} and "
                f"{self.V.shape}")
        require(self.view is None or self.view.scale.size == self.view.shift.size == d,
                f"SLMState.predict: the view's scale and shift must have d = {d} entries")
        diag = np.einsum("ij,ij->i", self.U, self.V) if self.diag_free else np.zeros(self.w.size)
        scale, shift = (np.empty(0), np.empty(0)) if self.view is None else (self.view.scale, self.view.shift)
        Wt = factor_columns(self.w, self.U, self.V)
        return second_order_predictions(X, 0.0, Wt, diag, scale, shift)


def is_mip(dist: FeatureDistribution) -> bool:
    """Definition 1 with a numerical tolerance: the moment matrix of Eq. (7) is invertible for ``dist``."""
    return dist.tau > MIP_TOLERANCE * max(1.0, dist.phi)


def positive_qr(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The QR decomposition with a non-negative diagonal in R (the unique one for full column rank): A (d, k)
    -> Q (d, k), R (k, k). LAPACK's signs are arbitrary, and M = U(t) V(t)^T depends on them."""
    Q, R = np.linalg.qr(A)
    signs = np.where(np.diag(R) < 0.0, -1.0, 1.0)
    return Q * signs, R * signs[:, None]


def moment_coefficients(kappa: np.ndarray, phi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """G, H (d, 2): row j solves [[1, kappa_j], [kappa_j, phi_j - 1]] g = (kappa_j, phi_j - 3) (Eq. 7) and
    h = (1, 0) (Eq. 8). Refuses a singular moment matrix (a non-MIP distribution, Definition 1)."""
    det = phi - 1.0 - kappa ** 2
    require(bool(np.all(np.abs(det) > MIP_TOLERANCE * np.maximum(1.0, phi))),
            "the moment matrix of Eq. (7) is singular (the distribution is not tau-MIP): "
            "use the diagonal-free construction (Section 3.1)")
    G = np.column_stack([(phi - 1.0) * kappa - kappa * (phi - 3.0), -kappa ** 2 + (phi - 3.0)]) / det[:, None]
    H = np.column_stack([phi - 1.0, -kappa]) / det[:, None]
    return G, H


def initial_subspace(model: SecondOrderModel, n: int, data_seed, k: int, iters: int, *, start_seed=None,
                     view: FeatureView | None = None, oversample: int = 5) -> np.ndarray:
    """U(0) (d, k): the top-k (by |eigenvalue|) eigenvectors of H(0) = A'(y)/(2n) (line 4), by subspace iteration
    on H(0) - mean(y)/2 I (the same eigenvectors; the shift removes the tr(M*)/2 I that makes H(0)'s gap small)
    and a Rayleigh-Ritz step on H(0) itself. Every pass re-draws the n instances of ``data_seed``; the random
    start comes from ``start_seed`` (default: ``data_seed``)."""
    d = model.d
    zero_w, zero_v = np.zeros(d), np.zeros((d, k + oversample))
    start = as_seed_sequence(data_seed if start_seed is None else start_seed)
    Q = np.linalg.qr(np.random.default_rng(start).standard_normal((d, k + oversample)))[0]
    for sweep in range(iters + 1):
        AQ, p0, _, _ = residual_moments(model, n, data_seed, zero_w, Q, zero_v, view=view)  # M = Q 0^T: z = -y
        HQ = -AQ / 2.0
        if sweep == iters:
            break
        Q = np.linalg.qr(HQ + (p0 / 2.0) * Q)[0]  # (H(0) - mean(y)/2 I) Q, since p0 = -mean(y)
    evals, evecs = np.linalg.eigh((Q.T @ HQ + HQ.T @ Q) / 2.0)
    return Q @ evecs[:, np.argsort(-np.abs(evals))[:k]]


@dataclass(frozen=True)
class MomentEstimates:
    """Line 2 on the first batch: the solver's view of x (None: the zero-mean/unit-variance oracle) and the
    estimated kappa, phi (d,) of the features it sees."""
    view: FeatureView | None
    kappa: np.ndarray
    phi: np.ndarray


def estimate_moments(model: SecondOrderModel, n: int, seed, oracle: bool) -> MomentEstimates:
    """Algorithm 1 line 2 from n instances. With the oracle, E x = 0 and E x^2 = 1 are known and kappa, phi are the
    sample means of x^3, x^4; without it, x is standardised by the sample mean and variance (Section 5.1)."""
    means = feature_power_means(model.dist, model.d, n, seed)
    if oracle:
        return MomentEstimates(None, means[2], means[3])
    return MomentEstimates(FeatureView.estimated(means), *sample_standardised_moments(means))


def run_streams(seed) -> tuple[np.random.SeedSequence, np.random.SeedSequence, np.random.SeedSequence]:
    """(data, start, iterations): the streams a run from ``seed`` draws from. With ``resample=False`` its one
    training set is the first n instances of ``data`` (``slm_instances(model, n, data)`` materialises them, so a
    baseline can train on the same draw). Children of a fresh copy: the same seed always gives the same streams."""
    s_data, s_start, s_iter = fresh_seed(seed).spawn(3)
    return s_data, s_start, s_iter


def _batches(s_data, s_iter, T: int, resample: bool) -> list:
    """A fresh batch per iteration (Algorithm 1), or the one training set of n instances reused (Section 5.1)."""
    return s_iter.spawn(T) if resample else [s_data] * T


def _check_run(model: SecondOrderModel, k, n, T) -> tuple[int, int, int]:
    k, n, T = positive_int("k", k), positive_int("n", n), positive_int("T", T)
    require(k <= model.d, f"k must be at most d, got k = {k} > d = {model.d}")
    return k, n, T


def moment_estimation_sequence(model: SecondOrderModel, k: int, n: int, T: int, seed, *, v_step: str = "printed",
                               trace: str = "printed", construction: str = "mip", oracle: bool = True,
                               resample: bool = True, start: str = "spectral",
                               init_iters: int = 10) -> Iterator[tuple[int, SLMState]]:
    """Algorithm 1: yields (t, state) for t = 0..T. Each iteration draws a fresh batch of n instances
    (``resample=False``: every step reuses the first batch, a fixed training set as in Section 5.1).
    ``oracle=False`` standardises x by the first batch's sample mean and variance. ``start="random"`` replaces
    line 4's U(0) by a uniformly random orthonormal (d, k) basis. The streams are ``run_streams(seed)``: a seed
    is not advanced, so the same seed always gives the same run."""
    k, n, T = _check_run(model, k, n, T)
    require(v_step in V_STEPS, f"v_step must be one of {V_STEPS}, got {v_step!r}")
    require(trace in TRACE_TERMS, f"trace must be one of {TRACE_TERMS}, got {trace!r}")
    require(construction in CONSTRUCTIONS, f"construction must be one of {CONSTRUCTIONS}, got {construction!r}")
    require(isinstance(oracle, bool) and isinstance(resample, bool), "oracle and resample must be true or false")
    require(start in STARTS, f"start must be one of {STARTS}, got {start!r}")
    diag_free = construction == "diag_free"
    require(diag_free or is_mip(model.dist),
            f"{model.dist.name}({model.dist.param:g}) is not tau-MIP (the moment matrix of Eq. (7) is singular): "
            "use the diagonal-free construction (Section 3.1)")
    s_data, s_start, s_iter = run_streams(seed)
    est = estimate_moments(model, n, s_data, oracle)                                  # line 2
    if not diag_free:
        G, H = moment_coefficients(est.kappa, est.phi)                                 # line 3
    d, view = model.d, est.view
    if start == "spectral":
        U0 = initial_subspace(model, n, s_data, k, init_iters, start_seed=s_start, view=view)  # line 4
    else:
        U0 = np.linalg.qr(np.random.default_rng(s_start).standard_normal((d, k)))[0]
    state = SLMState(np.zeros(d), U0, np.zeros((d, k)), diag_free, view)
    yield 0, state
    for t, s_batch in enumerate(_batches(s_data, s_iter, T, resample), start=1):
        w, U, V = state.w, state.U, state.V
        diag = np.einsum("ij,ij->i", U, V) if diag_free else None
        AU, p0, p1, p2 = residual_moments(model, n, s_batch, w, U, V, diag, view)    # line 7, one pass
        if diag_free:   # Section 3.1: M(z) = H(z) - D(P2 / 2), W(z) = P1
            MU, dw = AU / 2.0 - (p2 / 2.0)[:, None] * U, p1
        else:
            MU = AU / 2.0 - ((G[:, 0] * p1 + G[:, 1] * p2) / 2.0)[:, None] * U
            dw = H[:, 0] * p1 + H[:, 1] * p2                                           # line 10
        if trace == "removed":
            MU = MU - (p0 / 2.0) * U
        U_hat = V - MU                                                                 # line 7
        U_new, R = positive_qr(U_hat)                                                  # line 8
        V_new = V @ R.T if v_step == "printed" else U_hat                              # line 9
        state = SLMState(w - dw, U_new, V_new, diag_free, view)                        # line 11
        yield t, state


def gradient_descent_sequence(model: SecondOrderModel, k: int, n: int, T: int, seed, *, step: float,
                              oracle: bool = True, resample: bool = True,
                              init_iters: int = 10) -> Iterator[tuple[int, SLMState]]:
    """The heuristic of Section 2.1: simultaneous gradient steps on Eq. (5)'s L(w, U, V) from the same start as
    Algorithm 1 (line 4's U(0), V = 0, w = 0): w -= step P1(z), U -= step A'(z) V / n, V -= step A'(z) U / n, one
    streamed pass per step (a fresh batch, or the first batch reused when ``resample=False``); the same streams as
    ``moment_estimation_sequence`` from the same seed (``run_streams``), which is not advanced."""
    k, n, T = _check_run(model, k, n, T)
    step = real_number("step", step, 0.0)
    s_data, s_start, s_iter = run_streams(seed)
    view = estimate_moments(model, n, s_data, oracle).view
    d = model.d
    U = initial_subspace(model, n, s_data, k, init_iters, start_seed=s_start, view=view)
    state = SLMState(np.zeros(d), U, np.zeros((d, k)), view=view)
    yield 0, state
    for t, s_batch in enumerate(_batches(s_data, s_iter, T, resample), start=1):
        w, U, V = state.w, state.U, state.V
        stacked_U, stacked_V = np.hstack([U, V]), np.hstack([V, np.zeros_like(V)])  # M = U V^T; A'(z)[U V]
        A_UV, _, p1, _ = residual_moments(model, n, s_batch, w, stacked_U, stacked_V, view=view)
        state = SLMState(w - step * p1, U - step * A_UV[:, k:], V - step * A_UV[:, :k], view=view)
        yield t, state
