"""The xoshiro256++ streams and the ziggurat normal sampler: a naive reference of the generator, the
distribution (KS, moments, the tail beyond the ziggurat's edge, each layer's mass), reproducibility and
bit-identity for any thread count."""
import os
import subprocess
import sys

import numpy as np
import pytest
from numba import njit
from scipy import stats

from simverify.kernels import streams as st
from tests.stream_reference import ReferenceStream


def xoshiro_reference(state, count):
    """``count`` raw outputs of the naive xoshiro256++ (tests/stream_reference.py) from ``state``, and the state."""
    ref = ReferenceStream(state)
    return [ref.next_uint64() for _ in range(count)], ref.s


def test_raw_outputs_match_the_reference_xoshiro256plusplus():
    state = st.stream_states(3, 1)[0]
    expected, final = xoshiro_reference(state, 50)
    got = [int(st.next_uint64(state)) for _ in range(50)]
    assert got == expected and [int(v) for v in state] == final


def test_uniform_block_is_the_top_53_bits_of_the_stream_and_advances_it():
    state = st.stream_states(4, 1)[0]
    raw, final = xoshiro_reference(state, 1000)
    u = np.empty(1000)
    st.uniform_block(state, u)
    assert np.array_equal(u, np.array([r >> 11 for r in raw], dtype=float) / 2.0 ** 53)
    assert [int(v) for v in state] == final and 0.0 <= u.min() and u.max() < 1.0


def test_streams_are_reproducible_fresh_copies_and_distinct_per_child_and_seed():
    a = st.stream_states(9, 6)
    assert a.shape == (6, 4) and a.dtype == np.uint64
    assert np.array_equal(a, st.stream_states(9, 6))
    st.next_uint64(a[0])  # a kernel advancing a returned state must not touch the next call's
    assert not np.array_equal(a, st.stream_states(9, 6)) and np.array_equal(a[1:], st.stream_states(9, 6)[1:])
    assert len({tuple(r) for r in a}) == 6
    assert not np.array_equal(a, st.stream_states(10, 6))


def test_tables_are_a_monotone_ziggurat_of_equal_areas():
    k, w, f = st.ziggurat_tables()
    x = w * 2.0 ** 52  # the layers' right edges x_i
    assert np.all(np.diff(x[1:]) > 0) and np.all(np.diff(f) < 0)
    assert np.allclose(f[1:], np.exp(-0.5 * x[1:] ** 2))
    area = x[2:] * (f[1:-1] - f[2:])  # rectangle i spans heights f_i..f_{i-1} with width x_i
    assert np.allclose(area, st._AREA, rtol=1e-6)


@pytest.fixture(scope="module")
def normals():
    return st.standard_normal(2026, 10_000_000, chunk=1 << 16)


@pytest.mark.slow
def test_normals_pass_kolmogorov_smirnov_on_1e7_draws_and_match_the_first_four_moments(normals):
    assert stats.kstest(normals, "norm").pvalue > 1e-4
    n = normals.size
    for power, moment in ((1, 0.0), (2, 1.0), (3, 0.0), (4, 3.0)):
        sd = np.sqrt(stats.norm.moment(2 * power) - moment ** 2)
        assert abs(np.mean(normals ** power) - moment) < 5 * sd / np.sqrt(n)


def test_normal_tail_mass_beyond_each_threshold_including_the_ziggurat_edge(normals):
    n = normals.size
    for c in (1.0, 2.0, 3.0, st.ZIGGURAT_R, 4.0, 4.5):
        p = 2 * stats.norm.sf(c)
        assert abs(np.mean(np.abs(normals) > c) - p) < 5 * np.sqrt(p * (1 - p) / n) + 1 / n


def test_every_layer_holds_its_share_of_the_normal_mass(normals):
    """Counts between consecutive layer edges against the normal's probabilities (chi-square): a wrong wedge or
    rectangle bound in any layer shifts its count."""
    edges = st.ziggurat_tables()[1][1:] * 2.0 ** 52
    bins = np.concatenate([[0.0], edges, [np.inf]])
    counts = np.histogram(np.abs(normals), bins)[0]
    expected = normals.size * np.diff(2 * stats.norm.cdf(bins) - 1)
    assert stats.chisquare(counts, expected).pvalue > 1e-4


def test_standard_normal_reproducible_per_seed_and_shaped():
    x = st.standard_normal(5, (300, 7), chunk=1000)
    assert x.shape == (300, 7)
    assert np.array_equal(x, st.standard_normal(5, (300, 7), chunk=1000))
    assert not np.array_equal(x, st.standard_normal(6, (300, 7), chunk=1000))


SNIPPET = ("from simverify.kernels import streams as z;import sys;"
           "sys.stdout.write(z.standard_normal(7, 100003, chunk=4096).tobytes().hex())")


@pytest.mark.slow
def test_standard_normal_bit_identical_for_one_and_two_threads():
    outs = [subprocess.run([sys.executable, "-c", SNIPPET], capture_output=True, text=True, check=True,
                           env={**os.environ, "NUMBA_NUM_THREADS": t}).stdout for t in ("1", "2")]
    assert outs[0] == outs[1] and len(outs[0]) == 100003 * 16


@njit(cache=True)
def _scalar_draws(kind, state, a, out):
    for i in range(out.size):
        if kind == 0:
            out[i] = st.next_normal(state)
        elif kind == 1:
            out[i] = st.next_uniform(state)
        elif kind == 2:
            out[i] = st.next_exponential(state)
        elif kind == 3:
            out[i] = st.next_gamma(state, a)
        elif kind == 4:
            out[i] = st.next_chi_square(state, a)
        else:
            out[i] = st.next_below(state, np.int64(a))


def draws(kind, seed, count, a=1.0):
    """``count`` draws of one scalar sampler (0 normal, 1 uniform, 2 exponential, 3 gamma(a), 4 chi-square(a),
    5 integers below a) from stream 0 of ``seed``."""
    out = np.empty(count)
    _scalar_draws(kind, st.stream_states(seed, 1)[0], a, out)
    return out


def test_scalar_normal_is_the_block_samplers_draw():
    block = np.empty(5000)
    st.normal_block(st.stream_states(8, 1)[0], block)
    assert np.array_equal(draws(0, 8, 5000), block)


@pytest.mark.parametrize("kind,a,dist", [
    (1, 1.0, stats.uniform()), (2, 1.0, stats.expon()),
    (3, 0.3, stats.gamma(0.3)), (3, 1.0, stats.gamma(1.0)), (3, 2.5, stats.gamma(2.5)), (3, 25.0, stats.gamma(25.0)),
    (4, 50.0, stats.chi2(50)), (4, 1.0, stats.chi2(1))])
def test_scalar_samplers_pass_kolmogorov_smirnov_and_match_mean_and_variance(kind, a, dist):
    """1e6 draws: KS, and the mean and variance within 5 standard errors (4th moments from scipy)."""
    x = draws(kind, 11 + kind, 1_000_000, a)
    n = x.size
    assert stats.kstest(x, dist.cdf).pvalue > 1e-4
    mean, var = dist.mean(), dist.var()
    mu4 = dist.expect(lambda v: (v - mean) ** 4)
    assert abs(x.mean() - mean) < 5 * np.sqrt(var / n)
    assert abs(x.var() - var) < 5 * np.sqrt((mu4 - var ** 2) / n)


@pytest.mark.parametrize("n", [1, 2, 7, 200, 1_000_003])
def test_bounded_integers_are_uniform_on_0_to_n_minus_1(n):
    x = draws(5, 21, 400_000, n)
    assert x.min() >= 0 and x.max() <= n - 1 and np.all(x == np.floor(x))
    if n <= 200:
        counts = np.bincount(x.astype(np.int64), minlength=n)
        assert n == 1 or stats.chisquare(counts).pvalue > 1e-4
    else:
        assert stats.kstest((x + 0.5) / n, "uniform").pvalue > 1e-4


def test_neighbouring_streams_are_independent():
    """Streams j and j + 1 of one seed (neighbouring chunks): sample correlations of their normals and uniforms
    within 5 / sqrt(n), and the pairs (u_j, u_{j+1}) fill a 16 x 16 grid evenly (chi-square)."""
    count, n = 8, 200_000
    states = st.stream_states(31, count)
    z, u = np.empty((count, n)), np.empty((count, n))
    for j in range(count):
        st.normal_block(states[j], z[j])
        st.uniform_block(states[j], u[j])
    for j in range(count - 1):
        assert abs(np.corrcoef(z[j], z[j + 1])[0, 1]) < 5 / np.sqrt(n)
        assert abs(np.corrcoef(u[j], u[j + 1])[0, 1]) < 5 / np.sqrt(n)
        cells = np.bincount((u[j] * 16).astype(int) * 16 + (u[j + 1] * 16).astype(int), minlength=256)
        assert stats.chisquare(cells).pvalue > 1e-5
