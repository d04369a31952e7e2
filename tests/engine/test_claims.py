"""Declarations: Paper, Sweep, Claim, Control (simverify.claims)."""
import pytest

from simverify import registry
from simverify.claims import Citation, Claim, Control, Grid, Sweep, Tier
from simverify.findings import erratum, loose, not_reproduced
from simverify.laws import Identity
from simverify.paper import Paper
from simverify.stats import CONFIRMED, REFUTED


def measure(seed, *, x: float, shift: float = 0.0) -> dict:
    return {"y": x + shift}


def other_measure(seed, *, x: float, shift: float = 0.0) -> dict:
    return {"y": -x}


def refuse_negative_x(p: dict) -> None:
    if p["x"] < 0:
        raise ValueError("x must be >= 0")


SWEEP = Sweep("demo.sweep", measure, {"quick": Tier(Grid({"x": [1.0, 2.0]}), 2, {"shift": 0.0}),
                                      "full": Tier(Grid({"x": [1.0, 2.0, 4.0]}), 4, {"shift": 0.0})})
LAW = Identity("y", "x")
NEGATIVE = Control("shifted", "y = x + 1", fixed={"shift": 1.0})
DEMO_CITATION = Citation("A. Author", "A demo paper", "Nowhere", 2020)
FIELDS = {"item": "Demo 1", "statement": "y = x", "formula": "y = x", "law": LAW, "sweep": SWEEP}


@pytest.fixture
def empty_registry(monkeypatch):
    monkeypatch.setattr(registry, "_CLAIMS", {})
    monkeypatch.setattr(registry, "_LOADED", True)


def test_paper_claim_prefixes_the_id_and_sets_paper_and_validate(empty_registry):
    paper = Paper("demo", "A demo paper", DEMO_CITATION, validate=refuse_negative_x)
    claim = paper.claim("identity", controls=(NEGATIVE,), **FIELDS)
    assert (claim.id, claim.paper, claim.validate) == ("demo.identity", "demo", refuse_negative_x)


def test_paper_claim_registers_the_claim_and_its_controls(empty_registry):
    claim = Paper("demo", "A demo paper", DEMO_CITATION).claim("identity", controls=(NEGATIVE,), **FIELDS)
    assert registry.get("demo.identity") is claim
    assert registry.get("demo.identity~shifted").control_of == "demo.identity"


def test_paper_claim_refuses_an_id_registered_twice(empty_registry):
    paper = Paper("demo", "A demo paper", DEMO_CITATION)
    paper.claim("identity", controls=(NEGATIVE,), **FIELDS)
    with pytest.raises(ValueError, match="registered twice"):
        paper.claim("identity", controls=(NEGATIVE,), **FIELDS)


def test_claim_tiers_and_measure_are_its_sweeps():
    claim = Claim("demo.c", "demo", controls=(NEGATIVE,), **FIELDS)
    assert claim.tiers is SWEEP.tiers and claim.measure is measure


def test_law_only_control_shares_the_sweep_and_uses_its_law():
    claim = Claim("demo.c", "demo", controls=(Control("tight", "atol 0", law=Identity("y", 0.0)),), **FIELDS)
    control = claim.with_control(claim.controls[0])
    assert control.sweep is SWEEP and control.law is claim.controls[0].law


def test_fixed_control_runs_a_derived_sweep_with_the_overrides_in_every_tier_leaving_the_claims_sweep():
    claim = Claim("demo.c", "demo", controls=(NEGATIVE,), **FIELDS)
    control = claim.with_control(NEGATIVE)
    assert control.sweep.name == "demo.sweep~shifted" and control.measure is measure
    assert all(t.fixed == {"shift": 1.0} for t in control.tiers.values())
    assert all(t.fixed == {"shift": 0.0} for t in claim.tiers.values())


def test_measure_control_runs_a_derived_sweep_with_the_other_measure_and_the_same_tiers():
    mutant = Control("negated", "y = -x", measure=other_measure)
    control = Claim("demo.c", "demo", controls=(mutant,), **FIELDS).with_control(mutant)
    assert (control.sweep.name, control.measure) == ("demo.sweep~negated", other_measure)
    assert control.tiers == SWEEP.tiers


def test_control_claim_carries_its_id_name_expected_verdict_and_no_erratum():
    claim = Claim("demo.c", "demo", expected=REFUTED, finding=erratum("y = x + 1 in fact", "by hand"),
                  controls=(Control("corrected", "y = x + 1", CONFIRMED, law=Identity("y", lambda ds: ds["x"] + 1)),),
                  **FIELDS)
    control = claim.with_control(claim.controls[0])
    assert (control.id, control.expected, control.finding, control.erratum, control.control_name) == \
        ("demo.c~corrected", CONFIRMED, None, None, "corrected")
    assert claim.erratum == "y = x + 1 in fact"


def test_with_measure_names_the_sweep_by_suffix():
    assert SWEEP.with_measure(other_measure, "negated") == Sweep("demo.sweep~negated", other_measure, SWEEP.tiers)


def test_claim_expected_refuted_without_a_finding_is_rejected():
    with pytest.raises(ValueError, match="needs a finding"):
        Claim("demo.c", "demo", expected=REFUTED, controls=(NEGATIVE,), **FIELDS)


def test_erratum_without_derivation_and_non_reproduction_without_known_cause_word_are_rejected():
    with pytest.raises(ValueError, match="needs its derivation"):
        erratum("wrong", "")
    with pytest.raises(ValueError, match="names its cause"):
        not_reproduced("7.50 against the printed 7.25", cause="bad luck")


def test_loose_bound_must_be_expected_confirmed():
    with pytest.raises(ValueError, match="loose bound holds"):
        Claim("demo.c", "demo", expected=REFUTED, finding=loose("flat while the factor grows 50x"),
              controls=(NEGATIVE,), **FIELDS)


def test_control_statement_is_its_description_not_the_claims_statement():
    claim = Claim("demo.c", "demo", controls=(NEGATIVE,), **FIELDS)
    assert claim.with_control(NEGATIVE).statement == "[control of demo.c] y = x + 1"


def test_citation_renders_authors_year_title_venue_and_arxiv_id():
    c = Citation("A. Author and B. Author", "A Title", "Proc. of Something", 2021, arxiv="2101.00001")
    assert str(c) == "A. Author and B. Author (2021). A Title. Proc. of Something. arXiv:2101.00001."
    with pytest.raises(ValueError, match="year"):
        Citation("A", "T", "V", True)


def test_claim_without_controls_is_rejected():
    with pytest.raises(ValueError, match="at least one control"):
        Claim("demo.c", "demo", **FIELDS)


def test_claim_whose_sweep_lacks_a_tier_is_rejected():
    quick_only = Sweep("demo.quick_only", measure, {"quick": SWEEP.tiers["quick"]})
    with pytest.raises(ValueError, match=r"tiers \['full'\] are missing"):
        Claim("demo.c", "demo", controls=(NEGATIVE,), **{**FIELDS, "sweep": quick_only})


def test_claim_with_unknown_expected_verdict_is_rejected():
    with pytest.raises(ValueError, match="expected must be one of"):
        Claim("demo.c", "demo", expected="MAYBE", controls=(NEGATIVE,), **FIELDS)


@pytest.mark.parametrize("bad", ["../../evil", "demo/x", "demo..x", ".demo", "demo x", "demo.x~", ""])
def test_a_claim_id_that_could_name_a_path_is_refused(bad):
    with pytest.raises(ValueError, match="the id names the claim's files"):
        Claim(id=bad, paper="demo", controls=(NEGATIVE,), **FIELDS)


def test_paper_imported_from_its_old_place_is_the_same_class_with_a_deprecation_warning():
    with pytest.warns(DeprecationWarning, match="moved to simverify.paper"):
        from simverify.claims import Paper as OldPaper
    assert OldPaper is Paper
