"""The simulations of Qiu et al. (2017): each Sweep's measure, grids per tier and array outputs.
Claims sharing a Sweep are judged on the same cached cells. Full tiers are at the paper's sizes
(Section 5.1: d1 = 500, d2 = 200, k = 3, m = 100,000 per iteration, 10 iterations, 10,000 test
instances)."""
from __future__ import annotations

from simverify.claims import Grid, Sweep, Tier

from . import measures as ms

PAPER_SIZE = {"d1": 500, "d2": 200, "k": 3}
SMALL = {"d1": 50, "d2": 20, "k": 3}
ITERATION_OUT = {"error": ("iteration",), "lemma5_ratio": ("iteration",), "tan_theta": ("iteration",),
                 "lemma6_gap": ("iteration",), "lemma6_gap_previous": ("iteration",)}


def _tiers(quick: Tier, full: Tier) -> dict[str, Tier]:
    return {"quick": quick, "full": full}


# Lemma 1
LEMMA1 = Sweep("onebit.lemma1", ms.measure_lemma1, _tiers(
    Tier(Grid({"m": [2000, 8000, 32000]}), 32, SMALL),
    Tier(Grid({"m": [10_000, 30_000, 100_000, 300_000, 1_000_000]}), 20, PAPER_SIZE)))

# Lemma 2: along ||w - w'|| (angle up to pi/2) and along d1
LEMMA2_DIST = Sweep("onebit.lemma2.dist", ms.measure_lemma2, _tiers(
    Tier(Grid({"dist": [0.05, 0.2, 0.8, 1.4]}), 6, {"d1": 10, "n": 200_000}),
    Tier(Grid({"dist": [0.02, 0.05, 0.1, 0.2, 0.4, 0.8, 1.2, 1.4]}), 20, {"d1": 20, "n": 2_000_000})))

LEMMA2_D1 = Sweep("onebit.lemma2.d1", ms.measure_lemma2, _tiers(
    Tier(Grid({"d1": [5, 10, 20, 40]}), 6, {"dist": 0.5, "n": 100_000}),
    Tier(Grid({"d1": [5, 10, 20, 40, 80, 160]}), 20, {"dist": 0.5, "n": 1_000_000})))

# Theorem 2: along m and d1 (W' at a fixed perturbation step)
THEOREM2_M = Sweep("onebit.theorem2.m", ms.measure_theorem2, _tiers(
    Tier(Grid({"m": [5000, 20_000, 80_000]}), 8, {**SMALL, "step": 0.5}),
    Tier(Grid({"m": [25_000, 100_000, 400_000, 1_600_000]}), 20, {**PAPER_SIZE, "step": 0.5})))

THEOREM2_D1 = Sweep("onebit.theorem2.d1", ms.measure_theorem2, _tiers(
    Tier(Grid({"d1": [50, 100, 200, 400]}), 8, {"d2": 10, "k": 3, "m": 20_000, "step": 0.5}),
    Tier(Grid({"d1": [250, 500, 1000, 2000]}), 20, {"d2": 100, "k": 3, "m": 400_000, "step": 0.5})))

# Theorem 1 and the lemmas along iterates
ALGORITHM1_M = Sweep("onebit.algorithm1.m", ms.measure_algorithm1, _tiers(
    Tier(Grid({"m": [4000, 16_000, 64_000]}), 8, {**SMALL, "T": 8}),
    Tier(Grid({"m": [25_000, 50_000, 100_000, 200_000, 400_000]}), 10, {**PAPER_SIZE, "T": 10})),
    outputs=ITERATION_OUT)

ALGORITHM1_PRINTED = Sweep("onebit.algorithm1.printed", ms.measure_algorithm1, _tiers(
    Tier(Grid({"start": ["printed", "zero"]}), 4, {**SMALL, "m": 4000, "T": 3}),
    Tier(Grid({"start": ["printed", "zero"]}), 10, {**PAPER_SIZE, "m": 100_000, "T": 10})),
    outputs=ITERATION_OUT)

# Figure 1 / Table 1: the noise settings of Section 5.1
SOLVERS = ["ours", "leml", "leml_batch"]
NOISE_CASES = {"case": {"xi": [0.0, 0.1, 0.2, 0.3, 0.0, 0.0, 0.0, 0.0],
                        "flip_prob": [0.0, 0.0, 0.0, 0.0, 0.01, 0.025, 0.05, 0.1]}}
FIGURE1 = Sweep("onebit.figure1", ms.measure_figure1, _tiers(
    Tier(Grid(zipped=NOISE_CASES), 4, {**SMALL, "m": 4000, "T": 10, "n_test": 2000, "solver": SOLVERS}),
    Tier(Grid(zipped=NOISE_CASES), 5, {**PAPER_SIZE, "m": 100_000, "T": 10, "n_test": 10_000, "solver": SOLVERS})),
    outputs={"error": ("solver", "iteration"), "hamming": ("solver",), "auc_gap": ("solver",)})
