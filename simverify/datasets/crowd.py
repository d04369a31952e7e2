"""Crowdsourced labels in the published layouts of the crowdsourcing data sets (Ibrahim & Fu 2021 evaluate on them;
seven ship in ``data/crowd/``, provenance in ``data/PROVENANCE.md``):

- format A: ``<name>.txt`` with ``item<TAB>worker<TAB>label`` per answer (1-based integers), and a truth file
  ``item<TAB>gold`` listing the items with a gold label;
- format B (Snow et al. 2008): one TSV with the header ``!amt_annotation_ids !amt_worker_ids orig_id response
  gold``, one answer per row, string worker and item ids, the gold label repeated on every row;
- CSV (crowd-kit's convention): the header ``task,worker,label`` then one answer per row, any ids and labels
  (labels that all read as integers become integers); a truth CSV ``task,true_label`` (or ``task,label``);
- a pandas frame with columns ``task, worker, label`` (``from_frame``) and a Series of gold labels by task.

Both read into :class:`Answers`: integer codes for items, workers and classes (0-based; ids in order of first
appearance, labels sorted) beside the original ids. Policy on duplicates: a second answer by the same worker to the
same item is refused, naming both lines, since aggregators weigh every answer once. Files are read line by line
and refused at their first malformed line with one line ``file:line: problem``; binary data (a NUL byte, UTF-16,
bytes that are not UTF-8, a line over MAX_LINE bytes) included. A UTF-8 byte-order mark opening a file is ignored.
One exception: a format A file of at most FAST_READ_BYTES whose every line is canonical (positive integers of at
most 18 digits, tabs) is read whole, to the same rows, at about three times the memory of its rows.

A shipped set as crowd-kit's frame, with its gold labels as a Series indexed by task (pandas as pd)::

    answers = shipped("bluebird")                  # one of SHIPPED
    frame = to_frame(answers)                      # columns task, worker, label
    gold = pd.Series(answers.classes[answers.gold], index=answers.item_ids)[answers.gold >= 0]"""
from __future__ import annotations

import csv
import dataclasses
import functools
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..validation import Integer, check_parameter, require

FORMAT_B_HEADER = ("!amt_annotation_ids", "!amt_worker_ids", "orig_id", "response", "gold")
CSV_HEADER = ("task", "worker", "label")
TRUTH_HEADERS = (("task", "true_label"), ("task", "label"))
FORMATS = ("auto", "tsv", "snow", "csv")
SHIPPED = ("bluebird", "rte", "web", "temp", "dog", "trec", "labelme")
MAX_CLASSES = 10_000  # a declared number of classes above this is refused (posteriors are items x classes)
FAST_READ_BYTES = 1 << 24  # format A files up to this size are read whole when every line is canonical
MAX_LINE = 1 << 20  # bytes in one line (the published files' lines have under 100): more is not an answers file
BOM = b"\xef\xbb\xbf"  # UTF-8's byte-order mark, which Windows editors put first; dropped
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


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

    def subset(self, keep: np.ndarray, items: np.ndarray, workers: np.ndarray | None = None) -> Answers:
        """The answers where ``keep`` (n,) is True, items recoded by their place in ``items`` (codes, each kept
        answer's item among them; gold labels follow), annotators by their place in ``workers`` (codes, each kept
        answer's annotator among them; None: every annotator kept, codes unchanged)."""
        keep, items = np.asarray(keep), np.asarray(items)
        require(keep.dtype == bool and keep.shape == self.item.shape,
                f"Answers.subset: keep must be a boolean array of {self.item.size} entries, got {keep.dtype} "
                f"{keep.shape}")
        item_code = _recoding(self.n_items, items, "items")
        worker_code = (np.arange(self.n_workers) if workers is None else
                       _recoding(self.n_workers, np.asarray(workers), "workers"))
        require(bool((item_code[self.item[keep]] >= 0).all()) and bool((worker_code[self.worker[keep]] >= 0).all()),
                "Answers.subset: a kept answer's item or annotator is not among those chosen")
        worker_ids = self.worker_ids if workers is None else self.worker_ids[workers]
        return Answers(item_code[self.item[keep]], worker_code[self.worker[keep]], self.label[keep],
                       self.item_ids[items], worker_ids, self.classes, self.gold[items])


def _recoding(size: int, chosen: np.ndarray, name: str) -> np.ndarray:
    """(size,) the place of each code in ``chosen`` (distinct codes in 0..size - 1), -1 for a code not chosen."""
    require(chosen.ndim == 1 and (chosen.size == 0 or (chosen.dtype.kind in "iu" and int(chosen.min()) >= 0
                                                        and int(chosen.max()) < size))
            and np.unique(chosen).size == chosen.size,
            f"Answers.subset: {name} must be distinct integer codes in 0..{size - 1}")
    code = np.full(size, -1, dtype=np.int64)
    code[chosen] = np.arange(len(chosen))
    return code


def shipped(name: str) -> Answers:
    """One of the shipped data sets by name (SHIPPED), with its gold labels: a copy of its arrays (each file is
    parsed once per process; planning the quick tier asks for the sets 148 times)."""
    require(name in SHIPPED, f"unknown crowd data set {name!r}; shipped: {list(SHIPPED)}")
    parsed = _parsed_shipped(name)
    return Answers(*(getattr(parsed, field.name).copy() for field in dataclasses.fields(Answers)))


@functools.cache
def _parsed_shipped(name: str) -> Answers:
    """A shipped set as read from its package files (shared: ``shipped`` hands out copies)."""
    folder = Path(__file__).resolve().parent / "data" / "crowd"
    if name == "temp":
        return load_format_b(folder / "temp.standardized.tsv")
    return load_format_a(folder / f"{name}.txt", folder / f"{name}_truth.txt")


def _check_file(path: Path) -> None:
    """Refuse (one line) a path that is not an existing regular file."""
    require(path.exists(), f"{path}: no such file")
    require(not path.is_dir(), f"{path}: a directory, not a file")
    require(path.is_file(), f"{path}: not a regular file")


def _raw_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes) of every line, read one at a time: at most MAX_LINE + 1 bytes of the file in memory."""
    try:
        _check_file(path)
        with open(path, "rb") as handle:
            yield from enumerate(iter(lambda: handle.readline(MAX_LINE + 1), b""), start=1)
    except OSError as exc:
        raise ValueError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _binary(number: int, raw: bytes) -> str | None:
    """What makes one line's bytes no text line (a NUL byte, UTF-16, too long), or None."""
    if number == 1 and raw.startswith(UTF16_BOMS):
        return "UTF-16 text; save the file as UTF-8"
    if b"\0" in raw:
        return "binary data (a NUL byte), not text"
    if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
        return f"a line longer than {MAX_LINE} bytes"
    return None


def _decoded(path: Path, number: int, raw: bytes) -> str:
    """One line's bytes as text without its line ending (a UTF-8 byte-order mark opening line 1 dropped); binary
    data (see _binary) and bytes that are not UTF-8 refused with file:line."""
    problem = _binary(number, raw)
    if problem:
        raise ValueError(f"{path}:{number}: {problem}")
    start = len(BOM) if number == 1 and raw.startswith(BOM) else 0
    try:
        text = raw[start:].decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}:{number}: not UTF-8 text (byte 0x{raw[start + err.start]:02x} at byte "
                         f"{start + err.start + 1} of the line)") from None
    return text.removesuffix("\n").rstrip("\r")


def _texts(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of every non-blank line, streamed; an empty file is refused once it is read."""
    found = False
    for number, raw in _raw_lines(path):
        text = _decoded(path, number, raw)
        if text.strip():
            found = True
            yield number, text
    require(found, f"{path}: no answers (the file is empty)")


def _lines(path: Path) -> Iterator[tuple[int, list[str]]]:
    """(line number, tab-separated fields) of every non-blank line, streamed (see _texts)."""
    return ((number, text.split("\t")) for number, text in _texts(path))


def _integer(path: Path, line: int, field: str, value: str) -> int:
    """A field of ASCII digits (optionally a leading minus) as an int: Python's int() would also take '1_0',
    '+1', ' 1 ' and non-ASCII digits, merging ids that differ in the file."""
    if not (value.isascii() and value.lstrip("-").isdigit() and value.count("-") <= 1 and not value.endswith("-")):
        raise ValueError(f"{path}:{line}: {field} {value!r} is not an integer")
    try:
        return int(value)
    except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits)
        raise ValueError(f"{path}:{line}: {field} has {len(value)} digits, too many for an id or label") from None


def _at(path: Path, line) -> str:
    """Where a row is: 'file:12' for a line of a file, 'answers frame, row 3' for a frame's row."""
    return f"{path}:{line}" if isinstance(line, int) else f"{path}, {line}"


def _line(line) -> str:
    return f"line {line}" if isinstance(line, int) else str(line)


def _codes(values: list) -> tuple[np.ndarray, np.ndarray]:
    """Codes in order of first appearance, and the distinct values in that order."""
    index: dict = {}
    codes = np.array([index.setdefault(v, len(index)) for v in values], dtype=np.int64)
    return codes, np.array(list(index), dtype=object)


def _classes(path: Path, rows: list[tuple], gold: dict, n_classes: int | None) -> np.ndarray:
    """The class values: the answered labels, sorted; or, with ``n_classes`` declared (at most MAX_CLASSES), the
    integers 1..K (0..K-1 when an answered label is 0), so that a class nobody answered keeps its place. Labels
    outside refused."""
    if n_classes is None:
        try:
            return np.array(sorted({r[3] for r in rows}), dtype=object)
        except TypeError:  # e.g. 0 and 'x' in one label column
            kinds = sorted({type(r[3]).__name__ for r in rows})
            raise ValueError(f"{path}: labels must be of one sortable kind, got {', '.join(kinds)}") from None
    check_parameter("answers", "n_classes (--classes)", n_classes, Integer(2, MAX_CLASSES))
    n_classes = int(n_classes)  # a numpy integer would overflow in the range below
    values = [r[3] for r in rows] + [value for _, value in gold.values()]
    odd = next((v for v in values if isinstance(v, bool) or not isinstance(v, (int, np.integer))), None)
    require(odd is None, f"{path}: declared classes need integer labels, got {odd!r}")
    low = 0 if min(r[3] for r in rows) == 0 else 1  # the answers decide; a gold label outside is refused below
    for line, _, _, value in rows:
        require(low <= value < low + n_classes, f"{_at(path, line)}: label {value} is outside the {n_classes} declared "
                                                f"classes {low}..{low + n_classes - 1}")
    return np.arange(low, low + n_classes).astype(object)


def _assemble(path: Path, rows: list[tuple], gold: dict, n_classes: int | None = None) -> Answers:
    """rows (line, item id, worker id, label value) and gold {item id: (where, label value)} into Answers;
    ``n_classes`` the declared number of classes (None: the answered labels, see _classes)."""
    seen: dict = {}
    for position, (line, item, worker, _) in enumerate(rows):  # by position: a frame's index may repeat names
        first, first_line = seen.setdefault((item, worker), (position, line))
        require(first == position, f"{_at(path, line)}: worker {worker} answered item {item} again (first on "
                                   f"{_line(first_line)}); duplicate answers are refused")
    item, item_ids = _codes([r[1] for r in rows])
    worker, worker_ids = _codes([r[2] for r in rows])
    classes = _classes(path, rows, gold, n_classes)
    label = np.searchsorted(classes, np.array([r[3] for r in rows])).astype(np.int64)
    position = {v: i for i, v in enumerate(item_ids)}
    codes = np.full(len(item_ids), -1, dtype=np.int64)
    for item_id, (where, value) in gold.items():
        require(item_id in position, f"{where}: gold label for item {item_id}, which has no answers")
        at = int(np.searchsorted(classes, value))
        require(at < len(classes) and classes[at] == value,
                f"{where}: gold label {value} of item {item_id} is not among the "
                f"{'declared' if n_classes else 'answered'} classes {list(classes)}"
                + ("" if n_classes else " (a class nobody answered: declare the number of classes, --classes)"))
        codes[position[item_id]] = at
    return Answers(item, worker, label, item_ids, worker_ids, classes, codes)


def load_format_a(answers: str | os.PathLike, truth: str | os.PathLike | None = None,
                  n_classes: int | None = None) -> Answers:
    """Format A: ``answers`` rows ``item, worker, label`` (1-based integers); ``truth`` rows ``item, gold``;
    ``n_classes`` the declared number of classes (None: those answered)."""
    path = Path(answers)
    rows = _canonical_rows(path, 3)
    if rows is None:
        rows = []
        for line, fields in _lines(path):
            require(len(fields) == 3, f"{path}:{line}: {len(fields)} fields, expected 3 (item, worker, label)")
            item, worker, label = (_integer(path, line, name, v)
                                   for name, v in zip(("item", "worker", "label"), fields))
            require(min(item, worker, label) >= 1, f"{path}:{line}: ids and labels are 1-based, got {fields}")
            rows.append((line, item, worker, label))
    gold: dict = {}
    if truth is not None:
        tpath = Path(truth)
        pairs = _canonical_rows(tpath, 2)
        if pairs is None:
            pairs = []
            for line, fields in _lines(tpath):
                require(len(fields) == 2, f"{tpath}:{line}: {len(fields)} fields, expected 2 (item, gold)")
                item, value = (_integer(tpath, line, name, v) for name, v in zip(("item", "gold"), fields))
                require(min(item, value) >= 1, f"{tpath}:{line}: items and gold labels are 1-based, got {fields}")
                pairs.append((line, item, value))
        for line, item, value in pairs:
            require(item not in gold, f"{tpath}:{line}: a second gold label for item {item}")
            gold[item] = (f"{tpath}:{line}", value)
    return _assemble(path, rows, gold, n_classes)


def _canonical_rows(path: Path, n_fields: int) -> list[tuple[int, ...]] | None:
    """Format A's rows (line, *fields) read whole when the file is small (FAST_READ_BYTES) and every line is
    canonical (``n_fields`` positive integers of at most 18 digits without leading zeros, tab-separated, no blank
    line, no byte-order mark): the line reader gives these same rows, about four times slower. Otherwise None, and
    that reader (with its file:line refusals) reads the file."""
    try:
        if not path.is_file() or path.stat().st_size > FAST_READ_BYTES:
            return None
        with open(path, "rb") as handle:
            data = handle.read(FAST_READ_BYTES + 1)  # a file grown since stat is not read past the bound
    except OSError:
        return None
    if len(data) > FAST_READ_BYTES:
        return None
    field = rb"[1-9][0-9]{0,17}"  # under 10^18: int64 ids, and no long line the line reader would refuse
    line = rb"\t".join([field] * n_fields)
    if not re.fullmatch(rb"(?:" + line + rb"\r?\n)*" + line + rb"(?:\r?\n)?", data):
        return None
    fields = [map(int, data.split())] * n_fields  # one iterator n times: consecutive fields form a row
    return [(number, *values) for number, values in enumerate(zip(*fields), start=1)]


def load_format_b(path: str | os.PathLike, n_classes: int | None = None) -> Answers:
    """Format B (Snow et al. 2008): header FORMAT_B_HEADER, then one answer per row with its item's gold label."""
    path = Path(path)
    lines = _lines(path)
    first, fields = next(lines)
    header = tuple(f.strip() for f in fields)
    require(header == FORMAT_B_HEADER, f"{path}:{first}: header {list(header)}, expected {list(FORMAT_B_HEADER)}")
    rows, gold = [], {}
    for line, fields in lines:
        require(len(fields) == 5, f"{path}:{line}: {len(fields)} fields, expected 5")
        _, worker, item, response, truth = fields
        label, value = _integer(path, line, "response", response), _integer(path, line, "gold", truth)
        where, first = gold.setdefault(item, (f"{path}:{line}", value))
        require(first == value, f"{path}:{line}: gold {value} of item {item} differs from {first} at {where}")
        rows.append((line, item, worker, label))
    require(len(rows) > 0, f"{path}: a header but no answers")
    return _assemble(path, rows, gold, n_classes)


def _label_values(values: list[str]) -> list:
    """Labels as integers when every one reads as an integer, else the strings as given."""
    try:
        return [int(v) for v in values]
    except ValueError:
        return list(values)


def _csv_fields(path: Path, line: int, text: str) -> list[str]:
    """The fields of one CSV line; the csv module's refusals (a stray newline, a field too large) as file:line."""
    try:
        return next(csv.reader([text]))
    except csv.Error as exc:
        raise ValueError(f"{path}:{line}: not a CSV line ({str(exc).split(' - ')[0]})") from None


def _csv_rows(path: Path, header: tuple[str, ...] | tuple[tuple[str, ...], ...]) -> list[tuple[int, list[str]]]:
    """(line, fields) of a CSV whose first row is the header (one of several allowed), streamed; file:line refusals
    at the first bad line."""
    lines = _texts(path)  # refuses missing, empty and binary files
    allowed = header if isinstance(header[0], tuple) else (header,)
    first, text = next(lines)
    head = tuple(f.strip() for f in _csv_fields(path, first, text))
    require(head in allowed, f"{path}:{first}: header {list(head)}, expected "
                             + " or ".join(str(list(h)) for h in allowed))
    rows = []
    for line, text in lines:
        fields = _csv_fields(path, line, text)
        require(len(fields) == len(head), f"{path}:{line}: {len(fields)} fields, expected {len(head)} {list(head)}")
        require(all(f.strip() for f in fields), f"{path}:{line}: an empty field")
        rows.append((line, fields))
    require(len(rows) > 0, f"{path}: a header but no rows")
    return rows


def load_csv(answers: str | os.PathLike, truth: str | os.PathLike | None = None,
             n_classes: int | None = None) -> Answers:
    """CSV answers ``task,worker,label`` and an optional truth CSV ``task,true_label``."""
    path = Path(answers)
    rows = _csv_rows(path, CSV_HEADER)
    labels = _label_values([f[2].strip() for _, f in rows])
    answers_rows = [(line, f[0].strip(), f[1].strip(), v) for (line, f), v in zip(rows, labels)]
    gold: dict = {}
    if truth is not None:
        tpath = Path(truth)
        trows = _csv_rows(tpath, TRUTH_HEADERS)
        integers = isinstance(labels[0], int)
        for line, f in trows:
            task, value = f[0].strip(), f[1].strip()
            value = _integer(tpath, line, "true_label", value) if integers else value
            require(task not in gold, f"{tpath}:{line}: a second gold label for task {task}")
            gold[task] = (f"{tpath}:{line}", value)
    return _assemble(path, answers_rows, gold, n_classes)


def from_frame(frame, truth=None, n_classes: int | None = None) -> Answers:
    """Answers from a pandas DataFrame with columns ``task, worker, label`` (crowd-kit's convention; any hashable
    ids, sortable labels) and optional gold labels, a Series indexed by task. Rows are named by their index."""
    import pandas as pd
    require(isinstance(frame, pd.DataFrame), f"answers must be a pandas DataFrame, got {type(frame).__name__}")
    missing = [c for c in CSV_HEADER if c not in frame.columns]
    require(not missing, f"answers frame lacks columns {missing} (needs {list(CSV_HEADER)})")
    twice = [c for c in CSV_HEADER if list(frame.columns).count(c) > 1]
    require(not twice, f"answers frame has {twice[0]!r} as the name of more than one column" if twice else "")
    require(len(frame) > 0, "answers frame has no rows")
    bad = frame[list(CSV_HEADER)].isna().any(axis=1)
    require(not bad.any(), f"answers frame row {frame.index[bad.argmax()]!r}: a missing task, worker or label")
    where = ([f"row {n} (by position; the index repeats)" for n in range(len(frame))] if frame.index.has_duplicates
             else [f"row {i!r}" for i in frame.index])
    rows = list(zip(where, frame["task"].tolist(), frame["worker"].tolist(), frame["label"].tolist()))
    for row in rows:
        odd = next((v for v in row[1:] if isinstance(v, (tuple, list, dict, set, np.ndarray))), None)
        require(odd is None, f"answers frame {row[0]}: {type(odd).__name__} {odd!r:.40} as an id or label (each must "
                             "be one number, string or other scalar)")
    gold: dict = {}
    if truth is not None:
        require(isinstance(truth, pd.Series), f"gold labels must be a pandas Series, got {type(truth).__name__}")
        gold = {task: (f"gold for task {task!r}", value) for task, value in truth.items()}
    return _assemble(Path("answers frame"), rows, gold, n_classes)


def most_active(answers: Answers, n_workers: int) -> Answers:
    """The answers of the ``n_workers`` annotators who answered most (ties: the smaller id first, ids compared as
    given), as the crowdsourcing paper's authors' loader keeps dog's 52 most active of 109 annotators; items left
    without an answer are dropped with their gold labels. Annotators are recoded in order of activity."""
    check_parameter("most_active", "n_workers", n_workers, Integer(1))
    require(n_workers <= answers.n_workers, f"most_active: {n_workers} annotators asked for, the answers have "
                                            f"{answers.n_workers}")
    counts = np.bincount(answers.worker, minlength=answers.n_workers)
    try:
        order = sorted(range(answers.n_workers), key=lambda w: (-counts[w], answers.worker_ids[w]))
    except TypeError:  # ids of mixed kinds: by order of first appearance
        order = sorted(range(answers.n_workers), key=lambda w: (-counts[w], w))
    workers = np.array(order[:n_workers], dtype=np.int64)
    keep = np.isin(answers.worker, workers)
    return answers.subset(keep, np.unique(answers.item[keep]), workers)


def to_frame(answers: Answers):
    """The answers as a pandas DataFrame ``task, worker, label`` with the original ids and labels."""
    import pandas as pd
    return pd.DataFrame({"task": answers.item_ids[answers.item], "worker": answers.worker_ids[answers.worker],
                         "label": answers.classes[answers.label]})


def sniff_format(path: str | os.PathLike) -> str:
    """'snow' (format B's header), 'csv' (a ``task,worker,label`` header) or 'tsv' (format A) by the first line
    (a UTF-8 byte-order mark ignored; a binary first line refused as the loaders refuse it)."""
    path = Path(path)
    number, raw = next(_raw_lines(path), (1, b""))
    first = _decoded(path, number, raw).strip()
    if first.startswith(FORMAT_B_HEADER[0]):
        return "snow"
    if first.replace(" ", "").lower().startswith(",".join(CSV_HEADER)):
        return "csv"
    return "tsv"


def load(answers: str | os.PathLike, truth: str | os.PathLike | None = None, fmt: str = "auto",
         n_classes: int | None = None) -> Answers:
    """Any supported file by format name (FORMATS); 'auto' sniffs the first line. Format B carries its own gold
    labels, so a truth file is refused with it. ``n_classes``: the declared number of classes (integer labels
    1..K, or 0..K-1 when a 0 appears); None infers the classes from the labels answered."""
    require(fmt in FORMATS, f"unknown format {fmt!r}; known: {list(FORMATS)}")
    fmt = sniff_format(answers) if fmt == "auto" else fmt
    if fmt == "snow":
        require(truth is None, "format snow carries its gold labels in the answers file; drop --truth")
        return load_format_b(answers, n_classes)
    return load_csv(answers, truth, n_classes) if fmt == "csv" else load_format_a(answers, truth, n_classes)
