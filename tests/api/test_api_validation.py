"""The public Python API validates as one: estimators declare ``_parameter_constraints`` and refuse a bad parameter
at fit/predict with one line '<Estimator>: <name> must be <description>, got <value>'; solver functions check their
arguments at their top with the same helpers; wrappers of Numba kernels refuse shapes that disagree (a kernel would
read past an array's end); degenerate data is refused or draws a RuntimeWarning saying what to do."""
import inspect
import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simverify import validation as v
from simverify.datasets import crowd
from simverify.generators import nmf as nmf_gen
from simverify.kernels import streams
from simverify.solvers import bitsubspace, multilabel, onebit
from simverify.solvers import nmf as nmf_sol
from simverify.solvers import slm as slm_sol
from simverify.solvers.crowd import cooccurrences, dawid_skene, minimax_entropy, pipeline, spectral, symnmf, votes
from simverify.solvers.crowd.codes import shares_items
from simverify.solvers.crowd.estimators import (
    ESTIMATORS,
    KOS,
    DawidSkene,
    DesSymNMF,
    MinimaxEntropy,
    MinimaxEntropyCV,
    RobSymNMF,
    SpectralDS,
)
from simverify.solvers.crowd.methods import aggregate
from simverify.solvers.crowd.model import DawidSkeneModel
from simverify.solvers.factorization_machine import FactorizationMachine
from simverify.solvers.nmf_sklearn import OnlineLDA, SklearnNMF

NAN, INF = float("nan"), float("inf")


def exactly(message: str) -> str:
    """A pattern matching the whole one-line message."""
    return rf"^{re.escape(message)}$"


def one_line_refusal(call, message: str) -> None:
    with pytest.raises(ValueError, match=exactly(message)) as err:
        call()
    assert "\n" not in str(err.value)


# ---- the constraint vocabulary ---------------------------------------------------------------------------------

@pytest.mark.parametrize("constraint, value", [
    (v.Integer(1), True), (v.Integer(1), np.bool_(True)), (v.Integer(1), 2.0), (v.Integer(1), "3"), (v.Integer(1), 0),
    (v.Integer(0, 5), 6), (v.Real(0.0), NAN), (v.Real(0.0), INF), (v.Real(), -INF), (v.Real(0.0), True),
    (v.Real(0.0), "1"), (v.Real(0.0), np.array(1.0)), (v.Real(0.0), None), (v.Real(0.0, 1.0, closed="left"), 1.0),
    (v.Real(0.0, closed="neither"), 0.0), (v.Boolean(), "no"), (v.Boolean(), 0), (v.Boolean(), 1.0),
    (v.Options("cd", "mu"), "CD"), (v.Options("cd", "mu"), 1), (v.Seed(), -1), (v.Seed(), 1.5), (v.Seed(), True),
    (v.Seed(), []), (v.ArrayLike(), 3.0), (v.IsCallable(), 1.0), (None, 0),
])
def test_each_constraint_refuses_bools_strings_nan_inf_and_values_outside_it(constraint, value):
    with pytest.raises(ValueError, match=r"^Owner: p must be .*, got "):
        v.check_parameter("Owner", "p", value, constraint)


@pytest.mark.parametrize("constraint, value", [
    (v.Integer(1), 1), (v.Integer(1), np.int32(7)), (v.Integer(0, 5), 5), (v.Real(0.0), 0),
    (v.Real(0.0), np.float32(2)), (v.Real(0.0), 10 ** 400), (v.Real(0.0, 1.0, closed="left"), 0.0),
    (v.Boolean(), False), (v.Boolean(), np.bool_(True)),
    (v.Options("cd", "mu"), "mu"), (v.Seed(), 0), (v.Seed(), np.random.SeedSequence(1)), (v.Seed(), [1, 2]),
    (v.ArrayLike(), [[1.0]]), (v.IsCallable(), len), (None, None), ([v.Real(0.0), v.Options("auto")], "auto"),
])
def test_each_constraint_accepts_its_values_including_numpy_scalars(constraint, value):
    v.check_parameter("Owner", "p", value, constraint)


@pytest.mark.parametrize("spec, description", [
    (v.Integer(1), "a positive integer"), (v.Integer(0), "an integer >= 0"), (v.Integer(1, 4), "an integer in [1, 4]"),
    (v.Real(0.0), "a finite number in [0, inf)"), (v.Real(0.0, 1.0, closed="left"), "a finite number in [0, 1)"),
    (v.Real(0.0, closed="neither"), "a finite number in (0, inf)"), (v.Boolean(), "True or False"),
    ([v.Real(0.0, 1e6, closed="right"), v.Options("auto")], "a finite number in (0, 1e+06] or one of ['auto']"),
    ([v.Seed(), None], "a seed (an integer >= 0, a SeedSequence or a list of integers >= 0) or None"),
])
def test_descriptions_read_as_the_cli_words_them(spec, description):
    assert v.describe(spec) == description


@settings(deadline=None, max_examples=200)
@given(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10, 10), st.booleans(),
                 st.text(max_size=2)))
def test_real_in_a_half_open_interval_is_exactly_a_finite_non_bool_number_inside_it(x):
    inside = (not isinstance(x, (bool, str))) and math.isfinite(x) and 0.0 <= x < 1.0
    assert v.Real(0.0, 1.0, closed="left").is_satisfied_by(x) == inside


def test_existing_helpers_keep_their_messages():
    one_line_refusal(lambda: v.positive_int("n", True), "n must be a positive integer, got True")
    one_line_refusal(lambda: v.real_number("x", NAN, 0.0), "x must be a finite number in [0, inf], got nan")
    one_line_refusal(lambda: v.finite_matrix("A", [[NAN]]), "A has non-finite entries")
    one_line_refusal(lambda: v.check_int_parameter("m", [1, 0]), "parameter m must be a positive integer, got [1, 0]")


@pytest.mark.parametrize("order", ["C", "F"])
def test_finite_matrix_returns_the_order_asked_for_without_copying_an_array_already_in_it(order):
    A = np.asarray(np.arange(12.0).reshape(3, 4), order=order)
    for arr in (A, A[:, ::2], A.astype(np.int64)):
        got = v.finite_matrix("A", arr, order=order)
        assert got.flags[f"{order}_CONTIGUOUS"] and got.dtype == np.float64
        np.testing.assert_array_equal(got, arr)
    assert v.finite_matrix("A", A, order=order) is A


@pytest.mark.parametrize("order", ["K", "c", "", "A", "W", None])
def test_finite_matrix_refuses_an_order_other_than_c_or_f(order):
    one_line_refusal(lambda: v.finite_matrix("A", np.ones((2, 2)), order=order),
                     f"finite_matrix: order must be 'C' or 'F', got {order!r}")


# ---- estimators: constraints declared, checked at fit, one line --------------------------------------------------

ESTIMATOR_CLASSES = [*ESTIMATORS.values(), nmf_sol.AND, nmf_sol.MultiplicativeUpdate, nmf_sol.HALS, nmf_sol.ANLS,
                     SklearnNMF, OnlineLDA, FactorizationMachine, bitsubspace.OnlineSubspaceTracker]


@pytest.mark.parametrize("cls", ESTIMATOR_CLASSES, ids=lambda c: c.__name__)
def test_every_estimator_declares_a_constraint_for_each_init_parameter(cls):
    variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    params = [name for name, p in inspect.signature(cls.__init__).parameters.items()
              if name != "self" and p.kind not in variadic]  # object.__init__ takes (*args, **kwargs)
    assert sorted(cls._parameter_constraints) == sorted(params)


@pytest.fixture(scope="module")
def frame():
    return crowd.to_frame(crowd.shipped("bluebird"))


CROWD_REFUSALS = [
    (lambda: RobSymNMF(em="no"), "RobSymNMF: em must be True or False, got 'no'"),
    (lambda: RobSymNMF(weighted="no"), "RobSymNMF: weighted must be True or False, got 'no'"),
    (lambda: DawidSkene(n_iter=-1), "DawidSkene: n_iter must be an integer >= 0, got -1"),
    (lambda: DawidSkene(n_iter=True), "DawidSkene: n_iter must be an integer >= 0, got True"),
    (lambda: DawidSkene(n_iter=5.0), "DawidSkene: n_iter must be an integer >= 0, got 5.0"),
    (lambda: DawidSkene(tol=NAN), "DawidSkene: tol must be a finite number in [0, inf), got nan"),
    (lambda: DawidSkene(tol=-1), "DawidSkene: tol must be a finite number in [0, inf), got -1"),
    (lambda: DesSymNMF(em=True, n_iter=-5), "DesSymNMF: n_iter must be an integer >= 0, got -5"),
    (lambda: DesSymNMF(em=True, smoothing=1.0), "DesSymNMF: smoothing must be a finite number in [0, 1), got 1.0"),
    (lambda: MinimaxEntropy(alpha=-1), "MinimaxEntropy: alpha must be a finite number in [0, inf) or None, got -1"),
    (lambda: MinimaxEntropy(alpha=NAN), "MinimaxEntropy: alpha must be a finite number in [0, inf) or None, got nan"),
    (lambda: MinimaxEntropy(alpha=INF), "MinimaxEntropy: alpha must be a finite number in [0, inf) or None, got inf"),
    (lambda: MinimaxEntropy(beta="x"), "MinimaxEntropy: beta must be a finite number in [0, inf) or None, got 'x'"),
    (lambda: MinimaxEntropyCV(folds=1), "MinimaxEntropyCV: folds must be an integer >= 2, got 1"),
    (lambda: MinimaxEntropyCV(folds=True), "MinimaxEntropyCV: folds must be an integer >= 2, got True"),
    (lambda: MinimaxEntropyCV(exponents="x"), "MinimaxEntropyCV: exponents must be a list or a tuple, got 'x'"),
    (lambda: MinimaxEntropyCV(exponents=[]), "MinimaxEntropyCV: exponents must hold at least one number"),
    (lambda: MinimaxEntropyCV(exponents=[0, NAN]),
     "MinimaxEntropyCV: each of exponents must be a finite number in [-60, 60], got nan"),
    (lambda: MinimaxEntropyCV(exponents=[True]),
     "MinimaxEntropyCV: each of exponents must be a finite number in [-60, 60], got True"),
    (lambda: KOS(random_state=-1),
     "KOS: random_state must be a seed (an integer >= 0, a SeedSequence or a list of integers >= 0) or None, got -1"),
    (lambda: DesSymNMF(smoothing=0.01), "DesSymNMF: smoothing=0.01 applies to EM's start: set em=True"),
    (lambda: RobSymNMF(weighted=False, em=True),
     "RobSymNMF: the unweighted RobSymNMF (weighted=False) has no EM or per-annotator variant: set em=False, "
     "smoothing=0 and alignment='common'"),
]


@pytest.mark.parametrize("make, message", CROWD_REFUSALS, ids=lambda x: x if isinstance(x, str) else "")
def test_crowd_estimator_refuses_a_bad_parameter_at_fit_naming_it_and_its_value(frame, make, message):
    estimator = make()  # __init__ stores only
    one_line_refusal(lambda: estimator.fit(frame), message)


@pytest.fixture(scope="module")
def topics():
    A = nmf_gen.topic_matrix(30, 5, 0)
    Y = A @ nmf_gen.weights(nmf_gen.WeightDistribution("dirichlet", 1.0), 5, 200, 1)
    return Y.T, nmf_gen.initial_matrix(A, 1)


NMF_REFUSALS = [
    (lambda A0: nmf_sol.AND(5, A0=A0, eta=-1.0),
     "AND: eta must be a finite number in (0, 1e+06] or one of ['auto'], got -1.0"),
    (lambda A0: nmf_sol.AND(5, A0=A0, batch="no"), "AND: batch must be True or False, got 'no'"),
    (lambda A0: nmf_sol.AND(5, A0=A0, threshold="x"),
     "AND: threshold must be a finite number in [0, 1e+06], a schedule or None, got 'x'"),
    (lambda A0: nmf_sol.AND(5, A0=A0, T=0), "AND: T must be an integer in [1, 1000000000], got 0"),
    (lambda A0: nmf_sol.AND(5, A0=A0, T=2 ** 63),
     "AND: T must be an integer in [1, 1000000000], got 9223372036854775808"),
    (lambda A0: nmf_sol.HALS(5, A0=A0, max_iter=10 ** 12),
     "HALS: max_iter must be an integer in [1, 1000000000], got 1000000000000"),
    (lambda A0: nmf_sol.AND(True, A0=A0), "AND: n_components must be a positive integer, got True"),
    (lambda A0: nmf_sol.AND(5), "AND: a starting matrix A0 (W, D) is needed"),
    (lambda A0: nmf_sol.HALS(5, A0=A0, eps=NAN), "HALS: eps must be a finite number in [0, 1], got nan"),
    (lambda A0: nmf_sol.ANLS(5, A0=A0, max_iter=0), "ANLS: max_iter must be an integer in [1, 1000000000], got 0"),
    (lambda A0: SklearnNMF(5, A0=A0, solver="x"), "SklearnNMF: solver must be one of ['cd', 'mu'], got 'x'"),
    (lambda A0: OnlineLDA(5, batch_size=0), "OnlineLDA: batch_size must be a positive integer, got 0"),
    (lambda A0: OnlineLDA(5, doc_topic_prior=-1.0),
     "OnlineLDA: doc_topic_prior must be a finite number in [0, inf) or None, got -1.0"),
]


@pytest.mark.parametrize("make, message", NMF_REFUSALS, ids=lambda x: x if isinstance(x, str) else "")
def test_nmf_estimator_refuses_a_bad_parameter_at_fit_naming_it_and_its_value(topics, make, message):
    X, A0 = topics
    estimator = make(A0)
    one_line_refusal(lambda: estimator.fit(X), message)


@pytest.mark.parametrize("kwargs, message", [
    ({"rank": True}, "FactorizationMachine: rank must be a positive integer, got True"),
    ({"tol": NAN}, "FactorizationMachine: tol must be a finite number in [0, inf), got nan"),
    ({"l2_reg_V": "0"}, "FactorizationMachine: l2_reg_V must be a finite number in [0, inf), got '0'"),
    ({"random_state": -1}, "FactorizationMachine: random_state must be a seed (an integer >= 0, a SeedSequence or a "
                           "list of integers >= 0), got -1"),
])
def test_factorization_machine_refuses_a_bad_parameter_at_fit(kwargs, message):
    X, y = np.ones((5, 3)), np.ones(5)
    one_line_refusal(lambda: FactorizationMachine(**{"rank": 1, **kwargs}).fit(X, y), message)


def test_the_tracker_checks_its_constraints_before_drawing_its_start():
    one_line_refusal(lambda: bitsubspace.OnlineSubspaceTracker(5, 2, by_magnitude="no"),
                     "OnlineSubspaceTracker: by_magnitude must be True or False, got 'no'")
    one_line_refusal(lambda: bitsubspace.OnlineSubspaceTracker(5, 2, warm_start=-1),
                     "OnlineSubspaceTracker: warm_start must be an integer >= 0, got -1")


def test_valid_numpy_typed_parameters_give_the_same_numbers_as_python_ones(frame):
    plain = DawidSkene(n_iter=3, tol=0.0).fit(frame).probas_.to_numpy()
    typed = DawidSkene(n_iter=np.int64(3), tol=np.float64(0.0)).fit(frame).probas_.to_numpy()
    assert np.array_equal(plain, typed)


# ---- solver functions check their arguments at their top ---------------------------------------------------------

J = np.diag([3.0, 2.0, 1.0, 0.5])
CODES = (np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]), np.array([0, 1, 1, 1]))


@pytest.mark.parametrize("call, message", [
    (lambda: bitsubspace.convex_sparse(J, 2.0, rho=-1.0),
     "convex_sparse: rho must be a finite number in (0, inf), got -1.0"),
    (lambda: bitsubspace.convex_sparse(J, 2.0, iterations=-5),
     "convex_sparse: iterations must be a positive integer, got -5"),
    (lambda: bitsubspace.convex_sparse(J, INF), "convex_sparse: sparsity must be a finite number in (0, inf), got inf"),
    (lambda: bitsubspace.convex_sparse(J, "2"), "convex_sparse: sparsity must be a finite number in (0, inf), got '2'"),
    (lambda: bitsubspace.convex_sparse(J, 2.0, tol=NAN),
     "convex_sparse: tol must be a finite number in [0, inf), got nan"),
    (lambda: bitsubspace.esprit(np.full((4, 2), NAN)), "esprit: U has non-finite entries"),
    (lambda: bitsubspace.esprit(np.ones(4)), "esprit: U must be a numeric 2-d array, got dtype float64 and shape (4,)"),
    (lambda: bitsubspace.truncated_evd(np.ones((3, 2)), 1), "truncated_evd: J must be square (n, n), got shape (3, 2)"),
    (lambda: bitsubspace.truncated_evd(J, 5), "truncated_evd: rank r=5 must lie in 1..n=4"),
    (lambda: bitsubspace.convex_lowrank(J, 0), "convex_lowrank: r must be a positive integer, got 0"),
    (lambda: onebit.dilation_top_eigenvectors(np.full((3, 2), NAN), 2),
     "dilation_top_eigenvectors: W has non-finite entries"),
    (lambda: onebit.dilation_top_eigenvectors(np.ones((3, 2)), 6),
     "dilation_top_eigenvectors: r must be an integer in [1, 5], got 6"),
    (lambda: dawid_skene(*CODES, 2, 2, 2, n_iter=-1), "dawid_skene: n_iter must be an integer >= 0, got -1"),
    (lambda: dawid_skene(*CODES, 2, 2, 2, tol=NAN), "dawid_skene: tol must be a finite number in [0, inf), got nan"),
    (lambda: minimax_entropy.minimax_entropy(*CODES, 2, 2, 2, alpha=NAN),
     "minimax_entropy: alpha must be a finite number in [0, inf) or None, got nan"),
    (lambda: minimax_entropy.minimax_entropy(*CODES, 2, 2, 2, beta="x"),
     "minimax_entropy: beta must be a finite number in [0, inf) or None, got 'x'"),
    (lambda: minimax_entropy.minimax_entropy_cv(*CODES, 2, 2, 2, folds=1),
     "penalties_by_heldout_likelihood: folds must be an integer >= 2, got 1"),
    (lambda: minimax_entropy.minimax_entropy_cv(*CODES, 2, 2, 2, seed=-1),
     "penalties_by_heldout_likelihood: seed must be a seed (an integer >= 0, a SeedSequence or a list of integers "
     ">= 0), got -1"),
    (lambda: symnmf(np.eye(3), tol=-1.0), "symnmf: tol must be a finite number in [0, inf), got -1.0"),
    (lambda: pipeline.robust_blocks(np.zeros((3, 3, 2, 2)), np.ones((3, 3)), weighted="no"),
     "robust_blocks: weighted must be True or False, got 'no'"),
])
def test_solver_function_refuses_a_bad_argument_at_its_top(call, message):
    one_line_refusal(call, message)


# ---- wrappers of kernels refuse shapes that disagree -------------------------------------------------------------

@pytest.fixture(scope="module")
def fm_on_six_features():
    rng = np.random.default_rng(0)
    return FactorizationMachine(rank=2, n_iter=3).fit(rng.standard_normal((40, 6)), rng.standard_normal(40))


@pytest.mark.parametrize("d", [3, 50, 100_000])
def test_factorization_machine_predict_refuses_a_feature_count_other_than_fits(fm_on_six_features, d):
    X = np.zeros((2, d))
    one_line_refusal(lambda: fm_on_six_features.predict(X),
                     f"FactorizationMachine: X has {d} features, but the model was fitted on 6")


def test_factorization_machine_predict_before_fit_is_refused():
    one_line_refusal(lambda: FactorizationMachine().predict(np.ones((2, 3))),
                     "FactorizationMachine: not fitted yet (no w0_, w_, V_); call fit first")


def _tracker():
    return bitsubspace.OnlineSubspaceTracker(5, 2)


def _lstate():
    rng = np.random.default_rng(1)
    return slm_sol.SLMState(rng.standard_normal(4), rng.standard_normal((4, 2)), rng.standard_normal((4, 2)))


PAIRS = [
    (lambda: _lstate().predict(np.ones((3, 7))), "SLMState.predict: X has 7 features, but the iterate has d = 4"),
    (lambda: _tracker().partial_fit(np.ones((3, 4)), np.ones((3, 4)), np.ones(3)),
     "OnlineSubspaceTracker.partial_fit: A and B must both have shape (c, n) with n = 5, got (3, 4) and (3, 4)"),
    (lambda: _tracker().partial_fit(np.ones((3, 5)), np.ones((2, 5)), np.ones(3)),
     "OnlineSubspaceTracker.partial_fit: A and B must both have shape (c, n) with n = 5, got (3, 5) and (2, 5)"),
    (lambda: _tracker().partial_fit(np.ones((3, 5)), np.ones((3, 5)), np.ones(2)),
     "OnlineSubspaceTracker.partial_fit: y has 2 bits, A has 3 rows"),
    (lambda: onebit.full_observation_residual(np.ones((4, 3)), np.ones((5, 2)), np.ones((3, 2)), 10, 0),
     "full_observation_residual: X (n, d1), Y (n, d2) and W (d1, d2) disagree: (4, 3), (5, 2), (3, 2)"),
    (lambda: onebit.full_observation_residual(np.ones((4, 3)), np.ones((4, 2)), np.ones((2, 2)), 10, 0),
     "full_observation_residual: X (n, d1), Y (n, d2) and W (d1, d2) disagree: (4, 3), (4, 2), (2, 2)"),
    (lambda: onebit.algorithm1_full_observation(np.ones((4, 3)), np.ones((5, 2)), 1, 10, 1, 0),
     "X has 4 instances, Y 5"),
    (lambda: multilabel.one_vs_all_svm(np.ones((4, 3)), np.ones((6, 2)), 0),
     "one_vs_all_svm: X has 4 rows but Y has 6"),
    (lambda: multilabel.trace_norm_regression(np.ones((4, 3)), np.ones((6, 2))),
     "trace_norm_regression: X has 4 rows but Y has 6"),
    (lambda: multilabel.leml_full(np.ones((4, 3)), np.ones((6, 2)), 1, 0), "leml_full: X has 4 rows but Y has 6"),
    (lambda: list(multilabel.leml([(np.ones((2, 3)), np.array([0, 5]), np.ones(2))], 3, 1, np.ones((3, 1)))),
     "leml: batch 1: labels must be integer codes in 0..2"),
    (lambda: list(multilabel.leml([(np.ones((2, 3)), np.array([0, 1]), np.ones(3))], 3, 1, np.ones((3, 1)))),
     "leml: batch 1: labels (2,) and y (3,) must have X's 2 entries"),
    (lambda: dawid_skene(CODES[0], CODES[1] + 1, CODES[2], 2, 2, 2),
     "dawid_skene: worker codes must lie in 0..1, got 1..2"),
    (lambda: dawid_skene(CODES[0], CODES[1], CODES[2][:3], 2, 2, 2), "dawid_skene: label has 3 entries, item 4"),
    (lambda: dawid_skene(*CODES, 2, 2, 2, init=DawidSkeneModel(np.ones(2) / 2, np.ones((1, 2, 2)) / 2)),
     "dawid_skene: init must have priors (2,) and confusion (2, 2, 2), got (2,) and (1, 2, 2)"),
    (lambda: cooccurrences(CODES[0] - 1, *CODES[1:], 2, 2, 2), "cooccurrences: item codes must lie in 0..1, got -1..0"),
    (lambda: symnmf(np.ones((6, 2)), Q0=np.eye(3)),
     "symnmf: Q0 must have shape (K, K) = (2, 2) for U (6, 2), got (3, 3)"),
    (lambda: pipeline.robust_blocks(np.zeros((3, 3, 2, 2)), np.ones((4, 4))),
     "robust_blocks: S must have shape (M, M) = (3, 3), got (4, 4)"),
    (lambda: minimax_entropy.minimax_entropy(CODES[0], CODES[1], CODES[2] + 1, 2, 2, 2),
     "minimax_entropy: label codes must lie in 0..1, got 1..2"),
    (lambda: votes.kos(CODES[0], CODES[1][:2], CODES[2], 2, 2, 2), "kos: worker has 2 entries, item 4"),
    (lambda: votes.ghosh_svd(CODES[0] + 5, *CODES[1:], 2, 2, 2), "ghosh_svd: item codes must lie in 0..1, got 5..6"),
    (lambda: votes.eigen_ratio(CODES[0], CODES[1] - 2, CODES[2], 2, 2, 2),
     "eigen_ratio: worker codes must lie in 0..1, got -2..-1"),
    (lambda: votes.majority_vote(CODES[0], CODES[2] + 2, 2, 2), "vote_counts: label codes must lie in 0..1, got 2..3"),
    (lambda: spectral.spectral_model(CODES[0], CODES[1] + 1, CODES[2], 2, 2, 2),
     "spectral_model: worker codes must lie in 0..1, got 1..2"),
    (lambda: pipeline.plain_model(np.zeros((3, 3, 2, 2)), np.ones((3, 2))),
     "plain_model: S must have shape (M, M) = (3, 3), got (3, 2)"),
    (lambda: pipeline.designated_blocks(np.zeros((3, 3, 2, 3)), np.ones((3, 3))),
     "designated_blocks: R must have shape (M, M, K, K), got (3, 3, 2, 3)"),
    (lambda: pipeline.multispa_model(np.zeros((3, 3, 2, 2)), np.ones((2, 2))),
     "multispa_model: S must have shape (M, M) = (3, 3), got (2, 2)"),
    (lambda: FactorizationMachine(rank=1).fit(np.ones((3, 2)), np.ones(4)),
     "FactorizationMachine: X has 3 rows but y has 4 labels"),
    (lambda: pipeline.cnmf_model(np.zeros((3, 3, 2, 2)), np.ones((2, 2))),
     "cnmf_model: S must have shape (M, M) = (3, 3), got (2, 2)"),
]


@pytest.mark.parametrize("call, message", PAIRS, ids=lambda x: x if isinstance(x, str) else "")
def test_a_kernel_wrapper_refuses_arrays_whose_shapes_disagree(call, message):
    one_line_refusal(call, message)


@pytest.mark.parametrize("cls", [nmf_sol.AND, nmf_sol.MultiplicativeUpdate, nmf_sol.HALS, nmf_sol.ANLS, SklearnNMF],
                         ids=lambda c: c.__name__)
def test_nmf_estimators_refuse_a_starting_matrix_whose_shape_disagrees_with_x(topics, cls):
    X, A0 = topics
    one_line_refusal(lambda: cls(5, A0=A0[:-1]).fit(X),
                     f"{cls.__name__}: A0 must have shape (W, D) = (30, 5), got (29, 5)")


# ---- degenerate data: refused by estimators, warned by aggregate -------------------------------------------------

def _one_annotator(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame.worker == frame.worker.iloc[0]]


NO_SHARED_ITEM = ("no two of the 1 annotator(s) answered a common item, so there is no co-occurrence to learn from "
                  "(the posteriors come out uniform); aggregate by majority vote or Dawid-Skene EM")


@pytest.mark.parametrize("make", [lambda: ESTIMATORS["SymNMF"](), DesSymNMF, lambda: DesSymNMF(em=True), RobSymNMF,
                                  lambda: RobSymNMF(em=True, smoothing=0.01), lambda: RobSymNMF(weighted=False),
                                  lambda: ESTIMATORS["MultiSPA"](), lambda: ESTIMATORS["CNMF"](), KOS])
def test_cooccurrence_estimators_refuse_answers_of_one_annotator(frame, make):
    estimator = make()
    one_line_refusal(lambda: estimator.fit(_one_annotator(frame)), f"{type(estimator).__name__}: {NO_SHARED_ITEM}")


def test_spectral_ds_refuses_fewer_than_three_annotators(frame):
    two = frame[frame.worker.isin(frame.worker.unique()[:2])]
    one_line_refusal(lambda: SpectralDS().fit(two),
                     "SpectralDS: Spectral-D&S deals the annotators into 3 groups and needs at least 3, got 2 (the "
                     "posteriors come out uniform); aggregate by majority vote or Dawid-Skene EM")


@pytest.mark.parametrize("cls", [ESTIMATORS["MajorityVote"], DawidSkene])
def test_vote_based_estimators_still_follow_a_single_annotator(frame, cls):
    one = _one_annotator(frame)
    labels = cls().fit(one).labels_
    assert (labels.to_numpy() == one.set_index("task").loc[labels.index, "label"].to_numpy()).all()


@pytest.mark.parametrize("method", ["robsymnmf", "symnmf", "robsymnmf-em"])
def test_aggregate_warns_when_the_method_cannot_learn_from_one_annotator(frame, method):
    answers = crowd.from_frame(_one_annotator(frame))
    with pytest.warns(RuntimeWarning, match=exactly(f"method {method}: {NO_SHARED_ITEM}")):
        aggregate(answers, method)


def test_warnings_name_the_callers_line_whichever_path_raised_them(frame, topics):
    """A warning points at the user's call (the first frame outside simverify), by the function, by aggregate and
    by an estimator, not at a line inside the package."""
    from simverify.solvers.crowd.minimax_entropy import minimax_entropy as fit_minimax
    a = crowd.shipped("bluebird")
    codes = (a.item, a.worker, a.label, a.n_items, a.n_workers, a.n_classes)
    X, A0 = topics
    calls = {"function": lambda: fit_minimax(*codes, alpha=1e6, beta=1e6),
             "aggregate": lambda: aggregate(crowd.from_frame(_one_annotator(frame)), "robsymnmf"),
             "estimator": lambda: MinimaxEntropy(alpha=1e6, beta=1e6).fit(crowd.to_frame(a)),
             "nmf estimator": lambda: nmf_sol.AND(5, A0=A0, eta=1e6, n_stages=2, T=5).fit(X)}
    for path, call in calls.items():
        with pytest.warns(RuntimeWarning) as record:
            call()
        assert {w.filename for w in record} == {__file__}, (path, [(w.filename, w.lineno) for w in record])


def test_a_warning_from_an_interactive_cell_names_the_cell_even_run_from_the_package_folder(monkeypatch):
    """A notebook cell's code has a pseudo-file name ('<ipython-input-...>'), which abspath would place in the
    working folder: run from simverify's own folder it must still count as the user's."""
    import os
    monkeypatch.chdir(os.path.dirname(v.__file__))
    cell = compile("from simverify.validation import warn\nwarn('cell', 'said')\n", "<ipython-input-1-x>", "exec")
    with pytest.warns(RuntimeWarning, match="cell: said") as record:
        exec(cell, {})
    assert [(w.filename, w.lineno) for w in record] == [("<ipython-input-1-x>", 2)]


# ---- a step size that diverges is warned -------------------------------------------------------------------------

@pytest.mark.parametrize("batch, eta, bound", [(True, 1e6, "9.67"), (False, 50.0, "2.63")])
def test_and_warns_once_when_a_numeric_eta_makes_the_gradient_steps_diverge(topics, batch, eta, bound):
    X, A0 = topics
    mode = "lambda_max(Z Z^T / N)" if batch else "max ||z||^2"
    message = (f"AND: eta={eta!r} exceeds 2 / L = {bound} (L = {mode}) at stage 1, so the gradient steps diverge and "
               "A grows without bound; use eta='auto' or a smaller eta")
    with pytest.warns(RuntimeWarning, match=exactly(message)) as record:
        nmf_sol.AND(5, A0=A0, eta=eta, batch=batch, n_stages=3, T=5).fit(X)
    assert len([w for w in record if str(w.message).startswith("AND:")]) == 1


@pytest.mark.parametrize("batch", [True, False])
def test_and_with_the_auto_step_draws_no_warning_and_stays_finite(topics, batch):
    X, A0 = topics
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        est = nmf_sol.AND(5, A0=A0, batch=batch, n_stages=3, T=5).fit(X)
    assert np.all(np.isfinite(est.A_))


def test_slm_state_predict_still_accepts_its_own_feature_count():
    state, X = _lstate(), np.random.default_rng(3).standard_normal((5, 4))
    assert state.predict(X).shape == (5,)


def test_a_frame_mixing_label_kinds_is_refused_naming_the_estimator():
    import pandas as pd

    from simverify.solvers.crowd.estimators import MajorityVote
    frame = pd.DataFrame({"task": [1, 1, 2], "worker": [1, 2, 1], "label": [0, "x", 1]})
    message = "^MajorityVote: answers frame: labels must be of one sortable kind, got int, str$"
    with pytest.raises(ValueError, match=message):
        MajorityVote().fit_predict(frame)


@pytest.mark.parametrize("edit, message", [
    (lambda f: f.assign(task=[[t] for t in f["task"]]), r"answers frame row 0: list \[1\] as an id or label"),
    (lambda f: f.assign(label=[(v, v) for v in f["label"]]), r"answers frame row 0: tuple \(0, 0\) as an id or "),
    (lambda f: pd.concat([f, f[["label"]]], axis=1), r"answers frame has 'label' as the name of more than one"),
    (lambda f: pd.concat([f, f.iloc[[1]]], ignore_index=True),
     r"answers frame, row 3: worker 2 answered item 1 again \(first on row 1\)"),
])
def test_frames_of_unusable_shapes_are_refused_in_one_line_naming_the_row(edit, message):
    """Ids or labels that are lists or tuples, a column name given twice, a repeated answer: one line each, from the
    estimator, never a TypeError or AttributeError from inside."""
    from simverify.solvers.crowd.estimators import MajorityVote
    frame = edit(pd.DataFrame({"task": [1, 1, 2], "worker": [1, 2, 1], "label": [0, 1, 1]}))
    with pytest.raises(ValueError, match="^MajorityVote: " + message):
        MajorityVote().fit_predict(frame)


# ---- the stream family and the helpers the stream change touched ------------------------------------------------

STREAM_REFUSALS = [
    (lambda: streams.standard_normal(True, 5), "seed must be an integer >= 0, a SeedSequence or a non-empty"),
    (lambda: streams.standard_normal(1.5, 5), "seed must be an integer >= 0"),
    (lambda: streams.standard_normal((), 5), "seed must be an integer >= 0"),
    (lambda: streams.standard_normal(1, 1.5), "size must be an integer >= 0 or a tuple of them, got 1.5"),
    (lambda: streams.standard_normal(1, (2, -1)), "size must be an integer >= 0 or a tuple of them"),
    (lambda: streams.standard_normal(1, 10, chunk=0), "chunk must be an integer >= 1, got 0"),
    (lambda: streams.standard_normal(1, 10, chunk=-1), "chunk must be an integer >= 1, got -1"),
    (lambda: streams.stream_states(1, -1), "the number of streams must be an integer >= 0, got -1"),
    (lambda: shares_items([0, 1, 0], [5]), "shares_items: item (3,) and worker (1,) differ"),
    (lambda: shares_items([-1, -1], [0, 1]), "shares_items: item codes must be >= 0"),
    (lambda: shares_items([0.5, 0.9], [0, 1]), "shares_items: item must be a 1-D array of integer codes"),
    (lambda: shares_items([0, 10 ** 12], [0, 1]), "shares_items: item codes must be dense"),
    (lambda: onebit.full_observation_residual(np.zeros((0, 5)), np.zeros((0, 3)), np.zeros((5, 3)), 100, 1),
     "full_observation_residual: the labelled set is empty"),
]


@pytest.mark.parametrize("call, needle", STREAM_REFUSALS, ids=[n[:40] for _, n in STREAM_REFUSALS])
def test_streams_and_the_helpers_on_them_refuse_bad_input_in_one_line(call, needle):
    with pytest.raises(ValueError) as info:
        call()
    assert needle in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("seed", [2.5, True, -1, "x", [], None])
def test_aggregate_refuses_a_seed_that_is_not_a_root_seed_for_every_method(seed):
    from simverify.solvers.crowd.methods import METHODS
    a = crowd.shipped("bluebird")
    for method in METHODS:  # refused before the method runs, whatever it is
        one_line_refusal(lambda method=method: aggregate(a, method, seed=seed),
                         "aggregate: seed must be a seed (an integer >= 0, a SeedSequence or a list of integers >= "
                         f"0), got {seed!r}")


@pytest.mark.parametrize("make, needle", [
    (lambda A, X: nmf_sol.MultiplicativeUpdate(2, A0=A + 0.2, max_iter=5, eps=0.0).fit(np.where(
        np.arange(X.shape[1]) == 0, 0.0, X)), "MultiplicativeUpdate: a denominator A^T A Z + eps or A Z Z^T + eps"),
    (lambda A, X: nmf_sol.AND(2, A0=A + 0.2, threshold=lambda j, M: "x", n_stages=2).fit(X),
     "AND: the threshold schedule returned 'x' at stage 1; it must return a number"),
    (lambda A, X: nmf_sol.AND(2, A0=A + 0.2, threshold=lambda j, M: np.array([0.1]), n_stages=2).fit(X),
     "AND: the threshold schedule returned array([0.1]) at stage 1"),
    (lambda A, X: nmf_sol.AND(2, A0=A + 0.2).fit([[1, 2], [3]]), "X must be a real 2-d array: setting an array"),
    (lambda A, X: nmf_sol.AND(2, A0=A + 0.2, n_stages=3).fit(X * 1e160),
     "AND: the pseudo-inverse of stage 2's matrix did not converge (non-finite entries): rescale X"),
    (lambda A, X: nmf_sol.HALS(2, A0=-(A + 0.2), max_iter=3).fit(X),
     "HALS: A0 column 0 has no positive entry, so max(A0, 0) starts it at zero"),
], ids=["mu eps 0 on a zero column", "schedule gives text", "schedule gives an array", "ragged X", "huge X",
        "negative A0"])
def test_nmf_inputs_that_failed_inside_numba_or_numpy_are_refused_in_one_line(make, needle):
    from simverify.solvers.nmf_examples import example_factors
    A, _, X = example_factors()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError) as info:
            make(A, X)
    assert needle in str(info.value) and "\n" not in str(info.value)


def test_geometric_threshold_is_zero_past_the_stage_where_its_power_leaves_the_floats():
    """alpha = 0.1 / 1.1^(i - 1) overflowed (OverflowError) near stage 7450; past it alpha is 0."""
    assert nmf_sol.GeometricThreshold()(8000, None) == 0.0
    assert nmf_sol.GeometricThreshold()(3, None) == 0.1 / 1.1 ** 3
