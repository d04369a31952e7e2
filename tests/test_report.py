"""The report site and report.md, built from a real toy run: layout, nesting, escaping, provenance,
runs, calibration beside the verdict, and --compare."""
from __future__ import annotations

import json
import re
import shutil
import struct
from types import SimpleNamespace

import pytest

from simverify import registry, runner
from simverify.executors import SerialExecutor
from simverify.report import NoResults, markdown, write_report
from simverify.report.mathtext import formula_html, formula_svg
from simverify.report.rows import NOT_RECORDED, changes, first_sentence
from simverify.report.site import claim_page, index
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


def test_claim_page_states_verdict_band_level_calibration_power_controls_and_other_runs(run):
    root, store = run
    write_report(store, root / "site")
    page = (root / "site" / "claims" / "toy.power.html").read_text()
    assert "band judged against</th><td>[1.9, 2.1]" in page
    assert re.search(r"confidence level \(this claim\)</th><td>0\.995</td>", page)
    assert "0 of 2 root seeds missed the expected verdict" in page
    assert "power against the control</th><td>1 (Clopper-Pearson" in page
    assert "Other stored runs of this claim" in page
    assert re.search(r"<td class='override'>run [0-9a-f]{12}, seed 0, --set n=4</td>", page)  # highlighted
    assert "CONFIRMED: the interval lies inside the band (1.9" in page and "as expected." in page
    assert "Negative controls of this claim" in page and "href='toy.power~wrong_exponent.html'" in page
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


def test_markdown_lists_items_a_reported_paper_does_not_reproduce_and_skips_other_papers():
    from simverify import registry
    registry.register_not_reproduced("p", {"Table 9": "the data is private"})
    registry.register_not_reproduced("other", {"Table 1": "never shown"})
    try:
        rec = {"id": "p.a", "paper": "p", "item": "Lemma", "law": "Bound", "claimed": "x", "estimate": 1.0,
               "ci": [0.9, 1.1], "band": [0, 1], "verdict": "CONFIRMED", "expected": "CONFIRMED", "tier": "quick"}
        md = markdown([rec])
        assert "## Not reproduced" in md and "- **p**, Table 9: the data is private" in md
        assert "never shown" not in md
    finally:
        registry.register_not_reproduced("p", {})
        registry.register_not_reproduced("other", {})


def test_paper_page_lists_the_items_its_paper_does_not_reproduce_and_no_others():
    from simverify.report.site import paper_page
    registry.register_not_reproduced("p", {"Table 9": "the data is <private>"})
    registry.register_not_reproduced("other", {"Table 1": "never shown"})
    try:
        rec = {"id": "p.a", "paper": "p", "item": "Lemma", "law": "Bound", "claimed": "x", "estimate": 1.0,
               "statement": "s", "ci": [0.9, 1.1], "band": [0, 1], "verdict": "CONFIRMED", "expected": "CONFIRMED",
               "tier": "quick"}
        html_text = paper_page("p", [rec], {})
        assert "<h2>Not reproduced</h2>" in html_text and "<b>Table 9</b>: the data is &lt;private&gt;" in html_text
        assert "never shown" not in html_text
    finally:
        registry.register_not_reproduced("p", {})
        registry.register_not_reproduced("other", {})


def test_compare_flags_changed_verdicts_and_moved_intervals():
    old = {"id": "a", "tier": "quick", "verdict": "CONFIRMED", "estimate": 1.0, "ci": [0.9, 1.1]}
    same = {**old, "estimate": 1.05, "ci": [0.95, 1.15]}
    moved = {**old, "estimate": 1.5, "ci": [1.4, 1.6]}
    flipped = {**old, "verdict": "REFUTED"}
    assert changes([same], [old]) == []
    assert "interval moved" in changes([moved], [old])[0]["change"]
    assert changes([flipped], [old])[0]["change"] == "verdict CONFIRMED -> REFUTED"


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


def test_no_written_file_holds_a_web_address(run):
    root, store = run
    write_report(store, root / "site")
    files = [p for p in (root / "site").rglob("*") if p.is_file()]
    assert {p.suffix for p in files} >= {".html", ".md", ".json", ".png", ".nc", ".csv"}
    for path in files:  # offline: nothing refers to (or could load from) the network, binaries included
        data = path.read_bytes()
        assert b"http://" not in data and b"https://" not in data, path


def _png_chunks(data: bytes) -> list[bytes]:
    chunks, pos = [], 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunks.append(kind)
        pos += 12 + length
    return chunks


def test_figures_are_png_files_without_text_metadata(run):
    root, store = run
    write_report(store, root / "site")
    chunks = _png_chunks((root / "site" / "figures" / "toy.power.png").read_bytes())
    assert chunks[0] == b"IHDR" and chunks[-1] == b"IEND"
    assert not {b"tEXt", b"iTXt", b"zTXt", b"tIME"} & set(chunks)  # the same bytes on every machine and day


def _copy_store(store: Store, dest) -> Store:
    shutil.copytree(store.root, dest)
    return Store(dest)


def _edit_record(store: Store, claim_id: str, edit) -> None:
    for path in (store.root / "results" / claim_id).glob("*.json"):
        rec = json.loads(path.read_text())
        edit(rec)
        path.write_text(json.dumps(rec))


def test_unregistered_claim_gets_a_page_that_says_why_it_has_no_figure(run, tmp_path):
    root, store = run
    copy = _copy_store(store, tmp_path / "s")
    (copy.root / "results" / "toy.power").rename(copy.root / "results" / "toy.gone")
    _edit_record(copy, "toy.gone", lambda r: r.update(id="toy.gone"))
    write_report(copy, tmp_path / "site")
    page = (tmp_path / "site" / "claims" / "toy.gone.html").read_text()
    assert "No figure: the claim is not registered in this installation" in page
    assert (tmp_path / "site" / "data" / "toy.gone.nc").is_file()  # its data is still published
    assert not (tmp_path / "site" / "figures" / "toy.gone.png").exists()


def test_law_that_cannot_draw_leaves_a_page_that_says_so(run, tmp_path, monkeypatch):
    root, store = run
    monkeypatch.setattr(registry, "get", lambda claim_id: SimpleNamespace(law=object()))
    write_report(store, tmp_path / "site")
    page = (tmp_path / "site" / "claims" / "toy.power.html").read_text()
    assert "No figure: its law (object) cannot draw figures" in page


def test_record_without_run_or_provenance_shows_not_recorded(run):
    root, store = run
    rec = next(r for _, r in store.read_results()[0] if r["id"] == "toy.power")
    old = {k: v for k, v in rec.items() if k not in ("run", "run_key", "provenance", "confidence_level")}
    page = claim_page(old, None, "its Dataset is not in this store", {}, [old], None)
    assert "<th>git commit</th><td>not recorded</td>" in page
    assert "<th>per-claim level</th><td>not recorded</td>" in page
    assert f"run {NOT_RECORDED}, seed 0" in page
    assert "<th>--set overrides, --replicates</th><td>none (tier defaults)</td>" in index([old], {}, [], [])


def test_changes_against_an_older_store_are_listed_on_the_index_and_in_markdown(run, tmp_path):
    root, store = run
    old = _copy_store(store, tmp_path / "old")

    def older(rec):
        if not rec["run"]["overrides"]:
            rec.update(verdict="REFUTED", estimate=rec["estimate"] + 1, ci=[c + 1 for c in rec["ci"]])
    _edit_record(old, "toy.power", older)
    rep = write_report(store, tmp_path / "site", compare=old)
    assert [(c["id"], c["tier"]) for c in rep.changes] == [("toy.power", "quick")]
    assert "verdict REFUTED -> CONFIRMED" in rep.changes[0]["change"] and "interval moved" in rep.changes[0]["change"]
    page, md = (tmp_path / "site" / "index.html").read_text(), (tmp_path / "site" / "report.md").read_text()
    assert "Changes against the compared store" in page and "verdict REFUTED -&gt; CONFIRMED" in page
    assert "- `toy.power` (quick): verdict REFUTED -> CONFIRMED" in md


def test_unwritable_output_directory_is_a_one_line_value_error(run, tmp_path):
    root, store = run
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="report directory") as err:
        write_report(store, tmp_path / "file" / "site")
    assert "\n" not in str(err.value)


def test_formula_mathtext_cannot_parse_is_shown_as_source_code():
    assert formula_svg(r"\frac{a") is None
    shown = formula_html(r"\frac{a  (remark)")
    assert "<code>\\frac{a</code> <span class='remark'>(remark)</span>" in shown and "<svg" not in shown


def test_every_markdown_table_row_has_as_many_cells_as_its_head(run):
    root, store = run
    write_report(store, root / "site")
    tables: list[list[str]] = []
    previous = ""
    for line in (root / "site" / "report.md").read_text().splitlines():
        if line.startswith("|"):
            if not previous.startswith("|"):
                tables.append([])
            tables[-1].append(line)
        previous = line
    assert len(tables) == 3  # the summary per paper, the toy's printed table and the claims table
    for table in tables:
        widths = {len(re.split(r"(?<!\\)\|", row)) for row in table}
        assert len(widths) == 1, table


def test_printed_table_is_shown_beside_the_measured_replicate_means(run):
    root, store = run
    write_report(store, root / "site")
    rec = json.loads((root / "site" / "results.json").read_text())
    table = next(r for r in rec if r["id"] == "toy.power")["table"]
    assert table["columns"] == ["x = 1", "x = 2", "x = 4", "x = 8"] and table["rows"][0]["printed"][3] == 64.0
    measured = table["rows"][0]["measured"]
    assert len(measured) == 4 and all(abs(m / p - 1) < 0.2 for m, p in zip(measured, [1, 4, 16, 64]))
    for rel in ("claims/toy.power.html", "papers/toy.html"):
        page = (root / "site" / rel).read_text()
        assert "<table class='printed'>" in page and "<td>y: printed</td><td>1</td><td>4</td>" in page, rel
        assert "<tr class='measured'><td>y: measured</td>" in page, rel
    assert "<table class='printed'>" not in (root / "site" / "claims" / "toy.power~wrong_exponent.html").read_text()
    md = (root / "site" / "report.md").read_text()
    assert "| Toy table: y | x = 1 | x = 2 | x = 4 | x = 8 |" in md and "| y: printed | 1 | 4 | 16 | 64 |" in md


def test_printed_table_refuses_rows_of_the_wrong_length_and_leaves_missing_rows_nan():
    from simverify.claims import PrintedTable
    with pytest.raises(ValueError, match="rows \\['a'\\] do not have 2 values"):
        PrintedTable("t", ("c1", "c2"), {"a": [1.0]}, lambda ds: {})
    table = PrintedTable("t", ("c1", "c2"), {"a": [1.0, 2.0]}, lambda ds: {"a": [1.0, 2.0, 3.0]})
    with pytest.raises(ValueError, match="measured rows"):
        table.render(None)
    missing = PrintedTable("t", ("c1",), {"a": [1.0]}, lambda ds: {}).render(None)["rows"][0]["measured"]
    assert len(missing) == 1 and missing[0] != missing[0]  # a row the Dataset lacks is NaN
