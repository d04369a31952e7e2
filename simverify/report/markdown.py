"""report.md: the summary per paper, the refuted statements, the claims table (controls nested under
their claim), changes against an older store, unreadable files and provenance."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..registry import not_reproduced
from .rows import (
    VERDICTS,
    as_expected,
    band,
    first_sentence,
    interval,
    paper_counts,
    printed_table,
    refuted_statements,
    run_label,
    run_summary,
    software_summary,
)

HEAD = ["paper", "item", "id", "law", "claimed", "estimate [CI]", "band", "verdict", "expected", "as expected", "run"]


def cell(text) -> str:
    """A Markdown table cell: pipes escaped, newlines folded."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _row(r: dict) -> list[str]:
    ident = f"↳ control `{r['id']}`" if r.get("control_of") else f"`{r['id']}`"
    return [r["paper"], r["item"], ident, r["law"], r["claimed"], interval(r), band(r), f"**{r['verdict']}**",
            r["expected"], "yes" if as_expected(r) else "**NO**", run_label(r)]


def markdown(records: list[dict], unreadable: Sequence[tuple[Path, str]] = (), changed: Sequence[dict] = ()) -> str:
    """The Markdown summary of ``records`` (already in report order)."""
    n_ok = sum(as_expected(r) for r in records)
    lines = ["# simverify report", "", f"{len(records)} checks; {n_ok} as expected.", ""]
    lines += ["| paper | claims | " + " | ".join(VERDICTS) + " | negative controls | checks as expected |",
              "|---" * (4 + len(VERDICTS)) + "|"]
    for paper, c in paper_counts(records).items():
        lines.append(f"| {cell(paper)} | {c['claims']} | " + " | ".join(str(c[v]) for v in VERDICTS)
                     + f" | {c['controls']} | {c['as_expected']} of {c['checks']} |")
    lines += ["", "Verdicts of the papers' own claims; a negative control is a deliberately wrong variant of a claim "
              "that the check must tell apart (it is expected to come out the other way)."]
    refuted = refuted_statements(records)
    if refuted:
        lines += ["", "## What the papers get wrong (refuted as printed)", ""]
        lines += [f"- **{r['item']}** `{r['id']}` ({r['verdict']}): {first_sentence(r['erratum'])}" for r in refuted]
    skipped = {paper: items for paper, items in not_reproduced().items() if paper in paper_counts(records)}
    if skipped:
        lines += ["", "## Not reproduced", ""]
        lines += [f"- **{paper}**, {item}: {why}" for paper, items in skipped.items() for item, why in items.items()]
    if changed:
        lines += ["", "## Changes against the compared store", ""]
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
    errata = [r for r in records if r.get("erratum")]
    if errata:
        lines += ["", "## Errata in full", ""] + [f"- **{r['item']}** `{r['id']}`: {r['erratum']}" for r in errata]
    if unreadable:
        lines += ["", "## Unreadable files (left out)", ""] + [f"- `{p}`: {reason}" for p, reason in unreadable]
    lines += ["", "## Provenance", ""]
    lines += [f"- {k}: {cell(v)}" for k, v in {**run_summary(records), **software_summary(records)}.items()]
    return "\n".join(lines) + "\n"
