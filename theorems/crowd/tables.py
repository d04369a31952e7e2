"""Table 7 (synthetic answers) and Tables 4-5 (the real answer sets shipped here) of Ibrahim & Fu (2021), with the
paper's printed numbers beside ours, and the missing-co-occurrence proportions the paper reports in Section 4."""
from __future__ import annotations

from simverify.claims import CONFIRMED, REFUTED, Control, PrintedTable
from simverify.findings import not_reproduced
from simverify.laws import Bound, Comparison, MatchesPrinted, MatchesPrintedMean, needing
from simverify.solvers.crowd.minimax_entropy import START_STEPS
from simverify.solvers.crowd.model import START_SMOOTHING
from simverify.solvers.crowd.pipeline import CNMF_SWEEPS
from simverify.solvers.crowd.spectral import POWER_STARTS, POWER_STEPS

from . import PAPER
from . import sweeps as sw
from .measures import PAPER_ROWS


def mse_at_n(N: int):
    return needing(lambda ds: ds["mse"].sel(N=N), N=N)


TABLE7 = PrintedTable("Table 7: average MSE (M = 25, K = 3, p = 0.3)", ("N=1000", "N=10000"),
                      {"robsymnmf": [0.0099, 0.0012], "dessymnmf": [0.0127, 0.0029], "multispa": [0.2248, 0.1575],
                       "cnmf": [0.0314, 0.0009], "spectral-ds": [0.0465, 0.0050], "mv-em": [0.0495, 0.1051],
                       "tensor-admm": [0.0218, 0.0011]},
                      lambda ds: {str(m): [float(ds["mse"].sel(aggregator=m, N=n).mean()) for n in (1000, 10000)]
                                  for m in ds["aggregator"].values})

def rob_ahead(baselines: tuple[str, ...], factor: float = 0.6, N: int = 1000):
    """1 in a trial where RobSymNMF's MSE is at most ``factor`` times the best of ``baselines``' at N items."""
    def quantity(ds):
        mse = ds["mse"].sel(N=N)
        return (mse.sel(aggregator="robsymnmf") <= factor * mse.sel(aggregator=list(baselines)).min("aggregator")
                ).astype(float)
    return quantity


PAPER.claim(
    "table7.robsymnmf_beats_baselines", item="Table 7 (Appendix C.1.1)",
    statement="'The MSEs of the proposed methods are at least 40 % lower than the best-performing baseline when the "
              "number of data items is small (N = 1000)': M = 25, K = 3, p = 0.3, Appendix C.1.1's model; in most "
              "trials (at least half) RobSymNMF's MSE (19) is at most 0.6 times the smaller of MV-EM's and "
              "MultiSPA's. Each method's mean MSE is listed beside the paper's.",
    formula=r"\mathrm{MSE}_{\mathrm{RobSymNMF}} \le 0.6\,\min_b \mathrm{MSE}_b,\ b \in \{\mathrm{MV\text{-}EM},"
            r"\ \mathrm{MultiSPA}\},\ N = 1000",
    law=Bound(rob_ahead(("mv-em", "multispa")), 0.5, ">=", probability=True), sweep=sw.TABLE7, expected=REFUTED,
    table=TABLE7,
    finding=not_reproduced(
        "Not reproduced under Appendix C.1.1's stated process (prior and confusion columns ~ Dirichlet(1), one "
            "specialist at epsilon = 0.1): at N = 1000 our RobSymNMF reaches a mean MSE of about 0.06 (the paper: "
            "0.0099) and Dawid-Skene EM from majority vote about 0.05 (the paper: 0.0495); RobSymNMF is 40 % "
            "better than EM in few trials. Dirichlet(1) priors often give one class a prior near 0.01; every method "
            "then fails on that class, which dominates the mean. The paper's MV-EM getting worse with N (0.0495 to "
            "0.1051) is not seen either: ours improves. Scope: our implementations of both; the paper does not "
            "state its EM's stopping rule or start.",
        cause="protocol"),
    controls=(Control("vs_multispa", "RobSymNMF against MultiSPA only (at most 0.6 times its MSE in most trials)",
                      CONFIRMED, law=Bound(rob_ahead(("multispa",)), 0.5, ">=", probability=True)),))


def more_items_better(more: int, fewer: int):
    """1 in a trial where RobSymNMF's MSE from the first ``more`` items is below that from the first ``fewer``."""
    return lambda ds: (ds["mse"].sel(aggregator="robsymnmf", N=more) < ds["mse"].sel(aggregator="robsymnmf", N=fewer)
                       ).astype(float)


PAPER.claim(
    "table7.more_items_lower_mse", item="Table 7 (Appendix C.1.1)",
    statement="'As N increases, the MSEs of all the methods become better': on the same model, RobSymNMF's MSE from "
              "the first 10000 items is below its MSE from the first 1000 in most trials (at least half).",
    formula=r"\mathrm{MSE}(N = 10000) < \mathrm{MSE}(N = 1000)",
    law=Bound(more_items_better(10000, 1000), 0.5, ">=", probability=True), sweep=sw.TABLE7,
    controls=(Control("reversed", "the opposite order in most trials: more items, a larger MSE",
                      law=Bound(more_items_better(1000, 10000), 0.5, ">=", probability=True)),))

PRINTED_ERRORS = {  # Tables 4 and 5, error (%)
    "bluebird": {"robsymnmf": 11.11, "robsymnmf-em": 11.11, "robsymnmf-unweighted": 11.11, "dessymnmf": 10.18,
                 "dessymnmf-em": 10.18, "symnmf": 10.18, "multispa": 13.88, "cnmf": 11.11, "spectral-ds": 12.03,
                 "minimax-entropy": 8.33, "tensor-admm": 12.03,
                 "mv-em": 12.03, "kos": 11.11, "ghosh-svd": 27.77, "eigen-ratio": 27.77, "mv": 21.29},
    "rte": {"robsymnmf": 7.25, "robsymnmf-em": 7.12, "robsymnmf-unweighted": 7.37, "dessymnmf": 13.87,
            "dessymnmf-em": 7.25, "symnmf": 48.75, "multispa": 8.37, "cnmf": 7.12, "spectral-ds": 7.12,
            "minimax-entropy": 7.5,
            "mv-em": 7.25, "kos": 39.75, "ghosh-svd": 49.12, "eigen-ratio": 9.01, "mv": 10.31},
    "dog": {"robsymnmf": 16.10, "robsymnmf-em": 15.86, "robsymnmf-unweighted": 16.10, "dessymnmf": 16.35,
            "dessymnmf-em": 15.86, "symnmf": 16.72, "multispa": 17.96, "cnmf": 15.86, "spectral-ds": 17.84,
            "minimax-entropy": 16.23, "tensor-admm": 18.01, "mv-em": 15.86,
            "mv": 17.91},  # KOS's 31.84: ours is binary only
    "trec": {"robsymnmf": 30.68, "robsymnmf-em": 29.62, "robsymnmf-unweighted": 33.23, "dessymnmf": 36.75,
             "dessymnmf-em": 29.36, "symnmf": 35.47, "multispa": 31.56, "cnmf": 29.84, "spectral-ds": 29.58,
             "minimax-entropy": 30.89, "mv-em": 30.02, "kos": 51.95, "ghosh-svd": 43.03, "eigen-ratio": 43.95,
             "mv": 34.85},
}


def error_table(name: str, title: str) -> PrintedTable:
    printed = {PAPER_ROWS[m]: [v] for m, v in PRINTED_ERRORS[name].items()}

    def measured(ds):
        return {PAPER_ROWS[str(m)]: [float(ds["error"].sel(aggregator=m).mean())]
                for m in ds["aggregator"].values if str(m) in PAPER_ROWS}
    return PrintedTable(title, ("error (%)",), printed, measured, "%")


def against_mv(ours: str = "robsymnmf-em", factor: float = 1.0, baseline: str = "mv",
               relation: str = "less") -> Comparison:
    return Comparison.against("wrong", ours, (baseline,), dim="aggregator", relation=relation, factor=factor,
                              resample="item")


def error_of(method: str):
    return needing(lambda ds: ds["error"].sel(aggregator=method), aggregator=method)


REPRODUCED = (  # (table, data set, method, a printed value of another method as the control)
    ("table4", "bluebird", "multispa", 11.11),
    ("table4", "bluebird", "ghosh-svd", 21.29),
    ("table4", "bluebird", "eigen-ratio", 21.29),
    ("table5", "rte", "robsymnmf-em", 7.25),
    ("table5", "rte", "mv-em", 7.12),
    ("table5", "rte", "ghosh-svd", 48.75),
    ("table5", "rte", "mv", 8.37),
    ("table5", "rte", "spectral-ds", 7.25),
    ("table4", "dog", "robsymnmf-em", 16.10),
    ("table4", "bluebird", "minimax-entropy", 11.11),  # at the penalties of the authors' callers
    ("table4", "dog", "minimax-entropy", 15.86),
    ("table4", "bluebird", "tensor-admm", 11.11),  # as the authors' callers configure it (main_AMT.m)
    ("table4", "dog", "multispa", 17.84),
    ("table4", "dog", "mv", 17.84, False),  # 144.5 of 807 = 17.906 %: a half count, printed rounded
    ("table5", "trec", "mv", 35.47),
)


SET_NOTE = {"dog": " (its 52 most active annotators: the paper's M = 52, as the authors' loader keeps them)"}


def printed_error_claim(table: str, name: str, method: str, control: Control, truncated: bool = True,
                        **verdict) -> None:
    """Register Table 4/5's printed error of ``method`` on the set ``name`` as a claim (``verdict``: expected and
    the finding when it is not reproduced; ``truncated`` False: the printed digits are rounded)."""
    number, printed = table[-1], PRINTED_ERRORS[name][method]
    PAPER.claim(
        f"{table}.{name}.{method}", item=f"Table {number}",
        statement=f"On the AMT set {name}{SET_NOTE.get(name, '')} (shipped here with its gold labels) "
                  f"{PAPER_ROWS[method]}'s classification "
                  f"error is the printed {printed:.2f} %. Most of the paper's Table 4-5 errors read as truncated to "
                  "two decimals (7.125 is printed 7.12, 13.888 as 13.88), though not all (a half-count on dog needs "
                  "rounding), so the measured error must lie in "
                  + (f"[{printed:.2f}, {printed + 0.01:.2f})" if truncated else
                     f"[{printed - 0.005:.3f}, {printed + 0.005:.3f}] (this number is printed rounded)")
                  + ". Every method's error is listed beside the paper's.",
        formula=rf"\mathrm{{err}}(\mathrm{{{PAPER_ROWS[method]}}}) = {printed:.2f}\,\%",
        law=MatchesPrinted(error_of(method), printed, 2, truncated=truncated), sweep=sw.REAL[name],
        table=error_table(name, f"Table {number}: error (%) on {name}"), controls=(control,), **verdict)


for table, name, method, other, *rule in REPRODUCED:
    cut = rule[0] if rule else True  # truncated, unless the entry says the printed digits are rounded
    printed_error_claim(table, name, method, Control("other_row", f"the printed error of another row, {other:.2f} %",
                                                     law=MatchesPrinted(error_of(method), other, 2, truncated=cut)),
                        truncated=cut)

GOLD_ITEMS = {"bluebird": 108, "rte": 800, "dog": 807, "trec": 2275}
SYMNMF_STEP = ("Eq. (13) with alpha_t = alpha_0 = 1e-6 from Q_(0) = I (at most 500 iterations, stopped when the cost "
               "changes by less than 1e-6 relatively), Proposition 1's extraction, the columns aligned by diagonal "
               "dominance")
EM_STEP = ("Dawid-Skene EM with crowd-kit's stopping rule (at most 100 iterations, stopped when the evidence lower "
           "bound per answer gains less than 1e-5)")
IMPUTATION = {
    "symnmf": "the missing and diagonal blocks left zero",
    "dessymnmf": "Eq. (7)-(8)'s imputation, the diagonal included, from the triangle whose weakest block has the "
                 "largest sigma_min(R)^2 sqrt(S) among each annotator's 32 best-scored neighbours (the paper does "
                 "not say which triangle; the next of the 16 best when its U_l is numerically singular), "
                 "unreachable blocks zero",
    "robsymnmf": "criterion (9) by Algorithm (11) (xi = 1e-12, D = 1) from a spectral start, unweighted iterations "
                 "then reweighted ones (the paper does not state the start)",
    "robsymnmf-unweighted": "criterion (9) with w_(m,j) = 1 by Algorithm (11) (D = 1) from a spectral start (the "
                            "paper does not state the start)"}
SCOPE = {
    "mv": "majority vote, a tie split 1/(number tied)",
    "mv-em": f"{EM_STEP}, started from the majority-vote fractions",
    **{m: f"{IMPUTATION[m]}, then {SYMNMF_STEP}, MAP labels" for m in IMPUTATION},
    **{f"{m}-em": f"{IMPUTATION[m]}, then {SYMNMF_STEP}, then {EM_STEP} from that model"
       for m in ("dessymnmf", "robsymnmf")},
    "multispa": "following Ibrahim, Fu, Kargas & Huang (2019)'s description, SPA on each annotator's l1-normalised "
                "co-occurrence rows, the columns ordered by diagonal dominance, the prior by least squares on the "
                "observed blocks, MAP labels",
    "cnmf": "criterion (4) in Kullback-Leibler form as Ibrahim, Fu, Kargas & Huang (2019) fit it (every observed "
            "block weighted equally), minimised by the monotone EM updates of the pairwise latent-class model (not "
            f"their alternating algorithm) from MultiSPA's model mixed with {START_SMOOTHING:.0%} of the uniform "
            f"confusion, at most {CNMF_SWEEPS} sweeps, MAP labels",
    "spectral-ds": "Algorithm 1 of Zhang, Chen, Zhou & Jordan (2014) (workers dealt by answer count into three "
                   f"groups, robust tensor power method with {POWER_STARTS} starts of {POWER_STEPS} steps, groups "
                   "matched by their cross moments, classes named by diagonal dominance), then Dawid-Skene EM from "
                   f"that model mixed with {START_SMOOTHING:.0%} of the uniform confusion",
    "minimax-entropy": "regularised minimax conditional entropy (Zhou et al. 2012, 2015), the categorical model "
                       "of Liu's code that the authors ran, at the penalties their callers set (main_AMT.m: "
                       "lambda_worker = K^2 / 4, lambda_task = lambda_worker x N / M; no gold label read); the "
                       f"terms fitted to majority-vote fractions ({START_STEPS} L-BFGS steps), then L-BFGS on the "
                       "penalised likelihood with the classes summed out, to convergence (the code stops its EM "
                       "when no posterior moves by 5e-3)",
    "tensor-admm": "Traganitis, Pages-Zamora & Giannakis (2018)'s AO-ADMM as the authors' released code runs it "
                   "(EstConfMat_AO_ADMM.m from main_AMT.m: second- and third-order co-occurrences, every pair and "
                   "triple of annotators fitted with the unobserved ones as zeros, the first-order term with zero "
                   "means, at most 499 sweeps of 10 ADMM steps, tolerances 1e-6 and 1e-3), from a random start "
                   "(root seed 0; the paper's was MATLAB's rng(5)), each annotator's confusion aligned on its own, "
                   "MAP labels",
    "ghosh-svd": "following Ghosh, Kale & McAfee (2011)'s description, the sign of the leading left singular vector "
                 "of the +-1/0 item-annotator matrix (LAPACK's SVD), oriented so that the annotator vector is "
                 "mostly positive; an item whose entry is zero up to rounding takes the sign rounding gives it",
    "kos": "following Karger, Oh & Shah (2011)'s description, 20 rounds of message passing from messages "
           "y ~ N(1, 1), the label the sign of the item score (the same error from 20 different draws of y); the "
           "paper's code was not available",
    "eigen-ratio": "following Dalvi et al. (2013)'s description, worker weights the ratio of the leading "
                   "eigenvectors of the agreement and co-labelling matrices (diagonals zeroed), the label the sign of "
                   "the weighted vote; the paper's code was not available"}
NOTE = {
    ("bluebird", "mv"): "Majority vote leaves no choice here: every Bluebird item has 39 answers of two classes, so "
                        "there are no ties and any implementation gives 26 of 108 on the shipped file; 21.29 needs "
                        "another answer file (24.07, our value, is what the paper prints for PG-TAC and CRIAV). ",
    ("rte", "eigen-ratio"): "No whole or half count of the 800 items gives 9.01 % (72 errors give 9.00 %, 72.5 "
                            "give 9.06 %, 73 give 9.12 %), but it fits a mean over 7 or more randomised runs (the "
                            "same tables hold other non-counts, dog TensorADMM 18.01 %): not a single-run count, "
                            "probably a mean or a typo, so not an erratum. "
                            "Ours is at chance on RTE (majority vote errs 10.31 %): 55 % of its worker weights come "
                            "out negative on this sparse set, so the mismatch is a failure of our implementation, not "
                            "evidence against the paper's EigenRatio. ",
    ("rte", "kos"): "Ours is at chance on RTE (majority vote errs 10.31 %): the mismatch is a failure of our "
                    "implementation on this sparse set, not evidence against the paper's KOS. ",
    ("bluebird", "kos"): "Ours errs as often as GhoshSVD and EigenRatio here (27.78 %), far behind majority vote "
                         "(24.07 %) and EM (11.11 %): likely a weakness of our implementation, not evidence against "
                         "the paper's KOS. "}
CODE_ALIGNMENT = ("The authors' released code (main_AMT.m) aligns each annotator's confusion matrix on its own after "
                  "flooring its entries at 1e-3 (getPermutedMatrix: the column for class k becomes the annotator's "
                  "column largest in row k), a step the paper does not print; with it (method {method}) we "
                  "measure {ours}. ")
def code_variant(method: str) -> str:
    """The method with the authors' code's per-annotator alignment: robsymnmf-em -> robsymnmf-per-annotator-em."""
    base = method.removesuffix("-em")
    return f"{base}-per-annotator{'-em' if base != method else ''}"


CODE_MEASURED = {  # (data set, method) -> our error with the code's alignment, as the note prints it
    ("dog", "robsymnmf"): "131 of 807 = 16.23 % (the printed 16.10 % is 130)",
    ("dog", "symnmf"): "132 of 807 = 16.35 %, the printed DesSymNMF",
    ("dog", "dessymnmf"): "132 of 807 = 16.35 %, the printed value",
    ("dog", "dessymnmf-em"): "128 of 807 = 15.86 % (10 EM rounds), the printed value",
    ("trec", "robsymnmf"): "678 of 2275 = 29.80 %",
    ("trec", "robsymnmf-em"): "668 of 2275 = 29.36 % (10 EM rounds, as the code runs)",
    ("trec", "symnmf"): "814 of 2275 = 35.78 %",
    ("trec", "dessymnmf"): "870 of 2275 = 38.24 %",
    ("trec", "dessymnmf-em"): "783 of 2275 = 34.41 % (10 EM rounds)"}
for (_name, _method), _ours in CODE_MEASURED.items():
    NOTE[(_name, _method)] = CODE_ALIGNMENT.format(method=code_variant(_method), ours=_ours)
NOTE[("dog", "tensor-admm")] = (
    "No whole or half count of the 807 items gives 18.01 % (145 give 17.96 %, 146 give 18.09 %): a mean over runs, "
    "or a typo. TensorADMM starts at random: over root seeds 0-39 of the start (a run by hand, not recorded) ours "
    "erred on 139 items (11 seeds), 140 (19), 141 (1) and 259 to 287 (9 local minima), a mean of 168.2 items "
    "(20.84 %): neither a typical start nor the mean gives 18.01 %. ")
KERNELS = ("With OpenBLAS's SkylakeX kernels (an AVX-512 Xeon's own choice) we measured {sk} wrong items; the project "
           "pins OpenBLAS's Haswell kernels, which every x86-64 host with AVX2 runs (simverify.hostinfo), and with "
           "them {hw}. {why}")
NOTE[("trec", "ghosh-svd")] = KERNELS.format(
    sk="979 of 2275 = 43.03 %, the printed value,", hw="978",
    why="The count moves by one item with the order of the floating-point sums. ")
NOTE[("trec", "dessymnmf")] = KERNELS.format(
    sk="986", hw="985", why="Between the two, 112 of the 19,033 items change label (posteriors such as 0.75 against "
    "3e-8): the annotators' estimated confusion matrices on this sparse set depend on rounding. ")
NOTE[("trec", "dessymnmf-em")] = KERNELS.format(
    sk="881", hw="883", why="DesSymNMF's start differs between the two (its note), and EM does not erase it. ")
CAUSE = {("bluebird", "mv"): "data", ("bluebird", "kos"): "implementation", ("rte", "kos"): "implementation",
         ("rte", "eigen-ratio"): "implementation",
         ("dog", "dessymnmf"): "implementation", ("dog", "dessymnmf-em"): "implementation"}  # the rest: unknown
MISMATCHED = (  # (table, data set, method, our number of wrong gold items): the rest of the printed errors
    ("table4", "bluebird", "mv", 26), ("table4", "bluebird", "mv-em", 12), ("table4", "bluebird", "symnmf", 13),
    ("table4", "bluebird", "dessymnmf", 13), ("table4", "bluebird", "dessymnmf-em", 13),
    ("table4", "bluebird", "robsymnmf", 13), ("table4", "bluebird", "robsymnmf-em", 13),
    ("table4", "bluebird", "robsymnmf-unweighted", 13), ("table4", "bluebird", "kos", 30),
    ("table5", "rte", "symnmf", 89), ("table5", "rte", "dessymnmf", 63), ("table5", "rte", "dessymnmf-em", 60),
    ("table5", "rte", "robsymnmf", 61), ("table5", "rte", "robsymnmf-unweighted", 60),
    ("table5", "rte", "multispa", 68), ("table5", "rte", "kos", 402), ("table5", "rte", "eigen-ratio", 394),
    ("table4", "bluebird", "cnmf", 13), ("table5", "rte", "cnmf", 63),
    ("table5", "rte", "minimax-entropy", 61),
    ("table4", "bluebird", "spectral-ds", 12),
    *(("table4", "dog", m, w) for m, w in (  # the 52 most active annotators
        ("robsymnmf", 139), ("robsymnmf-unweighted", 139), ("dessymnmf", 139), ("dessymnmf-em", 133),
        ("symnmf", 138), ("cnmf", 143), ("spectral-ds", 127), ("mv-em", 127), ("tensor-admm", 139))),
    *(("table5", "trec", m, w) for m, w in (
        ("robsymnmf", 693), ("robsymnmf-em", 680), ("robsymnmf-unweighted", 691), ("dessymnmf", 985),
        ("dessymnmf-em", 883), ("ghosh-svd", 978), ("symnmf", 946), ("multispa", 754), ("cnmf", 670),
        ("spectral-ds", 689),
        ("minimax-entropy", 682), ("mv-em", 679), ("kos", 973), ("eigen-ratio", 960))),
)


def printed_counts(name: str, printed: float) -> list[int]:
    """The numbers of wrong gold items whose error (%) truncates to ``printed``."""
    n = GOLD_ITEMS[name]
    return [k for k in range(n + 1) if 10000 * k // n == round(100 * printed)]


def gap(name: str, printed: float, wrong: int) -> str:
    """How far ``wrong`` errors are from the printed percentage, in items."""
    n, fits = GOLD_ITEMS[name], printed_counts(name, printed)
    if not fits:
        return f"the printed {printed:.2f} % is no whole number of the {n} items"
    d = wrong - fits[0]
    return (f"the printed {printed:.2f} % is {fits[0]} of {n}: {abs(d)} item{'s' if abs(d) > 1 else ''} "
            f"{'more' if d > 0 else 'fewer'} wrong")


for table, name, method, wrong in MISMATCHED:
    n, printed = GOLD_ITEMS[name], PRINTED_ERRORS[name][method]
    ours = 10000 * wrong // n / 100  # our error truncated as the paper truncates
    printed_error_claim(
        table, name, method, Control("measured", f"our error, {ours:.2f} % ({wrong} of {n} items)", CONFIRMED,
                                     law=MatchesPrinted(error_of(method), ours, 2, truncated=True)),
        expected=REFUTED,
        finding=not_reproduced(
            f"Not reproduced by our implementation: we measure {100 * wrong / n:.2f} % ({wrong} of {n} gold items, "
            f"{ours:.2f} truncated as the paper truncates), {gap(name, printed, wrong)}. "
            f"{NOTE.get((name, method), '')}The data are fixed and the error does not depend on the root seed. "
            f"Scope: our implementation of {PAPER_ROWS[method]} as documented: {SCOPE[method]}.",
            cause=CAUSE.get((name, method), "unknown")))

PAPER.claim(
    "extra.temp", item="Tables 4-5 (extra evidence)",
    statement="On the RTE companion set temp (462 items, 76 workers, 2 classes; not in the paper) RobSymNMF-EM and "
              "majority vote are comparable: the ratio of their errors lies in [1/2, 2] (both are near 6 %).",
    formula=r"\frac{1}{2} \le \mathrm{err}(\mathrm{RobSymNMF\text{-}EM}) / \mathrm{err}(\mathrm{MV}) \le 2",
    law=against_mv(factor=2.0, relation="comparable"), sweep=sw.REAL["temp"],
    controls=(Control("half", "at most half majority vote's error", law=against_mv(factor=0.5)),))

PAPER.claim(
    "extra.web", item="Tables 4-5 (extra evidence)",
    statement="On the web search relevance set web (2665 items, 177 workers, 5 classes; not in the paper) "
              "RobSymNMF-EM labels at least as accurately as majority vote.",
    formula=r"\mathrm{err}(\mathrm{RobSymNMF\text{-}EM}) \le \mathrm{err}(\mathrm{MV})",
    law=against_mv(), sweep=sw.REAL["web"], expected=REFUTED,
    finding=not_reproduced(
        "Not a claim of the paper, which reports no 5-class AMT set with this sparsity: on web (85.7 % of the "
            "co-occurrence blocks missing, 5 classes) the SymNMF family is far worse than majority vote (RobSymNMF "
            "about 48 %, RobSymNMF-EM about 35 %, majority vote 26.9 %, MV-EM 17.1 %). Scope: web as shipped, our "
            "implementation with the paper's alpha_0 = 1e-6 and Q_(0) = I.",
        cause="data"),
    controls=(Control("mv_em", "MV-EM at least as accurate as majority vote", CONFIRMED,
                      law=against_mv("mv-em")),))

PAPER.claim(
    "section4.rte_missing", item="Section 4 (AMT data)",
    statement="90.68 % of RTE's pairwise co-occurrence blocks are missing (counting the M^2 blocks of X, the "
              "unobservable diagonal included).",
    formula=r"1 - |\Omega| / M^2 = 90.68\,\%",
    law=MatchesPrinted("missing_before", 90.68, 2), sweep=sw.MISSING["rte"],
    controls=(Control("observed_share", "the observed share, 9.32 %, taken for the missing one",
                      law=MatchesPrinted("missing_before", 9.32, 2)),))

PAPER.claim(
    "section4.rte_dessymnmf_missing", item="Section 4 (AMT data)",
    statement="'DesSymNMF is able to bring down the missing proportions to ... 50.15 %' on RTE: measured with "
              "Remark 1's rule, every block some triangle of observed blocks reaches (triangles scored by counts).",
    formula=r"\text{missing after (7)-(8)} = 50.15\,\%",
    law=MatchesPrinted("missing_after", 50.15, 2), sweep=sw.MISSING["rte"], expected=REFUTED,
    finding=not_reproduced(
        "Imputing every block (m, n) for which Remark 1's triangle exists (R_{m,r}, R_{l,r}, R_{n,l} observed "
            "for some l != r), the diagonal included, completes all of RTE's blocks: 0.00 % remain missing, not "
            "50.15 %. The paper does not say which further restriction its code applied. Scope: RTE as shipped (the "
            "90.68 % before imputation matches the paper exactly); Bluebird's 0.00 % matches. Our DesSymNMF's "
            "default (triangles scored by conditioning, singular sample blocks skipped) leaves 1.15 %. Re-derived "
            "independently from the data file: 0.00 % also with l, r distinct from m, n or with at least 10 "
            "co-labelled items per block; RTE's batches of 20 items by 10 annotators, one of whom labelled all 800, "
            "leave a triangle for every block.",
        cause="protocol"),
    controls=(Control("every_triangle", "0.00 % missing after imputation with every available triangle",
                      CONFIRMED, law=MatchesPrinted("missing_after", 0.0, 2)),))

PAPER.claim(
    "section4.bluebird_dessymnmf_missing", item="Section 4 (AMT data)",
    statement="DesSymNMF brings Bluebird's missing proportion (2.5 %: the 39 diagonal blocks) down to 0.00 %.",
    formula=r"\text{missing after (7)-(8)} = 0.00\,\%",
    law=MatchesPrinted("missing_after", 0.0, 2), sweep=sw.MISSING["bluebird"],
    controls=(Control("unchanged", "the proportion before imputation kept (2.56 %)",
                      law=MatchesPrinted("missing_after", 2.56, 2)),))



def spread(ds):
    """|error - its mean over restarts| per restart: its mean is the error's mean absolute deviation."""
    return abs(ds["error"] - ds["error"].mean("replicate"))


PAPER.claim(
    "table9.restart_spread", item="Table 9 and Figure 4 (Appendix C.3)",
    statement="RobSymNMF-EM is stable over random restarts (the paper on LabelMe: 22.1 % +- 0.5 % over 100 trials, "
              "against CrowdLayer's +- 4.7 %): on web (5 classes; LabelMe, now shipped, by table9.labelme.restarts; "
              "any answers file runs with --set answers=PATH), restarting Eq. (13) from random orthogonal Q_(0), "
              "the error's standard deviation from its mean over restarts is at most 1 percentage point on average "
              "(the mean absolute deviation; the paper reports a standard deviation, whose squares are too skewed "
              "across restarts to bound with few trials).",
    formula=r"\mathrm{E}_{\mathrm{restarts}}|\mathrm{err} - \overline{\mathrm{err}}| \le 1\ \text{percentage point}",
    law=Bound(spread, 1.0, "<="), sweep=sw.RESTARTS,
    controls=(Control("random_em_start", "EM restarted from random models (Dirichlet(1) prior and confusion "
                      "columns) instead", fixed={"start": "random"}),))


# The authors' code's per-annotator alignment, beside the as-printed pipeline (Tables 4 and 9)
for _method in ("dessymnmf", "dessymnmf-em"):
    _printed = PRINTED_ERRORS["dog"][_method]
    PAPER.claim(
        f"table4.dog.{_method}.code_alignment", item="Table 4",
        statement=f"With the alignment of the authors' released code (each annotator's confusion floored at 1e-3, "
                  "then its column for class k taken to be its column largest in row k; EM for its 10 rounds; not "
                  f"printed in the paper), {PAPER_ROWS[_method]}'s error on dog{SET_NOTE['dog']} is the printed "
                  f"{_printed:.2f} % (truncated to two decimals, as Table 4 prints).",
        formula=rf"\mathrm{{err}}(\mathrm{{{PAPER_ROWS[_method]}}},\ \text{{code's alignment}}) = {_printed:.2f}\,\%",
        law=MatchesPrinted(error_of(code_variant(_method)), _printed, 2, truncated=True), sweep=sw.REAL["dog"],
        table=error_table("dog", "Table 4: error (%) on dog"),
        controls=(Control("common_alignment", "the as-printed pipeline (one class permutation for all annotators)",
                          law=MatchesPrinted(error_of(_method), _printed, 2, truncated=True)),))

TABLE9 = {"robsymnmf": 32.10, "robsymnmf-em": 22.10, "dessymnmf": 29.10, "dessymnmf-em": 22.20}  # means, 100 trials
TABLE9_SPREAD = 1.0  # two of the printed standard deviations (RobSymNMF-EM: +- 0.5 over 100 restarts)
TABLE9_OURS = {"robsymnmf": 42.8, "robsymnmf-em": 38.6, "dessymnmf": 36.9, "dessymnmf-em": 32.8}  # common alignment
TABLE9_CODE = {"robsymnmf": 29.3, "robsymnmf-em": 22.2, "dessymnmf": 28.5, "dessymnmf-em": 22.0}  # the code's


def table9() -> PrintedTable:
    rows = {PAPER_ROWS[m]: [v] for m, v in TABLE9.items()}

    def measured(ds):
        return {PAPER_ROWS[str(m)]: [float(ds["error"].sel(aggregator=m).mean())]
                for m in ds["aggregator"].values if str(m) in PAPER_ROWS}
    return PrintedTable("Table 9: error (%) on LabelMe", ("error (%)",), rows, measured, "%")


def printed_mean(method: str, value: float) -> MatchesPrintedMean:
    return MatchesPrintedMean(error_of(method), value, 2, spread=TABLE9_SPREAD)


for _method, _printed in TABLE9.items():
    _ours, _code = TABLE9_OURS[_method], TABLE9_CODE[_method]
    PAPER.claim(
        f"table9.labelme.{_method}", item="Table 9 (Appendix C.3)",
        statement=f"On LabelMe (1,000 images, 59 annotators, 8 classes, 2,547 answers; shipped here) "
                  f"{PAPER_ROWS[_method]}'s error is the printed {_printed:.2f} %, a mean over 100 random "
                  f"initialisations: one deterministic run must lie within {TABLE9_SPREAD:g} point of it (two of the "
                  "printed standard deviations of RobSymNMF-EM, +- 0.5).",
        formula=rf"|\mathrm{{err}}(\mathrm{{{PAPER_ROWS[_method]}}}) - {_printed:.2f}| \le {TABLE9_SPREAD:g}",
        law=printed_mean(_method, _printed), sweep=sw.REAL["labelme"], table=table9(), expected=REFUTED,
        finding=not_reproduced(
            f"Not reproduced as the paper describes the method: we measure {_ours:.1f} % (the paper "
            f"{_printed:.2f} %). {CODE_ALIGNMENT.format(method=code_variant(_method), ours=f'{_code:.1f} %')}"
            "On LabelMe (about 2.5 answers per item, 45 % of the observed annotator pairs share a single item) "
            "Eq. (13)'s factor leaves many annotators' blocks in another class order than the rest, and one "
            "permutation for all cannot repair them. Scope: our implementation as documented "
            f"({SCOPE[_method]}); the code's own imputation (coupled factorisation from random starts) is not "
            "ours.", cause="implementation"),
        controls=(Control("measured", f"our error, {_ours:.1f} %", CONFIRMED,
                          law=MatchesPrintedMean(error_of(_method), _ours, 2, spread=0.05)),))

for _method in ("robsymnmf-em", "dessymnmf-em"):
    PAPER.claim(
        f"table9.labelme.{_method}.code_alignment", item="Table 9 (Appendix C.3)",
        statement=f"With the authors' released code's per-annotator alignment and its 10 EM rounds (not printed "
                  f"in the paper), {PAPER_ROWS[_method]}'s error on LabelMe lies within {TABLE9_SPREAD:g} point of "
                  f"the printed mean {TABLE9[_method]:.2f} %.",
        formula=rf"|\mathrm{{err}}(\mathrm{{{PAPER_ROWS[_method]}}},\ \text{{code's alignment}}) - "
                rf"{TABLE9[_method]:.2f}| \le {TABLE9_SPREAD:g}",
        law=printed_mean(code_variant(_method), TABLE9[_method]), sweep=sw.REAL["labelme"], table=table9(),
        controls=(Control("common_alignment", "the as-printed pipeline (one class permutation for all annotators)",
                          law=printed_mean(_method, TABLE9[_method])),))


def off_printed(printed: float):
    """|error - printed| (percentage points) per restart."""
    return lambda ds: abs(ds["error"] - printed)


PAPER.claim(
    "table9.labelme.restarts", item="Table 9 (Appendix C.3)",
    statement="Table 9's protocol on LabelMe: RobSymNMF-EM restarted from random orthogonal Q_(0), each restart "
              "aligned as the authors' released code aligns (each annotator on its own) and refined by its 10 EM "
              "rounds; the restarts' errors lie within 1 percentage point of the printed mean 22.1 % on average "
              "(the paper: 22.1 % +- 0.5 % over 100 trials).",
    formula=r"\mathrm{E}_{\mathrm{restarts}}|\mathrm{err} - 22.1| \le 1\ \text{percentage point}",
    law=Bound(off_printed(TABLE9["robsymnmf-em"]), TABLE9_SPREAD, "<="), sweep=sw.RESTARTS_LABELME,
    controls=(Control("common_alignment", "the paper's alignment (one class permutation for all annotators) and EM "
                      "as crowd-kit stops it", fixed={"alignment": "common"}),))
