"""Random draws of answers: Dawid-Skene answers and observed machine labels, from the project's streams."""
from __future__ import annotations

import numpy as np
from numba import njit

from ..jit import JIT
from ..streams import next_uniform


@njit(**JIT)
def _answer_buffers(size):
    """(item, worker, label) int64 arrays of ``size`` for a chunk's answers, cut to the count drawn."""
    return np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)


@njit(**JIT)
def draw_answers(g, truth, confusion_cdf, p_answer, item_start):
    """Dawid-Skene answers for items item_start.. of one chunk from one stream g (4,) uint64 (``kernels.streams``):
    item i, worker m answers with probability p_answer[i, m] (an (n_chunk, M) array), a label drawn from confusion
    column truth[i] (confusion_cdf (M, K, K): cumulative over the observed label). Returns (item, worker, label)
    int64 arrays."""
    n, M = p_answer.shape
    K = confusion_cdf.shape[1]
    item, worker, label = _answer_buffers(n * M)
    c = 0
    for i in range(n):
        for m in range(M):
            if next_uniform(g) < p_answer[i, m]:
                u = next_uniform(g)
                k = 0
                while k < K - 1 and u >= confusion_cdf[m, k, truth[i]]:
                    k += 1
                item[c], worker[c], label[c] = item_start + i, m, k
                c += 1
    return item[:c], worker[:c], label[:c]


@njit(**JIT)
def draw_observed(g, labels, p_answer, item_start):
    """Machine annotators (Tables 1-3): annotator m's fixed label labels[i, m] of item item_start + i is observed
    with probability p_answer[i, m] ((n_chunk, M) both), from one stream g (4,) uint64. Returns (item, worker, label)
    int64 arrays in item order."""
    n, M = labels.shape
    item, worker, label = _answer_buffers(n * M)
    c = 0
    for i in range(n):
        for m in range(M):
            if next_uniform(g) < p_answer[i, m]:
                item[c], worker[c], label[c] = item_start + i, m, labels[i, m]
                c += 1
    return item[:c], worker[:c], label[:c]
