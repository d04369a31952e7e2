"""Claims of the papers, one package per paper; importing registers them."""
from . import (
    andnmf,  # noqa: F401
    bitsubspace,  # noqa: F401
    onebit,  # noqa: F401
    slm,  # noqa: F401
)
