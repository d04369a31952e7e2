"""What the tests share that is not a fixture: the project's paths, the environment a CLI subprocess runs in, and the
helpers behind the fixtures of ``conftest.py`` (``cli``, ``assert_refused``, ``wait_for_cell``). Test modules take
those as fixtures and import from here only constants and ``sigint_by_default`` (a ``preexec_fn``, not a fixture)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the source checkout
TEST_DATA = ROOT / "tests" / "data"
SHIPPED_CROWD = ROOT / "simverify" / "datasets" / "data" / "crowd"
ENV = {**os.environ, "SIMVERIFY_PLUGINS": "tests.toy_claims", "PYTHONPATH": str(ROOT)}
SIMVERIFY = [sys.executable, "-m", "simverify.cli"]


def run_cli(*args, cwd=ROOT, timeout=600, **popen) -> subprocess.CompletedProcess:
    """``simverify ARGS`` in a subprocess with the toy claims registered; text output captured."""
    return subprocess.run([*SIMVERIFY, *args], check=False, capture_output=True, text=True, env=ENV, cwd=cwd,
                          timeout=timeout, **popen)


def assert_refused(res, *needles: str) -> None:
    """Exit status 2 with exactly one line on stderr naming the problem (each needle in it), and no traceback."""
    assert res.returncode == 2, (res.stdout, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("simverify: error: "), res.stderr
    for needle in needles:
        assert needle in lines[0]


def wait_for_cell(store: Path, proc: subprocess.Popen, timeout: float = 120, count: int = 1) -> None:
    """Return once the run ``proc`` stored ``count`` cells under ``store``; fail if it ended or stalled first."""
    deadline = time.time() + timeout
    while len(list(Path(store).rglob("cells/*/*.npz"))) < count:
        assert proc.poll() is None and time.time() < deadline, "the run ended or stalled before storing a cell"
        time.sleep(0.05)


def sigint_by_default() -> None:
    """A ``preexec_fn``: the child starts with SIGINT's default disposition. A test run launched in the
    background by a non-interactive shell inherits SIGINT ignored, and so would every child; Python then
    never raises KeyboardInterrupt and an interruption test would wait for a run that ignores Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
