"""Slope laws (:class:`~simverify.laws.LogSlope`: PowerLaw, RatioBounded, SlopeRange): every grid point's
replicate mean with its interval, one series per group, the fitted slope, the band's edges, the claimed one."""
from __future__ import annotations

import itertools

import numpy as np
import xarray as xr

from ...laws import LogSlope
from ...laws.base import REPLICATE, quantity
from .common import cell_label, fmt, groups_of, mean_interval, no_offset, quantity_name, set_legend, set_title
from .dispatch import drawer


@drawer(LogSlope)
def draw_slope(law, ds: xr.Dataset, record: dict, ax, *, slope: float | None = None, band=None,
               ylabel: str | None = None, what: str = "slope", shown=float) -> None:
    """Points (mean and interval per grid point, one series per group), the fitted slope through each
    group's centre, the band's edges and the claimed exponent. ``slope``/``band`` default to the record's;
    ``shown`` maps a slope to the number the legend names (the factor exp(slope) for a linear rate)."""
    da = quantity(ds, law.y)
    if REPLICATE not in da.dims:
        da = da.expand_dims(REPLICATE)
    slope = float(record.get("estimate", np.nan)) if slope is None else slope
    band = tuple(record.get("band") or law.band()) if band is None else band
    logx = law.xscale == "log"
    positive = bool(np.nanmin(np.where(np.isfinite(da.values), da.values, np.nan)) > 0) if da.size else False
    colors = itertools.cycle([f"C{i}" for i in range(10)])
    centre = None
    for group in groups_of(da, law.axis):
        sub = da.sel(group) if group else da
        x = np.asarray(sub[law.axis].values, dtype=float)
        est = np.array([mean_interval(np.asarray(sub.isel({law.axis: i}).values, dtype=float).ravel())
                        for i in range(x.size)])
        color = next(colors)
        label = cell_label(ds, group) if group else "mean (95% interval)"
        ax.errorbar(x, est[:, 0], yerr=[est[:, 0] - est[:, 1], est[:, 2] - est[:, 0]], fmt="o", ms=4.5, capsize=2.5,
                    color=color, label=label)
        ok = np.isfinite(est[:, 0]) & (est[:, 0] > 0 if positive else True)
        if law.window is not None:
            ok &= (x >= law.window[0]) & (x <= law.window[1])
        if ok.sum() >= 2 and np.isfinite(slope) and positive:
            tx = np.log(x[ok]) if logx else x[ok]
            cx, cy = tx.mean(), np.log(est[ok, 0]).mean()
            centre = centre or (tx, cx, cy)
            ax.plot(x[ok], np.exp(cy + slope * (tx - cx)), "-", color=color, lw=1.5)
    if centre is not None:
        tx, cx, cy = centre
        xs = np.exp(tx) if logx else tx
        for edge, style in ((band[0], ":"), (band[1], ":")):
            if np.isfinite(edge):
                ax.plot(xs, np.exp(cy + edge * (tx - cx)), style, color="0.4", lw=1.2)
        ax.plot([], [], ":", color="0.4", label=f"band edges ({what} {fmt(shown(band[0]))} .. {fmt(shown(band[1]))})")
        claimed = _claimed_slope(law)
        if claimed is not None:
            ax.plot(xs, np.exp(cy + claimed * (tx - cx)), "--", color="r", lw=1.5,
                    label=f"claimed {what} {fmt(shown(claimed))}")
    ax.plot([], [], "-", color="k", lw=1.5, label=f"fitted {what} {fmt(shown(slope))}")
    if law.window is not None:  # shaded where it meets the grid, so a wide window does not stretch the axis
        x_all = np.asarray(da[law.axis].values, dtype=float)
        lo, hi = max(law.window[0], x_all.min()), min(law.window[1], x_all.max())
        if lo <= hi and (lo > x_all.min() or hi < x_all.max()):  # only when it leaves grid points out
            ax.axvspan(lo, hi, color="0.92", zorder=0, label="fitted window")
    if logx:
        ax.set_xscale("log")
    if positive:
        ax.set_yscale("log")
    ax.set_xlabel(law.axis)
    ratio = law.kind.startswith("Bound")
    ax.set_ylabel(ylabel or quantity_name(law.y, "lhs / rhs (the judged ratio)" if ratio else "judged quantity"))
    set_title(ax, record, what)
    no_offset(ax)
    set_legend(ax)


def _claimed_slope(law) -> float | None:
    """The claimed slope to draw: the exponent of an equality, the one finite edge of a one-sided claim, else None."""
    if law.lower == law.upper and np.isfinite(law.lower):
        return float(law.lower)
    finite = [v for v in (law.lower, law.upper) if np.isfinite(v)]
    return float(finite[0]) if len(finite) == 1 else None
