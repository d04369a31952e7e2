"""The public estimators' docstrings: numpydoc sections (Parameters, Attributes, Examples and, where the estimator
implements a paper, References), a Parameters section that agrees with ``_parameter_constraints`` and ``__init__``
(every name, and each default as the signature has it), and Examples that run as doctests."""
from __future__ import annotations

import ast
import doctest
import importlib
import inspect
import pkgutil
import re

import pytest

from simverify.solvers import bitsubspace, factorization_machine, nmf, nmf_examples, nmf_sklearn
from simverify.solvers.crowd import estimators

# the crowd estimators are one per module (crowd-kit's convention): every module of that package
CROWD = [importlib.import_module(f"{estimators.__name__}.{m.name}") for m in pkgutil.iter_modules(estimators.__path__)]
EXAMPLE_DATA = [importlib.import_module(f"{estimators.__name__}.examples"), nmf_examples]
# what discovery must find at least (a guard against it finding nothing); new public estimators join automatically
KNOWN = {"MajorityVote", "DawidSkene", "SymNMF", "DesSymNMF", "RobSymNMF", "MultiSPA", "CNMF", "SpectralDS",
         "MinimaxEntropy", "KOS", "GhoshSVD", "EigenRatio", "AND", "MultiplicativeUpdate", "HALS", "ANLS",
         "SklearnNMF", "OnlineLDA", "FactorizationMachine", "OnlineSubspaceTracker"}
REQUIRED = ("Parameters", "Attributes", "Examples")
ORDER = ("Parameters", "Attributes", "See Also", "Notes", "References", "Examples")  # numpydoc's order


def public_estimators(module) -> list[type]:
    """Classes defined in ``module``, not underscored, with ``fit`` (or ``partial_fit``: the tracker)."""
    return [cls for name, cls in vars(module).items()
            if inspect.isclass(cls) and cls.__module__ == module.__name__ and not name.startswith("_")
            and (hasattr(cls, "fit") or hasattr(cls, "partial_fit"))]


# the modules defining public estimators (the crowd package's _base and examples define none)
MODULES = [m for m in (*CROWD, nmf, nmf_sklearn, factorization_machine, bitsubspace) if public_estimators(m)]
ALL = [cls for module in MODULES for cls in public_estimators(module)]


def sections(cls) -> dict[str, list[str]]:
    """The numpydoc sections of the class's own docstring (not inherited): title -> its lines."""
    assert cls.__dict__.get("__doc__"), f"{cls.__name__} has no docstring of its own"
    lines = inspect.cleandoc(cls.__doc__).splitlines()
    out: dict[str, list[str]] = {}
    current = None
    for i, line in enumerate(lines):
        if i + 1 < len(lines) and line.strip() and re.fullmatch(r"-{3,}", lines[i + 1].strip()) \
                and len(lines[i + 1].strip()) == len(line.strip()):
            current = line.strip()
            assert current not in out, f"{cls.__name__}: section {current} twice"
            out[current] = []
        elif current is not None and not re.fullmatch(r"-{3,}", line.strip()):
            out[current].append(line)
    return out


ENTRY = re.compile(r"(?P<names>[A-Za-z_]\w*(?:, [A-Za-z_]\w*)*)(?: : (?P<type>.*))?$")


def entries(lines: list[str]) -> dict[str, str]:
    """name -> type text of the entries of a Parameters or Attributes section (unindented ``name : type`` lines)."""
    out = {}
    for line in lines:
        if not line.strip() or line[0].isspace():
            continue
        m = ENTRY.match(line)
        if m:
            for name in m["names"].split(", "):
                out[name] = m["type"] or ""
    return out


def init_parameters(cls) -> dict[str, inspect.Parameter]:
    variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return {name: p for name, p in inspect.signature(cls.__init__).parameters.items()
            if name != "self" and p.kind not in variadic}  # object.__init__ takes (*args, **kwargs)


def test_discovery_finds_every_known_public_estimator():
    assert {cls.__name__ for cls in ALL} >= KNOWN


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_estimator_docstring_has_the_numpydoc_sections_in_order(cls):
    found = sections(cls)
    missing = [s for s in REQUIRED if s not in found]
    assert not missing, f"{cls.__name__} lacks {missing}"
    present = [s for s in found if s in ORDER]
    assert present == sorted(present, key=ORDER.index), f"{cls.__name__}: sections out of order {present}"
    assert any(line.lstrip().startswith(">>> ") for line in found["Examples"])
    for line in found.get("References", []):
        assert not line.strip() or line.lstrip().startswith(".. [") or line.startswith("   "), line


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_parameters_section_documents_each_constraint_and_init_parameter_with_its_default(cls):
    documented = entries(sections(cls)["Parameters"])
    params = init_parameters(cls)
    undocumented = (set(cls._parameter_constraints) | set(params)) - set(documented)
    assert not undocumented, f"{cls.__name__}: Parameters lacks {sorted(undocumented)}"
    stale = set(documented) - set(params)
    assert not stale, f"{cls.__name__} documents parameters it does not take: {sorted(stale)}"
    for name, p in params.items():
        default = re.search(r"default=(.+)$", documented[name])
        if p.default is inspect.Parameter.empty:
            assert default is None, f"{cls.__name__}.{name} has no default, the docstring says {default[1]}"
        else:
            assert default is not None, f"{cls.__name__}.{name}: the docstring states no default"
            stated = ast.literal_eval(default[1])
            assert stated == p.default and type(stated) is type(p.default), \
                f"{cls.__name__}.{name}: docstring default {default[1]}, signature {p.default!r}"


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_attributes_section_names_trailing_underscore_attributes_the_code_sets(cls):
    documented = entries(sections(cls)["Attributes"])
    assert documented, cls.__name__
    sources = "\n".join(inspect.getsource(k) for k in cls.__mro__ if k is not object)
    for name in documented:
        assert name.endswith("_") and not name.startswith("_"), f"{cls.__name__}: {name}"
        assert re.search(rf"self\.{name}\b|def {name}\(", sources), f"{cls.__name__}: nothing sets {name}"


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
@pytest.mark.slow
def test_module_examples_pass_as_doctests(module):
    result = doctest.testmod(module, optionflags=doctest.REPORT_NDIFF)  # flags the examples need are inline
    assert result.failed == 0
    assert result.attempted >= len(public_estimators(module))


@pytest.mark.parametrize("module", EXAMPLE_DATA, ids=lambda m: m.__name__)
def test_the_examples_shared_data_is_documented_by_a_passing_doctest(module):
    result = doctest.testmod(module, optionflags=doctest.REPORT_NDIFF)
    assert result.failed == 0 and result.attempted >= 1
