"""The run's contract under hostile input and hostile hosts: the same bits for any worker and thread count,
sizes refused at plan from their estimated footprint, values the store cannot hold refused at plan, and
interruptions (SIGINT, SIGTERM, a killed worker, argparse's errors) ended in one line."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from simverify import footprint as fp
from simverify.footprint import Footprint
from tests.support import ENV, ROOT, SIMVERIFY

# one claim per paper, each through BLAS or a parallel (prange) kernel; before BLAS was pinned to one thread
# per cell, andnmf's and crowd's cells differed in their last bits between 1 and 2 workers
ONE_PER_PAPER = ["andnmf.theorem1.linear_rate", "bitsubspace.theorem1.bound_kappa", "onebit.theorem2.rate_m",
                 "slm.theorem5.growth_d", "crowd.theorem3.noise_floor"]


def _cells(store: Path) -> dict:
    return {p.relative_to(store): p.read_bytes() for p in sorted(store.rglob("cells/*/*.npz"))}


@pytest.mark.slow
def test_stored_cells_are_bit_identical_serial_or_one_or_two_workers_with_one_or_two_numba_threads(tmp_path):
    runs = {"serial, 1 thread": (["--scheduler", "serial"], "1"), "serial, 2 threads": (["--scheduler", "serial"], "2"),
            "1 worker": (["--workers", "1"], None), "2 workers": (["--workers", "2"], None)}
    cells = {}
    for name, (options, threads) in runs.items():
        env = {k: v for k, v in ENV.items() if k != "NUMBA_NUM_THREADS"}
        if threads:
            env["NUMBA_NUM_THREADS"] = threads
        store = tmp_path / name.replace(" ", "_").replace(",", "")
        res = subprocess.run([*SIMVERIFY, "check", *ONE_PER_PAPER, "--replicates", "2", "--store", str(store), "-q",
                              *options], capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)
        assert res.returncode in (0, 1) and "Traceback" not in res.stderr, res.stderr
        cells[name] = _cells(store)
    first = cells["serial, 1 thread"]
    assert len(first) >= 5 * 2 * 2  # every claim planned at least two cells of two replicates
    for name, got in cells.items():
        assert got.keys() == first.keys(), name
        differ = [str(k) for k in first if got[k] != first[k]]
        assert not differ, f"{name}: {len(differ)} of {len(first)} cells differ from serial, 1 thread: {differ[:3]}"


@pytest.mark.parametrize("setting, needle", [
    (["onebit.theorem1.rate_m", "--set", "m=99999999999999999999999999999"], "'m' = 1.000e+29 lies outside"),
    (["onebit.theorem1.rate_m", "--set", "m=3000000000"], "'m' = 3000000000 lies outside [-2147483648, 2147483647]"),
    (["onebit.theorem1.rate_m", "--set", "T=2000000000"], "operations (a day is about 1e+14); --no-ceiling"),
    (["crowd.theorem2.robust_to_bad_blocks", "--set", "M=1000000"], "one cell needs about 262 TiB of memory"),
    (["toy.power", "--replicates", "100000", "--set", "x=[1,2,3,4,5,6,7,8,9,10,11,12]"],
     "1,200,000 tasks exceed the ceiling of 1,000,000 per claim"),
])
def test_sizes_past_memory_work_or_task_ceilings_or_int32_are_refused_at_plan(
        cli, assert_refused, tmp_path, setting, needle):
    res = cli("check", *setting, "--store", str(tmp_path / "s"))
    assert_refused(res, needle)
    assert not (tmp_path / "s").exists()


def test_total_sums_a_list_where_size_takes_its_largest_and_both_skip_what_is_not_a_number():
    p = {"m": [1000, 3000], "zero": [0, 0], "odd": [True, "x", 2], "empty": [], "flag": True, "n": 7}
    assert (fp.total(p, "m"), fp.size(p, "m")) == (4000, 3000)
    assert (fp.total(p, "zero", 5), fp.size(p, "zero", 5)) == (0, 0)
    assert (fp.total(p, "odd"), fp.size(p, "odd")) == (2, 2)
    assert fp.total(p, "empty", 5) == fp.size(p, "empty", 5) == 5
    assert fp.total(p, "flag", 5) == fp.size(p, "flag", 5) == 5
    assert fp.total(p, "n") == fp.size(p, "n") == 7 and fp.total(p, "absent", 3) == 3


def test_cell_estimates_refuse_memory_always_and_work_only_under_the_ceiling():
    fp.check_cell("c", Footprint(1e9, 1e15), ceiling=False, memory=2e9)  # past the work ceiling, lifted: runs
    with pytest.raises(ValueError, match=r"c: one cell needs about 1.86 GiB of memory; this machine has 954 MiB"):
        fp.check_cell("c", Footprint(2e9, 1.0), ceiling=False, memory=1e9)
    with pytest.raises(ValueError, match="--no-ceiling runs it anyway"):
        fp.check_cell("c", Footprint(1.0, 2 * fp.MAX_CELL_WORK), memory=1e9)


def test_workers_that_would_together_hold_more_than_the_memory_are_refused_naming_the_count_that_fits():
    fp.check_workers(4e9, 1, memory=1e9)  # one worker: the cell check alone decides
    with pytest.raises(ValueError, match="8 workers holding cells of about 3.73 GiB each .*; use --workers 2"):
        fp.check_workers(4e9, 8, memory=1e10)


def test_every_tier_of_every_paper_plans_within_the_ceilings():
    from simverify import registry
    from simverify.keys import normalize
    from simverify.sweep import _bind
    for claim in registry.all_claims(None, controls=True):
        if claim.footprint is None:
            continue
        for tier in claim.tiers:
            grid, fixed = _bind(claim, tier, None)
            for _, cell in grid.cells():
                got = claim.footprint(normalize({**fixed, **cell}))
                assert got.memory < 4 * 2 ** 30 and got.work < fp.MAX_CELL_WORK, (claim.id, tier, got)


def test_every_declared_sweep_work_is_positive_and_finite_at_every_cell_of_every_tier():
    from simverify import registry
    from simverify.keys import normalize
    from simverify.sweep import _bind
    declared = 0
    for claim in registry.all_claims(None, controls=True):
        if claim.sweep.work is None:
            continue
        declared += 1
        for tier in claim.tiers:
            grid, fixed = _bind(claim, tier, None)
            for _, cell in grid.cells():
                got = claim.sweep.work(normalize({**fixed, **cell}))
                assert np.isfinite(got) and got > 0, (claim.id, tier, cell, got)
    assert declared > 100  # andnmf's and slm's sweeps


@pytest.mark.slow
def test_argparse_errors_are_one_line_with_exit_2(cli):
    for args in (["check", "--bogus"], ["chek"], ["check", "--workers", "x"], ["calibrate", "--seeds"]):
        res = cli(*args)
        assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1, (args, res.stderr)
        assert res.stderr.startswith("simverify: error: ") and "usage:" not in res.stderr


def _console(args: list[str], tmp_path: Path) -> subprocess.Popen:
    """The console script's code path (simverify.console.entry), as a separate process."""
    code = "import sys; from simverify.console import entry; sys.argv[0] = 'simverify'; entry()"
    return subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=ENV, cwd=ROOT)


@pytest.mark.parametrize("sig, code, word", [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")])
@pytest.mark.parametrize("when", ["starting", "mid-run"])
@pytest.mark.slow
def test_sigint_or_sigterm_at_start_or_mid_run_ends_in_one_line_with_130_or_143(
        wait_for_cell, tmp_path, sig, code, word, when):
    store = tmp_path / "s"
    # 12 cells x 2 replicates of 1 s on 2 workers: the run lasts >= 12 s after its first stored cell
    proc = _console(["check", "toy.slow", "--set", "sleep=1.0", "--workers", "2", "--store", str(store)], tmp_path)
    if when == "starting":
        time.sleep(0.2)
    else:  # signal once a cell is stored, so the run is certainly under way, however fast the host
        wait_for_cell(store, proc, timeout=60)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"simverify: {word}") and "Traceback" not in err, err
    if when == "starting":  # still importing: nothing was written
        assert not store.exists()


@pytest.mark.slow
def test_a_killed_worker_ends_the_run_in_one_line_and_a_rerun_would_compute_only_the_rest(wait_for_cell, cli, tmp_path):
    store = tmp_path / "s"
    slow = ["toy.slow", "--set", "sleep=1.0", "--store", str(store)]  # 12 cells x 2 replicates of 1 s on 2 workers
    proc = _console(["check", *slow, "--workers", "2"], tmp_path)
    wait_for_cell(store, proc, timeout=60)
    workers = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
    killed = [int(w) for w in workers if "spawn_main" in Path(f"/proc/{w}/cmdline").read_text(errors="replace")]
    assert killed, workers
    os.kill(killed[0], signal.SIGKILL)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1 and "Traceback" not in err, err
    assert err.strip().splitlines()[-1].startswith("simverify: a worker process died"), err
    stored = len(list(store.rglob("cells/*/*.npz")))
    assert 1 <= stored < 24
    rerun = cli("check", *slow, "--plan")  # the rerun would compute only what is missing
    assert rerun.returncode == 0 and f"{stored} stored, {24 - stored} to compute" in rerun.stdout, rerun.stdout


@pytest.mark.parametrize("args, needle", [
    (["calibrate", "toy.power", "--out", "/dev/zero", "--seeds", "2"], "/dev/zero is not a regular file"),
    (["check", "toy.power", "--alpha", "1e-17"], "leaves each a level of 1 - 1.0e-17"),
    (["check", "toy.power", "--store", "a" * 300], "File name too long"),
    (["calibrate", "toy.power", "--seeds", "10000", "--replicates", "100000"],
     "10000 seeds: 4,000,000,000 tasks exceed the ceiling of 20,000,000 per run"),
    (["calibrate", "toy.power", "--seed", "2147483647", "--seeds", "3"], "runs root seeds past 2147483647"),
    (["check", "toy.power", "--workers", "1000", "--replicates", "1000"], "; use --workers "),
    (["check", "toy.power", "--workers", "1000", "--replicates", "1000", "--plan"], "; use --workers "),
    (["check", "toy.power", "--set", "x=[0,1,2]"], "fits against log(x): its grid values must be positive"),
])
@pytest.mark.slow
def test_what_used_to_crash_or_exhaust_memory_after_planning_is_refused_at_plan(
        cli, assert_refused, tmp_path, args, needle):
    res = cli(*args, "--store", str(tmp_path / "s")) if "--store" not in args else cli(*args, cwd=tmp_path)
    assert_refused(res, needle)
    assert os.listdir(tmp_path) == []  # nothing written: no store, no file


@pytest.mark.slow
def test_damaged_bookkeeping_files_cost_estimates_never_a_run_or_a_traceback(cli, tmp_path):
    store = tmp_path / "s"
    assert cli("check", "toy.power", "--store", str(store)).returncode == 0
    (store / "timings.json").write_text("[" * 100_000)  # nests past the JSON reader's recursion
    (store / "lastfailed.json").unlink(missing_ok=True)
    (store / "lastfailed.json").symlink_to("/dev/zero")
    res = cli("check", "toy.power", "--store", str(store), "--lf", "--plan")
    assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr


def test_a_store_whose_cells_directory_is_a_file_is_refused_at_plan(cli, assert_refused, tmp_path):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "cells").write_text("x")
    assert_refused(cli("check", "toy.power", "--store", str(tmp_path / "s")), "cells is not a directory")


@pytest.mark.slow
def test_closed_standard_output_is_ignored_and_a_full_one_ends_in_one_line(tmp_path):
    closed = subprocess.run([sys.executable, "-c", "import sys; from simverify.console import entry; "
                             "sys.argv[0] = 'simverify'; entry()", "list"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=ENV, cwd=ROOT, close_fds=True,
                            preexec_fn=lambda: os.close(1))
    assert closed.returncode == 0 and closed.stderr == "", closed.stderr
    with open("/dev/full", "w") as full:
        res = subprocess.run([*SIMVERIFY, "list"], stdout=full, stderr=subprocess.PIPE, text=True, env=ENV, cwd=ROOT)
    assert res.returncode == 1 and res.stderr == "simverify: error: cannot write standard output: No space left on " \
        "device\n", res.stderr
