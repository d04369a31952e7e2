"""Lin, Qiu, Hong, Ye (2022): the instance distributions' exact moments against their samples, the streamed
power sums against the materialised stream, bad input refused."""
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simverify.generators import slm as gen
from simverify.kernels import slm as kslm
from simverify.kernels.jit import one_blas_thread
from simverify.kernels.rng import N_SLOTS, n_chunks
from simverify.kernels.streams import normal_block, stream_states

DISTRIBUTIONS = [gen.FeatureDistribution("gaussian"), gen.FeatureDistribution("truncated_gaussian", 0.0),
                 gen.FeatureDistribution("truncated_gaussian", 0.01), gen.FeatureDistribution("bernoulli", 0.1),
                 gen.FeatureDistribution("uniform"), gen.FeatureDistribution("two_point_jitter", 0.3)]


def test_gaussian_tau_is_two_as_the_paper_states():
    dist = gen.FeatureDistribution("gaussian")
    assert (dist.kappa, dist.phi, dist.tau) == (0.0, 3.0, 2.0)


@pytest.mark.parametrize("q", [0.5, 0.1, 0.01, 1e-3])
def test_every_standardised_bernoulli_is_not_mip(q):
    dist = gen.FeatureDistribution("bernoulli", q)
    assert dist.tau == pytest.approx(0.0, abs=1e-9 * dist.phi)
    assert dist.kappa == pytest.approx((1 - 2 * q) / np.sqrt(q * (1 - q)), rel=1e-12)


@pytest.mark.parametrize("tau", [0.01, 0.1, 0.5, 1.5])
def test_two_point_jitter_for_tau_has_that_mip_constant(tau):
    dist = gen.FeatureDistribution("two_point_jitter", gen.two_point_jitter_for_tau(tau))
    assert dist.tau == pytest.approx(tau, rel=1e-12) and dist.kappa == 0.0


def test_estimated_view_standardises_the_sample_and_sample_moments_are_its_own():
    dist = gen.FeatureDistribution("truncated_gaussian", 0.0)
    X, _ = gen.feature_instances(dist, 4, 5000, 3)
    means = gen.feature_power_means(dist, 4, 5000, 3)
    Z = gen.FeatureView.estimated(means).apply(X)
    np.testing.assert_allclose(Z.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose((Z ** 2).mean(axis=0), 1.0, rtol=1e-10)
    kappa, phi = gen.sample_standardised_moments(means)
    np.testing.assert_allclose(kappa, (Z ** 3).mean(axis=0), rtol=1e-9)
    np.testing.assert_allclose(phi, (Z ** 4).mean(axis=0), rtol=1e-9)


def test_residual_moments_in_a_view_use_the_view_for_yhat_and_the_exact_x_for_labels():
    model = gen.low_rank_model(6, 2, gen.FeatureDistribution("bernoulli", 0.3), 4, noise=0.5)
    rng = np.random.default_rng(1)
    w, U, V = rng.standard_normal(6), rng.standard_normal((6, 2)), rng.standard_normal((6, 2))
    view = gen.FeatureView(1.0 + 0.1 * rng.standard_normal(6), 0.1 * rng.standard_normal(6))
    X, y = gen.slm_instances(model, 3000, 8)
    Z = view.apply(X)
    z = Z @ w + np.einsum("ij,jk,ik->i", Z, U @ V.T, Z) - y
    got = gen.residual_moments(model, 3000, 8, w, U, V, view=view)
    want = ((Z * z[:, None]).T @ (Z @ U) / 3000, z.mean(), Z.T @ z / 3000, (Z ** 2).T @ z / 3000 - z.mean())
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


@settings(deadline=None, max_examples=15)
@given(st.floats(-2.0, 3.0))
def test_truncated_gaussian_moments_match_quadrature(a):
    from scipy import integrate, stats
    def moment(r):  # E min(Z, a)^r by quadrature, split where min(z, a) has its kink
        below = integrate.quad(lambda z: z ** r * stats.norm.pdf(z), -np.inf, a, epsabs=1e-12)[0]
        return below + integrate.quad(lambda z: a ** r * stats.norm.pdf(z), a, np.inf, epsabs=1e-12)[0]
    raw = [moment(r) for r in range(1, 5)]
    assert gen.truncated_gaussian_raw_moments(a) == pytest.approx(raw, rel=1e-7, abs=1e-9)


@pytest.mark.parametrize("dist", DISTRIBUTIONS, ids=lambda d: f"{d.name}-{d.param}")
def test_standardised_sample_moments_agree_with_the_exact_ones(dist):
    n = 200_000
    means = gen.feature_power_means(dist, 3, n, 7)            # (4, 3)
    exact = np.array([0.0, 1.0, dist.kappa, dist.phi])
    X, _ = gen.feature_instances(dist, 3, n, 7)
    se = np.array([(X ** r).std(axis=0).max() for r in range(1, 5)]) / np.sqrt(n)
    assert np.all(np.abs(means - exact[:, None]) < 6 * se[:, None])


@pytest.mark.parametrize("dist, raw", [
    (gen.FeatureDistribution("gaussian"), lambda z: z),
    (gen.FeatureDistribution("truncated_gaussian", 0.0), lambda z: np.minimum(z, 0.0)),
])
def test_instance_stream_is_the_chunk_streams_normals_in_order(dist, raw):
    """The stream layout pinned: instance i of chunk c takes normals i (d + 1) .. i (d + 1) + d of chunk c's
    ziggurat stream, its d coordinates (standardised) and then its noise normal."""
    d, n = 6, kslm.INSTANCE_CHUNK + 50  # two chunks, the second partial
    X, noise = gen.feature_instances(dist, d, n, 5)
    states = stream_states(5, n_chunks(n, kslm.INSTANCE_CHUNK))
    mean, sd, _, _ = dist.moments
    for c, rows in enumerate((slice(0, kslm.INSTANCE_CHUNK), slice(kslm.INSTANCE_CHUNK, n))):
        m = rows.stop - rows.start
        z = np.empty(m * (d + 1))
        normal_block(states[c], z)
        z = z.reshape(m, d + 1)
        np.testing.assert_array_equal(noise[rows], z[:, d])
        np.testing.assert_allclose(X[rows], (raw(z[:, :d]) - mean) / sd, rtol=1e-15, atol=1e-15)


def test_slm_instances_are_the_stream_in_either_order_and_labelled_by_the_model():
    """Rows of X are the stream's instances in both layouts (bit for bit, a partial tile and chunk included), and
    y = x^T w* + x^T M* x + noise xi."""
    model = gen.low_rank_model(7, 2, gen.FeatureDistribution("truncated_gaussian", 0.1), 3, noise=0.5)
    n = kslm.INSTANCE_CHUNK + kslm.DRAW_TILE + 5
    X_stream, xi = gen.feature_instances(model.dist, 7, n, 4)
    (Xc, yc), (Xf, yf) = (gen.slm_instances(model, n, 4, order=o) for o in "CF")
    assert Xc.flags.c_contiguous and Xf.flags.f_contiguous
    np.testing.assert_array_equal(Xc, X_stream)
    np.testing.assert_array_equal(Xf, X_stream)
    np.testing.assert_array_equal(yc, yf)
    expected = X_stream @ model.w_star + np.einsum("ij,jk,ik->i", X_stream, model.M_star, X_stream) + 0.5 * xi
    np.testing.assert_allclose(yc, expected, rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="order must be 'C' or 'F'"):
        gen.slm_instances(model, 10, 4, order="K")


def test_slm_instances_refuses_a_size_that_cannot_be_held_with_one_line():
    model = gen.low_rank_model(7, 2, gen.FeatureDistribution("gaussian"), 3)
    for n in (10 ** 14, 10 ** 18):  # 5.2 PiB (more than memory), and more than an array can index
        with pytest.raises(ValueError, match="do not fit in memory"):
            gen.slm_instances(model, n, 4)


def test_streamed_power_sums_equal_the_materialised_stream():
    dist = gen.FeatureDistribution("truncated_gaussian", 0.1)
    X, noise = gen.feature_instances(dist, 5, 3000, 11)
    means = gen.feature_power_means(dist, 5, 3000, 11)
    np.testing.assert_allclose(means, [(X ** r).mean(axis=0) for r in range(1, 5)], rtol=1e-12, atol=1e-14)
    assert noise.shape == (3000,) and np.isfinite(noise).all()


@pytest.mark.parametrize("name, param, message", [
    ("cauchy", 0.0, "unknown distribution"),
    ("bernoulli", 0.0, "must lie in (0, 1)"),
    ("bernoulli", True, "parameter must be a finite number"),
    ("truncated_gaussian", float("nan"), "parameter must be a finite number"),
    ("gaussian", 1.0, "parameter must be a finite number"),
])
def test_bad_distributions_are_refused_naming_the_problem(name, param, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        gen.FeatureDistribution(name, param)


def naive_residual_moments(model, n, seed, w, U, V):
    """A'(z) U / n, P0, P1, P2 of Algorithm 1 step 1 from the materialised stream (z for M = U V^T)."""
    X, y = gen.slm_instances(model, n, seed)
    z = X @ w + np.einsum("ij,jk,ik->i", X, U @ V.T, X) - y
    p0 = z.mean()
    return (X.T * z) @ X @ U / n, p0, X.T @ z / n, (X ** 2).T @ z / n - p0


@pytest.mark.parametrize("diag_free", [False, True])
def test_streamed_residual_moments_equal_the_naive_reference(diag_free):
    model = gen.low_rank_model(7, 2, gen.FeatureDistribution("truncated_gaussian", 0.0), 3, diag_free=diag_free,
                               noise=0.5)
    rng = np.random.default_rng(0)
    w, U, V = (rng.standard_normal(shape) for shape in (7, (7, 2), (7, 2)))
    got = gen.residual_moments(model, 2500, 5, w, U, V)
    for a, b in zip(got, naive_residual_moments(model, 2500, 5, w, U, V)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


THREADS_SNIPPET = (
    "import numpy as np,sys;from simverify.generators import slm as g;"
    "m=g.low_rank_model(6,2,g.FeatureDistribution('bernoulli',0.3),1,diag_free=True,noise=1.0);"
    "r=np.random.default_rng(0);w,U,V=r.standard_normal(6),r.standard_normal((6,2)),r.standard_normal((6,2));"
    "out=[np.ravel(a) for a in g.residual_moments(m,70_000,2,w,U,V)];"
    "out.append(g.feature_power_means(g.FeatureDistribution('two_point_jitter',0.3),5,70_000,3).ravel());"
    "m=g.low_rank_model(256,2,g.FeatureDistribution('gaussian'),1,noise=1.0);"  # the blocked (dgemm) pass
    "w,U,V=r.standard_normal(256),r.standard_normal((256,2)),r.standard_normal((256,2));"
    "out+=[np.ravel(a) for a in g.residual_moments(m,70_000,2,w,U,V)];"
    "sys.stdout.write(np.concatenate(out).tobytes().hex())")


@pytest.mark.slow
def test_streamed_passes_bit_identical_for_one_and_two_threads():
    """70,000 instances span 18 chunks (more than the 16 slots): the sums, of the per-instance pass and of the
    blocked pass (d = 256), must not depend on the thread count."""
    outs = [subprocess.run([sys.executable, "-c", THREADS_SNIPPET], capture_output=True, text=True, check=True,
                           env={**os.environ, "NUMBA_NUM_THREADS": t}).stdout for t in ("1", "2")]
    assert outs[0] == outs[1] and len(outs[0]) == 16 * (12 + 1 + 6 + 6 + 20 + 512 + 1 + 256 + 256)


@pytest.mark.parametrize("dist, diag_free, with_view, with_diag",
                         [("truncated_gaussian", False, False, True), ("bernoulli", True, True, True),
                          ("gaussian", False, False, False)])
def test_blocked_pass_equals_the_scalar_pass(dist, diag_free, with_view, with_diag):
    """The dgemm pass (used from d = BLOCKED_MIN_D on) against the per-instance pass on the same stream: the same
    sums up to rounding, with and without a view and a diagonal, over a partial last block."""
    d, k, n = 40, 3, 9000
    model = gen.low_rank_model(d, k, gen.FeatureDistribution(dist, 0.3 if dist == "bernoulli" else 0.0), 1,
                               diag_free=diag_free, noise=0.7)
    rng = np.random.default_rng(0)
    w, U, V = rng.standard_normal(d), rng.standard_normal((d, k)), rng.standard_normal((d, k))
    diag = rng.standard_normal(d) if with_diag else np.zeros(d)
    mean, sd, _, _ = model.dist.moments
    scale, shift = (rng.uniform(0.5, 2, d), rng.standard_normal(d)) if with_view else (np.empty(0), np.empty(0))

    def args():
        return (stream_states(3, n_chunks(n, kslm.INSTANCE_CHUNK)), model.dist.code, model.dist.param, mean, sd, n,
                kslm.INSTANCE_CHUNK, N_SLOTS, gen.factor_columns(model.w_star, model.U_star), model.s_star,
                model.diag_star, model.noise, gen.factor_columns(w, U, V), diag, scale, shift)
    with one_blas_thread():
        blocked = kslm.residual_moment_blocks(*args())
    for a, b in zip(blocked, kslm.residual_moment_slots(*args())):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12 * np.abs(b).max())


def test_streamed_residual_moments_at_large_d_equal_the_naive_reference():
    d = kslm.BLOCKED_MIN_D
    model = gen.low_rank_model(d, 3, gen.FeatureDistribution("truncated_gaussian", 0.0), 3, noise=0.5)
    rng = np.random.default_rng(1)
    w, U, V = rng.standard_normal(d), rng.standard_normal((d, 3)), rng.standard_normal((d, 3))
    got = gen.residual_moments(model, 1500, 5, w, U, V)
    for a, b in zip(got, naive_residual_moments(model, 1500, 5, w, U, V)):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10 * np.abs(b).max())


def test_labels_follow_eq1_with_the_diagonal_removed():
    model = gen.low_rank_model(5, 2, gen.FeatureDistribution("bernoulli", 0.3), 4, diag_free=True, noise=0.0)
    X, y = gen.slm_instances(model, 50, 1)
    M = model.U_star @ model.U_star.T
    np.testing.assert_allclose(np.diag(model.M_star), 0.0, atol=1e-15)
    np.testing.assert_allclose(y, X @ model.w_star + np.einsum("ij,jk,ik->i", X, M - np.diag(np.diag(M)), X))


def test_symmetric_recovery_error_ignores_the_antisymmetric_part_of_u_v_transpose():
    from types import SimpleNamespace

    from theorems.slm.measures import symmetric_recovery_error
    rng = np.random.default_rng(0)
    d, k = 6, 2
    U = rng.standard_normal((d, k))
    M_star = U @ U.T
    A = rng.standard_normal((d, d))
    model = SimpleNamespace(w_star=np.zeros(d), M_star=M_star)
    state = SimpleNamespace(w=np.zeros(d), M=M_star + (A - A.T))  # the truth plus an antisymmetric part
    assert symmetric_recovery_error(model, state) == pytest.approx(0.0, abs=1e-12)
    state = SimpleNamespace(w=np.ones(d), M=M_star + 0.5 * np.eye(d))
    assert symmetric_recovery_error(model, state) == pytest.approx(np.sqrt(d) + 0.5)


def test_tuned_gradient_step_backs_off_below_the_step_that_oscillates_on_skewed_x():
    """Section 2.1's rule: step 0.2 oscillates on truncated Gaussian a = 0 (d = 20, k = 3), so the pilot rejects
    it, and the step used is BACK_OFF times a pilot-stable step of the grid."""
    from theorems.slm import measures as ms
    model = gen.low_rank_model(20, 3, ms.distribution("truncated_gaussian", 0.0), np.random.SeedSequence(4))
    step = ms.tuned_gradient_step(model, 3, 10_000, np.random.SeedSequence(5))
    assert step < ms.BACK_OFF * 0.2 and any(step == pytest.approx(ms.BACK_OFF * s) for s in ms.STEP_GRID)


def test_figure1s_baselines_train_on_the_instances_slm_streams(monkeypatch):
    """Figure 1's claims compare SLM and the factorization machines "on the same draw": the FMs' training set is
    slm_instances of SLM's data stream (run_streams(s_run)[0]), not another child of the measure's seed."""
    from simverify.solvers import slm as sol
    from theorems.slm import measures
    drawn = []
    real = gen.slm_instances

    def spy(model, n, seed, order="C"):
        drawn.append((n, seed.entropy, tuple(seed.spawn_key)))
        return real(model, n, seed, order)
    monkeypatch.setattr(gen, "slm_instances", spy)
    root = np.random.SeedSequence(3)
    measures.measure_figure1(root, dist="truncated_gaussian", param=0.0, diag_free=False, noise=0.0, d=10, k=2,
                             n=400, n_test=50, iteration=[0, 1], solver=["slm", "fm"])
    s_run = np.random.SeedSequence(3).spawn(5)[3]
    slm_data = sol.run_streams(s_run)[0]
    assert (400, slm_data.entropy, tuple(slm_data.spawn_key)) in drawn  # the FM's set: SLM's data stream
    assert [n for n, *_ in drawn] == [50, 400]  # the test set, then the training set: no other draw
