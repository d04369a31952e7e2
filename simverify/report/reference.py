"""The committed references: ``reports/quick`` (every registered check) and ``reports/full`` (the claims run at the
papers' own sizes so far), each from default runs judged at the whole suite's per-check level, with a coverage
block saying what was run, how long it took and what was left out."""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..claims import TIERS, Claim
from ..stats import bonferroni, format_seconds
from .markdown import cell
from .site import esc

REFERENCES = {tier: Path("reports") / tier for tier in TIERS}  # the committed reference of each tier
LEVEL_RTOL = 0.01  # a leg's 1 - level may differ from the suite's by 1 % of it: an alpha given to 3 digits


@dataclass
class Coverage:
    """What a reference shows of the registered checks. ``papers``: per paper its checks shown, registered and
    the compute seconds its distinct cell sets took in the runs shown (cells a run found stored count 0);
    ``runs``: per run (its key and start) the checks it judged together, the papers shown from it and its wall
    seconds (start to its last verdict shown); ``not_run``: registered claim ids (with their controls) left out."""
    tier: str
    papers: list[dict] = field(default_factory=list)
    runs: list[dict] = field(default_factory=list)
    not_run: list[str] = field(default_factory=list)

    def _not_run(self) -> str:
        n = len(self.not_run)
        return f"Not run at this tier at the suite's level ({n} claim{'s' * (n != 1)}, with their controls): "

    def markdown(self) -> list[str]:
        """The block as Markdown lines (report.md)."""
        lines = ["## This reference", "", f"Tier {cell(self.tier)}: {sum(p['shown'] for p in self.papers)} of "
                 f"{sum(p['registered'] for p in self.papers)} registered checks, each judged at the whole suite's "
                 "per-check level.", "", "| paper | checks shown | registered | compute in these runs |",
                 "|---|---|---|---|"]
        lines += [f"| {cell(p['paper'])} | {p['shown']} | {p['registered']} | {format_seconds(p['compute_s'])} |"
                  for p in self.papers]
        lines += ["", "| run started | checks judged together | papers shown | wall |", "|---|---|---|---|"]
        lines += [f"| {cell(r['started'])} | {cell(r['checks'])} | {cell(', '.join(r['papers']))} | "
                  f"{format_seconds(r['wall_s'])} |" for r in self.runs]
        if self.not_run:
            lines += ["", self._not_run() + ", ".join(f"`{i}`" for i in self.not_run) + "."]
        return lines

    def html(self) -> str:
        """The block as HTML (index.html)."""
        papers = "".join(f"<tr><td>{esc(p['paper'])}</td><td>{esc(p['shown'])}</td><td>{esc(p['registered'])}</td>"
                         f"<td>{esc(format_seconds(p['compute_s']))}</td></tr>" for p in self.papers)
        runs = "".join(f"<tr><td>{esc(r['started'])}</td><td>{esc(r['checks'])}</td><td>{esc(', '.join(r['papers']))}"
                       f"</td><td>{esc(format_seconds(r['wall_s']))}</td></tr>" for r in self.runs)
        missing = (f"<p>{esc(self._not_run())}" + ", ".join(f"<code>{esc(i)}</code>" for i in self.not_run)
                   + ".</p>") if self.not_run else ""
        return (f"<h2>This reference</h2><p>Tier {esc(self.tier)}, every check judged at the whole suite's "
                "per-check level.</p><table><tr><th>paper</th><th>checks shown</th><th>registered</th>"
                f"<th>compute in these runs</th></tr>{papers}</table><table><tr><th>run started</th><th>checks "
                f"judged together</th><th>papers shown</th><th>wall</th></tr>{runs}</table>{missing}")


def at_suite_level(rec: dict, level: float) -> bool:
    """A row from a run at the tier's own settings (root seed 0, no --set, no --replicates) judged at ``level``,
    the whole suite's per-check level: a run of every check at the default alpha, or of some checks with alpha
    scaled to their number (to 3 digits: LEVEL_RTOL)."""
    run = rec.get("run") or {}
    own = rec.get("confidence_level")
    if not isinstance(own, (int, float)) or isinstance(own, bool) or not math.isfinite(own):
        return False
    seed = run.get("seed", rec.get("seed"))
    return (type(seed) is int and seed == 0 and not run.get("overrides") and run.get("replicates") is None
            and abs((1.0 - own) - (1.0 - level)) <= LEVEL_RTOL * (1.0 - level))


def _latest_at_level(records: Sequence[dict], tier: str, level: float) -> dict[str, dict]:
    """Per claim id, its latest row of ``tier`` judged at ``level`` (at_suite_level)."""
    out: dict[str, dict] = {}
    for r in records:
        if r.get("tier") == tier and at_suite_level(r, level) and str(r.get("finished", "")) >= str(
                out.get(r["id"], {}).get("finished", "")):
            out[r["id"]] = r
    return out


def reference_rows(store_root: Path, tier: str, registered: Sequence[Claim], records: Sequence[dict],
                   alpha: float) -> tuple[list[dict], list[str], Coverage]:
    """(rows shown, stored ids no registered claim has, coverage) of the reference of ``tier`` from ``records``
    (every readable record of the store), each claim's latest row judged at the suite's per-check level
    (``alpha`` over every registered check). quick: every registered check is required; full: a claim is shown
    with its controls when every one of them has such a row, the others are listed as not run, and at least one
    claim is required. ValueError (one line) naming what is missing and the --alpha a leg of N checks needs."""
    ids = [c.id for c in registered]
    level = bonferroni(1.0 - alpha, len(ids))
    rows = _latest_at_level(records, tier, level)
    of_tier = {r["id"] for r in records if r.get("tier") == tier}
    families: dict[str, list[str]] = {}
    for c in registered:
        families.setdefault(c.control_of or c.id, []).append(c.id)
    complete = [head for head, members in families.items() if all(m in rows for m in members)]
    if (tier == "quick" and len(complete) < len(families)) or not complete:
        missing = [i for i in ids if i not in of_tier]
        off = [i for i in ids if i in of_tier and i not in rows]
        what = "; ".join(x for x in (f"{len(missing)} checks not run ({_some(missing)})" if missing else "",
                                     f"{len(off)} not from a default run judged at the suite's level ({_some(off)})"
                                     if off else "") if x)
        raise ValueError(f"store {store_root} does not hold the {tier} reference run: {what}; run 'simverify check "
                         f"--all --tier {tier} --store {store_root}' (stored cells are reused), or legs of N checks "
                         f"with --alpha {alpha:g}*N/{len(ids)}")
    keep = {m for head in complete for m in families[head]}
    shown = [rows[i] for i in ids if i in keep]
    not_run = [head for head in families if head not in complete]
    return shown, sorted(of_tier - set(ids)), coverage(tier, registered, shown, not_run)


def _some(ids: list[str]) -> str:
    return ", ".join(ids[:3]) + (", ..." if len(ids) > 3 else "")


def coverage(tier: str, registered: Sequence[Claim], shown: list[dict], not_run: list[str]) -> Coverage:
    """The coverage block of ``shown`` rows against the ``registered`` claims."""
    out = Coverage(tier, not_run=not_run)
    for paper in dict.fromkeys(c.paper for c in registered):
        rows = [r for r in shown if r["paper"] == paper]
        cell_sets: dict[str, float] = {}  # a claim and its controls share their cells: count them once
        for r in rows:
            key = Path(str(r.get("dataset") or r["id"])).name
            cell_sets[key] = max(cell_sets.get(key, 0.0), _number(r.get("elapsed_s")))
        out.papers.append({"paper": paper, "shown": len(rows), "registered": sum(c.paper == paper for c in registered),
                           "compute_s": sum(cell_sets.values())})
    runs: dict[tuple[str, str], list[dict]] = {}
    for r in shown:
        runs.setdefault((str(r.get("run_key")), str((r.get("run") or {}).get("started", "?"))), []).append(r)
    for (_, started), rows in sorted(runs.items(), key=lambda kv: kv[0][1]):
        checks = (rows[0].get("run") or {}).get("checks")
        out.runs.append({"started": started, "checks": checks if type(checks) is int else "?",
                         "papers": list(dict.fromkeys(r["paper"] for r in rows)),
                         "wall_s": _wall(started, [str(r.get("finished", "")) for r in rows])})
    return out


def _number(v) -> float:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else 0.0


def _wall(started: str, finished: list[str]) -> float:
    """Seconds from a run's start to its last verdict shown (NaN when a time cannot be read)."""
    try:
        return (max(datetime.fromisoformat(f) for f in finished) - datetime.fromisoformat(started)).total_seconds()
    except (TypeError, ValueError):
        return math.nan
