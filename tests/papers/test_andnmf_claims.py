"""Li & Liang (2017), provable alternating gradient descent for NMF with strong correlations (paper key ``andnmf``):
the cheapest claim and its controls checked for real. Every claim's plans at both tiers and its controls are checked
in test_paper_contract.py; the whole quick tier, judged together as ``simverify check --paper andnmf`` does, in
test_paper_claims.py."""
import pytest

PAPER = "andnmf"
CHEAPEST = "andnmf.section5_1.no_threshold_no_progress"  # about 1 s with its control, serial, warm JIT


@pytest.mark.slow
def test_cheapest_claim_and_its_controls_reach_their_expected_verdicts(check_with_controls):
    check_with_controls(CHEAPEST)
