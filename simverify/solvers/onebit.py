"""Algorithm 1 of Qiu et al. (2017), one-bit single-label multi-label learning by alternating
power iteration on the Hermitian dilation, and the estimators it is built from.

Shapes: W, H (d1, d2); the dilation of W is the (d1 + d2, d1 + d2) matrix [[0, W], [W^T, 0]]
(Lemma 3; the paper prints the zero blocks as O_{d2 x d1} and O_{d1 x d2}, which do not fit:
the blocks are d1 x d1 and d2 x d2); U, V ((d1 + d2), 2k).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from ..generators.onebit import SingleLabelModel, as_children, check_rank, instance_streams
from ..kernels import rng
from ..kernels.jit import one_blas_thread
from ..kernels.onebit import INSTANCE_CHUNK, full_observation_slots, residual_slots
from ..kernels.rng import N_SLOTS
from ..kernels.streams import stream_states
from ..validation import Integer, check_parameter, finite_matrix, positive_int, require

LAMBDA = float(np.sqrt(2.0 / np.pi))  # lambda = E|g| (Lemma 1, Algorithm 1)
STARTS = ("printed", "zero")
FORMS = ("dilation", "block")


def _adjoint_sum(model: SingleLabelModel, W: np.ndarray | None, m: int, seed) -> np.ndarray:
    """sum_i (y_i - s_i) x_i e_{j_i}^T (d1, d2) over the first m instances of the stream, s_i =
    sign(<x_i, W_j>) (or 0 when W is None); parallel, bit-identical for any thread count."""
    m = positive_int("m", m)
    wt = np.ascontiguousarray(model.wt_star if W is None else finite_matrix("W", W).T)
    require(wt.shape == model.wt_star.shape, f"W has shape {wt.T.shape}, the model {model.shape}")
    states = instance_streams(m, seed)
    with one_blas_thread():
        slots = residual_slots(states, model.wt_star, wt, model.xi, model.flip_prob, W is not None, m,
                               INSTANCE_CHUNK, N_SLOTS)
    total = np.zeros(slots.shape[1:])
    for s in range(slots.shape[0]):  # fixed order
        total += slots[s]
    return total.T


def residual_matrix(model: SingleLabelModel, W: np.ndarray, m: int, seed) -> np.ndarray:
    """H = sqrt(d2)/(m lambda) A'(y - sign(A(W))) (Algorithm 1 line 7), (d1, d2), over the first
    m instances of the stream (model, seed); A'(v) = sum_i v_i x_i e_bar_i^T, e_bar = sqrt(d2) e_j."""
    d2 = model.shape[1]
    return _adjoint_sum(model, W, m, seed) * (d2 / (m * LAMBDA))


def sign_correlation(model: SingleLabelModel, m: int, seed) -> np.ndarray:
    """sqrt(d2)/(m lambda) A'(y) (d1, d2): by Lemma 1 its mean is W* when W* has unit columns."""
    d2 = model.shape[1]
    return _adjoint_sum(model, None, m, seed) * (d2 / (m * LAMBDA))


def column_by_column(model: SingleLabelModel, m: int, seed) -> np.ndarray:
    """W* (d1, d2) estimated column by column by one-bit compressed sensing (Section 3, "Comparison"):
    column j is the normalised average of y_i x_i over the instances labelled j (Plan & Vershynin's
    estimator for a non-sparse vector), from the first m instances of the stream (model, seed)."""
    return normalize_nonzero_columns(sign_correlation(model, m, seed))


def hermitian_dilation(W: np.ndarray) -> np.ndarray:
    """[[0, W], [W^T, 0]] ((d1 + d2), (d1 + d2)) (Lemma 3)."""
    d1, d2 = W.shape
    D = np.zeros((d1 + d2, d1 + d2))
    D[:d1, d1:] = W
    D[d1:, :d1] = W.T
    return D


def dilation_top_eigenvectors(W: np.ndarray, r: int) -> np.ndarray:
    """Eigenvectors ((d1 + d2), r) of the dilation of W for its r largest |eigenvalues| (the top-r
    singular vectors of a symmetric matrix; Algorithm 1 line 1 with r = 2k)."""
    W = finite_matrix("W", W, owner="dilation_top_eigenvectors")
    check_parameter("dilation_top_eigenvectors", "r", r, Integer(1, sum(W.shape)))
    w, Q = np.linalg.eigh(hermitian_dilation(W))
    return Q[:, np.argsort(-np.abs(w), kind="stable")[:r]]


def normalize_nonzero_columns(W: np.ndarray) -> np.ndarray:
    """Columns scaled to unit norm; zero columns stay zero (the correction at t = 1, where
    W~(0) = U(0) V(0)^T = 0 and line 1's W(0) = 0 is kept)."""
    norms = np.linalg.norm(W, axis=0)
    return W / np.where(norms > 0, norms, 1.0)


@dataclass(frozen=True)
class OneBitState:
    """Iterate t of Algorithm 1: U, V ((d1 + d2), 2k), W~ = block of U V^T (d1, d2) and W (d1, d2),
    its column normalisation (the estimate of W*); H (d1, d2) the step's residual matrix; U~ the
    power step before QR (line 9; at t = 0 U(0) itself)."""
    U: np.ndarray
    V: np.ndarray
    W_tilde: np.ndarray
    W: np.ndarray
    H: np.ndarray
    U_tilde: np.ndarray


def _power_step(M: np.ndarray, U: np.ndarray, form: str) -> np.ndarray:
    """dilation(M) @ U, explicitly (``dilation``, as printed) or blockwise [M U_b; M^T U_a]."""
    if form == "dilation":
        return hermitian_dilation(M) @ U
    d1 = M.shape[0]
    return np.vstack([M @ U[d1:], M.T @ U[:d1]])


def power_iteration(residual: Callable[[np.ndarray, np.random.SeedSequence], np.ndarray], shape: tuple[int, int],
                    k: int, T: int, seed, start: str = "zero", form: str = "block"
                    ) -> Iterator[tuple[int, OneBitState]]:
    """Algorithm 1's iteration for any residual H = residual(W, seed_t) (d1, d2), yielding (t, state)
    for t = 0..T (see simverify.iteration); ``algorithm1`` documents the steps and the options."""
    d1, d2, k = check_rank(shape[0], shape[1], k)
    T = positive_int("T", T)
    require(start in STARTS, f"start must be one of {list(STARTS)}, got {start!r}")
    require(form in FORMS, f"form must be one of {list(FORMS)}, got {form!r}")
    seeds = as_children(seed, T)
    W = np.zeros((d1, d2))
    H = residual(W, seeds[0])
    U = dilation_top_eigenvectors(H, 2 * k)  # line 1
    V = np.zeros_like(U)
    yield 0, OneBitState(U, V, W.copy(), W, H, U)
    for t in range(1, T + 1):
        W_tilde = U[:d1] @ V[d1:].T  # lines 3-4
        if start == "printed":
            with np.errstate(invalid="ignore", divide="ignore"):
                W = W_tilde / np.linalg.norm(W_tilde, axis=0)  # line 5 as printed
        else:
            W = normalize_nonzero_columns(W_tilde)
        if not np.all(np.isfinite(W)):
            nan, nan_u = np.full_like(W, np.nan), np.full_like(U, np.nan)
            yield t, OneBitState(nan_u, nan_u, nan, nan, nan, nan_u)
            return
        if t > 1:
            H = residual(W, seeds[t - 1])  # lines 6-7; t = 1 reuses H(0) (W(0) = 0)
        M = H + W  # line 8: dilation(H) + dilation(W) = dilation(H + W)
        U_tilde = _power_step(M, U, form)  # line 9
        U, _ = np.linalg.qr(U_tilde)  # line 10
        V = _power_step(M, U, form)  # line 11
        W_tilde = U[:d1] @ V[d1:].T
        yield t, OneBitState(U, V, W_tilde, normalize_nonzero_columns(W_tilde), H, U_tilde)


def algorithm1(model: SingleLabelModel, k: int, m: int, T: int, seed, start: str = "zero",
               form: str = "block") -> Iterator[tuple[int, OneBitState]]:
    """Algorithm 1, yielding (t, state) for t = 0 (initialisation) .. T (see simverify.iteration).

    Batch t (t = 1..T) is m fresh instances of stream t of ``seed``; the initialisation
    U(0) = top-2k eigenvectors of the dilation of H(0) uses batch 1 with W(0) = 0 (so mT
    instances in all). ``start='printed'`` runs line 5 as printed at t = 1: it normalises the
    columns of W~(0) = U(0) V(0)^T = 0, so W(0) and everything after is NaN (the run stops
    there); ``start='zero'`` keeps line 1's W(0) = 0 at t = 1 instead. ``form='dilation'`` builds
    the (d1 + d2)-square dilations as printed, ``'block'`` multiplies blockwise (same iterates).
    """
    m = positive_int("m", m)
    return power_iteration(lambda W, s: residual_matrix(model, W, m, s), model.shape, k, T, seed, start, form)


def full_observation_residual(X: np.ndarray, Y: np.ndarray, W: np.ndarray, m: int, seed) -> np.ndarray:
    """H = sqrt(d2)/(m lambda) sum over m (instance, label) pairs sampled uniformly with replacement from a
    fully labelled set X (n, d1), Y (n, d2) in +-1 of (Y_ij - sign(<x_i, W_j>)) x_i e_bar_j^T (Section 5.2)."""
    m = positive_int("m", m)
    X, Y, W = (finite_matrix(name, M, owner="full_observation_residual") for name, M in (("X", X), ("Y", Y), ("W", W)))
    require(X.shape[0] == Y.shape[0] and W.shape == (X.shape[1], Y.shape[1]),
            f"full_observation_residual: X (n, d1), Y (n, d2) and W (d1, d2) disagree: {X.shape}, {Y.shape}, {W.shape}")
    require(X.shape[0] >= 1 and Y.shape[1] >= 1, f"full_observation_residual: the labelled set is empty: X {X.shape}, "
            f"Y {Y.shape}")
    d2 = Y.shape[1]
    states = stream_states(seed, rng.n_chunks(m, INSTANCE_CHUNK))
    with one_blas_thread():
        slots = full_observation_slots(states, X, Y, np.ascontiguousarray(W.T), m, INSTANCE_CHUNK, N_SLOTS)
    total = np.zeros(slots.shape[1:])
    for s in range(slots.shape[0]):  # fixed order
        total += slots[s]
    return total.T * (d2 / (m * LAMBDA))


def algorithm1_full_observation(X: np.ndarray, Y: np.ndarray, k: int, m: int, T: int, seed
                                ) -> Iterator[tuple[int, OneBitState]]:
    """The extension of Section 5.2: Algorithm 1 (zero start) where each iteration samples m labels of
    a fully labelled training set X (n, d1), Y (n, d2) in +-1, yielding (t, state) for t = 0..T."""
    X = finite_matrix("X", X)
    Y = finite_matrix("Y", Y)
    require(X.shape[0] == Y.shape[0], f"X has {X.shape[0]} instances, Y {Y.shape[0]}")
    require(X.shape[0] >= 1 and Y.shape[1] >= 1, f"the labelled set is empty: X {X.shape}, Y {Y.shape}")
    require(bool(np.all(np.abs(Y) == 1.0)), "Y must hold labels +-1")
    return power_iteration(lambda W, s: full_observation_residual(X, Y, W, m, s), (X.shape[1], Y.shape[1]), k, T,
                           seed)
