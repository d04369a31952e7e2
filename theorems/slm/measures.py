"""Measures of Lin, Qiu, Hong, Ye (2022): one replicate of each simulation, composed of generators, solvers and
metrics. Each takes ``seed`` (a SeedSequence, spawned once and unpacked) and keyword parameters; scalars are
floats, trajectories arrays over ``iteration`` (0..T)."""
from __future__ import annotations

import numpy as np

from simverify import metrics
from simverify.designs import paired
from simverify.generators import slm as gen
from simverify.iteration import record
from simverify.solvers import slm as sol
from simverify.solvers.factorization_machine import FactorizationMachine


def distribution(dist: str, param: float) -> gen.FeatureDistribution:
    return gen.FeatureDistribution(dist, float(param))


def recovery_error(model: gen.SecondOrderModel, state) -> float:
    """||w - w*||_2 + ||M - M*||_2 (Theorem 2's recovery error; inf once the iterate is not finite)."""
    return metrics.second_order_recovery_error(state.w, state.M, model.w_star, model.M_star)


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def _sensing_operator(model: gen.SecondOrderModel, n: int, seed) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    """(1/n) A'(z) (d, d), P0, P1, P2 for z = -y, i.e. the model's labels with the signs of w*, M* flipped: the
    estimate is zero (w = 0, U = I, V = 0), so z = yhat - y = -y."""
    d = model.d
    return gen.residual_moments(model, n, seed, np.zeros(d), np.eye(d), np.zeros((d, d)))


def _rank_k_pair(d: int, k: int, seed) -> tuple[np.ndarray, np.ndarray]:
    """U (d, k) with orthonormal columns (M = U U^T: rank k, ||M||_2 = 1) and a unit w (d,)."""
    rng = np.random.default_rng(seed)
    U, _ = np.linalg.qr(rng.standard_normal((d, k)))
    return U, _unit(rng.standard_normal(d))


def _shifted_expectation(fd: gen.FeatureDistribution, M: np.ndarray) -> np.ndarray:
    """Theorem 5's centre 2M + tr(M) I + D(phi - 3) D(M) (d, d)."""
    return 2 * M + np.trace(M) * np.eye(M.shape[0]) + np.diag((fd.phi - 3) * np.diag(M))


def measure_shifted_rip(seed, *, dist: str, param: float, d: int, k: int, n: int, spectrum: str = "psd") -> dict:
    """Theorem 5 alone: ||(1/n) A'A(M) - (2M + tr(M) I + D(phi - 3) D(M))||_2 / ||M||_2 (theorem5) for
    M = U diag(s) U^T with s = (1, ..., 1) (``spectrum="psd"``, tr(M) = k) or (1, -1, 1, ...) ("traceless",
    tr(M) = k mod 2)."""
    s_model, s_data = seed.spawn(2)
    fd = distribution(dist, param)
    U, _ = _rank_k_pair(d, k, s_model)
    s = np.ones(k) if spectrum == "psd" else (-1.0) ** np.arange(k)
    AA, _, _, _ = _sensing_operator(gen.SecondOrderModel(fd, np.zeros(d), U, -s), n, s_data)  # z = x^T M x
    return {"theorem5": metrics.spectral_error(AA, _shifted_expectation(fd, (U * s) @ U.T))}


def measure_sensing(seed, *, dist: str, param: float, d: int, k: int, n: int) -> dict:
    """Theorem 5 and Lemma 6's first statement at a fixed unit w (d,) and M = U U^T (rank k, ||M||_2 = 1), on one
    sample of n: theorem5 (||(1/n) A'A(M) - (2M + tr(M) I + D(phi - 3) D(M))||_2 / ||M||_2), theorem5_unshifted
    (against 2M); lemma6_linear ((1/n) A'(X^T w) against D(kappa) w, i.e. the diagonal matrix D(kappa o w),
    relative to ||w||) and its control lemma6_linear_zero (against 0)."""
    if isinstance(n, list):
        return paired(measure_sensing, seed, "n", n, dist=dist, param=param, d=d, k=k)
    s_model, s_data = seed.spawn(2)
    fd = distribution(dist, param)
    U, w = _rank_k_pair(d, k, s_model)
    M = U @ U.T
    AA, _, _, _ = _sensing_operator(gen.SecondOrderModel(fd, np.zeros(d), U, -np.ones(k)), n, s_data)  # x^T M x
    Ay, _, _, _ = _sensing_operator(gen.SecondOrderModel(fd, -w, U, -np.ones(k)), n, s_data)          # + x^T w
    A_linear = Ay - AA                                                    # (1/n) A'(X^T w) on the same instances
    spec = metrics.spectral_error
    return {"theorem5": spec(AA, _shifted_expectation(fd, M)), "theorem5_unshifted": spec(AA, 2 * M),
            "lemma6_linear": spec(A_linear, np.diag(fd.kappa * w)), "lemma6_linear_zero": spec(A_linear, 0 * A_linear)}


def measure_projections(seed, *, dist: str, param: float, d: int, k: int, n: int) -> dict:
    """Lemma 6's P0, P1, P2 for y = X^T w + A(M) (unit w, M = U U^T), relative to ||w|| + ||M||_2, from one streamed
    pass with a single factor column (no d x d product): lemma6_p0, lemma6_p1, lemma6_p2 and the controls
    lemma6_p0_no_trace (P0 against 0), lemma6_p1_no_kappa (P1 against w), lemma6_p2_no_kappa (against D(M)(phi - 1))."""
    if isinstance(n, list):
        return paired(measure_projections, seed, "n", n, dist=dist, param=param, d=d, k=k)
    s_model, s_data = seed.spawn(2)
    fd = distribution(dist, param)
    U, w = _rank_k_pair(d, k, s_model)
    dM, kappa, phi = np.sum(U ** 2, axis=1), fd.kappa, fd.phi
    model = gen.SecondOrderModel(fd, -w, U, -np.ones(k))                  # z = -y = x^T w + x^T M x
    _, p0, p1, p2 = gen.residual_moments(model, n, s_data, np.zeros(d), np.zeros((d, 1)), np.zeros((d, 1)))
    scale = np.linalg.norm(w) + 1.0
    return {"lemma6_p0": abs(p0 - dM.sum()) / scale, "lemma6_p0_no_trace": abs(p0) / scale,
            "lemma6_p1": np.linalg.norm(p1 - (dM * kappa + w)) / scale,
            "lemma6_p1_no_kappa": np.linalg.norm(p1 - w) / scale,
            "lemma6_p2": np.linalg.norm(p2 - (dM * (phi - 1) + kappa * w)) / scale,
            "lemma6_p2_no_kappa": np.linalg.norm(p2 - dM * (phi - 1)) / scale}


def _perturbed_state(model: gen.SecondOrderModel, k: int, distance: float, seed) -> sol.SLMState:
    """A state near (w*, M*): U = orth(U* + distance G), M = U S U^T with S = (1 + distance) I + distance (sym.
    noise) (so tr(M - M*) is of order k distance), V = U S,
    w = w* + distance g / ||g||."""
    rng = np.random.default_rng(seed)
    d = model.d
    U, _ = np.linalg.qr(model.U_star + distance * rng.standard_normal((d, k)) / np.sqrt(d))
    B = rng.standard_normal((k, k))
    S = (1 + distance) * np.eye(k) + distance * (B + B.T) / 2
    w = model.w_star + distance * _unit(rng.standard_normal(d))
    return sol.SLMState(w, U, U @ S)


def measure_gradient(seed, *, dist: str, param: float, d: int, k: int, n: int, distance: float) -> dict:
    """Eq. (6) at a state at ``distance`` from the truth: the gradient (1/n) A'(z) U (d, k) of Eq. (5) in V,
    against 2 (M - M*) U + F U with the printed F = tr(M - M*) I + D(phi - 3) D(M - M*) + D(kappa) D(w - w*)
    (gradient), against 2 (M - M*) U alone (gradient_unbiased: no F), relative to the formula's norm."""
    if isinstance(n, list):
        return paired(measure_gradient, seed, "n", n, dist=dist, param=param, d=d, k=k, distance=distance)
    s_model, s_state, s_data = seed.spawn(3)
    fd = distribution(dist, param)
    model = gen.low_rank_model(d, k, fd, s_model)
    state = _perturbed_state(model, k, distance, s_state)
    grad, _, _, _ = gen.residual_moments(model, n, s_data, state.w, state.U, state.V)
    _, _, kappa, phi = fd.moments
    delta, dw = state.M - model.M_star, state.w - model.w_star
    F_diag = np.trace(delta) + (phi - 3) * np.diag(delta) + kappa * dw
    printed = 2 * delta @ state.U + F_diag[:, None] * state.U
    return {"gradient": metrics.spectral_error(grad, printed) / np.linalg.norm(printed, 2),
            "gradient_unbiased": metrics.spectral_error(grad, 2 * delta @ state.U) / np.linalg.norm(printed, 2)}


def measure_moments(seed, *, dist: str, param: float, d: int, n: int) -> dict:
    """Definition 1 and Lemma 7 from n instances: tau_hat (mean over coordinates of |phi - 1 - kappa^2| from each
    coordinate's sample standardised by its own mean and variance), tau_exact, and the largest coordinate
    deviations ||G - G*||_inf, ||H - H*||_inf of Eqs. (7)-(8) from line 2's oracle estimates (NaN where the
    distribution is not MIP)."""
    if isinstance(n, list):
        return paired(measure_moments, seed, "n", n, dist=dist, param=param, d=d)
    fd = distribution(dist, param)
    means = gen.feature_power_means(fd, d, n, seed)
    kappa_s, phi_s = gen.sample_standardised_moments(means)
    est = sol.MomentEstimates(None, means[2], means[3])                  # Algorithm 1 line 2 with the oracle
    out = {"tau_hat": float(np.mean(np.abs(phi_s - 1 - kappa_s ** 2))), "tau_exact": fd.tau}
    if sol.is_mip(fd):
        G, H = sol.moment_coefficients(est.kappa, est.phi)
        G0, H0 = sol.moment_coefficients(np.full(d, fd.kappa), np.full(d, fd.phi))
        out.update(G_deviation=float(np.abs(G - G0).max()), H_deviation=float(np.abs(H - H0).max()))
    else:
        out.update(G_deviation=np.nan, H_deviation=np.nan)
    return out


def two_point_fourth_power_sd(eps: float) -> float:
    """sd(x^4) of the standardised two-point-plus-jitter coordinate (s + eps z) / sqrt(1 + eps^2)."""
    e2 = eps * eps
    return float(np.sqrt(16 * e2 + 168 * e2 ** 2 + 384 * e2 ** 3 + 96 * e2 ** 4) / (1 + e2) ** 2)


def measure_lemma7_tau(seed, *, tau: float, d: int, n: int) -> dict:
    """Lemma 7 along the MIP constant: the two-point-plus-jitter distribution with MIP constant ``tau`` (kappa = 0).
    G_scaled: ||G - G*||_inf over Lemma 7's rate sqrt((1/tau)(1 + sqrt(kappa^2 + (phi - 3)^2) / tau)); G_first_order:
    over the delta method's 2 sd(x^4) / tau^2 (dG_2 / dphi = 2 / tau^2; n is fixed along tau)."""
    if isinstance(tau, list):
        return paired(measure_lemma7_tau, seed, "tau", tau, d=d, n=n)
    eps = gen.two_point_jitter_for_tau(tau)
    out = measure_moments(seed, dist="two_point_jitter", param=eps, d=d, n=n)
    fd = distribution("two_point_jitter", eps)
    rate = np.sqrt((1 / tau) * (1 + np.hypot(fd.kappa, fd.phi - 3) / tau))
    return {**out, "G_scaled": out["G_deviation"] / rate,
            "G_first_order": out["G_deviation"] / (2 * two_point_fourth_power_sd(eps) / tau ** 2)}


def measure_eq10(seed, *, dist: str, param: float, d: int, k: int, n: int, distance: float) -> dict:
    """Lemma 8 / Eq. (10) at a state at ``distance``: with eps = ||w - w*|| + ||M - M*||_2, the relative residuals
    ||M(z) - (M - M*)||_2 / eps for line 7 as printed (eq10_printed) and with P0 I / 2 removed (eq10_corrected),
    ||W(z) - (w - w*)|| / eps for line 10 (eq10_w) and for W = G o P (Appendix E's typo, eq10_w_with_G); M(z) is
    formed from one streamed pass with the factors [U, I], [V, 0]."""
    if isinstance(n, list):
        return paired(measure_eq10, seed, "n", n, dist=dist, param=param, d=d, k=k, distance=distance)
    s_model, s_state, s_data, s_moments = seed.spawn(4)
    fd = distribution(dist, param)
    model = gen.low_rank_model(d, k, fd, s_model)
    state = _perturbed_state(model, k, distance, s_state)
    est = sol.estimate_moments(model, n, s_moments, oracle=True)
    G, H = sol.moment_coefficients(est.kappa, est.phi)
    AI, p0, p1, p2 = gen.residual_moments(model, n, s_data, state.w, np.hstack([state.U, np.eye(d)]),
                                          np.hstack([state.V, np.zeros((d, d))]))
    Mz = AI[:, k:] / 2 - np.diag(G[:, 0] * p1 + G[:, 1] * p2) / 2            # line 7 as printed
    delta, dw = state.M - model.M_star, state.w - model.w_star
    eps = np.linalg.norm(dw) + np.linalg.norm(delta, 2)
    sym = (delta + delta.T) / 2
    return {"eq10_printed": metrics.spectral_error(Mz, sym) / eps,
            "eq10_corrected": metrics.spectral_error(Mz - p0 / 2 * np.eye(d), sym) / eps,
            "eq10_w": np.linalg.norm(H[:, 0] * p1 + H[:, 1] * p2 - dw) / eps,
            "eq10_w_with_G": np.linalg.norm(G[:, 0] * p1 + G[:, 1] * p2 - dw) / eps}


def contraction_factor(errors: np.ndarray, floor: float = 1e-10) -> float:
    """exp(least-squares slope of log error over the iterations t >= 1 where error > floor x error(0))."""
    t = np.arange(errors.size)
    keep = (t >= 1) & np.isfinite(errors) & (errors > floor * errors[0])
    if keep.sum() < 2:
        return np.nan
    return float(np.exp(np.polyfit(t[keep], np.log(errors[keep]), 1)[0]))


def measure_algorithm1(seed, *, dist: str, param: float, d: int, k: int, n: int, iteration: list[int],
                       noise: float = 0.0, diag_free: bool = False, v_step: str = "uhat", trace: str = "removed",
                       oracle: bool = True, resample: bool = True, start: str = "spectral",
                       init_iters: int = 10) -> dict:
    """Algorithm 1 (or Section 3.1's construction when ``diag_free``) on model (1): the recovery error at the
    checkpoints ``iteration`` (t = 0..T, ``error``), its fitted per-iteration ``contraction`` and the
    ``final_error`` (at T). ``n`` a list: a paired design over the batch size. ``init_iters``: subspace iterations
    of line 4's spectral start."""
    if isinstance(n, list):
        return paired(measure_algorithm1, seed, "n", n, dist=dist, param=param, d=d, k=k, iteration=iteration,
                      noise=noise, diag_free=diag_free, v_step=v_step, trace=trace, oracle=oracle, resample=resample,
                      start=start, init_iters=init_iters)
    T = iteration[-1]
    s_model, s_run = seed.spawn(2)
    model = gen.low_rank_model(d, k, distribution(dist, param), s_model, diag_free=diag_free, noise=noise)
    run = sol.moment_estimation_sequence(model, k, n, T, s_run, v_step=v_step, trace=trace, oracle=oracle,
                                         construction="diag_free" if diag_free else "mip", resample=resample,
                                         start=start, init_iters=init_iters)
    error = record(run, {"error": lambda s: recovery_error(model, s)}, iteration)["error"]
    return {"error": error, "contraction": contraction_factor(error), "final_error": float(error[-1])}


# Section 2.1's step rule: the largest step of this grid whose pilot run converges (see tuned_gradient_step)
STEP_GRID = (0.2, 0.18, 0.16, 0.14, 0.12, 0.1, 0.08, 0.06, 0.04, 0.02)
PILOT_STEPS, PILOT_TAIL, PILOT_SHARE = 30, 10, 5  # pilot length, its judged tail, n / PILOT_SHARE pilot instances
BACK_OFF = 0.75  # the step used: this share of the largest pilot-stable step (the curvature grows near the truth)


def symmetric_recovery_error(model: gen.SecondOrderModel, state) -> float:
    """||w - w*||_2 + ||sym(M) - M*||_2: the recovery error of what Eq. (5)'s loss sees (x'Mx depends on M only
    through sym(M) = (M + M')/2; gradient descent's M = U V' has an antisymmetric part no label constrains)."""
    M = state.M
    return metrics.second_order_recovery_error(state.w, (M + M.T) / 2, model.w_star, model.M_star)


def _gradient_path(model, k: int, n: int, T: int, seed, step: float) -> np.ndarray:
    """symmetric_recovery_error at t = 0..T of gradient descent on one training set of n instances (a pilot: too
    large a step diverges to inf or NaN by design, without a warning)."""
    run = sol.gradient_descent_sequence(model, k, n, T, seed, step=step, resample=False)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.array([symmetric_recovery_error(model, s) for _, s in run])


def tuned_gradient_step(model, k: int, n: int, seed) -> float:
    """Section 2.1's step, tuned per distribution: BACK_OFF times the largest step of STEP_GRID whose pilot run
    (PILOT_STEPS steps on the pilot's training set of n / PILOT_SHARE instances of ``seed``, the same set for every
    step tried, the truth known: the tuning most favourable to gradient descent) has a finite, non-increasing error
    over its last PILOT_TAIL steps, i.e. neither diverges nor oscillates (BACK_OFF times the grid's smallest step
    when none does). The back-off keeps the step below the stability limit 2/L of the longer run, whose curvature L
    grows as the iterate nears the truth."""
    n_pilot = max(2, n // PILOT_SHARE)
    for step in STEP_GRID:
        tail = _gradient_path(model, k, n_pilot, PILOT_STEPS, seed, step)[-PILOT_TAIL:]
        if np.all(np.isfinite(tail)) and np.all(np.diff(tail) <= 1e-12 * tail[:-1]):
            return BACK_OFF * step
    return BACK_OFF * STEP_GRID[-1]


def measure_gradient_descent(seed, *, dist: str, param: float, d: int, k: int, n: int, iteration: list[int],
                             step: float = 0.2, tune_step: bool = False) -> dict:
    """Section 2.1's heuristic: simultaneous gradient steps on Eq. (5) from Algorithm 1's start (line 4), with the
    zero-mean/unit-variance oracle, noise-free, one training set of n instances reused every step, at ``step`` or,
    with ``tune_step``, at tuned_gradient_step's choice (a pilot on an independent seed; ``step`` is then not
    used). Outputs: the error
    ||w - w*|| + ||M - M*|| at the checkpoints (``error``) and at T (``final_error``), the same with sym(M)
    (``symmetric_error``, ``final_symmetric_error``) and the step used (``step_used``)."""
    s_model, s_run, s_pilot = seed.spawn(3)
    model = gen.low_rank_model(d, k, distribution(dist, param), s_model)
    step_used = tuned_gradient_step(model, k, n, s_pilot) if tune_step else float(step)
    run = sol.gradient_descent_sequence(model, k, n, iteration[-1], s_run, step=step_used, resample=False)
    got = record(run, {"error": lambda s: recovery_error(model, s),
                       "symmetric_error": lambda s: symmetric_recovery_error(model, s)}, iteration)
    return {"error": got["error"], "final_error": float(got["error"][-1]), "symmetric_error": got["symmetric_error"],
            "final_symmetric_error": float(got["symmetric_error"][-1]), "step_used": step_used}


FIGURE1_SOLVERS = ("slm", "fm", "fm_standardised")


def _fm_run(X: np.ndarray, y: np.ndarray, X_test: np.ndarray, y_test: np.ndarray, k: int, iteration: list[int],
            seed) -> np.ndarray:
    """Test NMSE of the ALS factorization machine at the checkpoints (NaN after its stopping rule fired)."""
    fm = FactorizationMachine(rank=k, n_iter=iteration[-1], random_state=seed)
    return record(fm.iterate(X, y), {"nmse": lambda f: metrics.normalised_mse(f.predict(X_test), y_test)},
                  iteration)["nmse"]


def _last_finite(path: np.ndarray) -> float:
    finite = path[np.isfinite(path)]
    return float(finite[-1]) if finite.size else np.nan


def measure_figure1(seed, *, dist: str, param, diag_free: bool, noise: float, d: int, k: int, n: int,
                    n_test: int, iteration: list[int], solver: list[str]) -> dict:
    """Section 5.1's protocol on one training set of n instances without the zero-mean/unit-variance oracle: SLM
    (corrected Algorithm 1, or the diagonal-free construction, reusing the set every step), and, on the same
    instances (paired), the ALS factorization machine on the raw features x = mean + sd z ("fm", as a toolbox
    sees the data) and on the same features standardised by their sample mean and variance ("fm_standardised").
    Outputs: test NMSE per solver and checkpoint (``nmse``), its last finite value (``final_nmse``), and SLM's
    recovery error (``slm_error``). ``param`` a list: a paired design, every distribution parameter on the same
    seeds (the same M*, w* and the same underlying normals), each output gaining a leading ``param`` dim."""
    children = seed.spawn(5)
    if isinstance(param, list):
        runs = [_figure1_run(children, distribution(dist, p), diag_free, noise, d, k, n, n_test, iteration, solver)
                for p in param]
        return {name: np.stack([r[name] for r in runs]) for name in runs[0]}
    return _figure1_run(children, distribution(dist, param), diag_free, noise, d, k, n, n_test, iteration, solver)


def _figure1_run(children, fd, diag_free, noise, d, k, n, n_test, iteration, solver) -> dict:
    s_model, _, s_test, s_run, s_fm = children  # children[1] unused: the baselines train on SLM's draw
    s_train = sol.run_streams(s_run)[0]  # the one training set SLM reuses (resample=False), for every solver
    model = gen.low_rank_model(d, k, fd, s_model, diag_free=diag_free, noise=noise)
    X_test, y_test = gen.slm_instances(model, n_test, s_test)
    paths = {}
    if "slm" in solver:
        run = sol.moment_estimation_sequence(model, k, n, iteration[-1], s_run, v_step="uhat", trace="removed",
                                             construction="diag_free" if diag_free else "mip", oracle=False,
                                             resample=False)
        got = record(run, {"nmse": lambda s: metrics.normalised_mse(s.predict(X_test), y_test),
                           "error": lambda s: recovery_error(model, s)}, iteration)
        paths["slm"], slm_error = got["nmse"], got["error"]
    if {"fm", "fm_standardised"} & set(solver):
        X, y = gen.slm_instances(model, n, s_train, order="F")  # SLM's training set (columns), transformed in place
        mean, sd, _, _ = fd.moments
        raw = gen.FeatureView(np.full(d, sd), np.full(d, mean))
        view = gen.FeatureView.estimated(gen.feature_power_means(fd, d, n, s_train))  # the same instances
        for name, v in (("fm", raw), ("fm_standardised", view)):
            if name in solver:
                X *= v.scale
                X += v.shift
                paths[name] = _fm_run(X, y, v.apply(X_test), y_test, k, iteration, s_fm)
                X -= v.shift
                X /= v.scale
    nmse = np.array([paths[s] for s in solver])
    return {"nmse": nmse, "final_nmse": np.array([_last_finite(p) for p in nmse]),
            "slm_error": slm_error if "slm" in solver else np.full(len(iteration), np.nan)}
