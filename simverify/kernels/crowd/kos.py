"""Karger, Oh & Shah (2011)'s message passing (a binary baseline)."""
from __future__ import annotations

import numpy as np
from numba import njit

from ..jit import JIT


@njit(**JIT)
def kos_messages(item, worker, sign, n_items, n_workers, y0, n_iter):
    """Karger, Oh & Shah (2011) message passing on the item-worker graph of binary answers sign (+1/-1):
    x_{i->m} = sum_{m' != m} A_{im'} y_{m'->i}, y_{m->i} = sum_{i' != i} A_{i'm} x_{i'->m}, from y0 (n,) per
    answer; returns the item scores sum_m A_{im} y_{m->i} (n_items,). Messages are rescaled each iteration
    (the sign is what matters)."""
    n = item.size
    y = y0.copy()
    x = np.empty(n)
    for _ in range(n_iter):
        item_sum = np.zeros(n_items)
        for a in range(n):
            item_sum[item[a]] += sign[a] * y[a]
        for a in range(n):
            x[a] = item_sum[item[a]] - sign[a] * y[a]
        worker_sum = np.zeros(n_workers)
        for a in range(n):
            worker_sum[worker[a]] += sign[a] * x[a]
        scale = 0.0
        for a in range(n):
            y[a] = worker_sum[worker[a]] - sign[a] * x[a]
            scale = max(scale, abs(y[a]))
        if scale > 0.0:
            y /= scale
    score = np.zeros(n_items)
    for a in range(n):
        score[item[a]] += sign[a] * y[a]
    return score
