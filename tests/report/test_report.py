"""The report site and report.md, built from a real toy run: layout, nesting, escaping, provenance,
runs, calibration beside the verdict, and --compare."""
from __future__ import annotations

import json
import os
import re
import shutil
import struct
from types import SimpleNamespace

import pytest

from simverify import registry, runner
from simverify import report as report_module
from simverify.cli import main
from simverify.executors import SerialExecutor
from simverify.report import NoResults, markdown, write_report
from simverify.report.compare import classify, compare
from simverify.report.mathtext import formula_html, formula_svg
from simverify.report.rows import NOT_RECORDED, first_sentence
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


def test_site_has_an_index_a_page_per_claim_and_paper_figures_and_no_cell_data_unless_asked(run):
    root, store = run
    write_report(store, root / "site")
    site = root / "site"
    for rel in ("index.html", "report.md", "results.json", "calibration.json", "claims/toy.power.html",
                "claims/toy.power~wrong_exponent.html", "papers/toy.html", "figures/toy.power.png"):
        assert (site / rel).is_file(), rel
    assert not (site / "data").exists() and "Cell data" not in (site / "claims" / "toy.power.html").read_text()
    for path in [*site.rglob("*.html"), site / "report.md", site / "results.json"]:  # no path of this machine
        assert str(store.root.resolve()) not in path.read_text(), path


def test_with_data_writes_each_distinct_dataset_once_and_a_control_on_its_claims_cells_links_to_its_files(tmp_path):
    store = Store(tmp_path / "s")  # toy.slow~tight judges toy.slow's cells; toy.power~wrong_exponent has its own
    runner.check([registry.get(i) for i in ("toy.slow", "toy.slow~tight")], "quick", store, SerialExecutor(),
                 overrides={"sleep": 0.0})
    runner.check([registry.get(i) for i in TOY], "quick", store, SerialExecutor())
    write_report(store, tmp_path / "site", with_data=True)
    site = tmp_path / "site"
    assert len(list((site / "data").glob("*.nc"))) == 3 and len(list((site / "data").glob("*.csv"))) == 3
    page = (site / "claims" / "toy.slow.html").read_text()
    links = re.findall(r"href='\.\./(data/[0-9a-f]{16}\.(?:nc|csv))'", page)
    assert len(links) == 2 and all(f"href='../{link}'" in (site / "claims" / "toy.slow~tight.html").read_text()
                                   for link in links)
    power = re.search(r"href='\.\./(data/[0-9a-f]{16}\.csv)'", (site / "claims" / "toy.power.html").read_text())
    assert power.group(1) not in links and (site / power.group(1)).read_text().startswith("x,replicate")


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
    assert "CONFIRMED: the paper&#x27;s statement holds as measured (the interval lies inside the band: 1.9" in page
    assert "as expected." in page
    assert "Controls of this claim" in page and "href='toy.power~wrong_exponent.html'" in page
    assert "<svg" in page  # the formula, rendered


def test_claim_page_says_the_quick_tier_stands_in_for_the_papers_sizes_and_what_a_run_changed(run):
    root, store = run
    write_report(store, root / "site")
    page = (root / "site" / "claims" / "toy.power.html").read_text()
    assert ("<th>sizes</th><td>quick tier, standing in for the paper&#x27;s sizes: x [1, 2, 4, 8] (full: [1, 2, 4, "
            "8, 16]); 8 replicates (full: 16). The paper&#x27;s own sizes are judged at the full tier.</td>") in page
    from simverify.report.rows import tier_sizes_text
    shown = json.loads((root / "site" / "results.json").read_text())
    rec = next(r for r in shown if r["id"] == "toy.power")
    changed = {**rec, "replicates": 3, "run": {**rec["run"], "replicates": 3}, "overrides": {"n": 4}}
    assert tier_sizes_text(changed).endswith("3 replicates (--replicates) (full: 16); this run: --set n=4. The "
                                             "paper's own sizes are judged at the full tier.")


def test_a_record_kept_before_tier_sizes_shows_its_registered_claims_sizes(run, tmp_path):
    root, store = run
    copy = _copy_store(store, tmp_path / "s")
    _edit_record(copy, "toy.power", lambda r: r.pop("tier_sizes"))
    write_report(copy, tmp_path / "site")
    assert "standing in for the paper&#x27;s sizes: x [1, 2, 4, 8]" in (tmp_path / "site" / "claims" /
                                                                          "toy.power.html").read_text()


def test_tier_sizes_are_the_declared_values_that_differ_between_the_tiers_and_a_full_row_says_so():
    from simverify.claims import Grid, Sweep, Tier
    from simverify.report.rows import tier_sizes_text
    sweep = Sweep("s", lambda seed, **p: {}, {"quick": Tier(Grid({"x": [1, 2]}), 4, {"n": 10, "same": 1.5}),
                                               "full": Tier(Grid({"x": [1, 2]}), 9, {"n": 10 ** 6, "same": 1.5,
                                                                                    "t": list(range(30))})})
    sizes = sweep.tier_sizes()
    assert sizes == {"quick": {"n": 10, "replicates": 4}, "full": {"n": 10 ** 6, "t": list(range(30)), "replicates": 9}}
    assert tier_sizes_text({"tier": "full", "tier_sizes": sizes}) == (
        "full tier, the paper's sizes: n 1000000 (quick: 10), t [0, 1, ..., 29] (30 values) (quick: default); "
        "9 replicates (quick: 4).")
    same = Sweep("s", sweep.measure, {"quick": Tier(Grid(), 3), "full": Tier(Grid(), 3)}).tier_sizes()
    assert same == {"quick": {}, "full": {}} and tier_sizes_text({"tier": "quick", "tier_sizes": same}) == (
        "the paper's sizes at both tiers")
    assert tier_sizes_text({"tier": "quick"}) is None and tier_sizes_text({"tier": "x", "tier_sizes": same}) is None


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


@pytest.fixture
def not_checked(monkeypatch):
    """Papers p and other declare items no claim checks (p's reason holds markup); restored after the test."""
    monkeypatch.setattr(registry, "_NOT_CHECKED", dict(registry._NOT_CHECKED))
    registry.register_not_checked("p", {"Table 9": "the data is <private>"})
    registry.register_not_checked("other", {"Table 1": "never shown"})


def test_markdown_lists_items_a_reported_paper_does_not_reproduce_and_skips_other_papers(not_checked):
    rec = {"id": "p.a", "paper": "p", "item": "Lemma", "law": "Bound", "claimed": "x", "estimate": 1.0,
           "ci": [0.9, 1.1], "band": [0, 1], "verdict": "CONFIRMED", "expected": "CONFIRMED", "tier": "quick"}
    md = markdown([rec])
    assert "## Items not checked" in md and "- **p**, Table 9: the data is <private>" in md
    assert "never shown" not in md


def test_paper_page_lists_the_items_its_paper_does_not_reproduce_and_no_others(not_checked):
    from simverify.report.site import paper_page
    rec = {"id": "p.a", "paper": "p", "item": "Lemma", "law": "Bound", "claimed": "x", "estimate": 1.0,
           "statement": "s", "ci": [0.9, 1.1], "band": [0, 1], "verdict": "CONFIRMED", "expected": "CONFIRMED",
           "tier": "quick"}
    html_text = paper_page("p", [rec], {})
    assert "<h2>Items not checked</h2>" in html_text and "<b>Table 9</b>: the data is &lt;private&gt;" in html_text
    assert "never shown" not in html_text


def test_compare_flags_a_verdict_change_and_a_shift_beyond_both_intervals_and_counts_the_rest():
    old = {"id": "a", "tier": "quick", "verdict": "CONFIRMED", "estimate": 1.0, "ci": [0.9, 1.1]}
    noise = {**old, "estimate": 1.0 + 4e-16, "ci": [0.9 + 1e-16, 1.1]}
    within = {**old, "estimate": 1.12, "ci": [1.02, 1.22]}  # beyond the old half-width, within sqrt(2) of it
    moved = {**old, "estimate": 1.15, "ci": [1.05, 1.25]}  # 0.15 > hypot(0.1, 0.1)
    flipped = {**old, "verdict": "REFUTED"}
    assert [classify(r, old)[0] for r in (old, noise, within, moved, flipped)] == \
        ["identical", "noise", "within", "moved", "verdict"]
    assert "interval moved" in classify(moved, old)[1] and "verdict CONFIRMED -> REFUTED" in classify(flipped, old)[1]
    ratio = {**old, "scale": "log", "estimate": 10.0, "ci": [5.0, 20.0]}
    assert classify({**ratio, "estimate": 25.0, "ci": [12.5, 50.0]}, ratio)[0] == "within"  # in logs: 0.92 < 0.98
    rows = [{**r, "id": name} for r, name in zip((noise, within, moved, flipped), "abcd")]
    result = compare(rows + [{**old, "id": "new"}], [{**old, "id": n} for n in "abcde"], "the baseline")
    assert [c["id"] for c in result.changes] == ["c", "d"]
    assert result.counts == {"both": 4, "identical": 0, "noise": 1, "within": 1, "moved": 1, "verdict": 1,
                             "only_new": 1, "only_old": 1}
    assert "1 differ by floating-point noise only" in result.summary() and "Largest shift" in result.summary()


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


@pytest.mark.slow
def test_every_registered_formula_renders_as_svg():
    unparsed = [c.id for c in registry.all_claims(None, controls=True) if c.formula and formula_svg(c.formula) is None]
    assert unparsed == []


def test_no_written_file_holds_a_web_address(run, tmp_path):
    root, store = run
    write_report(store, tmp_path / "site", with_data=True)
    files = [p for p in (tmp_path / "site").rglob("*") if p.is_file()]
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
    write_report(copy, tmp_path / "site", with_data=True)
    page = (tmp_path / "site" / "claims" / "toy.gone.html").read_text()
    assert "../data/" in page  # its data is still published
    assert "No figure: the claim is not registered in this installation" in page
    assert not (tmp_path / "site" / "figures" / "toy.gone.png").exists()


def test_law_that_cannot_draw_leaves_a_page_that_says_so(run, tmp_path, monkeypatch):
    root, store = run
    monkeypatch.setattr(registry, "get", lambda claim_id: SimpleNamespace(law=object()))
    write_report(store, tmp_path / "site")
    page = (tmp_path / "site" / "claims" / "toy.power.html").read_text()
    assert "No figure: its law (object) cannot draw figures" in page


def test_a_law_changed_after_the_verdict_draws_no_figure_and_the_page_says_why(run, tmp_path, monkeypatch):
    from dataclasses import replace
    root, store = run
    judged = registry.get("toy.power")
    changed = replace(judged, law=replace(judged.law, lower=2.9, upper=3.1))  # the law that would draw now
    monkeypatch.setattr(registry, "get", lambda claim_id: changed if claim_id == "toy.power" else judged)
    write_report(store, tmp_path / "site")
    page = (tmp_path / "site" / "claims" / "toy.power.html").read_text()
    assert "No figure: the claim&#x27;s law was changed after this verdict was reached" in page
    assert not (tmp_path / "site" / "figures" / "toy.power.png").exists()


def test_a_version_1_record_without_law_digest_or_order_is_still_drawn_and_listed(run, tmp_path):
    root, store = run
    copy = _copy_store(store, tmp_path / "s")
    strip = ("record_version", "law_digest", "order")
    _edit_record(copy, "toy.power", lambda r: [r.pop(k) for k in strip])
    write_report(copy, tmp_path / "site")
    assert (tmp_path / "site" / "figures" / "toy.power.png").exists()
    assert "claims/toy.power.html" in (tmp_path / "site" / "index.html").read_text()
    assert [r["id"] for r in json.loads((tmp_path / "site" / "results.json").read_text())] == TOY  # in order


def test_a_figure_left_by_an_earlier_report_is_removed_when_the_claim_is_now_shown_without_one(run, tmp_path):
    root, store = run
    write_report(store, tmp_path / "site")
    assert (tmp_path / "site" / "figures" / "toy.power.png").exists()
    copy = _copy_store(store, tmp_path / "s")
    _edit_record(copy, "toy.power", lambda r: r.update(law_digest="0" * 16))  # judged by another law
    report = write_report(copy, tmp_path / "site")
    assert not (tmp_path / "site" / "figures" / "toy.power.png").exists()
    assert report.removed == [tmp_path / "site" / "figures" / "toy.power.png"]
    assert (tmp_path / "site" / "figures" / "toy.power~wrong_exponent.png").exists()


def test_a_store_of_only_newer_records_says_why_it_has_no_readable_results(run, tmp_path):
    root, store = run
    copy = _copy_store(store, tmp_path / "s")
    for claim_id in TOY:
        _edit_record(copy, claim_id, lambda r: r.update(record_version=99))
    with pytest.raises(NoResults, match=r"cannot be used, the first .*: a record of version 99; this simverify reads"):
        write_report(copy, tmp_path / "site")
    assert not (tmp_path / "site").exists()


def test_a_results_json_of_only_newer_records_is_refused_as_a_baseline_naming_why(run, tmp_path):
    root, store = run
    records = [dict(r, record_version=99) for _, r in store.read_results()[0]]
    (tmp_path / "results.json").write_text(json.dumps(records))
    with pytest.raises(ValueError, match="holds no readable verdict record .the first: a record of version 99"):
        report_module.load_baseline(tmp_path / "results.json")


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


def test_a_dataset_that_is_a_fifo_is_named_unreadable_not_opened(tmp_path):
    """Opening a FIFO for reading blocks until a writer comes: the report would hang."""
    import os
    store = Store(tmp_path / "s")
    runner.check([registry.get(TOY[0])], "quick", store, SerialExecutor())
    dataset = sorted((store.root / "datasets").rglob("*.nc"))[0]
    dataset.unlink()
    os.mkfifo(dataset)
    report = write_report(store, tmp_path / "site")
    assert [(path, why) for path, why in report.unreadable if path == dataset] == [(dataset, "is not a regular file")]


def test_formula_mathtext_cannot_parse_is_shown_as_source_code():
    assert formula_svg(r"\frac{a") is None
    shown = formula_html(r"\frac{a  (remark)")
    assert "<code>\\frac{a</code> <span class='remark'>(remark)</span>" in shown and "<svg" not in shown


def _svg_box_and_points(svg: str):
    """(width, height, path points (n, 2)) of a formula's SVG, its viewBox checked equal to its size."""
    import re

    import numpy as np
    width, height = (float(v) for v in re.search(r"width='([\d.]+)pt' height='([\d.]+)pt'", svg).groups())
    assert f"viewBox='0 0 {width:.2f} {height:.2f}'" in svg
    points = np.array([float(v) for v in re.findall(r"-?\d+\.\d+", svg.split(" d='")[1])]).reshape(-1, 2)
    return width, height, points


def test_formula_svg_is_one_path_inside_a_box_of_the_inks_extents_or_more_with_no_ids_to_collide():
    """The glyphs were <use> references to <defs> ids; inlined in a page they drew garbled in Chromium."""
    from matplotlib.textpath import TextPath

    from simverify.report import mathtext
    formula = r"\frac{1}{m}\|A(W)\|_2^2 \le (1 + \delta_k) \sqrt{d_2}  (remark)"
    svg = formula_svg(formula)
    assert svg.count("<path") == 1 and " id=" not in svg and "<use" not in svg and "<defs" not in svg
    width, height, points = _svg_box_and_points(svg)
    assert points.min() >= 0 and (points.max(axis=0) <= [width, height]).all()
    pad = 2 * mathtext.PAD_POINTS
    ink = TextPath((0, 0), "$" + mathtext._upright(mathtext.split_formula(formula)[0]) + "$", size=13).get_extents()
    assert ink.width + pad <= width + 0.01 and ink.height + pad <= height + 0.01
    assert width - pad - ink.width < 1.0  # the layout's advance, or the control points' box: a hair more


def test_formulas_share_the_line_box_of_a_text_so_a_short_one_keeps_its_baseline_placement():
    """Under CSS vertical-align: middle a box of the ink alone would move each formula's baseline."""
    from simverify.report import mathtext
    _, line_height, _ = mathtext._line_metrics()
    heights = [_svg_box_and_points(formula_svg(f))[1] for f in ("x", "a < b", "u", "-")]
    assert all(h == pytest.approx(line_height + 2 * mathtext.PAD_POINTS, abs=0.01) for h in heights)


def test_formula_without_ink_is_an_empty_box_and_its_label_is_escaped():
    empty = formula_svg(r"\quad")
    assert "d=''" in empty and _svg_box_and_points(empty)[0] > 2 * 2.16
    svg = formula_svg("a' < b & c")
    assert "aria-label='a&#x27; &lt; b &amp; c'" in svg


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


# -- the committed reference, --compare against it, calibration shipped, provenance ------------------------

TIMED = {"toy.power": {"0123456789abcdef": 0.5, "fedcba9876543210": {"seconds": 2.0, "work": 8.0, "basis": "b:1"}}}


@pytest.fixture
def toy_registry(monkeypatch):
    """The reference's "every registered check" is the toy claim and its control."""
    claims = [registry.get(i) for i in TOY]
    monkeypatch.setattr(registry, "all_claims", lambda paper=None, controls=True: claims)


def test_reference_is_written_without_cell_data_small_with_its_calibration_and_stale_files_removed(
        run, tmp_path, monkeypatch, toy_registry):
    root, store = run
    ref = tmp_path / "checkout" / "reports" / "quick"
    monkeypatch.setattr(report_module, "reference_dir", lambda tier="quick": ref)
    (ref / "data").mkdir(parents=True)
    (ref / "data" / "toy.power.nc").write_bytes(b"x" * 1000)  # written by an older report
    (ref / "claims").mkdir()
    (ref / "claims" / "toy.gone.html").write_text("old")
    (ref / "notes.txt").write_text("kept")
    (ref / "figures").mkdir()
    (ref / "figures" / "dangling.png").symlink_to(tmp_path / "nowhere")  # links and FIFOs are stale entries too
    os.mkfifo(ref / "figures" / "old.png")
    (ref / ".tmp-probe-abc").write_bytes(b"")  # a writability probe's file, its run killed
    (ref / "timings.json").write_text('{"toy.earlier_leg": {"0000000000000000": 3.0}}')
    reads = []
    real_read = Store.read_results
    monkeypatch.setattr(Store, "read_results", lambda self: reads.append(1) or real_read(self))
    (store.root / "timings.json").write_text(json.dumps(TIMED))  # as `check` keeps them
    try:
        rep = write_report(store, reference=True)
    finally:
        (store.root / "timings.json").unlink()
    assert len(reads) == 1  # the reference's rows are chosen from the one read build makes
    assert not (ref / "data").exists() and not (ref / "claims" / "toy.gone.html").exists()
    assert not any(p.is_symlink() or p.is_fifo() for p in (ref / "figures").iterdir())
    assert (ref / "notes.txt").is_file() and sorted(p.name for p in rep.removed) == [
        ".tmp-probe-abc", "dangling.png", "old.png", "toy.gone.html", "toy.power.nc"]
    assert (ref / "index.html").is_file() and (ref / "calibration.json").is_file()
    shown = json.loads((ref / "results.json").read_text())
    assert [(r["id"], r["run"]["overrides"]) for r in shown] == [(i, {}) for i in TOY]  # the default run
    page = (ref / "claims" / "toy.power.html").read_text()
    other = page[page.index("Other stored runs of this claim"):page.index("Verdict record (JSON)")]
    assert other.count("<tr><td>quick</td>") == 1 and "--set n=4" in other  # the --set run, not the row shown
    size = sum(p.stat().st_size for p in ref.rglob("*") if p.is_file())
    assert size < 200_000 * len(TOY), size  # pages, figures, results: no cell data
    assert json.loads((ref / "timings.json").read_text()) == {  # what its cells cost, for a plan elsewhere, added
        **TIMED, "toy.earlier_leg": {"0000000000000000": 3.0}}  # to the timings an earlier leg wrote there


def test_reference_refuses_a_store_without_every_registered_check_at_the_suites_level(
        run, tmp_path, monkeypatch, toy_registry):
    root, store = run
    monkeypatch.setattr(report_module, "reference_dir", lambda tier="quick": tmp_path / "ref")
    partial = Store(tmp_path / "partial")
    runner.check([registry.get(TOY[0])], "quick", partial, SerialExecutor())
    with pytest.raises(ValueError, match=r"1 checks not run \(toy.power~wrong_exponent\).*1 not from a default "
                                         r"run judged at the suite.s level.*\(toy.power\)"):
        write_report(partial, reference=True)
    with pytest.raises(ValueError, match="give no --out or --with-data"):
        write_report(store, tmp_path / "elsewhere", reference=True)
    assert not (tmp_path / "ref").exists()


def test_full_reference_shows_whole_families_at_the_suites_level_from_legs_and_lists_the_rest(
        tmp_path, monkeypatch):
    claims = [registry.get(i) for i in TOY + ["toy.borderline", "toy.borderline~wrong_exponent"]]
    monkeypatch.setattr(registry, "all_claims", lambda paper=None, controls=True: claims)
    ref = tmp_path / "checkout" / "reports" / "full"
    monkeypatch.setattr(report_module, "reference_dir", lambda tier="quick": ref if tier == "full" else None)
    store = Store(tmp_path / "s")  # a leg of 2 of the 4 checks, alpha scaled to them (to 3 digits): the suite's level
    runner.check(claims[:2], "full", store, SerialExecutor(), alpha=0.005)
    runner.check(claims[2:3], "full", store, SerialExecutor(), alpha=0.0025)  # a family without its control
    runner.check(claims[:1], "full", store, SerialExecutor())  # later, at its own laxer level: not shown, no refusal
    ref.mkdir(parents=True)
    (ref / ".tmp-x1y2.html").write_text("an interrupted write's temporary")
    rep = write_report(store, reference=True, tier="full")
    assert rep.not_run == ["toy.borderline"] and not (ref / ".tmp-x1y2.html").exists()
    shown = json.loads((ref / "results.json").read_text())
    assert [r["id"] for r in shown] == TOY and {r["confidence_level"] for r in shown} == {1 - 0.01 / 4}
    md = (ref / "report.md").read_text()
    assert "Tier full: 2 of 4 registered checks" in md and "| toy | 2 | 4 | " in md
    assert "Not run at this tier at the suite's level (1 claim, with their controls): `toy.borderline`." in md
    runs = [line for line in md.splitlines() if line.startswith("| 20")]  # the runs table: one leg shown
    assert len(runs) == 1 and "| 2 | toy | " in runs[0] and runs[0].endswith(" s |"), runs
    assert "<h2>This reference</h2>" in (ref / "index.html").read_text() and rep.paths[0] == ref / "index.html"
    lax = Store(tmp_path / "lax")  # the same leg at its own level (alpha over 2 checks, not 4)
    runner.check(claims[:2], "full", lax, SerialExecutor())
    with pytest.raises(ValueError, match=r"2 not from a default run judged at the suite.s level.*toy.power.*"
                                         r"--alpha 0.01\*N/4"):
        write_report(lax, reference=True, tier="full")
    with pytest.raises(ValueError, match="4 checks not run"):
        write_report(Store(tmp_path / "empty"), reference=True, tier="full")


def test_a_reference_refuses_a_linked_site_directory_and_a_record_whose_paper_is_a_path(run, tmp_path, monkeypatch,
                                                                                        toy_registry):
    root, store = run
    ref = tmp_path / "checkout" / "reports" / "quick"
    monkeypatch.setattr(report_module, "reference_dir", lambda tier="quick": ref)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "precious.txt").write_text("kept")
    ref.mkdir(parents=True)
    (ref / "papers").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ValueError, match="papers is a symbolic link"):
        write_report(store, reference=True)
    assert (tmp_path / "elsewhere" / "precious.txt").read_text() == "kept" and not (ref / "index.html").exists()
    linked_ref = tmp_path / "checkout" / "reports" / "full"
    linked_ref.symlink_to(tmp_path / "elsewhere")  # the reference folder itself
    monkeypatch.setattr(report_module, "reference_dir", lambda tier="quick": linked_ref)
    with pytest.raises(ValueError, match="reports/full is a symbolic link"):
        write_report(store, reference=True)
    assert sorted(p.name for p in (tmp_path / "elsewhere").iterdir()) == ["precious.txt"]
    monkeypatch.setattr(report_module, "reference_dir", lambda tier="quick": ref)
    with pytest.raises(ValueError, match="the tier quick or full, not 'medium'"):
        write_report(store, reference=True, tier="medium")
    copy = _copy_store(store, tmp_path / "s")
    _edit_record(copy, "toy.power", lambda r: r.update(paper="../../escape"))
    rep = write_report(copy, tmp_path / "site")
    assert not (tmp_path / "escape.html").exists() and not list(tmp_path.glob("**/escape.html"))
    assert any("field 'paper'" in why for _, why in rep.unreadable)


def _refuse(monkeypatch, calls: str, path, error: OSError | None = None):
    """``calls`` ('create' a temporary file in ``path``, or 'unlink' ``path``) fail as the file system would
    for a folder or a file made unwritable (runs as root and on any file system, unlike chmod or chattr)."""
    import pathlib
    import tempfile
    error = error or PermissionError(13, "Permission denied")
    if calls == "create":
        real = tempfile.mkstemp

        def create(*args, dir=None, **kw):
            if dir is not None and pathlib.Path(dir) == path:
                raise error
            return real(*args, dir=dir, **kw)
        monkeypatch.setattr(tempfile, "mkstemp", create)
    else:
        real_unlink = pathlib.Path.unlink

        def unlink(self, *args, **kw):
            if self == path:
                raise error
            return real_unlink(self, *args, **kw)
        monkeypatch.setattr(pathlib.Path, "unlink", unlink)


def test_a_reference_refuses_before_writing_when_a_stale_files_folder_is_unwritable_and_says_which_stayed(
        run, tmp_path, monkeypatch, toy_registry, capsys):
    root, store = run
    ref = tmp_path / "checkout" / "reports" / "quick"
    monkeypatch.setattr(report_module, "reference_dir", lambda tier="quick": ref)
    (ref / "claims" / "old" / "deeper").mkdir(parents=True)
    (ref / "claims" / "old" / "deeper" / "gone.html").write_text("old")
    with monkeypatch.context() as m:
        _refuse(m, "create", ref / "claims" / "old" / "deeper")
        with pytest.raises(ValueError, match=r"folder of stale files \S*claims/old/deeper is not writable"):
            write_report(store, reference=True)
    assert not (ref / "index.html").exists() and (ref / "claims" / "old" / "deeper" / "gone.html").is_file()
    (ref / "claims" / "stuck.html").write_text("old")
    with monkeypatch.context() as m:
        _refuse(m, "unlink", ref / "claims" / "stuck.html", PermissionError(1, "Operation not permitted"))
        rep = write_report(store, reference=True)
        assert (ref / "index.html").is_file() and (ref / "claims" / "stuck.html").is_file()
        assert rep.not_removed == [(ref / "claims" / "stuck.html", "Operation not permitted")]
        assert (ref / "claims" / "old" / "deeper" / "gone.html") in rep.removed
        assert not (ref / "claims" / "old").exists()  # emptied folders go too, the deepest first
        assert main(["report", "--reference", "--store", str(store.root)]) == 1  # written, but not clean
        assert "could not remove the stale" in capsys.readouterr().err


def test_a_file_that_cannot_be_replaced_ends_the_write_in_one_line_with_exit_1(run, tmp_path, monkeypatch, capsys):
    """An existing page made immutable is not seen when the write is planned; the write then stops at it with one
    line that says the report is incomplete, not a traceback."""
    import simverify.store as store_module
    root, store = run
    site = tmp_path / "site"
    assert main(["report", "--store", str(store.root), "--out", str(site)]) == 0
    real = os.replace

    def replace(src, dst):
        if str(dst).endswith("report.md"):
            raise PermissionError(1, "Operation not permitted")
        return real(src, dst)
    monkeypatch.setattr(store_module.os, "replace", replace)
    assert main(["report", "--store", str(store.root), "--out", str(site)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "report.md could not be written (Operation not permitted)" in err
    assert "incomplete" in err and not list(site.glob(".tmp-*"))


def test_a_second_reference_write_at_once_is_refused_before_any_work(run, tmp_path, monkeypatch, toy_registry):
    import fcntl
    root, store = run
    ref = tmp_path / "checkout" / "reports" / "quick"
    monkeypatch.setattr(report_module, "reference_dir", lambda tier="quick": ref)
    ref.mkdir(parents=True)
    fd = os.open(ref, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as the first writer holds it
        with pytest.raises(ValueError, match="another reference is being written to"):
            write_report(store, reference=True)
        assert list(ref.iterdir()) == []
    finally:
        os.close(fd)
    assert write_report(store, reference=True).paths[0].is_file()  # free again


def test_sizes_line_shows_lists_nested_past_two_levels_as_an_ellipsis():
    from simverify.report.rows import tier_sizes_text
    deep = [[[[1]]]]
    line = tier_sizes_text({"tier": "quick", "tier_sizes": {"quick": {"a": deep}, "full": {"a": 1}}})
    assert line.startswith("quick tier, standing in for the paper's sizes: a [[[...]]] (full: 1)")


def test_full_reference_refuses_records_with_no_whole_claim_family(tmp_path):
    from simverify.report.reference import reference_rows
    claims = [registry.get(i) for i in TOY]
    row = {"id": "toy.power", "paper": "toy", "tier": "full", "confidence_level": 1 - 0.01 / 2,
           "finished": "2026-01-01T00:00:00+00:00", "run": {"seed": 0, "overrides": {}, "replicates": None}}
    with pytest.raises(ValueError, match=r"1 checks not run \(toy.power~wrong_exponent\)"):
        reference_rows(tmp_path, "full", claims, [row], 0.01)
    shown, _, cov = reference_rows(tmp_path, "full", claims, [row, {**row, "id": "toy.power~wrong_exponent"}], 0.01)
    assert [r["id"] for r in shown] == TOY and cov.not_run == [] and cov.runs[0]["wall_s"] != cov.runs[0]["wall_s"]


@pytest.mark.slow
def test_compare_against_a_reports_results_json_flags_the_moved_estimate_and_counts_floating_noise(run, tmp_path):
    root, store = run
    write_report(store, tmp_path / "baseline")
    shipped = json.loads((tmp_path / "baseline" / "results.json").read_text())
    for r in shipped:
        if r["id"] == "toy.power":  # moved beyond both intervals
            r["estimate"] += 3 * (r["ci"][1] - r["ci"][0])
            r["ci"] = [c + 3 * (r["ci"][1] - r["ci"][0]) for c in r["ci"]]
        else:  # the last bits differ
            r["estimate"] *= 1 + 2e-15
    (tmp_path / "baseline" / "results.json").write_text(json.dumps(shipped))
    (tmp_path / "baseline" / "calibration.json").unlink()
    rep = write_report(store, tmp_path / "site", compare=tmp_path / "baseline")
    assert [c["id"] for c in rep.changes] == ["toy.power"] and "interval moved" in rep.changes[0]["change"]
    assert rep.comparison.counts["noise"] == 1 and rep.comparison.counts["moved"] == 1
    said = "1 differ by floating-point noise only"
    for name in ("index.html", "report.md"):
        assert said in (tmp_path / "site" / name).read_text(), name
    same = write_report(store, tmp_path / "site2", compare=tmp_path / "baseline" / "results.json")  # the file itself
    assert [c["id"] for c in same.changes] == ["toy.power"]


def test_report_command_compares_with_a_report_directory_and_refuses_a_directory_that_is_neither(
        run, tmp_path, capsys):
    root, store = run
    write_report(store, tmp_path / "baseline")
    assert main(["report", "--store", str(store.root), "--out", str(tmp_path / "site"),
                 "--compare", str(tmp_path / "baseline")]) == 0
    assert "Compared with report" in capsys.readouterr().out
    (tmp_path / "empty").mkdir()
    assert main(["report", "--store", str(store.root), "--out", str(tmp_path / "site"),
                 "--compare", str(tmp_path / "empty")]) == 2
    assert "holds no results (neither a store's results/ nor a report's results.json)" in capsys.readouterr().err


def test_calibrate_out_writes_dated_rows_with_commit_and_the_report_shows_them_beside_each_verdict(
        run, tmp_path, capsys):
    root, store = run
    cal = tmp_path / "calibration.json"
    assert main(["calibrate", *TOY, "--seeds", "2", "--scheduler", "serial", "--store", str(tmp_path / "s"),
                 "--out", str(cal), "--json"]) == 0
    rows = json.loads(cal.read_text())
    assert [r["id"] for r in rows] == TOY
    for r in rows:
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT.*", r["date"]) and len(r["git_commit"]) >= 7
        assert (r["tier"], r["seeds"], r["alpha"], r["runs"]) == ("quick", 2, runner.DEFAULT_ALPHA, 2)
        assert r["provenance"]["simverify_version"]
    capsys.readouterr()
    bare = Store(tmp_path / "bare")  # a store that was never calibrated, and a claim without a row
    runner.check([registry.get(i) for i in TOY], "quick", bare, SerialExecutor())
    runner.check([registry.get("toy.slow~tight")], "quick", bare, SerialExecutor(), overrides={"sleep": 0.0})
    assert main(["report", "--store", str(bare.root), "--out", str(tmp_path / "site"),
                 "--calibration", str(cal)]) == 0
    page = (tmp_path / "site" / "index.html").read_text()
    day = rows[0]["date"][:10]
    assert f"<td>0/2 missed; control power 1.00 ({day})</td>" in page
    assert f"<td>0/2 missed ({day})</td>" in page and "<td>not calibrated</td>" in page
    claim = (tmp_path / "site" / "claims" / "toy.power.html").read_text()
    commit = rows[0]["git_commit"][:12]
    assert f"calibration: measured</th><td>{day}, commit {commit}, quick tier, 2 root seeds" in claim
    assert [r["id"] for r in json.loads((tmp_path / "site" / "calibration.json").read_text())] == TOY


def test_provenance_block_shows_the_blas_library_its_version_core_type_and_threads(run):
    root, store = run
    rec = next(r for _, r in store.read_results()[0] if r["id"] == "toy.power")
    blas = rec["provenance"]["blas_libraries"]
    assert blas and all({"internal_api", "version", "architecture", "num_threads"} <= b.keys() for b in blas)
    page = index([rec], {}, [], [])
    first = blas[0]
    version = first["version"] or "?"  # OpenMP runtimes report no version (listed first when loaded first)
    assert re.search(rf"<th>BLAS[^<]*</th><td>{re.escape(str(first['internal_api']))} "
                     rf"{re.escape(str(version))} \(", page), page
    for label in ("CPU flags (numerics)", "Numba threads", "llvmlite", "OPENBLAS_CORETYPE"):
        assert f"<th>{label}</th>" in page, label


@pytest.mark.slow
def test_figures_drawn_by_worker_processes_are_the_bytes_drawn_here_and_progress_counts_them(run, monkeypatch):
    """Parallel drawing (spawned processes) from PARALLEL_FROM figures on: the same PNG bytes, in the same order,
    as drawing in this process; progress goes 0..total."""
    from simverify.report import figures
    _, store = run
    rows = report_module.readable_rows(store, "quick")[0]
    jobs = [(rec, figures.dataset_path(rec, store)) for rec in rows] * 3  # six figures
    serial = figures.draw_figures(jobs, workers=1)
    monkeypatch.setattr(figures, "PARALLEL_FROM", 2)
    seen = []
    parallel = figures.draw_figures(jobs, workers=2, progress=lambda done, total: seen.append((done, total)))
    assert [p[0] for p in parallel] == [s[0] for s in serial] and all(p[0] for p in serial)
    assert seen == [(i, len(jobs)) for i in range(len(jobs) + 1)]


def test_write_report_draws_in_this_process_unless_asked_for_workers(run, monkeypatch, tmp_path):
    """A script calling write_report without the __main__ guard must not spawn processes (they would re-run it):
    the API draws here by default, whatever the number of figures."""
    from simverify import executors
    from simverify.report import figures
    monkeypatch.setattr(figures, "PARALLEL_FROM", 1)

    def refuse(*args, **kwargs):
        raise AssertionError("a process pool was started")
    monkeypatch.setattr(executors, "ProcessExecutor", refuse)
    _, store = run
    write_report(store, tmp_path / "site")
    assert (tmp_path / "site" / "figures" / "toy.power.png").is_file()


def test_the_reference_folder_is_the_running_packages_own_checkout(tmp_path, monkeypatch):
    """A checkout holding another copy of simverify (a non-editable install in an in-repo virtual environment
    runs that copy) must not have its reference written by this code."""
    from pathlib import Path

    from simverify import provenance
    running_top = Path(report_module.__file__).resolve().parent.parent.parent
    monkeypatch.setattr(provenance, "_git", lambda *args: str(running_top))
    assert report_module.reference_dir("full") == running_top / "reports" / "full"
    (tmp_path / "simverify").mkdir()
    (tmp_path / "simverify" / "__init__.py").write_text("")  # the checkout's own package, not the one running
    monkeypatch.setattr(provenance, "_git", lambda *args: str(tmp_path))
    with pytest.raises(ValueError, match="this simverify is not run from one"):
        report_module.reference_dir("quick")
