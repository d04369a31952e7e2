"""The verdict record: what one run concluded about one claim, as stored (``results/<claim>/<tier>-<run>.json``),
printed by ``check --json`` and collected in a report's ``results.json`` (docs/store.md).

One place reads and writes it: :func:`dumps` and :func:`loads` (the store reads and writes the files). A record carries
``record_version``; records written before versioning (version 1) are read and upgraded on load, a record of a
newer version than this code reads is refused, naming both versions. :class:`VerdictRecord` types its fields.
"""
from __future__ import annotations

import json
import re
from numbers import Real
from typing import Any, TypedDict

import numpy as np

RECORD_VERSION = 2  # 2: record_version, law_digest and order added (1: the records written before them)


class VerdictRecord(TypedDict, total=False):
    """One claim's verdict of one run. ``ci`` and ``band`` are [low, high] on the estimate's scale."""
    record_version: int
    id: str  # the claim id, "<paper>.<name>" or "<paper>.<name>~<control>"
    paper: str
    item: str  # the paper's item ("Lemma 1", "Table 4")
    statement: str
    formula: str
    law: str  # the law's kind (PowerLaw, Bound, ...)
    law_digest: str | None  # declaration_digest of the law that judged it: the report draws only with that law
    order: int | None  # the claim's position among its paper's registered claims when judged (report order)
    verdict: str  # CONFIRMED, REFUTED or INCONCLUSIVE
    expected: str
    outcome: str  # findings.outcome: what the verdict means for the paper (REPRODUCED, ERRATUM, ...)
    estimate: float | None
    ci: list[float]
    claimed: str
    band: list[float]
    scale: str  # "linear", or "log" for a ratio
    n_cells: int
    replicates: int
    elapsed_s: float
    store: str | None  # the Dataset's absolute path when it was written
    dataset: str | None  # the Dataset's path inside the store
    tier: str
    seed: int
    overrides: dict[str, Any]
    confidence_level: float
    finding: dict | None
    erratum: str | None
    control_of: str | None
    advice: str
    citation: dict | None
    detail: dict
    finished: str  # ISO time
    run: dict  # runner.run_info: the settings that identify the run, and its start
    run_key: str
    provenance: dict
    table: dict | None
    tier_sizes: dict  # Sweep.tier_sizes: per tier the declared parameters that differ between the tiers


# a claim id: "<paper>.<name>" or "<paper>.<name>~<control>"; it names files and pages, so never a path
CLAIM_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*(~[A-Za-z0-9_.\-]+)?")


def is_claim_id(value) -> bool:
    """``value`` can be a claim id (CLAIM_ID, no '..')."""
    return isinstance(value, str) and bool(CLAIM_ID.fullmatch(value)) and ".." not in value


PAPER_KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_\-]*")  # a paper's key names its page: never a path


def is_paper_key(value) -> bool:
    """``value`` can be a record's ``paper``: a key that names a file (PAPER_KEY)."""
    return isinstance(value, str) and bool(PAPER_KEY.fullmatch(value))


def is_order(value) -> bool:
    """``value`` can be a record's ``order``: an int in [0, 2^31)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2 ** 31


def _number(v) -> bool:
    return isinstance(v, Real) and not isinstance(v, bool)


def _numbers(n: int):
    return lambda v: isinstance(v, list) and len(v) == n and all(_number(x) for x in v)


def _optional(kind):
    return lambda v: v is None or kind(v)


# the fields a record must hold, with what each must be, for a report, a comparison or a calibration to use it
REQUIRED = {"id": is_claim_id, "paper": is_paper_key,
            **{k: str for k in ("item", "tier", "verdict", "expected", "law", "claimed", "statement")},
            "estimate": _optional(_number), "ci": _numbers(2)}
# fields a record may lack (or hold None), checked when present: what the report reads from them
OPTIONAL = {"band": _numbers(2), "run": dict, "overrides": dict, "detail": dict, "finding": dict, "table": dict,
            "provenance": dict, "citation": dict, "law_digest": str, "tier_sizes": dict,
            "order": is_order,
            "control_of": str, "run_key": str, "finished": str, "erratum": str, "advice": str,
            "replicates": lambda v: isinstance(v, int) and not isinstance(v, bool),
            "confidence_level": _number}
_UPGRADE_1 = {"law_digest": None, "order": None}  # what version 2 added; unknown for a version-1 record


def _fits(kind, value) -> bool:
    return isinstance(value, kind) if isinstance(kind, type) else bool(kind(value))


def _shown(value) -> str:
    """A bad value for a one-line message: its repr, cut to 40 characters."""
    try:
        text = repr(value)
    except ValueError:  # an int too long to print
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 40 else text[:37] + "..."


def problem(rec: Any) -> str | None:
    """Why ``rec`` is not a usable verdict record (one line), or None when it is."""
    if not isinstance(rec, dict):
        return "not a verdict record"
    version = rec.get("record_version", 1)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        return f"malformed record (record_version {_shown(version)})"
    if version > RECORD_VERSION:
        return f"a record of version {_shown(version)}; this simverify reads versions up to {RECORD_VERSION}"
    for name, kind in REQUIRED.items():
        if name not in rec:
            return f"malformed record (field {name!r} missing)"
        if not _fits(kind, rec[name]):
            return f"malformed record (field {name!r} is {_shown(rec[name])})"
    for name, kind in OPTIONAL.items():
        if rec.get(name) is not None and not _fits(kind, rec[name]):
            return f"malformed record (field {name!r} is {_shown(rec[name])})"
    return None


def upgrade(rec: dict) -> VerdictRecord:
    """The record at RECORD_VERSION: a version-1 record gains the fields added since, as unknown."""
    if rec.get("record_version", 1) < 2:  # each version's step in turn, so a later one chains after it
        rec = {**_UPGRADE_1, **rec, "record_version": 2}
    return rec  # type: ignore[return-value]


def loads(text: str | dict) -> VerdictRecord:
    """A record from its JSON text (or the parsed object), upgraded; ValueError naming the problem."""
    rec = json.loads(text) if isinstance(text, str) else text
    why = problem(rec)
    if why:
        raise ValueError(why)
    return upgrade(rec)


def dumps(rec: VerdictRecord | dict, indent: int | None = 1) -> str:
    """The record as JSON (NumPy scalars and arrays as numbers and lists)."""
    return json.dumps(rec, indent=indent, default=json_default)


def json_default(o):
    """JSON for NumPy scalars (numbers) and arrays (lists), for ``json.dumps(default=...)``."""
    if isinstance(o, (np.floating, np.integer)):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")
