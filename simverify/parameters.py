"""A paper's claim parameters declared as data and checked by one function when a run is planned.

``Paper(..., parameters={name: constraint, ...})`` (inherited by its claims and their controls) declares what each
parameter may be, in the vocabulary of :mod:`simverify.validation` (``Integer``, ``Real``, ``Boolean``,
``Options``, ``None``, a list of alternatives) plus the constraints below, which claim parameters need:

- ``OneOrList(c)``: one value or a non-empty list of values (a paired design's axis), each satisfying ``c``;
- ``ListOf(c)``: a non-empty list, each entry satisfying ``c`` (``ListOf(Options(...))``: names from a set);
- ``Checkpoints(...)``: increasing iteration counts where a measure reports its iterates;
- ``Exactly(v)``: the one number ``v`` (a sentinel beside a range: ``[Exactly(0), Real(1, 1e6)]``);
- ``FilePath(...)``: a string naming a data file (its content is read and checked by the paper's ``validate``);
- ``Labeled(c, label)``: ``c``, with a gloss shown after the name in refusals (``flip_prob (p)``).

``check_parameters(constraints, params)`` runs for every cell in ``simverify.sweep.plan`` before the paper's
``validate`` (which keeps only rules across parameters and checks of file contents) and refuses in one line:
``parameter <name> must be <description>, got <value>``, or, for an unknown entry of a list of names,
``parameter <name>: unknown <entry> (one of a, b, c)``. Parameters a cell does not have are not checked.

This module is imported by papers' ``__init__`` and by the engine, never by a measure: a cell's key hashes the
code its measure imports, so the declarations can change without recomputing any cell.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .validation import (
    ArrayLike,
    Boolean,
    Integer,
    IsCallable,
    Options,
    Real,
    Seed,
    _alternatives,
    _is_finite_real,
    _is_integer,
    _satisfies,
    check_parameter,
    describe,
)

__all__ = ["Checkpoints", "Exactly", "FilePath", "Labeled", "ListOf", "OneOrList", "check_parameters",
           "check_declarations"]


def _satisfies_any(value: Any, spec: Any) -> bool:
    return any(_satisfies(value, c) for c in _alternatives(spec))


def _unknown_entry(entries: list, spec: Any) -> str | None:
    """'unknown <entry> (one of a, b, c)' for the first entry outside ``spec`` when ``spec`` is one ``Options``."""
    if not isinstance(spec, Options):
        return None
    bad = next((v for v in entries if not spec.is_satisfied_by(v)), None)
    return None if bad is None else f"unknown {bad!r} (one of {', '.join(map(str, spec.choices))})"


@dataclass(frozen=True)
class ListOf:
    """A list (not a tuple or a string) whose entries each satisfy ``constraint`` (one constraint or a list of
    alternatives); ``non_empty`` refuses []."""
    constraint: Any
    non_empty: bool = True

    def is_satisfied_by(self, value: Any) -> bool:
        return (isinstance(value, list) and (len(value) > 0 or not self.non_empty)
                and all(_satisfies_any(v, self.constraint) for v in value))

    def describe(self) -> str:
        size = "a non-empty list" if self.non_empty else "a list"
        if isinstance(self.constraint, Options):
            return f"{size} of entries from {list(self.constraint.choices)}"
        return f"{size} of entries each {describe(self.constraint)}"

    def explain(self, value: Any) -> str | None:
        """The refusal's detail when it says more than the description: the unknown entry of a list of names."""
        return _unknown_entry(value, self.constraint) if isinstance(value, list) else None


@dataclass(frozen=True)
class OneOrList:
    """One value satisfying ``constraint``, or a non-empty list of such values (a grid axis given to the measure
    whole, e.g. a paired design's sizes)."""
    constraint: Any

    def is_satisfied_by(self, value: Any) -> bool:
        if isinstance(value, list):
            return len(value) > 0 and all(_satisfies_any(v, self.constraint) for v in value)
        return _satisfies_any(value, self.constraint)

    def describe(self) -> str:
        return f"{describe(self.constraint)} or a non-empty list of them"

    def explain(self, value: Any) -> str | None:
        return _unknown_entry(value, self.constraint) if isinstance(value, list) else None


@dataclass(frozen=True)
class Checkpoints:
    """A non-empty list of strictly increasing integers >= ``least`` (bools refused): the iteration counts at which
    a measure reports. ``first``: the list starts there; ``consecutive``: every step is 1 (``[0, 1, ..., T]``);
    ``last``: the symbol the description gives the last checkpoint."""
    least: int = 0
    first: int | None = None
    consecutive: bool = False
    last: str = "S"

    def is_satisfied_by(self, value: Any) -> bool:
        if not (isinstance(value, list) and value and all(_is_integer(v) and v >= self.least for v in value)):
            return False
        if self.first is not None and value[0] != self.first:
            return False
        steps = [b - a for a, b in zip(value, value[1:])]
        return all(s == 1 for s in steps) if self.consecutive else all(s > 0 for s in steps)

    def describe(self) -> str:
        start = self.least if self.first is None else self.first
        if self.consecutive:
            return f"the checkpoints [{start}, {start + 1}, ..., {self.last}]"
        if self.first is not None:
            return f"increasing checkpoints from {start} ([{start}, {start + 1}, ..., {self.last}])"
        which = {0: "non-negative", 1: "positive"}.get(self.least, f">= {self.least}")
        return f"strictly increasing {which} checkpoints"


@dataclass(frozen=True)
class Exactly:
    """The one finite number ``value`` (bools refused): a sentinel beside a range, e.g. kappa = 0 for a model."""
    value: float

    def is_satisfied_by(self, value: Any) -> bool:
        return _is_finite_real(value) and value == self.value

    def describe(self) -> str:
        return f"{self.value:g}"


@dataclass(frozen=True)
class FilePath:
    """A string naming a data file (``optional``: '' too, for the default data). Only the type is checked here:
    the file is hashed through ``Sweep.data`` and its content checked where the paper's ``validate`` reads it."""
    optional: bool = True
    what: str = ""

    def is_satisfied_by(self, value: Any) -> bool:
        return isinstance(value, str) and (self.optional or value != "")

    def describe(self) -> str:
        return self.what or ("a file path ('' for the default)" if self.optional else "a file path")


@dataclass(frozen=True)
class Labeled:
    """A constraint (or a list of alternatives) whose refusals gloss the parameter's name:
    ``"flip_prob": Labeled(Real(0, 1), "p")`` refuses with 'parameter flip_prob (p) must be ...'."""
    constraint: Any
    label: str


_KINDS = (Integer, Real, Boolean, Options, Seed, ArrayLike, IsCallable,  # simverify.validation's
          ListOf, OneOrList, Checkpoints, Exactly, FilePath)


def _is_constraint(c: Any) -> bool:
    return c is None or isinstance(c, type) or isinstance(c, _KINDS)


def check_declarations(owner: str, constraints: Mapping[str, Any]) -> None:
    """Refuse a declaration the engine cannot check (a typo, a bare tuple of choices): TypeError naming ``owner``
    and the parameter."""
    for name, declared in constraints.items():
        spec = declared.constraint if isinstance(declared, Labeled) else declared
        inner = [getattr(c, "constraint", None) for c in _alternatives(spec) if isinstance(c, (ListOf, OneOrList))]
        parts = _alternatives(spec) + [x for c in inner for x in _alternatives(c)]
        bad = [c for c in parts if not _is_constraint(c)]
        if not isinstance(name, str) or bad:
            raise TypeError(f"{owner}: parameter {name!r} is declared with {bad[0] if bad else name!r}, not a "
                            "constraint of simverify.validation or simverify.parameters")


def check_parameters(constraints: Mapping[str, Any], params: Mapping[str, Any]) -> None:
    """Check one cell's ``params`` against the declared ``constraints`` (name -> constraint, a list of
    alternatives or ``Labeled``), in declaration order; the first parameter present that breaks its constraint is
    refused with a one-line ValueError. Undeclared parameters and declared ones the cell lacks pass."""
    for name, declared in constraints.items():
        if name not in params:
            continue
        spec, label = (declared.constraint, declared.label) if isinstance(declared, Labeled) else (declared, "")
        value = params[name]
        if _satisfies_any(value, spec):
            continue
        shown = f"{name} ({label})" if label else name
        detail = next((d for c in _alternatives(spec) if hasattr(c, "explain") and (d := c.explain(value))), None)
        if detail:
            raise ValueError(f"parameter {shown}: {detail}")
        check_parameter("", f"parameter {shown}", value, spec)
