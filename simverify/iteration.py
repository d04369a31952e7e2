"""The iteration protocol: how iterative and streaming solvers report their progress.

An iterative solver is a generator yielding ``(t, state)`` with t the iteration count
(0 = the start) or, for a streaming solver, the number of samples absorbed so far, in
increasing order; it may stop early. A measure samples metrics of the state at fixed
checkpoints with :func:`record`, so that every replicate's trajectory has the same length
and a Dataset dim (e.g. ``iteration``) can hold it; checkpoints never reached are NaN,
which the laws (e.g. :class:`simverify.laws.LinearRate`) leave out.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import pairwise
from typing import TypeVar

import numpy as np

S = TypeVar("S")


def _checked(checkpoints: Sequence[int]) -> list[int]:
    cps = [int(c) for c in checkpoints]
    if any(c < 0 for c in cps) or any(b <= a for a, b in pairwise(cps)):
        raise ValueError(f"checkpoints must be non-negative and strictly increasing, got {list(checkpoints)}")
    return cps


def record(iterates: Iterable[tuple[int, S]], metrics: Mapping[str, Callable[[S], float]],
           checkpoints: Sequence[int]) -> dict[str, np.ndarray]:
    """Sample ``metrics`` of the yielded states at the checkpoints.

    Returns one float array (len(checkpoints),) per metric: entry k is the metric of the
    state yielded with t == checkpoints[k], NaN when no state had that t (the solver stopped
    early, or its counter skipped the checkpoint). ``iterates`` is not advanced past the
    state of the last checkpoint. Raises ValueError unless the checkpoints are non-negative
    and strictly increasing.
    """
    cps = _checked(checkpoints)
    out = {name: np.full(len(cps), np.nan) for name in metrics}
    k = 0
    if not cps:
        return out
    for t, state in iterates:
        while k < len(cps) and cps[k] < t:
            k += 1
        if k == len(cps):
            break
        if t == cps[k]:
            for name, metric in metrics.items():
                out[name][k] = metric(state)
            k += 1
            if k == len(cps):
                break
    return out
