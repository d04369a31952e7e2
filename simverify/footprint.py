"""What one cell of a plan costs, estimated from its parameters before any work, and the ceilings a
plan is refused beyond (one line, when the run is planned).

A paper declares ``footprint(params) -> Footprint`` (``Paper(footprint=...)``): the bytes of the arrays
a cell holds at once and its work in floating-point operations, both from the sizes in ``params``
(order-of-magnitude estimates of the dominant terms, not measurements). The plan refuses

- an integer parameter outside NetCDF's int32 (the store keeps parameters as NetCDF3 attributes and
  coordinates): always;
- more than ``MAX_TASKS`` cells x replicates for one claim (each planned task is held in memory): always;
- a cell whose arrays exceed this machine's physical memory: always;
- a cell whose work exceeds ``MAX_CELL_WORK`` (about a day at 1e9 operations per second): unless the
  caller lifts the ceiling (``simverify check --no-ceiling``).
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import NamedTuple

INT32_MIN, INT32_MAX = -2 ** 31, 2 ** 31 - 1
MAX_TASKS = 1_000_000
MAX_RUN_TASKS = 20_000_000  # all claims of one run (x seeds for calibrate); the full tier plans about 40,000
MAX_CELL_WORK = 1e14


STREAM_BYTES = 3072  # one PCG64 generator of a chunk's random stream, in a numba typed List (measured: 2.9 KB)


def stream_bytes(items: int, chunk: int) -> float:
    """Memory of the per-chunk random streams of ``items`` items, ``chunk`` items per stream."""
    return float(STREAM_BYTES * -(-int(items) // int(chunk)))


class Footprint(NamedTuple):
    """One cell's estimated peak memory (bytes) and work (floating-point operations)."""
    memory: float
    work: float


def size(p: Mapping, name: str, default: int = 0) -> int:
    """The largest value of size parameter ``name`` in a cell (a list: its largest), ``default`` when absent."""
    v = p.get(name, default)
    if isinstance(v, list):
        v = max((x for x in v if isinstance(x, (int, float)) and not isinstance(x, bool)), default=default)
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else default


def values(p: Mapping, name: str, default: int = 0) -> list:
    """The values of size parameter ``name`` over a cell: a paired cell's list (its numbers), else [its value];
    [``default``] when absent or not numbers."""
    v = p.get(name, default)
    items = v if isinstance(v, list) else [v]
    numbers = [x for x in items if isinstance(x, (int, float)) and not isinstance(x, bool)]
    return numbers or [default]


def total(p: Mapping, name: str, default: int = 0) -> int:
    """The sum of size parameter ``name`` over a cell (a list: the sum of its values, as a paired cell runs each;
    work adds up where memory, ``size``, takes the largest), ``default`` when absent."""
    return sum(values(p, name, default))


def machine_memory() -> float:
    """This machine's physical memory in bytes (inf where the platform does not say)."""
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return float("inf")


def human_bytes(n: float) -> str:
    """``n`` bytes as 1.5 GiB, 146 TiB, ..."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.3g} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def check_int32(name: str, value) -> None:
    """Refuse an integer (or an integer in a list or mapping) outside int32, naming ``name`` and the value."""
    if isinstance(value, bool):
        return
    if isinstance(value, int) and not INT32_MIN <= value <= INT32_MAX:
        shown = f"{value:.3e}" if abs(value) >= 1e15 else str(value)
        raise ValueError(f"parameter {name!r} = {shown} lies outside [{INT32_MIN}, {INT32_MAX}], the integers the "
                         "store holds (NetCDF int32)")
    if isinstance(value, (list, tuple)):
        for v in value:
            check_int32(name, v)
    elif isinstance(value, dict):
        for k, v in value.items():
            check_int32(f"{name}.{k}", v)


def check_tasks(claim_id: str, cells: int, replicates: int, ceiling: int = MAX_TASKS) -> None:
    """Refuse a claim planned with more than ``ceiling`` cells x replicates (before any task is built); with
    replicates 1, ``cells`` counts a whole run's tasks."""
    if cells * replicates > ceiling:
        what = f"{cells} cells x {replicates} replicates = {cells * replicates:,} tasks" if replicates > 1 else \
            f"{cells:,} tasks"
        per = "per claim" if ceiling == MAX_TASKS else "per run"
        raise ValueError(f"{claim_id}: {what} exceed the ceiling of {ceiling:,} {per}")


def check_cell(claim_id: str, fp: Footprint, ceiling: bool = True, memory: float | None = None) -> None:
    """Refuse a cell whose estimated memory exceeds ``memory`` (default: this machine's), or, with ``ceiling``,
    whose estimated work exceeds MAX_CELL_WORK."""
    memory = machine_memory() if memory is None else memory
    if fp.memory > memory:
        raise ValueError(f"{claim_id}: one cell needs about {human_bytes(fp.memory)} of memory; this machine has "
                         f"{human_bytes(memory)}")
    if ceiling and fp.work > MAX_CELL_WORK:
        raise ValueError(f"{claim_id}: one cell needs about {fp.work:.1e} operations (a day is about "
                         f"{MAX_CELL_WORK:.0e}); --no-ceiling runs it anyway")


WORKER_BYTES = 256 << 20  # one worker process before its cells: interpreter, NumPy, Numba, kernels (175-240 MB seen)


def check_workers(peak: float, workers: int, memory: float | None = None) -> None:
    """Refuse ``workers`` processes that would each hold a cell of ``peak`` bytes at once, on top of
    WORKER_BYTES each, past ``memory`` (default: this machine's), naming the most workers that fit."""
    memory = machine_memory() if memory is None else memory
    need = peak + WORKER_BYTES
    if workers > 1 and need * workers > memory:
        fit = max(1, int(memory // need))
        raise ValueError(f"{workers} workers holding cells of about {human_bytes(peak)} each (and "
                         f"{human_bytes(WORKER_BYTES)} of their own) need more than this machine's "
                         f"{human_bytes(memory)}; use --workers {fit}")
