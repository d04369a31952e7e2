"""MovieLens-100k (GroupLens) in its published layout: ``u.data``, one rating per line,
``user id <TAB> item id <TAB> rating <TAB> timestamp``, ids counted from 1. Lin et al. (2022), Table 1, fit
SLM and the factorization machine to one-hot user and item features of these ratings.

Malformed files are refused with ``file:line: problem``."""
from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..kernels.rng import as_seed_sequence
from ..validation import require


@dataclass(frozen=True)
class Ratings:
    """n ratings: user (n,) and item (n,) 0-based indices, rating (n,) floats; n_users, n_items: the id ranges."""
    user: np.ndarray
    item: np.ndarray
    rating: np.ndarray
    n_users: int
    n_items: int

    def __len__(self) -> int:
        return self.rating.size

    def subset(self, rows: np.ndarray) -> Ratings:
        """The ratings at ``rows``, with the same id ranges (so features keep their columns)."""
        return Ratings(self.user[rows], self.item[rows], self.rating[rows], self.n_users, self.n_items)


def _field(path: str, line_no: int, text: str, name: str, kind):
    try:
        value = kind(text)
    except ValueError:
        raise ValueError(f"{path}:{line_no}: {name} {text!r} is not a{'n integer' if kind is int else ' number'}") \
            from None
    if kind is int and value < 1:
        raise ValueError(f"{path}:{line_no}: {name} {value} must be a positive id (ids count from 1)")
    if kind is float and not np.isfinite(value):
        raise ValueError(f"{path}:{line_no}: {name} {text!r} is not finite")
    return value


def read_ratings(path: str | os.PathLike) -> Ratings:
    """Read a ``u.data`` file: every non-empty line has four tab-separated fields (user, item, rating, timestamp)."""
    path = os.fspath(path)
    users, items, ratings = [], [], []
    with open(path, encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 4:
                raise ValueError(f"{path}:{line_no}: expected 4 tab-separated fields (user, item, rating, timestamp), "
                                 f"got {len(parts)}")
            users.append(_field(path, line_no, parts[0], "user id", int))
            items.append(_field(path, line_no, parts[1], "item id", int))
            ratings.append(_field(path, line_no, parts[2], "rating", float))
            _field(path, line_no, parts[3], "timestamp", int)
    require(len(ratings) > 0, f"{path}: no ratings")
    user, item = np.array(users) - 1, np.array(items) - 1
    return Ratings(user, item, np.array(ratings, dtype=float), int(user.max()) + 1, int(item.max()) + 1)


def one_hot_features(r: Ratings) -> sp.csr_matrix:
    """X (n, n_users + n_items), sparse: row i has 1 in column user_i and in column n_users + item_i."""
    n = len(r)
    rows = np.repeat(np.arange(n), 2)
    cols = np.column_stack([r.user, r.n_users + r.item]).ravel()
    return sp.csr_matrix((np.ones(2 * n), (rows, cols)), shape=(n, r.n_users + r.n_items))


def train_test_split(r: Ratings, test_fraction: float, seed) -> tuple[Ratings, Ratings]:
    """A random split with round(test_fraction n) test ratings (Section 5.2 holds out 20 %)."""
    require(isinstance(test_fraction, float) and 0.0 < test_fraction < 1.0,
            f"test_fraction must be a float in (0, 1), got {test_fraction!r}")
    order = np.random.default_rng(as_seed_sequence(seed)).permutation(len(r))
    n_test = int(round(test_fraction * len(r)))
    return r.subset(np.sort(order[n_test:])), r.subset(np.sort(order[:n_test]))
