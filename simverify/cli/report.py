"""`simverify report`: the site, report.md and results.json of a store (the reference with --reference)."""
from __future__ import annotations

import os
import sys

from ..exceptions import UsageError
from ..store import Store, check_writable
from .common import DEFAULT_REPORT, _refused, printable


def _report(store: Store, out: str | None, tier: str | None, compare: str | None = None, workers: int | None = None,
            **options):
    """Write the report (``options``: calibration, with_data, reference; see report.write_report), its figures
    drawn by ``workers`` processes (default: one per core), with a progress line of the figures on a terminal;
    one stderr line per unreadable file it names. UsageError when nothing is readable, a store has another
    layout, a baseline or calibration file cannot be read or ``out`` cannot be written."""
    from ..report import write_report
    from .terminal import Progress
    progress = Progress(sys.stderr.isatty(), "figures", "drawing")
    with _refused():  # NoResults and IncompatibleStore are ValueErrors
        report = write_report(store, out, tier=tier, compare=compare, progress=progress,
                              workers=workers or os.cpu_count() or 1, **options)
    for path, reason in report.unreadable:
        sys.stderr.write(f"simverify: warning: skipped unreadable {printable(path)}: {printable(reason)}\n")
    return report


def cmd_report(args) -> int:
    with _refused():
        store = Store(args.store)
        if args.reference and (args.out is not None or args.with_data):
            raise UsageError("--reference writes reports/quick (or with --tier full, reports/full) without cell "
                             "data: give no --out or --with-data with it")
        if not args.reference:
            check_writable(args.out or DEFAULT_REPORT, "report directory")
    report = _report(store, None if args.reference else args.out or DEFAULT_REPORT, args.tier, args.compare,
                     calibration=args.calibration, with_data=args.with_data, reference=args.reference)
    for p in report.paths:
        print(printable(p))
    if report.comparison is not None:
        print(report.comparison.summary())
    for c in report.changes:
        print(f"changed: {c['id']} ({c['tier']}): {c['change']}")
    if report.not_run:
        print(f"not run at this tier at the suite's level: {len(report.not_run)} claims with their controls "
              "(listed in report.md)")
    for p in report.removed:
        print(f"removed: {printable(p)}")
    for p, reason in report.not_removed:  # the reference was written; these files of an older one stayed
        sys.stderr.write(f"simverify: error: could not remove the stale {printable(p)}: {printable(reason)}\n")
    return 1 if report.not_removed else 0
