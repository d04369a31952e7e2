"""Section 5.1 of Lin et al. (2022): Figure 1's convergence curves, SLM against the factorization machine
baseline (fastFM's ALS), by test NMSE on one training set of 30 k d instances without the zero-mean/unit-variance
oracle. Table 1 (MovieLens, Flixster, Epinions, OMIM) is not reproduced: the data cannot be downloaded here."""
from __future__ import annotations

import numpy as np

from simverify.claims import Control
from simverify.findings import not_reproduced
from simverify.laws import Bound, Selection
from simverify.stats import CONFIRMED, REFUTED

from . import PAPER
from . import sweeps as sw


def _at(solver, param=None):
    """The final test NMSE of ``solver`` (a name or a tuple of names), at distribution parameter ``param``."""
    def q(ds):
        da = Selection("final_nmse", "solver", solver)(ds)
        return da if param is None else da.sel(param=param)
    return q


def log10_nmse(solver):
    """log10 of ``solver``'s final test NMSE per replicate (its mean: the log of the geometric mean)."""
    return lambda ds: np.log10(_at(solver)(ds))


def lower_in_run(a, b):
    """1 where quantity a is below b in a run, else 0 (paired: both solvers ran on the same draw)."""
    return lambda ds: (a(ds) < b(ds)).astype(float)


def log_ratio(a, b):
    """log(a / b) per replicate, a and b quantities (paired: both solvers ran on the same draw); the mean over
    replicates is the log of the geometric-mean ratio, robust to the rare stalled run."""
    return lambda ds: np.log(a(ds) / b(ds))


BASELINES = ("fm", "fm_standardised")

def wins(a, b):
    """1 where a < b per replicate (a and b paired quantities), else 0: a frequency for Bound(probability=True)."""
    return lambda ds: (a(ds) < b(ds)).astype(float)


PAPER.claim(
    "figure1.mip", item="Figure 1 (a)-(d)",
    statement="Truncated Gaussian x (a = 0, MIP) with low-rank M* = U U^T, noise 0 and 1: SLM reaches a lower test "
              "NMSE than the factorization machine, which cannot represent M*'s diagonal, in most runs (on the same "
              "draw, against either baseline; the frequency is above 1/2). Judged as a frequency, not a mean log "
              "ratio: at noise 1 SLM (one training set, no oracle) diverges geometrically in about 1% of runs "
              "(quick tier: 4 of 480 runs over 20 root seeds, the test NMSE growing 4-7x per step to 1e12 and more), "
              "which makes any mean of the NMSE or its logarithm a heavy-tailed statistic.",
    formula=r"P(NMSE_{SLM} < NMSE_{FM}) > 1/2",
    law=Bound(wins(_at("slm"), _at(BASELINES)), 0.5, sense=">=", probability=True), sweep=sw.FIGURE1_MIP,
    controls=(Control("fm_better", "the factorization machine reaches the lower NMSE in most runs",
                      law=Bound(wins(_at(BASELINES), _at("slm")), 0.5, sense=">=", probability=True)),))

PAPER.claim(
    "figure1.bernoulli", item="Figure 1 (e)-(f)",
    statement="Bernoulli x (q = 0.1; the full tier adds q = 0.01), diagonal-free M*: SLM converges faster than the "
              "gradient-based factorization machine, which 'seems unable to converge globally': SLM's test NMSE is "
              "the lower in at least half of the runs (on the same draw, against the baseline on standardised "
              "features; on raw features see the finding). A frequency, not a mean of log ratios: the ratio spans "
              "tens of decades when ALS fits to rounding error, and its mean was undecided in 7 of 20 root seeds.",
    formula=r"P(NMSE_{SLM} < NMSE_{FM}) \ge 1/2",
    law=Bound(lower_in_run(_at("slm"), _at("fm_standardised")), 0.5, ">=", probability=True),
    sweep=sw.FIGURE1_BERNOULLI, expected=REFUTED,
    finding=not_reproduced(
        "With fastFM's own algorithm (exact coordinate-wise ALS, zero regularisation) the factorization machine "
            "fits the diagonal-free Bernoulli model far better than SLM: quick tier (d = 20, k = 3, n = 30 kd), "
            "test NMSE about 1e-10 on standardised features and 1e-9 to 1e-6 on raw features (stalling near 0.1 in "
            "about one replicate in six), against SLM's 1e-5 to 4e-2 (the statistical floor of its estimated "
            "standardisation). The model class is not the obstacle; the paper's curves may reflect fastFM's SGD or "
            "MCMC solvers or their settings. Scope: quick-tier sizes; the full tier runs the paper's d = 1000, k = 10, "
            "q = 0.1 and 0.01.",
        cause="protocol"),
    controls=(Control("fm_standardised_lower", "the factorization machine on standardised features reaches the lower "
                                               "NMSE in at least half of the runs", CONFIRMED,
                      law=Bound(lower_in_run(_at("fm_standardised"), _at("slm")), 0.5, ">=", probability=True)),))

PAPER.claim(
    "figure1.skewness_fm_degrades", item="Figure 1 (g)-(h)",
    statement="Truncated Gaussian x with diagonal-free M*: the factorization machine converges worse as the "
              "skewness grows (a -> 0): on the same draw, its test NMSE at a = 0 is above that at a = 0.1 (the "
              "mean log ratio is positive).",
    formula=r"E \log[NMSE_{FM}(a = 0) / NMSE_{FM}(a = 0.1)] > 0",
    law=Bound(log_ratio(_at("fm", 0.0), _at("fm", 0.1)), 0.0, sense=">="), sweep=sw.FIGURE1_SKEWNESS_FM,
    controls=(Control("improves", "the factorization machine does at least as well at a = 0",
                      law=Bound(log_ratio(_at("fm", 0.0), _at("fm", 0.1)), 0.0)),))

PAPER.claim(
    "figure1.skewness_slm_every_a", item="Figure 1 (g)-(h)",
    statement="'SLM always converges globally and linearly under any a' (truncation levels a in {0, 1e-3, 0.01, "
              "0.1}; quick tier: 0 and 0.1): after the paper's 50 iterations SLM's test NMSE is below 1e-2 at every "
              "a (geometric mean over replicates). Our earlier form, SLM's NMSE below the raw-feature "
              "factorization machine's at every a, held at 30 sweeps but not at the paper's budget of 50: at "
              "a = 0.1 the two are level there (median log10 NMSE -4.3 and -4.1), and with 200 sweeps ALS wins at "
              "every a (an independent audit), so the comparison depended on a budget the paper does not use.",
    formula=r"E \log_{10} NMSE_{SLM}(a) < -2  \forall a",
    law=Bound(log10_nmse("slm"), -2.0), sweep=sw.FIGURE1_SKEWNESS,
    controls=(Control("floor_1e-8", "SLM's test NMSE below 1e-8 at every a (beyond its statistical floor)",
                      law=Bound(log10_nmse("slm"), -8.0)),))

PAPER.claim(
    "figure1.skewness_cause", item="Figure 1 (g)-(h)",
    statement="'When a = 0, fastFM is unable to find the global optimal solution at all': with its features "
              "standardised, the factorization machine's test NMSE at a = 0 stays above SLM's.",
    formula=r"E \log[NMSE_{FM, standardised}(a = 0) / NMSE_{SLM}(a = 0)] > 0",
    law=Bound(log_ratio(_at("fm_standardised", 0.0), _at("slm", 0.0)), 0.0, sense=">="),
    sweep=sw.FIGURE1_SKEWNESS, expected=REFUTED,
    finding=not_reproduced(
        "The degradation with skewness is a property of the un-centred features min(z, a), not of the "
            "gradient-based model: on the raw features ALS's median NMSE at a = 0 is about 1e-3 after the paper's 50 "
            "sweeps (7e-5 at a = 0.1), but on the same features standardised by their sample mean and variance it "
            "reaches about 1e-10 at every a, below SLM's 6e-5 (medians, quick tier, d = 20, k = 3, n = 30 kd, 40 "
            "runs). Scope: ALS (fastFM's algorithm); fastFM's SGD may behave differently.",
        cause="protocol"),
    controls=(Control("raw_features", "on the raw features the factorization machine stays above SLM at a = 0",
                      CONFIRMED, law=Bound(log_ratio(_at("fm", 0.0), _at("slm", 0.0)), 0.0, sense=">=")),))
