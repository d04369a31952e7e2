"""Argument checks shared by generators, solvers and estimators: each raises ValueError with one line naming the
argument and the bad value (the CLI turns it into exit status 2 when a run is planned).

Two ways in, one vocabulary:

- plain functions check their arguments at their top with ``positive_int``, ``real_number``, ``finite_matrix``,
  ``finite_array`` or, for any constraint below, ``check_parameter(owner, name, value, constraint)``;
- estimators (scikit-learn style: ``__init__`` stores parameters only) declare ``_parameter_constraints``, a dict
  parameter name -> constraint, and ``fit``/``predict`` call ``validate_params(self)``, which refuses with
  ``<Estimator>: <name> must be <description>, got <value>``.

A constraint is one of ``Integer``, ``Real``, ``Boolean``, ``Options``, ``Seed``, ``ArrayLike``, ``IsCallable``,
``None`` (the value None), a type (an instance of it), or a list of these (any one of them). Types are checked
explicitly: ``True`` is an ``int`` in Python and ``np.isscalar("x")`` is True, so bools and strings are refused
wherever a number is expected."""
from __future__ import annotations

import inspect
import math
import os
import sys
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

_INTEGER_TYPES = (int, np.integer)
_REAL_TYPES = (int, float, np.integer, np.floating)
_BOOL_TYPES = (bool, np.bool_)


def require(cond: bool, message: str) -> None:
    """Raise ValueError(message) unless ``cond``."""
    if not cond:
        raise ValueError(message)


def _is_integer(value: Any) -> bool:
    """An int or numpy integer, never a bool."""
    return isinstance(value, _INTEGER_TYPES) and not isinstance(value, _BOOL_TYPES)


def is_real(value: Any) -> bool:
    """An int, float or numpy number, never a bool or a string (NaN and infinities included)."""
    return isinstance(value, _REAL_TYPES) and not isinstance(value, _BOOL_TYPES)


def _is_finite_real(value: Any) -> bool:
    """An int, float or numpy number (never a bool or a string) that is neither NaN nor infinite."""
    if not is_real(value):
        return False
    return _is_integer(value) or math.isfinite(float(value))


def positive_int(name: str, value) -> int:
    """``value`` as an int; refuses bools, floats and non-positive numbers."""
    require(_is_integer(value) and value > 0, f"{name} must be a positive integer, got {value!r}")
    return int(value)


def real_number(name: str, value, lo: float = -np.inf, hi: float = np.inf) -> float:
    """A finite real in [lo, hi]; refuses bools, strings and NaN/inf."""
    if not (_is_finite_real(value) and lo <= value <= hi):  # the message is built only on failure
        raise ValueError(f"{name} must be a finite number in [{lo:g}, {hi:g}], got {value!r}")
    return float(value)


def _prefix(owner: str) -> str:
    return f"{owner}: " if owner else ""


def finite_array(name: str, A, ndim: int = 2, *, owner: str = "", complex_ok: bool = False) -> np.ndarray:
    """``np.asarray(A)`` (not converted) after checking ``ndim`` dims, a real (or, with ``complex_ok``, complex)
    numeric dtype (bools refused) and finite entries."""
    arr = np.asarray(A)
    kinds = "iufc" if complex_ok else "iuf"
    if not (arr.ndim == ndim and arr.dtype.kind in kinds):  # the message is built only on failure
        what = "numeric" if complex_ok else "real"
        raise ValueError(f"{_prefix(owner)}{name} must be a {what} {ndim}-d array, got dtype {arr.dtype} "
                         f"and shape {arr.shape}")
    require(bool(np.all(np.isfinite(arr))), f"{_prefix(owner)}{name} has non-finite entries")
    return arr


def finite_matrix(name: str, A, ndim: int = 2, *, owner: str = "", order: str = "C") -> np.ndarray:
    """``A`` as a float64 array of ``ndim`` dims with finite entries, contiguous in ``order`` ("C" rows, "F"
    columns; no copy when ``A`` already is)."""
    if order not in ("C", "F"):  # a programming error, named as one
        raise ValueError(f"finite_matrix: order must be 'C' or 'F', got {order!r}")
    try:
        arr = np.asarray(A)
    except ValueError as exc:  # ragged nested lists
        why = " ".join(str(exc).split())
        raise ValueError(f"{_prefix(owner)}{name} must be a real {ndim}-d array: {why}") from None
    if not (arr.ndim == ndim and arr.dtype.kind in "biuf" and arr.dtype != bool):  # message only on failure
        raise ValueError(f"{_prefix(owner)}{name} must be a real {ndim}-d array, got dtype {arr.dtype} and shape "
                         f"{arr.shape}")
    arr = np.require(arr, dtype=np.float64, requirements=order)
    require(bool(np.all(np.isfinite(arr))), f"{_prefix(owner)}{name} has non-finite entries")
    return arr


def check_int_parameter(name: str, values) -> None:
    """A claim parameter (one value or a list of values): each a positive int (bools refused)."""
    for v in (values if isinstance(values, list) else [values]):
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ValueError(f"parameter {name} must be a positive integer, got {values!r}")


def check_real_parameter(name: str, value, lo: float, hi: float = float("inf")) -> None:
    """A claim parameter: a finite real in [lo, hi] (bools, strings and NaN refused)."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not (ok and lo <= value <= hi):  # also refuses NaN (comparisons are False)
        raise ValueError(f"parameter {name} must be a finite number in [{lo:g}, {hi:g}], got {value!r}")


# ---- the constraint vocabulary -------------------------------------------------------------------------------------

def _bound(x: float | None, default: float) -> str:
    return f"{default if x is None else x:g}"


@dataclass(frozen=True)
class Integer:
    """An int or numpy integer (bools refused) in [left, right]; None leaves that end unbounded."""
    left: int | None = None
    right: int | None = None

    def is_satisfied_by(self, value: Any) -> bool:
        return (_is_integer(value) and (self.left is None or value >= self.left)
                and (self.right is None or value <= self.right))

    def describe(self) -> str:
        if self.right is None:
            if self.left is None:
                return "an integer"
            return "a positive integer" if self.left == 1 else f"an integer >= {self.left}"
        if self.left is None:
            return f"an integer <= {self.right}"
        return f"an integer in [{self.left}, {self.right}]"


CLOSED = ("both", "left", "right", "neither")


@dataclass(frozen=True)
class Real:
    """A finite int, float or numpy number (bools, strings, NaN and infinities refused) in the interval from
    ``left`` to ``right`` (None: unbounded); ``closed`` says which ends belong to it: 'both', 'left', 'right' or
    'neither'."""
    left: float | None = None
    right: float | None = None
    closed: str = "both"

    def __post_init__(self):
        require(self.closed in CLOSED, f"closed must be one of {list(CLOSED)}, got {self.closed!r}")

    def is_satisfied_by(self, value: Any) -> bool:
        if not _is_finite_real(value):
            return False
        above = self.left is None or (value >= self.left if self.closed in ("both", "left") else value > self.left)
        below = self.right is None or (value <= self.right if self.closed in ("both", "right") else value < self.right)
        return above and below

    def describe(self) -> str:
        opening = "[" if self.left is not None and self.closed in ("both", "left") else "("
        closing = "]" if self.right is not None and self.closed in ("both", "right") else ")"
        return f"a finite number in {opening}{_bound(self.left, -math.inf)}, {_bound(self.right, math.inf)}{closing}"


@dataclass(frozen=True)
class Boolean:
    """Strictly a bool or numpy bool: 'no', 0 and 1 are refused."""

    def is_satisfied_by(self, value: Any) -> bool:
        return isinstance(value, _BOOL_TYPES)

    def describe(self) -> str:
        return "True or False"


@dataclass(frozen=True, init=False)
class Options:
    """One of the given strings (exactly; a non-string never matches)."""
    choices: tuple[str, ...]

    def __init__(self, *choices: str):
        object.__setattr__(self, "choices", tuple(choices))

    def is_satisfied_by(self, value: Any) -> bool:
        return isinstance(value, str) and value in self.choices

    def describe(self) -> str:
        return f"one of {list(self.choices)}"


@dataclass(frozen=True)
class Seed:
    """A root seed as ``kernels.rng.as_seed_sequence`` takes it: an integer >= 0, a numpy SeedSequence or a non-empty
    list or tuple of integers >= 0."""

    def is_satisfied_by(self, value: Any) -> bool:
        if isinstance(value, np.random.SeedSequence):
            return True
        if isinstance(value, (list, tuple)):
            return len(value) > 0 and all(_is_integer(v) and v >= 0 for v in value)
        return _is_integer(value) and value >= 0

    def describe(self) -> str:
        return "a seed (an integer >= 0, a SeedSequence or a list of integers >= 0)"


@dataclass(frozen=True)
class ArrayLike:
    """A numpy array, a list or tuple, or an object with ``__array__`` (its entries are checked where it is used)."""

    def is_satisfied_by(self, value: Any) -> bool:
        return isinstance(value, (np.ndarray, list, tuple)) or hasattr(value, "__array__")

    def describe(self) -> str:
        return "an array"


@dataclass(frozen=True)
class IsCallable:
    """Anything callable (a schedule, a function)."""
    what: str = "a callable"

    def is_satisfied_by(self, value: Any) -> bool:
        return callable(value)

    def describe(self) -> str:
        return self.what


Constraint = Integer | Real | Boolean | Options | Seed | ArrayLike | IsCallable | type | None


def _alternatives(spec) -> list:
    return list(spec) if isinstance(spec, (list, tuple)) else [spec]


def _satisfies(value: Any, constraint: Constraint) -> bool:
    if constraint is None:
        return value is None
    if isinstance(constraint, type):
        return isinstance(value, constraint)
    return constraint.is_satisfied_by(value)


def _describe_one(constraint: Constraint) -> str:
    if constraint is None:
        return "None"
    if isinstance(constraint, type):
        return f"a {constraint.__name__}"
    return constraint.describe()


def describe(spec: Constraint | list) -> str:
    """'A', 'A or B', 'A, B or C': what a value satisfying ``spec`` (one constraint or a list) is."""
    parts = [_describe_one(c) for c in _alternatives(spec)]
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} or {parts[-1]}"


def short_repr(value: Any, limit: int = 80) -> str:
    """``repr(value)`` on one line, cut to ``limit`` characters (an array passed by mistake stays one line)."""
    text = " ".join(repr(value).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def check_parameter(owner: str, name: str, value: Any, spec: Constraint | list) -> None:
    """Refuse ``value`` unless it satisfies ``spec`` (one constraint or a list of alternatives): ValueError
    '<owner>: <name> must be <description>, got <value>' (no prefix when ``owner`` is empty)."""
    if not any(_satisfies(value, c) for c in _alternatives(spec)):
        raise ValueError(f"{_prefix(owner)}{name} must be {describe(spec)}, got {short_repr(value)}")


def validate_parameters(owner: str, constraints: Mapping[str, Any], params: Mapping[str, Any]) -> None:
    """``check_parameter`` for each declared parameter, in declaration order (the first bad one is named)."""
    for name, spec in constraints.items():
        check_parameter(owner, name, params[name], spec)


def validate_params(estimator: Any) -> None:
    """The shared check of an estimator's parameters against its class's ``_parameter_constraints``; the error
    names the class (e.g. 'DawidSkene: n_iter must be an integer >= 0, got -1')."""
    constraints = type(estimator)._parameter_constraints  # the nearest class that declares them
    validate_parameters(type(estimator).__name__, constraints, {n: getattr(estimator, n) for n in constraints})


class ParamsMixin:
    """scikit-learn's parameter protocol for an estimator whose ``__init__`` stores each argument under its own
    name: ``get_params`` and ``set_params`` (so ``sklearn.base.clone`` and grid searches can copy it). Values are
    checked by ``fit`` (``validate_params``), as scikit-learn checks them."""

    @classmethod
    def _param_names(cls) -> list[str]:
        parameters = inspect.signature(cls.__init__).parameters.items()
        return [name for name, p in parameters if name != "self" and p.kind == p.POSITIONAL_OR_KEYWORD]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's arguments by name (``deep`` is accepted for scikit-learn; no parameter is an
        estimator)."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> Any:
        """Set constructor arguments by name; an unknown name is refused (ValueError naming the estimator)."""
        names = self._param_names()
        for name, value in params.items():
            require(name in names, f"{type(self).__name__}: no parameter {name!r}; parameters: {names}")
            setattr(self, name, value)
        return self


def check_fitted(estimator: Any, *attributes: str) -> None:
    """Refuse to use an estimator before ``fit`` set ``attributes``."""
    missing = [a for a in attributes if not hasattr(estimator, a)]
    require(not missing, f"{type(estimator).__name__}: not fitted yet (no {', '.join(missing)}); call fit first")


def check_n_features(owner: str, X: np.ndarray, n_features: int, fitted: str = "the model was fitted on") -> None:
    """Refuse X (n, d) whose d is not the ``n_features`` the caller was fitted (or built) with."""
    require(X.shape[1] == n_features, f"{_prefix(owner)}X has {X.shape[1]} features, but {fitted} {n_features}")


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def outside_stacklevel() -> int:
    """The ``stacklevel`` that makes a ``warnings.warn`` in the caller of this function name the first frame
    outside the simverify package (the user's line, however deep the call; Python 3.12's skip_file_prefixes),
    or the outermost frame when every frame is simverify's. In a pool's worker thread that is the pool's frame:
    no simverify warning is issued from one today."""
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and _in_package(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    return level


def _in_package(filename: str) -> bool:
    """A code object's file is simverify's (a pseudo-file such as '<string>' or an interactive cell never is)."""
    return not filename.startswith("<") and os.path.abspath(filename).startswith(_PACKAGE)


def warn(owner: str, message: str, stacklevel: int | None = None, category: type[Warning] = RuntimeWarning) -> None:
    """A warning '<owner>: <message>' (one line; say what happened and what to do), a RuntimeWarning unless
    ``category`` says otherwise, attributed to the first caller outside simverify unless ``stacklevel`` says
    otherwise."""
    level = outside_stacklevel() if stacklevel is None else stacklevel
    warnings.warn(f"{_prefix(owner)}{message}", category, stacklevel=level)
