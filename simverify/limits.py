"""Per-cell limits: a cell that computes past its time limit, or whose process holds more resident memory than its
ceiling, is stopped and reported, and the run goes on with the other cells (docs/cli.md, "Limits").

A watchdog thread beside the cell looks at the clock and the process's resident memory every ``POLL_S`` and, past
a limit, raises ``LimitExceeded`` in the cell's thread, again every ``POLL_S`` until the cell has ended (a measure,
or a library callback, that swallows one is hit by the next). Python delivers it at the cell's next bytecode, so a
cell inside one long compiled kernel stops when that kernel returns. With ``hard_exit`` (the process pool's
workers, never the caller's own process nor a Dask worker, whose nanny would restart and retry it) a cell still
running ``HARD_GRACE_S`` after its limit ends its worker with a line on stderr, and the run stops as for any worker
that dies.
"""
import ctypes
import math
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

POLL_S = 0.05
HARD_GRACE_S = 60.0


@dataclass(frozen=True)
class CellLimits:
    """``seconds``: compute (wall) seconds of one cell; ``memory``: resident bytes of the process running it (its
    imports and earlier cells' leftovers included). None: no limit. ``hard_exit``: a cell that does not stop
    within HARD_GRACE_S of its limit ends the process (set only for pool workers)."""
    seconds: float | None = None
    memory: float | None = None
    hard_exit: bool = False

    def __post_init__(self):
        for name in ("seconds", "memory"):
            v = getattr(self, name)
            if v is not None and not (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                                      and v > 0):
                raise ValueError(f"CellLimits: {name} must be a positive finite number or None, got {v!r}")
        if not isinstance(self.hard_exit, bool):
            raise ValueError(f"CellLimits: hard_exit must be a bool, got {self.hard_exit!r}")

    @property
    def active(self) -> bool:
        return self.seconds is not None or self.memory is not None


@dataclass(frozen=True)
class CellFailure:
    """What stopped a cell: ``reason`` is one line ("ran past its time limit of 600 s")."""
    reason: str


class LimitExceeded(BaseException):
    """Raised in a cell's thread by its watchdog (a BaseException, so that a measure's ``except Exception``
    cannot swallow it)."""


def resident_bytes() -> float | None:
    """This process's resident memory in bytes (None where /proc is not available)."""
    try:
        with open("/proc/self/statm") as fh:
            return float(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


_UNSAFE_PACKAGES = ("numba", "llvmlite", "weakref")  # compilers, and weakref.finalize's callbacks


def _in_unsafe_code(thread_id: int) -> bool:
    """Whether the thread runs Python code of Numba or llvmlite (compiling, loading a cache: a stop raised there
    crashed the process once), a weakref.finalize callback or a ``__del__`` (where it would be printed and ignored):
    the stop waits. By module name, so a checkout under a directory named numba is no exception."""
    frame = sys._current_frames().get(thread_id)
    while frame is not None:
        module = str(frame.f_globals.get("__name__", ""))
        if frame.f_code.co_name == "__del__" or module.partition(".")[0] in _UNSAFE_PACKAGES:
            return True
        frame = frame.f_back
    return False


def _raise_in(thread_id: int, exc: type | None) -> None:
    """Schedule ``exc`` (None: clear a scheduled one) in the thread ``thread_id``."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id),
                                               ctypes.py_object(exc) if exc is not None else None)


class _Watchdog:
    def __init__(self, limits: CellLimits, show_bytes: Callable[[float], str]):
        self.limits, self.show_bytes = limits, show_bytes
        self.target = threading.get_ident()
        self.lock, self.done, self.stop = threading.Lock(), False, threading.Event()
        self.reason: str | None = None
        self.hit_at: float | None = None
        self.start = time.perf_counter()
        self.thread = threading.Thread(target=self._watch, name="cell-watchdog", daemon=True)

    def _over(self) -> str | None:
        lim = self.limits
        if lim.seconds is not None and time.perf_counter() - self.start > lim.seconds:
            return f"ran past its time limit of {lim.seconds:g} s"
        rss = resident_bytes() if lim.memory is not None else None
        if rss is not None and rss > lim.memory:
            return (f"held {self.show_bytes(rss)} of resident memory, past its ceiling of "
                    f"{self.show_bytes(lim.memory)}")
        return None

    def _watch(self) -> None:
        while not self.stop.wait(POLL_S):
            reason = self.reason or self._over()
            if reason is None:
                continue
            with self.lock:
                if self.done:
                    return
                self.reason = reason
                if not _in_unsafe_code(self.target):
                    _raise_in(self.target, LimitExceeded)  # again each poll until the cell has ended
            if (self.limits.hard_exit and mp.parent_process() is not None
                    and time.perf_counter() - self.first_hit() > HARD_GRACE_S):
                sys.stderr.write(f"simverify: a cell {reason} and did not stop within {HARD_GRACE_S:g} s (inside one "
                                 "compiled kernel?): its worker is ended\n")
                sys.stderr.flush()
                os._exit(3)

    def first_hit(self) -> float:
        """When the limit was first seen passed (perf_counter seconds)."""
        if self.hit_at is None:
            self.hit_at = time.perf_counter()
        return self.hit_at

    def finish(self) -> None:
        with self.lock:
            self.done = True
            if self.reason is not None:
                _raise_in(self.target, None)  # not delivered yet: cleared (the cell is reported stopped anyway)
        self.stop.set()


def _settle(dog: _Watchdog) -> None:
    """dog.finish(), again if a stop raised before it took its lock arrives meanwhile (re-raises come POLL_S apart)."""
    while True:
        try:
            dog.finish()
            return
        except LimitExceeded:
            pass


def run_limited(fn: Callable[..., Any], limits: CellLimits, *args) -> Any:
    """``fn(*args)`` under ``limits``; returns its result, or a CellFailure when a limit was passed (also when fn
    swallowed the stop and returned: a cell past its limit is never reported as done)."""
    from .footprint import human_bytes
    if not limits.active:
        return fn(*args)
    dog = _Watchdog(limits, human_bytes)
    dog.thread.start()
    out = None
    try:
        try:
            out = fn(*args)
        finally:
            _settle(dog)
    except LimitExceeded as stop:  # delivered in fn, or as the finally clause began
        _settle(dog)
        _reraise_interruption(stop)
    except Exception as err:  # the stop turned into another error on its way out (below)
        stop = _stop_behind(err)
        if dog.reason is None or stop is None:
            raise
        _settle(dog)
        _reraise_interruption(stop)
    dog.thread.join()
    if dog.reason is None:  # a cell that ended between two looks past a limit is stopped all the same
        dog.reason = dog._over()
    return out if dog.reason is None else CellFailure(dog.reason)


def _stop_behind(err: BaseException) -> LimitExceeded | None:
    """The stop among ``err``'s causes and contexts, or None. A stop delivered in Python code that compiled code
    called (Numba's unpickling of a constant, say) comes back as that call's error: "SystemError: CPUDispatcher(...)
    returned a result with an exception set", the stop as its cause."""
    seen, exc = set(), err
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, LimitExceeded):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def _reraise_interruption(stop: LimitExceeded) -> None:
    """A stop delivered while an interruption (Ctrl-C, SIGTERM, SystemExit) was propagating replaced it: raise the
    interruption again. A stop delivered inside a Python signal handler
    (pending since before the signal, it fires at the handler's first instruction) preempted it: run the handler
    again, so that it raises what it raises."""
    seen, exc = set(), stop.__context__
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):  # not GeneratorExit: a generator's close() is no
            raise exc                                          # interruption of the run
        exc = exc.__context__
    handlers = {}
    for signum in (signal.SIGINT, signal.SIGTERM):
        handler = signal.getsignal(signum)
        if callable(handler) and hasattr(handler, "__code__"):
            handlers[handler.__code__] = (handler, signum)
    tb = stop.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code in handlers:
            handler, signum = handlers[tb.tb_frame.f_code]
            handler(signum, None)
        tb = tb.tb_next
