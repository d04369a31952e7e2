"""Sweeps: a claim's grid x replicates -> cell tasks -> one ``xarray.Dataset``.

Seeds: each cell's seed is a hash of (sweep name, cell parameters, replicate, root seed),
never of run order, worker count or thread count. Cache keys add the hash of the code the
measure runs (its module and every project module that module imports, transitively) and
the content hash of any fixed data file the cell reads, so an edit invalidates exactly the
cells it could change.
"""
from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import inspect
import json
import math
import os
import pickle
import platform
import subprocess
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from importlib.machinery import PathFinder
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from .footprint import check_cell, check_int32, check_tasks
from .kernels.jit import one_blas_thread

if TYPE_CHECKING:
    from .claims import Claim

PROJECT_PACKAGE = "simverify"


def normalize(value: Any, name: str = "value") -> Any:
    """JSON-normal form of a parameter; rejects non-finite numbers."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        check_int32(name, int(value))
        return int(value)
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            raise ValueError(f"parameter {name!r} is not finite: {value}")
        return float(value)
    if isinstance(value, (list, tuple, np.ndarray)):
        return [normalize(v, name) for v in value]
    if isinstance(value, dict):
        return {str(k): normalize(v, f"{name}.{k}") for k, v in value.items()}
    raise ValueError(f"parameter {name!r} has unsupported type {type(value).__name__}")


def digest(obj: Any, size: int = 20) -> str:
    return hashlib.blake2b(json.dumps(obj, sort_keys=True).encode(), digest_size=size).hexdigest()


# -- the code a measure runs: a static import graph -----------------------------------------

def _module_file(name: str) -> Path | None:
    """The source file of module ``name``, found without importing it (None if not a .py file)."""
    parts = name.split(".")
    try:
        spec = importlib.util.find_spec(parts[0])  # a top-level name: nothing is imported
        for i in range(1, len(parts)):
            if spec is None or spec.submodule_search_locations is None:
                return None
            spec = PathFinder.find_spec(".".join(parts[: i + 1]), spec.submodule_search_locations)
    except (ImportError, ValueError):
        return None
    origin = getattr(spec, "origin", None)
    return Path(origin) if origin and origin.endswith(".py") else None


def _imported(name: str, is_package: bool, tree: ast.AST) -> set[str]:
    """Modules named by the import statements of module ``name`` (relative imports resolved);
    ``from m import x`` names ``m.x`` when that is a module, else ``m``."""
    here = name if is_package else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = here
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            source = ".".join(p for p in ((base if node.level else ""), node.module or "") if p)
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                out.add(sub if alias.name != "*" and _module_file(sub) is not None else source)
    return out


@dataclass(frozen=True)
class ModuleSource:
    """One module's source hash and the modules it imports."""
    name: str
    hash: str
    imports: frozenset


@functools.cache
def module_source(name: str) -> ModuleSource | None:
    """Read and parse module ``name`` once per process (None when it has no .py source)."""
    path = _module_file(name)
    if path is None:
        return None
    source = path.read_bytes()
    tree = ast.parse(source, filename=str(path))
    return ModuleSource(name, hashlib.blake2b(source, digest_size=16).hexdigest(),
                        frozenset(_imported(name, path.name == "__init__.py", tree)))


def code_closure(module_name: str) -> list[ModuleSource]:
    """``module_name`` and every module it imports, transitively, within the project: modules
    of the ``simverify`` package or of the measure's own top-level package (sorted by name)."""
    packages = {PROJECT_PACKAGE, module_name.partition(".")[0]}
    seen: dict[str, ModuleSource | None] = {}
    todo = [module_name]
    while todo:
        name = todo.pop()
        if name in seen or name.partition(".")[0] not in packages:
            continue
        seen[name] = module_source(name)
        if seen[name] is not None:
            todo.extend(seen[name].imports)
    return sorted((m for m in seen.values() if m is not None), key=lambda m: m.name)


def code_hash(module_name: str) -> str:
    """Hash of the source of the code a measure defined in ``module_name`` runs."""
    return digest([[m.name, m.hash] for m in code_closure(module_name)], 16)


def file_hash(path: str | os.PathLike) -> str:
    """blake2b of a data file's bytes."""
    h = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


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


def _coordinate_name_clash(claim_id: str, name: str) -> ValueError:
    return ValueError(f"{claim_id}: output {name!r} has the name of a coordinate (grid dim or parameter); "
                      "rename the output")


def _check_output_names(claim: Claim, grid, first: dict) -> None:
    """Refuse declared outputs the Dataset cannot hold: an output named like a coordinate (a grid dim, a
    zipped parameter, a parameter, ``replicate``) or with a grid dim among its own dims."""
    grid_names = {d for d, _ in grid.dims()} | {"replicate"}
    taken = grid_names | set(first) | {p for group in grid.zipped.values() for p in group}
    for name, dims in claim.sweep.outputs.items():
        if name in taken:
            raise _coordinate_name_clash(claim.id, name)
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
    """Run one cell (in any process): ``measure(seed, **params)``, outputs as float arrays. BLAS runs on
    one thread: its multi-threaded kernels split sums by thread count, and a cell's bits must not
    depend on the worker count or the scheduler."""
    with one_blas_thread():
        out = task.measure(np.random.SeedSequence(task.entropy), **task.params)
    return {k: np.asarray(v, dtype=float) for k, v in out.items()}


def timed_compute_cell(task: CellTask) -> tuple[dict, float]:
    """compute_cell and its run time in seconds (measured where it ran)."""
    t0 = time.perf_counter()
    out = compute_cell(task)
    return out, time.perf_counter() - t0


def iter_results(tasks: Iterable[CellTask], store, executor,
                 progress: Callable[[int, int], None] | None = None) -> Iterator[tuple[str, dict, float]]:
    """(key, outputs, compute seconds) once per distinct task key: cached cells first (0 s),
    then missing ones as they finish, each stored at once (an interruption loses only
    running cells)."""
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
    finished = executor.map_unordered(timed_compute_cell, list(todo.values())) if todo else iter(())
    for key, out in cached.items():  # workers already run the missing cells meanwhile
        yield key, out, 0.0
    for done, (task, (out, seconds)) in enumerate(finished, 1):
        store.save_cell(task.key, out, {"sweep": task.sweep, "code_hash": task.code_hash})
        if progress:
            progress(done, total)
        yield task.key, out, seconds


def run_tasks(tasks: Iterable[CellTask], store, executor, progress: Callable[[int, int], None] | None = None) -> dict:
    """Outputs by key for every task (see iter_results)."""
    return {key: out for key, out, _ in iter_results(tasks, store, executor, progress)}


# -- provenance and assembly ------------------------------------------------------------------

def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=Path(__file__).resolve().parent, capture_output=True, text=True,
                             timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


@functools.lru_cache(maxsize=1)
def git_commit() -> str:
    """The commit this code comes from: HEAD of the source checkout it runs from (an editable
    install), else the commit recorded when the package was built, else "unknown"."""
    if _git("ls-files", "--error-unmatch", Path(__file__).name) is not None:
        head = _git("rev-parse", "HEAD")
        if head:
            return head
    try:
        from ._build_info import COMMIT
    except ImportError:
        return "unknown"
    return COMMIT


@functools.lru_cache(maxsize=1)
def software() -> dict:
    """What ran, independent of the run: package versions, the commit and the machine."""
    import numba
    import scipy

    from . import __version__
    return {"simverify_version": __version__, "git_commit": git_commit(), "numba_version": numba.__version__,
            "numpy_version": np.__version__, "scipy_version": scipy.__version__, "xarray_version": xr.__version__,
            "python_version": platform.python_version(),
            "machine": f"{platform.system()} {platform.machine()}, {cpu_model()}, {os.cpu_count()} cores"}


def cpu_model() -> str:
    """The CPU's model name (from /proc/cpuinfo on Linux), else platform.processor(), else "unknown CPU":
    speed ratios differ between CPUs, so results name the one they were measured on."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return " ".join(line.split(":", 1)[1].split())
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def provenance(p: Plan) -> dict:
    """The Dataset's attrs: the claim, the run (tier, root seed, replicates, overrides) and software()."""
    return {"claim_id": p.claim.id, "paper": p.claim.paper, "item": p.claim.item, "tier": p.tier,
            "root_seed": p.root_seed, "replicates": p.replicates, **software(),
            "code_hash": p.code_hash, "sweep": p.claim.sweep.name,
            "overrides": json.dumps(normalize(p.overrides, "overrides"), sort_keys=True)}


def _output_dims(p: Plan, name: str, value: np.ndarray) -> tuple[str, ...]:
    """The dims of one output beyond grid x replicate (declared in Sweep.outputs)."""
    if value.ndim == 0:
        return ()
    dims = tuple(p.claim.sweep.outputs.get(name, ()))
    if not dims:
        raise ValueError(f"{p.claim.id}: output {name!r} is an array of shape {value.shape} "
                         "but Sweep.outputs does not declare its dims")
    if len(dims) != value.ndim:
        raise ValueError(f"{p.claim.id}: output {name!r} has shape {value.shape} but is declared with dims {dims}")
    return dims


def _output_coord(params: dict, dim: str, size: int) -> np.ndarray:
    """params[dim] when it is a list of ``size`` values (numbers or strings), else 0..size-1."""
    given = params.get(dim)
    return np.asarray(given) if isinstance(given, list) and len(given) == size else np.arange(size)


def assemble(p: Plan, results: dict) -> xr.Dataset:
    """One Dataset: each output has dims grid dims x replicate (x its declared output dims);
    scalar parameters (measure defaults included) are scalar coordinates; provenance in attrs."""
    grid_dims = [d for d, _ in p.dims] + ["replicate"]
    shape = [len(v) for _, v in p.dims] + [p.replicates]
    params = p.tasks[0].params
    coords: dict[str, Any] = {d: v for d, v in p.dims}
    coords["replicate"] = np.arange(p.replicates)
    data = {}
    for name, value in results[p.tasks[0].key].items():
        if name in coords or name in params:
            raise _coordinate_name_clash(p.claim.id, name)
        dims = _output_dims(p, name, value)
        arr = np.full(shape + list(value.shape), np.nan)
        for t in p.tasks:
            arr[t.index + (t.replicate,)] = results[t.key][name]
        data[name] = (grid_dims + list(dims), arr)
        for dim, size in zip(dims, value.shape):
            coords.setdefault(dim, _output_coord(params, dim, size))
    for dim, group in p.zipped.items():
        for param, values in group.items():
            coords[param] = (dim, list(values))
    for name, value in params.items():  # fixed parameters and defaults as scalar coordinates
        if name not in coords and value is not None and not isinstance(value, (list, dict)):
            coords[name] = value
    ds = xr.Dataset(data, coords=coords, attrs=provenance(p))
    ds["replicate"].attrs["description"] = "independent Monte Carlo replicate (own seed)"
    return ds
