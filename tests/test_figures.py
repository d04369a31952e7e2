"""Evidence figures drawn by the laws (``Law.plot``): what each draws, asserted on the Axes."""
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
    law.plot(ds, record, ax)
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


def test_importing_the_laws_does_not_import_matplotlib():
    code = "import sys, simverify.laws; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
