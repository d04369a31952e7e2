"""Counting kernels of the answers: the co-occurrence counts of Eq. (3) and the co-labelling test."""
from __future__ import annotations

import numpy as np
from numba import njit

from ..jit import JIT


@njit(**JIT)
def cooccurrence_counts(item_ptr, order, worker, label, n_workers, n_classes):
    """Eq. (3) before division: counts (M, M, K, K) with counts[m, j, a, b] = #items where m answered a and j
    answered b (m != j), and S (M, M) = #items co-labelled by m and j. Cost: sum over items of (answers)^2."""
    counts = np.zeros((n_workers, n_workers, n_classes, n_classes))
    S = np.zeros((n_workers, n_workers), dtype=np.int64)
    for i in range(item_ptr.size - 1):
        for a in range(item_ptr[i], item_ptr[i + 1]):
            m, km = worker[order[a]], label[order[a]]
            for b in range(item_ptr[i], item_ptr[i + 1]):
                j = worker[order[b]]
                if j != m:
                    counts[m, j, km, label[order[b]]] += 1.0
                    S[m, j] += 1
    return counts, S


@njit(**JIT)
def two_workers_share_an_item(item, worker):
    """Whether some item was answered by two different workers (one pass over the answers)."""
    if item.size == 0:
        return False
    first = np.full(item.max() + 1, -1, dtype=np.int64)
    for a in range(item.size):
        i = item[a]
        if first[i] < 0:
            first[i] = worker[a]
        elif first[i] != worker[a]:
            return True
    return False
