"""Qiu et al. (2017): kernels against naive NumPy references, Algorithm 1's two forms and its printed
start, LEML's steps against least squares, metrics against definitions, bad input refused."""
import subprocess
import sys

import numpy as np
import pytest

from simverify import metrics
from simverify.generators import onebit as gen
from simverify.kernels.onebit import INSTANCE_CHUNK, sign_difference_moments
from simverify.kernels.rng import n_chunks
from simverify.kernels.streams import stream_states
from simverify.solvers import multilabel as ml
from simverify.solvers import onebit as sol
from tests.stream_reference import reference_streams
from tests.support import ROOT


@pytest.fixture(scope="module")
def model():
    return gen.SingleLabelModel(gen.gaussian_model_matrix(12, 5, 2, 3), xi=0.2, flip_prob=0.05)


def naive_residual(model, W, m, seed):
    """sqrt(d2)/(m lambda) A'(y - sign(A(W))) from the materialised stream, term by term."""
    X, labels, y, _ = gen.single_label_instances(model, m, seed)
    d1, d2 = model.shape
    H = np.zeros((d1, d2))
    for x, j, yi in zip(X, labels, y):
        e_bar = np.sqrt(d2) * np.eye(d2)[j]
        s = 1.0 if x @ W[:, j] >= 0 else -1.0
        H += (yi - s) * np.outer(x, e_bar)
    return np.sqrt(d2) / (m * sol.LAMBDA) * H


def test_streamed_residual_matches_the_materialised_stream(model):
    W = gen.gaussian_model_matrix(12, 5, 2, 9)
    m = 2 * INSTANCE_CHUNK + 37  # a partial last chunk
    assert np.allclose(sol.residual_matrix(model, W, m, 4), naive_residual(model, W, m, 4), atol=1e-12)


def test_stream_bits_follow_eq2_with_noise_and_flips(model):
    X, labels, y, clean = gen.single_label_instances(model, 5000, 1)
    assert np.array_equal(clean, np.where(np.einsum("ia,ai->i", X, model.w_star[:, labels]) >= 0, 1.0, -1.0))
    assert 0.05 < np.mean(y != clean) < 0.2  # flips (5%) plus noise xi = 0.2 inside the sign
    noiseless = gen.SingleLabelModel(model.w_star)
    X2, _, y2, clean2 = gen.single_label_instances(noiseless, 5000, 1)
    assert np.array_equal(X, X2) and np.array_equal(y2, clean2)  # same draws whatever the noise model


def test_sign_correlation_is_unbiased_for_w_star(model):
    est = sol.sign_correlation(gen.SingleLabelModel(model.w_star), 400_000, 2)
    assert np.sum(est * model.w_star) / np.sum(model.w_star ** 2) == pytest.approx(1.0, abs=0.02)


def test_sign_difference_moments_match_the_reference_streams():
    d, n = 4, 3000
    w = np.array([1.0, 0.0, 0.0, 0.0])
    w2 = np.array([0.6, 0.8, 0.0, 0.0])
    outer, norm2 = sign_difference_moments(stream_states(5, n_chunks(n, 1024)), w, w2, n, 1024)
    # the same streams drawn by the naive reference: chunk c holds samples 1024 c .. 1024 (c + 1) - 1, d normals each
    G = np.concatenate([g.standard_normal(min(1024, n - 1024 * c) * d).reshape(-1, d)
                        for c, g in enumerate(reference_streams(5, n_chunks(n, 1024)))])
    f = (np.where(G @ w >= 0, 1.0, -1.0) - np.where(G @ w2 >= 0, 1.0, -1.0)) ** 2
    assert np.allclose(outer.sum(0), (G * f[:, None]).T @ G) and np.isclose(norm2.sum(), f @ (G ** 2).sum(1))


def test_dilation_spectrum_is_plus_minus_singular_values():
    W = gen.gaussian_model_matrix(7, 4, 2, 1)
    eig = np.linalg.eigvalsh(sol.hermitian_dilation(W))
    s = np.linalg.svd(W, compute_uv=False)
    assert np.allclose(np.sort(eig), np.sort(np.r_[s, -s, np.zeros(3)]), atol=1e-12)


def test_block_and_dilation_forms_give_the_same_iterates():
    model = gen.SingleLabelModel(gen.gaussian_model_matrix(20, 8, 2, 1))
    block = list(sol.algorithm1(model, 2, 3000, 4, 6, form="block"))
    dil = list(sol.algorithm1(model, 2, 3000, 4, 6, form="dilation"))
    for (t, a), (u, b) in zip(block, dil, strict=True):
        assert t == u and np.allclose(a.W, b.W, atol=1e-10) and np.allclose(a.U, b.U, atol=1e-10)


def test_printed_start_normalises_zero_and_stops_with_nan_while_zero_start_recovers():
    model = gen.SingleLabelModel(gen.gaussian_model_matrix(20, 8, 2, 1))
    printed = list(sol.algorithm1(model, 2, 5000, 5, 6, start="printed"))
    assert [t for t, _ in printed] == [0, 1] and np.all(np.isnan(printed[-1][1].W))
    *_, (t, last) = sol.algorithm1(model, 2, 20_000, 5, 6, start="zero")
    assert t == 5 and metrics.spectral_error(last.W, model.w_star) < 0.3
    assert np.allclose(np.linalg.norm(last.W, axis=0), 1.0)


def test_conditioned_model_has_unit_columns_rank_k_and_the_condition_number():
    W = gen.conditioned_model_matrix(30, 12, 3, 5.0, 2)
    s = np.linalg.svd(W, compute_uv=False)
    assert np.allclose(np.linalg.norm(W, axis=0), 1.0) and s[3] < 1e-10 and s[0] / s[2] == pytest.approx(5.0)


def test_leml_steps_solve_their_least_squares_problems():
    model = gen.SingleLabelModel(gen.gaussian_model_matrix(6, 4, 2, 1))
    X, labels, y, _ = gen.single_label_instances(model, 300, 2)
    stats = ml.LabelStatistics.empty(6, 4)
    stats.add(X, labels, y)
    U = np.random.default_rng(0).standard_normal((6, 2))
    V = ml.leml_v_step(stats, U, 0.5)
    for j in range(4):
        Z = X[labels == j] @ U
        assert np.allclose(V[j], np.linalg.solve(Z.T @ Z + 0.5 * np.eye(2), Z.T @ y[labels == j]))
    U2 = ml.leml_u_step(stats, V, 0.5)
    design = np.stack([np.kron(V[j], x) for x, j in zip(X, labels)])  # row: vec(x v_j^T) (column-major)
    ref = np.linalg.solve(design.T @ design + 0.5 * np.eye(12), design.T @ y).reshape(2, 6).T
    assert np.allclose(U2, ref)


def test_average_auc_and_hamming_loss_match_their_definitions():
    rng = np.random.default_rng(3)
    scores, Y = rng.standard_normal((60, 3)), np.where(rng.standard_normal((60, 3)) > 0, 1.0, -1.0)
    scores[:5, 0] = 0.25  # ties count one half
    pairs = [np.mean([(p > q) + 0.5 * (p == q) for p in scores[Y[:, j] > 0, j] for q in scores[Y[:, j] < 0, j]])
             for j in range(3)]
    assert metrics.average_auc(scores, Y) == pytest.approx(np.mean(pairs))
    assert metrics.hamming_loss(scores, Y) == pytest.approx(np.mean(np.where(scores >= 0, 1, -1) != Y))


@pytest.mark.parametrize("call,needle", [
    (lambda: gen.gaussian_model_matrix(5, 4, 6, 0), "exceeds min(d1, d2)"),
    (lambda: gen.gaussian_model_matrix(5, 1, 1, 0), "at least 2"),
    (lambda: gen.gaussian_model_matrix(5, 4, True, 0), "positive integer"),
    (lambda: gen.SingleLabelModel(np.eye(3)[:, :2], flip_prob=1.5), "flip probability"),
    (lambda: gen.SingleLabelModel(np.eye(3)[:, :2], xi=float("nan")), "noise level"),
    (lambda: gen.SingleLabelModel(np.eye(3)[:, :2] * 2), "unit-norm columns"),
    (lambda: gen.column_normalize(np.array([[1.0, 0.0], [0.0, 0.0]])), "zero column"),
    (lambda: sol.residual_matrix(gen.SingleLabelModel(np.eye(3)[:, :2]), np.eye(3)[:, :2], 0, 1), "m must be"),
    (lambda: next(sol.algorithm1(gen.SingleLabelModel(np.eye(3)[:, :2]), 1, 10, 0, 1)), "T must be"),
    (lambda: next(sol.algorithm1(gen.SingleLabelModel(np.eye(3)[:, :2]), 1, 10, 1, 1, start="x")), "start"),
    (lambda: sol.residual_matrix(gen.SingleLabelModel(np.eye(3)[:, :2]), np.full((3, 2), np.inf), 5, 1),
     "non-finite")])
def test_bad_input_is_refused_with_a_clear_error(call, needle):
    with pytest.raises(ValueError, match=None) as err:
        call()
    assert needle in str(err.value)


@pytest.mark.parametrize("assignment,needle", [
    ("k=30", "rank k=30 exceeds"), ("d2=1", "parameter d2 (number of labels) must be an integer >= 2, got 1"),
    ("m=0", "parameter m must be a positive integer"),
    ("T=-1", "parameter T"), ("flip_prob=1.5", "flip_prob"), ("xi=nan", "not finite"),
    ("spectral_distance=3", "spectral_distance"), ("column_by_column=1", "true or false")])
@pytest.mark.slow
def test_cli_refuses_bad_paper_parameters_before_any_work(tmp_path, assignment, needle):
    store = tmp_path / "s"
    name = assignment.split("=")[0]
    claim = {"T": "onebit.theorem1.rate_m", "flip_prob": "onebit.theorem1.rate_m", "xi": "onebit.theorem1.rate_m",
             "m": "onebit.theorem2.bound_d1", "spectral_distance": "onebit.theorem2.bound_k",
             "column_by_column": "onebit.section3.column_by_column_rate"}.get(name, "onebit.lemma1.rate_m")
    res = subprocess.run([sys.executable, "-m", "simverify.cli", "check", claim, "--set", assignment,
                          "--scheduler", "serial", "--store", str(store)], capture_output=True, text=True,
                         cwd=ROOT, timeout=300, check=False)
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], res.stderr
    assert not store.exists()


# --- Section 5.2 and Table 2's baselines ------------------------------------------------------------

@pytest.fixture(scope="module")
def labelled():
    model = gen.SingleLabelModel(gen.gaussian_model_matrix(8, 4, 2, 5))
    return gen.fully_labelled_instances(model, 60, 6)


def test_full_observation_residual_averages_to_its_expectation_over_uniform_pairs(labelled):
    X, Y = labelled
    H = sol.full_observation_residual(X, Y, np.zeros((8, 4)), 2_000_000, 3)
    expected = X.T @ (Y - 1.0) / (sol.LAMBDA * X.shape[0])  # (d2/lambda) E over (i, j) of (Y_ij - 1) x_i e_j^T
    assert np.abs(H - expected).max() < 0.05 * np.abs(expected).max()


def test_full_observation_algorithm1_recovers_w_star():
    model = gen.SingleLabelModel(gen.gaussian_model_matrix(20, 6, 2, 1))
    X, Y = gen.fully_labelled_instances(model, 3000, 2)
    *_, (_, last) = sol.algorithm1_full_observation(X, Y, 2, 20_000, 6, 4)
    assert metrics.spectral_error(last.W, model.w_star) < 0.3


def test_svm_dual_coordinate_descent_matches_a_generic_dual_solver(labelled):
    from scipy.optimize import minimize
    X, Y = labelled
    W = ml.one_vs_all_svm(X, Y, 0, C=0.5, epochs=300)
    y = Y[:, 0]
    Q = (y[:, None] * X) @ (y[:, None] * X).T
    res = minimize(lambda a: 0.5 * a @ Q @ a - a.sum(), np.zeros(len(y)), jac=lambda a: Q @ a - 1.0,
                   bounds=[(0.0, 0.5)] * len(y), method="L-BFGS-B", options={"ftol": 1e-14, "gtol": 1e-10})
    assert np.allclose(W[:, 0], (res.x * y) @ X, atol=1e-3)


def test_trace_norm_regression_without_penalty_is_least_squares_and_svt_shrinks_singular_values(labelled):
    X, Y = labelled
    W = ml.trace_norm_regression(X, Y, "squared", lam_rel=0.0, iters=3000)
    assert np.allclose(W, np.linalg.lstsq(X, Y, rcond=None)[0], atol=1e-6)
    Z = ml.singular_value_threshold(np.diag([3.0, 1.0, 0.5]), 0.75)
    assert np.allclose(Z, np.diag([2.25, 0.25, 0.0]))


def test_leml_full_u_step_solves_its_normal_equations(labelled):
    X, Y = labelled
    state = ml.leml_full(X, Y, 2, 0, reg=0.3, iters=3)
    U, V = state.U, state.V
    assert np.allclose(X.T @ X @ U @ V.T @ V + 0.3 * U, X.T @ Y @ V, atol=1e-8)


def test_printed_tables_cover_every_case_and_print_ours_ahead():
    from theorems.onebit.experiments import TABLE1_PRINTED, TABLE2_PRINTED
    from theorems.onebit.sweeps import NOISE_CASES, TABLE2
    cases = len(NOISE_CASES["case"]["xi"])
    assert all(len(v) == cases for v in TABLE1_PRINTED.values())
    assert all(o > b for o, b in zip(TABLE1_PRINTED["ours"], TABLE1_PRINTED["leml"]))
    sets = len(TABLE2.tiers["full"].grid.zipped["dataset"]["d1"])
    assert all(len(v) == sets for v in TABLE2_PRINTED.values())
    assert all(TABLE2_PRINTED["ours"][i] == max(v[i] for v in TABLE2_PRINTED.values()) for i in range(sets))


def test_batch_size_sweep_is_paired_one_model_per_replicate_across_m():
    from theorems.onebit.measures import measure_algorithm1
    out = measure_algorithm1(np.random.SeedSequence(4), d1=12, d2=5, k=2, m=[300, 600], T=2)
    single = measure_algorithm1(np.random.SeedSequence(4), d1=12, d2=5, k=2, m=300, T=2)
    assert out["error"].shape == (2, 3) and out["final_error"].shape == (2,)
    assert out["error"][0, 0] == out["error"][1, 0] == single["error"][0]  # ||W*||: the same model at every m
    assert out["final_error"][0] != out["final_error"][1]


def test_leml_variants_in_lockstep_match_separate_runs_on_the_same_batches():
    from theorems.onebit.measures import _leml_runs
    model = gen.SingleLabelModel(gen.gaussian_model_matrix(10, 5, 2, 1))
    seeds = gen.as_children(np.random.SeedSequence(7), 3)
    U0 = np.linalg.qr(np.random.default_rng(0).standard_normal((10, 2)))[0]
    batches = [gen.single_label_instances(model, 400, s)[:3] for s in seeds]
    runs = _leml_runs(["leml_batch", "leml"], iter(batches), 5, 2, U0, 1.0)
    for name, accumulate in (("leml", True), ("leml_batch", False)):
        alone = list(ml.leml(iter(batches), 5, 2, U0, 1.0, accumulate=accumulate))
        assert [t for t, _ in runs[name]] == [0, 1, 2, 3]
        assert all(np.array_equal(a.W, b.W) for (_, a), (_, b) in zip(runs[name], alone))
    assert not np.allclose(runs["leml"][-1][1].W, runs["leml_batch"][-1][1].W)


def test_column_by_column_error_only_when_asked_and_iterates_unchanged():
    from theorems.onebit.measures import measure_algorithm1
    kw = dict(d1=12, d2=5, k=2, m=300, T=2)
    plain = measure_algorithm1(np.random.SeedSequence(4), **kw)
    both = measure_algorithm1(np.random.SeedSequence(4), **kw, column_by_column=True)
    assert "column_error" not in plain and np.isfinite(both["column_error"])
    assert np.array_equal(plain["error"], both["error"])


def test_perturbation_at_a_fixed_spectral_distance_reaches_it_with_unit_columns():
    from theorems.onebit.fixed_distance import measure_theorem2_at_distance, perturbed_at_distance
    W = gen.gaussian_model_matrix(30, 8, 2, 1)
    E = gen.gaussian_model_matrix(30, 8, 2, 2)
    for dist in (0.05, 0.5, 1.0):
        W2 = perturbed_at_distance(W, E, dist)
        assert abs(np.linalg.norm(W - W2, 2) - dist) < 1e-9 and np.allclose(np.linalg.norm(W2, axis=0), 1.0)
    with pytest.raises(ValueError, match="not reached"):
        perturbed_at_distance(W, W, 0.5)  # W + s W normalises back to W
    out = measure_theorem2_at_distance(np.random.SeedSequence(3), d1=30, d2=8, k=2, m=5000, spectral_distance=0.5)
    assert abs(out["gap"] - 0.5) < 1e-9 and out["tau"] == pytest.approx(np.sqrt(0.5)) and 0 < out["dev"] < 1


def test_rank_k_factor_is_exact_and_stable_inside_a_repeated_eigenvalue():
    """kappa = 1 repeats W*'s singular value k times: an eigh-based factor picked a rounding-dependent basis of
    that eigenspace (a 1e-16 change of C moved Z by 0.03 and W* with it, between BLAS kernels); the Cholesky
    factor moves with C only."""
    from scipy.stats import random_correlation
    eig = np.zeros(20)
    eig[:3] = 20 / 3  # kappa = 1, k = 3: one eigenvalue repeated three times
    C = random_correlation.rvs(eig, random_state=np.random.default_rng(1))
    Z = gen.rank_k_factor(C, 3)
    assert Z.shape == (20, 3) and np.abs(Z @ Z.T - C).max() < 1e-12
    E = np.random.default_rng(2).standard_normal((20, 20)) * 1e-16
    assert np.abs(gen.rank_k_factor(C + E + E.T, 3) - Z).max() < 1e-13
