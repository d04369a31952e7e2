"""Executors that run cell tasks: serial, local processes (spawn) and Dask distributed.

``map_unordered`` submits all tasks at once (so workers start while the caller is busy) and
returns an iterator of ``(task, outputs)`` in completion order; the caller stores each at once.
Results do not depend on the executor: each cell's seed comes from its content.
Process pools use the ``spawn`` start method (never fork after Numba threads ran) and give each
worker ``cores // workers`` Numba threads, never more than a ``NUMBA_NUM_THREADS`` the user set, and one BLAS
thread. Cells run BLAS on one thread under any executor (``sweep.compute_cell``).
Their workers ignore SIGINT (the parent alone handles an interruption and stops them) and exit
when the parent dies, even when it is killed.
"""
from __future__ import annotations

import concurrent.futures as cf
import concurrent.futures.process as cf_process
import importlib.util
import logging
import multiprocessing as mp
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

from .hostinfo import unpinned_kernels

PARENT_POLL_S = 0.5     # how often a pool worker looks whether its parent is still alive
CONNECT_TIMEOUT_S = 2.0  # reachability probe of a scheduler address


class Executor:
    """Used as a context manager: leaving it by an exception (an interruption included) aborts
    the work still running, leaving it normally waits for the work submitted. ``parallel``: it may run
    several tasks at once (in separate processes)."""
    parallel = True

    def close(self, abort: bool = False) -> None:
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close(abort=exc_type is not None)


_UNPINNED_WARNED = False


def _warn_unpinned() -> None:
    """Once per process: say when cells computed here run other OpenBLAS kernels than the pinned ones."""
    global _UNPINNED_WARNED
    if _UNPINNED_WARNED:
        return
    _UNPINNED_WARNED = True
    other = unpinned_kernels()
    if other:
        import warnings
        warnings.warn(f"OpenBLAS was loaded with its {', '.join(other)} kernels before simverify set "
                      f"OPENBLAS_CORETYPE={os.environ['OPENBLAS_CORETYPE']}: cells computed in this process may differ "
                      "in their last digits from other hosts' (import simverify before NumPy, or set the variable "
                      "before starting Python)", RuntimeWarning, stacklevel=3)


class SerialExecutor(Executor):
    name = "serial"
    parallel = False

    def map_unordered(self, fn: Callable, tasks: Iterable) -> Iterator:
        _warn_unpinned()
        for t in tasks:
            yield t, fn(t)

    def close(self, abort: bool = False) -> None:
        pass


def _exit_with_parent(parent: int) -> None:
    """Poll until the process is no longer ``parent``'s child (it died), then exit at once."""
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_S)
    os._exit(1)


@contextmanager
def _sigint_blocked():
    """Block SIGINT in this thread: processes it spawns meanwhile start with SIGINT blocked, so a
    Ctrl-C while a worker still imports cannot interrupt it (its initializer then ignores SIGINT)."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _one_blas_thread_in_worker() -> None:
    """One BLAS thread for whatever a worker runs besides cells (figures; cells hold their own limit,
    ``sweep.compute_cell``), so that the workers' BLAS threads do not oversubscribe the cores: the variables rule the
    libraries loaded later (a spawned worker has usually loaded none yet), threadpoolctl those loaded already (a
    parent ``__main__`` that imported NumPy is imported again in the worker)."""
    for name in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
        os.environ[name] = "1"
    from threadpoolctl import threadpool_limits
    threadpool_limits(limits=1, user_api="blas")


def _init_worker(threads: int, parent: int) -> None:
    os.environ["NUMBA_NUM_THREADS"] = str(threads)
    _one_blas_thread_in_worker()
    if "numba" in sys.modules:  # imported before the variable took effect (e.g. by the parent's __main__)
        import numba
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a SIGINT pending since the spawn is discarded here
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    threading.Thread(target=_exit_with_parent, args=(parent,), name="exit-with-parent", daemon=True).start()


def worker_threads(workers: int) -> int:
    """Numba threads per worker: the cores shared among the workers, capped by the user's NUMBA_NUM_THREADS."""
    threads = max(1, (os.cpu_count() or 1) // workers)
    user = os.environ.get("NUMBA_NUM_THREADS", "").strip()
    return min(threads, int(user)) if user.isdigit() and int(user) >= 1 else threads


class ProcessExecutor(Executor):
    """A spawn-based process pool on this machine."""
    name = "processes"

    def __init__(self, workers: int | None = None):
        self.workers = workers or os.cpu_count() or 1
        self.parallel = self.workers > 1
        threads = worker_threads(self.workers)
        old = os.environ.get("NUMBA_NUM_THREADS")
        os.environ["NUMBA_NUM_THREADS"] = str(threads)  # inherited by spawned children
        try:
            self.pool = cf.ProcessPoolExecutor(self.workers, mp_context=mp.get_context("spawn"),
                                               initializer=_init_worker, initargs=(threads, os.getpid()))
        finally:
            if old is None:
                os.environ.pop("NUMBA_NUM_THREADS", None)
            else:
                os.environ["NUMBA_NUM_THREADS"] = old

    def map_unordered(self, fn, tasks):
        """Submits every task now; the returned iterator yields them as they finish."""
        with _sigint_blocked():  # submit() spawns the workers
            futures = {self.pool.submit(fn, t): t for t in tasks}
        return self._completed(futures)

    @staticmethod
    def _completed(futures):
        try:
            for fut in cf.as_completed(futures):
                yield futures[fut], fut.result()
        except BaseException:
            for fut in futures:
                fut.cancel()
            raise

    def close(self, abort: bool = False) -> None:
        """Wait for the submitted tasks; ``abort``: cancel them and terminate the workers (their running
        cells are lost, and nothing of theirs is half-written: workers never write the store)."""
        if not abort:
            self.pool.shutdown(wait=True, cancel_futures=True)
            return
        manager = getattr(self.pool, "_executor_manager_thread", None)  # shutdown() forgets it
        _silence_thread(manager)
        procs = list((getattr(self.pool, "_processes", None) or {}).values())
        for proc in procs:
            proc.terminate()
        for proc in procs:  # a worker killed while it held the call queue's lock could block a waiting
            proc.join(timeout=2.0)  # shutdown forever: kill what is left, then do not wait
            if proc.is_alive():
                proc.kill()
        try:
            self.pool.shutdown(wait=False, cancel_futures=True)
        except Exception:  # the pool is broken by the terminated workers: nothing left to release
            pass
        if manager is not None:
            _unhook_at_exit(manager)
            manager.join(timeout=5.0)


def _unhook_at_exit(manager) -> None:
    """Python 3.11's exit hook writes to each registered manager's wake-up pipe unlocked (check, then write),
    racing the manager closing it after an abort: EBADF, and a traceback on stderr. What fixes it is the join
    that follows (the manager closes its pipe and marks it closed before it ends); unregistering matters when
    that join times out, and then the exit hook cannot wake a stuck manager, which interpreter exit still joins
    (as before) when the pool was made on a non-daemon thread. shutdown() has already woken the manager."""
    wakeups = getattr(cf_process, "_threads_wakeups", None)
    if wakeups is not None:
        wakeups.pop(manager, None)


def _silence_thread(thread) -> None:
    """Drop the traceback that ``thread`` (the pool's manager) prints when aborted workers break its
    pipes; exceptions of every other thread still reach the previous hook."""
    previous = threading.excepthook

    def hook(args):
        if args.thread is not thread:
            previous(args)
    if thread is not None:
        threading.excepthook = hook


class DaskExecutor(Executor):
    """Dask distributed: a scheduler address, or a LocalCluster of ``workers`` processes."""
    name = "dask"

    def __init__(self, address: str | None = None, workers: int | None = None):
        from dask.distributed import Client, LocalCluster
        self.cluster = None
        if address:
            try:
                self.client = Client(address, timeout="20s")
            except Exception as exc:  # whatever answers there, it is no usable scheduler
                raise ValueError(f"cannot use scheduler {address}: {type(exc).__name__}: {exc}") from None
        else:
            self.cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                                        processes=True, dashboard_address=None,
                                        silence_logs=logging.ERROR)  # an interrupted run ends in one line
            self.client = Client(self.cluster)

    def map_unordered(self, fn, tasks):
        """Submits every task now; the returned iterator yields them as they finish."""
        tasks = list(tasks)
        futures = self.client.map(fn, tasks, pure=False)
        return self._completed(futures, {f.key: t for f, t in zip(futures, tasks)})

    def _completed(self, futures, index):
        from dask.distributed import as_completed
        try:
            for fut in as_completed(futures):
                yield index[fut.key], fut.result()
        except BaseException:
            self.client.cancel(futures)
            raise

    def close(self, abort: bool = False) -> None:
        """Close the client (and a LocalCluster); the scheduler drops the tasks this client submitted."""
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def check_scheduler(scheduler: str) -> None:
    """Raise ValueError (one line) for an unknown scheduler, Dask missing, or an address that does
    not accept connections within CONNECT_TIMEOUT_S; does nothing else (no client, no cluster)."""
    if scheduler in ("serial", "processes"):
        return
    if scheduler != "dask" and "://" not in scheduler:
        raise ValueError(f"unknown scheduler {scheduler!r}: use serial, processes, dask or tcp://host:port")
    if importlib.util.find_spec("distributed") is None:
        raise ValueError(f"--scheduler {scheduler} needs Dask distributed: install simverify[dask]")
    parts = urlsplit(scheduler)
    if parts.scheme in ("tcp", "tls"):
        try:
            if parts.hostname is None or parts.port is None:
                raise ValueError("expected tcp://host:port")
            socket.create_connection((parts.hostname, parts.port), timeout=CONNECT_TIMEOUT_S).close()
        except (OSError, ValueError) as exc:
            raise ValueError(f"cannot reach scheduler {scheduler}: {exc}") from None


def make_executor(scheduler: str = "processes", workers: int | None = None):
    """``serial``, ``processes`` or a Dask address (``tcp://host:port``; ``dask`` = LocalCluster).
    Raises ValueError before creating anything when ``check_scheduler`` refuses the scheduler."""
    if workers is not None and workers < 1:
        raise ValueError(f"--workers must be >= 1, got {workers}")
    check_scheduler(scheduler)
    if scheduler == "serial":
        return SerialExecutor()
    if scheduler == "processes":
        return ProcessExecutor(workers)
    return DaskExecutor(None if scheduler == "dask" else scheduler, workers)
