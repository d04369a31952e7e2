"""Qiu, Luo, Ye & Lin (2017), nonconvex one-bit single-label multi-label learning (paper key ``onebit``): the cheapest
claim and its controls checked for real. Every claim's plans at both tiers and its controls are checked in
test_paper_contract.py; the whole quick tier, judged together as ``simverify check --paper onebit`` does, in
test_paper_claims.py."""
import pytest

PAPER = "onebit"
CHEAPEST = "onebit.algorithm1.as_printed"  # an erratum and its positive control: under 1 s, serial


@pytest.mark.slow
def test_cheapest_claim_and_its_controls_reach_their_expected_verdicts(check_with_controls):
    check_with_controls(CHEAPEST)
