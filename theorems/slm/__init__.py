"""Lin, Qiu, Hong, Ye (2022), "The Second Order Linear Model" (paper key ``slm``).

Measures (``measures``) compose generators, solvers and metrics; ``sweeps`` declares the simulations; the
claims, by section: ``moments`` (Eq. 6, Definition 1, Lemma 7), ``sensing`` (Theorem 5, Lemma 6),
``convergence`` (Lemma 8 / Eq. 10, Theorems 2 and 3, Algorithm 1 as printed).
"""
from __future__ import annotations

from simverify.claims import Paper

_POSITIVE_INTEGERS = ("d", "k", "n", "T", "n_test")
_DISTRIBUTIONS = ("gaussian", "truncated_gaussian", "bernoulli", "uniform", "two_point_jitter")
_CHOICES = {"v_step": ("printed", "uhat"), "trace": ("printed", "removed"), "start": ("spectral", "random"),
            "dist": _DISTRIBUTIONS, "spectrum": ("psd", "traceless")}


def _check_int(name: str, value) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"parameter {name} must be a positive integer, got {value!r}")


def _check_real(name: str, value, lo: float, hi: float = float("inf")) -> None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not (ok and lo <= value <= hi):  # also refuses NaN (comparisons are False)
        raise ValueError(f"parameter {name} must be a finite number in [{lo:g}, {hi:g}], got {value!r}")


def validate(p: dict) -> None:
    """Reject parameters outside the paper's model (raises ValueError naming the parameter)."""
    for name in _POSITIVE_INTEGERS:
        if name in p:
            _check_int(name, p[name])
    if "k" in p and "d" in p and p["k"] > p["d"]:
        raise ValueError(f"rank k={p['k']} exceeds the dimension d={p['d']}")
    if "n" in p and p["n"] < 2:
        raise ValueError(f"n={p['n']} instances cannot estimate a variance (Algorithm 1 line 2 needs n >= 2)")
    for name in ("noise", "distance", "param"):
        if name in p:
            _check_real(name, p[name], -5.0 if name == "param" else 0.0, 1e6)
    if "tau" in p:
        _check_real("tau (two-point MIP constant)", p["tau"], 1e-6, 2.0 - 1e-6)
    for name, allowed in _CHOICES.items():
        if name in p and p[name] not in allowed:
            raise ValueError(f"parameter {name} must be one of {list(allowed)}, got {p[name]!r}")
    if "iteration" in p:
        t = p["iteration"]
        if not (isinstance(t, list) and t and t[0] == 0 and all(isinstance(v, int) and not isinstance(v, bool)
                                                               for v in t) and t == list(range(len(t)))):
            raise ValueError(f"parameter iteration must be the checkpoints [0, 1, ..., T], got {t!r}")
    for name in ("diag_free", "oracle", "resample"):
        if name in p and not isinstance(p[name], bool):
            raise ValueError(f"parameter {name} must be true or false, got {p[name]!r}")


PAPER = Paper("slm", "Lin, Qiu, Hong, Ye (2022), The Second Order Linear Model", validate=validate)

# Importing the claim modules registers the claims (they use PAPER), in the paper's order.
# isort: off
from . import moments, sensing, convergence  # noqa: E402, F401
# isort: on
