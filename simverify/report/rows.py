"""What the report shows, as data: rows in paper order with controls after their claim, counts by
verdict, the papers' refuted statements, provenance summaries and changes against an older store."""
from __future__ import annotations

import math
import re
from collections import Counter

from .. import registry
from ..stats import CONFIRMED, INCONCLUSIVE, REFUTED

VERDICTS = (CONFIRMED, REFUTED, INCONCLUSIVE)
NOT_RECORDED = "not recorded"


def fmt(x) -> str:
    try:
        return f"{float(x):.4g}"
    except (TypeError, ValueError):
        return str(x)


def interval(rec: dict) -> str:
    return f"{fmt(rec['estimate'])} [{fmt(rec['ci'][0])}, {fmt(rec['ci'][1])}]"


def band(rec: dict) -> str:
    b = rec.get("band")
    return f"[{fmt(b[0])}, {fmt(b[1])}]" if b else NOT_RECORDED


def as_expected(rec: dict) -> bool:
    return rec["verdict"] == rec["expected"]


_SENTENCE_END = re.compile(r"\.\s+(?=[A-Z])")
_ABBREVIATIONS = {"cf", "c.f", "e.g", "i.e", "fig", "eq", "sec", "ref", "vs", "al"}


def first_sentence(text: str | None) -> str:
    """The erratum's first sentence (its one-line form); a period after an abbreviation ("c.f.",
    "Fig.", "e.g.") does not end it."""
    if not text:
        return ""
    text = " ".join(text.split())
    for m in _SENTENCE_END.finditer(text):
        word = text[: m.start()].rsplit(" ", 1)[-1].lstrip("(").lower()
        if word not in _ABBREVIATIONS:
            return text[: m.start() + 1]
    return text


def level(x) -> str:
    """A confidence level with the digits that matter (0.99985, not 1)."""
    try:
        return f"{float(x):.6g}"
    except (TypeError, ValueError):
        return str(x)


def _registry_order() -> dict[str, int]:
    try:
        return {c.id: i for i, c in enumerate(registry.all_claims(None, controls=True))}
    except Exception:  # a broken plugin: fall back to the ids' order
        return {}


def ordered(records: list[dict]) -> list[dict]:
    """Records by paper, claims in registry order (unknown ids after, by id), each claim's controls
    right after it; a control whose claim is absent stands alone."""
    order = _registry_order()
    ids = {r["id"] for r in records}

    def rank(r: dict):
        return (order.get(r["id"], math.inf), r["id"], r["tier"])
    parents = sorted((r for r in records if not r.get("control_of") or r["control_of"] not in ids), key=rank)
    children: dict[str, list[dict]] = {}
    for r in sorted((r for r in records if r.get("control_of") in ids and r.get("control_of")), key=rank):
        children.setdefault(r["control_of"], []).append(r)
    out = []
    for p in sorted(parents, key=lambda r: (r["paper"],) + rank(r)):
        out.append(p)
        out += [c for c in children.pop(p["id"], []) if c["tier"] == p["tier"]]
    for rest in children.values():  # controls of another tier than the claim's row
        out += [c for c in rest if c not in out]
    return out


def paper_counts(records: list[dict]) -> dict[str, dict]:
    """Per paper: counts by verdict and how many are as expected."""
    out: dict[str, dict] = {}
    for r in records:
        c = out.setdefault(r["paper"], {"checks": 0, "as_expected": 0, **{v: 0 for v in VERDICTS}})
        c["checks"] += 1
        c["as_expected"] += as_expected(r)
        c[r["verdict"]] = c.get(r["verdict"], 0) + 1
    return out


def refuted_statements(records: list[dict]) -> list[dict]:
    """The papers' statements refuted as printed: claims (not controls) with an erratum."""
    return [r for r in records if r.get("erratum") and not r.get("control_of")]


def run_label(rec: dict) -> str:
    run = rec.get("run") or {}
    if not run:
        return NOT_RECORDED
    text = f"{rec.get('run_key', '?')}: seed {run.get('seed')}, R {rec.get('replicates')}"
    if run.get("overrides"):
        text += ", --set " + " ".join(f"{k}={v}" for k, v in run["overrides"].items())
    return text


def software_summary(records: list[dict]) -> dict[str, str]:
    """Each provenance field with the distinct values seen across the records (one value, typically)."""
    fields = ["git_commit", "simverify_version", "python_version", "numba_version", "numpy_version",
              "scipy_version", "xarray_version", "machine"]
    out = {}
    for f in fields:
        values = Counter(str((r.get("provenance") or {}).get(f, NOT_RECORDED)) for r in records)
        out[f] = ", ".join(values)
    dates = sorted(str((r.get("provenance") or {}).get("date") or r.get("finished", "")) for r in records)
    out["run dates"] = f"{dates[0]} .. {dates[-1]}" if dates and dates[0] != dates[-1] else (dates[0] if dates else "")
    return out


def run_summary(records: list[dict]) -> dict[str, str]:
    """The run settings across the records: tiers, root seeds, replicates, overrides, alpha, levels."""
    def distinct(values) -> str:
        return ", ".join(dict.fromkeys(str(v) for v in values)) or NOT_RECORDED
    runs = [r.get("run") or {} for r in records]
    overridden = [f"{r['id']}: {run['overrides']}" for r, run in zip(records, runs) if run.get("overrides")]
    return {"tier": distinct(r["tier"] for r in records), "root seed": distinct(r.get("seed") for r in records),
            "replicates": distinct(r.get("replicates") for r in records),
            "alpha (family-wise)": distinct(run.get("alpha", NOT_RECORDED) for run in runs),
            "per-claim level": distinct(level(r.get("confidence_level")) for r in records),
            "--set overrides": "; ".join(overridden) or "none"}


def changes(new: list[dict], old: list[dict]) -> list[dict]:
    """Per (claim, tier) in both: a changed verdict, or an interval that moved (disjoint from the old
    one, or an estimate shifted by more than the old half-width)."""
    before = {(r["id"], r["tier"]): r for r in old}
    out = []
    for r in new:
        o = before.get((r["id"], r["tier"]))
        if o is None:
            continue
        kinds = []
        if r["verdict"] != o["verdict"]:
            kinds.append(f"verdict {o['verdict']} -> {r['verdict']}")
        try:
            half = (o["ci"][1] - o["ci"][0]) / 2
            disjoint = r["ci"][0] > o["ci"][1] or r["ci"][1] < o["ci"][0]
            if disjoint or abs(r["estimate"] - o["estimate"]) > half:
                kinds.append(f"interval moved {interval(o)} -> {interval(r)}")
        except (TypeError, KeyError, IndexError):
            pass
        if kinds:
            out.append({"id": r["id"], "tier": r["tier"], "change": "; ".join(kinds), "old": o, "new": r})
    return out
