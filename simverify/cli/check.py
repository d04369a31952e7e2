"""`simverify list` and `simverify check`."""
from __future__ import annotations

import json
import os
import sys
import time
from contextlib import suppress

from .. import registry, runner
from ..exceptions import UsageError
from ..executors import check_scheduler, make_executor
from ..findings import as_expected
from ..footprint import MAX_RUN_TASKS, check_tasks, check_workers
from ..record import json_default
from ..store import Store, check_tree_writable
from .common import _controls_not_run, _controls_note, _note, _parse_set, _refused, _select, keyword_matcher
from .limits import cell_limits, parse_duration, parse_size
from .plan import (
    last_failed,
    plan_cost,
    plan_work,
    print_plan,
    reference_run_timings,
    run_setting,
    save_last_failed,
    save_timings,
)
from .report import _report
from .terminal import Progress, Reporter


def cmd_list(args) -> int:
    with _refused():
        claims = registry.all_claims(args.paper, controls=True)
    if args.paper and not claims:
        raise UsageError(f"unknown paper {args.paper!r}; papers are {registry.papers()}")
    if args.k is not None:
        match = keyword_matcher(args.k)
        claims = [c for c in claims if match(c.id)]
        if not claims:
            raise UsageError(f"-k {args.k!r} matches no claim id")
    rows = [{"id": c.id, "paper": c.paper, "item": c.item, "law": c.law.kind, "expected": c.expected,
             "finding": c.finding.kind if c.finding else None, "statement": c.statement,
             "control_of": c.control_of, "citation": (registry.citation(c.paper) or {}).get("text")} for c in claims]
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    paper = None
    for r in rows:
        if r["paper"] != paper:  # each paper's citation once, above its claims
            paper = r["paper"]
            print(f"{'' if r is rows[0] else chr(10)}{paper}: {r['citation'] or 'no citation declared'}")
        finding = f" ({r['finding']})" if r["finding"] else ""
        print(f"  {r['id']:<56} {r['item']:<14} {r['law']:<26} expect {r['expected']}{finding}")
    return 0


def _prepare(args):
    """Every check of bad input, before any work: ids, parameters (by planning every claim), the store's
    writability, and last the executor (the scheduler reached). Returns (claims, overrides, plans, store,
    executor); raises UsageError having written nothing. ``--plan`` checks the scheduler's name but not the
    store's writability, reaches no scheduler and returns no executor."""
    claims = _select(args)
    overrides = _parse_set(args.set)
    for raw, parse in ((getattr(args, "cell_time", None), parse_duration),
                       (getattr(args, "cell_memory", None), parse_size)):
        if raw is not None:
            parse(raw)  # refused here, before any planning
    dry = getattr(args, "plan", False)
    with _refused():
        store = Store(args.store)
        store.check_compatible()
        if getattr(args, "lf", False):
            claims, args.lf_note = _last_failed_only(claims, store, _setting(args, overrides))
        runner.check_alpha(args.alpha, len(claims))
        plans = runner.plan_all(claims, args.tier, root_seed=args.seed, replicates=args.replicates,
                                overrides=overrides, ceiling=not args.no_ceiling)
        tasks = sum(len(p.tasks) for p in plans) * getattr(args, "seeds", 1)
        check_tasks("this run" if getattr(args, "seeds", 1) == 1 else f"{args.seeds} seeds", tasks, 1, MAX_RUN_TASKS)
        workers = 1 if args.scheduler == "serial" else args.workers or os.cpu_count() or 1
        if "://" not in args.scheduler:  # a remote cluster's memory is not this machine's
            check_workers(max((p.peak_memory for p in plans), default=0.0), min(workers, tasks))
        if dry:
            check_scheduler(args.scheduler)  # refused as a run refuses it; nothing started
            return claims, overrides, plans, store, None
        store.check_writable()
        if getattr(args, "report", None):  # the run's claims' pages and figures; the report checks all it shows
            from ..report import site_files
            check_tree_writable(args.report, site_files([c.id for c in claims], list(dict.fromkeys(
                c.paper for c in claims))), "report directory")
        executor = make_executor(args.scheduler, args.workers)
    return claims, overrides, plans, store, executor


def _setting(args, overrides: dict) -> str:
    return run_setting(args.tier, args.seed, args.replicates, overrides)


def _last_failed_only(claims: list, store: Store, tier: str) -> tuple[list, str]:
    """--lf: the selected claims not as expected when last checked at this tier (all of them when none),
    and the line that says which."""
    failed = last_failed(store, tier)
    kept = [c for c in claims if c.id in failed]
    if kept:
        return kept, (f"--lf: running the {len(kept)} of {len(claims)} selected checks not as expected when "
                      f"last run at tier {tier}")
    return claims, (f"--lf: none of the {len(claims)} selected checks was not as expected when last run at tier "
                    f"{tier} (or the store records no run): running all of them")


class _CellsStopped:
    """``on_failure`` of a run: a line on stderr for the first cell of each sweep a limit stopped (which cell,
    why, which checks are not run); ``summary()`` counts them all."""

    def __init__(self):
        self.count, self.sweeps, self.claims = 0, set(), set()

    def __call__(self, task, failure, claim_ids: list[str]) -> None:
        self.count += 1
        self.claims.update(claim_ids)
        if task.sweep in self.sweeps:
            return
        self.sweeps.add(task.sweep)
        shown = ", ".join(f"{k}={v}" for k, v in task.params.items() if not isinstance(v, (list, dict)))
        _note(f"a cell of {task.sweep} ({shown}; replicate {task.replicate}) {failure.reason}: not run: "
              f"{', '.join(claim_ids)}")

    def summary(self) -> str:
        return (f"{self.count} cell{'s' * (self.count != 1)} stopped by the per-cell limits (--cell-time, "
                "--cell-memory)")


def _why_not_run(args, records: list[dict], stopped: _CellsStopped) -> str | None:
    """What left checks not run: -x at a check not as expected, cells a limit stopped, or both."""
    parts = (["stopped at the first not as expected (-x)"] if args.exitfirst and not all(map(as_expected, records))
             else []) + ([stopped.summary()] if stopped.count else [])
    return " and ".join(parts) or None


class _Stopped(Exception):
    """-x: leave the executor by an exception, so that it abandons the cells still running."""


def cmd_check(args) -> int:
    t0 = time.perf_counter()
    claims, overrides, plans, store, executor = _prepare(args)
    id_width = min(max(len(c.id) for c in claims), 60)
    if getattr(args, "lf_note", None):
        _note(args.lf_note)
    skipped = _controls_not_run(args, claims)
    workers = 1 if args.scheduler == "serial" else args.workers or os.cpu_count() or 1
    work = plan_work(plans)
    cost = plan_cost(plans, store, work, reference_run_timings(args.tier))
    limits, limits_line = cell_limits(args.cell_time, args.cell_memory, cost, workers,
                                      remote="://" in args.scheduler, hard_exit=args.scheduler == "processes")
    if args.plan:
        _controls_note(skipped)
        if args.json:
            print(json.dumps({"tier": args.tier, **cost, "limits": {"seconds": limits.seconds,
                                                                      "memory": limits.memory}}, indent=1))
        else:
            print_plan(cost, args.tier, workers, id_width, limits_line)
        return 0
    progress = Progress(sys.stderr.isatty() and not args.json)
    verbosity = (args.verbose or 0) - (args.quiet or 0)
    reporter = None if args.json else Reporter([c.id for c in claims], verbosity, progress)
    cells: list = []
    stopped = _CellsStopped()
    first_unexpected = (lambda r: not as_expected(r)) if args.exitfirst else None
    records: list[dict] = []
    try:
        with executor:
            records = runner.check(claims, args.tier, store, executor, root_seed=args.seed,
                                   replicates=args.replicates, overrides=overrides, alpha=args.alpha, plans=plans,
                                   progress=progress, on_record=reporter, stop=first_unexpected,
                                   on_cell=lambda task, seconds: cells.append((task, seconds)),
                                   limits=limits, on_failure=stopped)
            if len(records) < len(claims):
                raise _Stopped
    except _Stopped:
        pass
    finally:
        with suppress(OSError):  # bookkeeping for --plan and --lf: never fails a run
            save_timings(store, cells, work)
    with suppress(OSError):
        save_last_failed(store, _setting(args, overrides), records, stopped.claims)
    figure_workers = 1 if args.scheduler == "serial" else args.workers
    report = _report(store, args.report, args.tier, workers=figure_workers) if args.report else None
    wall = time.perf_counter() - t0
    if args.json:
        print(json.dumps(records, indent=1, default=json_default))  # the verdict records (simverify.record)
    else:
        reporter.finish(records, wall, not_run=len(claims) - len(records), why_not_run=_why_not_run(args, records,
                                                                                                     stopped))
    if report is not None:
        print(f"report: {report.paths[0]}", file=sys.stderr if args.json else sys.stdout)
    _controls_note(skipped)  # after the run: an interrupted run still ends in its one line
    return 0 if len(records) == len(claims) and all(as_expected(r) for r in records) else 1
