"""Ibrahim & Fu (2021), crowdsourcing via co-occurrence imputation and SymNMF (paper key ``crowd``): the cheapest claim
and its controls checked for real and Tables 1-3's parameters refused at plan. Every claim's plans at both tiers and
its controls are checked in test_paper_contract.py; the whole quick tier, judged together as ``simverify check
--paper crowd`` does, in test_paper_claims.py."""
import pytest

from simverify import registry, sweep

PAPER = "crowd"
CHEAPEST = "crowd.section4.bluebird_dessymnmf_missing"  # one cell on shipped data: about 1 s with its control


@pytest.mark.slow
def test_cheapest_claim_and_its_controls_reach_their_expected_verdicts(check_with_controls):
    check_with_controls(CHEAPEST)


@pytest.mark.parametrize("claim_id,overrides,needle", [
    ("crowd.table1.robsymnmf_beats_mv", {"setting": ["p=0.9"]}, r"parameter setting\b.*p=0\.9.*miss=30%"),
    ("crowd.table1.robsymnmf_beats_mv", {"data": "iris"}, r"parameter data\b.*iris"),
    ("crowd.table3.dessymnmf_missing_30", {"aggregator": ["kos"]}, "kos is for binary labels"),
])
def test_table_parameters_outside_the_paper_are_refused_when_planned(claim_id, overrides, needle):
    """Tables 1-3's columns and data sets (theorems.crowd.uci_measures) are checked by the paper's validation."""
    with pytest.raises(ValueError, match=needle):
        sweep.plan(registry.get(claim_id), "quick", overrides=overrides)
