"""Evidence figures: what each law judged, drawn on a matplotlib Axes by the report (``draw_evidence``).

The laws judge and never draw: a drawer per figure kind (``slope``, ``rate``, ``cells``, ``printed``,
``default``) registers itself for the law classes it serves (``dispatch.drawer``), and ``draw_evidence(law,
ds, record, ax)`` picks the drawer of the law's class or of its nearest parent along the MRO.

Every grid cell is drawn with its replicate interval (95% t-interval of the mean), the fitted law with
its band, the claimed law or bound beside it, parameter names and values as labels, and the cell that
decided the verdict marked. Only the caller imports pyplot; these modules draw on the Axes they are given.

Readable at a laptop's width: font sizes come from the caller's rcParams (none is hard-coded here),
legends stand outside the data area (right of the Axes; the caller's layout engine makes room), cell
labels are horizontal (one line, or one parameter per line, or the cells down the y axis when they do
not fit across), and a per-cell law whose Dataset holds curves (a variable over ``solver`` and the
iterations, e.g. a paper's convergence figure) draws the curves above its cells.
"""
from . import cells, default, printed, rate, slope  # noqa: F401  (importing a drawer's module registers it)
from .dispatch import DRAWERS, draw_evidence, drawer, drawer_for

__all__ = ["DRAWERS", "draw_evidence", "drawer", "drawer_for"]
