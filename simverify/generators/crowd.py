"""Dawid-Skene ground truth and crowdsourced answers (Ibrahim & Fu 2021, Eq. 1 and Appendix C).

Shapes: prior lambda (K,); confusion (M, K observed, K true), columns summing to 1; answering probabilities
p (N, M); answers as ``simverify.datasets.crowd.Answers`` with the true labels as gold.

- ``dawid_skene_model``: Appendix C.1.1: prior and confusion columns ~ Dirichlet(1); ``n_specialists`` annotators
  are class specialists, ||A_m(k, :) - e_k||_2 <= epsilon for every k.
- ``answers``: labels from the model, annotator m answering item n with probability p[n, m].
- ``observed_labels``: machine annotators' own labels (Tables 1-3), each observed with probability p[n, m].
- ``answering_probabilities``: the designs: every annotator with p_m (fixed or drawn from a range), designated
  annotators with p_d (Tables 1-2), and the block-missing design of Appendix C.2 (disjoint parts of the items,
  0.1N, 0.3N, 0.6N, each labelled by P annotators).
- ``exact_cooccurrences``: R_{m,j} = A_m D A_j^T on chosen blocks (the noiseless case of Table 6).
- ``confusable_model``, ``heavy_tailed_probabilities``, ``bayes_error``: sparse many-class problems (annotators who
  confuse a few classes, a few annotators answering most items; the crowd tool's own claims) and their yardstick.
- ``clustered_model``: a model violating the SSC (Proposition 1's negative case); ``sparse_factor``: Appendix
  C.1.2's sparse H for the SymNMF convergence experiments.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..datasets.crowd import Answers
from ..kernels.crowd import draw_answers, draw_observed, map_posteriors
from ..kernels.rng import fresh_seed, generator, n_chunks
from ..kernels.streams import stream_states
from ..validation import positive_int, real_number, require

ANSWER_CHUNK = 4096  # items per random stream
MAX_DENSE = 1 << 28  # entries of a dense (N, M) answering-probability array (2 GiB of float64)
BLOCK_PARTS = (0.1, 0.3, 0.6)  # Appendix C.2: the three disjoint parts of the items


@dataclass(frozen=True)
class DawidSkeneModel:
    """priors (K,) summing to 1; confusion (M, K, K), each column (fixed true class) summing to 1."""
    priors: np.ndarray
    confusion: np.ndarray

    def posteriors(self, item: np.ndarray, worker: np.ndarray, label: np.ndarray, n_items: int) -> np.ndarray:
        """(n_items, K) MAP posteriors P(Y = k | the item's answers) under the model; answer codes that the model
        or n_items cannot index are refused (the kernel reads them unchecked)."""
        self.check_answers(item, worker, label, n_items)
        return map_posteriors(item, worker, label, self.priors, self.confusion, n_items)

    def check_answers(self, item, worker, label, n_items: int) -> None:
        """Refuse codes out of the model's range: item, worker, label 1-d integer arrays of one length, within
        0..n_items-1, 0..M-1 and 0..K-1 (M, K the confusion's)."""
        n_items = positive_int("n_items", n_items)
        M, K = self.confusion.shape[0], self.priors.size
        require(self.confusion.ndim == 3 and self.confusion.shape[1:] == (K, K),
                f"the model's confusion must have shape (M, K, K) with K = {K}, got {self.confusion.shape}")
        n = None
        for name, codes, size in (("item", item, n_items), ("worker", worker, M), ("label", label, K)):
            arr = np.asarray(codes)
            require(arr.ndim == 1 and arr.dtype.kind in "iu", f"{name} must be a 1-d array of integer codes, got "
                                                              f"dtype {arr.dtype} and shape {arr.shape}")
            require(n is None or arr.size == n, f"item, worker and label differ in length ({n} and {arr.size})")
            n = arr.size
            require(arr.size == 0 or (int(arr.min()) >= 0 and int(arr.max()) < size),
                    f"{name} codes must lie in 0..{size - 1} for this model, got {int(arr.min())}..{int(arr.max())}")

    def permuted(self, perm: np.ndarray) -> DawidSkeneModel:
        """The model with true classes relabelled: new class k is old class perm[k]."""
        return DawidSkeneModel(self.priors[perm], np.ascontiguousarray(self.confusion[:, :, perm]))


def specialist_confusion(K: int, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """(K, K) confusion of a class specialist: (1 - s) I + s C with C's columns ~ Dirichlet(1), s the largest
    value in [0, 1] with max_k ||A(k, :) - e_k||_2 <= epsilon (the row distance is linear in s)."""
    C = rng.dirichlet(np.ones(K), size=K).T
    worst = np.sqrt(((C - np.eye(K)) ** 2).sum(axis=1)).max()
    s = min(1.0, epsilon / worst) if worst > 0 else 1.0
    return (1.0 - s) * np.eye(K) + s * C


def dawid_skene_model(M: int, K: int, seed, n_specialists: int = 1, epsilon: float = 0.1) -> DawidSkeneModel:
    """Appendix C.1.1's model: prior ~ Dirichlet(1); n_specialists annotators (chosen at random) near the
    identity; every other confusion column ~ Dirichlet(1)."""
    M, K = positive_int("M", M), positive_int("K", K)
    require(K >= 2, f"K must be at least 2, got {K}")
    require(isinstance(n_specialists, int) and 0 <= n_specialists <= M,
            f"n_specialists must be an integer in [0, M={M}], got {n_specialists!r}")
    epsilon = real_number("epsilon", epsilon, 0.0, 10.0)
    rng = generator(seed)
    prior = rng.dirichlet(np.ones(K))
    confusion = rng.dirichlet(np.ones(K), size=(M, K)).transpose(0, 2, 1)
    for m in rng.choice(M, size=n_specialists, replace=False):
        confusion[m] = specialist_confusion(K, epsilon, rng)
    return DawidSkeneModel(prior, confusion)


def answers(model: DawidSkeneModel, p: np.ndarray, seed) -> Answers:
    """Answers of N = p.shape[0] items: true labels ~ prior, annotator m answers item n with probability p[n, m]
    a label ~ confusion[m][:, true]. One random stream per ANSWER_CHUNK items. Items nobody answered are dropped
    (their codes stay in order)."""
    N, M = p.shape
    require(M == model.confusion.shape[0], f"p has {M} annotator columns, the model {model.confusion.shape[0]}")
    s_truth, s_answers = fresh_seed(seed).spawn(2)  # the same seed gives the same draw
    truth = generator(s_truth).choice(model.priors.size, size=N, p=model.priors)
    cdf = np.cumsum(model.confusion, axis=1)
    parts = [draw_answers(g, truth[rows], cdf, np.ascontiguousarray(p[rows]), rows.start)
             for g, rows in _chunks(s_answers, N)]
    return _answered(parts, truth, M, model.priors.size)


def observed_labels(labels: np.ndarray, truth: np.ndarray, p: np.ndarray, n_classes: int, seed) -> Answers:
    """Machine annotators (Tables 1-3): annotator m's own label labels[n, m] (N, M) int64 of item n is observed
    with probability p[n, m] (N, M); truth (N,) the gold labels. One random stream per ANSWER_CHUNK items; items
    nobody answered are dropped, as in ``answers``."""
    require(labels.shape == p.shape and truth.shape == labels.shape[:1],
            f"labels {labels.shape}, p {p.shape} and truth {truth.shape} disagree")
    require(labels.size == 0 or (labels.min() >= 0 and labels.max() < n_classes),
            f"labels must be class codes in [0, {n_classes})")
    labels = np.ascontiguousarray(labels, dtype=np.int64)
    parts = [draw_observed(g, labels[rows], np.ascontiguousarray(p[rows]), rows.start)
             for g, rows in _chunks(fresh_seed(seed), labels.shape[0])]
    return _answered(parts, truth, labels.shape[1], n_classes)


def _chunks(seed, N: int) -> list[tuple[np.ndarray, slice]]:
    """One stream (4,) uint64 per ANSWER_CHUNK items, with the items' slice."""
    states = stream_states(seed, n_chunks(N, ANSWER_CHUNK))
    return [(g, slice(c * ANSWER_CHUNK, min((c + 1) * ANSWER_CHUNK, N))) for c, g in enumerate(states)]


def _answered(parts: list, truth: np.ndarray, M: int, K: int) -> Answers:
    """Answers from chunks of (item, worker, label): items nobody answered dropped, codes kept in item order."""
    N = truth.size
    item, worker, label = (np.concatenate([part[i] for part in parts]) for i in range(3))
    answered = np.flatnonzero(np.bincount(item, minlength=N))  # O(n), sorted
    code = np.full(N, -1, dtype=np.int64)
    code[answered] = np.arange(answered.size)
    return Answers(code[item], worker, label, answered + 1, np.arange(1, M + 1), np.arange(1, K + 1),
                   truth[answered].astype(np.int64))


def answering_probabilities(N: int, M: int, seed, p: float | tuple[float, float] = 0.3,
                            designated: int = 0, p_designated: float = 0.8) -> np.ndarray:
    """p (N, M): each annotator's probability, fixed (p a number) or drawn uniformly from p = (lo, hi) per
    annotator; ``designated`` annotators chosen at random answer with p_designated (Tables 1-2)."""
    N, M = positive_int("N", N), positive_int("M", M)
    rng = generator(seed)
    if isinstance(p, tuple):
        lo, hi = real_number("p low", p[0], 0.0, 1.0), real_number("p high", p[1], 0.0, 1.0)
        require(lo <= hi, f"p range must be increasing, got {p}")
        per = rng.uniform(lo, hi, size=M)
    else:
        per = np.full(M, real_number("p", p, 0.0, 1.0))
    require(isinstance(designated, int) and 0 <= designated <= M, f"designated must be in [0, {M}]")
    per[rng.choice(M, size=designated, replace=False)] = real_number("p_designated", p_designated, 0.0, 1.0)
    return np.broadcast_to(per, (N, M)).copy()


def block_missing_probabilities(N: int, M: int, P: int | tuple[int, ...], seed, p: float = 1.0,
                                parts: tuple[float, ...] = BLOCK_PARTS) -> np.ndarray:
    """Appendix C.2: the items split into disjoint parts of sizes parts * N, each labelled (with probability p per
    item) by P annotators chosen at random (P one number, or one per part: 'by varying P for the three test data
    parts'), every annotator in at least one part. p (N, M)."""
    N, M = positive_int("N", N), positive_int("M", M)
    sizes = tuple(P) if isinstance(P, tuple) else (P,) * len(parts)
    require(len(sizes) == len(parts), f"P has {len(sizes)} entries for {len(parts)} parts")
    for k in sizes:
        positive_int("P", k)
    require(max(sizes) <= M and sum(sizes) >= M, f"P={P} annotators per part cannot cover M={M} in {len(parts)} parts")
    return part_probabilities(N, M, part_members(M, sizes, generator(seed)), p, parts)


def part_probabilities(N: int, M: int, members: list[np.ndarray], p: float = 1.0,
                       parts: tuple[float, ...] = BLOCK_PARTS) -> np.ndarray:
    """p (N, M): the items split into disjoint parts of sizes parts * N, part k answered by annotators members[k],
    each with probability p per item."""
    require(len(members) == len(parts), f"{len(members)} member lists for {len(parts)} parts")
    bounds = np.round(np.cumsum((0.0,) + tuple(parts)) / sum(parts) * N).astype(int)
    out = np.zeros((positive_int("N", N), positive_int("M", M)))
    for k, chosen in enumerate(members):
        out[bounds[k]:bounds[k + 1], chosen] = real_number("p", p, 0.0, 1.0)
    return out


def part_members(M: int, sizes: tuple[int, ...], rng: np.random.Generator) -> list[np.ndarray]:
    """The annotators of each part (sizes[k] of them in part k), every annotator in at least one part: the
    annotators are dealt out at random first (part k receives at most sizes[k]), then each part is filled up with
    others chosen at random."""
    require(sum(sizes) >= M and max(sizes) <= M, f"parts of sizes {sizes} cannot cover M={M} annotators")
    order = rng.permutation(M)
    dealt: list[list[int]] = [[] for _ in sizes]
    k = 0
    for m in order:
        while len(dealt[k % len(sizes)]) >= sizes[k % len(sizes)]:
            k += 1
        dealt[k % len(sizes)].append(int(m))
        k += 1
    members = []
    for k, size in enumerate(sizes):
        outside = np.ones(M, dtype=bool)
        outside[dealt[k]] = False
        others = np.flatnonzero(outside)  # np.setdiff1d(arange(M), dealt[k]), without its sort
        members.append(np.sort(np.concatenate([dealt[k], rng.choice(others, size=size - len(dealt[k]),
                                                                     replace=False)]).astype(np.int64)))
    return members


def missing_share(members: list[np.ndarray], M: int) -> float:
    """The proportion of the M^2 blocks R_{m,j} no part observes (the diagonal counts as missing, as in Section 4)."""
    seen = np.zeros((M, M), dtype=bool)
    for chosen in members:
        seen[np.ix_(chosen, chosen)] = True
    np.fill_diagonal(seen, False)
    return float(1.0 - seen.mean())


def members_for_missing(M: int, missing: float, seed, parts: int = len(BLOCK_PARTS),
                        tries: int = 20000) -> list[np.ndarray]:
    """Appendix C.2's 'we adjust P and generate the cases such that the missing proportion is achieved': the
    annotators of each part (``part_members``) for a design leaving exactly round(missing * M^2) of the M^2 blocks
    missing, searched at random (part sizes P uniform in [2, M], covering M); the first found. Raises ValueError
    if none is found in ``tries`` draws."""
    target = int(round(real_number("missing", missing, 0.0, 1.0) * M * M))
    rng = generator(seed)
    for _ in range(tries):
        sizes = tuple(int(v) for v in rng.integers(2, M + 1, size=parts))
        if sum(sizes) < M:
            continue
        members = part_members(M, sizes, rng)
        if int(round(missing_share(members, M) * M * M)) == target:
            return members
    raise ValueError(f"no design of {parts} parts leaves {100 * missing:g} % of the {M}^2 blocks missing")


def exact_cooccurrences(model: DawidSkeneModel, observed: np.ndarray) -> np.ndarray:
    """R (M, M, K, K): R_{m,j} = A_m D A_j^T where observed[m, j], zero elsewhere (the noiseless blocks)."""
    A, lam = model.confusion, model.priors
    R = np.einsum("mak,k,jbk->mjab", A, lam, A)
    return np.where(observed[:, :, None, None], R, 0.0)


def observed_at_random(M: int, fraction_missing: float, seed) -> np.ndarray:
    """(M, M) symmetric bool: each off-diagonal pair observed with probability 1 - fraction_missing."""
    upper = np.triu(generator(seed).random((M, M)) >= real_number("fraction_missing", fraction_missing, 0.0, 1.0), 1)
    return upper | upper.T


def clustered_model(M: int, K: int, seed, spread: float = 0.05) -> DawidSkeneModel:
    """A model whose H violates the SSC: every confusion column within ``spread`` of 0.6 e_k + 0.4/K (no row of H
    near an extreme ray), prior ~ Dirichlet(1)."""
    g = generator(seed)
    base = 0.6 * np.eye(K) + 0.4 / K
    confusion = base[None] + spread * (g.dirichlet(np.ones(K), size=(M, K)).transpose(0, 2, 1) - 1.0 / K)
    return DawidSkeneModel(g.dirichlet(np.ones(K)), confusion)


def sparse_factor(J: int, K: int, phi: float, seed) -> np.ndarray:
    """Appendix C.1.2's H (J, K): each entry non-zero with probability phi, non-zero entries uniform on (0, 1)."""
    g = generator(seed)
    return np.where(g.random((J, K)) < phi, g.random((J, K)), 0.0)


def confusable_model(M: int, K: int, seed, confusable: int | None = None, accuracy: tuple[float, float] = (0.5, 0.95),
                     noise: float = 0.01) -> DawidSkeneModel:
    """Annotators who confuse a few classes among many (the sparse problems of the crowd tool's recommendation, not a
    paper's): prior ~ Dirichlet(2 1_K); each class k has ``confusable`` (default min(2, K - 1)) other classes it is
    mistaken for (one random
    set per class, shared by the annotators); annotator m is right with probability a_m ~ U(accuracy), and its
    mistakes on class k go to k's confusable classes in shares ~ Dirichlet(1), mixed with ``noise`` of the uniform
    column. Returns prior (K,) and confusion (M, K, K)."""
    M, K = positive_int("M", M), positive_int("K", K)
    require(K >= 2, f"K must be at least 2, got {K}")
    confusable = min(2, K - 1) if confusable is None else confusable
    require(isinstance(confusable, (int, np.integer)) and not isinstance(confusable, bool) and 1 <= confusable < K,
            f"confusable must be an integer in [1, K - 1 = {K - 1}], got {confusable!r}")
    require(isinstance(accuracy, tuple) and len(accuracy) == 2,
            f"accuracy must be a (low, high) pair, got {accuracy!r}")
    lo, hi = real_number("accuracy low", accuracy[0], 0.0, 1.0), real_number("accuracy high", accuracy[1], 0.0, 1.0)
    require(lo <= hi, f"accuracy range must be increasing, got {accuracy}")
    noise = real_number("noise", noise, 0.0, 1.0)
    g = generator(seed)
    prior = g.dirichlet(np.full(K, 2.0))
    neighbours = np.array([g.choice(np.delete(np.arange(K), k), size=confusable, replace=False) for k in range(K)])
    right = g.uniform(lo, hi, size=M)
    confusion = np.zeros((M, K, K))
    for m in range(M):
        for k in range(K):
            confusion[m, k, k] = right[m]
            confusion[m, neighbours[k], k] = (1.0 - right[m]) * g.dirichlet(np.ones(confusable))
    return DawidSkeneModel(prior, (1.0 - noise) * confusion + noise / K)


def heavy_tailed_probabilities(N: int, M: int, per_item: float, zipf: float = 1.0) -> np.ndarray:
    """p (N, M): annotator m (0-based) answers each item with probability min(1, per_item w_m), w_m proportional to
    (m + 1)^(-zipf) and summing to 1: a few annotators answer most items, about ``per_item`` answers per item (fewer
    where the cap at 1 binds)."""
    N, M = positive_int("N", N), positive_int("M", M)
    require(N * M <= MAX_DENSE, f"heavy_tailed_probabilities: N x M = {N * M:,} entries exceed {MAX_DENSE:,} (a dense "
                                "(N, M) array)")
    per_item = real_number("per_item", per_item, 0.0, float(M))
    zipf = real_number("zipf", zipf, 0.0, 10.0)
    w = np.arange(1, M + 1, dtype=float) ** -zipf
    return np.broadcast_to(np.minimum(1.0, per_item * w / w.sum()), (N, M)).copy()


def bayes_error(model: DawidSkeneModel, answers: Answers) -> float:
    """The Bayes-optimal error of ``answers`` under the true ``model``: the mean over items of 1 - the largest
    posterior (the MAP decision's expected error given the answers; the yardstick no aggregator beats on average)."""
    post = model.posteriors(answers.item, answers.worker, answers.label, answers.n_items)
    return float(np.mean(1.0 - post.max(axis=1)))
