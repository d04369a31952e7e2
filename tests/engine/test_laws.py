"""Laws on made-up Datasets whose truth is known: verdicts, intervals, bands, plan checks."""
import numpy as np
import pytest
import xarray as xr

from simverify import stats
from simverify.laws import (
    Bound,
    Comparison,
    Identity,
    LinearRate,
    MatchesPrinted,
    MatchesPrintedMean,
    PowerLaw,
    RatioBounded,
    SlopeRange,
)
from simverify.laws.base import DATA_SIZED
from simverify.stats import CONFIRMED, INCONCLUSIVE, REFUTED

LEVEL = 0.95


def solvers_dataset(seed=0, replicates=20, n=(10, 20)):
    """err([n,] solver, replicate): 'ours' is half of 'mv' and twice 'ds' (5 % lognormal noise)."""
    g = np.random.default_rng(seed)
    scale = np.array([2.0, 4.0, 1.0])[None, :, None]
    err = scale * np.exp(0.05 * g.standard_normal((max(len(n), 1), 3, replicates)))
    coords = {"solver": ["ours", "mv", "ds"]}
    if not n:
        return xr.Dataset({"err": (("solver", "replicate"), err[0])}, coords)
    return xr.Dataset({"err": (("n", "solver", "replicate"), err)}, {**coords, "n": list(n)})


def ours_against_mv_and_ds():
    return Comparison(lambda d: d["err"].sel(solver="ours", drop=True), lambda d: d["err"].sel(solver=["mv", "ds"]))


def test_comparison_with_several_baselines_refutes_when_ours_loses_to_the_second():
    res = ours_against_mv_and_ds().evaluate(solvers_dataset(n=()), LEVEL)
    assert [(c["solver"], c["verdict"]) for c in res.detail["cells"]] == [("mv", CONFIRMED), ("ds", REFUTED)]
    assert res.verdict == REFUTED and 1.8 < res.estimate < 2.2  # the deciding cell: ours / ds = 2


def test_comparison_with_several_baselines_has_a_cell_per_grid_point_and_baseline():
    cells = ours_against_mv_and_ds().evaluate(solvers_dataset(), LEVEL).detail["cells"]
    assert [(c["n"], c["solver"], c["verdict"]) for c in cells] == [
        (10, "mv", CONFIRMED), (10, "ds", REFUTED), (20, "mv", CONFIRMED), (20, "ds", REFUTED)]
    assert all(1.8 < c["ratio"] < 2.2 if c["solver"] == "ds" else 0.45 < c["ratio"] < 0.55 for c in cells)


def test_comparison_against_labels_cells_with_baseline_names_and_judges_each():
    law = Comparison.against("err", ours="ours", baselines=("mv", "ds"), dim="solver", relation="less")
    res = law.evaluate(solvers_dataset(), LEVEL)
    assert [c["solver"] for c in res.detail["cells"]] == ["mv", "ds", "mv", "ds"]
    assert [c["verdict"] for c in res.detail["cells"]] == [CONFIRMED, REFUTED, CONFIRMED, REFUTED]
    assert res.verdict == REFUTED
    assert "ours" in law.claimed() and "ds" in law.claimed()


def test_comparison_against_confirms_when_ours_beats_every_baseline():
    law = Comparison.against("err", ours="ds", baselines=("ours", "mv"), relation="less")
    assert law.evaluate(solvers_dataset(), LEVEL).verdict == CONFIRMED


def one_replicate_dataset():
    """One replicate of: y(x) = x^-1/2 and z = 2 y; e(iteration) = 0.5^t; hit = 1."""
    x, t = np.array([1.0, 2, 4, 8]), np.arange(10)
    return xr.Dataset({"y": (("x", "replicate"), x[:, None] ** -0.5), "z": (("x", "replicate"), 2 * x[:, None] ** -0.5),
                       "e": (("iteration", "replicate"), 0.5 ** t[:, None]), "hit": ((), 1.0)},
                      {"x": x, "iteration": t})


@pytest.mark.parametrize("law", [
    PowerLaw("y", "x", -0.5), RatioBounded("y", "x"), SlopeRange("y", "x", -1, 0), LinearRate("e", 0.6),
    Bound("y", 2.0), Bound(lambda d: d["hit"].expand_dims(replicate=1), 0.9, ">=", probability=True),
    Identity("y", lambda d: d["z"] / 2, atol=0.01), Comparison("y", "z", "less", 1.0)],
    ids=lambda law: law.kind)
def test_every_replicate_law_on_one_replicate_is_inconclusive_and_advises_two(law):
    res = law.evaluate(one_replicate_dataset(), LEVEL)
    assert res.verdict == INCONCLUSIVE
    assert res.advice == "one replicate gives no interval: use at least 2"
    assert law.min_replicates == 2


def test_replicates_to_decide_is_none_for_a_non_finite_interval():
    assert stats.replicates_to_decide(0.5, -np.inf, np.inf, 0.0, 1.0, 1) is None
    assert stats.replicates_to_decide(np.nan, 0.0, 1.0, 0.0, 1.0, 5) is None
    assert stats.replicates_to_decide(0.5, 0.0, 1.0, 0.75, np.inf, 4) == 4 * 2 ** 2 + 1  # half-width 2x the gap


def bound_dataset(seed=1):
    """lhs(c, replicate) ~ 1 +- 1 %; bound_var(c) = [2, 3]; ref_var(c) = [1, 1]."""
    g = np.random.default_rng(seed)
    return xr.Dataset({"lhs": (("c", "replicate"), 1 + 0.01 * g.standard_normal((2, 20))),
                       "bound_var": (("c",), [2.0, 3.0]), "ref_var": (("c",), [1.0, 1.0])}, {"c": [0, 1]})


def test_bound_reads_a_string_rhs_as_the_variable_of_that_name():
    ds = bound_dataset()
    res = Bound("lhs", "bound_var", "<=").evaluate(ds, LEVEL)
    assert res.verdict == CONFIRMED and [c["rhs"] for c in res.detail["cells"]] == [2.0, 3.0]
    assert Bound("lhs", "bound_var", ">=").evaluate(ds, LEVEL).verdict == REFUTED


def test_identity_reads_a_string_rhs_as_the_variable_of_that_name():
    res = Identity("lhs", "ref_var", atol=0.05).evaluate(bound_dataset(), LEVEL)
    assert res.verdict == CONFIRMED and [c["rhs"] for c in res.detail["cells"]] == [1.0, 1.0]


def test_numeric_rhs_of_numpy_type_is_a_constant():
    assert Bound("lhs", np.float64(2.0)).evaluate(bound_dataset(), LEVEL).verdict == CONFIRMED
    assert Identity("lhs", np.int64(1), atol=0.05).evaluate(bound_dataset(), LEVEL).verdict == CONFIRMED


@pytest.mark.parametrize("rhs", [True, np.bool_(False), [1.0], None])
@pytest.mark.parametrize("law", [Bound, Identity])
def test_rhs_neither_real_number_nor_name_nor_callable_is_a_type_error(law, rhs):
    with pytest.raises(TypeError, match="rhs"):
        law("lhs", rhs)


def test_band_is_the_claimed_band_on_the_headline_estimate_scale():
    g = np.random.default_rng(2)
    x, t = np.array([1.0, 2, 4, 8]), np.arange(20)
    ds = xr.Dataset({"y": (("x", "replicate"), x[:, None] ** -0.5 * np.exp(0.01 * g.standard_normal((4, 20)))),
                     "e": (("iteration", "replicate"), 0.5 ** t[:, None] * np.exp(0.01 * g.standard_normal((20, 20))))},
                    {"x": x, "iteration": t})
    assert PowerLaw("y", "x", -0.5, margin=0.1).evaluate(ds, LEVEL).band == pytest.approx((-0.6, -0.4))
    rate = LinearRate("e", 0.6, margin=0.01).evaluate(ds, LEVEL)
    assert rate.band == pytest.approx((0.0, 0.6 * np.exp(0.01)))
    assert rate.band[0] <= rate.ci[0] <= rate.ci[1] <= rate.band[1]
    assert Bound("y", 2.0, "<=", rtol=0.02).evaluate(ds, LEVEL).band == pytest.approx((-np.inf, 2.04))
    assert Bound("y", 0.1, ">=", rtol=0.02).evaluate(ds, LEVEL).band == pytest.approx((0.098, np.inf))
    varying = Bound("y", lambda d: 2.0 + 0 * d["x"], "<=", rtol=0.02).evaluate(ds, LEVEL)
    assert varying.band == pytest.approx((-np.inf, 1.02))  # a bound varying by cell: the ratio lhs/rhs
    assert Identity("y", lambda d: d["y"], atol=0.1).evaluate(ds, LEVEL).band == pytest.approx((-0.1, 0.1))
    assert Comparison("y", "y", "less", 1.1).evaluate(ds, LEVEL).band == pytest.approx((0.0, 1.1))
    assert Comparison("y", "y", "comparable", 1.5).evaluate(ds, LEVEL).band == pytest.approx((1 / 1.5, 1.5))


def test_power_law_plan_needs_two_axis_values_inside_the_window():
    law = PowerLaw("nmse", "m", -1.0, window=(2000, 1e9))
    with pytest.raises(ValueError, match=r"PowerLaw over 'm' needs at least 2 grid values inside window "
                                         r"\(2000, 1e\+09\); got \[1000, 4000\]"):
        law.check_plan({"m": [1000, 4000]})
    law.check_plan({"m": [1000, 2000, 4000]})
    with pytest.raises(ValueError, match="needs dim 'm'"):
        law.check_plan({"n": [1, 2]})
    with pytest.raises(ValueError, match="2 distinct grid values"):
        PowerLaw("nmse", "m", -1.0).check_plan({"m": [5, 5]})


def test_linear_rate_plan_needs_two_iterations():
    with pytest.raises(ValueError, match="LinearRate over 'iteration'"):
        LinearRate("err", 0.5).check_plan({"iteration": [0]})
    LinearRate("err", 0.5).check_plan({"iteration": [0, 1]})


def test_comparison_against_plan_needs_its_dim_and_every_label():
    law = Comparison.against("err", baselines=("mv", "ds"))
    law.check_plan({"solver": ["ours", "mv", "ds"], "n": [1]})
    with pytest.raises(ValueError, match="needs dim 'solver'"):
        law.check_plan({"n": [1]})
    with pytest.raises(ValueError, match=r"\['ds'\]"):
        law.check_plan({"solver": ["ours", "mv"]})


def test_item_resampling_plan_needs_two_items_and_quantities_by_name_are_not_checked():
    Bound("lhs", "bound_var").check_plan({})
    with pytest.raises(ValueError, match="needs dim 'item'"):
        Bound("lhs", 1.0, resample="item").check_plan({"c": [0]})
    with pytest.raises(ValueError, match="at least 2 items"):
        Comparison("a", "b", resample="item").check_plan({"item": [0]})


def test_an_item_dim_sized_by_the_data_is_accepted_at_plan_and_a_missing_one_is_not():
    Comparison("a", "b", resample="item").check_plan({"item": DATA_SIZED})  # a real data set decides its length
    with pytest.raises(ValueError, match="needs dim 'item'"):
        Comparison("a", "b", resample="item").check_plan({"aggregator": DATA_SIZED})


def geometric_dataset(rho, floor, seed, replicates=20, T=30, stop=None):
    """y(iteration, replicate) = floor + rho^t x lognormal(0.1); replicate r is NaN after stop[r]."""
    g = np.random.default_rng(seed)
    t = np.arange(T + 1)
    y = floor + rho ** t[:, None] * np.exp(0.1 * g.standard_normal((t.size, replicates)))
    for r, last in (stop or {}).items():
        y[last + 1:, r] = np.nan
    return xr.Dataset({"y": (("iteration", "replicate"), y)}, {"iteration": t})


def test_linear_rate_interval_covers_the_true_factor_in_most_of_40_seeds():
    covered = sum(lo <= 0.8 <= hi for lo, hi in
                  (LinearRate("y", 0.8, floor=0.1).evaluate(geometric_dataset(0.8, 0.1, s), LEVEL).ci
                   for s in range(40)))
    assert covered >= 32  # nominal 38 of 40


def test_linear_rate_confirms_a_larger_claimed_factor_and_refutes_a_clearly_smaller_one():
    ds = geometric_dataset(0.8, 0.1, seed=3)
    res = LinearRate("y", 0.8, floor=0.1).evaluate(ds, LEVEL)
    assert abs(res.estimate - 0.8) < 0.01 and res.ci[1] - res.ci[0] < 0.01  # SE of the factor ~ 0.0004
    assert LinearRate("y", 0.8, floor=0.1, margin=0.01).evaluate(ds, LEVEL).verdict == CONFIRMED
    assert LinearRate("y", 0.85, floor=0.1).evaluate(ds, LEVEL).verdict == CONFIRMED
    assert LinearRate("y", 0.7, floor=0.1).evaluate(ds, LEVEL).verdict == REFUTED


def test_linear_rate_fits_the_iterations_every_replicate_reached_when_some_stop_early():
    ds = geometric_dataset(0.8, 0.1, seed=4, stop={0: 12, 5: 20, 7: 12})
    res = LinearRate("y", 0.85, floor=0.1).evaluate(ds, LEVEL)
    assert res.verdict == CONFIRMED and abs(res.estimate - 0.8) < 0.01  # SE of the factor on t <= 12 ~ 0.0013
    assert LinearRate("y", 0.7, floor=0.1).evaluate(ds, LEVEL).verdict == REFUTED
    assert res.detail["ignored_points"] == 30 - 12  # iterations 13..30


def test_linear_rate_window_restricts_the_fit_to_those_iterations():
    t = np.arange(41)
    g = np.random.default_rng(5)
    y = (100 * 0.3 ** t + 0.5 * 0.8 ** t)[:, None] * np.exp(0.05 * g.standard_normal((41, 20)))
    ds = xr.Dataset({"y": (("iteration", "replicate"), y)}, {"iteration": t})
    whole = LinearRate("y", 0.8).evaluate(ds, LEVEL)
    late = LinearRate("y", 0.8, window=(15, 40)).evaluate(ds, LEVEL)
    assert abs(whole.estimate - 0.754) < 0.01  # noise-free fit over t = 0..40; the transient pulls it down
    assert abs(late.estimate - 0.8) < 0.01 and late.verdict == CONFIRMED  # the transient is < 1e-4 of y at t = 15


def printed_dataset(value):
    return xr.Dataset({"acc": (("replicate",), [value])})


def test_matches_printed_confirms_a_value_that_rounds_to_the_printed_digits():
    res = MatchesPrinted("acc", 0.823, 3).evaluate(printed_dataset(0.8234), LEVEL)
    assert res.verdict == CONFIRMED
    assert res.estimate == 0.8234 and res.ci == (0.8234, 0.8234)
    assert res.band == pytest.approx((0.8225, 0.8235))
    assert MatchesPrinted("acc", 0.823, 3).min_replicates == 1


def test_matches_printed_refutes_a_value_that_rounds_otherwise():
    assert MatchesPrinted("acc", 0.824, 3).evaluate(printed_dataset(0.8234), LEVEL).verdict == REFUTED
    assert MatchesPrinted("acc", 82.3, 1).evaluate(printed_dataset(82.36), LEVEL).verdict == REFUTED


def test_matches_printed_truncated_accepts_the_cut_digits_and_refutes_the_rounded_ones():
    law = MatchesPrinted("acc", 7.12, 2, truncated=True)  # 57/800 = 7.125 %, printed 7.12 by a paper that truncates
    assert law.evaluate(printed_dataset(57 / 800 * 100), LEVEL).verdict == CONFIRMED
    assert law.evaluate(printed_dataset(7.12), LEVEL).verdict == CONFIRMED
    assert law.evaluate(printed_dataset(7.1199), LEVEL).verdict == REFUTED
    assert law.evaluate(printed_dataset(7.13), LEVEL).verdict == REFUTED
    assert law.evaluate(printed_dataset(7.129), LEVEL).verdict == CONFIRMED  # 7.129 is cut to 7.12
    assert MatchesPrinted("acc", 7.12, 2).evaluate(printed_dataset(7.129), LEVEL).verdict == REFUTED  # rounds to 7.13
    assert "truncates" in law.claimed()


def test_matches_printed_on_a_non_finite_value_is_inconclusive():
    assert MatchesPrinted("acc", 0.8, 1).evaluate(printed_dataset(np.nan), LEVEL).verdict == INCONCLUSIVE


def items_dataset(seed=6, items=2000):
    """Per-item label errors on one fixed data set (one replicate): ours errs on 10 %, base on 20 %."""
    u = np.random.default_rng(seed).random(items)
    return xr.Dataset({"err_ours": (("item", "replicate"), (u < 0.1)[:, None] * 1.0),
                       "err_base": (("item", "replicate"), (u < 0.2)[:, None] * 1.0)}, {"item": np.arange(items)})


def test_item_bootstrap_comparison_decides_on_one_replicate_of_fixed_data():
    ds = items_dataset()
    less = Comparison("err_ours", "err_base", "less", resample="item")
    assert less.min_replicates == 1
    res = less.evaluate(ds, LEVEL)
    assert res.verdict == CONFIRMED and 0.4 < res.estimate < 0.6 and res.ci[1] < 1
    assert Comparison("err_ours", "err_base", "greater", resample="item").evaluate(ds, LEVEL).verdict == REFUTED
    assert Comparison("err_ours", "err_base", "less").evaluate(ds, LEVEL).verdict != CONFIRMED  # per replicate


def test_item_bootstrap_bound_and_identity_judge_the_error_rate_over_items():
    ds = items_dataset()
    assert Bound("err_ours", 0.15, resample="item").evaluate(ds, LEVEL).verdict == CONFIRMED
    assert Bound("err_ours", 0.05, resample="item").evaluate(ds, LEVEL).verdict == REFUTED
    assert Bound("err_ours", 0.15, probability=True, resample="item").evaluate(ds, LEVEL).verdict == CONFIRMED
    res = Identity("err_ours", 0.1, atol=0.04, resample="item").evaluate(ds, LEVEL)
    assert res.verdict == CONFIRMED and res.ci[0] < res.estimate < res.ci[1]


def test_unknown_resample_dim_is_rejected():
    with pytest.raises(ValueError, match="resample"):
        Comparison("a", "b", resample="sensor")


def test_check_needs_refuses_a_plan_without_a_label_a_quantity_selects():
    from simverify.laws import Bound, check_needs, needing
    law = Bound(needing(lambda ds: ds["error"].sel(aggregator="mv"), aggregator="mv"), 1.0, "<=")
    check_needs(law, {"aggregator": ["mv", "robsymnmf"], "replicate": [0, 1]})  # planned: accepted
    with pytest.raises(ValueError, match=r"aggregator \['mv'\] not in the planned aggregator \['robsymnmf'\]"):
        check_needs(law, {"aggregator": ["robsymnmf"], "replicate": [0, 1]})
    with pytest.raises(ValueError, match="needs dim 'aggregator'"):
        check_needs(law, {"replicate": [0, 1]})


def test_frequency_bound_is_headlined_as_the_frequency_against_its_threshold():
    ds = xr.Dataset({"ahead": (("phi", "replicate"), np.array([[1.0] * 8 + [0.0] * 32, [1.0] * 36 + [0.0] * 4]))},
                    {"phi": [0.7, 0.3]})
    res = Bound("ahead", 0.5, ">=", probability=True).evaluate(ds, LEVEL)
    assert res.verdict == "REFUTED" and res.estimate == pytest.approx(0.2)
    assert res.ci[0] < 0.2 < res.ci[1] < 0.5 and res.band == (0.5, np.inf)
    assert res.claimed == "the frequency >= 0.5 at every grid point"


def test_bound_of_zero_is_headlined_on_the_lhs_scale_and_says_so():
    ds = xr.Dataset({"log_ratio": (("replicate",), np.full(10, -2.0) + np.linspace(-0.1, 0.1, 10))})
    res = Bound("log_ratio", 0.0).evaluate(ds, LEVEL)
    assert res.estimate == pytest.approx(-2.0) and res.band == (-np.inf, 0.0)
    assert res.claimed == "log_ratio <= 0 at every grid point"


def test_matches_printed_mean_confirms_within_the_spread_of_the_printed_mean_and_refutes_beyond():
    law = MatchesPrintedMean("acc", 22.1, 2, spread=1.0)  # a mean over random trials, +- two printed sds
    assert law.band() == (21.1, 23.1)
    assert law.evaluate(printed_dataset(22.2), LEVEL).verdict == CONFIRMED
    assert law.evaluate(printed_dataset(23.05), LEVEL).verdict == CONFIRMED
    assert law.evaluate(printed_dataset(23.2), LEVEL).verdict == REFUTED
    assert law.evaluate(printed_dataset(38.6), LEVEL).verdict == REFUTED
    assert "within 1 of the printed mean 22.10" in law.claimed()
