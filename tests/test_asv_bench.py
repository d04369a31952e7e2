"""The asv benchmark suite is well formed and every benchmark runs once at its size (nothing is timed)."""
from __future__ import annotations

import importlib
import inspect
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PREFIXES = ("time_", "timeraw_", "peakmem_", "track_", "mem_")
CHEAP_MODULES = ["bench_kernels", "bench_solvers"]  # the goal, tier and compile benchmarks run for minutes


@pytest.fixture(scope="module", autouse=True)
def _on_path():
    sys.path.insert(0, str(ROOT / "asv_bench"))
    yield
    sys.path.remove(str(ROOT / "asv_bench"))


def _benchmarks(module):
    for name, obj in vars(module).items():
        if inspect.isclass(obj) and obj.__module__ == module.__name__:
            for attr in vars(obj):
                if attr.startswith(PREFIXES):
                    yield obj, attr
        elif inspect.isfunction(obj) and name.startswith(PREFIXES) and obj.__module__ == module.__name__:
            yield None, name


def test_every_benchmark_module_imports_and_every_public_class_holds_benchmarks():
    modules = sorted(p.stem for p in (ROOT / "asv_bench" / "benchmarks").glob("bench_*.py"))
    assert {"bench_goals", "bench_kernels", "bench_solvers", "bench_tiers", "bench_onebit", "bench_slm"} <= set(modules)
    for name in modules:
        module = importlib.import_module(f"benchmarks.{name}")
        classes = [c for c in vars(module).values() if inspect.isclass(c) and c.__module__ == module.__name__]
        for cls in classes:
            assert any(a.startswith(PREFIXES) for a in vars(cls)), f"{name}.{cls.__name__} has no benchmark"


def test_every_goal_is_a_pair_of_ours_and_the_numpy_reference():
    module = importlib.import_module("benchmarks.bench_goals")
    names = {attr for _, attr in _benchmarks(module)}
    ours = {n[len("time_ours_"):] for n in names if n.startswith("time_ours_")}
    assert ours == {"standard_normal_1e7", "surrogate_n100_m1e6"}
    assert all(f"time_numpy_{x}" in names for x in ours)


def test_onebit_numpy_reference_is_algorithm1_it_recovers_w_star_like_ours():
    import numpy as np

    from simverify.generators import onebit as gen
    from simverify.solvers import onebit as sol
    module = importlib.import_module("benchmarks.bench_onebit")
    W_star = gen.gaussian_model_matrix(40, 10, 2, 0)
    ref = module.algorithm1_numpy_reference(W_star, 2, 20_000, 6, 1)
    *_, (_, ours) = sol.algorithm1(gen.SingleLabelModel(W_star), 2, 20_000, 6, 1)
    e_ref, e_ours = (np.linalg.norm(W - W_star, 2) for W in (ref, ours.W))
    assert e_ref < 0.3 and 0.5 < e_ref / e_ours < 2.0


@pytest.mark.parametrize("dense", [False, True])
def test_slm_numpy_references_agree_with_the_streamed_pass_in_expectation(dense):
    import numpy as np

    from simverify.generators import slm as gen
    module = importlib.import_module("benchmarks.bench_slm")
    model = gen.low_rank_model(15, 2, gen.FeatureDistribution("gaussian"), 0)
    w, U, V = module._state(15, 2)
    ours = module.one_pass(model, 200_000, w, U, V)
    ref = module.one_pass_numpy(model, 200_000, w, U, V, dense=dense)   # other normals: agreement within MC error
    for a, b in zip(ours, ref):
        assert np.max(np.abs(np.asarray(a) - np.asarray(b))) < 0.1
    exact = module.one_pass_numpy(model, 3000, w, U, V, seed=5, batch=1000, dense=dense)
    other = module.one_pass_numpy(model, 3000, w, U, V, seed=5, batch=1000, dense=not dense)
    for a, b in zip(exact, other):                                        # the two references: the same numbers
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("module_name", CHEAP_MODULES)
def test_kernel_and_solver_benchmarks_run_once(module_name):
    module = importlib.import_module(f"benchmarks.{module_name}")
    ran = 0
    for cls, attr in _benchmarks(module):
        bench = cls()
        bench.setup()
        getattr(bench, attr)()
        ran += 1
    assert ran >= 6


def test_ratios_reads_an_asv_results_file_and_states_whether_goals_are_met(tmp_path):
    ratios = importlib.import_module("ratios")
    run = tmp_path / "machine" / "abcdef12-existing-py.json"
    run.parent.mkdir()
    run.write_text(json.dumps({"result_columns": ["result", "params"], "results": {
        "bench_goals.Surrogate.time_ours_surrogate_n100_m1e6": [[1.0], []],
        "bench_goals.Surrogate.time_numpy_surrogate_n100_m1e6": [[4.0], []],
        "bench_goals.RNG.time_ours_standard_normal_1e7": [[0.1], []],
        "bench_goals.RNG.time_numpy_standard_normal_1e7": [[0.35], []],
        "bench_goals.Surrogate.track_fraction_of_limit_surrogate_n100_m1e6": [[0.8], []]}}))
    lines = ratios.table(ratios.values(run))
    surrogate = next(line for line in lines if line.startswith("surrogate_n100_m1e6") and "x " in line)
    normals = next(line for line in lines if line.startswith("standard_normal_1e7"))
    assert "4.00x" in surrogate and surrogate.endswith("NOT MET")
    assert "3.50x" in normals and normals.endswith("  MET")
    assert any(line.startswith("surrogate_n100_m1e6") and line.endswith("0.80") for line in lines)
    assert ratios.main(["--results", str(tmp_path / "none")]) == 2
