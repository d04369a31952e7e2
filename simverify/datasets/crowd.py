"""Crowdsourced labels in the published layouts of the crowdsourcing data sets (Ibrahim & Fu 2021 evaluate on them;
four ship in ``data/crowd/``, provenance in ``data/PROVENANCE.md``):

- format A: ``<name>.txt`` with ``item<TAB>worker<TAB>label`` per answer (1-based integers), and a truth file
  ``item<TAB>gold`` listing the items with a gold label;
- format B (Snow et al. 2008): one TSV with the header ``!amt_annotation_ids !amt_worker_ids orig_id response
  gold``, one answer per row, string worker and item ids, the gold label repeated on every row.

Both read into :class:`Answers`: integer codes for items, workers and classes (0-based; ids in order of first
appearance, labels sorted) beside the original ids. Policy on duplicates: a second answer by the same worker to the
same item is refused, naming both lines, since aggregators weigh every answer once. Malformed files are refused
with one line ``file:line: problem``."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simverify.validation import require

FORMAT_B_HEADER = ("!amt_annotation_ids", "!amt_worker_ids", "orig_id", "response", "gold")
SHIPPED = ("bluebird", "rte", "web", "temp")


@dataclass(frozen=True)
class Answers:
    """n answers: item, worker, label (n,) int64 codes; item_ids (n_items,), worker_ids (n_workers,), classes
    (n_classes,) the original values; gold (n_items,) int64 class codes, -1 where an item has no gold label."""
    item: np.ndarray
    worker: np.ndarray
    label: np.ndarray
    item_ids: np.ndarray
    worker_ids: np.ndarray
    classes: np.ndarray
    gold: np.ndarray

    @property
    def n_items(self) -> int:
        return len(self.item_ids)

    @property
    def n_workers(self) -> int:
        return len(self.worker_ids)

    @property
    def n_classes(self) -> int:
        return len(self.classes)


def shipped(name: str) -> Answers:
    """One of the shipped data sets by name (SHIPPED), with its gold labels."""
    require(name in SHIPPED, f"unknown crowd data set {name!r}; shipped: {list(SHIPPED)}")
    folder = Path(__file__).resolve().parent / "data" / "crowd"
    if name == "temp":
        return load_format_b(folder / "temp.standardized.tsv")
    return load_format_a(folder / f"{name}.txt", folder / f"{name}_truth.txt")


def _lines(path: Path) -> list[tuple[int, list[str]]]:
    """(line number, tab-separated fields) of every non-blank line; an empty file is refused."""
    require(path.is_file(), f"{path}: no such file")
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[:err.start].count(b"\n") + 1
        raise ValueError(f"{path}:{line}: not UTF-8 text") from None
    rows = [(i, line.rstrip("\r").split("\t")) for i, line in enumerate(text.split("\n"), start=1) if line.strip()]
    require(len(rows) > 0, f"{path}: no answers (the file is empty)")
    return rows


def _integer(path: Path, line: int, field: str, value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"{path}:{line}: {field} {value!r} is not an integer") from None


def _codes(values: list) -> tuple[np.ndarray, np.ndarray]:
    """Codes in order of first appearance, and the distinct values in that order."""
    index: dict = {}
    codes = np.array([index.setdefault(v, len(index)) for v in values], dtype=np.int64)
    return codes, np.array(list(index), dtype=object)


def _assemble(path: Path, rows: list[tuple], gold: dict) -> Answers:
    """rows (line, item id, worker id, label value) and gold {item id: (where, label value)} into Answers."""
    seen: dict = {}
    for line, item, worker, _ in rows:
        first = seen.setdefault((item, worker), line)
        require(first == line, f"{path}:{line}: worker {worker} answered item {item} again (first on line "
                               f"{first}); duplicate answers are refused")
    item, item_ids = _codes([r[1] for r in rows])
    worker, worker_ids = _codes([r[2] for r in rows])
    classes = np.array(sorted({r[3] for r in rows}))
    label = np.searchsorted(classes, np.array([r[3] for r in rows])).astype(np.int64)
    position = {v: i for i, v in enumerate(item_ids)}
    codes = np.full(len(item_ids), -1, dtype=np.int64)
    for item_id, (where, value) in gold.items():
        require(item_id in position, f"{where}: gold label for item {item_id}, which has no answers")
        at = int(np.searchsorted(classes, value))
        require(at < len(classes) and classes[at] == value,
                f"{where}: gold label {value} of item {item_id} is not among the answered classes {list(classes)}")
        codes[position[item_id]] = at
    return Answers(item, worker, label, item_ids, worker_ids, classes, codes)


def load_format_a(answers: str | os.PathLike, truth: str | os.PathLike | None = None) -> Answers:
    """Format A: ``answers`` rows ``item, worker, label`` (1-based integers); ``truth`` rows ``item, gold``."""
    path = Path(answers)
    rows = []
    for line, fields in _lines(path):
        require(len(fields) == 3, f"{path}:{line}: {len(fields)} fields, expected 3 (item, worker, label)")
        item, worker, label = (_integer(path, line, name, v) for name, v in zip(("item", "worker", "label"), fields))
        require(min(item, worker, label) >= 1, f"{path}:{line}: ids and labels are 1-based, got {fields}")
        rows.append((line, item, worker, label))
    gold: dict = {}
    if truth is not None:
        tpath = Path(truth)
        for line, fields in _lines(tpath):
            require(len(fields) == 2, f"{tpath}:{line}: {len(fields)} fields, expected 2 (item, gold)")
            item, value = (_integer(tpath, line, name, v) for name, v in zip(("item", "gold"), fields))
            require(item not in gold, f"{tpath}:{line}: a second gold label for item {item}")
            gold[item] = (f"{tpath}:{line}", value)
    return _assemble(path, rows, gold)


def load_format_b(path: str | os.PathLike) -> Answers:
    """Format B (Snow et al. 2008): header FORMAT_B_HEADER, then one answer per row with its item's gold label."""
    path = Path(path)
    lines = _lines(path)
    header = tuple(f.strip() for f in lines[0][1])
    require(header == FORMAT_B_HEADER, f"{path}:{lines[0][0]}: header {list(header)}, expected {list(FORMAT_B_HEADER)}")
    rows, gold = [], {}
    for line, fields in lines[1:]:
        require(len(fields) == 5, f"{path}:{line}: {len(fields)} fields, expected 5")
        _, worker, item, response, truth = fields
        label, value = _integer(path, line, "response", response), _integer(path, line, "gold", truth)
        where, first = gold.setdefault(item, (f"{path}:{line}", value))
        require(first == value, f"{path}:{line}: gold {value} of item {item} differs from {first} at {where}")
        rows.append((line, item, worker, label))
    require(len(rows) > 0, f"{path}: a header but no answers")
    return _assemble(path, rows, gold)
