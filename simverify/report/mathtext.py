"""A claim's formula as inline SVG, rendered offline by matplotlib's mathtext (no TeX, no network).

A formula is written in TeX math, optionally followed by a plain-text remark after two spaces
(``NMSE \\propto m^{-1}  (Fig. 2, large m)``); words of two or more letters are set upright.
"""
from __future__ import annotations

import functools
import html
import re

import numpy as np
from matplotlib.font_manager import FontProperties
from matplotlib.path import Path
from matplotlib.textpath import text_to_path

_WORD = re.compile(r"(?<![\\A-Za-z])([A-Za-z]{2,})")


def split_formula(formula: str) -> tuple[str, str]:
    """(math, remark): the remark is the text after the first double space, if any."""
    math, _, remark = formula.partition("  ")
    return math.strip(), remark.strip()


_ALIASES = ((re.compile(r"\\le(?![a-zA-Z])"), r"\\leq"), (re.compile(r"\\ge(?![a-zA-Z])"), r"\\geq"),
            (re.compile(r"\\ne(?![a-zA-Z])"), r"\\neq"))  # TeX short forms mathtext lacks


def _upright(math: str) -> str:
    for pattern, full in _ALIASES:
        math = pattern.sub(full, math)
    return _WORD.sub(lambda m: r"\mathrm{" + m.group(1) + "}", math)


FONT_POINTS = 13
PAD_POINTS = 2.16  # around the box, as savefig's pad_inches=0.03 gave
_SVG_COMMANDS = {Path.MOVETO: "M", Path.LINETO: "L", Path.CURVE3: "Q", Path.CURVE4: "C"}


@functools.cache
def _font() -> FontProperties:
    return FontProperties(size=FONT_POINTS)


@functools.cache
def _line_metrics() -> tuple[float, float, float]:
    """(width, height, depth) of "lp" in points: a text line's least height and depth, as matplotlib lays it out."""
    return text_to_path.get_text_width_height_descent("lp", _font(), ismath=False)


@functools.lru_cache(maxsize=512)
def formula_svg(formula: str) -> str | None:
    """An inline ``<svg>`` of the formula's math part (its glyphs and rules as one path, in points), or None
    when mathtext cannot parse it (the caller shows the source instead). The box is the text's line box as
    matplotlib lays a text out (at least the height and depth of "lp", so formulas share a baseline position under
    CSS ``vertical-align: middle``), widened to any ink outside it, with PAD_POINTS around; a formula without
    ink (``\\quad``) is an empty box. One mathtext parse per formula: a figure saved with a tight bounding box
    parsed it twice, about 30 ms each."""
    math, _ = split_formula(formula)
    if not math:
        return None
    tex = f"${_upright(math)}$"
    try:
        vertices, codes = text_to_path.get_text_path(_font(), tex, ismath=True)  # at FONT_SCALE, about the baseline
        width, height, depth = text_to_path.get_text_width_height_descent(tex, _font(), ismath=True)  # cached parse
    except Exception:  # a mathtext parse error (ValueError) or any other failure to typeset: shown as source
        return None
    vertices = np.asarray(vertices, dtype=float).reshape(-1, 2) * (FONT_POINTS / text_to_path.FONT_SCALE)
    codes = np.asarray(codes, dtype=np.uint8)
    _, line_height, line_depth = _line_metrics()
    depth = max(depth, line_depth)
    x0, x1, y0, y1 = 0.0, width, -depth, max(height, line_height) - depth  # the line box about the baseline
    drawn = vertices[codes != Path.CLOSEPOLY]
    if len(drawn):  # control points outside the line box (an italic overhang, a tall sum) widen it
        (ink_x0, ink_y0), (ink_x1, ink_y1) = drawn.min(axis=0), drawn.max(axis=0)
        x0, x1, y0, y1 = min(x0, ink_x0), max(x1, ink_x1), min(y0, ink_y0), max(y1, ink_y1)
    box_width, box_height = x1 - x0 + 2 * PAD_POINTS, y1 - y0 + 2 * PAD_POINTS
    ink = vertices - [x0 - PAD_POINTS, y1 + PAD_POINTS]  # the origin at the top left,
    ink[:, 1] *= -1  # y down
    label = html.escape(formula, quote=True)
    return (f"<svg role='img' aria-label='{label}' width='{box_width:.2f}pt' height='{box_height:.2f}pt' "
            f"viewBox='0 0 {box_width:.2f} {box_height:.2f}'><path d='{_path_data(ink, codes)}'/></svg>")


def _path_data(vertices, codes) -> str:
    """SVG path data of matplotlib path vertices (n, 2) and codes (n,): a command per segment, 2 decimals."""
    out, i = [], 0
    while i < len(codes):
        code = codes[i]
        if code == Path.CLOSEPOLY:
            out.append("Z")
            i += 1
            continue
        take = {Path.CURVE3: 2, Path.CURVE4: 3}.get(code, 1)
        points = " ".join(f"{x:.2f} {y:.2f}" for x, y in vertices[i:i + take])
        out.append(f"{_SVG_COMMANDS.get(code, 'L')}{points}")
        i += take
    return "".join(out)


def formula_html(formula: str) -> str:
    """The rendered formula with its remark and the TeX source on hover; source text when unparsable."""
    if not formula:
        return ""
    math, remark = split_formula(formula)
    svg = formula_svg(formula)
    body = svg if svg is not None else f"<code>{html.escape(math)}</code>"
    tail = f" <span class='remark'>{html.escape(remark)}</span>" if remark else ""
    return f"<div class='formula' title='{html.escape(formula, quote=True)}'>{body}{tail}</div>"
