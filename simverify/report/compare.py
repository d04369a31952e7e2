"""``report --compare``: this report's rows against a baseline (a store, a report directory or its
``results.json``), per (claim, tier).

Each pair falls in one class:

- **verdict changed**: flagged;
- **moved**: the estimates differ by more than the two intervals allow. A record's interval is
  estimate +- z se at its confidence level; two runs of the same quantity with independent draws differ
  by at most z sqrt(se_old^2 + se_new^2) at that level, so the shift is flagged when it exceeds
  sqrt(h_old^2 + h_new^2), h being each interval's half-width on the side facing the other estimate
  (intervals need not be symmetric). Ratios (records with ``scale`` "log") are compared in logs. The
  same seed draws the same numbers, so any shift is a change of code or host; this flags the ones a
  fresh, independent run would not explain. An estimate that became (or stopped being) missing or
  non-finite is flagged too;
- **shifted within the intervals**: a difference above floating-point noise but inside that bound:
  counted, not flagged (the largest is named);
- **floating-point noise**: every difference of the estimate and interval ends at most ``NOISE`` times
  the pair's scale (the larger |estimate| or half-width): counted, not flagged;
- **identical**: the same estimate and interval, bit for bit.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from .rows import interval

NOISE = 1e-9  # relative: far above rounding amplified through a computation, far below any sampling error


@dataclass
class Comparison:
    """``changes``: the flagged pairs ({"id", "tier", "change", "old", "new"}); ``counts``: pairs per class
    (identical, noise, within, moved, verdict) and rows only here / only in the baseline; ``largest``: the
    unflagged pair shifted most against its allowance (id, tier, shift, allowed) or None; ``baseline``: what
    was compared against."""
    changes: list[dict] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    largest: tuple | None = None
    baseline: str = ""

    def summary(self) -> str:
        """One sentence of the counts (shown under the changes and printed by the command)."""
        c = self.counts
        text = (f"Compared with {self.baseline}: {c['both']} checks in both; {c['identical']} identical, "
                f"{c['noise']} differ by floating-point noise only (relative <= {NOISE:g}), {c['within']} shifted "
                f"within their intervals, {c['moved']} moved beyond them, {c['verdict']} changed verdict "
                f"(flagged: {len(self.changes)}); {c['only_new']} only in this report, {c['only_old']} only in "
                "the baseline.")
        if self.largest:
            cid, tier, shift, allowed = self.largest
            text += (f" Largest shift within the intervals: {cid} ({tier}), {shift:.3g} of the {allowed:.3g} "
                     "the intervals allow.")
        return text


def _number(x) -> float | None:
    """A record's number as a float; None for anything else (an integer past float's range included)."""
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        return None
    try:
        return float(x)
    except OverflowError:
        return None


def _finite(*xs) -> bool:
    return all(x is not None and math.isfinite(x) for x in xs)


def _on_scale(rec: dict, logs: bool) -> tuple[float, float, float]:
    est, lo, hi = _number(rec.get("estimate")), _number(rec["ci"][0]), _number(rec["ci"][1])
    return (math.log(est), math.log(lo), math.log(hi)) if logs else (est, lo, hi)


SETTINGS = ("claimed", "scale", "seed", "replicates", "confidence_level")  # equal, or the estimates do not compare


def classify(new: dict, old: dict) -> tuple[str, str, float, float]:
    """(class, what changed, shift, allowed) of one pair; class in identical, noise, within, moved, verdict, and
    "moved" also when the two records state the claim or run it differently (SETTINGS): their numbers do not
    compare, and that is flagged, not measured."""
    differ = [k for k in SETTINGS if k in old and k in new and old[k] != new[k]]
    if differ:
        return "moved", f"not comparable: {', '.join(differ)} changed ({interval(old)} -> {interval(new)})", \
            math.nan, math.nan
    kind, text, shift, allowed = _classify_estimate(new, old)
    if new["verdict"] != old["verdict"]:
        said = f"verdict {old['verdict']} -> {new['verdict']}"
        return "verdict", f"{said}; {text}" if kind == "moved" else f"{said} ({interval(old)} -> {interval(new)})", \
            shift, allowed
    return kind, text, shift, allowed


def _classify_estimate(new: dict, old: dict) -> tuple[str, str, float, float]:
    a = [_number(old.get("estimate")), *map(_number, old["ci"])]
    b = [_number(new.get("estimate")), *map(_number, new["ci"])]
    if all(x == y or (x is None and y is None) or (x is not None and y is not None and math.isnan(x) and math.isnan(y))
           for x, y in zip(a, b)):
        return "identical", "", 0.0, 0.0
    if not (_finite(*a) and _finite(*b)):
        return "moved", f"estimate {interval(old)} -> {interval(new)} (not finite in one)", math.nan, math.nan
    scale = max(abs(a[0]), abs(b[0]), (a[2] - a[1]) / 2, (b[2] - b[1]) / 2)
    if all(abs(x - y) <= NOISE * scale for x, y in zip(a, b)):
        return "noise", "", max(abs(x - y) for x, y in zip(a, b)), NOISE * scale
    logs = "log" in (new.get("scale"), old.get("scale")) and min(*a, *b) > 0
    (e0, lo0, hi0), (e1, lo1, hi1) = _on_scale(old, logs), _on_scale(new, logs)
    up = e1 > e0
    h_old, h_new = (hi0 - e0, e1 - lo1) if up else (e0 - lo0, hi1 - e1)
    shift, allowed = abs(e1 - e0), math.hypot(max(h_old, 0.0), max(h_new, 0.0))
    if shift > allowed:
        where = " in logs" if logs else ""
        return "moved", (f"interval moved {interval(old)} -> {interval(new)} (shift{where} {shift:.3g} > "
                         f"{allowed:.3g}, what the two intervals allow)"), shift, allowed
    return "within", "", shift, allowed


def compare(new: list[dict], old: list[dict], baseline: str = "the baseline") -> Comparison:
    """Every (claim, tier) of ``new`` against the same in ``old`` (see the module's docstring)."""
    before = {(r["id"], r["tier"]): r for r in old}
    after = {(r["id"], r["tier"]) for r in new}
    counts = dict.fromkeys(("both", "identical", "noise", "within", "moved", "verdict"), 0)
    counts["only_new"] = sum(k not in before for k in after)
    counts["only_old"] = sum(k not in after for k in before)
    out = Comparison(counts=counts, baseline=baseline)
    best = 0.0
    for r in new:
        o = before.get((r["id"], r["tier"]))
        if o is None:
            continue
        counts["both"] += 1
        kind, text, shift, allowed = classify(r, o)
        counts[kind] += 1
        if kind in ("moved", "verdict"):
            out.changes.append({"id": r["id"], "tier": r["tier"], "change": text, "old": o, "new": r})
        elif kind == "within" and allowed > 0 and shift / allowed > best:
            best, out.largest = shift / allowed, (r["id"], r["tier"], shift, allowed)
    return out
