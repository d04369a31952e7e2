"""The simulations of Qiu et al. (2017): each Sweep's measure, grids per tier and array outputs.
Claims sharing a Sweep are judged on the same cached cells. Full tiers are at the paper's sizes
(Section 5.1: d1 = 500, d2 = 200, k = 3, m = 100,000 per iteration, 10 iterations, 10,000 test
instances)."""
from __future__ import annotations

from simverify.claims import Grid, Sweep, Tier, tiers

from . import costs
from . import fixed_distance as fd
from . import measures as ms

PAPER_SIZE = {"d1": 500, "d2": 200, "k": 3}
SMALL = {"d1": 50, "d2": 20, "k": 3}
ITERATION_OUT = {name: ("iteration",) for name in (
    "error", "tan_theta", "lemma5_ratio", "lemma6_gap", "lemma6_gap_previous", "perturbation", "tau",
    "lemma7_alpha_ratio", "lemma7_error_ratio")}
SCALAR_OUT = ("lemma8_ratio", "lemma8_condition", "lemma8_sin_theta", "lemma8_eps_over_gap", "final_error",
              "column_error", "recovered")  # per batch size in the paired sweep ALGORITHM1_M
# outputs of a paired sweep (m a list): every output gains a leading dim m
PAIRED_OUT = {**{name: ("m", "iteration") for name in ITERATION_OUT}, **{name: ("m",) for name in SCALAR_OUT}}



# Lemma 1
# quick tier re-sized after the stream change (issue 29): at 24 replicates the expectation was inconclusive in 1 of
# 20 seeds; more replicates, band unchanged
LEMMA1 = Sweep("onebit.lemma1", ms.measure_lemma1, tiers(
    Tier(Grid({"m": [4000, 16_000, 64_000]}), 40, SMALL),
    Tier(Grid({"m": [10_000, 30_000, 100_000, 300_000, 1_000_000]}), 20, PAPER_SIZE)), work=costs.lemma1_work)

# Lemma 2: along ||w - w'|| (angle up to pi/2) and along d1
LEMMA2_DIST = Sweep("onebit.lemma2.dist", ms.measure_lemma2, tiers(
    Tier(Grid({"dist": [0.05, 0.2, 0.8, 1.4]}), 24, {"d1": 4, "n": 400_000}),  # 24: proof_entry11~corrected_value
    # missed in 2 of 20 root seeds at 8 (its interval as wide as its 0.005 band)
    Tier(Grid({"dist": [0.02, 0.05, 0.1, 0.2, 0.4, 0.8, 1.2, 1.4]}), 20, {"d1": 20, "n": 2_000_000})),
        work=costs.lemma2_work)

LEMMA2_D1 = Sweep("onebit.lemma2.d1", ms.measure_lemma2, tiers(
    Tier(Grid({"d1": [5, 10, 20, 40]}), 6, {"dist": 0.5, "n": 100_000}),
    Tier(Grid({"d1": [5, 10, 20, 40, 80, 160]}), 20, {"dist": 0.5, "n": 1_000_000})), work=costs.lemma2_work)

# Theorem 2: along m and d1 (W' at a fixed perturbation step)
THEOREM2_M = Sweep("onebit.theorem2.m", ms.measure_theorem2, tiers(
    Tier(Grid({"m": [5000, 20_000, 80_000]}), 8, {**SMALL, "step": 0.5}),
    Tier(Grid({"m": [25_000, 100_000, 400_000, 1_600_000]}), 20, {**PAPER_SIZE, "step": 0.5})),
        work=costs.theorem2_work)

THEOREM2_D1 = Sweep("onebit.theorem2.d1", ms.measure_theorem2, tiers(
    Tier(Grid({"d1": [50, 100, 200, 400]}), 8, {"d2": 10, "k": 3, "m": 20_000, "step": 0.5}),
    Tier(Grid({"d1": [250, 500, 1000, 2000]}), 20, {"d2": 100, "k": 3, "m": 400_000, "step": 0.5})),
        work=costs.theorem2_work)

# Theorem 1 and the lemmas along iterates
ALGORITHM1_M = Sweep("onebit.algorithm1.m", ms.measure_algorithm1, tiers(
    Tier(Grid(), 12, {**SMALL, "T": 8, "m": [4000, 16_000, 64_000], "column_by_column": True}),
    Tier(Grid(), 10, {**PAPER_SIZE, "T": 10, "m": [25_000, 50_000, 100_000, 200_000, 400_000],
                      "column_by_column": True})),
    outputs=PAIRED_OUT, work=costs.algorithm1_work)

# Section 3's column-by-column rate, where it is asymptotic: at least 50 d1 labels per class (m labels, T = 1).
# At the paper's size (ALGORITHM1_M's full tier, 1250..20000 labels per class for d1 = 500) the per-column
# normalisation still saturates and the error falls faster than m^(-1/2) (see the claim's note).
COLUMN_BY_COLUMN_M = Sweep("onebit.column_by_column.m", ms.measure_algorithm1, tiers(
    Tier(Grid(), 12, {"d1": 20, "d2": 10, "k": 3, "T": 1, "m": [16_000, 64_000, 256_000], "column_by_column": True}),
    Tier(Grid(), 10, {"d1": 100, "d2": 40, "k": 3, "T": 1, "m": [200_000, 800_000, 3_200_000],
                      "column_by_column": True})),
    outputs=PAIRED_OUT, work=costs.algorithm1_work)

ALGORITHM1_PRINTED = Sweep("onebit.algorithm1.printed", ms.measure_algorithm1, tiers(
    Tier(Grid({"start": ["printed", "zero"]}), 4, {**SMALL, "m": 4000, "T": 3}),
    Tier(Grid({"start": ["printed", "zero"]}), 10, {**PAPER_SIZE, "m": 100_000, "T": 10})),
    outputs=ITERATION_OUT, work=costs.algorithm1_work)

# Figure 1 / Table 1: the noise settings of Section 5.1
SOLVERS = ["ours", "leml", "leml_batch"]
NOISE_CASES = {"case": {"xi": [0.0, 0.1, 0.2, 0.3, 0.0, 0.0, 0.0, 0.0],
                        "flip_prob": [0.0, 0.0, 0.0, 0.0, 0.01, 0.025, 0.05, 0.1]}}
FIGURE1 = Sweep("onebit.figure1", ms.measure_figure1, tiers(
    Tier(Grid(zipped=NOISE_CASES), 4, {**SMALL, "m": 4000, "T": 6, "n_test": 1000, "solver": SOLVERS}),
    Tier(Grid(zipped=NOISE_CASES), 5, {**PAPER_SIZE, "m": 100_000, "T": 10, "n_test": 10_000, "solver": SOLVERS})),
    outputs={"error": ("solver", "iteration"), "hamming": ("solver",), "auc_gap": ("solver",)}, work=costs.figure1_work)

# Theorem 1's dependence on d1, d2, k and the condition number (final error at fixed m)
_T1 = {"m": 8000, "T": 5}
# quick tier re-sized after the stream change (issue 29): at 6 replicates the d1 bound was inconclusive in 1 of 20
# seeds; more replicates, band unchanged
ALGORITHM1_D1 = Sweep("onebit.algorithm1.d1", ms.measure_algorithm1, tiers(
    Tier(Grid({"d1": [20, 40, 80, 160]}), 16, {"d2": 10, "k": 3, **_T1}),
    Tier(Grid({"d1": [250, 500, 1000, 2000]}), 10, {"d2": 200, "k": 3, "m": 100_000, "T": 10})),
    outputs=ITERATION_OUT, work=costs.algorithm1_work)

ALGORITHM1_D2 = Sweep("onebit.algorithm1.d2", ms.measure_algorithm1, tiers(
    Tier(Grid({"d2": [10, 20, 40]}), 6, {"d1": 60, "k": 3, **_T1}),
    Tier(Grid({"d2": [50, 100, 200, 400]}), 10, {"d1": 500, "k": 3, "m": 100_000, "T": 10})),
    outputs=ITERATION_OUT, work=costs.algorithm1_work)

ALGORITHM1_K = Sweep("onebit.algorithm1.k", ms.measure_algorithm1, tiers(
    Tier(Grid({"k": [1, 2, 4, 8]}), 6, {"d1": 50, "d2": 20, **_T1}),
    Tier(Grid({"k": [1, 2, 3, 5, 8, 12]}), 10, {"d1": 500, "d2": 200, "m": 100_000, "T": 10})),
    outputs=ITERATION_OUT, work=costs.algorithm1_work)

ALGORITHM1_KAPPA = Sweep("onebit.algorithm1.kappa", ms.measure_algorithm1, tiers(
    # 12: weak_kappa_dependence missed in 2 of 20 root seeds at 6 (a wide interval, not a moved estimate)
    Tier(Grid({"kappa": [1.0, 2.0, 4.0, 8.0]}), 12, {"d1": 50, "d2": 20, "k": 3, **_T1}),
    Tier(Grid({"kappa": [1.0, 2.0, 4.0, 8.0, 16.0]}), 10, {**PAPER_SIZE, "m": 100_000, "T": 10})),
    outputs=ITERATION_OUT, work=costs.algorithm1_work)

# Lemma 8 at the initialisation, where its hypothesis eps <= sigma_k / 4 holds (m large enough)
LEMMA8 = Sweep("onebit.lemma8", ms.measure_algorithm1, tiers(
    Tier(Grid({"m": [64_000, 256_000]}), 12, {**SMALL, "T": 1}),
    Tier(Grid({"m": [400_000, 1_600_000]}), 10, {**PAPER_SIZE, "T": 1})),
    outputs=ITERATION_OUT, work=costs.algorithm1_work)

# Theorem 2 along d2
THEOREM2_D2 = Sweep("onebit.theorem2.d2", ms.measure_theorem2, tiers(
    Tier(Grid({"d2": [10, 20, 40, 80]}), 8, {"d1": 200, "k": 3, "m": 20_000, "step": 0.5}),
    Tier(Grid({"d2": [50, 100, 200, 400]}), 20, {"d1": 1000, "k": 3, "m": 400_000, "step": 0.5})),
        work=costs.theorem2_work)

# Theorem 2 along k, W' at a fixed spectral distance (a fixed step's distance depends on k)
THEOREM2_K = Sweep("onebit.theorem2.k", fd.measure_theorem2_at_distance, tiers(
    Tier(Grid({"k": [1, 2, 4, 8, 16]}), 16, {"d1": 100, "d2": 20, "m": 20_000, "spectral_distance": 0.5}),
    Tier(Grid({"k": [1, 2, 4, 8, 16]}), 10, {"d1": 1000, "d2": 100, "m": 400_000, "spectral_distance": 0.5})),
        work=costs.theorem2_work)

# Definition 1: the delta_k-RIP constant of the sensing operator
RIP = Sweep("onebit.definition1", ms.measure_rip, tiers(
    Tier(Grid({"m": [8000, 32_000, 128_000]}), 12, {"d1": 20, "d2": 10, "k": 3}),
    Tier(Grid({"m": [100_000, 400_000, 1_600_000]}), 10, {"d1": 100, "d2": 50, "k": 3})), work=costs.rip_work)

# Table 2: fully labelled synthetic sets (Synthetic1-3 at the paper's sizes in the full tier)
TABLE2_SOLVERS = list(ms.TABLE2_SOLVERS)
TABLE2 = Sweep("onebit.table2", ms.measure_table2, tiers(
    Tier(Grid(zipped={"dataset": {"d1": [50, 80, 120], "d2": [10, 16, 24], "n": [500, 800, 1200]}}), 4,
         {"k": 3, "n_test": 2000, "T": 10, "iters": 30, "solver": TABLE2_SOLVERS}),
    # full tier 3 -> 10 replicates: at 3, lrt_beats_ours came out INCONCLUSIVE at the suite's level (ratio 0.83
    # [0.63, 1.08], "about 7 would decide"); 10 narrows the interval about 1.8 times, band unchanged
    Tier(Grid(zipped={"dataset": {"d1": [500, 1000, 2000], "d2": [100, 300, 500], "n": [5000, 10_000, 20_000]}}),
         10, {"k": 3, "n_test": 10_000, "T": 10, "solver": TABLE2_SOLVERS})),
    outputs={"auc_gap": ("solver",)}, work=costs.table2_work)
