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



def test_onebit_algorithm1_work_has_no_d2_factor_per_instance_and_sums_a_paired_m_list():
    """The plan's cost model: the full tier's timings showed no d2 factor per streamed instance (Algorithm 1 at
    d2 = 50 and 400: 1.5 and 3.4 s, not 8x), factorizations of the dilation at large d1, paired cells running every
    m of their list."""
    from theorems.onebit.costs import STREAMED, algorithm1_work
    one = algorithm1_work({"d1": 100, "d2": 50, "k": 3, "m": 1000, "T": 4})
    assert one == STREAMED * 1000 * 5 * 100 + 13 * 150.0 ** 3
    wide = algorithm1_work({"d1": 100, "d2": 400, "k": 3, "m": 1000, "T": 4})
    assert wide - one == 13 * (500.0 ** 3 - 150.0 ** 3)  # only the factorizations grow with d2
    paired = algorithm1_work({"d1": 100, "d2": 50, "k": 3, "m": [1000, 3000], "T": 4})
    assert paired == STREAMED * 4000 * 5 * 100 + 2 * 13 * 150.0 ** 3


def test_onebit_footprint_refuses_a_definition1_cell_whose_outer_products_take_days():
    """Definition 1's check sums a d1-square outer product per instance: the ceiling counts d1 max(d1, d2)."""
    from simverify import footprint as fp
    from theorems.onebit import footprint
    cell = footprint({"d1": 1000, "d2": 100, "k": 3, "m": 1_000_000_000})
    assert cell.work > fp.MAX_CELL_WORK
    with pytest.raises(ValueError, match="a day is about"):
        fp.check_cell("onebit.definition1", cell, memory=1e12)


def test_onebit_footprint_holds_the_dilations_eigendecomposition_and_one_per_paired_m():
    """A hostile probe planned d1 = 45000 (a 16 GB dilation, about 81 GB with eigh's workspace) with exit 0, and a
    paired list of 100 m values at the work of two."""
    from theorems.onebit import footprint
    big = footprint({"d1": 45000, "d2": 20, "k": 3, "m": [100, 200], "T": 1})
    assert big.memory > 5 * 8 * 45020.0 ** 2
    two = footprint({"d1": 300, "d2": 60, "k": 3, "m": [100, 200], "T": 1}).work
    hundred = footprint({"d1": 300, "d2": 60, "k": 3, "m": [1] * 98 + [100, 200], "T": 1}).work
    assert hundred - two > 98 * 7 * 360.0 ** 3
