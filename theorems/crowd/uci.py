"""Tables 1-3 of Ibrahim & Fu (2021) (Section 4, 'UCI Data Experiments'; Appendix C.2): ten classifiers trained
on a fifth of a labelled data set are the annotators of the rest. The UCI sets (Connect4, Credit, Car) cannot be
downloaded here; scikit-learn's bundled sets stand in for them (``simverify.datasets.bundled``), with ten
scikit-learn classifiers for Table 8's MATLAB ones (``simverify.generators.machine_annotators``).

The tables' columns are the ``setting`` dim: Tables 1-2 (``ANSWERING``): every annotator with p_m = 0.3, or p_m
drawn from (0.3, 0.5) or (0.5, 0.7) with two designated annotators at p_d = 0.8; Table 3 (``MISSING``): the
block-missing design with 70, 50 or 30 % of the co-occurrence blocks missing (the diagonal included). The measure
is ``uci_measures.measure_machine_annotators``, the sweeps ``sweeps.TABLE1``-``TABLE3``; this module holds the
paper's printed tables and the claims."""
from __future__ import annotations

import numpy as np

from simverify.claims import CONFIRMED, REFUTED, Control, PrintedTable
from simverify.findings import erratum, not_reproduced
from simverify.laws import Bound, Comparison, needing

from . import PAPER
from . import measures as ms
from .sweeps import TABLE1, TABLE2, TABLE3
from .uci_measures import ANSWERING, MISSING

# --- the paper's tables beside ours (the data differ: scikit-learn's bundled sets stand in for UCI's) -----------
# error (%) per column; rows of baselines not built here (PG-TAC, CRIAV) or not run in these sweeps (TensorADMM:
# about 1 s a run, times the replicates) are left out
PRINTED = {
    1: {"robsymnmf": [33.26, 33.06, 32.16], "robsymnmf-em": [34.27, 33.20, 32.11],
        "robsymnmf-unweighted": [33.14, 34.60, 33.91], "dessymnmf": [33.45, 32.18, 31.42],
        "dessymnmf-em": [33.94, 32.50, 31.40], "symnmf": [34.87, 35.71, 32.00], "multispa": [47.78, 42.24, 49.54],
        "cnmf": [36.26, 39.55, 34.70], "spectral-ds": [64.28, 66.95, 71.97],
        "minimax-entropy": [36.20, 36.17, 35.46],
        "mv-em": [34.14, 34.17, 34.19], "mv": [37.76, 36.88, 36.75]},
    2: {"robsymnmf": [16.31, 13.99, 13.74], "robsymnmf-em": [16.76, 13.96, 14.06],
        "robsymnmf-unweighted": [16.32, 13.99, 13.72], "dessymnmf": [16.37, 13.83, 13.67],
        "dessymnmf-em": [16.80, 14.07, 13.77], "symnmf": [16.51, 13.94, 13.85], "multispa": [16.74, 14.28, 14.60],
        "cnmf": [16.74, 14.24, 14.40], "mv-em": [44.54, 26.20, 14.00], "kos": [17.28, 14.22, 14.89],
        "ghosh-svd": [17.07, 14.76, 14.80], "minimax-entropy": [17.50, 17.00, 16.78],
        "spectral-ds": [16.98, 14.24, 14.00],
        "eigen-ratio": [17.17, 14.43, 14.44], "mv": [18.22, 15.95, 14.83]},
    3: {"robsymnmf": [24.01, 23.17, 22.05], "robsymnmf-em": [24.93, 23.71, 22.03],
        "robsymnmf-unweighted": [24.01, 23.40, 22.16], "dessymnmf": [24.50, 23.41, 23.00],
        "dessymnmf-em": [24.91, 24.59, 23.45], "symnmf": [24.43, 24.03, 24.40], "multispa": [47.12, 47.14, 33.84],
        "cnmf": [43.65, 41.49, 30.55], "spectral-ds": [31.20, 29.67, 29.14],
        "minimax-entropy": [28.22, 25.73, 24.68], "mv-em": [30.27, 29.96, 29.65]},
}
STAND_IN = {1: "UCI Connect4 (K = 3); measured on scikit-learn's digits 3, 5, 8",
            2: "UCI Credit (K = 2); measured on scikit-learn's breast cancer set",
            3: "UCI Car (K = 4); measured on scikit-learn's digits 3, 5, 8, 9"}


def printed_table(number: int) -> PrintedTable:
    columns = list(ANSWERING) if number < 3 else list(MISSING)

    def measured(ds):
        mean = ds["error"].mean("replicate")
        planned = ds["setting"].values
        return {ms.PAPER_ROWS.get(str(m), str(m)): [float(mean.sel(setting=c, aggregator=m)) if c in planned
                                                    else np.nan for c in columns] for m in ds["aggregator"].values}
    return PrintedTable(f"Table {number}: error (%), {STAND_IN[number]}", columns,
                        {ms.PAPER_ROWS[m]: v for m, v in PRINTED[number].items()}, measured, "%")


# --- the claims ---------------------------------------------------------------------------------------------------
def error_at(setting: str, method: str | list):
    """The error (%) in one column of one method (or of a list of methods: the aggregator dim kept)."""
    return needing(lambda ds: ds["error"].sel(setting=setting, aggregator=method), setting=setting, aggregator=method)


def at(var: str, setting: str):
    return needing(lambda ds: ds[var].sel(setting=setting), setting=setting)


def within(ours: str, baseline: str, setting: str, factor: float):
    """1 in a trial where ``ours``' error is at most ``factor`` times ``baseline``'s in the given column."""
    return needing(lambda ds: (error_at(setting, ours)(ds) <= factor * error_at(setting, baseline)(ds)).astype(float),
                   setting=setting, aggregator=[ours, baseline])


def completed(setting: str):
    """1 in a trial where Remark 1's rule leaves no block missing in the given column, else 0."""
    return needing(lambda ds: (ds["missing_after"].sel(setting=setting) == 0.0).astype(float), setting=setting)


for number, sweep in ((1, TABLE1), (2, TABLE2)):
    PAPER.claim(
        f"table{number}.robsymnmf_beats_mv", item=f"Table {number} (Section 4, UCI data)",
        statement="'The proposed methods show promising classification performance in all cases' (Tables 1-2; the "
                  f"paper at p_m = 0.3: RobSymNMF {PRINTED[number]['robsymnmf'][0]} % against majority voting "
                  f"{PRINTED[number]['mv'][0]} %): ten classifiers trained on a fifth of the data as annotators, "
                  "each labelling a test item with p_m = 0.3; RobSymNMF's mean error over trials is below majority "
                  f"vote's. {STAND_IN[number]} (the UCI sets cannot be downloaded here).",
        formula=r"\overline{\mathrm{err}}(\mathrm{RobSymNMF}) < \overline{\mathrm{err}}(\mathrm{MV}),\ p_m = 0.3",
        law=Comparison(error_at("p=0.3", "robsymnmf"), error_at("p=0.3", "mv"), "less", 1.0), sweep=sweep,
        table=printed_table(number),
        controls=(Control("half", "at most half majority vote's error",
                          law=Comparison(error_at("p=0.3", "robsymnmf"), error_at("p=0.3", "mv"), "less", 0.5)),))

PAPER.claim(
    "table1.dessymnmf_completes", item="Table 1 (Section 4, UCI data)",
    statement="'There are 10 % of co-occurrences missing in the cases corresponding to the first columns of Tables 1 "
              "and 2. DesSymNMF using (7)-(8) is able to impute all the missing ones': on Table 1's stand-in, with "
              "p_m = 0.3 every pair of the ten annotators co-labels items, so the missing 10 % are the diagonal "
              "blocks R_{m,m}; Remark 1's rule (Eq. 7-8; the best of up to 16 triangles whose U_l is not singular) "
              "leaves none missing in any trial (the mean over trials is 0).",
    formula=r"\text{missing after (7)-(8)} = 0\ (10\,\%\ \text{before})",
    law=Bound(at("missing_after", "p=0.3"), 0.0, "<="), sweep=TABLE1,
    controls=(Control("before", "the proportion before imputation (10 %) at most 0",
                      law=Bound(at("missing_before", "p=0.3"), 0.0, "<=")),))

PAPER.claim(
    "table3.dessymnmf_missing_30", item="Table 3 (Appendix C.2)",
    statement="'DesSymNMF still improves the missing proportions to 17 %, 9 % and 0 %' for Miss = 70, 50, 30 %: "
              "Appendix C.2's design (the test items in parts of 0.1N, 0.3N, 0.6N, each labelled by its own P "
              "annotators, the P adjusted until exactly Miss of the 100 blocks are missing, the diagonal included); "
              "at Miss = 30 % Remark 1's rule leaves no block missing in most designs (at least half; about 90 % "
              "are completed, the others leave one or two blocks). The 50 % column is not a claim: 9 of 60 designs "
              "are disconnected there (mean after imputation 5.6 %, the paper 9 %).",
    formula=r"P(\text{missing after (7)-(8)} = 0\,\%) \ge 1/2\ \text{at Miss} = 30\,\%",
    law=Bound(completed("miss=30%"), 0.5, ">=", probability=True), sweep=TABLE3,
    controls=(Control("at_70", "the same at Miss = 70 %",
                      law=Bound(completed("miss=70%"), 0.5, ">=", probability=True)),))

PAPER.claim(
    "table3.dessymnmf_missing_70", item="Table 3 (Appendix C.2)",
    statement="'DesSymNMF still improves the missing proportions to 17 % ...' at Miss = 70 %: on designs drawn as "
              "in Appendix C.2 with exactly 70 % of the blocks missing, Remark 1's rule leaves at most 17 % missing "
              "(mean over designs).",
    formula=r"\text{missing after (7)-(8)} \le 17\,\%\ \text{at Miss} = 70\,\%",
    law=Bound(at("missing_after", "miss=70%"), 17.0, "<="), sweep=TABLE3, expected=REFUTED,
    finding=erratum(
        "Impossible under the stated design: with M = 10 annotators, three parts each co-labelled by its own "
            "annotators, every annotator in at least one part, and exactly 70 % of the 100 blocks missing (the "
            "diagonal counted, as in Section 4 and Table 1's 10 %), the co-labelling graph always falls apart into two "
            "components, of 3 and 7 or of 4 and 6 annotators (an exhaustive count over the 8008 ways to assign ten "
            "annotators to the seven non-empty sets of parts: connected designs leave at most 64 % missing). No "
            "triangle of observed blocks crosses components, so at least 42 % stay missing after Eq. (7)-(8), not 17 "
            "%; measured: 42 or 48 % in 55 of the full tier's 60 designs, 49-50 % in the others (a diagonal block "
            "whose triangles are all singular). Counting over the 90 off-diagonal blocks instead changes nothing. "
            "(At Miss = 50 % a single design leaves 0, 1 or 34 % missing, so the printed 9.0 % is possible as a "
            "mean of 20 such trials: not an erratum.) "
            "Scope: Appendix C.2's design as stated with Table 3's M = 10, every pair in a part co-labelling; the "
            "part sizes P are drawn uniformly in [2, 10] until exactly 70 % is missing. An independent "
            "re-derivation (its own exhaustive count) agrees, and found one reading that reaches 17 %: annotators "
            "labelling a part's items so rarely (p of about 0.1, not stated in the paper) that some pairs in a part "
            "never co-label, with Eq. (7)-(8) applied in a single pass (repeating it then fills every block).",
        derivation="An exhaustive count over the 8008 ways to assign ten annotators to the seven non-empty sets "
                   "of three parts (connected designs leave at most 64 % missing); re-derived independently from"
                   " the paper's text: 17 % is impossible for every denominator and even as a mean over designs "
                   "(smallest mean 33 %)."),
    controls=(Control("lowered", "imputation lowers the missing proportion at Miss = 70 %", CONFIRMED,
                      law=Comparison(at("missing_after", "miss=70%"), at("missing_before", "miss=70%"), "less",
                                     1.0)),))

PAPER.claim(
    "table3.robsymnmf_beats_baselines", item="Table 3 (Appendix C.2)",
    statement="'The proposed method largely outperforms the baselines, especially in the cases where 70 % of the "
              "R_{m,j}'s are not observed' (the paper: RobSymNMF 24.01 % against MV-EM 30.27 %, a ratio of 0.79): "
              "at Miss = 70 %, RobSymNMF's mean error is at most 0.8 times MV-EM's. Judged on our corrected "
              "RobSymNMF (robsymnmf-components: each connected component of the co-labelling graph factored and "
              "aligned on its own), since at 70 % the graph is always disconnected (table3.dessymnmf_missing_70) and "
              f"the plain pipeline's one global alignment then fails (a control). {STAND_IN[3]}.",
    formula=r"\overline{\mathrm{err}}(\mathrm{RobSymNMF}) \le 0.8\,\overline{\mathrm{err}}(\mathrm{MV\text{-}EM}),"
            r"\ \text{Miss} = 70\,\%",
    law=Comparison(error_at("miss=70%", "robsymnmf-components"), error_at("miss=70%", "mv-em"), "less", 0.8),
    sweep=TABLE3, expected=REFUTED, table=printed_table(3),
    finding=not_reproduced(
        "Not reproduced on a stand-in, so not evidence against the paper: its Car data are not here, and on the "
            "stand-in MV-EM errs 7 % where the paper's MV-EM errs 30 %, leaving little room to outperform. The "
            "stand-in: scikit-learn's digits 3, 5, 8, 9 with ten scikit-learn "
            "classifiers; Appendix C.2's design at exactly 70 % missing). At 70 % the co-labelling graph is always "
            "disconnected, and the co-occurrences (3) do not tie one component's class order to the other's "
            "(Proposition 1 identifies each only up to its own permutation): the plain pipeline, which aligns the "
            "classes once for all annotators by diagonal dominance, errs 28-35 % (DesSymNMF 28-34 %, SymNMF 39-41 %; "
            "quick and full tiers) against MV-EM's 7-8 %, with one component's classes permuted. Aligning each "
            "component on its own (robsymnmf-components, as MultiSPA aligns each annotator) removes that failure: "
            "7.8 % against MV-EM's 7.1 % (full tier, 60 trials), level with MV-EM, not 20 % below it. At Miss = 30 % "
            "(connected designs) the SymNMF family is level with MV-EM too (about 6 %). Scope: our implementations as "
            "documented, the stand-in data, each part's annotators labelling all of its items (the paper states no "
            "p_m for Table 3).",
        cause="data"),
    controls=(Control("global_alignment", "the plain pipeline (one global alignment): MV-EM's error below its",
                      CONFIRMED, law=Comparison(error_at("miss=70%", "mv-em"), error_at("miss=70%", "robsymnmf"),
                                                "less", 1.0)),
              Control("per_component", "the corrected RobSymNMF level with MV-EM: in most trials (at least half) "
                      "its error at Miss = 70 % is at most 1.5 times MV-EM's", CONFIRMED,
                      law=Bound(within("robsymnmf-components", "mv-em", "miss=70%", 1.5), 0.5, ">=",
                                probability=True))))
