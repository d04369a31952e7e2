"""Every registered claim of Chi (2018) and each of its controls, quick tier, run together
(suite-wide Bonferroni budget) exactly as `simverify check --paper bitsubspace` does."""
import pytest

from simverify import registry, runner
from simverify.executors import ProcessExecutor
from simverify.store import Store

CLAIMS = registry.all_claims("bitsubspace")


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    ex = ProcessExecutor(2)
    try:
        recs = runner.check(CLAIMS, "quick", Store(tmp_path_factory.mktemp("store")), ex, root_seed=0)
    finally:
        ex.close()
    return {r["id"]: r for r in recs}


def test_every_claim_has_a_control_and_errata_have_notes():
    for c in registry.all_claims("bitsubspace", controls=False):
        assert c.controls, c.id
        if c.expected == "REFUTED":
            assert c.erratum and any(ctrl.expected == "CONFIRMED" for ctrl in c.controls), c.id
        else:
            assert any(ctrl.expected == "REFUTED" for ctrl in c.controls), c.id


@pytest.mark.parametrize("claim_id", [c.id for c in CLAIMS])
def test_quick_tier_verdict_as_expected(records, claim_id):
    rec = records[claim_id]
    assert rec["verdict"] == rec["expected"], rec
