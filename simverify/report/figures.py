"""Each claim's evidence figure, drawn by its law (``Law.plot``) from the stored Dataset, as PNG bytes."""
from __future__ import annotations

import io
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import xarray as xr

from .. import registry
from ..store import Store

DPI = 100


class UnreadableFile(Exception):
    """A data file the report names instead of drawing."""

    def __init__(self, path: Path, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = path, reason


def dataset_path(rec: dict, store: Store) -> Path | None:
    """The record's Dataset: under this store by its relative path (a moved store), else its absolute
    path as recorded, else the file of that name under this store; None when there is none."""
    candidates = []
    if rec.get("dataset"):
        candidates.append(store.root / rec["dataset"])
    if rec.get("store"):
        path = Path(rec["store"])
        candidates += [path, store.root / "datasets" / rec["id"] / path.name]
    return next((p for p in candidates if p.exists()), None)


def open_dataset(path: Path) -> xr.Dataset:
    """The Dataset loaded in memory; UnreadableFile when it is not a readable NetCDF Dataset."""
    try:
        with xr.open_dataset(path) as ds:
            return ds.load()
    except Exception as exc:  # any malformed file is named in the report, never fatal
        raise UnreadableFile(path, " ".join(f"{type(exc).__name__}: {exc}".split())) from None


def law_of(claim_id: str):
    """The registered law of a claim, or None when the id is not registered (an older store)."""
    try:
        return registry.get(claim_id).law
    except Exception:  # unknown id or a plugin that fails to import: no figure, said on the page
        return None


def evidence_png(rec: dict, ds: xr.Dataset) -> tuple[bytes | None, str]:
    """(PNG bytes, "") of the claim's law drawing its evidence, or (None, why not)."""
    law = law_of(rec["id"])
    if law is None:
        return None, "the claim is not registered in this installation, so its law cannot draw the figure"
    if not callable(getattr(law, "plot", None)):
        return None, f"its law ({type(law).__name__}) cannot draw figures in this installation"
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    try:
        law.plot(ds, rec, ax)
        # fixed margins with room for a two-line title and slanted cell labels: tight_layout measured
        # every text of every figure again and took half the report's time
        fig.subplots_adjust(left=0.12, right=0.97, bottom=0.2, top=0.88)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})  # same bytes everywhere
        return buf.getvalue(), ""
    except Exception as exc:  # a figure that cannot be drawn is reported on the page, never fatal
        return None, f"the figure could not be drawn ({type(exc).__name__}: {' '.join(str(exc).split())})"
    finally:
        plt.close(fig)
