"""Every exception class simverify defines, in one module that imports nothing of the package (any layer may
raise them, and the CLI catches the same classes even when run as ``python -m simverify.cli``, which imports
``simverify.cli`` a second time)."""
from __future__ import annotations

from pathlib import Path


class UsageError(Exception):
    """Bad usage or bad input: the CLI prints the message in one line and exits with status 2."""


class WriteFailed(Exception):
    """Writing output failed after some of it was written (a file made immutable, a full disk): the CLI prints the
    message in one line, which says what is incomplete, and exits with status 1."""


class UnknownClaim(KeyError):
    """An id that no registered claim (or control) carries."""

    def __str__(self):
        return f"unknown claim id {self.args[0]!r} (see 'simverify list')"


class IncompatibleStore(ValueError):
    """The store was written by a simverify with another layout."""


class NoResults(ValueError):
    """The store holds no readable verdict record (of the tier asked for)."""


class UnreadableFile(Exception):
    """A data file the report names instead of drawing."""

    def __init__(self, path: Path, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = path, reason
