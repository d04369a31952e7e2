"""Markdown and self-contained HTML reports (figures embedded as base64 PNG; no CDN)."""
from __future__ import annotations

import base64
import html
import io
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import xarray as xr  # noqa: E402

from .store import Store  # noqa: E402


def _fmt(x) -> str:
    try:
        return f"{float(x):.4g}"
    except (TypeError, ValueError):
        return str(x)


def _figure(rec: dict) -> str | None:
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
            path = rec.get("store")
            if not path or not Path(path).exists():
                return None
            with xr.open_dataset(path) as ds:
                var = next(iter(ds.data_vars))
                da = ds[var].mean("replicate")
                dim = da.dims[0] if da.dims else None
                if dim is None:
                    return None
                for rest in da.dims[1:]:
                    da = da.isel({rest: 0})
                ax.loglog(da[dim].values, da.values, "o-", label=f"mean {var}")
                ax.set_xlabel(dim)
            ax.set_title(f"slope {_fmt(rec['estimate'])} [{_fmt(rec['ci'][0])}, {_fmt(rec['ci'][1])}]; "
                         f"claimed {rec['claimed']}", fontsize=7)
        ax.legend(fontsize=6)
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=110)
        return base64.b64encode(buf.getvalue()).decode()
    finally:
        plt.close(fig)


def _rows(records: list[dict]) -> list[list[str]]:
    return [[r["paper"], r["item"], f"`{r['id']}`", r["claimed"], f"{_fmt(r['estimate'])} "
             f"[{_fmt(r['ci'][0])}, {_fmt(r['ci'][1])}]", r["verdict"], r["expected"],
             "yes" if r["verdict"] == r["expected"] else "**NO**"] for r in records]


HEAD = ["paper", "item", "id", "claimed", "estimate [CI]", "verdict", "expected", "as expected"]


def markdown(records: list[dict]) -> str:
    lines = ["# simverify report", "", f"{len(records)} checks; "
             f"{sum(r['verdict'] == r['expected'] for r in records)} as expected.", "",
             "| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
    lines += ["| " + " | ".join(row) + " |" for row in _rows(records)]
    errata = [r for r in records if r.get("erratum")]
    if errata:
        lines += ["", "## Errata (claims refuted as printed)", ""]
        lines += [f"- **{r['item']}** `{r['id']}`: {r['erratum']}" for r in errata]
    undecided = [r for r in records if r["verdict"] == "INCONCLUSIVE"]
    if undecided:
        lines += ["", "## Inconclusive", ""] + [f"- `{r['id']}`: {r['advice']}" for r in undecided]
    return "\n".join(lines) + "\n"


def html_report(records: list[dict]) -> str:
    parts = ["<!doctype html><meta charset='utf-8'><title>simverify report</title>",
             "<style>body{font-family:sans-serif;max-width:1100px;margin:auto}td,th{border:1px solid #ccc;"
             "padding:3px;font-size:12px}table{border-collapse:collapse}.NO{color:#b00;font-weight:bold}</style>",
             "<h1>simverify report</h1><table><tr>" + "".join(f"<th>{h}</th>" for h in HEAD) + "</tr>"]
    for r, row in zip(records, _rows(records)):
        cells = [html.escape(c.replace("`", "").replace("**", "")) for c in row]
        cells[2] = f"<a href='#{html.escape(r['id'])}'>{cells[2]}</a>"
        parts.append("<tr>" + "".join(f"<td class='{c}'>{c}</td>" if c == "NO" else f"<td>{c}</td>"
                                      for c in cells) + "</tr>")
    parts.append("</table>")
    for r in records:
        parts.append(f"<h3 id='{html.escape(r['id'])}'>{html.escape(r['item'])}: {html.escape(r['id'])}</h3>")
        parts.append(f"<p>{html.escape(r['statement'])}<br><code>{html.escape(r['formula'])}</code><br>"
                     f"verdict <b>{r['verdict']}</b> (expected {r['expected']}), law {html.escape(r['law'])}, "
                     f"{r['n_cells']} cells x {r['replicates']} replicates, level {r['confidence_level']:.5f}</p>")
        if r.get("erratum"):
            parts.append(f"<p><b>Erratum.</b> {html.escape(r['erratum'])}</p>")
        if r.get("advice"):
            parts.append(f"<p><i>{html.escape(r['advice'])}</i></p>")
        png = _figure(r)
        if png:
            parts.append(f"<img alt='evidence' src='data:image/png;base64,{png}'>")
    return "\n".join(parts)


def write_report(store: Store, out: str | Path, tier: str | None = None) -> list[Path]:
    """Write report.md and report.html for the store's latest results (optionally one tier)."""
    records = [r for r in store.results() if tier is None or r["tier"] == tier]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    md, page = out / "report.md", out / "report.html"
    md.write_text(markdown(records))
    page.write_text(html_report(records))
    return [md, page]
