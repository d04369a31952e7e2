"""Claim parameters declared as data (simverify.parameters): the constraints, the one check every cell goes through
when a run is planned (before the paper's validate), each paper's declarations, and one-line refusals."""
import importlib

import pytest

from simverify import registry, sweep
from simverify.claims import Citation, Claim, Control, Grid, Sweep, Tier
from simverify.laws import Identity
from simverify.paper import Paper
from simverify.parameters import (
    Checkpoints,
    Exactly,
    FilePath,
    Labeled,
    ListOf,
    OneOrList,
    check_declarations,
    check_parameters,
)
from simverify.validation import Boolean, Integer, Options, Real

PAPERS = ("andnmf", "bitsubspace", "crowd", "onebit", "slm")
FROM_0 = "parameter x must be increasing checkpoints from 0 ([0, 1, ..., S])"


def refusal(constraints, params) -> str:
    with pytest.raises(ValueError) as err:
        check_parameters(constraints, params)
    text = str(err.value)
    assert "\n" not in text, text
    return text


@pytest.mark.parametrize("spec, value", [
    (OneOrList(Integer(1)), 3), (OneOrList(Integer(1)), [1, 2]), (OneOrList(Real(0.0, 1.0)), [0.0, 1]),
    (ListOf(Options("mv", "kos")), ["kos", "mv"]), (ListOf(Integer(0), non_empty=False), []),
    (Checkpoints(first=0), [0, 2, 7]), (Checkpoints(first=0, consecutive=True, last="T"), [0, 1, 2]),
    (Checkpoints(), [3, 9]), ([Integer(1), Checkpoints(least=1)], 5), ([Integer(1), Checkpoints(least=1)], [5, 8]),
    ([Exactly(0), Real(1.0, 1e6)], 0), ([Exactly(0), Real(1.0, 1e6)], 2.5), ([None, Real(-100.0, 300.0)], None),
    (FilePath(), ""), (FilePath(optional=False), "rte"), (Labeled(Real(0.0, 1.0), "p"), 0.5),
])
def test_values_inside_their_constraint_pass(spec, value):
    check_parameters({"x": spec}, {"x": value})


@pytest.mark.parametrize("spec, value, message", [
    (Integer(1), 0, "parameter x must be a positive integer, got 0"),
    (Integer(1), True, "parameter x must be a positive integer, got True"),
    (Real(0.0, 1.0), 2, "parameter x must be a finite number in [0, 1], got 2"),
    (Real(0.0, 1.0), "0.5", "parameter x must be a finite number in [0, 1], got '0.5'"),
    (Options("printed", "zero"), "bogus", "parameter x must be one of ['printed', 'zero'], got 'bogus'"),
    (Boolean(), 1, "parameter x must be True or False, got 1"),
    (OneOrList(Integer(1)), [1, 0], "parameter x must be a positive integer or a non-empty list of them, got [1, 0]"),
    (OneOrList(Integer(1)), [], "parameter x must be a positive integer or a non-empty list of them, got []"),
    (OneOrList(Options("a", "b")), ["a", "c"], "parameter x: unknown 'c' (one of a, b)"),
    (ListOf(Options("mv", "kos")), ["mv", "nope"], "parameter x: unknown 'nope' (one of mv, kos)"),
    (ListOf(Options("mv", "kos")), "mv",
     "parameter x must be a non-empty list of entries from ['mv', 'kos'], got 'mv'"),
    (ListOf(Options("mv", "kos")), [], "parameter x must be a non-empty list of entries from ['mv', 'kos'], got []"),
    (ListOf(Integer(0)), [1, -1], "parameter x must be a non-empty list of entries each an integer >= 0, got [1, -1]"),
    (Checkpoints(first=0), [0, 2, 1], f"{FROM_0}, got [0, 2, 1]"),
    (Checkpoints(first=0), [3, 4], f"{FROM_0}, got [3, 4]"),
    (Checkpoints(first=0), [0, True], f"{FROM_0}, got [0, True]"),
    (Checkpoints(first=0, consecutive=True, last="T"), [0, 2], "parameter x must be the checkpoints [0, 1, ..., T], "
                                                                "got [0, 2]"),
    (Checkpoints(), [0, 0], "parameter x must be strictly increasing non-negative checkpoints, got [0, 0]"),
    (Checkpoints(), 3, "parameter x must be strictly increasing non-negative checkpoints, got 3"),
    ([Integer(1), Checkpoints(least=1)], [64000, 32000],
     "parameter x must be a positive integer or strictly increasing positive checkpoints, got [64000, 32000]"),
    ([Exactly(0), Real(1.0, 1e6)], 0.5, "parameter x must be 0 or a finite number in [1, 1e+06], got 0.5"),
    ([Exactly(0), Real(1.0, 1e6)], False, "parameter x must be 0 or a finite number in [1, 1e+06], got False"),
    ([None, Real(-100.0, 300.0)], 1000.0, "parameter x must be None or a finite number in [-100, 300], got 1000.0"),
    (FilePath(), 5, "parameter x must be a file path ('' for the default), got 5"),
    (FilePath(optional=False, what="a shipped set ['rte'] or a file path"), "",
     "parameter x must be a shipped set ['rte'] or a file path, got ''"),
    (Labeled(Real(0.0, 1.0), "p"), 2, "parameter x (p) must be a finite number in [0, 1], got 2"),
    (Labeled(ListOf(Options("a")), "names"), ["b"], "parameter x (names): unknown 'b' (one of a)"),
])
def test_a_value_outside_its_constraint_is_refused_in_one_line(spec, value, message):
    assert refusal({"x": spec}, {"x": value}) == message


def test_only_declared_parameters_the_cell_has_are_checked_in_declaration_order():
    declared = {"a": Integer(1), "b": Real(0.0, 1.0), "c": Options("x")}
    check_parameters(declared, {"b": 0.5, "undeclared": object()})
    assert refusal(declared, {"c": "y", "b": 2.0, "a": 0}).startswith("parameter a must be")


def test_a_long_value_is_cut_to_one_short_line():
    text = refusal({"x": OneOrList(Integer(1))}, {"x": list(range(-1, 200))})
    assert len(text) < 160 and text.endswith("...")


@pytest.mark.parametrize("declared", [("a", "b"), "a positive integer", [Integer(1), int.__add__],
                                      ListOf(("a", "b")), Labeled(3, "gloss")])
def test_a_declaration_the_engine_cannot_check_is_refused_naming_the_parameter(declared):
    with pytest.raises(TypeError, match="demo: parameter 'kind'"):
        check_declarations("demo", {"kind": declared})


# ---- papers ---------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("key", PAPERS)
def test_every_paper_declares_its_parameters_in_the_vocabulary_and_its_claims_inherit_them(key):
    paper = importlib.import_module(f"theorems.{key}").PAPER
    assert paper.parameters, key
    check_declarations(key, paper.parameters)
    claims = registry.all_claims(key)  # controls included
    assert claims and all(c.parameters is paper.parameters for c in claims), key


HOSTILE = (object(), [[1]], {"a": 1}, float("nan"))  # wrong in type for every declared parameter


@pytest.mark.parametrize("key", PAPERS)
def test_a_value_wrong_in_type_is_refused_for_every_declared_parameter_in_one_line(key):
    declared = importlib.import_module(f"theorems.{key}").PAPER.parameters
    for name in declared:
        for value in HOSTILE:
            assert refusal(declared, {name: value}).startswith(f"parameter {name}"), (key, name, value)


@pytest.mark.parametrize("claim_id, overrides, message", [
    ("onebit.lemma1.rate_m", {"d2": 1}, "parameter d2 (number of labels) must be an integer >= 2, got 1"),
    ("onebit.theorem2.bound_d1", {"m": 0}, "parameter m must be a positive integer"),
    ("onebit.theorem1.rate_m", {"flip_prob": 1.5},
     "parameter flip_prob (p) must be a finite number in [0, 1], got 1.5"),
    ("onebit.theorem2.bound_k", {"spectral_distance": 3.0},
     "parameter spectral_distance (||W - W'||_2) must be a finite number in [1e-12, 2], got 3.0"),
    ("bitsubspace.theorem2.all_bits", {"c": -1.0}, "parameter c must be a finite number in (0, inf), got -1.0"),
    ("bitsubspace.theorem2.all_bits", {"rule": "foo"}, "parameter rule must be one of ['printed', 'corrected'], "
                                                       "got 'foo'"),
    ("bitsubspace.figure6.resolves", {"setting": ["z"]}, "parameter setting must be one of ['a', 'b', 'c'], got 'z'"),
    ("bitsubspace.section5.warm_start", {"warm_start": -3}, "parameter warm_start must be an integer >= 0, got -3"),
    ("bitsubspace.section5.warm_start", {"m": [500, 800]}, "warm_start must be an integer in [0, largest m = 800)"),
    ("bitsubspace.figure5.online_corrected", {"m": [64000, 32000]},
     "parameter m must be a positive integer or strictly increasing positive checkpoints, got [64000, 32000]"),
    ("bitsubspace.proposition1.rate_T", {"effrank": [-2.0, 4.0]},
     "parameter effrank (effective rank Tr(Sigma)/||Sigma||_F) must be a finite number in [1, inf), got -2.0"),
    ("bitsubspace.figure6.resolves", {"r_est": 50}, "tracked rank r_est=50 exceeds"),
    ("crowd.theorem3.linear_rate", {"start": "bogus"}, "parameter start must be one of ['identity', 'near'], "
                                                       "got 'bogus'"),
    ("crowd.table4.bluebird.mv", {"aggregator": ["mv", "nope"]}, "parameter aggregator: unknown 'nope' (one of mv, "),
    ("crowd.table5.rte.mv", {"answers": ""}, "parameter answers must be a shipped set ['bluebird', 'rte', 'web', "
                                             "'temp', 'dog', 'trec', 'labelme'] or a file path, got ''"),
    ("andnmf.figure2.constant_stalls", {"alpha": -0.1}, "parameter alpha must be a finite number in [0, 1e+06]"),
    ("andnmf.theorem1.sigma", {"stage": [0, 2, 1]}, "parameter stage must be increasing checkpoints from 0"),
    ("slm.lemma7.tau", {"tau": [0.1, 2.5]}, "parameter tau (two-point MIP constant) must be a finite number in "
                                            "[1e-06, 2] or a non-empty list of them, got [0.1, 2.5]"),
])
def test_bad_values_are_refused_when_planned_naming_the_parameter(claim_id, overrides, message):
    with pytest.raises(ValueError) as err:
        sweep.plan(registry.get(claim_id), "quick", overrides=overrides)
    assert message in str(err.value) and "\n" not in str(err.value)


# ---- the engine -----------------------------------------------------------------------------------------------------

def measure(seed, *, x: float, shift: float = 0.0) -> dict:
    return {"y": x + shift}


SWEEP = Sweep("demo.parameters", measure, {"quick": Tier(Grid({"x": [1.0, 2.0]}), 2, {"shift": 0.0}),
                                           "full": Tier(Grid({"x": [1.0, 2.0, 4.0]}), 2, {"shift": 0.0})})
NEGATIVE = Control("shifted", "y = x + 1", fixed={"shift": 1.0})
FIELDS = {"item": "Demo 1", "statement": "y = x", "formula": "y = x", "law": Identity("y", "x"), "sweep": SWEEP}
DECLARED = {"x": Real(0.0, 3.0), "shift": Labeled(Real(0.0, 1.0), "offset")}


@pytest.fixture
def empty_registry(monkeypatch):
    monkeypatch.setattr(registry, "_CLAIMS", {})
    monkeypatch.setattr(registry, "_CITATIONS", {})
    monkeypatch.setattr(registry, "_NOT_CHECKED", {})
    monkeypatch.setattr(registry, "_LOADED", True)


def test_claims_and_their_controls_inherit_the_papers_parameters(empty_registry):
    paper = Paper("demo", "A demo paper", Citation("A. Author", "A demo paper", "Nowhere", 2020), parameters=DECLARED)
    claim = paper.claim("identity", controls=(NEGATIVE,), **FIELDS)
    assert claim.parameters is DECLARED and registry.get("demo.identity~shifted").parameters is DECLARED
    assert Paper("bare", "No parameters", paper.citation).parameters == {}


def test_plan_checks_every_cell_against_the_declared_parameters_before_validate():
    seen = []
    claim = Claim("demo.c", "demo", controls=(NEGATIVE,), parameters=DECLARED, validate=seen.append, **FIELDS)
    plan = sweep.plan(claim, "quick")
    assert [t.params for t in plan.tasks[::2]] == [{"x": 1.0, "shift": 0.0}, {"x": 2.0, "shift": 0.0}] == seen
    seen.clear()
    with pytest.raises(ValueError, match=r"^parameter x must be a finite number in \[0, 3\], got 4.0$"):
        sweep.plan(claim, "full")
    assert [p["x"] for p in seen] == [1.0, 2.0]  # the refused cell never reached validate
    with pytest.raises(ValueError, match=r"^parameter shift \(offset\) must be a finite number in \[0, 1\], got 2.0$"):
        sweep.plan(claim, "quick", overrides={"shift": 2.0})
    control = claim.with_control(Control("far", "shift 5", fixed={"shift": 5.0}))
    with pytest.raises(ValueError, match=r"^parameter shift \(offset\)"):
        sweep.plan(control, "quick")


def test_a_claim_declaring_no_parameters_plans_as_before():
    claim = Claim("demo.c", "demo", controls=(NEGATIVE,), **FIELDS)
    assert claim.parameters == {} and len(sweep.plan(claim, "full").tasks) == 6
