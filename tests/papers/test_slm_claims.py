"""Lin, Qiu, Hong & Ye (2022), the second order linear model (paper key ``slm``): the cheapest claim and its controls
checked for real. Every claim's plans at both tiers and its controls are checked in test_paper_contract.py; the
whole quick tier, judged together as ``simverify check --paper slm`` does, in test_paper_claims.py."""
import pytest

PAPER = "slm"
CHEAPEST = "slm.definition1.bernoulli_not_mip"  # under 1 s with its control, serial


@pytest.mark.slow
def test_cheapest_claim_and_its_controls_reach_their_expected_verdicts(check_with_controls):
    check_with_controls(CHEAPEST)
