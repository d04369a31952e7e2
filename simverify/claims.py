"""Declarations: what a paper claims and how it is simulated (docs/claims.md).

A paper (:class:`simverify.paper.Paper`) declares its :class:`Claim` s; each claim points to a :class:`Sweep` (a
measure, its :class:`Grid` and replicates per :class:`Tier`, its array outputs) and is judged
by a law (:mod:`simverify.laws`) on the sweep's Dataset. A :class:`Control` is a deliberately
changed variant of a claim with the verdict it must reach.
"""
from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from . import stats
from .findings import LOOSE_KIND, Finding
from .footprint import Footprint
from .keys import normalize
from .laws import Law
from .record import is_claim_id
from .stats import CONFIRMED, REFUTED

TIERS = ("quick", "full")


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

    def override(self, **values) -> Grid:
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


def tiers(quick: Tier, full: Tier) -> dict[str, Tier]:
    """A sweep's two tiers: ``quick`` (the suite's; seconds) and ``full`` (the paper's sizes)."""
    return {"quick": quick, "full": full}


def _declared(tier: Tier) -> dict[str, Any]:
    """A tier's declared parameters: fixed values, grid and zipped axes as lists, and the replicates."""
    return {**tier.fixed, **{k: list(v) for k, v in tier.grid.axes.items()},
            **{p: list(v) for group in tier.grid.zipped.values() for p, v in group.items()},
            "replicates": tier.replicates}


def _json_or_type(value: Any) -> Any:
    try:
        return normalize(value)
    except (ValueError, TypeError):
        return f"<{type(value).__name__}>"


def _differ(a: Any, b: Any) -> bool:
    """Whether two declared values differ (compared JSON-normal; by ==, else by identity, when not)."""
    try:
        return normalize(a) != normalize(b)
    except (ValueError, TypeError):
        try:
            return bool(a != b)
        except Exception:
            return a is not b


@dataclass(frozen=True)
class Sweep:
    """One simulation that claims point to: a measure, its grid per tier, its array outputs.

    ``measure(seed, **params) -> {output: float | ndarray}`` takes keyword parameters; the
    engine binds signature defaults + ``tier.fixed`` + the grid cell. ``outputs`` names the
    dims of array outputs, e.g. ``{"nmse": ("m",)}`` (coordinates: ``params[dim]`` when that
    is a list of the right length, else 0..k-1). ``data`` maps a parameter to a resolver
    (dataset name -> file, or None when the cell reads no file) whose content hash enters the cell keys.
    ``name`` is part of every
    cell's seed: claims sharing a sweep share its cells.
    """
    name: str
    measure: Callable[..., dict]
    tiers: Mapping[str, Tier]
    outputs: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    data: Mapping[str, Callable[[str], str | os.PathLike]] = field(default_factory=dict)
    work: Callable[[dict], float] | None = None  # one task's work at a cell's parameters (any unit proportional
    # to its time; None: the paper's footprint work): `check --plan` scales timed cells of the sweep by it

    def tier_sizes(self) -> dict[str, dict[str, Any]]:
        """Per tier, the parameters whose declared values differ between the tiers (fixed values, grid axes and
        zipped axes as lists) and the replicates when they differ, JSON-normal (a value that is not, as
        "<its type>"): what the quick tier shrinks of the paper's sizes ({} per tier when the tiers are the same)."""
        declared = {t: _declared(self.tiers[t]) for t in TIERS}
        quick, full = declared["quick"], declared["full"]
        differ = [k for k in dict.fromkeys([*quick, *full]) if k not in quick or k not in full
                  or _differ(quick[k], full[k])]
        return {t: {k: _json_or_type(declared[t][k]) for k in differ if k in declared[t]} for t in TIERS}

    def with_measure(self, measure: Callable[..., dict], suffix: str) -> Sweep:
        """The same grid run by another measure, as sweep ``<name>~<suffix>``."""
        return replace(self, name=f"{self.name}~{suffix}", measure=measure)


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
class PrintedTable:
    """A table of the paper as printed, shown in the report beside the same quantity measured.

    ``printed``: row name -> one printed value per column (``columns``: the column labels);
    ``measured(ds) -> {row name: values per column}`` from the claim's Dataset (e.g. replicate means).
    """
    title: str
    columns: Sequence[str]
    printed: Mapping[str, Sequence[float]]
    measured: Callable[[Any], Mapping[str, Sequence[float]]]
    unit: str = ""

    def __post_init__(self):
        bad = [name for name, values in self.printed.items() if len(values) != len(self.columns)]
        if bad:
            raise ValueError(f"printed table '{self.title}': rows {bad} do not have {len(self.columns)} values")

    def render(self, ds) -> dict:
        """The table as JSON: title, unit, columns, rows [{name, printed, measured}] (measured NaN where the
        Dataset has no such row)."""
        got = self.measured(ds)
        nan = [float("nan")] * len(self.columns)
        wrong = [name for name, values in got.items() if len(values) != len(self.columns)]
        if wrong:
            raise ValueError(f"printed table '{self.title}': measured rows {wrong} do not have {len(self.columns)} "
                             "values")
        return {"title": self.title, "unit": self.unit, "columns": [str(c) for c in self.columns],
                "rows": [{"name": name, "printed": [float(v) for v in values],
                          "measured": [float(v) for v in got.get(name, nan)]}
                         for name, values in self.printed.items()]}


@dataclass(frozen=True)
class Claim:
    """One falsifiable statement of one paper (docs/claims.md), judged by ``law`` on the Dataset
    of ``sweep``."""
    id: str
    paper: str
    item: str
    statement: str
    formula: str
    law: Law
    sweep: Sweep
    controls: tuple[Control, ...] = ()
    expected: str = CONFIRMED
    finding: Finding | None = None  # an erratum, a non-reproduction or a loose bound (simverify.findings)
    validate: Callable[[dict], None] | None = None  # the paper's rules across parameters (after ``parameters``)
    footprint: Callable[[dict], Footprint] | None = None  # one cell's estimated memory and work (its paper's)
    parameters: Mapping[str, Any] = field(default_factory=dict)  # name -> constraint (simverify.parameters)
    control_of: str | None = None
    control_name: str | None = None
    table: PrintedTable | None = None  # the paper's printed numbers, for the report

    def __post_init__(self):
        if not is_claim_id(self.id):
            raise ValueError(f"claim id {self.id!r}: use letters, digits, '_', '-' and single dots, as "
                             "'<paper>.<name>' (a control adds '~<name>'); the id names the claim's files")
        if self.expected not in stats.VERDICTS:
            raise ValueError(f"{self.id}: expected must be one of {stats.VERDICTS}")
        if self.control_of is None:
            if self.expected == REFUTED and self.finding is None:
                raise ValueError(f"{self.id}: a claim expected REFUTED needs a finding (an erratum or a "
                                 "non-reproduction)")
            if self.finding is not None and self.finding.kind == LOOSE_KIND and self.expected != CONFIRMED:
                raise ValueError(f"{self.id}: a loose bound holds: expected CONFIRMED")
        missing = [t for t in TIERS if t not in self.tiers]
        if missing:
            raise ValueError(f"{self.id}: tiers {missing} are missing")
        if not self.controls and self.control_of is None:
            raise ValueError(f"{self.id}: every claim needs at least one control")

    @property
    def tiers(self) -> Mapping[str, Tier]:
        return self.sweep.tiers

    @property
    def measure(self) -> Callable[..., dict]:
        return self.sweep.measure

    def with_control(self, control: Control) -> Claim:
        """The claim as changed by one of its controls, checked like any claim. A law-only
        control shares the claim's sweep; a measure or fixed change runs sweep
        ``<sweep>~<control>``."""
        sweep = self.sweep
        if control.measure is not None or control.fixed:
            tiers = {name: replace(t, fixed={**t.fixed, **control.fixed}) for name, t in sweep.tiers.items()}
            sweep = replace(sweep.with_measure(control.measure or sweep.measure, control.name), tiers=tiers)
        return replace(self, id=f"{self.id}~{control.name}", law=control.law or self.law, sweep=sweep, controls=(),
                       expected=control.expected, finding=None, control_of=self.id, control_name=control.name,
                       table=None,
                       statement=f"[control of {self.id}] {control.description}")

    @property
    def erratum(self) -> str | None:
        """The erratum's text when the finding is an erratum (else None)."""
        return self.finding.text if self.finding is not None and self.finding.kind == "erratum" else None


@dataclass(frozen=True)
class Citation:
    """How a paper is cited: authors, title, venue, year, and an arXiv id or DOI where it has one."""
    authors: str
    title: str
    venue: str
    year: int
    arxiv: str = ""
    doi: str = ""

    def __post_init__(self):
        for name in ("authors", "title", "venue"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name).strip():
                raise ValueError(f"citation: {name} must be a non-empty string")
        if isinstance(self.year, bool) or not isinstance(self.year, int) or not 1900 <= self.year <= 2100:
            raise ValueError(f"citation: year must be an int in [1900, 2100], got {self.year!r}")
        for name in ("arxiv", "doi"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"citation: {name} must be a string ('' for none)")

    def __str__(self) -> str:
        ids = [f"arXiv:{self.arxiv}" if self.arxiv else "", f"doi:{self.doi}" if self.doi else ""]
        return f"{self.authors} ({self.year}). {self.title}. {self.venue}." + "".join(f" {i}." for i in ids if i)

    def as_record(self) -> dict:
        return {"authors": self.authors, "title": self.title, "venue": self.venue, "year": self.year,
                "arxiv": self.arxiv, "doi": self.doi, "text": str(self)}


def __getattr__(name: str):
    """``from simverify.claims import Paper``, as plugins and scaffolds written before Paper moved to
    simverify.paper do: still served, with a DeprecationWarning naming the new place."""
    if name == "Paper":
        import importlib
        import warnings
        warnings.warn("simverify.claims.Paper moved to simverify.paper.Paper; import it from there",
                      DeprecationWarning, stacklevel=2)
        return importlib.import_module(f"{__package__}.paper").Paper
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
