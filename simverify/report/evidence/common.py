"""What every evidence figure shares: number formats, wrapped titles and legends, plain tick labels, cell labels
and the replicate interval drawn per point."""
from __future__ import annotations

import itertools
import textwrap
from collections.abc import Sequence

import numpy as np
import xarray as xr

from ... import stats
from ...laws.base import REPLICATE

FIGURE_LEVEL = 0.95  # the intervals drawn per point (the verdict's own level is in the title)
VALUE_KEYS = {"lhs", "lo", "hi", "rhs", "verdict", "diff", "tolerance", "ratio", "a", "b"}
TITLE_WIDTH = 60  # characters per title line
LEGEND_WIDTH = 24  # characters per legend label line


def fmt(x) -> str:
    """A number to 3 significant digits."""
    return stats.format_number(x, 3)


def fmt_value(x) -> str:
    """A parameter's value in a label: whole numbers in full (8000, not 8e+03), others to 3 digits."""
    if isinstance(x, (bool, np.bool_, str)):
        return str(x)
    try:
        f = float(x)
    except (TypeError, ValueError):
        return str(x)
    return str(int(f)) if f.is_integer() and abs(f) < 1e9 else fmt(f)


def fmt_level(x) -> str:
    """A confidence level to 6 significant digits."""
    return stats.format_number(x, 6)


def fmt_pct(x) -> str:
    """A frequency as a percentage: 0.2125 -> '21.2%'."""
    try:
        return f"{stats.format_number(100 * float(x), 3)}%"
    except (TypeError, ValueError):
        return str(x)


def wrap(text: str, width: int) -> str:
    """The text in lines of at most ``width`` characters (hyphenated words kept whole)."""
    return "\n".join(textwrap.wrap(str(text), width, break_on_hyphens=False)) or str(text)


def set_title(ax, record: dict, what: str, headline: str | None = None) -> None:
    """The verdict's headline (estimate, interval, band) wrapped, then the verdict and its level."""
    if headline is None:
        ci = record.get("ci") or [np.nan, np.nan]
        band = record.get("band") or [np.nan, np.nan]
        headline = (f"{what} {fmt(record.get('estimate'))} [{fmt(ci[0])}, {fmt(ci[1])}]; "
                    f"band [{fmt(band[0])}, {fmt(band[1])}]")
    verdict = f"{record.get('verdict', '?')} at level {fmt_level(record.get('confidence_level'))}"
    ax.set_title(wrap(headline, TITLE_WIDTH) + "\n" + verdict)


def set_legend(ax, handles=None, labels=None) -> None:
    """The legend outside the data area, right of the Axes, its labels wrapped."""
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return
    ax.legend(handles, [wrap(label, LEGEND_WIDTH) for label in labels], loc="upper left",
              bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, framealpha=0.9)


def tick_points() -> float:
    """The tick labels' font size in points (rcParams may name it: 'small')."""
    from matplotlib import font_manager, rcParams
    return font_manager.FontProperties(size=rcParams["xtick.labelsize"]).get_size_in_points()


CHAR_WIDTH = 0.56  # an average label character's width in units of its font size, about
DIGIT_WIDTH = 0.64  # a digit's (DejaVu Sans: 0.636): tick labels of numbers
LABEL_GAP = 0.08   # inches between neighbouring tick labels, at least
SUBLABELS = ((1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 2, 3, 4, 6), (1, 2, 5), (1, 3), (1,))  # the denser first


def _coefficient(x: float) -> float:
    """x over its decade (1 <= c < 10; a whole number for the multiples a log axis ticks)."""
    return x / 10.0 ** np.floor(np.log10(x))


def labelled_ticks(ticks: Sequence[float], inches: float, vmin: float, vmax: float,
                   subs: Sequence[float] | None = None) -> set[float]:
    """Of a log x axis's ticks in view (vmin..vmax > 0, ``inches`` wide), those to label so that neighbouring
    plain labels do not overlap: when every tick is a whole multiple of its decade, those of the densest of
    SUBLABELS (no denser than ``subs``, the multiples matplotlib would label), then every s-th decade, else (a
    range under a decade ticked linearly) every s-th tick, for the smallest s that fits; a choice labelling two
    ticks or more first."""
    char = DIGIT_WIDTH * tick_points() / 72
    per_decade = inches / max(np.log10(vmax / vmin), 1e-12)
    ticks = sorted(t for t in ticks if vmin <= t <= vmax and np.isfinite(t))

    def fits(shown: list[float]) -> bool:
        return all(per_decade * np.log10(b / a) >= char * (len(f"{a:g}") + len(f"{b:g}")) / 2 + LABEL_GAP
                   for a, b in zip(shown, shown[1:]))
    if all(abs(c - round(c)) < 1e-6 for c in map(_coefficient, ticks)):
        most = max(1, len(set(subs or range(1, 10)) - {10}))
        choices = [[t for t in ticks if round(_coefficient(t)) in cand] for cand in SUBLABELS if len(cand) <= most]
        ticks = choices[-1]  # the decades, thinned below if even they do not fit
    else:
        choices = []
    choices += [ticks[::s] for s in range(1, len(ticks) + 1)]
    fitting = [c for c in choices if fits(c)]
    return set(next((c for c in fitting if len(c) >= 2), next((c for c in fitting if c), [])))


def plain_log_formatter(**kw):
    """LogFormatter labelling ticks as plain numbers ('0.6', '1000', '1e-05'), never mathtext powers; on an x axis
    only the ticks whose labels fit side by side (``labelled_ticks``, the major and minor ticks together)."""
    from matplotlib import ticker

    class PlainLog(ticker.LogFormatter):
        _shown: set[float] | None = None

        def _num_to_string(self, x, vmin, vmax):
            """The tick's value in the shortest plain notation."""
            return f"{x:g}"

        def set_locs(self, locs=None):
            super().set_locs(locs)
            self._shown = None
            if self.axis is None or self.axis.axis_name != "x":
                return
            vmin, vmax = sorted(self.axis.get_view_interval())
            inches = self.axis.axes.get_window_extent().width / self.axis.axes.figure.dpi
            if vmin > 0 and np.isfinite(vmax) and inches > 0:
                ticks = [*self.axis.get_majorticklocs(), *self.axis.get_minorticklocs()]
                self._shown = labelled_ticks(ticks, inches, vmin, vmax, self._sublabels)

        def __call__(self, x, pos=None):
            if self._shown is None:
                return super().__call__(x, pos)
            return f"{x:g}" if any(abs(x - v) <= 1e-9 * abs(v) for v in self._shown) else ""  # np.isclose's test

    return PlainLog(labelOnlyBase=False, **kw)


def no_offset(ax) -> None:
    """Plain tick labels: no offset on linear axes (never '1e-12+1e-1'); on log axes plain numbers
    ('1000', '0.6') instead of mathtext powers, whose typesetting dominated the time of a report."""
    from matplotlib import ticker
    for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
        if scale == "log":
            axis.set_major_formatter(plain_log_formatter())
            axis.set_minor_formatter(plain_log_formatter(minor_thresholds=(2, 0.5)))
            continue
        formatter = axis.get_major_formatter()
        if isinstance(formatter, ticker.ScalarFormatter):
            formatter.set_useOffset(False)


def quantity_name(spec, fallback: str) -> str:
    """An axis label for a quantity: its variable name, its ``label``, else ``fallback``."""
    if isinstance(spec, str):
        return spec
    return getattr(spec, "label", None) or fallback


def _zipped_labels(ds: xr.Dataset, dim: str, value) -> str:
    """``dim=value``, or the zipped parameters of that index (``r=3, kappa=2``) when ``dim`` is a zipped dim."""
    zipped = [c for c in ds.coords if c != dim and ds[c].dims == (dim,)]
    if zipped and dim in ds.dims:
        try:
            i = list(ds[dim].values).index(value) if dim in ds.coords else int(value)
            return ", ".join(f"{c}={fmt_value(ds[c].values[i])}" for c in zipped)
        except (ValueError, IndexError):
            pass
    return f"{dim}={fmt_value(value)}"


def cell_label(ds: xr.Dataset, cell: dict) -> str:
    """A cell's parameter names and values, zipped dims shown by their parameters."""
    parts = [_zipped_labels(ds, k, v) for k, v in cell.items() if k not in VALUE_KEYS]
    return ", ".join(parts) or "all"


def mean_interval(s: np.ndarray) -> tuple[float, float, float]:
    """(mean, lo, hi) of the finite samples at FIGURE_LEVEL; one sample is its own interval, none is NaN."""
    s = s[np.isfinite(s)]
    if s.size == 0:
        return np.nan, np.nan, np.nan
    if s.size == 1:
        return float(s[0]), float(s[0]), float(s[0])
    iv = stats.mean_interval(s, FIGURE_LEVEL)
    return iv.estimate, iv.lo, iv.hi


def groups_of(da: xr.DataArray, axis: str | Sequence[str]) -> list[dict]:
    """Every combination of the dims other than ``axis`` and ``replicate`` (dim -> value), or [{}]."""
    keep = (axis,) if isinstance(axis, str) else tuple(axis)
    other = [d for d in da.dims if d not in (*keep, REPLICATE)]
    return [dict(zip(other, combo)) for combo in itertools.product(*[da[d].values.tolist() for d in other])] or [{}]
