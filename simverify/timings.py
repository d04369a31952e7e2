"""What cells cost: compute seconds of one task by sweep and cell parameters.

A store keeps the timings of the cells it computed (``timings.json``, written by ``check``); the slim reference
reports keep their run's (``reports/<tier>/timings.json``), so that a tier this store never ran is priced by what
the reference run measured, times this host's speed against the reference host's (``host_factor``: the median
ratio over the cells both have timed, the quick tier's after a quick run)."""
from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

from .store import read_json_or

TIMINGS = "timings.json"  # in a store or a reference report: per sweep, cell parameters -> seconds of one task
MAX_SECONDS = 1e9  # about 32 years: a timing or estimate past it is damage, not a measurement
MAX_WORK = 1e30  # operations: past it a declared or recorded work is damage (no cell does 1e30 operations)
HOST_FACTOR_FROM_S = 0.05  # cells timed under this on either host do not enter the host factor (fixed costs)
HOST_FACTOR_CELLS = 5  # the fewest cells timed on both hosts that give a host factor
HOST_FACTOR_RANGE = (0.01, 100.0)  # a factor outside is damage or another kind of machine, not a host's speed

Timings = dict[str, dict[str, tuple[float, float | None, str | None]]]


def as_float(v) -> float:
    """A JSON number as a float, NaN when it is not one (a bool, or an integer too large for a float)."""
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return math.nan
    try:
        return float(v)
    except OverflowError:
        return math.nan


def seconds_ok(v) -> bool:
    """A task's seconds as a timings file may hold them: a number in [0, MAX_SECONDS]."""
    return 0 <= as_float(v) <= MAX_SECONDS  # False for NaN


def work_ok(w) -> bool:
    """A declared work as a timings file may hold it: a number in (0, MAX_WORK]."""
    return 0 < as_float(w) <= MAX_WORK


def read_timings_file(path: str | Path) -> Timings:
    """A timings file, well-formed entries only: per sweep, cell key -> (finite seconds >= 0 of one task, its
    declared work or None, the work's basis or None). An entry is a number (seconds) or {"seconds": s, "work": w,
    "basis": b}. A damaged file costs estimates, never a run."""
    out: Timings = {}
    for name, t in read_json_or(path, {}).items():
        if not (isinstance(name, str) and isinstance(t, dict)):
            continue
        entries = {}
        for k, v in t.items():
            if isinstance(v, dict):
                seconds, work, basis = v.get("seconds"), v.get("work"), v.get("basis")
                work = float(work) if work_ok(work) else None
                basis = basis if isinstance(basis, str) and work is not None else None
            else:
                seconds, work, basis = v, None, None
            if isinstance(k, str) and seconds_ok(seconds):
                entries[k] = (abs(float(seconds)), work, basis)  # -0.0 read as 0.0
        out[name] = entries
    return out


def file_entry(seconds: float, work: float | None, basis: str | None):
    """One entry as a timings file holds it: the seconds alone, or with the declared work and its basis."""
    return seconds if work is None else {"seconds": seconds, "work": work, "basis": basis}


def timings_text(timings: Timings) -> str:
    """The timings file's text (sorted keys: the same timings give the same bytes)."""
    return json.dumps({name: {k: file_entry(*v) for k, v in t.items()} for name, t in timings.items()},
                      sort_keys=True)


def merged(*timings: Timings) -> Timings:
    """One timings map of several (the later's entry where two time the same cell)."""
    out: Timings = {}
    for t in timings:
        for name, entries in t.items():
            out.setdefault(name, {}).update(entries)
    return out


def host_factor(own: Timings, reference: Timings) -> tuple[float | None, int]:
    """(this host's seconds over the reference host's, the median over the cells both timed at
    HOST_FACTOR_FROM_S or more; the number of such cells). The factor is None under HOST_FACTOR_CELLS cells or
    outside HOST_FACTOR_RANGE."""
    ratios = [own[name][k][0] / reference[name][k][0]
              for name in own.keys() & reference.keys() for k in own[name].keys() & reference[name].keys()
              if min(own[name][k][0], reference[name][k][0]) >= HOST_FACTOR_FROM_S]
    factor = statistics.median(ratios) if len(ratios) >= HOST_FACTOR_CELLS else math.nan
    return (factor, len(ratios)) if HOST_FACTOR_RANGE[0] <= factor <= HOST_FACTOR_RANGE[1] else (None, len(ratios))


def checkout_reports(package_dir: Path, cwd: Path, tiers: tuple[str, ...]) -> Path | None:
    """``reports/`` of the source checkout holding this package (an editable install), else of the current
    directory when it is a simverify checkout (a clone installed with ``pip install .``), provided it holds a
    reference's ``<tier>/timings.json`` of one of ``tiers``; None elsewhere."""
    for top in (package_dir.parent, cwd):
        reports = top / "reports"
        if (top / "simverify" / "__init__.py").is_file() and any((reports / t / TIMINGS).is_file() for t in tiers):
            return reports
    return None


def reference_timings(reports: Path | None, tiers: tuple[str, ...]) -> Timings:
    """The reference runs' timings under ``reports`` (``reports/<tier>/timings.json`` of each of ``tiers``), merged:
    where two time the same cell, the later tier's entry (the planned tier last); {} when there are none."""
    if reports is None:
        return {}
    return merged(*(read_timings_file(reports / tier / TIMINGS) for tier in tiers))
