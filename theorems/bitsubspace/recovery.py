"""Theorem 1 (truncated EVD), Proposition 1 and Theorem 2 (bits from finitely many samples)
of Chi (2018)."""
from __future__ import annotations

import numpy as np

from simverify.claims import Control
from simverify.findings import erratum
from simverify.laws import Bound, PowerLaw, RatioBounded
from simverify.stats import CONFIRMED, REFUTED

from . import PAPER
from . import sweeps as sw
from .lemmas import NO_INFORMATION, kappa, tau
from .measures import DELTA


def alpha_bound(r, kappa_):
    """Lemma 1's alpha = max{(1 + kappa)^{-(r-1)}, e^{-kappa} / (9 r)}."""
    return np.maximum((1.0 / (1.0 + kappa_)) ** (r - 1), np.exp(-kappa_) / (9.0 * r))


def _theorem1_ratio(with_alpha=True, with_n=True):
    """distance / (alpha^-1 tau), optionally without alpha^-1 or without the factor n in tau."""
    def ratio(ds):
        alpha = alpha_bound(ds["r"], kappa(ds)) if with_alpha else 1.0
        return ds["distance"] / (tau(ds, with_n) / alpha)
    return ratio


# --------------------------------------------------------------------------- Theorem 1
PAPER.claim(
    "theorem1.rate_m", item="Theorem 1",
    statement="The truncated-EVD error ||U_hat - U Q||_F decays like m^(-1/2).",
    formula=r"||\hat U - UQ||_F \le \alpha^{-1}\sqrt{c_1 (n/m)\log(2n/\delta)}: slope -1/2 in m",
    law=PowerLaw("distance", "m", -0.5), sweep=sw.THEOREM1_M, controls=(NO_INFORMATION,))

PAPER.claim(
    "theorem1.nmse_rate_m", item="Theorem 1",
    statement="Consequently the NMSE decays like 1/m.",
    formula=r"NMSE = ||(I - \hat X\hat X^T)X||_F^2/||X||_F^2 \propto m^{-1}",
    law=PowerLaw("nmse", "m", -1.0), sweep=sw.THEOREM1_M, controls=(NO_INFORMATION,))

PAPER.claim(
    "theorem1.bound_n", item="Theorem 1",
    statement="The error bound's dependence on n holds: error / (alpha^-1 sqrt(n/m log(2n/delta))) stays bounded in n.",
    formula=r"||\hat U - UQ||_F / (\alpha^{-1}\sqrt{(n/m)\log(2n/\delta)}) bounded in n",
    law=RatioBounded(_theorem1_ratio(), "n"), sweep=sw.THEOREM1_N,
    controls=(Control("without_n", "bound without the factor n", law=RatioBounded(_theorem1_ratio(True, False), "n")),))

PAPER.claim(
    "theorem1.bound_r", item="Theorem 1",
    statement="The bound's alpha^-1 factor covers the growth of the error with the rank r.",
    formula=r"||\hat U - UQ||_F \alpha / \sqrt{(n/m)\log(2n/\delta)} bounded in r (kappa = 1)",
    law=RatioBounded(_theorem1_ratio(), "r"), sweep=sw.THEOREM1_R,
    controls=(Control("without_alpha", "bound without alpha^-1", law=RatioBounded(_theorem1_ratio(False), "r")),))

PAPER.claim(
    "theorem1.bound_kappa", item="Theorem 1",
    statement="The bound's alpha^-1 factor covers the growth of the error with the condition number kappa.",
    formula=r"||\hat U - UQ||_F \alpha / \sqrt{(n/m)\log(2n/\delta)} bounded in kappa (r = 3)",
    law=RatioBounded(_theorem1_ratio(), "kappa"), sweep=sw.THEOREM1_KAPPA,
    controls=(Control("without_alpha", "bound without alpha^-1",
                      law=RatioBounded(_theorem1_ratio(False), "kappa")),))


# --------------------------------------------------------------------------- Proposition 1, Theorem 2
PAPER.claim(
    "proposition1.samples", item="Proposition 1",
    statement="A bit is wrong with probability at most delta once T > c Tr(Sigma)/||Sigma||_F log^2(1/delta).",
    formula=r"P[y_{i,T} \ne y_i] \le \delta \text{ if } T > c\,(Tr\Sigma/||\Sigma||_F)\log^2(1/\delta): "
            r"T / (\rho \log^2(1/BER(T))) bounded in T",
    law=RatioBounded(lambda ds: ds["T"] / (ds["effrank"] * np.log(1 / ds["ber"]) ** 2), "T"),
    sweep=sw.PROPOSITION1_T, expected=REFUTED,
    finding=erratum(
        "For rank(Sigma) >= 2 (a rank-1 Sigma gives exact bits at every T: both sketches see the same scalar) "
            "the bit error rate decays like Tr(Sigma)/||Sigma||_F / sqrt(T) (measured log-log slope -1/2), so the "
            "constant needed in T > c rho log^2(1/delta) grows without bound (the needed T grows like 1/delta^2). "
            "The proof's event G2 (|<W, Sigma>| >= c2 ||Sigma||_F log(1/delta) w.p. 1 - delta/3) is false: "
            "<W, Sigma> has positive density at 0. What holds: BER <= C rho / sqrt(T).",
        derivation="<W, Sigma> has a positive density at 0, so the proof's event G2 fails with probability of "
                   "order log(1/delta), not delta/3; measured slope -1/2 of the bit error rate in T."),
    controls=(Control("corrected_rate", "corrected law BER <= C rho / sqrt(T)", CONFIRMED,
                      law=RatioBounded(lambda ds: ds["ber"] * np.sqrt(ds["T"]) / ds["effrank"], "T")),))

PAPER.claim(
    "proposition1.rate_T", item="Proposition 1",
    statement="(Corrected form, this project) the bit error rate decays like T^(-1/2).",
    formula=r"P[y_{i,T} \ne y_i] \propto T^{-1/2}",
    law=PowerLaw("ber", "T", -0.5, window=(1000, 1e7)), sweep=sw.PROPOSITION1_T,
    controls=(Control("flipped_bits", "bits flipped with probability 0.05 (an error floor)",
                      fixed={"flip_prob": 0.05}),))

PAPER.claim(
    "proposition1.effective_rank", item="Proposition 1",
    statement="The samples needed per sensor scale linearly with Tr(Sigma)/||Sigma||_F; with BER ~ (T/rho)^(-1/2) "
              "this means the bit error rate at fixed T grows like (Tr(Sigma)/||Sigma||_F)^(1/2).",
    formula=r"T \propto \rho = Tr(\Sigma)/||\Sigma||_F \Rightarrow P[y_{i,T} \ne y_i] \propto \rho^{1/2}\ (T fixed)",
    law=PowerLaw("ber", "effrank", 0.5), sweep=sw.PROPOSITION1_RHO, expected=REFUTED,
    finding=erratum(
        "At fixed T the bit error rate grows like rho^1.16 [1.13, 1.19] (rho = 2..8, Sigma a rank-rho^2 "
            "projector, T = 10^4 in the quick tier; an independent re-derivation measured slopes 1.03, 1.13, 1.16 "
            "at T = 10^2, 10^3, 10^5), so the T needed for a given error rate grows like rho^2.3, not linearly in "
            "rho. Heuristic: z_T - <W, Sigma> has "
            "sd ~ 2 Tr(Sigma)/sqrt(T) and <W, Sigma> sd 2||Sigma||_F, so BER ~ rho/(pi sqrt(T)) for large rank; the "
            "positive control uses exponent 1 with margin 0.2 because of the measured finite-rank excess (0.13).",
        derivation="Heuristic: the comparison's noise has sd about 2 Tr(Sigma)/sqrt(T) against the signal's "
                   "2||Sigma||_F, so BER ~ rho/(pi sqrt(T)); measured exponent 1.16."),
    controls=(Control("corrected_exponent", "BER proportional to rho (exponent 1, margin 0.2)", CONFIRMED,
                      law=PowerLaw("ber", "effrank", 1.0, margin=0.2)),))

PAPER.claim(
    "theorem2.all_bits", item="Theorem 2",
    statement="All m bits are exact with probability 1 - delta once T > c Tr(Sigma)/||Sigma||_F log^2(m/delta).",
    formula=r"P[\forall i: y_{i,T} = y_i] \ge 1 - \delta \text{ at } T = c\,\rho\log^2(m/\delta),\ c = 200",
    law=Bound("all_exact", 1 - DELTA, ">=", probability=True), sweep=sw.THEOREM2, expected=REFUTED,
    finding=erratum(
        "With c = 200 (all m = 10 bits exact in ~93% of runs) the printed T fails at m = 1000: P(all exact) "
            "collapses, as BER ~ rho/(pi sqrt(T)) needs T ~ (rho m/delta)^2, not log^2(m/delta). Scope: the "
            "constant c is unknown, so it is calibrated once (c = 200, where m = 10 passes) and held across m; no "
            "single c passes at every m (by the same estimate, passing at m = 1000 would need c of about 2.4e5, "
            "derived, not run).",
        derivation="A union bound over m bits with BER ~ rho/(pi sqrt(T)) needs T ~ (rho m / delta)^2; measured:"
                   " P(all exact) collapses at m = 1000."),
    controls=(Control("corrected_rule", "T = 4 (rho m / delta)^2", CONFIRMED, fixed={"rule": "corrected", "c": 4.0}),))
