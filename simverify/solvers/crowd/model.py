"""Proposition 1's extraction of the Dawid-Skene model (``generators.crowd.DawidSkeneModel``: a prior lambda (K,)
and confusion matrices (M, K observed, K true)) from a SymNMF factor H, and the alignment of its columns."""
from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

from ...generators.crowd import DawidSkeneModel  # the model value; drawn by the generator
from ...validation import require


def from_symnmf_factor(H: np.ndarray, n_workers: int) -> DawidSkeneModel:
    """Proposition 1: H (MK, K) = [A_1; ...; A_M] D^(1/2) up to a column permutation. A_m is block m with columns
    l1-normalised (a block without mass gives the uniform column); each block's column sums estimate
    sqrt(lambda_k), so lambda is the square of their mean over the blocks with mass, normalised."""
    K = H.shape[1]
    blocks = np.maximum(H, 0.0).reshape(n_workers, K, K)
    sums = blocks.sum(axis=1)  # (M, K): sqrt(lambda_k) per block
    has_mass = sums > 1e-12
    confusion = np.where(has_mass[:, None, :], blocks / np.where(has_mass, sums, 1.0)[:, None, :], 1.0 / K)
    counted = has_mass.sum(axis=0)
    root = np.where(counted > 0, (sums * has_mass).sum(axis=0) / np.maximum(counted, 1), 0.0)
    priors = root ** 2
    priors = priors / priors.sum() if priors.sum() > 0 else np.full(K, 1.0 / K)
    return DawidSkeneModel(priors, confusion)


def align_to_diagonal(model: DawidSkeneModel) -> DawidSkeneModel:
    """Resolve the common column permutation without ground truth: the relabelling that maximises the summed
    diagonals sum_m trace(A_m Pi), i.e. annotators are taken to be right more often than not (Hungarian
    algorithm on the K x K score)."""
    score = model.confusion.sum(axis=0)  # (K observed, K true)
    rows, cols = linear_sum_assignment(-score)
    perm = np.empty(score.shape[0], dtype=np.int64)
    perm[rows] = cols
    return model.permuted(perm)



CODE_FLOOR = 1e-3  # the authors' released code: confusion entries floored at 1e-3, columns renormalised
TIE_RTOL = 1e-9  # align_each_annotator: entries this close to a row's largest tie (~1e-14 apart across threads)


def align_each_annotator(model: DawidSkeneModel, floor: float = CODE_FLOOR) -> DawidSkeneModel:
    """The alignment of the authors' released code, which the paper does not print: every confusion entry floored
    at ``floor`` and each column renormalised, then, annotator by annotator, the column for class k replaced by
    the annotator's column with the largest entry in row k (answer k is taken to mean class k most often; ``floor``
    0 floors nothing, as the code does for TensorADMM's confusions). Columns may repeat, so the annotators' models
    are no longer one permutation of the SymNMF factor's; on sparse data, where Eq. (13) leaves many annotators'
    blocks misaligned, this repairs them (LabelMe, Table 9)."""
    require(isinstance(model, DawidSkeneModel), f"align_each_annotator takes a DawidSkeneModel, got "
                                                f"{type(model).__name__}")
    confusion = np.asarray(model.confusion, dtype=float)
    require(confusion.ndim == 3 and confusion.shape[1] == confusion.shape[2] and np.isfinite(confusion).all()
            and (confusion >= 0).all(), f"the confusion must be finite, non-negative, of shape (M, K, K), got shape "
                                        f"{confusion.shape}")
    require(isinstance(floor, (int, float)) and not isinstance(floor, bool) and 0.0 <= floor < 1.0,
            f"the floor must be a number in [0, 1), got {floor!r}")
    C = np.maximum(confusion, floor)
    C = C / C.sum(axis=1, keepdims=True)
    # (M, K answers): the class whose column is largest in each row; entries within TIE_RTOL of the row's largest
    # (equal but for rounding, as floored ones are) tie and the first wins, whatever the thread count upstream
    top = C.max(axis=2, keepdims=True)
    best = (C >= top * (1.0 - TIE_RTOL)).argmax(axis=2)
    return DawidSkeneModel(model.priors, np.ascontiguousarray(np.take_along_axis(C, best[:, None, :], axis=2)))

START_SMOOTHING = 0.01  # the share of the uniform confusion mixed into a start with exact zeros (EM, CNMF)


def smoothed(model: DawidSkeneModel, share: float) -> DawidSkeneModel:
    """The model with each confusion column mixed with the uniform one: (1 - share) A_m + share / K.

    Why: an entry A_m(c, k) = 0 (floored at 1e-10 in the E-step) gives class k posterior odds of about 1e-10 on
    every item where annotator m answered c, so EM's M-step raises the entry only where the other answers outweigh
    those odds. SymNMF's and SPA's factors have exact zeros; EM from them can converge to another fixed point,
    however long it runs (tests: a true model with one entry 0.92 zeroed ends at 0.017 after 1000 iterations;
    mixed with 1 % of uniform, at 0.90)."""
    require(isinstance(share, (int, float)) and not isinstance(share, bool) and 0.0 <= share < 1.0,
            f"the start smoothing must be a number in [0, 1), got {share!r}")
    K = model.confusion.shape[1]
    return DawidSkeneModel(model.priors, (1.0 - share) * model.confusion + share / K)
