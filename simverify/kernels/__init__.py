"""@njit primitives only: random streams, one-bit sensing, rank-two EVD updates.

Kernels know nothing of claims, sweeps or papers' experiments. Each public function is
a thin validated wrapper; the ``_``-prefixed ``@njit`` kernels assume clean input.
"""
