"""The Claim model: one falsifiable statement, its law, its sweep grid per tier, its
controls, and its expected verdict (DESIGN.md, "Claims, the unit of verification").

A law reads the claim's ``xarray.Dataset`` (grid dims x ``replicate`` [x trajectory
dims]) and returns a :class:`LawResult`. Quantities are given as a variable name or as
a callable ``ds -> DataArray`` so that a control may change only the law (for example a
wrong constant) and reuse the same cached simulation.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import xarray as xr

from . import stats
from .stats import CONFIRMED, INCONCLUSIVE, REFUTED

Quantity = "str | Callable[[xr.Dataset], xr.DataArray]"
TIERS = ("quick", "full")


def quantity(ds: xr.Dataset, spec) -> xr.DataArray:
    """Evaluate a quantity spec (variable name or callable) on a Dataset."""
    return ds[spec] if isinstance(spec, str) else spec(ds)


@dataclass
class LawResult:
    """What a law concluded: the estimate, its interval, the claimed value, the verdict."""
    estimate: float
    ci: tuple[float, float]
    claimed: str
    verdict: str
    detail: dict = field(default_factory=dict)
    advice: str = ""


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
    need = stats.replicates_to_decide(estimate, lo, hi, band_lo, band_hi, replicates)
    return f"interval too wide: about {need} replicates (now {replicates}) would decide" if need else \
        "estimate sits on the band edge: a larger grid along the swept axis would decide"


class Law:
    """Base class. ``kind`` names the law family; ``claimed()`` the statement in numbers."""
    kind = "Law"

    def evaluate(self, ds: xr.Dataset, level: float) -> LawResult:  # pragma: no cover - abstract
        raise NotImplementedError

    def claimed(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError


@dataclass
class LogSlope(Law):
    """Slope of log y against log(axis) (or axis, ``xscale='linear'``) lies in
    [lower - margin, upper + margin]. Other grid dims are groups sharing the slope."""
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
        da = quantity(ds, self.y)
        if self.window is not None:
            x = da[self.axis]
            da = da.where((x >= self.window[0]) & (x <= self.window[1]), drop=True)
        x = np.asarray(da[self.axis].values, dtype=float)
        other = [d for d in da.dims if d not in (self.axis, "replicate")]
        arr = np.asarray(da.transpose(*other, self.axis, "replicate").values, dtype=float)
        return (np.log(x) if self.xscale == "log" else x), arr.reshape((-1, x.size, da.sizes["replicate"]))

    def evaluate(self, ds, level):
        x, samples = self._data(ds)
        if x.size < 2:
            raise ValueError(f"{self.kind} over '{self.axis}' needs at least two grid points")
        if np.any(samples <= 0):
            return LawResult(float("nan"), (float("nan"), float("nan")), self.claimed(), INCONCLUSIVE,
                             {"problem": "non-positive values cannot be log-transformed"},
                             "some replicate means are <= 0: use more sensors/replicates")
        fit = stats.slope_fit(x, samples, level)
        iv = fit.interval
        band = (self.lower - self.margin, self.upper + self.margin)
        verdict = stats.band_verdict(iv.lo, iv.hi, *band)
        advice = _advice(iv.estimate, iv.lo, iv.hi, *band, samples.shape[-1]) if verdict == INCONCLUSIVE else ""
        return LawResult(iv.estimate, (iv.lo, iv.hi), self.claimed(), verdict,
                         {"se": iv.se, "local_slopes": fit.local, "group_slopes": fit.group_slopes,
                          "band": list(band)}, advice)

    def claimed(self):
        if self.lower == self.upper:
            return f"{self.what} = {self.lower:g} (+-{self.margin:g})"
        if np.isinf(self.lower):
            return f"{self.what} <= {self.upper:g} (+{self.margin:g})"
        if np.isinf(self.upper):
            return f"{self.what} >= {self.lower:g} (-{self.margin:g})"
        return f"{self.what} in [{self.lower:g}, {self.upper:g}] (+-{self.margin:g})"


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
    """Geometric contraction: y - floor ~ C rho^t along ``axis``; claims factor <= rho."""
    y: Any
    rho: float
    axis: str = "iteration"
    floor: float = 0.0
    margin: float = 0.01
    window: tuple[float, float] | None = None
    kind: str = "LinearRate"

    def evaluate(self, ds, level):
        da = quantity(ds, self.y) - self.floor
        inner = LogSlope(lambda _ds: da, self.axis, -np.inf, float(np.log(self.rho)), self.margin, self.window,
                         xscale="linear")
        res = inner.evaluate(ds, level)
        lo, hi = res.ci
        res.estimate, res.ci = float(np.exp(res.estimate)), (float(np.exp(lo)), float(np.exp(hi)))
        res.claimed = self.claimed()
        return res

    def claimed(self):
        return f"contraction factor <= {self.rho:g} (floor {self.floor:g})"


@dataclass
class Bound(Law):
    """lhs <= rhs (``sense='<='``) or lhs >= rhs at every grid point, lhs estimated from
    replicates (t-interval, or Clopper-Pearson when ``probability``), rhs exact. ``rtol``
    is the resolution the claim is stated at (needed for bounds attained with equality)."""
    lhs: Any
    rhs: Any
    sense: str = "<="
    probability: bool = False
    rtol: float = 0.0
    kind: str = "Bound"

    def evaluate(self, ds, level):
        lhs = quantity(ds, self.lhs)
        rhs = quantity(ds, self.rhs) if not np.isscalar(self.rhs) else xr.full_like(lhs.isel(replicate=0), float(self.rhs))
        rhs = rhs.broadcast_like(lhs.isel(replicate=0, drop=True))
        samples, labels = _cells(lhs, ["replicate"])
        bounds, _ = _cells(rhs, [])
        bounds = bounds.reshape(-1)
        cell_level = stats.bonferroni(level, len(samples))
        verdicts, ratios, rows = [], [], []
        for s, b, lab in zip(samples, bounds, labels):
            iv = (stats.clopper_pearson(int(s.sum()), s.size, cell_level) if self.probability
                  else stats.mean_interval(s, cell_level))
            edge = b + self.rtol * abs(b) if self.sense == "<=" else b - self.rtol * abs(b)
            band = (-np.inf, edge) if self.sense == "<=" else (edge, np.inf)
            verdicts.append(stats.band_verdict(iv.lo, iv.hi, *band))
            ratios.append(iv.estimate / b if b != 0 else np.inf)
            rows.append({**{k: _py(v) for k, v in lab.items()}, "lhs": iv.estimate, "lo": iv.lo, "hi": iv.hi, "rhs": float(b),
                         "verdict": verdicts[-1]})
        verdict, worst = _deciding(verdicts, ratios if self.sense == "<=" else -np.asarray(ratios))
        w = rows[worst]
        b = w["rhs"] if w["rhs"] != 0 else 1.0
        advice = ""
        if verdict == INCONCLUSIVE:
            band = (-np.inf, w["rhs"]) if self.sense == "<=" else (w["rhs"], np.inf)
            advice = _advice(w["lhs"], w["lo"], w["hi"], *band, samples.shape[-1])
        return LawResult(w["lhs"] / b, (w["lo"] / b, w["hi"] / b), self.claimed(), verdict,
                         {"cells": rows, "worst_cell": worst}, advice)

    def claimed(self):
        tol = f" (resolution {self.rtol:g})" if self.rtol else ""
        return f"lhs/rhs {self.sense} 1 at every grid point{tol}"


@dataclass
class Identity(Law):
    """lhs == rhs up to Monte Carlo error at every grid point: the interval of lhs - rhs
    lies within +-(atol + rtol |rhs|), the resolution the claim is stated at."""
    lhs: Any
    rhs: Any
    atol: float = 0.0
    rtol: float = 0.0
    kind: str = "Identity"

    def evaluate(self, ds, level):
        lhs = quantity(ds, self.lhs)
        rhs = quantity(ds, self.rhs) if not np.isscalar(self.rhs) else xr.zeros_like(lhs) + float(self.rhs)
        diff = (lhs - rhs).broadcast_like(lhs)
        ref = abs(rhs).broadcast_like(lhs).mean("replicate")
        samples, labels = _cells(diff, ["replicate"])
        refs, _ = _cells(ref, [])
        cell_level = stats.bonferroni(level, len(samples))
        verdicts, rows = [], []
        for s, r, lab in zip(samples, refs.reshape(-1), labels):
            iv = stats.mean_interval(s, cell_level)
            tol = self.atol + self.rtol * r
            verdicts.append(stats.band_verdict(iv.lo, iv.hi, -tol, tol))
            rows.append({**{k: _py(v) for k, v in lab.items()}, "diff": iv.estimate, "lo": iv.lo, "hi": iv.hi,
                         "tolerance": float(tol), "rhs": float(r), "verdict": verdicts[-1]})
        verdict, worst = _deciding(verdicts, [abs(r["diff"]) - r["tolerance"] for r in rows])
        w = rows[worst]
        advice = _advice(w["diff"], w["lo"], w["hi"], -w["tolerance"], w["tolerance"], samples.shape[-1]) \
            if verdict == INCONCLUSIVE else ""
        return LawResult(w["diff"], (w["lo"], w["hi"]), self.claimed(), verdict, {"cells": rows, "worst_cell": worst}, advice)

    def claimed(self):
        return f"lhs - rhs = 0 within +-({self.atol:g} + {self.rtol:g}|rhs|)"


@dataclass
class Comparison(Law):
    """Method A against method B on a metric, per grid point, by the ratio of replicate
    means (paired bootstrap). ``relation='less'``: A/B <= factor (A better, for an error);
    ``'greater'``: A/B >= factor; ``'comparable'``: 1/factor <= A/B <= factor."""
    a: Any
    b: Any
    relation: str = "less"
    factor: float = 1.0
    kind: str = "Comparison"

    def evaluate(self, ds, level):
        a, b = quantity(ds, self.a), quantity(ds, self.b)
        sa, labels = _cells(a, ["replicate"])
        sb, _ = _cells(b.broadcast_like(a), ["replicate"])
        cell_level = stats.bonferroni(level, len(sa))
        lf = np.log(self.factor)
        band = {"less": (-np.inf, lf), "greater": (lf, np.inf), "comparable": (-abs(lf), abs(lf))}[self.relation]
        verdicts, rows = [], []
        for xa, xb, lab in zip(sa, sb, labels):
            iv = stats.bootstrap_interval(lambda s: np.log(s[0].mean() / s[1].mean()), np.stack([xa, xb]), cell_level)
            verdicts.append(stats.band_verdict(iv.lo, iv.hi, *band))
            rows.append({**{k: _py(v) for k, v in lab.items()}, "ratio": float(np.exp(iv.estimate)),
                         "lo": float(np.exp(iv.lo)), "hi": float(np.exp(iv.hi)), "a": float(xa.mean()),
                         "b": float(xb.mean()), "verdict": verdicts[-1]})
        log_ratio = np.log([r["ratio"] for r in rows])
        badness = {"less": log_ratio, "greater": -log_ratio, "comparable": np.abs(log_ratio)}[self.relation]
        verdict, worst = _deciding(verdicts, badness)
        w = rows[worst]
        advice = _advice(np.log(w["ratio"]), np.log(w["lo"]), np.log(w["hi"]), *band, sa.shape[-1]) \
            if verdict == INCONCLUSIVE else ""
        return LawResult(w["ratio"], (w["lo"], w["hi"]), self.claimed(), verdict, {"cells": rows, "worst_cell": worst}, advice)

    def claimed(self):
        return {"less": f"A/B <= {self.factor:g}", "greater": f"A/B >= {self.factor:g}",
                "comparable": f"{1 / self.factor:.3g} <= A/B <= {self.factor:g}"}[self.relation]


def _py(v):
    return v.item() if hasattr(v, "item") else v


@dataclass(frozen=True)
class Grid:
    """A Cartesian grid: ``axes`` (dim -> values) x zipped groups (dim -> {param: values})."""
    axes: Mapping[str, Sequence] = field(default_factory=dict)
    zipped: Mapping[str, Mapping[str, Sequence]] = field(default_factory=dict)

    def dims(self) -> list[tuple[str, list]]:
        out = [(k, list(v)) for k, v in self.axes.items()]
        for dim, group in self.zipped.items():
            lengths = {len(v) for v in group.values()}
            if len(lengths) != 1:
                raise ValueError(f"zipped axes of '{dim}' have unequal lengths {sorted(lengths)}")
            out.append((dim, list(range(lengths.pop()))))
        return out

    def cells(self) -> list[tuple[tuple, dict]]:
        """[(index tuple, params)] in grid order."""
        dims = self.dims()
        cells = []
        for idx in itertools.product(*[range(len(v)) for _, v in dims]):
            params = {}
            for (dim, values), i in zip(dims, idx):
                if dim in self.zipped:
                    params.update({p: vals[i] for p, vals in self.zipped[dim].items()})
                else:
                    params[dim] = values[i]
            cells.append((idx, params))
        return cells

    def override(self, **values) -> "Grid":
        """A copy with some axes replaced (values must be sequences)."""
        axes = dict(self.axes)
        axes.update({k: list(v) for k, v in values.items() if k in axes})
        return Grid(axes, self.zipped)


@dataclass(frozen=True)
class Tier:
    """A sweep grid, a replicate count and fixed parameters."""
    grid: Grid
    replicates: int
    fixed: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Control:
    """A deliberately changed variant of a claim and the verdict its check must reach.

    Change the law (a wrong constant, a missing factor: the data is reused), the measure
    (a mutant solver or model: a new sweep), or fixed parameters (e.g. flip_prob = 1/2).
    Claims expected CONFIRMED carry negative controls (expected REFUTED); errata claims
    carry positive controls: the corrected statement, expected CONFIRMED.
    """
    name: str
    description: str
    expected: str = REFUTED
    law: Law | None = None
    measure: Callable | None = None
    fixed: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Claim:
    """One falsifiable statement of one paper (DESIGN.md). ``measure(params, seed) -> dict``
    returns scalars (or 1-D arrays named in ``trajectories``: output -> dim; the dim's
    coordinates are ``params[dim]`` when given)."""
    id: str
    paper: str
    item: str
    statement: str
    formula: str
    law: Law
    measure: Callable[[dict, np.random.SeedSequence], dict]
    tiers: Mapping[str, Tier]
    controls: tuple[Control, ...] = ()
    expected: str = CONFIRMED
    erratum: str | None = None
    trajectories: Mapping[str, str] = field(default_factory=dict)
    validate: Callable[[dict], None] | None = None
    sweep_id: str | None = None
    control_of: str | None = None
    control_name: str | None = None

    def __post_init__(self):
        if self.expected not in stats.VERDICTS:
            raise ValueError(f"{self.id}: expected must be one of {stats.VERDICTS}")
        if self.expected == REFUTED and not self.erratum and self.control_of is None:
            raise ValueError(f"{self.id}: a claim expected REFUTED needs an erratum note")
        missing = [t for t in TIERS if t not in self.tiers]
        if missing:
            raise ValueError(f"{self.id}: tiers {missing} are missing")
        if not self.controls and self.control_of is None:
            raise ValueError(f"{self.id}: every claim needs at least one control")

    @property
    def sweep(self) -> str:
        """Identity of the simulation (claims and law-only controls may share one)."""
        return self.sweep_id or self.id

    def with_control(self, control: Control) -> "Claim":
        """The claim as changed by one of its controls, checked like any claim."""
        mutated = control.measure is not None or bool(control.fixed)
        tiers = {name: replace(t, fixed={**t.fixed, **control.fixed}) for name, t in self.tiers.items()}
        return replace(self, id=f"{self.id}~{control.name}", law=control.law or self.law,
                       measure=control.measure or self.measure, tiers=tiers, controls=(),
                       expected=control.expected, erratum=None, control_of=self.id, control_name=control.name,
                       statement=f"[control: {control.description}] {self.statement}",
                       sweep_id=f"{self.sweep}~{control.name}" if mutated else self.sweep)
