"""The CLI as used on a terminal: --version, help with defaults, progress, result lines, a closed pipe,
a missing Dask extra, `cache`, `report --compare`, and stores of another layout."""
from __future__ import annotations

import importlib.util
import json
import os
import pty
import subprocess
import sys

import pytest

from simverify import cli, provenance
from tests.support import ENV, ROOT


def run(*args, env=None, **kw):
    return subprocess.run([sys.executable, "-m", "simverify.cli", *args], capture_output=True, text=True,
                          cwd=ROOT, env=env or ENV, check=False, timeout=600, **kw)


def test_version_names_the_package_version_and_commit():
    res = run("--version")
    assert res.returncode == 0
    from simverify import __version__
    assert res.stdout.strip() == f"simverify {__version__} (commit {provenance.git_commit()[:12]})"


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
    res = run("check", "toy.power", "-v", "--scheduler", "serial", "--store", str(tmp_path / "s"),
              env={**ENV, "SIMVERIFY_PROGRESS": "1"})
    assert res.returncode == 0, res.stderr
    assert "cells 0/32: starting workers, compiling kernels" in res.stderr
    assert "cells 32/32" in res.stderr and "/s" in res.stderr
    line = next(x for x in res.stdout.splitlines() if x.startswith("ok toy.power"))
    assert "band [1.9, 2.1] level 0.99" in line and "compute" in line
    assert "wall" in res.stdout.splitlines()[-1]


def record(cid="p.c", verdict="CONFIRMED", expected="CONFIRMED", paper="p", **extra) -> dict:
    """A verdict record as runner.record_for writes it (the keys the terminal output reads)."""
    return {"id": cid, "paper": paper, "verdict": verdict, "expected": expected, "estimate": 2.0, "ci": [1.95, 2.05],
            "band": [1.9, 2.1], "confidence_level": 0.9998, "n_cells": 5, "elapsed_s": 1.0, "advice": "",
            "outcome": None, "finding": None, "erratum": "", **extra}


ERRATUM = {"kind": "erratum", "text": "The proof treats V_k as Laplace(1). For Gaussian sketches it is not."}


def test_verbose_line_shows_outcome_estimate_interval_band_and_the_finding_first_sentence_by_kind(capsys):
    rec = record(verdict="REFUTED", expected="REFUTED", outcome="REFUTED", estimate=1.27, ci=[1.26, 1.28],
                 band=[float("-inf"), 1.02], finding=ERRATUM)
    reporter = cli.Reporter(["p.c", "p.d"], verbosity=1)
    reporter(rec)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("ok p.c") and "REFUTED" in out[0]
    assert "est 1.27 [1.26, 1.28] band [-inf, 1.02] level 0.99980" in out[0]
    assert out[1].strip() == "erratum: The proof treats V_k as Laplace(1)."  # the first sentence only


def test_the_result_word_is_the_outcome_and_a_differing_expectation_is_named(capsys):
    reporter = cli.Reporter(["p.c", "p.d"], verbosity=1)
    reporter(record(outcome="REPRODUCED"))
    reporter(record(cid="p.d", verdict="INCONCLUSIVE", outcome="INCONCLUSIVE", advice="about 40 replicates"))
    first, second, advice = capsys.readouterr().out.splitlines()
    assert "REPRODUCED" in first and "CONFIRMED" not in first and first.startswith("ok ")
    assert second.startswith("!! p.d") and "INCONCLUSIVE (expected CONFIRMED)" in second
    assert advice.strip() == "about 40 replicates"


def test_default_output_is_one_character_per_check_per_paper_then_findings_unexpected_and_summary(capsys):
    records = [record("p.a"), record("p.b", verdict="REFUTED", expected="REFUTED", outcome="REFUTED", finding=ERRATUM),
               record("p.c", verdict="INCONCLUSIVE", advice="about 40 replicates"),
               record("q.a", paper="q", outcome="LOOSE", finding={"kind": "loose", "text": "Loose by 3x. Holds."})]
    reporter = cli.Reporter([r["id"] for r in records], verbosity=0, width=60)
    for r in records:
        reporter(r)
    reporter.finish(records, wall=2.0)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("p .xF ") and lines[0].endswith("[3/4]") and len(lines[0]) == 59
    assert lines[1].startswith("q x ") and lines[1].endswith("[4/4]")
    findings, unexpected = lines.index("findings (as expected):"), lines.index("not as expected:")
    assert [x.split()[1] for x in lines[findings + 1:unexpected] if x.startswith("ok ")] == ["p.b", "q.a"]
    assert "     erratum: The proof treats V_k as Laplace(1)." in lines and "     loose: Loose by 3x." in lines
    assert lines[unexpected + 1].startswith("!! p.c") and "about 40 replicates" in lines[unexpected + 2]
    assert lines[-1] == "3 as expected, 1 not as expected; findings: 1 erratum, 1 loose; wall 2.0 s"


def test_quiet_prints_only_what_is_not_as_expected_and_the_summary(capsys):
    records = [record("p.a"), record("p.c", verdict="INCONCLUSIVE"), record("p.b", expected="REFUTED",
                                                                        verdict="REFUTED", finding=ERRATUM)]
    reporter = cli.Reporter([r["id"] for r in records], verbosity=-1)
    for r in records:
        reporter(r)
    reporter.finish(records, wall=1.0)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and lines[0].startswith("!! p.c")
    assert lines[1].startswith("2 as expected, 1 not as expected; findings: 1 erratum")


def test_numbers_get_the_digits_that_tell_interval_and_band_apart():
    # was "est 90.68 band [90.7, 90.7]": the band's edges printed alike
    est, lo, hi, band_lo, band_hi = cli.distinct_figures([90.68, 90.664, 90.697, 90.65, 90.71])
    assert (band_lo, band_hi) == ("90.65", "90.71") and (lo, hi) == ("90.66", "90.7")
    # an interval's bound just inside the band's edge prints below it
    assert cli.distinct_figures([2.05, 2.0, 2.09999, 1.9, 2.1]) == ["2.05", "2", "2.09999", "1.9", "2.1"]
    assert cli.distinct_figures([1.0, float("-inf"), float("nan"), None, 1.0]) == ["1", "-inf", "nan", "n/a", "1"]
    line = cli.result_line(record(estimate=90.68, ci=[90.664, 90.697], band=[90.65, 90.71]))
    assert "est 90.68 [90.66, 90.7] band [90.65, 90.71]" in line


@pytest.mark.slow
def test_the_first_claims_line_is_on_the_terminal_while_later_cells_still_run(tmp_path):
    """Through a pseudo-terminal: toy.power's character appears while toy.slow's 24 cells (0.25 s each) run."""
    store = tmp_path / "s"
    pid, fd = pty.fork()
    if pid == 0:  # the child: simverify on the terminal
        try:
            os.chdir(ROOT)
            os.execve(sys.executable, [sys.executable, "-m", "simverify.cli", "check", "toy.power", "toy.slow",
                                       "--scheduler", "serial", "--store", str(store)], {**ENV, "COLUMNS": "100"})
        finally:
            os._exit(127)
    seen, finished_then = b"", None
    try:
        while True:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
            if finished_then is None and b"toy ." in seen:
                finished_then = sorted(store.rglob("results/*/*.json"))
                slow_cells = len(list(store.rglob("cells/*/*.npz"))) - 32
    finally:
        _, status = os.waitpid(pid, 0)
    text = seen.decode()
    assert finished_then is not None, text
    assert [p.parent.name for p in finished_then] == ["toy.power"] and slow_cells < 24
    assert "cells 0/56: starting workers" in text  # the progress shares the line, after the characters
    lines = [line.strip() for line in text.replace("\r\n", "\n").split("\n")]
    summary = [i for i, line in enumerate(lines) if line.startswith("1 as expected, 1 not as expected")]
    note = [i for i, line in enumerate(lines) if line.startswith("simverify: controls not run: toy.power~wrong")]
    assert os.waitstatus_to_exitcode(status) == 1, text  # toy.slow is INCONCLUSIVE at 2 replicates
    assert len(summary) == 1 and len(note) == 1 and note[0] > summary[0], text  # said once, after the summary


def test_dask_scheduler_without_the_extra_is_refused_naming_the_extra(monkeypatch, tmp_path, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "distributed" else real(name, *a))
    code = cli.main(["check", "toy.power", "--scheduler", "dask", "--store", str(tmp_path / "s")])
    assert code == 2
    assert "install simverify[dask]" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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
