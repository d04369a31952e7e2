"""Lemmas 6 and 8's decoding measure against naive references, and phi_alpha."""
import numpy as np

from simverify.generators import nmf as gen
from simverify.solvers.nmf import phi_alpha
from theorems.andnmf import decoding
from theorems.andnmf import measures as ms


def test_phi_alpha_zeroes_entries_below_alpha_and_nan_and_leaves_its_input():
    M = np.array([[0.3, 0.24, -1.0], [np.nan, 0.25, 2.0]])
    Z = phi_alpha(M, 0.25)
    assert np.array_equal(Z, [[0.3, 0.0, 0.0], [0.0, 0.25, 2.0]])
    assert M[0, 1] == 0.24 and np.isnan(M[1, 0])


def test_decoding_matrices_have_the_stated_norms():
    sigma, E = ms.decoding_matrices(12, 0.3, 0.1, np.random.SeedSequence(4))
    assert np.all(np.diag(E) == 0.0)
    assert abs(np.linalg.norm(E, 2) - 0.3) < 1e-12
    assert np.all(np.abs(sigma - 1.0) <= 0.05)


def test_exact_decoding_has_zero_error():
    out = ms.measure_decoding(np.random.SeedSequence(1), D=10, s=3.0, ell=0.0, alpha=0.25, N=2000, spread=0.0)
    assert out["err_threshold"] == 0.0 and out["err_none"] == 0.0


def test_unthresholded_error_is_the_naive_e_prime_times_second_moment():
    """Without a threshold Sigma'x - z = -E'x, so E[(Sigma'x - z)x^T] = -E' X X^T / N (the same chunks' samples)."""
    seed, D, N = np.random.SeedSequence(7), 8, 3000
    out = ms.measure_decoding(seed, D=D, s=2.0, ell=0.3, alpha=0.25, N=N, chunk=1000)
    s_model, s_data = np.random.SeedSequence(7).spawn(2)
    sigma, E = ms.decoding_matrices(D, 0.3, 0.1, s_model)
    X = np.hstack([gen.weights(gen.WeightDistribution("binary", 2.0), D, 1000, c) for c in s_data.spawn(3)])
    Z = (np.diag(sigma) + E) @ X
    naive = max(np.linalg.norm(-E @ X @ X.T / N, 2), np.linalg.norm((np.diag(sigma) @ X - Z) @ Z.T / N, 2))
    assert abs(out["err_none"] - naive) <= 1e-12 * naive


def test_threshold_shrinks_the_decoding_error_of_binary_weights():
    out = ms.measure_decoding(np.random.SeedSequence(2), D=20, s=3.0, ell=0.2, alpha=0.25, N=20_000)
    assert 0.0 < out["err_threshold"] < 0.5 * out["err_none"]


def test_lemma6_c1_at_a_hand_computed_point():
    # s = 2 (k = r = 2, m = 4), D = 4, ell = 1/2, alpha = 1/4, beta = 1/2
    terms = [2 * 2 / 4, 4 * 0.5 ** 4 * 4 / (0.25 ** 3 * 16), 0.25 * np.sqrt(8) * 2 ** 1.5 / (8 * 0.5),
             0.5 ** 4 * 8 * 4 / (0.25 * 16), 0.5 ** 5 * 2 ** 2.5 * 4 / (16 * 0.0625 * 0.5)]
    assert abs(decoding.lemma6_c1(4.0, 2.0, 0.5, 0.25) - sum(terms)) < 1e-12
    assert decoding.c2_order(2.0) == 5 / 6
