"""The factorization machine baseline (ALS as in fastFM): each coordinate step is the exact minimiser, the
model's pairwise term is x^T M_ x, it fits a diagonal-free model exactly, and refuses bad input."""
import numpy as np
import pytest

from simverify.generators import slm as gen
from simverify.kernels.fm import als_sweep, pairwise_predictions
from simverify.solvers.factorization_machine import FactorizationMachine


def fm_predict_naive(X, w0, w, V):
    """w0 + x^T w + sum_{a<b} <v_a, v_b> x_a x_b, by the double loop."""
    out = np.full(X.shape[0], w0) + X @ w
    d = X.shape[1]
    for a in range(d):
        for b in range(a + 1, d):
            out += (V[a] @ V[b]) * X[:, a] * X[:, b]
    return out


def test_predict_and_m_agree_with_the_pairwise_double_loop():
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((50, 6)), rng.standard_normal(50)
    fm = FactorizationMachine(rank=2, n_iter=2).fit(X, y)
    naive = fm_predict_naive(X, fm.w0_, fm.w_, fm.V_)
    np.testing.assert_allclose(fm.predict(X), naive, rtol=1e-10)
    np.testing.assert_allclose(fm.w0_ + X @ fm.w_ + np.einsum("ij,jk,ik->i", X, fm.M_, X), naive, rtol=1e-10)


def test_an_als_sweep_leaves_its_last_coordinate_at_the_minimum_and_keeps_residual_and_q_exact():
    rng = np.random.default_rng(1)
    X, y = rng.standard_normal((40, 5)), rng.standard_normal(40)
    V = 0.3 * rng.standard_normal((5, 2))
    w = np.zeros(5)
    e = fm_predict_naive(X, 0.0, w, V) - y
    Qt = np.ascontiguousarray((X @ V).T)
    V_before = V.copy()
    w0 = als_sweep(np.ascontiguousarray(X.T), e, Qt, 0.0, w, V, 0.0, 0.0, 0.0)
    loss = lambda VV: np.sum((fm_predict_naive(X, w0, w, VV) - y) ** 2)  # noqa: E731
    for delta in (1e-3, -1e-3):          # the last coordinate updated, V[4, 1], is a minimum along its axis
        moved = V.copy()
        moved[4, 1] += delta
        assert loss(moved) > loss(V)
    assert not np.allclose(V, V_before)
    np.testing.assert_allclose(e, fm_predict_naive(X, w0, w, V) - y, atol=1e-9)   # the residual is kept exact
    np.testing.assert_allclose(Qt, (X @ V).T, atol=1e-12)


def lane_sum(terms):
    """The kernels' order of a sum: lane j adds the terms i = j mod 4 in order, the total (l0 + l1) + (l2 + l3)."""
    lanes = [0.0, 0.0, 0.0, 0.0]
    for i, t in enumerate(terms):
        lanes[i % 4] += t
    return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])


def als_sweep_two_passes(X, e, Q, w0, w, V, reg_v):
    """The sweep written plainly (no regularisation of w0 and w): each coordinate's sums of e h and h^2, then its
    update of e and q in a second pass, h stored (Rendle 2012, Algorithm 2); sums in the kernels' lane order."""
    n, d = X.shape

    def step(theta, h, reg):
        num = reg * theta + lane_sum(e[i] * h[i] for i in range(n))
        den = reg + lane_sum(h[i] * h[i] for i in range(n))
        delta = -num / den if den > 0.0 else 0.0
        for i in range(n):
            e[i] += delta * h[i]
        return delta
    w0 += step(w0, [1.0] * n, 0.0)
    for a in range(d):
        w[a] += step(w[a], X[:, a], 0.0)
    for f in range(V.shape[1]):
        for a in range(d):
            x, v = X[:, a], V[a, f]
            h = [x[i] * (Q[f, i] - v * x[i]) for i in range(n)]
            num = reg_v * v + lane_sum(e[i] * h[i] for i in range(n))
            den = reg_v + lane_sum(h[i] * h[i] for i in range(n))
            if den <= 0.0:
                continue
            delta = -num / den
            V[a, f] = v + delta
            for i in range(n):
                e[i] += delta * h[i]
                Q[f, i] += delta * x[i]
    return w0


@pytest.mark.parametrize("n", [60, 61, 62, 63])  # every remainder of the four lanes
def test_als_sweep_equals_the_plain_two_pass_sweep_bit_for_bit(n):
    rng = np.random.default_rng(3)
    X, y = rng.standard_normal((n, 5)), rng.standard_normal(n)
    states = []
    for kernel in (True, False):
        V, w, w0 = 0.3 * np.arange(10.0).reshape(5, 2) / 10, np.zeros(5), 0.0
        e, Qt = -y.copy(), np.ascontiguousarray((X @ V).T)
        for _ in range(3):
            w0 = (als_sweep(np.ascontiguousarray(X.T), e, Qt, w0, w, V, 0.0, 0.0, 0.1) if kernel
                  else als_sweep_two_passes(X, e, Qt, w0, w, V, 0.1))
        states.append((w0, w, V, e, Qt))
    for a, b in zip(*states):
        np.testing.assert_array_equal(a, b)


def test_pairwise_predictions_from_the_columns_agree_with_the_double_loop():
    rng = np.random.default_rng(4)
    X, V = rng.standard_normal((30, 6)), rng.standard_normal((6, 3))
    got = pairwise_predictions(np.ascontiguousarray(X.T), np.ascontiguousarray((X @ V).T), V)
    np.testing.assert_allclose(got, fm_predict_naive(X, 0.0, np.zeros(6), V), rtol=1e-12, atol=1e-12)


def test_a_column_ordered_x_gives_the_same_fit_bit_for_bit():
    rng = np.random.default_rng(5)
    X, y = rng.standard_normal((80, 6)), rng.standard_normal(80)
    fits = [FactorizationMachine(rank=2, n_iter=4, tol=0.0).fit(A, y) for A in (X, np.asfortranarray(X))]
    for name in ("w0_", "w_", "V_", "train_mse_"):
        np.testing.assert_array_equal(getattr(fits[0], name), getattr(fits[1], name))


def test_als_recovers_a_noise_free_diagonal_free_model_without_raising_the_training_loss():
    model = gen.low_rank_model(20, 3, gen.FeatureDistribution("gaussian"), 1, diag_free=True)
    X, y = gen.slm_instances(model, 4000, 2)
    fm = FactorizationMachine(rank=3, n_iter=50, tol=0.0).fit(X, y)
    assert np.linalg.norm(fm.M_ - model.M_star, 2) < 1e-6 and np.linalg.norm(fm.w_ - model.w_star) < 1e-6
    assert np.all(np.diff(fm.train_mse_) <= 1e-12)        # ALS never increases the training loss


@pytest.mark.parametrize("kwargs, X, y, message", [
    ({"rank": 0}, np.ones((3, 2)), np.ones(3), "rank must be a positive integer"),
    ({"rank": 3}, np.ones((3, 2)), np.ones(3), "rank must be at most the number of features"),
    ({}, np.ones((3, 2)), np.ones(4), "X has 3 rows but y has 4 labels"),
    ({}, np.ones((3, 2)), np.array([1.0, np.nan, 2.0]), "y has non-finite entries"),
    ({"l2_reg_w": -1.0}, np.ones((3, 2)), np.ones(3), "l2_reg_w"),
    ({}, np.empty((0, 2)), np.empty(0), "X has no rows"),
])
def test_bad_input_is_refused_naming_the_problem(kwargs, X, y, message):
    with pytest.raises(ValueError, match=message):
        FactorizationMachine(**{"rank": 1, **kwargs}).fit(X, y)


def test_fit_and_instances_are_bit_identical_for_one_and_two_blas_threads():
    """The BLAS products behind the start (X V) and the labels run on one thread whatever the caller set, and the
    training MSE is a fixed-order sum (n large enough that BLAS would split a dot product over threads)."""
    from threadpoolctl import threadpool_limits
    model = gen.low_rank_model(300, 3, gen.FeatureDistribution("gaussian"), 1, diag_free=True)
    runs = []
    for threads in (1, 2):
        with threadpool_limits(limits=threads, user_api="blas"):
            X, y = gen.slm_instances(model, 30_000, 2, order="F")
            fm = FactorizationMachine(rank=3, n_iter=2, tol=0.0).fit(X, y)
        runs.append((y, fm.V_, fm.w_, fm.train_mse_))
    for a, b in zip(*runs):
        np.testing.assert_array_equal(a, b)
