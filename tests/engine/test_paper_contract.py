"""The paper-package contract (docs/adding-a-paper.md, "The contract"), held for every registered paper.

A cell's cache key hashes its measure's module and every project module that module imports (``code_closure``,
docs/store.md, "Keys"), so editing a claim's prose, an erratum, a report figure or the engine must recompute
nothing. That holds only if each paper keeps its measures, its sweeps and its claims in separate modules:

1. every measure (``claim.sweep.measure`` of every claim and control) lives in a module whose import closure
   holds no engine module (``ENGINE``), not the paper's own ``__init__``, no module that declares claims and no
   module of another paper;
2. every claim's ``Sweep`` is a module-level name of the paper's ``sweeps`` module (``sweeps.py``, or a
   ``<topic>_sweeps.py`` once that passes ~500 lines), a module that declares no claim and defines no measure;
3. the paper declares a ``Citation``;
4. ``tests/papers/test_<key>_claims.py`` exists.

Papers are found in the registry (``all_claims(None, controls=True)`` grouped by ``claim.paper``), not listed
here; the engine tests' toy plugins (modules of this test package, see conftest.py) are fixtures, not papers.
"""
from __future__ import annotations

import ast
import importlib
import importlib.util
import pkgutil
import sys
from collections import deque
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType

import pytest

from simverify import registry, sweep
from simverify.claims import Claim, Sweep
from simverify.keys import code_closure, module_source
from simverify.paper import Paper
from tests.support import ROOT

PAPER_TESTS = ROOT / "tests" / "papers"  # each paper's claims test
# modules that no measure may import (each name covers its submodules): what claims, laws, findings, the report
# and the CLI are written with, and the engine that plans, runs and stores cells
ENGINE = ("simverify.claims", "simverify.paper", "simverify.laws", "simverify.registry", "simverify.findings",
          "simverify.report", "simverify.cli", "simverify.console", "simverify.runner", "simverify.sweep",
          "simverify.store", "simverify.executors", "simverify.cache", "simverify.stats")


def _claims_by_paper() -> dict[str, list[Claim]]:
    papers: dict[str, list[Claim]] = {}
    for c in registry.all_claims(None, controls=True):
        papers.setdefault(c.paper, []).append(c)
    return papers


CLAIMS = _claims_by_paper()


@cache
def _parse(path: str) -> ast.AST:
    return ast.parse(Path(path).read_text(), filename=path)


def _tree(name: str) -> ast.AST:
    """Module ``name``'s syntax tree, found without importing it."""
    return _parse(importlib.util.find_spec(name).origin)


@cache
def home(key: str) -> ModuleType:
    """The module that creates paper ``key``'s ``Paper`` (its package ``__init__``): of the loaded modules holding
    that ``Paper`` at module level (its claim modules import it, a test may too), the one whose source calls
    ``Paper(...)``, nearest the root."""
    holders = [m for m in list(sys.modules.values()) if isinstance(m, ModuleType) and getattr(m, "__file__", None)
               and any(isinstance(v, Paper) and v.key == key for v in list(vars(m).values()))]
    makers = [m for m in holders if m.__file__.endswith(".py") and any(
        isinstance(node, ast.Call) and (getattr(node.func, "id", None) == "Paper"
                                        or getattr(node.func, "attr", None) == "Paper")
        for node in ast.walk(_parse(m.__file__)))]
    assert makers, f"paper {key}: no loaded module creates its Paper (modules holding it: {holders})"
    return min(makers, key=lambda m: (m.__name__.count("."), m.__name__))


def is_fixture(key: str) -> bool:
    """A paper of this test package (the toy plugins of the engine tests): its measures are defined here."""
    files = {getattr(sys.modules.get(c.sweep.measure.__module__), "__file__", None) for c in CLAIMS[key]}
    return all(f is not None and Path(f).resolve().is_relative_to(ROOT / "tests") for f in files)


PAPERS = sorted(key for key in CLAIMS if not is_fixture(key))


@cache
def modules(key: str) -> tuple[str, ...]:
    """The modules of paper ``key``: its package and every module under it (or its single module)."""
    top = home(key)
    if not hasattr(top, "__path__"):
        return (top.__name__,)
    return (top.__name__, *sorted(m.name for m in pkgutil.walk_packages(top.__path__, top.__name__ + ".")))


@cache
def claim_modules(key: str) -> frozenset[str]:
    """The modules of the paper that declare claims: their source calls ``<paper>.claim(...)``."""
    return frozenset(name for name in modules(key) if any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "claim"
        for node in ast.walk(_tree(name))))


def measure_modules(key: str) -> dict[str, list[str]]:
    """{module: the measures defined there} of the paper's claims and controls."""
    out: dict[str, list[str]] = {}
    for c in CLAIMS[key]:
        names = out.setdefault(c.sweep.measure.__module__, [])
        if c.sweep.measure.__qualname__ not in names:
            names.append(c.sweep.measure.__qualname__)
    return out


def forbidden(key: str, name: str) -> str | None:
    """Why module ``name`` may not be in a measure's closure of paper ``key`` (None when it may)."""
    engine = [e for e in ENGINE if name == e or name.startswith(e + ".")]
    if engine:
        return f"the engine module {engine[0]}"
    if name == home(key).__name__ and hasattr(home(key), "__path__"):
        return "the paper's __init__ (it imports every claim module)"
    if name in claim_modules(key):
        return "a module that declares claims"
    for other in PAPERS:
        if other != key and name in modules(other):
            return f"a module of paper {other}"
    return None


def import_chain(start: str, target: str, closure: set[str]) -> str:
    """The shortest import path start -> ... -> target inside ``closure`` (what to cut)."""
    parent = {start: None}
    todo = deque([start])
    while todo:
        name = todo.popleft()
        if name == target:
            break
        for nxt in sorted(module_source(name).imports):
            if nxt in closure and nxt not in parent:
                parent[nxt] = name
                todo.append(nxt)
    chain, name = [], target
    while name is not None:
        chain.append(name)
        name = parent.get(name)
    return " -> ".join(reversed(chain))


def test_every_project_paper_is_checked_and_found_in_the_registry():
    """The entry points' papers are all here, so a lookup that silently found nothing cannot pass this file."""
    declared = {ep.name for ep in entry_points(group="simverify.claims")}
    assert declared and declared <= set(PAPERS), f"papers not found in the registry: {sorted(declared - set(PAPERS))}"


@pytest.mark.parametrize("key", PAPERS)
def test_measure_modules_import_no_engine_init_claims_or_other_paper(key):
    assert claim_modules(key), f"paper {key}: no module of {home(key).__name__} calls .claim(: the scan is broken"
    bad = []
    for module, measures in sorted(measure_modules(key).items()):
        closure = {m.name for m in code_closure(module)}
        for name in sorted(closure):
            why = forbidden(key, name)
            if why and name == module:
                bad.append(f"paper {key}: measure {', '.join(measures)} is defined in {module}, itself {why}")
            elif why:
                bad.append(f"paper {key}: measure {', '.join(measures)} in module {module} imports {name} ({why}), "
                           f"via {import_chain(module, name, closure)}")
    assert not bad, ("a measure's cache key covers its module's import closure, so these imports make edits to "
                     "prose, errata, claims or the engine recompute its cells; move the measure to a module that "
                     "imports only kernels, generators, solvers, metrics and other measures (theorems/<key>/"
                     "measures.py or <topic>_measures.py):\n" + "\n".join(bad))


def _holds(module: ModuleType, sweep: Sweep) -> bool:
    """``sweep`` bound at module level, directly or in a module-level dict, list or tuple."""
    for v in list(vars(module).values()):
        if v is sweep or (isinstance(v, (dict, list, tuple))
                          and any(x is sweep for x in (v.values() if isinstance(v, dict) else v))):
            return True
    return False


def is_sweeps_module(name: str) -> bool:
    last = name.rpartition(".")[2]
    return last == "sweeps" or last.endswith("_sweeps")


@pytest.mark.parametrize("key", PAPERS)
def test_sweeps_are_declared_in_the_sweeps_module(key):
    loaded = {name: importlib.import_module(name) for name in modules(key)}
    sweeps_modules = [name for name in loaded if is_sweeps_module(name)]
    bad = []
    for c in CLAIMS[key]:
        if c.control_of is not None:  # a control runs its claim's sweep, or one derived from it (Claim.with_control)
            continue
        holders = [name for name, m in loaded.items() if _holds(m, c.sweep)]
        if not any(is_sweeps_module(name) for name in holders):
            bad.append(f"paper {key}: claim {c.id}: sweep {c.sweep.name!r} is declared in "
                       f"{', '.join(holders) or 'no module (built inside the claim)'}, not in "
                       f"{home(key).__name__}.sweeps; move it to the paper's sweeps.py")
    for name in sweeps_modules:
        if name in claim_modules(key):
            bad.append(f"paper {key}: sweeps module {name} declares claims; move them to a claim module")
        if name in measure_modules(key):
            bad.append(f"paper {key}: sweeps module {name} defines measures {', '.join(measure_modules(key)[name])}; "
                       "move them to the paper's measures.py")
    assert sweeps_modules, f"paper {key}: no sweeps module (theorems/{key}/sweeps.py)"
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("key", PAPERS)
def test_paper_declares_a_citation(key):
    assert registry.citation(key) is not None, (
        f"paper {key}: no Citation; declare PAPER = Paper({key!r}, title, Citation(...)) in its __init__")


@pytest.mark.parametrize("key", PAPERS)
def test_paper_has_its_claims_test(key):
    path = getattr(home(key), "__file__", None)
    if path is None or not Path(path).resolve().is_relative_to(ROOT):
        pytest.skip(f"paper {key} is a plugin from outside this repository")
    assert (PAPER_TESTS / f"test_{key}_claims.py").is_file(), (
        f"paper {key}: no tests/papers/test_{key}_claims.py (docs/adding-a-paper.md, 'Tests and benchmarks')")


@pytest.mark.parametrize("tier", ["quick", "full"])
@pytest.mark.parametrize("claim_id", [c.id for c in registry.all_claims(None) if c.paper in PAPERS])
def test_every_claim_and_control_plans_at_both_tiers(claim_id, tier):
    plan = sweep.plan(registry.get(claim_id), tier)
    assert plan.tasks and plan.replicates >= 1, claim_id


@pytest.mark.parametrize("claim_id", [c.id for c in registry.all_claims(None, controls=False) if c.paper in PAPERS])
def test_every_claim_has_a_registered_control_expecting_another_verdict(claim_id):
    claim = registry.get(claim_id)
    controls = [registry.get(f"{claim_id}~{ctrl.name}") for ctrl in claim.controls]
    assert controls and all(c.control_of == claim_id and c.paper == claim.paper for c in controls), claim_id
    assert any(c.expected != claim.expected for c in controls), (
        f"{claim_id} (expected {claim.expected}): no control expects another verdict")
