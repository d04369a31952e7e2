"""Convergence curves above a per-cell law's cells: when the Dataset holds a variable over ``solver`` and the
iterations (a paper's convergence figure), one panel of median curves per group of the other dims."""
from __future__ import annotations

import warnings

import numpy as np
import xarray as xr

from ...laws.base import REPLICATE
from .cellaxes import set_height
from .common import cell_label, groups_of, no_offset, set_legend, wrap

CURVE_AXES = ("iteration", "stage")  # the dims a convergence curve runs along
CURVE_BAND = (0.25, 0.75)  # the replicate quantiles of a curve's band
MAX_CURVE_PANELS = 3  # more groups of curves than this: only the deciding cell's group is drawn
CURVE_HEIGHT = 1.7  # the figure's height is multiplied by this when curves are drawn above the cells


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
    """Whether the cell has the group's values on every dim they share (and they share one)."""
    shared = [k for k in group if k in cell]
    return bool(shared) and all(group[k] == cell[k] for k in shared)


def with_curves(ds: xr.Dataset, record: dict, ax):
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
    groups = groups_of(da, ("solver", axis))
    detail = record.get("detail") or {}
    cells, worst = detail.get("cells") or [], detail.get("worst_cell")
    deciding = cells[worst] if isinstance(worst, int) and 0 <= worst < len(cells) else {}
    decides = [_matches(g, deciding) for g in groups]
    shown = list(range(len(groups)))
    if len(groups) > MAX_CURVE_PANELS:
        shown = [decides.index(True) if any(decides) else 0]
    fig = ax.figure
    set_height(fig, fig.get_figheight() * CURVE_HEIGHT)
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
        _draw_curves(cax, da.sel(group) if group else da, axis, name, wrap(title, 80 // len(shown)))
        if col:
            cax.tick_params(labelleft=False)
            cax.set_ylabel("")
        axes.append(cax)
    handles, labels = axes[-1].get_legend_handles_labels()
    set_legend(axes[-1], handles, labels)
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
    no_offset(ax)
