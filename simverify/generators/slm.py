"""Instance distributions of the second order linear model (Lin, Qiu, Hong, Ye 2022), Section 5.1.

Each coordinate of x is drawn i.i.d. from a raw distribution and standardised with its exact mean and
standard deviation, so that E x = 0 and E x^2 = 1 as Section 2 assumes. The third and fourth moments
kappa = E x^3 and phi = E x^4 of the standardised coordinate, and the MIP constant
tau = |phi - 1 - kappa^2| (Definition 1), are exact where a formula exists.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import erf, exp, pi, sqrt

import numpy as np

from ..kernels.jit import one_blas_thread
from ..kernels.rng import N_SLOTS, as_seed_sequence, n_chunks
from ..kernels.slm import (
    BLOCKED_MIN_D,
    INSTANCE_CHUNK,
    draw_instances_into,
    feature_block,
    power_sum_slots,
    residual_moment_blocks,
    residual_moment_slots,
)
from ..kernels.streams import stream_states
from ..validation import finite_matrix, positive_int, real_number, require

# Codes shared with kernels.slm.draw_instance (the kernel cannot take Python objects).
GAUSSIAN, TRUNCATED_GAUSSIAN, BERNOULLI, UNIFORM, TWO_POINT_JITTER = 0, 1, 2, 3, 4


def _normal_pdf(a: float) -> float:
    return exp(-0.5 * a * a) / sqrt(2.0 * pi)


def _normal_cdf(a: float) -> float:
    return 0.5 * (1.0 + erf(a / sqrt(2.0)))


def truncated_gaussian_raw_moments(a: float) -> tuple[float, float, float, float]:
    """E min(Z, a)^r for r = 1..4, Z ~ N(0, 1): the partial moments of Z below a plus a^r P(Z > a)."""
    p, c = _normal_pdf(a), _normal_cdf(a)
    below = (-p, c - a * p, -(a * a + 2.0) * p, 3.0 * c - (a ** 3 + 3.0 * a) * p)  # int_{-inf}^a z^r phi(z) dz
    return tuple(below[r - 1] + a ** r * (1.0 - c) for r in range(1, 5))


def standardised_moments(m1: float, m2: float, m3: float, m4: float) -> tuple[float, float, float, float]:
    """(mean, sd, kappa, phi) of (v - mean) / sd from the raw moments E v^r, r = 1..4."""
    var = m2 - m1 ** 2
    require(var > 0.0, "the distribution is degenerate (zero variance)")
    sd = sqrt(var)
    mu3 = m3 - 3.0 * m1 * m2 + 2.0 * m1 ** 3
    mu4 = m4 - 4.0 * m1 * m3 + 6.0 * m1 ** 2 * m2 - 3.0 * m1 ** 4
    return m1, sd, mu3 / sd ** 3, mu4 / var ** 2


@dataclass(frozen=True)
class FeatureDistribution:
    """One coordinate's distribution: ``name`` in {"gaussian", "truncated_gaussian" (min(z, a), param a),
    "bernoulli" (P(v = 1) = q, param q), "uniform" (on [-1, 1]), "two_point_jitter" (s + eps z with s = +-1
    equally likely, z ~ N(0, 1), param eps: tau = (4 eps^2 + 2 eps^4) / (1 + eps^2)^2 runs from 0 (eps = 0,
    not MIP) upwards)}, standardised to mean 0, variance 1."""
    name: str
    param: float = 0.0

    def __post_init__(self):
        require(isinstance(self.name, str) and self.name in _RAW_MOMENTS,
                f"unknown distribution {self.name!r}; known: {', '.join(sorted(_RAW_MOMENTS))}")
        lo, hi = _PARAM_RANGE[self.name]
        object.__setattr__(self, "param", real_number(f"{self.name}'s parameter", self.param, lo, hi))
        if self.name == "bernoulli":
            require(0.0 < self.param < 1.0, f"bernoulli's q must lie in (0, 1), got {self.param!r}")

    @property
    def code(self) -> int:
        return _CODES[self.name]

    @property
    def moments(self) -> tuple[float, float, float, float]:
        """(raw mean, raw sd, kappa, phi): the standardisation and the standardised third and fourth moments."""
        return standardised_moments(*_RAW_MOMENTS[self.name](self.param))

    @property
    def kappa(self) -> float:
        return self.moments[2]

    @property
    def phi(self) -> float:
        return self.moments[3]

    @property
    def tau(self) -> float:
        """Definition 1's MIP constant |phi - 1 - kappa^2| (0 for every Bernoulli: not MIP)."""
        _, _, kappa, phi = self.moments
        return abs(phi - 1.0 - kappa ** 2)


def _bernoulli_raw(q: float) -> tuple[float, float, float, float]:
    return q, q, q, q  # v in {0, 1}: every power of v is v


def _two_point_jitter_raw(eps: float) -> tuple[float, float, float, float]:
    e2 = eps * eps
    return 0.0, 1.0 + e2, 0.0, 1.0 + 6.0 * e2 + 3.0 * e2 * e2


def two_point_jitter_for_tau(tau: float) -> float:
    """The eps of "two_point_jitter" whose MIP constant is tau in (0, 2): (4 e + 2 e^2) / (1 + e)^2 = tau, e = eps^2."""
    tau = real_number("tau", tau, 0.0, 2.0)
    require(0.0 < tau < 2.0, f"tau must lie in (0, 2), got {tau}")
    # (2 - tau) e^2 + (4 - 2 tau) e - tau = 0  =>  e = -1 + sqrt(1 + tau / (2 - tau))
    return sqrt(-1.0 + sqrt(1.0 + tau / (2.0 - tau)))


_RAW_MOMENTS = {
    "gaussian": lambda _: (0.0, 1.0, 0.0, 3.0),
    "truncated_gaussian": truncated_gaussian_raw_moments,
    "bernoulli": _bernoulli_raw,
    "uniform": lambda _: (0.0, 1.0 / 3.0, 0.0, 1.0 / 5.0),
    "two_point_jitter": _two_point_jitter_raw,
}
DISTRIBUTIONS = tuple(_RAW_MOMENTS)  # the names FeatureDistribution accepts
_PARAM_RANGE = {"gaussian": (0.0, 0.0), "truncated_gaussian": (-5.0, 10.0), "bernoulli": (0.0, 1.0),
                "uniform": (0.0, 0.0), "two_point_jitter": (0.0, 10.0)}
_CODES = {"gaussian": GAUSSIAN, "truncated_gaussian": TRUNCATED_GAUSSIAN, "bernoulli": BERNOULLI,
          "uniform": UNIFORM, "two_point_jitter": TWO_POINT_JITTER}


def _stream_args(dist: FeatureDistribution, d, n, seed):
    d = positive_int("d", d)
    n = positive_int("n", n)
    mean, sd, _, _ = dist.moments
    states = stream_states(seed, n_chunks(n, INSTANCE_CHUNK))  # one xoshiro256++ stream per chunk
    return states, d, dist.code, dist.param, mean, sd, n, INSTANCE_CHUNK


def feature_instances(dist: FeatureDistribution, d: int, n: int, seed) -> tuple[np.ndarray, np.ndarray]:
    """The first n instances of the stream: X (n, d) standardised features and the noise normals (n,)."""
    return feature_block(*_stream_args(dist, d, n, seed))


def feature_power_means(dist: FeatureDistribution, d: int, n: int, seed) -> np.ndarray:
    """(4, d): the sample means of x, x^2, x^3, x^4 per coordinate over the same n instances, streamed."""
    slots = power_sum_slots(*_stream_args(dist, d, n, seed), N_SLOTS)
    return slots.sum(axis=0) / n


@dataclass(frozen=True)
class FeatureView:
    """What a solver sees of the exactly standardised x: scale * x + shift, with scale, shift (d,). Without the
    zero-mean/unit-variance oracle (Section 5.1) a solver standardises with a sample's mean and variance."""
    scale: np.ndarray
    shift: np.ndarray

    @classmethod
    def estimated(cls, power_means: np.ndarray) -> FeatureView:
        """Standardisation by the sample mean and variance: power_means (4, d) from :func:`feature_power_means`."""
        m1, m2 = power_means[0], power_means[1]
        sd = np.sqrt(m2 - m1 ** 2)
        return cls(1.0 / sd, -m1 / sd)

    def apply(self, X: np.ndarray) -> np.ndarray:
        """X (n, d) as the solver sees it."""
        return X * self.scale + self.shift


def sample_standardised_moments(power_means: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """kappa, phi (d,) of the sample standardised by its own mean and variance, from power_means (4, d)."""
    m1, m2, m3, m4 = power_means
    mu2 = m2 - m1 ** 2
    mu3 = m3 - 3 * m1 * m2 + 2 * m1 ** 3
    mu4 = m4 - 4 * m1 * m3 + 6 * m1 ** 2 * m2 - 3 * m1 ** 4
    return mu3 / mu2 ** 1.5, mu4 / mu2 ** 2


@dataclass(frozen=True)
class SecondOrderModel:
    """y = x^T w* + x^T M* x + noise * xi (Eq. 1) with x from ``dist`` and M* = U* diag(s*) U*^T, minus its
    diagonal when ``diag_free`` (Section 3.1). w_star (d,), U_star (d, r), s_star (r,)."""
    dist: FeatureDistribution
    w_star: np.ndarray
    U_star: np.ndarray
    s_star: np.ndarray
    diag_free: bool = False
    noise: float = 0.0

    def __post_init__(self):
        require(isinstance(self.dist, FeatureDistribution), "dist must be a FeatureDistribution")
        w = finite_matrix("w_star", self.w_star, ndim=1)
        U = finite_matrix("U_star", self.U_star)
        s = finite_matrix("s_star", self.s_star, ndim=1)
        require(U.shape[0] == w.size and U.shape[1] == s.size,
                f"U_star must be (d, r) = ({w.size}, {s.size}), got {U.shape}")
        require(isinstance(self.diag_free, bool), f"diag_free must be a bool, got {self.diag_free!r}")
        object.__setattr__(self, "w_star", w)
        object.__setattr__(self, "U_star", U)
        object.__setattr__(self, "s_star", s)
        object.__setattr__(self, "noise", real_number("noise", self.noise, 0.0))

    @property
    def d(self) -> int:
        return self.w_star.size

    @property
    def diag_star(self) -> np.ndarray:
        """(d,): the diagonal removed from U* diag(s*) U*^T (zeros unless diag_free)."""
        if not self.diag_free:
            return np.zeros(self.d)
        return (self.U_star ** 2) @ self.s_star

    @property
    def M_star(self) -> np.ndarray:
        """M* (d, d), dense (for metrics and references; the kernels use the factors)."""
        return (self.U_star * self.s_star) @ self.U_star.T - np.diag(self.diag_star)


def low_rank_model(d: int, k: int, dist: FeatureDistribution, seed, *, diag_free: bool = False,
                   noise: float = 0.0) -> SecondOrderModel:
    """Section 5.1: U (d, k) with U^T U = I, M* = U U^T (diagonal-free: minus its diagonal), w* ~ N(0, I/d)."""
    d, k = positive_int("d", d), positive_int("k", k)
    require(k <= d, f"k must be at most d, got k = {k} > d = {d}")
    s_u, s_w = as_seed_sequence(seed).spawn(2)
    U, _ = np.linalg.qr(np.random.default_rng(s_u).standard_normal((d, k)))
    w = np.random.default_rng(s_w).standard_normal(d) / np.sqrt(d)
    return SecondOrderModel(dist, w, U, np.ones(k), diag_free, noise)


LABEL_BLOCK = 8192  # instances labelled at a time by slm_instances


def slm_instances(model: SecondOrderModel, n: int, seed, order: str = "C") -> tuple[np.ndarray, np.ndarray]:
    """The first n instances materialised: X (n, d) and labels y (n,) (for baselines and tests). ``order`` "F"
    stores X column by column (for a solver that reads columns: no copy), "C" row by row; the same numbers."""
    require(order in ("C", "F"), f"order must be 'C' or 'F', got {order!r}")
    n = positive_int("n", n)
    try:  # before the streams: a size that cannot be held is refused at once
        X, xi, y = np.empty((n, model.d), order=order), np.empty(n), np.empty(n)
    except (MemoryError, ValueError):  # ValueError: past what an array can index
        raise ValueError(f"slm_instances: {n} instances of {model.d} features do not fit in memory "
                         f"({8.0 * n * model.d / 2 ** 30:.3g} GiB)") from None
    states, d, code, param, mean, sd, n, chunk = _stream_args(model.dist, model.d, n, seed)
    draw_instances_into(states, X, xi, code, param, mean, sd, chunk)
    with one_blas_thread():  # the same labels for any BLAS thread count
        _label_instances(model, X, y)
    y += model.noise * xi
    return X, y


def _label_instances(model: SecondOrderModel, X: np.ndarray, y: np.ndarray) -> None:
    """y (n,) = x^T w* + x^T M* x for the rows of X (n, d), without the noise."""
    n = X.shape[0]
    for s in range(0, n, LABEL_BLOCK):  # O(n d r) by row blocks, each C-ordered, with
        B = np.ascontiguousarray(X[s:s + LABEL_BLOCK])  # x^T M* x = sum_j s*_j (x^T u*_j)^2 - x^T D(diag*) x
        quad = ((B @ model.U_star) ** 2) @ model.s_star - (B ** 2) @ model.diag_star
        y[s:s + LABEL_BLOCK] = B @ model.w_star + quad


def factor_columns(*parts: np.ndarray) -> np.ndarray:
    """Vectors (d,) and factor matrices (d, m) side by side as one C-contiguous (d, total) matrix: the form the
    kernels take a factor set in (e.g. [w, U, V] for x^T w and the projections x^T u_j, x^T v_j)."""
    return np.ascontiguousarray(np.column_stack([np.asarray(p, dtype=float) for p in parts]))


def residual_moments(model: SecondOrderModel, n: int, seed, w: np.ndarray, U: np.ndarray, V: np.ndarray,
                     diag: np.ndarray | None = None, view: FeatureView | None = None,
                     ) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    """One streamed pass over the n instances of ``seed`` with z = yhat - y, yhat = x^T w + x^T (U V^T - D(diag)) x,
    U, V (d, q): (A'(z) U / n (d, q), P0 = 1^T z / n, P1 = X z / n (d,), P2 = X^2 z / n - P0 (d,)) (Algorithm 1,
    step 1). A product A'(z) Q with another Q follows from U = Q, V = 0 (then yhat = x^T w). With ``view``, yhat
    and the sums use the solver's features view.scale * x + view.shift (the labels the exact x)."""
    states, d, code, param, mean, sd, n, chunk = _stream_args(model.dist, model.d, n, seed)
    diag = np.zeros(d) if diag is None else diag
    scale, shift = (np.empty(0), np.empty(0)) if view is None else (view.scale, view.shift)

    args = (states, code, param, mean, sd, n, chunk, N_SLOTS, factor_columns(model.w_star, model.U_star),
            model.s_star, model.diag_star, model.noise, factor_columns(w, U, V), np.ascontiguousarray(diag, float),
            scale, shift)
    if d >= BLOCKED_MIN_D:  # large d: the projections and the update as matrix products
        with one_blas_thread():
            AU, P0, P = residual_moment_blocks(*args)
    else:
        AU, P0, P = residual_moment_slots(*args)
    p0 = P0.sum() / n
    P = P.sum(axis=0) / n
    return AU.sum(axis=0) / n, p0, P[0], P[1] - p0
