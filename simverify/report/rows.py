"""What the report shows, as data: counts by verdict, the papers' refuted statements, run and provenance
summaries, and changes against an older store."""
from __future__ import annotations

from collections import Counter

from .. import findings
from ..claims import TIERS
from ..findings import OUTCOMES
from ..stats import CONFIRMED, INCONCLUSIVE, REFUTED, format_number

VERDICTS = (CONFIRMED, REFUTED, INCONCLUSIVE)
NOT_RECORDED = "not recorded"


outcome = findings.record_outcome  # what a record's verdict means for the paper
finding = findings.record_finding  # a record's finding, or None
first_sentence = findings.first_sentence
as_expected = findings.as_expected


def fmt(x) -> str:
    return format_number(x, 4)


def _size(value, depth: int = 0) -> str:
    """A declared value in a line: numbers as fmt, a list of more than five as its ends and its length, lists
    nested deeper than two as [...]."""
    if isinstance(value, list):
        if depth >= 2:
            return "[...]"
        shown = value if len(value) <= 5 else [*value[:2], "...", value[-1]]
        text = "[" + ", ".join(v if v == "..." else _size(v, depth + 1) for v in shown) + "]"
        return text if len(value) <= 5 else f"{text} ({len(value)} values)"
    return fmt(value) if isinstance(value, float) else str(value)  # an int in full: n 300000


def tier_sizes_text(rec: dict, sizes: dict | None = None) -> str | None:
    """What the record's tier is to the paper's sizes, one line, from ``sizes`` (Sweep.tier_sizes; default the
    record's ``tier_sizes``), with this run's replicates and --set values; None when unknown."""
    sizes, tier = rec.get("tier_sizes") if sizes is None else sizes, rec.get("tier")
    if not isinstance(sizes, dict) or tier not in TIERS or not all(isinstance(sizes.get(t), dict) for t in TIERS):
        return None
    other = "full" if tier == "quick" else "quick"
    here, there = sizes[tier], sizes[other]
    params = [k for k in dict.fromkeys([*here, *there]) if k != "replicates"]
    pairs = ", ".join(f"{k} {_size(here[k]) if k in here else 'default'} ({other}: "
                      f"{_size(there[k]) if k in there else 'default'})" for k in params)
    run = rec.get("run") if isinstance(rec.get("run"), dict) else {}
    reps = rec.get("replicates") if isinstance(rec.get("replicates"), int) else here.get("replicates")
    forced = run.get("replicates") is not None
    reps_text = ((f"{reps} replicates" + (" (--replicates)" if forced else "")
                  + (f" ({other}: {there['replicates']})" if "replicates" in there else ""))
                 if reps is not None and ("replicates" in there or forced) else "")
    overrides = rec.get("overrides") if isinstance(rec.get("overrides"), dict) else {}
    sets = "this run: --set " + ", ".join(f"{k}={_size(v)}" for k, v in overrides.items()) if overrides else ""
    tail = "".join(f"; {t}" for t in (reps_text, sets) if t)
    if not params:
        return "the paper's sizes at both tiers" + tail
    if tier == "quick":
        return (f"quick tier, standing in for the paper's sizes: {pairs}{tail}. The paper's own sizes are judged at "
                "the full tier.")
    return f"full tier, the paper's sizes: {pairs}{tail}."


def printed_table(table: dict) -> tuple[list[str], list[list[str]]]:
    """A claim's printed table beside its measurement (the record's ``table``): the header (title, then the
    columns) and, per row of the paper's table, a row as printed followed by the row as measured."""
    unit = f" ({table['unit']})" if table.get("unit") else ""
    body = []
    for row in table["rows"]:
        body.append([f"{row['name']}: printed", *map(fmt, row["printed"])])
        body.append([f"{row['name']}: measured", *map(fmt, row["measured"])])
    return [f"{table['title']}{unit}", *table["columns"]], body


def interval(rec: dict) -> str:
    return f"{fmt(rec['estimate'])} [{fmt(rec['ci'][0])}, {fmt(rec['ci'][1])}]"


def band(rec: dict) -> str:
    b = rec.get("band")
    return f"[{fmt(b[0])}, {fmt(b[1])}]" if b else NOT_RECORDED








def level(x) -> str:
    """A confidence level with the digits that matter (0.99985, not 1)."""
    return format_number(x, 6)


def paper_counts(records: list[dict]) -> dict[str, dict]:
    """Per paper: the paper's own claims by outcome ("claims", CONFIRMED, REPRODUCED, ...), the controls and how
    many checks came out as expected."""
    out: dict[str, dict] = {}
    for r in records:
        c = out.setdefault(r["paper"], {"checks": 0, "claims": 0, "controls": 0, "as_expected": 0,
                                        **{v: 0 for v in OUTCOMES}})
        c["checks"] += 1
        c["as_expected"] += as_expected(r)
        if r.get("control_of"):
            c["controls"] += 1
        else:
            c["claims"] += 1
            c[outcome(r)] = c.get(outcome(r), 0) + 1
    return out


_MEANING = {CONFIRMED: "the interval lies inside the band", REFUTED: "the interval misses the band entirely",
            INCONCLUSIVE: "the interval straddles an edge of the band"}


def verdict_sentence(rec: dict) -> str:
    """What the outcome says, in words, the interval against the band, and whether it is the one expected."""
    v, e, o = rec["verdict"], rec["expected"], outcome(rec)
    text = f"{o}: {findings.MEANING.get(o, 'see the record')}" if not rec.get("control_of") else v
    text += f" ({_MEANING.get(v, 'see the record')}: {interval(rec)} against {band(rec)})"
    text += ", as expected." if v == e else f"; expected {e}: NOT as expected."
    if rec.get("control_of"):
        text += (f" This is a control of {rec['control_of']}: a variant the check must tell apart from the claim "
                 "(its power), or, for a claim the paper gets wrong, the corrected statement.")
    return text


def with_outcome(records: list[dict], *wanted: str) -> list[dict]:
    """The papers' own claims (not controls) whose outcome is one of ``wanted``."""
    return [r for r in records if not r.get("control_of") and outcome(r) in wanted]


def refuted_statements(records: list[dict]) -> list[dict]:
    """The papers' statements shown false: claims (not controls) whose outcome is REFUTED (an erratum)."""
    return with_outcome(records, REFUTED)


def paper_paragraph(records: list[dict]) -> dict[str, list[dict] | int]:
    """One paper's findings in three parts: how many claims hold (confirmed, reproduced, loose), the errata
    (REFUTED) and the results we did not reproduce (NOT REPRODUCED), each a list of records."""
    counts = {o: len(with_outcome(records, o)) for o in OUTCOMES}
    return {"holds": counts[CONFIRMED] + counts[findings.REPRODUCED], "confirmed": counts[CONFIRMED],
            "reproduced": counts[findings.REPRODUCED], "loose": with_outcome(records, findings.LOOSE),
            "errata": with_outcome(records, REFUTED), "not_reproduced": with_outcome(records, findings.NOT_REPRODUCED),
            "inconclusive": with_outcome(records, INCONCLUSIVE)}


def paper_summary_text(records: list[dict]) -> str:
    """The paragraph's plain-text form: what holds, what is wrong, what we could not reproduce."""
    p = paper_paragraph(records)
    parts = [f"{p['confirmed']} claim{'s' * (p['confirmed'] != 1)} confirmed"]
    if p["reproduced"]:
        parts.append(f"{p['reproduced']} printed number{'s' * (p['reproduced'] != 1)} reproduced")
    if p["loose"]:
        parts.append(f"{len(p['loose'])} bound{'s' * (len(p['loose']) != 1)} holding but loose")
    text = "Holds: " + ", ".join(parts) + "."
    text += f" Wrong in the paper (errata): {len(p['errata'])}." if p["errata"] else " No erratum found."
    if p["not_reproduced"]:
        text += f" Not reproduced by us: {len(p['not_reproduced'])} (cause stated on each)."
    if p["inconclusive"]:
        text += f" Inconclusive: {len(p['inconclusive'])}."
    return text


def overrides(rec: dict) -> dict:
    """The ``--set`` overrides of the record's run (older records keep them at the top level)."""
    return (rec.get("run") or {}).get("overrides") or rec.get("overrides") or {}


def deviations(rec: dict) -> list[str]:
    """The run's settings that differ from the tier's defaults: --replicates and --set (highlighted)."""
    out = []
    replicates = (rec.get("run") or {}).get("replicates")
    if replicates is not None:
        out.append(f"--replicates {replicates}")
    out += [f"--set {k}={v}" for k, v in overrides(rec).items()]
    return out


def run_label(rec: dict) -> str:
    """Which run a record comes from: run key, root seed, and settings that differ from the tier's."""
    seed = (rec.get("run") or {}).get("seed", rec.get("seed"))
    return ", ".join([f"run {rec.get('run_key', NOT_RECORDED)}", f"seed {NOT_RECORDED if seed is None else seed}",
                      *deviations(rec)])


SOFTWARE = {"git_commit": "git commit", "simverify_version": "simverify", "python_version": "Python",
            "numba_version": "Numba", "numpy_version": "NumPy", "scipy_version": "SciPy", "xarray_version": "xarray",
            "machine": "machine", "llvmlite_version": "llvmlite", "cpu_flags": "CPU flags (numerics)",
            "blas": "BLAS (version; core type, threading, threads; library)", "numba_threads": "Numba threads",
            "openblas_coretype": "OPENBLAS_CORETYPE", "numerics_environment": "BLAS/Numba environment"}


def software_summary(records: list[dict]) -> dict[str, str]:
    """Each provenance field with the distinct values seen across the records (one value, typically)."""
    out = {}
    for f, label in SOFTWARE.items():
        values = Counter(str((r.get("provenance") or {}).get(f) or NOT_RECORDED) for r in records)
        out[label] = ", ".join(values)
    dates = sorted(str((r.get("provenance") or {}).get("date") or r.get("finished", "")) for r in records)
    out["run dates"] = f"{dates[0]} .. {dates[-1]}" if dates and dates[0] != dates[-1] else (dates[0] if dates else "")
    return out


def _number_first(v) -> tuple:
    return (not isinstance(v, int | float), v if isinstance(v, int | float) else 0, str(v))


def run_summary(records: list[dict]) -> dict[str, str]:
    """The run settings across the records: tiers, root seeds, replicates, overrides, alpha, levels."""
    def distinct(values) -> str:
        return ", ".join(dict.fromkeys(NOT_RECORDED if v is None else str(v) for v in values)) or NOT_RECORDED
    runs = [r.get("run") or {} for r in records]
    deviating = [f"{r['id']}: {' '.join(deviations(r))}" for r in records if deviations(r)]
    return {"tier": distinct(r["tier"] for r in records), "root seed": distinct(r.get("seed") for r in records),
            "replicates per cell": distinct(sorted({r.get("replicates") for r in records}, key=_number_first)),
            "alpha (family-wise)": distinct(run.get("alpha", NOT_RECORDED) for run in runs),
            "per-claim level": distinct(level(r.get("confidence_level")) if r.get("confidence_level") is not None
                                        else None for r in records),
            "--set overrides, --replicates": "; ".join(deviating) or "none (tier defaults)"}
