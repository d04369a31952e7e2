"""Per-cell limits: a cell past its time limit or memory ceiling is stopped, the run goes on without the claims that
need it, and the limits are stated in the plan and refused when malformed."""
import json
import os
import re
import signal
import subprocess
import threading
import time

import numpy as np
import pytest

from simverify.cli import main as cli_main
from simverify.limits import CellFailure, CellLimits, run_limited


def _sleeps(n: int, step: float = 0.02) -> int:
    for _ in range(n):
        time.sleep(step)
    return n


def _swallows(n: int) -> int:
    """A measure that catches every Exception: the limit must still stop it."""
    for _ in range(n):
        try:
            time.sleep(0.02)
        except Exception:
            pass
    return n


def _grows(n: int) -> int:
    held = []
    for _ in range(n):
        held.append(np.ones(2_500_000))  # 20 MB each, touched
        time.sleep(0.01)
    return len(held)


def test_a_cell_past_its_time_limit_is_stopped_soon_after_and_one_within_it_returns_its_result():
    t0 = time.perf_counter()
    out = run_limited(_sleeps, CellLimits(seconds=0.2), 500)
    assert isinstance(out, CellFailure) and out.reason == "ran past its time limit of 0.2 s"
    assert time.perf_counter() - t0 < 1.0
    assert run_limited(_sleeps, CellLimits(seconds=30.0), 3) == 3
    assert run_limited(_sleeps, CellLimits(), 3) == 3  # no limit: called directly


def test_a_measure_that_catches_every_exception_cannot_swallow_its_limit():
    out = run_limited(_swallows, CellLimits(seconds=0.2), 500)
    assert isinstance(out, CellFailure) and "time limit" in out.reason


def _stop_returns_as_a_system_error(n: int) -> int:
    """As when the stop lands in Python code a Numba kernel called: the kernel's call fails with a SystemError."""
    from simverify.limits import LimitExceeded
    try:
        return _sleeps(n)
    except LimitExceeded as stop:
        raise SystemError("CPUDispatcher(<function f>) returned a result with an exception set") from stop


def test_a_stop_that_comes_back_as_a_compiled_calls_system_error_is_reported_as_the_stop():
    out = run_limited(_stop_returns_as_a_system_error, CellLimits(seconds=0.2), 500)
    assert isinstance(out, CellFailure) and out.reason == "ran past its time limit of 0.2 s"


def test_an_error_of_the_cell_itself_within_its_limits_still_propagates():
    def fails():
        raise SystemError("the cell's own")
    with pytest.raises(SystemError, match="the cell's own"):
        run_limited(fails, CellLimits(seconds=30.0))


@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/statm"), reason="needs /proc")
def test_a_cell_whose_process_grows_past_the_memory_ceiling_is_stopped_naming_both_sizes():
    from simverify.limits import resident_bytes
    ceiling = resident_bytes() + 200e6
    out = run_limited(_grows, CellLimits(memory=ceiling), 100)  # would grow by 2 GB
    assert isinstance(out, CellFailure)
    assert re.fullmatch(r"held [0-9.]+ [KMG]iB of resident memory, past its ceiling of [0-9.]+ [KMG]iB", out.reason)


def test_a_stop_raised_as_the_cell_returns_never_escapes_and_the_cell_is_reported_stopped(monkeypatch):
    from simverify import limits
    monkeypatch.setattr(limits, "POLL_S", 0.0005)
    returned, sides = [], set()
    for trial in range(200):  # the watchdog fires once the cell signals it is returning, before or after it returns
        returning = threading.Event()
        monkeypatch.setattr(limits._Watchdog, "_over", lambda self, ev=returning: "fired" if ev.is_set() else None)

        def cell(ev=returning, pause=trial * 1e-5, n=trial):
            ev.set()
            time.sleep(pause)  # 0 to 2 ms with the GIL released: the stop lands in the cell or after it returned
            returned.append(n)
            return 3
        out = run_limited(cell, CellLimits(seconds=1.0))
        time.sleep(0.002)  # a stop scheduled but not cleared would be delivered here and fail the test
        assert out == CellFailure("fired")  # past its limit either way: never reported done
        sides.add(trial in returned)
    assert sides == {True, False}  # both sides of the race were reached


def test_a_measure_that_swallows_the_stop_is_stopped_again_and_reported_stopped():
    def stubborn(n: int) -> int:
        caught = 0
        for _ in range(n):
            try:
                time.sleep(0.02)
            except BaseException:  # even this: the watchdog raises again at its next poll
                caught += 1
                if caught == 1:
                    continue
                raise
        return n
    t0 = time.perf_counter()
    out = run_limited(stubborn, CellLimits(seconds=0.1), 500)
    assert isinstance(out, CellFailure) and time.perf_counter() - t0 < 2.0


def test_an_interruption_the_stop_arrives_during_is_raised_again_not_swallowed(monkeypatch):
    from simverify import limits
    monkeypatch.setattr(limits, "POLL_S", 0.001)
    monkeypatch.setattr(limits._Watchdog, "_over", lambda self: "fired")

    def cell():
        try:
            raise KeyboardInterrupt
        finally:
            time.sleep(0.05)  # the stop is delivered here and replaces the interruption in flight
    with pytest.raises(KeyboardInterrupt):
        run_limited(cell, CellLimits(seconds=1.0))


def test_a_cell_that_ends_between_two_looks_past_its_limit_is_reported_stopped(monkeypatch):
    from simverify import limits
    monkeypatch.setattr(limits, "POLL_S", 10.0)  # the watchdog never looks while the cell runs
    out = run_limited(_sleeps, CellLimits(seconds=0.01), 3)  # 60 ms
    assert out == CellFailure("ran past its time limit of 0.01 s")


def test_the_stop_waits_while_the_cell_runs_numba_code_and_comes_once_it_returns():
    namespace = {"__name__": "numba.core.compiler_stand_in"}  # known by its module, wherever its file lies
    exec(compile("import time\n"
                 "def compiling(seconds):\n"
                 "    hit = False\n"
                 "    end = time.perf_counter() + seconds\n"
                 "    while time.perf_counter() < end:\n"
                 "        try:\n"
                 "            time.sleep(0.01)\n"
                 "        except BaseException:\n"
                 "            hit = True\n"
                 "    return hit\n", f"{os.sep}site{os.sep}numba{os.sep}compiler_stand_in.py", "exec"), namespace)
    seen = []

    def cell():
        seen.append(namespace["compiling"](0.3))  # frames of a file under numba/: no stop may arrive in them
        return _sleeps(100)
    out = run_limited(cell, CellLimits(seconds=0.05))
    assert seen == [False] and isinstance(out, CellFailure)


def test_code_in_a_directory_named_numba_that_is_no_numba_module_is_stopped_as_any_other():
    namespace = {"__name__": "cellcode"}
    exec(compile("import time\ndef spin(n):\n    for _ in range(n):\n        time.sleep(0.02)\n    return n\n",
                 f"{os.sep}home{os.sep}numba{os.sep}simverify{os.sep}cellcode.py", "exec"), namespace)
    t0 = time.perf_counter()
    assert isinstance(run_limited(namespace["spin"], CellLimits(seconds=0.05), 100), CellFailure)
    assert time.perf_counter() - t0 < 1.0


def test_a_stop_landing_in_a_generators_close_is_a_stop_not_an_interruption():
    def lines():
        try:
            yield 1
        finally:
            time.sleep(0.3)  # the stop arrives while GeneratorExit propagates

    def cell():
        g = lines()
        next(g)
        g.close()
        return 3
    assert run_limited(cell, CellLimits(seconds=0.05)) == CellFailure("ran past its time limit of 0.05 s")


def test_limits_of_the_python_api_are_validated_as_the_command_line_does(tmp_path):
    from simverify import registry, runner
    from simverify.executors import SerialExecutor
    from simverify.store import Store
    for bad in ({"seconds": -1.0}, {"memory": 0}, {"seconds": float("nan")}, {"seconds": "10"}, {"seconds": True},
                {"hard_exit": 1}):
        with pytest.raises(ValueError, match="CellLimits: "):
            CellLimits(**bad)
    with pytest.raises(TypeError, match="limits must be a CellLimits or None, got str"):
        runner.check([registry.get("toy.power")], "quick", Store(tmp_path / "s"), SerialExecutor(), limits="600")


def _main(capsys, *args):
    code = cli_main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_run_whose_cells_pass_the_time_limit_goes_on_without_their_claim_stores_none_of_them_and_says_so(
        tmp_path, capsys):
    store = tmp_path / "s"
    code, out, err = _main(capsys, "check", "toy.slow", "toy.power", "--cell-time", "0.1", "--scheduler", "serial",
                           "--store", str(store))
    assert code == 1
    assert "24 cells stopped by the per-cell limits (--cell-time, --cell-memory), 1 not run" in out
    assert "1 as expected" in out  # toy.power ran and was judged
    stopped = [x for x in err.splitlines() if "ran past its time limit of 0.1 s" in x]
    assert len(stopped) == 1 and stopped[0].endswith("not run: toy.slow")  # one line per sweep, not per cell
    code, out, _ = _main(capsys, "check", "toy.slow", "--plan", "--json", "--store", str(store))
    assert json.loads(out)["claims"][0]["stored"] == 0  # no stopped cell was stored


def test_limits_do_not_change_the_results_of_cells_within_them(tmp_path, capsys):
    runs = []
    for i, extra in enumerate(([], ["--cell-time", "1h", "--cell-memory", "100G"])):
        code, out, _ = _main(capsys, "check", "toy.power", "--json", "--scheduler", "serial", "--store",
                             str(tmp_path / f"s{i}"), *extra)
        assert code == 0
        runs.append([(r["estimate"], r["ci"]) for r in json.loads(out)])
    assert runs[0] == runs[1]


def test_the_plan_states_the_limits_and_defaults_the_time_limit_from_measured_estimates(tmp_path, capsys):
    store = str(tmp_path / "s")
    code, out, _ = _main(capsys, "check", "toy.power", "--plan", "--store", store)
    assert ("per-cell limits: no time limit (some cells have no measured, scaled or host-scaled reference estimate; "
            "set --cell-time)") in out
    assert _main(capsys, "check", "toy.power", "--scheduler", "serial", "--store", store)[0] == 0
    code, out, _ = _main(capsys, "check", "toy.power", "--seed", "3", "--plan", "--store", store)
    assert "per-cell limits: 600 s of compute (10x the largest estimate of one cell, at least 600 s)" in out
    timings = json.loads((tmp_path / "s" / "timings.json").read_text())
    timings["toy.power"] = {k: 100.0 for k in timings["toy.power"]}  # as if each cell had taken 100 s
    (tmp_path / "s" / "timings.json").write_text(json.dumps(timings))
    code, out, _ = _main(capsys, "check", "toy.power", "--seed", "3", "--plan", "--store", store)
    assert "per-cell limits: 1000 s of compute (10x the largest estimate" in out
    code, out, _ = _main(capsys, "check", "toy.power", "--seed", "3", "--plan", "--json", "--cell-time", "90m",
                         "--cell-memory", "2G", "--store", store)
    assert json.loads(out)["limits"] == {"seconds": 5400.0, "memory": 2.0 * 2 ** 30}
    code, out, _ = _main(capsys, "check", "toy.power", "--seed", "3", "--plan", "--json", "--cell-time", "none",
                         "--cell-memory", "none", "--store", store)
    assert json.loads(out)["limits"] == {"seconds": None, "memory": None}


@pytest.mark.parametrize("args,needle", [
    (["--cell-time", "5x"], "--cell-time must be a duration"),
    (["--cell-time", "0"], "--cell-time must be a duration"),
    (["--cell-time", "nan"], "--cell-time must be a duration"),
    (["--cell-time", "1e-300"], "of at least 1 ms"),
    (["--cell-time", "0.5ms"], "of at least 1 ms"),
    (["--cell-memory", "4Q"], "--cell-memory must be a size"),
    (["--cell-memory", "0.5"], "of at least 1 MiB"),
    (["--cell-memory", "4\u212a"], "--cell-memory must be a size"),  # the Kelvin sign, not K
    (["--cell-memory", "1e999"], "--cell-memory must be a size")])
def test_malformed_or_absurd_limits_are_refused_in_one_line_before_any_work(check_refused_at_plan, args, needle):
    check_refused_at_plan(["toy.power", *args], needle)


def test_exitfirst_and_limits_together_name_both_reasons_checks_were_not_run(tmp_path, capsys):
    code, out, _ = _main(capsys, "check", "toy.slow", "toy.borderline", "toy.power", "-x", "--cell-time", "0.1",
                         "--scheduler", "serial", "--store", str(tmp_path / "s"))
    assert code == 1
    assert "stopped at the first not as expected (-x) and 24 cells stopped by the per-cell limits" in out


@pytest.mark.slow
@pytest.mark.parametrize("signum,status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_while_a_serial_cell_is_past_its_limit_still_ends_the_run_with_its_status(tmp_path, signum, status):
    from tests.support import ENV, ROOT, SIMVERIFY, sigint_by_default
    from tests.toy_claims import STARTED
    started = tmp_path / "started"  # a cell has begun: the CLI's handlers are set (a fixed sleep from the launch
    proc = subprocess.Popen([*SIMVERIFY, "check", "toy.slow", "--set", "sleep=1", "--cell-time", "0.1", "--scheduler",
                             "serial", "--store", str(tmp_path / "s")], env={**ENV, STARTED: str(started)}, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=sigint_by_default)
    t0 = time.monotonic()  # lost that race to the interpreter's start on a loaded host: exit -15)
    while not started.exists() and proc.poll() is None and time.monotonic() - t0 < 120:
        time.sleep(0.01)
    time.sleep(0.3)  # inside a 1 s sleep whose stop is pending: the signal's handler is what the stop preempts
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == status and "Traceback" not in err
