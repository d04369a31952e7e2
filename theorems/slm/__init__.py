"""Lin, Qiu, Hong, Ye (2022), "The Second Order Linear Model" (paper key ``slm``).

Measures (``measures``) compose generators, solvers and metrics; ``sweeps`` declares the simulations; the
claims, by section: ``moments`` (Eq. 6, Section 2.1's gradient descent, Definition 1, Lemma 7), ``sensing``
(Theorem 5, Lemma 6), ``convergence`` (Lemma 8 / Eq. 10, Theorems 2 and 3, Algorithm 1 as printed),
``experiments`` (Figure 1).
"""
from __future__ import annotations

from simverify.claims import Citation, Paper
from simverify.footprint import Footprint, size
from simverify.generators import slm as gen
from simverify.solvers import slm as sol
from simverify.validation import check_int_parameter, check_real_parameter

_POSITIVE_INTEGERS = ("d", "k", "n", "n_test", "init_iters")
_CHOICES = {"v_step": sol.V_STEPS, "trace": sol.TRACE_TERMS, "start": sol.STARTS, "dist": gen.DISTRIBUTIONS,
            "spectrum": ("psd", "traceless")}


def validate(p: dict) -> None:
    """Reject parameters outside the paper's model (raises ValueError naming the parameter)."""
    for name in _POSITIVE_INTEGERS:
        if name in p:
            check_int_parameter(name, p[name])
    if "k" in p and "d" in p and p["k"] > p["d"]:
        raise ValueError(f"rank k={p['k']} exceeds the dimension d={p['d']}")
    if "n" in p and min(p["n"] if isinstance(p["n"], list) else [p["n"]]) < 2:
        raise ValueError(f"n={p['n']} instances cannot estimate a variance (Algorithm 1 line 2 needs n >= 2)")
    for name in ("noise", "distance"):
        if name in p:
            check_real_parameter(name, p[name], 0.0, 1e6)
    if "step" in p:  # Section 2.1's gradient step (not used with tune_step)
        check_real_parameter("step", p["step"], 1e-12, 1e3)
    if "param" in p:  # a list: a paired design over the distribution's parameter
        for v in (p["param"] if isinstance(p["param"], list) else [p["param"]]):
            check_real_parameter("param (the distribution's parameter)", v, -5.0, 10.0)
    for tau in (p["tau"] if isinstance(p.get("tau"), list) else [p["tau"]] if "tau" in p else []):
        check_real_parameter("tau (two-point MIP constant)", tau, 1e-6, 2.0 - 1e-6)
    if "solver" in p:
        bad = [s for s in p["solver"] if s not in ("slm", "fm", "fm_standardised")] if isinstance(p["solver"], list) \
            else [p["solver"]]
        if bad:
            raise ValueError(f"parameter solver must be a list of 'slm', 'fm', 'fm_standardised', got {p['solver']!r}")
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
    if "iteration" in p and "dist" in p and not p.get("diag_free", False):
        _check_mip(p["dist"], p.get("param", 0.0))


def _check_mip(dist: str, params) -> None:
    """Algorithm 1's MIP construction needs a tau-MIP distribution (Eq. (7) is singular otherwise)."""
    for value in (params if isinstance(params, list) else [params]):
        fd = gen.FeatureDistribution(dist, value)
        if not sol.is_mip(fd):
            raise ValueError(f"{dist}({value:g}) is not tau-MIP (the moment matrix of Eq. (7) is singular): "
                             "use the diagonal-free construction (Section 3.1, --set diag_free=true)")


TABLE1_NOT_REPRODUCED = (
    "the MovieLens-100k/1M, Flixster, Epinions and OMIM data cannot be downloaded here and are not shipped; "
    "simverify.datasets.movielens reads the standard MovieLens-100k layout (u.data) into one-hot user/item "
    "features for SLM and the factorization machine, tested on a generated file in that layout")

def footprint(p: dict) -> Footprint:
    """One cell's dominant arrays (M and its iterates, d x d; the instances n and n_test, d each) and work
    (x^T M x per instance per pass)."""
    d, n, n_test = (size(p, k) for k in ("d", "n", "n_test"))
    passes = size(p, "T", 1) + size(p, "init_iters") + len(p.get("iteration", [])) + 1
    return Footprint(8.0 * (4 * d * d + (n + n_test) * d), float(n * passes + n_test) * d * d)


CITATION = Citation("Ming Lin, Shuang Qiu, Bin Hong and Jieping Ye", "The Second Order Linear Model",
                    "arXiv preprint (the version dated May 7, 2022)", 2022, arxiv="1703.00598")
PAPER = Paper("slm", "Lin, Qiu, Hong, Ye (2022), The Second Order Linear Model", CITATION, validate=validate,
              footprint=footprint,
              not_checked={"Table 1 (rating MSE, relation AUC on real data)": TABLE1_NOT_REPRODUCED})

# Importing the claim modules registers the claims (they use PAPER), in the paper's order.
# isort: off
from . import moments, sensing, convergence, experiments  # noqa: E402, F401
# isort: on
