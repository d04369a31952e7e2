"""What `check` shows on the terminal: progress, result lines with the digits that tell interval and band
apart, findings by kind and the summary line (docs/cli.md, "What the terminal shows")."""
from __future__ import annotations

import math
import os
import shutil
import sys
import time

from .. import stats
from ..findings import as_expected, first_sentence, record_finding


class Progress:
    """Progress on stderr when it is a terminal (or SIMVERIFY_PROGRESS=1): a start-up phase (workers
    starting, kernels compiling or loading from Numba's cache) until the first cell arrives, then cells
    done / total, the rate since the first cell and the time left at that rate.

    ``shared``: a callable giving the line the result output is writing on standard output when both share
    one terminal; the progress then follows that line (and never ends it), and the output calls ``clear``
    before it writes and ``redraw`` after."""

    def __init__(self, enabled: bool, unit: str = "cells", starting: str = "starting workers, compiling kernels"):
        self.enabled = enabled or os.environ.get("SIMVERIFY_PROGRESS") == "1"
        self.unit = unit
        self.starting = starting
        self.t0 = time.perf_counter()
        self.t_first: float | None = None
        self.shared = None
        self.text = ""
        self.ended = False
        self.width = shutil.get_terminal_size().columns

    def __call__(self, done: int, total: int):
        if not self.enabled:
            return
        now = time.perf_counter()
        if done == 0:
            text = f"{self.unit} 0/{total}: {self.starting}"
        else:
            if self.t_first is None:
                self.t_first = now
            rate = (done - 1) / (now - self.t_first) if done > 1 and now > self.t_first else None
            eta = f", {(total - done) / rate:5.0f} s left" if rate else ""
            text = f"{self.unit} {done}/{total}" + (f", {rate:.3g}/s{eta}" if rate else "")
        self.text = f"{text}  [{now - self.t0:6.1f} s]"
        self.ended = False
        self._draw(end=done == total and self.shared is None)

    def _draw(self, end: bool = False) -> None:
        if self.shared is not None:  # after the result line, cut to the terminal's width (no wrapping)
            head = self.shared()
            text = f"{head}  {self.text}"[:max(len(head), self.width - 1)]
        else:
            text = f"  {self.text}"
        sys.stderr.write(f"\r{text}\033[K" + ("\n" if end else ""))
        sys.stderr.flush()
        self.ended = end

    def clear(self) -> None:
        """Erase the progress text (leaving a shared result line as it is) before the results are written."""
        if self.enabled and self.text and not self.ended:
            sys.stderr.write(f"\r{self.shared() if self.shared is not None else ''}\033[K")
            sys.stderr.flush()

    def redraw(self) -> None:
        if self.enabled and self.text and not self.ended:
            self._draw()


def _number(x, digits: int) -> str:
    if x is None:
        return "n/a"
    return f"{float(x):.{digits}g}"


def distinct_figures(values, start: int = 4, most: int = 12) -> list[str]:
    """``values`` with one number of significant digits, from ``start`` up until any two that differ print
    differently (so that an interval bound and a band edge that decide a verdict are told apart), at most ``most``."""
    nums = [math.nan if v is None else float(v) for v in values]
    pairs = [(i, j) for i in range(len(nums)) for j in range(i + 1, len(nums))
             if nums[i] != nums[j] and not (math.isnan(nums[i]) or math.isnan(nums[j]))]
    for digits in range(start, most + 1):
        texts = [_number(v, digits) for v in values]
        if all(texts[i] != texts[j] for i, j in pairs):
            break
    return texts


def result_word(r: dict) -> str:
    return r.get("outcome") or r["verdict"]


def result_line(r: dict, id_width: int = 52) -> str:
    """One check: ok/!!, id, the outcome (and the expected verdict when it differs), the estimate, its
    interval and the band with the digits that tell them apart, the level, cells and compute seconds."""
    mark = "ok" if as_expected(r) else "!!"
    word = result_word(r) if as_expected(r) else f"{result_word(r)} (expected {r['expected']})"
    ci, band = list(r.get("ci") or [None, None]), list(r.get("band") or [None, None])
    est, lo, hi, b_lo, b_hi = distinct_figures([r.get("estimate"), *ci, *band])
    return (f"{mark} {r['id']:<{id_width}} {word:<14} est {est} [{lo}, {hi}] band [{b_lo}, {b_hi}] "
            f"level {r['confidence_level']:.5f}  ({r['n_cells']} cells, compute {r['elapsed_s']:.1f} s)")


def detail_lines(r: dict) -> list[str]:
    """What follows a result line: the finding's first sentence (labelled by its kind) and, for an
    INCONCLUSIVE verdict, the advice."""
    out = []
    finding = record_finding(r)
    if finding:
        out.append(f"     {finding['kind']}: {first_sentence(finding['text'], 300)}")
    if r["verdict"] == stats.INCONCLUSIVE and r.get("advice"):
        out.append(f"     {r['advice']}")
    return out


_PLURAL = {"erratum": "errata"}


def summary_line(records: list[dict], wall: float | None = None, not_run: int = 0,
                 why_not_run: str | None = None) -> str:
    bad = sum(not as_expected(r) for r in records)
    text = f"{len(records) - bad} as expected, {bad} not as expected"
    kinds: dict[str, int] = {}
    for r in records:
        finding = record_finding(r)
        if finding and as_expected(r):
            kinds[finding["kind"]] = kinds.get(finding["kind"], 0) + 1
    if kinds:
        text += "; findings: " + ", ".join(f"{n} {_PLURAL.get(k, k) if n > 1 else k}" for k, n in kinds.items())
    if not_run:
        text += f"; {why_not_run or 'stopped at the first not as expected (-x)'}, {not_run} not run"
    return text + (f"; wall {wall:.1f} s" if wall is not None else "")


class Reporter:
    """The results of ``check`` on standard output, each as its claim completes (``on_record``), then the
    details and a summary (``finish``). ``verbosity`` < 0 (-q): only what is not as expected, then the
    summary; 0: one character per check ('.' as expected, 'x' as expected with a finding, 'F' not as
    expected) on one line per paper, then the findings and what is not as expected in detail; > 0 (-v):
    one result line per check (and its finding or advice)."""

    def __init__(self, ids: list[str], verbosity: int = 0, progress: Progress | None = None, out=None,
                 width: int | None = None):
        self.verbosity, self.total, self.done = verbosity, len(ids), 0
        self.out = out or sys.stdout
        self.id_width = min(max(map(len, ids), default=10), 60)
        self.width = max(40, width or (shutil.get_terminal_size().columns if self.out.isatty() else 80))
        self.line, self.paper = "", None
        self.progress = progress if progress is not None and progress.enabled else None
        if self.progress is not None and self.out.isatty() and sys.stderr.isatty():
            self.progress.shared = lambda: self.line

    def _write(self, text: str, line: str = "") -> None:
        """Write ``text``, after which ``line`` is the unfinished line on standard output (the progress on a
        shared terminal is erased before and drawn after it)."""
        shared = self.progress is not None and self.progress.shared is not None
        if shared:
            self.progress.clear()
        self.line = line
        self.out.write(text)
        self.out.flush()
        if shared:
            self.progress.redraw()

    def _count(self) -> str:
        return f"[{self.done:>{len(str(self.total))}}/{self.total}]"

    def _end_line(self) -> str:
        """The text that ends the current character line: padding and the count of checks done."""
        if not self.line:
            return ""
        count = self._count()
        return " " * max(1, self.width - len(self.line) - len(count) - 1) + count + "\n"

    def __call__(self, r: dict) -> None:
        if self.verbosity < 0:
            self.done += 1
            if not as_expected(r):
                self._write("\n".join([result_line(r, self.id_width), *detail_lines(r)]) + "\n")
            return
        if self.verbosity > 0:
            self.done += 1
            self._write("\n".join([result_line(r, self.id_width), *detail_lines(r)]) + "\n")
            return
        char = "F" if not as_expected(r) else "x" if record_finding(r) else "."
        text, line = "", self.line
        if r.get("paper") != self.paper or len(self.line) + len(self._count()) + 2 > self.width:
            text, self.paper = self._end_line(), r.get("paper")
            line = f"{self.paper} "
            text += line
        self.done += 1
        self._write(text + char, line + char)

    def finish(self, records: list[dict], wall: float | None = None, not_run: int = 0,
               why_not_run: str | None = None) -> None:
        """End the character line, print the details and the summary line."""
        if self.progress is not None and self.progress.shared is not None:
            self.progress.clear()
            self.progress.ended = True
        lines = [self._end_line().rstrip("\n")] if self.line else []  # the line itself is written
        self.line = ""
        bad = [r for r in records if not as_expected(r)]
        found = [r for r in records if as_expected(r) and record_finding(r)] if self.verbosity == 0 else []
        if found:
            lines += ["", "findings (as expected):"]
            for r in found:
                lines += [result_line(r, self.id_width), *detail_lines(r)]
        if bad and self.verbosity >= 0:
            lines += ["", "not as expected:"]
            for r in bad:
                lines += [result_line(r, self.id_width), *detail_lines(r)]
        if found or (bad and self.verbosity >= 0):
            lines.append("")
        lines.append(summary_line(records, wall, not_run, why_not_run))
        self.out.write("\n".join(lines) + "\n")
        self.out.flush()
