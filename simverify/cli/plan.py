"""`check --plan` and `--lf`: cost estimates from the timings a store keeps, and the ids last not as expected."""
from __future__ import annotations

import hashlib
import inspect
import json
import math
from functools import cache
from pathlib import Path

from .. import keys
from ..claims import TIERS
from ..findings import as_expected
from ..stats import format_seconds
from ..store import Store, atomic_write, read_json_or
from ..timings import (
    HOST_FACTOR_CELLS,
    HOST_FACTOR_RANGE,
    MAX_SECONDS,
    TIMINGS,
    Timings,
    checkout_reports,
    host_factor,
    read_timings_file,
    reference_timings,
    timings_text,
    work_ok,
)

LAST_FAILED = "lastfailed.json"  # in the store: per tier, the ids not as expected when last checked


def read_timings(store: Store) -> Timings:
    """The store's timings (``timings.read_timings_file``)."""
    return read_timings_file(store.root / TIMINGS)


@cache
def _source_digest(path: str) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]
    except OSError:
        return "unreadable"


def _declaration(claim):
    """The function that declares a task's work: the sweep's ``work``, else the paper's footprint (whose result's
    ``work`` it is), else None."""
    return claim.sweep.work if claim.sweep.work is not None else claim.footprint


def work_basis(claim) -> str | None:
    """What a claim's declared work is counted in: the declaring function's name and a digest of its module's source.
    A timing recorded under another basis is never scaled by this one (its work may be in other units)."""
    fn = _declaration(claim)
    if fn is None:
        return None
    try:
        source = inspect.getsourcefile(fn)
    except TypeError:
        source = None
    name = f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', '?')}"
    return f"{name}:{_source_digest(source) if source else 'no-source'}"


def task_work(claim, params: dict) -> float | None:
    """The declared work of one task of ``claim`` at ``params`` (its sweep's ``work``, else its paper's footprint),
    or None where nothing is declared or the declaration fails on these parameters."""
    fn = _declaration(claim)
    if fn is None:
        return None
    try:
        work = fn(params)
        work = work.work if fn is claim.footprint else work
    except Exception:  # an estimate only: a declaration that cannot price these parameters prices nothing
        return None
    return float(work) if work_ok(work) else None


def read_last_failed(store: Store) -> dict[str, list[str]]:
    """Per tier, the ids last not as expected; entries of the wrong shape are dropped."""
    raw = read_json_or(store.root / LAST_FAILED, {})
    return {tier: [i for i in ids if isinstance(i, str)] for tier, ids in raw.items()
            if isinstance(tier, str) and isinstance(ids, list)}


def _params_key(task) -> str:
    return keys.digest(task.params, 8)


def save_timings(store: Store, cells: list, work: dict[str, tuple[float | None, str | None]] | None = None) -> None:
    """Merge the compute seconds of this run's (task, seconds) into the store's timings: per sweep and cell
    parameters, the mean seconds of one task (replicate) as last measured, with the task's declared work and its
    basis where ``work`` (task key -> (work, basis)) has them (what --plan scales to cells never timed)."""
    if not cells:
        return
    seen: dict[str, dict[str, list[float]]] = {}
    work_of: dict[tuple[str, str], tuple[float | None, str | None]] = {}
    for task, seconds in cells:
        k = _params_key(task)
        seen.setdefault(task.sweep, {}).setdefault(k, []).append(seconds)
        work_of[task.sweep, k] = (work or {}).get(task.key, (None, None))
    timings = read_timings(store)
    for name, by_params in seen.items():
        entry = timings.setdefault(name, {})
        for k, v in by_params.items():
            entry[k] = (round(sum(v) / len(v), 6), *work_of[name, k])
    text = timings_text(timings)
    atomic_write(store.root / TIMINGS, lambda tmp: Path(tmp).write_text(text))


def save_last_failed(store: Store, tier: str, records: list[dict], stopped: set[str] = frozenset()) -> None:
    """Per run setting (``tier``: a ``run_setting`` key), the ids not as expected when last checked: this
    run's unexpected ids and the ``stopped`` ones (not run: a limit stopped a cell they need) are added, its
    expected ones removed, ids it did not run otherwise kept."""
    path = store.root / LAST_FAILED
    last = read_last_failed(store)
    ids = set(last.get(tier, []))
    ids -= {r["id"] for r in records if as_expected(r)}
    ids |= {r["id"] for r in records if not as_expected(r)} | set(stopped)
    last[tier] = sorted(ids)
    text = json.dumps(last, indent=1, sort_keys=True)
    atomic_write(path, lambda tmp: Path(tmp).write_text(text + "\n"))


def run_setting(tier: str, seed: int = 0, replicates: int | None = None, overrides: dict | None = None) -> str:
    """The key --lf remembers a run under: its tier, and its seed, replicates and --set values where not the
    defaults (a run at another seed or size does not forget or replace the failures of the default run)."""
    parts = [tier] + ([f"seed={seed}"] if seed else []) + ([f"replicates={replicates}"] if replicates else [])
    return " ".join(parts + [f"{k}={json.dumps(v, sort_keys=True)}" for k, v in sorted((overrides or {}).items())])


def last_failed(store: Store, tier: str) -> set[str]:
    return set(read_last_failed(store).get(tier, []))


def plan_work(plans: list) -> dict[str, tuple[float | None, str | None]]:
    """Task key -> (its declared work (``task_work``), the work's basis (``work_basis``)), for every task of
    ``plans``."""
    out: dict[str, tuple[float | None, str | None]] = {}
    for p in plans:
        basis = work_basis(p.claim)
        by_params: dict[str, float | None] = {}
        for t in p.tasks:
            if t.key not in out:
                pk = _params_key(t)
                if pk not in by_params:
                    by_params[pk] = task_work(p.claim, t.params)
                out[t.key] = (by_params[pk], basis if by_params[pk] is not None else None)
    return out


def _scaled(entries: dict[str, tuple[float, float | None, str | None]], work: float | None,
            basis: str | None) -> float | None:
    """Seconds of a task of declared ``work``: the timed cells of its sweep, with work of the same ``basis``,
    nearest in log work (their mean, when several declare the same work), times the work ratio (None when the task
    or no such timed cell declares work)."""
    if work is None:
        return None
    timed = []
    for s, w, b in entries.values():
        ratio = work / w if w and b == basis else math.nan
        if math.isfinite(ratio) and ratio > 0 and s * ratio <= MAX_SECONDS:  # damaged or extreme entries price nothing
            timed.append((abs(math.log(ratio)), s * ratio))
    if not timed:
        return None
    nearest = min(d for d, _ in timed)
    ties = [est for d, est in timed if d == nearest]
    return sum(ties) / len(ties)


def reference_run_timings(tier: str) -> Timings:
    """The committed reference runs' timings (``reports/<tier>/timings.json`` of every tier, ``tier``'s winning
    where both time a cell) of the checkout this simverify runs from or the current directory is; {} outside one."""
    tiers = (*(t for t in TIERS if t != tier), tier)
    return reference_timings(checkout_reports(Path(__file__).resolve().parents[1], Path.cwd(), tiers), tiers)


def plan_cost(plans: list, store: Store, work: dict[str, tuple[float | None, str | None]] | None = None,
              reference: Timings | None = None) -> dict:
    """What a run would compute, before any work: per claim its cells, tasks (cells x replicates), those the
    store holds (no cost), and the estimated compute seconds of the others: "measured" from the store's timings
    of the same sweep and cell parameters, else "reference" (``reference``'s timing of that cell, a reference
    run's, times ``timings.host_factor``, 1 when there is none), else "scaled" (a timed cell of the sweep times the
    ratio of declared work: ``Sweep.work`` or the paper's footprint), else "crude" (the sweep's mean task time,
    else the most seconds per task of the claim's stored verdict records), else "unknown"."""
    timings = read_timings(store)
    reference = reference or {}
    factor, factor_cells = host_factor(timings, reference)
    # the bases that price a cell of its own (not "crude"), and so may set the default per-cell time limit: a
    # reference run's time only when this host's factor is known
    estimated = ("measured", "scaled") + (("reference",) if factor is not None else ())
    means = {name: sum(e[0] for e in t.values()) / len(t) for name, t in timings.items() if t}
    work = plan_work(plans) if work is None else work
    seen: dict[str, tuple[bool, float | None, str]] = {}  # key -> (stored, seconds, basis)
    recorded: dict[str, float] | None = None

    def estimate(task, claim_id: str) -> tuple[float | None, str]:
        nonlocal recorded
        entries = timings.get(task.sweep) or {}
        measured = entries.get(_params_key(task))
        if measured is not None:
            return measured[0], "measured"
        timed = (reference.get(task.sweep) or {}).get(_params_key(task))
        if timed is not None and timed[0] * (factor or 1.0) <= MAX_SECONDS:
            return timed[0] * (factor or 1.0), "reference"
        scaled = _scaled(entries, *work[task.key])
        if scaled is not None:
            return scaled, "scaled"
        if task.sweep in means:
            return means[task.sweep], "crude"
        if recorded is None:
            recorded = _seconds_per_task_recorded(store)
        return (recorded[claim_id], "crude") if claim_id in recorded else (None, "unknown")

    def cost(task, claim_id: str):
        if task.key not in seen:
            if store.cell_path(task.key).exists():
                seen[task.key] = (True, 0.0, "stored")
            else:
                seen[task.key] = (False, *estimate(task, claim_id))
        return seen[task.key]

    rows = []
    for p in plans:
        keys = dict.fromkeys(t.key for t in p.tasks)
        tasks = {t.key: t for t in p.tasks}
        costs = [cost(tasks[k], p.claim.id) for k in keys]
        bases = {basis for stored, _, basis in costs if not stored}
        rows.append({"id": p.claim.id, "paper": p.claim.paper, "sweep": p.claim.sweep.name, "cells": p.n_cells,
                     "replicates": p.replicates, "tasks": len(keys),
                     "stored": sum(stored for stored, _, _ in costs),
                     "to_compute": sum(not stored for stored, _, _ in costs),
                     "seconds": sum(s for stored, s, _ in costs if not stored and s is not None),
                     "unknown_tasks": sum(s is None for _, s, _ in costs),
                     "basis": "stored" if not bases else bases.pop() if len(bases) == 1 else "mixed"})
    total = {"checks": len(plans), "tasks": len(seen), "stored": sum(v[0] for v in seen.values()),
             "to_compute": sum(not v[0] for v in seen.values()),
             "measured_s": sum(v[1] for v in seen.values() if v[2] == "measured"),
             "reference_s": sum(v[1] for v in seen.values() if v[2] == "reference"),
             "reference_tasks": sum(v[2] == "reference" for v in seen.values()),
             "host_factor": factor, "host_factor_cells": factor_cells,
             "scaled_s": sum(v[1] for v in seen.values() if v[2] == "scaled"),
             "crude_s": sum(v[1] for v in seen.values() if v[2] == "crude"),
             "unknown_tasks": sum(v[2] == "unknown" for v in seen.values()),
             "estimated_tasks": sum(v[2] in estimated for v in seen.values()),
             "largest_s": max((v[1] for v in seen.values() if v[2] in estimated), default=None)}
    return {"claims": rows, "total": total}


def _seconds_per_task_recorded(store: Store) -> dict[str, float]:
    """Claim id -> the most compute seconds per task its stored verdict records show (``elapsed_s`` over
    cells x replicates; a run from stored cells shows less, hence the most)."""
    out: dict[str, float] = {}
    records, _ = store.read_results()
    for _, r in records:
        try:
            per_task = float(r["elapsed_s"]) / (int(r["n_cells"]) * int(r["replicates"]))
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            continue
        if per_task > out.get(r["id"], 0.0):
            out[r["id"]] = per_task
    return out


def _factor_text(total: dict, tier: str) -> str:
    """How the reference run's times were scaled to this host (``timings.host_factor``)."""
    if total["host_factor"] is not None:
        cells = total["host_factor_cells"]
        return f"x {total['host_factor']:.3g}, this host against the reference's over {cells} cells"
    why = (f"as measured there: no host factor from {total['host_factor_cells']} cells timed on both hosts (fewer than "
           f"{HOST_FACTOR_CELLS}, or a ratio past {HOST_FACTOR_RANGE[0]:g}-{HOST_FACTOR_RANGE[1]:g})")
    return why + ("" if tier == "quick" else "; run the quick tier first")


def print_plan(cost: dict, tier: str, workers: int, id_width: int, limits_line: str = "") -> None:
    basis_text = {"stored": "all stored", "measured": "measured",
                  "reference": "the reference run's time x this host's factor",
                  "scaled": "scaled: a timed cell x the work ratio",
                  "crude": "crude: other cells' or runs' times",
                  "unknown": "unknown: no timing of this sweep in the store",
                  "mixed": "measured, reference, scaled, crude or unknown"}
    for r in cost["claims"]:
        if r["to_compute"] == 0:
            est = "0 s"
        elif r["unknown_tasks"] == r["to_compute"]:
            est = "?"
        else:
            est = ("~" if r["basis"] != "measured" else "") + format_seconds(r["seconds"])
            if r["unknown_tasks"]:
                est = f">= {est} ({r['unknown_tasks']} tasks unknown)"
        print(f"{r['id']:<{id_width}} {r['cells']:>6} cells x {r['replicates']:<4} {r['tasks']:>7} tasks, "
              f"{r['stored']:>7} stored, {r['to_compute']:>7} to compute  {est:<12} ({basis_text[r['basis']]})")
    t = cost["total"]
    known = t["measured_s"] + t["reference_s"] + t["scaled_s"] + t["crude_s"]
    line = (f"plan: {t['checks']} check{'s' * (t['checks'] != 1)}, tier {tier}: {t['tasks']} distinct tasks "
            f"(cells x replicates), {t['stored']} stored, "
            f"{t['to_compute']} to compute; estimated compute {format_seconds(t['measured_s'])} measured")
    if t["reference_tasks"]:
        line += f" + {format_seconds(t['reference_s'])} from the reference run ({_factor_text(t, tier)})"
    if t["scaled_s"]:
        line += f" + {format_seconds(t['scaled_s'])} scaled"
    if t["crude_s"]:
        line += f" + {format_seconds(t['crude_s'])} crude"
    if t["unknown_tasks"]:
        line += f" + {t['unknown_tasks']} tasks of unknown cost"
    if t["to_compute"] > t["unknown_tasks"]:
        line += (f"; {'at least' if t['unknown_tasks'] else 'about'} {format_seconds(known / max(1, workers))} of wall "
                 f"on {workers} worker{'s' * (workers > 1)}")
    print(line)
    if t["crude_s"]:  # e.g. the full tier's cells priced at the quick tier's times: the papers' sizes cost far more
        print("note: crude estimates price a cell at other cells' times of its sweep (another tier's, smaller sizes); "
              "at larger sizes they can be orders of magnitude low")
    if limits_line:
        print(limits_line)
    print("nothing was run or written (--plan)")
