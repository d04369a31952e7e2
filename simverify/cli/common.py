"""What every command shares: one-line refusals, --set parsing, claim selection (ids, --paper, --all, -k)."""
from __future__ import annotations

import json
import math
import re
import sys
from contextlib import contextmanager

from .. import registry
from ..exceptions import UsageError

DEFAULT_REPORT = "simverify-report"  # report's default --out (ignored by git; the reference is 'report --reference')


@contextmanager
def _refused():
    """Turn ValueError/TypeError raised while a run is planned into bad input (exit 2, one line)."""
    try:
        yield
    except (ValueError, TypeError) as exc:
        raise UsageError(" ".join(str(exc).split())) from None


def printable(text) -> str:
    """``text`` on one line: control characters (a newline in a file's name) written as escapes ('\\n')."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))


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
    """The claims a command runs: ids (with ``--controls`` their controls), a paper, or all; then ``-k``."""
    expr = getattr(args, "k", None)
    if args.ids and (args.all or args.paper):
        raise UsageError("give claim ids, or --paper/--all, not both")
    if args.ids:
        chosen = [registry.get(i) for i in dict.fromkeys(args.ids)]
        if getattr(args, "controls", False):
            named = {c.id for c in chosen}
            extra: dict[str, list] = {}
            for c in registry.all_claims(None, controls=True):
                if c.control_of in named and c.id not in named:
                    extra.setdefault(c.control_of, []).append(c)
            chosen = [x for c in chosen for x in (c, *extra.get(c.id, []))]
    elif args.all or args.paper or expr is not None or getattr(args, "lf", False):
        if args.paper and args.paper not in registry.papers():
            raise UsageError(f"unknown paper {args.paper!r}; papers are {registry.papers()}")
        chosen = registry.all_claims(args.paper, controls=not args.no_controls)
    else:
        raise UsageError("name claim ids, or use --paper P, --all or -k EXPR")
    if expr is not None:
        match = keyword_matcher(expr)
        kept = [c for c in chosen if match(c.id)]
        if not kept:
            raise UsageError(f"-k {expr!r} matches no claim id of the {len(chosen)} selected")
        chosen = kept
    return chosen


MAX_K_NESTING = 50  # -k: deeper nesting of '(' and 'not' is refused (the matcher recurses once per level)


def _nesting(tokens: list[str]) -> int:
    """The deepest nesting of parentheses and 'not's in a -k expression's tokens."""
    levels: list[int] = [0]  # per open parenthesis, the 'not's and '('s that enclose it
    deepest = nots = 0
    for t in tokens:
        if t == "(":
            levels.append(levels[-1] + nots + 1)
            nots = 0
        elif t == ")":
            if len(levels) > 1:
                levels.pop()
            nots = 0
        elif t == "not":
            nots += 1
        else:
            nots = 0
        deepest = max(deepest, levels[-1] + nots)
    return deepest


def keyword_matcher(expr: str):
    """A predicate on claim ids from a ``-k`` expression, as pytest's: words match as case-insensitive
    substrings, combined with ``not``, ``and``, ``or`` and parentheses (no eval). UsageError when malformed."""
    tokens = re.findall(r"\(|\)|[^\s()]+", expr)
    pos = 0

    def peek():
        return tokens[pos] if pos < len(tokens) else None

    def take():
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def bad(why: str):
        return UsageError(f"-k {expr!r}: {why}")

    def disjunction():
        terms = [conjunction()]
        while peek() == "or":
            take()
            terms.append(conjunction())
        return lambda s: any(t(s) for t in terms)

    def conjunction():
        terms = [negation()]
        while peek() == "and":
            take()
            terms.append(negation())
        return lambda s: all(t(s) for t in terms)

    def negation():
        if peek() == "not":
            take()
            inner = negation()
            return lambda s: not inner(s)
        return atom()

    def atom():
        token = peek()
        if token is None:
            raise bad("ends where a word or '(' is expected")
        if token in ("and", "or", ")"):
            raise bad(f"unexpected {token!r}")
        take()
        if token == "(":
            inner = disjunction()
            if peek() != ")":
                raise bad("missing ')'")
            take()
            return inner
        word = token.lower()
        return lambda s: word in s.lower()

    if not tokens:
        raise bad("empty expression")
    if _nesting(tokens) > MAX_K_NESTING:
        raise bad(f"nests deeper than {MAX_K_NESTING} levels of '(' and 'not'")
    try:
        match = disjunction()
    except RecursionError:  # a nesting the depth count above did not foresee
        raise bad("nests too deep") from None
    if pos != len(tokens):
        raise bad(f"unexpected {tokens[pos]!r}")
    return match


def _controls_note(skipped: list[str]) -> None:
    if skipped:
        _note(f"controls not run: {', '.join(skipped)} (add --controls to run the named claims' controls)")


def _controls_not_run(args, claims: list) -> list[str]:
    """With claim ids named: the ids of their controls left out of the run (``--controls`` adds them)."""
    if not args.ids or getattr(args, "controls", False):
        return []
    ids = {c.id for c in claims}
    named = {c.id for c in claims if c.control_of is None}
    return [c.id for c in registry.all_claims(None, controls=True) if c.control_of in named and c.id not in ids]


def _note(text: str) -> None:
    sys.stderr.write(f"simverify: {text}\n")
    sys.stderr.flush()
