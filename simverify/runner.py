"""Run a set of claims together: plan (validate all first), simulate through the cache,
evaluate each law at the Bonferroni-shared level, store datasets and verdict records."""
from __future__ import annotations

import time
from datetime import datetime, timezone

from . import stats, sweep
from .claims import Claim
from .store import Store

DEFAULT_ALPHA = 0.01  # family-wise false-fail budget of one `simverify check` run


def record_for(claim: Claim, result, plan: sweep.Plan, level: float, elapsed: float, path) -> dict:
    """The verdict record (the JSON contract of ``check --json``)."""
    return {
        "id": claim.id, "paper": claim.paper, "item": claim.item, "statement": claim.statement,
        "formula": claim.formula, "law": claim.law.kind, "verdict": result.verdict, "expected": claim.expected,
        "estimate": result.estimate, "ci": [float(result.ci[0]), float(result.ci[1])], "claimed": result.claimed,
        "n_cells": plan.n_cells, "replicates": plan.replicates, "elapsed_s": round(elapsed, 3),
        "store": str(path), "tier": plan.tier, "seed": plan.root_seed, "confidence_level": level,
        "erratum": claim.erratum, "control_of": claim.control_of, "advice": result.advice,
        "detail": result.detail, "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }


def check(claims: list[Claim], tier: str, store: Store, executor, *, root_seed: int = 0,
          replicates: int | None = None, overrides: dict | None = None, alpha: float = DEFAULT_ALPHA,
          progress=None) -> list[dict]:
    """Check ``claims`` together; returns one record per claim in the given order."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    plans = [sweep.plan(c, tier, replicates=replicates, root_seed=root_seed, overrides=overrides) for c in claims]
    level = stats.bonferroni(1.0 - alpha, len(claims))
    keys = [{t.key for t in p.tasks} for p in plans]
    owners: dict[str, list[int]] = {}
    for i, plan_keys in enumerate(keys):
        for key in plan_keys:
            owners.setdefault(key, []).append(i)
    missing = [len(k) for k in keys]
    compute = [0.0] * len(plans)
    results, records = {}, [None] * len(plans)
    tasks = [t for p in plans for t in p.tasks]
    # a claim is evaluated and stored as soon as its last cell arrives, while workers go on
    for key, out, seconds in sweep.iter_results(tasks, store, executor, progress):
        results[key] = out
        for i in owners[key]:
            compute[i] += seconds
            missing[i] -= 1
            if missing[i] == 0:
                records[i] = _evaluate(claims[i], plans[i], results, store, level, compute[i])
    return records


def _evaluate(claim: Claim, plan: sweep.Plan, results: dict, store: Store, level: float, compute: float) -> dict:
    """Assemble, judge and store one claim. elapsed_s = compute seconds of the cells this run
    simulated for it (shared cells count for every claim using them) + its evaluation."""
    t0 = time.perf_counter()
    ds = sweep.assemble(plan, results)
    result = claim.law.evaluate(ds, level)
    path = store.save_dataset(ds, claim.id, plan.tier, plan.digest)
    rec = record_for(claim, result, plan, level, compute + time.perf_counter() - t0, path)
    store.save_result(rec)
    return rec
