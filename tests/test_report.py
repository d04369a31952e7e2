"""The report site and report.md, built from a real toy run: layout, nesting, escaping, provenance,
runs, calibration beside the verdict, and --compare."""
from __future__ import annotations

import re

import pytest

from simverify import registry, runner
from simverify.executors import SerialExecutor
from simverify.report import NoResults, markdown, write_report
from simverify.report.mathtext import formula_svg
from simverify.report.rows import changes, first_sentence, ordered
from simverify.store import IncompatibleStore, Store

TOY = ["toy.power", "toy.power~wrong_exponent"]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    store = Store(root / "s")
    claims = [registry.get(i) for i in TOY]
    runner.check(claims, "quick", store, SerialExecutor())
    runner.check(claims[:1], "quick", store, SerialExecutor(), overrides={"n": 4})
    runner.calibrate(claims, "quick", store, SerialExecutor(), seeds=2)
    return root, store


def test_site_has_an_index_a_page_per_claim_and_paper_figures_and_cell_data(run):
    root, store = run
    write_report(store, root / "site")
    site = root / "site"
    for rel in ("index.html", "report.md", "claims/toy.power.html", "claims/toy.power~wrong_exponent.html",
                "papers/toy.html", "figures/toy.power.png", "data/toy.power.nc", "data/toy.power.csv"):
        assert (site / rel).is_file(), rel
    assert (site / "data" / "toy.power.csv").read_text().splitlines()[0].startswith("x,replicate")
    for page in site.rglob("*.html"):  # offline: no address outside the site
        assert not re.search(r"https?://", page.read_text()), page
    for path in [*site.rglob("*.html"), site / "report.md", site / "results.json"]:  # no path of this machine
        assert str(store.root.resolve()) not in path.read_text(), path


def test_index_nests_the_control_under_its_claim_and_colours_verdicts(run):
    root, store = run
    write_report(store, root / "site")
    page = (root / "site" / "index.html").read_text()
    claim_at = page.index("data-group='toy.power' data-pos='0'")
    control_at = page.index("<tr class='control' data-group='toy.power' data-pos='1'")
    assert claim_at < control_at
    assert "<td class='REFUTED'>REFUTED</td>" in page and "<td class='CONFIRMED'>CONFIRMED</td>" in page


def test_claim_page_states_band_level_run_calibration_power_and_other_runs(run):
    root, store = run
    write_report(store, root / "site")
    page = (root / "site" / "claims" / "toy.power.html").read_text()
    assert "band judged against</th><td>[1.9, 2.1]" in page
    assert re.search(r"confidence level \(this claim\)</th><td>0\.995</td>", page)
    assert "0/2 root seeds missed" in page and "power against the control</th><td>1 " in page
    assert "Other stored runs of this claim" in page and "--set n=4" in page  # the override run is listed
    assert "<svg" in page  # the formula, rendered


def test_row_comes_from_the_run_without_overrides_and_says_which_run(run):
    root, store = run
    write_report(store, root / "site")
    md = (root / "site" / "report.md").read_text()
    row = next(line for line in md.splitlines() if line.startswith("| toy | Toy 1 | `toy.power`"))
    assert "--set" not in row and "seed 0" in row


def test_markdown_escapes_pipes_in_cells_and_marks_controls():
    rec = {"id": "p.a", "paper": "p", "item": "Lemma", "law": "Bound", "claimed": "|rhs| <= 1", "estimate": 1.0,
           "ci": [0.9, 1.1], "band": [0, 1], "verdict": "CONFIRMED", "expected": "CONFIRMED", "tier": "quick"}
    control = {**rec, "id": "p.a~c", "control_of": "p.a", "verdict": "REFUTED", "expected": "REFUTED"}
    md = markdown([rec, control])
    rows = [line for line in md.splitlines() if line.startswith("| p | Lemma")]
    assert len(rows) == 2
    assert all(len(re.split(r"(?<!\\)\|", r)) == 13 for r in rows)  # 11 cells, escaped pipes do not split
    assert "\\|rhs\\|" in rows[0] and "↳ control `p.a~c`" in rows[1]


def test_compare_flags_changed_verdicts_and_moved_intervals():
    old = {"id": "a", "tier": "quick", "verdict": "CONFIRMED", "estimate": 1.0, "ci": [0.9, 1.1]}
    same = {**old, "estimate": 1.05, "ci": [0.95, 1.15]}
    moved = {**old, "estimate": 1.5, "ci": [1.4, 1.6]}
    flipped = {**old, "verdict": "REFUTED"}
    assert changes([same], [old]) == []
    assert "interval moved" in changes([moved], [old])[0]["change"]
    assert changes([flipped], [old])[0]["change"] == "verdict CONFIRMED -> REFUTED"


def test_report_compare_lists_the_changes_on_the_index(run, tmp_path):
    root, store = run
    other = Store(tmp_path / "other")
    runner.check([registry.get("toy.power")], "quick", other, SerialExecutor(), root_seed=5)
    rep = write_report(other, tmp_path / "site", compare=store)
    assert isinstance(rep.changes, list)
    page = (tmp_path / "site" / "index.html").read_text()
    assert ("Changes against the compared store" in page) == bool(rep.changes)


def test_empty_or_incompatible_store_writes_nothing(tmp_path):
    with pytest.raises(NoResults):
        write_report(Store(tmp_path / "none"), tmp_path / "out")
    (tmp_path / "old" / "results").mkdir(parents=True)
    (tmp_path / "old" / "results" / "a.quick.json").write_text("{}")
    with pytest.raises(IncompatibleStore):
        write_report(Store(tmp_path / "old"), tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_first_sentence_does_not_end_at_an_abbreviation():
    text = "The proof treats V as Laplace(1) (c.f. Fig. 3). So the constant is wrong. More."
    assert first_sentence(text) == "The proof treats V as Laplace(1) (c.f. Fig. 3)."


def test_every_registered_formula_renders_as_svg():
    unparsed = [c.id for c in registry.all_claims(None, controls=True) if c.formula and formula_svg(c.formula) is None]
    assert unparsed == []


def test_ordered_puts_controls_after_their_claim_in_registry_order():
    recs = [{"id": i, "paper": "toy", "tier": "quick", "control_of": "toy.power" if "~" in i else None}
            for i in ["toy.power~wrong_exponent", "toy.slow", "toy.power"]]
    assert [r["id"] for r in ordered(recs)] == ["toy.power", "toy.power~wrong_exponent", "toy.slow"]
