"""For tests that interrupt a child process with SIGINT."""
import signal


def sigint_by_default() -> None:
    """A ``preexec_fn``: the child starts with SIGINT's default disposition. A test run launched in the
    background by a non-interactive shell inherits SIGINT ignored, and so would every child; Python then
    never raises KeyboardInterrupt and an interruption test would wait for a run that ignores Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
