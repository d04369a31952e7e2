"""Ground truth and data of the NMF model y = A* x (+ zeta) of Li & Liang (2017), Sections 3, 6 and 7.

Shapes: A* (W, D) features, X (D, N) weights (one sample per column), Y (W, N) data.

- ``topic_matrix``: the stand-in for the paper's NIPS word-topic matrix (not available here): D sparse topics over
  a Zipf-distributed vocabulary of W words, each column of unit Euclidean norm. ``load_topic_matrix`` reads a
  user-supplied A* (whitespace-separated text, one row per word, or .npy).
- ``negative_matrix``: NEG's A*, entries uniform on [-0.5, 0.5).
- ``weights``: X from the distributions of Proposition 1 and Section 7 (``WeightDistribution``).
- ``observations``: Y = A* X + zeta, zeta ~ gamma N(0, I/W) (Section 6.2, NOISE).
- ``initial_matrix``: A0 = A*(I + U) + N of Appendix B.1; ``ell_initialization``: Definitions 2 and 4.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..kernels.nmf import BINARY, CTM, DECAY, DIRICHLET, WEIGHT_CHUNK, weight_columns
from ..kernels.rng import as_seed_sequence, generator, n_chunks
from ..kernels.streams import standard_normal, stream_states
from ..validation import finite_matrix, positive_int, real_number, require

ZIPF_EXPONENT = 1.07  # word frequencies of English text follow rank^-1.07 roughly
TOPIC_CONCENTRATION = 0.05  # per word, times W x frequency: each topic puts most mass on a few dozen words
WORD_CUT = 1e-4  # a word with probability below this in a topic is dropped from it (sparse topics)
KINDS = {"binary": BINARY, "dirichlet": DIRICHLET, "ctm": CTM, "decay": DECAY}



def topic_matrix(W: int, D: int, seed, exponent: float = ZIPF_EXPONENT,
                 concentration: float = TOPIC_CONCENTRATION) -> np.ndarray:
    """A* (W, D): topic i ~ Dirichlet(concentration * W * p) with p_w proportional to w^-exponent (a Zipf
    vocabulary), so frequent words are shared by many topics and rare ones by few; words of probability below
    WORD_CUT in a topic are dropped (at W = 1000, D = 100 about 11% of the entries remain, some 110 words per
    topic); columns scaled to unit Euclidean norm (Theorem 1's remark: then A is recovered without the scale
    ambiguity)."""
    W, D = positive_int("W", W), positive_int("D", D)
    require(D <= W, f"rank D={D} exceeds the vocabulary size W={W}")
    exponent = real_number("exponent", exponent, 0.0, 10.0)
    concentration = real_number("concentration", concentration, 1e-6, 1e6)
    p = np.arange(1, W + 1, dtype=float) ** -exponent
    p /= p.sum()
    A = generator(seed).dirichlet(concentration * W * p, size=D).T
    return unit_columns(np.where(A >= WORD_CUT, A, 0.0))


def negative_matrix(W: int, D: int, seed) -> np.ndarray:
    """NEG's A* (W, D): entries i.i.d. uniform on [-0.5, 0.5) (Section 7)."""
    W, D = positive_int("W", W), positive_int("D", D)
    require(D <= W, f"rank D={D} exceeds the dimension W={W}")
    return generator(seed).random((W, D)) - 0.5


def unit_columns(A: np.ndarray) -> np.ndarray:
    """A with each column scaled to unit Euclidean norm (a zero column is refused)."""
    norms = np.linalg.norm(A, axis=0)
    require(bool(np.all(norms > 0)), "A* has a zero column")
    return A / norms


def load_topic_matrix(path, normalise: bool = True) -> np.ndarray:
    """A user-supplied A* (W, D): a .npy file or whitespace-separated text with one row per word (the layout of
    AND4NMF's topic file). Refuses a missing file, ragged or non-numeric rows, non-finite entries, D > W and a
    rank-deficient A*, naming the file (and line). ``normalise`` scales the columns to unit norm."""
    path = Path(path)
    require(path.is_file(), f"{path}: no such file")
    if path.suffix == ".npy":
        try:
            A = np.load(path, allow_pickle=False)
        except ValueError as err:
            raise ValueError(f"{path}: not a NumPy array file ({err})") from None
        A = finite_matrix(str(path), A)
    else:
        A = _read_text_matrix(path)
    require(A.shape[1] <= A.shape[0], f"{path}: rank D={A.shape[1]} exceeds the vocabulary size W={A.shape[0]}")
    require(bool(np.all(np.linalg.norm(A, axis=0) > 0)), f"{path}: A* has a zero column")
    require(np.linalg.matrix_rank(A) == A.shape[1],
            f"{path}: A* does not have full column rank {A.shape[1]} (the start A*(I + U) would be singular)")
    return unit_columns(A) if normalise else A


def _read_text_matrix(path: Path) -> np.ndarray:
    rows, width = [], None
    for line_no, line in enumerate(path.read_text(errors="replace").splitlines(), start=1):
        fields = line.split()
        if not fields:
            continue
        try:
            row = [float(v) for v in fields]
        except ValueError:
            raise ValueError(f"{path}:{line_no}: non-numeric entry in {line.strip()[:40]!r}") from None
        require(all(np.isfinite(row)), f"{path}:{line_no}: non-finite entry")
        width = width or len(row)
        require(len(row) == width, f"{path}:{line_no}: {len(row)} columns, expected {width}")
        rows.append(row)
    require(bool(rows), f"{path}: empty file")
    return np.array(rows)


@dataclass(frozen=True)
class WeightDistribution:
    """The law of x (D,): ``kind`` "binary" (uniform s-sparse {0,1}; Proposition 1.1), "dirichlet" (parameter s/D
    per coordinate; Proposition 1.2, DIR with s = 5), "ctm" (softmax(scale L u), u ~ N(0, I), one L (D, D) with
    standard normal entries / sqrt(D) shared by the dataset: the correlated topic model's logistic normal with the
    strongly correlated covariance scale^2 L L^T), "decay" (each coordinate non-zero with probability s/D, then
    U^(1/q): Definition 3's order-q decay condition with equality)."""
    kind: str
    s: float = 5.0
    scale: float = 3.0
    q: float = 1.0

    def __post_init__(self):
        require(isinstance(self.kind, str) and self.kind in KINDS,
                f"unknown weight distribution {self.kind!r}; known: {', '.join(KINDS)}")
        real_number("s", self.s, 1e-9, 1e9)
        real_number("scale", self.scale, 0.0, 1e3)
        real_number("q", self.q, 1e-3, 1e6)
        if self.kind == "binary":
            require(float(self.s).is_integer(), f"binary weights need an integer sparsity s, got {self.s!r}")


def weights(dist: WeightDistribution, D: int, N: int, seed) -> np.ndarray:
    """X (D, N): N i.i.d. weight vectors; the CTM covariance factor is drawn from the same seed."""
    D, N = positive_int("D", D), positive_int("N", N)
    s_cov, s_cols = as_seed_sequence(seed).spawn(2)
    if dist.kind == "binary":
        require(dist.s <= D, f"sparsity s={dist.s:g} exceeds D={D}")
    if dist.kind == "decay":
        require(dist.s <= D, f"expected support s={dist.s:g} exceeds D={D}")
    L = generator(s_cov).standard_normal((D, D)) / np.sqrt(D) if dist.kind == "ctm" else np.zeros((1, 1))
    X = np.empty((D, N))
    weight_columns(stream_states(s_cols, n_chunks(N, WEIGHT_CHUNK)), KINDS[dist.kind], X, int(dist.s), dist.s / D, L,
                   dist.scale, dist.s / D, dist.q, WEIGHT_CHUNK)
    return X


def observations(A_star: np.ndarray, X: np.ndarray, gamma: float = 0.0, seed=None) -> np.ndarray:
    """Y (W, N) = A* X + zeta with zeta ~ gamma N(0, I/W) per column (Section 6.2), so ||zeta||_2 ~ gamma."""
    gamma = real_number("gamma", gamma, 0.0, 1e6)
    Y = A_star @ X
    if gamma > 0.0:
        require(seed is not None, "noisy observations need a seed")
        Y += gamma / np.sqrt(A_star.shape[0]) * standard_normal(seed, Y.shape)
    return Y


def initial_matrix(A_star: np.ndarray, seed, r_l: float = 1.0, r_n: float = 0.0) -> np.ndarray:
    """A0 (W, D) = A*(I + U) + N (Appendix B.1): U (D, D) uniform on [-0.5, 0.5) r_l / sqrt(D) (the paper's
    [-0.05, 0.05) at D = 100), N (W, D) uniform on [-0.5, 0.5) r_n / sqrt(D), the out-of-span noise."""
    W, D = A_star.shape
    r_l, r_n = real_number("r_l", r_l, 0.0, 1e3), real_number("r_n", r_n, 0.0, 1e3)
    g = generator(seed)
    U = (g.random((D, D)) - 0.5) * r_l / np.sqrt(D)
    N = (g.random((W, D)) - 0.5) * r_n / np.sqrt(D)
    return A_star @ (np.eye(D) + U) + N


def off_diagonal_matrix(D: int, ell: float, g: np.random.Generator) -> np.ndarray:
    """E (D, D): standard normal off the diagonal, zero on it, scaled to ||E||_2 = ell (Definitions 2 and 4's E,
    Lemma 6's E'); draws D*D normals from g."""
    E = g.standard_normal((D, D))
    np.fill_diagonal(E, 0.0)
    return E * (ell / np.linalg.norm(E, 2))


def ell_initialization(A_star: np.ndarray, ell: float, seed, sigma_spread: float = 0.25,
                       rho: float = 0.0) -> np.ndarray:
    """A0 = A*(Sigma + E) + N with ||E||_2 = ell exactly (E off-diagonal), Sigma diagonal uniform on
    [1 - sigma_spread, 1 + sigma_spread] and ||N||_2 = rho (Definition 2; Definition 4 with rho > 0), N orthogonal
    to the span of A* so that the decomposition is unique."""
    W, D = A_star.shape
    ell = real_number("ell", ell, 0.0, 1e3)
    sigma_spread = real_number("sigma_spread", sigma_spread, 0.0, 0.25)
    rho = real_number("rho", rho, 0.0, 1e3)
    g = generator(seed)
    E = off_diagonal_matrix(D, ell, g)
    Sigma = np.diag(1.0 + sigma_spread * (2.0 * g.random(D) - 1.0))
    N = g.standard_normal((W, D))
    N -= A_star @ np.linalg.lstsq(A_star, N, rcond=None)[0]
    N *= rho / np.linalg.norm(N, 2)
    return A_star @ (Sigma + E) + N
