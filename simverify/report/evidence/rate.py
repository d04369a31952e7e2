"""Linear rates (:class:`~simverify.laws.LinearRate`): the error above its floor on a log axis against the
iteration, drawn as a slope law whose legend names factors exp(slope)."""
from __future__ import annotations

import numpy as np
import xarray as xr

from ...laws import LinearRate
from ...laws.base import quantity
from .common import quantity_name
from .dispatch import drawer
from .slope import draw_slope


@drawer(LinearRate)
def draw_rate(law, ds: xr.Dataset, record: dict, ax) -> None:
    """LinearRate: y - floor on a log axis against the iteration, the fitted factor and the claimed one."""
    slope_law = law._slope(lambda d: quantity(d, law.y) - law.floor)
    est = float(record.get("estimate", np.nan))
    band = record.get("band") or [0.0, law.rho]
    with np.errstate(divide="ignore"):
        slope = float(np.log(est)) if est > 0 else np.nan
        log_band = (-np.inf, float(np.log(band[1])) if band[1] > 0 else np.nan)
    draw_slope(slope_law, ds, record, ax, slope=slope, band=log_band,
               ylabel=f"{quantity_name(law.y, 'error')} - floor", what="factor", shown=np.exp)
