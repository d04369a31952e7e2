"""CLI contract: bad input refused before any work, store permissions and paths, robust reports,
process-pool workers (threads, parent death) and calibration (selecting and stopping runs:
test_cli_selection.py)."""
import glob
import json
import math
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as st

from simverify import runner, stats
from simverify.cli import _parse_set
from simverify.executors import ProcessExecutor
from tests.support import ENV, ROOT, SIMVERIFY, sigint_by_default


def children(pid: int) -> set[int]:
    """Direct children of ``pid`` from /proc (every thread's list)."""
    files = glob.glob(f"/proc/{pid}/task/*/children")
    if not files:
        pytest.skip("this kernel exposes no /proc/<pid>/task/<tid>/children")
    return {int(c) for f in files for c in Path(f).read_text().split()}


def running(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
    except FileNotFoundError:
        return ""


# --- bad input: one line, exit 2, nothing written ---------------------------------------------------

def test_set_values_parse_as_json_else_non_finite_float_else_string():
    got = _parse_set(["a=abc", "b=nan", "c=[2,3]", "d=true", "e=1e3", "f=-Infinity", "g= 4 "])
    assert got["a"] == "abc" and math.isnan(got["b"]) and got["c"] == [2, 3] and got["d"] is True
    assert got["e"] == 1000.0 and got["f"] == -math.inf and got["g"] == 4


# toy.power: fixed n=3 (int) and exponent=2.0 (float), grid axis x (list of floats)
@pytest.mark.parametrize("assignment,needle", [
    ("exponent=nan", "'exponent' is not finite"), ("exponent=abc", "--set exponent expects a number"),
    ("exponent=[2,3]", "--set exponent expects a number"), ("x=[]", "--set x expects at least one value"),
    ("n=true", "--set n expects an integer")])
def test_bad_set_value_is_refused_in_one_line_before_any_work(check_refused_at_plan, tmp_path, assignment, needle):
    check_refused_at_plan(["toy.power", "--set", assignment], needle)


def test_unreachable_scheduler_is_refused_within_seconds(cli, assert_refused, tmp_path):
    store = tmp_path / "s"
    t0 = time.perf_counter()
    res = cli("check", "toy.power", "--scheduler", "tcp://127.0.0.1:1", "--store", str(store), timeout=60)
    assert time.perf_counter() - t0 < 15
    assert_refused(res, "cannot reach scheduler tcp://127.0.0.1:1")
    assert not store.exists()


def test_dask_scheduler_without_dask_asks_to_install_the_extra(assert_refused, tmp_path):
    store = tmp_path / "s"
    hide_dask = ("import sys; sys.modules['distributed'] = sys.modules['dask'] = None; "
                 "from simverify.cli import main; sys.exit(main(sys.argv[1:]))")
    res = subprocess.run([sys.executable, "-c", hide_dask, "check", "toy.power", "--scheduler", "dask",
                          "--store", str(store)], check=False, capture_output=True, text=True, env=ENV, cwd=ROOT,
                         timeout=120)
    assert_refused(res, "install simverify[dask]")
    assert not store.exists()


def test_store_below_a_regular_file_is_refused_before_any_work(cli, assert_refused, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    res = cli("check", "toy.power", "--scheduler", "serial", "--store", str(blocker / "store"))
    assert_refused(res, "not writable")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


@pytest.mark.parametrize("command", ["check", "report"])
@pytest.mark.slow
def test_report_directory_below_a_regular_file_is_refused_before_any_work(cli, assert_refused, tmp_path, command):
    store = tmp_path / "s"
    if command == "report":
        assert cli("check", "toy.power", "--scheduler", "serial", "--store", str(store)).returncode == 0
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    option = "--report" if command == "check" else "--out"
    extra = ["toy.power", "--scheduler", "serial"] if command == "check" else []
    res = cli(command, *extra, "--store", str(store), option, str(blocker / "rep"))
    assert_refused(res, "report directory", "not writable")
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


@pytest.mark.parametrize("clash", ["index.html is a directory", "claims is a file", "the figure is a directory",
                                   "the path is too long"])
@pytest.mark.parametrize("command", ["check", "report"])
@pytest.mark.slow
def test_report_whose_files_clash_with_what_its_directory_holds_is_refused_before_any_work(
        cli, assert_refused, tmp_path, command, clash):
    store = tmp_path / "s"
    if command == "report":
        assert cli("check", "toy.power", "--scheduler", "serial", "--store", str(store)).returncode == 0
    out = tmp_path / "rep"
    if clash == "index.html is a directory":
        (out / "index.html").mkdir(parents=True)
    elif clash == "claims is a file":
        out.mkdir()
        (out / "claims").write_text("")
    elif clash == "the figure is a directory":
        (out / "figures" / "toy.power.png").mkdir(parents=True)
    else:  # names within NAME_MAX, the directory 4070 bytes (PATH_MAX 4096), claims/toy.power.html beyond it
        prefix = tmp_path.joinpath(*["d" * 200] * ((4040 - len(str(tmp_path))) // 201))
        out = prefix / ("x" * (4070 - len(str(prefix)) - 1))
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    option = "--report" if command == "check" else "--out"
    extra = ["toy.power", "--scheduler", "serial"] if command == "check" else []
    res = cli(command, *extra, "--store", str(store), option, str(out))
    assert_refused(res, "report directory", "too long" if clash == "the path is too long" else "exists and is not")
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_read_only_store_is_refused_before_any_work(cli, assert_refused, tmp_path):
    store = tmp_path / "s"
    store.mkdir()
    store.chmod(0o555)
    try:
        try:
            (store / "probe").write_text("")
        except PermissionError:
            pass
        else:
            pytest.skip("this user writes into a mode 0555 directory (root): read-only cannot be tested")
        res = cli("check", "toy.power", "--scheduler", "serial", "--store", str(store))
        assert_refused(res, "not writable")
        assert not any(store.iterdir())
    finally:
        store.chmod(0o755)


# --- the store ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("umask,mode", [(0o022, 0o644), (0o027, 0o640)])
def test_store_files_honour_the_umask(cli, tmp_path, umask, mode):
    store = tmp_path / "s"
    res = cli("check", "toy.power", "--scheduler", "serial", "--store", str(store), umask=umask)
    assert res.returncode == 0, res.stderr
    files = [next(store.glob(pattern)) for pattern in ("cells/*/*.npz", "datasets/*/*.nc", "results/*/*.json")]
    assert [oct(stat.S_IMODE(f.stat().st_mode)) for f in files] == [oct(mode)] * 3


def test_records_carry_absolute_store_band_and_overrides(cli, tmp_path):
    (tmp_path / "run").mkdir()
    res = cli("check", "toy.power", "--set", "n=4", "--scheduler", "serial", "--store", "rel", "--json",
              cwd=tmp_path / "run")
    assert res.returncode == 0, res.stderr
    rec = json.loads(res.stdout)[0]
    assert Path(rec["store"]).is_absolute() and Path(rec["store"]).is_file()
    assert Path(rec["store"]).is_relative_to(tmp_path / "run" / "rel")
    assert rec["overrides"] == {"n": 4}
    assert rec["band"] == pytest.approx([1.9, 2.1])  # PowerLaw slope 2 +- 0.1


@pytest.mark.slow
def test_report_from_another_directory_draws_the_figures(cli, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert cli("check", "toy.power", "--scheduler", "serial", "--store", "s", cwd=tmp_path / "a").returncode == 0
    res = cli("report", "--store", str(tmp_path / "a" / "s"), "--out", "rep", cwd=tmp_path / "b")
    assert res.returncode == 0, res.stderr
    page = (tmp_path / "b" / "rep" / "claims" / "toy.power.html").read_text()
    assert "src='../figures/toy.power.png'" in page
    assert (tmp_path / "b" / "rep" / "figures" / "toy.power.png").read_bytes().startswith(b"\x89PNG")


# --- reports -----------------------------------------------------------------------------------------

@pytest.mark.slow
def test_report_names_unreadable_files_and_reports_the_rest(cli, tmp_path):
    store, out = tmp_path / "s", tmp_path / "rep"
    assert cli("check", "toy.power", "toy.power~wrong_exponent", "--scheduler", "serial",
               "--store", str(store)).returncode == 0
    bad_dataset = next(store.glob("datasets/toy.power/*.nc"))
    bad_dataset.write_bytes(b"garbage")
    for name in ("zzz", "yyy", "xxx"):
        (store / "results" / name).mkdir()
    bad_json = store / "results" / "zzz" / "quick-0.json"
    bad_json.write_text("{not json")
    not_a_record = store / "results" / "yyy" / "quick-0.json"
    not_a_record.write_text("[1, 2]")
    incomplete = store / "results" / "xxx" / "quick-0.json"
    incomplete.write_text('{"id": "xxx", "tier": "quick"}')
    res = cli("report", "--store", str(store), "--out", str(out))
    assert res.returncode == 0, res.stderr
    warnings = res.stderr.strip().splitlines()
    assert len(warnings) == 4
    for path in (bad_dataset, bad_json, not_a_record, incomplete):
        assert sum(str(path) in w for w in warnings) == 1
    md, page = (out / "report.md").read_text(), (out / "index.html").read_text()
    for path in (bad_dataset, bad_json, not_a_record, incomplete):
        assert str(path) in md and str(path) in page
    assert "`toy.power`" in md and "`toy.power~wrong_exponent`" in md
    assert sorted(p.name for p in (out / "figures").iterdir()) == ["toy.power~wrong_exponent.png"]  # readable one
    assert "No figure: its Dataset cannot be read" in (out / "claims" / "toy.power.html").read_text()
    assert not list(out.rglob(".tmp-*"))  # no temporary left


def test_report_of_only_unreadable_results_is_refused_and_writes_nothing(cli, assert_refused, tmp_path):
    store, out = tmp_path / "s", tmp_path / "rep"
    (store / "results" / "x").mkdir(parents=True)
    (store / "results" / "x" / "quick-0.json").write_text("garbage")
    (store / "FORMAT").write_text('{"format": 2}')
    res = cli("report", "--store", str(store), "--out", str(out))
    assert_refused(res, "no readable results")
    assert not out.exists()


# --- process pool --------------------------------------------------------------------------------------

def numba_threads_of_worker(_task) -> str:
    """Runs in a pool worker (imported there as tests.cli.test_cli)."""
    return os.environ["NUMBA_NUM_THREADS"]


@pytest.mark.parametrize("user,workers", [(None, 1), (None, 2), ("1", 1), ("64", 1)])
def test_pool_gives_workers_cores_per_worker_capped_by_user_numba_threads(monkeypatch, user, workers):
    if user is None:
        monkeypatch.delenv("NUMBA_NUM_THREADS", raising=False)
    else:
        monkeypatch.setenv("NUMBA_NUM_THREADS", user)
    share = max(1, (os.cpu_count() or 1) // workers)
    expected = str(share if user is None else min(share, int(user)))
    ex = ProcessExecutor(workers)
    try:
        seen = {out for _, out in ex.map_unordered(numba_threads_of_worker, range(2 * workers))}
    finally:
        ex.close()
    assert seen == {expected}
    assert os.environ.get("NUMBA_NUM_THREADS") == user  # the parent's own setting is left as it was


def test_workers_and_resource_tracker_exit_when_the_parent_is_killed(wait_for_cell, tmp_path):
    store = tmp_path / "s"
    proc = subprocess.Popen([*SIMVERIFY, "check", "toy.slow", "--scheduler", "processes", "--workers", "2",
                             "--store", str(store)], env=ENV, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    kids: set[int] = set()
    try:
        wait_for_cell(store, proc)
        kids = children(proc.pid)
        roles = [cmdline(k) for k in kids]
        assert sum("resource_tracker" in r for r in roles) == 1, roles
        assert sum("spawn_main" in r for r in roles) == 2, roles
        proc.kill()
        proc.wait()
        deadline = time.time() + 10
        while any(running(k) for k in kids) and time.time() < deadline:
            time.sleep(0.1)
        assert not [k for k in kids if running(k)]
    finally:
        for pid in [proc.pid, *kids]:
            if running(pid):
                os.kill(pid, signal.SIGKILL)


def test_interrupt_terminates_running_cells_at_once(tmp_path):
    """SIGINT to the parent alone: cells of a minute each are abandoned, the workers end, exit 130."""
    store = tmp_path / "s"
    proc = subprocess.Popen([*SIMVERIFY, "check", "toy.slow", "--set", "sleep=60", "--scheduler", "processes",
                             "--workers", "2", "--store", str(store)], env=ENV, cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=sigint_by_default)
    workers: set[int] = set()
    try:
        deadline = time.time() + 60
        while len(workers) < 2 and time.time() < deadline:
            workers = {k for k in children(proc.pid) if "spawn_main" in cmdline(k)}
            time.sleep(0.1)
        time.sleep(3)  # the workers import the measure and start sleeping
        t0 = time.time()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 130 and time.time() - t0 < 10, err
        assert len(workers) == 2 and not [w for w in workers if running(w)]
        assert not list(store.rglob("cells/*/*.npz"))
    finally:
        for pid in [proc.pid, *workers]:
            if running(pid):
                os.kill(pid, signal.SIGKILL)


# --- calibration ---------------------------------------------------------------------------------------

CALIBRATED = ("toy.power", "toy.power~wrong_exponent", "toy.borderline")
SEEDS = 8


@pytest.fixture(scope="module")
def calibration(cli, tmp_path_factory):
    store = tmp_path_factory.mktemp("calibrate")
    res = cli("calibrate", *CALIBRATED, "--seeds", str(SEEDS), "--seed", "5", "--json", "--scheduler", "serial",
              "--store", str(store))
    assert res.returncode == 0, res.stderr
    return {r["id"]: r for r in json.loads(res.stdout)}, store


def test_calibrate_rows_count_misses_with_clopper_pearson_interval(calibration):
    rows, _ = calibration
    assert set(rows) == set(CALIBRATED)
    for r in rows.values():
        cp = stats.clopper_pearson(r["misses"], SEEDS, 0.95)
        assert r["runs"] == SEEDS and r["rate"] == r["misses"] / SEEDS
        assert r["rate_ci95"] == pytest.approx([cp.lo, cp.hi])


def test_calibrate_counts_no_miss_for_separated_claims_and_some_for_borderline(calibration):
    """The borderline truth sits on its band's edge (seeds fixed, so the counts are deterministic)."""
    rows, _ = calibration
    assert rows["toy.power"]["misses"] == 0 and rows["toy.power~wrong_exponent"]["misses"] == 0
    assert 0 < rows["toy.borderline"]["misses"] < SEEDS


@pytest.mark.slow
def test_calibrate_misses_are_those_of_check_at_each_root_seed(cli, calibration):
    rows, store = calibration
    misses = dict.fromkeys(CALIBRATED, 0)
    for seed in range(5, 5 + SEEDS):
        res = cli("check", *CALIBRATED, "--seed", str(seed), "--json", "--scheduler", "serial", "--store", str(store))
        for rec in json.loads(res.stdout):
            misses[rec["id"]] += rec["verdict"] != rec["expected"]
    assert {k: r["misses"] for k, r in rows.items()} == misses


def test_calibrate_projects_small_miss_for_separated_claims_and_large_for_borderline(calibration):
    rows, _ = calibration
    for well_separated in ("toy.power", "toy.power~wrong_exponent"):
        assert rows[well_separated]["projected_miss"] < runner.MISS_GOAL
        assert not rows[well_separated]["over_goal"]
    assert rows["toy.borderline"]["projected_miss"] > 0.05 and rows["toy.borderline"]["over_goal"]


def test_calibrate_saves_no_datasets_or_records(cli, tmp_path):
    store = tmp_path / "s"
    res = cli("calibrate", "toy.power", "--seeds", "2", "--json", "--scheduler", "serial", "--store", str(store))
    assert res.returncode == 0, res.stderr
    assert list(store.glob("cells/*/*.npz")) and not (store / "datasets").exists()
    assert not (store / "results").exists()


def test_projected_miss_of_confirmed_is_mass_outside_the_shrunk_band():
    est = np.array([1.98, 2.0, 2.02, 2.0])
    ci = np.stack([est - 0.05, est + 0.05], axis=1)
    mu, sd = est.mean(), est.std(ddof=1)
    expected = st.norm.cdf(1.9 + 0.05, mu, sd) + st.norm.sf(2.1 - 0.05, mu, sd)
    assert runner.projected_miss(stats.CONFIRMED, (1.9, 2.1), est, ci) == pytest.approx(expected)


def test_projected_miss_of_refuted_is_mass_where_the_interval_touches_the_band():
    est = np.array([1.9, 2.1, 2.0, 2.0])
    ci = np.stack([est - 0.1, est + 0.1], axis=1)
    mu, sd = est.mean(), est.std(ddof=1)
    assert runner.projected_miss(stats.REFUTED, (-math.inf, 1.5), est, ci) == pytest.approx(
        st.norm.cdf(1.5 + 0.1, mu, sd))
    assert runner.projected_miss(stats.REFUTED, (1.0, 1.5), est, ci) == pytest.approx(
        st.norm.cdf(1.6, mu, sd) - st.norm.cdf(0.9, mu, sd))


def test_projected_miss_of_a_ratio_is_taken_on_the_log_scale_where_zero_is_unreachable():
    """A ratio law's interval is exp of a symmetric one: a ratio near 3.4 whose intervals reach a factor 1.9 either
    side never touches the band (0, 1] in log terms (miss ~1e-8), although its linear half-width exceeds 2.4."""
    g = np.random.default_rng(0)
    est = 3.4 * np.exp(0.12 * g.standard_normal(20))
    ci = np.stack([est / 1.9, est * 1.9], 1)
    assert runner.projected_miss(stats.REFUTED, (0.0, 1.0), est, ci, "log") < 1e-6
    assert runner.projected_miss(stats.REFUTED, (0.0, 1.0), est, ci, "linear") > 0.1  # the scale matters


def test_projected_miss_is_nan_without_a_band_two_seeds_or_a_decisive_expectation():
    est, ci = np.array([2.0, 2.1]), np.array([[1.9, 2.1], [2.0, 2.2]])
    assert math.isnan(runner.projected_miss(stats.CONFIRMED, (math.nan, math.nan), est, ci))
    assert math.isnan(runner.projected_miss(stats.CONFIRMED, (1, 3), est[:1], ci[:1]))
    assert math.isnan(runner.projected_miss(stats.INCONCLUSIVE, (1, 3), est, ci))
