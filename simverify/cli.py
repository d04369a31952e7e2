"""`simverify list | check | report | calibrate | cache` (docs/cli.md).

Exit status: 0 when every verdict equals its expectation, 1 when some differs, 2 for bad
usage or bad input (a clear message on stderr, nothing written), 130 on interruption,
141 when the reader of standard output went away (``simverify list --json | head``).
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
from .usage import UsageError


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
    """Progress on stderr when it is a terminal (or SIMVERIFY_PROGRESS=1): a start-up phase (workers
    starting, kernels compiling or loading from Numba's cache) until the first cell arrives, then cells
    done / total, the rate since the first cell and the time left at that rate."""

    def __init__(self, enabled: bool, unit: str = "cells"):
        self.enabled = enabled or os.environ.get("SIMVERIFY_PROGRESS") == "1"
        self.unit = unit
        self.t0 = time.perf_counter()
        self.t_first: float | None = None

    def __call__(self, done: int, total: int):
        if not self.enabled:
            return
        now = time.perf_counter()
        if done == 0:
            text = f"{self.unit} 0/{total}: starting workers, compiling kernels"
        else:
            if self.t_first is None:
                self.t_first = now
            rate = (done - 1) / (now - self.t_first) if done > 1 and now > self.t_first else None
            eta = f", {(total - done) / rate:5.0f} s left" if rate else ""
            text = f"{self.unit} {done}/{total}" + (f", {rate:.3g}/s{eta}" if rate else "")
        end = "\n" if done == total else ""
        sys.stderr.write(f"\r  {text}  [{now - self.t0:6.1f} s]\033[K{end}")
        sys.stderr.flush()


def _words(text: str, n: int = 8) -> str:
    words = (text or "").split()
    return " ".join(words[:n]) + (" ..." if len(words) > n else "")


def _print_table(records: list[dict], wall: float | None = None) -> None:
    """One line per claim: verdict, estimate [interval], the band judged against, the level, cells and
    the compute seconds of its cells (``elapsed_s``); the erratum's first words for an expected REFUTED."""
    for r in records:
        mark = "ok " if r["verdict"] == r["expected"] else "!! "
        ci = f"[{r['ci'][0]:.4g}, {r['ci'][1]:.4g}]"
        band = f"[{r['band'][0]:.3g}, {r['band'][1]:.3g}]"
        print(f"{mark}{r['id']:<52} {r['verdict']:<12} expected {r['expected']:<12} "
              f"est {r['estimate']:.4g} {ci} band {band} level {r['confidence_level']:.5f}  "
              f"({r['n_cells']} cells, compute {r['elapsed_s']:.1f} s)")
        if r["expected"] == stats.REFUTED and r.get("erratum"):
            print(f"     erratum: {_words(r['erratum'])}")
        if r["verdict"] == stats.INCONCLUSIVE and r.get("advice"):
            print(f"     {r['advice']}")
    bad = sum(r["verdict"] != r["expected"] for r in records)
    tail = f"; wall {wall:.1f} s" if wall is not None else ""
    print(f"{len(records) - bad} as expected, {bad} not as expected{tail}")


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
        store.check_compatible()
        if getattr(args, "report", None):
            check_writable(args.report, "report directory")
        executor = make_executor(args.scheduler, args.workers)
    return claims, overrides, plans, store, executor


def cmd_check(args) -> int:
    t0 = time.perf_counter()
    claims, overrides, plans, store, executor = _prepare(args)
    with executor:
        records = runner.check(claims, args.tier, store, executor, root_seed=args.seed, replicates=args.replicates,
                               overrides=overrides, alpha=args.alpha, plans=plans,
                               progress=Progress(sys.stderr.isatty() and not args.json))
    if args.report:
        _report(store, args.report, args.tier)
    if args.json:
        print(json.dumps(records, indent=1, default=float))
    else:
        _print_table(records, time.perf_counter() - t0)
    return 0 if all(r["verdict"] == r["expected"] for r in records) else 1


def _report(store: Store, out: str, tier: str | None, compare: Store | None = None):
    """Write the report; one stderr line per unreadable file it names. UsageError when nothing is readable,
    a store has another layout or ``out`` cannot be written."""
    from .report import write_report
    with _refused():  # NoResults and IncompatibleStore are ValueErrors
        report = write_report(store, out, tier=tier, compare=compare)
    for path, reason in report.unreadable:
        sys.stderr.write(f"simverify: warning: skipped unreadable {path}: {reason}\n")
    return report


def cmd_report(args) -> int:
    with _refused():
        store = Store(args.store)
        compare = Store(args.compare) if args.compare else None
        if compare is not None and not (compare.root / "results").is_dir():
            raise UsageError(f"--compare: {compare.root} holds no results")
        check_writable(args.out, "report directory")
    report = _report(store, args.out, args.tier, compare)
    for p in report.paths:
        print(p)
    for c in report.changes:
        print(f"changed: {c['id']} ({c['tier']}): {c['change']}")
    return 0


def cmd_cache(args) -> int:
    from .cache import cache_clean, cache_info
    with _refused():
        store = Store(args.store)
        store.check_compatible()
        claims = registry.all_claims(None, controls=True)
        if args.action == "clean":
            store.check_writable()
    if args.action == "info":
        info = cache_info(store, claims)
        if args.json:
            print(json.dumps(info, indent=1))
        else:
            print(f"store {info['store']}: {info['cells']} cells ({info['cell_bytes'] / 2**20:.1f} MiB), "
                  f"{info['datasets']} Datasets ({info['dataset_bytes'] / 2**20:.1f} MiB), {info['results']} results")
            print(f"cells from old code (never read again): {info['old_code_cells']} "
                  f"({info['old_code_bytes'] / 2**20:.1f} MiB); 'simverify cache clean' removes them")
            for cid, n in info["cells_per_claim"].items():
                print(f"  {cid:<56} {n:>7} cells")
        return 0
    removed = cache_clean(store, claims, everything=args.all)
    print(json.dumps(removed) if args.json else f"removed {removed['cells']} cells"
          + ("" if args.all else f" ({removed['bytes'] / 2**20:.1f} MiB) from old code"))
    return 0


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


def _version() -> str:
    from . import __version__
    from .sweep import git_commit
    return f"simverify {__version__} (commit {git_commit()[:12]})"


class _Help(argparse.ArgumentDefaultsHelpFormatter):
    """Shows a default where there is one to show (not None, False or an empty list)."""

    def _get_help_string(self, action):
        text = action.help or ""
        if "(default" in text or action.default is None or action.default is False or action.default == [] \
                or action.default == argparse.SUPPRESS:
            return text
        return text + " (default: %(default)s)"


def build_parser() -> argparse.ArgumentParser:
    fmt = _Help
    p = argparse.ArgumentParser(prog="simverify", formatter_class=fmt,
                                description="Executable checks of papers' lemmas and theorems.")
    p.add_argument("--version", action="version", version=_version())
    sub = p.add_subparsers(dest="command", required=True)
    lp = sub.add_parser("list", help="list registered claims and their controls", formatter_class=fmt)
    lp.add_argument("--paper", help="only this paper's claims (default: every paper)")
    lp.add_argument("--json", action="store_true", help="print JSON instead of a table")
    lp.set_defaults(fn=cmd_list)

    def store_option(sp):
        sp.add_argument("--store", default=str(default_store()),
                        help="store directory (cells, Datasets, verdict records); $SIMVERIFY_STORE sets the default")

    def run_options(sp):
        sp.add_argument("ids", nargs="*", metavar="ID", help="claim ids (see 'simverify list')")
        sp.add_argument("--paper", help="every claim of this paper")
        sp.add_argument("--all", action="store_true", help="every registered claim")
        sp.add_argument("--no-controls", action="store_true", help="with --all/--paper: skip control variants")
        sp.add_argument("--tier", choices=["quick", "full"], default="quick", help="grid and replicate sizes")
        sp.add_argument("--seed", type=int, default=0, help="root seed of every cell's random stream")
        sp.add_argument("--workers", type=int, help="worker processes (default: one per core)")
        sp.add_argument("--scheduler", default="processes", help="serial, processes, dask or tcp://host:port")
        store_option(sp)
        sp.add_argument("--alpha", type=float, default=runner.DEFAULT_ALPHA, help="family-wise false-fail budget")
        sp.add_argument("--json", action="store_true", help="print the verdict records as JSON")
        sp.add_argument("--replicates", type=int, help="replicates per cell (default: the tier's)")
        sp.add_argument("--set", action="append", metavar="NAME=VALUE", default=[],
                        help="override a grid axis or fixed parameter (repeatable)")

    cp = sub.add_parser("check", help="run claims and print verdicts", formatter_class=fmt)
    run_options(cp)
    cp.add_argument("--report", metavar="DIR", help="also write the report of this store to DIR")
    cp.set_defaults(fn=cmd_check)

    rp = sub.add_parser("report", help="write the report site and report.md from a store", formatter_class=fmt)
    store_option(rp)
    rp.add_argument("--out", default="reports/latest", help="output directory (index.html is its entry page)")
    rp.add_argument("--tier", choices=["quick", "full"], help="only this tier (default: every tier)")
    rp.add_argument("--compare", metavar="OLD_STORE", help="flag verdicts that changed and intervals that moved "
                    "against this store")
    rp.set_defaults(fn=cmd_report)

    kp = sub.add_parser("calibrate", help="false-fail rate and power of claims over many root seeds",
                        formatter_class=fmt)
    run_options(kp)
    kp.add_argument("--seeds", type=int, default=20, help="number of root seeds (seed .. seed+N-1)")
    kp.set_defaults(fn=cmd_calibrate)

    hp = sub.add_parser("cache", help="what the store's cell cache holds; remove cells of old code",
                        formatter_class=fmt)
    hp.add_argument("action", choices=["info", "clean"], help="info: sizes and cells per claim; clean: remove")
    store_option(hp)
    hp.add_argument("--all", action="store_true", help="clean: remove every cell, Dataset and result, not only "
                    "cells of old code")
    hp.add_argument("--json", action="store_true", help="print JSON")
    hp.set_defaults(fn=cmd_cache)
    from .crowd_cli import add_parser as add_crowd_parser
    add_crowd_parser(sub, fmt)
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
    worker terminated mid-startup can leave blocked. A closed standard output (``| head``) ends it
    quietly with 141, as a shell reports SIGPIPE."""
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python flushes stdout again at exit
        sys.exit(141)
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
