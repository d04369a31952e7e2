"""Any law without a drawer of its own (:class:`~simverify.laws.Law`): the first variable's mean and interval
in every grid cell."""
from __future__ import annotations

import itertools

import numpy as np
import xarray as xr

from ...laws import Law
from ...laws.base import REPLICATE
from .cellaxes import cell_axes
from .common import cell_label, mean_interval, no_offset, set_legend, set_title
from .dispatch import drawer


@drawer(Law)
def draw_default(law, ds: xr.Dataset, record: dict, ax) -> None:
    """Any law: the first variable's mean and interval in every grid cell."""
    var = next(iter(ds.data_vars))
    da = ds[var]
    if REPLICATE not in da.dims:
        da = da.expand_dims(REPLICATE)
    other = [d for d in da.dims if d != REPLICATE]
    cells = [dict(zip(other, combo)) for combo in itertools.product(*[da[d].values.tolist() for d in other])] or [{}]
    est = np.array([mean_interval(np.asarray(da.sel(c).values if c else da.values, dtype=float).ravel())
                    for c in cells])
    draw, ticks, shared = cell_axes(ax, [cell_label(ds, c) for c in cells])
    xs = np.arange(len(cells))
    draw.errorbar(xs, est[:, 0], est[:, 1], est[:, 2], fmt="o", ms=4.5, capsize=2.5,
                  label=f"mean {var} (95% interval)")
    draw.cells(xs, ticks, shared)
    draw.value_label(var)
    set_title(ax, record, "estimate")
    no_offset(ax)
    set_legend(ax)
