"""The files of a new paper package, as ``simverify new-paper KEY`` writes them (docs/adding-a-paper.md).

The package has the contract's shape: ``__init__.py`` (the paper, its citation placeholder, ``validate``,
``footprint``, the claim modules imported), ``measures.py`` (one measure: the mean of n standard normals, whose
error falls like n^(-1/2)), ``sweeps.py`` (one Sweep, quick and full tiers), ``claims.py`` (one claim expected
CONFIRMED and its negative control expected REFUTED) and ``tests/test_KEY_claims.py`` inside the package, so the
package works the same from a directory on the path and installed as its own distribution.
"""
from __future__ import annotations

import datetime
import os
import secrets
import shutil
from pathlib import Path
from string import Template

INIT = '''\
"""$doc_title

Paper key ``$key``, written by ``simverify new-paper``: the contract's shape with one
placeholder claim that holds (the mean of n standard normals is off by about n^(-1/2)) and its negative
control. Replace, in this order: the citation below, the measure (``measures.py``), the sweep
(``sweeps.py``), the claim and its control (``claims.py``); keep ``PARAMETERS``, ``validate`` and
``footprint`` in step with the measure's parameters. The recipe: simverify's docs/adding-a-paper.md.
"""
from __future__ import annotations

from simverify.claims import Citation
from simverify.footprint import Footprint, size
from simverify.paper import Paper
from simverify.parameters import OneOrList
from simverify.validation import Integer

TITLE = $title
# Each parameter's constraint, checked for every cell when a run is planned (one line naming the bad value).
PARAMETERS = {"n": OneOrList(Integer(1)), "batches": Integer(1)}


def validate(p: dict) -> None:
    """Rules across parameters that PARAMETERS cannot state (a ValueError naming them); none yet."""


def footprint(p: dict) -> Footprint:
    """One cell's dominant array (one batch of n normals, 8 bytes each) and its work (batches x n normals, about
    20 floating-point operations each): the plan refuses cells past the machine's memory or a day of work."""
    n, batches = size(p, "n", 1), size(p, "batches", 1)
    return Footprint(8.0 * n, 20.0 * n * batches)


# A placeholder that is a valid Citation: replace authors, title, venue and year; add arxiv="..." or doi="...".
CITATION = Citation("A. Author, B. Author", "The title of the paper (placeholder)", "Venue (placeholder)", $year)
PAPER = Paper("$key", TITLE, CITATION, validate=validate, footprint=footprint,
              parameters=PARAMETERS)

# Importing the claim modules registers their claims (they use PAPER): one module per section of the paper.
from . import claims  # noqa: E402, F401
'''

MEASURES = '''\
"""The measures of paper ``$key``: module-level functions
``measure(seed, **params) -> {output: value}`` composing generators, solvers and metrics only. Keep claims,
laws and the registry out of this module: a cell's cache key hashes the source of this module and of what it
imports, so only a change of code recomputes its cells."""
from __future__ import annotations

import numpy as np


def measure_mean_error(seed: np.random.SeedSequence, *, n: int, batches: int = 100) -> dict[str, float]:
    """Root mean square of ``batches`` independent means of ``n`` standard normals (its square has mean 1/n).

    A measure with several random parts spawns its seed once and unpacks: ``s_model, s_data = seed.spawn(2)``."""
    rng = np.random.default_rng(seed)
    means = np.array([rng.standard_normal(n).mean() for _ in range(batches)])
    return {"rmse": float(np.sqrt(np.mean(means ** 2)))}
'''

SWEEPS = '''\
"""The simulations of paper ``$key``: one Sweep per simulation, its measure and its grid per tier.
Claims sharing a Sweep are judged on the same cached cells."""
from __future__ import annotations

from simverify.claims import Grid, Sweep, Tier

from . import measures as ms

# quick: seconds (tests, CI); full: the paper's sizes. Size the quick tier by power:
# simverify calibrate --paper $key --tier quick --seeds 20
MEAN_ERROR = Sweep("$key.mean_error", ms.measure_mean_error, {
    "quick": Tier(Grid({"n": [10, 100, 1000, 10_000]}), 8, {"batches": 100}),
    "full": Tier(Grid({"n": [10, 100, 1000, 10_000, 100_000]}), 20, {"batches": 400})})
'''

CLAIMS = '''\
"""The claims of paper ``$key`` (one module per section of the paper: rename this one after its
section)."""
from __future__ import annotations

from simverify.claims import Control
from simverify.laws import PowerLaw
from simverify.stats import REFUTED

from . import PAPER
from .sweeps import MEAN_ERROR

PAPER.claim("mean.rate_n", item="Eq. 1 (placeholder)",
            statement="The mean of n standard normals is off by about n^(-1/2).",
            formula=r"\\sqrt{E[\\bar{X}_n^2]} = n^{-1/2}",
            law=PowerLaw("rmse", "n", -0.5), sweep=MEAN_ERROR,
            controls=(Control("wrong_exponent", "the same data judged against the rate n^(-1)",
                              law=PowerLaw("rmse", "n", -1.0), expected=REFUTED),))
'''

TESTS_INIT = '''\
"""The claims test of paper ``$key``: python -m pytest $key/tests"""
'''

TEST = '''\
"""Paper ``$key``: every claim and control of the quick tier, run together as
``simverify check --paper $key`` does, reaches its expected verdict; the measure and the validation
behave."""
from __future__ import annotations

import numpy as np
import pytest
from simverify import registry, runner
from simverify.executors import SerialExecutor
from simverify.store import Store
from simverify.sweep import plan

from .. import PAPER, measures


def test_quick_tier_every_verdict_as_expected(tmp_path):
    claims = registry.all_claims(PAPER.key)
    assert claims and all(c.controls for c in registry.all_claims(PAPER.key, controls=False))
    records = runner.check(claims, "quick", Store(tmp_path / "store"), SerialExecutor(), root_seed=0)
    assert {r["id"]: r["verdict"] for r in records} == {r["id"]: r["expected"] for r in records}


def test_measure_mean_error_is_about_n_to_the_minus_half():
    out = measures.measure_mean_error(np.random.SeedSequence(0), n=400, batches=400)
    assert abs(out["rmse"] * 400 ** 0.5 - 1) < 0.2


def test_a_size_outside_the_model_is_refused_at_plan():
    with pytest.raises(ValueError, match="parameter batches must be a positive integer, got 0"):
        plan(registry.all_claims(PAPER.key)[0], "quick", overrides={"batches": 0})
'''

# path inside the parent directory -> template; ``$key`` in a path is the paper key
FILES: dict[str, str] = {
    "$key/__init__.py": INIT,
    "$key/measures.py": MEASURES,
    "$key/sweeps.py": SWEEPS,
    "$key/claims.py": CLAIMS,
    "$key/tests/__init__.py": TESTS_INIT,
    "$key/tests/test_${key}_claims.py": TEST,
}


def default_title(key: str) -> str:
    """The title a package gets when none is given."""
    return f"{key}: a new paper (placeholder title)"


def docstring_text(text: str) -> str:
    """``text`` safe inside a triple-quoted docstring (backslashes and quotes escaped)."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


def render(key: str, title: str, year: int | None = None) -> dict[str, str]:
    """{path relative to the parent directory: file text} of the package ``key`` titled ``title``; ``year`` is the
    citation placeholder's year (default: this year)."""
    values = {"key": key, "title": repr(title), "doc_title": docstring_text(title),
              "year": str(year or datetime.date.today().year)}
    return {Template(path).substitute(values): Template(text).substitute(values) for path, text in FILES.items()}


def write_package(parent: Path, key: str, title: str) -> Path:
    """Write package ``key`` into ``parent`` and return its path. The files are written into a new hidden
    directory beside it, renamed into place once complete: a failure leaves nothing behind, and an existing
    ``parent/key`` is never overwritten (FileExistsError). OSError when ``parent`` cannot be written."""
    target = parent / key
    staging = parent / f".{key}.new-{secrets.token_hex(4)}"
    os.mkdir(staging)
    try:
        for rel, text in render(key, title).items():
            path = staging / Path(rel).relative_to(key)
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "x", encoding="utf-8") as fh:
                fh.write(text)
        if os.path.lexists(target):
            raise FileExistsError(f"{target} already exists")
        os.rename(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target
