"""Shared pieces of the laws: the :class:`Law` base, :class:`LawResult`, quantities, rhs
helpers, verdict combination and the deciding cell, advice.

What a law is and how the planner uses it: see the package docstring (:mod:`simverify.laws`).
"""
from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass

import numpy as np
import xarray as xr

from .. import stats
from ..stats import CONFIRMED, INCONCLUSIVE, REFUTED

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
    ``band``, the allowed band on the estimate's own scale (what ``calibrate`` projects);
    ``scale="log"`` for a ratio whose interval is exp of a symmetric one (projected in logs)."""
    estimate: float
    ci: tuple[float, float]
    claimed: str
    verdict: str
    detail: dict = field(default_factory=dict)
    advice: str = ""
    band: tuple[float, float] = NO_BAND
    scale: str = "linear"


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


def _advice(estimate, lo, hi, band_lo, band_hi, replicates) -> str:
    if replicates < 2:
        return "one replicate gives no interval: use at least 2"
    if not np.isfinite(estimate):
        return "no finite estimate: too few usable values along the swept axis"
    need = stats.replicates_to_decide(estimate, lo, hi, band_lo, band_hi, replicates)
    return f"interval too wide: about {need} replicates (now {replicates}) would decide" if need else \
        "estimate sits on the band edge: a larger grid along the swept axis would decide"


class DataSized(tuple):
    """The planned coordinates of an output dim whose size only the data decides (e.g. the ``item`` dim of a real
    data set): known to exist, not yet how long."""


DATA_SIZED = DataSized()


def _require_dim(kind: str, coords: Mapping[str, Sequence], dim: str) -> list:
    if dim not in coords:
        raise ValueError(f"{kind} needs dim '{dim}', the planned Dataset has only {sorted(coords)}")
    return list(coords[dim])


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
        """Raise ValueError when the planned dims/coords (dim -> values) cannot support the law; here: the labels
        its quantities declare (``check_needs``). Subclasses extend it and call it first."""
        check_needs(self, coords)


def needing(fn: Callable, **labels) -> Callable:
    """Mark a quantity callable with the coordinate labels it selects (dim -> one label or a list), e.g.
    ``needing(lambda ds: ds["error"].sel(aggregator="mv"), aggregator="mv")``: the planner then refuses a plan
    whose Dataset would lack a label (``check_needs``) before any work, instead of failing after the run."""
    fn.needs = {d: list(v) if isinstance(v, (list, tuple)) else [v] for d, v in labels.items()}
    return fn


def check_needs(law: Law, coords: Mapping[str, Sequence]) -> None:
    """Raise ValueError when a quantity of ``law`` marked by ``needing`` selects a label the plan lacks."""
    values = [getattr(law, f.name) for f in fields(law)] if is_dataclass(law) else list(vars(law).values())
    for value in values:
        for dim, labels in getattr(value, "needs", {}).items():
            if isinstance(coords.get(dim), DataSized):
                continue  # the data decides the labels; checked when the Dataset exists
            planned = _require_dim(law.kind, coords, dim)
            missing = [v for v in labels if v not in planned]
            if missing:
                raise ValueError(f"{law.kind}: {dim} {missing} not in the planned {dim} {list(planned)}")


def _py(v):
    return v.item() if hasattr(v, "item") else v
