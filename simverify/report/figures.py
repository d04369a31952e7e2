"""Each claim's evidence figure, drawn for its law (``evidence.draw_evidence``) from the stored Dataset, as PNG
bytes."""
from __future__ import annotations

import io
import os
from collections.abc import Callable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import xarray as xr
from PIL import Image

from .. import registry
from ..declaration import declaration_digest
from ..exceptions import UnreadableFile
from ..store import Store
from .evidence import draw_evidence, drawer_for

FIGSIZE = (8.0, 5.0)  # inches: 880 x 550 pixels at DPI, readable at a laptop's width (a law may make it taller)
DPI = 110
FONTS = {"font.size": 11, "axes.titlesize": 11, "axes.labelsize": 11, "xtick.labelsize": 10.5,
         "ytick.labelsize": 10.5, "legend.fontsize": 10}  # points, for FIGSIZE at DPI
PALETTE = 256  # colours of a figure's PNG (small_png)
PARALLEL_FROM = 24  # figures: fewer are drawn in this process (a worker's start-up costs about as much as 10 figures)


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
    """The Dataset loaded in memory; UnreadableFile when it is not a readable NetCDF Dataset (a FIFO or other
    non-regular file is not opened: reading one could block forever)."""
    if not path.is_file():
        raise UnreadableFile(path, "is not a regular file")
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


def small_png(image: Image.Image, smallest: bool = False) -> bytes:
    """The image as a PNG with a palette of at most PALETTE colours (fast octree, no dithering) and no text
    chunks: a figure's flat colours and antialiased edges keep their look at about a quarter of the bytes. The
    same input gives the same bytes. ``smallest``: zlib's slowest search (the committed reference, 11 % smaller
    at 3 times the encoding time, about 26 against 8 ms a figure); else level 6. (Median cut gave 30 % larger
    files at 2.6 times the time.)"""
    small = image.convert("RGB").quantize(colors=PALETTE, method=Image.Quantize.FASTOCTREE,
                                          dither=Image.Dither.NONE)
    buf = io.BytesIO()
    small.save(buf, format="PNG", **({"optimize": True} if smallest else {"compress_level": 6}))
    return buf.getvalue()


def rendered_image(fig) -> Image.Image:
    """The figure drawn once on its Agg canvas (its layout engine runs in the draw), as an RGBA image of
    its pixels: what savefig at the figure's dpi would encode, without a PNG encoded and decoded between. The
    image shares the canvas's buffer: use it before the figure is drawn again."""
    fig.canvas.draw()
    width, height = fig.canvas.get_width_height(physical=True)
    return Image.frombuffer("RGBA", (width, height), fig.canvas.buffer_rgba(), "raw", "RGBA", 0, 1)


@matplotlib.rc_context(FONTS)  # the figure's fonts, also while it is drawn into the PNG
def evidence_png(rec: dict, ds: xr.Dataset, smallest: bool = False) -> tuple[bytes | None, str]:
    """(PNG bytes, "") of the claim's law drawing its evidence, or (None, why not); ``smallest``: see
    ``small_png``."""
    law = law_of(rec["id"])
    if law is None:
        return None, "the claim is not registered in this installation, so its law cannot draw the figure"
    if drawer_for(law) is None:
        return None, f"its law ({type(law).__name__}) cannot draw figures in this installation"
    if rec.get("law_digest") is not None and declaration_digest(law) != rec["law_digest"]:
        return None, ("the claim's law was changed after this verdict was reached, so the figure would show another "
                      "law than the one that judged it; check the claim again to draw it")
    # constrained layout: every label, title and legend inside the canvas however long; the drawers keep
    # their tick labels plain (no mathtext), which keeps its measuring cheap
    fig, ax = plt.subplots(figsize=FIGSIZE, dpi=DPI, layout="constrained")
    try:
        draw_evidence(law, ds, rec, ax)
        return small_png(rendered_image(fig), smallest), ""
    except Exception as exc:  # a figure that cannot be drawn is reported on the page, never fatal
        return None, f"the figure could not be drawn ({type(exc).__name__}: {' '.join(str(exc).split())})"
    finally:
        plt.close(fig)


def claim_figure(rec: dict, path: Path, smallest: bool = False) -> tuple[bytes | None, str, tuple[Path, str] | None]:
    """(PNG bytes or None, why not, (path, reason) when the Dataset cannot be read) of one claim's record and
    Dataset file; ``smallest``: see ``small_png``."""
    try:
        ds = open_dataset(path)
    except UnreadableFile as exc:
        return None, "its Dataset cannot be read (see the index)", (exc.path, exc.reason)
    png, why = evidence_png(rec, ds, smallest)
    return png, why, None


def draw_figures(jobs: list[tuple[dict, Path]], workers: int | None = None,
                 progress: Callable[[int, int], None] | None = None, smallest: bool = False) -> list[tuple]:
    """``claim_figure`` of every (record, Dataset path), in order. ``workers`` > 1 (at most the cores) draws them
    in that many spawned processes (``executors.ProcessExecutor``: SIGINT ignored, gone with this process) when
    there are at least PARALLEL_FROM; otherwise, and by default, here. A script that passes workers > 1 needs the
    ``if __name__ == "__main__":`` guard of any spawned pool. ``progress(done, total)`` as figures finish;
    ``smallest``: see ``small_png``."""
    total = len(jobs)
    workers = min(workers or 1, os.cpu_count() or 1, max(total, 1))
    if progress:
        progress(0, total)
    if workers < 2 or total < PARALLEL_FROM:
        out = []
        for rec, path in jobs:
            out.append(claim_figure(rec, path, smallest))
            if progress:
                progress(len(out), total)
        return out
    from ..executors import ProcessExecutor
    pool, done, out = ProcessExecutor(workers), 0, {}
    try:
        tasks = [(i, job, smallest) for i, job in enumerate(jobs)]
        for index, result in pool.map_unordered(_indexed_figure, tasks):
            out[index[0]] = result
            done += 1
            if progress:
                progress(done, total)
    except BaseException:
        pool.close(abort=True)
        raise
    pool.close()
    return [out[i] for i in range(total)]


def _indexed_figure(task: tuple[int, tuple[dict, Path], bool]) -> tuple:
    return claim_figure(*task[1], task[2])
