"""Lin, Qiu, Hong, Ye (2022), "The Second Order Linear Model" (paper key ``slm``).

Measures (``measures``) compose generators, solvers and metrics; ``sweeps`` declares the simulations; the
claims, by section: ``moments`` (Eq. 6, Section 2.1's gradient descent, Definition 1, Lemma 7), ``sensing``
(Theorem 5, Lemma 6), ``convergence`` (Lemma 8 / Eq. 10, Theorems 2 and 3, Algorithm 1 as printed),
``experiments`` (Figure 1).
"""
from __future__ import annotations

from simverify.claims import Citation
from simverify.footprint import Footprint, size
from simverify.generators import slm as gen
from simverify.paper import Paper
from simverify.parameters import Checkpoints, Labeled, ListOf, OneOrList
from simverify.solvers import slm as sol
from simverify.validation import Boolean, Integer, Options, Real

PARAMETERS = {
    **{name: Integer(1) for name in ("d", "k", "n_test", "init_iters")},
    "n": Labeled(OneOrList(Integer(2)), "instances; Algorithm 1 line 2 estimates their variance"),
    "noise": Real(0.0, 1e6), "distance": Real(0.0, 1e6),
    "step": Real(1e-12, 1e3),  # Section 2.1's gradient step (not used with tune_step)
    "param": Labeled(OneOrList(Real(-5.0, 10.0)), "the distribution's parameter"),  # a list: a paired design
    "tau": Labeled(OneOrList(Real(1e-6, 2.0 - 1e-6)), "two-point MIP constant"),
    "solver": ListOf(Options("slm", "fm", "fm_standardised")),
    "v_step": Options(*sol.V_STEPS), "trace": Options(*sol.TRACE_TERMS), "start": Options(*sol.STARTS),
    "dist": Options(*gen.DISTRIBUTIONS), "spectrum": Options("psd", "traceless"),
    "iteration": Checkpoints(first=0, consecutive=True, last="T"),
    "diag_free": Boolean(), "oracle": Boolean(), "resample": Boolean(),
}


def validate(p: dict) -> None:
    """The rules across parameters (each one is declared in PARAMETERS and checked first): rank k <= d, and
    Algorithm 1's MIP construction needs a tau-MIP distribution."""
    if "k" in p and "d" in p and p["k"] > p["d"]:
        raise ValueError(f"rank k={p['k']} exceeds the dimension d={p['d']}")
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
PAPER = Paper("slm", "Lin, Qiu, Hong, Ye (2022), The Second Order Linear Model", CITATION, parameters=PARAMETERS,
              validate=validate, footprint=footprint,
              not_checked={"Table 1 (rating MSE, relation AUC on real data)": TABLE1_NOT_REPRODUCED})

# Importing the claim modules registers the claims (they use PAPER), in the paper's order.
# isort: off
from . import moments, sensing, convergence, experiments  # noqa: E402, F401
# isort: on
