"""A claim's formula as inline SVG, rendered offline by matplotlib's mathtext (no TeX, no network).

A formula is written in TeX math, optionally followed by a plain-text remark after two spaces
(``NMSE \\propto m^{-1}  (Fig. 2, large m)``); words of two or more letters are set upright.
"""
from __future__ import annotations

import functools
import html
import re

from matplotlib.path import Path
from matplotlib.textpath import TextPath

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
PAD_POINTS = 2.16  # around the ink, as savefig's pad_inches=0.03 gave
_SVG_COMMANDS = {Path.MOVETO: "M", Path.LINETO: "L", Path.CURVE3: "Q", Path.CURVE4: "C"}


@functools.lru_cache(maxsize=512)
def formula_svg(formula: str) -> str | None:
    """An inline ``<svg>`` of the formula's math part (its glyphs and rules as one path, in points), or None
    when mathtext cannot parse it (the caller shows the source instead). One mathtext parse per formula: a
    figure saved with a tight bounding box parsed it twice, about 70 ms a formula."""
    math, _ = split_formula(formula)
    if not math:
        return None
    try:
        path = TextPath((0.0, 0.0), f"${_upright(math)}$", size=FONT_POINTS)
    except Exception:  # a mathtext parse error (ValueError) or any other failure to typeset: shown as source
        return None
    drawn = path.vertices if path.codes is None else path.vertices[path.codes != Path.CLOSEPOLY]
    if not len(drawn):
        return None
    (x0, y0), (x1, y1) = drawn.min(axis=0), drawn.max(axis=0)  # the control points' box: the ink's or a hair more
    width, height = x1 - x0 + 2 * PAD_POINTS, y1 - y0 + 2 * PAD_POINTS
    ink = path.vertices - [x0 - PAD_POINTS, y1 + PAD_POINTS]  # the origin at the top left,
    ink[:, 1] *= -1  # y down
    label = html.escape(formula, quote=True)
    return (f"<svg role='img' aria-label='{label}' width='{width:.2f}pt' height='{height:.2f}pt' "
            f"viewBox='0 0 {width:.2f} {height:.2f}'><path d='{_path_data(ink, path.codes)}'/></svg>")


def _path_data(vertices, codes) -> str:
    """SVG path data of matplotlib path vertices (n, 2) and codes (n,): a command per segment, 2 decimals."""
    if codes is None:
        codes = [Path.MOVETO] + [Path.LINETO] * (len(vertices) - 1)
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
