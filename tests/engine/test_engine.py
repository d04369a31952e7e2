"""Engine: statistics, verdict rule, store, sweeps, executors, CLI contract."""
import json
import os
import re
import signal
import subprocess
import sys

import numpy as np
import pytest
import xarray as xr
from scipy import stats as st

from simverify import registry, runner, stats, sweep
from simverify.assemble import assemble
from simverify.executors import DaskExecutor, ProcessExecutor, SerialExecutor
from simverify.laws import Comparison
from simverify.store import Store
from tests.support import ENV, ROOT, sigint_by_default


def test_band_verdict_is_confirmed_inside_refuted_outside_and_inconclusive_straddling_or_nan():
    assert stats.band_verdict(0.1, 0.2, 0, 1) == stats.CONFIRMED
    assert stats.band_verdict(1.1, 1.2, 0, 1) == stats.REFUTED
    assert stats.band_verdict(0.9, 1.2, 0, 1) == stats.INCONCLUSIVE
    assert stats.band_verdict(np.nan, 1, 0, 1) == stats.INCONCLUSIVE


def test_clopper_pearson_matches_scipy():
    iv = stats.clopper_pearson(7, 40, 0.95)
    ref = st.binomtest(7, 40).proportion_ci(0.95, method="exact")
    assert np.allclose([iv.lo, iv.hi], [ref.low, ref.high])


def test_slope_fit_recovers_known_exponent_and_interval_covers():
    g = np.random.default_rng(0)
    x = np.log(np.array([1.0, 2, 4, 8]))
    covered, estimates = 0, []
    for _ in range(40):
        samples = np.exp(-0.5 * x)[None, :, None] * np.exp(0.1 * g.standard_normal((2, 4, 10)))
        iv = stats.slope_fit(x, samples, 0.95).interval
        covered += iv.lo <= -0.5 <= iv.hi
        estimates.append(iv.estimate)
    assert abs(np.mean(estimates) + 0.5) < 0.01
    assert covered >= 32  # nominal 38 of 40


def test_vectorised_slope_bootstrap_equals_the_per_resample_loop():
    """slope_fit's blocked bootstrap against bootstrap_interval over pooled_slope, one resample at a time, with an
    unusable point (a NaN replicate) left out alike."""
    g = np.random.default_rng(3)
    x = np.log(np.array([1.0, 2, 4, 8, 16]))
    samples = np.exp(-0.5 * x)[None, :, None] * np.exp(0.3 * g.standard_normal((3, 5, 12)))
    samples[1, 2, 4] = np.nan
    unusable = ~np.all(np.isfinite(samples), axis=-1)

    def stat(s):
        with np.errstate(invalid="ignore"):
            return stats.pooled_slope(x, np.where(unusable, np.nan, np.log(s.mean(axis=-1))))
    loop = stats.bootstrap_interval(stat, samples, 0.99)
    fast = stats.slope_fit(x, samples, 0.99).interval
    assert np.allclose([fast.estimate, fast.lo, fast.hi, fast.se], [loop.estimate, loop.lo, loop.hi, loop.se],
                       rtol=1e-12)
    Y = np.log(samples[..., :3].mean(axis=-1))
    assert np.allclose(stats.pooled_slopes(x, np.stack([Y, 2 * Y])), [stats.pooled_slope(x, Y),
                                                                        stats.pooled_slope(x, 2 * Y)])


def test_headline_is_the_cell_that_decides_the_verdict():
    # cell 0: ratio 1.1, tight, CONFIRMED (the worse estimate); cell 1: ratio ~1.3, too noisy to decide
    g = np.random.default_rng(1)
    a = np.stack([1.1 + 0.01 * g.standard_normal(30), 1.3 + 1.5 * g.standard_normal(30)])
    ds = xr.Dataset({"a": (("c", "replicate"), a), "b": (("c", "replicate"), np.ones_like(a))}, {"c": [0, 1]})
    res = Comparison("a", "b", relation="greater").evaluate(ds, 0.95)
    assert [c["verdict"] for c in res.detail["cells"]] == [stats.CONFIRMED, stats.INCONCLUSIVE]
    assert res.verdict == stats.INCONCLUSIVE and res.detail["worst_cell"] == 1
    assert res.ci[0] < 1 < res.ci[1] and res.estimate > 1.1
    assert "replicates" in res.advice


def test_toy_claim_and_negative_control(tmp_path):
    store = Store(tmp_path)
    recs = runner.check([registry.get("toy.power"), registry.get("toy.power~wrong_exponent")], "quick", store,
                        SerialExecutor())
    assert [r["verdict"] for r in recs] == [stats.CONFIRMED, stats.REFUTED]
    ds = xr.open_dataset(recs[0]["store"])
    assert ds["y"].dims == ("x", "replicate") and ds.attrs["claim_id"] == "toy.power"
    for key in ("root_seed", "code_hash", "numba_version", "git_commit", "machine"):
        assert key in ds.attrs


def blas_threads_measure(seed, **params) -> dict:
    """A measure reporting the thread count of every BLAS library it sees after a Numba np.dot ran."""
    import numba
    from threadpoolctl import threadpool_info

    @numba.njit
    def product(a, b):
        return np.dot(a, b)

    product(np.ones((3, 3)), np.ones((3, 3)))
    return {"threads": [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]}


@pytest.mark.parametrize("make", [SerialExecutor, lambda: ProcessExecutor(2)], ids=["serial", "2 workers"])
def test_a_cell_runs_every_blas_library_on_one_thread_whatever_the_executor(make):
    """OpenBLAS splits some products' sums by its thread count, so a cell's bits must not see the host's cores."""
    task = sweep.CellTask(measure=blas_threads_measure, params={}, index=(), replicate=0, entropy=1, key="k")
    with make() as ex:
        [(_, out)] = list(ex.map_unordered(sweep.compute_cell, [task]))
    # NumPy's OpenBLAS and SciPy's, which Numba's np.dot calls (one library where the two share a BLAS)
    assert len(out["threads"]) >= 1 and set(out["threads"]) == {1.0}, out


@pytest.mark.slow
def test_executors_give_identical_datasets(tmp_path):
    claim = registry.get("toy.power")
    dss = []
    for i, ex in enumerate([SerialExecutor(), ProcessExecutor(2), DaskExecutor(None, 2)]):
        try:
            p = sweep.plan(claim, "quick", root_seed=3)
            dss.append(assemble(p, sweep.run_tasks(p.tasks, Store(tmp_path / str(i)), ex)))
        finally:
            ex.close()
    for ds in dss[1:]:
        xr.testing.assert_identical(ds.drop_attrs(), dss[0].drop_attrs())


def test_a_pool_aborted_after_a_worker_died_leaves_no_wakeup_for_the_exit_hook_and_its_manager_ended():
    """Python 3.11's exit hook wrote to a registered manager's wake-up pipe while the manager closed it (EBADF,
    a traceback on stderr after 'a worker process died'): the abort unregisters and joins the manager."""
    import concurrent.futures.process as cf_process
    import time
    ex = ProcessExecutor(1)
    with pytest.raises(cf_process.BrokenProcessPool), ex:
        results = ex.map_unordered(time.sleep, [60.0])
        manager = ex.pool._executor_manager_thread
        for proc in list(ex.pool._processes.values()):
            os.kill(proc.pid, signal.SIGKILL)
        next(results)
    assert manager not in cf_process._threads_wakeups
    assert not manager.is_alive()


@pytest.mark.slow
def test_check_through_a_dask_scheduler_address_reaches_the_toy_verdict(cli, tmp_path):
    from dask.distributed import LocalCluster
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        r = cli("check", "toy.power", "--scheduler", cluster.scheduler_address, "--store", str(tmp_path), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)[0]["verdict"] == "CONFIRMED"


def test_seeds_do_not_depend_on_order_and_replicates_extend(tmp_path):
    claim = registry.get("toy.power")
    p8 = sweep.plan(claim, "quick", root_seed=1)
    axis = [t.params["x"] for t in p8.tasks if t.replicate == 0]
    reversed_axis = sweep.plan(claim, "quick", root_seed=1, overrides={"x": axis[::-1]})

    def seeds(p):
        return {(sweep.digest(t.params), t.replicate): (t.entropy, t.key) for t in p.tasks}
    assert [t.params["x"] for t in reversed_axis.tasks if t.replicate == 0] == axis[::-1]
    assert seeds(reversed_axis) == seeds(p8)
    p12 = sweep.plan(claim, "quick", root_seed=1, replicates=12)
    assert {t.key for t in p8.tasks} <= {t.key for t in p12.tasks}
    store = Store(tmp_path)
    sweep.run_tasks(p8.tasks, store, SerialExecutor())
    calls = []
    sweep.run_tasks(p12.tasks, store, SerialExecutor(), progress=lambda d, t: calls.append(t))
    assert calls and calls[-1] == 4 * 4  # only the new replicates were computed


@pytest.mark.slow
def test_json_contract_and_exit_codes_0_and_1(cli, tmp_path):
    r = cli("check", "toy.power", "toy.power~wrong_exponent", "--store", str(tmp_path), "--json",
            "--scheduler", "serial")
    assert r.returncode == 0, r.stderr
    recs = json.loads(r.stdout)
    for key in ("id", "paper", "item", "statement", "verdict", "expected", "estimate", "ci", "claimed", "band",
                "n_cells", "elapsed_s", "store", "overrides"):
        assert key in recs[0]
    assert len(recs[0]["ci"]) == 2 and len(recs[0]["band"]) == 2
    # a control run against the claim's expectation: verdict differs -> exit 1
    r = cli("check", "toy.power", "--set", "exponent=1.0", "--store", str(tmp_path), "--scheduler", "serial")
    assert r.returncode == 1


@pytest.mark.parametrize("args,needle", [
    (["check", "no.such.claim"], "unknown claim id"),
    (["check", "toy.power", "--replicates", "0"], "replicates"),
    (["check", "toy.power", "--set", "n=-3"], "n must be positive"),
    (["check", "toy.power", "--set", "exponent=NaN"], "not finite"),
    (["check", "toy.power", "--set", "nosuch=1"], "cannot set"),
    (["check", "bitsubspace.theorem1.rate_m", "--set", "r=50"], "exceeds dimension"),
    (["check", "bitsubspace.theorem1.rate_m", "--set", "m=[-100,1000]"], "positive integer"),
    (["check", "bitsubspace.theorem1.rate_m", "--set", "m=[1000]"], "at least 2 distinct"),
    (["check", "--paper", "nosuch"], "unknown paper"),
    (["report", "--store", "EMPTY"], "no readable results"),
    (["report", "--store", "EMPTY", "--tier", "full"], "no readable results"),
])
@pytest.mark.slow
def test_bad_input_exit_2_nothing_written(cli, tmp_path, args, needle):
    """check: the store stays absent; report: the --out directory is not created."""
    args = [a.replace("EMPTY", str(tmp_path / "empty")) for a in args]
    store, out = tmp_path / "s", tmp_path / "out"
    r = cli(*args, *(["--store", str(store)] if args[0] == "check" else ["--out", str(out)]))
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert needle in r.stderr and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert not store.exists() and not out.exists()


def test_corrupt_cache_file_is_recomputed(tmp_path):
    claim = registry.get("toy.power")
    p = sweep.plan(claim, "quick")
    store = Store(tmp_path)
    first = assemble(p, sweep.run_tasks(p.tasks, store, SerialExecutor()))
    victim = store.cell_path(p.tasks[3].key)
    victim.write_bytes(b"garbage")
    with pytest.warns(UserWarning, match="unreadable cache file"):
        again = assemble(p, sweep.run_tasks(p.tasks, store, SerialExecutor()))
    xr.testing.assert_identical(first.drop_attrs(), again.drop_attrs())


def _resume_matches_uninterrupted(cli, a, b):
    """Rerun in store a (its stored cells reused untouched) and run afresh in b: identical Datasets."""
    kept = {p: p.stat().st_mtime_ns for p in a.rglob("cells/*/*.npz")}
    r = cli("check", "toy.slow", "--store", str(a), "--json", "--scheduler", "serial")
    assert r.returncode in (0, 1), r.stderr  # the toy verdict is not the point here
    assert {p: p.stat().st_mtime_ns for p in kept} == kept and len(list(a.rglob("cells/*/*.npz"))) == 24
    r2 = cli("check", "toy.slow", "--store", str(b), "--json", "--scheduler", "serial")
    ds_a = xr.open_dataset(json.loads(r.stdout)[0]["store"])
    ds_b = xr.open_dataset(json.loads(r2.stdout)[0]["store"])
    xr.testing.assert_identical(ds_a.drop_attrs(), ds_b.drop_attrs())


@pytest.mark.slow
def test_killed_check_resumes_to_identical_dataset(cli, wait_for_cell, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    proc = subprocess.Popen([sys.executable, "-m", "simverify.cli", "check", "toy.slow", "--store", str(a),
                             "--scheduler", "serial"], env=ENV, cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    wait_for_cell(a, proc, count=4)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    partial = len(list(a.rglob("cells/*/*.npz")))
    assert 4 <= partial < 24
    _resume_matches_uninterrupted(cli, a, b)


@pytest.mark.slow
def test_interrupted_check_exits_130_in_one_line_leaves_no_temporaries_and_resumes(cli, wait_for_cell, tmp_path):
    """Ctrl-C (SIGINT to the whole process group, workers included) during a process-pool run."""
    a, b = tmp_path / "a", tmp_path / "b"
    proc = subprocess.Popen([sys.executable, "-m", "simverify.cli", "check", "toy.slow", "--store", str(a),
                             "--scheduler", "processes", "--workers", "2"], env=ENV, cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=sigint_by_default)
    wait_for_cell(a, proc)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.strip().splitlines() == ["simverify: interrupted; finished cells are stored, rerun to resume"]
    assert not list(a.rglob(".tmp-*"))
    assert len(list(a.rglob("cells/*/*.npz"))) < 24
    _resume_matches_uninterrupted(cli, a, b)


@pytest.mark.slow
def test_list_names_claims_and_controls_and_report_writes_a_self_contained_site(cli, tmp_path):
    r = cli("list", "--json")
    rows = json.loads(r.stdout)
    ids = {x["id"] for x in rows}
    assert "bitsubspace.lemma1.upper" in ids and "toy.power~wrong_exponent" in ids
    assert cli("check", "toy.power", "--store", str(tmp_path / "s"), "--scheduler", "serial").returncode == 0
    r = cli("report", "--store", str(tmp_path / "s"), "--out", str(tmp_path / "rep"))
    assert r.returncode == 0, r.stderr
    page = (tmp_path / "rep" / "index.html").read_text()
    assert "toy.power" in page and "claims/toy.power.html" in page
    for f in (tmp_path / "rep").rglob("*.html"):  # self-contained: nothing loaded from the network
        assert not re.search(r"""(src|href)=["']?https?:""", f.read_text()), f
    assert "| toy | Toy 1 |" in (tmp_path / "rep" / "report.md").read_text()


@pytest.mark.slow
def test_a_plugin_importing_a_name_simverify_lacks_is_refused_in_one_line(tmp_path):
    (tmp_path / "oldplugin.py").write_text("from simverify.claims import NoSuchName\n")
    env = {**ENV, "SIMVERIFY_PLUGINS": "oldplugin", "PYTHONPATH": f"{tmp_path}:{ROOT}"}
    res = subprocess.run([sys.executable, "-m", "simverify.cli", "list"], check=False, capture_output=True, text=True,
                         cwd=ROOT, env=env, timeout=120)
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert res.stderr.startswith("simverify: error: cannot import claim plugin 'oldplugin': cannot import name "
                                 "'NoSuchName' from 'simverify.claims'"), res.stderr


@pytest.mark.slow
def test_unknown_plugin_module_is_a_clear_usage_error():
    res = subprocess.run([sys.executable, "-m", "simverify.cli", "list"], check=False, capture_output=True, text=True,
                         cwd=ROOT, env={**ENV, "SIMVERIFY_PLUGINS": "no_such_plugin_module"}, timeout=120)
    assert res.returncode == 2 and "no_such_plugin_module" in res.stderr and "Traceback" not in res.stderr
