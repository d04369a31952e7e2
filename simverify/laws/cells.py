"""Per-cell laws: :class:`Bound`, :class:`Identity` and :class:`Comparison` judge every grid
point (cell) with a Bonferroni-corrected interval, resampling ``replicate`` or, on fixed
data (``resample="item"``), the per-item outcomes along the ``item`` dim."""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr

from .. import stats
from ..stats import INCONCLUSIVE
from .base import (
    ITEM,
    REPLICATE,
    DataSized,
    Law,
    LawResult,
    _advice,
    _check_rhs,
    _deciding,
    _is_number,
    _py,
    _require_dim,
    _rhs,
    quantity,
)


def _cells(da: xr.DataArray, keep: Sequence[str]) -> tuple[np.ndarray, list[dict]]:
    """Stack all dims except ``keep`` into cells: (C, *keep) array and the cells' coords."""
    other = [d for d in da.dims if d not in keep]
    da = da.transpose(*other, *keep)
    arr = np.asarray(da.values, dtype=float).reshape((-1,) + tuple(da.sizes[k] for k in keep))
    labels = [dict(zip(other, combo)) for combo in itertools.product(*[da[d].values.tolist() for d in other])] or [{}]
    return arr, labels


def _per_unit(da: xr.DataArray, resample: str) -> xr.DataArray:
    """Per-item outcomes are averaged over replicates (if any) before items are resampled."""
    return da.mean(REPLICATE) if resample == ITEM and REPLICATE in da.dims else da


def _unit_interval(s: np.ndarray, level: float, resample: str) -> stats.Interval:
    """Interval of the mean of s (R,): t-interval over replicates, bootstrap over items."""
    return stats.mean_interval(s, level) if resample == REPLICATE else \
        stats.bootstrap_interval(lambda v: v.mean(), s, level)


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
        super().check_plan(coords)
        if self.resample == ITEM and isinstance(coords.get(ITEM), DataSized):
            return  # the data decides how many items; checked when the Dataset exists
        if self.resample == ITEM and len(set(_require_dim(self.kind, coords, ITEM))) < 2:
            raise ValueError(f"{self.kind} with resample='item' needs at least 2 items; got {list(coords[ITEM])}")


@dataclass
class Bound(_Resampled):
    """lhs <= rhs (``sense='<='``) or lhs >= rhs at every grid point, lhs estimated from
    replicates (t-interval, or Clopper-Pearson when ``probability``), rhs exact: a real
    number, a variable name or a callable. ``rtol`` is the resolution the claim is stated at
    (needed for bounds attained with equality). ``resample='item'``: lhs holds per-item
    outcomes on fixed data, averaged over replicates, and its mean is bootstrapped over items.
    The headline (estimate, interval, band) is lhs itself for a frequency or a constant rhs, else the deciding
    cell's ratio lhs/rhs (``on_lhs_scale``)."""
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
            if not np.all((s == 0) | (s == 1)):
                raise ValueError(f"{self.kind}: probability=True needs outcomes 0 or 1 per replicate, got values "
                                 f"such as {float(s[(s != 0) & (s != 1)][0])!r}")
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
        detail = {"cells": rows, "worst_cell": worst}
        if self.on_lhs_scale:  # the headline on the scale the claim is stated in
            return LawResult(w["lhs"], (w["lo"], w["hi"]), self.claimed(), verdict, detail, advice, band)
        b = w["rhs"] if w["rhs"] != 0 else 1.0
        ci, ratio_band = sorted((w["lo"] / b, w["hi"] / b)), sorted((band[0] / b, band[1] / b))
        return LawResult(w["lhs"] / b, tuple(ci), self.claimed(), verdict, detail, advice, tuple(ratio_band))

    @property
    def on_lhs_scale(self) -> bool:
        """Decided by the law alone, so every run of a claim is headlined on one scale: a frequency or a constant
        bound as lhs itself, a bound varying along the grid as the deciding cell's ratio lhs/rhs."""
        return self.probability or _is_number(self.rhs)

    def claimed(self):
        tol = f" (resolution {self.rtol:g})" if self.rtol else ""
        what = "the frequency" if self.probability else self.lhs if isinstance(self.lhs, str) else "lhs"
        if _is_number(self.rhs):
            return f"{what} {self.sense} {self.rhs:g} at every grid point{tol}"
        if self.probability:
            return f"the frequency {self.sense} its bound at every grid point{tol}"
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

    @property
    def needs(self) -> dict:
        """The labels the planner must see (``base.check_needs``)."""
        return {self.dim: list(self.labels) if isinstance(self.labels, tuple) else [self.labels]}

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
                         advice, (float(np.exp(band[0])), float(np.exp(band[1]))), scale="log")

    def claimed(self):
        if isinstance(self.a, Selection) and isinstance(self.b, Selection):
            b = self.b.labels
            A, B = self.a.labels, (f"each of {list(b)}" if isinstance(b, tuple) else b)
        else:
            A, B = "A", "B"
        return {"less": f"{A}/{B} <= {self.factor:g}", "greater": f"{A}/{B} >= {self.factor:g}",
                "comparable": f"{1 / self.factor:.3g} <= {A}/{B} <= {self.factor:g}"}[self.relation]

