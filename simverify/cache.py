"""``simverify cache info | clean``: what the store's cell cache holds, by claim, and which cells come
from code that no registered claim runs any more (old code: they can never be read again)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np

from . import keys, sweep
from .store import Store


def _cell_origin(path: Path) -> tuple[str, str]:
    """(sweep name, code hash) stored with a cell; ("", "") for a cell without them or unreadable."""
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["__meta__"]))
        return str(meta.get("sweep", "")), str(meta.get("code_hash", ""))
    except Exception:  # unreadable: it can only be recomputed, so it counts as old
        return "", ""


def current_code(claims: list) -> dict[tuple[str, str], list[str]]:
    """(sweep name, code hash of its measure's code today) -> the ids of the claims using that sweep."""
    out: dict[tuple[str, str], list[str]] = {}
    hashes: dict[str, str] = {}
    for c in claims:
        module = c.sweep.measure.__module__
        if module not in hashes:
            hashes[module] = keys.code_hash(module)
        out.setdefault((c.sweep.name, hashes[module]), []).append(c.id)
    return out


def _cells(store: Store) -> list[Path]:
    return sorted((store.root / "cells").glob("*/*.npz"))


def planned_keys(claims: list, tiers=("quick", "full")) -> dict[str, set[str]]:
    """Claim id -> the cache keys of its cells at the given tiers with the default root seed and settings."""
    out = {}
    for c in claims:
        keys = set()
        for tier in tiers:
            if tier in c.tiers:
                keys |= {t.key for t in sweep.plan(c, tier).tasks}
        out[c.id] = keys
    return out


def cache_info(store: Store, claims: list) -> dict:
    """Size in bytes and number of files of cells, Datasets and results; per claim the cells of its quick
    and full tiers (default seed and settings) present; cells of current code but other seeds or
    settings; the number of cells from old code and their size."""
    live = current_code(claims)
    planned = planned_keys(claims)
    per_claim = {cid: 0 for cid in planned}
    old, old_bytes, total, other = 0, 0, 0, 0
    for path in _cells(store):
        size = path.stat().st_size
        total += size
        if _cell_origin(path) not in live:
            old += 1
            old_bytes += size
            continue
        owners = [cid for cid, keys in planned.items() if path.stem in keys]
        other += not owners
        for cid in owners:
            per_claim[cid] += 1
    def files(sub: str, pattern: str) -> list[Path]:
        return sorted((store.root / sub).glob(pattern))
    datasets, results = files("datasets", "*/*.nc"), files("results", "*/*.json")
    return {"store": str(store.root), "cells": len(_cells(store)), "cell_bytes": total,
            "datasets": len(datasets), "dataset_bytes": sum(p.stat().st_size for p in datasets),
            "results": len(results), "old_code_cells": old, "old_code_bytes": old_bytes,
            "other_settings_cells": other,
            "cells_per_claim": {k: v for k, v in per_claim.items() if v}}


def cache_clean(store: Store, claims: list, everything: bool = False) -> dict:
    """Remove the cells from old code (default), or with ``everything`` every cell, Dataset, result and
    calibration (the FORMAT marker stays). Returns what was removed."""
    if everything:
        removed = {"cells": len(_cells(store))}
        for sub in ("cells", "datasets", "results", "calibration"):
            shutil.rmtree(store.root / sub, ignore_errors=True)
        return removed
    live = current_code(claims)
    removed, freed = 0, 0
    for path in _cells(store):
        if _cell_origin(path) not in live:
            freed += path.stat().st_size
            path.unlink(missing_ok=True)
            removed += 1
    return {"cells": removed, "bytes": freed}
