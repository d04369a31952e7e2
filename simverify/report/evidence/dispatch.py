"""Which function draws a law's evidence: a registry keyed by law class, filled where the drawers are defined
(``@drawer(LawClass)``), looked up along the law's MRO so a subclass is drawn by its parent's drawer."""
from __future__ import annotations

from collections.abc import Callable

import xarray as xr

Drawer = Callable[..., None]  # (law, ds, record, ax) -> None: draws on the matplotlib Axes it is given

DRAWERS: dict[type, Drawer] = {}


def drawer(*classes: type) -> Callable[[Drawer], Drawer]:
    """Register the decorated function as the evidence drawer of ``classes`` (and of their subclasses)."""
    def register(fn: Drawer) -> Drawer:
        """Enter ``fn`` for every class named; return it unchanged."""
        for cls in classes:
            DRAWERS[cls] = fn
        return fn
    return register


def _own_plot(law, ds: xr.Dataset, record: dict, ax) -> None:
    """A law class's own ``plot(ds, record, ax)`` method: a plugin's figure (e.g. images instead of cells)."""
    law.plot(ds, record, ax)


def drawer_for(law) -> Drawer | None:
    """The drawer of a law (or law class): the first class along its MRO with a registered drawer or, for a
    plugin's law class outside simverify, its own ``plot`` method; None when there is neither."""
    cls = law if isinstance(law, type) else type(law)
    for klass in cls.__mro__:
        if klass in DRAWERS:
            return DRAWERS[klass]
        if callable(vars(klass).get("plot")):
            return _own_plot
    return None


def draw_evidence(law, ds: xr.Dataset, record: dict, ax) -> None:
    """Draw the evidence of a verdict (``record``, the stored verdict record) judged by ``law`` on ``ds`` on a
    matplotlib Axes; TypeError when no drawer serves the law's class."""
    draw = drawer_for(law)
    if draw is None:
        raise TypeError(f"no evidence drawer for {type(law).__name__}")
    draw(law, ds, record, ax)
