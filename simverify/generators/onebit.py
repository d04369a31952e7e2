"""Qiu et al. (2017) "Nonconvex One-bit Single-label Multi-label Learning": the model matrix W*
in F_k and the single-label instance stream (Eq. 2-3, Section 5.1).

Shapes: W* is (d1, d2), d1 features by d2 labels, rank k, unit-norm columns. A stream of m
instances is x_i (d1,) standard Gaussian, one label index j_i uniform in 0..d2-1 and one bit
y_i = sign(<x_i e_bar_i^T, W*>) = sign(<x_i, W*_j>) (e_bar = sqrt(d2) e_j), optionally with
Gaussian noise xi inside the sign and adversarial flips with probability p.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..kernels import rng, streams
from ..kernels.onebit import INSTANCE_CHUNK, instance_block
from ..validation import finite_matrix, positive_int, real_number, require


def column_normalize(W: np.ndarray) -> np.ndarray:
    """W with every column scaled to unit norm (Algorithm 1 line 5); a zero column is refused."""
    W = finite_matrix("W", W)
    norms = np.linalg.norm(W, axis=0)
    require(bool(np.all(norms > 0)), f"W has a zero column (column {int(np.argmin(norms))}): "
                                     "it cannot be normalised")
    return W / norms


def check_rank(d1: int, d2: int, k: int) -> tuple[int, int, int]:
    """(d1, d2, k) after checking positive integers, d2 >= 2 and k <= min(d1, d2)."""
    d1, d2, k = positive_int("d1", d1), positive_int("d2", d2), positive_int("k", k)
    require(d2 >= 2, f"d2 (number of labels) must be at least 2, got {d2}")
    require(k <= min(d1, d2), f"rank k={k} exceeds min(d1, d2)={min(d1, d2)}")
    return d1, d2, k


def gaussian_model_matrix(d1: int, d2: int, k: int, seed) -> np.ndarray:
    """W* (d1, d2) in F_k as in Section 5.1: U (d1, k), V (d2, k) i.i.d. N(0, 1), then U V^T
    column-normalised."""
    d1, d2, k = check_rank(d1, d2, k)
    G = streams.standard_normal(seed, (d1 + d2) * k)
    U, V = G[:d1 * k].reshape(d1, k), G[d1 * k:].reshape(d2, k)
    return column_normalize(U @ V.T)


def conditioned_model_matrix(d1: int, d2: int, k: int, kappa: float, seed) -> np.ndarray:
    """W* (d1, d2) in F_k with singular values sigma_i geometric from sigma_1 to sigma_k =
    sigma_1 / kappa (sum sigma_i^2 = d2, as unit columns force).

    W* = U Z^T with U (d1, k) orthonormal and Z (d2, k) unit rows, Z Z^T a random correlation
    matrix with eigenvalues sigma_i^2 (Bendel-Mickey rotations, scipy.stats.random_correlation):
    unit columns and the exact spectrum at once.
    """
    from scipy.stats import random_correlation  # imported here: scipy.stats costs every process ~1.5 s

    d1, d2, k = check_rank(d1, d2, k)
    kappa = real_number("kappa", kappa, 1.0)
    s_u, s_c = as_children(seed, 2)
    sig2 = kappa ** (-2.0 * np.arange(k) / max(k - 1, 1))
    eig = np.zeros(d2)
    eig[:k] = sig2 * d2 / sig2.sum()
    C = random_correlation.rvs(eig, random_state=np.random.default_rng(s_c))
    Z = rank_k_factor(C, k)
    U, _ = np.linalg.qr(streams.standard_normal(s_u, (d1, k)))
    return column_normalize(U @ Z.T)


def rank_k_factor(C: np.ndarray, k: int) -> np.ndarray:
    """Z (d, k) with Z Z^T = C for a PSD C (d, d) of rank k whose leading k x k block is non-singular: the Cholesky
    factor L of that block and Z = C[:, :k] L^-T. Unlike a factor from eigh, it does not depend on the basis an
    eigensolver picks inside a repeated eigenvalue (kappa = 1 repeats d2 / k k times), which varies with the BLAS
    kernels and moved whole kappa = 1 draws between hosts."""
    L = np.linalg.cholesky(C[:k, :k])
    return np.linalg.solve(L, C[:k, :]).T


def as_children(seed, count: int) -> list[np.random.SeedSequence]:
    """``count`` children of the seed (spawned from a fresh copy: the same seed always gives
    the same children)."""
    root = rng.as_seed_sequence(seed)
    return np.random.SeedSequence(root.entropy, spawn_key=root.spawn_key).spawn(count)


@dataclass(frozen=True)
class SingleLabelModel:
    """The model of Eq. (2): W* (d1, d2) with unit columns, noise level ``xi`` (standard
    deviation of the Gaussian inside the sign) and flip probability ``flip_prob``."""
    w_star: np.ndarray
    xi: float = 0.0
    flip_prob: float = 0.0
    wt_star: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        W = finite_matrix("W*", self.w_star)
        check_rank(W.shape[0], W.shape[1], 1)
        norms = np.linalg.norm(W, axis=0)
        require(bool(np.allclose(norms, 1.0, atol=1e-8)), "W* must have unit-norm columns (W* in F_k)")
        object.__setattr__(self, "w_star", W)
        object.__setattr__(self, "xi", real_number("noise level xi", self.xi, 0.0))
        object.__setattr__(self, "flip_prob", real_number("flip probability p", self.flip_prob, 0.0, 1.0))
        object.__setattr__(self, "wt_star", np.ascontiguousarray(W.T))

    @property
    def shape(self) -> tuple[int, int]:
        return self.w_star.shape


def instance_streams(m: int, seed) -> np.ndarray:
    """The per-chunk streams of m instances (n_chunks, 4) uint64: one ``kernels.streams`` row per INSTANCE_CHUNK
    instances."""
    m = positive_int("m", m)
    return streams.stream_states(seed, rng.n_chunks(m, INSTANCE_CHUNK))


def single_label_instances(model: SingleLabelModel, m: int, seed) -> tuple[np.ndarray, ...]:
    """The first m instances of the stream (model, seed): X (m, d1), label indices (m,) in
    0..d2-1, observed bits y (m,) and noise-free bits (m,). O(m d1) memory: for baselines and
    tests; Algorithm 1 never materialises the stream."""
    return instance_block(instance_streams(m, seed), model.wt_star, model.xi, model.flip_prob, int(m), INSTANCE_CHUNK)


def fully_labelled_instances(model: SingleLabelModel, n: int, seed) -> tuple[np.ndarray, np.ndarray]:
    """Instances with all labels (Section 5.1 testing, 5.2 training): X (n, d1) i.i.d. N(0, 1) and
    the noise-free label matrix Y = sign(X W*) (n, d2), sign(0) = 1."""
    n = positive_int("number of instances n", n)
    X = streams.standard_normal(seed, (n, model.shape[0]))
    return X, np.where(X @ model.w_star >= 0.0, 1.0, -1.0)
