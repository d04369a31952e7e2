"""Print the speed goals of the papers as ratios read from one asv run.

    python asv_bench/ratios.py [--results DIR] [--commit HASH]

For every pair ``time_ours_X`` / ``time_numpy_X`` of the run (the latest results file of the given or
newest commit): both times, the speedup and the goal; then every ``track_fraction_of_limit_*`` (the
kernel's time at the cost-model limit divided by its measured time) and the ``peakmem_*`` values.
Exit status 2, with one line, when there are no results.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

# speedup over the NumPy reference
GOALS = {"standard_normal_1e7": 3.0, "surrogate_n100_m1e6": 5.0, "algorithm1_paper_size": 15.0,
         "iteration_paper_size": 10.0}


def _latest(results: Path, commit: str | None) -> Path:
    files = [p for p in results.glob("*/*.json") if p.name != "machine.json"]
    if commit:
        files = [p for p in files if p.name.startswith(commit[:8])]
    if not files:
        raise FileNotFoundError(f"no asv results{' for commit ' + commit if commit else ''} in {results}; "
                                "run 'asv run --python=same' in asv_bench first")
    return max(files, key=lambda p: p.stat().st_mtime)


def values(path: Path) -> dict[str, float]:
    """Benchmark name (without its module and class) -> its value (the first parameter's result)."""
    data = json.loads(path.read_text())
    columns = data.get("result_columns", ["result"])
    out = {}
    for name, entry in data.get("results", {}).items():
        row = dict(zip(columns, entry)) if isinstance(entry, list) else {"result": entry}
        value = row.get("result")
        while isinstance(value, list):
            value = value[0] if value else None
        if value is not None:
            out[name.rsplit(".", 1)[-1]] = float(value)
    return out


def table(v: dict[str, float]) -> list[str]:
    lines = [f"{'pair':<28} {'ours (s)':>10} {'numpy (s)':>10} {'speedup':>8} {'goal':>6}  status"]
    for name in sorted(k[len("time_ours_"):] for k in v if k.startswith("time_ours_")):
        ours, ref = v.get(f"time_ours_{name}"), v.get(f"time_numpy_{name}")
        if ref is None:
            continue
        goal = GOALS.get(name)
        status = "" if goal is None else ("MET" if ref / ours >= goal else "NOT MET")
        lines.append(f"{name:<28} {ours:>10.4g} {ref:>10.4g} {ref / ours:>7.2f}x {goal or '':>6}  {status}")
    lines.append("")
    lines.append(f"{'kernel':<52} fraction of the cost-model limit")
    lines += [f"{k[len('track_fraction_of_limit_'):]:<52} {x:.2f}" for k, x in sorted(v.items())
              if k.startswith("track_fraction_of_limit_")]
    lines.append("")
    lines += [f"{k:<52} {x / 2**20:.0f} MiB" for k, x in sorted(v.items()) if k.startswith("peakmem_")]
    return lines + slm_goals(v) + nmf_goals(v) + crowd_goals(v)


def slm_goals(v: dict[str, float]) -> list[str]:
    """slm's baseline (bench_slm.ALSSweepPaperSize): one ALS sweep against fastFM's loop structure on the same
    matrix (goal: ratio <= 1, at most fastFM's cost per nonzero)."""
    ratio = v.get("track_als_sweep_over_fastfm_loop")
    if not ratio:
        return []
    ours, ref = v.get("time_ours_als_sweep_paper_size", float("nan")), v.get("time_fastfm_loop_als_sweep_paper_size",
                                                                          float("nan"))
    return ["", "slm (Figure 1's factorization machine, d = 1000, k = 10, n = 300,000)",
            f"  ALS sweep {ours:.3g} s, fastFM's loop {ref:.3g} s: ratio {ratio:.2f} (goal <= 1) "
            f"{'MET' if ratio <= 1 else 'NOT MET'}"]


def nmf_goals(v: dict[str, float]) -> list[str]:
    """andnmf's goals (bench_andnmf.py): AND's time to 1e-3 against scikit-learn cd's time to its best error,
    and our MU / HALS per sweep against scikit-learn's mu / cd (each goal: ratio >= 1); one ANLS sweep against one
    HALS sweep (goal: ratio <= 3)."""
    if "track_time_and_to_1e3" not in v:
        return []
    out = ["", "andnmf (DIR, W = 1000, D = 100, N = 5000)"]
    t_and, t_cd = v["track_time_and_to_1e3"], v.get("track_time_sklearn_cd_to_its_best", float("nan"))
    ratio = v.get("track_and_speedup_over_sklearn_cd", float("nan"))
    out.append(f"  AND to 1e-3: {t_and:.3g} s (error {v.get('track_error_and', float('nan')):.3g}); sklearn cd to "
               f"its best: {t_cd:.3g} s (error {v.get('track_error_sklearn_cd_best', float('nan')):.3g}); ratio "
               f"{ratio:.2f} {'MET' if ratio >= 1 else 'NOT MET'}")
    for ours, theirs in (("mu", "mu"), ("hals", "cd")):
        a, b = v.get(f"track_time_ours_{ours}_sweep"), v.get(f"track_time_sklearn_{theirs}_sweep")
        if a and b:
            out.append(f"  {ours} per sweep {a:.3g} s, sklearn {theirs} {b:.3g} s: ratio {b / a:.2f} "
                       f"{'MET' if b / a >= 1 else 'NOT MET'}")
    anls = v.get("track_anls_sweep_over_hals_sweep")
    if anls:
        out.append(f"  ANLS sweep over HALS sweep: {anls:.2f} (goal <= 3) {'MET' if anls <= 3 else 'NOT MET'}")
    return out


def crowd_goals(v: dict[str, float]) -> list[str]:
    """crowd's goals (bench_crowd.py): RobSymNMF (MAP, and with EM) against crowd-kit's DawidSkene on 20,000 x 10 x
    3 (ratio >= 10 at equal or better accuracy) and the TREC-size times."""
    if "track_time_robsymnmf" not in v:
        return []
    out = ["", "crowd (20,000 items x 10 annotators x 3 classes)"]
    ck_time, ck_err = v.get("track_time_crowdkit_dawidskene"), v.get("track_error_crowdkit_dawidskene")
    for name, key in (("RobSymNMF", "robsymnmf"), ("RobSymNMF-EM", "robsymnmf_em")):
        t, err = v[f"track_time_{key}"], v.get(f"track_error_{key}", float("nan"))
        if ck_time is None:
            out.append(f"  {name}: {t:.3g} s, error {err:.3g} %; crowd-kit not installed")
            continue
        ratio = ck_time / t
        met = ratio >= 10 and err <= ck_err + 1e-9
        out.append(f"  {name}: {t:.3g} s, error {err:.3g} %; crowd-kit DawidSkene {ck_time:.3g} s, error "
                   f"{ck_err:.3g} %: {ratio:.1f}x {'MET' if met else 'NOT MET'}")
    trec = {k: x for k, x in v.items() if k.startswith("time_ours_") and k.endswith("_trec")}
    out += [f"  TREC size, {k[len('time_ours_'):-len('_trec')]}: {x:.3g} s" for k, x in sorted(trec.items())]
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--results", default=str(Path(__file__).resolve().parent / "results"))
    p.add_argument("--commit")
    args = p.parse_args(argv)
    try:
        path = _latest(Path(args.results), args.commit)
    except FileNotFoundError as exc:
        sys.stderr.write(f"ratios: {exc}\n")
        return 2
    print(f"# {path}")
    print("\n".join(table(values(path))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
