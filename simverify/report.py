"""Markdown and self-contained HTML reports (figures embedded as base64 PNG; no CDN)."""
from __future__ import annotations

import base64
import html
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import xarray as xr

from .store import Store, atomic_write


class NoResults(ValueError):
    """The store holds no readable verdict record (of the tier asked for)."""


class UnreadableFile(Exception):
    """A data file the report names instead of drawing."""

    def __init__(self, path: Path, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = path, reason


@dataclass
class Report:
    """The files written, and (path, reason) for every store file left out because it cannot be read."""
    paths: list[Path]
    unreadable: list[tuple[Path, str]]


def _fmt(x) -> str:
    try:
        return f"{float(x):.4g}"
    except (TypeError, ValueError):
        return str(x)


def _dataset_path(rec: dict, store: Store) -> Path | None:
    """The record's Dataset: its stored path, else the file of that name in this store (a moved store)."""
    if not rec.get("store"):
        return None
    path = Path(rec["store"])
    if path.is_absolute() and path.exists():
        return path
    moved = store.root / "datasets" / rec["id"] / path.name
    return moved if moved.exists() else None


def _mean_curve(path: Path):
    """(dim, x, mean y, variable) of the Dataset's first variable along its first dim, or None
    when it has none; UnreadableFile when the file is not a readable Dataset."""
    try:
        with xr.open_dataset(path) as ds:
            var = next(iter(ds.data_vars))
            da = ds[var].mean("replicate")
            if not da.dims:
                return None
            for rest in da.dims[1:]:
                da = da.isel({rest: 0})
            return da.dims[0], da[da.dims[0]].values, da.values, var
    except Exception as exc:  # any malformed file is named in the report, never fatal
        raise UnreadableFile(path, " ".join(f"{type(exc).__name__}: {exc}".split())) from None


def _figure(rec: dict, store: Store) -> str | None:
    """A PNG (base64) of the claim's evidence: per-cell intervals or the swept quantity."""
    cells = rec.get("detail", {}).get("cells")
    fig, ax = plt.subplots(figsize=(5.2, 3.2))
    try:
        if cells:
            key = "lhs" if "lhs" in cells[0] else ("diff" if "diff" in cells[0] else "ratio")
            xs = range(len(cells))
            est = [c[key] for c in cells]
            lo = [c[key] - c["lo"] for c in cells]
            hi = [c["hi"] - c[key] for c in cells]
            ax.errorbar(xs, est, yerr=[lo, hi], fmt="o", capsize=3, label="measured (interval)")
            if key == "lhs":
                ax.plot(xs, [c["rhs"] for c in cells], "r_", markersize=14, label="paper's bound")
            elif key == "diff":
                ax.fill_between(xs, [-c["tolerance"] for c in cells], [c["tolerance"] for c in cells],
                                color="g", alpha=0.15, label="resolution")
                ax.axhline(0, color="k", lw=0.6)
            else:
                ax.axhline(1, color="k", lw=0.6)
            ax.set_xticks(list(xs))
            ax.set_xticklabels([",".join(f"{k}={v}" for k, v in c.items() if k not in
                                         ("lhs", "lo", "hi", "rhs", "verdict", "diff", "tolerance", "ratio", "a", "b"))
                                for c in cells], rotation=30, fontsize=6, ha="right")
            ax.set_ylabel({"lhs": "lhs", "diff": "lhs - rhs", "ratio": "A / B"}[key])
        else:
            path = _dataset_path(rec, store)
            curve = _mean_curve(path) if path is not None else None
            if curve is None:
                return None
            dim, x, y, var = curve
            ax.loglog(x, y, "o-", label=f"mean {var}")
            ax.set_xlabel(dim)
            ax.set_title(f"slope {_fmt(rec['estimate'])} [{_fmt(rec['ci'][0])}, {_fmt(rec['ci'][1])}]; "
                         f"claimed {rec['claimed']}", fontsize=7)
        ax.legend(fontsize=6)
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=110, metadata={"Software": None})  # same bytes everywhere
        return base64.b64encode(buf.getvalue()).decode()
    finally:
        plt.close(fig)


def _rows(records: list[dict]) -> list[list[str]]:
    return [[r["paper"], r["item"], f"`{r['id']}`", r["claimed"],
             f"{_fmt(r['estimate'])} [{_fmt(r['ci'][0])}, {_fmt(r['ci'][1])}]", r["verdict"], r["expected"],
             "yes" if r["verdict"] == r["expected"] else "**NO**"] for r in records]


STYLE = ("<style>body{font-family:sans-serif;max-width:1100px;margin:auto}td,th{border:1px solid #ccc;"
         "padding:3px;font-size:12px}table{border-collapse:collapse}.NO{color:#b00;font-weight:bold}</style>")
HEAD = ["paper", "item", "id", "claimed", "estimate [CI]", "verdict", "expected", "as expected"]


def _unreadable_md(unreadable: Sequence[tuple[Path, str]]) -> list[str]:
    if not unreadable:
        return []
    return ["", "## Unreadable files (left out)", ""] + [f"- `{p}`: {reason}" for p, reason in unreadable]


def markdown(records: list[dict], unreadable: Sequence[tuple[Path, str]] = ()) -> str:
    as_expected = sum(r["verdict"] == r["expected"] for r in records)
    lines = ["# simverify report", "", f"{len(records)} checks; {as_expected} as expected.", "",
             "| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
    lines += ["| " + " | ".join(row) + " |" for row in _rows(records)]
    errata = [r for r in records if r.get("erratum")]
    if errata:
        lines += ["", "## Errata (claims refuted as printed)", ""]
        lines += [f"- **{r['item']}** `{r['id']}`: {r['erratum']}" for r in errata]
    undecided = [r for r in records if r["verdict"] == "INCONCLUSIVE"]
    if undecided:
        lines += ["", "## Inconclusive", ""] + [f"- `{r['id']}`: {r['advice']}" for r in undecided]
    return "\n".join(lines + _unreadable_md(unreadable)) + "\n"


def html_report(records: list[dict], figures: dict[str, str | None],
                unreadable: Sequence[tuple[Path, str]] = ()) -> str:
    """The page; ``figures`` maps a claim id to its PNG (base64) or None."""
    parts = ["<!doctype html><meta charset='utf-8'><title>simverify report</title>",
             STYLE,
             "<h1>simverify report</h1><table><tr>" + "".join(f"<th>{h}</th>" for h in HEAD) + "</tr>"]
    for r, row in zip(records, _rows(records)):
        cells = [html.escape(c.replace("`", "").replace("**", "")) for c in row]
        cells[2] = f"<a href='#{html.escape(r['id'])}'>{cells[2]}</a>"
        parts.append("<tr>" + "".join(f"<td class='{c}'>{c}</td>" if c == "NO" else f"<td>{c}</td>"
                                      for c in cells) + "</tr>")
    parts.append("</table>")
    if unreadable:
        parts.append("<h2>Unreadable files (left out)</h2><ul>" + "".join(
            f"<li><code>{html.escape(str(p))}</code>: {html.escape(reason)}</li>" for p, reason in unreadable)
            + "</ul>")
    for r in records:
        parts.append(f"<h3 id='{html.escape(r['id'])}'>{html.escape(r['item'])}: {html.escape(r['id'])}</h3>")
        parts.append(f"<p>{html.escape(r['statement'])}<br><code>{html.escape(r['formula'])}</code><br>"
                     f"verdict <b>{r['verdict']}</b> (expected {r['expected']}), law {html.escape(r['law'])}, "
                     f"{r['n_cells']} cells x {r['replicates']} replicates, level {r['confidence_level']:.5f}</p>")
        if r.get("erratum"):
            parts.append(f"<p><b>Erratum.</b> {html.escape(r['erratum'])}</p>")
        if r.get("advice"):
            parts.append(f"<p><i>{html.escape(r['advice'])}</i></p>")
        png = figures.get(r["id"])
        if png:
            parts.append(f"<img alt='evidence' src='data:image/png;base64,{png}'>")
    return "\n".join(parts)


MALFORMED = (KeyError, TypeError, ValueError, IndexError, AttributeError)  # a record lacking or mistyping a field


def _readable(store: Store, tier: str | None) -> tuple[list[tuple[Path, dict]], list[tuple[Path, str]]]:
    """(path, record) for the records of ``tier`` (all tiers: None) that render, and (path, reason)
    for the files that do not."""
    found, unreadable = store.read_results()
    records = []
    for path, rec in found:
        try:
            if tier is not None and rec["tier"] != tier:
                continue
            markdown([rec])
            html_report([rec], {})
        except MALFORMED as exc:
            unreadable.append((path, f"malformed record ({type(exc).__name__}: {exc})"))
            continue
        records.append((path, rec))
    return records, unreadable


def _figures(records: list[tuple[Path, dict]], store: Store,
             unreadable: list[tuple[Path, str]]) -> dict[str, str | None]:
    """Each record's figure by claim id; an unreadable Dataset or a malformed detail is added to
    ``unreadable`` and that claim gets no figure."""
    figures = {}
    for path, rec in records:
        figures[rec["id"]] = None
        try:
            figures[rec["id"]] = _figure(rec, store)
        except UnreadableFile as exc:
            unreadable.append((exc.path, exc.reason))
        except MALFORMED as exc:
            unreadable.append((path, f"malformed record detail ({type(exc).__name__}: {exc})"))
    return figures


def write_report(store: Store, out: str | Path, tier: str | None = None) -> Report:
    """Write report.md and report.html (each atomically) for the store's latest results (optionally one
    tier), leaving out and naming every unreadable file. NoResults, with nothing written, when no record
    is readable."""
    found, unreadable = _readable(store, tier)
    if not found:
        which = f" of tier {tier}" if tier else ""
        raise NoResults(f"no readable results{which} in store {store.root}; run 'simverify check' first")
    figures = _figures(found, store, unreadable)
    records = [rec for _, rec in found]
    out = Path(out)
    md, page = out / "report.md", out / "report.html"
    md_text, page_text = markdown(records, unreadable), html_report(records, figures, unreadable)
    atomic_write(md, lambda tmp: Path(tmp).write_text(md_text))
    atomic_write(page, lambda tmp: Path(tmp).write_text(page_text))
    return Report([md, page], unreadable)
