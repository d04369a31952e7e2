"""Measures of Ibrahim & Fu (2021): one replicate of each simulation, composed of generators, solvers and metrics.
Each takes ``seed`` (a SeedSequence, spawned once and unpacked) and keyword parameters."""
from __future__ import annotations

import contextlib
import functools
import warnings
from pathlib import Path

import numpy as np
from scipy.optimize import linear_sum_assignment

from simverify import metrics
from simverify.datasets import crowd as data
from simverify.generators import crowd as gen
from simverify.kernels.crowd import designated_imputation
from simverify.kernels.rng import children, generator
from simverify.solvers.crowd import aggregate, cooccurrences, pipeline, square_root, symnmf
from simverify.solvers.crowd.codes import AnnotatorGroupsWarning, FlatPosteriorsWarning
from simverify.solvers.crowd.cooccurrence import assemble, observed_blocks, square_root_of_product
from simverify.solvers.crowd.methods import aggregate_many
from simverify.solvers.crowd.model import DawidSkeneModel, align_each_annotator, align_to_diagonal, from_symnmf_factor
from simverify.solvers.crowd.tensor_admm import tensor_admm

SCHEDULES = ("power", "zero", "constant")
AGGREGATORS = ("mv", "mv-em", "symnmf", "dessymnmf", "dessymnmf-em", "robsymnmf", "robsymnmf-em",
               "robsymnmf-unweighted", "multispa", "cnmf", "spectral-ds", "minimax-entropy", "kos", "ghosh-svd",
               "eigen-ratio", "tensor-admm", "robsymnmf-em-smoothed", "dessymnmf-em-smoothed",
               *(f"{m}-per-annotator{em}" for m in ("symnmf", "dessymnmf", "robsymnmf") for em in ("", "-em")))
MODEL_LAWS = ("dirichlet", "clustered")
# each method's row name in the paper's tables
PAPER_ROWS = {"robsymnmf": "RobSymNMF", "robsymnmf-em": "RobSymNMF-EM", "robsymnmf-unweighted": "RobSymNMF (w=1)",
              "dessymnmf": "DesSymNMF", "dessymnmf-em": "DesSymNMF-EM", "symnmf": "SymNMF (w/o imput.)",
              "multispa": "MultiSPA", "cnmf": "CNMF", "spectral-ds": "Spectral-D&S",
              "minimax-entropy": "MinimaxEntropy", "mv-em": "MV-EM", "tensor-admm": "TensorADMM",
              "kos": "KOS", "ghosh-svd": "GhoshSVD", "eigen-ratio": "EigenRatio", "mv": "Majority Voting",
              **{f"{m}-per-annotator{em}": f"{row}{em.upper()} (code's alignment)"
                 for m, row in (("symnmf", "SymNMF"), ("dessymnmf", "DesSymNMF"), ("robsymnmf", "RobSymNMF"))
                 for em in ("", "-em")}}
STARTS = ("identity", "near")



def symnmf_error(H_hat: np.ndarray, H: np.ndarray) -> float:
    """Figure 2's ||H Pi - H_(t)||_F^2 / K, Pi the best column permutation (Hungarian)."""
    cost = ((H[:, :, None] - H_hat[:, None, :]) ** 2).sum(axis=0)
    rows, cols = linear_sum_assignment(cost)
    return float(cost[rows, cols].sum() / H.shape[1])


def measure_identifiability(seed, *, M: int, K: int, model_law: str = "dirichlet", n_specialists: int = 1,
                            epsilon: float = 0.1, n_iter: int = 20000) -> dict:
    """Proposition 1: SymNMF (Eq. 13, alpha = 0, from Q_(0) = I) of the exact X = H H^T, then extraction; the MSE of
    Eq. (19) against the true model (mse) and the SymNMF residual ||X - H_hat H_hat^T||_F / ||X||_F (fit): a small
    fit with a large MSE is another factorisation, i.e. non-identifiability."""
    s_model, = seed.spawn(1)
    model = gen.dawid_skene_model(M, K, s_model, n_specialists, epsilon) if model_law == "dirichlet" \
        else gen.clustered_model(M, K, s_model)
    X = assemble(gen.exact_cooccurrences(model, np.ones((M, M), dtype=bool)))
    H, _, _ = symnmf(square_root(X, K), "zero", n_iter=n_iter, tol=1e-15)
    est = from_symnmf_factor(H, M)
    return {"mse": metrics.confusion_mse(model.priors, model.confusion, est.priors, est.confusion),
            "fit": float(np.linalg.norm(X - H @ H.T) / np.linalg.norm(X))}


def near_rotation(Q: np.ndarray, distance: float, g: np.random.Generator) -> np.ndarray:
    """An orthogonal matrix at Frobenius distance ``distance`` from Q: Q exp(theta A) with A a random unit skew
    matrix, theta solved from ||exp(theta A) - I||_F = distance (bisection)."""
    from scipy.linalg import expm
    K = Q.shape[0]
    B = g.normal(size=(K, K))
    A = (B - B.T) / np.linalg.norm(B - B.T)
    lo, hi = 0.0, np.pi
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if np.linalg.norm(expm(mid * A) - np.eye(K)) < distance else (lo, mid)
    return Q @ expm(lo * A)


def measure_symnmf_path(seed, *, J: int, K: int, phi: float, iteration: list, schedule: list, psi: float = 0.75,
                        start: str = "identity", q0: float = 0.3, snr_db: float | None = None) -> dict:
    """Figure 2: X = H H^T, U its rank-K square root, Eq. (13) under each schedule from Q_(0) = I (start
    'identity', the paper's) or from an orthogonal Q_(0) at Frobenius distance q0 from the rotation Q with U = H Q^T
    (start 'near': Theorem 3's local regime, condition 15); h (schedule, iteration) = Figure 2's error after t
    iterations (t = 0: ReLU_0(U Q_(0))), and ahead (the power schedule's error below the zero schedule's at the
    last checkpoint, 1 or 0) when both schedules run. snr_db (Figure 3): U is the rank-K square root of X + sigma E
    instead, E (J, J) with i.i.d. standard normal entries (square_root symmetrises), SNR = 10 log10(||X||_F^2 / J^2 /
    sigma^2)."""
    s_h, s_start, s_noise = seed.spawn(3)
    H = gen.sparse_factor(J, K, phi, s_h)
    if snr_db is None:
        U = square_root_of_product(H)  # the rank-K square root of X = H H^T
    else:
        X = H @ H.T
        sigma = np.sqrt((X ** 2).sum() / J ** 2 / 10 ** (snr_db / 10))
        U = square_root(X + sigma * generator(s_noise).normal(size=(J, J)), K)
    Q0 = np.eye(K)
    if start == "near":
        Q_true = np.linalg.lstsq(U, H, rcond=None)[0]  # U Q_true = H
        Q0 = near_rotation(Q_true, q0, generator(s_start))
    h = np.array([[symnmf_error(np.maximum(U @ Q0, 0.0), H) if t == 0 else
                   symnmf_error(symnmf(U, s, n_iter=t, tol=0.0, psi=psi, Q0=Q0)[0], H) for t in iteration]
                  for s in schedule])
    out = {"h": h}
    if "power" in schedule and "zero" in schedule:
        out["ahead"] = float(h[schedule.index("power"), -1] < h[schedule.index("zero"), -1])
    return out


def measure_symnmf_floor(seed, *, J: int, K: int, phi: float, noise_var: list, n_iter: int = 200,
                         psi: float = 0.6) -> dict:
    """Theorem 3's floor: one H and one noise direction E (symmetric, unit-variance entries); X = H H^T + sqrt(v) E
    for each noise variance v (paired); final_h (noise_var,) = Figure 2's error after n_iter iterations."""
    s_h, s_noise = seed.spawn(2)
    H = gen.sparse_factor(J, K, phi, s_h)
    E = generator(s_noise).normal(size=(J, J))
    E = (E + E.T) / np.sqrt(2)
    X = H @ H.T
    final = [symnmf_error(symnmf(square_root(X + np.sqrt(v) * E, K), "power", n_iter=n_iter, tol=0.0, psi=psi)[0],
                          H) for v in noise_var]
    return {"final_h": np.array(final)}


def conditioned_model(M: int, K: int, seed, gamma: float, epsilon: float = 0.1,
                      draws: int = 1000) -> DawidSkeneModel:
    """Appendix C.1.1's model (one specialist), the first of ``draws`` candidates (one child seed each, those of
    ``seed.spawn(draws)``) whose A_m D^(1/2) all have condition number at most gamma."""
    for s in children(seed, draws):
        model = gen.dawid_skene_model(M, K, s, n_specialists=1, epsilon=epsilon)
        if max(np.linalg.cond(A * np.sqrt(model.priors)) for A in model.confusion) <= gamma:
            return model
    raise ValueError(f"no model with condition number <= gamma={gamma} in {draws} draws; raise gamma")


def measure_designated(seed, *, K: int, S: list, epsilon: float = 0.1, gamma: float = 10.0, groups: int = 5) -> dict:
    """Theorem 1: four annotators (m, n, l, r) = (0, 1, 2, 3) with kappa(A_m D^(1/2)) <= gamma label S items each
    (every value of S on the same model, paired); R_{m,n} is hidden and imputed by Eq. (7)-(8) from the sample
    co-occurrences. err (S,) = the median over ``groups`` independent designs (model and answers) of
    ||R_hat_{m,n} - A_m D A_n^T||_F: Theorem 1 bounds the error with probability 1 - delta, and the median is
    that kind of statement (the mean is dominated by rare near-singular estimates of U_l at small S)."""
    errs = np.array([_designated_errors(s, K, S, epsilon, gamma) for s in seed.spawn(groups)])
    return {"err": np.median(errs, axis=0)}


def _designated_errors(seed, K: int, S: list, epsilon: float, gamma: float) -> np.ndarray:
    """One design of measure_designated: the imputation error at every S (S,)."""
    s_model, s_data = seed.spawn(2)
    model = conditioned_model(4, K, s_model, gamma, epsilon)
    true = model.confusion[0] @ np.diag(model.priors) @ model.confusion[1].T
    errs = []
    for n, s in zip(S, s_data.spawn(len(S))):
        a = gen.answers(model, np.ones((n, 4)), s)
        R, counts = cooccurrences(a.item, a.worker, a.label, a.n_items, 4, K)
        observed = observed_blocks(counts)
        observed[0, 1] = observed[1, 0] = False
        X, _ = designated_imputation(np.where(observed[:, :, None, None], R, 0.0), observed, counts)
        errs.append(np.linalg.norm(X[0, 1] - true))
    return np.array(errs)


def measure_robust(seed, *, M: int, K: int, N: int, p: float, fraction_missing: float, n_corrupt: int) -> dict:
    """Theorem 2: answers from Appendix C.1.1's model, blocks hidden at random (fraction_missing), n_corrupt
    observed blocks replaced by blocks of an unrelated model ('badly estimated'); the average error
    (1/L) sum_{m<j} ||U_m U_j^T - R_{m,j}||_F of the weighted (err_weighted) and unweighted (err_unweighted)
    imputation."""
    s_model, s_p, s_data, s_mask, s_bad = seed.spawn(5)
    model = gen.dawid_skene_model(M, K, s_model)
    a = gen.answers(model, gen.answering_probabilities(N, M, s_p, p), s_data)
    R, S = cooccurrences(a.item, a.worker, a.label, a.n_items, M, K)
    S = np.where(gen.observed_at_random(M, fraction_missing, s_mask), S, 0)
    g = generator(s_bad)
    m_idx, j_idx = np.nonzero(np.triu(observed_blocks(S), 1))
    for c in g.choice(m_idx.size, size=min(n_corrupt, m_idx.size), replace=False):
        block = g.dirichlet(np.ones(K * K)).reshape(K, K)
        R[m_idx[c], j_idx[c]], R[j_idx[c], m_idx[c]] = block, block.T
    true = gen.exact_cooccurrences(model, np.ones((M, M), dtype=bool))
    upper = np.triu(np.ones((M, M), dtype=bool), 1)
    out = {}
    for name, weighted in (("err_weighted", True), ("err_unweighted", False)):
        _, U, _ = pipeline.robust_blocks(R, S, weighted)
        fitted = np.einsum("mab,jcb->mjac", U, U)
        out[name] = float(np.sqrt(((fitted - true) ** 2).sum(axis=(2, 3)))[upper].mean())
    return out


KAPPA_MN = 2.0  # the condition number of annotators m and n in measure_designated_condition (at most gamma)


def condition_confusion(c: np.ndarray, gamma: float) -> np.ndarray:
    """(K, K) confusion A = (1 - t) I + t c 1^T of condition number exactly gamma >= 1: an annotator who gives the
    true label with probability 1 - t and otherwise a label drawn from c (K,) (a point of the simplex), whatever
    the true class. With s = t / (1 - t), I + s c 1^T has K - 2 singular values 1 and two whose product is 1 + s
    and whose squares sum to 2 + 2s + K ||c||^2 s^2, so kappa(A) = gamma solves
    K ||c||^2 s^2 - (gamma + 1/gamma - 2)(1 + s) = 0."""
    K = c.size
    g, q = gamma + 1.0 / gamma - 2.0, K * float(c @ c)
    s = (g + np.sqrt(g * g + 4.0 * q * g)) / (2.0 * q)
    t = s / (1.0 + s)
    return (1.0 - t) * np.eye(K) + t * np.outer(c, np.ones(K))


def measure_designated_condition(seed, *, K: int, S: int, gamma: list, groups: int = 5) -> dict:
    """Theorem 1's growth with the condition number and with K: four annotators (m, n, l, r) = (0, 1, 2, 3) with
    confusions condition_confusion(c_a, .) (c_a and the prior ~ Dirichlet(1)), the designated l and r of condition
    number gamma and m, n of min(KAPPA_MN, gamma), so max_a kappa(A_a) = gamma; every gamma on the same c's, prior
    and answer streams (paired). Each annotator labels the same S items; R_{m,n} is hidden and imputed by
    Eq. (7)-(8). Over ``groups`` independent designs, the medians (gamma,) of err = ||R_hat_{m,n} - R_{m,n}||_F,
    varrho = min over the observed pairs of sigma_min(R_{a,b}) and bound_ratio = err / (K^2 gamma^3 /
    (varrho^2 sqrt(S))), the error over Theorem 1's rate."""
    runs = np.array([_condition_errors(s, K, S, gamma) for s in seed.spawn(groups)])  # (groups, 2, gamma)
    err, varrho = runs[:, 0], runs[:, 1]
    g = np.asarray(gamma, dtype=float)
    ratio = err * varrho ** 2 * np.sqrt(S) / (K ** 2 * g ** 3)
    return {"err": np.median(err, axis=0), "varrho": np.median(varrho, axis=0),
            "bound_ratio": np.median(ratio, axis=0)}


def _condition_errors(seed, K: int, S: int, gamma: list) -> np.ndarray:
    """One design of measure_designated_condition: (2, len(gamma)) = the error and varrho at every gamma."""
    s_model, s_data = seed.spawn(2)
    g = generator(s_model)
    prior, c = g.dirichlet(np.ones(K)), g.dirichlet(np.ones(K), size=4)
    observed = ~np.eye(4, dtype=bool)
    observed[0, 1] = observed[1, 0] = False  # (m, n) not in Omega
    out = np.empty((2, len(gamma)))
    for i, gm in enumerate(gamma):
        kappas = (min(KAPPA_MN, gm), min(KAPPA_MN, gm), gm, gm)
        model = DawidSkeneModel(prior, np.array([condition_confusion(c[a], k) for a, k in enumerate(kappas)]))
        true = gen.exact_cooccurrences(model, np.ones((4, 4), dtype=bool))
        a = gen.answers(model, np.ones((S, 4)), s_data)  # the same streams at every gamma
        R, counts = cooccurrences(a.item, a.worker, a.label, a.n_items, 4, K)
        X, _ = designated_imputation(np.where(observed[:, :, None, None], R, 0.0), observed, counts)
        out[0, i] = np.linalg.norm(X[0, 1] - true[0, 1])
        out[1, i] = min(np.linalg.svd(true[x, y], compute_uv=False)[-1] for x, y in zip(*np.nonzero(observed)))
    return out


def measure_robust_rate(seed, *, M: int, K: int, N: list, p: float, fraction_missing: list) -> dict:
    """Theorem 2 along S_{m,j} and |Omega|: answers from Appendix C.1.1's model, each annotator labelling each item
    with probability p; the first N items of one stream for every N (paired: S_{m,j} ~ p^2 N) and nested masks
    (pair (m, j) hidden when its uniform draw is below the fraction: the blocks seen at 50 % missing are also seen
    at 30 %). err (N, fraction_missing) = the average error (1/L) sum_{m<j} ||U_m U_j^T - R_{m,j}||_F of the
    robust imputation (criterion 9, Algorithm 11); omega (fraction_missing,) = |Omega| (pairs m < j observed);
    s_mj (N,) = the mean S_{m,j} over the pairs m < j."""
    s_model, s_p, s_data, s_mask = seed.spawn(4)
    model = gen.dawid_skene_model(M, K, s_model)
    everything = gen.answers(model, gen.answering_probabilities(max(N), M, s_p, p), s_data)
    u = np.triu(generator(s_mask).random((M, M)), 1)
    u = u + u.T
    true = gen.exact_cooccurrences(model, np.ones((M, M), dtype=bool))
    upper = np.triu(np.ones((M, M), dtype=bool), 1)
    err, s_mj = np.empty((len(N), len(fraction_missing))), np.empty(len(N))
    for i, n in enumerate(N):
        a = _first_items(everything, n)
        R, S = cooccurrences(a.item, a.worker, a.label, a.n_items, M, K)
        s_mj[i] = S[upper].mean()
        for j, fraction in enumerate(fraction_missing):
            _, U, _ = pipeline.robust_blocks(R, np.where(u >= fraction, S, 0))
            fitted = np.einsum("mab,jcb->mjac", U, U)
            err[i, j] = np.sqrt(((fitted - true) ** 2).sum(axis=(2, 3)))[upper].mean()
    omega = np.array([(u[upper] >= fraction).sum() for fraction in fraction_missing], dtype=float)
    return {"err": err, "omega": omega, "s_mj": s_mj}


def measure_synthetic(seed, *, M: int, K: int, N: list, p: float, aggregator: list) -> dict:
    """Table 7: Appendix C.1.1's model, each annotator labelling each item with probability p; the first N items of
    one stream of items for every N (paired: one model, more items); mse (N, aggregator) = Eq. (19) of each
    Dawid-Skene method's model (NaN for methods without one)."""
    s_model, s_p, s_data = seed.spawn(3)
    model = gen.dawid_skene_model(M, K, s_model)
    everything = gen.answers(model, gen.answering_probabilities(max(N), M, s_p, p), s_data)
    mse = []
    for n in N:
        a = _first_items(everything, n)
        row = []
        for name in aggregator:
            est = _table7_model(a, name)
            row.append(np.nan if est is None else
                       metrics.confusion_mse(model.priors, model.confusion, est.priors, est.confusion))
        mse.append(row)
    return {"mse": np.array(mse)}


def _table7_model(a, name: str):
    """The model a method learns from answers ``a``; TensorADMM's as main_synthetic.m scores it: the fit as it came,
    before main_AMT.m's per-annotator alignment (Eq. 19 then takes the best common permutation)."""
    if name == "tensor-admm":
        return tensor_admm(a.item, a.worker, a.label, a.n_items, a.n_workers, a.n_classes).unaligned
    return aggregate(a, name).model


def measure_sparse(seed, *, N: int, M: int, K: int, per_item: float, zipf: float, aggregator: list) -> dict:
    """The crowd tool's recommendation on data nobody tuned on: ``gen.confusable_model`` (annotators who confuse
    a few classes among K) answering as ``gen.heavy_tailed_probabilities`` (about per_item answers per item, a few
    annotators answering most); error (aggregator,) in % on every item, bayes the Bayes-optimal error in % under
    the true model (``gen.bayes_error``)."""
    s_model, s_data = seed.spawn(2)
    model = gen.confusable_model(M, K, s_model)
    a = gen.answers(model, gen.heavy_tailed_probabilities(N, M, per_item, zipf), s_data)
    with warnings_said():  # a rarely active annotator may share no item: the methods run as they are
        results = aggregate_many(a, aggregator)
    return {"error": np.array([100 * metrics.label_error(results[name].posteriors, a.gold) for name in aggregator]),
            "bayes": 100 * gen.bayes_error(model, a)}


def _first_items(a, n: int):
    """The answers to items coded below n (items are coded in order of their index)."""
    keep = a.item < n
    return data.Answers(a.item[keep], a.worker[keep], a.label[keep], a.item_ids[:n], a.worker_ids, a.classes,
                        a.gold[:n])


def measure_noiseless_imputation(seed, *, M: int, K: int, fraction_missing: list) -> dict:
    """Table 6: the exact blocks R_{m,j} = A_m D A_j^T of one model, each pair hidden when its uniform draw is below
    the fraction (nested: the blocks seen at 70 % missing are also seen at 30 %), then RobSymNMF and DesSymNMF
    (with Eq. 13); mse_robust, mse_designated (fraction_missing,) = Eq. (19)."""
    s_model, s_mask = seed.spawn(2)
    model = gen.dawid_skene_model(M, K, s_model)
    u = np.triu(generator(s_mask).random((M, M)), 1)
    u = u + u.T
    out = {"mse_robust": [], "mse_designated": []}
    for fraction in fraction_missing:
        observed = u >= fraction
        np.fill_diagonal(observed, False)
        R, S = gen.exact_cooccurrences(model, observed), np.where(observed, 1000, 0)
        for name, build in (("robust", pipeline.robsymnmf_model), ("designated", pipeline.dessymnmf_model)):
            est = build(R, S)
            out[f"mse_{name}"].append(metrics.confusion_mse(model.priors, model.confusion, est.priors,
                                                            est.confusion))
    return {k: np.array(v) for k, v in out.items()}


def answers_files(name: str) -> list[Path]:
    """The files a real-data cell reads (their hashes key the cells): a shipped set's answers and gold labels, or
    a user's answers file and its ``<stem>_truth<suffix>`` beside it when present."""
    if name in data.SHIPPED:
        folder = Path(data.__file__).resolve().parent / "data" / "crowd"
        if name == "temp":
            return [folder / "temp.standardized.tsv"]
        return [folder / f"{name}.txt", folder / f"{name}_truth.txt"]
    path = Path(name)
    truth = path.with_name(f"{path.stem}_truth{path.suffix}")
    return [path, truth] if truth.is_file() else [path]


def load_answers(name: str):
    """A shipped set by name, or a user's file (any supported format; its truth file beside it as
    ``<stem>_truth<suffix>`` when present)."""
    if name in data.SHIPPED:
        return data.shipped(name)
    path = Path(name)
    truth = path.with_name(f"{path.stem}_truth{path.suffix}")
    return data.load(path, truth if truth.is_file() else None)


@contextlib.contextmanager
def warnings_said():
    """Silence the aggregators' warnings whose facts the findings state: annotators in groups that never share an
    item (TREC) and MinimaxEntropy's flat posteriors (LabelMe); a claim judges each method as it is."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AnnotatorGroupsWarning)
        warnings.simplefilter("ignore", FlatPosteriorsWarning)
        yield


def measure_real(seed, *, answers: str, aggregator: list, annotators: int | None = None) -> dict:
    """Tables 4-5 on fixed data: wrong (aggregator, item) = each gold item's error under each method's decision
    (1 wrong, 0 right, 1 - 1/t for a t-way tie that includes the gold label); error (aggregator,) their mean in %.
    annotators: keep only the most active annotators' answers (``data.most_active``; None: all)."""
    a = load_answers(answers)
    a = a if annotators is None else data.most_active(a, annotators)
    with warnings_said():  # TREC's annotators fall into 3 groups: the claims judge the methods as they are
        results = aggregate_many(a, aggregator, seed=0)
    wrong = np.array([metrics.label_outcomes(results[name].posteriors, a.gold) for name in aggregator])
    return {"wrong": wrong, "error": 100 * wrong.mean(axis=1)}


def measure_missing(seed, *, answers: str) -> dict:
    """The proportion (%) of the M^2 blocks of X that are missing before (missing_before) and after DesSymNMF's
    imputation (missing_after); the diagonal counts as missing, as in the paper's Section 4."""
    before, after = missing_proportions(load_answers(answers))
    return {"missing_before": before, "missing_after": after}


def missing_proportions(a) -> tuple[float, float]:
    """(before, after): the % of the M^2 blocks of X missing in answers ``a`` (the diagonal counts as missing), and
    after Remark 1's rule (Eq. 7-8: every block some triangle of observed blocks reaches)."""
    R, S = cooccurrences(a.item, a.worker, a.label, a.n_items, a.n_workers, a.n_classes)
    _, filled = pipeline.designated_blocks(R, S, score="count")
    return 100 * (1 - observed_blocks(S).mean()), 100 * (1 - filled.mean())


RESTART_START = ("symnmf", "random")


@functools.lru_cache(maxsize=4)
def _imputed(answers: str):
    """(answers, U (MK, K)): the file read and the rank-K square root of RobSymNMF's imputed second-order matrix,
    computed once per process (deterministic: the restarts differ only after it)."""
    a = load_answers(answers)
    R, S = cooccurrences(a.item, a.worker, a.label, a.n_items, a.n_workers, a.n_classes)
    return a, square_root(assemble(pipeline.robust_blocks(R, S)[0]), a.n_classes)


def measure_restarts(seed, *, answers: str, start: str = "symnmf", alignment: str = "common") -> dict:
    """Table 9 / Figure 4's protocol on any answers file: one random restart per replicate. start 'symnmf':
    RobSymNMF-EM with Eq. (13) started from a random orthogonal Q_(0) (the imputation is deterministic); start
    'random': EM from a random model (prior and confusion columns ~ Dirichlet(1)). alignment 'common': the paper's
    (one class permutation), EM as crowd-kit stops it; 'per-annotator': the authors' code's
    (``align_each_annotator``) and its 10 EM rounds. error (%) on the gold items."""
    from scipy.stats import special_ortho_group

    from simverify.solvers.crowd import votes
    from simverify.solvers.crowd.methods import CODE_EM_ROUNDS
    a, U = _imputed(answers)
    g = generator(seed)
    if start == "symnmf":
        Q0 = special_ortho_group.rvs(a.n_classes, random_state=g)
        H, _, _ = symnmf(U, "constant", n_iter=500, Q0=Q0)
        init = align_to_diagonal(from_symnmf_factor(H, a.n_workers))
    else:
        init = gen.dawid_skene_model(a.n_workers, a.n_classes, g.integers(2 ** 63), n_specialists=0)
    code = alignment == "per-annotator"
    probas, _, _ = votes.dawid_skene(a.item, a.worker, a.label, a.n_items, a.n_workers, a.n_classes,
                                     n_iter=CODE_EM_ROUNDS if code else 100,
                                     init=align_each_annotator(init) if code else init, tol=0.0 if code else 1e-5)
    return {"error": 100 * metrics.label_error(probas, a.gold)}
