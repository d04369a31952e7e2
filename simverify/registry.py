"""Where claims are registered. The engine knows no paper: claim modules register
themselves on import. Modules are found through the ``simverify.claims`` entry-point
group (the project's own papers are declared there in pyproject.toml) and
``$SIMVERIFY_PLUGINS`` (comma-separated module names)."""
from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from importlib.metadata import entry_points

from .claims import Citation, Claim
from .exceptions import UnknownClaim

_CLAIMS: dict[str, Claim] = {}
_NOT_CHECKED: dict[str, dict[str, str]] = {}  # paper key -> {item: why no claim checks it}
_CITATIONS: dict[str, Citation] = {}
_LOADED = False


def register(claim: Claim) -> Claim:
    """Add a claim; its controls become claims with ids ``<id>~<control>``."""
    for c in (claim, *[claim.with_control(ctrl) for ctrl in claim.controls]):
        if c.id in _CLAIMS and _CLAIMS[c.id] is not c:
            raise ValueError(f"claim id {c.id!r} registered twice")
        _CLAIMS[c.id] = c
    return claim


def register_paper(key: str, citation: Citation, not_checked: Mapping[str, str]) -> None:
    """Record a paper's citation and the items of it that no claim checks, each with the reason."""
    _CITATIONS[key] = citation
    _NOT_CHECKED[key] = dict(not_checked)


def register_not_checked(paper: str, items: Mapping[str, str]) -> None:
    """Record items of a paper that no claim checks, each with the reason (shown in the report)."""
    _NOT_CHECKED[paper] = dict(items)


def citation(paper: str) -> dict | None:
    """The citation record of a registered paper (authors, title, venue, year, arxiv, doi, text), or None."""
    load()
    c = _CITATIONS.get(paper)
    return c.as_record() if c is not None else None


def not_checked() -> dict[str, dict[str, str]]:
    """{paper key: {item: reason}} for the papers that declared items they do not reproduce."""
    load()
    return {p: dict(items) for p, items in sorted(_NOT_CHECKED.items()) if items}


def load() -> None:
    """Import every claim module once (idempotent)."""
    global _LOADED
    if _LOADED:
        return
    names = [ep.value for ep in entry_points(group="simverify.claims")]
    names += [n.strip() for n in os.environ.get("SIMVERIFY_PLUGINS", "").split(",") if n.strip()]
    for name in dict.fromkeys(names):
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is None or not name.startswith(exc.name):
                raise  # the plugin exists but one of its own imports is missing
            raise ValueError(f"cannot import claim plugin {name!r} (from SIMVERIFY_PLUGINS or the "
                             f"'simverify.claims' entry points): no module {exc.name!r}") from None
        except ImportError as exc:
            if not (exc.name or "").startswith("simverify"):
                raise  # the plugin's own import failed (a broken dependency): its traceback says where
            # the plugin imports a name this simverify does not have (written for another version)
            raise ValueError(f"cannot import claim plugin {name!r}: {' '.join(str(exc).split())}") from None
    _LOADED = True


def get(claim_id: str) -> Claim:
    """The registered claim (or control) with this id."""
    load()
    try:
        return _CLAIMS[claim_id]
    except KeyError:
        raise UnknownClaim(claim_id) from None


def position(claim_id: str) -> int | None:
    """Where a claim (or control) stands among its paper's registered claims and controls, in registration order
    (None if unknown): claims of other papers registering more or fewer never move it."""
    load()
    claim = _CLAIMS.get(claim_id)
    if claim is None:
        return None
    return [c.id for c in _CLAIMS.values() if c.paper == claim.paper].index(claim_id)


def all_claims(paper: str | None = None, controls: bool = True) -> list[Claim]:
    """Registered claims in registration order, optionally one paper's, with or without controls."""
    load()
    return [c for c in _CLAIMS.values()
            if (paper is None or c.paper == paper) and (controls or c.control_of is None)]


def papers() -> list[str]:
    """Keys of the papers that have registered claims, sorted."""
    return sorted({c.paper for c in all_claims()})
