"""report.md: the summary per paper, the refuted statements, the claims table (controls nested under
their claim), changes against an older store, unreadable files and provenance."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .. import findings
from ..findings import OUTCOMES
from ..registry import not_checked
from .rows import (
    as_expected,
    band,
    finding,
    first_sentence,
    interval,
    outcome,
    paper_counts,
    paper_paragraph,
    paper_summary_text,
    printed_table,
    run_label,
    run_summary,
    software_summary,
)

HEAD = ["paper", "item", "id", "law", "claimed", "estimate [CI]", "band", "outcome", "expected verdict",
        "as expected", "run"]


def cell(text) -> str:
    """A Markdown table cell: pipes escaped, newlines folded."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _row(r: dict) -> list[str]:
    ident = f"↳ control `{r['id']}`" if r.get("control_of") else f"`{r['id']}`"
    return [r["paper"], r["item"], ident, r["law"], r["claimed"], interval(r), band(r), f"**{outcome(r)}**",
            r["expected"], "yes" if as_expected(r) else "**NO**", run_label(r)]


def _cause(r: dict) -> str:
    return (finding(r) or {}).get("cause") or "unknown"


def markdown(records: list[dict], unreadable: Sequence[tuple[Path, str]] = (), changed: Sequence[dict] = (),
             comparison: str = "", coverage: Sequence[str] = ()) -> str:
    """The Markdown summary of ``records`` (already in report order); ``coverage``: a reference's coverage block
    (lines), after the outcome table."""
    n_ok = sum(as_expected(r) for r in records)
    lines = ["# simverify report", "", f"{len(records)} checks; {n_ok} as expected.", ""]
    lines += ["| paper | claims | " + " | ".join(OUTCOMES) + " | controls | checks as expected |",
              "|---" * (4 + len(OUTCOMES)) + "|"]
    for paper, c in paper_counts(records).items():
        lines.append(f"| {cell(paper)} | {c['claims']} | " + " | ".join(str(c[v]) for v in OUTCOMES)
                     + f" | {c['controls']} | {c['as_expected']} of {c['checks']} |")
    lines += ["", f"Outcomes of the papers' own claims. {findings.legend()}"]
    if coverage:
        lines += ["", *coverage]
    papers: dict[str, list[dict]] = {}
    for r in records:
        papers.setdefault(r["paper"], []).append(r)
    lines += ["", "## Findings per paper"]
    for paper, recs in papers.items():
        cite = (recs[0].get("citation") or {}).get("text")
        lines += ["", f"### {paper}", ""] + ([f"*{cite}*", ""] if cite else []) + [paper_summary_text(recs)]
    errata = [r for recs in papers.values() for r in paper_paragraph(recs)["errata"]]
    if errata:
        lines += ["", "## What the papers get wrong (errata)", ""]
        lines += [f"- **{r['paper']}, {r['item']}** `{r['id']}`: {first_sentence(finding(r)['text'])}" for r in errata]
    loose = [r for recs in papers.values() for r in paper_paragraph(recs)["loose"]]
    if loose:
        lines += ["", "## Loose bounds (they hold)", ""]
        lines += [f"- **{r['paper']}, {r['item']}** `{r['id']}`: {first_sentence(finding(r)['text'])}" for r in loose]
    missed = [r for recs in papers.values() for r in paper_paragraph(recs)["not_reproduced"]]
    if missed:
        lines += ["", "## Not reproduced by us", ""]
        lines += [f"- **{r['paper']}, {r['item']}** `{r['id']}` (cause: {_cause(r)}): "
                  f"{first_sentence((finding(r) or {}).get('text'))}" for r in missed]
    skipped = {paper: items for paper, items in not_checked().items() if paper in paper_counts(records)}
    if skipped:
        lines += ["", "## Items not checked", ""]
        lines += [f"- **{paper}**, {item}: {why}" for paper, items in skipped.items() for item, why in items.items()]
    if changed or comparison:
        lines += ["", "## Changes against the compared store", ""] + ([comparison, ""] if comparison else [])
        lines += [f"- `{c['id']}` ({c['tier']}): {c['change']}" for c in changed]
    lines += ["", "## Claims", "", "| " + " | ".join(HEAD) + " |", "|---" * len(HEAD) + "|"]
    lines += ["| " + " | ".join(cell(x) for x in _row(r)) + " |" for r in records]
    tables = [r for r in records if r.get("table")]
    if tables:
        lines += ["", "## Printed tables beside the measurements", ""]
    for r in tables:
        head, body = printed_table(r["table"])
        lines += [f"`{r['id']}` ({r['tier']} tier, replicate means):", "", "| " + " | ".join(map(cell, head)) + " |",
                  "|---" * len(head) + "|"] + ["| " + " | ".join(map(cell, row)) + " |" for row in body] + [""]
    undecided = [r for r in records if r["verdict"] == "INCONCLUSIVE"]
    if undecided:
        lines += ["", "## Inconclusive", ""] + [f"- `{r['id']}`: {r.get('advice', '')}" for r in undecided]
    full = [r for r in records if finding(r)]
    if full:
        lines += ["", "## Findings in full", ""] + [f"- **{r['item']}** `{r['id']}` ({finding(r)['kind']}): "
                                                     f"{finding(r)['text']}" for r in full]
    if unreadable:
        lines += ["", "## Unreadable files (left out)", ""] + [f"- `{p}`: {reason}" for p, reason in unreadable]
    lines += ["", "## Provenance", ""]
    lines += [f"- {k}: {cell(v)}" for k, v in {**run_summary(records), **software_summary(records)}.items()]
    return "\n".join(lines) + "\n"
