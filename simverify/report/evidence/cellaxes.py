"""Cells along a categorical axis: horizontal labels that fit (one line, one parameter per line, or the cells
down the y axis), the parameters every cell shares named once, and a figure tall enough for them."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .common import CHAR_WIDTH, tick_points, wrap

AXES_SHARE = 0.6  # the share of the figure's width the data area gets beside its legend (label fitting)


def _pack(parts: Sequence[str], width: int) -> str:
    """Parameters (``k=v``) joined by ', ' into lines of at most ``width`` characters (a longer one alone)."""
    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + 2 + len(part) <= width:
            lines[-1] += ", " + part
        else:
            lines.append(part)
    return "\n".join(lines)


def common_parameters(labels: Sequence[str]) -> tuple[list[str], list[str]]:
    """(labels without the parameters every label shares, the shared parameters): 'n=1, solver=hals' and
    'n=2, solver=hals' -> ['n=1', 'n=2'], ['solver=hals']. Nothing is taken out of a single label or when
    it would leave a label empty."""
    parts = [label.split(", ") for label in labels]
    if len(parts) < 2:
        return list(labels), []
    shared = [p for p in parts[0] if all(p in q for q in parts[1:])]
    if not shared or any(len(q) == len(shared) for q in parts):
        return list(labels), []
    return [", ".join(p for p in q if p not in shared) for q in parts], shared


def cell_layout(ax, labels: Sequence[str]) -> tuple[bool, list[str]]:
    """(horizontal, tick labels) for cells along a categorical axis, every label written horizontally:
    one line each when they fit across the data area, else one parameter per line, else the cells run
    down the y axis (``horizontal``) with their parameters packed in lines beside them."""
    width = ax.figure.get_figwidth() * AXES_SHARE * ax.get_position().width / 0.775  # 0.775: default share
    char = CHAR_WIDTH * tick_points() / 72  # inches per character
    slot = width / max(len(labels), 1)
    if max(map(len, labels), default=0) * char <= 0.9 * slot:
        return False, list(labels)
    stacked = [label.replace(", ", "\n") for label in labels]
    longest = max((len(line) for label in stacked for line in label.split("\n")), default=0)
    if longest * char <= 0.9 * slot and max(label.count("\n") for label in stacked) < 4:
        return False, stacked
    return True, [_pack(label.split(", "), max(24, longest)) for label in labels]


class CellAxes:
    """Draws per-cell values with the cells along x (``horizontal=False``) or down y (``True``)."""

    def __init__(self, ax, horizontal: bool):
        self.ax, self.h = ax, horizontal

    def errorbar(self, pos, est, lo, hi, **kw):
        """Each cell's estimate with its interval [lo, hi] along the value axis."""
        err = [est - lo, hi - est]
        if self.h:
            return self.ax.errorbar(est, pos, xerr=err, **kw)
        return self.ax.errorbar(pos, est, yerr=err, **kw)

    def points(self, pos, values, fmt, **kw):
        """Markers at the cells' values ('_' becomes '|' when the cells run down y)."""
        marker = {"_": "|"}.get(fmt, fmt) if self.h else fmt
        return self.ax.plot(values, pos, marker, **kw) if self.h else self.ax.plot(pos, values, marker, **kw)

    def span(self, lo, hi, **kw):
        """A band across every cell between two values."""
        return self.ax.axvspan(lo, hi, **kw) if self.h else self.ax.axhspan(lo, hi, **kw)

    def line(self, value, **kw):
        """A line across every cell at one value."""
        return self.ax.axvline(value, **kw) if self.h else self.ax.axhline(value, **kw)

    def between(self, pos, lo, hi, **kw):
        """A band between per-cell values lo and hi."""
        if self.h:
            return self.ax.fill_betweenx(pos, lo, hi, **kw)
        return self.ax.fill_between(pos, lo, hi, **kw)

    def value_scale(self, scale: str):
        """The value axis's scale ('log', 'linear')."""
        (self.ax.set_xscale if self.h else self.ax.set_yscale)(scale)

    def value_label(self, text: str):
        """The value axis's label."""
        (self.ax.set_xlabel if self.h else self.ax.set_ylabel)(text)

    def value_lim(self, lo, hi):
        """The value axis's limits."""
        (self.ax.set_xlim if self.h else self.ax.set_ylim)(lo, hi)

    def value_axis(self):
        """The value axis (the matplotlib Axis object)."""
        return self.ax.xaxis if self.h else self.ax.yaxis

    def cells(self, pos, labels, shared=()):
        """The cells' ticks and labels; the parameters all cells share named once, on the cell axis."""
        n = len(pos)
        if shared:
            (self.ax.set_ylabel if self.h else self.ax.set_xlabel)(wrap("every cell: " + ", ".join(shared), 50))
        if self.h:
            self.ax.set_yticks(pos)
            self.ax.set_yticklabels(labels)
            self.ax.set_ylim(n - 0.4, -0.6)  # the first cell on top
        else:
            self.ax.set_xticks(pos)
            self.ax.set_xticklabels(labels)
            self.ax.set_xlim(-0.6, n - 0.4)


def fit_height(ax, labels: Sequence[str]) -> None:
    """Cells down the y axis get their label's lines and half a line between: a taller figure if need be."""
    fig = ax.figure
    lines = sum(label.count("\n") + 1.6 for label in labels)
    need = lines * 1.25 * tick_points() / 72 / max(ax.get_position().height, 0.2) + 1.2
    if need > fig.get_figheight():
        set_height(fig, need)


def set_height(fig, inches: float) -> None:
    """The figure's height, a whole number of pixels (the PNG's size is then exactly the figure's)."""
    fig.set_size_inches(fig.get_figwidth(), np.ceil(inches * fig.dpi) / fig.dpi)


def cell_axes(ax, labels: Sequence[str]) -> tuple[CellAxes, list[str], list[str]]:
    """One point per cell labelled by ``labels``: the axes (horizontal when the labels are long, the figure's
    height fitted to them), the tick labels and the parameters every cell shares (said once)."""
    labels, shared = common_parameters(labels)
    horizontal, ticks = cell_layout(ax, labels)
    if horizontal:
        fit_height(ax, ticks)
    return CellAxes(ax, horizontal), ticks, shared
