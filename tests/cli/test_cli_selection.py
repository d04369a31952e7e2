"""Selecting and stopping runs from the command line: -k, -x, --lf, --plan, --report and --controls."""
import json

import pytest

from simverify import registry, runner
from simverify.cli import keyword_matcher
from simverify.cli import main as cli_main
from simverify.executors import SerialExecutor
from simverify.store import Store

# --- selection, -x, --lf, --plan, --report, controls ------------------------------------------------

def main(capsys, *args) -> tuple[int, str, str]:
    """The command line in this process: (exit status, stdout, stderr)."""
    code = cli_main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("expr,ids", [
    ("power", {"toy.power", "toy.power~wrong_exponent"}),
    ("POWER and not wrong", {"toy.power"}),
    ("toy and (slow or border) and not ~", {"toy.slow", "toy.borderline"}),
    ("not not tight", {"toy.slow~tight"})])
def test_k_expression_matches_substrings_of_ids_with_not_and_or_parentheses(expr, ids):
    match = keyword_matcher(expr)
    toy = [c.id for c in registry.all_claims("toy")]
    assert {i for i in toy if match(i)} == ids


@pytest.mark.parametrize("expr", ["", "power and", "(power", "power)", "power slow", "and power"])
def test_malformed_k_expression_is_refused_in_one_line_before_any_work(check_refused_at_plan, tmp_path, expr):
    check_refused_at_plan(["-k", expr], "-k")


def test_k_matching_nothing_is_refused_in_one_line_and_writes_nothing(check_refused_at_plan, tmp_path):
    check_refused_at_plan(["--paper", "toy", "-k", "no-such-claim"], "-k 'no-such-claim' matches no claim id")


def test_k_alone_selects_among_all_claims_and_list_takes_it_too(tmp_path, capsys):
    code, out, _ = main(capsys, "check", "-k", "toy.power and not wrong", "--json", "--scheduler", "serial",
                        "--store", str(tmp_path / "s"))
    assert code == 0 and [r["id"] for r in json.loads(out)] == ["toy.power"]
    code, out, _ = main(capsys, "list", "-k", "toy.slow", "--json")
    assert code == 0 and [r["id"] for r in json.loads(out)] == ["toy.slow", "toy.slow~tight"]


def test_exitfirst_stops_at_the_first_unexpected_check_runs_nothing_after_and_exits_1(tmp_path, capsys):
    """toy.borderline (INCONCLUSIVE at seed 0, expected CONFIRMED) completes first; toy.slow's cells never run."""
    store = tmp_path / "s"
    code, out, _ = main(capsys, "check", "toy.borderline", "toy.slow", "-x", "--scheduler", "serial",
                        "--store", str(store))
    assert code == 1
    assert out.splitlines()[-1].startswith("0 as expected, 1 not as expected; stopped at the first not as "
                                           "expected (-x), 1 not run")
    assert sorted(p.name for p in (store / "results").iterdir()) == ["toy.borderline"]
    assert len(list(store.rglob("cells/*/*.npz"))) == 16  # toy.borderline's 4 x 4, none of toy.slow's


def test_last_failed_reruns_only_the_checks_not_as_expected_last_time_and_says_so(tmp_path, capsys):
    store = str(tmp_path / "s")
    code, _, err = main(capsys, "check", "--lf", "-k", "power or border", "--no-controls", "--scheduler", "serial",
                        "--store", store)
    assert code == 1 and "none of the 2 selected checks was not as expected when last run" in err
    assert json.loads((tmp_path / "s" / "lastfailed.json").read_text()) == {"quick": ["toy.borderline"]}
    code, out, err = main(capsys, "check", "--lf", "-k", "power or border", "--no-controls", "--json",
                          "--scheduler", "serial", "--store", store)
    assert [r["id"] for r in json.loads(out)] == ["toy.borderline"]
    assert "running the 1 of 2 selected checks not as expected when last run at tier quick" in err
    # alone it has the whole error budget, a narrower interval: as expected now, it leaves the list
    assert code == 0 and json.loads((tmp_path / "s" / "lastfailed.json").read_text()) == {"quick": []}


def test_plan_lists_checks_cells_and_cost_writes_nothing_and_exits_0(tmp_path, capsys):
    store = tmp_path / "s"
    code, out, _ = main(capsys, "check", "toy.power", "toy.slow", "--plan", "--store", str(store))
    assert code == 0 and not store.exists()
    rows = [x for x in out.splitlines() if x.startswith("toy.")]
    assert [x.split()[0] for x in rows] == ["toy.power", "toy.slow"]
    assert "4 cells x 8" in rows[0] and "12 cells x 2" in rows[1] and all("unknown" in x for x in rows)
    assert "56 to compute" in out and out.splitlines()[-1] == "nothing was run or written (--plan)"


def test_plan_estimates_from_the_stores_timings_of_the_same_cells_and_counts_stored_cells(tmp_path, capsys):
    store = tmp_path / "s"
    assert main(capsys, "check", "toy.power", "--scheduler", "serial", "--store", str(store))[0] == 0
    before = sorted(p.relative_to(store) for p in store.rglob("*"))
    code, out, _ = main(capsys, "check", "toy.power", "--plan", "--json", "--store", str(store))
    assert code == 0 and json.loads(out)["claims"][0]["stored"] == 32
    code, out, _ = main(capsys, "check", "toy.power", "--seed", "7", "--plan", "--json", "--store", str(store))
    row = json.loads(out)["claims"][0]  # another seed: new cells, same parameters, so measured times
    assert (row["stored"], row["to_compute"], row["basis"], row["unknown_tasks"]) == (0, 32, "measured", 0)
    assert row["seconds"] > 0
    code, out, _ = main(capsys, "check", "toy.power", "--tier", "full", "--plan", "--json", "--store", str(store))
    row = json.loads(out)["claims"][0]  # full tier: x = 16 has no timing, the sweep's mean stands in
    assert (row["stored"], row["to_compute"], row["basis"]) == (32, 48, "mixed")
    assert sorted(p.relative_to(store) for p in store.rglob("*")) == before


def test_plan_with_crude_estimates_warns_they_can_be_far_too_low_and_one_without_does_not(tmp_path, capsys):
    store = tmp_path / "s"
    assert main(capsys, "check", "toy.power", "--scheduler", "serial", "--store", str(store))[0] == 0
    warning = "note: crude estimates price a cell at other cells' times"
    code, out, _ = main(capsys, "check", "toy.power", "--tier", "full", "--plan", "--store", str(store))
    lines = out.splitlines()
    total = next(i for i, x in enumerate(lines) if x.startswith("plan: "))
    assert code == 0 and " crude" in lines[total] and lines[total + 1].startswith(warning)
    code, out, _ = main(capsys, "check", "toy.power", "--seed", "7", "--plan", "--store", str(store))
    assert code == 0 and " crude" not in out and warning not in out


def test_plan_scales_timed_cells_by_the_declared_work_to_price_cells_never_timed(tmp_path, capsys):
    store = tmp_path / "s"  # toy.slow declares work = its sleep: a cell of sleep 1 costs 100 timed cells of 0.01
    main(capsys, "check", "toy.slow", "--set", "sleep=0.01", "--scheduler", "serial", "--store", str(store))
    entries = json.loads((store / "timings.json").read_text())["toy.slow"].values()
    assert all(e["work"] == 0.01 and 0.01 <= e["seconds"] < 0.5 for e in entries) and len(entries) == 12
    code, out, _ = main(capsys, "check", "toy.slow", "--set", "sleep=1.0", "--plan", "--json", "--store", str(store))
    row = json.loads(out)["claims"][0]
    assert code == 0 and (row["basis"], row["to_compute"], row["unknown_tasks"]) == ("scaled", 24, 0)
    assert 24 * 1.0 <= row["seconds"] <= 24 * 1.0 * 2  # 100 x the timed seconds: the sleep plus any overhead
    code, out, _ = main(capsys, "check", "toy.slow", "--set", "sleep=1.0", "--plan", "--store", str(store))
    assert "scaled: a timed cell x the work ratio" in out
    assert " scaled;" in next(x for x in out.splitlines() if x.startswith("plan: "))


def test_timings_are_read_as_seconds_and_work_from_both_forms_dropping_damaged_entries(tmp_path):
    from simverify.cli.plan import TIMINGS, read_timings
    (tmp_path / TIMINGS).write_text('{"a": {"k1": 2.5, "k2": {"seconds": 1.0, "work": 3, "basis": "b"}, "k3": '
                                    '{"seconds": 1.0, "work": -1, "basis": "b"}, "k4": {"work": 2}, "k5": {"seconds": '
                                    '"x"}, "k6": {"seconds": 2.0, "work": 3, "basis": 7}}}')
    assert read_timings(Store(tmp_path)) == {"a": {"k1": (2.5, None, None), "k2": (1.0, 3.0, "b"),
                                                   "k3": (1.0, None, None), "k6": (2.0, 3.0, None)}}
    huge = "1" + "0" * 400  # an integer no float holds: damage, not an OverflowError
    (tmp_path / TIMINGS).write_text(f'{{"a": {{"k1": {{"seconds": 1, "work": {huge}, "basis": "b"}}, "k2": {huge}, '
                                    '"k3": {"seconds": 1, "work": 1e308, "basis": "b"}}}')
    assert read_timings(Store(tmp_path)) == {"a": {"k1": (1.0, None, None), "k3": (1.0, None, None)}}


def test_timings_recorded_under_another_work_basis_are_not_scaled(tmp_path, capsys):
    """A timing whose work was counted by another declaration (an older cost model) prices nothing by scaling."""
    store = tmp_path / "s"
    main(capsys, "check", "toy.slow", "--set", "sleep=0.01", "--scheduler", "serial", "--store", str(store))
    path = store / "timings.json"
    timings = json.loads(path.read_text())
    assert all(e["basis"].startswith("tests.toy_claims.") for e in timings["toy.slow"].values())
    for e in timings["toy.slow"].values():
        e["basis"] = "an.older.declaration:0"
    path.write_text(json.dumps(timings))
    code, out, _ = main(capsys, "check", "toy.slow", "--set", "sleep=1.0", "--plan", "--json", "--store", str(store))
    assert code == 0 and json.loads(out)["claims"][0]["basis"] == "crude"


def test_report_option_prints_where_the_report_was_written_last(tmp_path, capsys):
    code, out, _ = main(capsys, "check", "toy.power", "--scheduler", "serial", "--store", str(tmp_path / "s"),
                        "--report", str(tmp_path / "rep"))
    assert code == 0 and out.splitlines()[-1] == f"report: {tmp_path / 'rep' / 'index.html'}"
    assert (tmp_path / "rep" / "index.html").is_file()


def test_named_claim_says_its_controls_were_not_run_and_controls_runs_them(tmp_path, capsys):
    store = str(tmp_path / "s")
    code, out, err = main(capsys, "check", "toy.power", "--json", "--scheduler", "serial", "--store", store)
    assert [r["id"] for r in json.loads(out)] == ["toy.power"]
    assert err.strip() == ("simverify: controls not run: toy.power~wrong_exponent (add --controls to run the "
                           "named claims' controls)")
    code, out, err = main(capsys, "check", "toy.power", "--controls", "--json", "--scheduler", "serial",
                          "--store", store)
    assert code == 0 and [r["id"] for r in json.loads(out)] == ["toy.power", "toy.power~wrong_exponent"]
    assert err == ""


def test_on_record_gets_each_claim_as_it_completes_with_records_identical_to_a_run_without(tmp_path):
    claims = [registry.get(i) for i in ("toy.power", "toy.borderline", "toy.power~wrong_exponent")]
    seen, cells_when_first = [], []
    computed = []

    def on_record(rec):
        seen.append(rec["id"])
        cells_when_first.append(len(computed))

    with SerialExecutor() as ex:
        streamed = runner.check(claims, "quick", Store(tmp_path / "a"), ex, on_record=on_record,
                                on_cell=lambda task, s: computed.append(task.key))
    with SerialExecutor() as ex:
        plain = runner.check(claims, "quick", Store(tmp_path / "b"), ex)
    assert seen == ["toy.power", "toy.borderline", "toy.power~wrong_exponent"]
    assert cells_when_first[0] == 32 < len(computed) == 80  # the first claim came after its own cells only
    same = ("id", "verdict", "estimate", "ci", "band", "confidence_level", "n_cells", "run_key")
    assert [{k: r[k] for k in same} for r in streamed] == [{k: r[k] for k in same} for r in plain]


def test_list_names_each_papers_citation_once_above_its_claims_and_json_carries_it(capsys):
    code, out, _ = main(capsys, "list", "--paper", "onebit")
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("onebit: Shuang Qiu, Tingjin Luo, Jieping Ye and Ming Lin (2017).")
    assert "arXiv:1703.06104" in lines[0] and sum("arXiv:" in line for line in lines) == 1
    assert any("onebit.theorem1.kappa " in line and line.endswith("(loose)") for line in lines)
    code, out, _ = main(capsys, "list", "-k", "crowd.table5.rte.kos", "--json")
    (row,) = [r for r in json.loads(out) if r["id"] == "crowd.table5.rte.kos"]
    assert row["finding"] == "not reproduced" and "Ibrahim" in row["citation"]


@pytest.mark.parametrize("args, message", [
    (["list", "-k", "(" * 60 + "toy" + ")" * 60], "nests deeper than 50"),
    (["list", "-k", "not " * 60 + "toy"], "nests deeper than 50"),
    (["check", "toy.power", "--plan", "--replicates", "1000000000"], "--replicates must lie in [1, 100000]"),
    (["check", "toy.power", "--report", ""], "--report names no path"),
    (["check", "toy.power", "--report", "r" * 300], "has a name longer than 255 bytes"),
    (["calibrate", "toy.power", "--seeds", "2", "--out", "c" * 300], "has a name longer than 255 bytes"),
    (["check", "toy.power", "--plan", "--scheduler", "junk"], "unknown scheduler 'junk'"),
])
def test_hostile_values_are_refused_in_one_line_before_any_work(tmp_path, capsys, args, message):
    code, out, err = main(capsys, *args, "--store", str(tmp_path / "s")) if args[0] != "list" else \
        main(capsys, *args)
    assert code == 2 and len(err.strip().splitlines()) == 1 and message in err
    assert not (tmp_path / "s").exists()


def test_damaged_timings_and_lastfailed_files_cost_estimates_not_the_run(tmp_path, capsys):
    store = tmp_path / "s"
    store.mkdir()
    (store / "timings.json").write_text('{"toy.power": 5, "toy.slow": {"a": "x", "b": -3, "c": NaN}}')
    (store / "lastfailed.json").write_text('{"quick": 5, "full": [[1]]}')
    code, out, err = main(capsys, "check", "toy.power", "--lf", "--plan", "--store", str(store))
    assert code == 0 and "toy.power" in out
    code, out, err = main(capsys, "check", "toy.power", "--scheduler", "serial", "--store", str(store))
    assert code == 0 and json.loads((store / "lastfailed.json").read_text())["quick"] == []
    assert all(isinstance(v, float) for t in json.loads((store / "timings.json").read_text()).values()
               for v in t.values())


def test_calibrate_out_merges_into_an_existing_file_and_refuses_a_directory(tmp_path, capsys):
    out, store = tmp_path / "cal.json", str(tmp_path / "s")
    for _ in range(2):  # the second run merges into the file the first wrote
        code, _, err = main(capsys, "calibrate", "toy.power", "--seeds", "2", "--scheduler", "serial",
                            "--store", store, "--out", str(out))
        assert code == 0, err
    assert [r["id"] for r in json.loads(out.read_text())] == ["toy.power"]
    code, _, err = main(capsys, "calibrate", "toy.power", "--seeds", "2", "--store", store, "--out", str(tmp_path))
    assert code == 2 and "is a directory" in err
