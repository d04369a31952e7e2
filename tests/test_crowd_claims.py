"""Ibrahim & Fu (2021), crowdsourcing via co-occurrence imputation and SymNMF (paper key ``crowd``): every claim and
control plans at both tiers, every control is registered and each claim has one expecting another verdict, and the
cheapest claim is checked for real. The whole quick tier, judged together as ``simverify check --paper crowd`` does,
runs in test_paper_claims.py."""
import pytest

from simverify import registry, runner, sweep
from simverify.executors import SerialExecutor
from simverify.store import Store

PAPER = "crowd"
CHEAPEST = "crowd.section4.bluebird_dessymnmf_missing"  # one cell on shipped data: about 1 s with its control


@pytest.mark.parametrize("tier", ["quick", "full"])
@pytest.mark.parametrize("claim_id", [c.id for c in registry.all_claims(PAPER)])
def test_claim_plans_at_both_tiers(claim_id, tier):
    plan = sweep.plan(registry.get(claim_id), tier)
    assert plan.tasks and plan.replicates >= 1, claim_id


@pytest.mark.parametrize("claim_id", [c.id for c in registry.all_claims(PAPER, controls=False)])
def test_controls_are_registered_and_one_expects_another_verdict(claim_id):
    claim = registry.get(claim_id)
    controls = [registry.get(f"{claim_id}~{ctrl.name}") for ctrl in claim.controls]
    assert controls and all(c.control_of == claim_id and c.paper == PAPER for c in controls), claim_id
    assert any(c.expected != claim.expected for c in controls), (
        f"{claim_id} (expected {claim.expected}): no control expects another verdict")


def test_cheapest_claim_and_its_controls_reach_their_expected_verdicts(tmp_path):
    claim = registry.get(CHEAPEST)
    claims = [claim, *(registry.get(f"{CHEAPEST}~{ctrl.name}") for ctrl in claim.controls)]
    records = runner.check(claims, "quick", Store(tmp_path), SerialExecutor(), root_seed=0)
    assert [(r["id"], r["verdict"]) for r in records] == [(c.id, c.expected) for c in claims], records


@pytest.mark.parametrize("claim_id,overrides,needle", [
    ("crowd.table1.robsymnmf_beats_mv", {"setting": ["p=0.9"]}, r"parameter setting\b.*p=0\.9.*miss=30%"),
    ("crowd.table1.robsymnmf_beats_mv", {"data": "iris"}, r"parameter data\b.*iris"),
    ("crowd.table3.dessymnmf_missing_30", {"aggregator": ["kos"]}, "kos is for binary labels"),
])
def test_table_parameters_outside_the_paper_are_refused_when_planned(claim_id, overrides, needle):
    """Tables 1-3's columns and data sets (theorems.crowd.uci_measures) are checked by the paper's validation."""
    with pytest.raises(ValueError, match=needle):
        sweep.plan(registry.get(claim_id), "quick", overrides=overrides)
