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
    t0 = time.perf_counter()
    results = sweep.run_tasks([t for p in plans for t in p.tasks], store, executor, progress)
    sim_elapsed = time.perf_counter() - t0
    total_tasks = max(1, sum(len(p.tasks) for p in plans))
    records = []
    for c, p in zip(claims, plans):
        t1 = time.perf_counter()
        ds = sweep.assemble(p, results)
        result = c.law.evaluate(ds, level)
        path = store.save_dataset(ds, c.id, tier, p.digest)
        elapsed = sim_elapsed * len(p.tasks) / total_tasks + time.perf_counter() - t1
        rec = record_for(c, result, p, level, elapsed, path)
        store.save_result(rec)
        records.append(rec)
    return records
