"""A first run's plan priced by a reference run's timings (reports/<tier>/timings.json) times this host's factor."""
import json

import pytest

from simverify import timings
from simverify.cli import check, plan
from simverify.cli import main as cli_main


def main(capsys, *args) -> tuple[int, str, str]:
    code = cli_main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def table(seconds: dict[str, dict[str, float]]) -> timings.Timings:
    return {name: {k: (s, None, None) for k, s in t.items()} for name, t in seconds.items()}


def test_host_factor_is_the_median_ratio_over_cells_both_hosts_timed_above_the_floor():
    own = table({"a": {f"k{i}": 2.0 * (i + 1) for i in range(6)} | {"tiny": 0.01, "fast_here": 0.04},
                 "b": {"x": 9.0}})
    ref = table({"a": {f"k{i}": float(i + 1) for i in range(5)} | {"k5": 1.0, "tiny": 0.001, "fast_here": 10.0},
                 "c": {"x": 1.0}})
    factor, cells = timings.host_factor(own, ref)  # ratios 2, 2, 2, 2, 2, 12; "tiny" under the floor on both hosts,
    assert (factor, cells) == (2.0, 6)  # "fast_here" on one (its 0.004 would pull the median), "b"/"c" unshared


def test_host_factor_is_none_with_fewer_cells_than_the_minimum():
    own = table({"a": {f"k{i}": 1.0 for i in range(timings.HOST_FACTOR_CELLS - 1)}})
    assert timings.host_factor(own, own) == (None, timings.HOST_FACTOR_CELLS - 1)
    assert timings.host_factor({}, own) == (None, 0)


def test_a_host_factor_past_the_plausible_range_is_none():
    ref = table({"a": {f"k{i}": 1.0 for i in range(5)}})
    for seconds, factor in ((0.5, 0.5), (200.0, None), (99.0, 99.0)):
        assert timings.host_factor(table({"a": {f"k{i}": seconds for i in range(5)}}), ref) == (factor, 5)
    assert timings.host_factor(table({"a": {f"k{i}": 1.0 for i in range(5)}}), table(
        {"a": {f"k{i}": 200.0 for i in range(5)}})) == (None, 5)  # 1/200: under the range


def test_timings_text_reads_back_as_the_same_timings(tmp_path):
    t = {"a": {"k1": (1.5, None, None), "k2": (2.0, 3.0, "basis:1")}}
    (tmp_path / timings.TIMINGS).write_text(timings.timings_text(t))
    assert timings.read_timings_file(tmp_path / timings.TIMINGS) == t
    assert json.loads(timings.timings_text(t)) == {"a": {"k1": 1.5, "k2": {"seconds": 2.0, "work": 3.0,
                                                                         "basis": "basis:1"}}}


def test_checkout_reports_finds_the_packages_checkout_then_the_current_directory_with_reference_timings(tmp_path):
    tiers = ("quick", "full")
    clone = tmp_path / "clone"
    (clone / "simverify").mkdir(parents=True)
    (clone / "simverify" / "__init__.py").write_text("")
    (clone / "reports" / "full").mkdir(parents=True)
    elsewhere = tmp_path / "site-packages" / "simverify"
    (elsewhere.parent / "reports").mkdir(parents=True)  # a reports/ beside the package, without timings
    elsewhere.mkdir()
    (elsewhere / "__init__.py").write_text("")
    assert timings.checkout_reports(clone / "simverify", tmp_path, tiers) is None  # no timings.json yet
    (clone / "reports" / "full" / timings.TIMINGS).write_text("{}")
    assert timings.checkout_reports(clone / "simverify", tmp_path, tiers) == clone / "reports"  # an editable install
    assert timings.checkout_reports(elsewhere, clone, tiers) == clone / "reports"  # pip install . run in the clone
    assert timings.checkout_reports(elsewhere, tmp_path, tiers) is None
    assert timings.checkout_reports(elsewhere, clone, ("quick",)) is None


def test_reference_timings_merge_the_tiers_the_last_given_winning_where_both_time_a_cell(tmp_path):
    for tier, seconds in (("quick", 1.0), ("full", 2.0)):
        (tmp_path / tier).mkdir()
        (tmp_path / tier / timings.TIMINGS).write_text(timings.timings_text(table(
            {"s": {"shared": seconds, tier: seconds}})))
    got = timings.reference_timings(tmp_path, ("full", "quick"))
    assert {k: v[0] for k, v in got["s"].items()} == {"shared": 1.0, "quick": 1.0, "full": 2.0}
    assert timings.reference_timings(None, ("quick",)) == {}


def test_an_estimate_too_large_for_a_default_limit_says_so_not_that_cells_lack_estimates(tmp_path, capsys,
                                                                                        monkeypatch):
    store = tmp_path / "s"
    own = _timed_toy_power(capsys, store)
    own["other.sweep"] = {f"k{i}": (1.0, None, None) for i in range(5)}
    (store / timings.TIMINGS).write_text(timings.timings_text(own))
    full_only = [k for k in _tasks_by_cell("toy.power", "full") if k not in own["toy.power"]]
    reference = {"other.sweep": own["other.sweep"], "toy.power": {k: (5e8, None, None) for k in full_only}}
    monkeypatch.setattr(check, "reference_run_timings", lambda tier: reference)
    code, out, _ = main(capsys, "check", "toy.power", "--tier", "full", "--plan", "--store", str(store))
    assert code == 0 and "per-cell limits: no time limit (10x the largest estimate is past 1e+09 s; set --cell-time)" \
        in out


def _timed_toy_power(capsys, store) -> timings.Timings:
    """toy.power at its quick tier into ``store``: its timings."""
    assert main(capsys, "check", "toy.power", "--scheduler", "serial", "--store", str(store))[0] == 0
    return timings.read_timings_file(store / timings.TIMINGS)


def _tasks_by_cell(claim_id: str, tier: str) -> dict[str, int]:
    """Cell key -> distinct tasks (replicates) of the claim's plan at ``tier``."""
    from simverify import registry, runner
    tasks = {t.key: plan._params_key(t) for p in runner.plan_all([registry.get(claim_id)], tier, root_seed=0)
             for t in p.tasks}
    return {k: list(tasks.values()).count(k) for k in set(tasks.values())}


def test_plan_prices_cells_the_store_never_ran_by_the_reference_times_this_hosts_factor(tmp_path, capsys,
                                                                                      monkeypatch):
    store = tmp_path / "s"
    own = _timed_toy_power(capsys, store)
    full_only = {k: n for k, n in _tasks_by_cell("toy.power", "full").items() if k not in own["toy.power"]}
    assert full_only  # the full tier has cells the quick run never timed
    # five cells of another sweep timed on both hosts, each 4x slower on the reference's: this host's factor 1/4
    own["other.sweep"] = {f"k{i}": (1.0, None, None) for i in range(5)}
    (store / timings.TIMINGS).write_text(timings.timings_text(own))
    reference = {"other.sweep": {f"k{i}": (4.0, None, None) for i in range(5)},
                 "toy.power": {k: (100.0, None, None) for k in full_only}}
    monkeypatch.setattr(check, "reference_run_timings", lambda tier: reference)
    code, out, _ = main(capsys, "check", "toy.power", "--tier", "full", "--plan", "--json", "--store", str(store))
    data = json.loads(out)
    total = data["total"]
    assert code == 0 and (total["host_factor"], total["host_factor_cells"]) == (0.25, 5)
    assert data["claims"][0]["basis"] == "mixed"  # its quick cells measured, the others from the reference
    assert total["reference_s"] == pytest.approx(100.0 * 0.25 * sum(full_only.values()))
    assert total["estimated_tasks"] == total["to_compute"]  # measured or from the reference, with a host factor
    code, out, _ = main(capsys, "check", "toy.power", "--tier", "full", "--plan", "--store", str(store))
    assert "per-cell limits: 600 s of compute (10x the largest estimate of one cell" in out  # 25 s the largest
    line = next(x for x in out.splitlines() if x.startswith("plan: "))
    assert "from the reference run (x 0.25, this host against the reference's over 5 cells)" in line


def test_the_stores_own_timing_wins_and_without_a_factor_the_reference_time_stands_but_sets_no_limit(
        tmp_path, capsys, monkeypatch):
    own = _timed_toy_power(capsys, tmp_path / "s")["toy.power"]
    reference = {"toy.power": {k: (1000.0, None, None) for k in own}}  # too few cells above the floor: no factor
    monkeypatch.setattr(check, "reference_run_timings", lambda tier: reference)
    code, out, _ = main(capsys, "check", "toy.power", "--seed", "7", "--plan", "--json", "--store",
                        str(tmp_path / "s"))
    row = json.loads(out)["claims"][0]
    assert code == 0 and row["basis"] == "measured" and row["seconds"] < 1000.0
    monkeypatch.setattr(check, "reference_run_timings", lambda tier: {"toy.power": {k: (2.0, None, None) for k in own}})
    code, out, _ = main(capsys, "check", "toy.power", "--plan", "--json", "--store", str(tmp_path / "empty"))
    data = json.loads(out)
    assert data["claims"][0]["basis"] == "reference" and data["total"]["host_factor"] is None
    assert data["total"]["reference_s"] == pytest.approx(2.0 * data["total"]["to_compute"])
    assert data["total"]["estimated_tasks"] == 0  # without a host factor, no time limit from the reference's times
    code, out, _ = main(capsys, "check", "toy.power", "--plan", "--store", str(tmp_path / "empty"))
    assert "as measured there: no host factor from 0 cells timed on both hosts (fewer than 5" in out
    assert "run the quick tier first" not in out  # planning the quick tier itself
    assert "(the reference run's time x this host's factor)" in out and "per-cell limits: no time limit" in out
    code, out, _ = main(capsys, "check", "toy.power", "--tier", "full", "--plan", "--store", str(tmp_path / "empty"))
    assert "or a ratio past 0.01-100); run the quick tier first" in out
