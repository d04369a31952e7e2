"""Every kernel that draws from ``kernels.streams`` against a naive reference drawing the same stream value by
value (tests/stream_reference.py): onebit's instances, crowd's answers, NMF's weight columns, the SVM's
permutations. Equal draw for draw (bit for bit), so the stream each kernel consumes is pinned."""
import numpy as np
import pytest

from simverify.kernels.crowd import draw_answers, draw_observed
from simverify.kernels.multilabel import shuffled
from simverify.kernels.nmf import BINARY, CTM, DECAY, DIRICHLET, weight_columns
from simverify.kernels.onebit import instance_block
from simverify.kernels.streams import stream_states
from tests.stream_reference import ReferenceStream, reference_streams


def test_onebit_instances_equal_the_reference_draw_for_draw():
    """Per instance: x (d1 normals), the label index, the noise normal, the flip uniform (kernels/onebit.py)."""
    d1, d2, m, chunk, xi, flip = 5, 4, 70, 32, 0.3, 0.2
    wt_star = np.random.default_rng(0).standard_normal((d2, d1))
    X, labels, y, clean = instance_block(stream_states(1, 3), wt_star, xi, flip, m, chunk)
    refs = reference_streams(1, 3)
    for i in range(m):
        g = refs[i // chunk]
        x = g.standard_normal(d1)
        j, z, u = g.integers(0, d2), g.standard_normal(), g.random()
        bit = 1.0 if x @ wt_star[j] + xi * z >= 0 else -1.0
        assert np.array_equal(X[i], x) and labels[i] == j
        assert y[i] == (-bit if u < flip else bit) and clean[i] == (1.0 if x @ wt_star[j] >= 0 else -1.0)


def test_crowd_answers_equal_the_reference_draw_for_draw():
    """Per item and worker: the answering uniform, then (if answering) the label's uniform against the CDF."""
    n, M, K = 40, 3, 3
    rng = np.random.default_rng(1)
    truth = rng.integers(0, K, n)
    cdf = np.cumsum(rng.dirichlet(np.ones(K), size=(M, K)).transpose(0, 2, 1), axis=1)
    p = rng.uniform(0.2, 0.9, (n, M))
    item, worker, label = draw_answers(stream_states(2, 1)[0], truth, cdf, p, 100)
    g, expected = reference_streams(2, 1)[0], []
    for i in range(n):
        for m in range(M):
            if g.random() < p[i, m]:
                u = g.random()
                expected.append((100 + i, m, min(int(np.sum(u >= cdf[m, :K - 1, truth[i]])), K - 1)))
    assert [tuple(int(v) for v in t) for t in zip(item, worker, label)] == expected


def test_observed_machine_labels_equal_the_reference_draw_for_draw():
    labels = np.random.default_rng(3).integers(0, 4, (30, 5))
    p = np.full((30, 5), 0.4)
    item, worker, label = draw_observed(stream_states(4, 1)[0], labels, p, 0)
    g = reference_streams(4, 1)[0]
    expected = [(i, m, labels[i, m]) for i in range(30) for m in range(5) if g.random() < 0.4]
    assert [tuple(int(v) for v in t) for t in zip(item, worker, label)] == expected


def _reference_column(g, kind, D, s, a, L, scale, p, q):
    if kind == BINARY:  # partial Fisher-Yates
        idx, x = np.arange(D), np.zeros(D)
        for j in range(s):
            r = j + g.integers(0, D - j)
            idx[j], idx[r] = idx[r], idx[j]
            x[idx[j]] = 1.0
        return x
    if kind == DIRICHLET:
        x = np.array([g.standard_gamma(a) for _ in range(D)])
        return x / x.sum()
    if kind == CTM:
        v = scale * (L @ g.standard_normal(D))
        e = np.exp(v - v.max())
        return e / e.sum()
    out = np.zeros(D)
    for i in range(D):  # the condition's uniform first, then the value's
        out[i] = g.random() ** (1.0 / q) if g.random() < p else 0.0
    return out


@pytest.mark.parametrize("kind", [BINARY, DIRICHLET, CTM, DECAY])
def test_nmf_weight_columns_equal_the_reference(kind):
    """Chunk c of columns from stream c; Dirichlet(0.3) exercises the gamma's a < 1 branch. CTM's softmax sums
    in another order than NumPy's matrix product: equal to rounding; the other kinds bit for bit."""
    D, N, chunk, s, a, q = 6, 25, 8, 2, 0.3, 2.0
    L = np.random.default_rng(5).standard_normal((D, D)) / np.sqrt(D)
    X = np.empty((D, N))
    weight_columns(stream_states(6, 4), kind, X, s, a, L, 1.5, 0.5, q, chunk)
    refs = reference_streams(6, 4)
    ref = np.column_stack([_reference_column(refs[n // chunk], kind, D, s, a, L, 1.5, 0.5, q) for n in range(N)])
    if kind == CTM:
        assert np.allclose(X, ref, rtol=1e-12, atol=0)
    else:
        assert np.array_equal(X, ref)


def test_svm_permutations_are_fisher_yates_on_the_stream():
    state = stream_states(7, 1)[0]
    got = [shuffled(state, 9) for _ in range(3)]
    g = ReferenceStream(stream_states(7, 1)[0])
    for perm in got:
        ref = np.arange(9)
        for i in range(8, 0, -1):
            k = g.integers(0, i + 1)
            ref[i], ref[k] = ref[k], ref[i]
        assert np.array_equal(perm, ref)
