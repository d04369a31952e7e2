"""Numbers printed in a paper (:class:`~simverify.laws.MatchesPrinted`): the measured value against the printed
number and its precision band."""
from __future__ import annotations

import numpy as np
import xarray as xr

from ...laws import MatchesPrinted
from .common import no_offset, quantity_name, set_legend, set_title
from .dispatch import drawer


@drawer(MatchesPrinted)
def draw_printed(law, ds: xr.Dataset, record: dict, ax) -> None:
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
    ax.set_ylabel(quantity_name(law.y, "value"))
    set_title(ax, record, "value", f"measured {value:.{d + 2}f}; printed {law.printed:.{d}f}, "
                                   f"band [{lo:.{d + 1}f}, {hi:.{d + 1}f}]")
    no_offset(ax)
    set_legend(ax)
