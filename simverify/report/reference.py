"""The committed references: ``reports/quick`` (every registered check) and ``reports/full`` (the claims run at the
papers' own sizes so far), each from default runs judged at the whole suite's per-check level, with a coverage
block saying what was run, how long it took and what was left out."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..store import Store
from .site import esc

REFERENCES = {"quick": Path("reports") / "quick", "full": Path("reports") / "full"}
TIERS = tuple(REFERENCES)


@dataclass
class Coverage:
    """What a reference shows of the registered checks. ``papers``: per paper its checks shown, registered and
    the compute seconds of its distinct cell sets; ``runs``: per run (its start) the checks it judged together,
    the papers shown from it and its wall seconds (start to its last verdict); ``not_run``: registered claim ids
    (claims with their controls) left out."""
    tier: str
    papers: list[dict] = field(default_factory=list)
    runs: list[dict] = field(default_factory=list)
    not_run: list[str] = field(default_factory=list)

    def markdown(self) -> list[str]:
        shown = sum(p["shown"] for p in self.papers)
        lines = ["## This reference", "", f"Tier {self.tier}: {shown} of {sum(p['registered'] for p in self.papers)} "
                 "registered checks, each judged at the whole suite's per-check level.", "",
                 "| paper | checks shown | registered | compute |", "|---|---|---|---|"]
        lines += [f"| {p['paper']} | {p['shown']} | {p['registered']} | {_duration(p['compute_s'])} |"
                  for p in self.papers]
        lines += ["", "| run started | checks judged together | papers shown | wall |", "|---|---|---|---|"]
        lines += [f"| {r['started']} | {r['checks']} | {', '.join(r['papers'])} | {_duration(r['wall_s'])} |"
                  for r in self.runs]
        if self.not_run:
            lines += ["", f"Not run at this tier ({len(self.not_run)} claims, with their controls): "
                      + ", ".join(f"`{i}`" for i in self.not_run) + "."]
        return lines + [""]

    def html(self) -> str:
        papers = "".join(f"<tr><td>{esc(p['paper'])}</td><td>{p['shown']}</td><td>{p['registered']}</td>"
                         f"<td>{esc(_duration(p['compute_s']))}</td></tr>" for p in self.papers)
        runs = "".join(f"<tr><td>{esc(r['started'])}</td><td>{r['checks']}</td><td>{esc(', '.join(r['papers']))}"
                       f"</td><td>{esc(_duration(r['wall_s']))}</td></tr>" for r in self.runs)
        missing = (f"<p>Not run at this tier ({len(self.not_run)} claims, with their controls): "
                   + ", ".join(f"<code>{esc(i)}</code>" for i in self.not_run) + ".</p>") if self.not_run else ""
        return (f"<h2>This reference</h2><p>Tier {esc(self.tier)}, every check judged at the whole suite's "
                "per-check level.</p><table><tr><th>paper</th><th>checks shown</th><th>registered</th>"
                f"<th>compute</th></tr>{papers}</table><table><tr><th>run started</th><th>checks judged together"
                f"</th><th>papers shown</th><th>wall</th></tr>{runs}</table>{missing}")


def _duration(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "?"
    return f"{seconds:.0f} s" if seconds < 600 else f"{seconds / 60:.1f} min" if seconds < 36000 \
        else f"{seconds / 3600:.1f} h"


def suite_level(alpha: float, checks: int) -> float:
    """The per-check confidence level of a run of ``checks`` checks at family-wise budget ``alpha`` (runner)."""
    return 1.0 - alpha / checks


def _suite_run(rec: dict, level: float) -> bool:
    """A row from a run at the tier's own settings (root seed 0, no --set, no --replicates) judged at ``level``
    (the whole suite's per-check level: a run of every check at the default alpha, or a run of some checks with
    alpha scaled to their number)."""
    run = rec.get("run") or {}
    try:
        own = suite_level(float(run["alpha"]), int(run["checks"]))
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return False
    return (run.get("seed", rec.get("seed")) == 0 and not run.get("overrides") and run.get("replicates") is None
            and math.isclose(own, level, rel_tol=0.0, abs_tol=1e-12))


def reference_rows(store: Store, tier: str, registered: list, rows_of_tier: list[dict],
                   alpha: float) -> tuple[list[dict], list[str], Coverage]:
    """(rows shown, stored ids no registered claim has, coverage) of the reference of ``tier`` from
    ``rows_of_tier`` (the store's rows of that tier). quick: every registered check is required; full: a claim is
    shown with its controls when every one of them has a row, the others are listed as not run, and at least
    one claim is required. ValueError (one line) naming what is missing or judged at another level."""
    ids = [c.id for c in registered]
    level = suite_level(alpha, len(ids))
    rows = {r["id"]: r for r in rows_of_tier}
    missing = [i for i in ids if i not in rows]
    off = [i for i in ids if i in rows and not _suite_run(rows[i], level)]
    if tier == "full" and not off:
        families: dict[str, list[str]] = {}
        for c in registered:
            families.setdefault(c.control_of or c.id, []).append(c.id)
        not_run = [head for head, members in families.items() if any(m not in rows for m in members)]
        keep = {m for head, members in families.items() if head not in not_run for m in members}
        if keep:
            shown = [r for r in rows_of_tier if r["id"] in keep]
            return shown, sorted(set(rows) - set(ids)), coverage(tier, registered, shown, not_run)
    if missing or off:
        what = "; ".join(x for x in (f"{len(missing)} checks not run ({', '.join(missing[:3])}"
                                     f"{', ...' if len(missing) > 3 else ''})" if missing else "",
                                     f"{len(off)} not from a default run judged at the suite's level (all "
                                     f"{len(ids)} checks together, or alpha scaled to the checks run) "
                                     f"({', '.join(off[:3])}{', ...' if len(off) > 3 else ''})" if off else "") if x)
        raise ValueError(f"store {store.root} does not hold the {tier} reference run: {what}; run 'simverify check "
                         f"--all --tier {tier} --store {store.root}' (stored cells are reused)")
    shown = [r for r in rows_of_tier if r["id"] in set(ids)]
    return shown, sorted(set(rows) - set(ids)), coverage(tier, registered, shown, [])


def coverage(tier: str, registered: list, shown: list[dict], not_run: list[str]) -> Coverage:
    """The coverage block of ``shown`` rows against the ``registered`` claims."""
    out = Coverage(tier, not_run=not_run)
    for paper in dict.fromkeys(c.paper for c in registered):
        rows = [r for r in shown if r["paper"] == paper]
        cell_sets: dict[str, float] = {}  # a claim and its controls share their cells: count them once
        for r in rows:
            key = Path(str(r.get("dataset") or r["id"])).name
            cell_sets[key] = max(cell_sets.get(key, 0.0), float(r.get("elapsed_s") or 0.0))
        out.papers.append({"paper": paper, "shown": len(rows), "registered": sum(c.paper == paper for c in registered),
                           "compute_s": sum(cell_sets.values())})
    runs: dict[str, list[dict]] = {}
    for r in shown:
        runs.setdefault(str((r.get("run") or {}).get("started", "?")), []).append(r)
    for started, rows in sorted(runs.items()):
        out.runs.append({"started": started, "checks": (rows[0].get("run") or {}).get("checks"),
                         "papers": list(dict.fromkeys(r["paper"] for r in rows)),
                         "wall_s": _wall(started, [str(r.get("finished", "")) for r in rows])})
    return out


def _wall(started: str, finished: list[str]) -> float:
    """Seconds from a run's start to its last verdict shown (NaN when a time cannot be read)."""
    try:
        return (max(datetime.fromisoformat(f) for f in finished) - datetime.fromisoformat(started)).total_seconds()
    except (TypeError, ValueError):
        return math.nan
