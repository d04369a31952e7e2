"""Measures of Chi (2018): one replicate of each simulation, composed of generators, solvers
and metrics. Each takes ``seed`` (a SeedSequence, spawned once and unpacked) and keyword
parameters; scalars are floats, trajectories arrays over the checkpoints ``m``."""
from __future__ import annotations

import numpy as np

from simverify import metrics
from simverify.generators import bitsubspace as gen
from simverify.iteration import record
from simverify.solvers import bitsubspace as sol

DELTA = 0.1  # failure probability used where a bound carries log(1/delta)
RESOLUTION = 0.25  # a frequency is resolved when an estimate lies within RESOLUTION / n of it


def _spectral_model(n: int, r: int, kappa: float, extra_eig: float, seed) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """U (n, min(r + 1, n)) orthonormal, the r eigenvalues lambda (r,) and Sigma's factor F
    (n, r [+ 1]): U[:, :r] diag(lambda) U[:, :r]^T, plus extra_eig along U[:, r] when > 0."""
    U = gen.orthonormal_basis(n, min(r + 1, n), seed)
    lam = gen.condition_profile(r, kappa)
    F = gen.spectral_factor(U[:, :r], lam)
    if extra_eig > 0:
        F = np.hstack([F, np.sqrt(extra_eig) * U[:, r:r + 1]])
    return U, lam, F


def measure_lemma1(seed, *, r: int, m: int, kappa: float = 1.0, n_extra: int = 2, extra_eig: float = 0.0,
                   flip_prob: float = 0.0, v_distribution: str = "gaussian") -> dict:
    """u_1^T J u_1, u_r^T J u_r, their mean over k = 1..r and v^T J v (v the first direction
    outside U) for one J at n = r + n_extra. ``v_distribution='laplace'`` simulates the proof's
    model (V_k Laplace(1), projection level: v_form = 0)."""
    lam = gen.condition_profile(r, kappa)
    if v_distribution == "laplace":
        d = gen.projected_surrogate_diagonal(lam, m, seed, law="laplace")
        return {"d_first": d[0], "d_last": d[-1], "v_form": 0.0, "d_mean": d.mean()}
    s_model, s_data = seed.spawn(2)
    U, _, F = _spectral_model(r + n_extra, r, kappa, extra_eig, s_model)
    J = sol.surrogate_matrix(gen.SensingModel(F, flip_prob=flip_prob), m, s_data)
    d = np.array([U[:, k] @ J @ U[:, k] for k in range(r)])
    return {"d_first": d[0], "d_last": d[-1], "v_form": U[:, r] @ J @ U[:, r], "d_mean": d.mean()}


def measure_subspace_consistency(seed, *, n: int, r: int, m: int, kappa: float = 1.0, extra_eig: float = 0.0) -> dict:
    """sin-theta distance between the top-r eigenspace of J and U (Lemma 1 + consistency)."""
    s_model, s_data = seed.spawn(2)
    U, _, F = _spectral_model(n, r, kappa, extra_eig, s_model)
    J = sol.surrogate_matrix(gen.SensingModel(F), m, s_data)
    return {"sin_theta": metrics.sin_theta_distance(sol.truncated_evd(J, r), U[:, :r])}


def measure_concentration(seed, *, n: int, r: int, m: int, kappa: float = 1.0) -> dict:
    """||J - E[J]|| with E[J] = U diag(d) U^T exact for Gaussian sketches (deviation_gaussian)
    and centred at the Laplace-model E[J] (deviation_laplace)."""
    s_model, s_data = seed.spawn(2)
    U, lam, F = _spectral_model(n, r, kappa, 0.0, s_model)
    J = sol.surrogate_matrix(gen.SensingModel(F), m, s_data)
    Ur = U[:, :r]
    return {f"deviation_{law}": np.linalg.norm(J - (Ur * gen.surrogate_diagonal(lam, law)) @ Ur.T, 2)
            for law in ("gaussian", "laplace")}


def measure_recovery(seed, *, n: int, r: int, m: int, kappa: float = 1.0, flip_prob: float = 0.0) -> dict:
    """Procrustes distance min_Q ||U_hat - U Q||_F and NMSE of truncated EVD."""
    s_model, s_data = seed.spawn(2)
    U, _, F = _spectral_model(n, r, kappa, 0.0, s_model)
    J = sol.surrogate_matrix(gen.SensingModel(F, flip_prob=flip_prob), m, s_data)
    Uh = sol.truncated_evd(J, r)
    return {"distance": metrics.procrustes_distance(Uh, U[:, :r]), "nmse": metrics.nmse(Uh, F)}


def _bit_error_rate(seed, effrank: float, T: int, m: int, n: int, flip_prob: float) -> float:
    """Bit error rate of T-sample bits (Eq. 1) against population bits (Eq. 2) for Sigma the
    projector onto k = effrank^2 random directions (Tr/||.||_F = effrank)."""
    k = round(effrank ** 2)
    s_model, s_data = seed.spawn(2)
    F = gen.orthonormal_basis(max(n, k), k, s_model)
    return gen.bit_error_rate(gen.SensingModel(F, samples=T, flip_prob=flip_prob), m, s_data)


def measure_bit_errors(seed, *, effrank: float, T: int, m: int, n: int, flip_prob: float = 0.0) -> dict:
    """Bit error rate ``ber`` (Proposition 1)."""
    return {"ber": _bit_error_rate(seed, effrank, T, m, n, flip_prob)}


def theorem2_samples(rule: str, m: int, effrank: float, c: float) -> int:
    """T per sensor: the printed rule c rho log^2(m/delta), or the corrected c (rho m/delta)^2."""
    if rule == "printed":
        return int(np.ceil(c * effrank * np.log(m / DELTA) ** 2))
    if rule == "corrected":
        return int(np.ceil(c * (effrank * m / DELTA) ** 2))
    raise ValueError(f"rule must be 'printed' or 'corrected', got {rule!r}")


def measure_all_bits_exact(seed, *, rule: str, m: int, effrank: float, c: float, n: int) -> dict:
    """Indicator that all m bits are exact at the T the rule prescribes (Theorem 2), and T."""
    T = theorem2_samples(rule, m, effrank, c)
    return {"all_exact": float(_bit_error_rate(seed, effrank, T, m, n, 0.0) == 0.0), "T": float(T)}


def measure_batch(seed, *, n: int, r: int, m: int, convex_rank: int, flip_prob: float = 0.0) -> dict:
    """Section 6.1: Sigma = X X^T, X Gaussian (n, r); NMSE of truncated EVD and of Eq. (9)
    with the nuclear-norm radius sqrt(convex_rank)."""
    s_model, s_data = seed.spawn(2)
    X = gen.gaussian_factor(n, r, s_model)
    J = sol.surrogate_matrix(gen.SensingModel(X, flip_prob=flip_prob), m, s_data)
    S = sol.convex_lowrank(J, convex_rank)
    return {"nmse_evd": metrics.nmse(sol.truncated_evd(J, r), X),
            "nmse_convex": metrics.nmse(sol.top_eigenvectors(S, r), X)}


def measure_evd(seed, *, n: int, r: int, m: int, flip_prob: float = 0.0) -> dict:
    """Section 6.1: NMSE of truncated EVD for Sigma = X X^T, X Gaussian (n, r)."""
    s_model, s_data = seed.spawn(2)
    X = gen.gaussian_factor(n, r, s_model)
    J = sol.surrogate_matrix(gen.SensingModel(X, flip_prob=flip_prob), m, s_data)
    return {"nmse_evd": metrics.nmse(sol.truncated_evd(J, r), X)}


def measure_flips(seed, *, n: int, r: int, m: int, bit_agreement: float) -> dict:
    """measure_evd with every bit flipped with probability eps, bit_agreement = 1 - 2 eps."""
    return measure_evd(seed, n=n, r=r, m=m, flip_prob=(1.0 - bit_agreement) / 2)


def measure_sparse_set(seed, *, n: int, support: int, sparsity_level: float, m: int) -> dict:
    """Section 4's remark: Eq. (9) over K = {||S||_F <= 1, ||S||_1 <= sqrt(s)} for a sparse rank-one
    Sigma = u u^T (``support`` of n coordinates), against truncated EVD of the same J (r = 1)."""
    s_model, s_data = seed.spawn(2)
    u = gen.sparse_unit_factor(n, support, s_model)
    J = sol.surrogate_matrix(gen.SensingModel(u), m, s_data)
    S = sol.convex_sparse(J, float(sparsity_level), iterations=200)  # NMSE settled to 4 digits by 100
    return {"nmse_sparse": metrics.nmse(sol.top_eigenvectors(S, 1), u),
            "nmse_evd": metrics.nmse(sol.truncated_evd(J, 1), u)}


def _tracked_nmse(tracker: sol.OnlineSubspaceTracker, model: gen.SensingModel, m: list[int], seed,
                  X: np.ndarray) -> np.ndarray:
    """NMSE (len(m),) of the tracker's subspace against X at each checkpoint of the stream (model, seed)."""
    return record(tracker.iterate(model, max(m), seed, m), {"nmse": lambda t: metrics.nmse(t.subspace(), X)}, m)["nmse"]


def measure_online(seed, *, n: int, r: int, m: list[int], warm_start: int = 1000) -> dict:
    """NMSE (len(m),) at each checkpoint m, all on one sensor stream: batch EVD (nmse_batch); the
    tracker keeping the r largest |eigenvalues| as printed (nmse_online_printed) and the one
    keeping the r largest eigenvalues (nmse_online_corrected), both cold-started from the same
    random subspace with zero eigenvalues; and the as-printed tracker warm-started from the batch
    EVD of the first ``warm_start`` sensors (nmse_online_warm; NaN at checkpoints below it)."""
    s_model, s_data, s_init = seed.spawn(3)
    X = gen.gaussian_factor(n, r, s_model)
    model = gen.SensingModel(X)
    out = {"nmse_batch": [metrics.nmse(sol.truncated_evd(sol.surrogate_matrix(model, c, s_data), r), X) for c in m]}
    trackers = {"printed": sol.OnlineSubspaceTracker(n, r, by_magnitude=True, seed=s_init),
                "corrected": sol.OnlineSubspaceTracker(n, r, by_magnitude=False, seed=s_init),
                "warm": sol.OnlineSubspaceTracker(n, r, by_magnitude=True, seed=s_init, warm_start=warm_start)}
    for name, tracker in trackers.items():
        out[f"nmse_online_{name}"] = _tracked_nmse(tracker, model, m, s_data, X)
    return out


def line_spectrum(setting: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(frequencies, powers) (3,), (3,) of Fig. 6's setting 'a', 'b' or 'c' at dimension n."""
    close = np.array([0.1, 0.1 + 1.0 / n, 0.6])
    spectra = {"a": (close, np.ones(3)), "b": (close, np.array([1.0, 0.2, 1.0])),
               "c": (np.array([0.1, 0.35, 0.7]), np.array([1.0, 0.2, 1.0]))}
    if setting not in spectra:
        raise ValueError(f"unknown Figure 6 setting {setting!r} (expected one of {sorted(spectra)})")
    return spectra[setting]


def first_settled(ok: np.ndarray, checkpoints, censored: float) -> float:
    """The first checkpoint from which ``ok`` holds at every later checkpoint (else ``censored``)."""
    bad = np.flatnonzero(~np.asarray(ok, dtype=bool))
    idx = 0 if bad.size == 0 else bad[-1] + 1
    return float(checkpoints[idx]) if idx < len(checkpoints) else float(censored)


def measure_line_spectrum(seed, *, n: int, setting: str, r_est: int, m: list[int], flip_prob: float = 0.0,
                          tracker: str = "corrected") -> dict:
    """Section 6.2: online tracker (r_est) + ESPRIT at each checkpoint m; worst frequency error
    in units of 1/n, the weak (second) frequency's error, the NMSE of the tracked subspace (each
    (len(m),)) and m_resolved, the number of bits after which every frequency stays resolved
    (censored at twice the last checkpoint)."""
    s_init, s_data = seed.spawn(2)
    freqs, powers = line_spectrum(setting, n)
    F = gen.line_spectrum_factor(n, freqs, powers)
    model = gen.SensingModel(F, flip_prob=flip_prob, complex_sketches=True)
    online = sol.OnlineSubspaceTracker(n, r_est, by_magnitude=tracker == "printed", complex_data=True, seed=s_init)

    def errors(t):
        return n * metrics.frequency_errors(sol.esprit(t.subspace())[0], freqs)

    path = record(online.iterate(model, max(m), s_data, m),
                  {"worst_error": lambda t: errors(t).max(), "weak_error": lambda t: errors(t)[1],
                   "nmse": lambda t: metrics.nmse(t.subspace()[:, :len(freqs)], F)}, m)
    return {**path, "m_resolved": first_settled(path["worst_error"] < RESOLUTION, m, 2 * max(m))}


def measure_finite_samples(seed, *, n: int, r: int, T: int, noise_var: float, m: list[int]) -> dict:
    """Section 6.3: all m sensors compare energies of the same T samples x_t = U a_t + n_t
    (Sigma_T = X^T X / T); NMSE (len(m),) of truncated EVD against U at each m."""
    s_basis, s_samples, s_data = seed.spawn(3)
    U = gen.orthonormal_basis(n, r, s_basis)
    model = gen.SensingModel(gen.sample_factor(gen.shared_samples(U, T, noise_var, s_samples)))
    return {"nmse": [metrics.nmse(sol.truncated_evd(sol.surrogate_matrix(model, c, s_data), r), U) for c in m]}
