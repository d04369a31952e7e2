"""Measures of Li & Liang (2017): one replicate of each simulation, composed of generators, solvers and metrics.
Each takes ``seed`` (a SeedSequence, spawned once and unpacked) and keyword parameters; paths are arrays over
``stage`` (AND's stages, 0 = the start) or ``iteration`` (sweeps of the competitors; a stage counts as one)."""
from __future__ import annotations

import functools
import os
from pathlib import Path

import numpy as np

from simverify import metrics
from simverify.designs import paired
from simverify.generators import nmf as gen
from simverify.iteration import record
from simverify.solvers import nmf as sol
from simverify.solvers import nmf_sklearn as skl

SCHEDULES = ("decreasing", "constant", "none", "theory")
SOLVERS = ("and", "hals", "mu", "anls", "sklearn_cd", "sklearn_mu", "lda")


def decoding_matrices(D: int, ell: float, spread: float, seed) -> tuple[np.ndarray, np.ndarray]:
    """Lemma 6's Sigma' (D,) and E' (D, D): Sigma'_ii uniform on [1 - spread/2, 1 + spread/2), E' off-diagonal
    standard normal scaled to ||E'||_2 = ell."""
    g = np.random.default_rng(seed)
    sigma = 1.0 + spread * (g.random(D) - 0.5)
    return sigma, gen.off_diagonal_matrix(D, ell, g)


def measure_decoding(seed, *, D: int, s: float, ell: float, alpha: float, N: int, kind: str = "binary",
                     q: float = 1.0, spread: float = 0.1, chunk: int = 25_000) -> dict:
    """Lemmas 6 and 8: z = phi_alpha((Sigma' + E') x) against Sigma' x, the errors max(||E[(Sigma'x - z) x^T]||_2,
    ||E[(Sigma'x - z) z^T]||_2) with the threshold (err_threshold) and without it, z = (Sigma' + E') x (err_none),
    the expectations estimated over N samples (in chunks of ``chunk`` with one stream each)."""
    s_model, s_data = seed.spawn(2)
    sigma, E = decoding_matrices(D, ell, spread, s_model)
    law = weight_law(kind, s, 3.0, q)
    sums = {k: np.zeros((D, D)) for k in ("tx", "tz", "nx", "nz")}
    sizes = [min(chunk, N - i) for i in range(0, N, chunk)]
    for n, s_chunk in zip(sizes, s_data.spawn(len(sizes))):
        X = gen.weights(law, D, n, s_chunk)
        SX = sigma[:, None] * X
        Z = SX + E @ X
        sums["nx"] += (SX - Z) @ X.T
        sums["nz"] += (SX - Z) @ Z.T
        Z = sol.phi_alpha(Z, alpha)  # Algorithm 1 line 5
        sums["tx"] += (SX - Z) @ X.T
        sums["tz"] += (SX - Z) @ Z.T
    norm = {k: np.linalg.norm(v / N, 2) for k, v in sums.items()}
    return {"err_threshold": max(norm["tx"], norm["tz"]), "err_none": max(norm["nx"], norm["nz"])}


def topic_file_path(name: str) -> Path | None:
    """The user-supplied A* file named by parameter ``topic_file`` (None: the built-in matrices)."""
    return Path(name) if name else None


def ground_truth(matrix: str, W: int, D: int, seed, topic_file: str = "") -> np.ndarray:
    """A* (W, D): a user-supplied file (``topic_file``, columns scaled to unit norm), else the Zipf topic stand-in
    ("topic") or NEG's uniform matrix ("neg")."""
    if topic_file:
        return gen.load_topic_matrix(topic_file)
    return gen.topic_matrix(W, D, seed) if matrix == "topic" else gen.negative_matrix(W, D, seed)


def weight_law(kind: str, s: float, scale: float, q: float) -> gen.WeightDistribution:
    return gen.WeightDistribution(kind, float(s), float(scale), float(q))


def measure_gcc(seed, *, kind: str, s: float, D: int, N: int, scale: float = 3.0, q: float = 1.0) -> dict:
    """Definition 1's quantities estimated from N samples, Delta = X X^T / N: r_hat = max ||x||_1,
    k_hat = D max_i Delta_ii / 2, m_hat = D^2 max_{i != j} Delta_ij, klambda_hat = D lambda_min(Delta).
    ``s`` may be a list (each output gains a dim ``s``; every value from the same seed)."""
    if isinstance(s, list):
        return paired(measure_gcc, seed, "s", s, kind=kind, D=D, N=N, scale=scale, q=q)
    X = gen.weights(weight_law(kind, s, scale, q), D, N, seed)
    p = metrics.gcc_parameters(X)
    return {"r_hat": p["r"], "k_hat": p["k"], "m_hat": p["m"], "klambda_hat": p["k"] * p["lambda"]}


def schedule(name: str, alpha: float, alpha0: float, rate: float, A_star=None, X=None, q: float = 1.0):
    """The threshold schedule ``name`` (SCHEDULES); "theory" reads lambda and r from the samples X (D, N)."""
    if name == "decreasing":
        return sol.GeometricThreshold(alpha0, rate)
    if name == "constant":
        return sol.ConstantThreshold(alpha)
    if name == "none":
        return sol.NoThreshold()
    p = metrics.gcc_parameters(X)
    return sol.TheoryThreshold(A_star, p["lambda"], p["r"], q)


def _problem(seed, W, D, N, matrix, kind, s, scale, q, gamma, r_l, r_n, topic_file=""):
    s_model, s_data, s_noise, s_init = seed.spawn(4)
    A_star = ground_truth(matrix, W, D, s_model, topic_file)
    X = gen.weights(weight_law(kind, s, scale, q), D, N, s_data)
    Y = gen.observations(A_star, X, gamma, s_noise)
    return A_star, X, Y, gen.initial_matrix(A_star, s_init, r_l, r_n)


def total_error(A_star: np.ndarray):
    """The metric A -> total correlation error against A* (Section 7)."""
    return lambda A: metrics.correlation_errors(A, A_star).sum()


def _paths(iterates, A_star, checkpoints) -> dict:
    return record(iterates, {"error": total_error(A_star),
                             "scaled": lambda A: metrics.diagonal_scaled_error(A, A_star)[0],
                             "sigma_min": lambda A: metrics.diagonal_scaled_error(A, A_star)[1]}, checkpoints)


def measure_and(seed, *, W: int, D: int, N: int, stage: list, matrix: str = "topic", kind: str = "dirichlet",
                s: float = 1.0, scale: float = 3.0, q: float = 1.0, schedule_name: str = "decreasing",
                alpha: float = 0.25, alpha0: float = 0.1, rate: float = 1.1, T: int = 50, gamma: float = 0.0,
                r_l: float = 1.0, r_n: float = 0.0, batch: bool = True, topic_file: str = "") -> dict:
    """AND (Algorithm 1) from A0 = A*(I + U) + N on Y = A* X (+ zeta): the total correlation error (error) and
    ||A - A* Sigma||_2 (scaled_error) at the stages ``stage`` (0..S), and final_error, final_scaled_error and
    sigma_min (min_i Sigma_ii) after the last stage, and kappa_A = sigma_max(A*) / sigma_min(A*). ``gamma`` may
    be a list (a paired design: the same A*, X, noise directions and start at every noise level)."""
    if isinstance(gamma, list):
        return paired(measure_and, seed, "gamma", gamma, W=W, D=D, N=N, stage=stage, matrix=matrix, kind=kind,
                      s=s, scale=scale, q=q, schedule_name=schedule_name, alpha=alpha, alpha0=alpha0, rate=rate,
                      T=T, r_l=r_l, r_n=r_n, batch=batch, topic_file=topic_file)
    A_star, X, Y, A0 = _problem(seed, W, D, N, matrix, kind, s, scale, q, gamma, r_l, r_n, topic_file)
    thr = schedule(schedule_name, alpha, alpha0, rate, A_star, X, q)
    est = sol.AND(D, A0=A0, threshold=thr, n_stages=max(stage), T=T, batch=batch)
    path = _paths(est.iterate(Y.T), A_star, stage)
    return {"error": path["error"], "scaled_error": path["scaled"], "final_error": path["error"][-1],
            "final_scaled_error": path["scaled"][-1], "sigma_min": path["sigma_min"][-1],
            "kappa_A": float(np.linalg.cond(A_star))}


def competitor(name: str, D: int, A0: np.ndarray, n_iter: int, s: float):
    """The estimator ``name`` (SOLVERS) started from A0 (W, D), run for n_iter sweeps (AND: stages; online LDA:
    epochs, from its own random topics, not from A0)."""
    if name == "and":
        return sol.AND(D, A0=A0, n_stages=n_iter)
    if name == "lda":
        return skl.OnlineLDA(D, max_iter=n_iter, doc_topic_prior=s / D)
    if name.startswith("sklearn_"):
        return skl.SklearnNMF(D, A0=A0, max_iter=n_iter, solver=name.removeprefix("sklearn_"))
    return {"hals": sol.HALS, "mu": sol.MultiplicativeUpdate, "anls": sol.ANLS}[name](D, A0=A0, max_iter=n_iter)


def measure_figure1(seed, *, W: int, D: int, N: int, iteration: list, solver: list, matrix: str = "topic",
                    kind: str = "dirichlet", s: float = 1.0, scale: float = 3.0, topic_file: str = "") -> dict:
    """Section 7's comparison on one draw: every solver from the same A0 on the same Y; the total correlation
    error per solver and checkpoint (error (solver, iteration), NaN where a solver stopped early), its best value
    (best_error (solver,)) and the per-iteration factor over the second half, (e_S / e_{S/2})^(1/(S - S/2))
    (rate (solver,), NaN when the solver stopped before S)."""
    A_star, _, Y, A0 = _problem(seed, W, D, N, matrix, kind, s, scale, 1.0, 0.0, 1.0, 0.0, topic_file)
    n_iter = max(iteration)
    errors = np.array([record(competitor(name, D, A0, n_iter, s).iterate(Y.T),
                              {"e": total_error(A_star)}, iteration)["e"] for name in solver])
    half = int(np.searchsorted(iteration, n_iter / 2))
    rate = (errors[:, -1] / errors[:, half]) ** (1.0 / (iteration[-1] - iteration[half]))
    return {"error": errors, "best_error": np.nanmin(errors[:, 1:], axis=1), "rate": rate}


def measure_update(seed, *, W: int, D: int, N: int, T: int, warm_stages: int = 0, kind: str = "dirichlet",
                   s: float = 1.0, scale: float = 3.0, q: float = 1.0, alpha0: float = 0.1, rate: float = 1.1,
                   topic_file: str = "") -> dict:
    """Lemma 10 along AND's real iterates in one stage (after ``warm_stages`` stages from A0): with M_t = A*^+ A_t
    = Sigma_t + E_t, Delta = Z Z^T / N of the stage's decodings, eta = 1 / lambda_max(Delta), Q = Lemma 11's Sigma,
    (Diag[(Sigma_0 + E_0)^-1])^-1, and R = X Z^T / N - Q Delta (the update is M_{t+1} = M_t (I - eta Delta) +
    eta Q Delta + eta R): update_ratio = max_t ||M_t - Q||_2 / (||M_0 - Q||_2 (1 - eta lambda_min)^t +
    ||R||_2 / lambda_min), and update_ratio_no_floor without the ||R|| / lambda_min term."""
    A_star, X, Y, A = _problem(seed, W, D, N, "topic", kind, s, scale, q, 0.0, 1.0, 0.0, topic_file)
    if warm_stages:
        A = sol.AND(D, A0=A, threshold=sol.GeometricThreshold(alpha0, rate), n_stages=warm_stages,
                    T=T).fit(Y.T).A_
    alpha = alpha0 / rate ** warm_stages
    Z, YZt, delta = sol.stage_products(np.linalg.pinv(A), Y, alpha)
    lam = np.linalg.eigvalsh(delta)
    eta = 1.0 / lam[-1]
    M0 = np.linalg.lstsq(A_star, A, rcond=None)[0]
    Q = np.diag(1.0 / np.diag(np.linalg.inv(M0)))
    floor = np.linalg.norm(X @ Z.T / N - Q @ delta, 2) / lam[0]
    start = np.linalg.norm(M0 - Q, 2)
    A, worst, worst_no_floor = A.copy(), 0.0, 0.0
    for t in range(1, T + 1):
        kern_steps(A, YZt, delta, eta)
        gap = np.linalg.norm(np.linalg.lstsq(A_star, A, rcond=None)[0] - Q, 2)
        decay = start * (1.0 - eta * lam[0]) ** t
        worst, worst_no_floor = max(worst, gap / (decay + floor)), max(worst_no_floor, gap / decay)
    return {"update_ratio": worst, "update_ratio_no_floor": worst_no_floor, "floor_over_start": floor / start}


def kern_steps(A, YZt, ZZt, eta) -> None:
    """One gradient step of Algorithm 1 line 6 on the stage's fixed products (the solver's kernel)."""
    from simverify.kernels.nmf import gradient_steps
    gradient_steps(A, YZt, ZZt, eta, 1)


FACE_METHODS = ("and", "nmf", "pca", "ica", "sparse_pca", "dictionary", "kmeans")


def face_components(method: str, F: np.ndarray, n: int, seed: int, start: np.ndarray, n_stages: int) -> np.ndarray:
    """C (pixels, n): the ``method``'s components of the faces F (images, pixels). AND starts from the faces
    ``start`` (pixels, n) with Section 7's thresholds; the others are scikit-learn's, as in its faces example
    (PCA, FastICA, sparse PCA and dictionary learning on the centred faces; k-means cluster centres)."""
    import warnings

    from sklearn import cluster, decomposition
    if method == "and":
        return sol.AND(n, A0=start, n_stages=n_stages).fit(F).A_
    centred = F - F.mean(axis=0)
    models = {"nmf": (decomposition.NMF(n, init="nndsvda", max_iter=200, random_state=seed), F),
              "pca": (decomposition.PCA(n, random_state=seed), centred),
              "ica": (decomposition.FastICA(n, whiten="unit-variance", random_state=seed), centred),
              "sparse_pca": (decomposition.MiniBatchSparsePCA(n, alpha=0.1, max_iter=50, batch_size=3,
                                                              random_state=seed), centred),
              "dictionary": (decomposition.MiniBatchDictionaryLearning(n, alpha=0.1, max_iter=50, batch_size=3,
                                                                       random_state=seed), centred),
              "kmeans": (cluster.MiniBatchKMeans(n, n_init=3, batch_size=20, random_state=seed), F)}
    model, data = models[method]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(data)
    return np.ascontiguousarray((model.cluster_centers_ if method == "kmeans" else model.components_).T)


def measure_faces(seed, *, decomposition: list, n_components: int = 6, n_stages: int = 10, faces: str = "") -> dict:
    """Figure 5 on the Olivetti faces (``faces``: a user file in the same layout, else the shipped one): each
    decomposition's components (components (decomposition, component, pixel)) and the relative error of the non-negative
    reconstruction ||Y - C Z||_F / ||Y||_F, Z = NNLS(C, Y) (rel_error (decomposition,)). AND starts from n_components
    faces drawn at random (the replicate's seed); the scikit-learn methods get the seed as random_state."""
    from simverify.datasets import olivetti

    F = olivetti.load_faces(faces or None)
    Y = np.ascontiguousarray(F.T)
    g = np.random.default_rng(seed)
    start = np.ascontiguousarray(Y[:, g.choice(F.shape[0], n_components, replace=False)])
    state = int(g.integers(2 ** 31 - 1))
    comps = [face_components(m, F, n_components, state, start, n_stages) for m in decomposition]
    errors = [metrics.nonnegative_reconstruction_error(C, Y) for C in comps]
    return {"components": np.array([C.T for C in comps]), "rel_error": np.array(errors)}


def faces_file_path(name: str) -> Path:
    """The faces file: a user file, else the shipped Olivetti faces (its hash keys the cells either way)."""
    from simverify.datasets import olivetti
    return Path(name) if name else olivetti.default_path()


TOPIC_MODELS = ("and", "nmf", "lda")


def topic_components(model: str, F: np.ndarray, counts: np.ndarray, n: int, seed: int, start: np.ndarray,
                     n_stages: int) -> np.ndarray:
    """A (words, n): the ``model``'s topics of the documents F (documents, words; rows on the simplex). AND starts
    from the documents ``start`` (words, n) with Section 7's thresholds; scikit-learn's NMF factorizes F and its
    online LDA the counts (its topics normalised to word distributions)."""
    import warnings

    from sklearn import decomposition
    if model == "and":
        return sol.AND(n, A0=start, n_stages=n_stages).fit(F).A_
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if model == "nmf":
            return decomposition.NMF(n, init="nndsvda", max_iter=400, random_state=seed).fit(F).components_.T
        lda = decomposition.LatentDirichletAllocation(n, learning_method="online", random_state=seed).fit(counts)
    return (lda.components_ / lda.components_.sum(axis=1, keepdims=True)).T


def corpus_matrices(corpus: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(counts (N, W), F (N, W) word frequencies, vocabulary (W,)) of ``corpus`` (a user file; "" the Lee corpus):
    copies of the matrices vectorised once per process and file version (planning and every Table 1 replicate ask
    for them; vectorising the Lee corpus takes about a second)."""
    source = str(corpus_file_path(corpus))
    try:
        stat = os.stat(source)
        version = (str(Path(source).resolve()), stat.st_ino, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size)
    except OSError:
        version = None  # the loader below refuses the path in one line
    return tuple(array.copy() for array in _vectorised_corpus(corpus, source, version))


@functools.lru_cache(maxsize=4)
def _vectorised_corpus(corpus: str, source: str, version) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``corpus_matrices``' work, cached by (corpus, its path, (absolute path, inode, mtime, ctime, size))."""
    from simverify.datasets import lee

    counts, vocab = lee.document_term_matrix(lee.load_documents(corpus or None), source=source)
    return counts, lee.word_frequencies(counts, source), vocab


def independent_documents(Y: np.ndarray, n: int, g: np.random.Generator) -> np.ndarray:
    """(words, n): n columns of Y taken in a random order, skipping any that would make the set rank-deficient
    (a corpus may hold duplicate documents; AND refuses a singular start)."""
    chosen: list[int] = []
    for j in g.permutation(Y.shape[1]):
        if np.linalg.matrix_rank(Y[:, chosen + [int(j)]]) == len(chosen) + 1:
            chosen.append(int(j))
            if len(chosen) == n:
                return np.ascontiguousarray(Y[:, chosen])
    raise ValueError(f"the corpus has fewer than {n} linearly independent documents")


def measure_topics(seed, *, topic_model: list, n_topics: int = 10, n_stages: int = 30, n_top: int = 10,
                   corpus: str = "") -> dict:
    """Table 1's protocol on a text corpus: each model's n_topics topics, the relative error of reconstructing the
    documents' word frequencies from them with non-negative weights ||Y - A Z||_F / ||Y||_F, Z = NNLS(A, Y)
    (rel_error (topic_model,)), and each topic's n_top words by weight (top_words (topic_model, topic, rank),
    indices into the vocabulary). AND starts from n_topics linearly independent documents drawn at random (the
    replicate's seed)."""
    counts, F, _ = corpus_matrices(corpus)
    Y = np.ascontiguousarray(F.T)
    g = np.random.default_rng(seed)
    start = independent_documents(Y, n_topics, g)
    state = int(g.integers(2 ** 31 - 1))
    comps = [topic_components(m, F, counts, n_topics, state, start, n_stages) for m in topic_model]
    errors = [metrics.nonnegative_reconstruction_error(A, Y) for A in comps]
    top = [np.argsort(-A, axis=0, kind="stable")[:n_top].T for A in comps]
    return {"rel_error": np.array(errors), "top_words": np.array(top)}


def corpus_file_path(name: str) -> Path:
    """The corpus file: a user file, else the Lee corpus inside gensim (its hash keys the cells either way)."""
    from simverify.datasets import lee
    return Path(name) if name else lee.default_path()
