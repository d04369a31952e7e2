"""The HTML pages: index.html (summary, refuted statements, changes, the claims table), one page per
claim and one per paper. Every page carries the provenance block; nothing refers outside the site."""
from __future__ import annotations

import html
import json
from collections.abc import Sequence
from pathlib import Path

from ..findings import OUTCOMES, legend
from ..registry import not_checked
from .assets import SCRIPT, STYLE
from .mathtext import formula_html
from .rows import (
    NOT_RECORDED,
    VERDICTS,
    as_expected,
    band,
    deviations,
    finding,
    first_sentence,
    fmt,
    interval,
    level,
    outcome,
    paper_counts,
    paper_paragraph,
    paper_summary_text,
    printed_table,
    run_label,
    run_summary,
    software_summary,
    verdict_sentence,
)


def public(rec: dict) -> dict:
    """The record as published: without the absolute path of the store it was written to (the Dataset is
    named by its path inside the store, ``dataset``, and copied into the site)."""
    return {k: v for k, v in rec.items() if k != "store"}


def esc(x) -> str:
    return html.escape(str(x), quote=True)


def page(title: str, body: str, records: list[dict], depth: int = 0) -> str:
    """A whole page with the style sheet, the script and the provenance of ``records``."""
    up = "../" * depth
    nav = f"<p><a href='{up}index.html'>simverify report</a></p>" if depth else ""
    return (f"<!doctype html><html lang='en'><meta charset='utf-8'><title>{esc(title)}</title>"
            f"<meta name='viewport' content='width=device-width'><style>{STYLE}</style><script>{SCRIPT}</script>"
            f"<body>{nav}{body}{provenance_footer(records)}</body></html>\n")


def _table(pairs: dict) -> str:
    return "<table>" + "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in pairs.items()) + "</table>"


def provenance_footer(records: list[dict]) -> str:
    info = {**run_summary(records), **software_summary(records)}
    return f"<div class='prov'><h3>Provenance</h3>{_table(info)}</div>"


def printed_table_html(rec: dict) -> str:
    """The claim's table as the paper prints it, each row beside the same row measured ('' if none)."""
    if not rec.get("table"):
        return ""
    head, body = printed_table(rec["table"])
    rows = "".join(("<tr class='measured'>" if r[0].endswith("measured") else "<tr>")
                   + "".join(f"<td>{esc(x)}</td>" for x in r) + "</tr>" for r in body)
    return (f"<table class='printed'><caption>As printed beside as measured (replicate means, {esc(rec['tier'])} "
            f"tier)</caption><tr>{''.join(f'<th>{esc(h)}</th>' for h in head)}</tr>{rows}</table>")


def claim_href(claim_id: str, depth: int = 0) -> str:
    return f"{'../' * depth}claims/{esc(claim_id)}.html"


def outcome_class(rec: dict) -> str:
    """The CSS class of a record's outcome (NOT REPRODUCED -> NOT-REPRODUCED)."""
    return outcome(rec).replace(" ", "-")


def _verdict(rec: dict) -> str:
    return f"<td class='{esc(outcome_class(rec))}'>{esc(outcome(rec))}</td>"


def citation_html(rec_or_citation: dict | None) -> str:
    """The paper's citation as a paragraph ('' when the record carries none)."""
    c = (rec_or_citation or {}).get("citation", rec_or_citation) or {}
    return f"<p class='citation'>{esc(c['text'])}</p>" if c.get("text") else ""


def _calibration(row: dict | None) -> str:
    if not row:
        return "not calibrated"
    text = f"{row['misses']}/{row['runs']} missed"
    if row.get("power") is not None:
        text += f"; control power {row['power']:.2f}"
    return text + (f" ({str(row['date'])[:10]})" if row.get("date") else "")


# -- index ---------------------------------------------------------------------------------------

def _summary(records: list[dict]) -> str:
    head = (f"<tr><th rowspan=2>paper</th><th colspan={len(OUTCOMES) + 1}>the paper's claims</th><th rowspan=2>"
            "controls</th><th rowspan=2>checks as expected</th></tr><tr><th>checked</th>"
            + "".join(f"<th>{v}</th>" for v in OUTCOMES) + "</tr>")
    rows = "".join(f"<tr><td><a href='papers/{esc(p)}.html'>{esc(p)}</a></td><td>{c['claims']}</td>"
                   + "".join(f"<td class='{v.replace(' ', '-')}'>{c[v]}</td>" for v in OUTCOMES)
                   + f"<td>{c['controls']}</td><td>{c['as_expected']} of {c['checks']}</td></tr>"
                   for p, c in paper_counts(records).items())
    return (f"<table class='summary'>{head}{rows}</table><p class='remark'>{esc(legend())}</p>")


def _finding_item(r: dict, depth: int = 0) -> str:
    f = finding(r) or {}
    cause = f" <span class='remark'>(cause: {esc(f['cause'])})</span>" if f.get("cause") else ""
    return (f"<li><b>{esc(r['item'])}</b> (<a href='{claim_href(r['id'], depth)}'>{esc(r['id'])}</a>): "
            f"{esc(first_sentence(f.get('text')))}{cause}{formula_html(r.get('formula', ''))}</li>")


def paper_findings(records: list[dict], depth: int = 0) -> str:
    """A paper's findings: one sentence of counts, then the errata, the loose bounds and the results not
    reproduced, each with its link and the printed formula rendered."""
    p = paper_paragraph(records)
    parts = [f"<p>{esc(paper_summary_text(records))}</p>"]
    for title, recs in (("Errata: the paper's statement is false", p["errata"]),
                        ("Loose: the bound holds, loosely", p["loose"]),
                        ("Not reproduced by us", p["not_reproduced"])):
        if recs:
            parts.append(f"<h4>{title}</h4><ul>" + "".join(_finding_item(r, depth) for r in recs) + "</ul>")
    return "".join(parts)


def _findings(records: list[dict]) -> str:
    papers: dict[str, list[dict]] = {}
    for r in records:
        papers.setdefault(r["paper"], []).append(r)
    parts = [f"<h3><a href='papers/{esc(paper)}.html'>{esc(paper)}</a></h3>{citation_html(recs[0])}"
             + paper_findings(recs) for paper, recs in papers.items()]
    return "<h2>Findings per paper</h2>" + "".join(parts) if parts else ""


def _changes(changed: Sequence[dict], comparison: str = "") -> str:
    if not changed and not comparison:
        return ""
    items = "".join(f"<li><a href='{claim_href(c['id'])}'>{esc(c['id'])}</a> ({esc(c['tier'])}): "
                    f"{esc(c['change'])}</li>" for c in changed)
    said = f"<p>{esc(comparison)}</p>" if comparison else ""
    return f"<h2>Changes against the compared store</h2>{said}<ul>{items}</ul>"


CLAIM_HEAD = ["paper", "item", "id", "law", "claimed", "estimate [CI]", "band", "outcome", "expected verdict",
              "as expected", "calibration", "run"]


def _ident(r: dict, depth: int = 0) -> str:
    """The claim's link; a control is shown nested, by the part of its id after its claim's."""
    parent = r.get("control_of")
    if parent and r["id"].startswith(parent):
        name = r["id"][len(parent):]
        return f"↳ control <a href='{claim_href(r['id'], depth)}' title='{esc(r['id'])}'>{esc(name)}</a>"
    kind = (finding(r) or {}).get("kind") if not parent else None
    tag = f" <span class='tag'>{esc(kind)}</span>" if kind else ""
    return ("↳ control " if parent else "") + f"<a href='{claim_href(r['id'], depth)}'>{esc(r['id'])}</a>{tag}"


def _run_cell(r: dict) -> str:
    cls = " class='override'" if deviations(r) else ""
    return f"<td{cls}>{esc(run_label(r))}</td>"


def _claim_row(r: dict, pos: int, calibration: dict) -> str:
    group = r.get("control_of") or r["id"]
    cls = "control" if r.get("control_of") else "claim"
    ok = "<span class='OK'>✓</span>" if as_expected(r) else "<span class='NO'>✗ NO</span>"
    cells = [esc(r["paper"]), esc(r["item"]), _ident(r), esc(r["law"]), esc(r["claimed"]), esc(interval(r)),
             esc(band(r))]
    return (f"<tr class='{cls}' data-group='{esc(group)}' data-pos='{pos}' data-paper='{esc(r['paper'])}' "
            f"data-law='{esc(r['law'])}' data-verdict='{esc(r['verdict'])}' data-outcome='{esc(outcome(r))}' "
            f"data-id='{esc(r['id'])}'>"
            + "".join(f"<td class='id'>{c}</td>" if k == 2 else f"<td>{c}</td>" for k, c in enumerate(cells))
            + _verdict(r)
            + f"<td>{esc(r['expected'])}</td><td>{ok}</td><td>{esc(_calibration(calibration.get(r['id'])))}</td>"
            + _run_cell(r) + "</tr>")


def _select(col: str, values) -> str:
    opts = "".join(f"<option>{esc(v)}</option>" for v in dict.fromkeys(values))
    return f"<select data-col='{col}' onchange='svFilter()' aria-label='{col}'><option value=''>any {col}</option>" \
        f"{opts}</select>"


def index(records: list[dict], calibration: dict, changed: Sequence[dict],
          unreadable: Sequence[tuple[Path, str]], comparison: str = "", coverage: str = "") -> str:
    """The index page; ``coverage``: a reference's coverage block (HTML), after the summary."""
    n_ok = sum(as_expected(r) for r in records)
    body = [f"<h1>simverify report</h1><p>{len(records)} checks; <b>{n_ok} as expected</b>"
            f"{'' if n_ok == len(records) else f', <span class=NO>{len(records) - n_ok} not</span>'}.</p>",
            _summary(records), coverage, _findings(records), _changes(changed, comparison), "<h2>Claims</h2>",
            "<div class='filters'><input id='q' placeholder='filter' oninput='svFilter()' aria-label='filter'>"
            + _select("paper", (r["paper"] for r in records)) + _select("law", (r["law"] for r in records))
            + _select("outcome", OUTCOMES) + _select("verdict", VERDICTS) + "</div>",
            "<table id='claims'><thead><tr>" + "".join(f"<th onclick='svSort({i})'>{h}</th>"
                                                        for i, h in enumerate(CLAIM_HEAD)) + "</tr></thead><tbody>"
            + "".join(_claim_row(r, i, calibration) for i, r in enumerate(records)) + "</tbody></table>"]
    if unreadable:
        body.append("<h2>Unreadable files (left out)</h2><ul>" + "".join(
            f"<li><code>{esc(p)}</code>: {esc(reason)}</li>" for p, reason in unreadable) + "</ul>")
    return page("simverify report", "\n".join(body), records)


# -- claim pages ---------------------------------------------------------------------------------

def _local_orders(rec: dict) -> str:
    local = (rec.get("detail") or {}).get("local_slopes")
    if not local:
        return ""
    return f"<p>Local orders (slopes between neighbouring grid points): {esc(', '.join(fmt(v) for v in local))}</p>"


def _other_runs(rec: dict, runs: list[dict]) -> str:
    others = [r for r in runs if r is not rec]  # the row shown is one of them: build reads the store once
    if not others:
        return ""
    rows = "".join(f"<tr><td>{esc(r['tier'])}</td>{_run_cell(r)}{_verdict(r)}<td>{esc(interval(r))}"
                   f"</td><td>{esc(r.get('finished', ''))}</td></tr>" for r in others)
    return ("<h3>Other stored runs of this claim</h3><table><tr><th>tier</th><th>run</th><th>verdict</th>"
            f"<th>estimate [CI]</th><th>finished</th></tr>{rows}</table>")


def _cells_table(rec: dict) -> str:
    cells = (rec.get("detail") or {}).get("cells")
    if not cells:
        return ""
    keys = list(cells[0])
    rows = "".join("<tr>" + "".join(f"<td>{esc(fmt(c.get(k)))}</td>" for k in keys) + "</tr>" for c in cells)
    return ("<details><summary>Every cell</summary><table><tr>" + "".join(f"<th>{esc(k)}</th>" for k in keys)
            + f"</tr>{rows}</table></details>")


def _controls(controls: Sequence[dict]) -> str:
    if not controls:
        return ""
    rows = "".join(f"<tr><td><a href='{esc(c['id'])}.html'>{esc(c['id'])}</a></td><td>{esc(c['statement'])}</td>"
                   f"<td>{esc(interval(c))}</td>{_verdict(c)}<td>{esc(c['expected'])}</td></tr>" for c in controls)
    return ("<h3>Controls of this claim</h3><table><tr><th>control</th><th>what it changes</th>"
            "<th>estimate [CI]</th>"
            f"<th>verdict</th><th>expected</th></tr>{rows}</table>")


_FINDING_TITLE = {"erratum": "Erratum", "not reproduced": "Not reproduced", "loose": "Loose bound"}


def _finding_section(rec: dict) -> str:
    """The claim's finding: its text, how it was derived (erratum) or what we know of the cause (not reproduced)."""
    f = finding(rec)
    if not f:
        return ""
    extra = ""
    if f.get("derivation"):
        extra += f"<p><b>How it was found:</b> {esc(f['derivation'])}</p>"
    if f.get("cause"):
        extra += f"<p><b>Cause:</b> {esc(f['cause'])}</p>"
    return f"<h3>{_FINDING_TITLE.get(f['kind'], 'Finding')}</h3><p>{esc(f['text'])}</p>{extra}"


def claim_page(rec: dict, figure: str | None, why_no_figure: str, data: dict[str, str], runs: list[dict],
               calibration: dict | None, controls: Sequence[dict] = (), sizes: str | None = None) -> str:
    """``figure``: the PNG's path relative to the page; ``data``: label -> relative path of the cell data;
    ``runs``: every stored run of the claim; ``controls``: the rows of its negative controls; ``sizes``: the
    line saying what its tier is to the paper's sizes (rows.tier_sizes_text)."""
    verdict = {"verdict": rec["verdict"], "expected": rec["expected"], "estimate [CI]": interval(rec),
               "band judged against": band(rec) + ("" if rec.get("scale", "linear") == "linear" else
                                                   f" (a ratio; {rec['scale']} scale)"),
               "confidence level (this claim)": level(rec.get("confidence_level")), "law": rec["law"],
               "claimed": rec["claimed"], "grid": f"{rec.get('n_cells')} cells x {rec.get('replicates')} replicates",
               "run": run_label(rec), "compute seconds": fmt(rec.get("elapsed_s"))}
    if sizes:
        verdict["sizes"] = sizes
    if calibration:
        cp = calibration.get("rate_ci95") or [None, None]
        projected = fmt(calibration.get("projected_miss"))
        verdict["calibration: false-fail rate"] = (
            f"{calibration['misses']} of {calibration['runs']} root seeds missed the expected verdict (Clopper-Pearson "
            f"95% CI {fmt(cp[0])}..{fmt(cp[1])}); projected miss {projected}")
        verdict["calibration: measured"] = (
            f"{str(calibration.get('date') or NOT_RECORDED)[:10]}, commit "
            f"{str(calibration.get('git_commit') or NOT_RECORDED)[:12]}, {calibration.get('tier', NOT_RECORDED)} tier, "
            f"{calibration.get('seeds', NOT_RECORDED)} root seeds, alpha {calibration.get('alpha', NOT_RECORDED)}, "
            f"{calibration.get('checks', NOT_RECORDED)} checks together")
        if calibration.get("power") is not None:
            pc = calibration.get("power_ci95") or [None, None]
            verdict["calibration: power against the control"] = (
                f"{fmt(calibration['power'])} (Clopper-Pearson 95% CI {fmt(pc[0])}..{fmt(pc[1])})")
    rows = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in list(verdict.items())[1:])
    rows = rows.replace("<th>run</th><td>", "<th>run</th><td class='override'>") if deviations(rec) else rows
    body = [f"<h1>{esc(rec['item'])}: <code>{esc(rec['id'])}</code></h1>", citation_html(rec),
            f"<p>{esc(rec['statement'])}</p>",
            "" if rec.get("control_of") else formula_html(rec.get("formula", "")),  # a control: its claim's page
            f"<p class='verdict {esc(rec['verdict'])}'>{esc(verdict_sentence(rec))}</p>"]
    if rec.get("control_of"):
        body.append(f"<p>Control of <a href='{esc(rec['control_of'])}.html'>{esc(rec['control_of'])}</a>."
                    "</p>")
    body.append(_finding_section(rec))
    if rec.get("advice"):
        body.append(f"<p class='note'>{esc(rec['advice'])}</p>")
    body.append(f"<figure><img src='{esc(figure)}' alt='evidence for {esc(rec['id'])}'></figure>" if figure
                else f"<p class='note'>No figure: {esc(why_no_figure)}</p>")
    body.append(_local_orders(rec))
    body.append(f"<table><tr><th>outcome</th><td class='{esc(outcome_class(rec))}'><b>{esc(outcome(rec))}</b></td>"
                f"</tr><tr><th>verdict</th><td>{esc(rec['verdict'])}</td></tr>{rows}</table>")
    body.append(printed_table_html(rec))
    body.append(_controls(controls))
    if data:
        body.append("<p>Cell data: " + ", ".join(f"<a href='{esc(p)}'>{esc(k)}</a>" for k, p in data.items()) + "</p>")
    shown_elsewhere = ("provenance", "citation", "statement", "formula")  # on this page already
    record_json = esc(json.dumps({k: v for k, v in public(rec).items() if k not in shown_elsewhere}, indent=None,
                                 separators=(",", ":"), default=str))
    body += [_cells_table(rec), _other_runs(rec, runs),
             f"<details><summary>Verdict record (JSON)</summary><pre>{record_json}</pre></details>"]
    return page(f"{rec['id']} — simverify", "\n".join(body), [rec], depth=1)


# -- paper pages ---------------------------------------------------------------------------------

def paper_page(paper: str, records: list[dict], figures: dict[str, str]) -> str:
    """The citation and the paper's findings, then items in order; per item its checks (the statement as printed,
    its formula rendered, beside the measured value) and figures."""
    items: dict[str, list[dict]] = {}
    for r in records:
        items.setdefault(r["item"], []).append(r)
    body = [f"<h1>{esc(paper)}</h1>{citation_html(records[0] if records else None)}",
            "<h2>Findings</h2>", paper_findings(records, depth=1),
            "<p>What the paper states, as printed, beside what the simulations measured.</p>"]
    for item, recs in items.items():
        rows = "".join(
            f"<tr class='{'control' if r.get('control_of') else 'claim'}'><td class='id'>{_ident(r, 1)}</td>"
            f"<td>{esc(r['statement'])}</td><td>{'' if r.get('control_of') else formula_html(r.get('formula', ''))}"
            f"</td><td>{esc(interval(r))}</td>{_verdict(r)}"
            f"<td>{esc(first_sentence((finding(r) or {}).get('text')))}</td></tr>" for r in recs)
        figs = "".join(f"<figure><a href='{claim_href(r['id'], 1)}'><img src='../{esc(figures[r['id']])}' "
                       f"alt='evidence for {esc(r['id'])}' width='480'></a><figcaption><a href='"
                       f"{claim_href(r['id'], 1)}'>{esc(r['id'])}</a>: <span class='{esc(outcome_class(r))}'>"
                       f"{esc(outcome(r))}</span></figcaption></figure>"
                       for r in recs if not r.get("control_of") and figures.get(r["id"]))
        figs = f"<div class='figs'>{figs}</div>" if figs else ""
        tables = "".join(printed_table_html(r) for r in recs)
        body.append(f"<h2>{esc(item)}</h2><table><tr><th>check</th><th>statement</th><th>as printed</th>"
                    f"<th>measured</th><th>outcome</th><th>finding</th></tr>{rows}</table>{tables}{figs}")
    skipped = not_checked().get(paper, {})
    if skipped:
        body.append("<h2>Items not checked</h2><ul>" + "".join(f"<li><b>{esc(item)}</b>: {esc(why)}</li>"
                                                              for item, why in skipped.items()) + "</ul>")
    return page(f"{paper} — simverify", "\n".join(body), records, depth=1)


__all__ = ["index", "claim_page", "paper_page", "NOT_RECORDED"]
