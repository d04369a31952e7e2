"""The factorization machine baseline of Lin, Qiu, Hong, Ye (2022), Section 5: the model of Rendle (2010),
yhat = w0 + x^T w + sum_{a<b} <v_a, v_b> x_a x_b, fitted by alternating least squares as fastFM does (zero
regularisation by default, as in Section 5.1), as a scikit-learn estimator. In SLM terms its second-order
matrix is M = (V V^T - D(V V^T)) / 2 (``M_``): no diagonal can be represented."""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..generators.slm import factor_columns
from ..kernels.fm import als_sweep, pairwise_predictions, sum_of_squares
from ..kernels.jit import one_blas_thread
from ..kernels.rng import as_seed_sequence
from ..kernels.slm import second_order_predictions
from ..validation import (
    Integer,
    ParamsMixin,
    Real,
    Seed,
    check_fitted,
    check_n_features,
    finite_matrix,
    require,
    validate_params,
)


class FactorizationMachine(ParamsMixin):
    """Rank-``rank`` factorization machine fitted by ALS sweeps.

    Each sweep updates w0, then each w_a, then each v_(a,f), every coordinate to the exact minimiser of
    (1/2) sum_i (yhat_i - y_i)^2 + (l2_reg_w / 2) ||w||^2 + (l2_reg_V / 2) ||V||_F^2 (w0 is not penalised), from
    w0 = 0, w = 0 and V with N(0, init_stdev^2) entries.

    Parameters
    ----------
    rank : int, default=8
        The rank of V, an integer >= 1 and at most the number of features d (checked by fit).
    n_iter : int, default=50
        The most ALS sweeps, an integer >= 1.
    tol : float, default=1e-8
        A finite number >= 0: fit stops after a sweep that lowers the training mean squared error by less than tol
        (Section 5.1's rule).
    init_stdev : float, default=0.1
        A finite number >= 0: the standard deviation of the random start of V.
    l2_reg_w : float, default=0.0
        A finite number >= 0: the l2 penalty on w (0: the paper's unregularised baseline).
    l2_reg_V : float, default=0.0
        A finite number >= 0: the l2 penalty on V.
    random_state : int, numpy.random.SeedSequence or list of int, default=0
        The root seed of V's start: an integer >= 0, a SeedSequence or a non-empty list of integers >= 0 (not None).

    Attributes
    ----------
    w0_ : float
        The bias.
    w_ : ndarray of shape (d,)
        The linear weights.
    V_ : ndarray of shape (d, rank)
        The factors: the interaction of features a and b is <V_[a], V_[b]>.
    M_ : ndarray of shape (d, d)
        (V V^T - D(V V^T)) / 2: the interactions as a symmetric matrix with zero diagonal (a property).
    n_iter_ : int
        The number of sweeps run.
    train_mse_ : ndarray of shape (n_iter_ + 1,)
        The training mean squared error before and after each sweep.

    References
    ----------
    .. [1] Rendle (2010), Factorization Machines, ICDM.

    Examples
    --------
    >>> import numpy as np
    >>> from simverify.solvers.factorization_machine import FactorizationMachine
    >>> X = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 1.0], [1.0, 1.0, 0.0], [2.0, 1.0, 1.0], [0.0, 2.0, 1.0],
    ...               [1.0, 2.0, 2.0], [2.0, 0.0, 1.0], [1.0, 1.0, 1.0]])
    >>> y = 1.0 + X[:, 0] + 2.0 * X[:, 1] * X[:, 2]  # an FM with w0 = 1, w = (1, 0, 0), <V[1], V[2]> = 2
    >>> fm = FactorizationMachine(rank=2, n_iter=200).fit(X, y)
    >>> fm.V_.shape, fm.M_.shape
    ((3, 2), (3, 3))
    >>> np.round(fm.predict(X[:3]), 1).tolist(), y[:3].tolist()
    ([2.0, 3.0, 2.0], [2.0, 3.0, 2.0])
    >>> round(float(fm.M_[1, 2]), 1)  # x^T M_ x = sum_{a<b} <V[a], V[b]> x_a x_b, so M_[1, 2] = 2 / 2
    1.0
    """
    _parameter_constraints = {"rank": Integer(1), "n_iter": Integer(1), "tol": Real(0.0), "init_stdev": Real(0.0),
                              "l2_reg_w": Real(0.0), "l2_reg_V": Real(0.0), "random_state": Seed()}

    def __init__(self, rank: int = 8, n_iter: int = 50, tol: float = 1e-8, init_stdev: float = 0.1,
                 l2_reg_w: float = 0.0, l2_reg_V: float = 0.0, random_state=0):
        self.rank = rank
        self.n_iter = n_iter
        self.tol = tol
        self.init_stdev = init_stdev
        self.l2_reg_w = l2_reg_w
        self.l2_reg_V = l2_reg_V
        self.random_state = random_state

    def _validated(self, X, y) -> tuple[np.ndarray, np.ndarray]:
        validate_params(self)
        owner = type(self).__name__
        X = finite_matrix("X", X, owner=owner, order="F")  # read column by column: no copy of an F-ordered X
        y = finite_matrix("y", y, ndim=1, owner=owner)
        require(X.shape[0] == y.size, f"{owner}: X has {X.shape[0]} rows but y has {y.size} labels")
        require(X.shape[0] >= 1, f"{owner}: X has no rows")
        require(self.rank <= X.shape[1],
                f"{owner}: rank must be at most the number of features {X.shape[1]}, got {self.rank}")
        return X, y

    def iterate(self, X: np.ndarray, y: np.ndarray) -> Iterator[tuple[int, FactorizationMachine]]:
        """Yields (t, self) after t sweeps, t = 0 (the random start) .. n_iter, stopping early when the training
        MSE falls by less than ``tol`` in a sweep (Section 5.1's rule). X (n, d), y (n,). ALS reads X column by
        column: an X in Fortran order (``np.asfortranarray``) is used as it is, any other is copied once."""
        X, y = self._validated(X, y)
        n, d = X.shape
        Xc = X.T  # (d, n), C-contiguous: one row per feature
        rng = np.random.default_rng(as_seed_sequence(self.random_state))
        self.w0_, self.w_ = 0.0, np.zeros(d)
        self.V_ = self.init_stdev * rng.standard_normal((d, self.rank))
        with one_blas_thread():  # the same start for any BLAS thread count
            Qt = self.V_.T @ Xc  # (rank, n): one contiguous row per factor
        e = pairwise_predictions(Xc, Qt, self.V_) - y  # w0 = 0, w = 0: the pairwise part only
        mse = [sum_of_squares(e) / n]
        self.n_iter_, self.train_mse_ = 0, np.array(mse)
        yield 0, self
        for t in range(1, self.n_iter + 1):
            self.w0_ = als_sweep(Xc, e, Qt, self.w0_, self.w_, self.V_, 0.0, self.l2_reg_w, self.l2_reg_V)
            mse.append(sum_of_squares(e) / n)
            self.n_iter_, self.train_mse_ = t, np.array(mse)
            yield t, self
            if mse[-2] - mse[-1] < self.tol:
                break

    def fit(self, X: np.ndarray, y: np.ndarray) -> FactorizationMachine:
        for _ in self.iterate(X, y):
            pass
        return self

    @property
    def M_(self) -> np.ndarray:
        """(d, d): the pairwise interactions as a symmetric matrix, x^T M_ x = sum_{a<b} <v_a, v_b> x_a x_b."""
        G = self.V_ @ self.V_.T
        return (G - np.diag(np.diag(G))) / 2.0

    def predict(self, X: np.ndarray) -> np.ndarray:
        """(n,) predictions for X (n, d), d the number of features ``fit`` saw (refused otherwise: the kernel indexes
        the model's arrays with X's columns)."""
        validate_params(self)
        check_fitted(self, "w0_", "w_", "V_")
        X = finite_matrix("X", X, owner=type(self).__name__)
        check_n_features(type(self).__name__, X, self.w_.size)
        Wt = factor_columns(self.w_, self.V_, self.V_ / 2.0)  # sum_{a<b} = (XV)^2 / 2 - diag
        empty = np.empty(0)
        return second_order_predictions(X, float(self.w0_), Wt, (self.V_ ** 2).sum(axis=1) / 2.0, empty, empty)
