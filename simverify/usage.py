"""The one exception of bad usage or bad input: the CLI prints its message in one line and exits with status 2.
Its own module, so that command modules raise the class ``simverify.cli.main`` catches even when the CLI runs as
``python -m simverify.cli`` (then ``simverify.cli`` is imported a second time, with a class of its own)."""


class UsageError(Exception):
    """Bad usage or bad input: exit status 2."""
