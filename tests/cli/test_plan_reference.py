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
    own = table({"a": {f"k{i}": 2.0 * (i + 1) for i in range(6)} | {"tiny": 0.01}, "b": {"x": 9.0}})
    ref = table({"a": {f"k{i}": float(i + 1) for i in range(5)} | {"k5": 1.0, "tiny": 0.001}, "c": {"x": 1.0}})
    factor, cells = timings.host_factor(own, ref)  # ratios 2, 2, 2, 2, 2, 12; "tiny" under the floor, "b"/"c" unshared
    assert (factor, cells) == (2.0, 6)


def test_host_factor_is_none_with_fewer_cells_than_the_minimum():
    own = table({"a": {f"k{i}": 1.0 for i in range(timings.HOST_FACTOR_CELLS - 1)}})
    assert timings.host_factor(own, own) == (None, timings.HOST_FACTOR_CELLS - 1)
    assert timings.host_factor({}, own) == (None, 0)


def test_timings_text_reads_back_as_the_same_timings():
    t = {"a": {"k1": (1.5, None, None), "k2": (2.0, 3.0, "basis:1")}}
    assert json.loads(timings.timings_text(t)) == {"a": {"k1": 1.5, "k2": {"seconds": 2.0, "work": 3.0,
                                                                         "basis": "basis:1"}}}


def test_checkout_reports_finds_the_packages_checkout_then_the_current_directory(tmp_path):
    clone = tmp_path / "clone"
    (clone / "simverify").mkdir(parents=True)
    (clone / "simverify" / "__init__.py").write_text("")
    (clone / "reports").mkdir()
    elsewhere = tmp_path / "site-packages" / "simverify"
    elsewhere.mkdir(parents=True)
    assert timings.checkout_reports(clone / "simverify", tmp_path) == clone / "reports"  # an editable install
    assert timings.checkout_reports(elsewhere, clone) == clone / "reports"  # pip install . run inside the clone
    assert timings.checkout_reports(elsewhere, tmp_path) is None


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
    monkeypatch.setattr(check, "checkout_reference", lambda: reference)
    code, out, _ = main(capsys, "check", "toy.power", "--tier", "full", "--plan", "--json", "--store", str(store))
    data = json.loads(out)
    total = data["total"]
    assert code == 0 and (total["host_factor"], total["host_factor_cells"]) == (0.25, 5)
    assert data["claims"][0]["basis"] == "mixed"  # its quick cells measured, the others from the reference
    assert total["reference_s"] == pytest.approx(100.0 * 0.25 * sum(full_only.values()))
    assert total["estimated_tasks"] == total["to_compute"]  # measured or from the reference: limits can be set
    code, out, _ = main(capsys, "check", "toy.power", "--tier", "full", "--plan", "--store", str(store))
    line = next(x for x in out.splitlines() if x.startswith("plan: "))
    assert "from the reference run (x 0.25, this host against the reference's over 5 cells)" in line


def test_the_stores_own_timing_wins_over_the_reference_and_without_a_factor_the_reference_time_stands(
        tmp_path, capsys, monkeypatch):
    own = _timed_toy_power(capsys, tmp_path / "s")["toy.power"]
    reference = {"toy.power": {k: (1000.0, None, None) for k in own}}  # too few cells above the floor: no factor
    monkeypatch.setattr(check, "checkout_reference", lambda: reference)
    code, out, _ = main(capsys, "check", "toy.power", "--seed", "7", "--plan", "--json", "--store",
                        str(tmp_path / "s"))
    row = json.loads(out)["claims"][0]
    assert code == 0 and row["basis"] == "measured" and row["seconds"] < 1000.0
    monkeypatch.setattr(check, "checkout_reference", lambda: {"toy.power": {k: (2.0, None, None) for k in own}})
    code, out, _ = main(capsys, "check", "toy.power", "--plan", "--json", "--store", str(tmp_path / "empty"))
    data = json.loads(out)
    assert data["claims"][0]["basis"] == "reference" and data["total"]["host_factor"] is None
    assert data["total"]["reference_s"] == pytest.approx(2.0 * data["total"]["to_compute"])
    code, out, _ = main(capsys, "check", "toy.power", "--plan", "--store", str(tmp_path / "empty"))
    assert "as measured there: 0 cells timed on both hosts, too few for a host factor; run the quick tier first" in out
    assert "(the reference run's time x this host's factor)" in out
