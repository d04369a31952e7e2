"""Evidence figures: each law draws what it judged on a matplotlib Axes (``Law.plot``).

Every grid cell is drawn with its replicate interval (95% t-interval of the mean), the fitted law with
its band, the claimed law or bound beside it, parameter names and values as labels, and the cell that
decided the verdict marked. Only the caller imports pyplot; this module draws on the Axes it is given.

Readable at a laptop's width: font sizes come from the caller's rcParams (none is hard-coded here),
legends stand outside the data area (right of the Axes; the caller's layout engine makes room), cell
labels are horizontal (one line, or one parameter per line, or the cells down the y axis when they do
not fit across), and a per-cell law whose Dataset holds curves (a variable over ``solver`` and the
iterations, e.g. a paper's convergence figure) draws the curves above its cells.
"""
from __future__ import annotations

import itertools
import textwrap
import warnings
from collections.abc import Sequence

import numpy as np
import xarray as xr

from .. import stats
from .base import REPLICATE, quantity

FIGURE_LEVEL = 0.95  # the intervals drawn per point (the verdict's own level is in the title)
VALUE_KEYS = {"lhs", "lo", "hi", "rhs", "verdict", "diff", "tolerance", "ratio", "a", "b"}
TITLE_WIDTH = 60  # characters per title line
LEGEND_WIDTH = 24  # characters per legend label line
AXES_SHARE = 0.6  # the share of the figure's width the data area gets beside its legend (label fitting)
CURVE_AXES = ("iteration", "stage")  # the dims a convergence curve runs along
CURVE_BAND = (0.25, 0.75)  # the replicate quantiles of a curve's band
MAX_CURVE_PANELS = 3  # more groups of curves than this: only the deciding cell's group is drawn
CURVE_HEIGHT = 1.7  # the figure's height is multiplied by this when curves are drawn above the cells


def _fmt(x) -> str:
    return stats.format_number(x, 3)


def _value(x) -> str:
    """A parameter's value in a label: whole numbers in full (8000, not 8e+03), others to 3 digits."""
    if isinstance(x, (bool, np.bool_, str)):
        return str(x)
    try:
        f = float(x)
    except (TypeError, ValueError):
        return str(x)
    return str(int(f)) if f.is_integer() and abs(f) < 1e9 else _fmt(f)


def _level(x) -> str:
    return stats.format_number(x, 6)


def _pct(x) -> str:
    """A frequency as a percentage: 0.2125 -> '21.2%'."""
    try:
        return f"{stats.format_number(100 * float(x), 3)}%"
    except (TypeError, ValueError):
        return str(x)


def _wrap(text: str, width: int) -> str:
    return "\n".join(textwrap.wrap(str(text), width, break_on_hyphens=False)) or str(text)


def _title(ax, record: dict, what: str, headline: str | None = None) -> None:
    """The verdict's headline (estimate, interval, band) wrapped, then the verdict and its level."""
    if headline is None:
        ci = record.get("ci") or [np.nan, np.nan]
        band = record.get("band") or [np.nan, np.nan]
        headline = (f"{what} {_fmt(record.get('estimate'))} [{_fmt(ci[0])}, {_fmt(ci[1])}]; "
                    f"band [{_fmt(band[0])}, {_fmt(band[1])}]")
    verdict = f"{record.get('verdict', '?')} at level {_level(record.get('confidence_level'))}"
    ax.set_title(_wrap(headline, TITLE_WIDTH) + "\n" + verdict)


def _legend(ax, handles=None, labels=None) -> None:
    """The legend outside the data area, right of the Axes, its labels wrapped."""
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return
    ax.legend(handles, [_wrap(label, LEGEND_WIDTH) for label in labels], loc="upper left",
              bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, framealpha=0.9)


def _plain_log_formatter(**kw):
    """LogFormatter labelling ticks as plain numbers ('0.6', '1000', '1e-05'), never mathtext powers."""
    from matplotlib import ticker

    class PlainLog(ticker.LogFormatter):
        def _num_to_string(self, x, vmin, vmax):
            return f"{x:g}"

    return PlainLog(labelOnlyBase=False, **kw)


def _no_offset(ax) -> None:
    """Plain tick labels: no offset on linear axes (never '1e-12+1e-1'); on log axes plain numbers
    ('1000', '0.6') instead of mathtext powers, whose typesetting dominated the time of a report."""
    from matplotlib import ticker
    for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
        if scale == "log":
            axis.set_major_formatter(_plain_log_formatter())
            axis.set_minor_formatter(_plain_log_formatter(minor_thresholds=(2, 0.5)))
            continue
        fmt = axis.get_major_formatter()
        if isinstance(fmt, ticker.ScalarFormatter):
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
            return ", ".join(f"{c}={_value(ds[c].values[i])}" for c in zipped)
        except (ValueError, IndexError):
            pass
    return f"{dim}={_value(value)}"


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


def _groups(da: xr.DataArray, axis: str | Sequence[str]) -> list[dict]:
    keep = (axis,) if isinstance(axis, str) else tuple(axis)
    other = [d for d in da.dims if d not in (*keep, REPLICATE)]
    return [dict(zip(other, combo)) for combo in itertools.product(*[da[d].values.tolist() for d in other])] or [{}]


# -- categorical (cell) axes ---------------------------------------------------------------------

def _tick_points() -> float:
    """The tick labels' font size in points (rcParams may name it: 'small')."""
    from matplotlib import font_manager, rcParams
    return font_manager.FontProperties(size=rcParams["xtick.labelsize"]).get_size_in_points()


def _pack(parts: Sequence[str], width: int) -> str:
    """Parameters (``k=v``) joined by ', ' into lines of at most ``width`` characters (a longer one alone)."""
    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + 2 + len(part) <= width:
            lines[-1] += ", " + part
        else:
            lines.append(part)
    return "\n".join(lines)


def common_parameters(labels: Sequence[str]) -> tuple[list[str], list[str]]:
    """(labels without the parameters every label shares, the shared parameters): 'n=1, solver=hals' and
    'n=2, solver=hals' -> ['n=1', 'n=2'], ['solver=hals']. Nothing is taken out of a single label or when
    it would leave a label empty."""
    parts = [label.split(", ") for label in labels]
    if len(parts) < 2:
        return list(labels), []
    shared = [p for p in parts[0] if all(p in q for q in parts[1:])]
    if not shared or any(len(q) == len(shared) for q in parts):
        return list(labels), []
    return [", ".join(p for p in q if p not in shared) for q in parts], shared


def cell_layout(ax, labels: Sequence[str]) -> tuple[bool, list[str]]:
    """(horizontal, tick labels) for cells along a categorical axis, every label written horizontally:
    one line each when they fit across the data area, else one parameter per line, else the cells run
    down the y axis (``horizontal``) with their parameters packed in lines beside them."""
    width = ax.figure.get_figwidth() * AXES_SHARE * ax.get_position().width / 0.775  # 0.775: default share
    char = 0.56 * _tick_points() / 72  # inches per character, about
    slot = width / max(len(labels), 1)
    if max(map(len, labels), default=0) * char <= 0.9 * slot:
        return False, list(labels)
    stacked = [label.replace(", ", "\n") for label in labels]
    longest = max((len(line) for label in stacked for line in label.split("\n")), default=0)
    if longest * char <= 0.9 * slot and max(label.count("\n") for label in stacked) < 4:
        return False, stacked
    return True, [_pack(label.split(", "), max(24, longest)) for label in labels]


class _Cells:
    """Draws per-cell values with the cells along x (``horizontal=False``) or down y (``True``)."""

    def __init__(self, ax, horizontal: bool):
        self.ax, self.h = ax, horizontal

    def errorbar(self, pos, est, lo, hi, **kw):
        err = [est - lo, hi - est]
        if self.h:
            return self.ax.errorbar(est, pos, xerr=err, **kw)
        return self.ax.errorbar(pos, est, yerr=err, **kw)

    def points(self, pos, values, fmt, **kw):
        marker = {"_": "|"}.get(fmt, fmt) if self.h else fmt
        return self.ax.plot(values, pos, marker, **kw) if self.h else self.ax.plot(pos, values, marker, **kw)

    def span(self, lo, hi, **kw):
        return self.ax.axvspan(lo, hi, **kw) if self.h else self.ax.axhspan(lo, hi, **kw)

    def line(self, value, **kw):
        return self.ax.axvline(value, **kw) if self.h else self.ax.axhline(value, **kw)

    def between(self, pos, lo, hi, **kw):
        if self.h:
            return self.ax.fill_betweenx(pos, lo, hi, **kw)
        return self.ax.fill_between(pos, lo, hi, **kw)

    def value_scale(self, scale: str):
        (self.ax.set_xscale if self.h else self.ax.set_yscale)(scale)

    def value_label(self, text: str):
        (self.ax.set_xlabel if self.h else self.ax.set_ylabel)(text)

    def value_lim(self, lo, hi):
        (self.ax.set_xlim if self.h else self.ax.set_ylim)(lo, hi)

    def value_axis(self):
        return self.ax.xaxis if self.h else self.ax.yaxis

    def cells(self, pos, labels, shared=()):
        """The cells' ticks and labels; the parameters all cells share named once, on the cell axis."""
        n = len(pos)
        if shared:
            (self.ax.set_ylabel if self.h else self.ax.set_xlabel)(_wrap("every cell: " + ", ".join(shared), 50))
        if self.h:
            self.ax.set_yticks(pos)
            self.ax.set_yticklabels(labels)
            self.ax.set_ylim(n - 0.4, -0.6)  # the first cell on top
        else:
            self.ax.set_xticks(pos)
            self.ax.set_xticklabels(labels)
            self.ax.set_xlim(-0.6, n - 0.4)


def _fit_height(ax, labels: Sequence[str]) -> None:
    """Cells down the y axis get their label's lines and half a line between: a taller figure if need be."""
    fig = ax.figure
    lines = sum(label.count("\n") + 1.6 for label in labels)
    need = lines * 1.25 * _tick_points() / 72 / max(ax.get_position().height, 0.2) + 1.2
    if need > fig.get_figheight():
        _set_height(fig, need)


def _set_height(fig, inches: float) -> None:
    """The figure's height, a whole number of pixels (the PNG's size is then exactly the figure's)."""
    fig.set_size_inches(fig.get_figwidth(), np.ceil(inches * fig.dpi) / fig.dpi)


# -- curves beside the cells ---------------------------------------------------------------------

def curve_variable(ds: xr.Dataset) -> tuple[str, str] | None:
    """(variable, iteration dim) of the first variable holding curves, one per ``solver`` along an
    iteration dim of at least two points; None when the Dataset holds none."""
    for name, da in ds.data_vars.items():
        if "solver" not in da.dims:
            continue
        for axis in CURVE_AXES:
            if axis in da.dims and da.sizes[axis] > 1:
                return str(name), axis
    return None


def _matches(group: dict, cell: dict) -> bool:
    shared = [k for k in group if k in cell]
    return bool(shared) and all(group[k] == cell[k] for k in shared)


def _with_curves(ds: xr.Dataset, record: dict, ax):
    """When ``ds`` holds curves (``curve_variable``) and ``ax`` sits in a grid: the figure grows taller,
    the curves take its top (one panel per group of the other dims, at most MAX_CURVE_PANELS, else the
    deciding cell's group alone), ``ax`` the bottom. Returns the curve Axes (empty when none)."""
    found = curve_variable(ds)
    spec = ax.get_subplotspec()
    if found is None or spec is None:
        return []
    name, axis = found
    da = ds[name]
    if REPLICATE not in da.dims:
        da = da.expand_dims(REPLICATE)
    groups = _groups(da, ("solver", axis))
    detail = record.get("detail") or {}
    cells, worst = detail.get("cells") or [], detail.get("worst_cell")
    deciding = cells[worst] if isinstance(worst, int) and 0 <= worst < len(cells) else {}
    decides = [_matches(g, deciding) for g in groups]
    shown = list(range(len(groups)))
    if len(groups) > MAX_CURVE_PANELS:
        shown = [decides.index(True) if any(decides) else 0]
    fig = ax.figure
    _set_height(fig, fig.get_figheight() * CURVE_HEIGHT)
    grid = spec.subgridspec(2, len(shown), height_ratios=[1.0, 1.15])
    ax.set_subplotspec(grid[1, :])
    axes = []
    for col, i in enumerate(shown):
        cax = fig.add_subplot(grid[0, col], sharey=axes[0] if axes else None)
        group = groups[i]
        title = cell_label(ds, group) if group else name
        if decides[i] and len(groups) > 1:
            title += " (deciding cell)"
        if len(shown) < len(groups):
            title += f"; 1 of {len(groups)} shown"
        _draw_curves(cax, da.sel(group) if group else da, axis, name, _wrap(title, 80 // len(shown)))
        if col:
            cax.tick_params(labelleft=False)
            cax.set_ylabel("")
        axes.append(cax)
    handles, labels = axes[-1].get_legend_handles_labels()
    _legend(axes[-1], handles, labels)
    return axes


def _draw_curves(ax, da: xr.DataArray, axis: str, name: str, title: str) -> None:
    """One line per solver: the median over replicates against the iteration, with a band between the
    replicates' CURVE_BAND quantiles; a log y axis when the values are positive."""
    x = np.asarray(da[axis].values, dtype=float)
    values = np.asarray(da.values, dtype=float)
    positive = bool(np.any(np.isfinite(values) & (values > 0)))
    log = positive and not np.any(np.isfinite(values) & (values <= 0) & (values != 0))  # zeros are dropped
    n_rep = da.sizes.get(REPLICATE, 1)
    for j, solver in enumerate(da["solver"].values.tolist()):
        sub = da.sel(solver=solver)
        arr = np.asarray(sub.transpose(axis, ...).values, dtype=float).reshape(x.size, -1)
        if log:
            arr = np.where(arr > 0, arr, np.nan)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # iterations no replicate reached: NaN
            med = np.nanmedian(arr, axis=1)
            lo, hi = np.nanquantile(arr, CURVE_BAND, axis=1)
        color = f"C{j % 10}"
        ax.plot(x, med, "-", color=color, lw=1.8, label=str(solver))
        ax.fill_between(x, lo, hi, color=color, alpha=0.2, lw=0)
    ax.fill_between([], [], [], color="0.5", alpha=0.3, lw=0,
                    label=f"median, {int(100 * CURVE_BAND[0])}-{int(100 * CURVE_BAND[1])}% of {n_rep} replicates")
    if log:
        ax.set_yscale("log")
    ax.set_xlabel(axis)
    ax.set_ylabel(name)
    ax.set_title(title)
    _no_offset(ax)


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
        ax.plot([], [], ":", color="0.4", label=f"band edges ({what} {_fmt(shown(band[0]))} .. {_fmt(shown(band[1]))})")
        claimed = _claimed_slope(law)
        if claimed is not None:
            ax.plot(xs, np.exp(cy + claimed * (tx - cx)), "--", color="r", lw=1.5,
                    label=f"claimed {what} {_fmt(shown(claimed))}")
    ax.plot([], [], "-", color="k", lw=1.5, label=f"fitted {what} {_fmt(shown(slope))}")
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
    _legend(ax)


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
    """Every cell's estimate with its (Bonferroni) interval, the bound/tolerance/band, the deciding cell;
    the convergence curves above when the Dataset holds them (``curve_variable``). A frequency bound
    (``probability=True``) is drawn as frequencies against the claimed threshold on a 0-100% axis."""
    detail = record.get("detail") or {}
    cells: Sequence[dict] = detail.get("cells") or []
    if not cells:
        plot_default(law, ds, record, ax)
        return
    _with_curves(ds, record, ax)
    key = "lhs" if "lhs" in cells[0] else ("diff" if "diff" in cells[0] else "ratio")
    frequency = key == "lhs" and bool(getattr(law, "probability", False))
    labels, shared = common_parameters([cell_label(ds, c) for c in cells])
    horizontal, ticks = cell_layout(ax, labels)
    if horizontal:
        _fit_height(ax, ticks)
    draw = _Cells(ax, horizontal)
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
            bound_label = f"claimed frequency {sense} {_pct(rhs[0])}" if same else f"claimed frequency {sense} bound"
        else:
            bound_label = "claimed bound" if record.get("erratum") else "bound as checked"
        draw.points(xs, rhs, "_", color="r", ms=22, mew=2.5, label=bound_label)
        values = np.concatenate([lo, hi, rhs])
        if frequency:
            draw.value_label("frequency over trials")
            if worst is not None:
                w = cells[worst]
                headline = (f"deciding cell: {_pct(w['lhs'])} [{_pct(w['lo'])}, {_pct(w['hi'])}] of trials; "
                            f"claimed {sense} {_pct(w['rhs'])}")
        else:
            name = _quantity_name(law.lhs, "lhs")
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
                  label=f"claimed band [{_fmt(band[0])}, {_fmt(band[1])}]")
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
    _title(ax, record, what, headline)
    if not frequency:
        _no_offset(ax)
    _legend(ax)


def plot_printed(law, ds: xr.Dataset, record: dict, ax) -> None:
    """MatchesPrinted: the measured value against the printed number (a line, seen however narrow its
    band) and its precision band, with the digits the comparison needs."""
    lo, hi = law.band()
    d = law.decimals
    value = float(record.get("estimate", np.nan))
    ax.axhspan(lo, hi, color="g", alpha=0.2, label=f"band [{lo:.{d + 1}f}, {hi:.{d + 1}f}]")
    ax.axhline(law.printed, color="r", lw=1.5, label=f"printed {law.printed:.{d}f}")
    ax.plot([0], [value], "o", ms=9, color="C0", label=f"measured {value:.{d + 2}f}")
    ax.set_xticks([])
    ax.set_xlim(-1, 1)
    ax.set_ylabel(_quantity_name(law.y, "value"))
    _title(ax, record, "value", f"measured {value:.{d + 2}f}; printed {law.printed:.{d}f}, "
                                f"band [{lo:.{d + 1}f}, {hi:.{d + 1}f}]")
    _no_offset(ax)
    _legend(ax)


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
    labels, shared = common_parameters([cell_label(ds, c) for c in cells])
    horizontal, ticks = cell_layout(ax, labels)
    if horizontal:
        _fit_height(ax, ticks)
    draw = _Cells(ax, horizontal)
    xs = np.arange(len(cells))
    draw.errorbar(xs, est[:, 0], est[:, 1], est[:, 2], fmt="o", ms=4.5, capsize=2.5,
                  label=f"mean {var} (95% interval)")
    draw.cells(xs, ticks, shared)
    draw.value_label(var)
    _title(ax, record, "estimate")
    _no_offset(ax)
    _legend(ax)
