"""TensorADMM (Traganitis, Pages-Zamora & Giannakis 2018, "Blind multiclass ensemble classification"), the
baseline 'TensorADMM' of Ibrahim & Fu (2021), as the authors' released code runs it (``EstConfMat_AO_ADMM.m`` with
``inner_ADMM.m``, ``inner_ADMM_p_upd.m``, ``ProjectOntoSimplex1.m``; called from ``main_AMT.m``): the confusions
and the prior fitted jointly to the annotators' second- and third-order co-occurrences by alternating least
squares, each block by a few proximal ADMM steps on the simplex, from a random start.

Neither paper prints the procedure; the code is the reference. What the callers do that a reader might not
expect, kept by ``moments="code"`` (the default):

- the first-order moments are not computed (``calc_annotator_moments(F, [2, 3])``) but their term stays in the
  objective with weight 1, so ||Gamma_m p||^2 is penalised for every annotator;
- the weights that mark unobserved pairs and triples (``M_mat_val``, ``M_tens_val``, which the moment code
  returns) are not passed, so every pair and triple counts and the unobserved ones are fitted as zeros;
- the confusions are aligned annotator by annotator (``getPermutedMatrix``: column k becomes the column largest
  in row k), the prior left as fitted, then the MAP predictor.

On sparse answers this configuration stalls at uniform confusions after 2 sweeps: the ADMM's argument there has
every entry of a column negative, and the code's projection (``ProjectOntoSimplex1.m``: negatives clipped to 0
first) maps it to the uniform column. Two one-line corrections, each beside the code's choice:
``projection="euclidean"`` (the Euclidean projection onto the simplex, which ADMM's step calls for) and
``moments="observed"`` (the means included and only the observed pairs and triples fitted: weights 1 where some
item was answered by all of them, else 0, the weights the code's function takes but its callers do not pass).

Dense M^3 K^3 arrays are what kept the authors' run from RTE and TREC ('N/A', 'scalability'); here the triples
are stored only where observed and the unobserved ones enter in closed form (elementary symmetric sums of the
Gram matrices).

Answers are integer codes: item, worker, label (n,)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...kernels.crowd.tensor import ao_admm, triple_cooccurrences
from ...kernels.rng import generator
from ...validation import Integer, Options, Seed, check_parameter, require, warn
from .codes import FlatPosteriorsWarning, check_codes, repeated_answers_problem, tensor_memory_problem
from .cooccurrence import cooccurrences, item_index
from .model import DawidSkeneModel, align_each_annotator

MAX_SWEEPS = 2 ** 31 - 2  # max_sweeps at most (the kernel takes max_sweeps + 1 as an int)
OUTER_SWEEPS = 499  # main_AMT.m: params.outer_max_iter = 500, and its loop runs while iter < 500
INNER_STEPS = 10  # params.inner_max_iter, for the confusions and the prior
OUTER_TOL = 1e-6  # params.outer_tol: the confusions' relative changes (matrix 1-norm) summed, and the prior's
INNER_TOL = 1e-3  # params.inner_tol
MU_CONSTANTS = (1e-7, 1e-2)  # EstConfMat_AO_ADMM.m: mu = 1e-7 + 1e-2 x objective / sum of the squared moments
MOMENTS = ("code", "observed")
PROJECTIONS = ("code", "euclidean")  # ProjectOntoSimplex1.m (negatives clipped first), or the Euclidean projection
METHODS = {"tensor-admm": {}, "tensor-admm-euclidean": {"projection": "euclidean"},  # methods.METHODS' names
           "tensor-admm-observed": {"moments": "observed"}}
COLLAPSED = 1e-6  # every confusion's columns equal to this: the fit collapsed (warned)


@dataclass(frozen=True)
class TensorFit:
    """model the fitted Dawid-Skene model, aligned annotator by annotator as main_AMT.m aligns it for labels;
    unaligned the fit as it came (main_synthetic.m scores it by Eq. 19's common permutation); sweeps the outer
    sweeps run; objective the final value of the least-squares objective."""
    model: DawidSkeneModel
    sweeps: int
    objective: float
    unaligned: DawidSkeneModel | None = None


def _first_moments(worker: np.ndarray, label: np.ndarray, n_workers: int, n_classes: int) -> np.ndarray:
    """(M, K): each annotator's answer frequencies over the items it answered (calc_annotator_moments' mean_vec);
    zero for an annotator without answers."""
    counts = np.zeros((n_workers, n_classes))
    np.add.at(counts, (worker, label), 1.0)
    return counts / np.maximum(counts.sum(axis=1, keepdims=True), 1.0)


def triple_moments(item: np.ndarray, worker: np.ndarray, label: np.ndarray, n_items: int, n_workers: int,
                   n_classes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The third-order co-occurrences where observed: (triples (T, 3) with i < j < k, T3 (T, K, K, K) the
    fraction of their common items answered (a, b, c), counts (T,) their common items)."""
    check_codes("triple_moments", item, worker, label, n_items, n_workers, n_classes)
    item_ptr, order = item_index(item, n_items)
    return triple_cooccurrences(item_ptr, order, worker.astype(np.int64), label.astype(np.int64), n_workers,
                                n_classes)


def _roles_of(members: np.ndarray, n_workers: int) -> tuple[np.ndarray, np.ndarray]:
    """(ptr (M + 1,), roles (size, 2)) for tuples of annotators ``members`` (T, r): annotator m's tuples are
    roles[ptr[m]:ptr[m+1]], each (tuple index, m's position in it), in tuple order."""
    T, r = members.shape
    member = members.T.ravel()  # position-major: every tuple's first member, then every second, ...
    entries = np.column_stack([np.tile(np.arange(T), r), np.repeat(np.arange(r), T)]).astype(np.int64)
    by = np.lexsort((entries[:, 0], member))
    ptr = np.zeros(n_workers + 1, dtype=np.int64)
    np.cumsum(np.bincount(member, minlength=n_workers), out=ptr[1:])
    return ptr, np.ascontiguousarray(entries[by])


def _sparse_cells(moments: np.ndarray, members: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(cell_ptr (T + 1,), rows (nnz, r), values (nnz,)): the nonzero entries of ``moments`` (T, K, ..., K) with r
    axes of answers, tuple by tuple (tuple t's are cell_ptr[t]:cell_ptr[t+1]); a cell's answer a of member m is
    stored as m K + a, the row of Gamma (M K, K) that holds m's confusion for answer a."""
    T, K = moments.shape[0], moments.shape[1]
    flat = moments.reshape(T, int(np.prod(moments.shape[1:])))
    tuples, cols = np.nonzero(flat)
    ptr = np.zeros(T + 1, dtype=np.int64)
    np.cumsum(np.bincount(tuples, minlength=T), out=ptr[1:])
    answers = np.column_stack(np.unravel_index(cols, moments.shape[1:])).astype(np.int64).reshape(-1, moments.ndim - 1)
    rows = members[tuples] * K + answers
    return ptr, np.ascontiguousarray(rows), np.ascontiguousarray(flat[tuples, cols])


def _member_streams(members: np.ndarray, cell_ptr: np.ndarray, rows: np.ndarray, values: np.ndarray,
                    roles: np.ndarray, n_classes: int
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each annotator's tuples and cells laid out in the order its block update reads them (``roles``' order):
    (partners (rT, r - 1) the other members of entry e's tuple in the tuple's order, entry_ptr (rT + 1,), own
    (E,) the annotator's answer in each of entry e's cells entry_ptr[e]:entry_ptr[e+1], theirs (E, r - 1) the
    partners' rows of Gamma (M K, K) (partner K + answer, see ``_sparse_cells``), values (E,)). A copy of the cells
    per member (r times the nonzeros), read sequentially rather than through the tuple index: on TREC's 49,184
    triples the scattered reads cost more than the arithmetic."""
    r = members.shape[1]
    t, role = roles[:, 0], roles[:, 1]
    others = np.array([[q for q in range(r) if q != own] for own in range(r)], dtype=np.int64)[role]  # (rT, r - 1)
    counts = cell_ptr[t + 1] - cell_ptr[t]
    entry_ptr = np.zeros(t.size + 1, dtype=np.int64)
    np.cumsum(counts, out=entry_ptr[1:])
    source = np.repeat(cell_ptr[t] - entry_ptr[:-1], counts) + np.arange(entry_ptr[-1])  # each entry's cells
    theirs = rows[source[:, None], np.repeat(others, counts, axis=0)]
    own = rows[source, np.repeat(role, counts)] % n_classes
    partners = members[t[:, None], others]
    return (np.ascontiguousarray(partners), entry_ptr, np.ascontiguousarray(own), np.ascontiguousarray(theirs),
            np.ascontiguousarray(values[source]))


def _moment_bundle(members: np.ndarray, moments: np.ndarray, n_workers: int) -> tuple:
    """The kernel's view of the observed pairs or triples: (members, *_sparse_cells(moments, members),
    *_roles_of(members), *_member_streams(...))."""
    members = np.ascontiguousarray(members, dtype=np.int64)
    cell_ptr, rows, values = _sparse_cells(moments, members)
    member_ptr, roles = _roles_of(members, n_workers)
    return (members, cell_ptr, rows, values, member_ptr, roles,
            *_member_streams(members, cell_ptr, rows, values, roles, moments.shape[1]))


def _observed_pairs(R: np.ndarray, S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(pairs (P, 2) with i < j, R2 (P, K, K)): the pairwise moments of Eq. (3) where some item was answered by
    both, in row-major order."""
    pairs = np.argwhere(np.triu(S > 0, 1)).astype(np.int64)
    return pairs, np.ascontiguousarray(R[pairs[:, 0], pairs[:, 1]])


def _random_start(seed, n_workers: int, n_classes: int) -> DawidSkeneModel:
    """alg_init.m with init = 0: every confusion entry uniform on [0, 1), each column normalised; the prior uniform
    (EstConfMat_AO_ADMM.m overwrites alg_init's random prior)."""
    confusion = generator(seed).random((n_workers, n_classes, n_classes))
    return DawidSkeneModel(np.full(n_classes, 1.0 / n_classes), confusion / confusion.sum(axis=1, keepdims=True))


def tensor_admm(item: np.ndarray, worker: np.ndarray, label: np.ndarray, n_items: int, n_workers: int,
                n_classes: int, seed=0, moments: str = "code", projection: str = "code",
                max_sweeps: int = OUTER_SWEEPS) -> TensorFit:
    """TensorADMM's fit from answers (n,) codes: ``moments`` "code" (as the authors' callers run it) or
    "observed", ``projection`` "code" or "euclidean" (see the module); ``seed`` draws the random start; at most
    ``max_sweeps`` outer sweeps. One answer per item and annotator; without two annotators who share an item
    there is nothing to fit and the model is uniform (0 sweeps)."""
    check_parameter("tensor_admm", "seed", seed, Seed())
    check_parameter("tensor_admm", "moments", moments, Options(*MOMENTS))
    check_parameter("tensor_admm", "projection", projection, Options(*PROJECTIONS))
    check_parameter("tensor_admm", "max_sweeps", max_sweeps, Integer(1, MAX_SWEEPS))
    check_codes("tensor_admm", item, worker, label, n_items, n_workers, n_classes)
    item, worker, label = np.asarray(item), np.asarray(worker), np.asarray(label)
    n_items, n_workers, n_classes = int(n_items), int(n_workers), int(n_classes)  # numpy counts: no wrap-around
    too_big = tensor_memory_problem(item, n_items, n_workers, n_classes)
    require(too_big is None, f"tensor_admm: {too_big}")
    twice = repeated_answers_problem(item, worker, n_workers)
    require(twice is None, f"tensor_admm: {twice}")
    M, K = n_workers, n_classes
    R, S = cooccurrences(item, worker, label, n_items, M, K)
    triples, T3, _ = triple_moments(item, worker, label, n_items, M, K)
    everything = moments == "code"
    m1 = np.zeros((M, K)) if everything else _first_moments(worker, label, M, K)
    pairs, R2 = _observed_pairs(R, S)
    if pairs.shape[0] == 0:  # nothing to fit (no two annotators share an item): uniform, as the other methods give
        uniform = DawidSkeneModel(np.full(K, 1.0 / K), np.full((M, K, K), 1.0 / K))
        return TensorFit(uniform, 0, 0.0, uniform)
    start = _random_start(seed, M, K)
    Gamma, p, sweeps, objective = ao_admm(
        np.ascontiguousarray(start.confusion), start.priors, m1, _moment_bundle(pairs, R2, M),
        _moment_bundle(triples, T3, M), everything, projection == "code", int(max_sweeps) + 1, INNER_STEPS, OUTER_TOL,
        INNER_TOL, *MU_CONSTANTS)
    fitted = DawidSkeneModel(p, Gamma)
    model = align_each_annotator(fitted, floor=0.0)
    _warn_if_collapsed(model, int(sweeps), moments, projection)
    return TensorFit(model, int(sweeps), float(objective), fitted)


def _warn_if_collapsed(model: DawidSkeneModel, sweeps: int, moments: str, projection: str) -> None:
    """A FlatPosteriorsWarning when every annotator's confusion has equal columns (to COLLAPSED): the answers
    then carry no information and every posterior is the prior."""
    if model.confusion.size and np.ptp(model.confusion, axis=2).max() < COLLAPSED:
        hint = ("; the code's projection stalls there: tensor-admm-euclidean and tensor-admm-observed do not"
                if moments == "code" and projection == "code" else "")
        warn("tensor-admm", f"the fit collapsed to uniform confusions after {sweeps} sweeps, so every posterior is "
             f"the prior and the labels are arbitrary{hint}", category=FlatPosteriorsWarning)

