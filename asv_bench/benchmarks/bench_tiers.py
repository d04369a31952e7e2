"""Each paper's quick tier end to end (warm JIT, empty store, one process), cold import and first
compile, and statistical efficiency (interval width per second of simulation)."""
import os
import shutil
import tempfile

from simverify import registry, runner
from simverify.executors import SerialExecutor
from simverify.store import Store


def _run(claims, tier="quick"):
    root = tempfile.mkdtemp(prefix="sv-bench-")
    try:
        return runner.check(claims, tier, Store(root), SerialExecutor())
    finally:
        shutil.rmtree(root, ignore_errors=True)


class QuickTier:
    """The bitsubspace quick tier (66 checks), serially in this process: the suite's compute on one core."""
    timeout = 1800
    number, repeat, warmup_time = 1, 1, 0

    def setup(self):
        self.claims = registry.all_claims("bitsubspace", controls=True)
        _run([registry.get("bitsubspace.lemma2.rate_m"), registry.get("bitsubspace.figure5.online_corrected")])

    def time_bitsubspace_quick_tier_serial(self):
        _run(self.claims)


class StatisticalEfficiency:
    """Interval half-width x sqrt(compute seconds) of a claim's headline estimate: the half-width one
    second of simulation would buy (lower is better; it stays constant when the tier only grows)."""
    number, repeat, warmup_time = 1, 1, 0
    timeout = 600

    def setup(self):
        _run([registry.get("bitsubspace.lemma2.rate_m")])

    def _efficiency(self, claim_id):
        rec = _run([registry.get(claim_id)])[0]
        return (rec["ci"][1] - rec["ci"][0]) / 2 * rec["elapsed_s"] ** 0.5

    def track_efficiency_lemma2_rate_m(self):
        return self._efficiency("bitsubspace.lemma2.rate_m")

    track_efficiency_lemma2_rate_m.unit = "slope half-width x sqrt(s)"

    def track_efficiency_theorem1_rate_m(self):
        return self._efficiency("bitsubspace.theorem1.rate_m")

    track_efficiency_theorem1_rate_m.unit = "slope half-width x sqrt(s)"


_FIRST_CALL = """
from simverify.solvers import bitsubspace as sol
from simverify.generators import bitsubspace as gen
sol.surrogate_matrix(gen.SensingModel(gen.gaussian_factor(10, 2, 0)), 100, 0)
"""


def timeraw_import_and_first_call_warm_cache():
    """Import and the first surrogate call with Numba's on-disk cache warm (the usual start)."""
    return _FIRST_CALL


class ColdCompile:
    """Import and first call with an empty Numba cache directory: the one-time compile cost."""
    timeout = 600
    number, repeat = 1, 1

    def setup(self):
        self.cache = tempfile.mkdtemp(prefix="sv-numba-")
        os.environ["NUMBA_CACHE_DIR"] = self.cache

    def teardown(self):
        os.environ.pop("NUMBA_CACHE_DIR", None)
        shutil.rmtree(self.cache, ignore_errors=True)

    def timeraw_import_and_first_call_cold_cache(self):
        return _FIRST_CALL
