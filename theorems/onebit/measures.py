"""Measures of Qiu et al. (2017): one replicate of each simulation, composed of generators, solvers
and metrics. Each takes ``seed`` (a SeedSequence, spawned once and unpacked) and keyword
parameters; scalars are floats, trajectories arrays over ``iteration`` (0..T)."""
from __future__ import annotations

import itertools

import numpy as np

from simverify import metrics
from simverify.generators import onebit as gen
from simverify.kernels.onebit import sign_difference_moments
from simverify.kernels.rng import n_chunks
from simverify.kernels.streams import stream_states
from simverify.solvers import multilabel as ml
from simverify.solvers import onebit as sol

LEMMA2_CHUNK = 4096


def model_matrix(d1: int, d2: int, k: int, kappa: float, seed) -> np.ndarray:
    """W* in F_k: Section 5.1's Gaussian construction when kappa == 0, else condition number kappa."""
    if kappa == 0:
        return gen.gaussian_model_matrix(d1, d2, k, seed)
    return gen.conditioned_model_matrix(d1, d2, k, kappa, seed)


def measure_lemma1(seed, *, d1: int, d2: int, k: int, m: int) -> dict:
    """Deviation ||W^ - W||_2 of W^ = sqrt(d2)/(m lambda) A'(sign(A(W))) from W (unit columns),
    the projection <W^, W>/||W||_F^2, and the deviation from W D (columns rescaled by D in
    [1/2, 2]: the same bits, the lemma without its unit-column hypothesis)."""
    s_model, s_data, s_scale = seed.spawn(3)
    W = gen.gaussian_model_matrix(d1, d2, k, s_model)
    W_hat = sol.sign_correlation(gen.SingleLabelModel(W), m, s_data)
    D = 2.0 ** np.random.default_rng(s_scale).uniform(-1.0, 1.0, d2)
    return {"deviation": metrics.spectral_error(W_hat, W), "projection": np.sum(W_hat * W) / np.sum(W * W),
            "deviation_rescaled": metrics.spectral_error(W_hat, W * D), **_dilation_spectrum(W)}


def _dilation_spectrum(W: np.ndarray) -> dict:
    """Lemma 3 on W: largest gap between the dilation's sorted eigenvalues and {+-sigma_i, 0, ...}
    (and {+-sigma_i^2, 0, ...}, for the control), and the dilation's numerical rank."""
    sigma = np.linalg.svd(W, compute_uv=False)
    eig = np.linalg.eigvalsh(sol.hermitian_dilation(W))
    zeros = np.zeros(eig.size - 2 * sigma.size)
    tol = eig.size * np.finfo(float).eps * np.abs(eig).max()
    return {"dilation_gap": np.abs(eig - np.sort(np.concatenate([sigma, -sigma, zeros]))).max(),
            "dilation_gap_squared": np.abs(eig - np.sort(np.concatenate([sigma ** 2, -sigma ** 2, zeros]))).max(),
            "dilation_rank": float(np.sum(np.abs(eig) > tol))}


def _pair_at_distance(d1: int, dist: float, seed) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unit w, w' (d1,) with ||w - w'|| = dist, and u (d1,) the unit direction of w' - <w, w'> w."""
    Q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((d1, 2)))
    alpha = 2.0 * np.arcsin(dist / 2.0)
    w, u = Q[:, 0], Q[:, 1]
    return np.ascontiguousarray(w), np.cos(alpha) * w + np.sin(alpha) * u, np.ascontiguousarray(u)


def measure_lemma2(seed, *, d1: int, dist: float, n: int) -> dict:
    """Monte Carlo of Lemma 2 for unit w, w' at distance ``dist`` (angle alpha = 2 arcsin(dist/2)):
    q1 = ||E{g g^T |sign<g,w> - sign<g,w'>|^2}||_2, q2 = E{||g||^2 |...|^2}, and the entries of
    the first matrix in the proof's rotated frame: e11 along w, e22 along u (w' = cos a w + sin a u)."""
    s_pair, s_data = seed.spawn(2)
    w, w2, u = _pair_at_distance(d1, dist, s_pair)
    outer, norm2 = sign_difference_moments(stream_states(s_data, n_chunks(n, LEMMA2_CHUNK)), w, w2, n,
                                           LEMMA2_CHUNK)
    M = outer.sum(axis=0) / n
    return {"q1": np.linalg.norm(M, 2), "q2": norm2.sum() / n, "e11": w @ M @ w, "e22": u @ M @ u}


def measure_theorem2(seed, *, d1: int, d2: int, k: int, m: int, step: float) -> dict:
    """Theorem 2 for W = W* (Section 5.1 model) and W' = columns of W + step * E normalised (E an
    independent F_k matrix): dev = ||sqrt(d2)/(lambda m)(A' sign A(W) - A' sign A(W')) - (W - W')||_2,
    tau = max(||W - W'||_2, ||W - W'||_2^(1/2)), and dev without centring (||...||_2 alone)."""
    s_model, s_pert, s_data = seed.spawn(3)
    W = gen.gaussian_model_matrix(d1, d2, k, s_model)
    W2 = gen.column_normalize(W + step * gen.gaussian_model_matrix(d1, d2, k, s_pert))
    return theorem2_deviation(W, W2, m, s_data)


def theorem2_deviation(W: np.ndarray, W2: np.ndarray, m: int, seed) -> dict:
    """Theorem 2's quantities for W (d1, d2), the model, and W2 (d1, d2), from m labels drawn with ``seed``:
    dev = ||H - (W - W2)||_2 with H = sqrt(d2)/(lambda m)(A' sign A(W) - A' sign A(W2)), the distance
    gap = ||W - W2||_2, tau = max(gap, gap^(1/2)), and ||H||_2 alone (``uncentred``)."""
    H = sol.residual_matrix(gen.SingleLabelModel(W), W2, m, seed)
    gap = metrics.spectral_error(W2, W)
    return {"dev": metrics.spectral_error(H, W - W2), "tau": max(gap, np.sqrt(gap)), "gap": gap,
            "uncentred": float(np.linalg.norm(H, 2))}


def _dilation_angle_tan(U_star: np.ndarray, U: np.ndarray) -> float:
    """tan of the largest canonical angle between span(U_star) and span(U) (NaN if U is not finite)."""
    if not np.all(np.isfinite(U)):
        return float("nan")
    theta = metrics.principal_angles(U, U_star)[-1]
    return float(np.tan(theta))


def _finite(A: np.ndarray) -> bool:
    return bool(np.all(np.isfinite(A)))


def _iterate_quantities(states: list, W_star: np.ndarray, k: int) -> dict:
    """Per iteration t = 0..T of Algorithm 1's states: the error eps_t = ||W* - W(t)||_2 (= that of the
    dilations, Lemma 3), tan theta(U*, U(t)), Lemma 5's ratio ||dil(W*) - dil(W(t))|| / ||dil(W*) -
    U(t) V(t)^T||, Lemma 6's gaps, and (t >= 1) Lemma 4's perturbation ||H(t) + W(t-1) - W*||_2 with
    tau = max(eps_{t-1}, eps_{t-1}^(1/2)), and Lemma 7's two ratios (bound / lhs; <= 1 when it holds)."""
    D_star = sol.hermitian_dilation(W_star)
    U_star = sol.dilation_top_eigenvectors(W_star, 2 * k)
    sigma = np.linalg.svd(W_star, compute_uv=False)

    def tan(U):
        return _dilation_angle_tan(U_star, U)

    def err(W):
        return metrics.spectral_error(W, W_star) if _finite(W) else np.nan

    def lemma5(s):
        if not _finite(s.W):
            return np.nan
        return metrics.spectral_error(sol.hermitian_dilation(s.W), D_star) / metrics.spectral_error(s.U @ s.V.T, D_star)

    eps = np.array([err(s.W) for s in states])
    alpha = np.array([tan(s.U) for s in states])
    pert = np.array([np.nan] + [err(b.H + a.W) for a, b in zip(states, states[1:])])
    tau = np.concatenate([[np.nan], np.maximum(eps[:-1], np.sqrt(eps[:-1]))])
    return {"error": eps, "tan_theta": alpha, "lemma5_ratio": np.array([lemma5(s) for s in states]),
            "lemma6_gap": np.array([abs(tan(s.U_tilde) - tan(s.U)) for s in states]),
            "lemma6_gap_previous": np.array([np.nan] + [abs(tan(b.U_tilde) - tan(a.U))
                                                        for a, b in zip(states, states[1:])]),
            "perturbation": pert, "tau": tau,
            "lemma7_alpha_ratio": alpha * sigma[k - 1] / (3 * np.sqrt(5) * pert),
            "lemma7_error_ratio": eps / (4 * np.sqrt(k) * (alpha * sigma[0] + pert))}


def _lemma8(state0, W_star: np.ndarray, k: int) -> dict:
    """Lemma 8 at the initialisation: sin theta(U(0), U*) against 2 eps / (sigma_2k - sigma_2k+1) of the
    dilations, eps = ||dil(H(0)) - dil(W*)||_2 = ||H(0) - W*||_2, sigma_2k = sigma_k(W*), sigma_2k+1 = 0;
    ``lemma8_condition`` is 1 where the lemma's hypothesis eps <= sigma_k/4 holds."""
    sigma_k = np.linalg.svd(W_star, compute_uv=False)[k - 1]
    eps0 = metrics.spectral_error(state0.H, W_star)
    sin0 = np.sin(metrics.principal_angles(state0.U, sol.dilation_top_eigenvectors(W_star, 2 * k))[-1])
    return {"lemma8_ratio": sin0 / (2 * eps0 / sigma_k), "lemma8_condition": float(eps0 <= sigma_k / 4),
            "lemma8_sin_theta": sin0, "lemma8_eps_over_gap": eps0 / sigma_k}


def _algorithm1_run(model, k: int, m: int, T: int, s_data, s_column, start: str, form: str,
                    column_by_column: bool) -> dict:
    """One run of Algorithm 1 on (model, s_data) and the quantities measure_algorithm1 documents."""
    W_star = model.w_star
    states = [s for _, s in sol.algorithm1(model, k, m, T, s_data, start=start, form=form)]
    states += [states[-1]] * (T + 1 - len(states))  # a run stopped by NaN keeps its NaN state
    out = {**_iterate_quantities(states, W_star, k), **_lemma8(states[0], W_star, k)}
    out["final_error"] = out["error"][-1]
    if column_by_column:
        out["column_error"] = metrics.spectral_error(sol.column_by_column(model, m * T, s_column), W_star)
    out["recovered"] = float(np.isfinite(out["final_error"]) and out["final_error"] < 1.0)
    return out


def measure_algorithm1(seed, *, d1: int, d2: int, k: int, m: int | list, T: int, kappa: float = 0.0,
                       xi: float = 0.0, flip_prob: float = 0.0, start: str = "zero", form: str = "block",
                       column_by_column: bool = False) -> dict:
    """Algorithm 1 from one model draw: the per-iteration quantities of ``_iterate_quantities``
    (t = 0..T; NaN after a run stopped by NaN), Lemma 8 at the start, the final error, and whether
    the run recovered W* (finite final error below 1); with ``column_by_column``, ``column_error``: the
    error of recovering W* column by column by one-bit compressed sensing from as many labels (m T, see
    solvers.onebit.column_by_column; its own stream, so it doubles the normals drawn). With ``m`` a
    list, one run per batch size on the same W* (a paired design: slopes along m are not blurred by
    the model draw), every output gaining a leading dim m."""
    s_model, s_data, s_column = seed.spawn(3)
    model = gen.SingleLabelModel(model_matrix(d1, d2, k, kappa, s_model), xi=xi, flip_prob=flip_prob)
    if not isinstance(m, list):
        return _algorithm1_run(model, k, m, T, s_data, s_column, start, form, column_by_column)
    runs = [_algorithm1_run(model, k, mi, T, sd, sc, start, form, column_by_column)
            for mi, sd, sc in zip(m, s_data.spawn(len(m)), s_column.spawn(len(m)))]
    return {name: np.stack([np.asarray(r[name], dtype=float) for r in runs]) for name in runs[0]}


LEML_VARIANTS = {"leml": True, "leml_batch": False}  # name: accumulate every triple seen so far


def _leml_runs(names: list, batches, d2: int, k: int, U0: np.ndarray, reg: float) -> dict:
    """The LEML variants ``names`` in lockstep on one pass over ``batches`` (each batch is drawn once
    and held once, however many variants read it): name -> list of (t, state)."""
    if not names:
        return {}
    streams = itertools.tee(batches, len(names))
    steps = zip(*(ml.leml(b, d2, k, U0, reg, accumulate=LEML_VARIANTS[name]) for name, b in zip(names, streams)))
    runs = list(zip(*steps))
    return {name: list(run) for name, run in zip(names, runs)}


def measure_figure1(seed, *, d1: int, d2: int, k: int, m: int, T: int, n_test: int, solver: list,
                    xi: float = 0.0, flip_prob: float = 0.0, reg: float = 1.0) -> dict:
    """Figure 1 / Table 1: Algorithm 1 against LEML on the same T batches of m single-label instances;
    LEML on every triple seen so far ('leml') and on the current batch only ('leml_batch').
    Per solver (in the order of ``solver``): recovery error per iteration, and Hamming loss and
    1 - average AUC on n_test held-out instances with all (noise-free) labels."""
    s_model, s_data, s_init, s_test = seed.spawn(4)
    W_star = gen.gaussian_model_matrix(d1, d2, k, s_model)
    model = gen.SingleLabelModel(W_star, xi=xi, flip_prob=flip_prob)
    X_test, Y_test = gen.fully_labelled_instances(model, n_test, s_test)
    U0, _ = np.linalg.qr(np.random.default_rng(s_init).standard_normal((d1, k)))
    batches = (gen.single_label_instances(model, m, s)[:3] for s in gen.as_children(s_data, T))
    runs = _leml_runs([name for name in solver if name in LEML_VARIANTS], batches, d2, k, U0, reg)
    if "ours" in solver:
        runs["ours"] = list(sol.algorithm1(model, k, m, T, s_data))
    error = np.empty((len(solver), T + 1))
    hamming, auc_gap = np.empty(len(solver)), np.empty(len(solver))
    for i, name in enumerate(solver):
        states = runs[name]
        error[i] = [metrics.spectral_error(sol.normalize_nonzero_columns(s.W), W_star) for _, s in states]
        scores = X_test @ states[-1][1].W
        hamming[i] = metrics.hamming_loss(scores, Y_test)
        auc_gap[i] = 1.0 - metrics.average_auc(scores, Y_test)
    return {"error": error, "hamming": hamming, "auc_gap": auc_gap}


def measure_rip(seed, *, d1: int, d2: int, k: int, m: int, n_probe: int = 20) -> dict:
    """Definition 1 for the sensing operator of Eq. (3) on one draw of m instances. With G_j =
    (d2/m) sum_{i: j_i = j} x_i x_i^T, (1/m)||A(W)||^2 = sum_j w_j^T G_j w_j, so the delta_k-RIP constant
    over rank-k matrices (k >= 1) is exactly max_j ||G_j - I||_2 (a single column attains it):
    ``delta_k``. ``delta_probe``: the largest |(1/m)||A(W)||^2/||W||_F^2 - 1| over n_probe random rank-k W
    (a lower estimate). ``delta_unscaled``: the same constant with e instead of e_bar (no sqrt(d2))."""
    s_data, s_probe = seed.spawn(2)
    model = gen.SingleLabelModel(gen.column_normalize(np.eye(d1, d2) + 1.0))  # the bits are not used
    X, labels, _, _ = gen.single_label_instances(model, m, s_data)
    stats = ml.LabelStatistics.empty(d1, d2)
    stats.add(X, labels, np.zeros(m))
    G = stats.S * (d2 / m)
    eye = np.eye(d1)
    delta = max(np.abs(np.linalg.eigvalsh(G[j] - eye)).max() for j in range(d2))
    unscaled = max(np.abs(np.linalg.eigvalsh(G[j] / d2 - eye)).max() for j in range(d2))
    g = np.random.default_rng(s_probe)
    probe = 0.0
    for _ in range(n_probe):
        W = g.standard_normal((d1, k)) @ g.standard_normal((k, d2))
        probe = max(probe, abs(np.einsum("ja,jab,jb->", W.T, G, W.T) / np.sum(W * W) - 1.0))
    return {"delta_k": delta, "delta_probe": probe, "delta_unscaled": unscaled}


TABLE2_SOLVERS = ("ours", "svm", "lrt", "smt", "leml")


def measure_table2(seed, *, d1: int, d2: int, k: int, n: int, n_test: int, T: int, solver: list,
                   epochs: int = 10, iters: int = 50, lam_rel: float = 0.05, reg: float = 1.0) -> dict:
    """Table 2: a fully labelled training set of n instances (Section 5.1's W*, noise-free labels), each
    solver's 1 - average AUC on n_test held-out instances. Algorithm 1 (Section 5.2) samples m = n d2 / T
    labels per iteration, so its T iterations use as many labels as the set holds (with replacement)."""
    s_model, s_train, s_test, s_ours, s_base = seed.spawn(5)
    model = gen.SingleLabelModel(gen.gaussian_model_matrix(d1, d2, k, s_model))
    X, Y = gen.fully_labelled_instances(model, n, s_train)
    X_test, Y_test = gen.fully_labelled_instances(model, n_test, s_test)
    m = max(1, n * d2 // T)
    fits = {"ours": lambda: list(sol.algorithm1_full_observation(X, Y, k, m, T, s_ours))[-1][1].W,
            "svm": lambda: ml.one_vs_all_svm(X, Y, s_base, epochs=epochs),
            "lrt": lambda: ml.trace_norm_regression(X, Y, "logistic", lam_rel, iters),
            "smt": lambda: ml.trace_norm_regression(X, Y, "squared", lam_rel, iters),
            "leml": lambda: ml.leml_full(X, Y, k, s_base, reg).W}
    auc_gap = np.array([1.0 - metrics.average_auc(X_test @ fits[name](), Y_test) for name in solver])
    return {"auc_gap": auc_gap}
