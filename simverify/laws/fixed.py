"""Fixed data judged without an interval: :class:`MatchesPrinted` compares a deterministic
number with the digits a paper printed."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import stats
from ..stats import INCONCLUSIVE
from .base import Law, LawResult, quantity


@dataclass
class MatchesPrinted(Law):
    """A deterministic result on fixed data equals a number printed in a paper at the
    precision printed: the mean of y over all its entries (usually one replicate of one
    value) lies within half a unit of the last printed digit of ``printed`` (``decimals``
    digits after the point), i.e. it rounds to the printed number. No interval: estimate
    and ci are the value itself; the band is printed +- 0.5 * 10**-decimals."""
    y: Any
    printed: float
    decimals: int
    kind: str = "MatchesPrinted"
    min_replicates = 1

    def band(self) -> tuple[float, float]:
        half = 0.5 * 10.0 ** (-self.decimals)
        return (self.printed - half, self.printed + half)

    def evaluate(self, ds, level):
        value = float(np.mean(np.asarray(quantity(ds, self.y).values, dtype=float)))
        band = self.band()
        detail = {"value": value, "printed": self.printed, "decimals": self.decimals}
        if not np.isfinite(value):
            return LawResult(value, (value, value), self.claimed(), INCONCLUSIVE, detail,
                             "the value is not finite: nothing to compare with the printed number", band)
        return LawResult(value, (value, value), self.claimed(), stats.band_verdict(value, value, *band), detail, "",
                         band)

    def plot(self, ds, record, ax):
        """The value against the printed number and its precision band."""
        from .plot import plot_printed
        plot_printed(self, ds, record, ax)

    def claimed(self):
        return f"value rounds to the printed {self.printed:.{self.decimals}f}"
