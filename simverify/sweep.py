"""Sweeps: a claim's grid x replicates -> cell tasks -> one ``xarray.Dataset``.

Seeds: each cell's seed is a hash of (sweep id, cell parameters, replicate, root seed),
never of run order, worker count or thread count. Cache keys add the hash of the code
that computes the cell, so editing a kernel, solver, generator or claim module
invalidates exactly the cells it could change.
"""
from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import numpy as np
import xarray as xr

from . import registry
from .claims import Claim

_SCIENCE = ("kernels", "generators", "solvers", "metrics.py")


def normalize(value: Any, name: str = "value") -> Any:
    """JSON-normal form of a parameter; rejects non-finite numbers."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            raise ValueError(f"parameter {name!r} is not finite: {value}")
        return float(value)
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple, np.ndarray)):
        return [normalize(v, name) for v in value]
    if isinstance(value, dict):
        return {str(k): normalize(v, f"{name}.{k}") for k, v in value.items()}
    raise ValueError(f"parameter {name!r} has unsupported type {type(value).__name__}")


def digest(obj: Any, size: int = 20) -> str:
    return hashlib.blake2b(json.dumps(obj, sort_keys=True).encode(), digest_size=size).hexdigest()


@functools.lru_cache(maxsize=None)
def code_hash(module_name: str) -> str:
    """Hash of the science code (kernels, generators, solvers, metrics) and of the module
    that defines the measure."""
    pkg = Path(__file__).resolve().parent
    files = []
    for part in _SCIENCE:
        p = pkg / part
        files += sorted(p.rglob("*.py")) if p.is_dir() else [p]
    mod = sys.modules.get(module_name)
    if mod is not None and getattr(mod, "__file__", None):
        files.append(Path(mod.__file__))
    h = hashlib.blake2b(digest_size=16)
    for f in files:
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def measure_code_hash(claim: Claim) -> str:
    return code_hash(claim.measure.__module__)


@dataclass(frozen=True)
class CellTask:
    """One (cell, replicate) unit of work, small and picklable."""
    claim_id: str
    index: tuple
    params: dict
    replicate: int
    entropy: int
    key: str


@dataclass
class Plan:
    """What a claim's sweep will compute at one tier."""
    claim: Claim
    tier: str
    dims: list
    zipped: dict
    replicates: int
    root_seed: int
    tasks: list

    @property
    def n_cells(self) -> int:
        return len(self.tasks) // self.replicates

    @property
    def digest(self) -> str:
        return digest([self.claim.sweep, self.tier, self.root_seed, [t.key for t in self.tasks]])


def _apply_overrides(claim: Claim, tier: str, overrides: dict | None):
    t = claim.tiers[tier]
    grid, fixed = t.grid, dict(t.fixed)
    axes = {}
    for name, value in (overrides or {}).items():
        if name in grid.axes:
            axes[name] = value if isinstance(value, (list, tuple)) else [value]
        elif name in fixed:
            fixed[name] = value
        else:
            known = sorted(set(grid.axes) | set(fixed))
            raise ValueError(f"{claim.id}: cannot set {name!r}; parameters are {known}")
    return grid.override(**axes), fixed


def plan(claim: Claim, tier: str, *, replicates: int | None = None, root_seed: int = 0,
         overrides: dict | None = None) -> Plan:
    """Validate every cell's parameters and derive its seeds and cache keys."""
    if tier not in claim.tiers:
        raise ValueError(f"{claim.id}: unknown tier {tier!r}")
    R = claim.tiers[tier].replicates if replicates is None else int(replicates)
    if R < 1:
        raise ValueError(f"replicates must be >= 1, got {R}")
    if root_seed < 0:
        raise ValueError(f"seed must be >= 0, got {root_seed}")
    grid, fixed = _apply_overrides(claim, tier, overrides)
    chash = measure_code_hash(claim)
    tasks = []
    for idx, cell in grid.cells():
        params = normalize({**fixed, **cell}, "params")
        if claim.validate is not None:
            claim.validate(params)
        for r in range(R):
            seed_src = [claim.sweep, params, r, int(root_seed)]
            entropy = int(digest(seed_src, 16), 16)
            key = digest([chash, claim.measure.__module__, claim.measure.__qualname__, seed_src])
            tasks.append(CellTask(claim.id, idx, params, r, entropy, key))
    return Plan(claim, tier, grid.dims(), {k: dict(v) for k, v in grid.zipped.items()}, R, int(root_seed), tasks)


def compute_cell(task: CellTask) -> dict:
    """Run one cell (in any process): look the claim up and call its measure."""
    claim = registry.get(task.claim_id)
    out = claim.measure(dict(task.params), np.random.SeedSequence(task.entropy))
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
    total, done = len(todo), 0
    if progress and total:
        progress(0, total)
    finished = executor.map_unordered(timed_compute_cell, list(todo.values())) if todo else iter(())
    for key, out in cached.items():  # workers already run the missing cells meanwhile
        yield key, out, 0.0
    for task, (out, seconds) in finished:
        store.save_cell(task.key, out)
        done += 1
        if progress:
            progress(done, total)
        yield task.key, out, seconds


def run_tasks(tasks: Iterable[CellTask], store, executor, progress: Callable[[int, int], None] | None = None) -> dict:
    """Outputs by key for every task (see iter_results)."""
    return {key: out for key, out, _ in iter_results(tasks, store, executor, progress)}


def _git_commit() -> str:
    try:
        here = Path(__file__).resolve().parent
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5)
        return out.stdout.strip() if out.returncode == 0 else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def provenance(p: Plan) -> dict:
    import numba

    from . import __version__
    return {"claim_id": p.claim.id, "paper": p.claim.paper, "item": p.claim.item, "tier": p.tier,
            "root_seed": p.root_seed, "replicates": p.replicates, "simverify_version": __version__,
            "git_commit": _git_commit(), "numba_version": numba.__version__, "numpy_version": np.__version__,
            "xarray_version": xr.__version__, "python_version": platform.python_version(),
            "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores",
            "code_hash": measure_code_hash(p.claim), "sweep_id": p.claim.sweep}


def assemble(p: Plan, results: dict) -> xr.Dataset:
    """One Dataset: grid dims x replicate (x trajectory dims), provenance in attrs."""
    shape = [len(v) for _, v in p.dims] + [p.replicates]
    first = results[p.tasks[0].key]
    traj = p.claim.trajectories
    data = {}
    for name, value in first.items():
        extra = list(value.shape)
        arr = np.full(shape + extra, np.nan)
        for t in p.tasks:
            arr[t.index + (t.replicate,)] = results[t.key][name]
        dims = [d for d, _ in p.dims] + ["replicate"]
        if extra:
            if name not in traj or len(extra) != 1:
                raise ValueError(f"{p.claim.id}: output {name!r} is an array but not declared in trajectories")
            dims.append(traj[name])
        data[name] = (dims, arr)
    coords = {d: v for d, v in p.dims}
    coords["replicate"] = np.arange(p.replicates)
    for name, value in first.items():
        if value.ndim == 1:
            dim = traj[name]
            given = p.tasks[0].params.get(dim)
            coords[dim] = np.asarray(given) if given is not None and len(given) == value.size else np.arange(value.size)
    for dim, group in p.zipped.items():
        for param, values in group.items():
            coords[param] = (dim, list(values))
    for name, value in p.tasks[0].params.items():  # fixed parameters as scalar coordinates
        if name not in coords and not isinstance(value, (list, dict)):
            coords[name] = value
    ds = xr.Dataset(data, coords=coords, attrs=provenance(p))
    ds["replicate"].attrs["description"] = "independent Monte Carlo replicate (own seed)"
    return ds
