"""A paper: its key, citation, shared parameters and footprint, and the claims it declares (docs/claims.md).

Declaring ``Paper(...)`` registers the paper; ``paper.claim(name, ...)`` declares and registers one claim.
This module sits above both :mod:`simverify.claims` (the claim model) and :mod:`simverify.registry` (where
claims are kept), so neither of those imports the other's user.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .claims import Citation, Claim
from .footprint import Footprint
from .registry import register, register_paper


@dataclass(frozen=True)
class Paper:
    """One paper: its key (the claim id prefix), its short title, its citation, the parameters its claims share
    (``parameters``: name -> constraint, simverify.parameters) and their rules across parameters (``validate``),
    its cells' footprint, and the items no claim checks (item -> reason, shown in the report)."""
    key: str
    title: str
    citation: Citation
    validate: Callable[[dict], None] | None = None
    footprint: Callable[[dict], Footprint] | None = None
    not_checked: Mapping[str, str] = field(default_factory=dict)  # item -> why no claim checks it
    parameters: Mapping[str, Any] = field(default_factory=dict)  # name -> constraint, checked per cell at plan

    def __post_init__(self):
        if not isinstance(self.citation, Citation):
            raise TypeError(f"paper {self.key!r}: citation must be a simverify.claims.Citation")
        register_paper(self.key, self.citation, self.not_checked)

    def claim(self, name: str, **fields) -> Claim:
        """Declare and register claim ``<key>.<name>`` (its controls register with it)."""
        inherited = {"validate": self.validate, "footprint": self.footprint, "parameters": self.parameters}
        return register(Claim(id=f"{self.key}.{name}", paper=self.key, **{**inherited, **fields}))
