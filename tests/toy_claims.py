"""Toy claims used by the engine tests (a plugin module, loaded via SIMVERIFY_PLUGINS)."""
import time

import numpy as np

from simverify.claims import Claim, Control, Grid, Identity, PowerLaw, Tier
from simverify.registry import register
from simverify.stats import REFUTED


def measure_power(p, seed):
    g = np.random.default_rng(seed)
    return {"y": p["x"] ** p["exponent"] * np.exp(0.05 * g.standard_normal())}


def measure_slow(p, seed):
    time.sleep(p["sleep"])
    return {"y": float(np.random.default_rng(seed).standard_normal())}


register(Claim(id="toy.power", paper="toy", item="Toy 1", statement="y ~ x^2", formula="y = x^2",
               law=PowerLaw("y", "x", 2.0), measure=measure_power,
               tiers={"quick": Tier(Grid({"x": [1.0, 2.0, 4.0, 8.0]}), 8, {"exponent": 2.0, "n": 3}),
                      "full": Tier(Grid({"x": [1.0, 2.0, 4.0, 8.0, 16.0]}), 16, {"exponent": 2.0, "n": 3})},
               validate=lambda p: None if p["n"] > 0 else (_ for _ in ()).throw(ValueError(f"n must be positive, got {p['n']}")),
               controls=(Control("wrong_exponent", "data with exponent 1", fixed={"exponent": 1.0}),)))

register(Claim(id="toy.slow", paper="toy", item="Toy 2", statement="mean zero", formula="E y = 0",
               law=Identity("y", 0.0, atol=2.0), measure=measure_slow,
               tiers={"quick": Tier(Grid({"cell": list(range(12))}), 2, {"sleep": 0.25}),
                      "full": Tier(Grid({"cell": list(range(12))}), 2, {"sleep": 0.25})},
               controls=(Control("tight", "resolution 1e-6", law=Identity("y", 0.0, atol=1e-6), expected=REFUTED),)))

register(Claim(id="toy.borderline", paper="toy", item="Toy 3", statement="y ~ x^2 (data on the band's edge)",
               formula="y = x^2.075, claimed 2 +- 0.1", law=PowerLaw("y", "x", 2.0), measure=measure_power,
               tiers={"quick": Tier(Grid({"x": [1.0, 2.0, 4.0, 8.0]}), 4, {"exponent": 2.075, "n": 3}),
                      "full": Tier(Grid({"x": [1.0, 2.0, 4.0, 8.0]}), 4, {"exponent": 2.1, "n": 3})},
               controls=(Control("wrong_exponent", "data with exponent 1", fixed={"exponent": 1.0}),)))
