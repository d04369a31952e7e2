"""Slope laws: the log-log (or log-linear) slope of a quantity along a swept axis
(:class:`LogSlope` and its constructors :func:`PowerLaw`, :func:`RatioBounded`,
:func:`SlopeRange`) and geometric contraction (:class:`LinearRate`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import stats
from ..stats import INCONCLUSIVE
from .base import REPLICATE, Law, LawResult, _advice, _require_dim, quantity


@dataclass
class LogSlope(Law):
    """Slope of log y against log(axis) (or axis, ``xscale='linear'``) lies in
    [lower - margin, upper + margin]. Other grid dims are groups sharing the slope.
    A (group, point) where some replicate is not finite is left out of the fit."""
    y: Any
    axis: str
    lower: float = -np.inf
    upper: float = np.inf
    margin: float = 0.1
    window: tuple[float, float] | None = None
    xscale: str = "log"
    kind: str = "PowerLaw"
    what: str = "log-log slope"

    def _data(self, ds):
        """Transformed abscissae (P,) and samples (G, P, R)."""
        da = quantity(ds, self.y)
        if self.window is not None:
            x = da[self.axis]
            da = da.where((x >= self.window[0]) & (x <= self.window[1]), drop=True)
        x = np.asarray(da[self.axis].values, dtype=float)
        other = [d for d in da.dims if d not in (self.axis, REPLICATE)]
        arr = np.asarray(da.transpose(*other, self.axis, REPLICATE).values, dtype=float)
        return (np.log(x) if self.xscale == "log" else x), arr.reshape((-1, x.size, da.sizes[REPLICATE]))

    def band(self) -> tuple[float, float]:
        return (self.lower - self.margin, self.upper + self.margin)

    def evaluate(self, ds, level):
        x, samples = self._data(ds)
        if x.size < 2:
            raise ValueError(f"{self.kind} over '{self.axis}' needs at least two grid points")
        band = self.band()
        if np.any(np.nanmean(samples, axis=-1) <= 0):  # only replicate means are log-transformed
            return LawResult(float("nan"), (float("nan"), float("nan")), self.claimed(), INCONCLUSIVE,
                             {"problem": "non-positive replicate means cannot be log-transformed"},
                             "some replicate means are <= 0: the quantity must be positive on the fitted axis", band)
        fit = stats.slope_fit(x, samples, level)
        iv = fit.interval
        verdict = stats.band_verdict(iv.lo, iv.hi, *band)
        advice = _advice(iv.estimate, iv.lo, iv.hi, *band, samples.shape[-1]) if verdict == INCONCLUSIVE else ""
        detail = {"se": iv.se, "local_slopes": fit.local, "group_slopes": fit.group_slopes, "band": list(band)}
        ignored = int(np.sum(~np.all(np.isfinite(samples), axis=-1)))
        if ignored:
            detail["ignored_points"] = ignored
        return LawResult(iv.estimate, (iv.lo, iv.hi), self.claimed(), verdict, detail, advice, band)

    def claimed(self):
        if self.lower == self.upper:
            return f"{self.what} = {self.lower:g} (+-{self.margin:g})"
        if np.isinf(self.lower):
            return f"{self.what} <= {self.upper:g} (+{self.margin:g})"
        if np.isinf(self.upper):
            return f"{self.what} >= {self.lower:g} (-{self.margin:g})"
        return f"{self.what} in [{self.lower:g}, {self.upper:g}] (+-{self.margin:g})"

    def check_plan(self, coords):
        """The axis is planned and has at least 2 distinct values inside the window."""
        super().check_plan(coords)
        values = _require_dim(self.kind, coords, self.axis)
        inside = {float(v) for v in values if self.window is None or self.window[0] <= float(v) <= self.window[1]}
        if len(inside) < 2:
            where = "distinct grid values" if self.window is None else \
                f"grid values inside window ({self.window[0]:g}, {self.window[1]:g})"
            raise ValueError(f"{self.kind} over '{self.axis}' needs at least 2 {where}; got {values}")
        if self.xscale == "log" and any(not float(v) > 0 for v in inside):
            raise ValueError(f"{self.kind} over '{self.axis}' fits against log({self.axis}): its grid values must be "
                             f"positive; got {values}")


def PowerLaw(y, axis: str, exponent: float, margin: float = 0.1, window=None) -> LogSlope:
    """y ~ axis^exponent: the log-log slope equals ``exponent`` within ``margin``."""
    return LogSlope(y, axis, exponent, exponent, margin, window)


def RatioBounded(ratio, axis: str, margin: float = 0.1, window=None) -> LogSlope:
    """A bound with an unknown absolute constant: lhs/rhs does not grow along ``axis``
    (log-log slope of the ratio <= 0 within ``margin``)."""
    return LogSlope(ratio, axis, -np.inf, 0.0, margin, window, kind="Bound (unknown constant)",
                    what=f"log-log slope of lhs/rhs along {axis}")


def SlopeRange(y, axis: str, lower=-np.inf, upper=np.inf, margin: float = 0.0, window=None) -> LogSlope:
    """A shape claim: the log-log slope of y along ``axis`` lies in [lower, upper]."""
    return LogSlope(y, axis, lower, upper, margin, window, kind="Shape")


@dataclass
class LinearRate(Law):
    """Geometric contraction: y - floor ~ C rho^t along ``axis``; claims factor <= rho.

    The fitted factor is exp(slope of log(mean over replicates of y - floor) against t),
    with a bootstrap over replicates; ``margin`` is on the log scale. Iterations after an
    early stop are NaN: an iteration is used (per group) only where every replicate is
    finite, i.e. the fit covers the iterations all replicates reached. ``window`` = (t_lo,
    t_hi) restricts the fit to those iterations (e.g. to skip a transient)."""
    y: Any
    rho: float
    axis: str = "iteration"
    floor: float = 0.0
    margin: float = 0.01
    window: tuple[float, float] | None = None
    kind: str = "LinearRate"

    def _slope(self, y) -> LogSlope:
        return LogSlope(y, self.axis, -np.inf, float(np.log(self.rho)), self.margin, self.window, xscale="linear",
                        kind=self.kind)

    def evaluate(self, ds, level):
        da = quantity(ds, self.y) - self.floor
        res = self._slope(lambda _ds: da).evaluate(ds, level)
        lo, hi = res.ci
        res.estimate, res.ci = float(np.exp(res.estimate)), (float(np.exp(lo)), float(np.exp(hi)))
        res.band = (0.0, float(np.exp(res.band[1])))
        res.claimed, res.scale = self.claimed(), "log"
        return res

    def claimed(self):
        return f"contraction factor <= {self.rho:g} (floor {self.floor:g})"

    def check_plan(self, coords):
        super().check_plan(coords)
        self._slope(self.y).check_plan(coords)
