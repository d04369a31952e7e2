"""The answers the estimators' examples aggregate: six tasks (A-F), four workers, two labels."""
from __future__ import annotations

import pandas as pd

TASKS = list("AAAABBBBCCCCDDDDEEEEFFFF")  # each task answered by w1, w2, w3, w4 in turn
WORKERS = ["w1", "w2", "w3", "w4"] * 6
LABELS = list("yyyn" "nnny" "yyyy" "nnnn" "yyyy" "nnnn")  # w4 disagrees on A and B: its confusion is 2/3, 1/3


def example_answers(tie: bool = False) -> pd.DataFrame:
    """A (24, 3) frame with columns task, worker, label: tasks A-F each answered by w1-w4; the truth is y, n, y, n,
    y, n. ``tie=True``: task F's answers are n, n, y, y (a 2-2 tie) instead of n, n, n, n.

    >>> example_answers().groupby("task")["label"].agg("".join).tolist()
    ['yyyn', 'nnny', 'yyyy', 'nnnn', 'yyyy', 'nnnn']
    """
    if not isinstance(tie, bool):
        raise TypeError(f"example_answers: tie must be True or False, got {tie!r}")
    labels = LABELS[:20] + list("nnyy" if tie else "nnnn")
    return pd.DataFrame({"task": TASKS, "worker": WORKERS, "label": labels})
