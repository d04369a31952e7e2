"""Appendix B.3.2 of Li & Liang (2017), Figure 5: six components of the Olivetti faces by AND (started from six
random faces) beside scikit-learn's decompositions, drawn as images on the claim's page; judged by the relative
error of the non-negative reconstruction against scikit-learn's NMF ("similar quality")."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simverify.claims import Control
from simverify.datasets.olivetti import montage
from simverify.laws import Comparison, Selection

from . import PAPER
from . import sweeps as sw

NAMES = {"and": "AND", "nmf": "NMF", "pca": "PCA", "ica": "FastICA", "sparse_pca": "sparse PCA",
         "dictionary": "dictionary", "kmeans": "k-means"}


def scaled(images: np.ndarray) -> np.ndarray:
    """Each image (row) mapped to [0, 1] by its own minimum and maximum (signed components included)."""
    lo, hi = images.min(axis=1, keepdims=True), images.max(axis=1, keepdims=True)
    return (images - lo) / np.where(hi > lo, hi - lo, 1.0)


@dataclass
class FacesComparison(Comparison):
    """A Comparison whose figure is the components themselves: one row of images per method (replicate 0)."""

    def plot(self, ds, record, ax):
        comps = ds["components"].isel(replicate=0)
        methods = [str(m) for m in comps["decomposition"].values]
        n = comps.sizes["component"]
        side = int(round(np.sqrt(comps.sizes["pixel"])))
        rows = np.concatenate([scaled(comps.sel({"decomposition": m}).values) for m in methods])
        ax.imshow(montage(rows, (side, side), n, pad=2), cmap="gray", interpolation="nearest")
        ax.set_xticks([])
        ax.set_yticks([(side + 2) * i + side / 2 for i in range(len(methods))])
        ax.set_yticklabels([NAMES.get(m, m) for m in methods])
        ax.set_title(f"{n} components per method (replicate 0); verdict {record.get('verdict', '')}", fontsize=9)


def _error(method: str):
    return Selection("rel_error", "decomposition", method)


PAPER.claim(
    "figure5.faces", item="Figure 5 (Appendix B.3.2)",
    statement="On the Olivetti faces AND, started from six random faces with Section 7's thresholds, produces "
              "components 'of similar quality' to scikit-learn's NMF: the relative error of reconstructing all "
              "400 faces from the six components with non-negative weights is at most 1.1 times NMF's. The "
              "components are drawn as images on this claim's page.",
    formula=r"\|Y - C_{AND} Z\|_F \le 1.1\,\|Y - C_{NMF} Z'\|_F,\ Z, Z' \ge 0",
    law=FacesComparison(_error("and"), _error("nmf"), "less", 1.1), sweep=sw.FIGURE5,
    controls=(Control("ten_percent_better", "a stronger claim: AND's error at most 0.9 times NMF's",
                      law=FacesComparison(_error("and"), _error("nmf"), "less", 0.9)),))
