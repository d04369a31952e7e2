"""What the report shows, as data: counts by verdict, the papers' refuted statements, run and provenance
summaries, and changes against an older store."""
from __future__ import annotations

import re
from collections import Counter

from ..stats import CONFIRMED, INCONCLUSIVE, REFUTED, format_number

VERDICTS = (CONFIRMED, REFUTED, INCONCLUSIVE)
NOT_RECORDED = "not recorded"


def fmt(x) -> str:
    return format_number(x, 4)


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


def as_expected(rec: dict) -> bool:
    return rec["verdict"] == rec["expected"]


_SENTENCE_END = re.compile(r"\.\s+(?=[A-Z])")
_ABBREVIATIONS = {"cf", "c.f", "e.g", "i.e", "fig", "eq", "sec", "ref", "vs", "al"}


def first_sentence(text: str | None) -> str:
    """The erratum's first sentence (its one-line form); a period after an abbreviation ("c.f.",
    "Fig.", "e.g.") does not end it."""
    if not text:
        return ""
    text = " ".join(text.split())
    for m in _SENTENCE_END.finditer(text):
        word = text[: m.start()].rsplit(" ", 1)[-1].lstrip("(").lower()
        if word not in _ABBREVIATIONS:
            return text[: m.start() + 1]
    return text


def level(x) -> str:
    """A confidence level with the digits that matter (0.99985, not 1)."""
    return format_number(x, 6)


def paper_counts(records: list[dict]) -> dict[str, dict]:
    """Per paper: the paper's own claims by verdict ("claims", CONFIRMED, ...), its statements refuted as
    printed ("errata"), the negative controls ("controls") and how many checks came out as expected."""
    out: dict[str, dict] = {}
    for r in records:
        c = out.setdefault(r["paper"], {"checks": 0, "claims": 0, "controls": 0, "errata": 0, "as_expected": 0,
                                        **{v: 0 for v in VERDICTS}})
        c["checks"] += 1
        c["as_expected"] += as_expected(r)
        if r.get("control_of"):
            c["controls"] += 1
        else:
            c["claims"] += 1
            c[r["verdict"]] = c.get(r["verdict"], 0) + 1
            c["errata"] += bool(r.get("erratum"))
    return out


_MEANING = {CONFIRMED: "the interval lies inside the band", REFUTED: "the interval misses the band entirely",
            INCONCLUSIVE: "the interval straddles an edge of the band"}


def verdict_sentence(rec: dict) -> str:
    """What the verdict says, in words, and whether it is the one expected."""
    v, e = rec["verdict"], rec["expected"]
    text = f"{v}: {_MEANING.get(v, 'see the record')} ({interval(rec)} against {band(rec)})"
    text += ", as expected." if v == e else f"; expected {e}: NOT as expected."
    if rec.get("control_of"):
        text += (f" This is a negative control of {rec['control_of']}: a variant the check must tell apart "
                 "from the claim (its power).")
    elif rec.get("erratum") and v == REFUTED:
        text += " The statement as printed does not hold: see the erratum."
    return text


def refuted_statements(records: list[dict]) -> list[dict]:
    """The papers' statements refuted as printed: claims (not controls) with an erratum."""
    return [r for r in records if r.get("erratum") and not r.get("control_of")]


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
            "machine": "machine"}


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


def changes(new: list[dict], old: list[dict]) -> list[dict]:
    """Per (claim, tier) in both: a changed verdict, or an interval that moved (disjoint from the old
    one, or an estimate shifted by more than the old half-width)."""
    before = {(r["id"], r["tier"]): r for r in old}
    out = []
    for r in new:
        o = before.get((r["id"], r["tier"]))
        if o is None:
            continue
        kinds = []
        if r["verdict"] != o["verdict"]:
            kinds.append(f"verdict {o['verdict']} -> {r['verdict']}")
        try:
            half = (o["ci"][1] - o["ci"][0]) / 2
            disjoint = r["ci"][0] > o["ci"][1] or r["ci"][1] < o["ci"][0]
            if disjoint or abs(r["estimate"] - o["estimate"]) > half:
                kinds.append(f"interval moved {interval(o)} -> {interval(r)}")
        except (TypeError, KeyError, IndexError):
            pass
        if kinds:
            out.append({"id": r["id"], "tier": r["tier"], "change": "; ".join(kinds), "old": o, "new": r})
    return out
