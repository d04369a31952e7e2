"""Theorem 1 of Qiu et al. (2017) and the lemmas measured along Algorithm 1's iterates (Lemmas 5, 6),
and Algorithm 1 as printed."""
from __future__ import annotations

import numpy as np

from simverify.claims import Control
from simverify.laws import Bound, Identity, RatioBounded
from simverify.stats import CONFIRMED, REFUTED

from . import PAPER
from . import sweeps as sw


def after_start(var):
    """``var`` at iterations t >= 1 (t = 0 is the initialisation, where V(0) = 0)."""
    return lambda ds: ds[var].sel(iteration=slice(1, None))


def at_start(var, start):
    return lambda ds: ds[var].sel(start=start, drop=True)


PAPER.claim(
    "algorithm1.as_printed", item="Algorithm 1",
    statement="Algorithm 1 as printed runs: W(T) is finite and within spectral distance 1 of W*.",
    formula=r"lines 3-5 at t = 1: W^{(0)}_{\cdot j} = \tilde W^{(0)}_{\cdot j} / \|\tilde W^{(0)}_{\cdot j}\|,"
            r"  \tilde W^{(0)} = U^{(0)} V^{(0)T},  V^{(0)} = 0",
    law=Identity(at_start("recovered", "printed"), 1.0, atol=0.1), sweep=sw.ALGORITHM1_PRINTED, expected=REFUTED,
    erratum="Line 1 sets V(0) = 0, so at t = 1 lines 3-5 normalise the columns of W~(0) = U(0) V(0)^T = 0: 0/0, "
            "and every later iterate is NaN (measured: 0 of the runs finite). The smallest correction keeps line 1's "
            "W(0) = 0 at t = 1 (zero columns are left unnormalised); the first step is then the power step on the "
            "dilation of H(0), and the corrected variant recovers W* in every run. Scope: the first iteration only. "
            "Also a typo: the dilation is printed with zero blocks O_{d2 x d1} and O_{d1 x d2}, which do not fit "
            "[[0, W], [W^T, 0]] (they are d1 x d1 and d2 x d2), and line 4 extracts rows 1:d2, columns "
            "d2+1:d2+d1 (W^T's block); the project uses [[0, W], [W^T, 0]] and its upper-right block W.",
    controls=(Control("zero_start", "the corrected start: W(0) = 0 kept at t = 1", CONFIRMED,
                      law=Identity(at_start("recovered", "zero"), 1.0, atol=0.1)),))

PAPER.claim(
    "theorem1.rate_m", item="Theorem 1",
    statement="The final error is O(d1 d2 k^1.5 / m) in the batch size m: error * m does not grow with m.",
    formula=r"\|W^* - W^{(t+1)}\|_2 \le \delta_1^2 = O(d_1 d_2 k^{1.5}/m)  (t \to \infty)",
    law=RatioBounded(lambda ds: ds["final_error"] * ds["m"], "m"), sweep=sw.ALGORITHM1_M,
    controls=(Control("flipped_labels", "10% of the labels flipped (the noise floor decays like m^(-1/2))",
                      fixed={"flip_prob": 0.1}),))

PAPER.claim(
    "lemma5.factor", item="Lemma 5",
    statement="Column normalisation and re-dilation increase the error by at most 4 sqrt(k), along the iterates.",
    formula=r"\|\mathcal{W}^* - \mathcal{W}^{(t)}\|_2 \le "
            r"4\sqrt{k}\, \|\mathcal{W}^* - \widetilde{\mathcal{W}}^{(t)}\|_2",
    law=Bound(after_start("lemma5_ratio"), lambda ds: 4 * np.sqrt(ds["k"]), "<="), sweep=sw.ALGORITHM1_M,
    controls=(Control("factor_one_half", "factor 1/2 instead of 4 sqrt(k)",
                      law=Bound(after_start("lemma5_ratio"), 0.5, "<=")),))

PAPER.claim(
    "lemma6.qr_invariance", item="Lemma 6",
    statement="The QR step leaves the largest canonical angle to U* unchanged: tan theta(U*, U~(t)) = "
              "tan theta(U*, U(t)), along the iterates.",
    formula=r"\tan\theta(\mathcal{U}^*, \widetilde{\mathcal{U}}^{(t)}) = \tan\theta(\mathcal{U}^*, \mathcal{U}^{(t)})",
    law=Identity(after_start("lemma6_gap"), 0.0, atol=1e-6), sweep=sw.ALGORITHM1_M,
    controls=(Control("power_step", "the angle before the power step, U(t-1), instead of before the QR",
                      law=Identity(after_start("lemma6_gap_previous"), 0.0, atol=1e-6)),))
