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

PAPER.claim(
    "theorem2.bound_d2", item="Theorem 2",
    statement="deviation / (sqrt(d1 d2 k^(1/2) / m) tau) does not grow with d2: the factor d2 inside delta is "
              "enough.",
    formula=r"\delta \propto \sqrt{d_1 d_2 k^{1/2}/m}",
    law=RatioBounded(lambda ds: ds["dev"] / (delta_scale(ds) * ds["tau"]), "d2"), sweep=sw.THEOREM2_D2,
    controls=(Control("no_d2_factor", "delta without its factor d2",
                      law=RatioBounded(lambda ds: ds["dev"] / (delta_scale(ds) / np.sqrt(ds["d2"]) * ds["tau"]),
                                       "d2")),))

PAPER.claim(
    "theorem2.bound_k", item="Theorem 2",
    statement="deviation / (sqrt(d1 d2 k^(1/2) / m) tau) does not grow with k at a fixed distance ||W - W'||_2: "
              "the factor k^(1/2) inside delta is enough.",
    formula=r"\delta \propto \sqrt{d_1 d_2 k^{1/2}/m}",
    law=RatioBounded(lambda ds: ds["dev"] / (delta_scale(ds) * ds["tau"]), "k"), sweep=sw.THEOREM2_K,
    controls=(Control("no_k_factor", "delta without its factor k^(1/2) (the deviation grows with k)",
                      law=RatioBounded(lambda ds: ds["dev"] / (delta_scale(ds) / ds["k"] ** 0.25 * ds["tau"]),
                                       "k")),))

PAPER.claim(
    "definition1.rip", item="Definition 1",
    statement="The sensing operator of Eq. (3) satisfies the delta_k-RIP, (1 - delta_k)||W||_F^2 <= (1/m)||A(W)||^2 "
              "<= (1 + delta_k)||W||_F^2 for rank-k W, with delta_k falling like m^(-1/2). Derived here: delta_k = "
              "max_j ||(d2/m) sum_{i: j_i = j} x_i x_i^T - I||_2 (a single column attains it), about "
              "2 sqrt(d1 d2 / m). The printed definition reads '<= 1/m <=': ||A(W)||^2 is missing.",
    formula=r"(1 - \delta_k)\|W\|_F^2 \le \frac{1}{m}\|A(W)\|_2^2 \le (1 + \delta_k)\|W\|_F^2",
    law=PowerLaw("delta_k", "m", -0.5), sweep=sw.RIP,
    controls=(Control("unscaled_e", "the operator with e_j instead of e_bar_j = sqrt(d2) e_j",
                      law=PowerLaw("delta_unscaled", "m", -0.5)),))
