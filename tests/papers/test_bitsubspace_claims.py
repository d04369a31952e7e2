"""Chi (2018), subspace learning from bits (paper key ``bitsubspace``): the cheapest claim and its controls checked for
real and the facts behind its claims. Every claim's plans at both tiers and its controls are checked in
test_paper_contract.py; the whole quick tier, judged together as ``simverify check --paper bitsubspace`` does, in
test_paper_claims.py."""
import pytest

from simverify import registry, sweep

PAPER = "bitsubspace"
CHEAPEST = "bitsubspace.theorem1.bound_kappa"  # about 1 s with its control, serial


@pytest.mark.slow
def test_cheapest_claim_and_its_controls_reach_their_expected_verdicts(check_with_controls):
    check_with_controls(CHEAPEST)


def test_first_settled_and_censoring():
    from theorems.bitsubspace.measures import first_settled
    cps = [10, 20, 40, 80]
    assert first_settled([True, True, True, True], cps, 160) == 10
    assert first_settled([True, False, True, True], cps, 160) == 40
    assert first_settled([True, True, True, False], cps, 160) == 160


def test_figure6_settings_close_pair_is_one_rayleigh_limit_and_orthogonal():
    """The fact behind the separation finding: atoms 1/n apart are orthogonal, so (b) and (c)
    have the same covariance eigenvalues."""
    import numpy as np

    from simverify.generators import bitsubspace as gen
    from theorems.bitsubspace.measures import line_spectrum
    n = 40
    fb, pb = line_spectrum("b", n)
    fc, pc = line_spectrum("c", n)
    assert np.isclose(fb[1] - fb[0], 1 / n)
    eig = [np.linalg.svd(gen.line_spectrum_factor(n, f, p), compute_uv=False) ** 2 for f, p in ((fb, pb), (fc, pc))]
    assert np.allclose(eig[0], eig[1]) and np.allclose(np.sort(eig[0]), [0.2 * n, n, n])
    with pytest.raises(ValueError, match="setting"):
        line_spectrum("z", n)


def test_measure_online_starts_both_cold_trackers_from_the_same_subspace(monkeypatch):
    """The as-printed and corrected trackers are paired: both cold starts begin from one initial subspace."""
    import numpy as np

    from simverify.solvers import bitsubspace as sol
    from theorems.bitsubspace import measures
    starts = []

    class Recording(sol.OnlineSubspaceTracker):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            starts.append((kwargs.get("warm_start", 0), self.U_.copy()))

    monkeypatch.setattr(measures.sol, "OnlineSubspaceTracker", Recording)
    measures.measure_online(np.random.SeedSequence(1), n=8, r=2, m=[300], warm_start=100)
    cold = [U for warm, U in starts if warm == 0]
    assert len(cold) == 2 and np.array_equal(cold[0], cold[1])


def test_measure_online_warm_tracker_is_nan_before_its_warm_start_and_finite_after():
    import numpy as np

    from theorems.bitsubspace.measures import measure_online
    out = measure_online(np.random.SeedSequence(2), n=8, r=2, m=[50, 300], warm_start=100)
    assert np.isnan(out["nmse_online_warm"][0]) and np.isfinite(out["nmse_online_warm"][1])


@pytest.mark.parametrize("claim_id,overrides,needle", [
    ("bitsubspace.figure6.resolves", {"r_est": 50}, "r_est=50 exceeds"),
    ("bitsubspace.figure6.resolves", {"setting": ["z"]}, "setting must be one of"),
    ("bitsubspace.theorem2.all_bits", {"rule": "foo"}, "rule must be one of"),
    ("bitsubspace.theorem2.all_bits", {"c": -1.0}, r"parameter c must be a finite number in \(0, inf\), got -1.0"),
    ("bitsubspace.section5.warm_start", {"warm_start": -3}, "warm_start must be"),
    ("bitsubspace.section5.warm_start", {"m": [500, 800]}, "warm_start must be"),
    ("bitsubspace.figure5.online_corrected", {"m": [64000, 32000]}, "strictly increasing"),
    ("bitsubspace.proposition1.rate_T", {"effrank": [-2.0, 4.0]}, "effective rank"),
])
def test_paper_parameters_outside_the_model_are_refused_when_planned(claim_id, overrides, needle):
    """Values a measure would reject mid-run are refused by the paper's validation at plan time."""
    with pytest.raises(ValueError, match=needle):
        sweep.plan(registry.get(claim_id), "quick", overrides=overrides)
