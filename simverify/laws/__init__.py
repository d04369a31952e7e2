"""Laws: how a claim's ``xarray.Dataset`` is judged (docs/claims.md, docs/statistics.md).

A law reads the claim's Dataset (grid dims x ``replicate`` [x output dims]) and returns a
:class:`LawResult`. Quantities are given as a variable name or as a callable
``ds -> DataArray`` so that a control may change only the law (for example a wrong
constant) and reuse the same cached simulation.

Before any simulation runs, the planner calls ``law.check_plan(coords)`` with every dim the
Dataset will have mapped to its coordinate values, and refuses fewer replicates than
``law.min_replicates``. A law cannot know which dims a quantity given by name or callable
carries, so ``check_plan`` checks only the dims the law names itself: the swept axis of a
slope law, the ``item`` dim of an item bootstrap, the dim and labels of
:meth:`Comparison.against`, and the labels a callable declares with :func:`needing`.

Fixed data (a real data set, no Monte Carlo replicates) is judged with
:class:`MatchesPrinted` (a deterministic number against the digits a paper printed) or with
``resample="item"`` on :class:`Bound`, :class:`Identity` and :class:`Comparison`: the
interval then comes from resampling the per-item outcomes along the ``item`` dim.
"""
from .base import ITEM, NO_BAND, REPLICATE, Law, LawResult, check_needs, needing, quantity
from .cells import Bound, Comparison, Identity, Selection
from .fixed import MatchesPrinted, MatchesPrintedMean
from .slope import LinearRate, LogSlope, PowerLaw, RatioBounded, SlopeRange

__all__ = ["ITEM", "NO_BAND", "REPLICATE", "Bound", "Comparison", "Identity", "Law", "LawResult", "LinearRate",
           "LogSlope", "MatchesPrinted", "MatchesPrintedMean", "PowerLaw", "RatioBounded", "Selection", "SlopeRange",
           "check_needs", "needing", "quantity"]
