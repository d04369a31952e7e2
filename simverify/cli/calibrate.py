"""`simverify calibrate`: false-fail rate and power over many root seeds."""
from __future__ import annotations

import json
import os
import sys

from .. import registry, runner
from ..store import check_writable_file
from .check import _prepare
from .common import _refused
from .terminal import Progress


def _print_calibration(rows: list[dict]) -> None:
    print(f"{'id':<56} {'misses/runs':>11}  {'miss rate 95% CI':<18} {'projected miss':<16} power vs control")
    for r in rows:
        mark = "!! " if r["over_goal"] else "   "
        ci = f"[{r['rate_ci95'][0]:.3f}, {r['rate_ci95'][1]:.3f}]"
        power = "" if r.get("power") is None else \
            f"{r['power']:.2f} [{r['power_ci95'][0]:.3f}, {r['power_ci95'][1]:.3f}]"
        print(f"{r['id']:<56} {r['misses']:>5}/{r['runs']:<5}  {ci:<18} {mark}{r['projected_miss']:<13.2g} {power}")
    print(f"!! = projected miss above {runner.MISS_GOAL} (goal: as expected at >= "
          f"{100 * (1 - runner.MISS_GOAL):.1f}% of root seeds)")


def cmd_calibrate(args) -> int:
    """Run the claims together at root seeds seed .. seed+N-1; per claim the misses, their rate's
    Clopper-Pearson interval and the miss probability projected from the seeds' estimates; with ``--out``
    the rows (dated, with commit, tier, seeds and alpha) are also merged into that file."""
    if args.out:
        from ..store import read_calibration_file
        with _refused():
            check_writable_file(args.out, "calibration file")
            if os.path.exists(args.out):
                read_calibration_file(args.out)
    claims, overrides, plans, store, executor = _prepare(args)
    with executor:
        rows = runner.calibrate(claims, args.tier, store, executor, root_seed=args.seed, seeds=args.seeds,
                                replicates=args.replicates, overrides=overrides, alpha=args.alpha, plans=plans,
                                progress=Progress(sys.stderr.isatty() and not args.json, "seeds"))
    if args.out:
        from ..store import save_calibration_file
        stamped = store.read_calibration(args.tier)
        save_calibration_file(args.out, [stamped[r["id"]] for r in rows if r["id"] in stamped],
                              fallback=registry.position)  # rows written before they carried their order
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        _print_calibration(rows)
    return 0
