"""The L-BFGS pieces of ``kernels.lbfgs`` against naive references: the four-lane sum, the two-loop direction
against the dense inverse-Hessian update it stands for, the curvature rule and the backtracking step."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simverify.kernels import lbfgs, sums


def _lanes(a, b):  # the documented order: lane j sums the terms i = j mod 4 in order, then (l0 + l1) + (l2 + l3)
    lanes = [0.0, 0.0, 0.0, 0.0]
    for i in range(a.size):
        lanes[i % 4] += float(a[i]) * float(b[i])
    return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])


@settings(deadline=None, max_examples=40)
@given(st.integers(0, 37), st.integers(0, 2 ** 31 - 1))
def test_the_lane_sums_add_in_the_documented_order(n, seed):
    rng = np.random.default_rng(seed)
    a, b = rng.normal(size=n), rng.normal(size=n)
    assert sums.lane_dot(a, b) == _lanes(a, b)  # bit for bit
    assert sums.lane_scaled_dot(a, np.ones(n), b) == _lanes(a, b)
    assert sums.lane_sum(a) == _lanes(a, np.ones(n))
    assert np.isclose(sums.lane_dot(a, b), a @ b, atol=1e-12 * max(1.0, np.abs(a) @ np.abs(b)))


def _dense_direction(g, pairs, inverse_scale):
    """-H g with H from H0 = gamma diag(inverse_scale), gamma = s'y / y'Dy of the newest pair, and the BFGS inverse
    update H <- (I - rho s y') H (I - rho y s') + rho s s' for each pair, oldest first."""
    s_new, y_new = pairs[-1]
    H = (s_new @ y_new) / (y_new @ (inverse_scale * y_new)) * np.diag(inverse_scale)
    eye = np.eye(g.size)
    for s, y in pairs:
        rho = 1.0 / (s @ y)
        H = (eye - rho * np.outer(s, y)) @ H @ (eye - rho * np.outer(y, s)) + rho * np.outer(s, s)
    return -H @ g


@pytest.mark.parametrize("kept", [1, 3, 5, 7])
def test_the_two_loop_direction_equals_the_dense_inverse_update_over_the_newest_pairs(kept):
    rng = np.random.default_rng(kept)
    n, memory = 9, 5
    A = rng.normal(size=(n, n))
    A = A @ A.T + n * np.eye(n)  # a convex quadratic's Hessian: every pair has s'y > 0
    inverse_scale = 1.0 / rng.uniform(0.5, 2.0, n)
    S, Y, rho = np.zeros((memory, n)), np.zeros((memory, n)), np.zeros(memory)
    newest, count, pairs = -1, 0, []
    x = rng.normal(size=n)
    for _ in range(kept):
        x_new = x + rng.normal(size=n)
        newest, count = lbfgs.keep_pair(S, Y, rho, newest, count, x_new, x, A @ x_new, A @ x, inverse_scale)
        pairs.append((x_new - x, A @ (x_new - x)))
        x = x_new
    assert count == min(kept, memory)
    g, d = rng.normal(size=n), np.empty(n)
    lbfgs.direction(g, S, Y, rho, newest, count, inverse_scale, d, np.empty(memory))
    assert np.allclose(d, _dense_direction(g, pairs[-memory:], inverse_scale), rtol=1e-10, atol=1e-12)


def test_with_no_pairs_the_direction_is_the_preconditioned_steepest_descent():
    g, scale, d = np.array([1.0, -2.0, 4.0]), np.array([0.5, 1.0, 0.25]), np.empty(3)
    lbfgs.direction(g, np.zeros((2, 3)), np.zeros((2, 3)), np.zeros(2), -1, 0, scale, d, np.empty(2))
    assert np.array_equal(d, -scale * g)


def test_a_pair_without_positive_curvature_is_not_kept():
    S, Y, rho = np.zeros((3, 2)), np.zeros((3, 2)), np.zeros(3)
    x, x_new, scale = np.zeros(2), np.array([1.0, 0.0]), np.ones(2)
    assert lbfgs.keep_pair(S, Y, rho, 0, 1, x_new, x, np.array([-1.0, 0.0]), np.zeros(2), scale) == (0, 1)
    assert lbfgs.keep_pair(S, Y, rho, 0, 1, x_new, x, np.array([2.0, 5.0]), np.zeros(2), scale) == (1, 2)
    assert rho[1] == 0.5


def test_a_pair_not_kept_in_a_full_ring_drops_the_oldest_pair_it_overwrote_and_the_direction_stays_exact():
    rng = np.random.default_rng(11)
    n, memory = 6, 3
    A = rng.normal(size=(n, n))
    A = A @ A.T + n * np.eye(n)
    scale = 1.0 / rng.uniform(0.5, 2.0, n)
    S, Y, rho = np.zeros((memory, n)), np.zeros((memory, n)), np.zeros(memory)
    newest, count, pairs, x = -1, 0, [], rng.normal(size=n)
    for _ in range(memory):  # a full ring of good pairs
        x_new = x + rng.normal(size=n)
        newest, count = lbfgs.keep_pair(S, Y, rho, newest, count, x_new, x, A @ x_new, A @ x, scale)
        pairs.append((x_new - x, A @ (x_new - x)))
        x = x_new
    assert count == memory
    x_new = x + rng.normal(size=n)  # a pair of negative curvature: y = -A s
    assert lbfgs.keep_pair(S, Y, rho, newest, count, x_new, x, -A @ x_new, -A @ x, scale) == (newest, memory - 1)
    g, d = rng.normal(size=n), np.empty(n)
    lbfgs.direction(g, S, Y, rho, newest, memory - 1, scale, d, np.empty(memory))
    assert np.allclose(d, _dense_direction(g, pairs[1:], scale), rtol=1e-10, atol=1e-12)  # the two newest good ones


@settings(deadline=None, max_examples=60)
@given(st.floats(1e-6, 10.0), st.floats(-10.0, 10.0), st.floats(-100.0, -1e-6), st.floats(1e-6, 50.0))
def test_a_backtracked_step_is_the_quadratics_minimiser_within_its_safeguards(step, f, slope, excess):
    f_trial = f + 1e-4 * step * slope + excess  # the Armijo condition failed by excess
    new = lbfgs.backtracked_step(step, f, slope, f_trial)
    assert lbfgs.SHRINK_MIN * step <= new <= lbfgs.SHRINK_MAX * step
    curvature = f_trial - f - slope * step  # the quadratic through f, slope at 0 and f_trial at step
    minimiser = -slope * step * step / (2.0 * curvature)
    if lbfgs.SHRINK_MIN * step < minimiser < lbfgs.SHRINK_MAX * step:
        assert new == pytest.approx(minimiser, rel=1e-12)


def test_largest_magnitude_is_nan_when_an_entry_is_nan_and_zero_when_empty():
    assert lbfgs.largest_magnitude(np.array([1.0, -3.0, 2.0])) == 3.0
    assert np.isnan(lbfgs.largest_magnitude(np.array([1.0, np.nan, 5.0])))
    assert lbfgs.largest_magnitude(np.zeros(0)) == 0.0


def test_relative_decrease_is_scipys_stopping_measure():
    assert lbfgs.relative_decrease(-100.0, -100.5) == pytest.approx(0.5 / 100.5)
    assert lbfgs.relative_decrease(0.2, 0.1) == pytest.approx(0.1)  # scaled by at least 1
