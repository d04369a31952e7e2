"""Section 5 (online subspace tracking, Figure 5) and Section 6.2 (line spectrum from bits,
Figure 6) of Chi (2018)."""
from __future__ import annotations

from simverify.claims import Control
from simverify.findings import erratum
from simverify.laws import Bound, Comparison
from simverify.stats import CONFIRMED, REFUTED

from . import PAPER
from . import sweeps as sw
from .lemmas import NO_INFORMATION


# --------------------------------------------------------------------------- Figure 5: online tracking
def _comparable_to_batch(tracker: str) -> Comparison:
    """NMSE of the tracker ``tracker`` within a factor 1.5 of batch EVD, at every checkpoint."""
    return Comparison(f"nmse_online_{tracker}", "nmse_batch", "comparable", 1.5)


PAPER.claim(
    "figure5.online_as_printed", item="Figure 5",
    statement="Online tracking (Section 5, as printed) is comparable to batch truncated EVD (n = 40, r = 3).",
    formula=r"NMSE_{online} / NMSE_{batch} \in [1/1.5, 1.5]",
    law=_comparable_to_batch("printed"), sweep=sw.FIGURE5, expected=REFUTED,
    finding=erratum(
        "From a cold start (random U0, Pi0 = 0), keeping the r eigenpairs of Gamma_m largest in |eigenvalue| "
            "(as printed) lets negative eigenvalues of J (noise of size ~sqrt(n/m)) displace signal directions and "
            "the NMSE stalls: at m = 2 x 10^4 (n = 40, r = 3) it was 0.43 on average over 8 seeds (0.18-0.70 per "
            "seed) against 0.0056 for batch EVD, and it stalled in 15 of 16 further seeds. The scope is the cold "
            "start: started from the batch EVD of the first 1000 bits the as-printed rule tracks as well as batch "
            "EVD (0.0059 at m = 2 x 10^4; claim section5.warm_start). Keeping the r largest eigenvalues (the "
            "corrected variant) is within 1.5x of batch from a cold start too.",
        derivation="Noise eigenvalues of J of size about sqrt(n/m) on both sides of zero; the |eigenvalue| rule "
                   "keeps negative ones; measured on 24 seeds, and the corrected rule and the warm start do not "
                   "stall."),
    controls=(Control("corrected_order", "tracker keeping the r largest eigenvalues", CONFIRMED,
                      law=_comparable_to_batch("corrected")),))

PAPER.claim(
    "figure5.online_corrected", item="Figure 5",
    statement="(Corrected variant, this project) online tracking keeping the r largest eigenvalues is comparable "
              "to batch truncated EVD.",
    formula=r"NMSE_{online,corrected} / NMSE_{batch} \in [1/1.5, 1.5]",
    law=_comparable_to_batch("corrected"), sweep=sw.FIGURE5,
    controls=(Control("as_printed", "the as-printed magnitude ordering", law=_comparable_to_batch("printed")),))


PAPER.claim(
    "section5.warm_start", item="Section 5",
    statement="(This project) The as-printed rule (keep the r largest |eigenvalues|) started from the batch EVD of "
              "the first 1000 bits tracks comparably to batch truncated EVD (n = 40, r = 3).",
    formula=r"NMSE_{online,printed}(U_0, \Pi_0 = EVD_r(J_{1000})) / NMSE_{batch} \in [1/1.5, 1.5]",
    law=_comparable_to_batch("warm"), sweep=sw.FIGURE5,
    controls=(Control("cold_start", "the as-printed rule from a cold start (random U0, Pi0 = 0)",
                      law=_comparable_to_batch("printed")),))


# --------------------------------------------------------------------------- Figure 6: line spectrum
# The subtitles of Fig. 6 (the frequency profiles) are not in the text; the settings (measures.line_spectrum)
# follow its description: (a) and (b) share F with two frequencies one Rayleigh limit (1/n) apart, all strong
# in (a), one weak in (b); (c) well separated with one weak frequency.
def _resolved(setting):
    return lambda ds: ds["m_resolved"].sel(setting=setting)


PAPER.claim(
    "figure6.resolves", item="Figure 6",
    statement="The online tracker (r_est = 5) plus ESPRIT recovers a line spectrum of three strong frequencies, two "
              "of them one Rayleigh limit apart, from bits (Fig. 6 (a)), within 100 n bits.",
    formula=r"E[m_{resolved}] \le 100 n,  m_{resolved}: every |\hat f - f| < 0.25/n from then on",
    law=Bound(_resolved("a"), lambda ds: 100.0 * ds["n"], "<="), sweep=sw.FIGURE6, controls=(NO_INFORMATION,))

PAPER.claim(
    "figure6.weak_needs_more", item="Figure 6",
    statement="When one of the two close frequencies is weak (b), more bits are needed than when all are strong (a).",
    formula=r"E[m_{resolved}(b)] / E[m_{resolved}(a)] \ge 1",
    law=Comparison(_resolved("b"), _resolved("a"), "greater", 1.0), sweep=sw.FIGURE6,
    controls=(Control("reversed", "claim that the weak frequency needs fewer bits",
                      law=Comparison(_resolved("b"), _resolved("a"), "less", 1.0)),))
