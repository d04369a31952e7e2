"""Claims of the five papers, one module per paper; importing registers them."""
from . import bitsubspace  # noqa: F401

PAPERS = ("onebit", "bitsubspace", "slm", "andnmf", "crowd")
