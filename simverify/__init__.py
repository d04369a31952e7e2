"""simverify: Numba-accelerated simulation and verification of claims from five papers."""
__version__ = "0.1.0"
