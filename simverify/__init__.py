"""simverify: Numba-accelerated simulation and verification of claims from five papers."""
from .hostinfo import pin_blas_kernels as _pin_blas_kernels

_pin_blas_kernels()  # before NumPy loads OpenBLAS, when simverify comes first (docs/cli.md, "The same bits ...")
__version__ = "0.1.0"
