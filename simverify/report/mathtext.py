"""A claim's formula as inline SVG, rendered offline by matplotlib's mathtext (no TeX, no network).

A formula is written in TeX math, optionally followed by a plain-text remark after two spaces
(``NMSE \\propto m^{-1}  (Fig. 2, large m)``); words of two or more letters are set upright.
"""
from __future__ import annotations

import functools
import html
import io
import re

from matplotlib.figure import Figure

_NAMESPACE = re.compile(r'\s+xmlns(:\w+)?="[^"]*"')
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


_LONG_DECIMAL = re.compile(r"(\d\.\d\d)\d+")


@functools.lru_cache(maxsize=512)
def formula_svg(formula: str) -> str | None:
    """An inline ``<svg>`` of the formula's math part (glyphs as paths), or None when mathtext cannot
    parse it (the caller shows the source instead)."""
    math, _ = split_formula(formula)
    if not math:
        return None
    fig = Figure(figsize=(0.01, 0.01))
    fig.text(0, 0, f"${_upright(math)}$", fontsize=13)
    buf = io.StringIO()
    try:
        fig.savefig(buf, format="svg", bbox_inches="tight", pad_inches=0.03, transparent=True,
                    metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    except Exception:  # a mathtext parse error (ValueError) or any other failure to typeset: shown as source
        return None
    svg = buf.getvalue()
    start = svg.find("<svg")
    svg = svg[start:] if start >= 0 else svg
    svg = _NAMESPACE.sub("", svg)  # inline SVG in HTML needs no namespace declarations (no URL in the page)
    svg = _LONG_DECIMAL.sub(r"\1", svg)  # 1/100 pt is below a pixel: a third of the bytes
    return svg.replace("<svg ", f"<svg role='img' aria-label='{html.escape(formula, quote=True)}' ", 1)


def formula_html(formula: str) -> str:
    """The rendered formula with its remark and the TeX source on hover; source text when unparsable."""
    if not formula:
        return ""
    math, remark = split_formula(formula)
    svg = formula_svg(formula)
    body = svg if svg is not None else f"<code>{html.escape(math)}</code>"
    tail = f" <span class='remark'>{html.escape(remark)}</span>" if remark else ""
    return f"<div class='formula' title='{html.escape(formula, quote=True)}'>{body}{tail}</div>"
