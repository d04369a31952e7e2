"""Proposition 1 of Ibrahim & Fu (2021): if H = [A_1; ...; A_M] D^(1/2) satisfies the SSC and has rank K, SymNMF of
X = H H^T identifies every A_m and lambda up to one common column permutation. Measured on the exact X with one
class specialist at epsilon = 0 (its rows of H are the extreme rays, so the SSC holds exactly), by Eq. (19)'s MSE
after Eq. (13) with alpha = 0 from Q_(0) = I."""
from __future__ import annotations

from simverify.claims import Control
from simverify.laws import Bound

from . import PAPER
from . import sweeps as sw

PAPER.claim(
    "prop1.exact_recovery", item="Proposition 1",
    statement="M = 25 annotators, K = 3: confusion columns and prior ~ Dirichlet(1), one annotator a perfect class "
              "specialist (epsilon = 0, so H satisfies the SSC); SymNMF of the exact X = H H^T and column "
              "l1-normalisation recover every A_m and lambda up to one permutation: Eq. (19)'s MSE is at most 1e-8 "
              "(rounding).",
    formula=r"A^\star_m = A_m \Pi\ \forall m,\quad \lambda^\star = \Pi^\top \lambda",
    law=Bound("mse", 1e-8, "<="), sweep=sw.IDENTIFIABILITY,
    controls=(Control("ssc_violated", "every confusion column within 0.05 of 0.6 e_k + 0.4/K (no row of H near an "
                      "extreme ray: the SSC fails); X is still factored exactly, by another H",
                      fixed={"model_law": "clustered"}),))
