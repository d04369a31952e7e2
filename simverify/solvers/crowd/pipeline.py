"""Dawid-Skene model learning from co-occurrences (Ibrahim & Fu 2021): DesSymNMF (Eq. 7-8 imputation), RobSymNMF
(criterion 9, Algorithm 11; weighted or w = 1), SymNMF without imputation, each followed by Eq. (13) and
Proposition 1's extraction; and the MultiSPA and CNMF baselines (Ibrahim, Fu, Kargas & Huang 2019).

Each ``*_model`` takes the co-occurrences (R (M, M, K, K), S (M, M)) and returns a ``DawidSkeneModel`` whose
columns are aligned by ``align_to_diagonal`` (``alignment="per-annotator"``: by the authors' code's
``align_each_annotator``)."""
from __future__ import annotations

import numpy as np

from ...kernels.crowd import coupled_kl_sweeps, designated_imputation, robust_imputation
from ...validation import Boolean, Integer, Options, Real, check_parameter
from .codes import check_blocks
from .cooccurrence import assemble, observed_blocks, square_root
from .model import (
    START_SMOOTHING,
    DawidSkeneModel,
    align_each_annotator,
    align_to_diagonal,
    from_symnmf_factor,
    smoothed,
)
from .symnmf import symnmf

XI = 1e-12  # (11)'s xi: keeps a weight finite when a block is fitted exactly
RADIUS = 1.0  # (9b)'s bound D on ||U_m||_F: ||A_m D^(1/2)||_F^2 = sum_k lambda_k ||A_m(:, k)||^2 <= 1


ALIGNMENTS = ("common", "per-annotator")


def _factor_to_model(X: np.ndarray, M: int, K: int, schedule: str, alignment: str = "common",
                     **symnmf_args) -> DawidSkeneModel:
    """Rank-K square root of X, Eq. (13) from Q_(0) = I, extraction, alignment: 'common' one permutation of the
    classes for all annotators (``align_to_diagonal``); 'per-annotator' the authors' code's
    (``align_each_annotator``)."""
    check_parameter("symnmf model", "alignment", alignment, Options(*ALIGNMENTS))
    H, _, _ = symnmf(square_root(X, K), schedule, **symnmf_args)
    model = align_to_diagonal(from_symnmf_factor(H, M))
    return align_each_annotator(model) if alignment == "per-annotator" else model


def plain_model(R: np.ndarray, S: np.ndarray, schedule: str = "constant", **symnmf_args) -> DawidSkeneModel:
    """'SymNMF (w/o imput.)': the observed blocks, every missing and diagonal block left at zero."""
    check_blocks("plain_model", R, S)
    M, K = R.shape[0], R.shape[2]
    X = assemble(np.where(observed_blocks(S)[:, :, None, None], R, 0.0))
    return _factor_to_model(X, M, K, schedule, **symnmf_args)


TRIANGLE_SCORES = ("conditioning", "count")


def block_scores(R: np.ndarray, S: np.ndarray, observed: np.ndarray, kind: str = "conditioning") -> np.ndarray:
    """(M, M) score of each observed block for choosing Eq. (7)-(8)'s helpers: 'count' = S_{m,j}; 'conditioning'
    = sigma_min(R_{m,j})^2 sqrt(S_{m,j}), after Theorem 1's error O(gamma^3 / (varrho^2 sqrt(S)))."""
    check_parameter("block_scores", "kind", kind, Options(*TRIANGLE_SCORES))
    if kind == "count":
        return np.where(observed, S, 0).astype(float)
    smallest = np.linalg.svd(R, compute_uv=False)[:, :, -1]
    return np.where(observed, smallest ** 2 * np.sqrt(S), 0.0)


def designated_blocks(R: np.ndarray, S: np.ndarray, score: str = "conditioning") -> tuple[np.ndarray, np.ndarray]:
    """DesSymNMF's imputation: (X blocks (M, M, K, K), filled (M, M) bool); blocks no triangle of observed blocks
    reaches stay zero (as the paper does on real data). Without designated annotators the paper does not say which
    triangle (l, r) to use; ``score`` picks the one whose weakest block scores highest (``block_scores``)."""
    check_blocks("designated_blocks", R, S)
    observed = observed_blocks(S)
    Rz = np.where(observed[:, :, None, None], R, 0.0)
    return designated_imputation(Rz, observed, block_scores(Rz, S, observed, score))


def dessymnmf_model(R: np.ndarray, S: np.ndarray, schedule: str = "constant", score: str = "conditioning",
                    **symnmf_args) -> DawidSkeneModel:
    """DesSymNMF: Eq. (7)-(8) imputation (diagonal blocks included), then Eq. (13)."""
    M, K = R.shape[0], R.shape[2]
    blocks, _ = designated_blocks(R, S, score)
    return _factor_to_model(assemble(blocks), M, K, schedule, **symnmf_args)


def spectral_start(R: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """U (M, K, K) to start Algorithm 11: the rank-K square root of the zero-filled X scaled by the inverse
    observed fraction (the usual spectral start of matrix completion), each block projected onto (9b)."""
    M, K = R.shape[0], R.shape[2]
    X = assemble(np.where(observed[:, :, None, None], R, 0.0)) * (M * M / max(observed.sum(), 1))
    U = square_root(X, K).reshape(M, K, K)
    norms = np.sqrt((U ** 2).sum(axis=(1, 2)))
    return U * np.minimum(1.0, RADIUS / np.maximum(norms, 1e-300))[:, None, None]


def robust_blocks(R: np.ndarray, S: np.ndarray, weighted: bool = True, n_outer: int = 100, n_inner: int = 10,
                  tol: float = 1e-6) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """RobSymNMF's imputation: (X blocks (M, M, K, K): observed blocks kept, every other block (the diagonal
    included) U_m U_j^T; U (M, K, K); objective history (17a) of the last stage).

    The paper does not state Algorithm 11's start. Ours: the spectral start, then the unweighted iterations
    (w = 1), then, if weighted, the reweighted ones from there. Reweighting from the spectral start converges
    very slowly when blocks fit well (weights near xi^(-1/2) freeze the annotators they touch): noiseless, 12
    annotators, 30 % missing, 300 sweeps left a block error of 1.2e-2 from the spectral start and 2.4e-10 from
    the unweighted solution."""
    check_blocks("robust_blocks", R, S)
    for name, value, spec in (("weighted", weighted, Boolean()), ("n_outer", n_outer, Integer(0)),
                              ("n_inner", n_inner, Integer(1)), ("tol", tol, Real(0.0))):
        check_parameter("robust_blocks", name, value, spec)
    observed = observed_blocks(S)
    Rz = np.where(observed[:, :, None, None], R, 0.0)
    U = spectral_start(Rz, observed)
    history, _ = robust_imputation(Rz, observed, U, RADIUS, XI, False, n_outer, n_inner, tol)
    if weighted:
        history, _ = robust_imputation(Rz, observed, U, RADIUS, XI, True, n_outer, n_inner, tol)
    fitted = np.einsum("mab,jcb->mjac", U, U)
    return np.where(observed[:, :, None, None], Rz, fitted), U, history


def robsymnmf_model(R: np.ndarray, S: np.ndarray, weighted: bool = True, schedule: str = "constant",
                    **symnmf_args) -> DawidSkeneModel:
    """RobSymNMF (weighted = True) or its unweighted version (w_{m,j} = 1), then Eq. (13)."""
    M, K = R.shape[0], R.shape[2]
    blocks, _, _ = robust_blocks(R, S, weighted)
    return _factor_to_model(assemble(blocks), M, K, schedule, **symnmf_args)


def successive_projection(Z: np.ndarray, K: int) -> np.ndarray:
    """SPA (Gillis & Vavasis 2014): indices (K,) of rows of Z (n, d) picked greedily by largest residual norm,
    each pick projected out of the rest."""
    residual = Z.copy()
    picks = np.empty(K, dtype=np.int64)
    for k in range(K):
        picks[k] = int(np.argmax((residual ** 2).sum(axis=1)))
        v = residual[picks[k]] / max(np.linalg.norm(residual[picks[k]]), 1e-300)
        residual -= np.outer(residual @ v, v)
    return picks


def _priors_by_least_squares(R, observed, confusion) -> np.ndarray:
    """lambda (K,) minimising sum over observed (m, j) of ||R_{m,j} - A_m Diag(lambda) A_j^T||_F^2, clipped at 0
    and normalised."""
    m, j = np.nonzero(observed)
    K = R.shape[2]
    design = np.einsum("pak,pbk->pabk", confusion[m], confusion[j]).reshape(-1, K)
    lam, *_ = np.linalg.lstsq(design, R[m, j].reshape(-1), rcond=None)
    lam = np.maximum(lam, 0.0)
    return lam / lam.sum() if lam.sum() > 0 else np.full(K, 1.0 / K)


def multispa_model(R: np.ndarray, S: np.ndarray) -> DawidSkeneModel:
    """MultiSPA: for each annotator m, the rows of Z_m = [R_{m,j}^T for observed j] (l1-normalised) are convex
    combinations of A_m's columns; SPA picks K of them as A_m's columns, each annotator's order fixed by
    diagonal dominance; lambda by least squares on the observed blocks."""
    check_blocks("multispa_model", R, S)
    M, K = R.shape[0], R.shape[2]
    observed = observed_blocks(S)
    confusion = np.full((M, K, K), 1.0 / K)
    for m in range(M):
        js = np.nonzero(observed[m])[0]
        if js.size == 0:
            continue
        Z = R[m, js].transpose(0, 2, 1).reshape(-1, K)  # rows: R_{m,j}(:, k_j)^T
        Z = Z[Z.sum(axis=1) > 0]
        if Z.shape[0] < K:
            continue
        Z = Z / Z.sum(axis=1, keepdims=True)
        columns = Z[successive_projection(Z, K)].T  # (K observed, K picked)
        confusion[m] = align_to_diagonal(DawidSkeneModel(np.ones(K), columns[None])).confusion[0]
    return DawidSkeneModel(_priors_by_least_squares(R, observed, confusion), confusion)


CNMF_SWEEPS = 500
CNMF_TOL = 1e-9  # stop when a sweep gains less than this fraction of the log-likelihood term of the KL objective


def cnmf_model(R: np.ndarray, S: np.ndarray, n_iter: int = CNMF_SWEEPS, tol: float = CNMF_TOL) -> DawidSkeneModel:
    """CNMF: criterion (4), R_{m,j} = A_m D A_j^T on the observed blocks with A_m's columns and lambda on the
    simplex, fitted in Kullback-Leibler divergence as [16] fits it (each block's divergence weighted equally).
    [16] minimises it by its own alternating scheme; ours is the EM of the pairwise latent-class model
    (``kernels.crowd.coupled_kl_sweeps``, monotone), from MultiSPA's model mixed with START_SMOOTHING of the
    uniform confusion (multiplicative updates never leave an exact zero); columns aligned at the end."""
    check_blocks("cnmf_model", R, S)
    check_parameter("cnmf_model", "n_iter", n_iter, Integer(1))
    check_parameter("cnmf_model", "tol", tol, Real(0.0))
    start = smoothed(multispa_model(R, S), START_SMOOTHING)
    confusion, priors = start.confusion.copy(), start.priors.copy()
    coupled_kl_sweeps(R, observed_blocks(S), confusion, priors, n_iter, tol)
    return align_to_diagonal(DawidSkeneModel(priors, confusion))
