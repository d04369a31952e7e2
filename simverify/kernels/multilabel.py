"""Kernels of the multi-label baselines: the linear SVM's dual coordinate descent (Hsieh, Chang, Lin,
Keerthi, Sathiyamoorthi 2008), one label per parallel task."""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from .jit import JIT, PARALLEL_JIT
from .streams import next_below


@njit(**JIT)
def shuffled(g, n):
    """A uniform permutation of 0..n-1 (Fisher-Yates) from the stream g (4,) uint64."""
    p = np.arange(n)
    for i in range(n - 1, 0, -1):
        k = next_below(g, i + 1)
        p[i], p[k] = p[k], p[i]
    return p


@njit(**JIT)
def svm_dual_cd(g, X, y, C, epochs, sq_norms, w):
    """L2-regularised hinge-loss linear SVM, min_w ||w||^2/2 + C sum_i max(0, 1 - y_i <w, x_i>), by dual
    coordinate descent over ``epochs`` random permutations drawn from the stream g; w (d,) is written in place."""
    n = X.shape[0]
    alpha = np.zeros(n)
    w[:] = 0.0
    for _ in range(epochs):
        for i in shuffled(g, n):
            if sq_norms[i] == 0.0:
                continue
            grad = y[i] * np.dot(w, X[i]) - 1.0
            a = min(max(alpha[i] - grad / sq_norms[i], 0.0), C)
            if a != alpha[i]:
                w += (a - alpha[i]) * y[i] * X[i]
                alpha[i] = a


@njit(**PARALLEL_JIT)
def one_vs_all_svm(states, X, Y, C, epochs):
    """W (d1, d2): column j the SVM of label j (Y[:, j] in +-1), stream j ordering its epochs."""
    d2 = Y.shape[1]
    sq_norms = np.empty(X.shape[0])
    for i in range(X.shape[0]):
        sq_norms[i] = np.dot(X[i], X[i])
    Wt = np.zeros((d2, X.shape[1]))
    for jj in prange(d2):
        j = np.int64(jj)
        svm_dual_cd(states[j], X, np.ascontiguousarray(Y[:, j]), C, epochs, sq_norms, Wt[j])
    return Wt.T.copy()
