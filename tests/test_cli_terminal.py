"""The CLI as used on a terminal: --version, help with defaults, progress, result lines, a closed pipe,
a missing Dask extra, `cache`, `report --compare`, and stores of another layout."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

from simverify import cli, sweep

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "SIMVERIFY_PLUGINS": "tests.toy_claims"}


def run(*args, env=None, **kw):
    return subprocess.run([sys.executable, "-m", "simverify.cli", *args], capture_output=True, text=True,
                          cwd=ROOT, env=env or ENV, check=False, timeout=600, **kw)


def test_version_names_the_package_version_and_commit():
    res = run("--version")
    assert res.returncode == 0
    from simverify import __version__
    assert res.stdout.strip() == f"simverify {__version__} (commit {sweep.git_commit()[:12]})"


def test_every_option_has_help_and_check_and_calibrate_show_their_defaults():
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, sp in sub.choices.items():
        for action in sp._actions:
            if action.dest == "help":
                continue
            assert action.help, f"{name} {action.dest} has no help"
        text = sp.format_help()
        if name in ("check", "calibrate"):
            assert "(default: quick)" in text and "(default: 0.01)" in text and "(default: 0)" in text


def test_a_closed_standard_output_ends_quietly_with_141():
    proc = subprocess.Popen([sys.executable, "-m", "simverify.cli", "list", "--json"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT, env=ENV)
    proc.stdout.close()  # the reader is gone before the first write (as `| head` after its lines)
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141
    assert "Traceback" not in err and "BrokenPipe" not in err


def test_progress_shows_the_start_up_phase_cells_rate_and_the_wall_time(tmp_path):
    res = run("check", "toy.power", "--scheduler", "serial", "--store", str(tmp_path / "s"),
              env={**ENV, "SIMVERIFY_PROGRESS": "1"})
    assert res.returncode == 0, res.stderr
    assert "cells 0/32: starting workers, compiling kernels" in res.stderr
    assert "cells 32/32" in res.stderr and "/s" in res.stderr
    line = next(x for x in res.stdout.splitlines() if x.startswith("ok toy.power"))
    assert "band [1.9, 2.1] level 0.99" in line and "compute" in line
    assert "wall" in res.stdout.splitlines()[-1]


def test_result_line_of_an_expected_refuted_shows_the_erratum_first_words(capsys):
    rec = {"id": "p.c", "verdict": "REFUTED", "expected": "REFUTED", "estimate": 1.27, "ci": [1.26, 1.28],
           "band": [float("-inf"), 1.02], "confidence_level": 0.9998, "n_cells": 5, "elapsed_s": 1.0,
           "erratum": "The proof treats V_k as Laplace(1) but for Gaussian sketches it is not."}
    cli._print_table([rec], wall=2.0)
    out = capsys.readouterr().out
    assert "band [-inf, 1.02] level 0.99980" in out
    assert "erratum: The proof treats V_k as Laplace(1) but for ..." in out


def test_dask_scheduler_without_the_extra_is_refused_naming_the_extra(monkeypatch, tmp_path, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "distributed" else real(name, *a))
    code = cli.main(["check", "toy.power", "--scheduler", "dask", "--store", str(tmp_path / "s")])
    assert code == 2
    assert "install simverify[dask]" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()


def test_cache_info_and_clean_from_the_command_line(tmp_path):
    store = tmp_path / "s"
    assert run("check", "toy.power", "--scheduler", "serial", "--store", str(store)).returncode == 0
    info = run("cache", "info", "--json", "--store", str(store))
    assert info.returncode == 0, info.stderr
    data = json.loads(info.stdout)
    assert data["cells"] == 32 and data["cells_per_claim"]["toy.power"] == 32 and data["old_code_cells"] == 0
    clean = run("cache", "clean", "--store", str(store))
    assert clean.returncode == 0 and clean.stdout.startswith("removed 0 cells")
    assert run("cache", "clean", "--all", "--store", str(store)).stdout.startswith("removed 32 cells")


def test_report_compare_prints_what_changed(tmp_path):
    for name, seed in (("old", "0"), ("new", "3")):
        assert run("check", "toy.power", "--scheduler", "serial", "--seed", seed,
                   "--store", str(tmp_path / name)).returncode == 0
    res = run("report", "--store", str(tmp_path / "new"), "--out", str(tmp_path / "site"),
              "--compare", str(tmp_path / "old"))
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[0].endswith("index.html")
    missing = run("report", "--store", str(tmp_path / "new"), "--out", str(tmp_path / "x"),
                  "--compare", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "holds no results" in missing.stderr and not (tmp_path / "x").exists()


def test_a_store_of_another_layout_is_refused_by_check_and_report_before_any_work(tmp_path):
    old = tmp_path / "old"
    (old / "results").mkdir(parents=True)
    (old / "results" / "toy.power.quick.json").write_text("{}")
    for args in (["check", "toy.power", "--scheduler", "serial"], ["report", "--out", str(tmp_path / "site")],
                 ["cache", "info"]):
        res = run(*args, "--store", str(old))
        assert res.returncode == 2, args
        assert res.stderr.count("\n") == 1 and "has layout 1" in res.stderr
    assert sorted(p.name for p in old.iterdir()) == ["results"] and not (tmp_path / "site").exists()
