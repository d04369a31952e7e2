"""@njit primitives only: random streams, one-bit sensing, rank-two EVD updates.

Kernels know nothing of claims, sweeps or papers' experiments. The ``@njit`` kernels other
layers call have public names and assume clean input (the generators and solvers validate);
``_``-prefixed names are helpers used only inside their own module.
"""
