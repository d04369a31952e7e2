"""Regularised minimax conditional entropy (Zhou et al. 2012, 2015) as the crowd paper's authors ran it: the
marginal-likelihood kernel against naive references, the fit, the authors' penalty rule and Liu's cross-validation."""
import warnings
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simverify.datasets import crowd
from simverify.solvers.crowd import aggregate
from simverify.solvers.crowd.estimators import example_answers


def _codes(a):
    return a.item, a.worker, a.label, a.n_items, a.n_workers, a.n_classes


@settings(deadline=None, max_examples=15)
@given(st.integers(2, 4), st.integers(0, 2**31 - 1))
def test_minimax_entropy_gradient_matches_finite_differences(K, seed):
    from simverify.kernels.crowd.minimax import expected_log_likelihood
    rng = np.random.default_rng(seed)
    n, N, M = 40, 10, 5
    item, worker, label = rng.integers(0, N, n), rng.integers(0, M, n), rng.integers(0, K, n)
    sigma, tau = rng.normal(size=(M, K, K)), rng.normal(size=(N, K, K))
    q = rng.dirichlet(np.ones(K), size=N)
    q[0, 0] = 0.0  # a class of weight 0 is skipped
    by = _by_item(item, worker, label, N, K)

    def expected(sigma, tau, g_sigma, g_tau):
        return expected_log_likelihood(sigma, tau, by.item_ptr, by.worker, by.label, 0.7, 0.3, q, g_sigma, g_tau,
                                       by.probs)
    g_sigma, g_tau = np.empty_like(sigma), np.empty_like(tau)
    value = expected(sigma, tau, g_sigma, g_tau)
    h = 1e-6
    for params, grad in ((sigma, g_sigma), (tau, g_tau)):
        index = tuple(rng.integers(0, s) for s in params.shape)
        params[index] += h
        moved = expected(sigma, tau, np.empty_like(sigma), np.empty_like(tau))
        params[index] -= h
        assert abs((moved - value) / h - grad[index]) < 1e-4 * max(1.0, abs(grad[index]))


def test_minimax_expected_likelihood_equals_a_naive_reference():
    from simverify.kernels.crowd.minimax import expected_log_likelihood
    rng = np.random.default_rng(7)
    N, K, alpha, beta = 12, 3, 0.7, 0.3
    item, worker, label, sigma, tau = _minimax_problem(rng, N=N, K=K)
    q = rng.dirichlet(np.ones(K), size=N)
    q[2] = [0.0, 1.0, 0.0]
    logits = sigma[worker] + tau[item]  # (n, c, k)
    log_p = logits - np.log(np.exp(logits).sum(axis=2, keepdims=True))
    naive = (q[item] * log_p[np.arange(item.size), :, label]).sum() - 0.5 * (
        alpha * (tau ** 2).sum() + beta * (sigma ** 2).sum())
    by = _by_item(item, worker, label, N, K)
    value = expected_log_likelihood(sigma, tau, by.item_ptr, by.worker, by.label, alpha, beta, q,
                                    np.empty_like(sigma), np.empty_like(tau), by.probs)
    assert np.isclose(value, naive, rtol=1e-12)


def test_an_item_of_many_answers_keeps_its_likelihood_past_the_normalisers_product_cap():
    from simverify.kernels.crowd.minimax import PRODUCT_CAP
    K, n = 2, 4000  # 4000 answers to one item: the product of their normalisers (each in [1, 2]) passes the cap
    rng = np.random.default_rng(3)
    worker, label, item = rng.integers(0, 3, n), rng.integers(0, K, n), np.zeros(n, dtype=np.int64)
    sigma, tau = rng.normal(size=(3, K, K)), np.zeros((1, K, K))
    logits = sigma[worker]
    normalisers = np.exp(logits - logits.max(axis=2, keepdims=True)).sum(axis=2)
    assert np.log(normalisers[:, 0]).sum() > np.log(PRODUCT_CAP)
    log_p = logits - np.log(np.exp(logits).sum(axis=2, keepdims=True))
    log_q = log_p[np.arange(n), :, label].sum(axis=0)
    naive = np.log(np.exp(log_q - log_q.max()).mean()) + log_q.max()
    q = np.empty((1, K))
    value = _by_item(item, worker, label, 1, K).evaluate(sigma, tau, 0.0, 0.0, q, np.empty_like(sigma),
                                                          np.empty_like(tau))
    assert np.isfinite(value) and np.isclose(value, naive, rtol=1e-12)


def _minimax_problem(rng, n=60, N=12, M=6, K=3):
    item, worker, label = rng.integers(0, N, n), rng.integers(0, M, n), rng.integers(0, K, n)
    return item, worker, label, rng.normal(size=(M, K, K)), rng.normal(size=(N, K, K))


def _by_item(item, worker, label, N, K):
    from simverify.solvers.crowd.minimax_entropy import _ByItem
    return _ByItem(item, worker, label, N, K)


def test_minimax_marginal_likelihood_and_posteriors_equal_a_naive_reference():
    rng = np.random.default_rng(5)
    N, K, alpha, beta = 12, 3, 0.7, 0.3
    item, worker, label, sigma, tau = _minimax_problem(rng, N=N, K=K)
    item[item == 4] = 5  # an item without answers: uniform posterior, no term
    logits = sigma[worker] + tau[item]  # (n, c, k)
    log_p = logits - np.log(np.exp(logits).sum(axis=2, keepdims=True))
    log_q = np.zeros((N, K))
    np.add.at(log_q, item, log_p[np.arange(item.size), :, label])
    naive = np.log(np.exp(log_q).mean(axis=1)).sum() - 0.5 * (alpha * (tau ** 2).sum() + beta * (sigma ** 2).sum())
    q = np.empty((N, K))
    value = _by_item(item, worker, label, N, K).evaluate(sigma, tau, alpha, beta, q, np.empty_like(sigma),
                                                          np.empty_like(tau))
    assert np.isclose(value, naive, rtol=1e-12)
    assert np.allclose(q, np.exp(log_q) / np.exp(log_q).sum(axis=1, keepdims=True))
    assert np.allclose(q[4], 1 / K)


@settings(deadline=None, max_examples=15)
@given(st.integers(2, 4), st.integers(0, 2**31 - 1))
def test_minimax_marginal_likelihood_gradient_matches_finite_differences(K, seed):
    rng = np.random.default_rng(seed)
    item, worker, label, sigma, tau = _minimax_problem(rng, n=40, N=10, M=5, K=K)
    scorer = _by_item(item, worker, label, 10, K)
    q, g_sigma, g_tau = np.empty((10, K)), np.empty_like(sigma), np.empty_like(tau)
    value = scorer.evaluate(sigma, tau, 0.7, 0.3, q, g_sigma, g_tau)
    h = 1e-6
    for params, grad in ((sigma, g_sigma), (tau, g_tau)):
        index = tuple(rng.integers(0, s) for s in params.shape)
        params[index] += h
        moved = scorer.evaluate(sigma, tau, 0.7, 0.3, q.copy(), np.empty_like(sigma), np.empty_like(tau))
        params[index] -= h
        assert abs((moved - value) / h - grad[index]) < 1e-4 * max(1.0, abs(grad[index]))


def test_minimax_fit_is_near_stationary_and_above_the_flat_model():
    from simverify.solvers.crowd.minimax_entropy import fit_minimax
    a = crowd.shipped("bluebird")
    fit = fit_minimax(*_codes(a), alpha=2.0, beta=1.0)
    K = a.n_classes
    g_sigma, g_tau = np.empty_like(fit.sigma), np.empty_like(fit.tau)
    scorer = _by_item(a.item, a.worker, a.label, a.n_items, K)
    at_fit = scorer.evaluate(fit.sigma, fit.tau, 2.0, 1.0, np.empty((a.n_items, K)), g_sigma, g_tau)
    at_zero = scorer.evaluate(0 * fit.sigma, 0 * fit.tau, 2.0, 1.0, np.empty((a.n_items, K)), g_sigma.copy(),
                              g_tau.copy())  # all terms 0: every answer uniform
    assert at_fit == fit.log_likelihood and at_fit > at_zero
    # L-BFGS stops on a relative gain below ~2e-9 (scipy's default): the gradient is small on the value's scale
    assert max(np.abs(g_sigma).max(), np.abs(g_tau).max()) < 1e-5 * abs(at_fit)


def test_minimax_entropy_estimator_uses_the_authors_rule_by_default_and_passes_its_penalties():
    from simverify.solvers.crowd.estimators import MinimaxEntropy
    from simverify.solvers.crowd.minimax_entropy import default_penalties, minimax_entropy
    a = crowd.shipped("bluebird")
    frame = crowd.to_frame(a)
    default = MinimaxEntropy().fit(frame)
    beta = a.n_classes ** 2 / 4
    assert (default.alpha_, default.beta_) == default_penalties(a.n_items, a.n_workers, a.n_classes)
    assert (default.alpha_, default.beta_) == (beta * a.n_items / a.n_workers, beta)
    fitted = MinimaxEntropy(alpha=0.5, beta=2.0).fit(frame).probas_.to_numpy()
    assert np.allclose(fitted, minimax_entropy(*_codes(a), alpha=0.5, beta=2.0))
    assert not np.allclose(fitted, default.probas_.to_numpy())


def test_minimax_entropy_warns_when_its_penalties_flatten_posteriors_and_says_how_many():
    from simverify.solvers.crowd.minimax_entropy import minimax_entropy
    a = crowd.shipped("bluebird")
    from simverify.solvers.crowd.minimax_entropy import FlatPosteriorsWarning
    with pytest.warns(FlatPosteriorsWarning, match="every one of the 108 answered items' posteriors lie within"):
        q = minimax_entropy(*_codes(a), alpha=1e6, beta=1e6)
    assert np.ptp(q, axis=1).max() < 1e-3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        minimax_entropy(*_codes(a))
    example = crowd.from_frame(example_answers())
    with pytest.warns(FlatPosteriorsWarning, match=r"\d+ of the 6 answered items' posteriors"):
        minimax_entropy(*_codes(example), alpha=0.0)  # free item terms: items answered alike come out flat


def test_answer_folds_deal_each_annotators_answers_evenly_and_depend_only_on_the_seed():
    from simverify.solvers.crowd.minimax_entropy import _answer_folds
    a = crowd.shipped("rte")
    fold = _answer_folds(a.worker, a.n_workers, 5, seed=3)
    counts = np.zeros((a.n_workers, 5), dtype=int)
    np.add.at(counts, (a.worker, fold), 1)
    assert (counts.max(axis=1) - counts.min(axis=1) <= 1).all()
    assert np.array_equal(fold, _answer_folds(a.worker, a.n_workers, 5, seed=3))
    assert not np.array_equal(fold, _answer_folds(a.worker, a.n_workers, 5, seed=4))


def test_minimax_entropy_cv_keeps_the_grid_point_of_largest_heldout_likelihood_and_reads_no_gold():
    from simverify.solvers.crowd.estimators import MinimaxEntropyCV
    from simverify.solvers.crowd.minimax_entropy import GRID_EXPONENTS, minimax_entropy
    a = crowd.shipped("bluebird")
    model = MinimaxEntropyCV(folds=3).fit(crowd.to_frame(a))
    scores = model.heldout_log_likelihood_
    assert len(scores) == len(GRID_EXPONENTS)
    assert (model.alpha_, model.beta_) == scores.idxmax()
    assert np.array_equal(model.probas_.to_numpy(), minimax_entropy(*_codes(a), alpha=model.alpha_, beta=model.beta_))
    shuffled = aggregate(replace(a, gold=np.roll(a.gold, 1)), "minimax-entropy-cv")  # the gold travels with a
    assert np.array_equal(shuffled.posteriors, aggregate(a, "minimax-entropy-cv").posteriors)


def test_minimax_entropy_cv_breaks_a_tie_of_heldout_scores_toward_the_stronger_penalties(monkeypatch):
    from simverify.solvers.crowd import minimax_entropy as me
    a = crowd.shipped("bluebird")

    def flat(item, worker, label, n_items, n_workers, n_classes, alpha, beta, start=None, ftol=None):  # all alike
        K = n_classes
        return me.MinimaxFit(np.zeros((n_workers, K, K)), np.zeros((n_items, K, K)), np.full((n_items, K), 1 / K), 0.0)
    monkeypatch.setattr(me, "fit_minimax", flat)
    choice = me.penalties_by_heldout_likelihood(*_codes(a), folds=2, exponents=(0, 2, -1))
    assert len(set(choice.heldout_log_likelihood)) == 1
    assert (choice.alpha, choice.beta) == max(choice.grid, key=lambda g: g[1])


def test_minimax_entropy_cv_refuses_more_folds_than_the_most_active_annotators_answers_naming_itself():
    from simverify.solvers.crowd.estimators import MinimaxEntropyCV
    from simverify.solvers.crowd.minimax_entropy import minimax_entropy_cv
    frame = example_answers()  # 4 annotators, 6 answers each
    with pytest.raises(ValueError, match=r"^MinimaxEntropyCV: 7 folds of each annotator's answers need an annotator "
                                         r"with at least 7 answers; the most active gave 6"):
        MinimaxEntropyCV(folds=7).fit(frame)
    a = crowd.from_frame(frame)
    with pytest.raises(ValueError, match="penalties_by_heldout_likelihood: 2\\*\\*63|penalties_by_heldout_likelihood: "
                                         "9223372036854775808 folds"):
        minimax_entropy_cv(*_codes(a), folds=2 ** 63)
    MinimaxEntropyCV(folds=6).fit(frame)  # as many folds as answers: accepted


def test_minimax_entropy_refuses_sizes_past_the_memory_limit_before_allocating():
    from simverify.solvers.crowd.minimax_entropy import minimax_entropy
    one = np.array([0])
    with pytest.raises(ValueError, match=r"^minimax_entropy: 1000000 items, 1 annotators and 50 classes need about "
                                         r"317 GiB; the limit is 4 GiB$"):
        minimax_entropy(one, one, one, 10 ** 6, 1, 50)


@pytest.mark.parametrize("exponents", [(-2, -1, 0, 1, 2), (2, 1)])  # the weakest point wins; a stronger one does
def test_the_cross_validations_choice_and_posteriors_do_not_depend_on_the_thread_count(monkeypatch, exponents):
    from simverify.solvers.crowd import minimax_entropy as me
    a = crowd.shipped("bluebird")
    codes = (a.item, a.worker, a.label, a.n_items, a.n_workers, a.n_classes)
    monkeypatch.setattr(me, "FIT_THREADS", 1)
    q1, one = me.minimax_entropy_cv(*codes, exponents=exponents)
    monkeypatch.setattr(me, "FIT_THREADS", 2)  # the final fit at the weakest point runs beside the folds
    q2, two = me.minimax_entropy_cv(*codes, exponents=exponents)
    assert two == one and np.array_equal(q2, q1)
    assert np.array_equal(q2, me.minimax_entropy(*codes, alpha=two.alpha, beta=two.beta))  # the method's own fit


def test_each_folds_fits_run_along_the_grid_from_the_weakest_penalty_cold_then_warm(monkeypatch):
    from simverify.solvers.crowd import minimax_entropy as me
    a = crowd.shipped("bluebird")
    codes = (a.item, a.worker, a.label, a.n_items, a.n_workers, a.n_classes)
    calls, fit = [], me.fit_minimax

    def recorded(*args, start=None, **options):
        result = fit(*args, start=start, **options)
        calls.append((args[-1], start, result))
        return result
    monkeypatch.setattr(me, "FIT_THREADS", 1)
    monkeypatch.setattr(me, "fit_minimax", recorded)
    me.penalties_by_heldout_likelihood(*codes, folds=2, exponents=(1, -2, 0))
    betas = [beta for beta, _, _ in calls]
    weakest = me.default_penalties(a.n_items, a.n_workers, a.n_classes)[1]
    assert betas == [weakest, 4 * weakest, 8 * weakest] * 2  # per fold, weakest first
    for f in range(2):
        chain = calls[3 * f:3 * f + 3]
        assert chain[0][1] is None  # the weakest point's fit is cold
        assert chain[1][1] is chain[0][2] and chain[2][1] is chain[1][2]  # each later one starts from the last


@pytest.mark.parametrize("name, alpha, beta", [("bluebird", 5.0, 1.0), ("rte", 5.0, 1.0), ("dog", 20.0, 4.0)])
def test_the_fit_reaches_the_maximum_scipys_lbfgsb_reaches_from_the_fits_start(name, alpha, beta):
    from scipy.optimize import minimize

    from simverify.solvers.crowd.minimax_entropy import fit_minimax
    a = crowd.shipped(name)
    codes = (a.item, a.worker, a.label, a.n_items, a.n_workers, a.n_classes)
    ours = fit_minimax(*codes, alpha, beta)
    start = fit_minimax(*codes, alpha, beta, start=None, ftol=1.0)  # the start phase and one marginal step
    K, cut = a.n_classes, a.n_workers * a.n_classes ** 2
    scorer = _by_item(a.item, a.worker, a.label, a.n_items, K)
    grad = np.empty(cut + a.n_items * K * K)

    def negated(theta):
        value = scorer.evaluate(theta[:cut].reshape(-1, K, K), theta[cut:].reshape(-1, K, K), alpha, beta,
                                np.empty((a.n_items, K)), grad[:cut].reshape(-1, K, K), grad[cut:].reshape(-1, K, K))
        return -value, -grad
    theirs = minimize(negated, np.concatenate([start.sigma.ravel(), start.tau.ravel()]), jac=True,
                      method="L-BFGS-B", options={"maxiter": 5000, "ftol": 1e-13, "gtol": 1e-9})
    assert abs(ours.log_likelihood + theirs.fun) < 1e-6 * abs(theirs.fun)  # the same maximum, to 1e-6 relative


def test_a_warm_start_at_the_optimum_stays_there():
    from simverify.solvers.crowd.minimax_entropy import fit_minimax
    a = crowd.shipped("bluebird")
    codes = (a.item, a.worker, a.label, a.n_items, a.n_workers, a.n_classes)
    cold = fit_minimax(*codes, 5.0, 1.0)
    warm = fit_minimax(*codes, 5.0, 1.0, start=cold)
    assert warm.log_likelihood >= cold.log_likelihood  # L-BFGS's relative stop (2.2e-9) leaves a little to gain
    assert np.abs(warm.posteriors - cold.posteriors).max() < 1e-3


def test_the_paths_scores_land_at_their_grid_points_and_the_weakest_is_a_cold_fits():
    from simverify.solvers.crowd import minimax_entropy as me
    a = crowd.shipped("bluebird")
    codes = (a.item, a.worker, a.label, a.n_items, a.n_workers, a.n_classes)
    path = me.penalties_by_heldout_likelihood(*codes, folds=2, exponents=(1, -2, 0))
    assert path.grid == [(2.0 ** (e + 2) * path.grid[1][0], 2.0 ** (e + 2) * path.grid[1][1]) for e in (1, -2, 0)]
    alone = me.penalties_by_heldout_likelihood(*codes, folds=2, exponents=(-2,))
    assert path.heldout_log_likelihood[1] == alone.heldout_log_likelihood[0]  # the weakest point is fitted cold
    twice = me.penalties_by_heldout_likelihood(*codes, folds=2, exponents=(1, -2, 0, 1))
    assert twice.heldout_log_likelihood[:3] == path.heldout_log_likelihood  # a repeated point shares its fit
    assert twice.heldout_log_likelihood[3] == path.heldout_log_likelihood[0]


def test_a_warm_start_of_the_wrong_shape_is_refused_in_one_line():
    from simverify.solvers.crowd.minimax_entropy import MinimaxFit, fit_minimax
    a = crowd.shipped("bluebird")
    wrong = MinimaxFit(np.zeros((2, 2, 2)), np.zeros((3, 2, 2)), np.zeros((3, 2)), 0.0)
    with pytest.raises(ValueError, match=r"^fit_minimax: a start of sigma \(2, 2, 2\) and tau \(3, 2, 2\) does not "
                                         r"fit 39 annotators, 108 items and 2 classes$"):
        fit_minimax(a.item, a.worker, a.label, a.n_items, a.n_workers, a.n_classes, 1.0, 1.0, start=wrong)


def test_a_warm_start_that_is_not_finite_is_refused_in_one_line():
    from simverify.solvers.crowd.minimax_entropy import MinimaxFit, fit_minimax
    a = crowd.shipped("bluebird")
    K = a.n_classes
    bad = MinimaxFit(np.full((a.n_workers, K, K), np.nan), np.zeros((a.n_items, K, K)), np.zeros((a.n_items, K)), 0.0)
    with pytest.raises(ValueError, match=r"^fit_minimax: the start's terms must be finite$"):
        fit_minimax(a.item, a.worker, a.label, a.n_items, a.n_workers, K, 1.0, 1.0, start=bad)


def test_the_plans_memory_bound_counts_a_fits_bytes_once_and_the_cross_validation_two_fits_at_once():
    from types import SimpleNamespace

    from simverify.solvers.crowd.codes import CO_OCCURRENCE_BYTES, CV_FITS_AT_ONCE, memory_problem, minimax_bytes
    N, M, K = 200_000, 10, 10  # about 2.5 GiB of minimax terms: one fit fits in the 4 GiB limit
    answers = SimpleNamespace(n_items=N, n_workers=M, n_classes=K)
    one = minimax_bytes(N, M, K)
    assert one + 8 * 4 * (N * K + M * K * K) <= CO_OCCURRENCE_BYTES < 2 * one
    assert memory_problem("minimax-entropy", answers) is None
    assert CV_FITS_AT_ONCE == 2 and minimax_bytes(N, M, K, fits=2) == 2 * one
    assert "need about" in memory_problem("minimax-entropy-cv", answers)  # whatever this host's cores


def test_a_term_of_no_penalty_and_no_answers_leaves_the_fit_free_to_move():
    from simverify.solvers.crowd.minimax_entropy import fit_minimax, inverse_curvature
    rng = np.random.default_rng(2)
    item, worker, label = rng.integers(0, 29, 200), rng.integers(0, 6, 200), rng.integers(0, 2, 200)
    N, M, K = 30, 7, 2  # item 29 and annotator 6 have no answers
    scale = inverse_curvature(item, worker, N, M, K, 0.0, 0.0)
    assert np.isfinite(scale).all() and scale[6 * K * K] == 1.0 and scale[-1] == 1.0
    start = fit_minimax(item, worker, label, N, M, K, 0.0, 1.0, ftol=1.0)  # the start phase and one step
    fit = fit_minimax(item, worker, label, N, M, K, 0.0, 1.0)
    assert np.isfinite(fit.log_likelihood) and fit.log_likelihood > start.log_likelihood + 1.0


@pytest.mark.parametrize("name, value", [("alpha", -1.0), ("beta", float("nan")), ("alpha", True), ("beta", "1"),
                                         ("ftol", None), ("ftol", "1e-7"), ("ftol", -1.0), ("ftol", float("inf"))])
def test_fit_minimax_refuses_bad_penalties_and_stopping_gains_in_one_line(name, value):
    from simverify.solvers.crowd.minimax_entropy import fit_minimax
    options = {"alpha": 1.0, "beta": 1.0, "ftol": 1e-9, name: value}
    with pytest.raises(ValueError, match=rf"^fit_minimax: {name} must be a finite number in \[0, inf\), got "):
        fit_minimax(*_codes(crowd.shipped("bluebird")), options["alpha"], options["beta"], ftol=options["ftol"])
