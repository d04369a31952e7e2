"""Sweeps: a claim's grid x replicates -> cell tasks (planned and validated before any work) -> their outputs,
through the store's cache (``run_tasks``); ``simverify.assemble`` makes the Dataset. Seeds: each cell's seed is a
hash of (sweep name, cell parameters, replicate, root seed), never of run order, worker count or thread count;
cache keys (``simverify.keys``) add the hash of the code the measure runs and of the data files it reads.
"""
from __future__ import annotations

import hashlib
import inspect
import os
import pickle
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from .footprint import check_cell, check_tasks
from .kernels.jit import one_blas_thread
from .keys import code_hash, digest, file_hash, normalize
from .limits import CellFailure, CellLimits, run_limited

if TYPE_CHECKING:
    from .claims import Claim


# -- plans ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CellTask:
    """One (cell, replicate) unit of work, small and picklable: the measure travels by reference."""
    measure: Callable[..., dict]
    params: dict
    index: tuple
    replicate: int
    entropy: int
    key: str
    sweep: str = ""      # origin of the cell, stored beside it (what `cache info` attributes it to)
    code_hash: str = ""


@dataclass
class Plan:
    """What a claim's sweep will compute at one tier (every task's key computed once, here)."""
    claim: Claim
    tier: str
    dims: list
    zipped: dict
    replicates: int
    root_seed: int
    tasks: list
    code_hash: str
    overrides: dict = field(default_factory=dict)
    peak_memory: float = 0.0  # bytes: the largest footprint estimate of its cells (0: none declared)

    @property
    def n_cells(self) -> int:
        return len(self.tasks) // self.replicates

    @property
    def digest(self) -> str:
        return digest([self.claim.sweep.name, self.tier, self.root_seed, [t.key for t in self.tasks]])


@dataclass(frozen=True)
class _Signature:
    """The keyword parameters a measure takes (its first parameter is the seed)."""
    defaults: dict
    required: frozenset
    any_name: bool

    def takes(self, name: str) -> bool:
        return self.any_name or name in self.defaults or name in self.required


def _signature(measure: Callable) -> _Signature:
    params = list(inspect.signature(measure).parameters.values())[1:]
    defaults = {p.name: p.default for p in params
                if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.default is not p.empty}
    required = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)} - set(defaults)
    return _Signature(defaults, frozenset(required), any(p.kind == p.VAR_KEYWORD for p in params))


def _check_picklable(claim: Claim, measure: Callable) -> None:
    try:
        pickle.dumps(measure)
    except (pickle.PicklingError, AttributeError, TypeError):
        raise ValueError(f"{claim.id}: measure {measure.__qualname__!r} cannot be sent to workers; "
                         "define it at module level (no lambda or local function)") from None


def _kind(value: Any) -> str | None:
    """What ``--set`` expects for a declared value (None: anything)."""
    if isinstance(value, (bool, np.bool_)):
        return "true or false"
    if isinstance(value, (int, np.integer)):
        return "an integer"
    if isinstance(value, (float, np.floating)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return None


def _coerce(where: str, value: Any, declared: Any) -> Any:
    """``value`` as the type of the ``declared`` scalar, or a one-line ValueError."""
    want = _kind(declared)
    is_bool = isinstance(value, (bool, np.bool_))
    ok = {None: True, "true or false": is_bool, "a string": isinstance(value, str),
          "an integer": isinstance(value, (int, np.integer)) and not is_bool,
          "a number": isinstance(value, (int, float, np.integer, np.floating)) and not is_bool}[want]
    if not ok or isinstance(value, (list, dict)):
        raise ValueError(f"{where} expects {want or 'a single value'}, got {value!r}")
    return float(value) if want == "a number" else value


def _coerce_override(claim_id: str, name: str, value: Any, declared: Any, is_axis: bool) -> Any:
    """A ``--set`` value checked against the declared one: a list only for a grid axis or a
    declared list (a scalar becomes a one-element list there), never an empty list."""
    where = f"{claim_id}: --set {name}"
    try:
        normalize(value, name)  # non-finite numbers, integers past int32, unsupported types
    except ValueError as exc:
        raise ValueError(f"{claim_id}: {exc}") from None
    listy = is_axis or isinstance(declared, (list, tuple))
    if isinstance(value, dict) or (isinstance(value, list) and not listy):
        raise ValueError(f"{where} expects {_kind(declared) or 'a single value'}, got {value!r}")
    if not listy:
        return _coerce(where, value, declared)
    values = value if isinstance(value, list) else [value]
    if not values:
        raise ValueError(f"{where} expects at least one value, got an empty list")
    element = next((v for v in declared if isinstance(v, float)), declared[0] if len(declared) else None)
    return [_coerce(where, v, element) for v in values]


def _zipped_override(claim_id: str, name: str, value: Any, dim: str, zipped: Mapping) -> list:
    """New values of a zipped parameter: one value for every entry along ``dim``, or one each."""
    declared = list(zipped[dim][name])
    values = _coerce_override(claim_id, name, value, declared, True)
    if len(values) == 1:
        return values * len(declared)
    if len(values) != len(declared):
        raise ValueError(f"{claim_id}: --set {name} expects one value or {len(declared)} (one per {dim!r}), "
                         f"got {len(values)}")
    return values


def _bind(claim: Claim, tier: str, overrides: Mapping[str, Any] | None):
    """Grid and fixed parameters of ``tier`` after ``--set`` overrides, with measure defaults
    bound; unknown or missing parameters are a ValueError naming the claim and parameter."""
    t = claim.tiers[tier]
    grid, fixed = t.grid, dict(t.fixed)
    sig = _signature(claim.sweep.measure)
    zipped = {p: dim for dim, group in grid.zipped.items() for p in group}
    axes, groups = {}, {dim: dict(group) for dim, group in grid.zipped.items()}
    for name, value in (overrides or {}).items():
        if name in zipped:
            groups[zipped[name]][name] = _zipped_override(claim.id, name, value, zipped[name], grid.zipped)
        elif name in grid.axes:
            axes[name] = _coerce_override(claim.id, name, value, list(grid.axes[name]), True)
        elif name in fixed or sig.takes(name):
            fixed[name] = _coerce_override(claim.id, name, value, fixed.get(name, sig.defaults.get(name)), False)
        else:
            known = sorted(set(grid.axes) | set(fixed) | set(sig.defaults) | sig.required)
            raise ValueError(f"{claim.id}: cannot set {name!r}; parameters are {known}")
    grid = replace(grid.override(**axes), zipped=groups)
    given = set(fixed) | set(grid.axes) | set(zipped)
    qualname = claim.sweep.measure.__qualname__
    for name in sorted(given):
        if not sig.takes(name):
            raise ValueError(f"{claim.id}: measure {qualname} takes no parameter {name!r}")
    missing = sorted(sig.required - given)
    if missing:
        raise ValueError(f"{claim.id}: measure {qualname} needs parameter {missing[0]!r}; "
                         "no tier, grid or default gives it")
    return grid, {**sig.defaults, **fixed}


def _data_hashes(claim: Claim, params: dict, cache: dict) -> dict:
    """Content hash of each fixed data file the cell reads (Sweep.data: param -> resolver). The
    parameter stays the data set's name (seeds and keys do not depend on where the file lies);
    the measure opens ``resolver(name)`` itself. A resolver returning None means the cell reads no file (an
    optional data parameter left at its default); one returning several paths (answers and gold labels) keys
    the cells by all of them."""
    out = {}
    for param, resolver in claim.sweep.data.items():
        name = params[param]
        found = resolver(name)
        if found is None:
            continue
        hashes = []
        for path in (found if isinstance(found, (list, tuple)) else [found]):
            if path not in cache:
                try:
                    cache[path] = file_hash(path)
                except OSError as exc:
                    raise ValueError(f"{claim.id}: data file {os.fspath(path)!r} for {param}={name!r} "
                                     f"cannot be read ({exc.strerror or exc})") from None
            hashes.append(cache[path])
        out[param] = hashes[0] if len(hashes) == 1 else hashlib.sha256("".join(hashes).encode()).hexdigest()
    return out


def coordinate_name_clash(claim_id: str, name: str) -> ValueError:
    return ValueError(f"{claim_id}: output {name!r} has the name of a coordinate (grid dim or parameter); "
                      "rename the output")


def _check_output_names(claim: Claim, grid, first: dict) -> None:
    """Refuse declared outputs the Dataset cannot hold: an output named like a coordinate (a grid dim, a
    zipped parameter, a parameter, ``replicate``) or with a grid dim among its own dims."""
    grid_names = {d for d, _ in grid.dims()} | {"replicate"}
    taken = grid_names | set(first) | {p for group in grid.zipped.values() for p in group}
    for name, dims in claim.sweep.outputs.items():
        if name in taken:
            raise coordinate_name_clash(claim.id, name)
        clash = sorted(grid_names & set(dims))
        if clash:
            raise ValueError(f"{claim.id}: output {name!r} declares dim {clash[0]!r}, which is already a grid dim")


def _check_law(claim: Claim, grid, replicates: int, first: dict) -> None:
    """Refuse a grid the law cannot judge: too few replicates or a law-specific check on the
    Dataset's coordinates (grid dims, replicate, output dims whose values are parameters)."""
    need = max(1, claim.law.min_replicates)
    if replicates < need:
        raise ValueError(f"{claim.id}: {claim.law.kind} needs at least {need} replicates for an interval; "
                         f"got {replicates}")
    from .laws.base import DATA_SIZED
    coords = {d: list(v) for d, v in grid.dims()}
    coords["replicate"] = list(range(replicates))
    for dims in claim.sweep.outputs.values():
        for d in dims:
            coords.setdefault(d, first[d] if isinstance(first.get(d), list) else DATA_SIZED)
    try:
        claim.law.check_plan(coords)
    except ValueError as exc:
        raise ValueError(f"{claim.id}: {exc}") from None


def _check_cells(claim: Claim, cells: list[dict], ceiling: bool) -> float:
    """Every cell's parameters (the paper's declared constraints, then its validate: rules across parameters and
    data files) and estimated footprint; returns the largest memory."""
    from .parameters import check_parameters
    peak = 0.0
    for params in cells:
        check_parameters(claim.parameters, params)
        if claim.validate is not None:
            claim.validate(params)
        if claim.footprint is not None:
            fp = claim.footprint(params)
            check_cell(claim.id, fp, ceiling)
            peak = max(peak, fp.memory)
    return peak


def plan(claim: Claim, tier: str, *, replicates: int | None = None, root_seed: int = 0,
         overrides: Mapping[str, Any] | None = None, ceiling: bool = True) -> Plan:
    """Validate every cell's parameters, the law's needs, its estimated size (simverify.footprint; ``ceiling``
    False lifts the work ceiling, not the memory one) and the data files before any work, and derive each
    task's seed and cache key.

    params = measure defaults + tier fixed + grid cell (+ overrides); seed = hash(sweep name,
    params, replicate, root seed); key = hash(code hash, measure, seed source, data hashes).
    """
    if tier not in claim.tiers:
        raise ValueError(f"{claim.id}: unknown tier {tier!r}")
    R = claim.tiers[tier].replicates if replicates is None else int(replicates)
    if root_seed < 0:
        raise ValueError(f"seed must be >= 0, got {root_seed}")
    sweep = claim.sweep
    _check_picklable(claim, sweep.measure)
    grid, fixed = _bind(claim, tier, overrides)
    cells = [(idx, normalize({**fixed, **cell}, "params")) for idx, cell in grid.cells()]
    check_tasks(claim.id, len(cells), R)
    peak = _check_cells(claim, [params for _, params in cells], ceiling)  # the values first, then what the law needs
    _check_output_names(claim, grid, cells[0][1])
    _check_law(claim, grid, R, cells[0][1])
    chash = code_hash(sweep.measure.__module__)
    file_hashes: dict = {}
    tasks = []
    for idx, params in cells:
        data = _data_hashes(claim, params, file_hashes)
        for r in range(R):
            seed_src = [sweep.name, params, r, int(root_seed)]
            entropy = int(digest(seed_src, 16), 16)
            key = digest([chash, sweep.measure.__module__, sweep.measure.__qualname__, seed_src, data])
            tasks.append(CellTask(sweep.measure, params, idx, r, entropy, key, sweep.name, chash))
    return Plan(claim, tier, grid.dims(), {k: dict(v) for k, v in grid.zipped.items()}, R, int(root_seed), tasks,
                chash, dict(overrides or {}), peak)


# -- running ----------------------------------------------------------------------------------

def compute_cell(task: CellTask) -> dict:
    """Run one cell (in any process): ``measure(seed, **params)``, outputs as float arrays in name order (as
    ``Store.load_cell`` returns them, so a Dataset's bytes do not depend on which cells were cached). BLAS runs on
    one thread: its multi-threaded kernels split sums by thread count, and a cell's bits must not
    depend on the worker count or the scheduler."""
    with one_blas_thread():
        out = task.measure(np.random.SeedSequence(task.entropy), **task.params)
    return {k: np.asarray(out[k], dtype=float) for k in sorted(out)}  # the order of a cell loaded from the store


def timed_compute_cell(task: CellTask, limits: CellLimits | None = None) -> tuple[dict | CellFailure, float]:
    """compute_cell and its run time in seconds (measured where it ran); under ``limits``, a CellFailure in place
    of the outputs when a limit stopped the cell."""
    t0 = time.perf_counter()
    out = compute_cell(task) if limits is None else run_limited(compute_cell, limits, task)
    return out, time.perf_counter() - t0


def compile_once_order(tasks: list[CellTask]) -> list[CellTask]:
    """``tasks`` with the first task of each measure moved to the front (in their order), then the rest in order.
    A measure's first task compiles its kernels into Numba's cache; two workers starting one measure together
    compiled the same kernels twice (120 of a cold quick suite's 263 compilations; 31 of 174 with this order). A
    heuristic: a worker still starts a measure's second task while its first compiles when no other measure's is
    left. Results do not depend on the order: every cell is independent."""
    seen, first, rest = set(), [], []
    for t in tasks:
        name = getattr(t.measure, "__qualname__", repr(t.measure)), getattr(t.measure, "__module__", "")
        (rest if name in seen else first).append(t)
        seen.add(name)
    return first + rest


def iter_results(tasks: Iterable[CellTask], store, executor, progress: Callable[[int, int], None] | None = None,
                 limits: CellLimits | None = None) -> Iterator[tuple[str, dict | CellFailure, float]]:
    """(key, outputs, compute seconds) once per distinct task key: cached cells first (0 s),
    then missing ones as they finish, each stored at once (an interruption loses only
    running cells). Under ``limits`` a cell a limit stopped comes as (key, CellFailure, seconds), not stored."""
    todo, cached = {}, {}
    for t in tasks:
        if t.key in todo or t.key in cached:
            continue
        out = store.load_cell(t.key)
        if out is None:
            todo[t.key] = t
        else:
            cached[t.key] = out
    total = len(todo)
    if progress and total:
        progress(0, total)
    fn = partial(timed_compute_cell, limits=limits) if limits is not None and limits.active else timed_compute_cell
    order = compile_once_order if getattr(executor, "parallel", True) else list  # one process compiles once anyway
    finished = executor.map_unordered(fn, order(list(todo.values()))) if todo else iter(())
    for key, out in cached.items():  # workers already run the missing cells meanwhile
        yield key, out, 0.0
    for done, (task, (out, seconds)) in enumerate(finished, 1):
        if not isinstance(out, CellFailure):
            store.save_cell(task.key, out, {"sweep": task.sweep, "code_hash": task.code_hash})
        if progress:
            progress(done, total)
        yield task.key, out, seconds


def run_tasks(tasks: Iterable[CellTask], store, executor, progress: Callable[[int, int], None] | None = None) -> dict:
    """Outputs by key for every task (see iter_results)."""
    return {key: out for key, out, _ in iter_results(tasks, store, executor, progress)}

