"""Non-negative matrix factorization solvers: AND (Li & Liang 2017, Algorithm 1) and the competitors of its
Section 7, as scikit-learn style estimators (``__init__`` stores parameters; ``fit``; trailing-underscore
attributes).

Layout: ``fit(X)`` takes scikit-learn's X (n_samples N, n_features W); internally Y = X^T (W, N) and the
feature matrix A (W, D), the paper's layout, with ``components_`` = A^T (D, W). Every estimator also has
``iterate(X)``, a generator of ``(t, A)`` (docs/iteration.md): t counts stages for AND and sweeps (epochs) for
the others, t = 0 being the start; A (W, D) is the live matrix (copy it to keep it).
"""
from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ..kernels.nmf import gradient_steps, hals_update, multiplicative_update, online_steps, threshold_in_place
from ..validation import (
    ArrayLike,
    Boolean,
    Integer,
    IsCallable,
    Options,
    ParamsMixin,
    Real,
    finite_matrix,
    is_real,
    real_number,
    require,
    validate_params,
    warn,
)

SINGULAR_COND = 1e12  # a starting matrix whose condition number exceeds this is refused as singular
MAX_STEPS = 10 ** 9  # stages, steps or sweeps: more would run for years


@dataclass(frozen=True)
class ConstantThreshold:
    """alpha_i = alpha in every stage (Theorems 1 and 5: alpha = 1/4; Figure 2's 'constant threshold c')."""
    alpha: float = 0.25

    def __call__(self, stage: int, A0: np.ndarray) -> float:
        return self.alpha


@dataclass(frozen=True)
class NoThreshold:
    """No thresholding at all, z = A^(0)+ y (Section 5.1: no progress once A and A* share a subspace); unlike
    alpha = 0, which still sets the negative decodings to zero."""

    def __call__(self, stage: int, A0: np.ndarray) -> float:
        return -math.inf


@dataclass(frozen=True)
class GeometricThreshold:
    """alpha_i = alpha0 / rate^(i-1), i = 1, 2, ... (Section 7: alpha0 = 0.1, rate = 1.1)."""
    alpha0: float = 0.1
    rate: float = 1.1

    def __call__(self, stage: int, A0: np.ndarray) -> float:
        try:
            return self.alpha0 / self.rate ** stage
        except OverflowError:  # rate ** stage past the largest float (stage ~7450 at rate 1.1): alpha has reached 0
            return 0.0


@dataclass(frozen=True)
class TheoryThreshold:
    """alpha = (lambda ||E0||_2 / r)^(2/(q+1)) (after Theorem 4), E0 the off-diagonal part of A*^+ A0 at the
    stage's start: an oracle schedule (it reads A* (W, D)), floored at ``floor`` so it never reaches 0."""
    A_star: np.ndarray
    lam: float
    r: float
    q: float
    floor: float = 1e-12

    def __call__(self, stage: int, A0: np.ndarray) -> float:
        M = np.linalg.lstsq(self.A_star, A0, rcond=None)[0]
        E0 = M - np.diag(np.diag(M))
        return max(self.floor, (self.lam * np.linalg.norm(E0, 2) / self.r) ** (2.0 / (self.q + 1.0)))


def last_iterate(iterates) -> tuple[int, np.ndarray]:
    """The final (t, A) of an ``iterate`` generator (what ``fit`` keeps)."""
    t, A = 0, None
    for t, A in iterates:  # noqa: B007  the loop runs the solver; the last pair is the result
        pass
    return t, A


def phi_alpha(M: np.ndarray, alpha: float) -> np.ndarray:
    """phi_alpha(M) (Section 1.1.1): a copy of the 2-d M with entries below alpha (and NaN) set to 0."""
    Z = np.array(M, dtype=np.float64, order="C")
    threshold_in_place(Z, float(alpha))
    return Z


def stage_products(P: np.ndarray, Y: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One batch stage's fixed quantities (Algorithm 1 lines 4-5): Z = phi_alpha(P Y) (D, N) with P = A0^+ (D, W),
    and the products Y Z^T / N (W, D) and Z Z^T / N (D, D) the stage's gradient steps use."""
    Z = P @ Y
    threshold_in_place(Z, alpha)
    N = Y.shape[1]
    return Z, Y @ Z.T / N, Z @ Z.T / N


def data_matrix(X) -> np.ndarray:
    """Y (W, N) from scikit-learn's X (N, W): finite real entries required."""
    return np.ascontiguousarray(finite_matrix("X", X).T)


def non_negative_data(X) -> np.ndarray:
    """Y (W, N) as :func:`data_matrix`, refusing negative entries (the competitors model Y >= 0)."""
    Y = data_matrix(X)
    require(bool(np.all(Y >= 0.0)), "X has negative entries; this solver factorizes non-negative data")
    return Y


def starting_matrix(A0, Y: np.ndarray, n_components: int, owner: str = "") -> np.ndarray:
    """A0 (W, D) checked against Y (W, N): finite, matching W, D <= min(W, N), full column rank."""
    pre = f"{owner}: " if owner else ""
    require(A0 is not None, f"{pre}a starting matrix A0 (W, D) is needed")
    A0 = finite_matrix("A0", A0, owner=owner).copy()
    W, N = Y.shape
    require(A0.shape == (W, n_components), f"{pre}A0 must have shape (W, D) = {(W, n_components)}, got {A0.shape}")
    require(n_components <= min(W, N), f"{pre}rank D={n_components} exceeds min(W, N) = {min(W, N)}")
    s = np.linalg.svd(A0, compute_uv=False)
    require(s[-1] > 0 and s[0] / s[-1] < SINGULAR_COND,
            f"{pre}A0 is singular (condition number {s[0] / s[-1] if s[-1] > 0 else math.inf:.3g}): "
            "its pseudo-inverse decodes nothing")
    return A0


class AND(ParamsMixin):
    """Alternating Non-negative gradient Descent (Algorithm 1).

    Per stage j: P = A^(0)+ (D, W) from the stage's starting matrix; decode z = phi_alpha_j(P y); T gradient
    steps A <- A + eta (y - A z) z^T. ``batch=True`` (Section 7: the whole dataset per step, the update
    averaged over the N samples) or False (one sample per step, cycling through the columns of Y in order).
    ``eta="auto"``: in batch mode 1 / lambda_max(Z Z^T / N), the stage quadratic's 1/L step; online,
    1 / max ||z||^2 over the stage's decodings. ``threshold``: a schedule (stage, A^(0)) -> alpha, or a number
    (constant). A numeric eta above 2 / L (L = lambda_max(Z Z^T / N) in batch mode, max ||z||^2 online), where the
    gradient steps diverge, draws a RuntimeWarning (once per run).

    Parameters
    ----------
    n_components : int
        D, the number of features learned: an integer >= 1, at most min(W, N).
    A0 : array-like of shape (W, D) or None, default=None
        The starting matrix: finite, of full column rank (condition number below 1e12). Required in practice: fit
        refuses None.
    threshold : float, callable or None, default=None
        The decoding threshold alpha of each stage: a number in [0, 1e6] (the same in every stage), a schedule
        ``(stage, A) -> alpha`` called with the 0-based stage and the stage's starting matrix, whose values must lie
        in [0, 1e12] or be -inf (``ConstantThreshold``, ``GeometricThreshold``, ``NoThreshold``, ``TheoryThreshold``),
        or None: ``GeometricThreshold()``, alpha = 0.1 / 1.1^(i-1) in stage i = 1, 2, ... (Section 7).
    n_stages : int, default=50
        The number of stages, an integer in [1, 1e9].
    T : int, default=50
        Gradient steps per stage, an integer in [1, 1e9] (online: the samples of a stage, cycling through X's rows).
    eta : float or 'auto', default='auto'
        The step size, a number in (0, 1e6], or 'auto' (see above).
    batch : bool, default=True
        True: each step on the whole data set (Section 7); False: one sample per step.

    Attributes
    ----------
    A_ : ndarray of shape (W, D)
        The feature matrix after the last stage (the paper's layout).
    components_ : ndarray of shape (D, W)
        ``A_.T`` (scikit-learn's layout).
    alphas_ : list of float
        The threshold each stage used (-inf for ``NoThreshold``).
    n_iter_ : int
        The number of stages run (n_stages).

    References
    ----------
    .. [1] Li, Liang (2017), Provable Alternating Gradient Descent for Non-negative Matrix Factorization with Strong
       Correlations, ICML (arXiv:1706.04097).

    Examples
    --------
    >>> import numpy as np
    >>> from simverify.solvers.nmf import AND
    >>> from simverify.solvers.nmf_examples import example_factors
    >>> A, Z, X = example_factors()  # W = 4 features, D = 2 topics, X: N = 6 samples x W
    >>> A0 = A + 0.2  # a start near A
    >>> est = AND(2, A0=A0, n_stages=20).fit(X)
    >>> est.components_.shape, est.n_iter_, round(est.alphas_[0], 3)
    ((2, 4), 20, 0.1)
    >>> scaled = est.A_ / est.A_.max(axis=0)  # A is identified up to the scale of its columns
    >>> bool(np.allclose(scaled, A / A.max(axis=0), atol=0.01))
    True
    """
    _parameter_constraints = {
        "n_components": Integer(1), "A0": [ArrayLike(), None],
        "threshold": [Real(0.0, 1e6), IsCallable("a schedule"), None], "n_stages": Integer(1, MAX_STEPS),
        "T": Integer(1, MAX_STEPS),
        "eta": [Real(0.0, 1e6, closed="right"), Options("auto")], "batch": Boolean(),
    }

    def __init__(self, n_components: int, A0=None, threshold=None, n_stages: int = 50, T: int = 50,
                 eta="auto", batch: bool = True):
        self.n_components = n_components
        self.A0 = A0
        self.threshold = threshold
        self.n_stages = n_stages
        self.T = T
        self.eta = eta
        self.batch = batch

    def _schedule(self):
        t = GeometricThreshold() if self.threshold is None else self.threshold
        return t if callable(t) else ConstantThreshold(float(t))  # a number (validate_params checked it)

    def _diverging_step(self, stage: int, lipschitz: float) -> None:
        """Warn (once per run) that the numeric eta exceeds 2 / L, the bound past which the steps diverge."""
        if self._step_warned or self.eta == "auto" or not float(self.eta) * lipschitz > 2.0:
            return
        self._step_warned = True
        mode = "lambda_max(Z Z^T / N)" if self.batch else "max ||z||^2"
        warn("AND", f"eta={self.eta!r} exceeds 2 / L = {2.0 / lipschitz:.3g} (L = {mode}) at stage {stage + 1}, so "
             "the gradient steps diverge and A grows without bound; use eta='auto' or a smaller eta")

    def iterate(self, X) -> Iterator[tuple[int, np.ndarray]]:
        """Yield (j, A) after each stage j = 1..n_stages, and (0, A0) first."""
        validate_params(self)
        Y = data_matrix(X)
        A = starting_matrix(self.A0, Y, self.n_components, owner="AND")
        schedule = self._schedule()
        self._step_warned = False
        self.alphas_ = []
        yield 0, A
        for j in range(self.n_stages):
            alpha = schedule(j, A)
            require(is_real(alpha), f"AND: the threshold schedule returned {alpha!r} at stage {j + 1}; it must return "
                    "a number")
            alpha = float(alpha)
            if alpha != -math.inf:
                real_number(f"threshold of stage {j + 1}", alpha, 0.0, 1e12)
            try:
                P = np.linalg.pinv(A)  # Algorithm 1 line 5: the stage's decoding matrix
            except np.linalg.LinAlgError:
                what = f"its largest entry is {np.abs(A).max():.3g}" if np.all(np.isfinite(A)) else "non-finite entries"
                raise ValueError(f"AND: the pseudo-inverse of stage {j + 1}'s matrix did not converge ({what}): "
                                 "rescale X") from None
            if self.batch:
                self._batch_stage(A, P, Y, alpha, j)
            else:
                self._online_stage(A, P, Y, alpha, j)
            self.alphas_.append(alpha)
            yield j + 1, A

    def _batch_stage(self, A, P, Y, alpha, stage):
        _, YZt, ZZt = stage_products(P, Y, alpha)
        top = np.linalg.eigvalsh(ZZt)[-1]
        if top <= 0.0:  # every decoding thresholded to zero: no gradient
            return
        self._diverging_step(stage, top)
        eta = 1.0 / top if self.eta == "auto" else float(self.eta)
        gradient_steps(A, YZt, ZZt, eta, self.T)

    def _online_stage(self, A, P, Y, alpha, stage):
        N = Y.shape[1]
        cols = (stage * self.T + np.arange(self.T)) % N
        Ys = np.ascontiguousarray(Y[:, cols])
        Z = P @ Ys
        threshold_in_place(Z, alpha)
        top = float((Z ** 2).sum(axis=0).max())
        if self.eta == "auto":
            eta = 1.0 / top if top > 0 else 0.0
        else:
            self._diverging_step(stage, top)
            eta = float(self.eta)
        online_steps(A, np.ascontiguousarray(P), Ys, alpha, eta)

    def fit(self, X, y=None) -> AND:
        """Run every stage; sets A_ (W, D), components_ (D, W), alphas_ (the thresholds used), n_iter_."""
        self.n_iter_, self.A_ = last_iterate(self.iterate(X))
        self.components_ = self.A_.T
        return self


class _Alternating(ParamsMixin):
    """Shared shape of the competitors: Z0 = NNLS(A0, Y) (as in the paper's code), then sweeps. Solvers whose
    updates need Y >= 0 (multiplicative ones) refuse negative data; HALS and ANLS constrain only A and Z."""
    needs_non_negative_data = True
    _parameter_constraints = {"n_components": Integer(1), "A0": [ArrayLike(), None], "max_iter": Integer(1, MAX_STEPS),
                              "eps": Real(0.0, 1.0)}

    def __init__(self, n_components: int, A0=None, max_iter: int = 200, eps: float = 1e-10):
        self.n_components = n_components
        self.A0 = A0
        self.max_iter = max_iter
        self.eps = eps

    def _start(self, X):
        validate_params(self)
        Y = non_negative_data(X) if self.needs_non_negative_data else data_matrix(X)
        A = np.maximum(starting_matrix(self.A0, Y, self.n_components, owner=type(self).__name__), 0.0)
        empty = np.flatnonzero(~np.any(A > 0.0, axis=0))
        require(empty.size == 0, f"{type(self).__name__}: A0 column {int(empty[0]) if empty.size else 0} has "
                "no positive entry, so max(A0, 0) starts it at zero: give each column a positive entry")
        return Y, A, self._decode(A, Y)

    @staticmethod
    def _decode(A, Y):
        from ..kernels.nnls import nonnegative_least_squares
        return np.ascontiguousarray(nonnegative_least_squares(A, Y))

    def iterate(self, X) -> Iterator[tuple[int, np.ndarray]]:
        Y, A, Z = self._start(X)
        yield 0, A
        for t in range(1, self.max_iter + 1):
            self._sweep(Y, A, Z)
            self.Z_ = Z
            yield t, A

    def fit(self, X, y=None):
        """Run max_iter sweeps; sets A_ (W, D), components_ (D, W), Z_ (D, N), n_iter_."""
        self.n_iter_, self.A_ = last_iterate(self.iterate(X))
        self.components_ = self.A_.T
        return self


class MultiplicativeUpdate(_Alternating):
    """Lee & Seung (2001) multiplicative updates for ||Y - A Z||_F^2, from max(A0, 0) and Z0 = NNLS(max(A0, 0), Y).

    Fit refuses negative entries of X.

    Parameters
    ----------
    n_components : int
        D, the number of features learned: an integer >= 1, at most min(W, N).
    A0 : array-like of shape (W, D) or None, default=None
        The starting matrix: finite, of full column rank (condition number below 1e12). Required in practice: fit
        refuses None.
    max_iter : int, default=200
        The number of sweeps, an integer in [1, 1e9] (all are run: there is no tolerance).
    eps : float, default=1e-10
        A number in [0, 1]: added to the denominators of the updates.

    Attributes
    ----------
    A_ : ndarray of shape (W, D)
        The feature matrix after the last sweep (the paper's layout).
    components_ : ndarray of shape (D, W)
        ``A_.T`` (scikit-learn's layout).
    Z_ : ndarray of shape (D, N)
        The coefficients after the last sweep (``Z_.T`` is scikit-learn's ``W``).
    n_iter_ : int
        The number of sweeps run (max_iter).

    References
    ----------
    .. [1] Lee, Seung (2001), Algorithms for Non-negative Matrix Factorization, NIPS 13.

    Examples
    --------
    >>> import numpy as np
    >>> from simverify.solvers.nmf import MultiplicativeUpdate
    >>> from simverify.solvers.nmf_examples import example_factors
    >>> A, Z, X = example_factors()  # W = 4 features, D = 2 topics, X: N = 6 samples x W
    >>> A0 = A + 0.2  # a start near A
    >>> est = MultiplicativeUpdate(2, A0=A0).fit(X)
    >>> est.components_.shape, est.Z_.shape, est.n_iter_
    ((2, 4), (2, 6), 200)
    >>> round(float(np.linalg.norm(X - (est.A_ @ est.Z_).T) / np.linalg.norm(X)), 3)  # relative residual
    0.001
    """

    def _sweep(self, Y, A, Z):
        try:
            multiplicative_update(Y, A, Z, self.eps)
        except ZeroDivisionError:
            raise ValueError("MultiplicativeUpdate: a denominator A^T A Z + eps or A Z Z^T + eps is 0 (a zero row or "
                             f"column with eps = {self.eps!r}): use eps > 0") from None


class HALS(_Alternating):
    """Hierarchical alternating least squares (Cichocki et al. 2007): exact column-wise non-negative updates of
    A, then of Z's rows, from max(A0, 0) and Z0 = NNLS(max(A0, 0), Y).

    X may have negative entries (only A and Z are constrained).

    Parameters
    ----------
    n_components : int
        D, the number of features learned: an integer >= 1, at most min(W, N).
    A0 : array-like of shape (W, D) or None, default=None
        The starting matrix: finite, of full column rank (condition number below 1e12). Required in practice: fit
        refuses None.
    max_iter : int, default=200
        The number of sweeps, an integer in [1, 1e9] (all are run: there is no tolerance).
    eps : float, default=1e-10
        A number in [0, 1]: the floor of every updated entry of A and Z (each update is max(eps, ...)).

    Attributes
    ----------
    A_ : ndarray of shape (W, D)
        The feature matrix after the last sweep (the paper's layout).
    components_ : ndarray of shape (D, W)
        ``A_.T`` (scikit-learn's layout).
    Z_ : ndarray of shape (D, N)
        The coefficients after the last sweep (``Z_.T`` is scikit-learn's ``W``).
    n_iter_ : int
        The number of sweeps run (max_iter).

    References
    ----------
    .. [1] Cichocki, Zdunek, Amari (2007), Hierarchical ALS Algorithms for Nonnegative Matrix and 3D Tensor
       Factorization, ICA 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from simverify.solvers.nmf import HALS
    >>> from simverify.solvers.nmf_examples import example_factors
    >>> A, Z, X = example_factors()  # W = 4 features, D = 2 topics, X: N = 6 samples x W
    >>> A0 = A + 0.2  # a start near A
    >>> est = HALS(2, A0=A0).fit(X)
    >>> est.components_.shape, est.Z_.shape, est.n_iter_
    ((2, 4), (2, 6), 200)
    >>> round(float(np.linalg.norm(X - (est.A_ @ est.Z_).T) / np.linalg.norm(X)), 3)  # relative residual
    0.0
    """
    needs_non_negative_data = False

    def _sweep(self, Y, A, Z):
        hals_update(Y, A, Z, self.eps)


class ANLS(_Alternating):
    """Alternating non-negative least squares (Kim & Park 2008): A^T = NNLS(Z^T, Y^T), then Z = NNLS(A, Y).

    X may have negative entries (only A and Z are constrained). Each NNLS is solved exactly (to the gradient
    tolerance of ``kernels.nnls``) by block principal pivoting (Kim & Park 2011) warm-started from the factor's
    support after the previous sweep; Z0 = NNLS(max(A0, 0), Y) from zero. At W = 1000, D = 100, N = 5000 a sweep
    costs 2-3.5 HALS sweeps (docs/performance.md).

    Parameters
    ----------
    n_components : int
        D, the number of features learned: an integer >= 1, at most min(W, N).
    A0 : array-like of shape (W, D) or None, default=None
        The starting matrix: finite, of full column rank (condition number below 1e12). Required in practice: fit
        refuses None.
    max_iter : int, default=200
        The number of sweeps, an integer in [1, 1e9] (all are run: there is no tolerance).
    eps : float, default=1e-10
        A number in [0, 1]: not used by ANLS (accepted for the shared interface).

    Attributes
    ----------
    A_ : ndarray of shape (W, D)
        The feature matrix after the last sweep (the paper's layout).
    components_ : ndarray of shape (D, W)
        ``A_.T`` (scikit-learn's layout).
    Z_ : ndarray of shape (D, N)
        The coefficients after the last sweep (``Z_.T`` is scikit-learn's ``W``).
    n_iter_ : int
        The number of sweeps run (max_iter).

    References
    ----------
    .. [1] Kim, Park (2008), Nonnegative Matrix Factorization Based on Alternating Nonnegativity Constrained Least
       Squares and Active Set Method, SIAM J. Matrix Anal. Appl.
    .. [2] Kim, Park (2011), Fast Nonnegative Matrix Factorization: An Active-Set-Like Method and Comparisons,
       SIAM J. Sci. Comput.

    Examples
    --------
    >>> import numpy as np
    >>> from simverify.solvers.nmf import ANLS
    >>> from simverify.solvers.nmf_examples import example_factors
    >>> A, Z, X = example_factors()  # W = 4 features, D = 2 topics, X: N = 6 samples x W
    >>> A0 = A + 0.2  # a start near A
    >>> est = ANLS(2, A0=A0, max_iter=5).fit(X)
    >>> est.components_.shape, est.Z_.shape, est.n_iter_
    ((2, 4), (2, 6), 5)
    >>> round(float(np.linalg.norm(X - (est.A_ @ est.Z_).T) / np.linalg.norm(X)), 3)  # relative residual
    0.0
    """
    needs_non_negative_data = False

    def _sweep(self, Y, A, Z):
        from ..kernels.nnls import nnls_normal_equations
        # each half-step by block principal pivoting, warm-started from the factor's support after the last sweep
        A[:, :] = nnls_normal_equations(Z, Z.T, Y.T, 3 * self.n_components, start=A.T).T
        Z[:, :] = nnls_normal_equations(A.T, A, Y, 3 * self.n_components, start=Z)
