"""Qiu, Luo, Ye & Lin (2017), nonconvex one-bit single-label multi-label learning (paper key ``onebit``): every claim
and control plans at both tiers, every control is registered and each claim has one expecting another verdict, and
the cheapest claim is checked for real. The whole quick tier, judged together as ``simverify check --paper onebit``
does, runs in test_paper_claims.py."""
import pytest

from simverify import registry, runner, sweep
from simverify.executors import SerialExecutor
from simverify.store import Store

PAPER = "onebit"
CHEAPEST = "onebit.algorithm1.as_printed"  # an erratum and its positive control: under 1 s, serial


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
