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
    and ci are the value itself; the band is printed +- 0.5 * 10**-decimals. ``truncated``:
    the paper cut the digits instead of rounding (e.g. 7.125 printed as 7.12); the band is
    then [printed, printed + 10**-decimals) for a non-negative number."""
    y: Any
    printed: float
    decimals: int
    truncated: bool = False
    kind: str = "MatchesPrinted"
    min_replicates = 1

    def band(self) -> tuple[float, float]:
        unit = 10.0 ** (-self.decimals)
        if self.truncated:
            return (self.printed - 1e-9 * unit, self.printed + (1 - 1e-9) * unit)
        return (self.printed - unit / 2, self.printed + unit / 2)

    def evaluate(self, ds, level):
        value = float(np.mean(np.asarray(quantity(ds, self.y).values, dtype=float)))
        band = self.band()
        detail = {"value": value, "printed": self.printed, "decimals": self.decimals}
        if not np.isfinite(value):
            return LawResult(value, (value, value), self.claimed(), INCONCLUSIVE, detail,
                             "the value is not finite: nothing to compare with the printed number", band)
        return LawResult(value, (value, value), self.claimed(), stats.band_verdict(value, value, *band), detail, "",
                         band)

    def claimed(self):
        how = "truncates" if self.truncated else "rounds"
        return f"value {how} to the printed {self.printed:.{self.decimals}f}"


@dataclass
class MatchesPrintedMean(MatchesPrinted):
    """A deterministic result on fixed data against a mean over random trials that a paper printed: the value
    lies within ``spread`` of ``printed`` (e.g. two printed standard deviations: one run is one trial, not a
    mean). No interval, as for MatchesPrinted."""
    spread: float = 0.0
    kind: str = "MatchesPrintedMean"

    def band(self) -> tuple[float, float]:
        return (self.printed - self.spread, self.printed + self.spread)

    def claimed(self):
        return f"value within {self.spread:g} of the printed mean {self.printed:.{self.decimals}f}"
