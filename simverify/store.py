"""Content-addressed cache on disk with atomic writes.

Layout under the store root::

    FORMAT                      {"format": 2, "written_by": version}: refused when another format
    cells/ab/<key>.npz          one (cell, replicate) result, key = hash(code, sweep, params, seed, replicate)
    datasets/<claim>/<tier>-<hash>.nc   the assembled xarray Dataset (NetCDF3, written with scipy)
    results/<claim>/<tier>-<run_key>.json   the verdict record of one run (every run kept)
    calibration/<tier>.json     the latest calibration row of each claim calibrated at that tier

Every file is written to a temporary name in the same directory and renamed into place,
so a crash or a concurrent writer never leaves a half-written file that is read later;
files get the permissions the umask gives any new file (0644 under umask 022).
A cell file that fails to load or whose embedded key disagrees is treated as missing
(and recomputed).
"""
from __future__ import annotations

import functools
import json
import math
import os
import stat
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

from . import record as verdict_record
from .exceptions import IncompatibleStore
from .record import VerdictRecord, is_order, json_default

DEFAULT_STORE = "simverify-store"
FORMAT = 2  # the store layout this code reads and writes


MAX_JSON_BYTES = 256 << 20  # a JSON file of the store or a report past this is refused, not read


def read_json(path: str | os.PathLike):
    """The JSON value of a regular file of at most MAX_JSON_BYTES; ValueError (one line) for anything else: a
    device, pipe or directory, a file too large, nesting too deep, invalid JSON or text (never read whole first)."""
    path = Path(path)
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(f"{path} is not a regular file")
        if st.st_size > MAX_JSON_BYTES:
            raise ValueError(f"{path} holds {st.st_size:,} bytes, more than a JSON file here may ({MAX_JSON_BYTES:,})")
        with open(path, "rb") as handle:
            text = handle.read(MAX_JSON_BYTES + 1).decode("utf-8")
        return json.loads(text)
    except RecursionError:
        raise ValueError(f"{path} nests too deep to read") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not UTF-8 text") from None


def read_json_or(path: str | os.PathLike, default):
    """``read_json``'s value when it is of ``default``'s type, else ``default`` (missing, unreadable, malformed)."""
    try:
        data = read_json(path)
        return data if isinstance(data, type(default)) else default
    except (OSError, ValueError):
        return default


def default_store() -> Path:
    """``$SIMVERIFY_STORE`` or ./simverify-store; a set but empty variable is refused (ValueError), not taken
    as the current directory."""
    value = os.environ.get("SIMVERIFY_STORE", DEFAULT_STORE)
    if not value.strip():
        raise ValueError("SIMVERIFY_STORE is set but empty: name a directory, or unset it")
    return Path(value)


# NetCDF3 through scipy: 3 ms per Dataset against 41 ms for NetCDF4 through h5netcdf (measured on
# this suite's 62 Datasets, all round-tripping identically); sweep Datasets are small and flat.
NETCDF_ENGINE = "scipy"


@functools.lru_cache(maxsize=1)
def _umask() -> int:
    """The process umask, read once (from /proc on Linux; setting it back at once elsewhere)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write(path: str | os.PathLike, write: Callable[[str], None]) -> None:
    """``write(tmp)`` to a temporary file beside ``path``, then rename it into place with the
    permissions a plain ``open(path, "w")`` would give (``tempfile`` alone gives 0600)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


NAME_MAX = 255  # bytes in one path component on the file systems this runs on


def check_writable(directory: str | os.PathLike, what: str = "directory") -> None:
    """Raise ValueError (one line) unless files can be created in and removed from ``directory``; leaves nothing
    behind but in an append-only folder, whose empty probe file cannot be removed (a missing directory is probed in
    its nearest existing ancestor, and is created only by the first write)."""
    directory = Path(directory)
    if not str(directory):
        raise ValueError(f"{what} path is empty")
    long = [part for part in directory.parts if len(os.fsencode(part)) > NAME_MAX]
    if long:
        raise ValueError(f"{what} {directory} has a name longer than {NAME_MAX} bytes ({long[0][:40]}...)")
    probe = directory.absolute()
    try:
        while not probe.exists() and probe != probe.parent:
            probe = probe.parent
        if not probe.is_dir():
            raise NotADirectoryError(f"{probe} is not a directory")
        _create_and_remove(probe)
    except OSError as exc:
        raise ValueError(f"{what} {directory} is not writable: {exc.strerror or exc}") from None


def _create_and_remove(directory: Path) -> None:
    """Create an empty file in ``directory`` and remove it (OSError when either fails: a folder that is read-only,
    full, immutable or append-only, whose files could not be replaced)."""
    fd, probe = tempfile.mkstemp(dir=directory, prefix=".tmp-probe-")
    os.close(fd)
    os.unlink(probe)


TEMP_NAME_BYTES = 24  # atomic_write's temporary name beside a file: ".tmp-", 8 random characters, the suffix


def check_tree_writable(root: str | os.PathLike, files: list[str], what: str = "directory") -> None:
    """Raise ValueError (one line) unless every file at the relative paths ``files`` under ``root`` can be written by
    ``atomic_write``: ``root`` writable (``check_writable``), no path component that exists as a non-directory, no
    file that exists as a non-regular file (a directory, a FIFO), each existing directory writable, and each
    path (and its temporary name) within the file system's limits. Leaves nothing behind."""
    root = Path(root)
    check_writable(root, what)
    top = root.absolute()
    anchor = next(p for p in (top, *top.parents) if p.exists())
    path_max = os.pathconf(anchor, "PC_PATH_MAX") if hasattr(os, "pathconf") else 4096
    checked: set[Path] = set()
    for rel in files:
        path = top / rel
        name_bytes = len(os.fsencode(path.name))
        if name_bytes > NAME_MAX or len(os.fsencode(path.parent)) + 1 + max(name_bytes, TEMP_NAME_BYTES) >= path_max:
            raise ValueError(f"{what} {root}: the path of {rel} would be too long for this file system")
        for parent in reversed(path.relative_to(top).parents[:-1]):
            directory = top / parent
            if directory in checked:
                continue
            checked.add(directory)
            if directory.exists() and not directory.is_dir():
                raise ValueError(f"{what} {root}: {parent} exists and is not a directory")
            if directory.is_dir():
                check_writable(directory, f"{what}'s {parent}")
        if (path.exists() or path.is_symlink()) and not path.is_file():
            raise ValueError(f"{what} {root}: {rel} exists and is not a regular file")


def check_writable_file(path: str | os.PathLike, what: str = "file") -> None:
    """Raise ValueError (one line) unless a file can be written at ``path``: no name longer than NAME_MAX, not a
    directory, its directory writable (see check_writable)."""
    path = Path(path)
    long = [part for part in path.parts if len(os.fsencode(part)) > NAME_MAX]
    if long:
        raise ValueError(f"{what} {path} has a name longer than {NAME_MAX} bytes ({long[0][:40]}...)")
    if path.is_dir():
        raise ValueError(f"{what} {path} is a directory")
    check_writable(path.absolute().parent, f"{what}'s directory")


class Store:
    """A store rooted at ``root``; creates directories lazily."""

    def __init__(self, root: str | os.PathLike | None = None):
        self.root = Path(root) if root is not None else default_store()
        try:
            if self.root.exists() and not self.root.is_dir():
                raise ValueError(f"store path {self.root} exists and is not a directory")
            for sub in ("cells", "datasets", "results"):
                if (self.root / sub).exists() and not (self.root / sub).is_dir():
                    raise ValueError(f"store {self.root}: {sub} is not a directory (a damaged store)")
        except OSError as exc:  # a name too long, a loop of links, ...
            raise ValueError(f"store {str(self.root)[:80]}: {exc.strerror or exc}") from None

    def check_writable(self) -> None:
        """Raise ValueError (one line) unless files can be created under the root (see check_writable)."""
        check_writable(self.root, "store")

    def format(self) -> int | None:
        """The layout number of this store: FORMAT's, 1 for a store of the first layout (no FORMAT file
        but content), None for an absent or empty directory."""
        marker = self.root / "FORMAT"
        if marker.exists():
            try:
                return int(read_json(marker)["format"])
            except (OSError, ValueError, KeyError, TypeError):
                return -1
        if self.root.is_dir() and any(p.name in ("cells", "datasets", "results") for p in self.root.iterdir()):
            return 1
        return None

    def check_compatible(self) -> None:
        """Raise IncompatibleStore (one line) unless the store is empty or of this code's layout."""
        found = self.format()
        if found not in (None, FORMAT):
            what = "an unreadable FORMAT file" if found == -1 else f"layout {found}"
            raise IncompatibleStore(f"store {self.root} has {what}, this simverify reads layout {FORMAT}: "
                                    "use another --store, or move this one away")

    def _mark(self) -> None:
        """Write FORMAT once (atomically; concurrent writers write the same bytes)."""
        marker = self.root / "FORMAT"
        if not marker.exists():
            from . import __version__
            text = json.dumps({"format": FORMAT, "written_by": __version__})
            atomic_write(marker, lambda tmp: Path(tmp).write_text(text + "\n"))

    # cells -------------------------------------------------------------------------
    def cell_path(self, key: str) -> Path:
        return self.root / "cells" / key[:2] / f"{key}.npz"

    def load_cell(self, key: str) -> dict | None:
        """The cached outputs of a cell, or None if absent or unreadable (then recomputed)."""
        path = self.cell_path(key)
        if not path.exists():
            return None
        try:
            with np.load(path, allow_pickle=False) as z:
                meta = json.loads(str(z["__meta__"]))
                if meta.get("key") != key:
                    raise ValueError("embedded key mismatch")
                return {name: z[name] for name in meta["outputs"]}
        except Exception as exc:  # corrupt or truncated: recompute, never trust
            warnings.warn(f"ignoring unreadable cache file {path} ({exc}); the cell is recomputed", stacklevel=2)
            return None

    def save_cell(self, key: str, outputs: dict, origin: dict | None = None) -> None:
        """Store one cell; ``origin`` ({"sweep", "code_hash"}) lets ``cache info`` attribute it."""
        self._mark()
        arrays = {k: np.asarray(v) for k, v in outputs.items()}
        meta = json.dumps({"key": key, "outputs": sorted(arrays), **(origin or {})})

        def write(tmp):
            with open(tmp, "wb") as fh:
                np.savez(fh, __meta__=np.array(meta), **arrays)
        atomic_write(self.cell_path(key), write)

    # datasets and results ----------------------------------------------------------
    def dataset_path(self, claim_id: str, tier: str, digest: str) -> Path:
        return self.root / "datasets" / claim_id / f"{tier}-{digest[:16]}.nc"

    def save_dataset(self, ds, claim_id: str, tier: str, digest: str) -> Path:
        self._mark()
        path = self.dataset_path(claim_id, tier, digest)
        atomic_write(path, lambda tmp: ds.to_netcdf(tmp, engine=NETCDF_ENGINE))
        return path

    def result_path(self, claim_id: str, tier: str, run_key: str) -> Path:
        return self.root / "results" / claim_id / f"{tier}-{run_key}.json"

    def save_result(self, record: VerdictRecord) -> Path:
        """Store a verdict record under its claim, tier and run (a rerun of the same run replaces it)."""
        self._mark()
        path = self.result_path(record["id"], record["tier"], record["run_key"])
        text = verdict_record.dumps(record)
        atomic_write(path, lambda tmp: Path(tmp).write_text(text))
        return path

    def calibration_path(self, tier: str) -> Path:
        return self.root / "calibration" / f"{tier}.json"

    def save_calibration(self, tier: str, rows: list[dict], meta: dict) -> Path:
        """Merge ``rows`` (one per claim, each stamped with ``meta``) into the tier's calibration file."""
        self._mark()
        merged = self.read_calibration(tier)
        merged.update({r["id"]: {**r, **meta} for r in rows})
        text = json.dumps(list(merged.values()), indent=1, default=json_default)
        path = self.calibration_path(tier)
        atomic_write(path, lambda tmp: Path(tmp).write_text(text))
        return path

    def read_calibration(self, tier: str) -> dict[str, dict]:
        """Claim id -> its latest calibration row at ``tier`` ({} when none or unreadable)."""
        try:
            rows = read_json(self.calibration_path(tier))
            return {r["id"]: r for r in rows if isinstance(r, dict) and "id" in r}
        except (OSError, ValueError, TypeError):
            return {}

    def read_all_calibration(self) -> list[dict]:
        """Every stored calibration row, of every tier."""
        rows = []
        for path in sorted((self.root / "calibration").glob("*.json")):
            rows += self.read_calibration(path.stem).values()
        return rows

    def read_results(self) -> tuple[list[tuple[Path, VerdictRecord]], list[tuple[Path, str]]]:
        """(path, record) for each stored verdict record (every run, upgraded to the current record version),
        and (path, reason) for each file that is not a usable record (simverify.record.problem)."""
        records, bad = [], []
        for path in sorted((self.root / "results").glob("*/*.json")):
            try:
                records.append((path, verdict_record.loads(read_json(path))))
            except (OSError, ValueError) as exc:
                bad.append((path, " ".join(str(exc).split())))
        return records, bad


def read_calibration_file(path: str | os.PathLike) -> list[dict]:
    """The calibration rows of a file written by ``calibrate --out`` (or a store's calibration/<tier>.json,
    or a report's calibration.json): a JSON list of rows, each with ``id`` and ``tier``. ValueError (one
    line) when it cannot be read or is not such a list."""
    try:
        rows = read_json(path)
    except (OSError, ValueError) as exc:
        raise ValueError(f"calibration file {path} cannot be read: {' '.join(str(exc).split())}") from None
    if not isinstance(rows, list) or not all(_calibration_row(r) for r in rows):
        raise ValueError(f"calibration file {path} is not a list of calibration rows (each with the strings id and "
                         "tier and the counts misses and runs)")
    return rows


def _count(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _calibration_row(r) -> bool:
    count = _count
    return (isinstance(r, dict) and isinstance(r.get("id"), str) and isinstance(r.get("tier"), str)
            and count(r.get("misses")) and count(r.get("runs")))


def merge_calibration(*sources: list[dict], fallback: Callable[[str], int | None] | None = None) -> list[dict]:
    """One row per (claim, tier): the latest by ``date`` (a later source wins a tie), in the claims' registration
    order when calibrated (each row's ``order``; for a row without one, ``fallback(id)`` if given; rows with
    neither after the others, by id)."""
    merged: dict[tuple[str, str], dict] = {}
    for rows in sources:
        for r in rows:
            key = (r["id"], r["tier"])
            if key not in merged or str(r.get("date", "")) >= str(merged[key].get("date", "")):
                merged[key] = r
    return sorted(merged.values(), key=lambda r: (_paper_of(r["id"]), _order(r, fallback), r["id"], r["tier"]))


def save_calibration_file(path: str | os.PathLike, rows: list[dict],
                          fallback: Callable[[str], int | None] | None = None) -> Path:
    """Merge ``rows`` (each stamped with its tier, seeds, alpha, date and commit) into the calibration file
    at ``path`` (created if absent; ValueError when it exists but is not one), atomically, in the order of
    ``merge_calibration`` (``fallback``: the position of a row written without ``order``)."""
    path = Path(path)
    old = read_calibration_file(path) if path.exists() else []
    text = json.dumps(merge_calibration(old, rows, fallback=fallback), indent=1, default=json_default)
    atomic_write(path, lambda tmp: Path(tmp).write_text(text + "\n"))
    return path


def select_rows(records: list[dict], tier: str | None = None,
                fallback: Callable[[str], int | None] | None = None) -> list[dict]:
    """One record per (claim, tier): the latest run at the tier's own settings (no ``--set``, no
    ``--replicates``) if there is one, else the latest run; ``tier`` keeps that tier only.
    Ordered as ``claim_order``."""
    chosen: dict[tuple[str, str], dict] = {}
    for rec in records:
        if tier is not None and rec.get("tier") != tier:
            continue
        key = (rec["id"], rec["tier"])
        old = chosen.get(key)
        if old is None or _preference(rec) > _preference(old):
            chosen[key] = rec
    return claim_order(list(chosen.values()), fallback)


def claim_order(rows: list[dict], fallback: Callable[[str], int | None] | None = None) -> list[dict]:
    """Rows by paper, then claims in the order they were registered when judged (each record's ``order``; for a
    record without one, ``fallback(id)`` if given; records with neither after the others, by id), then tier;
    each claim's controls right after its row of the same tier (a control without that row stands in the claims'
    order)."""
    present = {(r["id"], r["tier"]) for r in rows}

    def rank(r: dict) -> tuple:
        return (str(r.get("paper") or ""), _order(r, fallback), r["id"], r["tier"])

    def nested(r: dict) -> bool:
        return bool(r.get("control_of")) and (r["control_of"], r["tier"]) in present

    controls: dict[tuple[str, str], list[dict]] = {}
    for r in sorted(filter(nested, rows), key=rank):
        controls.setdefault((r["control_of"], r["tier"]), []).append(r)
    out = []
    for r in sorted((r for r in rows if not nested(r)), key=rank):
        out += [r, *controls.get((r["id"], r["tier"]), [])]
    return out


def _paper_of(claim_id: str) -> str:
    """The paper key of a claim id ("<paper>.<name>")."""
    return claim_id.partition(".")[0]


def _order(row: dict, fallback: Callable[[str], int | None] | None = None) -> float:
    """A record's or calibration row's stored registration order, else ``fallback(id)``, else inf."""
    order = row.get("order")
    if not is_order(order) and fallback is not None:
        order = fallback(row["id"])
    return order if is_order(order) else math.inf


def _preference(rec: dict) -> tuple[bool, str]:
    """A run at the tier's own settings (no --set, no --replicates) first, then the latest."""
    default = not rec.get("overrides") and (rec.get("run") or {}).get("replicates") is None
    return (default, str(rec.get("finished", "")))
