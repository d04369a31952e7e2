"""Store layout 2: every run's verdict kept and keyed, incompatible stores refused, the cell cache's
info and clean, calibration with power, and two `simverify check` processes on one store."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from simverify import cache, provenance, registry, runner
from simverify.executors import SerialExecutor
from simverify.store import (
    FORMAT,
    IncompatibleStore,
    Store,
    read_calibration_file,
    save_calibration_file,
    select_rows,
)
from tests.support import ROOT

TOY = ["toy.power", "toy.power~wrong_exponent"]


def _claims(ids=TOY):
    return [registry.get(i) for i in ids]


def test_a_store_of_the_first_layout_is_refused_naming_the_store(tmp_path):
    (tmp_path / "old" / "results").mkdir(parents=True)
    (tmp_path / "old" / "results" / "toy.power.quick.json").write_text("{}")
    with pytest.raises(IncompatibleStore, match=r"store .*old has layout 1, this simverify reads layout 2"):
        Store(tmp_path / "old").check_compatible()


def test_a_store_of_an_unknown_layout_is_refused(tmp_path):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "FORMAT").write_text(json.dumps({"format": 99}))
    with pytest.raises(IncompatibleStore, match=r"store .*s has layout 99"):
        Store(tmp_path / "s").check_compatible()


def test_an_absent_or_empty_store_is_accepted_and_gets_its_format_at_the_first_write(tmp_path):
    Store(tmp_path / "absent").check_compatible()
    (tmp_path / "empty").mkdir()
    store = Store(tmp_path / "empty")
    store.check_compatible()
    assert not (store.root / "FORMAT").exists()  # checking writes nothing
    store.save_cell("a" * 40, {"y": np.ones(1)})
    assert json.loads((store.root / "FORMAT").read_text())["format"] == FORMAT
    store.check_compatible()


def _rec(claim_id, tier="quick", finished="2026-01-01T00:00:00+00:00", overrides=None, control_of=None,
         paper="toy", order=None):
    return {"id": claim_id, "tier": tier, "finished": finished, "overrides": overrides or {},
            "control_of": control_of, "paper": paper, "order": order}


def test_rows_follow_paper_and_the_stored_claim_order_with_controls_after_their_claim_and_unordered_ids_last():
    # order as recorded when each claim was judged: slow registered before power here, unlike their ids
    records = [_rec("toy.zz_old"), _rec("toy.slow~tight", control_of="toy.slow", order=1),
               _rec("toy.power~wrong_exponent", control_of="toy.power", order=3), _rec("toy.slow", order=0),
               _rec("toy.power", order=2), _rec("toy.power", tier="full", order=2),
               _rec("toy.power~wrong_exponent", tier="full", control_of="toy.power", order=3),
               _rec("toy.aa_old"), _rec("other.claim", paper="aaa", order=7)]
    rows = select_rows(records)
    assert [(r["id"], r["tier"]) for r in rows] == [
        ("other.claim", "quick"),
        ("toy.slow", "quick"), ("toy.slow~tight", "quick"),
        ("toy.power", "full"), ("toy.power~wrong_exponent", "full"),
        ("toy.power", "quick"), ("toy.power~wrong_exponent", "quick"),
        ("toy.aa_old", "quick"), ("toy.zz_old", "quick")]
    assert [r["id"] for r in select_rows(records, tier="full")] == ["toy.power", "toy.power~wrong_exponent"]
    # records written before they stored their order (version 1) take it from a fallback when one is given
    fallback = {"toy.zz_old": 1, "toy.aa_old": 5}.get
    assert [r["id"] for r in select_rows(records, fallback=fallback) if r["tier"] == "quick"] == [
        "other.claim", "toy.slow", "toy.slow~tight", "toy.zz_old", "toy.power", "toy.power~wrong_exponent",
        "toy.aa_old"]


def test_every_run_is_kept_and_rows_prefer_the_run_without_overrides(tmp_path):
    store = Store(tmp_path / "s")
    claims = _claims(["toy.power"])
    plain = runner.check(claims, "quick", store, SerialExecutor())[0]
    assert json.loads((store.root / "FORMAT").read_text())["format"] == FORMAT
    other_seed = runner.check(claims, "quick", store, SerialExecutor(), root_seed=1)[0]
    overridden = runner.check(claims, "quick", store, SerialExecutor(), overrides={"n": 4})[0]
    keys = {plain["run_key"], other_seed["run_key"], overridden["run_key"]}
    assert len(keys) == 3
    stored = [rec for _, rec in store.read_results()[0]]
    assert {r["run_key"] for r in stored} == keys  # no run replaced another
    assert overridden["run"]["overrides"] == {"n": 4} and plain["run"]["overrides"] == {}
    rows = select_rows(sorted(stored, key=lambda r: r["finished"]))
    assert len(rows) == 1 and not rows[0]["overrides"]  # the latest run without --set
    assert rows[0]["run_key"] in {plain["run_key"], other_seed["run_key"]}
    only_overridden = select_rows([overridden])
    assert only_overridden == [overridden]  # shown when it is all there is (and the row says so)


def test_record_names_its_run_provenance_and_dataset_relative_to_the_store(tmp_path):
    store = Store(tmp_path / "s")
    rec = runner.check(_claims(["toy.power"]), "quick", store, SerialExecutor(), alpha=0.02)[0]
    assert rec["run"] | {"started": None} == {"tier": "quick", "seed": 0, "replicates": None, "overrides": {},
                                              "alpha": 0.02, "checks": 1, "started": None}
    assert rec["run_key"] == runner.run_key(rec["run"]) and len(rec["run_key"]) == 12
    assert rec["provenance"]["git_commit"] == provenance.git_commit()
    assert {"numba_version", "numpy_version", "machine", "date"} <= rec["provenance"].keys()
    assert (store.root / rec["dataset"]).exists() and not Path(rec["dataset"]).is_absolute()


def test_provenance_names_blas_libraries_with_version_core_type_and_threads_cpu_flags_and_numba_threads():
    import threadpoolctl
    prov = provenance.provenance()
    loaded = {(i["internal_api"], i["version"]) for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"}
    assert loaded and loaded <= {(b["internal_api"], b["version"]) for b in prov["blas_libraries"]}
    assert all(isinstance(b["num_threads"], int) and "architecture" in b for b in prov["blas_libraries"])
    assert all(f"{b['internal_api']} {b['version'] or '?'}" in prov["blas"] for b in prov["blas_libraries"])
    assert "filepath" not in str(prov) and "/" not in prov["blas"]  # library names, not paths of this machine
    assert prov["cpu_flags"] == "not recorded" or re.search(r"\b(avx2|fma|asimd)\b|; no ", prov["cpu_flags"])
    assert re.match(r"\d+ threads, threading layer ", prov["numba_threads"]) and prov["llvmlite_version"]
    assert prov["openblas_coretype"] == os.environ.get("OPENBLAS_CORETYPE", "not set")


def test_calibration_file_merges_rows_by_claim_and_tier_keeping_the_latest_and_refuses_other_files(tmp_path):
    path = tmp_path / "calibration.json"
    old = [{"id": "toy.power", "tier": "quick", "date": "2026-01-01", "misses": 1, "runs": 20},
           {"id": "toy.power", "tier": "full", "date": "2026-01-01", "misses": 2, "runs": 20}]
    save_calibration_file(path, old)
    save_calibration_file(path, [{"id": "toy.power", "tier": "quick", "date": "2026-02-01", "misses": 0, "runs": 20}])
    rows = {(r["id"], r["tier"]): r["misses"] for r in read_calibration_file(path)}
    assert rows == {("toy.power", "quick"): 0, ("toy.power", "full"): 2}
    path.write_text(json.dumps({"not": "rows"}))
    with pytest.raises(ValueError, match="is not a list of calibration rows"):
        save_calibration_file(path, old)


@pytest.mark.slow
def test_cache_info_counts_cells_per_claim_and_clean_removes_only_cells_of_old_code(tmp_path):
    store = Store(tmp_path / "s")
    claims = _claims()
    runner.check(claims, "quick", store, SerialExecutor())
    n_cells = len(list(store.root.glob("cells/*/*.npz")))
    info = cache.cache_info(store, registry.all_claims(None, controls=True))
    assert info["cells"] == n_cells and info["old_code_cells"] == 0
    per_claim = info["cells_per_claim"]
    assert per_claim["toy.power"] + per_claim["toy.power~wrong_exponent"] == n_cells == 64  # 2 x 4 cells x 8 reps
    stale = store.cell_path("f" * 40)  # a cell whose code no claim runs any more
    store.save_cell("f" * 40, {"y": np.ones(1)}, {"sweep": "toy.power", "code_hash": "0" * 40})
    info = cache.cache_info(store, registry.all_claims(None, controls=True))
    assert info["old_code_cells"] == 1 and info["cells"] == n_cells + 1
    removed = cache.cache_clean(store, registry.all_claims(None, controls=True))
    assert removed["cells"] == 1 and not stale.exists()
    assert len(list(store.root.glob("cells/*/*.npz"))) == n_cells
    assert cache.cache_clean(store, [], everything=True)["cells"] == n_cells
    assert not (store.root / "cells").exists() and (store.root / "FORMAT").exists()


def test_calibration_rows_carry_power_against_the_control_and_are_stored(tmp_path):
    store = Store(tmp_path / "s")
    rows = runner.calibrate(_claims(), "quick", store, SerialExecutor(), seeds=3)
    by_id = {r["id"]: r for r in rows}
    claim, control = by_id["toy.power"], by_id["toy.power~wrong_exponent"]
    assert claim["power"] == 1.0 and claim["power_ci95"][0] == pytest.approx(0.292, abs=1e-3)  # 3/3, CP 95%
    assert control["power"] is None  # a control has no control of its own
    stored = store.read_calibration("quick")
    assert stored["toy.power"]["seeds"] == 3 and stored["toy.power"]["power"] == 1.0
    assert stored["toy.power"]["root_seed"] == 0 and stored["toy.power"]["tier"] == "quick"
    assert stored["toy.power"]["provenance"]["git_commit"] == provenance.git_commit()
    assert {"date", "alpha"} <= stored["toy.power"].keys()
    runner.calibrate(_claims(["toy.power"]), "quick", store, SerialExecutor(), seeds=2)
    merged = store.read_calibration("quick")
    assert merged["toy.power"]["seeds"] == 2 and merged["toy.power~wrong_exponent"]["seeds"] == 3


@pytest.mark.slow
def test_two_check_processes_on_one_store_both_finish_and_leave_nothing_corrupt(tmp_path):
    store = tmp_path / "s"
    env = {**os.environ, "SIMVERIFY_PLUGINS": "tests.toy_claims"}
    cmd = [sys.executable, "-m", "simverify.cli", "check", *TOY, "--scheduler", "serial",
           "--store", str(store)]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                              cwd=ROOT) for _ in range(2)]
    outs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [o[1][-500:] for o in outs]
    assert json.loads((store / "FORMAT").read_text())["format"] == FORMAT
    s = Store(store)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an unreadable cell warns
        for path in store.glob("cells/*/*.npz"):
            assert s.load_cell(path.stem) is not None
    records, bad = s.read_results()
    assert bad == [] and len(records) == 2  # both wrote the same run: one file per claim
    assert not list(store.rglob(".tmp-*"))


def test_power_is_the_least_as_expected_fraction_of_a_claims_controls():
    def runs(claim_id, verdicts, expected, control_of=None):
        return [{"id": claim_id, "verdict": v, "expected": expected, "control_of": control_of} for v in verdicts]
    all_runs = [runs("c", ["CONFIRMED"] * 4, "CONFIRMED"),
                runs("c~a", ["REFUTED", "REFUTED", "CONFIRMED", "REFUTED"], "REFUTED", "c"),
                runs("c~b", ["REFUTED", "CONFIRMED", "CONFIRMED", "REFUTED"], "REFUTED", "c"),
                runs("d", ["CONFIRMED"] * 4, "CONFIRMED")]
    rows = runner.with_power([{"id": r[0]["id"]} for r in all_runs], all_runs)
    by_id = {r["id"]: r for r in rows}
    assert by_id["c"]["power"] == 0.5  # c~b: 2 of 4 refuted, below c~a's 3 of 4
    lo, hi = by_id["c"]["power_ci95"]
    assert lo == pytest.approx(0.0676, abs=1e-4) and hi == pytest.approx(0.9324, abs=1e-4)  # Clopper-Pearson 2/4
    assert by_id["d"]["power"] is None and by_id["d"]["power_ci95"] is None  # no control in the run


def test_calibration_file_with_rows_lacking_counts_is_refused_naming_the_file(tmp_path):
    from simverify.store import read_calibration_file
    bad = tmp_path / "cal.json"
    bad.write_text('[{"id": "x.y", "tier": "quick", "date": "2026-01-01"}]')
    with pytest.raises(ValueError, match="cal.json is not a list of calibration rows"):
        read_calibration_file(bad)


def test_a_dataset_file_has_the_same_bytes_whether_its_cells_were_computed_or_loaded(tmp_path):
    """Fresh cells kept the measure's output order and cached ones came back in name order, so a Dataset rebuilt
    from the cache was another file (the same data, its variables in another order)."""
    store = Store(tmp_path / "s")
    claims = [registry.get("andnmf.theorem1.linear_rate")]  # outputs not in name order (error, scaled_error, ...)
    first = runner.check(claims, "quick", store, SerialExecutor(), replicates=2)[0]
    computed = Path(first["store"]).read_bytes()
    for folder in ("datasets", "results"):
        for f in sorted((store.root / folder).rglob("*"), reverse=True):
            f.unlink() if f.is_file() else f.rmdir()
    again = runner.check(claims, "quick", store, SerialExecutor(), replicates=2)[0]
    assert again["store"] == first["store"] and Path(again["store"]).read_bytes() == computed
