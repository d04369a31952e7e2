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


def test_onebit_work_counts_d1_per_streamed_instance_sums_a_paired_m_list_and_adds_the_dilation():
    """The plan's cost model: the full tier's timings showed no d2 factor per streamed instance (Algorithm 1 at
    d2 = 50 and 400: 1.5 and 3.4 s, not 8x) and a cubic start at large d1 (d1 = 2000: 53 s, 6.5 s at 1000)."""
    from theorems.onebit import footprint
    one = footprint({"d1": 100, "d2": 50, "k": 3, "m": 1000}).work
    assert one == 1000 * 2 * 100  # T absent: one pass of A'(y) and one of its check, no eigendecomposition
    assert footprint({"d1": 100, "d2": 400, "k": 3, "m": 1000}).work == one
    paired = footprint({"d1": 100, "d2": 50, "k": 3, "m": [1000, 3000], "T": 4}).work
    assert paired == 4000 * 5 * 100 + 150.0 ** 3
    assert footprint({"d1": 100, "d2": 50, "k": 3, "m": [1000, 3000], "T": 4}).memory == \
        footprint({"d1": 100, "d2": 50, "k": 3, "m": 3000, "T": 4}).memory  # memory: the largest m
