"""Theorem 2 of Qiu et al. (2017) with W' at a fixed spectral distance from W, so that tau =
max{||W - W'||, ||W - W'||^(1/2)} does not change along the grid (for the growth of delta in k, where
a fixed perturbation step gives a distance that itself depends on k)."""
from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

from simverify import metrics
from simverify.generators import onebit as gen

from .measures import theorem2_deviation


def perturbed_at_distance(W: np.ndarray, E: np.ndarray, dist: float) -> np.ndarray:
    """W' = column_normalize(W + s E) (d1, d2) with s >= 0 chosen so that ||W - W'||_2 = dist (to 1e-10)."""
    def gap(s: float) -> float:
        return metrics.spectral_error(gen.column_normalize(W + s * E), W) - dist

    hi = 1.0
    while gap(hi) < 0:
        hi *= 2.0
        if hi > 1e6:
            raise ValueError(f"||W - W'||_2 = {dist} is not reached along W + s E")
    return gen.column_normalize(W + brentq(gap, 0.0, hi, xtol=1e-12, rtol=1e-12) * E)


def measure_theorem2_at_distance(seed, *, d1: int, d2: int, k: int, m: int, spectral_distance: float) -> dict:
    """Theorem 2 for W = W* (Section 5.1 model) and W' at ``spectral_distance`` from W along an independent
    F_k direction: Theorem 2's quantities (see ``theorem2_deviation``), ``gap`` being the distance reached."""
    s_model, s_pert, s_data = seed.spawn(3)
    W = gen.gaussian_model_matrix(d1, d2, k, s_model)
    W2 = perturbed_at_distance(W, gen.gaussian_model_matrix(d1, d2, k, s_pert), spectral_distance)
    return theorem2_deviation(W, W2, m, s_data)
