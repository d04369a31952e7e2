"""Section 3 and Section 4 of Lin et al. (2022): Algorithm 1 as printed, the moment estimation sequence of
Eq. (10) (Lemma 8), and the linear convergence of Theorems 2 and 3."""
from __future__ import annotations

from simverify.claims import Control
from simverify.findings import erratum
from simverify.laws import LinearRate, PowerLaw, Selection
from simverify.stats import CONFIRMED, REFUTED

from . import PAPER
from . import sweeps as sw

# Eq. (9) with sigma_1* = sigma_k* = 1 (M* = U U^T) and ||w*||_2^2 = 1 (w* ~ N(0, I/d)):
# (4 sqrt5 + 3) / (8 sqrt5 + 3)
EQ9_RATE = 0.572

PAPER.claim(
    "lemma8.eq10_m", item="Lemma 8 / Eq. (10)",
    statement="Line 7's M(z) = H(z) - D(G1 o P1)/2 - D(G2 o P2)/2 is a moment estimation sequence: "
              "M(z) = M - M* + O(delta eps) with delta -> 0 like n^(-1/2) (eps = ||w - w*|| + ||M - M*||_2).",
    formula=r"\mathcal{M}^{(t)}(\hat y - y) = M^{(t-1)} - M^* + O(\delta \epsilon_{t-1})",
    law=PowerLaw("eq10_printed", "n", -0.5), sweep=sw.EQ10, expected=REFUTED,
    finding=erratum(
        "E H(z) = (M - M*) + tr(M - M*) I / 2 + D(phi - 3) D(M - M*)/2 + D(kappa) D(w - w*)/2 (Eq. 6's F halved). "
            "The G terms cancel the last two, but nothing cancels tr(M - M*) I / 2: Appendix E's proof writes "
            "H* - D(G* o P*)/2 = M - M*, dropping it. The residual ||M(z) - (M - M*)||_2 / eps therefore stalls at "
            "|tr(M - M*)| / (2 eps) instead of decaying. Correction (smallest): subtract P0(z) I / 2, which estimates "
            "tr(M - M*) I / 2 (Lemma 6). Scope: every state with tr(M - M*) != 0, i.e. generically.",
        derivation="E H(z) computed term by term from Eq. (6); Appendix E's step H* - D(G* o P*)/2 = M - M* "
                   "drops tr(M - M*) I / 2; the measured residual stalls at |tr(M - M*)| / (2 eps)."),
    controls=(Control("trace_removed", "M(z) - P0(z) I / 2", CONFIRMED, law=PowerLaw("eq10_corrected", "n", -0.5)),))

PAPER.claim(
    "lemma8.eq10_w", item="Lemma 8 / Eq. (10)",
    statement="Line 10's W(z) = H1 o P1 + H2 o P2 = w - w* + O(delta eps), delta -> 0 like n^(-1/2).",
    formula=r"\mathcal{W}^{(t)}(\hat y - y) = w^{(t-1)} - w^* + O(\delta \epsilon_{t-1})",
    law=PowerLaw("eq10_w", "n", -0.5), sweep=sw.EQ10,
    controls=(Control("appendix_e_G", "W = G1 o P1 + G2 o P2, as Appendix E writes it (a typo: H, not G)",
                      law=PowerLaw("eq10_w_with_G", "n", -0.5)),))


def _variant(index: int):
    return Selection("error", "variant", index)


PAPER.claim(
    "algorithm1.printed_v_step", item="Algorithm 1 (line 9)",
    statement="Algorithm 1 as printed, line 9 V(t) = V(t-1) R(t)^T (line 7's trace term removed, to isolate line 9), "
              "converges linearly at the rate of Eq. (9).",
    formula=r"V^{(t)} = V^{(t-1)} R^{(t)\top},  V^{(0)} = 0",
    law=LinearRate(_variant(0), EQ9_RATE), sweep=sw.ALGORITHM1_PRINTED, expected=REFUTED,
    finding=erratum(
        "Line 4 sets V(0) = 0, so line 9 keeps V(t) = 0 and M(t) = U(t) V(t)^T = 0 for every t: the recovery "
            "error stays at ||w - w*|| + ||M*||_2 (measured: about 1 in M for every t). Correction (smallest): "
            "V(t) = U-hat(t), so that M(t) = U(t) U-hat(t)^T is the power step's estimate, with U(t) from the QR "
            "decomposition whose R has a non-negative diagonal (with LAPACK's arbitrary signs, M(t) = Q R^T Q^T "
            "flips the sign of a direction whenever R_ii < 0, and the iteration stalls). Scope: any start, any n.",
        derivation="By induction from line 4's V(0) = 0 through line 9; measured: the error stays at its start."),
    controls=(Control("corrected", "V(t) = U-hat(t), P0 I / 2 removed", CONFIRMED,
                      law=LinearRate(_variant(2), EQ9_RATE)),))

PAPER.claim(
    "algorithm1.printed_trace", item="Algorithm 1 (line 7)",
    statement="Algorithm 1 with line 7's M(z) as printed (line 9 corrected) converges linearly at the rate of Eq. (9).",
    formula=r"\mathcal{M}^{(t)} = \mathcal{H}^{(t)} - \frac{1}{2} D(G_1 \circ P^{(t,1)})"
            r" - \frac{1}{2} D(G_2 \circ P^{(t,2)})",
    law=LinearRate(_variant(1), EQ9_RATE), sweep=sw.ALGORITHM1_PRINTED, expected=REFUTED,
    finding=erratum("The uncancelled tr(M - M*) I / 2 (see lemma8.eq10_m) enters U-hat = V - M(z) U as "
            "-tr(M - M*) U / 2. In the population map (exact expectations, d = 40): at k = 1 the iteration still "
            "converges (factor 1/2), at k = 2 it stalls at 0.44, at k = 3 it oscillates between 0.4 and 1.1, and for "
            "k = 4, 5, 6, 10 it diverges (k = 10: 5 -> 2e8 in 12 steps, a factor k/2 per step). Correction: subtract "
            "P0(z) I / 2. Scope: k >= 2, from line 4's start.",
        derivation="The uncancelled term of lemma8.eq10_m carried through line 8; the population map iterated "
                   "with exact expectations."),
    controls=(Control("corrected", "P0 I / 2 removed", CONFIRMED, law=LinearRate(_variant(2), EQ9_RATE)),))

PAPER.claim(
    "theorem2.linear_rate", item="Theorem 2",
    statement="Noise-free, tau-MIP x (truncated Gaussian a = 0), the corrected Algorithm 1 from line 4's start "
              "converges linearly with a factor at most delta of Eq. (9) (0.572 for sigma_1* = sigma_k* = 1, "
              "||w*|| = 1).",
    formula=r"\|w^{(t)} - w^*\|_2 + \|M^{(t)} - M^*\|_2 \le \delta^t (\|w^*\|_2 + \|M^*\|_2)",
    law=LinearRate("error", EQ9_RATE), sweep=sw.ALGORITHM1_N,
    controls=(Control("factor_0.005", "a contraction factor of at most 0.005",
                      law=LinearRate("error", 0.005)),))

PAPER.claim(
    "theorem2.rate_n", item="Theorem 2",
    statement="The contraction factor shrinks as the batch grows, about like n^(-1/2) (delta ~ O(n^(-1/2))).",
    formula=r"\delta^t \approx O(n^{-t/2})",
    law=PowerLaw("contraction", "n", -0.5, margin=0.15), sweep=sw.ALGORITHM1_N,
    controls=(Control("n_free", "a contraction factor independent of n", law=PowerLaw("contraction", "n", 0.0)),))

PAPER.claim(
    "theorem2.any_start", item="Theorem 2 / Theorem 3",
    statement="From a random orthonormal U(0) instead of line 4's spectral start, the corrected Algorithm 1 still "
              "converges linearly with factor at most 0.572 (Gaussian, truncated Gaussian a = 0, uniform).",
    formula=r"\|w^{(t)} - w^*\|_2 + \|M^{(t)} - M^*\|_2 \le \delta^t (\|w^*\|_2 + \|M^*\|_2)",
    law=LinearRate("error", EQ9_RATE), sweep=sw.ALGORITHM1_RANDOM_START,
    controls=(Control("factor_0.005", "a contraction factor of at most 0.005", law=LinearRate("error", 0.005)),))

PAPER.claim(
    "theorem3.noisy_floor", item="Theorem 3 (remark after Theorem 2)",
    statement="With noise level 1 the iteration converges to the statistical error level, a floor that falls like "
              "n^(-1/2).",
    formula=r"\|w^{(T)} - w^*\|_2 + \|M^{(T)} - M^*\|_2 \propto n^{-1/2}",
    law=PowerLaw("final_error", "n", -0.5), sweep=sw.ALGORITHM1_NOISY,
    controls=(Control("n_free", "a floor independent of n", law=PowerLaw("final_error", "n", 0.0)),))
