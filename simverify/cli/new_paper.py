"""``simverify new-paper KEY [--dir DIR] [--title TEXT]``: write a paper package in the contract's shape
(``simverify.scaffold``) that at once passes ``simverify check --paper KEY`` and its own claims test, then print the
next steps. Everything is checked first, and each refusal is one line with exit status 2 and nothing written: a KEY
that is not a lowercase Python identifier, a Python keyword, the key of a registered paper or the name of an
importable module; a DIR that is missing, not a directory or not writable; a DIR/KEY that exists (never
overwritten)."""
from __future__ import annotations

import argparse
import contextlib
import importlib.util
import keyword
import os
import re
import shlex
import sys
import unicodedata
from collections.abc import Iterator
from importlib.machinery import PathFinder
from pathlib import Path

from .. import registry, scaffold
from ..exceptions import UsageError

_KEY = re.compile(r"[a-z][a-z0-9_]*\Z")
MAX_KEY = 24  # a claim id, a file name and a line of the written package hold it
MAX_TITLE = 100  # the written package's lines stay within the project's 120 characters


def add_parser(sub, fmt) -> None:
    """Register ``new-paper`` on the top-level subparsers."""
    np_ = sub.add_parser("new-paper", help="write a new paper package (measure, sweep, claim, control, test)",
                         formatter_class=fmt,
                         description="Write DIR/KEY/: __init__.py, measures.py, sweeps.py, claims.py and "
                                     "tests/test_KEY_claims.py, a paper package whose quick tier passes at once "
                                     "(docs/adding-a-paper.md). Nothing is overwritten.")
    np_.add_argument("key", metavar="KEY", help="the paper key and package name: a lowercase Python identifier "
                                                f"of at most {MAX_KEY} characters")
    np_.add_argument("--dir", default=".", help="directory to write the package KEY/ into")
    np_.add_argument("--title", metavar="TEXT",
                     help=f"the paper's short title (at most {MAX_TITLE} characters), e.g. 'Doe (2024), A Bound' "
                          "(default: a placeholder)")
    np_.set_defaults(fn=cmd_new_paper)


def check_key(key: str) -> None:
    """Refuse a key that cannot name both a paper and a Python package."""
    if not _KEY.match(key):
        raise UsageError(f"paper key {key!r} must be a lowercase Python identifier: a-z first, then a-z, 0-9, _")
    if len(key) > MAX_KEY:
        raise UsageError(f"paper key {key[:MAX_KEY]}... is {len(key)} characters; use at most {MAX_KEY}")
    if keyword.iskeyword(key):
        raise UsageError(f"paper key {key!r} is a Python keyword; it cannot name a package")


def check_title(title: str | None, key: str) -> str:
    """The title to write: the one given (one line of printable text) or a placeholder."""
    if title is None:
        return scaffold.default_title(key)
    if not title.strip() or not title.isprintable():
        raise UsageError("--title must be one line of printable text")
    title = title.strip()
    width = max(_columns(repr(title)) - 2, _columns(scaffold.docstring_text(title)))  # as the package writes it
    if width > MAX_TITLE:
        raise UsageError(f"--title takes {width} columns as written in Python (a backslash or quote counts twice, a "
                         f"wide character twice); a short title has at most {MAX_TITLE}")
    return title


def _columns(text: str) -> int:
    """The columns ``text`` takes in a line, as a linter counts them (East Asian wide characters take two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def check_dir(directory: str) -> Path:
    """The directory to write into: it exists, is a directory and can be written."""
    if not directory.strip():
        raise UsageError("--dir names no path (an empty string)")
    path = Path(directory)
    if not path.exists():
        raise UsageError(f"--dir {directory} does not exist")
    if not path.is_dir():
        raise UsageError(f"--dir {directory} is not a directory")
    if not os.access(path, os.W_OK | os.X_OK):
        raise UsageError(f"--dir {directory} is not writable")
    return path


def check_target(parent: Path, key: str, shown: str) -> None:
    """Refuse when DIR/KEY exists (anything: a package, a file, a dangling link) or DIR holds a module KEY."""
    target = parent / key
    if os.path.lexists(target):
        raise UsageError(f"{os.path.join(shown, key)} already exists; refusing to overwrite it")
    if PathFinder.find_spec(key, [str(parent)]) is not None:
        raise UsageError(f"--dir {shown} already holds a module {key!r} (e.g. {key}.py); choose another key")


@contextlib.contextmanager
def _plugins_without(key: str) -> Iterator[None]:
    """$SIMVERIFY_PLUGINS without ``key`` while the registry loads: a user may name the package before it exists."""
    before = os.environ.get("SIMVERIFY_PLUGINS")
    if before is not None:
        os.environ["SIMVERIFY_PLUGINS"] = ",".join(n for n in before.split(",") if n.strip() != key)
    try:
        yield
    finally:
        if before is not None:
            os.environ["SIMVERIFY_PLUGINS"] = before


def check_unclaimed(key: str) -> None:
    """Refuse the key of a registered paper or the name of a module Python can import already."""
    try:
        with _plugins_without(key):
            taken = registry.citation(key) is not None or key in registry.papers()
    except ValueError as exc:  # a plugin named by the entry points or $SIMVERIFY_PLUGINS that cannot be imported
        raise UsageError(" ".join(str(exc).split())) from None
    if taken:
        raise UsageError(f"paper key {key!r} is taken by a registered paper (see 'simverify list --paper {key}')")
    try:
        found = key in sys.stdlib_module_names or importlib.util.find_spec(key) is not None
    except (ImportError, ValueError):
        found = True
    if found:
        raise UsageError(f"paper key {key!r} is the name of an importable module; the package would clash with it")


def next_steps(shown_dir: str, key: str) -> str:
    """What to do after the package is written (a few lines)."""
    d, where = shlex.quote(shown_dir), shlex.quote(os.path.join(shown_dir, key))
    return "\n".join([
        f"wrote {os.path.join(shown_dir, key)}/: __init__.py, measures.py, sweeps.py, claims.py, "
        f"tests/test_{key}_claims.py",
        f"  PYTHONPATH={d} SIMVERIFY_PLUGINS={key} simverify check --paper {key}   # every verdict as expected",
        f"  python -m pytest {where}/tests   # the paper's claims test",
        f"  then replace the placeholders: {key}/__init__.py (citation), measures.py (your measure), sweeps.py, "
        "claims.py",
        f"  installed as its own package: [project.entry-points.\"simverify.claims\"] {key} = \"{key}\" "
        "(docs/adding-a-paper.md)"])


def cmd_new_paper(args: argparse.Namespace) -> int:
    """Check everything, write the package, print the next steps; exit status 0."""
    key = args.key
    check_key(key)
    title = check_title(args.title, key)
    parent = check_dir(args.dir)
    check_target(parent, key, args.dir)
    check_unclaimed(key)
    try:
        scaffold.write_package(parent, key, title)
    except FileExistsError:
        raise UsageError(f"{os.path.join(args.dir, key)} already exists; refusing to overwrite it") from None
    except OSError as exc:
        raise UsageError(f"cannot write into --dir {args.dir}: {exc.strerror or exc}") from None
    print(next_steps(args.dir, key))
    return 0
