"""The README a newcomer reads: every ```python block runs as written, in a fresh namespace, and prints exactly
the output the README shows after it (the ```text block that follows); the README stays short; its commands,
links and paper table agree with the project."""
import contextlib
import importlib
import io
import os
import re
import sys
import tomllib
from pathlib import Path

import pytest

from tests.support import ROOT

README = ROOT / "README.md"
TEXT = README.read_text(encoding="utf-8")
MAIN_JOB = "python -m pip install . && simverify check --all --tier quick --report simverify-report"
TEST_COMMAND = 'python -m pip install ".[test,dask]" && ruff check . && python -m pytest -q'
PAPERS = ("bitsubspace", "onebit", "slm", "andnmf", "crowd")


def python_blocks() -> list[tuple[int, str, str | None]]:
    """(line, code, shown output or None) of every ```python block; the output is the ```text block right after."""
    blocks = []
    for m in re.finditer(r"^```python\n(.*?)^```\n(?:\n```text\n(.*?)^```\n)?", TEXT, re.S | re.M):
        blocks.append((TEXT[:m.start()].count("\n") + 1, m.group(1), m.group(2)))
    return blocks


BLOCKS = python_blocks()


def test_the_readme_has_python_blocks_to_run():
    assert len(BLOCKS) >= 3  # the CLI's records, one solver, the crowd aggregators
    assert TEXT.count("```python") == len(BLOCKS)  # none escapes the pattern above


@pytest.mark.parametrize("line, code, shown", BLOCKS, ids=[f"README-line-{b[0]}" for b in BLOCKS])
@pytest.mark.slow
def test_readme_python_block_runs_in_a_fresh_namespace_and_prints_what_the_readme_shows(line, code, shown, tmp_path,
                                                                                         monkeypatch):
    monkeypatch.chdir(tmp_path)  # files a snippet writes (the store) land here
    monkeypatch.setenv("SIMVERIFY_STORE", str(tmp_path / "simverify-store"))
    monkeypatch.delenv("SIMVERIFY_PLUGINS", raising=False)  # a newcomer's environment: the five papers only
    monkeypatch.setenv("PATH", os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"README.md, block at line {line}", "exec"), {"__name__": "__readme__"})
    printed = out.getvalue()
    if printed:
        assert shown is not None, f"the block at README line {line} prints, but the README shows no output after it"
    if shown is not None:
        assert printed == shown


@pytest.mark.slow
def test_readme_verdict_line_is_the_line_the_cli_prints_for_that_claim(tmp_path):
    """The worked example's verdict line, up to its compute time, is what `simverify check` prints today."""
    import subprocess
    command, shown = re.search(r"^    (simverify check \S+)\n\n```text\n(.*?)^```", TEXT, re.S | re.M).groups()
    env = {**os.environ, "SIMVERIFY_STORE": str(tmp_path / "store")}
    env.pop("SIMVERIFY_PLUGINS", None)
    res = subprocess.run([sys.executable, "-m", "simverify.cli", *command.split()[1:]], capture_output=True,
                         text=True, env=env, cwd=tmp_path, timeout=600)
    assert res.returncode == 0, res.stderr

    def verdict_line(text: str) -> str:
        line = next(x for x in text.splitlines() if x.startswith("ok "))
        return " ".join(re.sub(r"\(\d+ cells, compute [\d.]+ s\)", "", line).split())
    assert verdict_line(shown) == verdict_line(res.stdout)


def test_readme_is_under_200_lines():
    assert len(TEXT.splitlines()) < 200


def test_readme_states_the_two_commands_and_ci_runs_its_test_command():
    section = TEXT.split("## The two commands", 1)[1].split("\n## ", 1)[0]
    assert f"    {MAIN_JOB}\n" in section and f"    {TEST_COMMAND}\n" in section
    assert (ROOT / ".ci" / "run").read_text().rstrip().endswith(TEST_COMMAND)


def test_readme_paper_table_lists_the_registered_papers_each_with_its_findings_page():
    registered = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]["simverify.claims"]
    assert set(registered) == set(PAPERS)
    keys = re.findall(r"^\| `([a-z]+)` \|", TEXT, re.M)
    assert sorted(keys) == sorted(PAPERS)
    for paper in PAPERS:
        assert f"(docs/findings/{paper}.md)" in TEXT


@pytest.mark.parametrize("paper", PAPERS)
def test_findings_page_opens_with_the_papers_citation_and_points_to_the_generated_paper_page(paper):
    citation = importlib.import_module(f"theorems.{paper}").CITATION
    head = "\n".join((ROOT / "docs" / "findings" / f"{paper}.md").read_text(encoding="utf-8").splitlines()[:10])
    assert citation.authors in head and citation.title in head and citation.arxiv in head
    assert f"reports/quick/papers/{paper}.html" in head


@pytest.mark.parametrize("page", ["README.md", "docs/README.md", *(f"docs/findings/{p}.md" for p in PAPERS),
                                  "docs/performance.md", "docs/calibration.md"])
def test_relative_links_of_the_readme_and_the_moved_pages_resolve_to_files_in_the_repository(page):
    path = ROOT / page
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text(encoding="utf-8"))
    local = [t for t in targets if not re.match(r"[a-z]+:", t)]
    missing = [t for t in local if not (path.parent / t).exists()]
    assert local and not missing
