"""What a result means for the paper: the finding a claim carries and the outcome a verdict is reported as.

A law's verdict (CONFIRMED, REFUTED, INCONCLUSIVE) says where an interval lies against a band. What that means
for the paper depends on what was checked, and the report keeps three things apart (docs/claims.md, "Outcomes"):

* an **erratum**: a statement of the paper shown false by measurement *and* derivation (outcome REFUTED);
* a **non-reproduction**: a number or result the paper printed that our run does not reach, with what we know of
  the cause (data, protocol, implementation, rounding) (outcome NOT REPRODUCED): not evidence against the paper
  until the cause is known;
* a **loose bound**: a bound that holds, loose by a measured factor (outcome LOOSE): not a refutation.

A printed number matched at the precision printed is REPRODUCED. Exit status and calibration keep judging the law's
verdict against the expected one; the outcome is how that verdict is reported.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .stats import CONFIRMED, INCONCLUSIVE, REFUTED

ERRATUM, NOT_REPRODUCED_KIND, LOOSE_KIND = "erratum", "not reproduced", "loose"
KINDS = (ERRATUM, NOT_REPRODUCED_KIND, LOOSE_KIND)
CAUSES = ("data", "protocol", "implementation", "rounding", "unknown")

REPRODUCED, NOT_REPRODUCED, LOOSE = "REPRODUCED", "NOT REPRODUCED", "LOOSE"
OUTCOMES = (CONFIRMED, REPRODUCED, LOOSE, REFUTED, NOT_REPRODUCED, INCONCLUSIVE)
PRINTED_LAWS = ("MatchesPrinted", "MatchesPrintedMean")  # laws whose CONFIRMED means "the printed number is reached"

MEANING = {
    CONFIRMED: "the paper's statement holds as measured",
    REPRODUCED: "a number the paper printed is reached at the precision printed",
    LOOSE: "the bound holds, loose by a measured factor",
    REFUTED: "the paper's statement is false (erratum: measured and derived)",
    NOT_REPRODUCED: "a result the paper printed is not reached by our run (cause stated where known)",
    INCONCLUSIVE: "the interval straddles an edge of the band: more replicates would decide",
}
CONTROL_MEANING = ("A control is a deliberately changed variant of a claim that the check must tell apart (or, "
                   "beside an erratum, the corrected statement).")


def legend() -> str:
    """Every outcome with its meaning, then what a control is: the one legend the report's outputs show."""
    return " ".join(f"{o}: {MEANING[o]}." for o in OUTCOMES) + " " + CONTROL_MEANING


@dataclass(frozen=True)
class Finding:
    """What a claim found about the paper. ``kind``: erratum, not reproduced or loose. ``text``: what is wrong,
    what holds instead (or the printed number against ours), measured, and its exact scope. ``derivation``: how
    it was found and re-derived (for an erratum, required). ``cause``: for a non-reproduction, what we know of
    the cause (one of CAUSES)."""
    kind: str
    text: str
    derivation: str = ""
    cause: str = ""

    def __post_init__(self):
        for name in ("text", "derivation", "cause"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"a finding's {name} must be a string, got {type(getattr(self, name)).__name__}")
        if not isinstance(self.kind, str) or self.kind not in KINDS:
            raise ValueError(f"finding kind must be one of {KINDS}, got {self.kind!r}")
        if not self.text.strip():
            raise ValueError("a finding needs its text")
        if self.kind == ERRATUM and not self.derivation.strip():
            raise ValueError("an erratum needs its derivation (how the statement was shown false and re-derived)")
        if self.kind == NOT_REPRODUCED_KIND and self.cause not in CAUSES:
            raise ValueError(f"a non-reproduction names its cause, one of {CAUSES}, got {self.cause!r}")
        if self.kind != NOT_REPRODUCED_KIND and self.cause:
            raise ValueError(f"only a non-reproduction names a cause, not an {self.kind!r} finding")

    def as_record(self) -> dict:
        return {"kind": self.kind, "text": self.text, "derivation": self.derivation, "cause": self.cause}


def erratum(text: str, derivation: str) -> Finding:
    """A statement of the paper shown false: ``text`` (what is wrong, what holds, scope), ``derivation``."""
    return Finding(ERRATUM, text, derivation=derivation)


def not_reproduced(text: str, cause: str = "unknown") -> Finding:
    """A printed number or result we do not reach; ``cause`` one of CAUSES."""
    return Finding(NOT_REPRODUCED_KIND, text, cause=cause)


def loose(text: str) -> Finding:
    """A bound that holds, loose by the factor ``text`` states (measured)."""
    return Finding(LOOSE_KIND, text)


def outcome(verdict: str, law: str, finding: str | None, control: bool) -> str:
    """The outcome a verdict is reported as, from the verdict, the law's kind, the claim's finding kind (or None)
    and whether the check is a control (a control reports its verdict as it is)."""
    if control or verdict == INCONCLUSIVE:
        return verdict
    if verdict == CONFIRMED:
        return LOOSE if finding == LOOSE_KIND else REPRODUCED if law in PRINTED_LAWS else CONFIRMED
    # REFUTED blames the paper only with an erratum's derivation; any other miss (a printed number, a result, or a
    # claim expected to hold that regressed) is ours to explain
    return REFUTED if finding == ERRATUM else NOT_REPRODUCED


# -- reading verdict records (the report and the terminal share these) ------------------------------

_SENTENCE_END = re.compile(r"[.!?]\s+(?=[A-Z(\[])")
_ABBREVIATIONS = {"cf", "c.f", "e.g", "i.e", "fig", "eq", "sec", "ref", "vs", "al"}


def first_sentence(text: str | None, most: int | None = None) -> str:
    """A finding's one-line form: the first sentence of ``text`` (a full stop, ! or ? followed by a capital or an
    opening bracket; a period after an abbreviation such as "c.f.", "Fig." or "e.g." does not end it), cut at
    ``most`` characters when given."""
    text = " ".join((text or "").split())
    head = text
    for m in _SENTENCE_END.finditer(text):
        word = text[: m.start()].rsplit(" ", 1)[-1].lstrip("(").lower()
        if word not in _ABBREVIATIONS:
            head = text[: m.start() + 1]
            break
    return head if most is None or len(head) <= most else head[:most - 4].rstrip() + " ..."


def as_expected(rec: dict) -> bool:
    """Whether a verdict record's verdict is the one its claim expects."""
    return rec["verdict"] == rec["expected"]


def record_finding(rec: dict) -> dict | None:
    """A record's finding ({kind, text, derivation, cause}) or None; for a record written before findings, its
    erratum as one."""
    if rec.get("finding"):
        return rec["finding"]
    if rec.get("erratum"):
        return {"kind": ERRATUM, "text": rec["erratum"], "derivation": "", "cause": ""}
    return None


def record_outcome(rec: dict) -> str:
    """A record's outcome, or for a record written before outcomes, the one its verdict, law and erratum imply."""
    if rec.get("outcome"):
        return rec["outcome"]
    found = record_finding(rec)
    return outcome(rec["verdict"], rec.get("law", ""), found and found["kind"], bool(rec.get("control_of")))
