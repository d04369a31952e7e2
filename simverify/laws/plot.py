"""Evidence figures: each law draws what it judged on a matplotlib Axes (``Law.plot``).

Every grid cell is drawn with its replicate interval (95% t-interval of the mean), the fitted law with
its band, the claimed law or bound beside it, parameter names and values as labels, and the cell that
decided the verdict marked. Only the caller imports pyplot; this module draws on the Axes it is given.
"""
from __future__ import annotations

import itertools
import textwrap
from collections.abc import Sequence

import numpy as np
import xarray as xr

from .. import stats
from .base import REPLICATE, quantity

FIGURE_LEVEL = 0.95  # the intervals drawn per point (the verdict's own level is in the title)
VALUE_KEYS = {"lhs", "lo", "hi", "rhs", "verdict", "diff", "tolerance", "ratio", "a", "b"}


def _fmt(x) -> str:
    return stats.format_number(x, 3)


def _level(x) -> str:
    return stats.format_number(x, 6)


def _title(ax, record: dict, what: str) -> None:
    ci = record.get("ci") or [np.nan, np.nan]
    band = record.get("band") or [np.nan, np.nan]
    text = (f"{what} {_fmt(record.get('estimate'))} [{_fmt(ci[0])}, {_fmt(ci[1])}], band "
            f"[{_fmt(band[0])}, {_fmt(band[1])}] at level {_level(record.get('confidence_level'))}: "
            f"{record.get('verdict', '?')}")
    ax.set_title("\n".join(textwrap.wrap(text, 70)), fontsize=7)


def _no_offset(ax) -> None:
    """Plain tick labels: no offset on linear axes (never '1e-12+1e-1'); on log axes plain numbers
    ('1000', '0.02') instead of mathtext powers, whose typesetting dominated the time of a report."""
    from matplotlib import ticker
    for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
        if scale == "log":
            axis.set_major_formatter(ticker.LogFormatter(labelOnlyBase=False))
            axis.set_minor_formatter(ticker.LogFormatter(labelOnlyBase=False, minor_thresholds=(2, 0.5)))
            continue
        fmt = axis.get_major_formatter()
        if hasattr(fmt, "set_useOffset"):
            fmt.set_useOffset(False)


def _quantity_name(spec, fallback: str) -> str:
    if isinstance(spec, str):
        return spec
    return getattr(spec, "label", None) or fallback


def _zipped_labels(ds: xr.Dataset, dim: str, value) -> str:
    """``dim=value``, or the zipped parameters of that index (``r=3, kappa=2``) when ``dim`` is a zipped dim."""
    zipped = [c for c in ds.coords if c != dim and ds[c].dims == (dim,)]
    if zipped and dim in ds.dims:
        try:
            i = list(ds[dim].values).index(value) if dim in ds.coords else int(value)
            return ", ".join(f"{c}={_fmt(ds[c].values[i])}" for c in zipped)
        except (ValueError, IndexError):
            pass
    return f"{dim}={_fmt(value)}"


def cell_label(ds: xr.Dataset, cell: dict) -> str:
    """A cell's parameter names and values, zipped dims shown by their parameters."""
    parts = [_zipped_labels(ds, k, v) for k, v in cell.items() if k not in VALUE_KEYS]
    return ", ".join(parts) or "all"


def _mean_interval(s: np.ndarray) -> tuple[float, float, float]:
    s = s[np.isfinite(s)]
    if s.size == 0:
        return np.nan, np.nan, np.nan
    if s.size == 1:
        return float(s[0]), float(s[0]), float(s[0])
    iv = stats.mean_interval(s, FIGURE_LEVEL)
    return iv.estimate, iv.lo, iv.hi


def _groups(da: xr.DataArray, axis: str) -> list[dict]:
    other = [d for d in da.dims if d not in (axis, REPLICATE)]
    return [dict(zip(other, combo)) for combo in itertools.product(*[da[d].values.tolist() for d in other])] or [{}]


# -- slope laws ----------------------------------------------------------------------------------

def plot_slope(law, ds: xr.Dataset, record: dict, ax, *, slope: float | None = None, band=None,
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
    for group in _groups(da, law.axis):
        sub = da.sel(group) if group else da
        x = np.asarray(sub[law.axis].values, dtype=float)
        est = np.array([_mean_interval(np.asarray(sub.isel({law.axis: i}).values, dtype=float).ravel())
                        for i in range(x.size)])
        color = next(colors)
        label = cell_label(ds, group) if group else "mean"
        ax.errorbar(x, est[:, 0], yerr=[est[:, 0] - est[:, 1], est[:, 2] - est[:, 0]], fmt="o", ms=3, capsize=2,
                    color=color, label=label)
        ok = np.isfinite(est[:, 0]) & (est[:, 0] > 0 if positive else True)
        if law.window is not None:
            ok &= (x >= law.window[0]) & (x <= law.window[1])
        if ok.sum() >= 2 and np.isfinite(slope) and positive:
            tx = np.log(x[ok]) if logx else x[ok]
            cx, cy = tx.mean(), np.log(est[ok, 0]).mean()
            centre = centre or (tx, cx, cy)
            ax.plot(x[ok], np.exp(cy + slope * (tx - cx)), "-", color=color, lw=1)
    if centre is not None:
        tx, cx, cy = centre
        xs = np.exp(tx) if logx else tx
        for edge, style in ((band[0], ":"), (band[1], ":")):
            if np.isfinite(edge):
                ax.plot(xs, np.exp(cy + edge * (tx - cx)), style, color="0.4", lw=1)
        ax.plot([], [], ":", color="0.4", label=f"band edges ({what} {_fmt(shown(band[0]))} .. {_fmt(shown(band[1]))})")
        claimed = _claimed_slope(law)
        if claimed is not None:
            ax.plot(xs, np.exp(cy + claimed * (tx - cx)), "--", color="r", lw=1,
                    label=f"claimed {what} {_fmt(shown(claimed))}")
    ax.plot([], [], "-", color="k", lw=1, label=f"fitted {what} {_fmt(shown(slope))}")
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
    ax.set_ylabel(ylabel or _quantity_name(law.y, "lhs / rhs (the judged ratio)" if ratio else "judged quantity"))
    _title(ax, record, what)
    _no_offset(ax)
    ax.legend(fontsize=6)


def _claimed_slope(law) -> float | None:
    if law.lower == law.upper and np.isfinite(law.lower):
        return float(law.lower)
    finite = [v for v in (law.lower, law.upper) if np.isfinite(v)]
    return float(finite[0]) if len(finite) == 1 else None


def plot_rate(law, ds: xr.Dataset, record: dict, ax) -> None:
    """LinearRate: y - floor on a log axis against the iteration, the fitted factor and the claimed one."""
    slope_law = law._slope(lambda d: quantity(d, law.y) - law.floor)
    est = float(record.get("estimate", np.nan))
    band = record.get("band") or [0.0, law.rho]
    with np.errstate(divide="ignore"):
        slope = float(np.log(est)) if est > 0 else np.nan
        log_band = (-np.inf, float(np.log(band[1])) if band[1] > 0 else np.nan)
    plot_slope(slope_law, ds, record, ax, slope=slope, band=log_band,
               ylabel=f"{_quantity_name(law.y, 'error')} - floor", what="factor", shown=np.exp)


# -- per-cell laws -------------------------------------------------------------------------------

def plot_cells(law, ds: xr.Dataset, record: dict, ax) -> None:
    """Every cell's estimate with its (Bonferroni) interval, the bound/tolerance/band, the deciding cell."""
    detail = record.get("detail") or {}
    cells: Sequence[dict] = detail.get("cells") or []
    if not cells:
        plot_default(law, ds, record, ax)
        return
    key = "lhs" if "lhs" in cells[0] else ("diff" if "diff" in cells[0] else "ratio")
    xs = np.arange(len(cells))
    est = np.array([c[key] for c in cells], dtype=float)
    lo = np.array([c["lo"] for c in cells], dtype=float)
    hi = np.array([c["hi"] for c in cells], dtype=float)
    ax.errorbar(xs, est, yerr=[est - lo, hi - est], fmt="o", ms=4, capsize=3, color="C0",
                label="measured (interval at the verdict's level)")
    if key == "lhs":
        bound_label = "claimed bound" if record.get("erratum") else "bound as checked"
        ax.plot(xs, [c["rhs"] for c in cells], "_", color="r", ms=16, mew=2, label=bound_label)
        values = np.concatenate([lo, hi, [c["rhs"] for c in cells]])
        ax.set_ylabel(_quantity_name(law.lhs, "lhs"))
    elif key == "diff":
        tol = np.array([c["tolerance"] for c in cells], dtype=float)
        ax.fill_between(xs, -tol, tol, color="g", alpha=0.15, step="mid", label="stated resolution")
        ax.axhline(0, color="k", lw=0.6)
        values = np.array([-1.0])
        ax.set_ylabel("lhs - rhs")
    else:
        band = record.get("band") or [np.nan, np.nan]
        lo_b = band[0] if np.isfinite(band[0]) and band[0] > 0 else None
        hi_b = band[1] if np.isfinite(band[1]) else None
        ax.axhspan(lo_b or min(np.nanmin(lo), 1.0) / 2, hi_b or max(np.nanmax(hi), 1.0) * 2, color="g", alpha=0.12,
                   label=f"claimed band [{_fmt(band[0])}, {_fmt(band[1])}]")
        ax.axhline(1, color="k", lw=0.6)
        values = np.concatenate([lo, hi])
        ax.set_ylabel("ratio A / B")
    worst = detail.get("worst_cell")
    if isinstance(worst, int) and 0 <= worst < len(cells):
        ax.plot([worst], [est[worst]], "o", ms=11, mfc="none", mec="r", mew=1.5, label="deciding cell")
    finite = values[np.isfinite(values)]
    if key != "diff" and finite.size and finite.min() > 0 and (key == "ratio" or finite.max() / finite.min() > 20):
        ax.set_yscale("log")
    ax.set_xticks(xs)
    ax.set_xticklabels([cell_label(ds, c) for c in cells], rotation=30, fontsize=6, ha="right")
    ax.set_xlim(-0.6, len(cells) - 0.4)
    _title(ax, record, "deciding cell" + (" lhs/rhs" if key == "lhs" else ""))
    _no_offset(ax)
    ax.legend(fontsize=6)


def plot_printed(law, ds: xr.Dataset, record: dict, ax) -> None:
    """MatchesPrinted: the measured value against the printed number and its precision band."""
    lo, hi = law.band()
    value = float(record.get("estimate", np.nan))
    ax.axhspan(lo, hi, color="g", alpha=0.15, label=f"printed {law.printed:.{law.decimals}f} (+- half a digit)")
    ax.plot([0], [value], "o", color="C0", label=f"measured {value:.{law.decimals + 2}f}")
    ax.set_xticks([])
    ax.set_ylabel(_quantity_name(law.y, "value"))
    _title(ax, record, "value")
    _no_offset(ax)
    ax.legend(fontsize=6)


def plot_default(law, ds: xr.Dataset, record: dict, ax) -> None:
    """Any law: the first variable's mean and interval in every grid cell."""
    var = next(iter(ds.data_vars))
    da = ds[var]
    if REPLICATE not in da.dims:
        da = da.expand_dims(REPLICATE)
    other = [d for d in da.dims if d != REPLICATE]
    cells = [dict(zip(other, combo)) for combo in itertools.product(*[da[d].values.tolist() for d in other])] or [{}]
    est = np.array([_mean_interval(np.asarray(da.sel(c).values if c else da.values, dtype=float).ravel())
                    for c in cells])
    xs = np.arange(len(cells))
    ax.errorbar(xs, est[:, 0], yerr=[est[:, 0] - est[:, 1], est[:, 2] - est[:, 0]], fmt="o", ms=3, capsize=2,
                label=f"mean {var} (95% interval)")
    ax.set_xticks(xs)
    ax.set_xticklabels([cell_label(ds, c) for c in cells], rotation=30, fontsize=6, ha="right")
    ax.set_ylabel(var)
    _title(ax, record, "estimate")
    _no_offset(ax)
    ax.legend(fontsize=6)
