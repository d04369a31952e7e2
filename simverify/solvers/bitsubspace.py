"""Fusion-center algorithms of Chi (2018): truncated EVD (Alg. 1 line 5), the convex
program (Eq. 9) with the low-rank and the sparse set K, online tracking (Section 5) and
ESPRIT for line spectra (Section 6.2)."""
from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from ..generators.bitsubspace import SensingModel, sensor_chunks, sensor_streams
from ..kernels.jit import one_blas_thread
from ..kernels.linalg import sparse_set_admm
from ..kernels.sensing import (
    N_SLOTS,
    SENSOR_CHUNK,
    surrogate_slots,
    surrogate_slots_complex,
)
from ..kernels.tracking import track_chunk
from ..validation import (
    Boolean,
    Integer,
    Real,
    Seed,
    check_parameter,
    finite_array,
    require,
    validate_parameters,
)


def surrogate_matrix(model: SensingModel, m: int, seed) -> np.ndarray:
    """J = (1/m) sum_i y_i (a_i a_i^H - b_i b_i^H) (Eq. 5), (n, n), over the first m sensors
    of the stream (model, seed); real symmetric or complex Hermitian.

    Parallel kernels streaming chunks into fixed-order partial sums: bit-identical for any
    thread count.
    """
    check_parameter("surrogate_matrix", "m", m, Integer(1))
    states = sensor_streams(m, seed)
    with one_blas_thread():
        if model.complex_sketches:
            slots = surrogate_slots_complex(states, model.factor, model.flip_prob, int(m), SENSOR_CHUNK, N_SLOTS)
        else:
            slots = surrogate_slots(states, model.factor, model.samples, model.flip_prob, int(m), SENSOR_CHUNK, N_SLOTS)
    total = np.zeros(slots.shape[1:], dtype=slots.dtype)
    for s in range(slots.shape[0]):  # fixed order
        total += slots[s]
    return total / m


def _square(owner: str, name: str, M, complex_ok: bool = True) -> np.ndarray:
    """M as an array after checking it is a finite square 2-d matrix (complex allowed unless ``complex_ok`` is
    False)."""
    M = finite_array(name, M, owner=owner, complex_ok=complex_ok)
    require(M.shape[0] == M.shape[1], f"{owner}: {name} must be square (n, n), got shape {M.shape}")
    return M


def _check_rank_and_entries(M, r: int, name: str, owner: str) -> int:
    """n of the finite square (n, n) matrix M after checking 1 <= r <= n (ValueError naming ``owner``)."""
    n = _square(owner, name, M).shape[0]
    check_parameter(owner, "r", r, Integer(1))
    require(r <= n, f"{owner}: rank r={r} must lie in 1..n={n}")
    return n


def truncated_evd(J: np.ndarray, r: int) -> np.ndarray:
    """U_hat (n, r): eigenvectors of the r largest (algebraic) eigenvalues of Hermitian J."""
    _check_rank_and_entries(J, r, "J", "truncated_evd")
    _, V = np.linalg.eigh(J)
    return V[:, ::-1][:, :r].copy()


def convex_lowrank(J: np.ndarray, r: int) -> np.ndarray:
    """Exact solution of Eq. (9): argmax <J, S> over S PSD, ||S||_F <= 1, ||S||_* <= sqrt(r).

    The set is unitarily invariant and the objective linear, so S = V diag(s) V^H with
    J = V diag(j) V^H and s = argmax j.s over s >= 0, ||s||_2 <= 1, sum s <= sqrt(r), which is
    s = (j - theta)_+ / ||(j - theta)_+|| with the smallest theta >= 0 meeting the l1 limit.
    Returns S (n, n); if J has no positive eigenvalue, S = 0 is optimal.
    """
    check_parameter("convex_lowrank", "r", r, Integer(1))
    w, V = np.linalg.eigh(_square("convex_lowrank", "J", J))
    s = _lowrank_eigenweights(w, np.sqrt(r))
    return (V * s) @ V.conj().T


def _lowrank_eigenweights(j: np.ndarray, radius: float) -> np.ndarray:
    pos = np.maximum(j, 0.0)
    if not np.any(pos > 0):
        return np.zeros_like(j)
    lo, hi = 0.0, float(pos.max())
    s = pos / np.linalg.norm(pos)
    if s.sum() <= radius:
        return s
    for _ in range(200):  # bisection on theta: sum of normalised weights decreases in theta
        theta = 0.5 * (lo + hi)
        t = np.maximum(j - theta, 0.0)
        if t.sum() / np.linalg.norm(t) > radius:
            lo = theta
        else:
            hi = theta
    t = np.maximum(j - hi, 0.0)
    return t / np.linalg.norm(t)


def convex_sparse(J: np.ndarray, sparsity: float, iterations: int = 500, rho: float = 1.0,
                  tol: float = 1e-8) -> np.ndarray:
    """Eq. (9) with the sparse set K = {||S||_F <= 1, ||S||_1 <= sqrt(s)}, S PSD (Section 4).

    ADMM on S = Z: S-step projects onto PSD n F-ball (clip eigenvalues, rescale), Z-step onto
    the entrywise l1 ball. Returns S (n, n) real symmetric.
    """
    J = _square("convex_sparse", "J", J, complex_ok=False)
    check_parameter("convex_sparse", "sparsity", sparsity, Real(0.0, closed="neither"))
    check_parameter("convex_sparse", "iterations", iterations, Integer(1))
    check_parameter("convex_sparse", "rho", rho, Real(0.0, closed="neither"))
    check_parameter("convex_sparse", "tol", tol, Real(0.0))
    J = 0.5 * (J + J.T)
    return sparse_set_admm(np.ascontiguousarray(J), float(np.sqrt(sparsity)), int(iterations), float(rho), float(tol))


def top_eigenvectors(S: np.ndarray, r: int) -> np.ndarray:
    """X_hat (n, k), k <= r: eigenvectors of the k largest eigenvalues of an estimate Sigma_hat
    (Hermitian, e.g. a solution of Eq. (9)) that exceed the numerical-rank tolerance
    n * eps * max|eigenvalue| (numpy.linalg.matrix_rank's default), as Section 6.1 extracts it.

    Only the range of S is used: when S has rank k < r (e.g. Eq. (9) with ||S||_* <= 1 is rank
    one), eigenvectors of its zero eigenspace would be an arbitrary basis that LAPACK builds
    and thread counts choose differently, so they are left out. k = 0 when S has no positive
    eigenvalue above the tolerance.
    """
    n = _check_rank_and_entries(S, r, "S", "top_eigenvectors")
    w, V = np.linalg.eigh(S)
    tol = n * np.finfo(float).eps * np.abs(w).max()
    top = np.arange(n - 1, n - 1 - r, -1)
    return V[:, top[w[top] > tol]].copy()


class OnlineSubspaceTracker:
    """Section 5: rank-r EVD of J_m tracked by rank-two updates (Eqs. 10-11).

    Memory Theta(n r): only U_ (n, r) and eigenvalues_ (r,) are kept; sketches are used and
    dropped. ``by_magnitude=True`` keeps the r eigenpairs largest in |eigenvalue|, as
    printed; ``False`` keeps the r largest eigenvalues (the correction this project found
    necessary, see theorems.bitsubspace). The start is a random orthonormal U_ drawn from
    ``seed`` with zero eigenvalues, or, with ``warm_start = w > 0``, the top-r EVD (r largest
    eigenvalues) of the surrogate J_w of the first w sensors of the stream ``iterate`` reads,
    after which sensors w + 1, w + 2, ... are absorbed by Eq. (10) with eta_m = (m - 1)/m.

    Unlike the estimators, the tracker's state starts at construction (U_ is drawn there), so ``__init__`` checks
    ``_parameter_constraints`` before drawing it. It has no ``fit``: ``partial_fit`` absorbs given sensors,
    ``track`` and ``iterate`` a stream (model, seed).

    Parameters
    ----------
    n : int
        The dimension of the data, an integer >= 1.
    r : int
        The rank tracked, an integer in 1..n.
    by_magnitude : bool, default=True
        True: keep the r eigenpairs largest in |eigenvalue| (as printed); False: the r largest eigenvalues.
    complex_data : bool, default=False
        True: U_ is complex128, for complex sketches (``SensingModel(complex_sketches=True)``); False: float64.
    seed : int, SeedSequence, list of int, numpy Generator, BitGenerator or None, default=0
        Draws the random orthonormal start U_ (``numpy.random.default_rng(seed)``; None: fresh entropy). Not the
        seed of the sensor stream, which ``track`` and ``iterate`` take.
    warm_start : int, default=0
        w, an integer >= 0: a fresh tracker's ``iterate``/``track`` first fuses sensors 1..w in batch (refused
        when w exceeds the m sensors streamed); 0: start from the random U_. ``partial_fit`` ignores it.

    Attributes
    ----------
    U_ : ndarray of shape (n, r)
        The tracked eigenvectors (float64 or complex128); after an update ordered as kept, by |eigenvalue| when
        by_magnitude, else by eigenvalue, largest first (``subspace()`` orders them by eigenvalue).
    eigenvalues_ : ndarray of shape (r,)
        Their tracked eigenvalues of J_m (real).
    n_sensors_ : int
        The number of sensors absorbed so far.

    References
    ----------
    .. [1] Chi (2018), Subspace Learning From Bits, arXiv:1407.6288 (Section 5).

    Examples
    --------
    >>> import numpy as np
    >>> from simverify.generators.bitsubspace import SensingModel
    >>> from simverify.solvers.bitsubspace import OnlineSubspaceTracker
    >>> x = np.array([[3.0], [1.0], [0.0], [-1.0], [2.0], [1.0]])  # Sigma = x x^T: n = 6, rank 1
    >>> tracker = OnlineSubspaceTracker(6, 1, by_magnitude=False).track(SensingModel(x), 5000, seed=1)
    >>> tracker.U_.shape, tracker.n_sensors_
    ((6, 1), 5000)
    >>> u = tracker.subspace()[:, 0]
    >>> round(float(abs(u @ x[:, 0]) / np.linalg.norm(x)), 2)  # |cos| of the angle to the true subspace
    1.0
    """
    _parameter_constraints = {"n": Integer(1), "r": Integer(1), "by_magnitude": Boolean(), "complex_data": Boolean(),
                              "seed": [Seed(), np.random.Generator, np.random.BitGenerator, None],
                              "warm_start": Integer(0)}

    def __init__(self, n: int, r: int, by_magnitude: bool = True, complex_data: bool = False, seed=0,
                 warm_start: int = 0):
        validate_parameters("OnlineSubspaceTracker", self._parameter_constraints,
                            {"n": n, "r": r, "by_magnitude": by_magnitude, "complex_data": complex_data,
                             "seed": seed, "warm_start": warm_start})
        if not (0 < r <= n):
            raise ValueError(f"OnlineSubspaceTracker: rank r={r} must lie in 1..n={n}")
        dtype = np.complex128 if complex_data else np.float64
        g = np.random.default_rng(seed)
        q, _ = np.linalg.qr(g.standard_normal((n, r)))
        self.U_ = np.ascontiguousarray(q, dtype=dtype)
        self.eigenvalues_ = np.zeros(r)
        self.n_sensors_ = 0
        self.by_magnitude = by_magnitude
        self.warm_start = int(warm_start)

    def partial_fit(self, A: np.ndarray, B: np.ndarray, y: np.ndarray) -> OnlineSubspaceTracker:
        """Absorb the next sensors, given as rows of A, B (c, n) with bits y (c,) (shapes checked: the kernel
        indexes them with one another's sizes)."""
        self._check_sensors(A, B, y)
        dtype = self.U_.dtype
        with one_blas_thread():
            self.U_, self.eigenvalues_ = track_chunk(self.U_, self.eigenvalues_, np.ascontiguousarray(A, dtype=dtype),
                                                     np.ascontiguousarray(B, dtype=dtype), np.asarray(y, dtype=float),
                                                     self.n_sensors_, self.by_magnitude)
        self.n_sensors_ += A.shape[0]
        return self

    def _check_sensors(self, A, B, y) -> None:
        """Refuse sensors the kernel would index past: A, B (c, n) finite with the tracker's n, y (c,)."""
        n = self.U_.shape[0]
        owner = "OnlineSubspaceTracker.partial_fit"
        A = finite_array("A", A, owner=owner, complex_ok=True)
        B = finite_array("B", B, owner=owner, complex_ok=True)
        y = finite_array("y", y, ndim=1, owner=owner)
        require(A.shape[1] == n and B.shape == A.shape,
                f"{owner}: A and B must both have shape (c, n) with n = {n}, got {A.shape} and {B.shape}")
        require(y.size == A.shape[0], f"{owner}: y has {y.size} bits, A has {A.shape[0]} rows")

    def subspace(self) -> np.ndarray:
        """Current estimate (n, r), columns ordered by tracked eigenvalue, largest first."""
        order = np.argsort(-self.eigenvalues_)
        return self.U_[:, order]

    def _fuse_warm_start(self, model: SensingModel, seed) -> None:
        w, V = np.linalg.eigh(surrogate_matrix(model, self.warm_start, seed))
        r = self.U_.shape[1]
        self.U_ = np.ascontiguousarray(V[:, ::-1][:, :r], dtype=self.U_.dtype)
        self.eigenvalues_ = w[::-1][:r].copy()
        self.n_sensors_ = self.warm_start

    def iterate(self, model: SensingModel, m: int, seed,
                checkpoints: Sequence[int]) -> Iterator[tuple[int, OnlineSubspaceTracker]]:
        """Absorb sensors n_sensors_ + 1 .. m of the stream (model, seed), yielding (count, self)
        whenever the number of sensors absorbed equals a checkpoint (the iteration protocol;
        checkpoints below the start, e.g. below ``warm_start``, are never reached). Work is done
        lazily: a consumer that stops after the last checkpoint stops the stream there.

        A fresh tracker with ``warm_start = w`` first fuses sensors 1..w in batch. ``self`` is
        yielded, not a copy: read what you need before advancing the iterator.
        """
        if self.warm_start and self.n_sensors_ == 0:
            if self.warm_start > m:
                raise ValueError(f"warm_start={self.warm_start} exceeds the m={m} sensors streamed")
            self._fuse_warm_start(model, seed)
        marks = sorted({int(c) for c in checkpoints if self.n_sensors_ <= c <= m})
        if marks and marks[0] == self.n_sensors_:
            yield marks.pop(0), self
        for start, A, B, y in sensor_chunks(model, m, seed):
            stop = start + A.shape[0]
            for mark in [c for c in marks if start < c < stop] + [stop]:
                lo = self.n_sensors_ - start
                if mark - start > lo:
                    self.partial_fit(A[lo:mark - start], B[lo:mark - start], y[lo:mark - start])
                    if mark in marks:
                        yield mark, self

    def track(self, model: SensingModel, m: int, seed) -> OnlineSubspaceTracker:
        """Absorb sensors n_sensors_ + 1 .. m of the stream (model, seed); returns self."""
        for _ in self.iterate(model, m, seed, [m]):
            pass
        return self


def esprit(U: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ESPRIT (Roy-Kailath 1989) on a signal subspace U (n, d): frequencies in [0, 1) and
    the moduli |z_k| of the rotational eigenvalues (near 1 for true components)."""
    U = finite_array("U", U, owner="esprit", complex_ok=True)
    require(U.shape[0] >= 2 and U.shape[1] >= 1, f"esprit: U must have at least 2 rows and 1 column, got {U.shape}")
    U1, U2 = U[:-1], U[1:]
    Phi = np.linalg.lstsq(U1, U2, rcond=None)[0]
    z = np.linalg.eigvals(Phi)
    return np.mod(np.angle(z) / (2 * np.pi), 1.0), np.abs(z)
