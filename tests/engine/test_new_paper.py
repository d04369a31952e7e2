"""``simverify new-paper KEY``: the package it writes passes ``simverify check --paper KEY`` (quick tier, every
verdict as expected) and its own claims test at once, is found as a plugin through $SIMVERIFY_PLUGINS and through
the ``simverify.claims`` entry point of an installed distribution; bad keys and directories are refused in one line
(exit 2) with nothing written."""
from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from simverify.cli import main
from simverify.cli import new_paper as cli_new_paper
from simverify.keys import code_closure
from tests.support import ROOT

KEY = "sixthpaper"
FILES = {"__init__.py", "measures.py", "sweeps.py", "claims.py", "tests/__init__.py", f"tests/test_{KEY}_claims.py"}


def _env(**extra: str) -> dict[str, str]:
    """This environment without the test suite's plugins (conftest's toy claims) or path, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in ("SIMVERIFY_PLUGINS", "PYTHONPATH")}
    return {**env, **extra}


def _cli(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "simverify.cli", *args], capture_output=True, text=True,
                          env=_env(**env), cwd=cwd, timeout=300)


def _tree(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if "__pycache__" not in p.parts}


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> tuple[Path, str]:
    """The package written once (in this process), and what the command printed."""
    parent = tmp_path_factory.mktemp("papers")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["new-paper", KEY, "--dir", str(parent), "--title", 'Doe (2026), "A Sixth Paper"']) == 0
    return parent, out.getvalue()


def test_writes_the_contracts_files_and_prints_the_next_steps(generated):
    parent, printed = generated
    assert _tree(parent / KEY) == FILES | {"tests"}
    assert 3 <= len(printed.strip().splitlines()) <= 5
    assert f"SIMVERIFY_PLUGINS={KEY} simverify check --paper {KEY}" in printed
    assert f'[project.entry-points."simverify.claims"] {KEY} = "{KEY}"' in printed
    assert 'TITLE = \'Doe (2026), "A Sixth Paper"\'' in (parent / KEY / "__init__.py").read_text()


def test_the_written_package_passes_the_projects_lint_even_at_the_longest_key_and_title(generated, tmp_path):
    parent, _ = generated
    longest = "k" * cli_new_paper.MAX_KEY
    assert main(["new-paper", longest, "--dir", str(tmp_path), "--title", "T" * cli_new_paper.MAX_TITLE]) == 0
    for cwd in (parent, tmp_path):  # from the package's parent, as its author lints it (simverify third-party)
        res = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--config",
                              str(ROOT / "pyproject.toml"), "."], capture_output=True, text=True, cwd=cwd)
        assert res.returncode == 0, res.stdout + res.stderr


@pytest.mark.parametrize("args, needle", [
    (["k" * 25], "is 25 characters; use at most 24"),
    (["mykey", "--title", "T" * 101], "--title takes 101 columns"),
    (["mykey", "--title", "\\" * 60], "--title takes 120 columns"),
    (["mykey", "--title", "\u4e2d" * 51], "--title takes 102 columns"),
])
def test_a_key_or_title_too_long_for_the_written_lines_is_refused(args, needle, tmp_path, capsys):
    assert main(["new-paper", *args, "--dir", str(tmp_path)]) == 2
    assert needle in capsys.readouterr().err and not any(tmp_path.iterdir())


def test_the_measure_module_imports_no_engine_module(generated, monkeypatch):
    """The contract's first rule (docs/adding-a-paper.md): a cell's key covers the measure module's imports only."""
    monkeypatch.syspath_prepend(str(generated[0]))
    assert [m.name for m in code_closure(f"{KEY}.measures")] == [f"{KEY}.measures"]


@pytest.mark.slow
def test_generated_paper_passes_its_quick_check_through_simverify_plugins(generated, tmp_path):
    parent, _ = generated
    res = _cli("check", "--paper", KEY, "--tier", "quick", "--scheduler", "serial", "--store", str(tmp_path / "s"),
               "--json", cwd=tmp_path, SIMVERIFY_PLUGINS=KEY, PYTHONPATH=str(parent))
    assert res.returncode == 0, res.stderr
    verdicts = {r["id"]: (r["verdict"], r["expected"]) for r in json.loads(res.stdout)}
    assert verdicts == {f"{KEY}.mean.rate_n": ("CONFIRMED", "CONFIRMED"),
                        f"{KEY}.mean.rate_n~wrong_exponent": ("REFUTED", "REFUTED")}


@pytest.mark.slow
def test_generated_claims_test_passes(generated, tmp_path):
    parent, _ = generated
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(parent / KEY / "tests")],
                         capture_output=True, text=True, env=_env(), cwd=tmp_path, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "3 passed" in res.stdout


@pytest.mark.slow
def test_an_installed_package_is_found_through_the_entry_point(tmp_path):
    """The distribution metadata an installer writes (what `pip install` makes of the documented pyproject.toml:
    a dist-info directory with entry_points.txt) is enough: no $SIMVERIFY_PLUGINS. The package is written by the
    command line with $SIMVERIFY_PLUGINS naming it before it exists (as a user who exported it first)."""
    key = "installedpaper"
    res = _cli("new-paper", key, "--dir", str(tmp_path), cwd=tmp_path, SIMVERIFY_PLUGINS=key)
    assert res.returncode == 0 and res.stderr == "", res.stderr
    info = tmp_path / f"{key}-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {key}\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text(f'[simverify.claims]\n{key} = {key}\n')
    res = _cli("list", "--paper", key, "--json", cwd=tmp_path.parent, PYTHONPATH=str(tmp_path))
    assert res.returncode == 0, res.stderr
    assert [r["id"] for r in json.loads(res.stdout)] == [f"{key}.mean.rate_n", f"{key}.mean.rate_n~wrong_exponent"]


def _refused(capsys, argv: list[str], root: Path) -> str:
    """Run ``argv``; assert a one-line refusal, exit 2, nothing printed on stdout, nothing written under root."""
    before = {p: p.stat().st_mtime_ns for p in root.rglob("*")}
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("simverify: error: ") and err.count("\n") == 1, err
    assert {p: p.stat().st_mtime_ns for p in root.rglob("*")} == before
    return err


@pytest.mark.parametrize("key, needle", [
    ("MyPaper", "lowercase Python identifier"), ("my-paper", "lowercase Python identifier"),
    ("1paper", "lowercase Python identifier"), ("", "lowercase Python identifier"),
    ("class", "Python keyword"), ("bitsubspace", "registered paper"), ("json", "importable module"),
    ("numpy", "importable module"), ("simverify", "importable module")])
def test_bad_keys_are_refused(capsys, tmp_path, key, needle):
    assert needle in _refused(capsys, ["new-paper", key, "--dir", str(tmp_path)], tmp_path)


def test_an_existing_package_or_module_is_never_overwritten(capsys, tmp_path):
    (tmp_path / KEY).mkdir()
    (tmp_path / KEY / "claims.py").write_text("# mine\n")
    assert "already exists" in _refused(capsys, ["new-paper", KEY, "--dir", str(tmp_path)], tmp_path)
    assert (tmp_path / KEY / "claims.py").read_text() == "# mine\n"
    (tmp_path / "other.py").write_text("# mine\n")
    assert "already holds a module" in _refused(capsys, ["new-paper", "other", "--dir", str(tmp_path)], tmp_path)


def test_bad_directories_and_titles_are_refused(capsys, tmp_path):
    (tmp_path / "file").write_text("")
    for where, needle in ((tmp_path / "missing", "does not exist"), (tmp_path / "file", "not a directory")):
        assert needle in _refused(capsys, ["new-paper", KEY, "--dir", str(where)], tmp_path)
    assert "printable" in _refused(capsys, ["new-paper", KEY, "--dir", str(tmp_path), "--title", "a\nb"], tmp_path)


def test_an_unwritable_directory_is_refused(capsys, tmp_path, monkeypatch):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    if os.geteuid() == 0:  # root may write anywhere: what a user without the permission sees
        monkeypatch.setattr(cli_new_paper.os, "access", lambda path, mode: Path(path) != locked)
    try:
        assert "not writable" in _refused(capsys, ["new-paper", KEY, "--dir", str(locked)], tmp_path)
    finally:
        locked.chmod(0o755)
