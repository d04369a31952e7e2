"""`simverify list | check | report | calibrate | cache` (docs/cli.md).

Exit status: 0 when every verdict equals its expectation, 1 when some differs, 2 for bad
usage or bad input (a clear message on stderr, nothing written), 130 on interruption, 143 on SIGTERM,
141 when the reader of standard output went away (``simverify list --json | head``).
"""
from __future__ import annotations

import argparse
import errno
import os
import signal
import sys
from concurrent.futures.process import BrokenProcessPool

from .. import registry, runner
from ..exceptions import UsageError, WriteFailed
from ..store import DEFAULT_STORE
from .cache import cmd_cache
from .calibrate import cmd_calibrate
from .check import cmd_check, cmd_list
from .common import DEFAULT_REPORT, _parse_set, keyword_matcher
from .report import cmd_report
from .terminal import Reporter, distinct_figures, result_line

MAX_REPLICATES = 100_000  # a plan holds one task per replicate and cell: beyond this it cannot fit in memory
MAX_WORKERS = 1024
MAX_SEEDS = 10_000

__all__ = ["main", "entry", "build_parser", "Reporter", "distinct_figures", "result_line", "keyword_matcher",
           "_parse_set", "DEFAULT_REPORT"]

def _version() -> str:
    from .. import __version__
    from ..provenance import git_commit
    return f"simverify {__version__} (commit {git_commit()[:12]})"


class _Help(argparse.ArgumentDefaultsHelpFormatter):
    """Shows a default where there is one to show (not None, False or an empty list)."""

    def _get_help_string(self, action):
        text = action.help or ""
        if "(default" in text or action.default is None or action.default is False or action.default == [] \
                or action.default == argparse.SUPPRESS:
            return text
        return text + " (default: %(default)s)"


class _Parser(argparse.ArgumentParser):
    """argparse with its errors in one line, as every other refusal (exit 2)."""

    def error(self, message: str):
        self.exit(2, f"simverify: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    fmt = _Help
    p = _Parser(prog="simverify", formatter_class=fmt,
                                description="Executable checks of papers' lemmas and theorems.")
    p.add_argument("--version", action="version", version=_version())
    sub = p.add_subparsers(dest="command", required=True)
    lp = sub.add_parser("list", help="list registered claims and their controls", formatter_class=fmt)
    lp.add_argument("--paper", help="only this paper's claims (default: every paper)")
    lp.add_argument("-k", metavar="EXPR", help="only claim ids matching EXPR (as check -k)")
    lp.add_argument("--json", action="store_true", help="print JSON instead of a table")
    lp.set_defaults(fn=cmd_list)

    def store_option(sp):
        sp.add_argument("--store", default=os.environ.get("SIMVERIFY_STORE", str(DEFAULT_STORE)),
                        help="store directory (cells, Datasets, verdict records); $SIMVERIFY_STORE sets the default")

    def run_options(sp):
        sp.add_argument("ids", nargs="*", metavar="ID", help="claim ids (see 'simverify list')")
        sp.add_argument("--paper", help="every claim of this paper")
        sp.add_argument("--all", action="store_true", help="every registered claim")
        sp.add_argument("--no-controls", action="store_true", help="with --all/--paper: skip control variants")
        sp.add_argument("--controls", action="store_true", help="with claim ids: also run each named claim's "
                        "controls (without it their ids are named as not run)")
        sp.add_argument("-k", metavar="EXPR", help="only claim ids matching EXPR: case-insensitive substrings with "
                        "not, and, or, parentheses (pytest's -k); alone, selects among all claims")
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
        sp.add_argument("--no-ceiling", action="store_true", help="run cells estimated past the work ceiling (about "
                        "a day each); cells past this machine's memory stay refused")

    cp = sub.add_parser("check", help="run claims and print verdicts", formatter_class=fmt)
    run_options(cp)
    cp.add_argument("--report", metavar="DIR", help="also write the report of this store to DIR")
    cp.add_argument("-x", "--exitfirst", action="store_true", help="stop at the first check not as expected "
                    "(cells still queued or running are abandoned; exit 1)")
    cp.add_argument("--lf", "--last-failed", dest="lf", action="store_true",
                    help="only the selected checks not as expected when last run at this tier in this store (all "
                    "selected when none); alone, selects among all claims")
    cp.add_argument("--plan", action="store_true", help="dry run: list the checks, their cells and the estimated "
                    "compute time, then exit 0 without running or writing anything")
    cp.add_argument("--cell-time", metavar="DURATION", help="stop a cell computing longer (seconds, or 90s, 30m, "
                    "2h; none: no limit; default: 10x the plan's largest estimate, at least 10 min, when every cell "
                    "has a measured, scaled or host-scaled reference estimate, else none); the run goes on without "
                    "the claims using it")
    cp.add_argument("--cell-memory", metavar="SIZE", help="stop a cell whose worker holds more resident memory "
                    "(bytes, or 512M, 4G; none: no limit; default: this machine's memory over the workers, none on a "
                    "remote cluster)")
    loudness = cp.add_mutually_exclusive_group()
    loudness.add_argument("-v", "--verbose", action="count",
                          help="one line per check: outcome, estimate, interval, band")
    loudness.add_argument("-q", "--quiet", action="count",
                          help="only what is not as expected, and the summary line")
    cp.set_defaults(fn=cmd_check)

    rp = sub.add_parser("report", help="write the report site and report.md from a store", formatter_class=fmt)
    store_option(rp)
    rp.add_argument("--out", help=f"output directory (index.html is its entry page) (default: {DEFAULT_REPORT})")
    rp.add_argument("--tier", choices=["quick", "full"], help="only this tier (default: every tier)")
    rp.add_argument("--compare", metavar="BASELINE", help="a store, a report directory (its results.json, e.g. "
                    "reports/quick) or a results.json: flag verdicts that changed and estimates that moved beyond "
                    "their intervals; count floating-point noise")
    rp.add_argument("--calibration", metavar="FILE", help="calibration rows ('calibrate --out FILE') to show "
                    "beside the verdicts, with the store's own")
    rp.add_argument("--with-data", action="store_true", help="also write the cell data (NetCDF and CSV) under "
                    "data/, once per distinct Dataset")
    rp.add_argument("--reference", action="store_true", help="regenerate a committed reference: reports/quick of "
                    "the checkout (every registered check), or with --tier full reports/full (the claims run at "
                    "that tier, with their controls), from default runs judged at the suite's per-check level, no "
                    "cell data, its calibration.json kept; removes the pages, figures and data it did not write")
    rp.set_defaults(fn=cmd_report)

    kp = sub.add_parser("calibrate", help="false-fail rate and power of claims over many root seeds",
                        formatter_class=fmt)
    run_options(kp)
    kp.add_argument("--seeds", type=int, default=20, help="number of root seeds (seed .. seed+N-1)")
    kp.add_argument("--out", metavar="FILE", help="also merge the rows (dated, with commit, tier, seeds, alpha) "
                    "into this JSON file, e.g. reports/quick/calibration.json (read by 'report')")
    kp.set_defaults(fn=cmd_calibrate)

    hp = sub.add_parser("cache", help="what the store's cell cache holds; remove cells of old code",
                        formatter_class=fmt)
    hp.add_argument("action", choices=["info", "clean"], help="info: sizes and cells per claim; clean: remove")
    store_option(hp)
    hp.add_argument("--all", action="store_true", help="clean: remove every cell, Dataset and result, not only "
                    "cells of old code")
    hp.add_argument("--json", action="store_true", help="print JSON")
    hp.set_defaults(fn=cmd_cache)
    from .crowd import add_parser as add_crowd_parser
    add_crowd_parser(sub, fmt)
    from .new_paper import add_parser as add_new_paper_parser
    add_new_paper_parser(sub, fmt)
    return p


def _refuse(message: str) -> int:
    sys.stderr.write(f"simverify: error: {message}\n")
    return 2


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the exit status (see the module's docstring)."""
    try:
        return _main(argv)
    except KeyboardInterrupt as exc:
        end_progress_line = "\n" if sys.stderr.isatty() else ""
        how, code = ("terminated", 143) if isinstance(exc, Terminated) else ("interrupted", 130)
        given = sys.argv[1:] if argv is None else argv
        runs_cells = bool(given) and given[0] in ("check", "calibrate")  # the commands that store cells
        rest = "; finished cells are stored, rerun to resume" if runs_cells else ""
        sys.stderr.write(f"{end_progress_line}simverify: {how}{rest}\n")
        return code


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    argv_seen = sys.argv[1:] if argv is None else argv
    for name, most in (("replicates", MAX_REPLICATES), ("workers", MAX_WORKERS), ("seeds", MAX_SEEDS)):
        v = getattr(args, name, None)
        if v is not None and not 1 <= v <= most:
            return _refuse(f"--{name} must lie in [1, {most}], got {v}")
    for name in ("report", "out", "store", "calibration", "compare"):
        if getattr(args, name, None) is not None and not getattr(args, name).strip():
            given = any(a == f"--{name}" or a.startswith(f"--{name}=") for a in argv_seen)
            return _refuse(f"--{name} names no path (an empty string)" if given or name != "store" else
                           "SIMVERIFY_STORE is set but empty: name a directory, or unset it")
    if not 0 <= getattr(args, "seed", 0) < 2 ** 31:  # the store keeps seeds as NetCDF int32
        return _refuse(f"--seed must lie in [0, 2147483647], got {args.seed}")
    if getattr(args, "seeds", None) and args.seed + args.seeds - 1 >= 2 ** 31:
        return _refuse(f"--seed {args.seed} with --seeds {args.seeds} runs root seeds past 2147483647")
    try:
        return args.fn(args)
    except (UsageError, registry.UnknownClaim) as exc:
        sys.stderr.write(f"simverify: error: {exc}\n")
        return 2
    except WriteFailed as exc:
        sys.stderr.write(f"simverify: error: {' '.join(str(exc).split())}\n")
        return 1
    except BrokenProcessPool:
        rest = ("finished cells are stored, rerun to resume" if args.command in ("check", "calibrate") else
                "the report was not written")  # report: figures are drawn before any file is written
        sys.stderr.write(f"simverify: a worker process died (killed, or out of memory); {rest}\n")
        return 1


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the main thread runs (as Ctrl-C raises KeyboardInterrupt), so a run is
    abandoned the same way: workers stopped, finished cells kept, one line, exit 143."""


def _raise_terminated(signum, frame) -> None:
    raise Terminated


def entry() -> None:
    """The console script: ``main()``, then exit. SIGTERM is handled as Ctrl-C is (``Terminated``). After an
    interruption the process ends at once (exit 130, or 143 after SIGTERM) instead of waiting at interpreter
    exit for a process pool's helper threads, which a worker terminated mid-startup can leave blocked. A
    closed standard output (``| head``) ends it quietly with 141, as a shell reports SIGPIPE."""
    signal.signal(signal.SIGTERM, _raise_terminated)
    if sys.stdout is None:  # started with standard output closed (>&-): what it prints goes nowhere
        sys.stdout = open(os.devnull, "w")
    try:
        code = main()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the work is done: a late SIGTERM just ends the process
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python flushes stdout again at exit
        sys.exit(141)
    except OSError as exc:  # standard output on a full disk or a failing device
        if exc.errno not in (errno.ENOSPC, errno.EIO, errno.EFBIG, errno.EDQUOT):
            raise
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.stderr.write(f"simverify: error: cannot write standard output: {exc.strerror}\n")
        sys.exit(1)
    if code in (130, 143):
        sys.stdout.flush()
        sys.stderr.flush()
        _stop_resource_tracker()
        os._exit(code)
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
