"""Section 6.3 (Figure 7): sensors comparing energies of the same T finite samples, Chi (2018)."""
from __future__ import annotations

from simverify.claims import Control
from simverify.laws import Comparison, SlopeRange

from . import PAPER
from . import sweeps as sw


def _nmse(noise_var):
    return lambda ds: ds["nmse"].sel(noise_var=noise_var)


def _largest_m(noise_var):
    return lambda ds: ds["nmse"].sel(noise_var=noise_var).isel(m=-1)


def _gain_cross(t_num, t_den):
    """NMSE(T = t_num) x NMSE(T = t_den) per replicate (largest m). Cells at different T are
    independent, so the replicate mean of this product estimates E NMSE(t_num) E NMSE(t_den), and
    the ratio of two such means is the ratio of the gains of the mean curves Figure 7 plots."""
    return lambda ds: ds["nmse"].isel(m=-1).sel(T=t_num) * ds["nmse"].isel(m=-1).sel(T=t_den)


# gain(50 -> 200) / gain(10 -> 40) = [E N(50) E N(40)] / [E N(10) E N(200)]
_SATURATION = {"a": _gain_cross(50, 40), "b": _gain_cross(10, 200)}

PAPER.claim(
    "figure7.noise_free_saturates", item="Figure 7",
    statement="Noise-free samples (sigma^2 = 0): the gain from more samples diminishes once T is large (4x more "
              "samples buy less from T = 50 than from T = 10; largest m).",
    formula=r"\frac{NMSE(50)/NMSE(200)}{NMSE(10)/NMSE(40)} \le 1  (\sigma^2 = 0)",
    law=Comparison(**_SATURATION, relation="less"), sweep=sw.FIGURE7_GAIN,
    controls=(Control("gain_grows", "claim that 4x more samples buy more at large T",
                      law=Comparison(**_SATURATION, relation="greater")),))

PAPER.claim(
    "figure7.noise_free_no_floor", item="Figure 7",
    statement="(This project) Noise-free samples span exactly the principal subspace, so even T = 10 shared samples "
              "leave no error floor: NMSE keeps falling with m (a floor would flatten the slope to 0).",
    formula=r"d\log NMSE / d\log m \le -1/2  (\sigma^2 = 0, T = 10; Theorem 1's rate is -1)",
    law=SlopeRange(_nmse(0.0), "m", upper=-0.5), sweep=sw.FIGURE7_FLOOR,
    controls=(Control("noisy_samples", "the same law for sigma^2 = 0.1 (Sigma_T's subspace is off: a floor)",
                      law=SlopeRange(_nmse(0.1), "m", upper=-0.5)),))

PAPER.claim(
    "figure7.noise_hurts", item="Figure 7",
    statement="Noisy samples (sigma^2 = 0.1) give a larger NMSE than noise-free ones at every T and m.",
    formula=r"NMSE(\sigma^2 = 0.1) / NMSE(\sigma^2 = 0) \ge 1",
    law=Comparison(_nmse(0.1), _nmse(0.0), "greater", 1.0), sweep=sw.FIGURE7,
    controls=(Control("comparable", "claim that noise changes the NMSE by less than 10%",
                      law=Comparison(_nmse(0.1), _nmse(0.0), "comparable", 1.1)),))

PAPER.claim(
    "figure7.noisy_needs_samples", item="Figure 7",
    statement="With noisy samples, performance improves as more samples are averaged (largest m).",
    formula=r"d\log NMSE / d\log T < 0  (\sigma^2 = 0.1)",
    law=SlopeRange(_largest_m(0.1), "T", upper=0.0), sweep=sw.FIGURE7,
    controls=(Control("samples_hurt", "claim that the NMSE grows with T",
                      law=SlopeRange(_largest_m(0.1), "T", lower=0.0)),))
