"""Toy claims used by the engine tests (a plugin module, loaded via SIMVERIFY_PLUGINS)."""
import os
import time

import numpy as np

from simverify.claims import Citation, Control, Grid, PrintedTable, Sweep, Tier
from simverify.laws import Identity, PowerLaw
from simverify.paper import Paper
from simverify.stats import REFUTED


def _validate(p: dict) -> None:
    if "n" in p and p["n"] <= 0:
        raise ValueError(f"n must be positive, got {p['n']}")


TOY_CITATION = Citation("A. Author", "Toy claims", "Test fixtures", 2026)
TOY = Paper("toy", "Toy claims for the engine tests", TOY_CITATION, validate=_validate)


def measure_power(seed, *, x: float, exponent: float, n: int) -> dict:
    """y = x^exponent with 5% log-normal noise (n only exercises validation)."""
    g = np.random.default_rng(seed)
    return {"y": x ** exponent * np.exp(0.05 * g.standard_normal())}


STARTED = "SIMVERIFY_TOY_STARTED"  # tests: a file measure_slow creates as it starts a cell (a run is under way)


def measure_slow(seed, *, cell: int, sleep: float) -> dict:
    """A standard normal y, after sleeping ``sleep`` seconds (first touching the file named by $STARTED, if set)."""
    if os.environ.get(STARTED):
        open(os.environ[STARTED], "a").close()
    time.sleep(sleep)
    return {"y": float(np.random.default_rng(seed).standard_normal())}


WRONG_EXPONENT = Control("wrong_exponent", "data with exponent 1", fixed={"exponent": 1.0})

POWER = Sweep("toy.power", measure_power, {
    "quick": Tier(Grid({"x": [1.0, 2.0, 4.0, 8.0]}), 8, {"exponent": 2.0, "n": 3}),
    "full": Tier(Grid({"x": [1.0, 2.0, 4.0, 8.0, 16.0]}), 16, {"exponent": 2.0, "n": 3})})

SLOW = Sweep("toy.slow", measure_slow, {
    "quick": Tier(Grid({"cell": list(range(12))}), 2, {"sleep": 0.25}),
    "full": Tier(Grid({"cell": list(range(12))}), 2, {"sleep": 0.25})}, work=lambda p: p["sleep"])

BORDERLINE = Sweep("toy.borderline", measure_power, {
    "quick": Tier(Grid({"x": [1.0, 2.0, 4.0, 8.0]}), 4, {"exponent": 2.075, "n": 3}),
    "full": Tier(Grid({"x": [1.0, 2.0, 4.0, 8.0]}), 4, {"exponent": 2.1, "n": 3})})

# a "printed" table (x = 1, 2, 4, 8 as columns; y printed as if x^2 was measured) beside the replicate means
POWER_TABLE = PrintedTable("Toy table: y", ("x = 1", "x = 2", "x = 4", "x = 8"), {"y": [1.0, 4.0, 16.0, 64.0]},
                           lambda ds: {"y": ds["y"].mean("replicate").sel(x=[1.0, 2.0, 4.0, 8.0]).values.tolist()})

TOY.claim("power", item="Toy 1", statement="y ~ x^2", formula="y = x^2", law=PowerLaw("y", "x", 2.0), sweep=POWER,
          controls=(WRONG_EXPONENT,), table=POWER_TABLE)

TOY.claim("slow", item="Toy 2", statement="mean zero", formula="E y = 0", law=Identity("y", 0.0, atol=2.0), sweep=SLOW,
          controls=(Control("tight", "resolution 1e-6", law=Identity("y", 0.0, atol=1e-6), expected=REFUTED),))

TOY.claim("borderline", item="Toy 3", statement="y ~ x^2 (data on the band's edge)",
          formula="y = x^2.075, claimed 2 +- 0.1", law=PowerLaw("y", "x", 2.0), sweep=BORDERLINE,
          controls=(WRONG_EXPONENT,))
