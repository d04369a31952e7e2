"""Every registered claim of every paper and each of its controls, quick tier, one paper's claims run
together (its suite-wide Bonferroni budget) exactly as `simverify check --paper <key>` does (minutes: the
fast per-paper checks are in test_<key>_claims.py, the package layout in test_paper_contract.py)."""
from importlib.metadata import entry_points

import pytest

from simverify import registry, runner
from simverify.executors import ProcessExecutor
from simverify.store import Store

PAPERS = sorted(ep.name for ep in entry_points(group="simverify.claims"))  # the project's papers, not test toys
_RECORDS: dict[str, dict] = {}


def paper_records(paper: str, tmp_path_factory) -> dict:
    """The quick-tier records of one paper's claims and controls, run once per test session."""
    if paper not in _RECORDS:
        ex = ProcessExecutor(2)
        try:
            recs = runner.check(registry.all_claims(paper), "quick", Store(tmp_path_factory.mktemp(paper)), ex,
                                root_seed=0)
        finally:
            ex.close()
        _RECORDS[paper] = {r["id"]: r for r in recs}
    return _RECORDS[paper]


@pytest.mark.parametrize("paper", PAPERS)
def test_every_claim_has_a_control_and_errata_have_positive_controls(paper):
    for c in registry.all_claims(paper, controls=False):
        assert c.controls, c.id
        if c.expected == "REFUTED":
            assert c.finding and any(ctrl.expected == "CONFIRMED" for ctrl in c.controls), c.id
        else:
            assert any(ctrl.expected == "REFUTED" for ctrl in c.controls), c.id


@pytest.mark.slow
@pytest.mark.parametrize("claim_id", [pytest.param(c.id, marks=pytest.mark.xdist_group(f"quick-tier-{paper}"))
                                      for paper in PAPERS for c in registry.all_claims(paper)])
def test_quick_tier_verdict_as_expected(tmp_path_factory, claim_id):
    rec = paper_records(registry.get(claim_id).paper, tmp_path_factory)[claim_id]
    assert rec["verdict"] == rec["expected"], rec
