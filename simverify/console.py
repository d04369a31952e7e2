"""The ``simverify`` console script's first module: it imports nothing heavy, so that a Ctrl-C or SIGTERM
while the command-line interface still imports (NumPy, Numba, xarray: about a second) ends the process in
one line, exit 130 or 143, instead of a traceback from inside an import."""
import os
import signal
import sys


def _during_imports(signum, frame) -> None:
    word = "interrupted" if signum == signal.SIGINT else "terminated"
    newline = "\n" if sys.stderr.isatty() else ""  # after the ^C the terminal echoed
    sys.stderr.write(f"{newline}simverify: {word} while starting; nothing was run or written\n")
    os._exit(130 if signum == signal.SIGINT else 143)


def entry() -> None:
    """Hold SIGINT and SIGTERM until the CLI is imported, then hand over to ``simverify.cli.entry``."""
    signal.signal(signal.SIGINT, _during_imports)
    signal.signal(signal.SIGTERM, _during_imports)
    from .cli import entry as cli_entry  # importing simverify pins the BLAS kernels first (simverify/__init__.py)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    cli_entry()
