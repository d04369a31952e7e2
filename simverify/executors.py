"""Executors that run cell tasks: serial, local processes (spawn) and Dask distributed.

``map_unordered`` submits all tasks at once (so workers start while the caller is busy) and
returns an iterator of ``(task, outputs)`` in completion order; the caller stores each at once.
Results do not depend on the executor: each cell's seed comes from its content.
Process pools use the ``spawn`` start method (never fork after Numba threads ran), and
give each worker ``cores // workers`` Numba threads.
"""
from __future__ import annotations

import concurrent.futures as cf
import multiprocessing as mp
import os
from typing import Callable, Iterable, Iterator


class SerialExecutor:
    name = "serial"

    def map_unordered(self, fn: Callable, tasks: Iterable) -> Iterator:
        for t in tasks:
            yield t, fn(t)

    def close(self):
        pass


def _init_worker(threads: int) -> None:
    os.environ["NUMBA_NUM_THREADS"] = str(threads)


class ProcessExecutor:
    """A spawn-based process pool on this machine."""
    name = "processes"

    def __init__(self, workers: int | None = None):
        self.workers = workers or os.cpu_count() or 1
        threads = max(1, (os.cpu_count() or 1) // self.workers)
        old = os.environ.get("NUMBA_NUM_THREADS")
        os.environ["NUMBA_NUM_THREADS"] = str(threads)  # inherited by spawned children
        try:
            self.pool = cf.ProcessPoolExecutor(self.workers, mp_context=mp.get_context("spawn"),
                                               initializer=_init_worker, initargs=(threads,))
        finally:
            if old is None:
                os.environ.pop("NUMBA_NUM_THREADS", None)
            else:
                os.environ["NUMBA_NUM_THREADS"] = old

    def map_unordered(self, fn, tasks):
        """Submits every task now; the returned iterator yields them as they finish."""
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

    def close(self):
        self.pool.shutdown(wait=True, cancel_futures=True)


class DaskExecutor:
    """Dask distributed: a scheduler address, or a LocalCluster of ``workers`` processes."""
    name = "dask"

    def __init__(self, address: str | None = None, workers: int | None = None):
        from dask.distributed import Client, LocalCluster
        self.cluster = None
        if address:
            self.client = Client(address, timeout="20s")
        else:
            self.cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                                        processes=True, dashboard_address=None)
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

    def close(self):
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def make_executor(scheduler: str = "processes", workers: int | None = None):
    """``serial``, ``processes`` or a Dask address (``tcp://host:port``; ``dask`` = LocalCluster)."""
    if workers is not None and workers < 1:
        raise ValueError(f"--workers must be >= 1, got {workers}")
    if scheduler == "serial":
        return SerialExecutor()
    if scheduler == "processes":
        return ProcessExecutor(workers)
    if scheduler == "dask":
        return DaskExecutor(None, workers)
    if "://" in scheduler:
        return DaskExecutor(scheduler, workers)
    raise ValueError(f"unknown scheduler {scheduler!r}: use serial, processes, dask or tcp://host:port")
