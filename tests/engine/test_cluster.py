"""A sweep on a real Dask distributed cluster on loopback (a `dask scheduler` and two `dask worker`
processes): one worker is killed mid-run, the sweep completes, and its results equal a serial run's."""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import xarray as xr

from tests.support import ENV as SUPPORT_ENV
from tests.support import ROOT

pytestmark = pytest.mark.slow  # each test starts a Dask scheduler and workers

pytest.importorskip("distributed", reason="Dask distributed is not installed (pip install '.[dask]')")

ENV = {**SUPPORT_ENV, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)}
DASK = shutil.which("dask") or str(Path(sys.executable).with_name("dask"))
CLAIM = ["toy.slow", "--replicates", "4"]  # 48 cells of 0.25 s each


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(*args) -> subprocess.Popen:
    return subprocess.Popen([DASK, *args], cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


@pytest.fixture
def cluster():
    """(address, [worker processes]) of a scheduler and two single-threaded workers without nannies."""
    from distributed import Client
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs = [_start("scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard")]
    try:
        workers = [_start("worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard", "--name", f"w{i}")
                   for i in range(2)]
        procs += workers
        deadline = time.monotonic() + 60
        while True:
            try:
                with Client(address, timeout="5s") as client:
                    client.wait_for_workers(2, timeout=60)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        yield address, workers
    finally:
        for p in reversed(procs):
            _stop(p)


def _check(store: Path, *scheduler: str, wait=None) -> tuple[int, list[dict]]:
    proc = subprocess.Popen([sys.executable, "-m", "simverify.cli", "check", *CLAIM, "--json", "--store", str(store),
                             *scheduler], cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if wait is not None:
        wait(proc)
    out, err = proc.communicate(timeout=600)
    assert proc.returncode in (0, 1), err[-2000:]
    return proc.returncode, json.loads(out)


def test_sweep_survives_a_killed_worker_and_matches_a_serial_run(cluster, tmp_path):
    address, workers = cluster
    killed = []

    def kill_one_worker_mid_run(proc):
        deadline = time.monotonic() + 120
        while len(list((tmp_path / "dask").glob("cells/*/*.npz"))) < 6:
            assert proc.poll() is None, "the run ended before a worker could be killed"
            assert time.monotonic() < deadline
            time.sleep(0.05)
        os.killpg(workers[0].pid, signal.SIGKILL)
        killed.append(len(list((tmp_path / "dask").glob("cells/*/*.npz"))))

    code, recs = _check(tmp_path / "dask", "--scheduler", address, wait=kill_one_worker_mid_run)
    assert workers[0].wait(timeout=30) == -signal.SIGKILL and killed and killed[0] < 48  # killed mid-run
    serial_code, serial_recs = _check(tmp_path / "serial", "--scheduler", "serial")
    assert code == serial_code
    keys = ("verdict", "estimate", "ci", "band", "n_cells")
    assert [{k: r[k] for k in keys} for r in recs] == [{k: r[k] for k in keys} for r in serial_recs]
    with xr.open_dataset(recs[0]["store"]) as a, xr.open_dataset(serial_recs[0]["store"]) as b:
        xr.testing.assert_equal(a["y"], b["y"])
    assert len(list((tmp_path / "dask").glob("cells/*/*.npz"))) == 48
