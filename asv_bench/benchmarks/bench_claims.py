"""Claim estimates across commits: the quick-tier estimate and confidence-interval width of a few
representative claims (at least one per paper: log-log slopes, linear rates, a printed number), so that
a drift of a solver's accuracy shows in the same history as its speed.

Each class checks its claims once in ``setup_cache`` (asv runs it once and hands the result to every
``track_`` of the class), each claim alone (the interval at the level ``simverify check <id>`` gives it)
through ``runner.check`` with a serial executor and a temporary store, at the quick tier, seed 0. The
numbers are deterministic for a given commit and machine: a change in a track is a change in what the
code computes, not noise.
"""
import math
import shutil
import tempfile

from simverify import registry, runner
from simverify.executors import SerialExecutor
from simverify.store import Store

TIER = "quick"
SETUP_TIMEOUT = 300  # with a cold Numba cache the first check compiles (warm, each class takes < 30 s)


def check_claims(claim_ids, tier=TIER):
    """{claim id: (estimate, ci low, ci high)}: every claim checked alone, in one temporary store."""
    root = tempfile.mkdtemp(prefix="sv-bench-claims-")
    try:
        store, out = Store(root), {}
        with SerialExecutor() as executor:
            for claim_id in claim_ids:
                rec = runner.check([registry.get(claim_id)], tier, store, executor)[0]
                out[claim_id] = (float(rec["estimate"]), float(rec["ci"][0]), float(rec["ci"][1]))
        return out
    finally:
        shutil.rmtree(root, ignore_errors=True)


def estimate(result, claim_id):
    return result[claim_id][0]


def width(result, claim_id):
    _, lo, hi = result[claim_id]
    return hi - lo if math.isfinite(lo) and math.isfinite(hi) else math.nan


class BitsubspaceClaims:
    """Theorem 1: the truncated-EVD subspace error decays like m^(-1/2) (claimed slope -0.5)."""
    CLAIMS = ("bitsubspace.theorem1.rate_m",)
    timeout = 60

    def setup_cache(self):
        return check_claims(self.CLAIMS)

    setup_cache.timeout = SETUP_TIMEOUT

    def track_estimate_theorem1_rate_m(self, result):
        return estimate(result, "bitsubspace.theorem1.rate_m")

    track_estimate_theorem1_rate_m.unit = "log-log slope"

    def track_ci_width_theorem1_rate_m(self, result):
        return width(result, "bitsubspace.theorem1.rate_m")

    track_ci_width_theorem1_rate_m.unit = "log-log slope"


class OnebitClaims:
    """Theorem 2: the deviation of the one-bit estimator decays like m^(-1/2) (claimed slope -0.5)."""
    CLAIMS = ("onebit.theorem2.rate_m",)
    timeout = 60

    def setup_cache(self):
        return check_claims(self.CLAIMS)

    setup_cache.timeout = SETUP_TIMEOUT

    def track_estimate_theorem2_rate_m(self, result):
        return estimate(result, "onebit.theorem2.rate_m")

    track_estimate_theorem2_rate_m.unit = "log-log slope"

    def track_ci_width_theorem2_rate_m(self, result):
        return width(result, "onebit.theorem2.rate_m")

    track_ci_width_theorem2_rate_m.unit = "log-log slope"


class SlmClaims:
    """Theorem 2: the corrected Algorithm 1 converges linearly (claimed contraction 0.572 per iteration)."""
    CLAIMS = ("slm.theorem2.linear_rate",)
    timeout = 60

    def setup_cache(self):
        return check_claims(self.CLAIMS)

    setup_cache.timeout = SETUP_TIMEOUT

    def track_estimate_theorem2_linear_rate(self, result):
        return estimate(result, "slm.theorem2.linear_rate")

    track_estimate_theorem2_linear_rate.unit = "contraction per iteration"

    def track_ci_width_theorem2_linear_rate(self, result):
        return width(result, "slm.theorem2.linear_rate")

    track_ci_width_theorem2_linear_rate.unit = "contraction per iteration"


class AndnmfClaims:
    """Theorem 1: AND's error falls geometrically per stage (claimed contraction 0.5 per stage)."""
    CLAIMS = ("andnmf.theorem1.linear_rate",)
    timeout = 60

    def setup_cache(self):
        return check_claims(self.CLAIMS)

    setup_cache.timeout = SETUP_TIMEOUT

    def track_estimate_theorem1_linear_rate(self, result):
        return estimate(result, "andnmf.theorem1.linear_rate")

    track_estimate_theorem1_linear_rate.unit = "contraction per stage"

    def track_ci_width_theorem1_linear_rate(self, result):
        return width(result, "andnmf.theorem1.linear_rate")

    track_ci_width_theorem1_linear_rate.unit = "contraction per stage"


class CrowdClaims:
    """Theorem 3: the noiseless iteration converges linearly (claimed contraction 0.8 per iteration); and
    Table 5: RobSymNMF-EM's error on rte, printed 7.12 % (deterministic: its interval has width 0, so only
    the estimate is tracked)."""
    CLAIMS = ("crowd.theorem3.linear_rate", "crowd.table5.rte.robsymnmf-em")
    timeout = 60

    def setup_cache(self):
        return check_claims(self.CLAIMS)

    setup_cache.timeout = SETUP_TIMEOUT

    def track_estimate_theorem3_linear_rate(self, result):
        return estimate(result, "crowd.theorem3.linear_rate")

    track_estimate_theorem3_linear_rate.unit = "contraction per iteration"

    def track_ci_width_theorem3_linear_rate(self, result):
        return width(result, "crowd.theorem3.linear_rate")

    track_ci_width_theorem3_linear_rate.unit = "contraction per iteration"

    def track_estimate_table5_rte_robsymnmf_em(self, result):
        return estimate(result, "crowd.table5.rte.robsymnmf-em")

    track_estimate_table5_rte_robsymnmf_em.unit = "% error"
