"""Theorem 2 of Qiu et al. (2017), the RIP-type condition between two fixed column-normalised matrices."""
from __future__ import annotations

import numpy as np

from simverify.claims import Control
from simverify.laws import PowerLaw, RatioBounded

from . import PAPER
from . import sweeps as sw


def delta_scale(ds, with_d1: bool = True):
    """sqrt(d1 d2 k^(1/2) / m), the order of delta (without d1 when ``with_d1`` is False)."""
    return np.sqrt((ds["d1"] if with_d1 else 1.0) * ds["d2"] * np.sqrt(ds["k"]) / ds["m"])


PAPER.claim(
    "theorem2.rate_m", item="Theorem 2",
    statement="The deviation ||sqrt(d2)/(lambda m)(A' sign A(W) - A' sign A(W')) - (W - W')||_2 decays like "
              "m^(-1/2) (delta of order sqrt(d1 d2 k^(1/2) / m)) at fixed W, W'.",
    formula=r"\|\frac{\sqrt{d_2}}{\lambda m}(A' sign A(W) - A' sign A(W')) - (W - W')\|_2 \le "
            r"\delta \max\{\|W-W'\|_2, \|W-W'\|_2^{1/2}, \delta'\},  \delta = O(\sqrt{d_1 d_2 k^{1/2}/m})",
    law=PowerLaw("dev", "m", -0.5), sweep=sw.THEOREM2_M,
    controls=(Control("uncentred", "the same sum without subtracting W - W' (no RIP-type centring)",
                      law=PowerLaw("uncentred", "m", -0.5)),))

PAPER.claim(
    "theorem2.bound_d1", item="Theorem 2",
    statement="deviation / (sqrt(d1 d2 k^(1/2) / m) tau) does not grow with d1 (tau = max{||W - W'||, "
              "||W - W'||^(1/2)}): the factor d1 inside delta is enough.",
    formula=r"\delta \propto \sqrt{d_1 d_2 k^{1/2}/m}",
    law=RatioBounded(lambda ds: ds["dev"] / (delta_scale(ds) * ds["tau"]), "d1"), sweep=sw.THEOREM2_D1,
    controls=(Control("no_d1_factor", "delta without its factor d1",
                      law=RatioBounded(lambda ds: ds["dev"] / (delta_scale(ds, False) * ds["tau"]), "d1")),))
