"""Chi (2018) "Subspace Learning From Bits": covariances and the one-bit sensor stream.

Shapes: a covariance Sigma (n x n) is always carried as a factor F (n x k),
Sigma = F F^H, so that sensing costs O(n k) per sensor and Sigma is never needed.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ..kernels import streams
from ..kernels.jit import one_blas_thread
from ..kernels.rng import n_chunks
from ..kernels.sensing import (
    SENSOR_CHUNK,
    bit_error_counts,
    projected_diagonal_sums,
    sense_chunk,
    sense_chunk_complex,
)
from ..validation import positive_int as _positive_int
from ..validation import require as _require


def orthonormal_basis(n: int, r: int, seed) -> np.ndarray:
    """U (n, r) with orthonormal columns, from the QR of a Gaussian matrix (Section 6.3)."""
    n, r = _positive_int("n", n), _positive_int("r", r)
    _require(r <= n, f"rank r={r} exceeds dimension n={n}")
    q, rr = np.linalg.qr(streams.standard_normal(seed, (n, r)))
    return q * np.sign(np.diag(rr))


def gaussian_factor(n: int, r: int, seed) -> np.ndarray:
    """X (n, r) with i.i.d. N(0, 1) entries; Sigma = X X^T (Section 6.1)."""
    n, r = _positive_int("n", n), _positive_int("r", r)
    _require(r <= n, f"rank r={r} exceeds dimension n={n}")
    return streams.standard_normal(seed, (n, r))


def sparse_unit_factor(n: int, support: int, seed) -> np.ndarray:
    """u (n, 1): unit vector with ``support`` entries +-1/sqrt(support) at uniformly random
    positions and signs, so Sigma = u u^T has support^2 non-zeros and ||Sigma||_1 = support."""
    n, support = _positive_int("n", n), _positive_int("support", support)
    _require(support <= n, f"support={support} exceeds dimension n={n}")
    g = streams.standard_normal(seed, n)
    u = np.zeros((n, 1))
    idx = np.argsort(np.abs(g), kind="stable")[:support]  # a uniform random subset (i.i.d. |g|)
    u[idx, 0] = np.sign(g[idx]) / np.sqrt(support)
    return u


def condition_profile(r: int, kappa: float) -> np.ndarray:
    """Eigenvalues lambda_1 = 1 >= ... >= lambda_r = 1/kappa, geometrically spaced (r,)."""
    r = _positive_int("r", r)
    _require(np.isfinite(kappa) and kappa >= 1.0, f"condition number kappa must be finite and >= 1, got {kappa}")
    return np.geomspace(1.0, 1.0 / kappa, r) if r > 1 else np.ones(1)


def spectral_factor(U: np.ndarray, eigenvalues: np.ndarray) -> np.ndarray:
    """F = U diag(sqrt(lambda)) (n, r), so Sigma = U diag(lambda) U^T."""
    lam = np.asarray(eigenvalues, dtype=float)
    _require(np.all(np.isfinite(lam)) and np.all(lam >= 0), "eigenvalues must be finite and non-negative")
    _require(U.shape[1] == lam.size, "U and eigenvalues disagree on the rank")
    return np.ascontiguousarray(U * np.sqrt(lam))


def line_spectrum_factor(n: int, frequencies, powers) -> np.ndarray:
    """F = V diag(sigma) (n, r) complex, V_{jk} = exp(2 pi i f_k j): Sigma = V Lambda V^H is
    a rank-r Toeplitz PSD matrix (Vandermonde decomposition, Section 6.2)."""
    f = np.asarray(frequencies, dtype=float)
    p = np.asarray(powers, dtype=float)
    _require(f.shape == p.shape and f.ndim == 1, "frequencies and powers must be 1-D of equal length")
    _require(np.all(p > 0) and np.all(np.isfinite(f)), "powers must be positive and frequencies finite")
    V = np.exp(2j * np.pi * np.outer(np.arange(_positive_int("n", n)), f))
    return np.ascontiguousarray(V * np.sqrt(p))


def shared_samples(U: np.ndarray, T: int, noise_var: float, seed) -> np.ndarray:
    """X (T, n): x_t = U a_t + n_t, a_t ~ N(0, I_r), n_t ~ N(0, sigma^2 I_n) (Section 6.3)."""
    T = _positive_int("T", T)
    _require(np.isfinite(noise_var) and noise_var >= 0, f"noise variance must be finite and >= 0, got {noise_var}")
    n, r = U.shape
    z = streams.standard_normal(seed, (T, r + n))
    return z[:, :r] @ U.T + np.sqrt(noise_var) * z[:, r:]


def sample_factor(X: np.ndarray) -> np.ndarray:
    """F = X^T / sqrt(T) (n, T): the sample covariance Sigma_T = X^T X / T seen by every sensor."""
    return np.ascontiguousarray(X.T / np.sqrt(X.shape[0]))


@dataclass(frozen=True)
class SensingModel:
    """Algorithm 1, lines 1-4: m sensors compare energies along Gaussian sketch pairs.

    factor: (n, k) F with Sigma = F F^H. samples: T per sensor, independent across
    sensors (Eq. 1); 0 means population bits (Eq. 2). flip_prob: each bit flipped
    independently with this probability (Section 6.1). complex_sketches: circular
    complex Gaussian a_i, b_i (Section 6.2; population bits only).
    """

    factor: np.ndarray
    samples: int = 0
    flip_prob: float = 0.0
    complex_sketches: bool = False

    def __post_init__(self):
        F = np.asarray(self.factor)
        _require(F.ndim == 2 and F.shape[0] > 0 and F.shape[1] > 0,
                 f"factor must be a non-empty (n, k) array, got shape {F.shape}")
        _require(bool(np.all(np.isfinite(F))), "factor has non-finite entries")
        _require(isinstance(self.samples, (int, np.integer)) and self.samples >= 0,
                 f"samples T must be an integer >= 0, got {self.samples!r}")
        _require(np.isfinite(self.flip_prob) and 0.0 <= self.flip_prob <= 0.5,
                 f"flip probability must lie in [0, 1/2], got {self.flip_prob}")
        _require(not (self.complex_sketches and self.samples),
                 "complex sketches support population bits only (samples=0)")
        dtype = np.complex128 if (self.complex_sketches or np.iscomplexobj(F)) else np.float64
        _require(not (np.iscomplexobj(F) and not self.complex_sketches), "a complex factor needs complex_sketches=True")
        object.__setattr__(self, "factor", np.ascontiguousarray(F, dtype=dtype))

    @property
    def n(self) -> int:
        return self.factor.shape[0]

    @property
    def dtype(self):
        return self.factor.dtype


def sensor_streams(m: int, seed) -> np.ndarray:
    """The per-chunk streams of m sensors (n_chunks, 4) uint64: one ``kernels.streams`` row per SENSOR_CHUNK
    sensors."""
    m = _positive_int("number of sensors m", m)
    return streams.stream_states(seed, n_chunks(m, SENSOR_CHUNK))


def sensor_chunks(model: SensingModel, m: int, seed) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
    """Yield (start, A (c, n), B (c, n), y (c,)) chunk by chunk; only one chunk in memory.

    The rows are sensors start + 1 .. start + c of the stream; the first k sensors are the same
    for every m >= k (the draws are interleaved per sensor). The arrays are reused buffers,
    overwritten by the next chunk.
    """
    states = sensor_streams(m, seed)
    n = model.n
    A = np.empty((SENSOR_CHUNK, n), dtype=model.dtype)
    B = np.empty_like(A)
    y, ye = np.empty(SENSOR_CHUNK), np.empty(SENSOR_CHUNK)
    for j in range(states.shape[0]):
        start = j * SENSOR_CHUNK
        c = min(SENSOR_CHUNK, m - start)
        if model.complex_sketches:
            sense_chunk_complex(states[j], model.factor, model.flip_prob, A[:c], B[:c], y[:c], ye[:c])
        else:
            sense_chunk(states[j], model.factor, model.samples, model.flip_prob, A[:c], B[:c], y[:c], ye[:c])
        yield start, A[:c], B[:c], y[:c]


def bit_error_rate(model: SensingModel, m: int, seed) -> float:
    """Fraction of the m bits y_{i,T} (flips included) differing from sign(<W_i, Sigma>)."""
    _require(not model.complex_sketches, "bit_error_rate supports real sketches")
    states = sensor_streams(m, seed)
    with one_blas_thread():
        counts = bit_error_counts(states, model.factor, model.samples, model.flip_prob, int(m), SENSOR_CHUNK)
    return float(counts.sum()) / m


def surrogate_diagonal(eigenvalues, law: str = "gaussian") -> np.ndarray:
    """d_k = u_k^T E[J] u_k (r,) for Sigma with eigenvalues lambda (Lemma 1), exactly.

    With V_k = (a^T u_k)^2 - (b^T u_k)^2 and S = sum_j lambda_j V_j,
    d_k = E[sign(S) V_k] = (2/pi) int_0^inf Im E[V_k e^{itS}] / t dt. For Gaussian
    sketches V_k = 2 Z1 Z2 with characteristic function (1 + 4 t^2)^{-1/2};
    ``law='laplace'`` uses the Laplace(1) law 1/(1 + t^2) that the paper's proof assumes.
    """
    from scipy.integrate import quad

    lam = np.asarray(eigenvalues, dtype=float)
    _require(lam.ndim == 1 and lam.size > 0 and np.all(lam > 0), "eigenvalues must be a positive 1-D array")
    lam = lam / lam.max()
    c = {"gaussian": 4.0, "laplace": 1.0}[law]
    own, other = ((1.5, 0.5) if law == "gaussian" else (2.0, 1.0))
    scale = 4.0 if law == "gaussian" else 2.0

    def integrand(t, k):
        q = 1.0 + c * (lam * t) ** 2
        return scale * lam[k] * q[k] ** (-own) * np.prod(np.delete(q, k) ** (-other))

    return np.array([2.0 / np.pi * quad(integrand, 0.0, np.inf, args=(k,), limit=200, epsabs=1e-12)[0]
                     for k in range(lam.size)])


def surrogate_diagonal_equal(r: int, law: str = "gaussian") -> float:
    """Closed form of d_k for r equal eigenvalues: 2 E|2B - 1| = 4^{1-s} / (s B(s, s)),
    B ~ Beta(s, s), s = r/2 for Gaussian sketches and s = r under the Laplace model."""
    from scipy.special import beta as beta_fn

    s = _positive_int("r", r) / 2.0 if law == "gaussian" else float(_positive_int("r", r))
    return float(4.0 ** (1.0 - s) / (s * beta_fn(s, s)))


def projected_surrogate_diagonal(eigenvalues, m: int, seed, law: str = "gaussian") -> np.ndarray:
    """Monte Carlo estimate of d_k (r,) from m draws of (V_1..V_r) directly (no sketches)."""
    lam = np.ascontiguousarray(eigenvalues, dtype=float)
    states = sensor_streams(m, seed)
    sums = projected_diagonal_sums(states, lam, int(m), SENSOR_CHUNK, law == "laplace")
    total = np.zeros(lam.size)
    for row in sums:  # fixed order
        total += row
    return total / m
