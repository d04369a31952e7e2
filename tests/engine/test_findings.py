"""Outcomes (simverify.findings): what a verdict means for the paper, and how the report shows it."""
import pytest

from simverify.findings import (
    LOOSE,
    NOT_REPRODUCED,
    REPRODUCED,
    outcome,
)
from simverify.report.markdown import markdown
from simverify.report.rows import paper_counts, paper_summary_text
from simverify.report.site import index, paper_page
from simverify.stats import CONFIRMED, INCONCLUSIVE, REFUTED


@pytest.mark.parametrize("verdict, law, kind, control, expected", [
    (CONFIRMED, "PowerLaw", None, False, CONFIRMED),
    (CONFIRMED, "MatchesPrinted", None, False, REPRODUCED),
    (CONFIRMED, "Bound (unknown constant)", "loose", False, LOOSE),
    (REFUTED, "Bound", "erratum", False, REFUTED),
    (REFUTED, "Comparison", "not reproduced", False, NOT_REPRODUCED),
    (REFUTED, "MatchesPrinted", None, False, NOT_REPRODUCED),  # a printed number missed is never an erratum alone
    (REFUTED, "MatchesPrinted", "erratum", False, REFUTED),    # unless the claim carries a derivation
    (REFUTED, "Bound", None, False, NOT_REPRODUCED),           # a claim expected to hold that regressed: ours
    (REFUTED, "Bound", "loose", False, NOT_REPRODUCED),
    (INCONCLUSIVE, "MatchesPrinted", "not reproduced", False, INCONCLUSIVE),
    (REFUTED, "PowerLaw", None, True, REFUTED),                # a control reports its verdict as it is
    (CONFIRMED, "MatchesPrinted", None, True, CONFIRMED),
])
def test_outcome_separates_errata_non_reproductions_loose_bounds_and_reproduced_numbers(verdict, law, kind,
                                                                                       control, expected):
    assert outcome(verdict, law, kind, control) == expected


CITATION = {"text": "A. Author (2020). A Paper. Somewhere. arXiv:2001.00001."}


def _rec(i, outcome_, verdict, law="Bound", finding=None, control_of=None):
    return {"id": f"p.{i}", "paper": "p", "item": f"Lemma {i}", "statement": f"statement {i}", "formula": "x \\le 1",
            "law": law, "claimed": "x", "estimate": 1.0, "ci": [0.9, 1.1], "band": [0, 2], "verdict": verdict,
            "expected": verdict, "outcome": outcome_, "finding": finding, "control_of": control_of, "tier": "quick",
            "citation": CITATION}


RECORDS = [
    _rec("a", CONFIRMED, CONFIRMED),
    _rec("b", REFUTED, REFUTED, finding={"kind": "erratum", "text": "The constant is wrong. More.",
                                         "derivation": "closed form", "cause": ""}),
    _rec("c", NOT_REPRODUCED, REFUTED, law="MatchesPrinted",
         finding={"kind": "not reproduced", "text": "We measure 7.50 against 7.25.", "derivation": "",
                  "cause": "unknown"}),
    _rec("d", LOOSE, CONFIRMED, finding={"kind": "loose", "text": "Flat while the factor grows 51-fold.",
                                         "derivation": "", "cause": ""}),
    _rec("a~neg", REFUTED, REFUTED, control_of="p.a"),
]


def test_paper_counts_count_the_papers_claims_by_outcome_and_controls_apart():
    c = paper_counts(RECORDS)["p"]
    assert (c["claims"], c["controls"], c[CONFIRMED], c[REFUTED], c[NOT_REPRODUCED], c[LOOSE]) == (4, 1, 1, 1, 1, 1)


def test_paper_paragraph_says_what_holds_what_is_wrong_and_what_we_did_not_reproduce():
    assert paper_summary_text(RECORDS) == ("Holds: 1 claim confirmed, 1 bound holding but loose. Wrong in the paper "
                                           "(errata): 1. Not reproduced by us: 1 (cause stated on each).")


def test_index_lists_errata_apart_from_non_reproductions_with_citation_and_rendered_formula():
    page = index(RECORDS, {}, (), ())
    findings = page[page.index("Findings per paper"):page.index("<h2>Claims</h2>")]
    assert CITATION["text"] in findings
    errata = findings[findings.index("<h4>Errata"):findings.index("<h4>Loose")]
    not_repr = findings[findings.index("<h4>Not reproduced by us"):]
    assert "p.b" in errata and "p.c" not in errata and "The constant is wrong." in errata
    assert "p.c" in not_repr and "(cause: unknown)" in not_repr and "p.b" not in not_repr
    assert "<svg" in errata or "class='formula" in errata  # the printed formula rendered, not ASCII LaTeX


def test_paper_page_shows_outcomes_and_the_citation():
    page = paper_page("p", RECORDS, {})
    assert CITATION["text"] in page and ">NOT REPRODUCED<" in page and ">LOOSE<" in page


def test_report_md_separates_errata_from_non_reproductions():
    md = markdown(RECORDS)
    assert "## What the papers get wrong (errata)" in md and "## Not reproduced by us" in md
    errata = md[md.index("## What the papers get wrong"):md.index("## Not reproduced by us")]
    assert "`p.b`" in errata and "`p.c`" not in errata


def test_findings_and_citations_refuse_values_of_the_wrong_type_or_range():
    from simverify.claims import Citation
    from simverify.findings import Finding, erratum, loose
    for make in (lambda: loose(None), lambda: erratum(1, "d"), lambda: erratum("t", None),
                 lambda: Finding("loose", "t", cause="data"), lambda: Finding(None, "t"),
                 lambda: Citation("A", "T", "V", -1), lambda: Citation("A", "T", "V", 2020, arxiv=True)):
        with pytest.raises(ValueError):
            make()


def test_frequency_bound_refuses_outcomes_other_than_zero_and_one():
    import numpy as np
    import xarray as xr

    from simverify.laws import Bound
    ds = xr.Dataset({"ahead": (("replicate",), np.full(10, 0.3))})
    with pytest.raises(ValueError, match="needs outcomes 0 or 1"):
        Bound("ahead", 0.5, ">=", probability=True).evaluate(ds, 0.99)
