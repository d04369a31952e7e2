"""The Lee background corpus (Lee, Pincombe and Welsh 2005: 300 Australian news documents), which ships inside
the ``gensim`` wheel as ``gensim/test/test_data/lee_background.cor``: the text corpus for the ten-topic protocol
of Li & Liang (2017), Table 1, whose 20newsgroups corpus cannot be downloaded here. The file is located without
importing gensim.

A user file in the same layout is accepted: UTF-8 text, one document per line. Malformed files are refused with
one line ``file: problem`` (``file:line: problem`` where there is a line)."""
from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import numpy as np

from ..validation import require

TOKEN_PATTERN = r"(?u)\b[a-zA-Z][a-zA-Z]+\b"
"""Words of two or more letters (numbers dropped, as in the topics of Table 1 they are noise)."""


def default_path() -> Path:
    """``lee_background.cor`` inside the installed gensim package (ValueError if gensim is not installed)."""
    spec = importlib.util.find_spec("gensim")
    require(spec is not None and bool(spec.submodule_search_locations),
            "the Lee corpus ships with the package gensim, which is not installed (pip install gensim)")
    return Path(list(spec.submodule_search_locations)[0]) / "test" / "test_data" / "lee_background.cor"


def load_documents(path: str | os.PathLike | None = None) -> list[str]:
    """The documents of ``path``, document i on line i + 1 (a blank line is refused); None reads the Lee corpus
    (300 documents)."""
    path = default_path() if path is None else Path(path)
    require(path.is_file(), f"{path}: no such file")
    lines = path.read_bytes().split(b"\n")
    if lines and not lines[-1].strip():
        lines.pop()  # the final newline
    require(len(lines) > 0, f"{path}: no documents (the file is empty)")
    docs = []
    for number, line in enumerate(lines, start=1):
        try:
            text = line.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise ValueError(f"{path}:{number}: not UTF-8 text") from None
        require(bool(text), f"{path}:{number}: a blank line (an empty document)")
        docs.append(text)
    return docs


def document_term_matrix(docs: list[str], *, min_df: int = 3, max_df: float = 0.5,
                         source: str = "corpus") -> tuple[np.ndarray, np.ndarray]:
    """(counts (N, W) float64, vocabulary (W,) str): English stop words removed, words in at least ``min_df``
    documents and at most a ``max_df`` fraction of them (scikit-learn's CountVectorizer). The Lee corpus gives
    (300, 2143)."""
    from sklearn.feature_extraction.text import CountVectorizer

    vectorizer = CountVectorizer(stop_words="english", min_df=min_df, max_df=max_df, token_pattern=TOKEN_PATTERN)
    try:
        counts = vectorizer.fit_transform(docs)
    except ValueError as err:  # "empty vocabulary" or "max_df corresponds to < documents than min_df"
        raise ValueError(f"{source}: no vocabulary left ({str(err).splitlines()[0][:80]})") from None
    return counts.toarray().astype(np.float64), np.asarray(vectorizer.get_feature_names_out())


def word_frequencies(counts: np.ndarray, source: str = "corpus") -> np.ndarray:
    """F (N, W): each document's counts divided by its length, so y = A* x with x on the simplex (Section 3)."""
    lengths = counts.sum(axis=1, keepdims=True)
    empty = np.flatnonzero(lengths[:, 0] == 0)
    require(empty.size == 0, f"{source}:{empty[0] + 1 if empty.size else 0}: the document has no word of the "
                             "vocabulary; drop it or lower min_df")
    return counts / lengths
