"""Section 3 of Li & Liang (2017): Proposition 1's GCC parameters (Definition 1) of the two example weight laws,
checked condition by condition against the second moment matrix Delta = E[x x^T] estimated from samples."""
from __future__ import annotations

from simverify.claims import Control
from simverify.findings import erratum
from simverify.laws import Bound
from simverify.stats import CONFIRMED, REFUTED

from . import PAPER
from . import sweeps as sw


def _s(ds):
    return ds["s"]


PAPER.claim(
    "proposition1.binary_k", item="Proposition 1.1 (condition 2)",
    statement="Uniform s-sparse {0,1} vectors satisfy Delta_ii <= 2k/D with k = s.",
    formula=r"\frac{D}{2} \max_i \Delta_{ii} \le k = s",
    law=Bound("k_hat", _s), sweep=sw.GCC_BINARY,
    controls=(Control("k_quarter", "a wrong constant: k = s/4", law=Bound("k_hat", lambda ds: ds["s"] / 4)),))

PAPER.claim(
    "proposition1.binary_m", item="Proposition 1.1 (condition 3)",
    statement="Uniform s-sparse {0,1} vectors satisfy Delta_ij <= m/D^2 (i != j) with m = s^2.",
    formula=r"D^2 \max_{i \ne j} \Delta_{ij} \le m = s^2",
    law=Bound("m_hat", lambda ds: ds["s"] ** 2), sweep=sw.GCC_BINARY,
    controls=(Control("m_half", "a wrong constant: m = s(s-1)/2",
                      law=Bound("m_hat", lambda ds: ds["s"] * (ds["s"] - 1) / 2)),))

PAPER.claim(
    "proposition1.binary_lambda", item="Proposition 1.1 (condition 4)",
    statement="Uniform s-sparse {0,1} vectors satisfy Delta >= (k lambda / D) I with k = s, lambda = 1 - 1/s, "
              "i.e. D lambda_min(Delta) >= s - 1. Exactly, D lambda_min(Delta) = s (1 - (s-1)/(D-1)), so the "
              "condition holds if and only if s(s-1) <= D-1: inside the paper's regime s = O(D^(1/6)), not for "
              "every s (the control).",
    formula=r"D \lambda_{\min}(\Delta) \ge k\lambda = s - 1",
    law=Bound("klambda_hat", lambda ds: ds["s"] - 1, sense=">="), sweep=sw.GCC_BINARY,
    controls=(Control("dense", "s = 6 and 8 at D = 20, where s(s-1) > D - 1", fixed={"s": [6, 8], "D": 20}),))

PAPER.claim(
    "proposition1.dirichlet_k", item="Proposition 1.2 (condition 2)",
    statement="Dirichlet(s/D, ..., s/D) vectors satisfy Delta_ii <= 2k/D with k = 1.",
    formula=r"\frac{D}{2} \max_i \Delta_{ii} \le k = 1",
    law=Bound("k_hat", 1.0), sweep=sw.GCC_DIRICHLET,
    controls=(Control("k_half_exact", "a wrong constant: half the exact D E[x_i^2] / 2 = (s + D) / (2D(s + 1))",
                      law=Bound("k_hat", lambda ds: (ds["s"] + ds["D"]) / (4 * ds["D"] * (ds["s"] + 1)))),))

PAPER.claim(
    "proposition1.dirichlet_m", item="Proposition 1.2 (condition 3)",
    statement="Dirichlet(s/D, ..., s/D) vectors satisfy Delta_ij <= m/D^2 (i != j) with m = 1/(sD).",
    formula=r"D^2 \max_{i \ne j} \Delta_{ij} \le m = \frac{1}{sD}",
    law=Bound("m_hat", lambda ds: 1.0 / (ds["s"] * ds["D"])), sweep=sw.GCC_DIRICHLET, expected=REFUTED,
    finding=erratum(
        "For x ~ Dirichlet(a, ..., a) with a = s/D (total s), E[x_i x_j] = a^2 / (s(s+1)) = s / ((s+1) D^2), so "
            "the smallest valid m is s/(s+1), not 1/(sD): the printed m is too small by the factor s^2 D/(s+1) "
            "(about 83 at s = 5, D = 20 and 417 at s = 5, D = 100). The smallest valid m is exactly s/(s+1) = "
            "5/6 = 0.833 at s = 5 (our measured 0.86 is a maximum over noisy pair estimates, biased up), 0.857 at "
            "s = 6 and 0.889 at s = 8. m = 1 holds for every s (the control). Scope: the Dirichlet example of "
            "Proposition 1; the binary example's m = s^2 holds.",
        derivation="E[x_i x_j] of a symmetric Dirichlet computed in closed form; re-derived independently from "
                   "the paper's text: the smallest valid m is s/(s+1), 0.833 at s = 5."),
    controls=(Control("m_one", "the corrected constant m = 1 (s/(s+1) < 1)", CONFIRMED, law=Bound("m_hat", 1.0)),))

PAPER.claim(
    "proposition1.dirichlet_lambda", item="Proposition 1.2 (condition 4)",
    statement="Dirichlet(s/D, ..., s/D) vectors satisfy Delta >= (k lambda / D) I with k = 1, lambda = 1 - 1/s.",
    formula=r"D \lambda_{\min}(\Delta) \ge k\lambda = 1 - 1/s",
    law=Bound("klambda_hat", lambda ds: 1.0 - 1.0 / ds["s"], sense=">="), sweep=sw.GCC_DIRICHLET, expected=REFUTED,
    finding=erratum("Delta = (E x_i^2 - E x_i x_j) I + E[x_i x_j] 1 1^T with E x_i^2 - E x_i x_j = 1/(D(s+1)), so "
            "D lambda_min(Delta) = 1/(s+1) exactly: with k = 1 the largest valid lambda is 1/(s+1), not 1 - 1/s "
            "(0.17 against 0.8 at s = 5). lambda = 1 - 1/s itself is valid with a smaller k: Delta >= (k lambda/D) I "
            "needs k <= 1/((s+1)(1 - 1/s)) = s/(s^2 - 1), and condition 2 needs k >= its own minimum, so any k in "
            "[k_min, s/(s^2 - 1)] works; the defect is the printed pair (k = 1, lambda = 1 - 1/s) and, "
            "independently, m (condition 3). Scope: the Dirichlet example of Proposition 1.",
        derivation="Delta's eigenvalues computed in closed form from the Dirichlet moments; re-derived "
                   "independently from the paper's text."),
    controls=(Control("lambda_corrected", "the corrected lambda = 1/(s+1), attained with equality, so stated at 5% "
                                          "resolution (the minimum eigenvalue of the sample Delta is biased down by "
                                          "about sqrt(D/N): 3% at D = 20, N = 1e5)", CONFIRMED,
                      law=Bound("klambda_hat", lambda ds: 1.0 / (ds["s"] + 1), sense=">=", rtol=0.05)),))
