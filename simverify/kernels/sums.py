"""Sums in a fixed order of four lanes: lane j holds the terms i = j mod 4 in order, the remainder in lanes 0-2,
the total (l0 + l1) + (l2 + l3). Four independent additions per step instead of one chain, and the same bits on
every host and thread count (reassociated sums would depend on the host's vector width)."""
from __future__ import annotations

from numba import njit

from .jit import JIT


@njit(**JIT)
def lane_sum(e):
    """sum_i e_i over an (n,) array in four lanes (the module's order)."""
    a0 = a1 = a2 = a3 = 0.0
    n = e.size
    m = n - n % 4
    for i in range(0, m, 4):
        a0 += e[i]
        a1 += e[i + 1]
        a2 += e[i + 2]
        a3 += e[i + 3]
    if m < n:
        a0 += e[m]
    if m + 1 < n:
        a1 += e[m + 1]
    if m + 2 < n:
        a2 += e[m + 2]
    return (a0 + a1) + (a2 + a3)


@njit(**JIT)
def lane_dot(a, b):
    """sum_i a_i b_i over (n,) arrays in four lanes (the module's order)."""
    a0 = a1 = a2 = a3 = 0.0
    n = a.size
    m = n - n % 4
    for i in range(0, m, 4):
        a0 += a[i] * b[i]
        a1 += a[i + 1] * b[i + 1]
        a2 += a[i + 2] * b[i + 2]
        a3 += a[i + 3] * b[i + 3]
    if m < n:
        a0 += a[m] * b[m]
    if m + 1 < n:
        a1 += a[m + 1] * b[m + 1]
    if m + 2 < n:
        a2 += a[m + 2] * b[m + 2]
    return (a0 + a1) + (a2 + a3)


@njit(**JIT)
def lane_scaled_dot(a, w, b):
    """sum_i a_i w_i b_i over (n,) arrays in four lanes (the module's order)."""
    a0 = a1 = a2 = a3 = 0.0
    n = a.size
    m = n - n % 4
    for i in range(0, m, 4):
        a0 += a[i] * w[i] * b[i]
        a1 += a[i + 1] * w[i + 1] * b[i + 1]
        a2 += a[i + 2] * w[i + 2] * b[i + 2]
        a3 += a[i + 3] * w[i + 3] * b[i + 3]
    if m < n:
        a0 += a[m] * w[m] * b[m]
    if m + 1 < n:
        a1 += a[m + 1] * w[m + 1] * b[m + 1]
    if m + 2 < n:
        a2 += a[m + 2] * w[m + 2] * b[m + 2]
    return (a0 + a1) + (a2 + a3)
