"""Per-cell laws (:class:`~simverify.laws.Bound`, :class:`~simverify.laws.Identity`,
:class:`~simverify.laws.Comparison`): every cell's interval at the verdict's level against the bound, tolerance
or band, the deciding cell circled, the convergence curves above when the Dataset holds them."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import xarray as xr

from ...laws import Bound, Comparison, Identity
from .cellaxes import cell_axes
from .common import cell_label, fmt, fmt_pct, no_offset, quantity_name, set_legend, set_title
from .curves import with_curves
from .default import draw_default
from .dispatch import drawer


@drawer(Bound, Identity, Comparison)
def draw_cells(law, ds: xr.Dataset, record: dict, ax) -> None:
    """Every cell's estimate with its (Bonferroni) interval, the bound/tolerance/band, the deciding cell;
    the convergence curves above when the Dataset holds them (``curve_variable``). A frequency bound
    (``probability=True``) is drawn as frequencies against the claimed threshold on a 0-100% axis."""
    detail = record.get("detail") or {}
    cells: Sequence[dict] = detail.get("cells") or []
    if not cells:
        draw_default(law, ds, record, ax)
        return
    with_curves(ds, record, ax)
    key = "lhs" if "lhs" in cells[0] else ("diff" if "diff" in cells[0] else "ratio")
    frequency = key == "lhs" and bool(getattr(law, "probability", False))
    draw, ticks, shared = cell_axes(ax, [cell_label(ds, c) for c in cells])
    xs = np.arange(len(cells))
    est = np.array([c[key] for c in cells], dtype=float)
    lo = np.array([c["lo"] for c in cells], dtype=float)
    hi = np.array([c["hi"] for c in cells], dtype=float)
    draw.errorbar(xs, est, lo, hi, fmt="o", ms=6, capsize=4, color="C0", lw=1.5,
                  label="measured (interval at the verdict's level)")
    worst = detail.get("worst_cell")
    worst = worst if isinstance(worst, int) and 0 <= worst < len(cells) else None
    headline, what = None, "deciding cell"
    if key == "lhs":
        rhs = np.array([c["rhs"] for c in cells], dtype=float)
        sense = getattr(law, "sense", "<=")
        if frequency:
            same = np.allclose(rhs, rhs[0])
            bound_label = f"claimed frequency {sense} {fmt_pct(rhs[0])}" if same else f"claimed frequency {sense} bound"
        else:
            bound_label = "claimed bound" if record.get("erratum") else "bound as checked"
        draw.points(xs, rhs, "_", color="r", ms=22, mew=2.5, label=bound_label)
        values = np.concatenate([lo, hi, rhs])
        if frequency:
            draw.value_label("frequency over trials")
            if worst is not None:
                w = cells[worst]
                headline = (f"deciding cell: {fmt_pct(w['lhs'])} [{fmt_pct(w['lo'])}, {fmt_pct(w['hi'])}] of trials; "
                            f"claimed {sense} {fmt_pct(w['rhs'])}")
        else:
            name = quantity_name(law.lhs, "lhs")
            draw.value_label(name)
            on_lhs = worst is not None and np.isclose(float(record.get("estimate", np.nan)), cells[worst]["lhs"])
            what = f"deciding cell {name}" if on_lhs else "deciding cell lhs/rhs"  # the headline's own scale
    elif key == "diff":
        tol = np.array([c["tolerance"] for c in cells], dtype=float)
        draw.between(xs, -tol, tol, color="g", alpha=0.15, step="mid", label="stated resolution")
        draw.line(0, color="k", lw=0.8)
        values = np.array([-1.0])
        draw.value_label("lhs - rhs")
    else:
        band = record.get("band") or [np.nan, np.nan]
        lo_b = band[0] if np.isfinite(band[0]) and band[0] > 0 else None
        hi_b = band[1] if np.isfinite(band[1]) else None
        draw.span(lo_b or min(np.nanmin(lo), 1.0) / 2, hi_b or max(np.nanmax(hi), 1.0) * 2, color="g", alpha=0.12,
                  label=f"claimed band [{fmt(band[0])}, {fmt(band[1])}]")
        draw.line(1, color="k", lw=0.8)
        values = np.concatenate([lo, hi])
        draw.value_label("ratio A / B")
    if worst is not None:
        draw.points([worst], [est[worst]], "o", ms=15, mfc="none", mec="r", mew=2, label="deciding cell")
    finite = values[np.isfinite(values)]
    if frequency:
        from matplotlib import ticker
        draw.value_lim(-0.04, 1.04)
        draw.value_axis().set_major_formatter(ticker.PercentFormatter(xmax=1.0, decimals=0))
    elif key != "diff" and finite.size and finite.min() > 0 and (key == "ratio" or finite.max() / finite.min() > 20):
        draw.value_scale("log")
    draw.cells(xs, ticks, shared)
    set_title(ax, record, what, headline)
    if not frequency:
        no_offset(ax)
    set_legend(ax)
