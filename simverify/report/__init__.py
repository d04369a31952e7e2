"""``simverify report``: a self-contained site (``index.html``, a page per claim and per paper, evidence
figures drawn by each claim's law, with ``with_data`` the cell data as NetCDF and CSV, once per distinct
Dataset), ``report.md``, ``results.json`` and ``calibration.json``, built only from a store's Datasets and
verdict records (and calibration rows). Everything is rendered in memory first, then written file by file
atomically, so bad input writes nothing. ``reference=True`` writes a committed reference (docs/report.md)."""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .. import record as verdict_record
from ..exceptions import NoResults, WriteFailed
from ..store import (
    Store,
    atomic_write,
    check_tree_writable,
    check_writable,
    merge_calibration,
    read_calibration_file,
    read_json,
    select_rows,
)
from ..timings import TIMINGS, merged, read_timings_file, timings_text
from .compare import Comparison, compare
from .figures import UnreadableFile, dataset_path, draw_figures, open_dataset
from .markdown import markdown
from .reference import REFERENCES, Coverage
from .reference import reference_rows as _reference_rows
from .rows import tier_sizes_text
from .site import claim_page, index, paper_page, public

__all__ = ["NoResults", "Report", "UnreadableFile", "write_report", "markdown", "load_baseline", "REFERENCE"]

REFERENCE = REFERENCES["quick"]  # the committed quick reference, inside the source checkout (reports/full beside it)
SITE_DIRS = ("claims", "papers", "figures", "data")  # what a reference write prunes of files it did not write


@dataclass
class Report:
    """The files written, (path, reason) for every store file left out because it cannot be read, the
    changes flagged against a compared baseline, the comparison itself (None without one), the files a
    reference write removed, the claims it left out as not run at its tier and (path, reason) of each stale file
    it could not remove."""
    paths: list[Path]
    unreadable: list[tuple[Path, str]]
    changes: list[dict] = field(default_factory=list)
    comparison: Comparison | None = None
    removed: list[Path] = field(default_factory=list)
    not_run: list[str] = field(default_factory=list)  # a reference: the claims (with their controls) left out
    not_removed: list[tuple[Path, str]] = field(default_factory=list)  # a reference: stale files that stayed


def readable_rows(store: Store, tier: str | None) -> tuple[list[dict], list[dict], list[tuple[Path, str]]]:
    """(rows shown, every readable record, unreadable files) of a store; IncompatibleStore for another layout."""
    store.check_compatible()
    found, unreadable = store.read_results()  # each record checked and upgraded (simverify.record)
    records = [rec for _, rec in found]
    return select_rows(records, tier, registered_position), records, unreadable


def registered_position(claim_id: str) -> int | None:
    """Where a claim stands among those registered now: the order of records written before they stored their
    own (record version 1); None when unknown or when a plugin fails to load (a report never stops for it)."""
    from .. import registry
    try:
        return registry.position(claim_id)
    except Exception:
        return None


def registered_tier_sizes(rec: dict) -> dict | None:
    """The tier sizes (Sweep.tier_sizes) of a record kept before it stored its own: its registered claim's, when
    that claim's tier still has the record's replicates (unless the run set them) and cells (unless it set
    parameters); else None (a report never stops for it)."""
    from .. import registry
    try:
        claim = registry.get(rec["id"])
        tier = claim.sweep.tiers[rec["tier"]]
        run = rec.get("run") or {}
        if run.get("replicates") is None and tier.replicates != rec.get("replicates"):
            return None
        if not rec.get("overrides") and len(tier.grid.cells()) != rec.get("n_cells"):
            return None
        return claim.sweep.tier_sizes()
    except Exception:
        return None


def load_baseline(path: str | Path | Store, tier: str | None = None) -> tuple[list[dict], str]:
    """(rows, what they are) of a baseline for ``--compare``: a store (its rows, as a report of it shows
    them), a report directory (its ``results.json``, e.g. the shipped reference) or a ``results.json`` file.
    ValueError (one line) when it is none of these; IncompatibleStore for a store of another layout."""
    if isinstance(path, Store) or (Path(path).is_dir() and (Path(path) / "results").is_dir()):
        store = path if isinstance(path, Store) else Store(path)
        rows, _, unreadable = readable_rows(store, tier)
        return rows, f"store {store.root}{_left_out(len(unreadable))}"
    path = Path(path)
    file = path / "results.json" if path.is_dir() else path
    if not file.is_file():
        raise ValueError(f"--compare: {path} holds no results (neither a store's results/ nor a report's results.json)")
    try:
        found = read_json(file)
    except (OSError, ValueError) as exc:
        raise ValueError(f"--compare: {file} cannot be read: {' '.join(str(exc).split())}") from None
    if not isinstance(found, list):
        raise ValueError(f"--compare: {file} is not a list of verdict records")
    problems = [verdict_record.problem(r) for r in found]
    readable = [verdict_record.upgrade(r) for r, why in zip(found, problems) if why is None]
    rows = [r for r in readable if tier is None or r["tier"] == tier]
    if not rows:
        first = next((why for why in problems if why), None)
        raise ValueError(f"--compare: {file} holds no readable verdict record{f' of tier {tier}' if tier else ''}"
                         f"{f' (the first: {first})' if first else ''}")
    return rows, f"report {file}{_left_out(len(found) - len(readable))}"


def _left_out(unreadable: int) -> str:
    """What a baseline's description adds for its records that could not be read (never dropped silently)."""
    return f" ({unreadable} unreadable record{'s' if unreadable != 1 else ''} left out)" if unreadable else ""


def _data_files(path: Path, ds, files: dict, written: dict) -> dict:
    """The Dataset's cells as CSV and its NetCDF under ``data/``, named by the hash of the cells (the CSV's
    bytes): a control judged on its claim's cells links to the claim's two files (the NetCDF written is the
    first such claim's, its attributes naming that claim); label -> path relative to the site root."""
    csv = ds.to_dataframe().to_csv().encode()
    digest = hashlib.sha256(csv).hexdigest()[:16]
    if digest not in written:
        files[f"data/{digest}.nc"] = path
        files[f"data/{digest}.csv"] = csv
        written[digest] = True
    return {"NetCDF": f"data/{digest}.nc", "CSV": f"data/{digest}.csv"}


def _claim_figures(rows: list[dict], store: Store, unreadable: list, workers: int | None, progress,
                   smallest: bool = False) -> dict[str, tuple[str | None, str]]:
    """Each claim's figure into ``files`` order: claim id -> (PNG bytes or None, why no figure), drawn in parallel
    (``figures.draw_figures``; ``smallest``: see ``figures.small_png``); a Dataset that cannot be read is added to
    ``unreadable``."""
    jobs, out = [], {}
    for rec in rows:
        path = dataset_path(rec, store)
        if path is None:
            out[rec["id"]] = None, "its Dataset is not in this store"
        else:
            jobs.append((rec, path))
    for (rec, _), (png, why, bad) in zip(jobs, draw_figures(jobs, workers, progress, smallest)):
        if bad is not None:
            unreadable.append(bad)
        out[rec["id"]] = png, why
    return out


def _claim_data(rec: dict, store: Store, files: dict, data: dict) -> dict:
    """The data links of one claim (``_data_files``), {} when its Dataset is missing or unreadable."""
    path = dataset_path(rec, store)
    if path is None:
        return {}
    try:
        ds = open_dataset(path)
    except UnreadableFile:  # named once, by the figure's pass
        return {}
    return _data_files(path, ds, files, data)


def calibration_for(rows: list[dict], store: Store, extra: list[dict] = ()) -> list[dict]:
    """The calibration rows of the claims shown, at their tiers: the store's and ``extra``'s (the latest
    row per claim and tier, by date)."""
    shown = {(r["id"], r["tier"]) for r in rows}
    return [c for c in merge_calibration(store.read_all_calibration(), list(extra), fallback=registered_position)
            if (c["id"], c["tier"]) in shown]


def site_files(ids: list[str], papers: list[str], with_data: bool = False) -> list[str]:
    """The files a report of the claims ``ids`` of ``papers`` writes, relative to its directory (a data file stands
    for data/, whose names are hashes of the cells)."""
    return (["index.html", "report.md", "results.json", "calibration.json"] + [f"claims/{i}.html" for i in ids]
            + [f"figures/{i}.png" for i in ids] + [f"papers/{p}.html" for p in papers]
            + (["data/0123456789abcdef.csv"] if with_data else []))


Select = Callable[[list[dict]], tuple[list[dict], Coverage]]


def build(store: Store, tier: str | None = None, compare_with: str | Path | Store | None = None,
          calibration: list[dict] = (), with_data: bool = False, select: Select | None = None,
          workers: int | None = None, progress: Callable[[int, int], None] | None = None, smallest: bool = False,
          preflight: Callable[[list[dict]], None] | None = None
          ) -> tuple[dict, list, Comparison | None, Coverage | None]:
    """(files: relative path -> bytes or a source Path, unreadable, comparison, coverage); NoResults when no row.
    The rows shown are the store's latest of ``tier`` per claim, or ``select(every)``'s (rows, coverage block)
    chosen from every readable row of this same read (a reference's rule; the block goes on the index and in
    report.md); ``workers`` draw the figures (``figures.draw_figures``; default: this process),
    ``progress(done, total)`` is called as they are drawn; ``smallest``: the figures' PNGs at zlib's slowest
    search (``figures.small_png``); ``select`` and then ``preflight(rows)`` run before any work (either may
    raise)."""
    rows, every, unreadable = readable_rows(store, tier)
    coverage = None
    if select is not None:
        rows, coverage = select(every)
    if not rows:
        which = f" of tier {tier}" if tier else ""
        if unreadable:  # say why, not "run check": the files may be of a newer simverify
            path, why = unreadable[0]
            raise NoResults(f"no readable results{which} in store {store.root}: {len(unreadable)} file(s) cannot "
                            f"be used, the first {path.name}: {why}")
        raise NoResults(f"no readable results{which} in store {store.root}; run 'simverify check' first")
    if preflight is not None:
        preflight(rows)
    comparison = None
    if compare_with is not None:
        old, label = load_baseline(compare_with, tier)
        comparison = compare(rows, old, label)
    calibrated = calibration_for(rows, store, calibration)
    by_id = {c["id"]: c for c in calibrated}  # the site shows one row per claim id
    files: dict[str, bytes | Path] = {}
    figures = {}
    data: dict | None = {} if with_data else None
    drawn = _claim_figures(rows, store, unreadable, workers, progress, smallest)
    for rec in rows:
        links = _claim_data(rec, store, files, data) if data is not None else {}
        png, why = drawn[rec["id"]]
        fig = None
        if png is not None:
            fig = f"figures/{rec['id']}.png"
            files[fig] = png
        figures[rec["id"]] = fig
        runs = [r for r in every if r["id"] == rec["id"]]
        controls = [r for r in rows if r.get("control_of") == rec["id"] and r["tier"] == rec["tier"]]
        sizes = tier_sizes_text(rec, rec.get("tier_sizes") or registered_tier_sizes(rec))
        files[f"claims/{rec['id']}.html"] = claim_page(rec, fig and "../" + fig, why,
                                                       {k: "../" + v for k, v in links.items()}, runs,
                                                       by_id.get(rec["id"]), controls, sizes).encode()
    for paper in dict.fromkeys(r["paper"] for r in rows):
        files[f"papers/{paper}.html"] = paper_page(paper, [r for r in rows if r["paper"] == paper], figures).encode()
    changed = comparison.changes if comparison else []
    said = comparison.summary() if comparison else ""
    files["index.html"] = index(rows, by_id, changed, unreadable, said, coverage.html() if coverage else "").encode()
    files["report.md"] = markdown(rows, unreadable, changed, said, coverage.markdown() if coverage else ()).encode()
    records = [public(r) for r in rows]
    files["results.json"] = json.dumps(records, indent=1, default=verdict_record.json_default).encode()
    if calibrated:
        files["calibration.json"] = (json.dumps(calibrated, indent=1, default=str) + "\n").encode()
    return files, unreadable, comparison, coverage


def _writer(content: bytes | Path) -> Callable[[str], None]:
    if isinstance(content, Path):
        return lambda tmp: shutil.copyfile(content, tmp)
    return lambda tmp: Path(tmp).write_bytes(content)


def reference_selection(store: Store, tier: str = "quick") -> Select:
    """The committed reference's rule for ``tier`` (reference.reference_rows) as ``build``'s ``select``: every
    registered claim and control at the quick tier, the claims run so far at the full tier (with all their
    controls), each its latest row from a default run judged at the whole suite's per-check level; (rows,
    coverage). It raises ValueError (one line) naming what is missing."""
    from .. import registry, runner

    def select(every: list[dict]) -> tuple[list[dict], Coverage]:
        rows, _, coverage = _reference_rows(store.root, tier, registry.all_claims(None, controls=True), every,
                                            runner.DEFAULT_ALPHA)
        return rows, coverage
    return select


def _stale_figures(out: Path, files: dict) -> list[Path]:
    """Remove the figure an earlier report left in ``out`` for a claim this report shows without one (its law
    changed, or it can no longer be drawn), so no page's neighbour shows a figure of another verdict."""
    removed = []
    for rel in files:
        if rel.startswith("claims/") and rel.endswith(".html"):
            figure = out / "figures" / f"{rel[len('claims/'):-len('.html')]}.png"
            if figure.relative_to(out).as_posix() not in files and figure.is_file():
                figure.unlink()
                removed.append(figure)
    return removed


def reference_dir(tier: str = "quick") -> Path:
    """``reports/<tier>`` of the source checkout this simverify runs from; ValueError outside a checkout."""
    from ..provenance import _git
    top = _git("rev-parse", "--show-toplevel")
    own = Path(top or ".") / "simverify" / "__init__.py"
    running = Path(__file__).resolve().parent.parent / "__init__.py"  # this package's, not a copy in the checkout
    if not top or not own.is_file() or own.resolve() != running:
        raise ValueError(f"--reference writes reports/{tier} of the source checkout; this simverify is not run "
                         "from one (install it editable from a clone)")
    return Path(top) / REFERENCES[tier]


def write_report(store: Store, out: str | Path | None = None, tier: str | None = None,
                 compare: str | Path | Store | None = None, calibration: str | Path | None = None,
                 with_data: bool = False, reference: bool = False, workers: int | None = None,
                 progress: Callable[[int, int], None] | None = None) -> Report:
    """Write the site, report.md, results.json and (when any claim shown was calibrated) calibration.json for
    the store's rows (optionally one tier) to ``out``.

    ``compare``: a store, a report directory or a results.json: flag verdicts that changed and estimates that
    moved beyond their intervals, count floating-point noise (compare.py). ``calibration``: a file of
    calibration rows (``calibrate --out``) shown beside the verdicts with the store's own. ``with_data``: also
    the cell data, once per distinct Dataset. ``reference``: the committed reference of ``tier`` (quick when
    None; ``reports/<tier>`` of the checkout; reference.reference_rows says which rows, and a coverage block says
    what was run, its times and what was left out; no cell data; timings.json, the reference's timings merged with
    the store's (a leg adds its cells), which price a first run's plan elsewhere (``timings``); its own
    calibration.json is read back, and files
    under claims/, papers/, figures/ and data/ it did not write are removed). ``workers`` > 1 draws the figures
    in that many spawned processes (at most the cores; a script then needs the ``if __name__ == "__main__":``
    guard), by default in this process; ``progress(done, total)`` follows them. Raises NoResults or
    IncompatibleStore (nothing written) and ValueError for bad input or when ``out`` cannot be written."""
    select = None
    extra = read_calibration_file(calibration) if calibration else []
    if reference:
        if tier not in (None, *REFERENCES):
            raise ValueError(f"--reference writes the tier quick or full, not {tier!r}")
        if with_data or out is not None:
            raise ValueError("--reference writes reports/quick (or with --tier full, reports/full) without cell "
                             "data: give no --out or --with-data with it")
        tier = tier or "quick"
        out = reference_dir(tier)
        linked = [p for p in (out.parent, out, *(out / sub for sub in SITE_DIRS)) if p.is_symlink()]
        if linked:  # its pruning would remove files elsewhere
            raise ValueError(f"{linked[0]} is a symbolic link: a reference prunes files under it; replace it by a "
                             "directory")
        store.check_compatible()
        select = reference_selection(store, tier)
        shipped = out / "calibration.json"
        extra = (read_calibration_file(shipped) if shipped.exists() else []) + extra
    if out is None:
        raise ValueError("no output directory given")
    out = Path(out)
    check_writable(out, "report directory")

    def planned(shown: list[dict]) -> None:  # before any figure is drawn
        ids, papers = [r["id"] for r in shown], list(dict.fromkeys(r["paper"] for r in shown))
        names = site_files(ids, papers, with_data) + ([TIMINGS] if reference else [])
        check_tree_writable(out, names, "report directory")
        if reference:
            _check_prunable(out, set(names))
            held.enter_context(_only_writer(out))  # the last check: it creates a missing folder
    # a reference's PNGs at zlib's slowest search (smallest)
    with contextlib.ExitStack() as held:
        files, unreadable, comparison, coverage = build(store, tier, compare, extra, with_data, select, workers,
                                                        progress, smallest=reference, preflight=planned)
        if reference:  # what the cells cost, for a first run's plan elsewhere (timings.py): legs add theirs
            files[TIMINGS] = timings_text(merged(read_timings_file(out / TIMINGS),
                                                 read_timings_file(store.root / TIMINGS))).encode()
        _write_site(out, files)
        return _finish(out, files, reference, unreadable, comparison, coverage)


def _write_site(out: Path, files: dict) -> None:
    """Every file of ``files`` into ``out``; WriteFailed (one line) when one cannot be written after others were."""
    for rel, content in files.items():
        try:
            atomic_write(out / rel, _writer(content))
        except OSError as exc:
            raise WriteFailed(f"report directory {out}: {rel} could not be written ({exc.strerror or exc}); the "
                              "report there is incomplete: mend that and run the command again") from None


@contextlib.contextmanager
def _only_writer(out: Path):
    """Hold ``out`` (created if missing) for one reference write: a second at once, whose pruning would remove
    the first's temporaries, is refused (ValueError, one line) before any work."""
    import fcntl
    out.mkdir(parents=True, exist_ok=True)
    fd = os.open(out, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise ValueError(f"another reference is being written to {out}: wait for it to finish") from None
        yield
    finally:
        os.close(fd)


def _finish(out: Path, files: dict, reference: bool, unreadable, comparison, coverage) -> Report:
    """After the write: stale figures (for a reference every stale file, figures included) removed, and the
    Report."""
    removed, kept = _prune(out, set(files), []) if reference else (_stale_figures(out, files), [])
    return Report([out / "index.html", out / "report.md"], unreadable, comparison.changes if comparison else [],
                  comparison, removed, coverage.not_run if coverage else [], kept)


def _stale(out: Path, keep: set[str]) -> list[Path]:
    """The entries a reference in ``out`` removes: under its site folders, anything but a folder (files, links,
    dangling or not, FIFOs) not among ``keep`` (paths relative to ``out``); at its top, the temporaries an
    interrupted write or writability probe left (``.tmp-*``: files or FIFOs, never a link)."""
    stale = [path for sub in SITE_DIRS if (out / sub).is_dir() for path in sorted((out / sub).rglob("*"))
             if (path.is_symlink() or not path.is_dir()) and path.relative_to(out).as_posix() not in keep]
    return stale + [path for path in sorted(out.glob(".tmp-*")) if not path.is_symlink() and not path.is_dir()]


def _check_prunable(out: Path, keep: set[str]) -> None:
    """Raise ValueError (one line) unless every stale file's folder is writable, before a reference writes."""
    for folder in dict.fromkeys(path.parent for path in _stale(out, keep)):
        check_writable(folder, "the reference's folder of stale files")


def _prune(out: Path, keep: set[str], removed: list[Path]) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Remove ``_stale(out, keep)``, then the site folders left empty, the deepest first; (removed, (path, reason)
    of those that could not be removed: a file made immutable after the write was planned)."""
    kept = []
    folders = [p for sub in SITE_DIRS if (out / sub).is_dir() for p in [out / sub, *(out / sub).rglob("*")]
               if p.is_dir() and not p.is_symlink()]  # rglob does not enter linked folders
    for path in _stale(out, keep) + sorted(folders, key=lambda p: len(p.parts), reverse=True):
        try:
            if path.is_dir() and not path.is_symlink():
                if not any(path.iterdir()):
                    path.rmdir()
                continue
            path.unlink()
            removed.append(path)
        except OSError as exc:
            kept.append((path, exc.strerror or str(exc)))
    return removed, kept
