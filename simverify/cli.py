"""`simverify list | check | report | calibrate` (the CLI section of README.md).

Exit status: 0 when every verdict equals its expectation, 1 when some differs, 2 for bad
usage or bad input (a clear message on stderr, nothing written), 130 on interruption.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import signal
import sys
import time
from contextlib import contextmanager

from . import registry, runner, stats
from .executors import make_executor
from .store import Store, check_writable, default_store


class UsageError(Exception):
    """Bad usage or bad input: exit status 2."""


@contextmanager
def _refused():
    """Turn ValueError/TypeError raised while a run is planned into bad input (exit 2, one line)."""
    try:
        yield
    except (ValueError, TypeError) as exc:
        raise UsageError(" ".join(str(exc).split())) from None


def _parse_value(raw: str):
    """JSON (``3``, ``2.5``, ``[1, 2]``, ``true``); else nan/inf as floats (the plan refuses them by name);
    else the string itself (the plan checks it against the parameter's declared type)."""
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        pass
    try:
        value = float(raw)
    except ValueError:
        return raw
    return value if not math.isfinite(value) else raw


def _parse_set(items: list[str]) -> dict:
    out = {}
    for item in items or []:
        if "=" not in item:
            raise UsageError(f"--set expects NAME=VALUE, got {item!r}")
        name, raw = item.split("=", 1)
        out[name.strip()] = _parse_value(raw.strip())
    return out


def _select(args) -> list:
    with _refused():  # a claim plugin that fails to import is bad input too
        return _chosen(args)


def _chosen(args) -> list:
    if args.ids and (args.all or args.paper):
        raise UsageError("give claim ids, or --paper/--all, not both")
    if args.ids:
        chosen = [registry.get(i) for i in args.ids]
    elif args.all or args.paper:
        if args.paper and args.paper not in registry.papers():
            raise UsageError(f"unknown paper {args.paper!r}; papers are {registry.papers()}")
        chosen = registry.all_claims(args.paper, controls=not args.no_controls)
    else:
        raise UsageError("name claim ids, or use --paper P or --all")
    return chosen


class Progress:
    """Progress (``done/total`` of cells, or of seeds) on stderr when it is a terminal."""

    def __init__(self, enabled: bool, unit: str = "cells"):
        self.enabled, self.unit = enabled, unit
        self.t0 = time.perf_counter()

    def __call__(self, done: int, total: int):
        if self.enabled:
            end = "\n" if done == total else ""
            sys.stderr.write(f"\r  {self.unit} {done}/{total}  {time.perf_counter() - self.t0:6.1f}s{end}")
            sys.stderr.flush()


def _print_table(records: list[dict]) -> None:
    for r in records:
        mark = "ok " if r["verdict"] == r["expected"] else "!! "
        ci = f"[{r['ci'][0]:.4g}, {r['ci'][1]:.4g}]"
        print(f"{mark}{r['id']:<52} {r['verdict']:<12} expected {r['expected']:<12} "
              f"est {r['estimate']:.4g} {ci}  ({r['n_cells']} cells, {r['elapsed_s']:.1f}s)")
        if r["verdict"] == stats.INCONCLUSIVE and r.get("advice"):
            print(f"     {r['advice']}")
    bad = sum(r["verdict"] != r["expected"] for r in records)
    print(f"{len(records) - bad} as expected, {bad} not as expected")


def cmd_list(args) -> int:
    with _refused():
        claims = registry.all_claims(args.paper, controls=True)
    if args.paper and not claims:
        raise UsageError(f"unknown paper {args.paper!r}; papers are {registry.papers()}")
    rows = [{"id": c.id, "paper": c.paper, "item": c.item, "law": c.law.kind, "expected": c.expected,
             "statement": c.statement, "control_of": c.control_of} for c in claims]
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        for r in rows:
            print(f"{r['id']:<56} {r['item']:<14} {r['law']:<26} expect {r['expected']}")
    return 0


def _prepare(args):
    """Every check of bad input, before any work: ids, parameters (by planning every claim), the store's
    writability, and last the executor (the scheduler reached). Returns (claims, overrides, plans, store,
    executor); raises UsageError having written nothing."""
    claims = _select(args)
    overrides = _parse_set(args.set)
    with _refused():
        runner.check_alpha(args.alpha)
        plans = runner.plan_all(claims, args.tier, root_seed=args.seed, replicates=args.replicates,
                                overrides=overrides)
        store = Store(args.store)
        store.check_writable()
        if getattr(args, "report", None):
            check_writable(args.report, "report directory")
        executor = make_executor(args.scheduler, args.workers)
    return claims, overrides, plans, store, executor


def cmd_check(args) -> int:
    claims, overrides, plans, store, executor = _prepare(args)
    with executor:
        records = runner.check(claims, args.tier, store, executor, root_seed=args.seed, replicates=args.replicates,
                               overrides=overrides, alpha=args.alpha, plans=plans,
                               progress=Progress(sys.stderr.isatty() and not args.json))
    if args.json:
        print(json.dumps(records, indent=1, default=float))
    else:
        _print_table(records)
    if args.report:
        _report(store, args.report, args.tier)
    return 0 if all(r["verdict"] == r["expected"] for r in records) else 1


def _report(store: Store, out: str, tier: str | None) -> list:
    """Write the report; one stderr line per unreadable file it names. UsageError when nothing is readable."""
    from .report import NoResults, write_report
    try:
        report = write_report(store, out, tier=tier)
    except NoResults as exc:
        raise UsageError(str(exc)) from None
    for path, reason in report.unreadable:
        sys.stderr.write(f"simverify: warning: skipped unreadable {path}: {reason}\n")
    return report.paths


def cmd_report(args) -> int:
    with _refused():
        store = Store(args.store)
        check_writable(args.out, "report directory")
    for p in _report(store, args.out, args.tier):
        print(p)
    return 0


def _print_calibration(rows: list[dict]) -> None:
    print(f"{'id':<56} {'misses/runs':>11}  {'miss rate 95% CI':<18} projected miss")
    for r in rows:
        mark = "!! " if r["over_goal"] else "   "
        ci = f"[{r['rate_ci95'][0]:.3f}, {r['rate_ci95'][1]:.3f}]"
        print(f"{r['id']:<56} {r['misses']:>5}/{r['runs']:<5}  {ci:<18} {mark}{r['projected_miss']:.2g}")
    print(f"!! = projected miss above {runner.MISS_GOAL} (goal: as expected at >= "
          f"{100 * (1 - runner.MISS_GOAL):.1f}% of root seeds)")


def cmd_calibrate(args) -> int:
    """Run the claims together at root seeds seed .. seed+N-1; per claim the misses, their rate's
    Clopper-Pearson interval and the miss probability projected from the seeds' estimates."""
    claims, overrides, plans, store, executor = _prepare(args)
    with executor:
        rows = runner.calibrate(claims, args.tier, store, executor, root_seed=args.seed, seeds=args.seeds,
                                replicates=args.replicates, overrides=overrides, alpha=args.alpha, plans=plans,
                                progress=Progress(sys.stderr.isatty() and not args.json, "seeds"))
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        _print_calibration(rows)
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="simverify", description="Executable checks of papers' lemmas and theorems.")
    sub = p.add_subparsers(dest="command", required=True)
    lp = sub.add_parser("list", help="list registered claims and their controls")
    lp.add_argument("--paper")
    lp.add_argument("--json", action="store_true")
    lp.set_defaults(fn=cmd_list)

    def run_options(sp):
        sp.add_argument("ids", nargs="*", metavar="ID")
        sp.add_argument("--paper")
        sp.add_argument("--all", action="store_true")
        sp.add_argument("--no-controls", action="store_true", help="with --all/--paper: skip control variants")
        sp.add_argument("--tier", choices=["quick", "full"], default="quick")
        sp.add_argument("--seed", type=int, default=0)
        sp.add_argument("--workers", type=int)
        sp.add_argument("--scheduler", default="processes", help="serial, processes, dask or tcp://host:port")
        sp.add_argument("--store", default=str(default_store()))
        sp.add_argument("--alpha", type=float, default=runner.DEFAULT_ALPHA, help="family-wise false-fail budget")
        sp.add_argument("--json", action="store_true")
        sp.add_argument("--replicates", type=int)
        sp.add_argument("--set", action="append", metavar="NAME=VALUE", help="override a grid axis or fixed parameter")

    cp = sub.add_parser("check", help="run claims and print verdicts")
    run_options(cp)
    cp.add_argument("--report", metavar="DIR", help="also write the report of this store to DIR")
    cp.set_defaults(fn=cmd_check)

    rp = sub.add_parser("report", help="write Markdown and HTML reports from a store")
    rp.add_argument("--store", default=str(default_store()))
    rp.add_argument("--out", default="reports/latest")
    rp.add_argument("--tier", choices=["quick", "full"])
    rp.set_defaults(fn=cmd_report)

    kp = sub.add_parser("calibrate", help="real false-fail rate of claims over many seeds")
    run_options(kp)
    kp.add_argument("--seeds", type=int, default=20)
    kp.set_defaults(fn=cmd_calibrate)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    for name in ("replicates", "workers", "seeds"):
        v = getattr(args, name, None)
        if v is not None and v < 1:
            parser.exit(2, f"simverify: error: --{name} must be >= 1, got {v}\n")
    if getattr(args, "seed", 0) < 0:
        parser.exit(2, f"simverify: error: --seed must be >= 0, got {args.seed}\n")
    try:
        return args.fn(args)
    except (UsageError, registry.UnknownClaim) as exc:
        sys.stderr.write(f"simverify: error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        end_progress_line = "\n" if sys.stderr.isatty() else ""
        sys.stderr.write(f"{end_progress_line}simverify: interrupted; finished cells are stored, rerun to resume\n")
        return 130


def entry() -> None:
    """The console script: ``main()``, then exit. After an interruption the process ends at once
    (exit 130) instead of waiting at interpreter exit for a process pool's helper threads, which a
    worker terminated mid-startup can leave blocked."""
    code = main()
    if code == 130:
        sys.stdout.flush()
        sys.stderr.flush()
        _stop_resource_tracker()
        os._exit(130)
    sys.exit(code)


def _stop_resource_tracker() -> None:
    """End multiprocessing's resource tracker before an immediate exit: otherwise it reports the pool's
    semaphores as leaked (on Linux they are unlinked at creation, so nothing is left behind)."""
    from multiprocessing import resource_tracker
    pid = getattr(getattr(resource_tracker, "_resource_tracker", None), "_pid", None)
    if pid:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


if __name__ == "__main__":  # pragma: no cover
    entry()
