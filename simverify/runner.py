"""Run a set of claims together: plan (validate all first), simulate through the cache,
evaluate each law at the Bonferroni-shared level, store datasets and verdict records."""
from __future__ import annotations

import math
import time
from datetime import UTC, datetime
from pathlib import Path
from statistics import NormalDist

import numpy as np

from . import findings, keys, registry, stats, sweep
from .assemble import assemble
from .claims import Claim
from .declaration import declaration_digest
from .limits import CellFailure, CellLimits
from .provenance import provenance
from .record import RECORD_VERSION, VerdictRecord
from .store import Store

DEFAULT_ALPHA = 0.01  # family-wise false-fail budget of one `simverify check` run


def run_info(plan: sweep.Plan, alpha: float, checks: int, replicates: int | None, started: str) -> dict:
    """What identifies a run (everything that can change a verdict) and when it started."""
    return {"tier": plan.tier, "seed": plan.root_seed, "replicates": replicates,
            "overrides": keys.normalize(dict(plan.overrides), "overrides"), "alpha": alpha, "checks": checks,
            "started": started}


def run_key(run: dict) -> str:
    """12 hex digits naming a run: its run_info without the start time."""
    return keys.digest({k: v for k, v in run.items() if k != "started"}, 6)


def record_for(claim: Claim, result, plan: sweep.Plan, level: float, elapsed: float, path,
               overrides: dict | None = None, run: dict | None = None, root: Path | None = None,
               table: dict | None = None) -> VerdictRecord:
    """The verdict record (the JSON contract of ``check --json``); ``path`` is the stored Dataset or None,
    ``root`` the store root it lies under, ``run`` the run_info, ``table`` the claim's printed table
    rendered on its Dataset."""
    band = result.band
    run = run or run_info(plan, DEFAULT_ALPHA, 1, None, _now())
    return {
        "record_version": RECORD_VERSION,
        "id": claim.id, "paper": claim.paper, "item": claim.item, "statement": claim.statement,
        "formula": claim.formula, "law": claim.law.kind, "law_digest": declaration_digest(claim.law),
        "order": registry.position(claim.id), "verdict": result.verdict, "expected": claim.expected,
        "estimate": result.estimate, "ci": [float(result.ci[0]), float(result.ci[1])], "claimed": result.claimed,
        "band": [float(band[0]), float(band[1])],
        "scale": result.scale,  # "log": a ratio; calibrate projects misses in logs, where the edge 0 is -inf
        "n_cells": plan.n_cells, "replicates": plan.replicates,
        "elapsed_s": round(elapsed, 3), "store": str(Path(path).resolve()) if path is not None else None,
        "tier": plan.tier, "seed": plan.root_seed, "overrides": dict(overrides or {}), "confidence_level": level,
        "outcome": findings.outcome(result.verdict, claim.law.kind, claim.finding and claim.finding.kind,
                                    claim.control_of is not None),
        "finding": claim.finding.as_record() if claim.finding is not None else None,
        "erratum": claim.erratum, "control_of": claim.control_of, "advice": result.advice,
        "citation": registry.citation(claim.paper),
        "detail": result.detail, "finished": _now(),
        "run": run, "run_key": run_key(run), "provenance": provenance(),
        "dataset": (Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
                    if path is not None and root is not None else None),
        "table": table, "tier_sizes": _tier_sizes(claim),
    }


def _tier_sizes(claim: Claim) -> dict | None:
    """The claim's Sweep.tier_sizes, None when it cannot be told (a page's line never stops a run)."""
    try:
        return claim.sweep.tier_sizes()
    except Exception:
        return None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def check_alpha(alpha: float, checks: int = 1) -> None:
    """Raise ValueError unless the family-wise budget lies in (0, 1) and its share per check (alpha / checks)
    leaves a confidence level below 1 in floating point."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    if alpha / max(checks, 1) < 1e-12:
        share = alpha / max(checks, 1)
        raise ValueError(f"alpha {alpha:g} over {checks} checks leaves each a level of 1 - {share:.1e}: use alpha / "
                         "checks >= 1e-12")


def plan_all(claims: list[Claim], tier: str, *, root_seed: int = 0, replicates: int | None = None,
             overrides: dict | None = None, ceiling: bool = True) -> list[sweep.Plan]:
    """Plan every claim (validating all parameters and sizes, see ``sweep.plan``) before any work; raises
    ValueError or TypeError."""
    return [sweep.plan(c, tier, replicates=replicates, root_seed=root_seed, overrides=overrides, ceiling=ceiling)
            for c in claims]


def check(claims: list[Claim], tier: str, store: Store, executor, *, root_seed: int = 0,
          replicates: int | None = None, overrides: dict | None = None, alpha: float = DEFAULT_ALPHA,
          progress=None, plans: list[sweep.Plan] | None = None, save: bool = True, on_record=None,
          stop=None, on_cell=None, limits: CellLimits | None = None, on_failure=None) -> list[dict]:
    """Check ``claims`` together; returns one record per claim in the given order.

    ``plans``: this call's ``plan_all`` result when the caller validated the run first (else planned here).
    ``save=False`` keeps cells in the store but writes no Dataset and no verdict record (calibration).
    ``on_record(record)``: called with each claim's record as soon as its last cell is done and it is
    evaluated (and stored), in completion order, while workers go on.
    ``stop(record) -> bool``: after on_record; when true, no further cell is waited for (the executor's queued
    cells are cancelled) and the records evaluated so far are returned (in the given order, the others left out).
    ``on_cell(task, seconds)``: for each cell this run computed (not for cells read from the store).
    ``limits``: per-cell limits (simverify.limits); a cell they stop is not stored, the claims using it are not
    evaluated (left out of the records) and ``on_failure(task, failure, claim_ids)`` is called.
    """
    check_alpha(alpha, len(claims))
    if limits is not None and not isinstance(limits, CellLimits):
        raise TypeError(f"limits must be a CellLimits or None, got {type(limits).__name__}")
    if plans is None:
        plans = plan_all(claims, tier, root_seed=root_seed, replicates=replicates, overrides=overrides)
    level = stats.bonferroni(1.0 - alpha, len(claims))
    started = _now()
    runs = [run_info(p, alpha, len(claims), replicates, started) for p in plans]
    keys = [{t.key for t in p.tasks} for p in plans]
    owners: dict[str, list[int]] = {}
    for i, plan_keys in enumerate(keys):
        for key in plan_keys:
            owners.setdefault(key, []).append(i)
    missing = [len(k) for k in keys]
    compute = [0.0] * len(plans)
    results, records = {}, [None] * len(plans)
    tasks = [t for p in plans for t in p.tasks]
    by_key = {t.key: t for t in tasks} if on_cell or on_failure else {}
    stream = sweep.iter_results(tasks, store, executor, progress, limits)
    failed: set[int] = set()  # plans with a cell a limit stopped: not evaluated
    try:
        # a claim is evaluated and stored as soon as its last cell arrives, while workers go on
        for key, out, seconds in stream:
            if isinstance(out, CellFailure):
                failed.update(owners[key])
                if on_failure:
                    on_failure(by_key[key], out, [plans[i].claim.id for i in owners[key]])
            else:
                results[key] = out
            if on_cell and seconds > 0 and not isinstance(out, CellFailure):  # stored cells come with 0 s
                on_cell(by_key[key], seconds)
            for i in owners[key]:
                compute[i] += seconds
                missing[i] -= 1
                if missing[i] == 0 and i not in failed:
                    records[i] = _evaluate(claims[i], plans[i], results, store if save else None, level,
                                           compute[i], overrides, runs[i])
                    if on_record:
                        on_record(records[i])
                    if stop and stop(records[i]):
                        return [r for r in records if r is not None]
    finally:
        stream.close()  # when stopped: the executor's iterator cancels the cells still queued
    return [r for r in records if r is not None] if failed else records


def _evaluate(claim: Claim, plan: sweep.Plan, results: dict, store: Store | None, level: float, compute: float,
              overrides: dict | None, run: dict) -> VerdictRecord:
    """Assemble, judge and (with a store) save one claim. elapsed_s = compute seconds of the cells this
    run simulated for it (shared cells count for every claim using them) + its evaluation."""
    t0 = time.perf_counter()
    ds = assemble(plan, results)
    result = claim.law.evaluate(ds, level)
    path = store.save_dataset(ds, claim.id, plan.tier, plan.digest) if store is not None else None
    table = claim.table.render(ds) if claim.table is not None else None
    rec = record_for(claim, result, plan, level, compute + time.perf_counter() - t0, path, overrides, run,
                     store.root if store is not None else None, table)
    if store is not None:
        store.save_result(rec)
    return rec


MISS_GOAL = 0.002  # the project's goal: every check as expected at >= 99.8% of root seeds


def _prob_between(a: float, b: float, mu: float, sd: float) -> float:
    """P(a <= X <= b) for X ~ Normal(mu, sd); a = -inf or b = inf drop that edge; sd = 0 is a point mass."""
    if not a <= b:
        return 0.0
    if sd == 0:
        return float(a <= mu <= b)
    dist = NormalDist(mu, sd)
    return (1.0 if b == math.inf else dist.cdf(b)) - (0.0 if a == -math.inf else dist.cdf(a))


def projected_miss(expected: str, band, estimates, cis, scale: str = "linear") -> float:
    """Projected probability that one run's verdict misses ``expected``, from the estimates (N,) and
    intervals (N, 2) seen at N root seeds: the estimate is taken Normal(mu, sd) across seeds and the
    interval estimate +- h, h the mean half-width. CONFIRMED needs the interval inside the band
    [L, U]: miss = 1 - P(L + h <= est <= U - h); REFUTED needs it outside: miss = P(L - h <= est <= U + h).
    NaN for an INCONCLUSIVE expectation, a law without a band, fewer than 2 seeds or a non-finite estimate.
    ``scale="log"``: estimates, intervals and band are ratios, projected on the log scale."""
    est, ci = np.asarray(estimates, dtype=float), np.asarray(cis, dtype=float).reshape(-1, 2)
    lo, hi = (float(b) for b in band)
    if scale == "log":
        with np.errstate(divide="ignore", invalid="ignore"):
            est, ci = np.log(est), np.log(ci)
            lo, hi = (float(np.log(b)) if b > 0 else (-math.inf if b == 0 else math.nan) for b in (lo, hi))
    if (expected not in (stats.CONFIRMED, stats.REFUTED) or math.isnan(lo) or math.isnan(hi) or est.size < 2
            or not (np.isfinite(est).all() and np.isfinite(ci).all())):
        return math.nan
    mu, sd, h = float(est.mean()), float(est.std(ddof=1)), float(np.mean((ci[:, 1] - ci[:, 0]) / 2))
    if expected == stats.CONFIRMED:
        return 1.0 - _prob_between(lo + h, hi - h, mu, sd)
    return _prob_between(lo - h, hi + h, mu, sd)


def calibration_row(records: list[dict]) -> dict:
    """One check's calibration summary from its records at N root seeds (see projected_miss)."""
    first, runs = records[0], len(records)
    misses = sum(r["verdict"] != r["expected"] for r in records)
    cp = stats.clopper_pearson(misses, runs, 0.95)
    est = [r["estimate"] for r in records]
    projected = (misses / runs if first["expected"] == stats.INCONCLUSIVE
                 else projected_miss(first["expected"], first["band"], est, [r["ci"] for r in records],
                                     first.get("scale", "linear")))
    return {"id": first["id"], "order": first.get("order"), "expected": first["expected"], "misses": misses,
            "runs": runs, "rate": misses / runs,
            "rate_ci95": [cp.lo, cp.hi], "band": first["band"], "estimate_mean": float(np.mean(est)),
            "estimate_sd": float(np.std(est, ddof=1)) if runs > 1 else math.nan,
            "projected_miss": projected, "over_goal": bool(projected > MISS_GOAL)}


def calibrate(claims: list[Claim], tier: str, store: Store, executor, *, root_seed: int = 0, seeds: int = 20,
              replicates: int | None = None, overrides: dict | None = None, alpha: float = DEFAULT_ALPHA,
              plans: list[sweep.Plan] | None = None, progress=None) -> list[dict]:
    """Check ``claims`` together (as ``check`` does, same level) at root seeds root_seed .. root_seed+seeds-1;
    one calibration_row per claim (with_power), also merged into the store's calibration of ``tier`` with the
    run's tier, seeds, root seed, alpha, date and provenance (Store.save_calibration). Cells are cached in the
    store; no Dataset or verdict record is saved.
    ``plans``: plan_all's result at ``root_seed``; ``progress(done, seeds)`` after each seed."""
    runs: list[list[dict]] = [[] for _ in claims]
    for s in range(seeds):
        recs = check(claims, tier, store, executor, root_seed=root_seed + s, replicates=replicates,
                     overrides=overrides, alpha=alpha, plans=plans if s == 0 else None, save=False)
        for i, rec in enumerate(recs):
            runs[i].append(rec)
        if progress:
            progress(s + 1, seeds)
    rows = with_power([calibration_row(r) for r in runs], runs)
    prov = provenance()
    store.save_calibration(tier, rows, {"tier": tier, "seeds": seeds, "root_seed": root_seed, "alpha": alpha,
                                        "checks": len(claims), "date": prov["date"],
                                        "git_commit": prov["git_commit"], "provenance": prov})
    return rows


def with_power(rows: list[dict], runs: list[list[dict]]) -> list[dict]:
    """Each claim's row gains its power against its negative control(s) in the same calibration: the
    fraction of root seeds at which the control came out as expected (the least of several controls),
    with its 95% Clopper-Pearson interval; None when no control of it was run."""
    power: dict[str, tuple[int, int]] = {}
    for recs in runs:
        parent = recs[0].get("control_of")
        if parent:
            hits = sum(r["verdict"] == r["expected"] for r in recs)
            if parent not in power or hits / len(recs) < power[parent][0] / power[parent][1]:
                power[parent] = (hits, len(recs))
    for row in rows:
        hits, n = power.get(row["id"], (None, None))
        cp = stats.clopper_pearson(hits, n, 0.95) if n else None
        row["power"] = hits / n if n else None
        row["power_ci95"] = [cp.lo, cp.hi] if cp else None
    return rows
