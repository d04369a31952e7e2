"""Evidence figures drawn by the report for each law (``draw_evidence``): what each draws, asserted on the Axes."""
from __future__ import annotations

import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402

from simverify.laws import Bound, Comparison, LinearRate, PowerLaw  # noqa: E402
from simverify.report.evidence import draw_evidence, drawer_for  # noqa: E402

LEVEL = 0.99


def _power_ds(exponent: float, groups=(1, 2), reps: int = 6, seed: int = 0) -> xr.Dataset:
    g = np.random.default_rng(seed)
    m = np.array([100.0, 400.0, 1600.0])
    y = np.array([(k * m ** exponent)[:, None] * np.exp(0.02 * g.standard_normal((3, reps))) for k in groups])
    return xr.Dataset({"err": (("n", "m", "replicate"), y)},
                      coords={"n": list(groups), "m": m, "replicate": np.arange(reps)})


def _draw(law, ds):
    res = law.evaluate(ds, LEVEL)
    record = {"estimate": res.estimate, "ci": list(res.ci), "band": list(res.band), "verdict": res.verdict,
              "confidence_level": LEVEL, "detail": res.detail, "claimed": res.claimed}
    fig, ax = plt.subplots()
    draw_evidence(law, ds, record, ax)
    return fig, ax, record


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def test_power_law_draws_every_group_on_log_axes_with_fit_band_and_claimed_slope():
    fig, ax, _ = _draw(PowerLaw("err", "m", -0.5), _power_ds(-0.5))
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    series = [c for c in ax.containers]  # one errorbar per group
    assert len(series) == 2
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "n=1" in labels and "n=2" in labels
    assert any(t.startswith("claimed slope -0.5") for t in labels)
    assert any(t.startswith("band edges") for t in labels)
    assert ax.get_xlabel() == "m" and ax.get_ylabel() == "err"


def test_a_claim_and_its_control_on_different_data_draw_different_curves():
    _, ax1, _ = _draw(PowerLaw("err", "m", -0.5), _power_ds(-0.5, groups=(1,)))
    _, ax2, _ = _draw(PowerLaw("err", "m", -0.5), _power_ds(-0.2, groups=(1,)))
    y1 = ax1.containers[0].lines[0].get_ydata()
    y2 = ax2.containers[0].lines[0].get_ydata()
    assert not np.allclose(y1, y2)


def test_the_judged_quantity_is_drawn_not_the_first_variable():
    ds = _power_ds(-0.5, groups=(1,))
    ds["rhs"] = ds["err"] * 0 + 2.0
    law = PowerLaw(lambda d: d["err"] / d["rhs"], "m", -0.5)
    _, ax, _ = _draw(law, ds)
    drawn = ax.containers[0].lines[0].get_ydata()
    assert np.allclose(drawn, ds["err"].mean("replicate").values[0] / 2.0)


def test_bound_draws_every_cell_labelled_by_its_zipped_parameters_and_marks_the_deciding_cell():
    g = np.random.default_rng(1)
    lhs = np.array([1.0, 1.3, 0.8])[:, None] + 0.01 * g.standard_normal((3, 8))
    ds = xr.Dataset({"d": (("case", "replicate"), lhs)},
                    coords={"case": [0, 1, 2], "replicate": np.arange(8), "r": ("case", [1, 2, 3]),
                            "kappa": ("case", [1, 1, 8])})
    fig, ax, record = _draw(Bound("d", 1.02), ds)
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks == ["r=1, kappa=1", "r=2, kappa=1", "r=3, kappa=8"]
    worst = record["detail"]["worst_cell"]
    marker = next(line for line in ax.get_lines() if line.get_label() == "deciding cell")
    assert list(marker.get_xdata()) == [worst] == [1]
    assert any(line.get_label() == "bound as checked" for line in ax.get_lines())


def test_comparison_draws_ratios_on_a_log_axis_with_the_claimed_band():
    g = np.random.default_rng(2)
    a = 1.0 + 0.05 * g.standard_normal((2, 10))
    ds = xr.Dataset({"a": (("n", "replicate"), a), "b": (("n", "replicate"), 2 * a)},
                    coords={"n": [10, 20], "replicate": np.arange(10)})
    _, ax, _ = _draw(Comparison("a", "b", "less", 1.0), ds)
    assert ax.get_yscale() == "log"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(t.startswith("claimed band [0, 1]") for t in labels)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["n=10", "n=20"]


def test_linear_rate_draws_the_error_on_a_log_axis_against_iterations():
    t = np.arange(8.0)
    err = (0.5 ** t)[:, None] * np.exp(0.01 * np.random.default_rng(3).standard_normal((8, 5)))
    ds = xr.Dataset({"e": (("iteration", "replicate"), err)}, coords={"iteration": t, "replicate": np.arange(5)})
    _, ax, record = _draw(LinearRate("e", rho=0.6), ds)
    assert ax.get_xscale() == "linear" and ax.get_yscale() == "log"
    assert any(t.get_text().startswith("fitted factor 0.5") for t in ax.get_legend().get_texts())


def test_linear_axes_never_show_an_offset():
    g = np.random.default_rng(4)
    ds = xr.Dataset({"d": (("case", "replicate"), 0.1 + 1e-12 * g.standard_normal((2, 6)))},
                    coords={"case": [0, 1], "replicate": np.arange(6)})
    fig, ax, _ = _draw(Bound("d", 0.2), ds)
    fig.canvas.draw()
    assert ax.yaxis.get_offset_text().get_text() == ""


def test_importing_the_laws_imports_neither_matplotlib_nor_the_report():
    code = ("import sys, simverify.laws; print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib'"
            " or m.startswith('simverify.report')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _law_classes():
    import simverify.laws as laws
    return sorted((c for c in vars(laws).values() if isinstance(c, type) and issubclass(c, laws.Law)),
                  key=lambda c: c.__name__)


def test_every_law_class_has_a_drawer_and_none_draws_itself():
    from simverify.laws import Law
    from simverify.report.evidence import cells, default, printed, rate, slope
    expected = {"Bound": cells.draw_cells, "Comparison": cells.draw_cells, "Identity": cells.draw_cells,
                "LinearRate": rate.draw_rate, "LogSlope": slope.draw_slope, "MatchesPrinted": printed.draw_printed,
                "MatchesPrintedMean": printed.draw_printed, "Law": default.draw_default}
    classes = _law_classes()
    assert {c.__name__ for c in classes} == set(expected)
    for cls in classes:
        assert drawer_for(cls) is expected[cls.__name__], cls
        assert cls is Law or drawer_for(cls) is not default.draw_default
        assert not any("plot" in vars(k) for k in cls.__mro__), f"{cls.__name__} draws itself"
    assert drawer_for(PowerLaw("err", "m", -0.5)) is slope.draw_slope  # the constructors build a LogSlope
    assert drawer_for(object()) is None


def test_a_subclass_is_drawn_by_its_parents_drawer_unless_it_draws_itself():
    from dataclasses import dataclass

    from simverify.report.evidence import cells

    @dataclass
    class MyComparison(Comparison):
        pass

    @dataclass
    class Pictured(Comparison):
        def plot(self, ds, record, ax):
            ax.set_title("drawn by the plugin")

    assert drawer_for(MyComparison) is cells.draw_cells
    fig, ax = plt.subplots()
    draw_evidence(Pictured("a", "b"), xr.Dataset(), {}, ax)
    assert ax.get_title() == "drawn by the plugin"
    with pytest.raises(TypeError, match="no evidence drawer for object"):
        draw_evidence(object(), xr.Dataset(), {}, ax)


# -- readability of the report's figures (evidence_png): size, fonts, layout, curves, frequencies ---------------

SOLVERS = ["slm", "fm", "fm_standardised"]


def _record(law, ds, claim_id="toy.figure"):
    res = law.evaluate(ds, LEVEL)
    return {"id": claim_id, "estimate": res.estimate, "ci": list(res.ci), "band": list(res.band),
            "verdict": res.verdict, "confidence_level": LEVEL, "detail": res.detail, "claimed": res.claimed}


def _evidence(monkeypatch, law, ds):
    """The report's PNG of ``law`` drawn on ``ds`` and its figure, kept open (evidence_png closes it)."""
    from simverify.report import figures
    monkeypatch.setattr(figures, "law_of", lambda _id: law)
    kept = []
    monkeypatch.setattr(figures.plt, "close", kept.append)
    png, why = figures.evidence_png(_record(law, ds), ds)
    assert png is not None, why
    return png, kept[0]


def _png_size(png: bytes) -> tuple[int, int]:
    assert png[12:16] == b"IHDR"
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def _inside(bbox, canvas, tol=0.5) -> bool:
    return (bbox.x0 >= canvas.x0 - tol and bbox.y0 >= canvas.y0 - tol and bbox.x1 <= canvas.x1 + tol
            and bbox.y1 <= canvas.y1 + tol)


def _tick_boxes(fig, axis):
    """The window extents of the tick labels the axis draws: those of ticks inside its view."""
    renderer = fig.canvas.get_renderer()
    lo, hi = sorted(axis.get_view_interval())
    ticks = axis.get_major_ticks(len(axis.get_majorticklocs())) + axis.get_minor_ticks(len(axis.get_minorticklocs()))
    return [t.label1.get_window_extent(renderer) for t in ticks
            if lo - 1e-9 * abs(hi - lo) <= t.get_loc() <= hi + 1e-9 * abs(hi - lo)
            and t.label1.get_visible() and t.label1.get_text()]


def _many_cells_ds(n=12, reps=8):
    g = np.random.default_rng(5)
    lhs = 1.0 + 0.05 * g.standard_normal((n, reps))
    return xr.Dataset({"d": (("case", "replicate"), lhs)},
                      coords={"case": np.arange(n), "replicate": np.arange(reps),
                              "flip_probability": ("case", np.linspace(0, 0.1, n)),
                              "noise_level": ("case", np.linspace(1, 2, n)), "solver_name": ("case", ["leml"] * n)})


def _slm_like_ds(reps=10, iterations=12, noise=(0.0, 1.0)):
    """Shaped like slm Figure 1's sweep outputs: test NMSE per (noise, replicate, solver, iteration), and final."""
    g = np.random.default_rng(6)
    rate = np.array([0.3, 0.8, 0.7])[None, None, :, None]
    t = np.arange(iterations)[None, None, None, :]
    nmse = rate ** t * np.exp(0.1 * g.standard_normal((len(noise), reps, len(SOLVERS), iterations)))
    return xr.Dataset({"nmse": (("noise", "replicate", "solver", "iteration"), nmse),
                       "final_nmse": (("noise", "replicate", "solver"), nmse[..., -1])},
                      coords={"noise": list(noise), "replicate": np.arange(reps), "solver": SOLVERS,
                              "iteration": np.arange(iterations)})


def _slm_wins():
    from simverify.laws import Selection
    ours = Selection("final_nmse", "solver", "slm")
    theirs = Selection("final_nmse", "solver", ("fm", "fm_standardised"))
    return Bound(lambda ds: (ours(ds) < theirs(ds)).astype(float), 0.5, ">=", probability=True)


def test_evidence_png_has_the_canvas_of_figsize_at_dpi_880_by_550_pixels(monkeypatch):
    from simverify.report import figures
    png, _ = _evidence(monkeypatch, PowerLaw("err", "m", -0.5), _power_ds(-0.5))
    assert (figures.FIGSIZE, figures.DPI) == ((8.0, 5.0), 110)
    assert _png_size(png) == (880, 550)


def test_rendered_image_has_the_pixels_savefig_encodes_and_smallest_only_changes_the_bytes():
    """As evidence_png draws: the report's size, dpi, fonts and constrained layout."""
    import io

    from PIL import Image

    from simverify.report import figures
    law, ds = PowerLaw("err", "m", -0.5), _power_ds(-0.5, groups=(1, 2, 3))
    res = law.evaluate(ds, LEVEL)
    record = {"estimate": res.estimate, "ci": list(res.ci), "band": list(res.band), "verdict": res.verdict,
              "confidence_level": LEVEL, "detail": res.detail, "claimed": res.claimed}

    def drawn():  # a fresh figure each time: a second constrained-layout pass may move the axes by a pixel
        fig, ax = plt.subplots(figsize=figures.FIGSIZE, dpi=figures.DPI, layout="constrained")
        draw_evidence(law, ds, record, ax)
        return fig
    with matplotlib.rc_context(figures.FONTS):
        buf = io.BytesIO()
        drawn().savefig(buf, format="png", dpi=figures.DPI)
        image = figures.rendered_image(drawn()).copy()
    with Image.open(buf) as saved:
        assert np.array_equal(np.asarray(image.convert("RGB")), np.asarray(saved.convert("RGB")))
    small, default = figures.small_png(image, smallest=True), figures.small_png(image)
    assert len(small) < len(default) and small != default
    with Image.open(io.BytesIO(small)) as a, Image.open(io.BytesIO(default)) as b:
        assert np.array_equal(np.asarray(a.convert("RGB")), np.asarray(b.convert("RGB")))


def test_evidence_fonts_are_at_least_10_points(monkeypatch):
    _, fig = _evidence(monkeypatch, Bound("d", 1.02), _many_cells_ds(4))
    ax = fig.axes[0]
    sizes = [t.get_fontsize() for t in (ax.title, ax.yaxis.label, *ax.get_xticklabels(), *ax.get_yticklabels(),
                                        *ax.get_legend().get_texts())]
    assert min(sizes) >= 10


@pytest.mark.parametrize("case", ["power law, many groups", "bound, many cells", "comparison, few cells",
                                  "curves above cells"])
def test_every_text_of_an_evidence_figure_lies_inside_its_canvas(monkeypatch, case):
    law, ds = {"power law, many groups": (PowerLaw("err", "m", -0.5), _power_ds(-0.5, groups=(1, 2, 3, 4, 5))),
               "bound, many cells": (Bound("d", 1.2), _many_cells_ds()),
               "comparison, few cells": (Comparison("a", "b", "less", 1.0), xr.Dataset(
                   {"a": (("n", "replicate"), np.ones((2, 6)) + 0.01 * np.arange(6)),
                    "b": (("n", "replicate"), 2 * np.ones((2, 6)) + 0.01 * np.arange(6))},
                   coords={"n": [10, 20], "replicate": np.arange(6)})),
               "curves above cells": (_slm_wins(), _slm_like_ds())}[case]
    png, fig = _evidence(monkeypatch, law, ds)
    renderer = fig.canvas.get_renderer()
    canvas = fig.bbox
    assert _png_size(png) == (round(canvas.width), round(canvas.height))
    assert _inside(fig.get_tightbbox(renderer).transformed(fig.dpi_scale_trans), canvas)
    for ax in fig.axes:
        for box in _tick_boxes(fig, ax.xaxis) + _tick_boxes(fig, ax.yaxis):
            assert _inside(box, canvas)
        for text in (ax.title, ax.xaxis.label, ax.yaxis.label):
            if text.get_text():
                assert _inside(text.get_window_extent(renderer), canvas)


def test_cell_labels_are_horizontal_and_do_not_overlap(monkeypatch):
    _, fig = _evidence(monkeypatch, Bound("d", 1.2), _many_cells_ds(5))
    ax = fig.axes[0]
    labels = ax.get_xticklabels() + ax.get_yticklabels()
    assert all(t.get_rotation() == 0 for t in labels)
    for axis in (ax.xaxis, ax.yaxis):
        boxes = _tick_boxes(fig, axis)
        assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


def test_many_cells_run_down_the_y_axis_with_every_label_on_it(monkeypatch):
    _, fig = _evidence(monkeypatch, Bound("d", 1.2), _many_cells_ds(12))
    ax = fig.axes[0]
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    assert len(ticks) == 12 and ticks[0].replace("\n", ", ") == "flip_probability=0, noise_level=1"
    assert ax.get_xlabel() == "d"
    boxes = _tick_boxes(fig, ax.yaxis)
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


def test_a_parameter_every_cell_shares_is_named_once_on_the_cell_axis(monkeypatch):
    ds = xr.Dataset({"d": (("case", "replicate"), 1.0 + 0.01 * np.arange(18.0).reshape(3, 6))},
                    coords={"case": [0, 1, 2], "replicate": np.arange(6), "n": ("case", [10, 20, 40]),
                            "solver": ("case", ["leml"] * 3)})
    _, fig = _evidence(monkeypatch, Bound("d", 1.2), ds)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["n=10", "n=20", "n=40"]
    assert ax.get_xlabel() == "every cell: solver=leml"


def test_legend_lies_outside_the_data_area(monkeypatch):
    for law, ds in ((PowerLaw("err", "m", -0.5), _power_ds(-0.5)), (Bound("d", 1.2), _many_cells_ds(3))):
        _, fig = _evidence(monkeypatch, law, ds)
        ax = fig.axes[0]
        renderer = fig.canvas.get_renderer()
        assert not ax.get_legend().get_window_extent(renderer).overlaps(ax.get_window_extent(renderer))


def test_log_axes_label_ticks_as_plain_numbers():
    fig, ax, _ = _draw(PowerLaw("err", "m", -0.5), _power_ds(-0.5))
    fig.canvas.draw()
    texts = [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels() if t.get_text()]
    assert "1000" in texts
    assert not any("e-0" in t or "e+0" in t or "$" in t for t in texts)


@pytest.mark.parametrize("grid, dense", [((30_000.0, 120_000.0, 470_000.0), False), ((200.0, 800.0, 3200.0), True)])
def test_log_x_tick_labels_never_overlap_and_thin_out_only_when_they_must(monkeypatch, grid, dense):
    """slm's full-tier n (3e4 to 4.7e5) once printed '300000400000' under its slope figure; at small sizes the
    labels of 2, 3, 4 and 6 times a decade all fit and stay."""
    ds = xr.Dataset({"err": (("m", "replicate"), np.array(grid)[:, None] ** -0.5 * (1 + 0.01 * np.arange(6)))},
                    coords={"m": list(grid), "replicate": np.arange(6)})
    _, fig = _evidence(monkeypatch, PowerLaw("err", "m", -0.5), ds)
    boxes = _tick_boxes(fig, fig.axes[0].xaxis)
    assert len(boxes) >= 3 and not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    texts = {t.get_text() for t in fig.axes[0].get_xticklabels(minor=True) if t.get_text()}
    if dense:
        assert {"300", "400", "600", "2000", "3000"} <= texts
    else:  # 2-3-4-6 thinned to 2-5
        assert {"50000", "200000"} <= texts and not {"30000", "40000", "300000", "400000"} & texts


@pytest.mark.parametrize("width, lo, hi, at_least", [(2.0, 12_000, 19_000, 2), (8.0, 12_000, 19_000, 3),
                                                     (0.6, 0.21, 0.47, 1), (3.0, 1e300, 1.7e308, 1)])
def test_log_x_axes_under_a_decade_or_tiny_or_at_the_float_limit_label_without_overlap(width, lo, hi, at_least):
    """A range under a decade, which matplotlib ticks linearly (12000, 13000, ...), is thinned to every s-th
    tick; a tiny axis still labels a tick; an axis up to 1.7e308 draws (10.0 ** 309 overflowed)."""
    from simverify.report.evidence.common import no_offset
    fig, ax = plt.subplots(figsize=(width, 2.0), dpi=110)
    ax.plot([lo, hi], [1, 2])
    ax.set_xscale("log")
    ax.set_xlim(lo, hi)
    no_offset(ax)
    fig.canvas.draw()
    boxes = _tick_boxes(fig, ax.xaxis)
    plt.close(fig)
    assert len(boxes) >= at_least and not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


def test_slm_figure1_draws_one_median_line_per_solver_per_noise_level_above_the_cells():
    ds = _slm_like_ds()
    fig, ax, record = _draw(_slm_wins(), ds)
    curves = [a for a in fig.axes if a is not ax]
    assert [a.get_title().split(" (")[0] for a in curves] == ["noise=0", "noise=1"]
    assert curves[0].get_ylabel() == "nmse"  # the panels share it
    for cax in curves:
        assert [line.get_label() for line in cax.get_lines()] == SOLVERS
        assert cax.get_yscale() == "log" and cax.get_xlabel() == "iteration"
        assert len(cax.collections) >= len(SOLVERS)  # a band over replicates per solver
    median = np.median(ds["nmse"].sel(noise=0.0, solver="fm").values, axis=0)
    assert np.allclose(curves[0].get_lines()[1].get_ydata(), median)
    deciding = record["detail"]["cells"][record["detail"]["worst_cell"]]
    marked = [a.get_title() for a in curves if "deciding cell" in a.get_title()]
    assert marked == [f"noise={deciding['noise']:g} (deciding cell)"]
    assert ax.get_position().y1 <= min(a.get_position().y0 for a in curves)  # the cells below the curves


def test_curves_of_many_groups_show_the_deciding_group_alone():
    ds = _slm_like_ds(noise=(0.0, 0.5, 1.0, 2.0))
    fig, ax, record = _draw(_slm_wins(), ds)
    curves = [a for a in fig.axes if a is not ax]
    assert len(curves) == 1
    deciding = record["detail"]["cells"][record["detail"]["worst_cell"]]
    assert curves[0].get_title().startswith(f"noise={deciding['noise']:g} (deciding cell); 1 of 4 shown")


def test_a_dataset_without_solver_curves_draws_the_cells_alone():
    fig, ax, _ = _draw(Bound("d", 1.2), _many_cells_ds(3))
    assert fig.axes == [ax]


def test_frequency_bound_draws_frequencies_against_the_threshold_on_a_percent_axis():
    from matplotlib.ticker import PercentFormatter
    g = np.random.default_rng(7)
    ahead = (g.random((3, 40)) < np.array([0.8, 0.9, 0.2])[:, None]).astype(float)
    ds = xr.Dataset({"ahead": (("phi", "replicate"), ahead)},
                    coords={"phi": [0.3, 0.5, 0.7], "replicate": np.arange(40)})
    fig, ax, record = _draw(Bound("ahead", 0.5, ">=", probability=True), ds)
    assert ax.get_yscale() == "linear" and ax.get_ylim() == pytest.approx((-0.04, 1.04))
    assert isinstance(ax.yaxis.get_major_formatter(), PercentFormatter)
    points = ax.containers[0].lines[0].get_ydata()
    assert np.allclose(points, ahead.mean(axis=1))  # the frequencies themselves, not a ratio to the threshold
    threshold = next(line for line in ax.get_lines() if line.get_label() == "claimed frequency >= 50%")
    assert np.allclose(threshold.get_ydata(), 0.5)
    w = record["detail"]["cells"][record["detail"]["worst_cell"]]
    assert ax.get_title().startswith(f"deciding cell: {100 * w['lhs']:.3g}% [")
    assert "of trials; claimed >= 50%" in ax.get_title().replace("\n", " ")


def test_matches_printed_draws_the_printed_number_its_band_and_the_measured_value():
    from simverify.laws import MatchesPrinted
    ds = xr.Dataset({"error": (("replicate",), [13.8889])})
    fig, ax, _ = _draw(MatchesPrinted("error", 13.88, 2, truncated=True), ds)
    labels = [t.get_text().replace("\n", " ") for t in ax.get_legend().get_texts()]
    assert labels == ["band [13.880, 13.890]", "printed 13.88", "measured 13.8889"]
    printed = next(line for line in ax.get_lines() if line.get_label() == "printed 13.88")
    assert np.allclose(printed.get_ydata(), 13.88)
