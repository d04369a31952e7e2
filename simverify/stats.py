"""Estimators with confidence intervals, and the three-way verdict rule.

Every interval is ``estimate +- z * SE`` with SE from the replicate-level bootstrap or
the Monte Carlo standard error (Clopper-Pearson for frequencies). Verdicts compare an
interval with the band the claim allows:

* CONFIRMED: the interval lies inside the band;
* REFUTED: the interval misses the band entirely;
* INCONCLUSIVE: it straddles an edge; the advice says how many replicates would decide.

The family-wise false-fail budget is Bonferroni: with K claims run together at family
level alpha, each claim uses confidence level 1 - alpha / K, and a claim testing C cells
splits its share again by C.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy import special as _sp  # ppf functions without scipy.stats' ~1 s import

CONFIRMED, REFUTED, INCONCLUSIVE = "CONFIRMED", "REFUTED", "INCONCLUSIVE"
VERDICTS = (CONFIRMED, REFUTED, INCONCLUSIVE)
BOOTSTRAP_RESAMPLES = 400


def format_number(x, digits: int = 4) -> str:
    """``x`` with ``digits`` significant digits (a confidence level needs 6: 0.99985, not 1);
    anything that is not a number as its str()."""
    try:
        return f"{float(x):.{digits}g}"
    except (TypeError, ValueError):
        return str(x)


def format_seconds(s: float) -> str:
    """A duration for a reader: 2 significant digits under 10 s, seconds under 10 min, minutes under 10 h, else
    hours; "?" when it is not a finite number."""
    if not math.isfinite(s):
        return "?"
    if s < 10:
        return f"{s:.2g} s"
    return f"{s:.0f} s" if s < 600 else f"{s / 60:.1f} min" if s < 36000 else f"{s / 3600:.1f} h"


def z_two_sided(level: float) -> float:
    """Normal quantile for a two-sided interval of coverage ``level``."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must lie in (0, 1), got {level}")
    return float(_sp.ndtri(0.5 + level / 2.0))


def bonferroni(level: float, k: int) -> float:
    """Per-test level when ``k`` tests share the error budget 1 - level."""
    return 1.0 - (1.0 - level) / max(int(k), 1)


def band_verdict(lo: float, hi: float, band_lo: float, band_hi: float) -> str:
    """Three-way verdict of the interval [lo, hi] against the allowed band."""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return INCONCLUSIVE
    if hi < band_lo or lo > band_hi:
        return REFUTED
    if lo >= band_lo and hi <= band_hi:
        return CONFIRMED
    return INCONCLUSIVE


def replicates_to_decide(estimate: float, lo: float, hi: float, band_lo: float, band_hi: float,
                         replicates: int) -> int | None:
    """Replicates at which the interval would fit on one side of the nearest band edge; None
    when that cannot be said (no finite edge, a degenerate or non-finite interval or estimate)."""
    if not all(np.isfinite(v) for v in (estimate, lo, hi)) or replicates < 1:
        return None
    half = 0.5 * (hi - lo)
    edges = [e for e in (band_lo, band_hi) if np.isfinite(e)]
    if not edges or half <= 0:
        return None
    gap = min(abs(estimate - e) for e in edges)
    if gap == 0:
        return None
    return math.ceil(replicates * (half / gap) ** 2) + 1


@dataclass
class Interval:
    """A point estimate with a two-sided interval and its standard error."""
    estimate: float
    lo: float
    hi: float
    se: float = float("nan")


def bootstrap_indices(replicates: int, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0) -> np.ndarray:
    """(resamples, replicates) replicate indices; fixed seed so verdicts are reproducible."""
    g = np.random.default_rng(np.random.SeedSequence([seed, replicates, resamples]))
    return g.integers(0, replicates, size=(resamples, replicates))


def bootstrap_interval(statistic, data: np.ndarray, level: float) -> Interval:
    """Normal bootstrap interval of ``statistic(data)`` resampling the last axis (replicates).

    data: (..., R). statistic maps an array of that shape to a float.
    """
    R = data.shape[-1]
    est = float(statistic(data))
    if R < 2:
        return Interval(est, -np.inf, np.inf)
    return _normal_interval(est, np.array([statistic(data[..., i]) for i in bootstrap_indices(R)]), level)


def _normal_interval(est: float, boots: np.ndarray, level: float) -> Interval:
    """est +- z * SE with SE the standard deviation of the finite bootstrap replicates ``boots``."""
    boots = boots[np.isfinite(boots)]
    se = float(np.std(boots, ddof=1)) if boots.size > 1 else float("inf")
    z = z_two_sided(level)
    return Interval(est, est - z * se, est + z * se, se)


def mean_interval(samples: np.ndarray, level: float) -> Interval:
    """Mean over the last axis with a t-interval from the Monte Carlo standard error."""
    R = samples.shape[-1]
    m = float(np.mean(samples))
    if R < 2:
        return Interval(m, -np.inf, np.inf)
    se = float(np.std(samples, ddof=1) / math.sqrt(R))
    t = float(_sp.stdtrit(R - 1, 0.5 + level / 2.0))
    return Interval(m, m - t * se, m + t * se, se)


def clopper_pearson(successes: int, trials: int, level: float) -> Interval:
    """Exact binomial interval for a frequency."""
    a = 1.0 - level
    lo = 0.0 if successes == 0 else float(_sp.betaincinv(successes, trials - successes + 1, a / 2))
    hi = 1.0 if successes == trials else float(_sp.betaincinv(successes + 1, trials - successes, 1 - a / 2))
    return Interval(successes / trials, lo, hi)


def pooled_slope(x: np.ndarray, Y: np.ndarray) -> float:
    """Common least-squares slope of Y on x with one intercept per group.

    x: (P,) abscissae; Y: (G, P) ordinates per group. Non-finite entries are left out: each
    group is centred on its finite points; NaN when no group has two finite points.
    """
    return float(pooled_slopes(x, Y[None])[0])


def pooled_slopes(x: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """pooled_slope of each Y[b] (G, P) for Y (B, G, P): (B,), in one vectorised pass."""
    ok = np.isfinite(Y)
    n = ok.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        xbar = np.where(ok, x, 0.0).sum(axis=-1, keepdims=True) / n
        ybar = np.where(ok, Y, 0.0).sum(axis=-1, keepdims=True) / n
    xc = np.where(ok, x - np.nan_to_num(xbar), 0.0)
    yc = np.where(ok, Y - np.nan_to_num(ybar), 0.0)
    sxx = np.sum(xc * xc, axis=(-2, -1))
    sxy = np.sum(xc * yc, axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sxx > 0, sxy / np.where(sxx > 0, sxx, 1.0), np.nan)


def local_slopes(x: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Pairwise slopes between consecutive points, averaged over groups (diagnostic), (P-1,);
    NaN where no group has both points."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(np.diff(Y, axis=1) / np.diff(x), axis=0)


@dataclass
class SlopeFit:
    """A fitted slope with its interval and diagnostics."""
    interval: Interval
    local: list[float] = field(default_factory=list)
    group_slopes: list[float] = field(default_factory=list)


def slope_fit(x: np.ndarray, samples: np.ndarray, level: float, transform=np.log) -> SlopeFit:
    """Slope of transform(mean over replicates) against x, bootstrap over replicates.

    x: (P,) already transformed abscissae; samples: (G, P, R) positive values. A point
    (g, p) where some replicate is not finite (e.g. after an early stop) is left out of the
    fit, in every bootstrap resample alike.
    """
    unusable = ~np.all(np.isfinite(samples), axis=-1)

    def ordinates(means):  # transform(mean) with unusable points left out, for means (..., G, P)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(unusable, np.nan, transform(means))
    Y = ordinates(samples.mean(axis=-1))
    est, R = pooled_slope(x, Y), samples.shape[-1]
    if R < 2:
        iv = Interval(est, -np.inf, np.inf)
    else:  # resamples in blocks of (b, G, P) means, at most ~4 M gathered values at a time
        idx = bootstrap_indices(R)
        step = max(1, 4_000_000 // max(samples.size, 1))
        boots = np.concatenate([pooled_slopes(x, ordinates(np.moveaxis(samples[..., idx[b:b + step]].mean(axis=-1),
                                                                       -1, 0)))
                                for b in range(0, len(idx), step)])
        iv = _normal_interval(est, boots, level)
    groups = [pooled_slope(x, Y[g:g + 1]) for g in range(Y.shape[0])]
    return SlopeFit(iv, [float(v) for v in local_slopes(x, Y)], groups)
