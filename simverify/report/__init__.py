"""``simverify report``: a self-contained site (``index.html``, a page per claim and per paper, evidence
figures drawn by each claim's law, the cell data as NetCDF and CSV) and ``report.md``, built only from
a store's Datasets and verdict records. Everything is rendered in memory first, then written file by
file atomically, so bad input writes nothing."""
from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..store import Store, atomic_write, check_writable, select_rows
from .figures import UnreadableFile, dataset_path, evidence_png, open_dataset
from .markdown import markdown
from .rows import changes
from .site import claim_page, index, paper_page, public

__all__ = ["NoResults", "Report", "UnreadableFile", "write_report", "markdown"]


class NoResults(ValueError):
    """The store holds no readable verdict record (of the tier asked for)."""


@dataclass
class Report:
    """The files written, (path, reason) for every store file left out because it cannot be read, and the
    changes against a compared store."""
    paths: list[Path]
    unreadable: list[tuple[Path, str]]
    changes: list[dict] = field(default_factory=list)


REQUIRED = {"id": str, "paper": str, "item": str, "tier": str, "verdict": str, "expected": str, "law": str,
            "claimed": str, "statement": str, "estimate": (int, float, type(None)), "ci": list}


def _malformed(rec: dict) -> str | None:
    for name, kind in REQUIRED.items():
        if not isinstance(rec.get(name), kind):
            return f"malformed record (field {name!r} missing or not {getattr(kind, '__name__', 'a number')})"
    if len(rec["ci"]) != 2:
        return "malformed record (field 'ci' is not a pair)"
    return None


def readable_rows(store: Store, tier: str | None) -> tuple[list[dict], list[dict], list[tuple[Path, str]]]:
    """(rows shown, every readable record, unreadable files) of a store; IncompatibleStore for another layout."""
    store.check_compatible()
    found, unreadable = store.read_results()
    records = []
    for path, rec in found:
        problem = _malformed(rec)
        if problem:
            unreadable.append((path, problem))
        else:
            records.append(rec)
    return select_rows(records, tier), records, unreadable


def _claim_files(rec: dict, store: Store, unreadable: list, files: dict) -> tuple[str | None, str, dict]:
    """Figure and data files of one claim into ``files`` (relative path -> bytes or writer);
    returns (figure path, why no figure, data links) relative to the site root."""
    path = dataset_path(rec, store)
    if path is None:
        return None, "its Dataset is not in this store", {}
    try:
        ds = open_dataset(path)
    except UnreadableFile as exc:
        unreadable.append((exc.path, exc.reason))
        return None, "its Dataset cannot be read (see the index)", {}
    stem = rec["id"]
    files[f"data/{stem}.nc"] = path
    files[f"data/{stem}.csv"] = ds.to_dataframe().to_csv().encode()
    png, why = evidence_png(rec, ds)
    if png is not None:
        files[f"figures/{stem}.png"] = png
    return (f"figures/{stem}.png" if png is not None else None), why, \
        {"NetCDF": f"../data/{stem}.nc", "CSV": f"../data/{stem}.csv"}


def build(store: Store, tier: str | None = None, compare: Store | None = None) -> tuple[dict, list, list]:
    """(files: relative path -> bytes or a source Path, unreadable, changes); NoResults when no row."""
    rows, every, unreadable = readable_rows(store, tier)
    if not rows:
        which = f" of tier {tier}" if tier else ""
        raise NoResults(f"no readable results{which} in store {store.root}; run 'simverify check' first")
    changed = changes(rows, readable_rows(compare, tier)[0]) if compare is not None else []
    calibration = {}
    for t in dict.fromkeys(r["tier"] for r in rows):
        calibration.update(store.read_calibration(t))
    files: dict[str, bytes | Path] = {}
    figures = {}
    for rec in rows:
        fig, why, data = _claim_files(rec, store, unreadable, files)
        figures[rec["id"]] = fig
        runs = [r for r in every if r["id"] == rec["id"]]
        controls = [r for r in rows if r.get("control_of") == rec["id"] and r["tier"] == rec["tier"]]
        files[f"claims/{rec['id']}.html"] = claim_page(rec, fig and "../" + fig, why, data, runs,
                                                       calibration.get(rec["id"]), controls).encode()
    for paper in dict.fromkeys(r["paper"] for r in rows):
        files[f"papers/{paper}.html"] = paper_page(paper, [r for r in rows if r["paper"] == paper], figures).encode()
    files["index.html"] = index(rows, calibration, changed, unreadable).encode()
    files["report.md"] = markdown(rows, unreadable, changed).encode()
    files["results.json"] = json.dumps([public(r) for r in rows], indent=1, default=str).encode()
    return files, unreadable, changed


def _writer(content: bytes | Path) -> Callable[[str], None]:
    if isinstance(content, Path):
        return lambda tmp: shutil.copyfile(content, tmp)
    return lambda tmp: Path(tmp).write_bytes(content)


def write_report(store: Store, out: str | Path, tier: str | None = None, compare: Store | None = None) -> Report:
    """Write the site and report.md for the store's rows (optionally one tier) to ``out``; with ``compare``,
    flag verdicts that changed and intervals that moved against that store. Raises NoResults or
    IncompatibleStore (nothing written) and ValueError when ``out`` cannot be written."""
    out = Path(out)
    check_writable(out, "report directory")
    files, unreadable, changed = build(store, tier, compare)
    for rel, content in files.items():
        atomic_write(out / rel, _writer(content))
    return Report([out / "index.html", out / "report.md"], unreadable, changed)
