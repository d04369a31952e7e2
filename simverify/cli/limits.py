"""`check --cell-time / --cell-memory`: the per-cell limits of a run, parsed, defaulted and stated in one line."""
from __future__ import annotations

import math
import re

from ..exceptions import UsageError
from ..footprint import human_bytes, machine_memory
from ..limits import CellLimits
from ..timings import MAX_SECONDS

DEFAULT_FACTOR = 10.0   # the default time limit: this many times the plan's largest estimate of one cell ...
DEFAULT_FLOOR_S = 600.0  # ... and at least this many seconds
_UNITS_S = {"": 1.0, "s": 1.0, "ms": 1e-3, "m": 60.0, "min": 60.0, "h": 3600.0}
_UNITS_B = {"": 1.0, "b": 1.0, **{f"{u}{tail}": 2.0 ** (10 * (i + 1)) for i, u in enumerate("kmgt")
                                  for tail in ("", "b", "ib")}}  # K, KB and KiB alike: powers of 2


def _parse(option: str, raw: str, units: dict, what: str, smallest: float, smallest_text: str) -> float | None:
    """A positive finite quantity with an optional unit, or None for "none"; UsageError naming the option."""
    text = raw.strip().lower() if raw.isascii() else ""  # no look-alikes (the Kelvin sign lowers to k)
    if text == "none":
        return None
    m = re.fullmatch(r"\+?((?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?)\s*([a-z]*)", text)
    value = float(m.group(1)) * units[m.group(2)] if m and m.group(2) in units else math.nan
    if not (math.isfinite(value) and value >= smallest):
        raise UsageError(f"{option} must be a {what} of at least {smallest_text}, or none; got {raw!r}")
    return value


def parse_duration(raw: str) -> float | None:
    """--cell-time's value in seconds (None: no limit); UsageError when malformed."""
    return _parse("--cell-time", raw, _UNITS_S, "duration (seconds, or with ms, s, m, h)", 1e-3, "1 ms")


def parse_size(raw: str) -> float | None:
    """--cell-memory's value in bytes (None: no ceiling); UsageError when malformed."""
    return _parse("--cell-memory", raw, _UNITS_B, "size (bytes, or with K, M, G, T)", 2.0 ** 20, "1 MiB")


def _largest_estimate(cost: dict) -> float | None:
    """The largest per-task estimate of a plan (plan_cost's ``largest_s``) when every task to compute has a
    measured or scaled estimate, or the reference run's with a host factor (plan_cost's ``estimated_tasks``), else
    None."""
    t = cost["total"]
    return t.get("largest_s") if t["to_compute"] and t.get("estimated_tasks") == t["to_compute"] else None


def cell_limits(time_arg: str | None, memory_arg: str | None, cost: dict, workers: int,
                remote: bool = False, hard_exit: bool = False) -> tuple[CellLimits, str]:
    """The run's limits and the line that states them (``cost``: plan_cost's result; ``remote``: a cluster
    elsewhere, whose memory is not this machine's; ``hard_exit``: the cells run in the process pool's workers)."""
    if time_arg is not None:
        seconds, why_t = parse_duration(time_arg), "--cell-time"
    elif (largest := _largest_estimate(cost)) is not None and DEFAULT_FACTOR * largest <= MAX_SECONDS:
        seconds = max(DEFAULT_FLOOR_S, DEFAULT_FACTOR * largest)
        why_t = f"{DEFAULT_FACTOR:g}x the largest estimate of one cell, at least {DEFAULT_FLOOR_S:g} s"
    elif not cost["total"]["to_compute"]:
        seconds, why_t = None, "nothing to compute"
    elif largest is not None:
        seconds, why_t = None, f"{DEFAULT_FACTOR:g}x the largest estimate is past {MAX_SECONDS:g} s; set --cell-time"
    else:
        seconds, why_t = None, "some cells have no measured, scaled or host-scaled reference estimate; set --cell-time"
    if memory_arg is not None:
        memory, why_m = parse_size(memory_arg), "--cell-memory"
    elif remote:
        memory, why_m = None, "a remote cluster's memory is not this machine's; set --cell-memory"
    else:
        memory = machine_memory() / max(1, workers)
        memory = None if math.isinf(memory) else memory
        why_m = f"this machine's memory over {workers} worker{'s' * (workers > 1)}"
    t_text = "no time limit" if seconds is None else f"{seconds:g} s of compute"
    m_text = "no memory ceiling" if memory is None else f"{human_bytes(memory)} of resident memory"
    return CellLimits(seconds, memory, hard_exit), f"per-cell limits: {t_text} ({why_t}); {m_text} ({why_m})"
