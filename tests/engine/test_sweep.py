"""Sweeps: parameter binding, --set checks, planning against the law, cache keys from the
code a measure runs and from data files, array outputs, provenance."""
import json
import pickle
import re
import subprocess
import sys
import types

import numpy as np
import pytest
import xarray as xr

from simverify import keys, provenance, registry, sweep
from simverify.assemble import assemble
from simverify.claims import Claim, Control, Grid, Sweep, Tier
from simverify.executors import SerialExecutor
from simverify.laws import Identity, Law, PowerLaw
from simverify.store import Store
from tests.support import ROOT


def measure_power(seed, x, exponent=2.0, noise=0.05, label="plain", flag=False):
    g = np.random.default_rng(seed)
    return {"y": x ** exponent * np.exp(noise * g.standard_normal())}


def measure_scaled(seed, x, scale):
    return {"y": scale * x}


def measure_any(seed, x, **extra):
    return {"y": float(x)}


def measure_per_solver(seed, solver, iteration, x=1.0):
    """error (len(solver), len(iteration)): a different geometric decay per solver."""
    rate = 0.5 + 0.1 * np.arange(len(solver))[:, None]
    return {"error": x * rate ** np.asarray(iteration, dtype=float)[None, :]}


def measure_undeclared_array(seed, x):
    return {"y": np.full(3, x)}


def measure_row(seed, dataset, x):
    return {"y": float(x)}


def make_claim(measure, tier: Tier, law=None, outputs=None, data=None, name="t.sweep", claim_id="t.claim"):
    return Claim(id=claim_id, paper="t", item="T", statement="s", formula="f",
                 law=law if law is not None else PowerLaw("y", "x", 2.0),
                 sweep=Sweep(name, measure, {"quick": tier, "full": tier}, outputs or {}, data or {}),
                 controls=(Control("c", "a control"),))


POWER = Tier(Grid({"x": [1.0, 2.0, 4.0]}), 3, {"noise": 0.1})


def power_claim(**kw):
    return make_claim(measure_power, POWER, **kw)


# -- workers get the measure itself ------------------------------------------------------------

def test_task_carries_the_measure_and_runs_without_the_registry(monkeypatch):
    p = sweep.plan(power_claim(), "quick")
    monkeypatch.setattr(registry, "get", lambda _id: pytest.fail("a worker looked a claim up"))
    task = pickle.loads(pickle.dumps(p.tasks[0]))
    assert task.measure is measure_power
    out = sweep.compute_cell(task)
    assert set(out) == {"y"} and out["y"].shape == ()


def local_measure():
    def measure(seed, x):
        return {"y": x}
    return measure


@pytest.mark.parametrize("measure", [lambda seed, x: {"y": x}, local_measure()])
def test_measure_that_cannot_be_pickled_by_reference_is_refused_at_plan(measure):
    with pytest.raises(ValueError, match="t.claim: measure .* cannot be sent to workers") as exc:
        sweep.plan(make_claim(measure, POWER), "quick")
    assert "\n" not in str(exc.value)


# -- binding ---------------------------------------------------------------------------------------

def test_params_are_defaults_then_fixed_then_grid_then_overrides():
    p = sweep.plan(power_claim(), "quick", overrides={"label": "set"})
    assert [t.params for t in p.tasks[::3]] == [
        {"exponent": 2.0, "noise": 0.1, "label": "set", "flag": False, "x": x} for x in (1.0, 2.0, 4.0)]


def test_measure_defaults_are_scalar_coordinates_of_the_dataset(tmp_path):
    p = sweep.plan(power_claim(), "quick")
    ds = assemble(p, sweep.run_tasks(p.tasks, Store(tmp_path), SerialExecutor()))
    assert ds["exponent"].item() == 2.0 and ds["label"].item() == "plain" and ds["noise"].item() == 0.1
    assert ds["exponent"].dims == ()


def test_tier_parameter_the_measure_does_not_take_is_refused():
    claim = make_claim(measure_power, Tier(Grid({"x": [1.0, 2.0]}), 3, {"kappa": 1.0}))
    with pytest.raises(ValueError, match=r"^t.claim: measure measure_power takes no parameter 'kappa'$"):
        sweep.plan(claim, "quick")


def test_required_parameter_nobody_gives_is_refused():
    claim = make_claim(measure_scaled, Tier(Grid({"x": [1.0, 2.0]}), 3))
    with pytest.raises(ValueError, match=r"^t.claim: measure measure_scaled needs parameter 'scale'"):
        sweep.plan(claim, "quick")


def test_set_of_a_name_the_measure_does_not_take_is_refused():
    with pytest.raises(ValueError, match=r"t.claim: cannot set 'kappa'; parameters are \['exponent', 'flag'"):
        sweep.plan(power_claim(), "quick", overrides={"kappa": 1.0})


ZIPPED = Tier(Grid(zipped={"case": {"x": [1.0, 2.0, 4.0], "noise": [0.1, 0.2, 0.3]}}), 2)


def test_set_of_a_zipped_parameter_sets_every_entry_or_each_entry():
    claim = make_claim(measure_power, ZIPPED, law=Identity("y", 0.0))
    one = sweep.plan(claim, "quick", overrides={"noise": 0})
    each = sweep.plan(claim, "quick", overrides={"noise": [0.5, 0.6, 0.7]})
    assert [t.params["noise"] for t in one.tasks[::2]] == [0.0, 0.0, 0.0]
    assert [t.params["noise"] for t in each.tasks[::2]] == [0.5, 0.6, 0.7]
    assert [t.params["x"] for t in each.tasks[::2]] == [1.0, 2.0, 4.0]


@pytest.mark.parametrize("value,message", [
    ("abc", "t.claim: --set noise expects a number, got 'abc'"),
    ([0.1, 0.2], "t.claim: --set noise expects one value or 3 (one per 'case'), got 2"),
])
def test_set_of_a_zipped_parameter_is_checked(value, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        sweep.plan(make_claim(measure_power, ZIPPED, law=Identity("y", 0.0)), "quick", overrides={"noise": value})


def test_measure_with_var_keyword_accepts_any_set_name():
    claim = make_claim(measure_any, Tier(Grid({"x": [1.0, 2.0]}), 2))
    p = sweep.plan(claim, "quick", overrides={"anything": "goes"})
    assert p.tasks[0].params == {"anything": "goes", "x": 1.0}


# -- --set value types -----------------------------------------------------------------------------

LIST_TIER = Tier(Grid({"x": [1.0, 2.0]}), 2, {"solver": ["ours", "pca"], "iteration": [0, 1, 2]})


@pytest.mark.parametrize("name,value,message", [
    ("noise", "abc", "--set noise expects a number, got 'abc'"),
    ("noise", True, "--set noise expects a number, got True"),
    ("noise", [0.1, 0.2], "--set noise expects a number, got [0.1, 0.2]"),
    ("flag", 1, "--set flag expects true or false, got 1"),
    ("label", 3, "--set label expects a string, got 3"),
    ("x", "abc", "--set x expects a number, got 'abc'"),
    ("x", [], "--set x expects at least one value, got an empty list"),
    ("noise", float("nan"), "parameter 'noise' is not finite"),
    ("noise", {"a": 1}, "--set noise expects a number, got {'a': 1}"),
])
def test_set_value_of_the_wrong_type_is_refused_in_one_line(name, value, message):
    with pytest.raises(ValueError) as exc:
        sweep.plan(power_claim(), "quick", overrides={name: value})
    assert message in str(exc.value) and "\n" not in str(exc.value)


@pytest.mark.parametrize("name,value,message", [
    ("iteration", 2.5, "--set iteration expects an integer, got 2.5"),
    ("iteration", [1, True], "--set iteration expects an integer, got True"),
    ("solver", [], "--set solver expects at least one value, got an empty list"),
])
def test_set_value_of_a_declared_list_is_checked_per_element(name, value, message):
    claim = make_claim(measure_per_solver, LIST_TIER, law=Identity("error", 0.0),
                       outputs={"error": ("solver", "iteration")})
    with pytest.raises(ValueError, match=message):
        sweep.plan(claim, "quick", overrides={name: value})


def test_set_converts_an_integer_to_float_and_a_scalar_to_a_one_element_list():
    claim = make_claim(measure_per_solver, LIST_TIER, law=Identity("error", 0.0),
                       outputs={"error": ("solver", "iteration")})
    p = sweep.plan(claim, "quick", overrides={"x": 3, "solver": "ours", "iteration": [0, 5]})
    assert p.dims == [("x", [3.0])]
    assert isinstance(p.tasks[0].params["x"], float)
    assert p.tasks[0].params["solver"] == ["ours"] and p.tasks[0].params["iteration"] == [0, 5]


# -- the law's needs at plan time ------------------------------------------------------------------

def test_fewer_replicates_than_the_law_needs_is_refused():
    with pytest.raises(ValueError, match=r"^t.claim: PowerLaw needs at least 2 replicates for an interval; got 1$"):
        sweep.plan(power_claim(), "quick", replicates=1)


class RecordingLaw(Law):
    kind = "Recording"

    def __init__(self):
        self.coords = None

    def check_plan(self, coords):
        self.coords = {k: list(v) for k, v in coords.items()}


def test_check_plan_sees_grid_replicate_and_output_dims_given_as_parameters():
    law = RecordingLaw()
    sweep.plan(make_claim(measure_per_solver, LIST_TIER, law=law, outputs={"error": ("solver", "iteration")}),
               "quick")
    assert law.coords == {"x": [1.0, 2.0], "replicate": [0, 1], "solver": ["ours", "pca"], "iteration": [0, 1, 2]}


def test_set_leaving_one_point_on_the_slope_axis_is_refused_at_plan():
    with pytest.raises(ValueError, match="^t.claim: PowerLaw over 'x' needs at least 2 distinct grid values"):
        sweep.plan(power_claim(), "quick", overrides={"x": 1000})


# -- cache keys: the code the measure runs ---------------------------------------------------------

PACKAGE = {
    "__init__.py": '"""A toy paper package."""\n',
    "measures.py": "from . import helper\n\n\ndef measure(seed, x):\n    return {'y': helper.scale(x)}\n",
    "helper.py": "from .deep import FACTOR\n\n\ndef scale(x):\n    return FACTOR * x\n",
    "deep.py": "FACTOR = 2.0\n",
    "declarations.py": '"""Claims. Erratum: none."""\nfrom .measures import measure  # noqa: F401\n',
    "other.py": "VALUE = 1\n",
}


@pytest.fixture
def toy_package(tmp_path, monkeypatch):
    """A package on sys.path whose measure imports helper, which imports deep."""
    name = f"svtoy_{tmp_path.name}".replace("-", "_")
    pkg = tmp_path / name
    pkg.mkdir()
    for file, text in PACKAGE.items():
        (pkg / file).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    __import__(f"{name}.declarations")
    yield pkg, sys.modules[f"{name}.measures"].measure
    for mod in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[mod]
    keys.module_source.cache_clear()


def keys_of(measure) -> list[str]:
    keys.module_source.cache_clear()  # a new process would read the files afresh
    tier = Tier(Grid({"x": [1.0, 2.0, 4.0]}), 3)
    return [t.key for t in sweep.plan(make_claim(measure, tier, law=Identity("y", 0.0)), "quick").tasks]


def test_code_closure_follows_imports_transitively_and_nothing_else(toy_package):
    pkg, measure = toy_package
    names = [m.name for m in keys.code_closure(measure.__module__)]
    assert names == [f"{pkg.name}.{m}" for m in ("deep", "helper", "measures")]


def test_editing_modules_the_measure_does_not_import_keeps_keys(toy_package):
    pkg, measure = toy_package
    before = keys_of(measure)
    (pkg / "declarations.py").write_text('"""Claims. Erratum: Lemma 1 has a typo."""\nfrom .measures import measure\n')
    (pkg / "other.py").write_text("VALUE = 2\n")
    (pkg / "__init__.py").write_text('"""A toy paper package, edited."""\n')
    assert keys_of(measure) == before


def test_editing_a_module_the_measure_imports_transitively_changes_keys(toy_package):
    pkg, measure = toy_package
    before = keys_of(measure)
    (pkg / "deep.py").write_text("FACTOR = 3.0\n")
    after = keys_of(measure)
    assert len(set(after)) == len(after) and not set(after) & set(before)


def test_relative_and_absolute_imports_resolve_to_modules(toy_package):
    pkg, _ = toy_package
    (pkg / "sub").mkdir()
    (pkg / "sub" / "__init__.py").write_text("from .. import deep\nfrom ..helper import scale\nimport os\n")
    src = keys.module_source(f"{pkg.name}.sub")
    assert src.imports == {f"{pkg.name}.deep", f"{pkg.name}.helper", "os"}


# -- cache keys: data files ------------------------------------------------------------------------

def test_a_data_file_content_change_changes_only_its_cells_keys(tmp_path):
    files = {"a": tmp_path / "a.csv", "b": tmp_path / "b.csv"}
    files["a"].write_text("1,2\n")
    files["b"].write_text("3,4\n")
    tier = Tier(Grid({"dataset": ["a", "b"], "x": [1.0, 2.0]}), 2)
    claim = make_claim(measure_row, tier, law=Identity("y", 0.0), data={"dataset": lambda name: files[name]})

    def keys():
        return {(t.params["dataset"], t.params["x"], t.replicate): t.key for t in sweep.plan(claim, "quick").tasks}
    before = keys()
    files["a"].write_text("1,2,changed\n")
    after = keys()
    assert all((after[c] == before[c]) == (c[0] == "b") for c in before)


def test_missing_data_file_is_refused_at_plan_naming_it(tmp_path):
    tier = Tier(Grid({"dataset": ["gone"], "x": [1.0]}), 2)
    claim = make_claim(measure_row, tier, law=Identity("y", 0.0), data={"dataset": lambda name: tmp_path / name})
    with pytest.raises(ValueError, match=r"t.claim: data file '.*gone' for dataset='gone' cannot be read"):
        sweep.plan(claim, "quick")


# -- seeds -----------------------------------------------------------------------------------------

def test_seeds_and_keys_follow_the_sweep_name_not_the_claim():
    a = sweep.plan(power_claim(claim_id="t.a"), "quick")
    b = sweep.plan(power_claim(claim_id="t.b", law=Identity("y", 0.0)), "quick")
    c = sweep.plan(power_claim(claim_id="t.a", name="t.other"), "quick")
    assert [t.key for t in a.tasks] == [t.key for t in b.tasks]
    assert [t.entropy for t in a.tasks] == [t.entropy for t in b.tasks]
    assert not {t.entropy for t in a.tasks} & {t.entropy for t in c.tasks}


# -- array outputs ---------------------------------------------------------------------------------

def test_two_dim_output_with_string_coordinates_round_trips_through_the_store(tmp_path):
    claim = make_claim(measure_per_solver, LIST_TIER, law=Identity("error", 0.0),
                       outputs={"error": ("solver", "iteration")})
    p = sweep.plan(claim, "quick")
    store = Store(tmp_path)
    ds = assemble(p, sweep.run_tasks(p.tasks, store, SerialExecutor()))
    with xr.open_dataset(store.save_dataset(ds, claim.id, "quick", p.digest)) as back:
        back.load()
    assert back["error"].dims == ("x", "replicate", "solver", "iteration")
    assert back["solver"].values.tolist() == ["ours", "pca"] and back["iteration"].values.tolist() == [0, 1, 2]
    np.testing.assert_array_equal(back["error"].sel(x=2.0, replicate=1, solver="pca").values, 2.0 * 0.6 ** np.arange(3))


def test_output_dim_without_a_parameter_list_gets_positions(tmp_path):
    tier = Tier(Grid({"x": [1.0, 2.0]}), 2, {"solver": ["ours", "pca"], "iteration": [0, 1, 2]})
    claim = make_claim(measure_per_solver, tier, law=Identity("error", 0.0), outputs={"error": ("method", "step")})
    p = sweep.plan(claim, "quick")
    ds = assemble(p, sweep.run_tasks(p.tasks, Store(tmp_path), SerialExecutor()))
    assert ds["method"].values.tolist() == [0, 1] and ds["step"].values.tolist() == [0, 1, 2]


def test_array_output_not_declared_in_outputs_is_refused_naming_it(tmp_path):
    claim = make_claim(measure_undeclared_array, Tier(Grid({"x": [1.0, 2.0]}), 2), law=Identity("y", 0.0))
    p = sweep.plan(claim, "quick")
    with pytest.raises(ValueError, match=r"t.claim: output 'y' is an array of shape \(3,\) but Sweep.outputs"):
        assemble(p, sweep.run_tasks(p.tasks, Store(tmp_path), SerialExecutor()))


def measure_named_like_a_parameter(seed, x, noise=0.1):
    return {"noise": float(x)}


@pytest.mark.parametrize("outputs, message", [
    ({"x": ("step",)}, r"t.claim: output 'x' has the name of a coordinate"),
    ({"replicate": ("step",)}, r"t.claim: output 'replicate' has the name of a coordinate"),
    ({"noise": ("step",)}, r"t.claim: output 'noise' has the name of a coordinate"),
])
def test_declared_output_named_like_a_coordinate_is_refused_at_plan(outputs, message):
    with pytest.raises(ValueError, match=message):
        sweep.plan(power_claim(outputs=outputs), "quick")


def test_declared_output_with_a_grid_dim_among_its_dims_is_refused_at_plan():
    with pytest.raises(ValueError, match=r"t.claim: output 'y' declares dim 'x', which is already a grid dim"):
        sweep.plan(power_claim(outputs={"y": ("x",)}), "quick")


def test_scalar_output_named_like_a_parameter_is_refused_naming_it(tmp_path):
    claim = make_claim(measure_named_like_a_parameter, Tier(Grid({"x": [1.0, 2.0]}), 2), law=Identity("y", 0.0))
    p = sweep.plan(claim, "quick")
    with pytest.raises(ValueError, match=r"t.claim: output 'noise' has the name of a coordinate"):
        assemble(p, sweep.run_tasks(p.tasks, Store(tmp_path), SerialExecutor()))


# -- provenance ------------------------------------------------------------------------------------

def test_provenance_records_scipy_version_and_the_checkout_commit(tmp_path):
    import scipy
    p = sweep.plan(power_claim(), "quick")
    ds = assemble(p, sweep.run_tasks(p.tasks, Store(tmp_path), SerialExecutor()))
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True)
    head = head.stdout.strip()
    assert ds.attrs["scipy_version"] == scipy.__version__
    assert ds.attrs["git_commit"] == head and len(head) == 40


def test_provenance_records_the_overrides_of_the_run(tmp_path):
    p = sweep.plan(power_claim(), "quick", overrides={"exponent": 1.5})
    ds = assemble(p, sweep.run_tasks(p.tasks, Store(tmp_path), SerialExecutor()))
    assert json.loads(ds.attrs["overrides"]) == {"exponent": 1.5}
    q = sweep.plan(power_claim(), "quick")
    plain = assemble(q, sweep.run_tasks(q.tasks, Store(tmp_path), SerialExecutor()))
    assert json.loads(plain.attrs["overrides"]) == {}


@pytest.fixture
def built_package(monkeypatch):
    """provenance.git_commit as in an installed wheel built at commit abc123 (cache cleared around)."""
    monkeypatch.setitem(sys.modules, "simverify._build_info", types.SimpleNamespace(COMMIT="abc123"))
    provenance.git_commit.cache_clear()
    yield
    provenance.git_commit.cache_clear()


def test_git_commit_outside_a_checkout_is_the_build_time_commit_else_unknown(monkeypatch, built_package):
    monkeypatch.setattr(provenance, "_git", lambda *args: None)
    assert provenance.git_commit() == "abc123"
    monkeypatch.setitem(sys.modules, "simverify._build_info", None)  # no build-time file: import fails
    provenance.git_commit.cache_clear()
    assert provenance.git_commit() == "unknown"


def test_git_commit_ignores_a_repository_that_does_not_track_the_package(monkeypatch, built_package):
    monkeypatch.setattr(provenance, "_git", lambda *args: None if args[0] == "ls-files" else "f" * 40)
    assert provenance.git_commit() == "abc123"


def test_version_is_importable():
    import simverify
    assert isinstance(simverify.__version__, str) and simverify.__version__


def test_the_first_task_of_each_measure_goes_first_and_every_task_stays_once_in_its_order():
    def task(measure, i):
        return sweep.CellTask(measure, {}, (i,), 0, 0, f"{measure.__name__}-{i}")
    tasks = [task(measure_power, 0), task(measure_power, 1), task(measure_scaled, 0), task(measure_power, 2),
             task(measure_any, 0), task(measure_scaled, 1)]
    ordered = sweep.compile_once_order(tasks)
    assert [t.key for t in ordered] == ["measure_power-0", "measure_scaled-0", "measure_any-0",  # each compiles
                                        "measure_power-1", "measure_power-2", "measure_scaled-1"]
    assert sweep.compile_once_order([]) == []


class _RecordingExecutor:
    """Runs tasks in the order handed to it, and remembers that order."""

    def __init__(self, parallel):
        self.parallel, self.order = parallel, []

    def map_unordered(self, fn, tasks):
        for t in tasks:
            self.order.append(t.key)
            yield t, fn(t)


@pytest.mark.parametrize("parallel", [True, False])
def test_a_parallel_executor_gets_each_measures_first_cell_first_and_a_serial_one_the_plans_order(tmp_path, parallel):
    def task(measure, i):
        return sweep.CellTask(measure, {"x": 1.0}, (i,), i, i, f"{measure.__name__}-{i}")
    tasks = [task(measure_power, 0), task(measure_power, 1), task(measure_scaled, 2)]
    tasks[2].params["scale"] = 2.0
    executor = _RecordingExecutor(parallel)
    keys = [key for key, _, _ in sweep.iter_results(tasks, Store(tmp_path / "s"), executor)]
    plan_order = [t.key for t in tasks]
    expected = ["measure_power-0", "measure_scaled-2", "measure_power-1"] if parallel else plan_order
    assert executor.order == expected and keys == expected
