"""Laws: how a claim's ``xarray.Dataset`` is judged (docs/claims.md, docs/statistics.md).

A law reads the claim's Dataset (grid dims x ``replicate`` [x output dims]) and returns a
:class:`LawResult`. Quantities are given as a variable name or as a callable
``ds -> DataArray`` so that a control may change only the law (for example a wrong
constant) and reuse the same cached simulation.

Before any simulation runs, the planner calls ``law.check_plan(coords)`` with every dim the
Dataset will have mapped to its coordinate values, and refuses fewer replicates than
``law.min_replicates``. A law cannot know which dims a quantity given by name or callable
carries, so ``check_plan`` checks only the dims the law names itself: the swept axis of a
slope law, the ``item`` dim of an item bootstrap, and the dim and labels of
:meth:`Comparison.against`.

Fixed data (a real data set, no Monte Carlo replicates) is judged with
:class:`MatchesPrinted` (a deterministic number against the digits a paper printed) or with
``resample="item"`` on :class:`Bound`, :class:`Identity` and :class:`Comparison`: the
interval then comes from resampling the per-item outcomes along the ``item`` dim.
"""
from __future__ import annotations

import itertools
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import xarray as xr

from . import stats
from .stats import CONFIRMED, INCONCLUSIVE, REFUTED

REPLICATE, ITEM = "replicate", "item"
NO_BAND = (float("nan"), float("nan"))


def quantity(ds: xr.Dataset, spec: str | Callable[[xr.Dataset], xr.DataArray]) -> xr.DataArray:
    """Evaluate a quantity spec (variable name or callable ``ds -> DataArray``) on a Dataset."""
    return ds[spec] if isinstance(spec, str) else spec(ds)


def _is_number(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))


def _check_rhs(kind: str, rhs) -> None:
    """A right-hand side is a real number, a variable name or a callable ``ds -> DataArray``."""
    if not (_is_number(rhs) or isinstance(rhs, str) or callable(rhs)):
        raise TypeError(f"{kind}: rhs must be a real number, a variable name or a callable, got {type(rhs).__name__}")


def _rhs(ds: xr.Dataset, spec, like: xr.DataArray) -> xr.DataArray:
    """The rhs as a DataArray: a constant shaped like ``like``, or the quantity ``spec``."""
    return xr.full_like(like, float(spec), dtype=float) if _is_number(spec) else quantity(ds, spec)


@dataclass
class LawResult:
    """What a law concluded: the estimate, its interval, the claimed value, the verdict, and
    ``band``, the allowed band on the estimate's own scale (what ``calibrate`` projects)."""
    estimate: float
    ci: tuple[float, float]
    claimed: str
    verdict: str
    detail: dict = field(default_factory=dict)
    advice: str = ""
    band: tuple[float, float] = NO_BAND


def _combine(verdicts: Sequence[str]) -> str:
    if REFUTED in verdicts:
        return REFUTED
    if all(v == CONFIRMED for v in verdicts):
        return CONFIRMED
    return INCONCLUSIVE


def _deciding(verdicts: Sequence[str], badness: Sequence[float]) -> tuple[str, int]:
    """Combined verdict and the cell that decides it: the worst cell (largest ``badness``)
    among those whose own verdict equals the combined one, so the headline interval and the
    advice always describe a cell that produced the verdict."""
    verdict = _combine(verdicts)
    bad = np.nan_to_num(np.asarray(badness, dtype=float), nan=-np.inf)
    cells = [i for i, v in enumerate(verdicts) if v == verdict]
    return verdict, max(cells, key=lambda i: bad[i])


def _cells(da: xr.DataArray, keep: Sequence[str]) -> tuple[np.ndarray, list[dict]]:
    """Stack all dims except ``keep`` into cells: (C, *keep) array and the cells' coords."""
    other = [d for d in da.dims if d not in keep]
    da = da.transpose(*other, *keep)
    arr = np.asarray(da.values, dtype=float).reshape((-1,) + tuple(da.sizes[k] for k in keep))
    labels = [dict(zip(other, combo)) for combo in itertools.product(*[da[d].values.tolist() for d in other])] or [{}]
    return arr, labels


def _advice(estimate, lo, hi, band_lo, band_hi, replicates) -> str:
    if replicates < 2:
        return "one replicate gives no interval: use at least 2"
    if not np.isfinite(estimate):
        return "no finite estimate: too few usable values along the swept axis"
    need = stats.replicates_to_decide(estimate, lo, hi, band_lo, band_hi, replicates)
    return f"interval too wide: about {need} replicates (now {replicates}) would decide" if need else \
        "estimate sits on the band edge: a larger grid along the swept axis would decide"


def _require_dim(kind: str, coords: Mapping[str, Sequence], dim: str) -> list:
    if dim not in coords:
        raise ValueError(f"{kind} needs dim '{dim}', the planned Dataset has only {sorted(coords)}")
    return list(coords[dim])


def _per_unit(da: xr.DataArray, resample: str) -> xr.DataArray:
    """Per-item outcomes are averaged over replicates (if any) before items are resampled."""
    return da.mean(REPLICATE) if resample == ITEM and REPLICATE in da.dims else da


def _unit_interval(s: np.ndarray, level: float, resample: str) -> stats.Interval:
    """Interval of the mean of s (R,): t-interval over replicates, bootstrap over items."""
    return stats.mean_interval(s, level) if resample == REPLICATE else \
        stats.bootstrap_interval(lambda v: v.mean(), s, level)


class Law:
    """Base class. ``kind`` names the law family; ``claimed()`` the statement in numbers;
    ``min_replicates`` the fewest replicates the planner accepts."""
    kind = "Law"
    min_replicates: int = 2

    def evaluate(self, ds: xr.Dataset, level: float) -> LawResult:  # pragma: no cover - abstract
        raise NotImplementedError

    def claimed(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def check_plan(self, coords: Mapping[str, Sequence]) -> None:
        """Raise ValueError when the planned dims/coords (dim -> values) cannot support the law."""


class _Resampled(Law):
    """Laws whose interval resamples ``replicate`` (default) or, on fixed data, ``item``."""
    resample: str

    @property
    def min_replicates(self) -> int:
        return 1 if self.resample == ITEM else 2

    def _check_resample(self) -> None:
        if self.resample not in (REPLICATE, ITEM):
            raise ValueError(f"{self.kind}: resample must be '{REPLICATE}' or '{ITEM}', got {self.resample!r}")

    def check_plan(self, coords):
        if self.resample == ITEM and len(set(_require_dim(self.kind, coords, ITEM))) < 2:
            raise ValueError(f"{self.kind} with resample='item' needs at least 2 items; got {list(coords[ITEM])}")


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
        values = _require_dim(self.kind, coords, self.axis)
        inside = {float(v) for v in values if self.window is None or self.window[0] <= float(v) <= self.window[1]}
        if len(inside) < 2:
            where = "distinct grid values" if self.window is None else \
                f"grid values inside window ({self.window[0]:g}, {self.window[1]:g})"
            raise ValueError(f"{self.kind} over '{self.axis}' needs at least 2 {where}; got {values}")


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
        res.claimed = self.claimed()
        return res

    def claimed(self):
        return f"contraction factor <= {self.rho:g} (floor {self.floor:g})"

    def check_plan(self, coords):
        self._slope(self.y).check_plan(coords)


@dataclass
class Bound(_Resampled):
    """lhs <= rhs (``sense='<='``) or lhs >= rhs at every grid point, lhs estimated from
    replicates (t-interval, or Clopper-Pearson when ``probability``), rhs exact: a real
    number, a variable name or a callable. ``rtol`` is the resolution the claim is stated at
    (needed for bounds attained with equality). ``resample='item'``: lhs holds per-item
    outcomes on fixed data, averaged over replicates, and its mean is bootstrapped over items.
    Estimate, interval and band are on the lhs/rhs scale of the deciding cell."""
    lhs: Any
    rhs: Any
    sense: str = "<="
    probability: bool = False
    rtol: float = 0.0
    kind: str = "Bound"
    resample: str = REPLICATE

    def __post_init__(self):
        _check_rhs(self.kind, self.rhs)
        self._check_resample()

    def _band(self, b: float) -> tuple[float, float]:
        edge = b + self.rtol * abs(b) if self.sense == "<=" else b - self.rtol * abs(b)
        return (-np.inf, edge) if self.sense == "<=" else (edge, np.inf)

    def _interval(self, s: np.ndarray, level: float) -> stats.Interval:
        if self.probability:
            return stats.clopper_pearson(int(s.sum()), s.size, level)
        return _unit_interval(s, level, self.resample)

    def evaluate(self, ds, level):
        lhs = _per_unit(quantity(ds, self.lhs), self.resample)
        rhs = _rhs(ds, self.rhs, lhs.isel({self.resample: 0}, drop=True))
        if self.resample in rhs.dims:
            rhs = rhs.mean(self.resample)
        rhs = rhs.broadcast_like(lhs.isel({self.resample: 0}, drop=True))
        samples, labels = _cells(lhs, [self.resample])
        bounds = _cells(rhs, [])[0].reshape(-1)
        if len(bounds) != len(samples):
            raise ValueError(f"{self.kind}: rhs has {len(bounds)} cells, lhs {len(samples)}")
        cell_level = stats.bonferroni(level, len(samples))
        verdicts, ratios, rows = [], [], []
        for s, b, lab in zip(samples, bounds, labels):
            iv = self._interval(s, cell_level)
            verdicts.append(stats.band_verdict(iv.lo, iv.hi, *self._band(b)))
            ratios.append(iv.estimate / b if b != 0 else np.inf)
            rows.append({**{k: _py(v) for k, v in lab.items()}, "lhs": iv.estimate, "lo": iv.lo, "hi": iv.hi,
                         "rhs": float(b), "verdict": verdicts[-1]})
        verdict, worst = _deciding(verdicts, ratios if self.sense == "<=" else -np.asarray(ratios))
        w = rows[worst]
        band = self._band(w["rhs"])
        advice = _advice(w["lhs"], w["lo"], w["hi"], *band, samples.shape[-1]) if verdict == INCONCLUSIVE else ""
        b = w["rhs"] if w["rhs"] != 0 else 1.0
        ci, ratio_band = sorted((w["lo"] / b, w["hi"] / b)), sorted((band[0] / b, band[1] / b))
        return LawResult(w["lhs"] / b, tuple(ci), self.claimed(), verdict, {"cells": rows, "worst_cell": worst},
                         advice, tuple(ratio_band))

    def claimed(self):
        tol = f" (resolution {self.rtol:g})" if self.rtol else ""
        return f"lhs/rhs {self.sense} 1 at every grid point{tol}"


@dataclass
class Identity(_Resampled):
    """lhs == rhs up to Monte Carlo error at every grid point: the interval of lhs - rhs
    lies within +-(atol + rtol |rhs|), the resolution the claim is stated at. rhs: a real
    number, a variable name or a callable. ``resample='item'`` as in :class:`Bound`."""
    lhs: Any
    rhs: Any
    atol: float = 0.0
    rtol: float = 0.0
    kind: str = "Identity"
    resample: str = REPLICATE

    def __post_init__(self):
        _check_rhs(self.kind, self.rhs)
        self._check_resample()

    def evaluate(self, ds, level):
        lhs = _per_unit(quantity(ds, self.lhs), self.resample)
        rhs = _per_unit(_rhs(ds, self.rhs, lhs), self.resample)
        diff = (lhs - rhs).broadcast_like(lhs)
        ref = abs(rhs).broadcast_like(lhs).mean(self.resample)
        samples, labels = _cells(diff, [self.resample])
        refs = _cells(ref, [])[0].reshape(-1)
        cell_level = stats.bonferroni(level, len(samples))
        verdicts, rows = [], []
        for s, r, lab in zip(samples, refs, labels):
            iv = _unit_interval(s, cell_level, self.resample)
            tol = self.atol + self.rtol * r
            verdicts.append(stats.band_verdict(iv.lo, iv.hi, -tol, tol))
            rows.append({**{k: _py(v) for k, v in lab.items()}, "diff": iv.estimate, "lo": iv.lo, "hi": iv.hi,
                         "tolerance": float(tol), "rhs": float(r), "verdict": verdicts[-1]})
        verdict, worst = _deciding(verdicts, [abs(r["diff"]) - r["tolerance"] for r in rows])
        w = rows[worst]
        band = (-w["tolerance"], w["tolerance"])
        advice = _advice(w["diff"], w["lo"], w["hi"], *band, samples.shape[-1]) if verdict == INCONCLUSIVE else ""
        return LawResult(w["diff"], (w["lo"], w["hi"]), self.claimed(), verdict, {"cells": rows, "worst_cell": worst},
                         advice, band)

    def claimed(self):
        return f"lhs - rhs = 0 within +-({self.atol:g} + {self.rtol:g}|rhs|)"


@dataclass(frozen=True)
class Selection:
    """The quantity ``var`` at ``labels`` of ``dim``: one label (the dim is dropped) or a
    tuple of labels (the dim is kept, one cell per label)."""
    var: Any
    dim: str
    labels: Any

    def __call__(self, ds: xr.Dataset) -> xr.DataArray:
        da = quantity(ds, self.var)
        if isinstance(self.labels, tuple):
            return da.sel({self.dim: list(self.labels)})
        return da.sel({self.dim: self.labels}, drop=True)


def _log_ratio(s: np.ndarray) -> float:
    """log(mean A / mean B) of the stacked samples s (2, R)."""
    return np.log(s[0].mean() / s[1].mean())


def _broadcast_pair(a: xr.DataArray, b: xr.DataArray) -> tuple[xr.DataArray, xr.DataArray]:
    """Both sides on the same dims (in a's order, then b's extra dims): a scalar coordinate
    on one side named like a dim of the other is dropped so it cannot clash."""
    a = a.drop_vars([c for c in a.coords if c in b.dims and c not in a.dims])
    b = b.drop_vars([c for c in b.coords if c in a.dims and c not in b.dims])
    a, b = xr.broadcast(a, b)
    return a, b.transpose(*a.dims)


@dataclass
class Comparison(_Resampled):
    """Method A against method B on a metric, per grid point, by the ratio of replicate
    means (paired bootstrap). ``relation='less'``: A/B <= factor (A better, for an error);
    ``'greater'``: A/B >= factor; ``'comparable'``: 1/factor <= A/B <= factor.

    Both sides are broadcast against each other, so B may carry an extra dim (several
    baselines, see :meth:`against`): every baseline is a cell and is judged.
    ``resample='item'``: per-item outcomes on fixed data, bootstrapped over items (paired).
    Estimate, interval and band are ratios A/B of the deciding cell."""
    a: Any
    b: Any
    relation: str = "less"
    factor: float = 1.0
    kind: str = "Comparison"
    resample: str = REPLICATE

    def __post_init__(self):
        self._check_resample()

    @classmethod
    def against(cls, var, ours: str = "ours", baselines: Sequence[str] = (), dim: str = "solver",
                relation: str = "less", factor: float = 1.0, resample: str = REPLICATE) -> Comparison:
        """``var`` at ``ours`` of ``dim`` against ``var`` at each of ``baselines``; the cells
        are labelled with the baseline names."""
        baselines = tuple(baselines)
        if not baselines or ours in baselines:
            raise ValueError(f"Comparison.against needs baselines other than {ours!r}, got {baselines}")
        return cls(Selection(var, dim, ours), Selection(var, dim, baselines), relation, factor, resample=resample)

    def _log_band(self) -> tuple[float, float]:
        lf = float(np.log(self.factor))
        return {"less": (-np.inf, lf), "greater": (lf, np.inf), "comparable": (-abs(lf), abs(lf))}[self.relation]

    def evaluate(self, ds, level):
        a, b = _broadcast_pair(_per_unit(quantity(ds, self.a), self.resample),
                               _per_unit(quantity(ds, self.b), self.resample))
        sa, labels = _cells(a, [self.resample])
        sb, _ = _cells(b, [self.resample])
        if sa.shape != sb.shape:
            raise ValueError(f"{self.kind}: A has cells {sa.shape}, B {sb.shape} after broadcasting")
        cell_level = stats.bonferroni(level, len(sa))
        band = self._log_band()
        verdicts, rows = [], []
        for xa, xb, lab in zip(sa, sb, labels):
            with np.errstate(divide="ignore", invalid="ignore"):
                iv = stats.bootstrap_interval(_log_ratio, np.stack([xa, xb]), cell_level)
            verdicts.append(stats.band_verdict(iv.lo, iv.hi, *band))
            rows.append({**{k: _py(v) for k, v in lab.items()}, "ratio": float(np.exp(iv.estimate)),
                         "lo": float(np.exp(iv.lo)), "hi": float(np.exp(iv.hi)), "a": float(xa.mean()),
                         "b": float(xb.mean()), "verdict": verdicts[-1]})
        with np.errstate(divide="ignore"):
            log_ratio = np.log([r["ratio"] for r in rows])
            badness = {"less": log_ratio, "greater": -log_ratio, "comparable": np.abs(log_ratio)}[self.relation]
            verdict, worst = _deciding(verdicts, badness)
            w = rows[worst]
            advice = _advice(np.log(w["ratio"]), np.log(w["lo"]), np.log(w["hi"]), *band, sa.shape[-1]) \
                if verdict == INCONCLUSIVE else ""
        return LawResult(w["ratio"], (w["lo"], w["hi"]), self.claimed(), verdict, {"cells": rows, "worst_cell": worst},
                         advice, (float(np.exp(band[0])), float(np.exp(band[1]))))

    def claimed(self):
        if isinstance(self.a, Selection) and isinstance(self.b, Selection):
            b = self.b.labels
            A, B = self.a.labels, (f"each of {list(b)}" if isinstance(b, tuple) else b)
        else:
            A, B = "A", "B"
        return {"less": f"{A}/{B} <= {self.factor:g}", "greater": f"{A}/{B} >= {self.factor:g}",
                "comparable": f"{1 / self.factor:.3g} <= {A}/{B} <= {self.factor:g}"}[self.relation]

    def check_plan(self, coords):
        """Item bootstrap needs items; :meth:`against` needs its dim and every label planned."""
        super().check_plan(coords)
        for side in (self.a, self.b):
            if isinstance(side, Selection):
                values = _require_dim(self.kind, coords, side.dim)
                wanted = side.labels if isinstance(side.labels, tuple) else (side.labels,)
                missing = [v for v in wanted if v not in values]
                if missing:
                    raise ValueError(f"{self.kind}: {side.dim} {missing} not in the planned {side.dim} {values}")


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

    def claimed(self):
        return f"value rounds to the printed {self.printed:.{self.decimals}f}"


def _py(v):
    return v.item() if hasattr(v, "item") else v
