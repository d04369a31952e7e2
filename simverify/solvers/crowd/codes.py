"""Checks of the integer-coded answers every crowd aggregator takes (``simverify.datasets.crowd.Answers``): item,
worker, label (n,) codes into 0..n_items-1, 0..n_workers-1, 0..n_classes-1. The Numba kernels index arrays sized
by n_items, n_workers and n_classes with these codes, unchecked: a code out of range would read or write past the
end of an array, so every public function that hands codes to a kernel checks them first (``check_codes``).

And what a method needs of the data (``answers_problem``): the co-occurrence methods and KOS learn from annotators
who answered a common item; Spectral-D&S deals annotators into three groups."""
from __future__ import annotations

import numpy as np

from ...kernels.crowd import two_workers_share_an_item
from ...validation import Integer, check_parameter, require

GROUPS = 3  # Spectral-D&S deals the annotators into three groups (spectral imports it from here)


def _codes(owner: str, name: str, codes, size: int, n: int | None) -> None:
    arr = np.asarray(codes)
    require(arr.ndim == 1 and arr.dtype.kind in "iu",
            f"{owner}: {name} must be a 1-d array of integer codes, got dtype {arr.dtype} and shape {arr.shape}")
    require(n is None or arr.size == n, f"{owner}: {name} has {arr.size} entries, item {n}")
    if arr.size and not (int(arr.min()) >= 0 and int(arr.max()) < size):
        raise ValueError(f"{owner}: {name} codes must lie in 0..{size - 1}, got {int(arr.min())}..{int(arr.max())}")


def check_codes(owner: str, item, worker, label, n_items: int, n_workers: int, n_classes: int) -> None:
    """Refuse codes a kernel would index out of bounds: each of item, worker (None: not used), label a 1-d integer
    array of the same length n, within 0..n_items-1, 0..n_workers-1, 0..n_classes-1 (positive counts)."""
    for name, count in (("n_items", n_items), ("n_workers", n_workers), ("n_classes", n_classes)):
        check_parameter(owner, name, count, Integer(1))
    item = np.asarray(item)
    _codes(owner, "item", item, n_items, None)
    if worker is not None:
        _codes(owner, "worker", worker, n_workers, item.size)
    _codes(owner, "label", label, n_classes, item.size)


def check_blocks(owner: str, R, S) -> None:
    """Refuse co-occurrences whose shapes disagree: R (M, M, K, K) and S (M, M)."""
    R, S = np.asarray(R), np.asarray(S)
    require(R.ndim == 4 and R.shape[0] == R.shape[1] and R.shape[2] == R.shape[3],
            f"{owner}: R must have shape (M, M, K, K), got {R.shape}")
    require(S.shape == R.shape[:2], f"{owner}: S must have shape (M, M) = {R.shape[:2]}, got {S.shape}")
    require(bool(np.all(np.isfinite(R))), f"{owner}: R has non-finite entries")


def shares_items(item: np.ndarray, worker: np.ndarray) -> bool:
    """Whether two different annotators answered a common item (a co-occurrence (3) is observed). item, worker
    (n,): integer codes >= 0 of each answer's item and annotator (items coded 0..n_items - 1)."""
    item, worker = np.asarray(item), np.asarray(worker)
    for name, codes in (("item", item), ("worker", worker)):
        require(codes.ndim == 1 and (codes.size == 0 or np.issubdtype(codes.dtype, np.integer)),
                f"shares_items: {name} must be a 1-D array of integer codes, got {codes.dtype} {codes.shape}")
        require(codes.size == 0 or int(codes.min()) >= 0, f"shares_items: {name} codes must be >= 0")
    require(item.shape == worker.shape, f"shares_items: item {item.shape} and worker {worker.shape} differ")
    require(item.size == 0 or int(item.max()) <= 4 * item.size + 1024,
            "shares_items: item codes must be dense (0..n_items - 1 for the items answered)")
    return bool(two_workers_share_an_item(item.astype(np.int64), worker.astype(np.int64)))


SHARED_ITEM_METHODS = ("symnmf", "dessymnmf", "robsymnmf", "robsymnmf-unweighted", "multispa", "cnmf", "tensor-admm",
                       "tensor-admm-euclidean", "tensor-admm-observed", "kos")
ONE_MODEL_METHODS = (*SHARED_ITEM_METHODS[:-1], "spectral-ds")  # one model from cross moments: one class order


MINIMAX_COPIES = 17  # minimax entropy's (N + M) K^2 terms: theta, its preconditioner, L-BFGS's gradient, trial point,
# trial gradient and direction, its 2 x 5 pairs (minimax_entropy.MEMORY_PAIRS), and a warm start's terms
CV_FITS_AT_ONCE = 2  # minimax-entropy-cv's fits held at once (one per thread, kernels.jit.FIT_THREADS <= 2): the
# refusal does not depend on the host's cores


def minimax_bytes(n_items: int, n_workers: int, n_classes: int, fits: int = 1) -> int:
    """Bytes minimax entropy holds with ``fits`` fits at once (its cross-validation: one per thread):
    MINIMAX_COPIES float64 copies of each fit's (N + M) K^2 terms."""
    return 8 * MINIMAX_COPIES * fits * (n_items + n_workers) * n_classes ** 2


def tensor_bytes(item: np.ndarray, n_items: int, n_workers: int, n_classes: int) -> int:
    """Bytes TensorADMM's third-order co-occurrences need at most (an upper bound: not every temporary lives at
    once): 24 per triple of answers to a common item (sum over items of (answers choose 3): key, cell, sort index);
    264 per nonzero moment (its indices, cells and value: 72; its three copies in each member's reading order and
    their construction's temporaries: 192); per distinct triple of annotators (at most that many and at most M choose
    3) its dense K^3 moments and mask, its members and count, its three memberships with their sort, and their
    partners and pointers (344); the same for the observed pairs of annotators (200 per nonzero pair moment, 3 K^2
    + 200 per pair: a pair's dense K^2 moments, members, memberships and their copies; measured peaks on items of
    two annotators each, 600 annotators, were 1.21 times the estimate before these were counted). Reads only the
    answered items' degrees (no array of n_items)."""
    n_workers, n_classes = int(n_workers), int(n_classes)  # numpy int8 .. int32 counts would wrap below
    d = np.unique(np.asarray(item), return_counts=True)[1].astype(float) if np.size(item) else np.zeros(1)
    triples = float((d * (d - 1) * (d - 2) / 6).sum())  # float: no overflow for any degree
    distinct = min(triples, n_workers * (n_workers - 1) * (n_workers - 2) / 6)
    nonzero = min(triples, distinct * n_classes ** 3)
    pairs = float((d * (d - 1) / 2).sum())
    distinct_pairs = min(pairs, n_workers * (n_workers - 1) / 2)
    pair_nonzero = min(pairs, distinct_pairs * n_classes ** 2)
    return int(24 * triples + 264 * nonzero + distinct * (9 * n_classes ** 3 + 344)
               + 200 * pair_nonzero + distinct_pairs * (3 * n_classes ** 2 + 200))


def tensor_memory_problem(item: np.ndarray, n_items: int, n_workers: int, n_classes: int) -> str | None:
    """Why TensorADMM would need more than CO_OCCURRENCE_BYTES, or None: its triples (``tensor_bytes``), the (M, M, K,
    K) blocks of Eq. (3) (3 copies), and posteriors and confusions as every method (``memory_problem``)."""
    N, M, K = int(n_items), int(n_workers), int(n_classes)  # numpy int8 .. int32 counts would wrap below
    need = tensor_bytes(item, N, M, K) + 8 * (4 * (N * K + M * K * K) + 3 * M * M * K * K)
    if need <= CO_OCCURRENCE_BYTES:
        return None
    return (f"{N} item{'s' if N != 1 else ''}, {M} annotators and {K} classes need about {need / 2 ** 30:.3g} GiB of "
            f"second- and third-order co-occurrences, posteriors and confusions; the limit is "
            f"{CO_OCCURRENCE_BYTES / 2 ** 30:.0f} GiB: aggregate by mv, mv-em or minimax-entropy")


def repeated_answers_problem(item: np.ndarray, worker: np.ndarray, n_workers: int) -> str | None:
    """Why the answers (codes) hold two answers of one annotator to one item, or None (the loaders refuse such
    files and frames with their line; this serves arrays given directly)."""
    keys = np.asarray(item).astype(np.int64) * n_workers + np.asarray(worker)
    if np.unique(keys).size == keys.size:
        return None
    return "an annotator answered an item twice; give one answer per item and annotator"


def folds_problem(worker: np.ndarray, n_workers: int, folds: int) -> str | None:
    """Why ``folds`` folds of each annotator's answers (Liu's partition) cannot serve, or None: the most active
    annotator must have at least ``folds`` answers, or a fold holds no answer (with one answer each, holding out
    fold 0 leaves nothing to fit)."""
    most = int(np.bincount(worker, minlength=n_workers).max()) if worker.size else 0
    if folds <= most:
        return None
    return (f"{folds} folds of each annotator's answers need an annotator with at least {folds} answers; the most "
            f"active gave {most}: choose fewer folds, or minimax-entropy")


def model_of(method: str) -> str:
    """The method whose model ``method`` learns: its -em and -per-annotator variants refine or re-align that model
    (robsymnmf-per-annotator-em -> robsymnmf)."""
    return method.split("-em")[0].removesuffix("-per-annotator")


def annotator_groups(item: np.ndarray, worker: np.ndarray, n_items: int, n_workers: int) -> np.ndarray:
    """(n_workers,) the group of each annotator: annotators are in one group when a chain of shared items joins
    them (the connected components of the item-annotator graph, numbered 0.. in order of the first annotator)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components
    n = n_workers + n_items  # nodes: annotators first, then items
    edges = coo_matrix((np.ones(item.size), (worker, n_workers + item)), shape=(n, n))
    _, part = connected_components(edges, directed=False)
    _, groups = np.unique(part[:n_workers], return_inverse=True)
    first = np.full(groups.max() + 1 if groups.size else 0, n_workers)
    np.minimum.at(first, groups, np.arange(n_workers))
    return np.argsort(np.argsort(first))[groups]


SMALLEST_GROUP = 3  # Eq. (7)-(8) and SymNMF need three annotators; smaller groups are too small to model apart
CO_OCCURRENCE_BYTES = 4 << 30  # a co-occurrence method's (M, M, K, K) blocks and their copies, at most


def memory_problem(method: str, answers) -> str | None:
    """Why ``method`` would need more than CO_OCCURRENCE_BYTES for ``answers``, or None: every method holds posteriors
    (N, K) and confusions (M, K, K) a few times over (4 copies counted); the co-occurrence methods also the (M, M, K,
    K) blocks of Eq. (3) (3 copies); TensorADMM's by ``tensor_memory_problem``. float64."""
    M, K, N = int(answers.n_workers), int(answers.n_classes), int(answers.n_items)
    base = model_of(method)
    if base.startswith("tensor-admm"):
        return tensor_memory_problem(answers.item, N, M, K)
    blocks = base in (*SHARED_ITEM_METHODS[:-1], "robsymnmf-components", "auto")
    need = 8 * (4 * (N * K + M * K * K) + (3 * M * M * K * K if blocks else 0))
    if base.startswith("minimax-entropy"):
        need += minimax_bytes(N, M, K, CV_FITS_AT_ONCE if base == "minimax-entropy-cv" else 1)
    if need <= CO_OCCURRENCE_BYTES:
        return None
    what = "co-occurrences (M^2 K^2 blocks), posteriors and confusions" if blocks else "posteriors and confusions"
    items = f"{N} item{'s' if N != 1 else ''}"
    return (f"{items}, {M} annotators and {K} classes need about {need / 2 ** 30:.3g} GiB of {what}; the limit "
            f"is {CO_OCCURRENCE_BYTES / 2 ** 30:.0f} GiB" + (": aggregate by mv, mv-em or minimax-entropy" if blocks
                                                              else ": fewer classes, items or annotators"))


class FlatPosteriorsWarning(RuntimeWarning):
    """The fitted model leaves answered items' posteriors (near) uniform, so their labels are arbitrary: minimax
    entropy's penalties flattened it, or TensorADMM's confusions collapsed."""


class AnnotatorGroupsWarning(RuntimeWarning):
    """The annotators fall into groups that never share an item, and the method learns one class order for all
    (``groups_problem``); a filter on this class silences it where it was said already."""


def groups_problem(method: str, answers) -> str | None:
    """A warning when ``method`` learns one model for all annotators but they fall into groups that never share
    an item: the co-occurrences cannot tell one group's class order from another's, or None."""
    base = model_of(method)
    if base not in ONE_MODEL_METHODS or answers.n_workers < 2:
        return None
    sizes = np.bincount(annotator_groups(answers.item, answers.worker, answers.n_items, answers.n_workers))
    n = int((sizes >= SMALLEST_GROUP).sum())
    if n < 2:  # one group, or one and a few annotators who share nothing (TREC: 760 + 1 + 1), is said nothing
        return None
    return (f"the {answers.n_workers} annotators fall into {n} groups of {SMALLEST_GROUP} or more that never share an "
            "item, so the co-occurrences "
            "cannot tell one group's class order from another's; methods that apply: robsymnmf-components (one "
            "model per group), mv, mv-em, minimax-entropy")


def answers_problem(method: str, answers) -> str | None:
    """Why ``method`` (a name of ``methods.METHODS``) cannot learn from ``answers``, or None. Without two annotators
    who answered a common item there is no co-occurrence, and the co-occurrence methods and KOS return uniform
    posteriors; Spectral-D&S with fewer than three annotators leaves a group empty and does the same."""
    base = model_of(method)
    if base in SHARED_ITEM_METHODS and not shares_items(answers.item, answers.worker):
        return (f"no two of the {answers.n_workers} annotator(s) answered a common item, so there is no "
                "co-occurrence to learn from (the posteriors come out uniform); aggregate by majority vote or "
                "Dawid-Skene EM")
    too_big = memory_problem(method, answers)
    if too_big:
        return too_big
    if method == "spectral-ds" and answers.n_workers < GROUPS:
        return (f"Spectral-D&S deals the annotators into {GROUPS} groups and needs at least {GROUPS}, got "
                f"{answers.n_workers} (the posteriors come out uniform); aggregate by majority vote or Dawid-Skene EM")
    return None
