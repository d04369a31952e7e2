"""A stable digest of a declared object (a claim's law): what a verdict record stores as ``law_digest`` so that
a report draws a figure only with the law that judged it.

The description is of the declaration, never of the process: a dataclass by its class name and fields, a
function by its source text, its defaults and the values its closure captured, a ``functools.partial`` by its
function and arguments, sets sorted, arrays by their bytes. Anything that can only be described through a repr
holding a memory address makes the digest unknown (None): the report then draws without the check rather than
never.
"""
from __future__ import annotations

import functools
import hashlib
import inspect
from dataclasses import fields, is_dataclass
from typing import Any

import numpy as np

from .keys import digest

MAX_DEPTH = 12  # nested declarations deeper than this are not described (a cycle, or nothing a law holds)


class _Unstable(Exception):
    """The object has no description that is the same in every process."""


def declaration_digest(obj: Any) -> str | None:
    """16 hex digits naming a declared object, or None when it has no stable description (see the module)."""
    try:
        return digest(_declared(obj, 0), 8)
    except _Unstable:
        return None


def _declared(value: Any, depth: int) -> Any:
    """JSON-able description of ``value`` (see the module docstring); _Unstable when there is none."""
    if depth > MAX_DEPTH:
        raise _Unstable
    d = depth + 1
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return repr(value)  # nan and inf too
    if isinstance(value, (list, tuple)):
        return [_declared(v, d) for v in value]
    if isinstance(value, dict):
        return {str(k): _declared(v, d) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return {"set": sorted((_declared(v, d) for v in value), key=repr)}
    if isinstance(value, np.ndarray):
        return {"array": str(value.dtype), "shape": list(value.shape),
                "bytes": hashlib.blake2b(np.ascontiguousarray(value).tobytes(), digest_size=16).hexdigest()}
    if isinstance(value, np.generic):
        return _declared(value.item(), d)
    if is_dataclass(value) and not isinstance(value, type):
        return {"class": _name(type(value)), "fields": {f.name: _declared(getattr(value, f.name), d)
                                                        for f in fields(value)}}
    if isinstance(value, functools.partial):
        return {"partial": _declared(value.func, d), "args": _declared(list(value.args), d),
                "keywords": _declared(value.keywords, d)}
    if inspect.isfunction(value):
        return _function(value, d)
    if isinstance(value, type):
        return {"type": _name(value)}
    if inspect.ismodule(value):
        return {"module": value.__name__}
    if inspect.ismethod(value):
        return {"method": value.__func__.__name__, "of": _declared(value.__self__, d)}
    if callable(value) and isinstance(getattr(value, "__name__", None), str):  # a builtin or a NumPy ufunc
        return {"callable": f"{getattr(value, '__module__', None) or type(value).__name__}.{value.__name__}"}
    if hasattr(value, "__dict__"):
        return {"class": _name(type(value)), "vars": _declared(dict(sorted(vars(value).items())), d)}
    raise _Unstable


def _function(fn, depth: int) -> dict:
    """A function by its source text, defaults, captured values and declared needs (simverify.laws.needing)."""
    try:
        source = inspect.cleandoc(inspect.getsource(fn))
    except (OSError, TypeError):
        source = _name(fn)
    cells = [c.cell_contents for c in fn.__closure__ or () if _filled(c)]
    return {"source": source, "defaults": _declared(list(fn.__defaults__ or ()), depth),
            "kwdefaults": _declared(fn.__kwdefaults__ or {}, depth), "closure": _declared(cells, depth),
            "needs": _declared(getattr(fn, "needs", None), depth)}


def _filled(cell) -> bool:
    try:
        _ = cell.cell_contents
    except ValueError:  # an empty cell
        return False
    return True


def _name(obj) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', type(obj).__name__)}"
